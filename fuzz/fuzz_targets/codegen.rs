//! Native code generation must take every module the checks pass: whatever the reader
//! accepts and `abi::check_all` finds clean converts and compiles (LLVM's verifier on, for
//! x86-32, ARM or wasm32 at -O0 or -O2, chosen by the input's length) to an object, without an
//! error, a panic, or an abort inside LLVM.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pnacl::llvm::codegen::OptLevel;
use pnacl::llvm::Target;
use pnacl::translate::{compile, Options};

fuzz_target!(|data: &[u8]| {
    let Ok(m) = pnacl::bitcode::read(data) else {
        return;
    };
    let findings = pnacl::abi::check_all(&m, &pnacl::abi::Options::default());
    if !findings.iter().all(|f| f.warning) {
        return;
    }
    let (target, opt) = match data.len() % 6 {
        0 => (Target::X86_32, OptLevel::O0),
        1 => (Target::Arm, OptLevel::O0),
        2 => (Target::Wasm32, OptLevel::O0),
        3 => (Target::X86_32, OptLevel::O2),
        4 => (Target::Arm, OptLevel::O2),
        _ => (Target::Wasm32, OptLevel::O2),
    };
    let opts = Options {
        target,
        opt,
        threads: 1,
        verify: true,
        ssa_checked: true,
        progress: Default::default(),
    };
    if let Err(e) = compile(&m, &opts) {
        panic!("{target:?} {opt:?}: a module the checks pass does not compile: {e}");
    }
});
