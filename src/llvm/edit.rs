//! A typed, safe view of LLVM modules for the code that rewrites them (`simplify`): values,
//! types and blocks as `Copy` handles, a builder, the data layout's sizes and offsets, and
//! the few module-level edits such passes make. Every raw LLVM call those passes need is
//! here, once; a pass names only these types.
//!
//! What makes the handles sound: a `Value<'a>`, `Type<'a>` or `Block<'a>` is made only
//! from a `Module<'a>`, which borrows the inkwell module (and so its context) for `'a`, and
//! nothing here frees a value, block or type a handle can name: the layer never deletes
//! what it handed out (its own stand-ins are made and deleted inside one call). Running
//! LLVM's passes, which do delete, takes the inkwell module by `&mut`, so no handle can be
//! alive across it. Values of two modules of one context may meet only in what LLVM allows
//! (types are the context's; an instruction takes operands of its own module): the
//! verifier, which the simplification runs on what it builds, holds that.
#![deny(clippy::undocumented_unsafe_blocks)]

use std::ffi::CStr;
use std::marker::PhantomData;

use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMLinkage, LLVMTypeKind, LLVMValueKind};
use llvm_sys::{LLVMIntPredicate, LLVMRealPredicate, LLVMUnnamedAddr, LLVMVisibility};

mod api;
use api::*;

pub use llvm_sys::LLVMAtomicOrdering as Ordering;
pub use llvm_sys::LLVMAtomicRMWBinOp as RmwOp;
pub use llvm_sys::LLVMIntPredicate as IntPred;
pub use llvm_sys::LLVMLinkage as Linkage;
pub use llvm_sys::LLVMOpcode as Opcode;
pub use llvm_sys::LLVMRealPredicate as RealPred;

use super::ffi::{self, cstr, List};

/// A module being read or built, borrowed for `'a`.
#[derive(Clone, Copy)]
pub struct Module<'a> {
    raw: Mod<'a>,
    ctx: Ctx<'a>,
}

/// A value of a module (an instruction, argument, constant, global, function, …). Values
/// order by their address: an order for sorting and deduplication, not a meaning.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(transparent)]
pub struct Value<'a>(LLVMValueRef, PhantomData<&'a ()>);

/// A type of the module's context.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Type<'a>(LLVMTypeRef, PhantomData<&'a ()>);

/// A basic block.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Block<'a>(LLVMBasicBlockRef, PhantomData<&'a ()>);

impl std::fmt::Debug for Value<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text().trim())
    }
}

impl std::fmt::Debug for Type<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

fn v<'a>(r: LLVMValueRef) -> Value<'a> {
    Value(r, PhantomData)
}

fn opt_v<'a>(r: LLVMValueRef) -> Option<Value<'a>> {
    (!r.is_null()).then(|| v(r))
}

fn t<'a>(r: LLVMTypeRef) -> Type<'a> {
    Type(r, PhantomData)
}

fn b<'a>(r: LLVMBasicBlockRef) -> Block<'a> {
    Block(r, PhantomData)
}

/// `n` types LLVM writes into an array of `n` (`fill`).
fn types_of<'a>(n: u32, fill: impl FnOnce(*mut LLVMTypeRef)) -> Vec<Type<'a>> {
    let mut out = vec![std::ptr::null_mut(); n as usize];
    fill(out.as_mut_ptr());
    out.into_iter().map(t).collect()
}

fn raws(vals: &[Value<'_>]) -> Vec<LLVMValueRef> {
    vals.iter().map(|x| x.0).collect()
}

/// What a type is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeKind<'a> {
    Void,
    Int(u32),
    Float,
    Double,
    /// A floating-point type a pexe cannot hold (half, x86_fp80, fp128, …).
    OtherFloat,
    Pointer {
        pointee: Type<'a>,
        addrspace: u32,
    },
    Array(Type<'a>, u64),
    Struct,
    Vector(Type<'a>, u32),
    Function,
    /// label, metadata, token, x86_mmx, …
    Other,
}

impl<'a> Type<'a> {
    /// The raw handle, for the module's raw builder (`llvm::export`).
    pub(in crate::llvm) fn as_raw(self) -> LLVMTypeRef {
        self.0
    }

    pub fn kind(self) -> TypeKind<'a> {
        use LLVMTypeKind::*;
        match LLVMGetTypeKind(self) {
            LLVMVoidTypeKind => TypeKind::Void,
            LLVMIntegerTypeKind => TypeKind::Int(LLVMGetIntTypeWidth(self.must())),
            LLVMFloatTypeKind => TypeKind::Float,
            LLVMDoubleTypeKind => TypeKind::Double,
            LLVMHalfTypeKind
            | LLVMBFloatTypeKind
            | LLVMX86_FP80TypeKind
            | LLVMFP128TypeKind
            | LLVMPPC_FP128TypeKind => TypeKind::OtherFloat,
            LLVMPointerTypeKind => TypeKind::Pointer {
                pointee: LLVMGetElementType(self.must()),
                addrspace: LLVMGetPointerAddressSpace(self.must()),
            },
            LLVMArrayTypeKind => TypeKind::Array(
                LLVMGetElementType(self.must()),
                LLVMGetArrayLength(self.must()) as u64,
            ),
            LLVMStructTypeKind => TypeKind::Struct,
            LLVMVectorTypeKind => TypeKind::Vector(
                LLVMGetElementType(self.must()),
                LLVMGetVectorSize(self.must()),
            ),
            LLVMFunctionTypeKind => TypeKind::Function,
            _ => TypeKind::Other,
        }
    }

    pub fn int_width(self) -> Option<u32> {
        match self.kind() {
            TypeKind::Int(w) => Some(w),
            _ => None,
        }
    }

    /// A vector type's element type and length.
    pub fn vector(self) -> Option<(Type<'a>, u32)> {
        match self.kind() {
            TypeKind::Vector(e, n) => Some((e, n)),
            _ => None,
        }
    }

    pub fn is_pointer(self) -> bool {
        matches!(self.kind(), TypeKind::Pointer { .. })
    }

    pub fn is_void(self) -> bool {
        self.kind() == TypeKind::Void
    }

    /// The fields of a struct type.
    pub fn struct_fields(self) -> Vec<Type<'a>> {
        let n = LLVMCountStructElementTypes(self.must());
        // SAFETY: a struct type of a live context (checked), an array of LLVM's count.
        types_of(n, |out| unsafe {
            llvm_sys::core::LLVMGetStructElementTypes(self.0, out)
        })
    }

    /// Whether this is the type of a block (`label`) or of metadata.
    pub fn is_label_or_metadata(self) -> bool {
        use LLVMTypeKind::*;
        matches!(
            LLVMGetTypeKind(self),
            LLVMLabelTypeKind | LLVMMetadataTypeKind
        )
    }

    /// Whether a struct type is literal (`{ … }`, not `%name`).
    pub fn is_literal_struct(self) -> bool {
        LLVMIsLiteralStruct(self.must()) != 0
    }

    pub fn is_packed_struct(self) -> bool {
        LLVMIsPackedStruct(self.must()) != 0
    }

    /// A function type's return type.
    pub fn fn_return(self) -> Type<'a> {
        LLVMGetReturnType(self.must())
    }

    /// A function type's parameter types.
    pub fn fn_params(self) -> Vec<Type<'a>> {
        let n = LLVMCountParamTypes(self.must());
        // SAFETY: a function type of a live context (checked), an array of LLVM's count.
        types_of(n, |out| unsafe {
            llvm_sys::core::LLVMGetParamTypes(self.0, out)
        })
    }

    pub fn fn_is_vararg(self) -> bool {
        LLVMIsFunctionVarArg(self.must()) != 0
    }

    /// A pointer to this type (address space 0).
    pub fn ptr(self) -> Type<'a> {
        LLVMPointerType(self.must(), 0)
    }

    pub fn text(self) -> String {
        ffi::type_text(self.0)
    }
}

