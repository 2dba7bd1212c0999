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

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMLinkage, LLVMOpcode, LLVMTypeKind};

use super::ffi::{blocks, functions, globals, instructions, int_width, lent, md_operands};
use super::ffi::{
    md_string, name, named_metadata, opcode, type_text, value_name, value_text, List,
};
use super::legacy::{FileFunction, Legacy};
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

fn shown(v: LLVMValueRef) -> String {
    value_text(v).trim().to_string()
}

/// The PNaCl value type of LLVM type `t`, pointers being i32 (writer.md §5.1).
pub(super) fn value_type(t: LLVMTypeRef) -> R<ValueType> {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        use LLVMTypeKind::*;
        let bad = || format!("type {} cannot be written in a pexe", type_text(t));
        match LLVMGetTypeKind(t) {
            LLVMVoidTypeKind => Ok(ValueType::Void),
            LLVMFloatTypeKind => Ok(ValueType::Float),
            LLVMDoubleTypeKind => Ok(ValueType::Double),
            LLVMIntegerTypeKind => ValueType::int(LLVMGetIntTypeWidth(t) as u64).ok_or_else(bad),
            LLVMPointerTypeKind => Ok(ValueType::I32),
            LLVMVectorTypeKind => {
                let e = value_type(LLVMGetElementType(t))?;
                ValueType::vector(LLVMGetVectorSize(t) as u64, e).ok_or_else(bad)
            }
            _ => Err(bad()),
        }
    }
}

/// The normalised function type (pointers i32, no varargs).
fn fn_type(t: LLVMTypeRef) -> R<FnType> {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        let n = LLVMCountParamTypes(t) as usize;
        let mut ps = vec![std::ptr::null_mut(); n];
        LLVMGetParamTypes(t, ps.as_mut_ptr());
        Ok(FnType {
            ret: value_type(LLVMGetReturnType(t))?,
            params: ps.into_iter().map(value_type).collect::<R<_>>()?,
            // pnacl-freeze drops the flag (writer.md §4).
            vararg: false,
        })
    }
}

/// What pass 1 counts for a value of LLVM type `t`: a pointer counts its pointee, then
/// the type is normalised; labels count nothing (writer.md §5.1).
fn counted_type(t: LLVMTypeRef) -> R<Option<Type>> {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        let t = if LLVMGetTypeKind(t) == LLVMTypeKind::LLVMPointerTypeKind {
            LLVMGetElementType(t)
        } else {
            t
        };
        match LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMLabelTypeKind | LLVMTypeKind::LLVMMetadataTypeKind => Ok(None),
            LLVMTypeKind::LLVMFunctionTypeKind => Ok(Some(Type::Function(fn_type(t)?))),
            _ => Ok(Some(Type::Value(value_type(t)?))),
        }
    }
}

fn is_pointer(t: LLVMTypeRef) -> bool {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe { LLVMGetTypeKind(t) == LLVMTypeKind::LLVMPointerTypeKind }
}

/// Whether instruction `v` is a pointer cast the writer elides (writer.md §7.1).
fn is_elided_cast(v: LLVMValueRef) -> bool {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        match opcode(v) {
            Some(LLVMOpcode::LLVMBitCast) => is_pointer(LLVMTypeOf(v)),
            Some(LLVMOpcode::LLVMIntToPtr) => true,
            Some(LLVMOpcode::LLVMPtrToInt) => int_width(LLVMTypeOf(v)) == Some(32),
            _ => false,
        }
    }
}

