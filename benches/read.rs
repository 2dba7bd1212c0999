//! Parse + full validation throughput of the reader (bitcode::read) on real pexes, and
//! the peak memory one read takes. Run with scripts/bench. Throughput is in decimal MB/s
//! (10^6 bytes a second), the unit of the targets.

use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

#[path = "../tests/counting/mod.rs"]
mod counting;

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

fn pexes() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/pexes");
    let mut v = Vec::new();
    for sub in ["run", "parse"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for p in files {
            if p.extension().is_some_and(|e| e == "pexe") {
                v.push((
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(&p).unwrap(),
                ));
            }
        }
    }
    v
}

/// Peak bytes allocated while reading `data` (the model included), and the model's size
/// at the end (what stays allocated).
fn memory(data: &[u8]) -> (usize, usize) {
    // Counted from zero: only what the read allocates (and frees) is seen.
    let (m, peak, model) = counting::measure(|| pnacl::bitcode::read(data).unwrap());
    drop(m);
    (peak, model)
}

fn bench(c: &mut Criterion) {
    let files = pexes();
    let mut g = c.benchmark_group("read");
    for name in ["stockfish.pexe", "path_tracer.pexe"] {
        let data = &files.iter().find(|(n, _)| n == name).unwrap().1;
        g.throughput(Throughput::BytesDecimal(data.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| pnacl::bitcode::read(std::hint::black_box(data)).unwrap())
        });
    }
    // The bitstream layer alone (abbreviations applied, records decoded, nothing built).
    let data = &files.iter().find(|(n, _)| n == "stockfish.pexe").unwrap().1;
    g.throughput(Throughput::BytesDecimal(data.len() as u64));
    g.bench_function("bitstream-only/stockfish.pexe", |b| {
        b.iter(|| {
            let h = pnacl::bitcode::header::parse(data).unwrap();
            let mut r = pnacl::bitstream::Reader::new(data, h.size as u64 * 8).unwrap();
            let mut n = 0u64;
            loop {
                match r.next_item().unwrap() {
                    pnacl::bitstream::Item::Eof => break,
                    pnacl::bitstream::Item::Record { ops, .. } => n += ops.len() as u64,
                    _ => n += 1,
                }
            }
            n
        })
    });
    let total: u64 = files.iter().map(|(_, d)| d.len() as u64).sum();
    g.throughput(Throughput::BytesDecimal(total));
    g.bench_function("all-pexes", |b| {
        b.iter(|| {
            for (_, d) in &files {
                pnacl::bitcode::read(std::hint::black_box(d)).unwrap();
            }
        })
    });
    g.finish();

    // The ABI check after the read (issue 3): read + check against read alone.
    let mut g = c.benchmark_group("read+abicheck");
    let data = &files.iter().find(|(n, _)| n == "stockfish.pexe").unwrap().1;
    g.throughput(Throughput::BytesDecimal(data.len() as u64));
    g.bench_function("stockfish.pexe", |b| {
        b.iter(|| {
            let m = pnacl::bitcode::read(std::hint::black_box(data)).unwrap();
            let f = pnacl::abi::check(&m, &pnacl::abi::Options::default());
            assert!(f.is_empty());
            (m, f)
        })
    });
    g.finish();
    // Side by side: read and read + check alternate.
    let read_only = || drop(pnacl::bitcode::read(data).unwrap());
    let read_check = || {
        let m = pnacl::bitcode::read(data).unwrap();
        drop(pnacl::abi::check(&m, &pnacl::abi::Options::default()));
    };
    let (read, checked, ratio) = alternate(60, &read_only, &read_check);
    println!(
        "\nstockfish.pexe, 60 alternating pairs: read {:.2} ms, read + ABI check {:.2} ms (medians); \
         median ratio {:.3}x (target < 1.2x)",
        read * 1e3,
        checked * 1e3,
        ratio
    );
    // The SSA rule (`abi::check_ssa`), which the tools check besides: read + every check
    // against read alone.
    let read_all = || {
        let m = pnacl::bitcode::read(data).unwrap();
        drop(pnacl::abi::check_all(&m, &pnacl::abi::Options::default()));
    };
    let (read, all, ratio) = alternate(60, &read_only, &read_all);
    println!(
        "stockfish.pexe, 60 alternating pairs: read {:.2} ms, read + ABI + SSA check {:.2} ms \
         (medians); median ratio {:.3}x",
        read * 1e3,
        all * 1e3,
        ratio
    );
    #[cfg(feature = "llvm")]
    llvm_reference(data);
    // (The same in every build: scripts/bench shows it for the plain one only.)
    if std::env::var_os("PNACL_BENCH_NO_MEMORY").is_some() {
        return;
    }
    println!("\npeak memory of one read (file, peak, model kept, peak / file size):");
    let mut worst = (0.0f64, "");
    for (n, d) in &files {
        let (peak, model) = memory(d);
        let beyond = (peak - model) as f64 / d.len() as f64;
        println!(
            "  {n:24} file {:8} B  peak {:9} B  model {:9} B  peak/file {:.2}  (peak - model)/file {:.2}",
            d.len(),
            peak,
            model,
            peak as f64 / d.len() as f64,
            beyond
        );
        if beyond > worst.0 {
            worst = (beyond, n);
        }
    }
    println!(
        "  worst (peak - model)/file: {:.2} ({}); target < 4",
        worst.0, worst.1
    );
}

