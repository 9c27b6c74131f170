//! Elementwise functions (NumPy's ufuncs): arithmetic, comparisons, logic,
//! bit operations and the usual math functions, with NumPy's broadcasting
//! and NumPy 2 (NEP 50) type resolution.
//!
//! Every function takes its inputs as operands ([`IntoOperand`]): `&Array`,
//! `Array`, or a Rust number, bool or complex. Rust scalars are *weak*: they
//! take the dtype of the arrays they meet, so `add(&x_i8, 1)` is int8,
//! `multiply(&x_f32, 2.0)` is float32 and `add(&x_i8, 1.5)` is float64. A
//! Rust integer that does not fit that dtype is an error (`add(&x_u8, 300)`),
//! except in comparisons, where it compares as its true value, as in NumPy 2.
//!
//! Results follow NumPy:
//! - integer arithmetic wraps; integer division and remainder by zero give 0
//!   (NumPy's value; NumPy also warns);
//! - `divide` of integers gives float64; math functions of integers give the
//!   smallest float that holds them (int8 → float16, int16 → float32, int32
//!   and int64 → float64: [`DType::to_inexact`]);
//! - float16 and bfloat16 compute in f32 and round back once per operation;
//! - bool `add` is logical or, `multiply` logical and; `subtract`,
//!   `negative`, `positive` and `sign` of bools are errors;
//! - `floor_divide` and `remainder` round toward negative infinity (Python's
//!   sign rule), for integers and floats.
//!
//! Each function `name` has a `name_out` form that writes into an existing
//! array (a view works, and `out` may be one of the inputs). The inputs
//! broadcast to `out`'s shape, and the result is cast into `out`'s dtype
//! under the `same_kind` rule (int8 into float32 is allowed, float64 into
//! int64 is not), as NumPy's `out=` argument.
//!
//! ```
//! use cuprite as cp;
//! let x = cp::asarray(vec![1i8, 2, 100])?;
//! let y = cp::add(&x, 100)?; // int8: wraps like NumPy
//! assert_eq!(y.to_vec::<i8>()?, vec![101, 102, -56]);
//! assert_eq!(cp::divide(&x, 2)?.dtype(), cp::float64);
//! assert_eq!(cp::sqrt(&x)?.dtype(), cp::float16);
//! let mut out = cp::zeros([2, 3], cp::f32)?; // the input broadcasts to (2, 3)
//! cp::multiply_out(&x, 0.5, &mut out)?;
//! assert_eq!(out.to_vec::<f32>()?, vec![0.5, 1.0, 50.0, 0.5, 1.0, 50.0]);
//! assert!(cp::add(&x, 300).is_err()); // 300 does not fit int8
//! # Ok::<(), cp::Error>(())
//! ```

use half::{bf16, f16};
use num_complex::Complex;
use num_traits::{Float, FloatConst};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{can_cast, result_type, Casting, DType, TypeOperand};
use crate::element::{Element, Scalar};
use crate::error::{fmt_shape, Error, Result};
use crate::layout::{broadcast_shapes, Layout};
use crate::operand::{common_device, IntoOperand, Operand};
use crate::storage::Storage;

// ---------------------------------------------------------------------------
// Dispatch over groups of dtypes
// ---------------------------------------------------------------------------

/// Binds `$T` to the element type of `$dt`, for the listed dtypes only. Type
/// resolution rejects every other dtype before a loop is chosen.
macro_rules! dispatch {
    ($dt:expr, $T:ident => $body:expr, [$($v:ident : $t:ty),* $(,)?]) => {
        match $dt {
            $($crate::dtype::DType::$v => {
                type $T = $t;
                $body
            })*
            #[allow(unreachable_patterns)]
            other => unreachable!("no {other} loop: type resolution admits only supported dtypes"),
        }
    };
}

macro_rules! ints {
    ($dt:expr, $T:ident => $body:expr) => {
        dispatch!($dt, $T => $body, [Int8: i8, Int16: i16, Int32: i32, Int64: i64,
            UInt8: u8, UInt16: u16, UInt32: u32, UInt64: u64])
    };
}
macro_rules! bits {
    ($dt:expr, $T:ident => $body:expr) => {
        dispatch!($dt, $T => $body, [Bool: bool, Int8: i8, Int16: i16, Int32: i32, Int64: i64,
            UInt8: u8, UInt16: u16, UInt32: u32, UInt64: u64])
    };
}
macro_rules! floats {
    ($dt:expr, $T:ident => $body:expr) => {
        dispatch!($dt, $T => $body, [Float16: half::f16, BFloat16: half::bf16,
            Float32: f32, Float64: f64])
    };
}
macro_rules! inexact {
    ($dt:expr, $T:ident => $body:expr) => {
        dispatch!($dt, $T => $body, [Float16: half::f16, BFloat16: half::bf16,
            Float32: f32, Float64: f64, Complex64: num_complex::Complex32,
            Complex128: num_complex::Complex64])
    };
}
macro_rules! reals {
    ($dt:expr, $T:ident => $body:expr) => {
        dispatch!($dt, $T => $body, [Int8: i8, Int16: i16, Int32: i32, Int64: i64,
            UInt8: u8, UInt16: u16, UInt32: u32, UInt64: u64, Float16: half::f16,
            BFloat16: half::bf16, Float32: f32, Float64: f64])
    };
}
macro_rules! numbers {
    ($dt:expr, $T:ident => $body:expr) => {
        dispatch!($dt, $T => $body, [Int8: i8, Int16: i16, Int32: i32, Int64: i64,
            UInt8: u8, UInt16: u16, UInt32: u32, UInt64: u64, Float16: half::f16,
            BFloat16: half::bf16, Float32: f32, Float64: f64,
            Complex64: num_complex::Complex32, Complex128: num_complex::Complex64])
    };
}

// ---------------------------------------------------------------------------
// Element math
// ---------------------------------------------------------------------------

/// The float type that real math runs in: f32 (also for float16 and
/// bfloat16) or f64.
trait Compute: Float + FloatConst + Send + Sync + std::fmt::Debug + 'static {
    /// Rounds half to even, as C's `rint`.
    fn rint(self) -> Self;
    /// A constant of this type.
    fn lit(x: f64) -> Self;
}

impl Compute for f32 {
    #[inline]
    fn rint(self) -> f32 {
        self.round_ties_even()
    }
    #[inline]
    fn lit(x: f64) -> f32 {
        x as f32
    }
}

impl Compute for f64 {
    #[inline]
    fn rint(self) -> f64 {
        self.round_ties_even()
    }
    #[inline]
    fn lit(x: f64) -> f64 {
        x
    }
}

/// A real float element and the type its math runs in.
trait RealFloat: Element {
    type C: Compute;
    fn up(self) -> Self::C;
    fn down(c: Self::C) -> Self;
}

impl RealFloat for f16 {
    type C = f32;
    #[inline]
    fn up(self) -> f32 {
        self.to_f32()
    }
    #[inline]
    fn down(c: f32) -> f16 {
        f16::from_f32(c)
    }
}

impl RealFloat for bf16 {
    type C = f32;
    #[inline]
    fn up(self) -> f32 {
        self.to_f32()
    }
    #[inline]
    fn down(c: f32) -> bf16 {
        bf16::from_f32(c)
    }
}

impl RealFloat for f32 {
    type C = f32;
    #[inline]
    fn up(self) -> f32 {
        self
    }
    #[inline]
    fn down(c: f32) -> f32 {
        c
    }
}

impl RealFloat for f64 {
    type C = f64;
    #[inline]
    fn up(self) -> f64 {
        self
    }
    #[inline]
    fn down(c: f64) -> f64 {
        c
    }
}

/// Operations that every dtype has (bool: `add` is or, `mul` is and).
trait Arith: Element {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn lt(self, o: Self) -> bool;
    fn le(self, o: Self) -> bool;
    /// Larger of the two; NaN wins (`np.maximum`).
    fn maximum(self, o: Self) -> Self;
    /// Smaller of the two; NaN wins (`np.minimum`).
    fn minimum(self, o: Self) -> Self;
    /// Larger of the two; NaN loses (`np.fmax`).
    fn fmax(self, o: Self) -> Self;
    /// Smaller of the two; NaN loses (`np.fmin`).
    fn fmin(self, o: Self) -> Self;
    fn is_nan(self) -> bool;
    fn is_inf(self) -> bool;
    fn is_finite(self) -> bool;
    fn sign(self) -> Self;
}

/// The absolute value, real for complex input.
trait Abs: Element {
    type R: Element;
    fn abs(self) -> Self::R;
}

/// Floor division and Python-style remainder (integers and real floats).
trait DivMod: Element {
    fn floor_div(self, o: Self) -> Self;
    fn rem(self, o: Self) -> Self;
}

/// Integer-only operations.
trait Integer: Element {
    fn is_negative(self) -> bool;
    /// `self ** e` with wrapping; `e` must not be negative.
    fn pow(self, e: Self) -> Self;
    fn shl(self, o: Self) -> Self;
    fn shr(self, o: Self) -> Self;
    /// `1 / self` in integer division (0 for 0).
    fn recip(self) -> Self;
    /// Rounds to `10^(-decimals)` for negative `decimals`, half to even.
    fn round_neg(self, decimals: i32) -> Self;
}

/// Bitwise operations (bool and integers).
trait Bits: Element {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
}

