//! Resume points, for WebAssembly: how a function that runs one long loop reaches V8's
//! optimized code without on-stack replacement.
//!
//! V8 compiles each WebAssembly function with its baseline compiler (Liftoff) when it is
//! first called, and with its optimizing compiler (TurboFan) once the function has run
//! enough; later calls run the optimized code, but a call already running stays in the
//! baseline code to its end (V8 has no on-stack replacement for WebAssembly). A program
//! whose time goes to one call (a loop in `main`) would run all of it in baseline code,
//! about twice as slow; the optimizing compiler for everything from the start makes every
//! program's start-up pay for compiling what it runs once (newlib's `printf`: 25 ms).
//!
//! So the header of a function's largest outermost loop becomes a point where a call that
//! has looped long enough hands its state to a new call of the same function, which V8
//! has optimized by then or will have at a later hand-over. A counter of the call's own
//! counts down at every loop header of the function (inner loops' too); each time it has
//! run `FIRST` headers out at outermost header `k`, the call stores what is live there (the
//! header's phis, and the values defined before it that the code from there on uses)
//! below its frame, puts their address in the thread's `__pnacl_resume` (a WebAssembly
//! global, each thread's instance its own: runtime/arch_wasm32.S), and tail-calls the
//! function (WebAssembly's `return_call`, enabled for these functions alone). The
//! function's entry looks at `__pnacl_resume` first: when set, it clears it and goes to
//! header `k` with the stored state instead of running from the start. The values live
//! at a header go through stack slots that `mem2reg` turns back into registers
//! (`codegen::resume_points`), with the phis the new entries need. A hand-over costs a
//! few hundred instructions every `FIRST` headers, and no stack: the new call's frame is
//! where the old one's was, with the same layout, so the allocas' addresses in the state
//! are the new call's own and their contents are still there. Only outermost headers
//! hand over, and of those only the largest (`MAX_POINTS`). The thread's `__pnacl_handovers`
//! counts them (`PNACL_STATS=1` makes the runtime say how many at the end).
//!
//! An allocation at the entry of a size computed as the call runs (a C array of variable
//! length) is made again, of the size stored, before the new call goes on: in the same
//! order after the same frame, it gets the same address, and its contents are still there.
//!
//! Left as they are: functions whose largest loop is a small part of them
//! (`MIN_LOOP_SHARE`), functions that call `setjmp` (its lowering keeps state per frame),
//! that allocate on the stack other than at their entry (the tail call would free it, and
//! nothing says how often to allocate again), whose state would pass `STATE_BUDGET`, and
//! loops with no header that dominates them (irreducible control flow). And every function
//! at -O0, whose instruction selection makes no tail calls (`translate`).

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};
use llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};

use super::ffi::{self, cstr};
use crate::ir::dom::Dominators;

/// The global that says a call is a resumption, and of what (runtime/arch_wasm32.S).
pub const RESUME_GLOBAL: &str = "__pnacl_resume";
/// The thread's count of hand-overs (runtime/arch_wasm32.S; `PNACL_STATS=1` shows it).
pub const COUNT_GLOBAL: &str = "__pnacl_handovers";
/// The stack pointer's global (LLVM's WebAssembly code generation keeps it there).
const STACK_POINTER: &str = "__stack_pointer";
/// Headers a call passes between hand-overs.
pub const FIRST: u32 = 1 << 14;
/// Bytes of state beyond which a function is left as it is: the state is stack, for a
/// moment, that the program did not know it would use (a thread's stack is the size the
/// program gave).
pub const STATE_BUDGET: u64 = 512;
/// Headers beyond which a function is left as it is (the code it would add).
const MAX_HEADERS: usize = 512;
/// Outermost loops of a function that hand over at most: the one with the most blocks,
/// which in a program's main loop is the main loop. Every resume point costs code in
/// every function that has one (path_tracer's module: +21% with all its outermost
/// loops, +12% with one; its translation +21% and +13%); a call running another long
/// loop first hands over when it reaches this one, its count long run out.
const MAX_POINTS: usize = 1;
/// A function whose largest outermost loop has fewer than one in `MIN_LOOP_SHARE` of its
/// blocks is left as it is: it is mostly not a loop, and its calls are short. newlib's
/// `malloc` and `free`, whose largest loops are their spin locks' waits (9 of 408 and 215
/// blocks), are called millions of times, and their resume points cost binarytrees about
/// 5% in WebAssembly (paired runs). The benchmarks' long loops are 13% (spectralnorm's
/// `main`) to 74% of their functions' blocks.
const MIN_LOOP_SHARE: usize = 20;
/// Values stored and loaded at all of a function's resume points together beyond which
/// it is left as it is: each costs a load and a store at its point and a phi at each
/// header, which in a large function of many loops (a chess engine's search, called
/// often enough to be optimized as it is) doubled its code.
const MAX_FIELDS: usize = 256;

