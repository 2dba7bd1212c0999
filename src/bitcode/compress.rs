//! pnacl-compress: a pexe's records, unchanged, under abbreviations chosen from the file's
//! own records (as Google's pnacl-bccompress did), rather than pnacl-freeze's fixed set.
//!
//! For each block id the records of all its blocks are pooled. Candidates are built per
//! record shape (code and length; long or many-length codes as an array): the operand
//! encodings that cost the fewest bits over the shape's records (a literal where all agree,
//! else the best fixed or VBR width), then specializations that make a frequent value of
//! one operand a literal, nested a few deep. A greedy pass then takes the candidate that
//! saves the most bits over what each record costs already (unabbreviated, or under a
//! candidate taken before), re-scoring lazily, and keeps the number of abbreviations whose
//! total, with the wider abbreviation ids they need, is least. Each record is written under
//! the cheapest abbreviation it fits. The module block's abbreviations are defined at its
//! start, the others in one BLOCKINFO block first in the module (where the 2014 tool put
//! them).

use std::collections::{BTreeMap, BinaryHeap};

use crate::bitcode::codes::block;
use crate::bitstream::{Abbrev, AbbrevOp, Item, Reader, Writer, BLOCKINFO_BLOCK_ID};
use crate::error::Result;

/// Records longer than this (operands) are abbreviated as arrays.
const MAX_FIXED_OPS: usize = 8;
/// The most abbreviations a block id gets (ids up to 7 bits wide).
const MAX_ABBREVS: usize = 124;
/// How deep and how wide literal specializations of a shape go.
const SPLIT_DEPTH: usize = 3;
const SPLIT_WIDTH: usize = 3;
/// The fewest records a specialization must cover.
const MIN_SPLIT: usize = 12;

/// One record of the input, its operands in `Flat::ops`.
#[derive(Clone, Copy)]
struct Rec {
    code: u32,
    start: u32,
    len: u32,
}

enum Node {
    Enter(u32),
    /// Where the input's BLOCKINFO block was.
    BlockInfo,
    Exit,
    Record(Rec),
}

/// The input without its abbreviations: the module's blocks and records in order.
struct Flat {
    header: Vec<u8>,
    nodes: Vec<Node>,
    ops: Vec<u64>,
}

impl Flat {
    fn values(&self, r: &Rec) -> &[u64] {
        &self.ops[r.start as usize..(r.start + r.len) as usize]
    }
}

fn flatten(data: &[u8]) -> Result<Flat> {
    let header = super::header::parse(data)?;
    let mut flat = Flat {
        header: data[..header.size].to_vec(),
        nodes: Vec::new(),
        ops: Vec::new(),
    };
    let mut r = Reader::new(data, header.size as u64 * 8)?;
    let mut skip: Option<usize> = None;
    loop {
        let depth = r.depth();
        match r.next_item()? {
            Item::Eof => break,
            Item::Enter { id, .. } => {
                if skip.is_none() && id == BLOCKINFO_BLOCK_ID {
                    skip = Some(depth);
                    flat.nodes.push(Node::BlockInfo);
                }
                if skip.is_none() {
                    flat.nodes.push(Node::Enter(id));
                }
            }
            Item::Exit => {
                if skip == Some(r.depth()) {
                    skip = None;
                } else if skip.is_none() {
                    flat.nodes.push(Node::Exit);
                }
            }
            Item::DefineAbbrev { .. } => {}
            Item::Record { code, ops, .. } => {
                if skip.is_none() {
                    let start = flat.ops.len() as u32;
                    flat.ops.extend_from_slice(ops);
                    let len = ops.len() as u32;
                    flat.nodes.push(Node::Record(Rec { code, start, len }));
                }
            }
        }
    }
    Ok(flat)
}

fn bits(v: u64) -> u32 {
    64 - v.leading_zeros()
}

fn vbr_cost(v: u64, w: u32) -> u64 {
    let chunks = bits(v).div_ceil(w - 1).max(1);
    (chunks * w) as u64
}

/// Bits of one scalar under `op`, if it fits.
fn scalar_cost(op: AbbrevOp, v: u64) -> Option<u64> {
    match op {
        AbbrevOp::Literal(l) => (l == v).then_some(0),
        AbbrevOp::Fixed(w) => (bits(v) <= w as u32).then_some(w as u64),
        AbbrevOp::Vbr(w) => Some(vbr_cost(v, w as u32)),
        AbbrevOp::Char6 => crate::bitstream::is_char6(v).then_some(6),
        AbbrevOp::Array => None,
    }
}