/// `ElideCasts`: the value a use of `v` refers to in the pexe.
fn elide(v: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        match opcode(v) {
            Some(LLVMOpcode::LLVMBitCast) if is_pointer(LLVMTypeOf(v)) => LLVMGetOperand(v, 0),
            Some(LLVMOpcode::LLVMIntToPtr) => elide(LLVMGetOperand(v, 0)),
            Some(LLVMOpcode::LLVMPtrToInt) if int_width(LLVMTypeOf(v)) == Some(32) => {
                LLVMGetOperand(v, 0)
            }
            _ => v,
        }
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
fn operands(ctx: &Ctx, i: LLVMValueRef) -> Vec<LLVMValueRef> {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        let n = LLVMGetNumOperands(i) as u32;
        let mut ops: Vec<LLVMValueRef> = (0..n).map(|k| LLVMGetOperand(i, k)).collect();
        if opcode(i) == Some(LLVMOpcode::LLVMCall) && n == 5 {
            let callee = LLVMGetCalledValue(i);
            if let Some(&f) = ctx.global_ids.get(&callee) {
                if ctx.mem[f as usize].is_some() {
                    let align = LLVMConstInt(ctx.i32, mem_align(i), 0);
                    ops.insert(3, align);
                }
            }
        }
        ops
    }
}

/// The alignment of a mem* call: its destination's `align` attribute, 1 without one.
fn mem_align(call: LLVMValueRef) -> u64 {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        let kind = LLVMGetEnumAttributeKindForName(c"align".as_ptr(), 5);
        let a = LLVMGetCallSiteEnumAttribute(call, 1, kind);
        if a.is_null() {
            1
        } else {
            LLVMGetEnumAttributeValue(a)
        }
    }
}

/// Module-wide facts the passes share.
struct Ctx {
    i32: LLVMTypeRef,
    functions: Vec<LLVMValueRef>,
    globals: Vec<LLVMValueRef>,
    /// Value id of each function and global variable.
    global_ids: HashMap<LLVMValueRef, u32>,
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

