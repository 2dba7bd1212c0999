//! Reads `toolchain.toml` (the one place naming the external toolchain) and hands the tool
//! paths to the crate as compile-time environment variables (`PNACL_TOOL_*`).

use std::fs;

fn main() {
    println!("cargo:rerun-if-changed=toolchain.toml");
    println!("cargo:rerun-if-changed=build.rs");
    let text = fs::read_to_string("toolchain.toml").expect("toolchain.toml is missing");
    let table: toml::Table = text.parse().expect("toolchain.toml is not valid TOML");
    let get = |section: &str, key: &str| -> String {
        table
            .get(section)
            .and_then(|s| s.get(key))
            .map(|v| match v {
                toml::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .unwrap_or_else(|| panic!("toolchain.toml: [{section}] {key} is missing"))
    };
    let vars = [
        ("PNACL_TOOL_LLC", get("llvm", "llc")),
        ("PNACL_TOOL_CLANG", get("native", "clang")),
        ("PNACL_TOOL_LLVM_AR", get("llvm", "llvm-ar")),
        ("PNACL_NEWLIB_SOURCE", get("sdk", "newlib-source")),
        ("PNACL_EMSCRIPTEN_PACKAGE", get("sdk", "emscripten-package")),
        ("PNACL_EMSCRIPTEN_LIB", get("sdk", "emscripten-lib")),
        ("PNACL_TOOL_LD_LLD", get("native", "ld-lld")),
        ("PNACL_TOOL_QEMU_ARM", get("native", "qemu-arm")),
        ("PNACL_TOOL_QEMU_AARCH64", get("native", "qemu-aarch64")),
        ("PNACL_TOOL_WASM_LD", get("wasm", "wasm-ld")),
        ("PNACL_TOOL_NODE", get("wasm", "node")),
        ("PNACL_TOOL_CHROMIUM", get("wasm", "chromium")),
    ];
    for (k, v) in vars {
        println!("cargo:rustc-env={k}={v}");
    }
    // The LLVM version the tools are built with, for `--version`: llvm-config's word, or
    // the major version where it cannot be run.
    let version = std::process::Command::new(get("llvm", "llvm-config"))
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| get("llvm", "major"));
    println!("cargo:rustc-env=PNACL_LLVM_VERSION={version}");
    runtime_sources();
    clang_cxx_link();
}

/// `pnacl-clang++` beside the binaries: a link to pnacl-clang, which acts as pnacl-clang++
/// when run by that name (as clang++ is a link to clang). Cargo cannot name a binary with
/// a `+`; `cargo install` users make the link themselves (README).
fn clang_cxx_link() {
    let Some(out) = std::env::var_os("OUT_DIR") else {
        return;
    };
    // $OUT_DIR is <profile dir>/build/<package>-<hash>/out.
    let Some(profile) = std::path::Path::new(&out).ancestors().nth(3) else {
        return;
    };
    let link = profile.join("pnacl-clang++");
    if fs::read_link(&link).is_err() {
        let _ = fs::remove_file(&link);
        let _ = std::os::unix::fs::symlink("pnacl-clang", &link);
    }
}

/// The runtime's C sources (runtime/: .c, .h, .S, .def, in folders too) and its JavaScript
/// modules (.js), written into `$OUT_DIR/runtime_sources.rs` and `runtime_js.rs` as tables
/// of (path below runtime/, text), which `translate` compiles and assembles from: the
/// files on disk are the one list.
fn runtime_sources() {
    println!("cargo:rerun-if-changed=runtime");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        for e in fs::read_dir(&d).expect("runtime/ is readable") {
            let p = e.expect("runtime/ is readable").path();
            if p.is_dir() {
                dirs.push(p);
            } else if matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("c" | "h" | "S" | "def" | "js")
            ) {
                files.push(p);
            }
        }
    }
    files.sort();
    // The C (compiled for each target), and the JavaScript hosts' modules (assembled).
    for (name, js) in [("runtime_sources.rs", false), ("runtime_js.rs", true)] {
        let mut out = String::from("&[\n");
        for p in files
            .iter()
            .filter(|p| p.extension().is_some_and(|x| x == "js") == js)
        {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out += &format!(
                "    ({rel:?}, include_str!({:?})),\n",
                p.display().to_string()
            );
        }
        out += "]\n";
        let dest = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join(name);
        fs::write(dest, out).expect("OUT_DIR is writable");
    }
}
