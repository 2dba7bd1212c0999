//! The pexe in a region of a 64-bit process (`target::Memory::Region`: x86-64, AArch64):
//! isolated by construction, as a WebAssembly engine isolates a module.
//!
//! - **Memory**: the pexe's 4 GiB are the process's lowest 4 GiB. A pexe address is an
//!   i32 and every access is to it zero-extended (`inttoptr` of an i32 on a 64-bit
//!   target: LLVM zero-extends), or to a zero-extended base plus a constant offset,
//!   sign-extended (`base + C` in the pexe: what an x86 or AArch64 address takes in one
//!   instruction), which lies within 2 GiB of the region: the runtime reserves a guard of
//!   2 GiB and more above it, and the kernel's half lies below address 0, so such an
//!   access that passes the region's end faults where 32-bit arithmetic would have
//!   wrapped around (an access only a wrapping, undefined, address makes). The
//!   runtime's code, data and stacks lie far above.
//! - **Globals**: one image, laid out here from `IMAGE_BASE` with every relocation
//!   resolved (an address is a number known now), which the runtime copies into the
//!   region (`__pnacl_image_segments` of `__pnacl_image`'s bytes; the globals span
//!   `__pnacl_image_base` to `__pnacl_image_end`, zeroed but for those). A global's
//!   address is a constant.
//! - **Functions**: a function's address is its index in `__pnacl_functions`, a table of
//!   (function, signature id) in the runtime's memory: 0 is no function, then come the
//!   runtime's IRT functions (`runtime/irt.def`, the same in every module), then the
//!   pexe's, function `f` at `irt + 1 + f`. Signature ids start with irt.def's, so that
//!   the runtime knows the ids of the calls it makes and takes. The runtime copies the
//!   table to `FUNCTION_TABLE_AT`, with nothing mapped after it as far as a 32-bit index
//!   reaches: an indirect call reads the entry at its index there, unchecked (past the
//!   table it reads an entry of no function's or faults, and the runtime traps), checks
//!   the signature as `target::CallCheck` says (a branch to `__pnacl_trap`, or, the
//!   runtime's copy packed, its signature xor'ed out of the entry's top bits, where any
//!   difference makes an address the processor refuses), and traps otherwise; functions
//!   only ever called directly (LLVM's fast calling convention) have no entry.
//! - **Stack**: an alloca takes room below the thread's pexe stack pointer
//!   (`__pnacl_sp`, a thread-local of the runtime), checked against the stack's limit
//!   (`__pnacl_sp_limit`); the function gives it back when it returns. Return addresses
//!   and spills stay on the native stack, outside the region.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMThreadLocalMode, LLVMVisibility};

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{cstr, Exporter, Fn, EMPTY, R};
use crate::ir::intrinsics::Kind;
use crate::ir::{Body, FnType, Init, InstKind, Module, ValueId, ValueType};
use crate::llvm::target::runtime::SETJMP_LEAVE;
use crate::target::CallCheck;

/// The calls between a pexe and the runtime (`runtime/irt.def`, which the runtime reads
/// too): the signatures, in the order of their ids, and the IRT functions (symbol,
/// signature's index), in the order of their table indices.
pub struct RuntimeCalls {
    pub sigs: Vec<FnType>,
    pub irt: Vec<(String, usize)>,
}

/// irt.def, read once.
pub fn runtime_calls() -> &'static RuntimeCalls {
    static CALLS: OnceLock<RuntimeCalls> = OnceLock::new();
    CALLS.get_or_init(|| parse_calls(include_str!("../../../runtime/irt.def")))
}

/// irt.def's `SIG(name, result, (params))` and `IRT(function, sig)` lines (a line that is
/// neither is a comment). Its text is the crate's own: a malformed line is a bug here.
fn parse_calls(text: &str) -> RuntimeCalls {
    let ty = |t: &str| match t.trim() {
        "u32" => ValueType::I32,
        "u64" => ValueType::I64,
        "void" => ValueType::Void,
        other => panic!("irt.def: unknown type {other}"),
    };
    let mut names = Vec::new();
    let mut calls = RuntimeCalls {
        sigs: Vec::new(),
        irt: Vec::new(),
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("SIG(") {
            let (name, rest) = rest.split_once(',').expect("irt.def: SIG(name, ...");
            let (ret, rest) = rest
                .split_once(',')
                .expect("irt.def: SIG(name, result, ...");
            let params = rest.trim().trim_end_matches(')').trim_start_matches('(');
            let params = match params.trim() {
                "void" => Vec::new(),
                p => p.split(',').map(ty).collect(),
            };
            names.push(name.trim().to_string());
            calls.sigs.push(FnType {
                ret: ty(ret),
                params,
                vararg: false,
            });
        } else if let Some(rest) = line.strip_prefix("IRT(") {
            let (f, sig) = rest
                .trim_end()
                .trim_end_matches(')')
                .split_once(',')
                .expect("irt.def: IRT(function, signature)");
            let k = names
                .iter()
                .position(|n| n == sig.trim())
                .unwrap_or_else(|| panic!("irt.def: {f}'s signature {sig} is not declared"));
            calls.irt.push((format!("__pnacl_{}", f.trim()), k));
        }
    }
    calls
}

/// Where the image of the pexe's globals starts: above the 64 KiB no pexe may use (a
/// null pointer's neighbourhood, as in NaCl).
pub const IMAGE_BASE: u32 = 0x1_0000;

/// Where the runtime puts its copy of the function table that indirect calls read
/// (`__pnacl_functions`, copied at start-up, read-only): 64 GiB above the region's guard,
/// followed by what nothing maps up to `FUNCTION_TABLE_SPAN` on. An indirect call reads
/// the entry at its index with no bounds check: an index past the table reads an entry of
/// no function's in the table's last page, or faults, which the runtime reports as a
/// call of a number that is no function's address. The module tells the runtime where
/// (`__pnacl_function_table_at`).
pub const FUNCTION_TABLE_AT: u64 = 0x10_0000_0000;
/// How far a 32-bit index reaches into the table: 64 GiB of 16-byte entries (packed
/// 8-byte entries reach half as far).
pub const FUNCTION_TABLE_SPAN: u64 = 16 << 32;
/// Where a packed entry (`CallCheck::NonCanonical`) holds its signature id + 1: its top
/// 16 bits, above the function's address. An entry of no function's is 0.
pub const PACKED_SIGNATURE_SHIFT: u32 = 48;
/// The most signatures a module may number for its table to be packed: ids 0 to 0xfffe,
/// stored as 1 to 0xffff.
pub const PACKED_SIGNATURES: usize = (1 << (64 - PACKED_SIGNATURE_SHIFT)) - 1;
/// The signature id of no function's entry (the null address's, and any the table has
/// for a function that is only ever called directly).
const NO_SIGNATURE: u32 = u32::MAX;