/// Adds resume points to every function of `module` that has loops (and is not one of
/// those left as they are); returns the functions changed, whose stack slots `mem2reg`
/// must promote.
pub fn add(module: &inkwell::module::Module<'_>) -> Vec<LLVMValueRef> {
    let m = module.as_mut_ptr();
    let mut changed = Vec::new();
    // SAFETY: `m` is a live module the caller owns for the whole call, and every handle
    // used below is one of its values, blocks or types (ffi.rs says why that holds).
    unsafe {
        for f in ffi::functions(m) {
            if LLVMCountBasicBlocks(f) > 0 {
                if let Some(plan) = plan(f) {
                    rewrite(m, f, &plan);
                    changed.push(f);
                }
            }
        }
    }
    changed
}

/// The i32 WebAssembly global `name` (LLVM's address space 1), declared in `m` if it is
/// not yet: the runtime defines it (arch_wasm32.S), or LLVM's code generation does.
unsafe fn wasm_global(m: LLVMModuleRef, name: &str) -> LLVMValueRef {
    let g = LLVMGetNamedGlobal(m, cstr(name).as_ptr());
    if !g.is_null() {
        return g;
    }
    let i32t = LLVMInt32TypeInContext(LLVMGetModuleContext(m));
    LLVMAddGlobalInAddressSpace(m, i32t, cstr(name).as_ptr(), 1)
}

/// What a function's resume points need, from its control flow as it was.
struct Plan {
    /// At least the bytes of the function's frame (its allocas of a constant size, each
    /// perhaps realigned).
    frame: u64,
    /// The entry's allocas of a size computed as it runs, in order, with their sizes.
    dynamic: Vec<(LLVMValueRef, LLVMValueRef)>,
    /// The headers that hand over, each with the values live there beside its own phis
    /// and its state's layout (its number, its phis, those values).
    headers: Vec<(LLVMBasicBlockRef, Vec<LLVMValueRef>, LLVMTypeRef)>,
    /// The largest state's size in bytes.
    size: u64,
    /// The other loop headers: they count, and do not hand over.
    counted: Vec<LLVMBasicBlockRef>,
    /// Every value some header needs that is not one of its own phis: each gets a slot.
    demoted: Vec<LLVMValueRef>,
}

fn blocks(f: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    ffi::blocks(f).collect()
}

fn instructions(b: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    ffi::List::of_block(b).collect()
}

unsafe fn successors(b: LLVMBasicBlockRef) -> Vec<LLVMBasicBlockRef> {
    let t = LLVMGetBasicBlockTerminator(b);
    if t.is_null() {
        return Vec::new();
    }
    (0..LLVMGetNumSuccessors(t))
        .map(|i| LLVMGetSuccessor(t, i))
        .collect()
}

unsafe fn opcode(i: LLVMValueRef) -> LLVMOpcode {
    LLVMGetInstructionOpcode(i)
}

/// Whether `i` calls `setjmp` directly.
unsafe fn calls_setjmp(i: LLVMValueRef) -> bool {
    let c = LLVMGetCalledValue(i);
    !c.is_null() && !LLVMIsAFunction(c).is_null() && ffi::value_name(c) == b"setjmp"
}

/// Whether the entry's alloca `i` is part of the frame: only when its size is an integer
/// constant (one of a constant expression, a global's address, or undef is made as the
/// code runs).
unsafe fn is_static(i: LLVMValueRef) -> bool {
    !LLVMIsAConstantInt(LLVMGetOperand(i, 0)).is_null()
}

