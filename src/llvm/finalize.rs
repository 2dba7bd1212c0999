//! What pnacl-finalize does to an LLVM module before checking and freezing it: strip what a
//! distributed pexe must not carry and cannot hold.

use llvm_sys::core::*;
use llvm_sys::debuginfo::LLVMStripModuleDebugInfo;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMLinkage, LLVMOpcode, LLVMUnnamedAddr};

/// What to strip.
#[derive(Debug, Clone, Copy)]
pub struct StripOptions {
    /// Keep the names of internal functions and globals (`--no-strip-syms`).
    pub keep_symbols: bool,
}

/// Counts of what was stripped, for `--verbose` reports and tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stripped {
    pub attributes: usize,
    pub metadata_attachments: usize,
    pub prototypes: usize,
    pub names: usize,
}

/// Removes every attribute at `idx` of function `f`; returns how many.
fn strip_fn_attrs(f: LLVMValueRef, idx: u32) -> usize {
    unsafe {
        let n = LLVMGetAttributeCountAtIndex(f, idx);
        if n == 0 {
            return 0;
        }
        let mut attrs = vec![std::ptr::null_mut(); n as usize];
        LLVMGetAttributesAtIndex(f, idx, attrs.as_mut_ptr());
        for a in attrs {
            if LLVMIsEnumAttribute(a) != 0 {
                LLVMRemoveEnumAttributeAtIndex(f, idx, LLVMGetEnumAttributeKind(a));
            } else if LLVMIsStringAttribute(a) != 0 {
                let mut len = 0;
                let k = LLVMGetStringAttributeKind(a, &mut len);
                LLVMRemoveStringAttributeAtIndex(f, idx, k, len);
            }
            // Type attributes (byval(T), …) cannot be removed through the C API of LLVM 14;
            // the ABI check reports them.
        }
        n as usize
    }
}

/// Removes the call-site attributes at `idx`.
fn strip_call_attrs(c: LLVMValueRef, idx: u32) -> usize {
    unsafe {
        let n = LLVMGetCallSiteAttributeCount(c, idx);
        if n == 0 {
            return 0;
        }
        let mut attrs = vec![std::ptr::null_mut(); n as usize];
        LLVMGetCallSiteAttributes(c, idx, attrs.as_mut_ptr());
        let mut removed = 0;
        for a in attrs {
            if LLVMIsEnumAttribute(a) != 0 {
                LLVMRemoveCallSiteEnumAttribute(c, idx, LLVMGetEnumAttributeKind(a));
                removed += 1;
            } else if LLVMIsStringAttribute(a) != 0 {
                let mut len = 0;
                let k = LLVMGetStringAttributeKind(a, &mut len);
                LLVMRemoveCallSiteStringAttribute(c, idx, k, len);
                removed += 1;
            }
        }
        removed
    }
}

/// Strips, in place: debug information and every metadata attachment; function,
/// parameter, return and call-site attributes (on a mem* call, `align N` is LLVM 14's
/// spelling of the alignment argument, which the ABI wants to be 1: it goes too, leaving
/// alignment 1, which is always correct); `unnamed_addr`; declarations
/// nothing uses; and, unless `keep_symbols`, the names of everything but external symbols
/// (`strip_names`).
/// Named metadata and module flags cannot be erased through LLVM 14's C API: they are
/// simply not written (and the ABI check is told to skip them).
pub fn strip(m: &inkwell::module::Module<'_>, opts: StripOptions) -> Stripped {
    let raw = m.as_mut_ptr();
    let mut s = Stripped::default();
    unsafe {
        LLVMStripModuleDebugInfo(raw);
        let mut f = LLVMGetFirstFunction(raw);
        while !f.is_null() {
            let next = LLVMGetNextFunction(f);
            if LLVMIsDeclaration(f) != 0 && LLVMGetFirstUse(f).is_null() {
                LLVMDeleteFunction(f);
                s.prototypes += 1;
                f = next;
                continue;
            }
            let np = LLVMCountParams(f);
            s.attributes += strip_fn_attrs(f, 0);
            s.attributes += strip_fn_attrs(f, u32::MAX);
            for k in 1..=np {
                s.attributes += strip_fn_attrs(f, k);
            }
            LLVMSetUnnamedAddress(f, LLVMUnnamedAddr::LLVMNoUnnamedAddr);
            let mut bb = LLVMGetFirstBasicBlock(f);
            while !bb.is_null() {
                let mut i = LLVMGetFirstInstruction(bb);
                while !i.is_null() {
                    let mut n = 0;
                    let entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(i, &mut n);
                    if !entries.is_null() {
                        for k in 0..n as u32 {
                            let kind = LLVMValueMetadataEntriesGetKind(entries, k);
                            LLVMSetMetadata(i, kind, std::ptr::null_mut());
                            s.metadata_attachments += 1;
                        }
                        LLVMDisposeValueMetadataEntries(entries);
                    }
                    if LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMCall {
                        let na = LLVMGetNumArgOperands(i);
                        s.attributes += strip_call_attrs(i, 0);
                        s.attributes += strip_call_attrs(i, u32::MAX);
                        for k in 1..=na {
                            s.attributes += strip_call_attrs(i, k);
                        }
                    }
                    if !opts.keep_symbols
                        && LLVMGetTypeKind(LLVMTypeOf(i))
                            != llvm_sys::LLVMTypeKind::LLVMVoidTypeKind
                    {
                        LLVMSetValueName2(i, c"".as_ptr(), 0);
                    }
                    i = LLVMGetNextInstruction(i);
                }
                bb = LLVMGetNextBasicBlock(bb);
            }
            f = next;
        }
        let mut g = LLVMGetFirstGlobal(raw);
        while !g.is_null() {
            LLVMSetUnnamedAddress(g, LLVMUnnamedAddr::LLVMNoUnnamedAddr);
            g = LLVMGetNextGlobal(g);
        }
    }
    if !opts.keep_symbols {
        s.names = strip_names(m);
    }
    s
}

/// Removes the names of every function and global that is not external, and of every
/// local value; returns how many module-level names went. (`strip` calls it unless
/// `keep_symbols`; pnacl-finalize calls it after the ABI check, so that the check's
/// messages still name things.)
pub fn strip_names(m: &inkwell::module::Module<'_>) -> usize {
    let raw = m.as_mut_ptr();
    let mut n = 0;
    unsafe {
        let mut f = LLVMGetFirstFunction(raw);
        while !f.is_null() {
            if LLVMGetLinkage(f) != LLVMLinkage::LLVMExternalLinkage {
                let mut len = 0;
                LLVMGetValueName2(f, &mut len);
                if len > 0 {
                    LLVMSetValueName2(f, c"".as_ptr(), 0);
                    n += 1;
                }
            }
            f = LLVMGetNextFunction(f);
        }
        let mut g = LLVMGetFirstGlobal(raw);
        while !g.is_null() {
            if LLVMGetLinkage(g) != LLVMLinkage::LLVMExternalLinkage {
                let mut len = 0;
                LLVMGetValueName2(g, &mut len);
                if len > 0 {
                    LLVMSetValueName2(g, c"".as_ptr(), 0);
                    n += 1;
                }
            }
            g = LLVMGetNextGlobal(g);
        }
    }
    n
}
