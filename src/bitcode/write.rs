//! The model → pexe writer: the records, abbreviations, block order and widths of Google's
//! pnacl-freeze (writer.md §1–§8), so that a model read from a pnacl-freeze pexe is written
//! back bit for bit.
//!
//! The model fixes every numbering (types, values, constants, symbol-table order); the
//! writer only encodes. The orders pnacl-freeze derived from an LLVM module (type frequency,
//! constant sort, StringMap order) are `llvm::import`'s business.

use std::collections::HashMap;

use super::codes::{block, types as tc};
use super::encode_signrot;
use super::header;
use super::records::{self as rec, Record};
use crate::bitstream::{encode_char6, Abbrev, AbbrevOp, Writer};
use crate::ir::{Body, ConstValue, Init, InstKind, Module, Type, TypeId, ValueId, ValueType};

/// Block widths (writer.md §3).
const W_MODULE: u32 = 2;
const W_BLOCKINFO: u32 = 2;
const W_TYPE: u32 = 3;
const W_GLOBALVAR: u32 = 4;
const W_VST: u32 = 3;
const W_CONSTANTS: u32 = 3;
const W_FUNCTION: u32 = 4;

/// Abbreviation ids (writer.md §4): the k-th abbreviation of a block is id 4 + k, and
/// `blockinfo_abbrevs` asserts each one where it defines it.
mod ab {
    pub const VST_ENTRY8: u32 = 4;
    pub const VST_ENTRY7: u32 = 5;
    pub const VST_ENTRY6: u32 = 6;
    pub const VST_BBENTRY6: u32 = 7;
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
    /// Defined in the types block itself.
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
    let mut out: Vec<(u32, Vec<Abbrev>)> = Vec::new();
    // Each abbreviation with the id the writer emits it by, asserted (as LLVM's writer
    // asserts its own): a table out of order fails here, not in a file.
    let mut def = |block: u32, id: u32, ops: Vec<AbbrevOp>| {
        if out.last().is_none_or(|(b, _)| *b != block) {
            out.push((block, Vec::new()));
        }
        let list = &mut out.last_mut().unwrap().1;
        let next = 4 + list.len() as u32;
        assert_eq!(next, id, "abbreviation {id} of block {block}");
        list.push(Abbrev::new(ops));
    };
    let v = block::VALUE_SYMTAB;
    def(v, ab::VST_ENTRY8, vec![Fixed(3), Vbr(8), Array, Fixed(8)]);
    def(v, ab::VST_ENTRY7, vec![Literal(1), Vbr(8), Array, Fixed(7)]);
    def(v, ab::VST_ENTRY6, vec![Literal(1), Vbr(8), Array, Char6]);
    def(v, ab::VST_BBENTRY6, vec![Literal(2), Vbr(8), Array, Char6]);
    let c = block::CONSTANTS;
    def(c, ab::CST_SETTYPE, vec![Literal(1), ty]);
    def(c, ab::CST_INTEGER, vec![Literal(4), Vbr(8)]);
    def(c, ab::CST_INTEGER_ZERO, vec![Literal(4), Literal(0)]);
    def(c, ab::CST_FLOAT, vec![Literal(6), Vbr(8)]);
    let f = block::FUNCTION;
    def(f, ab::FN_LOAD, vec![Literal(20), Vbr(6), Vbr(4), Vbr(4)]);
    def(f, ab::FN_BINOP, vec![Literal(2), Vbr(6), Vbr(6), Fixed(4)]);
    def(f, ab::FN_CAST, vec![Literal(3), Vbr(6), ty, Fixed(4)]);
    def(f, ab::FN_RET_VOID, vec![Literal(10)]);
    def(f, ab::FN_RET_VAL, vec![Literal(10), Vbr(6)]);
    def(f, ab::FN_UNREACHABLE, vec![Literal(15)]);
    def(f, ab::FN_FORWARDTYPEREF, vec![Literal(43), Vbr(6), ty]);
    def(f, ab::FN_STORE, vec![Literal(24), Vbr(6), Vbr(6), Vbr(4)]);
    let g = block::GLOBALVAR;
    def(g, ab::GV_VAR, vec![Literal(0), Vbr(6), Fixed(1)]);
    def(g, ab::GV_COMPOUND, vec![Literal(1), Vbr(8)]);
    def(g, ab::GV_ZEROFILL, vec![Literal(2), Vbr(8)]);
    def(g, ab::GV_DATA, vec![Literal(3), Array, Fixed(8)]);
    def(g, ab::GV_RELOC, vec![Literal(4), Vbr(6)]);
    def(g, ab::GV_RELOC_ADDEND, vec![Literal(4), Vbr(6), Vbr(6)]);
    out
}

