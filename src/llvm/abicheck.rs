//! The ABI rules of spec/001 on an LLVM module (`.ll`/`.bc` input): the module pass and the
//! function pass of the historical pnacl-abicheck, with its wording and order
//! (abicheck.md §2-§6), plus the data layout and triple spec/001 fixes.
//!
//! LLVM 14's C API has no predicates for `nsw`/`nuw`/`exact` or fast-math flags, nor a
//! reverse map from attribute or metadata kinds to names; those are read from LLVM's own
//! printed form of the value.

use std::collections::HashMap;

use llvm_sys::{LLVMLinkage, LLVMOpcode, LLVMUnnamedAddr, LLVMVisibility};

use crate::abi::{Finding, Rule, Scope};
use crate::ir::intrinsics::{self, Kind};

use super::edit::{self, Attribute, Module, Type, TypeKind, Value, ValueKind};
use super::ffi::attribute_indices;
use super::legacy::{FileFunction, Legacy};
use super::target::Target;

/// Options of the LLVM-level checker.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Accept debug information (the historical `-pnaclabi-allow-debug-metadata`).
    pub allow_debug_metadata: bool,
    /// Hold to the 2014 checker where it is stricter than spec/001.
    pub historical_strictness: bool,
    /// Skip named metadata: pnacl-finalize drops it (LLVM 14's C API cannot erase it, and
    /// a pexe has no place for it).
    pub ignore_named_metadata: bool,
}

/// Whether the module's data layout describes the PNaCl data model (spec/001 Rule::DataModel):
/// little-endian, 32-bit pointers, and the natural ABI alignment of every scalar (in
/// particular i64 and double at 8, which i386 layouts do not give). Layouts spelt
/// differently (clang's `e-p:32:32-i64:64` for le32) describe the same model.
fn ilp32_le(m: Module<'_>) -> bool {
    let td = m.layout();
    let ty = m.types();
    let ok = td.little_endian() && td.pointer_size() == 4 && td.abi_align(ty.i8().ptr()) == 4;
    let natural = [
        (ty.int(8), 1),
        (ty.int(16), 2),
        (ty.i32(), 4),
        (ty.i64(), 8),
        (ty.f32(), 4),
        (ty.f64(), 8),
    ];
    ok && natural.iter().all(|&(t, a)| td.abi_align(t) == a)
}

fn is_scalar(t: Type<'_>) -> bool {
    match t.kind() {
        TypeKind::Void | TypeKind::Float | TypeKind::Double => true,
        TypeKind::Int(w) => matches!(w, 1 | 8 | 16 | 32 | 64),
        _ => false,
    }
}

fn is_vector(t: Type<'_>) -> bool {
    matches!(t.kind(), TypeKind::Vector(e, n) if super::import::is_abi_vector(e, n))
}

