//! pnacl-clang: C source → a pexe (see `pnacl::sdk::driver`).

use std::process::ExitCode;

use pnacl::cli;
use pnacl::sdk::driver;

const TOOL: &str = "pnacl-clang";

fn main() -> ExitCode {
    cli::default_sigpipe();
    let raw: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let args = match driver::args_of(raw) {
        Ok(a) => a,
        Err(f) => {
            f.0.iter().for_each(|m| cli::report_msg(TOOL, m));
            return ExitCode::from(1);
        }
    };
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}", driver::HELP);
        return ExitCode::SUCCESS;
    }
    if args.iter().any(|a| a == "--version" || a == "-V") {
        println!("{TOOL} {}", cli::VERSION);
        return ExitCode::SUCCESS;
    }
    // Builds the C library into the cache now (scripts/test does, before tests that link
    // in parallel) and says where it is.
    if args.iter().any(|a| a == "--build-libc") {
        let mut say = |m: &str| eprintln!("{TOOL}: {m}");
        return match pnacl::sdk::libc::ensure(&mut say) {
            Ok(l) => {
                println!("{}", l.dir.display());
                ExitCode::SUCCESS
            }
            Err(e) => {
                cli::report_msg(TOOL, e);
                ExitCode::from(1)
            }
        };
    }
    match driver::run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            f.0.iter().for_each(|m| cli::report_msg(TOOL, m));
            ExitCode::from(1)
        }
    }
}
