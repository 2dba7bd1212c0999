//! pnacl-bcdis: prints a pexe as records and PNaClAsm, with problems inline.

use std::process::ExitCode;

use clap::Parser;
use pnacl::cli::{self, Output};
use pnacl::dis::{self, Options};

/// Disassemble a PNaCl bitcode file (pexe): bit positions, records with their
/// abbreviations, and PNaClAsm, the three columns of the PNaCl bitcode specification.
/// Problems are reported inline after the record they concern, as `Error(BYTE:BIT): …`.
#[derive(Parser)]
#[command(
    name = "pnacl-bcdis",
    version = pnacl::cli::VERSION,
    mut_arg("output", cli::help("Write the dump here instead of standard output (written only if the file is valid)")),
)]
struct Args {
    #[command(flatten)]
    io: cli::Io,
    /// Print only the assembly column.
    #[arg(long)]
    no_records: bool,
    /// Print only the record column.
    #[arg(long)]
    no_assembly: bool,
    /// Print abbreviation definitions as the spec's examples show them, without the
    /// historical tool's quirks (block id before the first abbreviation after a SETBID,
    /// an extra 0 after fixed(0) and vbr(0)).
    #[arg(long)]
    no_abbrev_quirks: bool,
    /// Stop after this many errors.
    #[arg(long, default_value_t = 20)]
    max_errors: usize,
    /// Print only the records, one a line, as pnacl-bcasm reads them (no positions, no
    /// assembly): `pnacl-bcdis --record-text a.pexe | pnacl-bcasm -o b.pexe` rebuilds
    /// a.pexe bit for bit. The bitstream is decoded but the records are not checked.
    #[arg(long)]
    record_text: bool,
    /// With --record-text: leave out what depends only on the abbreviations (BLOCKINFO,
    /// abbreviation definitions and indices, block widths), to compare the records of
    /// files that abbreviate differently.
    #[arg(long, requires = "record_text")]
    ignore_abbrevs: bool,
}

fn main() -> ExitCode {
    let Some((args, name, data)) = cli::start::<Args>("pnacl-bcdis", |a| &a.io) else {
        return ExitCode::from(1);
    };
    if let Some(m) = cli::not_a_pexe(&name, &data) {
        cli::report_msg("pnacl-bcdis", m);
        return ExitCode::from(1);
    }
    if args.record_text {
        return match pnacl::bitcode::text::records_text(&data, args.ignore_abbrevs) {
            Ok(t) => cli::write_output(
                "pnacl-bcdis",
                args.io.output.as_deref(),
                t.as_bytes(),
                false,
            ),
            Err(e) => {
                cli::report("pnacl-bcdis", &name, &e);
                ExitCode::from(1)
            }
        };
    }
    let opts = Options {
        records: !args.no_records,
        assembly: !args.no_assembly,
        abbrev_quirks: !args.no_abbrev_quirks,
        max_errors: args.max_errors.max(1),
    };
    let mut out = match Output::new(args.io.output.as_deref()) {
        Ok(o) => o,
        Err(e) => {
            cli::report_msg("pnacl-bcdis", e);
            return ExitCode::from(1);
        }
    };
    let outcome = match dis::disassemble(&data, &opts, &mut out) {
        Ok(o) => o,
        Err(e) => {
            out.discard();
            cli::report_msg("pnacl-bcdis", e);
            return ExitCode::from(1);
        }
    };
    if outcome.errors.is_empty() {
        if let Err(e) = out.commit() {
            cli::report_msg("pnacl-bcdis", e);
            return ExitCode::from(1);
        }
        ExitCode::SUCCESS
    } else {
        out.discard();
        for e in &outcome.errors {
            cli::report("pnacl-bcdis", &name, e);
        }
        ExitCode::from(1)
    }
}
