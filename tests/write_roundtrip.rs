//! The writer against Google's: every pexe pnacl-freeze wrote (all of run/) read into the
//! model and written back comes out bit for bit; every other valid pexe comes out with the
//! same records (its abbreviations may differ), and reads back to the same model.

mod common;

fn strip_positions(m: &mut pnacl::ir::Module) {
    for f in &mut m.functions {
        f.pos = 0;
        if let Some(b) = &mut f.body {
            b.pos = 0;
            b.inst_pos.clear();
        }
    }
    for g in &mut m.globals {
        g.pos = 0;
    }
}

#[test]
fn pnacl_freeze_pexes_are_written_back_bit_for_bit() {
    for p in common::pexes("run") {
        let data = std::fs::read(&p).unwrap();
        let m = pnacl::bitcode::read(&data).unwrap();
        let out = pnacl::bitcode::write(&m).unwrap();
        if out != data {
            let at = out
                .iter()
                .zip(&data)
                .position(|(a, b)| a != b)
                .unwrap_or(out.len().min(data.len()));
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
    for p in common::valid_pexes() {
        let data = std::fs::read(&p).unwrap();
        let mut m = pnacl::bitcode::read(&data).unwrap();
        let out = pnacl::bitcode::write(&m).unwrap();
        let mut back = pnacl::bitcode::read(&out).unwrap();
        strip_positions(&mut m);
        strip_positions(&mut back);
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
    // simple and stockfish carry pnacl-compress's file-specific abbreviations.
    assert_eq!(
        other,
        ["simple.pexe", "stockfish.pexe"],
        "bit-identical: {same:?}"
    );
    assert_eq!(same.len(), 8);
}
