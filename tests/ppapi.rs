//! Browser plugins without a browser: the runtime's PPAPI host (runtime/ppapi.h), headless,
//! on every target (x86-32 and x86-64 natively, ARM and AArch64 under qemu through
//! pnacl-run, WebAssembly under node; on x86-64 and AArch64 the host is pexe code in the
//! plugin's region, runtime/ppapi_pexe.c):
//!
//! - stockfish.pexe and stockfish_2017.pexe (PNACL_STDOUT=messages) are UCI engines for a
//!   real client: python-chess plays a game against each (Threads 2, Hash set, every move
//!   legal) and `quit` ends it with status 0;
//! - a plugin cannot take the host's standard output (close, reopen, dup2 of fd 1);
//! - hello_tutorial answers a number with the primes below it, an ArrayBuffer of int32,
//!   in JSON messages (PNACL_MESSAGES=json);
//! - every plugin of ../shared/pexes/parse starts and runs until its input ends, with no
//!   crash and no hang;
//! - a plugin's flood of vars ends in an error at the host's bound, not in memory without
//!   bound; lines that are not JSON are refused, one by one, whatever they hold.
#![cfg(feature = "llvm")]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use assert_cmd::cargo::cargo_bin;

const TARGETS: [&str; 5] = ["x86-32", "arm", "wasm32", "x86-64", "aarch64"];

/// `pexe` translated for `arch` into `dir`: the program, and how to run it.
fn translate(pexe: &Path, arch: &str, dir: &Path) -> Vec<String> {
    let name = pexe.file_stem().unwrap().to_str().unwrap();
    let out = match arch {
        "wasm32" => dir.join(format!("{name}.mjs")),
        _ => dir.join(format!("{name}.{arch}")),
    };
    let o = Command::new(cargo_bin("pnacl-translate"))
        .args(["-O2", "--arch", arch])
        .arg(pexe)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{name} {arch}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = out.to_str().unwrap().to_string();
    match arch {
        "wasm32" => vec![pnacl::tools::NODE.to_string(), out],
        "arm" | "aarch64" => vec![cargo_bin("pnacl-run").to_str().unwrap().to_string(), out],
        _ => vec![out],
    }
}