/// Math defined on floats and complex numbers.
trait Inexact: Element {
    fn div(self, o: Self) -> Self;
    fn pow(self, o: Self) -> Self;
    fn recip(self) -> Self;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn exp2(self) -> Self;
    fn ln(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    fn log1p(self) -> Self;
    fn expm1(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn asinh(self) -> Self;
    fn acosh(self) -> Self;
    fn atanh(self) -> Self;
    fn rint(self) -> Self;
    fn round_dec(self, decimals: i32) -> Self;
}

/// Math defined only on real floats.
trait RealOnly: Element {
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn trunc(self) -> Self;
    fn atan2(self, o: Self) -> Self;
}

// Type resolution rejects bool `subtract`, `negative` and `sign` (as NumPy
// does), so those three methods are never called for bool.
impl Arith for bool {
    #[inline]
    fn add(self, o: bool) -> bool {
        self | o
    }
    #[inline]
    fn sub(self, o: bool) -> bool {
        self ^ o
    }
    #[inline]
    fn mul(self, o: bool) -> bool {
        self & o
    }
    #[inline]
    fn neg(self) -> bool {
        self
    }
    #[inline]
    fn lt(self, o: bool) -> bool {
        !self & o
    }
    #[inline]
    fn le(self, o: bool) -> bool {
        !self | o
    }
    #[inline]
    fn maximum(self, o: bool) -> bool {
        self | o
    }
    #[inline]
    fn minimum(self, o: bool) -> bool {
        self & o
    }
    #[inline]
    fn fmax(self, o: bool) -> bool {
        self | o
    }
    #[inline]
    fn fmin(self, o: bool) -> bool {
        self & o
    }
    #[inline]
    fn is_nan(self) -> bool {
        false
    }
    #[inline]
    fn is_inf(self) -> bool {
        false
    }
    #[inline]
    fn is_finite(self) -> bool {
        true
    }
    #[inline]
    fn sign(self) -> bool {
        self
    }
}

impl Abs for bool {
    type R = bool;
    #[inline]
    fn abs(self) -> bool {
        self
    }
}

impl Bits for bool {
    #[inline]
    fn and(self, o: bool) -> bool {
        self & o
    }
    #[inline]
    fn or(self, o: bool) -> bool {
        self | o
    }
    #[inline]
    fn xor(self, o: bool) -> bool {
        self ^ o
    }
    #[inline]
    fn not(self) -> bool {
        !self
    }
}

macro_rules! impl_int_common {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn add(self, o: $t) -> $t { self.wrapping_add(o) }
            #[inline]
            fn sub(self, o: $t) -> $t { self.wrapping_sub(o) }
            #[inline]
            fn mul(self, o: $t) -> $t { self.wrapping_mul(o) }
            #[inline]
            fn neg(self) -> $t { self.wrapping_neg() }
            #[inline]
            fn lt(self, o: $t) -> bool { self < o }
            #[inline]
            fn le(self, o: $t) -> bool { self <= o }
            #[inline]
            fn maximum(self, o: $t) -> $t { if self >= o { self } else { o } }
            #[inline]
            fn minimum(self, o: $t) -> $t { if self <= o { self } else { o } }
            #[inline]
            fn fmax(self, o: $t) -> $t { <$t as Arith>::maximum(self, o) }
            #[inline]
            fn fmin(self, o: $t) -> $t { <$t as Arith>::minimum(self, o) }
            #[inline]
            fn is_nan(self) -> bool { false }
            #[inline]
            fn is_inf(self) -> bool { false }
            #[inline]
            fn is_finite(self) -> bool { true }
            #[inline]
            fn sign(self) -> $t {
                if self > 0 { 1 } else if self == 0 { 0 } else { (0 as $t).wrapping_sub(1) }
            }
        }

        impl Bits for $t {
            #[inline]
            fn and(self, o: $t) -> $t { self & o }
            #[inline]
            fn or(self, o: $t) -> $t { self | o }
            #[inline]
            fn xor(self, o: $t) -> $t { self ^ o }
            #[inline]
            fn not(self) -> $t { !self }
        }

        impl Abs for $t {
            type R = $t;
            #[inline]
            fn abs(self) -> $t { if <$t as Integer>::is_negative(self) { self.wrapping_neg() } else { self } }
        }
    )*};
}
impl_int_common!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! impl_int_specific {
    (signed: $($t:ty),*) => {$(
        impl DivMod for $t {
            #[inline]
            fn floor_div(self, o: $t) -> $t {
                if o == 0 {
                    0
                } else if o == -1 {
                    // MIN // -1 overflows; NumPy's result is MIN.
                    self.wrapping_neg()
                } else {
                    let q = self / o;
                    if self % o != 0 && ((self < 0) != (o < 0)) { q - 1 } else { q }
                }
            }
            #[inline]
            fn rem(self, o: $t) -> $t {
                if o == 0 || o == -1 {
                    0
                } else {
                    let r = self % o;
                    if r != 0 && ((r < 0) != (o < 0)) { r + o } else { r }
                }
            }
        }
        impl Integer for $t {
            #[inline]
            fn is_negative(self) -> bool { self < 0 }
            #[inline]
            fn pow(self, e: $t) -> $t {
                if e < 0 { 0 } else { wrapping_pow(self, e as u64, |a, b: $t| a.wrapping_mul(b)) }
            }
            #[inline]
            fn shl(self, o: $t) -> $t {
                if (o as u64) < <$t>::BITS as u64 { self << o } else { 0 }
            }
            #[inline]
            fn shr(self, o: $t) -> $t {
                if (o as u64) < <$t>::BITS as u64 { self >> o } else if self < 0 { -1 } else { 0 }
            }
            #[inline]
            fn recip(self) -> $t { if self == 0 { 0 } else { (1 as $t).wrapping_div(self) } }
            fn round_neg(self, decimals: i32) -> $t { round_int_neg(self as i128, decimals) as $t }
        }
    )*};
    (unsigned: $($t:ty),*) => {$(
        impl DivMod for $t {
            #[inline]
            fn floor_div(self, o: $t) -> $t { if o == 0 { 0 } else { self / o } }
            #[inline]
            fn rem(self, o: $t) -> $t { if o == 0 { 0 } else { self % o } }
        }
        impl Integer for $t {
            #[inline]
            fn is_negative(self) -> bool { false }
            #[inline]
            fn pow(self, e: $t) -> $t { wrapping_pow(self, e as u64, |a, b: $t| a.wrapping_mul(b)) }
            #[inline]
            fn shl(self, o: $t) -> $t {
                if (o as u64) < <$t>::BITS as u64 { self << o } else { 0 }
            }
            #[inline]
            fn shr(self, o: $t) -> $t {
                if (o as u64) < <$t>::BITS as u64 { self >> o } else { 0 }
            }
            #[inline]
            fn recip(self) -> $t { if self == 0 { 0 } else { 1 / self } }
            fn round_neg(self, decimals: i32) -> $t { round_int_neg(self as i128, decimals) as $t }
        }
    )*};
}
impl_int_specific!(signed: i8, i16, i32, i64);
impl_int_specific!(unsigned: u8, u16, u32, u64);

/// `base ** e` by squaring, with the given (wrapping) multiplication.
#[inline]
fn wrapping_pow<T: Copy + From<bool>>(mut base: T, mut e: u64, mul: impl Fn(T, T) -> T) -> T {
    let mut acc = T::from(true);
    while e > 0 {
        if e & 1 == 1 {
            acc = mul(acc, base);
        }
        e >>= 1;
        if e > 0 {
            base = mul(base, base);
        }
    }
    acc
}

/// An integer rounded to a multiple of `10^(-decimals)` (`decimals < 0`),
/// half to even; 0 when that multiple exceeds every integer of 64 bits.
fn round_int_neg(x: i128, decimals: i32) -> i128 {
    let k = decimals.unsigned_abs();
    if k > 20 {
        return 0;
    }
    let p = 10i128.pow(k);
    let q = x.div_euclid(p);
    let r = x.rem_euclid(p);
    let q = if 2 * r > p || (2 * r == p && q % 2 != 0) {
        q + 1
    } else {
        q
    };
    q * p
}

// Real float helpers, generic over the compute type.

// NumPy's choices for maximum, minimum, fmax and fmin (true: keep the first).
#[inline]
fn f_takes_first_max<C: Compute>(a: C, b: C) -> bool {
    a.is_nan() || a >= b
}
#[inline]
fn f_takes_first_min<C: Compute>(a: C, b: C) -> bool {
    a.is_nan() || a <= b
}
#[inline]
fn f_takes_first_fmax<C: Compute>(a: C, b: C) -> bool {
    a >= b || b.is_nan()
}
#[inline]
fn f_takes_first_fmin<C: Compute>(a: C, b: C) -> bool {
    a <= b || b.is_nan()
}
#[inline]
fn f_sign<C: Compute>(x: C) -> C {
    if x > C::zero() {
        C::one()
    } else if x < C::zero() {
        -C::one()
    } else if x == C::zero() {
        C::zero()
    } else {
        x
    }
}

/// NumPy's `npy_divmod`: floor quotient and remainder with the divisor's sign.
#[inline]
fn f_divmod<C: Compute>(a: C, b: C) -> (C, C) {
    let zero = C::zero();
    let mut m = a % b;
    if b == zero {
        return (a / b, m);
    }
    let mut div = (a - m) / b;
    if m != zero {
        if (b < zero) != (m < zero) {
            m = m + b;
            div = div - C::one();
        }
    } else {
        m = zero.copysign(b);
    }
    let floordiv = if div != zero {
        let mut f = div.floor();
        if div - f > C::lit(0.5) {
            f = f + C::one();
        }
        f
    } else {
        zero.copysign(a / b)
    };
    (floordiv, m)
}

#[inline]
fn f_round_dec<C: Compute>(x: C, decimals: i32) -> C {
    if decimals >= 0 {
        let f = C::lit(10f64.powi(decimals));
        (x * f).rint() / f
    } else {
        let f = C::lit(10f64.powi(-decimals));
        (x / f).rint() * f
    }
}

macro_rules! impl_float {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn add(self, o: $t) -> $t { Self::down(self.up() + o.up()) }
            #[inline]
            fn sub(self, o: $t) -> $t { Self::down(self.up() - o.up()) }
            #[inline]
            fn mul(self, o: $t) -> $t { Self::down(self.up() * o.up()) }
            #[inline]
            fn neg(self) -> $t { Self::down(-self.up()) }
            #[inline]
            fn lt(self, o: $t) -> bool { self.up() < o.up() }
            #[inline]
            fn le(self, o: $t) -> bool { self.up() <= o.up() }
            #[inline]
            fn maximum(self, o: $t) -> $t { if f_takes_first_max(self.up(), o.up()) { self } else { o } }
            #[inline]
            fn minimum(self, o: $t) -> $t { if f_takes_first_min(self.up(), o.up()) { self } else { o } }
            #[inline]
            fn fmax(self, o: $t) -> $t { if f_takes_first_fmax(self.up(), o.up()) { self } else { o } }
            #[inline]
            fn fmin(self, o: $t) -> $t { if f_takes_first_fmin(self.up(), o.up()) { self } else { o } }
            #[inline]
            fn is_nan(self) -> bool { self.up().is_nan() }
            #[inline]
            fn is_inf(self) -> bool { self.up().is_infinite() }
            #[inline]
            fn is_finite(self) -> bool { self.up().is_finite() }
            #[inline]
            fn sign(self) -> $t { Self::down(f_sign(self.up())) }
        }

        impl Abs for $t {
            type R = $t;
            #[inline]
            fn abs(self) -> $t { Self::down(self.up().abs()) }
        }

        impl DivMod for $t {
            #[inline]
            fn floor_div(self, o: $t) -> $t { Self::down(f_divmod(self.up(), o.up()).0) }
            #[inline]
            fn rem(self, o: $t) -> $t {
                let (a, b) = (self.up(), o.up());
                Self::down(if b == <<Self as RealFloat>::C as num_traits::Zero>::zero() { a % b } else { f_divmod(a, b).1 })
            }
        }

        impl RealOnly for $t {
            #[inline]
            fn floor(self) -> $t { Self::down(self.up().floor()) }
            #[inline]
            fn ceil(self) -> $t { Self::down(self.up().ceil()) }
            #[inline]
            fn trunc(self) -> $t { Self::down(self.up().trunc()) }
            #[inline]
            fn atan2(self, o: $t) -> $t { Self::down(self.up().atan2(o.up())) }
        }

        impl Inexact for $t {
            #[inline]
            fn div(self, o: $t) -> $t { Self::down(self.up() / o.up()) }
            #[inline]
            fn pow(self, o: $t) -> $t { Self::down(self.up().powf(o.up())) }
            #[inline]
            fn recip(self) -> $t { Self::down(self.up().recip()) }
            #[inline]
            fn sqrt(self) -> $t { Self::down(self.up().sqrt()) }
            #[inline]
            fn exp(self) -> $t { Self::down(self.up().exp()) }
            #[inline]
            fn exp2(self) -> $t { Self::down(self.up().exp2()) }
            #[inline]
            fn ln(self) -> $t { Self::down(self.up().ln()) }
            #[inline]
            fn log2(self) -> $t { Self::down(self.up().log2()) }
            #[inline]
            fn log10(self) -> $t { Self::down(self.up().log10()) }
            #[inline]
            fn log1p(self) -> $t { Self::down(self.up().ln_1p()) }
            #[inline]
            fn expm1(self) -> $t { Self::down(self.up().exp_m1()) }
            #[inline]
            fn sin(self) -> $t { Self::down(self.up().sin()) }
            #[inline]
            fn cos(self) -> $t { Self::down(self.up().cos()) }
            #[inline]
            fn tan(self) -> $t { Self::down(self.up().tan()) }
            #[inline]
            fn asin(self) -> $t { Self::down(self.up().asin()) }
            #[inline]
            fn acos(self) -> $t { Self::down(self.up().acos()) }
            #[inline]
            fn atan(self) -> $t { Self::down(self.up().atan()) }
            #[inline]
            fn sinh(self) -> $t { Self::down(self.up().sinh()) }
            #[inline]
            fn cosh(self) -> $t { Self::down(self.up().cosh()) }
            #[inline]
            fn tanh(self) -> $t { Self::down(self.up().tanh()) }
            #[inline]
            fn asinh(self) -> $t { Self::down(self.up().asinh()) }
            #[inline]
            fn acosh(self) -> $t { Self::down(self.up().acosh()) }
            #[inline]
            fn atanh(self) -> $t { Self::down(self.up().atanh()) }
            #[inline]
            fn rint(self) -> $t { Self::down(Compute::rint(self.up())) }
            #[inline]
            fn round_dec(self, decimals: i32) -> $t { Self::down(f_round_dec(self.up(), decimals)) }
        }
    )*};
}
impl_float!(f16, bf16, f32, f64);

