//! The intrinsics a pexe may call (spec/001 "List of allowed intrinsics"; abicheck.md §6.1),
//! with their exact LLVM 3.3 signatures. Pointer parameters are `Ptr`; in a pexe they are i32.

use std::sync::OnceLock;

use crate::ir::{FnType, ValueType};

/// A parameter or return type of an intrinsic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PTy {
    V(ValueType),
    /// A pointer (`i8*`, `iN*`), an i32 in a pexe.
    Ptr,
}

impl PTy {
    /// The type in a pexe (pointers are i32).
    pub fn pexe(self) -> ValueType {
        match self {
            PTy::V(v) => v,
            PTy::Ptr => ValueType::I32,
        }
    }
}

/// What an intrinsic is, for lowering and checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bswap,
    Ctlz,
    Cttz,
    Ctpop,
    Sqrt,
    Fabs,
    ReadTp,
    Setjmp,
    Longjmp,
    AtomicLoad,
    AtomicStore,
    AtomicRmw,
    AtomicCmpxchg,
    AtomicFence,
    AtomicFenceAll,
    AtomicIsLockFree,
    StackSave,
    StackRestore,
    Trap,
    Memcpy,
    Memmove,
    Memset,
}

/// One allowed intrinsic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intrinsic {
    pub name: String,
    pub kind: Kind,
    pub ret: PTy,
    pub params: Vec<PTy>,
    /// Whether the 2014 pnacl-abicheck (abicheck.md §6.1) allowed it; `llvm.fabs` is in
    /// spec/001 (since pepper_42) but not in that snapshot.
    pub in_2014_checker: bool,
}

impl Intrinsic {
    /// The signature as it appears in a pexe (pointers as i32).
    pub fn pexe_type(&self) -> FnType {
        FnType {
            ret: self.ret.pexe(),
            params: self.params.iter().map(|p| p.pexe()).collect(),
            vararg: false,
        }
    }

    /// Positions of memory-order arguments (atomics).
    pub fn memory_order_args(&self) -> &'static [usize] {
        match self.kind {
            Kind::AtomicLoad => &[1],
            Kind::AtomicFence => &[0],
            Kind::AtomicStore => &[2],
            Kind::AtomicRmw => &[3],
            Kind::AtomicCmpxchg => &[3, 4],
            _ => &[],
        }
    }
}

use Kind as K;

/// The table: each intrinsic's name, kind, signature (`ret (params)` in the names of
/// `ValueType`, `p` a pointer, `T` the family's type where the name has `{}`), and whether
/// the 2014 checker allowed it.
#[rustfmt::skip]
const SIGNATURES: &[(&str, Kind, &str, bool)] = &[
    ("llvm.bswap.{}", K::Bswap, "T (T)", true),
    ("llvm.ctlz.{}", K::Ctlz, "T (T, i1)", true),
    ("llvm.cttz.{}", K::Cttz, "T (T, i1)", true),
    ("llvm.ctpop.{}", K::Ctpop, "T (T)", true),
    ("llvm.sqrt.{}", K::Sqrt, "T (T)", true),
    ("llvm.fabs.{}", K::Fabs, "T (T)", false),
    ("llvm.nacl.read.tp", K::ReadTp, "p ()", true),
    ("llvm.nacl.longjmp", K::Longjmp, "void (p, i32)", true),
    ("llvm.nacl.setjmp", K::Setjmp, "i32 (p)", true),
    ("llvm.nacl.atomic.load.{}", K::AtomicLoad, "T (p, i32)", true),
    ("llvm.nacl.atomic.store.{}", K::AtomicStore, "void (T, p, i32)", true),
    ("llvm.nacl.atomic.rmw.{}", K::AtomicRmw, "T (i32, p, T, i32)", true),
    ("llvm.nacl.atomic.cmpxchg.{}", K::AtomicCmpxchg, "T (p, T, T, i32, i32)", true),
    ("llvm.nacl.atomic.fence", K::AtomicFence, "void (i32)", true),
    ("llvm.nacl.atomic.fence.all", K::AtomicFenceAll, "void ()", true),
    ("llvm.nacl.atomic.is.lock.free", K::AtomicIsLockFree, "i1 (i32, p)", true),
    ("llvm.stacksave", K::StackSave, "p ()", true),
    ("llvm.stackrestore", K::StackRestore, "void (p)", true),
    ("llvm.trap", K::Trap, "void ()", true),
    ("llvm.memcpy.p0i8.p0i8.i32", K::Memcpy, "void (p, p, i32, i32, i1)", true),
    ("llvm.memmove.p0i8.p0i8.i32", K::Memmove, "void (p, p, i32, i32, i1)", true),
    ("llvm.memset.p0i8.i32", K::Memset, "void (p, i8, i32, i32, i1)", true),
];

