//! Shape work: reshapes, transposes, axis insertion and removal,
//! broadcasting, joining arrays.

pub(crate) mod index;
pub(crate) mod manip;

use crate::core::array::Array;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::{
    broadcast_shapes, checked_size, normalize_axes, normalize_axis, Layout, Order,
};

/// A target shape for [`Array::reshape`]; one entry may be `-1` (inferred).
///
/// Extents may be any of the integer types of [`ReshapeDim`], so both
/// `reshape([3, -1])` and `reshape([n, m])` with `n, m: usize` work.
pub trait IntoReshape {
    /// The requested extents, `-1` meaning "whatever is left".
    fn into_reshape(self) -> Vec<isize>;
}

/// An integer usable as a reshape extent.
pub trait ReshapeDim: Copy {
    /// The extent as an `isize` (an unsigned value too large for `isize`
    /// becomes `isize::MAX`, which no array matches, so reshape reports it).
    fn to_extent(self) -> isize;
}

macro_rules! reshape_dims {
    ($($t:ty),*) => {$(
        impl ReshapeDim for $t {
            fn to_extent(self) -> isize {
                isize::try_from(self).unwrap_or(isize::MAX)
            }
        }
    )*};
}
reshape_dims!(i32, i64, isize, u32, u64, usize);

impl<T: ReshapeDim> IntoReshape for T {
    fn into_reshape(self) -> Vec<isize> {
        vec![self.to_extent()]
    }
}
impl<T: ReshapeDim, const N: usize> IntoReshape for [T; N] {
    fn into_reshape(self) -> Vec<isize> {
        self.iter().map(|d| d.to_extent()).collect()
    }
}
impl<T: ReshapeDim> IntoReshape for &[T] {
    fn into_reshape(self) -> Vec<isize> {
        self.iter().map(|d| d.to_extent()).collect()
    }
}
impl<T: ReshapeDim> IntoReshape for Vec<T> {
    fn into_reshape(self) -> Vec<isize> {
        self.iter().map(|d| d.to_extent()).collect()
    }
}
impl<T: ReshapeDim> IntoReshape for &Vec<T> {
    fn into_reshape(self) -> Vec<isize> {
        self.iter().map(|d| d.to_extent()).collect()
    }
}

/// Resolves a `-1` entry and checks that the element count is unchanged.
fn resolve_shape(op: &'static str, from: &[usize], spec: &[isize]) -> Result<Vec<usize>> {
    let size = from.iter().product::<usize>();
    let unknown: Vec<usize> = (0..spec.len()).filter(|&i| spec[i] == -1).collect();
    let bad = || Error::Shape {
        op,
        detail: format!(
            "cannot reshape an array of shape {} ({size} elements) into {spec:?}",
            fmt_shape(from)
        ),
    };
    if unknown.len() > 1 || spec.iter().any(|&d| d < -1) {
        return Err(Error::invalid(
            op,
            format!("{spec:?}: extents must be >= 0 with at most one -1"),
        ));
    }
    let mut shape: Vec<usize> = spec.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(&u) = unknown.first() {
        let known: usize = (0..spec.len())
            .filter(|&i| i != u)
            .map(|i| shape[i])
            .product();
        if known == 0 || size % known != 0 {
            return Err(bad());
        }
        shape[u] = size / known;
    }
    if checked_size(op, &shape)? != size {
        return Err(bad());
    }
    Ok(shape)
}

impl Array {
    /// The same elements with a new shape, read and written in C order. A view
    /// when the layout allows it, a copy otherwise (as NumPy).
    pub fn reshape(&self, shape: impl IntoReshape) -> Result<Array> {
        self.reshape_order(shape.into_reshape(), Order::C)
    }

    /// As [`Array::reshape`], reading and writing elements in `order`.
    pub fn reshape_order(&self, shape: impl IntoReshape, order: Order) -> Result<Array> {
        let new_shape = resolve_shape("reshape", self.shape(), &shape.into_reshape())?;
        if let Some(layout) = self.layout().reshaped(&new_shape, order) {
            return Ok(self.with_layout(layout));
        }
        let contiguous = self.copy_order(order)?;
        let layout = contiguous
            .layout()
            .reshaped(&new_shape, order)
            .expect("a contiguous array can take any shape of the same size");
        Ok(contiguous.with_layout(layout))
    }

