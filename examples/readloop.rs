fn main() {
    let arg = std::env::args().nth(1).unwrap();
    let n: usize = std::env::args().nth(2).map_or(50, |s| s.parse().unwrap());
    let data = std::fs::read(&arg).unwrap();
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(pnacl::bitcode::read(&data).unwrap());
    }
    let dt = t.elapsed().as_secs_f64() / n as f64;
    println!(
        "{:.2} ms, {:.1} MB/s",
        dt * 1e3,
        data.len() as f64 / dt / 1e6
    );
}
