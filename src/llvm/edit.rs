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

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMLinkage, LLVMTypeKind, LLVMValueKind};
use llvm_sys::{LLVMIntPredicate, LLVMRealPredicate, LLVMUnnamedAddr, LLVMVisibility};

pub use llvm_sys::LLVMAtomicOrdering as Ordering;
pub use llvm_sys::LLVMAtomicRMWBinOp as RmwOp;
pub use llvm_sys::LLVMIntPredicate as IntPred;
pub use llvm_sys::LLVMLinkage as Linkage;
pub use llvm_sys::LLVMOpcode as Opcode;
pub use llvm_sys::LLVMRealPredicate as RealPred;

use super::ffi::{self, cstr, List};

const EMPTY: *const std::ffi::c_char = c"".as_ptr();

/// A module being read or built, borrowed for `'a`.
#[derive(Clone, Copy)]
pub struct Module<'a> {
    raw: LLVMModuleRef,
    ctx: LLVMContextRef,
    _l: PhantomData<&'a ()>,
}

/// A value of a module (an instruction, argument, constant, global, function, …). Values
/// order by their address: an order for sorting and deduplication, not a meaning.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value<'a>(LLVMValueRef, PhantomData<&'a ()>);

/// A type of the module's context.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Type<'a>(LLVMTypeRef, PhantomData<&'a ()>);