/// Why the pexe's code traps (`__pnacl_trap`'s argument).
#[derive(Clone, Copy)]
pub enum Trap {
    /// An indirect call of a number that is no function's address.
    NotAFunction = 0,
    /// An indirect call of a function of another signature.
    WrongSignature = 1,
    /// An alloca past the end of the thread's stack.
    StackOverflow = 2,
}

/// Where a function takes the frame of its entry's allocas (`Exporter::frame_block`).
#[derive(Clone, Copy, PartialEq)]
enum FrameAt {
    Entry,
    /// At the start of this block (after its phis).
    Block(u32),
    /// Nowhere: no memory is reached through it.
    Nowhere,
}

/// The region's layout of a module, the same in every partition.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Each global's address.
    pub global_addr: Vec<u32>,
    /// One past the image's last byte.
    pub image_end: u32,
    /// Each function's signature id (`None` for an intrinsic, which has no address).
    pub sig_id: Vec<Option<u32>>,
    /// The id of each signature a function has or an indirect call asks for.
    pub sig_ids: HashMap<FnType, u32>,
    /// Whether some function has signature id k (the runtime's all have theirs).
    pub held: Vec<bool>,
    /// How the module's indirect calls are checked: the target's way, or `Branch` where
    /// its signatures are too many to pack (`PACKED_SIGNATURES`).
    pub check: CallCheck,
}

impl Layout {
    /// The number of the runtime's functions in the table, before the pexe's.
    pub fn irt_count() -> u32 {
        runtime_calls().irt.len() as u32
    }

    /// The number of entries in the table: the null one, the runtime's, the pexe's.
    pub fn table_len(&self) -> u32 {
        1 + Self::irt_count() + self.sig_id.len() as u32
    }

    pub fn of(
        m: &Module,
        check: CallCheck,
        is_intrinsic: impl std::ops::Fn(usize) -> bool,
    ) -> Result<Layout, String> {
        let mut at = IMAGE_BASE as u64;
        let mut global_addr = Vec::with_capacity(m.globals.len());
        for g in &m.globals {
            let a = g.align.bytes().max(1);
            at = at.div_ceil(a) * a;
            global_addr.push(at as u32);
            at += g.size();
            if at > u32::MAX as u64 {
                return Err("the pexe's globals do not fit in its 4 GiB".into());
            }
        }
        let mut sig_ids: HashMap<FnType, u32> = HashMap::new();
        for (k, s) in runtime_calls().sigs.iter().enumerate() {
            sig_ids.insert(s.clone(), k as u32);
        }
        // Numbered in the module's order, each function's own and then those its indirect
        // calls ask for: a module's first functions (the PPAPI host, joined first) number
        // theirs alike whatever follows them, so that their code is the same.
        let mut sig_id = Vec::with_capacity(m.functions.len());
        for f in 0..m.functions.len() {
            let own = (!is_intrinsic(f)).then(|| {
                let next = sig_ids.len() as u32;
                *sig_ids.entry(m.fn_type(f as u32).clone()).or_insert(next)
            });
            sig_id.push(own);
            let Some(body) = m.body(f as u32) else {
                continue;
            };
            for inst in body.insts {
                if let InstKind::Call {
                    callee,
                    args,
                    indirect: true,
                    ..
                } = inst.kind
                {
                    if (callee as usize) < m.functions.len() {
                        continue;
                    }
                    let params: Option<Vec<ValueType>> = body
                        .span(args)
                        .iter()
                        .map(|&a| m.value_type_in(&body, a))
                        .collect();
                    if let Some(params) = params {
                        let next = sig_ids.len() as u32;
                        let sig = FnType {
                            ret: inst.ty,
                            params,
                            vararg: false,
                        };
                        sig_ids.entry(sig).or_insert(next);
                    }
                }
            }
        }
        let mut held = vec![false; sig_ids.len()];
        held[..runtime_calls().sigs.len()].fill(true);
        for &id in sig_id.iter().flatten() {
            held[id as usize] = true;
        }
        let check = match check {
            CallCheck::NonCanonical if sig_ids.len() > PACKED_SIGNATURES => CallCheck::Branch,
            c => c,
        };
        Ok(Layout {
            global_addr,
            image_end: at as u32,
            sig_id,
            sig_ids,
            held,
            check,
        })
    }

    /// The address of function or global `id`: a function's is its index in the table.
    pub fn addr(&self, id: usize) -> u32 {
        let nf = self.sig_id.len();
        if id < nf {
            1 + Self::irt_count() + id as u32
        } else {
            self.global_addr[id - nf]
        }
    }

    /// The image: every global's initializer at its address, as segments of bytes
    /// (zeros left out: the region starts zeroed), so that what it takes is what the pexe
    /// holds, however large its zero-filled globals.
    pub fn image(&self, m: &Module) -> Result<Image, String> {
        let nf = m.functions.len();
        let mut img = Image::default();
        for (g, glob) in m.globals.iter().enumerate() {
            let mut at = self.global_addr[g];
            for init in &glob.inits {
                match init {
                    Init::Zero(n) => at += *n as u32,
                    Init::Data(d) => {
                        img.put(at, d);
                        at += d.len() as u32;
                    }
                    Init::Reloc { target, addend } => {
                        let t = *target as usize;
                        if t < nf && self.sig_id[t].is_none() {
                            return Err(format!(
                                "a global initializer takes the address of intrinsic @f{t}"
                            ));
                        }
                        let v = self.addr(t).wrapping_add(*addend as u32);
                        img.put(at, &v.to_le_bytes());
                        at += 4;
                    }
                }
            }
        }
        Ok(img)
    }
}

