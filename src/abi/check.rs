//! The ABI rules of spec/001 checked on the model (what a pexe can express), with the
//! historical pnacl-abicheck's wording and order (abicheck.md §2, §4).

use super::Rule;
use crate::ir::intrinsics::{self, Kind};
use crate::ir::{Body, ConstValue, Function, Init, InstKind, Linkage, Module, ValueType};

/// Where a finding belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Module,
    /// Function address `@fN`.
    Function(u32),
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub scope: Scope,
    /// The function's name (empty when unnamed or at module scope).
    pub fname: String,
    /// The line as the historical checker printed it.
    pub msg: String,
    /// The spec/001 rule (section name).
    pub rule: Rule,
    /// Bit position of the record in the pexe, when known.
    pub pos: Option<u64>,
    /// A warning (debug metadata), not an error.
    pub warning: bool,
}

/// Options of the checker.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Hold to the 2014 checker where it is stricter than spec/001 (seq_cst only, no
    /// llvm.fabs).
    pub historical_strictness: bool,
}

fn name_of(f: &Function) -> String {
    f.name
        .as_deref()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .unwrap_or_default()
}

/// A parameter or return type spec/001 allows for ordinary functions (abicheck.md §5):
/// i32, i64, float, double, the vectors, and void as a return type.
fn valid_param(t: ValueType, is_ret: bool) -> bool {
    t.is_fcn_arg()
        || (is_ret && t.is_void())
        || matches!(t, ValueType::V4I1 | ValueType::V8I1 | ValueType::V16I1)
}

/// Whether `m`'s function `f` has a type ordinary functions may have.
pub fn valid_fn_type(m: &Module, f: u32) -> bool {
    let sig = m.fn_type(f);
    !sig.vararg && valid_param(sig.ret, true) && sig.params.iter().all(|p| valid_param(*p, false))
}

/// Checks every rule the model can express; returns all findings, module ones first,
/// then each function's in module order.
pub fn check(m: &Module, opts: &Options) -> Vec<Finding> {
    let mut out = Vec::new();
    let funcs = Funcs::of(m);
    module_rules(m, opts, &funcs, &mut out);
    for (f, func) in m.functions.iter().enumerate() {
        if let Some(loc) = &func.body {
            if funcs.intrinsic[f].is_none() {
                function_rules(m, opts, &funcs, f as u32, &m.code.body(loc), &mut out);
            }
        }
    }
    out
}

/// What the instruction rules ask of each function address, found once per module rather
/// than at every call and operand.
struct Funcs {
    /// The intrinsic a function is, by address.
    intrinsic: Vec<Option<&'static intrinsics::Intrinsic>>,
    /// Whether its name starts with `llvm.` (its address may not be taken).
    llvm: Vec<bool>,
    /// Whether its type is one ordinary functions may have (`valid_fn_type`).
    valid_type: Vec<bool>,
}

impl Funcs {
    fn of(m: &Module) -> Funcs {
        fn name(f: &Function) -> &[u8] {
            f.name.as_deref().unwrap_or_default()
        }
        Funcs {
            intrinsic: m
                .functions
                .iter()
                .map(|f| intrinsics::lookup(name(f)))
                .collect(),
            llvm: m
                .functions
                .iter()
                .map(|f| name(f).starts_with(b"llvm."))
                .collect(),
            valid_type: (0..m.functions.len() as u32)
                .map(|f| valid_fn_type(m, f))
                .collect(),
        }
    }

    /// Whether value `id` is the address of an `llvm.` function.
    #[inline]
    fn is_llvm(&self, id: u32) -> bool {
        self.llvm.get(id as usize).copied().unwrap_or(false)
    }
}

