//! Instructions of a function body (spec/000 "Function Blocks" and after).

use super::{Align, BlockId, ValueId, ValueType};

/// A range of a body arena (`Body::operands` or `Body::cases`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub start: u32,
    pub len: u32,
}

impl Span {
    /// The `len` items from `start`.
    pub fn new(start: u32, len: u32) -> Span {
        Span { start, len }
    }
}

/// One case of a switch: the case value (sign-extended from the condition's width) and
/// the block it branches to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchCase {
    pub value: i64,
    pub target: BlockId,
}

/// An instruction and the type of the value it produces (`Void` for none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    pub kind: InstKind,
    pub ty: ValueType,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstKind {
    Binop {
        op: BinOp,
        lhs: ValueId,
        rhs: ValueId,
    },
    /// The destination type is `Inst::ty`.
    Cast {
        op: CastOp,
        val: ValueId,
    },
    Ret {
        val: Option<ValueId>,
    },
    Br {
        target: BlockId,
    },
    CondBr {
        cond: ValueId,
        t: BlockId,
        f: BlockId,
    },
    /// `cases` indexes `Body::cases`.
    Switch {
        cond: ValueId,
        default: BlockId,
        cases: Span,
    },
    Unreachable,
    /// `incoming` indexes `Body::operands` as (value, block) pairs; `len` counts values.
    Phi {
        incoming: Span,
    },
    Alloca {
        size: ValueId,
        align: Align,
    },
    /// The loaded type is `Inst::ty`.
    Load {
        ptr: ValueId,
        align: Align,
    },
    Store {
        ptr: ValueId,
        val: ValueId,
        align: Align,
    },
    Cmp {
        pred: Pred,
        lhs: ValueId,
        rhs: ValueId,
    },
    Select {
        cond: ValueId,
        t: ValueId,
        f: ValueId,
    },
    ExtractElement {
        vec: ValueId,
        idx: ValueId,
    },
    InsertElement {
        vec: ValueId,
        elt: ValueId,
        idx: ValueId,
    },
    /// A direct call (`callee` is a function address, record 34) or an indirect one
    /// (record 44; the return type is `Inst::ty`, the parameter types are the arguments').
    Call {
        callee: ValueId,
        args: Span,
        tail: bool,
        indirect: bool,
    },
}

impl InstKind {
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstKind::Ret { .. }
                | InstKind::Br { .. }
                | InstKind::CondBr { .. }
                | InstKind::Switch { .. }
                | InstKind::Unreachable
        )
    }
}

/// An enum of a record's operator codes: each variant with its code, `from_code` and
/// `code` from the one list.
macro_rules! coded {
    ($(#[$doc:meta])* $name:ident { $($v:ident = $c:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $name {
            $($v = $c,)*
        }

        impl $name {
            pub fn from_code(c: u64) -> Option<$name> {
                match c {
                    $($c => Some($name::$v),)*
                    _ => None,
                }
            }

            pub fn code(self) -> u64 {
                self as u64
            }
        }
    };
}

coded! {
    /// Binary operator codes (spec/000: the same codes serve integer and floating point).
    BinOp {
        Add = 0,
        Sub = 1,
        Mul = 2,
        UDiv = 3,
        SDiv = 4,
        URem = 5,
        SRem = 6,
        Shl = 7,
        LShr = 8,
        AShr = 9,
        And = 10,
        Or = 11,
        Xor = 12,
    }
}

impl BinOp {
    /// Whether the operator exists for floating-point operands (fadd fsub fmul fdiv frem).
    pub fn has_float_form(self) -> bool {
        matches!(
            self,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::SDiv | BinOp::SRem
        )
    }

    /// Whether i1 operands are allowed (only the logical operators).
    pub fn allows_i1(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or | BinOp::Xor)
    }

    /// The PNaClAsm / LLVM name for operands of the given kind.
    pub fn name(self, float: bool) -> &'static str {
        use BinOp::*;
        match (self, float) {
            (Add, false) => "add",
            (Add, true) => "fadd",
            (Sub, false) => "sub",
            (Sub, true) => "fsub",
            (Mul, false) => "mul",
            (Mul, true) => "fmul",
            (UDiv, _) => "udiv",
            (SDiv, false) => "sdiv",
            (SDiv, true) => "fdiv",
            (URem, _) => "urem",
            (SRem, false) => "srem",
            (SRem, true) => "frem",
            (Shl, _) => "shl",
            (LShr, _) => "lshr",
            (AShr, _) => "ashr",
            (And, _) => "and",
            (Or, _) => "or",
            (Xor, _) => "xor",
        }
    }
}

coded! {
    /// Cast operator codes (spec/000 "Conversion Instructions"; 9 and 10, ptrtoint and
    /// inttoptr, never appear in a pexe).
    CastOp {
        Trunc = 0,
        ZExt = 1,
        SExt = 2,
        FpToUi = 3,
        FpToSi = 4,
        UiToFp = 5,
        SiToFp = 6,
        FpTrunc = 7,
        FpExt = 8,
        Bitcast = 11,
    }
}

impl CastOp {
    pub fn name(self) -> &'static str {
        use CastOp::*;
        match self {
            Trunc => "trunc",
            ZExt => "zext",
            SExt => "sext",
            FpToUi => "fptoui",
            FpToSi => "fptosi",
            UiToFp => "uitofp",
            SiToFp => "sitofp",
            FpTrunc => "fptrunc",
            FpExt => "fpext",
            Bitcast => "bitcast",
        }
    }

    /// Whether casting a value of type `from` to `to` is valid (spec/000 constraints).
    pub fn is_valid(self, from: ValueType, to: ValueType) -> bool {
        use CastOp::*;
        let (fe, te) = (from.elem(), to.elem());
        let same_count = from.count() == to.count();
        match self {
            Trunc => same_count && fe.is_int() && te.is_int() && fe.bits() > te.bits(),
            ZExt | SExt => same_count && fe.is_int() && te.is_int() && fe.bits() < te.bits(),
            FpTrunc => same_count && fe == ValueType::Double && te == ValueType::Float,
            FpExt => same_count && fe == ValueType::Float && te == ValueType::Double,
            FpToUi | FpToSi => same_count && fe.is_float() && te.is_int(),
            UiToFp | SiToFp => same_count && fe.is_int() && te.is_float(),
            Bitcast => !from.is_void() && !to.is_void() && from.bits() == to.bits(),
        }
    }
}

/// Comparison predicates, with LLVM's numbering (fcmp 0..15, icmp 32..41).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pred(pub u8);

impl Pred {
    pub fn from_code(c: u64) -> Option<Pred> {
        match c {
            0..=15 | 32..=41 => Some(Pred(c as u8)),
            _ => None,
        }
    }

    pub fn is_float(self) -> bool {
        self.0 < 32
    }

    pub fn name(self) -> &'static str {
        const F: [&str; 16] = [
            "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "uno", "ueq", "ugt", "uge",
            "ult", "ule", "une", "true",
        ];
        const I: [&str; 10] = [
            "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
        ];
        if self.0 < 16 {
            F[self.0 as usize]
        } else {
            I[(self.0 - 32) as usize]
        }
    }
}
