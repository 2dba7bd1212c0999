//! A real C++ program built unchanged from its sources with pnacl-clang++: HarfBuzz 8.4
//! (harfbuzz-sys's copy, about 120,000 lines). The library is built as its own meson build
//! builds it (each of `hb_base_sources` in src/meson.build, with the build's C++ flags)
//! into an archive; each of its own unit tests (src/meson.build's `compiled_tests`, built
//! with `-DMAIN -UNDEBUG` as there) passes, on x86-32 and in WebAssembly; and a shaping
//! program of ours (tests/programs/harfbuzz-shape.cc) shapes the texts of HarfBuzz's
//! perf/ directory with its fonts (Persian with Amiri and with Noto Nastaliq Urdu, English
//! with Roboto) to the very glyphs and positions that the same sources built natively with
//! clang++-14 -m32 -O2 give.

use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use assert_cmd::cargo::cargo_bin;

mod common;
use common::{run_ok, source_crate};

/// HarfBuzz's C++ flags (meson.build: cpp_std=c++11, and the arguments it adds for every
/// C++ source); HAVE_PTHREAD as harfbuzz-sys's own build defines it.
const FLAGS: &[&str] = &[
    "-O2",
    "-std=c++11",
    "-fno-exceptions",
    "-fno-rtti",
    "-fno-threadsafe-statics",
    "-fvisibility-inlines-hidden",
    "-DHAVE_PTHREAD=1",
    "-w",
];

/// clang-14 itself spends more than 20 minutes optimizing test-repacker.cc at -O2 (and
/// more than 5 at -O1), natively as for le32: left out for the time it costs, not for
/// anything it finds.
const TOO_SLOW_TO_COMPILE: &[&str] = &["test-repacker"];

/// The trimmed lines of the block of src/meson.build that starts with `start`, up to
/// `end`.
fn meson_block<'a>(meson: &'a str, start: &str, end: &str) -> Vec<&'a str> {
    let from = meson
        .find(start)
        .unwrap_or_else(|| panic!("meson.build: no {start}"));
    let block = &meson[from..];
    let block = &block[..block.find(end).unwrap()];
    block.lines().map(str::trim).collect()
}

/// The `'...'` strings of a line.
fn quoted(line: &str) -> Vec<&str> {
    line.split('\'').skip(1).step_by(2).collect()
}

