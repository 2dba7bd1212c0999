//! pnacl-bcasm: records as text (the record column of pnacl-bcdis) → a pexe.

use std::process::ExitCode;

use clap::Parser;
use pnacl::bitcode::text;
use pnacl::cli;

/// Assemble a bitcode file from records written as text, one `A: <code, values…>` per
/// line, as the record column of pnacl-bcdis shows them (whole dump lines are accepted).
/// Writes exactly the records given, valid or not: for building test inputs.
#[derive(Parser)]
#[command(
    name = "pnacl-bcasm",
    version = pnacl::cli::VERSION,
    mut_arg("input", cli::help("The records (`-` or nothing: standard input)")),
)]
struct Args {
    #[command(flatten)]
    io: cli::Io,
    /// Read abbreviation definitions as the historical pnacl-bcdis printed them (block id
    /// before the first one after a SETBID, an extra 0 after fixed(0) and vbr(0)).
    #[arg(long)]
    abbrev_quirks: bool,
}

fn main() -> ExitCode {
    pnacl::cli::default_sigpipe();
    let args = Args::parse();
    let name = cli::display_name(&args.io.input);
    let run = || -> Result<Vec<u8>, String> {
        let data = cli::read_input(&args.io.input).map_err(|e| format!("{name}: {e}"))?;
        let src = String::from_utf8(data).map_err(|_| format!("{name}: not UTF-8 text"))?;
        let recs = text::parse(&src).map_err(|e| format!("{name}: {e}"))?;
        if recs.is_empty() {
            return Err(format!(
                "{name}: no records (an empty file): pnacl-bcdis's record text was expected"
            ));
        }
        text::assemble(&recs, args.abbrev_quirks).map_err(|e| format!("{name}: {e}"))
    };
    let bytes = match run() {
        Ok(b) => b,
        Err(e) => {
            cli::report_msg("pnacl-bcasm", e);
            return ExitCode::from(1);
        }
    };
    cli::write_output("pnacl-bcasm", args.io.output.as_deref(), &bytes, true)
}
