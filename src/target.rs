//! The targets: what each one is, defined once. Every part of the code asks this table:
//! the LLVM bridge (triple, data layout, CPU and features), the translator (the runtime's
//! units and the flags they are compiled with, the objects it links), pnacl-run (which
//! programs it runs, and how). Adding a target is a row here, a lowering in
//! `llvm::export` and a runtime backend in `runtime/`; nothing falls back to another
//! target's row.

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
    /// 64-bit x86 Linux (`x86_64-unknown-linux-gnu`), the pexe isolated in its region
    /// (`Memory::Region`).
    X86_64,
    /// 64-bit ARM Linux (`aarch64-unknown-linux-gnu`), the pexe isolated in its region.
    Aarch64,
}

/// Where a target's code finds the pexe's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Memory {
    /// The pexe's addresses are the process's (32-bit processes, and WebAssembly's own
    /// linear memory).
    Flat,
    /// The pexe's 4 GiB are one reserved region of a 64-bit process, at address 0: every
    /// access is to the zero-extended 32-bit address, so no address the pexe can form
    /// leaves the region (a guard region lies above it, the kernel's half below); its
    /// globals are an image copied in, its stack a region of its own in there, and a
    /// function's address is its index in a table of the pexe's functions, checked on
    /// every indirect call as `CallCheck` says.
    Region(CallCheck),
}

impl Memory {
    pub fn is_region(self) -> bool {
        matches!(self, Memory::Region(_))
    }
}

/// How a region target's indirect call fails when the table's entry at its index is no
/// function of the call's signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallCheck {
    /// The entry's signature compared with the call's, a branch to the function's trap.
    Branch,
    /// No compare and no branch: the runtime's copy of the table packs each entry into one
    /// word, the function's address (below 2^47) with its signature id + 1 in the top 16
    /// bits, and a call xors its own (id + 1) << 48 into the word it reads: the function's
    /// address if the signatures are the same, else a non-canonical address, which the
    /// processor refuses to call (x86-64's general-protection fault), and the runtime
    /// reports it. A module with more signatures than 16 bits number
    /// (`llvm::export::region::PACKED_SIGNATURES`) is checked with `Branch`.
    NonCanonical,
}

/// How a program translated for a target runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// It is no program (the neutral module).
    Nothing,
    /// Natively: an ELF executable whose runtime installs the sandbox itself.
    Native,
    /// Under qemu-user (this tool, from `tools`), the sandbox applied to qemu from outside
    /// (pnacl-run).
    Qemu(&'static str),
    /// As WebAssembly, under node (a `.mjs` launcher) or in a page.
    Wasm,
}

/// One row of the table.
pub struct Spec {
    pub target: Target,
    /// Its name on command lines (`--arch`, `--target`), then the other names taken.
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub triple: &'static str,
    /// The data layout: PNaCl's for le32 (writer.md §7.3), LLVM 14's for the others.
    pub data_layout: &'static str,
    /// The CPU and features code is generated for (runtime.md §4.8).
    pub cpu: &'static str,
    pub features: &'static str,
    /// The runtime's units (below `runtime/`), and the clang flags that compile them for
    /// this target (C the tests link with the runtime uses them too). None: no runtime.
    pub runtime: Option<Runtime>,
    /// The ELF class (1: 32-bit) and machine of its objects and programs, if ELF.
    pub elf: Option<(u8, u16)>,
    pub runs: Runner,
    pub memory: Memory,
    /// Where its programs are linked: None, the linker's default; or a high address,
    /// outside the pexe's region (its runtime's code and data must lie above 8 GiB), for
    /// which the code is position-independent.
    pub link_base: Option<u64>,
    /// Whether the processor keeps stores in order for every other thread (x86's total
    /// store order): an atomic store of release order or weaker is then the plain store,
    /// the same instruction whatever the number of threads.
    pub ordered_stores: bool,
    /// LLVM's options for its code generation, beside those of every target
    /// (`llvm::codegen`). LLVM holds its options per process, set before the first target
    /// machine: a process that generates code for several targets keeps the first one's
    /// (which change how the code is made, not what it does).
    pub llvm_options: &'static [&'static std::ffi::CStr],
}

/// Where a region target's programs are linked: far above the pexe's region and its guard,
/// below where Linux puts the stack.
const HIGH: Option<u64> = Some(0x7e00_0000_0000);

/// A target's runtime: the units and the clang flags they are compiled with.
pub struct Runtime {
    pub units: &'static [&'static str],
    pub clang_flags: &'static [&'static str],
}

