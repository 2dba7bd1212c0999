//! WebAssembly: lowered as the native targets are (`native.rs`), but for setjmp and
//! longjmp, which become calls of `setjmp` and `longjmp`: LLVM's WebAssembly lowering
//! (`-wasm-enable-sjlj`, `llvm::codegen`) turns those into WebAssembly exception handling,
//! calling the runtime's saveSetjmp, testSetjmp and __wasm_longjmp (runtime/wasi.c).
//!
//! The rest needs nothing of its own: pointers are i32 as in the pexe, a function's
//! address is its index in the module's table (so an indirect call of anything but a
//! function of the called type traps), and atomics are the threads proposal's.

use super::native::Native;

pub(super) const WASM32: Native = Native {
    setjmp: "setjmp",
    longjmp: "longjmp",
};