fn module_rules(m: &Module, opts: &Options, funcs: &Funcs, out: &mut Vec<Finding>) {
    let mut push = |msg: String, rule: Rule, pos: u64| {
        // 0: a finding about the module as a whole, at no particular record.
        let pos = (pos > 0).then_some(pos);
        out.push(Finding::error(Scope::Module, String::new(), msg, rule, pos))
    };
    // (b) global variables: only the flattened initializer forms; a compound needs more
    // than one element (spec/001 Rule::GlobalVariables).
    for glob in &m.globals {
        if glob.compound && glob.inits.len() < 2 {
            let name = glob
                .name
                .as_deref()
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .unwrap_or_default();
            let c = glob
                .inits
                .iter()
                .map(|i| match i {
                    Init::Zero(n) => format!("[{n} x i8] zeroinitializer"),
                    Init::Data(d) => format!("[{} x i8] c\"…\"", d.len()),
                    Init::Reloc { target, addend } => format!("i32 reloc @{target} + {addend}"),
                })
                .collect::<Vec<_>>()
                .join(", ");
            push(
                format!("Global variable {name} has non-flattened initializer (disallowed): <{{ {c} }}>"),
                Rule::GlobalVariables,
                glob.pos,
            );
        }
    }
    // (d) functions.
    let mut entry_points = 0;
    for (i, func) in m.functions.iter().enumerate() {
        let name = name_of(func);
        if funcs.llvm[i] {
            let allowed = funcs.intrinsic[i];
            // llvm.fabs: spec/001 allows it (pepper_42); the 2014 checker did not.
            let ok = allowed.is_some_and(|a| a.in_2014_checker || !opts.historical_strictness);
            if !ok {
                push(
                    format!("Function {name} is a disallowed LLVM intrinsic"),
                    Rule::Intrinsics,
                    func.pos,
                );
            }
            continue;
        }
        if !funcs.valid_type[i] {
            push(
                format!(
                    "Function {name} has disallowed type: {}",
                    m.fn_type(i as u32)
                ),
                Rule::FunctionTypes,
                func.pos,
            );
        }
        let defined = func.body.as_ref().is_some_and(|b| b.num_blocks > 0);
        if !defined {
            push(
                format!("Function {name} is declared but not defined (disallowed)"),
                Rule::EntryPoints,
                func.pos,
            );
        }
        if func.linkage == Linkage::External {
            if name == "_start" {
                entry_points += 1;
                if entry_points > 1 {
                    push(
                        "Module has multiple entry points (disallowed)".into(),
                        Rule::EntryPoints,
                        func.pos,
                    );
                }
            } else {
                push(
                    format!("{name} is not a valid external symbol (disallowed)"),
                    Rule::EntryPoints,
                    func.pos,
                );
            }
        }
    }
    if entry_points == 0 {
        push(
            "Module has no entry point (disallowed)".into(),
            Rule::EntryPoints,
            0,
        );
    }
}

/// The memory-order argument values allowed for each atomic operation, as the last PNaCl
/// translator (Subzero) accepted them (runtime.md §4.1): 3 acquire, 4 release, 5 acq_rel,
/// 6 seq_cst, with C11's per-operation rules: a load neither releases (4, 5) nor a store
/// acquires (3, 5); a compare-exchange fails with acquire or seq_cst, no stronger than its
/// success order, and a release success order admits no failure order at all. spec/001
/// promises "C11 memory orderings"; relaxed (1) and consume (2) it never translated. The
/// 2014 checker was stricter still (seq_cst only, `historical_strictness`); real pexes
/// (thread.pexe) carry release stores, so spec/001 and the files decide here.
pub fn order_allowed(kind: Kind, which: usize, v: u64, success: Option<u64>) -> bool {
    if !(3..=6).contains(&v) {
        return false;
    }
    match kind {
        Kind::AtomicLoad => !matches!(v, 4 | 5),
        Kind::AtomicStore => !matches!(v, 3 | 5),
        Kind::AtomicCmpxchg if which == 1 => {
            matches!(v, 3 | 6) && success.is_none_or(|s| v <= s && s != 4)
        }
        _ => true,
    }
}

