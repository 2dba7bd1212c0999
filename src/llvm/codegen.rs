//! Native code generation in-process, through LLVM's TargetMachine.

use std::collections::HashMap;

use inkwell::module::Module;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, TargetMachine, TargetTriple,
};
use inkwell::values::{FunctionValue, InstructionOpcode};
use inkwell::OptimizationLevel;

use super::edit::{Block, Value};
use super::target::Target;

/// Optimization level of code generation (`-O0`, `-O1`, `-O2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptLevel {
    O0,
    O1,
    O2,
}

impl OptLevel {
    fn llvm(self) -> OptimizationLevel {
        match self {
            OptLevel::O0 => OptimizationLevel::None,
            OptLevel::O1 => OptimizationLevel::Less,
            OptLevel::O2 => OptimizationLevel::Default,
        }
    }
}

/// The target's back end made ready, and LLVM's options set (`llvm_options`): those
/// in force.
fn init(target: Target) -> &'static [std::ffi::CString] {
    let cfg = InitializationConfig::default();
    match target {
        Target::X86_32 | Target::X86_64 => inkwell::targets::Target::initialize_x86(&cfg),
        Target::Aarch64 => inkwell::targets::Target::initialize_aarch64(&cfg),
        Target::Arm => inkwell::targets::Target::initialize_arm(&cfg),
        Target::Wasm32 => inkwell::targets::Target::initialize_webassembly(&cfg),
        Target::Le32 => {}
    }
    llvm_options(target)
}

/// The LLVM options in force in this process for code generation for `target` (set now if
/// they were not yet): what, beside the module and the target, decides the code made, for
/// a cache of objects to key on.
pub fn options_in_force(target: Target) -> &'static [std::ffi::CString] {
    init(target)
}

/// LLVM's global options, set once for the process before any target machine exists:
/// - `-wasm-enable-sjlj`: the WebAssembly lowering of setjmp/longjmp to exception
///   handling (the conversion calls `setjmp` and `longjmp` for wasm32, and the runtime
///   provides what the lowered code calls, runtime/wasi.c); nothing else reads it;
/// - `-locally-hot-callsite-threshold=1000` and `-inline-threshold=0`: at -O2
///   (`optimize`), a call in a block that runs far more often than its function's entry
///   (a loop's) is inlined up to that cost, as LLVM's -O3 does at 525, and no other but
///   those that cost nothing (the pexe's code was inlined when it was built; what was not
///   is its libraries'): newlib's `sqrt`, whose fast path is one instruction, is inlined
///   into nbody's inner loop;
/// - `-lsr-insns-cost=false`: loop strength reduction weighs registers before
///   instructions. x86's cost model counts instructions first, which suits x86-64's 15
///   registers; x86-32 has 7, and the extra induction variables spilled (spectralnorm's
///   inner loops kept three counters and reloaded a base pointer from the stack each
///   iteration). The other targets' cost models do not count instructions.
/// - `-dag-maps-huge-region=50`: the machine scheduler makes each memory access in a
///   block depend on every earlier one whose object LLVM cannot name (on a region target
///   every access: no pexe global is an LLVM global), until 1,000 are pending, when it
///   puts a barrier between them; at 50 the barrier comes sooner. Blocks of fewer
///   accesses are scheduled as before; a block of 1,460 loads and stores (stockfish
///   filling its tables) took x86-64's scheduling of one partition from 0.29 s to 0.10 s
///   at 200, and at 50 building the scheduler's graph costs x86-64 what it costs x86-32
///   (2.7% of the code generation's instructions in one of stockfish's 12 partitions;
///   0.57% of stockfish's whole x86-64 translation, 0.1% of x86-32's).
///   x86-64's code is the same at 1,000, 200, 50 and 20 (stockfish, the benchmarks);
///   x86-32's differs at 50 in one function's order of two instructions, at 20 in many.
/// - `-force-ordered-reductions`: the loop vectorizer may vectorize a loop that sums
///   floating-point values, keeping the sum's order (each lane added in turn, so the
///   result is the scalar loop's to the bit), as LLVM does by default only for AArch64.
///   The work beside the sum is vectorized: spectralnorm's divisions two at a time
///   (`divpd`), 0.86× its time on x86-64 (the other benchmarks' code is unchanged).
///
/// Then `target`'s own (`target::Spec::llvm_options`), the first target's in a process;
/// returns them all, as given to LLVM.
fn llvm_options(target: Target) -> &'static [std::ffi::CString] {
    static IN_FORCE: std::sync::OnceLock<Vec<std::ffi::CString>> = std::sync::OnceLock::new();
    IN_FORCE.get_or_init(|| {
        let mut args: Vec<std::ffi::CString> = [
            c"pnacl",
            c"-wasm-enable-sjlj",
            c"-locally-hot-callsite-threshold=1000",
            c"-inline-threshold=0",
            c"-lsr-insns-cost=false",
            c"-dag-maps-huge-region=50",
            c"-force-ordered-reductions",
        ]
        .into_iter()
        .map(std::ffi::CStr::to_owned)
        .collect();
        let extra = developer_llvm_args();
        // A target's option the developer's own give again is left to theirs (LLVM takes
        // an option once).
        let name = |a: &[u8]| a.split(|&b| b == b'=').next().unwrap_or_default().to_vec();
        let given: Vec<Vec<u8>> = extra.iter().map(|a| name(a.as_bytes())).collect();
        args.extend(
            (target.spec().llvm_options.iter())
                .filter(|a| !given.contains(&name(a.to_bytes())))
                .map(|&a| a.to_owned()),
        );
        args.extend(extra);
        let pointers: Vec<*const std::ffi::c_char> = args.iter().map(|a| a.as_ptr()).collect();
        // SAFETY: NUL-terminated strings that outlive the call; LLVM copies what it
        // keeps. Once per process, before any target machine exists.
        unsafe {
            llvm_sys::support::LLVMParseCommandLineOptions(
                pointers.len() as i32,
                pointers.as_ptr(),
                std::ptr::null(),
            )
        };
        args
    })
}

