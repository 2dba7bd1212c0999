//! The PNaCl module model: the one representation every tool reads or writes.
//!
//! Value ids are the absolute indices of spec/000 ("AbsoluteIndex"): function addresses
//! `0..NF`, global addresses `NF..NF+NG`, then, inside a function body, its parameters,
//! its constants and its value-producing instructions. Basic blocks have their own index
//! space. Every body's instructions, constants, operand lists (call arguments, phi
//! incoming pairs, switch cases) and the rest live end to end in the module's `Code`, a
//! handful of vectors for the whole module: reading a function allocates nothing, and a
//! body is a view (`Body`) of its part of them.

pub mod asm;
pub mod dom;
pub mod hash;
mod inst;
pub mod intrinsics;
pub mod join;
mod types;

pub use inst::{BinOp, CastOp, Inst, InstKind, Pred, Span, SwitchCase};
pub use types::{Align, FnType, Type, TypeId, ValueType};

/// Absolute value index.
pub type ValueId = u32;
/// Basic-block index within a function.
pub type BlockId = u32;

/// Linkage of a function address (spec/000 "Function Address": 0 external, 3 internal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Linkage {
    External,
    Internal,
}

impl Linkage {
    pub fn code(self) -> u64 {
        match self {
            Linkage::External => 0,
            Linkage::Internal => 3,
        }
    }

    pub fn from_code(c: u64) -> Option<Linkage> {
        match c {
            0 => Some(Linkage::External),
            3 => Some(Linkage::Internal),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Linkage::External => "external",
            Linkage::Internal => "internal",
        }
    }
}

/// A whole pexe.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Module {
    /// The PNaCl bitcode version from the header (always 2).
    pub pnacl_version: u32,
    /// The type table, in file order.
    pub types: Vec<Type>,
    /// Function addresses `@f0..`, in file order.
    pub functions: Vec<Function>,
    /// Global addresses `@g0..`, in file order.
    pub globals: Vec<Global>,
    /// Value ids named by the module symbol table, in the order of its entries.
    pub symbol_order: Vec<ValueId>,
    /// Every function body's vectors, end to end (`Function::body` says where each is).
    pub code: Code,
}

/// A function address: a declaration or a definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    /// Index of its function type in `Module::types`.
    pub ty: TypeId,
    /// Calling convention (always 0, C).
    pub cc: u32,
    pub linkage: Linkage,
    /// Name from the module symbol table, if any (bytes, not necessarily UTF-8).
    pub name: Option<Box<[u8]>>,
    /// Where the body is in `Module::code`, for defined functions (`define`); `None` for
    /// `declare`. `Module::body` gives the body itself.
    pub body: Option<BodyLoc>,
    /// Whether the function record says it is a definition.
    pub is_defined: bool,
    /// Bit position of the function record, when read from a file.
    pub pos: u64,
}

/// A global variable or constant address.
#[derive(Debug, Clone, PartialEq)]
pub struct Global {
    pub align: Align,
    pub is_const: bool,
    /// The initializers; more than one (or `compound`) means a compound initializer.
    pub inits: Vec<Init>,
    /// Whether a COMPOUND record introduced the initializers (even a single one).
    pub compound: bool,
    pub name: Option<Box<[u8]>>,
    pub pos: u64,
}

impl Global {
    /// Size in bytes of the memory the initializers define.
    pub fn size(&self) -> u64 {
        self.inits.iter().map(Init::size).sum()
    }
}

/// A simple initializer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Init {
    /// `zerofill N`.
    Zero(u64),
    /// `{ b1, …, bN }`.
    Data(Box<[u8]>),
    /// `reloc V + addend`: a 4-byte address.
    Reloc { target: ValueId, addend: i32 },
}

impl Init {
    pub fn size(&self) -> u64 {
        match self {
            Init::Zero(n) => *n,
            Init::Data(d) => d.len() as u64,
            Init::Reloc { .. } => 4,
        }
    }
}

/// A function-local constant `%cN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Const {
    pub ty: ValueType,
    pub value: ConstValue,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstValue {
    /// An integer, truncated to the type's width and zero-extended to 64 bits.
    Int(u64),
    /// IEEE bits of a float (low 32 bits) or double.
    Float(u64),
    Undef,
}

