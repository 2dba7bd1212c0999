//! Global variables in the PNaCl subset: each initializer flattened to bytes and 32-bit
//! relocations (FlattenGlobals), thread-local variables gathered into the TLS template
//! (ExpandTls), the constructor and destructor lists made the arrays the C library's
//! start-up walks (ExpandCtors), weak symbols nothing defines made null (GlobalCleanup).

use std::collections::HashMap;

use super::lower::{GlobalRef, Lowering};
use super::Problem;
use crate::llvm::edit::{Linkage, Opcode, Type, TypeKind, Value, ValueKind};

/// The TLS template's layout.
#[derive(Debug, Clone, Default)]
pub struct Tls {
    /// Bytes of the initialized part (`.tdata`).
    pub data_size: u64,
    /// Bytes of the whole block, rounded up to `align`.
    pub total_size: u64,
    pub align: u32,
}

/// What a reloctable constant is: a number, or an address of an old global value plus an
/// addend.
#[derive(Clone, Copy, Debug)]
enum Rel<'a> {
    Int(i64),
    Addr(Value<'a>, i64),
}

/// A flattened initializer: its bytes and its relocations (offset, old target, addend).
struct Flat<'a> {
    bytes: Vec<u8>,
    relocs: Vec<(u64, Value<'a>, i64)>,
    /// All zero, with no relocation (the bytes were not made).
    zero: Option<u64>,
}

