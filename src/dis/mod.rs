//! pnacl-bcdis: prints a pexe in the three columns of the spec's examples (bit position,
//! record with its abbreviation, PNaClAsm), with errors inline (writer.md §10).
//!
//! It drives the same `bitstream::Reader` and the same `bitcode::Parser` step as the
//! reader: every record is decoded once, by the parser, and printed from what the parser
//! made of it.

pub mod format;
mod printer;

use std::io::{self, Write};

use crate::bitcode::header;
use crate::bitstream::Reader;
use crate::error::Error;

pub use printer::{AbbrevCounts, Printer};

/// Output options.
#[derive(Debug, Clone)]
pub struct Options {
    /// Print the record column.
    pub records: bool,
    /// Print the assembly column.
    pub assembly: bool,
    /// Reproduce the historical DEFINE_ABBREV display quirks (writer.md §10.2): the block id
    /// in front of the first abbreviation after each SETBID, and the extra 0 after Fixed(0)
    /// and VBR(0). The spec's own examples show neither.
    pub abbrev_quirks: bool,
    /// Stop after this many errors.
    pub max_errors: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            records: true,
            assembly: true,
            abbrev_quirks: true,
            max_errors: 20,
        }
    }
}

/// What a disassembly found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The errors printed inline, in order.
    pub errors: Vec<Error>,
    /// Whether the dump stopped early (a bitstream error or too many errors).
    pub stopped: bool,
}

/// Disassembles `data` to `out`.
pub fn disassemble<W: Write>(data: &[u8], opts: &Options, out: &mut W) -> io::Result<Outcome> {
    let mut p = Printer::new(opts, out);
    if !data.len().is_multiple_of(4) {
        let e = Error::new(
            (data.len() as u64 / 4) * 32,
            "Bitcode stream should be a multiple of 4 bytes in length.",
        );
        p.error(&e)?;
        return p.finish_stopped();
    }
    let hdr = match header::parse(data) {
        Ok(h) => h,
        Err(e) => {
            p.error(&e)?;
            return p.finish_stopped();
        }
    };
    p.header(&data[..hdr.size], &hdr)?;
    let mut reader = match Reader::new(data, hdr.size as u64 * 8) {
        Ok(r) => r,
        Err(e) => {
            p.error(&e)?;
            return p.finish_stopped();
        }
    };
    let mut parser = crate::bitcode::Parser::new(&hdr);
    parser.objdump_wording = true;
    // Depth below which the parser refused a block: its records are shown raw.
    let mut refused: Option<usize> = None;
    loop {
        let pos = reader.pos();
        let depth = reader.depth();
        let counts = AbbrevCounts {
            blockinfo: reader.block_id().map_or(0, |b| reader.blockinfo_count(b)),
            total: reader.abbrev_count(),
            setbid: p.setbid().map_or(0, |b| reader.blockinfo_count(b)),
        };
        let item = match reader.next_item() {
            Ok(crate::bitstream::Item::Eof) => break,
            Ok(item) => item,
            Err(e) => {
                p.error(&e)?;
                return p.finish_stopped();
            }
        };
        if let Some(d) = refused {
            // Inside a block the parser refused: show the records as they are.
            p.raw_item(pos, depth, &item)?;
            if matches!(item, crate::bitstream::Item::Exit) && depth == d + 1 {
                refused = None;
            }
            continue;
        }
        let result = parser.item(pos, &item);
        if matches!(item, crate::bitstream::Item::Enter { .. }) && result.is_err() {
            refused = Some(depth);
        }
        p.item(pos, depth, &item, counts, &result, &parser)?;
        if p.too_many_errors() {
            return p.finish_stopped();
        }
    }
    if let Err(m) = parser.check_complete() {
        p.error(&Error::new(reader.pos(), m.to_string()))?;
    }
    p.finish()
}
