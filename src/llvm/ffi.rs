//! The small wrappers over LLVM's C API that the bridge's files share, and what makes them
//! sound: each handle given to them is a value or type of a module its caller keeps alive
//! (an inkwell `Module` it owns or borrows) for as long as the handle is used, and LLVM
//! frees none of a module's values or types while the module lives. Strings LLVM returns
//! are copied out before anything else can change them; messages it allocates are freed
//! here, once.

use std::ffi::{c_char, CStr, CString};

use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// A name for LLVM's C API: a NUL inside becomes `\0` (LLVM names cannot hold one).
pub fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "\\0")).unwrap()
}

/// The text of a message LLVM allocated (`LLVMPrint…ToString`), which is then freed.
fn message(p: *mut c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: `p` is a NUL-terminated string LLVM allocated for the caller, read once and
    // freed once, here.
    unsafe {
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        LLVMDisposeMessage(p);
        s
    }
}

/// Bytes LLVM lends (a name, a metadata string), copied.
pub fn lent(p: *const c_char, len: usize) -> Vec<u8> {
    if p.is_null() || len == 0 {
        return Vec::new();
    }
    // SAFETY: LLVM returned `p` with `len` bytes behind it, which live as long as the
    // value they belong to, still alive here.
    unsafe { std::slice::from_raw_parts(p as *const u8, len).to_vec() }
}

/// The name of value `v` (empty if it has none).
pub fn value_name(v: LLVMValueRef) -> Vec<u8> {
    let mut len = 0;
    // SAFETY: `v` is a value of a live module (the module's note).
    let p = unsafe { LLVMGetValueName2(v, &mut len) };
    lent(p, len)
}

/// The name of value `v` as text (empty if it has none).
pub fn name(v: LLVMValueRef) -> String {
    String::from_utf8_lossy(&value_name(v)).into_owned()
}

/// `v` as LLVM prints it.
pub fn value_text(v: LLVMValueRef) -> String {
    // SAFETY: `v` is a value of a live module (the module's note).
    message(unsafe { LLVMPrintValueToString(v) })
}

/// `t` as LLVM prints it.
pub fn type_text(t: LLVMTypeRef) -> String {
    // SAFETY: `t` is a type of a live module's context (the module's note).
    message(unsafe { LLVMPrintTypeToString(t) })
}

/// The module as LLVM prints it.
pub fn module_text(m: LLVMModuleRef) -> String {
    // SAFETY: `m` is a live module (the module's note).
    message(unsafe { LLVMPrintModuleToString(m) })
}

/// The string of metadata-as-value `v`, if it is an MDString.
pub fn md_string(v: LLVMValueRef) -> Option<Vec<u8>> {
    let mut len = 0;
    // SAFETY: `v` is a value of a live module (the module's note); LLVMGetMDString
    // answers null for anything but an MDString.
    let p = unsafe { LLVMGetMDString(v, &mut len) };
    (!p.is_null()).then(|| lent(p, len as usize))
}