/// Bits of a record's code and operands under `a` (its id not counted), if it fits.
fn record_cost(a: &[AbbrevOp], code: u32, ops: &[u64]) -> Option<u64> {
    let mut vals = std::iter::once(code as u64).chain(ops.iter().copied());
    let mut total = 0;
    for (k, &op) in a.iter().enumerate() {
        if op == AbbrevOp::Array {
            let elem = a[k + 1];
            let rest = ops.len() + 1 - k;
            total += vbr_cost(rest as u64, 6);
            for v in vals {
                total += scalar_cost(elem, v)?;
            }
            return Some(total);
        }
        total += scalar_cost(op, vals.next()?)?;
    }
    vals.next().is_none().then_some(total)
}

fn unabbrev_cost(code: u32, ops: &[u64]) -> u64 {
    vbr_cost(code as u64, 6)
        + vbr_cost(ops.len() as u64, 6)
        + ops.iter().map(|&v| vbr_cost(v, 6)).sum::<u64>()
}

fn define_cost(a: &[AbbrevOp]) -> u64 {
    let mut c = 2 + vbr_cost(a.len() as u64, 5);
    for op in a {
        c += 1 + match *op {
            AbbrevOp::Literal(v) => vbr_cost(v, 8),
            AbbrevOp::Fixed(w) | AbbrevOp::Vbr(w) => 3 + vbr_cost(w as u64, 5),
            AbbrevOp::Array | AbbrevOp::Char6 => 3,
        };
    }
    c
}

/// The encoding of one scalar position that costs the fewest bits over `values`.
fn best_scalar(values: impl Iterator<Item = u64> + Clone, char6_ok: bool) -> (AbbrevOp, u64) {
    let mut hist = [0u64; 65];
    let mut first = None;
    let mut same = true;
    let mut char6 = char6_ok;
    for v in values.clone() {
        hist[bits(v) as usize] += 1;
        match first {
            None => first = Some(v),
            Some(f) => same &= f == v,
        }
        char6 &= crate::bitstream::is_char6(v);
    }
    let n: u64 = hist.iter().sum();
    if let (true, Some(f)) = (same, first) {
        return (AbbrevOp::Literal(f), 0);
    }
    let max = (0..=64).rev().find(|&b| hist[b] > 0).unwrap_or(0) as u32;
    let mut best = (AbbrevOp::Vbr(32), u64::MAX);
    if max <= 32 {
        let w = max.max(1);
        best = (AbbrevOp::Fixed(w as u8), n * w as u64);
    }
    for w in 2..=32u32 {
        let c: u64 = (0..=64)
            .filter(|&b| hist[b] > 0)
            .map(|b| hist[b] * (w as u64) * (b as u32).div_ceil(w - 1).max(1) as u64)
            .sum();
        if c < best.1 {
            best = (AbbrevOp::Vbr(w as u8), c);
        }
    }
    if char6 && 6 * n < best.1 {
        best = (AbbrevOp::Char6, 6 * n);
    }
    best
}

/// A candidate abbreviation and the records (indices into the block id's list) it fits.
struct Candidate {
    ops: Vec<AbbrevOp>,
    recs: Vec<u32>,
}

/// The candidates for one shape: `recs` all have one code and one number of operands,
/// and the operands at the positions `literal` lists have the values it gives.
fn shape_candidates(
    flat: &Flat,
    all: &[Rec],
    recs: Vec<u32>,
    literal: &mut Vec<(usize, u64)>,
    depth: usize,
    out: &mut Vec<Candidate>,
) {
    let r0 = all[recs[0] as usize];
    let len = r0.len as usize;
    let mut ops = vec![AbbrevOp::Literal(r0.code as u64)];
    let mut costs = Vec::with_capacity(len);
    for p in 0..len {
        let vals = recs.iter().map(|&i| flat.values(&all[i as usize])[p]);
        let (op, cost) = best_scalar(vals, false);
        ops.push(op);
        costs.push(cost);
    }
    out.push(Candidate {
        ops,
        recs: recs.clone(),
    });
    if depth == SPLIT_DEPTH || recs.len() < 2 * MIN_SPLIT {
        return;
    }
    // The specializations that would save the most: a frequent value at a position that
    // still costs bits, made a literal.
    let mut splits: Vec<(u64, usize, u64)> = Vec::new();
    for (p, &cost) in costs.iter().enumerate() {
        if cost == 0 || literal.iter().any(|&(q, _)| q == p) {
            continue;
        }
        let mut freq: BTreeMap<u64, u64> = BTreeMap::new();
        for &i in &recs {
            *freq.entry(flat.values(&all[i as usize])[p]).or_default() += 1;
        }
        let per = cost / recs.len() as u64;
        for (v, n) in freq {
            if n as usize >= MIN_SPLIT && (n as usize) < recs.len() {
                splits.push((n * per.max(1), p, v));
            }
        }
    }
    splits.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    for &(_, p, v) in splits.iter().take(SPLIT_WIDTH) {
        let sub: Vec<u32> = recs
            .iter()
            .copied()
            .filter(|&i| flat.values(&all[i as usize])[p] == v)
            .collect();
        literal.push((p, v));
        shape_candidates(flat, all, sub, literal, depth + 1, out);
        literal.pop();
    }
}