/// `PNACL_LLVM_ARGS`: more of LLVM's global options, separated by white space, after
/// `llvm_options`' own, for whoever measures or studies code generation (`-time-passes`,
/// `-print-after=...`). A developer's knob: the options change what LLVM makes.
const LLVM_ARGS_VAR: &str = "PNACL_LLVM_ARGS";

fn developer_llvm_args() -> Vec<std::ffi::CString> {
    std::env::var(LLVM_ARGS_VAR)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|a| std::ffi::CString::new(a).ok())
        .collect()
}

/// Ends LLVM's use in the process where `PNACL_LLVM_ARGS` was given, so that what its
/// options collect and print only then (`-time-passes`' report of code generation's
/// passes) is printed. Call when no LLVM context is left.
pub fn finish_developer_options() {
    if std::env::var_os(LLVM_ARGS_VAR).is_some() {
        // SAFETY: no LLVM object is alive any more (the caller's promise); LLVM frees its
        // global state and prints its timers' reports.
        unsafe { llvm_sys::core::LLVMShutdown() }
    }
}

/// LLVM's optimizations before code generation, at -O2. The pexe's code was optimized
/// when it was built, but not across what its libraries (newlib) kept out of line, and
/// not for a vector unit. So:
/// - inlining at the calls in loops (`llvm_options`; a partition holds copies of what it
///   may inline, `ExportOptions::inline_copies`);
/// - in the functions inlining changed, instcombine and simplifycfg, which fold what the
///   inlined code computes for its other callers (newlib's `sqrt` classifies its argument
///   to set `errno` when it is negative: nbody's argument, a sum of squares, cannot be);
/// - loop vectorization for the target's vector unit (the addresses the conversion makes
///   are analyzable: base pointer plus offset);
/// - in the functions inlining changed and those with much floating-point arithmetic,
///   straight-line (SLP) vectorization, and instcombine again to tidy what it leaves.
///
/// Simplification and SLP vectorization run only where inlining joined code: elsewhere
/// the pexe's code is already simplified, and the passes cost more translation time than
/// they gain (in all functions, instcombine and simplifycfg made stockfish's translation
/// 1.55x as long; SLP vectorization 1.06-1.10x). -O0 and -O1 only inline what must be.
pub fn optimize(
    tm: &TargetMachine,
    module: &Module<'_>,
    opt: OptLevel,
    target: Target,
) -> Result<(), String> {
    // What must be inlined at any level, first: the atomic operations' helpers
    // (llvm::export::one_thread), which are not what the inlining below looks for.
    run_passes(tm, module, "always-inline")?;
    if opt != OptLevel::O2 {
        return Ok(());
    }
    // A function's instructions and calls: what inlining changes.
    let shape = |f: FunctionValue| {
        let mut n = (0, 0);
        for i in f
            .get_basic_blocks()
            .into_iter()
            .flat_map(|b| b.get_instructions())
        {
            n.0 += 1;
            n.1 += usize::from(i.get_opcode() == InstructionOpcode::Call);
        }
        n
    };
    let name = |f: FunctionValue| f.get_name().to_bytes().to_vec();
    let before: HashMap<Vec<u8>, (usize, usize)> = module
        .get_functions()
        .map(|f| (name(f), shape(f)))
        .collect();
    run_passes(tm, module, "cgscc(inline)")?;
    let changed: Vec<FunctionValue> = module
        .get_functions()
        .filter(|&f| f.count_basic_blocks() > 0 && before.get(&name(f)) != Some(&shape(f)))
        .collect();
    run_on(tm, module, &changed, |fpm| {
        fpm.add_instruction_combining_pass();
        fpm.add_cfg_simplification_pass();
    });
    run_passes(tm, module, "function(loop-simplify,lcssa,loop-vectorize)")?;
    let slp: Vec<FunctionValue> = module
        .get_functions()
        .filter(|&f| {
            changed.contains(&f)
                || f.count_basic_blocks() > 0 && floating_point_arithmetic(f) >= SLP_FLOATING_POINT
        })
        .collect();
    // A region target's addresses are integers made pointers (`inttoptr` of a zero-
    // extended i32), which the SLP vectorizer compares only when they are the same value:
    // the pexe computes `i * 56` again for each access, so the copies are made one first.
    let region = target.spec().memory.is_region();
    run_on(tm, module, &slp, |fpm| {
        if region {
            fpm.add_early_cse_pass();
        }
        fpm.add_slp_vectorize_pass();
        fpm.add_instruction_combining_pass();
    });
    Ok(())
}

