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
    ("target", &["tools"]),
    ("output", &[]),
    ("contain", &["target", "tools", "output"]),
    ("ir", &["error"]),
    ("bitstream", &["error"]),
    ("bitcode", &["bitstream", "ir", "error"]),
    ("abi", &["ir", "error"]),
    ("dis", &["bitcode", "bitstream", "ir", "error"]),
    (
        "llvm",
        &["bitcode", "bitstream", "ir", "abi", "target", "error"],
    ),
    ("simplify", &["llvm", "ir"]),
    (
        "sdk",
        &["simplify", "llvm", "bitcode", "ir", "output", "tools"],
    ),
    (
        "translate",
        &[
            "llvm", "ir", "output", "target", "tools", "error", "sdk", "bitcode",
        ],
    ),
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
            "target",
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

/// The runtime's PPAPI host keeps its rooms (docs/ARCHITECTURE.md, "The PPAPI host"): the
/// core (runtime/ppapi/ but its `ppb_*.h`) includes only the core and names nothing an
/// interface's file defines; no include runs in a circle; `ppapi.h` includes every
/// interface's file; and no file of the runtime is longer than 1,200 lines.
#[test]
fn the_runtime_keeps_its_rooms() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
    let dir = root.join("ppapi");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "h"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    let includes = |text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.trim().strip_prefix("#include \""))
            .filter_map(|l| l.split('"').next())
            .map(str::to_string)
            .collect()
    };
    let is_interface = |n: &str| n.starts_with("ppb_");
    // What the interfaces define: their functions, kinds and tables.
    let mut defined = BTreeSet::new();
    for (n, text) in files.iter().filter(|(n, _)| is_interface(n)) {
        for l in text.lines() {
            let Some(rest) = l.strip_prefix("static ") else {
                if let Some(m) = l.strip_prefix("#define ") {
                    defined.insert((n.clone(), m.split([' ', '(']).next().unwrap().to_string()));
                }
                continue;
            };
            let head = rest.split(['(', '=', ';', '[']).next().unwrap_or("");
            if let Some(name) = head.split_whitespace().last() {
                defined.insert((n.clone(), name.trim_start_matches('*').to_string()));
            }
        }
    }
    let ident = |text: &str, name: &str| {
        text.match_indices(name).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + name.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            !word(before) && !word(after)
        })
    };
    for (n, text) in files.iter().filter(|(n, _)| !is_interface(n)) {
        for inc in includes(text) {
            assert!(
                !is_interface(&inc),
                "runtime/ppapi/{n} (the core) includes an interface's file, {inc}"
            );
        }
        for (file, name) in &defined {
            assert!(
                !ident(text, name),
                "runtime/ppapi/{n} (the core) names {name}, which {file} defines"
            );
        }
    }
    // No circle: a depth-first walk from each file never meets a file on its own path.
    fn walk(
        f: &str,
        graph: &std::collections::BTreeMap<String, Vec<String>>,
        path: &mut Vec<String>,
    ) {
        assert!(
            !path.iter().any(|p| p == f),
            "an include circle: {} -> {f}",
            path.join(" -> ")
        );
        path.push(f.to_string());
        for g in graph.get(f).into_iter().flatten() {
            walk(g, graph, path);
        }
        path.pop();
    }
    let mut graph: std::collections::BTreeMap<String, Vec<String>> = files
        .iter()
        .map(|(n, t)| {
            let deps = includes(t)
                .into_iter()
                .filter(|i| !i.contains('/') && i.ends_with(".h"))
                .collect();
            (n.clone(), deps)
        })
        .collect();
    let host = std::fs::read_to_string(root.join("ppapi.h")).unwrap();
    graph.insert(
        "../ppapi.h".into(),
        includes(&host)
            .into_iter()
            .filter_map(|i| i.strip_prefix("ppapi/").map(str::to_string))
            .collect(),
    );
    for f in graph.keys() {
        walk(f, &graph, &mut Vec::new());
    }
    for (n, _) in files.iter().filter(|(n, _)| is_interface(n)) {
        assert!(
            graph["../ppapi.h"].contains(n),
            "runtime/ppapi.h does not include ppapi/{n}"
        );
    }
    // No file of the runtime over 1,200 lines.
    let mut all = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else {
                all.push(p);
            }
        }
    }
    for p in all {
        let lines = std::fs::read_to_string(&p).map_or(0, |t| t.lines().count());
        assert!(lines <= 1200, "{}: {lines} lines", p.display());
    }
}
