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
#[command(name = "pnacl-freeze", version)]
struct Args {
    /// The LLVM module (`-` or nothing: standard input).
    #[arg(default_value = "-")]
    input: String,
    /// Write the pexe here (standard output if not given; never a terminal).
    #[arg(short, long)]
    output: Option<String>,
}

const TOOL: &str = "pnacl-freeze";

fn main() -> ExitCode {
    cli::default_sigpipe();
    let args = Args::parse();
    let name = cli::display_name(&args.input);
    let data = match cli::read_input(&args.input) {
        Ok(d) => d,
        Err(e) => {
            cli::report_msg(TOOL, format!("{name}: {e}"));
            return ExitCode::from(1);
        }
    };
    let ctx = Context::create();
    let module = match pnacl::llvm::parse_ir(&ctx, &data, &name) {
        Ok(m) => m,
        Err(e) => {
            cli::report_msg(TOOL, cli::llvm_message(&name, &e));
            return ExitCode::from(1);
        }
    };
    let model = match pnacl::llvm::import(&module) {
        Ok(m) => m,
        Err(e) => {
            for p in &e.problems {
                cli::report_msg(TOOL, format!("{name}: {p}"));
            }
            return ExitCode::from(1);
        }
    };
    let bytes = match pnacl::bitcode::write(&model) {
        Ok(b) => b,
        Err(e) => {
            cli::report_msg(TOOL, format!("{name}: {}", e.msg()));
            return ExitCode::from(1);
        }
    };
    cli::write_output(TOOL, args.output.as_deref(), &bytes, true)
}
