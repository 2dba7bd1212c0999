//! A Chrome-era NaCl web app, revived (`pnacl-translate --site APPDIR -o OUTDIR`): the
//! app's files copied; every pexe a manifest (`.nmf`) names translated to WebAssembly
//! beside it (`X.pexe` → `X.wasm`); each page that embeds a plugin (an element of type
//! `application/x-pnacl` or `application/x-nacl`, in its markup or made by a script of the
//! app it loads, as the SDK's common.js made it) given one script, `pnacl.js`
//! (runtime/host_plugin.js and the modules it imports), which turns the element into a
//! working plugin. The output folder is written whole or not at all.

use std::path::{Path, PathBuf};

use super::{chrome_app, err, Error};

/// The name of the page script in the output's top folder.
pub const SCRIPT: &str = "pnacl.js";

/// `pnacl.js`: the shared host and the plugin host, in a function of their own so that
/// none of their names meets the page's; `env`: runtime settings every plugin of the site
/// gets (`PNACL_STDOUT=messages`).
pub fn script(env: &[&str]) -> String {
    let env = serde_json::to_string(env).unwrap_or_else(|_| "[]".into());
    let host = super::js::program(&["host_plugin.js"]);
    format!("(() => {{\n'use strict';\nconst PNACL_SITE_ENV = {env};\n{host}}})();\n")
}

/// The page channel's record kinds as a module of the page's constants (`TO_BIND`, …, and
/// `TO_LAST`, the highest kind to the page), from the list the C host reads.
pub fn channel_module() -> String {
    let kinds = super::channel_kinds();
    let mut js = String::from("// The page channel's record kinds: runtime/ppapi/channel.def.\n");
    for (dir, name, n) in &kinds {
        js += &format!("export const {dir}_{name} = {n};\n");
    }
    let last = kinds.iter().filter(|k| k.0 == "TO").count();
    js += &format!("export const TO_LAST = {last};\n");
    js += &format!(
        "// A kept file's bound: runtime/ppapi/ppb_file.h's PA_FS_MAX_BYTES.\nexport const FS_MAX_BYTES = {};\n",
        super::fs_max_bytes()
    );
    js += "// PPAPI's results: runtime/ppapi/base.h.\n";
    for (name, value) in super::pp_results() {
        js += &format!("export const {name} = {value};\n");
    }
    js
}

/// The names of module `gl`'s imports as a module of the page's (`GL_IMPORTS`), from the
/// list the C host reads: host_gl.js gives each of them and no other.
pub fn gl_module() -> String {
    let names: Vec<String> = super::gl_imports()
        .iter()
        .map(|n| format!("'{n}'"))
        .collect();
    format!(
        "// The imports of module gl: runtime/ppapi/gles2.def.\nexport const GL_IMPORTS = [{}];\n",
        names.join(", ")
    )
}

/// What a revived app holds.
#[derive(Debug, Default)]
pub struct Site {
    /// Each pexe translated (relative to the app's folder), and the manifests naming it.
    pub pexes: Vec<(PathBuf, Vec<PathBuf>)>,
    /// Each page given the script (relative).
    pub pages: Vec<PathBuf>,
    /// Manifests whose program could not be found or read: (manifest, why).
    pub problems: Vec<(PathBuf, String)>,
    /// Manifests no page given the script refers to (by name, in the page or in a script
    /// of the app it loads): their pexes were translated, but nothing seems to load them.
    pub unreached: Vec<PathBuf>,
    /// A Chrome packaged app's launcher page (`chrome_app::LAUNCHER`), if the app is one.
    pub launcher: Option<PathBuf>,
}

