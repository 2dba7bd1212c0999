//! The generic bitstream reader: yields enter-block, exit-block, define-abbreviation and
//! record items, each with the bit position of its abbreviation id. It knows BLOCKINFO (block
//! 0) and nothing else about PNaCl.

use super::abbrev::{decode_char6, Abbrev, AbbrevOp, FastOp, Plan};
use super::cursor::BitCursor;
use super::{
    BLOCKINFO_BLOCK_ID, BLOCKINFO_CODE_SETBID, DEFINE_ABBREV, END_BLOCK, ENTER_SUBBLOCK,
    UNABBREV_RECORD,
};
use crate::error::{Error, Result};

/// Largest abbreviation-id width accepted (LLVM does not check; the spec says 16).
pub const MAX_ABBREV_WIDTH: u32 = 32;
/// Largest number of zero-width array elements (an array of a literal) accepted in one record.
const MAX_ZERO_WIDTH_ELEMENTS: u64 = 4096;

/// One item of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item<'r> {
    /// ENTER_SUBBLOCK: the new block's id, its abbreviation-id width, its length in words.
    Enter { id: u32, width: u32, len_words: u32 },
    /// END_BLOCK.
    Exit,
    /// DEFINE_ABBREV. `blockinfo_for` is the block id it is registered for when it appears
    /// in BLOCKINFO; otherwise it is local to the current block.
    DefineAbbrev {
        abbrev: &'r Abbrev,
        blockinfo_for: Option<u32>,
    },
    /// A data record: the abbreviation id used (3 = unabbreviated), its code and operands.
    Record {
        abbrev: u32,
        code: u32,
        ops: &'r [u64],
    },
    /// End of the file (only at the top level).
    Eof,
}

#[derive(Debug, Clone)]
struct Scope {
    id: u32,
    width: u32,
    /// Bit position at which the block's length word says it ends.
    end: u64,
    /// Where this block's list of abbreviation indices starts in `active`.
    active_start: usize,
    /// Length of the abbreviation pool on entry (local abbreviations are dropped on exit).
    pool_len: usize,
}

/// Streaming reader over the bitstream that starts at `start` (a bit position; the PNaCl
/// header is not part of the bitstream).
pub struct Reader<'a> {
    cur: BitCursor<'a>,
    scopes: Vec<Scope>,
    /// All abbreviations: BLOCKINFO ones (never dropped) and local ones, with their
    /// compiled decoding plans.
    pool: Vec<Abbrev>,
    plans: Vec<Plan>,
    /// For every open block, the pool indices of its abbreviations, ids 4, 5, … in order.
    active: Vec<u32>,
    /// BLOCKINFO registrations: (block id, pool index), in definition order.
    blockinfo: Vec<(u32, u32)>,
    /// The block id selected by the last SETBID inside BLOCKINFO.
    cur_bid: Option<u32>,
    ops: Vec<u64>,
    item_pos: u64,
}

impl<'a> Reader<'a> {
    /// A reader over `data`, starting at bit `start`.
    pub fn new(data: &'a [u8], start: u64) -> Result<Self> {
        let mut cur = BitCursor::new(data);
        cur.seek(start)?;
        Ok(Reader {
            cur,
            scopes: Vec::new(),
            pool: Vec::new(),
            plans: Vec::new(),
            active: Vec::new(),
            blockinfo: Vec::new(),
            cur_bid: None,
            ops: Vec::with_capacity(64),
            item_pos: start,
        })
    }

    /// Bit position of the item returned last (its abbreviation id).
    #[inline]
    pub fn item_pos(&self) -> u64 {
        self.item_pos
    }

    /// Current bit position (just after the item returned last).
    #[inline]
    pub fn pos(&self) -> u64 {
        self.cur.pos()
    }

    /// Number of open blocks.
    #[inline]
    pub fn depth(&self) -> usize {
        self.scopes.len()
    }

    /// Id of the innermost open block.
    pub fn block_id(&self) -> Option<u32> {
        self.scopes.last().map(|s| s.id)
    }

    /// Abbreviation-id width of the innermost open block (2 at the top level).
    pub fn width(&self) -> u32 {
        self.scopes.last().map_or(2, |s| s.width)
    }

    /// Number of BLOCKINFO abbreviations registered for `block_id`.
    pub fn blockinfo_count(&self, block_id: u32) -> usize {
        self.blockinfo
            .iter()
            .filter(|(b, _)| *b == block_id)
            .count()
    }

