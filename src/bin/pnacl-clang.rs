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
    match driver::run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            f.0.iter().for_each(|m| cli::report_msg(TOOL, m));
            ExitCode::from(1)
        }
    }
}
