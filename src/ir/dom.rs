//! The SSA rule every LLVM module is held to (spec/004, LangRef "Well-Formedness": "the
//! definition of %x does not dominate all of its uses" is its example of a malformed
//! module): each use of an instruction's value is dominated by the instruction. A use by
//! a phi counts as a use at the end of the incoming block it names. As in LLVM's
//! verifier, a use in a block unreachable from the entry is dominated by anything, a
//! definition in an unreachable block dominates nothing (reachable), and only a phi may
//! use its own value.
//!
//! The bitcode reader cannot check this record by record (a forward reference is
//! resolved later, a value may be used in a block laid out before the one that defines
//! it if the defining block dominates it): it is checked on the whole body, by the ABI
//! check and by the LLVM conversion, which would otherwise hand LLVM a module it rejects.

use super::{Body, InstKind, ValueId};

/// What breaks the rules at instruction `inst` (an index into the body's `insts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed {
    pub inst: usize,
    pub kind: MalformedKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MalformedKind {
    /// The instruction uses `value`, whose definition does not dominate the use.
    Undominated(ValueId),
    /// The instruction (no phi) uses its own value.
    OwnValue(ValueId),
    /// The phi has no incoming value for `pred`, a predecessor of its block (LLVM: "PHINode
    /// should have one entry for each predecessor of its parent basic block!"). An entry
    /// for a block that is no predecessor is not an error here: the conversion to LLVM
    /// drops it.
    PhiMissing(u32),
}

/// A use `Scratch::check` sets aside for the dominator tree: instruction `inst` (in block
/// `b`, before value `next` is defined; `own` if it defines one) uses `v`. A phi is set
/// aside whole, with `next` = `PHI`.
#[derive(Debug, Clone, Copy)]
struct Slow {
    inst: u32,
    v: u32,
    b: u32,
    next: u32,
    own: bool,
}

const PHI: u32 = u32::MAX;

/// Not numbered: a block the entry does not reach (and, in the tree, no node).
const UNREACHED: u32 = u32::MAX;

/// Checks `body`, whose first instruction value has the absolute id `first_inst_value`
/// (the ids below it, addresses, parameters and constants, are defined everywhere): the
/// first use, in instruction order, that breaks the rule.
pub fn check(body: &Body, first_inst_value: ValueId) -> Result<(), Malformed> {
    Scratch::default().check(body, first_inst_value)
}

/// A block reached from the entry, by its depth-first preorder number: what the
/// dominator tree's construction keeps of it (one record, so that the few of them a
/// step touches share cache lines).
#[derive(Debug, Clone, Copy, Default)]
struct Node {
    block: u32,
    /// Its parent in the search, its semidominator, and the link-eval forest's ancestor
    /// and label (`UNREACHED`: no ancestor, not linked yet).
    parent: u32,
    semi: u32,
    ancestor: u32,
    label: u32,
    /// Its immediate dominator, the size of its subtree in the dominator tree, and its
    /// number in the tree's own preorder: it dominates the nodes whose `tpre` lies in
    /// `tpre .. tpre + size`.
    idom: u32,
    size: u32,
    tpre: u32,
}

/// A graph's edges by block, in one array: block `b`'s are `to[start[b]..start[b + 1]]`.
#[derive(Debug, Default)]
struct Edges {
    start: Vec<u32>,
    to: Vec<u32>,
}

impl Edges {
    fn clear(&mut self) {
        self.start.clear();
        self.to.clear();
    }

    /// Ends the edges of one block (before the first: starts them).
    fn next_block(&mut self) {
        self.start.push(self.to.len() as u32);
    }

    /// Block `b`'s edges.
    #[inline]
    fn of(&self, b: usize) -> &[u32] {
        &self.to[self.start[b] as usize..self.start[b + 1] as usize]
    }

