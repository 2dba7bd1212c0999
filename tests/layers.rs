//! The layers of the crate hold (docs/ARCHITECTURE.md): each module names only the modules
//! beneath it. The model (`ir`) and the generic bitstream are the bottom; the wire format,
//! the ABI rules and the disassembler build on them; the LLVM bridge on those; translation
//! and the programs' shared code on top. An import that runs back up fails here.

use std::collections::BTreeSet;
use std::path::Path;

/// Each module and the modules it may name.
const ALLOWED: &[(&str, &[&str])] = &[
    ("error", &[]),
    ("tools", &[]),
    ("output", &[]),
    ("contain", &["tools", "output"]),
    ("ir", &["error"]),
    ("bitstream", &["error"]),
    ("bitcode", &["bitstream", "ir", "error"]),
    ("abi", &["ir", "error"]),
    ("dis", &["bitcode", "bitstream", "ir", "error"]),
    ("llvm", &["bitcode", "bitstream", "ir", "abi", "error"]),
    ("simplify", &["llvm", "ir"]),
    (
        "sdk",
        &["simplify", "llvm", "bitcode", "ir", "output", "tools"],
    ),
    ("translate", &["llvm", "ir", "output", "tools", "error"]),
    (
        "cli",
        &[
            "abi",
            "bitcode",
            "bitstream",
            "contain",
            "dis",
            "error",
            "ir",
            "llvm",
            "output",
            "sdk",
            "simplify",
            "translate",
            "tools",
        ],
    ),
];

fn sources(p: &Path, out: &mut Vec<std::path::PathBuf>) {
    if p.is_dir() {
        for e in std::fs::read_dir(p).unwrap() {
            sources(&e.unwrap().path(), out);
        }
    } else if p.is_file() && p.extension().is_some_and(|e| e == "rs") {
        out.push(p.to_path_buf());
    }
}

#[test]
fn no_import_runs_back_up() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let known: BTreeSet<&str> = ALLOWED.iter().map(|(m, _)| *m).collect();
    let mut failures = Vec::new();
    for (module, allowed) in ALLOWED {
        let mut files = Vec::new();
        sources(&src.join(module), &mut files);
        sources(&src.join(format!("{module}.rs")), &mut files);
        assert!(!files.is_empty(), "no sources for {module}");
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (i, line) in text.lines().enumerate() {
                let mut rest = line;
                while let Some(at) = rest.find("crate::") {
                    rest = &rest[at + 7..];
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if name != *module
                        && known.contains(name.as_str())
                        && !allowed.contains(&name.as_str())
                    {
                        failures.push(format!(
                            "{}:{}: {module} names {name}",
                            f.strip_prefix(&src).unwrap().display(),
                            i + 1
                        ));
                    }
                }
            }
        }
    }
    // Every module of the crate is in the table.
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        if !["lib", "bin"].contains(&stem.as_str()) {
            assert!(
                known.contains(stem.as_str()),
                "module {stem} is not in the layers' table"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
