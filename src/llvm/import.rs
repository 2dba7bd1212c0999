//! LLVM 14 module → model, numbered the way pnacl-freeze's `NaClValueEnumerator` numbered
//! an LLVM 3.3 module (writer.md §5, §7), so that `bitcode::write` then produces the pexe
//! pnacl-freeze would have produced.
//!
//! - Types: counted over the function signatures, arguments, operands and results (pass 1),
//!   then numbered by decreasing count, ties to the first seen, each after its subtypes.
//! - Values: function addresses, then globals, in module order; per function the
//!   parameters, the constants (first-use order, stably sorted by type id and decreasing
//!   use count, then partitioned integers first by the two-pointer swap of
//!   `std::partition`), then the value-producing instructions.
//! - Pointer casts are elided: `bitcast` to a pointer and `ptrtoint` to i32 (one level),
//!   `inttoptr` (recursively); pointers are i32.
//! - LLVM 14's `llvm.memcpy/memmove/memset` (4 arguments, alignment as `align` attributes)
//!   become 3.3's 5-argument form with the alignment as an i32 argument.
//!
//! Only what the pexe format cannot hold is an error here (pnacl-freeze writes modules that
//! break ABI rules); the ABI rules are `llvm::abicheck`'s.

use std::collections::HashMap;

use llvm_sys::prelude::*;
use llvm_sys::{LLVMLinkage, LLVMOpcode};

use super::edit::{self, Block, TypeKind, Value, ValueKind};
use super::legacy::Legacy;
use crate::ir::{
    Align, BinOp, BodyBuf, CastOp, Const, ConstValue, FnType, Function, Global, Init, Inst,
    InstKind, Linkage, Module, Pred, Span, SwitchCase, Type, ValueId, ValueType,
};

/// Why a module cannot be written as a pexe: each problem, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    pub problems: Vec<String>,
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.problems.join("\n"))
    }
}

type R<T> = Result<T, String>;

fn shown(v: Value<'_>) -> String {
    v.text().trim().to_string()
}

/// The PNaCl value type of LLVM type `t`, pointers being i32 (writer.md §5.1).
pub(super) fn value_type(t: edit::Type<'_>) -> R<ValueType> {
    let bad = || format!("type {} cannot be written in a pexe", t.text());
    match t.kind() {
        TypeKind::Void => Ok(ValueType::Void),
        TypeKind::Float => Ok(ValueType::Float),
        TypeKind::Double => Ok(ValueType::Double),
        TypeKind::Int(w) => ValueType::int(w as u64).ok_or_else(bad),
        TypeKind::Pointer { .. } => Ok(ValueType::I32),
        TypeKind::Vector(e, n) => {
            let e = value_type(e)?;
            ValueType::vector(n as u64, e).ok_or_else(bad)
        }
        _ => Err(bad()),
    }
}

/// The normalised function type (pointers i32, no varargs).
fn fn_type(t: edit::Type<'_>) -> R<FnType> {
    Ok(FnType {
        ret: value_type(t.fn_return())?,
        params: t
            .fn_params()
            .into_iter()
            .map(value_type)
            .collect::<R<_>>()?,
        // pnacl-freeze drops the flag (writer.md §4).
        vararg: false,
    })
}

/// What pass 1 counts for a value of LLVM type `t`: a pointer counts its pointee, then
/// the type is normalised; labels count nothing (writer.md §5.1).
fn counted_type(t: edit::Type<'_>) -> R<Option<Type>> {
    let t = match t.kind() {
        TypeKind::Pointer { pointee, .. } => pointee,
        _ => t,
    };
    match t.kind() {
        _ if t.is_label_or_metadata() => Ok(None),
        TypeKind::Function => Ok(Some(Type::Function(fn_type(t)?))),
        _ => Ok(Some(Type::Value(value_type(t)?))),
    }
}

/// Whether `<n x elem>` is one of the ABI's vector types (`ValueType::vector`'s list).
pub fn is_abi_vector(elem: edit::Type<'_>, n: u32) -> bool {
    !elem.is_pointer()
        && value_type(elem)
            .ok()
            .is_some_and(|e| !e.is_vector() && ValueType::vector(n as u64, e).is_some())
}

/// Whether instruction `v` is a pointer cast the writer elides (writer.md §7.1).
fn is_elided_cast(v: Value<'_>) -> bool {
    match v.opcode() {
        Some(LLVMOpcode::LLVMBitCast) => v.ty().is_pointer(),
        Some(LLVMOpcode::LLVMIntToPtr) => true,
        Some(LLVMOpcode::LLVMPtrToInt) => v.ty().int_width() == Some(32),
        _ => false,
    }
}

