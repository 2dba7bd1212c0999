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
//! to its guest: under `pnacl-run`, which contains qemu from outside, each attack fails;
//! under qemu-arm alone the program refuses to start (fail closed), also with
//! `PNACL_ALLOW_UNSANDBOXED=1` left exported, and, with the opt-out naming the program, says
//! loudly that it runs uncontained (and is then as open as the control group).
//!
//! Then the attacks of issue 42, each failing on the runtime before it and each a pexe:
//! set-uid files, thread bombs, host metadata, the environment, truncation on an older
//! Landlock. The ARM policy itself is unit-tested in tests/runtime_sandbox.rs.
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
    linked_with(pexe, target, exe, &["-DPNACL_NO_SANDBOX"]);
}

/// The pexe's code (pnacl-llvm, llc-14) linked with a runtime built with `extra` flags.
fn linked_with(pexe: &Path, target: Target, exe: &Path, extra: &[&str]) {
    let dir = exe.parent().unwrap();
    let name = exe.file_name().unwrap().to_str().unwrap();
    let bc = dir.join(format!("{name}.bc"));
    let obj = dir.join(format!("{name}.o"));
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
        .args(match target {
            Target::Arm => &["-mattr=+neon,+vfp3", "-mcpu=cortex-a9"][..],
            Target::X86_32 => &["-mattr=+sse2", "-mcpu=generic"],
            // Linked high (the table's link_base): position-independent code.
            _ => &["-relocation-model=pic"],
        })
        .arg(&bc)
        .arg("-o")
        .arg(&obj)
        .status()
        .unwrap();
    assert!(st.success());
    let runtime = pnacl::translate::runtime_objects_with(target, extra).unwrap();
    let st = Command::new(which::which(pnacl::tools::LD_LLD).unwrap())
        .args(["-static", "--no-pie", "-e", "_start", "-o"])
        .arg(exe)
        .args(
            target
                .spec()
                .link_base
                .map(|a| format!("--image-base={a:#x}")),
        )
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
    common::hex(&common::Elf::read(&obj).section_bytes(".text"))
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
        let elf = common::Elf::read(exe);
        let syscall = elf.symbol("__pnacl_syscall");
        let pattern = common::hex(&elf.bytes_at(syscall, 16));
        let main = elf.symbol("__pnacl_main").to_string();
        let (openat, mmap2) = match target {
            Target::Arm => ("322", "192"),
            Target::X86_64 => ("257", "9"),
            Target::Aarch64 => ("56", "222"),
            _ => ("295", "192"),
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
        let mut c = if let pnacl::target::Runner::Qemu(qemu) = target.spec().runs {
            let mut c = Command::new(qemu);
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

    /// As `run`, through pnacl-run (ARM under qemu-arm, contained from outside).
    fn run_contained(&self, exe: &Path, args: &[String], env: &[(&str, &Path)]) -> Output {
        let mut c = Command::new(cargo_bin("pnacl-run"));
        c.arg(exe).args(args).env_clear().current_dir(&self.root);
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
                // How each ends: the file calls of attack 1 fail (Landlock; with no root,
                // the filter's EACCES) and it goes on; the re-entries die on the sandbox:
                // opening their forged root as O_PATH (killed) or, with no root, not at all;
                // attack 4 is refused by the IRT, then killed asking the kernel for
                // executable memory.
                let ok =
                    match k {
                        0 => out.status.success(),
                        1 | 2 => out.status.signal() == Some(SIGSYS)
                            || (root.is_none()
                                && out.status.code() == Some(127)
                                && out.stderr
                                    == b"pnacl runtime: PNACL_FS_ROOT does not name a directory\n"),
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

/// On the region targets the four escapes fail by construction, also with a runtime built
/// without the outer sandbox (the control group that escapes on x86-32): the runtime's
/// code is no function the pexe can call, its entry no function index, return addresses
/// are outside the pexe's memory, and no memory is executable. Nothing leaks, and each ends
/// as it must: the scans for the runtime's code (attacks 1 and 4, after the IRT refuses
/// executable memory) trap on the first page of the region that is not mapped; the
/// re-entry traps calling a number that is no function's address; the return address the
/// third overwrites is only memory of the pexe's, and it returns normally.
#[test]
fn the_four_escapes_fail_on_x86_64_and_aarch64_even_without_the_outer_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let scene = Scene::new();
    let pexes: Vec<PathBuf> = ATTACKS
        .iter()
        .map(|a| common::attack_pexe(dir.path(), a))
        .collect();
    let mut failures = Vec::new();
    for target in [Target::X86_64, Target::Aarch64] {
        // No executable memory is ever given: any bytes do for attack 4's payload.
        let code = common::hex(&[0xcc; 16]);
        for (k, pexe) in pexes.iter().enumerate() {
            let control = dir.path().join(format!("{}-{target}.control", ATTACKS[k]));
            unsandboxed(pexe, target, &control);
            let exe = dir.path().join(format!("{}-{target}", ATTACKS[k]));
            translate(pexe, target, "-O2", &exe);
            for (exe, contained) in [(&control, false), (&exe, true)] {
                let args = scene.argv(k, exe, target, &code);
                for root in [None, Some(scene.root.as_path())] {
                    let env: Vec<(&str, &Path)> =
                        root.map(|r| ("PNACL_FS_ROOT", r)).into_iter().collect();
                    let out = if contained && target == Target::Aarch64 {
                        scene.run_contained(exe, &args, &env)
                    } else {
                        scene.run(exe, target, &args, &env)
                    };
                    let what = format!(
                        "{} {target} {} (root: {root:?})",
                        ATTACKS[k],
                        if contained { "translated" } else { "control" }
                    );
                    if scene.leaked(&out, k) {
                        failures.push(format!("{what} escaped: {}", describe(&out)));
                    }
                    let trap = |why: &str| format!("pnacl: the program trapped: {why}\n");
                    let out_of_bounds = trap("memory access out of bounds");
                    let want = match k {
                        0 => Some(out_of_bounds),
                        1 => Some(trap(
                            "indirect call of a number that is no function's address",
                        )),
                        2 => None,
                        _ => Some(format!(
                            "attack 4: the IRT refused executable memory\n{out_of_bounds}"
                        )),
                    };
                    let ended = match want {
                        Some(err) => out.status.code() == Some(134) && out.stderr == err.as_bytes(),
                        None => out.status.success() && out.stderr.is_empty(),
                    };
                    if !ended {
                        failures.push(format!(
                            "{what} did not end as expected: {}",
                            describe(&out)
                        ));
                    }
                    scene.clean();
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn on_arm_pnacl_run_contains_qemu_and_plain_qemu_refuses_unless_the_program_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let scene = Scene::new();
    let code = payload(dir.path(), Target::Arm);
    let mut failures = Vec::new();
    for (k, name) in ATTACKS.iter().enumerate() {
        let pexe = common::attack_pexe(dir.path(), name);
        let exe = dir.path().join(format!("{name}.arm"));
        translate(&pexe, Target::Arm, "-O2", &exe);
        let args = scene.argv(k, &exe, Target::Arm, &code);
        // pnacl-run holds qemu and its guest from outside: nothing leaks, with no root or
        // a root beside the secret.
        for root in [None, Some(scene.root.as_path())] {
            let env: Vec<(&str, &Path)> = root.map(|r| ("PNACL_FS_ROOT", r)).into_iter().collect();
            let out = scene.run_contained(&exe, &args, &env);
            if scene.leaked(&out, k) {
                failures.push(format!(
                    "{name} (root {root:?}) escaped pnacl-run: {}",
                    describe(&out)
                ));
            }
            if out.stderr.windows(11).any(|w| w == b"UNCONTAINED") {
                failures.push(format!(
                    "{name}: uncontained under pnacl-run: {}",
                    describe(&out)
                ));
            }
            // It ran: attack 1 found what it looks for and went on, its calls refused.
            if k == 0
                && !(out.status.success()
                    && String::from_utf8_lossy(&out.stderr).contains("raw syscall function found"))
            {
                failures.push(format!(
                    "{name} did not run under pnacl-run: {}",
                    describe(&out)
                ));
            }
            scene.clean();
        }
        // qemu-arm alone passes neither Landlock nor seccomp: the program refuses to start
        // (fail closed), also with the opt-out left exported as `1`.
        for env in [&[][..], &[("PNACL_ALLOW_UNSANDBOXED", Path::new("1"))][..]] {
            let out = scene.run(&exe, Target::Arm, &args, env);
            let want = format!("name it: PNACL_ALLOW_UNSANDBOXED={name}.arm\n");
            if out.status.code() != Some(126)
                || !String::from_utf8_lossy(&out.stderr).contains(&want)
                || scene.leaked(&out, k)
            {
                failures.push(format!(
                    "{name} under qemu-arm alone {env:?}: {}",
                    describe(&out)
                ));
            }
            scene.clean();
        }
    }
    // Naming the program, it says so loudly, and is as open as the control group.
    let exe = dir.path().join("raw-syscall.arm");
    let args = scene.argv(0, &exe, Target::Arm, &code);
    let out = scene.run(
        &exe,
        Target::Arm,
        &args,
        &[("PNACL_ALLOW_UNSANDBOXED", Path::new("raw-syscall.arm"))],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "pnacl runtime: WARNING: RUNNING UNCONTAINED (PNACL_ALLOW_UNSANDBOXED=raw-syscall.arm)\n"
        ),
        "{}",
        describe(&out)
    );
    assert!(scene.leaked(&out, 0), "{}", describe(&out));
    scene.clean();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Under pnacl-run, the thread bomb stops at the limit on ARM as on x86-32 (qemu's own
/// helper thread is not the program's), and what Landlock does not judge is refused.
#[test]
fn on_arm_under_pnacl_run_the_thread_limit_and_the_metadata_rules_hold() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = common::attack_pexe(dir.path(), "thread-bomb");
    let exe = dir.path().join("thread-bomb.arm");
    translate(&bomb, Target::Arm, "-O2", &exe);
    let pat = pattern(&exe, "__pnacl_clone");
    for (env, want) in [(&[][..], 255), (&[("PNACL_MAX_THREADS", "16")][..], 15)] {
        let out = pnacl_run(&exe, &[&pat, "3000"], env, dir.path());
        assert_eq!(reported(&out), want, "{env:?}: {}", describe(&out));
    }
    let raw = common::attack_pexe(dir.path(), "raw-call");
    let exe = dir.path().join("raw-call.arm");
    translate(&raw, Target::Arm, "-O2", &exe);
    let pat = pattern(&exe, "__pnacl_syscall");
    const AT_FDCWD: &str = "0xffffff9c";
    // statx and faccessat by name: refused (EACCES); another process's clock, a socket,
    // a new process: killed; a program: not executable (Landlock).
    let refused: [(&str, &[&str]); 3] = [
        ("397", &[AT_FDCWD, "@/etc/passwd", "0", "0x7ff", "buf"]),
        ("334", &[AT_FDCWD, "@/etc/passwd", "0"]),
        ("11", &["@/bin/sh", "0", "0"]),
    ];
    for (nr, args) in refused {
        let mut a = vec![pat.as_str(), nr];
        a.extend_from_slice(args);
        let out = pnacl_run(&exe, &a, &[], dir.path());
        assert_eq!(
            out.status.code(),
            Some(256 - 13),
            "{nr}: {}",
            describe(&out)
        );
    }
    // access by name: no name exists (ENOENT), there or not; a link's target: refused
    // (EACCES); the host's uptime, load, memory and processes: no such call (ENOSYS).
    let answered: [(&str, &[&str], i32); 5] = [
        ("33", &["@/etc/passwd", "0"], 2),
        ("33", &["@/nowhere-at-all", "0"], 2),
        ("332", &[AT_FDCWD, "@/proc/self/exe", "buf", "512"], 13),
        (
            "332",
            &[AT_FDCWD, "@/etc/alternatives/awk", "buf", "512"],
            13,
        ),
        ("116", &["buf"], 38),
    ];
    for (nr, args, errno) in answered {
        let mut a = vec![pat.as_str(), nr];
        a.extend_from_slice(args);
        let out = pnacl_run(&exe, &a, &[], dir.path());
        assert_eq!(
            out.status.code(),
            Some(256 - errno),
            "{nr} {args:?}: {}",
            describe(&out)
        );
    }
    // Another process's affinity (whether it exists), its clock, a socket, a new process:
    // killed.
    let killed: [(&str, &[&str]); 5] = [
        ("242", &["1", "128", "buf"]),
        ("242", &["4194304", "128", "buf"]),
        ("263", &["0xfffffff2", "buf"]),
        ("281", &["2", "1", "0"]),
        ("2", &["0", "0", "0"]),
    ];
    for (nr, args) in killed {
        let mut a = vec![pat.as_str(), nr];
        a.extend_from_slice(args);
        let out = pnacl_run(&exe, &a, &[], dir.path());
        assert_eq!(
            out.status.signal(),
            Some(SIGSYS),
            "{nr}: {}",
            describe(&out)
        );
    }
}

/// `pnacl-run PROGRAM ARGS` with nothing of the environment but `env`, in `cwd`.
fn pnacl_run(exe: &Path, args: &[&str], env: &[(&str, &str)], cwd: &Path) -> Output {
    let mut a = vec![exe.to_str().unwrap()];
    a.extend_from_slice(args);
    run_in(&cargo_bin("pnacl-run"), &a, env, cwd, false)
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
        for target in [Target::X86_32, Target::Arm, Target::X86_64, Target::Aarch64] {
            let exe = dir.path().join(format!("{}.{target}", common::name(&p)));
            translate(&p, target, "-O2", &exe);
            let segs = common::Elf::read(&exe).segments();
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

// ---------------------------------------------------------------------------------------
// What got through before (issue 42), each an attack pexe (tests/attacks/*.ll): set-id
// files, a thread bomb, host metadata, the environment, truncation of a read-only root.

/// The first 16 bytes of runtime function `name` in `exe`, in hex: what an attack scans
/// code memory for.
fn pattern(exe: &Path, name: &str) -> String {
    let elf = common::Elf::read(exe);
    common::hex(&elf.bytes_at(elf.symbol(name), 16))
}

/// Runs `exe` with `args` and nothing of the environment but `env`, in `cwd`; as the user
/// `nobody` when `as_user`.
fn run_in(exe: &Path, args: &[&str], env: &[(&str, &str)], cwd: &Path, as_user: bool) -> Output {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new(exe);
    c.args(args)
        .env_clear()
        .envs(env.iter().copied())
        .current_dir(cwd);
    if as_user {
        c.uid(65534).gid(65534);
    }
    c.output().unwrap()
}

/// What an attack printed last on standard error, as a number.
fn reported(out: &Output) -> u32 {
    let err = String::from_utf8_lossy(&out.stderr);
    let last = err.lines().last().unwrap_or("");
    last.trim()
        .parse()
        .unwrap_or_else(|_| panic!("no number reported: {}", describe(out)))
}

/// A directory that the user `nobody` may enter (a test directory is its owner's only).
fn open_to_all(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn mode_of(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode()
}

/// A pexe that writes its root through the IRT (mode 04755 for a new program, 01777 for a
/// directory, writing a set-uid file that is there) or asks the kernel itself for a
/// set-uid file: nothing in the root ends up set-uid, set-gid or sticky, run by root (the
/// case that matters: the file would be root's) or not. The control group keeps the bits.
/// And a program run by root keeps no capability, nor does its thread keeper.
#[test]
fn nothing_the_program_makes_or_writes_is_set_id_or_sticky_and_root_keeps_no_capability() {
    let dir = tempfile::tempdir().unwrap();
    let files = common::attack_pexe(dir.path(), "irt-files");
    let raw = common::attack_pexe(dir.path(), "raw-call");
    let files_exe = dir.path().join("irt-files");
    let raw_exe = dir.path().join("raw-call");
    translate(&files, Target::X86_32, "-O2", &files_exe);
    translate(&raw, Target::X86_32, "-O2", &raw_exe);
    let control = dir.path().join("irt-files.control");
    unsandboxed(&files, Target::X86_32, &control);
    let root_user = unsafe_getuid() == 0;
    for (exe, sandboxed) in [(&control, false), (&files_exe, true)] {
        let root = dir
            .path()
            .join(if sandboxed { "root" } else { "root.control" });
        std::fs::create_dir_all(&root).unwrap();
        std::fs::copy("/bin/true", root.join("suid")).unwrap();
        let chmod = |p: &Path, m: u32| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        chmod(&root.join("suid"), 0o4755);
        let env = [("PNACL_FS_ROOT", root.to_str().unwrap())];
        // O_WRONLY|O_CREAT, mode 04755; mkdir 01777; O_WRONLY into the set-uid file.
        for args in [
            &["o", "rootsh", "65", "2541"][..],
            &["m", "sticky", "1023"],
            &["o", "suid", "1", "0"],
        ] {
            let out = run_in(exe, args, &env, &root, false);
            assert!(out.status.success(), "{args:?}: {}", describe(&out));
        }
        let bits = [
            mode_of(&root.join("rootsh")) & 0o7000,
            mode_of(&root.join("sticky")) & 0o7000,
            mode_of(&root.join("suid")) & 0o7000,
        ];
        if sandboxed {
            assert_eq!(bits, [0, 0, 0], "set-id or sticky bits in the root");
        } else if root_user {
            // Without the sandbox, root's write leaves the file set-uid (the IRT itself
            // never passes such modes on).
            assert_eq!(bits, [0, 0, 0o4000], "the control group");
        }
    }
    // Asking the kernel itself: the control group makes a set-uid file; the sandbox kills
    // the call, and nothing is made.
    let raw_control = dir.path().join("raw-call.control");
    unsandboxed(&raw, Target::X86_32, &raw_control);
    let made = dir.path().join("root.control").join("raw");
    let at = format!("@{}", made.display());
    let pat = pattern(&raw_control, "__pnacl_syscall");
    let out = run_in(
        &raw_control,
        &[&pat, "295", "0xffffff9c", &at, "65", "2541"],
        &[],
        dir.path(),
        false,
    );
    assert!(
        out.status.code().is_some_and(|c| c < 128),
        "{}",
        describe(&out)
    );
    assert_eq!(
        mode_of(&made) & 0o7000,
        0o4000,
        "the control group's raw open"
    );
    let root = dir.path().join("root");
    let target = root.join("raw");
    let at = format!("@{}", target.display());
    let pat = pattern(&raw_exe, "__pnacl_syscall");
    let env = [("PNACL_FS_ROOT", root.to_str().unwrap())];
    for (nr, args) in [
        ("295", ["0xffffff9c", at.as_str(), "65", "2541"]), // openat(.., O_WRONLY|O_CREAT, 04755)
        ("296", ["0xffffff9c", at.as_str(), "1023", "0"]),  // mkdirat(.., 01777)
    ] {
        let mut a = vec![pat.as_str(), nr];
        a.extend_from_slice(&args);
        let out = run_in(&raw_exe, &a, &env, &root, false);
        assert_eq!(
            out.status.signal(),
            Some(SIGSYS),
            "{nr}: {}",
            describe(&out)
        );
        assert!(!target.exists(), "{nr} made {}", target.display());
    }
    // No capability in any set, in the program or its thread keeper, while it blocks
    // reading standard input.
    let mut child = Command::new(&raw_exe)
        .args([pat.as_str(), "3", "0", "buf", "1"])
        .env_clear()
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut seen = Vec::new();
    for _ in 0..200 {
        std::thread::sleep(std::time::Duration::from_millis(10));
        let kids =
            std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        if status.contains("Seccomp:\t2") && !kids.trim().is_empty() {
            seen.push(status);
            for k in kids.split_whitespace() {
                seen.push(std::fs::read_to_string(format!("/proc/{k}/status")).unwrap());
            }
            break;
        }
    }
    drop(child.stdin.take());
    child.wait().unwrap();
    assert_eq!(seen.len(), 2, "the program and its thread keeper");
    for status in seen {
        // (The bounding set only limits what an execve could give, and none is possible.)
        for set in ["CapInh", "CapPrm", "CapEff", "CapAmb"] {
            assert!(
                status.contains(&format!("{set}:\t0000000000000000")),
                "{set}: {status}"
            );
        }
        assert!(status.contains("NoNewPrivs:\t1"), "{status}");
    }
}

fn unsafe_getuid() -> u32 {
    extern "C" {
        fn getuid() -> u32;
    }
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { getuid() }
}

/// The thread bomb (clone called by the pexe itself, with the IRT's flags and 4 KiB
/// stacks) stops at the limit: 256 threads by default (255 besides the main thread), what
/// PNACL_MAX_THREADS says otherwise; as root and as an ordinary user. The IRT's own
/// thread_create stops there too, and says so. The control group makes all it asks for.
#[test]
fn a_thread_bomb_stops_at_the_thread_limit_as_root_and_as_a_user() {
    let dir = tempfile::tempdir().unwrap();
    open_to_all(dir.path());
    let pexe = common::attack_pexe(dir.path(), "thread-bomb");
    let exe = dir.path().join("thread-bomb");
    translate(&pexe, Target::X86_32, "-O2", &exe);
    let pat = pattern(&exe, "__pnacl_clone");
    let control = dir.path().join("thread-bomb.control");
    unsandboxed(&pexe, Target::X86_32, &control);
    let out = run_in(
        &control,
        &[&pattern(&control, "__pnacl_clone"), "600"],
        &[],
        dir.path(),
        false,
    );
    assert_eq!(reported(&out), 600, "the control group: {}", describe(&out));
    for as_user in [false, true] {
        let out = run_in(&exe, &[&pat, "3000"], &[], dir.path(), as_user);
        assert!(out.status.success(), "{}", describe(&out));
        assert_eq!(
            reported(&out),
            255,
            "as user: {as_user}: {}",
            describe(&out)
        );
        let env = [("PNACL_MAX_THREADS", "16")];
        let out = run_in(&exe, &[&pat, "3000"], &env, dir.path(), as_user);
        assert_eq!(reported(&out), 15, "as user: {as_user}: {}", describe(&out));
    }
    // A limit that is no number of threads is refused.
    for bad in ["0", "4097", "many", ""] {
        let out = run_in(
            &exe,
            &[&pat, "1"],
            &[("PNACL_MAX_THREADS", bad)],
            dir.path(),
            false,
        );
        assert_eq!(out.status.code(), Some(127), "{bad:?}: {}", describe(&out));
    }
    let pexe = common::attack_pexe(dir.path(), "thread-bomb-irt");
    let exe = dir.path().join("thread-bomb-irt");
    translate(&pexe, Target::X86_32, "-O2", &exe);
    let out = run_in(
        &exe,
        &["100"],
        &[("PNACL_MAX_THREADS", "8")],
        dir.path(),
        false,
    );
    assert_eq!(reported(&out), 7, "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "pnacl runtime: the program reached its limit of 8 threads (PNACL_MAX_THREADS)"
        ),
        "{}",
        describe(&out)
    );
}

/// What Landlock does not judge: stat, access and O_PATH opens by name, and clocks and
/// processes by number. The pexe asking the kernel itself for a host file's status, its
/// access, an O_PATH descriptor, another process's CPU clock or affinity is killed, with a root and without;
/// without a root no name exists at all (the same error for /etc/passwd as for a name
/// that is nowhere). Its own clocks it reads. The control group learns all of it.
#[test]
fn host_metadata_is_out_of_reach() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::attack_pexe(dir.path(), "raw-call");
    let exe = dir.path().join("raw-call");
    translate(&pexe, Target::X86_32, "-O2", &exe);
    let control = dir.path().join("raw-call.control");
    unsandboxed(&pexe, Target::X86_32, &control);
    let root = dir.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    const AT_FDCWD: &str = "0xffffff9c";
    let probes: [(&str, &[&str]); 6] = [
        ("383", &[AT_FDCWD, "@/etc/passwd", "0", "0x7ff", "buf"]), // statx
        ("307", &[AT_FDCWD, "@/etc/passwd", "0"]),                 // faccessat
        ("439", &[AT_FDCWD, "@/etc/passwd", "0", "0"]),            // faccessat2
        ("295", &[AT_FDCWD, "@/etc", "0x200000"]),                 // openat O_PATH
        ("265", &["0xfffffff2", "buf"]), // clock_gettime: pid 1's CPU clock
        ("242", &["1", "128", "buf"]),   // sched_getaffinity: whether pid 1 exists
    ];
    let run = |exe: &Path, nr: &str, args: &[&str], env: &[(&str, &str)]| {
        let pat = pattern(exe, "__pnacl_syscall");
        let mut a = vec![pat.as_str(), nr];
        a.extend_from_slice(args);
        run_in(exe, &a, env, dir.path(), false)
    };
    let root_env = [("PNACL_FS_ROOT", root.to_str().unwrap())];
    for (nr, args) in probes {
        let out = run(&control, nr, args, &[]);
        assert!(
            out.status.code().is_some_and(|c| c < 128),
            "control {nr} {args:?}: {}",
            describe(&out)
        );
        for env in [&[][..], &root_env[..]] {
            let out = run(&exe, nr, args, env);
            if nr == "295" && env.is_empty() {
                // With no root, an open of any name is refused before anything else.
                assert_eq!(
                    out.status.code(),
                    Some(256 - 13),
                    "{args:?}: {}",
                    describe(&out)
                );
            } else {
                assert_eq!(
                    out.status.signal(),
                    Some(SIGSYS),
                    "{nr} {args:?}: {}",
                    describe(&out)
                );
            }
        }
    }
    // No root: every name the same error, there or not.
    for path in ["@/etc/passwd", "@/nowhere-at-all", "@."] {
        let out = run(&exe, "295", &[AT_FDCWD, path, "0"], &[]);
        assert_eq!(
            out.status.code(),
            Some(256 - 13),
            "{path}: {}",
            describe(&out)
        );
    }
    // The program's own clocks: CLOCK_PROCESS_CPUTIME_ID and CLOCK_THREAD_CPUTIME_ID.
    for clock in ["2", "3"] {
        let out = run(&exe, "265", &[clock, "buf"], &[]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "clock {clock}: {}",
            describe(&out)
        );
    }
}

/// The program's environment is what the user hands it (PNACL_ENV_NAME=value becomes
/// NAME=value) and nothing else: not the host's variables, not the runtime's own, and not
/// in memory it can read either (where the same scan finds a value it was handed).
#[test]
fn the_program_sees_only_the_environment_handed_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::attack_pexe(dir.path(), "environ");
    let exe = dir.path().join("environ");
    translate(&pexe, Target::X86_32, "-O2", &exe);
    let token = format!("tok-{}-secret", std::process::id());
    let env = [
        ("HOME", "/root"),
        ("SSH_AUTH_SOCK", token.as_str()),
        ("PNACL_ENV_GREETING", "hello there"),
        ("PNACL_ENV_LANG", "C"),
        ("PNACL_FS_READONLY", "0"),
        ("PNACL_MAX_THREADS", "64"),
    ];
    for (what, found) in [(token.as_str(), "not found"), ("hello there", "found")] {
        // The bytes from argv[1] to the end of the strings the kernel laid out: the
        // arguments after argv[0] (the span's three digits, what to find), then the
        // environment.
        let span = 3
            + 1
            + what.len()
            + 1
            + env
                .iter()
                .map(|(k, v)| k.len() + v.len() + 2)
                .sum::<usize>();
        let out = run_in(&exe, &[&span.to_string(), what], &env, dir.path(), false);
        assert!(out.status.success(), "{}", describe(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("ENV GREETING=hello there\nENV LANG=C\n{found}\n"),
            "{what}"
        );
    }
}

/// A read-only root cannot be emptied through `O_TRUNC`, even with Landlock before its ABI
/// 3 (Linux before 6.2), which cannot refuse truncation: the runtime is built to use ABI
/// 2 at most. Through the IRT the open is refused; asked of the kernel itself, it is killed.
#[test]
fn a_read_only_root_cannot_be_truncated_on_an_older_landlock() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let keep = root.join("keep.txt");
    let env = [
        ("PNACL_FS_ROOT", root.to_str().unwrap()),
        ("PNACL_FS_READONLY", "1"),
    ];
    let files = common::attack_pexe(dir.path(), "irt-files");
    let raw = common::attack_pexe(dir.path(), "raw-call");
    let old = ["-DPNACL_LANDLOCK_ABI_MAX=2"];
    for (pexe, name) in [(&files, "irt-files"), (&raw, "raw-call")] {
        for (flags, tag) in [(&old[..], "abi2"), (&["-DPNACL_NO_SANDBOX"][..], "control")] {
            let exe = dir.path().join(format!("{name}.{tag}"));
            linked_with(pexe, Target::X86_32, &exe, flags);
            std::fs::write(&keep, "precious\n").unwrap();
            let at = format!("@{}", keep.display());
            // O_RDONLY|O_TRUNC: Landlock before ABI 3 judges only the reading.
            let out = if name == "irt-files" {
                run_in(&exe, &["o", "keep.txt", "512", "0"], &env, &root, false)
            } else {
                let pat = pattern(&exe, "__pnacl_syscall");
                run_in(
                    &exe,
                    &[&pat, "295", "0xffffff9c", &at, "512", "0"],
                    &env,
                    &root,
                    false,
                )
            };
            let left = std::fs::read_to_string(&keep).unwrap();
            if tag == "control" {
                // Through the kernel itself, without the sandbox, the file is emptied.
                if name == "raw-call" {
                    assert_eq!(left, "", "{name}: the control group truncates");
                }
                continue;
            }
            assert_eq!(left, "precious\n", "{name}: {}", describe(&out));
            if name == "irt-files" {
                assert_eq!(out.status.code(), Some(13), "{}", describe(&out));
            } else {
                assert_eq!(out.status.signal(), Some(SIGSYS), "{}", describe(&out));
            }
        }
    }
}

/// The outer layer on x86-64 and AArch64, where a pexe cannot make a system call itself
/// (tests/isolation.rs) but the IRT's calls still reach the kernel: nothing made or
/// written in the root is set-id or sticky (a runtime without the sandbox lets root keep
/// a set-uid bit), a read-only root is not emptied through O_TRUNC even with Landlock's
/// ABI 2 (x86-64: under qemu, pnacl-run's own Landlock judges), and a thread bomb stops at
/// the limit, the runtime saying so once. AArch64 runs under pnacl-run.
#[test]
fn on_x86_64_and_aarch64_the_outer_layer_holds_what_the_irt_reaches() {
    let dir = tempfile::tempdir().unwrap();
    let files = common::attack_pexe(dir.path(), "irt-files");
    let bomb = common::attack_pexe(dir.path(), "thread-bomb-irt");
    let root_user = unsafe_getuid() == 0;
    for target in [Target::X86_64, Target::Aarch64] {
        let run = |exe: &Path, args: &[&str], env: &[(&str, &str)], cwd: &Path| {
            if target == Target::Aarch64 {
                pnacl_run(exe, args, env, cwd)
            } else {
                run_in(exe, args, env, cwd, false)
            }
        };
        let files_exe = dir.path().join(format!("irt-files.{target}"));
        translate(&files, target, "-O2", &files_exe);
        let control = dir.path().join(format!("irt-files.{target}.control"));
        unsandboxed(&files, target, &control);
        for (exe, sandboxed) in [(&control, false), (&files_exe, true)] {
            let root = dir.path().join(format!("root.{target}.{sandboxed}"));
            std::fs::create_dir_all(&root).unwrap();
            std::fs::copy("/bin/true", root.join("suid")).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(root.join("suid"), std::fs::Permissions::from_mode(0o4755))
                .unwrap();
            let env = [("PNACL_FS_ROOT", root.to_str().unwrap())];
            for args in [
                &["o", "rootsh", "65", "2541"][..],
                &["m", "sticky", "1023"],
                &["o", "suid", "1", "0"],
            ] {
                let out = if sandboxed {
                    run(exe, args, &env, &root)
                } else {
                    // The control group: the runtime without the sandbox, run as it is
                    // (AArch64: under qemu alone).
                    let mut c = match target.spec().runs {
                        pnacl::target::Runner::Qemu(q) => {
                            let mut c = Command::new(q);
                            c.arg(exe);
                            c
                        }
                        _ => Command::new(exe),
                    };
                    c.args(args)
                        .env_clear()
                        .envs(env)
                        .current_dir(&root)
                        .output()
                        .unwrap()
                };
                assert!(
                    out.status.success(),
                    "{target} {args:?}: {}",
                    describe(&out)
                );
            }
            let bits = ["rootsh", "sticky", "suid"].map(|f| mode_of(&root.join(f)) & 0o7000);
            if sandboxed {
                assert_eq!(
                    bits,
                    [0, 0, 0],
                    "{target}: set-id or sticky bits in the root"
                );
            } else if root_user {
                assert_eq!(bits, [0, 0, 0o4000], "{target}: the control group");
            }
        }
        if target == Target::X86_64 {
            let root = dir.path().join("root.ro");
            std::fs::create_dir_all(&root).unwrap();
            let keep = root.join("keep.txt");
            std::fs::write(&keep, "precious\n").unwrap();
            let exe = dir.path().join("irt-files.x86-64.abi2");
            linked_with(&files, target, &exe, &["-DPNACL_LANDLOCK_ABI_MAX=2"]);
            let env = [
                ("PNACL_FS_ROOT", root.to_str().unwrap()),
                ("PNACL_FS_READONLY", "1"),
            ];
            let out = run(&exe, &["o", "keep.txt", "512", "0"], &env, &root);
            assert_eq!(out.status.code(), Some(13), "{}", describe(&out));
            assert_eq!(std::fs::read_to_string(&keep).unwrap(), "precious\n");
        }
        let exe = dir.path().join(format!("thread-bomb-irt.{target}"));
        translate(&bomb, target, "-O2", &exe);
        let out = run(&exe, &["100"], &[("PNACL_MAX_THREADS", "8")], dir.path());
        assert_eq!(reported(&out), 7, "{target}: {}", describe(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(
                "pnacl runtime: the program reached its limit of 8 threads (PNACL_MAX_THREADS)"
            ),
            "{target}: {}",
            describe(&out)
        );
    }
}

/// Attack 1 from inside a browser plugin, once the PPAPI host runs (its instance, its
/// reader thread): the same sandbox holds. The control group reads the secret.
#[test]
fn a_plugin_is_contained_as_any_pexe() {
    let dir = tempfile::tempdir().unwrap();
    let scene = Scene::new();
    let pexe = common::attack_pexe(dir.path(), "plugin-escape");
    let exe = dir.path().join("plugin-escape");
    translate(&pexe, Target::X86_32, "-O2", &exe);
    let control = dir.path().join("plugin-escape.control");
    unsandboxed(&pexe, Target::X86_32, &control);
    let secret = scene.secret.to_str().unwrap().to_string();
    for (exe, sandboxed) in [(&control, false), (&exe, true)] {
        let pat = pattern(exe, "__pnacl_syscall");
        let out = scene.run(
            exe,
            Target::X86_32,
            &[pat, secret.clone(), "295".into(), "3".into()],
            &[],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("attack: inside the plugin's start"),
            "{}",
            describe(&out)
        );
        assert_eq!(scene.leaked(&out, 0), !sandboxed, "{}", describe(&out));
    }
}

/// pnacl-run runs only what pnacl-translate makes: a program of this machine that no
/// translation made (here, the system's own `true`) is refused, not run uncontained, and
/// so is one whose header says AArch64 (the runtime's note is missing from both), and one
/// for a machine no target has.
#[test]
fn pnacl_run_refuses_programs_that_pnacl_translate_does_not_make() {
    let dir = tempfile::tempdir().unwrap();
    let host = std::fs::read("/bin/true").expect("the system's /bin/true");
    let with_machine = |name: &str, machine: u16| {
        let mut elf = host.clone();
        elf[18..20].copy_from_slice(&machine.to_le_bytes());
        let p = dir.path().join(name);
        std::fs::write(&p, &elf).unwrap();
        p
    };
    let aarch64 = with_machine("aarch64", 183);
    let mips = with_machine("mips", 8);
    for (program, why) in [
        (Path::new("/bin/true"), "a program for x86-64, but not one pnacl-translate makes (its runtime's note is missing)"),
        (aarch64.as_path(), "a program for aarch64, but not one pnacl-translate makes (its runtime's note is missing)"),
        (mips.as_path(), "a program for machine 8, not one pnacl-translate makes (x86-32, arm, x86-64 or aarch64)"),
    ] {
        let out = Command::new(cargo_bin("pnacl-run"))
            .arg(program)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", program.display());
        assert!(err.contains(why), "{}: {err}", program.display());
    }
}