    /// The elements as a 1-D array in C order (a view when possible).
    pub fn ravel(&self) -> Result<Array> {
        self.reshape_order([-1], Order::C)
    }

    /// A 1-D copy of the elements in C order.
    pub fn flatten(&self) -> Result<Array> {
        self.copy()?.reshape([-1])
    }

    /// The axes reversed (a view), as `x.T` in NumPy.
    pub fn t(&self) -> Array {
        let perm: Vec<usize> = (0..self.ndim()).rev().collect();
        self.with_layout(self.layout().permuted(&perm))
    }

    /// The axes reversed (a view).
    pub fn transpose(&self) -> Array {
        self.t()
    }

    /// The axes reordered: axis `i` of the result is axis `axes[i]` (a view).
    pub fn permute_axes(&self, axes: &[isize]) -> Result<Array> {
        let op = "permute_axes";
        let (ndim, shape) = (self.ndim(), fmt_shape(self.shape()));
        if axes.len() != ndim {
            let detail = format!(
                "{axes:?} does not list each of the {ndim} axes of an array of shape {shape} once"
            );
            return Err(Error::invalid(op, detail));
        }
        let perm = normalize_axes(op, axes, self.ndim())?;
        Ok(self.with_layout(self.layout().permuted(&perm)))
    }

    /// Axes `a` and `b` exchanged (a view).
    pub fn swapaxes(&self, a: isize, b: isize) -> Result<Array> {
        let a = normalize_axis("swapaxes", a, self.ndim())?;
        let b = normalize_axis("swapaxes", b, self.ndim())?;
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        perm.swap(a, b);
        Ok(self.with_layout(self.layout().permuted(&perm)))
    }

    /// Axis `source` moved to position `destination` (a view).
    pub fn moveaxis(&self, source: isize, destination: isize) -> Result<Array> {
        let s = normalize_axis("moveaxis", source, self.ndim())?;
        let d = normalize_axis("moveaxis", destination, self.ndim())?;
        let mut perm: Vec<usize> = (0..self.ndim()).filter(|&i| i != s).collect();
        perm.insert(d, s);
        Ok(self.with_layout(self.layout().permuted(&perm)))
    }

    /// A new axis of extent 1 inserted at `axis` (a view); `axis` counts in
    /// the result, so `-1` appends.
    pub fn expand_dims(&self, axis: isize) -> Result<Array> {
        let ax = normalize_axis("expand_dims", axis, self.ndim() + 1)?;
        let mut shape = self.shape().to_vec();
        let mut strides = self.strides().to_vec();
        shape.insert(ax, 1);
        strides.insert(ax, 0);
        Ok(self.with_layout(Layout::from_parts(shape, strides, self.layout().offset())))
    }

    /// Every extent-1 axis removed (a view).
    pub fn squeeze(&self) -> Array {
        let keep: Vec<usize> = (0..self.ndim()).filter(|&i| self.shape()[i] != 1).collect();
        self.keep_axes(&keep)
    }

    /// The given extent-1 axes removed (a view); other extents are an error.
    pub fn squeeze_axes(&self, axes: &[isize]) -> Result<Array> {
        let op = "squeeze";
        let axes = normalize_axes(op, axes, self.ndim())?;
        if let Some(&ax) = axes.iter().find(|&&a| self.shape()[a] != 1) {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "cannot remove axis {ax} of extent {} (shape {}); only extent-1 axes can be squeezed",
                    self.shape()[ax],
                    fmt_shape(self.shape())
                ),
            });
        }
        let keep: Vec<usize> = (0..self.ndim()).filter(|a| !axes.contains(a)).collect();
        Ok(self.keep_axes(&keep))
    }

    fn keep_axes(&self, keep: &[usize]) -> Array {
        let shape = keep.iter().map(|&i| self.shape()[i]).collect();
        let strides = keep.iter().map(|&i| self.strides()[i]).collect();
        self.with_layout(Layout::from_parts(shape, strides, self.layout().offset()))
    }

    /// A read-only-in-spirit view broadcast to `shape` (stride 0 on repeated axes).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        Ok(self.with_layout(self.layout().broadcast_to(shape)?))
    }
}

