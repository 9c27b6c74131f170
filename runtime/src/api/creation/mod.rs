//! Creating arrays: from host data, filled, ranges, identity matrices.

pub(crate) mod more;

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

use crate::backend::probe::current_device;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::{Element, Scalar};
use crate::core::error::{fmt_shape, Error, Result};
pub use crate::core::layout::IntoShape;
use crate::core::layout::{checked_size, Layout, Order};

/// Host data with a shape: what [`asarray`] accepts.
///
/// Implemented for element slices and vectors (1-D), nested fixed-size
/// arrays (`[[1.0, 2.0], [3.0, 4.0]]`, any depth), `Vec<Vec<T>>` (rows must
/// have equal lengths), `ndarray` arrays of any dimension, single elements
/// (0-d) and existing [`Array`]s.
pub trait IntoArray {
    /// Converts into an array on `device`.
    fn into_array_on(self, device: Device) -> Result<Array>;
}

/// Fixed-size nested arrays of elements, flattened in C order.
pub trait NestedData {
    /// The element type at the leaves.
    type Elem: Element;
    /// Appends the shape of this level and below (known from the type alone).
    fn shape_into(shape: &mut Vec<usize>);
    /// Appends the leaves in C order.
    fn flatten_into(&self, out: &mut Vec<Self::Elem>);
}

macro_rules! nested_leaf {
    ($($t:ty),*) => {$(
        impl NestedData for $t {
            type Elem = $t;
            fn shape_into(_shape: &mut Vec<usize>) {}
            fn flatten_into(&self, out: &mut Vec<$t>) { out.push(*self); }
        }
        impl IntoArray for $t {
            fn into_array_on(self, device: Device) -> Result<Array> {
                host_array(vec![self], &[], device)
            }
        }
    )*};
}
nested_leaf!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, Complex32, Complex64);

impl<A: NestedData, const N: usize> NestedData for [A; N] {
    type Elem = A::Elem;
    fn shape_into(shape: &mut Vec<usize>) {
        shape.push(N);
        A::shape_into(shape);
    }
    fn flatten_into(&self, out: &mut Vec<A::Elem>) {
        for a in self {
            a.flatten_into(out);
        }
    }
}

impl<A: NestedData, const N: usize> IntoArray for [A; N] {
    fn into_array_on(self, device: Device) -> Result<Array> {
        (&self).into_array_on(device)
    }
}

impl<A: NestedData, const N: usize> IntoArray for &[A; N] {
    fn into_array_on(self, device: Device) -> Result<Array> {
        let mut shape = Vec::new();
        <[A; N]>::shape_into(&mut shape);
        let mut flat = Vec::with_capacity(shape.iter().product());
        self.flatten_into(&mut flat);
        host_array(flat, &shape, device)
    }
}

impl<T: Element> IntoArray for Vec<T> {
    fn into_array_on(self, device: Device) -> Result<Array> {
        let n = self.len();
        host_array(self, &[n], device)
    }
}

impl<T: Element> IntoArray for &Vec<T> {
    fn into_array_on(self, device: Device) -> Result<Array> {
        self.as_slice().into_array_on(device)
    }
}

impl<T: Element> IntoArray for &[T] {
    fn into_array_on(self, device: Device) -> Result<Array> {
        device.check_available("asarray")?;
        Array::from_host_slice(self, &[self.len()], device)
    }
}

impl<T: Element> IntoArray for Vec<Vec<T>> {
    fn into_array_on(self, device: Device) -> Result<Array> {
        let rows = self.len();
        let cols = self.first().map_or(0, |r| r.len());
        if let Some((i, r)) = self.iter().enumerate().find(|(_, r)| r.len() != cols) {
            return Err(Error::Shape {
                op: "asarray",
                detail: format!(
                    "ragged rows: row 0 has {cols} elements but row {i} has {}",
                    r.len()
                ),
            });
        }
        let flat: Vec<T> = self.into_iter().flatten().collect();
        host_array(flat, &[rows, cols], device)
    }
}