/// Runs `a` and `b` one after the other `pairs` times, so that the machine's drift hits
/// both, and returns the median time of each (seconds) and the median of the pairs'
/// ratios `b / a`.
fn alternate(pairs: usize, a: &dyn Fn(), b: &dyn Fn()) -> (f64, f64, f64) {
    let time = |f: &dyn Fn()| {
        let t = std::time::Instant::now();
        f();
        t.elapsed().as_secs_f64()
    };
    let median = |mut v: Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    let (mut ta, mut tb, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..pairs {
        let x = time(a);
        let y = time(b);
        ta.push(x);
        tb.push(y);
        ratios.push(y / x);
    }
    (median(ta), median(tb), median(ratios))
}

/// The reference, side by side in one run: LLVM 14 reading the same program from its own
/// bitcode (what pnacl-llvm writes for stockfish.pexe, le32) and verifying it, against
/// this reader reading and validating the pexe, in alternating pairs.
#[cfg(feature = "llvm")]
fn llvm_reference(pexe: &[u8]) {
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;
    use inkwell::module::Module;
    use pnacl::llvm::{ExportOptions, Target};

    let model = pnacl::bitcode::read(pexe).unwrap();
    let bc = {
        let ctx = Context::create();
        let m = pnacl::llvm::export(&ctx, &model, &ExportOptions::whole(Target::Le32)).unwrap();
        m.write_bitcode_to_memory().as_slice().to_vec()
    };
    let ours = || drop(pnacl::bitcode::read(std::hint::black_box(pexe)).unwrap());
    let llvm = || {
        let ctx = Context::create();
        let buf = MemoryBuffer::create_from_memory_range_copy(&bc, "stockfish.bc");
        let m = Module::parse_bitcode_from_buffer(&buf, &ctx).unwrap();
        m.verify().unwrap();
    };
    let (x, y, ratio) = alternate(40, &ours, &llvm);
    println!(
        "\nstockfish, 40 alternating pairs (medians): this reader, pexe of {} B: {:.2} ms \
         ({:.0} MB/s); LLVM 14 parse + verify of the same program's bitcode, {} B: {:.2} ms \
         ({:.0} MB/s of its bitcode); LLVM / this reader: {:.2}x (median of the pair ratios)",
        pexe.len(),
        x * 1e3,
        pexe.len() as f64 / x / 1e6,
        bc.len(),
        y * 1e3,
        bc.len() as f64 / y / 1e6,
        ratio
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
