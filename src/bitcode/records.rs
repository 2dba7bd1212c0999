//! Every record kind of PNaCl bitcode, defined once: its code and its operands in order
//! (spec/000, writer.md §5–§6). The reader decodes records into these (`X::decode`), the
//! writer encodes them (`Record::encode`, then the bitstream writer's checked path), and
//! the disassembler sees them through the reader; nothing else names an operand's
//! position.
//!
//! A record is a struct of its fixed operands (raw values, as in the file: relative value
//! ids, type ids, encoded alignments), and for the kinds that end in a list, the list.
//! `decode` checks only the shape (how many operands); what they mean is the reader's.

use super::codes::{constants as cst, function as fc, globals as gv, module as mc};
use super::codes::{types as tc, vst};

/// A message of the reader's errors (`Error` adds the position). Boxed so that results
/// carrying it stay one register wide on the reader's hot path.
#[derive(Debug)]
#[allow(clippy::box_collection)]
pub struct Msg(Box<String>);

impl From<String> for Msg {
    #[cold]
    fn from(s: String) -> Msg {
        Msg(Box::new(s))
    }
}

impl From<&str> for Msg {
    #[cold]
    fn from(s: &str) -> Msg {
        Msg(Box::new(s.to_string()))
    }
}

impl Msg {
    pub fn into_string(self) -> String {
        *self.0
    }
}

impl std::fmt::Display for Msg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The message of a record with the wrong number of operands: `what`, with `{n}` replaced
/// by the number it has.
#[cold]
#[inline(never)]
fn arity(what: &'static str, n: usize) -> Msg {
    Msg::from(what.replace("{n}", &n.to_string()))
}

/// A record the writer can emit: its code and operands.
pub trait Record {
    const CODE: u32;
    /// Appends the operands, in their order, to `out`.
    fn encode(&self, out: &mut Vec<u64>);
}

