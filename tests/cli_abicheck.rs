//! pnacl-abicheck as a program: exit statuses, JSON, quiet mode, every input form, and the
//! agreement of the two checkers (the pexe model's and LLVM's) on the real pexes.
#![cfg(feature = "llvm")]

mod common;

use assert_cmd::Command;

const CLEAN: &str = r#"target datalayout = "e-p:32:32-i64:64"
target triple = "le32-unknown-nacl"
define void @_start(i32 %a) {
  ret void
}
"#;

const BROKEN: &str = r#"target datalayout = "e-p:32:32-i64:64"
target triple = "le32-unknown-nacl"
define void @_start(i32 %a) {
  %p = inttoptr i32 %a to i32*
  %l = load i32, i32* %p, align 4
  %x = add nsw i32 %l, 1
  ret void
}
"#;

fn abicheck() -> Command {
    Command::cargo_bin("pnacl-abicheck").unwrap()
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn exit_status_is_0_clean_1_broken_2_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let clean = write(&dir, "clean.ll", CLEAN);
    let broken = write(&dir, "broken.ll", BROKEN);
    let garbage = write(&dir, "garbage.ll", "define void @f( {");
    abicheck().arg(&clean).assert().code(0);
    abicheck().arg(&broken).assert().code(1);
    abicheck().arg(&clean).arg(&broken).assert().code(1);
    let a = abicheck().arg(&garbage).arg(&broken).assert().code(2);
    // The unreadable file is reported, and the others are still checked.
    let out = a.get_output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(&format!(
            "pnacl-abicheck: error: {}:1:18: ",
            garbage.display()
        )),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("broken.ll: 2 errors, 0 warnings"));
    abicheck()
        .arg(dir.path().join("missing.ll"))
        .assert()
        .code(2);
    // A module LLVM's verifier rejects breaks a rule (a pexe is a valid LLVM module): status
    // 1, the verifier's words as a finding.
    let undominated = write(&dir, "undominated.ll", UNDOMINATED);
    let a = abicheck().arg(&undominated).assert().code(1);
    let stdout = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(
        stdout
            .contains("Module is not a valid LLVM module: Instruction does not dominate all uses!"),
        "{stdout}"
    );
}

/// `%x` is used in `%j`, which `%a` (its block) does not dominate.
const UNDOMINATED: &str = r#"
target datalayout = "e-p:32:32:32-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v128:32:32"
target triple = "le32-unknown-nacl"

define void @_start(i32 %p) {
entry:
  %c = icmp eq i32 %p, 0
  br i1 %c, label %a, label %b
a:
  %x = add i32 %p, 1
  br label %j
b:
  br label %j
j:
  %y = add i32 %x, 1
  ret void
}
"#;

#[test]
fn standard_input_is_read_when_no_file_is_given() {
    let a = abicheck().write_stdin(BROKEN).assert().code(1);
    let stdout = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(
        stdout.ends_with("<stdin>: 2 errors, 0 warnings\n"),
        "{stdout}"
    );
}

#[test]
fn quiet_prints_only_the_summary() {
    let a = abicheck()
        .arg("--quiet")
        .write_stdin(BROKEN)
        .assert()
        .code(1);
    assert_eq!(
        String::from_utf8_lossy(&a.get_output().stdout),
        "<stdin>: 2 errors, 0 warnings\n"
    );
}

#[test]
fn json_lists_every_finding_of_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let broken = write(&dir, "broken.ll", BROKEN);
    let pexe = common::pexes_dir().join("run/fasta.pexe");
    let a = abicheck()
        .args(["--format", "json"])
        .arg(&broken)
        .arg(&pexe)
        .arg(dir.path().join("missing.ll"))
        .assert()
        .code(2);
    let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    let files = v.as_array().unwrap();
    assert_eq!(files.len(), 3);
    assert_eq!(files[0]["readable"], true);
    assert_eq!(files[0]["errors"], 2);
    let f = files[0]["findings"].as_array().unwrap();
    assert_eq!(f.len(), 2);
    assert_eq!(f[0]["severity"], "error");
    assert_eq!(f[0]["scope"], "function");
    assert_eq!(f[0]["function"], "_start");
    assert_eq!(
        f[0]["message"],
        "Function _start disallowed: bad alignment:    %l = load i32, i32* %p, align 4"
    );
    assert_eq!(f[0]["rule"], "load, store: alignment");
    assert_eq!(
        f[1]["message"],
        "Function _start disallowed: has \"nsw\" attribute:    %x = add nsw i32 %l, 1"
    );
    assert_eq!(files[1]["readable"], true);
    assert_eq!(files[1]["errors"], 0);
    assert_eq!(files[1]["findings"].as_array().unwrap().len(), 0);
    assert_eq!(files[2]["readable"], false);
}

#[test]
fn json_positions_of_pexe_findings_are_bit_positions() {
    // The spec's fragment: an external function that is not _start, and no entry point.
    let dir = tempfile::tempdir().unwrap();
    let pexe = dir.path().join("frag.pexe");
    Command::cargo_bin("pnacl-bcasm")
        .unwrap()
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/lit-tests/spec/integer-add.test"
        ))
        .arg("-o")
        .arg(&pexe)
        .assert()
        .success();
    let a = abicheck()
        .args(["--format", "json"])
        .arg(&pexe)
        .assert()
        .code(1);
    let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    let f = v[0]["findings"].as_array().unwrap();
    assert_eq!(f.len(), 2);
    // The function's record has a position; the missing entry point has none.
    let pos = f[0]["position"].as_str().unwrap();
    let (byte, bit) = pos.split_once(':').unwrap();
    assert!(byte.parse::<u64>().unwrap() > 0 && bit.parse::<u8>().unwrap() < 8);
    assert!(f[1]["position"].is_null());
}

/// pnacl-llvm's le32 module of every real pexe is PNaCl normal form: the LLVM-level checker
/// finds it as clean as the model checker finds the pexe, in bitcode and in text.
#[test]
fn le32_modules_of_the_real_pexes_are_clean() {
    let dir = tempfile::tempdir().unwrap();
    for p in common::valid_pexes() {
        for text in [false, true] {
            let out = dir.path().join(if text { "m.ll" } else { "m.bc" });
            let mut c = Command::cargo_bin("pnacl-llvm").unwrap();
            c.args(["--target", "le32"]).arg(&p).arg("-o").arg(&out);
            if text {
                c.arg("-S");
            }
            c.assert().success();
            let a = abicheck().arg(&out).assert();
            let o = a.get_output();
            assert!(
                o.status.success(),
                "{}:\n{}",
                p.display(),
                String::from_utf8_lossy(&o.stdout)
            );
        }
    }
}
