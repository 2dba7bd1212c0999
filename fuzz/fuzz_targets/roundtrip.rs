//! Reader and writer are mirror images: any input the reader accepts, written back by the
//! writer, reads back to the same model (bit positions aside), and writing that model
//! again gives the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = pnacl::bitcode::read(data) else {
        return;
    };
    let out = pnacl::bitcode::write(&m).expect("a model the reader built can be written");
    let back = pnacl::bitcode::read(&out).expect("the writer's output reads");
    let again = pnacl::bitcode::write(&back).expect("and writes again");
    assert_eq!(out, again, "writing is deterministic");
    assert!(back.without_positions() == m.without_positions(), "the model survives");
});