/// A string LLVM keeps for the module (its triple, its data layout), copied.
pub fn module_string(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: a NUL-terminated string the live module owns.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The items of one of LLVM's lists (a module's functions or globals, a function's blocks,
/// a block's instructions), in order. Each item's successor is looked up before the item
/// is handed out, so the caller may delete the item it holds.
pub struct List<T> {
    next: *mut T,
    step: unsafe extern "C" fn(*mut T) -> *mut T,
}

impl<T> Iterator for List<T> {
    type Item = *mut T;
    fn next(&mut self) -> Option<*mut T> {
        let item = self.next;
        if item.is_null() {
            return None;
        }
        // SAFETY: `item` is on a live module's list (the module's note) and not deleted yet.
        self.next = unsafe { (self.step)(item) };
        Some(item)
    }
}

/// The functions of module `m`.
pub fn functions(m: LLVMModuleRef) -> List<llvm_sys::LLVMValue> {
    // SAFETY: `m` is a live module (the module's note).
    let next = unsafe { LLVMGetFirstFunction(m) };
    List {
        next,
        step: LLVMGetNextFunction,
    }
}

/// The global variables of module `m`.
pub fn globals(m: LLVMModuleRef) -> List<llvm_sys::LLVMValue> {
    // SAFETY: `m` is a live module (the module's note).
    let next = unsafe { LLVMGetFirstGlobal(m) };
    List {
        next,
        step: LLVMGetNextGlobal,
    }
}

/// The basic blocks of function `f`.
pub fn blocks(f: LLVMValueRef) -> List<llvm_sys::LLVMBasicBlock> {
    // SAFETY: `f` is a function of a live module (the module's note).
    let next = unsafe { LLVMGetFirstBasicBlock(f) };
    List {
        next,
        step: LLVMGetNextBasicBlock,
    }
}

impl List<llvm_sys::LLVMValue> {
    /// The instructions of block `b`.
    pub fn of_block(b: LLVMBasicBlockRef) -> Self {
        // SAFETY: `b` is a block of a live module's function (the module's note).
        let next = unsafe { LLVMGetFirstInstruction(b) };
        List {
            next,
            step: LLVMGetNextInstruction,
        }
    }
}

/// The instructions of function `f`, block by block.
pub fn instructions(f: LLVMValueRef) -> impl Iterator<Item = LLVMValueRef> {
    blocks(f).flat_map(List::of_block)
}

/// The opcode of `v` if it is an instruction.
pub fn opcode(v: LLVMValueRef) -> Option<llvm_sys::LLVMOpcode> {
    // SAFETY: `v` is a value of a live module (the module's note).
    unsafe { (!LLVMIsAInstruction(v).is_null()).then(|| LLVMGetInstructionOpcode(v)) }
}

/// The nodes of module `m`'s named metadata `name`.
pub fn named_metadata(m: LLVMModuleRef, name: &str) -> Vec<LLVMValueRef> {
    let name = cstr(name);
    // SAFETY: `m` is a live module (the module's note); the array is sized by LLVM's count.
    unsafe {
        let n = LLVMGetNamedMetadataNumOperands(m, name.as_ptr());
        let mut nodes = vec![std::ptr::null_mut(); n as usize];
        LLVMGetNamedMetadataOperands(m, name.as_ptr(), nodes.as_mut_ptr());
        nodes
    }
}

/// The operands of metadata node `node` (null where an operand is null).
pub fn md_operands(node: LLVMValueRef) -> Vec<LLVMValueRef> {
    // SAFETY: `node` is a metadata node of a live module (the module's note); the array
    // is sized by LLVM's count.
    unsafe {
        let mut ops = vec![std::ptr::null_mut(); LLVMGetMDNodeNumOperands(node) as usize];
        LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
        ops
    }
}

/// Where a function's or call's attributes are: its return value (0), each of its `n`
/// parameters or arguments (1..=n), the function itself.
pub fn attribute_indices(n: u32) -> impl Iterator<Item = u32> {
    std::iter::once(0)
        .chain(1..=n)
        .chain(std::iter::once(u32::MAX))
}

/// The attributes at `idx` of function `f`, or of call `f` when `call`.
pub fn attributes(f: LLVMValueRef, idx: u32, call: bool) -> Vec<LLVMAttributeRef> {
    // SAFETY: `f` is a function or call of a live module (the module's note); the array is
    // sized by LLVM's count.
    unsafe {
        let n = match call {
            true => LLVMGetCallSiteAttributeCount(f, idx),
            false => LLVMGetAttributeCountAtIndex(f, idx),
        };
        let mut attrs = vec![std::ptr::null_mut(); n as usize];
        match call {
            true => LLVMGetCallSiteAttributes(f, idx, attrs.as_mut_ptr()),
            false => LLVMGetAttributesAtIndex(f, idx, attrs.as_mut_ptr()),
        }
        attrs
    }
}
