//! The runtime's sandbox and its handling of unimplemented IRT entries, shown with a small
//! C program linked directly with the runtime (tests/runtime/probe.c), which also plays an
//! attacker that controls the process: it calls the runtime's raw system-call function.
//! The seccomp programs for both architectures are checked here by interpreting them
//! (qemu-arm cannot run the ARM one), against the kernels' system-call numbers.
#![cfg(feature = "llvm")]

use std::path::Path;
use std::process::Command;

use pnacl::llvm::Target;

fn build_probe(dir: &Path) -> std::path::PathBuf {
    build_probe_for(dir, Target::X86_32)
}

fn build_probe_for(dir: &Path, target: Target) -> std::path::PathBuf {
    let objs = pnacl::translate::runtime_objects(target).expect("runtime builds");
    let probe_o = dir.join("probe.o");
    let st = Command::new(which::which(pnacl::tools::CLANG).unwrap())
        .args(pnacl::translate::clang_flags(target))
        .args([
            "-O1",
            "-ffreestanding",
            "-fno-builtin",
            "-fno-pic",
            "-fno-stack-protector",
            "-c",
        ])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/probe.c"))
        .arg("-o")
        .arg(&probe_o)
        .status()
        .unwrap();
    assert!(st.success());
    let exe = dir.join("probe");
    let st = Command::new(which::which(pnacl::tools::LD_LLD).unwrap())
        .args(["-static", "--no-pie", "-e", "_start", "-o"])
        .arg(&exe)
        .arg(&probe_o)
        .args(&objs)
        .status()
        .unwrap();
    assert!(st.success());
    exe
}

#[test]
fn files_are_reachable_only_inside_pnacl_fs_root() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("inside.txt"), "in the root").unwrap();
    std::fs::write(root.join("sub/deeper.txt"), "deeper").unwrap();
    std::fs::write(dir.path().join("outside.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(dir.path(), root.join("link_out")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside.txt"), root.join("link_file")).unwrap();

    // Without PNACL_FS_ROOT every file name is refused (EACCES = 13), even from the
    // directory that holds the files.
    let out = Command::new(&exe)
        .current_dir(&root)
        .env_clear()
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for line in text.lines() {
        assert!(line.ends_with(": error 13"), "without a root: {line}");
    }
    assert_eq!(text.lines().count(), 8);

    // With PNACL_FS_ROOT, names resolve inside it and nowhere else.
    let out = Command::new(&exe)
        .env_clear()
        .env("PNACL_FS_ROOT", &root)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let want = "\
inside.txt: read \"in the root\"
./sub/deeper.txt: read \"deeper\"
sub/../inside.txt: error 13
../outside.txt: error 13
/etc/hostname: error 13
link_out/outside.txt: error 13
link_file: error 13
missing.txt: error 2
";
    assert_eq!(text, want);
    assert!(!text.contains("secret"));
}

#[test]
fn an_unimplemented_irt_entry_says_its_name_and_exits_127() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    let out = Command::new(&exe)
        .arg("rename")
        .env_clear()
        .env("PNACL_ALLOW_UNSANDBOXED", "0")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(127));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "pnacl runtime: IRT function not implemented: rename\n"
    );
    assert!(out.stdout.is_empty());
}

/// The memory functions the pexe's code calls (`llvm.memcpy` and its kin become calls to
/// the runtime's): every length to 80 at every alignment, and every overlap for memmove.
/// On x86-32 and on ARM (under qemu-arm, contained from outside by pnacl-run).
#[test]
fn the_runtime_memory_functions_agree_with_byte_loops() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    let out = probe(&exe, dir.path(), &["memory"], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout(&out), "memory: ok\n", "x86-32: {err}");
    let exe = build_probe_for(dir.path(), Target::Arm);
    let out = Command::new(assert_cmd::cargo::cargo_bin("pnacl-run"))
        .arg(&exe)
        .arg("memory")
        .env_clear()
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout(&out), "memory: ok\n", "ARM: {err}");
}