/// The bytes of the globals' image that are not zero, in segments.
#[derive(Default)]
pub struct Image {
    /// The segments' bytes, one after the other.
    pub bytes: Vec<u8>,
    /// Each segment's address and length.
    pub segments: Vec<(u32, u32)>,
}

impl Image {
    /// `data` at address `at` (above every byte put before it); runs of 16 or more zeros
    /// are left out.
    fn put(&mut self, at: u32, data: &[u8]) {
        let mut k = 0;
        while k < data.len() {
            let zeros = data[k..].iter().take_while(|&&b| b == 0).count();
            if zeros >= 16 || k + zeros == data.len() {
                k += zeros;
                continue;
            }
            let end = data[k..]
                .windows(16)
                .position(|w| w.iter().all(|&b| b == 0))
                .map_or(data.len(), |p| k + p);
            let addr = at + k as u32;
            match self.segments.last_mut() {
                // Close enough to the last segment: joined, with the zeros between.
                Some((a, len)) if addr >= *a + *len && addr - (*a + *len) < 16 => {
                    let gap = addr - (*a + *len);
                    self.bytes.extend(std::iter::repeat_n(0, gap as usize));
                    self.bytes.extend_from_slice(&data[k..end]);
                    *len += gap + (end - k) as u32;
                }
                _ => {
                    self.bytes.extend_from_slice(&data[k..end]);
                    self.segments.push((addr, (end - k) as u32));
                }
            }
            k = end;
        }
    }
}

