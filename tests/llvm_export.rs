//! pnacl-llvm's conversion on the real pexes: for every target the module passes LLVM's
//! verifier, and llc-14 -O2 compiles the others than le32 to object files (x86-32 with
//! SSE2, ARM with hard float, WebAssembly with threads and exception handling, x86-64 and
//! AArch64 with the pexe in its region).
#![cfg(feature = "llvm")]

mod common;

use std::process::Command;

use inkwell::context::Context;
use pnacl::llvm::{export, ExportOptions, Target};

fn llc_flags(t: Target) -> &'static [&'static str] {
    match t {
        Target::X86_32 => &["-mtriple=i686-unknown-linux-gnu", "-mattr=+sse2"],
        Target::Arm => &[
            "-mtriple=armv7-unknown-linux-gnueabihf",
            "-float-abi=hard",
            "-mattr=+neon",
        ],
        // What pnacl-translate generates code with (llvm::target, llvm::codegen).
        Target::Wasm32 => &[
            "-mtriple=wasm32-unknown-wasi",
            "-mattr=+atomics,+mutable-globals,+sign-ext,+simd128,+exception-handling",
            "-wasm-enable-sjlj",
        ],
        // Code that lives above the pexe's 4 GiB, wherever it is loaded.
        Target::X86_64 => &["-mtriple=x86_64-unknown-linux-gnu", "-relocation-model=pic"],
        Target::Aarch64 => &[
            "-mtriple=aarch64-unknown-linux-gnu",
            "-mattr=+neon",
            "-relocation-model=pic",
        ],
        Target::Le32 => &[],
    }
}

