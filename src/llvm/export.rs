//! `ir::Module` → an LLVM 14 module for a target.
//!
//! Every pexe value becomes an LLVM value of its pexe type (pointers are i32, as in the
//! pexe). Memory accesses and indirect calls turn the i32 into a pointer (`inttoptr`, or a
//! bitcast of the alloca or global it is known to be); addresses of globals and functions
//! are `ptrtoint` constants. On native targets the PNaCl intrinsics are lowered to LLVM 14
//! instructions, intrinsics and runtime calls (runtime.md §4); on le32 they stay calls.
//!
//! The builder works on llvm-sys handles directly; the module it returns is an inkwell
//! `Module` owned by the caller's `Context`.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast hasher for small keys of ids and pointers (the cast cache): multiply-rotate
/// mixing of each word, no protection against chosen collisions (the keys are ours).
#[derive(Default)]
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}
use std::ffi::CString;

use inkwell::context::Context;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{
    LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMLinkage, LLVMOpcode,
    LLVMRealPredicate,
};

use super::target::{runtime, Target};
use crate::ir::intrinsics::{self, Intrinsic, Kind};
use crate::ir::{
    BinOp, Body, CastOp, ConstValue, FnType, Init, InstKind, Linkage, Module, Pred, ValueId,
    ValueType,
};

/// Why a module could not be converted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportError {
    /// Bit position in the pexe, when the problem belongs to a record.
    pub pos: Option<u64>,
    pub msg: String,
}

impl std::fmt::Display for ExportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pos {
            Some(p) => write!(f, "{}:{}: {}", p / 8, p % 8, self.msg),
            None => f.write_str(&self.msg),
        }
    }
}

impl std::error::Error for ExportError {}

type R<T> = Result<T, ExportError>;

fn err<T>(pos: Option<u64>, msg: impl Into<String>) -> R<T> {
    Err(ExportError {
        pos,
        msg: msg.into(),
    })
}

fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "\\0")).unwrap()
}

const EMPTY: *const std::ffi::c_char = c"".as_ptr();

/// What to build.
#[derive(Debug, Clone, Copy)]
pub struct ExportOptions<'a> {
    pub target: Target,
    /// Build only one partition of the module: the bodies of the functions `owners`
    /// assigns to `part` (others are declared), and the globals if `part` is 0. Names
    /// are then external (hidden) so that the partitions' objects link together.
    pub partition: Option<(u32, &'a [u32])>,
    /// The module passed `abi::check_ssa` (or `abi::check_all`): the conversion need not
    /// check the SSA rule again. Otherwise it checks each body, and a body that breaks
    /// the rule is an error, never a module LLVM rejects.
    pub ssa_checked: bool,
}

impl<'a> ExportOptions<'a> {
    /// The whole module, the SSA rule checked.
    pub fn whole(target: Target) -> Self {
        ExportOptions {
            target,
            partition: None,
            ssa_checked: false,
        }
    }
}

/// Assigns the defined functions of `m` to partitions for `threads` threads working from
/// one queue, and returns each function's partition and each partition's size (its
/// functions' instructions, plus 16 a function).
///
/// The partitions shrink as they go (guided self-scheduling): each takes a `1/(2·threads)`
/// share of the work not yet assigned, but never less than `1/(16·threads)` of the whole,
/// the largest functions first. The threads start on large partitions and end on small
/// ones, so they finish close together although code generation time is far from
/// proportional to a function's size. Partition 0 is the largest.
pub fn partition(m: &Module, threads: usize) -> (Vec<u32>, Vec<usize>) {
    let threads = threads.max(1);
    let mut owners = vec![0u32; m.functions.len()];
    let mut sizes: Vec<(usize, u32)> = m
        .functions
        .iter()
        .enumerate()
        .filter_map(|(i, f)| {
            f.body
                .as_ref()
                .map(|b| (b.end.insts - b.start.insts + 16, i as u32))
        })
        .collect();
    sizes.sort_by(|a, b| b.cmp(a));
    let total: usize = sizes.iter().map(|s| s.0).sum();
    let floor = (total / (16 * threads)).max(1);
    let mut left = total;
    let mut loads = vec![0usize];
    let mut target = (left / (2 * threads)).max(floor);
    for (size, f) in sizes {
        if *loads.last().unwrap() >= target {
            loads.push(0);
            target = (left / (2 * threads)).max(floor);
        }
        owners[f as usize] = (loads.len() - 1) as u32;
        *loads.last_mut().unwrap() += size;
        left -= size;
    }
    (owners, loads)
}

/// Builds the LLVM module for `m` in `ctx`.
pub fn export<'ctx>(
    ctx: &'ctx Context,
    m: &Module,
    opts: &ExportOptions,
) -> R<inkwell::module::Module<'ctx>> {
    let module = ctx.create_module("pexe");
    let builder = ctx.create_builder();
    let mut x = Exporter::new(
        ctx.raw(),
        module.as_mut_ptr(),
        builder.as_mut_ptr(),
        m,
        opts.target,
    );
    x.partition = opts.partition.map(|(k, o)| (k, o.to_vec()));
    x.ssa_checked = opts.ssa_checked;
    x.run()?;
    drop(builder);
    Ok(module)
}

/// Function-level state.
struct Fn {
    func: u32,
    llfn: LLVMValueRef,
    /// LLVM values of the locals (parameters, constants, instruction results).
    vals: Vec<LLVMValueRef>,
    /// The pointer a local is known to be (allocas).
    ptrs: Vec<LLVMValueRef>,
    blocks: Vec<LLVMBasicBlockRef>,
    /// Block holding placeholders for forward references, and the placeholders.
    holder: LLVMBasicBlockRef,
    placeholders: Vec<(usize, LLVMValueRef)>,
    /// Pointer casts made in a block, reused there: (block, value id, pointee) → pointer.
    casts: HashMap<(u32, ValueId, LLVMTypeRef), LLVMValueRef, BuildHasherDefault<MixHasher>>,
    cur_block: u32,
    /// The local index of the next value an instruction defines.
    next_value: usize,
    /// le32 only (PNaCl normal form, see `Exporter::value`): the non-constant stand-in of
    /// each constant local, replaced by the constant when the function is complete, and
    /// the `ptrtoint` instruction of each global address used in the function.
    const_holders: Vec<(usize, LLVMValueRef)>,
    const_holder_of: Vec<LLVMValueRef>,
    global_addrs: Vec<LLVMValueRef>,
}

struct Exporter<'m> {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    b: LLVMBuilderRef,
    m: &'m Module,
    target: Target,
    // Common types.
    void: LLVMTypeRef,
    i1: LLVMTypeRef,
    i8: LLVMTypeRef,
    i32: LLVMTypeRef,
    i8p: LLVMTypeRef,
    /// LLVM function of each function address (null for lowered intrinsics).
    fns: Vec<LLVMValueRef>,
    fn_types: Vec<LLVMTypeRef>,
    globals: Vec<LLVMValueRef>,
    /// i32 address constants of functions and globals, by value id.
    addrs: Vec<LLVMValueRef>,
    intrinsic: Vec<Option<&'static Intrinsic>>,
    /// Runtime functions and LLVM intrinsics declared on demand.
    decls: HashMap<String, (LLVMValueRef, LLVMTypeRef)>,
    /// The partition being built and each function's partition.
    partition: Option<(u32, Vec<u32>)>,
    /// Room for the SSA check of each body (`ir::dom`), unless `ssa_checked`.
    ssa: crate::ir::dom::Scratch,
    ssa_checked: bool,
}

