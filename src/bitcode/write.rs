//! The model → pexe writer: the records, abbreviations, block order and widths of Google's
//! pnacl-freeze (writer.md §1–§8), so that a model read from a pnacl-freeze pexe is written
//! back bit for bit.
//!
//! The model fixes every numbering (types, values, constants, symbol-table order); the
//! writer only encodes. The orders pnacl-freeze derived from an LLVM module (type frequency,
//! constant sort, StringMap order) are `llvm::import`'s business.

use std::collections::HashMap;

use super::codes::{block, constants as cc, function as fc, globals as gc, module as mc};
use super::codes::{types as tc, vst};
use super::encode_signrot;
use super::header;
use crate::bitstream::{encode_char6, Abbrev, AbbrevOp};
use crate::bitstream::{BitWriter, Writer};
use crate::error::{Error, Result};
use crate::ir::{Body, ConstValue, Init, InstKind, Module, Type, TypeId, ValueId, ValueType};

/// Block widths (writer.md §3).
const W_MODULE: u32 = 2;
const W_BLOCKINFO: u32 = 2;
const W_TYPE: u32 = 3;
const W_GLOBALVAR: u32 = 4;
const W_VST: u32 = 3;
const W_CONSTANTS: u32 = 3;
const W_FUNCTION: u32 = 4;

/// Abbreviation ids (writer.md §4).
mod ab {
    pub const VST_ENTRY8: u32 = 4;
    pub const VST_ENTRY7: u32 = 5;
    pub const VST_ENTRY6: u32 = 6;
    pub const CST_SETTYPE: u32 = 4;
    pub const CST_INTEGER: u32 = 5;
    pub const CST_INTEGER_ZERO: u32 = 6;
    pub const CST_FLOAT: u32 = 7;
    pub const FN_LOAD: u32 = 4;
    pub const FN_BINOP: u32 = 5;
    pub const FN_CAST: u32 = 6;
    pub const FN_RET_VOID: u32 = 7;
    pub const FN_RET_VAL: u32 = 8;
    pub const FN_UNREACHABLE: u32 = 9;
    pub const FN_FORWARDTYPEREF: u32 = 10;
    pub const FN_STORE: u32 = 11;
    pub const GV_VAR: u32 = 4;
    pub const GV_COMPOUND: u32 = 5;
    pub const GV_ZEROFILL: u32 = 6;
    pub const GV_DATA: u32 = 7;
    pub const GV_RELOC: u32 = 8;
    pub const GV_RELOC_ADDEND: u32 = 9;
    pub const TYPE_FUNCTION: u32 = 4;
}

/// bitlen(x): bits needed for x (writer.md notation; 32 for x ≥ 2^31).
fn bitlen(x: u64) -> u32 {
    if x >= 1 << 31 {
        32
    } else {
        64 - x.leading_zeros()
    }
}

/// The encoding of type-id operands for a table of `nt` types (writer.md §4).
fn ty_op(nt: usize) -> AbbrevOp {
    if nt <= 63 {
        AbbrevOp::Fixed(bitlen(nt as u64) as u8)
    } else {
        AbbrevOp::Vbr(6)
    }
}

