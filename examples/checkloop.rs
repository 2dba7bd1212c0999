//! Runs a check N times on one module read once (for profiling the checks):
//! checkloop FILE [N] [abi|ssa|all]   (`abi` by default: `abi::check`; `ssa` is
//! `abi::check_ssa`, `all` is `abi::check_all`, what the tools run)
fn main() {
    let mut a = std::env::args().skip(1);
    let path = a.next().expect("checkloop FILE [N] [abi|ssa|all]");
    let n: usize = a.next().map_or(100, |s| s.parse().unwrap());
    let mode = a.next().unwrap_or_else(|| "abi".into());
    let data = std::fs::read(path).unwrap();
    let m = pnacl::bitcode::read(&data).unwrap();
    let opts = pnacl::abi::Options::default();
    let check = |m: &pnacl::ir::Module| match mode.as_str() {
        "abi" => pnacl::abi::check(m, &opts),
        "ssa" => pnacl::abi::check_ssa(m),
        "all" => pnacl::abi::check_all(m, &opts),
        other => panic!("unknown mode {other}: abi, ssa or all"),
    };
    let t = std::time::Instant::now();
    for _ in 0..n {
        let f = check(std::hint::black_box(&m));
        assert!(f.is_empty());
    }
    let dt = t.elapsed().as_secs_f64() / n as f64;
    eprintln!("{:.3} ms/{mode} check", dt * 1e3);
}
