//! C++ exceptions: `invoke`, `landingpad`, `resume` and `llvm.eh.typeid.for` lowered to
//! setjmp-based frames and tables, as the SDK's PNaClSjLjEH pass made them
//! (`../shared/notes/simplify.md` §1.4 item 19), for the unwinder of the C++ library
//! (`sdk/libcxx/sjlj_exception.cpp`), which defines `__pnacl_eh_stack`. A program without
//! it (C, or linked without the C++ library) has its invokes made plain calls and its
//! landing pads dropped (PNaCl's LowerInvoke): nothing there can throw.
//!
//! Before the functions are converted, `tables` reads every landing pad of the program:
//!
//! - each type a `catch` or a `filter` clause names gets a type id from 1 (in
//!   `__pnacl_eh_type_table[id - 1]`; null is catch-all); `llvm.eh.typeid.for` is that id;
//! - each landing pad's clauses become a clause list in `__pnacl_eh_action_table`: entries
//!   `{clause, next}` linked by 1-based index (0 ends a list; list 0 is empty, a cleanup);
//!   a catch clause is its type id, a filter `-(1 + k)` where its type ids start at
//!   `__pnacl_eh_filter_table[k]`, ended by 0.
//!
//! The tables are globals of the old module (the runtime's declarations of them are
//! pointed at them), converted as any other.
//!
//! Each function that invokes gets one frame in its stack (`FRAME_*`, the layout the
//! unwinder's `struct frame` has). Around each invoke the function pushes the frame on the
//! thread's list, with the landing pad's clause list, and calls a helper of its own; the
//! helper setjmps into the frame and makes the call (its result into the frame), returning
//! 0, or 1 when the unwinder jumps back to it. The frame is popped and the invoke goes on
//! to its landing pad if the helper said 1. The landing pad's value is the exception and
//! selector the unwinder wrote into the frame; `resume` calls `__pnacl_eh_resume`.

use std::collections::HashMap;

use super::lower::strip_callee;
use super::Problem;
use crate::llvm::edit::{Module, Opcode, Value, ValueKind};

/// The unwinder's thread-local list of frames; its presence turns the lowering on.
pub const STACK: &str = "__pnacl_eh_stack";
/// `void __pnacl_eh_resume(exception)`: a landing pad that did not handle it.
pub const RESUME: &str = "__pnacl_eh_resume";
/// What stays external through whole-program optimization (`prepare`).
pub const ROOTS: [&str; 2] = [STACK, RESUME];
/// The tables this lowering writes (the unwinder declares them).
pub const TABLES: [&str; 3] = [
    "__pnacl_eh_type_table",
    "__pnacl_eh_action_table",
    "__pnacl_eh_filter_table",
];

/// The frame (`struct frame` of sjlj_exception.cpp, whose static_asserts check the same
/// offsets): the jmp_buf, the link, the clause list, the exception and selector the
/// landing pad reads, then room for the invoked call's result.
pub const FRAME_NEXT: i64 = 1024;
pub const FRAME_CLAUSES: i64 = 1028;
pub const FRAME_EXCEPTION: i64 = 1032;
pub const FRAME_SELECTOR: i64 = 1036;
pub const FRAME_RESULT: i64 = 1040;
/// The largest result a pexe's call has: a 16-byte vector.
pub const FRAME_SIZE: u64 = 1056;
pub const FRAME_ALIGN: u32 = 8;

/// What the conversion of each function reads.
pub struct Eh<'a> {
    /// The old module's `__pnacl_eh_stack` and `__pnacl_eh_resume`.
    pub stack: Value<'a>,
    pub resume: Value<'a>,
    /// Each landing pad's clause list.
    pub lists: HashMap<Value<'a>, i32>,
    /// Each catch type's id (by the type_info global, casts stripped; null for catch-all).
    type_ids: HashMap<Option<Value<'a>>, i32>,
}

impl<'a> Eh<'a> {
    /// The type id of `llvm.eh.typeid.for`'s argument.
    pub fn type_id(&self, t: Value<'a>) -> Option<i32> {
        self.type_ids.get(&type_key(t)).copied()
    }
}

