//! The generic bitstream reader: yields enter-block, exit-block, define-abbreviation and
//! record items, each with the bit position of its abbreviation id. It knows BLOCKINFO (block
//! 0) and nothing else about PNaCl.

use super::abbrev::{compact, decode_char6, AbbrevOp, AbbrevRef, FastOp, Plan};
use super::cursor::{vbr_at, BitCursor, Pext, SoftPext, CONT, PAYLOAD};
use super::{
    BLOCKINFO_BLOCK_ID, BLOCKINFO_CODE_SETBID, DEFINE_ABBREV, END_BLOCK, ENTER_SUBBLOCK,
    UNABBREV_RECORD,
};
use crate::error::{Error, Result};

/// Largest abbreviation-id width accepted (LLVM does not check; the spec says 16).
pub const MAX_ABBREV_WIDTH: u32 = 32;
/// Largest number of zero-width array elements (an array of a literal) accepted in one record.
const MAX_ZERO_WIDTH_ELEMENTS: u64 = 4096;
/// Smallest file (in bytes) whose abbreviations `Reader::new` compiles into decoding
/// plans. The plans of the usual set of abbreviations take some 10 KB, which a file this
/// large repays in speed and which would be many times the size of a smaller one; below
/// it each record is decoded from its abbreviation's compact form.
pub const PLANS_MIN_BYTES: usize = 16 * 1024;

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
        abbrev: AbbrevRef<'r>,
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

/// Scalar operands an abbreviation may have to be decoded from its inline plan.
const INLINE_OPS: usize = 6;
/// Slots of the decoder's output: `INLINE_OPS` and the one padding steps write, rounded up
/// to a power of two, so that a slot index masked with `SMALL - 1` needs no bounds check.
const SMALL: usize = 8;

/// What the per-block list keeps of an abbreviation: the number of its scalars (`n`,
/// `u8::MAX` for more than `INLINE_OPS` or an array), the index of its full `Plan` in
/// `Reader::plans`, and its branch-free decoder. (Aligned to 256 bytes, its size rounded
/// up from 232, so that a record's plan is found with a shift rather than a multiply,
/// which the next record's start waits for: stockfish's records alone, 0.93x-0.96x the
/// time in alternating pairs.)
#[derive(Debug, Clone, Copy)]
#[repr(align(256))]
struct InlinePlan {
    n: u8,
    pool: u32,
    spec: Spec,
    /// Of an abbreviation of at most `INLINE_OPS` scalars and then an array of fixed or
    /// VBR elements: its number of scalars, the element kind (`FastOp::FIXED` or
    /// `FastOp::VBR`) and width, for `Reader::simple_records`. Otherwise `array_kind` is
    /// `FastOp::LITERAL`.
    scalars: u8,
    array_kind: u8,
    array_width: u8,
}

/// One field of a `Spec` (a fixed field or a VBR): where its value ends and which of its
/// bits are payload. Of the field at the bottom of `x`, the bits set in
/// `(!x & cont) | force` are where it could stop: the continuation bit of each VBR chunk
/// if clear, the top bit of a fixed field. The first of them is its last bit, and the
/// bits of `pay` below it are the value.
#[derive(Debug, Clone, Copy, Default)]
struct SpecOp {
    cont: u64,
    force: u64,
    pay: u64,
}

/// The branch-free decoder of an abbreviation of at most `INLINE_OPS` scalars (literal,
/// fixed or VBR): the literals are copied from `lits`, and each other field is found
/// and gathered with the same few bit operations whatever its kind and length, while
/// the whole record lies in the cursor's window (up to 63 bits), as nearly every record
/// does. Otherwise the general path reads the record. `ok` is false where the
/// abbreviation has a char6 field (or no scalar). Of an abbreviation with an array, it
/// decodes the scalars before the array.
#[derive(Debug, Clone, Copy)]
struct Spec {
    ok: bool,
    /// Number of fields to decode (the scalars that are not literals).
    k: u8,
    /// Of the first `Spec::ALWAYS` decoder steps, how many are padding (for fewer fields).
    pad: u8,
    /// Where each field's value goes in the record (`INLINE_OPS`: nowhere, for padding).
    slot: [u8; INLINE_OPS],
    ops: [SpecOp; INLINE_OPS],
    /// The record with every literal in place (and 0 for the fields).
    lits: [u64; INLINE_OPS],
    /// Whether the fields are at most `Spec::ALWAYS` VBRs all of one width (or none),
    /// which `decode_grid` takes: the continuation bits of that width's chunks, and their
    /// payload bits.
    grid: bool,
    grid_cont: u64,
    grid_pay: u64,
}

impl Spec {
    /// Decoder steps taken for every record whatever `k` (so that the usual records take
    /// no loop branch); padding steps take one bit each, subtracted at the end.
    const ALWAYS: usize = 3;

    fn of(plan: &Plan) -> Spec {
        let pad = SpecOp {
            cont: 0,
            force: 1,
            pay: 0,
        };
        let mut spec = Spec {
            ok: false,
            k: 0,
            pad: 0,
            slot: [INLINE_OPS as u8; INLINE_OPS],
            ops: [pad; INLINE_OPS],
            lits: [0; INLINE_OPS],
            grid: false,
            grid_cont: 0,
            grid_pay: 0,
        };
        if plan.scalars.is_empty() || plan.scalars.len() > INLINE_OPS {
            return spec;
        }
        let mut k = 0;
        for (i, op) in plan.scalars.iter().enumerate() {
            let w = op.width as u32;
            let field = match op.kind {
                FastOp::LITERAL => {
                    spec.lits[i] = op.lit;
                    continue;
                }
                // 1 ≤ w ≤ 64.
                FastOp::FIXED => SpecOp {
                    cont: 0,
                    force: 1 << (w - 1),
                    pay: u64::MAX >> (64 - w),
                },
                // 2 ≤ w ≤ 32.
                FastOp::VBR => SpecOp {
                    cont: CONT[w as usize],
                    force: 0,
                    pay: PAYLOAD[w as usize],
                },
                _ => return spec,
            };
            spec.ops[k] = field;
            spec.slot[k] = i as u8;
            k += 1;
        }
        spec.ok = true;
        spec.k = k as u8;
        spec.pad = Self::ALWAYS.saturating_sub(k) as u8;
        let mut widths = plan
            .scalars
            .iter()
            .filter(|op| op.kind != FastOp::LITERAL)
            .map(|op| (op.kind == FastOp::VBR).then_some(op.width));
        // (No field at all: any grid, say width 2's.)
        let first = widths.next().unwrap_or(Some(2));
        if let Some(w) = first.filter(|_| k <= Self::ALWAYS && widths.all(|w| w == first)) {
            let w = w as usize;
            spec.grid = true;
            spec.grid_cont = CONT[w];
            spec.grid_pay = PAYLOAD[w];
        }
        spec
    }