/// Runs `command` with `input` on standard input and nothing of the environment but `env`.
fn run(command: &[String], input: &[u8], env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .env_clear()
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn describe(o: &Output) -> String {
    format!(
        "status {:?}, stdout {:?}, stderr {:?}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn python_chess() {
    let ok = Command::new("python3")
        .args(["-c", "import chess.engine"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "python-chess is not installed (pip install chess; scripts/setup does)"
    );
}

/// The two stockfish builds: parse/stockfish.pexe posts each line it prints (its page read
/// them as messages); stockfish_2017 prints its answers to its own standard output, which
/// no page ever saw, so it is run with PNACL_STDOUT=messages.
fn stockfishes() -> [(PathBuf, &'static [(&'static str, &'static str)]); 2] {
    [
        (common::pexes_dir().join("parse/stockfish.pexe"), &[]),
        (
            common::pexes_dir().join("plugins/stockfish_2017.pexe"),
            &[("PNACL_STDOUT", "messages")],
        ),
    ]
}

#[test]
fn stockfish_is_a_uci_engine_for_python_chess_on_every_target() {
    python_chess();
    let dir = tempfile::tempdir().unwrap();
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/uci/game.py");
    for (pexe, env) in stockfishes() {
        let name = pexe.file_stem().unwrap().to_str().unwrap().to_string();
        // (plies, depth): a shorter game where the machine is emulated.
        for (arch, plies, depth) in [
            ("x86-32", 40, 8),
            ("arm", 12, 4),
            ("wasm32", 40, 6),
            ("x86-64", 40, 8),
            ("aarch64", 12, 4),
        ] {
            let command = translate(&pexe, arch, dir.path());
            let o = Command::new("python3")
                .arg(&game)
                .args([plies.to_string(), depth.to_string()])
                .args(&command)
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .envs(env.iter().copied())
                .output()
                .unwrap();
            assert!(o.status.success(), "{name} {arch}: {}", describe(&o));
            let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            // All the plies, or fewer where the game ended (two search threads make each
            // game its own: one ended in a mate at ply 32).
            let played = r["moves"].as_array().unwrap().len();
            assert!(
                played == plies || (played < plies && r["over"] == true),
                "{name} {arch}: {r}"
            );
            assert_eq!(
                r["returncode"], 0,
                "{name} {arch}: quit did not end it with status 0: {r}"
            );
            assert!(
                r["name"].as_str().unwrap().starts_with("Stockfish"),
                "{name} {arch}: {r}"
            );
        }
    }
}

/// `printf 'uci\nisready\n' | ./stockfish` prints uciok and readyok before it ends (status
/// 0); the engine's own banner and options are messages too, a line each. What
/// stockfish_2017 prints itself goes to standard error unless PNACL_STDOUT=messages, which
/// makes each of its lines a message.
#[test]
fn stockfish_answers_uci_and_isready_before_its_input_ends() {
    let dir = tempfile::tempdir().unwrap();
    for (pexe, env) in stockfishes() {
        let name = pexe.file_stem().unwrap().to_str().unwrap().to_string();
        for arch in TARGETS {
            let command = translate(&pexe, arch, dir.path());
            let o = run(&command, b"uci\nisready\n", env);
            assert_eq!(o.status.code(), Some(0), "{name} {arch}: {}", describe(&o));
            let text = String::from_utf8_lossy(&o.stdout);
            let lines: Vec<&str> = text.lines().collect();
            assert!(
                lines.first().is_some_and(|l| l.starts_with("Stockfish ")),
                "{name} {arch}: {text}"
            );
            assert!(lines.contains(&"uciok"), "{name} {arch}: {text}");
            assert_eq!(lines.last(), Some(&"readyok"), "{name} {arch}: {text}");
            if !env.is_empty() {
                // Without the setting, standard output carries only (no) messages.
                let o = run(&command, b"uci\nisready\n", &[]);
                assert_eq!(o.status.code(), Some(0), "{name} {arch}: {}", describe(&o));
                assert!(o.stdout.is_empty(), "{name} {arch}: {}", describe(&o));
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(err.lines().any(|l| l == "readyok"), "{name} {arch}: {err}");
            }
        }
    }
}

/// With PNACL_STDOUT=messages and JSON messages, each line the plugin prints is a JSON
/// string: stockfish_2017's banner, `uciok` and `readyok`.
#[test]
fn printed_lines_are_json_strings_with_json_messages() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::pexes_dir().join("plugins/stockfish_2017.pexe");
    let command = translate(&pexe, "x86-32", dir.path());
    let o = run(
        &command,
        b"\"uci\"\n\"isready\"\n",
        &[("PNACL_STDOUT", "messages"), ("PNACL_MESSAGES", "json")],
    );
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let lines: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<String>(l)
                .unwrap_or_else(|e| panic!("{l:?} is not a JSON string: {e}"))
        })
        .collect();
    assert!(lines[0].starts_with("Stockfish "), "{lines:?}");
    assert!(lines.iter().any(|l| l == "uciok"), "{lines:?}");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("readyok"),
        "{lines:?}"
    );
}

/// A plugin cannot take the host's message channel: it closes fd 1, opens a file (which a
/// real close would give fd 1), writes to fd 1, dup2s the file onto fd 1, writes again,
/// then posts the number 7. Nothing reaches the file; the message reaches standard output.
#[test]
fn a_plugin_cannot_take_standard_output_from_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::attack_pexe(dir.path(), "plugin-stdout");
    for arch in TARGETS {
        let root = dir.path().join(format!("root-{arch}"));
        std::fs::create_dir(&root).unwrap();
        let mut command = translate(&pexe, arch, dir.path());
        command.push("taken.txt".into());
        let o = run(&command, b"", &[("PNACL_FS_ROOT", root.to_str().unwrap())]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("attack: fd 1 closed, reused"),
            "{arch}: {}",
            describe(&o)
        );
        let file = std::fs::read(root.join("taken.txt"))
            .unwrap_or_else(|e| panic!("{arch}: the plugin's open failed ({e}): {}", describe(&o)));
        assert!(file.is_empty(), "{arch}: the file got {file:?}");
        assert_eq!(o.stdout, b"7\n", "{arch}: {}", describe(&o));
    }
}

