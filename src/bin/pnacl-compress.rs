//! pnacl-compress: a pexe → the same records under abbreviations chosen from its own.

use std::process::ExitCode;

use clap::Parser;
use pnacl::cli;

/// Rewrite a pexe smaller: the same records, under abbreviations chosen from the file's
/// own records, as Google's pnacl-bccompress did (pnacl-freeze writes its fixed set). The
/// output reads and disassembles as the same records; `pnacl-llvm --target le32 | pnacl-freeze`
/// turns it back into pnacl-freeze's abbreviations.
#[derive(Parser)]
#[command(name = "pnacl-compress", version = pnacl::cli::VERSION)]
struct Args {
    #[command(flatten)]
    io: cli::Io,
}

const TOOL: &str = "pnacl-compress";

fn main() -> ExitCode {
    let Some((args, name, data)) = cli::start::<Args>(TOOL, |a| &a.io) else {
        return ExitCode::from(1);
    };
    if let Some(m) = cli::not_a_pexe(&name, &data) {
        cli::report_msg(TOOL, m);
        return ExitCode::from(1);
    }
    // (It reads the pexe first: a bad one is the reader's error, with its position.)
    match pnacl::bitcode::compress::compress(&data) {
        Ok(bytes) => cli::write_output(TOOL, args.io.output.as_deref(), &bytes, true),
        Err(e) => {
            cli::report(TOOL, &name, &e);
            ExitCode::from(1)
        }
    }
}
