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
//! A store that is plain already (release or weaker on x86: `target::Spec::ordered_stores`)
//! needs no helper and is made as it is (`native.rs`).

use llvm_sys::core::LLVMBuildCall2;
use llvm_sys::prelude::LLVMValueRef;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp};

use super::{Exporter, EMPTY};
use crate::llvm::edit::{self, IntPred, Linkage, Opcode, Value};
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

/// A call of `op`'s helper for `bits`-bit integers (0 for a fence) at alignment `align`,
/// with `args`, built where the exporter's builder is.
pub(super) fn call(
    x: &mut Exporter,
    op: Op,
    bits: u32,
    align: u32,
    args: &mut [LLVMValueRef],
) -> LLVMValueRef {
    let (f, fty) = helper(x, op, bits, align);
    // SAFETY: handles of the exporter's live context and module (see `Exporter`); the
    // arguments have the helper's parameter types (the caller's pointer and values).
    unsafe { LLVMBuildCall2(x.b, fty, f, args.as_mut_ptr(), args.len() as u32, EMPTY) }
}

/// The helper for `op` (made once a module, in the module's typed layer): the plain
/// operation while `__pnacl_threads` is 0, the atomic one after.
fn helper(
    x: &mut Exporter,
    op: Op,
    bits: u32,
    align: u32,
) -> (LLVMValueRef, llvm_sys::prelude::LLVMTypeRef) {
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
    let m = x.edit;
    let types = m.types();
    let (i32t, void) = (types.i32(), types.void());
    let ty = types.int(bits.max(1));
    let (ret, params) = match op {
        Op::Rmw(..) => (ty, vec![ty.ptr(), ty]),
        Op::Cmpxchg(..) => (ty, vec![ty.ptr(), ty, ty]),
        Op::Store(_) => (void, vec![ty.ptr(), ty]),
        Op::Fence(_) => (void, vec![]),
    };
    let fty = types.function(ret, &params, false);
    let f = m.add_function(&name, fty);
    f.set_linkage(Linkage::LLVMInternalLinkage);
    f.add_fn_attr(u32::MAX, "alwaysinline");
    f.add_fn_attr(u32::MAX, "nounwind");
    let threads = threads_flag(m);
    let b = m.builder();
    let entry = m.append_block(f, "");
    let plain = m.append_block(f, "");
    let atomic = m.append_block(f, "");
    b.position_at_end(entry);
    let n = b.load(i32t, threads, 4);
    let one = b.icmp(IntPred::LLVMIntEQ, n, types.const_int(i32t, 0));
    b.cond_br(one, plain, atomic);
    let p = f.params();
    // One thread: the plain operation.
    b.position_at_end(plain);
    let old = || b.load(ty, p[0], align);
    match op {
        Op::Rmw(o, _) => {
            use LLVMAtomicRMWBinOp::*;
            let old = old();
            let v = p[1];
            let new = match o {
                LLVMAtomicRMWBinOpAdd => b.binop(Opcode::LLVMAdd, old, v),
                LLVMAtomicRMWBinOpSub => b.binop(Opcode::LLVMSub, old, v),
                LLVMAtomicRMWBinOpOr => b.binop(Opcode::LLVMOr, old, v),
                LLVMAtomicRMWBinOpAnd => b.binop(Opcode::LLVMAnd, old, v),
                LLVMAtomicRMWBinOpXor => b.binop(Opcode::LLVMXor, old, v),
                _ => v, // exchange
            };
            b.store(new, p[0], align);
            b.ret(Some(old));
        }
        Op::Cmpxchg(..) => {
            let old = old();
            let same = b.icmp(IntPred::LLVMIntEQ, old, p[1]);
            let new = b.select(same, p[2], old);
            b.store(new, p[0], align);
            b.ret(Some(old));
        }
        Op::Store(_) => {
            b.store(p[1], p[0], align);
            b.ret(None);
        }
        Op::Fence(_) => {
            b.ret(None);
        }
    }
    // More than one: the atomic operation.
    b.position_at_end(atomic);
    match op {
        Op::Rmw(o, ord) => {
            let r = b.atomic_rmw(o, p[0], p[1], ord, align);
            b.ret(Some(r));
        }
        Op::Cmpxchg(s, fl) => {
            let old = b.cmpxchg(p[0], p[1], p[2], (s, fl), align);
            b.ret(Some(old));
        }
        Op::Store(ord) => {
            b.atomic_store(p[1], p[0], ord, align);
            b.ret(None);
        }
        Op::Fence(ord) => {
            b.fence(ord);
            b.ret(None);
        }
    }
    let d = (f.as_raw(), fty.as_raw());
    x.decls.insert(name, d);
    d
}

/// `@__pnacl_threads`, the runtime's (an external i32 of the same program: hidden, so that
/// position-independent code reaches it directly, not through the GOT), declared once.
fn threads_flag(m: edit::Module<'_>) -> Value<'_> {
    m.global(runtime::THREADS).unwrap_or_else(|| {
        let g = m.add_global(m.types().i32(), runtime::THREADS);
        g.set_linkage(Linkage::LLVMExternalLinkage);
        g.set_visibility(llvm_sys::LLVMVisibility::LLVMHiddenVisibility);
        g
    })
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
