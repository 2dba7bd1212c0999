//! What LLVM 14's bitcode reader changes when it reads an LLVM 3.x module, read back from
//! the file itself.
//!
//! The 2014 tools (pnacl-freeze, the ABI checker) read bitcode written by the LLVM of their
//! day and saw it as written. LLVM 14 upgrades such a file on reading: a load or store
//! without an alignment gets its type's ABI alignment; `linker_private` becomes `private`;
//! a local function's `hidden` visibility is dropped; an intrinsic whose name does not fit
//! its type is renamed (`llvm.lifetime.start` → `llvm.lifetime.start.p0i8`); debug
//! metadata of an old version is dropped with its named nodes; and the insertion order of
//! the module's names, on which pnacl-freeze's symbol table order depends, is lost. This
//! module walks the file's records (the project's own bitstream reader) for exactly those
//! facts, and matches them to the LLVM 14 module's values.
//!
//! Only files without an IDENTIFICATION block (LLVM before 3.8) are read: later bitcode
//! keeps names in a string table and LLVM 14 reads it as written. Anything unexpected
//! (an abbreviation this reader lacks, counts that do not match the module) gives `None`
//! or leaves the value out: the module as LLVM 14 read it is then used as before.

use std::collections::HashMap;

use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

use super::ffi::{functions, globals, instructions, opcode, value_name};
use crate::bitstream::{Item, Reader};

const MODULE_BLOCK: u32 = 8;
const FUNCTION_BLOCK: u32 = 12;
const IDENTIFICATION_BLOCK: u32 = 13;
const VALUE_SYMTAB_BLOCK: u32 = 14;
const METADATA_BLOCK: u32 = 15;

const MODULE_CODE_GLOBALVAR: u32 = 7;
const MODULE_CODE_FUNCTION: u32 = 8;
const VST_CODE_ENTRY: u32 = 1;
const METADATA_NAME: u32 = 4;

/// One global variable's or function's record: linkage and visibility as encoded.
#[derive(Debug, Clone, Copy, Default)]
struct GlobalRecord {
    linkage: u64,
    visibility: u64,
    has_body: bool,
}

/// The facts of an LLVM 3.x file, in file order.
#[derive(Debug, Default)]
struct Facts {
    globals: Vec<GlobalRecord>,
    functions: Vec<GlobalRecord>,
    /// The module value symbol table: (value id, name), in record order.
    symtab: Vec<(u64, Vec<u8>)>,
    named_metadata: Vec<Vec<u8>>,
    /// For each function body in order, each load's and store's alignment field (log2 + 1,
    /// 0 for none), in instruction order.
    bodies: Vec<Vec<u64>>,
}

/// A function of the file.
#[derive(Debug, Clone)]
pub enum FileFunction {
    /// The module's function.
    Value(LLVMValueRef),
    /// An intrinsic LLVM 14 merged into another declaration on reading, by the file's name.
    Gone(Vec<u8>),
}

impl FileFunction {
    /// The module's function, unless LLVM 14 merged it away.
    pub fn value(&self) -> Option<LLVMValueRef> {
        match self {
            FileFunction::Value(v) => Some(*v),
            FileFunction::Gone(_) => None,
        }
    }
}

/// The facts matched to the values of an LLVM 14 module.
#[derive(Debug, Default)]
pub struct Legacy {
    /// Values whose name in the file differs from LLVM 14's (renamed intrinsics).
    names: HashMap<LLVMValueRef, Vec<u8>>,
    /// Values whose linkage LLVM 14 has no name for any more.
    linkage: HashMap<LLVMValueRef, &'static str>,
    /// Values whose visibility in the file LLVM 14 dropped: "hidden" or "protected".
    visibility: HashMap<LLVMValueRef, &'static str>,
    /// Loads and stores the file gives no alignment.
    unaligned: std::collections::HashSet<LLVMValueRef>,
    /// The module's functions in the file's order, if each is known.
    file_functions: Option<Vec<FileFunction>>,
    /// The module's named metadata, as the file names it.
    pub named_metadata: Vec<Vec<u8>>,
    /// The named functions and globals, in the order the file's symbol table lists them.
    pub symtab: Vec<LLVMValueRef>,
}

