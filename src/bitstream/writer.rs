//! The generic bitstream writer, the mirror of `reader`: blocks with back-patched length
//! words, BLOCKINFO, DEFINE_ABBREV, and records either unabbreviated or packed by an
//! abbreviation.

use super::abbrev::{encode_char6, Abbrev, AbbrevOp};
use super::{
    BLOCKINFO_BLOCK_ID, BLOCKINFO_CODE_SETBID, DEFINE_ABBREV, END_BLOCK, ENTER_SUBBLOCK,
    UNABBREV_RECORD,
};

/// Appends bits least-significant-first.
#[derive(Default, Clone)]
pub struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    nacc: u32,
}

impl BitWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Bit position of the next bit written.
    pub fn pos(&self) -> u64 {
        self.bytes.len() as u64 * 8 + self.nacc as u64
    }

    /// Appends `n` (≤ 64) low bits of `v`.
    pub fn emit(&mut self, v: u64, n: u32) {
        debug_assert!(n <= 64);
        if n == 0 {
            return;
        }
        let v = if n == 64 { v } else { v & ((1u64 << n) - 1) };
        if n > 32 {
            self.emit(v & 0xffff_ffff, 32);
            self.emit(v >> 32, n - 32);
            return;
        }
        self.acc |= v << self.nacc;
        self.nacc += n;
        while self.nacc >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.nacc -= 8;
        }
    }

    pub fn emit_vbr(&mut self, mut v: u64, w: u32) {
        let hi = 1u64 << (w - 1);
        while v >= hi {
            self.emit((v & (hi - 1)) | hi, w);
            v >>= w - 1;
        }
        self.emit(v, w);
    }

    pub fn align32(&mut self) {
        while !self.pos().is_multiple_of(32) {
            let n = (32 - self.pos() % 32).min(8) as u32;
            self.emit(0, n);
        }
    }

    pub fn emit_bytes(&mut self, b: &[u8]) {
        assert_eq!(self.nacc, 0, "emit_bytes at a non-byte position");
        self.bytes.extend_from_slice(b);
    }

    /// Overwrites the 32-bit little-endian word at byte offset `at`.
    pub fn patch_word(&mut self, at: usize, v: u32) {
        self.bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    pub fn into_bytes(mut self) -> Vec<u8> {
        if self.nacc > 0 {
            self.bytes.push(self.acc as u8);
            self.nacc = 0;
        }
        self.bytes
    }
}

struct Scope {
    id: u32,
    width: u32,
    /// Byte offset of the length word.
    len_at: usize,
    /// Abbreviations usable in this block (ids 4, 5, …).
    abbrevs: Vec<Abbrev>,
}

/// Writes a bitstream of blocks and records.
pub struct Writer {
    pub bits: BitWriter,
    scopes: Vec<Scope>,
    blockinfo: Vec<(u32, Abbrev)>,
    cur_bid: Option<u32>,
}

impl Default for Writer {
    fn default() -> Self {
        Self::new()
    }
}

impl Writer {
    pub fn new() -> Self {
        Writer {
            bits: BitWriter::new(),
            scopes: Vec::new(),
            blockinfo: Vec::new(),
            cur_bid: None,
        }
    }

    /// A writer whose output starts with `prefix` (e.g. the PNaCl header).
    pub fn with_prefix(prefix: &[u8]) -> Self {
        let mut w = Self::new();
        w.bits.emit_bytes(prefix);
        w
    }

    fn width(&self) -> u32 {
        self.scopes.last().map_or(2, |s| s.width)
    }

    pub fn pos(&self) -> u64 {
        self.bits.pos()
    }

    pub fn enter_block(&mut self, id: u32, width: u32) {
        let w = self.width();
        self.bits.emit(ENTER_SUBBLOCK as u64, w);
        self.bits.emit_vbr(id as u64, 8);
        self.bits.emit_vbr(width as u64, 4);
        self.bits.align32();
        let len_at = (self.bits.pos() / 8) as usize;
        self.bits.emit(0, 32);
        let abbrevs = self
            .blockinfo
            .iter()
            .filter(|(b, _)| *b == id)
            .map(|(_, a)| a.clone())
            .collect();
        self.scopes.push(Scope {
            id,
            width,
            len_at,
            abbrevs,
        });
        if id == BLOCKINFO_BLOCK_ID {
            self.cur_bid = None;
        }
    }

    pub fn exit_block(&mut self) {
        let w = self.width();
        self.bits.emit(END_BLOCK as u64, w);
        self.bits.align32();
        let s = self.scopes.pop().expect("exit_block outside a block");
        let words = (self.bits.pos() / 8 - s.len_at as u64 - 4) / 4;
        self.bits.patch_word(s.len_at, words as u32);
    }