/// Revives `app` into `out` (which must not exist, or be an empty folder). `translate`
/// turns a pexe into a WebAssembly module (its input and output paths). Nothing is left
/// at `out` when it fails.
pub fn revive(
    app: &Path,
    out: &Path,
    env: &[&str],
    translate: &mut dyn FnMut(&Path, &Path) -> Result<(), Error>,
) -> Result<Site, Error> {
    if !app.is_dir() {
        return Err(err("site", format!("{}: not a folder", app.display())));
    }
    if out.exists() {
        let empty = out.is_dir()
            && std::fs::read_dir(out)
                .map(|mut d| d.next().is_none())
                .unwrap_or(false);
        if !empty {
            return Err(err(
                "site",
                format!(
                    "{}: exists (give a new folder, or an empty one)",
                    out.display()
                ),
            ));
        }
    }
    let app = app
        .canonicalize()
        .map_err(|e| err("site", format!("{}: {e}", app.display())))?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let work = tempfile::Builder::new()
        .prefix(".pnacl-site-")
        .tempdir_in(&parent)
        .map_err(|e| err("site", format!("{}: {e}", parent.display())))?;
    let mut files = Vec::new();
    walk(&app, Path::new(""), &mut files)?;
    let chrome = chrome_app::of(&app).map_err(|e| err("site", format!("{}/{e}", app.display())))?;
    for name in [SCRIPT, chrome_app::SCRIPT, chrome_app::LAUNCHER] {
        if files.iter().any(|f| f == Path::new(name)) {
            return Err(err(
                "site",
                format!("{}: already has a {name}", app.display()),
            ));
        }
    }
    let mut site = Site::default();
    // The programs the manifests name.
    for rel in files.iter().filter(|f| has_ext(f, &["nmf"])) {
        match program_of(&app, rel) {
            Ok(pexe) => match site.pexes.iter_mut().find(|(p, _)| *p == pexe) {
                Some((_, by)) => by.push(rel.clone()),
                None => site.pexes.push((pexe, vec![rel.clone()])),
            },
            Err(why) => site.problems.push((rel.clone(), why)),
        }
    }
    for (pexe, by) in &site.pexes {
        if !app.join(pexe).is_file() {
            return Err(err(
                "site",
                format!(
                    "{}: names {}, which the app does not have",
                    by[0].display(),
                    pexe.display()
                ),
            ));
        }
    }
    let pexes: Vec<&PathBuf> = site.pexes.iter().map(|(p, _)| p).collect();
    // What the pages given the script say, and the scripts they load (lower case): where
    // a manifest must be named for a page to load it.
    let mut seen_text = Vec::new();
    for rel in &files {
        let from = app.join(rel);
        let to = work.path().join(rel);
        if let Some(d) = to.parent() {
            std::fs::create_dir_all(d).map_err(|e| err("site", format!("{}: {e}", d.display())))?;
        }
        if pexes.contains(&rel) {
            continue;
        }
        let data =
            std::fs::read(&from).map_err(|e| err("site", format!("{}: {e}", from.display())))?;
        let data = match has_ext(rel, &["html", "htm"]) {
            true => match plugin_page(&app, rel, &data) {
                Some(seen) => {
                    site.pages.push(rel.clone());
                    seen_text.extend_from_slice(&seen);
                    with_script(&data, rel, SCRIPT)
                }
                None => data,
            },
            false => data,
        };
        // A packaged app's pages call chrome.* from their first script on.
        let data = match chrome.is_some() && has_ext(rel, &["html", "htm"]) {
            true => with_script(&data, rel, chrome_app::SCRIPT),
            false => data,
        };
        std::fs::write(&to, data).map_err(|e| err("site", format!("{}: {e}", to.display())))?;
    }
    for (_, by) in &site.pexes {
        for nmf in by {
            let name = nmf
                .file_name()
                .map(|n| n.to_string_lossy().to_ascii_lowercase());
            let stem = nmf
                .file_stem()
                .map(|n| n.to_string_lossy().to_ascii_lowercase());
            let named = [name, stem]
                .into_iter()
                .flatten()
                .any(|n| find(&seen_text, n.as_bytes(), 0).is_some());
            if !named {
                site.unreached.push(nmf.clone());
            }
        }
    }
    for pexe in &pexes {
        translate(
            &app.join(pexe),
            &work.path().join(pexe).with_extension("wasm"),
        )?;
    }
    std::fs::write(work.path().join(SCRIPT), script(env))
        .map_err(|e| err("site", format!("{SCRIPT}: {e}")))?;
    if let Some(c) = &chrome {
        for (name, text) in [
            (chrome_app::SCRIPT, chrome_app::script(c)),
            (chrome_app::LAUNCHER, chrome_app::launcher(c)),
        ] {
            std::fs::write(work.path().join(name), text)
                .map_err(|e| err("site", format!("{name}: {e}")))?;
        }
        site.launcher = Some(PathBuf::from(chrome_app::LAUNCHER));
    }
    if out.exists() {
        std::fs::remove_dir(out).map_err(|e| err("site", format!("{}: {e}", out.display())))?;
    }
    let kept = work.keep();
    std::fs::rename(&kept, out).map_err(|e| {
        let _ = std::fs::remove_dir_all(&kept);
        err("site", format!("{}: {e}", out.display()))
    })?;
    Ok(site)
}

fn has_ext(p: &Path, exts: &[&str]) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// The app's regular files beneath `dir` (relative paths), hidden ones left out; a
/// symbolic link is followed only where it stays in the app.
fn walk(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let dir = root.join(rel);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| err("site", format!("{}: {e}", dir.display())))?
        .filter_map(|e| e.ok())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let r = rel.join(&name);
        let Ok(real) = root.join(&r).canonicalize() else {
            continue;
        };
        if !real.starts_with(root) {
            continue;
        }
        if real.is_dir() {
            walk(root, &r, out)?;
        } else if real.is_file() {
            out.push(r);
        }
    }
    Ok(())
}