/// pnacl-freeze's BLOCKINFO abbreviations, per block id, in SETBID order (writer.md §4).
pub fn blockinfo_abbrevs(nt: usize) -> Vec<(u32, Vec<Abbrev>)> {
    use crate::bitstream::AbbrevOp::*;
    let ty = ty_op(nt);
    vec![
        (
            block::VALUE_SYMTAB,
            vec![
                Abbrev::new(vec![Fixed(3), Vbr(8), Array, Fixed(8)]),
                Abbrev::new(vec![Literal(1), Vbr(8), Array, Fixed(7)]),
                Abbrev::new(vec![Literal(1), Vbr(8), Array, Char6]),
                Abbrev::new(vec![Literal(2), Vbr(8), Array, Char6]),
            ],
        ),
        (
            block::CONSTANTS,
            vec![
                Abbrev::new(vec![Literal(1), ty]),
                Abbrev::new(vec![Literal(4), Vbr(8)]),
                Abbrev::new(vec![Literal(4), Literal(0)]),
                Abbrev::new(vec![Literal(6), Vbr(8)]),
            ],
        ),
        (
            block::FUNCTION,
            vec![
                Abbrev::new(vec![Literal(20), Vbr(6), Vbr(4), Vbr(4)]),
                Abbrev::new(vec![Literal(2), Vbr(6), Vbr(6), Fixed(4)]),
                Abbrev::new(vec![Literal(3), Vbr(6), ty, Fixed(4)]),
                Abbrev::new(vec![Literal(10)]),
                Abbrev::new(vec![Literal(10), Vbr(6)]),
                Abbrev::new(vec![Literal(15)]),
                Abbrev::new(vec![Literal(43), Vbr(6), ty]),
                Abbrev::new(vec![Literal(24), Vbr(6), Vbr(6), Vbr(4)]),
            ],
        ),
        (
            block::GLOBALVAR,
            vec![
                Abbrev::new(vec![Literal(0), Vbr(6), Fixed(1)]),
                Abbrev::new(vec![Literal(1), Vbr(8)]),
                Abbrev::new(vec![Literal(2), Vbr(8)]),
                Abbrev::new(vec![Literal(3), Array, Fixed(8)]),
                Abbrev::new(vec![Literal(4), Vbr(6)]),
                Abbrev::new(vec![Literal(4), Vbr(6), Vbr(6)]),
            ],
        ),
    ]
}

/// How a type id is written in abbreviated records.
#[derive(Clone, Copy)]
enum TyEnc {
    Fixed(u32),
    Vbr6,
}

impl TyEnc {
    fn emit(self, bits: &mut BitWriter, v: u64) {
        match self {
            TyEnc::Fixed(w) => bits.emit(v, w),
            TyEnc::Vbr6 => bits.emit_vbr(v, 6),
        }
    }
}

struct State<'m> {
    m: &'m Module,
    w: Writer,
    ty: TyEnc,
    /// Type id of each value type, and of each function signature's table entry.
    value_type_id: HashMap<ValueType, TypeId>,
    /// Scratch record operands.
    ops: Vec<u64>,
}

/// Writes `m` as a pexe, exactly as pnacl-freeze writes the same module.
pub fn write(m: &Module) -> Result<Vec<u8>> {
    let nt = m.types.len();
    let mut value_type_id = HashMap::new();
    for (i, t) in m.types.iter().enumerate() {
        if let Type::Value(v) = t {
            value_type_id.entry(*v).or_insert(i as TypeId);
        }
    }
    let ty = match ty_op(nt) {
        AbbrevOp::Fixed(w) => TyEnc::Fixed(w as u32),
        _ => TyEnc::Vbr6,
    };
    let mut s = State {
        m,
        w: Writer::with_prefix(&header::encode()),
        ty,
        value_type_id,
        ops: Vec::new(),
    };
    s.module()?;
    Ok(s.w.into_bytes())
}

fn err(msg: impl Into<String>) -> Error {
    Error::new(0, msg)
}