    /// The reverse of these edges, of `n` blocks, into `rev` (a block once for each edge,
    /// `UNREACHED` targets left out), by a counting sort of the edges on their target;
    /// `fill` is room for where each block's next one goes.
    fn reverse(&self, n: usize, rev: &mut Edges, fill: &mut Vec<u32>) {
        rev.start.clear();
        rev.start.resize(n + 1, 0);
        let start = &mut rev.start[..];
        for &s in &self.to {
            if s != UNREACHED {
                start[s as usize + 1] += 1;
            }
        }
        for b in 0..n {
            start[b + 1] += start[b];
        }
        fill.clear();
        fill.extend_from_slice(&start[..n]);
        let fill = &mut fill[..];
        rev.to.clear();
        rev.to.resize(start[n] as usize, 0);
        for b in 0..n {
            for &s in self.of(b) {
                if s != UNREACHED {
                    rev.to[fill[s as usize] as usize] = b as u32;
                    fill[s as usize] += 1;
                }
            }
        }
    }
}

/// Room for `check`, kept from one body to the next by a caller that checks many.
#[derive(Debug, Default)]
pub struct Scratch {
    /// The first value id each block defines (values are numbered in layout order), and
    /// one past the last.
    vstart: Vec<u32>,
    /// The block defining each instruction value (the `k`th after `first_inst_value`).
    block_of: Vec<u32>,
    /// The uses set aside for the tree, in instruction order.
    slow: Vec<Slow>,
    /// Each block's successors (`UNREACHED` for a target out of range).
    succs: Edges,
    /// Each block's predecessors, a block once for each edge (built for the phis' entries
    /// or for the dominator tree, whichever comes first), and where the next one goes
    /// while they are built.
    preds: Edges,
    fill: Vec<u32>,
    /// Whether `preds` holds the body's predecessors, and `dfn`/`nodes` its dominator
    /// tree.
    have_preds: bool,
    have_tree: bool,
    /// Each block's depth-first preorder number (`UNREACHED` for a block the entry does
    /// not reach), and each number's node.
    dfn: Vec<u32>,
    nodes: Vec<Node>,
    stack: Vec<(u32, u32)>,
    path: Vec<u32>,
}

impl Scratch {
    /// `dom::check`, with this room.
    ///
    /// One pass over the instructions numbers the values, gathers the CFG's edges and
    /// sets aside the uses the fast tests do not settle (a value of the entry block or
    /// before, or one defined earlier in the same block, is defined wherever it is used):
    /// those then go, in instruction order, to the dominator tree, which needs the whole
    /// CFG.
    pub fn check(&mut self, body: &Body, first_inst_value: ValueId) -> Result<(), Malformed> {
        let n = body.num_blocks as usize;
        if n == 0 || body.block_starts.len() != n {
            // Not a complete body (the reader gives none such).
            return Ok(());
        }
        self.have_tree = false;
        self.have_preds = false;
        self.vstart.clear();
        self.block_of.clear();
        self.succs.clear();
        self.slow.clear();
        let Scratch {
            vstart,
            block_of,
            slow,
            succs,
            ..
        } = self;
        let mut next = first_inst_value;
        // Values below `low` are defined before any use in the block can be: those of the
        // entry block or before (before the first block ends, those before it).
        let mut low = first_inst_value;
        for b in 0..n as u32 {
            if b == 1 {
                low = next;
            }
            let bstart = next;
            vstart.push(bstart);
            let r = body.block_range(b);
            for (i, inst) in body.insts[r.clone()].iter().enumerate() {
                let i = (r.start + i) as u32;
                let own = !inst.ty.is_void();
                // A use is settled if it is of a value below `low` or one defined earlier
                // in this block; the others are set aside.
                let lim = next - bstart;
                let mut used = |v: u32| {
                    if !(v < low || v.wrapping_sub(bstart) < lim) {
                        slow.push(Slow {
                            inst: i,
                            v,
                            b,
                            next,
                            own,
                        });
                    }
                };
                match inst.kind {
                    InstKind::Phi { .. } => slow.push(Slow {
                        inst: i,
                        v: 0,
                        b,
                        next: PHI,
                        own: false,
                    }),
                    _ => {
                        body.any_operand(inst, |v| {
                            used(v);
                            false
                        });
                    }
                }
                next += own as u32;
            }
            // The block's values, all at once.
            block_of.resize(block_of.len() + (next - bstart) as usize, b);
            succs.next_block();
            body.each_successor(b, |t| succs.to.push(t));
        }
        vstart.push(next);
        succs.next_block();
        if slow.is_empty() {
            return Ok(());
        }
        // Branch targets the reader let through out of range are not edges.
        for s in succs.to.iter_mut() {
            if *s as usize >= n {
                *s = UNREACHED;
            }
        }
        let entry_end = vstart[1.min(n)];
        let slow = std::mem::take(slow);
        let mut done = Ok(());
        for u in &slow {
            done = if u.next == PHI {
                let InstKind::Phi { incoming } = body.insts[u.inst as usize].kind else {
                    unreachable!()
                };
                self.phi(body, u.inst as usize, u.b, incoming, entry_end)
            } else {
                self.use_at(u)
            };
            if done.is_err() {
                break;
            }
        }
        self.slow = slow;
        done
    }

