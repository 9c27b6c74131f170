//! Data types, NumPy's promotion rules and casting rules.
//!
//! Rust scalars passed to operations are *weak* in the sense of NEP 50: they
//! take part in type resolution by kind only, so `&x_f32 * 2.0` stays
//! float32 and `&x_i8 + 1` stays int8.

use std::fmt;

use crate::core::error::{Error, Result};

/// The element type of an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    BFloat16,
    Float32,
    Float64,
    Complex64,
    Complex128,
}

/// The kind of a dtype, ordered as NumPy orders kinds for `same_kind` casts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Bool,
    UInt,
    Int,
    Float,
    Complex,
}

/// How permissive a cast may be, as NumPy's `casting=` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Casting {
    /// Only casts that keep every value (`int32` to `float64`, not `float64` to `float32`).
    Safe,
    /// Safe casts plus casts within a kind or to a higher kind (`float64` to `float32`).
    SameKind,
    /// Any cast.
    Unsafe,
}

impl Casting {
    /// The name NumPy uses for this rule.
    pub fn name(self) -> &'static str {
        match self {
            Casting::Safe => "safe",
            Casting::SameKind => "same_kind",
            Casting::Unsafe => "unsafe",
        }
    }
}

impl DType {
    /// The smallest and largest values of an integer dtype, as i128 (None
    /// for bool, float and complex dtypes).
    pub fn int_bounds(self) -> Option<(i128, i128)> {
        Some(match self {
            DType::Int8 => (i8::MIN as i128, i8::MAX as i128),
            DType::Int16 => (i16::MIN as i128, i16::MAX as i128),
            DType::Int32 => (i32::MIN as i128, i32::MAX as i128),
            DType::Int64 => (i64::MIN as i128, i64::MAX as i128),
            DType::UInt8 => (0, u8::MAX as i128),
            DType::UInt16 => (0, u16::MAX as i128),
            DType::UInt32 => (0, u32::MAX as i128),
            DType::UInt64 => (0, u64::MAX as i128),
            _ => return None,
        })
    }

    /// Every dtype, in a fixed order.
    pub const ALL: [DType; 15] = [
        DType::Bool,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::UInt16,
        DType::UInt32,
        DType::UInt64,
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ];

