//! Issue 2's memory target, held: reading any real pexe takes at its peak less than four
//! times the file's size beyond the module it builds (what is still allocated when the
//! read returns). One test in its own binary, so that nothing else allocates while it
//! counts.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use pnacl::bitcode;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        let now = CURRENT.fetch_add(n, Ordering::Relaxed) + n;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

fn shrank(n: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        CURRENT.fetch_sub(n, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        grew(l.size());
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        shrank(l.size());
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        // Counted as the old block freed and the new one allocated, both in use at once
        // (as a move to a new place has them).
        grew(new);
        shrank(l.size());
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak bytes in use during a read of `data` (counted from zero at its start; what it
/// frees before returning included), and the bytes still in use after it: the module.
fn measure(data: &[u8]) -> (usize, usize) {
    // An uncounted read first: the tables built once a process (the intrinsics', on the
    // first name looked up) are not the module's.
    let _ = bitcode::read(data);
    CURRENT.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let m = bitcode::read(data);
    let (peak, model) = (
        PEAK.load(Ordering::Relaxed),
        CURRENT.load(Ordering::Relaxed),
    );
    COUNTING.store(false, Ordering::Relaxed);
    m.expect("a real pexe reads");
    (peak, model)
}

#[test]
fn peak_memory_is_under_four_times_the_file_beyond_the_module() {
    let mut worst = (0.0, String::new());
    for p in common::valid_pexes() {
        let data = std::fs::read(&p).unwrap();
        let (peak, model) = measure(&data);
        let ratio = (peak - model) as f64 / data.len() as f64;
        eprintln!(
            "{:24} file {:8} B  peak {:9} B  module {:9} B  (peak - module) / file {ratio:.2}",
            common::name(&p),
            data.len(),
            peak,
            model
        );
        assert!(
            ratio < 4.0,
            "{}: peak {peak} B is {ratio:.2}x the file's {} B beyond the module's {model} B",
            p.display(),
            data.len()
        );
        if ratio > worst.0 {
            worst = (ratio, common::name(&p));
        }
    }
    eprintln!("worst: {} at {:.2}x", worst.1, worst.0);
}
