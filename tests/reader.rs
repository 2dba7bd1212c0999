//! The reader on the real pexes: every valid one reads, every bad one but fuzzed3 is
//! rejected with a position inside the file.

mod common;

use pnacl::bitcode;

#[test]
fn every_real_pexe_reads() {
    for p in common::valid_pexes() {
        let data = std::fs::read(&p).unwrap();
        let m = bitcode::read(&data).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        // The fast paths of `read` and the item-by-item reader build the same module.
        assert!(
            bitcode::read_itemwise(&data).as_ref() == Ok(&m),
            "{}: read_itemwise differs",
            p.display()
        );
        // With the abbreviations compiled into decoding plans and without, whatever the
        // file's size: the same module.
        for planned in [true, false] {
            assert!(
                bitcode::read_with_plans(&data, planned).as_ref() == Ok(&m),
                "{}: read_with_plans({planned}) differs",
                p.display()
            );
        }
        let c = m.counts();
        assert!(c.functions > 0 && c.types > 0, "{}: {c:?}", p.display());
        assert!(
            m.function_named("_start").is_some(),
            "{}: no _start",
            p.display()
        );
    }
}

#[test]
fn bad_pexes_are_rejected_with_a_position_except_fuzzed3() {
    for p in common::pexes("bad") {
        let data = std::fs::read(&p).unwrap();
        let r = bitcode::read(&data);
        assert!(
            r == bitcode::read_itemwise(&data),
            "{}: read and read_itemwise differ",
            p.display()
        );
        for planned in [true, false] {
            assert!(
                r == bitcode::read_with_plans(&data, planned),
                "{}: read and read_with_plans({planned}) differ",
                p.display()
            );
        }
        if common::name(&p) == "fuzzed3.pexe" {
            // A function block holding only an abbreviation definition: LLVM reads it as a
            // function without a body, and so do we.
            let m = r.unwrap_or_else(|e| panic!("fuzzed3 must read: {e}"));
            assert_eq!(m.functions[0].body.as_ref().unwrap().num_blocks, 0);
            continue;
        }
        let e = r.expect_err(&common::name(&p));
        assert!(
            e.pos() <= data.len() as u64 * 8,
            "{}: position {} past the end",
            p.display(),
            e.pos()
        );
        assert!(!e.msg().is_empty());
    }
}

#[test]
fn specific_bad_files_say_what_is_wrong() {
    let read = |n: &str| {
        let data = std::fs::read(common::pexes_dir().join("bad").join(n)).unwrap();
        bitcode::read(&data).unwrap_err()
    };
    // A truncated file whose module block claims more words than there are.
    let e = read("fuzzed6.pexe");
    assert_eq!(e.position().to_string(), "16:0");
    assert!(e.msg().starts_with("the file is truncated"), "{e}");
    // A forward reference that no FORWARDTYPEREF declares.
    let e = read("fuzzed4.pexe");
    assert!(e.msg().contains("Invalid relative value id"), "{e}");
}

#[test]
fn stockfish_reads_with_its_own_abbreviations() {
    // Written by pnacl-compress: module-level abbreviations, BLOCKINFO before the version.
    let data = std::fs::read(common::pexes_dir().join("parse/stockfish.pexe")).unwrap();
    let m = bitcode::read(&data).unwrap();
    let c = m.counts();
    assert_eq!((c.types, c.functions, c.globals), (62, 884, 1108));
    assert_eq!(c.defined, 868);
}

/// The position the model keeps for each instruction (`Body::inst_pos`, an offset from
/// its function block) is where the bitstream layer finds that instruction's record.
#[test]
fn instruction_positions_are_their_records() {
    use pnacl::bitstream::{Item, Reader};
    for p in common::valid_pexes() {
        let data = std::fs::read(&p).unwrap();
        let m = bitcode::read(&data).unwrap();
        let h = bitcode::header::parse(&data).unwrap();
        let mut r = Reader::new(&data, h.size as u64 * 8).unwrap();
        // Positions of the records directly in each function block but DECLAREBLOCKS (1)
        // and FORWARDTYPEREF (43), block by block.
        let mut found: Vec<Vec<u64>> = Vec::new();
        loop {
            let pos = r.pos();
            let item = match r.next_item().unwrap() {
                Item::Eof => break,
                Item::Enter { id: 12, .. } => Some(None),
                Item::Record { code, .. } => Some(Some(code)),
                _ => None,
            };
            match item {
                Some(None) => found.push(Vec::new()),
                Some(Some(code)) if r.block_id() == Some(12) && code != 1 && code != 43 => {
                    found.last_mut().unwrap().push(pos)
                }
                _ => {}
            }
        }
        let bodies: Vec<_> = (0..m.functions.len() as u32)
            .filter_map(|f| m.body(f))
            .collect();
        assert_eq!(bodies.len(), found.len(), "{}", p.display());
        for (b, want) in bodies.iter().zip(&found) {
            let got: Vec<u64> = (0..b.insts.len())
                .map(|i| b.inst_pos(i).expect("a position"))
                .collect();
            assert_eq!(&got, want, "{}: body at bit {}", p.display(), b.pos);
        }
    }
}
