//! Chrome-era NaCl web apps revived (`pnacl-translate --site`), and run in headless
//! Chromium from `--serve`, each page written as the app's own was (tests/browser/apps;
//! the pexes come from ../shared):
//!
//! - stockfish: on `load` the page sends `uci`, gets `uciok`, then `position startpos`,
//!   `go depth 12`, and shows a `bestmove`; the same for stockfish_2017 (whose answers
//!   are what it prints: `--stdout-messages`);
//! - hello_tutorial: the page's listener (capture, on a wrapping div) sees the greeting
//!   and the int32 ArrayBuffer its number is answered with;
//! - webpenc: an image the page posts (its canvas's pixels, in a dictionary) comes back as
//!   a WebP file that the browser's decoder reads as the same pixels;
//! - star: a click on the page's button sends the graph, and the path the plugin answers
//!   is shown;
//! - path_tracer (Graphics2D, ImageData, its view's size and scale, a render thread):
//!   the image converges in its element: two screenshots, taken as its iteration count
//!   grows, are many colours each and differ; when the page resizes its element, the
//!   plugin gets the new view and draws at the new size;
//! - the page's test for NaCl (navigator.mimeTypes, as the SDK's common.js) says yes;
//! - one monotonic clock for all of a plugin's threads (tests/programs/clocks.c: a thread
//!   started 500 ms after the main thread read it reads 500 ms later, not its worker's
//!   own count); stockfish's `go movetime 2000` answers within 2.3 s, no `info` line
//!   reporting a negative time;
//! - a Chrome packaged app (packaged: manifest.json's app.background, a background script
//!   that opens a window page, chrome.system.cpu and storage.local, a plugin made by
//!   script): its launcher page runs it as Chrome did, and its plugin answers;
//! - the local file systems kept (tests/programs/keep.c): the page asks for persistent
//!   quota (granted, as Chrome granted an app's), runs the plugin, reloads, and the second
//!   run finds in the origin's private file system what the first wrote;
//! - a page in the SDK's pattern (sdk_common: no element in the page; common.js, a script
//!   of the app, tests navigator.mimeTypes and makes the <embed>) and a page whose own
//!   script tests `navigator.mimeTypes['application/x-nacl']` and `navigator.plugins`
//!   and makes the element (script_embed, path_tracer at 320 x 240): both given the
//!   script and working as they are;
//! - URL loading over fetch (tests/runtime/url-fetch.ll, as the SDK's url_loader was
//!   used): a file the server has (status, then contents), a URL of another origin the
//!   plugin did not allow (PP_ERROR_NOACCESS), a file the server lacks (404, its body);
//! - input events (tests/runtime/input-echo.ll asks for them): a real click on the
//!   element's centre reaches the plugin as a MOUSEDOWN at (100, 50) of its 200 x 100,
//!   one click, a touch a quarter of the way in as a TOUCHSTART at (50, 25), and an input
//!   method's composition as IME updates and text; what it logs through PPB_Console reaches the browser's console at its
//!   level, prefixed with its name;
//! - 3-D graphics (tests/runtime/gl-draw.ll: a context made on the main thread, drawn on
//!   another): what the plugin reads back of its frame and what the page shows are the
//!   same three colours; GL calls with what the plugin's memory cannot hold
//!   (tests/runtime/gl-attack.ll) are GL errors, and the context draws on; glbench mounts
//!   its file system and makes its context (it has no data to draw);
//! - WebSockets (tests/runtime/ws-echo.ll against tests/browser/ws_echo.py): connect,
//!   send, receive, close;
//! - sound (tests/runtime/audio-tone.ll): the page's worklet plays the plugin's buffers at
//!   the rate it asked for;
//! - video (player: pnacl_player, an H.264 player fed frame by frame as its camera page
//!   fed it, a video made with ffmpeg): PPB_VideoDecoder's pictures, drawn with OpenGL
//!   ES, are the source's frames, before and after a reset; and its calls answered as
//!   Chrome's were (decoder: tests/programs/video.c, with versions 1.1 and 0.2);
//! - a plugin that exits after `load`: `crash` fires, `lastError` and `exitStatus` say
//!   so, and the page goes on working; `lastError` is the host's words, never what the
//!   plugin printed (HTML, which a page such as the SDK's showed as HTML).
//!
//! And the command itself: what it writes, and nothing when it fails.
#![cfg(feature = "llvm")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::cargo_bin;

/// The machine for the tests of this file: shared by all of them, but for the one that
/// measures a page's own timer and the browser's memory
/// (a_flooding_plugin_does_not_hang_its_page), which has it alone: on two cores, another
/// browser or translation beside it would make its measure one of them.
static MACHINE: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn shared_machine() -> std::sync::RwLockReadGuard<'static, ()> {
    MACHINE.read().unwrap_or_else(|e| e.into_inner())
}

fn apps() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/apps")
}

