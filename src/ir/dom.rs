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

/// Not numbered: a block the entry does not reach.
const UNREACHED: u32 = u32::MAX;

/// Checks `body`, whose first instruction value has the absolute id `first_inst_value`
/// (the ids below it, addresses, parameters and constants, are defined everywhere): the
/// first use, in instruction order, that breaks the rule.
pub fn check(body: &Body, first_inst_value: ValueId) -> Result<(), Malformed> {
    Scratch::default().check(body, first_inst_value)
}

/// Room for `check`, kept from one body to the next by a caller that checks many.
#[derive(Debug, Default)]
pub struct Scratch {
    /// The first value id each block defines (values are numbered in layout order), and
    /// one past the last.
    vstart: Vec<u32>,
    /// Each block's successors: `succs[succ_start[b]..succ_start[b + 1]]` (`UNREACHED`
    /// for a target out of range).
    succ_start: Vec<u32>,
    succs: Vec<u32>,
    /// Each block's predecessors, each once, the same way (built for the phis' entries
    /// and for the dominator tree).
    pred_start: Vec<u32>,
    preds: Vec<u32>,
    mark: Vec<u32>,
    /// Whether `preds` lists every block's predecessors (`all_preds`) or the reached
    /// blocks' only, and whether `pre`/`post` hold the body's dominator tree.
    all_preds: bool,
    have_tree: bool,
    po_num: Vec<u32>,
    order: Vec<u32>,
    stack: Vec<(u32, u32)>,
    idom: Vec<u32>,
    child_start: Vec<u32>,
    children: Vec<u32>,
    fill: Vec<u32>,
    /// The dominator tree's preorder and postorder numbers (`UNREACHED` for a block the
    /// entry does not reach): `a` dominates `b` when `b`'s interval lies in `a`'s.
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl Scratch {
    /// `dom::check`, with this room.
    pub fn check(&mut self, body: &Body, first_inst_value: ValueId) -> Result<(), Malformed> {
        let n = body.num_blocks as usize;
        if n == 0 || body.block_starts.len() != n {
            // Not a complete body (the reader gives none such).
            return Ok(());
        }
        self.layout(body, first_inst_value);
        self.have_tree = false;
        self.all_preds = false;
        let entry_end = self.vstart[1];
        let mut next = first_inst_value;
        let mut ops = [0u32; 3];
        for b in 0..n as u32 {
            let bstart = self.vstart[b as usize];
            // Values below `low` are defined before any use in this block can be.
            let low = if b == 0 { first_inst_value } else { entry_end };
            let r = body.block_range(b);
            for (i, inst) in body.insts[r.clone()].iter().enumerate() {
                let i = r.start + i;
                let used: &[u32] = match inst.kind {
                    InstKind::Binop { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
                        ops[..2].copy_from_slice(&[lhs, rhs]);
                        &ops[..2]
                    }
                    InstKind::Cast { val: v, .. }
                    | InstKind::Ret { val: Some(v) }
                    | InstKind::CondBr { cond: v, .. }
                    | InstKind::Switch { cond: v, .. }
                    | InstKind::Alloca { size: v, .. }
                    | InstKind::Load { ptr: v, .. } => {
                        ops[0] = v;
                        &ops[..1]
                    }
                    InstKind::Store { ptr, val, .. } => {
                        ops[..2].copy_from_slice(&[ptr, val]);
                        &ops[..2]
                    }
                    InstKind::ExtractElement { vec, idx } => {
                        ops[..2].copy_from_slice(&[vec, idx]);
                        &ops[..2]
                    }
                    InstKind::Select { cond, t, f } => {
                        ops = [cond, t, f];
                        &ops
                    }
                    InstKind::InsertElement { vec, elt, idx } => {
                        ops = [vec, elt, idx];
                        &ops
                    }
                    InstKind::Call {
                        callee,
                        args,
                        indirect,
                        ..
                    } => {
                        if indirect
                            && !(callee < low || callee.wrapping_sub(bstart) < next - bstart)
                        {
                            self.use_at(body, i, inst.ty.is_void(), callee, b, next)?;
                        }
                        body.span(args)
                    }
                    InstKind::Phi { incoming } => {
                        self.phi(body, i, b, incoming, entry_end)?;
                        &[]
                    }
                    InstKind::Ret { val: None } | InstKind::Br { .. } | InstKind::Unreachable => {
                        &[]
                    }
                };
                for &v in used {
                    // Defined in the entry block or before, or earlier in this block.
                    if v < low || v.wrapping_sub(bstart) < next - bstart {
                        continue;
                    }
                    self.use_at(body, i, inst.ty.is_void(), v, b, next)?;
                }
                next += !inst.ty.is_void() as u32;
            }
        }
        Ok(())
    }

    /// The values each block defines, and the CFG's edges.
    fn layout(&mut self, body: &Body, first_inst_value: ValueId) {
        let n = body.num_blocks as usize;
        self.vstart.clear();
        self.succ_start.clear();
        self.succs.clear();
        let mut next = first_inst_value;
        for b in 0..n as u32 {
            let r = body.block_range(b);
            self.vstart.push(next);
            next += body.insts[r.clone()]
                .iter()
                .map(|inst| !inst.ty.is_void() as u32)
                .sum::<u32>();
            self.succ_start.push(self.succs.len() as u32);
            match r.end.checked_sub(1).map(|i| body.insts[i].kind) {
                Some(InstKind::Br { target }) => self.succs.push(target),
                Some(InstKind::CondBr { t, f, .. }) => self.succs.extend([t, f]),
                Some(InstKind::Switch { default, cases, .. }) => {
                    self.succs.push(default);
                    self.succs
                        .extend(body.switch_cases(cases).iter().map(|c| c.target));
                }
                _ => {}
            }
        }
        self.vstart.push(next);
        self.succ_start.push(self.succs.len() as u32);
        // Branch targets the reader let through out of range are not edges.
        for s in &mut self.succs {
            if *s as usize >= n {
                *s = UNREACHED;
            }
        }
    }

    /// A use of `v` by instruction `i` (in block `b`, before value `next` is defined; no
    /// phi) that the fast tests did not pass: `v` is the instruction's own value, or is
    /// defined later in the block or in another block than the entry.
    #[cold]
    fn use_at(
        &mut self,
        body: &Body,
        i: usize,
        void: bool,
        v: ValueId,
        b: u32,
        next: u32,
    ) -> Result<(), Malformed> {
        let kind = if v == next && !void {
            // (Reachable or not: LLVM's verifier forbids it but in a phi.)
            MalformedKind::OwnValue(v)
        } else if !self.reaches(body, v, b, Some(next)) {
            MalformedKind::Undominated(v)
        } else {
            return Ok(());
        };
        Err(Malformed { inst: i, kind })
    }

    /// The phi `i` of block `b`: an entry for each predecessor, and each incoming value
    /// defined at the end of its block.
    #[cold]
    fn phi(
        &mut self,
        body: &Body,
        i: usize,
        b: u32,
        incoming: crate::ir::Span,
        entry_end: u32,
    ) -> Result<(), Malformed> {
        let n = body.num_blocks as usize;
        if !self.all_preds {
            // (A tree built from the reached blocks' predecessors stays right.)
            self.all_preds = true;
            self.predecessors(n, |_| true);
        }
        let pairs = body.phi_pairs(incoming);
        let preds = &self.preds
            [self.pred_start[b as usize] as usize..self.pred_start[b as usize + 1] as usize];
        if let Some(&p) = preds
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
            if e[0] >= entry_end && (e[1] as usize) < n && !self.reaches(body, e[0], e[1], None) {
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
    fn reaches(&mut self, body: &Body, v: ValueId, b: u32, next: Option<u32>) -> bool {
        let n = body.num_blocks as usize;
        if v >= self.vstart[n] {
            // No such value: the reader gives none.
            return true;
        }
        if !self.have_tree {
            self.dom_tree(n);
        }
        if self.pre[b as usize] == UNREACHED {
            // Any use in an unreached block is dominated.
            return true;
        }
        let db = self.vstart.partition_point(|&s| s <= v) - 1;
        if db == b as usize {
            return next.is_none_or(|next| v < next);
        }
        let (a, b) = (db, b as usize);
        self.pre[a] != UNREACHED && self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    /// `preds`: the predecessors of each block, among the blocks `from` takes, each once.
    #[inline(never)]
    fn predecessors(&mut self, n: usize, from: impl Fn(u32) -> bool) {
        let (succ_start, succs) = (&self.succ_start, &self.succs);
        let mark = &mut self.mark;
        // Each edge once: a block's later edges to the same successor are left out
        // (`mark[s]` is the last block, plus one, that had an edge to `s`).
        let mut each_edge = |f: &mut dyn FnMut(usize, usize)| {
            mark.clear();
            mark.resize(n, 0);
            for b in (0..n).filter(|&b| from(b as u32)) {
                for &s in &succs[succ_start[b] as usize..succ_start[b + 1] as usize] {
                    if s != UNREACHED && mark[s as usize] != b as u32 + 1 {
                        mark[s as usize] = b as u32 + 1;
                        f(b, s as usize);
                    }
                }
            }
        };
        let start = &mut self.pred_start;
        start.clear();
        start.resize(n + 1, 0);
        each_edge(&mut |_, s| start[s + 1] += 1);
        for b in 0..n {
            start[b + 1] += start[b];
        }
        let fill = &mut self.fill;
        fill.clear();
        fill.extend_from_slice(start);
        let list = &mut self.preds;
        list.clear();
        list.resize(start[n] as usize, 0);
        each_edge(&mut |b, s| {
            list[fill[s] as usize] = b as u32;
            fill[s] += 1;
        });
    }

    /// The dominator tree (`pre`, `post`): Cooper, Harvey and Kennedy's iterative
    /// algorithm ("A Simple, Fast Dominance Algorithm", 2001) on the reverse postorder.
    #[inline(never)]
    fn dom_tree(&mut self, n: usize) {
        self.have_tree = true;
        // Postorder from the entry, iteratively (a body may have millions of blocks).
        self.po_num.clear();
        self.po_num.resize(n, UNREACHED);
        self.order.clear();
        self.mark.clear();
        self.mark.resize(n, 0);
        self.stack.clear();
        self.stack.push((0, 0));
        self.mark[0] = 1;
        while let Some(top) = self.stack.last_mut() {
            let (b, k) = *top;
            let at = self.succ_start[b as usize] + k;
            if at < self.succ_start[b as usize + 1] {
                top.1 += 1;
                let s = self.succs[at as usize];
                if s != UNREACHED && self.mark[s as usize] == 0 {
                    self.mark[s as usize] = 1;
                    self.stack.push((s, 0));
                }
            } else {
                self.po_num[b as usize] = self.order.len() as u32;
                self.order.push(b);
                self.stack.pop();
            }
        }
        // The reached blocks' predecessors (those of all blocks, if `phi` built them,
        // serve as well: an unreached predecessor has no dominator and is skipped).
        if !self.all_preds {
            let po_num = std::mem::take(&mut self.po_num);
            self.predecessors(n, |b| po_num[b as usize] != UNREACHED);
            self.po_num = po_num;
        }
        // Immediate dominators (the entry's is itself).
        let (po_num, idom) = (&self.po_num, &mut self.idom);
        idom.clear();
        idom.resize(n, UNREACHED);
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in self.order.iter().rev().skip(1) {
                let ps = &self.preds[self.pred_start[b as usize] as usize
                    ..self.pred_start[b as usize + 1] as usize];
                let mut new = UNREACHED;
                for &p in ps {
                    if idom[p as usize] == UNREACHED {
                        continue;
                    }
                    if new == UNREACHED {
                        new = p;
                        continue;
                    }
                    // The nearest common dominator of `p` and `new`.
                    let (mut x, mut y) = (p, new);
                    while x != y {
                        while po_num[x as usize] < po_num[y as usize] {
                            x = idom[x as usize];
                        }
                        while po_num[y as usize] < po_num[x as usize] {
                            y = idom[y as usize];
                        }
                    }
                    new = x;
                }
                if new != idom[b as usize] {
                    idom[b as usize] = new;
                    changed = true;
                }
            }
        }
        // The tree's children, then its preorder and postorder numbers.
        let start = &mut self.child_start;
        start.clear();
        start.resize(n + 1, 0);
        for &b in &self.order {
            if b != 0 {
                start[idom[b as usize] as usize + 1] += 1;
            }
        }
        for b in 0..n {
            start[b + 1] += start[b];
        }
        self.fill.clear();
        self.fill.extend_from_slice(start);
        self.children.clear();
        self.children.resize(start[n] as usize, 0);
        for &b in &self.order {
            if b != 0 {
                let p = idom[b as usize] as usize;
                self.children[self.fill[p] as usize] = b;
                self.fill[p] += 1;
            }
        }
        self.pre.clear();
        self.pre.resize(n, UNREACHED);
        self.post.clear();
        self.post.resize(n, UNREACHED);
        let (mut next_pre, mut next_post) = (1u32, 0u32);
        self.pre[0] = 0;
        self.stack.clear();
        self.stack.push((0, start[0]));
        while let Some(top) = self.stack.last_mut() {
            let (b, k) = *top;
            if k < start[b as usize + 1] {
                top.1 += 1;
                let c = self.children[k as usize];
                self.pre[c as usize] = next_pre;
                next_pre += 1;
                self.stack.push((c, start[c as usize]));
            } else {
                self.post[b as usize] = next_post;
                next_post += 1;
                self.stack.pop();
            }
        }
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
            for (b, out) in succs.iter().enumerate() {
                s.succ_start.push(s.succs.len() as u32);
                s.succs.extend(out);
                let _ = b;
            }
            s.succ_start.push(s.succs.len() as u32);
            s.dom_tree(n);
            for b in 0..n {
                let reached = b == 0 || reached_avoiding(n, &succs, usize::MAX, b);
                prop_assert_eq!(s.pre[b] != UNREACHED, reached, "block {} reached", b);
                if !reached {
                    continue;
                }
                for a in 0..n {
                    let dom = s.pre[a] != UNREACHED
                        && s.pre[a] <= s.pre[b]
                        && s.post[b] <= s.post[a];
                    let want = a == b || !reached_avoiding(n, &succs, a, b);
                    prop_assert_eq!(dom, want, "{} dominates {}", a, b);
                }
            }
        }
    }
}
