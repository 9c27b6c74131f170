//! Zero-phase filtering (`scipy.signal.filtfilt`, `sosfiltfilt`): the
//! signal extended at both ends, filtered forward from the steady state of
//! its first sample, then backward from the steady state of the last
//! output, and cut back to its length. Every step is an array operation on
//! the input's device (the filtering itself is the cascade of `filtering`).

use super::filtering::{
    cascade_along, check_ba, contiguous_as, host_f64, lfilter_zi_host, sos_coefs, sosfilt_zi_host,
};
use super::lti::SosCoefficients;
use crate::api::elementwise::{multiply, subtract};
use crate::core::array::Array;
use crate::core::dtype::{promote_types, DType};
use crate::core::error::{Error, Result};
use crate::core::layout::{normalize_axis, Layout};

/// How `filtfilt` extends the signal before filtering (SciPy's `padtype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PadType {
    /// Point reflection about each end sample (SciPy's default).
    #[default]
    Odd,
    /// Mirror reflection about each end sample.
    Even,
    /// Repeats of each end sample.
    Constant,
    /// No extension (SciPy's `padtype=None`).
    None,
}

/// Options of [`filtfilt`] and [`sosfiltfilt`]; `Default` is SciPy's
/// (`axis=-1`, `padtype='odd'`, `padlen=None`: three times the number of taps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FiltfiltOptions {
    /// The axis filtered.
    pub axis: isize,
    /// How the ends are extended.
    pub padtype: PadType,
    /// Samples added at each end (`None`: SciPy's default for the filter).
    pub padlen: Option<usize>,
}

impl Default for FiltfiltOptions {
    fn default() -> Self {
        FiltfiltOptions {
            axis: -1,
            padtype: PadType::Odd,
            padlen: None,
        }
    }
}

/// Columns `start, start + step, ...` (`len` of them) of the C-contiguous
/// 2-D `a`, as a view.
fn columns(a: &Array, start: usize, len: usize, step: isize) -> Array {
    let (lanes, n) = (a.shape()[0], a.shape()[1]);
    let l = Layout::from_parts(
        vec![lanes, len],
        vec![n as isize, step],
        a.layout().offset() + start,
    );
    a.with_layout(l)
}

/// `rows` (lanes, n), C-contiguous, extended by `edge` samples at each end.
fn extend(rows: &Array, edge: usize, padtype: PadType) -> Result<Array> {
    let n = rows.shape()[1];
    let first = columns(rows, 0, 1, 1);
    let last = columns(rows, n - 1, 1, 1);
    let (left, right) = match padtype {
        PadType::None => return Ok(rows.clone()),
        PadType::Even => (
            columns(rows, edge, edge, -1),
            columns(rows, n - 2, edge, -1),
        ),
        PadType::Odd => (
            subtract(multiply(&first, 2.0)?, columns(rows, edge, edge, -1))?,
            subtract(multiply(&last, 2.0)?, columns(rows, n - 2, edge, -1))?,
        ),
        PadType::Constant => (columns(rows, 0, edge, 0), columns(rows, n - 1, edge, 0)),
    };
    crate::api::shape::concatenate(&[&left, rows, &right], 1)
}

