//! The JavaScript hosts, assembled from modules (runtime/host_*.js): each file is an ES
//! module that names what it takes from the others (`import { a, b } from './x.js';`) and
//! what it gives (`export const`, `export function`, `export class`, ...). A program (the
//! node launcher, a page's script, `pnacl.js`) is its entry modules and what they import,
//! each once, every module after those it imports, in one scope: the import lines go and
//! `export ` is dropped. Assembly fails on a module that is not there, an import its module
//! does not export, an import not used, a circle of imports, or a module using another's
//! name without importing it: what each file takes from the others is written in it, and
//! checked.

use std::collections::{BTreeMap, BTreeSet};

/// A module: its file name (`host_core.js`) and text.
pub type Source<'a> = (&'a str, &'a str);

/// The hosts' module files (runtime/*.js, as build.rs lists them), by name.
pub const MODULES: &[Source<'static>] = include!(concat!(env!("OUT_DIR"), "/runtime_js.rs"));

struct Parsed {
    imports: Vec<(String, Vec<String>)>,
    exports: BTreeSet<String>,
    /// Every name it declares at its top level (its exports among them): in one script,
    /// a name two modules declare is an error the browser finds only when it runs it.
    top: BTreeSet<String>,
    body: String,
}

/// The names a top-level line declares: `const`/`let` (as [`declared`]), `function`,
/// `async function`, `class`.
fn top_level(line: &str) -> Vec<String> {
    if let Some(rest) = line
        .strip_prefix("const ")
        .or_else(|| line.strip_prefix("let "))
    {
        return declared(rest);
    }
    let rest = line.strip_prefix("async ").unwrap_or(line);
    let Some(rest) = rest
        .strip_prefix("function ")
        .or_else(|| rest.strip_prefix("class "))
    else {
        return Vec::new();
    };
    let id: String = rest.chars().take_while(|&c| is_ident(c)).collect();
    if id.is_empty() {
        Vec::new()
    } else {
        vec![id]
    }
}

/// The names a top-level `const`/`let` line declares (those whose `=` stands on it).
fn declared(rest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = rest.as_bytes();
    let mut parts = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                parts.push(&rest[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&rest[start..]);
    for p in parts {
        if let Some((name, _)) = p.split_once('=') {
            let name = name.trim();
            if !name.is_empty() && name.chars().all(is_ident) {
                names.push(name.to_string());
            }
        }
    }
    names
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

fn parse(name: &str, text: &str) -> Result<Parsed, String> {
    let mut imports = Vec::new();
    let mut exports = BTreeSet::new();
    let mut top = BTreeSet::new();
    let mut body = String::with_capacity(text.len());
    for (n, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("import ") {
            let bad = || {
                format!(
                    "{name}:{}: an import is `import {{ a, b }} from './x.js';`",
                    n + 1
                )
            };
            let (names, from) = rest.split_once(" from ").ok_or_else(bad)?;
            let names = names
                .trim()
                .strip_prefix('{')
                .and_then(|s| s.strip_suffix('}'))
                .ok_or_else(bad)?;
            let from = from
                .trim()
                .strip_suffix(';')
                .and_then(|s| s.strip_prefix("'./"))
                .and_then(|s| s.strip_suffix('\''))
                .ok_or_else(bad)?;
            let names = names
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            imports.push((from.to_string(), names));
            continue;
        }
        let line = if let Some(rest) = line.strip_prefix("export ") {
            let (kw, tail) = rest.split_once(' ').unwrap_or((rest, ""));
            match kw {
                "const" | "let" => exports.extend(declared(tail)),
                "function" | "class" | "async" => {
                    let tail = tail.strip_prefix("function ").unwrap_or(tail);
                    let id: String = tail.chars().take_while(|&c| is_ident(c)).collect();
                    exports.insert(id);
                }
                _ => {
                    return Err(format!(
                        "{name}:{}: an export this assembly does not read",
                        n + 1
                    ))
                }
            }
            rest
        } else {
            line
        };
        top.extend(top_level(line));
        body.push_str(line);
        body.push('\n');
    }
    Ok(Parsed {
        imports,
        exports,
        top,
        body,
    })
}

/// The identifiers `code` uses (not after a `.`), outside comments and strings.
fn used(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let b: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '\'' || c == '"' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if is_ident(c) && !c.is_ascii_digit() {
            let start = i;
            while i < b.len() && is_ident(b[i]) {
                i += 1;
            }
            let after_dot = start > 0 && b[start - 1] == '.';
            if !after_dot {
                out.insert(b[start..i].iter().collect());
            }
        } else {
            i += 1;
        }
    }
    out
}

/// One script of `entries` and the modules they import (from `modules`), each once.
pub fn assemble(modules: &[Source], entries: &[&str]) -> Result<String, String> {
    let mut parsed = BTreeMap::new();
    for (name, text) in modules {
        parsed.insert(*name, parse(name, text)?);
    }
    // Who exports what, for the check that no name crosses without an import.
    let mut owner: BTreeMap<&str, &str> = BTreeMap::new();
    for (name, p) in &parsed {
        for e in &p.exports {
            if let Some(other) = owner.insert(e.as_str(), name) {
                return Err(format!("{e} is exported by both {other} and {name}"));
            }
        }
    }
    let mut order = Vec::new();
    let mut done = BTreeSet::new();
    fn visit<'a>(
        name: &'a str,
        parsed: &'a BTreeMap<&str, Parsed>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
        order: &mut Vec<&'a str>,
    ) -> Result<(), String> {
        if done.contains(name) {
            return Ok(());
        }
        if path.contains(&name) {
            return Err(format!(
                "a circle of imports: {} -> {name}",
                path.join(" -> ")
            ));
        }
        let p = parsed.get(name).ok_or_else(|| {
            format!(
                "no module {name} (imported by {})",
                path.last().unwrap_or(&"the program")
            )
        })?;
        path.push(name);
        for (from, names) in &p.imports {
            let (key, q) = parsed
                .get_key_value(from.as_str())
                .ok_or_else(|| format!("{name} imports from {from}, which is not a module"))?;
            for n in names {
                if !q.exports.contains(n) {
                    return Err(format!(
                        "{name} imports {n} from {from}, which does not export it"
                    ));
                }
            }
            visit(key, parsed, path, done, order)?;
        }
        path.pop();
        done.insert(name);
        order.push(name);
        Ok(())
    }
    for e in entries {
        visit(e, &parsed, &mut Vec::new(), &mut done, &mut order)?;
    }
    // No name declared at the top of two of the script's modules.
    let mut declarer: BTreeMap<&str, &str> = BTreeMap::new();
    for name in &order {
        for n in &parsed[name].top {
            if let Some(other) = declarer.insert(n.as_str(), name) {
                return Err(format!("{n} is declared by both {other} and {name}"));
            }
        }
    }
    let mut out = String::new();
    for name in &order {
        let p = &parsed[name];
        let imported: BTreeSet<&str> = p
            .imports
            .iter()
            .flat_map(|(_, ns)| ns.iter().map(String::as_str))
            .collect();
        let uses = used(&p.body);
        for n in &imported {
            if !uses.contains(*n) {
                return Err(format!("{name} imports {n} but does not use it"));
            }
        }
        for u in uses {
            if let Some(from) = owner.get(u.as_str()) {
                if from != name && !imported.contains(u.as_str()) {
                    return Err(format!("{name} uses {u}, {from}'s, without importing it"));
                }
            }
        }
        out.push_str(&p.body);
    }
    Ok(out)
}

/// The modules pnacl-translate writes from the runtime's one lists, which the C host reads
/// too: the page channel's record kinds (`host_channel.js`, runtime/ppapi/channel.def) and
/// the names of module `gl`'s imports (`host_gl_entries.js`, runtime/ppapi/gles2.def).
pub fn generated() -> Vec<(&'static str, String)> {
    use crate::translate::site::{channel_module, gl_module};
    vec![
        ("host_channel.js", channel_module()),
        ("host_gl_entries.js", gl_module()),
    ]
}

/// [`assemble`] over the hosts' own modules and the [`generated`] ones, which must
/// assemble: the tests build every program from them.
pub fn program(entries: &[&str]) -> String {
    let generated = generated();
    let mut all: Vec<Source> = MODULES.to_vec();
    all.extend(generated.iter().map(|(n, t)| (*n, t.as_str())));
    assemble(&all, entries).unwrap_or_else(|e| panic!("the JavaScript hosts do not assemble: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_come_after_what_they_import_each_once() {
        let m = [
            (
                "a.js",
                "import { B } from './b.js';\nimport { C } from './c.js';\nconst A = B + C;\n",
            ),
            ("b.js", "import { C } from './c.js';\nexport const B = C;\n"),
            (
                "c.js",
                "export const C = 1, D = [1, 2];\nexport function f(x) { return x; }\n",
            ),
        ];
        let out = assemble(&m, &["a.js"]).unwrap();
        assert_eq!(
            out,
            "const C = 1, D = [1, 2];\nfunction f(x) { return x; }\nconst B = C;\nconst A = B + C;\n"
        );
    }

    #[test]
    fn what_does_not_hold_is_refused() {
        let circle = [
            ("a.js", "import { B } from './b.js';\nexport const A = B;\n"),
            ("b.js", "import { A } from './a.js';\nexport const B = A;\n"),
        ];
        assert!(assemble(&circle, &["a.js"]).unwrap_err().contains("circle"));
        // Each case: its modules (a.js the entry), and what the refusal says.
        let refused: [(&[Source], &str); 5] = [
            (
                &[
                    (
                        "a.js",
                        "import { X } from './b.js';\nconst a = X, ERR = -2;\n",
                    ),
                    ("b.js", "const ERR = -2;\nexport const X = ERR;\n"),
                ],
                "ERR is declared by both",
            ),
            (
                &[
                    (
                        "a.js",
                        "import { X } from './b.js';\nfunction f() { return X; }\n",
                    ),
                    ("b.js", "async function f() {}\nexport const X = f;\n"),
                ],
                "f is declared by both",
            ),
            (
                &[
                    ("a.js", "import { X } from './b.js';\nconst a = 1;\n"),
                    ("b.js", "export const X = 1;\n"),
                ],
                "does not use it",
            ),
            (
                &[
                    ("a.js", "import { X } from './b.js';\n"),
                    ("b.js", "const X = 1;\n"),
                ],
                "does not export",
            ),
            (&[("a.js", "import { X } from './b.js';\n")], "not a module"),
        ];
        for (modules, why) in refused {
            let e = assemble(modules, &["a.js"]).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
        // A name of another module's used without an import (not in a string, a comment
        // or after a dot).
        let silent = [
            (
                "a.js",
                "import { B } from './b.js';\nconst a = B + C; // C\n",
            ),
            ("b.js", "export const B = 1;\nexport const C = 2;\n"),
        ];
        let e = assemble(&silent, &["a.js"]).unwrap_err();
        assert!(
            e.contains("a.js uses C, b.js's, without importing it"),
            "{e}"
        );
        let fine = [
            (
                "a.js",
                "import { B } from './b.js';\nconst a = B + x.C + 'C'; /* C */\n",
            ),
            ("b.js", "export const B = 1;\nexport const C = 2;\n"),
        ];
        assert!(assemble(&fine, &["a.js"]).is_ok());
        let twice = [
            ("a.js", "export const A = 1;\n"),
            ("b.js", "export const A = 2;\n"),
        ];
        assert!(assemble(&twice, &["a.js"]).unwrap_err().contains("both"));
    }

    /// Every program the hosts make assembles (and so holds the checks above), and is a
    /// script node parses.
    #[test]
    fn the_hosts_assemble() {
        let dir = tempfile::tempdir().unwrap();
        // As translate::wasm and translate::site write them: the node launcher a module
        // (its top level awaits), the page's script plain, pnacl.js in a function.
        for (entries, file, wrap) in [
            (&["host_node.js"][..], "program.mjs", false),
            (&["host_web.js"], "program.js", false),
            (&["host_plugin.js"], "pnacl.js", true),
        ] {
            let out = program(entries);
            assert!(
                !out.contains("\nimport ") && !out.contains("\nexport "),
                "{entries:?}"
            );
            let file = dir.path().join(file);
            let text = if wrap {
                format!("(() => {{\n{out}}})();\n")
            } else {
                out
            };
            std::fs::write(&file, text).unwrap();
            let o = std::process::Command::new(crate::tools::NODE)
                .arg("--check")
                .arg(&file)
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "{entries:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}
