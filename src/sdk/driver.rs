//! pnacl-clang and pnacl-clang++: C and C++ source to a pexe, with clang's own conventions.
//! Each source is compiled by clang-14 for `le32-unknown-nacl` against the C library's
//! headers (and for C++, libc++'s) into a bitcode object; then (unless `-c`, `-S` or `-E`)
//! every object and archive is linked with the C library, and for pnacl-clang++ the C++
//! library (`link`), only the entry point stays external and what nothing reaches goes
//! (`simplify::prepare`), the whole program is optimized (at `-O1` and above), simplified
//! into the PNaCl subset (`simplify::lower`), stripped, checked against every ABI rule and
//! frozen as pnacl-freeze writes pexes (optionally compressed).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context;

use super::archive::Archive;
use super::libc::{self, TARGET_FLAGS};
use super::libcxx::{self, Libcxx};
use super::link::{self, Input};

/// Why pnacl-clang stopped: messages to report (none when the compiler has already said
/// why on standard error).
#[derive(Debug)]
pub struct Failure(pub Vec<String>);

impl Failure {
    fn one(msg: impl Into<String>) -> Failure {
        Failure(vec![msg.into()])
    }
}

/// What to produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Preprocess,
    /// `-S -emit-llvm`: LLVM text.
    Text,
    /// `-c`: bitcode objects.
    Object,
    Pexe,
}

/// Which driver: pnacl-clang or pnacl-clang++.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    C,
    Cxx,
}

impl Driver {
    pub fn name(self) -> &'static str {
        match self {
            Driver::C => "pnacl-clang",
            Driver::Cxx => "pnacl-clang++",
        }
    }
    pub fn help(self) -> &'static str {
        match self {
            Driver::C => HELP,
            Driver::Cxx => HELP_CXX,
        }
    }
}

/// The command line, understood.
#[derive(Debug)]
pub struct Options {
    driver: Driver,
    stage: Stage,
    output: Option<String>,
    opt: String,
    /// Flags for each compile (`-I`, `-D`, `-std=`, `-W…`, `-f…`, `-g`, …), as given.
    compile: Vec<String>,
    /// `-x LANG` as given, before each input it applies to.
    inputs: Vec<(Option<String>, String)>,
    lib_dirs: Vec<String>,
    libs: Vec<String>,
    verbose: bool,
    compress: bool,
    no_stdlib: bool,
    /// `-nostdlib++`: no C++ library.
    no_stdlib_cxx: bool,
    keep_names: bool,
}

// The option lines pnacl-clang's and pnacl-clang++'s help texts share.
macro_rules! options_first {
    () => {
        "  -o FILE          write the output here (default: a.out, or FILE.o with -c)
  -c               compile each source to a bitcode object, do not link
  -S -emit-llvm    compile to LLVM text (.ll)
  -E               preprocess only
  -O0 -O1 -O2 -O3 -Os -Oz
                   optimization: each file, and the whole program when linking
"
    };
}
macro_rules! options_link {
    () => {
        "  -L DIR, -lNAME   archives to link (libNAME.a, searched in the -L directories)
"
    };
}
macro_rules! options_output {
    () => {
        "  --compress       write the pexe compressed (pnacl-compress's abbreviations)
  --no-strip-syms  keep the names of internal functions and globals
  -v               show the commands run and the steps taken
"
    };
}
macro_rules! options_last {
    () => {
        "  -h, --help       this text
  -V, --version    the version
"
    };
}