/// The probe, run with `args` and `env` (nothing else) in `cwd`.
fn probe(exe: &Path, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    Command::new(exe)
        .args(args)
        .env_clear()
        .envs(env.iter().copied())
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const SIGSYS: i32 = 31;

/// An attacker's own system calls reach no file outside the root: not through an absolute
/// path, `..`, a symbolic link inside the root that points out, `..` through such a link,
/// `/proc/self/mem` or `/proc/self/fd`; nor any file at all with no root; and the root may
/// be given as a relative path.
#[test]
fn raw_system_calls_reach_no_file_outside_the_root() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("inside.txt"), "in the root").unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("link_out")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("link_file")).unwrap();
    let secret = outside.join("secret.txt");
    let secret = secret.to_str().unwrap();
    let root_s = root.to_str().unwrap();
    let denied = |o: &std::process::Output, what: &str| {
        let t = stdout(o);
        assert!(o.status.success(), "{what}: {t} {:?}", o.status);
        assert!(
            t.ends_with(": error 13\n") && !t.contains("secret\""),
            "{what}: {t}"
        );
    };
    // No root: nothing at all, not even inside the directory it runs in.
    for path in [secret, "inside.txt", "/proc/self/mem", "/etc/passwd"] {
        denied(&probe(&exe, &root, &["raw", path], &[]), path);
    }
    // A root: only beneath it.
    let env = [("PNACL_FS_ROOT", root_s)];
    for path in [secret, "/proc/self/mem", "../outside/secret.txt"] {
        denied(&probe(&exe, &root, &["raw", path], &env), path);
    }
    // /proc/self/fd/0 names the file standard input reads (outside the root) by its path:
    // refused too. (Its pipes and sockets are the program's own streams, given anyway.)
    for env in [&[][..], &env[..]] {
        let o = Command::new(&exe)
            .args(["raw", "/proc/self/fd/0"])
            .env_clear()
            .envs(env.iter().copied())
            .stdin(std::fs::File::open(outside.join("secret.txt")).unwrap())
            .output()
            .unwrap();
        denied(&o, "/proc/self/fd/0");
    }
    for path in [
        "../outside/secret.txt",
        "link_out/secret.txt",
        "link_file",
        "link_out/../outside/secret.txt",
        "link_out/../root/link_out/secret.txt",
    ] {
        denied(&probe(&exe, &root, &["rawroot", path], &env), path);
    }
    let o = probe(&exe, &root, &["rawroot", "inside.txt"], &env);
    assert_eq!(stdout(&o), "inside.txt: read \"in the root\"\n");
    // A relative root resolves against the directory the program starts in.
    let env = [("PNACL_FS_ROOT", "root")];
    let o = probe(&exe, dir.path(), &["rawroot", "inside.txt"], &env);
    assert_eq!(stdout(&o), "inside.txt: read \"in the root\"\n");
    denied(
        &probe(&exe, dir.path(), &["raw", secret], &env),
        "relative root",
    );
    // Making a hard link to a file outside is no system call the program may make.
    let linkat = "303";
    let o = probe(
        &exe,
        dir.path(),
        &["call", linkat, "-100", "0", "-100"],
        &env,
    );
    assert_eq!(o.status.signal(), Some(SIGSYS), "{}", stdout(&o));
}

/// With PNACL_FS_READONLY=1 the root can be read and not written.
#[test]
fn a_read_only_root_cannot_be_written() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    let root = dir.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("inside.txt"), "in the root").unwrap();
    let r = root.to_str().unwrap();
    let o = probe(&exe, &root, &["write", "new.txt"], &[("PNACL_FS_ROOT", r)]);
    assert_eq!(stdout(&o), "new.txt: written\n");
    assert!(root.join("new.txt").exists());
    let env = [("PNACL_FS_ROOT", r), ("PNACL_FS_READONLY", "1")];
    let o = probe(&exe, &root, &["write", "other.txt"], &env);
    assert_eq!(stdout(&o), "other.txt: error 13\n");
    assert!(!root.join("other.txt").exists());
    let o = probe(&exe, &root, &["rawroot", "inside.txt"], &env);
    assert_eq!(stdout(&o), "inside.txt: read \"in the root\"\n");
}

