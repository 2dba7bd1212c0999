//! The LLVM C functions the typed layer calls, declared over its handles: the one place
//! where what makes a call sound is written down, once per function, so that the layer's
//! wrappers call them as safe functions.
//!
//! What a declaration here promises: called with live handles of the kinds its parameters
//! name, the function reads or builds LLVM's data and cannot corrupt memory. A handle is
//! live by construction (`edit`'s note: made only from a borrowed module, and nothing a
//! handle can name is ever freed while the borrow lasts). A kind is a type: `Is<K>` is a
//! value that LLVM's own `isa` test (`LLVMIsA…`) found to be of class `K`, `TyIs<K>` a
//! type of kind `K`, made only by the checking constructors below; LLVM's C API casts to
//! the class it needs without checking (in a release build a wrong kind is undefined
//! behaviour), so every function with such a need takes the class. Names are
//! NUL-terminated strings (`Name`), alive for the call.
//!
//! What stays `unsafe` (and is called in `unsafe` blocks in `edit`, each with its reason):
//! functions taking an index LLVM does not check, a pointer and a count, or returning text
//! to copy; and those that delete what a handle could name.
#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_uint, CStr};
use std::marker::PhantomData;

use llvm_sys::prelude::*;
use llvm_sys::target::LLVMTargetDataRef;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMLinkage};
use llvm_sys::{LLVMDLLStorageClass, LLVMOpcode, LLVMRealPredicate, LLVMTypeKind};
use llvm_sys::{LLVMUnnamedAddr, LLVMValueKind, LLVMVisibility};

use super::{Block, Type, Value};

/// Handles of what the layer borrows (each `#[repr(transparent)]` over LLVM's pointer):
/// made only by `edit` from something alive for the lifetime.
macro_rules! handles {
    ($($(#[$doc:meta])* $name:ident($raw:ty);)*) => {$(
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy)]
        pub(super) struct $name<'a>(pub(super) $raw, pub(super) PhantomData<&'a ()>);
    )*};
}

handles! {
    /// A live context.
    Ctx(LLVMContextRef);
    /// A live module.
    Mod(LLVMModuleRef);
    /// A live builder, borrowed from the `Builder` that owns it.
    Bld(LLVMBuilderRef);
    /// A live data layout, borrowed from the `Layout` that owns it.
    Td(LLVMTargetDataRef);
    /// An attribute of a live context.
    Attr(LLVMAttributeRef);
}

