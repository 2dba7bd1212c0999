//! The ABI rules of spec/001 on an LLVM module (`.ll`/`.bc` input): the module pass and the
//! function pass of the historical pnacl-abicheck, with its wording and order
//! (abicheck.md §2-§6), plus the data layout and triple spec/001 fixes.
//!
//! LLVM 14's C API has no predicates for `nsw`/`nuw`/`exact` or fast-math flags, nor a
//! reverse map from attribute or metadata kinds to names; those are read from LLVM's own
//! printed form of the value.

use std::collections::HashMap;

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMLinkage, LLVMOpcode, LLVMTypeKind, LLVMUnnamedAddr, LLVMVisibility};

use crate::abi::{Finding, Rule, Scope};
use crate::ir::intrinsics::{self, Kind};

use super::ffi::{attribute_indices, attributes, functions, globals, instructions, int_width};
use super::ffi::{lent, md_operands, md_string, module_string, module_text, name};
use super::ffi::{named_metadata, opcode, type_text, value_text};
use super::legacy::{FileFunction, Legacy};
use super::target::Target;

/// Options of the LLVM-level checker.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Accept debug information (the historical `-pnaclabi-allow-debug-metadata`).
    pub allow_debug_metadata: bool,
    /// Hold to the 2014 checker where it is stricter than spec/001.
    pub historical_strictness: bool,
    /// Skip named metadata: pnacl-finalize drops it (LLVM 14's C API cannot erase it, and
    /// a pexe has no place for it).
    pub ignore_named_metadata: bool,
}

/// Whether the module's data layout describes the PNaCl data model (spec/001 Rule::DataModel):
/// little-endian, 32-bit pointers, and the natural ABI alignment of every scalar (in
/// particular i64 and double at 8, which i386 layouts do not give). Layouts spelt
/// differently (clang's `e-p:32:32-i64:64` for le32) describe the same model.
fn ilp32_le(m: LLVMModuleRef) -> bool {
    use llvm_sys::target::*;
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        let td = LLVMGetModuleDataLayout(m);
        if td.is_null() {
            return false;
        }
        let ctx = LLVMGetModuleContext(m);
        let ok = LLVMByteOrder(td) == LLVMByteOrdering::LLVMLittleEndian
            && LLVMPointerSize(td) == 4
            && LLVMABIAlignmentOfType(td, LLVMPointerType(LLVMInt8TypeInContext(ctx), 0)) == 4;
        let natural = [
            (LLVMInt8TypeInContext(ctx), 1),
            (LLVMInt16TypeInContext(ctx), 2),
            (LLVMInt32TypeInContext(ctx), 4),
            (LLVMInt64TypeInContext(ctx), 8),
            (LLVMFloatTypeInContext(ctx), 4),
            (LLVMDoubleTypeInContext(ctx), 8),
        ];
        ok && natural
            .iter()
            .all(|&(t, a)| LLVMABIAlignmentOfType(td, t) == a)
    }
}

fn is_scalar(t: LLVMTypeRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        match LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMVoidTypeKind
            | LLVMTypeKind::LLVMFloatTypeKind
            | LLVMTypeKind::LLVMDoubleTypeKind => true,
            LLVMTypeKind::LLVMIntegerTypeKind => {
                matches!(LLVMGetIntTypeWidth(t), 1 | 8 | 16 | 32 | 64)
            }
            _ => false,
        }
    }
}

fn is_vector(t: LLVMTypeRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        if LLVMGetTypeKind(t) != LLVMTypeKind::LLVMVectorTypeKind {
            return false;
        }
        let n = LLVMGetVectorSize(t);
        let e = LLVMGetElementType(t);
        match (LLVMGetTypeKind(e), int_width(e)) {
            (LLVMTypeKind::LLVMIntegerTypeKind, Some(1)) => matches!(n, 4 | 8 | 16),
            (LLVMTypeKind::LLVMIntegerTypeKind, Some(8)) => n == 16,
            (LLVMTypeKind::LLVMIntegerTypeKind, Some(16)) => n == 8,
            (LLVMTypeKind::LLVMIntegerTypeKind, Some(32)) => n == 4,
            (LLVMTypeKind::LLVMFloatTypeKind, _) => n == 4,
            _ => false,
        }
    }
}

/// The element type of vector type `t`, or `t` itself.
fn scalar_of(t: LLVMTypeRef) -> LLVMTypeRef {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        match LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMVectorTypeKind => LLVMGetElementType(t),
            _ => t,
        }
    }
}

fn is_i1_vector(t: LLVMTypeRef) -> bool {
    is_vector(t) && int_width(scalar_of(t)) == Some(1)
}

fn is_param_type(t: LLVMTypeRef, ret: bool) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        if LLVMGetTypeKind(t) == LLVMTypeKind::LLVMVoidTypeKind {
            return ret;
        }
    }
    if let Some(w) = int_width(t) {
        return matches!(w, 32 | 64);
    }
    is_scalar(t) || is_vector(t)
}

fn is_fn_type(t: LLVMTypeRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        if LLVMIsFunctionVarArg(t) != 0 {
            return false;
        }
        if !is_param_type(LLVMGetReturnType(t), true) {
            return false;
        }
        let n = LLVMCountParamTypes(t);
        let mut ps = vec![std::ptr::null_mut(); n as usize];
        LLVMGetParamTypes(t, ps.as_mut_ptr());
        ps.iter().all(|p| is_param_type(*p, false))
    }
}

fn is_pointer_type(t: LLVMTypeRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        if LLVMGetTypeKind(t) != LLVMTypeKind::LLVMPointerTypeKind
            || LLVMGetPointerAddressSpace(t) != 0
        {
            return false;
        }
        let e = LLVMGetElementType(t);
        match LLVMGetTypeKind(e) {
            LLVMTypeKind::LLVMFunctionTypeKind => is_fn_type(e),
            LLVMTypeKind::LLVMVoidTypeKind => false,
            _ => (is_scalar(e) && int_width(e) != Some(1)) || (is_vector(e) && !is_i1_vector(e)),
        }
    }
}

/// i8, i16, i32, i64 and the integer vectors but i1's.
fn is_int_arith(t: LLVMTypeRef) -> bool {
    match int_width(t) {
        Some(w) => matches!(w, 8 | 16 | 32 | 64),
        None => is_vector(t) && matches!(int_width(scalar_of(t)), Some(w) if w != 1),
    }
}