/// What the writer cannot write: a model no reader could have built (a value used but
/// never defined, a type missing from the table, a named value with no name, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteError(String);

impl WriteError {
    pub fn msg(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WriteError {}

type Result<T> = std::result::Result<T, WriteError>;

fn err(msg: impl Into<String>) -> WriteError {
    WriteError(msg.into())
}

struct State<'m> {
    m: &'m Module,
    out: Out,
    /// Type id of each value type.
    value_type_id: HashMap<ValueType, TypeId>,
    /// The list a record ends with, reused.
    list: Vec<u64>,
}

/// The bitstream, and a record's operands (reused).
struct Out {
    w: Writer,
    ops: Vec<u64>,
}

impl Out {
    /// Writes record `r` with abbreviation `abbrev` (3: unabbreviated), through the
    /// bitstream writer's check that the abbreviation encodes it.
    fn emit<R: Record>(&mut self, abbrev: u32, r: &R) -> Result<()> {
        self.ops.clear();
        r.encode(&mut self.ops);
        self.w.emit_record(abbrev, R::CODE, &self.ops).map_err(err)
    }
}

/// Writes `m` as a pexe, exactly as pnacl-freeze writes the same module.
pub fn write(m: &Module) -> Result<Vec<u8>> {
    let mut value_type_id = HashMap::new();
    for (i, t) in m.types.iter().enumerate() {
        if let Type::Value(v) = t {
            value_type_id.entry(*v).or_insert(i as TypeId);
        }
    }
    let mut s = State {
        m,
        out: Out {
            w: Writer::with_prefix(&header::encode()),
            ops: Vec::new(),
        },
        value_type_id,
        list: Vec::new(),
    };
    s.module()?;
    Ok(s.out.w.into_bytes())
}

impl State<'_> {
    fn type_id(&self, v: ValueType) -> Result<u64> {
        self.value_type_id
            .get(&v)
            .map(|&t| t as u64)
            .ok_or_else(|| err(format!("type {v} is used but not in the type table")))
    }

    fn module(&mut self) -> Result<()> {
        let m = self.m;
        self.out.w.enter_block(block::MODULE, W_MODULE);
        self.out.emit(UNABBREV, &rec::Version { version: &[1] })?;
        self.blockinfo();
        self.types()?;
        for f in &m.functions {
            let r = rec::FunctionAddr {
                ty: f.ty as u64,
                cc: f.cc as u64,
                isproto: u64::from(!f.is_defined),
                linkage: f.linkage.code(),
            };
            self.out.emit(UNABBREV, &r)?;
        }
        self.globals()?;
        self.symtab()?;
        for (i, f) in m.functions.iter().enumerate() {
            if let Some(loc) = &f.body {
                self.function(i as u32, &m.code.body(loc))
                    .map_err(|e| err(format!("function @f{i}: {e}")))?;
            }
        }
        self.out.w.exit_block();
        Ok(())
    }

    fn blockinfo(&mut self) {
        self.out
            .w
            .enter_block(crate::bitstream::BLOCKINFO_BLOCK_ID, W_BLOCKINFO);
        for (bid, abbrevs) in blockinfo_abbrevs(self.m.types.len()) {
            self.out.w.set_bid(bid);
            for a in &abbrevs {
                self.out.w.define_abbrev(a);
            }
        }
        self.out.w.exit_block();
    }

