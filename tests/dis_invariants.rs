//! What must hold of any pnacl-bcdis dump, checked on every pexe of ../shared/pexes: every
//! record shown once, bit positions strictly increasing, blocks balanced, every value named
//! as it is defined, and the counts equal to what the reader built.

mod common;

use pnacl::bitstream::{Item, Reader};
use pnacl::{bitcode, dis};

struct Line {
    pos: u64,
    record: String,
    depth: usize,
    asm: String,
}

/// The record lines of a dump (continuations joined).
fn parse_dump(text: &str) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for l in text.lines() {
        if l.starts_with("Error(") || l.len() < 41 {
            continue;
        }
        let (label, rest) = l.split_at(10);
        let rec = &rest[1..30];
        let asm = &rest[31..];
        if label.trim().is_empty() {
            // Continuation lines: the record's own, or assembly-only lines (wrapped text,
            // labels, switch cases); the assembly is appended to the record's.
            if let Some(last) = out.last_mut() {
                if !rec.trim().is_empty() {
                    last.record.push(' ');
                    last.record.push_str(rec.trim());
                }
                if !asm.trim().is_empty() {
                    last.asm.push(' ');
                    last.asm.push_str(asm.trim());
                }
            }
            continue;
        }
        let (b, bit) = label.trim().split_once(':').unwrap();
        let pos = b.parse::<u64>().unwrap() * 8 + bit.parse::<u64>().unwrap();
        let depth = (rec.len() - rec.trim_start().len()) / 2;
        out.push(Line {
            pos,
            record: rec.trim().to_string(),
            depth,
            asm: asm.trim().to_string(),
        });
    }
    out
}

/// Positions of every item the bitstream reader yields, until the end or an error.
fn item_positions(data: &[u8]) -> Vec<u64> {
    let Ok(h) = bitcode::header::parse(data) else {
        return vec![];
    };
    let mut r = Reader::new(data, h.size as u64 * 8).unwrap();
    let mut v = vec![0];
    loop {
        let pos = r.pos();
        match r.next_item() {
            Ok(Item::Eof) | Err(_) => break,
            Ok(_) => v.push(pos),
        }
    }
    v
}

fn values(record: &str) -> Vec<u64> {
    let inner = &record[record.find('<').unwrap() + 1..record.rfind('>').unwrap()];
    inner
        .split(',')
        .map(|v| v.trim().parse().unwrap())
        .collect()
}

/// Checks that `%<prefix>N` definitions in `defs` are 0, 1, 2, … in order.
fn sequential(defs: &[u64], what: &str, file: &str) {
    for (i, &n) in defs.iter().enumerate() {
        assert_eq!(n, i as u64, "{file}: {what} numbered {n} where {i} was due");
    }
}

fn number_after(s: &str, prefix: &str) -> Option<u64> {
    let rest = s.strip_prefix(prefix)?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

#[test]
fn dumps_of_every_pexe_are_complete_and_consistent() {
    for p in common::all_pexes() {
        let file = common::name(&p);
        let data = std::fs::read(&p).unwrap();
        let mut out = Vec::new();
        let outcome = dis::disassemble(&data, &dis::Options::default(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines = parse_dump(&text);
        let model = bitcode::read(&data);
        assert_eq!(
            outcome.errors.is_empty(),
            model.is_ok(),
            "{file}: the dump and the reader disagree"
        );

        // Every record shown once, in stream order; positions strictly increasing.
        let shown: Vec<u64> = lines.iter().map(|l| l.pos).collect();
        let items = item_positions(&data);
        if outcome.stopped {
            assert!(
                items.starts_with(&shown) || shown.starts_with(&items),
                "{file}: records differ"
            );
        } else {
            assert_eq!(
                shown, items,
                "{file}: the dump does not show every record exactly once"
            );
        }
        for w in shown.windows(2) {
            assert!(w[0] < w[1], "{file}: positions not increasing at {}", w[1]);
        }

        // Blocks balanced, and each exit printed at its enter's depth.
        let mut stack = Vec::new();
        for l in &lines {
            let v = values(&l.record);
            match v[0] {
                65535 => stack.push(l.depth),
                65534 => assert_eq!(
                    stack.pop(),
                    Some(l.depth),
                    "{file}: unbalanced exit at {}",
                    l.pos
                ),
                _ => {}
            }
        }
        if outcome.errors.is_empty() {
            assert!(stack.is_empty(), "{file}: {} blocks left open", stack.len());
        }
        let Ok(m) = model else { continue };

        // Names are given in order of definition; counts equal the model's.
        let (mut types, mut funcs, mut globals) = (vec![], vec![], vec![]);
        let (mut blocks, mut insts) = (0usize, 0usize);
        let mut in_fn = false;
        let mut fn_values = vec![];
        let mut consts = vec![];
        let mut fn_depth = 0;
        for l in &lines {
            let v = values(&l.record);
            if let Some(n) = number_after(&l.asm, "@t") {
                if l.asm.contains(" = ") {
                    types.push(n);
                }
            }
            if (l.asm.starts_with("declare ") || l.asm.starts_with("define ")) && v[0] == 8 {
                let at = l.asm.find("@f").unwrap();
                funcs.push(number_after(&l.asm[at..], "@f").unwrap());
            }
            if l.asm.starts_with("var @g") || l.asm.starts_with("const @g") {
                let at = l.asm.find("@g").unwrap();
                globals.push(number_after(&l.asm[at..], "@g").unwrap());
            }
            if v[0] == 65535 && v[1] == 12 {
                in_fn = true;
                fn_depth = l.depth + 1;
                fn_values.clear();
                consts.clear();
            } else if v[0] == 65534 && in_fn && l.depth + 1 == fn_depth {
                in_fn = false;
                sequential(&fn_values, "%v values", &file);
                sequential(&consts, "%c constants", &file);
            } else if in_fn && l.depth == fn_depth && ![1, 43, 65533, 65535, 65534].contains(&v[0])
            {
                insts += 1;
                if let Some(n) = number_after(&l.asm, "%v") {
                    if l.asm.contains(" = ") {
                        fn_values.push(n);
                    }
                }
            } else if in_fn && l.depth == fn_depth + 1 {
                if let Some(n) = number_after(&l.asm, "%c") {
                    consts.push(n);
                }
            }
        }
        for l in text.lines() {
            let asm = l.get(41..).unwrap_or("").trim();
            if l.starts_with("          |") && asm.starts_with("%b") && asm.ends_with(':') {
                blocks += 1;
            }
        }
        sequential(&types, "@t types", &file);
        sequential(&funcs, "@f functions", &file);
        sequential(&globals, "@g globals", &file);
        let c = m.counts();
        assert_eq!(types.len(), c.types, "{file}: type count");
        assert_eq!(funcs.len(), c.functions, "{file}: function count");
        assert_eq!(globals.len(), c.globals, "{file}: global count");
        assert_eq!(blocks, c.blocks, "{file}: basic block count");
        assert_eq!(insts, c.insts, "{file}: instruction count");
    }
}