/// Declares every global variable of the new module (and the symbols the start-up code
/// names), filling `lw.globals`; symbols used but defined nowhere go to `undefined`.
pub fn declare<'a>(
    lw: &mut Lowering<'a>,
    undefined: &mut Vec<String>,
) -> Result<Pending<'a>, Vec<Problem>> {
    let mut problems = Vec::new();
    let old = lw.old;
    let mut tls_vars = Vec::new();
    let mut specials = Vec::new();
    let mut normal = Vec::new();
    for g in old.globals() {
        let name = g.name();
        if name.starts_with("llvm.") {
            if !matches!(
                name.as_str(),
                "llvm.global_ctors"
                    | "llvm.global_dtors"
                    | "llvm.used"
                    | "llvm.compiler.used"
                    | "llvm.global.annotations"
            ) && g.linkage() == Linkage::LLVMAppendingLinkage
            {
                problems.push(Problem::global(
                    &name,
                    "an appending global PNaCl does not know".into(),
                ));
            }
            continue;
        }
        if g.is_declaration() {
            if is_special(&name) {
                specials.push(g);
            } else if g.linkage() == Linkage::LLVMExternalWeakLinkage || !g.has_uses() {
                lw.globals.insert(g, GlobalRef::Null);
            } else {
                undefined.push(name);
            }
            continue;
        }
        if g.linkage() == Linkage::LLVMAppendingLinkage {
            problems.push(Problem::global(
                &name,
                "an appending global PNaCl does not know".into(),
            ));
            continue;
        }
        if g.is_thread_local() {
            tls_vars.push(g);
        } else {
            normal.push(g);
        }
    }

    // Thread-local variables: the initialized ones first, then the zero ones, each at
    // its alignment; all below the thread pointer.
    let mut tls = Tls {
        align: 1,
        ..Tls::default()
    };
    let mut template = Flat {
        bytes: Vec::new(),
        relocs: Vec::new(),
        zero: None,
    };
    let mut tls_offsets = Vec::new();
    let (data, bss): (Vec<&Value<'a>>, Vec<&Value<'a>>) = tls_vars
        .iter()
        .partition(|g| g.initializer().is_some_and(|i| !is_zero(i)));
    let mut cursor = 0u64;
    for g in data.iter().chain(bss.iter()) {
        let ty = g.value_type();
        let align = global_align(lw, **g, ty);
        tls.align = tls.align.max(align);
        cursor = cursor.next_multiple_of(align as u64);
        tls_offsets.push((**g, cursor));
        let size = lw.shapes.layout().alloc_size(ty);
        if data.contains(g) {
            match flatten_init(lw, g.initializer().unwrap(), ty) {
                Ok(f) => {
                    template.bytes.resize(cursor as usize, 0);
                    for (o, t, a) in f.relocs {
                        template.relocs.push((cursor + o, t, a));
                    }
                    match f.zero {
                        Some(n) => template.bytes.resize((cursor + n) as usize, 0),
                        None => template.bytes.extend_from_slice(&f.bytes),
                    }
                }
                Err(e) => problems.push(Problem::global(&g.name(), e)),
            }
            tls.data_size = cursor + size;
        }
        cursor += size;
    }
    template.bytes.resize(tls.data_size as usize, 0);
    tls.total_size = cursor.next_multiple_of(tls.align as u64);
    for (g, off) in tls_offsets {
        lw.globals
            .insert(g, GlobalRef::Tls(off as i64 - tls.total_size as i64));
    }

    // The constructor and destructor arrays.
    let ctors = ctor_list(lw, "llvm.global_ctors");
    let dtors = ctor_list(lw, "llvm.global_dtors");
    let mut arrays: HashMap<&str, (Value<'a>, u64)> = HashMap::new();
    for (name, list) in [
        ("__init_array_start", &ctors),
        ("__fini_array_start", &dtors),
    ] {
        if list.is_empty()
            || !specials
                .iter()
                .any(|g| g.name() == name || g.name() == end_of(name))
        {
            continue;
        }
        let n = list.len() as u64;
        let g = if n == 1 {
            lw.new.add_global(lw.tys.i32(), name)
        } else {
            lw.new.add_global(
                lw.tys.structure(&vec![lw.tys.i32(); n as usize], true),
                name,
            )
        };
        g.set_linkage(Linkage::LLVMInternalLinkage);
        g.set_global_constant(true);
        g.set_alignment(4);
        let mut fields = Vec::new();
        for f in list.iter() {
            match lw.funcs.get(f) {
                Some(nf) => fields.push(lw.tys.const_ptrtoint(*nf)),
                None => problems.push(Problem::global(
                    name,
                    format!("constructor or destructor {} is not defined", f.name()),
                )),
            }
        }
        if fields.len() == list.len() {
            g.set_initializer(if n == 1 {
                fields[0]
            } else {
                lw.tys.const_struct(&fields, true)
            });
        }
        arrays.insert(name, (g, 4 * n));
    }
    let needs_template = specials
        .iter()
        .any(|g| g.name().starts_with("__tls_template_"));
    let template_global = if needs_template {
        let g = make_global(
            lw,
            "__tls_template_start",
            &template,
            tls.align.max(4),
            true,
        )
        .map_err(|e| vec![Problem::global("__tls_template_start", e)])?;
        Some(g)
    } else {
        None
    };
    for g in specials {
        let name = g.name();
        let r = match name.as_str() {
            "__init_array_start" | "__fini_array_start" => match arrays.get(name.as_str()) {
                Some((a, _)) => GlobalRef::Global(*a),
                None => GlobalRef::Null,
            },
            "__init_array_end" | "__fini_array_end" => {
                let start = if name == "__init_array_end" {
                    "__init_array_start"
                } else {
                    "__fini_array_start"
                };
                match arrays.get(start) {
                    Some((a, n)) => GlobalRef::Offset(*a, *n as i64),
                    None => GlobalRef::Null,
                }
            }
            "__preinit_array_start" | "__preinit_array_end" => GlobalRef::Null,
            "__tls_template_start" => GlobalRef::Global(template_global.unwrap()),
            "__tls_template_tdata_end" => {
                GlobalRef::Offset(template_global.unwrap(), tls.data_size as i64)
            }
            "__tls_template_end" => {
                GlobalRef::Offset(template_global.unwrap(), tls.total_size as i64)
            }
            "__tls_template_alignment" => {
                let a = lw
                    .new
                    .add_global(lw.tys.array(lw.tys.i8(), 4), "__tls_template_alignment");
                a.set_linkage(Linkage::LLVMInternalLinkage);
                a.set_global_constant(true);
                a.set_alignment(4);
                a.set_initializer(lw.tys.const_bytes(&tls.align.to_le_bytes()));
                GlobalRef::Global(a)
            }
            _ => unreachable!("not a special symbol: {name}"),
        };
        lw.globals.insert(g, r);
    }
    lw.tls = Some(tls);

    // Every other global: flattened, then made (its type is its pieces').
    let mut made = Vec::new();
    for g in normal {
        let ty = g.value_type();
        let flat = match g.initializer() {
            Some(init) => flatten_init(lw, init, ty),
            None => Err("no initializer".into()),
        };
        match flat {
            Ok(f) => {
                let align = global_align(lw, g, ty);
                match global_type(lw, &f) {
                    Ok(nty) => {
                        let ng = lw.new.add_global(nty, &g.name());
                        ng.set_linkage(Linkage::LLVMInternalLinkage);
                        ng.set_global_constant(g.is_global_constant());
                        ng.set_alignment(align);
                        lw.globals.insert(g, GlobalRef::Global(ng));
                        made.push((ng, f));
                    }
                    Err(e) => problems.push(Problem::global(&g.name(), e)),
                }
            }
            Err(e) => problems.push(Problem::global(&g.name(), e)),
        }
    }
    if problems.is_empty() {
        Ok(Pending {
            globals: made,
            template: template_global.map(|g| (g, template)),
        })
    } else {
        Err(problems)
    }
}

