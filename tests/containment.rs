//! A translated pexe is untrusted code. Four attacks, each a pexe that pnacl-abicheck calls
//! clean (tests/attacks/*.ll, written in the PNaCl subset of LLVM IR and finalized as
//! demo/hello.ll is), try to read a host file outside any root and to create one:
//!
//! 1. the runtime's raw system-call function, found by scanning code memory, called
//!    through an indirect call;
//! 2. the runtime's process entry called again on a forged stack whose environment says
//!    `PNACL_FS_ROOT=/`;
//! 3. a saved return address above an alloca replaced by that entry, its argument by the
//!    forged stack;
//! 4. a writable and executable page from the IRT memory interface (or, refused, from the
//!    kernel through the raw system-call function), machine code written into it and run.
//!
//! On x86-32, at -O0, -O1 and -O2, with no root and with a root beside the secret, each one
//! fails: nothing of the secret in its output, no file created outside, and the process
//! ends by the blocked call (SIGSYS) or the refusal. The same pexes linked with a runtime
//! built without the outer sandbox (`-DPNACL_NO_SANDBOX`, the control group) do escape:
//! the attacks are real. On ARM, Debian's qemu-arm 7.2 passes neither Landlock nor seccomp
//! to its guest: the program refuses to start (fail closed) and, with
//! `PNACL_ALLOW_UNSANDBOXED=1`, says that it runs uncontained (and is then as open as the
//! control group). The ARM policy itself is unit-tested in tests/runtime_sandbox.rs.
#![cfg(feature = "llvm")]

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use assert_cmd::cargo::cargo_bin;
use pnacl::llvm::Target;

const ATTACKS: [&str; 4] = ["raw-syscall", "reenter", "return-address", "exec-memory"];
const SIGSYS: i32 = 31;

fn translate(pexe: &Path, target: Target, opt: &str, exe: &Path) {
    let st = Command::new(cargo_bin("pnacl-translate"))
        .arg(opt)
        .args(["--arch", target.name()])
        .arg(pexe)
        .arg("-o")
        .arg(exe)
        .status()
        .unwrap();
    assert!(st.success());
}

/// The control group: the pexe's code (pnacl-llvm, llc-14) linked with a runtime built
/// without the outer sandbox.
fn unsandboxed(pexe: &Path, target: Target, exe: &Path) {
    let dir = exe.parent().unwrap();
    let bc = dir.join("control.bc");
    let obj = dir.join("control.o");
    let st = Command::new(cargo_bin("pnacl-llvm"))
        .args(["--target", target.name()])
        .arg(pexe)
        .arg("-o")
        .arg(&bc)
        .status()
        .unwrap();
    assert!(st.success());
    let st = Command::new(pnacl::tools::LLC)
        .args(["-O2", "-filetype=obj"])
        .args(if target == Target::Arm {
            ["-mattr=+neon,+vfp3", "-mcpu=cortex-a9"]
        } else {
            ["-mattr=+sse2", "-mcpu=generic"]
        })
        .arg(&bc)
        .arg("-o")
        .arg(&obj)
        .status()
        .unwrap();
    assert!(st.success());
    let runtime = pnacl::translate::runtime_objects_with(target, &["-DPNACL_NO_SANDBOX"]).unwrap();
    let st = Command::new(which::which(pnacl::tools::LD_LLD).unwrap())
        .args(["-static", "--no-pie", "-e", "_start", "-o"])
        .arg(exe)
        .arg(&obj)
        .args(&runtime)
        .status()
        .unwrap();
    assert!(st.success());
}

/// The machine code of attack 4's payload for `target`, in hex.
fn payload(dir: &Path, target: Target) -> String {
    let (src, triple) = match target {
        Target::Arm => ("payload_arm.S", "--target=armv7-linux-gnueabihf"),
        _ => ("payload_i386.S", "--target=i686-linux-gnu"),
    };
    let obj = dir.join(format!("{src}.o"));
    let st = Command::new(which::which(pnacl::tools::CLANG).unwrap())
        .arg(triple)
        .arg("-c")
        .arg(common::attacks_dir().join(src))
        .arg("-o")
        .arg(&obj)
        .status()
        .unwrap();
    assert!(st.success());
    common::hex(&common::Elf32::read(&obj).section_bytes(".text"))
}