    /// NumPy's name for the dtype (`"float32"`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::UInt8 => "uint8",
            DType::UInt16 => "uint16",
            DType::UInt32 => "uint32",
            DType::UInt64 => "uint64",
            DType::Float16 => "float16",
            DType::BFloat16 => "bfloat16",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
        }
    }

    /// Parses NumPy names, NumPy type codes and Rust names (`"float32"`, `"f4"`,
    /// `"f32"`). `"i8"` and `"u8"` are the Rust 8-bit types, not NumPy's 64-bit codes.
    pub fn from_name(name: &str) -> Result<DType> {
        let dt = match name {
            "bool" | "bool_" | "?" => DType::Bool,
            "int8" | "i1" | "i8" => DType::Int8,
            "int16" | "i2" | "i16" => DType::Int16,
            "int32" | "i4" | "i32" => DType::Int32,
            "int64" | "i64" | "int" => DType::Int64,
            "uint8" | "u1" | "u8" => DType::UInt8,
            "uint16" | "u2" | "u16" => DType::UInt16,
            "uint32" | "u4" | "u32" => DType::UInt32,
            "uint64" | "u64" => DType::UInt64,
            "float16" | "f2" | "f16" | "half" => DType::Float16,
            "bfloat16" | "bf16" => DType::BFloat16,
            "float32" | "f4" | "f32" | "single" => DType::Float32,
            "float64" | "f8" | "f64" | "double" | "float" => DType::Float64,
            "complex64" | "c8" | "c64" => DType::Complex64,
            "complex128" | "c16" | "c128" | "complex" => DType::Complex128,
            _ => {
                return Err(Error::DType {
                    op: "DType::from_name",
                    detail: format!(
                        "unknown dtype name {name:?}; valid names: {}",
                        DType::ALL.map(|d| d.name()).join(", ")
                    ),
                })
            }
        };
        Ok(dt)
    }

    /// Bytes per element.
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool | DType::Int8 | DType::UInt8 => 1,
            DType::Int16 | DType::UInt16 | DType::Float16 | DType::BFloat16 => 2,
            DType::Int32 | DType::UInt32 | DType::Float32 => 4,
            DType::Int64 | DType::UInt64 | DType::Float64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
        }
    }

    /// The dtype's kind.
    pub fn kind(self) -> Kind {
        match self {
            DType::Bool => Kind::Bool,
            DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => Kind::Int,
            DType::UInt8 | DType::UInt16 | DType::UInt32 | DType::UInt64 => Kind::UInt,
            DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => Kind::Float,
            DType::Complex64 | DType::Complex128 => Kind::Complex,
        }
    }

    /// True for bool.
    pub fn is_bool(self) -> bool {
        self == DType::Bool
    }
    /// True for signed and unsigned integers (not bool).
    pub fn is_integer(self) -> bool {
        matches!(self.kind(), Kind::Int | Kind::UInt)
    }
    /// True for signed integers.
    pub fn is_signed_integer(self) -> bool {
        self.kind() == Kind::Int
    }
    /// True for unsigned integers.
    pub fn is_unsigned_integer(self) -> bool {
        self.kind() == Kind::UInt
    }
    /// True for real floating point types.
    pub fn is_float(self) -> bool {
        self.kind() == Kind::Float
    }
    /// True for complex types.
    pub fn is_complex(self) -> bool {
        self.kind() == Kind::Complex
    }
    /// True for floating point and complex types (the inexact types).
    pub fn is_inexact(self) -> bool {
        matches!(self.kind(), Kind::Float | Kind::Complex)
    }

    /// The real type of a complex type (`complex64` → `float32`); other types unchanged.
    pub fn real_dtype(self) -> DType {
        match self {
            DType::Complex64 => DType::Float32,
            DType::Complex128 => DType::Float64,
            other => other,
        }
    }

    /// The complex type that holds this real type (`float32` → `complex64`).
    pub fn complex_dtype(self) -> DType {
        match self {
            DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Complex64 => {
                DType::Complex64
            }
            _ => DType::Complex128,
        }
    }

    /// The dtype arithmetic on `self` computes in: float32 for the half
    /// floats (float16, bfloat16), which compute in f32 and round once per
    /// operation, on every backend; every other dtype computes in itself.
    /// This is the one place that rule is written.
    pub fn compute_dtype(self) -> DType {
        match self {
            DType::Float16 | DType::BFloat16 => DType::Float32,
            other => other,
        }
    }

    /// The smallest inexact type that represents every value of `self`, as
    /// NumPy picks the result of `sqrt` or true division for integer input.
    pub fn to_inexact(self) -> DType {
        match self {
            DType::Bool | DType::Int8 | DType::UInt8 => DType::Float16,
            DType::Int16 | DType::UInt16 => DType::Float32,
            DType::Int32 | DType::UInt32 | DType::Int64 | DType::UInt64 => DType::Float64,
            other => other,
        }
    }

    /// Bits of an integer type.
    fn int_bits(self) -> u32 {
        (self.itemsize() * 8) as u32
    }

    fn signed_of_bits(bits: u32) -> Option<DType> {
        match bits {
            8 => Some(DType::Int8),
            16 => Some(DType::Int16),
            32 => Some(DType::Int32),
            64 => Some(DType::Int64),
            _ => None,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        DType::from_name(s)
    }
}

/// The common type of two dtypes under NumPy's promotion rules
/// (`np.promote_types`). `bfloat16` follows `ml_dtypes`: it combines with
/// `float16` to `float32` and with 8-bit integers to `bfloat16`.
pub fn promote_types(a: DType, b: DType) -> DType {
    use Kind::*;
    if a == b {
        return a;
    }
    let (ka, kb) = (a.kind(), b.kind());
    // Order the pair so that `lo` has the lower kind.
    let (lo, hi) = if ka <= kb { (a, b) } else { (b, a) };
    match (lo.kind(), hi.kind()) {
        (Bool, _) => hi,
        (UInt, UInt) | (Int, Int) => {
            if lo.itemsize() >= hi.itemsize() {
                lo
            } else {
                hi
            }
        }
        (UInt, Int) => {
            if hi.int_bits() > lo.int_bits() {
                hi
            } else {
                DType::signed_of_bits(lo.int_bits() * 2).unwrap_or(DType::Float64)
            }
        }
        (UInt | Int, Float) => {
            if hi == DType::BFloat16 && lo.itemsize() == 1 {
                DType::BFloat16
            } else {
                promote_types(lo.to_inexact(), hi)
            }
        }
        (UInt | Int, Complex) => promote_types(lo.to_inexact(), hi),
        (Float, Float) => {
            if lo.itemsize() == hi.itemsize() {
                // float16 with bfloat16: neither holds the other.
                DType::Float32
            } else if lo.itemsize() > hi.itemsize() {
                lo
            } else {
                hi
            }
        }
        (Float, Complex) => promote_types(lo, hi.real_dtype()).complex_dtype(),
        (Complex, Complex) => {
            if lo.itemsize() >= hi.itemsize() {
                lo
            } else {
                hi
            }
        }
        _ => unreachable!("pair ordered by kind"),
    }
}