/// What a value is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValueKind {
    Argument,
    Block,
    Function,
    Alias,
    GlobalVariable,
    BlockAddress,
    ConstExpr(Opcode),
    /// A constant array, struct or vector (its elements are its operands).
    ConstAggregate,
    /// An array or vector of plain data (`LLVMGetElementAsConstant`).
    ConstData,
    ConstZero,
    ConstInt,
    ConstFloat,
    ConstNull,
    /// `undef` or `poison`.
    Undef,
    Instruction(Opcode),
    InlineAsm,
    Metadata,
    Other,
}

impl<'a> Value<'a> {
    pub fn kind(self) -> ValueKind {
        use LLVMValueKind::*;
        match LLVMGetValueKind(self) {
            LLVMArgumentValueKind => ValueKind::Argument,
            LLVMBasicBlockValueKind => ValueKind::Block,
            LLVMFunctionValueKind => ValueKind::Function,
            LLVMGlobalAliasValueKind => ValueKind::Alias,
            LLVMGlobalVariableValueKind => ValueKind::GlobalVariable,
            LLVMBlockAddressValueKind => ValueKind::BlockAddress,
            LLVMConstantExprValueKind => ValueKind::ConstExpr(LLVMGetConstOpcode(self.must())),
            LLVMConstantArrayValueKind
            | LLVMConstantStructValueKind
            | LLVMConstantVectorValueKind => ValueKind::ConstAggregate,
            LLVMConstantDataArrayValueKind | LLVMConstantDataVectorValueKind => {
                ValueKind::ConstData
            }
            LLVMConstantAggregateZeroValueKind => ValueKind::ConstZero,
            LLVMConstantIntValueKind => ValueKind::ConstInt,
            LLVMConstantFPValueKind => ValueKind::ConstFloat,
            LLVMConstantPointerNullValueKind => ValueKind::ConstNull,
            LLVMUndefValueValueKind | LLVMPoisonValueKind => ValueKind::Undef,
            LLVMInstructionValueKind => {
                ValueKind::Instruction(LLVMGetInstructionOpcode(self.must()))
            }
            LLVMInlineAsmValueKind => ValueKind::InlineAsm,
            LLVMMetadataAsValueValueKind => ValueKind::Metadata,
            _ => ValueKind::Other,
        }
    }

