//! The reader must give a module or an error for any input, without panicking, and its
//! fast paths must change nothing: the item-by-item reader gives the same module or the
//! same error, and so does the other way of decoding records (with decoding plans or
//! from the abbreviations' compact form, whichever `read` did not take for the input's
//! size).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let fast = pnacl::bitcode::read(data);
    let plain = pnacl::bitcode::read_itemwise(data);
    assert!(fast == plain, "read and read_itemwise differ");
    let planned = pnacl::bitstream::Reader::plans_pay_for(data);
    let other = pnacl::bitcode::read_with_plans(data, !planned);
    assert!(fast == other, "reads with and without decoding plans differ");
});