/// The table, in `Target`'s order.
const TABLE: [Spec; 6] = [
    Spec {
        target: Target::Le32,
        name: "le32",
        aliases: &[],
        triple: "le32-unknown-nacl",
        data_layout: "e-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-p:32:32:32-v128:32:32",
        cpu: "",
        features: "",
        runtime: None,
        elf: None,
        runs: Runner::Nothing,
        memory: Memory::Flat,
        link_base: None,
        ordered_stores: false,
        llvm_options: &[],
    },
    Spec {
        target: Target::X86_32,
        name: "x86-32",
        aliases: &["x86_32", "i686", "x86"],
        triple: "i686-unknown-linux-gnu",
        data_layout: "e-m:e-p:32:32-p270:32:32-p271:32:32-p272:64:64-f64:32:64-f80:32-n8:16:32-S128",
        // Generic i686 with SSE2: what `llc -mattr=+sse2` compiles for, and markedly
        // faster to schedule for than pentium4's model. With the multi-byte no-op
        // (`nopl`, which every processor with SSE2 has): without it a loop's alignment
        // padding is up to 15 one-byte nops, which the code before the loop runs
        // through each time it falls into it (fasta's innermost loop, per random number).
        cpu: "generic",
        features: "+sse2,+nopl",
        runtime: Some(Runtime {
            units: &["irt.c", "sandbox.c", "builtins.c", "arch_i386.S"],
            clang_flags: &["--target=i686-linux-gnu", "-march=pentium4", "-msse2"],
        }),
        elf: Some((1, 3)),
        runs: Runner::Native,
        memory: Memory::Flat,
        link_base: None,
        ordered_stores: true,
        llvm_options: &[],
    },
    Spec {
        target: Target::Arm,
        name: "arm",
        aliases: &["armv7"],
        triple: "armv7-unknown-linux-gnueabihf",
        data_layout: "e-m:e-p:32:32-Fi8-i64:64-v128:64:128-a:0:32-n32-S64",
        cpu: "cortex-a9",
        features: "+neon,+vfp3,-thumb-mode",
        runtime: Some(Runtime {
            units: &["irt.c", "sandbox.c", "builtins.c", "arch_arm.S"],
            clang_flags: &[
                "--target=armv7-linux-gnueabihf",
                "-marm",
                "-mfloat-abi=hard",
                "-mfpu=neon",
                "-mcpu=cortex-a9",
            ],
        }),
        elf: Some((1, 40)),
        runs: Runner::Qemu(crate::tools::QEMU_ARM),
        memory: Memory::Flat,
        link_base: None,
        ordered_stores: false,
        llvm_options: &[],
    },
    Spec {
        target: Target::Wasm32,
        name: "wasm32",
        aliases: &["wasm"],
        triple: "wasm32-unknown-wasi",
        data_layout: "e-m:e-p:32:32-i64:64-n32:64-S128",
        // Shared memory for threads, SIMD for the pexe's vectors, exception handling
        // for setjmp/longjmp. Not nontrapping-fptoint: an out-of-range float-to-int
        // conversion gives what x86 gives, not saturation. Not bulk memory: a copy or
        // fill of unknown length calls the runtime's memcpy or memset, which make
        // memory another thread has just grown safe to copy into (arch_wasm32.S).
        cpu: "generic",
        features: "+atomics,+mutable-globals,+sign-ext,+simd128,+exception-handling",
        runtime: Some(Runtime {
            units: &["wasi.c", "builtins.c", "arch_wasm32.S"],
            // The features and the setjmp/longjmp lowering of the pexe's code (above,
            // and llvm::codegen). Not bulk memory: copies and fills go through
            // arch_wasm32.S's memcpy and memset, which alone use it (see there why); so
            // no thread-local data either (clang keeps it only with bulk memory): what
            // is a thread's own is in WebAssembly globals (arch_wasm32.S).
            clang_flags: &[
                "--target=wasm32",
                "-matomics",
                "-mexception-handling",
                "-mllvm",
                "-wasm-enable-sjlj",
            ],
        }),
        elf: None,
        runs: Runner::Wasm,
        memory: Memory::Flat,
        link_base: None,
        ordered_stores: false,
        llvm_options: &[],
    },
    Spec {
        target: Target::X86_64,
        name: "x86-64",
        aliases: &["x86_64", "amd64"],
        triple: "x86_64-unknown-linux-gnu",
        data_layout: "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128",
        cpu: "x86-64",
        features: "+sse2,+cx16",
        runtime: Some(Runtime {
            units: &["irt.c", "sandbox.c", "builtins.c", "arch_x86_64.S"],
            clang_flags: &["--target=x86_64-linux-gnu"],
        }),
        elf: Some((2, 62)),
        runs: Runner::Native,
        memory: Memory::Region(CallCheck::NonCanonical),
        link_base: HIGH,
        ordered_stores: true,
        // Two of code generation's passes that cost x86-64's translation 7% of its
        // instructions and give its code nothing (x86-32 keeps both):
        // - the machine scheduler before register allocation, which orders a block's
        //   instructions to keep registers' pressure low: with 15 registers it changes
        //   nothing of what spills (stockfish's program: 12,691 accesses to the native
        //   stack with it, 12,732 without; the benchmarks' within one), and an
        //   out-of-order processor orders the rest itself, as GCC leaves it to on x86
        //   (x86-32, with 7 registers, makes 2.5% more stack accesses without it);
        // - loop strength reduction, which turns a loop's address arithmetic into
        //   pointers stepping on, where it proves the step does not wrap: a region's
        //   addresses are 32-bit sums zero-extended, which it rarely can. Without it
        //   stockfish's search executes 0.6% fewer instructions and its start 5% fewer,
        //   fasta 0.8% fewer, nbody 0.7% more (one `imul` in a loop of five), the other
        //   benchmarks the same (qemu's counts).
        llvm_options: &[c"-enable-misched=false", c"-disable-lsr"],
    },
    Spec {
        target: Target::Aarch64,
        name: "aarch64",
        aliases: &["arm64"],
        triple: "aarch64-unknown-linux-gnu",
        data_layout: "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128",
        cpu: "generic",
        features: "+neon",
        runtime: Some(Runtime {
            units: &["irt.c", "sandbox.c", "builtins.c", "arch_aarch64.S"],
            // Atomics inline, not as calls of libgcc's helpers.
            clang_flags: &["--target=aarch64-linux-gnu", "-mno-outline-atomics"],
        }),
        elf: Some((2, 183)),
        runs: Runner::Qemu(crate::tools::QEMU_AARCH64),
        // (AArch64 ignores an address's top byte, which would leave only 8 bits for the
        // signatures' difference.)
        memory: Memory::Region(CallCheck::Branch),
        link_base: HIGH,
        ordered_stores: false,
        llvm_options: &[],
    },
];

