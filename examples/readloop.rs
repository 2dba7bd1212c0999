//! Reads a pexe N times (for profiling the reader):  readloop FILE [N] [bits|fast|check|ssa]
//! With `bits`, only the bitstream layer runs, through the generic item API (and the item
//! counts are printed); with `fast`, the records go through the reader's own BMI1/BMI2
//! fast path with no parser (as `bitcode::read` takes them); with `check`, each read is
//! followed by the ABI check; with `ssa`, by the ABI and SSA checks (`abi::check_all`).
use pnacl::bitstream::{Item, Reader};

fn main() {
    let mut a = std::env::args().skip(1);
    let path = a.next().expect("readloop FILE [N] [bits|fast|check|ssa]");
    let n: usize = a.next().map_or(100, |s| s.parse().unwrap());
    let mode = a.next().unwrap_or_default();
    let bits = mode == "bits";
    // Detected before the loop: `fast_records` may only run where the CPU has both.
    let fast = (mode == "fast")
        .then(|| pnacl::bitstream::Bmi2::detect().expect("`fast` needs a CPU with BMI1 and BMI2"));
    let check = mode == "check";
    let ssa = mode == "ssa";
    let data = std::fs::read(path).unwrap();
    let start = pnacl::bitcode::header::parse(&data).unwrap().size as u64 * 8;
    let t = std::time::Instant::now();
    let (mut records, mut ops) = (0u64, 0u64);
    for _ in 0..n {
        if let Some(p) = fast {
            // SAFETY: `p` exists, so the CPU has BMI1 and BMI2, the features
            // `fast_records` is compiled for.
            let (r, o) = unsafe { fast_records(&data, start, p) };
            records += r;
            ops += o;
        } else if bits {
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
            if ssa {
                let f = pnacl::abi::check_all(&m, &pnacl::abi::Options::default());
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
    if bits || fast.is_some() {
        eprintln!(
            "{} records, {} operands per read",
            records / n as u64,
            ops / n as u64
        );
    }
}

/// The records of the stream through the reader's fast path (BMI1/BMI2), as
/// `bitcode::read` takes them, with no parser: the bitstream layer's share of a read.
#[target_feature(enable = "bmi1,bmi2")]
unsafe fn fast_records(data: &[u8], start: u64, p: pnacl::bitstream::Bmi2) -> (u64, u64) {
    let mut r = Reader::new(std::hint::black_box(data), start).unwrap();
    let (mut records, mut ops) = (0u64, 0u64);
    loop {
        // Small records through the reader's loop for them, as `bitcode::read` takes them.
        let _ = r.simple_records(p, |_, _, _, o| -> Result<(), ()> {
            records += 1;
            ops += o.len() as u64;
            Ok(())
        });
        if r.next_record_with(p).unwrap().is_some() {
            records += 1;
            ops += r.record_operands().1.len() as u64;
            continue;
        }
        if r.next_item().unwrap() == Item::Eof {
            return (records, ops);
        }
    }
}
