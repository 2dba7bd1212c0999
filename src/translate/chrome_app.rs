//! Chrome packaged apps: an app folder whose `manifest.json` has `app.background` (its
//! background scripts, or a background page). Chrome ran the background, which opened the
//! app's windows (`chrome.app.window.create`) on `chrome.app.runtime.onLaunched`. A revived
//! one gets a launcher page ([`LAUNCHER`]) that loads [`SCRIPT`] (runtime/host_chrome.js,
//! with the app's manifest) and then the background, and every page of the app loads the
//! script first: the `chrome.*` calls a page can answer are answered as Chrome answered
//! them, and the rest are said in the console.

use std::path::Path;

/// The script every page of a packaged app loads first.
pub const SCRIPT: &str = "pnacl-chrome.js";
/// The page that launches the app.
pub const LAUNCHER: &str = "pnacl-app.html";

/// A packaged app's manifest, and its background: scripts, or a page (relative URLs of
/// the app's files).
#[derive(Debug)]
pub struct ChromeApp {
    pub manifest: serde_json::Value,
    pub scripts: Vec<String>,
    pub page: Option<String>,
}

/// The packaged app in folder `app`, if its `manifest.json` declares one (Err: a manifest
/// that declares one wrongly).
pub fn of(app: &Path) -> Result<Option<ChromeApp>, String> {
    let Ok(text) = std::fs::read(app.join("manifest.json")) else {
        return Ok(None);
    };
    let Ok(manifest) = serde_json::from_slice::<serde_json::Value>(&text) else {
        return Ok(None);
    };
    let Some(background) = manifest.pointer("/app/background") else {
        return Ok(None);
    };
    let file = |v: &serde_json::Value| -> Result<String, String> {
        let s = v
            .as_str()
            .ok_or("manifest.json: app.background names a file by a string")?;
        let path = s.split(['?', '#']).next().unwrap_or("");
        if path.is_empty()
            || path.contains("://")
            || path.starts_with('/')
            || path.split('/').any(|c| c == "..")
        {
            return Err(format!(
                "manifest.json: app.background: {s}: not a file of the app"
            ));
        }
        if !app.join(path).is_file() {
            return Err(format!(
                "manifest.json: app.background names {s}, which the app does not have"
            ));
        }
        Ok(s.to_string())
    };
    let scripts = match background.get("scripts") {
        Some(serde_json::Value::Array(list)) => list.iter().map(file).collect::<Result<_, _>>()?,
        Some(_) => return Err("manifest.json: app.background.scripts is not a list".into()),
        None => Vec::new(),
    };
    let page = background.get("page").map(file).transpose()?;
    if scripts.is_empty() && page.is_none() {
        return Err("manifest.json: app.background has neither scripts nor a page".into());
    }
    Ok(Some(ChromeApp {
        manifest,
        scripts,
        page,
    }))
}

/// [`SCRIPT`]: runtime/host_chrome.js with the app's manifest, in a function of its own.
pub fn script(app: &ChromeApp) -> String {
    let manifest = serde_json::to_string(&app.manifest).unwrap_or_else(|_| "{}".into());
    // (In a script, "</" must not close it: the manifest's text is the app's.)
    let manifest = manifest.replace("</", "<\\/");
    let host = super::js::program(&["host_chrome.js"]);
    format!("(() => {{\n'use strict';\nconst PNACL_CHROME_MANIFEST = {manifest};\n{host}}})();\n")
}

/// [`LAUNCHER`]: the script, then the background (its scripts in order, or its page in a
/// hidden frame); its `load` launches the app.
pub fn launcher(app: &ChromeApp) -> String {
    let attr = |s: &str| {
        s.replace('&', "&amp;")
            .replace('"', "&quot;")
            .replace('<', "&lt;")
    };
    let name = app
        .manifest
        .get("name")
        .and_then(|n| n.as_str())
        .unwrap_or("app");
    let mut html = format!(
        "<!DOCTYPE html>\n<html data-pnacl-launcher>\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<script src=\"{SCRIPT}\"></script>\n",
        attr(name)
    );
    for s in &app.scripts {
        html += &format!("<script src=\"{}\"></script>\n", attr(s));
    }
    html += "</head>\n<body style=\"margin:0\">\n";
    if let Some(p) = &app.page {
        html += &format!("<iframe src=\"{}\" hidden></iframe>\n", attr(p));
    }
    html += "</body>\n</html>\n";
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app_with(manifest: &str, files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("manifest.json"), manifest).unwrap();
        for f in files {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        dir
    }

    #[test]
    fn a_packaged_app_is_its_background() {
        let d = app_with(
            r#"{"name": "A</script>\"&", "app": {"background": {"scripts": ["a.js", "b.js"]}}}"#,
            &["a.js", "b.js"],
        );
        let app = of(d.path()).unwrap().unwrap();
        assert_eq!(app.scripts, ["a.js", "b.js"]);
        let page = launcher(&app);
        // The scripts in order after the host's; the app's name escaped.
        let at = |s: &str| page.find(s).unwrap();
        assert!(at(SCRIPT) < at("a.js") && at("a.js") < at("b.js"), "{page}");
        assert!(
            page.contains("<title>A&lt;/script>&quot;&amp;</title>"),
            "{page}"
        );
        assert!(!script(&app).contains("A</script>"));
        // A background page: in a hidden frame of the launcher (whose load waits for it).
        let d = app_with(
            r#"{"app": {"background": {"page": "bg.html"}}}"#,
            &["bg.html"],
        );
        let app = of(d.path()).unwrap().unwrap();
        assert_eq!(app.page.as_deref(), Some("bg.html"));
        assert!(launcher(&app).contains("<iframe src=\"bg.html\" hidden></iframe>"));
        // A hosted app, an extension, or no manifest: none.
        let hosted = app_with(r#"{"app": {"launch": {"web_url": "https://x"}}}"#, &[]);
        assert!(of(hosted.path()).unwrap().is_none());
        assert!(of(tempfile::tempdir().unwrap().path()).unwrap().is_none());
    }

    #[test]
    fn a_background_outside_the_app_or_missing_is_refused() {
        for (bg, why) in [
            (r#"{"scripts": ["gone.js"]}"#, "which the app does not have"),
            (r#"{"scripts": ["../x.js"]}"#, "not a file of the app"),
            (
                r#"{"scripts": ["https://x/y.js"]}"#,
                "not a file of the app",
            ),
            (r#"{"page": 7}"#, "by a string"),
            (r#"{}"#, "neither scripts nor a page"),
        ] {
            let d = app_with(&format!(r#"{{"app": {{"background": {bg}}}}}"#), &[]);
            let e = of(d.path()).unwrap_err();
            assert!(e.contains(why), "{bg}: {e}");
        }
    }
}