    /// `decode` for a `grid` spec. Each field is whole chunks of one width, so the
    /// chunks of all of them lie on one grid from the record's start, and the clear
    /// continuation bits on it are the ends of the fields, all found at once: the record's
    /// length (which the next record waits for) is a few operations from the window, not
    /// one field after another.
    #[inline(always)]
    fn decode_grid<P: Pext>(
        &self,
        win: u64,
        bits: u32,
        out: &mut [u64; SMALL],
        p: P,
    ) -> Option<u32> {
        out[..INLINE_OPS].copy_from_slice(&self.lits);
        // Bit j + 1 set where a field ends at bit j; bit 0 where the first starts.
        let stops = ((!win & self.grid_cont) << 1) | 1;
        // The start of field `k`: the record's length (64 where the window holds fewer
        // ends, more than `bits`).
        let len = p.select(stops, self.k as u32).trailing_zeros();
        // The fields' bounds q1 ≤ q2 ≤ q3 (past the `k`th, garbage, written to the padding
        // slot or not at all; a shift past 63 wraps).
        let s1 = stops & stops.wrapping_sub(1);
        let s2 = s1 & s1.wrapping_sub(1);
        let s3 = s2 & s2.wrapping_sub(1);
        let (q1, q2, q3) = (
            s1.trailing_zeros(),
            s2.trailing_zeros(),
            s3.trailing_zeros(),
        );
        let pay = self.grid_pay;
        out[self.slot[0] as usize & (SMALL - 1)] = p.pext(p.low(win, q1), pay);
        out[self.slot[1] as usize & (SMALL - 1)] = p.pext(p.low(win, q2).wrapping_shr(q1), pay);
        out[self.slot[2] as usize & (SMALL - 1)] = p.pext(p.low(win, q3).wrapping_shr(q2), pay);
        (len <= bits).then_some(len)
    }

    /// Decodes the record at the bottom of `win` (`bits` of it valid) into `out`: the
    /// bits it takes, or `None` if it does not lie whole in the window.
    #[inline(always)]
    fn decode<P: Pext>(&self, win: u64, bits: u32, out: &mut [u64; SMALL], p: P) -> Option<u32> {
        out[..INLINE_OPS].copy_from_slice(&self.lits);
        let k = self.k as usize;
        let mut at = 0u32;
        for (i, (op, &slot)) in self.ops.iter().zip(&self.slot).enumerate() {
            if i >= Self::ALWAYS && i >= k {
                break;
            }
            // Past the window (at ≥ 64) the shift wraps and the value is garbage, but
            // `at` then exceeds `bits` and the record is read again.
            let x = win.wrapping_shr(at);
            let len = ((!x & op.cont) | op.force).trailing_zeros() + 1;
            // (len ≤ 65; past the window the value is garbage, see above.)
            let mask = p.low(op.pay, len);
            out[slot as usize & (SMALL - 1)] = p.pext(x, mask);
            at += len;
        }
        let at = at - self.pad as u32;
        (at <= bits).then_some(at)
    }
}

impl InlinePlan {
    fn of(plan: &Plan, pool: u32) -> InlinePlan {
        let n = if plan.array.is_none() && plan.scalars.len() <= INLINE_OPS {
            plan.scalars.len() as u8
        } else {
            u8::MAX
        };
        let (array_kind, array_width) = match plan.array {
            Some(e)
                if plan.scalars.len() <= INLINE_OPS
                    && matches!(e.kind, FastOp::FIXED | FastOp::VBR) =>
            {
                (e.kind, e.width)
            }
            _ => (FastOp::LITERAL, 0),
        };
        InlinePlan {
            n,
            pool,
            spec: Spec::of(plan),
            scalars: plan.scalars.len() as u8,
            array_kind,
            array_width,
        }
    }
}

/// The id `top_id` has outside every block.
const NO_BLOCK: u32 = u32::MAX;

/// An open block. (Counts and indices fit in 32 bits: each is at most the number of
/// abbreviations, which `Reader::code`, at most 2^32 bytes, bounds.)
#[derive(Debug, Clone)]
struct Scope {
    id: u32,
    width: u32,
    /// Bit position at which the block's length word says it ends.
    end: u64,
    /// Where this block's local abbreviations start in `active`.
    active_start: u32,
    /// The BLOCKINFO list for this block id (index into `bi`, `NO_LIST` if none) and how
    /// many of its abbreviations existed when the block was entered (ids 4 .. 4+bi_count).
    bi: u32,
    bi_count: u32,
    /// Length of `Reader::code` on entry (local abbreviations are dropped on exit).
    pool_len: u32,
}

/// `Scope::bi` of a block id BLOCKINFO says nothing about.
const NO_LIST: u32 = u32::MAX;

/// The abbreviations BLOCKINFO registered for one block id (their keys).
#[derive(Debug, Clone)]
struct BlockInfoList {
    block_id: u32,
    /// Where the list's plans start in `Reader::bi_flat` (as of its last rebuild).
    flat_start: u32,
    pool: Vec<u32>,
}