/// The element type of vector type `t`, or `t` itself.
fn scalar_of(t: Type<'_>) -> Type<'_> {
    match t.kind() {
        TypeKind::Vector(e, _) => e,
        _ => t,
    }
}

fn is_i1_vector(t: Type<'_>) -> bool {
    is_vector(t) && scalar_of(t).int_width() == Some(1)
}

fn is_param_type(t: Type<'_>, ret: bool) -> bool {
    if t.is_void() {
        return ret;
    }
    if let Some(w) = t.int_width() {
        return matches!(w, 32 | 64);
    }
    is_scalar(t) || is_vector(t)
}

fn is_fn_type(t: Type<'_>) -> bool {
    !t.fn_is_vararg()
        && is_param_type(t.fn_return(), true)
        && t.fn_params().into_iter().all(|p| is_param_type(p, false))
}

fn is_pointer_type(t: Type<'_>) -> bool {
    let TypeKind::Pointer {
        pointee: e,
        addrspace: 0,
    } = t.kind()
    else {
        return false;
    };
    match e.kind() {
        TypeKind::Function => is_fn_type(e),
        TypeKind::Void => false,
        _ => (is_scalar(e) && e.int_width() != Some(1)) || (is_vector(e) && !is_i1_vector(e)),
    }
}

/// i8, i16, i32, i64 and the integer vectors but i1's.
fn is_int_arith(t: Type<'_>) -> bool {
    match t.int_width() {
        Some(w) => matches!(w, 8 | 16 | 32 | 64),
        None => is_vector(t) && matches!(scalar_of(t).int_width(), Some(w) if w != 1),
    }
}

// ---------------------------------------------------------------------------------------
// Operand classes (abicheck.md §4.2)

fn is_intrinsic_fn(v: Value<'_>) -> bool {
    v.kind() == ValueKind::Function && v.name().starts_with("llvm.")
}

fn is_global_value(v: Value<'_>) -> bool {
    matches!(
        v.kind(),
        ValueKind::Function | ValueKind::GlobalVariable | ValueKind::Alias
    )
}

fn is_inherent_ptr(v: Value<'_>) -> bool {
    match v.opcode() {
        Some(LLVMOpcode::LLVMAlloca) => true,
        Some(LLVMOpcode::LLVMCall) => is_intrinsic_fn(v.called_value()),
        _ => is_global_value(v) && !is_intrinsic_fn(v),
    }
}

fn is_normalized_ptr(v: Value<'_>) -> bool {
    if !is_pointer_type(v.ty()) {
        return false;
    }
    is_inherent_ptr(v)
        || matches!(
            v.opcode(),
            Some(LLVMOpcode::LLVMIntToPtr | LLVMOpcode::LLVMBitCast)
        )
}

fn is_valid_scalar_operand(v: Value<'_>) -> bool {
    match v.kind() {
        ValueKind::Instruction(_) | ValueKind::Argument | ValueKind::Block => true,
        ValueKind::ConstInt | ValueKind::ConstFloat | ValueKind::Undef => is_scalar(v.ty()),
        _ => false,
    }
}

fn is_valid_vector_operand(v: Value<'_>) -> bool {
    match v.kind() {
        ValueKind::Instruction(_) | ValueKind::Argument => true,
        ValueKind::Undef => is_vector(v.ty()),
        _ => false,
    }
}

fn const_int(v: Value<'_>) -> Option<u64> {
    v.const_zext()
}

// ---------------------------------------------------------------------------------------
// Attributes

/// The enum attributes of LLVM 14, by name (its C API has no map from kinds to names).
const ATTRIBUTE_NAMES: &str = "\
    align allocsize alwaysinline argmemonly builtin byval cold convergent dereferenceable \
    dereferenceable_or_null disable_sanitizer_instrumentation elementtype hot immarg \
    inaccessiblemem_or_argmemonly inaccessiblememonly inalloca inlinehint inreg jumptable \
    minsize mustprogress naked nest noalias nobuiltin nocallback nocapture nocf_check \
    noduplicate nofree noimplicitfloat noinline nomerge nonlazybind nonnull noprofile \
    norecurse noredzone noreturn nosanitize_coverage nosync noundef nounwind \
    null_pointer_is_valid optforfuzzing optnone optsize preallocated readnone readonly \
    returned returns_twice safestack sanitize_address sanitize_hwaddress sanitize_memory \
    sanitize_memtag sanitize_thread shadowcallstack signext speculatable \
    speculative_load_hardening sret ssp sspreq sspstrong strictfp swiftasync swifterror \
    swiftself uwtable vscale_range willreturn writeonly zeroext alignstack byref";

struct AttrNames(HashMap<u32, &'static str>);

impl AttrNames {
    fn new() -> Self {
        let mut m = HashMap::new();
        for n in ATTRIBUTE_NAMES.split_whitespace() {
            let k = edit::attr_kind(n);
            if k != 0 {
                m.insert(k, n);
            }
        }
        AttrNames(m)
    }

    fn describe(&self, a: Attribute<'_>) -> String {
        if let Some((k, v)) = a.string_pair() {
            let k = String::from_utf8_lossy(&k).into_owned();
            let v = String::from_utf8_lossy(&v).into_owned();
            return if v.is_empty() {
                format!("\"{k}\"")
            } else {
                format!("\"{k}\"=\"{v}\"")
            };
        }
        let n = a
            .kind()
            .and_then(|k| self.0.get(&k).copied())
            .unwrap_or("unknown");
        match (n, a.int_value()) {
            ("align", Some(v)) => format!("align {v}"),
            ("alignstack", Some(v)) => format!("alignstack({v})"),
            ("dereferenceable" | "dereferenceable_or_null", Some(v)) => format!("{n}({v})"),
            _ => n.to_string(),
        }
    }

    /// The attributes of function `f`: return value, parameters, then the function.
    fn of_function(&self, f: Value<'_>) -> Vec<String> {
        let indices = attribute_indices(f.params().len() as u32);
        let attrs = indices.flat_map(|idx| f.attributes(idx));
        attrs.map(|a| self.describe(a)).collect()
    }
}

fn call_site_attribute_count(call: Value<'_>) -> usize {
    let indices = attribute_indices(call.arg_count());
    indices.map(|idx| call.attributes(idx).len()).sum()
}

/// The call-site attributes of a call other than `align N` on its arguments, and the
/// values of those `align N`.
fn mem_call_attributes(call: Value<'_>) -> (usize, Vec<u64>) {
    let (mut others, mut aligns) = (0, Vec::new());
    let align_kind = edit::attr_kind("align");
    for idx in attribute_indices(call.arg_count()) {
        for a in call.attributes(idx) {
            let arg = idx != 0 && idx != u32::MAX;
            match a.int_value() {
                Some(v) if arg && a.kind() == Some(align_kind) => aligns.push(v),
                _ => others += 1,
            }
        }
    }
    (others, aligns)
}

/// Whether named node `n` holds only the module flags that come with debug information
/// ("Debug Info Version", "Dwarf Version"): LLVM 14 drops debug information from a module
/// without the first, so such flags belong to the debug information.
fn only_debug_flags(m: Module<'_>, n: &str) -> bool {
    let nodes = m.named_metadata(n);
    let debug = |key: Option<Vec<u8>>| {
        matches!(
            key.as_deref(),
            Some(b"Debug Info Version" | b"Dwarf Version")
        )
    };
    !nodes.is_empty()
        && nodes.iter().all(|node| match node.md_operands()[..] {
            [_, Some(key), _] => debug(key.md_string()),
            _ => false,
        })
}

/// The LLVM 14 type of an allowed intrinsic, as LLVM prints it. Pointers point to i8,
/// except the atomics' pointers, which point to the overloaded integer. LLVM 14's mem*
/// intrinsics have no alignment parameter (3.3's fourth, which had to be 1; LLVM 14
/// puts `align N` on the call's pointer arguments instead, checked at the call).
fn llvm14_type(i: &intrinsics::Intrinsic) -> String {
    use intrinsics::PTy;
    let atomic = matches!(
        i.kind,
        Kind::AtomicLoad | Kind::AtomicStore | Kind::AtomicRmw | Kind::AtomicCmpxchg
    );
    let int = match i.kind {
        Kind::AtomicStore => i.params[0].pexe(),
        _ => i.ret.pexe(),
    };
    let name = |t: &PTy| match t {
        PTy::V(v) => v.to_string(),
        PTy::Ptr if atomic => format!("{int}*"),
        PTy::Ptr => "i8*".to_string(),
    };
    let mem = matches!(i.kind, Kind::Memcpy | Kind::Memmove | Kind::Memset);
    let params: Vec<String> = i
        .params
        .iter()
        .enumerate()
        .filter(|&(k, _)| !(mem && k == 3))
        .map(|(_, p)| name(p))
        .collect();
    format!("{} ({})", name(&i.ret), params.join(", "))
}

fn linkage_name(l: LLVMLinkage) -> &'static str {
    use LLVMLinkage::*;
    match l {
        LLVMPrivateLinkage => "private ",
        LLVMLinkerPrivateLinkage => "linker_private ",
        LLVMLinkerPrivateWeakLinkage => "linker_private_weak ",
        LLVMLinkOnceAnyLinkage => "linkonce ",
        LLVMLinkOnceODRLinkage | LLVMLinkOnceODRAutoHideLinkage => "linkonce_odr ",
        LLVMWeakAnyLinkage => "weak ",
        LLVMWeakODRLinkage => "weak_odr ",
        LLVMCommonLinkage => "common ",
        LLVMAppendingLinkage => "appending ",
        LLVMDLLImportLinkage => "dllimport ",
        LLVMDLLExportLinkage => "dllexport ",
        LLVMExternalWeakLinkage => "extern_weak ",
        LLVMAvailableExternallyLinkage => "available_externally ",
        LLVMGhostLinkage => "unknown",
        LLVMExternalLinkage => "",
        LLVMInternalLinkage => "",
    }
}

// ---------------------------------------------------------------------------------------
// Global initializers (abicheck.md §3)

fn is_simple_element(c: Value<'_>) -> bool {
    let t = c.ty();
    if let TypeKind::Array(e, _) = t.kind() {
        let data = c.kind() == ValueKind::ConstData;
        return e.int_width() == Some(8) && (c.kind() == ValueKind::ConstZero || data);
    }
    let is_ptrtoint_gv = |e: Value<'_>| {
        e.kind() == ValueKind::ConstExpr(LLVMOpcode::LLVMPtrToInt) && is_global_value(e.operand(0))
    };
    match c.kind() {
        _ if t.int_width() != Some(32) => false,
        ValueKind::ConstExpr(LLVMOpcode::LLVMPtrToInt) => is_ptrtoint_gv(c),
        ValueKind::ConstExpr(LLVMOpcode::LLVMAdd) => {
            is_ptrtoint_gv(c.operand(0)) && c.operand(1).kind() == ValueKind::ConstInt
        }
        _ => false,
    }
}

