//! Rust element types that arrays hold, a dynamically typed scalar, and
//! NumPy's value conversions between them.

use std::fmt::Debug;

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

use crate::core::dtype::{DType, WeakKind};
use crate::core::storage::CpuData;

/// A single value of any dtype, used for fill values, `item()` and casts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Complex(Complex64),
}

impl Scalar {
    /// The kind this scalar has as a weak (NEP 50) operand.
    pub fn weak_kind(self) -> WeakKind {
        match self {
            Scalar::Bool(_) => WeakKind::Bool,
            Scalar::Int(_) | Scalar::UInt(_) => WeakKind::Int,
            Scalar::Float(_) => WeakKind::Float,
            Scalar::Complex(_) => WeakKind::Complex,
        }
    }

    /// The value as f64 (real part for complex, 0/1 for bool).
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::UInt(u) => u as f64,
            Scalar::Float(f) => f,
            Scalar::Complex(c) => c.re,
        }
    }

    /// The value as a complex number.
    pub fn as_c64(self) -> Complex64 {
        match self {
            Scalar::Complex(c) => c,
            other => Complex64::new(other.as_f64(), 0.0),
        }
    }

    /// The value as i64 (NumPy's unsafe cast: floats truncate, saturating in Rust).
    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::UInt(u) => u as i64,
            Scalar::Float(f) => f as i64,
            Scalar::Complex(c) => c.re as i64,
        }
    }

    /// The value as u64 (NumPy's unsafe cast: negative integers wrap).
    pub fn as_u64(self) -> u64 {
        match self {
            Scalar::Bool(b) => b as u64,
            Scalar::Int(i) => i as u64,
            Scalar::UInt(u) => u,
            Scalar::Float(f) => {
                if f < 0.0 {
                    (f as i64) as u64
                } else {
                    f as u64
                }
            }
            Scalar::Complex(c) => Scalar::Float(c.re).as_u64(),
        }
    }

    /// The value's truth (non-zero; NaN is true as in NumPy).
    pub fn as_bool(self) -> bool {
        match self {
            Scalar::Bool(b) => b,
            Scalar::Int(i) => i != 0,
            Scalar::UInt(u) => u != 0,
            Scalar::Float(f) => f != 0.0,
            Scalar::Complex(c) => c.re != 0.0 || c.im != 0.0,
        }
    }

    /// Whether the value is exactly representable in `dtype` (for integers:
    /// in range; for floats: finite values within range or any non-finite).
    pub fn fits(self, dtype: DType) -> bool {
        let Some((lo, hi)) = dtype.int_bounds() else {
            return true;
        };
        let v: i128 = match self {
            Scalar::Int(i) => i as i128,
            Scalar::UInt(u) => u as i128,
            Scalar::Bool(b) => b as i128,
            _ => return true,
        };
        lo <= v && v <= hi
    }

    /// The dtype a scalar of this value has when standing alone.
    pub fn default_dtype(self) -> DType {
        self.weak_kind().default_dtype()
    }
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Bool(b) => write!(f, "{}", if *b { "True" } else { "False" }),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::UInt(u) => write!(f, "{u}"),
            Scalar::Float(x) => write!(f, "{x}"),
            Scalar::Complex(c) => write!(f, "({}{:+}j)", c.re, c.im),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that can be an array element. Implemented for `bool`, the
/// integer types, `half::f16`, `half::bf16`, `f32`, `f64`,
/// `num_complex::Complex32` and `Complex64`.
pub trait Element:
    Copy + Send + Sync + PartialEq + Debug + Default + sealed::Sealed + 'static
{
    /// The dtype that holds this type.
    const DTYPE: DType;
    /// This value as a dynamically typed scalar.
    fn to_scalar(self) -> Scalar;
    /// A scalar converted with NumPy's unsafe-cast semantics (floats to
    /// integers truncate toward zero, integers wrap, complex drops the
    /// imaginary part, anything to bool is "non-zero").
    fn from_scalar(s: Scalar) -> Self;
    /// Wraps a vector as CPU storage.
    fn into_data(v: Vec<Self>) -> CpuData;
    /// The storage's elements when it holds this type.
    fn slice(d: &CpuData) -> Option<&[Self]>;
    /// The storage's elements, mutably, when it holds this type.
    fn slice_mut(d: &mut CpuData) -> Option<&mut [Self]>;
}

