//! Applying linear filters along an axis: `lfilter`, `sosfilt` and their
//! steady-state initial conditions `lfilter_zi`, `sosfilt_zi`.
//!
//! Real filters run as a cascade of sections in direct form II transposed
//! (`ops::signal::Cascade`) over rows made contiguous along the filtered
//! axis; on the GPU that is a blocked parallel scan (`cuda::iir`).
//!
//! ```
//! use cuprite as cp;
//! use cp::signal::{butter, sosfilt, FilterForm, IirOptions};
//! let sos = butter(4, &[0.2], IirOptions { output: FilterForm::Sos, ..Default::default() })?.sos()?;
//! let x = cp::ones([3, 100], cp::f64)?;
//! let (y, zf) = sosfilt(&sos, &x, -1, None)?;
//! assert_eq!(y.shape(), &[3, 100]);
//! assert_eq!(zf.unwrap().shape(), &[2, 3, 2]);
//! # Ok::<(), cp::Error>(())
//! ```

use super::lti::SosCoefficients;
use crate::backend::probe::current_device;
use crate::core::array::Array;
use crate::core::dtype::{promote_types, DType};
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::{normalize_axis, Layout};
use crate::ops::signal::{Cascade, Lfilter};

/// `a` as a C-contiguous array of `dt` (itself when it already is one).
pub(super) fn contiguous_as(a: &Array, dt: DType) -> Result<Array> {
    if a.dtype() == dt && a.is_c_contiguous() {
        Ok(a.clone())
    } else {
        a.astype(dt)
    }
}

/// Filters `x` along `axis` through the sections `coefs` (each `b` then
/// `a` of `order + 1` coefficients, `a[0] == 1`) in `dt`. `zi`, when given,
/// has `x`'s shape with `order` along `axis`, after a leading sections axis
/// when `zi_sections`. Returns `y` (x's shape) and the final states (zi's shape).
#[allow(clippy::too_many_arguments)]
pub(super) fn cascade_along(
    op: &'static str,
    coefs: &[f64],
    order: usize,
    x: &Array,
    axis: usize,
    zi: Option<&Array>,
    zi_sections: bool,
    dt: DType,
) -> Result<(Array, Array)> {
    let sections = coefs.len() / (2 * (order + 1));
    let lead = usize::from(zi_sections);
    if let Some(z) = zi {
        crate::api::shape::index::same_device(op, x, z)?;
    }
    let moved = x.moveaxis(axis as isize, -1)?;
    let moved_shape = moved.shape().to_vec();
    let n = x.shape()[axis];
    let lanes: usize = moved_shape[..moved_shape.len() - 1].iter().product();
    let rows = contiguous_as(&moved, dt)?.reshape([lanes, n])?;
    let zi_rows = match zi {
        Some(z) => {
            let zm = z.moveaxis((lead + axis) as isize, -1)?;
            Some(contiguous_as(&zm, dt)?.reshape([sections, lanes, order])?)
        }
        None => None,
    };
    let be = crate::backend::on(op, x.device())?;
    let f = Cascade {
        coefs,
        order,
        x: rows.view(),
        zi: zi_rows.as_ref().map(Array::view),
        dt,
    };
    let (y, zf) = be.cascade(op, &f)?;
    let y = Array::from_parts(y, Layout::contiguous(&moved_shape), dt);
    let y = if axis + 1 == x.ndim() {
        y
    } else {
        y.moveaxis(-1, axis as isize)?.copy()?
    };
    let mut zf_shape = vec![sections];
    zf_shape.extend_from_slice(&moved_shape[..moved_shape.len() - 1]);
    zf_shape.push(order);
    let zf = Array::from_parts(zf, Layout::contiguous(&zf_shape), dt)
        .moveaxis(-1, (1 + axis) as isize)?
        .copy()?;
    let zf = if zi_sections {
        zf
    } else {
        let mut s = x.shape().to_vec();
        s[axis] = order;
        zf.reshape(s)?
    };
    Ok((y, zf))
}

/// A small coefficient array's values on the host as f64.
pub(super) fn host_f64(a: &Array) -> Result<Vec<f64>> {
    a.astype(DType::Float64)?.to_vec::<f64>()
}

/// The coefficients of `b / a` padded to one length and divided by `a[0]`.
fn normalized_ba(op: &'static str, b: &[f64], a: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    let a0 = a[0];
    if a0 == 0.0 {
        return Err(Error::invalid(
            op,
            "the first coefficient of a must not be zero",
        ));
    }
    let m = a.len().max(b.len());
    let mut bv: Vec<f64> = b.iter().map(|x| x / a0).collect();
    let mut av: Vec<f64> = a.iter().map(|x| x / a0).collect();
    bv.resize(m, 0.0);
    av.resize(m, 0.0);
    Ok((bv, av))
}

