//! pnacl-translate: a pexe → a native executable (x86-32 or ARM), linked with the runtime.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use pnacl::cli;
use pnacl::llvm::codegen::OptLevel;
use pnacl::llvm::Target;
use pnacl::translate::{self, Options};

/// Translate a PNaCl pexe into a static Linux executable for x86-32 or 32-bit ARM,
/// linked with the project's runtime (the NaCl IRT interfaces newlib needs).
#[derive(Parser)]
#[command(name = "pnacl-translate", version)]
struct Args {
    /// The pexe (`-` for standard input).
    input: String,
    /// The executable to write.
    #[arg(short, long)]
    output: PathBuf,
    /// x86-32 or arm.
    #[arg(long, default_value = env!("PNACL_DEFAULT_TARGET"))]
    arch: Target,
    /// Optimization level: -O0, -O1 or -O2.
    #[arg(short = 'O', value_parser = parse_opt, default_value = "2")]
    opt: OptLevel,
    /// Threads generating code in parallel (default: the number of cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Run LLVM's verifier on the module before generating code (the conversion is tested
    /// to give verified modules for every real pexe; this re-checks one).
    #[arg(long)]
    verify: bool,
}

fn parse_opt(s: &str) -> Result<OptLevel, String> {
    match s {
        "0" => Ok(OptLevel::O0),
        "1" => Ok(OptLevel::O1),
        "2" => Ok(OptLevel::O2),
        _ => Err(format!("unknown optimization level -O{s} (0, 1 or 2)")),
    }
}

const TOOL: &str = "pnacl-translate";

fn main() -> ExitCode {
    // SIGPIPE stays ignored (Rust's default): the objects go to the linker through pipes,
    // and a linker that stops must give an error, not end this process.
    let args = Args::parse();
    if !args.arch.is_native() {
        cli::report_msg(TOOL, "le32 is not a native architecture (x86-32 or arm)");
        return ExitCode::from(1);
    }
    let Some((name, data)) = cli::read_or_report(TOOL, &args.input) else {
        return ExitCode::from(1);
    };
    let t = std::time::Instant::now();
    let Some(module) = cli::read_checked(TOOL, &name, &data, true) else {
        return ExitCode::from(1);
    };
    if std::env::var_os("PNACL_TIME").is_some() {
        eprintln!("read and check {:?}", t.elapsed());
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = Options {
        target: args.arch,
        opt: args.opt,
        threads,
        verify: args.verify,
        // `read_checked` ran `abi::check_all`.
        ssa_checked: true,
    };
    match translate::translate(&module, &opts, &args.output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            cli::report_msg(TOOL, format!("{name}: {e}"));
            ExitCode::from(1)
        }
    }
}