/// The zero-phase filter of `x` through the sections `coefs` of `order`
/// with steady states `zi` ((sections, order) for a unit step).
#[allow(clippy::too_many_arguments)]
fn zero_phase(
    op: &'static str,
    coefs: &[f64],
    order: usize,
    zi: &[f64],
    ntaps: usize,
    x: &Array,
    opts: FiltfiltOptions,
    dt: DType,
) -> Result<Array> {
    let ax = normalize_axis(op, opts.axis, x.ndim())?;
    let n = x.shape()[ax];
    let edge = match opts.padtype {
        PadType::None => 0,
        _ => opts.padlen.unwrap_or(3 * ntaps),
    };
    if n <= edge {
        return Err(Error::invalid(
            op,
            format!(
                "the length of the input vector x along axis {ax} ({n}) must be greater than padlen, which is {edge}"
            ),
        ));
    }
    let sections = coefs.len() / (2 * (order + 1));
    let moved = x.moveaxis(ax as isize, -1)?;
    let moved_shape = moved.shape().to_vec();
    let lanes: usize = moved_shape[..moved_shape.len() - 1].iter().product();
    let rows = contiguous_as(&moved, dt)?.reshape([lanes, n])?;
    let ext = if edge > 0 {
        extend(&rows, edge, opts.padtype)?
    } else {
        rows
    };
    let next = ext.shape()[1];
    let zi = Array::from_host_slice(zi, &[sections, 1, order], x.device())?.astype(dt)?;
    // Forward from the steady state of the first sample of each lane.
    let x0 = columns(&ext, 0, 1, 1).reshape([1, lanes, 1])?;
    let zi_fwd = multiply(&zi, &x0)?;
    let (y, _) = cascade_along(op, coefs, order, &ext, 1, Some(&zi_fwd), true, dt)?;
    // Backward (the reversed output) from the steady state of its last sample.
    let y0 = columns(&y, next - 1, 1, 1).reshape([1, lanes, 1])?;
    let zi_bwd = multiply(&zi, &y0)?;
    let reversed = columns(&y, next - 1, next, -1);
    let (y2, _) = cascade_along(op, coefs, order, &reversed, 1, Some(&zi_bwd), true, dt)?;
    // Reverse again and drop the extension.
    let out = columns(&y2, next - 1 - edge, n, -1)
        .copy()?
        .reshape(moved_shape)?;
    if ax + 1 == x.ndim() {
        Ok(out)
    } else {
        out.moveaxis(-1, ax as isize)?.copy()
    }
}

fn real_dtype(op: &'static str, dt: DType) -> Result<DType> {
    match dt {
        DType::Float32 => Ok(DType::Float32),
        d if d.is_complex() => Err(Error::DType {
            op,
            detail: format!(
                "complex data ({d}) is not supported; filter the real and imaginary parts"
            ),
        }),
        _ => Ok(DType::Float64),
    }
}

/// Zero-phase filtering of `x` by `b / a` forward and backward
/// (`scipy.signal.filtfilt`, `method='pad'`): no phase shift, squared gain.
pub fn filtfilt(b: &Array, a: &Array, x: &Array, opts: FiltfiltOptions) -> Result<Array> {
    let op = "filtfilt";
    x.device().check_available(op)?;
    check_ba(op, b, a)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let dt = real_dtype(
        op,
        promote_types(promote_types(b.dtype(), a.dtype()), x.dtype()),
    )?;
    let (bh, ah) = (host_f64(b)?, host_f64(a)?);
    if ah[0] == 0.0 {
        return Err(Error::invalid(
            op,
            "the first coefficient of a must not be zero",
        ));
    }
    let m = bh.len().max(ah.len());
    let zi = lfilter_zi_host(op, &bh, &ah)?;
    let mut bv: Vec<f64> = bh.iter().map(|v| v / ah[0]).collect();
    let mut av: Vec<f64> = ah.iter().map(|v| v / ah[0]).collect();
    bv.resize(m, 0.0);
    av.resize(m, 0.0);
    if m == 1 {
        // A pure gain: applied twice.
        let g = bv[0] * bv[0];
        return multiply(&contiguous_as(x, dt)?, g);
    }
    let coefs: Vec<f64> = bv.into_iter().chain(av).collect();
    zero_phase(op, &coefs, m - 1, &zi, m, x, opts, dt)
}

/// Zero-phase filtering of `x` through second-order sections forward and
/// backward (`scipy.signal.sosfiltfilt`).
pub fn sosfiltfilt<S: SosCoefficients + ?Sized>(
    sos: &S,
    x: &Array,
    opts: FiltfiltOptions,
) -> Result<Array> {
    let op = "sosfiltfilt";
    x.device().check_available(op)?;
    let sections = sos.sections(op)?;
    let coefs = sos_coefs(op, &sections)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let dt = real_dtype(op, promote_types(sos.dtype(), x.dtype()))?;
    let zeros_b2 = sections.iter().filter(|s| s[2] == 0.0).count();
    let zeros_a2 = sections.iter().filter(|s| s[5] == 0.0).count();
    let ntaps = 2 * sections.len() + 1 - zeros_b2.min(zeros_a2);
    let zi = sosfilt_zi_host(op, &sections)?;
    zero_phase(op, &coefs, 2, &zi, ntaps, x, opts, dt)
}