/// A descriptor the parent left open (not close-on-exec) is closed before the program runs.
#[test]
fn descriptors_inherited_from_the_parent_are_closed() {
    use std::os::unix::io::AsRawFd;
    use std::os::unix::process::CommandExt;
    extern "C" {
        fn dup2(old: i32, new: i32) -> i32;
    }
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    std::fs::write(dir.path().join("secret.txt"), "secret").unwrap();
    let file = std::fs::File::open(dir.path().join("secret.txt")).unwrap();
    let fd = file.as_raw_fd();
    let mut c = Command::new(&exe);
    c.args(["readfd", "7"]).env_clear();
    // SAFETY: dup2 is async-signal-safe; it makes descriptor 7 an inheritable copy.
    unsafe {
        c.pre_exec(move || {
            if dup2(fd, 7) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let o = c.output().unwrap();
    assert_eq!(stdout(&o), "7: read error 9\n");
}

/// Threads racing the IRT's path check cannot win: while the test swaps `d` in the root
/// between a directory and a symbolic link to one outside, thousands of opens of `d/x`
/// read only the inside file.
#[test]
fn a_race_on_a_path_inside_the_root_cannot_lead_out() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(root.join("real")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("real/x"), "inside").unwrap();
    std::fs::write(outside.join("x"), "secret").unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flipper = {
        let (root, outside, stop) = (root.clone(), outside.clone(), stop.clone());
        std::thread::spawn(move || {
            let d = root.join("d");
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::remove_file(&d);
                let _ = std::os::unix::fs::symlink(root.join("real"), &d);
                let _ = std::fs::remove_file(&d);
                let _ = std::os::unix::fs::symlink(&outside, &d);
            }
        })
    };
    let o = probe(
        &exe,
        &root,
        &["race", "d/x", "20000"],
        &[("PNACL_FS_ROOT", root.to_str().unwrap())],
    );
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    flipper.join().unwrap();
    let t = stdout(&o);
    assert!(t.ends_with("done\n"), "{t}");
    assert!(!t.contains("secret"), "the race led out of the root");
}

/// Calls outside the policy end the process with SIGSYS; the ones the runtime makes do not.
#[test]
fn forbidden_system_calls_end_the_process_with_sigsys() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    // i386 numbers: execve, fork, socketcall, socket, ptrace, setuid32, personality,
    // process_vm_readv, kill, open, mprotect with PROT_EXEC, mmap2 with PROT_EXEC, prctl,
    // unshare.
    let calls: [&[&str]; 14] = [
        &["11", "0", "0", "0"],
        &["2", "0", "0", "0"],
        &["102", "1", "0", "0"],
        &["359", "2", "1", "0"],
        &["26", "0", "1", "0"],
        &["213", "0", "0", "0"],
        &["136", "4194304", "0", "0"],
        &["347", "1", "0", "0"],
        &["37", "1", "9", "0"],
        &["5", "0", "0", "0"],
        &["125", "0", "4096", "7"],
        &["192", "0", "4096", "7"],
        &["172", "38", "0", "0"],
        &["310", "268435456", "0", "0"],
    ];
    for c in calls {
        let mut args = vec!["call"];
        args.extend_from_slice(c);
        let o = probe(&exe, dir.path(), &args, &[]);
        assert_eq!(o.status.signal(), Some(SIGSYS), "{c:?}: {}", stdout(&o));
        assert!(o.stdout.is_empty(), "{c:?} returned: {}", stdout(&o));
    }
    // No other process's existence can be learnt: sched_getaffinity of init (alive), of
    // this test's own process (alive, another process than the probe), of a pid no
    // process has: each ends the program the same way.
    let me = std::process::id().to_string();
    for pid in ["1", me.as_str(), "4194304"] {
        let o = probe(&exe, dir.path(), &["call", "242", pid, "0", "0"], &[]);
        assert_eq!(
            o.status.signal(),
            Some(SIGSYS),
            "affinity of {pid}: {}",
            stdout(&o)
        );
    }
    // getpid is the runtime's; mprotect without PROT_EXEC too (it fails here, harmlessly);
    // sched_getaffinity of the program itself (pid 0) is the runtime's processor count.
    for c in [
        ["20", "0", "0", "0"],
        ["125", "0", "4096", "3"],
        ["242", "0", "0", "0"],
    ] {
        let mut args = vec!["call"];
        args.extend_from_slice(&c);
        let o = probe(&exe, dir.path(), &args, &[]);
        assert!(o.status.success(), "{c:?}: {:?}", o.status);
        assert!(stdout(&o).starts_with("returned "));
    }
}