impl<'m> Exporter<'m> {
    fn new(
        ctx: LLVMContextRef,
        module: LLVMModuleRef,
        b: LLVMBuilderRef,
        m: &'m Module,
        target: Target,
    ) -> Self {
        unsafe {
            let i8 = LLVMInt8TypeInContext(ctx);
            Exporter {
                ctx,
                module,
                b,
                m,
                target,
                void: LLVMVoidTypeInContext(ctx),
                i1: LLVMInt1TypeInContext(ctx),
                i8,
                i32: LLVMInt32TypeInContext(ctx),
                i8p: LLVMPointerType(i8, 0),
                fns: Vec::new(),
                fn_types: Vec::new(),
                globals: Vec::new(),
                addrs: Vec::new(),
                intrinsic: Vec::new(),
                decls: HashMap::new(),
                partition: None,
                ssa: Default::default(),
                ssa_checked: false,
            }
        }
    }

    fn ty(&self, t: ValueType) -> LLVMTypeRef {
        unsafe {
            match t {
                ValueType::Void => self.void,
                ValueType::I1 => self.i1,
                ValueType::I8 => self.i8,
                ValueType::I16 => LLVMInt16TypeInContext(self.ctx),
                ValueType::I32 => self.i32,
                ValueType::I64 => LLVMInt64TypeInContext(self.ctx),
                ValueType::Float => LLVMFloatTypeInContext(self.ctx),
                ValueType::Double => LLVMDoubleTypeInContext(self.ctx),
                v => LLVMVectorType(self.ty(v.elem()), v.count()),
            }
        }
    }

    fn fn_ty(&self, sig: &FnType) -> LLVMTypeRef {
        let mut params: Vec<LLVMTypeRef> = sig.params.iter().map(|p| self.ty(*p)).collect();
        unsafe {
            LLVMFunctionType(
                self.ty(sig.ret),
                params.as_mut_ptr(),
                params.len() as u32,
                i32::from(sig.vararg),
            )
        }
    }

    /// The pointer type of an intrinsic's pointer parameter: iN* for atomics, i8* otherwise.
    fn intrinsic_ptr_ty(&self, intr: &Intrinsic) -> LLVMTypeRef {
        match intr.kind {
            Kind::AtomicLoad | Kind::AtomicStore | Kind::AtomicRmw | Kind::AtomicCmpxchg => {
                let n = match intr.kind {
                    Kind::AtomicLoad | Kind::AtomicRmw | Kind::AtomicCmpxchg => intr.ret.pexe(),
                    _ => intr.params[0].pexe(),
                };
                unsafe { LLVMPointerType(self.ty(n), 0) }
            }
            _ => self.i8p,
        }
    }

    /// The intrinsic's LLVM 3.3 signature with real pointer types (le32 declarations).
    fn intrinsic_fn_ty(&self, intr: &Intrinsic) -> LLVMTypeRef {
        use intrinsics::PTy;
        let p = self.intrinsic_ptr_ty(intr);
        let conv = |t: PTy| match t {
            PTy::V(v) => self.ty(v),
            PTy::Ptr => p,
        };
        let mut params: Vec<LLVMTypeRef> = intr.params.iter().map(|t| conv(*t)).collect();
        unsafe { LLVMFunctionType(conv(intr.ret), params.as_mut_ptr(), params.len() as u32, 0) }
    }

    fn run(&mut self) -> R<()> {
        unsafe {
            LLVMSetTarget(self.module, cstr(self.target.triple()).as_ptr());
            LLVMSetDataLayout(self.module, cstr(self.target.data_layout()).as_ptr());
        }
        self.declare_functions()?;
        let nf = self.m.functions.len();
        let ng = self.m.globals.len();
        self.globals = vec![std::ptr::null_mut(); ng];
        self.addrs = vec![std::ptr::null_mut(); nf + ng];
        // The whole module declares everything, in the pexe's order (`owns` is true of
        // every function there). A partition declares the functions it owns (and partition
        // 0 the globals, which it defines); the rest only on first use: most partitions
        // use a small part of a large module, and every declaration costs again in code
        // generation and when the module is freed.
        for f in 0..nf {
            if self.owns(f as u32) {
                self.fn_value(f);
            }
        }
        if self.owns_globals() {
            for g in 0..ng {
                self.global_var(g);
            }
        }
        if self.partition.is_none() {
            for id in 0..nf + ng {
                self.addr(id);
            }
        }
        self.init_globals()?;
        for f in 0..self.m.functions.len() as u32 {
            if let Some(body) = self.m.body(f) {
                if body.num_blocks > 0 && self.intrinsic[f as usize].is_none() && self.owns(f) {
                    self.function(f, &body)?;
                }
            }
        }
        if self.target.is_native() && self.owns_globals() {
            self.entry_thunk();
        }
        if self.target == Target::Le32 && self.partition.is_none() {
            self.symtab_metadata();
        }
        Ok(())
    }

    /// The symbol table's order as `pnacl.symtab` metadata, where it is not the order
    /// pnacl-freeze derives from the module (an LLVM module holds no such order: this is
    /// what makes `pnacl-llvm | pnacl-freeze` give the pexe back bit for bit).
    fn symtab_metadata(&mut self) {
        use crate::bitcode::symtab_order;
        let m = self.m;
        if m.symbol_order.is_empty() || m.symbol_order == symtab_order::derived(m) {
            return;
        }
        let nf = m.functions.len();
        // SAFETY: the context and module are live; each MDString copies its bytes.
        unsafe {
            let mut names: Vec<LLVMMetadataRef> = m
                .symbol_order
                .iter()
                .map(|&id| {
                    let id = id as usize;
                    let n: &[u8] = if id < nf {
                        m.functions[id].name.as_deref()
                    } else {
                        m.globals[id - nf].name.as_deref()
                    }
                    .unwrap_or_default();
                    LLVMMDStringInContext2(self.ctx, n.as_ptr() as *const _, n.len())
                })
                .collect();
            let node = LLVMMDNodeInContext2(self.ctx, names.as_mut_ptr(), names.len());
            LLVMAddNamedMetadataOperand(
                self.module,
                cstr(symtab_order::METADATA).as_ptr(),
                LLVMMetadataAsValue(self.ctx, node),
            );
        }
    }

    /// Whether this module defines function `f`'s body.
    fn owns(&self, f: u32) -> bool {
        self.partition
            .as_ref()
            .is_none_or(|(k, o)| o[f as usize] == *k)
    }

    /// Whether this module defines the globals (partition 0, or the whole module).
    fn owns_globals(&self) -> bool {
        self.partition.as_ref().is_none_or(|(k, _)| *k == 0)
    }

    /// Linkage of a definition: as in the pexe, or external and hidden across partitions.
    fn set_linkage(&self, v: LLVMValueRef, internal: bool) {
        unsafe {
            if self.partition.is_some() {
                LLVMSetLinkage(v, LLVMLinkage::LLVMExternalLinkage);
                LLVMSetVisibility(v, llvm_sys::LLVMVisibility::LLVMHiddenVisibility);
            } else if internal {
                LLVMSetLinkage(v, LLVMLinkage::LLVMInternalLinkage);
            } else {
                LLVMSetLinkage(v, LLVMLinkage::LLVMExternalLinkage);
            }
        }
    }

    fn fn_name(&self, f: u32) -> String {
        self.symbol_name(
            self.m.functions[f as usize].name.as_deref(),
            'f',
            f as usize,
        )
    }

