//! Code generation must take every module the checks pass: whatever the reader accepts
//! and `abi::check_all` finds clean converts and compiles (LLVM's verifier on, for x86-32,
//! ARM or wasm32 at -O0 or -O2, chosen by the input's length) to an object, without an
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
    // -O2 only below the size of the large real pexes: path_tracer at -O2 on one thread
    // takes 8 s in a release build, beyond the fuzzer's timeout, and is not a hang.
    let target = [Target::X86_32, Target::Arm, Target::Wasm32][data.len() % 3];
    let opt = if data.len() % 2 == 1 && data.len() < 100_000 {
        OptLevel::O2
    } else {
        OptLevel::O0
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