/// The arrays broadcast against each other (views).
pub fn broadcast_arrays(arrays: &[&Array]) -> Result<Vec<Array>> {
    let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
    let shape = broadcast_shapes("broadcast_arrays", &shapes)?;
    arrays.iter().map(|a| a.broadcast_to(&shape)).collect()
}

/// Joins arrays along an existing axis (`cp.concatenate`). The result dtype
/// is the promotion of the inputs' dtypes.
pub fn concatenate(arrays: &[&Array], axis: isize) -> Result<Array> {
    let op = "concatenate";
    let first = arrays
        .first()
        .ok_or_else(|| Error::invalid(op, "needs at least one array"))?;
    let ndim = first.ndim();
    if ndim == 0 {
        return Err(Error::shape(
            op,
            "zero-dimensional arrays cannot be concatenated",
        ));
    }
    let ax = normalize_axis(op, axis, ndim)?;
    let mut total = 0usize;
    for a in arrays {
        let same_rest =
            a.ndim() == ndim && (0..ndim).all(|i| i == ax || a.shape()[i] == first.shape()[i]);
        if !same_rest {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "all shapes must match except on axis {ax}; got {}",
                    arrays
                        .iter()
                        .map(|a| fmt_shape(a.shape()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        if a.device() != first.device() {
            return Err(Error::DeviceMismatch {
                op,
                a: first.device().to_string(),
                b: a.device().to_string(),
            });
        }
        total = total
            .checked_add(a.shape()[ax])
            .ok_or_else(|| Error::Overflow {
                op,
                detail: "the joined extent".into(),
            })?;
    }
    let dtype = arrays
        .iter()
        .map(|a| a.dtype())
        .reduce(crate::core::dtype::promote_types)
        .expect("`first` above checked that there is at least one array");
    let mut shape = first.shape().to_vec();
    shape[ax] = total;
    // Every element is written below, so the result starts uninitialised,
    // on the inputs' device.
    let b = crate::backend::on(op, first.device())?;
    let n = checked_size(op, &shape)?;
    let out = Array::from_parts(b.empty(op, dtype, n)?, Layout::contiguous(&shape), dtype);
    let mut start = 0usize;
    for a in arrays {
        let n = a.shape()[ax];
        let mut dst = out.slice_axis(ax, start, start + n);
        dst.assign_with(a, crate::core::dtype::Casting::Unsafe)?;
        start += n;
    }
    Ok(out)
}

/// Joins arrays along a new axis (`cp.stack`); all shapes must be equal.
pub fn stack(arrays: &[&Array], axis: isize) -> Result<Array> {
    let op = "stack";
    let first = arrays
        .first()
        .ok_or_else(|| Error::invalid(op, "needs at least one array"))?;
    if let Some(a) = arrays.iter().find(|a| a.shape() != first.shape()) {
        return Err(Error::Shape {
            op,
            detail: format!(
                "all arrays must have the same shape; got {} and {}",
                fmt_shape(first.shape()),
                fmt_shape(a.shape())
            ),
        });
    }
    let ax = normalize_axis(op, axis, first.ndim() + 1)?;
    let expanded: Vec<Array> = arrays
        .iter()
        .map(|a| a.expand_dims(ax as isize))
        .collect::<Result<_>>()?;
    let refs: Vec<&Array> = expanded.iter().collect();
    concatenate(&refs, ax as isize)
}

impl Array {
    /// A view of `start..stop` along axis `ax` (already normalized and in range).
    pub(crate) fn slice_axis(&self, ax: usize, start: usize, stop: usize) -> Array {
        let mut shape = self.shape().to_vec();
        let strides = self.strides().to_vec();
        let offset = self.layout().offset() as isize + start as isize * strides[ax];
        shape[ax] = stop - start;
        self.with_layout(Layout::from_parts(shape, strides, offset as usize))
    }
}
