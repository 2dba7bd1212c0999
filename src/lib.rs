//! `pnacl`: read, check, write and run PNaCl portable executables (pexes).
//!
//! One central model (`ir::Module`); the bitcode reader fills it, the writer empties it,
//! the LLVM bridge converts it, the ABI checker and the disassembler read it.
//! `bitstream`, `bitcode`, `ir`, `abi` and `dis` do not depend on LLVM.

/// `Display` for types that have a `name(self) -> &'static str`: the name.
macro_rules! display_as_name {
    ($($t:ty),*) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    )*};
}

pub mod abi;
pub mod bitcode;
pub mod bitstream;
pub mod cli;
pub mod contain;
pub mod dis;
pub mod error;
pub mod ir;
#[cfg(feature = "llvm")]
pub mod llvm;
pub mod output;
#[cfg(feature = "llvm")]
pub mod sdk;
#[cfg(feature = "llvm")]
pub mod simplify;
pub mod target;
pub mod tools;
#[cfg(feature = "llvm")]
pub mod translate;

pub use error::{Error, Result};
