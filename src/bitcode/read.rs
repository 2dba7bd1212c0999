//! Records → `ir::Module`, enforcing every **Constraints** clause of spec/000.
//!
//! `Parser` is the one semantic step per record: `bitcode::read` drives it to build a
//! module and stops at the first error; pnacl-bcdis drives the very same step over the very
//! same item stream, prints each record with what the step made of it, and goes on after
//! errors. Every handler checks before it changes anything, so a rejected record leaves the
//! parser as it was.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

use super::codes::{
    block, constants as cst, function as fc, globals as gv, module as mc, types as tc, vst,
};
use super::header::{self, Header};
use super::records::{self as rec, Msg};
use crate::bitstream::{Item, Pext, Reader, SoftPext};
use crate::error::{Error, Result};
use crate::ir::{
    Align, BinOp, Body, BodyLoc, CastOp, Code, CodeLens, Const, ConstValue, FnType, Function,
    Global, Init, Inst, InstKind, Linkage, Module, Pred, Span, SwitchCase, Type, TypeId, ValueId,
    ValueType,
};

/// Reads a whole pexe into a module, checking everything spec/000 constrains.
pub fn read(data: &[u8]) -> Result<Module> {
    read_with_plans(data, Reader::plans_pay_for(data))
}

/// `read` with the abbreviations compiled into decoding plans (`true`) or each record
/// decoded from its abbreviation's compact form, whatever the file's size (`read`
/// compiles them where `Reader::plans_pay_for` the file). The same module or the same
/// error either way (tests/mutate.rs holds them to it).
pub fn read_with_plans(data: &[u8], planned: bool) -> Result<Module> {
    let (reader, parser) = start(data, planned)?;
    #[cfg(target_arch = "x86_64")]
    if let Some(bmi2) = crate::bitstream::Bmi2::detect() {
        // SAFETY: the CPU has BMI1 and BMI2 (`bmi2` exists), the features `run_bmi2` is
        // compiled for.
        return unsafe { run_bmi2(reader, parser, bmi2) };
    }
    run(reader, parser, SoftPext)
}

/// `read` the plain way: every item through `Reader::next_item` and `Parser::item` (what
/// pnacl-bcdis does), none of `read`'s fast paths. The same module or the same error as
/// `read`, always (tests/mutate.rs holds them to it).
pub fn read_itemwise(data: &[u8]) -> Result<Module> {
    let (mut reader, mut parser) = start(data, Reader::plans_pay_for(data))?;
    while next_item(&mut reader, &mut parser)? {}
    parser.finish(reader.pos())
}

/// The next item through `Reader::next_item` and `Parser::item`; false at the end of the
/// stream.
fn next_item(reader: &mut Reader<'_>, parser: &mut Parser) -> Result<bool> {
    let pos = reader.pos();
    match reader.next_item()? {
        Item::Eof => Ok(false),
        item => parser.item(pos, &item).map(|_| true),
    }
}

/// The header checked, and a reader and parser at the start of the bitstream.
fn start(data: &[u8], planned: bool) -> Result<(Reader<'_>, Parser)> {
    if !data.len().is_multiple_of(4) {
        return Err(Error::new(
            (data.len() as u64 / 4) * 32,
            format!(
                "Bitcode stream should be a multiple of 4 bytes in length (it is {} bytes)",
                data.len()
            ),
        ));
    }
    let header = header::parse(data)?;
    let reader = Reader::with_plans(data, header.size as u64 * 8, planned)?;
    Ok((reader, Parser::new(&header)))
}

/// `run` compiled with BMI1 and BMI2: its shifts (`shrx`, `shlx`, `bzhi`) take their count
/// from any register and leave the flags alone, `pext` gathers a VBR's payload chunks in
/// one instruction, `tzcnt` finds a field's end with no fix-up for zero, and `andn` masks
/// in one. The bit reader does all of them at every step.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
fn run_bmi2(reader: Reader<'_>, parser: Parser, bmi2: crate::bitstream::Bmi2) -> Result<Module> {
    run(reader, parser, bmi2)
}

/// Feeds every item of the stream to the parser.
#[inline(always)]
fn run<P: Pext>(mut reader: Reader<'_>, mut parser: Parser, p: P) -> Result<Module> {
    loop {
        // Small records go from the reader's loop for them straight to the record step,
        // the loop compiled once for function blocks and once for the others (no block
        // starts or ends in it).
        if parser.in_function {
            reader.simple_records(p, |pos, abbrev, code, ops| {
                parser.record_at(true, pos, abbrev, code, ops)
            })?;
        } else {
            reader.simple_records(p, |pos, abbrev, code, ops| {
                parser.record_at(false, pos, abbrev, code, ops)
            })?;
        }
        // Other records go to the same step, with their operands left where the reader
        // put them.
        if let Some(code) = reader.next_record_with(p)? {
            let (abbrev, ops) = reader.record_operands();
            parser.record_at(parser.in_function, reader.item_pos(), abbrev, code, ops)?;
            continue;
        }
        if !next_item(&mut reader, &mut parser)? {
            break;
        }
    }
    parser.finish(reader.pos())
}

/// What a record meant, for printers (pnacl-bcdis). Indices refer to the parser's module
/// and current body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    EnterBlock(u32),
    /// A function block starts; the function address it defines.
    EnterFunction(u32),
    ExitBlock(u32),
    /// DEFINE_ABBREV or SETBID (printed from the item itself).
    Abbrev,
    Version(u64),
    TypeCount(u64),
    Type(TypeId),
    Function(u32),
    GlobalCount(u32),
    GlobalVar(u32),
    Compound {
        global: u32,
        count: u32,
    },
    /// Initializer `index` of `global`; `closes` is true for the last of a compound one.
    Init {
        global: u32,
        index: u32,
        closes: bool,
    },
    Symbol(ValueId),
    SetType(ValueType),
    Const(u32),
    DeclareBlocks(u32),
    Inst(u32),
    ForwardRef {
        id: ValueId,
        ty: ValueType,
    },
}

/// Where the module is in the order spec/000 "Module Block" prescribes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Start,
    Version,
    BlockInfo,
    Types,
    FunctionRecords,
    Globals,
    Symtab,
    FunctionBlocks,
}

/// The state of the function block being read.
#[derive(Default)]
struct FnState {
    func: u32,
    /// The module's `Code` (taken from it for the function block, given back at its end),
    /// with the body being read at its end, from `base` on.
    code: Code,
    base: CodeLens,
    /// The body's number of basic blocks (DECLAREBLOCKS), and the block's bit position.
    num_blocks: u32,
    block_pos: u64,
    /// Absolute id of the first parameter.
    first_local: u32,
    num_params: u32,
    /// Absolute id the next value-producing instruction gets (NextValueNo).
    next_value: u32,
    declared_blocks: bool,
    seen_constants: bool,
    /// The block the next instruction belongs to.
    cur_block: u32,
    /// Whether the current block has had a non-phi instruction.
    past_phis: bool,
    /// Types declared by FORWARDTYPEREF for ids not yet defined.
    forward: Forward,
    /// Pending type for the constants block (ConstantsSetType).
    const_type: Option<ValueType>,
}

impl FnState {
    /// The body read so far.
    fn view(&self) -> Body<'_> {
        let end = self.code.lens();
        self.code
            .between(&self.base, &end, self.num_blocks, self.block_pos)
    }
}

/// Room for a function's block starts: no more than the instructions it can hold (so that
/// a count the file merely claims allocates nothing).
fn len_bound(c: &FnState) -> usize {
    c.code.insts.capacity() - c.base.insts + 1
}

/// The types FORWARDTYPEREF declared for values not yet defined. Ids that the rest of
/// the function block could still define (each needs a record, of 2 bits at least) are
/// kept in a table indexed by local id; any other (which can never be defined, and is an
/// error at the end of the block) in a map, so that no claim makes the table large.
#[derive(Default)]
struct Forward {
    /// Absolute id of the function's first local value.
    first_local: u32,
    /// By local id (`id - first_local`): the declared type, `Void` for none.
    near: Vec<ValueType>,
    far: HashMap<ValueId, ValueType, BuildHasherDefault<crate::ir::hash::IdHasher>>,
    /// Number of declarations not yet resolved.
    count: usize,
    /// Bit position past the end of the function block.
    end: u64,
}

