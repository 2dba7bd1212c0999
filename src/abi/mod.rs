//! The ABI rules of spec/001 as checks over the model (the LLVM-only rules live in
//! `llvm::import`).

pub mod check;
pub mod intrinsics;

pub use check::{check, check_all, check_ssa, render, Finding, Options, Scope};

use crate::ir::{Body, InstKind, Module, ValueType};

/// The alignments spec/001 allows for a load or store of `ty` (abicheck.md §4.5).
pub fn allowed_alignments(ty: ValueType) -> &'static [u64] {
    match ty {
        ValueType::I8 | ValueType::I16 | ValueType::I32 | ValueType::I64 => &[1],
        ValueType::Float => &[1, 4],
        ValueType::Double => &[1, 8],
        ValueType::V16I8 => &[1],
        ValueType::V8I16 => &[2],
        ValueType::V4I32 | ValueType::V4Float => &[4],
        _ => &[],
    }
}

/// Findings about instruction `i` of function `f` that pnacl-bcdis reports inline
/// (writer.md §10.4): alignments, loads and stores of i1.
pub fn inst_findings(m: &Module, _f: u32, body: &Body, i: usize) -> Vec<String> {
    let inst = body.insts[i];
    let mut out = Vec::new();
    let mut check_align = |what: &str, ty: ValueType, align: u64| {
        let ok = allowed_alignments(ty);
        if ok.is_empty() {
            out.push(format!(
                "{what}: Illegal type {ty} (i1 values and i1 vectors cannot be loaded or stored)"
            ));
        } else if !ok.contains(&align) {
            let expects = ok
                .iter()
                .map(|a| a.to_string())
                .collect::<Vec<_>>()
                .join(" or ");
            out.push(format!(
                "{what}: Illegal alignment for {ty}. Expects: {expects}"
            ));
        }
    };
    match inst.kind {
        InstKind::Load { align, .. } => check_align("load", inst.ty, align.bytes()),
        InstKind::Store { val, align, .. } => {
            if let Some(t) = m.value_type_in(body, val) {
                check_align("store", t, align.bytes())
            }
        }
        _ => {}
    }
    out
}
