//! pnacl-run: runs a program pnacl-translate made, contained: a native one (x86-32,
//! x86-64) as it is (its runtime contains it), an ARM or AArch64 one under qemu with the
//! sandbox applied from outside.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Run a program made by pnacl-translate, contained. An x86-32 or x86-64 program runs as
/// it is (its runtime installs the sandbox); an ARM or AArch64 one runs under qemu-arm or
/// qemu-aarch64, with the same sandbox applied to qemu from outside (qemu passes none to
/// its guest). The environment variables the runtime reads (PNACL_FS_ROOT,
/// PNACL_FS_READONLY, PNACL_MAX_THREADS, PNACL_ENV_NAME) apply as for a native program;
/// no other variable reaches the program. PNACL_ARGV0 sets the program's argv[0] (else
/// the path given).
#[derive(Parser)]
#[command(name = "pnacl-run", version = pnacl::cli::VERSION, trailing_var_arg = true)]
struct Args {
    /// The program (x86-32, x86-64, ARM or AArch64, made by pnacl-translate).
    program: PathBuf,
    /// Its arguments.
    #[arg(allow_hyphen_values = true)]
    args: Vec<OsString>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let r = pnacl::contain::run(&args.program, &args.args);
    eprintln!("pnacl-run: error: {}", r.message);
    ExitCode::from(r.status as u8)
}
