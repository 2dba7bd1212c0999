//! pnacl-llvm: a pexe → an LLVM 14 module (bitcode, or text with -S) for a target.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use inkwell::context::Context;
use pnacl::cli::{self, Output};
use pnacl::llvm::{self, ExportOptions, Target};

/// Convert a PNaCl pexe into an LLVM 14 module: by default one ready for native code
/// generation on this machine (`pnacl-llvm X.pexe | llc-14 -relocation-model=pic
/// -filetype=obj -o X.o`, then `pnacl-translate X.o -o X` links it; x86-64 and aarch64
/// programs are linked high, so their code is position-independent), with the PNaCl
/// intrinsics lowered; with `--target le32` the neutral module, which pnacl-freeze turns
/// back into the same pexe.
#[derive(Parser)]
#[command(
    name = "pnacl-llvm",
    version = pnacl::cli::VERSION,
    mut_arg("input", cli::help("The pexe (`-` or nothing: standard input)")),
    mut_arg("output", cli::help("Write the module here (standard output if not given)")),
)]
struct Args {
    #[command(flatten)]
    io: cli::Io,
    /// Write textual LLVM IR instead of bitcode.
    #[arg(short = 'S')]
    text: bool,
    /// x86-32, arm, wasm32, x86-64, aarch64, or le32 (the neutral module). Default: this
    /// machine's family.
    #[arg(long, default_value_t = Target::host())]
    target: Target,
    /// Convert even when the pexe breaks ABI rules the reader does not enforce (no `_start`,
    /// a disallowed alignment, …): for fragments such as the specification's examples.
    #[arg(long)]
    no_abi_check: bool,
    /// Run LLVM's verifier on the module before writing it. The conversion is tested to
    /// produce verified modules for every real pexe; this re-checks one.
    #[arg(long)]
    verify: bool,
}

const TOOL: &str = "pnacl-llvm";

fn main() -> ExitCode {
    let Some((args, name, data)) = cli::start::<Args>(TOOL, |a| &a.io) else {
        return ExitCode::from(1);
    };
    let Some(module) = cli::read_checked(TOOL, &name, &data, !args.no_abi_check) else {
        return ExitCode::from(1);
    };
    // Where the pexe is isolated in its region, a plugin's PPAPI host is pexe code joined
    // to it, as pnacl-translate joins it (translate::host).
    let ppapi_host = pnacl::translate::host::joins(&module, args.target);
    let module = if ppapi_host {
        match pnacl::translate::host::with_host(&module) {
            Ok(w) => w.module,
            Err(e) => {
                cli::report_msg(TOOL, format!("{name}: {e}"));
                return ExitCode::from(1);
            }
        }
    } else {
        module
    };
    let ctx = Context::create();
    let opts = ExportOptions {
        // `read_checked` ran `abi::check_all` unless told not to.
        ssa_checked: !args.no_abi_check,
        ppapi_host,
        ..ExportOptions::whole(args.target)
    };
    let llmod = match llvm::export(&ctx, &module, &opts) {
        Ok(m) => m,
        Err(e) => {
            cli::report_msg(TOOL, e.in_file(&name));
            return ExitCode::from(1);
        }
    };
    if args.verify {
        if let Err(e) = llmod.verify() {
            cli::report_msg(
                TOOL,
                format!(
                    "{name}: the LLVM module does not verify (a bug): {}",
                    e.to_string()
                ),
            );
            return ExitCode::from(1);
        }
    }
    let mut out = match Output::new(args.io.output.as_deref()) {
        Ok(o) => o,
        Err(e) => {
            cli::report_msg(TOOL, e);
            return ExitCode::from(1);
        }
    };
    if !args.text && out.is_terminal() {
        cli::report_msg(
            TOOL,
            "refusing to write bitcode to a terminal (use -o FILE or -S)",
        );
        return ExitCode::from(1);
    }
    let bytes: Vec<u8> = if args.text {
        llmod.print_to_string().to_bytes().to_vec()
    } else {
        llmod.write_bitcode_to_memory().as_slice().to_vec()
    };
    let written = out
        .write_all(&bytes)
        .map_err(|e| cli::io_reason(&e))
        .and_then(|_| out.commit());
    match written {
        Ok(()) => {
            // Tearing down the LLVM module and the model would cost a tenth of the run;
            // the process ends here anyway.
            std::mem::forget(llmod);
            std::mem::forget(ctx);
            std::mem::forget(module);
            std::mem::forget(bytes);
            ExitCode::SUCCESS
        }
        Err(e) => {
            cli::report_msg(TOOL, e);
            ExitCode::from(1)
        }
    }
}
