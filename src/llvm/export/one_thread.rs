//! Atomic operations that cost nothing while the process has one thread.
//!
//! A pexe's atomic read-modify-write, compare-exchange, store and fence are sequentially
//! consistent: a bus-locked instruction on x86 (`lock xadd`, `lock cmpxchg`, `xchg`,
//! `mfence`), barriers on ARM (`dmb`), and in WebAssembly what the engine makes of them
//! (V8: the same locked instructions). Newlib's allocator takes a lock at every `malloc`
//! and `free`, so a program of one thread paid for them at each (binarytrees: most of its
//! time). While the process has one thread, nothing can see the difference between an
//! atomic operation and the plain one: so each becomes a call of a small internal function
//! (inlined) that tests the runtime's `__pnacl_threads` (`runtime::THREADS`) and takes the
//! plain path while it is 0. The runtime sets it, for good, before the pexe's second
//! thread starts (`irt_thread_create`; the creating thread is the only one, and a new
//! thread starts after the store), and for a thread of its own that runs pexe code (a
//! plugin's sound); the threads it keeps for itself never touch what the pexe's atomics do.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMLinkage};

use super::{cstr, Exporter, EMPTY};
use crate::llvm::target::runtime;

/// What an atomic operation does, for its helper.
#[derive(Clone, Copy)]
pub(super) enum Op {
    /// `iN (iN* p, iN v)`: the old value; `*p = old op v`.
    Rmw(LLVMAtomicRMWBinOp, LLVMAtomicOrdering),
    /// `iN (iN* p, iN expected, iN desired)`: the old value; `*p = desired` if it was
    /// `expected`.
    Cmpxchg(LLVMAtomicOrdering, LLVMAtomicOrdering),
    /// `void (iN* p, iN v)`.
    Store(LLVMAtomicOrdering),
    /// `void ()`.
    Fence(LLVMAtomicOrdering),
}

/// A call of `op`'s helper for values of type `ty` (null for a fence) with `args`, built
/// where the exporter's builder is.
pub(super) fn call(
    x: &mut Exporter,
    op: Op,
    ty: LLVMTypeRef,
    align: u32,
    args: &mut [LLVMValueRef],
) -> LLVMValueRef {
    let (f, fty) = helper(x, op, ty, align);
    // SAFETY: handles of the exporter's live context and module (see `Exporter`); the
    // arguments have the helper's parameter types (the caller's pointer and values).
    unsafe { LLVMBuildCall2(x.b, fty, f, args.as_mut_ptr(), args.len() as u32, EMPTY) }
}

