//! The C library for pexes, built once per machine and cached (as the runtime is): newlib
//! from Debian's newlib-source, configured and compiled as le32 bitcode the way the NaCl
//! SDK built its bitcode newlib (`../shared/notes/simplify.md` §4), and libnacl, our own
//! start-up, IRT glue, malloc, pthreads and atomics (`sdk/libnacl`), with the headers
//! programs are compiled against. The cache key covers the newlib tarball, our sources,
//! every flag and the compiler, so any change rebuilds it.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Our sources, embedded: the headers laid over newlib's and libnacl.
const HEADERS: &[(&str, &str)] = &[
    ("irt.h", include_str!("../../sdk/include/irt.h")),
    ("pthread.h", include_str!("../../sdk/include/pthread.h")),
    ("semaphore.h", include_str!("../../sdk/include/semaphore.h")),
    (
        "sys/_pthreadtypes.h",
        include_str!("../../sdk/include/sys/_pthreadtypes.h"),
    ),
    ("sys/mman.h", include_str!("../../sdk/include/sys/mman.h")),
    (
        "nacl/nacl_random.h",
        include_str!("../../sdk/include/nacl/nacl_random.h"),
    ),
];

const LIBNACL: &[(&str, &str)] = &[
    ("nacl.h", include_str!("../../sdk/libnacl/nacl.h")),
    ("start.c", include_str!("../../sdk/libnacl/start.c")),
    ("syscalls.c", include_str!("../../sdk/libnacl/syscalls.c")),
    ("malloc.c", include_str!("../../sdk/libnacl/malloc.c")),
    ("tls.c", include_str!("../../sdk/libnacl/tls.c")),
    ("lock.c", include_str!("../../sdk/libnacl/lock.c")),
    ("pthread.c", include_str!("../../sdk/libnacl/pthread.c")),
    ("atomic.c", include_str!("../../sdk/libnacl/atomic.c")),
    ("fma.c", include_str!("../../sdk/libnacl/fma.c")),
    ("math.c", include_str!("../../sdk/libnacl/math.c")),
    ("complex.c", include_str!("../../sdk/libnacl/complex.c")),
];

/// The text of libnacl's file `name` (the PPAPI host of region targets is built with its
/// atomics: `translate::host`).
pub fn libnacl_source(name: &str) -> Option<&'static str> {
    LIBNACL.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// How C is compiled for pexes: clang-14's le32 target against these headers, without
/// the vectorizers (whose vectors the ABI mostly lacks), as the SDK's driver did.
pub const TARGET_FLAGS: &[&str] = &[
    "--target=le32-unknown-nacl",
    "-fno-vectorize",
    "-fno-slp-vectorize",
    "-fno-common",
    "-fno-stack-protector",
];

/// What newlib is configured with (the SDK's choices, § 4.1 of the note).
const NEWLIB_CONFIGURE: &[&str] = &[
    "--target=le32-nacl",
    "--disable-multilib",
    "--disable-newlib-supplied-syscalls",
    "--enable-newlib-io-long-long",
    "--enable-newlib-io-long-double",
    "--enable-newlib-io-c99-formats",
    "--enable-newlib-mb",
    "--enable-newlib-iconv",
    "--enable-newlib-retargetable-locking",
    "--disable-libgloss",
];

/// Answers newlib's configure cannot find by itself: its test for init arrays reads an
/// object with readelf, and bitcode objects have none.
const CONFIG_ENV: &[(&str, &str)] = &[("libc_cv_initfinit_array", "yes")];

/// What newlib is compiled with: bitcode, POSIX names for its system calls (libnacl's),
/// per-thread state through `__getreent` (libnacl's).
const NEWLIB_CFLAGS: &str = "-O2 -emit-llvm -fno-vectorize -fno-slp-vectorize -fno-common \
     -fno-stack-protector -DMISSING_SYSCALL_NAMES -D__DYNAMIC_REENT__ -D_PNACL_BUILDING_NEWLIB";

/// Members of newlib's libc that pexes do not take from it: memcpy, memmove and memset are
/// the translator's (their calls become PNaCl intrinsics), malloc is libnacl's, and so are
/// the locks.
const REMOVED_MEMBERS: &[&str] = &[
    "lib_a-memcpy.o",
    "lib_a-memmove.o",
    "lib_a-memset.o",
    "lib_a-lock.o",
    "lib_a-malloc.o",
    "lib_a-mallocr.o",
    "lib_a-freer.o",
    "lib_a-calloc.o",
    "lib_a-callocr.o",
    "lib_a-cfreer.o",
    "lib_a-realloc.o",
    "lib_a-reallocr.o",
    "lib_a-malign.o",
    "lib_a-malignr.o",
    "lib_a-mallinfor.o",
    "lib_a-malloptr.o",
    "lib_a-msize.o",
    "lib_a-msizer.o",
    "lib_a-mstats.o",
    "lib_a-pvallocr.o",
    "lib_a-valloc.o",
    "lib_a-vallocr.o",
];

