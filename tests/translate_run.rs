//! Every program of ../shared/pexes/run, translated for x86-32 and x86-64 (run natively)
//! and ARM and AArch64 (run under qemu, contained by pnacl-run), at -O0 and -O2, prints
//! exactly its .stdout and exits with status 0.
#![cfg(feature = "llvm")]

mod common;

use std::os::unix::process::CommandExt;
use std::process::Command;

use pnacl::llvm::codegen::OptLevel;
use pnacl::llvm::Target;
use pnacl::translate::{translate, Options};

fn run(target: Target, exe: &std::path::Path, argv: &[String]) -> std::process::Output {
    let mut cmd = match target.spec().runs {
        // Under qemu, contained from outside by pnacl-run (qemu passes no sandbox to its
        // guest; tests/containment.rs), which hands it only PNACL_ variables.
        pnacl::target::Runner::Qemu(_) => {
            let mut c = Command::new(assert_cmd::cargo::cargo_bin("pnacl-run"));
            c.arg(exe).env_clear().env("PNACL_ARGV0", &argv[0]);
            c
        }
        _ => {
            let mut c = Command::new(exe);
            c.arg0(&argv[0]).env_clear();
            c
        }
    };
    cmd.args(&argv[1..]);
    cmd.output().expect("the program runs")
}

/// The translation's options for `target` at `opt` (verified, two partitions).
fn options(target: Target, opt: OptLevel) -> Options {
    Options {
        target,
        opt,
        threads: 2,
        verify: true,
        ssa_checked: false,
        progress: Default::default(),
    }
}

