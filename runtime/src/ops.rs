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
//! # Panics
//!
//! An operator cannot return a `Result`. Where the function would return an
//! error, the operator panics with exactly that error's message, for example
//! `add: cannot broadcast shapes (3, 4) and (5,)`. Call the functions (`cp::add(&a,
//! &b)?`) to handle errors instead of panicking.
//!
//! Arrays may be borrowed or owned on either side; owned operands let
//! expressions chain without borrows of temporaries. Scalars may be any
//! Rust number (`f64`, `f32`, `i8` to `i64`, `u8` to `u64`, `isize`,
//! `usize`), `bool`, or `Complex32`/`Complex64`; the bitwise operators and
//! shifts take integer and bool scalars only.

use std::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign,
    Mul, MulAssign, Neg, Not, Rem, RemAssign, Shl, Shr, Sub, SubAssign,
};

use num_complex::{Complex32, Complex64};

use crate::array::Array;
use crate::error::Result;
use crate::ufunc;

/// The array, or a panic with the error's message.
#[track_caller]
fn or_panic<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

macro_rules! binary_op {
    ($Trait:ident, $method:ident, $func:path; $($S:ty),*) => {
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
        $(
            impl $Trait<$S> for &Array {
                type Output = Array;
                #[track_caller]
                fn $method(self, rhs: $S) -> Array {
                    or_panic($func(self, rhs))
                }
            }
            impl $Trait<$S> for Array {
                type Output = Array;
                #[track_caller]
                fn $method(self, rhs: $S) -> Array {
                    or_panic($func(self, rhs))
                }
            }
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
    ($Trait:ident, $method:ident, $func_out:path; $($S:ty),*) => {
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
        $(
            impl $Trait<$S> for Array {
                #[track_caller]
                fn $method(&mut self, rhs: $S) {
                    let lhs = self.clone();
                    or_panic($func_out(&lhs, rhs, self))
                }
            }
        )*
    };
}

macro_rules! arith_ops {
    ($($S:ty),*) => {
        binary_op!(Add, add, ufunc::add; $($S),*);
        binary_op!(Sub, sub, ufunc::subtract; $($S),*);
        binary_op!(Mul, mul, ufunc::multiply; $($S),*);
        binary_op!(Div, div, ufunc::divide; $($S),*);
        binary_op!(Rem, rem, ufunc::remainder; $($S),*);
        assign_op!(AddAssign, add_assign, ufunc::add_out; $($S),*);
        assign_op!(SubAssign, sub_assign, ufunc::subtract_out; $($S),*);
        assign_op!(MulAssign, mul_assign, ufunc::multiply_out; $($S),*);
        assign_op!(DivAssign, div_assign, ufunc::divide_out; $($S),*);
        assign_op!(RemAssign, rem_assign, ufunc::remainder_out; $($S),*);
    };
}

macro_rules! bit_ops {
    ($($S:ty),*) => {
        binary_op!(BitAnd, bitand, ufunc::bitwise_and; $($S),*);
        binary_op!(BitOr, bitor, ufunc::bitwise_or; $($S),*);
        binary_op!(BitXor, bitxor, ufunc::bitwise_xor; $($S),*);
        binary_op!(Shl, shl, ufunc::left_shift; $($S),*);
        binary_op!(Shr, shr, ufunc::right_shift; $($S),*);
        assign_op!(BitAndAssign, bitand_assign, ufunc::bitwise_and_out; $($S),*);
        assign_op!(BitOrAssign, bitor_assign, ufunc::bitwise_or_out; $($S),*);
        assign_op!(BitXorAssign, bitxor_assign, ufunc::bitwise_xor_out; $($S),*);
    };
}

arith_ops!(
    f64, f32, i64, i32, i16, i8, isize, u64, u32, u16, u8, usize, bool, Complex64, Complex32
);
bit_ops!(i64, i32, i16, i8, isize, u64, u32, u16, u8, usize, bool);

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