/// hello_tutorial with JSON messages: it posts "C++ program online." when it starts, and
/// answers 10 with the primes below 10 as an ArrayBuffer of int32 (strings it ignores).
/// (Its buffer's size comes from arithmetic whose result differs between x86-32 and the
/// other targets: on the others it holds the first primes only, as the same
/// computation's double-to-int conversion gives there.)
#[test]
fn hello_tutorial_answers_a_number_with_its_primes_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::pexes_dir().join("parse/hello_tutorial.pexe");
    for arch in TARGETS {
        let command = translate(&pexe, arch, dir.path());
        let o = run(
            &command,
            b"\"ignored\"\n10\n",
            &[("PNACL_MESSAGES", "json")],
        );
        assert_eq!(o.status.code(), Some(0), "{arch}: {}", describe(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "{arch}: {text}");
        assert_eq!(lines[0], "C++ program online.", "{arch}");
        let b64 = lines[1]["$arraybuffer"].as_str().unwrap();
        let bytes = base64(b64);
        let ints: Vec<i32> = bytes
            .chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let primes: Vec<i32> = ints.iter().copied().take_while(|&p| p != 0).collect();
        if arch == "x86-32" {
            assert_eq!(primes, [2, 3, 5, 7], "{arch}: {ints:?}");
        } else {
            assert!(
                !primes.is_empty() && [2, 3, 5, 7].starts_with(&primes),
                "{arch}: {ints:?}"
            );
        }
    }
}

fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => 0,
    };
    let mut out = Vec::new();
    for q in s.as_bytes().chunks(4) {
        let v = q.iter().fold(0u32, |a, &c| a << 6 | val(c) as u32);
        out.extend_from_slice(&v.to_be_bytes()[1..]);
        out.truncate(out.len() - q.iter().filter(|&&c| c == b'=').count());
    }
    out
}