// ---------------------------------------------------------------------------------------
// Operand classes (abicheck.md §4.2)

fn is_intrinsic_fn(v: LLVMValueRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe { !LLVMIsAFunction(v).is_null() && name(v).starts_with("llvm.") }
}

fn is_inherent_ptr(v: LLVMValueRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        if !LLVMIsAAllocaInst(v).is_null() {
            return true;
        }
        if !LLVMIsAGlobalValue(v).is_null() {
            return !is_intrinsic_fn(v);
        }
        if !LLVMIsACallInst(v).is_null() {
            let callee = LLVMGetCalledValue(v);
            return is_intrinsic_fn(callee);
        }
        false
    }
}

fn is_normalized_ptr(v: LLVMValueRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    if !is_pointer_type(unsafe { LLVMTypeOf(v) }) {
        return false;
    }
    is_inherent_ptr(v)
        || matches!(
            opcode(v),
            Some(LLVMOpcode::LLVMIntToPtr | LLVMOpcode::LLVMBitCast)
        )
}

fn is_valid_scalar_operand(v: LLVMValueRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        if !LLVMIsAInstruction(v).is_null()
            || !LLVMIsAArgument(v).is_null()
            || LLVMValueIsBasicBlock(v) != 0
        {
            return true;
        }
        let t = LLVMTypeOf(v);
        (!LLVMIsAConstantInt(v).is_null()
            || !LLVMIsAConstantFP(v).is_null()
            || !LLVMIsAUndefValue(v).is_null())
            && is_scalar(t)
    }
}

fn is_valid_vector_operand(v: LLVMValueRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        if !LLVMIsAInstruction(v).is_null() || !LLVMIsAArgument(v).is_null() {
            return true;
        }
        !LLVMIsAUndefValue(v).is_null() && is_vector(LLVMTypeOf(v))
    }
}

fn operands(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        (0..LLVMGetNumOperands(v) as u32)
            .map(|i| LLVMGetOperand(v, i))
            .collect()
    }
}

fn const_int(v: LLVMValueRef) -> Option<u64> {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe { (!LLVMIsAConstantInt(v).is_null()).then(|| LLVMConstIntGetZExtValue(v)) }
}

// ---------------------------------------------------------------------------------------
// Attributes

/// The enum attributes of LLVM 14, by name (its C API has no map from kinds to names).
const ATTRIBUTE_NAMES: &str = "\
    align allocsize alwaysinline argmemonly builtin byval cold convergent dereferenceable \
    dereferenceable_or_null disable_sanitizer_instrumentation elementtype hot immarg \
    inaccessiblemem_or_argmemonly inaccessiblememonly inalloca inlinehint inreg jumptable \
    minsize mustprogress naked nest noalias nobuiltin nocallback nocapture nocf_check \
    noduplicate nofree noimplicitfloat noinline nomerge nonlazybind nonnull noprofile \
    norecurse noredzone noreturn nosanitize_coverage nosync noundef nounwind \
    null_pointer_is_valid optforfuzzing optnone optsize preallocated readnone readonly \
    returned returns_twice safestack sanitize_address sanitize_hwaddress sanitize_memory \
    sanitize_memtag sanitize_thread shadowcallstack signext speculatable \
    speculative_load_hardening sret ssp sspreq sspstrong strictfp swiftasync swifterror \
    swiftself uwtable vscale_range willreturn writeonly zeroext alignstack byref";

struct AttrNames(HashMap<u32, &'static str>);

impl AttrNames {
    fn new() -> Self {
        let mut m = HashMap::new();
        for n in ATTRIBUTE_NAMES.split_whitespace() {
            // SAFETY: handles of the module under check, which `check` borrows for the whole check.
            let k = unsafe { LLVMGetEnumAttributeKindForName(n.as_ptr() as *const _, n.len()) };
            if k != 0 {
                m.insert(k, n);
            }
        }
        AttrNames(m)
    }

    fn describe(&self, a: LLVMAttributeRef) -> String {
        // SAFETY: handles of the module under check, which `check` borrows for the whole check.
        unsafe {
            if LLVMIsStringAttribute(a) != 0 {
                let mut kl = 0;
                let mut vl = 0;
                let k = LLVMGetStringAttributeKind(a, &mut kl);
                let v = LLVMGetStringAttributeValue(a, &mut vl);
                let k = String::from_utf8_lossy(&lent(k, kl as usize)).into_owned();
                let v = String::from_utf8_lossy(&lent(v, vl as usize)).into_owned();
                return if v.is_empty() {
                    format!("\"{k}\"")
                } else {
                    format!("\"{k}\"=\"{v}\"")
                };
            }
            let kind = LLVMGetEnumAttributeKind(a);
            let n = self.0.get(&kind).copied().unwrap_or("unknown");
            if LLVMIsEnumAttribute(a) != 0 {
                let v = LLVMGetEnumAttributeValue(a);
                match n {
                    "align" => format!("align {v}"),
                    "alignstack" => format!("alignstack({v})"),
                    "dereferenceable" | "dereferenceable_or_null" => format!("{n}({v})"),
                    _ => n.to_string(),
                }
            } else {
                n.to_string()
            }
        }
    }

    /// The attributes of function `f`: return value, parameters, then the function.
    fn of_function(&self, f: LLVMValueRef) -> Vec<String> {
        // SAFETY: handles of the module under check, which `check` borrows for the whole check.
        let indices = attribute_indices(unsafe { LLVMCountParams(f) });
        let attrs = indices.flat_map(|idx| attributes(f, idx, false));
        attrs.map(|a| self.describe(a)).collect()
    }
}

fn call_site_attribute_count(call: LLVMValueRef) -> usize {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    let indices = attribute_indices(unsafe { LLVMGetNumArgOperands(call) });
    indices.map(|idx| attributes(call, idx, true).len()).sum()
}

/// The call-site attributes of a call other than `align N` on its arguments, and the
/// values of those `align N`.
fn mem_call_attributes(call: LLVMValueRef) -> (usize, Vec<u64>) {
    let (mut others, mut aligns) = (0, Vec::new());
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        let align_kind = LLVMGetEnumAttributeKindForName(c"align".as_ptr(), 5);
        for idx in attribute_indices(LLVMGetNumArgOperands(call)) {
            for a in attributes(call, idx, true) {
                let arg = idx != 0 && idx != u32::MAX;
                if arg && LLVMIsEnumAttribute(a) != 0 && LLVMGetEnumAttributeKind(a) == align_kind {
                    aligns.push(LLVMGetEnumAttributeValue(a));
                } else {
                    others += 1;
                }
            }
        }
    }
    (others, aligns)
}

