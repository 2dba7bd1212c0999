//! pnacl-compress: every real pexe comes out as the same records (and the same module)
//! under abbreviations chosen from its own records, no larger than the files pnacl-compress
//! wrote in 2014, and always smaller than pnacl-freeze's fixed set writes it.

mod common;

use assert_cmd::Command;
use pnacl::bitcode::compress::compress;
use pnacl::bitcode::text::records_text;

#[test]
fn every_pexe_compresses_to_the_same_records_and_smaller() {
    let mut pexes = common::valid_pexes();
    pexes.extend(common::pexes("plugins"));
    let mut table = Vec::new();
    for p in &pexes {
        let data = std::fs::read(p).unwrap();
        let out = compress(&data).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let name = common::name(p);
        assert_eq!(
            records_text(&data, true).unwrap(),
            records_text(&out, true).unwrap(),
            "{name}: other records"
        );
        let a = pnacl::bitcode::read(&data).unwrap().without_positions();
        let b = pnacl::bitcode::read(&out).unwrap().without_positions();
        assert!(a == b, "{name}: another module");
        // Compressing again changes no record either.
        let again = compress(&out).unwrap();
        assert_eq!(
            records_text(&again, true).unwrap(),
            records_text(&out, true).unwrap()
        );
        // pnacl-freeze's abbreviations, the other direction: what the file would be written
        // as by the model's writer.
        let frozen = pnacl::bitcode::write(&a).unwrap();
        assert!(
            out.len() < frozen.len(),
            "{name}: {} not below pnacl-freeze's {}",
            out.len(),
            frozen.len()
        );
        table.push(format!(
            "{name}: {} -> {} (pnacl-freeze: {})",
            data.len(),
            out.len(),
            frozen.len()
        ));
        // No larger than what Google's pnacl-compress made of the compressed ones.
        if !common::freeze_wrote(p) {
            assert!(
                out.len() <= data.len(),
                "{name}: {} > {}",
                out.len(),
                data.len()
            );
        }
    }
    eprintln!("{}", table.join("\n"));
}

#[test]
fn the_tool_compresses_and_refuses_what_is_no_pexe() {
    let dir = tempfile::tempdir().unwrap();
    let pexe = common::pexes_dir().join("run/puts.pexe");
    let out = dir.path().join("small.pexe");
    Command::cargo_bin("pnacl-compress")
        .unwrap()
        .arg(&pexe)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let (a, b) = (std::fs::read(&pexe).unwrap(), std::fs::read(&out).unwrap());
    assert!(b.len() < a.len());
    assert_eq!(
        records_text(&a, true).unwrap(),
        records_text(&b, true).unwrap()
    );
    // A bad pexe: the reader's error with its position, and no output file.
    for bad in common::pexes("bad") {
        if common::name(&bad) == "fuzzed3.pexe" {
            continue; // a valid pexe (pexes/README.md)
        }
        let o = dir.path().join("bad.out");
        let a = Command::cargo_bin("pnacl-compress")
            .unwrap()
            .arg(&bad)
            .arg("-o")
            .arg(&o)
            .timeout(std::time::Duration::from_secs(30))
            .assert()
            .failure();
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(
            err.starts_with("pnacl-compress: error: "),
            "{}: {err}",
            bad.display()
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(!o.exists());
    }
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "hello\n").unwrap();
    let a = Command::cargo_bin("pnacl-compress")
        .unwrap()
        .arg(&text)
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("a text file"), "{err}");
}

/// Mutated real pexes the reader still accepts (odd records, values, lengths and codes in
/// places no compiler puts them): each compresses, and comes back as the same model and
/// records. A fuzz target does the same at length (`scripts/fuzz compress`).
#[test]
fn mutants_the_reader_accepts_compress_to_the_same_records() {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut accepted = 0;
    for name in [
        "run/puts.pexe",
        "parse/simple.pexe",
        "parse/main.pexe",
        "parse/bitcast.pexe",
    ] {
        let data = std::fs::read(common::pexes_dir().join(name)).unwrap();
        for _ in 0..1500 {
            let mut d = data.clone();
            for _ in 0..1 + next() % 3 {
                let k = 16 + (next() as usize) % (d.len() - 16);
                d[k] ^= 1 << (next() % 8);
            }
            let Ok(m) = pnacl::bitcode::read(&d) else {
                continue;
            };
            accepted += 1;
            let out = compress(&d).unwrap_or_else(|e| panic!("{name}: a mutant that reads: {e}"));
            let back = pnacl::bitcode::read(&out).unwrap();
            assert!(
                back.without_positions() == m.without_positions(),
                "{name}: another module"
            );
            assert_eq!(
                records_text(&d, true).unwrap(),
                records_text(&out, true).unwrap()
            );
        }
    }
    // Enough of them read for the test to mean something.
    eprintln!("{accepted} mutants read");
    assert!(accepted > 300, "{accepted}");
}
