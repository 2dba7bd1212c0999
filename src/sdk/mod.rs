//! The front half of the PNaCl toolchain: what turns C and C++ into a pexe. `libc` builds
//! (once, into the cache) the C library pexes link (newlib from Debian's newlib-source,
//! and our libnacl from `sdk/libnacl`); `libcxx` the C++ library (libc++ and libc++abi
//! from Debian's emscripten package's sources, and our exception runtime from
//! `sdk/libcxx`); `archive` reads bitcode archives; `link` links objects and archive
//! members into one module; `driver` is pnacl-clang and pnacl-clang++. The
//! simplification itself is `crate::simplify`.

pub mod archive;
pub mod driver;
pub mod libc;
pub mod libcxx;
pub mod link;