pub const HELP: &str = concat!(
    "pnacl-clang: compile C for PNaCl and link it into a pexe

Usage: pnacl-clang [options] FILE...

Inputs: C sources (.c; `-` with -x c), bitcode objects (.o/.bc, as `pnacl-clang -c` writes),
bitcode archives (.a). With neither -c, -S nor -E they are linked with the C library
(newlib and libnacl, built on first use from Debian's newlib-source) into one pexe.

Options:
",
    options_first!(),
    "  -I DIR, -D NAME[=VALUE], -U NAME, -include FILE, -isystem DIR, -std=STD, -W..., -f..., -g
                   as clang has them
",
    options_link!(),
    "  -x LANG          the language of the inputs after it
  -nostdlib        link no C library (the program brings its own _start)
",
    options_output!(),
    "  --build-libc     build the C library now (it is built on first use otherwise) and
                   print the directory it is kept in
",
    options_last!(),
    "
C++ sources are pnacl-clang++'s.
",
);

pub const HELP_CXX: &str = concat!(
    "pnacl-clang++: compile C++ (and C) for PNaCl and link it into a pexe

Usage: pnacl-clang++ [options] FILE...

Inputs: C++ sources (.cpp .cc .cxx .C .c++; .c is C++ too, as clang++ has it; `-` with
-x c++), bitcode objects (.o/.bc), bitcode archives (.a). With neither -c, -S nor -E
they are linked with the C++ library (libc++ and libc++abi, built on first use from
Debian's emscripten package's sources) and the C library into one pexe.

C++ exceptions work as the NaCl SDK's did with --pnacl-exceptions=sjlj: each call that
may throw into a handler or a destructor (an invoke) saves a setjmp context first, and a
throw jumps to the innermost one. -fno-exceptions compiles a source without them (no
try, catch or throw; no contexts saved; a throw from the library then ends the program
as an uncaught exception does).

Options:
",
    options_first!(),
    "  -std=STD         the C++ dialect (clang's default: gnu++14)
  -stdlib=libc++   the only C++ library there is
  -fno-exceptions, -fno-rtti
                   as clang++ has them
  -I DIR, -D NAME[=VALUE], -U NAME, -include FILE, -isystem DIR, -W..., -f..., -g
                   as clang++ has them
",
    options_link!(),
    "  -x LANG          the language of the inputs after it (c++, c)
  -nostdlib        link no library at all (the program brings its own _start)
  -nostdlib++      link no C++ library
",
    options_output!(),
    "  --build-libc     build the C and C++ libraries now (they are built on first use
                   otherwise) and print the directories they are kept in
",
    options_last!(),
);

