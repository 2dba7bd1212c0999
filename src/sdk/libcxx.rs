//! The C++ library for pexes, built once per machine and cached as the C library is:
//! libc++ and libc++abi from the sources Debian's emscripten package carries (LLVM 13's),
//! compiled as le32 bitcode against the C library's headers, the way the NaCl SDK built
//! its libc++ (`../shared/notes/simplify.md` §4.1), with our own configuration
//! (`sdk/libcxx/__config_site`) and our exception runtime (`sdk/libcxx/sjlj_exception.cpp`:
//! the unwinder of the setjmp-based frames `simplify` lowers `invoke` to, in place of
//! libc++abi's table-driven personality).
//!
//! The sources are read where the package installs them; where it is not installed, its
//! .deb is fetched with `apt-get download` and only the two source directories are
//! unpacked, into the cache. The cache key covers the sources, ours, every flag, the
//! compiler and the C library the headers come from.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::libc::{self, Libc, TARGET_FLAGS};

/// Our sources: the configuration libc++'s CMake would write, and the exception runtime.
const CONFIG_SITE: &str = include_str!("../../sdk/libcxx/__config_site");
const SJLJ_EXCEPTION: &str = include_str!("../../sdk/libcxx/sjlj_exception.cpp");

/// The C++ dialect the libraries are compiled in (libc++ 13 builds as C++20).
const STD: &str = "-std=c++20";

/// Flags of every library source (beside `TARGET_FLAGS` and the include directories).
const LIB_FLAGS: &[&str] = &[
    "-O2",
    "-emit-llvm",
    "-c",
    "-fexceptions",
    "-w",
    "-D_LIBCPP_BUILDING_LIBRARY",
];

/// libc++'s own: its `operator new` and `delete` are libc++abi's.
const LIBCXX_FLAGS: &[&str] = &[
    "-DLIBCXX_BUILDING_LIBCXXABI",
    "-D_LIBCPP_DISABLE_NEW_DELETE_DEFINITIONS",
];

/// libc++abi's own: its per-thread exception globals are `thread_local`.
const LIBCXXABI_FLAGS: &[&str] = &["-D_LIBCXXABI_BUILDING_LIBRARY", "-DHAS_THREAD_LOCAL=1"];

/// libc++'s sources not built: `<format>` is what libc++ 13 calls incomplete, and the
/// filesystem library (its own directory) needs directories the IRT does not have.
const LIBCXX_SKIPPED: &[&str] = &["format.cpp"];

/// libc++abi's sources not built: the table-driven personality (its tables are not in a
/// pexe; `sjlj_exception.cpp` takes its place) and the stubs of a build without
/// exceptions.
const LIBCXXABI_SKIPPED: &[&str] = &["cxa_personality.cpp", "cxa_noexception.cpp"];

/// Header text changed for le32: (header, text, replacement). clang says le32's atomics are
/// lock-free only "sometimes" (it leaves them to library calls), and libc++'s <atomic>
/// then defines no lock-free contention type at all; a pexe's 32-bit atomics always are.
const HEADER_PATCHES: &[(&str, &str, &str)] = &[(
    "atomic",
    "#else\n    // No signed/unsigned lock-free types\n#endif",
    "#else\n// PNaCl: le32's 32-bit atomics are lock-free (a pexe has them as instructions).\n\
     typedef conditional<_LIBCPP_CONTENTION_LOCK_FREE, __cxx_contention_t, int>::type __libcpp_signed_lock_free;\n\
     typedef conditional<_LIBCPP_CONTENTION_LOCK_FREE, __cxx_contention_t, unsigned int>::type __libcpp_unsigned_lock_free;\n\
     #endif",
)];

/// The built C++ library: its headers and archives.
#[derive(Debug, Clone)]
pub struct Libcxx {
    pub dir: PathBuf,
}

impl Libcxx {
    /// libc++'s headers (and libc++abi's `cxxabi.h`), searched before the C library's.
    pub fn include(&self) -> PathBuf {
        self.dir.join("include/c++/v1")
    }
    /// The archives a C++ program links, before the C library's.
    pub fn archives(&self) -> Vec<PathBuf> {
        ["libc++.a", "libc++abi.a"]
            .iter()
            .map(|a| self.dir.join("lib").join(a))
            .collect()
    }
}