/// tests/browser/apps/`app` copied into `dir`/`app`, with `pexe` as `name` (a path in it).
fn app_with(dir: &Path, app: &str, pexe: &Path, name: &str) -> PathBuf {
    fn copy_tree(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy_tree(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let to = dir.join(app);
    copy_tree(&apps().join(app), &to);
    std::fs::copy(pexe, to.join(name)).unwrap();
    to
}

/// The video pages' video, made with ffmpeg: twelve frames of its test pattern at 320 x 240,
/// H.264 High (no B-frames, an access unit delimiter before each frame, BT.601 colours,
/// said so in the stream) as `video.h264`, VP8 (BT.601, as VP8 is) in IVF as `video.ivf`,
/// and the same frames as RGBA as `frames.rgba`.
fn video_for(app: &Path) {
    let source = [
        "-f",
        "lavfi",
        "-i",
        "testsrc2=size=320x240:rate=25",
        "-frames:v",
        "12",
    ];
    let encode = [
        "-vf",
        "scale=out_color_matrix=bt601:out_range=tv",
        "-c:v",
        "libx264",
        "-profile:v",
        "high",
        "-bf",
        "0",
        "-tune",
        "zerolatency",
        "-crf",
        "12",
        "-x264-params",
        "aud=1",
        "-pix_fmt",
        "yuv420p",
        "-colorspace",
        "smpte170m",
        "-color_primaries",
        "smpte170m",
        "-color_trc",
        "smpte170m",
        "-color_range",
        "tv",
        "-f",
        "h264",
    ];
    let vp8 = [
        "-vf",
        "scale=out_color_matrix=bt601:out_range=tv",
        "-c:v",
        "libvpx",
        "-b:v",
        "2M",
        "-deadline",
        "realtime",
        "-lag-in-frames",
        "0",
        "-auto-alt-ref",
        "0",
        "-pix_fmt",
        "yuv420p",
        "-f",
        "ivf",
    ];
    let raw = ["-pix_fmt", "rgba", "-f", "rawvideo"];
    for (args, file) in [
        (&encode[..], "video.h264"),
        (&vp8[..], "video.ivf"),
        (&raw[..], "frames.rgba"),
    ] {
        let o = Command::new("ffmpeg")
            .args(["-hide_banner", "-loglevel", "error", "-y"])
            .args(source)
            .args(args)
            .arg(app.join(file))
            .output()
            .expect("ffmpeg (scripts/setup installs it)");
        assert!(
            o.status.success(),
            "ffmpeg: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

fn revive(app: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(cargo_bin("pnacl-translate"))
        .arg("--site")
        .arg(app)
        .arg("-o")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// The page's result (body[data-result]) in headless Chromium, or what went wrong; with
/// `click`, the element it names is clicked once the page is ready (body[data-ready]).
/// With `shots`, two screenshots of the element it names (wait_page.mjs: PNACL_SHOTS).
fn result_of(url: &str, seconds: u32, click: Option<&str>, shots: Option<&str>) -> String {
    driver(url, seconds, click, shots).0
}

/// The page driver's result and what it says of the page's console.
fn driver(url: &str, seconds: u32, click: Option<&str>, shots: Option<&str>) -> (String, String) {
    driver_with(url, seconds, click, shots, &[])
}

/// The same, with settings for the driver (`PNACL_TOUCH`).
fn driver_with(
    url: &str,
    seconds: u32,
    click: Option<&str>,
    shots: Option<&str>,
    env: &[(&str, &str)],
) -> (String, String) {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/wait_page.mjs");
    let mut cmd = Command::new(pnacl::tools::NODE);
    if let Some(s) = shots {
        cmd.env("PNACL_SHOTS", s);
    }
    cmd.envs(env.iter().copied());
    let out = cmd
        .arg(&driver)
        .arg(pnacl::tools::CHROMIUM)
        .arg(url)
        .arg(seconds.to_string())
        .args(click)
        .output()
        .expect("node runs the page driver");
    let said = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let console = String::from_utf8_lossy(&out.stderr).to_string();
    if said == "timeout" || said.starts_with("error") {
        return (format!("{said}; console: {console}"), console);
    }
    (said, console)
}

#[test]
fn revived_apps_run_in_chromium() {
    let _machine = shared_machine();
    let dir = tempfile::tempdir().unwrap();
    let shared = common::pexes_dir();
    let crasher = common::prelude_pexe(
        dir.path(),
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/crasher.ll"),
    );
    let fetcher = common::prelude_pexe(
        dir.path(),
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/url-fetch.ll"),
    );
    let echo = common::prelude_pexe(
        dir.path(),
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/input-echo.ll"),
    );
    let gl = common::prelude_pexe(
        dir.path(),
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/gl-draw.ll"),
    );
    let ws = common::prelude_pexe(
        dir.path(),
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/ws-echo.ll"),
    );
    let gl_attack = common::prelude_pexe(
        dir.path(),
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/gl-attack.ll"),
    );
    let tone = common::prelude_pexe(
        dir.path(),
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime/audio-tone.ll"),
    );
    let clocks = common::c_program_pexe(dir.path(), "clocks");
    let keep = common::c_program_pexe(dir.path(), "keep");
    let video = common::c_program_pexe(dir.path(), "video");
    let cxx = common::c_program_pexe(dir.path(), "cxx_plugin");
    let cases: [(&str, PathBuf, &str, &[&str]); 22] = [
        ("cxx_plugin", cxx, "cxx_plugin.pexe", &[]),
        ("decoder", video, "video.pexe", &[]),
        (
            "player",
            shared.join("plugins/pnacl_player.pexe"),
            "pnacl_player.pexe",
            &[],
        ),
        (
            "packaged",
            shared.join("parse/hello_tutorial.pexe"),
            "hello_tutorial.pexe",
            &[],
        ),
        ("keep", keep, "keep.pexe", &[]),
        ("clocks", clocks, "clocks.pexe", &[]),
        (
            "sdk_common",
            shared.join("parse/hello_tutorial.pexe"),
            "pnacl/Release/hello_tutorial.pexe",
            &[],
        ),
        (
            "script_embed",
            shared.join("parse/path_tracer.pexe"),
            "path_tracer.pexe",
            &[],
        ),
        (
            "stockfish",
            shared.join("parse/stockfish.pexe"),
            "stockfish.pexe",
            &[],
        ),
        (
            "stockfish",
            shared.join("plugins/stockfish_2017.pexe"),
            "stockfish.pexe",
            &["--stdout-messages"],
        ),
        (
            "hello_tutorial",
            shared.join("parse/hello_tutorial.pexe"),
            "hello_tutorial.pexe",
            &[],
        ),
        ("crash", crasher, "crasher.pexe", &[]),
        ("url_fetch", fetcher, "url-fetch.pexe", &[]),
        ("input", echo, "input-echo.pexe", &[]),
        ("gl_draw", gl, "gl-draw.pexe", &[]),
        ("ws_echo", ws, "ws-echo.pexe", &[]),
        ("gl_attack", gl_attack, "gl-attack.pexe", &[]),
        ("audio", tone, "audio-tone.pexe", &[]),
        (
            "glbench",
            shared.join("plugins/glbench.pexe"),
            "glb_nacl.pexe",
            &[],
        ),
        (
            "webpenc",
            shared.join("parse/webpenc.pexe"),
            "webpenc.pexe",
            &[],
        ),
        ("star", shared.join("parse/star.pexe"), "star.pexe", &[]),
        (
            "path_tracer",
            shared.join("parse/path_tracer.pexe"),
            "path_tracer.pexe",
            &[],
        ),
    ];
    for (k, (app, pexe, name, extra)) in cases.iter().enumerate() {
        let case = dir.path().join(format!("case{k}"));
        let src = app_with(&case, app, pexe, name);
        if *app == "player" || *app == "decoder" {
            video_for(&src);
        }
        let out = case.join("out");
        let o = revive(&src, &out, extra);
        assert!(
            o.status.success(),
            "{app} {pexe:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        // Pages that make the element by script are given the script too, and said so;
        // a packaged app's window page too, and its launcher is named.
        let said = String::from_utf8_lossy(&o.stdout);
        let (page, url_path) = match *app {
            "packaged" => ("window.html", "pnacl-app.html"),
            _ => ("index.html", ""),
        };
        assert!(
            said.contains(&format!("page {page} loads pnacl.js")),
            "{app}: {said}"
        );
        assert_eq!(
            said.contains("a Chrome packaged app: open pnacl-app.html"),
            *app == "packaged",
            "{app}: {said}"
        );
        let server = common::Server::start(&out);
        let click = match *app {
            "star" => Some("#sendToNative"),
            "input" => Some("#plugin"),
            _ => None,
        };
        let shots = (*app == "path_tracer" || *app == "gl_draw").then_some("canvas");
        // The WebSocket page's server (tests/browser/ws_echo.py), until this case ends.
        let echo = (*app == "ws_echo").then(EchoServer::start);
        let url = match &echo {
            Some(e) => format!("{}?ws={}", server.base, e.port),
            None => format!("{}{url_path}", server.base),
        };
        let (result, console) = driver(&url, 150, click, shots);
        drop(echo);
        match *app {
            "stockfish" => {
                assert!(
                    result.starts_with("bestmove ") && result.len() >= 13,
                    "{pexe:?}: {result}"
                );
                // One clock for all of the plugin's threads (workers): a search of 2000 ms
                // answers within 2.3 s of `go`, and no `info` line reports a negative time
                // or one past the search's.
                let timed = result_of(&format!("{}?movetime", server.base), 150, None, None);
                let r: serde_json::Value = serde_json::from_str(&timed)
                    .unwrap_or_else(|e| panic!("{pexe:?}: movetime: {timed}: {e}"));
                let ms = r["ms"].as_i64().unwrap();
                assert!((1900..=2300).contains(&ms), "{pexe:?}: {timed}");
                let times: Vec<i64> = r["times"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|t| t.as_i64().unwrap())
                    .collect();
                assert!(!times.is_empty(), "{pexe:?}: {timed}");
                assert!(
                    times.iter().all(|&t| (0..=2300).contains(&t)),
                    "{pexe:?}: {timed}"
                );
            }
            // The persistent and temporary file systems, kept in the origin's private file
            // system: the page's second run finds what its first wrote (a count, 300,000
            // bytes written in two writes, a rename, a deletion, the temporary file), and
            // the quota asked for is granted.
            // The packaged app launched as Chrome launched it: its background script's
            // onLaunched opened its window at the size asked (its create callback ran
            // before the window's scripts), whose chrome.* calls were answered
            // (system.cpu, storage.local, runtime.getManifest, app.window.current), an API
            // without a web equivalent is undefined and said once, and its plugin, made by
            // script, answers.
            "packaged" => {
                assert_eq!(
                    result,
                    "background app_launcher | main 480x360 | Packaged Primes | true | true | C++ program online. | 2,3"
                );
                assert_eq!(
                    console
                        .matches("chrome.fileSystem: the packaged-app API of Chrome has no equivalent")
                        .count(),
                    1,
                    "{console}"
                );
            }
            // The camera page's player (PPB_VideoDecoder onto WebCodecs, its pictures
            // drawn with OpenGL ES): every frame it was fed drawn, at the video's size,
            // before and after a reset; each as the source frame it was made from (the mean
            // difference of its colours, out of 255, small), and nearer to it than to any
            // other frame of the source.
            "player" => {
                let r: serde_json::Value = serde_json::from_str(&result)
                    .unwrap_or_else(|e| panic!("player: {result}: {e}"));
                let drawn: Vec<u64> = (0..12).chain(0..4).collect();
                assert_eq!(r["drawn"], serde_json::json!(drawn), "{result}");
                assert_eq!(r["size"], serde_json::json!([320, 240]), "{result}");
                assert_eq!(
                    r["said"],
                    serde_json::json!([
                        "initializing",
                        "PP_HARDWAREACCELERATION_WITHFALLBACK",
                        "decoder initialized"
                    ]),
                    "{result}"
                );
                let same = r["same"].as_f64().unwrap();
                let other = r["other"].as_f64().unwrap();
                assert!(same <= 2.0, "not the source's frame: {result}");
                assert!(other >= 3.0 * same, "not told from other frames: {result}");
            }
            // PPB_VideoDecoder's calls answered as Chrome's were (tests/programs/video.c),
            // for H.264 and for VP8:
            // Initialize once (a second fails), a Decode past 4 MiB refused; each unit's
            // picture in order with its decode_id, a 2-D texture of the video's size whose
            // pixels read back are the source frame's ("px"); Flush; a waiting GetPicture
            // ended by Reset; a picture after the Reset; 0.2's 20-byte picture.
            "decoder" => {
                let mut want = vec![serde_json::json!(0), (-2).into(), (-8).into()];
                for i in 0..12 {
                    want.extend([1000, 100 + i, 0x0DE1, 320, 240, 0, 0, 320, 240].map(serde_json::Value::from));
                    want.extend(["px", "px"].map(serde_json::Value::from));
                }
                want.extend([0, -3, 0, 2000, 200].map(serde_json::Value::from));
                want.push("px".into());
                want.extend([0, 3000, 7, 320, 240, 1, 99].map(serde_json::Value::from));
                let got: serde_json::Value = serde_json::from_str(&result)
                    .unwrap_or_else(|e| panic!("decoder: {result}: {e}"));
                assert_eq!(got, serde_json::Value::Array(want.clone()), "{result}");
                // The same with VP8 (its frames from an IVF file).
                let vp8 = result_of(&format!("{}?vp8", server.base), 150, None, None);
                let got: serde_json::Value = serde_json::from_str(&vp8)
                    .unwrap_or_else(|e| panic!("decoder, VP8: {vp8}: {e}"));
                assert_eq!(got, serde_json::Value::Array(want), "VP8: {vp8}");
            }
            "keep" => assert_eq!(result, "1048576 | 0 0 0 65 0 0 99 | 1 1 0 65 0 116 99"),
            // The clock a thread started 500 ms later reads, less the main thread's: one
            // clock for both workers.
            // The C++ plugin (pnacl-clang++) answers the page's commands, its errors
            // exceptions it caught.
            "cxx_plugin" => assert_eq!(
                result,
                "ok 1|ok 2|42|error: division by zero|25|2 40|error: unknown command: nope"
            ),
            "clocks" => {
                let ms: i64 = result
                    .parse()
                    .unwrap_or_else(|_| panic!("clocks: {result}"));
                assert!((500..1000).contains(&ms), "{result}");
            }
            "sdk_common" => {
                let r: serde_json::Value = serde_json::from_str(&result)
                    .unwrap_or_else(|e| panic!("sdk_common: {result}: {e}"));
                assert_eq!(r["greeting"], "C++ program online.", "{result}");
                assert_eq!(r["status"], "RUNNING", "{result}");
                let primes = r["primes"].as_array().unwrap();
                assert!(!primes.is_empty() && primes[0] == 2, "{result}");
            }
            // Its own test for NaCl (the other type, navigator.plugins) passes, as Chrome's
            // list answered it, and the plugin draws at the size the page gave it.
            "script_embed" => assert_eq!(
                result,
                "true internal-nacl-plugin Native Client Executable 320x240"
            ),
            "hello_tutorial" => {
                let r: serde_json::Value = serde_json::from_str(&result)
                    .unwrap_or_else(|e| panic!("hello_tutorial: {result}: {e}"));
                assert_eq!(r["greeting"], "C++ program online.", "{result}");
                // The plugin's count of primes starts from a variable its source never
                // set (tests/ppapi.rs): under WebAssembly its buffer holds the first two.
                let primes: Vec<i64> = r["primes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_i64().unwrap())
                    .collect();
                assert!(
                    !primes.is_empty() && [2, 3, 5, 7].starts_with(&primes),
                    "{result}"
                );
            }
            "webpenc" => {
                let r: serde_json::Value = serde_json::from_str(&result)
                    .unwrap_or_else(|e| panic!("webpenc: {result}: {e}"));
                assert_eq!(r["id"], 1, "{result}");
                assert_eq!(r["riff"], "RIFFWEBP", "{result}");
                assert_eq!(
                    (&r["width"], &r["height"]),
                    (&64.into(), &48.into()),
                    "{result}"
                );
                assert_eq!(
                    r["differ"], 0,
                    "lossless, yet not the same pixels: {result}"
                );
            }
            "star" => assert_eq!(result, r#"{"array":[0, 3, 4]}"#),
            "input" => {
                assert_eq!(result, "1100050", "1000000 x clicks + 1000 x x + y");
                // A touch a quarter of the way in: TOUCHSTART at (50, 25), one changed touch.
                let (touched, _) = driver_with(
                    &format!("{}?touch", server.base),
                    150,
                    Some("#plugin"),
                    None,
                    &[("PNACL_TOUCH", "1")],
                );
                assert_eq!(
                    touched, "1100050 2150025",
                    "2000000 + 100000 x changed + 1000 x x + y"
                );
                // A composition ("ni", then "你"): two updates and the text it made, each
                // 3000000 + 1000 x type + its bytes.
                let (composed, _) = driver_with(
                    &format!("{}?ime", server.base),
                    150,
                    Some("#plugin"),
                    None,
                    &[("PNACL_IME", "1")],
                );
                assert_eq!(composed, "1100050 3012002 3012003 3014003");
                assert!(
                    console.contains("console.warning: input-echo.pexe: 42"),
                    "{console}"
                );
            }
            "gl_draw" => {
                let r: serde_json::Value = serde_json::from_str(&result)
                    .unwrap_or_else(|e| panic!("gl_draw: {result}: {e}"));
                let page: serde_json::Value = serde_json::from_str(r["result"].as_str().unwrap())
                    .unwrap_or_else(|e| panic!("gl_draw: {result}: {e}"));
                // What the plugin read back of its own frame, and what the page shows:
                // the triangle (green), the scissored square (red), the clear (blue).
                let want =
                    serde_json::json!([[0, 255, 0, 255], [255, 0, 0, 255], [0, 0, 255, 255]]);
                assert_eq!(page["gl"], want, "{result}");
                assert_eq!(page["page"], want, "{result}");
                assert_eq!(page["error"], 0, "{result}");
                assert_eq!(page["size"], serde_json::json!([64, 64]), "{result}");
                assert!(page["frames"].as_u64().unwrap() >= 3, "{result}");
                let colours = r["colours"].as_array().unwrap();
                assert!(
                    colours.iter().all(|c| c.as_u64().unwrap() >= 3),
                    "the screenshot is not the frame: {result}"
                );
            }
            "glbench" => {
                let r: serde_json::Value = serde_json::from_str(&result)
                    .unwrap_or_else(|e| panic!("glbench: {result}: {e}"));
                assert_eq!(r["status"], "SUCCESS", "{result}");
                assert_eq!(r["mount"], 0, "its html5fs mounts: {result}");
                assert_eq!(r["context"], true, "{result}");
                assert_eq!(r["initialized"], true, "{result}");
                assert_eq!(r["tests"], "none", "{result}");
                // What the page host lacks (sockets, which no browser gives a page) is
                // named once in the console.
                let named = "PPB_TCPSocket;1.1, which this host does not provide (NULL)";
                assert_eq!(console.matches(named).count(), 1, "{console}");
                assert_eq!(
                    r["lastError"], "NaCl module crashed: the program trapped: unreachable",
                    "{result}"
                );
            }
            "audio" => {
                // Started (1), then the buffers filled at 1 s and at 2 s: the page's worklet
                // plays them at 48,000 frames a second, 512 a buffer (93.75 a second).
                let n: Vec<i64> = result
                    .split(' ')
                    .map(|x| x.parse().unwrap_or_else(|_| panic!("audio: {result}")))
                    .collect();
                assert_eq!(n[0], 1, "{result}");
                let rate = n[2] - n[1];
                assert!((60..=130).contains(&rate), "{rate} buffers a second: {result}");
            }
            "gl_attack" => {
                // Each hostile call a GL error (INVALID_VALUE 1281, OUT_OF_MEMORY 1285,
                // INVALID_OPERATION 1282), none on a resource that is no context, and the
                // context still clears to green (0xff00ff00) without an error; the page
                // runs on, and no call threw inside the host.
                assert_eq!(
                    result,
                    "1281 1281 1285 1281 1281 1281 1285 1281 1281 1282 0 0 -16711936 0 function"
                );
                assert!(!console.contains("pnacl: gl"), "{console}");
            }
            "ws_echo" => assert_eq!(
                result, r#"[-1,0,0,0,"hello",-1,0,1000,1,3]"#,
                "Connect pending, open, sent, received \"hello\", Close pending, closed 1000 cleanly"
            ),
            "url_fetch" => assert_eq!(
                result,
                r#"[200,"The file the server has.\n",-7,404,"not found\n"]"#
            ),
            "path_tracer" => {
                let r: serde_json::Value = serde_json::from_str(&result)
                    .unwrap_or_else(|e| panic!("path_tracer: {result}: {e}"));
                let colours = r["colours"].as_array().unwrap();
                assert!(
                    colours.iter().all(|c| c.as_u64().unwrap() > 1000),
                    "an image of few colours: {result}"
                );
                assert!(r["changed"].as_u64().unwrap() > 1000, "{result}");
                let resized = result_of(&format!("{}?resize", server.base), 150, None, None);
                assert_eq!(resized, "256x192");
            }
            _ => {
                let r: serde_json::Value = serde_json::from_str(&result)
                    .unwrap_or_else(|e| panic!("crash: {result}: {e}"));
                assert_eq!(r["lastError"], "NaCl module crashed", "{result}");
                assert_eq!(r["exitStatus"], 7, "{result}");
                assert_eq!(r["readyState"], 4, "{result}");
                assert_eq!(r["pageStillRuns"], true, "{result}");
                // What it printed last is shown as that, with how long before (not as
                // the cause), and only when it is recent.
                assert!(
                    console.contains("ms before it crashed: <img src=x onerror"),
                    "{console}"
                );
            }
        }
    }
}

/// The page's GL under hostile arguments (fuzz/ppapi/gl.mjs, in node on a stand-in
/// WebGL): 300,000 calls of every import, with sizes at the limits, pointers past the
/// plugin's memory and names it never made: none throws, into the plugin or inside the
/// host, every result is a number, every view the host hands WebGL is within memory.
#[test]
fn the_gl_imports_are_fuzzed() {
    let _machine = shared_machine();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let generated = generated_js();
    for seed in ["1", "2"] {
        let o = Command::new(pnacl::tools::NODE)
            .env("PNACL_GENERATED_JS", generated.path())
            .arg(root.join("fuzz/ppapi/gl.mjs"))
            .args(["300000", seed])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "seed {seed}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// A WebSocket echo server (tests/browser/ws_echo.py) on a port of its own, ended with
/// its standard input when dropped.
struct EchoServer {
    child: std::process::Child,
    port: u16,
}

impl EchoServer {
    fn start() -> EchoServer {
        use std::io::BufRead;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/ws_echo.py");
        let mut child = Command::new("python3")
            .arg(script)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs the WebSocket echo server");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .parse()
            .expect("the echo server prints its port");
        EchoServer { child, port }
    }
}

impl Drop for EchoServer {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What --site writes: the app's files, each manifest's pexe as WebAssembly (not the
/// pexe), pnacl.js, and the script first in each page's head that embeds
/// application/x-pnacl (a page in a subfolder reaches it with ../); other pages as they
/// were.
#[test]
fn the_site_holds_the_app_its_modules_and_the_script() {
    let _machine = shared_machine();
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    std::fs::create_dir_all(app.join("sub")).unwrap();
    std::fs::copy(
        common::pexes_dir().join("parse/hello_tutorial.pexe"),
        app.join("sub/hello.pexe"),
    )
    .unwrap();
    std::fs::write(
        app.join("sub/hello.nmf"),
        r#"{"program":{"portable":{"pnacl-translate":{"url":"hello.pexe"}}}}"#,
    )
    .unwrap();
    std::fs::write(
        app.join("sub/page.html"),
        "<html><HEAD><title>t</title></HEAD><body><embed src=hello.nmf type=application/x-pnacl></body></html>",
    )
    .unwrap();
    std::fs::write(
        app.join("plain.html"),
        "<html><head></head><body>no plugin</body></html>",
    )
    .unwrap();
    std::fs::write(app.join("style.css"), "body{}").unwrap();
    // A page whose script (of the app) makes the element; one whose script does not; a
    // script of another site; a manifest no page names.
    std::fs::create_dir_all(app.join("js")).unwrap();
    std::fs::write(
        app.join("js/make.js"),
        "var e = document.createElement('embed'); e.type = 'application/x-nacl'; e.src = 'sub/hello.nmf';",
    )
    .unwrap();
    std::fs::write(app.join("js/other.js"), "console.log(1);").unwrap();
    let scripted = "<html><head><script src='js/make.js?v=2'></script></head><body></body></html>";
    std::fs::write(app.join("scripted.html"), scripted).unwrap();
    let other = "<html><head><script src=js/other.js></script><script src=\"https://example.com/common.js\"></script></head></html>";
    std::fs::write(app.join("other.html"), other).unwrap();
    std::fs::copy(app.join("sub/hello.pexe"), app.join("lone.pexe")).unwrap();
    std::fs::write(
        app.join("lone.nmf"),
        r#"{"program":{"portable":{"pnacl-translate":{"url":"lone.pexe"}}}}"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = revive(&app, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = String::from_utf8_lossy(&o.stdout);
    let noted = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains("page scripted.html loads pnacl.js"), "{said}");
    assert!(said.contains("page sub/page.html loads pnacl.js"), "{said}");
    assert!(
        !said.contains("other.html") && !said.contains("plain.html"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("other.html")).unwrap(),
        other,
        "a page that embeds no plugin is as it was"
    );
    assert!(std::fs::read_to_string(out.join("scripted.html"))
        .unwrap()
        .starts_with("<html><head><script src=\"pnacl.js\"></script>"),);
    assert!(
        noted.contains("lone.nmf: no page of the app names it"),
        "{noted}"
    );
    assert!(!noted.contains("hello.nmf: no page"), "{noted}");
    assert!(said.contains("sub/hello.wasm"), "{said}");
    assert!(
        said.contains(&format!("--serve {}", out.display())),
        "{said}"
    );
    assert!(out.join("sub/hello.wasm").is_file());
    assert!(!out.join("sub/hello.pexe").exists());
    assert!(out.join("pnacl.js").is_file());
    assert_eq!(std::fs::read(out.join("style.css")).unwrap(), b"body{}");
    assert_eq!(
        std::fs::read_to_string(out.join("plain.html")).unwrap(),
        "<html><head></head><body>no plugin</body></html>"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("sub/page.html")).unwrap(),
        "<html><HEAD><script src=\"../pnacl.js\"></script><title>t</title></HEAD><body><embed src=hello.nmf type=application/x-pnacl></body></html>"
    );
    let wasm = std::fs::read(out.join("sub/hello.wasm")).unwrap();
    assert_eq!(&wasm[..4], b"\0asm");
}

/// A manifest naming a pexe the app lacks, or an output folder that is not new or empty:
/// an error that says so, and no output at all.
#[test]
fn a_failed_revival_writes_nothing() {
    let _machine = shared_machine();
    let dir = tempfile::tempdir().unwrap();
    let app = dir.path().join("app");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("x.nmf"),
        r#"{"program":{"portable":{"pnacl-translate":{"url":"missing.pexe"}}}}"#,
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = revive(&app, &out, &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("x.nmf: names missing.pexe, which the app does not have"),
        "{err}"
    );
    assert!(!out.exists());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["app"], "a work folder was left behind");

    std::fs::write(
        app.join("x.nmf"),
        r#"{"program":{"portable":{"pnacl-translate":{"url":"../outside.pexe"}}}}"#,
    )
    .unwrap();
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep"), "mine").unwrap();
    let o = revive(&app, &out, &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("exists (give a new folder, or an empty one)"),
        "{err}"
    );
    assert_eq!(std::fs::read(out.join("keep")).unwrap(), b"mine");
}

/// The modules pnacl-translate writes from the runtime's lists, in a folder of their own,
/// for node scripts that assemble parts of the hosts (tests/node/host_source.mjs).
fn generated_js() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in pnacl::translate::js::generated() {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// What C program `source` prints, built in `dir` as `name` by the host's compiler with
/// runtime/ppapi's headers (the runtime's lists) on its include path.
fn run_with_runtime_headers(dir: &Path, name: &str, source: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, source).unwrap();
    let bin = dir.join(name);
    let o = Command::new(pnacl::tools::CLANG)
        .arg("-I")
        .arg(root.join("runtime/ppapi"))
        .arg(&c)
        .arg("-o")
        .arg(&bin)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(&bin).output().unwrap();
    assert!(o.status.success(), "{name}: {:?}", o.status);
    String::from_utf8(o.stdout).unwrap()
}

/// The imports of module `gl` agree two ways: as the C host declares them from
/// runtime/ppapi/gles2.def (compiled: each name, in order) and as the page's worker gives
/// them (runtime/host_gl.js's `glImports`, run by node): the same names, each once. A
/// missing one would keep every plugin's module from instantiating in a page.
#[test]
fn the_gl_imports_and_the_page_agree() {
    let _machine = shared_machine();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    // C: gles2.def through the macros the host declares its imports with.
    let c = "#include <stdio.h>\ntypedef int GI;\ntypedef float GF;\n#include \"gles2.def\"\n\
             #define NAME(result, name, params) puts(#name);\n#define SKIP(name)\n\
             int main(void) {\n    PA_GL_IMPORTS(NAME, SKIP)\n    return 0;\n}\n";
    let from_c = run_with_runtime_headers(dir.path(), "names", c);
    let from_c: Vec<&str> = from_c.lines().collect();
    // 5 of the context's (a video picture's upload among them), 141 of the core 142
    // (GetString is the host's), 17 of the extensions.
    assert_eq!(from_c.len(), 5 + 141 + 17, "{from_c:?}");
    assert_eq!(from_c, pnacl::translate::gl_imports());
    // The page: the imports glImports makes for a worker, in a context of node's own.
    let script = dir.path().join("names.mjs");
    let host_source = root.join("tests/node/host_source.mjs");
    std::fs::write(
        &script,
        format!(
            "import vm from 'node:vm';\nimport {{ hostSource }} from '{}';\n\
             const context = vm.createContext({{ WebAssembly, Atomics, SharedArrayBuffer, console }});\n\
             vm.runInContext(`${{hostSource(['host_gl.js'])}}\nthis.glImports = glImports; this.glContexts = glContexts;`, context);\n\
             const memory = new WebAssembly.Memory({{ initial: 1, maximum: 1, shared: true }});\n\
             for (const n of Object.keys(context.glImports(memory, () => {{}}, context.glContexts(), 0))) console.log(n);\n",
            host_source.display()
        ),
    )
    .unwrap();
    let generated = generated_js();
    let o = Command::new(pnacl::tools::NODE)
        .env("PNACL_GENERATED_JS", generated.path())
        .arg(&script)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let from_js = String::from_utf8(o.stdout).unwrap();
    let mut from_js: Vec<&str> = from_js.lines().collect();
    let mut from_c = from_c;
    from_js.sort();
    from_c.sort();
    assert_eq!(from_c, from_js);
}

/// The page channel's record kinds agree three ways: as the C host numbers them
/// (runtime/ppapi/channel.h, compiled), as pnacl.js's module of them says (run by node) and as
/// pnacl-translate reads runtime/ppapi/channel.def; each kind once, from 1 in each
/// direction.
#[test]
fn the_channel_kinds_agree_in_c_and_in_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let kinds = pnacl::translate::channel_kinds();
    // C: each kind's number as the host's enum has it.
    let mut c = String::from("#include <stdio.h>\n#include \"channel.h\"\nint main(void) {\n");
    for (d, name, _) in &kinds {
        c += &format!("    printf(\"{d}_{name} %d\\n\", PA_{d}_{name});\n");
    }
    c += "    return 0;\n}\n";
    let from_c = run_with_runtime_headers(dir.path(), "kinds", &c);
    // The page: pnacl.js's constants, evaluated.
    let channel = pnacl::translate::site::channel_module();
    let mut names: Vec<String> = kinds.iter().map(|(d, n, _)| format!("{d}_{n}")).collect();
    names.push("TO_LAST".into());
    let mut test = format!(
        "import {{ {} }} from './host_channel.js';\n",
        names.join(", ")
    );
    for n in &names {
        test += &format!("console.log('{n} ' + {n});\n");
    }
    let js = pnacl::translate::js::assemble(
        &[("host_channel.js", &channel), ("test.js", &test)],
        &["test.js"],
    )
    .unwrap();
    let o = Command::new(pnacl::tools::NODE)
        .arg("-e")
        .arg(&js)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let from_js = String::from_utf8(o.stdout).unwrap();
    let listed: String = kinds
        .iter()
        .map(|(d, name, n)| format!("{d}_{name} {n}\n"))
        .collect();
    assert_eq!(from_c, listed);
    let to = kinds.iter().filter(|k| k.0 == "TO").count();
    assert_eq!(from_js, format!("{listed}TO_LAST {to}\n"));
    // Each direction numbered 1.. in order, every name once; the kinds the host and the
    // page have always used keep their numbers (a page of an older pnacl.js is not
    // mixed with a newer module, but the record tests and fuzz seeds name them).
    for d in ["TO", "FROM"] {
        let nums: Vec<u32> = kinds.iter().filter(|k| k.0 == d).map(|k| k.2).collect();
        assert_eq!(nums, (1..=nums.len() as u32).collect::<Vec<_>>());
    }
    assert!(listed.contains("TO_BIND 1\nTO_FLUSH 2\n") && listed.contains("TO_AUDIO_STOP 11\n"));
    assert!(
        listed.contains("FROM_FLUSHED 1\nFROM_VIEW 2\n") && listed.contains("FROM_WS_ERROR 11\n")
    );
}

/// A hostile plugin cannot hang its page or grow the browser without bound
/// (tests/programs/flood.c, built by pnacl-clang): 3 s of standard error with no newline,
/// and the page channel taken from the plugin's own runtime to send an 8192 x 8192
/// device and 5 s of full-frame flushes of it, and 60,000 random and mutated records
/// there, of every kind channel.def lists (the page channel's fuzzer). Through each flood, the page's own 10 ms timer
/// keeps firing (no gap of 100 ms; under the fuzzer, no hang: none of 500 ms; seen
/// 58-156 ms, at its start), no exception escapes the page's host, the browser stays
/// within 1.5 GiB (a page with nothing: about 1 GiB here, all its processes' resident
/// memory summed), and the plugin gets to say that it sent all of it.
#[test]
fn a_flooding_plugin_does_not_hang_its_page() {
    let _machine = MACHINE.write().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let pexe = dir.path().join("flood.pexe");
    let st = Command::new(cargo_bin("pnacl-clang"))
        .arg("-O2")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/flood.c"))
        .arg("-o")
        .arg(&pexe)
        .status()
        .unwrap();
    assert!(st.success());
    let src = app_with(dir.path(), "flood", &pexe, "flood.pexe");
    let out = dir.path().join("out");
    let o = revive(&src, &out, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let server = common::Server::start(&out);
    // Each page, what the plugin must get to say, and the longest the page's timer may
    // stop: 100 ms under the floods; under the fuzzer, whose records start fetches,
    // sockets, sounds and canvases of the browser's own, no hang (500 ms).
    for (page, said, longest) in [
        (
            "",
            &["attack: stderr flood sent", "standard error beyond"][..],
            100,
        ),
        (
            "channel.html",
            &["attack: channel taken", "attack: channel flood sent"][..],
            100,
        ),
        // The page channel fuzzed: 60,000 random and mutated records (flood.c's fuzz()).
        ("fuzz.html", &["attack: fuzz sent 60000 records"][..], 500),
    ] {
        let url = format!("{}{page}", server.base);
        let (result, console) = driver_with(&url, 120, None, None, &[("PNACL_RSS", "1")]);
        let (json, rss) = result
            .split_once(" rss=")
            .unwrap_or_else(|| panic!("{page}: {result}"));
        let r: serde_json::Value =
            serde_json::from_str(json).unwrap_or_else(|e| panic!("{page}: {result}: {e}"));
        let worst = r["worst"].as_i64().unwrap();
        let ticks = r["ticks"].as_i64().unwrap();
        let rss: u64 = rss.parse().unwrap();
        eprintln!("{page}: {result}");
        assert!(
            worst < longest,
            "{page}: the page's timer stopped for {worst} ms: {result}"
        );
        assert!(
            ticks > 400,
            "{page}: the page's timer fired {ticks} times in 8 s"
        );
        assert!(rss < 1536, "{page}: the browser grew to {rss} MiB");
        for s in said {
            assert!(console.contains(s), "{page}: no {s:?} in: {console}");
        }
        // No exception escaped the page's host.
        assert_eq!(r["errors"].as_i64().unwrap_or(0), 0, "{page}: {result}");
        assert!(!console.contains("exception:"), "{page}: {console}");
    }
}