impl<T: Element, S, D> IntoArray for ndarray::ArrayBase<S, D>
where
    S: ndarray::Data<Elem = T>,
    D: ndarray::Dimension,
{
    fn into_array_on(self, device: Device) -> Result<Array> {
        (&self).into_array_on(device)
    }
}

impl<T: Element, S, D> IntoArray for &ndarray::ArrayBase<S, D>
where
    S: ndarray::Data<Elem = T>,
    D: ndarray::Dimension,
{
    fn into_array_on(self, device: Device) -> Result<Array> {
        let shape = self.shape().to_vec();
        // iter() walks in logical (C) order whatever the memory layout.
        let flat: Vec<T> = self.iter().copied().collect();
        host_array(flat, &shape, device)
    }
}

impl IntoArray for Array {
    fn into_array_on(self, device: Device) -> Result<Array> {
        self.to_device(&device)
    }
}

impl IntoArray for &Array {
    fn into_array_on(self, device: Device) -> Result<Array> {
        self.to_device(&device)
    }
}

fn host_array<T: Element>(flat: Vec<T>, shape: &[usize], device: Device) -> Result<Array> {
    device.check_available("asarray")?;
    Array::from_host(T::into_data(flat), shape, device)
}

/// An array from host data on the current device (`cp.asarray`).
pub fn asarray(data: impl IntoArray) -> Result<Array> {
    data.into_array_on(current_device())
}

/// An array from host data on the given device.
pub fn asarray_on(data: impl IntoArray, device: Device) -> Result<Array> {
    data.into_array_on(device)
}

/// A new C-contiguous array of `dtype` filled with `value` on the current device.
fn filled(op: &'static str, shape: &[usize], dtype: DType, value: Scalar) -> Result<Array> {
    let n = checked_size(op, shape)?;
    let storage = crate::backend::on(op, current_device())?.full(op, dtype, n, value)?;
    Ok(Array::from_parts(storage, Layout::contiguous(shape), dtype))
}

/// An array of zeros (`cp.zeros(shape, dtype)`).
pub fn zeros(shape: impl IntoShape, dtype: DType) -> Result<Array> {
    filled("zeros", &shape.into_shape(), dtype, Scalar::Int(0))
}

/// An array of ones.
pub fn ones(shape: impl IntoShape, dtype: DType) -> Result<Array> {
    filled("ones", &shape.into_shape(), dtype, Scalar::Int(1))
}

/// An array whose contents are unspecified, as in CuPy: on a GPU its memory
/// is not initialised (except bool arrays, which are set to false); on the
/// CPU it is zero-filled, since reading uninitialised host memory is
/// undefined behaviour in Rust.
pub fn empty(shape: impl IntoShape, dtype: DType) -> Result<Array> {
    let shape = shape.into_shape();
    if dtype == DType::Bool {
        return filled("empty", &shape, dtype, Scalar::Int(0));
    }
    let b = crate::backend::on("empty", current_device())?;
    let n = checked_size("empty", &shape)?;
    Ok(Array::from_parts(
        b.empty("empty", dtype, n)?,
        Layout::contiguous(&shape),
        dtype,
    ))
}

/// An array filled with `value`, cast to `dtype` (`cp.full`).
pub fn full(shape: impl IntoShape, value: impl Into<Scalar>, dtype: DType) -> Result<Array> {
    filled("full", &shape.into_shape(), dtype, value.into())
}

/// Zeros with the shape, dtype and device of `a`.
pub fn zeros_like(a: &Array) -> Result<Array> {
    more::zeros_like_as(a, a.dtype())
}
/// Ones with the shape, dtype and device of `a`.
pub fn ones_like(a: &Array) -> Result<Array> {
    more::ones_like_as(a, a.dtype())
}
/// An array with the shape, dtype and device of `a` (zero-filled, see [`empty`]).
pub fn empty_like(a: &Array) -> Result<Array> {
    more::empty_like_as(a, a.dtype())
}
/// `value` with the shape, dtype and device of `a`.
pub fn full_like(a: &Array, value: impl Into<Scalar>) -> Result<Array> {
    more::full_like_as(a, value, a.dtype())
}