/// The directory holding `libcxx/` and `libcxxabi/`: `$PNACL_LIBCXX_SOURCE`, where the
/// emscripten package installs them, or the cache's copy from the package's .deb (fetched
/// now if the cache has none).
fn sources(progress: &mut dyn FnMut(&str)) -> Result<PathBuf, String> {
    let has =
        |d: &Path| d.join("libcxx/include/__config").is_file() && d.join("libcxxabi/src").is_dir();
    if let Some(d) = std::env::var_os("PNACL_LIBCXX_SOURCE").map(PathBuf::from) {
        return if has(&d) {
            Ok(d)
        } else {
            Err(format!(
                "PNACL_LIBCXX_SOURCE={}: no libcxx/ and libcxxabi/ sources there",
                d.display()
            ))
        };
    }
    let installed = PathBuf::from(crate::tools::EMSCRIPTEN_LIB);
    if has(&installed) {
        return Ok(installed);
    }
    let inside = crate::tools::EMSCRIPTEN_LIB.trim_start_matches('/');
    let unpacked = crate::tools::cached_dir(
        &format!("{}-deb", crate::tools::EMSCRIPTEN_PACKAGE),
        |d| has(&d.join(inside)),
        |work, tree| {
            progress(&format!(
                "fetching libc++'s sources: Debian's {} package (about 110 MB, once)",
                crate::tools::EMSCRIPTEN_PACKAGE
            ));
            unpack(work, tree, inside)
        },
    )?;
    let copy = unpacked.join(inside);
    if has(&copy) {
        Ok(copy)
    } else {
        Err(format!(
            "{}: the emscripten package's files hold no libc++ sources at /{inside}",
            unpacked.display()
        ))
    }
}

/// Fetches the emscripten package into `work` and unpacks its libc++ and libc++abi
/// sources (`inside` it) into `tree`, as dpkg-deb's file tree.
fn unpack(work: &Path, tree: &Path, inside: &str) -> Result<(), String> {
    let out = Command::new("apt-get")
        .args(["download", "-qq", crate::tools::EMSCRIPTEN_PACKAGE])
        .current_dir(work)
        .output()
        .map_err(|e| format!("running apt-get: {e}"))?;
    let deb = std::fs::read_dir(work)
        .ok()
        .and_then(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| p.extension().is_some_and(|x| x == "deb"))
        })
        .ok_or_else(|| {
            format!(
                "libc++'s sources come from Debian's {0} package, which is not installed and \
                 could not be fetched (apt-get download {0}: {1}); install it, or set \
                 PNACL_LIBCXX_SOURCE to a directory with libcxx/ and libcxxabi/",
                crate::tools::EMSCRIPTEN_PACKAGE,
                String::from_utf8_lossy(&out.stderr).trim()
            )
        })?;
    std::fs::create_dir_all(tree).map_err(|e| e.to_string())?;
    let mut dpkg = Command::new("dpkg-deb")
        .arg("--fsys-tarfile")
        .arg(&deb)
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("running dpkg-deb: {e}"))?;
    let tar = Command::new("tar")
        .arg("x")
        .arg("-C")
        .arg(tree)
        .arg(format!("./{inside}/libcxx"))
        .arg(format!("./{inside}/libcxxabi"))
        .stdin(dpkg.stdout.take().unwrap())
        .output()
        .map_err(|e| format!("running tar: {e}"))?;
    let st = dpkg.wait().map_err(|e| e.to_string())?;
    if !st.success() || !tar.status.success() {
        return Err(format!(
            "{}: could not unpack libc++'s sources ({})",
            deb.display(),
            String::from_utf8_lossy(&tar.stderr).trim()
        ));
    }
    Ok(())
}

fn cpp_files(dir: &Path, skip: &[&str]) -> Result<Vec<PathBuf>, String> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .filter(|p| !skip.iter().any(|s| p.file_name().is_some_and(|n| n == *s)))
        .collect();
    v.sort();
    Ok(v)
}

/// The C++ library, built now if the cache does not have it (`progress` hears of it: a
/// build takes a minute or two).
pub fn ensure(c: &Libc, progress: &mut dyn FnMut(&str)) -> Result<Libcxx, String> {
    let src = sources(progress)?;
    let clang = libc::clang()?;
    let abi_src = cpp_files(&src.join("libcxxabi/src"), LIBCXXABI_SKIPPED)?;
    let cxx_src = cpp_files(&src.join("libcxx/src"), LIBCXX_SKIPPED)?;
    let mut h = DefaultHasher::new();
    for p in abi_src.iter().chain(&cxx_src) {
        crate::tools::file_identity(p).hash(&mut h);
    }
    crate::tools::file_identity(&src.join("libcxx/include/__config")).hash(&mut h);
    crate::tools::file_identity(&clang).hash(&mut h);
    c.dir.hash(&mut h);
    (CONFIG_SITE, SJLJ_EXCEPTION, STD).hash(&mut h);
    (TARGET_FLAGS, LIB_FLAGS, LIBCXX_FLAGS, LIBCXXABI_FLAGS).hash(&mut h);
    (LIBCXX_SKIPPED, LIBCXXABI_SKIPPED, HEADER_PATCHES).hash(&mut h);
    let complete = |d: &Path| {
        let lib = Libcxx {
            dir: d.to_path_buf(),
        };
        lib.archives().iter().all(|a| a.is_file()) && lib.include().join("vector").is_file()
    };
    let dir = crate::tools::cached_dir(
        &format!("libcxx-le32-{:016x}", h.finish()),
        complete,
        |work, out| {
            progress(
                "building the C++ library for pexes (libc++ and libc++abi, once: a few minutes)",
            );
            build(&src, &clang, c, &abi_src, &cxx_src, work, out)
                .map_err(|e| format!("building the C++ library for pexes: {e}"))
        },
    )?;
    Ok(Libcxx { dir })
}

