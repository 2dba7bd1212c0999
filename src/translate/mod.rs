//! pexe → a program: the model, converted by `llvm::export`, compiled in-process on all
//! cores, linked with the runtime (`runtime/`): by ld.lld into a static ELF executable
//! (x86-32, ARM), or by wasm-ld into a WebAssembly module with its hosts (`wasm`).

pub mod chrome_app;
pub mod host;
pub mod js;
pub mod serve;
pub mod site;
pub mod wasm;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context;

use crate::ir::Module;
use crate::llvm::codegen::{self, OptLevel};
use crate::llvm::export::{region_layout, Layout};
use crate::llvm::{export, ExportOptions, Target};
use crate::target::Runner;

/// The runtime's sources (path below runtime/, text), compiled on first use for each
/// architecture: every .c, .h, .S and .def file there (build.rs lists them).
const SOURCES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/runtime_sources.rs"));

/// The text of runtime file `path` (below runtime/; empty if there is none).
fn runtime_source(path: &str) -> &'static str {
    SOURCES
        .iter()
        .find(|(n, _)| *n == path)
        .map_or("", |(_, s)| s)
}

/// The runtime's units for `target` (the table's; none for a target without a runtime).
fn runtime_units(target: Target) -> &'static [&'static str] {
    target.spec().runtime.as_ref().map_or(&[], |r| r.units)
}

/// Flags of one unit's own: arch_wasm32.S's memcpy and memset are the only code that
/// uses memory.copy and memory.fill (see there).
fn unit_flags(unit: &str) -> &'static [&'static str] {
    if unit == "arch_wasm32.S" {
        &["-mbulk-memory"]
    } else {
        &[]
    }
}

/// A failure, with the stage it happened in.
#[derive(Debug)]
pub struct Error {
    pub stage: &'static str,
    pub msg: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.stage, self.msg)
    }
}

pub fn err(stage: &'static str, msg: impl Into<String>) -> Error {
    Error {
        stage,
        msg: msg.into(),
    }
}

/// Finds an external tool named by toolchain.toml, or says which package provides it.
fn tool(name: &str, package: &str) -> Result<PathBuf, Error> {
    which::which(name).map_err(|_| {
        err(
            "tools",
            format!("{name} is not installed (install the Debian package {package}, or run scripts/setup)"),
        )
    })
}

/// The flags the runtime is compiled with for `target` (C the tests link with it uses
/// them too).
pub fn clang_flags(target: Target) -> &'static [&'static str] {
    target
        .spec()
        .runtime
        .as_ref()
        .map_or(&[], |r| r.clang_flags)
}

/// The runtime objects for `target`, compiled once and cached.
pub fn runtime_objects(target: Target) -> Result<Vec<PathBuf>, Error> {
    runtime_objects_with(target, &[])
}

/// The flags every runtime unit is compiled with (beyond the target's).
const RUNTIME_FLAGS: &[&str] = &[
    "-O2",
    "-ffreestanding",
    "-fno-builtin",
    "-nostdlib",
    "-fno-stack-protector",
    "-fno-pic",
    "-fno-pie",
    "-fno-asynchronous-unwind-tables",
    "-Wall",
    "-Werror=incompatible-function-pointer-types",
    "-Werror=incompatible-pointer-types",
    "-mllvm",
    "-disable-loop-idiom-all",
];