/// The types each family (a name with `{}`) comes in, by the name's suffix.
fn family(kind: Kind) -> &'static [(&'static str, ValueType)] {
    use ValueType as T;
    const INTS: &[(&str, ValueType)] = &[
        ("i8", T::I8),
        ("i16", T::I16),
        ("i32", T::I32),
        ("i64", T::I64),
    ];
    match kind {
        Kind::Bswap => &INTS[1..],
        Kind::Ctlz | Kind::Cttz | Kind::Ctpop => &INTS[2..],
        Kind::Sqrt => &[("f32", T::Float), ("f64", T::Double)],
        Kind::Fabs => &[("f32", T::Float), ("f64", T::Double), ("v4f32", T::V4Float)],
        _ => INTS,
    }
}

fn build() -> Vec<Intrinsic> {
    let mut v = Vec::new();
    for &(name, kind, sig, in_2014_checker) in SIGNATURES {
        let types: &[(&str, ValueType)] = if name.contains("{}") {
            family(kind)
        } else {
            &[("", ValueType::Void)]
        };
        for &(suffix, t) in types {
            let ty = |s: &str| match s.trim() {
                "p" => PTy::Ptr,
                "T" => PTy::V(t),
                s => PTy::V(*ValueType::ALL.iter().find(|v| v.name() == s).unwrap()),
            };
            let (ret, params) = sig.split_once(" (").unwrap();
            let params = params.trim_end_matches(')');
            v.push(Intrinsic {
                name: name.replace("{}", suffix),
                kind,
                ret: ty(ret),
                params: params
                    .split(',')
                    .filter(|p| !p.trim().is_empty())
                    .map(ty)
                    .collect(),
                in_2014_checker,
            });
        }
    }
    v
}

/// All allowed intrinsics.
pub fn all() -> &'static [Intrinsic] {
    static TABLE: OnceLock<Vec<Intrinsic>> = OnceLock::new();
    TABLE.get_or_init(build)
}

/// The allowed intrinsic called `name`, if any.
pub fn lookup(name: &[u8]) -> Option<&'static Intrinsic> {
    if !name.starts_with(b"llvm.") {
        return None;
    }
    all().iter().find(|i| i.name.as_bytes() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_the_39_entries_of_2014_plus_fabs() {
        assert_eq!(all().iter().filter(|i| i.in_2014_checker).count(), 39);
        assert_eq!(all().len(), 42);
        let m = lookup(b"llvm.memset.p0i8.i32").unwrap();
        assert_eq!(m.pexe_type().to_string(), "void (i32, i8, i32, i32, i1)");
        assert_eq!(
            lookup(b"llvm.nacl.atomic.rmw.i8")
                .unwrap()
                .memory_order_args(),
            &[3]
        );
        assert_eq!(
            lookup(b"llvm.nacl.atomic.load.i8")
                .unwrap()
                .memory_order_args(),
            &[1]
        );
        assert_eq!(
            lookup(b"llvm.nacl.atomic.fence")
                .unwrap()
                .memory_order_args(),
            &[0]
        );
        assert!(lookup(b"llvm.bswap.i8").is_none());
    }
}
