//! Operators on arrays: `&a + &b`, `&a * 2.0`, `1.0 - &a`, `-&a`, `!&mask`,
//! `(&a + &b) * 2.0`, `a += &b`.
//!
//! Each operator is the elementwise function of the same name in the crate
//! root (`+` is [`add`](crate::add), `/` is [`divide`](crate::divide), `%`
//! is [`remainder`](crate::remainder), `!` is [`invert`](crate::invert), `a
//! += b` is [`add_out`](crate::add_out) into `a`, ...), with its broadcasting
//! and NumPy 2 type rules: Rust scalars are weak, so `&x_f32 * 2.0` stays
//! float32 and `&x_i8 + 1` stays int8.
//!
//! ```
//! use cuprite as cp;
//! let a = cp::asarray(vec![1.0f32, 2.0])?;
//! let b = (&a + 1.0) * &a - 0.5; // float32
//! assert_eq!(b.to_vec::<f32>()?, vec![1.5, 5.5]);
//! // A literal on the left that starts a chain needs its type spelled out:
//! let c = (1.0f64 - &a) * 2 + (&a * &a) / 4;
//! assert_eq!(c.to_vec::<f32>()?, vec![0.25, -1.0]);
//! let mask = !cp::greater(&a, 1.5)?;
//! assert_eq!(mask.to_vec::<bool>()?, vec![true, false]);
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! # Panics
//!
//! An operator cannot return a `Result`. Where the function would return an
//! error, the operator panics with exactly that error's message, for example
//! `add: cannot broadcast shapes (3, 4) and (5,)`. Call the functions (`cp::add(&a,
//! &b)?`) to handle errors instead of panicking.
//!
//! ```should_panic
//! use cuprite as cp;
//! let a = cp::ones([3, 4], cp::f64).unwrap();
//! let b = cp::ones([5], cp::f64).unwrap();
//! let _ = &a + &b; // panics: "add: cannot broadcast shapes (3, 4) and (5,)"
//! ```
//!
//! Arrays may be borrowed or owned on either side; owned operands let
//! expressions chain without borrows of temporaries. Scalars may be any
//! Rust number (`f64`, `f32`, `i8` to `i64`, `u8` to `u64`, `isize`,
//! `usize`), `bool`, or `Complex32`/`Complex64` ([`ScalarOperand`]); the
//! bitwise operators and shifts take integer and bool scalars only. All Rust
//! scalars are weak, so `2.0f32` and `2.0f64` give the same result dtype.
//!
//! With an array on the left, untyped literals work anywhere in a chain:
//! `(&a + 1.0) * 2`. A literal on the *left* of an operator whose result is
//! used by another operator needs a suffix (`(1.0f64 - &a) * 2`, not `(1.0 -
//! &a) * 2`): Rust must pick one of the scalar types before it can see that
//! every choice gives an `Array`.

use std::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign,
    Mul, MulAssign, Neg, Not, Rem, RemAssign, Shl, Shr, Sub, SubAssign,
};

use num_complex::{Complex32, Complex64};

use crate::api::elementwise as ufunc;
use crate::api::operand::IntoOperand;
use crate::core::array::Array;
use crate::core::error::Result;

/// The array, or a panic with the error's message.
#[track_caller]
fn or_panic<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

/// Rust scalars usable with the operators (`&a * 2.0`, `1 - &a`): the
/// numbers, `bool`, `Complex32` and `Complex64`.
///
/// The operators with an array on the left are generic over this trait, so
/// their output type is known before an untyped literal is resolved and
/// `(&a + 1.0) * &a` type-checks.
pub trait ScalarOperand: IntoOperand<'static> + Copy + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! scalar_operand {
    ($($S:ty),*) => {$(
        impl sealed::Sealed for $S {}
        impl ScalarOperand for $S {}
    )*};
}
scalar_operand!(
    f64, f32, i64, i32, i16, i8, isize, u64, u32, u16, u8, usize, bool, Complex64, Complex32
);

/// Integer and bool scalars, for the bitwise operators and shifts.
pub trait IntegerScalarOperand: ScalarOperand {}

macro_rules! integer_scalar_operand {
    ($($S:ty),*) => {$(
        impl IntegerScalarOperand for $S {}
    )*};
}
integer_scalar_operand!(i64, i32, i16, i8, isize, u64, u32, u16, u8, usize, bool);

