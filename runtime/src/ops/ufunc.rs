//! The ufunc table: every built-in elementwise function as one row.
//!
//! A row gives the function's name and `_out` name, its NumPy doc line, its
//! type rule (input dtype → loop dtype and result dtype), whether `fuse`
//! may compile it and whether the small-op batch may defer it, and then one
//! arm per group of loop dtypes with both halves of the operation: the CPU
//! body (a function of elements, generic over the group's element type `T`)
//! and the CUDA expression over `in0` (and `in1`). An arm cannot be written
//! with one half missing, so an op cannot silently lack a GPU kernel; the
//! dtypes the arms cover are the dtypes the op accepts.
//!
//! Everything else follows from the rows: the public functions and their
//! `_out` forms (`api/elementwise/mod.rs`, through [`for_each_unary`] and
//! [`for_each_binary`]), the methods of `fuse`'s `Expr`, the GPU kernels
//! (`cuda/kernel_gen/ufunc_expr.rs` turns an arm into C), and the batch interpreter's
//! operations. The operators (`&a + &b`) call the functions by name.

use half::{bf16, f16};
use num_complex::Complex;

use super::scalar_math::{
    Abs, Arith, Bits, DivMod, FloatExtra, Inexact, Integer, NextAfter, RealOnly,
};
use super::special::Special;
use crate::core::dtype::DType;
use crate::core::element::Element;

/// Why a type rule refuses an input dtype (the caller words the error with
/// the operands it was given).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reject {
    /// No loop for this dtype; the text lists the valid ones.
    Unsupported(&'static str),
    /// A refusal with its own explanation.
    Message(&'static str),
}

/// Loop dtype and result dtype, or why there is none.
pub(crate) type Types = Result<(DType, DType), Reject>;

pub(crate) const VALID_BITS: &str = "bool and integer dtypes (int8 to int64, uint8 to uint64)";
pub(crate) const VALID_REAL: &str = "bool, integer and real floating dtypes (not complex)";
pub(crate) const VALID_NUMBERS: &str = "integer, floating and complex dtypes (not bool)";

/// The type rules rows use, by the input dtype (for binary ops, the
/// inputs' common dtype).
pub(crate) mod rules {
    use super::{Reject, Types, VALID_BITS, VALID_NUMBERS, VALID_REAL};
    use crate::core::dtype::DType;

    /// Same dtype in and out.
    pub fn same(dt: DType) -> Types {
        Ok((dt, dt))
    }
    /// Float math: integers and bools go to the smallest float that holds them.
    pub fn float_math(dt: DType) -> Types {
        let d = dt.to_inexact();
        Ok((d, d))
    }
    /// Float math defined for real numbers only.
    pub fn real_float_math(dt: DType) -> Types {
        if dt.is_complex() {
            return Err(Reject::Unsupported(VALID_REAL));
        }
        float_math(dt)
    }
    /// Numbers, not bool.
    pub fn numbers(dt: DType) -> Types {
        if dt.is_bool() {
            return Err(Reject::Unsupported(VALID_NUMBERS));
        }
        Ok((dt, dt))
    }
    pub fn negative(dt: DType) -> Types {
        if dt.is_bool() {
            return Err(Reject::Message("boolean negative (the `-` operator) is not supported; use logical_not or bitwise_not (the `!` operator) instead"));
        }
        Ok((dt, dt))
    }
    pub fn subtract(dt: DType) -> Types {
        if dt.is_bool() {
            return Err(Reject::Message("boolean subtract (the `-` operator) is not supported; use bitwise_xor (the `^` operator) or logical_xor instead"));
        }
        Ok((dt, dt))
    }
    /// The real dtype of the input (complex magnitude, real and imaginary parts).
    pub fn to_real(dt: DType) -> Types {
        Ok((dt, dt.real_dtype()))
    }
    /// Real numbers only, dtype kept (floor, ceil, trunc).
    pub fn real_same(dt: DType) -> Types {
        if dt.is_complex() {
            return Err(Reject::Unsupported(VALID_REAL));
        }
        Ok((dt, dt))
    }
    /// Arithmetic without a bool loop: bools compute as int8.
    pub fn bool_as_int8(dt: DType) -> Types {
        let d = if dt.is_bool() { DType::Int8 } else { dt };
        Ok((d, d))
    }
    /// Real arithmetic without a bool loop (floor division, remainder).
    pub fn real_bool_as_int8(dt: DType) -> Types {
        if dt.is_complex() {
            return Err(Reject::Unsupported(VALID_REAL));
        }
        bool_as_int8(dt)
    }
    /// Truth of the input(s), as bool.
    pub fn logical(_: DType) -> Types {
        Ok((DType::Bool, DType::Bool))
    }
    /// A bool result computed in the input dtype (comparisons, tests).
    pub fn test(dt: DType) -> Types {
        Ok((dt, DType::Bool))
    }
    /// Bools and integers.
    pub fn bits(dt: DType) -> Types {
        if !(dt.is_bool() || dt.is_integer()) {
            return Err(Reject::Unsupported(VALID_BITS));
        }
        Ok((dt, dt))
    }
    /// Shifts: integers, bools as int8.
    pub fn shift(dt: DType) -> Types {
        bits(dt)?;
        bool_as_int8(dt)
    }
    /// True division: integers and bools give float64.
    pub fn divide(dt: DType) -> Types {
        let d = if dt.is_inexact() { dt } else { DType::Float64 };
        Ok((d, d))
    }
    /// The argument of a number: real for complex input, float math
    /// otherwise, and float64 for bools (NumPy computes `arctan2(0, x)`,
    /// where the Python 0 meets a bool as int64).
    pub fn angle(dt: DType) -> Types {
        if dt.is_complex() {
            to_real(dt)
        } else if dt.is_bool() {
            Ok((DType::Float64, DType::Float64))
        } else {
            float_math(dt)
        }
    }
    /// SciPy's special functions: real floats keep their dtype, integers
    /// and bools compute in float64 (SciPy's first loop is the float64 one);
    /// complex is refused.
    pub fn special(dt: DType) -> Types {
        if dt.is_complex() {
            return Err(Reject::Unsupported(VALID_REAL));
        }
        float64_for_ints(dt)
    }
    /// Floats kept, integers and bools to float64 (NumPy's `sinc` computes
    /// `pi * x` with a Python float first).
    pub fn float64_for_ints(dt: DType) -> Types {
        let d = if dt.is_inexact() { dt } else { DType::Float64 };
        Ok((d, d))
    }
}

/// The CUDA half of an arm: a C expression over `in0` (and `in1`) in the
/// compute dtype (the loop dtype; float32 for the half types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Gpu {
    /// The expression. `@MAX@` stands for the loop dtype's largest finite value.
    pub expr: &'static str,
    /// The dtype of the expression's value.
    pub result: GpuResult,
    /// Whether the value is converted back to the compute dtype (small
    /// integers promote to `int` in C; the conversion makes them wrap).
    pub wrap: bool,
    /// Device functions the expression calls (a `.cuh` file of `ops/cuda`).
    pub support: &'static str,
}

/// The dtype of a GPU expression's value, relative to the compute dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GpuResult {
    Same,
    Bool,
    Real,
}

/// An expression of the compute dtype.
pub(crate) const fn same(expr: &'static str) -> Gpu {
    Gpu {
        expr,
        result: GpuResult::Same,
        wrap: false,
        support: "",
    }
}
/// An expression of the compute dtype, converted back to it (wraps small integers).
pub(crate) const fn wrap(expr: &'static str) -> Gpu {
    Gpu {
        wrap: true,
        ..same(expr)
    }
}
/// A bool expression.
pub(crate) const fn test(expr: &'static str) -> Gpu {
    Gpu {
        result: GpuResult::Bool,
        ..same(expr)
    }
}
/// An expression of the compute dtype's real dtype.
pub(crate) const fn real(expr: &'static str) -> Gpu {
    Gpu {
        result: GpuResult::Real,
        ..same(expr)
    }
}
impl Gpu {
    /// The expression with the device functions it calls.
    pub(crate) const fn with(self, support: &'static str) -> Gpu {
        Gpu { support, ..self }
    }
}