/// Whether named node `n` holds only the module flags that come with debug information
/// ("Debug Info Version", "Dwarf Version"): LLVM 14 drops debug information from a module
/// without the first, so such flags belong to the debug information.
fn only_debug_flags(m: LLVMModuleRef, n: &str) -> bool {
    let nodes = named_metadata(m, n);
    let debug = |key: Option<Vec<u8>>| {
        matches!(
            key.as_deref(),
            Some(b"Debug Info Version" | b"Dwarf Version")
        )
    };
    !nodes.is_empty()
        && nodes.iter().all(|&node| match md_operands(node)[..] {
            [_, key, _] => !key.is_null() && debug(md_string(key)),
            _ => false,
        })
}

/// The LLVM 14 type of an allowed intrinsic, as LLVM prints it. Pointers point to i8,
/// except the atomics' pointers, which point to the overloaded integer. LLVM 14's mem*
/// intrinsics have no alignment parameter (3.3's fourth, which had to be 1; LLVM 14
/// puts `align N` on the call's pointer arguments instead, checked at the call).
fn llvm14_type(i: &intrinsics::Intrinsic) -> String {
    use intrinsics::PTy;
    let atomic = matches!(
        i.kind,
        Kind::AtomicLoad | Kind::AtomicStore | Kind::AtomicRmw | Kind::AtomicCmpxchg
    );
    let int = match i.kind {
        Kind::AtomicStore => i.params[0].pexe(),
        _ => i.ret.pexe(),
    };
    let name = |t: &PTy| match t {
        PTy::V(v) => v.to_string(),
        PTy::Ptr if atomic => format!("{int}*"),
        PTy::Ptr => "i8*".to_string(),
    };
    let mem = matches!(i.kind, Kind::Memcpy | Kind::Memmove | Kind::Memset);
    let params: Vec<String> = i
        .params
        .iter()
        .enumerate()
        .filter(|&(k, _)| !(mem && k == 3))
        .map(|(_, p)| name(p))
        .collect();
    format!("{} ({})", name(&i.ret), params.join(", "))
}

fn linkage_name(l: LLVMLinkage) -> &'static str {
    use LLVMLinkage::*;
    match l {
        LLVMPrivateLinkage => "private ",
        LLVMLinkerPrivateLinkage => "linker_private ",
        LLVMLinkerPrivateWeakLinkage => "linker_private_weak ",
        LLVMLinkOnceAnyLinkage => "linkonce ",
        LLVMLinkOnceODRLinkage | LLVMLinkOnceODRAutoHideLinkage => "linkonce_odr ",
        LLVMWeakAnyLinkage => "weak ",
        LLVMWeakODRLinkage => "weak_odr ",
        LLVMCommonLinkage => "common ",
        LLVMAppendingLinkage => "appending ",
        LLVMDLLImportLinkage => "dllimport ",
        LLVMDLLExportLinkage => "dllexport ",
        LLVMExternalWeakLinkage => "extern_weak ",
        LLVMAvailableExternallyLinkage => "available_externally ",
        LLVMGhostLinkage => "unknown",
        LLVMExternalLinkage => "",
        LLVMInternalLinkage => "",
    }
}

// ---------------------------------------------------------------------------------------
// Global initializers (abicheck.md §3)

fn is_simple_element(c: LLVMValueRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        let t = LLVMTypeOf(c);
        if LLVMGetTypeKind(t) == LLVMTypeKind::LLVMArrayTypeKind {
            return int_width(LLVMGetElementType(t)) == Some(8)
                && (!LLVMIsAConstantAggregateZero(c).is_null()
                    || !LLVMIsAConstantDataArray(c).is_null());
        }
        if int_width(t) != Some(32) || LLVMIsAConstantExpr(c).is_null() {
            return false;
        }
        let is_ptrtoint_gv = |e: LLVMValueRef| {
            !LLVMIsAConstantExpr(e).is_null()
                && LLVMGetConstOpcode(e) == LLVMOpcode::LLVMPtrToInt
                && !LLVMIsAGlobalValue(LLVMGetOperand(e, 0)).is_null()
        };
        match LLVMGetConstOpcode(c) {
            LLVMOpcode::LLVMPtrToInt => is_ptrtoint_gv(c),
            LLVMOpcode::LLVMAdd => {
                is_ptrtoint_gv(LLVMGetOperand(c, 0))
                    && !LLVMIsAConstantInt(LLVMGetOperand(c, 1)).is_null()
            }
            _ => false,
        }
    }
}

fn is_flattened(c: LLVMValueRef) -> bool {
    // SAFETY: handles of the module under check, which `check` borrows for the whole check.
    unsafe {
        if is_simple_element(c) {
            return true;
        }
        let t = LLVMTypeOf(c);
        if LLVMIsAConstantStruct(c).is_null()
            || LLVMIsPackedStruct(t) == 0
            || LLVMIsLiteralStruct(t) == 0
            || LLVMCountStructElementTypes(t) < 2
        {
            return false;
        }
        (0..LLVMGetNumOperands(c) as u32).all(|i| is_simple_element(LLVMGetOperand(c, i)))
    }
}

// ---------------------------------------------------------------------------------------
// The passes

struct Checker {
    out: Vec<Finding>,
    opts: Options,
    attrs: AttrNames,
    entry_points: usize,
    /// What LLVM 14 changed on reading an LLVM 3.x file, told as the file has it.
    legacy: Option<Legacy>,
}

impl Checker {
    /// The name of global `g`: the file's, where LLVM 14 renamed it.
    fn name_of(&self, g: LLVMValueRef) -> String {
        match self.legacy.as_ref().and_then(|l| l.name(g)) {
            Some(n) => String::from_utf8_lossy(n).into_owned(),
            None => name(g),
        }
    }

