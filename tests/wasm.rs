//! Pexes translated to WebAssembly (`pnacl-translate --arch wasm32`):
//!
//! - every program of ../shared/pexes/run, as a node launcher (.mjs), prints exactly its
//!   .stdout under node and exits with status 0;
//! - printf (its arguments from the page's address: `?arg0=…&arg=…&arg=…`), thread and
//!   mandelbrot, as pages
//!   (.html) served by `pnacl-translate --serve`, show exactly that text in headless
//!   Chromium and say that they ended with status 0;
//! - contained by construction: a pexe that reads or writes outside what it was given (a
//!   host path with no root, `..` out of the root, a symbolic link in the root that points
//!   out, memory beyond its own, a function called as another type) gets an error or a
//!   trap, never the data, and creates nothing.
#![cfg(feature = "llvm")]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use assert_cmd::cargo::cargo_bin;

fn translate(pexe: &Path, out: &Path, opt: &str) {
    let o = Command::new(cargo_bin("pnacl-translate"))
        .args([opt, "--arch", "wasm32"])
        .arg(pexe)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}: {}",
        pexe.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Runs a launcher under node with `argv` (argv[0] through PNACL_ARGV0) and only the
/// environment `env`.
fn node(mjs: &Path, argv: &[String], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(pnacl::tools::NODE);
    c.arg(mjs)
        .args(&argv[1..])
        .env_clear()
        .env("PNACL_ARGV0", &argv[0])
        .stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("node runs")
}