/// Every plugin in ../shared/pexes/parse (those that ask for the PPAPI hook) starts on
/// every target and keeps running until its input ends: no crash, no hang (those that need
/// graphics or the network simply get nothing). The message is a string none of them
/// expects (star, which reads its page's JSON, answers "error"; a number makes it fault
/// natively, in its own handling of the message).
#[test]
fn every_parse_plugin_runs_until_its_input_ends_on_every_target() {
    let dir = tempfile::tempdir().unwrap();
    let plugins: Vec<PathBuf> = common::pexes("parse")
        .into_iter()
        .filter(|p| {
            let m = pnacl::bitcode::read(&std::fs::read(p).unwrap()).unwrap();
            !pnacl::translate::ppapi_interfaces(&m).is_empty()
        })
        .collect();
    assert!(plugins.len() >= 5, "{plugins:?}");
    let mut failures = Vec::new();
    for p in &plugins {
        for arch in TARGETS {
            let command = translate(p, arch, dir.path());
            let start = std::time::Instant::now();
            let o = run(&command, b"hello\n", &[]);
            // (Whatever a plugin prints itself goes to standard error: a crash of the
            // program shows as a signal or another status.)
            if o.status.code() != Some(0) {
                failures.push(format!("{} {arch}: {}", common::name(p), describe(&o)));
            }
            let took = start.elapsed();
            if took > std::time::Duration::from_secs(60) {
                failures.push(format!("{} {arch}: took {took:?}", common::name(p)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A plugin that makes vars without end is stopped at the host's bound (1048576 vars at
/// once) with a clear error and status 134, its memory bounded, natively and under node.
#[test]
fn a_flood_of_vars_ends_in_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::attack_pexe(dir.path(), "var-flood");
    for arch in ["x86-32", "wasm32", "x86-64"] {
        let command = translate(&pexe, arch, dir.path());
        let o = run(&command, b"", &[]);
        assert_eq!(o.status.code(), Some(134), "{arch}: {}", describe(&o));
        assert!(
            String::from_utf8_lossy(&o.stderr)
                .contains("pnacl runtime: PPAPI: the plugin holds more than 1048576 vars at once"),
            "{arch}: {}",
            describe(&o)
        );
    }
}

/// The JSON message reader, fed what an attacker or a broken client writes: each line that
/// is not a JSON value in UTF-8 is refused with a message on standard error and the rest
/// go on; the plugin (hello_tutorial) answers the numbers among them, and ends at the end
/// of input.
#[test]
fn the_json_reader_refuses_what_is_not_json_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::pexes_dir().join("parse/hello_tutorial.pexe");
    let command = translate(&pexe, "x86-32", dir.path());
    let valid = [
        "5",
        " 6 ",
        "[1,2,{\"a\":[true,false,null]}]",
        "{\"$arraybuffer\":\"AAEC\"}",
        "\"\\ud83d\\ude00\"",
        "-0",
        "1e400",
        "{\"a\":1,\"a\":2}",
    ];
    let mut input = Vec::new();
    for v in valid {
        input.extend_from_slice(v.as_bytes());
        input.push(b'\n');
    }
    // Malformed: truncated, unbalanced, bad escapes, lone surrogates, not UTF-8, a NUL,
    // nesting past the bound, numbers with leading zeros, trailing garbage; and pseudo-
    // random bytes.
    let mut bad: Vec<Vec<u8>> = [
        "[",
        "{",
        "{\"a\"}",
        "[1,]",
        "\"\\x\"",
        "\"\\ud800\"",
        "01",
        "1 2",
        "tru",
        "\"a",
        "{\"$arraybuffer\":\"A\"}",
        "{1:2}",
        "--1",
        ".5",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    bad.push(vec![0xff, 0xfe, b'1']);
    bad.push(b"\"a\0b\"".to_vec());
    bad.push(b"[".repeat(100).to_vec());
    let mut seed = 0x9e3779b9u32;
    for _ in 0..300 {
        let mut line = Vec::new();
        for _ in 0..(seed % 40) {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let b = (seed % 96) as u8 + 32;
            line.push(if b == 127 { b'[' } else { b });
        }
        bad.push(line);
    }
    for b in &bad {
        input.extend_from_slice(b);
        input.push(b'\n');
    }
    input.extend_from_slice(b"10\n");
    let o = run(&command, &input, &[("PNACL_MESSAGES", "json")]);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let refused = err
        .matches("a line of input is not a message (JSON, in UTF-8)")
        .count();
    assert!(refused >= 17, "{refused} refused: {err}");
    // The numbers were answered (5, 6 and 10, and any the random lines happened to be;
    // -0 and 1e400 are DOUBLE vars, which hello_tutorial ignores).
    let text = String::from_utf8_lossy(&o.stdout);
    let answers = text.lines().filter(|l| l.contains("$arraybuffer")).count();
    assert!(answers >= 3, "{text}");
}

/// An interface the host lacks is answered with NULL, as Chrome answered unknown names;
/// with PNACL_PPAPI_MISSING=1 each one asked for is named once on standard error, and the
/// plugin goes on with its own failure (url_loader: no URL loading, headless).
#[test]
fn interfaces_the_host_lacks_are_null_and_named_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::pexes_dir().join("parse/url_loader.pexe");
    let command = translate(&pexe, "x86-32", dir.path());
    let o = run(&command, b"", &[("PNACL_PPAPI_MISSING", "1")]);
    assert_eq!(o.status.code(), Some(0), "{}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let named = "pnacl runtime: PPAPI: the plugin asked for PPB_URLLoader;1.0, which this host does not provide (NULL)";
    assert_eq!(err.matches(named).count(), 1, "{err}");
    assert!(err.contains("pp::URLLoader::Open() failed"), "{err}");
    let o = run(&command, b"", &[]);
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("asked for"),
        "{}",
        describe(&o)
    );
}

/// Sizes a plugin hands the host are hostile input: an ArrayBuffer or a string of 4 GiB - 1
/// bytes comes back as a NULL var (never a small block claiming that length), natively and
/// under node.
#[test]
fn impossible_sizes_give_null_vars() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::attack_pexe(dir.path(), "var-bounds");
    for arch in ["x86-32", "wasm32", "x86-64"] {
        let command = translate(&pexe, arch, dir.path());
        let o = run(&command, b"", &[]);
        assert_eq!(o.status.code(), Some(0), "{arch}: {}", describe(&o));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "refused\nrefused\n",
            "{arch}"
        );
    }
}

/// A libFuzzer target of fuzz/ppapi (the PPAPI host under AddressSanitizer and
/// UndefinedBehaviorSanitizer, its own checks in it), built and run for `runs` inputs
/// grown from `seeds`, with a fixed seed, so that a failure repeats.
fn fuzz_target(source: &str, seeds: &str, runs: u32) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("target");
    let o = Command::new(pnacl::tools::CLANG)
        .args([
            "-g",
            "-O1",
            "-fsanitize=fuzzer,address,undefined",
            "-fno-sanitize-recover=undefined",
            "-Werror=implicit-function-declaration",
            "-o",
        ])
        .arg(&bin)
        .arg(root.join(source))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "the fuzz target does not build (libclang-rt-14-dev; scripts/setup installs it): {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    let o = Command::new(&bin)
        .arg(&corpus)
        .arg(root.join(seeds))
        .arg(format!("-runs={runs}"))
        .args([
            "-seed=1",
            "-max_len=4096",
            "-rss_limit_mb=2048",
            "-timeout=10",
        ])
        .arg(format!("-artifact_prefix={}/", dir.path().display()))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "the fuzzer found a failure: {}",
        &err[err.len().saturating_sub(4000)..]
    );
    assert!(err.contains(&format!("Done {runs} runs")), "{err}");
}