/// `ElideCasts`: the value a use of `v` refers to in the pexe.
fn elide(v: Value<'_>) -> Value<'_> {
    match v.opcode() {
        Some(LLVMOpcode::LLVMBitCast) if v.ty().is_pointer() => v.operand(0),
        Some(LLVMOpcode::LLVMIntToPtr) => elide(v.operand(0)),
        Some(LLVMOpcode::LLVMPtrToInt) if v.ty().int_width() == Some(32) => v.operand(0),
        _ => v,
    }
}

/// Which of LLVM 14's memory intrinsics a function is (they change form in a pexe).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mem {
    Copy,
    Move,
    Set,
}

fn mem_kind(name: &[u8]) -> Option<Mem> {
    match name {
        b"llvm.memcpy.p0i8.p0i8.i32" => Some(Mem::Copy),
        b"llvm.memmove.p0i8.p0i8.i32" => Some(Mem::Move),
        b"llvm.memset.p0i8.i32" => Some(Mem::Set),
        _ => None,
    }
}

/// The operands of an instruction as LLVM 3.3 had them, for counting and for constants:
/// LLVM 14's mem* calls gain the i32 alignment before `isvolatile`.
fn operands<'m>(ctx: &Ctx<'m>, i: Value<'m>) -> Vec<Value<'m>> {
    let mut ops = i.operands();
    if i.opcode() == Some(LLVMOpcode::LLVMCall) && ops.len() == 5 {
        if let Some(&f) = ctx.global_ids.get(&i.called_value()) {
            if ctx.mem[f as usize].is_some() {
                let ty = ctx.module.types();
                ops.insert(3, ty.const_int(ty.i32(), mem_align(i)));
            }
        }
    }
    ops
}

/// The alignment of a mem* call: its destination's `align` attribute, 1 without one.
fn mem_align(call: Value<'_>) -> u64 {
    let align = edit::attr_kind("align");
    call.attributes(1)
        .into_iter()
        .find(|a| a.kind() == Some(align))
        .and_then(|a| a.int_value())
        .unwrap_or(1)
}

/// Module-wide facts the passes share.
struct Ctx<'m> {
    module: edit::Module<'m>,
    functions: Vec<Value<'m>>,
    globals: Vec<Value<'m>>,
    /// Value id of each function and global variable.
    global_ids: HashMap<Value<'m>, u32>,
    /// The 3.3 signature of each function.
    sigs: Vec<FnType>,
    mem: Vec<Option<Mem>>,
    /// What LLVM 14 changed on reading an LLVM 3.x file.
    legacy: Option<Legacy>,
}

/// The name of the LLVM named metadata that carries a pexe's type table order through an
/// LLVM module (`pnacl-llvm --target le32` writes it where the order is not the one
/// pnacl-freeze derives; pnacl-freeze follows it): one node of one string per type, as
/// `Type` displays it.
pub const TYPES_METADATA: &str = "pnacl.types";

/// The types a type table must list before `t`: a function's return and parameter
/// types, a vector's element type.
fn subtypes(t: &Type) -> Vec<ValueType> {
    match t {
        Type::Function(f) => std::iter::once(f.ret)
            .chain(f.params.iter().copied())
            .collect(),
        Type::Value(v) if v.is_vector() => vec![v.elem()],
        Type::Value(_) => vec![],
    }
}

/// Pass 1 and 2 of the type enumeration (writer.md §5.2).
#[derive(Default)]
struct Types {
    list: Vec<Type>,
    count: Vec<u64>,
    index: HashMap<Type, usize>,
}

impl Types {
    fn count(&mut self, t: Type) {
        if let Some(&i) = self.index.get(&t) {
            self.count[i] += 1;
            return;
        }
        for sub in subtypes(&t) {
            self.count(Type::Value(sub));
        }
        self.index.insert(t.clone(), self.list.len());
        self.list.push(t);
        self.count.push(1);
    }

    fn count_llvm(&mut self, t: edit::Type<'_>) -> R<()> {
        if let Some(t) = counted_type(t)? {
            self.count(t);
        }
        Ok(())
    }

    /// The final table: decreasing count, ties to the smaller pass-1 index, each type
    /// after its subtypes.
    fn table(&self) -> Vec<Type> {
        let mut order: Vec<usize> = (0..self.list.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.count[i]));
        let mut placed: HashMap<&Type, ()> = HashMap::new();
        let mut out = Vec::with_capacity(self.list.len());
        fn place<'a>(
            t: &'a Type,
            placed: &mut HashMap<&'a Type, ()>,
            out: &mut Vec<Type>,
            types: &'a Types,
        ) {
            if placed.contains_key(t) {
                return;
            }
            for sub in subtypes(t) {
                let st = &types.list[types.index[&Type::Value(sub)]];
                place(st, placed, out, types);
            }
            placed.insert(t, ());
            out.push(t.clone());
        }
        for i in order {
            place(&self.list[i], &mut placed, &mut out, self);
        }
        out
    }
}