/// newlib headers programs take from clang instead.
const NEWLIB_HEADERS_DROPPED: &[&str] = &["stdatomic.h"];

/// newlib's clock ids made the NaCl ABI's, which the IRT's clock_gettime takes (REALTIME
/// 0, MONOTONIC 1, PROCESS_CPUTIME 2, THREAD_CPUTIME 3, as Linux numbers them; newlib's
/// own are 1 and 4 for the first two), and its clocks the ABI lacks dropped: (what is in
/// newlib's time.h, what replaces it).
const TIME_H_CLOCKS: &[(&str, &str)] = &[
    ("#define CLOCK_REALTIME_COARSE\t((clockid_t) 0)\n", ""),
    (
        "#define CLOCK_REALTIME\t\t((clockid_t) 1)\n",
        "/* PNaCl: the NaCl ABI's clock ids. */\n#define CLOCK_REALTIME\t\t((clockid_t) 0)\n\
         #define CLOCK_MONOTONIC\t\t((clockid_t) 1)\n\
         #define CLOCK_PROCESS_CPUTIME_ID ((clockid_t) 2)\n\
         #define CLOCK_THREAD_CPUTIME_ID\t((clockid_t) 3)\n",
    ),
    ("#define CLOCK_MONOTONIC\t\t((clockid_t) 4)\n", ""),
    ("#define CLOCK_MONOTONIC_RAW\t((clockid_t) 5)\n", ""),
    ("#define CLOCK_MONOTONIC_COARSE\t((clockid_t) 6)\n", ""),
    ("#define CLOCK_BOOTTIME\t\t((clockid_t) 7)\n", ""),
    ("#define CLOCK_REALTIME_ALARM\t((clockid_t) 8)\n", ""),
    ("#define CLOCK_BOOTTIME_ALARM\t((clockid_t) 9)\n", ""),
];

/// What programs see of the POSIX options (newlib leaves them to each target).
const NEWLIB_H_EXTRA: &str = "
/* PNaCl: per-thread newlib state through __getreent (libnacl's). */
#ifndef __DYNAMIC_REENT__
#define __DYNAMIC_REENT__ 1
#endif
/* PNaCl: what libnacl provides over the IRT (not while newlib itself is built). */
#ifndef _PNACL_BUILDING_NEWLIB
#define _POSIX_THREADS 1
#define _POSIX_TIMERS 1
#define _POSIX_MONOTONIC_CLOCK 200112L
#define _POSIX_SEMAPHORES 1
#define _POSIX_READER_WRITER_LOCKS 1
#define _POSIX_BARRIERS 1
#define _POSIX_SPIN_LOCKS 1
#define _UNIX98_THREAD_MUTEX_ATTRIBUTES 1
#endif
";

/// A built C library: where its headers and archives are.
#[derive(Debug, Clone)]
pub struct Libc {
    pub dir: PathBuf,
}

impl Libc {
    pub fn include(&self) -> PathBuf {
        self.dir.join("include")
    }
    pub fn lib(&self) -> PathBuf {
        self.dir.join("lib")
    }
    /// The archives every program links, in order.
    pub fn archives(&self) -> Vec<PathBuf> {
        ["libnacl.a", "libc.a", "libm.a"]
            .iter()
            .map(|a| self.lib().join(a))
            .collect()
    }
}

/// The newlib source tarball Debian's newlib-source installs.
fn newlib_tarball() -> Result<PathBuf, String> {
    let dir = std::env::var_os("PNACL_NEWLIB_SOURCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(crate::tools::NEWLIB_SOURCE));
    let found = std::fs::read_dir(&dir).ok().and_then(|rd| {
        let mut v: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("newlib-") && n.contains(".tar"))
            })
            .collect();
        v.sort();
        v.pop()
    });
    found.ok_or_else(|| {
        format!(
            "the C library for pexes is built from Debian's newlib source, which is not in {} \
             (install the package newlib-source, or run scripts/setup)",
            dir.display()
        )
    })
}

pub(crate) fn clang() -> Result<PathBuf, String> {
    which::which(crate::tools::CLANG).map_err(|_| {
        format!(
            "{} is not installed (install the Debian package clang-14, or run scripts/setup)",
            crate::tools::CLANG
        )
    })
}