#[test]
fn every_run_program_prints_its_output_under_node() {
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let programs = common::pexes("run");
    assert!(programs.len() >= 10);
    for p in programs {
        let name = common::name(&p);
        let mjs = dir.path().join(format!("{name}.mjs"));
        translate(&p, &mjs, "-O2");
        assert!(mjs.with_extension("wasm").is_file());
        let (argv, want) = common::expectations(&p);
        let out = node(&mjs, &argv, &[]);
        if out.stdout != want || out.status.code() != Some(0) {
            failures.push(format!(
                "{name}: status {:?}, stdout differs from byte {} ({} bytes, {} expected); stderr: {}",
                out.status,
                common::first_difference(&out.stdout, &want),
                out.stdout.len(),
                want.len(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pages_show_the_output_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let run = common::pexes_dir().join("run");
    for name in ["printf", "thread", "mandelbrot"] {
        translate(
            &run.join(format!("{name}.pexe")),
            &dir.path().join(format!("{name}.html")),
            "-O2",
        );
        for ext in ["js", "wasm"] {
            assert!(dir.path().join(format!("{name}.{ext}")).is_file());
        }
    }
    let server = common::Server::start(dir.path());
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/run_page.mjs");
    for name in ["printf", "thread", "mandelbrot"] {
        let (argv, want) = common::expectations(&run.join(format!("{name}.pexe")));
        let query: Vec<String> = std::iter::once(format!("arg0={}", percent_encode(&argv[0])))
            .chain(
                argv[1..]
                    .iter()
                    .map(|a| format!("arg={}", percent_encode(a))),
            )
            .collect();
        let url = format!("{}{name}.html?{}", server.base, query.join("&"));
        let text = dir.path().join(format!("{name}.page.txt"));
        let out = Command::new(pnacl::tools::NODE)
            .arg(&driver)
            .arg(pnacl::tools::CHROMIUM)
            .arg(&url)
            .arg("120")
            .arg(&text)
            .output()
            .expect("node runs the page driver");
        let said = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            said.trim(),
            "ended 0",
            "{name}: {said} {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The page shows standard output as text: the bytes as a browser decodes them.
        let shown = std::fs::read_to_string(&text).unwrap();
        assert_eq!(
            shown,
            String::from_utf8_lossy(&want),
            "{name}: the page shows other text"
        );
    }
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// An attack of tests/attacks, finalized into a pexe that pnacl-abicheck calls clean, and
/// translated to a launcher.
fn attack(dir: &Path, name: &str) -> PathBuf {
    let pexe = common::attack_pexe(dir, name);
    let mjs = dir.join(format!("{name}.mjs"));
    translate(&pexe, &mjs, "-O2");
    mjs
}

#[test]
fn files_outside_what_the_program_was_given_stay_out_of_reach() {
    let dir = tempfile::tempdir().unwrap();
    let mjs = attack(dir.path(), "wasm-files");
    let outside = dir.path().join("outside");
    let root = dir.path().join("root");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    let secret_text = format!("secret-{}", std::process::id());
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, &secret_text).unwrap();
    std::os::unix::fs::symlink(&secret, root.join("link")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("dirlink")).unwrap();
    let inside_text = "inside the root";
    std::fs::write(root.join("sub/mine.txt"), inside_text).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let created = outside.join("created");
    // (path to read, path to create, with the root?)
    let cases: Vec<(String, String, bool)> = vec![
        (s(&secret), s(&created), false),
        (
            "../outside/secret.txt".into(),
            "../outside/created".into(),
            true,
        ),
        (
            "sub/../../outside/secret.txt".into(),
            "sub/../../outside/created".into(),
            true,
        ),
        ("link".into(), "dirlink/created".into(), true),
        ("dirlink/secret.txt".into(), "dirlink/created".into(), true),
        (s(&secret), s(&created), true),
    ];
    for (read, create, with_root) in cases {
        let argv = vec!["wasm-files".to_string(), read.clone(), create.clone()];
        let env: Vec<(&str, &Path)> = if with_root {
            vec![("PNACL_FS_ROOT", root.as_path())]
        } else {
            vec![]
        };
        let out = node(&mjs, &argv, &env);
        // (What an attack gets, it prints to standard error.)
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !said.contains(&secret_text),
            "{read} (root: {with_root}): the secret was read: {said}"
        );
        assert!(
            !created.exists(),
            "{create} (root: {with_root}): a file was created outside"
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{read}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The control: what is beneath the root is read, and created there.
    let argv = vec![
        "wasm-files".into(),
        "sub/mine.txt".into(),
        "sub/made.txt".into(),
    ];
    let out = node(&mjs, &argv, &[("PNACL_FS_ROOT", root.as_path())]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), inside_text);
    assert_eq!(
        std::fs::read_to_string(root.join("sub/made.txt")).unwrap(),
        "escaped\n"
    );
    // Read-only: read, but nothing created.
    std::fs::remove_file(root.join("sub/made.txt")).unwrap();
    let readonly = Path::new("1");
    let out = node(
        &mjs,
        &argv,
        &[
            ("PNACL_FS_ROOT", root.as_path()),
            ("PNACL_FS_READONLY", readonly),
        ],
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), inside_text);
    assert!(!root.join("sub/made.txt").exists());
}

#[test]
fn memory_beyond_its_own_and_functions_of_another_type_trap() {
    let dir = tempfile::tempdir().unwrap();
    let mjs = attack(dir.path(), "wasm-memory");
    // An address beyond the program's memory (4 GiB at most, far less in use).
    for addr in ["0xfffffff0", "0x80000000"] {
        let out = node(&mjs, &["wasm-memory".into(), addr.into(), "no".into()], &[]);
        assert_eq!(out.status.code(), Some(134), "{addr}: {:?}", out.status);
        // Nothing read (it would come first, on standard error): the trap's message alone.
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("pnacl: the program trapped: ")
                && err.contains("out of bounds")
                && err.lines().count() == 1,
            "{addr}: {err:?}"
        );
    }
    // Its own memory reads; a function called through a pointer of another type traps.
    let out = node(
        &mjs,
        &["wasm-memory".into(), "16".into(), "call".into()],
        &[],
    );
    // (Its four bytes on standard error, then the trap's message.)
    assert_eq!(out.status.code(), Some(134), "{:?}", out.status);
    let err = &out.stderr;
    let trap = b"pnacl: the program trapped: ";
    assert!(err.len() > 4 && err[4..].starts_with(trap), "{err:?}");
    assert!(
        String::from_utf8_lossy(&err[4..]).contains("signature"),
        "{err:?}"
    );
}

/// The host checks what the program asks of it before it allocates or touches anything:
/// random numbers for a buffer reaching beyond the program's memory, or of a length near
/// 4 GiB, trap (status 134, one line on standard error, no JavaScript stack) at once.
#[test]
fn a_host_call_beyond_the_program_s_memory_traps() {
    let dir = tempfile::tempdir().unwrap();
    let mjs = attack(dir.path(), "wasm-random");
    // A buffer in the program's own memory (its data: the first megabyte), a few bytes.
    let out = node(
        &mjs,
        &["wasm-random".into(), "65536".into(), "64".into()],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    for (buf, count) in [
        ("65536", "0xfffff000"),
        ("65536", "0x7fffffff"),
        ("0xfffffff0", "64"),
        ("0x80000000", "1"),
    ] {
        let start = std::time::Instant::now();
        let out = node(&mjs, &["wasm-random".into(), buf.into(), count.into()], &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(134), "{buf} {count}: {err}");
        assert!(
            err.starts_with("pnacl: the program trapped: ")
                && err.contains("beyond the program's memory")
                && err.lines().count() == 1,
            "{buf} {count}: {err:?}"
        );
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "{buf} {count}: {:?}",
            start.elapsed()
        );
    }
}

/// The first thread runs on node's main thread: another thread's exit must still end the
/// program at once, with that thread's status and output, whether the first thread spins
/// or waits on a futex no one wakes, and when a third thread (a worker's worker) started
/// the exiting one; Ctrl-C (SIGINT) ends it as it ends a native one.
#[test]
fn a_thread_ends_the_program_whatever_the_first_thread_does() {
    let dir = tempfile::tempdir().unwrap();
    let mjs = attack(dir.path(), "thread-exit");
    for mode in ["spin", "wait", "nested"] {
        let mut c = Command::new("timeout");
        c.args(["20", pnacl::tools::NODE])
            .arg(&mjs)
            .arg(mode)
            .env_clear()
            .stdin(Stdio::null());
        let out = c.output().unwrap();
        assert_eq!(out.status.code(), Some(7), "{mode}: {out:?}");
        assert_eq!(out.stdout, b"bye\n", "{mode}");
        assert!(out.stderr.is_empty(), "{mode}: {out:?}");
    }
    // SIGINT while the only thread spins: the program dies of it.
    let mut child = Command::new(pnacl::tools::NODE)
        .arg(&mjs)
        .arg("alone")
        .env_clear()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let st = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(st.signal(), Some(2), "{st:?}");
}

/// Memory one thread has just grown is another's to use at once (tests/attacks/grow-race.ll:
/// a block mapped by one thread, filled by another with a fill of unknown length, and
/// written out by the host from both ends): 2,000 dots and status 0, each of ten runs. V8
/// checks memory.fill and memory.copy against a size each thread keeps and brings up to
/// date lazily; before the runtime's memcpy and memset looked first, about half the runs
/// trapped.
#[test]
fn memory_another_thread_just_grew_is_usable_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mjs = attack(dir.path(), "grow-race");
    for run in 0..10 {
        let out = node(&mjs, &["grow-race".to_string()], &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "run {run}: {out:?}");
        assert_eq!(err, ".".repeat(2000), "run {run}");
    }
}

/// The host's view of the memory from JavaScript (host_core.js's memoryTo) reaches as far
/// as the memory does, however lately another thread grew it (tests/node/memory_to.mjs:
/// 3,000 growths, each looked at by another thread at once).
#[test]
fn the_host_s_view_of_memory_reaches_what_another_thread_just_grew() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node/memory_to.mjs");
    let out = Command::new(pnacl::tools::NODE)
        .arg(&script)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(text.starts_with("short 0 of "), "{text}");
}

/// The host keeps the limit on threads itself (the program's memory, the runtime's
/// counters in it included, is the program's to write): a pexe that asks the IRT for
/// thread after thread gets PNACL_MAX_THREADS of them in all (the first included) and an
/// error after, with the host's word on standard error; a limit that is no number of
/// threads is refused.
#[test]
fn under_node_the_host_refuses_threads_beyond_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mjs = attack(dir.path(), "thread-bomb-irt");
    let argv = ["thread-bomb-irt".to_string(), "60".to_string()];
    let out = node(&mjs, &argv, &[("PNACL_MAX_THREADS", Path::new("6"))]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "pnacl runtime: the program reached its limit of 6 threads (PNACL_MAX_THREADS)"
        ),
        "{err}"
    );
    assert_eq!(err.lines().last(), Some("5"), "{err}");
    for bad in ["0", "4097", "lots"] {
        let out = node(&mjs, &argv, &[("PNACL_MAX_THREADS", Path::new(bad))]);
        assert_eq!(out.status.code(), Some(127), "{bad}");
    }
}

/// Under node as natively, the program's environment is what the user hands it
/// (PNACL_ENV_NAME=value becomes NAME=value): not the host's variables, not the runtime's.
#[test]
fn under_node_the_program_sees_only_the_environment_handed_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let mjs = attack(dir.path(), "environ");
    let argv = ["environ".to_string(), "0".to_string(), "x".to_string()];
    let env = [
        ("HOME", Path::new("/root")),
        ("SSH_AUTH_SOCK", Path::new("/tmp/agent.sock")),
        ("PNACL_ENV_GREETING", Path::new("hello there")),
        ("PNACL_ENV_LANG", Path::new("C")),
        ("PNACL_MAX_THREADS", Path::new("64")),
    ];
    let out = node(&mjs, &argv, &env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "ENV GREETING=hello there\nENV LANG=C\n"
    );
}
