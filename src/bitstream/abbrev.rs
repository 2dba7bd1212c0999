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
    /// The plan of an abbreviation of operands `ops` (as the reader takes them: `Fixed(0)`
    /// and `Vbr(0)` already the literal 0).
    pub fn of(ops: impl IntoIterator<Item = AbbrevOp>) -> Plan {
        let mut scalars = Vec::new();
        let mut ops = ops.into_iter();
        while let Some(op) = ops.next() {
            if op == AbbrevOp::Array {
                let array = ops.next().map(FastOp::of);
                return Plan { scalars, array };
            }
            scalars.push(FastOp::of(op));
        }
        Plan {
            scalars,
            array: None,
        }
    }
}

/// The compact form of abbreviations, in which the reader keeps them (a few bytes each,
/// which matters for small files): the number of operands in LEB128, then one byte an
/// operand, as written, a literal's value after its byte in LEB128.
pub(crate) mod compact {
    use super::AbbrevOp;

    const LITERAL: u8 = 0x00;
    const ARRAY: u8 = 0x01;
    const CHAR6: u8 = 0x02;
    /// `FIXED + w` for fixed(w), 0 ≤ w ≤ 64.
    const FIXED: u8 = 0x40;
    /// `VBR + w` for vbr(w), 0 ≤ w ≤ 32.
    const VBR: u8 = 0xA0;

    fn push_leb(code: &mut Vec<u8>, mut v: u64) {
        loop {
            let low = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                code.push(low);
                return;
            }
            code.push(low | 0x80);
        }
    }

    /// The value in LEB128 at the start of `code`, and the bytes it takes.
    fn leb(code: &[u8]) -> (u64, usize) {
        let mut v = 0u64;
        for (i, &byte) in code.iter().enumerate() {
            v |= ((byte & 0x7f) as u64) << (7 * i);
            if byte & 0x80 == 0 {
                return (v, i + 1);
            }
        }
        unreachable!("a LEB128 value runs past the end of the compact form")
    }

    /// Starts an abbreviation of `n` operands.
    pub fn push_count(code: &mut Vec<u8>, n: u64) {
        push_leb(code, n);
    }

    /// The number of operands of the abbreviation at the start of `code`, and the bytes
    /// it takes.
    pub fn count(code: &[u8]) -> (u64, usize) {
        leb(code)
    }

    /// Appends `op` (as written; a fixed width of at most 64, a VBR width of at most 32).
    pub fn push(code: &mut Vec<u8>, op: AbbrevOp) {
        match op {
            AbbrevOp::Literal(v) => {
                code.push(LITERAL);
                push_leb(code, v);
            }
            AbbrevOp::Array => code.push(ARRAY),
            AbbrevOp::Char6 => code.push(CHAR6),
            AbbrevOp::Fixed(w) => {
                assert!(w <= 64, "fixed({w})");
                code.push(FIXED + w);
            }
            AbbrevOp::Vbr(w) => {
                assert!(w <= 32, "vbr({w})");
                code.push(VBR + w);
            }
        }
    }

    /// The operand at the start of `code` (what `push` wrote) as written, and the bytes
    /// it takes.
    #[inline]
    pub fn next(code: &[u8]) -> (AbbrevOp, usize) {
        match code[0] {
            LITERAL => {
                let (v, n) = leb(&code[1..]);
                (AbbrevOp::Literal(v), 1 + n)
            }
            ARRAY => (AbbrevOp::Array, 1),
            CHAR6 => (AbbrevOp::Char6, 1),
            b if b >= VBR => (AbbrevOp::Vbr(b - VBR), 1),
            b => (AbbrevOp::Fixed(b - FIXED), 1),
        }
    }
}

/// An abbreviation the reader holds in compact form (`compact`; the slice starts with
/// it and may go on past it): its operands as written, or as decoded, and the `Abbrev`
/// they make.
#[derive(Debug, Clone, Copy)]
pub struct AbbrevRef<'a>(pub(crate) &'a [u8]);

impl PartialEq for AbbrevRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.written().eq(other.written())
    }
}

impl Eq for AbbrevRef<'_> {}

impl<'a> AbbrevRef<'a> {
    /// The operands as written (`Fixed(0)` and `Vbr(0)` as such).
    pub fn written(self) -> impl Iterator<Item = AbbrevOp> + 'a {
        let (n, at) = compact::count(self.0);
        let mut code = &self.0[at..];
        (0..n).map(move |_| {
            let (op, len) = compact::next(code);
            code = &code[len..];
            op
        })
    }

    /// The operands as they decode: `Fixed(0)` and `Vbr(0)` are the literal 0.
    pub fn ops(self) -> impl Iterator<Item = AbbrevOp> + 'a {
        self.written().map(|op| match op {
            AbbrevOp::Fixed(0) | AbbrevOp::Vbr(0) => AbbrevOp::Literal(0),
            op => op,
        })
    }

    /// The abbreviation, owned.
    pub fn to_abbrev(self) -> Abbrev {
        Abbrev::new(self.written().collect())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operand the reader accepts comes back from the compact form as written, one
    /// abbreviation after another.
    #[test]
    fn compact_form_reads_back() {
        let mut ops = vec![AbbrevOp::Array, AbbrevOp::Char6];
        ops.extend((0..=64).map(AbbrevOp::Fixed));
        ops.extend((0..=32).map(AbbrevOp::Vbr));
        for v in [0, 1, 127, 128, 300, u32::MAX as u64, u64::MAX - 1, u64::MAX] {
            ops.push(AbbrevOp::Literal(v));
        }
        let (first, second) = ops.split_at(40);
        let mut code = Vec::new();
        for part in [first, second] {
            compact::push_count(&mut code, part.len() as u64);
            for &op in part {
                compact::push(&mut code, op);
            }
        }
        let a = AbbrevRef(&code);
        assert_eq!(a.written().collect::<Vec<_>>(), first);
        let len: usize = {
            let (n, mut at) = compact::count(&code);
            for _ in 0..n {
                at += compact::next(&code[at..]).1;
            }
            at
        };
        assert_eq!(
            AbbrevRef(&code[len..]).written().collect::<Vec<_>>(),
            second
        );
        // Fixed(0) and Vbr(0) decode as the literal 0.
        assert!(a
            .ops()
            .all(|op| !matches!(op, AbbrevOp::Fixed(0) | AbbrevOp::Vbr(0))));
        let zeros = |op: &AbbrevOp| {
            matches!(
                op,
                AbbrevOp::Fixed(0) | AbbrevOp::Vbr(0) | AbbrevOp::Literal(0)
            )
        };
        assert_eq!(
            a.ops().filter(|&op| op == AbbrevOp::Literal(0)).count(),
            first.iter().filter(|op| zeros(op)).count()
        );
    }
}
