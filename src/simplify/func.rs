//! One function's conversion: its blocks in reverse post-order (so that every value is
//! made before its uses, phis aside), each old value mapped to its leaves in the new
//! function, constants and addresses of globals made once in a prologue at the top of the
//! entry block, phis completed once every block exists. The instructions themselves are
//! in `ops.rs` (arithmetic, casts, comparisons, vectors and aggregates), `memory.rs`
//! (addresses, loads, stores, atomics, variable arguments) and `calls.rs`.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::lower::{Conv, GlobalRef, Lowering};
use super::shape::{LeafKind, Vals};
use super::Problem;
use crate::llvm::edit::{Block, Builder, Marker, Opcode, Type, TypeKind, Value, ValueKind};

pub(super) type R<T> = Result<T, String>;

/// The state of one function's conversion.
pub(super) struct Fx<'a, 'l> {
    pub lw: &'l Lowering<'a>,
    pub old_f: Value<'a>,
    /// The new function.
    pub f: Value<'a>,
    pub b: Builder<'a>,
    pub conv: Rc<Conv<'a>>,
    marker: Option<Marker<'a>>,
    in_prologue: bool,
    vals: HashMap<Value<'a>, Vals<'a>>,
    consts: HashMap<Value<'a>, Vals<'a>>,
    /// Constant vectors of the new module, loaded in the prologue.
    vec_consts: HashMap<Value<'a>, Value<'a>>,
    /// An i32 that is `ptrtoint` of a pointer LLVM knows (alloca, global, intrinsic
    /// result) → that pointer: memory accesses use the pointer itself, as a pexe does.
    pub inherent: HashMap<Value<'a>, Value<'a>>,
    blocks: HashMap<Block<'a>, Block<'a>>,
    exits: HashMap<Block<'a>, Block<'a>>,
    phis: Vec<(Value<'a>, Vec<Value<'a>>)>,
    /// The variable-argument buffer parameter of a variadic function.
    pub vararg_buf: Option<Value<'a>>,
    /// The result-memory parameter of a function whose result has several leaves.
    pub sret: Option<Value<'a>>,
    tp: Option<Value<'a>>,
    unreachable: Option<Block<'a>>,
    /// C++ exceptions (eh.rs): the function's frame, an i32 address in its prologue.
    pub eh_frame: Option<Value<'a>>,
}

/// Converts the body of old function `old_f` into its new function.
pub(super) fn lower_function<'a>(lw: &Lowering<'a>, old_f: Value<'a>) -> Result<(), Problem> {
    let name = old_f.name();
    let f = lw.funcs[&old_f];
    let conv = lw
        .conv(old_f.function_type())
        .map_err(|e| Problem::in_function(&name, None, e))?;
    let mut fx = Fx {
        lw,
        old_f,
        f,
        b: lw.new.builder(),
        conv,
        marker: None,
        in_prologue: false,
        vals: HashMap::new(),
        consts: HashMap::new(),
        vec_consts: HashMap::new(),
        inherent: HashMap::new(),
        blocks: HashMap::new(),
        exits: HashMap::new(),
        phis: Vec::new(),
        vararg_buf: None,
        sret: None,
        tp: None,
        unreachable: None,
        eh_frame: None,
    };
    let r = fx.run();
    if let Some(m) = fx.marker.take() {
        fx.b.remove_marker(m);
    }
    r.map_err(|(at, what)| {
        let loc = at.and_then(|i| i.debug_loc());
        let what = match at {
            Some(i) => format!("{what}: `{}`", i.text().trim()),
            None => what,
        };
        Problem::in_function(&name, loc, what)
    })
}