#[test]
fn every_pexe_converts_verifies_and_compiles_for_every_target() {
    let dir = tempfile::tempdir().unwrap();
    for p in common::valid_pexes() {
        let name = common::name(&p);
        let m = pnacl::bitcode::read(&std::fs::read(&p).unwrap()).unwrap();
        for t in Target::ALL {
            let ctx = Context::create();
            let llmod = export(&ctx, &m, &ExportOptions::whole(t))
                .unwrap_or_else(|e| panic!("{name} {t}: {e}"));
            llmod
                .verify()
                .unwrap_or_else(|e| panic!("{name} {t}: does not verify: {}", e.to_string()));
            assert_eq!(llmod.get_triple().as_str().to_str().unwrap(), t.triple());
            if !t.generates_code() {
                continue;
            }
            let bc = dir.path().join(format!("{name}.{t}.bc"));
            assert!(llmod.write_bitcode_to_path(&bc));
            let obj = dir.path().join(format!("{name}.{t}.o"));
            let out = Command::new(pnacl::tools::LLC)
                .arg("-O2")
                .args(llc_flags(t))
                .arg("-filetype=obj")
                .arg(&bc)
                .arg("-o")
                .arg(&obj)
                .output()
                .expect("llc-14 runs");
            assert!(
                out.status.success(),
                "{name} {t}: llc -O2 failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(std::fs::metadata(&obj).unwrap().len() > 0);
        }
    }
}

#[test]
fn partitions_cover_every_defined_function_and_shrink() {
    for p in common::valid_pexes() {
        let m = pnacl::bitcode::read(&std::fs::read(&p).unwrap()).unwrap();
        let (owners, sizes) = pnacl::translate::partition(&m, 2);
        let n = sizes.len();
        let mut size = vec![0usize; n];
        for f in 0..m.functions.len() {
            if let Some(b) = m.body(f as u32) {
                assert!((owners[f] as usize) < n, "{}: function {f}", p.display());
                size[owners[f] as usize] += b.insts.len() + 16;
            }
        }
        assert_eq!(size, sizes, "{}: sizes as reported", p.display());
        assert!(
            size.iter().all(|&s| s > 0),
            "{}: empty partition",
            p.display()
        );
        let total: usize = size.iter().sum();
        // Few partitions (each costs a context and declarations), several for a big
        // module, and the last one small (it is what a thread may end on alone).
        assert!(n <= 64, "{}: {n} partitions", p.display());
        if total > 10_000 {
            assert!(n >= 4, "{}: only {n} partitions", p.display());
            assert!(size[n - 1] <= size[0], "{}: {size:?}", p.display());
            assert!(size[n - 1] * 8 <= total, "{}: {size:?}", p.display());
        }
    }
}

/// A partition's module defines its own functions (and partition 0 the globals) and
/// declares only what it uses: every other declaration costs again in code generation
/// and when the module is freed. Each partition's module verifies.
#[test]
fn partitions_declare_only_what_they_use() {
    use inkwell::values::AsValueRef;
    for p in common::valid_pexes() {
        let m = pnacl::bitcode::read(&std::fs::read(&p).unwrap()).unwrap();
        let (owners, sizes) = pnacl::translate::partition(&m, 2);
        for (k, copies) in (0..sizes.len() as u32).flat_map(|k| [(k, false), (k, true)]) {
            let ctx = Context::create();
            let opts = ExportOptions {
                target: Target::X86_32,
                partition: Some((k, &owners)),
                ssa_checked: false,
                inline_copies: copies,
                ppapi_host: false,
                portable: false,
                layout: None,
            };
            let llmod = export(&ctx, &m, &opts).unwrap();
            let what = format!("{} partition {k} (copies: {copies})", p.display());
            llmod
                .verify()
                .unwrap_or_else(|e| panic!("{what}: does not verify: {}", e.to_string()));
            let owned = m
                .functions
                .iter()
                .enumerate()
                .filter(|(f, func)| {
                    func.body.as_ref().is_some_and(|b| b.num_blocks > 0) && owners[*f] == k
                })
                .count();
            let mut defined = 0;
            for f in llmod.get_functions() {
                let name = f.get_name().to_str().unwrap().to_string();
                if !name.starts_with("__pexe_f") {
                    continue;
                }
                if f.count_basic_blocks() > 0 {
                    // A copy to inline (`inline_copies`): small, and not emitted.
                    let index: usize = name["__pexe_f".len()..]
                        .split('.')
                        .next()
                        .unwrap()
                        .parse()
                        .unwrap();
                    if owners[index] == k {
                        defined += 1;
                    } else {
                        assert!(copies, "{what}: {name} is defined, and not the partition's");
                        assert_eq!(
                            f.get_linkage(),
                            inkwell::module::Linkage::AvailableExternally,
                            "{what}: {name}"
                        );
                        let size = m.body(index as u32).unwrap().insts.len();
                        assert!(
                            size <= pnacl::llvm::export::INLINE_COPY_MAX,
                            "{what}: {name}"
                        );
                    }
                } else {
                    let used = unsafe { live(f.as_value_ref()) };
                    assert!(used, "{what}: {name} is declared but not used");
                }
            }
            assert_eq!(defined, owned, "{what}: functions defined");
            for g in llmod.get_globals() {
                let name = g.get_name().to_str().unwrap().to_string();
                if name == pnacl::llvm::target::runtime::THREADS {
                    // The runtime's, declared in each partition that uses it.
                    assert!(g.get_initializer().is_none(), "{what}: {name} defined");
                    let used = unsafe { live(g.as_value_ref()) };
                    assert!(used, "{what}: {name} is declared but not used");
                    continue;
                }
                if k == 0 {
                    assert!(g.get_initializer().is_some(), "{what}: {name} not defined");
                } else {
                    assert!(g.get_initializer().is_none(), "{what}: {name} defined");
                    let used = unsafe { live(g.as_value_ref()) };
                    assert!(used, "{what}: {name} is declared but not used");
                }
            }
        }
    }
}

/// Whether `v` has a use that matters: by an instruction or an initializer, directly or
/// through constant expressions (a constant expression nobody uses does not count).
unsafe fn live(v: llvm_sys::prelude::LLVMValueRef) -> bool {
    use llvm_sys::core::{LLVMGetFirstUse, LLVMGetNextUse, LLVMGetUser, LLVMIsAConstantExpr};
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if LLVMIsAConstantExpr(user).is_null() || live(user) {
            return true;
        }
        u = LLVMGetNextUse(u);
    }
    false
}

/// On the region targets nothing runs on past an `unreachable`: one that no call of a
/// function that does not return precedes gets `llvm.trap` before it (code generation
/// would otherwise let it fall through into whatever follows the function).
#[test]
fn unreachable_code_traps_on_the_region_targets() {
    let ctx = Context::create();
    let text = r#"
declare void @leave() noreturn nounwind
declare void @other() nounwind
define void @undefined_store() {
  store i32 1, i32* undef
  unreachable
}
define void @after_exit() {
  call void @leave()
  unreachable
}
define void @after_a_call_site_that_does_not_return() {
  call void @other() noreturn
  unreachable
}
define void @after_a_call_that_returns() {
  call void @other()
  unreachable
}
"#;
    let m = pnacl::llvm::parse_ir(&ctx, text.as_bytes(), "t.ll").unwrap();
    assert_eq!(pnacl::llvm::codegen::trap_unreachables(&m), 2);
    m.verify().unwrap();
    let out = m.print_to_string().to_string();
    for (f, traps) in [
        ("undefined_store", true),
        ("after_exit", false),
        ("after_a_call_site_that_does_not_return", false),
        ("after_a_call_that_returns", true),
    ] {
        let body = out.split(&format!("@{f}(")).nth(1).unwrap();
        let body = &body[..body.find('}').unwrap()];
        assert_eq!(
            body.contains("call void @llvm.trap()\n  unreachable"),
            traps,
            "{f}: {body}"
        );
    }
}
