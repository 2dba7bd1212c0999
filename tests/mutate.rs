//! The reader and the disassembler on mutated real pexes: every mutation gives a module or
//! an error, never a panic, in bounded time, and never allocates in proportion to a count
//! the file merely claims (peak allocation stays within a fixed multiple of the file size).

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pnacl::{bitcode, dis};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        CURRENT.fetch_sub(l.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new > l.size() {
                let now = CURRENT.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                CURRENT.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// xorshift64*: reproducible mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(data: &[u8], rng: &mut Rng) -> (Vec<u8>, &'static str) {
    let mut d = data.to_vec();
    // Keep the header intact most of the time so mutations reach the bitstream.
    let lo = if rng.below(10) == 0 { 0 } else { 16 };
    let span = d.len() - lo;
    let kind = match rng.below(6) {
        0 | 1 => {
            for _ in 0..1 + rng.below(8) {
                let bit = lo * 8 + rng.below(span * 8);
                d[bit / 8] ^= 1 << (bit % 8);
            }
            "bit flips"
        }
        2 => {
            let keep = lo + rng.below(span);
            d.truncate(if rng.below(2) == 0 { keep & !3 } else { keep });
            "truncation"
        }
        3 => {
            let len = 1 + rng.below(64.min(span));
            let from = lo + rng.below(span - len + 1);
            let to = lo + rng.below(span - len + 1);
            let chunk = d[from..from + len].to_vec();
            d[to..to + len].copy_from_slice(&chunk);
            "spliced range"
        }
        4 => {
            let at = (lo + rng.below(span - 4)) & !3;
            let v = match rng.below(3) {
                0 => u32::MAX,
                1 => 0x7fff_ffff,
                _ => rng.next() as u32,
            };
            d[at..at + 4].copy_from_slice(&v.to_le_bytes());
            "huge word"
        }
        _ => {
            let at = lo + rng.below(span);
            let len = 4 * (1 + rng.below(8));
            let junk: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            d.splice(at..at, junk);
            "inserted bytes"
        }
    };
    (d, kind)
}

fn check(data: &[u8], file: &str, seed: u64, kind: &str, with_dis: bool) {
    let budget = 64 * data.len() + (8 << 20);
    PEAK.store(CURRENT.load(Ordering::Relaxed), Ordering::Relaxed);
    let base = CURRENT.load(Ordering::Relaxed);
    let t = Instant::now();
    let r = std::panic::catch_unwind(|| {
        let _ = bitcode::read(data);
    });
    assert!(
        r.is_ok(),
        "{file}: the reader panicked on a {kind} (seed {seed})"
    );
    // The fast paths of `read` change nothing: the item-by-item reader gives the same
    // module, or the same error at the same position.
    let (fast, plain) = (bitcode::read(data), bitcode::read_itemwise(data));
    assert!(
        fast == plain,
        "{file}: on a {kind} (seed {seed}), read gives {:?} but read_itemwise {:?}",
        fast.as_ref().map(|m| m.counts()),
        plain.as_ref().map(|m| m.counts())
    );
    // Nor does the way records are decoded: with decoding plans (files of
    // `PLANS_MIN_BYTES` or more) or from the abbreviations' compact form (smaller ones).
    let other = bitcode::read_with_plans(data, !pnacl::bitstream::Reader::plans_pay_for(data));
    assert!(
        fast == other,
        "{file}: on a {kind} (seed {seed}), read gives {:?} but the other decoding {:?}",
        fast.as_ref().map(|m| m.counts()),
        other.as_ref().map(|m| m.counts())
    );
    let peak = PEAK.load(Ordering::Relaxed) - base;
    assert!(
        peak <= budget,
        "{file}: reading a {kind} (seed {seed}) allocated {peak} bytes"
    );
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "{file}: reading a {kind} (seed {seed}) took {:?}",
        t.elapsed()
    );
    if with_dis {
        let r = std::panic::catch_unwind(|| {
            let mut sink = std::io::sink();
            let _ = dis::disassemble(data, &dis::Options::default(), &mut sink);
        });
        assert!(
            r.is_ok(),
            "{file}: pnacl-bcdis panicked on a {kind} (seed {seed})"
        );
    }
}

#[test]
fn mutated_real_pexes_give_a_module_or_an_error() {
    let per_file: usize = std::env::var("PNACL_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    let mut total = 0;
    let started = Instant::now();
    for (i, p) in common::all_pexes().iter().enumerate() {
        let file = common::name(p);
        let data = std::fs::read(p).unwrap();
        // Large files get fewer mutations: the same code runs on every one of them.
        let n = if data.len() > 200_000 {
            per_file / 8
        } else {
            per_file
        };
        for k in 0..n {
            let seed = ((i as u64) << 32) | k as u64 | 1;
            let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let (m, kind) = mutate(&data, &mut rng);
            check(&m, &file, seed, kind, k % 4 == 0);
            total += 1;
        }
    }
    eprintln!("{total} mutations checked in {:?}", started.elapsed());
    assert!(total >= 5000);
}

#[test]
fn counts_claimed_by_the_file_are_not_trusted() {
    // Records claiming huge counts: a type table of 2^32-1 entries, a record with 2^40
    // operands, an array of 2^40 elements. Each must be an error, without allocating.
    let cases = [
        "1: <65535, 8, 2>\n3: <1, 1>\n1: <65535, 17, 2>\n3: <1, 4294967295>\n0: <65534>\n0: <65534>\n",
        "1: <65535, 8, 2>\n3: <1, 1>\n1: <65535, 19, 2>\n3: <5, 4294967295>\n0: <65534>\n0: <65534>\n",
    ];
    for c in cases {
        let recs = pnacl::bitcode::text::parse(&format!(
            "<65532, 80, 69, 88, 69, 1, 0, 8, 0, 17, 0, 4, 0, 2, 0, 0, 0>\n{c}"
        ))
        .unwrap();
        let data = pnacl::bitcode::text::assemble(&recs, false).unwrap();
        check(&data, "claimed count", 0, "handmade file", true);
        assert!(bitcode::read(&data).is_err());
    }
    // An unabbreviated record claiming 2^40 operands (patched into a valid file).
    let mut w = pnacl::bitstream::Writer::with_prefix(&bitcode::header::encode());
    w.enter_block(8, 2);
    w.bits.emit(3, 2);
    w.bits.emit_vbr(1, 6);
    w.bits.emit_vbr(1 << 40, 6);
    w.bits.emit(0, 32);
    w.exit_block();
    let data = w.into_bytes();
    check(&data, "claimed operands", 0, "handmade file", true);
    let e = bitcode::read(&data).unwrap_err();
    assert!(e.msg().contains("operands"), "{e}");
}
