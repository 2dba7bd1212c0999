//! pnacl-clang: C source → a pexe; as `pnacl-clang++` (a link to it, as clang++ is to
//! clang) or with `--driver-mode=g++`, C++ source → a pexe (see `pnacl::sdk::driver`).

fn main() -> std::process::ExitCode {
    pnacl::sdk::driver::main()
}