/// The floating-point arithmetic from which a function is SLP-vectorized even where inlining
/// did not change it: pairs of doubles in one register pay most where registers are few
/// (x86-32 has eight), and a pexe whose `sqrt` was already `llvm.sqrt` (pnacl-clang's) gets
/// no inlining to join its loops (nbody: 1.08x the time of the SDK's pexe of the same C
/// without). Integer code, most of a program like stockfish, stays as before.
const SLP_FLOATING_POINT: usize = 16;

fn floating_point_arithmetic(f: FunctionValue) -> usize {
    f.get_basic_blocks()
        .into_iter()
        .flat_map(|b| b.get_instructions())
        .filter(|i| {
            matches!(
                i.get_opcode(),
                InstructionOpcode::FAdd
                    | InstructionOpcode::FSub
                    | InstructionOpcode::FMul
                    | InstructionOpcode::FDiv
            )
        })
        .count()
}

/// For WebAssembly: resume points (`resume`: a function's largest loop hands over), whose slots
/// `mem2reg` then makes registers again (the launcher runs V8's baseline compiler first,
/// which every long loop must be able to leave); `translate` calls it at -O1 and -O2.
pub fn resume_points(tm: &TargetMachine, module: &Module<'_>) {
    let changed = super::resume::add(module);
    let functions: Vec<FunctionValue> = changed
        .iter()
        .map(|name| {
            module
                .get_function(name)
                .expect("a function resume::add changed")
        })
        .collect();
    run_on(tm, module, &functions, |fpm| {
        fpm.add_promote_memory_to_register_pass();
    });
}

/// For a target that keeps the pexe in its region: `llvm.trap` before every `unreachable`
/// that no call of a function that does not return precedes, so that code LLVM found
/// undefined (a store through undef, say) traps where it is reached instead of running
/// on into the code after it. (LLVM 14's C API cannot set the target's TrapUnreachable.)
/// Returns how many it added.
pub fn trap_unreachables(module: &Module<'_>) -> usize {
    use super::edit::{Module as Edit, Opcode, ValueKind};
    let m = Edit::of(module);
    let tys = m.types();
    let fty = tys.function(tys.void(), &[], false);
    let trap = m
        .function("llvm.trap")
        .unwrap_or_else(|| m.add_function("llvm.trap", fty));
    let b = m.builder();
    let mut added = 0;
    for f in m.functions() {
        for blk in f.blocks() {
            let Some(end) = blk.terminator() else {
                continue;
            };
            if end.opcode() != Some(Opcode::LLVMUnreachable) {
                continue;
            }
            let insts = blk.instructions();
            let before = insts.len().checked_sub(2).map(|i| insts[i]);
            let stops = before.is_some_and(|c| {
                c.opcode() == Some(Opcode::LLVMCall)
                    && (c.has_attr(u32::MAX, "noreturn") || {
                        let callee = c.called_value();
                        callee.kind() == ValueKind::Function
                            && callee.has_attr(u32::MAX, "noreturn")
                    })
            });
            if !stops {
                b.position_before(end);
                b.call(fty, trap, &[]);
                added += 1;
            }
        }
    }
    added
}