    fn module_finding(&mut self, msg: String, rule: Rule) {
        let finding = Finding::error(Scope::Module, String::new(), msg, rule, None);
        self.out.push(finding);
    }

    /// G1-G6, shared by variables and functions.
    fn common_global_checks(&mut self, g: LLVMValueRef, kind: &str) {
        let n = self.name_of(g);
        let legacy_linkage = self.legacy.as_ref().and_then(|l| l.linkage(g));
        // SAFETY: handles of the module under check, which `check` borrows for the whole check.
        unsafe {
            let l = LLVMGetLinkage(g);
            if let Some(old) = legacy_linkage {
                self.module_finding(
                    format!("{kind} {n} has disallowed linkage type: {old}"),
                    Rule::LinkageTypes,
                );
            } else if !matches!(
                l,
                LLVMLinkage::LLVMExternalLinkage | LLVMLinkage::LLVMInternalLinkage
            ) {
                self.module_finding(
                    format!(
                        "{kind} {n} has disallowed linkage type: {}",
                        linkage_name(l)
                    ),
                    Rule::LinkageTypes,
                );
            }
            if l == LLVMLinkage::LLVMExternalLinkage
                && legacy_linkage.is_none()
                && !(kind == "Function" && n.starts_with("llvm."))
            {
                let permitted = (kind == "Function" && n == "_start")
                    || (kind == "Variable" && n == "__pnacl_pso_root");
                if permitted {
                    self.entry_points += 1;
                    if self.entry_points > 1 {
                        self.module_finding(
                            "Module has multiple entry points (disallowed)".into(),
                            Rule::EntryPoints,
                        );
                    }
                } else {
                    self.module_finding(
                        format!("{n} is not a valid external symbol (disallowed)"),
                        Rule::EntryPoints,
                    );
                }
            }
            let visibility = match LLVMGetVisibility(g) {
                LLVMVisibility::LLVMHiddenVisibility => "hidden",
                LLVMVisibility::LLVMProtectedVisibility => "protected",
                LLVMVisibility::LLVMDefaultVisibility => self
                    .legacy
                    .as_ref()
                    .and_then(|l| l.visibility(g))
                    .unwrap_or(""),
            };
            if !visibility.is_empty() {
                let msg = format!("{kind} {n} has disallowed visibility: {visibility}");
                self.module_finding(msg, Rule::VisibilityStyles);
            }
            let sec = LLVMGetSection(g);
            if !sec.is_null() && *sec != 0 {
                self.module_finding(
                    format!("{kind} {n} has disallowed \"section\" attribute"),
                    Rule::GlobalAttributes,
                );
            }
            if LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 0 {
                self.module_finding(
                    format!("{kind} {n} has addrspace attribute (disallowed)"),
                    Rule::PointerTypes,
                );
            }
            if LLVMGetUnnamedAddress(g) != LLVMUnnamedAddr::LLVMNoUnnamedAddr {
                self.module_finding(
                    format!("{kind} {n} has disallowed \"unnamed_addr\" attribute"),
                    Rule::GlobalAttributes,
                );
            }
        }
    }

    fn module_pass(&mut self, m: LLVMModuleRef) {
        // SAFETY: handles of the module under check, which `check` borrows for the whole check.
        unsafe {
            // The data model is fixed (spec/001 Rule::DataModel); the 2014 tool did not check.
            let triple = module_string(LLVMGetTarget(m));
            if !triple.is_empty() && !triple.starts_with("le32-") {
                self.module_finding(
                    format!("Module has disallowed target triple: {triple} (spec/001 Data Model: le32-unknown-nacl)"),
                    Rule::DataModel,
                );
            }
            let dl = module_string(LLVMGetDataLayoutStr(m));
            if !dl.is_empty() && dl != Target::Le32.data_layout() && !ilp32_le(m) {
                self.module_finding(
                    format!("Module has disallowed data layout: {dl} (spec/001 Data Model: little-endian ILP32)"),
                    Rule::DataModel,
                );
            }
            // (a) inline assembly.
            let mut len = 0;
            let asm = LLVMGetModuleInlineAsm(m, &mut len);
            if len > 0 && !asm.is_null() {
                self.module_finding(
                    "Module contains disallowed top-level inline assembly".into(),
                    Rule::InlineAssembly,
                );
            }
            // (b) global variables.
            for g in globals(m) {
                let n = self.name_of(g);
                let init = LLVMGetInitializer(g);
                if init.is_null() {
                    self.module_finding(
                        format!("Global variable {n} has no initializer (disallowed)"),
                        Rule::GlobalAttributes,
                    );
                } else if !is_flattened(init) {
                    self.module_finding(
                        format!(
                            "Global variable {n} has non-flattened initializer (disallowed): {}",
                            value_text(init)
                        ),
                        Rule::GlobalVariables,
                    );
                }
                self.common_global_checks(g, "Variable");
                // A pexe stores log2(alignment) + 1 and LLVM 3.3 reads at most 2^29
                // (spec/000 GLOBALVAR; the 2014 tool did not look at alignments).
                let align = LLVMGetAlignment(g);
                if align > 1 << 29 {
                    self.module_finding(
                        format!("Variable {n} has disallowed alignment: {align} (spec/001 Global Variables: at most 536870912)"),
                        Rule::GlobalAttributes,
                    );
                }
                if LLVMIsThreadLocal(g) != 0 {
                    self.module_finding(
                        format!("Variable {n} has disallowed \"thread_local\" attribute"),
                        Rule::GlobalAttributes,
                    );
                }
                if LLVMIsExternallyInitialized(g) != 0 {
                    self.module_finding(
                        format!("Variable {n} has disallowed \"externally_initialized\" attribute"),
                        Rule::GlobalAttributes,
                    );
                }
            }
            // (c) aliases.
            let mut a = LLVMGetFirstGlobalAlias(m);
            while !a.is_null() {
                self.module_finding(
                    format!("Variable {} is an alias (disallowed)", name(a)),
                    Rule::Aliases,
                );
                a = LLVMGetNextGlobalAlias(a);
            }
            // (d) functions.
            // (In an LLVM 3.x file's order: LLVM 14 moves the intrinsics it renames.)
            let fs = match self.legacy.as_ref().and_then(|l| l.functions()) {
                Some(fs) => fs.to_vec(),
                None => functions(m).map(FileFunction::Value).collect(),
            };
            for f in fs {
                match f {
                    FileFunction::Value(f) => self.function_decl(f),
                    // Its name did not fit its type (LLVM 14 merged it into the declaration
                    // its type names): no intrinsic of the table.
                    FileFunction::Gone(n) => self.module_finding(
                        format!(
                            "Function {} is a disallowed LLVM intrinsic",
                            String::from_utf8_lossy(&n)
                        ),
                        Rule::Intrinsics,
                    ),
                }
            }
            // (e) named metadata.
            // An LLVM 3.x file's as the file has them (LLVM 14 drops old debug metadata).
            let names: Vec<Vec<u8>> = match &self.legacy {
                _ if self.opts.ignore_named_metadata => Vec::new(),
                Some(l) => l.named_metadata.clone(),
                None => {
                    let mut names = Vec::new();
                    let mut md = LLVMGetFirstNamedMetadata(m);
                    while !md.is_null() {
                        let mut len = 0;
                        let p = LLVMGetNamedMetadataName(md, &mut len);
                        names.push(lent(p, len));
                        md = LLVMGetNextNamedMetadata(md);
                    }
                    names
                }
            };
            for n in names {
                let n = String::from_utf8_lossy(&n).into_owned();
                let debug = n.starts_with("llvm.dbg.")
                    || (n == "llvm.module.flags" && only_debug_flags(m, &n));
                // Debug information passes with --allow-debug-metadata (the historical
                // option; LLVM 14 adds module flags to it); `pnacl.symtab` and
                // `pnacl.types`, the symbol and type tables' orders pnacl-llvm records for
                // pnacl-freeze, are never written to a pexe. Any other named node is the
                // historical error.
                if !(debug && self.opts.allow_debug_metadata)
                    && n != crate::bitcode::symtab_order::METADATA
                    && n != super::import::TYPES_METADATA
                {
                    self.module_finding(
                        format!("Named metadata node {n} is disallowed"),
                        Rule::NamedMetadata,
                    );
                }
            }
            // (f) the entry point.
            if self.entry_points == 0 {
                self.module_finding(
                    "Module has no entry point (disallowed)".into(),
                    Rule::EntryPoints,
                );
            }
        }
    }

