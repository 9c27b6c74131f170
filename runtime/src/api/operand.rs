//! Arguments of elementwise operations: arrays or Rust scalars.
//!
//! Rust scalars are weak operands (NEP 50): they adopt the dtype of the
//! arrays they meet, so `&x_f32 * 2.0` is float32. A weak integer that does
//! not fit the resulting integer dtype is an error, as in NumPy 2.

use std::borrow::Cow;

use num_complex::{Complex32, Complex64};

use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{DType, TypeOperand};
use crate::core::element::{Element, Scalar};
use crate::core::error::{Error, Result};

/// An array (borrowed or owned) or a weak Rust scalar.
#[derive(Debug, Clone)]
pub enum Operand<'a> {
    /// An array operand (strong dtype).
    Array(Cow<'a, Array>),
    /// A Rust scalar (weak dtype).
    Scalar(Scalar),
}

/// Anything usable as an operand: `&Array`, `Array`, or a Rust number or bool.
pub trait IntoOperand<'a> {
    /// Converts into an operand.
    fn into_operand(self) -> Operand<'a>;
}

impl<'a> IntoOperand<'a> for &'a Array {
    fn into_operand(self) -> Operand<'a> {
        Operand::Array(Cow::Borrowed(self))
    }
}
impl<'a> IntoOperand<'a> for Array {
    fn into_operand(self) -> Operand<'a> {
        Operand::Array(Cow::Owned(self))
    }
}
impl<'a> IntoOperand<'a> for &&'a Array {
    fn into_operand(self) -> Operand<'a> {
        Operand::Array(Cow::Borrowed(*self))
    }
}
impl<'a> IntoOperand<'a> for Operand<'a> {
    fn into_operand(self) -> Operand<'a> {
        self
    }
}

macro_rules! scalar_operand {
    ($($t:ty),*) => {$(
        impl<'a> IntoOperand<'a> for $t {
            fn into_operand(self) -> Operand<'a> {
                Operand::Scalar(Scalar::from(self))
            }
        }
    )*};
}
scalar_operand!(
    bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64, Complex32, Complex64
);

impl Operand<'_> {
    /// The operand's part in type resolution.
    pub fn type_operand(&self) -> TypeOperand {
        match self {
            Operand::Array(a) => TypeOperand::Strong(a.dtype()),
            Operand::Scalar(s) => TypeOperand::Weak(s.weak_kind()),
        }
    }

    /// The shape the operand broadcasts as (`()` for a scalar).
    pub fn shape(&self) -> &[usize] {
        match self {
            Operand::Array(a) => a.shape(),
            Operand::Scalar(_) => &[],
        }
    }

    /// The array, if this operand is one.
    pub fn as_array(&self) -> Option<&Array> {
        match self {
            Operand::Array(a) => Some(a),
            Operand::Scalar(_) => None,
        }
    }

    /// The operand as an array: the array itself, or the scalar as a 0-d
    /// array of `dtype` on `device` (a weak integer must fit `dtype`).
    pub fn to_array(&self, op: &'static str, dtype: DType, device: Device) -> Result<Array> {
        match self {
            Operand::Array(a) => Ok(a.as_ref().clone()),
            Operand::Scalar(s) => {
                if dtype.is_integer() && !s.fits(dtype) {
                    return Err(Error::InvalidArgument {
                        op,
                        detail: format!("the Rust integer {s} does not fit in {dtype}"),
                    });
                }
                device.check_available(op)?;
                let data = crate::with_dtype!(dtype, T => T::into_data(vec![T::from_scalar(*s)]));
                Array::from_host(data, &[], device)
            }
        }
    }
}

/// The device shared by the array operands (the current device when there are none).
///
/// Every elementwise operation starts here, so it also stops one when an
/// interrupt is pending (`Error::Interrupted`, see [`crate::interrupt`]).
pub fn common_device(op: &'static str, operands: &[&Operand<'_>]) -> Result<Device> {
    crate::core::interrupt::check(op)?;
    let mut found: Option<Device> = None;
    for o in operands {
        if let Operand::Array(a) = o {
            match found {
                None => found = Some(a.device()),
                Some(d) if d != a.device() => {
                    return Err(Error::DeviceMismatch {
                        op,
                        a: d.to_string(),
                        b: a.device().to_string(),
                    })
                }
                _ => {}
            }
        }
    }
    Ok(found.unwrap_or_else(crate::backend::probe::current_device))
}