/// The candidate for records of `code` written as arrays: a few scalar operands first, then
/// the rest as an array of one encoding.
fn array_candidate(flat: &Flat, all: &[Rec], recs: Vec<u32>) -> Candidate {
    let code = all[recs[0] as usize].code;
    let min_len = recs.iter().map(|&i| all[i as usize].len).min().unwrap_or(0) as usize;
    let mut best: Option<(u64, Vec<AbbrevOp>)> = None;
    for k in 0..=min_len.min(3) {
        let mut ops = vec![AbbrevOp::Literal(code as u64)];
        let mut cost = 0;
        for p in 0..k {
            let (op, c) = best_scalar(
                recs.iter().map(|&i| flat.values(&all[i as usize])[p]),
                false,
            );
            ops.push(op);
            cost += c;
        }
        let elems = recs
            .iter()
            .flat_map(|&i| flat.values(&all[i as usize])[k..].iter().copied());
        let (elem, c) = best_scalar(elems, true);
        // A literal element would need every array to be that value repeated: keep a
        // width instead.
        let elem = match elem {
            AbbrevOp::Literal(v) => AbbrevOp::Fixed(bits(v).max(1) as u8),
            e => e,
        };
        cost += c;
        cost += recs
            .iter()
            .map(|&i| vbr_cost(all[i as usize].len as u64 - k as u64, 6))
            .sum::<u64>();
        ops.push(AbbrevOp::Array);
        ops.push(elem);
        if best.as_ref().is_none_or(|b| cost < b.0) {
            best = Some((cost, ops));
        }
    }
    Candidate {
        ops: best.unwrap().1,
        recs,
    }
}

/// The abbreviations for the records `all` of one block id (`blocks` blocks of it).
fn choose(flat: &Flat, all: &[Rec], blocks: u64) -> Vec<Vec<AbbrevOp>> {
    // Shapes: (code, length) for short records; one array shape per code that has long
    // records or many lengths.
    let mut by_code: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (i, r) in all.iter().enumerate() {
        by_code.entry(r.code).or_default().push(i as u32);
    }
    let mut cands: Vec<Candidate> = Vec::new();
    for (_, recs) in by_code {
        let mut by_len: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for &i in &recs {
            by_len.entry(all[i as usize].len).or_default().push(i);
        }
        if by_len.len() > 1 || by_len.keys().any(|&l| l as usize > MAX_FIXED_OPS) {
            cands.push(array_candidate(flat, all, recs.clone()));
        }
        for (len, group) in by_len {
            if len as usize <= MAX_FIXED_OPS {
                shape_candidates(flat, all, group, &mut Vec::new(), 0, &mut cands);
            }
        }
    }
    // What each record costs so far (unabbreviated), and the greedy choice.
    let mut cur: Vec<u64> = all
        .iter()
        .map(|r| unabbrev_cost(r.code, flat.values(r)))
        .collect();
    let base: u64 = cur.iter().sum();
    let gain = |c: &Candidate, cur: &[u64]| -> i64 {
        let mut g: i64 = -(define_cost(&c.ops) as i64);
        for &i in &c.recs {
            let r = &all[i as usize];
            if let Some(cost) = record_cost(&c.ops, r.code, flat.values(r)) {
                g += cur[i as usize].saturating_sub(cost) as i64;
            }
        }
        g
    };
    let mut heap: BinaryHeap<(i64, std::cmp::Reverse<usize>)> = cands
        .iter()
        .enumerate()
        .map(|(k, c)| (gain(c, &cur), std::cmp::Reverse(k)))
        .collect();
    let mut taken: Vec<usize> = Vec::new();
    let mut gains: Vec<u64> = Vec::new();
    while taken.len() < MAX_ABBREVS {
        let Some((g, std::cmp::Reverse(k))) = heap.pop() else {
            break;
        };
        let fresh = gain(&cands[k], &cur);
        if fresh != g {
            if fresh > 0 {
                heap.push((fresh, std::cmp::Reverse(k)));
            }
            continue;
        }
        if fresh <= 0 {
            break;
        }
        let c = &cands[k];
        for &i in &c.recs {
            let r = &all[i as usize];
            if let Some(cost) = record_cost(&c.ops, r.code, flat.values(r)) {
                cur[i as usize] = cur[i as usize].min(cost);
            }
        }
        taken.push(k);
        gains.push(fresh as u64);
    }
    // The number to keep: the least total with each record's (and each block's END) id
    // as wide as that many abbreviations need.
    let ids = all.len() as u64 + blocks;
    let mut best = (0usize, base + ids * id_width(0) as u64);
    let mut saved = 0u64;
    for (n, g) in gains.iter().enumerate() {
        saved += g;
        let total = base - saved + ids * id_width(n + 1) as u64;
        if total < best.1 {
            best = (n + 1, total);
        }
    }
    taken[..best.0]
        .iter()
        .map(|&k| cands[k].ops.clone())
        .collect()
}

