//! The two ABI checkers name the same rules: every LLVM module of the abicheck lit suite
//! (the `#--- NAME.ll` parts of `lit-tests/abicheck/*.test` and `Inputs/*.ll`), checked as
//! LLVM text by `llvm::abicheck` and, frozen to a pexe where the pexe format can hold it,
//! read back and checked by `abi::check_all`, breaks the same rules in both forms (rules a
//! pexe cannot break, `Rule::in_pexe`, aside).
#![cfg(feature = "llvm")]

use std::collections::BTreeSet;
use std::path::Path;

use inkwell::context::Context;
use pnacl::abi::{self, Rule};

/// The `.ll` parts of a lit test (split-file's `#--- NAME` markers).
fn ll_parts(text: &str) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    let mut cur: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("#--- ") {
            parts.extend(cur.take());
            cur = Some((name.trim().to_string(), String::new()));
        } else if let Some((_, body)) = cur.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    parts.extend(cur);
    parts.retain(|(n, _)| n.ends_with(".ll"));
    parts
}

fn modules() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("lit-tests/abicheck");
    let mut out = Vec::new();
    let mut tests: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "test"))
        .collect();
    tests.sort();
    for t in tests {
        let text = std::fs::read_to_string(&t).unwrap();
        let stem = t.file_stem().unwrap().to_string_lossy().to_string();
        for (n, body) in ll_parts(&text) {
            out.push((format!("{stem}.test:{n}"), body));
        }
    }
    let mut inputs: Vec<_> = std::fs::read_dir(dir.join("Inputs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    inputs.sort();
    for p in inputs {
        out.push((
            format!("Inputs/{}", p.file_name().unwrap().to_string_lossy()),
            std::fs::read_to_string(&p).unwrap(),
        ));
    }
    out
}

/// The modules whose two forms differ by design, in one rule each, and why: pnacl-freeze
/// does not write the part that breaks it, as Google's did not (notes/writer.md §4,
/// abicheck.md §7.2), or only an LLVM module meets LLVM's verifier. Each must differ in
/// exactly that rule, or it does not belong here.
const DIFFER: &[(&str, Rule, &str)] = &[
    (
        "function-attributes.test:varargs.ll",
        Rule::FunctionTypes,
        "every function type is written with vararg 0",
    ),
    (
        "linkage.test:two.ll",
        Rule::EntryPoints,
        "a global variable has no linkage in a pexe: __pnacl_pso_root is internal",
    ),
    (
        "visibility.test:fail.ll",
        Rule::EntryPoints,
        "a global variable has no linkage in a pexe: the hidden external @g is internal",
    ),
    (
        "memory-access.test:volatile.ll",
        Rule::LoadStoreAlignment,
        "volatile and atomic loads and stores are written as plain ones, and an atomic \
         one's align 4 on an i32 is then the finding",
    ),
    (
        "both-forms.test:intrinsic-address.ll",
        Rule::WellFormed,
        "LLVM's verifier rejects the LLVM module; the pexe's reader has no such check",
    ),
];

fn in_pexe(rules: impl IntoIterator<Item = Rule>) -> BTreeSet<Rule> {
    rules.into_iter().filter(|r| r.in_pexe()).collect()
}

#[test]
fn both_checkers_name_the_same_rules() {
    let mut compared = 0;
    let mut breaking = 0;
    let mut seen = BTreeSet::new();
    let mut failures = Vec::new();
    for (name, text) in modules() {
        let ctx = Context::create();
        let Ok(m) = pnacl::llvm::parse_ir(&ctx, text.as_bytes(), &name) else {
            continue; // lit tests of the text parser's own errors
        };
        let opts = pnacl::llvm::abicheck::Options {
            allow_debug_metadata: true,
            historical_strictness: false,
            ignore_named_metadata: false,
        };
        let mut llvm_rules: Vec<Rule> = pnacl::llvm::abicheck::check(&m, &opts)
            .iter()
            .map(|f| f.rule)
            .collect();
        if m.verify().is_err() {
            llvm_rules.push(Rule::WellFormed);
        }
        // Freezing refuses only what the pexe format has no room for.
        let Ok(model) = pnacl::llvm::import::import_with(&m, false) else {
            continue;
        };
        let bytes = pnacl::bitcode::write(&model)
            .unwrap_or_else(|e| panic!("{name}: imported but not written: {}", e.msg()));
        let read = match pnacl::bitcode::read(&bytes) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{name}: frozen but not read back: {e}"));
                continue;
            }
        };
        let pexe_rules: Vec<Rule> = abi::check_all(&read, &abi::Options::default())
            .iter()
            .map(|f| f.rule)
            .collect();
        let (mut l, mut p) = (in_pexe(llvm_rules), in_pexe(pexe_rules));
        compared += 1;
        if let Some((_, rule, why)) = DIFFER.iter().find(|(n, ..)| *n == name) {
            let differ: BTreeSet<Rule> = l.symmetric_difference(&p).copied().collect();
            if differ != BTreeSet::from([*rule]) {
                failures.push(format!(
                    "{name}: listed as differing in {rule:?} ({why}), but as LLVM {l:?}, as a \
                     pexe {p:?}"
                ));
            }
            l.remove(rule);
            p.remove(rule);
        }
        breaking += usize::from(!l.is_empty());
        seen.extend(l.iter().copied());
        if l != p {
            failures.push(format!("{name}: as LLVM {l:?}, as a pexe {p:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "the checkers disagree:\n{}",
        failures.join("\n")
    );
    // The suite holds modules of both kinds, and breaks every rule a pexe can break in a
    // module that can be frozen; a harness that compares nothing fails.
    assert!(compared >= 50, "only {compared} modules compared");
    assert!(
        breaking >= 13,
        "only {breaking} rule-breaking modules compared"
    );
    let missing: Vec<Rule> = Rule::ALL
        .iter()
        .copied()
        .filter(|r| r.in_pexe() && !seen.contains(r))
        .collect();
    assert!(missing.is_empty(), "no module compared breaks {missing:?}");
}