/// The flattened initializers, set once every global and function of the new module
/// exists (`initialize`).
pub struct Pending<'a> {
    globals: Vec<(Value<'a>, Flat<'a>)>,
    template: Option<(Value<'a>, Flat<'a>)>,
}

fn end_of(start: &str) -> &'static str {
    match start {
        "__init_array_start" => "__init_array_end",
        _ => "__fini_array_end",
    }
}

fn is_special(name: &str) -> bool {
    super::lower::is_synthesized(name)
}

fn is_zero(c: Value<'_>) -> bool {
    matches!(
        c.kind(),
        ValueKind::ConstZero | ValueKind::ConstNull | ValueKind::Undef
    ) || c.const_zext() == Some(0) && c.ty().int_width().is_some_and(|w| w <= 64)
}

/// The alignment of a global: its own, or its type's preferred one.
fn global_align<'a>(lw: &Lowering<'a>, g: Value<'a>, ty: Type<'a>) -> u32 {
    match g.alignment() {
        0 => lw.shapes.layout().pref_align(ty),
        a => a,
    }
}

/// The functions of `llvm.global_ctors` or `_dtors`, by priority (stably).
fn ctor_list<'a>(lw: &Lowering<'a>, name: &str) -> Vec<Value<'a>> {
    let Some(g) = lw.old.global(name) else {
        return Vec::new();
    };
    let Some(init) = g.initializer() else {
        return Vec::new();
    };
    if init.kind() != ValueKind::ConstAggregate {
        return Vec::new();
    }
    let mut list: Vec<(u64, Value<'a>)> = Vec::new();
    for e in init.operands() {
        if e.kind() != ValueKind::ConstAggregate || e.num_operands() < 2 {
            continue;
        }
        let prio = e.operand(0).const_zext().unwrap_or(65535);
        let f = super::lower::strip_callee(e.operand(1));
        if f.kind() == ValueKind::Function {
            list.push((prio, f));
        }
    }
    list.sort_by_key(|(p, _)| *p);
    list.into_iter().map(|(_, f)| f).collect()
}