/// Runs the commands, started in the order given, on as many threads as the machine has
/// cores; panics with every failure's output.
fn run_all(mut jobs: Vec<(String, Command)>) {
    jobs.reverse();
    let queue = Mutex::new(jobs);
    let failures = Mutex::new(Vec::new());
    let n = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| loop {
                let Some((what, mut cmd)) = queue.lock().unwrap().pop() else {
                    break;
                };
                let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
                if !out.status.success() {
                    failures.lock().unwrap().push(format!(
                        "{what}: {}\n{}{}",
                        out.status,
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn clangxx(flags: &[&str], include: &Path) -> Command {
    let mut cmd = Command::new(cargo_bin("pnacl-clang++"));
    cmd.args(flags).arg(format!("-I{}", include.display()));
    cmd
}

fn translate(pexe: &Path, arch: &str, out: &Path) -> (String, Command) {
    let mut cmd = Command::new(cargo_bin("pnacl-translate"));
    cmd.args(["--arch", arch]).arg(pexe).arg("-o").arg(out);
    (
        format!("pnacl-translate --arch {arch} {}", pexe.display()),
        cmd,
    )
}

#[test]
fn harfbuzz_passes_its_own_tests_and_shapes_text_as_natively() {
    let hb = source_crate("harfbuzz-sys").join("harfbuzz");
    let src = hb.join("src");
    let meson = std::fs::read_to_string(src.join("meson.build")).unwrap();
    let library: Vec<&str> = meson_block(&meson, "hb_base_sources = files(", "\n)")
        .into_iter()
        .flat_map(quoted)
        .filter(|f| f.ends_with(".cc"))
        .collect();
    assert!(library.len() > 40, "hb_base_sources: {library:?}");
    let tests: Vec<(&str, Vec<&str>)> = meson_block(&meson, "compiled_tests = {", "\n  }")
        .into_iter()
        .skip(1)
        .filter_map(|line| {
            let q = quoted(line);
            (q.len() >= 2).then(|| (q[0], q[1..].to_vec()))
        })
        .filter(|(name, _)| !TOO_SLOW_TO_COMPILE.contains(name))
        .collect();
    assert!(tests.len() > 15, "compiled_tests: {tests:?}");

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let shape = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/harfbuzz-shape.cc");

    // The native build (the longest, so first), the library's objects and each test's
    // objects, side by side.
    let native = d.join("shape.native");
    let mut cmd = Command::new(pnacl::tools::CLANG);
    cmd.args(["--driver-mode=g++", "-m32"])
        .args(FLAGS)
        .arg(format!("-I{}", src.display()))
        .arg(src.join("harfbuzz.cc"))
        .arg(&shape)
        .arg("-o")
        .arg(&native);
    let mut jobs = vec![("the native build".to_string(), cmd)];
    let object = |source: &str| d.join(format!("{}.o", source.replace('/', "_")));
    for source in &library {
        let mut cmd = clangxx(FLAGS, &src);
        cmd.arg("-c")
            .arg(src.join(source))
            .arg("-o")
            .arg(object(source));
        jobs.push((format!("pnacl-clang++ -c {source}"), cmd));
    }
    let test_flags: Vec<&str> = FLAGS
        .iter()
        .copied()
        .chain(["-DMAIN", "-UNDEBUG"])
        .collect();
    let mut test_objects: Vec<&str> = tests.iter().flat_map(|(_, s)| s.clone()).collect();
    test_objects.sort();
    test_objects.dedup();
    for source in &test_objects {
        let mut cmd = clangxx(&test_flags, &src);
        cmd.arg("-c")
            .arg(src.join(source))
            .arg("-o")
            .arg(object(&format!("t_{source}")));
        jobs.push((format!("pnacl-clang++ -c {source} (a test's)"), cmd));
    }
    run_all(jobs);

    let archive = d.join("libharfbuzz.a");
    let mut ar = Command::new(pnacl::tools::LLVM_AR);
    ar.arg("rcs").arg(&archive);
    for source in &library {
        ar.arg(object(source));
    }
    run_ok(&mut ar, "llvm-ar");

    // Link the tests and the shaping program, then translate every pexe for x86-32 and
    // wasm32.
    let mut jobs = Vec::new();
    for (name, sources) in &tests {
        let mut cmd = clangxx(&test_flags, &src);
        for source in sources {
            cmd.arg(object(&format!("t_{source}")));
        }
        cmd.arg(&archive)
            .arg("-o")
            .arg(d.join(format!("{name}.pexe")));
        jobs.push((format!("pnacl-clang++ -o {name}.pexe"), cmd));
    }
    let mut cmd = clangxx(FLAGS, &src);
    cmd.arg(&shape)
        .arg(&archive)
        .arg("-o")
        .arg(d.join("shape.pexe"));
    jobs.push(("pnacl-clang++ harfbuzz-shape.cc".into(), cmd));
    run_all(jobs);
    let programs: Vec<&str> = tests
        .iter()
        .map(|(name, _)| *name)
        .chain(["shape"])
        .collect();
    let mut jobs = Vec::new();
    for name in &programs {
        let pexe = d.join(format!("{name}.pexe"));
        run_ok(
            Command::new(cargo_bin("pnacl-abicheck"))
                .arg("-q")
                .arg(&pexe),
            &format!("pnacl-abicheck {name}.pexe"),
        );
        jobs.push(translate(&pexe, "x86-32", &d.join(format!("{name}.x86"))));
        jobs.push(translate(&pexe, "wasm32", &d.join(format!("{name}.mjs"))));
    }
    run_all(jobs);
    let on = |name: &str| -> [(&str, Command); 2] {
        let mut node = Command::new(pnacl::tools::NODE);
        node.arg(d.join(format!("{name}.mjs")));
        [
            ("x86-32", Command::new(d.join(format!("{name}.x86")))),
            ("wasm32", node),
        ]
    };

    // HarfBuzz's own checks: each test program asserts, and exits 0 when all hold.
    let mut jobs = Vec::new();
    for (name, _) in &tests {
        for (arch, mut cmd) in on(name) {
            cmd.current_dir(d);
            jobs.push((format!("HarfBuzz's {name} on {arch}"), cmd));
        }
    }
    run_all(jobs);

    // Shaping, against the native build.
    let perf = hb.join("perf");
    for (font, text) in [
        ("Amiri-Regular.ttf", "fa-thelittleprince.txt"),
        ("NotoNastaliqUrdu-Regular.ttf", "fa-words.txt"),
        ("Roboto-Regular.ttf", "en-thelittleprince.txt"),
    ] {
        std::fs::copy(perf.join("fonts").join(font), d.join(font)).unwrap();
        std::fs::copy(perf.join("texts").join(text), d.join(text)).unwrap();
        let want = run_ok(
            Command::new(&native).current_dir(d).args([font, text]),
            "the native shaping",
        );
        let expected = String::from_utf8_lossy(&want.stdout).into_owned();
        assert!(
            expected.lines().count() > 700 && expected.contains(" glyphs, "),
            "natively, {font}: {expected}"
        );
        for (arch, mut cmd) in on("shape") {
            let got = run_ok(
                cmd.env("PNACL_FS_ROOT", d)
                    .current_dir(d)
                    .args([font, text]),
                &format!("shaping {text} with {font} on {arch}"),
            );
            let got = String::from_utf8_lossy(&got.stdout);
            if got != expected {
                let line = common::first_difference(
                    &got.lines().collect::<Vec<_>>(),
                    &expected.lines().collect::<Vec<_>>(),
                );
                panic!(
                    "{text} with {font} on {arch} differs from the native build at line {}:\n{}\nnatively:\n{}",
                    line + 1,
                    got.lines().nth(line).unwrap_or("(none)"),
                    expected.lines().nth(line).unwrap_or("(none)")
                );
            }
        }
    }
}
