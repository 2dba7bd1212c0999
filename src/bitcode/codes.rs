//! Block ids and record codes of PNaCl bitcode, named as in spec/000 (and writer.md §3, §6).

/// Block ids.
pub mod block {
    pub const BLOCKINFO: u32 = 0;
    pub const MODULE: u32 = 8;
    pub const CONSTANTS: u32 = 11;
    pub const FUNCTION: u32 = 12;
    pub const VALUE_SYMTAB: u32 = 14;
    pub const TYPE: u32 = 17;
    pub const GLOBALVAR: u32 = 19;

    /// The PNaClAsm name of a block (pnacl-bcdis block headers).
    pub fn name(id: u32) -> Option<&'static str> {
        Some(match id {
            BLOCKINFO => "abbreviations",
            MODULE => "module",
            CONSTANTS => "constants",
            FUNCTION => "function",
            VALUE_SYMTAB => "valuesymtab",
            TYPE => "types",
            GLOBALVAR => "globals",
            _ => return None,
        })
    }
}

/// MODULE block record codes.
pub mod module {
    pub const VERSION: u32 = 1;
    pub const FUNCTION: u32 = 8;
}

/// TYPE block record codes.
pub mod types {
    pub const NUMENTRY: u32 = 1;
    pub const VOID: u32 = 2;
    pub const FLOAT: u32 = 3;
    pub const DOUBLE: u32 = 4;
    pub const INTEGER: u32 = 7;
    pub const VECTOR: u32 = 12;
    pub const FUNCTION: u32 = 21;
}

/// GLOBALVAR block record codes.
pub mod globals {
    pub const VAR: u32 = 0;
    pub const COMPOUND: u32 = 1;
    pub const ZEROFILL: u32 = 2;
    pub const DATA: u32 = 3;
    pub const RELOC: u32 = 4;
    pub const COUNT: u32 = 5;
}

/// VALUE_SYMTAB block record codes.
pub mod vst {
    pub const ENTRY: u32 = 1;
    pub const BBENTRY: u32 = 2;
}

/// CONSTANTS block record codes.
pub mod constants {
    pub const SETTYPE: u32 = 1;
    pub const UNDEF: u32 = 3;
    pub const INTEGER: u32 = 4;
    pub const FLOAT: u32 = 6;
}

/// FUNCTION block record codes.
pub mod function {
    pub const DECLAREBLOCKS: u32 = 1;
    pub const BINOP: u32 = 2;
    pub const CAST: u32 = 3;
    pub const EXTRACTELT: u32 = 6;
    pub const INSERTELT: u32 = 7;
    pub const RET: u32 = 10;
    pub const BR: u32 = 11;
    pub const SWITCH: u32 = 12;
    pub const UNREACHABLE: u32 = 15;
    pub const PHI: u32 = 16;
    pub const ALLOCA: u32 = 19;
    pub const LOAD: u32 = 20;
    pub const STORE: u32 = 24;
    pub const CMP2: u32 = 28;
    pub const VSELECT: u32 = 29;
    pub const CALL: u32 = 34;
    pub const FORWARDTYPEREF: u32 = 43;
    pub const CALL_INDIRECT: u32 = 44;
}

/// Pseudo-record codes pnacl-bcdis prints for the header, abbreviation definitions and
/// block boundaries (spec/000 "Global Records").
pub mod pseudo {
    pub const HEADER: u32 = 65532;
    pub const DEFINE_ABBREV: u32 = 65533;
    pub const EXIT: u32 = 65534;
    pub const ENTER: u32 = 65535;
}