/// Every count of trailing zeros (`llvm.cttz`, whose result the pexe's ABI defines at
/// zero: the bit width) given to x86's code generation as `x <=u 0 ? width : cttz(x)`, the
/// count's result at zero left undefined, where its type is no wider than a pointer (a
/// native integer on x86). Instruction selection makes of it what it made of the defined
/// count, `bsf` with a `cmov` of the width (`lit-tests/translate/x86-64-codegen-prep.ll`).
/// But of the defined count, CodeGenPrepare (x86 before BMI has no count defined at zero)
/// makes a branch on zero, and of that compare and the pexe's `x - 1` beside it
/// (`x & (x - 1)` clears the bit found) an unsigned subtraction with overflow, and it
/// begins the whole function again after each: 169 times in stockfish's move generator,
/// 0.45 s of x86-64's CPU time to translate it (x86-32's 64-bit counts are not of a native
/// type and were never split). `<=u 0` is `== 0` to instruction selection, but not one of
/// the compares CodeGenPrepare pairs with a subtraction. It runs after LLVM's
/// optimizations, whose instcombine would fold the select back. Returns how many counts
/// it rewrote.
pub fn count_zeros_for_codegen(module: &Module<'_>, target: Target) -> usize {
    use super::edit::{IntPred, Module as Edit, Opcode};
    if !matches!(target, Target::X86_32 | Target::X86_64) {
        return 0;
    }
    let m = Edit::of(module);
    let tys = m.types();
    let native = 8 * m.layout().pointer_size();
    let b = m.builder();
    let mut rewritten = 0;
    for f in m.functions() {
        if !f.name_bytes().starts_with(b"llvm.cttz.") {
            continue;
        }
        for c in f.users() {
            if c.opcode() != Some(Opcode::LLVMCall)
                || c.called_value() != f
                || c.arg(1).const_zext() != Some(0)
            {
                continue;
            }
            let x = c.arg(0);
            let ty = x.ty();
            let Some(width) = ty.int_width().filter(|&w| w <= native) else {
                continue;
            };
            // A call is never a block's last instruction.
            let Some(next) = c.next_instruction() else {
                continue;
            };
            c.set_operand(1, tys.const_int(tys.i1(), 1));
            b.position_before(next);
            let zero = b.icmp(IntPred::LLVMIntULE, x, tys.zero(ty));
            let sel = b.select(zero, tys.const_int(ty, u64::from(width)), c);
            c.replace_all_uses_with(sel);
            // The select's own operand was replaced too.
            sel.set_operand(2, c);
            rewritten += 1;
        }
    }
    rewritten
}