/// The runtime objects for `target` compiled with `extra` flags too (the containment
/// tests build their control group with `-DPNACL_NO_SANDBOX`), cached by everything that
/// makes them: the sources, every flag, and the compiler's own version.
pub fn runtime_objects_with(target: Target, extra: &[&str]) -> Result<Vec<PathBuf>, Error> {
    if !target.runs() {
        return Err(err(
            "runtime",
            format!("{target} has no runtime yet: its programs cannot be linked"),
        ));
    }
    let clang = tool(crate::tools::CLANG, "clang-14")?;
    let mut h = DefaultHasher::new();
    for (n, s) in SOURCES {
        n.hash(&mut h);
        s.hash(&mut h);
    }
    let units = runtime_units(target);
    clang_flags(target).hash(&mut h);
    RUNTIME_FLAGS.hash(&mut h);
    target.spec().link_base.hash(&mut h);
    extra.hash(&mut h);
    for u in units {
        unit_flags(u).hash(&mut h);
    }
    crate::tools::file_identity(&clang).hash(&mut h);
    let name = format!("runtime-{}-{:016x}", target.name(), h.finish());
    let ready = |d: &Path| units.iter().all(|u| d.join(format!("{u}.o")).is_file());
    let dir = crate::tools::cached_dir(&name, ready, |work, out| {
        for (n, s) in SOURCES {
            let path = work.join(n);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            std::fs::write(path, s).map_err(|e| e.to_string())?;
        }
        std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
        for u in units {
            let cmd = Command::new(&clang)
                .args(RUNTIME_FLAGS)
                .args(clang_flags(target))
                .args(target.spec().link_base.map(|_| "-fpie"))
                .args(extra)
                .args(unit_flags(u))
                .arg("-c")
                .arg(work.join(u))
                .arg("-o")
                .arg(out.join(format!("{u}.o")))
                .output()
                .map_err(|e| format!("running {}: {e}", clang.display()))?;
            if !cmd.status.success() {
                return Err(format!(
                    "compiling {u} for {target}: {}",
                    String::from_utf8_lossy(&cmd.stderr)
                ));
            }
        }
        Ok(())
    })
    .map_err(|e| err("runtime", e))?;
    Ok(units.iter().map(|u| dir.join(format!("{u}.o"))).collect())
}

/// Options of a translation.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub target: Target,
    pub opt: OptLevel,
    /// Threads generating code in parallel (1: one module, one thread).
    pub threads: usize,
    /// Run LLVM's verifier on each module before generating code.
    pub verify: bool,
    /// The module passed `abi::check_ssa` (`ExportOptions::ssa_checked`).
    pub ssa_checked: bool,
    pub progress: Progress,
}

/// Compiles partition `part` of `m` (or all of it); `host`: `m` carries the PPAPI host
/// (`host::with_host`), whose partition's object comes from the cache when it is there.
fn compile_one(
    m: &Module,
    opts: &Options,
    part: Option<(u32, &[u32])>,
    host: Option<&host::Part>,
    layout: Option<&Layout>,
) -> Result<Vec<u8>, Error> {
    let portable = matches!((part, host), (Some((k, _)), Some(h)) if k == h.partition);
    let cached = match host {
        Some(h) if portable => Some(h.object_path(opts, layout.map(|l| l.check))?),
        _ => None,
    };
    if let Some(Ok(obj)) = cached.as_ref().map(std::fs::read) {
        return Ok(obj);
    }
    let obj = compile_export(m, opts, part, host.is_some(), portable, layout)?;
    if let Some(path) = cached {
        host::Part::keep(&path, &obj);
    }
    Ok(obj)
}

fn compile_export(
    m: &Module,
    opts: &Options,
    part: Option<(u32, &[u32])>,
    ppapi_host: bool,
    portable: bool,
    layout: Option<&Layout>,
) -> Result<Vec<u8>, Error> {
    let timing = std::env::var_os("PNACL_TIME").is_some();
    let t0 = std::time::Instant::now();
    let since_start = t0.duration_since(*PROCESS_START.get_or_init(std::time::Instant::now));
    let ctx = Context::create();
    let eo = ExportOptions {
        target: opts.target,
        partition: part,
        ssa_checked: opts.ssa_checked,
        // What `codegen::optimize` inlines at -O2 must be in the partition.
        inline_copies: opts.opt == OptLevel::O2,
        ppapi_host,
        portable,
        layout,
    };
    let llmod = export(&ctx, m, &eo).map_err(|e| err("conversion", e.to_string()))?;
    let t1 = std::time::Instant::now();
    // With --verify, LLVM's verifier after each step that makes or changes the module.
    let verify = |stage: &'static str| match opts.verify {
        true => llmod.verify().map_err(|e| {
            err(
                stage,
                format!("the LLVM module does not verify: {}", e.to_string()),
            )
        }),
        false => Ok(()),
    };
    verify("conversion")?;
    let t2 = std::time::Instant::now();
    let tm =
        codegen::target_machine(opts.target, opts.opt).map_err(|e| err("code generation", e))?;
    codegen::optimize(&tm, &llmod, opts.opt, opts.target).map_err(|e| err("optimization", e))?;
    if opts.target.spec().memory.is_region() {
        codegen::trap_unreachables(&llmod);
        codegen::address_once(&llmod);
    }
    codegen::count_zeros_for_codegen(&llmod, opts.target);
    // -O0's instruction selection (FastISel) passes over them itself.
    if opts.opt != OptLevel::O0 {
        codegen::drop_unused(&tm, &llmod).map_err(|e| err("optimization", e))?;
    }
    let t_opt = std::time::Instant::now();
    // Not at -O0, whose instruction selection (FastISel) makes no tail calls.
    if opts.target == Target::Wasm32 && opts.opt != OptLevel::O0 {
        codegen::resume_points(&tm, &llmod);
        verify("resume points")?;
    }
    let obj = codegen::emit_object(&tm, &llmod).map_err(|e| err("code generation", e));
    let t3 = std::time::Instant::now();
    // Freed here, the memory serves the next partition (fewer page faults than leaving
    // it to the end of the process).
    drop(tm);
    drop(llmod);
    drop(ctx);
    if timing {
        eprintln!(
            "partition {:?} on {:?} from {:?}: export {:?}, verify {:?}, optimize {:?}, codegen {:?}, drop {:?}",
            part.map(|p| p.0),
            std::thread::current().id(),
            since_start,
            t1 - t0,
            t2 - t1,
            t_opt - t2,
            t3 - t_opt,
            t3.elapsed()
        );
    }
    obj
}