/// Device functions of the GPU expressions, one file each (`fuse` and the
/// batch interpreter include each file once).
pub(crate) mod support {
    pub const INT_DIV: &str = include_str!("cuda/int_div.cuh");
    pub const FLOAT_DIV: &str = include_str!("cuda/float_div.cuh");
    pub const FLOAT_EXTRA: &str = include_str!("cuda/float_extra.cuh");
    pub const COMPLEX_MATH: &str = include_str!("cuda/complex_math.cuh");
    // The inverses build on the functions they invert: one string, so that
    // a kernel includes both once.
    pub const SPECIAL: &str = concat!(
        include_str!("cuda/special.cuh"),
        include_str!("cuda/special_inverse.cuh"),
        include_str!("cuda/special_bessel.cuh")
    );
}
use support::{COMPLEX_MATH, FLOAT_DIV, FLOAT_EXTRA, INT_DIV, SPECIAL};

/// The CPU backend's loop over one input, handed a row's CPU body.
pub(crate) trait Map1 {
    type Out;
    fn map<T: Element, O: Element, F: Fn(T) -> O>(self, f: F) -> Self::Out;
}

/// The CPU backend's loop over two inputs, handed a row's CPU body.
pub(crate) trait Map2 {
    type Out;
    fn map<T: Element, O: Element, F: Fn(T, T) -> O>(self, f: F) -> Self::Out;
}

/// The CPU backend's loop over three inputs, handed a row's CPU body.
pub(crate) trait Map3 {
    type Out;
    fn map<T: Element, O: Element, F: Fn(T, T, T) -> O>(self, f: F) -> Self::Out;
}

/// Hands the dtypes of a group, as `[Variant: type, ...]`, to another macro.
macro_rules! group {
    (bool, $cb:ident!($($a:tt)*)) => { $cb!($($a)* [Bool: bool]) };
    (sint, $cb:ident!($($a:tt)*)) => { $cb!($($a)* [Int8: i8, Int16: i16, Int32: i32, Int64: i64]) };
    (uint, $cb:ident!($($a:tt)*)) => { $cb!($($a)* [UInt8: u8, UInt16: u16, UInt32: u32, UInt64: u64]) };
    (int, $cb:ident!($($a:tt)*)) => {
        $cb!($($a)* [Int8: i8, Int16: i16, Int32: i32, Int64: i64, UInt8: u8, UInt16: u16, UInt32: u32, UInt64: u64])
    };
    (f16, $cb:ident!($($a:tt)*)) => { $cb!($($a)* [Float16: f16]) };
    (bf16, $cb:ident!($($a:tt)*)) => { $cb!($($a)* [BFloat16: bf16]) };
    (f32f64, $cb:ident!($($a:tt)*)) => { $cb!($($a)* [Float32: f32, Float64: f64]) };
    (float, $cb:ident!($($a:tt)*)) => { $cb!($($a)* [Float16: f16, BFloat16: bf16, Float32: f32, Float64: f64]) };
    (complex, $cb:ident!($($a:tt)*)) => { $cb!($($a)* [Complex64: Complex<f32>, Complex128: Complex<f64>]) };
}

macro_rules! group_has {
    ($dt:expr, [$($v:ident : $t:ty),*]) => {
        matches!($dt, $($crate::core::dtype::DType::$v)|*)
    };
}

/// Whether `$dt` is in one of the groups.
macro_rules! in_group {
    ($dt:expr, $($g:ident)|+) => {
        false $(|| group!($g, group_has!($dt,)))+
    };
}

macro_rules! with_group_list {
    ($dt:expr, $T:ident => $body:expr, [$($v:ident : $t:ty),*]) => {
        match $dt {
            $($crate::core::dtype::DType::$v => {
                type $T = $t;
                $body
            })*
            _ => unreachable!("the caller checked the group"),
        }
    };
}

/// Binds `$T` to the element type of `$dt`, which is in one of the groups.
macro_rules! with_groups {
    ($dt:expr, $T:ident => $body:expr, $g:ident) => {
        group!($g, with_group_list!($dt, $T => $body,))
    };
    ($dt:expr, $T:ident => $body:expr, $g:ident | $($rest:ident)|+) => {
        if in_group!($dt, $g) {
            group!($g, with_group_list!($dt, $T => $body,))
        } else {
            with_groups!($dt, $T => $body, $($rest)|+)
        }
    };
}

/// Defines a family of ufuncs from its rows: the op enum, its table
/// queries, and a `for_each_*` macro that hands every row's names to
/// whoever generates items from them.
macro_rules! ufunc_family {
    (
        $Family:ident, $Map:ident, $for_each:ident;
        $(
            $doc:literal
            $name:ident $name_out:ident $Var:ident : rule $rule:ident, fuse $fuse:literal, batch $batch:literal $(, module $module:ident)? {
                $( $($g:ident)|+ => $cpu:expr, $gpu:expr; )+
            }
        )*
    ) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum $Family {
            $($Var,)*
        }

        impl $Family {
            /// Every op of the family, in table order.
            pub(crate) const ALL: &'static [$Family] = &[$($Family::$Var,)*];

            /// NumPy's name of the op.
            pub(crate) fn name(self) -> &'static str {
                match self { $($Family::$Var => stringify!($name),)* }
            }

            /// The op's doc line.
            #[allow(dead_code)]
            pub(crate) fn doc(self) -> &'static str {
                match self { $($Family::$Var => $doc,)* }
            }

            /// Loop and result dtypes for input dtype `dt`, checked against the
            /// dtypes the arms cover.
            pub(crate) fn types(self, dt: DType) -> Types {
                let (loop_dt, out_dt) = match self { $($Family::$Var => rules::$rule(dt)?,)* };
                if self.covers(loop_dt) {
                    Ok((loop_dt, out_dt))
                } else {
                    Err(Reject::Unsupported(self.valid()))
                }
            }

            /// Whether some arm computes in `dt`.
            pub(crate) fn covers(self, dt: DType) -> bool {
                match self { $($Family::$Var => false $(|| in_group!(dt, $($g)|+))+,)* }
            }

            /// The loop dtypes the arms cover.
            pub(crate) fn loop_dtypes(self) -> Vec<DType> {
                DType::ALL.iter().copied().filter(|&d| self.covers(d)).collect()
            }

            /// The valid dtypes, for messages.
            fn valid(self) -> &'static str {
                let all = self.loop_dtypes();
                if all.iter().any(|d| d.is_complex()) {
                    if all.iter().any(|d| d.is_bool()) { "every dtype" } else { VALID_NUMBERS }
                } else if all.iter().any(|d| d.is_float()) {
                    if all.iter().any(|d| d.is_integer()) { VALID_REAL } else { "floating dtypes" }
                } else {
                    VALID_BITS
                }
            }

            /// Whether `fuse` compiles the op into fused kernels (`fuse` has
            /// no ternary nodes, so that family never asks).
            #[allow(dead_code)]
            pub(crate) fn fusable(self) -> bool {
                match self { $($Family::$Var => $fuse,)* }
            }

            /// Whether the small-op batch interpreter may defer the op.
            pub(crate) fn batchable(self) -> bool {
                match self { $($Family::$Var => $batch,)* }
            }

            /// Runs the CPU body of the arm covering `dt` through the loop `m`.
            pub(crate) fn cpu<M: $Map>(self, dt: DType, m: M) -> Option<M::Out> {
                match self {
                    $($Family::$Var => {
                        $(
                            if in_group!(dt, $($g)|+) {
                                return Some(with_groups!(dt, T => m.map::<T, _, _>($cpu), $($g)|+));
                            }
                        )+
                        None
                    })*
                }
            }

            /// The CUDA half of the arm covering `dt`.
            pub(crate) fn gpu(self, dt: DType) -> Option<Gpu> {
                match self {
                    $($Family::$Var => {
                        $( if in_group!(dt, $($g)|+) { return Some($gpu); } )+
                        None
                    })*
                }
            }
        }

        /// Calls `$m!` with every row: `[module] name name_out Variant "doc";`,
        /// where `[]` is the top-level namespace (NumPy's functions) and
        /// `[special]` is `cp::special` (SciPy's).
        macro_rules! $for_each {
            ($m:ident) => {
                $m! { $( [$($module)?] $name $name_out $Var $doc; )* }
            };
        }
        pub(crate) use $for_each;
    };
}

