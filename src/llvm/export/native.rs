//! The targets that run code, x86-32 and ARM (and, through `wasm32.rs`, WebAssembly):
//! the PNaCl intrinsics lowered to LLVM 14 instructions and intrinsics and to the
//! runtime's `__pnacl_*` functions (runtime.md §4), every symbol given a private name
//! (runtime.md §4.9), and the runtime's entry into `_start`.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate};

use super::{cstr, one_thread, Call, ExportError, Exporter, Lowering, EMPTY, R};
use crate::ir::intrinsics::Kind;
use crate::ir::ValueType;
use crate::llvm::target::runtime;

/// The lowering of a target that runs code: x86-32 and ARM (`X86_ARM`), and WebAssembly
/// (`wasm32::WASM32`), which differ only in what setjmp and longjmp become.
pub(super) struct Native {
    /// The functions `llvm.nacl.setjmp` (`i32 (i8*)`, returns twice) and
    /// `llvm.nacl.longjmp` (`void (i8*, i32)`, does not return) become calls of.
    pub setjmp: &'static str,
    pub longjmp: &'static str,
}

/// x86-32 and ARM: setjmp and longjmp are the runtime's (arch_*.S).
pub(super) const X86_ARM: Native = Native {
    setjmp: runtime::SETJMP,
    longjmp: runtime::LONGJMP,
};

impl Lowering for Native {
    /// A private name, so that nothing in the pexe can bind a libc or runtime symbol,
    /// with the index to keep it unique whatever the pexe calls it.
    fn symbol_name(&self, name: Option<&[u8]>, kind: char, index: usize) -> String {
        match name {
            Some(n) => format!("__pexe_{kind}{index}.{}", String::from_utf8_lossy(n)),
            None => format!("__pexe_{kind}{index}"),
        }
    }

    fn keeps_intrinsics(&self) -> bool {
        false
    }

    /// Registers for arguments and results (on x86-32, a double comes back in an SSE
    /// register, not through the x87 stack), for every function the runtime never calls.
    fn fast_calls(&self) -> bool {
        true
    }

    fn normal_form(&self) -> bool {
        false
    }

    /// Nothing unwinds through pexe code (C++ exceptions were lowered to setjmp/longjmp):
    /// no unwind tables, no personality routines on ARM.
    fn function_attributes(&self, x: &Exporter, f: LLVMValueRef) {
        let nu = x.enum_attr("nounwind", 0);
        // SAFETY: handles of the exporter's live context and module (see `Exporter`).
        unsafe { LLVMAddAttributeAtIndex(f, u32::MAX, nu) };
    }