/// The new type of a flattened initializer: bytes, one address, or a packed struct of
/// byte arrays and addresses.
fn global_type<'a>(lw: &Lowering<'a>, f: &Flat<'a>) -> Result<Type<'a>, String> {
    let tys = lw.tys;
    if let Some(n) = f.zero {
        return Ok(tys.array(tys.i8(), n));
    }
    if f.relocs.is_empty() {
        return Ok(tys.array(tys.i8(), f.bytes.len() as u64));
    }
    if f.relocs.len() == 1 && f.bytes.len() == 4 {
        return Ok(tys.i32());
    }
    let mut fields = Vec::new();
    let mut at = 0u64;
    for (o, _, _) in &f.relocs {
        if *o > at {
            fields.push(tys.array(tys.i8(), o - at));
        }
        fields.push(tys.i32());
        at = o + 4;
    }
    if (f.bytes.len() as u64) > at {
        fields.push(tys.array(tys.i8(), f.bytes.len() as u64 - at));
    }
    Ok(tys.structure(&fields, true))
}

/// The initializer constant of a flattened global, in the new module.
fn global_init<'a>(lw: &Lowering<'a>, f: &Flat<'a>) -> Result<Value<'a>, String> {
    let tys = lw.tys;
    if let Some(n) = f.zero {
        return Ok(tys.zero(tys.array(tys.i8(), n)));
    }
    if f.relocs.is_empty() {
        return Ok(tys.const_bytes(&f.bytes));
    }
    let mut fields = Vec::new();
    let mut at = 0u64;
    for (o, target, addend) in &f.relocs {
        if *o > at {
            fields.push(tys.const_bytes(&f.bytes[at as usize..*o as usize]));
        }
        fields.push(reloc(lw, *target, *addend)?);
        at = o + 4;
    }
    if (f.bytes.len() as u64) > at {
        fields.push(tys.const_bytes(&f.bytes[at as usize..]));
    }
    if fields.len() == 1 {
        return Ok(fields[0]);
    }
    Ok(tys.const_struct(&fields, true))
}

/// `ptrtoint (target) + addend` in the new module.
fn reloc<'a>(lw: &Lowering<'a>, target: Value<'a>, addend: i64) -> Result<Value<'a>, String> {
    let tys = lw.tys;
    let (base, extra) = match target.kind() {
        ValueKind::Function => (
            *lw.funcs
                .get(&target)
                .ok_or_else(|| format!("the address of {}, which is not defined", target.name()))?,
            0,
        ),
        _ => match lw.globals.get(&target) {
            Some(GlobalRef::Global(g)) => (*g, 0),
            Some(GlobalRef::Offset(g, k)) => (*g, *k),
            Some(GlobalRef::Null) => return Ok(tys.const_i32(addend)),
            Some(GlobalRef::Tls(_)) => {
                return Err(format!(
                    "the address of thread-local variable {} is not a constant",
                    target.name()
                ))
            }
            None => {
                return Err(format!(
                    "the address of {}, which is not defined",
                    target.name()
                ))
            }
        },
    };
    let p = tys.const_ptrtoint(base);
    let a = addend + extra;
    if a == 0 {
        Ok(p)
    } else {
        Ok(tys.const_add(p, tys.const_i32(a as i32 as i64)))
    }
}

/// Sets every global's initializer, once all globals and functions of the new module
/// exist.
pub fn initialize<'a>(lw: &Lowering<'a>, pending: Pending<'a>) -> Result<(), Vec<Problem>> {
    let mut problems = Vec::new();
    for (g, f) in pending.globals.iter().chain(pending.template.iter()) {
        match global_init(lw, f) {
            Ok(init) => g.set_initializer(init),
            Err(e) => problems.push(Problem::global(&g.name(), e)),
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// Makes an internal global of a flattened initializer (the relocations set later).
fn make_global<'a>(
    lw: &Lowering<'a>,
    name: &str,
    f: &Flat<'a>,
    align: u32,
    constant: bool,
) -> Result<Value<'a>, String> {
    let ty = global_type(lw, f)?;
    let g = lw.new.add_global(ty, name);
    g.set_linkage(Linkage::LLVMInternalLinkage);
    g.set_global_constant(constant);
    g.set_alignment(align);
    Ok(g)
}

