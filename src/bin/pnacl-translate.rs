//! pnacl-translate: a pexe → a program, linked with the runtime: a native executable
//! (x86-32 or ARM), or WebAssembly with its node launcher or web page; a Chrome-era web
//! app revived (`--site`); and the loopback server for such pages (`--serve`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use pnacl::cli;
use pnacl::llvm::codegen::OptLevel;
use pnacl::llvm::Target;
use pnacl::translate::{self, Options, Progress};

/// Translate a PNaCl pexe into a static Linux executable (x86-64 and AArch64: the pexe
/// isolated in its own 4 GiB region; x86-32, 32-bit ARM), or into WebAssembly (--arch
/// wasm32), linked with the project's runtime (the NaCl IRT interfaces newlib needs),
/// which confines it (README: Security). For wasm32 the output's
/// extension says what to write: X.wasm the module, X.mjs a launcher (`node X.mjs ARGS`)
/// with X.wasm beside it, X.html a page with X.js and X.wasm beside it. The input may also
/// be an ELF object that llc made from pnacl-llvm's module (`pnacl-llvm X.pexe | llc-14
/// -filetype=obj -o X.o`): it is linked with the runtime as it is.
///
/// With --site APPDIR -o OUTDIR, a Chrome-era NaCl web app is revived: its files are
/// copied, every pexe its manifests (.nmf) name is translated to WebAssembly beside it,
/// and each page that embeds a plugin (in its markup or by its scripts) loads pnacl.js,
/// which makes the element a working plugin in today's browsers; serve OUTDIR with --serve.
#[derive(Parser)]
#[command(name = "pnacl-translate", version = pnacl::cli::VERSION)]
struct Args {
    /// The pexe or object (`-` for standard input).
    #[arg(required_unless_present_any = ["serve", "site"])]
    input: Option<String>,
    /// The program to write (for wasm32: X.wasm, X.mjs or X.html); with --site, the new
    /// folder of the revived app.
    #[arg(short, long, required_unless_present = "serve")]
    output: Option<PathBuf>,
    /// Revive the NaCl web app in folder APPDIR into the folder -o names (see above).
    #[arg(long, value_name = "APPDIR", conflicts_with_all = ["input", "serve", "arch"])]
    site: Option<PathBuf>,
    /// With --site: what a plugin prints to its own standard output becomes its messages,
    /// a line each (PNACL_STDOUT=messages; for plugins that printed their answers, as
    /// stockfish_2017 does).
    #[arg(long, requires = "site")]
    stdout_messages: bool,
    /// x86-32, arm, wasm32, x86-64 or aarch64 (default: this machine's, x86-64 or aarch64
    /// on 64-bit hosts; an object's own).
    #[arg(long, value_parser = runnable_target)]
    arch: Option<Target>,
    /// Serve the pages in DIR on 127.0.0.1 with the headers their threads need
    /// (cross-origin isolation), until interrupted; prints the address.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["input", "output"])]
    serve: Option<PathBuf>,
    /// The port of --serve (default: any free one).
    #[arg(long, requires = "serve", default_value = "0")]
    port: u16,
    /// Optimization level: -O0, -O1 or -O2.
    #[arg(short = 'O', value_parser = parse_opt, default_value = "2")]
    opt: OptLevel,
    /// Threads generating code in parallel (default: the number of cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Run LLVM's verifier on the module before generating code (the conversion is tested
    /// to give verified modules for every real pexe; this re-checks one).
    #[arg(long)]
    verify: bool,
}

fn parse_opt(s: &str) -> Result<OptLevel, String> {
    match s {
        "0" => Ok(OptLevel::O0),
        "1" => Ok(OptLevel::O1),
        "2" => Ok(OptLevel::O2),
        _ => Err(format!("unknown optimization level -O{s} (0, 1 or 2)")),
    }
}

const TOOL: &str = "pnacl-translate";