/// The pexe manifest `nmf` (relative to the app) names: `program.portable.pnacl-translate.url`,
/// relative to the manifest, within the app.
fn program_of(app: &Path, nmf: &Path) -> Result<PathBuf, String> {
    let text = std::fs::read(app.join(nmf)).map_err(|e| e.to_string())?;
    let json: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| format!("not JSON: {e}"))?;
    let url = json
        .pointer("/program/portable/pnacl-translate/url")
        .and_then(|u| u.as_str())
        .ok_or("names no program.portable.pnacl-translate.url")?;
    let path = url.split(['?', '#']).next().unwrap_or("");
    if path.contains("://") || path.starts_with('/') || path.is_empty() {
        return Err(format!("{url}: not a file of the app"));
    }
    let mut p = nmf.parent().map(Path::to_path_buf).unwrap_or_default();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                if !p.pop() {
                    return Err(format!("{url}: outside the app"));
                }
            }
            c => p.push(c),
        }
    }
    Ok(p)
}

/// What marks a plugin: the types of its element (Chrome ran a pexe in either).
const MARKS: [&[u8]; 2] = [b"application/x-pnacl", b"application/x-nacl"];

/// Whether page `data` (at `rel` in `app`) embeds a plugin, in its markup or by script:
/// a plugin's type in the page, or in a script of the app the page loads (the SDK's
/// common.js makes the element). If so, the page's text and its scripts' (lower case).
fn plugin_page(app: &Path, rel: &Path, data: &[u8]) -> Option<Vec<u8>> {
    let mut text = data.to_ascii_lowercase();
    let dir = rel.parent().unwrap_or(Path::new(""));
    let sources = script_sources(&text);
    for src in sources {
        let Some(file) = app_file(dir, &src) else {
            continue;
        };
        // Within the app only (the walk's rule: no way out through a link).
        let Ok(real) = app.join(&file).canonicalize() else {
            continue;
        };
        if real.starts_with(app) && real.is_file() {
            if let Ok(js) = std::fs::read(&real) {
                text.push(b'\n');
                text.extend_from_slice(&js.to_ascii_lowercase());
            }
        }
    }
    MARKS
        .iter()
        .any(|m| find(&text, m, 0).is_some())
        .then_some(text)
}

/// The `src` of each `<script>` of lower-cased page `page`.
fn script_sources(page: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = find(page, b"<script", from) {
        let end = find(page, b">", i).unwrap_or(page.len());
        let tag = &page[i..end];
        from = end;
        let Some(at) = find(tag, b"src", 0) else {
            continue;
        };
        let rest = &tag[at + 3..];
        let rest = rest.trim_ascii_start();
        let Some(rest) = rest.strip_prefix(b"=") else {
            continue;
        };
        let rest = rest.trim_ascii_start();
        let value = match rest.first() {
            Some(&q @ (b'"' | b'\'')) => rest[1..].split(|&c| c == q).next().unwrap_or(b""),
            _ => rest
                .split(|c| c.is_ascii_whitespace() || *c == b'>')
                .next()
                .unwrap_or(b""),
        };
        out.push(String::from_utf8_lossy(value).into_owned());
    }
    out
}

/// The app's file that `url`, in a page in folder `dir`, names: a relative URL (or one
/// from the app's top, `/…`) without query or fragment; None for another site's.
fn app_file(dir: &Path, url: &str) -> Option<PathBuf> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    if path.contains("://") || path.starts_with("//") || path.is_empty() {
        return None;
    }
    let mut p = match path.strip_prefix('/') {
        Some(_) => PathBuf::new(),
        None => dir.to_path_buf(),
    };
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                p.pop();
            }
            c => p.push(c),
        }
    }
    Some(p)
}

/// Page `data` (at `rel`) with `<script src=".../NAME">` (a script at the site's top)
/// first in its head.
fn with_script(data: &[u8], rel: &Path, name: &str) -> Vec<u8> {
    let lower = data.to_ascii_lowercase();
    let depth = rel.components().count().saturating_sub(1);
    let tag = format!("<script src=\"{}{name}\"></script>", "../".repeat(depth));
    // After `<head ...>`, else after `<html ...>`, else after the doctype, else first.
    let after = |t: &[u8]| {
        let mut from = 0;
        while let Some(i) = find(&lower, t, from) {
            let next = lower.get(i + t.len()).copied();
            if matches!(next, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')) {
                return Some(find(&lower, b">", i)? + 1);
            }
            from = i + 1;
        }
        None
    };
    let at = after(b"<head")
        .or_else(|| after(b"<html"))
        .or_else(|| after(b"<!doctype"))
        .unwrap_or(0);
    let mut out = Vec::with_capacity(data.len() + tag.len());
    out.extend_from_slice(&data[..at]);
    out.extend_from_slice(tag.as_bytes());
    out.extend_from_slice(&data[at..]);
    out
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}
