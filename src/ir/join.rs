//! Two modules made one: `b`'s functions, globals, types and bodies after `a`'s, every
//! value id of both renumbered to the joined module's (spec/000's absolute ids: functions,
//! then globals, then a body's locals, so that adding a function moves every global and
//! every local of both). A declaration of `b`'s that `a` declares by the same name (an
//! intrinsic both call) is `a`'s. Nothing else is merged by name: which of `b`'s symbols
//! stand for which of `a`'s is the caller's business (`translate::host`).

use super::{BodyLoc, Code, Init, InstKind, Module, ValueId};

/// The joined module, and where `b`'s functions and globals went in it.
pub struct Joined {
    pub module: Module,
    /// `b`'s function `f` is the joined module's function `b_functions[f]`.
    pub b_functions: Vec<ValueId>,
    /// `b`'s global `g` is the joined module's value `b_globals[g]` (an absolute id).
    pub b_globals: Vec<ValueId>,
}

/// How one input's ids become the joined module's.
struct Renumber<'a> {
    functions: &'a [ValueId],
    globals: &'a [ValueId],
    /// The input's first local id, and the joined module's.
    locals_from: u32,
    locals_to: u32,
}

impl Renumber<'_> {
    fn id(&self, v: ValueId) -> ValueId {
        let nf = self.functions.len() as u32;
        if v < nf {
            self.functions[v as usize]
        } else if v < self.locals_from {
            self.globals[(v - nf) as usize]
        } else {
            v - self.locals_from + self.locals_to
        }
    }

    /// Renumbers the value operands of the body at `loc` in `code` (block numbers and
    /// everything else stay).
    fn body(&self, code: &mut Code, loc: &BodyLoc) {
        let Code {
            insts, operands, ..
        } = code;
        let ops = &mut operands[loc.start.operands..loc.end.operands];
        let r = |v: &mut ValueId| *v = self.id(*v);
        for inst in &mut insts[loc.start.insts..loc.end.insts] {
            match &mut inst.kind {
                InstKind::Binop { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
                    r(lhs);
                    r(rhs);
                }
                InstKind::Cast { val: v, .. }
                | InstKind::Ret { val: Some(v) }
                | InstKind::CondBr { cond: v, .. }
                | InstKind::Switch { cond: v, .. }
                | InstKind::Alloca { size: v, .. }
                | InstKind::Load { ptr: v, .. } => r(v),
                InstKind::Store { ptr, val, .. } => {
                    r(ptr);
                    r(val);
                }
                InstKind::Select { cond, t, f } => {
                    r(cond);
                    r(t);
                    r(f);
                }
                InstKind::ExtractElement { vec, idx } => {
                    r(vec);
                    r(idx);
                }
                InstKind::InsertElement { vec, elt, idx } => {
                    r(vec);
                    r(elt);
                    r(idx);
                }
                // A direct call's callee is a function's id, an indirect one's a value's:
                // both renumbered.
                InstKind::Call { callee, args, .. } => {
                    r(callee);
                    let from = args.start as usize;
                    ops[from..from + args.len as usize].iter_mut().for_each(r);
                }
                // (value, block) pairs.
                InstKind::Phi { incoming } => {
                    let from = incoming.start as usize;
                    ops[from..from + 2 * incoming.len as usize]
                        .iter_mut()
                        .step_by(2)
                        .for_each(r);
                }
                InstKind::Ret { val: None } | InstKind::Br { .. } | InstKind::Unreachable => {}
            }
        }
    }
}

/// `a` and `b` joined (see the module's comment).
pub fn join(a: &Module, b: &Module) -> Joined {
    let (af, ag) = (a.functions.len() as u32, a.globals.len() as u32);
    let types_from = a.types.len() as u32;
    // b's functions: a's declaration of the same name, or appended.
    let mut b_functions = Vec::with_capacity(b.functions.len());
    let mut appended = 0u32;
    for f in &b.functions {
        let same = match (&f.body, &f.name) {
            (None, Some(name)) => a
                .functions
                .iter()
                .position(|g| g.body.is_none() && g.name.as_ref() == Some(name)),
            _ => None,
        };
        match same {
            Some(k) if a.types[a.functions[k].ty as usize] == b.types[f.ty as usize] => {
                b_functions.push(k as u32)
            }
            _ => {
                b_functions.push(af + appended);
                appended += 1;
            }
        }
    }
    let nf = af + appended;
    let a_functions: Vec<ValueId> = (0..af).collect();
    let a_globals: Vec<ValueId> = (0..ag).map(|g| nf + g).collect();
    let b_globals: Vec<ValueId> = (0..b.globals.len() as u32).map(|g| nf + ag + g).collect();
    let ng = nf + ag + b.globals.len() as u32;

    let mut m = a.clone();
    m.types.extend(b.types.iter().cloned());
    let ra = Renumber {
        functions: &a_functions,
        globals: &a_globals,
        locals_from: a.num_global_values(),
        locals_to: ng,
    };
    let rb = Renumber {
        functions: &b_functions,
        globals: &b_globals,
        locals_from: b.num_global_values(),
        locals_to: ng,
    };
    for f in &a.functions {
        if let Some(loc) = &f.body {
            ra.body(&mut m.code, loc);
        }
    }
    for (k, f) in b.functions.iter().enumerate() {
        if b_functions[k] < af {
            continue;
        }
        let mut f = f.clone();
        f.ty += types_from;
        if let Some(loc) = &f.body {
            let placed = m.code.push(&b.code.body(loc));
            rb.body(&mut m.code, &placed);
            f.body = Some(placed);
        }
        m.functions.push(f);
    }
    for g in &mut m.globals {
        relocate(&mut g.inits, &ra);
    }
    for g in &b.globals {
        let mut g = g.clone();
        relocate(&mut g.inits, &rb);
        m.globals.push(g);
    }
    m.symbol_order = a
        .symbol_order
        .iter()
        .map(|&v| ra.id(v))
        .chain(b.symbol_order.iter().map(|&v| rb.id(v)))
        .collect();
    Joined {
        module: m,
        b_functions,
        b_globals,
    }
}

fn relocate(inits: &mut [Init], r: &Renumber<'_>) {
    for i in inits {
        if let Init::Reloc { target, .. } = i {
            *target = r.id(*target);
        }
    }
}
