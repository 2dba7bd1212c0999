//! pnacl-llvm and pnacl-translate as programs: error format, no partial output, stages.
#![cfg(feature = "llvm")]

mod common;

use assert_cmd::Command;

#[test]
fn bad_pexes_are_reported_with_positions_and_write_nothing() {
    for tool in ["pnacl-llvm", "pnacl-translate"] {
        for p in common::pexes("bad") {
            if common::name(&p) == "fuzzed3.pexe" {
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("out");
            let a = Command::cargo_bin(tool)
                .unwrap()
                .arg(&p)
                .arg("-o")
                .arg(&out)
                .assert()
                .code(1);
            let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
            let prefix = format!("{tool}: error: {}:", p.display());
            assert!(stderr.starts_with(&prefix), "{tool}: {stderr}");
            let rest = &stderr[prefix.len()..];
            let (byte, bit) = rest.split_once(':').unwrap();
            assert!(
                byte.parse::<u64>().is_ok() && bit[..1].parse::<u8>().is_ok(),
                "{stderr}"
            );
            assert_eq!(
                std::fs::read_dir(dir.path()).unwrap().count(),
                0,
                "{tool} left a file"
            );
        }
    }
}

#[test]
fn pnacl_llvm_writes_text_or_bitcode_for_each_target() {
    let p = common::pexes_dir().join("run/puts.pexe");
    for (t, triple) in [
        ("le32", "le32-unknown-nacl"),
        ("x86-32", "i686-unknown-linux-gnu"),
        ("arm", "armv7-unknown-linux-gnueabihf"),
    ] {
        let a = Command::cargo_bin("pnacl-llvm")
            .unwrap()
            .args(["-S", "--target", t])
            .arg(&p)
            .assert()
            .success();
        let text = String::from_utf8(a.get_output().stdout.clone()).unwrap();
        assert!(
            text.contains(&format!("target triple = \"{triple}\"")),
            "{t}"
        );
        let dir = tempfile::tempdir().unwrap();
        let bc = dir.path().join("m.bc");
        Command::cargo_bin("pnacl-llvm")
            .unwrap()
            .args(["--target", t])
            .arg(&p)
            .arg("-o")
            .arg(&bc)
            .assert()
            .success();
        assert_eq!(&std::fs::read(&bc).unwrap()[..4], b"BC\xC0\xDE");
    }
}

#[test]
fn a_missing_linker_or_compiler_names_the_package() {
    let p = common::pexes_dir().join("run/puts.pexe");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("puts");
    let a = Command::cargo_bin("pnacl-translate")
        .unwrap()
        .arg(&p)
        .arg("-o")
        .arg(&out)
        .env("PATH", "/nonexistent")
        .env("PNACL_CACHE_DIR", dir.path().join("cache"))
        .assert()
        .code(1);
    let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("runtime") || stderr.contains("tools"),
        "{stderr}"
    );
    assert!(
        stderr.contains("install the Debian package clang-14"),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// A linker that stops — before opening any object, or halfway through reading one —
/// gives a link error with its message, never a hang, and no output file.
#[test]
fn a_linker_that_stops_early_is_a_link_error() {
    let p = common::pexes_dir().join("parse/path_tracer.pexe");
    let lld = pnacl::tools::LD_LLD;
    let lld_name = std::path::Path::new(lld).file_name().unwrap();
    for (what, script) in [
        ("at once", "echo 'fake linker: refused' >&2\nexit 1\n"),
        // Arguments: -static --no-pie -e _start --gc-sections -o OUT OBJ0 ...
        (
            "halfway",
            "head -c 100 \"$8\" > /dev/null\necho 'fake linker: refused' >&2\nexit 1\n",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let fake = bin.join(lld_name);
        std::fs::write(&fake, format!("#!/bin/sh\n{script}")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let out = dir.path().join("pt");
        let a = Command::cargo_bin("pnacl-translate")
            .unwrap()
            // (x86-32: the linker's arguments as the scripts above count them.)
            .args(["-O0", "--threads", "2", "--arch", "x86-32"])
            .arg(&p)
            .arg("-o")
            .arg(&out)
            .env("PATH", path)
            .timeout(std::time::Duration::from_secs(120))
            .assert()
            .code(1);
        let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
        assert!(
            stderr.contains("link: fake linker: refused"),
            "{what}: {stderr}"
        );
        assert!(!out.exists(), "{what}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "{what}");
    }
}

/// `-o` naming something that is no regular file (`/dev/null`, `/dev/stdout`, a FIFO) is
/// written into: renaming the finished output onto it, as for a file, replaced /dev/null
/// with a regular file when run as root. A FIFO here, read as the tool writes it.
#[test]
fn an_output_that_is_no_regular_file_is_written_into_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let pexe = common::pexes_dir().join("run/puts.pexe");
    for (tool, args) in [
        ("pnacl-bcdis", vec![]),
        ("pnacl-llvm", vec!["--target", "le32", "-S"]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        Command::cargo_bin(tool)
            .unwrap()
            .args(&args)
            .arg(&pexe)
            .arg("-o")
            .arg(&fifo)
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .success();
        // (Before the reader is joined: it would wait for ever on a FIFO renamed away.)
        let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(t.is_fifo(), "{tool}: the FIFO was replaced");
        let got = reader.join().unwrap();
        let want = Command::cargo_bin(tool)
            .unwrap()
            .args(&args)
            .arg(&pexe)
            .output()
            .unwrap()
            .stdout;
        assert!(!want.is_empty());
        assert!(got == want, "{tool}: the FIFO's reader got other bytes");
    }
}