/// Whether a value of dtype `from` may be cast to `to` under `casting`
/// (`np.can_cast`).
pub fn can_cast(from: DType, to: DType, casting: Casting) -> bool {
    match casting {
        Casting::Unsafe => true,
        Casting::Safe => promote_types(from, to) == to,
        Casting::SameKind => promote_types(from, to) == to || from.kind() <= to.kind(),
    }
}

/// The kind of a weak (Rust literal) scalar, in the sense of NEP 50.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WeakKind {
    Bool,
    Int,
    Float,
    Complex,
}

impl WeakKind {
    /// The dtype a weak scalar of this kind takes when no array fixes one.
    pub fn default_dtype(self) -> DType {
        match self {
            WeakKind::Bool => DType::Bool,
            WeakKind::Int => DType::Int64,
            WeakKind::Float => DType::Float64,
            WeakKind::Complex => DType::Complex128,
        }
    }
}

/// One participant of type resolution: an array's dtype (strong) or a Rust scalar (weak).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeOperand {
    Strong(DType),
    Weak(WeakKind),
}

impl From<DType> for TypeOperand {
    fn from(d: DType) -> Self {
        TypeOperand::Strong(d)
    }
}

impl From<WeakKind> for TypeOperand {
    fn from(k: WeakKind) -> Self {
        TypeOperand::Weak(k)
    }
}

/// The result dtype of combining the operands (`np.result_type` with NEP 50
/// weak scalars). Fails only when given no operands.
pub fn result_type(operands: &[TypeOperand]) -> Result<DType> {
    let strong = operands
        .iter()
        .filter_map(|o| match o {
            TypeOperand::Strong(d) => Some(*d),
            TypeOperand::Weak(_) => None,
        })
        .reduce(promote_types);
    let weak = operands
        .iter()
        .filter_map(|o| match o {
            TypeOperand::Weak(k) => Some(*k),
            TypeOperand::Strong(_) => None,
        })
        .max();
    match (strong, weak) {
        (None, None) => Err(Error::InvalidArgument {
            op: "result_type",
            detail: "at least one array or dtype is needed".into(),
        }),
        (Some(s), None) => Ok(s),
        (None, Some(w)) => Ok(w.default_dtype()),
        (Some(s), Some(w)) => Ok(combine_weak(s, w)),
    }
}

/// A strong dtype combined with a weak scalar kind.
fn combine_weak(strong: DType, weak: WeakKind) -> DType {
    match (strong.kind(), weak) {
        (_, WeakKind::Bool) => strong,
        (Kind::Bool, WeakKind::Int) => DType::Int64,
        (Kind::Bool | Kind::Int | Kind::UInt, WeakKind::Float) => DType::Float64,
        (Kind::Bool | Kind::Int | Kind::UInt, WeakKind::Complex) => DType::Complex128,
        (Kind::Float, WeakKind::Complex) => strong.complex_dtype(),
        _ => strong,
    }
}

/// Short dtype names, used as `cp::f32`, `cp::float32`, `cp::int64`.
#[allow(non_upper_case_globals)]
pub mod names {
    use crate::DType;
    pub const bool_: DType = DType::Bool;
    pub const int8: DType = DType::Int8;
    pub const int16: DType = DType::Int16;
    pub const int32: DType = DType::Int32;
    pub const int64: DType = DType::Int64;
    pub const uint8: DType = DType::UInt8;
    pub const uint16: DType = DType::UInt16;
    pub const uint32: DType = DType::UInt32;
    pub const uint64: DType = DType::UInt64;
    pub const float16: DType = DType::Float16;
    pub const bfloat16: DType = DType::BFloat16;
    pub const float32: DType = DType::Float32;
    pub const float64: DType = DType::Float64;
    pub const complex64: DType = DType::Complex64;
    pub const complex128: DType = DType::Complex128;
    pub const i8: DType = DType::Int8;
    pub const i16: DType = DType::Int16;
    pub const i32: DType = DType::Int32;
    pub const i64: DType = DType::Int64;
    pub const u8: DType = DType::UInt8;
    pub const u16: DType = DType::UInt16;
    pub const u32: DType = DType::UInt32;
    pub const u64: DType = DType::UInt64;
    pub const f16: DType = DType::Float16;
    pub const bf16: DType = DType::BFloat16;
    pub const f32: DType = DType::Float32;
    pub const f64: DType = DType::Float64;
    pub const c64: DType = DType::Complex64;
    pub const c128: DType = DType::Complex128;
}