fn is_flattened(c: Value<'_>) -> bool {
    if is_simple_element(c) {
        return true;
    }
    let t = c.ty();
    let is_struct = c.kind() == ValueKind::ConstAggregate && t.kind() == TypeKind::Struct;
    if !is_struct || !t.is_packed_struct() || !t.is_literal_struct() || t.struct_fields().len() < 2
    {
        return false;
    }
    c.operands().into_iter().all(is_simple_element)
}

// ---------------------------------------------------------------------------------------
// The passes

struct Checker<'m> {
    m: Module<'m>,
    out: Vec<Finding>,
    opts: Options,
    attrs: AttrNames,
    entry_points: usize,
    /// What LLVM 14 changed on reading an LLVM 3.x file, told as the file has it.
    legacy: Option<Legacy>,
}

impl<'m> Checker<'m> {
    /// The name of global `g`: the file's, where LLVM 14 renamed it.
    fn name_of(&self, g: Value<'m>) -> String {
        match self.legacy.as_ref().and_then(|l| l.name(g.as_raw())) {
            Some(n) => String::from_utf8_lossy(n).into_owned(),
            None => g.name(),
        }
    }

    fn module_finding(&mut self, msg: String, rule: Rule) {
        let finding = Finding::error(Scope::Module, String::new(), msg, rule, None);
        self.out.push(finding);
    }

    /// G1-G6, shared by variables and functions.
    fn common_global_checks(&mut self, g: Value<'m>, kind: &str) {
        let n = self.name_of(g);
        let legacy_linkage = self.legacy.as_ref().and_then(|l| l.linkage(g.as_raw()));
        let l = g.linkage();
        if let Some(old) = legacy_linkage {
            self.module_finding(
                format!("{kind} {n} has disallowed linkage type: {old}"),
                Rule::LinkageTypes,
            );
        } else if !matches!(
            l,
            LLVMLinkage::LLVMExternalLinkage | LLVMLinkage::LLVMInternalLinkage
        ) {
            self.module_finding(
                format!(
                    "{kind} {n} has disallowed linkage type: {}",
                    linkage_name(l)
                ),
                Rule::LinkageTypes,
            );
        }
        if l == LLVMLinkage::LLVMExternalLinkage
            && legacy_linkage.is_none()
            && !(kind == "Function" && n.starts_with("llvm."))
        {
            let permitted = (kind == "Function" && n == "_start")
                || (kind == "Variable" && n == "__pnacl_pso_root");
            if permitted {
                self.entry_points += 1;
                if self.entry_points > 1 {
                    self.module_finding(
                        "Module has multiple entry points (disallowed)".into(),
                        Rule::EntryPoints,
                    );
                }
            } else {
                self.module_finding(
                    format!("{n} is not a valid external symbol (disallowed)"),
                    Rule::EntryPoints,
                );
            }
        }
        let visibility = match g.visibility() {
            LLVMVisibility::LLVMHiddenVisibility => "hidden",
            LLVMVisibility::LLVMProtectedVisibility => "protected",
            LLVMVisibility::LLVMDefaultVisibility => self
                .legacy
                .as_ref()
                .and_then(|l| l.visibility(g.as_raw()))
                .unwrap_or(""),
        };
        if !visibility.is_empty() {
            let msg = format!("{kind} {n} has disallowed visibility: {visibility}");
            self.module_finding(msg, Rule::VisibilityStyles);
        }
        if g.has_section() {
            self.module_finding(
                format!("{kind} {n} has disallowed \"section\" attribute"),
                Rule::GlobalAttributes,
            );
        }
        if !matches!(g.ty().kind(), TypeKind::Pointer { addrspace: 0, .. }) {
            self.module_finding(
                format!("{kind} {n} has addrspace attribute (disallowed)"),
                Rule::PointerTypes,
            );
        }
        if g.unnamed_addr() != LLVMUnnamedAddr::LLVMNoUnnamedAddr {
            self.module_finding(
                format!("{kind} {n} has disallowed \"unnamed_addr\" attribute"),
                Rule::GlobalAttributes,
            );
        }
    }

