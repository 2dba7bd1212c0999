fn main() {
    for arg in std::env::args().skip(1) {
        let data = std::fs::read(&arg).unwrap();
        let t = std::time::Instant::now();
        match pnacl::bitcode::read(&data) {
            Ok(m) => println!("{arg}: ok {:?} in {:?}", m.counts(), t.elapsed()),
            Err(e) => println!("{arg}: ERROR {e}"),
        }
    }
}