    pub fn ty(self) -> Type<'a> {
        LLVMTypeOf(self)
    }

    pub fn is_constant(self) -> bool {
        LLVMIsConstant(self) != 0
    }

    /// The opcode, if an instruction.
    pub fn opcode(self) -> Option<Opcode> {
        ffi::opcode(self.0)
    }

    /// How many operands: 0 for what has none (an argument, a block, …).
    pub fn num_operands(self) -> u32 {
        self.is_a::<User>()
            .map_or(0, |u| LLVMGetNumOperands(u) as u32)
    }

    pub fn operand(self, i: u32) -> Value<'a> {
        assert!(i < self.num_operands(), "operand {i} out of range");
        // SAFETY: a user of a live module (it has operands), `i` in range.
        v(unsafe { llvm_sys::core::LLVMGetOperand(self.0, i) })
    }

    pub fn operands(self) -> Vec<Value<'a>> {
        (0..self.num_operands()).map(|i| self.operand(i)).collect()
    }

    /// A block operand (a successor of a terminator, a blockaddress's block).
    pub fn operand_block(self, i: u32) -> Block<'a> {
        LLVMValueAsBasicBlock(self.operand(i).must())
    }

    /// The value of an integer constant, zero-extended (its low 64 bits).
    pub fn const_zext(self) -> Option<u64> {
        if self.kind() != ValueKind::ConstInt {
            return None;
        }
        if self.ty().int_width().unwrap_or(0) > 64 {
            return Some(self.const_big_int()?[0]);
        }
        Some(LLVMConstIntGetZExtValue(self.must()))
    }

    /// The value of an integer constant, sign-extended from its width (up to 64 bits).
    pub fn const_sext(self) -> Option<i64> {
        if self.kind() != ValueKind::ConstInt || self.ty().int_width()? > 64 {
            return None;
        }
        Some(LLVMConstIntGetSExtValue(self.must()))
    }

    /// The 64-bit words of an integer constant of any width, least significant first.
    /// (LLVM 14's C API reads at most 64 bits of one: a wider one is read off its text.)
    pub fn const_big_int(self) -> Option<Vec<u64>> {
        let w = self.ty().int_width()?;
        if self.kind() != ValueKind::ConstInt {
            return None;
        }
        let words = w.div_ceil(64) as usize;
        if w <= 64 {
            return Some(vec![LLVMConstIntGetZExtValue(self.must())]);
        }
        let text = self.text();
        let digits = text.trim().rsplit(' ').next()?;
        let (neg, digits) = match digits.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, digits),
        };
        let digits = if digits == "true" { "1" } else { digits };
        let mut out = vec![0u64; words];
        for c in digits.bytes() {
            let d = (c as char).to_digit(10)? as u128;
            let mut carry = d;
            for wd in out.iter_mut() {
                let x = (*wd as u128) * 10 + carry;
                *wd = x as u64;
                carry = x >> 64;
            }
        }
        if neg {
            let mut carry = 1u128;
            for wd in out.iter_mut() {
                let x = (!*wd) as u128 + carry;
                *wd = x as u64;
                carry = x >> 64;
            }
        }
        Some(out)
    }

    /// The value of a floating-point constant.
    pub fn const_f64(self) -> Option<f64> {
        if self.kind() != ValueKind::ConstFloat {
            return None;
        }
        let mut loses = 0;
        Some(LLVMConstRealGetDouble(self.must(), &mut loses))
    }

    /// Element `i` of a constant data array or vector.
    pub fn const_data_element(self, i: u32) -> Value<'a> {
        assert_eq!(self.kind(), ValueKind::ConstData);
        // SAFETY: a ConstantDataSequential of a live module; LLVM checks `i`'s range by
        // assertion only, so it is checked here against the type's length.
        let n = match self.ty().kind() {
            TypeKind::Array(_, n) => n,
            TypeKind::Vector(_, n) => n as u64,
            _ => 0,
        };
        assert!((i as u64) < n, "element {i} out of range");
        // SAFETY: as above, `i` in range.
        v(unsafe { llvm_sys::core::LLVMGetElementAsConstant(self.0, i) })
    }

    /// Element `i` of a constant array, struct or vector (of plain data or not).
    pub fn aggregate_element(self, i: u32) -> Value<'a> {
        match self.kind() {
            ValueKind::ConstData => self.const_data_element(i),
            _ => self.operand(i),
        }
    }

    /// The bytes of a constant data array of i8 (a C string).
    pub fn const_bytes(self) -> Option<Vec<u8>> {
        if self.kind() != ValueKind::ConstData {
            return None;
        }
        if LLVMIsConstantString(self.must()) == 0 {
            return None;
        }
        let mut len = 0;
        // SAFETY: a constant string of a live module (checked); LLVM gives its length.
        let p = unsafe { llvm_sys::core::LLVMGetAsString(self.0, &mut len) };
        Some(ffi::lent(p, len))
    }

    pub fn name(self) -> String {
        ffi::name(self.0)
    }

    /// The name's bytes as LLVM holds them (empty if it has none).
    pub fn name_bytes(self) -> Vec<u8> {
        ffi::value_name(self.0)
    }

    pub fn set_name(self, name: &str) {
        let c = cstr(name);
        // SAFETY: a value of a live module; LLVM reads `name.len()` bytes of the name.
        unsafe { llvm_sys::core::LLVMSetValueName2(self.0, c.as_ptr(), name.len()) }
    }

    /// The value as LLVM prints it.
    pub fn text(self) -> String {
        ffi::value_text(self.0)
    }

    /// `file:line:col` of the instruction's debug location, if it has one.
    pub fn debug_loc(self) -> Option<String> {
        let inst = self.is_a::<Inst>()?;
        let line = LLVMGetDebugLocLine(inst);
        if line == 0 {
            return None;
        }
        let mut len = 0;
        // SAFETY: an instruction of a live module; the name is copied out at once.
        let p = unsafe { llvm_sys::core::LLVMGetDebugLocFilename(self.0, &mut len) };
        let file = String::from_utf8_lossy(&ffi::lent(p, len as usize)).into_owned();
        let col = LLVMGetDebugLocColumn(inst);
        Some(format!("{file}:{line}:{col}"))
    }

    /// The block an instruction is in.
    pub fn parent_block(self) -> Block<'a> {
        LLVMGetInstructionParent(self.must())
    }

    // --- instructions -------------------------------------------------------------------

    pub fn alignment(self) -> u32 {
        LLVMGetAlignment(self.must())
    }

    pub fn is_volatile(self) -> bool {
        LLVMGetVolatile(self.must()) != 0
    }

    /// The ordering of an atomic load, store, atomicrmw or fence.
    pub fn ordering(self) -> Ordering {
        let _: Is<Inst> = self.must();
        // SAFETY: an instruction of a live module (LLVM reads a load's, store's,
        // atomicrmw's or fence's; callers ask only those).
        unsafe { llvm_sys::core::LLVMGetOrdering(self.0) }
    }

    pub fn rmw_op(self) -> RmwOp {
        LLVMGetAtomicRMWBinOp(self.must())
    }

    pub fn icmp_pred(self) -> IntPred {
        LLVMGetICmpPredicate(self)
    }

    pub fn fcmp_pred(self) -> RealPred {
        LLVMGetFCmpPredicate(self)
    }

    pub fn allocated_type(self) -> Type<'a> {
        LLVMGetAllocatedType(self.must())
    }

    /// The source element type of a getelementptr (instruction or constant expression).
    pub fn gep_source_type(self) -> Type<'a> {
        LLVMGetGEPSourceElementType(self.must())
    }

    /// The indices of an extractvalue or insertvalue.
    pub fn agg_indices(self) -> Vec<u32> {
        let n = LLVMGetNumIndices(self.must()) as usize;
        // SAFETY: an extractvalue or insertvalue of a live module (checked); the array has
        // LLVM's count of entries.
        unsafe {
            let p = llvm_sys::core::LLVMGetIndices(self.0);
            if n == 0 || p.is_null() {
                return Vec::new();
            }
            std::slice::from_raw_parts(p, n).to_vec()
        }
    }

    /// The mask of a shufflevector (`None` for an undefined element).
    pub fn shuffle_mask(self) -> Vec<Option<u32>> {
        let undef = LLVMGetUndefMaskElem();
        (0..LLVMGetNumMaskElements(self.must()))
            .map(|i| {
                // SAFETY: a shufflevector of a live module (checked), `i` below its count.
                let m = unsafe { llvm_sys::core::LLVMGetMaskValue(self.0, i) };
                (m != undef && m >= 0).then_some(m as u32)
            })
            .collect()
    }

    /// The value a call calls.
    pub fn called_value(self) -> Value<'a> {
        LLVMGetCalledValue(self.must())
    }

    /// The function type a call calls through.
    pub fn called_fn_type(self) -> Type<'a> {
        LLVMGetCalledFunctionType(self.must())
    }

    /// The number of arguments of a call.
    pub fn arg_count(self) -> u32 {
        LLVMGetNumArgOperands(self.must())
    }

    pub fn arg(self, i: u32) -> Value<'a> {
        assert!(i < self.arg_count());
        self.operand(i)
    }

    pub fn is_tail_call(self) -> bool {
        LLVMIsTailCall(self.must()) != 0
    }

    /// A terminator's successors.
    pub fn successors(self) -> Vec<Block<'a>> {
        (0..LLVMGetNumSuccessors(self.must()))
            // SAFETY: a terminator of a live module (checked), `i` below its count.
            .map(|i| b(unsafe { llvm_sys::core::LLVMGetSuccessor(self.0, i) }))
            .collect()
    }

    /// A phi's incoming (value, block) pairs.
    pub fn incoming(self) -> Vec<(Value<'a>, Block<'a>)> {
        (0..LLVMCountIncoming(self.must()))
            .map(|i| {
                // SAFETY: a phi of a live module (checked), `i` below its count.
                unsafe {
                    (
                        v(llvm_sys::core::LLVMGetIncomingValue(self.0, i)),
                        b(llvm_sys::core::LLVMGetIncomingBlock(self.0, i)),
                    )
                }
            })
            .collect()
    }

    /// A switch's cases: (value, destination).
    pub fn switch_cases(self) -> Vec<(Value<'a>, Block<'a>)> {
        let n = self.num_operands();
        (1..n / 2)
            .map(|k| (self.operand(2 * k), self.operand_block(2 * k + 1)))
            .collect()
    }

    pub fn switch_default(self) -> Block<'a> {
        LLVMGetSwitchDefaultDest(self.must())
    }

    /// The normal and unwind destinations of an invoke.
    pub fn invoke_dests(self) -> (Block<'a>, Block<'a>) {
        (
            LLVMGetNormalDest(self.must()),
            LLVMGetUnwindDest(self.must()),
        )
    }

    /// Whether an atomic instruction is for one thread only (`syncscope("singlethread")`).
    pub fn is_single_thread(self) -> bool {
        let _: Is<Inst> = self.must();
        // SAFETY: an instruction of a live module (LLVM reads an atomicrmw's or cmpxchg's;
        // callers ask only those).
        unsafe { llvm_sys::core::LLVMIsAtomicSingleThread(self.0) != 0 }
    }

    /// Whether a cmpxchg is weak.
    pub fn is_weak(self) -> bool {
        LLVMGetWeak(self.must()) != 0
    }

    // --- functions ----------------------------------------------------------------------

    pub fn params(self) -> Vec<Value<'a>> {
        let n = LLVMCountParams(self.must()) as usize;
        let mut out = vec![std::ptr::null_mut(); n];
        // SAFETY: a function of a live module (checked); the array is sized by LLVM's count.
        unsafe { llvm_sys::core::LLVMGetParams(self.0, out.as_mut_ptr()) };
        out.into_iter().map(v).collect()
    }

    pub fn blocks(self) -> Vec<Block<'a>> {
        ffi::blocks(self.0).map(b).collect()
    }

    pub fn entry_block(self) -> Option<Block<'a>> {
        let f = self.must();
        (LLVMCountBasicBlocks(f) > 0).then(|| LLVMGetEntryBasicBlock(f))
    }

    /// A function's type (not its pointer type).
    pub fn function_type(self) -> Type<'a> {
        let _: Is<Func> = self.must();
        LLVMGlobalGetValueType(self.must())
    }

    /// A global's value type (what its address points to).
    pub fn value_type(self) -> Type<'a> {
        LLVMGlobalGetValueType(self.must())
    }

    pub fn is_declaration(self) -> bool {
        LLVMIsDeclaration(self.must()) != 0
    }

    pub fn linkage(self) -> Linkage {
        LLVMGetLinkage(self.must())
    }

    pub fn set_linkage(self, l: Linkage) {
        LLVMSetLinkage(self.must(), l)
    }

    pub fn set_visibility(self, v: LLVMVisibility) {
        LLVMSetVisibility(self.must(), v)
    }

    /// Makes a global value internal, with default visibility and no comdat, as the
    /// simplification's internalizing does.
    pub fn internalize(self) {
        let g = self.must();
        LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
        LLVMSetVisibility(g, LLVMVisibility::LLVMDefaultVisibility);
        // Only a function or a variable has a comdat (an alias has none: LLVM would take
        // it for one of those).
        if matches!(self.kind(), ValueKind::Function | ValueKind::GlobalVariable) {
            // SAFETY: a function or global variable of a live module (checked); a null
            // comdat removes it.
            unsafe { llvm_sys::comdat::LLVMSetComdat(self.0, std::ptr::null_mut()) };
        }
        LLVMSetDLLStorageClass(g, llvm_sys::LLVMDLLStorageClass::LLVMDefaultStorageClass);
    }

    /// Enum attribute `name` at `idx` (0 the return, 1.. the parameters or arguments) of a
    /// function or call, if it has it.
    fn enum_attr(self, idx: u32, name: &str) -> Option<LLVMAttributeRef> {
        let k = attr_kind(name);
        let a = match self.is_a::<Func>() {
            Some(f) => LLVMGetEnumAttributeAtIndex(f, idx, k),
            None => LLVMGetCallSiteEnumAttribute(self.must(), idx, k),
        };
        (k != 0 && !a.is_null()).then_some(a)
    }

    /// Whether a function or call has enum attribute `name` at `idx`.
    pub fn has_attr(self, idx: u32, name: &str) -> bool {
        self.enum_attr(idx, name).is_some()
    }

    /// The type of a function's or call's type attribute `name` (`byval`, `sret`) at
    /// `idx`, if present.
    pub fn type_attr(self, idx: u32, name: &str) -> Option<Type<'a>> {
        let a = self.enum_attr(idx, name)?;
        // SAFETY: an attribute of a live module; `name` names a type attribute.
        Some(t(unsafe { llvm_sys::core::LLVMGetTypeAttributeValue(a) }))
    }

    /// Adds enum attribute `name` to a function (`u32::MAX`), return (0) or parameter.
    pub fn add_fn_attr(self, idx: u32, name: &str) {
        let k = attr_kind(name);
        let a = LLVMCreateEnumAttribute(LLVMGetTypeContext(self.ty()), k, 0);
        LLVMAddAttributeAtIndex(self.must(), idx, a);
    }

    /// Adds string attribute `key`=`val` to a function.
    pub fn add_fn_string_attr(self, key: &str, val: &str) {
        let a = Attr::string(LLVMGetTypeContext(self.ty()), key, val);
        LLVMAddAttributeAtIndex(self.must(), u32::MAX, a);
    }

    /// Whether a function is an intrinsic (`llvm.*`).
    pub fn is_intrinsic(self) -> bool {
        let id = self.is_a::<Func>().map_or(0, |f| LLVMGetIntrinsicID(f));
        id != 0 || self.name().starts_with("llvm.")
    }

    // --- global variables ---------------------------------------------------------------

    pub fn initializer(self) -> Option<Value<'a>> {
        opt_v(LLVMGetInitializer(self.must()))
    }

    pub fn set_initializer(self, c: Value<'a>) {
        LLVMSetInitializer(self.must(), c)
    }

    pub fn is_global_constant(self) -> bool {
        LLVMIsGlobalConstant(self.must()) != 0
    }

    pub fn set_global_constant(self, c: bool) {
        LLVMSetGlobalConstant(self.must(), c as i32)
    }

    pub fn is_externally_initialized(self) -> bool {
        LLVMIsExternallyInitialized(self.must()) != 0
    }

    pub fn visibility(self) -> LLVMVisibility {
        LLVMGetVisibility(self.must())
    }

    pub fn unnamed_addr(self) -> LLVMUnnamedAddr {
        LLVMGetUnnamedAddress(self.must())
    }

    /// Whether a global value is placed in a section of its own.
    pub fn has_section(self) -> bool {
        let p = LLVMGetSection(self.must());
        // SAFETY: null, or a NUL-terminated name the live global owns (one byte is read).
        !p.is_null() && unsafe { *p } != 0
    }

    /// Whether a function names a garbage collector.
    pub fn has_gc(self) -> bool {
        !LLVMGetGC(self.must()).is_null()
    }

    /// The attributes of a function or call at `idx` (0 the return, 1.. the parameters or
    /// arguments, `u32::MAX` the function).
    pub fn attributes(self, idx: u32) -> Vec<Attribute<'a>> {
        let attrs = match self.is_a::<Func>() {
            Some(f) => Attr::of_function(f, idx),
            None => Attr::of_call(self.must(), idx),
        };
        attrs.into_iter().map(Attribute).collect()
    }

    /// The string of metadata-as-value `self`, if it is an MDString.
    pub fn md_string(self) -> Option<Vec<u8>> {
        (self.kind() == ValueKind::Metadata)
            .then(|| ffi::md_string(self.0))
            .flatten()
    }

    /// The operands of metadata node `self` (`None` where an operand is null).
    pub fn md_operands(self) -> Vec<Option<Value<'a>>> {
        assert_eq!(self.kind(), ValueKind::Metadata, "not metadata");
        ffi::md_operands(self.0).into_iter().map(opt_v).collect()
    }

    pub fn is_thread_local(self) -> bool {
        LLVMIsThreadLocal(self.must()) != 0
    }

    pub fn set_alignment(self, a: u32) {
        LLVMSetAlignment(self.must(), a)
    }

    pub fn set_unnamed_addr(self, u: bool) {
        let u = if u {
            LLVMUnnamedAddr::LLVMGlobalUnnamedAddr
        } else {
            LLVMUnnamedAddr::LLVMNoUnnamedAddr
        };
        LLVMSetUnnamedAddress(self.must(), u)
    }

    /// An alias's aliasee.
    pub fn aliasee(self) -> Value<'a> {
        LLVMAliasGetAliasee(self.must())
    }

    /// Replaces every use of this value with `with` (of the same type).
    pub fn replace_all_uses_with(self, with: Value<'a>) {
        assert_eq!(
            self.ty(),
            with.ty(),
            "replacing a value with one of another type"
        );
        LLVMReplaceAllUsesWith(self, with)
    }

    /// The users of this value (each once per use).
    pub fn users(self) -> Vec<Value<'a>> {
        let mut out = Vec::new();
        let mut u = LLVMGetFirstUse(self);
        // SAFETY: a use of a live value; the use list is read, not changed.
        unsafe {
            while !u.is_null() {
                out.push(v(llvm_sys::core::LLVMGetUser(u)));
                u = llvm_sys::core::LLVMGetNextUse(u);
            }
        }
        out
    }

    pub fn has_uses(self) -> bool {
        !LLVMGetFirstUse(self).is_null()
    }

    /// The raw handle, for the module's raw builder (`llvm::export`, which makes calls of
    /// what this layer built).
    pub(in crate::llvm) fn as_raw(self) -> LLVMValueRef {
        self.0
    }

    pub fn is_instruction(self) -> bool {
        matches!(self.kind(), ValueKind::Instruction(_))
    }

    pub fn is_argument(self) -> bool {
        self.kind() == ValueKind::Argument
    }

    /// Puts `with` as operand `i` (of a matching type).
    pub fn set_operand(self, i: u32, with: Value<'a>) {
        assert!(i < self.num_operands(), "operand {i} out of range");
        // SAFETY: a user of a live module, `i` in range, a value of the same module.
        unsafe { llvm_sys::core::LLVMSetOperand(self.0, i, with.0) }
    }

    /// Makes successor `i` of terminator `self` block `to`.
    pub fn set_successor(self, i: u32, to: Block<'a>) {
        assert!(
            i < LLVMGetNumSuccessors(self.must()),
            "successor {i} out of range"
        );
        // SAFETY: a terminator of a live module (checked), `i` below its count, a block.
        unsafe { llvm_sys::core::LLVMSetSuccessor(self.0, i, to.0) }
    }

    /// The instruction after this one in its block.
    pub fn next_instruction(self) -> Option<Value<'a>> {
        opt_v(LLVMGetNextInstruction(self.must()))
    }

    /// A function's or call's calling convention.
    pub fn call_conv(self) -> u32 {
        match self.is_a::<Func>() {
            Some(f) => LLVMGetFunctionCallConv(f),
            None => LLVMGetInstructionCallConv(self.must()),
        }
    }

    pub fn set_call_conv(self, cc: u32) {
        LLVMSetInstructionCallConv(self.must(), cc)
    }

    /// Gives call `self` the return attributes of function `f` (which it calls).
    pub fn copy_return_attrs(self, f: Value<'a>) {
        let call = self.must();
        for a in Attr::of_function(f.must(), 0) {
            LLVMAddCallSiteAttribute(call, 0, a);
        }
    }
}