    fn module_pass(&mut self) {
        let m = self.m;
        // The data model is fixed (spec/001 Rule::DataModel); the 2014 tool did not check.
        let triple = m.triple();
        if !triple.is_empty() && !triple.starts_with("le32-") {
            self.module_finding(
                format!("Module has disallowed target triple: {triple} (spec/001 Data Model: le32-unknown-nacl)"),
                Rule::DataModel,
            );
        }
        let dl = m.data_layout_text();
        if !dl.is_empty() && dl != Target::Le32.data_layout() && !ilp32_le(m) {
            self.module_finding(
                format!("Module has disallowed data layout: {dl} (spec/001 Data Model: little-endian ILP32)"),
                Rule::DataModel,
            );
        }
        // (a) inline assembly.
        if !m.inline_asm().is_empty() {
            self.module_finding(
                "Module contains disallowed top-level inline assembly".into(),
                Rule::InlineAssembly,
            );
        }
        // (b) global variables.
        for g in m.globals() {
            let n = self.name_of(g);
            match g.initializer() {
                None => self.module_finding(
                    format!("Global variable {n} has no initializer (disallowed)"),
                    Rule::GlobalAttributes,
                ),
                Some(init) if !is_flattened(init) => self.module_finding(
                    format!(
                        "Global variable {n} has non-flattened initializer (disallowed): {}",
                        init.text()
                    ),
                    Rule::GlobalVariables,
                ),
                Some(_) => {}
            }
            self.common_global_checks(g, "Variable");
            // A pexe stores log2(alignment) + 1 and LLVM 3.3 reads at most 2^29
            // (spec/000 GLOBALVAR; the 2014 tool did not look at alignments).
            let align = g.alignment();
            if align > 1 << 29 {
                self.module_finding(
                    format!("Variable {n} has disallowed alignment: {align} (spec/001 Global Variables: at most 536870912)"),
                    Rule::GlobalAttributes,
                );
            }
            if g.is_thread_local() {
                self.module_finding(
                    format!("Variable {n} has disallowed \"thread_local\" attribute"),
                    Rule::GlobalAttributes,
                );
            }
            if g.is_externally_initialized() {
                self.module_finding(
                    format!("Variable {n} has disallowed \"externally_initialized\" attribute"),
                    Rule::GlobalAttributes,
                );
            }
        }
        // (c) aliases.
        for a in m.aliases() {
            self.module_finding(
                format!("Variable {} is an alias (disallowed)", a.name()),
                Rule::Aliases,
            );
        }
        // (d) functions.
        // (In an LLVM 3.x file's order: LLVM 14 moves the intrinsics it renames.)
        let functions = m.functions();
        let fs = match self.legacy.as_ref().and_then(|l| l.functions()) {
            Some(fs) => fs.to_vec(),
            None => functions
                .iter()
                .map(|f| FileFunction::Value(f.as_raw()))
                .collect(),
        };
        let by_raw: HashMap<_, _> = functions.iter().map(|f| (f.as_raw(), *f)).collect();
        for f in fs {
            match f {
                FileFunction::Value(f) => self.function_decl(by_raw[&f]),
                // Its name did not fit its type (LLVM 14 merged it into the declaration
                // its type names): no intrinsic of the table.
                FileFunction::Gone(n) => self.module_finding(
                    format!(
                        "Function {} is a disallowed LLVM intrinsic",
                        String::from_utf8_lossy(&n)
                    ),
                    Rule::Intrinsics,
                ),
            }
        }
        // (e) named metadata.
        // An LLVM 3.x file's as the file has them (LLVM 14 drops old debug metadata).
        let names: Vec<Vec<u8>> = match &self.legacy {
            _ if self.opts.ignore_named_metadata => Vec::new(),
            Some(l) => l.named_metadata.clone(),
            None => m.named_metadata_names(),
        };
        for n in names {
            let n = String::from_utf8_lossy(&n).into_owned();
            let debug =
                n.starts_with("llvm.dbg.") || (n == "llvm.module.flags" && only_debug_flags(m, &n));
            // Debug information passes with --allow-debug-metadata (the historical
            // option; LLVM 14 adds module flags to it); `pnacl.symtab` and
            // `pnacl.types`, the symbol and type tables' orders pnacl-llvm records for
            // pnacl-freeze, are never written to a pexe. Any other named node is the
            // historical error.
            if !(debug && self.opts.allow_debug_metadata)
                && n != crate::bitcode::symtab_order::METADATA
                && n != super::import::TYPES_METADATA
            {
                self.module_finding(
                    format!("Named metadata node {n} is disallowed"),
                    Rule::NamedMetadata,
                );
            }
        }
        // (f) the entry point.
        if self.entry_points == 0 {
            self.module_finding(
                "Module has no entry point (disallowed)".into(),
                Rule::EntryPoints,
            );
        }
    }

