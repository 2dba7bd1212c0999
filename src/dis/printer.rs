//! Turns each item (and what the parser made of it) into the record and assembly columns.

use std::io::{self, Write};

use super::format::{format, Layout, Tok, Toks};
use super::Options;
use crate::bitcode::codes::{block, pseudo, vst};
use crate::bitcode::{Event, Header, Parser};
use crate::bitstream::{Abbrev, AbbrevOp, Item, UNABBREV_RECORD};
use crate::error::{Error, Result};
use crate::ir::{ConstValue, InstKind, Module, ValueType};

const RECORD_WIDTH: usize = 40;
const LABEL_WIDTH: usize = 11;
const ASM: Layout = Layout {
    width: 39,
    cap: 19,
    cont: 4,
};
const REC: Layout = Layout {
    width: RECORD_WIDTH,
    cap: 19,
    cont: 4,
};

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

/// One line of assembly: its depth and tokens.
struct AsmLine {
    depth: usize,
    toks: Toks,
}

pub struct Printer<'o, W: Write> {
    opts: &'o Options,
    out: &'o mut W,
    errors: Vec<Error>,
    stopped: bool,
    /// Block id of the last SETBID in BLOCKINFO, and whether an abbreviation followed it yet.
    setbid: Option<u32>,
    setbid_fresh: bool,
    /// `%b0:` still to print before the function's first instruction.
    label_pending: bool,
}

impl<'o, W: Write> Printer<'o, W> {
    pub fn new(opts: &'o Options, out: &'o mut W) -> Self {
        Printer {
            opts,
            out,
            errors: Vec::new(),
            stopped: false,
            setbid: None,
            setbid_fresh: false,
            label_pending: false,
        }
    }

    pub fn setbid(&self) -> Option<u32> {
        self.setbid
    }

    pub fn too_many_errors(&self) -> bool {
        self.errors.len() >= self.opts.max_errors
    }

    pub fn finish(self) -> super::Outcome {
        super::Outcome {
            errors: self.errors,
            stopped: self.stopped,
        }
    }

    pub fn finish_stopped(mut self) -> super::Outcome {
        self.stopped = true;
        self.finish()
    }

    /// Prints an error line and records it.
    pub fn error(&mut self, e: &Error) -> io::Result<()> {
        writeln!(self.out, "Error({}): {}", e.position(), e.msg())?;
        self.errors.push(e.clone());
        if self.too_many_errors() {
            writeln!(self.out, "Error({}): Too many errors", e.position())?;
            self.stopped = true;
        }
        Ok(())
    }