/// Where an attack reads and writes, and what it must not get.
struct Scene {
    _dir: tempfile::TempDir,
    secret_text: String,
    secret: PathBuf,
    outside: PathBuf,
    root: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        let root = dir.path().join("root");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        let secret_text = format!("secret-{}-{}", std::process::id(), line!());
        let secret = outside.join("secret.txt");
        std::fs::write(&secret, &secret_text).unwrap();
        Scene {
            _dir: dir,
            secret_text,
            secret,
            outside,
            root,
        }
    }

    /// A path relative to `/` (what the re-entry attacks' IRT open takes).
    fn from_slash(p: &Path) -> String {
        p.to_str().unwrap().trim_start_matches('/').to_string()
    }

    fn escaped(&self, k: usize) -> PathBuf {
        self.outside.join(format!("escaped-{k}"))
    }

    /// The argument vector of attack `k` (0-based) against `exe`.
    fn argv(&self, k: usize, exe: &Path, target: Target, code: &str) -> Vec<String> {
        let elf = common::Elf32::read(exe);
        let syscall = elf.symbol("__pnacl_syscall");
        let pattern = common::hex(&elf.bytes_at(syscall, 16));
        let main = elf.symbol("__pnacl_main").to_string();
        let (openat, mmap2) = if target == Target::Arm {
            ("322", "192")
        } else {
            ("295", "192")
        };
        let steal = self.secret.to_str().unwrap().to_string();
        let create = self.escaped(k + 1).to_str().unwrap().to_string();
        let s = |x: &str| x.to_string();
        match k {
            0 => vec![pattern, steal, create, s(openat), s("3"), s("4")],
            1 => vec![
                main,
                Self::from_slash(&self.secret),
                Self::from_slash(&self.escaped(2)),
            ],
            2 => {
                let text = elf.sections().into_iter().find(|s| s.0 == ".text").unwrap();
                vec![
                    main,
                    Self::from_slash(&self.secret),
                    Self::from_slash(&self.escaped(3)),
                    text.1.to_string(),
                    (text.1 + text.3).to_string(),
                ]
            }
            _ => vec![s(code), steal, create, pattern, s(mmap2)],
        }
    }

    fn run(&self, exe: &Path, target: Target, args: &[String], env: &[(&str, &Path)]) -> Output {
        let mut c = if target == Target::Arm {
            let mut c = Command::new(pnacl::tools::QEMU_ARM);
            c.arg(exe);
            c
        } else {
            Command::new(exe)
        };
        c.args(args).env_clear().current_dir(&self.root);
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    }

    fn leaked(&self, out: &Output, k: usize) -> bool {
        String::from_utf8_lossy(&out.stdout).contains(&self.secret_text)
            || String::from_utf8_lossy(&out.stderr).contains(&self.secret_text)
            || self.escaped(k + 1).exists()
    }

    fn clean(&self) {
        for k in 1..=4 {
            let _ = std::fs::remove_file(self.escaped(k));
        }
    }
}