/// An attribute of a function, a parameter, a return value or a call site.
#[derive(Clone, Copy)]
pub struct Attribute<'a>(Attr<'a>);

impl Attribute<'_> {
    /// A string attribute's key and value.
    pub fn string_pair(self) -> Option<(Vec<u8>, Vec<u8>)> {
        self.0.string_pair()
    }

    /// An enum or integer attribute's kind (as [`attr_kind`] numbers them).
    pub fn kind(self) -> Option<u32> {
        (LLVMIsStringAttribute(self.0) == 0).then(|| LLVMGetEnumAttributeKind(self.0))
    }

    /// The value of integer attribute `align`, `alignstack`, `dereferenceable` or
    /// `dereferenceable_or_null`; `None` for others.
    pub fn int_value(self) -> Option<u64> {
        const INT: [&str; 4] = [
            "align",
            "alignstack",
            "dereferenceable",
            "dereferenceable_or_null",
        ];
        let k = self.kind()?;
        let int = INT.iter().any(|n| attr_kind(n) == k) && LLVMIsEnumAttribute(self.0) != 0;
        int.then(|| LLVMGetEnumAttributeValue(self.0))
    }
}

/// The kind LLVM numbers enum attribute `name` with (0: no such attribute).
pub fn attr_kind(name: &str) -> u32 {
    // SAFETY: LLVM reads `len` bytes of `name`.
    unsafe {
        llvm_sys::core::LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len())
    }
}

