use pnacl::bitstream::{Item, Reader};
use std::collections::BTreeMap;
fn main() {
    let arg = std::env::args().nth(1).unwrap();
    let data = std::fs::read(&arg).unwrap();
    let mut r = Reader::new(&data, 128).unwrap();
    let mut stack = vec![];
    let mut m: BTreeMap<(u32, u32, u32), (u64, u64, u64)> = BTreeMap::new();
    loop {
        let pos = r.pos();
        match r.next().unwrap() {
            Item::Eof => break,
            Item::Enter { id, .. } => stack.push((id, pos)),
            Item::Exit => {
                stack.pop();
            }
            Item::Record { code, ops, abbrev } => {
                let e = m
                    .entry((
                        *stack.last().map(|(a, _)| a).unwrap(),
                        code,
                        (abbrev > 3) as u32,
                    ))
                    .or_default();
                e.0 += 1;
                e.1 += ops.len() as u64;
                e.2 += r.pos() - pos;
            }
            _ => {}
        }
    }
    for ((b, c, a), (n, v, bits)) in m {
        println!(
            "block {b:2} code {c:2} abbr {a}: {n:7} records {v:8} values {:8} bytes",
            bits / 8
        );
    }
}
