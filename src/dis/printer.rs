//! Turns each item (and what the parser made of it) into the record and assembly columns.
//!
//! Both columns are token streams (`ir::asm::Tokens`) wrapped by `format`, then laid side
//! by side as the historical `ObjDumpStream` did. The buffers are kept between items: a
//! dump allocates nothing per record.

use std::io::{self, Write};

use super::format::{format, Column, Layout};
use super::Options;
use crate::bitcode::codes::{block, pseudo, vst};
use crate::bitcode::records as rec;
use crate::bitcode::{Event, Header, Parser};
use crate::bitstream::{Abbrev, AbbrevOp, Item, UNABBREV_RECORD};
use crate::error::{Error, Result};
use crate::ir::asm::{self, InstCx, Names, Tokens};
use crate::ir::{InstKind, ValueType};

/// The record column's width beside the assembly column, and alone.
const RECORD_WIDTH: usize = 40;
const RECORD_ONLY_WIDTH: usize = 80;
/// The assembly column: 80 columns less the record column and its separator.
const ASM: Layout = Layout {
    width: 39,
    min_width: 20,
    cont: 4,
};
/// Output is handed to the writer in pieces of about this size.
const CHUNK: usize = 1 << 16;

/// Abbreviation bookkeeping the printer needs, taken from the reader before each item.
#[derive(Debug, Clone, Copy, Default)]
pub struct AbbrevCounts {
    /// BLOCKINFO abbreviations registered for the current block.
    pub blockinfo: usize,
    /// Abbreviations usable in the current block before this item.
    pub total: usize,
    /// BLOCKINFO abbreviations registered so far for the block of the last SETBID.
    pub setbid: usize,
}

pub struct Printer<'o, W: Write> {
    opts: &'o Options,
    out: &'o mut W,
    /// Output not yet handed to `out`.
    buf: Vec<u8>,
    errors: Vec<Error>,
    stopped: bool,
    /// Block id of the last SETBID in BLOCKINFO, and whether an abbreviation followed it yet.
    setbid: Option<u32>,
    setbid_fresh: bool,
    /// `%b0:` still to print before the function's first instruction.
    label_pending: bool,
    rec: Tokens,
    asm: Tokens,
    rec_col: Column,
    asm_col: Column,
    /// The label of the last record (`BYTE:BIT`, at least 8 + 2 characters): its width is
    /// the blank label of lines with no record.
    label: Vec<u8>,
}

impl<'o, W: Write> Printer<'o, W> {
    pub fn new(opts: &'o Options, out: &'o mut W) -> Self {
        Printer {
            opts,
            out,
            buf: Vec::with_capacity(2 * CHUNK),
            errors: Vec::new(),
            stopped: false,
            setbid: None,
            setbid_fresh: false,
            label_pending: false,
            rec: Tokens::new(),
            asm: Tokens::new(),
            rec_col: Column::default(),
            asm_col: Column::default(),
            label: b"       0:0".to_vec(),
        }
    }

    pub fn setbid(&self) -> Option<u32> {
        self.setbid
    }

    pub fn too_many_errors(&self) -> bool {
        self.errors.len() >= self.opts.max_errors
    }