    fn count_llvm(&mut self, t: LLVMTypeRef) -> R<()> {
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
    let raw = m.as_mut_ptr();
    let mut problems = Vec::new();
    let legacy = data.and_then(|d| Legacy::of(d, raw));
    match import_raw(raw, symtab_metadata, legacy, &mut problems) {
        Ok(module) if problems.is_empty() => Ok(module),
        Ok(_) => Err(ImportError { problems }),
        Err(e) => {
            problems.push(e);
            Err(ImportError { problems })
        }
    }
}

/// The names of the `pnacl.symtab` named metadata, in order.
fn symtab_metadata(m: LLVMModuleRef) -> Option<Vec<Vec<u8>>> {
    match named_metadata(m, crate::bitcode::symtab_order::METADATA)[..] {
        [node] => md_operands(node)
            .into_iter()
            .map(|op| if op.is_null() { None } else { md_string(op) })
            .collect(),
        _ => None,
    }
}

/// The type table pnacl-freeze derives for module `raw` (None if it cannot be imported).
pub(crate) fn derived_types(raw: LLVMModuleRef) -> Option<Vec<Type>> {
    let mut problems = Vec::new();
    let ctx = context(raw, None, &mut problems).ok()?;
    Some(count_types(&ctx).ok()?.table())
}

/// The module's functions, globals and 3.3 signatures.
fn context(raw: LLVMModuleRef, legacy: Option<Legacy>, problems: &mut Vec<String>) -> R<Ctx> {
    let mut ctx = Ctx {
        // SAFETY: handles of the module being imported, which the import borrows throughout.
        i32: unsafe { LLVMInt32TypeInContext(LLVMGetModuleContext(raw)) },
        functions: Vec::new(),
        globals: Vec::new(),
        global_ids: HashMap::new(),
        sigs: Vec::new(),
        mem: Vec::new(),
        legacy,
    };
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        // An LLVM 3.x file's functions in its own order (LLVM 14 moves the intrinsics it
        // upgrades to the end), which pnacl-freeze numbered them in.
        let in_file: Option<Vec<LLVMValueRef>> = ctx
            .legacy
            .as_ref()
            .and_then(|l| l.functions())
            .and_then(|fs| fs.iter().map(FileFunction::value).collect());
        match in_file {
            Some(fs) => ctx.functions.extend(fs),
            None => ctx.functions.extend(functions(raw)),
        }
        ctx.globals.extend(globals(raw));
        let all = ctx.functions.iter().chain(&ctx.globals);
        ctx.global_ids
            .extend(all.enumerate().map(|(id, &v)| (v, id as u32)));
        if !LLVMGetFirstGlobalAlias(raw).is_null() {
            problems.push("aliases cannot be written in a pexe".into());
        }
    }
    // Signatures (3.3 forms for the mem* intrinsics).
    for &f in &ctx.functions {
        let name = value_name(f);
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
            // SAFETY: handles of the module being imported, which the import borrows throughout.
            None => match fn_type(unsafe { LLVMGlobalGetValueType(f) }) {
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
fn count_types(ctx: &Ctx) -> R<Types> {
    let mut types = Types::default();
    for sig in &ctx.sigs {
        types.count(Type::Function(sig.clone()));
    }
    for (i, &f) in ctx.functions.iter().enumerate() {
        // SAFETY: handles of the module being imported, which the import borrows throughout.
        unsafe {
            if ctx.mem[i].is_some() {
                // 3.3's declaration: (i8*, i8* or i8, i32, i32, i1); a pointer counts its
                // pointee, so the second parameter counts i8 either way.
                use ValueType::{I1, I32, I8};
                for t in [I8, I8, I32, I32, I1] {
                    types.count(Type::Value(t));
                }
            } else {
                let n = LLVMCountParams(f);
                for k in 0..n {
                    types.count_llvm(LLVMTypeOf(LLVMGetParam(f, k)))?;
                }
            }
            for inst in instructions(f) {
                if !is_elided_cast(inst) {
                    if opcode(inst) == Some(LLVMOpcode::LLVMSwitch) {
                        types.count_llvm(LLVMTypeOf(LLVMGetOperand(inst, 0)))?;
                    } else {
                        for op in operands(ctx, inst) {
                            if !LLVMIsAGlobalVariable(op).is_null()
                                || !LLVMIsABasicBlock(op).is_null()
                            {
                                continue;
                            }
                            if let Some(&id) = ctx.global_ids.get(&op) {
                                // A function operand: its (3.3) signature.
                                types.count(Type::Function(ctx.sigs[id as usize].clone()));
                            } else {
                                types.count_llvm(LLVMTypeOf(op))?;
                            }
                        }
                    }
                    types.count_llvm(LLVMTypeOf(inst))?;
                }
            }
        }
    }
    Ok(types)
}

/// The type table in the order the module's `pnacl.types` metadata records, if it names
/// exactly the types of `table` (in their `Display` form), each after its subtypes.
fn recorded_types(raw: LLVMModuleRef, table: &[Type]) -> Option<Vec<Type>> {
    let [node] = named_metadata(raw, TYPES_METADATA)[..] else {
        return None;
    };
    let mut by_text: HashMap<String, &Type> = table.iter().map(|t| (t.to_string(), t)).collect();
    let mut out: Vec<Type> = Vec::with_capacity(table.len());
    for op in md_operands(node) {
        let text = (!op.is_null()).then(|| md_string(op)).flatten()?;
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

fn import_raw(
    raw: LLVMModuleRef,
    symtab_metadata: bool,
    legacy: Option<Legacy>,
    problems: &mut Vec<String>,
) -> R<Module> {
    let ctx = context(raw, legacy, problems)?;
    // Pass 1: count the types.
    let types = count_types(&ctx)?;
    // Pass 2: the table, unless the module records the pexe's own (a later pnacl-freeze
    // ordered some types differently).
    let mut table = types.table();
    if symtab_metadata {
        if let Some(recorded) = recorded_types(raw, &table) {
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
        let name = value_name(f);
        let shown_name = String::from_utf8_lossy(&name).into_owned();
        // SAFETY: handles of the module being imported, which the import borrows throughout.
        let linkage = match unsafe { LLVMGetLinkage(f) } {
            LLVMLinkage::LLVMExternalLinkage => Linkage::External,
            LLVMLinkage::LLVMInternalLinkage => Linkage::Internal,
            l => {
                problems.push(format!(
                    "function {shown_name}: linkage {l:?} cannot be written in a pexe (external or internal only)"
                ));
                Linkage::Internal
            }
        };
        // SAFETY: handles of the module being imported, which the import borrows throughout.
        let cc = unsafe { LLVMGetFunctionCallConv(f) };
        if cc != 0 {
            problems.push(format!(
                "function {shown_name}: calling convention {cc} cannot be written in a pexe (C only)"
            ));
        }
        // SAFETY: handles of the module being imported, which the import borrows throughout.
        let defined = unsafe { LLVMIsDeclaration(f) == 0 };
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
            Err(e) => problems.push(format!("global {}: {e}", name(g))),
        }
    }
    for (i, &f) in ctx.functions.iter().enumerate() {
        // SAFETY: handles of the module being imported, which the import borrows throughout.
        if unsafe { LLVMIsDeclaration(f) } != 0 {
            continue;
        }
        match function(&ctx, &module, &type_id, i as u32, f) {
            Ok(body) => module.set_body(i as u32, &body),
            Err(e) => problems.push(format!("function {}: {e}", name(f))),
        }
    }
    // The symbol table: in the order the module's metadata records, when it names exactly
    // the named functions and globals (a le32 module from pnacl-llvm), else in StringMap
    // order.
    module.symbol_order = symtab_metadata
        .then(|| self::symtab_metadata(raw))
        .flatten()
        .and_then(|names| crate::bitcode::symtab_order::from_names(&module, &names))
        .unwrap_or_else(|| {
            // An LLVM 3.x file's names went in in the order of its own symbol table.
            let first: Vec<ValueId> = ctx
                .legacy
                .iter()
                .flat_map(|l| &l.symtab)
                .filter_map(|v| ctx.global_ids.get(v).copied())
                .collect();
            crate::bitcode::symtab_order::derived_after(&module, &first)
        });
    Ok(module)
}

/// A global variable's record: alignment, constness and the flattened initializer.
fn global(ctx: &Ctx, g: LLVMValueRef) -> R<Global> {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        let init = LLVMGetInitializer(g);
        if init.is_null() {
            return Err("a global variable needs an initializer in a pexe".into());
        }
        let a = LLVMGetAlignment(g);
        let align = Align::from_bytes(a as u64)
            .ok_or_else(|| format!("alignment {a} cannot be written in a pexe"))?;
        let t = LLVMTypeOf(init);
        let bad = |why: &str| Err(format!("initializer {} {why}", shown(init)));
        let (inits, compound) = if LLVMGetTypeKind(t) == LLVMTypeKind::LLVMStructTypeKind {
            if LLVMIsPackedStruct(t) == 0 {
                return bad("is not a packed struct");
            }
            if LLVMIsLiteralStruct(t) == 0 {
                return bad("has a named struct type");
            }
            if LLVMIsNull(init) != 0 {
                return bad("is an all-zero struct: write its fields");
            }
            let n = LLVMCountStructElementTypes(t);
            let elements = (0..n).map(|k| simple_init(ctx, LLVMGetOperand(init, k)));
            (elements.collect::<R<_>>()?, true)
        } else {
            (vec![simple_init(ctx, init)?], false)
        };
        let name = value_name(g);
        Ok(Global {
            align,
            is_const: LLVMIsGlobalConstant(g) != 0,
            inits,
            compound,
            name: (!name.is_empty()).then(|| name.into_boxed_slice()),
            pos: 0,
        })
    }
}

/// A SimpleElement (writer.md §6.3).
fn simple_init(ctx: &Ctx, c: LLVMValueRef) -> R<Init> {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        let t = LLVMTypeOf(c);
        match LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMArrayTypeKind => {
                let e = LLVMGetElementType(t);
                if LLVMGetTypeKind(e) != LLVMTypeKind::LLVMIntegerTypeKind
                    || LLVMGetIntTypeWidth(e) != 8
                {
                    return Err(format!("array initializer {} is not of i8", shown(c)));
                }
                let n = LLVMGetArrayLength(t) as u64;
                if LLVMIsNull(c) != 0 {
                    return Ok(Init::Zero(n));
                }
                if !LLVMIsAConstantDataSequential(c).is_null() {
                    let mut len = 0;
                    let p = LLVMGetAsString(c, &mut len);
                    return Ok(Init::Data(lent(p, len).into()));
                }
                let mut bytes = Vec::with_capacity(n as usize);
                for k in 0..n as u32 {
                    let b = LLVMGetOperand(c, k);
                    if LLVMIsAConstantInt(b).is_null() {
                        return Err(format!(
                            "array initializer {} has a non-constant byte",
                            shown(c)
                        ));
                    }
                    bytes.push(LLVMConstIntGetZExtValue(b) as u8);
                }
                Ok(Init::Data(bytes.into()))
            }
            LLVMTypeKind::LLVMIntegerTypeKind if LLVMGetIntTypeWidth(t) == 32 => {
                if LLVMIsAConstantExpr(c).is_null() {
                    return Err(format!("i32 initializer {} is not a relocation", shown(c)));
                }
                let target = |p: LLVMValueRef| -> R<ValueId> {
                    if LLVMIsAConstantExpr(p).is_null()
                        || LLVMGetConstOpcode(p) != LLVMOpcode::LLVMPtrToInt
                    {
                        return Err(format!("relocation base {} is not a ptrtoint", shown(p)));
                    }
                    let gv = LLVMGetOperand(p, 0);
                    ctx.global_ids
                        .get(&gv)
                        .copied()
                        .ok_or_else(|| format!("relocation {} is not of a global value", shown(p)))
                };
                match LLVMGetConstOpcode(c) {
                    LLVMOpcode::LLVMPtrToInt => Ok(Init::Reloc {
                        target: target(c)?,
                        addend: 0,
                    }),
                    LLVMOpcode::LLVMAdd => {
                        let base = target(LLVMGetOperand(c, 0))?;
                        let k = LLVMGetOperand(c, 1);
                        if LLVMIsAConstantInt(k).is_null() {
                            return Err(format!(
                                "relocation addend in {} is not a constant",
                                shown(c)
                            ));
                        }
                        Ok(Init::Reloc {
                            target: base,
                            addend: LLVMConstIntGetSExtValue(k) as i32,
                        })
                    }
                    _ => Err(format!("i32 initializer {} is not a relocation", shown(c))),
                }
            }
            _ => Err(format!("initializer {} is not a simple element", shown(c))),
        }
    }
}

/// Constants of a function in first-use order with their use counts (writer.md §5.4).
fn enumerate_constants(ctx: &Ctx, f: LLVMValueRef) -> Vec<(LLVMValueRef, u32)> {
    let mut seen: HashMap<LLVMValueRef, usize> = HashMap::new();
    let mut list: Vec<(LLVMValueRef, u32)> = Vec::new();
    let mut add = |c: LLVMValueRef| {
        if let Some(&i) = seen.get(&c) {
            list[i].1 += 1;
        } else {
            seen.insert(c, list.len());
            list.push((c, 1));
        }
    };
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        for inst in instructions(f) {
            if opcode(inst) == Some(LLVMOpcode::LLVMSwitch) {
                let c = LLVMGetOperand(inst, 0);
                if LLVMIsConstant(c) != 0 {
                    add(c);
                }
            } else {
                for op in operands(ctx, inst) {
                    if LLVMIsConstant(op) != 0 && LLVMIsAGlobalValue(op).is_null() {
                        add(op);
                    }
                }
            }
        }
    }
    list
}

fn const_of(c: LLVMValueRef) -> R<Const> {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        let t = LLVMTypeOf(c);
        let ty = value_type(t).map_err(|e| format!("constant {}: {e}", shown(c)))?;
        if LLVMIsUndef(c) != 0 {
            return Ok(Const {
                ty,
                value: ConstValue::Undef,
            });
        }
        if !LLVMIsAConstantInt(c).is_null() {
            return Ok(Const {
                ty,
                value: ConstValue::Int(LLVMConstIntGetZExtValue(c)),
            });
        }
        if !LLVMIsAConstantFP(c).is_null() {
            let ctx = LLVMGetTypeContext(t);
            let it = if ty == ValueType::Float {
                LLVMInt32TypeInContext(ctx)
            } else {
                LLVMInt64TypeInContext(ctx)
            };
            let bits = LLVMConstBitCast(c, it);
            return Ok(Const {
                ty,
                value: ConstValue::Float(LLVMConstIntGetZExtValue(bits)),
            });
        }
        Err(format!(
            "constant {} cannot be written in a pexe (only integer, floating-point and undef constants)",
            shown(c)
        ))
    }
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

struct FnState<'a> {
    ctx: &'a Ctx,
    ids: HashMap<LLVMValueRef, ValueId>,
    blocks: HashMap<LLVMBasicBlockRef, u32>,
}

