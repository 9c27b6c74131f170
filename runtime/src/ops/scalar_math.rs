//! Element math of the built-in ufuncs: the CPU halves of the ufunc table's
//! rows, with NumPy's semantics (integer division by zero gives 0, floor
//! division and remainder follow Python's signs, maximum/minimum propagate
//! NaN, half floats compute in float32 and round once, complex functions
//! follow C99's branch cuts).

use half::{bf16, f16};
use num_complex::Complex;
use num_traits::{Float, FloatConst};

use crate::core::element::Element;

/// The float type that real math runs in: f32 (also for float16 and
/// bfloat16) or f64.
pub(crate) trait Compute:
    Float + FloatConst + Send + Sync + std::fmt::Debug + 'static
{
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
pub(crate) trait RealFloat: Element {
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
pub(crate) trait Arith: Element {
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
pub(crate) trait Abs: Element {
    type R: Element;
    fn abs(self) -> Self::R;
}

/// Floor division and Python-style remainder (integers and real floats).
pub(crate) trait DivMod: Element {
    fn floor_div(self, o: Self) -> Self;
    fn rem(self, o: Self) -> Self;
}

/// Integer-only operations.
pub(crate) trait Integer: Element {
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
pub(crate) trait Bits: Element {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
}

/// Math defined on floats and complex numbers.
pub(crate) trait Inexact: Element {
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
    /// `sin(pi x) / (pi x)`, 1 at 0 (NumPy's `sinc`).
    fn sinc(self) -> Self;
}

/// Math defined only on real floats.
pub(crate) trait RealOnly: Element {
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
pub(crate) fn wrapping_pow<T: Copy + From<bool>>(
    mut base: T,
    mut e: u64,
    mul: impl Fn(T, T) -> T,
) -> T {
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
pub(crate) fn round_int_neg(x: i128, decimals: i32) -> i128 {
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
pub(crate) fn f_takes_first_max<C: Compute>(a: C, b: C) -> bool {
    a.is_nan() || a >= b
}
#[inline]
pub(crate) fn f_takes_first_min<C: Compute>(a: C, b: C) -> bool {
    a.is_nan() || a <= b
}
#[inline]
pub(crate) fn f_takes_first_fmax<C: Compute>(a: C, b: C) -> bool {
    a >= b || b.is_nan()
}
#[inline]
pub(crate) fn f_takes_first_fmin<C: Compute>(a: C, b: C) -> bool {
    a <= b || b.is_nan()
}
#[inline]
pub(crate) fn f_sign<C: Compute>(x: C) -> C {
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
pub(crate) fn f_divmod<C: Compute>(a: C, b: C) -> (C, C) {
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
pub(crate) fn f_round_dec<C: Compute>(x: C, decimals: i32) -> C {
    // |decimals| as f64: `-i32::MIN` overflows, and beyond ~308 the factor is
    // inf and the result NaN, as in NumPy.
    let f = C::lit(round_factor(decimals));
    if decimals >= 0 {
        (x * f).rint() / f
    } else {
        (x / f).rint() * f
    }
}

/// `10^|decimals|` of `round(x, decimals)` (inf past f64's range); the GPU
/// kernel is passed the same value.
pub(crate) fn round_factor(decimals: i32) -> f64 {
    10f64.powf(f64::from(decimals.unsigned_abs()))
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
            #[inline]
            fn sinc(self) -> $t { Self::down(f_sinc(self.up())) }
        }
    )*};
}
impl_float!(f16, bf16, f32, f64);

// Complex helpers, generic over the part type.

/// NumPy's lexicographic `a < b` for complex numbers.
#[inline]
pub(crate) fn c_lt<C: Compute>(a: Complex<C>, b: Complex<C>) -> bool {
    a.re < b.re || (a.re == b.re && a.im < b.im)
}
/// NumPy's lexicographic `a <= b` for complex numbers.
#[inline]
pub(crate) fn c_le<C: Compute>(a: Complex<C>, b: Complex<C>) -> bool {
    a.re < b.re || (a.re == b.re && a.im <= b.im)
}
#[inline]
pub(crate) fn c_is_nan<C: Compute>(a: Complex<C>) -> bool {
    a.re.is_nan() || a.im.is_nan()
}

/// Complex division by Smith's method, as NumPy (no overflow for large
/// divisors; division by zero gives infinities or NaN like NumPy).
#[inline]
pub(crate) fn c_div<C: Compute>(a: Complex<C>, b: Complex<C>) -> Complex<C> {
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
pub(crate) fn c_recip<C: Compute>(a: Complex<C>) -> Complex<C> {
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
pub(crate) fn c_pow<C: Compute>(a: Complex<C>, b: Complex<C>) -> Complex<C> {
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
pub(crate) fn c_sign<C: Compute>(a: Complex<C>) -> Complex<C> {
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
pub(crate) fn c_log1p<C: Compute>(a: Complex<C>) -> Complex<C> {
    let x = a.re + C::one();
    Complex::new(x.hypot(a.im).ln(), a.im.atan2(x))
}

/// NumPy's complex `expm1`.
pub(crate) fn c_expm1<C: Compute>(a: Complex<C>) -> Complex<C> {
    let h = (a.im / C::lit(2.0)).sin();
    Complex::new(
        a.re.exp_m1() * a.im.cos() - C::lit(2.0) * h * h,
        a.re.exp() * a.im.sin(),
    )
}

/// Complex square root with C99's signed-zero branch cut (`sqrt(-4 - 0i)` is
/// `-2i`), accurate and without intermediate overflow.
pub(crate) fn c_sqrt<C: Compute>(z: Complex<C>) -> Complex<C> {
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
pub(crate) fn c_asin<C: Compute>(z: Complex<C>) -> Complex<C> {
    let s1m = c_sqrt(Complex::new(C::one() - z.re, -z.im));
    let s1p = c_sqrt(Complex::new(C::one() + z.re, z.im));
    Complex::new(z.re.atan2((s1m * s1p).re), (s1m.conj() * s1p).im.asinh())
}

/// Complex arccosine (Kahan's formula; C99 branch cuts, as NumPy).
pub(crate) fn c_acos<C: Compute>(z: Complex<C>) -> Complex<C> {
    let s1m = c_sqrt(Complex::new(C::one() - z.re, -z.im));
    let s1p = c_sqrt(Complex::new(C::one() + z.re, z.im));
    Complex::new(
        C::lit(2.0) * s1m.re.atan2(s1p.re),
        (s1p.conj() * s1m).im.asinh(),
    )
}

/// Complex inverse hyperbolic cosine (Kahan's formula).
pub(crate) fn c_acosh<C: Compute>(z: Complex<C>) -> Complex<C> {
    let sm = c_sqrt(Complex::new(z.re - C::one(), z.im));
    let sp = c_sqrt(Complex::new(z.re + C::one(), z.im));
    Complex::new(
        (sm.conj() * sp).re.asinh(),
        C::lit(2.0) * sm.im.atan2(sp.re),
    )
}

/// Complex inverse hyperbolic tangent (Kahan's formula; the cut's sign
/// follows the sign of the imaginary zero, as C99).
pub(crate) fn c_atanh<C: Compute>(z: Complex<C>) -> Complex<C> {
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
pub(crate) fn c_tanh<C: Compute>(z: Complex<C>) -> Complex<C> {
    let (x, y) = (z.re, z.im);
    if x.abs() >= C::lit(22.0) {
        let e = (C::lit(-2.0) * x.abs()).exp();
        return Complex::new(C::one().copysign(x), C::lit(4.0) * y.sin() * y.cos() * e);
    }
    Complex::tanh(z)
}

/// `-i f(i z)`: the circular function from the hyperbolic one.
#[inline]
pub(crate) fn c_rot<C: Compute>(z: Complex<C>, f: impl Fn(Complex<C>) -> Complex<C>) -> Complex<C> {
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
            #[inline]
            fn sinc(self) -> Self { c_sinc(self) }
        }
    )*};
}
impl_complex!(f32, f64);

/// NumPy's `sinc`: `sin(y) / y` for `y = pi x`, and 1 where `y` is 0.
#[inline]
pub(crate) fn f_sinc<C: Compute>(x: C) -> C {
    let y = C::PI() * x;
    if y == C::zero() {
        C::one()
    } else {
        y.sin() / y
    }
}

/// [`f_sinc`] of a complex number.
pub(crate) fn c_sinc<C: Compute>(z: Complex<C>) -> Complex<C> {
    let y = z * C::PI();
    if y.re == C::zero() && y.im == C::zero() {
        Complex::new(C::one(), C::zero())
    } else {
        c_div(Complex::sin(y), y)
    }
}

/// Real float functions NumPy has beside the classic ones (computed in
/// float32 for the half types, rounded once).
pub(crate) trait FloatExtra: Element {
    fn cbrt(self) -> Self;
    fn deg2rad(self) -> Self;
    fn rad2deg(self) -> Self;
    fn hypot(self, o: Self) -> Self;
    fn logaddexp(self, o: Self) -> Self;
    fn logaddexp2(self, o: Self) -> Self;
    fn copysign(self, o: Self) -> Self;
    /// 0 below zero, `h0` at zero, 1 above, NaN for NaN (`np.heaviside`).
    fn heaviside(self, h0: Self) -> Self;
    /// `arctan2(0, x)`: 0 or pi (`np.angle` of a real number).
    fn angle(self) -> Self;
    /// NaN to 0, infinities to the largest finite values of this type.
    fn nan_to_num(self) -> Self;
}

/// NumPy's `logaddexp`: `log(exp(x) + exp(y))` without overflow.
#[inline]
fn f_logaddexp<C: Compute>(x: C, y: C) -> C {
    if x == y {
        // Also the infinities of one sign.
        return x + C::LN_2();
    }
    let t = x - y;
    if t > C::zero() {
        x + (-t).exp().ln_1p()
    } else if t <= C::zero() {
        y + t.exp().ln_1p()
    } else {
        t
    }
}

/// NumPy's `logaddexp2`: `log2(2**x + 2**y)` without overflow.
#[inline]
fn f_logaddexp2<C: Compute>(x: C, y: C) -> C {
    if x == y {
        return x + C::one();
    }
    let t = x - y;
    if t > C::zero() {
        x + (-t).exp2().ln_1p() * C::LOG2_E()
    } else if t <= C::zero() {
        y + t.exp2().ln_1p() * C::LOG2_E()
    } else {
        t
    }
}

#[inline]
fn f_heaviside<C: Compute>(x: C, h0: C) -> C {
    if x < C::zero() {
        C::zero()
    } else if x == C::zero() {
        h0
    } else if x > C::zero() {
        C::one()
    } else {
        x
    }
}

macro_rules! impl_float_extra {
    ($($t:ty),*) => {$(
        impl FloatExtra for $t {
            #[inline]
            fn cbrt(self) -> $t { Self::down(self.up().cbrt()) }
            #[inline]
            fn deg2rad(self) -> $t { Self::down(self.up() * <$t as RealFloat>::C::lit(std::f64::consts::PI / 180.0)) }
            #[inline]
            fn rad2deg(self) -> $t { Self::down(self.up() * <$t as RealFloat>::C::lit(180.0 / std::f64::consts::PI)) }
            #[inline]
            fn hypot(self, o: $t) -> $t { Self::down(self.up().hypot(o.up())) }
            #[inline]
            fn logaddexp(self, o: $t) -> $t { Self::down(f_logaddexp(self.up(), o.up())) }
            #[inline]
            fn logaddexp2(self, o: $t) -> $t { Self::down(f_logaddexp2(self.up(), o.up())) }
            #[inline]
            fn copysign(self, o: $t) -> $t { Self::down(self.up().copysign(o.up())) }
            #[inline]
            fn heaviside(self, h0: $t) -> $t { Self::down(f_heaviside(self.up(), h0.up())) }
            #[inline]
            fn angle(self) -> $t { Self::down(<<$t as RealFloat>::C as num_traits::Zero>::zero().atan2(self.up())) }
            #[inline]
            fn nan_to_num(self) -> $t {
                let x = self.up();
                if x.is_nan() {
                    Self::down(num_traits::Zero::zero())
                } else if x.is_infinite() {
                    if x > num_traits::Zero::zero() { <$t>::MAX } else { <$t>::MIN }
                } else {
                    self
                }
            }
        }
    )*};
}
impl_float_extra!(f16, bf16, f32, f64);

/// The next value of a float type toward another (`np.nextafter`), stepped
/// in the type's own bits (so float16 steps by float16's spacing).
pub(crate) trait NextAfter: Element {
    fn next_after(self, toward: Self) -> Self;
}

macro_rules! impl_next_after {
    ($($t:ty, $bits:ty, $tiny:expr);*) => {$(
        impl NextAfter for $t {
            fn next_after(self, toward: $t) -> $t {
                let (x, y) = (self.up(), toward.up());
                if x.is_nan() || y.is_nan() {
                    return Self::down(x + y);
                }
                if x == y {
                    return toward;
                }
                let bits: $bits = if x == num_traits::Zero::zero() {
                    let sign: $bits = if y < x { 1 << (<$bits>::BITS - 1) } else { 0 };
                    sign | $tiny
                } else if (x < y) == (x > num_traits::Zero::zero()) {
                    self.to_bits() + 1
                } else {
                    self.to_bits() - 1
                };
                <$t>::from_bits(bits)
            }
        }
    )*};
}
impl_next_after!(f16, u16, 1; bf16, u16, 1; f32, u32, 1; f64, u64, 1);