/// The resume points `f` gets, or `None` when it is left as it is.
unsafe fn plan(f: LLVMValueRef) -> Option<Plan> {
    let bbs = blocks(f);
    let index: HashMap<LLVMBasicBlockRef, usize> =
        bbs.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let succ: Vec<Vec<u32>> = bbs
        .iter()
        .map(|&b| successors(b).iter().map(|s| index[s] as u32).collect())
        .collect();
    let tree = Dominators::new(&succ);
    let reachable = |b: usize| tree.reachable(b);
    let dominates = |a: usize, b: usize| tree.dominates(a, b);
    // Headers: targets of an edge from a block they dominate.
    let mut is_header = vec![false; bbs.len()];
    for (b, ss) in succ.iter().enumerate() {
        if reachable(b) {
            for s in ss.iter().map(|&s| s as usize) {
                if dominates(s, b) {
                    is_header[s] = true;
                }
            }
        }
    }
    let all: Vec<usize> = (0..bbs.len()).filter(|&b| is_header[b]).collect();
    if all.is_empty() || all.len() > MAX_HEADERS {
        return None;
    }
    // The headers inside another's loop (the blocks that reach one of its back edges
    // without passing it) count; only the outermost hand over.
    let mut pred = vec![Vec::new(); bbs.len()];
    for (b, ss) in succ.iter().enumerate() {
        if reachable(b) {
            for &s in ss {
                pred[s as usize].push(b);
            }
        }
    }
    let mut inner = vec![false; bbs.len()];
    let mut mark = vec![usize::MAX; bbs.len()];
    let mut weight = vec![0usize; bbs.len()];
    for &h in &all {
        mark[h] = h;
        weight[h] = 1;
        let mut stack: Vec<usize> = pred[h]
            .iter()
            .copied()
            .filter(|&p| dominates(h, p) && p != h)
            .collect();
        for &p in &stack {
            mark[p] = h;
        }
        while let Some(b) = stack.pop() {
            weight[h] += 1;
            if is_header[b] {
                inner[b] = true;
            }
            for &p in &pred[b] {
                if mark[p] != h {
                    mark[p] = h;
                    stack.push(p);
                }
            }
        }
    }
    // The outermost loops with the most blocks hand over (the others count): at each
    // point, code to store and load what is live there.
    let mut outer: Vec<usize> = all.iter().copied().filter(|&h| !inner[h]).collect();
    outer.sort_by_key(|&h| (std::cmp::Reverse(weight[h]), h));
    // A function that is mostly not a loop is left as it is.
    match outer.first() {
        Some(&h) if weight[h] * MIN_LOOP_SHARE >= bbs.len() => {}
        _ => return None,
    }
    let mut headers: Vec<usize> = outer.iter().copied().take(MAX_POINTS).collect();
    headers.sort_unstable();
    let counted: Vec<LLVMBasicBlockRef> = all
        .iter()
        .filter(|h| !headers.contains(h))
        .map(|&h| bbs[h])
        .collect();
    // Each value (argument or instruction) with its defining block (None: an argument)
    // and the blocks that use it (a phi's use is at the end of its incoming block).
    let mut values: Vec<(LLVMValueRef, Option<usize>, Vec<usize>)> = Vec::new();
    let uses_of = |v: LLVMValueRef| -> Vec<usize> {
        let mut out = Vec::new();
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if LLVMIsAInstruction(user).is_null() {
                continue;
            }
            if opcode(user) == LLVMOpcode::LLVMPHI {
                for k in 0..LLVMCountIncoming(user) {
                    if LLVMGetIncomingValue(user, k) == v {
                        out.push(index[&LLVMGetIncomingBlock(user, k)]);
                    }
                }
            } else {
                out.push(index[&LLVMGetInstructionParent(user)]);
            }
        }
        out
    };
    for a in 0..LLVMCountParams(f) {
        let p = LLVMGetParam(f, a);
        values.push((p, None, uses_of(p)));
    }
    for (b, &bb) in bbs.iter().enumerate() {
        for i in instructions(bb) {
            let left = match opcode(i) {
                // Allocation on the stack that is not the entry's.
                LLVMOpcode::LLVMAlloca => reachable(b) && b != 0,
                LLVMOpcode::LLVMCall => calls_setjmp(i),
                _ => false,
            };
            if left {
                return None;
            }
            if LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMTypeKind::LLVMVoidTypeKind {
                values.push((i, Some(b), uses_of(i)));
            }
        }
    }
    // The frame (the entry's static allocas, each perhaps realigned), below which the state
    // goes, and the largest state.
    let td = LLVMGetModuleDataLayout(LLVMGetGlobalParent(f));
    let ctx = LLVMGetModuleContext(LLVMGetGlobalParent(f));
    let i32t = LLVMInt32TypeInContext(ctx);
    let mut frame = 32;
    let mut dynamic = Vec::new();
    for i in instructions(bbs[0]) {
        if opcode(i) == LLVMOpcode::LLVMAlloca {
            let n = LLVMGetOperand(i, 0);
            if is_static(i) {
                let n = LLVMConstIntGetZExtValue(n);
                frame += LLVMABISizeOfType(td, LLVMGetAllocatedType(i)).saturating_mul(n) + 16;
            } else {
                dynamic.push((i, n));
            }
        }
    }
    let mut largest = 0;
    let mut fields_total = 0;
    let mut out = Vec::new();
    let mut demoted = Vec::new();
    let mut is_demoted = HashMap::new();
    let mut seen = vec![usize::MAX; bbs.len()];
    for (n, &h) in headers.iter().enumerate() {
        // The blocks reachable from h.
        let mut stack = vec![h];
        seen[h] = n;
        while let Some(b) = stack.pop() {
            for s in succ[b].iter().map(|&s| s as usize) {
                if seen[s] != n {
                    seen[s] = n;
                    stack.push(s);
                }
            }
        }
        // The entry's allocations of a size known only as it runs are made again when a
        // call resumes (the same sizes, in the same order: at the same addresses): their
        // sizes are part of the state, and their addresses come from the new allocations.
        // A value kept goes through a slot, and into the state unless it is in it already
        // or is one of those allocations (which the set starts with).
        let mut live: Vec<LLVMValueRef> = Vec::new();
        let mut in_state: HashSet<LLVMValueRef> = dynamic.iter().map(|&(a, _)| a).collect();
        let mut keep = |v: LLVMValueRef| {
            if is_demoted.insert(v, ()).is_none() {
                demoted.push(v);
            }
            if in_state.insert(v) {
                live.push(v);
            }
        };
        for &(_, size) in &dynamic {
            if LLVMIsAConstant(size).is_null() {
                keep(size);
            }
        }
        for (v, def, uses) in &values {
            let before = match def {
                None => true,
                Some(d) => *d != h && reachable(*d) && dominates(*d, h),
            };
            if before && uses.iter().any(|&u| seen[u] == n) {
                keep(*v);
            }
        }
        let own = phis(bbs[h]);
        fields_total += live.len() + own.len();
        if fields_total > MAX_FIELDS {
            return None;
        }
        let mut fields: Vec<LLVMTypeRef> = vec![i32t];
        fields.extend(own.iter().map(|&p| LLVMTypeOf(p)));
        fields.extend(live.iter().map(|&v| LLVMTypeOf(v)));
        let state = LLVMStructTypeInContext(ctx, fields.as_mut_ptr(), fields.len() as u32, 0);
        largest = largest.max(LLVMABISizeOfType(td, state));
        out.push((bbs[h], live, state));
    }
    if largest > STATE_BUDGET {
        return None;
    }
    Some(Plan {
        frame,
        dynamic,
        size: largest,
        headers: out,
        counted,
        demoted,
    })
}