/// Translates `m` for `target` at `opt` into `exe`, runs it, and describes what went wrong
/// (nothing: `None`).
fn translate_and_run(
    m: &pnacl::ir::Module,
    target: Target,
    opt: OptLevel,
    exe: &std::path::Path,
    argv: &[String],
    want: &[u8],
) -> Option<String> {
    if let Err(e) = translate(m, &options(target, opt), exe) {
        return Some(format!("translation failed: {e}"));
    }
    let out = run(target, exe, argv);
    (out.stdout != want || !out.status.success()).then(|| {
        format!(
            "status {:?}, stdout {} bytes (want {}), stderr: {}",
            out.status.code(),
            out.stdout.len(),
            want.len(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn run_programs_print_their_stdout_on_every_native_target_at_o0_and_o2() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for p in common::pexes("run") {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let m = pnacl::bitcode::read(&std::fs::read(&p).unwrap()).unwrap();
        let (argv, want) = common::expectations(&p);
        for target in [Target::X86_32, Target::Arm, Target::X86_64, Target::Aarch64] {
            for (opt, o) in [(OptLevel::O0, "O0"), (OptLevel::O2, "O2")] {
                let exe = dir.path().join(format!("{name}-{target}-{o}"));
                if let Some(f) = translate_and_run(&m, target, opt, &exe, &argv, &want) {
                    failures.push(format!("{name} {target} -{o}: {f}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The writer checked by execution: every run/ program taken through pnacl-llvm's le32
/// module (as LLVM bitcode), frozen back into a pexe, read and translated, still prints
/// its .stdout, on x86-32 and on ARM.
#[test]
fn round_tripped_run_programs_still_print_their_stdout() {
    use inkwell::context::Context;
    use pnacl::llvm::{export, import, ExportOptions};
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for p in common::pexes("run") {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let m = pnacl::bitcode::read(&std::fs::read(&p).unwrap()).unwrap();
        let ctx = Context::create();
        let bc = export(&ctx, &m, &ExportOptions::whole(Target::Le32))
            .unwrap()
            .write_bitcode_to_memory();
        let ctx2 = Context::create();
        let ll = pnacl::llvm::parse_ir(&ctx2, bc.as_slice(), &name).unwrap();
        let frozen = pnacl::bitcode::write(&import(&ll).unwrap()).unwrap();
        let m2 = pnacl::bitcode::read(&frozen).unwrap();
        let (argv, want) = common::expectations(&p);
        for target in [Target::X86_32, Target::Arm] {
            let exe = dir.path().join(format!("{name}-{target}-rt"));
            if let Some(f) = translate_and_run(&m2, target, OptLevel::O2, &exe, &argv, &want) {
                failures.push(format!("{name} {target}: {f}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A program's second thread ends it (exit(7), "bye" on standard output) while its first
/// spins or waits on a futex no one wakes, also when a third thread started it: it ends at
/// once, with that status and output (tests/attacks/thread-exit.ll; the same under node in
/// tests/wasm.rs).
#[test]
fn a_thread_ends_the_program_whatever_the_first_thread_does() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::attack_pexe(dir.path(), "thread-exit");
    let m = pnacl::bitcode::read(&std::fs::read(&pexe).unwrap()).unwrap();
    for mode in ["spin", "wait", "nested"] {
        let exe = dir.path().join(format!("thread-exit-{mode}"));
        translate(&m, &options(Target::X86_32, OptLevel::O2), &exe).unwrap();
        let out = Command::new("timeout")
            .arg("20")
            .arg(&exe)
            .arg(mode)
            .env_clear()
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(7), "{mode}: {out:?}");
        assert_eq!(out.stdout, b"bye\n", "{mode}");
    }
}

/// `pexe` translated by pnacl-translate for `arch` at `opt` into `dir`, and the command that
/// runs it there (ARM under pnacl-run, wasm32 under node).
fn translated(pexe: &std::path::Path, arch: &str, opt: &str, dir: &std::path::Path) -> Command {
    let stem = pexe.file_stem().unwrap().to_string_lossy();
    let ext = if arch == "wasm32" { ".mjs" } else { "" };
    let exe = dir.join(format!("{stem}-{arch}{opt}{ext}"));
    let st = Command::new(assert_cmd::cargo::cargo_bin("pnacl-translate"))
        .args([opt, "--arch", arch])
        .arg(pexe)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(st.success(), "{arch} {opt}: translation failed");
    let mut c = match arch {
        "arm" => Command::new(assert_cmd::cargo::cargo_bin("pnacl-run")),
        "wasm32" => Command::new(pnacl::tools::NODE),
        _ => return Command::new(&exe),
    };
    c.arg(&exe);
    c
}

/// Conversions between 64-bit integers and floating point, which code generation leaves to
/// the runtime's helpers (tests/runtime/conversions.ll), give what Rust's `as` gives, on
/// x86-32, on ARM (where the run-time ABI's __aeabi_l2d and its kin take and return
/// floating point in core registers: before, ARM got garbage) and in WebAssembly.
#[test]
fn conversions_between_64_bit_integers_and_floats_agree_on_every_target() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/conversions.ll");
    let pexe = common::prelude_pexe(dir.path(), &src);
    let n: u64 = 3;
    let a = (n as i64).wrapping_mul(-1_000_000_007_000);
    let b = (n << 60) | 12345;
    let want: String = [
        a as u64,
        b,
        (a as f64).to_bits(),
        (b as f64).to_bits(),
        (a as f32).to_bits() as u64,
        (b as f32).to_bits() as u64,
        ((a as f64) * 1.5) as i64 as u64,
        (b as f64) as u64,
        (a as f32) as i64 as u64,
        (b as f32) as u64,
    ]
    .iter()
    .map(|v| format!("{v:016x}\n"))
    .collect();
    for (arch, opt) in [
        ("x86-32", "-O0"),
        ("x86-32", "-O2"),
        ("arm", "-O0"),
        ("arm", "-O2"),
        ("wasm32", "-O2"),
    ] {
        let mut cmd = translated(&pexe, arch, opt, dir.path());
        let out = cmd.arg(n.to_string()).env_clear().output().unwrap();
        assert!(out.status.success(), "{arch} {opt}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), want, "{arch} {opt}");
    }
}

/// `pexe` translated for `arch` at `opt` and run with `arg` and `PNACL_STATS=1`: its
/// standard error (where the prelude prints) without the count of hand-overs the
/// WebAssembly runtime prints at the end, and that count.
fn run_counting_hand_overs(
    pexe: &std::path::Path,
    arch: &str,
    opt: &str,
    dir: &std::path::Path,
    arg: &str,
) -> (String, Option<u32>) {
    let out = translated(pexe, arch, opt, dir)
        .arg(arg)
        .env_clear()
        .env("PNACL_STATS", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{arch} {opt}: {out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    match stderr.rsplit_once("pnacl: ") {
        Some((rest, line)) => {
            let n = line
                .strip_suffix(" hand-overs to new calls\n")
                .unwrap_or_else(|| panic!("not the hand-over count: {line:?}"));
            (rest.to_string(), Some(n.parse().unwrap()))
        }
        None => (stderr, None),
    }
}

/// A call that loops long goes on with its state when it hands over to a new call of its
/// function (WebAssembly's resume points, src/llvm/resume.rs; tests/runtime/resume.ll):
/// an i64, a double, a float and a vector carried around a loop, values from before it,
/// a stack array both loops change, a second loop after the first, an inner loop. Each
/// value is what Rust computes, on x86-32 and in WebAssembly at -O0 (no resume points)
/// and -O2, where the run handed over many times (`PNACL_STATS=1`), and a callee's frame
/// sits where it sat at the first iteration (a hand-over is a tail call: the stack does
/// not grow).
#[test]
fn a_long_loop_hands_over_to_a_new_call_with_all_its_state() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/resume.ll");
    let pexe = common::prelude_pexe(dir.path(), &src);
    let n: u32 = 100_000;
    let k = n.wrapping_mul(3);
    let (mut acc, mut d, mut f) = (1u64, 0f64, 0f32);
    for i in 0..n {
        acc = acc
            .wrapping_mul(6364136223846793005)
            .wrapping_add(u64::from(36 + k));
        d += f64::from(i & 7);
        f += (i & 3) as f32;
    }
    let mut t = k;
    for m in 0..n {
        t = t.wrapping_mul(5).wrapping_add(m) ^ k;
    }
    let values = [
        acc as u32,
        (acc >> 32) as u32,
        d as u32,
        f as u32,
        n,
        2 * n,
        3 * n,
        n.wrapping_mul(k),
        t,
        36 + n,
        0,
    ];
    let want: String = values.iter().map(|v| format!("{v}\n")).collect();
    for (arch, opt) in [("x86-32", "-O2"), ("wasm32", "-O0"), ("wasm32", "-O2")] {
        let (text, count) = run_counting_hand_overs(&pexe, arch, opt, dir.path(), &n.to_string());
        assert_eq!(text, want, "{arch} {opt}");
        match (arch, opt) {
            ("wasm32", "-O2") => assert!(count.unwrap() >= 10, "{count:?}"),
            ("wasm32", _) => assert_eq!(count, Some(0)),
            _ => assert_eq!(count, None),
        }
    }
}

/// A hand-over takes no stack (tests/runtime/resume-frame.ll): loops in functions with a
/// 3,000-byte and a 16 KiB array on their stacks, 2,000,000 iterations each, hand over
/// hundreds of times, and a callee's frame stays where it was at the first iteration (a
/// call of the function that was not a tail call would have taken 4 MiB of stack). So
/// does a loop in a function with two arrays of variable length (allocated again at each
/// hand-over, at the same addresses, their contents and a fixed array's kept: the sum of
/// what it read from them is Rust's).
#[test]
fn hand_overs_take_no_stack() {
    let dir = tempfile::tempdir().unwrap();
    let src =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/resume-frame.ll");
    let pexe = common::prelude_pexe(dir.path(), &src);
    let n: u32 = 2_000_000;
    // Each iteration i reads what iteration i - 750 wrote to the first array and i - 375
    // to the second (0 before those).
    let sum = (0..n).fold(0u32, |s, i| {
        s.wrapping_add(i.saturating_sub(750))
            .wrapping_add(i.saturating_sub(375))
    });
    let want = format!("0\n0\n{sum}\n0\n");
    for (arch, opt) in [("x86-32", "-O2"), ("wasm32", "-O0"), ("wasm32", "-O2")] {
        let (text, count) = run_counting_hand_overs(&pexe, arch, opt, dir.path(), &n.to_string());
        assert_eq!(text, want, "{arch} {opt}");
        if (arch, opt) == ("wasm32", "-O2") {
            // 122 each: @mid's, @big's and @vla's (n / 16,384 headers).
            assert!(count.unwrap() >= 3 * 120, "{count:?}");
        }
    }
}

/// Atomic operations stay atomic however threads come (tests/attacks/atomic-counter.ll: a
/// counter hammered with atomic adds and compare-exchange loops, and a plain word under a
/// spin lock, by a first thread and four more it starts at different moments, each while
/// the ones before it are busy with atomic operations): 1,000,000 and 250,000 on every
/// target, at -O0 and -O2. While a process has one thread its atomic operations take a
/// plain path (llvm::export::one_thread); the runtime leaves it before the second starts.
#[test]
fn atomic_operations_stay_atomic_as_threads_start() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::attack_pexe(dir.path(), "atomic-counter");
    for (arch, opt) in [
        ("x86-32", "-O0"),
        ("x86-32", "-O2"),
        ("arm", "-O0"),
        ("arm", "-O2"),
        ("wasm32", "-O0"),
        ("wasm32", "-O2"),
    ] {
        let cmd = translated(&pexe, arch, opt, dir.path());
        for run in 0..3 {
            // Under `timeout`: a lost update can leave the spin lock taken for good.
            let out = Command::new("timeout")
                .arg("60")
                .arg(cmd.get_program())
                .args(cmd.get_args())
                .env_clear()
                .output()
                .unwrap();
            assert!(out.status.success(), "{arch} {opt} run {run}: {out:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                "1000000\n250000\n",
                "{arch} {opt} run {run}"
            );
        }
    }
}

/// The target table's own LLVM options (`target::Spec::llvm_options`) reach code
/// generation: x86-64 makes its code without loop strength reduction, x86-32 with it. A
/// developer's `PNACL_LLVM_ARGS` may give the same options again, theirs taking the place
/// of the table's (LLVM would end the process on an option given twice).
#[test]
fn each_target_generates_code_with_its_own_llvm_options() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::pexes_dir().join("run/puts.pexe");
    let lsr = "Loop Strength Reduction";
    let (_, x86_32) = translate_with_llvm_args(&dir, &pexe, "x86-32", "-time-passes");
    assert!(x86_32.contains(lsr), "{x86_32}");
    let (_, x86_64) = translate_with_llvm_args(&dir, &pexe, "x86-64", "-time-passes");
    assert!(x86_64.contains("Greedy Register Allocator"), "{x86_64}");
    assert!(!x86_64.contains(lsr), "{x86_64}");
    let args = "-time-passes -disable-lsr=false -enable-misched";
    let (exe, again) = translate_with_llvm_args(&dir, &pexe, "x86-64", args);
    assert!(again.contains(lsr), "{again}");
    let (argv, want) = common::expectations(&pexe);
    assert_eq!(run(Target::X86_64, &exe, &argv).stdout, want);
}

/// `pexe` translated at -O2 for `arch` into `dir` with `PNACL_LLVM_ARGS` set to `args`,
/// which must succeed: the program and the translation's standard error.
fn translate_with_llvm_args(
    dir: &tempfile::TempDir,
    pexe: &std::path::Path,
    arch: &str,
    args: &str,
) -> (std::path::PathBuf, String) {
    let stem = pexe.file_stem().unwrap().to_string_lossy();
    let exe = dir.path().join(format!("{stem}-{arch}"));
    let out = common::run_ok(
        Command::new(assert_cmd::cargo::cargo_bin("pnacl-translate"))
            .env("PNACL_LLVM_ARGS", args)
            .args(["-O2", "--arch", arch])
            .arg(pexe)
            .arg("-o")
            .arg(&exe),
        &format!("translating {} for {arch} with {args:?}", pexe.display()),
    );
    (exe, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `PNACL_LLVM_ARGS` hands LLVM more options: with `-time-passes`, the report of code
/// generation's passes (instruction selection, register allocation), which LLVM prints
/// only when the process ends its use of LLVM, is on standard error; the program still
/// prints what it should.
#[test]
fn llvm_args_from_the_environment_reach_code_generation() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::pexes_dir().join("run/puts.pexe");
    let (exe, err) = translate_with_llvm_args(&dir, &pexe, "x86-64", " -time-passes ");
    assert!(err.contains("Pass execution timing report"), "{err}");
    assert!(err.contains("X86 DAG->DAG Instruction Selection"), "{err}");
    assert!(err.contains("Greedy Register Allocator"), "{err}");
    let (argv, want) = common::expectations(&pexe);
    let ran = run(Target::X86_64, &exe, &argv);
    assert_eq!(ran.stdout, want);
}