/// The blocks reachable from the entry, in reverse post-order (an invoke's unwind edge
/// counts only with the exception lowering: without it invokes become calls).
fn reverse_post_order<'a>(f: Value<'a>, unwinds: bool) -> Vec<Block<'a>> {
    let Some(entry) = f.entry_block() else {
        return Vec::new();
    };
    let succs = |b: Block<'a>| -> Vec<Block<'a>> {
        match b.terminator() {
            Some(t) if t.opcode() == Some(Opcode::LLVMInvoke) && !unwinds => {
                vec![t.invoke_dests().0]
            }
            Some(t) => t.successors(),
            None => Vec::new(),
        }
    };
    let mut seen = HashSet::new();
    let mut post = Vec::new();
    let mut stack = vec![(entry, succs(entry), 0usize)];
    seen.insert(entry);
    while let Some((bl, ss, i)) = stack.last_mut() {
        if *i < ss.len() {
            let s = ss[*i];
            *i += 1;
            if seen.insert(s) {
                let next = succs(s);
                stack.push((s, next, 0));
            }
        } else {
            post.push(*bl);
            stack.pop();
        }
    }
    post.reverse();
    post
}

impl<'a> Fx<'a, '_> {
    fn run(&mut self) -> Result<(), (Option<Value<'a>>, String)> {
        let order = reverse_post_order(self.old_f, self.lw.eh.is_some());
        let reachable: HashSet<Block<'a>> = order.iter().copied().collect();
        for ob in self.old_f.blocks() {
            if reachable.contains(&ob) {
                let nb = self.lw.new.append_block(self.f, "");
                self.blocks.insert(ob, nb);
            }
        }
        let entry = self.blocks[&order[0]];
        self.b.position_at_end(entry);
        self.marker = Some(self.b.marker());
        self.params().map_err(|e| (None, e))?;
        for ob in &order {
            self.b.position_at_end(self.blocks[ob]);
            for i in ob.instructions() {
                self.inst(i).map_err(|e| (Some(i), e))?;
            }
            self.exits.insert(*ob, self.b.block());
        }
        let phis = std::mem::take(&mut self.phis);
        for (old, news) in phis {
            for (val, from) in old.incoming() {
                let Some(&nb) = self.exits.get(&from) else {
                    continue;
                };
                if let Some(t) = nb.terminator() {
                    self.b.position_before(t);
                }
                let vs = self.get(val).map_err(|e| (Some(old), e))?;
                for (p, x) in news.iter().zip(vs.as_slice()) {
                    self.b.add_incoming(*p, *x, nb);
                }
            }
        }
        Ok(())
    }

    /// The old parameters' leaves from the new parameters.
    fn params(&mut self) -> R<()> {
        let news = self.f.params();
        let mut k = 0;
        if self.conv.sret {
            self.sret = Some(news[0]);
            k = 1;
        }
        let olds = self.old_f.params();
        for (i, p) in olds.iter().enumerate() {
            let shape = self.lw.shapes.of(p.ty())?;
            let n = self.conv.param_leaves[i];
            let mut leaves = Vec::new();
            for (j, l) in shape.leaves.iter().enumerate() {
                let x = news[k + j];
                leaves.push(self.pro(|fx| Ok(fx.narrow(x, l.kind)))?);
            }
            k += n;
            self.vals.insert(*p, Vals::from_vec(leaves));
        }
        if self.conv.vararg {
            self.vararg_buf = Some(news[k]);
        }
        Ok(())
    }

    /// A leaf passed as an i32 (a small integer) back to its own width.
    pub fn narrow(&self, x: Value<'a>, k: LeafKind<'a>) -> Value<'a> {
        let tys = self.lw.tys;
        if x.ty() == k.ty(tys) {
            return x;
        }
        self.b.cast(Opcode::LLVMTrunc, x, k.ty(tys))
    }

    /// Runs `f` with the builder in the prologue (the top of the entry block).
    pub fn pro<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.in_prologue {
            return f(self);
        }
        let cur = self.b.block();
        let at_end = cur.terminator();
        self.b
            .position_before_marker(self.marker.as_ref().expect("the prologue's marker"));
        self.in_prologue = true;
        let r = f(self);
        self.in_prologue = false;
        match at_end {
            // Phi completion works before a terminator.
            Some(t) => self.b.position_before(t),
            None => self.b.position_at_end(cur),
        }
        r
    }

    /// Records the leaves of old value `v`.
    pub fn set(&mut self, v: Value<'a>, x: Vals<'a>) {
        self.vals.insert(v, x);
    }

    /// The leaves of old value `v`.
    pub fn get(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        if let Some(x) = self.vals.get(&v) {
            return Ok(x.clone());
        }
        match v.kind() {
            ValueKind::Instruction(_) | ValueKind::Argument => {
                Err(format!("a value used where it is not defined: {v:?}"))
            }
            ValueKind::InlineAsm => Err("inline assembly".into()),
            ValueKind::Metadata => Err("metadata as a value".into()),
            ValueKind::Block | ValueKind::Other => Err(format!("the value {v:?}")),
            _ => self.constant(v),
        }
    }

    /// The one leaf of old value `v`.
    pub fn one(&mut self, v: Value<'a>) -> R<Value<'a>> {
        let x = self.get(v)?;
        match x.as_slice() {
            [one] => Ok(*one),
            s => Err(format!(
                "a value of {} parts where one is needed: {v:?}",
                s.len()
            )),
        }
    }

    /// The address of a new global or function, as an i32 made once in the prologue.
    pub fn addr_of(&mut self, g: Value<'a>) -> R<Value<'a>> {
        self.pro(|fx| {
            let p = fx.b.cast(Opcode::LLVMPtrToInt, g, fx.lw.tys.i32());
            fx.inherent.insert(p, g);
            Ok(p)
        })
    }

    /// The thread pointer, as an i32 (one `llvm.nacl.read.tp` in the prologue).
    pub fn tp(&mut self) -> R<Value<'a>> {
        if let Some(t) = self.tp {
            return Ok(t);
        }
        let tys = self.lw.tys;
        let t = self.pro(|fx| {
            let fty = tys.function(tys.i8().ptr(), &[], false);
            let rt = fx.lw.decl("llvm.nacl.read.tp", fty);
            let p = fx.b.call(fty, rt, &[]);
            let t = fx.b.cast(Opcode::LLVMPtrToInt, p, tys.i32());
            fx.inherent.insert(t, p);
            Ok(t)
        })?;
        self.tp = Some(t);
        Ok(t)
    }

    /// `x + k` (x an i32 address).
    pub fn offset(&self, x: Value<'a>, k: i64) -> Value<'a> {
        if k == 0 {
            return x;
        }
        let tys = self.lw.tys;
        self.b
            .binop(Opcode::LLVMAdd, x, tys.const_i32(k as i32 as i64))
    }

    /// A pointer to `pointee` at i32 address `addr`: the pointer LLVM knows, if `addr` is
    /// one's address, else `inttoptr`.
    pub fn ptr(&mut self, addr: Value<'a>, pointee: Type<'a>) -> Value<'a> {
        let pty = pointee.ptr();
        if let Some(p) = self.inherent.get(&addr).copied() {
            if p.ty() == pty {
                return p;
            }
            return self.b.cast(Opcode::LLVMBitCast, p, pty);
        }
        self.b.cast(Opcode::LLVMIntToPtr, addr, pty)
    }

    /// The leaves of an old constant (made once per function).
    fn constant(&mut self, c: Value<'a>) -> R<Vals<'a>> {
        if let Some(x) = self.consts.get(&c) {
            return Ok(x.clone());
        }
        let tys = self.lw.tys;
        let r = match c.kind() {
            ValueKind::Function => {
                if c.is_intrinsic() {
                    return Err(format!("the address of intrinsic {}", c.name()));
                }
                match self.lw.funcs.get(&c).copied() {
                    Some(nf) => Vals::One(self.addr_of(nf)?),
                    None if self.lw.library.contains_key(&c) => {
                        return Err(format!(
                            "the address of library function {} (only calls of it can be \
                             kept)",
                            c.name()
                        ))
                    }
                    // A weak function nothing defines.
                    None => Vals::One(tys.const_i32(0)),
                }
            }
            ValueKind::GlobalVariable => match self.lw.globals.get(&c).copied() {
                Some(GlobalRef::Global(g)) => Vals::One(self.addr_of(g)?),
                Some(GlobalRef::Offset(g, k)) => {
                    let a = self.addr_of(g)?;
                    Vals::One(self.pro(|fx| Ok(fx.offset(a, k)))?)
                }
                Some(GlobalRef::Tls(k)) => {
                    let t = self.tp()?;
                    Vals::One(self.pro(|fx| Ok(fx.offset(t, k)))?)
                }
                Some(GlobalRef::Null) => Vals::One(tys.const_i32(0)),
                None => return Err(format!("the undefined global {}", c.name())),
            },
            ValueKind::Alias => self.constant(c.aliasee())?,
            ValueKind::BlockAddress => {
                let n = self.lw.block_numbers.get(&c.operand_block(1)).copied();
                Vals::One(tys.const_i32(n.unwrap_or(0) as i64))
            }
            ValueKind::ConstExpr(op) => {
                let divides = matches!(
                    op,
                    Opcode::LLVMUDiv | Opcode::LLVMSDiv | Opcode::LLVMURem | Opcode::LLVMSRem
                ) && c.operand(1).const_zext().is_none_or(|d| d == 0);
                if divides {
                    // Where it is used: a division the program may never reach.
                    return self.op(c);
                }
                self.pro(|fx| fx.op(c))?
            }
            _ => {
                let mut out = Vec::new();
                self.const_into(c, c.ty(), &mut out)?;
                Vals::from_vec(out)
            }
        };
        self.consts.insert(c, r.clone());
        Ok(r)
    }

    /// The leaves of constant `c` of type `ty`, appended to `out`.
    fn const_into(&mut self, c: Value<'a>, ty: Type<'a>, out: &mut Vec<Value<'a>>) -> R<()> {
        let tys = self.lw.tys;
        match c.kind() {
            ValueKind::ConstInt => {
                let w = ty.int_width().unwrap();
                let words = c.const_big_int().ok_or("an unreadable integer constant")?;
                let shape = self.lw.shapes.of(ty)?;
                for (i, l) in shape.leaves.iter().enumerate() {
                    let lt = l.kind.ty(tys);
                    let word = if w <= 64 { words[0] } else { words[i] };
                    out.push(tys.const_int(lt, word));
                }
            }
            ValueKind::ConstFloat => out.push(tys.const_f64(ty, c.const_f64().unwrap())),
            ValueKind::ConstNull => out.push(tys.const_i32(0)),
            ValueKind::Undef | ValueKind::ConstZero => {
                let shape = self.lw.shapes.of(ty)?;
                for l in &shape.leaves {
                    let lt = l.kind.ty(tys);
                    if c.kind() == ValueKind::Undef {
                        out.push(tys.undef(lt));
                    } else if let LeafKind::Vector(_) = l.kind {
                        out.push(self.vec_const(tys.zero(lt))?);
                    } else {
                        out.push(tys.zero(lt));
                    }
                }
            }
            ValueKind::ConstAggregate | ValueKind::ConstData => {
                let elem = |i: u32| c.aggregate_element(i);
                match ty.kind() {
                    TypeKind::Vector(e, n) if super::shape::is_abi_vector(e, n) => {
                        let mut es = Vec::new();
                        for i in 0..n {
                            let x = elem(i);
                            let mut one = Vec::new();
                            match x.kind() {
                                ValueKind::ConstInt
                                | ValueKind::ConstFloat
                                | ValueKind::Undef
                                | ValueKind::ConstZero => self.const_into(x, e, &mut one)?,
                                _ => {
                                    return Err(format!(
                                        "a constant vector with a non-constant element: {c:?}"
                                    ))
                                }
                            }
                            es.extend(one);
                        }
                        out.push(self.vec_const(tys.const_vector(&es))?);
                    }
                    TypeKind::Vector(e, n) => {
                        for i in 0..n {
                            self.const_into(elem(i), e, out)?;
                        }
                    }
                    TypeKind::Array(e, n) => {
                        for i in 0..n {
                            self.const_into(elem(i as u32), e, out)?;
                        }
                    }
                    TypeKind::Struct => {
                        for (i, ft) in ty.struct_fields().into_iter().enumerate() {
                            self.const_into(elem(i as u32), ft, out)?;
                        }
                    }
                    _ => return Err(format!("the constant {c:?}")),
                }
            }
            _ => out.extend_from_slice(self.constant(c)?.as_slice()),
        }
        Ok(())
    }

    /// Constant vector `cv` (of the new module) as an operand a pexe can have: loaded
    /// from a constant global, or for a vector of i1, inserted element by element.
    pub fn vec_const(&mut self, cv: Value<'a>) -> R<Value<'a>> {
        if cv.kind() == ValueKind::Undef {
            return Ok(cv);
        }
        if let Some(x) = self.vec_consts.get(&cv) {
            return Ok(*x);
        }
        let tys = self.lw.tys;
        let (e, n) = cv
            .ty()
            .vector()
            .ok_or_else(|| format!("not a vector constant: {cv:?}"))?;
        let x = self.pro(|fx| {
            if e.int_width() == Some(1) {
                let mut v = tys.undef(cv.ty());
                for i in 0..n {
                    let el = if cv.kind() == ValueKind::ConstZero {
                        tys.zero(e)
                    } else if cv.kind() == ValueKind::ConstData {
                        cv.const_data_element(i)
                    } else {
                        cv.operand(i)
                    };
                    v = fx.b.insert_element(v, el, tys.const_i32(i as i64));
                }
                return Ok(v);
            }
            let g = fx.lw.vector_global(cv)?;
            let p = fx.b.cast(Opcode::LLVMBitCast, g, cv.ty().ptr());
            let es = fx.lw.shapes.layout().store_size(e) as u32;
            Ok(fx.b.load(cv.ty(), p, es))
        })?;
        self.vec_consts.insert(cv, x);
        Ok(x)
    }

    /// The block a branch to old block `ob` goes to.
    pub fn block(&self, ob: Block<'a>) -> R<Block<'a>> {
        self.blocks
            .get(&ob)
            .copied()
            .ok_or_else(|| "a branch to a block that cannot be reached".into())
    }

    /// A new block of this function (for conversions that need control flow).
    pub fn new_block(&self) -> Block<'a> {
        self.lw.new.append_block(self.f, "")
    }

    fn unreachable_block(&mut self) -> Block<'a> {
        if let Some(u) = self.unreachable {
            return u;
        }
        let u = self.new_block();
        let cur = self.b.block();
        self.b.position_at_end(u);
        self.b.unreachable();
        self.b.position_at_end(cur);
        self.unreachable = Some(u);
        u
    }

    /// Converts one instruction.
    fn inst(&mut self, i: Value<'a>) -> R<()> {
        use Opcode::*;
        let op = i.opcode().unwrap();
        let x = match op {
            LLVMRet => return self.ret(i),
            LLVMBr => return self.br(i),
            LLVMSwitch => return self.switch(i),
            LLVMIndirectBr => return self.indirect_br(i),
            LLVMUnreachable => {
                self.b.unreachable();
                return Ok(());
            }
            LLVMInvoke => {
                let (normal, unwind) = i.invoke_dests();
                let list = self.eh_list_of(i)?;
                let (x, caught) = self.call_or_invoke(i, list)?;
                self.set(i, x);
                let normal = self.block(normal)?;
                match caught {
                    Some(caught) => {
                        let unwind = self.block(unwind)?;
                        let tys = self.lw.tys;
                        let c = self.b.icmp(
                            crate::llvm::edit::pred::LLVMIntNE,
                            caught,
                            tys.const_i32(0),
                        );
                        self.b.cond_br(c, unwind, normal);
                    }
                    // Not a call that can throw (an intrinsic, a library routine).
                    None => {
                        self.b.br(normal);
                    }
                }
                return Ok(());
            }
            LLVMLandingPad if self.lw.eh.is_some() => self.eh_landing_pad()?,
            LLVMResume if self.lw.eh.is_some() => return self.eh_resume(i.operand(0)),
            LLVMPHI => {
                let shape = self.lw.shapes.of(i.ty())?;
                let tys = self.lw.tys;
                let news: Vec<Value<'a>> = shape
                    .leaves
                    .iter()
                    .map(|l| self.b.phi(l.kind.ty(tys)))
                    .collect();
                self.phis.push((i, news.clone()));
                Vals::from_vec(news)
            }
            LLVMCall => self.call(i)?,
            LLVMAlloca => self.alloca(i)?,
            LLVMLoad => self.load(i)?,
            LLVMStore => {
                self.store(i)?;
                return Ok(());
            }
            LLVMFence => {
                self.fence(i)?;
                return Ok(());
            }
            LLVMAtomicCmpXchg => self.cmpxchg(i)?,
            LLVMAtomicRMW => self.atomic_rmw(i)?,
            LLVMVAArg => self.va_arg(i)?,
            LLVMLandingPad | LLVMResume | LLVMCleanupRet | LLVMCatchRet | LLVMCatchPad
            | LLVMCleanupPad | LLVMCatchSwitch => {
                return Err("C++ exception handling (not supported yet)".into())
            }
            LLVMCallBr => return Err("`asm goto` (callbr): inline assembly".into()),
            _ => self.op(i)?,
        };
        self.set(i, x);
        Ok(())
    }

    fn br(&mut self, i: Value<'a>) -> R<()> {
        let succ = i.successors();
        if succ.len() == 1 {
            let t = self.block(succ[0])?;
            self.b.br(t);
            return Ok(());
        }
        let c = self.one(i.operand(0))?;
        let (t, f) = (self.block(succ[0])?, self.block(succ[1])?);
        if t == f {
            self.b.br(t);
        } else {
            self.b.cond_br(c, t, f);
        }
        Ok(())
    }

    fn switch(&mut self, i: Value<'a>) -> R<()> {
        let tys = self.lw.tys;
        let cond = i.operand(0);
        let w = cond.ty().int_width().ok_or("a switch on a non-integer")?;
        let default = self.block(i.switch_default())?;
        let cases = i.switch_cases();
        let c = self.get(cond)?;
        if w > 64 {
            // Compared case by case (a pexe's switch is on at most 64 bits).
            let mut cur = c;
            for (val, dest) in &cases {
                let eq = self.wide_eq(&cur, *val)?;
                let next = self.new_block();
                let d = self.block(*dest)?;
                self.b.cond_br(eq, d, next);
                self.b.position_at_end(next);
                cur = self.get(cond)?;
            }
            self.b.br(default);
            return Ok(());
        }
        let x = c.one();
        // An i1 switch is on i8; an odd width on its width with the upper bits cleared.
        let (x, rty) = if w == 1 {
            (self.b.cast(Opcode::LLVMZExt, x, tys.i8()), tys.i8())
        } else {
            (self.clean(x, w), x.ty())
        };
        let sw = self.b.switch(x, default, cases.len() as u32);
        for (val, dest) in cases {
            let v = val
                .const_zext()
                .ok_or("a switch case that is not an integer")?;
            let d = self.block(dest)?;
            self.b.add_case(sw, tys.const_int(rty, v), d);
        }
        Ok(())
    }

    /// `indirectbr` becomes a switch on the block's number (ExpandIndirectBr).
    fn indirect_br(&mut self, i: Value<'a>) -> R<()> {
        let tys = self.lw.tys;
        let addr = self.one(i.operand(0))?;
        let default = self.unreachable_block();
        let succ = i.successors();
        let sw = self.b.switch(addr, default, succ.len() as u32);
        let mut done = HashSet::new();
        for s in succ {
            if !done.insert(s) {
                continue;
            }
            let n = self
                .lw
                .block_numbers
                .get(&s)
                .copied()
                .ok_or("an indirectbr to a block whose address is never taken")?;
            let d = self.block(s)?;
            self.b.add_case(sw, tys.const_i32(n as i64), d);
        }
        Ok(())
    }
}