ufunc_family! {
    Unary, Map1, for_each_unary;

    "`-a` elementwise (`np.negative`); integers wrap (unsigned too); bools are an error."
    negative negative_out Negative: rule negative, fuse true, batch true {
        int => <T as Arith>::neg, wrap("-in0");
        float | complex => <T as Arith>::neg, same("-in0");
    }
    "A copy of `a` (`np.positive`); bools are an error."
    positive positive_out Positive: rule numbers, fuse true, batch false {
        int | float | complex => |v: T| v, same("in0");
    }
    "The absolute value (`np.abs`); complex input gives its real dtype, `abs(int8 -128)` wraps to -128."
    abs abs_out Absolute: rule to_real, fuse true, batch true {
        float => <T as Abs>::abs, same("fabs(in0)");
        sint => <T as Abs>::abs, wrap("(in0 < 0 ? -in0 : in0)");
        uint | bool => <T as Abs>::abs, same("in0");
        complex => <T as Abs>::abs, real("cabs(in0)");
    }
    "-1, 0 or 1 by the sign (`np.sign`); NaN stays NaN, complex gives `z / |z|`."
    sign sign_out Sign: rule numbers, fuse true, batch false {
        float => <T as Arith>::sign, same("f_sign(in0)").with(FLOAT_DIV);
        int => <T as Arith>::sign, wrap("(in0 > 0) - (in0 < 0)");
        complex => <T as Arith>::sign, same("c_sign(in0)").with(COMPLEX_MATH);
    }
    "The square root (`np.sqrt`); negative reals give NaN."
    sqrt sqrt_out Sqrt: rule float_math, fuse true, batch true {
        float => <T as Inexact>::sqrt, same("sqrt(in0)");
        complex => <T as Inexact>::sqrt, same("c_sqrt(in0)").with(COMPLEX_MATH);
    }
    "`e ** a` (`np.exp`)."
    exp exp_out Exp: rule float_math, fuse true, batch true {
        float => <T as Inexact>::exp, same("exp(in0)");
        complex => <T as Inexact>::exp, same("c_exp(in0)").with(COMPLEX_MATH);
    }
    "`2 ** a` (`np.exp2`)."
    exp2 exp2_out Exp2: rule float_math, fuse true, batch false {
        float => <T as Inexact>::exp2, same("exp2(in0)");
        complex => <T as Inexact>::exp2, same("c_exp2(in0)").with(COMPLEX_MATH);
    }
    "The natural logarithm (`np.log`)."
    log log_out Log: rule float_math, fuse true, batch true {
        float => <T as Inexact>::ln, same("log(in0)");
        complex => <T as Inexact>::ln, same("c_log(in0)").with(COMPLEX_MATH);
    }
    "The base-2 logarithm (`np.log2`)."
    log2 log2_out Log2: rule float_math, fuse true, batch false {
        float => <T as Inexact>::log2, same("log2(in0)");
        complex => <T as Inexact>::log2, same("c_log2(in0)").with(COMPLEX_MATH);
    }
    "The base-10 logarithm (`np.log10`)."
    log10 log10_out Log10: rule float_math, fuse true, batch false {
        float => <T as Inexact>::log10, same("log10(in0)");
        complex => <T as Inexact>::log10, same("c_log10(in0)").with(COMPLEX_MATH);
    }
    "`log(1 + a)`, accurate for small `a` (`np.log1p`)."
    log1p log1p_out Log1p: rule float_math, fuse true, batch false {
        float => <T as Inexact>::log1p, same("log1p(in0)");
        complex => <T as Inexact>::log1p, same("c_log1p(in0)").with(COMPLEX_MATH);
    }
    "`exp(a) - 1`, accurate for small `a` (`np.expm1`)."
    expm1 expm1_out Expm1: rule float_math, fuse true, batch false {
        float => <T as Inexact>::expm1, same("expm1(in0)");
        complex => <T as Inexact>::expm1, same("c_expm1(in0)").with(COMPLEX_MATH);
    }
    "The sine, in radians (`np.sin`)."
    sin sin_out Sin: rule float_math, fuse true, batch true {
        float => <T as Inexact>::sin, same("sin(in0)");
        complex => <T as Inexact>::sin, same("c_sin(in0)").with(COMPLEX_MATH);
    }
    "The cosine, in radians (`np.cos`)."
    cos cos_out Cos: rule float_math, fuse true, batch true {
        float => <T as Inexact>::cos, same("cos(in0)");
        complex => <T as Inexact>::cos, same("c_cos(in0)").with(COMPLEX_MATH);
    }
    "The tangent, in radians (`np.tan`)."
    tan tan_out Tan: rule float_math, fuse true, batch false {
        float => <T as Inexact>::tan, same("tan(in0)");
        complex => <T as Inexact>::tan, same("c_tan(in0)").with(COMPLEX_MATH);
    }
    "The inverse sine (`np.arcsin`)."
    arcsin arcsin_out Arcsin: rule float_math, fuse true, batch false {
        float => <T as Inexact>::asin, same("asin(in0)");
        complex => <T as Inexact>::asin, same("c_asin(in0)").with(COMPLEX_MATH);
    }
    "The inverse cosine (`np.arccos`)."
    arccos arccos_out Arccos: rule float_math, fuse true, batch false {
        float => <T as Inexact>::acos, same("acos(in0)");
        complex => <T as Inexact>::acos, same("c_acos(in0)").with(COMPLEX_MATH);
    }
    "The inverse tangent (`np.arctan`)."
    arctan arctan_out Arctan: rule float_math, fuse true, batch false {
        float => <T as Inexact>::atan, same("atan(in0)");
        complex => <T as Inexact>::atan, same("c_atan(in0)").with(COMPLEX_MATH);
    }
    "The hyperbolic sine (`np.sinh`)."
    sinh sinh_out Sinh: rule float_math, fuse true, batch false {
        float => <T as Inexact>::sinh, same("sinh(in0)");
        complex => <T as Inexact>::sinh, same("c_sinh(in0)").with(COMPLEX_MATH);
    }
    "The hyperbolic cosine (`np.cosh`)."
    cosh cosh_out Cosh: rule float_math, fuse true, batch false {
        float => <T as Inexact>::cosh, same("cosh(in0)");
        complex => <T as Inexact>::cosh, same("c_cosh(in0)").with(COMPLEX_MATH);
    }
    "The hyperbolic tangent (`np.tanh`)."
    tanh tanh_out Tanh: rule float_math, fuse true, batch true {
        float => <T as Inexact>::tanh, same("tanh(in0)");
        complex => <T as Inexact>::tanh, same("c_tanh(in0)").with(COMPLEX_MATH);
    }
    "The inverse hyperbolic sine (`np.arcsinh`)."
    arcsinh arcsinh_out Arcsinh: rule float_math, fuse true, batch false {
        float => <T as Inexact>::asinh, same("asinh(in0)");
        complex => <T as Inexact>::asinh, same("c_asinh(in0)").with(COMPLEX_MATH);
    }
    "The inverse hyperbolic cosine (`np.arccosh`)."
    arccosh arccosh_out Arccosh: rule float_math, fuse true, batch false {
        float => <T as Inexact>::acosh, same("acosh(in0)");
        complex => <T as Inexact>::acosh, same("c_acosh(in0)").with(COMPLEX_MATH);
    }
    "The inverse hyperbolic tangent (`np.arctanh`)."
    arctanh arctanh_out Arctanh: rule float_math, fuse true, batch false {
        float => <T as Inexact>::atanh, same("atanh(in0)");
        complex => <T as Inexact>::atanh, same("c_atanh(in0)").with(COMPLEX_MATH);
    }
    "The largest integer not above `a` (`np.floor`); integers and bools are returned unchanged."
    floor floor_out Floor: rule real_same, fuse true, batch false {
        float => <T as RealOnly>::floor, same("floor(in0)");
        int | bool => |v: T| v, same("in0");
    }
    "The smallest integer not below `a` (`np.ceil`); integers and bools are returned unchanged."
    ceil ceil_out Ceil: rule real_same, fuse true, batch false {
        float => <T as RealOnly>::ceil, same("ceil(in0)");
        int | bool => |v: T| v, same("in0");
    }
    "`a` rounded toward zero (`np.trunc`); integers and bools are returned unchanged."
    trunc trunc_out Trunc: rule real_same, fuse true, batch false {
        float => <T as RealOnly>::trunc, same("trunc(in0)");
        int | bool => |v: T| v, same("in0");
    }
    "`a` rounded to the nearest integer, half to even (`np.rint`); integers give floats."
    rint rint_out Rint: rule float_math, fuse true, batch false {
        float => <T as Inexact>::rint, same("rint(in0)");
        complex => <T as Inexact>::rint, same("mk(rint(in0.re), rint(in0.im))");
    }
    "Truth of `not a` (zero values are false), as bool (`np.logical_not`)."
    logical_not logical_not_out LogicalNot: rule logical, fuse true, batch false {
        bool => |v: bool| !v, test("!in0");
    }
    "Bitwise not of integers, logical not of bools (`np.bitwise_not`)."
    bitwise_not bitwise_not_out Invert: rule bits, fuse true, batch false {
        bool => <T as Bits>::not, same("!in0");
        int => <T as Bits>::not, wrap("~in0");
    }
    "Whether each element is NaN (`np.isnan`); complex: either part."
    isnan isnan_out IsNan: rule test, fuse true, batch false {
        float => <T as Arith>::is_nan, test("(in0 != in0)");
        complex => <T as Arith>::is_nan, test("(in0.re != in0.re || in0.im != in0.im)");
        int | bool => <T as Arith>::is_nan, test("false");
    }
    "Whether each element is infinite (`np.isinf`); complex: either part."
    isinf isinf_out IsInf: rule test, fuse true, batch false {
        float => <T as Arith>::is_inf, test("isinf(in0)");
        complex => <T as Arith>::is_inf, test("(isinf(in0.re) || isinf(in0.im))");
        int | bool => <T as Arith>::is_inf, test("false");
    }
    "Whether each element is finite (`np.isfinite`); complex: both parts."
    isfinite isfinite_out IsFinite: rule test, fuse true, batch false {
        float => <T as Arith>::is_finite, test("isfinite(in0)");
        complex => <T as Arith>::is_finite, test("(isfinite(in0.re) && isfinite(in0.im))");
        int | bool => <T as Arith>::is_finite, test("true");
    }
    "`a * a` (`np.square`); integers wrap, bools give int8."
    square square_out Square: rule bool_as_int8, fuse true, batch true {
        int => |v: T| <T as Arith>::mul(v, v), wrap("in0 * in0");
        float | complex => |v: T| <T as Arith>::mul(v, v), same("in0 * in0");
    }
    "`1 / a` (`np.reciprocal`); for integers this is integer division, and 0 gives 0."
    reciprocal reciprocal_out Reciprocal: rule bool_as_int8, fuse true, batch false {
        float => <T as Inexact>::recip, same("(decltype(in0))1 / in0");
        int => <T as Integer>::recip, wrap("(in0 == 0 ? 0 : 1 / in0)");
        complex => <T as Inexact>::recip, same("c_recip(in0)").with(COMPLEX_MATH);
    }
    "The cube root (`np.cbrt`); real input only."
    cbrt cbrt_out Cbrt: rule real_float_math, fuse true, batch false {
        float => <T as FloatExtra>::cbrt, same("cbrt(in0)");
    }
    "Degrees converted to radians, `a * pi / 180` (`np.deg2rad`, `np.radians`)."
    deg2rad deg2rad_out Deg2rad: rule real_float_math, fuse true, batch false {
        float => <T as FloatExtra>::deg2rad, same("in0 * (decltype(in0))1.7453292519943295e-2");
    }
    "Radians converted to degrees, `a * 180 / pi` (`np.rad2deg`, `np.degrees`)."
    rad2deg rad2deg_out Rad2deg: rule real_float_math, fuse true, batch false {
        float => <T as FloatExtra>::rad2deg, same("in0 * (decltype(in0))5.7295779513082323e1");
    }
    "The normalised sinc function `sin(pi a) / (pi a)`, 1 at 0 (`np.sinc`)."
    sinc sinc_out Sinc: rule float64_for_ints, fuse true, batch false {
        float => <T as Inexact>::sinc, same("np_sinc(in0)").with(FLOAT_EXTRA);
        complex => <T as Inexact>::sinc, same("c_sinc(in0)").with(COMPLEX_MATH);
    }
    "The real part (`np.real`); real input is returned as it is."
    real real_out Real: rule to_real, fuse true, batch false {
        complex => |v: T| v.re, real("in0.re");
        bool | int | float => |v: T| v, same("in0");
    }
    "The imaginary part (`np.imag`); zeros for real input."
    imag imag_out Imag: rule to_real, fuse true, batch false {
        complex => |v: T| v.im, real("in0.im");
        bool | int | float => |_: T| T::default(), same("0");
    }
    "The complex conjugate (`np.conj`, `np.conjugate`); real input unchanged, bools give int8."
    conj conj_out Conj: rule bool_as_int8, fuse true, batch false {
        complex => |v: T| v.conj(), same("mk(in0.re, -in0.im)");
        int | float => |v: T| v, same("in0");
    }
    "The angle of a complex number in radians, `arctan2(imag, real)` (`np.angle`)."
    angle angle_out Angle: rule angle, fuse true, batch false {
        complex => |v: T| v.im.atan2(v.re), real("atan2(in0.im, in0.re)");
        float => <T as FloatExtra>::angle, same("atan2((decltype(in0))0, in0)");
    }
    "NaN replaced by 0 and infinities by the largest finite values of the dtype (`np.nan_to_num` with its defaults); complex: each part."
    nan_to_num nan_to_num_out NanToNum: rule same, fuse true, batch false {
        float => <T as FloatExtra>::nan_to_num, same("np_nan_to_num(in0, (decltype(in0))@MAX@)").with(FLOAT_EXTRA);
        complex => |v: T| Complex::new(v.re.nan_to_num(), v.im.nan_to_num()),
            same("c_nan_to_num(in0, (decltype(in0.re))@MAX@)").with(COMPLEX_MATH);
        bool | int => |v: T| v, same("in0");
    }

    // SciPy's special functions (`cp::special`).
    "The error function `2/sqrt(pi) * integral of exp(-t^2) from 0 to x` (`scipy.special.erf`)."
    erf erf_out Erf: rule special, fuse true, batch false, module special {
        float => <T as Special>::erf, same("sp_erf(in0)").with(SPECIAL);
    }
    "The complementary error function `1 - erf(x)`, accurate where erf is near 1 (`scipy.special.erfc`)."
    erfc erfc_out Erfc: rule special, fuse true, batch false, module special {
        float => <T as Special>::erfc, same("sp_erfc(in0)").with(SPECIAL);
    }
    "The scaled complementary error function `exp(x^2) * erfc(x)` (`scipy.special.erfcx`)."
    erfcx erfcx_out Erfcx: rule special, fuse true, batch false, module special {
        float => <T as Special>::erfcx, same("sp_erfcx(in0)").with(SPECIAL);
    }
    "The inverse of `erf` on [-1, 1]; NaN outside (`scipy.special.erfinv`)."
    erfinv erfinv_out Erfinv: rule special, fuse true, batch false, module special {
        float => <T as Special>::erfinv, same("sp_erfinv(in0)").with(SPECIAL);
    }
    "The inverse of `erfc` on [0, 2]; NaN outside (`scipy.special.erfcinv`)."
    erfcinv erfcinv_out Erfcinv: rule special, fuse true, batch false, module special {
        float => <T as Special>::erfcinv, same("sp_erfcinv(in0)").with(SPECIAL);
    }
    "The standard normal CDF `(1 + erf(x / sqrt(2))) / 2` (`scipy.special.ndtr`)."
    ndtr ndtr_out Ndtr: rule special, fuse true, batch false, module special {
        float => <T as Special>::ndtr, same("sp_ndtr(in0)").with(SPECIAL);
    }
    "The inverse of `ndtr` on [0, 1]: the standard normal quantile; NaN outside (`scipy.special.ndtri`)."
    ndtri ndtri_out Ndtri: rule special, fuse true, batch false, module special {
        float => <T as Special>::ndtri, same("sp_ndtri(in0)").with(SPECIAL);
    }
    "The log of the standard normal CDF, accurate far into the lower tail (`scipy.special.log_ndtr`)."
    log_ndtr log_ndtr_out LogNdtr: rule special, fuse true, batch false, module special {
        float => <T as Special>::log_ndtr, same("sp_log_ndtr(in0)").with(SPECIAL);
    }
    "The gamma function; infinite at 0 (signed), NaN at negative integers (`scipy.special.gamma`)."
    gamma gamma_out Gamma: rule special, fuse true, batch false, module special {
        float => <T as Special>::gamma, same("sp_gamma(in0)").with(SPECIAL);
    }
    "The log of the absolute value of the gamma function; infinite at its poles (`scipy.special.gammaln`)."
    gammaln gammaln_out Gammaln: rule special, fuse true, batch false, module special {
        float => <T as Special>::gammaln, same("sp_gammaln(in0)").with(SPECIAL);
    }
    "The digamma function `gamma'(x) / gamma(x)`; NaN at negative integers (`scipy.special.digamma`, `psi`)."
    digamma digamma_out Digamma: rule special, fuse true, batch false, module special {
        float => <T as Special>::digamma, same("sp_digamma(in0)").with(SPECIAL);
    }
    "The real `log(gamma(x))`: as `gammaln` from 0 up, NaN below 0 (`scipy.special.loggamma` of real input)."
    loggamma loggamma_out Loggamma: rule special, fuse true, batch false, module special {
        float => <T as Special>::loggamma, same("sp_loggamma(in0)").with(SPECIAL);
    }
    "The logistic sigmoid `1 / (1 + exp(-x))` (`scipy.special.expit`)."
    expit expit_out Expit: rule special, fuse true, batch false, module special {
        float => <T as Special>::expit, same("sp_expit(in0)").with(SPECIAL);
    }
    "The inverse of `expit`, `log(p / (1 - p))`; NaN outside [0, 1] (`scipy.special.logit`)."
    logit logit_out Logit: rule special, fuse true, batch false, module special {
        float => <T as Special>::logit, same("sp_logit(in0)").with(SPECIAL);
    }
    "`log(expit(x))` without underflow for large negative x (`scipy.special.log_expit`)."
    log_expit log_expit_out LogExpit: rule special, fuse true, batch false, module special {
        float => <T as Special>::log_expit, same("sp_log_expit(in0)").with(SPECIAL);
    }
    "The entropy term `-x log(x)`: 0 at 0, `-inf` below 0 (`scipy.special.entr`)."
    entr entr_out Entr: rule special, fuse true, batch false, module special {
        float => <T as Special>::entr, same("sp_entr(in0)").with(SPECIAL);
    }
    "The modified Bessel function of the first kind of order 0 (`scipy.special.i0`)."
    i0 i0_out I0: rule special, fuse true, batch false, module special {
        float => <T as Special>::i0, same("sp_i0(in0)").with(SPECIAL);
    }
    "The exponentially scaled `exp(-|x|) i0(x)` (`scipy.special.i0e`)."
    i0e i0e_out I0e: rule special, fuse true, batch false, module special {
        float => <T as Special>::i0e, same("sp_i0e(in0)").with(SPECIAL);
    }
    "The modified Bessel function of the first kind of order 1 (`scipy.special.i1`)."
    i1 i1_out I1: rule special, fuse true, batch false, module special {
        float => <T as Special>::i1, same("sp_i1(in0)").with(SPECIAL);
    }
    "The exponentially scaled `exp(-|x|) i1(x)` (`scipy.special.i1e`)."
    i1e i1e_out I1e: rule special, fuse true, batch false, module special {
        float => <T as Special>::i1e, same("sp_i1e(in0)").with(SPECIAL);
    }
    "The modified Bessel function of the second kind of order 0; infinite at 0, NaN below (`scipy.special.k0`)."
    k0 k0_out K0: rule special, fuse true, batch false, module special {
        float => <T as Special>::k0, same("sp_k0(in0)").with(SPECIAL);
    }
    "The exponentially scaled `exp(x) k0(x)` (`scipy.special.k0e`)."
    k0e k0e_out K0e: rule special, fuse true, batch false, module special {
        float => <T as Special>::k0e, same("sp_k0e(in0)").with(SPECIAL);
    }
    "The modified Bessel function of the second kind of order 1; infinite at 0, NaN below (`scipy.special.k1`)."
    k1 k1_out K1: rule special, fuse true, batch false, module special {
        float => <T as Special>::k1, same("sp_k1(in0)").with(SPECIAL);
    }
    "The exponentially scaled `exp(x) k1(x)` (`scipy.special.k1e`)."
    k1e k1e_out K1e: rule special, fuse true, batch false, module special {
        float => <T as Special>::k1e, same("sp_k1e(in0)").with(SPECIAL);
    }
    "The Bessel function of the first kind of order 0 (`scipy.special.j0`)."
    j0 j0_out J0: rule special, fuse true, batch false, module special {
        float => <T as Special>::j0, same("sp_j0(in0)").with(SPECIAL);
    }
    "The Bessel function of the first kind of order 1 (`scipy.special.j1`)."
    j1 j1_out J1: rule special, fuse true, batch false, module special {
        float => <T as Special>::j1, same("sp_j1(in0)").with(SPECIAL);
    }
    "The Bessel function of the second kind of order 0; `-inf` at 0, NaN below (`scipy.special.y0`)."
    y0 y0_out Y0: rule special, fuse true, batch false, module special {
        float => <T as Special>::y0, same("sp_y0(in0)").with(SPECIAL);
    }
    "The Bessel function of the second kind of order 1; `-inf` at 0, NaN below (`scipy.special.y1`)."
    y1 y1_out Y1: rule special, fuse true, batch false, module special {
        float => <T as Special>::y1, same("sp_y1(in0)").with(SPECIAL);
    }
}