/// Parses pnacl-clang's (or pnacl-clang++'s) command line.
pub fn parse(driver: Driver, args: &[String]) -> Result<Options, Failure> {
    let mut o = Options {
        driver,
        stage: Stage::Pexe,
        output: None,
        opt: "-O0".into(),
        compile: Vec::new(),
        inputs: Vec::new(),
        lib_dirs: Vec::new(),
        libs: Vec::new(),
        verbose: false,
        compress: false,
        no_stdlib: false,
        no_stdlib_cxx: false,
        keep_names: false,
    };
    let mut emit_llvm = false;
    let mut text = false;
    let mut lang: Option<String> = None;
    let mut i = 0;
    // An option that takes a value, joined (`-Ifoo`) or separate (`-I foo`).
    let value = |i: &mut usize, flag: &str, a: &str| -> Result<String, Failure> {
        if a.len() > flag.len() {
            return Ok(a[flag.len()..].to_string());
        }
        *i += 1;
        args.get(*i)
            .cloned()
            .ok_or_else(|| Failure::one(format!("argument to '{flag}' is missing")))
    };
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-c" => o.stage = Stage::Object,
            "-S" => text = true,
            "-E" => o.stage = Stage::Preprocess,
            "-emit-llvm" => emit_llvm = true,
            "-v" => o.verbose = true,
            "--compress" => o.compress = true,
            "--no-strip-syms" => o.keep_names = true,
            "-nostdlib" | "-nodefaultlibs" => o.no_stdlib = true,
            "-nostdlib++" => o.no_stdlib_cxx = true,
            "-stdlib=libc++" => {}
            _ if a.starts_with("-stdlib=") => {
                return Err(Failure::one(format!(
                    "'{a}': pexes have one C++ library, libc++ (-stdlib=libc++)"
                )))
            }
            "-pthread" | "-s" | "-static" => {}
            "-" => o.inputs.push((lang.clone(), "-".into())),
            _ if a.starts_with("-o") => o.output = Some(value(&mut i, "-o", a)?),
            _ if a.starts_with("-O") => o.opt = a.to_string(),
            _ if a.starts_with("-x") => {
                let l = value(&mut i, "-x", a)?;
                lang = (l != "none").then_some(l);
            }
            _ if a.starts_with("-L") => o.lib_dirs.push(value(&mut i, "-L", a)?),
            _ if a.starts_with("-l") => o.libs.push(value(&mut i, "-l", a)?),
            _ if a == "-include" || a == "-isystem" || a == "-idirafter" || a == "-iquote" => {
                let v = value(&mut i, a, a)?;
                o.compile.push(a.to_string());
                o.compile.push(v);
            }
            _ if a.starts_with("-I") || a.starts_with("-D") || a.starts_with("-U") => {
                let flag = &a[..2];
                let v = value(&mut i, flag, a)?;
                o.compile.push(format!("{flag}{v}"));
            }
            _ if a.starts_with("-std=")
                || a.starts_with("-W")
                || a == "-w"
                || a.starts_with("-f")
                || a.starts_with("-g")
                || a == "-pedantic"
                || a == "-ansi"
                || a == "-Werror" =>
            {
                if a.starts_with("-Wl,") {
                    return Err(Failure::one(format!(
                        "'{a}': pexes are linked by pnacl-clang itself, there is no linker to pass options to"
                    )));
                }
                o.compile.push(a.to_string());
            }
            _ if a.starts_with("-m") => {
                return Err(Failure::one(format!(
                    "'{a}': a pexe is for no machine in particular (le32); there are no machine options"
                )))
            }
            _ if a.starts_with('-') => {
                return Err(Failure::one(format!("unknown argument: '{a}' (see --help)")))
            }
            _ => o.inputs.push((lang.clone(), a.to_string())),
        }
        i += 1;
    }
    if text {
        if !emit_llvm {
            return Err(Failure::one(
                "-S writes LLVM text only: use -S -emit-llvm (a pexe has no assembly)",
            ));
        }
        if o.stage != Stage::Preprocess {
            o.stage = Stage::Text;
        }
    }
    if o.inputs.is_empty() {
        return Err(Failure::one("no input files (see --help)"));
    }
    if o.stage != Stage::Pexe && o.output.is_some() && o.inputs.len() > 1 {
        return Err(Failure::one(
            "cannot specify -o with -c, -S or -E and more than one input",
        ));
    }
    Ok(o)
}

/// What a source is, by `-x` or its name's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    C,
    Cxx,
}

fn lang_of(driver: Driver, lang: &Option<String>, path: &str) -> Option<Lang> {
    match lang.as_deref() {
        Some("c" | "cpp-output") => Some(Lang::C),
        Some("c++" | "c++-cpp-output") => Some(Lang::Cxx),
        Some(_) => None,
        None => {
            let ext = Path::new(path)
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or("");
            match ext {
                // clang++ compiles .c as C++ (and says so); so does pnacl-clang++.
                "c" if driver == Driver::Cxx => Some(Lang::Cxx),
                "c" | "i" => Some(Lang::C),
                "cpp" | "cc" | "cxx" | "C" | "c++" | "cp" | "CPP" | "ii" => Some(Lang::Cxx),
                _ => None,
            }
        }
    }
}

fn is_source(driver: Driver, lang: &Option<String>, path: &str) -> bool {
    lang_of(driver, lang, path).is_some()
}

fn clang() -> Result<PathBuf, Failure> {
    which::which(crate::tools::CLANG).map_err(|_| {
        Failure::one(format!(
            "{} is not installed (install the Debian package clang-14, or run scripts/setup)",
            crate::tools::CLANG
        ))
    })
}

