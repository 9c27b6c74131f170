//! Kernel arguments: arrays, Rust scalars and raw device pointers, passed as
//! tuples or slices; grid and block sizes.

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::element::{Element, Scalar};
use crate::core::error::{Error, Result};

/// One argument of a user kernel.
#[derive(Debug, Clone, Copy)]
pub enum Arg<'a> {
    /// An array: passed by its device pointer (raw kernels) or indexed
    /// elementwise (elementwise and reduction kernels).
    Array(&'a Array),
    /// A scalar value with the dtype of the Rust type it came from.
    Scalar(Scalar, DType),
    /// A raw device address (raw kernels only).
    Ptr(u64),
}

impl Arg<'_> {
    /// A short description for messages: `float32 array of shape (3, 4)`, `scalar 2 (int32)`.
    pub(crate) fn describe(&self) -> String {
        match self {
            Arg::Array(a) => format!(
                "{} array of shape {}",
                a.dtype(),
                crate::core::error::fmt_shape(a.shape())
            ),
            Arg::Scalar(v, d) => format!("scalar {v} ({d})"),
            Arg::Ptr(p) => format!("device pointer {p:#x}"),
        }
    }
}

/// A raw device address passed to a raw kernel (`cp::DevicePtr(a_ptr)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DevicePtr(pub u64);

/// Anything that can be one kernel argument.
pub trait IntoArg<'a> {
    /// Converts into an [`Arg`].
    fn into_arg(self) -> Arg<'a>;
}

impl<'a> IntoArg<'a> for Arg<'a> {
    fn into_arg(self) -> Arg<'a> {
        self
    }
}
impl<'a> IntoArg<'a> for &'a Array {
    fn into_arg(self) -> Arg<'a> {
        Arg::Array(self)
    }
}
impl<'a> IntoArg<'a> for &'a mut Array {
    fn into_arg(self) -> Arg<'a> {
        Arg::Array(self)
    }
}
impl<'a> IntoArg<'a> for DevicePtr {
    fn into_arg(self) -> Arg<'a> {
        Arg::Ptr(self.0)
    }
}

macro_rules! scalar_arg {
    ($($t:ty),*) => {$(
        impl<'a> IntoArg<'a> for $t {
            fn into_arg(self) -> Arg<'a> {
                Arg::Scalar(self.to_scalar(), <$t as Element>::DTYPE)
            }
        }
    )*};
}
scalar_arg!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, Complex32, Complex64);

impl<'a> IntoArg<'a> for usize {
    fn into_arg(self) -> Arg<'a> {
        Arg::Scalar(Scalar::UInt(self as u64), DType::UInt64)
    }
}
impl<'a> IntoArg<'a> for isize {
    fn into_arg(self) -> Arg<'a> {
        Arg::Scalar(Scalar::Int(self as i64), DType::Int64)
    }
}
impl<'a> IntoArg<'a> for Scalar {
    fn into_arg(self) -> Arg<'a> {
        Arg::Scalar(self, self.default_dtype())
    }
}

/// The argument list of a kernel call: a tuple of [`IntoArg`] values (up to
/// 16), one value, or a slice / `Vec` of [`Arg`]s.
pub trait IntoArgs<'a> {
    /// The arguments in order.
    fn into_args(self) -> Vec<Arg<'a>>;
}

impl<'a> IntoArgs<'a> for () {
    fn into_args(self) -> Vec<Arg<'a>> {
        Vec::new()
    }
}
impl<'a> IntoArgs<'a> for Vec<Arg<'a>> {
    fn into_args(self) -> Vec<Arg<'a>> {
        self
    }
}
impl<'a> IntoArgs<'a> for &[Arg<'a>] {
    fn into_args(self) -> Vec<Arg<'a>> {
        self.to_vec()
    }
}
impl<'a, const N: usize> IntoArgs<'a> for [Arg<'a>; N] {
    fn into_args(self) -> Vec<Arg<'a>> {
        self.to_vec()
    }
}
impl<'a> IntoArgs<'a> for &'a Array {
    fn into_args(self) -> Vec<Arg<'a>> {
        vec![Arg::Array(self)]
    }
}