ufunc_family! {
    Binary, Map2, for_each_binary;

    "`a + b` elementwise (`np.add`); integers wrap, bools give logical or."
    add add_out Add: rule same, fuse true, batch true {
        bool => <T as Arith>::add, same("in0 || in1");
        int | float | complex => <T as Arith>::add, wrap("in0 + in1");
    }
    "`a - b` elementwise (`np.subtract`); integers wrap; bools are an error."
    subtract subtract_out Subtract: rule subtract, fuse true, batch true {
        int | float | complex => <T as Arith>::sub, wrap("in0 - in1");
    }
    "`a * b` elementwise (`np.multiply`); integers wrap, bools give logical and."
    multiply multiply_out Multiply: rule same, fuse true, batch true {
        bool => <T as Arith>::mul, same("in0 && in1");
        int | float | complex => <T as Arith>::mul, wrap("in0 * in1");
    }
    "True division `a / b` (`np.divide`); integers and bools give float64."
    divide divide_out Divide: rule divide, fuse true, batch true {
        float => <T as Inexact>::div, same("in0 / in1");
        complex => <T as Inexact>::div, same("c_div(in0, in1)").with(COMPLEX_MATH);
    }
    "`a // b` rounded toward negative infinity (`np.floor_divide`); integer division by 0 gives 0."
    floor_divide floor_divide_out FloorDivide: rule real_bool_as_int8, fuse true, batch false {
        int => <T as DivMod>::floor_div, same("py_floordiv(in0, in1)").with(INT_DIV);
        float => <T as DivMod>::floor_div, same("py_ffloordiv(in0, in1)").with(FLOAT_DIV);
    }
    "Remainder with the sign of the divisor, as Python's `%` (`np.remainder`, `np.mod`); integer remainder by 0 gives 0."
    remainder remainder_out Remainder: rule real_bool_as_int8, fuse true, batch false {
        int => <T as DivMod>::rem, same("py_mod(in0, in1)").with(INT_DIV);
        float => <T as DivMod>::rem, same("py_fmod(in0, in1)").with(FLOAT_DIV);
    }
    "`a ** b` elementwise (`np.power`); integers wrap, and integer bases to negative integer powers are an error."
    power power_out Power: rule bool_as_int8, fuse true, batch true {
        int => <T as Integer>::pow, same("int_pow(in0, in1)").with(INT_DIV);
        float => <T as Inexact>::pow, same("pow(in0, in1)");
        complex => <T as Inexact>::pow, same("c_pow(in0, in1)").with(COMPLEX_MATH);
    }
    "The larger of each pair (`np.maximum`); NaN propagates."
    maximum maximum_out Maximum: rule same, fuse true, batch true {
        float => <T as Arith>::maximum, same("nan_max(in0, in1)").with(FLOAT_DIV);
        int | bool => <T as Arith>::maximum, same("(in0 >= in1 ? in0 : in1)");
        complex => <T as Arith>::maximum, same("c_maximum(in0, in1)").with(COMPLEX_MATH);
    }
    "The smaller of each pair (`np.minimum`); NaN propagates."
    minimum minimum_out Minimum: rule same, fuse true, batch true {
        float => <T as Arith>::minimum, same("nan_min(in0, in1)").with(FLOAT_DIV);
        int | bool => <T as Arith>::minimum, same("(in0 <= in1 ? in0 : in1)");
        complex => <T as Arith>::minimum, same("c_minimum(in0, in1)").with(COMPLEX_MATH);
    }
    "The larger of each pair, ignoring NaN unless both are NaN (`np.fmax`)."
    fmax fmax_out Fmax: rule same, fuse true, batch false {
        float => <T as Arith>::fmax, same("fmax(in0, in1)");
        int | bool => <T as Arith>::fmax, same("(in0 >= in1 ? in0 : in1)");
        complex => <T as Arith>::fmax, same("c_fmax(in0, in1)").with(COMPLEX_MATH);
    }
    "The smaller of each pair, ignoring NaN unless both are NaN (`np.fmin`)."
    fmin fmin_out Fmin: rule same, fuse true, batch false {
        float => <T as Arith>::fmin, same("fmin(in0, in1)");
        int | bool => <T as Arith>::fmin, same("(in0 <= in1 ? in0 : in1)");
        complex => <T as Arith>::fmin, same("c_fmin(in0, in1)").with(COMPLEX_MATH);
    }
    "The angle of the point `(b, a)`: `atan(a / b)` in the right quadrant (`np.arctan2`); real inputs only."
    arctan2 arctan2_out Arctan2: rule real_float_math, fuse true, batch false {
        float => <T as RealOnly>::atan2, same("atan2(in0, in1)");
    }
    "`a == b` elementwise, as bool (`np.equal`)."
    equal equal_out Equal: rule test, fuse true, batch true {
        bool | int | float | complex => |x: T, y: T| x == y, test("in0 == in1");
    }
    "`a != b` elementwise, as bool (`np.not_equal`)."
    not_equal not_equal_out NotEqual: rule test, fuse true, batch true {
        bool | int | float | complex => |x: T, y: T| x != y, test("in0 != in1");
    }
    "`a < b` elementwise, as bool (`np.less`); complex numbers compare lexicographically."
    less less_out Less: rule test, fuse true, batch true {
        bool | int | float => <T as Arith>::lt, test("in0 < in1");
        complex => <T as Arith>::lt, test("c_lt(in0, in1)").with(COMPLEX_MATH);
    }
    "`a <= b` elementwise, as bool (`np.less_equal`)."
    less_equal less_equal_out LessEqual: rule test, fuse true, batch true {
        bool | int | float => <T as Arith>::le, test("in0 <= in1");
        complex => <T as Arith>::le, test("c_le(in0, in1)").with(COMPLEX_MATH);
    }
    "`a > b` elementwise, as bool (`np.greater`)."
    greater greater_out Greater: rule test, fuse true, batch true {
        bool | int | float => |x: T, y: T| <T as Arith>::lt(y, x), test("in0 > in1");
        complex => |x: T, y: T| <T as Arith>::lt(y, x), test("c_lt(in1, in0)").with(COMPLEX_MATH);
    }
    "`a >= b` elementwise, as bool (`np.greater_equal`)."
    greater_equal greater_equal_out GreaterEqual: rule test, fuse true, batch true {
        bool | int | float => |x: T, y: T| <T as Arith>::le(y, x), test("in0 >= in1");
        complex => |x: T, y: T| <T as Arith>::le(y, x), test("c_le(in1, in0)").with(COMPLEX_MATH);
    }
    "Truth of `a` and `b` (non-zero values are true), as bool (`np.logical_and`)."
    logical_and logical_and_out LogicalAnd: rule logical, fuse true, batch false {
        bool => |x: bool, y: bool| x & y, test("(in0 && in1)");
    }
    "Truth of `a` or `b`, as bool (`np.logical_or`)."
    logical_or logical_or_out LogicalOr: rule logical, fuse true, batch false {
        bool => |x: bool, y: bool| x | y, test("(in0 || in1)");
    }
    "Truth of exactly one of `a` and `b`, as bool (`np.logical_xor`)."
    logical_xor logical_xor_out LogicalXor: rule logical, fuse true, batch false {
        bool => |x: bool, y: bool| x ^ y, test("(in0 != in1)");
    }
    "Bitwise `a & b` of bools and integers (`np.bitwise_and`)."
    bitwise_and bitwise_and_out BitwiseAnd: rule bits, fuse true, batch false {
        bool | int => <T as Bits>::and, wrap("in0 & in1");
    }
    "Bitwise `a | b` of bools and integers (`np.bitwise_or`)."
    bitwise_or bitwise_or_out BitwiseOr: rule bits, fuse true, batch false {
        bool | int => <T as Bits>::or, wrap("in0 | in1");
    }
    "Bitwise `a ^ b` of bools and integers (`np.bitwise_xor`)."
    bitwise_xor bitwise_xor_out BitwiseXor: rule bits, fuse true, batch false {
        bool | int => <T as Bits>::xor, wrap("in0 ^ in1");
    }
    "`a << b` of integers (`np.left_shift`); shifts of the bit width or more give 0."
    left_shift left_shift_out LeftShift: rule shift, fuse true, batch false {
        int => <T as Integer>::shl, same("int_shl(in0, in1)").with(INT_DIV);
    }
    "`a >> b` of integers, arithmetic for signed types (`np.right_shift`); shifts of the bit width or more give 0 or -1."
    right_shift right_shift_out RightShift: rule shift, fuse true, batch false {
        int => <T as Integer>::shr, same("int_shr(in0, in1)").with(INT_DIV);
    }
    "`sqrt(a**2 + b**2)` without intermediate overflow (`np.hypot`); real inputs only."
    hypot hypot_out Hypot: rule real_float_math, fuse true, batch false {
        float => <T as FloatExtra>::hypot, same("hypot(in0, in1)");
    }
    "`log(exp(a) + exp(b))` without overflow (`np.logaddexp`); real inputs only."
    logaddexp logaddexp_out Logaddexp: rule real_float_math, fuse true, batch false {
        float => <T as FloatExtra>::logaddexp, same("np_logaddexp(in0, in1)").with(FLOAT_EXTRA);
    }
    "`log2(2**a + 2**b)` without overflow (`np.logaddexp2`); real inputs only."
    logaddexp2 logaddexp2_out Logaddexp2: rule real_float_math, fuse true, batch false {
        float => <T as FloatExtra>::logaddexp2, same("np_logaddexp2(in0, in1)").with(FLOAT_EXTRA);
    }
    "`a` with the sign of `b` (`np.copysign`); real inputs only."
    copysign copysign_out Copysign: rule real_float_math, fuse true, batch false {
        float => <T as FloatExtra>::copysign, same("copysign(in0, in1)");
    }
    "The next representable value after `a` toward `b`, in the loop dtype (`np.nextafter`)."
    nextafter nextafter_out Nextafter: rule real_float_math, fuse true, batch false {
        f32f64 => <T as NextAfter>::next_after, same("nextafter(in0, in1)");
        f16 => <T as NextAfter>::next_after, same("np_nextafter_half<f16>(in0, in1)").with(FLOAT_EXTRA);
        bf16 => <T as NextAfter>::next_after, same("np_nextafter_half<bf16>(in0, in1)").with(FLOAT_EXTRA);
    }
    "The Heaviside step: 0 for `a < 0`, `b` where `a == 0`, 1 for `a > 0`, NaN for NaN (`np.heaviside`)."
    heaviside heaviside_out Heaviside: rule real_float_math, fuse true, batch false {
        float => <T as FloatExtra>::heaviside, same("np_heaviside(in0, in1)").with(FLOAT_EXTRA);
    }

    // SciPy's special functions (`cp::special`).
    "The beta function `gamma(a) gamma(b) / gamma(a + b)` (`scipy.special.beta`)."
    beta beta_out Beta: rule special, fuse true, batch false, module special {
        float => <T as Special>::beta, same("sp_beta(in0, in1)").with(SPECIAL);
    }
    "The log of the absolute value of the beta function (`scipy.special.betaln`)."
    betaln betaln_out Betaln: rule special, fuse true, batch false, module special {
        float => <T as Special>::betaln, same("sp_betaln(in0, in1)").with(SPECIAL);
    }
    "The regularized lower incomplete gamma function `P(a, x)`; NaN for negative a or x (`scipy.special.gammainc`)."
    gammainc gammainc_out Gammainc: rule special, fuse true, batch false, module special {
        float => <T as Special>::gammainc, same("sp_gammainc(in0, in1)").with(SPECIAL);
    }
    "The regularized upper incomplete gamma function `Q(a, x) = 1 - P(a, x)`, accurate where P is near 1 (`scipy.special.gammaincc`)."
    gammaincc gammaincc_out Gammaincc: rule special, fuse true, batch false, module special {
        float => <T as Special>::gammaincc, same("sp_gammaincc(in0, in1)").with(SPECIAL);
    }
    "The inverse of `gammainc` in x: the `x >= 0` with `P(a, x) = p`; NaN for a <= 0 (but 0 at p = 0) or p outside [0, 1] (`scipy.special.gammaincinv`)."
    gammaincinv gammaincinv_out Gammaincinv: rule special, fuse true, batch false, module special {
        float => <T as Special>::gammaincinv, same("sp_gammaincinv(in0, in1)").with(SPECIAL);
    }
    "The inverse of `gammaincc` in x: the `x >= 0` with `Q(a, x) = q` (`scipy.special.gammainccinv`)."
    gammainccinv gammainccinv_out Gammainccinv: rule special, fuse true, batch false, module special {
        float => <T as Special>::gammainccinv, same("sp_gammainccinv(in0, in1)").with(SPECIAL);
    }
    "The Hurwitz zeta function `sum over k >= 0 of (k + q)^-x`; infinite at x = 1, NaN below (`scipy.special.zeta(x, q)`)."
    zeta zeta_out Zeta: rule special, fuse true, batch false, module special {
        float => <T as Special>::zeta, same("sp_zeta(in0, in1)").with(SPECIAL);
    }
    "The n-th derivative of digamma, `(-1)^(n+1) n! zeta(n + 1, x)`; NaN for non-integer or negative n (`scipy.special.polygamma`)."
    polygamma polygamma_out Polygamma: rule special, fuse true, batch false, module special {
        float => <T as Special>::polygamma, same("sp_polygamma(in0, in1)").with(SPECIAL);
    }
    "The Bessel function of the first kind of real order v, `jv(v, x)`; NaN for x < 0 unless v is an integer (`scipy.special.jv`)."
    jv jv_out Jv: rule special, fuse true, batch false, module special {
        float => <T as Special>::jv, same("sp_jv(in0, in1)").with(SPECIAL);
    }
    "The Bessel function of the second kind of real order v, `yv(v, x)`; `-inf` at 0, NaN below (`scipy.special.yv`)."
    yv yv_out Yv: rule special, fuse true, batch false, module special {
        float => <T as Special>::yv, same("sp_yv(in0, in1)").with(SPECIAL);
    }
    "The modified Bessel function of the first kind of real order v, `iv(v, x)`; NaN for x < 0 unless v is an integer (`scipy.special.iv`)."
    iv iv_out Iv: rule special, fuse true, batch false, module special {
        float => <T as Special>::iv, same("sp_iv(in0, in1)").with(SPECIAL);
    }
    "The exponentially scaled `exp(-|x|) iv(v, x)` (`scipy.special.ive`)."
    ive ive_out Ive: rule special, fuse true, batch false, module special {
        float => <T as Special>::ive, same("sp_ive(in0, in1)").with(SPECIAL);
    }
    "The modified Bessel function of the second kind of real order v, `kv(v, x)`; infinite at 0, NaN below (`scipy.special.kv`)."
    kv kv_out Kv: rule special, fuse true, batch false, module special {
        float => <T as Special>::kv, same("sp_kv(in0, in1)").with(SPECIAL);
    }
    "The exponentially scaled `exp(x) kv(v, x)` (`scipy.special.kve`)."
    kve kve_out Kve: rule special, fuse true, batch false, module special {
        float => <T as Special>::kve, same("sp_kve(in0, in1)").with(SPECIAL);
    }
    "The binomial coefficient `n choose k` for real n and k; NaN for negative integer n (`scipy.special.binom`)."
    binom binom_out Binom: rule special, fuse true, batch false, module special {
        float => <T as Special>::binom, same("sp_binom(in0, in1)").with(SPECIAL);
    }
    "The Huber loss of residual `r` with threshold `delta`: `r^2 / 2` within delta, `delta (|r| - delta / 2)` beyond (`scipy.special.huber(delta, r)`)."
    huber huber_out Huber: rule special, fuse true, batch false, module special {
        float => <T as Special>::huber, same("sp_huber(in0, in1)").with(SPECIAL);
    }
    "The pseudo-Huber loss `delta^2 (sqrt(1 + (r / delta)^2) - 1)` (`scipy.special.pseudo_huber(delta, r)`)."
    pseudo_huber pseudo_huber_out PseudoHuber: rule special, fuse true, batch false, module special {
        float => <T as Special>::pseudo_huber, same("sp_pseudo_huber(in0, in1)").with(SPECIAL);
    }
    "`x * log(y)`, 0 where x is 0 and y is not NaN (`scipy.special.xlogy`)."
    xlogy xlogy_out Xlogy: rule special, fuse true, batch false, module special {
        float => <T as Special>::xlogy, same("sp_xlogy(in0, in1)").with(SPECIAL);
    }
    "`x * log1p(y)`, 0 where x is 0 and y is not NaN (`scipy.special.xlog1py`)."
    xlog1py xlog1py_out Xlog1py: rule special, fuse true, batch false, module special {
        float => <T as Special>::xlog1py, same("sp_xlog1py(in0, in1)").with(SPECIAL);
    }
    "The relative entropy term `x log(x / y)`: 0 for x = 0, y >= 0, infinite where x or y is negative (`scipy.special.rel_entr`)."
    rel_entr rel_entr_out RelEntr: rule special, fuse true, batch false, module special {
        float => <T as Special>::rel_entr, same("sp_rel_entr(in0, in1)").with(SPECIAL);
    }
    "The Kullback-Leibler term `x log(x / y) - x + y`: y for x = 0, y >= 0, infinite where x or y is negative (`scipy.special.kl_div`)."
    kl_div kl_div_out KlDiv: rule special, fuse true, batch false, module special {
        float => <T as Special>::kl_div, same("sp_kl_div(in0, in1)").with(SPECIAL);
    }
}

