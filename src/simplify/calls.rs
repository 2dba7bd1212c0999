//! Calls and returns in the PNaCl subset: every function's signature is its `Conv`
//! (pointers as i32, integers narrower than 32 bits widened as their `signext`/`zeroext`
//! says: ExpandSmallArguments; a result of several leaves through memory the caller
//! gives: SimplifyStructRegSignatures); a `byval` argument is the caller's copy
//! (ExpandByVal); variable arguments are stored in a buffer the caller allocates, whose
//! address is the last argument (ExpandVarArgs); calls of the library functions the
//! translator provides become PNaCl intrinsics (RewritePNaClLibraryCalls); calls through
//! another signature than the callee's are calls through a pointer of that signature, as
//! real pexes have them.

use super::func::{Fx, R};
use super::lower::{param_type, strip_callee};
use super::shape::{LeafKind, Vals};
use crate::llvm::edit::{Builder, Opcode, Type, Value, ValueKind};

/// Whether call `i` is of the empty compiler barrier, `asm volatile("" ::: "memory")`.
pub fn is_barrier(i: Value<'_>) -> bool {
    let text = i.called_value().text();
    i.ty().is_void()
        && (text.contains("asm sideeffect \"\", \"~{memory}\"")
            || text.contains("asm sideeffect \"\", \"\""))
}

/// What a call calls, before it is made the pointer the call takes where the call is
/// built (in the caller, or in an invoke's helper: eh.rs).
#[derive(Clone, Copy)]
pub(super) enum Callee<'a> {
    /// A function of the new module.
    Function(Value<'a>),
    /// An address, as an i32 (0 for a weak function nothing defines).
    Address(Value<'a>),
}

/// Function `nf` as a pointer to `fn_ty` (cast where its own type is another: an
/// unprototyped call).
pub(super) fn callee_ptr<'a>(b: &Builder<'a>, fn_ty: Type<'a>, nf: Value<'a>) -> Value<'a> {
    if nf.function_type() == fn_ty {
        nf
    } else {
        b.cast(Opcode::LLVMBitCast, nf, fn_ty.ptr())
    }
}

