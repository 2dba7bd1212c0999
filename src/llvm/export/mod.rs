//! `ir::Module` → an LLVM 14 module for a target.
//!
//! The conversion (this file) is the same for every target: every pexe value becomes an
//! LLVM value of its pexe type (pointers are i32, as in the pexe); memory accesses and
//! indirect calls turn the i32 into a pointer (`inttoptr`, or a bitcast of the alloca or
//! global it is known to be); addresses of globals and functions are `ptrtoint`
//! constants. Where targets differ (symbol names, the PNaCl intrinsics, what the module
//! needs around the pexe), it asks the target's `Lowering`: `le32.rs` keeps the pexe as it
//! is, `native.rs` lowers it for x86-32 and ARM, `wasm32.rs` for WebAssembly. A new
//! target is a new `Lowering`.
//!
//! The builder works on llvm-sys handles directly; the module it returns is an inkwell
//! `Module` owned by the caller's `Context`. Every handle the exporter holds or makes
//! belongs to that context and to the module it builds, both alive as long as the
//! exporter: that is what each `unsafe` block below relies on.

mod le32;
mod native;
mod one_thread;
mod region;
mod wasm32;

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use inkwell::context::Context;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMOpcode, LLVMRealPredicate};

use super::ffi::cstr;
use super::target::Target;
use crate::ir::hash::IdHasher;
use crate::ir::intrinsics::{self, Intrinsic, Kind};
use crate::ir::{
    BinOp, Body, CastOp, ConstValue, FnType, Init, Inst, InstKind, Linkage, Module, Pred, ValueId,
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

impl ExportError {
    /// The error as a message about file `name`: `NAME:BYTE:BIT: message`, or
    /// `NAME: message` when it has no position.
    pub fn in_file(&self, name: &str) -> String {
        match self.pos {
            Some(_) => format!("{name}:{self}"),
            None => format!("{name}: {self}"),
        }
    }
}

type R<T> = Result<T, ExportError>;

fn err<T>(pos: Option<u64>, msg: impl Into<String>) -> R<T> {
    Err(ExportError {
        pos,
        msg: msg.into(),
    })
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
    /// A partition also holds, as `available_externally` copies for LLVM's inliner, the
    /// bodies of the small functions its own call (`INLINE_COPY_MAX` instructions at
    /// most, and theirs, transitively) that other partitions define.
    pub inline_copies: bool,
    /// On a region target: the module carries the PPAPI host (`translate::host`), to which
    /// the runtime hands the host's settings (`__pnacl_ppapi_host`, 1).
    pub ppapi_host: bool,
    /// On a region target, for a partition: its code depends on nothing of the module
    /// beyond its own functions, the globals before the first not its own and their
    /// signatures (the table's length is read, not known), so that it is the same for
    /// every module that begins with the same functions (the PPAPI host's, cached).
    pub portable: bool,
    /// On a region target: the module's layout (`region_layout`), computed once for all
    /// of its partitions; `None`: the export computes it.
    pub layout: Option<&'a Layout>,
}

/// The largest body (in instructions) `ExportOptions::inline_copies` copies.
pub const INLINE_COPY_MAX: usize = 300;

impl<'a> ExportOptions<'a> {
    /// The whole module, the SSA rule checked.
    pub fn whole(target: Target) -> Self {
        ExportOptions {
            target,
            partition: None,
            ssa_checked: false,
            inline_copies: false,
            ppapi_host: false,
            portable: false,
            layout: None,
        }
    }
}

pub use region::Layout;

/// The region's layout of `m` (addresses of its globals, signature ids of its functions),
/// the same in every partition (`ExportOptions::layout`).
pub fn region_layout(m: &Module, target: Target) -> Result<Layout, ExportError> {
    let crate::target::Memory::Region(check) = target.spec().memory else {
        return err(None, format!("{target} keeps no pexe in a region"));
    };
    region::Layout::of(m, check, |f| {
        m.functions[f]
            .name
            .as_deref()
            .and_then(intrinsics::lookup)
            .is_some()
    })
    .or_else(|e| err(None, e))
}

/// Builds the LLVM module for `m` in `ctx`.
pub fn export<'ctx, 'm>(
    ctx: &'ctx Context,
    m: &'m Module,
    opts: &ExportOptions<'m>,
) -> R<inkwell::module::Module<'ctx>> {
    let module = ctx.create_module("pexe");
    let builder = ctx.create_builder();
    let mut x = Exporter::new(
        ctx.raw(),
        crate::llvm::edit::Module::of(&module),
        builder.as_mut_ptr(),
        m,
        opts.target,
    );
    x.partition = opts.partition.map(|(k, o)| (k, o.to_vec()));
    x.inline_copies = opts.inline_copies;
    x.ssa_checked = opts.ssa_checked;
    x.ppapi_host = opts.ppapi_host;
    x.portable = opts.portable;
    x.given_layout = opts.layout;
    x.run()?;
    drop(builder);
    Ok(module)
}

