//! pnacl-finalize: an LLVM module in the PNaCl subset → stripped, checked against every ABI
//! rule, and written as a pexe.

use std::process::ExitCode;

use clap::Parser;
use inkwell::context::Context;
use pnacl::cli;
use pnacl::llvm::abicheck;
use pnacl::llvm::finalize;
use pnacl::simplify;

/// Finalize an LLVM 14 module (`.bc` or `.ll`, recognised by content; it must pass LLVM's
/// verifier) into a pexe. The module is a whole program as clang-14 writes it for
/// `le32-unknown-nacl` (linked with its C library: `pnacl-clang` does that); first it is
/// simplified into the PNaCl subset (varargs, structs as values, any integer width,
/// getelementptr, constant expressions, globals, thread-locals, constructors, atomics,
/// intrinsics LLVM 3.3 lacked, … as PNaCl's ABI simplification passes did); then debug
/// information, metadata, attributes and (unless --no-strip-syms) the names of all but
/// external symbols are stripped; the module is checked against every rule of the PNaCl
/// ABI (pnacl-abicheck's rules) and written as pnacl-freeze does. What cannot be
/// simplified, and any violation, is reported with where it is, and no file is written.
#[derive(Parser)]
#[command(
    name = "pnacl-finalize",
    version = pnacl::cli::VERSION,
    mut_arg("input", cli::help("The LLVM module (`-` or nothing: standard input)")),
    mut_arg("output", |a| a.required(true).help("Write the pexe here (`-` for standard output, never a terminal)")),
)]
struct Args {
    #[command(flatten)]
    io: cli::Io,
    /// Keep the names of internal functions and globals.
    #[arg(long)]
    no_strip_syms: bool,
    /// Check the module as it is, without simplifying it first (it must already be in
    /// the PNaCl subset).
    #[arg(long)]
    no_simplify: bool,
}

const TOOL: &str = "pnacl-finalize";

fn main() -> ExitCode {
    let Some((args, name, data)) = cli::start::<Args>(TOOL, |a| &a.io) else {
        return ExitCode::from(1);
    };
    let ctx = Context::create();
    let Some(mut module) = cli::parse_llvm_or_report(TOOL, &name, &ctx, &data) else {
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
    let module = if args.no_simplify {
        module
    } else {
        match simplify::simplify(&ctx, &mut module) {
            Ok(m) => m,
            Err(problems) => {
                for p in &problems {
                    cli::report_msg(TOOL, format!("{name}: {p}"));
                }
                cli::report_msg(
                    TOOL,
                    format!(
                        "{name}: the module cannot be simplified into the PNaCl subset; no pexe written"
                    ),
                );
                return ExitCode::from(1);
            }
        }
    };
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
    cli::freeze_to(TOOL, &name, &module, args.io.output.as_deref(), false, None)
}