    /// A use the fast tests did not settle: the instruction's own value, or one defined
    /// later in the block or in another block than the entry.
    fn use_at(&mut self, u: &Slow) -> Result<(), Malformed> {
        let kind = if u.v == u.next && u.own {
            // (Reachable or not: LLVM's verifier forbids it but in a phi.)
            MalformedKind::OwnValue(u.v)
        } else if !self.reaches(u.v, u.b, Some(u.next)) {
            MalformedKind::Undominated(u.v)
        } else {
            return Ok(());
        };
        Err(Malformed {
            inst: u.inst as usize,
            kind,
        })
    }

    /// The phi `i` of block `b`: an entry for each predecessor, and each incoming value
    /// defined at the end of its block.
    fn phi(
        &mut self,
        body: &Body,
        i: usize,
        b: u32,
        incoming: crate::ir::Span,
        entry_end: u32,
    ) -> Result<(), Malformed> {
        let n = body.num_blocks as usize;
        if !self.have_preds {
            self.predecessors(n);
        }
        let pairs = body.phi_pairs(incoming);
        if let Some(&p) = self
            .preds
            .of(b as usize)
            .iter()
            .find(|&&p| !pairs.chunks_exact(2).any(|e| e[1] == p))
        {
            return Err(Malformed {
                inst: i,
                kind: MalformedKind::PhiMissing(p),
            });
        }
        for e in pairs.chunks_exact(2) {
            // A value of the entry block or before reaches the end of every block.
            if e[0] >= entry_end && (e[1] as usize) < n && !self.reaches(e[0], e[1], None) {
                return Err(Malformed {
                    inst: i,
                    kind: MalformedKind::Undominated(e[0]),
                });
            }
        }
        Ok(())
    }

    /// Whether the value `v` (defined in a block) reaches a use in block `b`: before the
    /// value `next` is defined, or at the block's end if `None`.
    #[inline]
    fn reaches(&mut self, v: ValueId, b: u32, next: Option<u32>) -> bool {
        let Some(&db) = self.block_of.get(v.wrapping_sub(self.vstart[0]) as usize) else {
            // No such value: the reader gives none.
            return true;
        };
        if db == b && next.is_none_or(|next| v < next) {
            // Defined before the use in its block, wherever that block is.
            return true;
        }
        if !self.have_tree {
            self.dom_tree(self.vstart.len() - 1);
        }
        let wb = self.dfn[b as usize];
        if wb == UNREACHED {
            // Any use in an unreached block is dominated.
            return true;
        }
        db != b && self.dominates(db as usize, wb)
    }

    /// Whether block `a` dominates the reached block numbered `wb` (`dom_tree`).
    #[inline]
    fn dominates(&self, a: usize, wb: u32) -> bool {
        let wa = self.dfn[a];
        if wa == UNREACHED {
            return false;
        }
        let (x, y) = (&self.nodes[wa as usize], &self.nodes[wb as usize]);
        y.tpre.wrapping_sub(x.tpre) < x.size
    }

    /// `preds`: the predecessors of each block.
    #[inline(never)]
    fn predecessors(&mut self, n: usize) {
        self.have_preds = true;
        self.succs.reverse(n, &mut self.preds, &mut self.fill);
    }

