//! Runs the ABI check N times on one module read once (for profiling the check):
//! checkloop FILE [N]
fn main() {
    let mut a = std::env::args().skip(1);
    let path = a.next().expect("checkloop FILE [N]");
    let n: usize = a.next().map_or(100, |s| s.parse().unwrap());
    let data = std::fs::read(path).unwrap();
    let m = pnacl::bitcode::read(&data).unwrap();
    let t = std::time::Instant::now();
    for _ in 0..n {
        let f = pnacl::abi::check(std::hint::black_box(&m), &pnacl::abi::Options::default());
        assert!(f.is_empty());
    }
    let dt = t.elapsed().as_secs_f64() / n as f64;
    eprintln!("{:.3} ms/check", dt * 1e3);
}
