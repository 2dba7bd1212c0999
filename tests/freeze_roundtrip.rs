//! pexe → LLVM (le32) → pexe: the importer numbers the module as pnacl-freeze did.
#![cfg(feature = "llvm")]

mod common;

use inkwell::context::Context;
use pnacl::llvm::{export, import, ExportOptions, Target};

/// The first difference between two models, in words.
fn first_difference(a: &pnacl::ir::Module, b: &pnacl::ir::Module) -> String {
    if a.types != b.types {
        return format!("types:\n  {:?}\n  {:?}", a.types, b.types);
    }
    if a.functions.len() != b.functions.len() {
        return "function count".into();
    }
    for (i, (fa, fb)) in a.functions.iter().zip(&b.functions).enumerate() {
        if fa.ty != fb.ty
            || fa.linkage != fb.linkage
            || fa.name != fb.name
            || fa.is_defined != fb.is_defined
        {
            return format!("function {i} header");
        }
        match (a.body(i as u32), b.body(i as u32)) {
            (Some(x), Some(y)) if x != y => {
                if x.consts != y.consts {
                    return format!(
                        "function {i} constants:\n  {:?}\n  {:?}",
                        x.consts, y.consts
                    );
                }
                for (k, (ia, ib)) in x.insts.iter().zip(y.insts).enumerate() {
                    if ia != ib {
                        return format!("function {i} instruction {k}:\n  {ia:?}\n  {ib:?}");
                    }
                }
                if x.operands != y.operands {
                    let k = common::first_difference(x.operands, y.operands);
                    let lo = k.saturating_sub(4);
                    return format!(
                        "function {i} operands differ at {k} ({} vs {}): {:?} vs {:?}",
                        x.operands.len(),
                        y.operands.len(),
                        &x.operands[lo..(k + 6).min(x.operands.len())],
                        &y.operands[lo..(k + 6).min(y.operands.len())]
                    );
                }
                if x.cases != y.cases {
                    return format!("function {i} cases");
                }
                if x.block_starts != y.block_starts || x.num_blocks != y.num_blocks {
                    return format!("function {i} blocks");
                }
                if x.local_types != y.local_types {
                    return format!("function {i} local types");
                }
                return format!(
                    "function {i} body ({} vs {} insts)",
                    x.insts.len(),
                    y.insts.len()
                );
            }
            _ => {}
        }
    }
    if a.globals != b.globals {
        return "globals".into();
    }
    if a.symbol_order != b.symbol_order {
        return "symbol order".into();
    }
    "?".into()
}

/// pexe → pnacl-llvm's le32 module → import: the model pnacl-freeze would write is the
/// pexe's own, symbol-table and type-table order included (the module's `pnacl.symtab` and
/// `pnacl.types` metadata), for every real pexe, the browser plugins' too (stockfish_2017's
/// types were ordered by a later pnacl-freeze); written, it is the pexe bit for bit wherever
/// pnacl-freeze wrote the pexe with the abbreviations it has today. Without the metadata (pnacl-finalize ignores it) the order is rebuilt
/// from the module alone, which gets it only for the files counted below: the order came
/// from a hash table's history (writer.md §8.3).
#[test]
fn le32_modules_freeze_back_to_the_pexes() {
    let mut failures = Vec::new();
    let mut same_symtab = Vec::new();
    let mut bit_identical = 0;
    let pexes = common::valid_pexes();
    let plugins = common::pexes("plugins");
    for p in pexes.iter().chain(&plugins) {
        let data = std::fs::read(p).unwrap();
        let m = pnacl::bitcode::read(&data).unwrap();
        let ctx = Context::create();
        let ll = export(&ctx, &m, &ExportOptions::whole(Target::Le32)).unwrap();
        let back = match import(&ll) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: {e}", p.display()));
                continue;
            }
        };
        let m = m.without_positions();
        let back = back.without_positions();
        if back != m {
            failures.push(format!("{}: {}", p.display(), first_difference(&m, &back)));
            continue;
        }
        let out = pnacl::bitcode::write(&back).unwrap();
        if out == data {
            bit_identical += usize::from(!plugins.contains(p));
        } else if common::freeze_wrote(p) && !plugins.contains(p) {
            failures.push(format!("{}: not bit-identical", p.display()));
        }
        let derived = pnacl::llvm::import::import_with(&ll, false).unwrap();
        if derived.symbol_order == m.symbol_order {
            same_symtab.push(common::name(p));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // All but the pexes written with other abbreviations.
    assert_eq!(
        bit_identical,
        pexes.len() - common::OTHER_ABBREVIATIONS.len()
    );
    // Module-order insertion into a fresh StringMap reproduces the symbol tables with one
    // entry; the others were written from tables whose history (removed names, a larger
    // table) the module does not carry.
    assert_eq!(same_symtab, ["bitcast.pexe", "start.pexe"]);
}