/// What a target does differently in the conversion: everything else is built the same
/// way for every target.
trait Lowering: Sync {
    /// The LLVM name of function (`kind` 'f') or global ('g') `index`, `name` in the pexe.
    fn symbol_name(&self, name: Option<&[u8]>, kind: char, index: usize) -> String;
    /// Whether the PNaCl intrinsics stay functions the module declares and calls (le32),
    /// or are lowered at each call and have no function (whose address is then undef).
    fn keeps_intrinsics(&self) -> bool;
    /// Whether the module stays in PNaCl normal form, instruction for instruction as in
    /// the pexe (see `Exporter::value`), for pnacl-freeze to write back.
    fn normal_form(&self) -> bool;
    /// Adds the attributes every function of the module has.
    fn function_attributes(&self, _x: &Exporter, _f: LLVMValueRef) {}
    /// Whether functions called only directly get LLVM's fast calling convention (the
    /// code is the target's alone: nothing outside it calls them).
    fn fast_calls(&self) -> bool {
        false
    }
    /// A call of a PNaCl intrinsic that has no LLVM 14 counterpart of its own (those the
    /// conversion makes itself, `Exporter::llvm14_intrinsic_call`): a relaxed fence may
    /// give no value (null).
    fn intrinsic_call(&self, x: &mut Exporter, c: &mut Call) -> R<LLVMValueRef>;
    /// What the module needs beyond the pexe's functions and globals, made last.
    fn finish(&self, x: &mut Exporter);
}

/// The lowering of `target`.
fn lowering(target: Target) -> &'static dyn Lowering {
    match target {
        Target::Le32 => &le32::Le32,
        Target::X86_32 | Target::Arm | Target::X86_64 | Target::Aarch64 => &native::X86_ARM,
        Target::Wasm32 => &wasm32::WASM32,
    }
}

/// A call of a PNaCl intrinsic being converted.
struct Call<'a, 'b> {
    st: &'a mut Fn,
    body: &'a Body<'b>,
    intr: &'static Intrinsic,
    callee: u32,
    args: &'a [ValueId],
    ret: ValueType,
    tail: bool,
    pos: Option<u64>,
}

impl Call<'_, '_> {
    /// Argument `k`, which must be an integer constant.
    fn constant(&self, x: &Exporter, k: usize, what: &str) -> R<u64> {
        self.const_int(x, k).ok_or_else(|| ExportError {
            pos: self.pos,
            msg: format!("{}: the {what} argument must be a constant", self.intr.name),
        })
    }

    /// Argument `k`'s value, if it is an integer constant.
    fn const_int(&self, x: &Exporter, k: usize) -> Option<u64> {
        x.const_int_arg(self.st, self.body, self.args[k])
    }
}

/// Function-level state.
struct Fn {
    func: u32,
    llfn: LLVMValueRef,
    /// LLVM values of the locals (parameters, constants, instruction results).
    vals: Vec<LLVMValueRef>,
    /// The pointer a local is known to be (allocas).
    ptrs: Vec<LLVMValueRef>,
    /// The instruction that defines each local (`Unreachable` for parameters and
    /// constants), out of normal form.
    defs: Vec<InstKind>,
    blocks: Vec<LLVMBasicBlockRef>,
    /// Block holding placeholders for forward references, and the placeholders.
    holder: LLVMBasicBlockRef,
    placeholders: Vec<(usize, LLVMValueRef)>,
    /// Pointer casts made in a block, reused there: (block, value id, pointee) → pointer.
    casts: HashMap<(u32, ValueId, LLVMTypeRef), LLVMValueRef, BuildHasherDefault<IdHasher>>,
    /// Region targets: the base pointers of `region::constant_offset`'s addresses made in
    /// a block, reused there: (block, the base's one or two terms) → pointer.
    region_bases: HashMap<(u32, usize, usize), LLVMValueRef>,
    cur_block: u32,
    /// The local index of the next value an instruction defines.
    next_value: usize,
    /// le32 only (PNaCl normal form, see `Exporter::value`): the non-constant stand-in of
    /// each constant local, replaced by the constant when the function is complete, and
    /// the `ptrtoint` instruction of each global address used in the function.
    const_holders: Vec<(usize, LLVMValueRef)>,
    const_holder_of: Vec<LLVMValueRef>,
    global_addrs: Vec<LLVMValueRef>,
    /// The LLVM block each pexe block ends in (its own, unless a check split it): the
    /// predecessor its successors' phis name.
    exits: Vec<LLVMBasicBlockRef>,
    /// Region targets: the function's trap blocks, by `region::Trap` (an indirect call's
    /// one, `NotAFunction`'s slot, with its phi of the signature id each call read),
    /// the pexe stack pointer at its entry (null if it has no alloca), and whether it
    /// calls setjmp.
    traps: [LLVMBasicBlockRef; 3],
    call_trap_sig: LLVMValueRef,
    sp0: LLVMValueRef,
    setjmp: bool,
    /// Region targets: the entry block's allocas of constant size, one frame (its address,
    /// the i32 and the 64-bit one the check compares), and each one's offset in it, by
    /// instruction; the block that takes it (`region::frame_block`), if not the entry.
    frame: LLVMValueRef,
    frame_low: LLVMValueRef,
    frame_offsets: HashMap<usize, u32>,
    frame_block: Option<u32>,
}