fn main() -> ExitCode {
    // SIGPIPE stays ignored (Rust's default): the objects go to the linker through pipes,
    // and a linker that stops must give an error, not end this process.
    let args = Args::parse();
    if let Some(dir) = &args.serve {
        return serve(dir, args.port);
    }
    if let Some(app) = &args.site {
        return site(&args, app, args.output.as_deref().unwrap());
    }
    let (input, output) = (args.input.clone().unwrap(), args.output.clone().unwrap());
    if output.as_os_str() == "-" {
        cli::report_msg(
            TOOL,
            "cannot write an executable to standard output (-o -): give it a file name",
        );
        return ExitCode::from(1);
    }
    if args.arch == Some(Target::Wasm32) && translate::wasm::Form::of(&output).is_none() {
        cli::report_msg(
            TOOL,
            format!(
                "{}: for wasm32 the output is X.wasm (the module), X.mjs (a node launcher) \
                 or X.html (a page)",
                output.display()
            ),
        );
        return ExitCode::from(1);
    }
    let Some((name, data)) = cli::read_or_report(TOOL, &input) else {
        return ExitCode::from(1);
    };
    if let cli::InputKind::Elf { object: true } = cli::InputKind::of(&data) {
        return link_object(&args, &input, &output, &name, &data);
    }
    let progress = Progress {
        enabled: std::io::stderr().is_terminal(),
    };
    progress.say(&format!("reading {name}"));
    let t = std::time::Instant::now();
    let Some(module) = cli::read_checked(TOOL, &name, &data, true) else {
        progress.done();
        return ExitCode::from(1);
    };
    if std::env::var_os("PNACL_TIME").is_some() {
        eprintln!("read and check {:?}", t.elapsed());
    }
    // A browser plugin runs on the runtime's PPAPI host; what it asks for and the host
    // lacks, it gets NULL for: said here, all of it.
    let lacking = translate::ppapi_lacking(&translate::ppapi_interfaces(&module));
    if !lacking.is_empty() {
        progress.done();
        let page = translate::ppapi_page_provided();
        let (in_page, never): (Vec<String>, Vec<String>) = lacking
            .into_iter()
            .partition(|i| page.contains(&i.as_str()));
        if !never.is_empty() {
            eprintln!(
                "{TOOL}: note: {name} is a browser plugin (PPAPI) that asks for interfaces the \
                 host does not provide (it gets NULL for them): {}",
                never.join(", ")
            );
        }
        if !in_page.is_empty() {
            eprintln!(
                "{TOOL}: note: {name} is a browser plugin (PPAPI) that asks for interfaces only \
                 a page provides (pnacl-translate --site; run without one, it gets NULL for \
                 them): {}",
                in_page.join(", ")
            );
        }
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = Options {
        target: args.arch.unwrap_or_else(Target::host),
        opt: args.opt,
        threads,
        verify: args.verify,
        // `read_checked` ran `abi::check_all`.
        ssa_checked: true,
        progress,
    };
    let result = translate::translate(&module, &opts, &output);
    pnacl::llvm::codegen::finish_developer_options();
    progress.done();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            cli::report_msg(TOOL, format!("{name}: {e}"));
            ExitCode::from(1)
        }
    }
}