fn function_rules(
    m: &Module,
    opts: &Options,
    funcs: &Funcs,
    f: u32,
    body: &Body,
    out: &mut Vec<Finding>,
) {
    let fname = name_of(&m.functions[f as usize]);
    let const_int = |id: u32| -> Option<u64> {
        match m.const_in(f, body, id)?.value {
            ConstValue::Int(v) => Some(v),
            _ => None,
        }
    };
    let ty = |id: u32| m.value_type_in(body, id).unwrap_or(ValueType::Void);
    // Every instruction: the kinds with rules of their own, and any with an intrinsic's
    // address as an operand. (The list is derived here, from the body itself, so that a
    // `Module` built by any means is checked whole.)
    for (i, inst) in body.insts.iter().enumerate() {
        let mut reason: Option<(&'static str, Rule)> = None;
        let mut set = |r: &'static str, rule: Rule| {
            if reason.is_none() {
                reason = Some((r, rule));
            }
        };
        // Each kind's rules, then whether an operand is an intrinsic's address (anything
        // but a direct callee).
        match inst.kind {
            InstKind::Cmp { pred, lhs, .. }
                if !pred.is_float() && ty(lhs).elem() == ValueType::I1 =>
            {
                set("Invalid integer arithmetic type", Rule::IntegerArithmetic);
            }
            InstKind::Binop { op, lhs, .. }
                if !op.allows_i1() && ty(lhs).elem() == ValueType::I1 =>
            {
                set("Invalid integer arithmetic type", Rule::IntegerArithmetic);
            }
            InstKind::Alloca { size, .. } if ty(size) != ValueType::I32 => {
                set("alloca array size is not i32", Rule::Alloca);
            }
            InstKind::Switch { cond, .. } if ty(cond) == ValueType::I1 => {
                set("switch on i1 not allowed", Rule::Switch);
            }
            InstKind::Load { align, .. } => {
                if inst.ty.load_store_alignments().is_empty() {
                    set("bad pointer", Rule::LoadStoreI1);
                } else if !inst.ty.load_store_alignments().contains(&align.bytes()) {
                    set("bad alignment", Rule::LoadStoreAlignment);
                }
            }
            InstKind::Store { val, align, .. } => {
                let t = ty(val);
                if t.load_store_alignments().is_empty() {
                    set("bad pointer", Rule::LoadStoreI1);
                } else if !t.load_store_alignments().contains(&align.bytes()) {
                    set("bad alignment", Rule::LoadStoreAlignment);
                }
            }
            InstKind::ExtractElement { vec, idx } | InstKind::InsertElement { vec, idx, .. } => {
                match const_int(idx) {
                    None => set(
                        "non-constant vector insert/extract index",
                        Rule::VectorIndex,
                    ),
                    Some(k) if k >= ty(vec).count() as u64 => set(
                        "out of range vector insert/extract index",
                        Rule::VectorIndex,
                    ),
                    _ => {}
                }
            }
            InstKind::Call {
                callee,
                args,
                indirect,
                ..
            } => {
                let args = body.span(args);
                call_rules(funcs, opts, &const_int, callee, args, indirect, &mut set);
                // An indirect call's signature is the function type it calls through:
                // the same rule as a function's own type (the reader builds any).
                if indirect
                    && !(valid_param(inst.ty, true)
                        && args.iter().all(|&a| valid_param(ty(a), false)))
                {
                    set("bad function callee operand", Rule::FunctionTypes);
                }
            }
            _ => {}
        }
        let intrinsic_operand = body.any_operand(inst, |id| funcs.is_llvm(id));
        if intrinsic_operand {
            set("bad operand", Rule::IntrinsicAddress);
        }
        if let Some((r, rule)) = reason {
            let text = crate::ir::asm::inst_text(m, f, body, i);
            let msg = format!("Function {fname} disallowed: {r}:    {text}");
            let (scope, pos) = (Scope::Function(f), body.inst_pos(i));
            out.push(Finding::error(scope, fname.clone(), msg, rule, pos));
        }
    }
}

/// The SSA rule of every LLVM module (`ir::dom`) on every function body: a finding for
/// each body that breaks it (its first use that does). Not part of `check`, which holds
/// the spec/001 rules and costs little next to reading: this one visits every
/// instruction, and costs about as much again (README, "Performance"). The tools run
/// both (`check_all`).
pub fn check_ssa(m: &Module) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut scratch = crate::ir::dom::Scratch::default();
    for (f, func) in m.functions.iter().enumerate() {
        if let Some(loc) = &func.body {
            ssa_rule(m, &mut scratch, f as u32, &m.code.body(loc), &mut out);
        }
    }
    out
}

/// `check`, then `check_ssa`: every rule a pexe must hold to, as the tools check it.
/// A function's findings stay together (the SSA one after the others), in function order.
pub fn check_all(m: &Module, opts: &Options) -> Vec<Finding> {
    let mut out = check(m, opts);
    let ssa = check_ssa(m);
    if !ssa.is_empty() {
        out.extend(ssa);
        out.sort_by_key(|f| match f.scope {
            Scope::Module => 0,
            Scope::Function(f) => f as u64 + 1,
        });
    }
    out
}

/// The SSA rule on function `f`'s body.
fn ssa_rule(
    m: &Module,
    scratch: &mut crate::ir::dom::Scratch,
    f: u32,
    body: &Body,
    out: &mut Vec<Finding>,
) {
    let first_inst_value =
        m.num_global_values() + m.fn_type(f).params.len() as u32 + body.consts.len() as u32;
    if let Err(u) = scratch.check(body, first_inst_value) {
        let fname = name_of(&m.functions[f as usize]);
        let reason = malformed_reason(m, f, body, u.kind);
        let text = crate::ir::asm::inst_text(m, f, body, u.inst);
        let msg = format!("Function {fname} disallowed: {reason}:    {text}");
        let (scope, pos) = (Scope::Function(f), body.inst_pos(u.inst));
        out.push(Finding::error(scope, fname, msg, Rule::WellFormed, pos));
    }
}