/// Flattens constant `c` of type `ty`.
fn flatten_init<'a>(lw: &Lowering<'a>, c: Value<'a>, ty: Type<'a>) -> Result<Flat<'a>, String> {
    let size = lw.shapes.layout().alloc_size(ty);
    if size > u32::MAX as u64 {
        return Err(format!("{size} bytes: larger than a pexe's memory"));
    }
    if matches!(
        c.kind(),
        ValueKind::ConstZero | ValueKind::Undef | ValueKind::ConstNull
    ) {
        return Ok(Flat {
            bytes: Vec::new(),
            relocs: Vec::new(),
            zero: Some(size),
        });
    }
    let mut f = Flat {
        bytes: vec![0; size as usize],
        relocs: Vec::new(),
        zero: None,
    };
    write_const(lw, c, ty, 0, &mut f)?;
    f.relocs.sort_by_key(|r| r.0);
    for w in f.relocs.windows(2) {
        if w[1].0 < w[0].0 + 4 {
            return Err("two addresses overlap in its initializer".into());
        }
    }
    if f.relocs.is_empty() && f.bytes.iter().all(|b| *b == 0) {
        f.zero = Some(size);
        f.bytes = Vec::new();
    }
    Ok(f)
}

fn put(f: &mut Flat<'_>, off: u64, bytes: &[u8]) -> Result<(), String> {
    let end = off as usize + bytes.len();
    if end > f.bytes.len() {
        return Err("an initializer larger than its type".into());
    }
    f.bytes[off as usize..end].copy_from_slice(bytes);
    Ok(())
}

fn int_bytes(words: &[u64], n: usize) -> Vec<u8> {
    let mut out: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    out.resize(n, 0);
    out
}

fn write_const<'a>(
    lw: &Lowering<'a>,
    c: Value<'a>,
    ty: Type<'a>,
    off: u64,
    f: &mut Flat<'a>,
) -> Result<(), String> {
    let layout = lw.shapes.layout();
    match c.kind() {
        ValueKind::ConstZero | ValueKind::Undef | ValueKind::ConstNull => Ok(()),
        ValueKind::ConstInt => {
            let n = layout.store_size(ty) as usize;
            let words = c.const_big_int().ok_or("an unreadable integer constant")?;
            put(f, off, &int_bytes(&words, n))
        }
        ValueKind::ConstFloat => {
            let x = c.const_f64().unwrap();
            match ty.kind() {
                TypeKind::Float => put(f, off, &(x as f32).to_bits().to_le_bytes()),
                TypeKind::Double => put(f, off, &x.to_bits().to_le_bytes()),
                _ => Err(format!("a constant of type {}", ty.text())),
            }
        }
        ValueKind::ConstData | ValueKind::ConstAggregate => {
            if let Some(bytes) = c.const_bytes() {
                return put(f, off, &bytes);
            }
            let elem = |i: u32| c.aggregate_element(i);
            match ty.kind() {
                TypeKind::Struct => {
                    for (i, ft) in ty.struct_fields().into_iter().enumerate() {
                        let o = layout.field_offset(ty, i as u32);
                        write_const(lw, elem(i as u32), ft, off + o, f)?;
                    }
                    Ok(())
                }
                TypeKind::Array(e, n) => {
                    let es = layout.alloc_size(e);
                    for i in 0..n {
                        write_const(lw, elem(i as u32), e, off + i * es, f)?;
                    }
                    Ok(())
                }
                TypeKind::Vector(e, n) => {
                    if e.int_width().is_some_and(|w| w % 8 != 0) {
                        return Err(format!("a constant vector of {} in memory", e.text()));
                    }
                    let es = layout.store_size(e);
                    for i in 0..n {
                        write_const(lw, elem(i), e, off + i as u64 * es, f)?;
                    }
                    Ok(())
                }
                _ => Err(format!("a constant of type {}", ty.text())),
            }
        }
        ValueKind::Function
        | ValueKind::GlobalVariable
        | ValueKind::Alias
        | ValueKind::BlockAddress
        | ValueKind::ConstExpr(_) => {
            let n = layout.store_size(ty);
            match eval(lw, c)? {
                Rel::Int(x) => put(f, off, &int_bytes(&[x as u64], n as usize)),
                Rel::Addr(target, addend) => {
                    if n < 4 {
                        return Err(format!(
                            "an address truncated to {} bits in an initializer",
                            n * 8
                        ));
                    }
                    if let Some(GlobalRef::Null) = lw.globals.get(&target) {
                        return put(f, off, &int_bytes(&[addend as u64], n as usize));
                    }
                    if i32::try_from(addend).is_err() {
                        return Err(format!("an address with offset {addend}"));
                    }
                    f.relocs.push((off, target, addend));
                    Ok(())
                }
            }
        }
        _ => Err(format!("the constant {c:?}")),
    }
}