    /// The dominator tree (`dfn`, `nodes`), by the Semi-NCA algorithm (Georgiadis,
    /// Tarjan and Werneck, "Finding Dominators in Practice", 2006): the semidominators as
    /// Lengauer and Tarjan compute them, in one pass over a depth-first search; then each
    /// immediate dominator as the nearest ancestor of the block's parent that is not
    /// below its semidominator. Its intervals come from the subtree sizes, without a
    /// second search.
    #[inline(never)]
    fn dom_tree(&mut self, n: usize) {
        self.have_tree = true;
        if !self.have_preds {
            self.predecessors(n);
        }
        let Scratch {
            succs,
            preds,
            dfn,
            nodes,
            stack,
            path,
            ..
        } = self;
        let (succ_start, succs, preds) = (&succs.start[..], &succs.to[..], &*preds);
        // Depth-first preorder from the entry, iteratively (a body may have millions of
        // blocks).
        dfn.clear();
        dfn.resize(n, UNREACHED);
        let dfn = &mut dfn[..];
        nodes.clear();
        stack.clear();
        let node = |block: u32, parent: u32, w: u32| Node {
            block,
            parent,
            semi: w,
            ancestor: UNREACHED,
            label: w,
            idom: 0,
            size: 1,
            tpre: 0,
        };
        dfn[0] = 0;
        nodes.push(node(0, UNREACHED, 0));
        stack.push((0, succ_start[0]));
        while let Some(top) = stack.last_mut() {
            let (b, at) = *top;
            if at == succ_start[b as usize + 1] {
                stack.pop();
                continue;
            }
            top.1 += 1;
            let s = succs[at as usize];
            if s != UNREACHED && dfn[s as usize] == UNREACHED {
                let w = nodes.len() as u32;
                dfn[s as usize] = w;
                nodes.push(node(s, dfn[b as usize], w));
                stack.push((s, succ_start[s as usize]));
            }
        }
        let nodes = &mut nodes[..];
        let k = nodes.len();
        // Semidominators, in reverse preorder.
        for w in (1..k).rev() {
            let b = nodes[w].block as usize;
            let mut sd = nodes[w].semi;
            for &p in preds.of(b) {
                let v = dfn[p as usize];
                if v == UNREACHED {
                    continue;
                }
                // eval(v): the label of least semidominator on v's path in the forest,
                // compressing the path (iteratively). A node not yet linked (numbered
                // before w, or w itself) is its own.
                let u = if nodes[v as usize].ancestor == UNREACHED {
                    v
                } else {
                    let mut x = v;
                    path.clear();
                    while nodes[nodes[x as usize].ancestor as usize].ancestor != UNREACHED {
                        path.push(x);
                        x = nodes[x as usize].ancestor;
                    }
                    for &y in path.iter().rev() {
                        let y = y as usize;
                        let a = nodes[y].ancestor as usize;
                        if nodes[nodes[a].label as usize].semi < nodes[nodes[y].label as usize].semi
                        {
                            nodes[y].label = nodes[a].label;
                        }
                        nodes[y].ancestor = nodes[a].ancestor;
                    }
                    nodes[v as usize].label
                };
                sd = sd.min(nodes[u as usize].semi);
            }
            nodes[w].semi = sd;
            // link(parent, w)
            nodes[w].ancestor = nodes[w].parent;
        }
        // Immediate dominators, in preorder (each one's is already final).
        for w in 1..k {
            let mut d = nodes[w].parent;
            while d > nodes[w].semi {
                d = nodes[d as usize].idom;
            }
            nodes[w].idom = d;
        }
        // Subtree sizes (a node's number exceeds its dominator's), then the tree's
        // preorder: each child's interval follows its earlier siblings' in the parent's
        // (`label` now holds where a node's next child's interval starts).
        for w in (1..k).rev() {
            let d = nodes[w].idom as usize;
            nodes[d].size += nodes[w].size;
        }
        nodes[0].label = 1;
        for w in 1..k {
            let d = nodes[w].idom as usize;
            let at = nodes[d].label;
            nodes[d].label = at + nodes[w].size;
            nodes[w].tpre = at;
            nodes[w].label = at + 1;
        }
    }
}