impl<'a> Attr<'a> {
    /// The attributes of function `f` at `idx` (0 its return, 1.. its parameters, `!0`
    /// the function).
    pub(super) fn of_function(f: Is<'a, Func>, idx: c_uint) -> Vec<Attr<'a>> {
        let n = LLVMGetAttributeCountAtIndex(f, idx) as usize;
        let mut out = vec![std::ptr::null_mut(); n];
        // SAFETY: a function of a live module (checked); the array is sized by LLVM's
        // count.
        unsafe { llvm_sys::core::LLVMGetAttributesAtIndex(f.0 .0, idx, out.as_mut_ptr()) };
        out.into_iter().map(|a| Attr(a, PhantomData)).collect()
    }

    /// The attributes of call `c` at `idx`.
    pub(super) fn of_call(c: Is<'a, CallBase>, idx: c_uint) -> Vec<Attr<'a>> {
        let n = LLVMGetCallSiteAttributeCount(c, idx) as usize;
        let mut out = vec![std::ptr::null_mut(); n];
        // SAFETY: a call of a live module (checked); the array is sized by LLVM's count.
        unsafe { llvm_sys::core::LLVMGetCallSiteAttributes(c.0 .0, idx, out.as_mut_ptr()) };
        out.into_iter().map(|a| Attr(a, PhantomData)).collect()
    }

    /// A string attribute's key and value.
    pub(super) fn string_pair(self) -> Option<(Vec<u8>, Vec<u8>)> {
        if LLVMIsStringAttribute(self) == 0 {
            return None;
        }
        let (mut kl, mut vl) = (0, 0);
        // SAFETY: a string attribute (checked) of a live context; LLVM lends the bytes,
        // copied at once.
        unsafe {
            let k = llvm_sys::core::LLVMGetStringAttributeKind(self.0, &mut kl);
            let k = super::ffi::lent(k, kl as usize);
            let v = llvm_sys::core::LLVMGetStringAttributeValue(self.0, &mut vl);
            Some((k, super::ffi::lent(v, vl as usize)))
        }
    }

    /// A string attribute `key`=`val` of context `c`.
    pub(super) fn string(c: Ctx<'a>, key: &str, val: &str) -> Attr<'a> {
        // SAFETY: a live context; LLVM copies `key.len()` and `val.len()` bytes.
        let a = unsafe {
            llvm_sys::core::LLVMCreateStringAttribute(
                c.0,
                key.as_ptr() as *const _,
                key.len() as u32,
                val.as_ptr() as *const _,
                val.len() as u32,
            )
        };
        Attr(a, PhantomData)
    }
}

/// A NUL-terminated string alive for `'s`.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub(super) struct Name<'s>(*const c_char, PhantomData<&'s CStr>);

impl<'s> Name<'s> {
    pub(super) fn of(s: &'s CStr) -> Name<'s> {
        Name(s.as_ptr(), PhantomData)
    }
}

/// The empty name (LLVM names nothing).
pub(super) const EMPTY: Name<'static> = Name(c"".as_ptr(), PhantomData);

/// A value of class `K` (checked).
#[repr(transparent)]
pub(super) struct Is<'a, K>(Value<'a>, PhantomData<K>);

impl<K> Clone for Is<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K> Copy for Is<'_, K> {}

/// A class of values, as LLVM's `isa` tests it.
pub(super) trait Class {
    const NAME: &'static str;
    fn test(v: Value<'_>) -> bool;
}

impl<'a> Value<'a> {
    /// This value as one of class `K`, if it is one.
    pub(super) fn is_a<K: Class>(self) -> Option<Is<'a, K>> {
        K::test(self).then_some(Is(self, PhantomData))
    }

    /// This value as one of class `K`; a caller's mistake (it is not one) is a panic, never
    /// a call of LLVM with a value of the wrong class.
    pub(super) fn must<K: Class>(self) -> Is<'a, K> {
        self.is_a::<K>()
            .unwrap_or_else(|| panic!("{} is not {}", self.text().trim(), K::NAME))
    }
}

macro_rules! classes {
    ($($(#[$doc:meta])* $k:ident = $name:literal: |$v:ident| $test:expr;)*) => {$(
        $(#[$doc])*
        pub(super) enum $k {}
        impl Class for $k {
            const NAME: &'static str = $name;
            fn test($v: Value<'_>) -> bool {
                $test
            }
        }
    )*};
}

fn isa(r: LLVMValueRef) -> bool {
    !r.is_null()
}

classes! {
    /// An instruction or a constant: what has operands.
    User = "a user": |v| isa(LLVMIsAUser(v));
    Constant = "a constant": |v| isa(LLVMIsAConstant(v));
    Inst = "an instruction": |v| isa(LLVMIsAInstruction(v));
    ConstExpr = "a constant expression": |v| isa(LLVMIsAConstantExpr(v));
    ConstInt = "an integer constant": |v| isa(LLVMIsAConstantInt(v));
    ConstFp = "a floating-point constant": |v| isa(LLVMIsAConstantFP(v));
    /// A constant array or vector of plain data.
    ConstData = "a constant data sequence": |v| isa(LLVMIsAConstantDataSequential(v));
    Func = "a function": |v| isa(LLVMIsAFunction(v));
    GlobalValue = "a global value": |v| isa(LLVMIsAGlobalValue(v));
    GlobalVar = "a global variable": |v| isa(LLVMIsAGlobalVariable(v));
    Alias = "a global alias": |v| isa(LLVMIsAGlobalAlias(v));
    /// A call or an invoke.
    CallBase = "a call": |v| isa(LLVMIsACallInst(v)) || isa(LLVMIsAInvokeInst(v));
    CallInst = "a call instruction": |v| isa(LLVMIsACallInst(v));
    Alloca = "an alloca": |v| isa(LLVMIsAAllocaInst(v));
    Phi = "a phi": |v| isa(LLVMIsAPHINode(v));
    Switch = "a switch": |v| isa(LLVMIsASwitchInst(v));
    Invoke = "an invoke": |v| isa(LLVMIsAInvokeInst(v));
    Terminator = "a terminator": |v| isa(LLVMIsATerminatorInst(v));
    Shuffle = "a shufflevector": |v| isa(LLVMIsAShuffleVectorInst(v));
    Rmw = "an atomicrmw": |v| isa(LLVMIsAAtomicRMWInst(v));
    CmpXchg = "a cmpxchg": |v| isa(LLVMIsAAtomicCmpXchgInst(v));
    /// A load, store, atomicrmw or cmpxchg (what has volatility).
    MemAccess = "a memory access": |v| isa(LLVMIsALoadInst(v)) || isa(LLVMIsAStoreInst(v))
        || isa(LLVMIsAAtomicRMWInst(v)) || isa(LLVMIsAAtomicCmpXchgInst(v));
    /// What has an alignment: a global object or a memory access, or an alloca.
    Aligned = "an aligned value": |v| isa(LLVMIsAGlobalObject(v)) || isa(LLVMIsAAllocaInst(v))
        || MemAccess::test(v);
    /// A getelementptr, instruction or constant expression.
    Gep = "a getelementptr": |v| isa(LLVMIsAGetElementPtrInst(v))
        || (isa(LLVMIsAConstantExpr(v)) && LLVMGetConstOpcode(Is(v, PhantomData))
            == LLVMOpcode::LLVMGetElementPtr);
    /// An extractvalue or insertvalue instruction.
    AggIndexed = "an extractvalue or insertvalue": |v| isa(LLVMIsAExtractValueInst(v))
        || isa(LLVMIsAInsertValueInst(v));
    /// A block as a value.
    BlockValue = "a block": |v| LLVMValueIsBasicBlock(v) != 0;
}

/// A type of kind `K` (checked).
#[repr(transparent)]
pub(super) struct TyIs<'a, K>(Type<'a>, PhantomData<K>);

impl<K> Clone for TyIs<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K> Copy for TyIs<'_, K> {}

/// A kind of types.
pub(super) trait Kind {
    const NAME: &'static str;
    fn test(k: LLVMTypeKind) -> bool;
}

impl<'a> Type<'a> {
    pub(super) fn is_a<K: Kind>(self) -> Option<TyIs<'a, K>> {
        K::test(LLVMGetTypeKind(self)).then_some(TyIs(self, PhantomData))
    }

    /// This type as one of kind `K`; a caller's mistake is a panic.
    pub(super) fn must<K: Kind>(self) -> TyIs<'a, K> {
        self.is_a::<K>()
            .unwrap_or_else(|| panic!("{} is not {}", self.text(), K::NAME))
    }
}

macro_rules! kinds {
    ($($(#[$doc:meta])* $k:ident = $name:literal: $($p:ident)|+;)*) => {$(
        $(#[$doc])*
        pub(super) enum $k {}
        impl Kind for $k {
            const NAME: &'static str = $name;
            fn test(k: LLVMTypeKind) -> bool {
                use LLVMTypeKind::*;
                matches!(k, $($p)|+)
            }
        }
    )*};
}

kinds! {
    IntTy = "an integer type": LLVMIntegerTypeKind;
    RealTy = "a floating-point type": LLVMHalfTypeKind | LLVMBFloatTypeKind | LLVMFloatTypeKind
        | LLVMDoubleTypeKind | LLVMX86_FP80TypeKind | LLVMFP128TypeKind | LLVMPPC_FP128TypeKind;
    PtrTy = "a pointer type": LLVMPointerTypeKind;
    /// What has an element type.
    SeqTy = "a pointer, array or vector type": LLVMPointerTypeKind | LLVMArrayTypeKind
        | LLVMVectorTypeKind | LLVMScalableVectorTypeKind;
    ArrayTy = "an array type": LLVMArrayTypeKind;
    VectorTy = "a vector type": LLVMVectorTypeKind;
    StructTy = "a struct type": LLVMStructTypeKind;
    FnTy = "a function type": LLVMFunctionTypeKind;
    /// What a constant, a global or an alloca can be of.
    FirstClassTy = "a first-class type": LLVMIntegerTypeKind | LLVMHalfTypeKind
        | LLVMBFloatTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMX86_FP80TypeKind
        | LLVMFP128TypeKind | LLVMPPC_FP128TypeKind | LLVMPointerTypeKind | LLVMArrayTypeKind
        | LLVMStructTypeKind | LLVMVectorTypeKind;
    /// What a pointer can point to.
    PointeeTy = "a type a pointer can point to": LLVMIntegerTypeKind | LLVMHalfTypeKind
        | LLVMBFloatTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMX86_FP80TypeKind
        | LLVMFP128TypeKind | LLVMPPC_FP128TypeKind | LLVMPointerTypeKind | LLVMArrayTypeKind
        | LLVMStructTypeKind | LLVMVectorTypeKind | LLVMFunctionTypeKind;
}

// SAFETY: each function below is LLVM 14's C API with its C signature: the handles are
// `#[repr(transparent)]` over the pointer types LLVM takes, `Name` over a `const char *`,
// `&mut` over an out-pointer, and each one marked `safe` is sound for every live handle
// of the classes its parameters name (the module's note), as its C++ body reads or builds
// only what those handles reach.
#[allow(clashing_extern_declarations)]
unsafe extern "C" {
    // --- any value -----------------------------------------------------------------------
    pub(super) safe fn LLVMTypeOf<'a>(v: Value<'a>) -> Type<'a>;
    pub(super) safe fn LLVMGetValueKind(v: Value<'_>) -> LLVMValueKind;
    pub(super) safe fn LLVMIsConstant(v: Value<'_>) -> LLVMBool;
    pub(super) safe fn LLVMValueIsBasicBlock(v: Value<'_>) -> LLVMBool;
    pub(super) safe fn LLVMIsAUser(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAConstant(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAInstruction(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAConstantExpr(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAConstantInt(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAConstantFP(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAConstantDataSequential(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAFunction(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAGlobalValue(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAGlobalObject(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAGlobalVariable(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAGlobalAlias(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsACallInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAInvokeInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAAllocaInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAPHINode(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsASwitchInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsATerminatorInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAShuffleVectorInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAAtomicRMWInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAAtomicCmpXchgInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsALoadInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAStoreInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAGetElementPtrInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAExtractValueInst(v: Value<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMIsAInsertValueInst(v: Value<'_>) -> LLVMValueRef;
    /// 0 for what is no icmp (instruction or constant expression).
    pub(super) safe fn LLVMGetICmpPredicate(v: Value<'_>) -> LLVMIntPredicate;
    /// 0 for what is no fcmp.
    pub(super) safe fn LLVMGetFCmpPredicate(v: Value<'_>) -> LLVMRealPredicate;
    /// The first use of a value (null: none); uses are read through `edit::Value::users`.
    pub(super) safe fn LLVMGetFirstUse(v: Value<'_>) -> LLVMUseRef;
    /// Of two values of one type (the caller checks).
    pub(super) safe fn LLVMReplaceAllUsesWith<'a>(old: Value<'a>, new: Value<'a>);

    // --- classes of values ---------------------------------------------------------------
    pub(super) safe fn LLVMGetNumOperands(v: Is<'_, User>) -> i32;
    pub(super) safe fn LLVMGetInstructionOpcode(v: Is<'_, Inst>) -> LLVMOpcode;
    pub(super) safe fn LLVMGetInstructionParent<'a>(v: Is<'a, Inst>) -> Block<'a>;
    pub(super) safe fn LLVMGetNextInstruction(v: Is<'_, Inst>) -> LLVMValueRef;
    pub(super) safe fn LLVMGetDebugLocLine(v: Is<'_, Inst>) -> c_uint;
    pub(super) safe fn LLVMGetDebugLocColumn(v: Is<'_, Inst>) -> c_uint;
    pub(super) safe fn LLVMGetConstOpcode(v: Is<'_, ConstExpr>) -> LLVMOpcode;
    pub(super) safe fn LLVMConstIntGetZExtValue(v: Is<'_, ConstInt>) -> u64;
    pub(super) safe fn LLVMConstIntGetSExtValue(v: Is<'_, ConstInt>) -> i64;
    pub(super) safe fn LLVMConstRealGetDouble(v: Is<'_, ConstFp>, loses: &mut LLVMBool) -> f64;
    pub(super) safe fn LLVMIsConstantString(v: Is<'_, ConstData>) -> LLVMBool;
    pub(super) safe fn LLVMGetAlignment(v: Is<'_, Aligned>) -> c_uint;
    pub(super) safe fn LLVMSetAlignment(v: Is<'_, Aligned>, bytes: c_uint);
    pub(super) safe fn LLVMGetVolatile(v: Is<'_, MemAccess>) -> LLVMBool;
    pub(super) safe fn LLVMGetAtomicRMWBinOp(v: Is<'_, Rmw>) -> LLVMAtomicRMWBinOp;
    pub(super) safe fn LLVMGetWeak(v: Is<'_, CmpXchg>) -> LLVMBool;
    pub(super) safe fn LLVMGetAllocatedType<'a>(v: Is<'a, Alloca>) -> Type<'a>;
    pub(super) safe fn LLVMGetGEPSourceElementType<'a>(v: Is<'a, Gep>) -> Type<'a>;
    pub(super) safe fn LLVMGetNumIndices(v: Is<'_, AggIndexed>) -> c_uint;
    pub(super) safe fn LLVMGetNumMaskElements(v: Is<'_, Shuffle>) -> c_uint;
    pub(super) safe fn LLVMGetUndefMaskElem() -> i32;
    pub(super) safe fn LLVMGetCalledValue<'a>(v: Is<'a, CallBase>) -> Value<'a>;
    pub(super) safe fn LLVMGetCalledFunctionType<'a>(v: Is<'a, CallBase>) -> Type<'a>;
    pub(super) safe fn LLVMGetNumArgOperands(v: Is<'_, CallBase>) -> c_uint;
    pub(super) safe fn LLVMGetInstructionCallConv(v: Is<'_, CallBase>) -> c_uint;
    pub(super) safe fn LLVMSetInstructionCallConv(v: Is<'_, CallBase>, cc: c_uint);
    pub(super) safe fn LLVMGetCallSiteEnumAttribute<'a>(
        v: Is<'a, CallBase>,
        idx: c_uint,
        kind: c_uint,
    ) -> LLVMAttributeRef;
    pub(super) safe fn LLVMAddCallSiteAttribute<'a>(v: Is<'a, CallBase>, idx: c_uint, a: Attr<'a>);
    pub(super) safe fn LLVMIsTailCall(v: Is<'_, CallInst>) -> LLVMBool;
    pub(super) safe fn LLVMSetTailCall(v: Is<'_, CallInst>, tail: LLVMBool);
    pub(super) safe fn LLVMGetNumSuccessors(v: Is<'_, Terminator>) -> c_uint;
    pub(super) safe fn LLVMCountIncoming(v: Is<'_, Phi>) -> c_uint;
    pub(super) safe fn LLVMGetSwitchDefaultDest<'a>(v: Is<'a, Switch>) -> Block<'a>;
    pub(super) safe fn LLVMAddCase<'a>(sw: Is<'a, Switch>, on: Is<'a, ConstInt>, to: Block<'a>);
    pub(super) safe fn LLVMGetNormalDest<'a>(v: Is<'a, Invoke>) -> Block<'a>;
    pub(super) safe fn LLVMGetUnwindDest<'a>(v: Is<'a, Invoke>) -> Block<'a>;
    pub(super) safe fn LLVMValueAsBasicBlock<'a>(v: Is<'a, BlockValue>) -> Block<'a>;
    pub(super) safe fn LLVMCountParams(f: Is<'_, Func>) -> c_uint;
    pub(super) safe fn LLVMCountBasicBlocks(f: Is<'_, Func>) -> c_uint;
    pub(super) safe fn LLVMGetEntryBasicBlock<'a>(f: Is<'a, Func>) -> Block<'a>;
    pub(super) safe fn LLVMGetFunctionCallConv(f: Is<'_, Func>) -> c_uint;
    pub(super) safe fn LLVMGetIntrinsicID(f: Is<'_, Func>) -> c_uint;
    pub(super) safe fn LLVMGetEnumAttributeAtIndex<'a>(
        f: Is<'a, Func>,
        idx: c_uint,
        kind: c_uint,
    ) -> LLVMAttributeRef;
    pub(super) safe fn LLVMAddAttributeAtIndex<'a>(f: Is<'a, Func>, idx: c_uint, a: Attr<'a>);
    pub(super) safe fn LLVMGetAttributeCountAtIndex(f: Is<'_, Func>, idx: c_uint) -> c_uint;
    pub(super) safe fn LLVMGetCallSiteAttributeCount(c: Is<'_, CallBase>, idx: c_uint) -> c_uint;
    pub(super) safe fn LLVMIsStringAttribute(a: Attr<'_>) -> LLVMBool;
    /// True for an enum attribute or an integer one.
    pub(super) safe fn LLVMIsEnumAttribute(a: Attr<'_>) -> LLVMBool;
    /// Of an attribute that is no string attribute.
    pub(super) safe fn LLVMGetEnumAttributeKind(a: Attr<'_>) -> c_uint;
    /// Of an integer attribute (`align`, `alignstack`, `dereferenceable`, …): the caller
    /// asks only those.
    pub(super) safe fn LLVMGetEnumAttributeValue(a: Attr<'_>) -> u64;
    pub(super) safe fn LLVMGetGC(f: Is<'_, Func>) -> *const c_char;
    pub(super) safe fn LLVMGlobalGetValueType<'a>(g: Is<'a, GlobalValue>) -> Type<'a>;
    pub(super) safe fn LLVMIsDeclaration(g: Is<'_, GlobalValue>) -> LLVMBool;
    pub(super) safe fn LLVMGetLinkage(g: Is<'_, GlobalValue>) -> LLVMLinkage;
    pub(super) safe fn LLVMSetLinkage(g: Is<'_, GlobalValue>, l: LLVMLinkage);
    pub(super) safe fn LLVMSetVisibility(g: Is<'_, GlobalValue>, v: LLVMVisibility);
    pub(super) safe fn LLVMGetVisibility(g: Is<'_, GlobalValue>) -> LLVMVisibility;
    pub(super) safe fn LLVMGetUnnamedAddress(g: Is<'_, GlobalValue>) -> LLVMUnnamedAddr;
    /// The section's name (null: none), which the global owns.
    pub(super) safe fn LLVMGetSection(g: Is<'_, GlobalValue>) -> *const c_char;
    pub(super) safe fn LLVMSetDLLStorageClass(g: Is<'_, GlobalValue>, c: LLVMDLLStorageClass);
    pub(super) safe fn LLVMSetUnnamedAddress(g: Is<'_, GlobalValue>, u: LLVMUnnamedAddr);
    pub(super) safe fn LLVMGetInitializer(g: Is<'_, GlobalVar>) -> LLVMValueRef;
    pub(super) safe fn LLVMSetInitializer<'a>(g: Is<'a, GlobalVar>, c: Value<'a>);
    pub(super) safe fn LLVMIsGlobalConstant(g: Is<'_, GlobalVar>) -> LLVMBool;
    pub(super) safe fn LLVMSetGlobalConstant(g: Is<'_, GlobalVar>, c: LLVMBool);
    pub(super) safe fn LLVMIsThreadLocal(g: Is<'_, GlobalVar>) -> LLVMBool;
    pub(super) safe fn LLVMIsExternallyInitialized(g: Is<'_, GlobalVar>) -> LLVMBool;
    pub(super) safe fn LLVMAliasGetAliasee<'a>(a: Is<'a, Alias>) -> Value<'a>;
    pub(super) safe fn LLVMGetNextGlobalAlias(a: Is<'_, Alias>) -> LLVMValueRef;

    // --- types ---------------------------------------------------------------------------
    pub(super) safe fn LLVMGetTypeKind(t: Type<'_>) -> LLVMTypeKind;
    pub(super) safe fn LLVMGetTypeContext<'a>(t: Type<'a>) -> Ctx<'a>;
    pub(super) safe fn LLVMPointerType<'a>(t: TyIs<'a, PointeeTy>, space: c_uint) -> Type<'a>;
    pub(super) safe fn LLVMArrayType<'a>(t: TyIs<'a, FirstClassTy>, n: c_uint) -> Type<'a>;
    pub(super) safe fn LLVMVectorType<'a>(t: TyIs<'a, FirstClassTy>, n: c_uint) -> Type<'a>;
    pub(super) safe fn LLVMGetIntTypeWidth(t: TyIs<'_, IntTy>) -> c_uint;
    pub(super) safe fn LLVMGetElementType<'a>(t: TyIs<'a, SeqTy>) -> Type<'a>;
    pub(super) safe fn LLVMGetPointerAddressSpace(t: TyIs<'_, PtrTy>) -> c_uint;
    pub(super) safe fn LLVMGetArrayLength(t: TyIs<'_, ArrayTy>) -> c_uint;
    pub(super) safe fn LLVMGetVectorSize(t: TyIs<'_, VectorTy>) -> c_uint;
    pub(super) safe fn LLVMCountStructElementTypes(t: TyIs<'_, StructTy>) -> c_uint;
    pub(super) safe fn LLVMIsPackedStruct(t: TyIs<'_, StructTy>) -> LLVMBool;
    pub(super) safe fn LLVMIsLiteralStruct(t: TyIs<'_, StructTy>) -> LLVMBool;
    pub(super) safe fn LLVMGetReturnType<'a>(t: TyIs<'a, FnTy>) -> Type<'a>;
    pub(super) safe fn LLVMCountParamTypes(t: TyIs<'_, FnTy>) -> c_uint;
    pub(super) safe fn LLVMIsFunctionVarArg(t: TyIs<'_, FnTy>) -> LLVMBool;
    pub(super) safe fn LLVMConstInt<'a>(t: TyIs<'a, IntTy>, n: u64, sign: LLVMBool) -> Value<'a>;
    pub(super) safe fn LLVMConstReal<'a>(t: TyIs<'a, RealTy>, x: f64) -> Value<'a>;
    pub(super) safe fn LLVMGetUndef<'a>(t: Type<'a>) -> Value<'a>;
    pub(super) safe fn LLVMConstNull<'a>(t: TyIs<'a, FirstClassTy>) -> Value<'a>;
    /// Constant expressions (the operands' types as the operation takes them: checked by
    /// the verifier).
    pub(super) safe fn LLVMConstPtrToInt<'a>(c: Is<'a, Constant>, t: TyIs<'a, IntTy>) -> Value<'a>;
    pub(super) safe fn LLVMConstAdd<'a>(a: Is<'a, Constant>, b: Is<'a, Constant>) -> Value<'a>;
    pub(super) safe fn LLVMConstBitCast<'a>(c: Is<'a, Constant>, t: Type<'a>) -> Value<'a>;

    // --- blocks, modules, contexts -------------------------------------------------------
    pub(super) safe fn LLVMGetBasicBlockTerminator(b: Block<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMGetFirstInstruction(b: Block<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMBasicBlockAsValue<'a>(b: Block<'a>) -> Value<'a>;
    pub(super) safe fn LLVMGetModuleContext<'a>(m: Mod<'a>) -> Ctx<'a>;
    pub(super) safe fn LLVMGetFirstGlobalAlias(m: Mod<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMGetNamedFunction(m: Mod<'_>, name: Name<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMGetNamedGlobal(m: Mod<'_>, name: Name<'_>) -> LLVMValueRef;
    pub(super) safe fn LLVMSetTarget(m: Mod<'_>, triple: Name<'_>);
    pub(super) safe fn LLVMSetDataLayout(m: Mod<'_>, layout: Name<'_>);
    pub(super) safe fn LLVMAddFunction<'a>(
        m: Mod<'a>,
        name: Name<'_>,
        t: TyIs<'a, FnTy>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMAddGlobal<'a>(
        m: Mod<'a>,
        t: TyIs<'a, FirstClassTy>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMAddGlobalInAddressSpace<'a>(
        m: Mod<'a>,
        t: TyIs<'a, FirstClassTy>,
        name: Name<'_>,
        space: c_uint,
    ) -> Value<'a>;
    pub(super) safe fn LLVMAppendBasicBlockInContext<'a>(
        c: Ctx<'a>,
        f: Is<'a, Func>,
        name: Name<'_>,
    ) -> Block<'a>;
    pub(super) safe fn LLVMInsertBasicBlockInContext<'a>(
        c: Ctx<'a>,
        before: Block<'a>,
        name: Name<'_>,
    ) -> Block<'a>;
    pub(super) safe fn LLVMIntTypeInContext<'a>(c: Ctx<'a>, bits: c_uint) -> Type<'a>;
    pub(super) safe fn LLVMFloatTypeInContext<'a>(c: Ctx<'a>) -> Type<'a>;
    pub(super) safe fn LLVMDoubleTypeInContext<'a>(c: Ctx<'a>) -> Type<'a>;
    pub(super) safe fn LLVMVoidTypeInContext<'a>(c: Ctx<'a>) -> Type<'a>;
    pub(super) safe fn LLVMCreateEnumAttribute<'a>(c: Ctx<'a>, kind: c_uint, val: u64) -> Attr<'a>;
    /// A new builder, which its owner disposes of once.
    pub(super) safe fn LLVMCreateBuilderInContext(c: Ctx<'_>) -> LLVMBuilderRef;

    // --- data layouts --------------------------------------------------------------------
    pub(super) safe fn LLVMABISizeOfType(td: Td<'_>, t: TyIs<'_, FirstClassTy>) -> u64;
    pub(super) safe fn LLVMStoreSizeOfType(td: Td<'_>, t: TyIs<'_, FirstClassTy>) -> u64;
    pub(super) safe fn LLVMABIAlignmentOfType(td: Td<'_>, t: TyIs<'_, FirstClassTy>) -> c_uint;
    pub(super) safe fn LLVMPreferredAlignmentOfType(
        td: Td<'_>,
        t: TyIs<'_, FirstClassTy>,
    ) -> c_uint;
    pub(super) safe fn LLVMByteOrder(td: Td<'_>) -> llvm_sys::target::LLVMByteOrdering;
    pub(super) safe fn LLVMPointerSize(td: Td<'_>) -> c_uint;

    // --- builders (an instruction at the builder's position, of operands LLVM accepts for
    // it: the verifier, run on all the layer builds, checks their types) -------------------
    pub(super) safe fn LLVMPositionBuilderAtEnd<'a>(b: Bld<'_>, at: Block<'a>);
    pub(super) safe fn LLVMPositionBuilderBefore<'a>(b: Bld<'_>, at: Is<'a, Inst>);
    pub(super) safe fn LLVMGetInsertBlock(b: Bld<'_>) -> LLVMBasicBlockRef;
    /// Puts an instruction no block holds at the builder's position.
    pub(super) safe fn LLVMInsertIntoBuilder<'a>(b: Bld<'_>, i: Is<'a, Inst>);
    pub(super) safe fn LLVMBuildBinOp<'a>(
        b: Bld<'_>,
        op: LLVMOpcode,
        l: Value<'a>,
        r: Value<'a>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildICmp<'a>(
        b: Bld<'_>,
        p: LLVMIntPredicate,
        l: Value<'a>,
        r: Value<'a>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildFCmp<'a>(
        b: Bld<'_>,
        p: LLVMRealPredicate,
        l: Value<'a>,
        r: Value<'a>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildSelect<'a>(
        b: Bld<'_>,
        c: Value<'a>,
        x: Value<'a>,
        y: Value<'a>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildCast<'a>(
        b: Bld<'_>,
        op: LLVMOpcode,
        x: Value<'a>,
        t: Type<'a>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildLoad2<'a>(
        b: Bld<'_>,
        t: Type<'a>,
        p: Value<'a>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildStore<'a>(b: Bld<'_>, x: Value<'a>, p: Value<'a>) -> Value<'a>;
    pub(super) safe fn LLVMBuildAlloca<'a>(
        b: Bld<'_>,
        t: TyIs<'a, FirstClassTy>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildArrayAlloca<'a>(
        b: Bld<'_>,
        t: TyIs<'a, FirstClassTy>,
        n: Value<'a>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildAtomicRMW<'a>(
        b: Bld<'_>,
        op: LLVMAtomicRMWBinOp,
        p: Value<'a>,
        x: Value<'a>,
        ord: LLVMAtomicOrdering,
        single_thread: LLVMBool,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildAtomicCmpXchg<'a>(
        b: Bld<'_>,
        p: Value<'a>,
        expected: Value<'a>,
        desired: Value<'a>,
        success: LLVMAtomicOrdering,
        failure: LLVMAtomicOrdering,
        single_thread: LLVMBool,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildFence<'a>(
        b: Bld<'_>,
        ord: LLVMAtomicOrdering,
        single_thread: LLVMBool,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildBr<'a>(b: Bld<'_>, to: Block<'a>) -> Value<'a>;
    pub(super) safe fn LLVMBuildCondBr<'a>(
        b: Bld<'_>,
        c: Value<'a>,
        t: Block<'a>,
        f: Block<'a>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildSwitch<'a>(
        b: Bld<'_>,
        c: Value<'a>,
        default: Block<'a>,
        cases: c_uint,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildRet<'a>(b: Bld<'_>, x: Value<'a>) -> Value<'a>;
    pub(super) safe fn LLVMBuildRetVoid<'a>(b: Bld<'_>) -> Value<'a>;
    pub(super) safe fn LLVMBuildUnreachable<'a>(b: Bld<'_>) -> Value<'a>;
    pub(super) safe fn LLVMBuildPhi<'a>(
        b: Bld<'_>,
        t: TyIs<'a, FirstClassTy>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildExtractElement<'a>(
        b: Bld<'_>,
        v: Value<'a>,
        i: Value<'a>,
        name: Name<'_>,
    ) -> Value<'a>;
    pub(super) safe fn LLVMBuildInsertElement<'a>(
        b: Bld<'_>,
        v: Value<'a>,
        x: Value<'a>,
        i: Value<'a>,
        name: Name<'_>,
    ) -> Value<'a>;
}
