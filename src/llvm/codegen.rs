//! Native code generation in-process, through LLVM's TargetMachine.

use inkwell::module::Module;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;

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

fn init(target: Target) {
    let cfg = InitializationConfig::default();
    match target {
        Target::X86_32 => inkwell::targets::Target::initialize_x86(&cfg),
        Target::Arm => inkwell::targets::Target::initialize_arm(&cfg),
        Target::Wasm32 => inkwell::targets::Target::initialize_webassembly(&cfg),
        Target::Le32 => {}
    }
    llvm_options();
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
///   into nbody's inner loop.
fn llvm_options() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args = [
            c"pnacl".as_ptr(),
            c"-wasm-enable-sjlj".as_ptr(),
            c"-locally-hot-callsite-threshold=1000".as_ptr(),
            c"-inline-threshold=0".as_ptr(),
        ];
        // SAFETY: NUL-terminated strings that outlive the call; LLVM copies what it
        // keeps. Once per process, before any target machine exists.
        unsafe {
            llvm_sys::support::LLVMParseCommandLineOptions(
                args.len() as i32,
                args.as_ptr(),
                std::ptr::null(),
            )
        };
    });
}

/// LLVM's optimizations before code generation, at -O2: inlining at the calls in loops
/// (`llvm_options`; a partition holds copies of what it may inline,
/// `ExportOptions::inline_copies`), then loop vectorization for the target's vector unit
/// (the addresses the conversion makes are analyzable: base pointer plus offset). The
/// pexe's code was optimized when it was built, but not across what its libraries
/// (newlib) kept out of line, and not for a vector unit. Simplification passes (instcombine,
/// simplifycfg) are left to code generation: they cost more translation time than they
/// gain (stockfish: 1.55x the time with them, 1.1x without). -O0 and -O1 generate code
/// only.
pub fn optimize(tm: &TargetMachine, module: &Module<'_>, opt: OptLevel) -> Result<(), String> {
    if opt != OptLevel::O2 {
        return Ok(());
    }
    let options = inkwell::passes::PassBuilderOptions::create();
    module
        .run_passes(
            "cgscc(inline),function(loop-simplify,lcssa,loop-vectorize)",
            tm,
            options,
        )
        .map_err(|e| e.to_string())
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
        RelocMode::Static,
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
