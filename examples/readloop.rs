//! Reads a pexe N times (for profiling the reader):  readloop FILE [N] [bits|check]
//! With `bits`, only the bitstream layer runs (and the item counts are printed); with
//! `check`, each read is followed by the ABI check.
use pnacl::bitstream::{Item, Reader};

fn main() {
    let mut a = std::env::args().skip(1);
    let path = a.next().expect("readloop FILE [N] [bits|check]");
    let n: usize = a.next().map_or(100, |s| s.parse().unwrap());
    let mode = a.next().unwrap_or_default();
    let bits = mode == "bits";
    let check = mode == "check";
    let data = std::fs::read(path).unwrap();
    let start = pnacl::bitcode::header::parse(&data).unwrap().size as u64 * 8;
    let t = std::time::Instant::now();
    let (mut records, mut ops) = (0u64, 0u64);
    for _ in 0..n {
        if bits {
            let mut r = Reader::new(&data, start).unwrap();
            loop {
                match r.next_item().unwrap() {
                    Item::Eof => break,
                    Item::Record { ops: o, .. } => {
                        records += 1;
                        ops += o.len() as u64;
                    }
                    _ => {}
                }
            }
        } else {
            let m = pnacl::bitcode::read(std::hint::black_box(&data)).unwrap();
            if check {
                let f = pnacl::abi::check(&m, &pnacl::abi::Options::default());
                assert!(f.is_empty(), "{f:?}");
            }
            std::hint::black_box(m);
        }
    }
    let dt = t.elapsed().as_secs_f64() / n as f64;
    eprintln!(
        "{:.3} ms/read, {:.1} MB/s",
        dt * 1e3,
        data.len() as f64 / dt / 1e6
    );
    if bits {
        eprintln!(
            "{} records, {} operands per read",
            records / n as u64,
            ops / n as u64
        );
    }
}