    /// Hands what is buffered to the writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    fn maybe_flush(&mut self) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<super::Outcome> {
        self.flush()?;
        Ok(super::Outcome {
            errors: self.errors,
            stopped: self.stopped,
        })
    }

    pub fn finish_stopped(mut self) -> io::Result<super::Outcome> {
        self.stopped = true;
        self.finish()
    }

    /// Prints an error line and records it.
    pub fn error(&mut self, e: &Error) -> io::Result<()> {
        writeln!(self.buf, "Error({}): {}", e.position(), e.msg())?;
        self.errors.push(e.clone());
        if self.too_many_errors() {
            writeln!(self.buf, "Error({}): Too many errors", e.position())?;
            self.stopped = true;
        }
        self.maybe_flush()
    }

    pub fn header(&mut self, bytes: &[u8], h: &Header) -> io::Result<()> {
        self.rec.clear();
        values(
            &mut self.rec,
            pseudo::HEADER as u64,
            bytes.iter().map(|&b| b as u64),
        );
        let a = &mut self.asm;
        a.clear();
        a.tok(|s| {
            s.push_str("Magic Number: '");
            s.extend(bytes[..4].iter().map(|&b| b as char));
            s.push_str("' (");
            for (i, &b) in bytes[..4].iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                asm::push_u64(s, b as u64);
            }
            s.push(')');
        });
        a.line(0).num("PNaCl Version: ", h.pnacl_version as u64);
        self.emit(Some((0, 0)), 0)
    }

    /// Prints one item.
    #[allow(clippy::too_many_arguments)]
    pub fn item(
        &mut self,
        pos: u64,
        depth: usize,
        item: &Item<'_>,
        counts: AbbrevCounts,
        result: &Result<Event>,
        parser: &Parser,
    ) -> io::Result<()> {
        let m = &parser.module;
        self.rec.clear();
        self.asm.clear();
        let mut rec_depth = depth;
        let mut asm_depth = depth;
        match *item {
            Item::Enter { id, width, .. } => {
                values(
                    self.rec.abbrev(1),
                    pseudo::ENTER as u64,
                    [id as u64, width as u64],
                );
                match result {
                    Ok(Event::EnterFunction(f)) => {
                        self.label_pending = true;
                        asm::function_header(&mut self.asm, m, *f);
                    }
                    _ => {
                        let name = block::name(id).unwrap_or("unknown");
                        self.asm
                            .s(name)
                            .sp()
                            .open("{")
                            .sp()
                            .sp()
                            .num("// BlockID = ", id as u64);
                    }
                }
                if id == block::BLOCKINFO {
                    self.setbid = None;
                }
            }
            Item::Exit => {
                rec_depth = depth.saturating_sub(1);
                values(self.rec.abbrev(0), pseudo::EXIT as u64, []);
                self.asm.s("}");
                // The constants block's closing brace lines up with its contents (the
                // spec's examples: `    0: <65534>   |      }`).
                let exited = match result {
                    Ok(Event::ExitBlock(id)) => Some(*id),
                    _ => None,
                };
                if exited != Some(block::CONSTANTS) {
                    asm_depth = rec_depth;
                }
                if exited == Some(block::FUNCTION) {
                    self.label_pending = false;
                }
            }
            Item::DefineAbbrev {
                abbrev,
                blockinfo_for,
            } => {
                let abbrev = &abbrev.to_abbrev();
                let quirk_bid =
                    (self.opts.abbrev_quirks && blockinfo_for.is_some() && self.setbid_fresh)
                        .then(|| self.setbid.unwrap_or(0) as u64);
                values(
                    self.rec.abbrev(2),
                    pseudo::DEFINE_ABBREV as u64,
                    quirk_bid
                        .into_iter()
                        .chain(raw_fields(abbrev, self.opts.abbrev_quirks)),
                );
                self.setbid_fresh = false;
                match blockinfo_for {
                    Some(_) => {
                        asm_depth = depth + 1;
                        self.asm.num("@a", counts.setbid as u64);
                    }
                    None => {
                        self.asm.num("%a", (counts.total - counts.blockinfo) as u64);
                    }
                }
                self.asm.sp().s("=").sp().s("abbrev").sp();
                abbrev_toks(&mut self.asm, abbrev);
            }
            Item::Record { abbrev, code, ops } => {
                let in_blockinfo = parser.block_stack().last() == Some(&block::BLOCKINFO);
                if in_blockinfo {
                    // SETBID: printed as `1: <1, id>` although it is unabbreviated.
                    values(self.rec.abbrev(1), code as u64, ops.iter().copied());
                    let bid = ops.first().copied().unwrap_or(0) as u32;
                    self.setbid = Some(bid);
                    self.setbid_fresh = true;
                    match block::name(bid) {
                        Some(n) if bid != block::BLOCKINFO => {
                            self.asm.tok(|s| {
                                s.push_str(n);
                                s.push(':');
                            });
                        }
                        _ => {
                            self.asm.tok(|s| {
                                s.push_str("block(");
                                asm::push_u64(s, bid as u64);
                                s.push_str("):");
                            });
                        }
                    }
                } else {
                    values(self.rec.abbrev(abbrev), code as u64, ops.iter().copied());
                    if let Ok(ev) = result {
                        if matches!(ev, Event::Inst(_) | Event::ForwardRef { .. }) {
                            self.pending_label(depth)?;
                        }
                        asm_depth = self.event_asm(*ev, depth, code, ops, parser);
                    }
                    if abbrev != UNABBREV_RECORD && !self.asm.is_empty() {
                        let k = abbrev as usize - 4;
                        self.asm.sp();
                        if k < counts.blockinfo {
                            self.asm.tok(|s| {
                                s.push_str("<@a");
                                asm::push_u64(s, k as u64);
                                s.push('>');
                            });
                        } else {
                            self.asm.tok(|s| {
                                s.push_str("<%a");
                                asm::push_u64(s, (k - counts.blockinfo) as u64);
                                s.push('>');
                            });
                        }
                    }
                }
            }
            Item::Eof => return Ok(()),
        }
        self.emit(Some((pos, rec_depth)), asm_depth)?;
        // The end of a compound initializer: its brace on a line of its own.
        if let Ok(Event::Init { closes: true, .. }) = result {
            self.asm_line(depth + 1, |t| {
                t.s("}");
            })?;
        }
        // After a terminator, the next block's label.
        if let (Ok(Event::Inst(i)), Some((_, body))) = (result, parser.current_body()) {
            if body.insts[*i as usize].kind.is_terminator() {
                if let Some((b, n)) = parser.current_block() {
                    if b < n {
                        self.asm_line(depth.saturating_sub(1), |t| {
                            t.tok(|s| {
                                s.push_str("%b");
                                asm::push_u64(s, b as u64);
                                s.push(':');
                            });
                        })?;
                    }
                }
            }
        }
        if let Err(e) = result {
            self.error(e)?;
        } else if let Ok(Event::Inst(i)) = result {
            if let Some((f, body)) = parser.current_body() {
                for msg in inst_findings(m, f, &body, *i as usize) {
                    self.error(&Error::new(pos, msg))?;
                }
            }
        }
        self.maybe_flush()
    }

    /// Prints an item inside a block the parser refused: the record column only.
    pub fn raw_item(&mut self, pos: u64, depth: usize, item: &Item<'_>) -> io::Result<()> {
        self.rec.clear();
        self.asm.clear();
        let mut rec_depth = depth;
        match *item {
            Item::Enter { id, width, .. } => values(
                self.rec.abbrev(1),
                pseudo::ENTER as u64,
                [id as u64, width as u64],
            ),
            Item::Exit => {
                rec_depth = depth.saturating_sub(1);
                values(self.rec.abbrev(0), pseudo::EXIT as u64, []);
            }
            Item::DefineAbbrev { abbrev, .. } => values(
                self.rec.abbrev(2),
                pseudo::DEFINE_ABBREV as u64,
                raw_fields(&abbrev.to_abbrev(), self.opts.abbrev_quirks),
            ),
            Item::Record { abbrev, code, ops } => {
                values(self.rec.abbrev(abbrev), code as u64, ops.iter().copied())
            }
            Item::Eof => return Ok(()),
        }
        self.emit(Some((pos, rec_depth)), depth)?;
        self.maybe_flush()
    }

    /// A line of assembly with no record (a label, a closing brace).
    fn asm_line(&mut self, depth: usize, f: impl FnOnce(&mut Tokens)) -> io::Result<()> {
        self.rec.clear();
        let mut a = std::mem::take(&mut self.asm);
        a.clear();
        f(&mut a);
        self.asm = a;
        self.emit(None, depth)
    }

    /// `%b0:` before the first instruction of a function, on a line of its own.
    fn pending_label(&mut self, depth: usize) -> io::Result<()> {
        if !self.label_pending {
            return Ok(());
        }
        self.label_pending = false;
        let saved = std::mem::take(&mut self.asm);
        let rec = std::mem::take(&mut self.rec);
        self.asm_line(depth.saturating_sub(1), |t| {
            t.s("%b0:");
        })?;
        self.asm = saved;
        self.rec = rec;
        Ok(())
    }

    /// The assembly of a record the parser accepted; returns its depth.
    fn event_asm(
        &mut self,
        ev: Event,
        depth: usize,
        code: u32,
        ops: &[u64],
        parser: &Parser,
    ) -> usize {
        let m = &parser.module;
        let t = &mut self.asm;
        let names = names(parser);
        match ev {
            Event::Version(v) => {
                t.s("version").sp().tok(|s| {
                    asm::push_u64(s, v);
                    s.push(';');
                });
            }
            Event::TypeCount(n) => {
                t.s("count").sp().tok(|s| {
                    asm::push_u64(s, n);
                    s.push(';');
                });
            }
            Event::GlobalCount(n) => {
                t.s("count").sp().tok(|s| {
                    asm::push_u64(s, n as u64);
                    s.push(';');
                });
            }
            Event::Type(i) => {
                t.num("@t", i as u64).sp().s("=").sp().begin();
                asm::type_(t, &m.types[i as usize]);
                t.s(";").end();
            }
            Event::Function(f) => asm::function_decl(t, m, f),
            Event::GlobalVar(g) => asm::global_var(t, m, g),
            Event::Compound { count, .. } => {
                t.s("initializers").sp().num("", count as u64).sp().s("{");
                return depth + 1;
            }
            Event::Init { global, index, .. } => {
                let glob = &m.globals[global as usize];
                asm::init(t, &names, &glob.inits[index as usize]);
                return depth + if glob.compound { 2 } else { 1 };
            }
            Event::Symbol(id) => {
                // (The reader made the event of the record: it decodes.)
                let name = if code == vst::BBENTRY {
                    t.num("%b", id as u64);
                    rec::BbEntry::decode(ops).map(|r| r.name)
                } else {
                    names.value(t, id);
                    rec::Entry::decode(ops).map(|r| r.name)
                };
                t.sp().s(":").sp();
                symbol_name(t, name.unwrap_or_default());
            }
            Event::SetType(ty) => {
                t.tok(|s| {
                    s.push_str(ty.name());
                    s.push(':');
                });
            }
            Event::Const(i) => {
                if let Some((_, body)) = parser.current_body() {
                    asm::constant(t, i, &body.consts[i as usize], ops.first().copied());
                }
                return depth + 1;
            }
            Event::DeclareBlocks(n) => {
                t.s("blocks").sp().tok(|s| {
                    asm::push_u64(s, n as u64);
                    s.push(';');
                });
            }
            Event::ForwardRef { id, ty } => {
                t.s("declare").sp().s(ty.name()).sp();
                names.value(t, id).s(";");
            }
            Event::Inst(i) => {
                if let Some((_, body)) = parser.current_body() {
                    let ty_of = |id: u32| parser.value_type(id);
                    let cx = InstCx {
                        names,
                        ty_of: &ty_of,
                        // The value it defines is the last one defined.
                        id: parser.next_value_id().unwrap_or(0).wrapping_sub(1),
                    };
                    asm::inst(t, &cx, &body, &body.insts[i as usize]);
                }
            }
            Event::EnterBlock(_)
            | Event::EnterFunction(_)
            | Event::ExitBlock(_)
            | Event::Abbrev => {}
        }
        depth
    }

    /// Writes the lines of one record: the record column (when `rec` gives the record's
    /// position and depth) beside the assembly column at `asm_depth`.
    fn emit(&mut self, rec: Option<(u64, usize)>, asm_depth: usize) -> io::Result<()> {
        let (r, a) = (self.opts.records, self.opts.assembly);
        self.rec_col.clear();
        self.asm_col.clear();
        if let Some((pos, depth)) = rec {
            self.label.clear();
            write!(self.label, "{:>8}:{}", pos / 8, pos % 8)?;
            if r {
                let lay = Layout {
                    width: if a { RECORD_WIDTH } else { RECORD_ONLY_WIDTH },
                    min_width: 21,
                    cont: 0,
                };
                format(&self.rec, depth, lay, &self.label, &mut self.rec_col);
            }
        }
        if a {
            format(&self.asm, asm_depth, ASM, b"", &mut self.asm_col);
        }
        let n = self.rec_col.lines().max(self.asm_col.lines());
        for i in 0..n {
            if r {
                let start = self.buf.len();
                if i < self.rec_col.lines() {
                    self.buf.extend_from_slice(self.rec_col.line(i));
                }
                if a {
                    if i >= self.rec_col.lines() {
                        let w = self.label.len();
                        self.buf.resize(self.buf.len() + w, b' ');
                        self.buf.push(b'|');
                    }
                    let used = self.buf.len() - start;
                    if used < RECORD_WIDTH {
                        self.buf.resize(start + RECORD_WIDTH, b' ');
                    }
                    self.buf.push(b'|');
                }
            }
            if a && i < self.asm_col.lines() {
                self.buf.extend_from_slice(self.asm_col.line(i));
            }
            self.buf.push(b'\n');
        }
        Ok(())
    }
}