/// For a region target: each i32 that an access of another block takes as its address
/// (`inttoptr`, or `region_pointer`'s null plus the i32 zero-extended) is made a pointer
/// once, where it is made (at the entry for an argument), and those accesses take that.
/// Instruction selection sees one block at a time: a value of another block is not known
/// to have its upper half zero, so each block extended it again with a 32-bit `mov`
/// (stockfish: 85% more virtual registers than on x86-32, 1,733 such moves in one
/// partition, 649 after), where the instruction that made it (any 32-bit operation) has
/// already cleared that half. A phi is left as it was: loop strength reduction follows an
/// induction variable's addresses only as null plus its extension. The i32's uses as a
/// number in other blocks then take it back from the pointer's lower half (a subregister),
/// so that one register crosses the blocks, not two (binarytrees' `DeleteTree` kept a node
/// both ways across two calls: three callee-saved registers, one after).
///
/// An i32 that is another plus a constant (`y + C`: a local's address in the function's
/// frame, a field's in a struct) is not made a pointer of its own: an access of another
/// block takes y's pointer plus C (sign-extended, as `region_constant_offset` adds a
/// constant: past the region's end lies its guard), which the access folds in, and its
/// uses as a number there add C to y again. Only y crosses the blocks, not each of its
/// offsets: a function's locals were each a register, or a spill slot, kept from the
/// entry to their last use, where x86-32 addresses them from its stack pointer. The
/// same holds for any `y + C` used as a number in another block, y made a pointer.
/// Returns how many pointers it made.
pub fn address_once(module: &Module<'_>) -> usize {
    use super::edit::{Module as Edit, Opcode, ValueKind};
    let m = Edit::of(module);
    let tys = m.types();
    let (i32t, i64t, i8p) = (tys.i32(), tys.i64(), tys.i8().ptr());
    let b = m.builder();
    let mut made = 0;
    for f in m.functions() {
        let Some(entry) = f.entry_block() else {
            continue;
        };
        let home = |x| value_home(entry, x);
        let offset = |x| constant_offset(entry, x);
        // Each i32's pointer, and the i32s in the order their pointers were made (so that
        // what follows inserts its instructions in the same order on every run).
        let mut pointers: HashMap<_, _> = HashMap::new();
        let mut made_for = Vec::new();
        for blk in f.blocks() {
            // Walked without a list of the block's instructions (what follows inserts
            // before the current one and removes none).
            let mut next = blk.first_instruction();
            while let Some(inst) = next {
                next = inst.next_instruction();
                let x = match inst.opcode() {
                    Some(Opcode::LLVMIntToPtr) => inst.operand(0),
                    Some(Opcode::LLVMGetElementPtr)
                        if inst.num_operands() == 2
                            && inst.operand(0).kind() == ValueKind::ConstNull
                            && inst.operand(1).opcode() == Some(Opcode::LLVMZExt) =>
                    {
                        inst.operand(1).operand(0)
                    }
                    _ => continue,
                };
                if x.ty() != i32t {
                    continue;
                }
                let Some((made_at, _)) = home(x) else {
                    continue;
                };
                if made_at == blk {
                    continue;
                }
                let sum = offset(x);
                let base = sum.map_or(x, |(y, _)| y);
                let p = *pointers.entry(base).or_insert_with(|| {
                    let (_, after) = home(base).expect("a value with a home");
                    // Every block ends with a terminator, after any value it makes.
                    b.position_before(after.expect("a block's terminator"));
                    made_for.push(base);
                    b.cast(Opcode::LLVMIntToPtr, base, i8p)
                });
                b.position_before(inst);
                let at = match sum {
                    Some((_, c)) => b.byte_gep(p, tys.const_int(i64t, c as u64)),
                    None => p,
                };
                let with = if inst.ty() == i8p {
                    at
                } else {
                    b.cast(Opcode::LLVMBitCast, at, inst.ty())
                };
                inst.replace_all_uses_with(with);
            }
        }
        // The uses as a number in other blocks of a `y + C`, y made a pointer, add C to y
        // there (whose own uses there then take it from its pointer, below): y crosses
        // the blocks, C is added again where it is needed.
        for &y in &made_for {
            // (A user that is a constant offset has y as its first operand.)
            for x in y.users() {
                if offset(x).is_none() {
                    continue;
                }
                let c = x.operand(1);
                let mut again: HashMap<_, _> = HashMap::new();
                each_use_elsewhere(x, x.parent_block(), |u, i, at| {
                    let t = *again.entry(at).or_insert_with(|| {
                        b.position_before(at.first_non_phi().expect("a block's terminator"));
                        b.binop(Opcode::LLVMAdd, y, c)
                    });
                    u.set_operand(i, t);
                });
            }
        }
        // The i32's own uses in other blocks take it back from the pointer (its low half,
        // a subregister): one register crosses the blocks, not two.
        for &x in &made_for {
            let p = pointers[&x];
            let home = p.parent_block();
            let mut low: HashMap<_, _> = HashMap::new();
            each_use_elsewhere(x, home, |u, i, at| {
                if u == p {
                    return;
                }
                let t = *low.entry(at).or_insert_with(|| {
                    b.position_before(at.first_non_phi().expect("a block's terminator"));
                    b.cast(Opcode::LLVMPtrToInt, p, i32t)
                });
                u.set_operand(i, t);
            });
        }
        made += made_for.len();
    }
    made
}