fn describe(out: &Output) -> String {
    format!(
        "status {:?} (signal {:?}), stdout {:?}, stderr {:?}",
        out.status.code(),
        out.status.signal(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_four_escapes_fail_on_x86_32_and_succeed_without_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let scene = Scene::new();
    let code = payload(dir.path(), Target::X86_32);
    let pexes: Vec<PathBuf> = ATTACKS
        .iter()
        .map(|a| common::attack_pexe(dir.path(), a))
        .collect();
    let mut failures = Vec::new();
    for (k, pexe) in pexes.iter().enumerate() {
        // The control group: the attack escapes a runtime without the outer sandbox.
        let exe = dir.path().join(format!("{}.control", ATTACKS[k]));
        unsandboxed(pexe, Target::X86_32, &exe);
        let out = scene.run(
            &exe,
            Target::X86_32,
            &scene.argv(k, &exe, Target::X86_32, &code),
            &[],
        );
        if !scene.leaked(&out, k) {
            failures.push(format!(
                "{} does not escape without the sandbox: {}",
                ATTACKS[k],
                describe(&out)
            ));
        }
        scene.clean();
        for opt in ["-O0", "-O1", "-O2"] {
            let exe = dir.path().join(format!("{}{opt}", ATTACKS[k]));
            translate(pexe, Target::X86_32, opt, &exe);
            let args = scene.argv(k, &exe, Target::X86_32, &code);
            for root in [None, Some(scene.root.as_path())] {
                let env: Vec<(&str, &Path)> =
                    root.map(|r| ("PNACL_FS_ROOT", r)).into_iter().collect();
                let out = scene.run(&exe, Target::X86_32, &args, &env);
                let what = format!("{} {opt} (root: {root:?})", ATTACKS[k]);
                if scene.leaked(&out, k) {
                    failures.push(format!("{what} escaped: {}", describe(&out)));
                }
                // How each ends: the file calls of attack 1 fail (Landlock) and it goes on;
                // the re-entries die on the sandbox's own prctl; attack 4 is refused by the
                // IRT, then killed asking the kernel for executable memory.
                let ok = match k {
                    0 => out.status.success(),
                    1 | 2 => out.status.signal() == Some(SIGSYS),
                    _ => {
                        out.status.signal() == Some(SIGSYS)
                            && String::from_utf8_lossy(&out.stderr)
                                .contains("the IRT refused executable memory")
                    }
                };
                if !ok {
                    failures.push(format!(
                        "{what} did not end as expected: {}",
                        describe(&out)
                    ));
                }
                scene.clean();
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn on_arm_under_qemu_the_program_refuses_to_start_uncontained_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let scene = Scene::new();
    let code = payload(dir.path(), Target::Arm);
    let pexe = common::attack_pexe(dir.path(), "raw-syscall");
    let exe = dir.path().join("raw-syscall.arm");
    translate(&pexe, Target::Arm, "-O2", &exe);
    let args = scene.argv(0, &exe, Target::Arm, &code);
    let out = scene.run(&exe, Target::Arm, &args, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("cannot contain this program") {
        // qemu-arm passes neither Landlock nor seccomp: fail closed.
        assert_eq!(out.status.code(), Some(126), "{}", describe(&out));
        assert!(out.stdout.is_empty() && !scene.leaked(&out, 0));
        // With the opt-out it says so, and is as open as the control group.
        let out = scene.run(
            &exe,
            Target::Arm,
            &args,
            &[("PNACL_ALLOW_UNSANDBOXED", Path::new("1"))],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with(
                "pnacl runtime: warning: running uncontained (PNACL_ALLOW_UNSANDBOXED=1): "
            ),
            "{}",
            describe(&out)
        );
        assert!(scene.leaked(&out, 0), "{}", describe(&out));
    } else {
        // An emulator that passes the sandbox through: contained as on x86-32.
        assert!(!scene.leaked(&out, 0), "{}", describe(&out));
    }
    scene.clean();
    // The other attacks run too, with the opt-out, and say so.
    for (k, name) in ATTACKS.iter().enumerate().skip(1) {
        let pexe = common::attack_pexe(dir.path(), name);
        let exe = dir.path().join(format!("{name}.arm"));
        translate(&pexe, Target::Arm, "-O2", &exe);
        let out = scene.run(
            &exe,
            Target::Arm,
            &scene.argv(k, &exe, Target::Arm, &code),
            &[("PNACL_ALLOW_UNSANDBOXED", Path::new("1"))],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("running uncontained") || !scene.leaked(&out, k),
            "{name}: {}",
            describe(&out)
        );
        scene.clean();
    }
}

/// Nothing of a translated program is writable and executable at once: its segments, and
/// its stack (PT_GNU_STACK present and not executable, or the kernel would make the stack
/// executable on i386). The runtime maps nothing executable, and refuses to (above).
#[test]
fn no_segment_is_writable_and_executable() {
    const PT_LOAD: usize = 1;
    const PT_GNU_STACK: usize = 0x6474e551;
    let dir = tempfile::tempdir().unwrap();
    for p in common::pexes("run") {
        for target in [Target::X86_32, Target::Arm] {
            let exe = dir.path().join(format!("{}.{target}", common::name(&p)));
            translate(&p, target, "-O2", &exe);
            let segs = common::Elf32::read(&exe).segments();
            for &(ty, flags) in &segs {
                assert!(
                    !(ty == PT_LOAD && flags & 3 == 3),
                    "{}: a writable and executable segment",
                    exe.display()
                );
            }
            assert!(
                segs.iter()
                    .any(|&(ty, flags)| ty == PT_GNU_STACK && flags & 1 == 0),
                "{}: no non-executable PT_GNU_STACK",
                exe.display()
            );
        }
    }
}
