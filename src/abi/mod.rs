//! The ABI rules of spec/001 as checks over the model (the LLVM-only rules live in
//! `llvm::import`).

pub mod check;
mod rule;

pub use check::{check, check_all, check_ssa, render, Finding, Options, Scope};
pub use rule::Rule;
