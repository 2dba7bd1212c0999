//! The PPAPI host where the pexe is isolated in a region (x86-64, AArch64): pexe code,
//! joined to the plugin's pexe before translation, so that it runs in the plugin's region
//! as the plugin's own code and reaches the system through the IRT alone (the runtime
//! checks every argument there; runtime/ppapi_pexe.c says how the host starts).
//!
//! The host's pexe is built on first use and cached, as the runtime's objects are:
//! `runtime/ppapi_pexe.c` (which includes ppapi.h and the interfaces, the same C the
//! 32-bit targets' runtime compiles) and libnacl's atomics, compiled for le32 and made a
//! pexe by pnacl-clang's back half (`sdk::driver::pexe_of`).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::process::Command;

use super::{clang_version, err, tool, Error, SOURCES};
use crate::ir::{Init, Linkage, Module};

/// The host's global that holds the plugin's `_start` (ppapi_pexe.c's).
const PLUGIN_START: &[u8] = b"__pnacl_plugin_start";

/// Whether `m` is a browser plugin: it asks for the PPAPI start-up hook or names a
/// PPAPI interface (`super::ppapi_interfaces`).
pub fn is_plugin(m: &Module) -> bool {
    const HOOK: &[u8] = b"nacl-irt-ppapihook-0.1";
    let asks_hook = m.globals.iter().any(|g| {
        g.inits.iter().any(|i| match i {
            Init::Data(d) => d.windows(HOOK.len()).any(|w| w == HOOK),
            _ => false,
        })
    });
    asks_hook || !super::ppapi_interfaces(m).is_empty()
}

/// The plugin `m` with the host joined to it: the host's `_start` is the pexe's entry and
/// calls the plugin's. Fails when `m` has no `_start` to call.
pub fn with_host(m: &Module) -> Result<Module, Error> {
    let host = host_module()?;
    let Some(plugin_start) = m.function_named("_start") else {
        return Err(err("PPAPI host", "the plugin has no _start"));
    };
    let joined = crate::ir::join::join(m, &host);
    let mut out = joined.module;
    // The plugin's _start is the host's to call; every name of the host's (but the
    // intrinsics') is dropped, so that none meets one of the plugin's.
    let first_host = m.functions.len();
    let start = &mut out.functions[plugin_start as usize];
    start.name = None;
    start.linkage = Linkage::Internal;
    let nf = out.functions.len() as u32;
    let mut slot = None;
    for (k, g) in host.globals.iter().enumerate() {
        if g.name.as_deref() == Some(PLUGIN_START) {
            slot = Some(joined.b_globals[k] - nf);
        }
    }
    let Some(slot) = slot else {
        return Err(err("PPAPI host", "the host has no __pnacl_plugin_start"));
    };
    let g = &mut out.globals[slot as usize];
    g.inits = vec![Init::Reloc {
        target: plugin_start,
        addend: 0,
    }];
    g.compound = false;
    for f in &mut out.functions[first_host..] {
        let keep = f
            .name
            .as_deref()
            .is_some_and(|n| n.starts_with(b"llvm.") || n == b"_start");
        if !keep {
            f.name = None;
            f.linkage = Linkage::Internal;
        }
    }
    for g in &mut out.globals[m.globals.len()..] {
        g.name = None;
    }
    out.symbol_order.clear();
    Ok(out)
}

/// The flags the host's units are compiled with (beyond pnacl-clang's target flags).
const HOST_FLAGS: &[&str] = &[
    "-O2",
    "-ffreestanding",
    "-nostdlibinc",
    "-Wall",
    "-Wno-atomic-alignment",
    "-Wno-sync-fetch-and-nand-semantics-changed",
    "-Werror=incompatible-function-pointer-types",
    "-Werror=incompatible-pointer-types",
    "-c",
    "-emit-llvm",
];

/// The host's pexe, from the cache or built into it (keyed by its sources, the flags and
/// the compiler).
pub fn host_module() -> Result<Module, Error> {
    let clang = tool(crate::tools::CLANG, "clang-14")?;
    let atomics = crate::sdk::libc::libnacl_source("atomic.c")
        .ok_or_else(|| err("PPAPI host", "libnacl has no atomic.c"))?;
    let mut h = DefaultHasher::new();
    for (n, s) in SOURCES {
        n.hash(&mut h);
        s.hash(&mut h);
    }
    atomics.hash(&mut h);
    HOST_FLAGS.hash(&mut h);
    crate::sdk::libc::TARGET_FLAGS.hash(&mut h);
    clang_version(&clang)?.hash(&mut h);
    let dir = crate::tools::cache_dir();
    let path = dir.join(format!("ppapi-host-{:016x}.pexe", h.finish()));
    if let Ok(bytes) = std::fs::read(&path) {
        if let Ok(m) = crate::bitcode::read(&bytes) {
            return Ok(m);
        }
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| err("PPAPI host", format!("{}: {e}", dir.display())))?;
    let work = tempfile::tempdir_in(&dir).map_err(|e| err("PPAPI host", e.to_string()))?;
    for (n, s) in SOURCES {
        let p = work.path().join("runtime").join(n);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|e| err("PPAPI host", e.to_string()))?;
        }
        std::fs::write(p, s).map_err(|e| err("PPAPI host", e.to_string()))?;
    }
    std::fs::write(work.path().join("atomic.c"), atomics)
        .map_err(|e| err("PPAPI host", e.to_string()))?;
    let mut inputs = Vec::new();
    for unit in ["runtime/ppapi_pexe.c", "atomic.c"] {
        let obj = work.path().join(format!("{}.bc", unit.replace('/', "_")));
        let out = Command::new(&clang)
            .args(crate::sdk::libc::TARGET_FLAGS)
            .args(HOST_FLAGS)
            .arg(work.path().join(unit))
            .arg("-o")
            .arg(&obj)
            .output()
            .map_err(|e| err("PPAPI host", format!("running {}: {e}", clang.display())))?;
        if !out.status.success() {
            return Err(err(
                "PPAPI host",
                format!("compiling {unit}: {}", String::from_utf8_lossy(&out.stderr)),
            ));
        }
        let bytes = std::fs::read(&obj).map_err(|e| err("PPAPI host", e.to_string()))?;
        inputs.push(crate::sdk::link::Input::Object(unit.to_string(), bytes));
    }
    let ctx = inkwell::context::Context::create();
    let model = crate::sdk::driver::pexe_of(&ctx, inputs, "-O2", true, &mut |_| {}, &mut |_| {})
        .map_err(|f| err("PPAPI host", f.0.join("\n")))?;
    let bytes = crate::bitcode::write(&model).map_err(|e| err("PPAPI host", e.msg()))?;
    let tmp = work.path().join("host.pexe");
    std::fs::write(&tmp, &bytes).map_err(|e| err("PPAPI host", e.to_string()))?;
    std::fs::rename(&tmp, &path).map_err(|e| err("PPAPI host", e.to_string()))?;
    // Read back, as a cached one is: the model the reader makes of the file.
    crate::bitcode::read(&bytes).map_err(|e| err("PPAPI host", e.to_string()))
}
