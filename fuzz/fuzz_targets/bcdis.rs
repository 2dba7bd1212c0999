//! The disassembler must print something and stop for any input, without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut sink = std::io::sink();
    let _ = pnacl::dis::disassemble(data, &pnacl::dis::Options::default(), &mut sink);
});