ufunc_family! {
    Ternary, Map3, for_each_ternary;

    // SciPy's special functions (`cp::special`). `fuse` has no ternary nodes.
    "The regularized incomplete beta function `I_x(a, b)`; NaN for a <= 0, b <= 0 or x outside [0, 1] (`scipy.special.betainc(a, b, x)`)."
    betainc betainc_out Betainc: rule special, fuse false, batch false, module special {
        float => <T as Special>::betainc, same("sp_betainc(in0, in1, in2)").with(SPECIAL);
    }
    "The inverse of `betainc` in x: the `x` in [0, 1] with `I_x(a, b) = y`; NaN for a <= 0, b <= 0 or y outside [0, 1] (`scipy.special.betaincinv(a, b, y)`)."
    betaincinv betaincinv_out Betaincinv: rule special, fuse false, batch false, module special {
        float => <T as Special>::betaincinv, same("sp_betaincinv(in0, in1, in2)").with(SPECIAL);
    }
}

/// A ufunc of any family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Ufunc {
    Unary(Unary),
    Binary(Binary),
    Ternary(Ternary),
}

impl Ufunc {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Ufunc::Unary(u) => u.name(),
            Ufunc::Binary(b) => b.name(),
            Ufunc::Ternary(t) => t.name(),
        }
    }
    pub(crate) fn arity(self) -> usize {
        match self {
            Ufunc::Unary(_) => 1,
            Ufunc::Binary(_) => 2,
            Ufunc::Ternary(_) => 3,
        }
    }
    pub(crate) fn gpu(self, dt: DType) -> Option<Gpu> {
        match self {
            Ufunc::Unary(u) => u.gpu(dt),
            Ufunc::Binary(b) => b.gpu(dt),
            Ufunc::Ternary(t) => t.gpu(dt),
        }
    }
    pub(crate) fn batchable(self) -> bool {
        match self {
            Ufunc::Unary(u) => u.batchable(),
            Ufunc::Binary(b) => b.batchable(),
            Ufunc::Ternary(t) => t.batchable(),
        }
    }
    /// The loop and result dtypes for loop dtype `dt`.
    pub(crate) fn types(self, dt: DType) -> Types {
        match self {
            Ufunc::Unary(u) => u.types(dt),
            Ufunc::Binary(b) => b.types(dt),
            Ufunc::Ternary(t) => t.types(dt),
        }
    }
    /// Every ufunc, unary ones first, in table order.
    pub(crate) fn all() -> impl Iterator<Item = Ufunc> {
        Unary::ALL
            .iter()
            .map(|&u| Ufunc::Unary(u))
            .chain(Binary::ALL.iter().map(|&b| Ufunc::Binary(b)))
            .chain(Ternary::ALL.iter().map(|&t| Ufunc::Ternary(t)))
    }
}

