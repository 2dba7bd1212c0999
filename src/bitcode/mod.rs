//! The PNaCl wire format: header, block ids and record codes, and the reader that turns
//! records into an `ir::Module`.

pub mod codes;
pub mod header;
pub mod read;

pub use header::Header;
pub use read::{decode_signrot, encode_signrot, read, Event, Parser};
