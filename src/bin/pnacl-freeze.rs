//! pnacl-freeze: an LLVM module (bitcode or text) → a pexe, as Google's pnacl-freeze wrote
//! it, changing nothing on the way.

use std::process::ExitCode;

use clap::Parser;
use inkwell::context::Context;
use pnacl::cli;

/// Write an LLVM 14 module (`.bc`, including older bitcode LLVM 14 upgrades, or `.ll`,
/// recognised by content) as a PNaCl pexe, with the records, abbreviations and numbering
/// of Google's pnacl-freeze. Only what the pexe format cannot hold is refused; the ABI
/// rules are pnacl-finalize's (and pnacl-abicheck's) business, so this can also write the
/// rule-breaking pexes that tests of readers need.
#[derive(Parser)]
#[command(
    name = "pnacl-freeze",
    version = pnacl::cli::VERSION,
    mut_arg("input", cli::help("The LLVM module (`-` or nothing: standard input)")),
    mut_arg("output", cli::help("Write the pexe here (standard output if not given; never a terminal)")),
)]
struct Args {
    #[command(flatten)]
    io: cli::Io,
}

const TOOL: &str = "pnacl-freeze";

fn main() -> ExitCode {
    let Some((args, name, data)) = cli::start::<Args>(TOOL, |a| &a.io) else {
        return ExitCode::from(1);
    };
    let ctx = Context::create();
    let Some(module) = cli::parse_llvm_or_report(TOOL, &name, &ctx, &data) else {
        return ExitCode::from(1);
    };
    cli::freeze_to(
        TOOL,
        &name,
        &module,
        args.io.output.as_deref(),
        true,
        Some(&data),
    )
}