/// Evaluates a relocatable constant expression.
fn eval<'a>(lw: &Lowering<'a>, c: Value<'a>) -> Result<Rel<'a>, String> {
    let layout = lw.shapes.layout();
    Ok(match c.kind() {
        ValueKind::Function | ValueKind::GlobalVariable => Rel::Addr(c, 0),
        ValueKind::Alias => eval(lw, c.aliasee())?,
        ValueKind::BlockAddress => {
            let n = lw
                .block_numbers
                .get(&c.operand_block(1))
                .copied()
                .unwrap_or(0);
            Rel::Int(n as i64)
        }
        ValueKind::ConstInt => Rel::Int(
            c.const_sext()
                .ok_or("an integer wider than 64 bits in an address")?,
        ),
        ValueKind::ConstNull | ValueKind::Undef | ValueKind::ConstZero => Rel::Int(0),
        ValueKind::ConstExpr(op) => {
            use Opcode::*;
            match op {
                LLVMBitCast | LLVMAddrSpaceCast | LLVMPtrToInt | LLVMIntToPtr | LLVMZExt
                | LLVMSExt | LLVMTrunc => {
                    let inner = eval(lw, c.operand(0))?;
                    match (inner, c.ty().int_width()) {
                        (Rel::Int(x), Some(w)) if w < 64 && op == LLVMTrunc => {
                            Rel::Int(((x as u64) & ((1u64 << w) - 1)) as i64)
                        }
                        (Rel::Int(x), _) if op == LLVMZExt => {
                            let sw = c.operand(0).ty().int_width().unwrap_or(64);
                            Rel::Int(if sw < 64 {
                                ((x as u64) & ((1u64 << sw) - 1)) as i64
                            } else {
                                x
                            })
                        }
                        (r, _) => r,
                    }
                }
                LLVMGetElementPtr => {
                    let base = eval(lw, c.operand(0))?;
                    let mut ty = c.gep_source_type();
                    let mut off: i64 = 0;
                    for k in 1..c.num_operands() {
                        let idx = c.operand(k);
                        let i = idx
                            .const_sext()
                            .ok_or_else(|| format!("a variable index in {c:?}"))?;
                        if k == 1 {
                            off += i * layout.alloc_size(ty) as i64;
                            continue;
                        }
                        match ty.kind() {
                            TypeKind::Struct => {
                                off += layout.field_offset(ty, i as u32) as i64;
                                ty = ty.struct_fields()[i as usize];
                            }
                            TypeKind::Array(e, _) => {
                                off += i * layout.alloc_size(e) as i64;
                                ty = e;
                            }
                            TypeKind::Vector(e, _) => {
                                off += i * layout.store_size(e) as i64;
                                ty = e;
                            }
                            _ => return Err(format!("an index into {} in {c:?}", ty.text())),
                        }
                    }
                    match base {
                        Rel::Int(x) => Rel::Int(x.wrapping_add(off)),
                        Rel::Addr(g, a) => Rel::Addr(g, a.wrapping_add(off)),
                    }
                }
                LLVMAdd | LLVMSub => {
                    let a = eval(lw, c.operand(0))?;
                    let b = eval(lw, c.operand(1))?;
                    match (a, b, op) {
                        (Rel::Int(x), Rel::Int(y), LLVMAdd) => Rel::Int(x.wrapping_add(y)),
                        (Rel::Int(x), Rel::Int(y), _) => Rel::Int(x.wrapping_sub(y)),
                        (Rel::Addr(g, a), Rel::Int(y), LLVMAdd)
                        | (Rel::Int(y), Rel::Addr(g, a), LLVMAdd) => {
                            Rel::Addr(g, a.wrapping_add(y))
                        }
                        (Rel::Addr(g, a), Rel::Int(y), _) => Rel::Addr(g, a.wrapping_sub(y)),
                        (Rel::Addr(g, a), Rel::Addr(h, b), LLVMSub) if g == h => Rel::Int(a - b),
                        _ => {
                            return Err(format!(
                                "the constant expression {c:?}: the difference of two \
                                 addresses is no constant a pexe can hold"
                            ))
                        }
                    }
                }
                LLVMMul | LLVMAnd | LLVMOr | LLVMXor | LLVMShl | LLVMLShr | LLVMAShr | LLVMUDiv
                | LLVMSDiv => {
                    let (Rel::Int(x), Rel::Int(y)) =
                        (eval(lw, c.operand(0))?, eval(lw, c.operand(1))?)
                    else {
                        return Err(format!("the constant expression {c:?} on an address"));
                    };
                    Rel::Int(match op {
                        LLVMMul => x.wrapping_mul(y),
                        LLVMAnd => x & y,
                        LLVMOr => x | y,
                        LLVMXor => x ^ y,
                        LLVMShl => x.wrapping_shl(y as u32),
                        LLVMLShr => ((x as u64).wrapping_shr(y as u32)) as i64,
                        LLVMAShr => x.wrapping_shr(y as u32),
                        LLVMUDiv if y != 0 => ((x as u64) / (y as u64)) as i64,
                        LLVMSDiv if y != 0 => x.wrapping_div(y),
                        _ => return Err(format!("the constant expression {c:?} divides by zero")),
                    })
                }
                _ => return Err(format!("the constant expression {c:?}")),
            }
        }
        _ => return Err(format!("the constant {c:?}")),
    })
}