    pub fn header(&mut self, bytes: &[u8], h: &Header) -> io::Result<()> {
        let vals: Vec<u64> = bytes.iter().map(|&b| b as u64).collect();
        let rec = record_toks(None, pseudo::HEADER, &vals);
        let mut magic = String::from("Magic Number: '");
        magic.extend(bytes[..4].iter().map(|&b| b as char));
        magic.push_str("' (");
        magic.push_str(
            &bytes[..4]
                .iter()
                .map(|b| b.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        );
        magic.push(')');
        let mut l1 = Toks::new();
        l1.t(magic);
        let mut l2 = Toks::new();
        l2.t(format!("PNaCl Version: {}", h.pnacl_version));
        let asm = vec![
            AsmLine { depth: 0, toks: l1 },
            AsmLine { depth: 0, toks: l2 },
        ];
        self.emit(Some((0, 0, rec)), asm)
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
        let mut asm: Vec<AsmLine> = Vec::new();
        let rec;
        let mut rec_depth = depth;
        let mut suffix: Option<String> = None;
        match *item {
            Item::Enter { id, width, .. } => {
                rec = record_toks(Some(1), pseudo::ENTER, &[id as u64, width as u64]);
                let mut t = Toks::new();
                match result {
                    Ok(Event::EnterFunction(f)) => {
                        self.label_pending = true;
                        function_header(&mut t, m, *f);
                    }
                    _ => {
                        let name = block::name(id).unwrap_or("unknown");
                        t.s(name)
                            .sp()
                            .open("{")
                            .sp()
                            .sp()
                            .t(format!("// BlockID = {id}"));
                    }
                }
                if id == block::BLOCKINFO {
                    self.setbid = None;
                }
                asm.push(AsmLine { depth, toks: t });
            }
            Item::Exit => {
                rec_depth = depth.saturating_sub(1);
                rec = record_toks(Some(0), pseudo::EXIT, &[]);
                let mut t = Toks::new();
                t.s("}");
                // The constants block's closing brace lines up with its contents (the
                // spec's examples: `    0: <65534>   |      }`).
                let exited = match result {
                    Ok(Event::ExitBlock(id)) => Some(*id),
                    _ => None,
                };
                let asm_depth = if exited == Some(block::CONSTANTS) {
                    depth
                } else {
                    rec_depth
                };
                asm.push(AsmLine {
                    depth: asm_depth,
                    toks: t,
                });
                if exited == Some(block::FUNCTION) {
                    self.label_pending = false;
                }
            }
            Item::DefineAbbrev {
                abbrev,
                blockinfo_for,
            } => {
                let abbrev = &abbrev.to_abbrev();
                let mut raw: Vec<u64> = Vec::with_capacity(abbrev.raw.len() + 2);
                if self.opts.abbrev_quirks && blockinfo_for.is_some() && self.setbid_fresh {
                    raw.push(self.setbid.unwrap_or(0) as u64);
                }
                raw.extend(raw_fields(abbrev, self.opts.abbrev_quirks));
                self.setbid_fresh = false;
                rec = record_toks(Some(2), pseudo::DEFINE_ABBREV, &raw);
                let mut t = Toks::new();
                let (name, d) = match blockinfo_for {
                    Some(_) => (format!("@a{}", counts.setbid), depth + 1),
                    None => (format!("%a{}", counts.total - counts.blockinfo), depth),
                };
                t.t(name).sp().s("=").sp().s("abbrev").sp();
                abbrev_toks(&mut t, abbrev);
                asm.push(AsmLine { depth: d, toks: t });
            }
            Item::Record { abbrev, code, ops } => {
                let in_blockinfo = parser.block_stack().last() == Some(&block::BLOCKINFO);
                if in_blockinfo {
                    // SETBID: printed as `1: <1, id>` although it is unabbreviated.
                    rec = record_toks(Some(1), code, ops);
                    let bid = ops.first().copied().unwrap_or(0) as u32;
                    self.setbid = Some(bid);
                    self.setbid_fresh = true;
                    let mut t = Toks::new();
                    match block::name(bid) {
                        Some(n) if bid != block::BLOCKINFO => {
                            t.t(format!("{n}:"));
                        }
                        _ => {
                            t.t(format!("block({bid}):"));
                        }
                    }
                    asm.push(AsmLine { depth, toks: t });
                } else {
                    let mut vals = Vec::with_capacity(ops.len() + 1);
                    vals.push(code as u64);
                    vals.extend_from_slice(ops);
                    rec = record_full_toks(abbrev, &vals);
                    if abbrev != UNABBREV_RECORD {
                        let k = abbrev as usize - 4;
                        suffix = Some(if k < counts.blockinfo {
                            format!("<@a{k}>")
                        } else {
                            format!("<%a{}>", k - counts.blockinfo)
                        });
                    }
                    if let Ok(ev) = result {
                        self.event_asm(*ev, depth, code, ops, parser, &mut asm);
                    }
                }
            }
            Item::Eof => return Ok(()),
        }
        // The abbreviation suffix goes on the record's first line (after any label), or for
        // an instruction on its last (a switch's closing brace).
        let at = if matches!(result, Ok(Event::Inst(_))) {
            asm.len().saturating_sub(1)
        } else {
            asm.iter()
                .position(|l| l.depth == usize::MAX)
                .map_or(0, |i| i + 1)
        };
        if let (Some(sfx), Some(line)) = (suffix, asm.get_mut(at)) {
            line.toks.sp().t(sfx);
        }
        self.emit(Some((pos, rec_depth, rec)), asm)?;
        // After a terminator, the next block's label.
        if let (Ok(Event::Inst(i)), Some((_, body))) = (result, parser.current_body()) {
            if body.insts[*i as usize].kind.is_terminator() {
                if let Some((b, n)) = parser.current_block() {
                    if b < n {
                        self.label(depth, b)?;
                    }
                }
            }
        }
        if let Err(e) = result {
            self.error(e)?;
        } else if let Ok(Event::Inst(i)) = result {
            if let Some((f, body)) = parser.current_body() {
                for msg in crate::abi::inst_findings(m, f, &body, *i as usize) {
                    self.error(&Error::new(pos, msg))?;
                }
            }
        }
        Ok(())
    }

    /// Prints an item inside a block the parser refused: the record column only.
    pub fn raw_item(
        &mut self,
        pos: u64,
        depth: usize,
        item: &Item<'_>,
        counts: AbbrevCounts,
    ) -> io::Result<()> {
        let (rec, rec_depth) = match *item {
            Item::Enter { id, width, .. } => (
                record_toks(Some(1), pseudo::ENTER, &[id as u64, width as u64]),
                depth,
            ),
            Item::Exit => (
                record_toks(Some(0), pseudo::EXIT, &[]),
                depth.saturating_sub(1),
            ),
            Item::DefineAbbrev { abbrev, .. } => (
                record_toks(
                    Some(2),
                    pseudo::DEFINE_ABBREV,
                    &raw_fields(&abbrev.to_abbrev(), self.opts.abbrev_quirks),
                ),
                depth,
            ),
            Item::Record { abbrev, code, ops } => {
                let mut vals = vec![code as u64];
                vals.extend_from_slice(ops);
                (record_full_toks(abbrev, &vals), depth)
            }
            Item::Eof => return Ok(()),
        };
        let _ = counts;
        self.emit(Some((pos, rec_depth, rec)), Vec::new())
    }

    fn label(&mut self, depth: usize, b: u32) -> io::Result<()> {
        let mut t = Toks::new();
        t.t(format!("%b{b}:"));
        self.emit(
            None,
            vec![AsmLine {
                depth: depth.saturating_sub(1),
                toks: t,
            }],
        )
    }

    /// The assembly lines of a record the parser accepted.
    fn event_asm(
        &mut self,
        ev: Event,
        depth: usize,
        code: u32,
        ops: &[u64],
        parser: &Parser,
        asm: &mut Vec<AsmLine>,
    ) {
        let m = &parser.module;
        let mut t = Toks::new();
        let mut d = depth;
        let names = Names::new(parser);
        match ev {
            Event::Version(v) => {
                t.s("version").sp().t(format!("{v};"));
            }
            Event::TypeCount(n) => {
                t.s("count").sp().t(format!("{n};"));
            }
            Event::GlobalCount(n) => {
                t.s("count").sp().t(format!("{n};"));
            }
            Event::Type(i) => {
                t.t(format!("@t{i}")).sp().s("=").sp().begin();
                type_toks(&mut t, &m.types[i as usize]);
                t.s(";").end();
            }
            Event::Function(f) => {
                let func = &m.functions[f as usize];
                let sig = m.fn_type(f);
                t.s(if func.is_defined { "define" } else { "declare" }).sp();
                // The historical printer's linkage text for internal has a trailing space.
                t.s(match func.linkage {
                    crate::ir::Linkage::External => "external",
                    crate::ir::Linkage::Internal => "internal ",
                })
                .sp()
                .begin()
                .s(sig.ret.name())
                .sp()
                .begin()
                .t(format!("@f{f}"));
                params_toks(&mut t, sig.params.len(), |t, i| {
                    t.s(sig.params[i].name());
                });
                t.end().s(";").end();
            }
            Event::GlobalVar(g) => {
                let glob = &m.globals[g as usize];
                t.s(if glob.is_const { "const" } else { "var" })
                    .sp()
                    .t(format!("@g{g}"))
                    .s(",")
                    .sp()
                    .begin()
                    .s("align")
                    .sp()
                    .t(glob.align.bytes().to_string())
                    .end()
                    .s(",");
            }
            Event::Compound { count, .. } => {
                d = depth + 1;
                t.s("initializers").sp().t(count.to_string()).sp().s("{");
            }
            Event::Init {
                global,
                index,
                closes,
            } => {
                let glob = &m.globals[global as usize];
                d = depth + if glob.compound { 2 } else { 1 };
                match &glob.inits[index as usize] {
                    crate::ir::Init::Zero(n) => {
                        t.s("zerofill").sp().t(format!("{n};"));
                    }
                    crate::ir::Init::Data(bytes) => {
                        t.open("{");
                        for (i, b) in bytes.iter().enumerate() {
                            t.t(format!("{b:3}"));
                            if i + 1 < bytes.len() {
                                t.s(",").sp();
                            }
                        }
                        t.close("}");
                    }
                    crate::ir::Init::Reloc { target, addend } => {
                        t.s("reloc").sp().t(names.value(*target));
                        if *addend > 0 {
                            t.sp().s("+").sp().t(addend.to_string());
                        } else if *addend < 0 {
                            t.sp().s("-").sp().t(addend.unsigned_abs().to_string());
                        }
                        t.s(";");
                    }
                }
                if closes {
                    asm.push(AsmLine { depth: d, toks: t });
                    let mut c = Toks::new();
                    c.s("}");
                    asm.push(AsmLine {
                        depth: depth + 1,
                        toks: c,
                    });
                    return;
                }
            }
            Event::Symbol(id) => {
                let name = if code == vst::BBENTRY {
                    format!("%b{id}")
                } else {
                    names.value(id)
                };
                t.t(name).sp().s(":").sp();
                symbol_name_toks(&mut t, &ops[1..]);
            }
            Event::SetType(ty) => {
                t.t(format!("{ty}:"));
            }
            Event::Const(i) => {
                d = depth + 1;
                if let Some((_, body)) = parser.current_body() {
                    let c = body.consts[i as usize];
                    t.t(format!("%c{i}"))
                        .sp()
                        .s("=")
                        .sp()
                        .begin()
                        .s(c.ty.name())
                        .sp();
                    match c.value {
                        ConstValue::Undef => {
                            t.s("undef;");
                        }
                        ConstValue::Int(v) => {
                            // As the historical printer: i1 by its value; other widths
                            // from the record's sign-rotated operand, its sign and then
                            // its magnitude (so the operand 1 is `-0`).
                            let s = match ops.first() {
                                _ if c.ty == ValueType::I1 => (v & 1).to_string(),
                                Some(&raw) if raw & 1 == 1 => format!("-{}", raw >> 1),
                                Some(&raw) => (raw >> 1).to_string(),
                                None => v.to_string(),
                            };
                            t.t(format!("{s};"));
                        }
                        ConstValue::Float(bits) => {
                            let f = if c.ty == ValueType::Float {
                                f32::from_bits(bits as u32) as f64
                            } else {
                                f64::from_bits(bits)
                            };
                            t.t(format!("{};", fmt_g(f)));
                        }
                    }
                    t.end();
                }
            }
            Event::DeclareBlocks(n) => {
                t.s("blocks").sp().t(format!("{n};"));
            }
            Event::ForwardRef { id, ty } => {
                self.pending_label(depth, asm);
                t.s("declare")
                    .sp()
                    .s(ty.name())
                    .sp()
                    .t(names.value(id))
                    .s(";");
            }
            Event::Inst(i) => {
                self.pending_label(depth, asm);
                if let Some((_, body)) = parser.current_body() {
                    let ty_of = |id: u32| parser.value_type(id);
                    let id = parser.next_value_id().unwrap_or(0).wrapping_sub(1);
                    inst_toks(&mut t, asm, depth, &body, i as usize, &names, &ty_of, id);
                }
            }
            Event::EnterBlock(_)
            | Event::EnterFunction(_)
            | Event::ExitBlock(_)
            | Event::Abbrev => {}
        }
        if !t.0.is_empty() {
            asm.push(AsmLine { depth: d, toks: t });
        }
    }

    fn pending_label(&mut self, depth: usize, asm: &mut Vec<AsmLine>) {
        if self.label_pending {
            self.label_pending = false;
            let mut t = Toks::new();
            t.s("%b0:");
            asm.push(AsmLine {
                depth: depth.saturating_sub(1),
                toks: t,
            });
            // Marks that the label goes on a line of its own, before the record.
            asm.push(AsmLine {
                depth: usize::MAX,
                toks: Toks::new(),
            });
        }
    }

    /// Writes the lines of one record: the record column beside the assembly column.
    fn emit(&mut self, rec: Option<(u64, usize, Toks)>, asm: Vec<AsmLine>) -> io::Result<()> {
        // A label queued before the record (`depth == usize::MAX` marks the split).
        let (pre, asm): (Vec<AsmLine>, Vec<AsmLine>) =
            match asm.iter().position(|l| l.depth == usize::MAX) {
                Some(i) => {
                    let mut asm = asm;
                    let rest = asm.split_off(i + 1);
                    asm.pop();
                    (asm, rest)
                }
                None => (Vec::new(), asm),
            };
        for l in pre {
            let mut lines = Vec::new();
            format(&l.toks.0, 2 * l.depth, ASM, &mut lines);
            for a in lines {
                self.write_line(None, Some(&a))?;
            }
        }
        let mut rec_lines = Vec::new();
        if let Some((pos, depth, toks)) = &rec {
            format(&toks.0, LABEL_WIDTH + 2 * depth, REC, &mut rec_lines);
            let label = format!("{:>8}:{}|", pos / 8, pos % 8);
            for (i, l) in rec_lines.iter_mut().enumerate() {
                let head = if i == 0 {
                    label.clone()
                } else {
                    format!("{:10}|", "")
                };
                l.replace_range(..LABEL_WIDTH.min(l.len()), &head);
            }
        }
        let mut asm_lines = Vec::new();
        for l in &asm {
            format(&l.toks.0, 2 * l.depth, ASM, &mut asm_lines);
        }
        let n = rec_lines.len().max(asm_lines.len());
        for i in 0..n {
            self.write_line(
                rec_lines.get(i).map(|s| s.as_str()),
                asm_lines.get(i).map(|s| s.as_str()),
            )?;
        }
        Ok(())
    }

    fn write_line(&mut self, rec: Option<&str>, asm: Option<&str>) -> io::Result<()> {
        let (r, a) = (self.opts.records, self.opts.assembly);
        if r && a {
            let left = rec.unwrap_or("          |");
            write!(self.out, "{left:<RECORD_WIDTH$}|")?;
            if let Some(a) = asm {
                self.out.write_all(a.as_bytes())?;
            }
            self.out.write_all(b"\n")
        } else if r {
            match rec {
                Some(l) => writeln!(self.out, "{}", l.trim_end()),
                None => Ok(()),
            }
        } else if a {
            match asm {
                Some(l) => writeln!(self.out, "{l}"),
                None => Ok(()),
            }
        } else {
            Ok(())
        }
    }
}

/// Value names as pnacl-bcdis gives them (writer.md §10.4).
struct Names {
    nf: u32,
    ng: u32,
    np: u32,
    nc: u32,
}

impl Names {
    /// Names as seen from inside `body` of a complete module.
    fn of_model(m: &Module, f: u32, body: &crate::ir::Body) -> Names {
        Names {
            nf: m.functions.len() as u32,
            ng: m.globals.len() as u32,
            np: m.fn_type(f).params.len() as u32,
            nc: body.consts.len() as u32,
        }
    }