/// What `ir::dom::check` found wrong in function `f`'s body, in LLVM's verifier's words
/// and with the value's or block's name.
pub fn malformed_reason(
    m: &Module,
    f: u32,
    body: &Body,
    kind: crate::ir::dom::MalformedKind,
) -> String {
    use crate::ir::dom::MalformedKind::*;
    match kind {
        Undominated(v) => format!(
            "Instruction does not dominate all uses ({}'s definition does not dominate this use)",
            crate::ir::asm::value_name(m, f, body, v)
        ),
        OwnValue(v) => format!(
            "Only PHI nodes may reference their own value ({})",
            crate::ir::asm::value_name(m, f, body, v)
        ),
        PhiMissing(p) => format!(
            "PHINode should have one entry for each predecessor of its parent basic block (none for %b{p})"
        ),
    }
}

/// The rules of a call: an intrinsic's constant arguments (alignment, lock-free size,
/// memory orders, RMW operation), or an ordinary callee's type.
fn call_rules(
    funcs: &Funcs,
    opts: &Options,
    const_int: &dyn Fn(u32) -> Option<u64>,
    callee: u32,
    args: &[u32],
    indirect: bool,
    set: &mut dyn FnMut(&'static str, Rule),
) {
    let intr = if !indirect {
        funcs.intrinsic[callee as usize]
    } else {
        None
    };
    if let Some(intr) = intr {
        match intr.kind {
            Kind::Memcpy | Kind::Memmove | Kind::Memset if const_int(args[3]) != Some(1) => {
                set("bad alignment", Rule::MemIntrinsicAlignment);
            }
            Kind::AtomicIsLockFree if !matches!(const_int(args[0]), Some(1 | 2 | 4 | 8)) => {
                set(
                    "invalid atomic lock-free byte size",
                    Rule::AtomicLockFreeSize,
                );
            }
            _ => {}
        }
        let orders = intr.memory_order_args();
        let success = orders.first().and_then(|&k| const_int(args[k]));
        for (which, &k) in orders.iter().enumerate() {
            let ok = match const_int(args[k]) {
                // The 2014 checker accepted seq_cst only; spec/001 allows the
                // C11 orders, and real pexes (2014-2016) hold release stores.
                Some(v) if opts.historical_strictness => v == 6,
                Some(v) => order_allowed(intr.kind, which, v, success),
                None => false,
            };
            if !ok {
                set("invalid memory order", Rule::AtomicMemoryOrder);
            }
        }
        if intr.kind == Kind::AtomicRmw && !matches!(const_int(args[0]), Some(1..=6)) {
            set("invalid atomicRMW operation", Rule::AtomicRmwOperation);
        }
    } else if !indirect && !funcs.valid_type[callee as usize] && !funcs.is_llvm(callee) {
        // (A disallowed intrinsic is the module's finding; its calls are not checked
        // again, as on LLVM modules.)
        set("bad function callee operand", Rule::FunctionTypes);
    }
}

/// The findings as the historical tool printed them: a header line before the module's
/// and before each function's findings.
pub fn render(findings: &[Finding]) -> String {
    let mut s = String::new();
    let mut last: Option<Scope> = None;
    for fd in findings {
        if last != Some(fd.scope) {
            let kind = if fd.warning { "WARNING" } else { "ERROR" };
            match fd.scope {
                Scope::Module => {
                    s.push_str(&format!("{kind}: Module is not valid PNaCl bitcode:\n"))
                }
                Scope::Function(_) => s.push_str(&format!(
                    "{kind}: Function {} is not valid PNaCl bitcode:\n",
                    fd.fname
                )),
            }
            last = Some(fd.scope);
        }
        s.push_str(&fd.msg);
        if let Some(rule) = fd.unclear_rule() {
            s.push_str("  [spec/001: ");
            s.push_str(rule.name());
            s.push(']');
        }
        s.push('\n');
    }
    s
}

/// The historical checker's terse reasons, after which the text output names the spec/001
/// rule (the wording stays the historical tool's, so matching on it still works).
const TERSE_REASONS: &[&str] = &[
    "bad operand",
    "bad pointer",
    "bad result type",
    "bad alignment",
    "bad function callee operand",
    "bad intrinsic operand",
    "bad call attributes",
    "bad calling convention",
    "bad switch condition",
    "bad switch case",
    "bad instruction opcode",
    "unknown instruction opcode",
    "operand not InherentPtr",
];

impl Finding {
    /// An error (not a warning) about `scope`.
    pub fn error(scope: Scope, fname: String, msg: String, rule: Rule, pos: Option<u64>) -> Self {
        let warning = false;
        Finding {
            scope,
            fname,
            msg,
            rule,
            pos,
            warning,
        }
    }

    /// The rule's name when the message's reason is one of the historical tool's terse
    /// ones (`bad operand`, `bad pointer`, …).
    pub fn unclear_rule(&self) -> Option<Rule> {
        let (_, rest) = self.msg.split_once(" disallowed: ")?;
        TERSE_REASONS
            .iter()
            .any(|r| rest.starts_with(r) && rest[r.len()..].starts_with(':'))
            .then_some(self.rule)
    }
}