/// Converts an LLVM 14 module into the model pnacl-freeze would have written for it,
/// following the symbol-table order its `pnacl.symtab` metadata records, if any.
pub fn import(m: &inkwell::module::Module<'_>) -> Result<Module, ImportError> {
    import_with(m, true)
}

/// `import`; with `symtab_metadata` false the metadata is ignored like all other metadata
/// (pnacl-finalize, which strips names), and the symbol table takes StringMap order.
pub fn import_with(
    m: &inkwell::module::Module<'_>,
    symtab_metadata: bool,
) -> Result<Module, ImportError> {
    import_read_from(m, symtab_metadata, None)
}

/// `import_with`, for a module read from `data`: an LLVM 3.x file is frozen as the 2014
/// pnacl-freeze froze it, from the file as written (the names' insertion order, loads and
/// stores without an alignment).
pub fn import_read_from(
    m: &inkwell::module::Module<'_>,
    symtab_metadata: bool,
    data: Option<&[u8]>,
) -> Result<Module, ImportError> {
    let module = edit::Module::of(m);
    let mut problems = Vec::new();
    let legacy = data.and_then(|d| Legacy::of(d, module.as_raw()));
    match import_module(module, symtab_metadata, legacy, &mut problems) {
        Ok(module) if problems.is_empty() => Ok(module),
        Ok(_) => Err(ImportError { problems }),
        Err(e) => {
            problems.push(e);
            Err(ImportError { problems })
        }
    }
}

/// The names of the `pnacl.symtab` named metadata, in order.
fn symtab_metadata(m: edit::Module<'_>) -> Option<Vec<Vec<u8>>> {
    match m.named_metadata(crate::bitcode::symtab_order::METADATA)[..] {
        [node] => node
            .md_operands()
            .into_iter()
            .map(|op| op.and_then(|op| op.md_string()))
            .collect(),
        _ => None,
    }
}

/// The type table pnacl-freeze derives for module `m` (None if it cannot be imported).
pub(crate) fn derived_types(m: edit::Module<'_>) -> Option<Vec<Type>> {
    let mut problems = Vec::new();
    let ctx = context(m, None, &mut problems).ok()?;
    Some(count_types(&ctx).ok()?.table())
}

/// The module's functions, globals and 3.3 signatures.
fn context<'m>(
    module: edit::Module<'m>,
    legacy: Option<Legacy>,
    problems: &mut Vec<String>,
) -> R<Ctx<'m>> {
    let mut ctx = Ctx {
        module,
        functions: Vec::new(),
        globals: Vec::new(),
        global_ids: HashMap::new(),
        sigs: Vec::new(),
        mem: Vec::new(),
        legacy,
    };
    // An LLVM 3.x file's functions in its own order (LLVM 14 moves the intrinsics it
    // upgrades to the end), which pnacl-freeze numbered them in.
    let functions = module.functions();
    let by_raw: HashMap<LLVMValueRef, Value<'m>> =
        functions.iter().map(|f| (f.as_raw(), *f)).collect();
    let in_file: Option<Vec<Value<'m>>> =
        ctx.legacy
            .as_ref()
            .and_then(|l| l.functions())
            .and_then(|fs| {
                fs.iter()
                    .map(|f| by_raw.get(&f.value()?).copied())
                    .collect()
            });
    ctx.functions = in_file.unwrap_or(functions);
    ctx.globals = module.globals();
    let all = ctx.functions.iter().chain(&ctx.globals);
    ctx.global_ids
        .extend(all.enumerate().map(|(id, &v)| (v, id as u32)));
    if !module.aliases().is_empty() {
        problems.push("aliases cannot be written in a pexe".into());
    }
    // Signatures (3.3 forms for the mem* intrinsics).
    for &f in &ctx.functions {
        let name = f.name_bytes();
        let mem = mem_kind(&name);
        let sig = match mem {
            Some(k) => {
                use ValueType::{I1, I32, I8};
                let second = if k == Mem::Set { I8 } else { I32 };
                let params = vec![I32, second, I32, I32, I1];
                FnType {
                    ret: ValueType::Void,
                    params,
                    vararg: false,
                }
            }
            None => match fn_type(f.function_type()) {
                Ok(s) => s,
                Err(e) => {
                    problems.push(format!("function {}: {e}", String::from_utf8_lossy(&name)));
                    FnType {
                        ret: ValueType::Void,
                        params: vec![],
                        vararg: false,
                    }
                }
            },
        };
        ctx.mem.push(mem);
        ctx.sigs.push(sig);
    }
    if !problems.is_empty() {
        return Err(problems.remove(problems.len() - 1));
    }
    Ok(ctx)
}