    fn new(p: &Parser) -> Names {
        let m = &p.module;
        let nf = m.functions.len() as u32;
        let ng = p.globals_count().unwrap_or(m.globals.len() as u32);
        let (np, nc) = match p.current_body() {
            Some((f, body)) => (m.fn_type(f).params.len() as u32, body.consts.len() as u32),
            None => (0, 0),
        };
        Names { nf, ng, np, nc }
    }

    fn value(&self, id: u32) -> String {
        let mut i = id;
        if i < self.nf {
            return format!("@f{i}");
        }
        i -= self.nf;
        if i < self.ng {
            return format!("@g{i}");
        }
        i -= self.ng;
        if i < self.np {
            return format!("%p{i}");
        }
        i -= self.np;
        if i < self.nc {
            return format!("%c{i}");
        }
        format!("%v{}", i - self.nc)
    }
}

/// `A: <v0, v1, …>` tokens; `abbrev` None for the header (no `A:`).
fn record_toks(abbrev: Option<u32>, code: u32, ops: &[u64]) -> Toks {
    let mut vals = Vec::with_capacity(ops.len() + 1);
    vals.push(code as u64);
    vals.extend_from_slice(ops);
    let mut t = Toks::new();
    if let Some(a) = abbrev {
        t.t(format!("{a}:")).sp();
    }
    values_toks(&mut t, &vals);
    t
}

fn record_full_toks(abbrev: u32, vals: &[u64]) -> Toks {
    let mut t = Toks::new();
    t.t(format!("{abbrev}:")).sp();
    values_toks(&mut t, vals);
    t
}

fn values_toks(t: &mut Toks, vals: &[u64]) {
    // As the historical RecordTextFormatter: each value with the comma after it is one
    // cluster; the closing `>` is a token of its own, so it can go alone to the next line.
    t.open("<");
    for (i, v) in vals.iter().enumerate() {
        if i > 0 {
            t.s(",").end().sp();
        }
        t.begin().t(v.to_string());
    }
    if !vals.is_empty() {
        t.end();
    }
    t.close(">");
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

fn abbrev_toks(t: &mut Toks, a: &Abbrev) {
    t.open("<");
    let n = a.ops.len();
    let mut i = 0;
    while i < n {
        let (text, step) = match a.ops[i] {
            AbbrevOp::Array => (format!("array({})", a.ops[i + 1]), 2),
            op => (op.to_string(), 1),
        };
        i += step;
        // Each operand keeps its separator: `fixed(2),` and `fixed(4)>` move as one.
        t.begin().t(text);
        if i < n {
            t.s(",").end().sp();
        } else {
            t.close(">").end();
        }
    }
    t.s(";");
}

/// A parenthesized list, as the historical printer's: each element with the comma after it
/// is one cluster; `)` is a token of its own.
fn params_toks(t: &mut Toks, n: usize, mut elem: impl FnMut(&mut Toks, usize)) {
    t.open("(");
    for i in 0..n {
        if i > 0 {
            t.s(",").end().sp();
        }
        t.begin();
        elem(t, i);
    }
    if n > 0 {
        t.end();
    }
    t.close(")");
}

fn type_toks(t: &mut Toks, ty: &crate::ir::Type) {
    match ty {
        crate::ir::Type::Value(v) => {
            t.s(v.name());
        }
        crate::ir::Type::Function(f) => {
            t.s(f.ret.name()).sp().begin();
            params_toks(t, f.params.len(), |t, i| {
                t.s(f.params[i].name());
            });
            t.end();
        }
    }
}

fn function_header(t: &mut Toks, m: &Module, f: u32) {
    let sig = m.fn_type(f);
    t.s("function")
        .sp()
        .begin()
        .s(sig.ret.name())
        .sp()
        .begin()
        .t(format!("@f{f}"));
    params_toks(t, sig.params.len(), |t, i| {
        t.s(sig.params[i].name()).sp().t(format!("%p{i}"));
    });
    t.end().end().sp().open("{").sp().sp().s("// BlockID = 12");
}

/// A symbol name: `"name"` when all of it is char6, else `{'a', 36, …}`.
fn symbol_name_toks(t: &mut Toks, chars: &[u64]) {
    if chars.iter().all(|&c| crate::bitstream::is_char6(c)) {
        let s: String = chars.iter().map(|&c| c as u8 as char).collect();
        t.begin().t(format!("\"{s}\"")).s(";").end();
    } else {
        t.open("{");
        for (i, &c) in chars.iter().enumerate() {
            if crate::bitstream::is_char6(c) {
                t.t(format!("'{}'", c as u8 as char));
            } else {
                t.t(format!("{c:3}"));
            }
            if i + 1 < chars.len() {
                t.s(",").sp();
            }
        }
        t.close("}");
    }
}

/// `T V` and the separator after it, as one cluster.
fn typed(t: &mut Toks, ty: ValueType, name: String, sep: &'static str) {
    t.begin().s(ty.name()).sp().t(name);
    if !sep.is_empty() {
        t.s(sep);
    }
    t.end();
}

/// `label %bN` and the separator after it, as one cluster.
fn label(t: &mut Toks, b: u32, sep: &'static str) {
    t.begin().s("label").sp().t(format!("%b{b}")).s(sep).end();
}

/// `align N;` as one cluster.
fn align_toks(t: &mut Toks, bytes: u64) {
    t.begin().s("align").sp().t(bytes.to_string()).s(";").end();
}

#[allow(clippy::too_many_arguments)]
fn inst_toks(
    t: &mut Toks,
    asm: &mut Vec<AsmLine>,
    depth: usize,
    body: &crate::ir::Body,
    i: usize,
    names: &Names,
    ty_of: &dyn Fn(u32) -> Option<ValueType>,
    id: u32,
) {
    let inst = body.insts[i];
    let ty_of = |id: u32| ty_of(id).unwrap_or(ValueType::Void);
    let v = |id: u32| names.value(id);
    let result = |t: &mut Toks, sep: &'static str| {
        t.t(names.value(id)).s(sep).s("=").s(sep);
    };
    match inst.kind {
        InstKind::Binop { op, lhs, rhs } => {
            result(t, " ");
            t.begin()
                .s(op.name(inst.ty.elem().is_float()))
                .sp()
                .s(inst.ty.name())
                .sp()
                .t(v(lhs))
                .s(",")
                .end()
                .sp();
            t.t(v(rhs)).s(";");
        }
        InstKind::Cast { op, val } => {
            result(t, " ");
            t.begin()
                .s(op.name())
                .sp()
                .s(ty_of(val).name())
                .sp()
                .t(v(val))
                .end();
            t.sp().s("to").sp().s(inst.ty.name()).s(";");
        }
        InstKind::Ret { val: None } => {
            t.s("ret").sp().s("void").s(";");
        }
        InstKind::Ret { val: Some(x) } => {
            t.s("ret").sp();
            typed(t, ty_of(x), v(x), ";");
        }
        InstKind::Br { target } => {
            t.s("br").sp();
            label(t, target, ";");
        }
        InstKind::CondBr { cond, t: bt, f: bf } => {
            t.s("br").sp();
            typed(t, ValueType::I1, v(cond), ",");
            t.sp();
            label(t, bt, ",");
            t.sp();
            label(t, bf, ";");
        }
        InstKind::Switch {
            cond,
            default,
            cases,
        } => {
            let cty = ty_of(cond);
            t.s("switch").sp();
            typed(t, cty, v(cond), "");
            t.sp().s("{");
            let mut lines = Vec::new();
            let mut l = Toks::new();
            l.s("default:").sp().s("br").sp();
            label(&mut l, default, ";");
            lines.push(l);
            for c in body.switch_cases(cases) {
                let mut l = Toks::new();
                l.s(cty.name())
                    .sp()
                    .t(format!("{}:", c.value))
                    .sp()
                    .s("br")
                    .sp();
                label(&mut l, c.target, ";");
                lines.push(l);
            }
            asm.push(AsmLine {
                depth,
                toks: std::mem::take(t),
            });
            for l in lines {
                asm.push(AsmLine {
                    depth: depth + 1,
                    toks: l,
                });
            }
            let mut c = Toks::new();
            c.s("}");
            asm.push(AsmLine { depth, toks: c });
        }
        InstKind::Unreachable => {
            t.s("unreachable").s(";");
        }
        InstKind::Phi { incoming } => {
            result(t, " ");
            t.s("phi").sp().s(inst.ty.name()).sp();
            let pairs = body.phi_pairs(incoming);
            let n = pairs.len() / 2;
            for (k, pair) in pairs.chunks(2).enumerate() {
                if k > 0 {
                    t.sp();
                }
                t.begin()
                    .s("[")
                    .t(v(pair[0]))
                    .s(",")
                    .sp()
                    .t(format!("%b{}", pair[1]))
                    .s("]")
                    .s(if k + 1 < n { "," } else { ";" })
                    .end();
            }
        }
        InstKind::Alloca { size, align } => {
            result(t, " ");
            t.begin().s("alloca").sp().s("i8").s(",").end().sp();
            typed(t, ty_of(size), v(size), ",");
            t.sp();
            align_toks(t, align.bytes());
        }
        InstKind::Load { ptr, align } => {
            result(t, " ");
            t.begin()
                .s("load")
                .sp()
                .t(format!("{}*", inst.ty))
                .sp()
                .t(v(ptr))
                .s(",")
                .end()
                .sp();
            align_toks(t, align.bytes());
        }
        InstKind::Store { ptr, val, align } => {
            let vt = ty_of(val);
            t.s("store").sp();
            typed(t, vt, v(val), ",");
            t.sp()
                .begin()
                .t(format!("{vt}*"))
                .sp()
                .t(v(ptr))
                .s(",")
                .end()
                .sp();
            align_toks(t, align.bytes());
        }
        InstKind::Cmp { pred, lhs, rhs } => {
            result(t, " ");
            let lt = ty_of(lhs);
            t.begin()
                .s(if pred.is_float() { "fcmp" } else { "icmp" })
                .sp()
                .s(pred.name())
                .sp()
                .s(lt.name())
                .sp()
                .t(v(lhs))
                .s(",")
                .end()
                .sp();
            t.begin().t(v(rhs)).s(";").end();
        }
        InstKind::Select { cond, t: a, f: b } => {
            result(t, " ");
            t.s("select").sp();
            typed(t, ty_of(cond), v(cond), ",");
            t.sp();
            typed(t, inst.ty, v(a), ",");
            t.sp();
            typed(t, inst.ty, v(b), ";");
        }
        InstKind::ExtractElement { vec, idx } => {
            result(t, "  ");
            t.begin()
                .s("extractelement")
                .sp()
                .s(ty_of(vec).name())
                .sp()
                .t(v(vec))
                .s(",")
                .end()
                .sp();
            typed(t, ty_of(idx), v(idx), ";");
        }
        InstKind::InsertElement { vec, elt, idx } => {
            result(t, "  ");
            t.begin()
                .s("insertelement")
                .sp()
                .s(ty_of(vec).name())
                .sp()
                .t(v(vec))
                .s(",")
                .end()
                .sp();
            typed(t, ty_of(elt), v(elt), ",");
            t.sp();
            typed(t, ty_of(idx), v(idx), ";");
        }
        InstKind::Call {
            callee, args, tail, ..
        } => {
            if !inst.ty.is_void() {
                result(t, " ");
            }
            if tail {
                t.s("tail").sp();
            }
            t.s("call")
                .sp()
                .s(inst.ty.name())
                .sp()
                .begin()
                .t(v(callee))
                .open("(");
            let args = body.span(args);
            for (k, &a) in args.iter().enumerate() {
                if k > 0 {
                    t.s(",").end().sp();
                }
                t.begin().s(ty_of(a).name()).sp().t(v(a));
            }
            t.close(")").s(";");
            if !args.is_empty() {
                t.end();
            }
            t.end();
        }
    }
}

/// The name of value `id` (`@f3`, `@g1`, `%p0`, `%c2`, `%v7`) inside function `f`'s body.
pub fn value_name(m: &Module, f: u32, body: &crate::ir::Body, id: u32) -> String {
    Names::of_model(m, f, body).value(id)
}

/// Instruction `i` of function `f` as one line of PNaClAsm (no wrapping, no label).
pub fn inst_text(m: &Module, f: u32, body: &crate::ir::Body, i: usize) -> String {
    let names = Names::of_model(m, f, body);
    let mut t = Toks::new();
    let mut extra = Vec::new();
    let ty_of = |id: u32| m.value_type_in(body, id);
    // The values defined before this one.
    let k = body.insts[..i].iter().filter(|x| !x.ty.is_void()).count();
    let id = m.num_global_values()
        + m.fn_type(f).params.len() as u32
        + body.consts.len() as u32
        + k as u32;
    inst_toks(&mut t, &mut extra, 0, body, i, &names, &ty_of, id);
    fn emit(out: &mut String, toks: &[Tok]) {
        for tok in toks {
            match tok {
                Tok::Text(s) => out.push_str(s),
                Tok::Str(s) => out.push_str(s),
                Tok::Space => out.push(' '),
                _ => {}
            }
        }
    }
    let mut out = String::new();
    emit(&mut out, &t.0);
    for l in &extra {
        if !out.is_empty() && !l.toks.0.is_empty() {
            out.push(' ');
        }
        emit(&mut out, &l.toks.0);
    }
    out
}

/// C's `printf("%g", f)`.
pub fn fmt_g(f: f64) -> String {
    if f.is_nan() {
        return if f.is_sign_negative() {
            "-nan".into()
        } else {
            "nan".into()
        };
    }
    if f.is_infinite() {
        return if f < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    const P: i32 = 6;
    // Exponent as %e would print it with P-1 digits after the point.
    let e_repr = format!("{:.*e}", (P - 1) as usize, f);
    let exp: i32 = e_repr[e_repr.find('e').unwrap() + 1..].parse().unwrap();
    let strip = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if !(-4..P).contains(&exp) {
        let mant = &e_repr[..e_repr.find('e').unwrap()];
        let mant = strip(mant.to_string());
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        strip(format!("{:.*}", (P - 1 - exp) as usize, f))
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_g;

    #[test]
    fn percent_g() {
        assert_eq!(fmt_g(1.0), "1");
        assert_eq!(fmt_g(7.0), "7");
        assert_eq!(fmt_g(0.5), "0.5");
        assert_eq!(fmt_g(1e6), "1e+06");
        assert_eq!(fmt_g(123456.0), "123456");
        assert_eq!(fmt_g(1234567.0), "1.23457e+06");
        assert_eq!(fmt_g(0.0001), "0.0001");
        assert_eq!(fmt_g(0.00001), "1e-05");
        assert_eq!(fmt_g(1.23456789), "1.23457");
        assert_eq!(fmt_g(-2.5), "-2.5");
        assert_eq!(fmt_g(f64::NAN), "nan");
        assert_eq!(fmt_g(f64::NEG_INFINITY), "-inf");
    }
}