    fn function_decl(&mut self, f: LLVMValueRef) {
        let n = self.name_of(f);
        // SAFETY: handles of the module under check, which `check` borrows for the whole check.
        unsafe {
            let fty = LLVMGlobalGetValueType(f);
            if n.starts_with("llvm.") {
                // Name and exact type must both match (abicheck.md §6.1).
                let allowed = intrinsics::lookup(n.as_bytes()).is_some_and(|i| {
                    (i.in_2014_checker || !self.opts.historical_strictness)
                        && type_text(fty) == llvm14_type(i)
                }) || (self.opts.allow_debug_metadata
                    && (n == "llvm.dbg.declare" || n == "llvm.dbg.value"));
                if !allowed {
                    self.module_finding(
                        format!("Function {n} is a disallowed LLVM intrinsic"),
                        Rule::Intrinsics,
                    );
                }
                return;
            }
            if !is_fn_type(fty) {
                self.module_finding(
                    format!("Function {n} has disallowed type: {}", type_text(fty)),
                    Rule::FunctionTypes,
                );
            }
            if LLVMIsDeclaration(f) != 0 {
                self.module_finding(
                    format!("Function {n} is declared but not defined (disallowed)"),
                    Rule::EntryPoints,
                );
            }
            let attrs = self.attrs.of_function(f);
            if !attrs.is_empty() {
                let mut s = format!("Function {n} has disallowed attributes:");
                for a in attrs {
                    s.push(' ');
                    s.push_str(&a);
                }
                self.module_finding(s, Rule::FunctionAttributes);
            }
            let cc = LLVMGetFunctionCallConv(f);
            if cc != 0 {
                let cn = match cc {
                    8 => "fastcc",
                    9 => "cold",
                    _ => "unknown",
                };
                self.module_finding(
                    format!("Function {n} has disallowed calling convention: {cn} ({cc})"),
                    Rule::CallingConventions,
                );
            }
        }
        self.common_global_checks(f, "Function");
        // SAFETY: handles of the module under check, which `check` borrows for the whole check.
        unsafe {
            if !LLVMGetGC(f).is_null() {
                self.module_finding(
                    format!("Function {n} has disallowed \"gc\" attribute"),
                    Rule::FunctionAttributes,
                );
            }
            if LLVMGetAlignment(f) != 0 {
                self.module_finding(
                    format!("Function {n} has disallowed \"align\" attribute"),
                    Rule::FunctionAttributes,
                );
            }
        }
    }

