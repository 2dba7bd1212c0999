//! The PNaCl wire format: header, block ids and record codes, the reader that turns
//! records into an `ir::Module`, and the writer that turns it back into records.

pub mod codes;
pub mod compress;
pub mod header;
pub mod read;
pub mod records;
pub mod symtab_order;
pub mod text;
pub mod write;

pub use header::Header;
pub use read::{
    decode_signrot, encode_signrot, read, read_itemwise, read_with_plans, Event, Parser,
};
pub use write::{write, WriteError};
