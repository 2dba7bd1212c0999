//! Targets the LLVM bridge builds modules for: what each is comes from the crate's table
//! (`crate::target`); here, the runtime functions translated code calls.

pub use crate::target::Target;

/// Names of the runtime functions translated code calls (documented in the README).
pub mod runtime {
    /// `i32 __pnacl_read_tp(void)`: the calling thread's thread pointer.
    pub const READ_TP: &str = "__pnacl_read_tp";
    /// `i32 __pnacl_setjmp(i8*)`, returns twice.
    pub const SETJMP: &str = "__pnacl_setjmp";
    /// `void __pnacl_longjmp(i8*, i32)`, does not return.
    pub const LONGJMP: &str = "__pnacl_longjmp";
    /// Region targets: `void __pnacl_setjmp_leave(void)`, called by a function that calls
    /// setjmp as it returns, from its own frame, so that the runtime forgets the contexts
    /// it made there.
    pub const SETJMP_LEAVE: &str = "__pnacl_setjmp_leave";
    /// `void __pnacl_entry(i32 info)`: calls the pexe's `_start` with its real type.
    pub const ENTRY: &str = "__pnacl_entry";
    /// `i32 __pnacl_threads`: 0 while the pexe's code runs on one thread only, then 1 for
    /// good (its atomic operations take their plain path while it is 0:
    /// llvm::export::one_thread).
    pub const THREADS: &str = "__pnacl_threads";
}