/// The flags a C++ source is compiled with against these headers (pnacl-clang++ adds the
/// user's own).
pub fn include_flags(cxx: &Libcxx, c: &Libc) -> Vec<String> {
    vec![
        "-nostdlibinc".into(),
        "-nostdinc++".into(),
        "-isystem".into(),
        cxx.include().display().to_string(),
        "-isystem".into(),
        c.include().display().to_string(),
    ]
}

fn build(
    src: &Path,
    clang: &Path,
    c: &Libc,
    abi_src: &[PathBuf],
    cxx_src: &[PathBuf],
    work: &Path,
    out: &Path,
) -> Result<(), String> {
    // The headers: libc++'s, our configuration, libc++abi's two public ones, patched.
    let include = out.join("include/c++/v1");
    libc::copy_dir(&src.join("libcxx/include"), &include)?;
    for h in ["cxxabi.h", "__cxxabi_config.h"] {
        std::fs::copy(src.join("libcxxabi/include").join(h), include.join(h))
            .map_err(|e| format!("{h}: {e}"))?;
    }
    let _ = std::fs::remove_file(include.join("__config_site.in"));
    std::fs::write(include.join("__config_site"), CONFIG_SITE).map_err(|e| e.to_string())?;
    for (h, from, to) in HEADER_PATCHES {
        libc::patch(&include.join(h), from, to)?;
    }
    let lib = Libcxx {
        dir: out.to_path_buf(),
    };
    let ours = work.join("sjlj_exception.cpp");
    std::fs::write(&ours, SJLJ_EXCEPTION).map_err(|e| e.to_string())?;
    let objs = work.join("obj");
    std::fs::create_dir_all(&objs).map_err(|e| e.to_string())?;
    // (source, object, its own flags), compiled on every core.
    let abi_inc = [
        format!("-I{}", src.join("libcxxabi/src").display()),
        format!("-I{}", src.join("libcxxabi/include").display()),
        format!("-I{}", src.join("libcxx").display()),
        format!("-I{}", src.join("libcxx/src").display()),
    ];
    let cxx_inc = [format!("-I{}", src.join("libcxx/src").display())];
    let mut jobs: Vec<(PathBuf, PathBuf, Vec<String>)> = Vec::new();
    let flags = |own: &[&str], inc: &[String]| -> Vec<String> {
        own.iter()
            .map(|s| s.to_string())
            .chain(inc.iter().cloned())
            .collect()
    };
    for p in abi_src.iter().chain(std::iter::once(&ours)) {
        let o = objs.join(format!(
            "abi-{}.o",
            p.file_stem().unwrap().to_string_lossy()
        ));
        jobs.push((p.clone(), o, flags(LIBCXXABI_FLAGS, &abi_inc)));
    }
    for p in cxx_src {
        let o = objs.join(format!(
            "cxx-{}.o",
            p.file_stem().unwrap().to_string_lossy()
        ));
        jobs.push((p.clone(), o, flags(LIBCXX_FLAGS, &cxx_inc)));
    }
    let base: Vec<String> = TARGET_FLAGS
        .iter()
        .chain(LIB_FLAGS)
        .map(|s| s.to_string())
        .chain(std::iter::once(STD.to_string()))
        .chain(include_flags(&lib, c))
        .collect();
    let n = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((p, o, own)) = jobs.get(k) else {
                    break;
                };
                let r = Command::new(clang)
                    .arg("--driver-mode=g++")
                    .args(&base)
                    .args(own)
                    .arg(p)
                    .arg("-o")
                    .arg(o)
                    .output();
                let msg = match r {
                    Ok(r) if r.status.success() => continue,
                    Ok(r) => String::from_utf8_lossy(&r.stderr).into_owned(),
                    Err(e) => e.to_string(),
                };
                let tail: Vec<&str> = msg.lines().take(20).collect();
                failures.lock().unwrap().push(format!(
                    "compiling {}:\n{}",
                    p.display(),
                    tail.join("\n")
                ));
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    if let Some(f) = failures.first() {
        return Err(f.clone());
    }
    let libdir = out.join("lib");
    std::fs::create_dir_all(&libdir).map_err(|e| e.to_string())?;
    for (archive, prefix) in [("libc++abi.a", "abi-"), ("libc++.a", "cxx-")] {
        let members: Vec<PathBuf> = jobs
            .iter()
            .map(|j| j.1.clone())
            .filter(|o| o.file_name().unwrap().to_string_lossy().starts_with(prefix))
            .collect();
        let st = Command::new(crate::tools::LLVM_AR)
            .arg("rcs")
            .arg(libdir.join(archive))
            .args(&members)
            .output()
            .map_err(|e| format!("running {}: {e}", crate::tools::LLVM_AR))?;
        if !st.status.success() {
            return Err(format!(
                "archiving {archive}: {}",
                String::from_utf8_lossy(&st.stderr).trim()
            ));
        }
    }
    Ok(())
}
