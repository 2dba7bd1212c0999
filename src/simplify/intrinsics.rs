//! LLVM intrinsics in the PNaCl subset: the few the ABI has are kept (in its form: i32
//! lengths, pointers made at the call); the hints are dropped (lifetime markers,
//! `assume`, `expect`, …: RewriteLLVMIntrinsics); what LLVM 14 has and 3.3 had not is
//! spelt out in instructions the ABI has (minimum and maximum, absolute value, funnel
//! shifts, saturating and overflow-checking arithmetic, rounding, sign operations, bit
//! counts of other widths); a transcendental calls the C library's function of its name.

use super::func::{Fx, R};
use super::shape::{is_abi_vector, repr_bits, Vals};
use crate::llvm::edit::{pred, IntPred, Opcode, RealPred, Type, TypeKind, Value};

/// The family of an overloaded intrinsic's name (`llvm.umax.i32` → `umax`).
fn family(name: &str) -> &str {
    let rest = name.strip_prefix("llvm.").unwrap_or(name);
    // Names of two words (`experimental.noalias.scope.decl`, `nacl.atomic.load`, …)
    // keep their words; the type suffixes (`.i32`, `.f64`, `.p0i8`, `.v4f32`) go.
    let mut out = rest;
    while let Some((head, tail)) = out.rsplit_once('.') {
        let is_type = tail.starts_with('i')
            && tail[1..].chars().all(|c| c.is_ascii_digit())
            && tail.len() > 1
            || tail == "f32"
            || tail == "f64"
            || tail == "f80"
            || tail == "f128"
            || tail.starts_with('p')
                && tail[1..].chars().next().is_some_and(|c| c.is_ascii_digit())
            || tail.starts_with('v')
                && tail[1..].chars().next().is_some_and(|c| c.is_ascii_digit());
        if !is_type {
            break;
        }
        out = head;
    }
    out
}