fn helper(x: &mut Exporter, op: Op, ty: LLVMTypeRef, align: u32) -> (LLVMValueRef, LLVMTypeRef) {
    // SAFETY: as in `call`; the helper is built with a builder of its own, which is
    // disposed of before returning, and the exporter's builder is left where it was.
    unsafe {
        let bits = if ty.is_null() {
            0
        } else {
            LLVMGetIntTypeWidth(ty)
        };
        let name = match op {
            Op::Rmw(o, ord) => format!(
                "__pnacl_one_thread.{}.{}.i{bits}",
                rmw_name(o),
                order_name(ord)
            ),
            Op::Cmpxchg(s, f) => format!(
                "__pnacl_one_thread.cmpxchg.{}.{}.i{bits}",
                order_name(s),
                order_name(f)
            ),
            Op::Store(ord) => format!("__pnacl_one_thread.store.{}.i{bits}", order_name(ord)),
            Op::Fence(ord) => format!("__pnacl_one_thread.fence.{}", order_name(ord)),
        };
        if let Some(d) = x.decls.get(&name) {
            return *d;
        }
        let ptr = if ty.is_null() {
            ty
        } else {
            LLVMPointerType(ty, 0)
        };
        let (ret, mut params) = match op {
            Op::Rmw(..) => (ty, vec![ptr, ty]),
            Op::Cmpxchg(..) => (ty, vec![ptr, ty, ty]),
            Op::Store(_) => (x.void, vec![ptr, ty]),
            Op::Fence(_) => (x.void, vec![]),
        };
        let fty = LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, 0);
        let f = LLVMAddFunction(x.module, cstr(&name).as_ptr(), fty);
        LLVMSetLinkage(f, LLVMLinkage::LLVMInternalLinkage);
        LLVMAddAttributeAtIndex(f, u32::MAX, x.enum_attr("alwaysinline", 0));
        LLVMAddAttributeAtIndex(f, u32::MAX, x.enum_attr("nounwind", 0));
        let threads = threads_flag(x);
        let b = LLVMCreateBuilderInContext(x.ctx);
        let entry = LLVMAppendBasicBlockInContext(x.ctx, f, EMPTY);
        let plain = LLVMAppendBasicBlockInContext(x.ctx, f, EMPTY);
        let atomic = LLVMAppendBasicBlockInContext(x.ctx, f, EMPTY);
        LLVMPositionBuilderAtEnd(b, entry);
        let n = LLVMBuildLoad2(b, x.i32, threads, EMPTY);
        LLVMSetAlignment(n, 4);
        let one = LLVMBuildICmp(
            b,
            LLVMIntPredicate::LLVMIntEQ,
            n,
            LLVMConstInt(x.i32, 0, 0),
            EMPTY,
        );
        LLVMBuildCondBr(b, one, plain, atomic);
        let p = |k: u32| LLVMGetParam(f, k);
        let load = |b: LLVMBuilderRef| {
            let l = LLVMBuildLoad2(b, ty, p(0), EMPTY);
            LLVMSetAlignment(l, align);
            l
        };
        let store = |b: LLVMBuilderRef, v: LLVMValueRef| {
            let s = LLVMBuildStore(b, v, p(0));
            LLVMSetAlignment(s, align);
        };
        // One thread: the plain operation.
        LLVMPositionBuilderAtEnd(b, plain);
        match op {
            Op::Rmw(o, _) => {
                use LLVMAtomicRMWBinOp::*;
                let old = load(b);
                let v = p(1);
                let new = match o {
                    LLVMAtomicRMWBinOpAdd => LLVMBuildAdd(b, old, v, EMPTY),
                    LLVMAtomicRMWBinOpSub => LLVMBuildSub(b, old, v, EMPTY),
                    LLVMAtomicRMWBinOpOr => LLVMBuildOr(b, old, v, EMPTY),
                    LLVMAtomicRMWBinOpAnd => LLVMBuildAnd(b, old, v, EMPTY),
                    LLVMAtomicRMWBinOpXor => LLVMBuildXor(b, old, v, EMPTY),
                    _ => v, // exchange
                };
                store(b, new);
                LLVMBuildRet(b, old);
            }
            Op::Cmpxchg(..) => {
                let old = load(b);
                let same = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntEQ, old, p(1), EMPTY);
                let new = LLVMBuildSelect(b, same, p(2), old, EMPTY);
                store(b, new);
                LLVMBuildRet(b, old);
            }
            Op::Store(_) => {
                store(b, p(1));
                LLVMBuildRetVoid(b);
            }
            Op::Fence(_) => {
                LLVMBuildRetVoid(b);
            }
        }
        // More than one: the atomic operation.
        LLVMPositionBuilderAtEnd(b, atomic);
        match op {
            Op::Rmw(o, ord) => {
                let r = LLVMBuildAtomicRMW(b, o, p(0), p(1), ord, 0);
                LLVMSetAlignment(r, align);
                LLVMBuildRet(b, r);
            }
            Op::Cmpxchg(s, fl) => {
                let pair = LLVMBuildAtomicCmpXchg(b, p(0), p(1), p(2), s, fl, 0);
                LLVMSetAlignment(pair, align);
                let old = LLVMBuildExtractValue(b, pair, 0, EMPTY);
                LLVMBuildRet(b, old);
            }
            Op::Store(ord) => {
                let s = LLVMBuildStore(b, p(1), p(0));
                LLVMSetOrdering(s, ord);
                LLVMSetAlignment(s, align);
                LLVMBuildRetVoid(b);
            }
            Op::Fence(ord) => {
                LLVMBuildFence(b, ord, 0, EMPTY);
                LLVMBuildRetVoid(b);
            }
        }
        LLVMDisposeBuilder(b);
        x.decls.insert(name, (f, fty));
        (f, fty)
    }
}

/// `@__pnacl_threads`, the runtime's (an external i32), declared once.
fn threads_flag(x: &mut Exporter) -> LLVMValueRef {
    // SAFETY: handles of the exporter's live context and module (see `Exporter`).
    unsafe {
        let name = cstr(runtime::THREADS);
        let g = LLVMGetNamedGlobal(x.module, name.as_ptr());
        if !g.is_null() {
            return g;
        }
        let g = LLVMAddGlobal(x.module, x.i32, name.as_ptr());
        LLVMSetLinkage(g, LLVMLinkage::LLVMExternalLinkage);
        g
    }
}

fn rmw_name(o: LLVMAtomicRMWBinOp) -> &'static str {
    use LLVMAtomicRMWBinOp::*;
    match o {
        LLVMAtomicRMWBinOpAdd => "add",
        LLVMAtomicRMWBinOpSub => "sub",
        LLVMAtomicRMWBinOpOr => "or",
        LLVMAtomicRMWBinOpAnd => "and",
        LLVMAtomicRMWBinOpXor => "xor",
        LLVMAtomicRMWBinOpXchg => "xchg",
        _ => "other",
    }
}

fn order_name(o: LLVMAtomicOrdering) -> &'static str {
    use LLVMAtomicOrdering::*;
    match o {
        LLVMAtomicOrderingMonotonic => "monotonic",
        LLVMAtomicOrderingAcquire => "acquire",
        LLVMAtomicOrderingRelease => "release",
        LLVMAtomicOrderingAcquireRelease => "acq_rel",
        LLVMAtomicOrderingSequentiallyConsistent => "seq_cst",
        _ => "other",
    }
}