// Complex helpers, generic over the part type.

/// NumPy's lexicographic `a < b` for complex numbers.
#[inline]
fn c_lt<C: Compute>(a: Complex<C>, b: Complex<C>) -> bool {
    a.re < b.re || (a.re == b.re && a.im < b.im)
}
/// NumPy's lexicographic `a <= b` for complex numbers.
#[inline]
fn c_le<C: Compute>(a: Complex<C>, b: Complex<C>) -> bool {
    a.re < b.re || (a.re == b.re && a.im <= b.im)
}
#[inline]
fn c_is_nan<C: Compute>(a: Complex<C>) -> bool {
    a.re.is_nan() || a.im.is_nan()
}

/// Complex division by Smith's method, as NumPy (no overflow for large
/// divisors; division by zero gives infinities or NaN like NumPy).
#[inline]
fn c_div<C: Compute>(a: Complex<C>, b: Complex<C>) -> Complex<C> {
    let (br_abs, bi_abs) = (b.re.abs(), b.im.abs());
    if br_abs >= bi_abs {
        if br_abs == C::zero() && bi_abs == C::zero() {
            Complex::new(a.re / br_abs, a.im / bi_abs)
        } else {
            let rat = b.im / b.re;
            let scl = C::one() / (b.re + b.im * rat);
            Complex::new((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl)
        }
    } else {
        let rat = b.re / b.im;
        let scl = C::one() / (b.im + b.re * rat);
        Complex::new((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl)
    }
}

/// NumPy's complex reciprocal.
#[inline]
fn c_recip<C: Compute>(a: Complex<C>) -> Complex<C> {
    if a.im.abs() <= a.re.abs() {
        let r = a.im / a.re;
        let d = a.re + a.im * r;
        Complex::new(C::one() / d, -r / d)
    } else {
        let r = a.re / a.im;
        let d = a.re * r + a.im;
        Complex::new(r / d, -C::one() / d)
    }
}

/// NumPy's complex power: exact repeated products for small integer
/// exponents, `exp(b log a)` otherwise.
fn c_pow<C: Compute>(a: Complex<C>, b: Complex<C>) -> Complex<C> {
    let zero = C::zero();
    let one = Complex::new(C::one(), zero);
    if b.re == zero && b.im == zero {
        return one;
    }
    if a.re == zero && a.im == zero {
        return if b.re > zero && b.im == zero {
            Complex::new(zero, zero)
        } else {
            Complex::new(C::nan(), C::nan())
        };
    }
    if b.im == zero && b.re == b.re.trunc() && b.re.abs() < C::lit(100.0) {
        let n = b.re.to_i64().unwrap_or(0);
        let r = match n {
            1 => a,
            2 => a * a,
            3 => a * a * a,
            _ => {
                let mut e = n.unsigned_abs();
                let (mut acc, mut p) = (one, a);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc * p;
                    }
                    e >>= 1;
                    if e > 0 {
                        p = p * p;
                    }
                }
                acc
            }
        };
        return if n < 0 { c_div(one, r) } else { r };
    }
    (b * a.ln()).exp()
}

/// NumPy's complex sign: `z / |z|`, 0 for 0, NaN for NaN.
fn c_sign<C: Compute>(a: Complex<C>) -> Complex<C> {
    let zero = C::zero();
    let nan = Complex::new(C::nan(), C::nan());
    let abs = a.re.hypot(a.im);
    if abs.is_nan() {
        nan
    } else if abs.is_infinite() {
        if a.re.is_infinite() {
            if a.im.is_infinite() {
                nan
            } else {
                Complex::new(f_sign(a.re), zero)
            }
        } else {
            Complex::new(zero, f_sign(a.im))
        }
    } else if abs == zero {
        Complex::new(zero, zero)
    } else {
        Complex::new(a.re / abs, a.im / abs)
    }
}

/// NumPy's complex `log1p`.
fn c_log1p<C: Compute>(a: Complex<C>) -> Complex<C> {
    let x = a.re + C::one();
    Complex::new(x.hypot(a.im).ln(), a.im.atan2(x))
}

/// NumPy's complex `expm1`.
fn c_expm1<C: Compute>(a: Complex<C>) -> Complex<C> {
    let h = (a.im / C::lit(2.0)).sin();
    Complex::new(
        a.re.exp_m1() * a.im.cos() - C::lit(2.0) * h * h,
        a.re.exp() * a.im.sin(),
    )
}

/// Complex square root with C99's signed-zero branch cut (`sqrt(-4 - 0i)` is
/// `-2i`), accurate and without intermediate overflow.
fn c_sqrt<C: Compute>(z: Complex<C>) -> Complex<C> {
    let (x, y) = (z.re, z.im);
    let zero = C::zero();
    let two = C::lit(2.0);
    if y.is_infinite() {
        return Complex::new(C::infinity(), y);
    }
    if x == zero && y == zero {
        return Complex::new(zero, y);
    }
    let t = (x.abs() / two + (x / two).hypot(y / two)).sqrt();
    if t.is_nan() {
        return Complex::new(C::nan(), C::nan());
    }
    if x >= zero {
        Complex::new(t, y / (two * t))
    } else {
        Complex::new(y.abs() / (two * t), t.copysign(y))
    }
}

/// Complex arcsine (Kahan's formula; C99 branch cuts, as NumPy).
fn c_asin<C: Compute>(z: Complex<C>) -> Complex<C> {
    let s1m = c_sqrt(Complex::new(C::one() - z.re, -z.im));
    let s1p = c_sqrt(Complex::new(C::one() + z.re, z.im));
    Complex::new(z.re.atan2((s1m * s1p).re), (s1m.conj() * s1p).im.asinh())
}

/// Complex arccosine (Kahan's formula; C99 branch cuts, as NumPy).
fn c_acos<C: Compute>(z: Complex<C>) -> Complex<C> {
    let s1m = c_sqrt(Complex::new(C::one() - z.re, -z.im));
    let s1p = c_sqrt(Complex::new(C::one() + z.re, z.im));
    Complex::new(
        C::lit(2.0) * s1m.re.atan2(s1p.re),
        (s1p.conj() * s1m).im.asinh(),
    )
}

/// Complex inverse hyperbolic cosine (Kahan's formula).
fn c_acosh<C: Compute>(z: Complex<C>) -> Complex<C> {
    let sm = c_sqrt(Complex::new(z.re - C::one(), z.im));
    let sp = c_sqrt(Complex::new(z.re + C::one(), z.im));
    Complex::new(
        (sm.conj() * sp).re.asinh(),
        C::lit(2.0) * sm.im.atan2(sp.re),
    )
}

/// Complex inverse hyperbolic tangent (Kahan's formula; the cut's sign
/// follows the sign of the imaginary zero, as C99).
fn c_atanh<C: Compute>(z: Complex<C>) -> Complex<C> {
    let (x, y) = (z.re, z.im);
    let big = C::lit(1e150);
    if x.abs() > big || y.abs() > big {
        let r = c_recip(z);
        return Complex::new(r.re, C::FRAC_PI_2().copysign(y));
    }
    let one = C::one();
    let d = (one - x) * (one - x) + y * y;
    Complex::new(
        (C::lit(4.0) * x / d).ln_1p() / C::lit(4.0),
        (C::lit(2.0) * y).atan2((one - x) * (one + x) - y * y) / C::lit(2.0),
    )
}

/// Complex hyperbolic tangent, without overflow for large real parts.
fn c_tanh<C: Compute>(z: Complex<C>) -> Complex<C> {
    let (x, y) = (z.re, z.im);
    if x.abs() >= C::lit(22.0) {
        let e = (C::lit(-2.0) * x.abs()).exp();
        return Complex::new(C::one().copysign(x), C::lit(4.0) * y.sin() * y.cos() * e);
    }
    Complex::tanh(z)
}

/// `-i f(i z)`: the circular function from the hyperbolic one.
#[inline]
fn c_rot<C: Compute>(z: Complex<C>, f: impl Fn(Complex<C>) -> Complex<C>) -> Complex<C> {
    let w = f(Complex::new(-z.im, z.re));
    Complex::new(w.im, -w.re)
}

macro_rules! impl_complex {
    ($($c:ty),*) => {$(
        impl Arith for Complex<$c> {
            #[inline]
            fn add(self, o: Self) -> Self { self + o }
            #[inline]
            fn sub(self, o: Self) -> Self { self - o }
            #[inline]
            fn mul(self, o: Self) -> Self { self * o }
            #[inline]
            fn neg(self) -> Self { -self }
            #[inline]
            fn lt(self, o: Self) -> bool { c_lt(self, o) }
            #[inline]
            fn le(self, o: Self) -> bool { c_le(self, o) }
            #[inline]
            fn maximum(self, o: Self) -> Self { if c_is_nan(self) || c_le(o, self) { self } else { o } }
            #[inline]
            fn minimum(self, o: Self) -> Self { if c_is_nan(self) || c_le(self, o) { self } else { o } }
            #[inline]
            fn fmax(self, o: Self) -> Self { if c_is_nan(o) || c_le(o, self) { self } else { o } }
            #[inline]
            fn fmin(self, o: Self) -> Self { if c_is_nan(o) || c_le(self, o) { self } else { o } }
            #[inline]
            fn is_nan(self) -> bool { c_is_nan(self) }
            #[inline]
            fn is_inf(self) -> bool { self.re.is_infinite() || self.im.is_infinite() }
            #[inline]
            fn is_finite(self) -> bool { self.re.is_finite() && self.im.is_finite() }
            #[inline]
            fn sign(self) -> Self { c_sign(self) }
        }

        impl Abs for Complex<$c> {
            type R = $c;
            #[inline]
            fn abs(self) -> $c { self.re.hypot(self.im) }
        }

        impl Inexact for Complex<$c> {
            #[inline]
            fn div(self, o: Self) -> Self { c_div(self, o) }
            #[inline]
            fn pow(self, o: Self) -> Self { c_pow(self, o) }
            #[inline]
            fn recip(self) -> Self { c_recip(self) }
            #[inline]
            fn sqrt(self) -> Self { c_sqrt(self) }
            #[inline]
            fn exp(self) -> Self { Complex::exp(self) }
            #[inline]
            fn exp2(self) -> Self { Complex::exp(self * <$c>::LN_2()) }
            #[inline]
            fn ln(self) -> Self { Complex::ln(self) }
            #[inline]
            fn log2(self) -> Self { Complex::ln(self) * <$c>::LOG2_E() }
            #[inline]
            fn log10(self) -> Self { Complex::ln(self) * <$c>::LOG10_E() }
            #[inline]
            fn log1p(self) -> Self { c_log1p(self) }
            #[inline]
            fn expm1(self) -> Self { c_expm1(self) }
            #[inline]
            fn sin(self) -> Self { Complex::sin(self) }
            #[inline]
            fn cos(self) -> Self { Complex::cos(self) }
            #[inline]
            fn tan(self) -> Self { c_rot(self, c_tanh) }
            #[inline]
            fn asin(self) -> Self { c_asin(self) }
            #[inline]
            fn acos(self) -> Self { c_acos(self) }
            #[inline]
            fn atan(self) -> Self { c_rot(self, c_atanh) }
            #[inline]
            fn sinh(self) -> Self { Complex::sinh(self) }
            #[inline]
            fn cosh(self) -> Self { Complex::cosh(self) }
            #[inline]
            fn tanh(self) -> Self { c_tanh(self) }
            #[inline]
            fn asinh(self) -> Self { let w = c_asin(Complex::new(-self.im, self.re)); Complex::new(w.im, -w.re) }
            #[inline]
            fn acosh(self) -> Self { c_acosh(self) }
            #[inline]
            fn atanh(self) -> Self { c_atanh(self) }
            #[inline]
            fn rint(self) -> Self { Complex::new(Compute::rint(self.re), Compute::rint(self.im)) }
            #[inline]
            fn round_dec(self, decimals: i32) -> Self {
                Complex::new(f_round_dec(self.re, decimals), f_round_dec(self.im, decimals))
            }
        }
    )*};
}
impl_complex!(f32, f64);

