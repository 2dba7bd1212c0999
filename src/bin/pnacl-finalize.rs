//! pnacl-finalize: an LLVM module in the PNaCl subset → stripped, checked against every ABI
//! rule, and written as a pexe.

use std::process::ExitCode;

use clap::Parser;
use inkwell::context::Context;
use pnacl::cli;
use pnacl::llvm::abicheck;
use pnacl::llvm::finalize;

/// Finalize an LLVM 14 module (`.bc` or `.ll`, recognised by content; it must pass LLVM's
/// verifier) into a pexe: strip
/// debug information, metadata and module flags, the attributes the ABI forbids,
/// `unnamed_addr`, prototypes nothing uses and (unless --no-strip-syms) the names of all
/// but external symbols; check the module against every rule of the PNaCl ABI
/// (pnacl-abicheck's rules); then write it as pnacl-freeze does. A module outside the
/// subset gets every violation listed, and no output file.
#[derive(Parser)]
#[command(name = "pnacl-finalize", version = pnacl::cli::VERSION)]
struct Args {
    /// The LLVM module (`-` or nothing: standard input).
    #[arg(default_value = "-")]
    input: String,
    /// Write the pexe here (`-` for standard output, never a terminal).
    #[arg(short, long)]
    output: String,
    /// Keep the names of internal functions and globals.
    #[arg(long)]
    no_strip_syms: bool,
}

const TOOL: &str = "pnacl-finalize";

fn main() -> ExitCode {
    cli::default_sigpipe();
    let args = Args::parse();
    let Some((name, data)) = cli::read_or_report(TOOL, &args.input) else {
        return ExitCode::from(1);
    };
    let ctx = Context::create();
    let Some(module) = cli::parse_llvm_or_report(TOOL, &name, &ctx, &data) else {
        return ExitCode::from(1);
    };
    // LLVM's own rules first: a module LLVM itself rejects has no meaning to check.
    if let Err(e) = module.verify() {
        cli::report_msg(
            TOOL,
            format!(
                "{name}: not a valid LLVM module: {}",
                e.to_string().trim_end().replace('\n', "; ")
            ),
        );
        return ExitCode::from(1);
    }
    // Names go after the check, whose messages name what they are about.
    finalize::strip(&module);
    let findings = abicheck::check(
        &module,
        &abicheck::Options {
            allow_debug_metadata: false,
            historical_strictness: false,
            ignore_named_metadata: true,
        },
    );
    let errors: Vec<_> = findings.iter().filter(|f| !f.warning).collect();
    if !errors.is_empty() {
        for f in &errors {
            cli::report_msg(TOOL, format!("{name}: {} [spec/001: {}]", f.msg, f.rule));
        }
        cli::report_msg(
            TOOL,
            format!(
                "{name}: {} violation{} of the PNaCl ABI; no pexe written",
                errors.len(),
                if errors.len() == 1 { "" } else { "s" }
            ),
        );
        return ExitCode::from(1);
    }
    if !args.no_strip_syms {
        finalize::strip_names(&module);
    }
    cli::freeze_to(TOOL, &name, &module, Some(&args.output), false, None)
}