impl Const {
    /// The integer value sign-extended from the type's width (i1 true is -1).
    pub fn as_signed(&self) -> Option<i64> {
        match self.value {
            ConstValue::Int(v) => {
                let bits = self.ty.bits();
                Some(if bits >= 64 {
                    v as i64
                } else {
                    ((v << (64 - bits)) as i64) >> (64 - bits)
                })
            }
            _ => None,
        }
    }
}

/// The vectors of every function body, end to end: a body is a range of each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Code {
    pub block_starts: Vec<u32>,
    pub consts: Vec<Const>,
    pub insts: Vec<Inst>,
    pub local_types: Vec<ValueType>,
    pub operands: Vec<u32>,
    pub cases: Vec<SwitchCase>,
    pub inst_offsets: Vec<u32>,
}

/// A length of each of `Code`'s vectors: where a body's parts start, or end.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CodeLens {
    pub block_starts: usize,
    pub consts: usize,
    pub insts: usize,
    pub local_types: usize,
    pub operands: usize,
    pub cases: usize,
    pub inst_offsets: usize,
}

/// Where a function body lies in `Module::code`, with what is not in it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BodyLoc {
    /// Number of basic blocks (DECLAREBLOCKS).
    pub num_blocks: u32,
    /// Bit position of the function block, when read from a file.
    pub pos: u64,
    pub start: CodeLens,
    pub end: CodeLens,
}

impl Code {
    /// The lengths of the vectors: where a body appended now starts.
    pub fn lens(&self) -> CodeLens {
        CodeLens {
            block_starts: self.block_starts.len(),
            consts: self.consts.len(),
            insts: self.insts.len(),
            local_types: self.local_types.len(),
            operands: self.operands.len(),
            cases: self.cases.len(),
            inst_offsets: self.inst_offsets.len(),
        }
    }

    /// The body at `loc`.
    pub fn body(&self, loc: &BodyLoc) -> Body<'_> {
        self.between(&loc.start, &loc.end, loc.num_blocks, loc.pos)
    }

    /// The body whose parts run from `start` to `end`.
    pub fn between(&self, start: &CodeLens, end: &CodeLens, num_blocks: u32, pos: u64) -> Body<'_> {
        Body {
            num_blocks,
            block_starts: &self.block_starts[start.block_starts..end.block_starts],
            consts: &self.consts[start.consts..end.consts],
            insts: &self.insts[start.insts..end.insts],
            local_types: &self.local_types[start.local_types..end.local_types],
            operands: &self.operands[start.operands..end.operands],
            cases: &self.cases[start.cases..end.cases],
            inst_offsets: &self.inst_offsets[start.inst_offsets..end.inst_offsets],
            pos,
        }
    }

    /// Appends `b`, returning where it is.
    pub fn push(&mut self, b: &Body<'_>) -> BodyLoc {
        let start = self.lens();
        self.block_starts.extend_from_slice(b.block_starts);
        self.consts.extend_from_slice(b.consts);
        self.insts.extend_from_slice(b.insts);
        self.local_types.extend_from_slice(b.local_types);
        self.operands.extend_from_slice(b.operands);
        self.cases.extend_from_slice(b.cases);
        self.inst_offsets.extend_from_slice(b.inst_offsets);
        BodyLoc {
            num_blocks: b.num_blocks,
            pos: b.pos,
            start,
            end: self.lens(),
        }
    }
}

/// A function body: its part of the module's `Code` (or of a `BodyBuf`). Indices in it
/// (instruction indices, spans, block starts) count from the body's own start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Body<'m> {
    /// Number of basic blocks (DECLAREBLOCKS).
    pub num_blocks: u32,
    /// Index into `insts` of the first instruction of each block.
    pub block_starts: &'m [u32],
    pub consts: &'m [Const],
    pub insts: &'m [Inst],
    /// Types of the local values: parameters, then constants, then `%v` values.
    pub local_types: &'m [ValueType],
    /// Operand arena: call arguments, phi (value, block) pairs.
    pub operands: &'m [u32],
    /// Switch-case arena.
    pub cases: &'m [SwitchCase],
    /// Where each instruction's record is, when read from a file: bits after the function
    /// block's position `pos` (`u32::MAX` for a record more than 4 Gbit into its block,
    /// whose position is not kept). `Body::inst_pos` gives the position itself. (Four
    /// bytes, not eight: the reader writes one for every instruction, and the bytes it
    /// writes are much of its time.)
    pub inst_offsets: &'m [u32],
    /// Bit position of the function block, when read from a file.
    pub pos: u64,
}

