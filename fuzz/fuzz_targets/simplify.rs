//! The simplification must take every module LLVM's verifier accepts and either make one
//! of the PNaCl subset (which then passes every ABI rule and freezes) or say why not: never
//! a panic, a crash in LLVM, or a module that breaks a rule. Its inputs here are the
//! neutral modules of the pexes the reader accepts (already in the subset, in many odd
//! shapes, some breaking rules the reader does not enforce).
#![no_main]

use inkwell::context::Context;
use libfuzzer_sys::fuzz_target;
use pnacl::llvm::{export, ExportOptions, Target};

fuzz_target!(|data: &[u8]| {
    let Ok(m) = pnacl::bitcode::read(data) else {
        return;
    };
    let ctx = Context::create();
    let Ok(mut llmod) = export(&ctx, &m, &ExportOptions::whole(Target::Le32)) else {
        return;
    };
    if llmod.verify().is_err() {
        return;
    }
    let Ok(simple) = pnacl::simplify::simplify(&ctx, &mut llmod) else {
        return;
    };
    pnacl::llvm::finalize::strip(&simple);
    let opts = pnacl::llvm::abicheck::Options {
        ignore_named_metadata: true,
        ..Default::default()
    };
    let findings = pnacl::llvm::abicheck::check(&simple, &opts);
    if let Some(f) = findings.iter().find(|f| !f.warning) {
        panic!("the simplified module breaks a rule: {}", f.msg);
    }
    if let Err(e) = pnacl::llvm::import(&simple) {
        panic!("the simplified module does not import: {e}");
    }
});
