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

fn build() -> Vec<Intrinsic> {
    use PTy::*;
    use ValueType as T;
    let mut v = Vec::new();
    let mut add = |name: String, kind: Kind, ret: PTy, params: Vec<PTy>, in_2014: bool| {
        v.push(Intrinsic {
            name,
            kind,
            ret,
            params,
            in_2014_checker: in_2014,
        })
    };
    for (s, t) in [("i16", T::I16), ("i32", T::I32), ("i64", T::I64)] {
        add(
            format!("llvm.bswap.{s}"),
            Kind::Bswap,
            V(t),
            vec![V(t)],
            true,
        );
    }
    for (s, t) in [("i32", T::I32), ("i64", T::I64)] {
        add(
            format!("llvm.ctlz.{s}"),
            Kind::Ctlz,
            V(t),
            vec![V(t), V(T::I1)],
            true,
        );
        add(
            format!("llvm.cttz.{s}"),
            Kind::Cttz,
            V(t),
            vec![V(t), V(T::I1)],
            true,
        );
        add(
            format!("llvm.ctpop.{s}"),
            Kind::Ctpop,
            V(t),
            vec![V(t)],
            true,
        );
    }
    for (s, t) in [("f32", T::Float), ("f64", T::Double)] {
        add(format!("llvm.sqrt.{s}"), Kind::Sqrt, V(t), vec![V(t)], true);
    }
    for (s, t) in [("f32", T::Float), ("f64", T::Double), ("v4f32", T::V4Float)] {
        add(
            format!("llvm.fabs.{s}"),
            Kind::Fabs,
            V(t),
            vec![V(t)],
            false,
        );
    }
    add("llvm.nacl.read.tp".into(), Kind::ReadTp, Ptr, vec![], true);
    add(
        "llvm.nacl.longjmp".into(),
        Kind::Longjmp,
        V(T::Void),
        vec![Ptr, V(T::I32)],
        true,
    );
    add(
        "llvm.nacl.setjmp".into(),
        Kind::Setjmp,
        V(T::I32),
        vec![Ptr],
        true,
    );
    for (s, t) in [
        ("i8", T::I8),
        ("i16", T::I16),
        ("i32", T::I32),
        ("i64", T::I64),
    ] {
        add(
            format!("llvm.nacl.atomic.load.{s}"),
            Kind::AtomicLoad,
            V(t),
            vec![Ptr, V(T::I32)],
            true,
        );
        add(
            format!("llvm.nacl.atomic.store.{s}"),
            Kind::AtomicStore,
            V(T::Void),
            vec![V(t), Ptr, V(T::I32)],
            true,
        );
        add(
            format!("llvm.nacl.atomic.rmw.{s}"),
            Kind::AtomicRmw,
            V(t),
            vec![V(T::I32), Ptr, V(t), V(T::I32)],
            true,
        );
        add(
            format!("llvm.nacl.atomic.cmpxchg.{s}"),
            Kind::AtomicCmpxchg,
            V(t),
            vec![Ptr, V(t), V(t), V(T::I32), V(T::I32)],
            true,
        );
    }
    add(
        "llvm.nacl.atomic.fence".into(),
        Kind::AtomicFence,
        V(T::Void),
        vec![V(T::I32)],
        true,
    );
    add(
        "llvm.nacl.atomic.fence.all".into(),
        Kind::AtomicFenceAll,
        V(T::Void),
        vec![],
        true,
    );
    add(
        "llvm.nacl.atomic.is.lock.free".into(),
        Kind::AtomicIsLockFree,
        V(T::I1),
        vec![V(T::I32), Ptr],
        true,
    );
    add("llvm.stacksave".into(), Kind::StackSave, Ptr, vec![], true);
    add(
        "llvm.stackrestore".into(),
        Kind::StackRestore,
        V(T::Void),
        vec![Ptr],
        true,
    );
    add("llvm.trap".into(), Kind::Trap, V(T::Void), vec![], true);
    let mem = vec![Ptr, Ptr, V(T::I32), V(T::I32), V(T::I1)];
    add(
        "llvm.memcpy.p0i8.p0i8.i32".into(),
        Kind::Memcpy,
        V(T::Void),
        mem.clone(),
        true,
    );
    add(
        "llvm.memmove.p0i8.p0i8.i32".into(),
        Kind::Memmove,
        V(T::Void),
        mem,
        true,
    );
    add(
        "llvm.memset.p0i8.i32".into(),
        Kind::Memset,
        V(T::Void),
        vec![Ptr, V(T::I8), V(T::I32), V(T::I32), V(T::I1)],
        true,
    );
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