/// Numbers that can bound a range: integers give int64 ranges, floats float64.
pub trait RangeBound: Copy + Into<Scalar> {}
impl RangeBound for i32 {}
impl RangeBound for i64 {}
impl RangeBound for u32 {}
impl RangeBound for usize {}
impl RangeBound for f32 {}
impl RangeBound for f64 {}

/// `0, 1, ..., stop-1` (`cp.arange(stop)`): int64 for integer `stop`, float64 for float.
pub fn arange(stop: impl RangeBound) -> Result<Array> {
    let stop: Scalar = stop.into();
    let start = match stop {
        Scalar::Float(_) => Scalar::Float(0.0),
        _ => Scalar::Int(0),
    };
    arange_step_impl(start, stop, Scalar::Int(1))
}

/// `start, start+step, ...` up to but excluding `stop` (`cp.arange(start, stop, step)`).
/// The dtype is int64 when all three are integers, float64 otherwise.
pub fn arange_step(
    start: impl RangeBound,
    stop: impl RangeBound,
    step: impl RangeBound,
) -> Result<Array> {
    arange_step_impl(start.into(), stop.into(), step.into())
}

fn arange_step_impl(start: Scalar, stop: Scalar, step: Scalar) -> Result<Array> {
    let op = "arange";
    let is_int = |s: Scalar| matches!(s, Scalar::Int(_) | Scalar::UInt(_));
    let (a, b, s) = (start.as_f64(), stop.as_f64(), step.as_f64());
    if !(a.is_finite() && b.is_finite() && s.is_finite()) {
        return Err(Error::invalid(
            op,
            format!("bounds and step must be finite (got {a}, {b}, {s})"),
        ));
    }
    if s == 0.0 {
        return Err(Error::invalid(op, "step must not be zero"));
    }
    let count = ((b - a) / s).ceil().max(0.0);
    if count > isize::MAX as f64 {
        return Err(Error::Overflow {
            op,
            detail: format!("the length of a range from {a} to {b} by {s}"),
        });
    }
    let n = count as usize;
    let device = current_device();
    device.check_available(op)?;
    let backend = crate::backend::on(op, device)?;
    // Filled where the array lives: a range never crosses from the host.
    let (dtype, first, step) = if is_int(start) && is_int(stop) && is_int(step) {
        (
            DType::Int64,
            Scalar::Int(start.as_i64()),
            Scalar::Int(step.as_i64()),
        )
    } else {
        // NumPy fills start + i * delta with delta = (start + step) - start.
        (DType::Float64, Scalar::Float(a), Scalar::Float((a + s) - a))
    };
    let storage = backend.arange(op, dtype, n, first, step)?;
    Ok(Array::from_parts(storage, Layout::contiguous(&[n]), dtype))
}

/// `num` evenly spaced float64 values from `start` to `stop` inclusive (`cp.linspace`).
pub fn linspace(start: f64, stop: f64, num: usize) -> Result<Array> {
    linspace_with(start, stop, num, true, DType::Float64)
}

/// As [`linspace`], with NumPy's `endpoint` and `dtype` arguments.
pub fn linspace_with(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    dtype: DType,
) -> Result<Array> {
    let op = "linspace";
    check_range(op, start, stop, num)?;
    upload(op, linspace_values(start, stop, num, endpoint), dtype)
}

/// NumPy's `linspace` values on the host: `start + i * step`, the last one
/// set to `stop` with `endpoint` (non-finite bounds give what NumPy gives).
pub(crate) fn linspace_values(start: f64, stop: f64, num: usize, endpoint: bool) -> Vec<f64> {
    linspace_values_rounded(start, stop, num, endpoint, |v| v)
}

/// [`linspace_values`] with every step of NumPy's computation rounded by
/// `round` (to float32 or float16 where NumPy computes in that dtype).
pub(crate) fn linspace_values_rounded(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    round: impl Fn(f64) -> f64,
) -> Vec<f64> {
    linspace_values_part(start, stop, num, endpoint, 0..num, round)
}

