//! PNaCl types. Every type a value can have is one of a fixed, small set (spec/000 "Types
//! Block": i1 i8 i16 i32 i64 float double, and the vectors <4 x i1> <8 x i1> <16 x i1>
//! <16 x i8> <8 x i16> <4 x i32> <4 x float>), so a value's type is a one-byte `ValueType`.
//! Function types live in the module's type table.

use std::fmt;

/// Index into `Module::types`.
pub type TypeId = u32;

/// The type of a value (or `Void`, the type of no value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum ValueType {
    Void,
    I1,
    I8,
    I16,
    I32,
    I64,
    Float,
    Double,
    V4I1,
    V8I1,
    V16I1,
    V16I8,
    V8I16,
    V4I32,
    V4Float,
}

impl ValueType {
    pub const ALL: [ValueType; 15] = [
        ValueType::Void,
        ValueType::I1,
        ValueType::I8,
        ValueType::I16,
        ValueType::I32,
        ValueType::I64,
        ValueType::Float,
        ValueType::Double,
        ValueType::V4I1,
        ValueType::V8I1,
        ValueType::V16I1,
        ValueType::V16I8,
        ValueType::V8I16,
        ValueType::V4I32,
        ValueType::V4Float,
    ];

    /// The integer type of `width` bits, if PNaCl has one.
    pub fn int(width: u64) -> Option<ValueType> {
        Some(match width {
            1 => ValueType::I1,
            8 => ValueType::I8,
            16 => ValueType::I16,
            32 => ValueType::I32,
            64 => ValueType::I64,
            _ => return None,
        })
    }

    /// The vector `<count x elem>`, if PNaCl allows it.
    pub fn vector(count: u64, elem: ValueType) -> Option<ValueType> {
        Some(match (count, elem) {
            (4, ValueType::I1) => ValueType::V4I1,
            (8, ValueType::I1) => ValueType::V8I1,
            (16, ValueType::I1) => ValueType::V16I1,
            (16, ValueType::I8) => ValueType::V16I8,
            (8, ValueType::I16) => ValueType::V8I16,
            (4, ValueType::I32) => ValueType::V4I32,
            (4, ValueType::Float) => ValueType::V4Float,
            _ => return None,
        })
    }

    /// The i1 vector with as many elements as `self` (for compare results), or i1.
    pub fn bool_of(self) -> ValueType {
        match self.count() {
            0 => ValueType::I1,
            n => ValueType::vector(n as u64, ValueType::I1).unwrap(),
        }
    }

    pub fn is_void(self) -> bool {
        self == ValueType::Void
    }

    pub fn is_vector(self) -> bool {
        self >= ValueType::V4I1
    }

    /// The element type of a vector, or the type itself.
    pub fn elem(self) -> ValueType {
        match self {
            ValueType::V4I1 | ValueType::V8I1 | ValueType::V16I1 => ValueType::I1,
            ValueType::V16I8 => ValueType::I8,
            ValueType::V8I16 => ValueType::I16,
            ValueType::V4I32 => ValueType::I32,
            ValueType::V4Float => ValueType::Float,
            t => t,
        }
    }

    /// Number of vector elements; 0 for scalars (spec/000 "UnderlyingCount").
    pub fn count(self) -> u32 {
        match self {
            ValueType::V4I1 | ValueType::V4I32 | ValueType::V4Float => 4,
            ValueType::V8I1 | ValueType::V8I16 => 8,
            ValueType::V16I1 | ValueType::V16I8 => 16,
            _ => 0,
        }
    }

    /// IsInteger(self): a scalar integer type.
    pub fn is_int(self) -> bool {
        matches!(
            self,
            ValueType::I1 | ValueType::I8 | ValueType::I16 | ValueType::I32 | ValueType::I64
        )
    }

    /// IsFloat(self): float or double.
    pub fn is_float(self) -> bool {
        matches!(self, ValueType::Float | ValueType::Double)
    }

    /// IsFcnArgType: primitive or vector, and integers only i32/i64.
    pub fn is_fcn_arg(self) -> bool {
        matches!(self, ValueType::I32 | ValueType::I64) || self.is_float() || self.is_vector()
    }