/// The type a clause names: its type_info global, or None for null (catch-all).
fn type_key(v: Value<'_>) -> Option<Value<'_>> {
    let s = strip_callee(v);
    match s.kind() {
        ValueKind::ConstNull => None,
        _ => Some(s),
    }
}

/// Reads every landing pad and writes the tables; None if the program has no unwinder
/// (its invokes are then plain calls).
pub fn tables<'a>(old: Module<'a>) -> Result<Option<Eh<'a>>, Vec<Problem>> {
    let Some(stack) = old.global(STACK).filter(|g| !g.is_declaration()) else {
        return Ok(None);
    };
    let Some(resume) = old.function(RESUME).filter(|f| !f.is_declaration()) else {
        return Err(vec![Problem::module(format!(
            "the C++ exception runtime defines {STACK} but not {RESUME}"
        ))]);
    };
    let tys = old.types();
    let i8p = tys.i8().ptr();
    let mut type_table: Vec<Value<'a>> = Vec::new();
    let mut type_ids: HashMap<Option<Value<'a>>, i32> = HashMap::new();
    let mut id_of = |v: Value<'a>| -> i32 {
        let key = type_key(v);
        *type_ids.entry(key).or_insert_with(|| {
            type_table.push(match key {
                Some(g) => tys.const_bitcast(g, i8p),
                None => tys.zero(i8p),
            });
            type_table.len() as i32
        })
    };
    let mut filters: Vec<i32> = Vec::new();
    let mut filter_starts: HashMap<Vec<i32>, i32> = HashMap::new();
    let mut actions: Vec<(i32, i32)> = Vec::new();
    let mut list_ids: HashMap<Vec<i32>, i32> = HashMap::new();
    let mut lists = HashMap::new();
    for f in old.functions() {
        for b in f.blocks() {
            for i in b.instructions() {
                if i.opcode() == Some(Opcode::LLVMCall) {
                    // A type compared against that no clause names still has an id.
                    let c = strip_callee(i.called_value());
                    if c.kind() == ValueKind::Function && c.name() == "llvm.eh.typeid.for" {
                        id_of(i.operand(0));
                    }
                    continue;
                }
                if i.opcode() != Some(Opcode::LLVMLandingPad) {
                    continue;
                }
                let mut clauses = Vec::new();
                for c in i.operands() {
                    if c.ty().is_pointer() {
                        clauses.push(id_of(c));
                        continue;
                    }
                    // A filter: a constant array of types (none: `throw()`).
                    let n = match c.ty().kind() {
                        crate::llvm::edit::TypeKind::Array(_, n) => n,
                        _ => 0,
                    };
                    let mut ids: Vec<i32> = Vec::new();
                    for k in 0..n {
                        let e = match c.kind() {
                            ValueKind::ConstZero => tys.zero(i8p),
                            ValueKind::ConstAggregate => c.aggregate_element(k as u32),
                            _ => {
                                return Err(vec![Problem::in_function(
                                    &f.name(),
                                    i.debug_loc(),
                                    "a landing pad's filter that is not a constant array".into(),
                                )])
                            }
                        };
                        ids.push(id_of(e));
                    }
                    let start = *filter_starts.entry(ids.clone()).or_insert_with(|| {
                        let s = filters.len() as i32;
                        filters.extend(&ids);
                        filters.push(0);
                        s
                    });
                    clauses.push(-(start + 1));
                }
                let list = if clauses.is_empty() {
                    0
                } else {
                    *list_ids.entry(clauses.clone()).or_insert_with(|| {
                        let first = actions.len() as i32 + 1;
                        for (k, c) in clauses.iter().enumerate() {
                            let next = if k + 1 < clauses.len() {
                                first + k as i32 + 1
                            } else {
                                0
                            };
                            actions.push((*c, next));
                        }
                        first
                    })
                };
                lists.insert(i, list);
            }
        }
    }
    // The tables, each an internal constant the runtime's declaration is pointed at (an
    // empty one gets one zero entry: a global has a size).
    let i32t = tys.i32();
    let entry = tys.structure(&[i32t, i32t], false);
    let type_vals = if type_table.is_empty() {
        vec![tys.zero(i8p)]
    } else {
        type_table
    };
    let action_vals: Vec<Value<'a>> = if actions.is_empty() {
        vec![tys.zero(entry)]
    } else {
        actions
            .iter()
            .map(|(c, n)| {
                tys.const_struct(&[tys.const_i32(*c as i64), tys.const_i32(*n as i64)], false)
            })
            .collect()
    };
    let filter_vals: Vec<Value<'a>> = if filters.is_empty() {
        vec![tys.const_i32(0)]
    } else {
        filters.iter().map(|x| tys.const_i32(*x as i64)).collect()
    };
    for (name, elem, vals) in [
        (TABLES[0], i8p, type_vals),
        (TABLES[1], entry, action_vals),
        (TABLES[2], i32t, filter_vals),
    ] {
        let init = tys.const_array(elem, &vals);
        let old_decl = old.global(name);
        if let Some(d) = old_decl {
            if !d.is_declaration() {
                return Err(vec![Problem::global(
                    name,
                    "defined by the program: the name is the exception lowering's".into(),
                )]);
            }
            d.set_name("");
        }
        let g = old.add_global(init.ty(), name);
        g.set_initializer(init);
        g.set_global_constant(true);
        g.set_linkage(crate::llvm::edit::Linkage::LLVMInternalLinkage);
        g.set_alignment(4);
        if let Some(d) = old_decl {
            d.replace_all_uses_with(tys.const_bitcast(g, d.ty()));
        }
    }
    Ok(Some(Eh {
        stack,
        resume,
        lists,
        type_ids,
    }))
}