    fn intrinsic_call(&self, x: &mut Exporter, c: &mut Call) -> R<LLVMValueRef> {
        // SAFETY: handles of the exporter's live context and module (see `Exporter`);
        // each value has the type its instruction takes (the reader and the ABI's
        // intrinsic table fix the pexe's types).
        unsafe {
            let order = |x: &Exporter, c: &Call, k: usize| -> R<LLVMAtomicOrdering> {
                let v = c.constant(x, k, "memory order")?;
                memory_order(v).ok_or_else(|| ExportError {
                    pos: c.pos,
                    msg: format!("{}: invalid memory order {v}", c.intr.name),
                })
            };
            let rt = x.ty(c.ret);
            Ok(match c.intr.kind {
                Kind::Bswap | Kind::Ctpop | Kind::Sqrt | Kind::Fabs => {
                    let name = match c.intr.kind {
                        Kind::Bswap => "llvm.bswap",
                        Kind::Ctpop => "llvm.ctpop",
                        Kind::Sqrt => "llvm.sqrt",
                        _ => "llvm.fabs",
                    };
                    let (f, fty) = x.llvm_intrinsic_named(name, &[rt]);
                    let mut vs = [x.value(c.st, c.args[0])];
                    LLVMBuildCall2(x.b, fty, f, vs.as_mut_ptr(), 1, EMPTY)
                }
                Kind::Ctlz | Kind::Cttz => {
                    let name = if c.intr.kind == Kind::Ctlz {
                        "llvm.ctlz"
                    } else {
                        "llvm.cttz"
                    };
                    let (f, fty) = x.llvm_intrinsic_named(name, &[rt]);
                    // is_zero_undef = false: a zero input gives the bit width (runtime.md §4.7).
                    let mut vs = [x.value(c.st, c.args[0]), LLVMConstInt(x.i1, 0, 0)];
                    LLVMBuildCall2(x.b, fty, f, vs.as_mut_ptr(), 2, EMPTY)
                }
                Kind::ReadTp => {
                    let (f, fty) = x.runtime_fn(runtime::READ_TP, x.i32, &[]);
                    LLVMBuildCall2(x.b, fty, f, std::ptr::null_mut(), 0, EMPTY)
                }
                Kind::Setjmp => {
                    let (f, fty) = x.runtime_fn(self.setjmp, x.i32, &[x.i8p]);
                    let rt2 = x.enum_attr("returns_twice", 0);
                    LLVMAddAttributeAtIndex(f, u32::MAX, rt2);
                    let mut vs = [x.pointer(c.st, c.args[0], x.i8)];
                    let c = LLVMBuildCall2(x.b, fty, f, vs.as_mut_ptr(), 1, EMPTY);
                    LLVMAddCallSiteAttribute(c, u32::MAX, rt2);
                    c
                }
                Kind::Longjmp => {
                    let (f, fty) = x.runtime_fn(self.longjmp, x.void, &[x.i8p, x.i32]);
                    let nr = x.enum_attr("noreturn", 0);
                    LLVMAddAttributeAtIndex(f, u32::MAX, nr);
                    let mut vs = [x.pointer(c.st, c.args[0], x.i8), x.value(c.st, c.args[1])];
                    LLVMBuildCall2(x.b, fty, f, vs.as_mut_ptr(), 2, EMPTY)
                }
                Kind::AtomicLoad => {
                    let ord = order(x, c, 1)?;
                    let p = x.pointer(c.st, c.args[0], rt);
                    let l = LLVMBuildLoad2(x.b, rt, p, EMPTY);
                    LLVMSetOrdering(l, load_order(ord));
                    LLVMSetAlignment(l, c.ret.store_size());
                    l
                }
                Kind::AtomicStore => {
                    let ord = order(x, c, 2)?;
                    let v = x.value(c.st, c.args[0]);
                    let vt = c.intr.params[0].pexe();
                    let p = x.pointer(c.st, c.args[1], x.ty(vt));
                    let ord = store_order(ord);
                    let seq_cst = LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent;
                    if x.target.spec().ordered_stores && ord != seq_cst {
                        // The plain store already (an unlock): no test of the threads.
                        let s = LLVMBuildStore(x.b, v, p);
                        LLVMSetOrdering(s, ord);
                        LLVMSetAlignment(s, vt.store_size());
                        return Ok(s);
                    }
                    let op = one_thread::Op::Store(ord);
                    one_thread::call(x, op, vt.bits(), vt.store_size(), &mut [p, v])
                }
                Kind::AtomicRmw => {
                    let op = c.constant(x, 0, "operation")?;
                    let ord = order(x, c, 3)?;
                    let op = rmw_op(op).ok_or_else(|| ExportError {
                        pos: c.pos,
                        msg: format!(
                            "{}: invalid atomic read-modify-write operation {op}",
                            c.intr.name
                        ),
                    })?;
                    let p = x.pointer(c.st, c.args[1], rt);
                    let v = x.value(c.st, c.args[2]);
                    let op = one_thread::Op::Rmw(op, ord);
                    one_thread::call(x, op, c.ret.bits(), c.ret.store_size(), &mut [p, v])
                }
                Kind::AtomicCmpxchg => {
                    let succ = order(x, c, 3)?;
                    let fail = order(x, c, 4)?;
                    let p = x.pointer(c.st, c.args[0], rt);
                    let (e, d) = (x.value(c.st, c.args[1]), x.value(c.st, c.args[2]));
                    let op =
                        one_thread::Op::Cmpxchg(cmpxchg_success(succ), cmpxchg_failure(succ, fail));
                    one_thread::call(x, op, c.ret.bits(), c.ret.store_size(), &mut [p, e, d])
                }
                Kind::AtomicFence => {
                    let ord = order(x, c, 0)?;
                    if ord == LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic {
                        // A relaxed fence orders nothing.
                        return Ok(std::ptr::null_mut());
                    }
                    let op = one_thread::Op::Fence(ord);
                    one_thread::call(x, op, 0, 0, &mut [])
                }
                Kind::AtomicFenceAll => {
                    // PNaCl's expansion: a compiler barrier, a seq_cst fence, a barrier.
                    compiler_barrier(x);
                    let op = one_thread::Op::Fence(
                        LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
                    );
                    let f = one_thread::call(x, op, 0, 0, &mut []);
                    compiler_barrier(x);
                    f
                }
                Kind::AtomicIsLockFree => match c.const_int(x, 0) {
                    Some(n) => LLVMConstInt(x.i1, matches!(n, 1 | 2 | 4 | 8) as u64, 0),
                    None => {
                        let n = x.value(c.st, c.args[0]);
                        LLVMBuildICmp(
                            x.b,
                            LLVMIntPredicate::LLVMIntULE,
                            n,
                            LLVMConstInt(x.i32, 8, 0),
                            EMPTY,
                        )
                    }
                },
                Kind::Memcpy
                | Kind::Memmove
                | Kind::Memset
                | Kind::StackSave
                | Kind::StackRestore
                | Kind::Trap => {
                    unreachable!()
                }
            })
        }
    }