    fn global_name(&self, g: usize) -> String {
        self.symbol_name(self.m.globals[g].name.as_deref(), 'g', g)
    }

    /// The LLVM name of function (`kind` 'f') or global ('g') `index`: its pexe name on
    /// le32; on native targets a private one, so that nothing in the pexe can bind a libc
    /// or runtime symbol (runtime.md §4.9), with the index to keep it unique whatever the
    /// pexe calls it.
    fn symbol_name(&self, name: Option<&[u8]>, kind: char, index: usize) -> String {
        let name = name.map(|n| String::from_utf8_lossy(n).into_owned());
        if !self.target.is_native() {
            return name.unwrap_or_default();
        }
        match name {
            Some(n) => format!("__pexe_{kind}{index}.{n}"),
            None => format!("__pexe_{kind}{index}"),
        }
    }

    fn declare_functions(&mut self) -> R<()> {
        let m = self.m;
        for (i, func) in m.functions.iter().enumerate() {
            let intr = func.name.as_deref().and_then(intrinsics::lookup);
            if intr.is_none()
                && func
                    .name
                    .as_deref()
                    .is_some_and(|n| n.starts_with(b"llvm."))
            {
                return err(
                    Some(func.pos),
                    format!(
                        "Function {} is a disallowed LLVM intrinsic",
                        String::from_utf8_lossy(func.name.as_deref().unwrap())
                    ),
                );
            }
            self.intrinsic.push(intr);
            let sig = m.fn_type(i as u32);
            if let Some(intr) = intr {
                if intr.pexe_type() != *sig {
                    return err(
                        Some(func.pos),
                        format!(
                            "Intrinsic {} has type {sig}, not {}",
                            intr.name,
                            intr.pexe_type()
                        ),
                    );
                }
            }
            // Lowered intrinsics (native targets) keep a null function: they are lowered
            // at each call, and the address of an intrinsic cannot be taken. On le32 an
            // intrinsic's LLVM type is its own (set when it is declared).
            self.fns.push(std::ptr::null_mut());
            self.fn_types
                .push(if intr.is_some() && !self.target.is_native() {
                    std::ptr::null_mut()
                } else {
                    self.fn_ty(sig)
                });
        }
        Ok(())
    }

    /// Whether function `f` is an intrinsic lowered at each call (native targets), which
    /// has no LLVM function.
    fn lowered(&self, f: usize) -> bool {
        self.target.is_native() && self.intrinsic[f].is_some()
    }

    /// The LLVM function of function address `f`, declared on first use; null for a
    /// lowered intrinsic.
    fn fn_value(&mut self, f: usize) -> LLVMValueRef {
        if self.fns[f].is_null() && !self.lowered(f) {
            self.declare_fn(f);
        }
        self.fns[f]
    }

    fn declare_fn(&mut self, i: usize) {
        if let Some(intr) = self.intrinsic[i] {
            let (llfn, fty) = if matches!(intr.kind, Kind::Memcpy | Kind::Memmove | Kind::Memset) {
                self.llvm_intrinsic(intr.kind)
            } else {
                let fty = self.intrinsic_fn_ty(intr);
                let f = unsafe { LLVMAddFunction(self.module, cstr(&intr.name).as_ptr(), fty) };
                (f, fty)
            };
            self.fns[i] = llfn;
            self.fn_types[i] = fty;
            return;
        }
        let func = &self.m.functions[i];
        let fty = self.fn_types[i];
        let name = self.fn_name(i as u32);
        let llfn = unsafe { LLVMAddFunction(self.module, cstr(&name).as_ptr(), fty) };
        let defined = func.body.as_ref().is_some_and(|b| b.num_blocks > 0);
        if self.target.is_native() {
            // Nothing unwinds through pexe code (C++ exceptions were lowered to
            // setjmp/longjmp): no unwind tables, no personality routines on ARM.
            let nu = self.enum_attr("nounwind", 0);
            unsafe { LLVMAddAttributeAtIndex(llfn, u32::MAX, nu) };
        }
        let here = defined && self.owns(i as u32);
        if here {
            self.set_linkage(llfn, func.linkage == Linkage::Internal);
        } else {
            unsafe { LLVMSetLinkage(llfn, LLVMLinkage::LLVMExternalLinkage) };
        }
        self.fns[i] = llfn;
    }

    /// The LLVM type of a simple initializer.
    fn init_ty(&self, init: &Init) -> LLVMTypeRef {
        unsafe {
            match init {
                Init::Zero(n) => LLVMArrayType(self.i8, *n as u32),
                Init::Data(d) => LLVMArrayType(self.i8, d.len() as u32),
                Init::Reloc { .. } => self.i32,
            }
        }
    }

    fn global_ty(&self, g: usize) -> LLVMTypeRef {
        let glob = &self.m.globals[g];
        if !glob.compound && glob.inits.len() == 1 {
            return self.init_ty(&glob.inits[0]);
        }
        let mut fields: Vec<LLVMTypeRef> = glob.inits.iter().map(|i| self.init_ty(i)).collect();
        unsafe { LLVMStructTypeInContext(self.ctx, fields.as_mut_ptr(), fields.len() as u32, 1) }
    }

    /// The LLVM global variable of global `g`, declared on first use.
    fn global_var(&mut self, g: usize) -> LLVMValueRef {
        if self.globals[g].is_null() {
            let glob = &self.m.globals[g];
            let ty = self.global_ty(g);
            let name = self.global_name(g);
            let v = unsafe { LLVMAddGlobal(self.module, ty, cstr(&name).as_ptr()) };
            if self.owns_globals() {
                self.set_linkage(v, true);
            } else {
                unsafe { LLVMSetLinkage(v, LLVMLinkage::LLVMExternalLinkage) };
            }
            unsafe {
                LLVMSetGlobalConstant(v, glob.is_const as i32);
                if glob.align.bytes() > 0 {
                    LLVMSetAlignment(v, glob.align.bytes() as u32);
                }
            }
            self.globals[g] = v;
        }
        self.globals[g]
    }

    /// The i32 "address" of global value `id` (a function or a global variable), made on
    /// first use; undef for an intrinsic, whose address cannot be taken (abicheck.md §4.2).
    fn addr(&mut self, id: usize) -> LLVMValueRef {
        if self.addrs[id].is_null() {
            let nf = self.m.functions.len();
            self.addrs[id] = if id < nf && self.intrinsic[id].is_some() {
                unsafe { LLVMGetUndef(self.i32) }
            } else {
                let g = self.global_value(id);
                unsafe { LLVMConstPtrToInt(g, self.i32) }
            };
        }
        self.addrs[id]
    }

    fn init_const(&mut self, init: &Init, pos: u64) -> R<LLVMValueRef> {
        unsafe {
            Ok(match init {
                Init::Zero(n) => LLVMConstNull(LLVMArrayType(self.i8, *n as u32)),
                Init::Data(d) => {
                    if d.iter().all(|&b| b == 0) {
                        LLVMConstNull(LLVMArrayType(self.i8, d.len() as u32))
                    } else {
                        LLVMConstStringInContext(
                            self.ctx,
                            d.as_ptr() as *const _,
                            d.len() as u32,
                            1,
                        )
                    }
                }
                Init::Reloc { target, addend } => {
                    let t = *target as usize;
                    if t < self.m.functions.len() && self.lowered(t) {
                        return err(
                            Some(pos),
                            format!("a global initializer takes the address of intrinsic @f{t}"),
                        );
                    }
                    let base = self.addr(t);
                    if *addend == 0 {
                        base
                    } else {
                        LLVMConstAdd(base, LLVMConstInt(self.i32, *addend as u32 as u64, 0))
                    }
                }
            })
        }
    }

