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

use super::edit::{Block, IntPred, Module, Opcode, Type, Value};
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
/// those left as they are); returns the names of the functions changed, whose stack slots
/// `mem2reg` must promote.
pub fn add(module: &inkwell::module::Module<'_>) -> Vec<String> {
    let m = Module::of(module);
    let mut changed = Vec::new();
    for f in m.functions() {
        if f.blocks().is_empty() {
            continue;
        }
        if let Some(plan) = plan(m, f) {
            rewrite(m, f, &plan);
            changed.push(f.name());
        }
    }
    changed
}

/// The i32 WebAssembly global `name` (LLVM's address space 1), declared in `m` if it is
/// not yet: the runtime defines it (arch_wasm32.S), or LLVM's code generation does.
fn wasm_global<'a>(m: Module<'a>, name: &str) -> Value<'a> {
    m.global(name)
        .unwrap_or_else(|| m.add_global_in_space(m.types().i32(), name, 1))
}

/// What a function's resume points need, from its control flow as it was.
struct Plan<'a> {
    /// At least the bytes of the function's frame (its allocas of a constant size, each
    /// perhaps realigned).
    frame: u64,
    /// The entry's allocas of a size computed as it runs, in order, with their sizes.
    dynamic: Vec<(Value<'a>, Value<'a>)>,
    /// The headers that hand over, each with the values live there beside its own phis
    /// and its state's layout (its number, its phis, those values).
    headers: Vec<(Block<'a>, Vec<Value<'a>>, Type<'a>)>,
    /// The largest state's size in bytes.
    size: u64,
    /// The other loop headers: they count, and do not hand over.
    counted: Vec<Block<'a>>,
    /// Every value some header needs that is not one of its own phis: each gets a slot.
    demoted: Vec<Value<'a>>,
}

