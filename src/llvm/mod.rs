//! The only code that touches LLVM: the model → LLVM 14 module conversion (`export`) and
//! the targets it builds for.

pub mod abicheck;
pub mod codegen;
pub mod export;
pub mod target;

pub use export::{export, partition, ExportError, ExportOptions};
pub use target::Target;

/// Parses LLVM IR, textual or bitcode (by content), into a module of `ctx`.
pub fn parse_ir<'ctx>(
    ctx: &'ctx inkwell::context::Context,
    data: &[u8],
    name: &str,
) -> Result<inkwell::module::Module<'ctx>, String> {
    let buf = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(data, name);
    ctx.create_module_from_ir(buf)
        .map_err(|e| e.to_string().trim_end().to_string())
}