    fn init_globals(&mut self) -> R<()> {
        if !self.owns_globals() {
            return Ok(());
        }
        let m = self.m;
        for (g, glob) in m.globals.iter().enumerate() {
            let init = if !glob.compound && glob.inits.len() == 1 {
                self.init_const(&glob.inits[0], glob.pos)?
            } else {
                let mut fields = Vec::with_capacity(glob.inits.len());
                for i in &glob.inits {
                    fields.push(self.init_const(i, glob.pos)?);
                }
                unsafe {
                    LLVMConstStructInContext(self.ctx, fields.as_mut_ptr(), fields.len() as u32, 1)
                }
            };
            unsafe { LLVMSetInitializer(self.globals[g], init) };
        }
        Ok(())
    }

    /// An LLVM intrinsic of LLVM 14 (or a runtime function), declared once.
    fn llvm_intrinsic(&mut self, kind: Kind) -> (LLVMValueRef, LLVMTypeRef) {
        let (name, overloads): (&str, Vec<LLVMTypeRef>) = match kind {
            Kind::Memcpy => ("llvm.memcpy", vec![self.i8p, self.i8p, self.i32]),
            Kind::Memmove => ("llvm.memmove", vec![self.i8p, self.i8p, self.i32]),
            Kind::Memset => ("llvm.memset", vec![self.i8p, self.i32]),
            Kind::StackSave => ("llvm.stacksave", vec![]),
            Kind::StackRestore => ("llvm.stackrestore", vec![]),
            Kind::Trap => ("llvm.trap", vec![]),
            _ => unreachable!("not an overload-free LLVM intrinsic: {kind:?}"),
        };
        self.llvm_intrinsic_named(name, &overloads)
    }

    fn llvm_intrinsic_named(
        &mut self,
        name: &str,
        overloads: &[LLVMTypeRef],
    ) -> (LLVMValueRef, LLVMTypeRef) {
        let key = format!("{name}{overloads:?}");
        if let Some(d) = self.decls.get(&key) {
            return *d;
        }
        let d = unsafe {
            let id = LLVMLookupIntrinsicID(name.as_ptr() as *const _, name.len());
            assert!(id != 0, "LLVM 14 has no intrinsic {name}");
            let mut tys = overloads.to_vec();
            let f = LLVMGetIntrinsicDeclaration(self.module, id, tys.as_mut_ptr(), tys.len());
            let fty = LLVMIntrinsicGetType(self.ctx, id, tys.as_mut_ptr(), tys.len());
            (f, fty)
        };
        self.decls.insert(key, d);
        d
    }

    /// A runtime function, declared once.
    fn runtime_fn(
        &mut self,
        name: &str,
        ret: LLVMTypeRef,
        params: &[LLVMTypeRef],
    ) -> (LLVMValueRef, LLVMTypeRef) {
        if let Some(d) = self.decls.get(name) {
            return *d;
        }
        let d = unsafe {
            let mut ps = params.to_vec();
            let fty = LLVMFunctionType(ret, ps.as_mut_ptr(), ps.len() as u32, 0);
            let f = LLVMAddFunction(self.module, cstr(name).as_ptr(), fty);
            (f, fty)
        };
        self.decls.insert(name.to_string(), d);
        d
    }