    /// The reason instruction `i` is disallowed, if it is (abicheck.md §4.3, §4.4).
    fn reason(&self, i: LLVMValueRef, text: &str) -> Option<(&'static str, Rule)> {
        use LLVMOpcode::*;
        // SAFETY: handles of the module under check, which `check` borrows for the whole check.
        let op = unsafe { LLVMGetInstructionOpcode(i) };
        let ops = operands(i);
        let d_check = |skip: Option<usize>| -> Option<(&'static str, Rule)> {
            for (k, o) in ops.iter().enumerate() {
                if Some(k) == skip {
                    continue;
                }
                if !is_valid_scalar_operand(*o) && !is_valid_vector_operand(*o) {
                    return Some(("bad operand", Rule::Operands));
                }
            }
            None
        };
        // `%x = add nuw nsw i32 …`: the flags follow the opcode.
        let words = |n| {
            let after = text.split_once(" = ").map_or(text, |(_, r)| r);
            after.split_whitespace().take(n).collect::<Vec<&str>>()
        };
        let flags = || -> Option<(&'static str, Rule)> {
            let words = words(4);
            if words.contains(&"nuw") {
                Some(("has \"nuw\" attribute", Rule::Instructions))
            } else if words.contains(&"nsw") {
                Some(("has \"nsw\" attribute", Rule::Instructions))
            } else if words.contains(&"exact") {
                Some(("has \"exact\" attribute", Rule::Instructions))
            } else {
                None
            }
        };
        let fast_math = || -> Option<(&'static str, Rule)> {
            let words = words(8);
            let fmf = [
                "fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc",
            ];
            words
                .iter()
                .any(|w| fmf.contains(w))
                .then_some(("has fast-math flags", Rule::FastMathFlags))
        };
        // SAFETY: handles of the module under check, which `check` borrows for the whole check.
        unsafe {
            match op {
                LLVMGetElementPtr | LLVMVAArg | LLVMInvoke | LLVMLandingPad | LLVMResume
                | LLVMIndirectBr | LLVMShuffleVector | LLVMExtractValue | LLVMInsertValue
                | LLVMAtomicCmpXchg | LLVMAtomicRMW | LLVMFence => {
                    Some(("bad instruction opcode", Rule::Instructions))
                }
                LLVMRet | LLVMBr | LLVMUnreachable | LLVMAnd | LLVMOr | LLVMXor | LLVMTrunc
                | LLVMZExt | LLVMSExt | LLVMFPTrunc | LLVMFPExt | LLVMFPToUI | LLVMFPToSI
                | LLVMUIToFP | LLVMSIToFP | LLVMPHI | LLVMSelect => d_check(None).or_else(flags),
                LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFCmp => {
                    // spec/001 Rule::FastMathFlags: not supported (the 2014 tool missed it).
                    d_check(None).or_else(fast_math)
                }
                LLVMICmp | LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem
                | LLVMSRem | LLVMShl | LLVMLShr | LLVMAShr => {
                    let t = LLVMTypeOf(ops[0]);
                    if !is_int_arith(t) {
                        return Some(if int_width(scalar_of(t)).is_some() {
                            ("Invalid integer arithmetic type", Rule::IntegerArithmetic)
                        } else {
                            ("Expects integer arithmetic type", Rule::IntegerArithmetic)
                        });
                    }
                    // The 2014 tool skipped the operand check here, so `add i32 ptrtoint
                    // (…), 1` passed (abicheck.md §8); spec/001 allows constant expressions
                    // only in global initializers, and a pexe has no way to write one.
                    d_check(None).or_else(flags)
                }
                LLVMExtractElement | LLVMInsertElement => {
                    let idx = ops[if op == LLVMExtractElement { 1 } else { 2 }];
                    match const_int(idx) {
                        None => {
                            return Some((
                                "non-constant vector insert/extract index",
                                Rule::VectorIndex,
                            ))
                        }
                        Some(k) if k >= LLVMGetVectorSize(LLVMTypeOf(ops[0])) as u64 => {
                            return Some((
                                "out of range vector insert/extract index",
                                Rule::VectorIndex,
                            ))
                        }
                        _ => {}
                    }
                    d_check(None).or_else(flags)
                }
                LLVMLoad | LLVMStore => {
                    let is_load = op == LLVMLoad;
                    let (atomic, volatile) = match is_load {
                        true => ("atomic load", "volatile load"),
                        false => ("atomic store", "volatile store"),
                    };
                    use llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic;
                    if LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic {
                        return Some((atomic, Rule::VolatileAndAtomicAccess));
                    }
                    if LLVMGetVolatile(i) != 0 {
                        return Some((volatile, Rule::VolatileAndAtomicAccess));
                    }
                    let ptr = if is_load { ops[0] } else { ops[1] };
                    if !is_normalized_ptr(ptr) {
                        // A pointer to i1 is bad for what it points to: the rule is that
                        // i1 is never loaded or stored (what the same pexe is held to).
                        let pointee = LLVMGetElementType(LLVMTypeOf(ptr));
                        let rule = if int_width(scalar_of(pointee)) == Some(1) {
                            Rule::LoadStoreI1
                        } else {
                            Rule::LoadStorePointer
                        };
                        return Some(("bad pointer", rule));
                    }
                    let t = if is_load {
                        LLVMTypeOf(i)
                    } else {
                        LLVMTypeOf(ops[0])
                    };
                    let unaligned = self.legacy.as_ref().is_some_and(|l| l.unaligned(i));
                    let align = if unaligned { 0 } else { LLVMGetAlignment(i) };
                    if !alignment_ok(t, align) {
                        return Some(("bad alignment", Rule::LoadStoreAlignment));
                    }
                    if !is_load {
                        return d_check(Some(1));
                    }
                    None
                }
                LLVMBitCast => {
                    if LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMTypeKind::LLVMPointerTypeKind {
                        if !is_inherent_ptr(ops[0]) {
                            return Some(("operand not InherentPtr", Rule::PointerCasts));
                        }
                        return flags();
                    }
                    d_check(None).or_else(flags)
                }
                LLVMIntToPtr => {
                    if int_width(LLVMTypeOf(ops[0])) != Some(32) {
                        return Some(("non-i32 inttoptr", Rule::PointerCasts));
                    }
                    d_check(None)
                }
                LLVMPtrToInt => {
                    // The 2014 code demands an inherent pointer where spec/001 says
                    // normalized (abicheck.md §8); the code's rule is the one pexes obey.
                    if !is_inherent_ptr(ops[0]) {
                        let rule = if is_intrinsic_fn(ops[0]) {
                            Rule::IntrinsicAddress
                        } else {
                            Rule::PointerCasts
                        };
                        return Some(("operand not InherentPtr", rule));
                    }
                    if int_width(LLVMTypeOf(i)) != Some(32) {
                        return Some(("non-i32 ptrtoint", Rule::PointerCasts));
                    }
                    None
                }
                LLVMAlloca => {
                    if int_width(LLVMGetAllocatedType(i)) != Some(8) {
                        return Some(("non-i8 alloca", Rule::Alloca));
                    }
                    if int_width(LLVMTypeOf(ops[0])) != Some(32) {
                        return Some(("alloca array size is not i32", Rule::Alloca));
                    }
                    d_check(None)
                }
                LLVMCall => self.call_reason(i),
                LLVMSwitch => {
                    let c = ops[0];
                    if !is_valid_scalar_operand(c) {
                        return Some(("bad switch condition", Rule::Switch));
                    }
                    let t = LLVMTypeOf(c);
                    match int_width(t) {
                        None => return Some(("switch not on integer type", Rule::Switch)),
                        Some(1) => return Some(("switch on i1 not allowed", Rule::Switch)),
                        Some(w) if !matches!(w, 8 | 16 | 32 | 64) => {
                            return Some(("switch disallowed for integer type", Rule::Switch))
                        }
                        _ => {}
                    }
                    // Case values: operands 2, 4, … (blocks are the odd ones).
                    for k in (2..ops.len()).step_by(2) {
                        if !is_valid_scalar_operand(ops[k]) {
                            return Some(("bad switch case", Rule::Switch));
                        }
                    }
                    None
                }
                _ => Some(("unknown instruction opcode", Rule::Instructions)),
            }
        }
    }