/// One seccomp-bpf instruction.
#[derive(Clone, Copy, Debug)]
struct Insn {
    code: u16,
    jt: u8,
    jf: u8,
    k: u32,
}

/// Runs a seccomp program on a call (arch, nr, six arguments): its verdict.
fn bpf_run(prog: &[Insn], arch: u32, nr: u32, args: [u32; 6]) -> u32 {
    let word = |off: u32| -> u32 {
        match off {
            0 => nr,
            4 => arch,
            8 | 12 => 0,
            o if (16..64).contains(&o) && o % 8 == 0 => args[((o - 16) / 8) as usize],
            o if (16..64).contains(&o) => 0, // high words
            o => panic!("load of offset {o}"),
        }
    };
    let (mut a, mut pc) = (0u32, 0usize);
    loop {
        let i = prog[pc];
        pc += 1;
        match i.code {
            0x20 => a = word(i.k),
            0x15 => pc += if a == i.k { i.jt } else { i.jf } as usize,
            0x45 => pc += if a & i.k != 0 { i.jt } else { i.jf } as usize,
            0x35 => pc += if a >= i.k { i.jt } else { i.jf } as usize,
            0x06 => return i.k,
            c => panic!("instruction {c:#x}"),
        }
    }
}

/// The seccomp program for `arch` with the probe's further arguments (`"1"` for a root, then
/// `"1"` for read-only; or `"keeper"`).
fn filter(exe: &Path, arch: &str, more: &[&str]) -> Vec<Insn> {
    let mut args = vec!["filter", arch];
    args.extend_from_slice(more);
    let o = probe(exe, Path::new("/"), &args, &[]);
    assert!(o.status.success());
    stdout(&o)
        .lines()
        .map(|l| {
            let v: Vec<u32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            Insn {
                code: v[0] as u16,
                jt: v[1] as u8,
                jf: v[2] as u8,
                k: v[3],
            }
        })
        .collect()
}

/// The four architectures the runtime is built for: name (the probe's), the kernel's audit
/// number, and whether it is a region target (x86-64, AArch64: CLONE_SETTLS, sigaltstack).
const ARCHES: [(&str, u32, bool); 4] = [
    ("i386", 0x40000003, false),
    ("arm", 0x40000028, false),
    ("x86-64", 0xc000003e, true),
    ("aarch64", 0xc00000b7, true),
];

/// A call's numbers on i386, ARM, x86-64 and AArch64 (None: it has none there).
type Numbers = [Option<u32>; 4];
const N: Option<u32> = None;
const fn n(i386: u32, arm: u32, x86_64: u32, aarch64: u32) -> Numbers {
    [Some(i386), Some(arm), Some(x86_64), Some(aarch64)]
}

