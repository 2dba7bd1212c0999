//! Abbreviations: how a record's values are packed into bits.

use std::fmt;

/// One operand of an abbreviation. An `Array` is always the second-to-last operand and
/// the operand after it is the element encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbbrevOp {
    Literal(u64),
    Fixed(u8),
    Vbr(u8),
    Array,
    Char6,
}

impl AbbrevOp {
    /// The smallest number of bits one value takes with this encoding.
    pub fn min_bits(self) -> u32 {
        match self {
            AbbrevOp::Literal(_) | AbbrevOp::Array => 0,
            AbbrevOp::Fixed(w) | AbbrevOp::Vbr(w) => w as u32,
            AbbrevOp::Char6 => 6,
        }
    }
}

/// An abbreviation, with the raw fields it was defined with (for printing, the
/// `<65533, …>` pseudo-record of pnacl-bcdis).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Abbrev {
    pub ops: Vec<AbbrevOp>,
    /// The DEFINE_ABBREV fields as written: operand count, then per operand
    /// `1, value` (literal) / `0, 1, w` (fixed) / `0, 2, w` (vbr) / `0, 3` (array) / `0, 4` (char6).
    pub raw: Vec<u64>,
}

/// One scalar operand in the decoder's compact form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastOp {
    pub kind: u8,
    pub width: u8,
    pub lit: u64,
}

impl FastOp {
    pub const LITERAL: u8 = 0;
    pub const FIXED: u8 = 1;
    pub const VBR: u8 = 2;
    pub const CHAR6: u8 = 3;

    pub fn of(op: AbbrevOp) -> FastOp {
        match op {
            AbbrevOp::Literal(v) => FastOp {
                kind: Self::LITERAL,
                width: 0,
                lit: v,
            },
            AbbrevOp::Fixed(w) => FastOp {
                kind: Self::FIXED,
                width: w,
                lit: 0,
            },
            AbbrevOp::Vbr(w) => FastOp {
                kind: Self::VBR,
                width: w,
                lit: 0,
            },
            AbbrevOp::Char6 => FastOp {
                kind: Self::CHAR6,
                width: 6,
                lit: 0,
            },
            AbbrevOp::Array => unreachable!("arrays are not scalars"),
        }
    }
}

/// An abbreviation compiled for decoding: its scalar operands, then an optional array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub scalars: Vec<FastOp>,
    pub array: Option<FastOp>,
}

impl Plan {
    pub fn of(a: &Abbrev) -> Plan {
        let mut scalars = Vec::with_capacity(a.ops.len());
        let mut array = None;
        let mut i = 0;
        while i < a.ops.len() {
            if a.ops[i] == AbbrevOp::Array {
                array = Some(FastOp::of(a.ops[i + 1]));
                break;
            }
            scalars.push(FastOp::of(a.ops[i]));
            i += 1;
        }
        Plan { scalars, array }
    }
}

impl Abbrev {
    /// Builds an abbreviation from its operands (the writer's side). Fixed(0) and VBR(0)
    /// stay as written in `raw` but read back as the literal 0, as the reader does.
    pub fn new(ops: Vec<AbbrevOp>) -> Abbrev {
        let mut raw = vec![ops.len() as u64];
        for op in &ops {
            match *op {
                AbbrevOp::Literal(v) => raw.extend([1, v]),
                AbbrevOp::Fixed(w) => raw.extend([0, 1, w as u64]),
                AbbrevOp::Vbr(w) => raw.extend([0, 2, w as u64]),
                AbbrevOp::Array => raw.extend([0, 3]),
                AbbrevOp::Char6 => raw.extend([0, 4]),
            }
        }
        let ops = ops
            .into_iter()
            .map(|op| match op {
                AbbrevOp::Fixed(0) | AbbrevOp::Vbr(0) => AbbrevOp::Literal(0),
                op => op,
            })
            .collect();
        Abbrev { ops, raw }
    }

    /// The operands as defined, for printing: Fixed(0)/VBR(0) come back as `Fixed(0)`/`Vbr(0)`
    /// only in `raw`; here they are the literal 0.
    pub fn is_array_at(&self, i: usize) -> bool {
        matches!(self.ops.get(i), Some(AbbrevOp::Array))
    }
}

/// The char6 alphabet: `a..z A..Z 0..9 . _`.
pub const CHAR6: &[u8; 64] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._";

#[inline]
pub fn decode_char6(v: u64) -> u8 {
    CHAR6[(v & 63) as usize]
}

#[inline]
pub fn encode_char6(c: u8) -> Option<u64> {
    Some(match c {
        b'a'..=b'z' => (c - b'a') as u64,
        b'A'..=b'Z' => (c - b'A') as u64 + 26,
        b'0'..=b'9' => (c - b'0') as u64 + 52,
        b'.' => 62,
        b'_' => 63,
        _ => return None,
    })
}

#[inline]
pub fn is_char6(c: u64) -> bool {
    c < 256 && encode_char6(c as u8).is_some()
}

impl fmt::Display for AbbrevOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AbbrevOp::Literal(v) => write!(f, "{v}"),
            AbbrevOp::Fixed(w) => write!(f, "fixed({w})"),
            AbbrevOp::Vbr(w) => write!(f, "vbr({w})"),
            AbbrevOp::Array => write!(f, "array"),
            AbbrevOp::Char6 => write!(f, "char6"),
        }
    }
}
