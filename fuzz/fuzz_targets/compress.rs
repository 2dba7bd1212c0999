//! pnacl-compress changes no record: any input the reader accepts, compressed, reads back
//! to the same model (bit positions aside) and the same records, and compressing never
//! fails on it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = pnacl::bitcode::read(data) else {
        return;
    };
    let out = pnacl::bitcode::compress::compress(data).expect("a pexe the reader accepts compresses");
    let back = pnacl::bitcode::read(&out).expect("the compressed pexe reads");
    assert!(back.without_positions() == m.without_positions(), "the model survives");
    let text = |d: &[u8]| pnacl::bitcode::text::records_text(d, true).unwrap();
    assert_eq!(text(data), text(&out), "the records survive");
});