    fn function_decl(&mut self, f: Value<'m>) {
        let n = self.name_of(f);
        let fty = f.function_type();
        if n.starts_with("llvm.") {
            // Name and exact type must both match (abicheck.md §6.1).
            let allowed = intrinsics::lookup(n.as_bytes()).is_some_and(|i| {
                (i.in_2014_checker || !self.opts.historical_strictness)
                    && fty.text() == llvm14_type(i)
            }) || (self.opts.allow_debug_metadata
                && (n == "llvm.dbg.declare" || n == "llvm.dbg.value"));
            if !allowed {
                self.module_finding(
                    format!("Function {n} is a disallowed LLVM intrinsic"),
                    Rule::Intrinsics,
                );
            }
            return;
        }
        if !is_fn_type(fty) {
            self.module_finding(
                format!("Function {n} has disallowed type: {}", fty.text()),
                Rule::FunctionTypes,
            );
        }
        if f.is_declaration() {
            self.module_finding(
                format!("Function {n} is declared but not defined (disallowed)"),
                Rule::EntryPoints,
            );
        }
        let attrs = self.attrs.of_function(f);
        if !attrs.is_empty() {
            let mut s = format!("Function {n} has disallowed attributes:");
            for a in attrs {
                s.push(' ');
                s.push_str(&a);
            }
            self.module_finding(s, Rule::FunctionAttributes);
        }
        let cc = f.call_conv();
        if cc != 0 {
            let cn = match cc {
                8 => "fastcc",
                9 => "cold",
                _ => "unknown",
            };
            self.module_finding(
                format!("Function {n} has disallowed calling convention: {cn} ({cc})"),
                Rule::CallingConventions,
            );
        }
        self.common_global_checks(f, "Function");
        if f.has_gc() {
            self.module_finding(
                format!("Function {n} has disallowed \"gc\" attribute"),
                Rule::FunctionAttributes,
            );
        }
        if f.alignment() != 0 {
            self.module_finding(
                format!("Function {n} has disallowed \"align\" attribute"),
                Rule::FunctionAttributes,
            );
        }
    }