/// Pass 1 of the type enumeration: every type the module's records name, counted.
fn count_types(ctx: &Ctx<'_>) -> R<Types> {
    let mut types = Types::default();
    for sig in &ctx.sigs {
        types.count(Type::Function(sig.clone()));
    }
    for (i, &f) in ctx.functions.iter().enumerate() {
        if ctx.mem[i].is_some() {
            // 3.3's declaration: (i8*, i8* or i8, i32, i32, i1); a pointer counts its
            // pointee, so the second parameter counts i8 either way.
            use ValueType::{I1, I32, I8};
            for t in [I8, I8, I32, I32, I1] {
                types.count(Type::Value(t));
            }
        } else {
            for p in f.params() {
                types.count_llvm(p.ty())?;
            }
        }
        for inst in instructions(f) {
            if !is_elided_cast(inst) {
                if inst.opcode() == Some(LLVMOpcode::LLVMSwitch) {
                    types.count_llvm(inst.operand(0).ty())?;
                } else {
                    for op in operands(ctx, inst) {
                        if matches!(op.kind(), ValueKind::GlobalVariable | ValueKind::Block) {
                            continue;
                        }
                        if let Some(&id) = ctx.global_ids.get(&op) {
                            // A function operand: its (3.3) signature.
                            types.count(Type::Function(ctx.sigs[id as usize].clone()));
                        } else {
                            types.count_llvm(op.ty())?;
                        }
                    }
                }
                types.count_llvm(inst.ty())?;
            }
        }
    }
    Ok(types)
}

/// The type table in the order the module's `pnacl.types` metadata records, if it names
/// exactly the types of `table` (in their `Display` form), each after its subtypes.
fn recorded_types(m: edit::Module<'_>, table: &[Type]) -> Option<Vec<Type>> {
    let [node] = m.named_metadata(TYPES_METADATA)[..] else {
        return None;
    };
    let mut by_text: HashMap<String, &Type> = table.iter().map(|t| (t.to_string(), t)).collect();
    let mut out: Vec<Type> = Vec::with_capacity(table.len());
    for op in node.md_operands() {
        let text = op?.md_string()?;
        out.push(by_text.remove(std::str::from_utf8(&text).ok()?)?.clone());
    }
    if out.len() != table.len() {
        return None;
    }
    let mut placed = std::collections::HashSet::new();
    for t in &out {
        if !subtypes(t)
            .into_iter()
            .all(|s| placed.contains(&Type::Value(s)))
        {
            return None;
        }
        placed.insert(t.clone());
    }
    Some(out)
}

fn import_module(
    m: edit::Module<'_>,
    symtab_metadata: bool,
    legacy: Option<Legacy>,
    problems: &mut Vec<String>,
) -> R<Module> {
    let ctx = context(m, legacy, problems)?;
    // Pass 1: count the types.
    let types = count_types(&ctx)?;
    // Pass 2: the table, unless the module records the pexe's own (a later pnacl-freeze
    // ordered some types differently).
    let mut table = types.table();
    if symtab_metadata {
        if let Some(recorded) = recorded_types(m, &table) {
            table = recorded;
        }
    }
    let type_id: HashMap<Type, u32> = table
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), i as u32))
        .collect();

    let mut module = Module {
        pnacl_version: 2,
        types: table,
        functions: Vec::with_capacity(ctx.functions.len()),
        globals: Vec::with_capacity(ctx.globals.len()),
        symbol_order: Vec::new(),
        code: Default::default(),
    };
    for (i, &f) in ctx.functions.iter().enumerate() {
        let name = f.name_bytes();
        let shown_name = String::from_utf8_lossy(&name).into_owned();
        let linkage = match f.linkage() {
            LLVMLinkage::LLVMExternalLinkage => Linkage::External,
            LLVMLinkage::LLVMInternalLinkage => Linkage::Internal,
            l => {
                problems.push(format!(
                    "function {shown_name}: linkage {l:?} cannot be written in a pexe (external or internal only)"
                ));
                Linkage::Internal
            }
        };
        let cc = f.call_conv();
        if cc != 0 {
            problems.push(format!(
                "function {shown_name}: calling convention {cc} cannot be written in a pexe (C only)"
            ));
        }
        let defined = !f.is_declaration();
        module.functions.push(Function {
            ty: type_id[&Type::Function(ctx.sigs[i].clone())],
            cc: 0,
            linkage,
            name: (!name.is_empty()).then(|| name.into_boxed_slice()),
            body: None,
            is_defined: defined,
            pos: 0,
        });
    }
    for &g in &ctx.globals {
        match global(&ctx, g) {
            Ok(gl) => module.globals.push(gl),
            Err(e) => problems.push(format!("global {}: {e}", g.name())),
        }
    }
    for (i, &f) in ctx.functions.iter().enumerate() {
        if f.is_declaration() {
            continue;
        }
        match function(&ctx, &module, &type_id, i as u32, f) {
            Ok(body) => module.set_body(i as u32, &body),
            Err(e) => problems.push(format!("function {}: {e}", f.name())),
        }
    }
    // The symbol table: in the order the module's metadata records, when it names exactly
    // the named functions and globals (a le32 module from pnacl-llvm), else in StringMap
    // order.
    module.symbol_order = symtab_metadata
        .then(|| self::symtab_metadata(m))
        .flatten()
        .and_then(|names| crate::bitcode::symtab_order::from_names(&module, &names))
        .unwrap_or_else(|| {
            // An LLVM 3.x file's names went in in the order of its own symbol table.
            let raw_ids: HashMap<LLVMValueRef, u32> = ctx
                .global_ids
                .iter()
                .map(|(v, id)| (v.as_raw(), *id))
                .collect();
            let first: Vec<ValueId> = ctx
                .legacy
                .iter()
                .flat_map(|l| &l.symtab)
                .filter_map(|v| raw_ids.get(v).copied())
                .collect();
            crate::bitcode::symtab_order::derived_after(&module, &first)
        });
    Ok(module)
}

