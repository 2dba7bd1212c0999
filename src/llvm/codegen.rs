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
        Target::Wasm32 => {
            inkwell::targets::Target::initialize_webassembly(&cfg);
            wasm_sjlj();
        }
        Target::Le32 => {}
    }
}

/// Turns on LLVM's WebAssembly lowering of setjmp/longjmp to exception handling
/// (`-wasm-enable-sjlj`, a global option of LLVM's, set once for the process): the
/// WebAssembly lowering calls `setjmp` and `longjmp` (`llvm::export`), and the runtime
/// provides what the lowered code calls (runtime/wasi.c).
fn wasm_sjlj() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args = [c"pnacl".as_ptr(), c"-wasm-enable-sjlj".as_ptr()];
        // SAFETY: two NUL-terminated strings that outlive the call; LLVM copies what it
        // keeps. Once per process, before any WebAssembly target machine exists.
        unsafe {
            llvm_sys::support::LLVMParseCommandLineOptions(2, args.as_ptr(), std::ptr::null())
        };
    });
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