/// A basic block.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
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
        // SAFETY: a type of a live context (the module's note).
        unsafe {
            match LLVMGetTypeKind(self.0) {
                LLVMVoidTypeKind => TypeKind::Void,
                LLVMIntegerTypeKind => TypeKind::Int(LLVMGetIntTypeWidth(self.0)),
                LLVMFloatTypeKind => TypeKind::Float,
                LLVMDoubleTypeKind => TypeKind::Double,
                LLVMHalfTypeKind
                | LLVMBFloatTypeKind
                | LLVMX86_FP80TypeKind
                | LLVMFP128TypeKind
                | LLVMPPC_FP128TypeKind => TypeKind::OtherFloat,
                LLVMPointerTypeKind => TypeKind::Pointer {
                    pointee: t(LLVMGetElementType(self.0)),
                    addrspace: LLVMGetPointerAddressSpace(self.0),
                },
                LLVMArrayTypeKind => TypeKind::Array(
                    t(LLVMGetElementType(self.0)),
                    LLVMGetArrayLength(self.0) as u64,
                ),
                LLVMStructTypeKind => TypeKind::Struct,
                LLVMVectorTypeKind => {
                    TypeKind::Vector(t(LLVMGetElementType(self.0)), LLVMGetVectorSize(self.0))
                }
                LLVMFunctionTypeKind => TypeKind::Function,
                _ => TypeKind::Other,
            }
        }
    }

    pub fn int_width(self) -> Option<u32> {
        match self.kind() {
            TypeKind::Int(w) => Some(w),
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
        // SAFETY: a struct type of a live context (the module's note); the array is sized
        // by LLVM's count.
        unsafe {
            let n = LLVMCountStructElementTypes(self.0) as usize;
            let mut out = vec![std::ptr::null_mut(); n];
            LLVMGetStructElementTypes(self.0, out.as_mut_ptr());
            out.into_iter().map(t).collect()
        }
    }

    pub fn is_packed_struct(self) -> bool {
        // SAFETY: a struct type of a live context (the module's note).
        unsafe { LLVMIsPackedStruct(self.0) != 0 }
    }

    /// A function type's return type.
    pub fn fn_return(self) -> Type<'a> {
        // SAFETY: a function type of a live context (the module's note).
        t(unsafe { LLVMGetReturnType(self.0) })
    }

    /// A function type's parameter types.
    pub fn fn_params(self) -> Vec<Type<'a>> {
        // SAFETY: a function type of a live context (the module's note); the array is
        // sized by LLVM's count.
        unsafe {
            let n = LLVMCountParamTypes(self.0) as usize;
            let mut out = vec![std::ptr::null_mut(); n];
            LLVMGetParamTypes(self.0, out.as_mut_ptr());
            out.into_iter().map(t).collect()
        }
    }

    pub fn fn_is_vararg(self) -> bool {
        // SAFETY: a function type of a live context (the module's note).
        unsafe { LLVMIsFunctionVarArg(self.0) != 0 }
    }

    /// A pointer to this type (address space 0).
    pub fn ptr(self) -> Type<'a> {
        // SAFETY: a type of a live context (the module's note).
        t(unsafe { LLVMPointerType(self.0, 0) })
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
        // SAFETY: a value of a live module (the module's note).
        unsafe {
            match LLVMGetValueKind(self.0) {
                LLVMArgumentValueKind => ValueKind::Argument,
                LLVMBasicBlockValueKind => ValueKind::Block,
                LLVMFunctionValueKind => ValueKind::Function,
                LLVMGlobalAliasValueKind => ValueKind::Alias,
                LLVMGlobalVariableValueKind => ValueKind::GlobalVariable,
                LLVMBlockAddressValueKind => ValueKind::BlockAddress,
                LLVMConstantExprValueKind => ValueKind::ConstExpr(LLVMGetConstOpcode(self.0)),
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
                    ValueKind::Instruction(LLVMGetInstructionOpcode(self.0))
                }
                LLVMInlineAsmValueKind => ValueKind::InlineAsm,
                LLVMMetadataAsValueValueKind => ValueKind::Metadata,
                _ => ValueKind::Other,
            }
        }
    }

    pub fn ty(self) -> Type<'a> {
        // SAFETY: a value of a live module (the module's note).
        t(unsafe { LLVMTypeOf(self.0) })
    }

    pub fn is_constant(self) -> bool {
        // SAFETY: a value of a live module (the module's note).
        unsafe { LLVMIsConstant(self.0) != 0 }
    }

    /// The opcode, if an instruction.
    pub fn opcode(self) -> Option<Opcode> {
        ffi::opcode(self.0)
    }

    pub fn num_operands(self) -> u32 {
        // SAFETY: a user of a live module (the module's note); LLVM answers 0 for values
        // that have none... for users; callers ask only instructions and constants.
        unsafe { LLVMGetNumOperands(self.0) as u32 }
    }

    pub fn operand(self, i: u32) -> Value<'a> {
        assert!(i < self.num_operands(), "operand {i} out of range");
        // SAFETY: a user of a live module (the module's note), `i` in range.
        v(unsafe { LLVMGetOperand(self.0, i) })
    }

    pub fn operands(self) -> Vec<Value<'a>> {
        (0..self.num_operands()).map(|i| self.operand(i)).collect()
    }

    /// A block operand (a successor of a terminator, a blockaddress's block).
    pub fn operand_block(self, i: u32) -> Block<'a> {
        let o = self.operand(i);
        // SAFETY: a value of a live module.
        let is_block = unsafe { LLVMValueIsBasicBlock(o.0) } != 0;
        assert!(is_block, "not a block operand");
        // SAFETY: as above.
        b(unsafe { LLVMValueAsBasicBlock(o.0) })
    }

    /// The value of an integer constant, zero-extended (its low 64 bits).
    pub fn const_zext(self) -> Option<u64> {
        if self.kind() != ValueKind::ConstInt {
            return None;
        }
        if self.ty().int_width().unwrap_or(0) > 64 {
            return Some(self.const_big_int()?[0]);
        }
        // SAFETY: a ConstantInt of at most 64 bits of a live module.
        Some(unsafe { LLVMConstIntGetZExtValue(self.0) })
    }

    /// The value of an integer constant, sign-extended from its width (up to 64 bits).
    pub fn const_sext(self) -> Option<i64> {
        if self.kind() != ValueKind::ConstInt || self.ty().int_width()? > 64 {
            return None;
        }
        // SAFETY: a ConstantInt of at most 64 bits of a live module.
        Some(unsafe { LLVMConstIntGetSExtValue(self.0) })
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
            // SAFETY: a ConstantInt of at most 64 bits of a live module.
            return Some(vec![unsafe { LLVMConstIntGetZExtValue(self.0) }]);
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
        // SAFETY: a ConstantFP of a live module.
        Some(unsafe { LLVMConstRealGetDouble(self.0, &mut loses) })
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
        v(unsafe { LLVMGetElementAsConstant(self.0, i) })
    }

    /// The bytes of a constant data array of i8 (a C string).
    pub fn const_bytes(self) -> Option<Vec<u8>> {
        if self.kind() != ValueKind::ConstData {
            return None;
        }
        // SAFETY: a ConstantDataSequential of a live module.
        unsafe {
            if LLVMIsConstantString(self.0) == 0 {
                return None;
            }
            let mut len = 0;
            let p = LLVMGetAsString(self.0, &mut len);
            Some(ffi::lent(p, len))
        }
    }

    pub fn name(self) -> String {
        ffi::name(self.0)
    }

    pub fn set_name(self, name: &str) {
        let c = cstr(name);
        // SAFETY: a value of a live module (the module's note).
        unsafe { LLVMSetValueName2(self.0, c.as_ptr(), name.len()) }
    }

    /// The value as LLVM prints it.
    pub fn text(self) -> String {
        ffi::value_text(self.0)
    }

    /// `file:line:col` of the instruction's debug location, if it has one.
    pub fn debug_loc(self) -> Option<String> {
        self.opcode()?;
        // SAFETY: an instruction of a live module; the strings are copied out at once.
        unsafe {
            let line = LLVMGetDebugLocLine(self.0);
            if line == 0 {
                return None;
            }
            let mut len = 0;
            let p = LLVMGetDebugLocFilename(self.0, &mut len);
            let file = String::from_utf8_lossy(&ffi::lent(p, len as usize)).into_owned();
            let col = LLVMGetDebugLocColumn(self.0);
            Some(format!("{file}:{line}:{col}"))
        }
    }

    /// The block an instruction is in.
    pub fn parent_block(self) -> Block<'a> {
        // SAFETY: an instruction of a live module.
        b(unsafe { LLVMGetInstructionParent(self.0) })
    }

    // --- instructions -------------------------------------------------------------------

    pub fn alignment(self) -> u32 {
        // SAFETY: a load, store, alloca or global of a live module (callers ask only those).
        unsafe { LLVMGetAlignment(self.0) }
    }

    pub fn is_volatile(self) -> bool {
        // SAFETY: a load, store, atomicrmw or cmpxchg of a live module.
        unsafe { LLVMGetVolatile(self.0) != 0 }
    }

    /// The ordering of an atomic load, store, atomicrmw or fence.
    pub fn ordering(self) -> Ordering {
        // SAFETY: a memory instruction of a live module.
        unsafe { LLVMGetOrdering(self.0) }
    }

    pub fn rmw_op(self) -> RmwOp {
        // SAFETY: an atomicrmw of a live module.
        unsafe { LLVMGetAtomicRMWBinOp(self.0) }
    }

    pub fn icmp_pred(self) -> IntPred {
        // SAFETY: an icmp instruction or constant expression of a live module.
        unsafe { LLVMGetICmpPredicate(self.0) }
    }

    pub fn fcmp_pred(self) -> RealPred {
        // SAFETY: an fcmp instruction or constant expression of a live module.
        unsafe { LLVMGetFCmpPredicate(self.0) }
    }

    pub fn allocated_type(self) -> Type<'a> {
        // SAFETY: an alloca of a live module.
        t(unsafe { LLVMGetAllocatedType(self.0) })
    }

    /// The source element type of a getelementptr (instruction or constant expression).
    pub fn gep_source_type(self) -> Type<'a> {
        // SAFETY: a GEP operator of a live module.
        t(unsafe { LLVMGetGEPSourceElementType(self.0) })
    }

    /// The indices of an extractvalue or insertvalue.
    pub fn agg_indices(self) -> Vec<u32> {
        // SAFETY: an extractvalue or insertvalue of a live module; the array has LLVM's
        // count of entries.
        unsafe {
            let n = LLVMGetNumIndices(self.0) as usize;
            let p = LLVMGetIndices(self.0);
            if n == 0 || p.is_null() {
                return Vec::new();
            }
            std::slice::from_raw_parts(p, n).to_vec()
        }
    }

    /// The mask of a shufflevector (`None` for an undefined element).
    pub fn shuffle_mask(self) -> Vec<Option<u32>> {
        // SAFETY: a shufflevector of a live module.
        unsafe {
            let undef = LLVMGetUndefMaskElem();
            (0..LLVMGetNumMaskElements(self.0))
                .map(|i| {
                    let m = LLVMGetMaskValue(self.0, i);
                    (m != undef && m >= 0).then_some(m as u32)
                })
                .collect()
        }
    }

    /// The value a call calls.
    pub fn called_value(self) -> Value<'a> {
        // SAFETY: a call or invoke of a live module.
        v(unsafe { LLVMGetCalledValue(self.0) })
    }

    /// The function type a call calls through.
    pub fn called_fn_type(self) -> Type<'a> {
        // SAFETY: a call or invoke of a live module.
        t(unsafe { LLVMGetCalledFunctionType(self.0) })
    }

    /// The number of arguments of a call.
    pub fn arg_count(self) -> u32 {
        // SAFETY: a call or invoke of a live module.
        unsafe { LLVMGetNumArgOperands(self.0) }
    }

    pub fn arg(self, i: u32) -> Value<'a> {
        assert!(i < self.arg_count());
        self.operand(i)
    }

    pub fn is_tail_call(self) -> bool {
        // SAFETY: a call of a live module.
        unsafe { LLVMIsTailCall(self.0) != 0 }
    }

    /// Whether a call has enum attribute `name` at `idx` (0 return, 1.. arguments).
    pub fn call_has_attr(self, idx: u32, name: &str) -> bool {
        let k = attr_kind(name);
        // SAFETY: a call of a live module.
        k != 0 && !unsafe { LLVMGetCallSiteEnumAttribute(self.0, idx, k) }.is_null()
    }

    /// The type of a call's type attribute `name` (`byval`, `sret`) at `idx`, if present.
    pub fn call_type_attr(self, idx: u32, name: &str) -> Option<Type<'a>> {
        let k = attr_kind(name);
        // SAFETY: a call of a live module; the attribute, if any, is a type attribute.
        unsafe {
            let a = LLVMGetCallSiteEnumAttribute(self.0, idx, k);
            (k != 0 && !a.is_null()).then(|| t(LLVMGetTypeAttributeValue(a)))
        }
    }

    /// A terminator's successors.
    pub fn successors(self) -> Vec<Block<'a>> {
        // SAFETY: a terminator of a live module.
        unsafe {
            (0..LLVMGetNumSuccessors(self.0))
                .map(|i| b(LLVMGetSuccessor(self.0, i)))
                .collect()
        }
    }

    /// A phi's incoming (value, block) pairs.
    pub fn incoming(self) -> Vec<(Value<'a>, Block<'a>)> {
        // SAFETY: a phi of a live module.
        unsafe {
            (0..LLVMCountIncoming(self.0))
                .map(|i| {
                    (
                        v(LLVMGetIncomingValue(self.0, i)),
                        b(LLVMGetIncomingBlock(self.0, i)),
                    )
                })
                .collect()
        }
    }

    /// A switch's cases: (value, destination).
    pub fn switch_cases(self) -> Vec<(Value<'a>, Block<'a>)> {
        let n = self.num_operands();
        (1..n / 2)
            .map(|k| (self.operand(2 * k), self.operand_block(2 * k + 1)))
            .collect()
    }

    pub fn switch_default(self) -> Block<'a> {
        // SAFETY: a switch of a live module.
        b(unsafe { LLVMGetSwitchDefaultDest(self.0) })
    }

    /// The normal and unwind destinations of an invoke.
    pub fn invoke_dests(self) -> (Block<'a>, Block<'a>) {
        // SAFETY: an invoke of a live module.
        unsafe { (b(LLVMGetNormalDest(self.0)), b(LLVMGetUnwindDest(self.0))) }
    }

    /// Whether an atomic instruction is for one thread only (`syncscope("singlethread")`).
    pub fn is_single_thread(self) -> bool {
        // SAFETY: an atomic instruction of a live module.
        unsafe { LLVMIsAtomicSingleThread(self.0) != 0 }
    }

    /// Whether a cmpxchg is weak.
    pub fn is_weak(self) -> bool {
        // SAFETY: a cmpxchg of a live module.
        unsafe { LLVMGetWeak(self.0) != 0 }
    }

    // --- functions ----------------------------------------------------------------------

    pub fn params(self) -> Vec<Value<'a>> {
        // SAFETY: a function of a live module; the array is sized by LLVM's count.
        unsafe {
            let n = LLVMCountParams(self.0) as usize;
            let mut out = vec![std::ptr::null_mut(); n];
            LLVMGetParams(self.0, out.as_mut_ptr());
            out.into_iter().map(v).collect()
        }
    }

    pub fn blocks(self) -> Vec<Block<'a>> {
        ffi::blocks(self.0).map(b).collect()
    }

    pub fn entry_block(self) -> Option<Block<'a>> {
        // SAFETY: a function of a live module (a declaration has no blocks: checked).
        unsafe { (LLVMCountBasicBlocks(self.0) > 0).then(|| b(LLVMGetEntryBasicBlock(self.0))) }
    }

    /// A function's type (not its pointer type).
    pub fn function_type(self) -> Type<'a> {
        // SAFETY: a function of a live module.
        t(unsafe { LLVMGlobalGetValueType(self.0) })
    }

    /// A global's value type (what its address points to).
    pub fn value_type(self) -> Type<'a> {
        // SAFETY: a global value of a live module.
        t(unsafe { LLVMGlobalGetValueType(self.0) })
    }

    pub fn is_declaration(self) -> bool {
        // SAFETY: a global value of a live module.
        unsafe { LLVMIsDeclaration(self.0) != 0 }
    }

    pub fn linkage(self) -> Linkage {
        // SAFETY: a global value of a live module.
        unsafe { LLVMGetLinkage(self.0) }
    }

    pub fn set_linkage(self, l: Linkage) {
        // SAFETY: a global value of a live module.
        unsafe { LLVMSetLinkage(self.0, l) }
    }

    /// Makes a global value internal, with default visibility and no comdat, as the
    /// simplification's internalizing does.
    pub fn internalize(self) {
        // SAFETY: a global value of a live module; a null comdat removes it.
        unsafe {
            LLVMSetLinkage(self.0, LLVMLinkage::LLVMInternalLinkage);
            LLVMSetVisibility(self.0, LLVMVisibility::LLVMDefaultVisibility);
            llvm_sys::comdat::LLVMSetComdat(self.0, std::ptr::null_mut());
            LLVMSetDLLStorageClass(
                self.0,
                llvm_sys::LLVMDLLStorageClass::LLVMDefaultStorageClass,
            );
        }
    }

    /// Whether parameter `idx` (1-based; 0 the return) of a function has enum attribute
    /// `name`.
    pub fn fn_has_attr(self, idx: u32, name: &str) -> bool {
        let k = attr_kind(name);
        // SAFETY: a function of a live module.
        k != 0 && !unsafe { LLVMGetEnumAttributeAtIndex(self.0, idx, k) }.is_null()
    }

    /// The type of a function's type attribute `name` at `idx`, if present.
    pub fn fn_type_attr(self, idx: u32, name: &str) -> Option<Type<'a>> {
        let k = attr_kind(name);
        // SAFETY: a function of a live module; the attribute, if any, is a type attribute.
        unsafe {
            let a = LLVMGetEnumAttributeAtIndex(self.0, idx, k);
            (k != 0 && !a.is_null()).then(|| t(LLVMGetTypeAttributeValue(a)))
        }
    }

    /// Adds enum attribute `name` to a function (`u32::MAX`), return (0) or parameter.
    pub fn add_fn_attr(self, idx: u32, name: &str) {
        let k = attr_kind(name);
        // SAFETY: a function of a live module and an attribute of its context.
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            let a = LLVMCreateEnumAttribute(ctx, k, 0);
            LLVMAddAttributeAtIndex(self.0, idx, a);
        }
    }

    /// Adds string attribute `key`=`val` to a function.
    pub fn add_fn_string_attr(self, key: &str, val: &str) {
        // SAFETY: a function of a live module and an attribute of its context.
        unsafe {
            let ctx = LLVMGetTypeContext(LLVMTypeOf(self.0));
            let a = LLVMCreateStringAttribute(
                ctx,
                key.as_ptr() as *const _,
                key.len() as u32,
                val.as_ptr() as *const _,
                val.len() as u32,
            );
            LLVMAddAttributeAtIndex(self.0, u32::MAX, a);
        }
    }

    /// Whether a function is an intrinsic (`llvm.*`).
    pub fn is_intrinsic(self) -> bool {
        // SAFETY: a function of a live module.
        let id = unsafe { LLVMGetIntrinsicID(self.0) };
        id != 0 || self.name().starts_with("llvm.")
    }

    // --- global variables ---------------------------------------------------------------

    pub fn initializer(self) -> Option<Value<'a>> {
        // SAFETY: a global variable of a live module.
        opt_v(unsafe { LLVMGetInitializer(self.0) })
    }

    pub fn set_initializer(self, c: Value<'a>) {
        // SAFETY: a global variable and a constant of its type, of a live module.
        unsafe { LLVMSetInitializer(self.0, c.0) }
    }

    pub fn is_global_constant(self) -> bool {
        // SAFETY: a global variable of a live module.
        unsafe { LLVMIsGlobalConstant(self.0) != 0 }
    }

    pub fn set_global_constant(self, c: bool) {
        // SAFETY: a global variable of a live module.
        unsafe { LLVMSetGlobalConstant(self.0, c as i32) }
    }

    pub fn is_thread_local(self) -> bool {
        // SAFETY: a global variable of a live module.
        unsafe { LLVMIsThreadLocal(self.0) != 0 }
    }

    pub fn set_alignment(self, a: u32) {
        // SAFETY: a global, alloca, load or store of a live module.
        unsafe { LLVMSetAlignment(self.0, a) }
    }

    pub fn set_unnamed_addr(self, u: bool) {
        let u = if u {
            LLVMUnnamedAddr::LLVMGlobalUnnamedAddr
        } else {
            LLVMUnnamedAddr::LLVMNoUnnamedAddr
        };
        // SAFETY: a global value of a live module.
        unsafe { LLVMSetUnnamedAddress(self.0, u) }
    }

    /// An alias's aliasee.
    pub fn aliasee(self) -> Value<'a> {
        // SAFETY: a global alias of a live module.
        v(unsafe { LLVMAliasGetAliasee(self.0) })
    }

    /// Replaces every use of this value with `with` (of the same type).
    pub fn replace_all_uses_with(self, with: Value<'a>) {
        assert_eq!(
            self.ty(),
            with.ty(),
            "replacing a value with one of another type"
        );
        // SAFETY: two values of one live module, of one type (checked).
        unsafe { LLVMReplaceAllUsesWith(self.0, with.0) }
    }

    /// The users of this value (each once per use).
    pub fn users(self) -> Vec<Value<'a>> {
        let mut out = Vec::new();
        // SAFETY: a value of a live module; the use list is read, not changed.
        unsafe {
            let mut u = LLVMGetFirstUse(self.0);
            while !u.is_null() {
                out.push(v(LLVMGetUser(u)));
                u = LLVMGetNextUse(u);
            }
        }
        out
    }

    pub fn has_uses(self) -> bool {
        // SAFETY: a value of a live module.
        !unsafe { LLVMGetFirstUse(self.0) }.is_null()
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
        unsafe { LLVMSetOperand(self.0, i, with.0) }
    }

    /// Makes successor `i` of terminator `self` block `to`.
    pub fn set_successor(self, i: u32, to: Block<'a>) {
        // SAFETY: a terminator of a live module (its successors counted), a block of it.
        unsafe {
            assert!(
                i < LLVMGetNumSuccessors(self.0),
                "successor {i} out of range"
            );
            LLVMSetSuccessor(self.0, i, to.0)
        }
    }

    /// The instruction after this one in its block.
    pub fn next_instruction(self) -> Option<Value<'a>> {
        // SAFETY: an instruction of a live module.
        opt_v(unsafe { LLVMGetNextInstruction(self.0) })
    }

    /// A function's or call's calling convention.
    pub fn call_conv(self) -> u32 {
        // SAFETY: a function of a live module.
        unsafe { LLVMGetFunctionCallConv(self.0) }
    }

    pub fn set_call_conv(self, cc: u32) {
        // SAFETY: a call of a live module.
        unsafe { LLVMSetInstructionCallConv(self.0, cc) }
    }

    /// Gives call `self` the return attributes of function `f` (which it calls).
    pub fn copy_return_attrs(self, f: Value<'a>) {
        for a in ffi::attributes(f.0, 0, false) {
            // SAFETY: a call and an attribute of one live module's context.
            unsafe { LLVMAddCallSiteAttribute(self.0, 0, a) }
        }
    }
}

