//! The simplification on the PNaCl subset itself: every real pexe's neutral module (which
//! is already in the subset, as PNaCl's own simplification left it) goes through
//! pnacl-finalize's simplification again. Nothing is refused, the result passes every ABI
//! rule and freezes; and the run/ programs, so simplified twice, still print exactly their
//! .stdout on x86-32 (one real pexe's `_start` returns a float: accepted as Google's tools
//! accepted it).
#![cfg(feature = "llvm")]

mod common;

use std::os::unix::process::CommandExt;
use std::process::Command;

use inkwell::context::Context;
use pnacl::llvm::codegen::OptLevel;
use pnacl::llvm::{abicheck, export, finalize, import, ExportOptions, Target};
use pnacl::translate::{translate, Options};

/// The pexe `m` simplified again: the new module's pexe.
fn resimplified(m: &pnacl::ir::Module, name: &str) -> Result<Vec<u8>, String> {
    let ctx = Context::create();
    let bc = export(&ctx, m, &ExportOptions::whole(Target::Le32))
        .map_err(|e| e.to_string())?
        .write_bitcode_to_memory();
    let ctx2 = Context::create();
    let mut ll = pnacl::llvm::parse_ir(&ctx2, bc.as_slice(), name)?;
    let simple = pnacl::simplify::simplify(&ctx2, &mut ll).map_err(|p| {
        p.iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    finalize::strip(&simple);
    let findings = abicheck::check(
        &simple,
        &abicheck::Options {
            ignore_named_metadata: true,
            ..Default::default()
        },
    );
    let errors: Vec<String> = findings
        .iter()
        .filter(|f| !f.warning)
        .map(|f| f.msg.clone())
        .collect();
    if !errors.is_empty() {
        return Err(format!("breaks ABI rules: {}", errors.join("; ")));
    }
    finalize::strip_names(&simple);
    let model = import::import(&simple).map_err(|e| e.to_string())?;
    pnacl::bitcode::write(&model).map_err(|e| e.msg().to_string())
}

#[test]
fn every_real_pexe_simplifies_again_into_a_valid_pexe() {
    let mut failures = Vec::new();
    for p in common::valid_pexes() {
        let name = common::name(&p);
        let m = pnacl::bitcode::read(&std::fs::read(&p).unwrap()).unwrap();
        match resimplified(&m, &name) {
            Ok(bytes) => {
                if let Err(e) = pnacl::bitcode::read(&bytes) {
                    failures.push(format!("{name}: the new pexe does not read: {e}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn run_programs_simplified_again_print_their_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for p in common::pexes("run") {
        let name = common::name(&p);
        let m = pnacl::bitcode::read(&std::fs::read(&p).unwrap()).unwrap();
        let bytes = resimplified(&m, &name).unwrap();
        let m2 = pnacl::bitcode::read(&bytes).unwrap();
        let exe = dir.path().join(&name);
        let opts = Options {
            target: Target::X86_32,
            opt: OptLevel::O2,
            threads: 2,
            verify: true,
            ssa_checked: false,
            progress: Default::default(),
        };
        if let Err(e) = translate(&m2, &opts, &exe) {
            failures.push(format!("{name}: translation failed: {e}"));
            continue;
        }
        let (argv, want) = common::expectations(&p);
        let out = Command::new(&exe)
            .arg0(&argv[0])
            .env_clear()
            .args(&argv[1..])
            .output()
            .unwrap();
        if out.stdout != want || !out.status.success() {
            failures.push(format!(
                "{name}: status {:?}, {} bytes of output (want {})",
                out.status.code(),
                out.stdout.len(),
                want.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
