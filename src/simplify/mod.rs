//! ABI simplification: any module clang-14 writes for `le32-unknown-nacl` (a whole
//! program, linked) → a module of the PNaCl subset, which pnacl-finalize checks and
//! freezes. The work PNaCl's `-pnacl-abi-simplify-preopt` and `-postopt` passes did
//! (`../shared/notes/simplify.md` §1), in two steps:
//!
//! - `prepare` (before whole-program optimization): only the entry point stays external
//!   (Internalize), and what nothing reaches goes.
//! - `lower` (after it): a new module is built beside the old one, function by function,
//!   each value of the old module held as one or more values of types a pexe has
//!   (`shape.rs`). Everything PNaCl's post-optimization passes did happens as each
//!   instruction is converted: varargs, `byval`/`sret`, aggregates as values, integers of
//!   any width, i1 arithmetic, getelementptr and constant expressions, pointers as i32,
//!   allocas of bytes, atomics and volatile accesses, library calls, intrinsics, vectors,
//!   alignments, attributes, flags and metadata (none is copied). Globals are flattened,
//!   thread-locals gathered into the TLS template, constructors into the init arrays.
//!
//! Where a construct's meaning cannot be kept (inline assembly, a 128-bit atomic, a
//! symbol nothing defines), the problem names the function and the construct, with the
//! source position when the module has debug information.
//!
//! Every LLVM call goes through `llvm::edit`, the typed layer; nothing here is `unsafe`.

mod calls;
mod eh;
mod func;
mod globals;
mod intrinsics;
mod lower;
mod memory;
mod ops;
mod shape;

pub use lower::{is_synthesized, synthesized, LIBRARY_CALLS};

use crate::llvm::edit::{self, Linkage, Module};

/// One thing the simplification could not do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The function or global it is in, if any.
    pub at: Option<String>,
    /// `file:line:col`, from the module's debug information.
    pub loc: Option<String>,
    pub what: String,
}

impl Problem {
    pub(crate) fn module(what: String) -> Problem {
        Problem {
            at: None,
            loc: None,
            what,
        }
    }

    pub(crate) fn in_function(name: &str, loc: Option<String>, what: String) -> Problem {
        Problem {
            at: Some(format!("function {name}")),
            loc,
            what,
        }
    }