impl Exporter<'_> {
    fn layout(&self) -> &Layout {
        self.region.as_deref().expect("a region target")
    }

    /// The i32 address of function or global `id` in the region.
    pub(super) fn region_addr(&self, id: usize) -> u32 {
        self.layout().addr(id)
    }

    /// A global the runtime or partition 0 defines, declared (hidden) on first use.
    fn region_global(&mut self, name: &str, ty: LLVMTypeRef, tls: bool) -> LLVMValueRef {
        let key = format!("global {name}");
        if let Some(d) = self.decls.get(&key) {
            return d.0;
        }
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        let g = unsafe {
            let g = LLVMAddGlobal(self.module, ty, cstr(name).as_ptr());
            LLVMSetLinkage(g, LLVMLinkage::LLVMExternalLinkage);
            LLVMSetVisibility(g, LLVMVisibility::LLVMHiddenVisibility);
            if tls {
                LLVMSetThreadLocal(g, 1);
                // The program is static: the runtime's TLS is at a fixed offset from
                // the thread pointer.
                LLVMSetThreadLocalMode(g, LLVMThreadLocalMode::LLVMLocalExecTLSModel);
            }
            g
        };
        self.decls.insert(key, (g, ty));
        g
    }

    /// Partition 0's part: the image, its place and size, and the function table.
    pub(super) fn region_definitions(&mut self) -> R<()> {
        let m = self.m;
        let image = self
            .layout()
            .image(m)
            .map_err(|e| super::ExportError { pos: None, msg: e })?;
        let nf = m.functions.len();
        let mut entries = Vec::with_capacity(nf + 1);
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let bytes = LLVMConstStringInContext(
                self.ctx,
                image.bytes.as_ptr() as *const _,
                image.bytes.len() as u32,
                1,
            );
            let define = |x: &mut Self, name: &str, v: LLVMValueRef| {
                let g = x.region_global(name, LLVMTypeOf(v), false);
                LLVMSetInitializer(g, v);
                LLVMSetGlobalConstant(g, 1);
            };
            let int = |x: &Self, v: u32| LLVMConstInt(x.i32, v as u64, 0);
            define(self, "__pnacl_image", bytes);
            let mut segs: Vec<LLVMValueRef> = image
                .segments
                .iter()
                .map(|&(a, n)| {
                    let mut f = [int(self, a), int(self, n)];
                    LLVMConstStructInContext(self.ctx, f.as_mut_ptr(), 2, 0)
                })
                .collect();
            let mut f = [self.i32, self.i32];
            let seg_ty = LLVMStructTypeInContext(self.ctx, f.as_mut_ptr(), 2, 0);
            let segs = LLVMConstArray(seg_ty, segs.as_mut_ptr(), segs.len() as u32);
            define(self, "__pnacl_image_segments", segs);
            let count = int(self, image.segments.len() as u32);
            define(self, "__pnacl_image_segment_count", count);
            define(self, "__pnacl_image_base", int(self, IMAGE_BASE));
            let end = int(self, self.layout().image_end);
            define(self, "__pnacl_image_end", end);
            let none = |x: &Self| {
                let mut f = [
                    LLVMConstNull(x.i8p),
                    LLVMConstInt(x.i32, NO_SIGNATURE as u64, 0),
                ];
                LLVMConstStructInContext(x.ctx, f.as_mut_ptr(), 2, 0)
            };
            entries.push(none(self));
            let calls = runtime_calls();
            for (name, k) in &calls.irt {
                let sig = &calls.sigs[*k];
                let fty = self.fn_ty(sig);
                let params: Vec<LLVMTypeRef> = sig.params.iter().map(|p| self.ty(*p)).collect();
                let (f, _) = self.runtime_fn(name, self.ty(sig.ret), &params);
                debug_assert_eq!(LLVMGlobalGetValueType(f), fty);
                let mut v = [
                    LLVMConstBitCast(f, self.i8p),
                    LLVMConstInt(self.i32, *k as u64, 0),
                ];
                entries.push(LLVMConstStructInContext(self.ctx, v.as_mut_ptr(), 2, 0));
            }
            for f in 0..nf {
                let sig = self.layout().sig_id[f];
                let fast = self.fast.get(f) == Some(&true);
                let e = match sig {
                    Some(id) if !fast => {
                        let llfn = self.fn_value(f);
                        let mut v = [
                            LLVMConstBitCast(llfn, self.i8p),
                            LLVMConstInt(self.i32, id as u64, 0),
                        ];
                        LLVMConstStructInContext(self.ctx, v.as_mut_ptr(), 2, 0)
                    }
                    _ => none(self),
                };
                entries.push(e);
            }
            let entry_ty = LLVMTypeOf(entries[0]);
            let table = LLVMConstArray(entry_ty, entries.as_mut_ptr(), entries.len() as u32);
            define(self, "__pnacl_functions", table);
            let len = self.layout().table_len();
            define(self, "__pnacl_function_count", int(self, len));
            let i64t = LLVMInt64TypeInContext(self.ctx);
            let at = LLVMConstInt(i64t, FUNCTION_TABLE_AT, 0);
            define(self, "__pnacl_function_table_at", at);
            let span = LLVMConstInt(i64t, FUNCTION_TABLE_SPAN, 0);
            define(self, "__pnacl_function_table_span", span);
            // Where the runtime's copy of the table holds a packed entry's signature, or 0:
            // entries of (function, signature), as here.
            let shift = match self.layout().check {
                CallCheck::NonCanonical => PACKED_SIGNATURE_SHIFT,
                CallCheck::Branch => 0,
            };
            define(self, "__pnacl_packed_signature_shift", int(self, shift));
            let host = int(self, self.ppapi_host as u32);
            define(self, "__pnacl_ppapi_host", host);
        }
        Ok(())
    }

    /// What every function in the region has: an access at address 0 is the pexe's
    /// (a fault there traps), not undefined behaviour LLVM may turn into code that falls
    /// through into whatever follows. (LLVM 14's attribute is the enum
    /// `null_pointer_is_valid`; the string "null-pointer-is-valid" of LLVM 10 is upgraded
    /// only when bitcode is read, and in a module built in memory it is ignored.)
    pub(super) fn region_function_attributes(&self, llfn: LLVMValueRef) {
        let name = "null_pointer_is_valid";
        // SAFETY: handles of the exporter's live context and module (see the module's note);
        // the name outlives the call, which only reads it.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            assert!(kind != 0, "LLVM 14 names the attribute {name}");
            let a = LLVMCreateEnumAttribute(self.ctx, kind, 0);
            LLVMAddAttributeAtIndex(llfn, u32::MAX, a);
        }
    }

    /// The pexe's address `v` (an i32) as a pointer of type `pty`: the region's address 0
    /// (null) plus `v` zero-extended, a getelementptr of i8, not inbounds. It is the
    /// address `inttoptr` would make, written so that LLVM's analyses (scalar evolution,
    /// and with it the loop vectorizer and strength reduction) follow an address that
    /// steps through memory, where an `inttoptr` hides it.
    pub(super) fn region_pointer(&mut self, v: LLVMValueRef, pty: LLVMTypeRef) -> LLVMValueRef {
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            // A constant address (a global's) is a constant: nothing steps through it.
            if !LLVMIsAConstantInt(v).is_null() {
                return LLVMConstIntToPtr(v, pty);
            }
            let i64t = LLVMInt64TypeInContext(self.ctx);
            let mut off = [LLVMBuildZExt(self.b, v, i64t, EMPTY)];
            let null = LLVMConstNull(self.i8p);
            let at = LLVMBuildGEP2(self.b, self.i8, null, off.as_mut_ptr(), 1, EMPTY);
            if pty == self.i8p {
                at
            } else {
                LLVMBuildBitCast(self.b, at, pty, EMPTY)
            }
        }
    }

    /// A block of the current function that traps for `why`, made once per function.
    fn trap_block(&mut self, st: &mut Fn, why: Trap) -> LLVMBasicBlockRef {
        if !st.traps[why as usize].is_null() {
            return st.traps[why as usize];
        }
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let bb = LLVMAppendBasicBlockInContext(self.ctx, st.llfn, EMPTY);
            let here = LLVMGetInsertBlock(self.b);
            LLVMPositionBuilderAtEnd(self.b, bb);
            self.trap_here(why);
            LLVMBuildUnreachable(self.b);
            LLVMPositionBuilderAtEnd(self.b, here);
            st.traps[why as usize] = bb;
            bb
        }
    }

    /// A call of `__pnacl_trap` for `why` where the builder is.
    fn trap_here(&mut self, why: Trap) {
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        let why = unsafe { LLVMConstInt(self.i32, why as u64, 0) };
        self.trap_call(why);
    }

    /// A call of `__pnacl_trap` for the i32 reason `why` where the builder is.
    fn trap_call(&mut self, why: LLVMValueRef) {
        let (f, fty) = self.trap_fn();
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let mut a = [why];
            let c = LLVMBuildCall2(self.b, fty, f, a.as_mut_ptr(), 1, EMPTY);
            LLVMAddCallSiteAttribute(c, u32::MAX, self.enum_attr("noreturn", 0));
        }
    }

    /// `void __pnacl_trap(i32 why)`, which does not return.
    fn trap_fn(&mut self) -> (LLVMValueRef, LLVMTypeRef) {
        let (f, fty) = self.runtime_fn("__pnacl_trap", self.void, &[self.i32]);
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            LLVMAddAttributeAtIndex(f, u32::MAX, self.enum_attr("noreturn", 0));
            LLVMAddAttributeAtIndex(f, u32::MAX, self.enum_attr("nounwind", 0));
        }
        (f, fty)
    }

    /// Continues in a new block if `ok`, else traps for `why`.
    fn check(&mut self, st: &mut Fn, ok: LLVMValueRef, why: Trap) {
        let trap = self.trap_block(st, why);
        self.continue_if(st, ok, trap);
    }

    /// Continues in a new block if `ok`, else branches to `trap`.
    fn continue_if(&mut self, st: &Fn, ok: LLVMValueRef, trap: LLVMBasicBlockRef) {
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let next = LLVMAppendBasicBlockInContext(self.ctx, st.llfn, EMPTY);
            LLVMBuildCondBr(self.b, ok, next, trap);
            LLVMPositionBuilderAtEnd(self.b, next);
        }
    }

    /// Continues in a new block if an indirect call's signature check `ok` holds, else
    /// traps: for `NotAFunction` where the signature id `got` is `NO_SIGNATURE`, else for
    /// `WrongSignature`. All of a function's indirect calls share the trap block, whose
    /// phi takes each one's `got`.
    fn check_call(&mut self, st: &mut Fn, ok: LLVMValueRef, got: LLVMValueRef) {
        let slot = Trap::NotAFunction as usize;
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            if st.traps[slot].is_null() {
                let bb = LLVMAppendBasicBlockInContext(self.ctx, st.llfn, EMPTY);
                let here = LLVMGetInsertBlock(self.b);
                LLVMPositionBuilderAtEnd(self.b, bb);
                let phi = LLVMBuildPhi(self.b, self.i32, EMPTY);
                let none = LLVMConstInt(self.i32, NO_SIGNATURE as u64, 0);
                let no_function =
                    LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntEQ, phi, none, EMPTY);
                let why = LLVMBuildSelect(
                    self.b,
                    no_function,
                    LLVMConstInt(self.i32, Trap::NotAFunction as u64, 0),
                    LLVMConstInt(self.i32, Trap::WrongSignature as u64, 0),
                    EMPTY,
                );
                self.trap_call(why);
                LLVMBuildUnreachable(self.b);
                LLVMPositionBuilderAtEnd(self.b, here);
                st.traps[slot] = bb;
                st.call_trap_sig = phi;
            }
            let mut v = [got];
            let mut from = [LLVMGetInsertBlock(self.b)];
            LLVMAddIncoming(st.call_trap_sig, v.as_mut_ptr(), from.as_mut_ptr(), 1);
        }
        self.continue_if(st, ok, st.traps[slot]);
    }

    /// A pointer of type `pty` for pexe address `id` if the pexe computes it as a sum with
    /// constant terms (`(x + C1) + C2`, `x + (y + C)`, in any order, a few adds deep): the
    /// zero-extended rest of the sum (at most two terms, added in 32 bits) plus the sum of
    /// the constants sign-extended, if that is within 2 GiB either way, so that no address
    /// formed lies more than 2 GiB beyond the region, inside its guard. Accesses to one
    /// object at several offsets so share one base, as they would on a flat target, and
    /// LLVM sees them side by side (its SLP vectorizer among others).
    pub(super) fn region_constant_offset(
        &mut self,
        st: &mut Fn,
        id: ValueId,
        pty: LLVMTypeRef,
    ) -> Option<LLVMValueRef> {
        self.sum_terms(st, id)?;
        let mut terms = Vec::new();
        let mut constant: i64 = 0;
        self.flatten_sum(st, id, 3, &mut terms, &mut constant)?;
        if constant == 0 || terms.is_empty() || i32::try_from(constant).is_err() {
            return None;
        }
        let key = (
            st.cur_block,
            terms[0] as usize,
            terms.get(1).map_or(0, |&t| t as usize),
        );
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let p = match st.region_bases.get(&key) {
                Some(&p) => p,
                None => {
                    let mut base = terms[0];
                    for &t in &terms[1..] {
                        base = LLVMBuildAdd(self.b, base, t, EMPTY);
                    }
                    // inttoptr zero-extends an integer narrower than a pointer. (Not
                    // `region_pointer`'s getelementptr of null: instcombine would fold
                    // null plus the constant into a constant base, a different one for
                    // each field, and the SLP vectorizer pairs only accesses it sees
                    // share a base.)
                    let p = LLVMBuildIntToPtr(self.b, base, self.i8p, EMPTY);
                    st.region_bases.insert(key, p);
                    p
                }
            };
            let i64t = LLVMInt64TypeInContext(self.ctx);
            let mut off = [LLVMConstInt(i64t, constant as u64, 1)];
            let at = LLVMBuildGEP2(self.b, self.i8, p, off.as_mut_ptr(), 1, EMPTY);
            Some(LLVMBuildBitCast(self.b, at, pty, EMPTY))
        }
    }

    /// The terms of i32 `id` as a sum, `depth` adds deep: at most two that are not
    /// constants (their LLVM values, into `terms`), and the constants' sum (each taken as
    /// signed). None if there would be more terms.
    fn flatten_sum(
        &mut self,
        st: &mut Fn,
        id: ValueId,
        depth: u32,
        terms: &mut Vec<LLVMValueRef>,
        constant: &mut i64,
    ) -> Option<()> {
        let v = self.value(st, id);
        // SAFETY: handles of the exporter's live context and module (see the module's note);
        // a value is tested for a constant integer before it is read as one.
        unsafe {
            if LLVMTypeOf(v) != self.i32 {
                return None;
            }
            if !LLVMIsAConstantInt(v).is_null() {
                *constant += LLVMConstIntGetSExtValue(v);
                return Some(());
            }
        }
        match self.sum_terms(st, id) {
            Some((l, r)) if depth > 0 => {
                self.flatten_sum(st, l, depth - 1, terms, constant)?;
                self.flatten_sum(st, r, depth - 1, terms, constant)
            }
            _ if terms.len() < 2 => {
                terms.push(v);
                Some(())
            }
            _ => None,
        }
    }

    /// The thread's pexe stack pointer (`__pnacl_sp`).
    pub(super) fn stack_pointer(&mut self) -> LLVMValueRef {
        self.region_global("__pnacl_sp", self.i32, true)
    }

    /// An alloca of `size` bytes aligned to `align`: its place in the entry's frame, or
    /// room below the pexe's stack pointer, which must stay at or above the stack's limit.
    pub(super) fn region_alloca(
        &mut self,
        st: &mut Fn,
        inst: usize,
        size: ValueId,
        align: u32,
    ) -> LLVMValueRef {
        if let Some(&off) = st.frame_offsets.get(&inst) {
            if off == 0 {
                return st.frame;
            }
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            return unsafe {
                let off = LLVMConstInt(self.i32, off as u64, 0);
                LLVMBuildAdd(self.b, st.frame, off, EMPTY)
            };
        }
        let sp = self.stack_pointer();
        let n = self.value(st, size);
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        let cur = unsafe { LLVMBuildLoad2(self.b, self.i32, sp, EMPTY) };
        self.take_stack(st, cur, n, Some(align.max(16)))
    }

    /// `n` bytes (an i32) below stack pointer `cur`, rounded down to `align` (None: `n` is
    /// a multiple of 16 and the room needs no more, the stack pointer staying 16-byte
    /// aligned: the runtime starts each thread's so), at or above the stack's limit, else
    /// a trap; the new stack pointer, stored. One signed 64-bit comparison of the result
    /// with the limit: no wrap-around, and a size above the stack pointer gives a negative
    /// address.
    fn take_stack(
        &mut self,
        st: &mut Fn,
        cur: LLVMValueRef,
        n: LLVMValueRef,
        align: Option<u32>,
    ) -> LLVMValueRef {
        let lim = self.stack_limit();
        let at = self.stack_below(cur, n, align);
        self.commit_stack(st, at, lim)
    }

    /// The thread's stack limit (`__pnacl_sp_limit`), loaded and zero-extended to 64 bits.
    fn stack_limit(&mut self) -> LLVMValueRef {
        let limit = self.region_global("__pnacl_sp_limit", self.i32, true);
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let lim = LLVMBuildLoad2(self.b, self.i32, limit, EMPTY);
            LLVMBuildZExt(self.b, lim, LLVMInt64TypeInContext(self.ctx), EMPTY)
        }
    }

    /// `n` bytes below stack pointer `cur`, rounded down to `align`, as a 64-bit number
    /// (negative if `n` is above `cur`): arithmetic alone, nothing taken.
    fn stack_below(
        &mut self,
        cur: LLVMValueRef,
        n: LLVMValueRef,
        align: Option<u32>,
    ) -> LLVMValueRef {
        let b = self.b;
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let i64t = LLVMInt64TypeInContext(self.ctx);
            let wide_cur = LLVMBuildZExt(b, cur, i64t, EMPTY);
            let wide_n = LLVMBuildZExt(b, n, i64t, EMPTY);
            let low = LLVMBuildSub(b, wide_cur, wide_n, EMPTY);
            match align {
                Some(a) => LLVMBuildAnd(b, low, LLVMConstInt(i64t, !(a as u64 - 1), 1), EMPTY),
                None => low,
            }
        }
    }

    /// The stack pointer made `at` (from `stack_below`) if it is at or above the limit
    /// `lim` (zero-extended), else a trap; the new stack pointer (i32).
    fn commit_stack(&mut self, st: &mut Fn, at: LLVMValueRef, lim: LLVMValueRef) -> LLVMValueRef {
        let sp = self.stack_pointer();
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let ok = LLVMBuildICmp(self.b, LLVMIntPredicate::LLVMIntSGE, at, lim, EMPTY);
            self.check(st, ok, Trap::StackOverflow);
            let at = LLVMBuildTrunc(self.b, at, self.i32, EMPTY);
            LLVMBuildStore(self.b, at, sp);
            at
        }
    }

    /// Where a function takes its frame later than its entry (`frame_block`): the frame,
    /// already computed from the entry's stack pointer, checked against the limit and made
    /// the stack pointer, before the block's first instruction but its phis. Taken again
    /// in a loop it is the same frame (no variable-sized alloca moves the stack pointer in
    /// such a function).
    pub(super) fn region_take_frame(&mut self, st: &mut Fn) {
        let lim = self.stack_limit();
        self.commit_stack(st, st.frame_low, lim);
    }

    /// At the function's entry, before its first instruction: the stack pointer its
    /// allocas start from, given back at each return; and for a function that calls
    /// setjmp, never inlined (its returns end its setjmp contexts: `region_return`).
    pub(super) fn region_entry(&mut self, st: &mut Fn, body: &Body) {
        let nf = self.m.functions.len() as u32;
        st.setjmp = body.insts.iter().any(|i| match i.kind {
            InstKind::Call {
                callee,
                indirect: false,
                ..
            } => {
                callee < nf
                    && self.intrinsic[callee as usize].is_some_and(|x| x.kind == Kind::Setjmp)
            }
            _ => false,
        });
        if st.setjmp {
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            unsafe { LLVMAddAttributeAtIndex(st.llfn, u32::MAX, self.enum_attr("noinline", 0)) };
        }
        if body
            .insts
            .iter()
            .any(|i| matches!(i.kind, InstKind::Alloca { .. }))
        {
            let sp = self.stack_pointer();
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            st.sp0 = unsafe { LLVMBuildLoad2(self.b, self.i32, sp, EMPTY) };
            self.entry_frame(st, body);
        }
    }

    /// The entry block's allocas of constant size as one frame below the stack pointer,
    /// taken and checked once at the entry (rather than once each, at every call: most
    /// are a function's locals whose addresses escape, on every path).
    fn entry_frame(&mut self, st: &mut Fn, body: &Body) {
        let mut size: u64 = 0;
        let mut align: u64 = 1;
        for i in body.block_range(0) {
            if let InstKind::Alloca { size: n, align: a } = body.insts[i].kind {
                let Some(n) = self.const_int_arg(st, body, n) else {
                    continue;
                };
                let a = a.bytes().max(1);
                let at = size.div_ceil(a) * a;
                if at + n > u32::MAX as u64 / 2 {
                    break; // a frame this large is left to the allocas' own checks
                }
                st.frame_offsets.insert(i, at as u32);
                size = at + n;
                align = align.max(a);
            }
        }
        if st.frame_offsets.is_empty() {
            return;
        }
        // Sizes a multiple of 16, so that the stack pointer stays 16-byte aligned.
        let size = size.div_ceil(16) * 16;
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        let n = unsafe { LLVMConstInt(self.i32, size, 0) };
        let round = (align > 16).then_some(align as u32);
        match self.frame_block(st, body) {
            FrameAt::Entry => st.frame = self.take_stack(st, st.sp0, n, round),
            at => {
                // The frame's address now, taken where it is first needed (if anywhere).
                st.frame_low = self.stack_below(st.sp0, n, round);
                // SAFETY: handles of the exporter's live context and module (see the module's note).
                st.frame = unsafe { LLVMBuildTrunc(self.b, st.frame_low, self.i32, EMPTY) };
                st.frame_block = match at {
                    FrameAt::Block(b) => Some(b),
                    _ => None,
                };
            }
        }
    }

    /// Where the entry's frame is to be taken: the nearest block that dominates every load,
    /// store and call given a value computed from the frame's allocas (followed through
    /// arithmetic, phis and call results), so that a path that needs no frame (free(NULL),
    /// malloc's fast path, whose locals serve only a rare call) takes none. Where the frame
    /// is taken, its memory is the function's from then on; before, nothing has reached
    /// it. Only where nothing else moves the stack pointer (no other alloca) and no setjmp
    /// context is made; elsewhere the entry.
    fn frame_block(&self, st: &Fn, body: &Body) -> FrameAt {
        if st.setjmp {
            return FrameAt::Entry;
        }
        let allocas: Vec<usize> = (0..body.insts.len())
            .filter(|&i| matches!(body.insts[i].kind, InstKind::Alloca { .. }))
            .collect();
        if allocas.iter().any(|i| !st.frame_offsets.contains_key(i)) {
            return FrameAt::Entry;
        }
        let n = body.num_blocks as usize;
        // Each instruction's value id (as the model numbers them), and its block.
        let np = self.m.fn_type(st.func).params.len();
        let first = self.m.num_global_values() as usize + np + body.consts.len();
        let mut id = vec![u32::MAX; body.insts.len()];
        let mut block = vec![0u32; body.insts.len()];
        let mut next = first as u32;
        for b in 0..n as u32 {
            for i in body.block_range(b) {
                block[i] = b;
                if !body.insts[i].ty.is_void() {
                    id[i] = next;
                    next += 1;
                }
            }
        }
        let mut tainted: std::collections::HashSet<u32> = allocas.iter().map(|&i| id[i]).collect();
        let mut used_in: Vec<bool> = vec![false; n];
        loop {
            let before = tainted.len();
            for (i, inst) in body.insts.iter().enumerate() {
                let mut hit = false;
                if let InstKind::Phi { incoming } = inst.kind {
                    // (A phi reaches no memory either: its value is followed.)
                    hit = body
                        .phi_pairs(incoming)
                        .chunks(2)
                        .any(|pair| tainted.contains(&pair[0]));
                } else if body.any_operand(inst, |v| tainted.contains(&v)) {
                    hit = true;
                    // Arithmetic on an address, a choice of one, a comparison, a branch
                    // or a return reaches no memory; a load, a store (of the address, or
                    // at it) and a call (which may keep it) do, and need the frame.
                    let reaches = !matches!(
                        inst.kind,
                        InstKind::Binop { .. }
                            | InstKind::Cast { .. }
                            | InstKind::Cmp { .. }
                            | InstKind::Select { .. }
                            | InstKind::ExtractElement { .. }
                            | InstKind::InsertElement { .. }
                            | InstKind::Ret { .. }
                            | InstKind::Br { .. }
                            | InstKind::CondBr { .. }
                            | InstKind::Switch { .. }
                    );
                    used_in[block[i] as usize] |= reaches;
                }
                if hit && id[i] != u32::MAX {
                    tainted.insert(id[i]);
                }
            }
            if tainted.len() == before {
                break;
            }
        }
        let succs: Vec<Vec<u32>> = (0..n as u32)
            .map(|b| {
                let mut to = Vec::new();
                body.each_successor(b, |s| {
                    if (s as usize) < n {
                        to.push(s)
                    }
                });
                to
            })
            .collect();
        let dom = crate::ir::dom::Dominators::new(&succs);
        let uses: Vec<usize> = (0..n).filter(|&b| used_in[b] && dom.reachable(b)).collect();
        if uses.is_empty() {
            return FrameAt::Nowhere;
        }
        // The deepest block dominating every use: among those that do, the one the others
        // all dominate.
        let over: Vec<usize> = (0..n)
            .filter(|&c| uses.iter().all(|&u| dom.dominates(c, u)))
            .collect();
        match over
            .iter()
            .find(|&&c| over.iter().all(|&o| dom.dominates(o, c)))
        {
            Some(&b) if b != 0 => FrameAt::Block(b as u32),
            _ => FrameAt::Entry,
        }
    }

    /// Before a return: the stack pointer as the function found it, and the end of the
    /// setjmp contexts the function made (`__pnacl_setjmp_leave`: the runtime keeps them,
    /// the pexe's jmp_buf only names one, and a longjmp to one whose frame is gone traps).
    pub(super) fn region_return(&mut self, st: &Fn) {
        if st.setjmp {
            let (f, fty) = self.runtime_fn(SETJMP_LEAVE, self.void, &[]);
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            unsafe {
                LLVMAddAttributeAtIndex(f, u32::MAX, self.enum_attr("nounwind", 0));
                LLVMBuildCall2(self.b, fty, f, std::ptr::null_mut(), 0, EMPTY);
            }
        }
        if !st.sp0.is_null() {
            let sp = self.stack_pointer();
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            unsafe { LLVMBuildStore(self.b, st.sp0, sp) };
        }
    }

    /// A call through the address of function `callee` itself (a pexe may call a function
    /// as another type: newlib's `_start` calls a `main` of no parameters with three): the
    /// function is called directly, as its own type, each argument it takes given as the
    /// caller's (converted where the types differ: an integer's width, the bits of a float
    /// of the same size) or zero, and the result the caller expects made of its result
    /// the same way (zero if it has none). Natively the extra arguments were ignored and
    /// the missing ones whatever the registers held; here nothing is read that the caller
    /// did not pass.
    pub(super) fn region_known_call(
        &mut self,
        st: &mut Fn,
        body: &Body,
        callee: ValueId,
        args: &[ValueId],
        ret: ValueType,
        tail: bool,
    ) -> LLVMValueRef {
        let llfn = self.fn_value(callee as usize);
        let fty = self.fn_types[callee as usize];
        let own = self.m.fn_type(callee).clone();
        let mut vs = Vec::with_capacity(own.params.len());
        for (k, &p) in own.params.iter().enumerate() {
            let v = match args.get(k) {
                Some(&a) => {
                    let from = self.m.value_type_in(body, a).unwrap_or(p);
                    let v = self.value(st, a);
                    self.convert(v, from, p)
                }
                // SAFETY: a type of the exporter's live context.
                None => unsafe { LLVMConstNull(self.ty(p)) },
            };
            vs.push(v);
        }
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let c = LLVMBuildCall2(self.b, fty, llfn, vs.as_mut_ptr(), vs.len() as u32, EMPTY);
            LLVMSetInstructionCallConv(c, LLVMGetFunctionCallConv(llfn));
            let same = own.ret == ret && own.params.len() == args.len();
            LLVMSetTailCall(c, (tail && same) as i32);
            if ret.is_void() {
                c
            } else if own.ret.is_void() {
                LLVMConstNull(self.ty(ret))
            } else {
                self.convert(c, own.ret, ret)
            }
        }
    }

    /// `v` of type `from` as a value of type `to`: itself, its integer widened (zero) or
    /// narrowed, its bits where both are the same size, or else zero.
    fn convert(&mut self, v: LLVMValueRef, from: ValueType, to: ValueType) -> LLVMValueRef {
        if from == to {
            return v;
        }
        let t = self.ty(to);
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            let (fi, ti) = (from.is_int(), to.is_int());
            if fi && ti && from.bits() < to.bits() {
                LLVMBuildZExt(self.b, v, t, EMPTY)
            } else if fi && ti {
                LLVMBuildTrunc(self.b, v, t, EMPTY)
            } else if from.bits() == to.bits() && from.bits() > 0 {
                LLVMBuildBitCast(self.b, v, t, EMPTY)
            } else {
                LLVMConstNull(t)
            }
        }
    }

    /// A call through the pexe address `callee` with `args` (of `body`), returning `ret`:
    /// checked against the function table, trapping on a number that is no function's
    /// address or on a function of another signature.
    pub(super) fn region_indirect_call(
        &mut self,
        st: &mut Fn,
        body: &Body,
        callee: ValueId,
        args: &[ValueId],
        ret: ValueType,
        tail: bool,
    ) -> R<LLVMValueRef> {
        let params: Option<Vec<ValueType>> = args
            .iter()
            .map(|&a| self.m.value_type_in(body, a))
            .collect();
        let sig = params.map(|params| FnType {
            ret,
            params,
            vararg: false,
        });
        let mut vs: Vec<LLVMValueRef> = args.iter().map(|&a| self.value(st, a)).collect();
        let id = sig
            .as_ref()
            .and_then(|s| self.layout().sig_ids.get(s).copied())
            // (A portable partition cannot know that no other function has it.)
            .filter(|&id| self.portable || self.layout().held[id as usize]);
        let (Some(sig), Some(id)) = (sig, id) else {
            // No function has this signature: the call can only trap. (Inline, without a
            // branch: what follows is dead but stays where the block's values are
            // defined and its successors are reached from.)
            self.trap_here(Trap::WrongSignature);
            // SAFETY: handles of the exporter's live context and module (see the module's note).
            return Ok(unsafe {
                if ret.is_void() {
                    std::ptr::null_mut()
                } else {
                    LLVMGetUndef(self.ty(ret))
                }
            });
        };
        let idx = self.value(st, callee);
        let b = self.b;
        // SAFETY: handles of the exporter's live context and module (see the module's note).
        unsafe {
            // The runtime's copy of the table, at its fixed address: the entry at the
            // index, whatever the index (`FUNCTION_TABLE_AT`).
            let i64t = LLVMInt64TypeInContext(self.ctx);
            let wide = LLVMBuildZExt(b, idx, i64t, EMPTY);
            let at = LLVMConstInt(i64t, FUNCTION_TABLE_AT, 0);
            let fp = match self.layout().check {
                CallCheck::Branch => {
                    let mut f = [self.i8p, self.i32];
                    let entry = LLVMStructTypeInContext(self.ctx, f.as_mut_ptr(), 2, 0);
                    let ty = LLVMArrayType(entry, 0);
                    let table = LLVMConstIntToPtr(at, LLVMPointerType(ty, 0));
                    let mut at = [LLVMConstInt(i64t, 0, 0), wide, LLVMConstInt(self.i32, 1, 0)];
                    let sig_at = LLVMBuildGEP2(b, ty, table, at.as_mut_ptr(), 3, EMPTY);
                    let got = LLVMBuildLoad2(b, self.i32, sig_at, EMPTY);
                    let id = LLVMConstInt(self.i32, id as u64, 0);
                    let same = LLVMBuildICmp(b, LLVMIntPredicate::LLVMIntEQ, got, id, EMPTY);
                    self.check_call(st, same, got);
                    at[2] = LLVMConstInt(self.i32, 0, 0);
                    let fn_at = LLVMBuildGEP2(b, ty, table, at.as_mut_ptr(), 3, EMPTY);
                    LLVMBuildLoad2(b, self.i8p, fn_at, EMPTY)
                }
                CallCheck::NonCanonical => {
                    // The packed entry (`PACKED_SIGNATURE_SHIFT`) xor this call's
                    // signature: the entry's function if the signatures are the same,
                    // else an address with its top bits set, which the processor refuses
                    // to call (an entry of no function's is 0: the top bits alone).
                    debug_assert!((id as usize) < PACKED_SIGNATURES);
                    let ty = LLVMArrayType(i64t, 0);
                    let table = LLVMConstIntToPtr(at, LLVMPointerType(ty, 0));
                    let mut at = [LLVMConstInt(i64t, 0, 0), wide];
                    let entry_at = LLVMBuildGEP2(b, ty, table, at.as_mut_ptr(), 2, EMPTY);
                    let entry = LLVMBuildLoad2(b, i64t, entry_at, EMPTY);
                    let own = (id as u64 + 1) << PACKED_SIGNATURE_SHIFT;
                    let addr = LLVMBuildXor(b, entry, LLVMConstInt(i64t, own, 0), EMPTY);
                    LLVMBuildIntToPtr(b, addr, self.i8p, EMPTY)
                }
            };
            let fty = self.fn_ty(&sig);
            let p = LLVMBuildBitCast(self.b, fp, LLVMPointerType(fty, 0), EMPTY);
            let c = LLVMBuildCall2(self.b, fty, p, vs.as_mut_ptr(), vs.len() as u32, EMPTY);
            LLVMSetTailCall(c, tail as i32);
            Ok(c)
        }
    }
}