/// Assigns the defined functions of `m` to partitions for `threads` threads working from
/// one queue, and returns each function's partition and each partition's size (its
/// functions' instructions, plus 16 a function).
///
/// The partitions shrink as they go (guided self-scheduling): each takes a `1/(2·threads)`
/// share of the work not yet assigned, but never less than `1/(16·threads)` of the whole,
/// the largest functions first. The threads start on large partitions and end on small
/// ones, so they finish close together although code generation time is far from
/// proportional to a function's size. Partition 0 is the largest.
pub fn partition(m: &Module, threads: usize) -> (Vec<u32>, Vec<usize>) {
    partition_from(m, threads, 0)
}

/// `partition` of the functions from `first` on (those before it are partition 0's).
fn partition_from(m: &Module, threads: usize, first: usize) -> (Vec<u32>, Vec<usize>) {
    let threads = threads.max(1);
    let mut owners = vec![0u32; m.functions.len()];
    let mut sizes: Vec<(usize, u32)> = m
        .functions
        .iter()
        .enumerate()
        .skip(first)
        .filter_map(|(i, f)| {
            f.body
                .as_ref()
                .map(|b| (b.end.insts - b.start.insts + 16, i as u32))
        })
        .collect();
    sizes.sort_by(|a, b| b.cmp(a));
    let total: usize = sizes.iter().map(|s| s.0).sum();
    let floor = (total / (16 * threads)).max(1);
    let mut left = total;
    let mut loads = vec![0usize];
    let mut target = (left / (2 * threads)).max(floor);
    for (size, f) in sizes {
        if *loads.last().unwrap() >= target {
            loads.push(0);
            target = (left / (2 * threads)).max(floor);
        }
        owners[f as usize] = (loads.len() - 1) as u32;
        *loads.last_mut().unwrap() += size;
        left -= size;
    }
    (owners, loads)
}

/// When `compile` started (the origin of PNACL_TIME's partition timeline).
static PROCESS_START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Compiles `m` to native object files (in memory): one, or one per partition, each
/// partition in its own LLVM context, on `opts.threads` threads taking the partitions
/// from one queue, largest first (see `partition`).
pub fn compile(m: &Module, opts: &Options) -> Result<Vec<Vec<u8>>, Error> {
    compile_planned(m, opts, plan(m, opts), None)
}

/// How `compile` cuts `m` (`partition`): each function's partition and each
/// partition's size, or `None` for one module on one thread.
type Plan = Option<(Vec<u32>, Vec<usize>)>;

fn plan(m: &Module, opts: &Options) -> Plan {
    if opts.threads <= 1 {
        return None;
    }
    let (owners, sizes) = partition(m, opts.threads);
    (sizes.len() > 1).then_some((owners, sizes))
}