/// The seccomp programs of all four architectures, run on the kernels' own numbers: each
/// call the runtime makes is allowed with the arguments it uses; the dangerous arguments,
/// the calls of a list of what a sandboxed program must not do, unknown numbers and the
/// other architectures' calls are killed.
#[test]
fn the_seccomp_policies_allow_exactly_the_runtimes_calls_on_every_architecture() {
    const ALLOW: u32 = 0x7fff0000;
    const KILL: u32 = 0x80000000;
    const THREAD: u32 = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x200000;
    const SETTLS: u32 = 0x80000;
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    // What the runtime calls.
    let allowed: [(&str, Numbers); 32] = [
        ("restart_syscall", n(0, 0, 219, 128)),
        ("exit", n(1, 1, 60, 93)),
        ("read", n(3, 3, 0, 63)),
        ("write", n(4, 4, 1, 64)),
        ("close", n(6, 6, 3, 57)),
        ("getpid", n(20, 20, 39, 172)),
        ("dup", n(41, 41, 32, 23)),
        ("dup2", [Some(63), Some(63), Some(33), N]),
        ("dup3", [N, N, N, Some(24)]),
        ("munmap", n(91, 91, 11, 215)),
        ("_llseek", [Some(140), Some(140), N, N]),
        ("lseek", [N, N, Some(8), Some(62)]),
        ("sched_yield", n(158, 158, 24, 124)),
        ("nanosleep", n(162, 162, 35, 101)),
        ("getdents64", n(220, 217, 217, 61)),
        ("futex", n(240, 240, 202, 98)),
        ("sched_getaffinity", n(242, 242, 204, 123)),
        ("exit_group", n(252, 248, 231, 94)),
        ("clock_gettime", n(265, 263, 228, 113)),
        ("clock_getres", n(266, 264, 229, 114)),
        ("openat", n(295, 322, 257, 56)),
        ("mkdirat", n(296, 323, 258, 34)),
        ("unlinkat", n(301, 328, 263, 35)),
        ("getrandom", n(355, 384, 318, 278)),
        ("fstat64", [Some(197), Some(197), N, N]),
        ("fstat", [N, N, Some(5), Some(80)]),
        ("ioctl", n(54, 54, 16, 29)),
        ("mmap2", [Some(192), Some(192), N, N]),
        ("mmap", [N, N, Some(9), Some(222)]),
        ("mprotect", n(125, 125, 10, 226)),
        ("clone", n(120, 120, 56, 220)),
        ("sigaltstack", [N, N, Some(131), Some(132)]),
    ];
    // What no sandboxed program may do (name-based calls that Landlock does not judge
    // among them; on the 32-bit targets, signal stacks too).
    let forbidden: [(&str, Numbers); 33] = [
        ("fork", [Some(2), Some(2), Some(57), N]),
        ("open", [Some(5), Some(5), Some(2), N]),
        ("execve", n(11, 11, 59, 221)),
        ("mount", n(21, 21, 165, 40)),
        ("ptrace", n(26, 26, 101, 117)),
        ("kill", n(37, 37, 62, 129)),
        ("chroot", n(61, 61, 161, 51)),
        ("socketcall", [Some(102), Some(102), N, N]),
        ("personality", n(136, 136, 135, 92)),
        ("mremap", n(163, 163, 25, 216)),
        ("prctl", n(172, 172, 157, 167)),
        ("vfork", [Some(190), Some(190), Some(58), N]),
        ("setuid", n(213, 213, 105, 146)),
        ("socket", n(359, 281, 41, 198)),
        ("connect", n(362, 283, 42, 203)),
        ("renameat", n(302, 329, 264, 38)),
        ("linkat", n(303, 330, 265, 37)),
        ("symlinkat", n(304, 331, 266, 36)),
        ("unshare", n(310, 337, 272, 97)),
        ("process_vm_readv", n(347, 376, 310, 270)),
        ("seccomp", n(354, 383, 317, 277)),
        ("execveat", n(358, 387, 322, 281)),
        ("statx", n(383, 397, 332, 291)),
        ("faccessat", n(307, 334, 269, 48)),
        ("faccessat2", n(439, 439, 439, 439)),
        ("stat", n(195, 195, 262, 79)),
        ("capset", n(185, 185, 126, 91)),
        ("clock_settime", n(264, 262, 227, 112)),
        ("rt_sigaction", n(174, 174, 13, 134)),
        ("sigaltstack", [Some(186), Some(186), N, N]),
        ("arch_prctl", [N, N, Some(158), N]),
        ("landlock_restrict_self", n(446, 446, 446, 446)),
        ("rt_sigreturn", n(173, 173, 15, 139)),
    ];
    for (k, (arch, audit, region)) in ARCHES.into_iter().enumerate() {
        let prog = filter(&exe, arch, &["1"]);
        let run = |n: u32, args: [u32; 6]| bpf_run(&prog, audit, n, args);
        let clone_flags = if region { THREAD | SETTLS } else { THREAD };
        for (name, nrs) in allowed {
            let Some(nr) = nrs[k] else { continue };
            let args = match name {
                "ioctl" => [1, 0x5401, 0, 0, 0, 0],
                "mmap2" | "mmap" => [0, 4096, 3, 0x22, u32::MAX, 0],
                "mprotect" => [0, 4096, 0, 0, 0, 0],
                "clone" => [clone_flags, 0, 0, 0, 0, 0],
                "futex" => [0, 128, 0, 0, 0, 0],
                _ => [0; 6],
            };
            assert_eq!(run(nr, args), ALLOW, "{arch}: {name}");
            // From another architecture's numbering, nothing passes.
            for (other, other_audit, _) in ARCHES {
                if other != arch {
                    assert_eq!(
                        bpf_run(&prog, other_audit, nr, args),
                        KILL,
                        "{arch}: {name} as {other}"
                    );
                }
            }
        }
        let nr = |name: &str| allowed.iter().find(|a| a.0 == name).unwrap().1[k];
        let mmap = nr("mmap2").or(nr("mmap")).unwrap();
        let mprotect = nr("mprotect").unwrap();
        for prot in [4, 5, 7] {
            assert_eq!(
                run(mmap, [0, 4096, prot, 0x22, u32::MAX, 0]),
                KILL,
                "{arch} mmap {prot}"
            );
            assert_eq!(
                run(mprotect, [0, 4096, prot, 0, 0, 0]),
                KILL,
                "{arch} mprotect {prot}"
            );
        }
        let clone = nr("clone").unwrap();
        for flags in [
            clone_flags & !0x10000,
            clone_flags | 0x20000000,
            clone_flags ^ SETTLS,
            0x11, /* fork's SIGCHLD */
        ] {
            assert_eq!(
                run(clone, [flags, 0, 0, 0, 0, 0]),
                KILL,
                "{arch} clone {flags:#x}"
            );
        }
        // TIOCSTI (0x5412) would type into the terminal.
        let ioctl = nr("ioctl").unwrap();
        assert_eq!(run(ioctl, [0, 0x5412, 0, 0, 0, 0]), KILL, "{arch} TIOCSTI");
        for (name, nrs) in forbidden {
            if let Some(n) = nrs[k] {
                assert_eq!(run(n, [0; 6]), KILL, "{arch}: {name}");
            }
        }
        for n in [400, 450, 1000, 0xf0005, 0x40000000, u32::MAX] {
            assert_eq!(run(n, [0; 6]), KILL, "{arch}: {n}");
        }
    }
}

