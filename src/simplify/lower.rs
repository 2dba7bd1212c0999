//! The lowering's module level: a new module in the PNaCl subset is built beside the old
//! one. Every function gets its signature in the subset (`Conv`), every global variable
//! its flattened twin (`globals.rs`), the symbols the start-up code asks for by name get
//! their definitions (the constructor arrays, the TLS template), and then each function
//! body is converted (`func.rs`).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::globals::{self, Tls};
use super::shape::{LeafKind, Shapes};
use super::Problem;
use crate::llvm::edit::{Block, Linkage, Module, Opcode, Type, Types, Value, ValueKind};
use crate::llvm::Target;

/// The library functions a pexe's bitcode may leave undefined: the simplification turns
/// their calls into PNaCl intrinsics or constants (RewritePNaClLibraryCalls, ExpandTls).
pub const LIBRARY_CALLS: &[&str] = &[
    "memcpy",
    "memmove",
    "memset",
    "setjmp",
    "longjmp",
    "__nacl_tp_tls_offset",
    "__nacl_tp_tdb_offset",
];

/// The symbols the simplification defines itself, which the C library's start-up refers
/// to: the constructor and destructor arrays (ExpandCtors) and the TLS template
/// (ExpandTls). A link leaves them undefined. With the exception lowering's tables
/// (`eh::TABLES`, which the C++ library's unwinder reads), `synthesized()` lists them all.
const START_UP_SYMBOLS: &[&str] = &[
    "__init_array_start",
    "__init_array_end",
    "__fini_array_start",
    "__fini_array_end",
    "__preinit_array_start",
    "__preinit_array_end",
    "__tls_template_start",
    "__tls_template_tdata_end",
    "__tls_template_end",
    "__tls_template_alignment",
];

/// Every symbol the simplification defines itself (a link leaves them undefined).
pub fn synthesized() -> impl Iterator<Item = &'static str> {
    START_UP_SYMBOLS
        .iter()
        .copied()
        .chain(super::eh::TABLES.iter().copied())
}

/// Whether the simplification defines `name` itself.
pub fn is_synthesized(name: &str) -> bool {
    synthesized().any(|n| n == name)
}

/// How a function's parameters and result are passed in the subset.
#[derive(Debug)]
pub struct Conv<'a> {
    /// The new function type.
    pub fn_ty: Type<'a>,
    /// How many new parameters each old parameter became.
    pub param_leaves: Vec<usize>,
    /// The old parameter types.
    pub old_params: Vec<Type<'a>>,
    pub old_ret: Type<'a>,
    /// A result of several leaves is returned through memory the caller provides: a
    /// first parameter (as PNaCl's SimplifyStructRegSignatures made it `sret`).
    pub sret: bool,
    /// A variadic function takes its variable arguments in a buffer, a last parameter
    /// (ExpandVarArgs).
    pub vararg: bool,
}

/// What an old global variable's address is in the new module.
#[derive(Clone, Copy, Debug)]
pub enum GlobalRef<'a> {
    /// The new global.
    Global(Value<'a>),
    /// A thread-local variable: the thread pointer plus this (negative) offset.
    Tls(i64),
    /// An address of a new global plus an offset (`__init_array_end`, the TLS template's
    /// ends).
    Offset(Value<'a>, i64),
    /// Null (a weak symbol nothing defines).
    Null,
}

/// The module-level state every function's conversion reads.
pub struct Lowering<'a> {
    pub old: Module<'a>,
    pub new: Module<'a>,
    pub tys: Types<'a>,
    pub shapes: Shapes<'a>,
    /// Old function → new function.
    pub funcs: HashMap<Value<'a>, Value<'a>>,
    pub globals: HashMap<Value<'a>, GlobalRef<'a>>,
    convs: RefCell<HashMap<Type<'a>, Rc<Conv<'a>>>>,
    /// Declarations in the new module (intrinsics), by name.
    decls: RefCell<HashMap<String, Value<'a>>>,
    /// Constant vectors, each in an internal global of its own (GlobalizeConstantVectors).
    vector_consts: RefCell<HashMap<Value<'a>, Value<'a>>>,
    /// The number each block whose address is taken has (ExpandIndirectBr): from 1.
    pub block_numbers: HashMap<Block<'a>, u32>,
    pub tls: Option<Tls>,
    /// Old functions called as the library calls a pexe leaves to the translator.
    pub library: HashMap<Value<'a>, &'static str>,
    /// C++ exceptions' lowering, if the program has the unwinder (`eh`).
    pub eh: Option<super::eh::Eh<'a>>,
}