impl Legacy {
    /// What LLVM 14 changed in `m`, read from `data`, the LLVM 3.x bitcode `m` was read
    /// from; `None` for anything else.
    pub fn of(data: &[u8], m: LLVMModuleRef) -> Option<Legacy> {
        let facts = read(data)?;
        Some(resolve(&facts, m))
    }

    /// The functions of the file in its order (LLVM 14 moves the intrinsics it renames to
    /// the end, and drops those it merges), if the file accounts for each of the module's.
    pub fn functions(&self) -> Option<&[FileFunction]> {
        self.file_functions.as_deref()
    }

    /// The name the file gives `v`.
    pub fn name(&self, v: LLVMValueRef) -> Option<&[u8]> {
        self.names.get(&v).map(Vec::as_slice)
    }

    /// The file's linkage of `v`, where LLVM 14 turned it into another.
    pub fn linkage(&self, v: LLVMValueRef) -> Option<&'static str> {
        self.linkage.get(&v).copied()
    }

    /// The file's visibility of `v`, where LLVM 14 dropped it.
    pub fn visibility(&self, v: LLVMValueRef) -> Option<&'static str> {
        self.visibility.get(&v).copied()
    }

    /// Whether load or store `i` has no alignment in the file (LLVM 14 gave it its type's).
    pub fn unaligned(&self, i: LLVMValueRef) -> bool {
        self.unaligned.contains(&i)
    }
}

/// The bit where the bitstream of raw or wrapped LLVM bitcode starts.
fn stream_start(data: &[u8]) -> Option<u64> {
    let word = |k: usize| -> Option<u32> {
        Some(u32::from_le_bytes(data.get(k..k + 4)?.try_into().ok()?))
    };
    if data.starts_with(b"BC\xC0\xDE") {
        return Some(32);
    }
    if word(0)? == 0x0B17_C0DE {
        let (offset, size) = (word(8)? as usize, word(12)? as usize);
        if data
            .get(offset..offset.checked_add(size)?)?
            .starts_with(b"BC\xC0\xDE")
        {
            return Some(8 * offset as u64 + 32);
        }
    }
    None
}

fn read(data: &[u8]) -> Option<Facts> {
    let start = stream_start(data)?;
    let mut r = Reader::with_plans(data, start, false).ok()?;
    let mut facts = Facts::default();
    // The block ids from the top down to the current one.
    let mut path: Vec<u32> = Vec::new();
    let mut in_module = false;
    loop {
        match r.next_item().ok()? {
            Item::Enter { id, .. } => {
                if id == IDENTIFICATION_BLOCK {
                    return None;
                }
                if id == MODULE_BLOCK && path.is_empty() {
                    if in_module {
                        return None;
                    }
                    in_module = true;
                }
                if id == FUNCTION_BLOCK && path == [MODULE_BLOCK] {
                    facts.bodies.push(Vec::new());
                }
                path.push(id);
            }
            Item::Exit => {
                path.pop();
            }
            Item::DefineAbbrev { .. } => {}
            Item::Record { code, ops, .. } => match (path.as_slice(), code) {
                ([MODULE_BLOCK], MODULE_CODE_GLOBALVAR) => {
                    facts.globals.push(GlobalRecord {
                        linkage: *ops.get(3)?,
                        visibility: ops.get(6).copied().unwrap_or(0),
                        has_body: true,
                    });
                }
                ([MODULE_BLOCK], MODULE_CODE_FUNCTION) => {
                    facts.functions.push(GlobalRecord {
                        linkage: *ops.get(3)?,
                        visibility: ops.get(7).copied().unwrap_or(0),
                        has_body: *ops.get(2)? == 0,
                    });
                }
                ([MODULE_BLOCK, VALUE_SYMTAB_BLOCK], VST_CODE_ENTRY) => {
                    let (&id, chars) = ops.split_first()?;
                    let name: Option<Vec<u8>> =
                        chars.iter().map(|&c| u8::try_from(c).ok()).collect();
                    facts.symtab.push((id, name?));
                }
                ([MODULE_BLOCK, METADATA_BLOCK], METADATA_NAME) => {
                    let name: Option<Vec<u8>> = ops.iter().map(|&c| u8::try_from(c).ok()).collect();
                    facts.named_metadata.push(name?);
                }
                ([MODULE_BLOCK, FUNCTION_BLOCK], code) => {
                    // LOAD [op, (ty), align, vol]; STORE (24, 44) [ptr, (ty), val, align,
                    // vol]; the atomic forms (41, 42, 45) add ordering and scope.
                    let from_end = match code {
                        20 | 24 | 44 => 2,
                        41 | 42 | 45 => 4,
                        _ => continue,
                    };
                    let align = *ops.get(ops.len().checked_sub(from_end)?)?;
                    facts.bodies.last_mut()?.push(align);
                }
                _ => {}
            },
            Item::Eof => break,
        }
    }
    in_module.then_some(facts)
}

