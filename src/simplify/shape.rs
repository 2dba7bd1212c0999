//! How a value of any LLVM type is held in the PNaCl subset: as one or more *leaves*, each
//! a value of a type a pexe has. A pointer is an i32; an integer of an odd width is held in
//! the next width a pexe has (8, 16, 32, 64), its upper bits undefined, as PNaCl's
//! PromoteIntegers held it; a wider integer is 64-bit chunks, least significant first
//! (ExpandLargeIntegers); a struct or array is its leaves in memory order
//! (ExpandStructRegs, for arrays too); a vector the ABI has stays a vector; any other
//! vector is its elements. Each leaf knows its byte offset in the type's memory layout, so
//! that loads and stores of any type are the leaves' own.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use crate::llvm::edit::{Layout, Type, TypeKind, Types, Value};

/// One leaf's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafKind<'a> {
    I1,
    /// An integer of `bits` (2..=64) held in `repr_bits(bits)`.
    Int(u32),
    F32,
    F64,
    /// A pointer, held as an i32.
    Ptr,
    /// A vector type the ABI has (kept as it is).
    Vector(Type<'a>),
}

/// The width a pexe holds an integer of `bits` in.
pub fn repr_bits(bits: u32) -> u32 {
    match bits {
        1 => 1,
        2..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

impl<'a> LeafKind<'a> {
    /// The leaf's type in the pexe.
    pub fn ty(self, tys: Types<'a>) -> Type<'a> {
        match self {
            LeafKind::I1 => tys.i1(),
            LeafKind::Int(b) => tys.int(repr_bits(b)),
            LeafKind::F32 => tys.f32(),
            LeafKind::F64 => tys.f64(),
            LeafKind::Ptr => tys.i32(),
            LeafKind::Vector(t) => t,
        }
    }

    /// Bytes the leaf takes in memory.
    pub fn mem_bytes(self) -> u64 {
        match self {
            LeafKind::I1 => 1,
            LeafKind::Int(b) => b.div_ceil(8) as u64,
            LeafKind::F32 | LeafKind::Ptr => 4,
            LeafKind::F64 => 8,
            LeafKind::Vector(_) => 16,
        }
    }
}

/// One leaf: its kind and its byte offset in the type's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaf<'a> {
    pub off: u64,
    pub kind: LeafKind<'a>,
}

/// How values of one type are held.
#[derive(Debug)]
pub struct Shape<'a> {
    pub leaves: Vec<Leaf<'a>>,
    /// The type has no byte layout of its leaves (a vector of i1, bit-packed in memory).
    pub bit_packed: bool,
    /// Bytes a store of the type writes.
    pub store_size: u64,
    pub alloc_size: u64,
    pub abi_align: u32,
}

pub use crate::llvm::import::is_abi_vector;

/// More leaves than this in one value is refused (a value that large is a copy of memory
/// the optimizer made into a value: none of clang's own).
const MAX_LEAVES: usize = 1 << 16;

/// The shapes of a module's types, computed once each.
pub struct Shapes<'a> {
    layout: Layout<'a>,
    cache: RefCell<HashMap<Type<'a>, Rc<Shape<'a>>>>,
}

impl<'a> Shapes<'a> {
    pub fn new(layout: Layout<'a>) -> Shapes<'a> {
        Shapes {
            layout,
            cache: RefCell::new(HashMap::new()),
        }
    }

    pub fn layout(&self) -> &Layout<'a> {
        &self.layout
    }

