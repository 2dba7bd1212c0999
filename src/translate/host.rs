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

use super::{err, tool, Error, SOURCES};
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

/// Whether `m` translated for `target` carries the host: where the pexe is isolated in its
/// region and is a plugin (pnacl-translate and pnacl-llvm both ask here).
pub fn joins(m: &Module, target: crate::target::Target) -> bool {
    target.spec().memory.is_region() && is_plugin(m)
}

/// A plugin with the host joined to it.
pub struct WithHost {
    pub module: Module,
    /// The host's functions, the module's first (its code is the same whatever plugin
    /// follows: `ExportOptions::portable`).
    pub host_functions: u32,
    /// What the host's code is made of (its sources, flags and compiler).
    pub key: u64,
}

/// The plugin `m` with the host joined before it: the host's `_start` is the pexe's
/// entry and calls the plugin's. Fails when `m` has no `_start` to call.
pub fn with_host(m: &Module) -> Result<WithHost, Error> {
    let (host, key) = host_module()?;
    let Some(plugin_start) = m.function_named("_start") else {
        return Err(err("PPAPI host", "the plugin has no _start"));
    };
    let joined = crate::ir::join::join(&host, m);
    let mut out = joined.module;
    // The plugin's _start is the host's to call; every name of the host's (but the
    // intrinsics' and its _start) is dropped, so that none meets one of the plugin's.
    let plugin_start = joined.b_functions[plugin_start as usize];
    let start = &mut out.functions[plugin_start as usize];
    start.name = None;
    start.linkage = Linkage::Internal;
    let Some(slot) = host
        .globals
        .iter()
        .position(|g| g.name.as_deref() == Some(PLUGIN_START))
    else {
        return Err(err("PPAPI host", "the host has no __pnacl_plugin_start"));
    };
    let g = &mut out.globals[slot];
    g.inits = vec![Init::Reloc {
        target: plugin_start,
        addend: 0,
    }];
    g.compound = false;
    for f in &mut out.functions[..host.functions.len()] {
        let keep = f
            .name
            .as_deref()
            .is_some_and(|n| n.starts_with(b"llvm.") || n == b"_start");
        if !keep {
            f.name = None;
            f.linkage = Linkage::Internal;
        }
    }
    for g in &mut out.globals[..host.globals.len()] {
        g.name = None;
    }
    out.symbol_order.clear();
    Ok(WithHost {
        module: out,
        host_functions: host.functions.len() as u32,
        key,
    })
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

/// The host's pexe, from the cache or built into it, and its key (its sources, the flags
/// and the compiler).
pub fn host_module() -> Result<(Module, u64), Error> {
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
    crate::tools::file_identity(&clang).hash(&mut h);
    let key = h.finish();
    let dir = crate::tools::cache_dir();
    let path = dir.join(format!("ppapi-host-{key:016x}.pexe"));
    if let Ok(bytes) = std::fs::read(&path) {
        if let Ok(m) = crate::bitcode::read(&bytes) {
            return Ok((m, key));
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
    let m = crate::bitcode::read(&bytes).map_err(|e| err("PPAPI host", e.to_string()))?;
    Ok((m, key))
}

/// The host's partition of a translation, whose object is cached: its code is the same
/// for every plugin (`ExportOptions::portable`), so it is generated once for each target
/// and level, by each build of the tools.
pub struct Part {
    /// Its number in the translation's plan.
    pub partition: u32,
    key: u64,
}

impl Part {
    pub fn new(w: &WithHost, partition: u32) -> Part {
        Part {
            partition,
            key: w.key,
        }
    }

    /// Where its object for `opts` is kept: keyed by the host, the target, the level, the
    /// module's check of indirect calls (`region::Layout::check`) and this program itself
    /// (its conversion and code generation).
    pub fn object_path(
        &self,
        opts: &super::Options,
        check: Option<crate::target::CallCheck>,
    ) -> Result<std::path::PathBuf, Error> {
        let mut h = DefaultHasher::new();
        self.key.hash(&mut h);
        check.hash(&mut h);
        // And LLVM's options, the target's and a developer's, as this process has them.
        crate::llvm::codegen::options_in_force(opts.target).hash(&mut h);
        let exe = std::env::current_exe().map_err(|e| err("PPAPI host", e.to_string()))?;
        let meta = std::fs::metadata(&exe).map_err(|e| err("PPAPI host", e.to_string()))?;
        (exe, meta.len(), meta.modified().ok()).hash(&mut h);
        let name = format!(
            "ppapi-host-{}-{:?}-{:016x}.o",
            opts.target.name(),
            opts.opt,
            h.finish()
        );
        Ok(crate::tools::cache_dir().join(name))
    }

    /// Keeps `obj` at `path` (whole or not at all; a cache that cannot be written is only
    /// slower).
    pub fn keep(path: &std::path::Path, obj: &[u8]) {
        let Some(dir) = path.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        if let Ok(mut t) = tempfile::NamedTempFile::new_in(dir) {
            if std::io::Write::write_all(&mut t, obj).is_ok() {
                let _ = t.persist(path);
            }
        }
    }
}
