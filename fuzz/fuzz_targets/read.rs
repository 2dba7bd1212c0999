//! The reader must give a module or an error for any input, without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = pnacl::bitcode::read(data);
});