/// The arguments that matter, on all four architectures: no name at all without a root
/// (an error, so that no name's existence shows either); with one, no `O_PATH` or
/// `O_TMPFILE` open, no set-uid, set-gid or sticky mode, no `O_TRUNC` in a read-only root;
/// only the system clocks and the caller's own; only the runtime's futex operations and
/// mmap flags; and the thread keeper's filter sends clone and exit, and only those, to the
/// keeper.
#[test]
fn the_seccomp_policies_check_names_modes_clocks_futexes_and_mappings() {
    const ALLOW: u32 = 0x7fff0000;
    const KILL: u32 = 0x80000000;
    const EACCES: u32 = 0x00050000 | 13;
    const NOTIFY: u32 = 0x7fc00000;
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    for (k, (arch, audit, _)) in ARCHES.into_iter().enumerate() {
        let pick = |n: [u32; 4]| n[k];
        // O_DIRECTORY and O_NOFOLLOW differ, O_PATH and O_TMPFILE do not.
        let openat = pick([295, 322, 257, 56]);
        let mkdirat = pick([296, 323, 258, 34]);
        let unlinkat = pick([301, 328, 263, 35]);
        let (gettime, getres) = (pick([265, 263, 228, 113]), pick([266, 264, 229, 114]));
        let affinity = pick([242, 242, 204, 123]);
        let futex = pick([240, 240, 202, 98]);
        let mmap = pick([192, 192, 9, 222]);
        let (clone, exit, exit_group) = (
            pick([120, 120, 56, 220]),
            pick([1, 1, 60, 93]),
            pick([252, 248, 231, 94]),
        );
        let none = filter(&exe, arch, &["0"]);
        let rw = filter(&exe, arch, &["1", "0"]);
        let ro = filter(&exe, arch, &["1", "1"]);
        let run = |p: &[Insn], n: u32, args: [u32; 6]| bpf_run(p, audit, n, args);
        for n in [openat, mkdirat, unlinkat] {
            assert_eq!(run(&none, n, [0; 6]), EACCES, "{arch} {n} without a root");
            assert_eq!(run(&rw, n, [0; 6]), ALLOW, "{arch} {n} with a root");
        }
        // openat(dir, name, flags, mode)
        let open = |p: &[Insn], flags: u32, mode: u32| run(p, openat, [3, 0, flags, mode, 0, 0]);
        assert_eq!(open(&rw, 0o101, 0o644), ALLOW, "{arch} O_CREAT 0644");
        assert_eq!(open(&rw, 0o1001, 0), ALLOW, "{arch} O_TRUNC");
        assert_eq!(open(&ro, 0o1001, 0), KILL, "{arch} O_TRUNC read-only");
        assert_eq!(open(&ro, 0, 0), ALLOW, "{arch} read read-only");
        for bad in [0o10000000, 0o20000000, 0o20200000] {
            assert_eq!(open(&rw, bad, 0), KILL, "{arch} O_PATH/O_TMPFILE {bad:o}");
        }
        for mode in [0o4755, 0o2755, 0o1777] {
            assert_eq!(open(&rw, 0o101, mode), KILL, "{arch} open mode {mode:o}");
            assert_eq!(
                run(&rw, mkdirat, [3, 0, mode, 0, 0, 0]),
                KILL,
                "{arch} mkdir {mode:o}"
            );
        }
        assert_eq!(run(&rw, mkdirat, [3, 0, 0o755, 0, 0, 0]), ALLOW);
        // Clocks 0-7; another process's CPU clock is (~pid << 3) | type, negative.
        for call in [gettime, getres] {
            for c in 0..8 {
                assert_eq!(
                    run(&rw, call, [c, 0, 0, 0, 0, 0]),
                    ALLOW,
                    "{arch} clock {c}"
                );
            }
            for c in [8, 11, (!1u32) << 3, ((!1234u32) << 3) | 2, u32::MAX] {
                assert_eq!(
                    run(&rw, call, [c, 0, 0, 0, 0, 0]),
                    KILL,
                    "{arch} clock {c:#x}"
                );
            }
        }
        // sched_getaffinity(pid, len, mask): the caller's own only (pid 0), so that no other
        // process's existence can be probed.
        assert_eq!(
            run(&rw, affinity, [0, 128, 0, 0, 0, 0]),
            ALLOW,
            "{arch} affinity 0"
        );
        for pid in [1, 2, 1234, u32::MAX] {
            assert_eq!(
                run(&rw, affinity, [pid, 128, 0, 0, 0, 0]),
                KILL,
                "{arch} affinity of {pid}"
            );
        }
        // futex(addr, op, ...): the runtime's private wait, wake and absolute wait only.
        for op in [128, 129, 9 | 128 | 256] {
            assert_eq!(
                run(&rw, futex, [0, op, 0, 0, 0, 0]),
                ALLOW,
                "{arch} futex {op}"
            );
        }
        for op in [0, 1, 3, 4, 5, 6, 128 | 3, 128 | 6, 128 | 12, 9 | 256] {
            assert_eq!(
                run(&rw, futex, [0, op, 0, 0, 0, 0]),
                KILL,
                "{arch} futex {op}"
            );
        }
        // mmap(addr, len, prot, flags, fd, off)
        for flags in [0x22, 0x4022, 0x01, 0x12, 0x32] {
            assert_eq!(
                run(&rw, mmap, [0, 4096, 3, flags, 0, 0]),
                ALLOW,
                "{arch} mmap {flags:#x}"
            );
        }
        for flags in [0x100 | 0x22, 0x40000 | 0x22, 0x8000 | 0x22, 0x100000 | 0x22] {
            assert_eq!(
                run(&rw, mmap, [0, 4096, 3, flags, 0, 0]),
                KILL,
                "{arch} mmap {flags:#x}"
            );
        }
        // The keeper's filter.
        let keeper = filter(&exe, arch, &["keeper"]);
        assert_eq!(run(&keeper, clone, [0; 6]), NOTIFY, "{arch} keeper clone");
        assert_eq!(run(&keeper, exit, [0; 6]), NOTIFY, "{arch} keeper exit");
        for n in [0, 3, 4, exit_group, futex, openat] {
            if n != clone && n != exit {
                assert_eq!(run(&keeper, n, [0; 6]), ALLOW, "{arch} keeper {n}");
            }
        }
        for (other, other_audit, _) in ARCHES {
            if other != arch {
                assert_eq!(
                    bpf_run(&keeper, other_audit, clone, [0; 6]),
                    ALLOW,
                    "{arch} keeper as {other}"
                );
            }
        }
    }
}

