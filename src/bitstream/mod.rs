//! LLVM-style bitstream, generic: bit cursor, fixed/VBR/char6/array/literal operands,
//! abbreviations, BLOCKINFO, entering and leaving blocks. It knows no PNaCl record code.

mod abbrev;
mod cursor;
mod reader;
mod writer;

pub use abbrev::{
    decode_char6, encode_char6, is_char6, Abbrev, AbbrevOp, AbbrevRef, FastOp, Plan, CHAR6,
};
#[cfg(target_arch = "x86_64")]
pub use cursor::Bmi2;
pub use cursor::{BitCursor, Pext, SoftPext};
pub use reader::{Item, Reader, MAX_ABBREV_WIDTH, PLANS_MIN_BYTES};
pub use writer::{BitWriter, Writer};

/// Abbreviation id of END_BLOCK.
pub const END_BLOCK: u32 = 0;
/// Abbreviation id of ENTER_SUBBLOCK.
pub const ENTER_SUBBLOCK: u32 = 1;
/// Abbreviation id of DEFINE_ABBREV.
pub const DEFINE_ABBREV: u32 = 2;
/// Abbreviation id of an unabbreviated record.
pub const UNABBREV_RECORD: u32 = 3;
/// The first user abbreviation id.
pub const FIRST_USER_ABBREV: u32 = 4;

/// Block id of BLOCKINFO.
pub const BLOCKINFO_BLOCK_ID: u32 = 0;
/// Record code of SETBID inside BLOCKINFO.
pub const BLOCKINFO_CODE_SETBID: u32 = 1;
