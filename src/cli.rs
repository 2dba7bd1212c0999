//! What every program shares: reading the input (a file or `-` for standard input, its
//! kind recognised by content), writing the output (`output`), and reporting errors as
//! `TOOL: error: FILE:BYTE:BIT: message`.

use std::fs;
use std::io::{self, Read, Write};

use crate::error::Error;
pub use crate::output::{io_reason, Output, PendingFile};

/// What every tool prints for `--version`: its version and the LLVM it was built with.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (LLVM ",
    env!("PNACL_LLVM_VERSION"),
    ")"
);

/// What a file is, by its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Empty,
    Pexe,
    LlvmBitcode,
    /// LLVM IR text (it has a definition, a declaration or a target line).
    LlvmText,
    /// Other text.
    Text,
    /// An ELF file; `true` for a relocatable object.
    Elf {
        object: bool,
    },
    Other,
}

impl InputKind {
    pub fn of(data: &[u8]) -> InputKind {
        const WRAPPER: [u8; 4] = [0xde, 0xc0, 0x17, 0x0b];
        if data.is_empty() {
            InputKind::Empty
        } else if data.starts_with(b"PEXE") {
            InputKind::Pexe
        } else if data.starts_with(b"BC\xc0\xde") || data.starts_with(&WRAPPER) {
            InputKind::LlvmBitcode
        } else if data.starts_with(b"\x7fELF") {
            // e_type, little-endian, at byte 16: 1 is ET_REL.
            InputKind::Elf {
                object: data.get(16..18) == Some(&[1, 0]),
            }
        } else if !data[..data.len().min(4096)].contains(&0)
            && std::str::from_utf8(&data[..data.len().min(4096)]).is_ok()
        {
            let text = String::from_utf8_lossy(&data[..data.len().min(1 << 16)]);
            let llvm = [
                "define ",
                "declare ",
                "target triple",
                "target datalayout",
                "source_filename",
                "; ModuleID",
            ]
            .iter()
            .any(|k| text.contains(k));
            if llvm {
                InputKind::LlvmText
            } else {
                InputKind::Text
            }
        } else {
            InputKind::Other
        }
    }

    /// The name of the kind, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            InputKind::Empty => "an empty file",
            InputKind::Pexe => "a pexe",
            InputKind::LlvmBitcode => "LLVM bitcode",
            InputKind::LlvmText => "LLVM IR text",
            InputKind::Text => "a text file",
            InputKind::Elf { object: true } => "an ELF object file",
            InputKind::Elf { object: false } => "an ELF file",
            InputKind::Other => "not a pexe",
        }
    }
}

/// The message for a tool that reads pexes given something else, naming the tool to use;
/// `None` for a pexe (or what may be one: its own errors say more).
pub fn not_a_pexe(name: &str, data: &[u8]) -> Option<String> {
    let kind = InputKind::of(data);
    let advice = match kind {
        InputKind::Pexe | InputKind::Other => return None,
        InputKind::Empty | InputKind::Text => "a pexe was expected",
        InputKind::LlvmBitcode | InputKind::LlvmText => {
            "an LLVM module becomes a pexe with pnacl-finalize (or pnacl-freeze)"
        }
        InputKind::Elf { object: true } => {
            "pnacl-translate links an object that llc made from pnacl-llvm's module"
        }
        InputKind::Elf { object: false } => "a pexe was expected",
    };
    Some(format!("{name}: {}, not a pexe: {advice}", kind.describe()))
}

/// The message for a tool that reads LLVM modules given something else; `None` for what
/// may be one.
pub fn not_llvm(name: &str, data: &[u8]) -> Option<String> {
    let kind = InputKind::of(data);
    let advice = match kind {
        // Text may be LLVM IR all the same: LLVM's parser says what is wrong with it.
        InputKind::LlvmBitcode | InputKind::LlvmText | InputKind::Text | InputKind::Other => {
            return None
        }
        InputKind::Empty => "an LLVM module (.ll or .bc) was expected",
        InputKind::Pexe => {
            "it is finalized already (pnacl-llvm --target le32 turns a pexe back into an LLVM module)"
        }
        InputKind::Elf { .. } => "an LLVM module (.ll or .bc) was expected",
    };
    Some(format!(
        "{name}: {}, not an LLVM module: {advice}",
        kind.describe()
    ))
}

