//! Issue 2's memory target, held: reading any real pexe takes at its peak less than four
//! times the file's size beyond the module it builds (what is still allocated when the
//! read returns). One test in its own binary, so that nothing else allocates while it
//! counts.

mod common;
mod counting;

use pnacl::bitcode;

#[global_allocator]
static ALLOC: counting::Counting = counting::Counting;

/// Peak bytes in use during a read of `data` (counted from zero at its start; what it
/// frees before returning included), and the bytes still in use after it: the module.
fn measure(data: &[u8]) -> (usize, usize) {
    // An uncounted read first: the tables built once a process (the intrinsics', on the
    // first name looked up) are not the module's.
    let _ = bitcode::read(data);
    let (m, peak, model) = counting::measure(|| bitcode::read(data));
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