/// The JSON message reader is fuzzed: fuzz/ppapi/json.c (runtime/ppapi.h's reader; every
/// var it reads must write back as JSON that reads as the same var, numbers must read as
/// the nearest double and write as the shortest text that reads back, no var may leak),
/// 300,000 inputs. (`scripts/fuzz ppapi-json SECONDS` runs it for longer.)
#[test]
fn the_json_reader_is_fuzzed() {
    fuzz_target("fuzz/ppapi/json.c", "fuzz/ppapi/seeds", 300_000);
}

/// The page's records of the kept file systems are fuzzed: fuzz/ppapi/records.c (FS_FILE,
/// FS_LOADED, FS_SYNCED as a hostile page sends them while the file systems load; what
/// they leave in memory must be what a plugin could have made, within the bounds, and all
/// of it freed), 300,000 inputs. (`scripts/fuzz ppapi-records SECONDS` runs it for longer.)
#[test]
fn the_page_s_file_records_are_fuzzed() {
    fuzz_target("fuzz/ppapi/records.c", "fuzz/ppapi/record-seeds", 300_000);
}

/// A video decoder's records from the page are fuzzed, with the plugin's own calls between
/// them: fuzz/ppapi/video.c (VD_DONE, VD_DECODED, VD_SIZE, VD_PICTURE, VD_ERROR as a
/// hostile page sends them; Decode, GetPicture, RecyclePicture, Flush and Reset as a
/// hostile plugin calls them): the decoder stays one the host could have made (its
/// pictures' states, the pictures waiting, the bounds), and once it goes and the page
/// answers, nothing of it is kept. 150,000 inputs. (`scripts/fuzz ppapi-video SECONDS` runs it
/// for longer.)
#[test]
fn a_video_decoder_s_records_are_fuzzed() {
    fuzz_target("fuzz/ppapi/video.c", "fuzz/ppapi/video-seeds", 150_000);
}

/// PPB_Messaging 1.2's RegisterMessageHandler, as Chrome had it: not on the main thread's
/// loop (PP_ERROR_WRONG_THREAD); on a loop of the plugin's own thread, every message goes
/// to the handler, on that thread, in order; after UnregisterMessageHandler its Destroy
/// runs and messages reach nobody (tests/runtime/message-handler.ll).
#[test]
fn messages_reach_a_registered_handler_on_its_loop() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/message-handler.ll");
    let pexe = common::prelude_pexe(dir.path(), &src);
    for arch in TARGETS {
        let command = translate(&pexe, arch, dir.path());
        let o = run(
            &command,
            b"5\n\"hi\"\n99\n7\n",
            &[("PNACL_MESSAGES", "json")],
        );
        assert_eq!(o.status.code(), Some(0), "{arch}: {}", describe(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            ["-52", "0", "5", "1", "\"hi\"", "1", "99", "1", "1000"],
            "{arch}: {}",
            describe(&o)
        );
    }
}

/// glbench (nacl_io: an HTML5 file system mounted at /persistent from DidCreate) finds
/// PPB_FileSystem, FileRef and FileIO headless too: its mount succeeds (0), and only its
/// GL, which needs a page, is missing.
#[test]
fn glbench_mounts_its_file_system_headless() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::pexes_dir().join("plugins/glbench.pexe");
    for arch in TARGETS {
        let command = translate(&pexe, arch, dir.path());
        let o = run(&command, b"", &[("PNACL_MESSAGES", "json")]);
        let text = String::from_utf8_lossy(&o.stdout);
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let at = lines
            .iter()
            .position(|l| l == "The mount result is: (0 for succes, -1 for failure)")
            .unwrap_or_else(|| panic!("{arch}: {}", describe(&o)));
        assert_eq!(lines[at + 1], 0, "{arch}: {}", describe(&o));
        assert!(
            lines.iter().any(|l| l == "InitGL failed"),
            "{arch}: {}",
            describe(&o)
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("PPB_FileSystem"), "{arch}: {err}");
    }
}

/// Files as Chrome gave them (tests/runtime/files.ll): a blocking call on the main thread
/// is refused; a released resource's id names nothing, not the next resource in its
/// slot; off the main thread, the persistent file system opens, a file cannot be made in a
/// folder that does not exist, a folder is made once (then FILEEXISTS), a file is written,
/// named, renamed, queried (its size; the old name is gone), read from an offset, and
/// still read after it is deleted while open; an empty folder is deleted; a path with
/// ".." makes no reference. The same on every target.
#[test]
fn files_behave_as_chrome_s_on_every_target() {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/files.ll");
    let pexe = common::prelude_pexe(dir.path(), &src);
    let want =
        r#"-13 1 0 3 1 0 -20 0 -21 0 5 "a.txt" "/dir/a.txt" 0 0 5 -20 0 4 1869376613 0 5 0 0 999"#;
    for arch in TARGETS {
        let command = translate(&pexe, arch, dir.path());
        let o = run(&command, b"", &[("PNACL_MESSAGES", "json")]);
        let text = String::from_utf8_lossy(&o.stdout);
        let got: Vec<&str> = text.lines().collect();
        assert_eq!(got.join(" "), want, "{arch}: {}", describe(&o));
    }
}