impl<'a> Fx<'a, '_> {
    pub fn intrinsic(&mut self, i: Value<'a>, name: &str) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let none = || Ok(Vals::from_vec(Vec::new()));
        let fam = family(name);
        let arg = |fx: &mut Self, k: u32| fx.get(i.arg(k));
        match fam {
            // Hints and markers with no effect on what the program computes.
            "lifetime.start"
            | "lifetime.end"
            | "assume"
            | "experimental.noalias.scope.decl"
            | "dbg.declare"
            | "dbg.value"
            | "dbg.label"
            | "dbg.addr"
            | "donothing"
            | "sideeffect"
            | "var.annotation"
            | "codeview.annotation"
            | "prefetch"
            | "pseudoprobe"
            | "invariant.end"
            | "va_end"
            | "instrprof.increment" => none(),
            "invariant.start" => Ok(Vals::One(tys.undef(tys.i8().ptr()))),
            // A catch type's id in the exception lowering's tables (eh.rs); without the
            // unwinder no landing pad is reached, and no id matches.
            "eh.typeid.for" => {
                let id = match &self.lw.eh {
                    Some(eh) => eh
                        .type_id(i.arg(0))
                        .ok_or("llvm.eh.typeid.for of a type no landing pad names")?,
                    None => 0,
                };
                Ok(Vals::One(tys.const_i32(id as i64)))
            }
            "expect"
            | "expect.with.probability"
            | "annotation"
            | "ptr.annotation"
            | "launder.invariant.group"
            | "strip.invariant.group"
            | "ssa.copy"
            | "canonicalize"
            | "arithmetic.fence" => arg(self, 0),
            "is.constant" => Ok(Vals::One(tys.const_int(tys.i1(), 0))),
            "objectsize" => {
                let min = i.arg(1).const_zext() == Some(1);
                let t = self.lw.shapes.of(i.ty())?.leaves[0].kind.ty(tys);
                Ok(Vals::One(tys.const_int(t, if min { 0 } else { u64::MAX })))
            }
            "flt.rounds" => Ok(Vals::One(tys.const_i32(1))),
            "trap" | "debugtrap" | "ubsantrap" => {
                let fty = tys.function(tys.void(), &[], false);
                let f = self.lw.decl("llvm.trap", fty);
                self.b.call(fty, f, &[]);
                none()
            }
            "stacksave" => {
                let fty = tys.function(tys.i8().ptr(), &[], false);
                let f = self.lw.decl("llvm.stacksave", fty);
                let p = self.b.call(fty, f, &[]);
                let x = self.b.cast(LLVMPtrToInt, p, tys.i32());
                self.inherent.insert(x, p);
                Ok(Vals::One(x))
            }
            "stackrestore" => {
                let x = self.one(i.arg(0))?;
                let fty = tys.function(tys.void(), &[tys.i8().ptr()], false);
                let f = self.lw.decl("llvm.stackrestore", fty);
                let p = self.ptr(x, tys.i8());
                self.b.call(fty, f, &[p]);
                none()
            }
            "memcpy" | "memmove" | "memcpy.inline" | "memset" | "memset.inline" => {
                let d = self.one(i.arg(0))?;
                let n = self.one(i.arg(2))?;
                let n = match n.ty().int_width() {
                    Some(64) => self.b.cast(LLVMTrunc, n, tys.i32()),
                    _ => n,
                };
                if fam.starts_with("memset") {
                    let c = self.one(i.arg(1))?;
                    self.mem_set(d, c, n);
                } else {
                    let s = self.one(i.arg(1))?;
                    let which = if fam == "memmove" {
                        "memmove"
                    } else {
                        "memcpy"
                    };
                    self.mem_copy(which, d, s, n);
                }
                none()
            }
            "va_start" => {
                let list = self.one(i.arg(0))?;
                let buf = self
                    .vararg_buf
                    .ok_or("va_start in a function without variable arguments")?;
                let p = self.ptr(list, tys.i32());
                self.b.store(buf, p, 1);
                none()
            }
            "va_copy" => {
                let (d, s) = (self.one(i.arg(0))?, self.one(i.arg(1))?);
                let sp = self.ptr(s, tys.i32());
                let x = self.b.load(tys.i32(), sp, 1);
                let dp = self.ptr(d, tys.i32());
                self.b.store(x, dp, 1);
                none()
            }
            "umax" | "umin" | "smax" | "smin" => {
                let p = min_max_pred(fam);
                self.lanes2(i, |fx, t, a, b| {
                    let c = fx.scalar_icmp(p, t, a, b)?;
                    Ok(fx.b.select(c, a, b))
                })
            }
            "abs" => self.lanes1(i, |fx, t, a| {
                let w = t.int_width().ok_or("abs of a non-integer")?;
                let s = fx.sfill(a, w);
                let z = tys.const_int(a.ty(), 0);
                let neg = fx.b.icmp(pred::LLVMIntSLT, s, z);
                let n = fx.b.binop(LLVMSub, z, a);
                Ok(fx.b.select(neg, n, a))
            }),
            "fshl" | "fshr" => self.funnel(i, fam == "fshl"),
            "uadd.sat" | "usub.sat" | "sadd.sat" | "ssub.sat" => self.saturating(i, fam),
            "uadd.with.overflow" | "usub.with.overflow" | "sadd.with.overflow"
            | "ssub.with.overflow" | "umul.with.overflow" | "smul.with.overflow" => {
                self.with_overflow(i, fam)
            }
            "ctpop" | "ctlz" | "cttz" => self.bit_count(i, fam),
            "bswap" => self.bswap(i),
            "bitreverse" => self.lanes1(i, |fx, t, a| fx.bitreverse(t, a)),
            "sqrt" => self.lanes1(i, |fx, t, a| {
                let fty = tys.function(t, &[t], false);
                let n = if t == tys.f32() {
                    "llvm.sqrt.f32"
                } else {
                    "llvm.sqrt.f64"
                };
                let f = fx.lw.decl(n, fty);
                Ok(fx.b.call(fty, f, &[a]))
            }),
            "fabs" => self.lanes1(i, |fx, t, a| Ok(fx.fsign(t, a, None, false))),
            "copysign" => self.lanes2(i, |fx, t, a, b| Ok(fx.fsign(t, a, Some(b), false))),
            "floor" | "ceil" | "trunc" | "round" | "rint" | "nearbyint" | "roundeven" => {
                let f = fam.to_string();
                self.lanes1(i, move |fx, t, a| fx.round(t, a, &f))
            }
            "lround" | "llround" | "lrint" | "llrint" => {
                let src = i.arg(0);
                let x = self.one(src)?;
                let how = if fam.ends_with("round") {
                    "round"
                } else {
                    "rint"
                };
                let r = self.round(src.ty(), x, how)?;
                let t = self.lw.shapes.of(i.ty())?.leaves[0].kind.ty(tys);
                Ok(Vals::One(self.b.cast(LLVMFPToSI, r, t)))
            }
            "minnum" | "maxnum" | "minimum" | "maximum" => {
                let f = fam.to_string();
                self.lanes2(i, move |fx, _t, a, b| Ok(fx.fminmax(&f, a, b)))
            }
            "fma" | "fmuladd" => {
                let (a, b, c) = (arg(self, 0)?, arg(self, 1)?, arg(self, 2)?);
                let ty = i.ty();
                let (xa, xb, xc) = (
                    self.elements(&a, ty)?,
                    self.elements(&b, ty)?,
                    self.elements(&c, ty)?,
                );
                if matches!(ty.kind(), TypeKind::Vector(e, n) if is_abi_vector(e, n))
                    || !matches!(ty.kind(), TypeKind::Vector(..))
                {
                    let m = self.b.binop(LLVMFMul, a.one(), b.one());
                    return Ok(Vals::One(self.b.binop(LLVMFAdd, m, c.one())));
                }
                let mut out = Vec::new();
                for ((x, y), z) in xa.into_iter().zip(xb).zip(xc) {
                    let m = self.b.binop(LLVMFMul, x, y);
                    out.push(self.b.binop(LLVMFAdd, m, z));
                }
                self.assemble(ty, out)
            }
            "powi" => self.powi(i),
            _ if fam.starts_with("vector.reduce.") => {
                self.reduce(i, &fam["vector.reduce.".len()..])
            }
            "sin" | "cos" | "pow" | "exp" | "exp2" | "log" | "log2" | "log10" | "exp10" => {
                self.libm_call(i, fam)
            }
            "returnaddress" | "frameaddress" | "addressofreturnaddress" | "sponentry" => Err(
                format!("{name}: a pexe cannot see its own stack frames or return addresses"),
            ),
            "stackprotector" | "stackguard" => {
                Err("stack protection (compile with -fno-stack-protector)".into())
            }
            _ if fam.starts_with("nacl.") => self.nacl_intrinsic(i, name),
            _ if fam.starts_with("eh.") => Err(format!(
                "{name}: C++ exception handling (not supported yet)"
            )),
            _ => Err(format!("the intrinsic {name}, which the PNaCl ABI lacks")),
        }
    }

    /// A PNaCl intrinsic the program calls itself (the C library's atomics, TLS): kept,
    /// pointer arguments made where it is called.
    fn nacl_intrinsic(&mut self, i: Value<'a>, name: &str) -> R<Vals<'a>> {
        let tys = self.lw.tys;
        let fty = i.called_fn_type();
        let ok = crate::ir::intrinsics::lookup(name.as_bytes()).is_some();
        if !ok {
            return Err(format!("the intrinsic {name}, which the PNaCl ABI lacks"));
        }
        let mut args = Vec::new();
        for (k, pt) in fty.fn_params().into_iter().enumerate() {
            let x = self.one(i.arg(k as u32))?;
            args.push(match pt.kind() {
                TypeKind::Pointer { pointee, .. } => self.ptr(x, pointee),
                _ => x,
            });
        }
        let f = self.lw.decl(name, fty);
        let r = self.b.call(fty, f, &args);
        let rt = fty.fn_return();
        if rt.is_void() {
            return Ok(Vals::from_vec(Vec::new()));
        }
        if rt.is_pointer() {
            let x = self.b.cast(Opcode::LLVMPtrToInt, r, tys.i32());
            self.inherent.insert(x, r);
            return Ok(Vals::One(x));
        }
        Ok(Vals::One(r))
    }

    /// A transcendental intrinsic: a call of the C library's function of that name,
    /// which must be in the program.
    fn libm_call(&mut self, i: Value<'a>, fam: &str) -> R<Vals<'a>> {
        let tys = self.lw.tys;
        let ty = i.ty();
        let (base, lane) = match ty.kind() {
            TypeKind::Vector(e, _) => (e, e),
            _ => (ty, ty),
        };
        let fname = match base.kind() {
            TypeKind::Float => format!("{fam}f"),
            TypeKind::Double => fam.to_string(),
            _ => return Err(format!("llvm.{fam} of {}", ty.text())),
        };
        let old = self
            .lw
            .old
            .function(&fname)
            .filter(|f| !f.is_declaration())
            .and_then(|f| self.lw.funcs.get(&f).copied())
            .ok_or_else(|| {
                format!(
                    "llvm.{fam} needs {fname} from the C library, which the program does not have"
                )
            })?;
        let nargs = i.arg_count();
        let mut lanes: Vec<Vec<Value<'a>>> = Vec::new();
        for k in 0..nargs {
            let a = i.arg(k);
            let x = self.get(a)?;
            lanes.push(self.elements(&x, a.ty())?);
        }
        let n = lanes[0].len();
        let fty = tys.function(lane, &vec![lane; nargs as usize], false);
        let callee = if old.function_type() == fty {
            old
        } else {
            self.b.cast(Opcode::LLVMBitCast, old, fty.ptr())
        };
        let mut out = Vec::new();
        for j in 0..n {
            let args: Vec<Value<'a>> = lanes.iter().map(|l| l[j]).collect();
            out.push(self.b.call(fty, callee, &args));
        }
        self.assemble(ty, out)
    }

    /// `f` on each lane of a one-operand intrinsic (the lane's old type, its value).
    fn lanes1(
        &mut self,
        i: Value<'a>,
        mut f: impl FnMut(&mut Self, Type<'a>, Value<'a>) -> R<Value<'a>>,
    ) -> R<Vals<'a>> {
        let a = i.arg(0);
        let ty = a.ty();
        let x = self.get(a)?;
        let et = match ty.kind() {
            TypeKind::Vector(e, _) => e,
            _ => ty,
        };
        let xs = self.elements(&x, ty)?;
        let mut out = Vec::new();
        for v in xs {
            out.push(f(self, et, v)?);
        }
        self.assemble(i.ty(), out)
    }

    fn lanes2(
        &mut self,
        i: Value<'a>,
        mut f: impl FnMut(&mut Self, Type<'a>, Value<'a>, Value<'a>) -> R<Value<'a>>,
    ) -> R<Vals<'a>> {
        let (a, b) = (i.arg(0), i.arg(1));
        let ty = a.ty();
        let (x, y) = (self.get(a)?, self.get(b)?);
        let et = match ty.kind() {
            TypeKind::Vector(e, _) => e,
            _ => ty,
        };
        if et.int_width().is_some_and(|w| w > 64) {
            return Err(format!(
                "{} on integers wider than 64 bits",
                i.called_value().name()
            ));
        }
        self.pairwise(&x, &y, ty, i.ty(), |fx, p, q| f(fx, et, p, q))
    }

    /// `fshl(a, b, s)`: the high half of `a:b << s`; `fshr`: the low half of `a:b >> s`,
    /// `s` modulo the width.
    fn funnel(&mut self, i: Value<'a>, left: bool) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let ty = i.ty();
        let et = match ty.kind() {
            TypeKind::Vector(e, _) => e,
            _ => ty,
        };
        let w = et
            .int_width()
            .filter(|w| *w <= 64)
            .ok_or("a funnel shift of this type")?;
        let (a, b, s) = (
            self.get(i.arg(0))?,
            self.get(i.arg(1))?,
            self.get(i.arg(2))?,
        );
        let (xa, xb, xs) = (
            self.elements(&a, ty)?,
            self.elements(&b, ty)?,
            self.elements(&s, ty)?,
        );
        let mut out = Vec::new();
        for ((x, y), s) in xa.into_iter().zip(xb).zip(xs) {
            let h = x.ty();
            let wk = tys.const_int(h, w as u64);
            let s = self.clean(s, w);
            let s = self.b.binop(LLVMURem, s, wk);
            let y = self.clean(y, w);
            let x = self.clean(x, w);
            let zero = self.b.icmp(pred::LLVMIntEQ, s, tys.const_int(h, 0));
            let inv = self.b.binop(LLVMSub, wk, s);
            let r = if left {
                let o = self.combine(LLVMOr, (LLVMShl, x, s), (LLVMLShr, y, inv));
                self.b.select(zero, x, o)
            } else {
                let o = self.combine(LLVMOr, (LLVMLShr, y, s), (LLVMShl, x, inv));
                self.b.select(zero, y, o)
            };
            out.push(r);
        }
        self.assemble(ty, out)
    }

    fn saturating(&mut self, i: Value<'a>, fam: &str) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let fam = fam.to_string();
        self.lanes2(i, move |fx, t, a, b| {
            let w = t
                .int_width()
                .ok_or("saturating arithmetic on a non-integer")?;
            let h = a.ty();
            let umax = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let (smax, smin) = ((1u64 << (w - 1)) - 1, (1u64 << (w - 1)).wrapping_neg());
            Ok(match fam.as_str() {
                "uadd.sat" => {
                    let (x, y) = (fx.clean(a, w), fx.clean(b, w));
                    let s = fx.b.binop(LLVMAdd, x, y);
                    let s2 = fx.clean(s, w);
                    let over = fx.b.icmp(pred::LLVMIntULT, s2, x);
                    fx.b.select(over, tys.const_int(h, umax), s)
                }
                "usub.sat" => {
                    let (x, y) = (fx.clean(a, w), fx.clean(b, w));
                    let under = fx.b.icmp(pred::LLVMIntULT, x, y);
                    let d = fx.b.binop(LLVMSub, x, y);
                    fx.b.select(under, tys.const_int(h, 0), d)
                }
                _ => {
                    let add = fam == "sadd.sat";
                    let (x, y) = (fx.sfill(a, w), fx.sfill(b, w));
                    let r = fx.b.binop(if add { LLVMAdd } else { LLVMSub }, x, y);
                    let ov = fx.signed_overflow(add, x, y, r, w);
                    let neg = fx.b.icmp(pred::LLVMIntSLT, x, tys.const_int(h, 0));
                    let lim =
                        fx.b.select(neg, tys.const_int(h, smin), tys.const_int(h, smax));
                    fx.b.select(ov, lim, r)
                }
            })
        })
    }

    /// Whether `r = x ± y` (of `w` bits in their holder, sign-filled) overflowed.
    fn signed_overflow(
        &self,
        add: bool,
        x: Value<'a>,
        y: Value<'a>,
        r: Value<'a>,
        w: u32,
    ) -> Value<'a> {
        use Opcode::*;
        let tys = self.lw.tys;
        let r = self.sfill(r, w);
        let h = x.ty();
        // add: x and y have one sign and r the other; sub: x and y differ, r and x too.
        let t = if add {
            self.combine(LLVMAnd, (LLVMXor, x, r), (LLVMXor, y, r))
        } else {
            self.combine(LLVMAnd, (LLVMXor, x, y), (LLVMXor, x, r))
        };
        let t = self.sfill(t, w);
        self.b.icmp(pred::LLVMIntSLT, t, tys.const_int(h, 0))
    }

    /// `*.with.overflow`: the result and whether it overflowed (ExpandArithWithOverflow).
    fn with_overflow(&mut self, i: Value<'a>, fam: &str) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let t = i.arg(0).ty();
        let w = t
            .int_width()
            .filter(|w| *w <= 64)
            .ok_or_else(|| format!("{fam} of {}", t.text()))?;
        let (a, b) = (self.one(i.arg(0))?, self.one(i.arg(1))?);
        let h = a.ty();
        let (r, ov) = match fam {
            "uadd.with.overflow" => {
                let (x, y) = (self.clean(a, w), self.clean(b, w));
                let r = self.b.binop(LLVMAdd, x, y);
                let rc = self.clean(r, w);
                (r, self.b.icmp(pred::LLVMIntULT, rc, x))
            }
            "usub.with.overflow" => {
                let (x, y) = (self.clean(a, w), self.clean(b, w));
                (
                    self.b.binop(LLVMSub, x, y),
                    self.b.icmp(pred::LLVMIntULT, x, y),
                )
            }
            "sadd.with.overflow" | "ssub.with.overflow" => {
                let add = fam.starts_with("sadd");
                let (x, y) = (self.sfill(a, w), self.sfill(b, w));
                let r = self.b.binop(if add { LLVMAdd } else { LLVMSub }, x, y);
                (r, self.signed_overflow(add, x, y, r, w))
            }
            "umul.with.overflow" | "smul.with.overflow" => {
                let signed = fam.starts_with("smul");
                if w <= 32 {
                    let ext = if signed { LLVMSExt } else { LLVMZExt };
                    let (x, y) = if signed {
                        (self.sfill(a, w), self.sfill(b, w))
                    } else {
                        (self.clean(a, w), self.clean(b, w))
                    };
                    let (x64, y64) = (
                        self.b.cast(ext, x, tys.i64()),
                        self.b.cast(ext, y, tys.i64()),
                    );
                    let p = self.b.binop(LLVMMul, x64, y64);
                    // Overflow: the product does not fit in w bits.
                    let back = if signed {
                        let k = tys.const_int(tys.i64(), 64 - w as u64);
                        let s = self.b.binop(LLVMShl, p, k);
                        self.b.binop(LLVMAShr, s, k)
                    } else if w == 64 {
                        p
                    } else {
                        self.b
                            .binop(LLVMAnd, p, tys.const_int(tys.i64(), (1u64 << w) - 1))
                    };
                    let ov = self.b.icmp(pred::LLVMIntNE, back, p);
                    let r = if h == tys.i64() {
                        p
                    } else {
                        self.b.cast(LLVMTrunc, p, h)
                    };
                    (r, ov)
                } else {
                    // 33 to 64 bits: the product, checked by dividing it back.
                    let (x, y) = if signed {
                        (self.sfill(a, w), self.sfill(b, w))
                    } else {
                        (self.clean(a, w), self.clean(b, w))
                    };
                    let p = self.b.binop(LLVMMul, x, y);
                    let p = if signed {
                        self.sfill(p, w)
                    } else {
                        self.clean(p, w)
                    };
                    let zero = tys.const_int(h, 0);
                    let x_zero = self.b.icmp(pred::LLVMIntEQ, x, zero);
                    let one = tys.const_int(h, 1);
                    let safe_x = self.b.select(x_zero, one, x);
                    let q = self
                        .b
                        .binop(if signed { LLVMSDiv } else { LLVMUDiv }, p, safe_x);
                    let ne = self.b.icmp(pred::LLVMIntNE, q, y);
                    let not_zero = self.b.icmp(pred::LLVMIntNE, x, zero);
                    let mut ov = self.b.binop(LLVMAnd, not_zero, ne);
                    if signed {
                        // -1 * MIN overflows, and MIN / -1 cannot tell.
                        let m1 = tys.const_int(h, u64::MAX);
                        let min = tys.const_int(h, (1u64 << (w - 1)).wrapping_neg());
                        let a1 = self.b.icmp(pred::LLVMIntEQ, x, m1);
                        let bm = self.b.icmp(pred::LLVMIntEQ, y, min);
                        let both = self.b.binop(LLVMAnd, a1, bm);
                        ov = self.b.binop(LLVMOr, ov, both);
                    }
                    (p, ov)
                }
            }
            _ => return Err(format!("the intrinsic {fam}")),
        };
        Ok(Vals::from_vec(vec![r, ov]))
    }

    fn bit_count(&mut self, i: Value<'a>, fam: &str) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let fam = fam.to_string();
        let zero_undef = i.arg_count() > 1 && i.arg(1).const_zext() == Some(1);
        self.lanes1(i, move |fx, t, a| {
            let w = t
                .int_width()
                .filter(|w| *w <= 64)
                .ok_or("a bit count of this type")?;
            let h = a.ty();
            let cw = if w <= 32 { 32 } else { 64 };
            let ct = tys.int(cw);
            let x = fx.clean(a, w);
            let x = if h == ct {
                x
            } else {
                fx.b.cast(LLVMZExt, x, ct)
            };
            let x = if fam == "cttz" && w < cw {
                // A bit above the value's own ends the count at its width.
                fx.b.binop(LLVMOr, x, tys.const_int(ct, 1u64 << w))
            } else {
                x
            };
            let name = format!("llvm.{fam}.i{cw}");
            let r = if fam == "ctpop" {
                let fty = tys.function(ct, &[ct], false);
                let f = fx.lw.decl(&name, fty);
                fx.b.call(fty, f, &[x])
            } else {
                let fty = tys.function(ct, &[ct, tys.i1()], false);
                let f = fx.lw.decl(&name, fty);
                let zu = tys.const_int(tys.i1(), (zero_undef && w == cw) as u64);
                fx.b.call(fty, f, &[x, zu])
            };
            let r = if fam == "ctlz" && w < cw {
                fx.b.binop(LLVMSub, r, tys.const_int(ct, (cw - w) as u64))
            } else {
                r
            };
            Ok(if h == ct {
                r
            } else {
                fx.b.cast(LLVMTrunc, r, h)
            })
        })
    }

    fn bswap(&mut self, i: Value<'a>) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        self.lanes1(i, |fx, t, a| {
            let w = t.int_width().ok_or("bswap of a non-integer")?;
            match w {
                16 | 32 | 64 => {
                    let fty = tys.function(a.ty(), &[a.ty()], false);
                    let f = fx.lw.decl(&format!("llvm.bswap.i{w}"), fty);
                    Ok(fx.b.call(fty, f, &[a]))
                }
                _ if w % 16 == 0 && w < 64 => {
                    // 48 bits: swapped in 64, shifted down.
                    let x = fx.clean(a, w);
                    let fty = tys.function(tys.i64(), &[tys.i64()], false);
                    let f = fx.lw.decl("llvm.bswap.i64", fty);
                    let r = fx.b.call(fty, f, &[x]);
                    Ok(fx
                        .b
                        .binop(LLVMLShr, r, tys.const_int(tys.i64(), 64 - w as u64)))
                }
                _ => Err(format!("bswap of i{w}")),
            }
        })
    }

    fn bitreverse(&mut self, t: Type<'a>, a: Value<'a>) -> R<Value<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let w = t
            .int_width()
            .filter(|w| *w <= 64)
            .ok_or("bitreverse of this type")?;
        let h = a.ty();
        let hw = repr_bits(w).max(8);
        let mut x = a;
        // Swap ever larger groups within the holder, then shift the result down.
        let masks: [(u32, u64); 6] = [
            (1, 0x5555_5555_5555_5555),
            (2, 0x3333_3333_3333_3333),
            (4, 0x0f0f_0f0f_0f0f_0f0f),
            (8, 0x00ff_00ff_00ff_00ff),
            (16, 0x0000_ffff_0000_ffff),
            (32, 0x0000_0000_ffff_ffff),
        ];
        for (s, m) in masks {
            if s >= hw {
                break;
            }
            let k = tys.const_int(h, s as u64);
            let mk = tys.const_int(h, m);
            let lo = self.b.binop(LLVMAnd, x, mk);
            let lo = self.b.binop(LLVMShl, lo, k);
            let hi = self.b.binop(LLVMLShr, x, k);
            let hi = self.b.binop(LLVMAnd, hi, mk);
            x = self.b.binop(LLVMOr, lo, hi);
        }
        if hw > w {
            x = self.b.binop(LLVMLShr, x, tys.const_int(h, (hw - w) as u64));
        }
        Ok(x)
    }

    /// `fabs` (no `with`) or `copysign(a, with)` on the bits.
    fn fsign(&self, t: Type<'a>, a: Value<'a>, with: Option<Value<'a>>, _: bool) -> Value<'a> {
        use Opcode::*;
        let tys = self.lw.tys;
        let it = if t == tys.f32() { tys.i32() } else { tys.i64() };
        let sign = if t == tys.f32() {
            1u64 << 31
        } else {
            1u64 << 63
        };
        let x = self.b.cast(LLVMBitCast, a, it);
        let mag = self.b.binop(LLVMAnd, x, tys.const_int(it, !sign));
        let r = match with {
            None => mag,
            Some(w) => {
                let y = self.b.cast(LLVMBitCast, w, it);
                let s = self.b.binop(LLVMAnd, y, tys.const_int(it, sign));
                self.b.binop(LLVMOr, mag, s)
            }
        };
        self.b.cast(LLVMBitCast, r, t)
    }

    /// Rounding to an integral value, in the current (default) rounding mode for rint.
    fn round(&mut self, t: Type<'a>, x: Value<'a>, how: &str) -> R<Value<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let (it, big) = if t == tys.f32() {
            (tys.i32(), 8_388_608.0)
        } else if t == tys.f64() {
            (tys.i64(), 4_503_599_627_370_496.0)
        } else {
            return Err(format!("rounding of {}", t.text()));
        };
        let ax = self.fsign(t, x, None, false);
        // |x| ≥ 2^52 (2^23) or NaN: already integral.
        let done = self
            .b
            .fcmp(RealPred::LLVMRealUGE, ax, tys.const_f64(t, big));
        let r = match how {
            "rint" | "nearbyint" | "roundeven" => {
                let bigv = tys.const_f64(t, big);
                let s = self.b.binop(LLVMFAdd, ax, bigv);
                self.b.binop(LLVMFSub, s, bigv)
            }
            _ => {
                let i = self.b.cast(LLVMFPToSI, x, it);
                let tr = self.b.cast(LLVMSIToFP, i, t);
                let one = tys.const_f64(t, 1.0);
                match how {
                    "trunc" => tr,
                    "floor" => {
                        let gt = self.b.fcmp(RealPred::LLVMRealOGT, tr, x);
                        let m = self.b.binop(LLVMFSub, tr, one);
                        self.b.select(gt, m, tr)
                    }
                    "ceil" => {
                        let lt = self.b.fcmp(RealPred::LLVMRealOLT, tr, x);
                        let p = self.b.binop(LLVMFAdd, tr, one);
                        self.b.select(lt, p, tr)
                    }
                    _ => {
                        // round: half away from zero.
                        let d = self.b.binop(LLVMFSub, x, tr);
                        let ad = self.fsign(t, d, None, false);
                        let half = self
                            .b
                            .fcmp(RealPred::LLVMRealOGE, ad, tys.const_f64(t, 0.5));
                        let step = self.fsign(t, one, Some(x), false);
                        let p = self.b.binop(LLVMFAdd, tr, step);
                        self.b.select(half, p, tr)
                    }
                }
            }
        };
        // The sign of the input, also for a zero result (floor(-0.5) is -1, ceil(-0.5) is
        // -0, rint(-0.2) is -0).
        let r = self.fsign(t, r, Some(x), false);
        Ok(self.b.select(done, x, r))
    }

    fn fminmax(&mut self, fam: &str, a: Value<'a>, b: Value<'a>) -> Value<'a> {
        use Opcode::*;
        let (lt, nan_first) = match fam {
            "minnum" | "minimum" => (RealPred::LLVMRealOLT, fam == "minimum"),
            _ => (RealPred::LLVMRealOGT, fam == "maximum"),
        };
        let c = self.b.fcmp(lt, a, b);
        let pick = self.b.select(c, a, b);
        if nan_first {
            // minimum/maximum: a NaN operand gives NaN.
            let uno = self.b.fcmp(RealPred::LLVMRealUNO, a, b);
            let nan = self.b.binop(LLVMFAdd, a, b);
            return self.b.select(uno, nan, pick);
        }
        // minnum/maxnum: a NaN operand gives the other.
        let b_nan = self.b.fcmp(RealPred::LLVMRealUNO, b, b);
        self.b.select(b_nan, a, pick)
    }

    /// `llvm.vector.reduce.*`: the elements combined in order (the start value first, for
    /// the floating-point sums and products).
    fn reduce(&mut self, i: Value<'a>, op: &str) -> R<Vals<'a>> {
        use Opcode::*;
        let n = i.arg_count();
        let v = i.arg(n - 1);
        let x = self.get(v)?;
        let mut xs = self.elements(&x, v.ty())?;
        let (et, _) = v.ty().vector().ok_or("a reduction of a non-vector")?;
        if n == 2 {
            xs.insert(0, self.one(i.arg(0))?);
        }
        let mut acc = xs[0];
        for &y in &xs[1..] {
            acc = match op {
                "add" | "fadd" => {
                    self.b
                        .binop(if op == "add" { LLVMAdd } else { LLVMFAdd }, acc, y)
                }
                "mul" | "fmul" => {
                    self.b
                        .binop(if op == "mul" { LLVMMul } else { LLVMFMul }, acc, y)
                }
                "and" => self.b.binop(LLVMAnd, acc, y),
                "or" => self.b.binop(LLVMOr, acc, y),
                "xor" => self.b.binop(LLVMXor, acc, y),
                "smax" | "smin" | "umax" | "umin" => {
                    let p = min_max_pred(op);
                    let c = self.scalar_icmp(p, et, acc, y)?;
                    self.b.select(c, acc, y)
                }
                "fmax" => self.fminmax("maxnum", acc, y),
                "fmin" => self.fminmax("minnum", acc, y),
                _ => return Err(format!("the reduction llvm.vector.reduce.{op}")),
            };
        }
        Ok(Vals::One(acc))
    }

    /// `powi(x, n)`: repeated squaring, in a loop of its own.
    fn powi(&mut self, i: Value<'a>) -> R<Vals<'a>> {
        use Opcode::*;
        let tys = self.lw.tys;
        let t = i.ty();
        if !matches!(t.kind(), TypeKind::Float | TypeKind::Double) {
            return Err(format!("powi of {}", t.text()));
        }
        let x = self.one(i.arg(0))?;
        let n = self.one(i.arg(1))?;
        let entry = self.b.block();
        let head = self.new_block();
        let body = self.new_block();
        let done = self.new_block();
        let zero = tys.const_i32(0);
        let neg = self.b.icmp(pred::LLVMIntSLT, n, zero);
        let mn = self.b.binop(LLVMSub, zero, n);
        let u = self.b.select(neg, mn, n);
        self.b.br(head);
        self.b.position_at_end(head);
        let (acc, base, k) = (self.b.phi(t), self.b.phi(t), self.b.phi(tys.i32()));
        self.b.add_incoming(acc, tys.const_f64(t, 1.0), entry);
        self.b.add_incoming(base, x, entry);
        self.b.add_incoming(k, u, entry);
        let more = self.b.icmp(pred::LLVMIntNE, k, zero);
        self.b.cond_br(more, body, done);
        self.b.position_at_end(body);
        let bit = self.b.binop(LLVMAnd, k, tys.const_i32(1));
        let odd = self.b.icmp(pred::LLVMIntNE, bit, zero);
        let m = self.b.binop(LLVMFMul, acc, base);
        let acc2 = self.b.select(odd, m, acc);
        let base2 = self.b.binop(LLVMFMul, base, base);
        let k2 = self.b.binop(LLVMLShr, k, tys.const_i32(1));
        self.b.add_incoming(acc, acc2, body);
        self.b.add_incoming(base, base2, body);
        self.b.add_incoming(k, k2, body);
        self.b.br(head);
        self.b.position_at_end(done);
        let inv = self.b.binop(LLVMFDiv, tys.const_f64(t, 1.0), acc);
        Ok(Vals::One(self.b.select(neg, inv, acc)))
    }
}

impl<'a> Fx<'a, '_> {
    /// `op (l.0 l.1 l.2) (r.0 r.1 r.2)`: two binary operations, then `op` of their results
    /// (made in that order).
    fn combine(
        &self,
        op: Opcode,
        l: (Opcode, Value<'a>, Value<'a>),
        r: (Opcode, Value<'a>, Value<'a>),
    ) -> Value<'a> {
        let p = self.b.binop(l.0, l.1, l.2);
        let q = self.b.binop(r.0, r.1, r.2);
        self.b.binop(op, p, q)
    }
}

/// The comparison that picks the first of two values for `umax`, `umin`, `smax` or `smin`.
fn min_max_pred(op: &str) -> IntPred {
    match op {
        "umax" => pred::LLVMIntUGT,
        "umin" => pred::LLVMIntULT,
        "smax" => pred::LLVMIntSGT,
        _ => pred::LLVMIntSLT,
    }
}