macro_rules! tuple_args {
    ($($name:ident),+) => {
        impl<'a, $($name: IntoArg<'a>),+> IntoArgs<'a> for ($($name,)+) {
            #[allow(non_snake_case)]
            fn into_args(self) -> Vec<Arg<'a>> {
                let ($($name,)+) = self;
                vec![$($name.into_arg()),+]
            }
        }
    };
}
tuple_args!(A);
tuple_args!(A, B);
tuple_args!(A, B, C);
tuple_args!(A, B, C, D);
tuple_args!(A, B, C, D, E);
tuple_args!(A, B, C, D, E, F);
tuple_args!(A, B, C, D, E, F, G);
tuple_args!(A, B, C, D, E, F, G, H);
tuple_args!(A, B, C, D, E, F, G, H, I);
tuple_args!(A, B, C, D, E, F, G, H, I, J);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);

pub use crate::ops::Dim3;

/// An integer usable as a grid or block extent.
pub trait DimInt: Copy {
    /// The value, or `None` when it is negative or above `u32::MAX`.
    fn to_u32(self) -> Option<u32>;
}
macro_rules! dim_int {
    ($($t:ty),*) => {$(
        impl DimInt for $t {
            fn to_u32(self) -> Option<u32> {
                u32::try_from(self).ok()
            }
        }
    )*};
}
dim_int!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// Grid and block sizes: an integer, or a tuple of 1 to 3 integers as in
/// CuPy (`(blocks,)`, `(bx, by)`, `(bx, by, bz)`), or a [`Dim3`].
pub trait IntoDim3 {
    /// The three extents, each at least 1.
    fn into_dim3(self) -> Result<Dim3>;
}

fn dim(what: &str, vals: &[Option<u32>]) -> Result<Dim3> {
    let mut d = [1u32; 3];
    for (k, v) in vals.iter().enumerate() {
        match v {
            Some(x) if *x >= 1 => d[k] = *x,
            _ => {
                return Err(Error::InvalidArgument {
                    op: "RawKernel::launch",
                    detail: format!(
                        "{what} extents must be between 1 and {} (got {:?})",
                        u32::MAX,
                        vals
                    ),
                })
            }
        }
    }
    Ok(Dim3 {
        x: d[0],
        y: d[1],
        z: d[2],
    })
}

impl IntoDim3 for Dim3 {
    fn into_dim3(self) -> Result<Dim3> {
        dim("grid/block", &[Some(self.x), Some(self.y), Some(self.z)])
    }
}
impl<T: DimInt> IntoDim3 for T {
    fn into_dim3(self) -> Result<Dim3> {
        dim("grid/block", &[self.to_u32()])
    }
}
impl<A: DimInt> IntoDim3 for (A,) {
    fn into_dim3(self) -> Result<Dim3> {
        dim("grid/block", &[self.0.to_u32()])
    }
}
impl<A: DimInt, B: DimInt> IntoDim3 for (A, B) {
    fn into_dim3(self) -> Result<Dim3> {
        dim("grid/block", &[self.0.to_u32(), self.1.to_u32()])
    }
}
impl<A: DimInt, B: DimInt, C: DimInt> IntoDim3 for (A, B, C) {
    fn into_dim3(self) -> Result<Dim3> {
        dim(
            "grid/block",
            &[self.0.to_u32(), self.1.to_u32(), self.2.to_u32()],
        )
    }
}

