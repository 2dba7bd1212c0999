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

/// The real pexes not written with pnacl-freeze's own abbreviations (pnacl-compress's
/// file-specific ones, or an older writer's set): their records come back from the model,
/// their bits do not.
pub const OTHER_ABBREVIATIONS: [&str; 3] = ["simple.pexe", "star.pexe", "stockfish.pexe"];

/// Whether pnacl-freeze's abbreviations wrote `p` (its bits come back from the model).
pub fn freeze_wrote(p: &std::path::Path) -> bool {
    !OTHER_ABBREVIATIONS.contains(&name(p).as_str())
}

pub fn name(p: &std::path::Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

/// Where two sequences first differ (the shorter one's length if one is a prefix of the
/// other).
pub fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}
