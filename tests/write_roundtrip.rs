//! The writer against Google's: every pexe pnacl-freeze wrote (all of run/) read into the
//! model and written back comes out bit for bit; every other valid pexe comes out with the
//! same records (its abbreviations may differ), and reads back to the same model.

mod common;

#[test]
fn pnacl_freeze_pexes_are_written_back_bit_for_bit() {
    for p in common::pexes("run") {
        let data = std::fs::read(&p).unwrap();
        let m = pnacl::bitcode::read(&data).unwrap();
        let out = pnacl::bitcode::write(&m).unwrap();
        if out != data {
            let at = common::first_difference(&out, &data);
            panic!(
                "{}: the written pexe differs from byte {at} on (lengths {} and {})",
                p.display(),
                out.len(),
                data.len()
            );
        }
    }
}

#[test]
fn every_valid_pexe_reads_back_to_the_same_model() {
    // bad/fuzzed3.pexe is valid: its function block is empty (no DECLAREBLOCKS).
    let fuzzed3 = common::pexes_dir().join("bad/fuzzed3.pexe");
    for p in common::valid_pexes().into_iter().chain([fuzzed3]) {
        let data = std::fs::read(&p).unwrap();
        let m = pnacl::bitcode::read(&data).unwrap();
        let out = pnacl::bitcode::write(&m).unwrap();
        let back = pnacl::bitcode::read(&out).unwrap().without_positions();
        let m = m.without_positions();
        assert!(m == back, "{}: the model changed on the way", p.display());
    }
}

/// Which parse/ pexes pnacl-freeze wrote (they come back bit for bit) and which used
/// pnacl-compress's abbreviations (printed for the record; their records are checked by the
/// model comparison above).
#[test]
fn parse_pexes_written_by_pnacl_freeze_come_back_bit_for_bit() {
    let mut same = Vec::new();
    let mut other = Vec::new();
    for p in common::pexes("parse") {
        let data = std::fs::read(&p).unwrap();
        let m = pnacl::bitcode::read(&data).unwrap();
        let out = pnacl::bitcode::write(&m).unwrap();
        if out == data {
            same.push(common::name(&p));
        } else {
            other.push(common::name(&p));
        }
    }
    // simple and stockfish carry pnacl-compress's file-specific abbreviations, star an
    // older writer's set.
    assert_eq!(
        other,
        common::OTHER_ABBREVIATIONS,
        "bit-identical: {same:?}"
    );
    assert_eq!(same.len(), 8);
}