/// Streaming reader over the bitstream that starts at `start` (a bit position; the PNaCl
/// header is not part of the bitstream).
pub struct Reader<'a> {
    cur: BitCursor<'a>,
    scopes: Vec<Scope>,
    /// Whether abbreviations are compiled into decoding plans (`plans`, `active_plans`,
    /// `bi_flat`); if not, those stay empty and each abbreviated record is decoded from
    /// its abbreviation's compact form.
    planned: bool,
    /// All abbreviations (the pool): BLOCKINFO ones (never dropped) and local ones, in
    /// compact form end to end, each known by its offset in `code` (its key); with
    /// `planned`, their compiled decoding plans, and the key of each.
    code: Vec<u8>,
    plans: Vec<Plan>,
    plan_keys: Vec<u32>,
    /// For every open block, the keys of its local abbreviations (which follow its
    /// BLOCKINFO ones), and in step (with `planned`) their decoding plans inline.
    active: Vec<u32>,
    active_plans: Vec<InlinePlan>,
    /// BLOCKINFO registrations, per block id, in definition order.
    bi: Vec<BlockInfoList>,
    /// Every list's plans end to end, so that a record's plan is one load away; rebuilt
    /// when a block is entered after BLOCKINFO changed (`bi_dirty`).
    bi_flat: Vec<InlinePlan>,
    bi_dirty: bool,
    /// The innermost block's abbreviation width, id, BLOCKINFO list and count, and first
    /// local `active` entry (top level: width 2, no id), kept out of `scopes` for the
    /// per-record path.
    top_width: u32,
    top_id: u32,
    top_bi: u32,
    top_bi_count: usize,
    /// Where the innermost block's BLOCKINFO plans start in `bi_flat`.
    top_bi_start: usize,
    top_active_start: usize,
    /// The block id selected by the last SETBID inside BLOCKINFO.
    cur_bid: Option<u32>,
    /// Operands (the code first) of a record with an array or more than `INLINE_OPS`
    /// scalars, or unabbreviated; the others go to `small`.
    ops: Vec<u64>,
    /// (`SMALL` slots: the decoder's padding steps write past the `INLINE_OPS`.)
    small: [u64; SMALL],
    /// `simple_records`' operands (kept here, not zeroed afresh on the stack for each run
    /// of small records: a read starts thousands of them).
    simple_out: [u64; SIMPLE_VALUES],
    /// Abbreviation id and `small` length (`None`: `ops`) of the record `next_record`
    /// read last.
    last: (u32, Option<usize>),
    item_pos: u64,
}

impl<'a> Reader<'a> {
    /// A reader over `data`, starting at bit `start`, which compiles abbreviations into
    /// decoding plans if `data` is large enough (`plans_pay_for`).
    pub fn new(data: &'a [u8], start: u64) -> Result<Self> {
        Self::with_plans(data, start, Self::plans_pay_for(data))
    }

    /// Whether decoding plans pay for themselves on `data`: it has at least
    /// `PLANS_MIN_BYTES`.
    pub fn plans_pay_for(data: &[u8]) -> bool {
        data.len() >= PLANS_MIN_BYTES
    }

    /// A reader over `data`, starting at bit `start`, which compiles abbreviations into
    /// decoding plans (`planned`) or decodes each record from its abbreviation's compact
    /// form. Both read the same items, with the same errors.
    pub fn with_plans(data: &'a [u8], start: u64, planned: bool) -> Result<Self> {
        let mut cur = BitCursor::new(data);
        cur.seek(start)?;
        Ok(Reader {
            cur,
            scopes: Vec::new(),
            planned,
            code: Vec::new(),
            plans: Vec::new(),
            plan_keys: Vec::new(),
            active: Vec::new(),
            active_plans: Vec::new(),
            bi: Vec::new(),
            bi_flat: Vec::new(),
            bi_dirty: false,
            top_width: 2,
            top_id: NO_BLOCK,
            top_bi: NO_LIST,
            top_bi_count: 0,
            top_bi_start: 0,
            top_active_start: 0,
            cur_bid: None,
            ops: Vec::new(),
            small: [0; SMALL],
            simple_out: [0; SIMPLE_VALUES],
            last: (0, Some(0)),
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
        self.bi
            .iter()
            .find(|l| l.block_id == block_id)
            .map_or(0, |l| l.pool.len())
    }

    /// Number of abbreviations usable in the innermost block (ids 4 .. 4+n).
    pub fn abbrev_count(&self) -> usize {
        if self.top_id == NO_BLOCK {
            return 0;
        }
        self.top_bi_count + self.active.len() - self.top_active_start
    }

    /// The abbreviation with id `id` (≥ 4) in the innermost block.
    pub fn abbrev(&self, id: u32) -> Option<AbbrevRef<'_>> {
        self.key_of(id)
            .map(|key| AbbrevRef(&self.code[key as usize..]))
    }

    /// The key of the abbreviation with id `id` in the innermost block.
    fn key_of(&self, id: u32) -> Option<u32> {
        if self.top_id == NO_BLOCK {
            return None;
        }
        let j = (id as usize).checked_sub(4)?;
        if j < self.top_bi_count {
            Some(self.bi[self.top_bi as usize].pool[j])
        } else {
            self.active
                .get(self.top_active_start + (j - self.top_bi_count))
                .copied()
        }
    }

    /// Drops the abbreviations defined after the pool had length `len`.
    fn truncate_pool(&mut self, len: u32) {
        self.code.truncate(len as usize);
        let keep = self.plan_keys.partition_point(|&k| k < len);
        self.plan_keys.truncate(keep);
        self.plans.truncate(keep);
    }

    /// Refreshes the cached innermost-block fields after a block is left.
    fn sync_top(&mut self) {
        match self.scopes.last() {
            Some(s) => {
                self.top_width = s.width;
                self.top_id = s.id;
                self.top_bi = s.bi;
                self.top_bi_count = s.bi_count as usize;
                self.top_bi_start = self
                    .bi
                    .get(s.bi as usize)
                    .map_or(0, |l| l.flat_start as usize);
                self.top_active_start = s.active_start as usize;
            }
            None => {
                self.top_width = 2;
                self.top_id = NO_BLOCK;
                self.top_bi = NO_LIST;
                self.top_bi_count = 0;
                self.top_bi_start = 0;
                self.top_active_start = 0;
            }
        }
    }

    /// Lays every BLOCKINFO list's plans end to end in `bi_flat`. Lists only grow, so a
    /// block entered earlier finds its plans at its list's new start (`sync_top`).
    #[cold]
    fn rebuild_bi_flat(&mut self) {
        self.bi_flat.clear();
        if self.planned {
            for l in &mut self.bi {
                l.flat_start = self.bi_flat.len() as u32;
                let (plans, keys) = (&self.plans, &self.plan_keys);
                self.bi_flat.extend(l.pool.iter().map(|key| {
                    // Every key in a list has its plan.
                    let i = keys.binary_search(key).unwrap_or(0);
                    InlinePlan::of(&plans[i], i as u32)
                }));
            }
        }
        self.bi_dirty = false;
    }

    #[cold]
    fn err(&self, msg: impl Into<String>) -> Error {
        Error::new(self.item_pos, msg)
    }

    /// Reads the next item.
    #[inline]
    pub fn next_item(&mut self) -> Result<Item<'_>> {
        if let Some(code) = self.next_record()? {
            let (abbrev, ops) = self.record_operands();
            return Ok(Item::Record { abbrev, code, ops });
        }
        self.item_pos = self.cur.pos();
        if self.top_id == NO_BLOCK {
            return self.next_top_level();
        }
        let width = self.top_width;
        let Some(id) = peek_id(&mut self.cur, width) else {
            return Err(self.err(format!(
                "unexpected end of bitstream: {width} more bits needed, {} left",
                self.cur.remaining()
            )));
        };
        self.cur.consume(width);
        match id {
            END_BLOCK => self.exit_block(),
            ENTER_SUBBLOCK => self.enter_block(),
            // Ids from UNABBREV_RECORD up are records, which `next_record` took.
            _ => {
                debug_assert_eq!(id, DEFINE_ABBREV);
                self.define_abbrev()
            }
        }
    }

