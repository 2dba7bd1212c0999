//! Real C programs built unchanged from their sources with pnacl-clang, run translated,
//! and checked: Lua (lua-src's 5.4 sources, with a small interpreter main of ours) runs a
//! script of its own features' checks, which all pass, printing what the same sources
//! built natively print; zlib (libz-sys's sources) compresses a 26 MB file in a round trip
//! to the very bytes the native build writes. Both on x86-32 and in WebAssembly. And the
//! benchmark programs' C (benches/native) built by pnacl-clang prints exactly what the real
//! pexes of the same benchmarks print.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::cargo_bin;

mod common;
use common::{run_ok, source_crate};

fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

fn c_files(dir: &Path, skip: &[&str]) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .filter(|p| !skip.iter().any(|s| p.file_name().unwrap() == *s))
        .collect();
    v.sort();
    v
}

/// Builds a pexe with pnacl-clang -O2 and the same sources natively (clang -m32 -O2), and
/// translates the pexe for x86-32 and wasm32: (native, x86-32, node launcher).
fn build(
    dir: &Path,
    name: &str,
    include: &Path,
    sources: &[PathBuf],
) -> (PathBuf, PathBuf, PathBuf) {
    let pexe = dir.join(format!("{name}.pexe"));
    run_ok(
        Command::new(cargo_bin("pnacl-clang"))
            .arg("-O2")
            .arg(format!("-I{}", include.display()))
            .args(sources)
            .arg("-o")
            .arg(&pexe),
        "pnacl-clang",
    );
    run_ok(
        Command::new(cargo_bin("pnacl-abicheck"))
            .arg("-q")
            .arg(&pexe),
        "pnacl-abicheck",
    );
    let native = dir.join(format!("{name}.native"));
    run_ok(
        Command::new(pnacl::tools::CLANG)
            .args(["-m32", "-O2", "-w"])
            .arg(format!("-I{}", include.display()))
            .args(sources)
            .arg("-o")
            .arg(&native)
            .arg("-lm"),
        "the native build",
    );
    let x86 = dir.join(format!("{name}.x86"));
    run_ok(
        Command::new(cargo_bin("pnacl-translate"))
            .args(["--arch", "x86-32"])
            .arg(&pexe)
            .arg("-o")
            .arg(&x86),
        "pnacl-translate x86-32",
    );
    let mjs = dir.join(format!("{name}.mjs"));
    run_ok(
        Command::new(cargo_bin("pnacl-translate"))
            .args(["--arch", "wasm32"])
            .arg(&pexe)
            .arg("-o")
            .arg(&mjs),
        "pnacl-translate wasm32",
    );
    (native, x86, mjs)
}

#[test]
fn lua_passes_its_checks_as_built_natively() {
    let lua = source_crate("lua-src").join("lua-5.4.9");
    let dir = tempfile::tempdir().unwrap();
    let mut sources = c_files(&lua, &["luac.c", "lua.c"]);
    sources.push(programs().join("lua-main.c"));
    let (native, x86, mjs) = build(dir.path(), "lua", &lua, &sources);
    std::fs::copy(
        programs().join("lua-checks.lua"),
        dir.path().join("checks.lua"),
    )
    .unwrap();
    let expected = run_ok(
        Command::new(&native)
            .current_dir(dir.path())
            .arg("checks.lua"),
        "native lua",
    );
    let text = String::from_utf8_lossy(&expected.stdout);
    assert!(text.ends_with("all checks passed\n"), "natively: {text}");
    for (what, mut cmd) in translated(&x86, &mjs) {
        let got = run_ok(
            cmd.env("PNACL_FS_ROOT", dir.path())
                .current_dir(dir.path())
                .arg("checks.lua"),
            &format!("lua on {what}"),
        );
        assert_eq!(
            String::from_utf8_lossy(&got.stdout),
            text,
            "lua on {what} prints otherwise than natively"
        );
    }
}

