//! Records as text, the record column of pnacl-bcdis (`A: <code, v1, …>`), and their
//! encoding with the bitstream writer. This is how tests build pexes record by record,
//! valid or not: the spec's examples, malformed files for the reader.
//!
//! Accepted lines: a full dump line (`  16:0|1: <65535, 8, 2>   |module {`), a continuation
//! line (`    |   116>   |`), or bare record text (`3: <1, 1>`). Text after a `#` at the
//! start of a line is ignored. Pseudo-records: `<65532, …>` the header bytes,
//! `1: <65535, id, width>` enter block, `0: <65534>` exit block,
//! `2: <65533, fields…>` define abbreviation; inside BLOCKINFO `1: <1, id>` is SETBID.

use crate::bitstream::{Abbrev, AbbrevOp, Writer, BLOCKINFO_BLOCK_ID};

/// One parsed record line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextRecord {
    /// The abbreviation index, or `None` for the header.
    pub abbrev: Option<u32>,
    pub values: Vec<u64>,
    /// 1-based line where it starts.
    pub line: usize,
}

/// Extracts the records from dump-like text.
pub fn parse(text: &str) -> Result<Vec<TextRecord>, String> {
    let mut recs: Vec<TextRecord> = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    let finish =
        |cur: &mut Option<(usize, String)>, recs: &mut Vec<TextRecord>| -> Result<(), String> {
            if let Some((line, s)) = cur.take() {
                recs.push(parse_one(&s, line)?);
            }
            Ok(())
        };
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let trimmed = raw.trim_start();
        if trimmed.starts_with('#')
            || trimmed.starts_with(';')
            || trimmed.is_empty()
            || trimmed.starts_with("Error(")
            || trimmed.starts_with("Warning(")
        {
            continue;
        }
        // The record column: between the first and second '|' when there are bars.
        let (label, rec) = match raw.split_once('|') {
            Some((label, rest)) => (Some(label.trim()), rest.split('|').next().unwrap()),
            None => (None, raw),
        };
        let r = rec.trim();
        if r.is_empty() {
            continue;
        }
        let starts_record =
            label.is_some_and(|l| !l.is_empty()) || label.is_none() && r.contains('<');
        match &mut cur {
            Some((_, s)) if !starts_record => {
                s.push(' ');
                s.push_str(r);
            }
            _ => {
                finish(&mut cur, &mut recs)?;
                cur = Some((line_no, r.to_string()));
            }
        }
        if r.ends_with('>') {
            finish(&mut cur, &mut recs)?;
        }
    }
    finish(&mut cur, &mut recs)?;
    Ok(recs)
}