/// The Landlock rule set handles what each ABI can judge, and beneath the root allows
/// reading (and, unless read-only, writing, making and removing files and directories),
/// never executing, making devices, sockets, pipes or links.
#[test]
fn the_landlock_rule_sets_by_abi() {
    let dir = tempfile::tempdir().unwrap();
    let exe = build_probe(dir.path());
    let get = |abi: u32, ro: u32| -> Vec<u64> {
        let o = probe(
            &exe,
            Path::new("/"),
            &["ruleset", &abi.to_string(), &ro.to_string()],
            &[],
        );
        stdout(&o)
            .trim()
            .split(' ')
            .map(|x| x.parse().unwrap())
            .collect()
    };
    const READ: u64 = (1 << 2) | (1 << 3);
    const WRITE: u64 = (1 << 1) | (1 << 4) | (1 << 5) | (1 << 7) | (1 << 8);
    const TRUNCATE: u64 = 1 << 14;
    assert_eq!(get(1, 0), [0x1fff, 0, 0, READ | WRITE, 8]);
    assert_eq!(get(3, 0), [0x7fff, 0, 0, READ | WRITE | TRUNCATE, 8]);
    assert_eq!(get(4, 0), [0x7fff, 3, 0, READ | WRITE | TRUNCATE, 16]);
    assert_eq!(get(5, 0), [0xffff, 3, 0, READ | WRITE | TRUNCATE, 16]);
    assert_eq!(get(7, 0), [0xffff, 3, 3, READ | WRITE | TRUNCATE, 24]);
    assert_eq!(get(7, 1), [0xffff, 3, 3, READ, 24]);
}