/// The dominator tree of a control-flow graph given as each block's successors (block 0
/// the entry), for code that has no `Body` (the LLVM bridge's resume points): the tree
/// `check` builds, by the same construction.
pub struct Dominators(Scratch);

impl Dominators {
    pub fn new(succs: &[Vec<u32>]) -> Self {
        let mut s = Scratch::default();
        for block in succs {
            s.succs.next_block();
            s.succs.to.extend_from_slice(block);
        }
        s.succs.next_block();
        if !succs.is_empty() {
            s.dom_tree(succs.len());
        }
        Dominators(s)
    }

    /// Whether the entry reaches block `b`.
    pub fn reachable(&self, b: usize) -> bool {
        self.0.dfn[b] != UNREACHED
    }

    /// Whether block `a` dominates block `b` (a block the entry does not reach neither
    /// dominates nor is dominated).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        let wb = self.0.dfn[b];
        wb != UNREACHED && self.0.dominates(a, wb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Whether `b` can be reached from the entry without passing through `a` (the
    /// definition of dominance, by search).
    fn reached_avoiding(n: usize, succs: &[Vec<u32>], a: usize, b: usize) -> bool {
        let mut seen = vec![false; n];
        let mut stack = vec![0usize];
        if a == 0 {
            return false;
        }
        seen[0] = true;
        while let Some(x) = stack.pop() {
            if x == b {
                return true;
            }
            for &s in &succs[x] {
                let s = s as usize;
                if s != a && !seen[s] {
                    seen[s] = true;
                    stack.push(s);
                }
            }
        }
        false
    }

    /// `Dominators` on a graph of its own: a loop, a diamond and a block nothing reaches,
    /// against the definition (every pair).
    #[test]
    fn dominators_of_a_graph_are_the_definitions() {
        // 0 -> 1; 1 -> 2, 3; 2 -> 4; 3 -> 4; 4 -> 1, 5; 6 -> 4 (6 unreached).
        let succs: Vec<Vec<u32>> = vec![
            vec![1],
            vec![2, 3],
            vec![4],
            vec![4],
            vec![1, 5],
            vec![],
            vec![4],
        ];
        let d = Dominators::new(&succs);
        for b in 0..succs.len() {
            assert_eq!(d.reachable(b), b != 6, "{b}");
            for a in 0..succs.len() {
                let want = b != 6 && a != 6 && !reached_avoiding(succs.len(), &succs, a, b);
                assert_eq!(d.dominates(a, b), want, "{a} {b}");
            }
        }
    }

    /// The rule by its definition, use by use: what `check` must find (the first use
    /// in instruction order that breaks it; within an instruction, its operands in order,
    /// an indirect call's callee first; a phi's missing predecessor before its entries).
    fn naive(body: &Body, first: u32) -> Result<(), Malformed> {
        let n = body.num_blocks as usize;
        let mut succs = Vec::new();
        let mut def_block = Vec::new();
        let mut vstart = Vec::new();
        for b in 0..n {
            vstart.push(first + def_block.len() as u32);
            for inst in &body.insts[body.block_range(b as u32)] {
                if !inst.ty.is_void() {
                    def_block.push(b);
                }
            }
            let r = body.block_range(b as u32);
            let out = match r.end.checked_sub(1).map(|i| body.insts[i].kind) {
                Some(InstKind::Br { target }) => vec![target],
                Some(InstKind::CondBr { t, f, .. }) => vec![t, f],
                Some(InstKind::Switch { default, cases, .. }) => std::iter::once(default)
                    .chain(body.switch_cases(cases).iter().map(|c| c.target))
                    .collect(),
                _ => vec![],
            };
            succs.push(
                out.into_iter()
                    .filter(|&s| (s as usize) < n)
                    .collect::<Vec<_>>(),
            );
        }
        let entry_end = vstart
            .get(1)
            .copied()
            .unwrap_or(first + def_block.len() as u32);
        let reached = |b: usize| b == 0 || reached_avoiding(n, &succs, usize::MAX, b);
        let dom = |a: usize, b: usize| a == b || !reached_avoiding(n, &succs, a, b);
        // Whether `v` reaches a use in block `b` (before value `next`, or at the end).
        let reaches = |v: u32, b: usize, next: Option<u32>| {
            let Some(&db) = v.checked_sub(first).and_then(|k| def_block.get(k as usize)) else {
                return true;
            };
            if !reached(b) {
                return true;
            }
            if db == b {
                return next.is_none_or(|next| v < next);
            }
            reached(db) && dom(db, b)
        };
        let mut next = first;
        for b in 0..n {
            for i in body.block_range(b as u32) {
                let inst = body.insts[i];
                let err = |kind| Err(Malformed { inst: i, kind });
                if let InstKind::Phi { incoming } = inst.kind {
                    let pairs = body.phi_pairs(incoming);
                    for (p, out) in succs.iter().enumerate() {
                        if out.contains(&(b as u32))
                            && !pairs.chunks_exact(2).any(|e| e[1] == p as u32)
                        {
                            return err(MalformedKind::PhiMissing(p as u32));
                        }
                    }
                    for e in pairs.chunks_exact(2) {
                        if e[0] >= entry_end
                            && (e[1] as usize) < n
                            && !reaches(e[0], e[1] as usize, None)
                        {
                            return err(MalformedKind::Undominated(e[0]));
                        }
                    }
                } else {
                    let mut used = Vec::new();
                    if let InstKind::Call {
                        callee,
                        args,
                        indirect: true,
                        ..
                    } = inst.kind
                    {
                        used.push(callee);
                        used.extend(body.span(args));
                    } else {
                        body.any_operand(&inst, |v| {
                            used.push(v);
                            false
                        });
                    }
                    for v in used {
                        if v == next && !inst.ty.is_void() {
                            return err(MalformedKind::OwnValue(v));
                        }
                        if !reaches(v, b, Some(next)) {
                            return err(MalformedKind::Undominated(v));
                        }
                    }
                }
                if !inst.ty.is_void() {
                    next += 1;
                }
            }
        }
        Ok(())
    }

    /// One generated instruction: a kind and the picks it takes its operands from.
    #[derive(Debug, Clone)]
    struct Gen {
        kind: u8,
        picks: Vec<u32>,
    }

    /// A body of blocks of `Gen` instructions, each block ended by a terminator whose kind
    /// and targets are the block's last `Gen` (values picked around the body's own
    /// range, targets some out of range), its first value numbered `first`.
    fn build(blocks: &[Vec<Gen>], first: u32) -> crate::ir::BodyBuf {
        use crate::ir::{BinOp, Span, SwitchCase, ValueType};
        let n = blocks.len() as u32;
        let total: u32 = blocks.iter().flatten().filter(|g| g.kind % 8 < 4).count() as u32;
        let val = |p: u32| first.saturating_sub(2) + p % (total + 4);
        let mut buf = crate::ir::BodyBuf {
            num_blocks: n,
            ..Default::default()
        };
        let c = &mut buf.code;
        for block in blocks {
            c.block_starts.push(c.insts.len() as u32);
            let (body, term) = block.split_at(block.len() - 1);
            for g in body {
                let p = |k: usize| val(g.picks.get(k).copied().unwrap_or(0));
                let (kind, ty) = match g.kind % 8 {
                    0 | 1 => (
                        InstKind::Binop {
                            op: BinOp::Add,
                            lhs: p(0),
                            rhs: p(1),
                        },
                        ValueType::I32,
                    ),
                    2 => {
                        let start = c.operands.len() as u32;
                        let len = g.picks.len() as u32 / 2;
                        for e in g.picks.chunks_exact(2) {
                            c.operands.extend([val(e[0]), e[1] % (n + 1)]);
                        }
                        (
                            InstKind::Phi {
                                incoming: Span { start, len },
                            },
                            ValueType::I32,
                        )
                    }
                    3 | 4 => {
                        let start = c.operands.len() as u32;
                        c.operands.extend(g.picks.iter().skip(1).map(|&x| val(x)));
                        let kind = InstKind::Call {
                            callee: p(0),
                            args: Span::new(start, g.picks.len().saturating_sub(1) as u32),
                            tail: false,
                            indirect: g.kind % 2 == 1,
                        };
                        (
                            kind,
                            if g.kind % 8 == 3 {
                                ValueType::I32
                            } else {
                                ValueType::Void
                            },
                        )
                    }
                    _ => (
                        InstKind::Store {
                            ptr: p(0),
                            val: p(1),
                            align: crate::ir::Align(0),
                        },
                        ValueType::Void,
                    ),
                };
                c.insts.push(crate::ir::Inst { kind, ty });
            }
            let g = &term[0];
            let t = |k: usize| g.picks.get(k).copied().unwrap_or(0) % (n + 1);
            let kind = match g.kind % 4 {
                0 => InstKind::Ret {
                    val: g.picks.first().map(|&x| val(x)),
                },
                1 => InstKind::Br { target: t(0) },
                2 => InstKind::CondBr {
                    cond: val(g.picks.first().copied().unwrap_or(0)),
                    t: t(1),
                    f: t(2),
                },
                _ => {
                    let start = c.cases.len() as u32;
                    c.cases.extend((2..g.picks.len()).map(|k| SwitchCase {
                        value: k as i64,
                        target: t(k),
                    }));
                    InstKind::Switch {
                        cond: val(g.picks.first().copied().unwrap_or(0)),
                        default: t(1),
                        cases: Span::new(start, g.picks.len().saturating_sub(2) as u32),
                    }
                }
            };
            c.insts.push(crate::ir::Inst {
                kind,
                ty: ValueType::Void,
            });
        }
        buf
    }

    fn gen_body() -> impl Strategy<Value = Vec<Vec<Gen>>> {
        let gen = (0u8..16, proptest::collection::vec(0u32..64, 0..6))
            .prop_map(|(kind, picks)| Gen { kind, picks });
        proptest::collection::vec(proptest::collection::vec(gen, 1..6), 1..8)
    }

    proptest! {
        /// The tree's dominance is the definition's, on random CFGs (irreducible ones,
        /// unreached blocks, self-loops and repeated edges among them).
        #[test]
        fn dominance_is_the_definitions(
            n in 1usize..12,
            edges in proptest::collection::vec(proptest::collection::vec(0u32..12, 0..4), 12),
        ) {
            let succs: Vec<Vec<u32>> =
                edges[..n].iter().map(|e| e.iter().map(|&s| s % n as u32).collect()).collect();
            let mut s = Scratch::default();
            for out in &succs {
                s.succs.next_block();
                s.succs.to.extend(out);
            }
            s.succs.next_block();
            s.dom_tree(n);
            for b in 0..n {
                let reached = b == 0 || reached_avoiding(n, &succs, usize::MAX, b);
                prop_assert_eq!(s.dfn[b] != UNREACHED, reached, "block {} reached", b);
                if !reached {
                    continue;
                }
                for a in 0..n {
                    let dom = s.dominates(a, s.dfn[b]);
                    let want = a == b || !reached_avoiding(n, &succs, a, b);
                    prop_assert_eq!(dom, want, "{} dominates {}", a, b);
                }
            }
        }

        /// `check` finds what the rule's definition finds, use by use, on random bodies
        /// (phis anywhere, forward and own-value uses, unreached blocks, out-of-range
        /// targets and values), with one scratch reused from body to body as the callers
        /// do.
        #[test]
        fn check_is_the_definitions(bodies in proptest::collection::vec(gen_body(), 1..4)) {
            let mut scratch = Scratch::default();
            for (k, blocks) in bodies.iter().enumerate() {
                let first = 3 * k as u32;
                let buf = build(blocks, first);
                let body = buf.view();
                prop_assert_eq!(scratch.check(&body, first), naive(&body, first), "body {}", k);
            }
        }
    }
}