// ---------------------------------------------------------------------------
// Strided loops (CPU)
// ---------------------------------------------------------------------------

/// Runs `f` with the CPU buffers of `arrays`, all of element type `T`,
/// locking each distinct buffer once (arrays may view the same buffer).
fn with_slices<T: Element, R, const N: usize>(
    arrays: [&Array; N],
    f: impl FnOnce([&[T]; N]) -> R,
) -> R {
    let mut guards = Vec::with_capacity(N);
    let mut which = [0usize; N];
    for i in 0..N {
        if let Some(j) = (0..i).find(|&j| arrays[j].shares_memory(arrays[i])) {
            which[i] = which[j];
        } else {
            which[i] = guards.len();
            guards.push(match arrays[i].storage() {
                Storage::Cpu(s) => s.read(),
                Storage::Cuda(_) => {
                    unreachable!("CPU loops run on host arrays only (see `on_host`)")
                }
            });
        }
    }
    let slices: [&[T]; N] = std::array::from_fn(|i| {
        T::slice(&guards[which[i]]).expect("the buffer holds the array's dtype")
    });
    f(slices)
}

/// Walks `shape` (merged axes, non-empty) in C order, calling
/// `f(start positions, length, strides)` for each run along the last axis.
fn runs<const N: usize>(
    shape: &[usize],
    strides: &[Vec<isize>],
    start: [isize; N],
    mut f: impl FnMut([isize; N], usize, [isize; N]),
) {
    let nd = shape.len();
    if nd == 0 {
        f(start, 1, [0; N]);
        return;
    }
    let inner = shape[nd - 1];
    let inner_strides: [isize; N] = std::array::from_fn(|k| strides[k][nd - 1]);
    let outer = nd - 1;
    let mut index = vec![0usize; outer];
    let mut base = start;
    loop {
        f(base, inner, inner_strides);
        let mut ax = outer;
        loop {
            if ax == 0 {
                return;
            }
            ax -= 1;
            index[ax] += 1;
            for k in 0..N {
                base[k] += strides[k][ax];
            }
            if index[ax] < shape[ax] {
                break;
            }
            for k in 0..N {
                base[k] -= strides[k][ax] * shape[ax] as isize;
            }
            index[ax] = 0;
        }
    }
}

/// `f` of every element of `x` (element type `T`), as a new C-contiguous array.
fn map1<T: Element, O: Element>(x: &Array, f: impl Fn(T) -> O) -> Array {
    let n = x.size();
    let mut out: Vec<O> = Vec::with_capacity(n);
    if n > 0 {
        with_slices::<T, _, 1>([x], |[d]| {
            let l = x.layout();
            let (shape, strides) = Layout::merge_axes(&[l]);
            runs(&shape, &strides, [l.offset() as isize], |[p], len, [s]| {
                if s == 1 {
                    let p = p as usize;
                    out.extend(d[p..p + len].iter().map(|&v| f(v)));
                } else {
                    out.extend((0..len as isize).map(|i| f(d[(p + i * s) as usize])));
                }
            });
        });
    }
    Array::from_cpu_data(O::into_data(out), x.shape())
}

/// `f` of `a` and `b` (element type `T`) broadcast to `shape`, as a new
/// C-contiguous array.
fn map2<T: Element, O: Element>(
    a: &Array,
    b: &Array,
    shape: &[usize],
    f: impl Fn(T, T) -> O,
) -> Array {
    let n: usize = shape.iter().product();
    let mut out: Vec<O> = Vec::with_capacity(n);
    if n > 0 {
        let la = a.layout().broadcast_to(shape).expect("shapes were checked");
        let lb = b.layout().broadcast_to(shape).expect("shapes were checked");
        with_slices::<T, _, 2>([a, b], |[da, db]| {
            let (mshape, mstrides) = Layout::merge_axes(&[&la, &lb]);
            let start = [la.offset() as isize, lb.offset() as isize];
            runs(&mshape, &mstrides, start, |[pa, pb], len, [sa, sb]| {
                let (ua, ub) = (pa as usize, pb as usize);
                match (sa, sb) {
                    (1, 1) => out.extend(
                        da[ua..ua + len]
                            .iter()
                            .zip(&db[ub..ub + len])
                            .map(|(&x, &y)| f(x, y)),
                    ),
                    (1, 0) => {
                        let y = db[ub];
                        out.extend(da[ua..ua + len].iter().map(|&x| f(x, y)));
                    }
                    (0, 1) => {
                        let x = da[ua];
                        out.extend(db[ub..ub + len].iter().map(|&y| f(x, y)));
                    }
                    _ => out.extend(
                        (0..len as isize)
                            .map(|i| f(da[(pa + i * sa) as usize], db[(pb + i * sb) as usize])),
                    ),
                }
            });
        });
    }
    Array::from_cpu_data(O::into_data(out), shape)
}

/// `f` of three arrays (element type `T`) broadcast to `shape`.
fn map3<T: Element, O: Element>(
    arrays: [&Array; 3],
    shape: &[usize],
    f: impl Fn(T, T, T) -> O,
) -> Array {
    let n: usize = shape.iter().product();
    let mut out: Vec<O> = Vec::with_capacity(n);
    if n > 0 {
        let ls: Vec<Layout> = arrays
            .iter()
            .map(|a| a.layout().broadcast_to(shape).expect("shapes were checked"))
            .collect();
        with_slices::<T, _, 3>(arrays, |[d0, d1, d2]| {
            let (mshape, mstrides) = Layout::merge_axes(&[&ls[0], &ls[1], &ls[2]]);
            let start: [isize; 3] = std::array::from_fn(|k| ls[k].offset() as isize);
            runs(
                &mshape,
                &mstrides,
                start,
                |[p0, p1, p2], len, [s0, s1, s2]| {
                    if (s0, s1, s2) == (1, 0, 0) {
                        let (u0, lo, hi) = (p0 as usize, d1[p1 as usize], d2[p2 as usize]);
                        out.extend(d0[u0..u0 + len].iter().map(|&x| f(x, lo, hi)));
                    } else {
                        out.extend((0..len as isize).map(|i| {
                            f(
                                d0[(p0 + i * s0) as usize],
                                d1[(p1 + i * s1) as usize],
                                d2[(p2 + i * s2) as usize],
                            )
                        }));
                    }
                },
            );
        });
    }
    Array::from_cpu_data(O::into_data(out), shape)
}

// ---------------------------------------------------------------------------
// Type resolution helpers
// ---------------------------------------------------------------------------

/// How an operand reads in messages: its dtype, or "a Rust integer".
fn describe(op: &Operand<'_>) -> String {
    match op {
        Operand::Array(a) => a.dtype().name().to_string(),
        Operand::Scalar(s) => match s {
            Scalar::Bool(_) => "a Rust bool".into(),
            Scalar::Int(_) | Scalar::UInt(_) => "a Rust integer".into(),
            Scalar::Float(_) => "a Rust float".into(),
            Scalar::Complex(_) => "a Rust complex".into(),
        },
    }
}

/// The error for inputs whose (common) dtype has no loop.
fn unsupported(name: &'static str, inputs: &[&Operand<'_>], common: DType, valid: &str) -> Error {
    let names: Vec<String> = inputs.iter().map(|o| describe(o)).collect();
    let detail = match inputs {
        [one] if one.as_array().is_some() => {
            format!("input dtype {common} is not supported; valid dtypes: {valid}")
        }
        [_] => format!(
            "{} input ({common}) is not supported; valid dtypes: {valid}",
            names[0]
        ),
        _ => format!(
            "inputs {} (common dtype {common}) are not supported; valid dtypes: {valid}",
            names.join(" and ")
        ),
    };
    Error::DType { op: name, detail }
}

const VALID_BITS: &str = "bool and integer dtypes (int8 to int64, uint8 to uint64)";
const VALID_REAL: &str = "bool, integer and real floating dtypes (not complex)";
const VALID_NUMBERS: &str = "integer, floating and complex dtypes (not bool)";

/// The operand as an array of `dtype` on `device` (arrays are converted with
/// NumPy's unsafe cast; weak integers must fit an integer `dtype`).
fn operand_as(op: &Operand<'_>, name: &'static str, dtype: DType, device: Device) -> Result<Array> {
    match op {
        Operand::Array(a) if a.dtype() != dtype => a.astype(dtype),
        other => other.to_array(name, dtype, device),
    }
}

/// Checks that `out` can receive a result of `shape` (which it may
/// broadcast) and `dtype`, on `device`.
fn check_out(
    name: &'static str,
    shape: &[usize],
    dtype: DType,
    device: Device,
    out: &Array,
) -> Result<()> {
    let fits = broadcast_shapes(name, &[shape, out.shape()])
        .map(|s| s == out.shape())
        .unwrap_or(false);
    if !fits {
        return Err(Error::Shape {
            op: name,
            detail: format!(
                "out has shape {} but the inputs broadcast to {}; out must have the broadcast shape",
                fmt_shape(out.shape()),
                fmt_shape(shape)
            ),
        });
    }
    if out
        .shape()
        .iter()
        .zip(out.strides())
        .any(|(&d, &s)| d > 1 && s == 0)
    {
        return Err(Error::InvalidArgument {
            op: name,
            detail: format!(
                "out (shape {}, strides {:?}) is a broadcast view that repeats elements; write into a copy instead",
                fmt_shape(out.shape()),
                out.strides()
            ),
        });
    }
    if !can_cast(dtype, out.dtype(), Casting::SameKind) {
        return Err(Error::Cast {
            op: name,
            from: dtype,
            to: out.dtype(),
            casting: Casting::SameKind.name(),
        });
    }
    if out.device() != device {
        return Err(Error::DeviceMismatch {
            op: name,
            a: device.to_string(),
            b: out.device().to_string(),
        });
    }
    Ok(())
}

