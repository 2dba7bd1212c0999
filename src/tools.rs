//! Paths of the external tools, as `toolchain.toml` names them (through build.rs).

/// `llc` of LLVM 14 (the tests compile pnacl-llvm's modules with it).
pub const LLC: &str = env!("PNACL_TOOL_LLC");
/// `clang` for the runtime (freestanding C).
pub const CLANG: &str = env!("PNACL_TOOL_CLANG");
/// `ld.lld` to link translated programs.
pub const LD_LLD: &str = env!("PNACL_TOOL_LD_LLD");
/// `qemu-arm` to run ARM programs.
pub const QEMU_ARM: &str = env!("PNACL_TOOL_QEMU_ARM");
/// `wasm-ld` to link WebAssembly programs.
pub const WASM_LD: &str = env!("PNACL_TOOL_WASM_LD");
/// `node`, which runs the WebAssembly launchers (the tests).
pub const NODE: &str = env!("PNACL_TOOL_NODE");
/// The browser the page tests run.
pub const CHROMIUM: &str = env!("PNACL_TOOL_CHROMIUM");