    fn types(&mut self) -> Result<()> {
        let m = self.m;
        self.out.w.enter_block(block::TYPE, W_TYPE);
        self.out.w.define_abbrev(&Abbrev::new(vec![
            AbbrevOp::Literal(tc::FUNCTION as u64),
            AbbrevOp::Fixed(1),
            AbbrevOp::Array,
            ty_op(m.types.len()),
        ]));
        let n = m.types.len() as u64;
        self.out.emit(UNABBREV, &rec::TypeCount { n })?;
        for t in &m.types {
            match t {
                Type::Value(ValueType::Void) => self.out.emit(UNABBREV, &rec::VoidType {})?,
                Type::Value(ValueType::Float) => self.out.emit(UNABBREV, &rec::FloatType {})?,
                Type::Value(ValueType::Double) => self.out.emit(UNABBREV, &rec::DoubleType {})?,
                Type::Value(v) if v.is_int() => {
                    let width = v.bits() as u64;
                    self.out.emit(UNABBREV, &rec::IntegerType { width })?
                }
                Type::Value(v) => {
                    let elt = self.type_id(v.elem())?;
                    let n = v.count() as u64;
                    self.out.emit(UNABBREV, &rec::VectorType { n, elt })?;
                }
                Type::Function(f) => {
                    self.list.clear();
                    for &p in &f.params {
                        let p = self.type_id(p)?;
                        self.list.push(p);
                    }
                    let ret = self.type_id(f.ret)?;
                    let vararg = u64::from(f.vararg);
                    let params = &self.list;
                    let r = rec::FunctionType {
                        vararg,
                        ret,
                        params,
                    };
                    self.out.emit(ab::TYPE_FUNCTION, &r)?;
                }
            }
        }
        self.out.w.exit_block();
        Ok(())
    }

    fn globals(&mut self) -> Result<()> {
        let m = self.m;
        self.out.w.enter_block(block::GLOBALVAR, W_GLOBALVAR);
        let n = m.globals.len() as u64;
        self.out.emit(UNABBREV, &rec::GlobalCount { n })?;
        for g in &m.globals {
            let r = rec::GlobalVar {
                align: g.align.0 as u64,
                is_const: g.is_const as u64,
            };
            self.out.emit(ab::GV_VAR, &r)?;
            if g.compound || g.inits.len() != 1 {
                let n = g.inits.len() as u64;
                self.out.emit(ab::GV_COMPOUND, &rec::Compound { n })?;
            }
            for init in &g.inits {
                match init {
                    Init::Zero(n) => self.out.emit(ab::GV_ZEROFILL, &rec::ZeroFill { n: *n })?,
                    Init::Data(bytes) => {
                        self.list.clear();
                        self.list.extend(bytes.iter().map(|&b| b as u64));
                        self.out
                            .emit(ab::GV_DATA, &rec::Data { bytes: &self.list })?;
                    }
                    Init::Reloc { target, addend } => {
                        let (abbrev, addend) = match *addend {
                            0 => (ab::GV_RELOC, &[][..]),
                            a => (ab::GV_RELOC_ADDEND, &[a as u32 as u64][..]),
                        };
                        let target = *target as u64;
                        self.out.emit(abbrev, &rec::Reloc { target, addend })?;
                    }
                }
            }
        }
        self.out.w.exit_block();
        Ok(())
    }

    fn symtab(&mut self) -> Result<()> {
        let m = self.m;
        if m.symbol_order.is_empty() {
            return Ok(());
        }
        let nf = m.functions.len() as u32;
        self.out.w.enter_block(block::VALUE_SYMTAB, W_VST);
        for &id in &m.symbol_order {
            let name = if id < nf {
                m.functions.get(id as usize).and_then(|f| f.name.as_deref())
            } else {
                m.globals
                    .get((id - nf) as usize)
                    .and_then(|g| g.name.as_deref())
            };
            let name = name.ok_or_else(|| {
                err(format!(
                    "value {id} is in the symbol table's order but has no name"
                ))
            })?;
            // The narrowest of the three encodings that holds every character.
            let abbrev = if name.iter().all(|&c| encode_char6(c).is_some()) {
                ab::VST_ENTRY6
            } else if name.iter().all(|&c| c < 0x80) {
                ab::VST_ENTRY7
            } else {
                ab::VST_ENTRY8
            };
            self.list.clear();
            self.list.extend(name.iter().map(|&c| c as u64));
            let id = id as u64;
            self.out.emit(
                abbrev,
                &rec::Entry {
                    id,
                    name: &self.list,
                },
            )?;
        }
        self.out.w.exit_block();
        Ok(())
    }

