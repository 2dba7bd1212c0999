//! The ABI checker on the model: every real pexe is clean.

mod common;

#[test]
fn every_real_pexe_is_clean() {
    for p in common::valid_pexes() {
        let m = pnacl::bitcode::read(&std::fs::read(&p).unwrap()).unwrap();
        let f = pnacl::abi::check(&m, &pnacl::abi::Options::default());
        assert!(f.is_empty(), "{}:\n{}", p.display(), pnacl::abi::render(&f));
    }
}

#[test]
fn the_2014_strictness_rejects_what_real_pexes_contain() {
    // thread.pexe holds release stores (memory order 4): spec/001 allows the C11 orders,
    // the 2014 checker allowed seq_cst only (abicheck.md §8).
    let p = common::pexes_dir().join("run/thread.pexe");
    let m = pnacl::bitcode::read(&std::fs::read(&p).unwrap()).unwrap();
    let strict = pnacl::abi::Options {
        historical_strictness: true,
    };
    let f = pnacl::abi::check(&m, &strict);
    assert!(!f.is_empty());
    assert!(
        f.iter()
            .all(|x| x.msg.contains("disallowed: invalid memory order:")),
        "{f:?}"
    );
}