    /// Bit width of an integer or float scalar, or of the whole vector (BitSizeOf). (A
    /// table, in `ALL`'s order, which inlines where a recursive match did not: the reader
    /// asks it of every integer constant.)
    #[inline]
    pub fn bits(self) -> u32 {
        const BITS: [u32; ValueType::ALL.len()] =
            [0, 1, 8, 16, 32, 64, 32, 64, 4, 8, 16, 128, 128, 128, 128];
        BITS[self as usize]
    }

    /// Size in bytes of a load/store of this type.
    pub fn store_size(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// The alignments spec/001 allows for a load or store of this type (abicheck.md §4.5):
    /// none for void and the i1 types, which cannot be loaded or stored.
    pub fn load_store_alignments(self) -> &'static [u64] {
        match self {
            ValueType::I8 | ValueType::I16 | ValueType::I32 | ValueType::I64 => &[1],
            ValueType::Float => &[1, 4],
            ValueType::Double => &[1, 8],
            ValueType::V16I8 => &[1],
            ValueType::V8I16 => &[2],
            ValueType::V4I32 | ValueType::V4Float => &[4],
            _ => &[],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ValueType::Void => "void",
            ValueType::I1 => "i1",
            ValueType::I8 => "i8",
            ValueType::I16 => "i16",
            ValueType::I32 => "i32",
            ValueType::I64 => "i64",
            ValueType::Float => "float",
            ValueType::Double => "double",
            ValueType::V4I1 => "<4 x i1>",
            ValueType::V8I1 => "<8 x i1>",
            ValueType::V16I1 => "<16 x i1>",
            ValueType::V16I8 => "<16 x i8>",
            ValueType::V8I16 => "<8 x i16>",
            ValueType::V4I32 => "<4 x i32>",
            ValueType::V4Float => "<4 x float>",
        }
    }
}

display_as_name!(ValueType);

/// A function signature.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FnType {
    pub ret: ValueType,
    pub params: Vec<ValueType>,
    /// Takes more arguments than `params` (`...`): a pexe may say so (Google's reader
    /// took the flag; the ABI forbids it), though pnacl-freeze never writes it.
    pub vararg: bool,
}

impl fmt::Display for FnType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (", self.ret)?;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        match (self.vararg, self.params.is_empty()) {
            (true, true) => f.write_str("...")?,
            (true, false) => f.write_str(", ...")?,
            _ => {}
        }
        f.write_str(")")
    }
}

/// An entry of the type table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    Value(ValueType),
    Function(FnType),
}

impl Type {
    pub fn as_value(&self) -> Option<ValueType> {
        match self {
            Type::Value(v) => Some(*v),
            Type::Function(_) => None,
        }
    }

    pub fn as_fn(&self) -> Option<&FnType> {
        match self {
            Type::Function(f) => Some(f),
            Type::Value(_) => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Value(v) => write!(f, "{v}"),
            Type::Function(t) => write!(f, "{t}"),
        }
    }
}

/// An alignment as encoded in pexes: 0 means "none", k means 2^(k-1) bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Align(pub u8);

impl Align {
    /// Largest encodable alignment exponent + 1 (LLVM's limit is 2^29 bytes).
    pub const MAX_ENCODED: u64 = 30;

    pub fn from_bytes(b: u64) -> Option<Align> {
        if b == 0 {
            Some(Align(0))
        } else if b.is_power_of_two() && b.trailing_zeros() < Self::MAX_ENCODED as u32 {
            Some(Align(b.trailing_zeros() as u8 + 1))
        } else {
            None
        }
    }

    /// Alignment in bytes (0 when none).
    pub fn bytes(self) -> u64 {
        (1u64 << self.0) >> 1
    }
}

#[cfg(test)]
mod tests {
    use super::ValueType;

    /// `bits`' table is BitSizeOf: a scalar's width by its name, a vector's its element's
    /// times its count.
    #[test]
    fn bits_is_bit_size_of() {
        for t in ValueType::ALL {
            let want = match t {
                ValueType::Void => 0,
                ValueType::I1 => 1,
                ValueType::I8 => 8,
                ValueType::I16 => 16,
                ValueType::I32 | ValueType::Float => 32,
                ValueType::I64 | ValueType::Double => 64,
                v => {
                    assert!(v.is_vector() && !v.elem().is_vector());
                    v.count() * v.elem().bits()
                }
            };
            assert_eq!(t.bits(), want, "{t:?}");
        }
    }
}