impl<'a> Block<'a> {
    pub fn instructions(self) -> Vec<Value<'a>> {
        List::of_block(self.0).map(v).collect()
    }

    pub fn terminator(self) -> Option<Value<'a>> {
        opt_v(LLVMGetBasicBlockTerminator(self))
    }

    pub fn first_instruction(self) -> Option<Value<'a>> {
        opt_v(LLVMGetFirstInstruction(self))
    }

    /// The first instruction that is not a phi (where a value for the whole block goes).
    pub fn first_non_phi(self) -> Option<Value<'a>> {
        self.instructions()
            .into_iter()
            .find(|i| i.opcode() != Some(Opcode::LLVMPHI))
    }

    pub fn name(self) -> String {
        // SAFETY: a block of a live module; the name is copied at once.
        unsafe {
            let p = llvm_sys::core::LLVMGetBasicBlockName(self.0);
            if p.is_null() {
                return String::new();
            }
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }

    /// The block as a value (what a blockaddress's operand is).
    pub fn as_value(self) -> Value<'a> {
        LLVMBasicBlockAsValue(self)
    }
}

impl<'a> Module<'a> {
    /// The raw handle, for the module's raw builder (`llvm::export`).
    pub(in crate::llvm) fn as_raw(self) -> LLVMModuleRef {
        self.raw.0
    }

    pub fn of(m: &'a inkwell::module::Module<'_>) -> Module<'a> {
        // The inkwell module is alive for 'a.
        let raw = Mod(m.as_mut_ptr(), PhantomData);
        Module {
            raw,
            ctx: LLVMGetModuleContext(raw),
        }
    }

    pub fn functions(self) -> Vec<Value<'a>> {
        ffi::functions(self.raw.0).map(v).collect()
    }

    pub fn globals(self) -> Vec<Value<'a>> {
        ffi::globals(self.raw.0).map(v).collect()
    }

    pub fn aliases(self) -> Vec<Value<'a>> {
        let mut out = Vec::new();
        let mut a = opt_v(LLVMGetFirstGlobalAlias(self.raw));
        while let Some(x) = a {
            out.push(x);
            a = opt_v(LLVMGetNextGlobalAlias(x.must()));
        }
        out
    }

    pub fn function(self, name: &str) -> Option<Value<'a>> {
        let c = cstr(name);
        opt_v(LLVMGetNamedFunction(self.raw, Name::of(&c)))
    }

    pub fn global(self, name: &str) -> Option<Value<'a>> {
        let c = cstr(name);
        opt_v(LLVMGetNamedGlobal(self.raw, Name::of(&c)))
    }

    /// The names of the module's named metadata, in order.
    pub fn named_metadata_names(self) -> Vec<Vec<u8>> {
        use llvm_sys::core::LLVMGetNextNamedMetadata;
        use llvm_sys::core::{LLVMGetFirstNamedMetadata, LLVMGetNamedMetadataName};
        let mut names = Vec::new();
        // SAFETY: the module is alive; its list of named metadata is read, not changed,
        // and each name LLVM lends is copied at once.
        unsafe {
            let mut md = LLVMGetFirstNamedMetadata(self.raw.0);
            while !md.is_null() {
                let mut len = 0;
                let p = LLVMGetNamedMetadataName(md, &mut len);
                names.push(ffi::lent(p, len));
                md = LLVMGetNextNamedMetadata(md);
            }
        }
        names
    }

    /// The nodes of named metadata `name`.
    pub fn named_metadata(self, name: &str) -> Vec<Value<'a>> {
        ffi::named_metadata(self.raw.0, name)
            .into_iter()
            .map(v)
            .collect()
    }

    /// The module's inline assembly, if any.
    pub fn inline_asm(self) -> String {
        let mut len = 0;
        // SAFETY: the module is alive; the text is copied at once.
        let p = unsafe { llvm_sys::core::LLVMGetModuleInlineAsm(self.raw.0, &mut len) };
        String::from_utf8_lossy(&ffi::lent(p, len)).into_owned()
    }

    pub fn triple(self) -> String {
        // SAFETY: the module is alive.
        ffi::module_string(unsafe { llvm_sys::core::LLVMGetTarget(self.raw.0) })
    }

    pub fn data_layout_text(self) -> String {
        // SAFETY: the module is alive.
        ffi::module_string(unsafe { llvm_sys::core::LLVMGetDataLayoutStr(self.raw.0) })
    }

    pub fn set_triple_and_layout(self, triple: &str, layout: &str) {
        let (tc, lc) = (cstr(triple), cstr(layout));
        LLVMSetTarget(self.raw, Name::of(&tc));
        LLVMSetDataLayout(self.raw, Name::of(&lc));
    }

    /// Adds a function (a declaration until blocks are appended).
    pub fn add_function(self, name: &str, fn_ty: Type<'a>) -> Value<'a> {
        let c = cstr(name);
        LLVMAddFunction(self.raw, Name::of(&c), fn_ty.must())
    }

    /// Adds a global variable of type `ty`.
    pub fn add_global(self, ty: Type<'a>, name: &str) -> Value<'a> {
        let c = cstr(name);
        LLVMAddGlobal(self.raw, ty.must(), Name::of(&c))
    }

    /// Appends a new block to function `f`.
    pub fn append_block(self, f: Value<'a>, name: &str) -> Block<'a> {
        let c = cstr(name);
        LLVMAppendBasicBlockInContext(self.ctx, f.must(), Name::of(&c))
    }

    /// A new block just before block `before`, in its function.
    pub fn insert_block_before(self, before: Block<'a>, name: &str) -> Block<'a> {
        let c = cstr(name);
        LLVMInsertBasicBlockInContext(self.ctx, before, Name::of(&c))
    }

    /// A global of type `ty` in address space `space`, declared (no initializer).
    pub fn add_global_in_space(self, ty: Type<'a>, name: &str, space: u32) -> Value<'a> {
        let c = cstr(name);
        LLVMAddGlobalInAddressSpace(self.raw, ty.must(), Name::of(&c), space)
    }

    /// The module's data layout, for sizes and offsets.
    pub fn layout(self) -> Layout<'a> {
        let text = cstr(&self.data_layout_text());
        // SAFETY: LLVM parses the string into a data layout that `Layout` owns and frees.
        let raw = unsafe { llvm_sys::target::LLVMCreateTargetData(text.as_ptr()) };
        Layout {
            raw,
            _l: PhantomData,
        }
    }

    pub fn text(self) -> String {
        ffi::module_text(self.raw.0)
    }

    pub fn types(self) -> Types<'a> {
        Types { ctx: self.ctx }
    }

    /// A builder for this module's functions.
    pub fn builder(self) -> Builder<'a> {
        // Disposed by `Builder`'s drop.
        let raw = LLVMCreateBuilderInContext(self.ctx);
        Builder {
            raw,
            module: self,
            holder: std::cell::Cell::new(None),
        }
    }

    /// Runs LLVM's verifier: the first problem it reports, if any.
    pub fn verify(m: &inkwell::module::Module<'_>) -> Result<(), String> {
        m.verify().map_err(|e| e.to_string())
    }
}

/// Runs LLVM's new pass manager with pipeline `passes` (`opt -passes=` syntax) over the
/// module, its vectorizers off (a pexe has few vector types). No handle of the module can
/// be alive across it (it takes the module mutably).
pub fn run_passes(m: &mut inkwell::module::Module<'_>, passes: &str) -> Result<(), String> {
    use llvm_sys::transforms::pass_builder::*;
    let p = cstr(passes);
    // SAFETY: the module is alive and borrowed mutably (no handle into it is alive); the
    // options are created and disposed here; an error message is read and freed once.
    unsafe {
        let opts = LLVMCreatePassBuilderOptions();
        LLVMPassBuilderOptionsSetLoopVectorization(opts, 0);
        LLVMPassBuilderOptionsSetSLPVectorization(opts, 0);
        let err = LLVMRunPasses(m.as_mut_ptr(), p.as_ptr(), std::ptr::null_mut(), opts);
        LLVMDisposePassBuilderOptions(opts);
        if err.is_null() {
            Ok(())
        } else {
            let msg = llvm_sys::error::LLVMGetErrorMessage(err);
            let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
            llvm_sys::error::LLVMDisposeErrorMessage(msg);
            Err(s)
        }
    }
}

/// Links `src` into `dst` (LLVM's linker; `src` is consumed). The error is LLVM's words.
pub fn link_into<'c>(
    dst: &mut inkwell::module::Module<'c>,
    src: inkwell::module::Module<'c>,
) -> Result<(), String> {
    dst.link_in_module(src).map_err(|e| e.to_string())
}

