//! pnacl-llvm --target le32 P | pnacl-freeze, as programs, for every real pexe P: the
//! frozen pexe has P's records (abbreviations aside, symbol-table entries in any order),
//! and, given P's symbol-table order, is P bit for bit wherever pnacl-freeze wrote P.
#![cfg(feature = "llvm")]

mod common;

use assert_cmd::Command;

fn tool(name: &str) -> Command {
    Command::cargo_bin(name).unwrap()
}

/// `pnacl-bcdis --record-text --ignore-abbrevs`, with the module symbol table's entries
/// sorted (their order is the one thing the module does not determine).
fn records(pexe: &[u8]) -> Vec<String> {
    let out = tool("pnacl-bcdis")
        .args(["--record-text", "--ignore-abbrevs"])
        .write_stdin(pexe)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let mut lines: Vec<String> = Vec::new();
    let mut vst: Option<Vec<String>> = None;
    for l in text.lines() {
        let t = l.trim();
        match &mut vst {
            Some(v) if t == "<65534>" => {
                v.sort();
                lines.append(v);
                lines.push(t.to_string());
                vst = None;
            }
            Some(v) => v.push(t.to_string()),
            None => {
                lines.push(t.to_string());
                if t == "<65535, 14>" {
                    vst = Some(Vec::new());
                }
            }
        }
    }
    lines
}

#[test]
fn frozen_le32_modules_have_the_pexes_records() {
    let mut failures = Vec::new();
    for p in common::valid_pexes() {
        let original = std::fs::read(&p).unwrap();
        let bc = tool("pnacl-llvm")
            .args(["--target", "le32"])
            .arg(&p)
            .assert()
            .success();
        let frozen = tool("pnacl-freeze")
            .write_stdin(bc.get_output().stdout.clone())
            .assert()
            .success();
        let frozen = frozen.get_output().stdout.clone();
        let (want, got) = (records(&original), records(&frozen));
        if want != got {
            let k = common::first_difference(&want, &got);
            failures.push(format!(
                "{}: record {k}: {:?} vs {:?}",
                p.display(),
                want.get(k),
                got.get(k)
            ));
            continue;
        }
        // Bit for bit, for files pnacl-freeze wrote: the le32 module records the symbol
        // table's order (`pnacl.symtab` metadata), which pnacl-freeze follows.
        if common::freeze_wrote(&p) && frozen != original {
            failures.push(format!("{}: not bit for bit", p.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
