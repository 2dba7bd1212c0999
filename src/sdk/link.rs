//! The bitcode linker (pnacl-ld's first step): every object of the command line, and from
//! each archive the members that define a symbol still undefined (repeated over all the
//! archives until nothing more is pulled, as `--start-group` does), linked into one module
//! by LLVM's linker. A symbol that stays undefined is an error naming it.

use std::collections::{BTreeSet, HashSet};

use inkwell::context::Context;
use inkwell::module::Module;

use super::archive::Archive;
use crate::llvm::edit::{self, Linkage};

/// One input of the link.
pub enum Input {
    /// A bitcode (or LLVM text) object: its name and bytes.
    Object(String, Vec<u8>),
    /// An archive: its name and contents.
    Archive(String, Archive),
}

/// The symbols a module defines and the ones it needs.
fn symbols(m: &Module<'_>) -> (Vec<String>, Vec<String>) {
    let mm = edit::Module::of(m);
    let (mut defs, mut needs) = (Vec::new(), Vec::new());
    // Aliases define symbols too (C++'s complete-object constructors and destructors are
    // aliases of the base-object ones).
    for v in mm
        .functions()
        .into_iter()
        .chain(mm.globals())
        .chain(mm.aliases())
    {
        let name = v.name();
        if name.is_empty() || name.starts_with("llvm.") {
            continue;
        }
        match (v.is_declaration(), v.linkage()) {
            (true, Linkage::LLVMExternalWeakLinkage) => {}
            (true, _) => {
                if v.has_uses() {
                    needs.push(name)
                }
            }
            (false, Linkage::LLVMInternalLinkage | Linkage::LLVMPrivateLinkage) => {}
            (false, _) => defs.push(name),
        }
    }
    (defs, needs)
}

/// Links `inputs` into one module; `roots` are symbols the program needs whoever refers
/// to them (the entry point). `allowed_undefined` may stay undefined.
pub fn link<'c>(
    ctx: &'c Context,
    inputs: Vec<Input>,
    roots: &[&str],
    allowed_undefined: &[&str],
) -> Result<Module<'c>, String> {
    let mut modules: Vec<Module<'c>> = Vec::new();
    let mut defined: HashSet<String> = HashSet::new();
    let mut needed: BTreeSet<String> = roots.iter().map(|s| s.to_string()).collect();
    let mut add = |m: Module<'c>, defined: &mut HashSet<String>, needed: &mut BTreeSet<String>| {
        // A fused multiply-add or a transcendental is the C library's to compute.
        crate::simplify::intrinsics_to_libm(&m);
        let (d, n) = symbols(&m);
        for s in d {
            needed.remove(&s);
            defined.insert(s);
        }
        for s in n {
            if !defined.contains(&s) {
                needed.insert(s);
            }
        }
        modules.push(m);
    };
    let mut archives = Vec::new();
    for input in inputs {
        match input {
            Input::Object(name, bytes) => {
                let m = crate::llvm::parse_ir(ctx, &bytes, &name)
                    .map_err(|e| format!("{name}: {e}"))?;
                add(m, &mut defined, &mut needed);
            }
            Input::Archive(name, a) => archives.push((name, a, HashSet::new())),
        }
    }
    loop {
        let mut pulled = false;
        for (name, a, taken) in archives.iter_mut() {
            loop {
                let mut more = false;
                let wanted: Vec<String> = needed.iter().cloned().collect();
                for sym in wanted {
                    if !needed.contains(&sym) {
                        continue;
                    }
                    let Some(off) = a.symbols.as_ref().and_then(|t| t.get(&sym)).copied() else {
                        continue;
                    };
                    if !taken.insert(off) {
                        continue;
                    }
                    let member = a
                        .member_at(off)
                        .ok_or_else(|| format!("{name}: its symbol table names no member"))?;
                    let label = format!("{name}({})", member.name);
                    let m = crate::llvm::parse_ir(ctx, a.data(member), &label)
                        .map_err(|e| format!("{label}: {e}"))?;
                    add(m, &mut defined, &mut needed);
                    more = true;
                    pulled = true;
                }
                if !more {
                    break;
                }
            }
        }
        if !pulled {
            break;
        }
    }
    let missing: Vec<String> = needed
        .into_iter()
        .filter(|s| !allowed_undefined.contains(&s.as_str()))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "undefined symbol{}: {}",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        ));
    }
    let mut it = modules.into_iter();
    let mut first = it.next().ok_or("nothing to link")?;
    for m in it {
        edit::link_into(&mut first, m).map_err(|e| format!("linking: {}", e.trim()))?;
    }
    Ok(first)
}

/// Reads an archive's members' symbols when it has no table of its own (an archive made
/// without one, `ar` with no `s`): every member is parsed.
pub fn index(ctx: &Context, a: &mut Archive, name: &str) -> Result<(), String> {
    if a.symbols.is_some() {
        return Ok(());
    }
    let mut table = std::collections::HashMap::new();
    for m in &a.members {
        let label = format!("{name}({})", m.name);
        let module =
            crate::llvm::parse_ir(ctx, a.data(m), &label).map_err(|e| format!("{label}: {e}"))?;
        for s in symbols(&module).0 {
            table.entry(s).or_insert(m.offset);
        }
    }
    a.symbols = Some(table);
    Ok(())
}