/// The dtype a loop of `dt` computes in on the GPU: float32 for the half types.
pub(crate) fn gpu_compute_dtype(dt: DType) -> DType {
    dt.compute_dtype()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_covered_dtype_has_both_halves() {
        for op in Ufunc::all() {
            for dt in DType::ALL {
                let covered = match op {
                    Ufunc::Unary(u) => u.covers(dt),
                    Ufunc::Binary(b) => b.covers(dt),
                    Ufunc::Ternary(t) => t.covers(dt),
                };
                assert_eq!(
                    covered,
                    op.gpu(dt).is_some(),
                    "{}: {dt}: the GPU half must exist exactly where a loop does",
                    op.name()
                );
            }
        }
    }

    #[test]
    fn rules_admit_only_covered_loops() {
        for &u in Unary::ALL {
            for dt in DType::ALL {
                if let Ok((l, _)) = u.types(dt) {
                    assert!(u.covers(l), "{} {dt}", u.name());
                }
            }
        }
        assert_eq!(
            Unary::Cbrt.types(DType::Complex64),
            Err(Reject::Unsupported(VALID_REAL))
        );
        assert_eq!(
            Binary::Add.types(DType::Int8),
            Ok((DType::Int8, DType::Int8))
        );
        assert_eq!(
            Unary::Angle.types(DType::Complex64),
            Ok((DType::Complex64, DType::Float32))
        );
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = Ufunc::all().map(|u| u.name()).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}

/// One input of an elementwise operation on a backend: an array, or a
/// scalar passed by value in the given dtype (the loop dtype of a ufunc).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Input<'a> {
    Array(crate::core::view::View<'a>),
    Scalar(crate::core::element::Scalar, DType),
}

/// What an elementwise operation computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MapOp {
    /// A row of the ufunc table.
    Ufunc(Ufunc),
    /// `round` to this many decimals (`np.round(a, decimals)`).
    Round(i32),
    /// `clip(a, lo, hi)`: the table's `minimum(maximum(a, lo), hi)`.
    Clip,
}