/// A global variable's record: alignment, constness and the flattened initializer.
fn global(ctx: &Ctx<'_>, g: Value<'_>) -> R<Global> {
    let Some(init) = g.initializer() else {
        return Err("a global variable needs an initializer in a pexe".into());
    };
    let a = g.alignment();
    let align = Align::from_bytes(a as u64)
        .ok_or_else(|| format!("alignment {a} cannot be written in a pexe"))?;
    let t = init.ty();
    let bad = |why: &str| Err(format!("initializer {} {why}", shown(init)));
    let (inits, compound) = if t.kind() == TypeKind::Struct {
        if !t.is_packed_struct() {
            return bad("is not a packed struct");
        }
        if !t.is_literal_struct() {
            return bad("has a named struct type");
        }
        if init.kind() == ValueKind::ConstZero {
            return bad("is an all-zero struct: write its fields");
        }
        let fields = init.operands();
        if fields.len() != t.struct_fields().len() {
            return bad("is not a constant struct of its fields");
        }
        let elements = fields.into_iter().map(|c| simple_init(ctx, c));
        (elements.collect::<R<_>>()?, true)
    } else {
        (vec![simple_init(ctx, init)?], false)
    };
    let name = g.name_bytes();
    Ok(Global {
        align,
        is_const: g.is_global_constant(),
        inits,
        compound,
        name: (!name.is_empty()).then(|| name.into_boxed_slice()),
        pos: 0,
    })
}

/// A SimpleElement (writer.md §6.3).
fn simple_init(ctx: &Ctx<'_>, c: Value<'_>) -> R<Init> {
    let t = c.ty();
    match t.kind() {
        TypeKind::Array(e, n) => {
            if e.int_width() != Some(8) {
                return Err(format!("array initializer {} is not of i8", shown(c)));
            }
            match c.kind() {
                ValueKind::ConstZero => return Ok(Init::Zero(n)),
                ValueKind::ConstData => {
                    return Ok(Init::Data(c.const_bytes().unwrap_or_default().into()))
                }
                _ => {}
            }
            let mut bytes = Vec::with_capacity(n as usize);
            // (An undef array has no operands: its bytes are not constants.)
            let ops = c.operands();
            for k in 0..n as usize {
                let Some(x) = ops.get(k).and_then(|b| b.const_zext()) else {
                    return Err(format!(
                        "array initializer {} has a non-constant byte",
                        shown(c)
                    ));
                };
                bytes.push(x as u8);
            }
            Ok(Init::Data(bytes.into()))
        }
        TypeKind::Int(32) => {
            let target = |p: Value<'_>| -> R<ValueId> {
                if p.kind() != ValueKind::ConstExpr(LLVMOpcode::LLVMPtrToInt) {
                    return Err(format!("relocation base {} is not a ptrtoint", shown(p)));
                }
                ctx.global_ids
                    .get(&p.operand(0))
                    .copied()
                    .ok_or_else(|| format!("relocation {} is not of a global value", shown(p)))
            };
            match c.kind() {
                ValueKind::ConstExpr(LLVMOpcode::LLVMPtrToInt) => Ok(Init::Reloc {
                    target: target(c)?,
                    addend: 0,
                }),
                ValueKind::ConstExpr(LLVMOpcode::LLVMAdd) => {
                    let base = target(c.operand(0))?;
                    let Some(addend) = c.operand(1).const_sext() else {
                        return Err(format!(
                            "relocation addend in {} is not a constant",
                            shown(c)
                        ));
                    };
                    Ok(Init::Reloc {
                        target: base,
                        addend: addend as i32,
                    })
                }
                _ => Err(format!("i32 initializer {} is not a relocation", shown(c))),
            }
        }
        _ => Err(format!("initializer {} is not a simple element", shown(c))),
    }
}