    /// Number of abbreviations usable in the innermost block (ids 4 .. 4+n).
    pub fn abbrev_count(&self) -> usize {
        self.scopes
            .last()
            .map_or(0, |s| self.active.len() - s.active_start)
    }

    /// The abbreviation with id `id` (≥ 4) in the innermost block.
    pub fn abbrev(&self, id: u32) -> Option<&Abbrev> {
        let s = self.scopes.last()?;
        let idx = *self
            .active
            .get(s.active_start + (id as usize).checked_sub(4)?)?;
        self.pool.get(idx as usize)
    }

    #[cold]
    fn err(&self, msg: impl Into<String>) -> Error {
        Error::new(self.item_pos, msg)
    }

    /// Reads the next item.
    pub fn next_item(&mut self) -> Result<Item<'_>> {
        self.item_pos = self.cur.pos();
        let Some(scope) = self.scopes.last() else {
            return self.next_top_level();
        };
        let width = scope.width;
        // Records are decoded with a local copy of the cursor (kept in registers).
        let mut cur = self.cur;
        let id = cur.read(width)? as u32;
        match id {
            END_BLOCK => {
                self.cur = cur;
                self.exit_block()
            }
            ENTER_SUBBLOCK => {
                self.cur = cur;
                self.enter_block()
            }
            DEFINE_ABBREV => {
                self.cur = cur;
                self.define_abbrev()
            }
            UNABBREV_RECORD => {
                self.read_unabbrev(&mut cur)?;
                self.cur = cur;
                self.finish_record(UNABBREV_RECORD)
            }
            _ => {
                self.read_abbreviated(&mut cur, id)?;
                self.cur = cur;
                self.finish_record(id)
            }
        }
    }

    fn next_top_level(&mut self) -> Result<Item<'_>> {
        if self.cur.at_end() {
            return Ok(Item::Eof);
        }
        let id = self.cur.read(2)? as u32;
        if id != ENTER_SUBBLOCK {
            let what = match id {
                END_BLOCK => "an end-block",
                DEFINE_ABBREV => "an abbreviation definition",
                _ => "a record",
            };
            return Err(self.err(format!(
                "Invalid record at top-level: expected a block, found {what} (abbreviation id {id})"
            )));
        }
        self.enter_block()
    }

    fn enter_block(&mut self) -> Result<Item<'_>> {
        let id = self.cur.read_vbr(8)?;
        let width = self.cur.read_vbr(4)?;
        if id > u32::MAX as u64 {
            return Err(self.err(format!("Malformed block record: block id {id} too large")));
        }
        let id = id as u32;
        if width == 0 || width > MAX_ABBREV_WIDTH as u64 {
            return Err(self.err(format!(
                "Malformed block record: abbreviation width {width} (must be 1..={MAX_ABBREV_WIDTH})"
            )));
        }
        if let Some(s) = self.scopes.last() {
            if s.id == BLOCKINFO_BLOCK_ID {
                return Err(self.err("Malformed BlockInfoBlock: nested block"));
            }
        }
        self.cur.align32()?;
        let len_words = self.cur.read(32)? as u32;
        let body = self.cur.pos();
        let end = body + len_words as u64 * 32;
        if end > self.cur.end() {
            return Err(self.err(format!(
                "block {id} claims {len_words} words, which runs past the end of the file \
                 ({} words left)",
                (self.cur.end() - body) / 32
            )));
        }
        if let Some(parent) = self.scopes.last() {
            if end > parent.end {
                return Err(self.err(format!(
                    "block {id} claims {len_words} words, which runs past the end of its enclosing block"
                )));
            }
        }
        let active_start = self.active.len();
        for &(b, idx) in &self.blockinfo {
            if b == id {
                self.active.push(idx);
            }
        }
        self.scopes.push(Scope {
            id,
            width: width as u32,
            end,
            active_start,
            pool_len: self.pool.len(),
        });
        if id == BLOCKINFO_BLOCK_ID {
            self.cur_bid = None;
        }
        Ok(Item::Enter {
            id,
            width: width as u32,
            len_words,
        })
    }

    fn exit_block(&mut self) -> Result<Item<'_>> {
        self.cur.align32()?;
        let s = self.scopes.pop().expect("exit_block outside a block");
        if self.cur.pos() != s.end {
            let (got, want) = (self.cur.pos(), s.end);
            self.scopes.push(s);
            return Err(self.err(format!(
                "block ends at byte {} but its length word says byte {}",
                got / 8,
                want / 8
            )));
        }
        self.active.truncate(s.active_start);
        self.pool.truncate(s.pool_len);
        self.plans.truncate(s.pool_len);
        Ok(Item::Exit)
    }

    /// Skips the rest of the innermost block using its length word (after an `Enter`).
    pub fn skip_block(&mut self) -> Result<()> {
        let s = self
            .scopes
            .pop()
            .ok_or_else(|| self.err("skip_block outside a block"))?;
        self.cur.seek(s.end)?;
        self.active.truncate(s.active_start);
        self.pool.truncate(s.pool_len);
        self.plans.truncate(s.pool_len);
        Ok(())
    }

    fn define_abbrev(&mut self) -> Result<Item<'_>> {
        let abbrev = self.read_abbrev_def()?;
        let in_blockinfo = self.scopes.last().map(|s| s.id) == Some(BLOCKINFO_BLOCK_ID);
        let idx = self.pool.len() as u32;
        if in_blockinfo {
            let Some(bid) = self.cur_bid else {
                return Err(
                    self.err("Malformed BlockInfoBlock: abbreviation defined before SETBID")
                );
            };
            self.plans.push(Plan::of(&abbrev));
            self.pool.push(abbrev);
            // BLOCKINFO abbreviations outlive the BLOCKINFO block: keep them below every
            // later block's pool mark.
            for s in self.scopes.iter_mut() {
                s.pool_len = s.pool_len.max(self.pool.len());
            }
            self.blockinfo.push((bid, idx));
            Ok(Item::DefineAbbrev {
                abbrev: &self.pool[idx as usize],
                blockinfo_for: Some(bid),
            })
        } else {
            self.plans.push(Plan::of(&abbrev));
            self.pool.push(abbrev);
            self.active.push(idx);
            Ok(Item::DefineAbbrev {
                abbrev: &self.pool[idx as usize],
                blockinfo_for: None,
            })
        }
    }

    fn read_abbrev_def(&mut self) -> Result<Abbrev> {
        let n = self.cur.read_vbr(5)?;
        // Every operand takes at least 4 bits (1 + 3), so the count is bounded by what is left.
        if n == 0 {
            return Err(self.err("abbreviation with no operands"));
        }
        if n > self.cur.remaining() / 4 {
            return Err(self.err(format!(
                "abbreviation claims {n} operands, more than the file holds"
            )));
        }
        let mut ops = Vec::with_capacity(n as usize);
        let mut raw = Vec::with_capacity(1 + 3 * n as usize);
        raw.push(n);
        for _ in 0..n {
            let is_lit = self.cur.read(1)?;
            if is_lit == 1 {
                let v = self.cur.read_vbr(8)?;
                raw.extend([1, v]);
                ops.push(AbbrevOp::Literal(v));
                continue;
            }
            let enc = self.cur.read(3)?;
            match enc {
                1 | 2 => {
                    let w = self.cur.read_vbr(5)?;
                    raw.extend([0, enc, w]);
                    if w == 0 {
                        ops.push(AbbrevOp::Literal(0));
                    } else if enc == 1 {
                        if w > 64 {
                            return Err(self.err(format!("fixed({w}) is wider than 64 bits")));
                        }
                        ops.push(AbbrevOp::Fixed(w as u8));
                    } else {
                        if !(2..=32).contains(&w) {
                            return Err(self.err(format!("vbr({w}): VBR width must be 2..=32")));
                        }
                        ops.push(AbbrevOp::Vbr(w as u8));
                    }
                }
                3 => {
                    raw.extend([0, 3]);
                    ops.push(AbbrevOp::Array);
                }
                4 => {
                    raw.extend([0, 4]);
                    ops.push(AbbrevOp::Char6);
                }
                5 => return Err(self.err("Blob operands are not allowed in PNaCl bitcode")),
                e => return Err(self.err(format!("Invalid abbreviation encoding {e}"))),
            }
        }
        // An array must be second to last, and its element must not be an array.
        for (i, op) in ops.iter().enumerate() {
            if *op == AbbrevOp::Array && (i + 2 != ops.len() || ops[i + 1] == AbbrevOp::Array) {
                return Err(self.err("Array must be the second-to-last abbreviation operand"));
            }
        }
        Ok(Abbrev { ops, raw })
    }

    #[inline(always)]
    fn read_unabbrev(&mut self, cur: &mut BitCursor<'a>) -> Result<()> {
        let code = cur.read_vbr(6)?;
        let n = cur.read_vbr(6)?;
        if n > cur.remaining() / 6 {
            return Err(self.err(format!(
                "record claims {n} operands, more than the rest of the file can hold"
            )));
        }
        let ops = &mut self.ops;
        ops.clear();
        ops.push(code);
        let mut failed = None;
        ops.extend((0..n).map(|_| match cur.read_vbr(6) {
            Ok(v) => v,
            Err(e) => {
                failed.get_or_insert(e);
                0
            }
        }));
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    #[inline(always)]
    fn read_abbreviated(&mut self, cur: &mut BitCursor<'a>, id: u32) -> Result<()> {
        let s = self.scopes.last().unwrap();
        let Some(&idx) = self.active.get(s.active_start + (id as usize - 4)) else {
            return Err(self.err(format!(
                "abbreviation id {id} is not defined in block {} (ids 4..{} are)",
                s.id,
                4 + self.active.len() - s.active_start
            )));
        };
        let plan = &self.plans[idx as usize];
        let out = &mut self.ops;
        let k = plan.scalars.len();
        out.clear();
        let mut failed = None;
        out.extend(plan.scalars.iter().map(|op| match read_fast(cur, *op) {
            Ok(v) => v,
            Err(e) => {
                failed.get_or_insert(e);
                0
            }
        }));
        if let Some(e) = failed {
            return Err(e);
        }
        if let Some(elt) = plan.array {
            let n = cur.read_vbr(6)?;
            let min = if elt.kind == FastOp::LITERAL {
                0
            } else {
                elt.width as u64
            };
            let fits = match cur.remaining().checked_div(min) {
                Some(most) => n <= most,
                None => n <= MAX_ZERO_WIDTH_ELEMENTS,
            };
            if !fits {
                return Err(Error::new(
                    self.item_pos,
                    format!("array claims {n} elements, more than the file holds"),
                ));
            }
            out.resize(k + n as usize, 0);
            let slots = &mut out[k..];
            match elt.kind {
                FastOp::FIXED => {
                    for slot in slots {
                        *slot = cur.read(elt.width as u32)?;
                    }
                }
                FastOp::CHAR6 => {
                    for slot in slots {
                        *slot = decode_char6(cur.read(6)?) as u64;
                    }
                }
                _ => {
                    for slot in slots {
                        *slot = read_fast(cur, elt)?;
                    }
                }
            }
        }
        if self.ops.is_empty() {
            return Err(self.err("abbreviated record has no record code"));
        }
        Ok(())
    }

    #[inline]
    fn finish_record(&mut self, abbrev: u32) -> Result<Item<'_>> {
        let code = self.ops[0];
        if code > u32::MAX as u64 {
            return Err(self.err(format!("record code {code} is too large")));
        }
        let code = code as u32;
        if self.scopes.last().map(|s| s.id) == Some(BLOCKINFO_BLOCK_ID) {
            if code != BLOCKINFO_CODE_SETBID {
                return Err(self.err(format!(
                    "Malformed BlockInfoBlock: record code {code} (only SETBID is allowed)"
                )));
            }
            if self.ops.len() != 2 {
                return Err(self.err("Malformed BlockInfoBlock: SETBID needs exactly one operand"));
            }
            if self.ops[1] > u32::MAX as u64 {
                return Err(self.err("Malformed BlockInfoBlock: SETBID block id too large"));
            }
            self.cur_bid = Some(self.ops[1] as u32);
        }
        Ok(Item::Record {
            abbrev,
            code,
            ops: &self.ops[1..],
        })
    }
}

#[inline(always)]
fn read_fast(cur: &mut BitCursor<'_>, op: FastOp) -> Result<u64> {
    match op.kind {
        FastOp::LITERAL => Ok(op.lit),
        FastOp::FIXED => cur.read(op.width as u32),
        FastOp::VBR => cur.read_vbr(op.width as u32),
        _ => Ok(decode_char6(cur.read(6)?) as u64),
    }
}

#[allow(dead_code)]
#[inline(always)]
fn read_scalar(cur: &mut BitCursor<'_>, op: AbbrevOp) -> Result<u64> {
    match op {
        AbbrevOp::Literal(v) => Ok(v),
        AbbrevOp::Fixed(w) => cur.read(w as u32),
        AbbrevOp::Vbr(w) => cur.read_vbr(w as u32),
        AbbrevOp::Char6 => Ok(decode_char6(cur.read(6)?) as u64),
        AbbrevOp::Array => unreachable!("array element checked at definition"),
    }
}
