//! What pnacl-finalize does to an LLVM module before checking and freezing it: strip what a
//! distributed pexe must not carry and cannot hold.

use llvm_sys::core::*;
use llvm_sys::debuginfo::LLVMStripModuleDebugInfo;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMLinkage, LLVMOpcode, LLVMUnnamedAddr};

use super::ffi::{attribute_indices, attributes, functions, globals, instructions};

/// Removes every attribute at `idx` of function `f`, or of call `f` when `call`.
fn strip_attrs(f: LLVMValueRef, idx: u32, call: bool) {
    for a in attributes(f, idx, call) {
        // SAFETY: handles of the module being finalized, which the caller lends for the call.
        unsafe {
            if LLVMIsEnumAttribute(a) != 0 {
                let k = LLVMGetEnumAttributeKind(a);
                match call {
                    true => LLVMRemoveCallSiteEnumAttribute(f, idx, k),
                    false => LLVMRemoveEnumAttributeAtIndex(f, idx, k),
                }
            } else if LLVMIsStringAttribute(a) != 0 {
                let mut len = 0;
                let k = LLVMGetStringAttributeKind(a, &mut len);
                match call {
                    true => LLVMRemoveCallSiteStringAttribute(f, idx, k, len),
                    false => LLVMRemoveStringAttributeAtIndex(f, idx, k, len),
                }
            }
            // Type attributes (byval(T), …) cannot be removed through the C API of LLVM 14;
            // the ABI check reports them.
        }
    }
}

/// Strips, in place: debug information and every metadata attachment; function,
/// parameter, return and call-site attributes (on a mem* call, `align N` is LLVM 14's
/// spelling of the alignment argument, which the ABI wants to be 1: it goes too, leaving
/// alignment 1, which is always correct); `unnamed_addr`; declarations nothing uses.
/// Names stay (the ABI check's messages use them): `strip_names` removes them after it.
/// Named metadata and module flags cannot be erased through LLVM 14's C API: they are
/// simply not written (and the ABI check is told to skip them).
pub fn strip(m: &inkwell::module::Module<'_>) {
    let raw = m.as_mut_ptr();
    // SAFETY: handles of the module being finalized, which the caller lends for the call.
    unsafe {
        LLVMStripModuleDebugInfo(raw);
        for f in functions(raw) {
            if LLVMIsDeclaration(f) != 0 && LLVMGetFirstUse(f).is_null() {
                LLVMDeleteFunction(f);
                continue;
            }
            for k in attribute_indices(LLVMCountParams(f)) {
                strip_attrs(f, k, false);
            }
            LLVMSetUnnamedAddress(f, LLVMUnnamedAddr::LLVMNoUnnamedAddr);
            for i in instructions(f) {
                let mut n = 0;
                let entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(i, &mut n);
                if !entries.is_null() {
                    for k in 0..n as u32 {
                        let kind = LLVMValueMetadataEntriesGetKind(entries, k);
                        LLVMSetMetadata(i, kind, std::ptr::null_mut());
                    }
                    LLVMDisposeValueMetadataEntries(entries);
                }
                if LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMCall {
                    for k in attribute_indices(LLVMGetNumArgOperands(i)) {
                        strip_attrs(i, k, true);
                    }
                }
            }
        }
        for g in globals(raw) {
            LLVMSetUnnamedAddress(g, LLVMUnnamedAddr::LLVMNoUnnamedAddr);
        }
    }
}

/// Removes the names of every function and global that is not external (pnacl-finalize
/// unless `--no-strip-syms`, after the ABI check). Names of local values never reach a
/// pexe: the model keeps none.
pub fn strip_names(m: &inkwell::module::Module<'_>) {
    // SAFETY: handles of the module being finalized, which the caller lends for the call.
    let unname_if_internal = |v: LLVMValueRef| unsafe {
        if LLVMGetLinkage(v) != LLVMLinkage::LLVMExternalLinkage {
            LLVMSetValueName2(v, c"".as_ptr(), 0);
        }
    };
    let raw = m.as_mut_ptr();
    functions(raw)
        .chain(globals(raw))
        .for_each(unname_if_internal);
}