impl Forward {
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.count == 0
    }

    #[inline]
    fn get(&self, id: ValueId) -> Option<ValueType> {
        if let Some(&t) = self.near.get((id - self.first_local) as usize) {
            if !t.is_void() {
                return Some(t);
            }
        }
        if self.far.is_empty() {
            return None;
        }
        self.far.get(&id).copied()
    }

    /// Declares `id` (≥ `next_value`, not void, and if declared before then with the
    /// same type) at bit position `pos`.
    fn insert(&mut self, next_value: u32, pos: u64, id: ValueId, ty: ValueType) {
        if self.get(id).is_some() {
            return;
        }
        self.count += 1;
        let local = (id - self.first_local) as usize;
        if local < self.near.len() {
            self.near[local] = ty;
        } else if (id - next_value) as u64 <= self.end.saturating_sub(pos) / 2 {
            self.near.resize(local + 1, ValueType::Void);
            self.near[local] = ty;
        } else {
            self.far.insert(id, ty);
        }
    }

    /// Forgets the declaration of `id` (which has one).
    fn remove(&mut self, id: ValueId) {
        match self.near.get_mut((id - self.first_local) as usize) {
            Some(t) if !t.is_void() => *t = ValueType::Void,
            _ => {
                self.far.remove(&id);
            }
        }
        self.count -= 1;
    }

    /// The smallest id still declared.
    fn first(&self) -> Option<ValueId> {
        if self.is_empty() {
            return None;
        }
        let near = self
            .near
            .iter()
            .position(|t| !t.is_void())
            .map(|i| self.first_local + i as u32);
        let far = self.far.keys().min().copied();
        match (near, far) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// The per-record semantic step.
pub struct Parser {
    pub module: Module,
    stack: Vec<u32>,
    /// Whether the innermost block (the last of `stack`) is a function block.
    in_function: bool,
    stage: Stage,
    module_seen: bool,
    seen_version: bool,
    seen_blockinfo: bool,
    types_expected: Option<u64>,
    types_block_seen: bool,
    globals_expected: Option<u32>,
    /// Global whose initializers are being read and how many remain.
    open_init: Option<(u32, u32)>,
    globals_block_seen: bool,
    /// Indices of defined functions, in order, and how many have had their block.
    defined: Vec<u32>,
    next_body: usize,
    /// The function block being read (`in_body`), or a default one.
    cur: FnState,
    in_body: bool,
    names: HashMap<Box<[u8]>, ValueId>,
    /// Whether function-local value symbol tables are accepted (historical
    /// `-allow-local-symbol-tables`).
    pub allow_local_symtabs: bool,
    /// Say an intrinsic's wrong signature in pnacl-bcdis's words (NaClObjDump's, which
    /// reports it and goes on) rather than the reader's.
    pub objdump_wording: bool,
    /// Bit position of the item being processed.
    pos: u64,
    /// Scratch space for switch-case duplicate checks.
    scratch: Vec<i64>,
    /// The last function block's forward-reference table, kept for its room.
    spare_near: Vec<ValueType>,
    /// `binop_table()`.
    binop_ok: &'static [u16; ValueType::ALL.len()],
    /// Bit position past the end of the module block (from its length word).
    module_end: u64,
}

macro_rules! msg {
    ($($t:tt)*) => { Msg::from(format!($($t)*)) };
}

type R<T> = std::result::Result<T, Msg>;

impl Parser {
    pub fn new(header: &Header) -> Parser {
        Parser {
            module: Module {
                pnacl_version: header.pnacl_version,
                ..Module::default()
            },
            stack: Vec::new(),
            in_function: false,
            stage: Stage::Start,
            module_seen: false,
            seen_version: false,
            seen_blockinfo: false,
            types_expected: None,
            types_block_seen: false,
            globals_expected: None,
            open_init: None,
            globals_block_seen: false,
            defined: Vec::new(),
            next_body: 0,
            cur: FnState::default(),
            in_body: false,
            names: HashMap::new(),
            allow_local_symtabs: false,
            objdump_wording: false,
            pos: 0,
            scratch: Vec::new(),
            spare_near: Vec::new(),
            binop_ok: binop_table(),
            module_end: 0,
        }
    }

    /// The body of the function block being read, if any.
    pub fn current_body(&self) -> Option<(u32, Body<'_>)> {
        self.in_body.then(|| {
            let c = &self.cur;
            (c.func, c.view())
        })
    }

    /// The absolute id of the next value-producing instruction in the current function.
    pub fn next_value_id(&self) -> Option<u32> {
        self.in_body.then_some(self.cur.next_value)
    }

    /// The type of value `id` as seen from the current function block: defined so far, or
    /// declared by a forward type reference still pending.
    pub fn value_type(&self, id: u32) -> Option<ValueType> {
        if !self.in_body {
            return None;
        }
        let c = &self.cur;
        if id < c.first_local {
            return Some(ValueType::I32);
        }
        let local = c.base.local_types + (id - c.first_local) as usize;
        match c.code.local_types.get(local) {
            Some(&t) if id < c.next_value => Some(t),
            _ => c.forward.get(id),
        }
    }

    /// Number of module-level values (function and global addresses) known so far.
    pub fn num_global_values(&self) -> u32 {
        self.module.num_global_values()
    }

    /// The count record of the globals block, once read (bcdis names `@gN` against it).
    pub fn globals_count(&self) -> Option<u32> {
        self.globals_expected
    }

    /// The basic block the next instruction belongs to, and the declared block count.
    pub fn current_block(&self) -> Option<(u32, u32)> {
        self.in_body
            .then_some((self.cur.cur_block, self.cur.num_blocks))
    }

    /// Block ids of the open blocks, outermost first.
    pub fn block_stack(&self) -> &[u32] {
        &self.stack
    }

    /// Processes one item of the stream at bit position `pos`.
    #[inline]
    pub fn item(&mut self, pos: u64, item: &Item<'_>) -> Result<Event> {
        self.pos = pos;
        let r = match *item {
            Item::Enter { id, len_words, .. } => self.enter(id, len_words),
            Item::Exit => self.exit(),
            Item::DefineAbbrev { .. } => Ok(Event::Abbrev),
            Item::Record { code, ops, .. } => self.record(code, ops),
            Item::Eof => Err("unexpected end of the bitstream".into()),
        };
        r.map_err(|msg| self.error(pos, item, msg))
    }

    /// The record step of `read`'s fast paths (the one `item` takes for a record): the
    /// record at bit `pos` with abbreviation id `abbrev` (for its error); in a function
    /// block (`in_function`, as `self.in_function` says), which holds nearly every
    /// record, straight to its step.
    #[inline(always)]
    fn record_at(
        &mut self,
        in_function: bool,
        pos: u64,
        abbrev: u32,
        code: u32,
        ops: &[u64],
    ) -> Result<()> {
        debug_assert_eq!(in_function, self.in_function);
        self.pos = pos;
        let done = if in_function {
            self.function_step(code, ops)
        } else {
            self.record(code, ops).map(drop)
        };
        match done {
            Ok(()) => Ok(()),
            Err(m) => Err(self.error(pos, &Item::Record { abbrev, code, ops }, m)),
        }
    }

    /// The error of `item` at `pos`, with where it sits.
    #[cold]
    #[inline(never)]
    fn error(&self, pos: u64, item: &Item<'_>, msg: Msg) -> Error {
        let e = Error::new(pos, msg.into_string());
        match self.context(item) {
            Some(c) => e.with_context(c),
            None => e,
        }
    }

    /// A short description of where an item sits: block and record.
    fn context(&self, item: &Item<'_>) -> Option<String> {
        let blk = *self.stack.last()?;
        let mut s = match (blk, self.in_body.then_some(&self.cur)) {
            (block::FUNCTION, Some(c)) | (block::CONSTANTS, Some(c)) => {
                format!(
                    "{} block of @f{}",
                    block::name(blk).unwrap_or("unknown"),
                    c.func
                )
            }
            _ => format!(
                "{} block",
                block::name(blk).map_or_else(|| format!("block {blk}"), str::to_string)
            ),
        };
        if let Item::Record { code, ops, .. } = item {
            s.push_str(", record <");
            s.push_str(&code.to_string());
            for v in ops.iter().take(12) {
                s.push_str(", ");
                s.push_str(&v.to_string());
            }
            if ops.len() > 12 {
                s.push_str(", …");
            }
            s.push('>');
        }
        Some(s)
    }

    /// Checks that the module is complete once the stream has ended at bit `end`.
    pub fn finish(mut self, end: u64) -> Result<Module> {
        self.check_complete().map_err(|m| Error::new(end, m))?;
        Ok(self.module)
    }

    /// The checks `finish` makes, without consuming the parser.
    pub fn check_complete(&mut self) -> std::result::Result<(), String> {
        self.check_complete_inner().map_err(Msg::into_string)
    }

    fn check_complete_inner(&mut self) -> R<()> {
        if !self.module_seen {
            return Err("the file holds no module block".into());
        }
        if !self.stack.is_empty() {
            return Err("the bitstream ends inside a block".into());
        }
        if self.next_body < self.defined.len() {
            let f = self.defined[self.next_body];
            return Err(msg!(
                "function @f{f} is defined but the module has no function block for it \
                 ({} function blocks for {} defined functions)",
                self.next_body,
                self.defined.len()
            ));
        }
        Ok(())
    }

    // ----------------------------------------------------------------------------------
    // Blocks

    fn enter(&mut self, id: u32, len_words: u32) -> R<Event> {
        let parent = self.stack.last().copied();
        match (parent, id) {
            (None, block::MODULE) => {
                if self.module_seen {
                    return Err("Expected 1 top level block in bitcode: Found a second module block".into());
                }
                self.module_seen = true;
                self.module_end = self.pos + 64 + len_words as u64 * 32;
            }
            (None, _) => {
                return Err(msg!(
                    "Expected 1 top level block in bitcode: found block {id} where the module block (8) must be"
                ))
            }
            (Some(block::MODULE), block::BLOCKINFO) => {
                if self.seen_blockinfo {
                    return Err("Multiple abbreviations blocks in the module".into());
                }
                // Before the types block; pnacl-compress writes it before the version record
                // (parse/stockfish.pexe), pnacl-freeze after.
                if self.stage >= Stage::Types {
                    return Err("The abbreviations block must come before the types block".into());
                }
                self.stage = self.stage.max(Stage::BlockInfo);
                self.seen_blockinfo = true;
            }
            (Some(block::MODULE), block::TYPE) => {
                if self.types_block_seen {
                    return Err("Multiple TYPE_BLOCKs found!".into());
                }
                self.advance(Stage::Types, "types block")?;
                self.types_block_seen = true;
            }
            (Some(block::MODULE), block::GLOBALVAR) => {
                if self.globals_block_seen {
                    return Err("Multiple globals blocks in the module".into());
                }
                if !self.types_block_seen {
                    return Err("The globals block must come after the types block".into());
                }
                if !self.seen_version {
                    return Err("The module has no version record".into());
                }
                self.advance(Stage::Globals, "globals block")?;
                self.globals_block_seen = true;
            }
            (Some(block::MODULE), block::VALUE_SYMTAB) => {
                if !self.globals_block_seen {
                    return Err("The valuesymtab block must come after the globals block".into());
                }
                if self.stage >= Stage::Symtab {
                    return Err("Multiple module-level valuesymtab blocks, or one after a function block".into());
                }
                self.stage = Stage::Symtab;
            }
            (Some(block::MODULE), block::FUNCTION) => {
                if !self.globals_block_seen {
                    return Err("Function blocks must come after the globals block".into());
                }
                let Some(&func) = self.defined.get(self.next_body) else {
                    return Err(msg!(
                        "Insufficient function protos: function block {} but only {} defined functions",
                        self.next_body + 1,
                        self.defined.len()
                    ));
                };
                self.stage = Stage::FunctionBlocks;
                self.next_body += 1;
                let num_params = self.module.fn_type(func).params.len() as u32;
                let first_local = self.module.num_global_values();
                // The module's vectors, the body appended to them.
                let mut code = std::mem::take(&mut self.module.code);
                let base = code.lens();
                // Room from the block's length (bounded by the file): an instruction
                // record takes about 20 bits in real pexes. For the first function block,
                // room for all of them, from what is left of the module block (the
                // function blocks are its end): the vectors are allocated once, not grown
                // again and again with a copy each time. (Giving back what is left over
                // would cost more: glibc maps a block this large afresh, and the next read
                // faults every page of it in again.)
                let bits = if base.insts == 0 {
                    self.module_end.saturating_sub(self.pos).max(len_words as u64 * 32)
                } else {
                    len_words as u64 * 32
                };
                // (The reader has checked the lengths against the file.)
                let est = (bits / 20) as usize;
                code.insts.reserve(est);
                code.inst_offsets.reserve(est);
                code.local_types.reserve(est + num_params as usize);
                // Basic blocks: about one for every four instructions.
                code.block_starts.reserve(est / 4);
                // Phi pairs and call arguments: about one for every two instructions.
                code.operands.reserve(est / 2);
                // Function constants: one for every ~320 bits of function blocks in
                // stockfish, ~410 in path_tracer; room for one every 256 (each constants
                // block also reserves from its own length), so that the first function
                // block's room holds them all in those two, not a dozen doublings with a
                // copy each.
                code.consts.reserve((bits / 256) as usize);
                code.local_types
                    .extend_from_slice(&self.module.fn_type(func).params);
                self.in_body = true;
                self.cur = FnState {
                    func,
                    code,
                    base,
                    num_blocks: 0,
                    block_pos: self.pos,
                    first_local,
                    num_params,
                    next_value: first_local + num_params,
                    declared_blocks: false,
                    seen_constants: false,
                    cur_block: 0,
                    past_phis: false,
                    forward: Forward {
                        first_local,
                        end: self.pos + 64 + len_words as u64 * 32,
                        near: std::mem::take(&mut self.spare_near),
                        ..Forward::default()
                    },
                    // Google's reader starts the constants block at i32 (spec/000 says
                    // void; pnacl-freeze always writes a SETTYPE first).
                    const_type: Some(ValueType::I32),
                };
                self.push_block(id);
                return Ok(Event::EnterFunction(func));
            }
            (Some(block::FUNCTION), block::CONSTANTS) => {
                let c = &mut self.cur;
                if !c.declared_blocks {
                    return Err("The constants block must come after the function's DECLAREBLOCKS record".into());
                }
                if c.seen_constants {
                    return Err("A function block may hold only one constants block".into());
                }
                if c.code.insts.len() > c.base.insts {
                    return Err("The constants block must come before the function's instructions".into());
                }
                c.seen_constants = true;
                c.const_type = Some(ValueType::I32);
                // A constant record takes at least 16 bits in real pexes (bounded by the
                // file, as the block's length is).
                c.code.consts.reserve(len_words as usize * 2);
            }
            (Some(block::FUNCTION), block::VALUE_SYMTAB) => {
                if !self.allow_local_symtabs {
                    return Err("Local value symbol tables not allowed".into());
                }
            }
            (Some(p), _) => {
                let pname = block::name(p).unwrap_or("unknown");
                return Err(match block::name(id) {
                    Some(n) => msg!("A {n} block (id {id}) cannot appear inside a {pname} block"),
                    None => msg!("Unknown block ID: {id} (in a {pname} block)"),
                });
            }
        }
        self.push_block(id);
        Ok(Event::EnterBlock(id))
    }

    /// Opens block `id`: `stack` and the `in_function` that mirrors its top.
    fn push_block(&mut self, id: u32) {
        self.stack.push(id);
        self.in_function = id == block::FUNCTION;
    }

    fn advance(&mut self, to: Stage, what: &str) -> R<()> {
        if self.stage >= to {
            return Err(msg!(
                "The {what} is out of order in the module block (spec/000 \"Module Block\")"
            ));
        }
        self.stage = to;
        Ok(())
    }

    fn exit(&mut self) -> R<Event> {
        let id = self.stack.pop().ok_or("end of block outside any block")?;
        self.in_function = self.stack.last() == Some(&block::FUNCTION);
        let r = match id {
            block::TYPE => {
                let n = self.types_expected.unwrap_or(0);
                if self.types_expected.is_none() {
                    Err("The types block has no count record".into())
                } else if (self.module.types.len() as u64) != n {
                    Err(msg!(
                        "Invalid type forward reference in TYPE_BLOCK: count {n} but {} types defined",
                        self.module.types.len()
                    ))
                } else {
                    Ok(())
                }
            }
            block::GLOBALVAR => {
                if let Some((g, n)) = self.open_init {
                    Err(msg!(
                        "Error in the global vars block: @g{g} lacks {n} initializers"
                    ))
                } else {
                    match self.globals_expected {
                        None => Err("Error in the global vars block: no count record".into()),
                        Some(n) if n as usize != self.module.globals.len() => Err(msg!(
                            "Error in the global vars block: count {n} but {} globals defined",
                            self.module.globals.len()
                        )),
                        Some(_) => Ok(()),
                    }
                }
            }
            block::FUNCTION => {
                self.in_body = false;
                let mut c = std::mem::take(&mut self.cur);
                let r = Self::check_function_end(&c);
                self.spare_near = std::mem::take(&mut c.forward.near);
                self.spare_near.clear();
                let func = c.func;
                let started = Self::in_started_block(&c);
                let (base, block_pos, mut code) = (c.base, c.block_pos, c.code);
                // Only blocks with an instruction count (the current one may be empty).
                if !started && (code.block_starts.len() - base.block_starts) as u32 > c.cur_block {
                    code.block_starts.pop();
                }
                // A block of more than 4 Gbit: offsets past 2^32 were truncated, and
                // none is kept.
                if self.pos - block_pos > u32::MAX as u64 {
                    code.inst_offsets[base.inst_offsets..].fill(u32::MAX);
                }
                let end = code.lens();
                self.module.code = code;
                self.module.functions[func as usize].body = Some(BodyLoc {
                    num_blocks: (end.block_starts - base.block_starts) as u32,
                    pos: block_pos,
                    start: base,
                    end,
                });
                r
            }
            block::MODULE => {
                if !self.types_block_seen {
                    Err("The module has no types block".into())
                } else if !self.globals_block_seen {
                    Err("The module has no globals block".into())
                } else if self.next_body < self.defined.len() {
                    Err(msg!(
                        "function @f{} is defined but the module has no function block for it",
                        self.defined[self.next_body]
                    ))
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        };
        r.map(|_| Event::ExitBlock(id))
    }

    /// Whether the current block has an instruction (and no terminator yet).
    fn in_started_block(c: &FnState) -> bool {
        c.code
            .block_starts
            .get(c.base.block_starts + c.cur_block as usize)
            .is_some_and(|&s| (s as usize) < c.code.insts.len() - c.base.insts)
    }

    fn check_function_end(c: &FnState) -> R<()> {
        if !c.declared_blocks {
            // A function block with no records at all (only, say, an abbreviation
            // definition) is what LLVM reads as a function without a body:
            // bad/fuzzed3.pexe, which the historical tools accept. Anything else needs
            // DECLAREBLOCKS first, which `function_record` enforces.
            return Ok(());
        }
        if c.cur_block < c.num_blocks {
            return Err(msg!(
                "The function declares {} basic blocks but its instructions end {}",
                c.num_blocks,
                if Self::in_started_block(c) {
                    msg!("inside block %b{} (no terminator)", c.cur_block)
                } else {
                    msg!("after {} blocks", c.cur_block)
                }
            ));
        }
        if let Some(id) = c.forward.first() {
            return Err(msg!(
                "Never resolved value found in function!: %v{} was declared by a forward type \
                 reference but never defined",
                id - c.first_local - c.num_params - (c.code.consts.len() - c.base.consts) as u32
            ));
        }
        Ok(())
    }

    // ----------------------------------------------------------------------------------
    // Records

    #[inline]
    fn record(&mut self, code: u32, ops: &[u64]) -> R<Event> {
        match self.stack.last().copied() {
            Some(block::MODULE) => self.module_record(code, ops),
            Some(block::TYPE) => self.type_record(code, ops),
            Some(block::GLOBALVAR) => self.global_record(code, ops),
            Some(block::VALUE_SYMTAB) => self.vst_record(code, ops),
            Some(block::CONSTANTS) => self.const_record(code, ops),
            Some(block::FUNCTION) => self.function_record(code, ops),
            Some(block::BLOCKINFO) => Ok(Event::Abbrev),
            _ => Err("Invalid record at top-level".into()),
        }
    }

    fn module_record(&mut self, code: u32, ops: &[u64]) -> R<Event> {
        match code {
            mc::VERSION => {
                if self.seen_version {
                    return Err("Multiple MODULE_CODE_VERSION records".into());
                }
                let version = rec::Version::decode(ops)?.version;
                if version.is_empty() {
                    return Err("Malformed MODULE_CODE_VERSION: no version".into());
                }
                if version != [1] {
                    return Err(msg!(
                        "Unknown bitstream version!: {version:?} (only version 1 exists)"
                    ));
                }
                if self.stage >= Stage::Types {
                    return Err("The version record must come before the types block".into());
                }
                self.stage = self.stage.max(Stage::Version);
                self.seen_version = true;
                Ok(Event::Version(1))
            }
            mc::FUNCTION => {
                if !self.seen_version {
                    return Err("The version record must come first in the module block".into());
                }
                if !self.types_block_seen {
                    return Err("Function address records must come after the types block".into());
                }
                if self.stage > Stage::FunctionRecords {
                    return Err(
                        "Function address records must come before the globals block".into(),
                    );
                }
                let r = rec::FunctionAddr::decode(ops)?;
                let (ty, cc, proto, linkage) = (r.ty, r.cc, r.isproto, r.linkage);
                let tid = self
                    .type_index(ty)
                    .map_err(|e| msg!("Invalid MODULE_CODE_FUNCTION record: {e}"))?;
                if self.module.types[tid as usize].as_fn().is_none() {
                    return Err(msg!(
                        "Function not declared with a function type!: @t{tid} is {}",
                        self.module.types[tid as usize]
                    ));
                }
                if cc != 0 {
                    return Err(msg!(
                        "PNaCl bitcode contains invalid calling conventions.: {cc} (only 0, the C convention)"
                    ));
                }
                if proto > 1 {
                    return Err(msg!(
                        "Invalid MODULE_CODE_FUNCTION record: isproto is {proto}, not 0 or 1"
                    ));
                }
                let linkage = Linkage::from_code(linkage).ok_or_else(|| {
                    msg!("Unknown linkage type: {linkage} (only 0, external, and 3, internal)")
                })?;
                self.stage = Stage::FunctionRecords;
                let idx = self.module.functions.len() as u32;
                if proto == 0 {
                    self.defined.push(idx);
                }
                self.module.functions.push(Function {
                    ty: tid,
                    cc: 0,
                    linkage,
                    name: None,
                    body: None,
                    is_defined: proto == 0,
                    pos: self.pos,
                });
                Ok(Event::Function(idx))
            }
            _ => Err(msg!("Invalid MODULE_CODE: {code}")),
        }
    }

    /// A type id from a record, checked against the table.
    #[inline(always)]
    fn type_index(&self, v: u64) -> R<TypeId> {
        if v < self.module.types.len() as u64 {
            Ok(v as TypeId)
        } else {
            Err(self.bad_type_index(v))
        }
    }

    #[cold]
    #[inline(never)]
    fn bad_type_index(&self, v: u64) -> Msg {
        msg!(
            "type id {v} is not defined (the table has {} types)",
            self.module.types.len()
        )
    }

    /// A type id that must name a value type (not a function type).
    #[inline(always)]
    fn value_type_of(&self, v: u64) -> R<ValueType> {
        let t = self.type_index(v)?;
        match self.module.types[t as usize].as_value() {
            Some(ty) => Ok(ty),
            None => Err(not_a_value_type(t)),
        }
    }

    fn type_record(&mut self, code: u32, ops: &[u64]) -> R<Event> {
        if code == tc::NUMENTRY {
            if self.types_expected.is_some() || !self.module.types.is_empty() {
                return Err(
                    "Invalid TYPE_CODE_NUMENTRY record: the count must come first, once".into(),
                );
            }
            let rec::TypeCount { n } = rec::TypeCount::decode(ops)?;
            self.types_expected = Some(n);
            return Ok(Event::TypeCount(n));
        }
        let Some(expected) = self.types_expected else {
            return Err("The types block must start with its count record".into());
        };
        if self.module.types.len() as u64 >= expected {
            return Err(msg!(
                "invalid TYPE table: more types than the count record's {expected}"
            ));
        }
        let ty = match code {
            tc::VOID => {
                rec::VoidType::decode(ops)?;
                Type::Value(ValueType::Void)
            }
            tc::FLOAT => {
                rec::FloatType::decode(ops)?;
                Type::Value(ValueType::Float)
            }
            tc::DOUBLE => {
                rec::DoubleType::decode(ops)?;
                Type::Value(ValueType::Double)
            }
            tc::INTEGER => {
                let rec::IntegerType { width: w } = rec::IntegerType::decode(ops)?;
                Type::Value(ValueType::int(w).ok_or_else(|| {
                    msg!("Invalid integer type i{w}: only i1, i8, i16, i32 and i64 exist")
                })?)
            }
            tc::VECTOR => {
                let rec::VectorType { n, elt } = rec::VectorType::decode(ops)?;
                let e = self
                    .value_type_of(elt)
                    .map_err(|m| msg!("invalid type in vector type: {m}"))?;
                Type::Value(ValueType::vector(n, e).ok_or_else(|| {
                    msg!(
                        "Invalid vector type <{n} x {e}>: only <4 x i1> <8 x i1> <16 x i1> <16 x i8> \
                         <8 x i16> <4 x i32> <4 x float> exist"
                    )
                })?)
            }
            tc::FUNCTION => {
                let r = rec::FunctionType::decode(ops)?;
                // The vararg flag: Google's reader took it, the ABI forbids it (a
                // pnacl-abicheck finding).
                let vararg = match r.vararg {
                    0 => false,
                    1 => true,
                    v => return Err(msg!("Invalid TYPE_CODE_FUNCTION record: vararg flag {v}")),
                };
                let ret = self
                    .value_type_of(r.ret)
                    .map_err(|m| msg!("invalid type in function type: {m}"))?;
                let mut params = Vec::with_capacity(r.params.len());
                for &p in r.params {
                    let t = self
                        .value_type_of(p)
                        .map_err(|m| msg!("invalid type in function type: {m}"))?;
                    if t.is_void() {
                        return Err(
                            "invalid type in function type: a parameter cannot be void".into()
                        );
                    }
                    params.push(t);
                }
                Type::Function(FnType {
                    ret,
                    params,
                    vararg,
                })
            }
            _ => return Err(msg!("Unknown type code in type table: {code}")),
        };
        if let Some(i) = self.module.types.iter().position(|t| *t == ty) {
            return Err(msg!(
                "Duplicate type {ty}: already defined as @t{i} (each type must be unique)"
            ));
        }
        self.module.types.push(ty);
        Ok(Event::Type(self.module.types.len() as u32 - 1))
    }

    fn global_record(&mut self, code: u32, ops: &[u64]) -> R<Event> {
        if code == gv::COUNT {
            if self.globals_expected.is_some() || !self.module.globals.is_empty() {
                return Err("Invalid global count record: the count must come first, once".into());
            }
            let rec::GlobalCount { n } = rec::GlobalCount::decode(ops)?;
            if n > u32::MAX as u64 - self.module.functions.len() as u64 {
                return Err(msg!("Invalid global count record: {n} globals"));
            }
            self.globals_expected = Some(n as u32);
            return Ok(Event::GlobalCount(n as u32));
        }
        let Some(expected) = self.globals_expected else {
            return Err("The globals block must start with its count record".into());
        };
        match code {
            gv::VAR => {
                if let Some((g, n)) = self.open_init {
                    return Err(msg!(
                        "Bad GLOBALVAR_VAR record: @g{g} still lacks {n} initializers"
                    ));
                }
                let rec::GlobalVar { align, is_const } = rec::GlobalVar::decode(ops)?;
                if self.module.globals.len() as u32 >= expected {
                    return Err(msg!(
                        "Bad GLOBALVAR_VAR record: more globals than the count record's {expected}"
                    ));
                }
                let align = decode_align(align)?;
                if is_const > 1 {
                    return Err(msg!(
                        "Bad GLOBALVAR_VAR record: constness is {is_const}, not 0 or 1"
                    ));
                }
                let g = self.module.globals.len() as u32;
                self.module.globals.push(Global {
                    align,
                    is_const: is_const == 1,
                    inits: Vec::new(),
                    compound: false,
                    name: None,
                    pos: self.pos,
                });
                self.open_init = Some((g, 1));
                Ok(Event::GlobalVar(g))
            }
            gv::COMPOUND => {
                let Some((g, 1)) = self.open_init else {
                    return Err(
                        "Bad GLOBALVAR_COMPOUND record: it must follow a global address record"
                            .into(),
                    );
                };
                let glob = &self.module.globals[g as usize];
                if glob.compound || !glob.inits.is_empty() {
                    return Err(
                        "Bad GLOBALVAR_COMPOUND record: it must follow a global address record"
                            .into(),
                    );
                }
                let rec::Compound { n } = rec::Compound::decode(ops)?;
                if n == 0 {
                    return Err(
                        "No initializer for global variable in global vars block: compound of 0"
                            .into(),
                    );
                }
                if n > u32::MAX as u64 {
                    return Err(msg!("Bad GLOBALVAR_COMPOUND record: {n} initializers"));
                }
                self.module.globals[g as usize].compound = true;
                self.open_init = Some((g, n as u32));
                Ok(Event::Compound {
                    global: g,
                    count: n as u32,
                })
            }
            gv::ZEROFILL | gv::DATA | gv::RELOC => {
                let Some((g, remaining)) = self.open_init else {
                    return Err("Initializer record with no global address awaiting one".into());
                };
                let init = match code {
                    gv::ZEROFILL => Init::Zero(rec::ZeroFill::decode(ops)?.n),
                    gv::DATA => {
                        let bytes = rec::Data::decode(ops)?.bytes;
                        if bytes.is_empty() {
                            return Err("Bad GLOBALVAR_DATA record: no bytes".into());
                        }
                        if let Some(b) = bytes.iter().find(|&&b| b > 255) {
                            return Err(msg!("Bad GLOBALVAR_DATA record: {b} is not a byte"));
                        }
                        Init::Data(bytes.iter().map(|&b| b as u8).collect())
                    }
                    _ => {
                        let r = rec::Reloc::decode(ops)?;
                        let (target, addend) = match *r.addend {
                            [] => (r.target, 0),
                            [a] => {
                                if a > u32::MAX as u64 {
                                    return Err(msg!(
                                        "Bad GLOBALVAR_RELOC record: addend {a} does not fit in 32 bits"
                                    ));
                                }
                                (r.target, a as u32 as i32)
                            }
                            _ => {
                                return Err(
                                    "Bad GLOBALVAR_RELOC record: expected 1 or 2 operands".into()
                                )
                            }
                        };
                        // Relocations may name functions and globals, even later ones
                        // (writer.md §6.3; spec/000's "VV >= NumFuncAddresses" is contradicted
                        // by its own example and by real files).
                        let limit = self.module.functions.len() as u64 + expected as u64;
                        if target >= limit {
                            return Err(msg!(
                                "Bad base value in GLOBALVAR_RELOC record: value {target} is not a \
                                 function or global address (there are {limit})"
                            ));
                        }
                        Init::Reloc {
                            target: target as u32,
                            addend,
                        }
                    }
                };
                let glob = &mut self.module.globals[g as usize];
                if glob.inits.capacity() == 0 {
                    // Room for the initializers, all of them (up to a bound: a compound
                    // count is only a claim until its records come).
                    glob.inits.reserve_exact((remaining as usize).min(256));
                }
                glob.inits.push(init);
                let index = glob.inits.len() as u32 - 1;
                let compound = glob.compound;
                self.open_init = if remaining > 1 {
                    Some((g, remaining - 1))
                } else {
                    None
                };
                Ok(Event::Init {
                    global: g,
                    index,
                    closes: compound && remaining == 1,
                })
            }
            _ => Err(msg!("Unknown global variable entry: code {code}")),
        }
    }

    fn vst_record(&mut self, code: u32, ops: &[u64]) -> R<Event> {
        let local = self.in_body;
        match code {
            vst::ENTRY => {
                let rec::Entry { id, name: chars } = rec::Entry::decode(ops)?;
                let name = name_bytes(chars)?;
                if local {
                    // Accepted only with allow_local_symtabs; names are checked but not kept.
                    let c = &self.cur;
                    if id >= c.next_value as u64 {
                        return Err(msg!("Invalid Value ID in VST_ENTRY record: {id}"));
                    }
                    return Ok(Event::Symbol(id as u32));
                }
                let limit = self.module.num_global_values() as u64;
                if id >= limit {
                    return Err(msg!(
                        "Invalid Value ID in VST_ENTRY record: {id} is not a function or global address \
                         (there are {limit})"
                    ));
                }
                let id = id as u32;
                let nf = self.module.functions.len() as u32;
                let slot = if id < nf {
                    &mut self.module.functions[id as usize].name
                } else {
                    &mut self.module.globals[(id - nf) as usize].name
                };
                if slot.is_some() {
                    return Err(msg!("Value {id} is named twice in the value symbol table"));
                }
                if id < nf {
                    if let Some(intr) = crate::ir::intrinsics::lookup(&name) {
                        let have = self.module.fn_type(id);
                        let want = intr.pexe_type();
                        check_intrinsic_type(&intr.name, have, &want, self.objdump_wording)?;
                    }
                }
                let slot = if id < nf {
                    &mut self.module.functions[id as usize].name
                } else {
                    &mut self.module.globals[(id - nf) as usize].name
                };
                // One hash per name: the entry both finds a duplicate and keeps the name.
                match self.names.entry(name) {
                    Entry::Occupied(e) => {
                        return Err(msg!(
                            "The name \"{}\" is given to two values ({} and {id})",
                            String::from_utf8_lossy(e.key()),
                            e.get()
                        ));
                    }
                    Entry::Vacant(e) => {
                        *slot = Some(e.key().clone());
                        e.insert(id);
                    }
                }
                self.module.symbol_order.push(id);
                Ok(Event::Symbol(id))
            }
            vst::BBENTRY => {
                let rec::BbEntry { bb, name: chars } = rec::BbEntry::decode(ops)?;
                name_bytes(chars)?;
                match self.in_body.then_some(&self.cur) {
                    Some(c) if bb < c.num_blocks as u64 => Ok(Event::Symbol(bb as u32)),
                    Some(_) => Err(msg!("Invalid BB ID in VST_BBENTRY record: {bb}")),
                    None => Err(
                        "Invalid VST_BBENTRY record: basic-block names exist only in functions"
                            .into(),
                    ),
                }
            }
            _ => Err(msg!("Unknown value symbol table record code: {code}")),
        }
    }

    fn const_record(&mut self, code: u32, ops: &[u64]) -> R<Event> {
        if code == cst::SETTYPE {
            let rec::SetType { ty: t } = rec::SetType::decode(ops)?;
            let ty = self
                .value_type_of(t)
                .map_err(|m| msg!("Invalid Type ID in CST_SETTYPE record: {m}"))?;
            if ty.is_void() {
                return Err(
                    "Invalid Type ID in CST_SETTYPE record: constants cannot be void".into(),
                );
            }
            self.cur.const_type = Some(ty);
            return Ok(Event::SetType(ty));
        }
        let c = &self.cur;
        let ty = c.const_type.unwrap_or(ValueType::I32);
        let value = match code {
            cst::UNDEF => {
                rec::Undef::decode(ops)?;
                ConstValue::Undef
            }
            cst::INTEGER => {
                let rec::Integer { value: v } = rec::Integer::decode(ops)?;
                if !ty.is_int() {
                    return Err(msg!(
                        "Invalid CST_INTEGER record: the current type {ty} is not an integer type"
                    ));
                }
                let s = decode_signrot(v);
                let bits = ty.bits();
                if bits < 64 {
                    // Definable by the type: a signed or unsigned value of its width.
                    let min = -(1i64 << (bits - 1));
                    let max = (1i64 << bits) - 1;
                    if s < min || s > max {
                        return Err(msg!("Invalid CST_INTEGER record: {s} does not fit in {ty}"));
                    }
                }
                let mask = if bits >= 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                };
                ConstValue::Int(s as u64 & mask)
            }
            cst::FLOAT => {
                let rec::Float { bits: v } = rec::Float::decode(ops)?;
                match ty {
                    ValueType::Float if v > u32::MAX as u64 => {
                        return Err(msg!(
                            "Invalid FLOAT record: {v} is not a 32-bit float pattern"
                        ))
                    }
                    ValueType::Float | ValueType::Double => ConstValue::Float(v),
                    _ => return Err(msg!("Unknown type for FLOAT record: {ty}")),
                }
            }
            _ => return Err(msg!("Invalid Constant code: {code}")),
        };
        let c = &mut self.cur;
        c.code.consts.push(Const { ty, value });
        c.code.local_types.push(ty);
        c.next_value += 1;
        Ok(Event::Const(
            (c.code.consts.len() - c.base.consts) as u32 - 1,
        ))
    }

    // ----------------------------------------------------------------------------------
    // Function blocks

    /// A record of a function block (the item-by-item path; `read`'s fast paths take
    /// `function_step`).
    fn function_record(&mut self, code: u32, ops: &[u64]) -> R<Event> {
        if code == fc::DECLAREBLOCKS || code == fc::FORWARDTYPEREF {
            return self.function_header_record(code, ops);
        }
        self.inst_record(code, ops)?;
        let c = &self.cur;
        Ok(Event::Inst((c.code.insts.len() - c.base.insts - 1) as u32))
    }

    /// `function_record` for `read`'s fast paths, with nothing to return.
    #[inline(always)]
    fn function_step(&mut self, code: u32, ops: &[u64]) -> R<()> {
        // (`inst_record` takes DECLAREBLOCKS and FORWARDTYPEREF to their step itself, in
        // its one dispatch on the code.)
        self.inst_record(code, ops)
    }

    /// DECLAREBLOCKS and FORWARDTYPEREF.
    #[inline(never)]
    fn function_header_record(&mut self, code: u32, ops: &[u64]) -> R<Event> {
        if code == fc::DECLAREBLOCKS {
            let c = &mut self.cur;
            if c.declared_blocks {
                return Err(
                    "Invalid DECLAREBLOCKS record: the function already declared its blocks".into(),
                );
            }
            let rec::DeclareBlocks { n } = rec::DeclareBlocks::decode(ops)?;
            if n == 0 || n > u32::MAX as u64 {
                return Err(msg!("Invalid DECLAREBLOCKS record: {n} blocks"));
            }
            c.declared_blocks = true;
            c.num_blocks = n as u32;
            // Block 0 starts at the first instruction; each later one after a terminator.
            c.code.block_starts.reserve((n as usize).min(len_bound(c)));
            c.code.block_starts.push(0);
            return Ok(Event::DeclareBlocks(n as u32));
        }
        if !self.cur.declared_blocks {
            return Err(no_declareblocks());
        }
        let rec::ForwardTypeRef { id, ty: t } = rec::ForwardTypeRef::decode(ops)?;
        let ty = self
            .value_type_of(t)
            .map_err(|m| msg!("Invalid FORWARDTYPEREF record: {m}"))?;
        let c = &mut self.cur;
        if ty.is_void() {
            return Err("Invalid FORWARDTYPEREF record: a value cannot be void".into());
        }
        if id < c.next_value as u64 || id > u32::MAX as u64 {
            return Err(msg!(
                "Invalid FORWARDTYPEREF record: value {id} is already defined (next value is {})",
                c.next_value
            ));
        }
        let id = id as u32;
        if let Some(old) = c.forward.get(id) {
            if old != ty {
                return Err(msg!(
                    "Invalid FORWARDTYPEREF record: value {id} was declared {old} before"
                ));
            }
        }
        c.forward.insert(c.next_value, self.pos, id, ty);
        Ok(Event::ForwardRef { id, ty })
    }

    /// Appends an instruction to the body being read, with its position: its index.
    #[inline(always)]
    fn push_inst(&mut self, inst: Inst) -> u32 {
        let c = &mut self.cur;
        let idx = (c.code.insts.len() - c.base.insts) as u32;
        c.code.insts.push(inst);
        // (Truncated in a block of more than 4 Gbit, whose offsets `exit` then discards.)
        c.code.inst_offsets.push((self.pos - c.block_pos) as u32);
        idx
    }

    /// Appends an instruction that defines a value (of type `inst.ty`, not void): the
    /// next value id is its. (Each kind of instruction calls the step that fits it, so
    /// that nothing branches on the kind again.)
    #[inline(always)]
    fn emit_value(&mut self, inst: Inst, phi: bool) -> R<()> {
        debug_assert!(!inst.ty.is_void());
        if !self.cur.forward.is_empty() {
            self.resolve_forward(inst.ty)?;
        }
        self.push_inst(inst);
        let c = &mut self.cur;
        c.code.local_types.push(inst.ty);
        c.next_value += 1;
        c.past_phis |= !phi;
        Ok(())
    }

    /// Appends an instruction that is not a phi and gives a value of type `ty`.
    #[inline(always)]
    fn emit(&mut self, kind: InstKind, ty: ValueType) -> R<()> {
        self.emit_value(Inst { kind, ty }, false)
    }

    /// Appends an instruction that defines no value and does not end its block.
    #[inline(always)]
    fn emit_void(&mut self, inst: Inst) -> R<()> {
        self.push_inst(inst);
        self.cur.past_phis = true;
        Ok(())
    }

    /// Appends a terminator: the next instruction is in the next block.
    #[inline(always)]
    fn emit_terminator(&mut self, inst: Inst) -> R<()> {
        let idx = self.push_inst(inst);
        let c = &mut self.cur;
        c.cur_block += 1;
        c.past_phis = false;
        if c.cur_block < c.num_blocks {
            c.code.block_starts.push(idx + 1);
        }
        Ok(())
    }

    /// A value of type `ty` is defined: a forward type reference to it must agree, and
    /// is resolved.
    #[inline(always)]
    fn resolve_forward(&mut self, ty: ValueType) -> R<()> {
        let c = &self.cur;
        match c.forward.get(c.next_value) {
            Some(t) => self.forward_defined(t, ty),
            None => Ok(()),
        }
    }

    /// `resolve_forward` where the new value was declared (as `t`).
    #[inline(never)]
    fn forward_defined(&mut self, t: ValueType, ty: ValueType) -> R<()> {
        if t != ty {
            return Err(msg!(
                "The instruction defines a {ty} value, but a forward type reference declared it {t}"
            ));
        }
        let c = &mut self.cur;
        c.forward.remove(c.next_value);
        Ok(())
    }

    /// A function block's record where no basic block is open (before DECLAREBLOCKS, or
    /// after the last block's terminator): DECLAREBLOCKS and FORWARDTYPEREF go to their
    /// step, any other is an instruction with no block to go into.
    #[cold]
    #[inline(never)]
    fn outside_blocks(&mut self, code: u32, ops: &[u64]) -> R<()> {
        if code == fc::DECLAREBLOCKS || code == fc::FORWARDTYPEREF {
            return self.function_header_record(code, ops).map(drop);
        }
        Err(self.no_block())
    }

    /// The error of an instruction record that has no block to go into.
    #[cold]
    #[inline(never)]
    fn no_block(&self) -> Msg {
        if !self.cur.declared_blocks {
            return no_declareblocks();
        }
        "Invalid instruction with no BB: the function's basic blocks are all terminated".into()
    }

    /// The type of an absolute value id that is already defined or forward-declared.
    #[inline(always)]
    fn type_of(&self, id: u32) -> Option<ValueType> {
        let c = &self.cur;
        // The locals defined so far, first_local .. next_value, are `local_types` (one
        // type each); a function or global address is i32.
        if let Some(&t) = c
            .code
            .local_types
            .get(c.base.local_types + id.wrapping_sub(c.first_local) as usize)
        {
            return Some(t);
        }
        if id < c.first_local {
            return Some(ValueType::I32);
        }
        if c.forward.is_empty() {
            return None;
        }
        c.forward.get(id)
    }

    /// Decodes a relative operand (spec/000 "RelativeIndex") into an absolute id and its type.
    #[inline(always)]
    fn operand(&self, rel: u64) -> R<(ValueId, ValueType)> {
        let next = self.cur.next_value;
        // The common case, a value already defined (1 ≤ rel ≤ next_value).
        if rel.wrapping_sub(1) < next as u64 {
            let id = next - rel as u32;
            if let Some(t) = self.type_of(id) {
                return Ok((id, t));
            }
        }
        self.operand_slow(rel)
    }

    /// `operand` of each of `rels`, in order.
    #[inline(always)]
    fn operands<const N: usize>(&self, rels: [u64; N]) -> R<[(ValueId, ValueType); N]> {
        let mut out = [(0, ValueType::Void); N];
        for (o, rel) in out.iter_mut().zip(rels) {
            *o = self.operand(rel)?;
        }
        Ok(out)
    }

    /// `operand` for the rest: forward references, and errors.
    #[cold]
    #[inline(never)]
    fn operand_slow(&self, rel: u64) -> R<(ValueId, ValueType)> {
        let c = &self.cur;
        if rel > u32::MAX as u64 {
            return Err(msg!(
                "Invalid relative value id: {rel} (Must be <= {})",
                c.next_value
            ));
        }
        let id = c.next_value.wrapping_sub(rel as u32);
        match self.type_of(id) {
            Some(t) => Ok((id, t)),
            None if id >= c.next_value => Err(msg!(
                "Invalid relative value id: {rel} (Must be <= {}): value {id} is used before it is \
                 defined, without a forward type reference",
                c.next_value
            )),
            None => Err(msg!(
                "Invalid relative value id: {rel} (Must be <= {})",
                c.next_value
            )),
        }
    }

    #[inline(always)]
    fn block_target(&self, v: u64, what: &str) -> R<u32> {
        let n = self.cur.num_blocks;
        if v == 0 || v >= n as u64 {
            return Err(bad_target(v, n, what));
        }
        Ok(v as u32)
    }

    /// An instruction record: the instruction, checked and appended to the body (and
    /// DECLAREBLOCKS and FORWARDTYPEREF, sent to their step from the same dispatch). Not
    /// inlined into the reader's loop: the two together need more registers than there
    /// are, and the loop's decoding state is spilled around every record (stockfish, with
    /// it inlined: 50.1M -> 51.8M instructions, and slower).
    #[inline(never)]
    fn inst_record(&mut self, code: u32, ops: &[u64]) -> R<()> {
        let c = &self.cur;
        // (Before DECLAREBLOCKS, `num_blocks` is 0.)
        if c.cur_block >= c.num_blocks {
            return self.outside_blocks(code, ops);
        }
        let nf = self.module.functions.len() as u32;
        let void = |kind| Inst {
            kind,
            ty: ValueType::Void,
        };
        match code {
            fc::DECLAREBLOCKS | fc::FORWARDTYPEREF => {
                self.function_header_record(code, ops).map(drop)
            }
            fc::BINOP => {
                let rec::Binop { a, b, opcode: opc } = rec::Binop::decode(ops)?;
                let [(lhs, ta), (rhs, tb)] = self.operands([a, b])?;
                // What `binop_check` allows, from its table (one test, not one per rule).
                let op = match BinOp::from_code(opc) {
                    Some(op) if ta == tb && self.binop_ok[ta as usize] >> opc & 1 == 1 => op,
                    _ => binop_check(opc, ta, tb)?,
                };
                self.emit(InstKind::Binop { op, lhs, rhs }, ta)
            }
            fc::CAST => {
                let r = rec::Cast::decode(ops)?;
                let (v, t, opc) = (r.value, r.ty, r.opcode);
                let (val, from) = self.operand(v)?;
                let to = self
                    .value_type_of(t)
                    .map_err(|m| msg!("Invalid CAST record: bad type ID: {m}"))?;
                let op = CastOp::from_code(opc)
                    .ok_or_else(|| msg!("Invalid CAST record: bad opcode {opc}"))?;
                if !op.is_valid(from, to) {
                    return Err(msg!(
                        "Invalid CAST record: cannot {} {from} to {to}",
                        op.name()
                    ));
                }
                self.emit(InstKind::Cast { op, val }, to)
            }
            fc::RET => {
                let fn_ret = self.module.fn_type(self.cur.func).ret;
                let val = match *rec::Ret::decode(ops)?.value {
                    [] => {
                        if !fn_ret.is_void() {
                            return Err(msg!("Invalid RET record: the function returns {fn_ret}"));
                        }
                        None
                    }
                    [v] => {
                        let (val, t) = self.operand(v)?;
                        if t != fn_ret {
                            return Err(msg!("Invalid RET record: returns {t} from a function returning {fn_ret}"));
                        }
                        Some(val)
                    }
                    _ => return Err("Invalid RET record: more than one operand".into()),
                };
                self.emit_terminator(void(InstKind::Ret { val }))
            }
            fc::BR => match rec::Br::decode(ops)? {
                rec::Br { target, rest: [] } => {
                    let target = self.block_target(target, "Invalid BR record")?;
                    self.emit_terminator(void(InstKind::Br { target }))
                }
                rec::Br {
                    target: t,
                    rest: &[f, cnd],
                } => {
                    let t = self.block_target(t, "Invalid BR record")?;
                    let f = self.block_target(f, "Invalid BR record")?;
                    let (cond, ct) = self.operand(cnd)?;
                    if ct != ValueType::I1 {
                        return Err(msg!("Invalid BR record: the condition is {ct}, not i1"));
                    }
                    self.emit_terminator(void(InstKind::CondBr { cond, t, f }))
                }
                _ => Err("Invalid BR record: expected 1 or 3 operands".into()),
            },
            fc::SWITCH => {
                let inst = self.switch(ops)?;
                self.emit_terminator(inst)
            }
            fc::UNREACHABLE => {
                rec::Unreachable::decode(ops)?;
                self.emit_terminator(void(InstKind::Unreachable))
            }
            fc::PHI => {
                let inst = self.phi(ops)?;
                let c = &self.cur;
                if c.cur_block == 0 {
                    return Err("The entry block cannot have phi instructions".into());
                }
                if c.past_phis {
                    return Err("Phi instructions must come first in their basic block".into());
                }
                self.emit_value(inst, true)
            }
            fc::ALLOCA => {
                let rec::Alloca { size: s, align: a } = rec::Alloca::decode(ops)?;
                let (size, st) = self.operand(s)?;
                // Any integer size is valid LLVM, and Google's reader took it; the ABI
                // wants i32 (a pnacl-abicheck finding, `Rule::Alloca`).
                if !st.is_int() {
                    return Err(msg!(
                        "Invalid ALLOCA record: the size is {st}, not an integer"
                    ));
                }
                let align = decode_align(a)?;
                self.emit(InstKind::Alloca { size, align }, ValueType::I32)
            }
            fc::LOAD => {
                let r = rec::Load::decode(ops)?;
                let (p, a, t) = (r.ptr, r.align, r.ty);
                let (ptr, pt) = self.operand(p)?;
                if pt != ValueType::I32 {
                    return Err(msg!("Invalid LOAD record: the pointer is {pt}, not i32"));
                }
                let align = decode_align(a)?;
                let ty = self
                    .value_type_of(t)
                    .map_err(|m| msg!("Invalid type for load instruction: {m}"))?;
                if ty.is_void() {
                    return Err("Invalid type for load instruction: void".into());
                }
                self.emit(InstKind::Load { ptr, align }, ty)
            }
            fc::STORE => {
                let r = rec::Store::decode(ops)?;
                let [(ptr, pt), (val, _)] = self.operands([r.ptr, r.value])?;
                let a = r.align;
                if pt != ValueType::I32 {
                    return Err(msg!("Invalid STORE record: the pointer is {pt}, not i32"));
                }
                let align = decode_align(a)?;
                self.emit_void(void(InstKind::Store { ptr, val, align }))
            }
            fc::CMP2 => {
                let rec::Cmp2 { a, b, predicate: p } = rec::Cmp2::decode(ops)?;
                let [(lhs, ta), (rhs, tb)] = self.operands([a, b])?;
                if ta != tb {
                    return Err(msg!(
                        "Invalid CMP record: operand types differ ({ta} and {tb})"
                    ));
                }
                let pred = Pred::from_code(p);
                let e = ta.elem();
                let pred = match pred {
                    Some(pr) if pr.is_float() && e.is_float() => pr,
                    Some(pr) if !pr.is_float() && e.is_int() => pr,
                    _ if e.is_float() => {
                        return Err(msg!(
                        "PNaCl bitcode contains invalid floating comparison predicate: {p} on {ta}"
                    ))
                    }
                    _ if e.is_int() => {
                        return Err(msg!(
                        "PNaCl bitcode contains invalid integer comparison predicate: {p} on {ta}"
                    ))
                    }
                    _ => return Err(msg!("Invalid CMP record: cannot compare {ta}")),
                };
                self.emit(InstKind::Cmp { pred, lhs, rhs }, ta.bool_of())
            }
            fc::VSELECT => {
                let r = rec::VSelect::decode(ops)?;
                let [(t, tt), (f, ft), (cond, ct)] = self.operands([r.t, r.f, r.cond])?;
                if tt != ft {
                    return Err(msg!(
                        "Invalid SELECT record: value types differ ({tt} and {ft})"
                    ));
                }
                if tt.is_void() {
                    return Err("Invalid SELECT record: void values".into());
                }
                if ct.elem() != ValueType::I1 || (ct.is_vector() && ct.count() != tt.count()) {
                    return Err(if ct.is_vector() {
                        msg!("Invalid SELECT vector condition type: {ct} for {tt}")
                    } else {
                        msg!("Invalid SELECT condition type: {ct}")
                    });
                }
                self.emit(InstKind::Select { cond, t, f }, tt)
            }
            fc::EXTRACTELT => {
                let r = rec::ExtractElt::decode(ops)?;
                let [(vec, vt), (idx, it)] = self.operands([r.vector, r.index])?;
                if !vt.is_vector() {
                    return Err(msg!("Invalid EXTRACTELEMENT record: {vt} is not a vector"));
                }
                if it != ValueType::I32 {
                    return Err(msg!("Invalid EXTRACTELEMENT index type: {it}"));
                }
                self.emit(InstKind::ExtractElement { vec, idx }, vt.elem())
            }
            fc::INSERTELT => {
                let r = rec::InsertElt::decode(ops)?;
                let [(vec, vt), (elt, et), (idx, it)] =
                    self.operands([r.vector, r.element, r.index])?;
                if !vt.is_vector() {
                    return Err(msg!("Invalid INSERTELEMENT vector type: {vt}"));
                }
                if vt.elem() != et {
                    return Err(msg!(
                        "Mismatched INSERTELEMENT vector and element type: {vt} and {et}"
                    ));
                }
                if it != ValueType::I32 {
                    return Err(msg!("Invalid INSERTELEMENT index type: {it}"));
                }
                self.emit(InstKind::InsertElement { vec, elt, idx }, vt)
            }
            fc::CALL | fc::CALL_INDIRECT => {
                let inst = self.call(code == fc::CALL_INDIRECT, ops, nf)?;
                if inst.ty.is_void() {
                    self.emit_void(inst)
                } else {
                    self.emit_value(inst, false)
                }
            }
            _ => Err(msg!("Unknown instruction record: code {code}")),
        }
    }

    fn switch(&mut self, ops: &[u64]) -> R<Inst> {
        let r = rec::Switch::decode(ops)?;
        let ty = self
            .value_type_of(r.ty)
            .map_err(|m| msg!("Invalid SWITCH record: {m}"))?;
        if !ty.is_int() {
            return Err(msg!(
                "Invalid SWITCH record: the condition type {ty} is not an integer type"
            ));
        }
        // The condition is relative modulo 2^64 (writer.md §5.7); its low 32 bits count.
        let (cond, ct) = self.operand(r.cond & 0xffff_ffff)?;
        if ct != ty {
            return Err(msg!(
                "Invalid SWITCH record: the condition is {ct}, the record says {ty}"
            ));
        }
        let default = self.block_target(r.default, "Invalid SWITCH record")?;
        let n = r.n;
        if n > r.cases.len() as u64 / 4 || r.cases.len() as u64 != 4 * n {
            return Err(msg!(
                "Invalid SWITCH record: {n} cases need {} operands, the record has {}",
                4u128 + 4 * n as u128,
                ops.len()
            ));
        }
        let bits = ty.bits();
        let start = self.cur.code.cases.len();
        let mut seen = std::mem::take(&mut self.scratch);
        seen.clear();
        for k in 0..n as usize {
            let f = &r.cases[4 * k..4 * k + 4];
            if f[0] != 1 || f[1] != 1 {
                self.scratch = seen;
                self.cur.code.cases.truncate(start);
                return Err("Case ranges are not supported in PNaCl bitcode".into());
            }
            let v = decode_signrot(f[2]);
            if bits < 64 {
                let min = -(1i64 << (bits - 1));
                let max = (1i64 << (bits - 1)) - 1;
                if v < min || v > max {
                    self.scratch = seen;
                    self.cur.code.cases.truncate(start);
                    return Err(msg!(
                        "Invalid SWITCH record: case value {v} does not fit in {ty}"
                    ));
                }
            }
            let target = match self.block_target(f[3], "Invalid SWITCH record") {
                Ok(t) => t,
                Err(e) => {
                    self.scratch = seen;
                    self.cur.code.cases.truncate(start);
                    return Err(e);
                }
            };
            seen.push(v);
            self.cur.code.cases.push(SwitchCase { value: v, target });
        }
        seen.sort_unstable();
        let dup = seen.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]);
        self.scratch = seen;
        if let Some(v) = dup {
            self.cur.code.cases.truncate(start);
            return Err(msg!("Invalid SWITCH record: duplicate case value {v}"));
        }
        Ok(Inst {
            kind: InstKind::Switch {
                cond,
                default,
                cases: Span::new((start - self.cur.base.cases) as u32, n as u32),
            },
            ty: ValueType::Void,
        })
    }

    fn phi(&mut self, ops: &[u64]) -> R<Inst> {
        // A type and value/block pairs. No pair at all is what Google's reader accepted
        // (and LLVM, in a block nothing branches to); the SSA check holds a phi to an entry
        // for each predecessor.
        let r = rec::Phi::decode(ops)?;
        if r.pairs.len() % 2 == 1 {
            return Err(msg!(
                "Invalid PHI record: {} operands (a type, then value/block pairs)",
                ops.len()
            ));
        }
        let ty = self
            .value_type_of(r.ty)
            .map_err(|m| msg!("Invalid PHI record: {m}"))?;
        if ty.is_void() {
            return Err("Invalid PHI record: void phi".into());
        }
        let c = &self.cur;
        let next = c.next_value as i64;
        let nblocks = c.num_blocks as u64;
        let start = c.code.operands.len();
        // The pairs are checked and stored in one pass; on an error, what was stored of
        // them is taken back.
        let mut pairs = std::mem::take(&mut self.cur.code.operands);
        pairs.reserve(r.pairs.len());
        let checked = (|| {
            for pair in r.pairs.chunks_exact(2) {
                let rel = decode_signrot(pair[0]);
                let id = next
                    .checked_sub(rel)
                    .filter(|&i| (0..=u32::MAX as i64).contains(&i))
                    .ok_or_else(|| {
                        msg!("Invalid PHI record: relative value {rel} is out of range")
                    })? as u32;
                let t = self.type_of(id).ok_or_else(|| {
                    msg!(
                        "Invalid PHI record: value {id} is not defined and has no forward type reference"
                    )
                })?;
                if t != ty {
                    return Err(msg!(
                        "Invalid PHI record: incoming value of type {t} in a {ty} phi"
                    ));
                }
                if pair[1] >= nblocks {
                    return Err(msg!("Invalid PHI record: block %b{} out of range", pair[1]));
                }
                pairs.extend([id, pair[1] as u32]);
            }
            Ok(())
        })();
        if checked.is_err() {
            pairs.truncate(start);
        }
        self.cur.code.operands = pairs;
        checked?;
        Ok(Inst {
            kind: InstKind::Phi {
                incoming: Span::new(
                    (start - self.cur.base.operands) as u32,
                    (r.pairs.len() / 2) as u32,
                ),
            },
            ty,
        })
    }

    fn call(&mut self, indirect: bool, ops: &[u64], nf: u32) -> R<Inst> {
        // The two kinds share their first operands and their list of arguments; only an
        // indirect call says what it returns.
        let (cc, callee_op, ret_op, args_ops) = if indirect {
            let r = rec::CallIndirect::decode(ops)?;
            (r.cc_tail, r.callee, Some(r.ret), r.args)
        } else {
            let r = rec::Call::decode(ops)?;
            (r.cc_tail, r.callee, None, r.args)
        };
        if cc >> 1 != 0 {
            return Err(msg!(
                "Invalid CALL record: calling convention {} (only 0, the C convention)",
                cc >> 1
            ));
        }
        let tail = cc & 1 == 1;
        let (callee, ct) = self.operand(callee_op)?;
        let ret;
        if let Some(ret_op) = ret_op {
            for &a in args_ops {
                self.operand(a)?;
            }
            if ct != ValueType::I32 {
                return Err(msg!("Invalid CALL record: the callee is {ct}, not i32"));
            }
            // spec/000 wants an indirect callee that is not a function address, but
            // pnacl-freeze writes one when C code calls a function through a pointer cast
            // to another signature (it elides the ptrtoint/inttoptr pair), and Google's
            // reader accepted it: about one real pexe in five does this (star.pexe).
            // What an indirect call passes and returns is an ABI rule (pnacl-abicheck
            // reports it), not the reader's: Google's reader built any signature.
            ret = self
                .value_type_of(ret_op)
                .map_err(|m| msg!("Invalid CALL record: {m}"))?;
        } else {
            // Each argument is resolved once, and compared with the parameter where the
            // counts agree; the errors keep their order (operands, callee, count, types).
            let sig = (callee < nf).then(|| self.module.fn_type(callee));
            let params: &[ValueType] = sig.map_or(&[], |s| &s.params);
            let counts_agree = params.len() == args_ops.len();
            let mut bad_arg = None;
            for (i, &a) in args_ops.iter().enumerate() {
                let (_, t) = self.operand(a)?;
                if counts_agree && bad_arg.is_none() && t != params[i] {
                    bad_arg = Some((i, t, params[i]));
                }
            }
            let Some(sig) = sig else {
                return Err(msg!(
                    "Invalid type for CALL record: the callee (value {callee}) is not a function address"
                ));
            };
            if !counts_agree {
                return Err(msg!(
                    "Invalid CALL record: @f{callee} takes {} arguments, the call passes {}",
                    sig.params.len(),
                    args_ops.len()
                ));
            }
            if let Some((i, t, p)) = bad_arg {
                return Err(msg!(
                    "Invalid argument in CALL record: argument {i} is {t}, @f{callee} takes {p}"
                ));
            }
            // An ordinary function's parameter and return types are ABI rules
            // (pnacl-abicheck: "disallowed type", "bad function callee operand"), not the
            // reader's: Google's reader took any.
            ret = sig.ret;
        }
        let c = &mut self.cur;
        let start = (c.code.operands.len() - c.base.operands) as u32;
        let next = c.next_value;
        c.code
            .operands
            .extend(args_ops.iter().map(|&a| next.wrapping_sub(a as u32)));
        Ok(Inst {
            kind: InstKind::Call {
                callee,
                args: Span::new(start, args_ops.len() as u32),
                tail,
                indirect,
            },
            ty: ret,
        })
    }
}