pub(super) fn check_ba(op: &'static str, b: &Array, a: &Array) -> Result<()> {
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
    Ok(())
}

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
    check_ba(op, b, a)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
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
    if !dt.is_complex() && m > 1 {
        // Real filters: the cascade (a blocked parallel scan on the GPU).
        let (bv, av) = normalized_ba(op, &host_f64(b)?, &host_f64(a)?)?;
        let coefs: Vec<f64> = bv.into_iter().chain(av).collect();
        let (y, zf) = cascade_along(op, &coefs, m - 1, x, ax, zi, false, dt)?;
        return Ok((y, zi.map(|_| zf)));
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

/// The sections of `sos` checked and flattened (`b` then `a` per section,
/// divided by `a0`), and whether any has `a0 == 0`.
pub(super) fn sos_coefs(op: &'static str, sections: &[[f64; 6]]) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(sections.len() * 6);
    for (i, s) in sections.iter().enumerate() {
        if s[3] == 0.0 {
            return Err(Error::invalid(
                op,
                format!("section {i} of sos has a0 == 0 (each row is [b0, b1, b2, a0, a1, a2])"),
            ));
        }
        out.extend(s.iter().map(|c| c / s[3]));
    }
    Ok(out)
}

/// Filters `x` along `axis` through cascaded second-order sections
/// (`scipy.signal.sosfilt`). `zi`, of shape `(n_sections, ..., 2, ...)`
/// (x's shape with 2 along `axis`), gives the initial states; the final
/// states (same shape) are always returned. The result dtype is the common
/// float type of the sections (float64 unless `sos` is a float32 array), `x` and `zi`.
pub fn sosfilt<S: SosCoefficients + ?Sized>(
    sos: &S,
    x: &Array,
    axis: isize,
    zi: Option<&Array>,
) -> Result<(Array, Option<Array>)> {
    let op = "sosfilt";
    x.device().check_available(op)?;
    let sections = sos.sections(op)?;
    let coefs = sos_coefs(op, &sections)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
    let mut dt = promote_types(sos.dtype(), x.dtype());
    if let Some(z) = zi {
        let mut want = vec![sections.len()];
        want.extend_from_slice(x.shape());
        want[1 + ax] = 2;
        if z.shape() != want.as_slice() {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "zi must have shape {} ((n_sections, ...) with 2 along axis), not {}",
                    fmt_shape(&want),
                    fmt_shape(z.shape())
                ),
            });
        }
        dt = promote_types(dt, z.dtype());
    }
    let dt = match dt {
        DType::Float32 => DType::Float32,
        d if d.is_complex() => {
            return Err(Error::DType {
                op,
                detail: format!(
                    "complex data ({d}) is not supported; filter the real and imaginary parts"
                ),
            })
        }
        _ => DType::Float64,
    };
    let (y, zf) = cascade_along(op, &coefs, 2, x, ax, zi, true, dt)?;
    Ok((y, Some(zf)))
}

/// Steady-state states of `b / a` for a unit step (host, float64).
pub(super) fn lfilter_zi_host(op: &'static str, b: &[f64], a: &[f64]) -> Result<Vec<f64>> {
    let first = a
        .iter()
        .position(|&x| x != 0.0)
        .ok_or_else(|| Error::invalid(op, "there must be at least one nonzero `a` coefficient"))?;
    let a = &a[first..];
    if b.is_empty() {
        return Err(Error::invalid(op, "b must not be empty"));
    }
    let (bv, av) = normalized_ba(op, b, a)?;
    let k = bv.len() - 1;
    if k == 0 {
        return Ok(Vec::new());
    }
    // (I - companion(a).T) zi = b[1:] - a[1:] b[0]
    let mut m = faer::Mat::<f64>::identity(k, k);
    for i in 0..k {
        m[(i, 0)] += av[i + 1];
    }
    for i in 0..k - 1 {
        m[(i, i + 1)] -= 1.0;
    }
    let rhs = faer::Mat::<f64>::from_fn(k, 1, |i, _| bv[i + 1] - av[i + 1] * bv[0]);
    let lu = m.partial_piv_lu();
    let sol = faer::linalg::solvers::Solve::solve(&lu, &rhs);
    let zi: Vec<f64> = (0..k).map(|i| sol[(i, 0)]).collect();
    if zi.iter().any(|v| !v.is_finite()) {
        return Err(Error::LinAlg {
            op,
            detail: "the steady state is singular (the filter has a pole at z = 1)".into(),
        });
    }
    Ok(zi)
}

/// Steady-state states of each section for a unit step, scaled by the
/// gain of the sections before it (host, float64, (n_sections, 2)).
pub(super) fn sosfilt_zi_host(op: &'static str, sections: &[[f64; 6]]) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(2 * sections.len());
    let mut scale = 1.0;
    for s in sections {
        let zi = lfilter_zi_host(op, &s[..3], &s[3..])?;
        let mut two = [0.0; 2];
        for (t, z) in two.iter_mut().zip(&zi) {
            *t = scale * z;
        }
        out.extend_from_slice(&two);
        scale *= s[..3].iter().sum::<f64>() / s[3..].iter().sum::<f64>();
    }
    Ok(out)
}

/// Initial states of `lfilter` for the steady state of a unit step
/// (`scipy.signal.lfilter_zi`): float64 of length `max(len(a), len(b)) - 1`
/// on `b`'s device.
pub fn lfilter_zi(b: &Array, a: &Array) -> Result<Array> {
    let op = "lfilter_zi";
    check_ba(op, b, a)?;
    let zi = lfilter_zi_host(op, &host_f64(b)?, &host_f64(a)?)?;
    Array::from_host_slice(&zi, &[zi.len()], b.device())
}

/// Initial states of `sosfilt` for the steady state of a unit step
/// (`scipy.signal.sosfilt_zi`): float64 of shape (n_sections, 2) on the current device.
pub fn sosfilt_zi<S: SosCoefficients + ?Sized>(sos: &S) -> Result<Array> {
    let op = "sosfilt_zi";
    let sections = sos.sections(op)?;
    let zi = sosfilt_zi_host(op, &sections)?;
    Array::from_host_slice(&zi, &[sections.len(), 2], current_device())
}