    /// The shape of `ty`, or why a pexe cannot hold its values.
    pub fn of(&self, ty: Type<'a>) -> Result<Rc<Shape<'a>>, String> {
        if let Some(s) = self.cache.borrow().get(&ty) {
            return Ok(s.clone());
        }
        let mut leaves = Vec::new();
        let mut bit_packed = false;
        if !ty.is_void() {
            self.collect(ty, 0, &mut leaves, &mut bit_packed)?;
        }
        let (store_size, alloc_size, abi_align) = if ty.is_void() {
            (0, 0, 1)
        } else {
            (
                self.layout.store_size(ty),
                self.layout.alloc_size(ty),
                self.layout.abi_align(ty),
            )
        };
        let s = Rc::new(Shape {
            leaves,
            bit_packed,
            store_size,
            alloc_size,
            abi_align,
        });
        self.cache.borrow_mut().insert(ty, s.clone());
        Ok(s)
    }

    fn collect(
        &self,
        ty: Type<'a>,
        off: u64,
        out: &mut Vec<Leaf<'a>>,
        bit_packed: &mut bool,
    ) -> Result<(), String> {
        if out.len() > MAX_LEAVES {
            return Err(format!(
                "a value of type {} is too large to hold in registers",
                ty.text()
            ));
        }
        let mut push = |kind| out.push(Leaf { off, kind });
        match ty.kind() {
            TypeKind::Int(1) => push(LeafKind::I1),
            TypeKind::Int(w) if w <= 64 => push(LeafKind::Int(w)),
            TypeKind::Int(w) => {
                for k in 0..w.div_ceil(64) {
                    let bits = (w - 64 * k).min(64);
                    out.push(Leaf {
                        off: off + 8 * k as u64,
                        kind: if bits == 1 {
                            LeafKind::I1
                        } else {
                            LeafKind::Int(bits)
                        },
                    });
                }
            }
            TypeKind::Float => push(LeafKind::F32),
            TypeKind::Double => push(LeafKind::F64),
            TypeKind::Pointer { addrspace: 0, .. } => push(LeafKind::Ptr),
            TypeKind::Pointer { addrspace, .. } => {
                return Err(format!("a pointer in address space {addrspace}"))
            }
            TypeKind::Vector(e, n) if is_abi_vector(e, n) => {
                // A vector of i1 is bits in memory, packed.
                if e.int_width() == Some(1) {
                    *bit_packed = true;
                }
                push(LeafKind::Vector(ty))
            }
            TypeKind::Vector(e, n) => {
                let esize = match e.kind() {
                    TypeKind::Int(w) if w % 8 != 0 => {
                        *bit_packed = true;
                        0
                    }
                    _ => self.layout.store_size(e),
                };
                for i in 0..n as u64 {
                    self.collect(e, off + i * esize, out, bit_packed)?;
                }
            }
            TypeKind::Array(e, n) => {
                let esize = self.layout.alloc_size(e);
                if n as usize > MAX_LEAVES {
                    return Err(format!(
                        "a value of type {} is too large to hold in registers",
                        ty.text()
                    ));
                }
                for i in 0..n {
                    self.collect(e, off + i * esize, out, bit_packed)?;
                }
            }
            TypeKind::Struct => {
                for (i, f) in ty.struct_fields().into_iter().enumerate() {
                    let o = self.layout.field_offset(ty, i as u32);
                    self.collect(f, off + o, out, bit_packed)?;
                }
            }
            TypeKind::OtherFloat => {
                return Err(format!("the floating-point type {}", ty.text()));
            }
            TypeKind::Void | TypeKind::Function | TypeKind::Other => {
                return Err(format!("a value of type {}", ty.text()));
            }
        }
        Ok(())
    }

    /// The range of leaves that aggregate index path `path` selects in `ty`, and the type
    /// it reaches.
    pub fn path_range(
        &self,
        ty: Type<'a>,
        path: &[u32],
    ) -> Result<(std::ops::Range<usize>, Type<'a>), String> {
        let mut start = 0;
        let mut cur = ty;
        for &i in path {
            match cur.kind() {
                TypeKind::Struct => {
                    let fields = cur.struct_fields();
                    let f = *fields
                        .get(i as usize)
                        .ok_or_else(|| format!("index {i} past the fields of {}", cur.text()))?;
                    for g in &fields[..i as usize] {
                        start += self.of(*g)?.leaves.len();
                    }
                    cur = f;
                }
                TypeKind::Array(e, n) => {
                    if i as u64 >= n {
                        return Err(format!("index {i} past the end of {}", cur.text()));
                    }
                    start += i as usize * self.of(e)?.leaves.len();
                    cur = e;
                }
                _ => return Err(format!("index {i} into {}", cur.text())),
            }
        }
        let n = self.of(cur)?.leaves.len();
        Ok((start..start + n, cur))
    }
}

/// A value of the old module, held in the new one: its leaves.
#[derive(Clone, Debug)]
pub enum Vals<'a> {
    One(Value<'a>),
    Many(Rc<[Value<'a>]>),
}

impl<'a> Vals<'a> {
    pub fn from_vec(mut v: Vec<Value<'a>>) -> Vals<'a> {
        if v.len() == 1 {
            Vals::One(v.pop().unwrap())
        } else {
            Vals::Many(v.into())
        }
    }

    pub fn as_slice(&self) -> &[Value<'a>] {
        match self {
            Vals::One(v) => std::slice::from_ref(v),
            Vals::Many(v) => v,
        }
    }

    /// The one leaf (for a value of one leaf).
    pub fn one(&self) -> Value<'a> {
        match self {
            Vals::One(v) => *v,
            Vals::Many(v) => {
                assert_eq!(v.len(), 1, "a value of {} leaves used as one", v.len());
                v[0]
            }
        }
    }
}
