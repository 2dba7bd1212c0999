//! pnacl-bcdis as a program: output conventions, errors, exit codes, no partial files.

mod common;

use assert_cmd::Command;

fn bcdis() -> Command {
    Command::cargo_bin("pnacl-bcdis").unwrap()
}

#[test]
fn bad_files_report_positioned_errors_and_write_no_file() {
    for p in common::pexes("bad") {
        let name = common::name(&p);
        if name == "fuzzed3.pexe" {
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("dump.txt");
        let a = bcdis().arg(&p).arg("-o").arg(&out).assert().code(1);
        let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
        let prefix = format!("pnacl-bcdis: error: {}:", p.display());
        assert!(stderr.starts_with(&prefix), "{name}: {stderr}");
        let pos = stderr[prefix.len()..]
            .split(':')
            .take(2)
            .collect::<Vec<_>>();
        assert!(
            pos[0].trim().parse::<u64>().is_ok() && pos[1].parse::<u8>().is_ok(),
            "{name}: {stderr}"
        );
        assert!(!out.exists(), "{name}: an output file was written");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{name}: stray temporary file"
        );

        // Without -o the dump goes to stdout with the error inline.
        let a = bcdis().arg(&p).assert().code(1);
        let stdout = String::from_utf8(a.get_output().stdout.clone()).unwrap();
        assert!(
            stdout.lines().any(|l| l.starts_with("Error(")),
            "{name}: no inline error"
        );
    }
}

#[test]
fn good_file_to_file_equals_stdout_and_stdin_works() {
    let p = common::pexes_dir().join("parse/start.pexe");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d.txt");
    bcdis()
        .arg(&p)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout("");
    let file = std::fs::read_to_string(&out).unwrap();
    let a = bcdis().arg(&p).assert().success();
    assert_eq!(file.as_bytes(), &a.get_output().stdout[..]);
    let a = bcdis()
        .write_stdin(std::fs::read(&p).unwrap())
        .assert()
        .success();
    assert_eq!(file.as_bytes(), &a.get_output().stdout[..]);
    assert!(file.starts_with(
        "       0:0|<65532, 80, 69, 88, 69, 1, 0,|Magic Number: 'PEXE' (80, 69, 88, 69)\n"
    ));
    assert!(file.ends_with("     200:0|0: <65534>                   |}\n"));
}

#[test]
fn missing_input_and_help() {
    let a = bcdis().arg("/nonexistent/x.pexe").assert().code(1);
    let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.starts_with("pnacl-bcdis: error: /nonexistent/x.pexe:"),
        "{stderr}"
    );
    let a = bcdis().arg("--help").assert().success();
    assert!(String::from_utf8_lossy(&a.get_output().stdout).contains("Usage: pnacl-bcdis"));
}

#[test]
fn not_a_multiple_of_four_bytes() {
    let mut data = std::fs::read(common::pexes_dir().join("parse/start.pexe")).unwrap();
    data.push(0);
    let a = bcdis().write_stdin(data).assert().code(1);
    let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("<stdin>:") && stderr.contains("multiple of 4 bytes"),
        "{stderr}"
    );
}

#[test]
fn records_only_and_assembly_only() {
    let p = common::pexes_dir().join("parse/start.pexe");
    let a = bcdis().arg(&p).arg("--no-assembly").assert().success();
    let s = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(s.lines().all(|l| !l.contains("BlockID")));
    assert!(s.contains("      16:0|1: <65535, 8, 2>\n"));
    let a = bcdis().arg(&p).arg("--no-records").assert().success();
    let s = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(s.contains("\nmodule {  // BlockID = 8\n"));
    assert!(!s.contains("65535"));
}

/// `pnacl-bcdis --record-text` prints what pnacl-bcasm reads: every valid pexe comes back
/// bit for bit.
#[test]
fn record_text_reassembles_bit_for_bit() {
    for p in common::valid_pexes() {
        let data = std::fs::read(&p).unwrap();
        let text = Command::cargo_bin("pnacl-bcdis")
            .unwrap()
            .arg("--record-text")
            .arg(&p)
            .assert()
            .success();
        let back = Command::cargo_bin("pnacl-bcasm")
            .unwrap()
            .write_stdin(text.get_output().stdout.clone())
            .assert()
            .success();
        assert!(back.get_output().stdout == data, "{}", p.display());
    }
}

/// Every valid real pexe disassembles to exactly what Google's 2014 pnacl-bcdis printed
/// (`../shared/pexes/bcdis/NAME.dis.gz`), to standard output and with `-o`.
#[test]
fn dumps_are_the_historical_tools_byte_for_byte() {
    use std::io::Read;
    let golden_dir = common::pexes_dir().join("bcdis");
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for p in common::valid_pexes() {
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        let gz = golden_dir.join(format!("{stem}.dis.gz"));
        let mut golden = Vec::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap())
            .read_to_end(&mut golden)
            .unwrap();
        let a = bcdis().arg(&p).assert().success();
        let got = &a.get_output().stdout;
        if got != &golden {
            let at = common::first_difference(got, &golden);
            let line = golden[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            let show = |b: &[u8]| {
                String::from_utf8_lossy(b.split(|&c| c == b'\n').nth(line - 1).unwrap_or(&[]))
                    .into_owned()
            };
            panic!(
                "{stem}: differs from the 2014 dump at line {line}:\n  2014: {}\n  ours: {}",
                show(&golden),
                show(got)
            );
        }
        let out = dir.path().join(format!("{stem}.dis"));
        bcdis().arg(&p).arg("-o").arg(&out).assert().success();
        assert!(std::fs::read(&out).unwrap() == golden, "{stem}: -o differs");
        checked += 1;
    }
    assert_eq!(checked, 21);
}
