//! Applying linear filters along an axis (`scipy.signal.lfilter`, ...).

use crate::core::array::Array;
use crate::core::dtype::{promote_types, DType};
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::ops::signal::Lfilter;

/// Filters `x` along `axis` with the rational transfer function `b / a`
/// (direct form II transposed, `scipy.signal.lfilter`). With initial
/// conditions `zi` (length `max(len(a), len(b)) - 1` along `axis`) the
/// final conditions are returned too.
pub fn lfilter(
    b: &Array,
    a: &Array,
    x: &Array,
    axis: isize,
    zi: Option<&Array>,
) -> Result<(Array, Option<Array>)> {
    let op = "lfilter";
    x.device().check_available(op)?;
    if b.ndim() != 1 || a.ndim() != 1 || b.size() == 0 || a.size() == 0 {
        return Err(Error::Shape {
            op,
            detail: format!(
                "b and a must be non-empty 1-D arrays, not of shapes {} and {}",
                fmt_shape(b.shape()),
                fmt_shape(a.shape())
            ),
        });
    }
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let ax = crate::core::layout::normalize_axis(op, axis, x.ndim())?;
    let mut dt = promote_types(promote_types(b.dtype(), a.dtype()), x.dtype());
    if let Some(z) = zi {
        dt = promote_types(dt, z.dtype());
    }
    let dt = match dt {
        d if d.is_complex() || d == DType::Float64 || d == DType::Float32 => d,
        _ => DType::Float64,
    };
    let sh = x.shape().to_vec();
    let m = a.size().max(b.size());
    let mut zsh = sh.clone();
    zsh[ax] = m - 1;
    if let Some(z) = zi {
        if z.shape() != zsh.as_slice() {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "zi must have shape {} (x's shape with max(len(a), len(b)) - 1 along axis), not {}",
                    fmt_shape(&zsh),
                    fmt_shape(z.shape())
                ),
            });
        }
    }
    let be = crate::backend::on(op, x.device())?;
    let f = Lfilter {
        b: b.view(),
        a: a.view(),
        x: x.view(),
        zi: zi.map(Array::view),
        axis: ax,
        dt,
    };
    let (y, zf) = be.lfilter(&f)?;
    let zf = zf.map(|z| Array::from_parts(z, Layout::contiguous(&zsh), dt));
    Ok((Array::from_parts(y, Layout::contiguous(&sh), dt), zf))
}