#[cfg(test)]
mod tests {
    use super::DType::*;
    use super::*;

    // Expected values from NumPy 2.x: np.promote_types(a, b).
    #[test]
    fn promotion_matches_numpy_table() {
        let cases = [
            (Bool, Int8, Int8),
            (Int8, UInt8, Int16),
            (Int16, UInt16, Int32),
            (Int32, UInt32, Int64),
            (Int64, UInt64, Float64),
            (UInt8, Int32, Int32),
            (UInt32, Int8, Int64),
            (Int8, Float16, Float16),
            (UInt8, Float16, Float16),
            (Int16, Float16, Float32),
            (Int32, Float16, Float64),
            (Int32, Float32, Float64),
            (Int16, Float32, Float32),
            (Int64, Float32, Float64),
            (UInt64, Float64, Float64),
            (Float16, Float32, Float32),
            (Float32, Float64, Float64),
            (Float32, Complex64, Complex64),
            (Float64, Complex64, Complex128),
            (Int16, Complex64, Complex64),
            (Int32, Complex64, Complex128),
            (Complex64, Complex128, Complex128),
            (Float16, BFloat16, Float32),
            (Int8, BFloat16, BFloat16),
            (Bool, Bool, Bool),
        ];
        for (a, b, want) in cases {
            assert_eq!(promote_types(a, b), want, "{a} + {b}");
            assert_eq!(promote_types(b, a), want, "{b} + {a}");
        }
    }

    // Expected values from np.can_cast(from, to, casting).
    #[test]
    fn can_cast_matches_numpy() {
        assert!(can_cast(Int32, Float64, Casting::Safe));
        assert!(can_cast(Int64, Float64, Casting::Safe));
        assert!(!can_cast(Float64, Float32, Casting::Safe));
        assert!(can_cast(Float64, Float32, Casting::SameKind));
        assert!(!can_cast(Float64, Int64, Casting::SameKind));
        assert!(can_cast(Float64, Int64, Casting::Unsafe));
        assert!(can_cast(UInt64, Int8, Casting::SameKind));
        assert!(!can_cast(Int8, UInt8, Casting::SameKind));
        assert!(!can_cast(Int8, UInt64, Casting::Safe));
        assert!(can_cast(UInt8, Int16, Casting::Safe));
        assert!(can_cast(Bool, Int8, Casting::Safe));
        assert!(!can_cast(Complex64, Float64, Casting::SameKind));
        assert!(can_cast(Float32, Complex64, Casting::Safe));
    }

    // NEP 50 examples: np.result_type(np.int8, 1) == int8, with 1.0 float64, ...
    #[test]
    fn weak_scalars_follow_nep50() {
        let s = |d| TypeOperand::Strong(d);
        let w = |k| TypeOperand::Weak(k);
        assert_eq!(result_type(&[s(Int8), w(WeakKind::Int)]).unwrap(), Int8);
        assert_eq!(result_type(&[s(UInt8), w(WeakKind::Int)]).unwrap(), UInt8);
        assert_eq!(
            result_type(&[s(Int8), w(WeakKind::Float)]).unwrap(),
            Float64
        );
        assert_eq!(
            result_type(&[s(Float32), w(WeakKind::Float)]).unwrap(),
            Float32
        );
        assert_eq!(
            result_type(&[s(Float16), w(WeakKind::Complex)]).unwrap(),
            Complex64
        );
        assert_eq!(
            result_type(&[s(Float64), w(WeakKind::Complex)]).unwrap(),
            Complex128
        );
        assert_eq!(result_type(&[s(Bool), w(WeakKind::Int)]).unwrap(), Int64);
        assert_eq!(result_type(&[w(WeakKind::Float)]).unwrap(), Float64);
        assert!(result_type(&[]).is_err());
    }

    #[test]
    fn names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_name(d.name()).unwrap(), d);
        }
        assert!(DType::from_name("float128").is_err());
    }
}
