//! The only code that touches LLVM: the model → LLVM 14 module conversion (`export`), the
//! LLVM module → model conversion (`import`), the ABI rules on LLVM modules (`abicheck`),
//! what pnacl-finalize strips (`finalize`), code generation (`codegen`), and the targets.
//! Every `unsafe` block says why it is sound (clippy holds them to it).
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod abicheck;
pub mod codegen;
pub mod edit;
pub mod export;
mod ffi;
pub mod finalize;
pub mod import;
pub mod legacy;
pub mod resume;
pub mod target;

pub use export::{export, ExportError, ExportOptions};
pub use import::{import, ImportError};
pub use target::Target;

/// Parses LLVM IR, textual or bitcode (by content), into a module of `ctx`.
pub fn parse_ir<'ctx>(
    ctx: &'ctx inkwell::context::Context,
    data: &[u8],
    name: &str,
) -> Result<inkwell::module::Module<'ctx>, String> {
    let buf = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(data, name);
    ctx.create_module_from_ir(buf).map_err(|e| {
        // LLVM's text parser says `NAME:LINE:COL: error: MSG` then the line and a caret;
        // the tools print `TOOL: error: NAME:LINE:COL: MSG`, so the name and the second
        // `error:` go.
        let e = e.to_string();
        let e = e.trim_end();
        let e = e
            .strip_prefix(name)
            .and_then(|r| r.strip_prefix(':'))
            .unwrap_or(e);
        let e = e.trim_start();
        match e.strip_prefix("error: ") {
            Some(rest) => rest.to_string(),
            None => e.replacen(": error: ", ": ", 1),
        }
    })
}