/// A module's data layout: sizes, alignments and offsets of its types.
pub struct Layout<'a> {
    raw: llvm_sys::target::LLVMTargetDataRef,
    _l: PhantomData<&'a ()>,
}

impl Drop for Layout<'_> {
    fn drop(&mut self) {
        // SAFETY: made by LLVMCreateTargetData for this `Layout`, freed once.
        unsafe { llvm_sys::target::LLVMDisposeTargetData(self.raw) }
    }
}

impl<'a> Layout<'a> {
    fn td(&self) -> Td<'_> {
        Td(self.raw, PhantomData)
    }

    /// Bytes between consecutive elements of type `ty` in an array.
    pub fn alloc_size(&self, ty: Type<'a>) -> u64 {
        LLVMABISizeOfType(self.td(), ty.must())
    }

    /// Bytes a store of `ty` writes.
    pub fn store_size(&self, ty: Type<'a>) -> u64 {
        LLVMStoreSizeOfType(self.td(), ty.must())
    }

    pub fn abi_align(&self, ty: Type<'a>) -> u32 {
        LLVMABIAlignmentOfType(self.td(), ty.must())
    }

    pub fn little_endian(&self) -> bool {
        LLVMByteOrder(self.td()) == llvm_sys::target::LLVMByteOrdering::LLVMLittleEndian
    }

    /// Bytes of a pointer (address space 0).
    pub fn pointer_size(&self) -> u32 {
        LLVMPointerSize(self.td())
    }

    pub fn pref_align(&self, ty: Type<'a>) -> u32 {
        LLVMPreferredAlignmentOfType(self.td(), ty.must())
    }

    /// The byte offset of field `i` of struct type `ty`.
    pub fn field_offset(&self, ty: Type<'a>, i: u32) -> u64 {
        assert!((i as usize) < ty.struct_fields().len());
        // SAFETY: a struct type of a live context with field `i` (checked).
        unsafe { llvm_sys::target::LLVMOffsetOfElement(self.raw, ty.0, i) }
    }
}

/// The types and constants of a context.
#[derive(Clone, Copy)]
pub struct Types<'a> {
    ctx: Ctx<'a>,
}

impl<'a> Types<'a> {
    /// A literal struct (its type, or a constant) of `items` of this context, made by
    /// `make`: LLVMStructTypeInContext or LLVMConstStructInContext, which copy the array.
    fn literal_struct<T, R>(
        self,
        mut items: Vec<T>,
        packed: bool,
        make: unsafe extern "C" fn(LLVMContextRef, *mut T, u32, LLVMBool) -> R,
    ) -> R {
        // SAFETY: the live context and an array of `items.len()` of its types or constants
        // (the callers' handles), which `make` copies.
        unsafe {
            make(
                self.ctx.0,
                items.as_mut_ptr(),
                items.len() as u32,
                packed as i32,
            )
        }
    }

