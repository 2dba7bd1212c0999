//! Paths of the external tools, as `toolchain.toml` names them (through build.rs).

/// `llc` of LLVM 14.
pub const LLC: &str = env!("PNACL_TOOL_LLC");
/// `opt` of LLVM 14.
pub const OPT: &str = env!("PNACL_TOOL_OPT");
/// `llvm-as` of LLVM 14.
pub const LLVM_AS: &str = env!("PNACL_TOOL_LLVM_AS");
/// `llvm-dis` of LLVM 14.
pub const LLVM_DIS: &str = env!("PNACL_TOOL_LLVM_DIS");
/// `FileCheck` of LLVM 14.
pub const FILECHECK: &str = env!("PNACL_TOOL_FILECHECK");
/// `clang` for the runtime (freestanding C).
pub const CLANG: &str = env!("PNACL_TOOL_CLANG");
/// `ld.lld` to link translated programs.
pub const LD_LLD: &str = env!("PNACL_TOOL_LD_LLD");
/// `qemu-arm` to run ARM programs.
pub const QEMU_ARM: &str = env!("PNACL_TOOL_QEMU_ARM");