    /// Reads the next item if it is a data record inside a block and returns its code
    /// (its operands are then `record_operands()`); returns `None`, having read nothing,
    /// if the next item is anything else, which `next_item` then takes. Nothing comes
    /// back through memory: records, the common item, are the reader's fast path.
    #[inline(always)]
    pub fn next_record(&mut self) -> Result<Option<u32>> {
        self.next_record_with(SoftPext)
    }

    /// `next_record` with `p`'s bit gather (`cursor::Bmi2` where the CPU has it).
    #[inline(always)]
    pub fn next_record_with<P: Pext>(&mut self, p: P) -> Result<Option<u32>> {
        if self.top_id == NO_BLOCK {
            return Ok(None);
        }
        let width = self.top_width;
        // Records are decoded with a local copy of the cursor (kept in registers).
        let mut cur = self.cur;
        // Too few bits left: `next_item` reports it.
        let Some(id) = peek_id(&mut cur, width) else {
            return Ok(None);
        };
        if id < UNABBREV_RECORD {
            return Ok(None);
        }
        self.item_pos = self.cur.pos();
        cur.consume(width);
        let small = if id == UNABBREV_RECORD {
            self.read_unabbrev(&mut cur)?;
            None
        } else {
            self.read_abbreviated(&mut cur, id, p)?
        };
        self.cur.advance_to(&cur);
        let code = self.record_code(small)?;
        if self.top_id == BLOCKINFO_BLOCK_ID {
            self.set_bid(code, small)?;
        }
        self.last = (id, small);
        Ok(Some(code))
    }