macro_rules! element_common {
    ($t:tt, $variant:ident) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = DType::$variant;
            #[inline]
            fn to_scalar(self) -> Scalar {
                to_scalar_impl!($t, self)
            }
            #[inline]
            fn from_scalar(s: Scalar) -> Self {
                from_scalar_impl!($t, s)
            }
            fn into_data(v: Vec<Self>) -> CpuData {
                CpuData::$variant(v)
            }
            fn slice(d: &CpuData) -> Option<&[Self]> {
                match d {
                    CpuData::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn slice_mut(d: &mut CpuData) -> Option<&mut [Self]> {
                match d {
                    CpuData::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

macro_rules! to_scalar_impl {
    (bool, $x:expr) => {
        Scalar::Bool($x)
    };
    (i8, $x:expr) => {
        Scalar::Int($x as i64)
    };
    (i16, $x:expr) => {
        Scalar::Int($x as i64)
    };
    (i32, $x:expr) => {
        Scalar::Int($x as i64)
    };
    (i64, $x:expr) => {
        Scalar::Int($x)
    };
    (u8, $x:expr) => {
        Scalar::UInt($x as u64)
    };
    (u16, $x:expr) => {
        Scalar::UInt($x as u64)
    };
    (u32, $x:expr) => {
        Scalar::UInt($x as u64)
    };
    (u64, $x:expr) => {
        Scalar::UInt($x)
    };
    (f16, $x:expr) => {
        Scalar::Float($x.to_f64())
    };
    (bf16, $x:expr) => {
        Scalar::Float($x.to_f64())
    };
    (f32, $x:expr) => {
        Scalar::Float($x as f64)
    };
    (f64, $x:expr) => {
        Scalar::Float($x)
    };
    (Complex32, $x:expr) => {
        Scalar::Complex(Complex64::new($x.re as f64, $x.im as f64))
    };
    (Complex64, $x:expr) => {
        Scalar::Complex($x)
    };
}

macro_rules! from_scalar_impl {
    (bool, $s:expr) => {
        $s.as_bool()
    };
    (i8, $s:expr) => {
        $s.as_i64() as i8
    };
    (i16, $s:expr) => {
        $s.as_i64() as i16
    };
    (i32, $s:expr) => {
        $s.as_i64() as i32
    };
    (i64, $s:expr) => {
        $s.as_i64()
    };
    (u8, $s:expr) => {
        $s.as_u64() as u8
    };
    (u16, $s:expr) => {
        $s.as_u64() as u16
    };
    (u32, $s:expr) => {
        $s.as_u64() as u32
    };
    (u64, $s:expr) => {
        $s.as_u64()
    };
    (f16, $s:expr) => {
        f16::from_f64($s.as_f64())
    };
    (bf16, $s:expr) => {
        bf16::from_f64($s.as_f64())
    };
    (f32, $s:expr) => {
        match $s {
            // Direct conversion avoids double rounding through f64.
            Scalar::Int(i) => i as f32,
            Scalar::UInt(u) => u as f32,
            other => other.as_f64() as f32,
        }
    };
    (f64, $s:expr) => {
        $s.as_f64()
    };
    (Complex32, $s:expr) => {{
        let c = $s.as_c64();
        Complex32::new(c.re as f32, c.im as f32)
    }};
    (Complex64, $s:expr) => {
        $s.as_c64()
    };
}

element_common!(bool, Bool);
element_common!(i8, Int8);
element_common!(i16, Int16);
element_common!(i32, Int32);
element_common!(i64, Int64);
element_common!(u8, UInt8);
element_common!(u16, UInt16);
element_common!(u32, UInt32);
element_common!(u64, UInt64);
element_common!(f16, Float16);
element_common!(bf16, BFloat16);
element_common!(f32, Float32);
element_common!(f64, Float64);
element_common!(Complex32, Complex64);
element_common!(Complex64, Complex128);

/// Runs `$body` with the type alias `$T` bound to the Rust element type of
/// `$dtype`, for every dtype.
#[macro_export]
#[doc(hidden)]
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {{
        use $crate::dtype::DType as __D;
        match $dtype {
            __D::Bool => {
                type $T = bool;
                $body
            }
            __D::Int8 => {
                type $T = i8;
                $body
            }
            __D::Int16 => {
                type $T = i16;
                $body
            }
            __D::Int32 => {
                type $T = i32;
                $body
            }
            __D::Int64 => {
                type $T = i64;
                $body
            }
            __D::UInt8 => {
                type $T = u8;
                $body
            }
            __D::UInt16 => {
                type $T = u16;
                $body
            }
            __D::UInt32 => {
                type $T = u32;
                $body
            }
            __D::UInt64 => {
                type $T = u64;
                $body
            }
            __D::Float16 => {
                type $T = $crate::half::f16;
                $body
            }
            __D::BFloat16 => {
                type $T = $crate::half::bf16;
                $body
            }
            __D::Float32 => {
                type $T = f32;
                $body
            }
            __D::Float64 => {
                type $T = f64;
                $body
            }
            __D::Complex64 => {
                type $T = $crate::num_complex::Complex32;
                $body
            }
            __D::Complex128 => {
                type $T = $crate::num_complex::Complex64;
                $body
            }
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values: np.array([...]).astype(...) in NumPy 2.x.
    #[test]
    fn casts_follow_numpy() {
        assert_eq!(i8::from_scalar(Scalar::Int(300)), 44); // wraps
        assert_eq!(i32::from_scalar(Scalar::Float(-2.7)), -2); // truncates
        assert_eq!(u8::from_scalar(Scalar::Int(-1)), 255);
        assert!(bool::from_scalar(Scalar::Float(f64::NAN)));
        assert!(!bool::from_scalar(Scalar::Complex(Complex64::new(
            0.0, 0.0
        ))));
        assert_eq!(
            f64::from_scalar(Scalar::Complex(Complex64::new(1.5, 2.0))),
            1.5
        );
        assert_eq!(
            f16::from_scalar(Scalar::Float(1.0 / 3.0)).to_f32(),
            0.33325195
        );
        assert_eq!(i64::from_scalar(Scalar::Bool(true)), 1);
        assert_eq!(u64::from_scalar(Scalar::Float(-1.0)), u64::MAX);
    }

    #[test]
    fn fits_checks_integer_ranges() {
        assert!(Scalar::Int(127).fits(DType::Int8));
        assert!(!Scalar::Int(128).fits(DType::Int8));
        assert!(!Scalar::Int(-1).fits(DType::UInt64));
        assert!(Scalar::UInt(u64::MAX).fits(DType::UInt64));
        assert!(!Scalar::UInt(u64::MAX).fits(DType::Int64));
    }
}