fn default_output(input: &str, ext: &str) -> String {
    let stem = Path::new(input)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("out");
    format!("{stem}.{ext}")
}

/// The libraries a program is compiled against and linked with: the C library, and the
/// C++ library for pnacl-clang++.
pub struct Libs {
    pub c: libc::Libc,
    pub cxx: Option<Libcxx>,
}

impl Libs {
    /// Built now if the cache does not have them (`progress` hears of it).
    pub fn ensure(driver: Driver, progress: &mut dyn FnMut(&str)) -> Result<Libs, String> {
        let c = libc::ensure(progress)?;
        let cxx = match driver {
            Driver::C => None,
            Driver::Cxx => Some(libcxx::ensure(&c, progress)?),
        };
        Ok(Libs { c, cxx })
    }
}

/// Compiles one source with clang-14 for le32: `what` is `-c -emit-llvm`, `-S -emit-llvm`
/// or `-E`. Clang's messages go to standard error as they are.
fn compile(
    o: &Options,
    libs: &Libs,
    lang: &Option<String>,
    input: &str,
    what: &[&str],
    out: &Path,
) -> Result<(), Failure> {
    let clang = clang()?;
    let mut cmd = Command::new(&clang);
    cmd.args(TARGET_FLAGS);
    match (lang_of(o.driver, lang, input), &libs.cxx) {
        (Some(Lang::Cxx), Some(cxx)) => {
            cmd.arg("--driver-mode=g++")
                .args(libcxx::include_flags(cxx, &libs.c));
        }
        (Some(Lang::Cxx), None) => {
            return Err(Failure::one(format!(
                "{input}: a C++ source: compile and link C++ with pnacl-clang++"
            )))
        }
        _ => {
            cmd.arg("-nostdlibinc")
                .arg("-isystem")
                .arg(libs.c.include());
        }
    }
    cmd.arg(&o.opt).args(&o.compile);
    if let Some(l) = lang {
        cmd.arg("-x").arg(l);
    }
    cmd.args(what).arg(input).arg("-o").arg(out);
    if o.verbose {
        eprintln!("{cmd:?}");
    }
    let st = cmd
        .status()
        .map_err(|e| Failure::one(format!("running {}: {e}", clang.display())))?;
    if !st.success() {
        return Err(Failure(Vec::new()));
    }
    Ok(())
}

fn progress_of(driver: Driver, verbose: bool) -> impl FnMut(&str) {
    move |m: &str| {
        // The libraries' builds take minutes: said even without -v.
        if verbose || m.starts_with("building") || m.starts_with("fetching") {
            eprintln!("{}: {m}", driver.name());
        }
    }
}

