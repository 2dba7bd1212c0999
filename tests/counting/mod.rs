//! The system allocator, counting the bytes in use and their peak while `measure` runs
//! (and only then: elsewhere each call pays one predictable branch, not the atomic
//! updates). Used by tests/memory.rs and benches/read.rs, each of which installs it with
//! `#[global_allocator]`. (tests/mutate.rs keeps its own, always counting: its tests run
//! on several threads, whose frees would take a count started from zero below zero.)
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        let now = CURRENT.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

fn shrank(by: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        CURRENT.fetch_sub(by, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            grew(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        shrank(l.size());
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            // Counted as the new block allocated while the old one is still held, then the
            // old one freed (as a move to a new place has them): the peak is not
            // understated where the block moves.
            grew(new);
            shrank(l.size());
        }
        q
    }
}

/// Runs `f` with the count started from zero: its result, the peak bytes in use during
/// it, and the bytes still in use after it (what it allocated and kept). Nothing else may
/// run meanwhile: other threads' allocations would be counted too, and their frees of
/// older blocks would wrap the count.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, usize, usize) {
    CURRENT.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let r = f();
    COUNTING.store(false, Ordering::Relaxed);
    (
        r,
        PEAK.load(Ordering::Relaxed),
        CURRENT.load(Ordering::Relaxed),
    )
}