fn resolve(facts: &Facts, m: LLVMModuleRef) -> Legacy {
    let mut out = Legacy {
        named_metadata: facts.named_metadata.clone(),
        ..Legacy::default()
    };
    let gs: Vec<LLVMValueRef> = globals(m).collect();
    let fs: Vec<LLVMValueRef> = functions(m).collect();
    // The file's name of each record (value ids: the global variables, then the
    // functions, then aliases).
    let ng = facts.globals.len();
    let mut names: Vec<Option<&[u8]>> = vec![None; ng + facts.functions.len()];
    for (id, name) in &facts.symtab {
        if let Some(slot) = usize::try_from(*id).ok().and_then(|k| names.get_mut(k)) {
            *slot = Some(name);
        }
    }
    // Each record's value in the module: the one of its name, or, for a function LLVM 14
    // renamed (and moved to the end of the list), the next one no name of the file claims.
    let by_name: HashMap<Vec<u8>, LLVMValueRef> = gs
        .iter()
        .chain(&fs)
        .map(|&v| (value_name(v), v))
        .filter(|(n, _)| !n.is_empty())
        .collect();
    let claimed: std::collections::HashSet<LLVMValueRef> = names
        .iter()
        .flatten()
        .filter_map(|n| by_name.get(*n).copied())
        .collect();
    let mut renamed = fs.iter().filter(|f| !claimed.contains(f));
    let mut values: Vec<Option<LLVMValueRef>> = Vec::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        let v = match name {
            Some(n) => match by_name.get(*n) {
                Some(&v) => Some(v),
                None if k >= ng => renamed.next().copied(),
                None => None,
            },
            None if gs.len() == ng && k < ng => Some(gs[k]),
            None => None,
        };
        values.push(v);
    }
    // The functions in the file's order: LLVM 14's, and the intrinsics it merged into
    // another declaration (`llvm.memset.foo` of memset's type), by the file's name.
    let in_file: Option<Vec<FileFunction>> = values[ng..]
        .iter()
        .zip(&names[ng..])
        .map(|(v, n)| match (v, n) {
            (Some(v), _) => Some(FileFunction::Value(*v)),
            (None, Some(n)) if n.starts_with(b"llvm.") => Some(FileFunction::Gone(n.to_vec())),
            _ => None,
        })
        .collect();
    // Kept only if it names each of the module's functions once.
    out.file_functions = in_file.filter(|list| {
        let vs: Vec<LLVMValueRef> = list.iter().filter_map(FileFunction::value).collect();
        let unique: std::collections::HashSet<_> = vs.iter().collect();
        unique.len() == vs.len() && vs.len() == fs.len()
    });
    let records = facts.globals.iter().chain(&facts.functions);
    for (v, rec) in values.iter().zip(records) {
        let Some(v) = *v else { continue };
        // LLVM 3.4's encodings of the linkages LLVM 14 no longer has.
        if let Some(l) = match rec.linkage {
            5 => Some("dllimport"),
            6 => Some("dllexport"),
            13 => Some("linker_private"),
            14 => Some("linker_private_weak"),
            15 => Some("linkonce_odr_auto_hide"),
            _ => None,
        } {
            out.linkage.insert(v, l);
        }
        let vis = match rec.visibility {
            1 => "hidden",
            2 => "protected",
            _ => "",
        };
        // SAFETY: `v` is a global of the live module `m`.
        let now = unsafe { llvm_sys::core::LLVMGetVisibility(v) };
        if !vis.is_empty() && now == llvm_sys::LLVMVisibility::LLVMDefaultVisibility {
            out.visibility.insert(v, vis);
        }
    }
    for (id, name) in &facts.symtab {
        let Some(&Some(v)) = usize::try_from(*id).ok().and_then(|k| values.get(k)) else {
            continue;
        };
        if value_name(v) != *name {
            out.names.insert(v, name.clone());
        }
        out.symtab.push(v);
    }
    let bodies = values[ng..]
        .iter()
        .zip(&facts.functions)
        .filter(|(_, rec)| rec.has_body)
        .map(|(f, _)| *f);
    for (f, aligns) in bodies.zip(&facts.bodies) {
        let Some(f) = f else { continue };
        let memory: Vec<LLVMValueRef> = instructions(f)
            .filter(|&i| {
                matches!(
                    opcode(i),
                    Some(LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore)
                )
            })
            .collect();
        if memory.len() == aligns.len() {
            let none = memory.iter().zip(aligns).filter(|(_, &a)| a == 0);
            out.unaligned.extend(none.map(|(&i, _)| i));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn historical(name: &str) -> Vec<u8> {
        let p = format!("{}/../shared/historical/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn reads_what_llvm_14_changes_from_a_3_4_file() {
        let f = read(&historical("abi/linkagetypes.bc")).expect("an LLVM 3.4 file");
        // @gv_linker_private is the third global: linkage 13, which LLVM 14 calls private.
        assert_eq!(f.globals[2].linkage, 13);
        assert!(f.symtab.iter().any(|(_, n)| n == b"gv_linker_private"));
        let f = read(&historical("bcdis/load.bc")).unwrap();
        // BadTests' first load (`load i1* %ai1`) has no alignment.
        assert!(f.bodies.iter().any(|b| b.first() == Some(&0)));
        let f = read(&historical("abi/abi-metadata.bc")).unwrap();
        assert_eq!(
            f.named_metadata,
            [b"llvm.dbg.cu".to_vec(), b"madeup".to_vec()]
        );
    }

    #[test]
    fn a_damaged_or_later_file_gives_nothing_rather_than_a_guess() {
        let data = historical("abi/linkagetypes.bc");
        // Every truncation and thousands of single-byte changes: no panic, and a truncated
        // stream is no file.
        for n in (0..data.len()).step_by(7) {
            assert!(read(&data[..n]).is_none() || n >= data.len() - 4);
        }
        let mut state = 0x2545_f491_u32;
        for _ in 0..4000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let mut d = data.clone();
            let k = 4 + state as usize % (d.len() - 4);
            d[k] ^= (state >> 24) as u8 | 1;
            let _ = read(&d);
        }
        // LLVM 14's own bitcode (it has an IDENTIFICATION block): LLVM 14 reads it as written.
        let ctx = inkwell::context::Context::create();
        let text = "define void @_start(i32 %a) {\n  ret void\n}\n";
        let buf = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(
            text.as_bytes(),
            "t",
        );
        let m = ctx.create_module_from_ir(buf).unwrap();
        let bc = m.write_bitcode_to_memory();
        assert!(bc.as_slice().starts_with(b"BC"));
        assert!(read(bc.as_slice()).is_none());
        // Not bitcode at all.
        assert!(read(b"PEXE\x01\x00\x08\x00").is_none());
        assert!(read(b"").is_none());
    }
}
