//! Helpers shared by the integration tests: where the real pexes are.
#![allow(dead_code)]

use std::path::PathBuf;

/// `../shared/pexes` beside the checkout (or `$PNACL_SHARED/pexes`).
pub fn pexes_dir() -> PathBuf {
    let shared = std::env::var_os("PNACL_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let dir = shared.join("pexes");
    assert!(
        dir.is_dir(),
        "the real pexes are expected in {}",
        dir.display()
    );
    dir
}

/// The `.pexe` files of `pexes/<sub>`, sorted.
pub fn pexes(sub: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(pexes_dir().join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pexe"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no pexes in {sub}");
    v
}

/// Every valid real pexe (run/ and parse/).
pub fn valid_pexes() -> Vec<PathBuf> {
    let mut v = pexes("run");
    v.extend(pexes("parse"));
    v
}

/// Every pexe of pexes/ (run/, parse/ and bad/).
pub fn all_pexes() -> Vec<PathBuf> {
    let mut v = valid_pexes();
    v.extend(pexes("bad"));
    v
}

pub fn name(p: &std::path::Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// `m` without the bit positions the reader records (to compare models read from
/// different files).
pub fn without_positions(mut m: pnacl::ir::Module) -> pnacl::ir::Module {
    for f in &mut m.functions {
        f.pos = 0;
        if let Some(b) = &mut f.body {
            b.pos = 0;
            b.inst_pos.clear();
        }
    }
    for g in &mut m.globals {
        g.pos = 0;
    }
    m
}