    fn finish(&self, x: &mut Exporter) {
        if x.owns_globals() {
            entry_thunk(x);
        }
    }
}

/// An empty inline assembly statement that clobbers memory: nothing moves across it.
fn compiler_barrier(x: &mut Exporter) {
    // SAFETY: handles of the exporter's live context and module (see `Exporter`); the
    // constraint string outlives the call, which copies it.
    unsafe {
        let fty = LLVMFunctionType(x.void, std::ptr::null_mut(), 0, 0);
        let clob = "~{memory}";
        let asm = LLVMGetInlineAsm(
            fty,
            EMPTY as *mut _,
            0,
            clob.as_ptr() as *mut _,
            clob.len(),
            1,
            0,
            llvm_sys::LLVMInlineAsmDialect::LLVMInlineAsmDialectATT,
            0,
        );
        LLVMBuildCall2(x.b, fty, asm, std::ptr::null_mut(), 0, EMPTY);
    }
}

/// `void __pnacl_entry(i32 info)`: calls `_start` with its real type (runtime.md §1.1).
fn entry_thunk(x: &mut Exporter) {
    let Some(start) = x.m.function_named("_start") else {
        return;
    };
    let llfn = x.fn_value(start as usize);
    if llfn.is_null() {
        return;
    }
    // SAFETY: handles of the exporter's live context and module (see `Exporter`); the
    // arguments have `_start`'s parameter types.
    unsafe {
        let mut p = [x.i32];
        let fty = LLVMFunctionType(x.void, p.as_mut_ptr(), 1, 0);
        let f = LLVMAddFunction(x.module, cstr(runtime::ENTRY).as_ptr(), fty);
        LLVMAddAttributeAtIndex(f, u32::MAX, x.enum_attr("nounwind", 0));
        let bb = LLVMAppendBasicBlockInContext(x.ctx, f, EMPTY);
        LLVMPositionBuilderAtEnd(x.b, bb);
        let sig = x.m.fn_type(start);
        let info = LLVMGetParam(f, 0);
        let mut args: Vec<LLVMValueRef> = sig
            .params
            .iter()
            .enumerate()
            .map(|(k, t)| {
                if k == 0 && *t == ValueType::I32 {
                    info
                } else {
                    LLVMConstNull(x.ty(*t))
                }
            })
            .collect();
        LLVMBuildCall2(
            x.b,
            x.fn_types[start as usize],
            llfn,
            args.as_mut_ptr(),
            args.len() as u32,
            EMPTY,
        );
        LLVMBuildRetVoid(x.b);
    }
}