impl State<'_> {
    fn type_id(&self, v: ValueType) -> Result<u64> {
        self.value_type_id
            .get(&v)
            .map(|&t| t as u64)
            .ok_or_else(|| err(format!("type {v} is used but not in the type table")))
    }

    fn abbrev_id(&mut self, id: u32, width: u32) {
        self.w.bits.emit(id as u64, width);
    }

    fn module(&mut self) -> Result<()> {
        let m = self.m;
        self.w.enter_block(block::MODULE, W_MODULE);
        self.w.emit_unabbrev(mc::VERSION, &[1]);
        self.blockinfo();
        self.types()?;
        for f in &m.functions {
            let isproto = if f.is_defined { 0 } else { 1 };
            self.w.emit_unabbrev(
                mc::FUNCTION,
                &[f.ty as u64, f.cc as u64, isproto, f.linkage.code()],
            );
        }
        self.globals()?;
        self.symtab();
        for (i, f) in m.functions.iter().enumerate() {
            if let Some(loc) = &f.body {
                self.function(i as u32, &m.code.body(loc))
                    .map_err(|e| err(format!("function @f{i}: {}", e.msg())))?;
            }
        }
        self.w.exit_block();
        Ok(())
    }

    fn blockinfo(&mut self) {
        self.w
            .enter_block(crate::bitstream::BLOCKINFO_BLOCK_ID, W_BLOCKINFO);
        for (bid, abbrevs) in blockinfo_abbrevs(self.m.types.len()) {
            self.w.set_bid(bid);
            for a in &abbrevs {
                self.w.define_abbrev(a);
            }
        }
        self.w.exit_block();
    }

    fn types(&mut self) -> Result<()> {
        let m = self.m;
        self.w.enter_block(block::TYPE, W_TYPE);
        self.w.define_abbrev(&Abbrev::new(vec![
            AbbrevOp::Literal(tc::FUNCTION as u64),
            AbbrevOp::Fixed(1),
            AbbrevOp::Array,
            ty_op(m.types.len()),
        ]));
        self.w.emit_unabbrev(tc::NUMENTRY, &[m.types.len() as u64]);
        for t in &m.types {
            match t {
                Type::Value(ValueType::Void) => self.w.emit_unabbrev(tc::VOID, &[]),
                Type::Value(ValueType::Float) => self.w.emit_unabbrev(tc::FLOAT, &[]),
                Type::Value(ValueType::Double) => self.w.emit_unabbrev(tc::DOUBLE, &[]),
                Type::Value(v) if v.is_int() => {
                    self.w.emit_unabbrev(tc::INTEGER, &[v.bits() as u64])
                }
                Type::Value(v) => {
                    let elt = self.type_id(v.elem())?;
                    self.w.emit_unabbrev(tc::VECTOR, &[v.count() as u64, elt]);
                }
                Type::Function(f) => {
                    self.abbrev_id(ab::TYPE_FUNCTION, W_TYPE);
                    self.w.bits.emit(u64::from(f.vararg), 1);
                    self.w.bits.emit_vbr(f.params.len() as u64 + 1, 6);
                    let ret = self.type_id(f.ret)?;
                    self.ty.emit(&mut self.w.bits, ret);
                    for &p in &f.params {
                        let p = self.type_id(p)?;
                        self.ty.emit(&mut self.w.bits, p);
                    }
                }
            }
        }
        self.w.exit_block();
        Ok(())
    }

    fn globals(&mut self) -> Result<()> {
        let m = self.m;
        self.w.enter_block(block::GLOBALVAR, W_GLOBALVAR);
        self.w.emit_unabbrev(gc::COUNT, &[m.globals.len() as u64]);
        for g in &m.globals {
            self.abbrev_id(ab::GV_VAR, W_GLOBALVAR);
            self.w.bits.emit_vbr(g.align.0 as u64, 6);
            self.w.bits.emit(g.is_const as u64, 1);
            if g.compound || g.inits.len() != 1 {
                self.abbrev_id(ab::GV_COMPOUND, W_GLOBALVAR);
                self.w.bits.emit_vbr(g.inits.len() as u64, 8);
            }
            for init in &g.inits {
                match init {
                    Init::Zero(n) => {
                        self.abbrev_id(ab::GV_ZEROFILL, W_GLOBALVAR);
                        self.w.bits.emit_vbr(*n, 8);
                    }
                    Init::Data(bytes) => {
                        self.abbrev_id(ab::GV_DATA, W_GLOBALVAR);
                        self.w.bits.emit_vbr(bytes.len() as u64, 6);
                        for &b in bytes.iter() {
                            self.w.bits.emit(b as u64, 8);
                        }
                    }
                    Init::Reloc { target, addend: 0 } => {
                        self.abbrev_id(ab::GV_RELOC, W_GLOBALVAR);
                        self.w.bits.emit_vbr(*target as u64, 6);
                    }
                    Init::Reloc { target, addend } => {
                        self.abbrev_id(ab::GV_RELOC_ADDEND, W_GLOBALVAR);
                        self.w.bits.emit_vbr(*target as u64, 6);
                        self.w.bits.emit_vbr(*addend as u32 as u64, 6);
                    }
                }
            }
        }
        self.w.exit_block();
        Ok(())
    }

    fn symtab(&mut self) {
        let m = self.m;
        if m.symbol_order.is_empty() {
            return;
        }
        let nf = m.functions.len() as u32;
        self.w.enter_block(block::VALUE_SYMTAB, W_VST);
        for &id in &m.symbol_order {
            let name: &[u8] = if id < nf {
                m.functions[id as usize].name.as_deref().unwrap_or(&[])
            } else {
                m.globals
                    .get((id - nf) as usize)
                    .and_then(|g| g.name.as_deref())
                    .unwrap_or(&[])
            };
            let char6 = name.iter().all(|&c| encode_char6(c).is_some());
            let seven = name.iter().all(|&c| c < 0x80);
            let (abbrev, width) = if char6 {
                (ab::VST_ENTRY6, 6)
            } else if seven {
                (ab::VST_ENTRY7, 7)
            } else {
                (ab::VST_ENTRY8, 8)
            };
            self.abbrev_id(abbrev, W_VST);
            if abbrev == ab::VST_ENTRY8 {
                self.w.bits.emit(vst::ENTRY as u64, 3);
            }
            self.w.bits.emit_vbr(id as u64, 8);
            self.w.bits.emit_vbr(name.len() as u64, 6);
            for &c in name {
                if char6 {
                    self.w.bits.emit(encode_char6(c).unwrap(), 6);
                } else {
                    self.w.bits.emit(c as u64, width);
                }
            }
        }
        self.w.exit_block();
    }

    fn function(&mut self, f: u32, body: &Body) -> Result<()> {
        let m = self.m;
        let ng = m.num_global_values();
        let np = m.fn_type(f).params.len() as u32;
        self.w.enter_block(block::FUNCTION, W_FUNCTION);
        if body.num_blocks == 0 {
            // An empty function block (no DECLAREBLOCKS), which the reader accepts as
            // bad/fuzzed3.pexe has one: written back as it was.
            self.w.exit_block();
            return Ok(());
        }
        self.w
            .emit_unabbrev(fc::DECLAREBLOCKS, &[body.num_blocks as u64]);
        if !body.consts.is_empty() {
            self.w.enter_block(block::CONSTANTS, W_CONSTANTS);
            let mut last: Option<ValueType> = None;
            for c in body.consts {
                if last != Some(c.ty) {
                    let t = self.type_id(c.ty)?;
                    self.abbrev_id(ab::CST_SETTYPE, W_CONSTANTS);
                    self.ty.emit(&mut self.w.bits, t);
                    last = Some(c.ty);
                }
                match c.value {
                    ConstValue::Undef => self.w.emit_unabbrev(cc::UNDEF, &[]),
                    ConstValue::Int(_) => {
                        let v = c.as_signed().unwrap();
                        if v == 0 {
                            self.abbrev_id(ab::CST_INTEGER_ZERO, W_CONSTANTS);
                        } else {
                            self.abbrev_id(ab::CST_INTEGER, W_CONSTANTS);
                            self.w.bits.emit_vbr(encode_signrot(v), 8);
                        }
                    }
                    ConstValue::Float(bits) => {
                        self.abbrev_id(ab::CST_FLOAT, W_CONSTANTS);
                        self.w.bits.emit_vbr(bits, 8);
                    }
                }
            }
            self.w.exit_block();
        }
        let mut fw = FnWriter {
            inst_id: ng + np + body.consts.len() as u32,
            declared: std::collections::HashSet::new(),
            ng,
        };
        for inst in body.insts {
            self.inst(&mut fw, body, inst)?;
            if !inst.ty.is_void() {
                fw.inst_id += 1;
            }
        }
        self.w.exit_block();
        Ok(())
    }

    /// FORWARDTYPEREF for operand `v` if it is a value not yet defined nor declared.
    fn forward(&mut self, fw: &mut FnWriter, body: &Body, v: ValueId) -> Result<()> {
        if v < fw.inst_id {
            return Ok(());
        }
        if fw.declared.contains(&v) {
            return Ok(());
        }
        let t = body
            .local_types
            .get((v - fw.ng) as usize)
            .copied()
            .ok_or_else(|| err(format!("value {v} is used but never defined")))?;
        let t = self.type_id(t)?;
        fw.declared.insert(v);
        self.abbrev_id(ab::FN_FORWARDTYPEREF, W_FUNCTION);
        self.w.bits.emit_vbr(v as u64, 6);
        self.ty.emit(&mut self.w.bits, t);
        Ok(())
    }

    fn inst(&mut self, fw: &mut FnWriter, body: &Body, inst: &crate::ir::Inst) -> Result<()> {
        let rel = |fw: &FnWriter, v: ValueId| fw.inst_id.wrapping_sub(v) as u64;
        match inst.kind {
            InstKind::Binop { op, lhs, rhs } => {
                self.forward(fw, body, lhs)?;
                self.forward(fw, body, rhs)?;
                self.abbrev_id(ab::FN_BINOP, W_FUNCTION);
                self.w.bits.emit_vbr(rel(fw, lhs), 6);
                self.w.bits.emit_vbr(rel(fw, rhs), 6);
                self.w.bits.emit(op.code(), 4);
            }
            InstKind::Cast { op, val } => {
                self.forward(fw, body, val)?;
                let t = self.type_id(inst.ty)?;
                self.abbrev_id(ab::FN_CAST, W_FUNCTION);
                self.w.bits.emit_vbr(rel(fw, val), 6);
                self.ty.emit(&mut self.w.bits, t);
                self.w.bits.emit(op.code(), 4);
            }
            InstKind::Ret { val: None } => self.abbrev_id(ab::FN_RET_VOID, W_FUNCTION),
            InstKind::Ret { val: Some(v) } => {
                self.forward(fw, body, v)?;
                self.abbrev_id(ab::FN_RET_VAL, W_FUNCTION);
                self.w.bits.emit_vbr(rel(fw, v), 6);
            }
            InstKind::Br { target } => self.w.emit_unabbrev(fc::BR, &[target as u64]),
            InstKind::CondBr { cond, t, f } => {
                self.forward(fw, body, cond)?;
                let r = rel(fw, cond);
                self.w.emit_unabbrev(fc::BR, &[t as u64, f as u64, r]);
            }
            InstKind::Switch {
                cond,
                default,
                cases,
            } => {
                self.forward(fw, body, cond)?;
                let cty = self.m.value_type_in(body, cond).unwrap_or(ValueType::I32);
                let t = self.type_id(cty)?;
                // The condition is relative in 64-bit arithmetic (writer.md §5.7).
                let r = (fw.inst_id as u64).wrapping_sub(cond as u64);
                let cs = body.switch_cases(cases);
                self.ops.clear();
                self.ops.extend([t, r, default as u64, cs.len() as u64]);
                for c in cs {
                    self.ops
                        .extend([1, 1, encode_signrot(c.value), c.target as u64]);
                }
                let ops = std::mem::take(&mut self.ops);
                self.w.emit_unabbrev(fc::SWITCH, &ops);
                self.ops = ops;
            }
            InstKind::Unreachable => self.abbrev_id(ab::FN_UNREACHABLE, W_FUNCTION),
            InstKind::Phi { incoming } => {
                let pairs = body.phi_pairs(incoming);
                for p in pairs.chunks(2) {
                    self.forward(fw, body, p[0])?;
                }
                let t = self.type_id(inst.ty)?;
                self.ops.clear();
                self.ops.push(t);
                for p in pairs.chunks(2) {
                    let d = (fw.inst_id as i32).wrapping_sub(p[0] as i32) as i64;
                    self.ops.extend([encode_signrot(d), p[1] as u64]);
                }
                let ops = std::mem::take(&mut self.ops);
                self.w.emit_unabbrev(fc::PHI, &ops);
                self.ops = ops;
            }
            InstKind::Alloca { size, align } => {
                self.forward(fw, body, size)?;
                let r = rel(fw, size);
                self.w.emit_unabbrev(fc::ALLOCA, &[r, align.0 as u64]);
            }
            InstKind::Load { ptr, align } => {
                self.forward(fw, body, ptr)?;
                let t = self.type_id(inst.ty)?;
                self.abbrev_id(ab::FN_LOAD, W_FUNCTION);
                self.w.bits.emit_vbr(rel(fw, ptr), 6);
                self.w.bits.emit_vbr(align.0 as u64, 4);
                self.w.bits.emit_vbr(t, 4);
            }
            InstKind::Store { ptr, val, align } => {
                self.forward(fw, body, ptr)?;
                self.forward(fw, body, val)?;
                self.abbrev_id(ab::FN_STORE, W_FUNCTION);
                self.w.bits.emit_vbr(rel(fw, ptr), 6);
                self.w.bits.emit_vbr(rel(fw, val), 6);
                self.w.bits.emit_vbr(align.0 as u64, 4);
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                self.forward(fw, body, lhs)?;
                self.forward(fw, body, rhs)?;
                let ops = [rel(fw, lhs), rel(fw, rhs), pred.0 as u64];
                self.w.emit_unabbrev(fc::CMP2, &ops);
            }
            InstKind::Select { cond, t, f } => {
                self.forward(fw, body, t)?;
                self.forward(fw, body, f)?;
                self.forward(fw, body, cond)?;
                let ops = [rel(fw, t), rel(fw, f), rel(fw, cond)];
                self.w.emit_unabbrev(fc::VSELECT, &ops);
            }
            InstKind::ExtractElement { vec, idx } => {
                self.forward(fw, body, vec)?;
                self.forward(fw, body, idx)?;
                let ops = [rel(fw, vec), rel(fw, idx)];
                self.w.emit_unabbrev(fc::EXTRACTELT, &ops);
            }
            InstKind::InsertElement { vec, elt, idx } => {
                self.forward(fw, body, vec)?;
                self.forward(fw, body, elt)?;
                self.forward(fw, body, idx)?;
                let ops = [rel(fw, vec), rel(fw, elt), rel(fw, idx)];
                self.w.emit_unabbrev(fc::INSERTELT, &ops);
            }
            InstKind::Call {
                callee,
                args,
                tail,
                indirect,
            } => {
                self.forward(fw, body, callee)?;
                for &a in body.span(args) {
                    self.forward(fw, body, a)?;
                }
                self.ops.clear();
                self.ops.push(tail as u64);
                self.ops.push(rel(fw, callee));
                if indirect {
                    let t = self.type_id(inst.ty)?;
                    self.ops.push(t);
                }
                for &a in body.span(args) {
                    self.ops.push(rel(fw, a));
                }
                let code = if indirect {
                    fc::CALL_INDIRECT
                } else {
                    fc::CALL
                };
                let ops = std::mem::take(&mut self.ops);
                self.w.emit_unabbrev(code, &ops);
                self.ops = ops;
            }
        }
        Ok(())
    }
}

struct FnWriter {
    /// The id the current instruction's value gets (writer.md §5.5).
    inst_id: u32,
    /// Values declared by FORWARDTYPEREF in this function.
    declared: std::collections::HashSet<ValueId>,
    ng: u32,
}