    pub(crate) fn global(name: &str, what: String) -> Problem {
        Problem {
            at: Some(format!("global {name}")),
            loc: None,
            what,
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(l) = &self.loc {
            write!(f, "{l}: ")?;
        }
        if let Some(a) = &self.at {
            write!(f, "in {a}: ")?;
        }
        f.write_str(&self.what)
    }
}

/// The C library functions that stand for LLVM intrinsics the ABI lacks and that only a
/// library routine computes (a fused multiply-add, the transcendentals): each call of such
/// an intrinsic on a scalar becomes a call of the function (declared if need be), so that
/// linking brings it in. Returns the functions now called.
pub fn intrinsics_to_libm(m: &inkwell::module::Module<'_>) -> Vec<String> {
    const FAMILIES: &[&str] = &[
        "fma", "sin", "cos", "pow", "exp", "exp2", "log", "log2", "log10",
    ];
    let mm = Module::of(m);
    let mut called = Vec::new();
    for f in mm.functions() {
        let name = f.name();
        let Some(rest) = name.strip_prefix("llvm.") else {
            continue;
        };
        let Some((fam, ty)) = rest.rsplit_once('.') else {
            continue;
        };
        let libm = match ty {
            "f64" => fam.to_string(),
            "f32" => format!("{fam}f"),
            _ => continue,
        };
        if !FAMILIES.contains(&fam) || !f.has_uses() {
            continue;
        }
        let target = match mm.function(&libm) {
            Some(g) if g.function_type() == f.function_type() => g,
            Some(_) => continue,
            None => mm.add_function(&libm, f.function_type()),
        };
        f.replace_all_uses_with(target);
        called.push(libm);
    }
    called
}

/// The one symbol a pexe exports.
pub const ENTRY: &str = "_start";

/// Before whole-program optimization: every definition but the entry point internal, and
/// what nothing reaches from it removed.
pub fn prepare(m: &mut inkwell::module::Module<'_>) -> Result<(), Vec<Problem>> {
    {
        let mm = Module::of(m);
        let entry = mm
            .function(ENTRY)
            .filter(|f| !f.is_declaration() && f.linkage() == Linkage::LLVMExternalLinkage);
        if entry.is_none() {
            let mut problems = Vec::new();
            let mut undefined: Vec<String> = mm
                .functions()
                .into_iter()
                .chain(mm.globals())
                .filter(|v| v.is_declaration() && v.has_uses())
                .filter(|v| v.linkage() != Linkage::LLVMExternalWeakLinkage)
                .map(|v| v.name())
                .filter(|n| !n.starts_with("llvm."))
                .filter(|n| !LIBRARY_CALLS.contains(&n.as_str()) && !is_synthesized(n))
                .collect();
            undefined.sort();
            if !undefined.is_empty() {
                problems.push(Problem::module(format!(
                    "undefined symbol{}: {} (the module must be a whole program: link every \
                     object and library it uses, as pnacl-clang does)",
                    if undefined.len() == 1 { "" } else { "s" },
                    undefined.join(", ")
                )));
            }
            problems.push(Problem::module(
                "the module has no entry point: no external function `_start` (a whole \
                 program links the C library's start-up; pnacl-clang does)"
                    .into(),
            ));
            return Err(problems);
        }
        // What no optimization can make a pexe of is said of the function the source
        // put it in, before inlining moves it elsewhere.
        let mut problems = Vec::new();
        for f in mm.functions() {
            if f.is_declaration() {
                continue;
            }
            for b in f.blocks() {
                for i in b.instructions() {
                    if i.opcode() == Some(edit::Opcode::LLVMCall)
                        && i.called_value().kind() == edit::ValueKind::InlineAsm
                        && !calls::is_barrier(i)
                    {
                        problems.push(Problem::in_function(
                            &f.name(),
                            i.debug_loc(),
                            format!(
                                "inline assembly, which a pexe cannot hold: `{}`",
                                i.text().trim()
                            ),
                        ));
                    }
                }
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        // The unwinder's list and resume stay external until the lowering, which uses
        // them (eh.rs): the optimizer must neither drop them nor take the list for
        // always empty (nothing the program has yet pushes on it).
        for f in mm.functions() {
            let name = f.name();
            if !f.is_declaration()
                && !f.is_intrinsic()
                && name != ENTRY
                && !eh::ROOTS.contains(&name.as_str())
            {
                f.internalize();
            }
        }
        for g in mm.globals() {
            let name = g.name();
            if !g.is_declaration()
                && !name.starts_with("llvm.")
                && !eh::ROOTS.contains(&name.as_str())
            {
                g.internalize();
            }
        }
        for a in mm.aliases() {
            a.internalize();
        }
    }
    edit::run_passes(m, "globaldce").map_err(|e| vec![Problem::module(format!("LLVM: {e}"))])
}

/// After optimization: the module in the PNaCl subset (a new module of the same context).
pub fn lower<'c>(
    ctx: &'c inkwell::context::Context,
    m: &inkwell::module::Module<'c>,
) -> Result<inkwell::module::Module<'c>, Vec<Problem>> {
    lower::lower(ctx, m)
}

/// Both steps, with no optimization between (pnacl-finalize).
pub fn simplify<'c>(
    ctx: &'c inkwell::context::Context,
    m: &mut inkwell::module::Module<'c>,
) -> Result<inkwell::module::Module<'c>, Vec<Problem>> {
    prepare(m)?;
    lower(ctx, m)
}