/// The historical reader's check of an allowed intrinsic's signature (abicheck.md §7.3),
/// with pointers already i32 on both sides; `objdump`: in pnacl-bcdis's words (its 2014
/// tests), arguments counted from 1.
fn check_intrinsic_type(name: &str, have: &FnType, want: &FnType, objdump: bool) -> R<()> {
    let (hr, wr) = (have.ret, want.ret);
    let (hn, wn) = (have.params.len(), want.params.len());
    let arg = have
        .params
        .iter()
        .zip(&want.params)
        .position(|(h, w)| h != w);
    let text = match (hr != wr, hn != wn, arg) {
        (true, _, _) if objdump => {
            format!("Intrinsic {name} expects return type {wr}. Found: {hr}")
        }
        (true, _, _) => format!("Intrinsic return type mismatch for {name}: {wr} and {hr}"),
        (_, true, _) if objdump => format!("Intrinsic {name} expects {wn} arguments. Found: {hn}"),
        (_, true, _) => format!("Intrinsic type mistmatch for {name}: {have} and {want}"),
        (_, _, Some(i)) => {
            let (h, w) = (have.params[i], want.params[i]);
            match objdump {
                true => format!(
                    "Intrinsic {name} expects {w} for argument {}. Found: {h}",
                    i + 1
                ),
                false => format!("Intrinsic type mismatch for argument {i} in {name}: {w} and {h}"),
            }
        }
        _ => return Ok(()),
    };
    Err(msg!("{text}"))
}

