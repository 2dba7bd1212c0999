//! Arithmetic, casts, comparisons, selects, vectors and aggregates, for instructions and
//! constant expressions alike (ExpandConstantExpr: a constant expression is converted as
//! the instruction it spells). Integers of odd widths are computed in their wider holder
//! with the upper bits cleared or sign-filled where the operation reads them
//! (PromoteIntegers); i1 arithmetic other than and/or/xor is done on i8 (PromoteI1Ops);
//! integers wider than 64 bits are computed chunk by chunk (ExpandLargeIntegers); vectors
//! the ABI lacks element by element; flags (`nsw`, `nuw`, `exact`) are dropped.

use super::func::{Fx, R};
use super::shape::{is_abi_vector, repr_bits, LeafKind, Vals};
use crate::llvm::edit::{pred, IntPred, Opcode, Type, TypeKind, Value, ValueKind};

/// The opcode of an instruction or constant expression.
pub fn opcode_of(v: Value<'_>) -> Option<Opcode> {
    match v.kind() {
        ValueKind::Instruction(op) | ValueKind::ConstExpr(op) => Some(op),
        _ => None,
    }
}

fn is_signed(p: IntPred) -> bool {
    matches!(
        p,
        pred::LLVMIntSGT | pred::LLVMIntSGE | pred::LLVMIntSLT | pred::LLVMIntSLE
    )
}

fn unsigned_of(p: IntPred) -> IntPred {
    match p {
        pred::LLVMIntSGT => pred::LLVMIntUGT,
        pred::LLVMIntSGE => pred::LLVMIntUGE,
        pred::LLVMIntSLT => pred::LLVMIntULT,
        pred::LLVMIntSLE => pred::LLVMIntULE,
        p => p,
    }
}