    fn call_reason(&self, i: LLVMValueRef) -> Option<(&'static str, Rule)> {
        // SAFETY: handles of the module under check, which `check` borrows for the whole check.
        unsafe {
            let callee = LLVMGetCalledValue(i);
            if !LLVMIsAInlineAsm(callee).is_null() {
                return Some(("inline assembly", Rule::InlineAssembly));
            }
            let mem = is_intrinsic_fn(callee) && {
                let n = name(callee);
                n.starts_with("llvm.memcpy.")
                    || n.starts_with("llvm.memmove.")
                    || n.starts_with("llvm.memset.")
            };
            if mem {
                // LLVM 14 spells 3.3's alignment argument of llvm.mem* as `align N` on the
                // pointer arguments (and drops `align 1`): that one attribute is allowed,
                // and only with N = 1 (abicheck.md §4.4: the alignment must be exactly 1).
                let (others, aligns) = mem_call_attributes(i);
                if others > 0 {
                    return Some(("bad call attributes", Rule::FunctionAttributes));
                }
                if LLVMGetInstructionCallConv(i) != 0 {
                    return Some(("bad calling convention", Rule::CallingConventions));
                }
                if aligns.iter().any(|&a| a != 1) {
                    return Some(("bad alignment", Rule::MemIntrinsicAlignment));
                }
            } else if call_site_attribute_count(i) > 0 {
                return Some(("bad call attributes", Rule::FunctionAttributes));
            }
            if LLVMGetInstructionCallConv(i) != 0 {
                return Some(("bad calling convention", Rule::CallingConventions));
            }
            let nargs = LLVMGetNumArgOperands(i) as usize;
            let args: Vec<LLVMValueRef> = (0..nargs as u32).map(|k| LLVMGetOperand(i, k)).collect();
            if is_intrinsic_fn(callee) {
                for a in &args {
                    // Metadata operands (`metadata !{…}`) are fine, metadata strings are not.
                    let md = LLVMGetTypeKind(LLVMTypeOf(*a)) == LLVMTypeKind::LLVMMetadataTypeKind
                        && LLVMIsAMDString(*a).is_null();
                    if !(is_valid_scalar_operand(*a)
                        || is_valid_vector_operand(*a)
                        || is_normalized_ptr(*a)
                        || md)
                    {
                        return Some(("bad intrinsic operand", Rule::Intrinsics));
                    }
                }
                let n = name(callee);
                if let Some(intr) = intrinsics::lookup(n.as_bytes()) {
                    let orders = intr.memory_order_args();
                    let success = orders.first().and_then(|&k| const_int(args[k]));
                    for (which, &k) in orders.iter().enumerate() {
                        let ok = match const_int(args[k]) {
                            // The 2014 checker accepted seq_cst only; spec/001 allows the
                            // C11 orders, which real pexes use.
                            Some(v) if self.opts.historical_strictness => v == 6,
                            Some(v) => {
                                crate::abi::check::order_allowed(intr.kind, which, v, success)
                            }
                            None => false,
                        };
                        if !ok {
                            return Some(("invalid memory order", Rule::AtomicMemoryOrder));
                        }
                    }
                    if intr.kind == Kind::AtomicRmw && !matches!(const_int(args[0]), Some(1..=6)) {
                        return Some(("invalid atomicRMW operation", Rule::AtomicRmwOperation));
                    }
                    if intr.kind == Kind::AtomicIsLockFree
                        && !matches!(const_int(args[0]), Some(1 | 2 | 4 | 8))
                    {
                        return Some((
                            "invalid atomic lock-free byte size",
                            Rule::AtomicLockFreeSize,
                        ));
                    }
                }
                return None;
            }
            if !is_normalized_ptr(callee) {
                return Some(("bad function callee operand", Rule::FunctionTypes));
            }
            for a in &args {
                if !is_valid_scalar_operand(*a) && !is_valid_vector_operand(*a) {
                    return Some(("bad operand", Rule::Operands));
                }
            }
            None
        }
    }

    /// The instruction rules on function `f`, the `index`-th of the module, whose printed
    /// body is `body`.
    fn function_pass(&mut self, f: LLVMValueRef, index: u32, body: &[&str]) {
        let fname = self.name_of(f);
        let texts = instruction_texts(f, body);
        let mut found = Vec::new();
        let scope = Scope::Function(index);
        let mut finding = |msg, rule| {
            found.push(Finding::error(scope, fname.clone(), msg, rule, None));
        };
        for (k, i) in instructions(f).enumerate() {
            let mut instr = match &texts {
                Some(t) => t[k].clone(),
                None => value_text(i),
            };
            if let Some(l) = &self.legacy {
                instr = llvm33_text(&instr, i, l.unaligned(i));
            }
            let mut reason = self.reason(i, &instr);
            let mut bad_type = None;
            // SAFETY: handles of the module under check, which `check` borrows for the whole check.
            let (t, op) = unsafe { (LLVMTypeOf(i), LLVMGetInstructionOpcode(i)) };
            if reason.is_none() {
                let ptr_ok = is_normalized_ptr(i) || op == LLVMOpcode::LLVMAlloca;
                if !(is_scalar(t) || is_vector(t) || ptr_ok) {
                    reason = Some(("bad result type", Rule::TypeSystem));
                    bad_type = Some(type_text(t));
                }
            }
            if let Some((r, rule)) = reason {
                let msg = match bad_type {
                    Some(t) => format!("Function {fname} disallowed: {r}: {t} {instr}"),
                    None => format!("Function {fname} disallowed: {r}:  {instr}"),
                };
                finding(msg, rule);
            }
            for kind in attached_metadata(&instr) {
                if kind == "dbg" && self.opts.allow_debug_metadata {
                    continue;
                }
                let msg = format!("Function {fname} has disallowed instruction metadata: !{kind}");
                finding(msg, Rule::Metadata);
            }
        }
        self.out.extend(found);
    }
}