/// Where the input came from, for messages (`<stdin>` for standard input).
pub fn display_name(input: &str) -> String {
    if input == "-" {
        "<stdin>".to_string()
    } else {
        input.to_string()
    }
}

/// Reads the whole input, `-` meaning standard input. An error says why as the other
/// messages do ("No such file or directory"), without Rust's "(os error N)".
pub fn read_input(input: &str) -> io::Result<Vec<u8>> {
    let read = if input == "-" {
        let mut v = Vec::new();
        io::stdin().lock().read_to_end(&mut v).map(|_| v)
    } else {
        fs::read(input)
    };
    read.map_err(|e| io::Error::new(e.kind(), io_reason(&e)))
}

/// Reads the input named `input` (`-`: standard input) with its display name, or reports
/// why it cannot be read as `TOOL: error: NAME: reason` and returns `None`.
pub fn read_or_report(tool: &str, input: &str) -> Option<(String, Vec<u8>)> {
    let name = display_name(input);
    match read_input(input) {
        Ok(d) => Some((name, d)),
        Err(e) => {
            report_msg(tool, format!("{name}: {e}"));
            None
        }
    }
}

/// The input and output of a one-file tool: a file or `-` (standard input), and `-o`
/// (standard output if not given). A tool words the help for what it reads and writes
/// with `#[command(mut_arg("input", cli::help("…")))]`, and may require `-o` so.
#[derive(clap::Args)]
pub struct Io {
    /// The pexe to read (`-` or nothing: standard input).
    #[arg(default_value = "-")]
    pub input: String,
    /// The file to write (standard output if not given).
    #[arg(short, long)]
    pub output: Option<String>,
}

/// An argument's help text, for `mut_arg` (written as clap shows a doc comment: no
/// closing full stop).
pub fn help(text: &'static str) -> impl FnOnce(clap::Arg) -> clap::Arg {
    move |a| a.help(text)
}

/// A one-input tool's start: SIGPIPE as a command-line tool has it, the arguments parsed
/// (`--help`, `--version` and usage errors as clap answers them), and the input read (its
/// name as the user gave it, and its bytes); `None` once the error is reported.
pub fn start<A: clap::Parser>(tool: &str, io: impl Fn(&A) -> &Io) -> Option<(A, String, Vec<u8>)> {
    default_sigpipe();
    let args = A::parse();
    let (name, data) = read_or_report(tool, &io(&args).input)?;
    Some((args, name, data))
}

/// Prints `TOOL: error: FILE:BYTE:BIT: message` to standard error.
pub fn report(tool: &str, file: &str, e: &Error) {
    eprintln!("{tool}: error: {file}:{e}");
}

/// Prints `TOOL: error: message` to standard error.
pub fn report_msg(tool: &str, msg: impl std::fmt::Display) {
    eprintln!("{tool}: error: {msg}");
}

/// Reads and checks a pexe the way every program does before its own work: the reader's
/// errors, then the ABI rules the model can express, each reported as
/// `TOOL: error: FILE:BYTE:BIT: message` (the ABI rules only when `check`). Returns the
/// module, or `None` after reporting.
pub fn read_checked(tool: &str, name: &str, data: &[u8], check: bool) -> Option<crate::ir::Module> {
    if let Some(m) = not_a_pexe(name, data) {
        report_msg(tool, m);
        return None;
    }
    let m = match crate::bitcode::read(data) {
        Ok(m) => m,
        Err(e) => {
            report(tool, name, &e);
            return None;
        }
    };
    if !check {
        return Some(m);
    }
    let findings = crate::abi::check_all(&m, &crate::abi::Options::default());
    if findings.is_empty() {
        return Some(m);
    }
    for f in findings.iter().filter(|f| !f.warning) {
        let pos = f
            .pos
            .filter(|&p| p > 0)
            .map(|p| format!("{}:{}: ", p / 8, p % 8))
            .unwrap_or_default();
        eprintln!(
            "{tool}: error: {name}:{pos}{} [spec/001: {}]",
            f.msg, f.rule
        );
    }
    if findings.iter().all(|f| f.warning) {
        Some(m)
    } else {
        None
    }
}