impl<'a> Fx<'a, '_> {
    /// Converts an instruction or constant expression of the kinds this file handles.
    pub fn op(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        use Opcode::*;
        let op = opcode_of(v).ok_or_else(|| format!("not an operation: {v:?}"))?;
        match op {
            LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl
            | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor | LLVMFAdd | LLVMFSub | LLVMFMul
            | LLVMFDiv | LLVMFRem => self.binop(v, op),
            LLVMFNeg => self.fneg(v),
            _ if super::lower::is_cast(op) => self.cast(v, op),
            LLVMICmp => self.icmp(v),
            LLVMFCmp => self.fcmp(v),
            LLVMSelect => self.select(v),
            LLVMGetElementPtr => self.gep(v),
            LLVMExtractElement => self.extract_element(v),
            LLVMInsertElement => self.insert_element(v),
            LLVMShuffleVector => self.shuffle(v),
            LLVMExtractValue => {
                let agg = v.operand(0);
                let (r, _) = self.lw.shapes.path_range(agg.ty(), &v.agg_indices())?;
                let x = self.get(agg)?;
                Ok(Vals::from_vec(x.as_slice()[r].to_vec()))
            }
            LLVMInsertValue => {
                let agg = v.operand(0);
                let (r, _) = self.lw.shapes.path_range(agg.ty(), &v.agg_indices())?;
                let mut x = self.get(agg)?.as_slice().to_vec();
                let e = self.get(v.operand(1))?;
                x.splice(r, e.as_slice().iter().copied());
                Ok(Vals::from_vec(x))
            }
            LLVMFreeze => self.get(v.operand(0)),
            _ => Err(format!("the operation {op:?}")),
        }
    }

    // --- integers of any width ----------------------------------------------------------

    /// `x` (an integer of `bits` in its holder) with the holder's upper bits cleared.
    pub fn clean(&self, x: Value<'a>, bits: u32) -> Value<'a> {
        let r = repr_bits(bits);
        if r == bits {
            return x;
        }
        let tys = self.lw.tys;
        self.b.binop(
            Opcode::LLVMAnd,
            x,
            tys.const_int(x.ty(), (1u64 << bits) - 1),
        )
    }

    /// `x` with the holder's upper bits copies of bit `bits - 1`.
    pub fn sfill(&self, x: Value<'a>, bits: u32) -> Value<'a> {
        let r = repr_bits(bits);
        if r == bits {
            return x;
        }
        let tys = self.lw.tys;
        let k = tys.const_int(x.ty(), (r - bits) as u64);
        let s = self.b.binop(Opcode::LLVMShl, x, k);
        self.b.binop(Opcode::LLVMAShr, s, k)
    }

    /// `a` and `b`, integers of `bits`, with their holders' upper bits made copies of
    /// their sign bits (`signed`) or zeros, for an operation that reads them; an i1 is
    /// widened to i8 so.
    fn filled(
        &self,
        signed: bool,
        bits: u32,
        a: Value<'a>,
        b: Value<'a>,
    ) -> (Value<'a>, Value<'a>) {
        if bits == 1 {
            let (ext, i8) = (
                if signed {
                    Opcode::LLVMSExt
                } else {
                    Opcode::LLVMZExt
                },
                self.lw.tys.i8(),
            );
            return (self.b.cast(ext, a, i8), self.b.cast(ext, b, i8));
        }
        if signed {
            (self.sfill(a, bits), self.sfill(b, bits))
        } else {
            (self.clean(a, bits), self.clean(b, bits))
        }
    }

    /// The bits an integer leaf kind holds.
    fn bits_of(k: LeafKind<'_>) -> Option<u32> {
        match k {
            LeafKind::I1 => Some(1),
            LeafKind::Int(b) => Some(b),
            LeafKind::Ptr => Some(32),
            _ => None,
        }
    }

    /// A binary operation on one leaf of scalar (or ABI vector) type `ty`.
    pub fn scalar_binop(
        &self,
        op: Opcode,
        ty: Type<'a>,
        a: Value<'a>,
        b: Value<'a>,
    ) -> R<Value<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        match ty.kind() {
            TypeKind::Int(1) => {
                if matches!(op, LLVMAnd | LLVMOr | LLVMXor) {
                    return Ok(self.b.binop(op, a, b));
                }
                let signed = matches!(op, LLVMSDiv | LLVMSRem | LLVMAShr);
                let (x, y) = self.filled(signed, 1, a, b);
                let r = self.b.binop(op, x, y);
                Ok(self.b.cast(LLVMTrunc, r, tys.i1()))
            }
            TypeKind::Int(w) => Ok(match op {
                LLVMAdd | LLVMSub | LLVMMul | LLVMAnd | LLVMOr | LLVMXor => self.b.binop(op, a, b),
                LLVMShl => self.b.binop(op, a, self.clean(b, w)),
                LLVMLShr | LLVMUDiv | LLVMURem | LLVMSDiv | LLVMSRem => {
                    let (x, y) = self.filled(matches!(op, LLVMSDiv | LLVMSRem), w, a, b);
                    self.b.binop(op, x, y)
                }
                LLVMAShr => self.b.binop(op, self.sfill(a, w), self.clean(b, w)),
                _ => return Err(format!("{op:?} on integers")),
            }),
            TypeKind::Float | TypeKind::Double => Ok(self.b.binop(op, a, b)),
            TypeKind::Vector(e, n) if is_abi_vector(e, n) => {
                if e.int_width() == Some(1) && !matches!(op, LLVMAnd | LLVMOr | LLVMXor) {
                    return Err(format!("{op:?} on a vector of i1"));
                }
                Ok(self.b.binop(op, a, b))
            }
            TypeKind::Pointer { .. } => Ok(self.b.binop(op, a, b)),
            _ => Err(format!("{op:?} on {}", ty.text())),
        }
    }

    fn binop(&mut self, v: Value<'a>, op: Opcode) -> R<Vals<'a>> {
        let ty = v.ty();
        let a = self.get(v.operand(0))?;
        let b = self.get(v.operand(1))?;
        match ty.kind() {
            TypeKind::Int(w) if w > 64 => {
                let amount = v.operand(1).const_zext();
                Ok(Vals::from_vec(self.wide_binop(
                    op,
                    w,
                    a.as_slice(),
                    b.as_slice(),
                    amount,
                )?))
            }
            TypeKind::Vector(e, n) if !is_abi_vector(e, n) => {
                self.pairwise(&a, &b, ty, ty, |fx, x, y| fx.scalar_binop(op, e, x, y))
            }
            _ => Ok(Vals::One(self.scalar_binop(op, ty, a.one(), b.one())?)),
        }
    }

    fn fneg(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        let tys = self.lw.tys;
        let ty = v.ty();
        let x = self.get(v.operand(0))?;
        let neg = |fx: &mut Self, t: Type<'a>, x: Value<'a>| -> R<Value<'a>> {
            let z = match t.kind() {
                TypeKind::Vector(e, n) => {
                    let el = tys.const_f64(e, -0.0);
                    fx.vec_const(tys.const_vector(&vec![el; n as usize]))?
                }
                _ => tys.const_f64(t, -0.0),
            };
            Ok(fx.b.binop(Opcode::LLVMFSub, z, x))
        };
        match ty.kind() {
            TypeKind::Vector(e, n) if !is_abi_vector(e, n) => {
                let xs = self.elements(&x, ty)?;
                let mut out = Vec::new();
                for y in xs {
                    out.push(neg(self, e, y)?);
                }
                self.assemble(ty, out)
            }
            _ => Ok(Vals::One(neg(self, ty, x.one())?)),
        }
    }

    /// The elements of a vector value of type `ty` (extracted, for a vector the ABI has).
    pub fn elements(&self, x: &Vals<'a>, ty: Type<'a>) -> R<Vec<Value<'a>>> {
        let tys = self.lw.tys;
        match ty.kind() {
            TypeKind::Vector(e, n) if is_abi_vector(e, n) => Ok((0..n)
                .map(|i| self.b.extract_element(x.one(), tys.const_i32(i as i64)))
                .collect()),
            TypeKind::Vector(e, n) => {
                if self.lw.shapes.of(e)?.leaves.len() != 1 {
                    return Err(format!("a vector of {}", e.text()));
                }
                let s = x.as_slice();
                if s.len() != n as usize {
                    return Err("internal error: a vector of the wrong length".into());
                }
                Ok(s.to_vec())
            }
            _ => Ok(vec![x.one()]),
        }
    }

    /// `f` of each pair of elements of `a` and `b` (of vector type `ty`), as a value of
    /// type `out`.
    pub fn pairwise(
        &mut self,
        a: &Vals<'a>,
        b: &Vals<'a>,
        ty: Type<'a>,
        out: Type<'a>,
        mut f: impl FnMut(&mut Self, Value<'a>, Value<'a>) -> R<Value<'a>>,
    ) -> R<Vals<'a>> {
        let (xs, ys) = (self.elements(a, ty)?, self.elements(b, ty)?);
        let mut r = Vec::with_capacity(xs.len());
        for (x, y) in xs.into_iter().zip(ys) {
            r.push(f(self, x, y)?);
        }
        self.assemble(out, r)
    }

    /// A vector value of type `ty` from its elements.
    pub fn assemble(&mut self, ty: Type<'a>, elems: Vec<Value<'a>>) -> R<Vals<'a>> {
        let tys = self.lw.tys;
        match ty.kind() {
            TypeKind::Vector(e, n) if is_abi_vector(e, n) => {
                let mut v = tys.undef(ty);
                for (i, x) in elems.into_iter().enumerate() {
                    v = self.b.insert_element(v, x, tys.const_i32(i as i64));
                }
                Ok(Vals::One(v))
            }
            _ => Ok(Vals::from_vec(elems)),
        }
    }

    /// An operation on integers wider than 64 bits, on their 64-bit chunks.
    fn wide_binop(
        &mut self,
        op: Opcode,
        w: u32,
        a: &[Value<'a>],
        b: &[Value<'a>],
        amount: Option<u64>,
    ) -> R<Vec<Value<'a>>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let n = a.len();
        let last_bits = w - 64 * (n as u32 - 1);
        match op {
            LLVMAnd | LLVMOr | LLVMXor => Ok(a
                .iter()
                .zip(b)
                .map(|(x, y)| self.b.binop(op, *x, *y))
                .collect()),
            LLVMAdd | LLVMSub => {
                let mut out = Vec::new();
                let mut carry: Option<Value<'a>> = None;
                for k in 0..n {
                    let (x, y) = (a[k], b[k]);
                    let mut s = self.b.binop(op, x, y);
                    if let Some(c) = carry {
                        let c = self.b.cast(LLVMZExt, c, x.ty());
                        let c = if x.ty() == c.ty() {
                            c
                        } else {
                            self.b.cast(LLVMTrunc, c, x.ty())
                        };
                        s = self.b.binop(op, s, c);
                    }
                    if k + 1 < n {
                        // The carry out of a full 64-bit chunk: with a carry in, the sum
                        // wrapped if it is not above x (add) or x < y + c (sub).
                        let c = match (op, carry) {
                            (LLVMAdd, None) => self.b.icmp(pred::LLVMIntULT, s, x),
                            (LLVMAdd, Some(ci)) => {
                                let lt = self.b.icmp(pred::LLVMIntULT, s, x);
                                let eq = self.b.icmp(pred::LLVMIntEQ, s, x);
                                let e = self.b.binop(LLVMAnd, eq, ci);
                                self.b.binop(LLVMOr, lt, e)
                            }
                            (_, None) => self.b.icmp(pred::LLVMIntULT, x, y),
                            (_, Some(ci)) => {
                                let lt = self.b.icmp(pred::LLVMIntULT, x, y);
                                let eq = self.b.icmp(pred::LLVMIntEQ, x, y);
                                let e = self.b.binop(LLVMAnd, eq, ci);
                                self.b.binop(LLVMOr, lt, e)
                            }
                        };
                        carry = Some(c);
                    }
                    out.push(s);
                }
                Ok(out)
            }
            LLVMShl | LLVMLShr | LLVMAShr => {
                let s = amount.ok_or_else(|| {
                    format!("a shift of an i{w} by a variable amount (integers wider than 64 bits shift by constants only)")
                })?;
                if s >= w as u64 {
                    return Ok(a.iter().map(|x| tys.undef(x.ty())).collect());
                }
                // Work on full 64-bit chunks: the last one widened (cleared or filled).
                let top = a[n - 1];
                let top64 = if op == LLVMAShr {
                    let f = self.sfill(top, last_bits);
                    if f.ty() == tys.i64() {
                        f
                    } else {
                        self.b.cast(LLVMSExt, f, tys.i64())
                    }
                } else {
                    let c = self.clean(top, last_bits);
                    if c.ty() == tys.i64() {
                        c
                    } else {
                        self.b.cast(LLVMZExt, c, tys.i64())
                    }
                };
                let mut full: Vec<Value<'a>> = a[..n - 1].to_vec();
                full.push(top64);
                let fill = if op == LLVMAShr {
                    self.b.binop(LLVMAShr, top64, tys.const_int(tys.i64(), 63))
                } else {
                    tys.const_int(tys.i64(), 0)
                };
                let (q, r) = ((s / 64) as usize, (s % 64) as u32);
                let get = |i: isize| -> Value<'a> {
                    if i < 0 || i as usize >= n {
                        if op == LLVMShl {
                            tys.const_int(tys.i64(), 0)
                        } else {
                            fill
                        }
                    } else {
                        full[i as usize]
                    }
                };
                let mut out = Vec::new();
                for k in 0..n as isize {
                    // Chunk k is the 64 bits at bit `at` of the chunks `lo` and `hi` above it.
                    let (lo, at) = if op == LLVMShl {
                        (k - q as isize - 1, (64 - r) % 64)
                    } else {
                        (k + q as isize, r)
                    };
                    let v = if at == 0 {
                        get(lo + (op == LLVMShl) as isize)
                    } else {
                        let i64 = tys.i64();
                        let l = self
                            .b
                            .binop(LLVMLShr, get(lo), tys.const_int(i64, at as u64));
                        let h =
                            self.b
                                .binop(LLVMShl, get(lo + 1), tys.const_int(i64, 64 - at as u64));
                        self.b.binop(LLVMOr, h, l)
                    };
                    out.push(v);
                }
                let lt = a[n - 1].ty();
                if lt != tys.i64() {
                    out[n - 1] = self.b.cast(LLVMTrunc, out[n - 1], lt);
                }
                Ok(out)
            }
            _ => Err(format!(
                "{op:?} on i{w} (integers wider than 64 bits: only add, sub, and, or, xor, \
                 constant shifts, comparisons and conversions)"
            )),
        }
    }

    /// Whether two wide integers' chunks are equal (`b` an old constant or value).
    pub fn wide_eq(&mut self, a: &Vals<'a>, b: Value<'a>) -> R<Value<'a>> {
        let bw = b.ty().int_width().unwrap_or(0);
        let bv = self.get(b)?;
        self.wide_cmp(pred::LLVMIntEQ, bw, a.as_slice(), bv.as_slice())
    }

    fn wide_cmp(&mut self, p: IntPred, w: u32, a: &[Value<'a>], b: &[Value<'a>]) -> R<Value<'a>> {
        use Opcode::*;
        let n = a.len();
        let last_bits = w - 64 * (n as u32 - 1);
        let norm = |fx: &Self, x: Value<'a>, k: usize| -> Value<'a> {
            if k + 1 < n {
                x
            } else if is_signed(p) {
                fx.sfill(x, last_bits)
            } else {
                fx.clean(x, last_bits)
            }
        };
        let mut res: Option<Value<'a>> = None;
        if matches!(p, pred::LLVMIntEQ | pred::LLVMIntNE) {
            for k in 0..n {
                let (x, y) = (norm(self, a[k], k), norm(self, b[k], k));
                let e = self.b.icmp(pred::LLVMIntEQ, x, y);
                res = Some(match res {
                    None => e,
                    Some(r) => self.b.binop(LLVMAnd, r, e),
                });
            }
            let r = res.unwrap();
            return Ok(if p == pred::LLVMIntNE {
                self.b
                    .binop(LLVMXor, r, self.lw.tys.const_int(self.lw.tys.i1(), 1))
            } else {
                r
            });
        }
        // Lexicographic from the most significant chunk: the top one with the predicate
        // (signed or not), the others unsigned, each deciding where all above are equal.
        for k in 0..n {
            let (x, y) = (norm(self, a[k], k), norm(self, b[k], k));
            let pk = if k + 1 == n { p } else { unsigned_of(p) };
            let strict = match pk {
                pred::LLVMIntUGE => pred::LLVMIntUGT,
                pred::LLVMIntULE => pred::LLVMIntULT,
                pred::LLVMIntSGE => pred::LLVMIntSGT,
                pred::LLVMIntSLE => pred::LLVMIntSLT,
                q => q,
            };
            let c = if k == 0 {
                self.b.icmp(pk, x, y)
            } else {
                self.b.icmp(strict, x, y)
            };
            res = Some(match res {
                None => c,
                Some(lower) => {
                    let eq = self.b.icmp(pred::LLVMIntEQ, x, y);
                    let keep = self.b.binop(LLVMAnd, eq, lower);
                    self.b.binop(LLVMOr, c, keep)
                }
            });
        }
        Ok(res.unwrap())
    }

    // --- casts --------------------------------------------------------------------------

    fn cast(&mut self, v: Value<'a>, op: Opcode) -> R<Vals<'a>> {
        let src = v.operand(0);
        let (sty, dty) = (src.ty(), v.ty());
        let x = self.get(src)?;
        match (sty.kind(), dty.kind()) {
            (TypeKind::Vector(se, sn), TypeKind::Vector(de, dn))
                if sn == dn && op != Opcode::LLVMBitCast =>
            {
                if is_abi_vector(se, sn) && is_abi_vector(de, dn) {
                    return Ok(Vals::One(self.b.cast(op, x.one(), dty)));
                }
                let xs = self.elements(&x, sty)?;
                let mut out = Vec::new();
                for e in xs {
                    out.push(self.scalar_cast(op, Vals::One(e), se, de)?.one());
                }
                self.assemble(dty, out)
            }
            _ => self.scalar_cast(op, x, sty, dty),
        }
    }

    /// A cast of one value (of scalar, pointer or, for bitcasts, any type).
    pub fn scalar_cast(
        &mut self,
        op: Opcode,
        x: Vals<'a>,
        sty: Type<'a>,
        dty: Type<'a>,
    ) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let sw = match sty.kind() {
            TypeKind::Int(w) => w,
            TypeKind::Pointer { .. } => 32,
            _ => 0,
        };
        let dw = match dty.kind() {
            TypeKind::Int(w) => w,
            TypeKind::Pointer { .. } => 32,
            _ => 0,
        };
        if (sw > 64 || dw > 64) && op != LLVMBitCast {
            return self.wide_cast(op, x, sty, dty);
        }
        let one = |x: &Vals<'a>| x.one();
        let holder = |w: u32| tys.int(repr_bits(w));
        let resize = |fx: &Self, y: Value<'a>, to: Type<'a>, signed: bool| -> Value<'a> {
            let (a, b) = (y.ty().int_width().unwrap(), to.int_width().unwrap());
            if a == b {
                y
            } else if a > b {
                fx.b.cast(LLVMTrunc, y, to)
            } else if signed {
                fx.b.cast(LLVMSExt, y, to)
            } else {
                fx.b.cast(LLVMZExt, y, to)
            }
        };
        Ok(Vals::One(match op {
            LLVMTrunc => resize(self, one(&x), holder(dw), false),
            LLVMZExt => {
                let c = self.clean(one(&x), sw);
                resize(self, c, holder(dw), false)
            }
            LLVMSExt => {
                let c = self.sfill(one(&x), sw);
                resize(self, c, holder(dw), true)
            }
            LLVMFPTrunc | LLVMFPExt => self.b.cast(op, one(&x), dty),
            LLVMFPToUI | LLVMFPToSI => self.b.cast(op, one(&x), holder(dw)),
            LLVMUIToFP => {
                let c = self.clean(one(&x), sw);
                self.b.cast(op, c, dty)
            }
            LLVMSIToFP => {
                let c = self.sfill(one(&x), sw);
                self.b.cast(op, c, dty)
            }
            LLVMPtrToInt => resize(self, one(&x), holder(dw), false),
            LLVMIntToPtr => {
                let c = self.clean(one(&x), sw);
                resize(self, c, tys.i32(), false)
            }
            LLVMAddrSpaceCast => one(&x),
            LLVMBitCast => return self.bitcast(x, sty, dty),
            _ => return Err(format!("the cast {op:?}")),
        }))
    }

    /// A bitcast: a no-op between pointers, LLVM's own between types of one size a pexe
    /// has, bits gathered for vectors of i1, else through memory.
    fn bitcast(&mut self, x: Vals<'a>, sty: Type<'a>, dty: Type<'a>) -> R<Vals<'a>> {
        let tys = self.lw.tys;
        if sty == dty || (sty.is_pointer() && dty.is_pointer()) {
            return Ok(x);
        }
        let ss = self.lw.shapes.of(sty)?;
        let ds = self.lw.shapes.of(dty)?;
        if ss.leaves.len() == 1 && ds.leaves.len() == 1 {
            let (sk, dk) = (ss.leaves[0].kind, ds.leaves[0].kind);
            let plain = |k: LeafKind<'_>| {
                !matches!(k, LeafKind::I1)
                    && Self::bits_of(k).is_none_or(|b| b % 8 == 0 && repr_bits(b) == b)
            };
            if plain(sk) && plain(dk) && sk.ty(tys) != dk.ty(tys) {
                return Ok(Vals::One(self.b.cast(
                    Opcode::LLVMBitCast,
                    x.one(),
                    dk.ty(tys),
                )));
            }
            if sk.ty(tys) == dk.ty(tys) {
                return Ok(x);
            }
        }
        if ss.bit_packed || ds.bit_packed {
            return self.bits_cast(x, sty, dty);
        }
        // Through memory: stored as the one type, loaded as the other.
        let size = ss.store_size.max(ds.store_size);
        let tmp = self.temp(size, 16)?;
        self.store_typed(tmp, &x, sty, 16)?;
        self.load_typed(tmp, dty, 16)
    }

    /// A bitcast between a vector of i1 and an integer (or another such vector): bit `i`
    /// is element `i`.
    fn bits_cast(&mut self, x: Vals<'a>, sty: Type<'a>, dty: Type<'a>) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let bits: Vec<Value<'a>> = match sty.kind() {
            TypeKind::Vector(e, _) if e.int_width() == Some(1) => self.elements(&x, sty)?,
            TypeKind::Int(w) if w <= 64 => {
                let v = x.one();
                (0..w)
                    .map(|i| {
                        let s = self.b.binop(LLVMLShr, v, tys.const_int(v.ty(), i as u64));
                        self.b.cast(LLVMTrunc, s, tys.i1())
                    })
                    .collect()
            }
            _ => return Err(format!("a bitcast from {}", sty.text())),
        };
        match dty.kind() {
            TypeKind::Vector(e, _) if e.int_width() == Some(1) => self.assemble(dty, bits),
            TypeKind::Int(w) if w <= 64 => {
                let h = tys.int(repr_bits(w));
                let mut acc = tys.const_int(h, 0);
                for (i, bit) in bits.into_iter().enumerate() {
                    let z = self.b.cast(LLVMZExt, bit, h);
                    let s = self.b.binop(LLVMShl, z, tys.const_int(h, i as u64));
                    acc = self.b.binop(LLVMOr, acc, s);
                }
                Ok(Vals::One(acc))
            }
            _ => Err(format!("a bitcast from {} to {}", sty.text(), dty.text())),
        }
    }

    /// Casts from or to integers wider than 64 bits.
    fn wide_cast(&mut self, op: Opcode, x: Vals<'a>, sty: Type<'a>, dty: Type<'a>) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let sw = sty.int_width().unwrap_or(32);
        let dw = dty.int_width().unwrap_or(32);
        let ds = self.lw.shapes.of(dty)?;
        let xs = x.as_slice();
        // The source as full 64-bit chunks, extended as the cast extends.
        let signed = op == LLVMSExt;
        let mut chunks: Vec<Value<'a>> = Vec::new();
        let sn = xs.len();
        for (k, c) in xs.iter().enumerate() {
            let bits = if k + 1 == sn {
                sw - 64 * (sn as u32 - 1)
            } else {
                64
            };
            let bits = if sty.is_pointer() { 32 } else { bits };
            let c = if k + 1 == sn && matches!(op, LLVMZExt | LLVMSExt | LLVMIntToPtr) {
                if signed {
                    self.sfill(*c, bits)
                } else {
                    self.clean(*c, bits)
                }
            } else {
                *c
            };
            let c = if c.ty() == tys.i64() {
                c
            } else if signed {
                self.b.cast(LLVMSExt, c, tys.i64())
            } else {
                self.b.cast(LLVMZExt, c, tys.i64())
            };
            chunks.push(c);
        }
        match op {
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMPtrToInt | LLVMIntToPtr => {
                let fill = if signed {
                    self.b.binop(
                        LLVMAShr,
                        *chunks.last().unwrap(),
                        tys.const_int(tys.i64(), 63),
                    )
                } else {
                    tys.const_int(tys.i64(), 0)
                };
                let mut out = Vec::new();
                for (k, l) in ds.leaves.iter().enumerate() {
                    let c = chunks.get(k).copied().unwrap_or(fill);
                    let lt = l.kind.ty(tys);
                    out.push(if lt == tys.i64() {
                        c
                    } else {
                        self.b.cast(LLVMTrunc, c, lt)
                    });
                }
                let _ = dw;
                Ok(Vals::from_vec(out))
            }
            _ => Err(format!(
                "{op:?} between {} and {} (integers wider than 64 bits do not convert to or \
                 from floating point)",
                sty.text(),
                dty.text()
            )),
        }
    }

    // --- comparisons and selects --------------------------------------------------------

    /// An integer comparison of one leaf each, of old scalar type `ty` (integer or pointer).
    pub fn scalar_icmp(
        &self,
        p: IntPred,
        ty: Type<'a>,
        a: Value<'a>,
        b: Value<'a>,
    ) -> R<Value<'a>> {
        match ty.kind() {
            TypeKind::Pointer { .. } => Ok(self.b.icmp(p, a, b)),
            TypeKind::Int(w) => {
                let (x, y) = self.filled(is_signed(p), w, a, b);
                Ok(self.b.icmp(p, x, y))
            }
            TypeKind::Vector(e, n) if is_abi_vector(e, n) && e.int_width() != Some(1) => {
                Ok(self.b.icmp(p, a, b))
            }
            _ => Err(format!("icmp on {}", ty.text())),
        }
    }

    fn icmp(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        let p = v.icmp_pred();
        let (oa, ob) = (v.operand(0), v.operand(1));
        let ty = oa.ty();
        let (a, b) = (self.get(oa)?, self.get(ob)?);
        match ty.kind() {
            TypeKind::Int(w) if w > 64 => Ok(Vals::One(self.wide_cmp(
                p,
                w,
                a.as_slice(),
                b.as_slice(),
            )?)),
            TypeKind::Vector(e, n) if !is_abi_vector(e, n) || e.int_width() == Some(1) => {
                self.pairwise(&a, &b, ty, v.ty(), |fx, x, y| fx.scalar_icmp(p, e, x, y))
            }
            _ => Ok(Vals::One(self.scalar_icmp(p, ty, a.one(), b.one())?)),
        }
    }

    fn fcmp(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        let p = v.fcmp_pred();
        let (oa, ob) = (v.operand(0), v.operand(1));
        let ty = oa.ty();
        let (a, b) = (self.get(oa)?, self.get(ob)?);
        match ty.kind() {
            TypeKind::Vector(e, n) if !is_abi_vector(e, n) => {
                self.pairwise(&a, &b, ty, v.ty(), |fx, x, y| Ok(fx.b.fcmp(p, x, y)))
            }
            _ => Ok(Vals::One(self.b.fcmp(p, a.one(), b.one()))),
        }
    }

    fn select(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        let (oc, ox, oy) = (v.operand(0), v.operand(1), v.operand(2));
        let c = self.get(oc)?;
        let (x, y) = (self.get(ox)?, self.get(oy)?);
        let ty = v.ty();
        match oc.ty().kind() {
            TypeKind::Vector(ce, cn) => {
                if is_abi_vector(ce, cn)
                    && matches!(ty.kind(), TypeKind::Vector(e, n) if is_abi_vector(e, n))
                {
                    return Ok(Vals::One(self.b.select(c.one(), x.one(), y.one())));
                }
                let cs = self.elements(&c, oc.ty())?;
                let (xs, ys) = (self.elements(&x, ty)?, self.elements(&y, ty)?);
                let out = cs
                    .into_iter()
                    .zip(xs.into_iter().zip(ys))
                    .map(|(c, (x, y))| self.b.select(c, x, y))
                    .collect();
                self.assemble(ty, out)
            }
            _ => {
                let c = c.one();
                let out = x
                    .as_slice()
                    .iter()
                    .zip(y.as_slice())
                    .map(|(a, b)| if a == b { *a } else { self.b.select(c, *a, *b) })
                    .collect();
                Ok(Vals::from_vec(out))
            }
        }
    }

    // --- vectors ------------------------------------------------------------------------

    /// An index (of any integer type) as an i32.
    pub fn index_i32(&mut self, idx: Value<'a>) -> R<Value<'a>> {
        let tys = self.lw.tys;
        let w = idx.ty().int_width().ok_or("a non-integer index")?;
        let x = self.get(idx)?;
        let x = x.as_slice()[0];
        let x = if w < 32 { self.sfill(x, w) } else { x };
        Ok(match x.ty().int_width().unwrap() {
            32 => x,
            n if n > 32 => self.b.cast(Opcode::LLVMTrunc, x, tys.i32()),
            _ => self.b.cast(Opcode::LLVMSExt, x, tys.i32()),
        })
    }

    fn extract_element(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        let tys = self.lw.tys;
        let (ov, oi) = (v.operand(0), v.operand(1));
        let vty = ov.ty();
        let (e, n) = vty.vector().ok_or("extractelement of a non-vector")?;
        let x = self.get(ov)?;
        if let Some(i) = oi.const_zext() {
            if i >= n as u64 {
                return Ok(Vals::One(
                    tys.undef(self.lw.shapes.of(e)?.leaves[0].kind.ty(tys)),
                ));
            }
            if is_abi_vector(e, n) {
                return Ok(Vals::One(
                    self.b.extract_element(x.one(), tys.const_i32(i as i64)),
                ));
            }
            return Ok(Vals::One(x.as_slice()[i as usize]));
        }
        let idx = self.index_i32(oi)?;
        let xs = self.elements(&x, vty)?;
        Ok(Vals::One(self.pick(&xs, idx)))
    }

    /// Element `idx` (an i32, taken modulo the count) of `xs`, by selects.
    fn pick(&self, xs: &[Value<'a>], idx: Value<'a>) -> Value<'a> {
        let tys = self.lw.tys;
        let mut r = xs[0];
        for (i, x) in xs.iter().enumerate().skip(1) {
            let c = self.b.icmp(pred::LLVMIntEQ, idx, tys.const_i32(i as i64));
            r = self.b.select(c, *x, r);
        }
        r
    }

    fn insert_element(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        let tys = self.lw.tys;
        let (ov, oe, oi) = (v.operand(0), v.operand(1), v.operand(2));
        let vty = ov.ty();
        let (e, n) = vty.vector().ok_or("insertelement into a non-vector")?;
        let x = self.get(ov)?;
        let el = self.one(oe)?;
        if let Some(i) = oi.const_zext() {
            if i >= n as u64 {
                let s = self.lw.shapes.of(vty)?;
                return Ok(Vals::from_vec(
                    s.leaves.iter().map(|l| tys.undef(l.kind.ty(tys))).collect(),
                ));
            }
            if is_abi_vector(e, n) {
                return Ok(Vals::One(self.b.insert_element(
                    x.one(),
                    el,
                    tys.const_i32(i as i64),
                )));
            }
            let mut xs = x.as_slice().to_vec();
            xs[i as usize] = el;
            return Ok(Vals::from_vec(xs));
        }
        let idx = self.index_i32(oi)?;
        let xs = self.elements(&x, vty)?;
        let out = xs
            .iter()
            .enumerate()
            .map(|(i, old)| {
                let c = self.b.icmp(pred::LLVMIntEQ, idx, tys.const_i32(i as i64));
                self.b.select(c, el, *old)
            })
            .collect();
        self.assemble(vty, out)
    }

    /// shufflevector: each element picked (ExpandShuffleVector).
    fn shuffle(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        let tys = self.lw.tys;
        let (o1, o2) = (v.operand(0), v.operand(1));
        let ty1 = o1.ty();
        let (e, n1) = ty1.vector().ok_or("shufflevector of a non-vector")?;
        let x1 = self.get(o1)?;
        let x2 = self.get(o2)?;
        let mut all = self.elements(&x1, ty1)?;
        all.extend(self.elements(&x2, o2.ty())?);
        let et = self.lw.shapes.of(e)?.leaves[0].kind.ty(tys);
        let mask = v.shuffle_mask();
        let out = mask
            .into_iter()
            .map(|m| match m {
                Some(m) if (m as usize) < all.len() => all[m as usize],
                _ => tys.undef(et),
            })
            .collect();
        let _ = n1;
        self.assemble(v.ty(), out)
    }
}