    /// The reason instruction `i` is disallowed, if it is (abicheck.md §4.3, §4.4).
    fn reason(&self, i: Value<'m>, text: &str) -> Option<(&'static str, Rule)> {
        use LLVMOpcode::*;
        let op = i.opcode().expect("an instruction");
        let ops = i.operands();
        let d_check = |skip: Option<usize>| -> Option<(&'static str, Rule)> {
            for (k, o) in ops.iter().enumerate() {
                if Some(k) == skip {
                    continue;
                }
                if !is_valid_scalar_operand(*o) && !is_valid_vector_operand(*o) {
                    return Some(("bad operand", Rule::Operands));
                }
            }
            None
        };
        // `%x = add nuw nsw i32 …`: the flags follow the opcode.
        let words = |n| {
            let after = text.split_once(" = ").map_or(text, |(_, r)| r);
            after.split_whitespace().take(n).collect::<Vec<&str>>()
        };
        let flags = || -> Option<(&'static str, Rule)> {
            let words = words(4);
            if words.contains(&"nuw") {
                Some(("has \"nuw\" attribute", Rule::Instructions))
            } else if words.contains(&"nsw") {
                Some(("has \"nsw\" attribute", Rule::Instructions))
            } else if words.contains(&"exact") {
                Some(("has \"exact\" attribute", Rule::Instructions))
            } else {
                None
            }
        };
        let fast_math = || -> Option<(&'static str, Rule)> {
            let words = words(8);
            let fmf = [
                "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc",
            ];
            words
                .iter()
                .any(|w| fmf.contains(w))
                .then_some(("has fast-math flags", Rule::FastMathFlags))
        };
        match op {
            LLVMGetElementPtr | LLVMVAArg | LLVMInvoke | LLVMLandingPad | LLVMResume
            | LLVMIndirectBr | LLVMShuffleVector | LLVMExtractValue | LLVMInsertValue
            | LLVMAtomicCmpXchg | LLVMAtomicRMW | LLVMFence => {
                Some(("bad instruction opcode", Rule::Instructions))
            }
            LLVMRet | LLVMBr | LLVMUnreachable | LLVMAnd | LLVMOr | LLVMXor | LLVMTrunc
            | LLVMZExt | LLVMSExt | LLVMFPTrunc | LLVMFPExt | LLVMFPToUI | LLVMFPToSI
            | LLVMUIToFP | LLVMSIToFP | LLVMPHI | LLVMSelect => d_check(None).or_else(flags),
            LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFCmp => {
                // spec/001 Rule::FastMathFlags: not supported (the 2014 tool missed it).
                d_check(None).or_else(fast_math)
            }
            LLVMICmp | LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem
            | LLVMShl | LLVMLShr | LLVMAShr => {
                let t = ops[0].ty();
                if !is_int_arith(t) {
                    return Some(if scalar_of(t).int_width().is_some() {
                        ("Invalid integer arithmetic type", Rule::IntegerArithmetic)
                    } else {
                        ("Expects integer arithmetic type", Rule::IntegerArithmetic)
                    });
                }
                // The 2014 tool skipped the operand check here, so `add i32 ptrtoint
                // (…), 1` passed (abicheck.md §8); spec/001 allows constant expressions
                // only in global initializers, and a pexe has no way to write one.
                d_check(None).or_else(flags)
            }
            LLVMExtractElement | LLVMInsertElement => {
                let idx = ops[if op == LLVMExtractElement { 1 } else { 2 }];
                match const_int(idx) {
                    None => {
                        return Some((
                            "non-constant vector insert/extract index",
                            Rule::VectorIndex,
                        ))
                    }
                    Some(k) if k >= vector_len(ops[0].ty()) => {
                        return Some((
                            "out of range vector insert/extract index",
                            Rule::VectorIndex,
                        ))
                    }
                    _ => {}
                }
                d_check(None).or_else(flags)
            }
            LLVMLoad | LLVMStore => {
                let is_load = op == LLVMLoad;
                let (atomic, volatile) = match is_load {
                    true => ("atomic load", "volatile load"),
                    false => ("atomic store", "volatile store"),
                };
                use llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic;
                if i.ordering() != LLVMAtomicOrderingNotAtomic {
                    return Some((atomic, Rule::VolatileAndAtomicAccess));
                }
                if i.is_volatile() {
                    return Some((volatile, Rule::VolatileAndAtomicAccess));
                }
                let ptr = if is_load { ops[0] } else { ops[1] };
                if !is_normalized_ptr(ptr) {
                    // A pointer to i1 is bad for what it points to: the rule is that
                    // i1 is never loaded or stored (what the same pexe is held to).
                    let pointee = match ptr.ty().kind() {
                        TypeKind::Pointer { pointee, .. } => Some(pointee),
                        _ => None,
                    };
                    let rule = if pointee.and_then(|p| scalar_of(p).int_width()) == Some(1) {
                        Rule::LoadStoreI1
                    } else {
                        Rule::LoadStorePointer
                    };
                    return Some(("bad pointer", rule));
                }
                let t = if is_load { i.ty() } else { ops[0].ty() };
                let unaligned = self
                    .legacy
                    .as_ref()
                    .is_some_and(|l| l.unaligned(i.as_raw()));
                let align = if unaligned { 0 } else { i.alignment() };
                if !alignment_ok(t, align) {
                    return Some(("bad alignment", Rule::LoadStoreAlignment));
                }
                if !is_load {
                    return d_check(Some(1));
                }
                None
            }
            LLVMBitCast => {
                if i.ty().is_pointer() {
                    if !is_inherent_ptr(ops[0]) {
                        return Some(("operand not InherentPtr", Rule::PointerCasts));
                    }
                    return flags();
                }
                d_check(None).or_else(flags)
            }
            LLVMIntToPtr => {
                if ops[0].ty().int_width() != Some(32) {
                    return Some(("non-i32 inttoptr", Rule::PointerCasts));
                }
                d_check(None)
            }
            LLVMPtrToInt => {
                // The 2014 code demands an inherent pointer where spec/001 says
                // normalized (abicheck.md §8); the code's rule is the one pexes obey.
                if !is_inherent_ptr(ops[0]) {
                    let rule = if is_intrinsic_fn(ops[0]) {
                        Rule::IntrinsicAddress
                    } else {
                        Rule::PointerCasts
                    };
                    return Some(("operand not InherentPtr", rule));
                }
                if i.ty().int_width() != Some(32) {
                    return Some(("non-i32 ptrtoint", Rule::PointerCasts));
                }
                None
            }
            LLVMAlloca => {
                if i.allocated_type().int_width() != Some(8) {
                    return Some(("non-i8 alloca", Rule::Alloca));
                }
                if ops[0].ty().int_width() != Some(32) {
                    return Some(("alloca array size is not i32", Rule::Alloca));
                }
                d_check(None)
            }
            LLVMCall => self.call_reason(i),
            LLVMSwitch => {
                let c = ops[0];
                if !is_valid_scalar_operand(c) {
                    return Some(("bad switch condition", Rule::Switch));
                }
                match c.ty().int_width() {
                    None => return Some(("switch not on integer type", Rule::Switch)),
                    Some(1) => return Some(("switch on i1 not allowed", Rule::Switch)),
                    Some(w) if !matches!(w, 8 | 16 | 32 | 64) => {
                        return Some(("switch disallowed for integer type", Rule::Switch))
                    }
                    _ => {}
                }
                // Case values: operands 2, 4, … (blocks are the odd ones).
                for k in (2..ops.len()).step_by(2) {
                    if !is_valid_scalar_operand(ops[k]) {
                        return Some(("bad switch case", Rule::Switch));
                    }
                }
                None
            }
            _ => Some(("unknown instruction opcode", Rule::Instructions)),
        }
    }