    /// Reads records for as long as each is one the inline decoder takes whole, in a
    /// reader with plans: an abbreviated record of at most `INLINE_OPS` scalars (no
    /// char6) whose scalars lie in one 8-byte load, perhaps then an array of fixed or VBR
    /// elements, or an unabbreviated record (`decode_unabbrev`), with at most
    /// `SIMPLE_VALUES` values in all, each in one load, and a code below 2^32. Each goes
    /// to `f` with its bit position, abbreviation id, code and operands. Stops, having read nothing of it, at the first item that is
    /// anything else (which `next_record_with` or `next_item` then reads, with their
    /// checks and errors), or as soon as `f` fails.
    ///
    /// The loop for blocks of many small records (function blocks): the position is the
    /// only state it carries from record to record, so that it stays in a register beside
    /// the caller's own across the call of `f`, and nothing else is written back per
    /// record.
    #[inline(always)]
    pub fn simple_records<P: Pext, E>(
        &mut self,
        p: P,
        mut f: impl FnMut(u64, u32, u32, &[u64]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        if self.top_id == NO_BLOCK || self.top_id == BLOCKINFO_BLOCK_ID || !self.planned {
            return Ok(());
        }
        let width = self.top_width;
        let bi = &self.bi_flat[self.top_bi_start..self.top_bi_start + self.top_bi_count];
        let local = &self.active_plans[self.top_active_start..];
        let data = self.cur.data();
        let mut pos = self.cur.pos();
        let out = &mut self.simple_out;
        let done = loop {
            let Some((id, code, n, end)) = decode_simple(data, (bi, local), width, pos, out, p)
            else {
                break Ok(());
            };
            if let Err(e) = f(pos, id, code, &out[1..n]) {
                break Err(e);
            }
            pos = end;
        };
        // (pos is within the data: every record taken lay in it.)
        let _ = self.cur.seek(pos);
        done
    }

    /// The operands (after the code) of the record `next_record` read last, and its
    /// abbreviation id.
    #[inline(always)]
    pub fn record_operands(&self) -> (u32, &[u64]) {
        (self.last.0, &self.record_ops(self.last.1)[1..])
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
                "the file is truncated: block {id} claims {len_words} words, and {} are left",
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
        if self.bi_dirty {
            self.rebuild_bi_flat();
        }
        let (bi, bi_count) = match self.bi.iter().position(|l| l.block_id == id) {
            Some(k) => (k as u32, self.bi[k].pool.len()),
            None => (NO_LIST, 0),
        };
        self.top_width = width as u32;
        self.top_id = id;
        self.top_bi = bi;
        self.top_bi_count = bi_count;
        self.top_bi_start = self
            .bi
            .get(bi as usize)
            .map_or(0, |l| l.flat_start as usize);
        self.top_active_start = active_start;
        self.scopes.push(Scope {
            id,
            width: width as u32,
            end,
            active_start: active_start as u32,
            bi,
            bi_count: bi_count as u32,
            pool_len: self.code.len() as u32,
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
        self.active.truncate(s.active_start as usize);
        self.active_plans.truncate(s.active_start as usize);
        self.truncate_pool(s.pool_len);
        self.sync_top();
        Ok(Item::Exit)
    }

    /// Skips the rest of the innermost block using its length word (after an `Enter`).
    pub fn skip_block(&mut self) -> Result<()> {
        let s = self
            .scopes
            .pop()
            .ok_or_else(|| self.err("skip_block outside a block"))?;
        self.cur.seek(s.end)?;
        self.active.truncate(s.active_start as usize);
        self.active_plans.truncate(s.active_start as usize);
        self.truncate_pool(s.pool_len);
        self.sync_top();
        Ok(())
    }

    fn define_abbrev(&mut self) -> Result<Item<'_>> {
        let start = self.code.len();
        let in_blockinfo = self.scopes.last().map(|s| s.id) == Some(BLOCKINFO_BLOCK_ID);
        let checked = self.read_abbrev_def().and_then(|()| {
            let bid = match (in_blockinfo, self.cur_bid) {
                (false, _) => None,
                (true, Some(bid)) => Some(bid),
                (true, None) => {
                    return Err(
                        self.err("Malformed BlockInfoBlock: abbreviation defined before SETBID")
                    )
                }
            };
            // Keys and pool lengths are 32-bit offsets.
            if u32::try_from(self.code.len()).is_err() {
                return Err(self.err("too many abbreviations"));
            }
            Ok((bid, start as u32))
        });
        let (bid, key) = match checked {
            Ok(v) => v,
            Err(e) => {
                self.code.truncate(start);
                return Err(e);
            }
        };
        if self.planned {
            let plan = Plan::of(AbbrevRef(&self.code[start..]).ops());
            if bid.is_none() {
                self.active_plans
                    .push(InlinePlan::of(&plan, self.plans.len() as u32));
            }
            self.plans.push(plan);
            self.plan_keys.push(key);
        }
        if let Some(bid) = bid {
            // BLOCKINFO abbreviations outlive the BLOCKINFO block: keep them below every
            // later block's pool mark.
            for s in self.scopes.iter_mut() {
                s.pool_len = s.pool_len.max(self.code.len() as u32);
            }
            match self.bi.iter_mut().find(|l| l.block_id == bid) {
                Some(l) => l.pool.push(key),
                None => self.bi.push(BlockInfoList {
                    block_id: bid,
                    flat_start: 0,
                    pool: vec![key],
                }),
            }
            self.bi_dirty = true;
        } else {
            self.active.push(key);
        }
        Ok(Item::DefineAbbrev {
            abbrev: AbbrevRef(&self.code[start..]),
            blockinfo_for: bid,
        })
    }

    /// Reads an abbreviation definition (after its id) onto the end of `code`.
    fn read_abbrev_def(&mut self) -> Result<()> {
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
        compact::push_count(&mut self.code, n);
        let (mut after_array, mut misplaced) = (false, false);
        for i in 0..n {
            let is_lit = self.cur.read(1)?;
            let op = if is_lit == 1 {
                AbbrevOp::Literal(self.cur.read_vbr(8)?)
            } else {
                let enc = self.cur.read(3)?;
                match enc {
                    1 | 2 => {
                        let w = self.cur.read_vbr(5)?;
                        if enc == 1 {
                            if w > 64 {
                                return Err(self.err(format!("fixed({w}) is wider than 64 bits")));
                            }
                            AbbrevOp::Fixed(w as u8)
                        } else {
                            if w != 0 && !(2..=32).contains(&w) {
                                return Err(self.err(format!("vbr({w}): VBR width must be 2..=32")));
                            }
                            AbbrevOp::Vbr(w as u8)
                        }
                    }
                    3 => AbbrevOp::Array,
                    4 => AbbrevOp::Char6,
                    5 => return Err(self.err("Blob operands are not allowed in PNaCl bitcode")),
                    e => return Err(self.err(format!("Invalid abbreviation encoding {e}"))),
                }
            };
            // An array must be second to last, and its element must not be an array
            // (reported once every operand is read).
            misplaced |= op == AbbrevOp::Array && (i + 2 != n || after_array);
            after_array = op == AbbrevOp::Array;
            compact::push(&mut self.code, op);
        }
        if misplaced {
            return Err(self.err("Array must be the second-to-last abbreviation operand"));
        }
        Ok(())
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
        // Bounded above by what the file holds.
        ops.resize(n as usize + 1, 0);
        ops[0] = code;
        for slot in &mut ops[1..] {
            *slot = cur.read_vbr(6)?;
        }
        Ok(())
    }

    /// Reads the operands of a record with abbreviation `id`: into `small` (their number
    /// returned) when the abbreviation has at most `INLINE_OPS` scalars and no array,
    /// else into `ops`.
    #[inline(always)]
    fn read_abbreviated<P: Pext>(
        &mut self,
        cur: &mut BitCursor<'a>,
        id: u32,
        p: P,
    ) -> Result<Option<usize>> {
        if !self.planned {
            return self.read_compact(cur, id, p).map(|()| None);
        }
        let j = id as usize - 4;
        let plan = if j < self.top_bi_count {
            &self.bi_flat[self.top_bi_start + j]
        } else {
            match self
                .active_plans
                .get(self.top_active_start + (j - self.top_bi_count))
            {
                Some(p) => p,
                None => return Err(self.undefined_abbrev(id)),
            }
        };
        let spec = &plan.spec;
        let n = plan.n;
        let mut scalars_read = false;
        if spec.ok {
            // What `peek_id` loaded, less the id: no second refill (a record that does
            // not lie whole in it takes the general path).
            let (win, bits) = cur.cached();
            if let Some(used) = spec.decode(win, bits, &mut self.small, p) {
                cur.consume(used);
                if n != u8::MAX {
                    return Ok(Some(n as usize));
                }
                scalars_read = true;
            }
        }
        let scalars: &[FastOp] = &self.plans[plan.pool as usize].scalars;
        if n != u8::MAX {
            for (slot, op) in self.small.iter_mut().zip(scalars) {
                *slot = read_fast(cur, *op)?;
            }
            return Ok(Some(n as usize));
        }
        let out = &mut self.ops;
        let k = scalars.len();
        out.clear();
        if scalars_read {
            out.extend_from_slice(&self.small[..k]);
        } else {
            for op in scalars {
                out.push(read_fast(cur, *op)?);
            }
        }
        if let Some(elt) = self.plans[plan.pool as usize].array {
            read_array(cur, elt, out, self.item_pos, p)?;
        }
        Ok(None)
    }

    /// Reads the operands of a record with abbreviation `id` into `ops`, from the
    /// abbreviation's compact form (a reader without plans).
    #[inline(never)]
    fn read_compact<P: Pext>(&mut self, cur: &mut BitCursor<'a>, id: u32, p: P) -> Result<()> {
        let Some(key) = self.key_of(id) else {
            return Err(self.undefined_abbrev(id));
        };
        let mut ops = AbbrevRef(&self.code[key as usize..]).ops();
        let out = &mut self.ops;
        out.clear();
        while let Some(op) = ops.next() {
            if op == AbbrevOp::Array {
                // (An array is always followed by its element.)
                if let Some(elt) = ops.next() {
                    read_array(cur, FastOp::of(elt), out, self.item_pos, p)?;
                }
                break;
            }
            out.push(read_fast(cur, FastOp::of(op))?);
        }
        Ok(())
    }

    #[cold]
    fn undefined_abbrev(&self, id: u32) -> Error {
        self.err(format!(
            "abbreviation id {id} is not defined in block {} (ids 4..{} are)",
            self.top_id,
            4 + self.abbrev_count()
        ))
    }

    /// The operands, code first, of the record just read: `small[..n]`, or `ops` for `None`.
    #[inline]
    fn record_ops(&self, small: Option<usize>) -> &[u64] {
        match small {
            Some(n) => &self.small[..n],
            None => &self.ops,
        }
    }

    /// The code of the record just read (its first value), checked.
    #[inline(always)]
    fn record_code(&self, small: Option<usize>) -> Result<u32> {
        let rec = self.record_ops(small);
        // Only an abbreviation of nothing but an empty array leaves no code.
        let Some(&code) = rec.first() else {
            return Err(self.err("abbreviated record has no record code"));
        };
        if code > u32::MAX as u64 {
            return Err(self.err(format!("record code {code} is too large")));
        }
        Ok(code as u32)
    }

    /// A record in BLOCKINFO, which must be SETBID: selects the block id that the
    /// abbreviations after it are for.
    #[cold]
    fn set_bid(&mut self, code: u32, small: Option<usize>) -> Result<()> {
        if code != BLOCKINFO_CODE_SETBID {
            return Err(self.err(format!(
                "Malformed BlockInfoBlock: record code {code} (only SETBID is allowed)"
            )));
        }
        let rec = self.record_ops(small);
        if rec.len() != 2 {
            return Err(self.err("Malformed BlockInfoBlock: SETBID needs exactly one operand"));
        }
        if rec[1] > u32::MAX as u64 {
            return Err(self.err("Malformed BlockInfoBlock: SETBID block id too large"));
        }
        self.cur_bid = Some(rec[1] as u32);
        Ok(())
    }
}

/// Most values (the code's included) a record of `Reader::simple_records` may have.
const SIMPLE_VALUES: usize = 64;

/// The 57 to 64 bits of `data` from bit `pos` (their number second) in one load; `None`
/// near the end of the data.
#[inline(always)]
fn window_at(data: &[u8], pos: u64) -> Option<(u64, u32)> {
    let byte = (pos >> 3) as usize;
    let word = data.get(byte..byte + 8)?;
    Some((
        u64::from_le_bytes(word.try_into().unwrap()) >> (pos & 7),
        64 - (pos & 7) as u32,
    ))
}

/// For `Reader::simple_records`: the record at `pos` in `data` decoded into `out` (the
/// code first), its abbreviation id, code, number of values and end; `None` if it is not
/// one for that loop. `plans` are the block's BLOCKINFO plans and its local ones, `width`
/// its abbreviation width.
#[inline(always)]
fn decode_simple<P: Pext>(
    data: &[u8],
    plans: (&[InlinePlan], &[InlinePlan]),
    width: u32,
    pos: u64,
    out: &mut [u64; SIMPLE_VALUES],
    p: P,
) -> Option<(u32, u32, usize, u64)> {
    let (win, bits) = window_at(data, pos)?;
    // width ≤ MAX_ABBREV_WIDTH (32).
    let id = p.low(win, width) as u32;
    let Some(j) = (id as usize).checked_sub(4) else {
        // END_BLOCK, ENTER_SUBBLOCK and DEFINE_ABBREV: not here.
        if id != UNABBREV_RECORD {
            return None;
        }
        return decode_unabbrev(
            data,
            pos + width as u64,
            (win >> width, bits - width),
            out,
            p,
        )
        .map(|(code, n, end)| (id, code, n, end));
    };
    let (bi, local) = plans;
    let plan = match bi.get(j) {
        Some(plan) => plan,
        None => local.get(j - bi.len())?,
    };
    if !plan.spec.ok {
        return None;
    }
    let small: &mut [u64; SMALL] = (&mut out[..SMALL]).try_into().unwrap();
    let used = if plan.spec.grid {
        plan.spec
            .decode_grid(win >> width, bits - width, small, p)?
    } else {
        plan.spec.decode(win >> width, bits - width, small, p)?
    };
    let code = out[0];
    if code > u32::MAX as u64 {
        return None;
    }
    let end = pos + (width + used) as u64;
    if plan.n != u8::MAX {
        return Some((id, code as u32, plan.n as usize, end));
    }
    records_array(data, plan, end, out, p).map(|(n, end)| (id, code as u32, n, end))
}

/// For `decode_simple`: the unabbreviated record whose code starts at bit `base` of
/// `data` (`x`: the bits from there, `bits` of them valid), decoded into `out`: its code,
/// number of values (the code's included) and end. The code, the operand count and the
/// operands are all VBR6, so all lie on one grid of 6-bit chunks: the clear continuation
/// bits of a window are the ends of every field in it, and each field is gathered from
/// between two of them. `None` for a record of more than `SIMPLE_VALUES` values, a code of
/// 2^32 or more, or a field that does not lie whole in one load.
#[inline(always)]
fn decode_unabbrev<P: Pext>(
    data: &[u8],
    mut base: u64,
    (mut x, mut bits): (u64, u32),
    out: &mut [u64; SIMPLE_VALUES],
    p: P,
) -> Option<(u32, usize, u64)> {
    let pay = PAYLOAD[6];
    let mut stops = !x & CONT[6];
    // The ends of the code and of the count (the first two stops; 65 where none).
    let e1 = stops.trailing_zeros() + 1;
    stops &= stops.wrapping_sub(1);
    let e2 = stops.trailing_zeros() + 1;
    stops &= stops.wrapping_sub(1);
    if e2 > bits {
        return None;
    }
    let code = p.pext(p.low(x, e1), pay);
    let count = p.pext(p.low(x, e2) >> e1, pay);
    if code > u32::MAX as u64 || count >= SIMPLE_VALUES as u64 {
        return None;
    }
    out[0] = code;
    let n = 1 + count as usize;
    // `at`: where the next field starts in the window (the end of one that lay in it; a
    // field's bits are gathered only when it ends within the window too, so the shift by
    // `at` is below 64).
    let mut at = e2;
    let mut i = 1;
    while i < n {
        let e = stops.trailing_zeros() + 1;
        if e > bits {
            // The field runs past the window: the next window starts at it. (A field
            // that does not fit even so is left to the general path.)
            if at == 0 {
                return None;
            }
            base += at as u64;
            (x, bits) = window_at(data, base)?;
            stops = !x & CONT[6];
            at = 0;
            continue;
        }
        out[i] = p.pext(p.low(x, e) >> at, pay);
        at = e;
        stops &= stops.wrapping_sub(1);
        i += 1;
    }
    Some((code as u32, n, base + at as u64))
}

/// The array after the scalars (`plan.scalars` of them, in `out`) of a record of
/// `decode_simple`, from bit `pos`: the number of values in `out` and the record's end.
#[inline(always)]
fn records_array<P: Pext>(
    data: &[u8],
    plan: &InlinePlan,
    mut pos: u64,
    out: &mut [u64; SIMPLE_VALUES],
    p: P,
) -> Option<(usize, u64)> {
    let (kind, w) = (plan.array_kind, plan.array_width as u32);
    if kind == FastOp::LITERAL {
        return None;
    }
    let s = plan.scalars as usize;
    // The element count, a VBR6.
    let (x, bits) = window_at(data, pos)?;
    let (count, len) = vbr_at(x, 6, p);
    if len > bits {
        return None;
    }
    pos += len as u64;
    let vals = out.get_mut(s..s.checked_add(count as usize)?)?;
    for v in vals {
        let (x, bits) = window_at(data, pos)?;
        // A fixed element (1 ≤ w ≤ 64) is its low `w` bits.
        let (value, len) = if kind == FastOp::VBR {
            vbr_at(x, w, p)
        } else {
            (p.low(x, w), w)
        };
        if len > bits {
            return None;
        }
        *v = value;
        pos += len as u64;
    }
    Some((s + count as usize, pos))
}

/// The abbreviation id at the cursor, not consumed (the cache refilled); `None` where
/// fewer than `width` bits are left.
#[inline(always)]
fn peek_id(cur: &mut BitCursor<'_>, width: u32) -> Option<u32> {
    // width ≤ 32: the shift is in range.
    let (win, bits) = cur.window();
    (bits >= width).then_some((win & ((1u64 << width) - 1)) as u32)
}

/// Reads an array of elements `elt` (its length first, a VBR6) onto the end of `out`.
/// `item_pos` is the record's position, for errors.
#[inline(always)]
fn read_array<P: Pext>(
    cur: &mut BitCursor<'_>,
    elt: FastOp,
    out: &mut Vec<u64>,
    item_pos: u64,
    p: P,
) -> Result<()> {
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
            item_pos,
            format!("array claims {n} elements, more than the file holds"),
        ));
    }
    let k = out.len();
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
        FastOp::VBR => {
            for slot in slots {
                *slot = cur.read_vbr_flat(elt.width as u32, p)?;
            }
        }
        _ => {
            for slot in slots {
                *slot = read_fast(cur, elt)?;
            }
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bitstream::{Abbrev, Writer};

    /// Every record of a stream: abbreviation id, code, operands. The stream is read with
    /// decoding plans and without, which must agree, and where the CPU has BMI2, a third
    /// time with its bit gather, which must agree too.
    fn records_of(bytes: &[u8]) -> Vec<(u32, u32, Vec<u64>)> {
        let soft = records_with(bytes, SoftPext, true);
        assert_eq!(
            records_with(bytes, SoftPext, false),
            soft,
            "reads with and without plans differ"
        );
        #[cfg(target_arch = "x86_64")]
        if let Some(bmi2) = crate::bitstream::Bmi2::detect() {
            assert_eq!(
                records_with(bytes, bmi2, true),
                soft,
                "BMI2 and portable reads differ"
            );
        }
        soft
    }

    /// The records as `bitcode::read` takes them: through `simple_records` (which takes
    /// only records of a reader with plans), `next_record_with`, and `next_item`.
    fn records_with<P: Pext>(bytes: &[u8], p: P, planned: bool) -> Vec<(u32, u32, Vec<u64>)> {
        let mut r = Reader::with_plans(bytes, 0, planned).unwrap();
        let mut got = Vec::new();
        loop {
            r.simple_records(p, |_, abbrev, code, ops| -> std::result::Result<(), ()> {
                got.push((abbrev, code, ops.to_vec()));
                Ok(())
            })
            .unwrap();
            if let Some(code) = r.next_record_with(p).unwrap() {
                let (abbrev, ops) = r.record_operands();
                got.push((abbrev, code, ops.to_vec()));
                continue;
            }
            match r.next_item().unwrap() {
                Item::Eof => return got,
                Item::Record { abbrev, code, ops } => got.push((abbrev, code, ops.to_vec())),
                _ => {}
            }
        }
    }

    /// An abbreviation of only an array, used with no elements, leaves a record without a
    /// code: an error at the record, not a panic.
    #[test]
    fn empty_array_record_has_no_code() {
        let mut w = Writer::new();
        w.enter_block(9, 3);
        w.define_abbrev(&Abbrev::new(vec![AbbrevOp::Array, AbbrevOp::Fixed(8)]));
        let at = w.bits.pos();
        w.bits.emit(4, 3);
        w.bits.emit_vbr(0, 6);
        w.exit_block();
        let bytes = w.into_bytes();
        for planned in [true, false] {
            let mut r = Reader::with_plans(&bytes, 0, planned).unwrap();
            let e = loop {
                match r.next_item() {
                    Ok(Item::Eof) => panic!("the record was accepted"),
                    Ok(_) => {}
                    Err(e) => break e,
                }
            };
            assert_eq!(e.msg(), "abbreviated record has no record code");
            assert_eq!(e.pos(), at);
        }
    }

    /// Fields too wide for the branch-free decoder (up to 64 bits) take the general path
    /// (found by the fuzzer: building the decoder's masks overflowed).
    #[test]
    fn wide_fixed_fields_read_back() {
        for w in [57u8, 63, 64] {
            let mut wr = Writer::new();
            wr.enter_block(9, 3);
            wr.define_abbrev(&Abbrev::new(vec![
                AbbrevOp::Literal(1),
                AbbrevOp::Fixed(w),
                AbbrevOp::Vbr(6),
            ]));
            let v = u64::MAX >> (64 - w);
            wr.emit_record(4, 1, &[v, 5]).unwrap();
            wr.exit_block();
            let bytes = wr.into_bytes();
            for planned in [true, false] {
                let mut r = Reader::with_plans(&bytes, 0, planned).unwrap();
                r.next_item().unwrap();
                r.next_item().unwrap();
                match r.next_item().unwrap() {
                    Item::Record { code, ops, .. } => {
                        assert_eq!((code, ops), (1, &[v, 5][..]))
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
    }

    proptest::proptest! {
        /// Records of any scalar abbreviation (literals, fixed operands of 1 to 64 bits and
        /// VBRs of every width, with values of every size: VBRs of one or two chunks, which
        /// the branch-free decoder takes, and of more, which it leaves to the general
        /// path) read back as written, through a local and a BLOCKINFO abbreviation alike.
        #[test]
        fn scalar_abbreviations_read_back(
            // Up to 8 operands after the code: more than `INLINE_OPS` in all takes the
            // general path.
            shape in proptest::collection::vec((0u8..3, 1u8..=64), 0..9),
            records in proptest::collection::vec(
                proptest::collection::vec((proptest::prelude::any::<u64>(), 0u32..64), 9),
                1..30,
            ),
            blockinfo in proptest::prelude::any::<bool>(),
        ) {
            // The code is a literal, then the shape's operands.
            let mut ops = vec![AbbrevOp::Literal(7)];
            for &(k, w) in &shape {
                ops.push(match k {
                    0 => AbbrevOp::Literal(w as u64 * 3),
                    1 => AbbrevOp::Fixed(w),
                    _ => AbbrevOp::Vbr(w.clamp(2, 32)),
                });
            }
            let abbrev = Abbrev::new(ops.clone());
            let mut w = Writer::new();
            if blockinfo {
                w.enter_block(BLOCKINFO_BLOCK_ID, 2);
                w.set_bid(9);
                w.define_abbrev(&abbrev);
                w.exit_block();
                w.enter_block(9, 3);
            } else {
                w.enter_block(9, 3);
                w.define_abbrev(&abbrev);
            }
            let mut want = Vec::new();
            for rec in &records {
                let vals: Vec<u64> = ops[1..]
                    .iter()
                    .zip(rec)
                    .map(|(op, &(v, sh))| match *op {
                        AbbrevOp::Literal(l) => l,
                        AbbrevOp::Fixed(fw) => (v >> sh) & ((1u128 << fw) - 1) as u64,
                        _ => v >> sh,
                    })
                    .collect();
                w.emit_record(4, 7, &vals).unwrap();
                want.push(vals);
            }
            w.exit_block();
            let bytes = w.into_bytes();
            // SETBID (in BLOCKINFO) is unabbreviated; block 9's records use id 4.
            let want: Vec<_> = want.into_iter().map(|ops| (4, 7, ops)).collect();
            let got: Vec<_> = records_of(&bytes).into_iter().filter(|r| r.0 == 4).collect();
            proptest::prop_assert_eq!(got, want);
        }

        /// Unabbreviated records (any code, up to 80 operands of every size), between
        /// abbreviated ones, read back as written: the loop for small records takes those
        /// of at most `SIMPLE_VALUES` values that lie in its loads, and leaves the others
        /// to the general path.
        #[test]
        fn unabbreviated_records_read_back(
            records in proptest::collection::vec(
                (
                    0u32..2000,
                    proptest::collection::vec((proptest::prelude::any::<u64>(), 0u32..64), 0..80),
                    proptest::prelude::any::<bool>(),
                ),
                1..20,
            ),
        ) {
            let mut wr = Writer::new();
            wr.enter_block(12, 3);
            wr.define_abbrev(&Abbrev::new(vec![AbbrevOp::Literal(5), AbbrevOp::Vbr(6)]));
            let mut want = Vec::new();
            for (code, ops, abbreviated) in &records {
                let vals: Vec<u64> = ops.iter().map(|&(v, sh)| v >> sh).collect();
                wr.emit_unabbrev(*code, &vals);
                want.push((UNABBREV_RECORD, *code, vals));
                if *abbreviated {
                    wr.emit_record(4, 5, &[*code as u64]).unwrap();
                    want.push((4, 5, vec![*code as u64]));
                }
            }
            wr.exit_block();
            let bytes = wr.into_bytes();
            proptest::prop_assert_eq!(records_of(&bytes), want);
        }

        /// Records of an abbreviation with scalars and then an array of VBRs (phi and
        /// call operands) read back as written, whatever the element width and size.
        #[test]
        fn array_abbreviations_read_back(
            w in 2u8..=32,
            fixed in 1u8..=20,
            records in proptest::collection::vec(
                (
                    proptest::prelude::any::<u64>(),
                    proptest::collection::vec((proptest::prelude::any::<u64>(), 0u32..64), 0..12),
                ),
                1..20,
            ),
        ) {
            let abbrev = Abbrev::new(vec![
                AbbrevOp::Literal(34),
                AbbrevOp::Fixed(fixed),
                AbbrevOp::Array,
                AbbrevOp::Vbr(w),
            ]);
            let mut wr = Writer::new();
            wr.enter_block(12, 4);
            wr.define_abbrev(&abbrev);
            let mut want = Vec::new();
            for (f, elts) in &records {
                let mut vals = vec![f & ((1u64 << fixed) - 1)];
                vals.extend(elts.iter().map(|&(v, sh)| v >> sh));
                wr.emit_record(4, 34, &vals).unwrap();
                want.push(vals);
            }
            wr.exit_block();
            let bytes = wr.into_bytes();
            let want: Vec<_> = want.into_iter().map(|ops| (4, 34, ops)).collect();
            proptest::prop_assert_eq!(records_of(&bytes), want);
        }
    }
}