    pub fn int(self, w: u32) -> Type<'a> {
        LLVMIntTypeInContext(self.ctx, w)
    }
    pub fn i1(self) -> Type<'a> {
        self.int(1)
    }
    pub fn i8(self) -> Type<'a> {
        self.int(8)
    }
    pub fn i32(self) -> Type<'a> {
        self.int(32)
    }
    pub fn i64(self) -> Type<'a> {
        self.int(64)
    }
    pub fn f32(self) -> Type<'a> {
        LLVMFloatTypeInContext(self.ctx)
    }
    pub fn f64(self) -> Type<'a> {
        LLVMDoubleTypeInContext(self.ctx)
    }
    pub fn void(self) -> Type<'a> {
        LLVMVoidTypeInContext(self.ctx)
    }
    pub fn function(self, ret: Type<'a>, params: &[Type<'a>], vararg: bool) -> Type<'a> {
        let mut p: Vec<LLVMTypeRef> = params.iter().map(|x| x.0).collect();
        // SAFETY: types of the live context; LLVM copies the array.
        t(unsafe {
            llvm_sys::core::LLVMFunctionType(ret.0, p.as_mut_ptr(), p.len() as u32, vararg as i32)
        })
    }
    /// A literal struct type.
    pub fn structure(self, fields: &[Type<'a>], packed: bool) -> Type<'a> {
        let raw: Vec<LLVMTypeRef> = fields.iter().map(|x| x.0).collect();
        t(self.literal_struct(raw, packed, llvm_sys::core::LLVMStructTypeInContext))
    }
    pub fn array(self, elem: Type<'a>, n: u64) -> Type<'a> {
        assert!(n <= u32::MAX as u64, "array too long for LLVM 14's C API");
        LLVMArrayType(elem.must(), n as u32)
    }
    pub fn vector(self, elem: Type<'a>, n: u32) -> Type<'a> {
        LLVMVectorType(elem.must(), n)
    }

    // --- constants ----------------------------------------------------------------------

    /// An integer constant of type `ty` (its low bits of `x`).
    pub fn const_int(self, ty: Type<'a>, x: u64) -> Value<'a> {
        LLVMConstInt(ty.must(), x, 0)
    }
    pub fn const_i32(self, x: i64) -> Value<'a> {
        self.const_int(self.i32(), x as u64)
    }
    pub fn const_f64(self, ty: Type<'a>, x: f64) -> Value<'a> {
        LLVMConstReal(ty.must(), x)
    }
    pub fn undef(self, ty: Type<'a>) -> Value<'a> {
        LLVMGetUndef(ty)
    }
    /// The zero of `ty` (null, 0, 0.0, zeroinitializer).
    pub fn zero(self, ty: Type<'a>) -> Value<'a> {
        LLVMConstNull(ty.must())
    }
    /// An array of i8 holding `bytes` (no terminating zero added).
    pub fn const_bytes(self, bytes: &[u8]) -> Value<'a> {
        // SAFETY: the context is alive; LLVM copies the bytes.
        v(unsafe {
            llvm_sys::core::LLVMConstStringInContext(
                self.ctx.0,
                bytes.as_ptr() as *const _,
                bytes.len() as u32,
                1,
            )
        })
    }
    /// A literal struct constant.
    pub fn const_struct(self, fields: &[Value<'a>], packed: bool) -> Value<'a> {
        v(self.literal_struct(
            raws(fields),
            packed,
            llvm_sys::core::LLVMConstStructInContext,
        ))
    }
    /// A constant array of `elem` values.
    pub fn const_array(self, elem: Type<'a>, vals: &[Value<'a>]) -> Value<'a> {
        let mut p = raws(vals);
        // SAFETY: constants of type `elem` of the live context; LLVM copies the array.
        v(unsafe { llvm_sys::core::LLVMConstArray(elem.0, p.as_mut_ptr(), p.len() as u32) })
    }
    /// A constant vector.
    pub fn const_vector(self, vals: &[Value<'a>]) -> Value<'a> {
        let mut p = raws(vals);
        // SAFETY: constants of one type of the live context; LLVM copies the array.
        v(unsafe { llvm_sys::core::LLVMConstVector(p.as_mut_ptr(), p.len() as u32) })
    }
    /// `ptrtoint (g to i32)` as a constant expression (for initializers).
    pub fn const_ptrtoint(self, g: Value<'a>) -> Value<'a> {
        LLVMConstPtrToInt(g.must(), self.i32().must())
    }
    /// `add (a, b)` as a constant expression (for initializers).
    pub fn const_add(self, a: Value<'a>, c: Value<'a>) -> Value<'a> {
        LLVMConstAdd(a.must(), c.must())
    }
    /// `bitcast (c to ty)` as a constant expression.
    pub fn const_bitcast(self, c: Value<'a>, ty: Type<'a>) -> Value<'a> {
        LLVMConstBitCast(c.must(), ty)
    }
}

/// A builder: appends instructions at a position. Every `build_*` returns an instruction,
/// never a folded constant, where the operation involves a pointer (`cast`): the
/// simplification's output keeps pointer casts as instructions, as a pexe has them.
pub struct Builder<'a> {
    raw: LLVMBuilderRef,
    module: Module<'a>,
    /// A function of its own (made lazily, deleted with the builder) whose one block
    /// holds stand-ins for the moment each is used.
    holder: std::cell::Cell<Option<Value<'a>>>,
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        // SAFETY: the builder was made for this `Builder` and is disposed once; the holder
        // function, if made, is in the live module, no handle names it, and its block is
        // empty (each stand-in is deleted where it was made).
        unsafe {
            if let Some(h) = self.holder.get() {
                llvm_sys::core::LLVMDeleteFunction(h.0);
            }
            llvm_sys::core::LLVMDisposeBuilder(self.raw)
        }
    }
}

impl<'a> Builder<'a> {
    fn b(&self) -> Bld<'_> {
        Bld(self.raw, PhantomData)
    }

    pub fn position_at_end(&self, blk: Block<'a>) {
        LLVMPositionBuilderAtEnd(self.b(), blk)
    }

    pub fn position_before(&self, inst: Value<'a>) {
        LLVMPositionBuilderBefore(self.b(), inst.must())
    }

    /// The block the builder appends to.
    pub fn block(&self) -> Block<'a> {
        let blk = LLVMGetInsertBlock(self.b());
        assert!(!blk.is_null(), "the builder is at no block");
        b(blk)
    }

    /// A non-constant value of type `ty` for an operand the builder must not see (it would
    /// fold the instruction): a phi in a function of its own, which the caller deletes once
    /// it has put the real operand in its place.
    fn stand_in(&self, ty: Type<'a>) -> Value<'a> {
        let h = match self.holder.get() {
            Some(h) => h,
            None => {
                let m = self.module;
                let fty = m.types().function(m.types().void(), &[], false);
                let h = LLVMAddFunction(m.raw, Name::of(c"pnacl.stand.ins"), fty.must());
                LLVMAppendBasicBlockInContext(m.ctx, h.must(), EMPTY);
                self.holder.set(Some(h));
                h
            }
        };
        let hb = Builder {
            raw: LLVMCreateBuilderInContext(self.module.ctx),
            module: self.module,
            holder: std::cell::Cell::new(None),
        };
        hb.position_at_end(LLVMGetEntryBasicBlock(h.must()));
        hb.phi(ty)
    }

    /// An instruction made with stand-in `ph` as operand 0, which takes `x` in its place;
    /// the stand-in is deleted.
    fn put_for_stand_in(&self, inst: Value<'a>, ph: Value<'a>, x: Value<'a>) -> Value<'a> {
        inst.set_operand(0, x);
        // SAFETY: the stand-in, a phi of the holder's block, now unused; no handle to it
        // is left (`stand_in`'s callers hand it only here).
        unsafe { llvm_sys::core::LLVMInstructionEraseFromParent(ph.0) };
        inst
    }

    pub fn binop(&self, op: Opcode, l: Value<'a>, r: Value<'a>) -> Value<'a> {
        LLVMBuildBinOp(self.b(), op, l, r, EMPTY)
    }

    pub fn icmp(&self, p: IntPred, l: Value<'a>, r: Value<'a>) -> Value<'a> {
        LLVMBuildICmp(self.b(), p, l, r, EMPTY)
    }

    pub fn fcmp(&self, p: RealPred, l: Value<'a>, r: Value<'a>) -> Value<'a> {
        LLVMBuildFCmp(self.b(), p, l, r, EMPTY)
    }

    pub fn select(&self, c: Value<'a>, x: Value<'a>, y: Value<'a>) -> Value<'a> {
        LLVMBuildSelect(self.b(), c, x, y, EMPTY)
    }

    /// A cast. One from or to a pointer is always an instruction (never folded into a
    /// constant expression); others fold as LLVM folds them.
    pub fn cast(&self, op: Opcode, x: Value<'a>, ty: Type<'a>) -> Value<'a> {
        if x.ty() == ty && op == Opcode::LLVMBitCast {
            return x;
        }
        let pointerish = x.ty().is_pointer() || ty.is_pointer();
        if pointerish && x.is_constant() {
            let ph = self.stand_in(x.ty());
            let c = LLVMBuildCast(self.b(), op, ph, ty, EMPTY);
            return self.put_for_stand_in(c, ph, x);
        }
        LLVMBuildCast(self.b(), op, x, ty, EMPTY)
    }

    /// A load; `align` 0 leaves the type's ABI alignment, which LLVM gives.
    pub fn load(&self, ty: Type<'a>, ptr: Value<'a>, align: u32) -> Value<'a> {
        let l = LLVMBuildLoad2(self.b(), ty, ptr, EMPTY);
        if align != 0 {
            l.set_alignment(align);
        }
        l
    }

    /// A store; `align` 0 leaves the type's ABI alignment, which LLVM gives.
    pub fn store(&self, val: Value<'a>, ptr: Value<'a>, align: u32) -> Value<'a> {
        let s = LLVMBuildStore(self.b(), val, ptr);
        if align != 0 {
            s.set_alignment(align);
        }
        s
    }

    /// `alloca i8, i32 size, align`.
    pub fn alloca_bytes(&self, size: Value<'a>, align: u32) -> Value<'a> {
        let i8t = self.module.types().i8();
        let a = LLVMBuildArrayAlloca(self.b(), i8t.must(), size, EMPTY);
        a.set_alignment(align);
        a
    }

    /// `alloca ty` (`n` of them), at the type's preferred alignment.
    pub fn alloca(&self, ty: Type<'a>, n: Option<Value<'a>>) -> Value<'a> {
        match n {
            Some(n) => LLVMBuildArrayAlloca(self.b(), ty.must(), n, EMPTY),
            None => LLVMBuildAlloca(self.b(), ty.must(), EMPTY),
        }
    }

    /// `base` (an i8 pointer) plus `offset` bytes: a getelementptr of i8, not inbounds.
    pub fn byte_gep(&self, base: Value<'a>, offset: Value<'a>) -> Value<'a> {
        let i8t = self.module.types().i8();
        let mut idx = [offset.0];
        // SAFETY: a live builder, an i8 pointer and an integer of its module.
        v(unsafe {
            llvm_sys::core::LLVMBuildGEP2(
                self.raw,
                i8t.0,
                base.0,
                idx.as_mut_ptr(),
                1,
                c"".as_ptr(),
            )
        })
    }

    /// The address of field `i` of the struct of type `ty` at `base`.
    pub fn struct_gep(&self, ty: Type<'a>, base: Value<'a>, i: u32) -> Value<'a> {
        assert!(
            i < ty.struct_fields().len() as u32,
            "field {i} out of range"
        );
        // SAFETY: a live builder, a struct type with field `i` and a pointer of its module.
        v(unsafe { llvm_sys::core::LLVMBuildStructGEP2(self.raw, ty.0, base.0, i, c"".as_ptr()) })
    }

    /// `atomicrmw op ptr, val, ord`, at alignment `align`.
    pub fn atomic_rmw(
        &self,
        op: RmwOp,
        ptr: Value<'a>,
        val: Value<'a>,
        ord: Ordering,
        align: u32,
    ) -> Value<'a> {
        let r = LLVMBuildAtomicRMW(self.b(), op, ptr, val, ord, 0);
        r.set_alignment(align);
        r
    }

    /// `cmpxchg ptr, expected, desired, success, failure` at alignment `align`: the old
    /// value (the pair's first field).
    pub fn cmpxchg(
        &self,
        ptr: Value<'a>,
        expected: Value<'a>,
        desired: Value<'a>,
        (success, failure): (Ordering, Ordering),
        align: u32,
    ) -> Value<'a> {
        let pair = LLVMBuildAtomicCmpXchg(self.b(), ptr, expected, desired, success, failure, 0);
        pair.set_alignment(align);
        // SAFETY: a live builder and a cmpxchg's pair, which has a field 0.
        v(unsafe { llvm_sys::core::LLVMBuildExtractValue(self.raw, pair.0, 0, c"".as_ptr()) })
    }

    /// An atomic store of `val` at `ptr`, ordering `ord`, alignment `align`.
    pub fn atomic_store(
        &self,
        val: Value<'a>,
        ptr: Value<'a>,
        ord: Ordering,
        align: u32,
    ) -> Value<'a> {
        let s = self.store(val, ptr, align);
        // SAFETY: a store of a live module.
        unsafe { llvm_sys::core::LLVMSetOrdering(s.0, ord) }
        s
    }

    pub fn fence(&self, ord: Ordering) -> Value<'a> {
        LLVMBuildFence(self.b(), ord, 0, EMPTY)
    }

    /// Moves instruction `inst` (of this module) from its block to the builder's position.
    pub fn insert(&self, inst: Value<'a>) {
        let i = inst.must();
        // SAFETY: an instruction of a live module, taken out of its block and put back at
        // once: no handle is left naming a value outside a block.
        unsafe { llvm_sys::core::LLVMInstructionRemoveFromParent(inst.0) };
        LLVMInsertIntoBuilder(self.b(), i);
    }

    /// A call of `callee` (a function, or a pointer to one of type `fn_ty`).
    pub fn call(&self, fn_ty: Type<'a>, callee: Value<'a>, args: &[Value<'a>]) -> Value<'a> {
        let mut a = raws(args);
        // SAFETY: a live builder, a callee of `fn_ty` and arguments of its parameter
        // types, of its module; LLVM copies the array.
        v(unsafe {
            llvm_sys::core::LLVMBuildCall2(
                self.raw,
                fn_ty.0,
                callee.0,
                a.as_mut_ptr(),
                a.len() as u32,
                c"".as_ptr(),
            )
        })
    }

    pub fn set_tail_call(&self, call: Value<'a>, tail: bool) {
        LLVMSetTailCall(call.must(), tail as i32)
    }

    pub fn br(&self, dest: Block<'a>) -> Value<'a> {
        LLVMBuildBr(self.b(), dest)
    }

    pub fn cond_br(&self, c: Value<'a>, t_: Block<'a>, f_: Block<'a>) -> Value<'a> {
        LLVMBuildCondBr(self.b(), c, t_, f_)
    }

    /// A switch; its cases are added with `add_case`.
    pub fn switch(&self, c: Value<'a>, default: Block<'a>, n: u32) -> Value<'a> {
        LLVMBuildSwitch(self.b(), c, default, n)
    }

    pub fn add_case(&self, sw: Value<'a>, val: Value<'a>, dest: Block<'a>) {
        LLVMAddCase(sw.must(), val.must(), dest)
    }

    pub fn ret(&self, val: Option<Value<'a>>) -> Value<'a> {
        match val {
            Some(x) => LLVMBuildRet(self.b(), x),
            None => LLVMBuildRetVoid(self.b()),
        }
    }

    pub fn unreachable(&self) -> Value<'a> {
        LLVMBuildUnreachable(self.b())
    }

    pub fn phi(&self, ty: Type<'a>) -> Value<'a> {
        LLVMBuildPhi(self.b(), ty.must(), EMPTY)
    }

    pub fn add_incoming(&self, phi: Value<'a>, val: Value<'a>, from: Block<'a>) {
        let _: Is<Phi> = phi.must();
        let (mut vv, mut bb) = ([val.0], [from.0]);
        // SAFETY: a phi (checked), a value of its type and a block, of one live module;
        // arrays of one entry each.
        unsafe { llvm_sys::core::LLVMAddIncoming(phi.0, vv.as_mut_ptr(), bb.as_mut_ptr(), 1) }
    }

    pub fn extract_element(&self, vec: Value<'a>, idx: Value<'a>) -> Value<'a> {
        LLVMBuildExtractElement(self.b(), vec, idx, EMPTY)
    }

    /// An insertelement, an instruction even when every operand is a constant (a pexe
    /// holds no constant vectors but undef).
    pub fn insert_element(&self, vec: Value<'a>, elt: Value<'a>, idx: Value<'a>) -> Value<'a> {
        if vec.is_constant() && elt.is_constant() {
            let ph = self.stand_in(vec.ty());
            let i = LLVMBuildInsertElement(self.b(), ph, elt, idx, EMPTY);
            return self.put_for_stand_in(i, ph, vec);
        }
        LLVMBuildInsertElement(self.b(), vec, elt, idx, EMPTY)
    }
}

/// A position to insert before: a no-op instruction that only this layer can name, taken
/// out again by `Builder::remove_marker`.
pub struct Marker<'a> {
    inst: Value<'a>,
}

impl<'a> Builder<'a> {
    /// A marker at the builder's position.
    pub fn marker(&self) -> Marker<'a> {
        let ty = self.module.types();
        let null = ty.zero(ty.i8().ptr());
        Marker {
            inst: self.cast(Opcode::LLVMPtrToInt, null, ty.i32()),
        }
    }

    /// Positions the builder before marker `m`.
    pub fn position_before_marker(&self, m: &Marker<'a>) {
        // The marker's instruction is still in its block (only `remove_marker`, which
        // consumes the marker, takes it out).
        self.position_before(m.inst)
    }

    /// Takes marker `m` out of its block; the builder is left at the end of that block
    /// (never at the removed instruction).
    pub fn remove_marker(&self, m: Marker<'a>) {
        self.position_at_end(m.inst.parent_block());
        // SAFETY: the marker's instruction is in a block of a live module and unused (no
        // handle to it was ever made); the builder is moved off it before it is erased.
        unsafe { llvm_sys::core::LLVMInstructionEraseFromParent(m.inst.0) }
    }
}

/// Atomic orderings and RMW operations, for the passes' matches.
pub mod atomic {
    pub use super::LLVMAtomicOrdering::*;
    pub use super::LLVMAtomicRMWBinOp::*;
}

/// Integer and real predicates, for the passes' matches.
pub mod pred {
    pub use super::LLVMIntPredicate::*;
    pub use super::LLVMRealPredicate::*;
}