/// The C library, built now if the cache does not have it (`progress` hears of it: a
/// build takes a minute or two).
pub fn ensure(progress: &mut dyn FnMut(&str)) -> Result<Libc, String> {
    let tarball = newlib_tarball()?;
    let clang = clang()?;
    let mut h = DefaultHasher::new();
    crate::tools::file_identity(&tarball).hash(&mut h);
    crate::tools::file_identity(&clang).hash(&mut h);
    HEADERS.hash(&mut h);
    LIBNACL.hash(&mut h);
    TARGET_FLAGS.hash(&mut h);
    NEWLIB_CONFIGURE.hash(&mut h);
    NEWLIB_CFLAGS.hash(&mut h);
    CONFIG_ENV.hash(&mut h);
    NEWLIB_HEADERS_DROPPED.hash(&mut h);
    REMOVED_MEMBERS.hash(&mut h);
    NEWLIB_H_EXTRA.hash(&mut h);
    TIME_H_CLOCKS.hash(&mut h);
    let complete = |d: &Path| {
        let lib = Libc {
            dir: d.to_path_buf(),
        };
        lib.archives().iter().all(|a| a.is_file()) && lib.include().join("stdio.h").is_file()
    };
    let dir = crate::tools::cached_dir(
        &format!("libc-le32-{:016x}", h.finish()),
        complete,
        |work, out| {
            progress("building the C library for pexes (newlib and libnacl, once: about a minute)");
            build(&tarball, &clang, work, out, progress)
                .map_err(|e| format!("building the C library for pexes: {e}"))
        },
    )?;
    Ok(Libc { dir })
}

fn run(cmd: &mut Command, what: &str, log: &Path) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("{what}: could not run {:?}: {e}", cmd.get_program()))?;
    let mut text = out.stdout.clone();
    text.extend_from_slice(&out.stderr);
    let _ = std::fs::write(log, &text);
    if !out.status.success() {
        let t = String::from_utf8_lossy(&text);
        let tail: Vec<&str> = t.lines().rev().take(25).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!(
            "{what} failed ({}):\n{}",
            out.status,
            tail.join("\n")
        ));
    }
    Ok(())
}

pub(crate) fn patch(path: &Path, from: &str, to: &str) -> Result<(), String> {
    let s = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if !s.contains(from) {
        return Err(format!(
            "{}: the text to patch is not there",
            path.display()
        ));
    }
    std::fs::write(path, s.replacen(from, to, 1)).map_err(|e| format!("{}: {e}", path.display()))
}