fn parse_one(s: &str, line: usize) -> Result<TextRecord, String> {
    let err = |m: &str| format!("line {line}: {m}: {s}");
    let lt = s.find('<').ok_or_else(|| err("no '<'"))?;
    let gt = s.rfind('>').ok_or_else(|| err("no '>'"))?;
    let head = s[..lt].trim();
    let abbrev = match head.strip_suffix(':') {
        _ if head.is_empty() => None,
        Some(h) => Some(
            h.trim()
                .parse::<u32>()
                .map_err(|_| err("bad abbreviation index"))?,
        ),
        None => return Err(err("expected 'A:' before '<'")),
    };
    let values = s[lt + 1..gt]
        .split(',')
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
        .map(|v| {
            v.parse::<u64>()
                .map_err(|_| err(&format!("bad value '{v}'")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if values.is_empty() {
        return Err(err("empty record"));
    }
    Ok(TextRecord {
        abbrev,
        values,
        line,
    })
}

/// Parses DEFINE_ABBREV fields (`count, ops…`) into an abbreviation. With `quirks`, the
/// historical display's extra values are recognised: a block id in front and an extra 0
/// after fixed(0)/vbr(0).
pub fn abbrev_from_fields(fields: &[u64], quirks: bool) -> Result<Abbrev, String> {
    if let Some(a) = try_abbrev(fields, quirks) {
        return Ok(a);
    }
    if quirks && fields.len() > 1 {
        if let Some(a) = try_abbrev(&fields[1..], quirks) {
            return Ok(a);
        }
    }
    Err(format!("malformed abbreviation fields {fields:?}"))
}

fn try_abbrev(fields: &[u64], quirks: bool) -> Option<Abbrev> {
    let n = *fields.first()? as usize;
    let mut ops = Vec::with_capacity(n);
    let mut i = 1;
    for _ in 0..n {
        match *fields.get(i)? {
            1 => {
                ops.push(AbbrevOp::Literal(*fields.get(i + 1)?));
                i += 2;
            }
            0 => {
                let enc = *fields.get(i + 1)?;
                match enc {
                    1 | 2 => {
                        let w = *fields.get(i + 2)?;
                        if w > 64 {
                            return None;
                        }
                        ops.push(if enc == 1 {
                            AbbrevOp::Fixed(w as u8)
                        } else {
                            AbbrevOp::Vbr(w as u8)
                        });
                        i += 3;
                        if quirks && w == 0 {
                            // The historical display prints a 0 after a zero width.
                            if fields.get(i) != Some(&0) {
                                return None;
                            }
                            i += 1;
                        }
                    }
                    3 => {
                        ops.push(AbbrevOp::Array);
                        i += 2;
                    }
                    4 => {
                        ops.push(AbbrevOp::Char6);
                        i += 2;
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    (i == fields.len()).then(|| Abbrev::new(ops))
}

/// Encodes records into a file: the header record's bytes, then the bitstream.
pub fn assemble(recs: &[TextRecord], quirks: bool) -> Result<Vec<u8>, String> {
    let mut w = Writer::new();
    let mut blocks: Vec<u32> = Vec::new();
    for r in recs {
        let err = |m: String| format!("line {}: {m}", r.line);
        let v = &r.values;
        match (r.abbrev, v[0]) {
            (None, 65532) => {
                if w.pos() != 0 {
                    return Err(err("the header record must come first".into()));
                }
                let bytes: Vec<u8> = v[1..]
                    .iter()
                    .map(|&b| u8::try_from(b).map_err(|_| err(format!("header byte {b}"))))
                    .collect::<Result<_, _>>()?;
                w.bits.emit_bytes(&bytes);
            }
            (None, _) => return Err(err("a record without an abbreviation index".into())),
            (Some(1), 65535) => {
                let [_, id, width] = v[..] else {
                    return Err(err("enter needs <65535, id, width>".into()));
                };
                w.enter_block(id as u32, width as u32);
                blocks.push(id as u32);
            }
            (Some(0), 65534) => {
                if blocks.pop().is_none() {
                    return Err(err("exit outside any block".into()));
                }
                w.exit_block();
            }
            (Some(2), 65533) => {
                let a = abbrev_from_fields(&v[1..], quirks).map_err(err)?;
                w.define_abbrev(&a);
            }
            (Some(a), code)
                if blocks.last() == Some(&BLOCKINFO_BLOCK_ID)
                    && (a == 1 || a == 3)
                    && code == 1 =>
            {
                let [_, bid] = v[..] else {
                    return Err(err("SETBID needs one operand".into()));
                };
                w.set_bid(bid as u32);
            }
            (Some(a), code) => {
                if a < 3 {
                    return Err(err(format!("abbreviation index {a} is not a data record")));
                }
                if code > u32::MAX as u64 {
                    return Err(err(format!("record code {code} too large")));
                }
                if w.emit_record(a, code as u32, &v[1..]).is_err() {
                    return Err(err(format!("the record does not fit abbreviation {a}")));
                }
            }
        }
    }
    if !blocks.is_empty() {
        return Err(format!("{} blocks left open", blocks.len()));
    }
    Ok(w.into_bytes())
}

/// The records of a whole file as text, one per line in the syntax `parse` reads (so
/// `assemble(parse(records_text(f)))` is `f` bit for bit), indented by block depth.
///
/// With `ignore_abbrevs`, what depends only on the abbreviations is left out — BLOCKINFO,
/// abbreviation definitions, the abbreviation index of each record and each block's
/// abbreviation width — leaving the records' values: two files that differ only in how
/// they abbreviate give the same text.
pub fn records_text(data: &[u8], ignore_abbrevs: bool) -> crate::error::Result<String> {
    use crate::bitstream::{Item, Reader};
    use std::fmt::Write;
    let header = super::header::parse(data)?;
    let mut out = String::new();
    let hb: Vec<String> = data[..header.size].iter().map(|b| b.to_string()).collect();
    let _ = writeln!(out, "<65532, {}>", hb.join(", "));
    let mut r = Reader::new(data, header.size as u64 * 8)?;
    let mut skip_depth: Option<usize> = None;
    let join = |v: &[u64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    loop {
        let depth = r.depth();
        let indent = "  ".repeat(depth);
        match r.next_item()? {
            Item::Eof => break,
            Item::Enter { id, width, .. } => {
                if skip_depth.is_some() {
                    continue;
                }
                if ignore_abbrevs && id == BLOCKINFO_BLOCK_ID {
                    skip_depth = Some(depth);
                    continue;
                }
                if ignore_abbrevs {
                    let _ = writeln!(out, "{indent}<65535, {id}>");
                } else {
                    let _ = writeln!(out, "{indent}1: <65535, {id}, {width}>");
                }
            }
            Item::Exit => {
                let d = r.depth();
                if let Some(sd) = skip_depth {
                    if d == sd {
                        skip_depth = None;
                    }
                    continue;
                }
                let indent = "  ".repeat(d);
                if ignore_abbrevs {
                    let _ = writeln!(out, "{indent}<65534>");
                } else {
                    let _ = writeln!(out, "{indent}0: <65534>");
                }
            }
            Item::DefineAbbrev { abbrev, .. } => {
                if ignore_abbrevs || skip_depth.is_some() {
                    continue;
                }
                let _ = writeln!(out, "{indent}2: <65533, {}>", join(&abbrev.to_abbrev().raw));
            }
            Item::Record { abbrev, code, ops } => {
                if skip_depth.is_some() {
                    continue;
                }
                let mut v = vec![code as u64];
                v.extend_from_slice(ops);
                if ignore_abbrevs {
                    let _ = writeln!(out, "{indent}<{}>", join(&v));
                } else {
                    let _ = writeln!(out, "{indent}{abbrev}: <{}>", join(&v));
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dump_lines_and_continuations() {
        let text = "\
      88:0|    3: <1, 0, 102, 97, 99,   |    @f0 : \"fact\";
          |        116>                 |
      96:4|  0: <65534>                 |  }
3: <10>
";
        let r = parse(text).unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].values, vec![1, 0, 102, 97, 99, 116]);
        assert_eq!(r[0].abbrev, Some(3));
        assert_eq!(r[1].values, vec![65534]);
        assert_eq!(r[2].values, vec![10]);
    }

    #[test]
    fn abbrev_fields_with_quirks() {
        let plain = abbrev_from_fields(&[4, 0, 1, 3, 0, 2, 8, 0, 3, 0, 1, 8], false).unwrap();
        let quirky = abbrev_from_fields(&[14, 4, 0, 1, 3, 0, 2, 8, 0, 3, 0, 1, 8], true).unwrap();
        assert_eq!(plain, quirky);
        let z = abbrev_from_fields(&[3, 1, 21, 0, 1, 0, 0, 1, 5], true).unwrap();
        assert_eq!(
            z.ops,
            vec![
                AbbrevOp::Literal(21),
                AbbrevOp::Literal(0),
                AbbrevOp::Literal(5)
            ]
        );
    }
}
