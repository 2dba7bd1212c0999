//! The front half of the PNaCl toolchain: what turns C into a pexe. `libc` builds (once,
//! into the cache) the C library pexes link (newlib from Debian's newlib-source, and our
//! libnacl from `sdk/libnacl`); `archive` reads bitcode archives; `link` links objects
//! and archive members into one module; `driver` is pnacl-clang. The simplification
//! itself is `crate::simplify`.

pub mod archive;
pub mod driver;
pub mod libc;
pub mod link;