/// A plan for a module whose first `host` functions are the PPAPI host's: the others cut
/// as `partition` cuts them (partition 0 holds the globals), the host's one partition
/// more, the last, whose number is returned too.
fn plan_with_host(m: &Module, opts: &Options, host: u32) -> (Vec<u32>, Vec<usize>, u32) {
    let (mut owners, mut sizes) = partition_from(m, opts.threads, host as usize);
    let part = sizes.len() as u32;
    let mut size = 0;
    for (f, o) in owners.iter_mut().enumerate().take(host as usize) {
        if let Some(b) = &m.functions[f].body {
            *o = part;
            size += b.end.insts - b.start.insts + 16;
        }
    }
    sizes.push(size);
    (owners, sizes, part)
}

/// The number of objects `compile_planned` makes from `plan`.
fn object_count(plan: &Plan) -> usize {
    plan.as_ref().map_or(1, |p| p.1.len())
}

fn compile_planned(
    m: &Module,
    opts: &Options,
    plan: Plan,
    host: Option<&host::Part>,
) -> Result<Vec<Vec<u8>>, Error> {
    PROCESS_START.get_or_init(std::time::Instant::now);
    let Some((owners, size)) = plan else {
        opts.progress.say("generating code");
        return Ok(vec![compile_one(m, opts, None, host, None)?]);
    };
    // A region's layout is the same in every partition: computed once here.
    let layout = match opts.target.spec().memory {
        crate::target::Memory::Region(_) => {
            Some(region_layout(m, opts.target).map_err(|e| err("conversion", e.to_string()))?)
        }
        _ => None,
    };
    let parts = size.len();
    let finished = std::sync::atomic::AtomicUsize::new(0);
    opts.progress
        .say(&format!("generating code: 0 of {parts} parts"));
    // The queue hands out the largest partition first.
    let mut order: Vec<u32> = (0..parts as u32).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(size[k as usize]));
    let next = std::sync::atomic::AtomicUsize::new(0);
    type Slot = std::sync::Mutex<Option<Result<Vec<u8>, Error>>>;
    let results: Vec<Slot> = (0..parts).map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..opts.threads.min(parts) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&k) = order.get(i) else { break };
                let r = compile_one(m, opts, Some((k, &owners)), host, layout.as_ref());
                let n = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                opts.progress
                    .say(&format!("generating code: {n} of {parts} parts"));
                let failed = r.is_err();
                *results[k as usize].lock().unwrap() = Some(r);
                if failed {
                    // Stop handing out work; the error is reported below.
                    next.store(order.len(), std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    let mut objs = Vec::with_capacity(parts);
    for r in results {
        match r.into_inner().unwrap_or(None) {
            Some(Ok(o)) => objs.push(o),
            Some(Err(e)) => return Err(e),
            None => {}
        }
    }
    if objs.len() != parts {
        return Err(err(
            "code generation",
            "a code generation thread stopped early",
        ));
    }
    Ok(objs)
}

/// Translates `m` into the executable `out` (written whole or not at all).
///
/// `ld.lld-14` takes about 20 ms just to start (it loads libLLVM), so it is started before
/// code generation, on named pipes where the objects will be: it loads while the code is
/// generated and reads each object from its pipe when it is done. Where pipes cannot be
/// made, the objects go to ordinary files and the linker starts after code generation.
pub fn translate(m: &Module, opts: &Options, out: &Path) -> Result<(), Error> {
    if opts.target.spec().runs == Runner::Wasm {
        return wasm::translate(m, opts, out);
    }
    // Where the pexe is isolated in its region, a plugin's PPAPI host is pexe code too,
    // joined before it: its functions a partition of their own, whose object is cached.
    let with_host = match host::joins(m, opts.target) {
        true => {
            opts.progress.say("joining the PPAPI host");
            Some(host::with_host(m)?)
        }
        false => None,
    };
    let m = with_host.as_ref().map_or(m, |w| &w.module);
    let t0 = std::time::Instant::now();
    let runtime = runtime_objects(opts.target)?;
    let lld = tool(crate::tools::LD_LLD, "lld-14")?;
    let work = tempfile::tempdir().map_err(|e| err("link", e.to_string()))?;
    let tmp = crate::output::PendingFile::create(out, true).map_err(|e| err("output", e))?;
    let (plan, host) = match &with_host {
        Some(w) => {
            let (owners, sizes, part) = plan_with_host(m, opts, w.host_functions);
            (Some((owners, sizes)), Some(host::Part::new(w, part)))
        }
        None => (plan(m, opts), None),
    };
    let objpaths: Vec<PathBuf> = (0..object_count(&plan))
        .map(|k| work.path().join(format!("pexe{k}.o")))
        .collect();
    let piped = objpaths.iter().all(|p| mkfifo(p));
    if !piped {
        // The ordinary files go where the pipes made before the failure are: opening a
        // pipe nobody reads would block.
        for p in &objpaths {
            let _ = std::fs::remove_file(p);
        }
    }
    let log = work.path().join("ld.log");
    let link = |objpaths: &[PathBuf]| {
        Linker::start(&lld, tmp.temp_path(), objpaths, &runtime, opts.target, &log)
    };
    let linker = if piped { Some(link(&objpaths)?) } else { None };
    let objs = compile_planned(m, opts, plan, host.as_ref())?;
    opts.progress.say("linking");
    let t1 = std::time::Instant::now();
    let mut linker = match linker {
        Some(mut l) => {
            l.feed(&objpaths, &objs)?;
            l
        }
        None => {
            for (p, obj) in objpaths.iter().zip(&objs) {
                std::fs::write(p, obj).map_err(|e| err("link", e.to_string()))?;
            }
            link(&objpaths)?
        }
    };
    linker.finish(&lld, &log)?;
    // ld.lld replaced the file with its own, executable as a new file is (0777 less the
    // umask).
    tmp.commit().map_err(|e| err("output", e))?;
    if std::env::var_os("PNACL_TIME").is_some() {
        eprintln!(
            "compile {:?}, link {:?} (objects through {})",
            t1 - t0,
            t1.elapsed(),
            if piped { "pipes" } else { "files" }
        );
    }
    Ok(())
}

/// The architecture of an ELF relocatable object, if it is one these tools link.
pub fn object_target(obj: &[u8]) -> Result<Target, String> {
    if !obj.starts_with(b"\x7fELF") || obj.get(16..18) != Some(&[1, 0]) {
        return Err("not an ELF relocatable object".into());
    }
    // EI_CLASS (1: 32-bit), then e_machine (little-endian) at byte 18.
    let (class, machine) = (obj.get(4), obj.get(18..20));
    if let (Some(&c), Some(&[m0, m1])) = (class, machine) {
        if let Some(t) = Target::of_elf(c, u16::from_le_bytes([m0, m1])) {
            return Ok(t);
        }
    }
    Err(format!(
        "an object for an architecture these tools do not link ({})",
        crate::target::listed(Target::ALL.into_iter().filter(|t| t.spec().elf.is_some()))
    ))
}

/// Links `obj`, an object made by llc from `pnacl-llvm`'s native module, with the runtime
/// into the executable `out` (written whole or not at all).
pub fn link_object(obj: &Path, target: Target, out: &Path) -> Result<(), Error> {
    let runtime = runtime_objects(target)?;
    let lld = tool(crate::tools::LD_LLD, "lld-14")?;
    let work = tempfile::tempdir().map_err(|e| err("link", e.to_string()))?;
    let tmp = crate::output::PendingFile::create(out, true).map_err(|e| err("output", e))?;
    let log = work.path().join("ld.log");
    Linker::start(
        &lld,
        tmp.temp_path(),
        &[obj.to_path_buf()],
        &runtime,
        target,
        &log,
    )?
    .finish(&lld, &log)?;
    tmp.commit().map_err(|e| err("output", e))
}

/// The browser interfaces (`PPB_…`) the runtime's PPAPI host provides anywhere (headless
/// too): runtime/ppapi/interfaces.def's, the one list.
pub fn ppapi_provided() -> Vec<&'static str> {
    ppapi_table(|w| w == "ANYWHERE")
}