/// A plugin's local file systems are kept between runs, headless in `ppapi-fs` under
/// PNACL_FS_ROOT, on every target: tests/programs/keep.c's second run finds what its first
/// wrote (a count, a file of 300,000 bytes written in two writes, a rename, a deletion,
/// the temporary file system's file), the folder holds exactly those files, a file put
/// there beforehand is the plugin's, and without a root nothing is kept (each run is a
/// first) and standard error says so.
#[test]
fn the_local_file_systems_are_kept_between_runs_under_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::c_program_pexe(dir.path(), "keep");
    let first = "0 0 0 65 0 0 99";
    let second = "1 1 0 65 0 116 99";
    let words = |o: &Output| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .collect::<Vec<_>>()
            .join(" ")
    };
    for arch in TARGETS {
        let command = translate(&pexe, arch, dir.path());
        let root = tempfile::tempdir().unwrap();
        let root_env = root.path().to_str().unwrap();
        let env = [("PNACL_MESSAGES", "json"), ("PNACL_FS_ROOT", root_env)];
        let o = run(&command, b"", &env);
        assert_eq!(words(&o), first, "{arch}: {}", describe(&o));
        let o = run(&command, b"", &env);
        assert_eq!(words(&o), second, "{arch}: {}", describe(&o));
        assert!(o.stderr.is_empty(), "{arch}: {}", describe(&o));
        let kept = root.path().join("ppapi-fs");
        let mut files: Vec<String> = Vec::new();
        let mut stack = vec![kept.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    files.push(p.strip_prefix(&kept).unwrap().display().to_string());
                }
            }
        }
        files.sort();
        assert_eq!(
            files,
            [
                "persistent/notes/b",
                "persistent/notes/big",
                "persistent/notes/count",
                "temporary/t"
            ],
            "{arch}"
        );
        let count = kept.join("persistent/notes/count");
        assert_eq!(std::fs::read_to_string(&count).unwrap(), "2", "{arch}");
        assert_eq!(
            std::fs::read(kept.join("persistent/notes/big"))
                .unwrap()
                .len(),
            300_000
        );
        // Put there beforehand, by hand: the plugin's.
        std::fs::write(&count, "41").unwrap();
        let o = run(&command, b"", &env);
        assert_eq!(words(&o), "41 1 0 65 0 116 99", "{arch}: {}", describe(&o));
        assert_eq!(std::fs::read_to_string(&count).unwrap(), "42", "{arch}");
        // No root: nothing kept, and said.
        for _ in 0..2 {
            let o = run(&command, b"", &[("PNACL_MESSAGES", "json")]);
            assert_eq!(words(&o), first, "{arch}: {}", describe(&o));
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.contains("local file systems are not kept after this run (no PNACL_FS_ROOT"),
                "{arch}: {err}"
            );
        }
    }
}

