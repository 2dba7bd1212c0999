//! The LLVM bridge must turn every module the reader accepts into an LLVM module that
//! LLVM's verifier accepts, for every target, or give a clear error: never a panic, a
//! crash in LLVM, or a module LLVM rejects. A module that passes the checks
//! (`abi::check_all`, what `pnacl-llvm` converts without `--no-abi-check`) must convert.
//! And the SSA check (`ir::dom`) must agree with LLVM's verifier: a module it accepts
//! converts to one the verifier accepts (above), and one it rejects, converted without it
//! (`ssa_checked`), is one the verifier rejects. The le32 module also goes the way back
//! (the LLVM-level checker, the import pnacl-freeze writes from).
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
    let ssa = pnacl::abi::check_ssa(&m);
    let ctx = Context::create();
    for target in Target::ALL {
        match export(&ctx, &m, &ExportOptions::whole(target)) {
            Ok(llmod) => {
                if let Err(e) = llmod.verify() {
                    panic!("{target:?}: the LLVM module does not verify: {}", e.to_string());
                }
                if target == Target::Le32 {
                    // The way back (pnacl-abicheck and pnacl-freeze on LLVM modules):
                    // findings or an error, never a panic; what passes the checks imports.
                    pnacl::llvm::abicheck::check(&llmod, &Default::default());
                    let imported = pnacl::llvm::import(&llmod);
                    if let (true, Err(e)) = (checked, imported) {
                        panic!("a module that passes the checks does not import: {e}");
                    }
                }
            }
            Err(e) => assert!(
                !checked,
                "{target:?}: a module that passes the checks does not convert: {e}"
            ),
        }
    }
    // The SSA check against LLVM's verifier: a module it rejects, converted without it,
    // is one the verifier rejects too (a conversion error, such as a phi without an entry
    // for a predecessor, counts as a rejection). (A module it accepts converts above,
    // and must verify there.)
    if let Some(f) = ssa.first() {
        let opts = ExportOptions {
            ssa_checked: true,
            ..ExportOptions::whole(Target::Le32)
        };
        let verified = export(&ctx, &m, &opts).is_ok_and(|llmod| llmod.verify().is_ok());
        assert!(
            !verified,
            "the SSA check rejects a module LLVM's verifier accepts: {}",
            f.msg
        );
    }
});