/// The first instruction of `b` that is not a phi (null if none).
unsafe fn first_non_phi(b: LLVMBasicBlockRef) -> LLVMValueRef {
    let mut i = LLVMGetFirstInstruction(b);
    while !i.is_null() && opcode(i) == LLVMOpcode::LLVMPHI {
        i = LLVMGetNextInstruction(i);
    }
    i
}

unsafe fn phis(b: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    instructions(b)
        .into_iter()
        .take_while(|&i| opcode(i) == LLVMOpcode::LLVMPHI)
        .collect()
}

unsafe fn rewrite(m: LLVMModuleRef, f: LLVMValueRef, plan: &Plan) {
    let global = wasm_global(m, RESUME_GLOBAL);
    let ctx = LLVMGetModuleContext(m);
    let i32t = LLVMInt32TypeInContext(ctx);
    let b = LLVMCreateBuilderInContext(ctx);
    let old_entry = LLVMGetEntryBasicBlock(f);
    let name = |s: &str| cstr(s);

    // Each header's phis move to a block of their own before it, which every edge into
    // the header now enters; the count-down goes at its end.
    let mut tops = Vec::new();
    for (h, _, _) in &plan.headers {
        let top = LLVMInsertBasicBlockInContext(ctx, *h, name("resume.head").as_ptr());
        let mut preds = Vec::new();
        for bb in blocks(f) {
            if bb == top {
                continue;
            }
            let t = LLVMGetBasicBlockTerminator(bb);
            if t.is_null() {
                continue;
            }
            for k in 0..LLVMGetNumSuccessors(t) {
                if LLVMGetSuccessor(t, k) == *h {
                    preds.push((t, k));
                }
            }
        }
        for (t, k) in preds {
            LLVMSetSuccessor(t, k, top);
        }
        LLVMPositionBuilderAtEnd(b, top);
        for p in phis(*h) {
            LLVMInstructionRemoveFromParent(p);
            LLVMInsertIntoBuilder(b, p);
        }
        tops.push(top);
    }

    // The new entry: the static allocas, the slots, and the question whether this call
    // resumes another.
    let entry = LLVMInsertBasicBlockInContext(ctx, old_entry, name("resume.entry").as_ptr());
    LLVMPositionBuilderAtEnd(b, entry);
    for i in instructions(old_entry) {
        if opcode(i) == LLVMOpcode::LLVMAlloca && is_static(i) {
            LLVMInstructionRemoveFromParent(i);
            LLVMInsertIntoBuilder(b, i);
        }
    }
    let count_global = wasm_global(m, COUNT_GLOBAL);
    // The stack pointer, as its global: LLVM keeps it there between calls.
    let sp_global = wasm_global(m, STACK_POINTER);
    let counter = LLVMBuildAlloca(b, i32t, name("resume.count").as_ptr());
    let mut slot = HashMap::new();
    for &v in &plan.demoted {
        slot.insert(
            v,
            LLVMBuildAlloca(b, LLVMTypeOf(v), name("resume.slot").as_ptr()),
        );
    }
    LLVMBuildStore(b, LLVMConstInt(i32t, FIRST as u64, 0), counter);
    for &v in &plan.demoted {
        if !LLVMIsAArgument(v).is_null() {
            LLVMBuildStore(b, v, slot[&v]);
        }
    }
    let state = LLVMBuildLoad2(b, i32t, global, name("resume.from").as_ptr());
    let resuming = LLVMBuildICmp(
        b,
        LLVMIntPredicate::LLVMIntNE,
        state,
        LLVMConstInt(i32t, 0, 0),
        name("").as_ptr(),
    );
    let dispatch = LLVMAppendBasicBlockInContext(ctx, f, name("resume.dispatch").as_ptr());
    LLVMBuildCondBr(b, resuming, dispatch, old_entry);

    // Every value some header needs lives in its slot: stored where it is defined, loaded
    // where it is used (mem2reg makes registers of them again).
    for &v in &plan.demoted {
        let s = slot[&v];
        let mut uses = Vec::new();
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            uses.push(LLVMGetUser(u));
            u = LLVMGetNextUse(u);
        }
        uses.sort();
        uses.dedup();
        let mut store = std::ptr::null_mut();
        if LLVMIsAArgument(v).is_null() {
            let parent = LLVMGetInstructionParent(v);
            if opcode(v) == LLVMOpcode::LLVMPHI {
                // A header's phis have a block of their own, with nothing after them yet.
                let first = first_non_phi(parent);
                if first.is_null() {
                    LLVMPositionBuilderAtEnd(b, parent);
                } else {
                    LLVMPositionBuilderBefore(b, first);
                }
            } else {
                let after = LLVMGetNextInstruction(v);
                LLVMPositionBuilderBefore(b, after);
            }
            store = LLVMBuildStore(b, v, s);
        }
        for user in uses {
            if LLVMIsAInstruction(user).is_null() || user == store {
                continue;
            }
            if LLVMGetInstructionParent(user) == entry {
                continue; // the argument's own store
            }
            if opcode(user) == LLVMOpcode::LLVMPHI {
                // One load per incoming block: a phi's entries from one block agree.
                let mut loaded = HashMap::new();
                for k in 0..LLVMCountIncoming(user) {
                    if LLVMGetIncomingValue(user, k) == v {
                        let from = LLVMGetIncomingBlock(user, k);
                        let l = *loaded.entry(from).or_insert_with(|| {
                            LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(from));
                            LLVMBuildLoad2(b, LLVMTypeOf(v), s, name("").as_ptr())
                        });
                        LLVMSetOperand(user, k, l);
                    }
                }
            } else {
                LLVMPositionBuilderBefore(b, user);
                let l = LLVMBuildLoad2(b, LLVMTypeOf(v), s, name("").as_ptr());
                for k in 0..LLVMGetNumOperands(user) as u32 {
                    if LLVMGetOperand(user, k) == v {
                        LLVMSetOperand(user, k, l);
                    }
                }
            }
        }
    }

    // The inner headers count too.
    for &h in &plan.counted {
        let first = first_non_phi(h);
        LLVMPositionBuilderBefore(b, first);
        let c = LLVMBuildLoad2(b, i32t, counter, name("").as_ptr());
        let c = LLVMBuildSub(b, c, LLVMConstInt(i32t, 1, 0), name("").as_ptr());
        LLVMBuildStore(b, c, counter);
    }

    // Resumption: clear the global, count anew, go to the header stored.
    let fty = LLVMGlobalGetValueType(f);
    let ret = LLVMGetReturnType(fty);
    LLVMPositionBuilderAtEnd(b, dispatch);
    LLVMBuildStore(b, LLVMConstInt(i32t, 0, 0), global);
    let at = LLVMBuildIntToPtr(
        b,
        state,
        LLVMPointerType(i32t, 0),
        name("resume.at").as_ptr(),
    );
    let which = LLVMBuildLoad2(b, i32t, at, name("resume.header").as_ptr());
    let one = LLVMConstInt(i32t, 1, 0);
    LLVMBuildStore(b, LLVMConstInt(i32t, FIRST as u64, 0), counter);
    let nowhere = LLVMAppendBasicBlockInContext(ctx, f, name("resume.none").as_ptr());
    let sw = LLVMBuildSwitch(b, which, nowhere, plan.headers.len() as u32);
    LLVMPositionBuilderAtEnd(b, nowhere);
    LLVMBuildUnreachable(b);

    for (k, ((h, live, layout), &top)) in plan.headers.iter().zip(&tops).enumerate() {
        let layout = *layout;
        let own = phis(top);
        let field = |b: LLVMBuilderRef, base: LLVMValueRef, j: usize| {
            LLVMBuildStructGEP2(b, layout, base, j as u32, name("").as_ptr())
        };
        // Resuming at k: the stored values into the phis and slots.
        let resume = LLVMAppendBasicBlockInContext(ctx, f, name("resume.at").as_ptr());
        LLVMAddCase(sw, LLVMConstInt(i32t, k as u64, 0), resume);
        LLVMPositionBuilderAtEnd(b, resume);
        let base = LLVMBuildIntToPtr(b, state, LLVMPointerType(layout, 0), name("").as_ptr());
        for (j, &p) in own.iter().enumerate() {
            let v = LLVMBuildLoad2(b, LLVMTypeOf(p), field(b, base, 1 + j), name("").as_ptr());
            let mut vals = [v];
            let mut bbs = [resume];
            LLVMAddIncoming(p, vals.as_mut_ptr(), bbs.as_mut_ptr(), 1);
        }
        for (j, &v) in live.iter().enumerate() {
            let x = LLVMBuildLoad2(
                b,
                LLVMTypeOf(v),
                field(b, base, 1 + own.len() + j),
                name("").as_ptr(),
            );
            LLVMBuildStore(b, x, slot[&v]);
        }
        for &(a, size) in &plan.dynamic {
            let n = match slot.get(&size) {
                Some(&s) => LLVMBuildLoad2(b, LLVMTypeOf(size), s, name("").as_ptr()),
                None => size, // a constant
            };
            let again = LLVMBuildArrayAlloca(b, LLVMGetAllocatedType(a), n, name("").as_ptr());
            LLVMSetAlignment(again, LLVMGetAlignment(a));
            if let Some(&s) = slot.get(&a) {
                LLVMBuildStore(b, again, s);
            }
        }
        LLVMBuildBr(b, top);

        // The count-down at the header's top.
        LLVMPositionBuilderAtEnd(b, top);
        let c = LLVMBuildLoad2(b, i32t, counter, name("").as_ptr());
        let c = LLVMBuildSub(b, c, one, name("").as_ptr());
        LLVMBuildStore(b, c, counter);
        let out = LLVMBuildICmp(
            b,
            LLVMIntPredicate::LLVMIntSLT,
            c,
            LLVMConstInt(i32t, 0, 0),
            name("").as_ptr(),
        );
        let hand = LLVMAppendBasicBlockInContext(ctx, f, name("resume.hand").as_ptr());
        LLVMBuildCondBr(b, out, hand, *h);
        // Out of count: the state below this call's frame, and a tail call, which leaves
        // the new call's frame where this one's was, the allocas' contents in it: the
        // stack does not grow, however often a call hands over. The stack pointer's
        // global is below the frame, but for a frame of at most 128 bytes that LLVM
        // keeps below it (its "red zone"), which the frame's estimate, up to 512 bytes,
        // covers.
        LLVMPositionBuilderAtEnd(b, hand);
        let sp = LLVMBuildLoad2(b, i32t, sp_global, name("").as_ptr());
        let below = plan.frame.min(512) + plan.size;
        let at = LLVMBuildSub(b, sp, LLVMConstInt(i32t, below, 0), name("").as_ptr());
        let at = LLVMBuildAnd(
            b,
            at,
            LLVMConstInt(i32t, !15u32 as u64, 0),
            name("").as_ptr(),
        );
        let base = LLVMBuildIntToPtr(b, at, LLVMPointerType(layout, 0), name("").as_ptr());
        LLVMBuildStore(b, LLVMConstInt(i32t, k as u64, 0), field(b, base, 0));
        for (j, &p) in own.iter().enumerate() {
            LLVMBuildStore(b, p, field(b, base, 1 + j));
        }
        for (j, &v) in live.iter().enumerate() {
            let x = LLVMBuildLoad2(b, LLVMTypeOf(v), slot[&v], name("").as_ptr());
            LLVMBuildStore(b, x, field(b, base, 1 + own.len() + j));
        }
        LLVMBuildStore(b, at, global);
        let n = LLVMBuildLoad2(b, i32t, count_global, name("").as_ptr());
        let n = LLVMBuildAdd(b, n, one, name("").as_ptr());
        LLVMBuildStore(b, n, count_global);
        let mut args: Vec<LLVMValueRef> = (0..LLVMCountParams(f))
            .map(|a| LLVMConstNull(LLVMTypeOf(LLVMGetParam(f, a))))
            .collect();
        let call = LLVMBuildCall2(
            b,
            fty,
            f,
            args.as_mut_ptr(),
            args.len() as u32,
            name("").as_ptr(),
        );
        LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(f));
        LLVMSetTailCall(call, 1);
        // The call's return attributes are the function's, or LLVM would not make it a
        // tail call.
        for a in ffi::attributes(f, 0, false) {
            LLVMAddCallSiteAttribute(call, 0, a);
        }
        if LLVMGetTypeKind(ret) == LLVMTypeKind::LLVMVoidTypeKind {
            LLVMBuildRetVoid(b);
        } else {
            LLVMBuildRet(b, call);
        }
    }
    // The hand-over is a tail call: WebAssembly's tail calls for this function alone
    // (with the target's other features, which a function's own list replaces).
    let features = format!(
        "{},+tail-call",
        super::target::Target::Wasm32.cpu_features().1
    );
    let (k, v) = ("target-features", features.as_str());
    let attr = LLVMCreateStringAttribute(
        ctx,
        k.as_ptr() as *const _,
        k.len() as u32,
        v.as_ptr() as *const _,
        v.len() as u32,
    );
    LLVMAddAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, attr);
    LLVMDisposeBuilder(b);
}