/// With PNACL_GRAPHICS=headless a plugin that draws in 2-D runs without a page:
/// path_tracer (ImageData, Graphics2D on its view's size, a render thread) finishes
/// iterations 1 and 2, each flushed; without the setting it gets no Graphics2D.
#[test]
fn a_plugin_draws_headless_with_pnacl_graphics() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::pexes_dir().join("parse/path_tracer.pexe");
    let command = translate(&pexe, "x86-32", dir.path());
    let mut child = Command::new(&command[0])
        .env_clear()
        .envs([("PNACL_GRAPHICS", "headless"), ("PNACL_VIEW", "128x96")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first: Vec<String> = (0..2).map_while(|_| lines.next()?.ok()).collect();
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(first, ["1", "2"]);
    let o = run(
        &command,
        b"",
        &[("PNACL_VIEW", "128x96"), ("PNACL_PPAPI_MISSING", "1")],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("PPB_Graphics2D;1.0, which this host does not provide"),
        "{err}"
    );
}

/// What the C plugin tests/programs/NAME.c (built by pnacl-clang -O2) does headless, with
/// 2-D graphics, on each target.
fn headless_c_plugin(name: &str) -> Vec<(&'static str, std::process::Output)> {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::c_program_pexe(dir.path(), name);
    TARGETS
        .iter()
        .map(|&arch| {
            let command = translate(&pexe, arch, dir.path());
            (arch, run(&command, b"", &[("PNACL_GRAPHICS", "headless")]))
        })
        .collect()
}

/// The host's resource table under a race from two of the plugin's threads
/// (tests/programs/race.c, a C plugin built by pnacl-clang): images released while
/// another thread describes them, their memory taken by new devices. The host holds a
/// resource while it uses it, so a description is the image's own or none (0 wrong); an
/// id kept after its release names nothing, not the new resource in its slot (0 stale);
/// and the race ran (1: descriptions were had). A stress test: before the host held its
/// resources, the window was a few instructions wide.
#[test]
fn resources_released_while_used_and_stale_ids_name_nothing() {
    for (arch, o) in headless_c_plugin("race") {
        assert_eq!(o.stdout, b"0\n0\n1\n", "{arch}: {}", describe(&o));
    }
}

/// A plugin written in C++ (tests/programs/cxx_plugin.cpp: classes over declarations of
/// ppapi/c of its own, std::function, std::map, a std::thread, errors as exceptions caught
/// around each command), built by pnacl-clang++, answers its messages on every target.
#[test]
fn a_cxx_plugin_answers_its_messages_on_every_target() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::c_program_pexe(dir.path(), "cxx_plugin");
    let input = b"push 5\npush 7\npush x\nsum\ndiv 12 0\ndiv 12 5\nprimes 1000\nsorted\nbogus\n";
    let expected = "ok 1\nok 2\nerror: not a number: x\n12\nerror: division by zero\n2\n168\n\
                    5 7\nerror: unknown command: bogus\n";
    for arch in TARGETS {
        let command = translate(&pexe, arch, dir.path());
        let o = run(&command, input, &[]);
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            expected,
            "{arch}: {}",
            describe(&o)
        );
        assert!(o.status.success(), "{arch}: {}", describe(&o));
    }
}

/// PPB_MouseCursor;1.0 answers as Chrome's did (tests/programs/cursor.c): the browser's
/// cursors (0, 42, 37) are set; a type past the last or before CUSTOM is refused; a
/// custom image is set with its hot spot inside it, refused with it on the edge or
/// outside, when larger than 32 x 32, when it is no image or a released one, and for
/// another instance. (In a page the element's CSS cursor follows: runtime/host_plugin.js.)
#[test]
fn the_mouse_cursor_is_set_as_chrome_allowed() {
    for (arch, o) in headless_c_plugin("cursor") {
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "1\n1\n1\n0\n0\n1\n0\n0\n0\n0\n0\n0\n",
            "{arch}: {}",
            describe(&o)
        );
    }
}

/// One monotonic clock for all of a plugin's threads (tests/programs/clocks.c): a thread
/// started 500 ms after the main thread read the clock reads it 500 ms later.
#[test]
fn the_clock_is_one_for_every_thread() {
    for (arch, o) in headless_c_plugin("clocks") {
        let text = String::from_utf8_lossy(&o.stdout);
        let ms: i64 = text
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{arch}: {}", describe(&o)));
        assert!((500..1000).contains(&ms), "{arch}: {}", describe(&o));
    }
}