/// The commands that run a program built by `build`: on x86-32, and in WebAssembly under
/// node.
fn translated(x86: &Path, mjs: &Path) -> [(&'static str, Command); 2] {
    let mut node = Command::new(pnacl::tools::NODE);
    node.arg(mjs);
    [("x86-32", Command::new(x86)), ("wasm32", node)]
}

#[test]
fn zlib_compresses_a_large_file_as_natively() {
    let zlib = source_crate("libz-sys").join("src/zlib");
    let dir = tempfile::tempdir().unwrap();
    let mut sources = c_files(&zlib, &[]);
    sources.push(programs().join("zlib-roundtrip.c"));
    let (native, x86, mjs) = build(dir.path(), "zlib", &zlib, &sources);
    // 26 MB of words and numbers, the same every run.
    let mut seed = 7u64;
    let mut text = String::new();
    let words = [
        "pexe", "native", "client", "portable", "bitcode", "sandbox", "chrome",
    ];
    while text.len() < 26 << 20 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let n = 3 + (seed >> 60) as usize;
        for k in 0..n {
            text.push_str(words[((seed >> (k * 3 + 5)) % words.len() as u64) as usize]);
            text.push(' ');
        }
        text.push_str(&format!("{}\n", seed >> 40));
    }
    std::fs::write(dir.path().join("big.txt"), &text).unwrap();
    for level in ["1", "9"] {
        let want = run_ok(
            Command::new(&native)
                .current_dir(dir.path())
                .args(["big.txt", level, "native.z"]),
            "native zlib",
        );
        let expected = std::fs::read(dir.path().join("native.z")).unwrap();
        for (what, mut cmd) in translated(&x86, &mjs) {
            let got = run_ok(
                cmd.env("PNACL_FS_ROOT", dir.path())
                    .current_dir(dir.path())
                    .args(["big.txt", level, "pexe.z"]),
                &format!("zlib on {what}"),
            );
            assert_eq!(got.stdout, want.stdout, "zlib on {what} at level {level}");
            let bytes = std::fs::read(dir.path().join("pexe.z")).unwrap();
            assert!(
                bytes == expected,
                "zlib on {what} at level {level}: {} bytes, natively {} (differing)",
                bytes.len(),
                expected.len()
            );
        }
    }
}

#[test]
fn the_benchmarks_c_prints_what_the_real_pexes_print() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/native");
    let pexes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/pexes/run");
    let mut failures = Vec::new();
    for name in [
        "binarytrees",
        "fasta",
        "mandelbrot",
        "nbody",
        "spectralnorm",
    ] {
        let pexe = dir.path().join(format!("{name}.pexe"));
        run_ok(
            Command::new(cargo_bin("pnacl-clang"))
                .arg("-O2")
                .arg(bench.join(format!("{name}.c")))
                .arg("-o")
                .arg(&pexe),
            "pnacl-clang",
        );
        let exe = dir.path().join(name);
        run_ok(
            Command::new(cargo_bin("pnacl-translate"))
                .arg(&pexe)
                .arg("-o")
                .arg(&exe),
            "pnacl-translate",
        );
        let argv: Vec<String> = std::fs::read_to_string(pexes.join(format!("{name}.argv")))
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        let want = std::fs::read(pexes.join(format!("{name}.stdout"))).unwrap();
        let out = Command::new(&exe)
            .arg0(&argv[0])
            .args(&argv[1..])
            .output()
            .unwrap();
        if out.stdout != want || !out.status.success() {
            failures.push(format!(
                "{name}: status {:?}, {} bytes (the real pexe prints {})",
                out.status.code(),
                out.stdout.len(),
                want.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// pnacl-clang's C library names the NaCl ABI's clocks as the IRT takes them (REALTIME 0,
/// MONOTONIC 1, PROCESS_CPUTIME 2, THREAD_CPUTIME 3: newlib's own ids were 1 and 4, so a
/// pexe's real time was the monotonic clock, and its monotonic clock under node the CPU
/// time, which stood still through a sleep), and every target refuses a clock the ABI
/// lacks (tests/programs/clock-ids.c): on x86-32, x86-64 and WebAssembly the real time is
/// gettimeofday's and the host's, a sleep of 200 ms takes 200 ms on the monotonic clock,
/// and clock 4 is an error.
#[test]
fn the_clocks_are_the_nacl_abi_s_on_every_target() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = dir.path().join("clock-ids.pexe");
    run_ok(
        Command::new(cargo_bin("pnacl-clang"))
            .arg("-O2")
            .arg(programs().join("clock-ids.c"))
            .arg("-o")
            .arg(&pexe),
        "pnacl-clang",
    );
    for (arch, out) in [
        ("x86-32", "clock-ids.x86"),
        ("x86-64", "clock-ids.x86-64"),
        ("wasm32", "clock-ids.mjs"),
    ] {
        let exe = dir.path().join(out);
        run_ok(
            Command::new(cargo_bin("pnacl-translate"))
                .args(["--arch", arch])
                .arg(&pexe)
                .arg("-o")
                .arg(&exe),
            "pnacl-translate",
        );
        let mut cmd = match arch {
            "wasm32" => {
                let mut c = Command::new(pnacl::tools::NODE);
                c.arg(&exe);
                c
            }
            _ => Command::new(&exe),
        };
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{arch}: {o:?}");
        let text = String::from_utf8_lossy(&o.stdout);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[..4],
            ["0 1 2 3", lines[1], "1", "-1"],
            "{arch}: {text}"
        );
        assert!(["0", "1"].contains(&lines[1]), "{arch}: {text}");
        let host = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let real: i64 = lines[4].parse().unwrap();
        assert!((host - real).abs() < 60, "{arch}: {real} against {host}");
    }
}