fn build(
    tarball: &Path,
    clang: &Path,
    work: &Path,
    out: &Path,
    progress: &mut dyn FnMut(&str),
) -> Result<(), String> {
    let ar = crate::tools::LLVM_AR;
    // newlib's source, patched for a target it does not know: le32 has no machine
    // directory, is little-endian, and has PNaCl's 1024-byte jmp_buf.
    let src = work.join("src");
    std::fs::create_dir_all(&src).map_err(|e| e.to_string())?;
    run(
        Command::new("tar")
            .arg("xf")
            .arg(tarball)
            .arg("-C")
            .arg(&src),
        "unpacking newlib",
        &work.join("tar.log"),
    )?;
    let top = std::fs::read_dir(&src)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.join("newlib").is_dir())
        .ok_or("the newlib tarball holds no newlib directory")?;
    patch(
        &top.join("newlib/configure.host"),
        "  z8k)\n\tmachine_dir=z8k\n\t;;",
        "  z8k)\n\tmachine_dir=z8k\n\t;;\n  le32)\n\tmachine_dir=\n\t;;",
    )?;
    patch(
        &top.join("newlib/libc/include/machine/ieeefp.h"),
        "#ifndef __IEEE_BIG_ENDIAN\n#ifndef __IEEE_LITTLE_ENDIAN\n#error",
        "#if defined(__le32__) && !defined(__IEEE_LITTLE_ENDIAN)\n#define __IEEE_LITTLE_ENDIAN\n#endif\n\
         #ifndef __IEEE_BIG_ENDIAN\n#ifndef __IEEE_LITTLE_ENDIAN\n#error",
    )?;
    patch(
        &top.join("newlib/libc/include/machine/setjmp.h"),
        "_BEGIN_STD_C\n",
        "_BEGIN_STD_C\n\n#if defined(__le32__)\n/* PNaCl: llvm.nacl.setjmp's buffer, 1024 bytes \
         aligned to 8. */\n#define _JBLEN 128\n#define _JBTYPE long long\n#endif\n",
    )?;
    for (from, to) in TIME_H_CLOCKS {
        patch(&top.join("newlib/libc/include/time.h"), from, to)?;
    }
    // Our headers, laid over newlib's (the pthread types among them, which newlib's own
    // sources see too).
    let overlay = work.join("overlay");
    for (name, text) in HEADERS {
        let p = overlay.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&p, text).map_err(|e| e.to_string())?;
    }
    let build = work.join("build");
    std::fs::create_dir_all(&build).map_err(|e| e.to_string())?;
    let prefix = work.join("install");
    let cc = format!("{} --target=le32-unknown-nacl", clang.display());
    let cflags = format!("{NEWLIB_CFLAGS} -I{}", overlay.display());
    progress("configuring newlib");
    run(
        Command::new("sh")
            .current_dir(&build)
            .arg(top.join("configure"))
            .arg(format!("--prefix={}", prefix.display()))
            .args(NEWLIB_CONFIGURE)
            .arg(format!("CC_FOR_TARGET={cc}"))
            .arg(format!("AR_FOR_TARGET={ar}"))
            .arg(format!("RANLIB_FOR_TARGET={ar} s"))
            .arg(format!("CFLAGS_FOR_TARGET={cflags}"))
            .envs(CONFIG_ENV.iter().copied()),
        "configuring newlib",
        &work.join("configure.log"),
    )?;
    progress("compiling newlib");
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    run(
        Command::new("make")
            .current_dir(&build)
            .arg(format!("-j{jobs}"))
            .arg("all-target-newlib")
            .envs(CONFIG_ENV.iter().copied()),
        "compiling newlib",
        &work.join("make.log"),
    )?;
    run(
        Command::new("make")
            .current_dir(&build)
            .arg("install-target-newlib"),
        "installing newlib",
        &work.join("install.log"),
    )?;
    let installed = prefix.join("le32-nacl");
    let include = out.join("include");
    let lib = out.join("lib");
    std::fs::create_dir_all(&lib).map_err(|e| e.to_string())?;
    copy_dir(&installed.join("include"), &include)?;
    for (name, text) in HEADERS {
        let p = include.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&p, text).map_err(|e| e.to_string())?;
    }
    // clang's own <stdatomic.h> (newlib's expects types its <stdint.h> does not give it).
    for h in NEWLIB_HEADERS_DROPPED {
        let _ = std::fs::remove_file(include.join(h));
    }
    let newlib_h = include.join("newlib.h");
    let mut h = std::fs::read_to_string(&newlib_h).map_err(|e| e.to_string())?;
    let at = h.rfind("#endif").ok_or("newlib.h has no final #endif")?;
    h.insert_str(at, NEWLIB_H_EXTRA);
    std::fs::write(&newlib_h, h).map_err(|e| e.to_string())?;
    for a in ["libc.a", "libm.a"] {
        std::fs::copy(installed.join("lib").join(a), lib.join(a)).map_err(|e| e.to_string())?;
    }
    run(
        Command::new(ar)
            .arg("d")
            .arg(lib.join("libc.a"))
            .args(REMOVED_MEMBERS),
        "removing members from libc.a",
        &work.join("ar.log"),
    )?;
    // libnacl, against the installed headers.
    progress("compiling libnacl");
    let nacl = work.join("libnacl");
    std::fs::create_dir_all(&nacl).map_err(|e| e.to_string())?;
    let mut objs = Vec::new();
    for (name, text) in LIBNACL {
        std::fs::write(nacl.join(name), text).map_err(|e| e.to_string())?;
    }
    for (name, _) in LIBNACL.iter().filter(|(n, _)| n.ends_with(".c")) {
        let obj = nacl.join(name.replace(".c", ".o"));
        run(
            Command::new(clang)
                .args(TARGET_FLAGS)
                .args(["-O2", "-emit-llvm", "-c", "-nostdlibinc", "-fno-builtin"])
                // Its math is the ABI's intrinsics, errno set by hand (math.c).
                .arg("-fno-math-errno")
                .args(["-Wall", "-Wno-sync-fetch-and-nand-semantics-changed"])
                .arg("-isystem")
                .arg(&include)
                .arg(nacl.join(name))
                .arg("-o")
                .arg(&obj),
            &format!("compiling libnacl's {name}"),
            &work.join("libnacl.log"),
        )?;
        objs.push(obj);
    }
    run(
        Command::new(ar)
            .arg("rcs")
            .arg(lib.join("libnacl.a"))
            .args(&objs),
        "archiving libnacl",
        &work.join("ar.log"),
    )?;
    Ok(())
}

pub(crate) fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for e in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        let p = e.path();
        let t = to.join(e.file_name());
        if p.is_dir() {
            copy_dir(&p, &t)?;
        } else {
            std::fs::copy(&p, &t).map_err(|e| format!("{}: {e}", p.display()))?;
        }
    }
    Ok(())
}
