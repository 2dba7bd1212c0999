//! pnacl-abicheck: checks pexes and LLVM modules against every rule of the PNaCl ABI.

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use inkwell::context::Context;
use pnacl::abi::{self, Finding, Scope};
use pnacl::cli;

/// Check PNaCl pexes, LLVM bitcode or LLVM IR text (recognised by content) against the
/// PNaCl bitcode ABI (the PNaCl Bitcode Reference Manual). Every finding is reported, one
/// a line, in the historical pnacl-abicheck's wording; then a summary line per file.
/// Exit status: 0 clean, 1 a rule is broken, 2 a file cannot be read.
#[derive(Parser)]
#[command(name = "pnacl-abicheck", version = pnacl::cli::VERSION)]
struct Args {
    /// Files to check (standard input when none).
    files: Vec<String>,
    /// Accept debug metadata (the historical -pnaclabi-allow-debug-metadata).
    #[arg(long)]
    allow_debug_metadata: bool,
    /// Print only the summary lines.
    #[arg(short, long)]
    quiet: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Hold to the 2014 checker where it is stricter than spec/001: seq_cst atomics only,
    /// no llvm.fabs.
    #[arg(long)]
    strict_2014: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

const TOOL: &str = "pnacl-abicheck";

enum Outcome {
    Unreadable(String),
    Checked(Vec<Finding>),
}

fn check_file(data: &[u8], name: &str, args: &Args) -> Outcome {
    use cli::InputKind;
    if let k @ (InputKind::Empty | InputKind::Elf { .. }) = InputKind::of(data) {
        return Outcome::Unreadable(format!(
            "{name}: {}, neither a pexe nor an LLVM module",
            k.describe()
        ));
    }
    if data.starts_with(b"PEXE") {
        return match pnacl::bitcode::read(data) {
            Ok(m) => Outcome::Checked(abi::check_all(
                &m,
                &abi::Options {
                    historical_strictness: args.strict_2014,
                },
            )),
            Err(e) => Outcome::Unreadable(format!("{name}:{e}")),
        };
    }
    let ctx = Context::create();
    let opts = pnacl::llvm::abicheck::Options {
        allow_debug_metadata: args.allow_debug_metadata,
        historical_strictness: args.strict_2014,
        ignore_named_metadata: false,
    };
    let outcome = match pnacl::llvm::parse_ir(&ctx, data, name) {
        // A module LLVM's verifier rejects (a use its definition does not dominate, the
        // address of an intrinsic, …) breaks the rule that a pexe is a valid LLVM module:
        // that is the first finding, and the ABI rules are checked all the same, on the
        // module as LLVM read it.
        Ok(m) => {
            let mut findings = Vec::new();
            if let Err(e) = m.verify() {
                let e = e.to_string().trim_end().replace('\n', "; ");
                let msg = format!("Module is not a valid LLVM module: {e}");
                let rule = abi::Rule::WellFormed;
                findings.push(Finding::error(
                    Scope::Module,
                    String::new(),
                    msg,
                    rule,
                    None,
                ));
            }
            findings.extend(pnacl::llvm::abicheck::check_read_from(
                &m,
                &opts,
                Some(data),
            ));
            Outcome::Checked(findings)
        }
        // Text that is no LLVM IR at all: said as the other tools say it.
        Err(_) if InputKind::of(data) == InputKind::Text => Outcome::Unreadable(format!(
            "{name}: a text file, neither a pexe nor an LLVM module"
        )),
        // `LINE:COL: message` from the text parser, a bare message from the bitcode one.
        Err(e) => Outcome::Unreadable(cli::llvm_message(name, &e)),
    };
    outcome
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn json_findings(findings: &[Finding]) -> String {
    let items: Vec<String> = findings
        .iter()
        .map(|f| {
            let (scope, func) = match f.scope {
                Scope::Module => ("module", "null".to_string()),
                Scope::Function(_) => ("function", json_str(&f.fname)),
            };
            let pos = f.pos.map_or("null".to_string(), |p| json_str(&format!("{}:{}", p / 8, p % 8)));
            format!(
                "{{\"severity\": {}, \"scope\": \"{scope}\", \"function\": {func}, \"message\": {}, \"rule\": {}, \"position\": {pos}}}",
                json_str(if f.warning { "warning" } else { "error" }),
                json_str(&f.msg),
                json_str(f.rule.name())
            )
        })
        .collect();
    format!("[{}]", items.join(", "))
}

fn main() -> ExitCode {
    pnacl::cli::default_sigpipe();
    let args = Args::parse();
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files.clone()
    };
    let (mut any_bad, mut any_unreadable) = (false, false);
    let mut json = Vec::new();
    for file in &files {
        let name = cli::display_name(file);
        let outcome = match cli::read_input(file) {
            Ok(data) => check_file(&data, &name, &args),
            Err(e) => Outcome::Unreadable(format!("{name}: {e}")),
        };
        match outcome {
            Outcome::Unreadable(msg) => {
                any_unreadable = true;
                cli::report_msg(TOOL, &msg);
                if args.format == Format::Json {
                    json.push(format!(
                        "{{\"file\": {}, \"readable\": false, \"error\": {}}}",
                        json_str(&name),
                        json_str(&msg)
                    ));
                }
            }
            Outcome::Checked(findings) => {
                let errors = findings.iter().filter(|f| !f.warning).count();
                let warnings = findings.len() - errors;
                any_bad |= errors > 0;
                match args.format {
                    Format::Json => json.push(format!(
                        "{{\"file\": {}, \"readable\": true, \"errors\": {errors}, \"warnings\": {warnings}, \"findings\": {}}}",
                        json_str(&name),
                        json_findings(&findings)
                    )),
                    Format::Text => {
                        if !args.quiet {
                            print!("{}", abi::render(&findings));
                        }
                        println!(
                            "{name}: {errors} error{}, {warnings} warning{}",
                            if errors == 1 { "" } else { "s" },
                            if warnings == 1 { "" } else { "s" }
                        );
                    }
                }
            }
        }
    }
    if args.format == Format::Json {
        println!("[{}]", json.join(",\n "));
    }
    if any_unreadable {
        ExitCode::from(2)
    } else if any_bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