/// The successors of block `b` (none without a terminator).
fn successors(b: Block<'_>) -> Vec<Block<'_>> {
    b.terminator().map_or_else(Vec::new, |t| t.successors())
}

fn opcode(i: Value<'_>) -> Opcode {
    i.opcode().expect("an instruction")
}

/// Whether `i` calls `setjmp` directly.
fn calls_setjmp(i: Value<'_>) -> bool {
    let c = i.called_value();
    c.kind() == super::edit::ValueKind::Function && c.name() == "setjmp"
}

/// Whether the entry's alloca `i` is part of the frame: only when its size is an integer
/// constant (one of a constant expression, a global's address, or undef is made as the
/// code runs).
fn is_static(i: Value<'_>) -> bool {
    i.operand(0).kind() == super::edit::ValueKind::ConstInt
}

/// The resume points `f` gets, or `None` when it is left as it is.
fn plan<'a>(m: Module<'a>, f: Value<'a>) -> Option<Plan<'a>> {
    let bbs = f.blocks();
    let index: HashMap<Block<'a>, usize> = bbs.iter().enumerate().map(|(i, &b)| (b, i)).collect();
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
    let counted: Vec<Block<'a>> = all
        .iter()
        .filter(|h| !headers.contains(h))
        .map(|&h| bbs[h])
        .collect();
    // Each value (argument or instruction) with its defining block (None: an argument)
    // and the blocks that use it (a phi's use is at the end of its incoming block).
    let mut values: Vec<(Value<'a>, Option<usize>, Vec<usize>)> = Vec::new();
    let uses_of = |v: Value<'a>| -> Vec<usize> {
        let mut out = Vec::new();
        for user in v.users() {
            if !user.is_instruction() {
                continue;
            }
            if opcode(user) == Opcode::LLVMPHI {
                for (x, from) in user.incoming() {
                    if x == v {
                        out.push(index[&from]);
                    }
                }
            } else {
                out.push(index[&user.parent_block()]);
            }
        }
        out
    };
    for p in f.params() {
        values.push((p, None, uses_of(p)));
    }
    for (b, &bb) in bbs.iter().enumerate() {
        for i in bb.instructions() {
            let left = match opcode(i) {
                // Allocation on the stack that is not the entry's.
                Opcode::LLVMAlloca => reachable(b) && b != 0,
                Opcode::LLVMCall => calls_setjmp(i),
                _ => false,
            };
            if left {
                return None;
            }
            if !i.ty().is_void() {
                values.push((i, Some(b), uses_of(i)));
            }
        }
    }
    // The frame (the entry's static allocas, each perhaps realigned), below which the state
    // goes, and the largest state.
    let td = m.layout();
    let i32t = m.types().i32();
    let mut frame = 32;
    let mut dynamic = Vec::new();
    for i in bbs[0].instructions() {
        if opcode(i) == Opcode::LLVMAlloca {
            let n = i.operand(0);
            if is_static(i) {
                let n = n.const_zext().expect("a constant size");
                frame += td.alloc_size(i.allocated_type()).saturating_mul(n) + 16;
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
        let mut live: Vec<Value<'a>> = Vec::new();
        let mut in_state: HashSet<Value<'a>> = dynamic.iter().map(|&(a, _)| a).collect();
        let mut keep = |v: Value<'a>| {
            if is_demoted.insert(v, ()).is_none() {
                demoted.push(v);
            }
            if in_state.insert(v) {
                live.push(v);
            }
        };
        for &(_, size) in &dynamic {
            if !size.is_constant() {
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
        let mut fields: Vec<Type<'a>> = vec![i32t];
        fields.extend(own.iter().map(|&p| p.ty()));
        fields.extend(live.iter().map(|&v| v.ty()));
        let state = m.types().structure(&fields, false);
        largest = largest.max(td.alloc_size(state));
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

fn phis(b: Block<'_>) -> Vec<Value<'_>> {
    b.instructions()
        .into_iter()
        .take_while(|&i| opcode(i) == Opcode::LLVMPHI)
        .collect()
}

fn rewrite<'a>(m: Module<'a>, f: Value<'a>, plan: &Plan<'a>) {
    let global = wasm_global(m, RESUME_GLOBAL);
    let ty = m.types();
    let i32t = ty.i32();
    let int = |x: u64| ty.const_int(i32t, x);
    let b = m.builder();
    let old_entry = f.entry_block().expect("a function with blocks");
    // Loads and stores at the type's ABI alignment, as LLVM gives it.
    let load = |t: Type<'a>, p: Value<'a>| b.load(t, p, 0);
    let store = |x: Value<'a>, p: Value<'a>| b.store(x, p, 0);

    // Each header's phis move to a block of their own before it, which every edge into
    // the header now enters; the count-down goes at its end.
    let mut tops = Vec::new();
    for (h, _, _) in &plan.headers {
        let top = m.insert_block_before(*h, "resume.head");
        let mut preds = Vec::new();
        for bb in f.blocks() {
            if bb == top {
                continue;
            }
            let Some(t) = bb.terminator() else {
                continue;
            };
            for (k, s) in t.successors().into_iter().enumerate() {
                if s == *h {
                    preds.push((t, k as u32));
                }
            }
        }
        for (t, k) in preds {
            t.set_successor(k, top);
        }
        b.position_at_end(top);
        for p in phis(*h) {
            b.insert(p);
        }
        tops.push(top);
    }

    // The new entry: the static allocas, the slots, and the question whether this call
    // resumes another.
    let entry = m.insert_block_before(old_entry, "resume.entry");
    b.position_at_end(entry);
    for i in old_entry.instructions() {
        if opcode(i) == Opcode::LLVMAlloca && is_static(i) {
            b.insert(i);
        }
    }
    let count_global = wasm_global(m, COUNT_GLOBAL);
    // The stack pointer, as its global: LLVM keeps it there between calls.
    let sp_global = wasm_global(m, STACK_POINTER);
    let counter = b.alloca(i32t, None);
    let mut slot = HashMap::new();
    for &v in &plan.demoted {
        slot.insert(v, b.alloca(v.ty(), None));
    }
    store(int(FIRST as u64), counter);
    for &v in &plan.demoted {
        if v.is_argument() {
            store(v, slot[&v]);
        }
    }
    let state = load(i32t, global);
    let resuming = b.icmp(IntPred::LLVMIntNE, state, int(0));
    let dispatch = m.append_block(f, "resume.dispatch");
    b.cond_br(resuming, dispatch, old_entry);

    // Every value some header needs lives in its slot: stored where it is defined, loaded
    // where it is used (mem2reg makes registers of them again).
    for &v in &plan.demoted {
        let s = slot[&v];
        let mut uses = v.users();
        uses.sort();
        uses.dedup();
        let mut store_at = None;
        if !v.is_argument() {
            let parent = v.parent_block();
            if opcode(v) == Opcode::LLVMPHI {
                // A header's phis have a block of their own, with nothing after them yet.
                match parent.first_non_phi() {
                    None => b.position_at_end(parent),
                    Some(first) => b.position_before(first),
                }
            } else {
                b.position_before(v.next_instruction().expect("an instruction after a value"));
            }
            store_at = Some(store(v, s));
        }
        for user in uses {
            if !user.is_instruction() || Some(user) == store_at {
                continue;
            }
            if user.parent_block() == entry {
                continue; // the argument's own store
            }
            if opcode(user) == Opcode::LLVMPHI {
                // One load per incoming block: a phi's entries from one block agree.
                let mut loaded = HashMap::new();
                for (k, (x, from)) in user.incoming().into_iter().enumerate() {
                    if x == v {
                        let l = *loaded.entry(from).or_insert_with(|| {
                            b.position_before(from.terminator().expect("a terminator"));
                            load(v.ty(), s)
                        });
                        user.set_operand(k as u32, l);
                    }
                }
            } else {
                b.position_before(user);
                let l = load(v.ty(), s);
                for k in 0..user.num_operands() {
                    if user.operand(k) == v {
                        user.set_operand(k, l);
                    }
                }
            }
        }
    }

    // The inner headers count too.
    for &h in &plan.counted {
        b.position_before(h.first_non_phi().expect("a header's terminator"));
        let c = load(i32t, counter);
        let c = b.binop(Opcode::LLVMSub, c, int(1));
        store(c, counter);
    }

    // Resumption: clear the global, count anew, go to the header stored.
    let fty = f.function_type();
    let ret = fty.fn_return();
    b.position_at_end(dispatch);
    store(int(0), global);
    let at = b.cast(Opcode::LLVMIntToPtr, state, i32t.ptr());
    let which = load(i32t, at);
    let one = int(1);
    store(int(FIRST as u64), counter);
    let nowhere = m.append_block(f, "resume.none");
    let sw = b.switch(which, nowhere, plan.headers.len() as u32);
    b.position_at_end(nowhere);
    b.unreachable();

    for (k, ((h, live, layout), &top)) in plan.headers.iter().zip(&tops).enumerate() {
        let layout = *layout;
        let own = phis(top);
        let field = |base: Value<'a>, j: usize| b.struct_gep(layout, base, j as u32);
        // Resuming at k: the stored values into the phis and slots.
        let resume = m.append_block(f, "resume.at");
        b.add_case(sw, int(k as u64), resume);
        b.position_at_end(resume);
        let base = b.cast(Opcode::LLVMIntToPtr, state, layout.ptr());
        for (j, &p) in own.iter().enumerate() {
            let x = load(p.ty(), field(base, 1 + j));
            b.add_incoming(p, x, resume);
        }
        for (j, &v) in live.iter().enumerate() {
            let x = load(v.ty(), field(base, 1 + own.len() + j));
            store(x, slot[&v]);
        }
        for &(a, size) in &plan.dynamic {
            let n = match slot.get(&size) {
                Some(&s) => load(size.ty(), s),
                None => size, // a constant
            };
            let again = b.alloca(a.allocated_type(), Some(n));
            again.set_alignment(a.alignment());
            if let Some(&s) = slot.get(&a) {
                store(again, s);
            }
        }
        b.br(top);

        // The count-down at the header's top.
        b.position_at_end(top);
        let c = load(i32t, counter);
        let c = b.binop(Opcode::LLVMSub, c, one);
        store(c, counter);
        let out = b.icmp(IntPred::LLVMIntSLT, c, int(0));
        let hand = m.append_block(f, "resume.hand");
        b.cond_br(out, hand, *h);
        // Out of count: the state below this call's frame, and a tail call, which leaves
        // the new call's frame where this one's was, the allocas' contents in it: the
        // stack does not grow, however often a call hands over. The stack pointer's
        // global is below the frame, but for a frame of at most 128 bytes that LLVM
        // keeps below it (its "red zone"), which the frame's estimate, up to 512 bytes,
        // covers.
        b.position_at_end(hand);
        let sp = load(i32t, sp_global);
        let below = plan.frame.min(512) + plan.size;
        let at = b.binop(Opcode::LLVMSub, sp, int(below));
        let at = b.binop(Opcode::LLVMAnd, at, int(!15u32 as u64));
        let base = b.cast(Opcode::LLVMIntToPtr, at, layout.ptr());
        store(int(k as u64), field(base, 0));
        for (j, &p) in own.iter().enumerate() {
            store(p, field(base, 1 + j));
        }
        for (j, &v) in live.iter().enumerate() {
            let x = load(v.ty(), slot[&v]);
            store(x, field(base, 1 + own.len() + j));
        }
        store(at, global);
        let n = load(i32t, count_global);
        let n = b.binop(Opcode::LLVMAdd, n, one);
        store(n, count_global);
        let args: Vec<Value<'a>> = f.params().iter().map(|p| ty.zero(p.ty())).collect();
        let call = b.call(fty, f, &args);
        call.set_call_conv(f.call_conv());
        b.set_tail_call(call, true);
        // The call's return attributes are the function's, or LLVM would not make it a
        // tail call.
        call.copy_return_attrs(f);
        b.ret((!ret.is_void()).then_some(call));
    }
    // The hand-over is a tail call: WebAssembly's tail calls for this function alone
    // (with the target's other features, which a function's own list replaces).
    let features = format!(
        "{},+tail-call",
        super::target::Target::Wasm32.cpu_features().1
    );
    f.add_fn_string_attr("target-features", &features);
}