/// The browser interfaces the host provides only in a page (`--site`) or with headless
/// graphics: those that need the page's screen (interfaces.def's SCREEN and PAGE ones).
pub fn ppapi_page_provided() -> Vec<&'static str> {
    ppapi_table(|w| w != "ANYWHERE")
}

/// interfaces.def's names whose `where` passes `pick`: each line
/// `PA_INTERFACE("name", table, where)`.
fn ppapi_table(pick: impl Fn(&str) -> bool) -> Vec<&'static str> {
    runtime_source("ppapi/interfaces.def")
        .lines()
        .filter_map(|l| l.trim().strip_prefix("PA_INTERFACE(")?.strip_suffix(')'))
        .filter_map(|args| {
            let mut it = args.split(',').map(str::trim);
            let name = it.next()?.strip_prefix('"')?.strip_suffix('"')?;
            let _table = it.next()?;
            pick(it.next()?).then_some(name)
        })
        .collect()
}

/// The page channel's record kinds (runtime/ppapi/channel.def, which the C host reads
/// too): each as (`"TO"` or `"FROM"`, name, number), numbered from 1 in each direction in
/// the file's order.
/// The host's bound on the bytes of a plugin's kept files (runtime/ppapi/ppb_file.h's
/// `PA_FS_MAX_BYTES`, `(N << S)` or `N`), which the page's records are held to too.
pub fn fs_max_bytes() -> u64 {
    let text = runtime_source("ppapi/ppb_file.h");
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("#define PA_FS_MAX_BYTES "))
        .expect("ppb_file.h defines PA_FS_MAX_BYTES");
    let e = line.trim().trim_start_matches('(').trim_end_matches(')');
    let num = |t: &str| -> u64 {
        t.trim()
            .trim_end_matches('u')
            .parse()
            .expect("PA_FS_MAX_BYTES: a number")
    };
    match e.split_once("<<") {
        Some((n, s)) => num(n) << num(s),
        None => num(e),
    }
}