fn attr_kind(name: &str) -> u32 {
    // SAFETY: LLVM reads `len` bytes of `name`.
    unsafe { LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len()) }
}

impl<'a> Block<'a> {
    pub fn instructions(self) -> Vec<Value<'a>> {
        List::of_block(self.0).map(v).collect()
    }

    pub fn terminator(self) -> Option<Value<'a>> {
        // SAFETY: a block of a live module.
        opt_v(unsafe { LLVMGetBasicBlockTerminator(self.0) })
    }

    pub fn first_instruction(self) -> Option<Value<'a>> {
        // SAFETY: a block of a live module.
        opt_v(unsafe { LLVMGetFirstInstruction(self.0) })
    }

    pub fn name(self) -> String {
        // SAFETY: a block of a live module; the name is copied at once.
        unsafe {
            let p = LLVMGetBasicBlockName(self.0);
            if p.is_null() {
                return String::new();
            }
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }

    /// The block as a value (what a blockaddress's operand is).
    pub fn as_value(self) -> Value<'a> {
        // SAFETY: a block of a live module.
        v(unsafe { LLVMBasicBlockAsValue(self.0) })
    }
}

impl<'a> Module<'a> {
    /// The raw handle, for the module's raw builder (`llvm::export`).
    pub(in crate::llvm) fn as_raw(self) -> LLVMModuleRef {
        self.raw
    }

