//! The LLVM bridge must turn every module the reader accepts into an LLVM module that
//! LLVM's verifier accepts, for every target, or give a clear error: never a panic, a
//! crash in LLVM, or a module LLVM rejects. A module that passes the ABI check (what
//! `pnacl-llvm` converts without `--no-abi-check`) must convert.
#![no_main]

use inkwell::context::Context;
use libfuzzer_sys::fuzz_target;
use pnacl::llvm::{export, ExportOptions, Target};

fuzz_target!(|data: &[u8]| {
    let Ok(m) = pnacl::bitcode::read(data) else {
        return;
    };
    let findings = pnacl::abi::check_all(&m, &pnacl::abi::Options::default());
    let checked = findings.iter().all(|f| f.warning);
    let ctx = Context::create();
    for target in Target::ALL {
        match export(&ctx, &m, &ExportOptions::whole(target)) {
            Ok(llmod) => {
                if let Err(e) = llmod.verify() {
                    panic!("{target:?}: the LLVM module does not verify: {}", e.to_string());
                }
            }
            Err(e) => assert!(
                !checked,
                "{target:?}: a module that passes the ABI check does not convert: {e}"
            ),
        }
    }
});
