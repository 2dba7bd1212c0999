//! pnacl-clang: C source → a pexe; as `pnacl-clang++` (a link to it, as clang++ is to
//! clang) or with `--driver-mode=g++`, C++ source → a pexe (see `pnacl::sdk::driver`).

use std::process::ExitCode;

use pnacl::cli;
use pnacl::sdk::driver::{self, Libs};

fn main() -> ExitCode {
    cli::default_sigpipe();
    let argv0 = std::env::args_os().next().unwrap_or_default();
    let raw: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let mut args = match driver::args_of(raw) {
        Ok(a) => a,
        Err(f) => {
            f.0.iter().for_each(|m| cli::report_msg("pnacl-clang", m));
            return ExitCode::from(1);
        }
    };
    let d = driver::driver_of(&argv0, &mut args);
    let tool = d.name();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}", d.help());
        return ExitCode::SUCCESS;
    }
    if args.iter().any(|a| a == "--version" || a == "-V") {
        println!("{tool} {}", cli::VERSION);
        return ExitCode::SUCCESS;
    }
    // Builds the libraries into the cache now (scripts/test does, before tests that link
    // in parallel) and says where they are.
    if args.iter().any(|a| a == "--build-libc") {
        let mut say = |m: &str| eprintln!("{tool}: {m}");
        return match Libs::ensure(d, &mut say) {
            Ok(l) => {
                println!("{}", l.c.dir.display());
                if let Some(cxx) = l.cxx {
                    println!("{}", cxx.dir.display());
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                cli::report_msg(tool, e);
                ExitCode::from(1)
            }
        };
    }
    match driver::run(d, &args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            f.0.iter().for_each(|m| cli::report_msg(tool, m));
            ExitCode::from(1)
        }
    }
}