    /// Writes a DEFINE_ABBREV; inside BLOCKINFO it is registered for the last SETBID's block.
    pub fn define_abbrev(&mut self, a: &Abbrev) {
        let w = self.width();
        self.bits.emit(DEFINE_ABBREV as u64, w);
        let raw = &a.raw;
        self.bits.emit_vbr(raw[0], 5);
        let mut i = 1;
        while i < raw.len() {
            if raw[i] == 1 {
                self.bits.emit(1, 1);
                self.bits.emit_vbr(raw[i + 1], 8);
                i += 2;
            } else {
                self.bits.emit(0, 1);
                let enc = raw[i + 1];
                self.bits.emit(enc, 3);
                if enc == 1 || enc == 2 {
                    self.bits.emit_vbr(raw[i + 2], 5);
                    i += 3;
                } else {
                    i += 2;
                }
            }
        }
        if self.in_blockinfo() {
            let bid = self
                .cur_bid
                .expect("DEFINE_ABBREV in BLOCKINFO before SETBID");
            self.blockinfo.push((bid, a.clone()));
        } else if let Some(s) = self.scopes.last_mut() {
            s.abbrevs.push(a.clone());
        }
    }

    fn in_blockinfo(&self) -> bool {
        self.scopes.last().map(|s| s.id) == Some(BLOCKINFO_BLOCK_ID)
    }

    /// Writes SETBID inside BLOCKINFO (always unabbreviated).
    pub fn set_bid(&mut self, bid: u32) {
        self.emit_unabbrev(BLOCKINFO_CODE_SETBID, &[bid as u64]);
        self.cur_bid = Some(bid);
    }

    pub fn emit_unabbrev(&mut self, code: u32, ops: &[u64]) {
        let w = self.width();
        self.bits.emit(UNABBREV_RECORD as u64, w);
        self.bits.emit_vbr(code as u64, 6);
        self.bits.emit_vbr(ops.len() as u64, 6);
        for &v in ops {
            self.bits.emit_vbr(v, 6);
        }
    }

    /// Writes a record with abbreviation `id` (3 = unabbreviated), checked: a record that
    /// the abbreviation cannot encode (or an id the block does not define) is an error,
    /// and nothing is written.
    pub fn emit_record(&mut self, id: u32, code: u32, ops: &[u64]) -> Result<(), String> {
        if id == UNABBREV_RECORD {
            self.emit_unabbrev(code, ops);
            return Ok(());
        }
        if !self.matches(id, code, ops) {
            return Err(format!(
                "record <{code}, {ops:?}> does not fit abbreviation {id} of block {}",
                self.scopes.last().map_or(0, |s| s.id)
            ));
        }
        let w = self.width();
        let Writer { bits, scopes, .. } = self;
        bits.emit(id as u64, w);
        let a = &scopes.last().unwrap().abbrevs[id as usize - 4].ops;
        let mut vals = std::iter::once(code as u64).chain(ops.iter().copied());
        for (k, &op) in a.iter().enumerate() {
            if op == AbbrevOp::Array {
                bits.emit_vbr(ops.len() as u64 + 1 - k as u64, 6);
                for v in vals.by_ref() {
                    emit_scalar(bits, a[k + 1], v);
                }
                break;
            }
            emit_scalar(bits, op, vals.next().unwrap());
        }
        Ok(())
    }

    /// Whether abbreviation `id` of the current block can encode the record.
    pub fn matches(&self, id: u32, code: u32, ops: &[u64]) -> bool {
        let Some(s) = self.scopes.last() else {
            return false;
        };
        let Some(a) = s.abbrevs.get((id as usize).wrapping_sub(4)) else {
            return false;
        };
        let mut vals = std::iter::once(code as u64).chain(ops.iter().copied());
        for (k, op) in a.ops.iter().enumerate() {
            if *op == AbbrevOp::Array {
                return vals.all(|v| scalar_fits(a.ops[k + 1], v));
            }
            match vals.next() {
                Some(v) if scalar_fits(*op, v) => {}
                _ => return false,
            }
        }
        vals.next().is_none()
    }

    pub fn depth(&self) -> usize {
        self.scopes.len()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        assert!(self.scopes.is_empty(), "unclosed blocks");
        self.bits.into_bytes()
    }
}

fn emit_scalar(bits: &mut BitWriter, op: AbbrevOp, v: u64) {
    match op {
        AbbrevOp::Literal(_) => {}
        AbbrevOp::Fixed(w) => bits.emit(v, w as u32),
        AbbrevOp::Vbr(w) => bits.emit_vbr(v, w as u32),
        AbbrevOp::Char6 => bits.emit(encode_char6(v as u8).unwrap(), 6),
        AbbrevOp::Array => unreachable!(),
    }
}

fn scalar_fits(op: AbbrevOp, v: u64) -> bool {
    match op {
        AbbrevOp::Literal(l) => v == l,
        AbbrevOp::Fixed(w) => w >= 64 || v >> w == 0,
        AbbrevOp::Vbr(_) => true,
        AbbrevOp::Char6 => v < 256 && encode_char6(v as u8).is_some(),
        AbbrevOp::Array => false,
    }
}
