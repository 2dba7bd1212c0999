//! Paths of the external tools, as `toolchain.toml` names them (through build.rs).

/// `llc` of LLVM 14 (the tests compile pnacl-llvm's modules with it).
pub const LLC: &str = env!("PNACL_TOOL_LLC");
/// `clang` for the runtime (freestanding C).
pub const CLANG: &str = env!("PNACL_TOOL_CLANG");
/// `ld.lld` to link translated programs.
pub const LD_LLD: &str = env!("PNACL_TOOL_LD_LLD");
/// `qemu-arm` to run ARM programs.
pub const QEMU_ARM: &str = env!("PNACL_TOOL_QEMU_ARM");
/// `qemu-aarch64` to run AArch64 programs on other machines.
pub const QEMU_AARCH64: &str = env!("PNACL_TOOL_QEMU_AARCH64");
/// `wasm-ld` to link WebAssembly programs.
pub const WASM_LD: &str = env!("PNACL_TOOL_WASM_LD");
/// `node`, which runs the WebAssembly launchers (the tests).
pub const NODE: &str = env!("PNACL_TOOL_NODE");
/// The browser the page tests run.
pub const CHROMIUM: &str = env!("PNACL_TOOL_CHROMIUM");
/// `llvm-ar` of LLVM 14: the C library's bitcode archives.
pub const LLVM_AR: &str = env!("PNACL_TOOL_LLVM_AR");
/// Where Debian's newlib-source package keeps newlib's source tarball.
pub const NEWLIB_SOURCE: &str = env!("PNACL_NEWLIB_SOURCE");
/// The Debian package whose sources of libc++ and libc++abi the C++ library is built from.
pub const EMSCRIPTEN_PACKAGE: &str = env!("PNACL_EMSCRIPTEN_PACKAGE");
/// Where that package installs them (`libcxx/`, `libcxxabi/`).
pub const EMSCRIPTEN_LIB: &str = env!("PNACL_EMSCRIPTEN_LIB");

/// Where compiled runtimes and the C library are kept: `$PNACL_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/pnacl`, else `~/.cache/pnacl`.
pub fn cache_dir() -> std::path::PathBuf {
    use std::path::PathBuf;
    if let Some(d) = std::env::var_os("PNACL_CACHE_DIR") {
        return PathBuf::from(d);
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("pnacl")
}

/// A file's identity in a cache key: its real path, size and modification time (a package
/// upgrade changes them; cheaper than running a compiler for its version).
pub fn file_identity(p: &std::path::Path) -> String {
    let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    match std::fs::metadata(&real) {
        Ok(m) => format!("{} {} {:?}", real.display(), m.len(), m.modified().ok()),
        Err(_) => real.display().to_string(),
    }
}

/// The cache's directory `name` (its key in the name), made once per machine: when `ready`
/// does not hold of it, `build(work, out)` fills `out` (not yet made) using the scratch
/// directory `work`; both are in the cache, so that `out` becomes the entry by one rename,
/// whole or not at all. Another process that finished first made an entry as good.
pub fn cached_dir(
    name: &str,
    ready: impl Fn(&std::path::Path) -> bool,
    build: impl FnOnce(&std::path::Path, &std::path::Path) -> Result<(), String>,
) -> Result<std::path::PathBuf, String> {
    let cache = cache_dir();
    let dir = cache.join(name);
    if ready(&dir) {
        return Ok(dir);
    }
    std::fs::create_dir_all(&cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    let work = tempfile::Builder::new()
        .prefix(&format!("{name}-build-"))
        .tempdir_in(&cache)
        .map_err(|e| format!("{}: {e}", cache.display()))?;
    let out = work.path().join("out");
    build(work.path(), &out)?;
    if std::fs::rename(&out, &dir).is_err() && !ready(&dir) {
        // What is there is not an entry (left by an interrupted build of another layout):
        // replaced.
        let _ = std::fs::remove_dir_all(&dir);
        if std::fs::rename(&out, &dir).is_err() && !ready(&dir) {
            return Err(format!("could not put {} in place", dir.display()));
        }
    }
    Ok(dir)
}
