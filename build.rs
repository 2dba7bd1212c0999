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
        ("PNACL_TOOL_LD_LLD", get("native", "ld-lld")),
        ("PNACL_TOOL_QEMU_ARM", get("native", "qemu-arm")),
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
}