/// The bytes of a constant vector of the new module (a vector type of the ABI).
pub fn vector_bytes(c: Value<'_>) -> Result<Vec<u8>, String> {
    let (e, n) = c
        .ty()
        .vector()
        .ok_or_else(|| format!("not a vector: {c:?}"))?;
    let es = match e.kind() {
        TypeKind::Int(w) if w % 8 == 0 => (w / 8) as usize,
        TypeKind::Float => 4,
        _ => return Err(format!("a constant vector of {}", e.text())),
    };
    let mut out = vec![0u8; es * n as usize];
    if matches!(c.kind(), ValueKind::ConstZero | ValueKind::Undef) {
        return Ok(out);
    }
    let data = c.kind() == ValueKind::ConstData;
    for i in 0..n {
        let x = if data {
            c.const_data_element(i)
        } else {
            c.operand(i)
        };
        let bytes: Vec<u8> = match x.kind() {
            ValueKind::ConstInt => x.const_zext().unwrap().to_le_bytes()[..es].to_vec(),
            ValueKind::ConstFloat => (x.const_f64().unwrap() as f32)
                .to_bits()
                .to_le_bytes()
                .to_vec(),
            _ => vec![0; es],
        };
        out[i as usize * es..(i as usize + 1) * es].copy_from_slice(&bytes);
    }
    Ok(out)
}