/// Constants of a function in first-use order with their use counts (writer.md §5.4).
fn enumerate_constants<'m>(ctx: &Ctx<'m>, f: Value<'m>) -> Vec<(Value<'m>, u32)> {
    let mut seen: HashMap<Value<'m>, usize> = HashMap::new();
    let mut list: Vec<(Value<'m>, u32)> = Vec::new();
    let mut add = |c: Value<'m>| {
        if let Some(&i) = seen.get(&c) {
            list[i].1 += 1;
        } else {
            seen.insert(c, list.len());
            list.push((c, 1));
        }
    };
    for inst in instructions(f) {
        if inst.opcode() == Some(LLVMOpcode::LLVMSwitch) {
            let c = inst.operand(0);
            if c.is_constant() {
                add(c);
            }
        } else {
            for op in operands(ctx, inst) {
                if op.is_constant() && !is_global_value(op) {
                    add(op);
                }
            }
        }
    }
    list
}

fn is_global_value(v: Value<'_>) -> bool {
    matches!(
        v.kind(),
        ValueKind::Function | ValueKind::GlobalVariable | ValueKind::Alias
    )
}

/// The instructions of function `f`, block by block.
fn instructions(f: Value<'_>) -> impl Iterator<Item = Value<'_>> {
    f.blocks().into_iter().flat_map(|b| b.instructions())
}

fn const_of<'m>(ctx: &Ctx<'m>, c: Value<'m>) -> R<Const> {
    let ty = value_type(c.ty()).map_err(|e| format!("constant {}: {e}", shown(c)))?;
    let value = match c.kind() {
        ValueKind::Undef => ConstValue::Undef,
        ValueKind::ConstInt => ConstValue::Int(c.const_zext().unwrap_or(0)),
        ValueKind::ConstFloat => {
            // The bits as they are (a conversion could quiet a NaN).
            let types = ctx.module.types();
            let int = if ty == ValueType::Float {
                types.i32()
            } else {
                types.i64()
            };
            ConstValue::Float(types.const_bitcast(c, int).const_zext().unwrap_or(0))
        }
        _ => {
            return Err(format!(
                "constant {} cannot be written in a pexe (only integer, floating-point and undef constants)",
                shown(c)
            ))
        }
    };
    Ok(Const { ty, value })
}

/// `std::partition` as libstdc++ and libc++ implement it (writer.md §5.4).
fn partition<T>(v: &mut [T], pred: impl Fn(&T) -> bool) {
    let (mut first, mut last) = (0, v.len());
    loop {
        while first != last && pred(&v[first]) {
            first += 1;
        }
        if first == last {
            return;
        }
        loop {
            last -= 1;
            if first == last {
                return;
            }
            if pred(&v[last]) {
                break;
            }
        }
        v.swap(first, last);
        first += 1;
    }
}

struct FnState<'a, 'm> {
    ctx: &'a Ctx<'m>,
    ids: HashMap<Value<'m>, ValueId>,
    blocks: HashMap<Block<'m>, u32>,
}

impl<'m> FnState<'_, 'm> {
    /// The value id of operand `v` after cast elision.
    fn id(&self, v: Value<'m>) -> R<ValueId> {
        let e = elide(v);
        if let Some(&id) = self.ctx.global_ids.get(&e) {
            return Ok(id);
        }
        if let Some(&id) = self.ids.get(&e) {
            return Ok(id);
        }
        if is_elided_cast(e) {
            return Err(format!(
                "{} is a pointer cast of a pointer cast (not in PNaCl normal form)",
                shown(v)
            ));
        }
        if e.is_constant() {
            return Err(format!(
                "constant {} cannot be written in a pexe (a constant expression or pointer constant in a function)",
                shown(e)
            ));
        }
        Err(format!("operand {} has no value number", shown(e)))
    }

    fn block(&self, b: Block<'m>) -> R<u32> {
        self.blocks
            .get(&b)
            .copied()
            .ok_or_else(|| "a branch to a block of another function".to_string())
    }
}