pub fn channel_kinds() -> Vec<(&'static str, &'static str, u32)> {
    let def = runtime_source("ppapi/channel.def");
    let (mut to, mut from) = (0, 0);
    let mut out = Vec::new();
    for l in def.lines() {
        let l = l.trim();
        let (dir, rest, n) = if let Some(r) = l.strip_prefix("PA_TO(") {
            ("TO", r, &mut to)
        } else if let Some(r) = l.strip_prefix("PA_FROM(") {
            ("FROM", r, &mut from)
        } else {
            continue;
        };
        if let Some((name, _)) = rest.split_once(')') {
            *n += 1;
            out.push((dir, name.trim(), *n));
        }
    }
    out
}

/// PPAPI's result codes as the C host defines them (runtime/ppapi/base.h's `#define
/// PP_OK …` and `PP_ERROR_…` lines): name and value.
pub fn pp_results() -> Vec<(&'static str, i32)> {
    runtime_source("ppapi/base.h")
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("#define ")?.split_whitespace();
            let name = w.next()?;
            if name != "PP_OK" && !name.starts_with("PP_ERROR_") {
                return None;
            }
            let value = w
                .next()?
                .trim_matches(|c| c == '(' || c == ')')
                .parse()
                .ok()?;
            Some((name, value))
        })
        .collect()
}

/// The names of module `gl`'s imports (runtime/ppapi/gles2.def, from which the C host
/// declares them too), in the file's order: each `X(result, name, parameters)` line; the
/// entries written in C (`C(name)`) are no imports.
pub fn gl_imports() -> Vec<&'static str> {
    runtime_source("ppapi/gles2.def")
        .split("X(")
        .skip(1)
        .filter_map(|x| {
            let rest = x.strip_prefix("v, ").or_else(|| x.strip_prefix("i, "))?;
            rest.split(',').next().map(str::trim)
        })
        .collect()
}

/// The browser interfaces `asked` names (as [`ppapi_interfaces`] lists them) that the
/// runtime's PPAPI host does not provide: the plugin gets NULL for each.
pub fn ppapi_lacking(asked: &[String]) -> Vec<String> {
    let provided = ppapi_provided();
    asked
        .iter()
        .filter(|a| a.starts_with("PPB_") && !provided.contains(&a.as_str()))
        .cloned()
        .collect()
}

