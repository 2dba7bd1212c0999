//! Memory in the PNaCl subset: addresses are i32 arithmetic (ExpandGetElementPtr), an
//! alloca is of bytes (SimplifyAllocas), a load or store of any type is its leaves' own
//! (ExpandStructRegs, PromoteIntegers' split accesses, i1 as i8), with the alignments the
//! ABI allows (NormalizeAlignment, FixVectorLoadStoreAlignment); atomic and volatile
//! accesses, read-modify-writes, compare-exchanges and fences are the NaCl atomic
//! intrinsics, always sequentially consistent (RewriteAtomics); `va_arg` reads the
//! variable-argument buffer (ExpandVarArgs).

use super::func::{Fx, R};
use super::shape::{repr_bits, Leaf, LeafKind, Vals};
use crate::llvm::edit::{atomic, pred, Opcode, Type, TypeKind, Value};

/// The NaCl atomics' one memory order: sequentially consistent.
const SEQ_CST: i64 = 6;

/// The alignment a leaf at `off` in memory aligned to `align` has.
fn min_align(align: u32, off: u64) -> u32 {
    let a = align.max(1) as u64;
    let o = if off == 0 {
        a
    } else {
        1 << off.trailing_zeros().min(31)
    };
    a.min(o) as u32
}

impl<'a> Fx<'a, '_> {
    /// Bytes of the stack for the function's whole call (an alloca in the prologue), as
    /// an i32 address.
    pub fn temp(&mut self, size: u64, align: u32) -> R<Value<'a>> {
        let tys = self.lw.tys;
        self.pro(|fx| {
            let a =
                fx.b.alloca_bytes(tys.const_i32(size.max(1) as i64), align.max(1));
            let p = fx.b.cast(Opcode::LLVMPtrToInt, a, tys.i32());
            fx.inherent.insert(p, a);
            Ok(p)
        })
    }

    pub fn alloca(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        let tys = self.lw.tys;
        let ty = v.allocated_type();
        let size = self.lw.shapes.layout().alloc_size(ty);
        let count = v.operand(0);
        let align = v.alignment().max(1);
        let in_entry = Some(v.parent_block()) == self.old_f.entry_block();
        if let Some(n) = count.const_zext() {
            let bytes = size
                .checked_mul(n)
                .filter(|b| *b <= u32::MAX as u64)
                .ok_or_else(|| {
                    format!("an alloca of {n} x {size} bytes, more than a pexe's memory")
                })?;
            if in_entry {
                return Ok(Vals::One(self.temp(bytes, align)?));
            }
            let a = self.b.alloca_bytes(tys.const_i32(bytes as i64), align);
            let p = self.b.cast(Opcode::LLVMPtrToInt, a, tys.i32());
            self.inherent.insert(p, a);
            return Ok(Vals::One(p));
        }
        let n = self.index_i32(count)?;
        let bytes = if size == 1 {
            n
        } else {
            self.b.binop(Opcode::LLVMMul, n, tys.const_i32(size as i64))
        };
        let a = self.b.alloca_bytes(bytes, align);
        let p = self.b.cast(Opcode::LLVMPtrToInt, a, tys.i32());
        self.inherent.insert(p, a);
        Ok(Vals::One(p))
    }

    /// getelementptr: the base plus each index times its stride, constant parts folded
    /// into one offset added last.
    pub fn gep(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        let tys = self.lw.tys;
        if matches!(v.ty().kind(), TypeKind::Vector(..)) {
            return Err("a getelementptr of a vector of addresses".into());
        }
        let layout = self.lw.shapes.layout();
        let mut acc = self.one(v.operand(0))?;
        let mut ty = v.gep_source_type();
        let mut off: i64 = 0;
        for k in 1..v.num_operands() {
            let idx = v.operand(k);
            let stride = if k == 1 {
                layout.alloc_size(ty)
            } else {
                match ty.kind() {
                    TypeKind::Struct => {
                        let i = idx
                            .const_zext()
                            .ok_or("a struct index that is not a constant")?;
                        off += layout.field_offset(ty, i as u32) as i64;
                        ty = ty.struct_fields()[i as usize];
                        continue;
                    }
                    TypeKind::Array(e, _) => {
                        ty = e;
                        layout.alloc_size(e)
                    }
                    TypeKind::Vector(e, _) => {
                        ty = e;
                        layout.store_size(e)
                    }
                    _ => return Err(format!("an index into {}", ty.text())),
                }
            };
            if matches!(idx.ty().kind(), TypeKind::Vector(..)) {
                return Err("a getelementptr with a vector index".into());
            }
            if let Some(i) = idx.const_sext() {
                off = off.wrapping_add(i.wrapping_mul(stride as i64));
                continue;
            }
            let i = self.index_i32(idx)?;
            let term = if stride == 1 {
                i
            } else {
                self.b
                    .binop(Opcode::LLVMMul, i, tys.const_i32(stride as i64))
            };
            acc = self.b.binop(Opcode::LLVMAdd, acc, term);
        }
        Ok(Vals::One(self.offset(acc, off)))
    }

    pub fn load(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        let addr = self.one(v.operand(0))?;
        let atomic = v.ordering() != atomic::LLVMAtomicOrderingNotAtomic;
        if atomic || v.is_volatile() {
            return self.atomic_access(addr, v.ty(), None, atomic);
        }
        self.load_typed(addr, v.ty(), v.alignment())
    }

    pub fn store(&mut self, v: Value<'a>) -> R<()> {
        let val = v.operand(0);
        let addr = self.one(v.operand(1))?;
        let x = self.get(val)?;
        let atomic = v.ordering() != atomic::LLVMAtomicOrderingNotAtomic;
        if atomic || v.is_volatile() {
            self.atomic_access(addr, val.ty(), Some(x), atomic)?;
            return Ok(());
        }
        self.store_typed(addr, &x, val.ty(), v.alignment())
    }

    /// The leaves of a value of type `ty` loaded from `addr` (aligned to `align`).
    pub fn load_typed(&mut self, addr: Value<'a>, ty: Type<'a>, align: u32) -> R<Vals<'a>> {
        let shape = self.lw.shapes.of(ty)?;
        if shape.bit_packed {
            // A vector of i1 in memory is its bits, packed.
            let it = self.lw.tys.int((shape.store_size * 8) as u32);
            let x = self.load_typed(addr, it, align)?;
            return self.scalar_cast(Opcode::LLVMBitCast, x, it, ty);
        }
        let mut out = Vec::with_capacity(shape.leaves.len());
        for l in &shape.leaves {
            out.push(self.load_leaf(addr, *l, align)?);
        }
        Ok(Vals::from_vec(out))
    }

    /// Stores the leaves of `x`, of type `ty`, at `addr`.
    pub fn store_typed(
        &mut self,
        addr: Value<'a>,
        x: &Vals<'a>,
        ty: Type<'a>,
        align: u32,
    ) -> R<()> {
        let shape = self.lw.shapes.of(ty)?;
        if shape.bit_packed {
            let it = self.lw.tys.int((shape.store_size * 8) as u32);
            let bits = self.scalar_cast(Opcode::LLVMBitCast, x.clone(), ty, it)?;
            return self.store_typed(addr, &bits, it, align);
        }
        for (l, v) in shape.leaves.iter().zip(x.as_slice()) {
            self.store_leaf(addr, *l, *v, align)?;
        }
        Ok(())
    }

    fn load_leaf(&mut self, base: Value<'a>, l: Leaf<'a>, align: u32) -> R<Value<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let a = min_align(align, l.off);
        let addr = self.offset(base, l.off as i64);
        Ok(match l.kind {
            LeafKind::I1 => {
                let p = self.ptr(addr, tys.i8());
                let x = self.b.load(tys.i8(), p, 1);
                self.b.cast(LLVMTrunc, x, tys.i1())
            }
            LeafKind::Int(bits) => {
                let holder = tys.int(repr_bits(bits));
                self.load_bytes(addr, bits.div_ceil(8) as u64, holder)
            }
            LeafKind::Ptr => {
                let p = self.ptr(addr, tys.i32());
                self.b.load(tys.i32(), p, 1)
            }
            LeafKind::F32 | LeafKind::F64 => {
                let t = l.kind.ty(tys);
                let n = l.kind.mem_bytes() as u32;
                let p = self.ptr(addr, t);
                self.b.load(t, p, if a >= n { n } else { 1 })
            }
            LeafKind::Vector(t) => {
                let (e, n, es) = self.vector_parts(t);
                if a >= es {
                    let p = self.ptr(addr, t);
                    self.b.load(t, p, es)
                } else {
                    // Less aligned than its elements: element by element.
                    let mut v = tys.undef(t);
                    for i in 0..n {
                        let ea = self.offset(addr, (i * es) as i64);
                        let p = self.ptr(ea, e);
                        let x = self.b.load(e, p, 1);
                        v = self.b.insert_element(v, x, tys.const_i32(i as i64));
                    }
                    v
                }
            }
        })
    }

    /// `n` bytes at `addr` as an integer of type `holder`: one load of a power-of-two
    /// size, or pieces, least significant first.
    fn load_bytes(&mut self, addr: Value<'a>, n: u64, holder: Type<'a>) -> Value<'a> {
        use Opcode::*;
        let tys = self.lw.tys;
        if matches!(n, 1 | 2 | 4 | 8) {
            let t = tys.int((n * 8) as u32);
            let p = self.ptr(addr, t);
            let x = self.b.load(t, p, 1);
            return if t == holder {
                x
            } else {
                self.b.cast(LLVMZExt, x, holder)
            };
        }
        let lo_n = 1u64 << (63 - n.leading_zeros());
        let lo = self.load_bytes(addr, lo_n, holder);
        let hi_addr = self.offset(addr, lo_n as i64);
        let hi = self.load_bytes(hi_addr, n - lo_n, holder);
        let hi = self.b.binop(LLVMShl, hi, tys.const_int(holder, lo_n * 8));
        self.b.binop(LLVMOr, lo, hi)
    }

    fn store_bytes(&mut self, addr: Value<'a>, n: u64, x: Value<'a>) {
        use Opcode::*;
        let tys = self.lw.tys;
        if matches!(n, 1 | 2 | 4 | 8) {
            let t = tys.int((n * 8) as u32);
            let y = if x.ty() == t {
                x
            } else {
                self.b.cast(LLVMTrunc, x, t)
            };
            let p = self.ptr(addr, t);
            self.b.store(y, p, 1);
            return;
        }
        let lo_n = 1u64 << (63 - n.leading_zeros());
        self.store_bytes(addr, lo_n, x);
        let hi = self.b.binop(LLVMLShr, x, tys.const_int(x.ty(), lo_n * 8));
        let hi_addr = self.offset(addr, lo_n as i64);
        self.store_bytes(hi_addr, n - lo_n, hi);
    }

    fn store_leaf(&mut self, base: Value<'a>, l: Leaf<'a>, x: Value<'a>, align: u32) -> R<()> {
        use Opcode::*;
        let tys = self.lw.tys;
        let a = min_align(align, l.off);
        let addr = self.offset(base, l.off as i64);
        match l.kind {
            LeafKind::I1 => {
                let y = self.b.cast(LLVMZExt, x, tys.i8());
                let p = self.ptr(addr, tys.i8());
                self.b.store(y, p, 1);
            }
            LeafKind::Int(bits) => self.store_bytes(addr, bits.div_ceil(8) as u64, x),
            LeafKind::Ptr => {
                let p = self.ptr(addr, tys.i32());
                self.b.store(x, p, 1);
            }
            LeafKind::F32 | LeafKind::F64 => {
                let t = l.kind.ty(tys);
                let n = l.kind.mem_bytes() as u32;
                let p = self.ptr(addr, t);
                self.b.store(x, p, if a >= n { n } else { 1 });
            }
            LeafKind::Vector(t) => {
                let (e, n, es) = self.vector_parts(t);
                if a >= es {
                    let p = self.ptr(addr, t);
                    self.b.store(x, p, es);
                } else {
                    for i in 0..n {
                        let y = self.b.extract_element(x, tys.const_i32(i as i64));
                        let ea = self.offset(addr, (i * es) as i64);
                        let p = self.ptr(ea, e);
                        self.b.store(y, p, 1);
                    }
                }
            }
        }
        Ok(())
    }

    /// A vector leaf's element type, element count and element size in memory.
    fn vector_parts(&self, t: Type<'a>) -> (Type<'a>, u32, u32) {
        let (e, n) = t
            .vector()
            .unwrap_or_else(|| unreachable!("a vector leaf of type {}", t.text()));
        (e, n, self.lw.shapes.layout().store_size(e) as u32)
    }

    /// The integer type an atomic access of a leaf uses, if it has one.
    fn atomic_int(&self, k: LeafKind<'a>) -> Option<Type<'a>> {
        let tys = self.lw.tys;
        match k {
            LeafKind::Int(b) if matches!(b, 8 | 16 | 32 | 64) => Some(tys.int(b)),
            LeafKind::Ptr | LeafKind::F32 => Some(tys.i32()),
            LeafKind::F64 => Some(tys.i64()),
            _ => None,
        }
    }

    /// An atomic or volatile load (`val` None) or store: the NaCl atomic intrinsics, one
    /// per leaf (a volatile access of an aggregate, or of a leaf of no atomic size, is
    /// done leaf by leaf, plainly for the latter).
    fn atomic_access(
        &mut self,
        addr: Value<'a>,
        ty: Type<'a>,
        val: Option<Vals<'a>>,
        atomic: bool,
    ) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let shape = self.lw.shapes.of(ty)?;
        if atomic && (shape.leaves.len() != 1 || self.atomic_int(shape.leaves[0].kind).is_none()) {
            return Err(format!(
                "an atomic access of {} (the NaCl atomics are of 8, 16, 32 and 64 bits)",
                ty.text()
            ));
        }
        let mut out = Vec::new();
        for (k, l) in shape.leaves.iter().enumerate() {
            let Some(it) = self.atomic_int(l.kind) else {
                match &val {
                    None => out.push(self.load_leaf(addr, *l, 1)?),
                    Some(x) => self.store_leaf(addr, *l, x.as_slice()[k], 1)?,
                }
                continue;
            };
            let w = it.int_width().unwrap();
            let a = self.offset(addr, l.off as i64);
            let p = self.ptr(a, it);
            let lt = l.kind.ty(tys);
            match &val {
                None => {
                    let fty = tys.function(it, &[it.ptr(), tys.i32()], false);
                    let f = self.lw.decl(&format!("llvm.nacl.atomic.load.i{w}"), fty);
                    let r = self.b.call(fty, f, &[p, tys.const_i32(SEQ_CST)]);
                    out.push(if lt == it {
                        r
                    } else {
                        self.b.cast(LLVMBitCast, r, lt)
                    });
                }
                Some(x) => {
                    let y = x.as_slice()[k];
                    let y = if lt == it {
                        y
                    } else {
                        self.b.cast(LLVMBitCast, y, it)
                    };
                    let fty = tys.function(tys.void(), &[it, it.ptr(), tys.i32()], false);
                    let f = self.lw.decl(&format!("llvm.nacl.atomic.store.i{w}"), fty);
                    self.b.call(fty, f, &[y, p, tys.const_i32(SEQ_CST)]);
                }
            }
        }
        Ok(Vals::from_vec(out))
    }

    pub fn fence(&mut self, _v: Value<'a>) -> R<()> {
        let tys = self.lw.tys;
        let fty = tys.function(tys.void(), &[tys.i32()], false);
        let f = self.lw.decl("llvm.nacl.atomic.fence", fty);
        self.b.call(fty, f, &[tys.const_i32(SEQ_CST)]);
        Ok(())
    }

    /// `llvm.nacl.atomic.cmpxchg` of type `it` at pointer `p`: the old value.
    fn nacl_cmpxchg(
        &mut self,
        it: Type<'a>,
        p: Value<'a>,
        expected: Value<'a>,
        desired: Value<'a>,
    ) -> Value<'a> {
        let tys = self.lw.tys;
        let w = it.int_width().unwrap();
        let fty = tys.function(it, &[it.ptr(), it, it, tys.i32(), tys.i32()], false);
        let f = self.lw.decl(&format!("llvm.nacl.atomic.cmpxchg.i{w}"), fty);
        let o = tys.const_i32(SEQ_CST);
        self.b.call(fty, f, &[p, expected, desired, o, o])
    }

    /// For an atomic instruction on a value of type `ty` (`what` it is): the integer type
    /// the NaCl intrinsics take for its one leaf, and the leaf's own type.
    fn atomic_types(&mut self, ty: Type<'a>, what: &str) -> R<(Type<'a>, Type<'a>)> {
        let shape = self.lw.shapes.of(ty)?;
        let it = (shape.leaves.len() == 1)
            .then(|| self.atomic_int(shape.leaves[0].kind))
            .flatten()
            .ok_or_else(|| format!("{what} of {}", ty.text()))?;
        Ok((it, shape.leaves[0].kind.ty(self.lw.tys)))
    }

    pub fn cmpxchg(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        use Opcode::*;
        let (op, oc, on) = (v.operand(0), v.operand(1), v.operand(2));
        let (it, lt) = self.atomic_types(oc.ty(), "a cmpxchg")?;
        let addr = self.one(op)?;
        let (e, d) = (self.one(oc)?, self.one(on)?);
        let (e, d) = if lt == it {
            (e, d)
        } else {
            (
                self.b.cast(LLVMBitCast, e, it),
                self.b.cast(LLVMBitCast, d, it),
            )
        };
        let p = self.ptr(addr, it);
        let old = self.nacl_cmpxchg(it, p, e, d);
        let ok = self.b.icmp(pred::LLVMIntEQ, old, e);
        let old = if lt == it {
            old
        } else {
            self.b.cast(LLVMBitCast, old, lt)
        };
        Ok(Vals::from_vec(vec![old, ok]))
    }

    pub fn atomic_rmw(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let (op_ptr, op_val) = (v.operand(0), v.operand(1));
        let (it, lt) = self.atomic_types(op_val.ty(), "an atomicrmw")?;
        let addr = self.one(op_ptr)?;
        let x = self.one(op_val)?;
        let xi = if lt == it {
            x
        } else {
            self.b.cast(LLVMBitCast, x, it)
        };
        let p = self.ptr(addr, it);
        let w = it.int_width().unwrap();
        let code = match v.rmw_op() {
            atomic::LLVMAtomicRMWBinOpAdd => Some(1),
            atomic::LLVMAtomicRMWBinOpSub => Some(2),
            atomic::LLVMAtomicRMWBinOpOr => Some(3),
            atomic::LLVMAtomicRMWBinOpAnd => Some(4),
            atomic::LLVMAtomicRMWBinOpXor => Some(5),
            atomic::LLVMAtomicRMWBinOpXchg => Some(6),
            _ => None,
        };
        if let Some(code) = code {
            let fty = tys.function(it, &[tys.i32(), it.ptr(), it, tys.i32()], false);
            let f = self.lw.decl(&format!("llvm.nacl.atomic.rmw.i{w}"), fty);
            let r = self.b.call(
                fty,
                f,
                &[tys.const_i32(code), p, xi, tys.const_i32(SEQ_CST)],
            );
            return Ok(Vals::One(if lt == it {
                r
            } else {
                self.b.cast(LLVMBitCast, r, lt)
            }));
        }
        // nand, min, max, umin, umax, fadd, fsub: a compare-exchange loop.
        let load_fty = tys.function(it, &[it.ptr(), tys.i32()], false);
        let load = self
            .lw
            .decl(&format!("llvm.nacl.atomic.load.i{w}"), load_fty);
        let first = self.b.call(load_fty, load, &[p, tys.const_i32(SEQ_CST)]);
        let entry = self.b.block();
        let lp = self.new_block();
        let done = self.new_block();
        self.b.br(lp);
        self.b.position_at_end(lp);
        let old = self.b.phi(it);
        self.b.add_incoming(old, first, entry);
        let new = match v.rmw_op() {
            atomic::LLVMAtomicRMWBinOpNand => {
                let a = self.b.binop(LLVMAnd, old, xi);
                self.b.binop(LLVMXor, a, tys.const_int(it, u64::MAX))
            }
            atomic::LLVMAtomicRMWBinOpMax
            | atomic::LLVMAtomicRMWBinOpMin
            | atomic::LLVMAtomicRMWBinOpUMax
            | atomic::LLVMAtomicRMWBinOpUMin => {
                let p_ = match v.rmw_op() {
                    atomic::LLVMAtomicRMWBinOpMax => pred::LLVMIntSGT,
                    atomic::LLVMAtomicRMWBinOpMin => pred::LLVMIntSLT,
                    atomic::LLVMAtomicRMWBinOpUMax => pred::LLVMIntUGT,
                    _ => pred::LLVMIntULT,
                };
                let c = self.b.icmp(p_, old, xi);
                self.b.select(c, old, xi)
            }
            atomic::LLVMAtomicRMWBinOpFAdd | atomic::LLVMAtomicRMWBinOpFSub => {
                let f = self.b.cast(LLVMBitCast, old, lt);
                let o = if v.rmw_op() == atomic::LLVMAtomicRMWBinOpFAdd {
                    LLVMFAdd
                } else {
                    LLVMFSub
                };
                let r = self.b.binop(o, f, x);
                self.b.cast(LLVMBitCast, r, it)
            }
            other => return Err(format!("the atomicrmw operation {other:?}")),
        };
        let seen = self.nacl_cmpxchg(it, p, old, new);
        let ok = self.b.icmp(pred::LLVMIntEQ, seen, old);
        let here = self.b.block();
        self.b.add_incoming(old, seen, here);
        self.b.cond_br(ok, done, lp);
        self.b.position_at_end(done);
        Ok(Vals::One(if lt == it {
            old
        } else {
            self.b.cast(LLVMBitCast, old, lt)
        }))
    }

    /// `va_arg`: the next argument of type `ty` from the buffer the `va_list` points into,
    /// at its alignment; the pointer moves past it.
    pub fn va_arg(&mut self, v: Value<'a>) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let list = self.one(v.operand(0))?;
        let ty = v.ty();
        let shape = self.lw.shapes.of(ty)?;
        let lp = self.ptr(list, tys.i32());
        let cur = self.b.load(tys.i32(), lp, 1);
        let align = shape.abi_align.max(1) as i64;
        let at = if align > 4 {
            let s = self.b.binop(LLVMAdd, cur, tys.const_i32(align - 1));
            self.b.binop(LLVMAnd, s, tys.const_i32(!(align - 1)))
        } else {
            cur
        };
        let x = self.load_typed(at, ty, shape.abi_align)?;
        let next = self.offset(at, shape.alloc_size as i64);
        let lp = self.ptr(list, tys.i32());
        self.b.store(next, lp, 1);
        Ok(x)
    }

    /// `llvm.memcpy` (or memmove) of `n` (an i32) bytes.
    pub fn mem_copy(&mut self, name: &str, dst: Value<'a>, src: Value<'a>, n: Value<'a>) {
        let tys = self.lw.tys;
        let p8 = tys.i8().ptr();
        let fty = tys.function(tys.void(), &[p8, p8, tys.i32(), tys.i1()], false);
        let f = self.lw.decl(&format!("llvm.{name}.p0i8.p0i8.i32"), fty);
        let d = self.ptr(dst, tys.i8());
        let s = self.ptr(src, tys.i8());
        self.b.call(fty, f, &[d, s, n, tys.const_int(tys.i1(), 0)]);
    }

    /// `llvm.memset` of `n` (an i32) bytes of `byte` (an i8).
    pub fn mem_set(&mut self, dst: Value<'a>, byte: Value<'a>, n: Value<'a>) {
        let tys = self.lw.tys;
        let p8 = tys.i8().ptr();
        let fty = tys.function(tys.void(), &[p8, tys.i8(), tys.i32(), tys.i1()], false);
        let f = self.lw.decl("llvm.memset.p0i8.i32", fty);
        let d = self.ptr(dst, tys.i8());
        self.b
            .call(fty, f, &[d, byte, n, tys.const_int(tys.i1(), 0)]);
    }
}