/// The le32 module of `pexe` as LLVM text (pnacl-llvm --target le32 -S): its own code and
/// constants as the file holds them, before any target's conversion.
fn le32_text(pexe: &Path) -> String {
    let o = Command::new(cargo_bin("pnacl-llvm"))
        .args(["--target", "le32", "-S"])
        .arg(pexe)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// Two development builds of the lichess stockfish plugin fail where the builds around
/// them play (../shared/pexes/README.md); the fault is the files' own, as built:
///
/// - stockfish_20161002 answers `Unknown command: uci` (and `isready`): its code has no
///   answer to either. The file holds none of the words the answers are made of
///   (`uciok`, `readyok`, `id name `, the command `isready` itself), which the build of
///   the day before holds, while the words of the commands it does answer are there
///   (`ucinewgame`, `Unknown command: `). Translated, it says so itself, and plays from
///   `position`/`go`.
/// - stockfish_20161001 fails on `position startpos` (natively a fault, under WebAssembly
///   an empty board): its UCI handler, where the token is `startpos`, reads the next token
///   and calls Position::set with the FEN string it never filled (the start FEN constant is
///   not used there). So `position startpos` is, on every target, exactly `position fen`
///   with an empty FEN (the same output and status), while `position fen` with the start
///   position's FEN plays.
#[test]
fn the_two_broken_stockfish_builds_are_broken_as_built() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = common::pexes_dir().join("plugins");
    let (day1, day2) = (
        plugins.join("stockfish_20161001.pexe"),
        plugins.join("stockfish_20161002.pexe"),
    );
    let (text1, text2) = (le32_text(&day1), le32_text(&day2));
    for word in ["uciok", "readyok", "isready", "id name "] {
        assert!(text1.contains(word), "20161001 lacks {word}");
        assert!(!text2.contains(word), "20161002 holds {word}");
    }
    for word in [r#"c"ucinewgame\00""#, r#"c"Unknown command: \00""#] {
        assert!(text2.contains(word), "20161002 lacks {word}");
    }
    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for arch in ["x86-32", "x86-64", "wasm32"] {
        let command = translate(&day2, arch, dir.path());
        let o = run(
            &command,
            b"uci\nisready\nposition startpos\ngo depth 3\n",
            &[],
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains("Unknown command: uci\n"),
            "{arch}: {}",
            describe(&o)
        );
        assert!(
            out.contains("Unknown command: isready\n"),
            "{arch}: {}",
            describe(&o)
        );
        assert!(out.contains("\nbestmove "), "{arch}: {}", describe(&o));

        let command = translate(&day1, arch, dir.path());
        let outcome = |position: &str| {
            let o = run(
                &command,
                format!("uci\n{position}\ngo depth 3\n").as_bytes(),
                &[],
            );
            (o.status, String::from_utf8_lossy(&o.stdout).into_owned())
        };
        let start = outcome("position startpos");
        assert_eq!(start, outcome("position fen"), "{arch}");
        let given = outcome(&format!("position fen {START}"));
        assert_eq!(given.0.code(), Some(0), "{arch}: {given:?}");
        assert!(
            given.1.contains("\nbestmove ") && !given.1.contains("bestmove (none)"),
            "{arch}: {given:?}"
        );
        assert_ne!(start, given, "{arch}");
    }
}

/// At the end of its input a plugin that has posted nothing for 2 s ends (README), even
/// one that keeps itself busy: tests/programs/animate.c schedules a frame every 16 ms for
/// ever and posts once. On every target it ends with status 0, after its 2 s of quiet
/// (it once ran for ever: its own callbacks counted as activity).
#[test]
fn an_animating_plugin_ends_after_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::c_program_pexe(dir.path(), "animate");
    for arch in TARGETS {
        let command = translate(&pexe, arch, dir.path());
        let started = std::time::Instant::now();
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .env_clear()
            .env("PNACL_GRAPHICS", "headless")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if started.elapsed() > std::time::Duration::from_secs(40) {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        let took = started.elapsed();
        let mut out = String::new();
        std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
        assert_eq!(
            status.and_then(|s| s.code()),
            Some(0),
            "{arch}: still running after {took:?}"
        );
        assert_eq!(out, "1\n", "{arch}");
        assert!(
            took >= std::time::Duration::from_secs(2),
            "{arch}: {took:?}"
        );
    }
}

/// On x86-64 the PPAPI host is pexe code joined before the plugin, and its partition's
/// object is cached: its code must be the same whatever plugin follows it (a plugin's
/// functions, globals, signatures and table length must not reach it). The object made
/// for one plugin is byte for byte the one made for another, and each program runs.
#[test]
fn the_host_s_cached_code_is_the_same_for_every_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let mut objects = Vec::new();
    for name in ["hello_tutorial", "path_tracer"] {
        let _ = std::fs::remove_dir_all(&cache);
        let pexe = common::pexes_dir().join(format!("parse/{name}.pexe"));
        let out = dir.path().join(name);
        let o = Command::new(cargo_bin("pnacl-translate"))
            .args(["-O2", "--arch", "x86-64"])
            .arg(&pexe)
            .arg("-o")
            .arg(&out)
            .env("PNACL_CACHE_DIR", &cache)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let kept: Vec<PathBuf> = std::fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy().to_string();
                n.starts_with("ppapi-host-x86-64-") && n.ends_with(".o")
            })
            .collect();
        assert_eq!(kept.len(), 1, "{name}: {kept:?}");
        objects.push(std::fs::read(&kept[0]).unwrap());
        let o = run(&[out.to_str().unwrap().to_string()], b"", &[]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", describe(&o));
    }
    assert!(
        objects[0] == objects[1],
        "the host's object differs between plugins"
    );
}