impl<'a> Fx<'a, '_> {
    /// A leaf passed as an argument or result: a small integer widened to i32.
    fn widen(&self, x: Value<'a>, k: LeafKind<'a>, signed: bool) -> Value<'a> {
        let tys = self.lw.tys;
        let pt = param_type(tys, k);
        if x.ty() == pt {
            return x;
        }
        let bits = match k {
            LeafKind::I1 => 1,
            LeafKind::Int(b) => b,
            _ => return x,
        };
        if signed {
            let f = self.sfill(x, bits);
            self.b.cast(Opcode::LLVMSExt, f, pt)
        } else {
            let c = self.clean(x, bits);
            self.b.cast(Opcode::LLVMZExt, c, pt)
        }
    }

    pub fn ret(&mut self, i: Value<'a>) -> R<()> {
        if i.num_operands() == 0 {
            self.b.ret(None);
            return Ok(());
        }
        let val = i.operand(0);
        let x = self.get(val)?;
        if let Some(out) = self.sret {
            let align = self.lw.shapes.of(val.ty())?.abi_align;
            self.store_typed(out, &x, val.ty(), align)?;
            self.b.ret(None);
            return Ok(());
        }
        let shape = self.lw.shapes.of(val.ty())?;
        let x = match shape.leaves.first() {
            Some(l) => self.widen(x.one(), l.kind, self.old_f.has_attr(0, "signext")),
            None => {
                self.b.ret(None);
                return Ok(());
            }
        };
        self.b.ret(Some(x));
        Ok(())
    }

    /// A call: its result's leaves.
    pub fn call(&mut self, i: Value<'a>) -> R<Vals<'a>> {
        Ok(self.call_or_invoke(i, None)?.0)
    }

    /// A call, or an invoke's call when `unwind` is its landing pad's clause list (made
    /// through eh.rs's helper): its result's leaves, and for an invoke's call that can
    /// throw, whether the unwinder jumped back to it instead (an i32, nonzero if so).
    pub fn call_or_invoke(
        &mut self,
        i: Value<'a>,
        unwind: Option<i32>,
    ) -> R<(Vals<'a>, Option<Value<'a>>)> {
        let tys = self.lw.tys;
        let callee = i.called_value();
        if callee.kind() == ValueKind::InlineAsm {
            return Ok((self.inline_asm(i, callee)?, None));
        }
        let target = strip_callee(callee);
        let direct = target.kind() == ValueKind::Function;
        if direct && target.is_intrinsic() {
            return Ok((self.intrinsic(i, &target.name())?, None));
        }
        if direct {
            if let Some(name) = self.lw.library.get(&target).copied() {
                return Ok((self.library_call(i, name)?, None));
            }
        }
        let call_fty = i.called_fn_type();
        let nargs = i.arg_count();
        // The signature the callee is called with: the call's own, unless the call is an
        // unprototyped (K&R) call of a function the module defines with another.
        let fty = if direct && !target.is_declaration() {
            let own = target.function_type();
            let own_fixed = own.fn_params().len() as u32;
            let variadic_unprototyped =
                own.fn_is_vararg() && !call_fty.fn_is_vararg() && nargs >= own_fixed;
            let fixed_through_variadic =
                !own.fn_is_vararg() && call_fty.fn_is_vararg() && nargs == own_fixed;
            // More arguments than the callee takes (`main(void)` called with three, as C
            // start-up code calls it): the callee gets the ones it takes.
            let extra_arguments = !own.fn_is_vararg()
                && !call_fty.fn_is_vararg()
                && nargs > own_fixed
                && own.fn_return() == call_fty.fn_return();
            if variadic_unprototyped || fixed_through_variadic || extra_arguments {
                own
            } else {
                call_fty
            }
        } else {
            call_fty
        };
        let conv = self.lw.conv(fty)?;
        let fixed = conv.old_params.len() as u32;
        if nargs < fixed {
            return Err("a call with fewer arguments than its callee takes".into());
        }
        let mut args = Vec::new();
        let mut by_memory = false;
        let ret_shape = self.lw.shapes.of(conv.old_ret)?;
        let out = if conv.sret {
            let t = self.temp(ret_shape.alloc_size, ret_shape.abi_align)?;
            args.push(t);
            by_memory = true;
            Some(t)
        } else {
            None
        };
        for k in 0..fixed {
            let a = i.arg(k);
            let pt = conv.old_params[k as usize];
            if let Some(bt) = self.byval_type(i, target, direct, k) {
                args.push(self.byval_copy(a, bt)?);
                by_memory = true;
                continue;
            }
            let x = self.get(a)?;
            let x = if a.ty() != pt {
                self.adapt(x, a.ty(), pt)?
            } else {
                x
            };
            let signed =
                i.has_attr(k + 1, "signext") || (direct && target.has_attr(k + 1, "signext"));
            let shape = self.lw.shapes.of(pt)?;
            for (l, v) in shape.leaves.iter().zip(x.as_slice()) {
                args.push(self.widen(*v, l.kind, signed));
            }
        }
        if conv.vararg {
            args.push(self.vararg_buffer(i, target, direct, fixed)?);
            by_memory = true;
        }
        let target_new = match (direct, self.lw.funcs.get(&target).copied()) {
            (true, Some(nf)) => Callee::Function(nf),
            // A weak function nothing defines: calling it is calling null.
            (true, None) => Callee::Address(tys.const_i32(0)),
            _ => Callee::Address(self.one(callee)?),
        };
        let (r, caught) = match unwind {
            // An invoke's call, with the exception lowering (eh.rs).
            Some(list) => {
                let (r, caught) = self.eh_call(list, conv.fn_ty, target_new, &args)?;
                (r, Some(caught))
            }
            None => {
                let p = match target_new {
                    Callee::Function(nf) => callee_ptr(&self.b, conv.fn_ty, nf),
                    Callee::Address(x) => self.ptr(x, conv.fn_ty),
                };
                (self.b.call(conv.fn_ty, p, &args), None)
            }
        };
        if i.opcode() == Some(Opcode::LLVMCall) && i.is_tail_call() && !by_memory {
            self.b.set_tail_call(r, true);
        }
        if let Some(t) = out {
            return Ok((
                self.load_typed(t, conv.old_ret, ret_shape.abi_align)?,
                caught,
            ));
        }
        let vals = match ret_shape.leaves.first() {
            None => Vals::from_vec(Vec::new()),
            Some(l) => Vals::One(self.narrow(r, l.kind)),
        };
        Ok((vals, caught))
    }

    /// The type of argument `k`'s `byval` copy, if it is passed by value in memory.
    fn byval_type(
        &self,
        i: Value<'a>,
        target: Value<'a>,
        direct: bool,
        k: u32,
    ) -> Option<Type<'a>> {
        i.type_attr(k + 1, "byval").or_else(|| {
            (direct && (k as usize) < target.params().len())
                .then(|| target.type_attr(k + 1, "byval"))
                .flatten()
        })
    }

    /// The caller's copy of a `byval` argument: its address.
    fn byval_copy(&mut self, a: Value<'a>, bt: Type<'a>) -> R<Value<'a>> {
        let tys = self.lw.tys;
        let layout = self.lw.shapes.layout();
        let size = layout.alloc_size(bt);
        let align = layout.abi_align(bt).max(4);
        let tmp = self.temp(size, align)?;
        let src = self.one(a)?;
        self.mem_copy("memcpy", tmp, src, tys.const_i32(size as i64));
        Ok(tmp)
    }

    /// The buffer of a call's variable arguments (from argument `fixed` on): a struct of
    /// their types at their natural alignment, in the caller's frame.
    fn vararg_buffer(
        &mut self,
        i: Value<'a>,
        target: Value<'a>,
        direct: bool,
        fixed: u32,
    ) -> R<Value<'a>> {
        let tys = self.lw.tys;
        let mut types = Vec::new();
        let mut byvals = Vec::new();
        for k in fixed..i.arg_count() {
            let a = i.arg(k);
            let bv = self.byval_type(i, target, direct, k);
            byvals.push(bv);
            types.push(bv.unwrap_or(a.ty()));
        }
        if types.is_empty() {
            types.push(tys.i32());
        }
        let st = tys.structure(&types, false);
        let layout = self.lw.shapes.layout();
        let size = layout.alloc_size(st);
        let align = layout.abi_align(st).max(4);
        let buf = self.temp(size, align)?;
        for (j, k) in (fixed..i.arg_count()).enumerate() {
            let a = i.arg(k);
            let off = self.lw.shapes.layout().field_offset(st, j as u32);
            let at = self.offset(buf, off as i64);
            match byvals[j] {
                Some(bt) => {
                    let n = self.lw.shapes.layout().alloc_size(bt);
                    let src = self.one(a)?;
                    self.mem_copy("memcpy", at, src, tys.const_i32(n as i64));
                }
                None => {
                    let x = self.get(a)?;
                    let al = self.lw.shapes.layout().abi_align(a.ty());
                    self.store_typed(at, &x, a.ty(), al)?;
                }
            }
        }
        Ok(buf)
    }

    /// A value of type `from` passed where `to` is expected (an unprototyped call): the
    /// same bits where the sizes agree.
    fn adapt(&mut self, x: Vals<'a>, from: Type<'a>, to: Type<'a>) -> R<Vals<'a>> {
        let layout = self.lw.shapes.layout();
        if layout.store_size(from) == layout.store_size(to) {
            return self.scalar_cast(Opcode::LLVMBitCast, x, from, to);
        }
        match (from.int_width(), to.int_width()) {
            (Some(a), Some(b)) if a < b => self.scalar_cast(Opcode::LLVMZExt, x, from, to),
            (Some(_), Some(_)) => self.scalar_cast(Opcode::LLVMTrunc, x, from, to),
            _ => Err(format!(
                "an argument of type {} passed as {} (an unprototyped call)",
                from.text(),
                to.text()
            )),
        }
    }

    /// Inline assembly: only the empty compiler barrier (`asm volatile("" ::: "memory")`)
    /// is dropped, as RemoveAsmMemory did; anything else cannot be kept.
    fn inline_asm(&mut self, i: Value<'a>, _callee: Value<'a>) -> R<Vals<'a>> {
        if is_barrier(i) {
            return Ok(Vals::from_vec(Vec::new()));
        }
        Err("inline assembly, which a pexe cannot hold".into())
    }

    /// A call of a library function the translator provides.
    fn library_call(&mut self, i: Value<'a>, name: &str) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let arg_i32 = |fx: &mut Self, k: u32| -> R<Value<'a>> {
            let a = i.arg(k);
            let x = fx.one(a)?;
            Ok(match x.ty().int_width() {
                Some(64) => fx.b.cast(LLVMTrunc, x, tys.i32()),
                Some(32) => x,
                Some(_) => fx.b.cast(LLVMZExt, x, tys.i32()),
                None => x,
            })
        };
        if i.arg_count()
            < match name {
                "memcpy" | "memmove" | "memset" => 3,
                "longjmp" => 2,
                _ => 1,
            }
        {
            return Err(format!("a call of {name} with too few arguments"));
        }
        match name {
            "memcpy" | "memmove" => {
                let d = self.one(i.arg(0))?;
                let s = self.one(i.arg(1))?;
                let n = arg_i32(self, 2)?;
                self.mem_copy(name, d, s, n);
                self.lib_result(i, d)
            }
            "memset" => {
                let d = self.one(i.arg(0))?;
                let c = self.one(i.arg(1))?;
                let c = if c.ty() == tys.i8() {
                    c
                } else {
                    self.b.cast(LLVMTrunc, c, tys.i8())
                };
                let n = arg_i32(self, 2)?;
                self.mem_set(d, c, n);
                self.lib_result(i, d)
            }
            "setjmp" => {
                let buf = self.one(i.arg(0))?;
                let fty = tys.function(tys.i32(), &[tys.i8().ptr()], false);
                let f = self.lw.decl("llvm.nacl.setjmp", fty);
                let p = self.ptr(buf, tys.i8());
                let r = self.b.call(fty, f, &[p]);
                self.lib_result(i, r)
            }
            "longjmp" => {
                let buf = self.one(i.arg(0))?;
                let v = arg_i32(self, 1)?;
                // C: a longjmp of 0 makes setjmp return 1.
                let zero = self
                    .b
                    .icmp(crate::llvm::edit::pred::LLVMIntEQ, v, tys.const_i32(0));
                let v = self.b.select(zero, tys.const_i32(1), v);
                let fty = tys.function(tys.void(), &[tys.i8().ptr(), tys.i32()], false);
                let f = self.lw.decl("llvm.nacl.longjmp", fty);
                let p = self.ptr(buf, tys.i8());
                self.b.call(fty, f, &[p, v]);
                Ok(Vals::from_vec(Vec::new()))
            }
            "__nacl_tp_tls_offset" => {
                let n = arg_i32(self, 0)?;
                let r = self.b.binop(LLVMSub, tys.const_i32(0), n);
                self.lib_result(i, r)
            }
            "__nacl_tp_tdb_offset" => self.lib_result(i, tys.const_i32(0)),
            _ => Err(format!("the library call {name}")),
        }
    }

    /// The result of a library call, in the call's result type.
    fn lib_result(&mut self, i: Value<'a>, r: Value<'a>) -> R<Vals<'a>> {
        let t = i.ty();
        if t.is_void() {
            return Ok(Vals::from_vec(Vec::new()));
        }
        let tys = self.lw.tys;
        let rt = self.lw.shapes.of(t)?.leaves[0].kind.ty(tys);
        if r.ty() == rt {
            return Ok(Vals::One(r));
        }
        let (a, b) = (
            r.ty().int_width().unwrap_or(32),
            rt.int_width().unwrap_or(32),
        );
        Ok(Vals::One(if a > b {
            self.b.cast(Opcode::LLVMTrunc, r, rt)
        } else {
            self.b.cast(Opcode::LLVMSExt, r, rt)
        }))
    }
}