use super::calls::{callee_ptr, Callee};
use super::func::{Fx, R};
use super::shape::Vals;
use crate::llvm::edit::{pred, Linkage, Type};

impl<'a> Fx<'a, '_> {
    /// This function's frame (made once, in its prologue): an i32 address.
    fn eh_frame(&mut self) -> R<Value<'a>> {
        if let Some(f) = self.eh_frame {
            return Ok(f);
        }
        let f = self.temp(FRAME_SIZE, FRAME_ALIGN)?;
        self.eh_frame = Some(f);
        Ok(f)
    }

    /// The alignment a call's result is kept in the frame with (the ABI's: an integer's
    /// is 1, a vector's its element's; the i32s below are 1 too).
    fn result_align(&self, t: Type<'a>) -> u32 {
        match t.vector() {
            Some((e, _)) => self.lw.shapes.layout().abi_align(e),
            None => 1,
        }
    }

    /// An invoke's call of `callee` (of type `fn_ty`) with `args`, whose landing pad has
    /// clause list `list`: made through a helper that setjmps first (an address called
    /// is the helper's argument too). Returned: the call's result, and whether the
    /// unwinder jumped back instead (an i32, nonzero if so).
    pub fn eh_call(
        &mut self,
        list: i32,
        fn_ty: Type<'a>,
        callee: Callee<'a>,
        args: &[Value<'a>],
    ) -> R<(Value<'a>, Value<'a>)> {
        let callee_i32 = match callee {
            Callee::Address(x) => Some(x),
            Callee::Function(_) => None,
        };
        let tys = self.lw.tys;
        let (i32t, i8p) = (tys.i32(), tys.i8().ptr());
        let stack_g = self
            .lw
            .eh
            .as_ref()
            .expect("an invoke lowered with the unwinder")
            .stack;
        let rt = fn_ty.fn_return();
        let mut params: Vec<Type<'a>> = args.iter().map(|a| a.ty()).collect();
        if callee_i32.is_some() {
            params.push(i32t);
        }
        params.push(i32t);
        // The helper: setjmp into the frame, then the call.
        let hty = tys.function(i32t, &params, false);
        let new = self.lw.new;
        let h = new.add_function("__pnacl_eh_invoke", hty);
        h.set_linkage(Linkage::LLVMInternalLinkage);
        let hb = new.builder();
        let (entry, call, caught) = (
            new.append_block(h, ""),
            new.append_block(h, ""),
            new.append_block(h, ""),
        );
        let ps = h.params();
        let hframe = ps[ps.len() - 1];
        hb.position_at_end(entry);
        let jb = hb.cast(Opcode::LLVMIntToPtr, hframe, i8p);
        let sjty = tys.function(i32t, &[i8p], false);
        let sj = self.lw.decl("llvm.nacl.setjmp", sjty);
        let r = hb.call(sjty, sj, &[jb]);
        let direct = hb.icmp(pred::LLVMIntEQ, r, tys.const_i32(0));
        hb.cond_br(direct, call, caught);
        hb.position_at_end(call);
        let hcallee = match callee {
            Callee::Function(nf) => callee_ptr(&hb, fn_ty, nf),
            Callee::Address(_) => hb.cast(Opcode::LLVMIntToPtr, ps[args.len()], fn_ty.ptr()),
        };
        let v = hb.call(fn_ty, hcallee, &ps[..args.len()]);
        if !rt.is_void() {
            let at = hb.binop(Opcode::LLVMAdd, hframe, tys.const_i32(FRAME_RESULT));
            let p = hb.cast(Opcode::LLVMIntToPtr, at, rt.ptr());
            hb.store(v, p, self.result_align(rt));
        }
        hb.ret(Some(tys.const_i32(0)));
        hb.position_at_end(caught);
        hb.ret(Some(tys.const_i32(1)));
        drop(hb);
        // The caller: the frame pushed, the helper called, the frame popped.
        let frame = self.eh_frame()?;
        let stack = self.one(stack_g)?;
        let stack_p = self.ptr(stack, i32t);
        let outer = self.b.load(i32t, stack_p, 1);
        let next = self.offset(frame, FRAME_NEXT);
        let next_p = self.ptr(next, i32t);
        self.b.store(outer, next_p, 1);
        let clauses = self.offset(frame, FRAME_CLAUSES);
        let clauses_p = self.ptr(clauses, i32t);
        self.b.store(tys.const_i32(list as i64), clauses_p, 1);
        self.b.store(frame, stack_p, 1);
        let mut hargs = args.to_vec();
        hargs.extend(callee_i32);
        hargs.push(frame);
        let flag = self.b.call(hty, h, &hargs);
        self.b.store(outer, stack_p, 1);
        if rt.is_void() {
            return Ok((flag, flag));
        }
        let at = self.offset(frame, FRAME_RESULT);
        let p = self.ptr(at, rt);
        Ok((self.b.load(rt, p, self.result_align(rt)), flag))
    }

    /// A landing pad's value: the exception and selector the unwinder left in the frame.
    pub fn eh_landing_pad(&mut self) -> R<Vals<'a>> {
        let i32t = self.lw.tys.i32();
        let frame = self.eh_frame()?;
        let mut out = Vec::new();
        for off in [FRAME_EXCEPTION, FRAME_SELECTOR] {
            let at = self.offset(frame, off);
            let p = self.ptr(at, i32t);
            out.push(self.b.load(i32t, p, 1));
        }
        Ok(Vals::from_vec(out))
    }

    /// `resume`: the exception on to the next frame out.
    pub fn eh_resume(&mut self, v: Value<'a>) -> R<()> {
        let eh = self
            .lw
            .eh
            .as_ref()
            .expect("resume lowered with the unwinder");
        let resume = self.lw.funcs[&eh.resume];
        let x = self.get(v)?;
        let exc = *x.as_slice().first().ok_or("a resume of no value")?;
        let fty = resume.function_type();
        if fty.fn_params().len() != 1 {
            return Err(format!("{RESUME} is not a function of one argument"));
        }
        self.b.call(fty, resume, &[exc]);
        self.b.unreachable();
        Ok(())
    }

    /// The clause list of the landing pad invoke `i` unwinds to (None without the
    /// unwinder: the invoke is a plain call).
    pub fn eh_list_of(&self, i: Value<'a>) -> R<Option<i32>> {
        let Some(eh) = self.lw.eh.as_ref() else {
            return Ok(None);
        };
        let unwind = i.invoke_dests().1;
        let lp = unwind
            .instructions()
            .into_iter()
            .find(|x| x.opcode() == Some(Opcode::LLVMLandingPad))
            .ok_or("an invoke whose unwind block has no landing pad")?;
        Ok(Some(eh.lists.get(&lp).copied().unwrap_or(0)))
    }
}