/// Inverse of SignRotate (spec/000 "Support Functions").
#[inline]
pub fn decode_signrot(v: u64) -> i64 {
    if v & 1 == 0 {
        (v >> 1) as i64
    } else if v == 1 {
        // "-0": the writer never emits it; LLVM reads it as INT64_MIN.
        i64::MIN
    } else {
        -((v >> 1) as i64)
    }
}

/// SignRotate.
#[inline]
pub fn encode_signrot(v: i64) -> u64 {
    if v >= 0 {
        (v as u64) << 1
    } else {
        ((v.unsigned_abs()) << 1) | 1
    }
}

#[inline(always)]
fn decode_align(v: u64) -> R<Align> {
    if v > Align::MAX_ENCODED {
        return Err(bad_align(v));
    }
    Ok(Align(v as u8))
}

#[cold]
#[inline(never)]
fn not_a_value_type(t: TypeId) -> Msg {
    msg!("@t{t} is a function type, where a value type is needed")
}

#[cold]
#[inline(never)]
fn bad_align(v: u64) -> Msg {
    msg!(
        "Invalid alignment: encoded {v} means 2^{} bytes, more than the 2^29 LLVM allows",
        v - 1
    )
}

/// The BINOP record's checks of its opcode `opc` and operand types `ta`, `tb`: the
/// operator.
fn binop_check(opc: u64, ta: ValueType, tb: ValueType) -> R<BinOp> {
    let op = BinOp::from_code(opc)
        .ok_or_else(|| msg!("Invalid binary opcode in BINOP record: {opc}"))?;
    if ta != tb {
        return Err(msg!(
            "Invalid BINOP record: operand types differ ({ta} and {tb})"
        ));
    }
    let e = ta.elem();
    if e.is_float() {
        if !op.has_float_form() {
            return Err(msg!(
                "Invalid binary opcode in BINOP record: {} on {ta}",
                op.name(false)
            ));
        }
    } else if !e.is_int() {
        return Err(msg!("Invalid BINOP record: {} on {ta}", op.name(false)));
    }
    // Arithmetic on i1 (`add i1`) is valid LLVM and Google's reader took it; the ABI
    // forbids it, so it is pnacl-abicheck's finding (`Rule::IntegerArithmetic`).
    Ok(op)
}