/// Defines record kinds: `Name = CODE [fields]` for a fixed number of operands, or
/// `Name = CODE [fields; list]` for fixed operands then a list; then what a record of the
/// wrong shape is called (`{n}`: the operands it has).
macro_rules! records {
    ($($(#[$doc:meta])* $name:ident = $code:path [$($f:ident),* $(; $list:ident)?] $what:literal;)*) => {
        $(records!(@one $(#[$doc])* $name = $code [$($f),* $(; $list)?] $what);)*
    };
    (@one $(#[$doc:meta])* $name:ident = $code:path [$($f:ident),*] $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name {
            $(pub $f: u64,)*
        }
        impl $name {
            #[inline(always)]
            pub fn decode(ops: &[u64]) -> Result<Self, Msg> {
                match *ops {
                    [$($f),*] => Ok($name { $($f),* }),
                    _ => Err(arity($what, ops.len())),
                }
            }
        }
        impl Record for $name {
            const CODE: u32 = $code;
            #[inline]
            fn encode(&self, _out: &mut Vec<u64>) {
                $(_out.push(self.$f);)*
            }
        }
    };
    (@one $(#[$doc:meta])* $name:ident = $code:path [$($f:ident),* ; $list:ident] $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name<'a> {
            $(pub $f: u64,)*
            pub $list: &'a [u64],
        }
        impl<'a> $name<'a> {
            #[inline(always)]
            #[allow(clippy::redundant_at_rest_pattern, unreachable_patterns)]
            pub fn decode(ops: &'a [u64]) -> Result<Self, Msg> {
                match *ops {
                    [$($f,)* ref $list @ ..] => Ok($name { $($f,)* $list }),
                    _ => Err(arity($what, ops.len())),
                }
            }
        }
        impl Record for $name<'_> {
            const CODE: u32 = $code;
            #[inline]
            fn encode(&self, out: &mut Vec<u64>) {
                $(out.push(self.$f);)*
                out.extend_from_slice(self.$list);
            }
        }
    };
}

records! {
    // The module block.
    /// The bitcode version (one operand, 1).
    Version = mc::VERSION [; version] "";
    /// A function address: its type, calling convention (0), whether it is only declared,
    /// and its linkage.
    FunctionAddr = mc::FUNCTION [ty, cc, isproto, linkage]
        "Invalid MODULE_CODE_FUNCTION record: {n} operands, expected 4 (type, calling \
         convention, isproto, linkage)";

    // The types block.
    TypeCount = tc::NUMENTRY [n] "Invalid TYPE_CODE_NUMENTRY record: expected one operand";
    VoidType = tc::VOID [] "Invalid TYPE_CODE_VOID record: expected no operands";
    FloatType = tc::FLOAT [] "Invalid TYPE_CODE_FLOAT record: expected no operands";
    DoubleType = tc::DOUBLE [] "Invalid TYPE_CODE_DOUBLE record: expected no operands";
    IntegerType = tc::INTEGER [width] "Invalid TYPE_CODE_INTEGER record: expected one operand";
    VectorType = tc::VECTOR [n, elt] "Invalid VECTOR type record: expected two operands";
    /// The vararg flag, the return type, then the parameter types.
    FunctionType = tc::FUNCTION [vararg, ret; params]
        "Invalid TYPE_CODE_FUNCTION record: expected vararg flag and return type";

    // The globals block.
    GlobalCount = gv::COUNT [n] "Invalid global count record: expected one operand";
    /// A global variable: its encoded alignment and constness.
    GlobalVar = gv::VAR [align, is_const]
        "Bad GLOBALVAR_VAR record: expected alignment and constness";
    Compound = gv::COMPOUND [n] "Bad GLOBALVAR_COMPOUND record: expected one operand";
    ZeroFill = gv::ZEROFILL [n] "Bad GLOBALVAR_ZEROFILL record: expected one operand";
    Data = gv::DATA [; bytes] "";
    /// A relocation: the address it names, and an addend when there is one (at most one).
    Reloc = gv::RELOC [target; addend] "Bad GLOBALVAR_RELOC record: expected 1 or 2 operands";

    // Value symbol tables.
    /// A function's or global's (or, in a function, a value's) name.
    Entry = vst::ENTRY [id; name] "Invalid VST_ENTRY record: no value id";
    /// A basic block's name.
    BbEntry = vst::BBENTRY [bb; name] "Invalid VST_BBENTRY record: no block id";

    // Constants blocks.
    SetType = cst::SETTYPE [ty] "Malformed CST_SETTYPE record: expected one operand";
    Undef = cst::UNDEF [] "Invalid CST_UNDEF record: expected no operands";
    /// A sign-rotated integer.
    Integer = cst::INTEGER [value] "Invalid CST_INTEGER record: expected one operand";
    /// The bits of a float or double.
    Float = cst::FLOAT [bits] "Invalid FLOAT record: expected one operand";

    // Function blocks. Value operands are relative ids unless said otherwise.
    DeclareBlocks = fc::DECLAREBLOCKS [n] "Invalid DECLAREBLOCKS record: expected one operand";
    /// A value id (absolute) and its type.
    ForwardTypeRef = fc::FORWARDTYPEREF [id, ty]
        "Invalid FORWARDTYPEREF record: expected value id and type";
    Binop = fc::BINOP [a, b, opcode] "Invalid BINOP record: {n} operands, expected 3";
    Cast = fc::CAST [value, ty, opcode] "Invalid CAST record: bad record size";
    /// A return, with its value when there is one (at most one).
    Ret = fc::RET [; value] "";
    /// A branch: its target, or its two targets and the condition (`rest`: `[f, cond]`).
    Br = fc::BR [target; rest] "Invalid BR record: expected 1 or 3 operands";
    /// A switch: the condition's type, the condition (relative modulo 2^64), the default
    /// block, the number of cases, then four operands a case (1, 1, the sign-rotated
    /// value, the block).
    Switch = fc::SWITCH [ty, cond, default, n; cases]
        "Invalid SWITCH record: fewer than 4 operands";
    Unreachable = fc::UNREACHABLE [] "Invalid UNREACHABLE record: expected no operands";
    /// A phi: its type, then (sign-rotated relative value, block) pairs.
    Phi = fc::PHI [ty; pairs] "Invalid PHI record: {n} operands (a type, then value/block pairs)";
    Alloca = fc::ALLOCA [size, align] "Invalid ALLOCA record: expected size and alignment";
    Load = fc::LOAD [ptr, align, ty] "Invalid LOAD record: expected pointer, alignment and type";
    Store = fc::STORE [ptr, value, align]
        "Invalid STORE record: expected pointer, value and alignment";
    Cmp2 = fc::CMP2 [a, b, predicate] "Invalid CMP record: expected 3 operands";
    VSelect = fc::VSELECT [t, f, cond] "Invalid SELECT record: expected 3 operands";
    ExtractElt = fc::EXTRACTELT [vector, index] "Invalid EXTRACTELEMENT record: expected 2 operands";
    InsertElt = fc::INSERTELT [vector, element, index]
        "Invalid INSERTELEMENT record: expected 3 operands";
    /// A direct call: calling convention << 1 | tail, the callee, the arguments.
    Call = fc::CALL [cc_tail, callee; args] "Invalid CALL record: fewer than 2 operands";
    /// An indirect call: calling convention << 1 | tail, the callee, the return type, the
    /// arguments.
    CallIndirect = fc::CALL_INDIRECT [cc_tail, callee, ret; args]
        "Invalid CALL record: fewer than 3 operands";
}