/// Entries `part` of [`linspace_values_rounded`]'s values (a distributed
/// array's block), each computed exactly as there.
pub(crate) fn linspace_values_part(
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    part: std::ops::Range<usize>,
    round: impl Fn(f64) -> f64,
) -> Vec<f64> {
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let step = if div > 0 {
        round(round(stop - start) / div as f64)
    } else {
        0.0
    };
    let first = part.start;
    let mut v: Vec<f64> = part
        .clone()
        .map(|i| round(round(round(i as f64) * step) + start))
        .collect();
    if endpoint && num > 1 && part.contains(&(num - 1)) {
        v[num - 1 - first] = stop;
    }
    v
}

/// A new C-contiguous array of `shape` on `device`, contents unspecified
/// (what an op allocates for its result before the backend fills it).
pub(crate) fn alloc(
    op: &'static str,
    device: crate::core::device::Device,
    shape: &[usize],
    dtype: DType,
) -> Result<Array> {
    let b = crate::backend::on(op, device)?;
    let n = crate::core::layout::checked_size(op, shape)?;
    Ok(Array::from_parts(
        b.empty(op, dtype, n)?,
        crate::core::layout::Layout::contiguous(shape),
        dtype,
    ))
}

/// Host float64 values as an array of `dtype` on the current device.
pub(crate) fn upload(op: &'static str, v: Vec<f64>, dtype: DType) -> Result<Array> {
    let n = v.len();
    current_device().check_available(op)?;
    let a = Array::from_host(f64::into_data(v), &[n], current_device())?;
    if dtype == DType::Float64 {
        Ok(a)
    } else {
        a.astype(dtype)
    }
}

/// Fails unless a range's bounds are finite and its `num` float64 values
/// fit in host memory.
pub(crate) fn check_range(op: &'static str, start: f64, stop: f64, num: usize) -> Result<()> {
    if !start.is_finite() || !stop.is_finite() {
        return Err(Error::invalid(
            op,
            format!("start and stop must be finite (got {start} and {stop})"),
        ));
    }
    checked_size(op, &[num])?;
    crate::core::layout::check_host_room(op, num, 8)
}

/// A 2-D array with ones on diagonal `k` and zeros elsewhere (`cp.eye(n, m, k)`).
pub fn eye(n: usize, m: Option<usize>, k: isize, dtype: DType) -> Result<Array> {
    let m = m.unwrap_or(n);
    let a = zeros([n, m], dtype)?;
    // The k-th diagonal as a strided view, filled in place: on a GPU one
    // small kernel instead of a round trip of the whole matrix.
    let (first_row, first_col) = if k >= 0 {
        (0, k as usize)
    } else {
        (k.unsigned_abs(), 0)
    };
    if first_row < n && first_col < m {
        let len = (n - first_row).min(m - first_col);
        let mut diagonal = a.with_layout(Layout::from_parts(
            vec![len],
            vec![m as isize + 1],
            first_row * m + first_col,
        ));
        diagonal.fill(1)?;
    }
    Ok(a)
}

/// The `n × n` identity matrix.
pub fn identity(n: usize, dtype: DType) -> Result<Array> {
    eye(n, None, 0, dtype)
}

/// An array of `dtype` with `shape` from a flat vector in C or F order,
/// checking that the length matches.
pub fn from_shape_vec<T: Element>(
    shape: impl IntoShape,
    data: Vec<T>,
    order: Order,
) -> Result<Array> {
    let shape = shape.into_shape();
    let n = checked_size("from_shape_vec", &shape)?;
    if n != data.len() {
        return Err(Error::Shape {
            op: "from_shape_vec",
            detail: format!(
                "shape {} needs {n} elements but {} were given",
                fmt_shape(&shape),
                data.len()
            ),
        });
    }
    let flat = Array::from_host(T::into_data(data), &[n], current_device())?;
    flat.reshape_order(shape, order)
}