/// Restores the default action of SIGPIPE, which Rust's runtime ignores, so that a tool
/// whose reader went away (`pnacl-bcdis x.pexe | head`) ends quietly as Unix tools do,
/// instead of reporting a write error.
pub fn default_sigpipe() {
    #[cfg(unix)]
    {
        extern "C" {
            fn signal(sig: i32, handler: usize) -> usize;
        }
        const SIGPIPE: i32 = 13;
        const SIG_DFL: usize = 0;
        // SAFETY: installs the default disposition; no handler code runs in this process.
        unsafe {
            signal(SIGPIPE, SIG_DFL);
        }
    }
}

/// An LLVM parser message as `FILE:LINE:COL: message` (text) or `FILE: message` (bitcode),
/// from what `llvm::parse_ir` returns.
pub fn llvm_message(name: &str, e: &str) -> String {
    if e.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{name}:{e}")
    } else {
        format!("{name}: {e}")
    }
}

/// Writes `bytes` to `dest` (standard output when `None` or `-`), whole or not at all, and
/// returns the exit status; binary output is refused on a terminal when `binary`.
pub fn write_output(
    tool: &str,
    dest: Option<&str>,
    bytes: &[u8],
    binary: bool,
) -> std::process::ExitCode {
    let mut out = match Output::new(dest) {
        Ok(o) => o,
        Err(e) => {
            report_msg(tool, e);
            return std::process::ExitCode::from(1);
        }
    };
    if binary && out.is_terminal() {
        report_msg(
            tool,
            "refusing to write a binary file to a terminal (use -o FILE)",
        );
        return std::process::ExitCode::from(1);
    }
    let shown = dest.filter(|d| *d != "-").unwrap_or("<stdout>").to_string();
    let result = out
        .write_all(bytes)
        .map_err(|e| format!("{shown}: {}", io_reason(&e)))
        .and_then(|_| out.commit());
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            report_msg(tool, e);
            std::process::ExitCode::from(1)
        }
    }
}

/// The end of pnacl-freeze and pnacl-finalize: the LLVM module numbered as pnacl-freeze
/// numbered modules, written as a pexe to `dest`; problems reported, status returned.
/// `symtab_metadata`: follow the symbol-table order the module's `pnacl.symtab` metadata
/// records (pnacl-freeze), or ignore it like all metadata (pnacl-finalize). `read_from`:
/// the bytes the module was read from, where they are as written (an LLVM 3.x file is then
/// frozen as the 2014 tool froze it).
#[cfg(feature = "llvm")]
pub fn freeze_to(
    tool: &str,
    name: &str,
    module: &inkwell::module::Module<'_>,
    dest: Option<&str>,
    symtab_metadata: bool,
    read_from: Option<&[u8]>,
) -> std::process::ExitCode {
    let model = match crate::llvm::import::import_read_from(module, symtab_metadata, read_from) {
        Ok(m) => m,
        Err(e) => {
            for p in &e.problems {
                report_msg(tool, format!("{name}: {p}"));
            }
            return std::process::ExitCode::from(1);
        }
    };
    match crate::bitcode::write(&model) {
        Ok(bytes) => write_output(tool, dest, &bytes, true),
        Err(e) => {
            report_msg(tool, format!("{name}: {}", e.msg()));
            std::process::ExitCode::from(1)
        }
    }
}

/// An LLVM module (bitcode or text) parsed in `ctx`, or the parser's message reported.
#[cfg(feature = "llvm")]
pub fn parse_llvm_or_report<'ctx>(
    tool: &str,
    name: &str,
    ctx: &'ctx inkwell::context::Context,
    data: &[u8],
) -> Option<inkwell::module::Module<'ctx>> {
    if let Some(m) = not_llvm(name, data) {
        report_msg(tool, m);
        return None;
    }
    match crate::llvm::parse_ir(ctx, data, name) {
        Ok(m) => Some(m),
        Err(e) => {
            report_msg(tool, llvm_message(name, &e));
            None
        }
    }
}