/// Writes a freshly computed C-contiguous `result` (of `out`'s shape) into `out`.
fn store(result: &Array, out: &mut Array) -> Result<()> {
    if result.dtype() == out.dtype() && result.is_c_contiguous() && out.device().is_cpu() {
        crate::with_dtype!(out.dtype(), T => {
            let out_view: &Array = out;
            result.read_cpu::<T, _>(|d, l| {
                out_view.scatter::<T>(&d[l.offset()..l.offset() + l.size()])
            });
        });
        Ok(())
    } else {
        out.assign_with(result, Casting::Unsafe)
    }
}

// ---------------------------------------------------------------------------
// Binary ufuncs
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bin {
    Add,
    Subtract,
    Multiply,
    Divide,
    FloorDivide,
    Remainder,
    Power,
    Maximum,
    Minimum,
    Fmax,
    Fmin,
    Arctan2,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    BitwiseAnd,
    BitwiseOr,
    BitwiseXor,
    LeftShift,
    RightShift,
}

impl Bin {
    fn name(self) -> &'static str {
        use Bin::*;
        match self {
            Add => "add",
            Subtract => "subtract",
            Multiply => "multiply",
            Divide => "divide",
            FloorDivide => "floor_divide",
            Remainder => "remainder",
            Power => "power",
            Maximum => "maximum",
            Minimum => "minimum",
            Fmax => "fmax",
            Fmin => "fmin",
            Arctan2 => "arctan2",
            Equal => "equal",
            NotEqual => "not_equal",
            Less => "less",
            LessEqual => "less_equal",
            Greater => "greater",
            GreaterEqual => "greater_equal",
            LogicalAnd => "logical_and",
            LogicalOr => "logical_or",
            LogicalXor => "logical_xor",
            BitwiseAnd => "bitwise_and",
            BitwiseOr => "bitwise_or",
            BitwiseXor => "bitwise_xor",
            LeftShift => "left_shift",
            RightShift => "right_shift",
        }
    }

    fn is_comparison(self) -> bool {
        use Bin::*;
        matches!(
            self,
            Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual
        )
    }
}

/// What a binary call resolved to.
struct BinPlan {
    /// The dtype the loop computes in (inputs are converted to it).
    loop_dt: DType,
    /// The dtype of the result.
    out_dt: DType,
    /// The broadcast shape of the inputs.
    shape: Vec<usize>,
    device: Device,
}

fn plan_binary(op: Bin, a: &Operand<'_>, b: &Operand<'_>) -> Result<BinPlan> {
    use Bin::*;
    let name = op.name();
    let device = common_device(name, &[a, b])?;
    device.check_available(name)?;
    let shape = broadcast_shapes(name, &[a.shape(), b.shape()])?;
    let common = result_type(&[a.type_operand(), b.type_operand()])?;
    let bad = |valid: &str| Err(unsupported(name, &[a, b], common, valid));
    let (loop_dt, out_dt) = match op {
        Add | Multiply | Maximum | Minimum | Fmax | Fmin => (common, common),
        Subtract => {
            if common.is_bool() {
                return Err(Error::DType {
                    op: name,
                    detail: "boolean subtract (the `-` operator) is not supported; use bitwise_xor (the `^` operator) or logical_xor instead".into(),
                });
            }
            (common, common)
        }
        Divide => {
            let d = if common.is_inexact() {
                common
            } else {
                DType::Float64
            };
            (d, d)
        }
        FloorDivide | Remainder => {
            if common.is_complex() {
                return bad(VALID_REAL);
            }
            let d = if common.is_bool() {
                DType::Int8
            } else {
                common
            };
            (d, d)
        }
        Power => {
            let d = if common.is_bool() {
                DType::Int8
            } else {
                common
            };
            (d, d)
        }
        Arctan2 => {
            if common.is_complex() {
                return bad(VALID_REAL);
            }
            let d = common.to_inexact();
            (d, d)
        }
        Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual => (common, DType::Bool),
        LogicalAnd | LogicalOr | LogicalXor => (DType::Bool, DType::Bool),
        BitwiseAnd | BitwiseOr | BitwiseXor => {
            if !(common.is_bool() || common.is_integer()) {
                return bad(VALID_BITS);
            }
            (common, common)
        }
        LeftShift | RightShift => {
            if !(common.is_bool() || common.is_integer()) {
                return bad(VALID_BITS);
            }
            let d = if common.is_bool() {
                DType::Int8
            } else {
                common
            };
            (d, d)
        }
    };
    if device.is_cpu() {
        let item = out_dt.itemsize().max(loop_dt.itemsize());
        crate::layout::check_host_room(name, shape.iter().product(), item)?;
    }
    Ok(BinPlan {
        loop_dt,
        out_dt,
        shape,
        device,
    })
}

/// For a comparison of an integer array with a Rust integer outside the
/// array's dtype, the answer for every element (NumPy 2 compares the true
/// values, so `x_u8 < 300` is all true).
fn out_of_range_comparison(op: Bin, a: &Operand<'_>, b: &Operand<'_>, dt: DType) -> Option<bool> {
    let (scalar, scalar_left) = match (a, b) {
        (Operand::Array(_), Operand::Scalar(s)) => (*s, false),
        (Operand::Scalar(s), Operand::Array(_)) => (*s, true),
        _ => return None,
    };
    if !matches!(scalar, Scalar::Int(_) | Scalar::UInt(_)) || scalar.fits(dt) {
        return None;
    }
    // Out of range: above every value of `dt` or below every value.
    let high = match scalar {
        Scalar::Int(i) => i > 0,
        _ => true,
    };
    // `x OP s` with s beyond every x; flipped when the scalar is on the left.
    let less = high != scalar_left;
    Some(match op {
        Bin::Equal => false,
        Bin::NotEqual => true,
        Bin::Less | Bin::LessEqual => less,
        Bin::Greater | Bin::GreaterEqual => !less,
        _ => unreachable!("only comparisons"),
    })
}

/// Fails when a signed integer exponent array holds a negative value.
fn check_integer_exponent(b: &Array, shape: &[usize]) -> Result<()> {
    if !b.dtype().is_signed_integer() || shape.iter().product::<usize>() == 0 {
        return Ok(());
    }
    // Runs where `b` lives (a GPU reduction for GPU arrays).
    let negative = less(b, 0i64)?.any()?.item::<bool>()?;
    if negative {
        return Err(Error::InvalidArgument {
            op: "power",
            detail: "integers to negative integer powers are not allowed; convert the base to a float dtype first (x.astype(cp::f64))".into(),
        });
    }
    Ok(())
}

/// The loop for `op` over `a` and `b` (both of dtype `dt`) broadcast to `shape`.
fn binary_kernel(op: Bin, dt: DType, a: &Array, b: &Array, shape: &[usize]) -> Array {
    use Bin::*;
    match op {
        Add => crate::with_dtype!(dt, T => map2(a, b, shape, <T as Arith>::add)),
        Subtract => numbers!(dt, T => map2(a, b, shape, <T as Arith>::sub)),
        Multiply => crate::with_dtype!(dt, T => map2(a, b, shape, <T as Arith>::mul)),
        Divide => inexact!(dt, T => map2(a, b, shape, <T as Inexact>::div)),
        FloorDivide => reals!(dt, T => map2(a, b, shape, <T as DivMod>::floor_div)),
        Remainder => reals!(dt, T => map2(a, b, shape, <T as DivMod>::rem)),
        Power => {
            if dt.is_integer() {
                ints!(dt, T => map2(a, b, shape, <T as Integer>::pow))
            } else {
                inexact!(dt, T => map2(a, b, shape, <T as Inexact>::pow))
            }
        }
        Maximum => crate::with_dtype!(dt, T => map2(a, b, shape, <T as Arith>::maximum)),
        Minimum => crate::with_dtype!(dt, T => map2(a, b, shape, <T as Arith>::minimum)),
        Fmax => crate::with_dtype!(dt, T => map2(a, b, shape, <T as Arith>::fmax)),
        Fmin => crate::with_dtype!(dt, T => map2(a, b, shape, <T as Arith>::fmin)),
        Arctan2 => floats!(dt, T => map2(a, b, shape, <T as RealOnly>::atan2)),
        Equal => crate::with_dtype!(dt, T => map2(a, b, shape, |x: T, y: T| x == y)),
        NotEqual => crate::with_dtype!(dt, T => map2(a, b, shape, |x: T, y: T| x != y)),
        Less => crate::with_dtype!(dt, T => map2(a, b, shape, <T as Arith>::lt)),
        LessEqual => crate::with_dtype!(dt, T => map2(a, b, shape, <T as Arith>::le)),
        Greater => {
            crate::with_dtype!(dt, T => map2(a, b, shape, |x: T, y: T| <T as Arith>::lt(y, x)))
        }
        GreaterEqual => {
            crate::with_dtype!(dt, T => map2(a, b, shape, |x: T, y: T| <T as Arith>::le(y, x)))
        }
        LogicalAnd => map2(a, b, shape, |x: bool, y: bool| x & y),
        LogicalOr => map2(a, b, shape, |x: bool, y: bool| x | y),
        LogicalXor => map2(a, b, shape, |x: bool, y: bool| x ^ y),
        BitwiseAnd => bits!(dt, T => map2(a, b, shape, <T as Bits>::and)),
        BitwiseOr => bits!(dt, T => map2(a, b, shape, <T as Bits>::or)),
        BitwiseXor => bits!(dt, T => map2(a, b, shape, <T as Bits>::xor)),
        LeftShift => ints!(dt, T => map2(a, b, shape, <T as Integer>::shl)),
        RightShift => ints!(dt, T => map2(a, b, shape, <T as Integer>::shr)),
    }
}

/// Computes `op(a, b)` broadcast to `shape` (the plan's shape, or `out`'s).
fn binary_compute(
    op: Bin,
    plan: &BinPlan,
    a: &Operand<'_>,
    b: &Operand<'_>,
    shape: &[usize],
) -> Result<Array> {
    let name = op.name();
    if op.is_comparison() && plan.loop_dt.is_integer() {
        if let Some(v) = out_of_range_comparison(op, a, b, plan.loop_dt) {
            let n: usize = shape.iter().product();
            return Array::from_host(bool::into_data(vec![v; n]), shape, plan.device);
        }
    }
    if let Device::Cuda(ordinal) = plan.device {
        if op == Bin::Power && plan.loop_dt.is_signed_integer() {
            check_integer_exponent(&operand_as(b, name, plan.loop_dt, plan.device)?, shape)?;
        }
        if let Some(k) = gpu_binary_kernel(op, plan.loop_dt) {
            let out = crate::cuda::elementwise::new_array(name, ordinal, plan.out_dt, shape)?;
            crate::cuda::elementwise::run_map_inputs(
                &k,
                &[
                    gpu_input(a, name, plan.loop_dt)?,
                    gpu_input(b, name, plan.loop_dt)?,
                ],
                &out,
            )?;
            return Ok(out);
        }
        let cpu_plan = BinPlan {
            device: Device::Cpu,
            shape: plan.shape.clone(),
            ..*plan
        };
        return on_host(plan.device, &[a, b], |ops| {
            binary_compute(op, &cpu_plan, &ops[0], &ops[1], shape)
        });
    }
    let x = operand_as(a, name, plan.loop_dt, plan.device)?;
    let y = operand_as(b, name, plan.loop_dt, plan.device)?;
    if op == Bin::Power && plan.loop_dt.is_signed_integer() {
        check_integer_exponent(&y, shape)?;
    }
    let r = binary_kernel(op, plan.loop_dt, &x, &y, shape);
    debug_assert_eq!(r.dtype(), plan.out_dt);
    Ok(r)
}