impl<'m> Body<'m> {
    /// The bit position of instruction `i`'s record, if the body was read from a file.
    pub fn inst_pos(&self, i: usize) -> Option<u64> {
        match *self.inst_offsets.get(i)? {
            u32::MAX => None,
            d => Some(self.pos + d as u64),
        }
    }

    /// The operands a span refers to.
    pub fn span(&self, s: Span) -> &'m [u32] {
        &self.operands[s.start as usize..(s.start + s.len) as usize]
    }

    /// A phi's (value, block) pairs, end to end (its `incoming` counts pairs).
    pub fn phi_pairs(&self, incoming: Span) -> &'m [u32] {
        self.span(Span::new(incoming.start, incoming.len * 2))
    }

    /// The cases of a switch.
    pub fn switch_cases(&self, s: Span) -> &'m [SwitchCase] {
        &self.cases[s.start as usize..(s.start + s.len) as usize]
    }

    /// Whether `pred` holds for one of `inst`'s value operands, asked in order until it
    /// does (a direct call's callee is not one: it names the function called, it passes
    /// no value; an indirect call's comes before its arguments).
    pub fn any_operand(&self, inst: &Inst, mut pred: impl FnMut(ValueId) -> bool) -> bool {
        match inst.kind {
            InstKind::Binop { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
                pred(lhs) || pred(rhs)
            }
            InstKind::Cast { val: v, .. }
            | InstKind::Ret { val: Some(v) }
            | InstKind::CondBr { cond: v, .. }
            | InstKind::Switch { cond: v, .. }
            | InstKind::Alloca { size: v, .. }
            | InstKind::Load { ptr: v, .. } => pred(v),
            InstKind::Store { ptr, val, .. } => pred(ptr) || pred(val),
            InstKind::Select { cond, t, f } => pred(cond) || pred(t) || pred(f),
            InstKind::ExtractElement { vec, idx } => pred(vec) || pred(idx),
            InstKind::InsertElement { vec, elt, idx } => pred(vec) || pred(elt) || pred(idx),
            InstKind::Call {
                callee,
                args,
                indirect,
                ..
            } => (indirect && pred(callee)) || self.span(args).iter().any(|&a| pred(a)),
            InstKind::Phi { incoming } => {
                self.phi_pairs(incoming).iter().step_by(2).any(|&v| pred(v))
            }
            InstKind::Ret { val: None } | InstKind::Br { .. } | InstKind::Unreachable => false,
        }
    }

    /// Calls `f` with each block block `b`'s terminator may branch to, in its operands'
    /// order (a switch's default first), an edge per target as listed; nothing for a block
    /// that ends otherwise (or has no instruction).
    pub fn each_successor(&self, b: BlockId, mut f: impl FnMut(BlockId)) {
        let r = self.block_range(b);
        let Some(last) = r.end.checked_sub(1).filter(|&i| i >= r.start) else {
            return;
        };
        match self.insts[last].kind {
            InstKind::Br { target } => f(target),
            InstKind::CondBr { t, f: e, .. } => {
                f(t);
                f(e);
            }
            InstKind::Switch { default, cases, .. } => {
                f(default);
                for c in self.switch_cases(cases) {
                    f(c.target);
                }
            }
            _ => {}
        }
    }

    /// Instruction index range of basic block `b`.
    pub fn block_range(&self, b: BlockId) -> std::ops::Range<usize> {
        let start = self.block_starts[b as usize] as usize;
        let end = self
            .block_starts
            .get(b as usize + 1)
            .map_or(self.insts.len(), |&e| e as usize);
        start..end
    }
}

/// A body being built, in a `Code` of its own (`Module::set_body` appends it to the
/// module's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyBuf {
    pub num_blocks: u32,
    pub code: Code,
    pub pos: u64,
}

