//! The only code that touches LLVM: the model → LLVM 14 module conversion (`export`) and
//! the targets it builds for.

pub mod codegen;
pub mod export;
pub mod target;

pub use export::{export, partition, ExportError, ExportOptions};
pub use target::Target;
