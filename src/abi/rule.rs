//! The rules of the PNaCl ABI (spec/001), one name each: what both checkers (on the model,
//! `abi::check`, and on LLVM modules, `llvm::abicheck`) say a finding breaks. A rule is a
//! section of spec/001, or one rule of a section that holds several.

/// A rule of spec/001.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// "High Level Structure": a pexe is an LLVM IR module, in SSA form.
    WellFormed,
    DataModel,
    /// "Linkage Types": only external and internal.
    LinkageTypes,
    /// "Linkage Types": the external symbols are the entry point (`_start`, or a
    /// `__pnacl_pso_root` variable), exactly one; every other function is defined.
    EntryPoints,
    CallingConventions,
    VisibilityStyles,
    /// "Global Variables": flattened initializers.
    GlobalVariables,
    /// "Global Variables": defined (an initializer), with no section, address, thread-local
    /// or externally-initialized attribute, at most 2^29 aligned.
    GlobalAttributes,
    /// "Functions": parameter and return types (i32, i64, float, double, vectors).
    FunctionTypes,
    /// "Functions": no attributes, no garbage collector, no alignment.
    FunctionAttributes,
    Aliases,
    NamedMetadata,
    InlineAssembly,
    /// "Volatile Memory Accesses" and the "Memory Model": no volatile or atomic load and
    /// store instructions (the atomic intrinsics instead).
    VolatileAndAtomicAccess,
    FastMathFlags,
    /// "Type System": the types a value may have.
    TypeSystem,
    /// "Pointer types": address space 0, normalized pointers.
    PointerTypes,
    /// "Metadata Nodes and Metadata Strings": no metadata attachments.
    Metadata,
    /// "List of allowed instructions": the opcodes, without `nuw`/`nsw`/`exact` flags.
    Instructions,
    /// "List of allowed instructions": integer arithmetic and comparisons on i8..i64 and
    /// their vectors, never on i1.
    IntegerArithmetic,
    /// "Instruction Reference": operands are values of allowed types, not constant
    /// expressions.
    Operands,
    /// `alloca`: of i8, with an i32 size.
    Alloca,
    /// `bitcast`, `inttoptr`, `ptrtoint`: their operand and result types.
    PointerCasts,
    /// `load`, `store`: through a normalized pointer.
    LoadStorePointer,
    /// `load`, `store`: the alignment of the type.
    LoadStoreAlignment,
    /// `load`, `store`: never of i1 or i1 vectors.
    LoadStoreI1,
    /// `insertelement`, `extractelement`: a constant index within the vector.
    VectorIndex,
    /// `switch`: on an integer of an allowed width, with constant cases.
    Switch,
    /// "List of allowed intrinsics".
    Intrinsics,
    /// "Intrinsic Functions": an intrinsic is only called, its address is not taken.
    IntrinsicAddress,
    /// `llvm.memcpy`, `llvm.memmove`, `llvm.memset`: alignment 1.
    MemIntrinsicAlignment,
    /// "Atomic intrinsics": the memory orderings.
    AtomicMemoryOrder,
    /// "Atomic intrinsics": the read-modify-write operations.
    AtomicRmwOperation,
    /// "Atomic intrinsics": `is.lock.free`'s byte sizes.
    AtomicLockFreeSize,
}

impl Rule {
    /// Every rule.
    pub const ALL: [Rule; 34] = [
        Rule::WellFormed,
        Rule::DataModel,
        Rule::LinkageTypes,
        Rule::EntryPoints,
        Rule::CallingConventions,
        Rule::VisibilityStyles,
        Rule::GlobalVariables,
        Rule::GlobalAttributes,
        Rule::FunctionTypes,
        Rule::FunctionAttributes,
        Rule::Aliases,
        Rule::NamedMetadata,
        Rule::InlineAssembly,
        Rule::VolatileAndAtomicAccess,
        Rule::FastMathFlags,
        Rule::TypeSystem,
        Rule::PointerTypes,
        Rule::Metadata,
        Rule::Instructions,
        Rule::IntegerArithmetic,
        Rule::Operands,
        Rule::Alloca,
        Rule::PointerCasts,
        Rule::LoadStorePointer,
        Rule::LoadStoreAlignment,
        Rule::LoadStoreI1,
        Rule::VectorIndex,
        Rule::Switch,
        Rule::Intrinsics,
        Rule::IntrinsicAddress,
        Rule::MemIntrinsicAlignment,
        Rule::AtomicMemoryOrder,
        Rule::AtomicRmwOperation,
        Rule::AtomicLockFreeSize,
    ];

    /// The rule as the tools print it (`[spec/001: …]`, JSON's `"rule"`).
    pub fn name(self) -> &'static str {
        use Rule::*;
        match self {
            WellFormed => {
                "High Level Structure: a pexe is an LLVM IR module, in SSA form (spec/004 Well-Formedness)"
            }
            DataModel => "Data Model",
            LinkageTypes => "Linkage Types",
            EntryPoints => "Linkage Types: external symbols and the entry point",
            CallingConventions => "Calling Conventions",
            VisibilityStyles => "Visibility Styles",
            GlobalVariables => "Global Variables",
            GlobalAttributes => "Global Variables: definitions, no attributes",
            FunctionTypes => "Functions: parameter and return types",
            FunctionAttributes => "Functions: attributes",
            Aliases => "Aliases",
            NamedMetadata => "Named Metadata",
            InlineAssembly => "Module-Level Inline Assembly",
            VolatileAndAtomicAccess => "Volatile Memory Accesses, Memory Model for Concurrent Operations",
            FastMathFlags => "Fast-Math Flags",
            TypeSystem => "Type System",
            PointerTypes => "Pointer types",
            Metadata => "Metadata Nodes and Metadata Strings",
            Instructions => "List of allowed instructions",
            IntegerArithmetic => "List of allowed instructions: integer arithmetic types",
            Operands => "Instruction Reference: operands",
            Alloca => "alloca",
            PointerCasts => "bitcast, inttoptr, ptrtoint",
            LoadStorePointer => "load, store: normalized pointer",
            LoadStoreAlignment => "load, store: alignment",
            LoadStoreI1 => "load, store: loads and stores of i1 are not supported",
            VectorIndex => "insertelement, extractelement: constant index",
            Switch => "switch",
            Intrinsics => "List of allowed intrinsics",
            IntrinsicAddress => "Intrinsic Functions: the address of an intrinsic cannot be taken",
            MemIntrinsicAlignment => "llvm.memcpy, llvm.memmove, llvm.memset: alignment",
            AtomicMemoryOrder => "Atomic intrinsics: memory orderings",
            AtomicRmwOperation => "Atomic intrinsics: read-modify-write operations",
            AtomicLockFreeSize => "Atomic intrinsics: lock-free byte sizes",
        }
    }

    /// Whether a pexe can break the rule at all: the others are about what only an LLVM
    /// module holds (attributes, metadata, pointer types, linkages, …), which the pexe
    /// format has no room for, or what its reader holds every pexe to (a load or store is
    /// through an i32 address).
    pub fn in_pexe(self) -> bool {
        use Rule::*;
        !matches!(
            self,
            DataModel
                | LoadStorePointer
                | GlobalAttributes
                | LinkageTypes
                | CallingConventions
                | VisibilityStyles
                | FunctionAttributes
                | Aliases
                | NamedMetadata
                | InlineAssembly
                | VolatileAndAtomicAccess
                | FastMathFlags
                | TypeSystem
                | PointerTypes
                | Metadata
                | Instructions
                | Operands
                | PointerCasts
        )
    }
}

display_as_name!(Rule);