impl MapOp {
    /// The operation's name, for messages.
    pub(crate) fn name(self) -> &'static str {
        match self {
            MapOp::Ufunc(u) => u.name(),
            MapOp::Round(_) => "round",
            MapOp::Clip => "clip",
        }
    }
}

/// The error for a loop the table lacks after type resolution admitted it
/// (an internal inconsistency, reported rather than panicking).
pub(crate) fn no_loop(name: &'static str, dt: DType) -> crate::core::error::Error {
    crate::core::error::Error::DType {
        op: name,
        detail: format!("no {dt} loop (please report this)"),
    }
}

/// Elementwise ufuncs over broadcast inputs, from the ufunc table, and
/// `round` and `clip`. The front end has resolved the loop dtype, checked
/// shapes and that scalar inputs fit the loop dtype.
/// The backend trait of this op family (see `ops::backend`).
pub(crate) trait Elementwise {
    /// `op` of `inputs` (broadcast to `layout`'s shape, converted to
    /// `loop_dt`) as a new buffer of `out_dt` seen through the C-contiguous `layout`.
    fn map_new(
        &self,
        op: MapOp,
        loop_dt: DType,
        out_dt: DType,
        inputs: &[Input<'_>],
        layout: &crate::core::layout::Layout,
    ) -> crate::core::error::Result<crate::core::storage::Storage>;
    /// `op` of `inputs` (broadcast to `out`'s shape, converted to
    /// `loop_dt`) written into `out`, cast to its dtype; `out` may overlap the inputs.
    fn map_into(
        &self,
        op: MapOp,
        loop_dt: DType,
        inputs: &[Input<'_>],
        out: crate::core::view::View<'_>,
    ) -> crate::core::error::Result<()>;
}