/// The one device of the array arguments (the current device when there
/// are none); mixing devices is an error. Every user kernel call starts
/// here, so a pending interrupt stops it here ([`crate::interrupt`]).
pub(crate) fn args_device(op: &'static str, args: &[Arg<'_>]) -> Result<crate::Device> {
    crate::core::interrupt::check(op)?;
    let mut dev: Option<crate::Device> = None;
    for a in args {
        if let Arg::Array(x) = a {
            let d = x.device();
            match dev {
                None => dev = Some(d),
                Some(prev) if prev != d => {
                    return Err(Error::DeviceMismatch {
                        op,
                        a: prev.to_string(),
                        b: d.to_string(),
                    })
                }
                _ => {}
            }
        }
    }
    Ok(dev.unwrap_or_else(crate::backend::probe::current_device))
}

/// The bytes of `v` converted to `dtype` (a kernel parameter passed by value).
pub(crate) fn scalar_bytes(v: Scalar, dtype: DType) -> Vec<u8> {
    crate::with_dtype!(dtype, T => {
        let x: T = T::from_scalar(v);
        // SAFETY: every element type is plain data without padding.
        unsafe {
            std::slice::from_raw_parts(std::ptr::addr_of!(x).cast::<u8>(), std::mem::size_of::<T>())
        }
        .to_vec()
    })
}

/// Checks that scalar `v` can be passed as a parameter of dtype `to`:
/// integers must fit, complex values need a complex parameter.
pub(crate) fn check_scalar(
    op: &'static str,
    kernel: &str,
    param: &str,
    v: Scalar,
    from: DType,
    to: DType,
) -> Result<()> {
    let bad = |why: &str| {
        Err(Error::InvalidArgument {
            op,
            detail: format!(
                "kernel `{kernel}`: the scalar {v} ({from}) cannot be passed as the {to} parameter `{param}`: {why}"
            ),
        })
    };
    if from.is_complex() && !to.is_complex() {
        return bad("it is complex");
    }
    if to.is_integer() && !v.fits(to) {
        return bad("it is out of range");
    }
    if to.is_integer() {
        if let Scalar::Float(f) = v {
            if f.fract() != 0.0 || !f.is_finite() {
                return bad("it is not a whole number");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_and_dims_convert() {
        let x = crate::zeros([3], DType::Float32).unwrap();
        let args = (&x, 2.0f32, 1i32, DevicePtr(16)).into_args();
        assert_eq!(args.len(), 4);
        assert!(matches!(args[1], Arg::Scalar(Scalar::Float(v), DType::Float32) if v == 2.0));
        assert!(matches!(args[2], Arg::Scalar(Scalar::Int(1), DType::Int32)));
        assert!(matches!(args[3], Arg::Ptr(16)));
        assert_eq!((4,).into_dim3().unwrap(), Dim3 { x: 4, y: 1, z: 1 });
        assert_eq!(
            (2usize, 3u32).into_dim3().unwrap(),
            Dim3 { x: 2, y: 3, z: 1 }
        );
        assert!((0,).into_dim3().is_err());
        assert!((-1i32, 2, 2).into_dim3().is_err());
        assert_eq!(
            scalar_bytes(Scalar::Float(2.0), DType::Float32),
            2.0f32.to_ne_bytes()
        );
        assert_eq!(
            scalar_bytes(Scalar::Int(-1), DType::Int64),
            (-1i64).to_ne_bytes()
        );
    }

    #[test]
    fn scalar_checks_name_the_parameter() {
        assert!(check_scalar("k", "k", "n", Scalar::Int(5), DType::Int64, DType::Int32).is_ok());
        let e = check_scalar(
            "k",
            "k",
            "n",
            Scalar::Int(1 << 40),
            DType::Int64,
            DType::Int32,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("`n`") && e.contains("out of range"), "{e}");
        assert!(check_scalar(
            "k",
            "k",
            "n",
            Scalar::Float(2.5),
            DType::Float64,
            DType::Int32
        )
        .is_err());
        assert!(check_scalar(
            "k",
            "k",
            "n",
            Scalar::Float(2.0),
            DType::Float64,
            DType::Int32
        )
        .is_ok());
    }
}