/// The PPAPI interfaces a pexe asks for by name (`PPB_Core;1.0`, …): the strings of its
/// global data that name one. A pexe that asks for any is a browser plugin.
pub fn ppapi_interfaces(m: &Module) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for g in &m.globals {
        for init in &g.inits {
            let crate::ir::Init::Data(bytes) = init else {
                continue;
            };
            for s in bytes.split(|&b| b == 0) {
                let is_interface = (s.starts_with(b"PPB_") || s.starts_with(b"PPP_"))
                    && s.len() < 64
                    && s.iter().all(|&b| b.is_ascii_graphic());
                if is_interface {
                    out.push(String::from_utf8_lossy(s).into_owned());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Progress on standard error, for a terminal: one line, rewritten as the work goes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Progress {
    pub enabled: bool,
}

impl Progress {
    pub fn say(&self, what: &str) {
        if self.enabled {
            eprint!("\r\x1b[Kpnacl-translate: {what}");
        }
    }

    pub fn done(&self) {
        if self.enabled {
            eprint!("\r\x1b[K");
        }
    }
}

/// Makes a named pipe at `p`; false if it cannot.
fn mkfifo(p: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    extern "C" {
        fn mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
    }
    let Ok(c) = std::ffi::CString::new(p.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    unsafe { mkfifo(c.as_ptr(), 0o600) == 0 }
}

/// A running linker. Dropped before it has finished (an error on the way), it is killed.
struct Linker {
    child: std::process::Child,
}

impl Drop for Linker {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Linker {
    /// Starts ld.lld on `objs` and the runtime, writing `out`, its messages to `log`.
    fn start(
        lld: &Path,
        out: &Path,
        objs: &[PathBuf],
        runtime: &[PathBuf],
        target: Target,
        log: &Path,
    ) -> Result<Linker, Error> {
        let log_file = std::fs::File::create(log).map_err(|e| err("link", e.to_string()))?;
        let child = Command::new(lld)
            .args(["-static", "--no-pie", "-e", "_start", "--gc-sections", "-o"])
            .arg(out)
            .args(
                target
                    .spec()
                    .link_base
                    .map(|a| format!("--image-base={a:#x}")),
            )
            .args(objs)
            .args(runtime)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(log_file)
            .spawn()
            .map_err(|e| err("link", format!("running {}: {e}", lld.display())))?;
        Ok(Linker { child })
    }

    /// Waits for the linker; its messages are the error if it failed.
    fn finish(&mut self, lld: &Path, log: &Path) -> Result<(), Error> {
        let status = self
            .child
            .wait()
            .map_err(|e| err("link", format!("waiting for {}: {e}", lld.display())))?;
        if !status.success() {
            let msg = std::fs::read_to_string(log).unwrap_or_default();
            return Err(err("link", msg.trim_end().to_string()));
        }
        Ok(())
    }

    /// Writes each object into its pipe, in whatever order the linker opens them, without
    /// ever blocking on a linker that has stopped.
    fn feed(&mut self, paths: &[PathBuf], objs: &[Vec<u8>]) -> Result<(), Error> {
        use std::io::{ErrorKind, Write};
        use std::os::unix::fs::OpenOptionsExt;
        const O_NONBLOCK: i32 = 0o4000;
        const ENXIO: i32 = 6;
        // Per pipe: not yet opened, open with so many bytes written, or done.
        let mut files: Vec<Option<std::fs::File>> = paths.iter().map(|_| None).collect();
        let mut written = vec![0usize; paths.len()];
        let mut done = vec![false; paths.len()];
        while done.iter().any(|d| !d) {
            let mut progress = false;
            for k in 0..paths.len() {
                if done[k] {
                    continue;
                }
                if files[k].is_none() {
                    // Opening the write end without blocking fails (ENXIO) until the
                    // linker has opened the read end.
                    match std::fs::OpenOptions::new()
                        .write(true)
                        .custom_flags(O_NONBLOCK)
                        .open(&paths[k])
                    {
                        Ok(f) => files[k] = Some(f),
                        Err(e) if e.raw_os_error() == Some(ENXIO) => continue,
                        Err(e) => return Err(err("link", format!("{}: {e}", paths[k].display()))),
                    }
                }
                let f = files[k].as_mut().expect("opened above");
                loop {
                    match f.write(&objs[k][written[k]..]) {
                        Ok(0) => break,
                        Ok(n) => {
                            written[k] += n;
                            progress = true;
                            if written[k] == objs[k].len() {
                                break;
                            }
                        }
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == ErrorKind::Interrupted => {}
                        // The linker closed the pipe: it stopped, and says why.
                        Err(_) => return Ok(()),
                    }
                }
                if written[k] == objs[k].len() {
                    files[k] = None;
                    done[k] = true;
                    progress = true;
                }
            }
            if !progress {
                if let Ok(Some(_)) = self.child.try_wait() {
                    // It stopped before reading everything; its status and log say why.
                    return Ok(());
                }
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
        }
        Ok(())
    }
}