/// The abbreviation id width of a block with `n` abbreviations.
fn id_width(n: usize) -> u32 {
    bits(3 + n as u64).max(2)
}

/// `data`, a pexe, with abbreviations chosen from its records. Reads as the same records.
pub fn compress(data: &[u8]) -> Result<Vec<u8>> {
    // Only a pexe the reader accepts is rewritten.
    super::read(data)?;
    let flat = flatten(data)?;
    // The records of each block id, and how many blocks of it there are.
    let mut per_id: BTreeMap<u32, (Vec<Rec>, u64)> = BTreeMap::new();
    let mut stack: Vec<u32> = Vec::new();
    for n in &flat.nodes {
        match n {
            Node::Enter(id) => {
                per_id.entry(*id).or_default().1 += 1;
                stack.push(*id);
            }
            Node::Exit => {
                stack.pop();
            }
            Node::BlockInfo => {}
            Node::Record(r) => {
                if let Some(&id) = stack.last() {
                    per_id.entry(id).or_default().0.push(*r);
                }
            }
        }
    }
    let chosen: BTreeMap<u32, Vec<Abbrev>> = per_id
        .iter()
        .map(|(&id, (recs, blocks))| {
            let a = choose(&flat, recs, *blocks);
            (id, a.into_iter().map(Abbrev::new).collect())
        })
        .collect();
    let count = |id: u32| chosen.get(&id).map_or(0, Vec::len);
    let has_blockinfo = flat.nodes.iter().any(|n| matches!(n, Node::BlockInfo));
    let blockinfo = |w: &mut Writer| {
        let others: Vec<(&u32, &Vec<Abbrev>)> = chosen
            .iter()
            .filter(|(b, v)| **b != block::MODULE && !v.is_empty())
            .collect();
        w.enter_block(BLOCKINFO_BLOCK_ID, 2);
        for (b, v) in others {
            w.set_bid(*b);
            for a in v {
                w.define_abbrev(a);
            }
        }
        w.exit_block();
    };
    let mut w = Writer::with_prefix(&flat.header);
    // The abbreviations of each open block, innermost last.
    let mut stack: Vec<&[Abbrev]> = Vec::new();
    for n in &flat.nodes {
        match n {
            Node::Enter(id) => {
                w.enter_block(*id, id_width(count(*id)));
                let abbrevs = chosen.get(id).map_or(&[][..], Vec::as_slice);
                if *id == block::MODULE && stack.is_empty() {
                    for a in abbrevs {
                        w.define_abbrev(a);
                    }
                    // BLOCKINFO where the input had it, else first.
                    if !has_blockinfo {
                        blockinfo(&mut w);
                    }
                }
                stack.push(abbrevs);
            }
            Node::BlockInfo => blockinfo(&mut w),
            Node::Exit => {
                w.exit_block();
                stack.pop();
            }
            Node::Record(r) => {
                let ops = flat.values(r);
                let mut best = (
                    crate::bitstream::UNABBREV_RECORD,
                    unabbrev_cost(r.code, ops),
                );
                if let Some(abbrevs) = stack.last() {
                    for (k, a) in abbrevs.iter().enumerate() {
                        if let Some(c) = record_cost(&a.ops, r.code, ops) {
                            if c < best.1 {
                                best = (4 + k as u32, c);
                            }
                        }
                    }
                }
                w.emit_record(best.0, r.code, ops)
                    .map_err(|e| crate::error::Error::new(0, e))?;
            }
        }
    }
    Ok(w.into_bytes())
}