/// Revives the web app in `app` into `out` (`translate::site`).
fn site(args: &Args, app: &std::path::Path, out: &std::path::Path) -> ExitCode {
    let progress = Progress {
        enabled: std::io::stderr().is_terminal(),
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut failed = false;
    let mut translate_one = |pexe: &std::path::Path, wasm: &std::path::Path| {
        let shown = pexe.strip_prefix(app).unwrap_or(pexe).display().to_string();
        let data = std::fs::read(pexe)
            .map_err(|e| translate::err("site", format!("{shown}: {}", cli::io_reason(&e))))?;
        progress.say(&format!("translating {shown}"));
        let Some(module) = cli::read_checked(TOOL, &shown, &data, true) else {
            failed = true;
            return Err(translate::err("site", format!("{shown}: not translated")));
        };
        let opts = Options {
            target: Target::Wasm32,
            opt: args.opt,
            threads,
            verify: args.verify,
            ssa_checked: true,
            progress,
        };
        translate::translate(&module, &opts, wasm)
            .map_err(|e| translate::err("site", format!("{shown}: {e}")))
    };
    let env: &[&str] = if args.stdout_messages {
        &["PNACL_STDOUT=messages"]
    } else {
        &[]
    };
    let result = translate::site::revive(app, out, env, &mut translate_one);
    progress.done();
    match result {
        Ok(site) => {
            for (manifest, why) in &site.problems {
                eprintln!("{TOOL}: note: {}: {why}", manifest.display());
            }
            for (pexe, _) in &site.pexes {
                println!(
                    "translated {} -> {}",
                    pexe.display(),
                    pexe.with_extension("wasm").display()
                );
            }
            for page in &site.pages {
                println!("page {} loads {}", page.display(), translate::site::SCRIPT);
            }
            if let Some(l) = &site.launcher {
                println!(
                    "a Chrome packaged app: open {} (it runs the app's background, which opens its windows, as Chrome did)",
                    l.display()
                );
            }
            for nmf in &site.unreached {
                eprintln!(
                    "{TOOL}: note: {}: no page of the app names it (its pexe is translated all the same)",
                    nmf.display()
                );
            }
            if site.pexes.is_empty() {
                eprintln!(
                    "{TOOL}: note: {}: no manifest names a pexe: nothing was translated",
                    app.display()
                );
            }
            println!("serve it with: pnacl-translate --serve {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            if !failed {
                cli::report_msg(TOOL, e.to_string());
            }
            ExitCode::from(1)
        }
    }
}

/// Serves `dir` on the loopback interface (`translate::serve`).
/// A target a translated program runs on: le32 is the neutral module's, and is refused
/// as every other unknown one is, with the list of those that run.
fn runnable_target(s: &str) -> Result<Target, String> {
    let runs = pnacl::target::listed(Target::ALL.into_iter().filter(|t| t.runs()));
    match s.parse::<Target>() {
        Ok(Target::Le32) => Err(format!(
            "le32 is the neutral module's target, not one that runs ({runs})"
        )),
        Ok(t) if !t.runs() => Err(format!(
            "{t}: pnacl-llvm writes its modules, but its runtime is not built yet ({runs} run)"
        )),
        Ok(t) => Ok(t),
        Err(_) => Err(format!("unknown target '{s}' ({runs})")),
    }
}

fn serve(dir: &std::path::Path, port: u16) -> ExitCode {
    use std::io::Write;
    if !dir.is_dir() {
        cli::report_msg(TOOL, format!("{}: not a directory", dir.display()));
        return ExitCode::from(1);
    }
    let (listener, addr) = match translate::serve::bind(port) {
        Ok(b) => b,
        Err(e) => {
            cli::report_msg(
                TOOL,
                format!("cannot listen on 127.0.0.1:{port}: {}", cli::io_reason(&e)),
            );
            return ExitCode::from(1);
        }
    };
    // What is said goes to standard output, which its reader may close once it has the
    // first line (the address): nothing more is then said, and the server goes on.
    let say = |line: String| {
        let _ = writeln!(std::io::stdout(), "{line}");
    };
    say(format!("serving {} at http://{addr}/", dir.display()));
    // What to open: the folder's index.html, or else each page at its top (or one folder
    // down), so that the address printed is never one that shows "not found".
    if dir.join("index.html").is_file() {
        say(format!("open http://{addr}/"));
    } else {
        let mut pages = Vec::new();
        let mut look = |sub: &std::path::Path| {
            let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
                return Vec::new();
            };
            let mut folders = Vec::new();
            for e in entries.flatten() {
                let path = sub.join(e.file_name());
                let name = e.file_name().to_string_lossy().to_string();
                if e.path().is_dir() {
                    folders.push(path);
                } else if name.ends_with(".html") || name.ends_with(".htm") {
                    pages.push(path);
                }
            }
            folders
        };
        for folder in look(std::path::Path::new("")) {
            look(&folder);
        }
        pages.sort();
        if pages.is_empty() {
            say(format!(
                "(no page in it: open a file by its name under http://{addr}/)"
            ));
        }
        for p in pages.iter().take(20) {
            // Each name percent-encoded but for what a URL's path keeps as it is.
            let url: Vec<String> = p
                .components()
                .map(|c| {
                    c.as_os_str()
                        .to_string_lossy()
                        .bytes()
                        .map(|b| match b {
                            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                                (b as char).to_string()
                            }
                            _ => format!("%{b:02X}"),
                        })
                        .collect()
                })
                .collect();
            say(format!("open http://{addr}/{}", url.join("/")));
        }
        if pages.len() > 20 {
            say(format!("(and {} more pages)", pages.len() - 20));
        }
    }
    let _ = std::io::Write::flush(&mut std::io::stdout());
    match translate::serve::serve(listener, dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            cli::report_msg(TOOL, format!("{}: {}", dir.display(), cli::io_reason(&e)));
            ExitCode::from(1)
        }
    }
}

/// An object file from llc: linked with the runtime of its architecture.
fn link_object(
    args: &Args,
    input: &str,
    output: &std::path::Path,
    name: &str,
    data: &[u8],
) -> ExitCode {
    let target = match translate::object_target(data) {
        Ok(t) => t,
        Err(e) => {
            cli::report_msg(TOOL, format!("{name}: {e}"));
            return ExitCode::from(1);
        }
    };
    if args.arch.is_some_and(|a| a != target) {
        cli::report_msg(
            TOOL,
            format!("{name}: an object for {target}, not {}", args.arch.unwrap()),
        );
        return ExitCode::from(1);
    }
    let path = if input == "-" {
        None
    } else {
        Some(PathBuf::from(input))
    };
    // Standard input goes to a temporary file for the linker.
    let held;
    let obj = match &path {
        Some(p) => p.as_path(),
        None => {
            held = match tempfile::NamedTempFile::new().and_then(|mut f| {
                std::io::Write::write_all(&mut f, data)?;
                Ok(f)
            }) {
                Ok(f) => f,
                Err(e) => {
                    cli::report_msg(TOOL, format!("{name}: {}", cli::io_reason(&e)));
                    return ExitCode::from(1);
                }
            };
            held.path()
        }
    };
    match translate::link_object(obj, target, output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // A region target's program is linked high: its code must be position-
            // independent, which llc makes only when told.
            let region = target.spec().memory.is_region();
            let hint = if region && e.msg.contains("out of range") {
                format!("\n{name}: compiled without -relocation-model=pic? {target} programs are linked high: llc-14 -relocation-model=pic")
            } else {
                String::new()
            };
            cli::report_msg(TOOL, format!("{name}: {e}{hint}"));
            ExitCode::from(1)
        }
    }
}
