//! pexe → WebAssembly: the objects code generation makes for wasm32, linked with the
//! runtime (runtime/wasi.c) by wasm-ld into a WASI command module, and the hosts that run
//! it. The output's extension says what is written:
//!
//! - `X.wasm`: the module alone (it imports its memory, shared, and WASI preview 1 and
//!   wasi-threads' `thread-spawn`);
//! - `X.mjs`: a launcher for node (`node X.mjs ARGS`), with `X.wasm` beside it;
//! - `X.html`: a page that runs the program in the browser, with its script `X.js` and
//!   `X.wasm` beside it, to be served with cross-origin isolation (`serve`).
//!
//! All the files are written whole or not at all.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{compile, err, runtime_objects, tool, Error, Options};
use crate::ir::Module;
use crate::llvm::Target;
use crate::output::PendingFile;

const PAGE: &str = include_str!("../../runtime/page.html");

/// The most memory a program may have: all that wasm32 addresses.
const MAX_MEMORY: u64 = 4 << 30;
/// The main thread's stack (a spawned thread's is the pexe's own).
const STACK_SIZE: u64 = 8 << 20;

/// What an output path asks for, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Module,
    Node,
    Page,
}

impl Form {
    pub fn of(out: &Path) -> Option<Form> {
        match out.extension()?.to_str()? {
            "wasm" => Some(Form::Module),
            "mjs" => Some(Form::Node),
            "html" => Some(Form::Page),
            _ => None,
        }
    }
}

/// Translates `m` for WebAssembly into `out` (and the files beside it its form needs).
pub fn translate(m: &Module, opts: &Options, out: &Path) -> Result<(), Error> {
    let form = Form::of(out).ok_or_else(|| {
        err(
            "output",
            format!(
                "{}: for wasm32 the output is X.wasm (the module), X.mjs (a node launcher) \
                 or X.html (a page)",
                out.display()
            ),
        )
    })?;
    let runtime = runtime_objects(Target::Wasm32)?;
    let wasm_ld = tool(crate::tools::WASM_LD, "lld-14")?;
    let objs = compile(m, opts)?;
    opts.progress.say("linking");
    let work = tempfile::tempdir().map_err(|e| err("link", e.to_string()))?;
    let mut paths = Vec::with_capacity(objs.len());
    for (k, obj) in objs.iter().enumerate() {
        let p = work.path().join(format!("pexe{k}.o"));
        std::fs::write(&p, obj).map_err(|e| err("link", e.to_string()))?;
        paths.push(p);
    }
    let linked = work.path().join("out.wasm");
    let res = Command::new(&wasm_ld)
        .args(["--shared-memory", "--import-memory", "--gc-sections"])
        // The objects leave bulk memory out on purpose (arch_wasm32.S says why), which
        // wasm-ld would refuse with shared memory; its own start-up code uses it.
        .arg("--no-check-features")
        .arg(format!("--max-memory={MAX_MEMORY}"))
        .arg(format!("-zstack-size={STACK_SIZE}"))
        .arg("-o")
        .arg(&linked)
        .args(&paths)
        .args(&runtime)
        .output()
        .map_err(|e| err("link", format!("running {}: {e}", wasm_ld.display())))?;
    if !res.status.success() {
        let msg = String::from_utf8_lossy(&res.stderr);
        return Err(err("link", msg.trim_end().to_string()));
    }
    let module = std::fs::read(&linked).map_err(|e| err("link", e.to_string()))?;
    write_outputs(form, out, &module)
}

/// The files of `form` for `out`, each written whole, none if one cannot be.
fn write_outputs(form: Form, out: &Path, module: &[u8]) -> Result<(), Error> {
    let beside = |ext: &str| -> PathBuf { out.with_extension(ext) };
    let module_name = file_name(&beside("wasm"));
    let script = |host: &str| {
        format!(
            "const MODULE_FILE = {};\n{}",
            js_string(&module_name),
            super::js::program(&[host])
        )
    };
    let files: Vec<(PathBuf, Vec<u8>)> = match form {
        Form::Module => vec![(out.to_path_buf(), module.to_vec())],
        Form::Node => vec![
            (beside("wasm"), module.to_vec()),
            (out.to_path_buf(), script("host_node.js").into_bytes()),
        ],
        Form::Page => {
            let stem = out
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            let page = PAGE
                .replace("{{TITLE}}", &html_escape(&stem))
                .replace("{{SCRIPT}}", &html_escape(&file_name(&beside("js"))));
            vec![
                (beside("wasm"), module.to_vec()),
                (beside("js"), script("host_web.js").into_bytes()),
                (out.to_path_buf(), page.into_bytes()),
            ]
        }
    };
    let mut pending = Vec::with_capacity(files.len());
    for (path, bytes) in &files {
        let mut f = PendingFile::create(path, false).map_err(|e| err("output", e))?;
        f.write_all(bytes).map_err(|e| {
            err(
                "output",
                format!("{}: {}", path.display(), crate::output::io_reason(&e)),
            )
        })?;
        pending.push(f);
    }
    for f in pending {
        f.commit().map_err(|e| err("output", e))?;
    }
    Ok(())
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// `s` as a JavaScript string literal.
fn js_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