/// PNaCl memory orders (NaClAtomicIntrinsics.h; runtime.md §4.1): 1 relaxed, 2 consume,
/// 3 acquire, 4 release, 5 acq_rel, 6 seq_cst.
fn memory_order(v: u64) -> Option<LLVMAtomicOrdering> {
    use LLVMAtomicOrdering::*;
    Some(match v {
        1 => LLVMAtomicOrderingMonotonic,
        2 | 3 => LLVMAtomicOrderingAcquire,
        4 => LLVMAtomicOrderingRelease,
        5 => LLVMAtomicOrderingAcquireRelease,
        6 => LLVMAtomicOrderingSequentiallyConsistent,
        _ => return None,
    })
}

/// Loads cannot be release or acq_rel in LLVM: keep their acquire half.
fn load_order(o: LLVMAtomicOrdering) -> LLVMAtomicOrdering {
    use LLVMAtomicOrdering::*;
    match o {
        LLVMAtomicOrderingRelease => LLVMAtomicOrderingMonotonic,
        LLVMAtomicOrderingAcquireRelease => LLVMAtomicOrderingAcquire,
        o => o,
    }
}

/// Stores cannot be acquire or acq_rel: keep their release half.
fn store_order(o: LLVMAtomicOrdering) -> LLVMAtomicOrdering {
    use LLVMAtomicOrdering::*;
    match o {
        LLVMAtomicOrderingAcquire => LLVMAtomicOrderingMonotonic,
        LLVMAtomicOrderingAcquireRelease => LLVMAtomicOrderingRelease,
        o => o,
    }
}

fn cmpxchg_success(o: LLVMAtomicOrdering) -> LLVMAtomicOrdering {
    o
}

/// The failure order: no release half, and no stronger than the success order.
fn cmpxchg_failure(succ: LLVMAtomicOrdering, fail: LLVMAtomicOrdering) -> LLVMAtomicOrdering {
    use LLVMAtomicOrdering::*;
    let strip = |o| match o {
        LLVMAtomicOrderingRelease => LLVMAtomicOrderingMonotonic,
        LLVMAtomicOrderingAcquireRelease => LLVMAtomicOrderingAcquire,
        o => o,
    };
    let rank = |o| match o {
        LLVMAtomicOrderingMonotonic => 1,
        LLVMAtomicOrderingAcquire => 2,
        LLVMAtomicOrderingSequentiallyConsistent => 3,
        _ => 0,
    };
    let (s, f) = (strip(succ), strip(fail));
    if rank(f) > rank(s) {
        s
    } else {
        f
    }
}

/// PNaCl read-modify-write operations: 1 add, 2 sub, 3 or, 4 and, 5 xor, 6 exchange.
fn rmw_op(v: u64) -> Option<LLVMAtomicRMWBinOp> {
    use LLVMAtomicRMWBinOp::*;
    Some(match v {
        1 => LLVMAtomicRMWBinOpAdd,
        2 => LLVMAtomicRMWBinOpSub,
        3 => LLVMAtomicRMWBinOpOr,
        4 => LLVMAtomicRMWBinOpAnd,
        5 => LLVMAtomicRMWBinOpXor,
        6 => LLVMAtomicRMWBinOpXchg,
        _ => return None,
    })
}
