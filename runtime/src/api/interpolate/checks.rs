//! Argument checks and small array helpers the interpolants share.

use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::{normalize_axis, Layout};

/// The dtype an interpolant of `y` computes in: float32 for float32 and
/// half-float values, float64 otherwise; complex values are refused.
pub(crate) fn value_dtype(op: &'static str, y: DType) -> Result<DType> {
    if y.is_complex() {
        return Err(Error::DType {
            op,
            detail: format!(
                "complex values ({y}) are not supported; interpolate the real and imaginary parts"
            ),
        });
    }
    Ok(match y {
        DType::Float32 | DType::Float16 | DType::BFloat16 => DType::Float32,
        _ => DType::Float64,
    })
}

/// `a` cast to `dt`, C-contiguous.
pub(crate) fn contiguous_as(a: &Array, dt: DType) -> Result<Array> {
    let a = if a.dtype() == dt {
        a.clone()
    } else {
        a.astype(dt)?
    };
    if a.is_c_contiguous() {
        Ok(a)
    } else {
        a.ascontiguousarray()
    }
}

/// Rows `start..end` of `a` along its first axis, as a view.
pub(crate) fn rows(a: &Array, start: usize, end: usize) -> Array {
    let mut shape = a.shape().to_vec();
    shape[0] = end.saturating_sub(start);
    let offset = a.layout().offset() as isize + start as isize * a.strides()[0];
    let l = Layout::from_parts(shape, a.strides().to_vec(), offset.max(0) as usize);
    a.with_layout(l)
}

/// Row `i` of `a`, keeping the axis (length 1).
pub(crate) fn row(a: &Array, i: usize) -> Array {
    rows(a, i, i + 1)
}

/// The sample points: 1-D of at least `min` elements, finite and strictly
/// increasing, cast to `dt` and C-contiguous.
pub(crate) fn sample_points(op: &'static str, x: &Array, dt: DType, min: usize) -> Result<Array> {
    if x.ndim() != 1 {
        return Err(Error::shape(
            op,
            format!("x must be 1-D, got shape {:?}", x.shape()),
        ));
    }
    if x.size() < min {
        return Err(Error::invalid(
            op,
            format!("x must have at least {min} points, got {}", x.size()),
        ));
    }
    if x.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!("x must be real, got {}", x.dtype()),
        });
    }
    let x = contiguous_as(x, dt)?;
    if !crate::isfinite(&x)?.all()?.item::<bool>()? {
        return Err(Error::invalid(op, "x must be finite (it holds NaN or inf)"));
    }
    if x.size() >= 2 {
        let dx = crate::diff(&x, 1, 0)?;
        if !crate::greater(&dx, 0.0)?.all()?.item::<bool>()? {
            // The first step that does not increase, read back for the message.
            let i = crate::argmin(&dx, None, false)?.item::<i64>()? as usize;
            let (a, b) = (
                x.at(i as isize)?.item::<f64>()?,
                x.at(i as isize + 1)?.item::<f64>()?,
            );
            return Err(Error::invalid(
                op,
                format!(
                    "x must be strictly increasing: x[{}] = {b} follows x[{i}] = {a}",
                    i + 1
                ),
            ));
        }
    }
    Ok(x)
}

/// `y` with `axis` moved first and the rest flattened: `(n, m)` of `dt`,
/// C-contiguous, and the shape of the rest.
pub(crate) fn values_along(
    op: &'static str,
    y: &Array,
    axis: isize,
    n: usize,
    dt: DType,
) -> Result<(Array, Vec<usize>, usize)> {
    if y.ndim() == 0 {
        return Err(Error::shape(
            op,
            "y must have at least one axis, got a 0-d array",
        ));
    }
    let ax = normalize_axis(op, axis, y.ndim())?;
    if y.shape()[ax] != n {
        return Err(Error::shape(
            op,
            format!(
                "x and y lengths differ: x has {n} points, y has {} along axis {axis} (shape {:?})",
                y.shape()[ax],
                y.shape()
            ),
        ));
    }
    let moved = y.moveaxis(ax as isize, 0)?;
    let rest: Vec<usize> = moved.shape()[1..].to_vec();
    let m: usize = rest.iter().product();
    let flat = contiguous_as(&moved, dt)?.reshape([n as isize, m as isize])?;
    Ok((flat, rest, ax))
}

/// `out` of shape `xi.shape + rest` with the axes of `xi` moved to `axis`
/// (SciPy's `y.shape[:axis] + xi.shape + y.shape[axis+1:]`).
pub(crate) fn xi_axes_at(out: Array, xi_ndim: usize, rest: usize, axis: usize) -> Result<Array> {
    if axis == 0 || xi_ndim == 0 {
        return Ok(out);
    }
    let mut perm: Vec<isize> = (xi_ndim..xi_ndim + axis).map(|a| a as isize).collect();
    perm.extend((0..xi_ndim).map(|a| a as isize));
    perm.extend((xi_ndim + axis..xi_ndim + rest).map(|a| a as isize));
    out.permute_axes(&perm)
}

/// A small host vector of `dt` on `like`'s device.
pub(crate) fn constants(values: Vec<f64>, dt: DType, like: &Array) -> Result<Array> {
    crate::asarray_on(values, like.device())?.astype(dt)
}

/// Zeros of `like`'s shape and dtype, on its device.
pub(crate) fn zeros_of(like: &Array) -> Result<Array> {
    filled_like(like, 0.0)
}

/// Ones of `like`'s shape and dtype, on its device.
pub(crate) fn ones_of(like: &Array) -> Result<Array> {
    filled_like(like, 1.0)
}

fn filled_like(like: &Array, v: f64) -> Result<Array> {
    constants(vec![v], like.dtype(), like)?
        .reshape(Vec::<isize>::new())?
        .broadcast_to(like.shape())?
        .ascontiguousarray()
}