    pub fn of(m: &'a inkwell::module::Module<'_>) -> Module<'a> {
        let raw = m.as_mut_ptr();
        // SAFETY: the inkwell module is alive for 'a.
        let ctx = unsafe { LLVMGetModuleContext(raw) };
        Module {
            raw,
            ctx,
            _l: PhantomData,
        }
    }

    pub fn functions(self) -> Vec<Value<'a>> {
        ffi::functions(self.raw).map(v).collect()
    }

    pub fn globals(self) -> Vec<Value<'a>> {
        ffi::globals(self.raw).map(v).collect()
    }

    pub fn aliases(self) -> Vec<Value<'a>> {
        let mut out = Vec::new();
        // SAFETY: the module is alive; its alias list is read, not changed.
        unsafe {
            let mut a = LLVMGetFirstGlobalAlias(self.raw);
            while !a.is_null() {
                out.push(v(a));
                a = LLVMGetNextGlobalAlias(a);
            }
        }
        out
    }

    pub fn function(self, name: &str) -> Option<Value<'a>> {
        let c = cstr(name);
        // SAFETY: the module is alive.
        opt_v(unsafe { LLVMGetNamedFunction(self.raw, c.as_ptr()) })
    }

    pub fn global(self, name: &str) -> Option<Value<'a>> {
        let c = cstr(name);
        // SAFETY: the module is alive.
        opt_v(unsafe { LLVMGetNamedGlobal(self.raw, c.as_ptr()) })
    }

    /// The module's inline assembly, if any.
    pub fn inline_asm(self) -> String {
        let mut len = 0;
        // SAFETY: the module is alive; the text is copied at once.
        let p = unsafe { LLVMGetModuleInlineAsm(self.raw, &mut len) };
        String::from_utf8_lossy(&ffi::lent(p, len)).into_owned()
    }

    pub fn triple(self) -> String {
        // SAFETY: the module is alive.
        ffi::module_string(unsafe { LLVMGetTarget(self.raw) })
    }

    pub fn data_layout_text(self) -> String {
        // SAFETY: the module is alive.
        ffi::module_string(unsafe { LLVMGetDataLayoutStr(self.raw) })
    }

    pub fn set_triple_and_layout(self, triple: &str, layout: &str) {
        let (tc, lc) = (cstr(triple), cstr(layout));
        // SAFETY: the module is alive; LLVM copies the strings.
        unsafe {
            LLVMSetTarget(self.raw, tc.as_ptr());
            LLVMSetDataLayout(self.raw, lc.as_ptr());
        }
    }

    /// Adds a function (a declaration until blocks are appended).
    pub fn add_function(self, name: &str, fn_ty: Type<'a>) -> Value<'a> {
        let c = cstr(name);
        // SAFETY: the module is alive and `fn_ty` a function type of its context.
        v(unsafe { LLVMAddFunction(self.raw, c.as_ptr(), fn_ty.0) })
    }

    /// Adds a global variable of type `ty`.
    pub fn add_global(self, ty: Type<'a>, name: &str) -> Value<'a> {
        let c = cstr(name);
        // SAFETY: the module is alive and `ty` a type of its context.
        v(unsafe { LLVMAddGlobal(self.raw, ty.0, c.as_ptr()) })
    }

    /// Appends a new block to function `f`.
    pub fn append_block(self, f: Value<'a>, name: &str) -> Block<'a> {
        let c = cstr(name);
        // SAFETY: `f` is a function of this live module.
        b(unsafe { LLVMAppendBasicBlockInContext(self.ctx, f.0, c.as_ptr()) })
    }

    /// A new block just before block `before`, in its function.
    pub fn insert_block_before(self, before: Block<'a>, name: &str) -> Block<'a> {
        let c = cstr(name);
        // SAFETY: a block of a function of this live module.
        b(unsafe { LLVMInsertBasicBlockInContext(self.ctx, before.0, c.as_ptr()) })
    }

    /// A global of type `ty` in address space `space`, declared (no initializer).
    pub fn add_global_in_space(self, ty: Type<'a>, name: &str, space: u32) -> Value<'a> {
        let c = cstr(name);
        // SAFETY: the module is alive and `ty` a type of its context.
        v(unsafe { LLVMAddGlobalInAddressSpace(self.raw, ty.0, c.as_ptr(), space) })
    }

    /// The module's data layout, for sizes and offsets.
    pub fn layout(self) -> Layout<'a> {
        let text = cstr(&self.data_layout_text());
        // SAFETY: LLVM parses the string into a data layout that `Layout` owns and frees.
        let raw = unsafe { LLVMCreateTargetData(text.as_ptr()) };
        Layout {
            raw,
            _l: PhantomData,
        }
    }

    pub fn text(self) -> String {
        ffi::module_text(self.raw)
    }

    pub fn types(self) -> Types<'a> {
        Types {
            ctx: self.ctx,
            _l: PhantomData,
        }
    }

    /// A builder for this module's functions.
    pub fn builder(self) -> Builder<'a> {
        // SAFETY: the context is alive; the builder is disposed by `Builder`'s drop.
        let raw = unsafe { LLVMCreateBuilderInContext(self.ctx) };
        Builder {
            raw,
            ctx: self.ctx,
            module: self.raw,
            holder: std::cell::Cell::new(std::ptr::null_mut()),
            _l: PhantomData,
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
    raw: LLVMTargetDataRef,
    _l: PhantomData<&'a ()>,
}

impl Drop for Layout<'_> {
    fn drop(&mut self) {
        // SAFETY: made by LLVMCreateTargetData for this `Layout`, freed once.
        unsafe { LLVMDisposeTargetData(self.raw) }
    }
}

impl<'a> Layout<'a> {
    /// Bytes between consecutive elements of type `ty` in an array.
    pub fn alloc_size(&self, ty: Type<'a>) -> u64 {
        // SAFETY: a sized type of a live context and a live data layout.
        unsafe { LLVMABISizeOfType(self.raw, ty.0) }
    }

    /// Bytes a store of `ty` writes.
    pub fn store_size(&self, ty: Type<'a>) -> u64 {
        // SAFETY: a sized type of a live context and a live data layout.
        unsafe { LLVMStoreSizeOfType(self.raw, ty.0) }
    }

    pub fn abi_align(&self, ty: Type<'a>) -> u32 {
        // SAFETY: a sized type of a live context and a live data layout.
        unsafe { LLVMABIAlignmentOfType(self.raw, ty.0) }
    }

    pub fn pref_align(&self, ty: Type<'a>) -> u32 {
        // SAFETY: a sized type of a live context and a live data layout.
        unsafe { LLVMPreferredAlignmentOfType(self.raw, ty.0) }
    }

    /// The byte offset of field `i` of struct type `ty`.
    pub fn field_offset(&self, ty: Type<'a>, i: u32) -> u64 {
        assert!((i as usize) < ty.struct_fields().len());
        // SAFETY: a struct type of a live context with field `i` (checked).
        unsafe { LLVMOffsetOfElement(self.raw, ty.0, i) }
    }
}

/// The types and constants of a context.
#[derive(Clone, Copy)]
pub struct Types<'a> {
    ctx: LLVMContextRef,
    _l: PhantomData<&'a ()>,
}

impl<'a> Types<'a> {
    pub fn int(self, w: u32) -> Type<'a> {
        // SAFETY: the context is alive.
        t(unsafe { LLVMIntTypeInContext(self.ctx, w) })
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
        // SAFETY: the context is alive.
        t(unsafe { LLVMFloatTypeInContext(self.ctx) })
    }
    pub fn f64(self) -> Type<'a> {
        // SAFETY: the context is alive.
        t(unsafe { LLVMDoubleTypeInContext(self.ctx) })
    }
    pub fn void(self) -> Type<'a> {
        // SAFETY: the context is alive.
        t(unsafe { LLVMVoidTypeInContext(self.ctx) })
    }
    pub fn function(self, ret: Type<'a>, params: &[Type<'a>], vararg: bool) -> Type<'a> {
        let mut p: Vec<LLVMTypeRef> = params.iter().map(|x| x.0).collect();
        // SAFETY: types of the live context; LLVM copies the array.
        t(unsafe { LLVMFunctionType(ret.0, p.as_mut_ptr(), p.len() as u32, vararg as i32) })
    }
    /// A literal struct type.
    pub fn structure(self, fields: &[Type<'a>], packed: bool) -> Type<'a> {
        let mut p: Vec<LLVMTypeRef> = fields.iter().map(|x| x.0).collect();
        // SAFETY: types of the live context; LLVM copies the array.
        t(unsafe {
            LLVMStructTypeInContext(self.ctx, p.as_mut_ptr(), p.len() as u32, packed as i32)
        })
    }
    pub fn array(self, elem: Type<'a>, n: u64) -> Type<'a> {
        assert!(n <= u32::MAX as u64, "array too long for LLVM 14's C API");
        // SAFETY: a type of the live context.
        t(unsafe { LLVMArrayType(elem.0, n as u32) })
    }
    pub fn vector(self, elem: Type<'a>, n: u32) -> Type<'a> {
        // SAFETY: a type of the live context.
        t(unsafe { LLVMVectorType(elem.0, n) })
    }

    // --- constants ----------------------------------------------------------------------

    /// An integer constant of type `ty` (its low bits of `x`).
    pub fn const_int(self, ty: Type<'a>, x: u64) -> Value<'a> {
        // SAFETY: an integer type of the live context.
        v(unsafe { LLVMConstInt(ty.0, x, 0) })
    }
    pub fn const_i32(self, x: i64) -> Value<'a> {
        self.const_int(self.i32(), x as u64)
    }
    pub fn const_f64(self, ty: Type<'a>, x: f64) -> Value<'a> {
        // SAFETY: a floating-point type of the live context.
        v(unsafe { LLVMConstReal(ty.0, x) })
    }
    pub fn undef(self, ty: Type<'a>) -> Value<'a> {
        // SAFETY: a type of the live context.
        v(unsafe { LLVMGetUndef(ty.0) })
    }
    /// The zero of `ty` (null, 0, 0.0, zeroinitializer).
    pub fn zero(self, ty: Type<'a>) -> Value<'a> {
        // SAFETY: a type of the live context.
        v(unsafe { LLVMConstNull(ty.0) })
    }
    /// An array of i8 holding `bytes` (no terminating zero added).
    pub fn const_bytes(self, bytes: &[u8]) -> Value<'a> {
        // SAFETY: the context is alive; LLVM copies the bytes.
        v(unsafe {
            LLVMConstStringInContext(self.ctx, bytes.as_ptr() as *const _, bytes.len() as u32, 1)
        })
    }
    /// A literal struct constant.
    pub fn const_struct(self, fields: &[Value<'a>], packed: bool) -> Value<'a> {
        let mut p = raws(fields);
        // SAFETY: constants of the live context; LLVM copies the array.
        v(unsafe {
            LLVMConstStructInContext(self.ctx, p.as_mut_ptr(), p.len() as u32, packed as i32)
        })
    }
    /// A constant array of `elem` values.
    pub fn const_array(self, elem: Type<'a>, vals: &[Value<'a>]) -> Value<'a> {
        let mut p = raws(vals);
        // SAFETY: constants of type `elem` of the live context; LLVM copies the array.
        v(unsafe { LLVMConstArray(elem.0, p.as_mut_ptr(), p.len() as u32) })
    }
    /// A constant vector.
    pub fn const_vector(self, vals: &[Value<'a>]) -> Value<'a> {
        let mut p = raws(vals);
        // SAFETY: constants of one type of the live context; LLVM copies the array.
        v(unsafe { LLVMConstVector(p.as_mut_ptr(), p.len() as u32) })
    }
    /// `ptrtoint (g to i32)` as a constant expression (for initializers).
    pub fn const_ptrtoint(self, g: Value<'a>) -> Value<'a> {
        // SAFETY: a constant pointer of the live context.
        v(unsafe { LLVMConstPtrToInt(g.0, self.i32().0) })
    }
    /// `add (a, b)` as a constant expression (for initializers).
    pub fn const_add(self, a: Value<'a>, c: Value<'a>) -> Value<'a> {
        // SAFETY: two integer constants of one type of the live context.
        v(unsafe { LLVMConstAdd(a.0, c.0) })
    }
    /// `bitcast (c to ty)` as a constant expression.
    pub fn const_bitcast(self, c: Value<'a>, ty: Type<'a>) -> Value<'a> {
        // SAFETY: a constant of the live context and a type of the same size.
        v(unsafe { LLVMConstBitCast(c.0, ty.0) })
    }
}

/// A builder: appends instructions at a position. Every `build_*` returns an instruction,
/// never a folded constant, where the operation involves a pointer (`cast`): the
/// simplification's output keeps pointer casts as instructions, as a pexe has them.
pub struct Builder<'a> {
    raw: LLVMBuilderRef,
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    /// A function of its own (made lazily, deleted with the builder) whose one block
    /// holds stand-ins for the moment each is used.
    holder: std::cell::Cell<LLVMValueRef>,
    _l: PhantomData<&'a ()>,
}

impl Drop for Builder<'_> {
    fn drop(&mut self) {
        // SAFETY: the builder was made for this `Builder` and is disposed once; the holder
        // function, if made, is in the live module, no handle names it, and its block is
        // empty (each stand-in is deleted where it was made).
        unsafe {
            let h = self.holder.get();
            if !h.is_null() {
                LLVMDeleteFunction(h);
            }
            LLVMDisposeBuilder(self.raw)
        }
    }
}

impl<'a> Builder<'a> {
    pub fn position_at_end(&self, blk: Block<'a>) {
        // SAFETY: a live builder and a block of a live module.
        unsafe { LLVMPositionBuilderAtEnd(self.raw, blk.0) }
    }

    pub fn position_before(&self, inst: Value<'a>) {
        // SAFETY: a live builder and an instruction of a live module.
        unsafe { LLVMPositionBuilderBefore(self.raw, inst.0) }
    }

    /// The block the builder appends to.
    pub fn block(&self) -> Block<'a> {
        // SAFETY: a live builder.
        b(unsafe { LLVMGetInsertBlock(self.raw) })
    }

    /// A non-constant value of type `ty` for an operand the builder must not see (it would
    /// fold the instruction): a phi in a function of its own, which the caller deletes once
    /// it has put the real operand in its place.
    fn stand_in(&self, ty: Type<'a>) -> LLVMValueRef {
        // SAFETY: the builder's live context and module; the holder function is made once
        // and deleted with the builder; the phi is handed to the caller, who deletes it.
        unsafe {
            let mut h = self.holder.get();
            if h.is_null() {
                let fty =
                    LLVMFunctionType(LLVMVoidTypeInContext(self.ctx), std::ptr::null_mut(), 0, 0);
                h = LLVMAddFunction(self.module, c"pnacl.stand.ins".as_ptr(), fty);
                LLVMAppendBasicBlockInContext(self.ctx, h, EMPTY);
                self.holder.set(h);
            }
            let hb = LLVMCreateBuilderInContext(self.ctx);
            LLVMPositionBuilderAtEnd(hb, LLVMGetEntryBasicBlock(h));
            let ph = LLVMBuildPhi(hb, ty.0, EMPTY);
            LLVMDisposeBuilder(hb);
            ph
        }
    }

    fn done(r: LLVMValueRef) -> Value<'a> {
        v(r)
    }

    pub fn binop(&self, op: Opcode, l: Value<'a>, r: Value<'a>) -> Value<'a> {
        // SAFETY: a live builder and operands of its module, of the types `op` takes.
        Self::done(unsafe { LLVMBuildBinOp(self.raw, op, l.0, r.0, EMPTY) })
    }

    pub fn icmp(&self, p: IntPred, l: Value<'a>, r: Value<'a>) -> Value<'a> {
        // SAFETY: a live builder and integer operands of its module.
        Self::done(unsafe { LLVMBuildICmp(self.raw, p, l.0, r.0, EMPTY) })
    }

    pub fn fcmp(&self, p: RealPred, l: Value<'a>, r: Value<'a>) -> Value<'a> {
        // SAFETY: a live builder and floating-point operands of its module.
        Self::done(unsafe { LLVMBuildFCmp(self.raw, p, l.0, r.0, EMPTY) })
    }

    pub fn select(&self, c: Value<'a>, x: Value<'a>, y: Value<'a>) -> Value<'a> {
        // SAFETY: a live builder and operands of its module.
        Self::done(unsafe { LLVMBuildSelect(self.raw, c.0, x.0, y.0, EMPTY) })
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
            // SAFETY: a live builder; the stand-in is replaced as the cast's operand at once
            // and deleted here (no handle to it escapes).
            unsafe {
                let c = LLVMBuildCast(self.raw, op, ph, ty.0, EMPTY);
                LLVMSetOperand(c, 0, x.0);
                LLVMInstructionEraseFromParent(ph);
                return v(c);
            }
        }
        // SAFETY: a live builder and an operand of its module castable to `ty`.
        Self::done(unsafe { LLVMBuildCast(self.raw, op, x.0, ty.0, EMPTY) })
    }

    /// A load; `align` 0 leaves the type's ABI alignment, which LLVM gives.
    pub fn load(&self, ty: Type<'a>, ptr: Value<'a>, align: u32) -> Value<'a> {
        // SAFETY: a live builder and a pointer to `ty` of its module.
        unsafe {
            let l = LLVMBuildLoad2(self.raw, ty.0, ptr.0, EMPTY);
            if align != 0 {
                LLVMSetAlignment(l, align);
            }
            v(l)
        }
    }

    /// A store; `align` 0 leaves the type's ABI alignment, which LLVM gives.
    pub fn store(&self, val: Value<'a>, ptr: Value<'a>, align: u32) -> Value<'a> {
        // SAFETY: a live builder, a value and a pointer to its type, of its module.
        unsafe {
            let s = LLVMBuildStore(self.raw, val.0, ptr.0);
            if align != 0 {
                LLVMSetAlignment(s, align);
            }
            v(s)
        }
    }

    /// `alloca i8, i32 size, align`.
    pub fn alloca_bytes(&self, size: Value<'a>, align: u32) -> Value<'a> {
        // SAFETY: a live builder and an i32 size of its module.
        unsafe {
            let a = LLVMBuildArrayAlloca(self.raw, LLVMInt8TypeInContext(self.ctx), size.0, EMPTY);
            LLVMSetAlignment(a, align);
            v(a)
        }
    }

    /// `alloca ty` (`n` of them), at the type's preferred alignment.
    pub fn alloca(&self, ty: Type<'a>, n: Option<Value<'a>>) -> Value<'a> {
        // SAFETY: a live builder, a sized type and an integer count of its module.
        Self::done(unsafe {
            match n {
                Some(n) => LLVMBuildArrayAlloca(self.raw, ty.0, n.0, EMPTY),
                None => LLVMBuildAlloca(self.raw, ty.0, EMPTY),
            }
        })
    }

    /// The address of field `i` of the struct of type `ty` at `base`.
    pub fn struct_gep(&self, ty: Type<'a>, base: Value<'a>, i: u32) -> Value<'a> {
        assert!(
            i < ty.struct_fields().len() as u32,
            "field {i} out of range"
        );
        // SAFETY: a live builder, a struct type with field `i` and a pointer of its module.
        Self::done(unsafe { LLVMBuildStructGEP2(self.raw, ty.0, base.0, i, EMPTY) })
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
        // SAFETY: a live builder, a pointer and an integer of its pointee type, of its
        // module; a power-of-two alignment.
        unsafe {
            let r = LLVMBuildAtomicRMW(self.raw, op, ptr.0, val.0, ord, 0);
            LLVMSetAlignment(r, align);
            v(r)
        }
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
        // SAFETY: a live builder, a pointer and two integers of its pointee type, of its
        // module; orderings cmpxchg takes; a power-of-two alignment.
        unsafe {
            let pair =
                LLVMBuildAtomicCmpXchg(self.raw, ptr.0, expected.0, desired.0, success, failure, 0);
            LLVMSetAlignment(pair, align);
            v(LLVMBuildExtractValue(self.raw, pair, 0, EMPTY))
        }
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
        unsafe { LLVMSetOrdering(s.0, ord) }
        s
    }

    pub fn fence(&self, ord: Ordering) -> Value<'a> {
        // SAFETY: a live builder; a fence's ordering.
        Self::done(unsafe { LLVMBuildFence(self.raw, ord, 0, EMPTY) })
    }

    /// Moves instruction `inst` (of this module) from its block to the builder's position.
    pub fn insert(&self, inst: Value<'a>) {
        assert!(inst.is_instruction(), "moving what is not an instruction");
        // SAFETY: an instruction of a live module, taken out of its block and put back at
        // once: no handle is left naming a value outside a block.
        unsafe {
            LLVMInstructionRemoveFromParent(inst.0);
            LLVMInsertIntoBuilder(self.raw, inst.0);
        }
    }

    /// A call of `callee` (a function, or a pointer to one of type `fn_ty`).
    pub fn call(&self, fn_ty: Type<'a>, callee: Value<'a>, args: &[Value<'a>]) -> Value<'a> {
        let mut a = raws(args);
        // SAFETY: a live builder, a callee of `fn_ty` and arguments of its parameter
        // types, of its module.
        Self::done(unsafe {
            LLVMBuildCall2(
                self.raw,
                fn_ty.0,
                callee.0,
                a.as_mut_ptr(),
                a.len() as u32,
                EMPTY,
            )
        })
    }

    pub fn set_tail_call(&self, call: Value<'a>, tail: bool) {
        // SAFETY: a call of a live module.
        unsafe { LLVMSetTailCall(call.0, tail as i32) }
    }

    pub fn br(&self, dest: Block<'a>) -> Value<'a> {
        // SAFETY: a live builder and a block of its module.
        Self::done(unsafe { LLVMBuildBr(self.raw, dest.0) })
    }

    pub fn cond_br(&self, c: Value<'a>, t_: Block<'a>, f_: Block<'a>) -> Value<'a> {
        // SAFETY: a live builder, an i1 and blocks of its module.
        Self::done(unsafe { LLVMBuildCondBr(self.raw, c.0, t_.0, f_.0) })
    }

    /// A switch; its cases are added with `add_case`.
    pub fn switch(&self, c: Value<'a>, default: Block<'a>, n: u32) -> Value<'a> {
        // SAFETY: a live builder, an integer and a block of its module.
        Self::done(unsafe { LLVMBuildSwitch(self.raw, c.0, default.0, n) })
    }

    pub fn add_case(&self, sw: Value<'a>, val: Value<'a>, dest: Block<'a>) {
        // SAFETY: a switch, a constant of its condition's type and a block, of one module.
        unsafe { LLVMAddCase(sw.0, val.0, dest.0) }
    }

    pub fn ret(&self, val: Option<Value<'a>>) -> Value<'a> {
        // SAFETY: a live builder and a value of its module.
        Self::done(unsafe {
            match val {
                Some(x) => LLVMBuildRet(self.raw, x.0),
                None => LLVMBuildRetVoid(self.raw),
            }
        })
    }

    pub fn unreachable(&self) -> Value<'a> {
        // SAFETY: a live builder.
        Self::done(unsafe { LLVMBuildUnreachable(self.raw) })
    }

    pub fn phi(&self, ty: Type<'a>) -> Value<'a> {
        // SAFETY: a live builder and a type of its context.
        Self::done(unsafe { LLVMBuildPhi(self.raw, ty.0, EMPTY) })
    }

    pub fn add_incoming(&self, phi: Value<'a>, val: Value<'a>, from: Block<'a>) {
        let (mut vv, mut bb) = ([val.0], [from.0]);
        // SAFETY: a phi, a value of its type and a block, of one live module.
        unsafe { LLVMAddIncoming(phi.0, vv.as_mut_ptr(), bb.as_mut_ptr(), 1) }
    }

    pub fn extract_element(&self, vec: Value<'a>, idx: Value<'a>) -> Value<'a> {
        // SAFETY: a live builder, a vector and an integer of its module.
        Self::done(unsafe { LLVMBuildExtractElement(self.raw, vec.0, idx.0, EMPTY) })
    }

    /// An insertelement, an instruction even when every operand is a constant (a pexe
    /// holds no constant vectors but undef).
    pub fn insert_element(&self, vec: Value<'a>, elt: Value<'a>, idx: Value<'a>) -> Value<'a> {
        if vec.is_constant() && elt.is_constant() {
            let ph = self.stand_in(vec.ty());
            // SAFETY: a live builder; the stand-in is replaced as the instruction's first
            // operand at once and deleted (no handle to it escapes).
            unsafe {
                let i = LLVMBuildInsertElement(self.raw, ph, elt.0, idx.0, EMPTY);
                LLVMSetOperand(i, 0, vec.0);
                LLVMInstructionEraseFromParent(ph);
                return v(i);
            }
        }
        // SAFETY: a live builder, a vector, an element and an integer of its module.
        Self::done(unsafe { LLVMBuildInsertElement(self.raw, vec.0, elt.0, idx.0, EMPTY) })
    }
}

/// A position to insert before: a no-op instruction that only this layer can name, taken
/// out again by `Builder::remove_marker`.
pub struct Marker<'a> {
    inst: LLVMValueRef,
    _l: PhantomData<&'a ()>,
}

impl<'a> Builder<'a> {
    /// A marker at the builder's position.
    pub fn marker(&self) -> Marker<'a> {
        // SAFETY: the context is alive; the cast of a constant is made an instruction.
        let null = unsafe { LLVMConstNull(LLVMPointerType(LLVMInt8TypeInContext(self.ctx), 0)) };
        // SAFETY: the context is alive.
        let i32t = t(unsafe { LLVMInt32TypeInContext(self.ctx) });
        let m = self.cast(Opcode::LLVMPtrToInt, v(null), i32t);
        Marker {
            inst: m.0,
            _l: PhantomData,
        }
    }

    /// Positions the builder before marker `m`.
    pub fn position_before_marker(&self, m: &Marker<'a>) {
        // SAFETY: a live builder and the marker's instruction, still in its block (only
        // `remove_marker`, which consumes the marker, takes it out).
        unsafe { LLVMPositionBuilderBefore(self.raw, m.inst) }
    }

    /// Takes marker `m` out of its block; the builder is left at the end of that block
    /// (never at the removed instruction).
    pub fn remove_marker(&self, m: Marker<'a>) {
        // SAFETY: the marker's instruction is in a block of a live module and unused (no
        // handle to it was ever made); the builder is moved off it before it is erased.
        unsafe {
            let blk = LLVMGetInstructionParent(m.inst);
            LLVMPositionBuilderAtEnd(self.raw, blk);
            LLVMInstructionEraseFromParent(m.inst);
        }
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