/// The printed form of each instruction of `f`, in order, cut from the lines of its body
/// in one printing of the whole module: printing values one by one makes LLVM number the
/// whole module again each time, which is quadratic. `None` if the text cannot be matched
/// to the instructions.
fn instruction_texts(f: LLVMValueRef, body: &[&str]) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut open_switch = false;
    for &line in body {
        let b = line.as_bytes();
        let starts_instruction = b.len() > 2 && b[0] == b' ' && b[1] == b' ' && b[2] != b' ';
        if open_switch || (!starts_instruction && b.first() == Some(&b' ')) {
            // A continuation: the cases of a switch up to `  ]`, or a deeper-indented line.
            let last = out.last_mut()?;
            last.push('\n');
            last.push_str(line);
            if line == "  ]" {
                open_switch = false;
            }
            continue;
        }
        if starts_instruction {
            open_switch = line.starts_with("  switch ") && line.ends_with('[');
            out.push(line.to_string());
        }
    }
    (out.len() == instructions(f).count()).then_some(out)
}

/// `!name` attachments at the end of a printed instruction (`, !tbaa !3, !dbg !7`), with
/// `!dbg` first as the historical tool ordered them.
fn attached_metadata(instr: &str) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for part in instr.split(", !").skip(1) {
        let name: String = part.chars().take_while(|c| !c.is_whitespace()).collect();
        if !name.is_empty() && part[name.len()..].trim_start().starts_with('!') {
            kinds.push(name);
        }
    }
    kinds.sort_by_key(|k| k != "dbg");
    kinds
}

/// spec/001's alignments for a load or store of `t`: the model's rule
/// (`ValueType::load_store_alignments`), for the type as a pexe holds it.
fn alignment_ok(t: LLVMTypeRef, align: u32) -> bool {
    super::import::value_type(t).is_ok_and(|v| v.load_store_alignments().contains(&(align as u64)))
}

/// An instruction as LLVM 3.3 printed it, from LLVM 14's text of it (for an LLVM 3.x
/// file, whose checker showed it so): no explicit type before a load's or a GEP's
/// pointer (`load i1* %p`), a varargs callee's pointer type (`call void (i32, ...)* %f`),
/// and no `align` where the file gives none.
fn llvm33_text(text: &str, i: LLVMValueRef, unaligned: bool) -> String {
    let mut out = text.to_string();
    for kw in ["load ", "getelementptr "] {
        out = drop_explicit_type(&out, kw);
    }
    if opcode(i) == Some(LLVMOpcode::LLVMCall) {
        // SAFETY: `i` is a call of the module under check, which `check` borrows.
        let fty = type_text(unsafe { LLVMGetCalledFunctionType(i) });
        let shown = format!("call {fty} ");
        if let Some(k) = out.find(&shown) {
            out.insert(k + shown.len() - 1, '*');
        }
    }
    if unaligned {
        if let Some(k) = out.find(", align ") {
            let end = out[k + 8..]
                .find(|c: char| !c.is_ascii_digit())
                .map_or(out.len(), |e| k + 8 + e);
            out.replace_range(k..end, "");
        }
    }
    out
}

/// `text` with the explicit type after each `kw` (`load T, T* %p` → `load T* %p`) gone.
fn drop_explicit_type(text: &str, kw: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(k) = rest.find(kw) {
        let boundary = k == 0 || matches!(rest.as_bytes()[k - 1], b' ' | b'(');
        let (head, mut tail) = rest.split_at(k + kw.len());
        out.push_str(head);
        rest = tail;
        if !boundary {
            continue;
        }
        for m in ["volatile ", "atomic ", "inbounds ", "("] {
            if let Some(t) = tail.strip_prefix(m) {
                out.push_str(m);
                tail = t;
            }
        }
        // The explicit type ends at the first ", " outside brackets.
        let mut depth = 0i32;
        let mut end = None;
        for (j, c) in tail.char_indices() {
            match c {
                '(' | '[' | '{' | '<' => depth += 1,
                ')' | ']' | '}' | '>' => depth -= 1,
                ',' if depth == 0 => {
                    end = Some(j);
                    break;
                }
                _ => {}
            }
        }
        rest = tail;
        if let Some(j) = end {
            let ty = &tail[..j];
            let after = &tail[j..];
            if after.strip_prefix(", ").is_some_and(|a| {
                a.strip_prefix(ty)
                    .is_some_and(|p| p.starts_with('*') || p.starts_with(" addrspace"))
            }) {
                rest = &after[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// All findings for module `m`: module findings first, then each function's.
pub fn check(m: &inkwell::module::Module<'_>, opts: &Options) -> Vec<Finding> {
    check_read_from(m, opts, None)
}

/// `check`, for a module read from `data` (LLVM bitcode or text): an LLVM 3.x file's
/// findings are told as the 2014 checker told them, from the file as written.
pub fn check_read_from(
    m: &inkwell::module::Module<'_>,
    opts: &Options,
    data: Option<&[u8]>,
) -> Vec<Finding> {
    let raw = m.as_mut_ptr();
    let mut c = Checker {
        out: Vec::new(),
        opts: *opts,
        attrs: AttrNames::new(),
        entry_points: 0,
        legacy: data.and_then(|d| Legacy::of(d, raw)),
    };
    c.module_pass(raw);
    // The module's text, once, cut into the bodies of its definitions (in module order).
    let text = module_text(raw);
    let mut bodies: Vec<Vec<&str>> = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        match current.as_mut() {
            None if line.starts_with("define ") && line.ends_with('{') => {
                current = Some(Vec::new())
            }
            None => {}
            Some(_) if line == "}" => bodies.push(current.take().unwrap()),
            Some(b) => b.push(line),
        }
    }
    let mut definition = 0;
    for (index, f) in functions(raw).enumerate() {
        // SAFETY: handles of the module under check, which `check` borrows for the whole check.
        if unsafe { LLVMIsDeclaration(f) } == 0 {
            let body = bodies.get(definition).map_or(&[][..], |b| b.as_slice());
            c.function_pass(f, index as u32, body);
            definition += 1;
        }
    }
    c.out
}