/// The generated GPU kernel of a binary ufunc, when one exists for `dt`.
fn gpu_binary_kernel(
    op: Bin,
    dt: DType,
) -> Option<std::sync::Arc<crate::cuda::elementwise::MapKernel>> {
    crate::cuda::elementwise::ufunc_kernel(op.name(), 2, dt)
}

/// The generated GPU kernel of a unary ufunc, when one exists for `dt`.
fn gpu_unary_kernel(
    op: Un,
    dt: DType,
) -> Option<std::sync::Arc<crate::cuda::elementwise::MapKernel>> {
    if matches!(op, Un::Round(_)) {
        return None;
    }
    crate::cuda::elementwise::ufunc_kernel(op.name(), 1, dt)
}

/// An operand as a kernel input: arrays as they are (the kernel converts
/// them), weak scalars by value in the loop dtype (checked to fit, as NumPy).
fn gpu_input<'a>(
    o: &'a Operand<'_>,
    name: &'static str,
    loop_dt: DType,
) -> Result<crate::cuda::elementwise::MapInput<'a>> {
    use crate::cuda::elementwise::MapInput;
    match o {
        Operand::Array(a) => Ok(MapInput::Array(a)),
        Operand::Scalar(v) => {
            if loop_dt.is_integer() && !v.fits(loop_dt) {
                return Err(Error::InvalidArgument {
                    op: name,
                    detail: format!("the Rust integer {v} does not fit in {loop_dt}"),
                });
            }
            Ok(MapInput::Scalar(*v, loop_dt))
        }
    }
}