struct Exporter<'m> {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    /// The same module in the typed layer, for what is built there (`one_thread`).
    edit: crate::llvm::edit::Module<'m>,
    b: LLVMBuilderRef,
    m: &'m Module,
    target: Target,
    lower: &'static dyn Lowering,
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
    /// Functions called only directly (no address taken, not the entry), which the
    /// target's lowering may give its fast calling convention (`Lowering::fast_calls`).
    fast: Vec<bool>,
    /// Runtime functions and LLVM intrinsics declared on demand.
    decls: HashMap<String, (LLVMValueRef, LLVMTypeRef)>,
    /// The partition being built and each function's partition.
    partition: Option<(u32, Vec<u32>)>,
    inline_copies: bool,
    /// Room for the SSA check of each body (`ir::dom`), unless `ssa_checked`.
    ssa: crate::ir::dom::Scratch,
    ssa_checked: bool,
    ppapi_host: bool,
    portable: bool,
    /// The region's layout, on a target that isolates the pexe in one
    /// (`target::Memory::Region`).
    region: Option<std::borrow::Cow<'m, region::Layout>>,
    /// The layout the caller computed (`ExportOptions::layout`).
    given_layout: Option<&'m region::Layout>,
}

impl<'m> Exporter<'m> {
    fn new(
        ctx: LLVMContextRef,
        edit: crate::llvm::edit::Module<'m>,
        b: LLVMBuilderRef,
        m: &'m Module,
        target: Target,
    ) -> Self {
        let module = edit.as_raw();
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let i8 = LLVMInt8TypeInContext(ctx);
            Exporter {
                ctx,
                module,
                edit,
                b,
                m,
                target,
                lower: lowering(target),
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
                fast: Vec::new(),
                decls: HashMap::new(),
                partition: None,
                inline_copies: false,
                ppapi_host: false,
                portable: false,
                ssa: Default::default(),
                ssa_checked: false,
                region: None,
                given_layout: None,
            }
        }
    }

    fn ty(&self, t: ValueType) -> LLVMTypeRef {
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
                // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe { LLVMFunctionType(conv(intr.ret), params.as_mut_ptr(), params.len() as u32, 0) }
    }

    fn run(&mut self) -> R<()> {
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            LLVMSetTarget(self.module, cstr(self.target.triple()).as_ptr());
            LLVMSetDataLayout(self.module, cstr(self.target.data_layout()).as_ptr());
        }
        self.declare_functions()?;
        if self.lower.fast_calls() {
            self.fast = called_only_directly(self.m);
        }
        if self.target.spec().memory.is_region() {
            self.region = Some(match self.given_layout {
                Some(l) => std::borrow::Cow::Borrowed(l),
                None => std::borrow::Cow::Owned(region_layout(self.m, self.target)?),
            });
        }
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
        if self.owns_globals() && self.region.is_none() {
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
        if self.inline_copies && self.partition.is_some() {
            for f in self.copies_to_inline() {
                let body = self.m.body(f).unwrap();
                self.function(f, &body)?;
                let llfn = self.fns[f as usize];
                // SAFETY: handles of the exporter's live context and module (see the module's note).
                unsafe { LLVMSetLinkage(llfn, LLVMLinkage::LLVMAvailableExternallyLinkage) };
            }
        }
        self.lower.finish(self);
        Ok(())
    }

    /// The functions other partitions define whose bodies this one holds as copies to
    /// inline (`ExportOptions::inline_copies`): the small ones its own functions call
    /// directly in loops, and the small ones those call, in function order.
    fn copies_to_inline(&self) -> Vec<u32> {
        let m = self.m;
        let nf = m.functions.len() as u32;
        let small = |f: u32| {
            self.intrinsic[f as usize].is_none()
                && m.body(f)
                    .is_some_and(|b| b.num_blocks > 0 && b.insts.len() <= INLINE_COPY_MAX)
        };
        let mut copy = vec![false; nf as usize];
        let mut work: Vec<u32> = (0..nf).filter(|&f| self.owns(f)).collect();
        while let Some(f) = work.pop() {
            let Some(body) = m.body(f) else { continue };
            // Only calls in loops: the inliner takes no others (`codegen::optimize`); but
            // what a copy calls is in the loop it is inlined into.
            let in_loop = if self.owns(f) {
                blocks_in_loops(&body)
            } else {
                vec![true; body.num_blocks as usize]
            };
            for (b, blk) in in_loop.iter().enumerate() {
                if !blk {
                    continue;
                }
                for inst in &body.insts[body.block_range(b as u32)] {
                    if let InstKind::Call {
                        callee,
                        indirect: false,
                        ..
                    } = inst.kind
                    {
                        if callee < nf
                            && !self.owns(callee)
                            && !copy[callee as usize]
                            && small(callee)
                        {
                            copy[callee as usize] = true;
                            work.push(callee);
                        }
                    }
                }
            }
        }
        (0..nf).filter(|&f| copy[f as usize]).collect()
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
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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

    fn symbol_name(&self, name: Option<&[u8]>, kind: char, index: usize) -> String {
        self.lower.symbol_name(name, kind, index)
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
            // Lowered intrinsics keep a null function: they are lowered at each call, and
            // the address of an intrinsic cannot be taken. A kept intrinsic's LLVM type is
            // its own (set when it is declared).
            self.fns.push(std::ptr::null_mut());
            self.fn_types
                .push(if intr.is_some() && self.lower.keeps_intrinsics() {
                    std::ptr::null_mut()
                } else {
                    self.fn_ty(sig)
                });
        }
        Ok(())
    }

    /// Whether function `f` is an intrinsic lowered at each call, which has no LLVM
    /// function.
    fn lowered(&self, f: usize) -> bool {
        !self.lower.keeps_intrinsics() && self.intrinsic[f].is_some()
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
                // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        let llfn = unsafe { LLVMAddFunction(self.module, cstr(&name).as_ptr(), fty) };
        let defined = func.body.as_ref().is_some_and(|b| b.num_blocks > 0);
        self.lower.function_attributes(self, llfn);
        if self.fast.get(i) == Some(&true) {
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            unsafe {
                LLVMSetFunctionCallConv(llfn, llvm_sys::LLVMCallConv::LLVMFastCallConv as u32)
            };
        }
        let here = defined && self.owns(i as u32);
        if here {
            self.set_linkage(llfn, func.linkage == Linkage::Internal);
        } else {
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            unsafe { LLVMSetLinkage(llfn, LLVMLinkage::LLVMExternalLinkage) };
        }
        self.fns[i] = llfn;
    }

    /// The LLVM type of a simple initializer.
    fn init_ty(&self, init: &Init) -> LLVMTypeRef {
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe { LLVMStructTypeInContext(self.ctx, fields.as_mut_ptr(), fields.len() as u32, 1) }
    }

    /// The LLVM global variable of global `g`, declared on first use.
    fn global_var(&mut self, g: usize) -> LLVMValueRef {
        if self.globals[g].is_null() {
            let glob = &self.m.globals[g];
            let ty = self.global_ty(g);
            let name = self.global_name(g);
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            let v = unsafe { LLVMAddGlobal(self.module, ty, cstr(&name).as_ptr()) };
            if self.owns_globals() {
                self.set_linkage(v, true);
            } else {
                // SAFETY: handles of the exporter's live context and module (see the module's note).
                unsafe { LLVMSetLinkage(v, LLVMLinkage::LLVMExternalLinkage) };
            }
            // SAFETY: handles of the exporter's live context and module (see the module's note).
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
                // SAFETY: handles of the exporter's live context and module (see the module's note).
                unsafe { LLVMGetUndef(self.i32) }
            } else if self.region.is_some() {
                // SAFETY: handles of the exporter's live context and module (see the module's note).
                unsafe { LLVMConstInt(self.i32, self.region_addr(id) as u64, 0) }
            } else {
                let g = self.global_value(id);
                // SAFETY: handles of the exporter's live context and module (see the module's note).
                unsafe { LLVMConstPtrToInt(g, self.i32) }
            };
        }
        self.addrs[id]
    }

    fn init_const(&mut self, init: &Init, pos: u64) -> R<LLVMValueRef> {
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        if self.region.is_some() {
            return self.region_definitions();
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
                // SAFETY: handles of the exporter's live context and module (see the module's note).
                unsafe {
                    LLVMConstStructInContext(self.ctx, fields.as_mut_ptr(), fields.len() as u32, 1)
                }
            };
            // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        if self.region.is_some() {
            self.region_function_attributes(llfn);
        }
        let nlocal = body.local_types.len();
        let mut st = Fn {
            func: f,
            llfn,
            vals: vec![std::ptr::null_mut(); nlocal],
            ptrs: vec![std::ptr::null_mut(); nlocal],
            defs: if self.lower.normal_form() {
                Vec::new()
            } else {
                let first = np + body.consts.len();
                let mut defs = vec![InstKind::Unreachable; first];
                defs.extend(
                    body.insts
                        .iter()
                        .filter(|i| !i.ty.is_void())
                        .map(|i| i.kind),
                );
                defs
            },
            blocks: Vec::with_capacity(body.num_blocks as usize),
            holder: std::ptr::null_mut(),
            placeholders: Vec::new(),
            casts: HashMap::default(),
            region_bases: HashMap::new(),
            cur_block: 0,
            next_value: 0,
            const_holders: Vec::new(),
            const_holder_of: if self.lower.normal_form() {
                vec![std::ptr::null_mut(); nlocal]
            } else {
                Vec::new()
            },
            global_addrs: if self.lower.normal_form() {
                vec![std::ptr::null_mut(); m.num_global_values() as usize]
            } else {
                Vec::new()
            },
            exits: Vec::with_capacity(body.num_blocks as usize),
            traps: [std::ptr::null_mut(); 3],
            call_trap_sig: std::ptr::null_mut(),
            sp0: std::ptr::null_mut(),
            setjmp: false,
            frame: std::ptr::null_mut(),
            frame_low: std::ptr::null_mut(),
            frame_offsets: HashMap::new(),
            frame_block: None,
        };
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            unsafe { LLVMPositionBuilderAtEnd(self.b, st.blocks[b as usize]) };
            if b == 0 && self.region.is_some() {
                self.region_entry(&mut st, body);
            }
            for i in body.block_range(b) {
                let inst = body.insts[i];
                if st.frame_block == Some(b) && !matches!(inst.kind, InstKind::Phi { .. }) {
                    st.frame_block = None;
                    self.region_take_frame(&mut st);
                }
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
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            st.exits.push(unsafe { LLVMGetInsertBlock(self.b) });
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
                let mut v = self.value(&mut st, pair[0]);
                let mut bb = st.exits[b as usize];
                for _ in 0..copies {
                    // SAFETY: handles of the exporter's live context and module (see the module's note).
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
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            unsafe { LLVMReplaceAllUsesWith(ph, real) };
        }
        // Constants take their places in the (unfolded) instructions that use them.
        for (local, ph) in st.const_holders.drain(..) {
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            unsafe { LLVMReplaceAllUsesWith(ph, st.vals[local]) };
        }
        if !st.holder.is_null() {
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            unsafe { LLVMDeleteBasicBlock(st.holder) };
        }
        Ok(())
    }

    fn constant(&self, ty: ValueType, v: ConstValue) -> LLVMValueRef {
        let t = self.ty(ty);
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
        // SAFETY: handles of the exporter's live context and module (see the module's note).
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
    /// In PNaCl normal form (le32) the module is kept, instruction for instruction as in
    /// the pexe (what pnacl-abicheck accepts and pnacl-finalize writes back): constants
    /// reach instructions through stand-ins so that nothing is folded, and a global's
    /// address is a `ptrtoint` instruction at the top of the function, never a constant
    /// expression.
    fn value(&mut self, st: &mut Fn, id: ValueId) -> LLVMValueRef {
        let ng = self.m.num_global_values() as usize;
        let id = id as usize;
        let le32 = self.lower.normal_form();
        if id < ng {
            let a = self.addr(id);
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            if !le32 || unsafe { LLVMIsUndef(a) } != 0 {
                return a;
            }
            if !st.global_addrs[id].is_null() {
                return st.global_addrs[id];
            }
            let g = self.global_value(id);
            // SAFETY: handles of the exporter's live context and module (see the module's note).
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
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            if le32 && unsafe { LLVMIsConstant(v) } != 0 {
                if !st.const_holder_of[local].is_null() {
                    return st.const_holder_of[local];
                }
                // SAFETY: handles of the exporter's live context and module (see the module's note).
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

    /// Pexe value `id` as a pointer to `pointee`.
    fn pointer(&mut self, st: &mut Fn, id: ValueId, pointee: LLVMTypeRef) -> LLVMValueRef {
        let ng = self.m.num_global_values() as usize;
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        let pty = unsafe { LLVMPointerType(pointee, 0) };
        // An intrinsic's address cannot be taken (LLVM's verifier rejects a cast of one):
        // as a pointer, an intrinsic is its undef address turned into one, as it is when
        // lowered on a native target (the ABI check reports such a use).
        let intrinsic =
            (id as usize) < self.m.functions.len() && self.intrinsic[id as usize].is_some();
        if (id as usize) < ng && !intrinsic && self.region.is_none() {
            let g = self.global_value(id as usize);
            if !g.is_null() {
                // SAFETY: handles of the exporter's live context and module (see the module's note).
                if unsafe { LLVMTypeOf(g) } == pty {
                    return g;
                }
                if !self.lower.normal_form() {
                    // SAFETY: handles of the exporter's live context and module (see the module's note).
                    return unsafe { LLVMConstBitCast(g, pty) };
                }
                // Normal form: a bitcast instruction of the (inherent) global, once per block.
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
        // An address the pexe computes as base + offset is, out of normal form, that offset
        // from the base as a pointer (a getelementptr of i8, not inbounds: the same
        // address), which LLVM's analyses follow where an inttoptr hides it.
        let sum = self
            .sum_terms(st, id)
            .filter(|_| !self.lower.normal_form() && self.region.is_none());
        // A region target's address base + constant: the offset added to the zero-extended
        // base, sign-extended, where the region's guard catches what passes its end
        // (`region::constant_offset`).
        if self.region.is_some() {
            if let Some(p) = self.region_constant_offset(st, id, pty) {
                st.casts.insert(key, p);
                return p;
            }
        }
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        let p = unsafe {
            if local < st.ptrs.len() && !st.ptrs[local].is_null() {
                LLVMBuildBitCast(self.b, st.ptrs[local], pty, EMPTY)
            } else if let Some((base, offset)) = sum {
                let base = self.pointer(st, base, self.i8);
                let mut offset = [self.value(st, offset)];
                let p = LLVMBuildGEP2(self.b, self.i8, base, offset.as_mut_ptr(), 1, EMPTY);
                LLVMBuildBitCast(self.b, p, pty, EMPTY)
            } else if self.region.is_some() {
                let v = self.value(st, id);
                self.region_pointer(v, pty)
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

    /// `k` where `lhs / rhs` is a signed division by 2^k of a dividend whose k low bits
    /// are known to be zero: exact, an arithmetic shift right by k, where code generation
    /// makes a division by 2^k three more instructions to round toward zero. The pexe's
    /// code has lost the `nsw` flags from which LLVM would have proved such a dividend
    /// non-negative (spectralnorm's `(i+j)*(i+j+1)/2`). (A shift, not `sdiv exact`, which
    /// LLVM's loop strength reduction drops.) Not in normal form (le32), which keeps the
    /// pexe's instructions.
    fn exact_shift(
        &self,
        st: &Fn,
        body: &Body,
        ty: ValueType,
        op: BinOp,
        lhs: ValueId,
        rhs: ValueId,
    ) -> Option<u32> {
        if op != BinOp::SDiv || self.lower.normal_form() || !ty.is_int() {
            return None;
        }
        let d = self.const_int_arg(st, body, rhs)?;
        let k = d.trailing_zeros();
        (d.is_power_of_two() && k > 0 && k + 1 < ty.bits())
            .then_some(k)
            .filter(|&k| self.low_zero_bits(st, body, lhs, 4) >= k)
    }

    /// The two terms of `id` if the pexe computes it as an `add` (out of normal form).
    fn sum_terms(&self, st: &Fn, id: ValueId) -> Option<(ValueId, ValueId)> {
        match self.def(st, id) {
            Some(&InstKind::Binop {
                op: BinOp::Add,
                lhs,
                rhs,
            }) => Some((lhs, rhs)),
            _ => None,
        }
    }

    /// The instruction that defines local `id` (out of normal form; see `Fn::defs`).
    fn def<'s>(&self, st: &'s Fn, id: ValueId) -> Option<&'s InstKind> {
        st.defs
            .get((id as usize).wrapping_sub(self.m.num_global_values() as usize))
    }

    /// How many low bits of integer `id` are known to be zero, from the instructions
    /// (up to `depth` deep) that compute it: constants, shifts left by a constant,
    /// products (of x and x plus an odd constant, one factor is even), sums and masks.
    fn low_zero_bits(&self, st: &Fn, body: &Body, id: ValueId, depth: u32) -> u32 {
        if let Some(c) = self.const_int_arg(st, body, id) {
            return c.trailing_zeros();
        }
        let (op, lhs, rhs) = match self.def(st, id) {
            Some(&InstKind::Binop { op, lhs, rhs }) if depth > 0 => (op, lhs, rhs),
            _ => return 0,
        };
        let bits = |v| self.low_zero_bits(st, body, v, depth - 1);
        // `a` is `b` plus an odd constant.
        let plus_odd = |a: ValueId, b: ValueId| match self.def(st, a) {
            Some(&InstKind::Binop {
                op: BinOp::Add,
                lhs,
                rhs,
            }) => {
                let odd = |c| self.const_int_arg(st, body, c).is_some_and(|c| c & 1 == 1);
                (lhs == b && odd(rhs)) || (rhs == b && odd(lhs))
            }
            _ => false,
        };
        match op {
            BinOp::Shl => self
                .const_int_arg(st, body, rhs)
                .map_or(0, |k| bits(lhs).saturating_add(k.min(64) as u32)),
            BinOp::Mul => {
                let factors = bits(lhs).saturating_add(bits(rhs));
                if plus_odd(lhs, rhs) || plus_odd(rhs, lhs) {
                    factors.max(1)
                } else {
                    factors
                }
            }
            BinOp::Add | BinOp::Sub | BinOp::Or => bits(lhs).min(bits(rhs)),
            BinOp::And => bits(lhs).max(bits(rhs)),
            _ => 0,
        }
    }

    /// The type an intrinsic's pointer parameter points to (`intrinsic_ptr_ty`).
    fn intrinsic_pointee(&self, intr: &Intrinsic) -> LLVMTypeRef {
        // SAFETY: a pointer type of the exporter's context (see the module's note).
        unsafe { LLVMGetElementType(self.intrinsic_ptr_ty(intr)) }
    }

    /// A call of a PNaCl intrinsic that LLVM 14 has in its own form, the same on every
    /// target (memcpy, memmove and memset with their alignment as attributes, stacksave,
    /// stackrestore, trap), or `None` for the others.
    fn llvm14_intrinsic_call(&mut self, c: &mut Call) -> R<Option<LLVMValueRef>> {
        let b = self.b;
        // SAFETY: handles of the exporter's live context and module; each value has the
        // type its LLVM 14 intrinsic takes.
        unsafe {
            match c.intr.kind {
                Kind::Memcpy | Kind::Memmove | Kind::Memset => {
                    // LLVM 14 form: no alignment argument; alignment as attributes.
                    let (f, fty) = self.llvm_intrinsic(c.intr.kind);
                    let align = c.constant(self, 3, "alignment")?;
                    let vol = c.constant(self, 4, "volatile")?;
                    let dst = self.pointer(c.st, c.args[0], self.i8);
                    let second = if c.intr.kind == Kind::Memset {
                        self.value(c.st, c.args[1])
                    } else {
                        self.pointer(c.st, c.args[1], self.i8)
                    };
                    let len = self.value(c.st, c.args[2]);
                    let mut vs = [dst, second, len, LLVMConstInt(self.i1, vol & 1, 0)];
                    let r = LLVMBuildCall2(b, fty, f, vs.as_mut_ptr(), 4, EMPTY);
                    LLVMSetTailCall(r, c.tail as i32);
                    if align > 1 {
                        let a = self.enum_attr("align", align);
                        LLVMAddCallSiteAttribute(r, 1, a);
                        if c.intr.kind != Kind::Memset {
                            LLVMAddCallSiteAttribute(r, 2, a);
                        }
                    }
                    return Ok(Some(r));
                }
                Kind::StackSave | Kind::StackRestore if self.region.is_some() => {
                    let sp = self.stack_pointer();
                    return Ok(Some(if c.intr.kind == Kind::StackSave {
                        LLVMBuildLoad2(b, self.i32, sp, EMPTY)
                    } else {
                        LLVMBuildStore(b, self.value(c.st, c.args[0]), sp)
                    }));
                }
                Kind::StackSave | Kind::StackRestore | Kind::Trap => {
                    let (f, fty) = self.llvm_intrinsic(c.intr.kind);
                    return Ok(Some(match c.intr.kind {
                        Kind::StackSave => {
                            let r = LLVMBuildCall2(b, fty, f, std::ptr::null_mut(), 0, EMPTY);
                            LLVMSetTailCall(r, c.tail as i32);
                            LLVMBuildPtrToInt(b, r, self.i32, EMPTY)
                        }
                        Kind::StackRestore => {
                            let mut p = [self.pointer(c.st, c.args[0], self.i8)];
                            let r = LLVMBuildCall2(b, fty, f, p.as_mut_ptr(), 1, EMPTY);
                            LLVMSetTailCall(r, c.tail as i32);
                            r
                        }
                        _ => {
                            let r = LLVMBuildCall2(b, fty, f, std::ptr::null_mut(), 0, EMPTY);
                            LLVMSetTailCall(r, c.tail as i32);
                            r
                        }
                    }));
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// A call instruction: an intrinsic's lowering, a direct call (in the callee's calling
    /// convention) or a call through a pointer (C's).
    fn call(&mut self, st: &mut Fn, body: &Body, inst: Inst, pos: Option<u64>) -> R<LLVMValueRef> {
        let InstKind::Call {
            callee,
            args,
            tail,
            indirect,
        } = inst.kind
        else {
            unreachable!("a call instruction")
        };
        let b = self.b;
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let args: Vec<ValueId> = body.span(args).to_vec();
            let nf = self.m.functions.len() as u32;
            Ok(if !indirect && callee < nf {
                if let Some(intr) = self.intrinsic[callee as usize] {
                    let mut c = Call {
                        st,
                        body,
                        intr,
                        callee,
                        args: &args,
                        ret: inst.ty,
                        tail,
                        pos,
                    };
                    return match self.llvm14_intrinsic_call(&mut c)? {
                        Some(v) => Ok(v),
                        None => self.lower.intrinsic_call(self, &mut c),
                    };
                }
                let llfn = self.fn_value(callee as usize);
                let fty = self.fn_types[callee as usize];
                let mut vs: Vec<LLVMValueRef> = args.iter().map(|&a| self.value(st, a)).collect();
                let c = LLVMBuildCall2(b, fty, llfn, vs.as_mut_ptr(), vs.len() as u32, EMPTY);
                LLVMSetTailCall(c, tail as i32);
                LLVMSetInstructionCallConv(c, LLVMGetFunctionCallConv(llfn));
                c
            } else if self.region.is_some()
                && callee < nf
                && self.intrinsic[callee as usize].is_none()
            {
                // Through a function's own address: no pointer to check.
                return Ok(self.region_known_call(st, body, callee, &args, inst.ty, tail));
            } else if self.region.is_some() {
                return self.region_indirect_call(st, body, callee, &args, inst.ty, tail);
            } else {
                let mut vs: Vec<LLVMValueRef> = args.iter().map(|&a| self.value(st, a)).collect();
                let mut ptys: Vec<LLVMTypeRef> = vs.iter().map(|v| LLVMTypeOf(*v)).collect();
                let fty =
                    LLVMFunctionType(self.ty(inst.ty), ptys.as_mut_ptr(), ptys.len() as u32, 0);
                let p = self.pointer(st, callee, fty);
                let c = LLVMBuildCall2(b, fty, p, vs.as_mut_ptr(), vs.len() as u32, EMPTY);
                LLVMSetTailCall(c, tail as i32);
                c
            })
        }
    }

    fn inst(&mut self, st: &mut Fn, body: &Body, i: usize, pos: Option<u64>) -> R<LLVMValueRef> {
        let inst = body.insts[i];
        let b = self.b;
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            Ok(match inst.kind {
                InstKind::Binop { op, lhs, rhs } => {
                    let (l, r) = (self.value(st, lhs), self.value(st, rhs));
                    if let Some(k) = self.exact_shift(st, body, inst.ty, op, lhs, rhs) {
                        LLVMBuildAShr(b, l, LLVMConstInt(LLVMTypeOf(l), k.into(), 0), EMPTY)
                    } else {
                        LLVMBuildBinOp(b, binop(op, inst.ty.elem().is_float()), l, r, EMPTY)
                    }
                }
                InstKind::Cast { op, val } => {
                    let v = self.value(st, val);
                    LLVMBuildCast(b, castop(op), v, self.ty(inst.ty), EMPTY)
                }
                InstKind::Ret { val: None } => {
                    self.region_return(st);
                    LLVMBuildRetVoid(b)
                }
                InstKind::Ret { val: Some(v) } => {
                    let v = self.value(st, v);
                    self.region_return(st);
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
                InstKind::Unreachable if self.region.is_some() => {
                    // Reached, it traps: nothing falls through into the code that follows.
                    let (f, fty) = self.llvm_intrinsic(Kind::Trap);
                    LLVMBuildCall2(b, fty, f, std::ptr::null_mut(), 0, EMPTY);
                    LLVMBuildUnreachable(b)
                }
                InstKind::Unreachable => LLVMBuildUnreachable(b),
                InstKind::Phi { .. } => LLVMBuildPhi(b, self.ty(inst.ty), EMPTY),
                InstKind::Alloca { size, align } if self.region.is_some() => {
                    self.region_alloca(st, i, size, align.bytes() as u32)
                }
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
                InstKind::Call { .. } => return self.call(st, body, inst, pos),
            })
        }
    }
}

/// For each function of `m`, whether it is only ever called directly: its address is no
/// operand of an instruction or a global's initializer, it is not the entry point, and
/// its type takes no variable arguments. (Calls through a pointer, and the runtime's calls, use the C calling convention.)
fn called_only_directly(m: &Module) -> Vec<bool> {
    let nf = m.functions.len() as u32;
    let mut only = vec![true; nf as usize];
    for f in 0..nf {
        let Some(body) = m.body(f) else { continue };
        for inst in body.insts {
            body.any_operand(inst, |id| {
                if id < nf {
                    only[id as usize] = false;
                }
                false
            });
        }
    }
    for g in &m.globals {
        for init in &g.inits {
            if let Init::Reloc { target, .. } = init {
                if *target < nf {
                    only[*target as usize] = false;
                }
            }
        }
    }
    for (i, f) in m.functions.iter().enumerate() {
        // LLVM's fast calling convention takes no variable arguments (a vararg type is
        // an ABI breach Google's reader took: pnacl-abicheck reports it).
        if f.linkage != Linkage::Internal || m.fn_type(i as u32).vararg {
            only[i] = false;
        }
    }
    only
}

/// For each block of `body`, whether it may be in a loop: between (in the pexe's order)
/// the target and the source of a branch back (cheap, and enough where blocks keep
/// their source order, as compilers lay them out).
fn blocks_in_loops(body: &Body) -> Vec<bool> {
    let n = body.num_blocks as usize;
    let mut start = vec![usize::MAX; n];
    for (b, first) in start.iter_mut().enumerate() {
        body.each_successor(b as u32, |t| {
            let t = t as usize;
            if t <= b {
                *first = (*first).min(t);
            }
        });
    }
    let mut in_loop = vec![false; n];
    for (b, &s) in start.iter().enumerate() {
        if s != usize::MAX {
            in_loop[s..=b].iter_mut().for_each(|x| *x = true);
        }
    }
    in_loop
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
        body.each_successor(b, |to| add(b, to));
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