macro_rules! binary_op {
    ($Trait:ident, $method:ident, $func:path, $Bound:ident; $($S:ty),*) => {
        impl $Trait<&Array> for &Array {
            type Output = Array;
            #[track_caller]
            fn $method(self, rhs: &Array) -> Array {
                or_panic($func(self, rhs))
            }
        }
        impl $Trait<Array> for &Array {
            type Output = Array;
            #[track_caller]
            fn $method(self, rhs: Array) -> Array {
                or_panic($func(self, rhs))
            }
        }
        impl $Trait<&Array> for Array {
            type Output = Array;
            #[track_caller]
            fn $method(self, rhs: &Array) -> Array {
                or_panic($func(self, rhs))
            }
        }
        impl $Trait<Array> for Array {
            type Output = Array;
            #[track_caller]
            fn $method(self, rhs: Array) -> Array {
                or_panic($func(self, rhs))
            }
        }
        impl<S: $Bound> $Trait<S> for &Array {
            type Output = Array;
            #[track_caller]
            fn $method(self, rhs: S) -> Array {
                or_panic($func(self, rhs))
            }
        }
        impl<S: $Bound> $Trait<S> for Array {
            type Output = Array;
            #[track_caller]
            fn $method(self, rhs: S) -> Array {
                or_panic($func(self, rhs))
            }
        }
        $(
            impl $Trait<&Array> for $S {
                type Output = Array;
                #[track_caller]
                fn $method(self, rhs: &Array) -> Array {
                    or_panic($func(self, rhs))
                }
            }
            impl $Trait<Array> for $S {
                type Output = Array;
                #[track_caller]
                fn $method(self, rhs: Array) -> Array {
                    or_panic($func(self, rhs))
                }
            }
        )*
    };
}

macro_rules! assign_op {
    ($Trait:ident, $method:ident, $func_out:path, $Bound:ident) => {
        impl $Trait<&Array> for Array {
            #[track_caller]
            fn $method(&mut self, rhs: &Array) {
                let lhs = self.clone();
                or_panic($func_out(&lhs, rhs, self))
            }
        }
        impl $Trait<Array> for Array {
            #[track_caller]
            fn $method(&mut self, rhs: Array) {
                let lhs = self.clone();
                or_panic($func_out(&lhs, &rhs, self))
            }
        }
        impl<S: $Bound> $Trait<S> for Array {
            #[track_caller]
            fn $method(&mut self, rhs: S) {
                let lhs = self.clone();
                or_panic($func_out(&lhs, rhs, self))
            }
        }
    };
}

macro_rules! arith_ops {
    ($($S:ty),*) => {
        binary_op!(Add, add, ufunc::add, ScalarOperand; $($S),*);
        binary_op!(Sub, sub, ufunc::subtract, ScalarOperand; $($S),*);
        binary_op!(Mul, mul, ufunc::multiply, ScalarOperand; $($S),*);
        binary_op!(Div, div, ufunc::divide, ScalarOperand; $($S),*);
        binary_op!(Rem, rem, ufunc::remainder, ScalarOperand; $($S),*);
    };
}

macro_rules! bit_ops {
    ($($S:ty),*) => {
        binary_op!(BitAnd, bitand, ufunc::bitwise_and, IntegerScalarOperand; $($S),*);
        binary_op!(BitOr, bitor, ufunc::bitwise_or, IntegerScalarOperand; $($S),*);
        binary_op!(BitXor, bitxor, ufunc::bitwise_xor, IntegerScalarOperand; $($S),*);
        binary_op!(Shl, shl, ufunc::left_shift, IntegerScalarOperand; $($S),*);
        binary_op!(Shr, shr, ufunc::right_shift, IntegerScalarOperand; $($S),*);
    };
}

arith_ops!(
    f64, f32, i64, i32, i16, i8, isize, u64, u32, u16, u8, usize, bool, Complex64, Complex32
);
bit_ops!(i64, i32, i16, i8, isize, u64, u32, u16, u8, usize, bool);

assign_op!(AddAssign, add_assign, ufunc::add_out, ScalarOperand);
assign_op!(SubAssign, sub_assign, ufunc::subtract_out, ScalarOperand);
assign_op!(MulAssign, mul_assign, ufunc::multiply_out, ScalarOperand);
assign_op!(DivAssign, div_assign, ufunc::divide_out, ScalarOperand);
assign_op!(RemAssign, rem_assign, ufunc::remainder_out, ScalarOperand);
assign_op!(
    BitAndAssign,
    bitand_assign,
    ufunc::bitwise_and_out,
    IntegerScalarOperand
);
assign_op!(
    BitOrAssign,
    bitor_assign,
    ufunc::bitwise_or_out,
    IntegerScalarOperand
);
assign_op!(
    BitXorAssign,
    bitxor_assign,
    ufunc::bitwise_xor_out,
    IntegerScalarOperand
);

impl Neg for &Array {
    type Output = Array;
    #[track_caller]
    fn neg(self) -> Array {
        or_panic(ufunc::negative(self))
    }
}

impl Neg for Array {
    type Output = Array;
    #[track_caller]
    fn neg(self) -> Array {
        or_panic(ufunc::negative(self))
    }
}

impl Not for &Array {
    type Output = Array;
    #[track_caller]
    fn not(self) -> Array {
        or_panic(ufunc::invert(self))
    }
}

impl Not for Array {
    type Output = Array;
    #[track_caller]
    fn not(self) -> Array {
        or_panic(ufunc::invert(self))
    }
}