impl FnState<'_> {
    /// The value id of operand `v` after cast elision.
    fn id(&self, v: LLVMValueRef) -> R<ValueId> {
        let e = elide(v);
        if let Some(&id) = self.ctx.global_ids.get(&e) {
            return Ok(id);
        }
        if let Some(&id) = self.ids.get(&e) {
            return Ok(id);
        }
        // SAFETY: handles of the module being imported, which the import borrows throughout.
        unsafe {
            if is_elided_cast(e) {
                return Err(format!(
                    "{} is a pointer cast of a pointer cast (not in PNaCl normal form)",
                    shown(v)
                ));
            }
            if LLVMIsConstant(e) != 0 {
                return Err(format!(
                    "constant {} cannot be written in a pexe (a constant expression or pointer constant in a function)",
                    shown(e)
                ));
            }
        }
        Err(format!("operand {} has no value number", shown(e)))
    }

    fn block(&self, b: LLVMBasicBlockRef) -> R<u32> {
        self.blocks
            .get(&b)
            .copied()
            .ok_or_else(|| "a branch to a block of another function".to_string())
    }
}

fn function(
    ctx: &Ctx,
    module: &Module,
    type_id: &HashMap<Type, u32>,
    fi: u32,
    f: LLVMValueRef,
) -> R<BodyBuf> {
    let ng = module.num_global_values();
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    let np = unsafe { LLVMCountParams(f) };
    let mut st = FnState {
        ctx,
        ids: HashMap::new(),
        blocks: HashMap::new(),
    };
    let mut body = BodyBuf::default();
    let sig = &ctx.sigs[fi as usize];
    for k in 0..np {
        // SAFETY: handles of the module being imported, which the import borrows throughout.
        st.ids.insert(unsafe { LLVMGetParam(f, k) }, ng + k);
        body.code.local_types.push(sig.params[k as usize]);
    }
    // Constants.
    let mut consts: Vec<(LLVMValueRef, u32, Const, u32)> = Vec::new();
    for (c, uses) in enumerate_constants(ctx, f) {
        let k = const_of(c)?;
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
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    unsafe {
        for bb in blocks(f) {
            st.blocks.insert(bb, st.blocks.len() as u32);
            for inst in List::of_block(bb) {
                if !is_elided_cast(inst) {
                    let t = LLVMTypeOf(inst);
                    if LLVMGetTypeKind(t) != LLVMTypeKind::LLVMVoidTypeKind {
                        st.ids.insert(inst, next);
                        next += 1;
                    }
                }
            }
        }
    }
    body.num_blocks = st.blocks.len() as u32;
    for bb in blocks(f) {
        body.code.block_starts.push(body.code.insts.len() as u32);
        for inst in List::of_block(bb) {
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
fn memory_align(st: &FnState, i: LLVMValueRef) -> R<Align> {
    match &st.ctx.legacy {
        Some(l) if l.unaligned(i) => Ok(Align(0)),
        _ => align_of(i),
    }
}

fn align_of(i: LLVMValueRef) -> R<Align> {
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    let a = unsafe { LLVMGetAlignment(i) } as u64;
    Align::from_bytes(a).ok_or_else(|| format!("alignment {a} cannot be written in a pexe"))
}

fn instruction(st: &FnState, body: &mut BodyBuf, i: LLVMValueRef) -> R<Inst> {
    use LLVMOpcode::*;
    let op = opcode(i).unwrap();
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    let ty = value_type(unsafe { LLVMTypeOf(i) })?;
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    let operand = |k: u32| -> R<ValueId> { st.id(unsafe { LLVMGetOperand(i, k) }) };
    let unwritable = |what: &str| Err(format!("{what} cannot be written in a pexe"));
    // SAFETY: handles of the module being imported, which the import borrows throughout.
    let kind = unsafe {
        match op {
            _ if binop(op).is_some() => InstKind::Binop {
                op: binop(op).unwrap(),
                lhs: operand(0)?,
                rhs: operand(1)?,
            },
            LLVMPtrToInt | LLVMIntToPtr => return unwritable("a pointer cast that is not to i32"),
            LLVMBitCast if is_pointer(LLVMTypeOf(LLVMGetOperand(i, 0))) => {
                return unwritable("a bitcast of a pointer to a non-pointer")
            }
            _ if castop(op).is_some() => InstKind::Cast {
                op: castop(op).unwrap(),
                val: operand(0)?,
            },
            LLVMRet => InstKind::Ret {
                val: (LLVMGetNumOperands(i) > 0)
                    .then(|| operand(0))
                    .transpose()?,
            },
            LLVMBr => {
                if LLVMIsConditional(i) != 0 {
                    InstKind::CondBr {
                        cond: st.id(LLVMGetCondition(i))?,
                        t: st.block(LLVMGetSuccessor(i, 0))?,
                        f: st.block(LLVMGetSuccessor(i, 1))?,
                    }
                } else {
                    InstKind::Br {
                        target: st.block(LLVMGetSuccessor(i, 0))?,
                    }
                }
            }
            LLVMSwitch => {
                let cond = operand(0)?;
                let default = st.block(LLVMGetSwitchDefaultDest(i))?;
                let n = LLVMGetNumOperands(i) as u32;
                let start = body.code.cases.len() as u32;
                for k in (2..n.saturating_sub(1)).step_by(2) {
                    let value = LLVMConstIntGetSExtValue(LLVMGetOperand(i, k));
                    let target = st.block(LLVMValueAsBasicBlock(LLVMGetOperand(i, k + 1)))?;
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
                let n = LLVMCountIncoming(i);
                let start = body.code.operands.len() as u32;
                for k in 0..n {
                    let v = st.id(LLVMGetIncomingValue(i, k))?;
                    let b = st.block(LLVMGetIncomingBlock(i, k))?;
                    body.code.operands.extend([v, b]);
                }
                InstKind::Phi {
                    incoming: Span { start, len: n },
                }
            }
            LLVMAlloca => {
                if int_width(LLVMGetAllocatedType(i)) != Some(8) {
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
            LLVMICmp => InstKind::Cmp {
                pred: Pred(LLVMGetICmpPredicate(i) as u8),
                lhs: operand(0)?,
                rhs: operand(1)?,
            },
            LLVMFCmp => InstKind::Cmp {
                pred: Pred(LLVMGetFCmpPredicate(i) as u8),
                lhs: operand(0)?,
                rhs: operand(1)?,
            },
            LLVMSelect => InstKind::Select {
                cond: operand(0)?,
                t: operand(1)?,
                f: operand(2)?,
            },
            LLVMExtractElement => InstKind::ExtractElement {
                vec: operand(0)?,
                idx: operand(1)?,
            },
            LLVMInsertElement => InstKind::InsertElement {
                vec: operand(0)?,
                elt: operand(1)?,
                idx: operand(2)?,
            },
            LLVMCall => {
                if LLVMGetInstructionCallConv(i) != 0 {
                    return unwritable("calling conventions other than C");
                }
                let callee = LLVMGetCalledValue(i);
                if !LLVMIsAInlineAsm(callee).is_null() {
                    return unwritable("inline assembly");
                }
                let indirect = elide(callee) != callee;
                let nf = st.ctx.functions.len();
                if !indirect && (st.ctx.global_ids.get(&callee)).is_none_or(|&id| id as usize >= nf)
                {
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
                    tail: LLVMIsTailCall(i) != 0,
                    indirect,
                }
            }
            _ => {
                return unwritable("this instruction")
                    .map_err(|e| e + " (NaCl Illegal instruction)")
            }
        }
    };
    Ok(Inst { kind, ty })
}