fn function<'m>(
    ctx: &Ctx<'m>,
    module: &Module,
    type_id: &HashMap<Type, u32>,
    fi: u32,
    f: Value<'m>,
) -> R<BodyBuf> {
    let ng = module.num_global_values();
    let params = f.params();
    let np = params.len() as u32;
    let mut st = FnState {
        ctx,
        ids: HashMap::new(),
        blocks: HashMap::new(),
    };
    let mut body = BodyBuf::default();
    let sig = &ctx.sigs[fi as usize];
    for (k, p) in params.into_iter().enumerate() {
        st.ids.insert(p, ng + k as u32);
        body.code.local_types.push(sig.params[k]);
    }
    // Constants.
    let mut consts: Vec<(Value<'m>, u32, Const, u32)> = Vec::new();
    for (c, uses) in enumerate_constants(ctx, f) {
        let k = const_of(ctx, c)?;
        let tid = *type_id
            .get(&Type::Value(k.ty))
            .ok_or_else(|| format!("constant {} has a type no value uses", shown(c)))?;
        consts.push((c, uses, k, tid));
    }
    if consts.len() >= 2 {
        consts.sort_by(|a, b| a.3.cmp(&b.3).then(b.1.cmp(&a.1)));
        partition(&mut consts, |c| c.2.ty.elem().is_int());
    }
    for (k, (c, _, konst, _)) in consts.iter().enumerate() {
        st.ids.insert(*c, ng + np + k as u32);
        body.code.consts.push(*konst);
        body.code.local_types.push(konst.ty);
    }
    // Blocks and value numbers of the instructions.
    let mut next = ng + np + body.code.consts.len() as u32;
    let blocks = f.blocks();
    for &bb in &blocks {
        st.blocks.insert(bb, st.blocks.len() as u32);
        for inst in bb.instructions() {
            if !is_elided_cast(inst) && !inst.ty().is_void() {
                st.ids.insert(inst, next);
                next += 1;
            }
        }
    }
    body.num_blocks = st.blocks.len() as u32;
    for bb in blocks {
        body.code.block_starts.push(body.code.insts.len() as u32);
        for inst in bb.instructions() {
            if !is_elided_cast(inst) {
                let i = instruction(&st, &mut body, inst)
                    .map_err(|e| format!("{e}\n    in: {}", shown(inst)))?;
                if !i.ty.is_void() {
                    body.code.local_types.push(i.ty);
                }
                body.code.insts.push(i);
            } else {
                // What is left of a cast after elision must be a pexe value.
                st.id(inst)
                    .map_err(|e| format!("{e}\n    in: {}", shown(inst)))?;
            }
        }
    }
    Ok(body)
}

fn binop(op: LLVMOpcode) -> Option<BinOp> {
    use LLVMOpcode::*;
    Some(match op {
        LLVMAdd | LLVMFAdd => BinOp::Add,
        LLVMSub | LLVMFSub => BinOp::Sub,
        LLVMMul | LLVMFMul => BinOp::Mul,
        LLVMUDiv => BinOp::UDiv,
        LLVMSDiv | LLVMFDiv => BinOp::SDiv,
        LLVMURem => BinOp::URem,
        LLVMSRem | LLVMFRem => BinOp::SRem,
        LLVMShl => BinOp::Shl,
        LLVMLShr => BinOp::LShr,
        LLVMAShr => BinOp::AShr,
        LLVMAnd => BinOp::And,
        LLVMOr => BinOp::Or,
        LLVMXor => BinOp::Xor,
        _ => return None,
    })
}

fn castop(op: LLVMOpcode) -> Option<CastOp> {
    use LLVMOpcode::*;
    Some(match op {
        LLVMTrunc => CastOp::Trunc,
        LLVMZExt => CastOp::ZExt,
        LLVMSExt => CastOp::SExt,
        LLVMFPToUI => CastOp::FpToUi,
        LLVMFPToSI => CastOp::FpToSi,
        LLVMUIToFP => CastOp::UiToFp,
        LLVMSIToFP => CastOp::SiToFp,
        LLVMFPTrunc => CastOp::FpTrunc,
        LLVMFPExt => CastOp::FpExt,
        LLVMBitCast => CastOp::Bitcast,
        _ => return None,
    })
}

/// A load's or store's alignment: none where an LLVM 3.x file gives none (LLVM 14 gave it
/// its type's).
fn memory_align(st: &FnState<'_, '_>, i: Value<'_>) -> R<Align> {
    match &st.ctx.legacy {
        Some(l) if l.unaligned(i.as_raw()) => Ok(Align(0)),
        _ => align_of(i),
    }
}

fn align_of(i: Value<'_>) -> R<Align> {
    let a = i.alignment() as u64;
    Align::from_bytes(a).ok_or_else(|| format!("alignment {a} cannot be written in a pexe"))
}

/// The first `N` operands of `i`, in order.
fn operand_ids<const N: usize>(st: &FnState<'_, '_>, i: Value<'_>) -> R<[ValueId; N]> {
    let mut out = [0; N];
    for (k, o) in out.iter_mut().enumerate() {
        *o = st.id(i.operand(k as u32))?;
    }
    Ok(out)
}

fn instruction<'m>(st: &FnState<'_, 'm>, body: &mut BodyBuf, i: Value<'m>) -> R<Inst> {
    use LLVMOpcode::*;
    let op = i.opcode().unwrap();
    let ty = value_type(i.ty())?;
    let operand = |k: u32| -> R<ValueId> { st.id(i.operand(k)) };
    let unwritable = |what: &str| Err(format!("{what} cannot be written in a pexe"));
    let kind = match op {
        _ if binop(op).is_some() => InstKind::Binop {
            op: binop(op).unwrap(),
            lhs: operand(0)?,
            rhs: operand(1)?,
        },
        LLVMPtrToInt | LLVMIntToPtr => return unwritable("a pointer cast that is not to i32"),
        LLVMBitCast if i.operand(0).ty().is_pointer() => {
            return unwritable("a bitcast of a pointer to a non-pointer")
        }
        _ if castop(op).is_some() => InstKind::Cast {
            op: castop(op).unwrap(),
            val: operand(0)?,
        },
        LLVMRet => InstKind::Ret {
            val: (i.num_operands() > 0).then(|| operand(0)).transpose()?,
        },
        LLVMBr => match i.successors()[..] {
            // A conditional branch's operands: the condition, the false and the true block.
            [t, f] => InstKind::CondBr {
                cond: operand(0)?,
                t: st.block(t)?,
                f: st.block(f)?,
            },
            [target] => InstKind::Br {
                target: st.block(target)?,
            },
            _ => return unwritable("a branch of this form"),
        },
        LLVMSwitch => {
            let cond = operand(0)?;
            let default = st.block(i.switch_default())?;
            let start = body.code.cases.len() as u32;
            for (value, target) in i.switch_cases() {
                let value = value
                    .const_sext()
                    .ok_or_else(|| format!("switch case {} is not a constant", shown(value)))?;
                let target = st.block(target)?;
                body.code.cases.push(SwitchCase { value, target });
            }
            InstKind::Switch {
                cond,
                default,
                cases: Span::new(start, body.code.cases.len() as u32 - start),
            }
        }
        LLVMUnreachable => InstKind::Unreachable,
        LLVMPHI => {
            let incoming = i.incoming();
            let start = body.code.operands.len() as u32;
            for &(v, b) in &incoming {
                let v = st.id(v)?;
                let b = st.block(b)?;
                body.code.operands.extend([v, b]);
            }
            InstKind::Phi {
                incoming: Span {
                    start,
                    len: incoming.len() as u32,
                },
            }
        }
        LLVMAlloca => {
            if i.allocated_type().int_width() != Some(8) {
                return Err("Type of alloca instruction is not i8".into());
            }
            InstKind::Alloca {
                size: operand(0)?,
                align: align_of(i)?,
            }
        }
        LLVMLoad => InstKind::Load {
            ptr: operand(0)?,
            align: memory_align(st, i)?,
        },
        LLVMStore => InstKind::Store {
            ptr: operand(1)?,
            val: operand(0)?,
            align: memory_align(st, i)?,
        },
        LLVMICmp | LLVMFCmp => InstKind::Cmp {
            pred: Pred(match op {
                LLVMICmp => i.icmp_pred() as u8,
                _ => i.fcmp_pred() as u8,
            }),
            lhs: operand(0)?,
            rhs: operand(1)?,
        },
        LLVMSelect => {
            let [cond, t, f] = operand_ids(st, i)?;
            InstKind::Select { cond, t, f }
        }
        LLVMExtractElement => {
            let [vec, idx] = operand_ids(st, i)?;
            InstKind::ExtractElement { vec, idx }
        }
        LLVMInsertElement => {
            let [vec, elt, idx] = operand_ids(st, i)?;
            InstKind::InsertElement { vec, elt, idx }
        }
        LLVMCall => {
            if i.call_conv() != 0 {
                return unwritable("calling conventions other than C");
            }
            let callee = i.called_value();
            if callee.kind() == ValueKind::InlineAsm {
                return unwritable("inline assembly");
            }
            let indirect = elide(callee) != callee;
            let nf = st.ctx.functions.len();
            if !indirect && (st.ctx.global_ids.get(&callee)).is_none_or(|&id| id as usize >= nf) {
                return Err(
                    "a call of something that is neither a function nor an inttoptr".into(),
                );
            }
            let callee_id = st.id(callee)?;
            let start = body.code.operands.len() as u32;
            let ops = operands(st.ctx, i);
            // Arguments: every operand but the callee (the last).
            for &a in &ops[..ops.len() - 1] {
                body.code.operands.push(st.id(a)?);
            }
            InstKind::Call {
                callee: callee_id,
                args: Span::new(start, body.code.operands.len() as u32 - start),
                tail: i.is_tail_call(),
                indirect,
            }
        }
        _ => return unwritable("this instruction").map_err(|e| e + " (NaCl Illegal instruction)"),
    };
    Ok(Inst { kind, ty })
}