    fn call_reason(&self, i: Value<'m>) -> Option<(&'static str, Rule)> {
        let callee = i.called_value();
        if callee.kind() == ValueKind::InlineAsm {
            return Some(("inline assembly", Rule::InlineAssembly));
        }
        let mem = is_intrinsic_fn(callee) && {
            let n = callee.name();
            n.starts_with("llvm.memcpy.")
                || n.starts_with("llvm.memmove.")
                || n.starts_with("llvm.memset.")
        };
        if mem {
            // LLVM 14 spells 3.3's alignment argument of llvm.mem* as `align N` on the
            // pointer arguments (and drops `align 1`): that one attribute is allowed,
            // and only with N = 1 (abicheck.md §4.4: the alignment must be exactly 1).
            let (others, aligns) = mem_call_attributes(i);
            if others > 0 {
                return Some(("bad call attributes", Rule::FunctionAttributes));
            }
            if i.call_conv() != 0 {
                return Some(("bad calling convention", Rule::CallingConventions));
            }
            if aligns.iter().any(|&a| a != 1) {
                return Some(("bad alignment", Rule::MemIntrinsicAlignment));
            }
        } else if call_site_attribute_count(i) > 0 {
            return Some(("bad call attributes", Rule::FunctionAttributes));
        }
        if i.call_conv() != 0 {
            return Some(("bad calling convention", Rule::CallingConventions));
        }
        let args: Vec<Value<'m>> = (0..i.arg_count()).map(|k| i.arg(k)).collect();
        if is_intrinsic_fn(callee) {
            for a in &args {
                // Metadata operands (`metadata !{…}`) are fine, metadata strings are not.
                let md = a.kind() == ValueKind::Metadata && a.md_string().is_none();
                if !(is_valid_scalar_operand(*a)
                    || is_valid_vector_operand(*a)
                    || is_normalized_ptr(*a)
                    || md)
                {
                    return Some(("bad intrinsic operand", Rule::Intrinsics));
                }
            }
            let n = callee.name();
            if let Some(intr) = intrinsics::lookup(n.as_bytes()) {
                let orders = intr.memory_order_args();
                let success = orders.first().and_then(|&k| const_int(args[k]));
                for (which, &k) in orders.iter().enumerate() {
                    let ok = match const_int(args[k]) {
                        // The 2014 checker accepted seq_cst only; spec/001 allows the
                        // C11 orders, which real pexes use.
                        Some(v) if self.opts.historical_strictness => v == 6,
                        Some(v) => crate::abi::check::order_allowed(intr.kind, which, v, success),
                        None => false,
                    };
                    if !ok {
                        return Some(("invalid memory order", Rule::AtomicMemoryOrder));
                    }
                }
                if intr.kind == Kind::AtomicRmw && !matches!(const_int(args[0]), Some(1..=6)) {
                    return Some(("invalid atomicRMW operation", Rule::AtomicRmwOperation));
                }
                if intr.kind == Kind::AtomicIsLockFree
                    && !matches!(const_int(args[0]), Some(1 | 2 | 4 | 8))
                {
                    return Some((
                        "invalid atomic lock-free byte size",
                        Rule::AtomicLockFreeSize,
                    ));
                }
            }
            return None;
        }
        if !is_normalized_ptr(callee) {
            return Some(("bad function callee operand", Rule::FunctionTypes));
        }
        for a in &args {
            if !is_valid_scalar_operand(*a) && !is_valid_vector_operand(*a) {
                return Some(("bad operand", Rule::Operands));
            }
        }
        None
    }

    /// The instruction rules on function `f`, the `index`-th of the module, whose printed
    /// body is `body`.
    fn function_pass(&mut self, f: Value<'m>, index: u32, body: &[&str]) {
        let fname = self.name_of(f);
        let texts = instruction_texts(f, body);
        let mut found = Vec::new();
        let scope = Scope::Function(index);
        let mut finding = |msg, rule| {
            found.push(Finding::error(scope, fname.clone(), msg, rule, None));
        };
        for (k, i) in instructions(f).enumerate() {
            let mut instr = match &texts {
                Some(t) => t[k].clone(),
                None => i.text(),
            };
            if let Some(l) = &self.legacy {
                instr = llvm33_text(&instr, i, l.unaligned(i.as_raw()));
            }
            let mut reason = self.reason(i, &instr);
            let mut bad_type = None;
            let (t, op) = (i.ty(), i.opcode());
            if reason.is_none() {
                let ptr_ok = is_normalized_ptr(i) || op == Some(LLVMOpcode::LLVMAlloca);
                if !(is_scalar(t) || is_vector(t) || ptr_ok) {
                    reason = Some(("bad result type", Rule::TypeSystem));
                    bad_type = Some(t.text());
                }
            }
            if let Some((r, rule)) = reason {
                let msg = match bad_type {
                    Some(t) => format!("Function {fname} disallowed: {r}: {t} {instr}"),
                    None => format!("Function {fname} disallowed: {r}:  {instr}"),
                };
                finding(msg, rule);
            }
            for kind in attached_metadata(&instr) {
                if kind == "dbg" && self.opts.allow_debug_metadata {
                    continue;
                }
                let msg = format!("Function {fname} has disallowed instruction metadata: !{kind}");
                finding(msg, Rule::Metadata);
            }
        }
        self.out.extend(found);
    }
}

/// The printed form of each instruction of `f`, in order, cut from the lines of its body
/// in one printing of the whole module: printing values one by one makes LLVM number the
/// whole module again each time, which is quadratic. `None` if the text cannot be matched
/// to the instructions.
fn instruction_texts(f: Value<'_>, body: &[&str]) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut open_switch = false;
    for &line in body {
        let b = line.as_bytes();
        let starts_instruction = b.len() > 2 && b[0] == b' ' && b[1] == b' ' && b[2] != b' ';
        if open_switch || (!starts_instruction && b.first() == Some(&b' ')) {
            // A continuation: the cases of a switch up to `  ]`, or a deeper-indented line.
            let last = out.last_mut()?;
            last.push('\n');
            last.push_str(line);
            if line == "  ]" {
                open_switch = false;
            }
            continue;
        }
        if starts_instruction {
            open_switch = line.starts_with("  switch ") && line.ends_with('[');
            out.push(line.to_string());
        }
    }
    (out.len() == instructions(f).count()).then_some(out)
}