/// Whether `out` may be written while the inputs are read (it is one of them
/// exactly, or shares no memory with them).
fn gpu_out_is_safe(out: &Array, ops: &[&Operand<'_>]) -> bool {
    ops.iter().all(|o| match o {
        Operand::Array(a) => !a.shares_memory(out) || a.layout() == out.layout(),
        Operand::Scalar(_) => true,
    })
}

/// Runs a CPU implementation for operands on a GPU that have no GPU kernel:
/// copies them to the host, computes there and moves the result back.
fn on_host(
    device: Device,
    ops: &[&Operand<'_>],
    f: impl FnOnce(&[Operand<'static>]) -> Result<Array>,
) -> Result<Array> {
    // Counted under one name until the callers pass theirs (issue 18).
    crate::cuda::fallback::on_host("ufunc", device, || {
        let host: Vec<Operand<'static>> = ops
            .iter()
            .map(|o| match o {
                Operand::Array(a) => Ok(Operand::Array(std::borrow::Cow::Owned(
                    a.to_device(&Device::Cpu)?,
                ))),
                Operand::Scalar(s) => Ok(Operand::Scalar(*s)),
            })
            .collect::<Result<_>>()?;
        f(&host)
    })
}

fn binary(op: Bin, a: Operand<'_>, b: Operand<'_>) -> Result<Array> {
    let plan = plan_binary(op, &a, &b)?;
    binary_compute(op, &plan, &a, &b, &plan.shape)
}

fn binary_out(op: Bin, a: Operand<'_>, b: Operand<'_>, out: &mut Array) -> Result<()> {
    let plan = plan_binary(op, &a, &b)?;
    check_out(op.name(), &plan.shape, plan.out_dt, plan.device, out)?;
    if plan.device.is_cuda() && gpu_out_is_safe(out, &[&a, &b]) {
        if let Some(k) = gpu_binary_kernel(op, plan.loop_dt) {
            let name = op.name();
            if op == Bin::Power && plan.loop_dt.is_signed_integer() {
                check_integer_exponent(
                    &operand_as(&b, name, plan.loop_dt, plan.device)?,
                    out.shape(),
                )?;
            }
            let inputs = [
                gpu_input(&a, name, plan.loop_dt)?,
                gpu_input(&b, name, plan.loop_dt)?,
            ];
            return crate::cuda::elementwise::run_map_inputs(&k, &inputs, out);
        }
    }
    let shape = out.shape().to_vec();
    let r = binary_compute(op, &plan, &a, &b, &shape)?;
    store(&r, out)
}

macro_rules! binary_ufuncs {
    ($($name:ident, $name_out:ident, $op:ident, $doc:literal;)*) => {$(
        #[doc = $doc]
        pub fn $name<'a, 'b>(a: impl IntoOperand<'a>, b: impl IntoOperand<'b>) -> Result<Array> {
            binary(Bin::$op, a.into_operand(), b.into_operand())
        }

        #[doc = concat!("[`", stringify!($name), "`] written into `out` (inputs broadcast to its shape; the result is cast under the `same_kind` rule).")]
        pub fn $name_out<'a, 'b>(
            a: impl IntoOperand<'a>,
            b: impl IntoOperand<'b>,
            out: &mut Array,
        ) -> Result<()> {
            binary_out(Bin::$op, a.into_operand(), b.into_operand(), out)
        }
    )*};
}

binary_ufuncs! {
    add, add_out, Add,
        "`a + b` elementwise (`np.add`); integers wrap, bools give logical or.";
    subtract, subtract_out, Subtract,
        "`a - b` elementwise (`np.subtract`); integers wrap; bools are an error.";
    multiply, multiply_out, Multiply,
        "`a * b` elementwise (`np.multiply`); integers wrap, bools give logical and.";
    divide, divide_out, Divide,
        "True division `a / b` (`np.divide`); integers and bools give float64.";
    true_divide, true_divide_out, Divide,
        "True division `a / b`, the same as [`divide`] (`np.true_divide`).";
    floor_divide, floor_divide_out, FloorDivide,
        "`a // b` rounded toward negative infinity (`np.floor_divide`); integer division by 0 gives 0.";
    remainder, remainder_out, Remainder,
        "Remainder with the sign of the divisor, as Python's `%` (`np.remainder`, `np.mod`); integer remainder by 0 gives 0.";
    mod_, mod_out, Remainder,
        "The same as [`remainder`] (`np.mod`).";
    power, power_out, Power,
        "`a ** b` elementwise (`np.power`); integers wrap, and integer bases to negative integer powers are an error.";
    maximum, maximum_out, Maximum,
        "The larger of each pair (`np.maximum`); NaN propagates.";
    minimum, minimum_out, Minimum,
        "The smaller of each pair (`np.minimum`); NaN propagates.";
    fmax, fmax_out, Fmax,
        "The larger of each pair, ignoring NaN unless both are NaN (`np.fmax`).";
    fmin, fmin_out, Fmin,
        "The smaller of each pair, ignoring NaN unless both are NaN (`np.fmin`).";
    arctan2, arctan2_out, Arctan2,
        "The angle of the point `(b, a)`: `atan(a / b)` in the right quadrant (`np.arctan2`); real inputs only.";
    equal, equal_out, Equal,
        "`a == b` elementwise, as bool (`np.equal`).";
    not_equal, not_equal_out, NotEqual,
        "`a != b` elementwise, as bool (`np.not_equal`).";
    less, less_out, Less,
        "`a < b` elementwise, as bool (`np.less`); complex numbers compare lexicographically.";
    less_equal, less_equal_out, LessEqual,
        "`a <= b` elementwise, as bool (`np.less_equal`).";
    greater, greater_out, Greater,
        "`a > b` elementwise, as bool (`np.greater`).";
    greater_equal, greater_equal_out, GreaterEqual,
        "`a >= b` elementwise, as bool (`np.greater_equal`).";
    logical_and, logical_and_out, LogicalAnd,
        "Truth of `a` and `b` (non-zero values are true), as bool (`np.logical_and`).";
    logical_or, logical_or_out, LogicalOr,
        "Truth of `a` or `b`, as bool (`np.logical_or`).";
    logical_xor, logical_xor_out, LogicalXor,
        "Truth of exactly one of `a` and `b`, as bool (`np.logical_xor`).";
    bitwise_and, bitwise_and_out, BitwiseAnd,
        "Bitwise `a & b` of bools and integers (`np.bitwise_and`).";
    bitwise_or, bitwise_or_out, BitwiseOr,
        "Bitwise `a | b` of bools and integers (`np.bitwise_or`).";
    bitwise_xor, bitwise_xor_out, BitwiseXor,
        "Bitwise `a ^ b` of bools and integers (`np.bitwise_xor`).";
    left_shift, left_shift_out, LeftShift,
        "`a << b` of integers (`np.left_shift`); shifts of the bit width or more give 0.";
    right_shift, right_shift_out, RightShift,
        "`a >> b` of integers, arithmetic for signed types (`np.right_shift`); shifts of the bit width or more give 0 or -1.";
}

// ---------------------------------------------------------------------------
// Unary ufuncs
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Un {
    Negative,
    Positive,
    Absolute,
    Sign,
    Sqrt,
    Exp,
    Exp2,
    Log,
    Log2,
    Log10,
    Log1p,
    Expm1,
    Sin,
    Cos,
    Tan,
    Arcsin,
    Arccos,
    Arctan,
    Sinh,
    Cosh,
    Tanh,
    Arcsinh,
    Arccosh,
    Arctanh,
    Floor,
    Ceil,
    Trunc,
    Rint,
    Round(i32),
    LogicalNot,
    Invert,
    IsNan,
    IsInf,
    IsFinite,
    Square,
    Reciprocal,
}

impl Un {
    fn name(self) -> &'static str {
        use Un::*;
        match self {
            Negative => "negative",
            Positive => "positive",
            Absolute => "abs",
            Sign => "sign",
            Sqrt => "sqrt",
            Exp => "exp",
            Exp2 => "exp2",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Log1p => "log1p",
            Expm1 => "expm1",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Arcsin => "arcsin",
            Arccos => "arccos",
            Arctan => "arctan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Arcsinh => "arcsinh",
            Arccosh => "arccosh",
            Arctanh => "arctanh",
            Floor => "floor",
            Ceil => "ceil",
            Trunc => "trunc",
            Rint => "rint",
            Round(_) => "round",
            LogicalNot => "logical_not",
            Invert => "bitwise_not",
            IsNan => "isnan",
            IsInf => "isinf",
            IsFinite => "isfinite",
            Square => "square",
            Reciprocal => "reciprocal",
        }
    }

    /// Whether this is a float function that gives integers a float type.
    fn is_float_math(self) -> bool {
        use Un::*;
        matches!(
            self,
            Sqrt | Exp
                | Exp2
                | Log
                | Log2
                | Log10
                | Log1p
                | Expm1
                | Sin
                | Cos
                | Tan
                | Arcsin
                | Arccos
                | Arctan
                | Sinh
                | Cosh
                | Tanh
                | Arcsinh
                | Arccosh
                | Arctanh
                | Rint
        )
    }
}

/// The loop dtype and result dtype of `op` for input dtype `dt`.
fn unary_types(op: Un, a: &Operand<'_>, dt: DType) -> Result<(DType, DType)> {
    use Un::*;
    let name = op.name();
    if op.is_float_math() {
        let d = dt.to_inexact();
        return Ok((d, d));
    }
    let bool_error = |detail: &str| {
        Err(Error::DType {
            op: name,
            detail: detail.to_string(),
        })
    };
    Ok(match op {
        Negative if dt.is_bool() => {
            return bool_error("boolean negative (the `-` operator) is not supported; use logical_not or bitwise_not (the `!` operator) instead")
        }
        Positive | Sign if dt.is_bool() => {
            return Err(unsupported(name, &[a], dt, VALID_NUMBERS))
        }
        Negative | Positive | Sign => (dt, dt),
        Absolute => (dt, dt.real_dtype()),
        Floor | Ceil | Trunc if dt.is_complex() => {
            return Err(unsupported(name, &[a], dt, VALID_REAL))
        }
        Floor | Ceil | Trunc => (dt, dt),
        Round(_) if dt.is_bool() => (DType::Float16, DType::Float16),
        Round(_) => (dt, dt),
        LogicalNot => (DType::Bool, DType::Bool),
        Invert if !(dt.is_bool() || dt.is_integer()) => {
            return Err(unsupported(name, &[a], dt, VALID_BITS))
        }
        Invert => (dt, dt),
        IsNan | IsInf | IsFinite => (dt, DType::Bool),
        Square | Reciprocal if dt.is_bool() => (DType::Int8, DType::Int8),
        Square | Reciprocal => (dt, dt),
        _ => unreachable!("float math is handled above"),
    })
}

/// The loop for `op` over `x` (of dtype `dt`).
fn unary_kernel(op: Un, dt: DType, x: &Array) -> Array {
    use Un::*;
    macro_rules! math {
        ($f:ident) => {
            inexact!(dt, T => map1(x, <T as Inexact>::$f))
        };
    }
    match op {
        Negative => numbers!(dt, T => map1(x, <T as Arith>::neg)),
        Positive => crate::with_dtype!(dt, T => map1(x, |v: T| v)),
        Absolute => crate::with_dtype!(dt, T => map1(x, <T as Abs>::abs)),
        Sign => numbers!(dt, T => map1(x, <T as Arith>::sign)),
        Sqrt => math!(sqrt),
        Exp => math!(exp),
        Exp2 => math!(exp2),
        Log => math!(ln),
        Log2 => math!(log2),
        Log10 => math!(log10),
        Log1p => math!(log1p),
        Expm1 => math!(expm1),
        Sin => math!(sin),
        Cos => math!(cos),
        Tan => math!(tan),
        Arcsin => math!(asin),
        Arccos => math!(acos),
        Arctan => math!(atan),
        Sinh => math!(sinh),
        Cosh => math!(cosh),
        Tanh => math!(tanh),
        Arcsinh => math!(asinh),
        Arccosh => math!(acosh),
        Arctanh => math!(atanh),
        Rint => math!(rint),
        Floor | Ceil | Trunc if !dt.is_float() => {
            crate::with_dtype!(dt, T => map1(x, |v: T| v))
        }
        Floor => floats!(dt, T => map1(x, <T as RealOnly>::floor)),
        Ceil => floats!(dt, T => map1(x, <T as RealOnly>::ceil)),
        Trunc => floats!(dt, T => map1(x, <T as RealOnly>::trunc)),
        Round(d) => {
            if dt.is_inexact() {
                if d == 0 {
                    math!(rint)
                } else {
                    inexact!(dt, T => map1(x, |v: T| v.round_dec(d)))
                }
            } else if d >= 0 {
                crate::with_dtype!(dt, T => map1(x, |v: T| v))
            } else {
                ints!(dt, T => map1(x, |v: T| v.round_neg(d)))
            }
        }
        LogicalNot => map1(x, |v: bool| !v),
        Invert => bits!(dt, T => map1(x, <T as Bits>::not)),
        IsNan => crate::with_dtype!(dt, T => map1(x, <T as Arith>::is_nan)),
        IsInf => crate::with_dtype!(dt, T => map1(x, <T as Arith>::is_inf)),
        IsFinite => crate::with_dtype!(dt, T => map1(x, <T as Arith>::is_finite)),
        Square => numbers!(dt, T => map1(x, |v: T| <T as Arith>::mul(v, v))),
        Reciprocal => {
            if dt.is_integer() {
                ints!(dt, T => map1(x, <T as Integer>::recip))
            } else {
                inexact!(dt, T => map1(x, <T as Inexact>::recip))
            }
        }
    }
}

/// What a unary call resolved to.
struct UnPlan {
    loop_dt: DType,
    out_dt: DType,
    device: Device,
}

fn plan_unary(op: Un, a: &Operand<'_>) -> Result<UnPlan> {
    let name = op.name();
    let device = common_device(name, &[a])?;
    device.check_available(name)?;
    let dt = result_type(&[a.type_operand()])?;
    let (loop_dt, out_dt) = unary_types(op, a, dt)?;
    Ok(UnPlan {
        loop_dt,
        out_dt,
        device,
    })
}

fn unary_compute(op: Un, plan: &UnPlan, a: &Operand<'_>) -> Result<Array> {
    if let Device::Cuda(ordinal) = plan.device {
        if let Some(k) = gpu_unary_kernel(op, plan.loop_dt) {
            let shape = a.shape().to_vec();
            let out = crate::cuda::elementwise::new_array(op.name(), ordinal, plan.out_dt, &shape)?;
            let input = gpu_input(a, op.name(), plan.loop_dt)?;
            crate::cuda::elementwise::run_map_inputs(&k, &[input], &out)?;
            return Ok(out);
        }
        let cpu_plan = UnPlan {
            device: Device::Cpu,
            ..*plan
        };
        return on_host(plan.device, &[a], |ops| {
            unary_compute(op, &cpu_plan, &ops[0])
        });
    }
    let x = operand_as(a, op.name(), plan.loop_dt, plan.device)?;
    let r = unary_kernel(op, plan.loop_dt, &x);
    debug_assert_eq!(r.dtype(), plan.out_dt);
    Ok(r)
}

fn unary(op: Un, a: Operand<'_>) -> Result<Array> {
    let plan = plan_unary(op, &a)?;
    unary_compute(op, &plan, &a)
}

fn unary_out(op: Un, a: Operand<'_>, out: &mut Array) -> Result<()> {
    let plan = plan_unary(op, &a)?;
    check_out(op.name(), a.shape(), plan.out_dt, plan.device, out)?;
    if plan.device.is_cuda() && gpu_out_is_safe(out, &[&a]) {
        if let Some(k) = gpu_unary_kernel(op, plan.loop_dt) {
            let input = gpu_input(&a, op.name(), plan.loop_dt)?;
            return crate::cuda::elementwise::run_map_inputs(&k, &[input], out);
        }
    }
    let r = unary_compute(op, &plan, &a)?;
    let r = if r.shape() == out.shape() {
        r
    } else {
        r.broadcast_to(out.shape())?
    };
    store(&r, out)
}

macro_rules! unary_ufuncs {
    ($($name:ident, $name_out:ident, $op:ident, $doc:literal;)*) => {$(
        #[doc = $doc]
        pub fn $name<'a>(a: impl IntoOperand<'a>) -> Result<Array> {
            unary(Un::$op, a.into_operand())
        }

        #[doc = concat!("[`", stringify!($name), "`] written into `out` (the input broadcasts to its shape; the result is cast under the `same_kind` rule).")]
        pub fn $name_out<'a>(a: impl IntoOperand<'a>, out: &mut Array) -> Result<()> {
            unary_out(Un::$op, a.into_operand(), out)
        }
    )*};
}

unary_ufuncs! {
    negative, negative_out, Negative,
        "`-a` elementwise (`np.negative`); integers wrap (unsigned too); bools are an error.";
    positive, positive_out, Positive,
        "A copy of `a` (`np.positive`); bools are an error.";
    abs, abs_out, Absolute,
        "The absolute value (`np.abs`); complex input gives its real dtype, `abs(int8 -128)` wraps to -128.";
    absolute, absolute_out, Absolute,
        "The same as [`abs`] (`np.absolute`).";
    sign, sign_out, Sign,
        "-1, 0 or 1 by the sign (`np.sign`); NaN stays NaN, complex gives `z / |z|`.";
    sqrt, sqrt_out, Sqrt,
        "The square root (`np.sqrt`); negative reals give NaN.";
    exp, exp_out, Exp,
        "`e ** a` (`np.exp`).";
    exp2, exp2_out, Exp2,
        "`2 ** a` (`np.exp2`).";
    log, log_out, Log,
        "The natural logarithm (`np.log`).";
    log2, log2_out, Log2,
        "The base-2 logarithm (`np.log2`).";
    log10, log10_out, Log10,
        "The base-10 logarithm (`np.log10`).";
    log1p, log1p_out, Log1p,
        "`log(1 + a)`, accurate for small `a` (`np.log1p`).";
    expm1, expm1_out, Expm1,
        "`exp(a) - 1`, accurate for small `a` (`np.expm1`).";
    sin, sin_out, Sin,
        "The sine, in radians (`np.sin`).";
    cos, cos_out, Cos,
        "The cosine, in radians (`np.cos`).";
    tan, tan_out, Tan,
        "The tangent, in radians (`np.tan`).";
    arcsin, arcsin_out, Arcsin,
        "The inverse sine (`np.arcsin`).";
    arccos, arccos_out, Arccos,
        "The inverse cosine (`np.arccos`).";
    arctan, arctan_out, Arctan,
        "The inverse tangent (`np.arctan`).";
    sinh, sinh_out, Sinh,
        "The hyperbolic sine (`np.sinh`).";
    cosh, cosh_out, Cosh,
        "The hyperbolic cosine (`np.cosh`).";
    tanh, tanh_out, Tanh,
        "The hyperbolic tangent (`np.tanh`).";
    arcsinh, arcsinh_out, Arcsinh,
        "The inverse hyperbolic sine (`np.arcsinh`).";
    arccosh, arccosh_out, Arccosh,
        "The inverse hyperbolic cosine (`np.arccosh`).";
    arctanh, arctanh_out, Arctanh,
        "The inverse hyperbolic tangent (`np.arctanh`).";
    floor, floor_out, Floor,
        "The largest integer not above `a` (`np.floor`); integers and bools are returned unchanged.";
    ceil, ceil_out, Ceil,
        "The smallest integer not below `a` (`np.ceil`); integers and bools are returned unchanged.";
    trunc, trunc_out, Trunc,
        "`a` rounded toward zero (`np.trunc`); integers and bools are returned unchanged.";
    rint, rint_out, Rint,
        "`a` rounded to the nearest integer, half to even (`np.rint`); integers give floats.";
    logical_not, logical_not_out, LogicalNot,
        "Truth of `not a` (zero values are false), as bool (`np.logical_not`).";
    bitwise_not, bitwise_not_out, Invert,
        "Bitwise not of integers, logical not of bools (`np.bitwise_not`).";
    invert, invert_out, Invert,
        "The same as [`bitwise_not`] (`np.invert`).";
    isnan, isnan_out, IsNan,
        "Whether each element is NaN (`np.isnan`); complex: either part.";
    isinf, isinf_out, IsInf,
        "Whether each element is infinite (`np.isinf`); complex: either part.";
    isfinite, isfinite_out, IsFinite,
        "Whether each element is finite (`np.isfinite`); complex: both parts.";
    square, square_out, Square,
        "`a * a` (`np.square`); integers wrap, bools give int8.";
    reciprocal, reciprocal_out, Reciprocal,
        "`1 / a` (`np.reciprocal`); for integers this is integer division, and 0 gives 0.";
}

/// `a` rounded to the nearest integer, half to even (`np.round`); integers
/// are returned unchanged and bools give float16, as in NumPy.
pub fn round<'a>(a: impl IntoOperand<'a>) -> Result<Array> {
    unary(Un::Round(0), a.into_operand())
}