impl<'a> Lowering<'a> {
    /// The conversion of old function type `fty`.
    pub fn conv(&self, fty: Type<'a>) -> Result<Rc<Conv<'a>>, String> {
        if let Some(c) = self.convs.borrow().get(&fty) {
            return Ok(c.clone());
        }
        let tys = self.tys;
        let old_ret = fty.fn_return();
        let old_params = fty.fn_params();
        let mut params = Vec::new();
        let ret_shape = self.shapes.of(old_ret)?;
        let sret = ret_shape.leaves.len() > 1;
        if sret {
            params.push(tys.i32());
        }
        let mut param_leaves = Vec::new();
        for p in &old_params {
            let s = self.shapes.of(*p)?;
            if s.bit_packed && s.leaves.len() > 1 {
                // Passed as its leaves, never through memory: fine.
            }
            param_leaves.push(s.leaves.len());
            for l in &s.leaves {
                params.push(param_type(tys, l.kind));
            }
        }
        let vararg = fty.fn_is_vararg();
        if vararg {
            params.push(tys.i32());
        }
        let ret = match ret_shape.leaves.len() {
            0 => tys.void(),
            1 => param_type(tys, ret_shape.leaves[0].kind),
            _ => tys.void(),
        };
        let c = Rc::new(Conv {
            fn_ty: tys.function(ret, &params, false),
            param_leaves,
            old_params,
            old_ret,
            sret,
            vararg,
        });
        self.convs.borrow_mut().insert(fty, c.clone());
        Ok(c)
    }

    /// The declaration of `name` of type `fty` in the new module (an intrinsic).
    pub fn decl(&self, name: &str, fty: Type<'a>) -> Value<'a> {
        if let Some(f) = self.decls.borrow().get(name) {
            return *f;
        }
        let f = match self.new.function(name) {
            Some(f) => f,
            None => self.new.add_function(name, fty),
        };
        self.decls.borrow_mut().insert(name.to_string(), f);
        f
    }

    /// The internal global holding constant vector `c` (a constant of the new module),
    /// as the bytes of its elements (GlobalizeConstantVectors).
    pub fn vector_global(&self, c: Value<'a>) -> Result<Value<'a>, String> {
        if let Some(g) = self.vector_consts.borrow().get(&c) {
            return Ok(*g);
        }
        let bytes = globals::vector_bytes(c)?;
        let g = self
            .new
            .add_global(self.tys.array(self.tys.i8(), bytes.len() as u64), "");
        g.set_linkage(Linkage::LLVMInternalLinkage);
        g.set_global_constant(true);
        g.set_alignment(16);
        g.set_initializer(self.tys.const_bytes(&bytes));
        self.vector_consts.borrow_mut().insert(c, g);
        Ok(g)
    }
}

/// The type a leaf is passed as: integers narrower than 32 bits are widened to i32
/// (ExpandSmallArguments).
pub fn param_type<'a>(tys: Types<'a>, k: LeafKind<'a>) -> Type<'a> {
    match k {
        LeafKind::I1 => tys.i32(),
        LeafKind::Int(b) if b <= 16 => tys.i32(),
        k => k.ty(tys),
    }
}

/// Converts module `old` into a new module of the PNaCl subset, in `old`'s context.
pub fn lower<'c>(
    ctx: &'c inkwell::context::Context,
    old_m: &inkwell::module::Module<'c>,
) -> Result<inkwell::module::Module<'c>, Vec<Problem>> {
    let new_m = ctx.create_module("pexe");
    let result = lower_into(old_m, &new_m);
    result?;
    if let Err(e) = new_m.verify() {
        return Err(vec![Problem::module(format!(
            "internal error: the simplified module is not valid LLVM ({})",
            e.to_string().trim().replace('\n', "; ")
        ))]);
    }
    Ok(new_m)
}

fn lower_into<'a>(
    old_m: &'a inkwell::module::Module<'_>,
    new_m: &'a inkwell::module::Module<'_>,
) -> Result<(), Vec<Problem>> {
    let old = Module::of(old_m);
    let new = Module::of(new_m);
    new.set_triple_and_layout(Target::Le32.triple(), Target::Le32.data_layout());
    let tys = old.types();
    let mut problems = Vec::new();
    if !old.inline_asm().trim().is_empty() {
        problems.push(Problem::module(
            "the module has top-level inline assembly, which a pexe cannot hold".into(),
        ));
    }
    let layout = old.layout();
    if !ilp32_le(&layout, tys) {
        return Err(vec![Problem::module(format!(
            "the module's data layout (\"{}\", triple \"{}\") is not PNaCl's 32-bit \
             little-endian one: compile for le32-unknown-nacl",
            old.data_layout_text(),
            old.triple()
        ))]);
    }
    let mut lw = Lowering {
        old,
        new,
        tys,
        shapes: Shapes::new(layout),
        funcs: HashMap::new(),
        globals: HashMap::new(),
        convs: RefCell::new(HashMap::new()),
        decls: RefCell::new(HashMap::new()),
        vector_consts: RefCell::new(HashMap::new()),
        block_numbers: HashMap::new(),
        tls: None,
        library: HashMap::new(),
        eh: None,
    };
    match super::eh::tables(old) {
        Ok(eh) => lw.eh = eh,
        Err(mut p) => problems.append(&mut p),
    }

    // Functions: the entry point external, every other definition internal; the
    // library calls a pexe leaves to the translator; anything else undefined that is
    // used is a symbol the link did not resolve.
    let mut undefined = Vec::new();
    let mut entry = false;
    for f in old.functions() {
        let name = f.name();
        if f.is_intrinsic() {
            continue;
        }
        if f.is_declaration() {
            if !f.has_uses() {
                continue;
            }
            if let Some(l) = LIBRARY_CALLS.iter().find(|l| **l == name) {
                lw.library.insert(f, l);
                continue;
            }
            if f.linkage() == Linkage::LLVMExternalWeakLinkage {
                continue;
            }
            undefined.push(name);
            continue;
        }
        let conv = match lw.conv(f.function_type()) {
            Ok(c) => c,
            Err(e) => {
                problems.push(Problem::in_function(
                    &name,
                    None,
                    format!("its signature: {e}"),
                ));
                continue;
            }
        };
        let nf = new.add_function(&name, conv.fn_ty);
        if name == "_start" && f.linkage() == Linkage::LLVMExternalLinkage {
            // Its type is the program's business (real pexes have `float _start(i32)`).
            entry = true;
        } else {
            nf.set_linkage(Linkage::LLVMInternalLinkage);
        }
        lw.funcs.insert(f, nf);
    }
    if !entry {
        problems.push(Problem::module(
            "the module has no entry point: no external function `_start` (a whole program \
             links the C library's start-up; pnacl-clang does)"
                .into(),
        ));
    }

    // Global variables (their relocations need block numbers).
    number_blocks(&mut lw);
    let pending = match globals::declare(&mut lw, &mut undefined) {
        Ok(p) => Some(p),
        Err(mut p) => {
            problems.append(&mut p);
            None
        }
    };
    if !undefined.is_empty() {
        undefined.sort();
        undefined.dedup();
        problems.push(Problem::module(format!(
            "undefined symbol{}: {} (the module must be a whole program: link every object \
             and library it uses, as pnacl-clang does)",
            if undefined.len() == 1 { "" } else { "s" },
            undefined.join(", ")
        )));
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    if let Err(mut p) = globals::initialize(&lw, pending.expect("declared")) {
        problems.append(&mut p);
    }
    let defined: Vec<Value<'a>> = lw.funcs.keys().copied().collect();
    let mut order: Vec<Value<'a>> = old.functions();
    order.retain(|f| lw.funcs.contains_key(f));
    debug_assert_eq!(order.len(), defined.len());
    for f in order {
        if let Err(p) = super::func::lower_function(&lw, f) {
            problems.push(p);
            if problems.len() >= 50 {
                break;
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// Gives every block whose address is taken (a blockaddress constant) a number from 1,
/// per function in the order of its blocks (ExpandIndirectBr).
fn number_blocks(lw: &mut Lowering<'_>) {
    let mut taken: HashSet<Block<'_>> = HashSet::new();
    let mut seen: HashSet<Value<'_>> = HashSet::new();
    fn scan<'a>(c: Value<'a>, taken: &mut HashSet<Block<'a>>, seen: &mut HashSet<Value<'a>>) {
        if !seen.insert(c) {
            return;
        }
        match c.kind() {
            ValueKind::BlockAddress => {
                taken.insert(c.operand_block(1));
            }
            ValueKind::ConstExpr(_) | ValueKind::ConstAggregate => {
                for o in c.operands() {
                    scan(o, taken, seen);
                }
            }
            _ => {}
        }
    }
    for f in lw.funcs.keys() {
        for bl in f.blocks() {
            for i in bl.instructions() {
                for o in i.operands() {
                    if o.is_constant() {
                        scan(o, &mut taken, &mut seen);
                    }
                }
            }
        }
    }
    for g in lw.old.globals() {
        if let Some(init) = g.initializer() {
            scan(init, &mut taken, &mut seen);
        }
    }
    if taken.is_empty() {
        return;
    }
    for f in lw.old.functions() {
        let mut n = 0;
        for bl in f.blocks() {
            if taken.contains(&bl) {
                n += 1;
                lw.block_numbers.insert(bl, n);
            }
        }
    }
}

/// Whether the data layout is PNaCl's data model: little-endian, 32-bit pointers, i64 and
/// double aligned to 8.
fn ilp32_le(layout: &crate::llvm::edit::Layout<'_>, tys: Types<'_>) -> bool {
    layout.store_size(tys.i8().ptr()) == 4
        && layout.abi_align(tys.i64()) == 8
        && layout.abi_align(tys.f64()) == 8
        && layout.abi_align(tys.i32()) == 4
        && layout.field_offset(tys.structure(&[tys.i8(), tys.i32()], false), 1) == 4
}

/// Whether an opcode is a cast.
pub fn is_cast(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        LLVMTrunc
            | LLVMZExt
            | LLVMSExt
            | LLVMFPToUI
            | LLVMFPToSI
            | LLVMUIToFP
            | LLVMSIToFP
            | LLVMFPTrunc
            | LLVMFPExt
            | LLVMPtrToInt
            | LLVMIntToPtr
            | LLVMBitCast
            | LLVMAddrSpaceCast
    )
}

/// The function a callee is, through pointer casts and aliases.
pub fn strip_callee(mut c: Value<'_>) -> Value<'_> {
    loop {
        match c.kind() {
            ValueKind::ConstExpr(Opcode::LLVMBitCast)
            | ValueKind::ConstExpr(Opcode::LLVMAddrSpaceCast) => c = c.operand(0),
            ValueKind::Alias => c = c.aliasee(),
            _ => return c,
        }
    }
}