/// The instructions of function `f`, block by block.
fn instructions(f: Value<'_>) -> impl Iterator<Item = Value<'_>> {
    f.blocks().into_iter().flat_map(|b| b.instructions())
}

/// The number of elements of vector type `t` (0 for any other type).
fn vector_len(t: Type<'_>) -> u64 {
    match t.kind() {
        TypeKind::Vector(_, n) => n as u64,
        _ => 0,
    }
}

/// `!name` attachments at the end of a printed instruction (`, !tbaa !3, !dbg !7`), with
/// `!dbg` first as the historical tool ordered them.
fn attached_metadata(instr: &str) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for part in instr.split(", !").skip(1) {
        let name: String = part.chars().take_while(|c| !c.is_whitespace()).collect();
        if !name.is_empty() && part[name.len()..].trim_start().starts_with('!') {
            kinds.push(name);
        }
    }
    kinds.sort_by_key(|k| k != "dbg");
    kinds
}

/// spec/001's alignments for a load or store of `t`: the model's rule
/// (`ValueType::load_store_alignments`), for the type as a pexe holds it.
fn alignment_ok(t: Type<'_>, align: u32) -> bool {
    super::import::value_type(t).is_ok_and(|v| v.load_store_alignments().contains(&(align as u64)))
}

/// An instruction as LLVM 3.3 printed it, from LLVM 14's text of it (for an LLVM 3.x
/// file, whose checker showed it so): no explicit type before a load's or a GEP's
/// pointer (`load i1* %p`), a varargs callee's pointer type (`call void (i32, ...)* %f`),
/// and no `align` where the file gives none.
fn llvm33_text(text: &str, i: Value<'_>, unaligned: bool) -> String {
    let mut out = text.to_string();
    for kw in ["load ", "getelementptr "] {
        out = drop_explicit_type(&out, kw);
    }
    if i.opcode() == Some(LLVMOpcode::LLVMCall) {
        let fty = i.called_fn_type().text();
        let shown = format!("call {fty} ");
        if let Some(k) = out.find(&shown) {
            out.insert(k + shown.len() - 1, '*');
        }
    }
    if unaligned {
        if let Some(k) = out.find(", align ") {
            let end = out[k + 8..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(out.len(), |e| k + 8 + e);
            out.replace_range(k..end, "");
        }
    }
    out
}

/// `text` with the explicit type after each `kw` (`load T, T* %p` → `load T* %p`) gone.
fn drop_explicit_type(text: &str, kw: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(k) = rest.find(kw) {
        let boundary = k == 0 || matches!(rest.as_bytes()[k - 1], b' ' | b'(');
        let (head, mut tail) = rest.split_at(k + kw.len());
        out.push_str(head);
        rest = tail;
        if !boundary {
            continue;
        }
        for m in ["volatile ", "atomic ", "inbounds ", "("] {
            if let Some(t) = tail.strip_prefix(m) {
                out.push_str(m);
                tail = t;
            }
        }
        // The explicit type ends at the first ", " outside brackets.
        let mut depth = 0i32;
        let mut end = None;
        for (j, c) in tail.char_indices() {
            match c {
                '(' | '[' | '{' | '<' => depth += 1,
                ')' | ']' | '}' | '>' => depth -= 1,
                ',' if depth == 0 => {
                    end = Some(j);
                    break;
                }
                _ => {}
            }
        }
        rest = tail;
        if let Some(j) = end {
            let ty = &tail[..j];
            let after = &tail[j..];
            if after.strip_prefix(", ").is_some_and(|a| {
                a.strip_prefix(ty)
                    .is_some_and(|p| p.starts_with('*') || p.starts_with(" addrspace"))
            }) {
                rest = &after[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// All findings for module `m`: module findings first, then each function's.
pub fn check(m: &inkwell::module::Module<'_>, opts: &Options) -> Vec<Finding> {
    check_read_from(m, opts, None)
}

/// `check`, for a module read from `data` (LLVM bitcode or text): an LLVM 3.x file's
/// findings are told as the 2014 checker told them, from the file as written.
pub fn check_read_from(
    m: &inkwell::module::Module<'_>,
    opts: &Options,
    data: Option<&[u8]>,
) -> Vec<Finding> {
    let module = Module::of(m);
    let mut c = Checker {
        m: module,
        out: Vec::new(),
        opts: *opts,
        attrs: AttrNames::new(),
        entry_points: 0,
        legacy: data.and_then(|d| Legacy::of(d, module.as_raw())),
    };
    c.module_pass();
    // The module's text, once, cut into the bodies of its definitions (in module order).
    let text = module.text();
    let mut bodies: Vec<Vec<&str>> = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        match current.as_mut() {
            None if line.starts_with("define ") && line.ends_with('{') => {
                current = Some(Vec::new())
            }
            None => {}
            Some(_) if line == "}" => bodies.push(current.take().unwrap()),
            Some(b) => b.push(line),
        }
    }
    let mut definition = 0;
    for (index, f) in module.functions().into_iter().enumerate() {
        if !f.is_declaration() {
            let body = bodies.get(definition).map_or(&[][..], |b| b.as_slice());
            c.function_pass(f, index as u32, body);
            definition += 1;
        }
    }
    c.out
}