/// Where a pointer of `x` is made: after it (at the entry for an argument); none for a
/// phi or a constant.
fn value_home<'a>(entry: Block<'a>, x: Value<'a>) -> Option<(Block<'a>, Option<Value<'a>>)> {
    use super::edit::{Opcode, ValueKind};
    match x.kind() {
        ValueKind::Argument => Some((entry, entry.first_instruction())),
        ValueKind::Instruction(op) if op != Opcode::LLVMPHI => {
            Some((x.parent_block(), x.next_instruction()))
        }
        _ => None,
    }
}

/// `x` as `y + C`, y an i32 with a home (`value_home`).
fn constant_offset<'a>(entry: Block<'a>, x: Value<'a>) -> Option<(Value<'a>, i64)> {
    if x.opcode() != Some(super::edit::Opcode::LLVMAdd) {
        return None;
    }
    let (y, c) = (x.operand(0), x.operand(1).const_sext()?);
    (y.ty() == x.ty() && value_home(entry, y).is_some()).then_some((y, c))
}

/// Each use of `x` (its user, the operand's index, and the block the use is in: a phi's
/// incoming block for a phi) in a block other than `home`.
fn each_use_elsewhere<'a>(
    x: Value<'a>,
    home: Block<'a>,
    mut each: impl FnMut(Value<'a>, u32, Block<'a>),
) {
    for u in x.users() {
        let phi = u.opcode() == Some(super::edit::Opcode::LLVMPHI);
        let incoming = if phi { u.incoming() } else { Vec::new() };
        for i in 0..u.num_operands() {
            if u.operand(i) != x {
                continue;
            }
            let at = if phi {
                incoming[i as usize].1
            } else {
                u.parent_block()
            };
            if at != home {
                each(u, i, at);
            }
        }
    }
}

/// The instructions nothing uses, deleted before code generation, which would build each
/// one's nodes to drop them: the pexe's i32 sum beside the address made of it (6-8% of
/// stockfish's instructions on x86-32), and on a region target what `address_once`
/// replaced too (11-15%). Instruction selection of what is left took 3% less time.
pub fn drop_unused(tm: &TargetMachine, module: &Module<'_>) -> Result<(), String> {
    run_passes(tm, module, "function(dce)")
}

fn run_passes(tm: &TargetMachine, module: &Module<'_>, passes: &str) -> Result<(), String> {
    let options = inkwell::passes::PassBuilderOptions::create();
    module
        .run_passes(passes, tm, options)
        .map_err(|e| e.to_string())
}

/// Runs the function passes `add` adds on `functions` of `module`, with LLVM's legacy pass
/// manager: the new one's C API runs a pipeline on a whole module, not on chosen functions.
/// The target machine's analyses come first: without them the passes see LLVM's default
/// cost model, which has no vector registers (SLP vectorization paired nothing).
#[allow(deprecated)]
fn run_on<'ctx>(
    tm: &TargetMachine,
    module: &Module<'ctx>,
    functions: &[FunctionValue<'ctx>],
    add: impl FnOnce(&inkwell::passes::PassManager<FunctionValue<'ctx>>),
) {
    if functions.is_empty() {
        return;
    }
    let fpm = inkwell::passes::PassManager::create(module);
    tm.add_analysis_passes(&fpm);
    add(&fpm);
    fpm.initialize();
    for f in functions {
        fpm.run_on(f);
    }
    fpm.finalize();
}

/// A target machine for `target` (x86-32 with SSE2, ARM with hard float and NEON,
/// WebAssembly with threads).
pub fn target_machine(target: Target, opt: OptLevel) -> Result<TargetMachine, String> {
    if !target.generates_code() {
        return Err("le32 is not a native target".into());
    }
    init(target);
    let triple = TargetTriple::create(target.triple());
    let t = inkwell::targets::Target::from_triple(&triple).map_err(|e| e.to_string())?;
    let (cpu, features) = target.cpu_features();
    t.create_target_machine(
        &triple,
        cpu,
        features,
        opt.llvm(),
        // A program linked high (a region target's) is position-independent code.
        match target.spec().link_base {
            Some(_) => RelocMode::PIC,
            None => RelocMode::Static,
        },
        CodeModel::Default,
    )
    .ok_or_else(|| format!("LLVM cannot make a target machine for {}", target.triple()))
}

/// Compiles `module` to an object in memory (ELF, or a WebAssembly object).
pub fn emit_object(tm: &TargetMachine, module: &Module<'_>) -> Result<Vec<u8>, String> {
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    tm.write_to_memory_buffer(module, FileType::Object)
        .map(|b| b.as_slice().to_vec())
        .map_err(|e| e.to_string())
}