/// For each value type, the opcodes `binop_check` allows on it (bit `opc`); made once.
fn binop_table() -> &'static [u16; ValueType::ALL.len()] {
    static TABLE: OnceLock<[u16; ValueType::ALL.len()]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0u16; ValueType::ALL.len()];
        for ty in ValueType::ALL {
            for opc in 0..16 {
                if binop_check(opc, ty, ty).is_ok() {
                    t[ty as usize] |= 1 << opc;
                }
            }
        }
        t
    })
}

/// A function block's record before its DECLAREBLOCKS record.
#[cold]
fn no_declareblocks() -> Msg {
    "The function block must start with a DECLAREBLOCKS record".into()
}

/// `Parser::block_target`'s error: `v` is not a block of the `n` but the entry block.
#[cold]
#[inline(never)]
fn bad_target(v: u64, n: u32, what: &str) -> Msg {
    msg!(
        "{what}: Branch %b{v} out of range. Not in [1,{}]",
        n.saturating_sub(1)
    )
}

fn name_bytes(chars: &[u64]) -> R<Box<[u8]>> {
    if let Some(c) = chars.iter().find(|&&c| c > 255) {
        return Err(msg!("Invalid symbol name: character {c} is not a byte"));
    }
    if chars.is_empty() {
        return Err("Invalid symbol name: empty".into());
    }
    Ok(chars.iter().map(|&c| c as u8).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read` with the portable bit gather (what a CPU without BMI1/BMI2 runs: its
    /// small-records loop, grid decoder and all) gives what the item-by-item reader does,
    /// on every real pexe.
    #[test]
    fn the_portable_fast_path_reads_as_the_items_do() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/pexes");
        let mut n = 0;
        for sub in ["run", "parse", "bad"] {
            let mut files: Vec<_> = std::fs::read_dir(root.join(sub))
                .expect("../shared/pexes beside the checkout")
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "pexe"))
                .collect();
            files.sort();
            for p in files {
                let data = std::fs::read(&p).unwrap();
                // With decoding plans and without (the fast paths take only the former).
                for planned in [true, false] {
                    let portable =
                        start(&data, planned).and_then(|(r, parser)| run(r, parser, SoftPext));
                    assert!(
                        portable == read_itemwise(&data),
                        "{}: the portable read (plans: {planned}) differs",
                        p.display()
                    );
                }
                n += 1;
            }
        }
        assert!(n >= 25, "{n} pexes");
    }

    /// Declarations near enough to be defined in the block go to the table, others to the
    /// map; an id declared far that the table later covers is still found, resolved once,
    /// and reported first when it is the smallest left.
    #[test]
    fn forward_declarations_near_and_far() {
        let (first, mut next) = (100u32, 105u32);
        // 40 bits left in the block: ids up to next + 20 are near.
        let mut f = Forward {
            first_local: first,
            end: 1040,
            ..Forward::default()
        };
        assert!(f.is_empty());
        f.insert(next, 1000, 110, ValueType::I32);
        f.insert(next, 1000, 200, ValueType::Double);
        assert_eq!(f.near.len(), 11);
        assert_eq!(f.far.len(), 1);
        // The block grows no longer, but a near id beyond the far one stretches the table.
        f.end = 10_000;
        f.insert(next, 1000, 250, ValueType::Float);
        assert_eq!(f.near.len(), 151);
        f.insert(next, 1000, 110, ValueType::I32);
        assert_eq!(f.count, 3);
        assert_eq!(f.get(110), Some(ValueType::I32));
        assert_eq!(f.get(200), Some(ValueType::Double));
        assert_eq!(f.get(250), Some(ValueType::Float));
        assert_eq!(f.get(111), None);
        assert_eq!(f.get(9999), None);
        assert_eq!(f.first(), Some(110));
        next = 110;
        f.remove(next);
        assert_eq!(f.get(110), None);
        assert_eq!(f.first(), Some(200));
        f.remove(200);
        assert_eq!(f.get(200), None);
        assert_eq!(f.first(), Some(250));
        f.remove(250);
        assert!(f.is_empty());
        assert_eq!(f.first(), None);
    }
}
