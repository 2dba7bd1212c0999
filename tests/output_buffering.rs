//! The runtime gathers standard output in blocks when it is not a terminal (runtime/
//! outbuf.h): PNaCl's newlib line-buffers stdout whatever it is. A program writing many
//! short lines (fasta: lines of 61 bytes) makes few large writes to a file or a pipe, and
//! one write a line to a terminal; what it prints is the same either way. Counted with
//! strace, on x86-32.
#![cfg(feature = "llvm")]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use assert_cmd::cargo::cargo_bin;

/// The writes to standard output `trace` (strace's output) records, and their sizes.
fn stdout_writes(trace: &Path) -> Vec<usize> {
    std::fs::read_to_string(trace)
        .unwrap()
        .lines()
        .filter_map(|l| {
            // "[PID ]write(1, "...", N) = N"
            let l = l.split_once("write(1, ").map(|x| x.1)?;
            l.rsplit_once(") = ")?.1.trim().parse().ok()
        })
        .collect()
}

/// Runs `argv` under strace, its standard output a pty (`terminal`) or a pipe; what it
/// printed and its writes to standard output.
fn traced(exe: &Path, argv: &[&str], trace: &Path, terminal: bool) -> (Vec<u8>, Vec<usize>) {
    // A pty, through Python's pty module: what the program writes to it, read back.
    const PTY: &str = r#"
import os, pty, subprocess, sys
m, s = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=s)
os.close(s)
data = b""
while True:
    try:
        chunk = os.read(m, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
sys.exit(p.wait() or (sys.stdout.buffer.write(data) and 0))
"#;
    let mut c = if terminal {
        let mut c = Command::new("python3");
        c.args(["-c", PTY]);
        c.arg("strace");
        c
    } else {
        Command::new("strace")
    };
    c.args(["-f", "-e", "trace=write", "-o"])
        .arg(trace)
        .arg(exe)
        .args(argv)
        .env_clear()
        .stdout(Stdio::piped());
    let out = c.output().expect("strace runs");
    assert!(out.status.success(), "{:?}", out.status);
    let mut printed = out.stdout;
    if terminal {
        // The terminal's line discipline turns each \n into \r\n.
        printed = String::from_utf8(printed)
            .unwrap()
            .replace("\r\n", "\n")
            .into_bytes();
    }
    (printed, stdout_writes(trace))
}

#[test]
fn many_short_lines_are_few_writes_except_to_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let exe = dir.path().join("fasta");
    let st = Command::new(cargo_bin("pnacl-translate"))
        .args(["-O2", "--arch", "x86-32"])
        .arg(common::pexes_dir().join("run/fasta.pexe"))
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(st.success());
    let expected = Command::new(&exe)
        .arg("50000")
        .env_clear()
        .output()
        .unwrap()
        .stdout;
    let lines = expected.iter().filter(|&&b| b == b'\n').count();
    assert!(lines > 5000);

    // A pipe: blocks of 64 KiB (and what is left at the end).
    let (printed, writes) = traced(&exe, &["50000"], &dir.path().join("pipe.trace"), false);
    assert_eq!(printed, expected);
    assert!(
        writes.len() <= expected.len() / 65536 + 2,
        "{} writes for {} bytes to a pipe",
        writes.len(),
        expected.len()
    );
    assert_eq!(writes.iter().sum::<usize>(), expected.len());

    // A terminal: each line as it comes.
    let (printed, writes) = traced(&exe, &["1000"], &dir.path().join("tty.trace"), true);
    let small = Command::new(&exe)
        .arg("1000")
        .env_clear()
        .output()
        .unwrap()
        .stdout;
    assert_eq!(printed, small);
    let small_lines = small.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(writes.len(), small_lines, "one write a line to a terminal");
}