impl Target {
    pub const ALL: [Target; 6] = [
        Target::Le32,
        Target::X86_32,
        Target::Arm,
        Target::Wasm32,
        Target::X86_64,
        Target::Aarch64,
    ];

    /// Its row of the table.
    pub fn spec(self) -> &'static Spec {
        &TABLE[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn triple(self) -> &'static str {
        self.spec().triple
    }

    pub fn data_layout(self) -> &'static str {
        self.spec().data_layout
    }

    /// CPU and features llc / the target machine should use.
    pub fn cpu_features(self) -> (&'static str, &'static str) {
        (self.spec().cpu, self.spec().features)
    }

    /// Whether code is generated for it (every target but the neutral le32).
    pub fn generates_code(self) -> bool {
        self.spec().runs != Runner::Nothing
    }

    /// The native target of the machine the tools run on: x86-64 and AArch64 on 64-bit
    /// hosts (the pexe isolated in its region, and what runs where 32-bit code cannot),
    /// 32-bit ARM and x86-32 on the others.
    pub fn host() -> Target {
        if cfg!(target_arch = "x86_64") {
            Target::X86_64
        } else if cfg!(target_arch = "aarch64") {
            Target::Aarch64
        } else if cfg!(target_arch = "arm") {
            Target::Arm
        } else {
            Target::X86_32
        }
    }

    /// Whether its programs can be made and run: it has a runtime.
    pub fn runs(self) -> bool {
        self.spec().runtime.is_some()
    }

    /// The target whose programs are ELF files of this class and machine.
    pub fn of_elf(class: u8, machine: u16) -> Option<Target> {
        Target::ALL
            .into_iter()
            .find(|t| t.spec().elf == Some((class, machine)))
    }
}

display_as_name!(Target);

/// The names of `targets` as a list in prose: `a, b or c`.
pub fn listed(targets: impl IntoIterator<Item = Target>) -> String {
    let names: Vec<&str> = targets.into_iter().map(Target::name).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

impl FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Target, String> {
        Target::ALL
            .into_iter()
            .find(|t| t.spec().name == s || t.spec().aliases.contains(&s))
            .ok_or_else(|| format!("unknown target '{s}' ({})", listed(Target::ALL)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_the_enums_order_and_names_each_target_once() {
        let mut names = std::collections::HashSet::new();
        for t in Target::ALL {
            assert_eq!(t.spec().target, t, "row {} is another target's", t as usize);
            for n in std::iter::once(t.name()).chain(t.spec().aliases.iter().copied()) {
                assert!(names.insert(n), "{n} names two targets");
                assert_eq!(n.parse::<Target>(), Ok(t));
            }
            // A target with a runtime generates code, and one that is ELF runs natively
            // or under qemu.
            assert!(!t.runs() || t.generates_code(), "{t}");
            if t.spec().elf.is_some() {
                assert!(
                    matches!(t.spec().runs, Runner::Native | Runner::Qemu(_)),
                    "{t}"
                );
                assert_eq!(
                    Target::of_elf(t.spec().elf.unwrap().0, t.spec().elf.unwrap().1),
                    Some(t)
                );
            }
        }
        assert_eq!(
            "x".parse::<Target>(),
            Err("unknown target 'x' (le32, x86-32, arm, wasm32, x86-64 or aarch64)".into())
        );
    }
}