    fn function(&mut self, f: u32, body: &Body) -> Result<()> {
        let m = self.m;
        let ng = m.num_global_values();
        let np = m.fn_type(f).params.len() as u32;
        self.out.w.enter_block(block::FUNCTION, W_FUNCTION);
        if body.num_blocks == 0 {
            // An empty function block (no DECLAREBLOCKS), which the reader accepts as
            // bad/fuzzed3.pexe has one: written back as it was.
            self.out.w.exit_block();
            return Ok(());
        }
        let n = body.num_blocks as u64;
        self.out.emit(UNABBREV, &rec::DeclareBlocks { n })?;
        if !body.consts.is_empty() {
            self.out.w.enter_block(block::CONSTANTS, W_CONSTANTS);
            let mut last: Option<ValueType> = None;
            for c in body.consts {
                if last != Some(c.ty) {
                    let ty = self.type_id(c.ty)?;
                    self.out.emit(ab::CST_SETTYPE, &rec::SetType { ty })?;
                    last = Some(c.ty);
                }
                match c.value {
                    ConstValue::Undef => self.out.emit(UNABBREV, &rec::Undef {})?,
                    ConstValue::Int(_) => {
                        let value = encode_signrot(c.as_signed().unwrap());
                        let abbrev = match value {
                            0 => ab::CST_INTEGER_ZERO,
                            _ => ab::CST_INTEGER,
                        };
                        self.out.emit(abbrev, &rec::Integer { value })?;
                    }
                    ConstValue::Float(bits) => {
                        self.out.emit(ab::CST_FLOAT, &rec::Float { bits })?
                    }
                }
            }
            self.out.w.exit_block();
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
        self.out.w.exit_block();
        Ok(())
    }

    /// FORWARDTYPEREF for each operand in `vs` that is a value not yet defined nor
    /// declared.
    fn forward(&mut self, fw: &mut FnWriter, body: &Body, vs: &[ValueId]) -> Result<()> {
        for &v in vs {
            if v < fw.inst_id || !fw.declared.insert(v) {
                continue;
            }
            let t = body
                .local_types
                .get((v - fw.ng) as usize)
                .copied()
                .ok_or_else(|| err(format!("value {v} is used but never defined")))?;
            let ty = self.type_id(t)?;
            let id = v as u64;
            self.out
                .emit(ab::FN_FORWARDTYPEREF, &rec::ForwardTypeRef { id, ty })?;
        }
        Ok(())
    }

    fn inst(&mut self, fw: &mut FnWriter, body: &Body, inst: &crate::ir::Inst) -> Result<()> {
        let id = fw.inst_id;
        let rel = |v: ValueId| id.wrapping_sub(v) as u64;
        match inst.kind {
            InstKind::Binop { op, lhs, rhs } => {
                self.forward(fw, body, &[lhs, rhs])?;
                let (a, b, opcode) = (rel(lhs), rel(rhs), op.code());
                self.out.emit(ab::FN_BINOP, &rec::Binop { a, b, opcode })
            }
            InstKind::Cast { op, val } => {
                self.forward(fw, body, &[val])?;
                let ty = self.type_id(inst.ty)?;
                let (value, opcode) = (rel(val), op.code());
                self.out.emit(ab::FN_CAST, &rec::Cast { value, ty, opcode })
            }
            InstKind::Ret { val: None } => self.out.emit(ab::FN_RET_VOID, &rec::Ret { value: &[] }),
            InstKind::Ret { val: Some(v) } => {
                self.forward(fw, body, &[v])?;
                self.out
                    .emit(ab::FN_RET_VAL, &rec::Ret { value: &[rel(v)] })
            }
            InstKind::Br { target } => {
                let target = target as u64;
                self.out.emit(UNABBREV, &rec::Br { target, rest: &[] })
            }
            InstKind::CondBr { cond, t, f } => {
                self.forward(fw, body, &[cond])?;
                let (target, rest) = (t as u64, &[f as u64, rel(cond)][..]);
                self.out.emit(UNABBREV, &rec::Br { target, rest })
            }
            InstKind::Switch {
                cond,
                default,
                cases,
            } => {
                self.forward(fw, body, &[cond])?;
                let cty = self
                    .m
                    .value_type_in(body, cond)
                    .ok_or_else(|| err(format!("the switch's condition {cond} has no type")))?;
                let cs = body.switch_cases(cases);
                self.list.clear();
                for c in cs {
                    self.list
                        .extend([1, 1, encode_signrot(c.value), c.target as u64]);
                }
                let r = rec::Switch {
                    ty: self.type_id(cty)?,
                    // Relative in 64-bit arithmetic (writer.md §5.7).
                    cond: (id as u64).wrapping_sub(cond as u64),
                    default: default as u64,
                    n: cs.len() as u64,
                    cases: &self.list,
                };
                self.out.emit(UNABBREV, &r)
            }
            InstKind::Unreachable => self.out.emit(ab::FN_UNREACHABLE, &rec::Unreachable {}),
            InstKind::Phi { incoming } => {
                let pairs = body.phi_pairs(incoming);
                for p in pairs.chunks(2) {
                    self.forward(fw, body, &p[..1])?;
                }
                let ty = self.type_id(inst.ty)?;
                self.list.clear();
                for p in pairs.chunks(2) {
                    let d = (id as i32).wrapping_sub(p[0] as i32) as i64;
                    self.list.extend([encode_signrot(d), p[1] as u64]);
                }
                let pairs = &self.list;
                self.out.emit(UNABBREV, &rec::Phi { ty, pairs })
            }
            InstKind::Alloca { size, align } => {
                self.forward(fw, body, &[size])?;
                let (size, align) = (rel(size), align.0 as u64);
                self.out.emit(UNABBREV, &rec::Alloca { size, align })
            }
            InstKind::Load { ptr, align } => {
                self.forward(fw, body, &[ptr])?;
                let ty = self.type_id(inst.ty)?;
                let (ptr, align) = (rel(ptr), align.0 as u64);
                self.out.emit(ab::FN_LOAD, &rec::Load { ptr, align, ty })
            }
            InstKind::Store { ptr, val, align } => {
                self.forward(fw, body, &[ptr, val])?;
                let (ptr, value, align) = (rel(ptr), rel(val), align.0 as u64);
                self.out
                    .emit(ab::FN_STORE, &rec::Store { ptr, value, align })
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                self.forward(fw, body, &[lhs, rhs])?;
                let (a, b, predicate) = (rel(lhs), rel(rhs), pred.0 as u64);
                self.out.emit(UNABBREV, &rec::Cmp2 { a, b, predicate })
            }
            InstKind::Select { cond, t, f } => {
                self.forward(fw, body, &[t, f, cond])?;
                let (t, f, cond) = (rel(t), rel(f), rel(cond));
                self.out.emit(UNABBREV, &rec::VSelect { t, f, cond })
            }
            InstKind::ExtractElement { vec, idx } => {
                self.forward(fw, body, &[vec, idx])?;
                let (vector, index) = (rel(vec), rel(idx));
                self.out.emit(UNABBREV, &rec::ExtractElt { vector, index })
            }
            InstKind::InsertElement { vec, elt, idx } => {
                self.forward(fw, body, &[vec, elt, idx])?;
                let (vector, element, index) = (rel(vec), rel(elt), rel(idx));
                self.out.emit(
                    UNABBREV,
                    &rec::InsertElt {
                        vector,
                        element,
                        index,
                    },
                )
            }
            InstKind::Call {
                callee,
                args,
                tail,
                indirect,
            } => {
                let args = body.span(args);
                self.forward(fw, body, &[callee])?;
                self.forward(fw, body, args)?;
                self.list.clear();
                self.list.extend(args.iter().map(|&a| rel(a)));
                let (cc_tail, callee) = (tail as u64, rel(callee));
                if indirect {
                    let ret = self.type_id(inst.ty)?;
                    let args = &self.list;
                    let r = rec::CallIndirect {
                        cc_tail,
                        callee,
                        ret,
                        args,
                    };
                    self.out.emit(UNABBREV, &r)
                } else {
                    let args = &self.list;
                    self.out.emit(
                        UNABBREV,
                        &rec::Call {
                            cc_tail,
                            callee,
                            args,
                        },
                    )
                }
            }
        }
    }
}

/// Unabbreviated records' abbreviation id.
const UNABBREV: u32 = crate::bitstream::UNABBREV_RECORD;

struct FnWriter {
    /// The id the current instruction's value gets (writer.md §5.5).
    inst_id: u32,
    /// Values declared by FORWARDTYPEREF in this function.
    declared: std::collections::HashSet<ValueId>,
    ng: u32,
}
