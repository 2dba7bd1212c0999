//! Targets the LLVM bridge builds modules for: their triples and data layouts.

use std::str::FromStr;

/// A target of `pnacl-llvm` / `pnacl-translate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// The neutral PNaCl module (triple `le32-unknown-nacl`), intrinsics kept as in the pexe.
    Le32,
    /// 32-bit x86 Linux (`i686-unknown-linux-gnu`), SSE2.
    X86_32,
    /// 32-bit ARM Linux, hard float (`armv7-unknown-linux-gnueabihf`).
    Arm,
    /// WebAssembly (`wasm32-unknown-wasi`): threads, atomics, SIMD, and exception
    /// handling for setjmp/longjmp.
    Wasm32,
}

impl Target {
    pub const ALL: [Target; 4] = [Target::Le32, Target::X86_32, Target::Arm, Target::Wasm32];

    pub fn triple(self) -> &'static str {
        match self {
            Target::Le32 => "le32-unknown-nacl",
            Target::X86_32 => "i686-unknown-linux-gnu",
            Target::Arm => "armv7-unknown-linux-gnueabihf",
            Target::Wasm32 => "wasm32-unknown-wasi",
        }
    }

    /// The data layout: PNaCl's for le32 (writer.md §7.3), LLVM 14's for the others.
    pub fn data_layout(self) -> &'static str {
        match self {
            Target::Le32 => {
                "e-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-p:32:32:32-v128:32:32"
            }
            Target::X86_32 => "e-m:e-p:32:32-p270:32:32-p271:32:32-p272:64:64-f64:32:64-f80:32-n8:16:32-S128",
            Target::Arm => "e-m:e-p:32:32-Fi8-i64:64-v128:64:128-a:0:32-n32-S64",
            Target::Wasm32 => "e-m:e-p:32:32-i64:64-n32:64-S128",
        }
    }

    /// Whether code is generated for it (every target but the neutral le32).
    pub fn generates_code(self) -> bool {
        self != Target::Le32
    }

    /// CPU and features llc / the target machine should use (runtime.md §4.8).
    pub fn cpu_features(self) -> (&'static str, &'static str) {
        match self {
            Target::Le32 => ("", ""),
            // Generic i686 with SSE2: what `llc -mattr=+sse2` compiles for, and markedly
            // faster to schedule for than pentium4's model. With the multi-byte no-op
            // (`nopl`, which every processor with SSE2 has): without it a loop's alignment
            // padding is up to 15 one-byte nops, which the code before the loop runs
            // through each time it falls into it (fasta's innermost loop, per random number).
            Target::X86_32 => ("generic", "+sse2,+nopl"),
            Target::Arm => ("cortex-a9", "+neon,+vfp3,-thumb-mode"),
            // Shared memory for threads, SIMD for the pexe's vectors, exception handling
            // for setjmp/longjmp. Not nontrapping-fptoint: an out-of-range float-to-int
            // conversion gives what x86 gives, not saturation. Not bulk memory: a copy or
            // fill of unknown length calls the runtime's memcpy or memset, which make
            // memory another thread has just grown safe to copy into (arch_wasm32.S).
            Target::Wasm32 => (
                "generic",
                "+atomics,+mutable-globals,+sign-ext,+simd128,+exception-handling",
            ),
        }
    }

    /// The native target of the machine the tools run on, in its 32-bit form: ARM on ARM
    /// hosts, x86-32 on the others (what `llc-14` compiles a module for by its triple, and
    /// what runs here).
    pub fn host() -> Target {
        if cfg!(any(target_arch = "arm", target_arch = "aarch64")) {
            Target::Arm
        } else {
            Target::X86_32
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::Le32 => "le32",
            Target::X86_32 => "x86-32",
            Target::Arm => "arm",
            Target::Wasm32 => "wasm32",
        }
    }
}

display_as_name!(Target);

impl FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Target, String> {
        match s {
            "le32" => Ok(Target::Le32),
            "x86-32" | "x86_32" | "i686" | "x86" => Ok(Target::X86_32),
            "arm" | "armv7" => Ok(Target::Arm),
            "wasm32" | "wasm" => Ok(Target::Wasm32),
            _ => Err(format!(
                "unknown target '{s}' (le32, x86-32, arm or wasm32)"
            )),
        }
    }
}

/// Names of the runtime functions translated code calls (documented in the README).
pub mod runtime {
    /// `i32 __pnacl_read_tp(void)`: the calling thread's thread pointer.
    pub const READ_TP: &str = "__pnacl_read_tp";
    /// `i32 __pnacl_setjmp(i8*)`, returns twice.
    pub const SETJMP: &str = "__pnacl_setjmp";
    /// `void __pnacl_longjmp(i8*, i32)`, does not return.
    pub const LONGJMP: &str = "__pnacl_longjmp";
    /// `void __pnacl_entry(i32 info)`: calls the pexe's `_start` with its real type.
    pub const ENTRY: &str = "__pnacl_entry";
    /// `i32 __pnacl_threads`: 0 while the pexe's code runs on one thread only, then 1 for
    /// good (its atomic operations take their plain path while it is 0:
    /// llvm::export::one_thread).
    pub const THREADS: &str = "__pnacl_threads";
}