/// Which driver the program is, by the name it was run as (`pnacl-clang++`, a link to
/// pnacl-clang as clang++ is to clang) or `--driver-mode=g++` (taken out of `args`).
pub fn driver_of(argv0: &std::ffi::OsStr, args: &mut Vec<String>) -> Driver {
    let name = Path::new(argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut d = if name.ends_with("++") {
        Driver::Cxx
    } else {
        Driver::C
    };
    args.retain(|a| match a.as_str() {
        "--driver-mode=g++" => {
            d = Driver::Cxx;
            false
        }
        "--driver-mode=gcc" => {
            d = Driver::C;
            false
        }
        _ => true,
    });
    d
}

/// Runs pnacl-clang or pnacl-clang++.
pub fn run(driver: Driver, args: &[String]) -> Result<(), Failure> {
    let o = parse(driver, args)?;
    let mut progress = progress_of(driver, o.verbose);
    let lib = Libs::ensure(driver, &mut progress).map_err(Failure::one)?;
    match o.stage {
        Stage::Preprocess | Stage::Text | Stage::Object => {
            let (what, ext): (&[&str], &str) = match o.stage {
                Stage::Preprocess => (&["-E"], "i"),
                Stage::Text => (&["-S", "-emit-llvm"], "ll"),
                _ => (&["-c", "-emit-llvm"], "o"),
            };
            for (lang, input) in &o.inputs {
                if !is_source(driver, lang, input) && input != "-" {
                    return Err(Failure::one(format!(
                        "{input}: not a {} source (with -c, -S or -E, inputs are compiled)",
                        if driver == Driver::C { "C" } else { "C++ or C" }
                    )));
                }
                let out = match (&o.output, o.stage) {
                    (Some(p), _) => PathBuf::from(p),
                    (None, Stage::Preprocess) => PathBuf::from("-"),
                    (None, _) => PathBuf::from(default_output(input, ext)),
                };
                if out.as_os_str() == "-" {
                    compile(&o, &lib, lang, input, what, &out)?;
                    continue;
                }
                // Written whole or not at all.
                let pending =
                    crate::output::PendingFile::create(&out, false).map_err(Failure::one)?;
                compile(&o, &lib, lang, input, what, pending.temp_path())?;
                pending.commit().map_err(Failure::one)?;
            }
            Ok(())
        }
        Stage::Pexe => link_pexe(&o, &lib, &mut progress),
    }
}

/// The time each step takes, said on standard error with `PNACL_TIME=1` (scripts/bench
/// reads it).
struct Steps {
    on: bool,
    last: std::time::Instant,
    said: Vec<String>,
}

impl Steps {
    fn new() -> Steps {
        Steps {
            on: std::env::var_os("PNACL_TIME").is_some_and(|v| v == "1"),
            last: std::time::Instant::now(),
            said: Vec::new(),
        }
    }
    fn done(&mut self, step: &str) {
        let now = std::time::Instant::now();
        self.said.push(format!(
            "{step} {:.3}",
            now.duration_since(self.last).as_secs_f64()
        ));
        self.last = now;
    }
}

impl Drop for Steps {
    fn drop(&mut self) {
        if self.on {
            eprintln!("pnacl-clang: time (s): {}", self.said.join(", "));
        }
    }
}

fn link_pexe(o: &Options, lib: &Libs, progress: &mut dyn FnMut(&str)) -> Result<(), Failure> {
    let mut steps = Steps::new();
    let tmp = tempfile::tempdir().map_err(|e| Failure::one(e.to_string()))?;
    // Sources first compiled, two at a time (or as many as there are cores).
    let sources: Vec<(usize, &Option<String>, &String)> = o
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, (l, p))| is_source(o.driver, l, p) || (p == "-" && l.is_some()))
        .map(|(k, (l, p))| (k, l, p))
        .collect();
    let objects: Vec<PathBuf> = (0..o.inputs.len())
        .map(|k| tmp.path().join(format!("{k}.o")))
        .collect();
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let results: Vec<Result<(), Failure>> = std::thread::scope(|s| {
        let chunks: Vec<Vec<&(usize, &Option<String>, &String)>> = (0..jobs)
            .map(|j| sources.iter().skip(j).step_by(jobs).collect())
            .collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let objects = &objects;
                s.spawn(move || {
                    for (k, l, p) in chunk {
                        compile(o, lib, l, p, &["-c", "-emit-llvm"], &objects[*k])?;
                    }
                    Ok(())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut messages = Vec::new();
    for r in results {
        if let Err(Failure(m)) = r {
            messages.extend(m);
            if messages.is_empty() {
                return Err(Failure(Vec::new()));
            }
        }
    }
    if !messages.is_empty() {
        return Err(Failure(messages));
    }
    steps.done("compile");
    let ctx = Context::create();
    let mut inputs = Vec::new();
    for (k, (lang, path)) in o.inputs.iter().enumerate() {
        if is_source(o.driver, lang, path) || (path == "-" && lang.is_some()) {
            let bytes = std::fs::read(&objects[k]).map_err(|e| Failure::one(e.to_string()))?;
            inputs.push(Input::Object(path.clone(), bytes));
            continue;
        }
        let bytes = read_input(path)?;
        inputs.push(input_of(&ctx, path.clone(), bytes)?);
    }
    for l in &o.libs {
        let found = o
            .lib_dirs
            .iter()
            .map(PathBuf::from)
            .chain(std::iter::once(lib.c.lib()))
            .map(|d| d.join(format!("lib{l}.a")))
            .find(|p| p.is_file());
        match found {
            Some(p) => {
                let name = p.display().to_string();
                let bytes = read_input(&name)?;
                inputs.push(input_of(&ctx, name, bytes)?);
            }
            // The C library's parts (libm, libpthread, …) are always linked, and
            // pnacl-clang++'s C++ library.
            None if ["m", "c", "pthread", "nacl", "rt"].contains(&l.as_str()) => {}
            None if lib.cxx.is_some()
                && ["c++", "c++abi", "stdc++", "supc++"].contains(&l.as_str()) => {}
            None => return Err(Failure::one(format!("library not found: -l{l}"))),
        }
    }
    if !o.no_stdlib {
        let cxx = match &lib.cxx {
            Some(cxx) if !o.no_stdlib_cxx => cxx.archives(),
            _ => Vec::new(),
        };
        for a in cxx.into_iter().chain(lib.c.archives()) {
            let name = a.display().to_string();
            let bytes = read_input(&name)?;
            inputs.push(input_of(&ctx, name, bytes)?);
        }
    }
    let model = pexe_of(&ctx, inputs, &o.opt, o.keep_names, progress, &mut |s| {
        steps.done(s)
    })?;
    let mut bytes = crate::bitcode::write(&model).map_err(|e| Failure::one(e.msg()))?;
    if o.compress {
        bytes =
            crate::bitcode::compress::compress(&bytes).map_err(|e| Failure::one(e.to_string()))?;
    }
    let dest = o.output.clone().unwrap_or_else(|| "a.out".into());
    let mut out = crate::output::Output::new(Some(&dest)).map_err(Failure::one)?;
    if out.is_terminal() {
        return Err(Failure::one(
            "refusing to write a binary file to a terminal (use -o FILE)",
        ));
    }
    std::io::Write::write_all(&mut out, &bytes)
        .map_err(|e| Failure::one(format!("{dest}: {}", crate::output::io_reason(&e))))?;
    out.commit().map_err(Failure::one)?;
    steps.done("check and freeze");
    Ok(())
}

/// The back half of pnacl-clang, after compiling: `inputs` linked (from `_start`), the
/// whole program optimized at `opt` (`-O0` none), simplified into the PNaCl subset and
/// checked against the ABI's rules: the pexe's model. Names are stripped unless
/// `keep_names`; `done` is told each step's end.
pub fn pexe_of(
    ctx: &Context,
    inputs: Vec<Input>,
    opt: &str,
    keep_names: bool,
    progress: &mut dyn FnMut(&str),
    done: &mut dyn FnMut(&str),
) -> Result<crate::ir::Module, Failure> {
    progress("linking");
    let allowed: Vec<&str> = crate::simplify::LIBRARY_CALLS
        .iter()
        .copied()
        .chain(crate::simplify::synthesized())
        .collect();
    let mut module =
        link::link(ctx, inputs, &[crate::simplify::ENTRY], &allowed).map_err(Failure::one)?;
    module.verify().map_err(|e| {
        Failure::one(format!(
            "the linked module is not valid LLVM: {}",
            e.to_string().trim()
        ))
    })?;
    done("link");
    crate::simplify::prepare(&mut module).map_err(problems)?;
    done("prepare");
    if opt != "-O0" {
        progress("optimizing the whole program");
        optimize(&mut module, opt).map_err(Failure::one)?;
    }
    done("optimize");
    progress("simplifying into the PNaCl subset");
    let simple = crate::simplify::lower(ctx, &module).map_err(problems)?;
    drop(module);
    done("lower");
    crate::llvm::finalize::strip(&simple);
    let findings = crate::llvm::abicheck::check(
        &simple,
        &crate::llvm::abicheck::Options {
            allow_debug_metadata: false,
            historical_strictness: false,
            ignore_named_metadata: true,
        },
    );
    let errors: Vec<String> = findings
        .iter()
        .filter(|f| !f.warning)
        .map(|f| {
            format!(
                "internal error: the simplified module breaks an ABI rule: {} [spec/001: {}]",
                f.msg, f.rule
            )
        })
        .collect();
    if !errors.is_empty() {
        return Err(Failure(errors));
    }
    if !keep_names {
        crate::llvm::finalize::strip_names(&simple);
    }
    crate::llvm::import::import(&simple).map_err(|e| Failure(e.problems))
}

fn problems(p: Vec<crate::simplify::Problem>) -> Failure {
    let mut v: Vec<String> = p.iter().map(|p| p.to_string()).collect();
    v.push("the program cannot be simplified into the PNaCl subset; no pexe written".into());
    Failure(v)
}

fn read_input(path: &str) -> Result<Vec<u8>, Failure> {
    if path == "-" {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut v)
            .map_err(|e| Failure::one(format!("<stdin>: {e}")))?;
        return Ok(v);
    }
    std::fs::read(path)
        .map_err(|e| Failure::one(format!("{path}: {}", crate::output::io_reason(&e))))
}

/// An input that is not C source: a bitcode object, LLVM text or an archive, recognized by
/// its content.
fn input_of(ctx: &Context, name: String, bytes: Vec<u8>) -> Result<Input, Failure> {
    if bytes.starts_with(super::archive::MAGIC) {
        let mut a = Archive::parse(bytes).map_err(|e| Failure::one(format!("{name}: {e}")))?;
        link::index(ctx, &mut a, &name).map_err(Failure::one)?;
        return Ok(Input::Archive(name, a));
    }
    if bytes.starts_with(b"BC\xc0\xde") || bytes.starts_with(&[0xde, 0xc0, 0x17, 0x0b]) {
        return Ok(Input::Object(name, bytes));
    }
    if bytes.starts_with(b"PEXE") {
        return Err(Failure::one(format!(
            "{name}: a pexe, not an object to link (pnacl-llvm --target le32 turns it into a module)"
        )));
    }
    if bytes.starts_with(b"\x7fELF") {
        return Err(Failure::one(format!(
            "{name}: an ELF file: pnacl-clang links bitcode objects (compile with pnacl-clang -c)"
        )));
    }
    let text = std::str::from_utf8(&bytes).unwrap_or("");
    if text.contains("target triple") || text.contains("define ") || text.contains("declare ") {
        return Ok(Input::Object(name, bytes));
    }
    Err(Failure::one(format!(
        "{name}: not a C source, bitcode object or archive (a file of unknown type)"
    )))
}

/// Whole-program optimization after internalizing (PNaCl's `-std-link-opts`): LLVM's
/// link-time pipeline. The C library's calls are left as they are written (no libcall is
/// invented where none was: the functions it would call may not be in the program).
fn optimize(m: &mut inkwell::module::Module<'_>, level: &str) -> Result<(), String> {
    {
        let mm = crate::llvm::edit::Module::of(m);
        for f in mm.functions() {
            if !f.is_declaration() {
                f.add_fn_string_attr("no-builtins", "");
            }
        }
    }
    let l = match level {
        "-O1" => "O1",
        "-Os" => "Os",
        "-Oz" => "Oz",
        "-O3" | "-O4" | "-Ofast" => "O3",
        _ => "O2",
    };
    crate::llvm::edit::run_passes(m, &format!("lto<{l}>"))
}

/// The arguments of the process, as strings (pnacl-clang's are UTF-8 or an error).
pub fn args_of(os: Vec<OsString>) -> Result<Vec<String>, Failure> {
    os.into_iter()
        .map(|a| {
            a.into_string()
                .map_err(|a| Failure::one(format!("an argument that is not UTF-8: {a:?}")))
        })
        .collect()
}
