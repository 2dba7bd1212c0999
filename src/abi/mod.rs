//! The ABI rules of spec/001 (`Rule`) and their check on the model; `llvm::abicheck`
//! checks the same rules on LLVM modules.

pub mod check;
mod rule;

pub use check::{check, check_all, check_ssa, render, Finding, Options, Scope};
pub use rule::Rule;