/// [`round`] written into `out`.
pub fn round_out<'a>(a: impl IntoOperand<'a>, out: &mut Array) -> Result<()> {
    unary_out(Un::Round(0), a.into_operand(), out)
}

/// `a` rounded to `decimals` decimal places, half to even (`np.round(a,
/// decimals)`); negative `decimals` round to tens, hundreds, ... (integers too).
pub fn round_decimals<'a>(a: impl IntoOperand<'a>, decimals: i32) -> Result<Array> {
    unary(Un::Round(decimals), a.into_operand())
}

/// [`round_decimals`] written into `out`.
pub fn round_decimals_out<'a>(
    a: impl IntoOperand<'a>,
    decimals: i32,
    out: &mut Array,
) -> Result<()> {
    unary_out(Un::Round(decimals), a.into_operand(), out)
}

// ---------------------------------------------------------------------------
// clip
// ---------------------------------------------------------------------------

/// The range of an integer dtype.
fn int_limits(dtype: DType) -> (i128, i128) {
    let bits = dtype.itemsize() as u32 * 8;
    if dtype.is_signed_integer() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// A Rust integer outside an integer `dtype` clamped to its range (NumPy's
/// `clip` accepts out-of-range bounds).
fn saturate(op: &Operand<'_>, dtype: DType) -> Option<Scalar> {
    let v: i128 = match op {
        Operand::Scalar(Scalar::Int(i)) => *i as i128,
        Operand::Scalar(Scalar::UInt(u)) => *u as i128,
        _ => return None,
    };
    if !dtype.is_integer() {
        return None;
    }
    let (lo, hi) = int_limits(dtype);
    if (lo..=hi).contains(&v) {
        return None;
    }
    let v = v.clamp(lo, hi);
    Some(if v < 0 {
        Scalar::Int(v as i64)
    } else {
        Scalar::UInt(v as u64)
    })
}

struct ClipPlan {
    dt: DType,
    shape: Vec<usize>,
    device: Device,
}

fn plan_clip(a: &Operand<'_>, lo: &Operand<'_>, hi: &Operand<'_>) -> Result<ClipPlan> {
    let name = "clip";
    let device = common_device(name, &[a, lo, hi])?;
    device.check_available(name)?;
    let shape = broadcast_shapes(name, &[a.shape(), lo.shape(), hi.shape()])?;
    let ops: Vec<TypeOperand> = [a, lo, hi].iter().map(|o| o.type_operand()).collect();
    let dt = result_type(&ops)?;
    if device.is_cpu() {
        crate::layout::check_host_room(name, shape.iter().product(), dt.itemsize())?;
    }
    Ok(ClipPlan { dt, shape, device })
}

fn clip_compute(
    plan: &ClipPlan,
    a: &Operand<'_>,
    lo: &Operand<'_>,
    hi: &Operand<'_>,
    shape: &[usize],
) -> Result<Array> {
    let name = "clip";
    if plan.device.is_cuda() {
        let cpu_plan = ClipPlan {
            device: Device::Cpu,
            shape: plan.shape.clone(),
            ..*plan
        };
        return on_host(plan.device, &[a, lo, hi], |ops| {
            clip_compute(&cpu_plan, &ops[0], &ops[1], &ops[2], shape)
        });
    }
    let conv = |o: &Operand<'_>| match saturate(o, plan.dt) {
        Some(s) => Operand::Scalar(s).to_array(name, plan.dt, plan.device),
        None => operand_as(o, name, plan.dt, plan.device),
    };
    let (x, l, h) = (conv(a)?, conv(lo)?, conv(hi)?);
    Ok(crate::with_dtype!(plan.dt, T => map3([&x, &l, &h], shape,
        |v: T, l: T, h: T| <T as Arith>::minimum(<T as Arith>::maximum(v, l), h))))
}

/// `a` limited to `[min, max]` elementwise (`np.clip`): `minimum(maximum(a,
/// min), max)`, so NaN anywhere gives NaN and `min > max` gives `max`. The
/// bounds are operands and broadcast; a Rust integer bound outside an integer
/// dtype is clamped to its range.
pub fn clip<'a, 'b, 'c>(
    a: impl IntoOperand<'a>,
    min: impl IntoOperand<'b>,
    max: impl IntoOperand<'c>,
) -> Result<Array> {
    let (a, lo, hi) = (a.into_operand(), min.into_operand(), max.into_operand());
    let plan = plan_clip(&a, &lo, &hi)?;
    clip_compute(&plan, &a, &lo, &hi, &plan.shape)
}

/// [`clip`] written into `out`.
pub fn clip_out<'a, 'b, 'c>(
    a: impl IntoOperand<'a>,
    min: impl IntoOperand<'b>,
    max: impl IntoOperand<'c>,
    out: &mut Array,
) -> Result<()> {
    let (a, lo, hi) = (a.into_operand(), min.into_operand(), max.into_operand());
    let plan = plan_clip(&a, &lo, &hi)?;
    check_out("clip", &plan.shape, plan.dt, plan.device, out)?;
    let shape = out.shape().to_vec();
    let r = clip_compute(&plan, &a, &lo, &hi, &shape)?;
    store(&r, out)
}

// ---------------------------------------------------------------------------
// Methods
// ---------------------------------------------------------------------------

impl Array {
    /// The absolute value ([`abs`]).
    pub fn abs(&self) -> Result<Array> {
        abs(self)
    }
    /// The square root ([`sqrt`]).
    pub fn sqrt(&self) -> Result<Array> {
        sqrt(self)
    }
    /// `e ** self` ([`exp`]).
    pub fn exp(&self) -> Result<Array> {
        exp(self)
    }
    /// The natural logarithm ([`log`]).
    pub fn log(&self) -> Result<Array> {
        log(self)
    }
    /// The sine ([`sin`]).
    pub fn sin(&self) -> Result<Array> {
        sin(self)
    }
    /// The cosine ([`cos`]).
    pub fn cos(&self) -> Result<Array> {
        cos(self)
    }
    /// The tangent ([`tan`]).
    pub fn tan(&self) -> Result<Array> {
        tan(self)
    }
    /// The hyperbolic tangent ([`tanh`]).
    pub fn tanh(&self) -> Result<Array> {
        tanh(self)
    }
    /// Rounded down ([`floor`]).
    pub fn floor(&self) -> Result<Array> {
        floor(self)
    }
    /// Rounded up ([`ceil`]).
    pub fn ceil(&self) -> Result<Array> {
        ceil(self)
    }
    /// Rounded half to even ([`round`]).
    pub fn round(&self) -> Result<Array> {
        round(self)
    }
    /// `self * self` ([`square`]).
    pub fn square(&self) -> Result<Array> {
        square(self)
    }
    /// `self ** exponent` ([`power`]).
    pub fn pow<'b>(&self, exponent: impl IntoOperand<'b>) -> Result<Array> {
        power(self, exponent)
    }
    /// Limited to `[min, max]` ([`clip`]).
    pub fn clip<'b, 'c>(
        &self,
        min: impl IntoOperand<'b>,
        max: impl IntoOperand<'c>,
    ) -> Result<Array> {
        clip(self, min, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr<T: Element>(v: Vec<T>, shape: &[usize]) -> Array {
        Array::from_cpu_data(T::into_data(v), shape)
    }

    /// A view of `a` with its last axis reversed (negative stride).
    fn reversed_last(a: &Array) -> Array {
        let l = a.layout();
        let nd = l.ndim();
        let mut strides = l.strides().to_vec();
        let last = l.shape()[nd - 1];
        let offset = l.offset() as isize + (last as isize - 1) * strides[nd - 1];
        strides[nd - 1] = -strides[nd - 1];
        a.with_layout(Layout::from_parts(
            l.shape().to_vec(),
            strides,
            offset as usize,
        ))
    }

    // NumPy 2.4: a = np.arange(6, dtype=np.int8).reshape(2, 3);
    // a[:, ::-1] + np.array([10, 20, 30], np.int8) == [[12, 21, 30], [15, 24, 33]]
    #[test]
    fn negative_strides_in_binary_loops() {
        let a = arr((0i8..6).collect(), &[2, 3]);
        let r = reversed_last(&a);
        assert_eq!(r.to_vec::<i8>().unwrap(), vec![2, 1, 0, 5, 4, 3]);
        let b = arr(vec![10i8, 20, 30], &[3]);
        let s = add(&r, &b).unwrap();
        assert_eq!(s.to_vec::<i8>().unwrap(), vec![12, 21, 30, 15, 24, 33]);
        // Both operands reversed, and a reversed view of the same buffer.
        let s = subtract(&r, &a).unwrap();
        // NumPy 2.4: a[:, ::-1] - a == [[2, 0, -2], [2, 0, -2]]
        assert_eq!(s.to_vec::<i8>().unwrap(), vec![2, 0, -2, 2, 0, -2]);
        // Unary over a reversed, transposed view.
        let t = reversed_last(&a).t();
        // NumPy 2.4: np.negative(a[:, ::-1].T).ravel() == [-2, -5, -1, -4, 0, -3]
        assert_eq!(
            negative(&t).unwrap().to_vec::<i8>().unwrap(),
            vec![-2, -5, -1, -4, 0, -3]
        );
    }

    // NumPy 2.4: x = np.array([1., 2., 3., 4.]); np.multiply(x[::-1], 2, out=x[::-1])
    // leaves x == [2., 4., 6., 8.]
    #[test]
    fn out_through_a_reversed_view_aliasing_the_input() {
        let x = arr(vec![1.0f64, 2.0, 3.0, 4.0], &[4]);
        let mut rv = reversed_last(&x);
        let src = rv.clone();
        multiply_out(&src, 2.0, &mut rv).unwrap();
        assert_eq!(x.to_vec::<f64>().unwrap(), vec![2.0, 4.0, 6.0, 8.0]);
        // NumPy 2.4: x[::-1] + x (x = [2., 4., 6., 8.]) == [10., 10., 10., 10.]
        let y = add(reversed_last(&x), &x).unwrap();
        assert_eq!(y.to_vec::<f64>().unwrap(), vec![10.0; 4]);
        // NumPy 2.4: np.clip(x[::-1], 3, 7) == [7., 6., 4., 3.]
        let c = clip(reversed_last(&x), 3.0, 7.0).unwrap();
        assert_eq!(c.to_vec::<f64>().unwrap(), vec![7.0, 6.0, 4.0, 3.0]);
    }

    // NumPy 2.4: np.divmod([-5., 5., 1., -2.], [3., -3., 0.3, np.inf])
    // -> ([-2., -2., 3., -1.], [1., -1., 0.10000000000000003, inf])
    #[test]
    fn float_divmod_matches_numpy() {
        assert_eq!(f_divmod(-5.0f64, 3.0), (-2.0, 1.0));
        assert_eq!(f_divmod(5.0f64, -3.0), (-2.0, -1.0));
        assert_eq!(f_divmod(1.0f64, 0.3), (3.0, 0.10000000000000003));
        assert_eq!(f_divmod(-2.0f64, f64::INFINITY), (-1.0, f64::INFINITY));
    }

    #[test]
    fn round_int_neg_is_half_even() {
        // NumPy 2.4: np.round(np.array([125, 135, -125, 15, 25]), -1) == [120, 140, -120, 20, 20]
        let got: Vec<i128> = [125, 135, -125, 15, 25]
            .iter()
            .map(|&v| round_int_neg(v, -1))
            .collect();
        assert_eq!(got, vec![120, 140, -120, 20, 20]);
        assert_eq!(round_int_neg(5, -30), 0);
    }
}