/// What pnacl-bcdis checks of an instruction beyond the reader (writer.md §10.4): the
/// alignment of loads and stores, loads and stores of i1, and that a vector index is a
/// constant (as the ABI wants it).
fn inst_findings(m: &crate::ir::Module, f: u32, body: &crate::ir::Body, i: usize) -> Vec<String> {
    let inst = body.insts[i];
    let (what, idx) = match inst.kind {
        InstKind::ExtractElement { idx, .. } => ("extractelement", idx),
        InstKind::InsertElement { idx, .. } => ("insertelement", idx),
        _ => ("", 0),
    };
    if !what.is_empty() {
        // A function's or global's address is a constant too.
        let constant = idx < m.num_global_values() || m.const_in(f, body, idx).is_some();
        if !constant {
            let name = asm::value_name(m, f, body, idx);
            return vec![format!("{what}: Vector index not constant: {name}")];
        }
        return Vec::new();
    }
    let (what, ty, align) = match inst.kind {
        InstKind::Load { align, .. } => ("load", inst.ty, align),
        InstKind::Store { val, align, .. } => match m.value_type_in(body, val) {
            Some(t) => ("store", t, align),
            None => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    // The 2014 tool's words: the natural alignment is the one it names (1 also passes
    // for scalars); i1 is held to 1 like the other integers, then refused.
    let ok: &[u64] = match ty {
        ValueType::I1 => &[1],
        _ => ty.load_store_alignments(),
    };
    match ok.last() {
        None => vec![format!("{what}: Not allowed for type: {ty}")],
        Some(n) if !ok.contains(&align.bytes()) => {
            vec![format!("{what}: Illegal alignment for {ty}. Expects: {n}")]
        }
        Some(_) if ty == ValueType::I1 => vec![format!("{what}: Not allowed for type: {ty}")],
        Some(_) => Vec::new(),
    }
}

/// The names as the parser sees them now (writer.md §10.4: globals counted by the count
/// record).
fn names(p: &Parser) -> Names {
    let m = &p.module;
    let (np, nc) = match p.current_body() {
        Some((f, body)) => (m.fn_type(f).params.len() as u32, body.consts.len() as u32),
        None => (0, 0),
    };
    Names {
        nf: m.functions.len() as u32,
        ng: p.globals_count().unwrap_or(m.globals.len() as u32),
        np,
        nc,
    }
}

trait RecordTokens {
    /// `A: ` before a record read with abbreviation id `a`.
    fn abbrev(&mut self, a: u32) -> &mut Tokens;
}

impl RecordTokens for Tokens {
    fn abbrev(&mut self, a: u32) -> &mut Tokens {
        self.tok(|s| {
            asm::push_u64(s, a as u64);
            s.push(':');
        })
        .sp()
    }
}

/// `<code, v1, …>` as the historical RecordTextFormatter wrote it: each value with the
/// comma after it is one cluster; the closing `>` is a token of its own.
fn values(t: &mut Tokens, code: u64, ops: impl IntoIterator<Item = u64>) {
    t.open("<").begin().num("", code);
    for v in ops {
        t.s(",").end().sp().begin().num("", v);
    }
    t.end().close(">");
}

/// The DEFINE_ABBREV fields as printed. With the quirks, Fixed(0)/VBR(0) get an extra 0.
fn raw_fields(a: &Abbrev, quirks: bool) -> Vec<u64> {
    let mut out = vec![a.raw[0]];
    let mut i = 1;
    while i < a.raw.len() {
        if a.raw[i] == 1 {
            out.extend_from_slice(&a.raw[i..i + 2]);
            i += 2;
        } else if a.raw[i + 1] == 1 || a.raw[i + 1] == 2 {
            out.extend_from_slice(&a.raw[i..i + 3]);
            if quirks && a.raw[i + 2] == 0 {
                out.push(0);
            }
            i += 3;
        } else {
            out.extend_from_slice(&a.raw[i..i + 2]);
            i += 2;
        }
    }
    out
}

/// `<fixed(3), vbr(6), …>;` each operand with its separator one cluster.
fn abbrev_toks(t: &mut Tokens, a: &Abbrev) {
    t.open("<");
    let n = a.ops.len();
    let mut i = 0;
    while i < n {
        t.begin();
        match a.ops[i] {
            AbbrevOp::Array => {
                let elem = a.ops.get(i + 1).copied();
                t.tok(|s| {
                    s.push_str("array(");
                    if let Some(e) = elem {
                        push_op(s, e);
                    }
                    s.push(')');
                });
                i += 2;
            }
            op => {
                t.tok(|s| push_op(s, op));
                i += 1;
            }
        }
        if i < n {
            t.s(",").end().sp();
        } else {
            t.close(">").end();
        }
    }
    t.s(";");
}

fn push_op(s: &mut String, op: AbbrevOp) {
    match op {
        AbbrevOp::Literal(v) => asm::push_u64(s, v),
        AbbrevOp::Fixed(w) => {
            s.push_str("fixed(");
            asm::push_u64(s, w as u64);
            s.push(')');
        }
        AbbrevOp::Vbr(w) => {
            s.push_str("vbr(");
            asm::push_u64(s, w as u64);
            s.push(')');
        }
        AbbrevOp::Array => s.push_str("array"),
        AbbrevOp::Char6 => s.push_str("char6"),
    }
}

/// A symbol name: `"name";` when all of it is char6, else `{'a',  36, …}`.
fn symbol_name(t: &mut Tokens, chars: &[u64]) {
    if chars.iter().all(|&c| crate::bitstream::is_char6(c)) {
        t.begin()
            .tok(|s| {
                s.push('"');
                s.extend(chars.iter().map(|&c| c as u8 as char));
                s.push('"');
            })
            .s(";")
            .end();
    } else {
        t.open("{");
        for (i, &c) in chars.iter().enumerate() {
            // Each character moves to the next line with its comma.
            t.begin().tok(|s| {
                if crate::bitstream::is_char6(c) {
                    s.push('\'');
                    s.push(c as u8 as char);
                    s.push('\'');
                } else {
                    for _ in 0..3usize.saturating_sub(c.to_string().len()) {
                        s.push(' ');
                    }
                    asm::push_u64(s, c);
                }
            });
            if i + 1 < chars.len() {
                t.s(",").end().sp();
            } else {
                t.end();
            }
        }
        t.close("}");
    }
}