impl BodyBuf {
    pub fn view(&self) -> Body<'_> {
        self.code.between(
            &CodeLens::default(),
            &self.code.lens(),
            self.num_blocks,
            self.pos,
        )
    }
}

impl Module {
    /// The module without the bit positions the reader records: what remains is what two
    /// files holding the same module have in common.
    pub fn without_positions(mut self) -> Module {
        self.code.inst_offsets.clear();
        for f in &mut self.functions {
            f.pos = 0;
            if let Some(b) = &mut f.body {
                b.pos = 0;
                b.start.inst_offsets = 0;
                b.end.inst_offsets = 0;
            }
        }
        for g in &mut self.globals {
            g.pos = 0;
        }
        self
    }

    /// The body of function `f`, if it is defined.
    pub fn body(&self, f: u32) -> Option<Body<'_>> {
        let loc = self.functions.get(f as usize)?.body.as_ref()?;
        Some(self.code.body(loc))
    }

    /// Makes `b` the body of function `f` (appended to `code`).
    pub fn set_body(&mut self, f: u32, b: &BodyBuf) {
        let loc = self.code.push(&b.view());
        self.functions[f as usize].body = Some(loc);
    }

    /// Number of module-level values (function and global addresses).
    pub fn num_global_values(&self) -> u32 {
        (self.functions.len() + self.globals.len()) as u32
    }

    /// The signature of function `f`.
    pub fn fn_type(&self, f: u32) -> &FnType {
        self.types[self.functions[f as usize].ty as usize]
            .as_fn()
            .expect("function address with a non-function type")
    }

    /// The type of value `id` inside function `f`.
    pub fn value_type(&self, f: u32, id: ValueId) -> Option<ValueType> {
        let ng = self.num_global_values();
        if id < ng {
            return Some(ValueType::I32);
        }
        let body = self.body(f)?;
        body.local_types.get((id - ng) as usize).copied()
    }

    /// The type of value `id` inside `body` (the body need not be in the module yet).
    pub fn value_type_in(&self, body: &Body<'_>, id: ValueId) -> Option<ValueType> {
        let ng = self.num_global_values();
        if id < ng {
            return Some(ValueType::I32);
        }
        body.local_types.get((id - ng) as usize).copied()
    }

    /// The constant of function `f`'s `body` that value `id` names, if it names one.
    pub fn const_in<'b>(&self, f: u32, body: &Body<'b>, id: ValueId) -> Option<&'b Const> {
        let first = self.num_global_values() as usize + self.fn_type(f).params.len();
        body.consts.get((id as usize).checked_sub(first)?)
    }

    /// The name of function or global `id` as text (lossy for non-UTF-8 names).
    pub fn global_name(&self, id: ValueId) -> Option<String> {
        let nf = self.functions.len() as u32;
        let name = if id < nf {
            self.functions.get(id as usize)?.name.as_ref()
        } else {
            self.globals.get((id - nf) as usize)?.name.as_ref()
        };
        name.map(|n| String::from_utf8_lossy(n).into_owned())
    }

    /// Index of the function named `name`.
    pub fn function_named(&self, name: &str) -> Option<u32> {
        self.functions
            .iter()
            .position(|f| f.name.as_deref() == Some(name.as_bytes()))
            .map(|i| i as u32)
    }

    /// Total number of basic blocks and instructions over all bodies.
    pub fn counts(&self) -> ModuleCounts {
        let mut c = ModuleCounts {
            types: self.types.len(),
            functions: self.functions.len(),
            defined: 0,
            globals: self.globals.len(),
            blocks: 0,
            insts: 0,
            consts: 0,
        };
        for f in &self.functions {
            if let Some(loc) = &f.body {
                let b = self.code.body(loc);
                c.defined += 1;
                c.blocks += b.num_blocks as usize;
                c.insts += b.insts.len();
                c.consts += b.consts.len();
            }
        }
        c
    }
}

/// Sizes of a module, for tests and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ModuleCounts {
    pub types: usize,
    pub functions: usize,
    pub defined: usize,
    pub globals: usize,
    pub blocks: usize,
    pub insts: usize,
    pub consts: usize,
}