    fn enum_attr(&self, name: &str, val: u64) -> LLVMAttributeRef {
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            LLVMCreateEnumAttribute(self.ctx, kind, val)
        }
    }

    // ----------------------------------------------------------------------------------
    // Function bodies

    fn function(&mut self, f: u32, body: &Body) -> R<()> {
        let m = self.m;
        let np = m.fn_type(f).params.len();
        // A body that breaks the SSA rule would make a module LLVM rejects (the ABI check
        // reports it too; this holds where it was skipped).
        let first_inst_value = m.num_global_values() + np as u32 + body.consts.len() as u32;
        let checked = if self.ssa_checked {
            Ok(())
        } else {
            self.ssa.check(body, first_inst_value)
        };
        if let Err(u) = checked {
            return err(
                body.inst_pos(u.inst),
                format!(
                    "{}:    {}",
                    crate::abi::check::malformed_reason(m, f, body, u.kind),
                    crate::ir::asm::inst_text(m, f, body, u.inst)
                ),
            );
        }
        let llfn = self.fn_value(f as usize);
        let nlocal = body.local_types.len();
        let mut st = Fn {
            func: f,
            llfn,
            vals: vec![std::ptr::null_mut(); nlocal],
            ptrs: vec![std::ptr::null_mut(); nlocal],
            blocks: Vec::with_capacity(body.num_blocks as usize),
            holder: std::ptr::null_mut(),
            placeholders: Vec::new(),
            casts: HashMap::default(),
            cur_block: 0,
            next_value: 0,
            const_holders: Vec::new(),
            const_holder_of: if self.target.is_native() {
                Vec::new()
            } else {
                vec![std::ptr::null_mut(); nlocal]
            },
            global_addrs: if self.target.is_native() {
                Vec::new()
            } else {
                vec![std::ptr::null_mut(); m.num_global_values() as usize]
            },
        };
        unsafe {
            for i in 0..np {
                st.vals[i] = LLVMGetParam(llfn, i as u32);
            }
            for (i, c) in body.consts.iter().enumerate() {
                st.vals[np + i] = self.constant(c.ty, c.value);
            }
            for _ in 0..body.num_blocks {
                st.blocks
                    .push(LLVMAppendBasicBlockInContext(self.ctx, llfn, EMPTY));
            }
        }
        let preds = if body
            .insts
            .iter()
            .any(|i| matches!(i.kind, InstKind::Phi { .. }))
        {
            predecessors(body)
        } else {
            Vec::new()
        };
        let first_inst = np + body.consts.len();
        let mut phis: Vec<(usize, LLVMValueRef)> = Vec::new();
        st.next_value = first_inst;
        for b in 0..body.num_blocks {
            st.cur_block = b;
            unsafe { LLVMPositionBuilderAtEnd(self.b, st.blocks[b as usize]) };
            for i in body.block_range(b) {
                let inst = body.insts[i];
                let pos = body.inst_pos(i);
                let v = self.inst(&mut st, body, i, pos)?;
                if let InstKind::Phi { .. } = inst.kind {
                    phis.push((i, v));
                }
                if !inst.ty.is_void() {
                    st.vals[st.next_value] = v;
                    st.next_value += 1;
                }
            }
        }
        // Phi incoming values, one per CFG edge (LLVM lists a predecessor once per edge),
        // in the pexe's order so that pnacl-freeze writes the same record back: a block
        // the pexe lists once but that has several edges is repeated in place, extra
        // entries for a block beyond its edges are dropped.
        for (i, phi) in phis {
            let inst = body.insts[i];
            let InstKind::Phi { incoming } = inst.kind else {
                unreachable!()
            };
            let pairs = body.phi_pairs(incoming);
            let block = block_of(body, i);
            let pos = body.inst_pos(i);
            let preds = &preds[block as usize];
            let edges_of = |b: u32| preds.iter().find(|p| p.0 == b).map_or(0, |p| p.1);
            for &(pred, _) in preds {
                if !pairs.chunks(2).any(|p| p[1] == pred) {
                    return err(
                        pos,
                        format!(
                            "phi in %b{block} has no incoming value for its predecessor %b{pred}"
                        ),
                    );
                }
            }
            let mut added: Vec<(u32, u32)> = Vec::new();
            for (k, pair) in pairs.chunks(2).enumerate() {
                let b = pair[1];
                let edges = edges_of(b);
                let listed = pairs.chunks(2).filter(|p| p[1] == b).count() as u32;
                let first = !pairs.chunks(2).take(k).any(|p| p[1] == b);
                let done = added.iter().find(|a| a.0 == b).map_or(0, |a| a.1);
                let copies = if first {
                    edges
                        .saturating_sub(listed.saturating_sub(1))
                        .max(1)
                        .min(edges)
                } else {
                    (edges - done).min(1)
                };
                if copies == 0 {
                    continue;
                }
                let mut v = self.value_at(&mut st, pair[0], b);
                let mut bb = st.blocks[b as usize];
                for _ in 0..copies {
                    unsafe { LLVMAddIncoming(phi, &mut v, &mut bb, 1) };
                }
                match added.iter_mut().find(|a| a.0 == b) {
                    Some(a) => a.1 += copies,
                    None => added.push((b, copies)),
                }
            }
        }
        // Forward references: the placeholders give way to the real values.
        for (local, ph) in st.placeholders.drain(..) {
            let real = st.vals[local];
            if real.is_null() {
                return err(
                    None,
                    format!("@f{f}: value {local} is used but never defined"),
                );
            }
            unsafe { LLVMReplaceAllUsesWith(ph, real) };
        }
        // Constants take their places in the (unfolded) instructions that use them.
        for (local, ph) in st.const_holders.drain(..) {
            unsafe { LLVMReplaceAllUsesWith(ph, st.vals[local]) };
        }
        if !st.holder.is_null() {
            unsafe { LLVMDeleteBasicBlock(st.holder) };
        }
        Ok(())
    }

    fn constant(&self, ty: ValueType, v: ConstValue) -> LLVMValueRef {
        let t = self.ty(ty);
        unsafe {
            match v {
                ConstValue::Undef => LLVMGetUndef(t),
                ConstValue::Int(x) => LLVMConstInt(t, x, 0),
                ConstValue::Float(bits) => {
                    let it = if ty == ValueType::Float {
                        self.i32
                    } else {
                        LLVMInt64TypeInContext(self.ctx)
                    };
                    LLVMConstBitCast(LLVMConstInt(it, bits, 0), t)
                }
            }
        }
    }

    /// A non-constant value of type `ty` (a phi in a detached block) that stands in for
    /// a value the builder must not see: a forward reference, or a constant it would fold.
    fn stand_in(&self, st: &mut Fn, ty: LLVMTypeRef) -> LLVMValueRef {
        unsafe {
            if st.holder.is_null() {
                st.holder = LLVMAppendBasicBlockInContext(self.ctx, st.llfn, EMPTY);
            }
            let hb = LLVMCreateBuilderInContext(self.ctx);
            LLVMPositionBuilderAtEnd(hb, st.holder);
            let ph = LLVMBuildPhi(hb, ty, EMPTY);
            LLVMDisposeBuilder(hb);
            ph
        }
    }

    /// `op` applied to `v` as an instruction even when `v` is a constant (LLVM's builder
    /// would fold it into a constant expression).
    fn unfolded_cast(
        &self,
        st: &mut Fn,
        b: LLVMBuilderRef,
        op: LLVMOpcode,
        v: LLVMValueRef,
        ty: LLVMTypeRef,
    ) -> LLVMValueRef {
        unsafe {
            let ph = self.stand_in(st, LLVMTypeOf(v));
            let c = LLVMBuildCast(b, op, ph, ty, EMPTY);
            LLVMSetOperand(c, 0, v);
            LLVMInstructionEraseFromParent(ph);
            c
        }
    }

    /// The LLVM value of pexe value `id` (a placeholder if it is not defined yet).
    ///
    /// For le32 the module is kept in PNaCl normal form, instruction for instruction as in
    /// the pexe (what pnacl-abicheck accepts and pnacl-finalize writes back): constants
    /// reach instructions through stand-ins so that nothing is folded, and a global's
    /// address is a `ptrtoint` instruction at the top of the function, never a constant
    /// expression.
    fn value(&mut self, st: &mut Fn, id: ValueId) -> LLVMValueRef {
        let ng = self.m.num_global_values() as usize;
        let id = id as usize;
        let le32 = !self.target.is_native();
        if id < ng {
            let a = self.addr(id);
            if !le32 || unsafe { LLVMIsUndef(a) } != 0 {
                return a;
            }
            if !st.global_addrs[id].is_null() {
                return st.global_addrs[id];
            }
            let g = self.global_value(id);
            let a = unsafe {
                let hb = LLVMCreateBuilderInContext(self.ctx);
                let entry = LLVMGetEntryBasicBlock(st.llfn);
                let first = LLVMGetFirstInstruction(entry);
                if first.is_null() {
                    LLVMPositionBuilderAtEnd(hb, entry);
                } else {
                    LLVMPositionBuilderBefore(hb, first);
                }
                let a = self.unfolded_cast(st, hb, LLVMOpcode::LLVMPtrToInt, g, self.i32);
                LLVMDisposeBuilder(hb);
                a
            };
            st.global_addrs[id] = a;
            return a;
        }
        let local = id - ng;
        if !st.vals[local].is_null() {
            let v = st.vals[local];
            if le32 && unsafe { LLVMIsConstant(v) } != 0 {
                if !st.const_holder_of[local].is_null() {
                    return st.const_holder_of[local];
                }
                let ph = self.stand_in(st, unsafe { LLVMTypeOf(v) });
                st.const_holders.push((local, ph));
                st.const_holder_of[local] = ph;
                return ph;
            }
            return v;
        }
        // A forward reference: a phi in a detached block stands in until the end.
        let body = self.m.body(st.func).unwrap();
        let ty = self.ty(body.local_types[local]);
        let ph = self.stand_in(st, ty);
        st.placeholders.push((local, ph));
        st.vals[local] = ph;
        ph
    }

    /// The LLVM global (function or variable) of global value id `id`.
    fn global_value(&mut self, id: usize) -> LLVMValueRef {
        let nf = self.m.functions.len();
        if id < nf {
            self.fn_value(id)
        } else {
            self.global_var(id - nf)
        }
    }

    /// `value`, but for use at the end of block `b` (phi incoming values).
    fn value_at(&mut self, st: &mut Fn, id: ValueId, _b: u32) -> LLVMValueRef {
        self.value(st, id)
    }

    /// Pexe value `id` as a pointer to `pointee`.
    fn pointer(&mut self, st: &mut Fn, id: ValueId, pointee: LLVMTypeRef) -> LLVMValueRef {
        let ng = self.m.num_global_values() as usize;
        let pty = unsafe { LLVMPointerType(pointee, 0) };
        // An intrinsic's address cannot be taken (LLVM's verifier rejects a cast of one):
        // as a pointer, an intrinsic is its undef address turned into one, as it is when
        // lowered on a native target (the ABI check reports such a use).
        let intrinsic =
            (id as usize) < self.m.functions.len() && self.intrinsic[id as usize].is_some();
        if (id as usize) < ng && !intrinsic {
            let g = self.global_value(id as usize);
            if !g.is_null() {
                if unsafe { LLVMTypeOf(g) } == pty {
                    return g;
                }
                if self.target.is_native() {
                    return unsafe { LLVMConstBitCast(g, pty) };
                }
                // le32: a bitcast instruction of the (inherent) global, once per block.
                let key = (st.cur_block, id, pointee);
                if let Some(&p) = st.casts.get(&key) {
                    return p;
                }
                let p = self.unfolded_cast(st, self.b, LLVMOpcode::LLVMBitCast, g, pty);
                st.casts.insert(key, p);
                return p;
            }
        }
        let key = (st.cur_block, id, pointee);
        if let Some(&p) = st.casts.get(&key) {
            return p;
        }
        let local = (id as usize).wrapping_sub(ng);
        let p = unsafe {
            if local < st.ptrs.len() && !st.ptrs[local].is_null() {
                LLVMBuildBitCast(self.b, st.ptrs[local], pty, EMPTY)
            } else {
                let v = self.value(st, id);
                LLVMBuildIntToPtr(self.b, v, pty, EMPTY)
            }
        };
        st.casts.insert(key, p);
        p
    }

    /// The value of an integer constant operand, if `id` is one.
    fn const_int_arg(&self, st: &Fn, body: &Body, id: ValueId) -> Option<u64> {
        let ng = self.m.num_global_values() as usize;
        let local = (id as usize).checked_sub(ng)?;
        // Constants follow the parameters.
        let nparams = self.m.fn_type(st.func).params.len();
        let c = body.consts.get(local.checked_sub(nparams)?)?;
        match c.value {
            ConstValue::Int(v) => Some(v),
            _ => None,
        }
    }

    fn inst(&mut self, st: &mut Fn, body: &Body, i: usize, pos: Option<u64>) -> R<LLVMValueRef> {
        let inst = body.insts[i];
        let b = self.b;
        unsafe {
            Ok(match inst.kind {
                InstKind::Binop { op, lhs, rhs } => {
                    let (l, r) = (self.value(st, lhs), self.value(st, rhs));
                    LLVMBuildBinOp(b, binop(op, inst.ty.elem().is_float()), l, r, EMPTY)
                }
                InstKind::Cast { op, val } => {
                    let v = self.value(st, val);
                    LLVMBuildCast(b, castop(op), v, self.ty(inst.ty), EMPTY)
                }
                InstKind::Ret { val: None } => LLVMBuildRetVoid(b),
                InstKind::Ret { val: Some(v) } => {
                    let v = self.value(st, v);
                    LLVMBuildRet(b, v)
                }
                InstKind::Br { target } => LLVMBuildBr(b, st.blocks[target as usize]),
                InstKind::CondBr { cond, t, f } => {
                    let c = self.value(st, cond);
                    LLVMBuildCondBr(b, c, st.blocks[t as usize], st.blocks[f as usize])
                }
                InstKind::Switch {
                    cond,
                    default,
                    cases,
                } => {
                    let c = self.value(st, cond);
                    let cty = LLVMTypeOf(c);
                    let cs = body.switch_cases(cases);
                    let sw = LLVMBuildSwitch(b, c, st.blocks[default as usize], cs.len() as u32);
                    for case in cs {
                        LLVMAddCase(
                            sw,
                            LLVMConstInt(cty, case.value as u64, 1),
                            st.blocks[case.target as usize],
                        );
                    }
                    sw
                }
                InstKind::Unreachable => LLVMBuildUnreachable(b),
                InstKind::Phi { .. } => LLVMBuildPhi(b, self.ty(inst.ty), EMPTY),
                InstKind::Alloca { size, align } => {
                    let s = self.value(st, size);
                    let a = LLVMBuildArrayAlloca(b, self.i8, s, EMPTY);
                    if align.bytes() > 0 {
                        LLVMSetAlignment(a, align.bytes() as u32);
                    }
                    st.ptrs[st.next_value] = a;
                    LLVMBuildPtrToInt(b, a, self.i32, EMPTY)
                }
                InstKind::Load { ptr, align } => {
                    let t = self.ty(inst.ty);
                    let p = self.pointer(st, ptr, t);
                    let l = LLVMBuildLoad2(b, t, p, EMPTY);
                    if align.bytes() > 0 {
                        LLVMSetAlignment(l, align.bytes() as u32);
                    }
                    l
                }
                InstKind::Store { ptr, val, align } => {
                    let v = self.value(st, val);
                    let p = self.pointer(st, ptr, LLVMTypeOf(v));
                    let s = LLVMBuildStore(b, v, p);
                    if align.bytes() > 0 {
                        LLVMSetAlignment(s, align.bytes() as u32);
                    }
                    s
                }
                InstKind::Cmp { pred, lhs, rhs } => {
                    let (l, r) = (self.value(st, lhs), self.value(st, rhs));
                    if pred.is_float() {
                        LLVMBuildFCmp(b, real_pred(pred), l, r, EMPTY)
                    } else {
                        LLVMBuildICmp(b, int_pred(pred), l, r, EMPTY)
                    }
                }
                InstKind::Select { cond, t, f } => {
                    let (c, x, y) = (self.value(st, cond), self.value(st, t), self.value(st, f));
                    LLVMBuildSelect(b, c, x, y, EMPTY)
                }
                InstKind::ExtractElement { vec, idx } => {
                    let (v, x) = (self.value(st, vec), self.value(st, idx));
                    LLVMBuildExtractElement(b, v, x, EMPTY)
                }
                InstKind::InsertElement { vec, elt, idx } => {
                    let (v, e, x) = (
                        self.value(st, vec),
                        self.value(st, elt),
                        self.value(st, idx),
                    );
                    LLVMBuildInsertElement(b, v, e, x, EMPTY)
                }
                InstKind::Call {
                    callee,
                    args,
                    tail,
                    indirect,
                } => {
                    let args: Vec<ValueId> = body.span(args).to_vec();
                    let nf = self.m.functions.len() as u32;
                    if !indirect && callee < nf {
                        if let Some(intr) = self.intrinsic[callee as usize] {
                            return self
                                .intrinsic_call(st, body, intr, callee, &args, inst.ty, tail, pos);
                        }
                        let llfn = self.fn_value(callee as usize);
                        let fty = self.fn_types[callee as usize];
                        let mut vs: Vec<LLVMValueRef> =
                            args.iter().map(|&a| self.value(st, a)).collect();
                        let c =
                            LLVMBuildCall2(b, fty, llfn, vs.as_mut_ptr(), vs.len() as u32, EMPTY);
                        LLVMSetTailCall(c, tail as i32);
                        c
                    } else {
                        let mut vs: Vec<LLVMValueRef> =
                            args.iter().map(|&a| self.value(st, a)).collect();
                        let mut ptys: Vec<LLVMTypeRef> =
                            vs.iter().map(|v| LLVMTypeOf(*v)).collect();
                        let fty = LLVMFunctionType(
                            self.ty(inst.ty),
                            ptys.as_mut_ptr(),
                            ptys.len() as u32,
                            0,
                        );
                        let p = self.pointer(st, callee, fty);
                        let c = LLVMBuildCall2(b, fty, p, vs.as_mut_ptr(), vs.len() as u32, EMPTY);
                        LLVMSetTailCall(c, tail as i32);
                        c
                    }
                }
            })
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn intrinsic_call(
        &mut self,
        st: &mut Fn,
        body: &Body,
        intr: &'static Intrinsic,
        callee: u32,
        args: &[ValueId],
        ret: ValueType,
        tail: bool,
        pos: Option<u64>,
    ) -> R<LLVMValueRef> {
        let b = self.b;
        let native = self.target.is_native();
        let ptr_ty = self.intrinsic_ptr_ty(intr);
        let pointee = unsafe { LLVMGetElementType(ptr_ty) };
        let constant = |this: &Self, k: usize, what: &str| -> R<u64> {
            this.const_int_arg(st, body, args[k])
                .ok_or_else(|| ExportError {
                    pos,
                    msg: format!("{}: the {what} argument must be a constant", intr.name),
                })
        };
        unsafe {
            match intr.kind {
                Kind::Memcpy | Kind::Memmove | Kind::Memset => {
                    // LLVM 14 form: no alignment argument; alignment as attributes.
                    let (f, fty) = self.llvm_intrinsic(intr.kind);
                    let align = constant(self, 3, "alignment")?;
                    let vol = constant(self, 4, "volatile")?;
                    let dst = self.pointer(st, args[0], self.i8);
                    let second = if intr.kind == Kind::Memset {
                        self.value(st, args[1])
                    } else {
                        self.pointer(st, args[1], self.i8)
                    };
                    let len = self.value(st, args[2]);
                    let mut vs = [dst, second, len, LLVMConstInt(self.i1, vol & 1, 0)];
                    let c = LLVMBuildCall2(b, fty, f, vs.as_mut_ptr(), 4, EMPTY);
                    LLVMSetTailCall(c, tail as i32);
                    if align > 1 {
                        let a = self.enum_attr("align", align);
                        LLVMAddCallSiteAttribute(c, 1, a);
                        if intr.kind != Kind::Memset {
                            LLVMAddCallSiteAttribute(c, 2, a);
                        }
                    }
                    return Ok(c);
                }
                Kind::StackSave | Kind::StackRestore | Kind::Trap => {
                    let (f, fty) = self.llvm_intrinsic(intr.kind);
                    return Ok(match intr.kind {
                        Kind::StackSave => {
                            let c = LLVMBuildCall2(b, fty, f, std::ptr::null_mut(), 0, EMPTY);
                            LLVMSetTailCall(c, tail as i32);
                            LLVMBuildPtrToInt(b, c, self.i32, EMPTY)
                        }
                        Kind::StackRestore => {
                            let mut p = [self.pointer(st, args[0], self.i8)];
                            let c = LLVMBuildCall2(b, fty, f, p.as_mut_ptr(), 1, EMPTY);
                            LLVMSetTailCall(c, tail as i32);
                            c
                        }
                        _ => {
                            let c = LLVMBuildCall2(b, fty, f, std::ptr::null_mut(), 0, EMPTY);
                            LLVMSetTailCall(c, tail as i32);
                            c
                        }
                    });
                }
                _ => {}
            }
            if !native {
                // le32: a call of the intrinsic as the pexe declares it, pointers typed.
                let llfn = self.fn_value(callee as usize);
                let fty = self.fn_types[callee as usize];
                let mut vs = Vec::with_capacity(args.len());
                for (k, &a) in args.iter().enumerate() {
                    vs.push(if intr.params[k] == intrinsics::PTy::Ptr {
                        self.pointer(st, a, pointee)
                    } else {
                        self.value(st, a)
                    });
                }
                let c = LLVMBuildCall2(b, fty, llfn, vs.as_mut_ptr(), vs.len() as u32, EMPTY);
                LLVMSetTailCall(c, tail as i32);
                return Ok(if intr.ret == intrinsics::PTy::Ptr {
                    LLVMBuildPtrToInt(b, c, self.i32, EMPTY)
                } else {
                    c
                });
            }
            let order = |this: &Self, k: usize| -> R<LLVMAtomicOrdering> {
                let v = constant(this, k, "memory order")?;
                memory_order(v).ok_or_else(|| ExportError {
                    pos,
                    msg: format!("{}: invalid memory order {v}", intr.name),
                })
            };
            let rt = self.ty(ret);
            Ok(match intr.kind {
                Kind::Bswap | Kind::Ctpop | Kind::Sqrt | Kind::Fabs => {
                    let name = match intr.kind {
                        Kind::Bswap => "llvm.bswap",
                        Kind::Ctpop => "llvm.ctpop",
                        Kind::Sqrt => "llvm.sqrt",
                        _ => "llvm.fabs",
                    };
                    let (f, fty) = self.llvm_intrinsic_named(name, &[rt]);
                    let mut vs = [self.value(st, args[0])];
                    LLVMBuildCall2(b, fty, f, vs.as_mut_ptr(), 1, EMPTY)
                }
                Kind::Ctlz | Kind::Cttz => {
                    let name = if intr.kind == Kind::Ctlz {
                        "llvm.ctlz"
                    } else {
                        "llvm.cttz"
                    };
                    let (f, fty) = self.llvm_intrinsic_named(name, &[rt]);
                    // is_zero_undef = false: a zero input gives the bit width (runtime.md §4.7).
                    let mut vs = [self.value(st, args[0]), LLVMConstInt(self.i1, 0, 0)];
                    LLVMBuildCall2(b, fty, f, vs.as_mut_ptr(), 2, EMPTY)
                }
                Kind::ReadTp => {
                    let (f, fty) = self.runtime_fn(runtime::READ_TP, self.i32, &[]);
                    LLVMBuildCall2(b, fty, f, std::ptr::null_mut(), 0, EMPTY)
                }
                Kind::Setjmp => {
                    let (f, fty) = self.runtime_fn(runtime::SETJMP, self.i32, &[self.i8p]);
                    let rt2 = self.enum_attr("returns_twice", 0);
                    LLVMAddAttributeAtIndex(f, u32::MAX, rt2);
                    let mut vs = [self.pointer(st, args[0], self.i8)];
                    let c = LLVMBuildCall2(b, fty, f, vs.as_mut_ptr(), 1, EMPTY);
                    LLVMAddCallSiteAttribute(c, u32::MAX, rt2);
                    c
                }
                Kind::Longjmp => {
                    let (f, fty) =
                        self.runtime_fn(runtime::LONGJMP, self.void, &[self.i8p, self.i32]);
                    let nr = self.enum_attr("noreturn", 0);
                    LLVMAddAttributeAtIndex(f, u32::MAX, nr);
                    let mut vs = [self.pointer(st, args[0], self.i8), self.value(st, args[1])];
                    LLVMBuildCall2(b, fty, f, vs.as_mut_ptr(), 2, EMPTY)
                }
                Kind::AtomicLoad => {
                    let ord = order(self, 1)?;
                    let p = self.pointer(st, args[0], rt);
                    let l = LLVMBuildLoad2(b, rt, p, EMPTY);
                    LLVMSetOrdering(l, load_order(ord));
                    LLVMSetAlignment(l, ret.store_size());
                    l
                }
                Kind::AtomicStore => {
                    let ord = order(self, 2)?;
                    let v = self.value(st, args[0]);
                    let vt = intr.params[0].pexe();
                    let p = self.pointer(st, args[1], self.ty(vt));
                    let s = LLVMBuildStore(b, v, p);
                    LLVMSetOrdering(s, store_order(ord));
                    LLVMSetAlignment(s, vt.store_size());
                    s
                }
                Kind::AtomicRmw => {
                    let op = constant(self, 0, "operation")?;
                    let ord = order(self, 3)?;
                    let op = rmw_op(op).ok_or_else(|| ExportError {
                        pos,
                        msg: format!(
                            "{}: invalid atomic read-modify-write operation {op}",
                            intr.name
                        ),
                    })?;
                    let p = self.pointer(st, args[1], rt);
                    let v = self.value(st, args[2]);
                    let r = LLVMBuildAtomicRMW(b, op, p, v, ord, 0);
                    LLVMSetAlignment(r, ret.store_size());
                    r
                }
                Kind::AtomicCmpxchg => {
                    let succ = order(self, 3)?;
                    let fail = order(self, 4)?;
                    let p = self.pointer(st, args[0], rt);
                    let (e, d) = (self.value(st, args[1]), self.value(st, args[2]));
                    let x = LLVMBuildAtomicCmpXchg(
                        b,
                        p,
                        e,
                        d,
                        cmpxchg_success(succ),
                        cmpxchg_failure(succ, fail),
                        0,
                    );
                    LLVMSetAlignment(x, ret.store_size());
                    LLVMBuildExtractValue(b, x, 0, EMPTY)
                }
                Kind::AtomicFence => {
                    let ord = order(self, 0)?;
                    if ord == LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic {
                        // A relaxed fence orders nothing.
                        return Ok(std::ptr::null_mut());
                    }
                    LLVMBuildFence(b, ord, 0, EMPTY)
                }
                Kind::AtomicFenceAll => {
                    // PNaCl's expansion: a compiler barrier, a seq_cst fence, a barrier.
                    self.compiler_barrier();
                    let f = LLVMBuildFence(
                        b,
                        LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
                        0,
                        EMPTY,
                    );
                    self.compiler_barrier();
                    f
                }
                Kind::AtomicIsLockFree => match self.const_int_arg(st, body, args[0]) {
                    Some(n) => LLVMConstInt(self.i1, matches!(n, 1 | 2 | 4 | 8) as u64, 0),
                    None => {
                        let n = self.value(st, args[0]);
                        LLVMBuildICmp(
                            b,
                            LLVMIntPredicate::LLVMIntULE,
                            n,
                            LLVMConstInt(self.i32, 8, 0),
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

    fn compiler_barrier(&mut self) {
        unsafe {
            let fty = LLVMFunctionType(self.void, std::ptr::null_mut(), 0, 0);
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
            LLVMBuildCall2(self.b, fty, asm, std::ptr::null_mut(), 0, EMPTY);
        }
    }

    /// `void __pnacl_entry(i32 info)`: calls `_start` with its real type (runtime.md §1.1).
    fn entry_thunk(&mut self) {
        let Some(start) = self.m.function_named("_start") else {
            return;
        };
        let llfn = self.fn_value(start as usize);
        if llfn.is_null() {
            return;
        }
        unsafe {
            let mut p = [self.i32];
            let fty = LLVMFunctionType(self.void, p.as_mut_ptr(), 1, 0);
            let f = LLVMAddFunction(self.module, cstr(runtime::ENTRY).as_ptr(), fty);
            LLVMAddAttributeAtIndex(f, u32::MAX, self.enum_attr("nounwind", 0));
            let bb = LLVMAppendBasicBlockInContext(self.ctx, f, EMPTY);
            LLVMPositionBuilderAtEnd(self.b, bb);
            let sig = self.m.fn_type(start);
            let info = LLVMGetParam(f, 0);
            let mut args: Vec<LLVMValueRef> = sig
                .params
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    if k == 0 && *t == ValueType::I32 {
                        info
                    } else {
                        LLVMConstNull(self.ty(*t))
                    }
                })
                .collect();
            LLVMBuildCall2(
                self.b,
                self.fn_types[start as usize],
                llfn,
                args.as_mut_ptr(),
                args.len() as u32,
                EMPTY,
            );
            LLVMBuildRetVoid(self.b);
        }
    }
}

/// The block holding instruction `i`.
fn block_of(body: &Body, i: usize) -> u32 {
    (body.block_starts.partition_point(|&s| (s as usize) <= i) - 1) as u32
}

/// For each block, its predecessors in order of first appearance, with the number of CFG
/// edges from each.
pub fn predecessors(body: &Body) -> Vec<Vec<(u32, u32)>> {
    let mut preds: Vec<Vec<(u32, u32)>> = vec![Vec::new(); body.num_blocks as usize];
    let mut add = |from: u32, to: u32| {
        let list = &mut preds[to as usize];
        match list.iter_mut().find(|(p, _)| *p == from) {
            Some(e) => e.1 += 1,
            None => list.push((from, 1)),
        }
    };
    for b in 0..body.num_blocks {
        let r = body.block_range(b);
        let Some(last) = body.insts.get(r.end.wrapping_sub(1)) else {
            continue;
        };
        match last.kind {
            InstKind::Br { target } => add(b, target),
            InstKind::CondBr { t, f, .. } => {
                add(b, t);
                add(b, f);
            }
            InstKind::Switch { default, cases, .. } => {
                add(b, default);
                for c in body.switch_cases(cases) {
                    add(b, c.target);
                }
            }
            _ => {}
        }
    }
    preds
}

fn binop(op: BinOp, float: bool) -> LLVMOpcode {
    use LLVMOpcode::*;
    match (op, float) {
        (BinOp::Add, false) => LLVMAdd,
        (BinOp::Add, true) => LLVMFAdd,
        (BinOp::Sub, false) => LLVMSub,
        (BinOp::Sub, true) => LLVMFSub,
        (BinOp::Mul, false) => LLVMMul,
        (BinOp::Mul, true) => LLVMFMul,
        (BinOp::UDiv, _) => LLVMUDiv,
        (BinOp::SDiv, false) => LLVMSDiv,
        (BinOp::SDiv, true) => LLVMFDiv,
        (BinOp::URem, _) => LLVMURem,
        (BinOp::SRem, false) => LLVMSRem,
        (BinOp::SRem, true) => LLVMFRem,
        (BinOp::Shl, _) => LLVMShl,
        (BinOp::LShr, _) => LLVMLShr,
        (BinOp::AShr, _) => LLVMAShr,
        (BinOp::And, _) => LLVMAnd,
        (BinOp::Or, _) => LLVMOr,
        (BinOp::Xor, _) => LLVMXor,
    }
}

fn castop(op: CastOp) -> LLVMOpcode {
    use LLVMOpcode::*;
    match op {
        CastOp::Trunc => LLVMTrunc,
        CastOp::ZExt => LLVMZExt,
        CastOp::SExt => LLVMSExt,
        CastOp::FpToUi => LLVMFPToUI,
        CastOp::FpToSi => LLVMFPToSI,
        CastOp::UiToFp => LLVMUIToFP,
        CastOp::SiToFp => LLVMSIToFP,
        CastOp::FpTrunc => LLVMFPTrunc,
        CastOp::FpExt => LLVMFPExt,
        CastOp::Bitcast => LLVMBitCast,
    }
}

fn int_pred(p: Pred) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match p.0 {
        32 => LLVMIntEQ,
        33 => LLVMIntNE,
        34 => LLVMIntUGT,
        35 => LLVMIntUGE,
        36 => LLVMIntULT,
        37 => LLVMIntULE,
        38 => LLVMIntSGT,
        39 => LLVMIntSGE,
        40 => LLVMIntSLT,
        _ => LLVMIntSLE,
    }
}

fn real_pred(p: Pred) -> LLVMRealPredicate {
    use LLVMRealPredicate::*;
    [
        LLVMRealPredicateFalse,
        LLVMRealOEQ,
        LLVMRealOGT,
        LLVMRealOGE,
        LLVMRealOLT,
        LLVMRealOLE,
        LLVMRealONE,
        LLVMRealORD,
        LLVMRealUNO,
        LLVMRealUEQ,
        LLVMRealUGT,
        LLVMRealUGE,
        LLVMRealULT,
        LLVMRealULE,
        LLVMRealUNE,
        LLVMRealPredicateTrue,
    ][p.0 as usize]
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
