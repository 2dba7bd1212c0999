//! The neutral target, le32: the module is the pexe as LLVM 14 holds it, instruction for
//! instruction, the PNaCl intrinsics kept as calls of their declarations and every name
//! as in the pexe, so that pnacl-freeze writes the same pexe back.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use super::{cstr, Call, Exporter, Lowering, EMPTY, R};
use crate::ir::intrinsics::PTy;

pub(super) struct Le32;

impl Lowering for Le32 {
    fn symbol_name(&self, name: Option<&[u8]>, _kind: char, _index: usize) -> String {
        name.map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default()
    }

    fn keeps_intrinsics(&self) -> bool {
        true
    }

    fn normal_form(&self) -> bool {
        true
    }

    /// A call of the intrinsic as the pexe declares it, its pointers typed.
    fn intrinsic_call(&self, x: &mut Exporter, c: &mut Call) -> R<LLVMValueRef> {
        let intr = c.intr;
        let pointee = x.intrinsic_pointee(intr);
        let llfn = x.fn_value(c.callee as usize);
        let fty = x.fn_types[c.callee as usize];
        let mut vs = Vec::with_capacity(c.args.len());
        for (k, &a) in c.args.iter().enumerate() {
            vs.push(if intr.params[k] == PTy::Ptr {
                x.pointer(c.st, a, pointee)
            } else {
                x.value(c.st, a)
            });
        }
        // SAFETY: handles of the exporter's live context and module (see `Exporter`).
        unsafe {
            let call = LLVMBuildCall2(x.b, fty, llfn, vs.as_mut_ptr(), vs.len() as u32, EMPTY);
            LLVMSetTailCall(call, c.tail as i32);
            Ok(if intr.ret == PTy::Ptr {
                LLVMBuildPtrToInt(x.b, call, x.i32, EMPTY)
            } else {
                call
            })
        }
    }

    /// The symbol table's order as `pnacl.symtab` metadata, and the type table's as
    /// `pnacl.types`, where either is not the order pnacl-freeze derives from the module
    /// (an LLVM module holds no such order: this is what makes `pnacl-llvm | pnacl-freeze`
    /// give the pexe back record for record; pexes of a later pnacl-freeze ordered some
    /// types differently).
    fn finish(&self, x: &mut Exporter) {
        use crate::bitcode::symtab_order;
        let m = x.m;
        if x.partition.is_some() {
            return;
        }
        let derived = crate::llvm::import::derived_types(x.edit);
        if derived.is_some_and(|d| d != m.types) {
            // SAFETY: the exporter's context and module are live; each MDString copies
            // its bytes.
            unsafe {
                let mut types: Vec<LLVMMetadataRef> = m
                    .types
                    .iter()
                    .map(|t| {
                        let t = t.to_string();
                        LLVMMDStringInContext2(x.ctx, t.as_ptr() as *const _, t.len())
                    })
                    .collect();
                let node = LLVMMDNodeInContext2(x.ctx, types.as_mut_ptr(), types.len());
                LLVMAddNamedMetadataOperand(
                    x.module,
                    cstr(crate::llvm::import::TYPES_METADATA).as_ptr(),
                    LLVMMetadataAsValue(x.ctx, node),
                );
            }
        }
        if m.symbol_order.is_empty() || m.symbol_order == symtab_order::derived(m) {
            return;
        }
        let nf = m.functions.len();
        // SAFETY: the exporter's context and module are live; each MDString copies its
        // bytes.
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
                    LLVMMDStringInContext2(x.ctx, n.as_ptr() as *const _, n.len())
                })
                .collect();
            let node = LLVMMDNodeInContext2(x.ctx, names.as_mut_ptr(), names.len());
            LLVMAddNamedMetadataOperand(
                x.module,
                cstr(symtab_order::METADATA).as_ptr(),
                LLVMMetadataAsValue(x.ctx, node),
            );
        }
    }
}
