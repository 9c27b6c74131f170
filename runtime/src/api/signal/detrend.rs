//! Removing a trend along an axis (`scipy.signal.detrend`), and the same
//! along the last axis of the segments of the spectral estimates. Every
//! step is an array operation on the data's device: a mean, and for the
//! linear trend one weighted sum (the centred sample index `t` has zero
//! sum, so the least-squares slope is `sum(t y) / sum(t^2)`).

use crate::api::creation::arange;
use crate::api::elementwise::{divide, multiply, subtract};
use crate::api::shape::concatenate;
use crate::api::shape::index::slice_axis;
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;

/// The trend removed from the data (SciPy's `type` / `detrend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detrend {
    /// Nothing removed (`detrend=False` in the spectral estimates).
    None,
    /// The mean (`'constant'`).
    #[default]
    Constant,
    /// The least-squares line (`'linear'`).
    Linear,
}

impl Detrend {
    /// `"constant"`/`"c"`, `"linear"`/`"l"`, `"none"`.
    pub fn parse(s: &str) -> Result<Detrend> {
        match s {
            "constant" | "c" => Ok(Detrend::Constant),
            "linear" | "l" => Ok(Detrend::Linear),
            "none" => Ok(Detrend::None),
            _ => Err(Error::invalid(
                "detrend",
                format!("trend type must be 'linear' or 'constant', not {s:?}"),
            )),
        }
    }
}

/// The floating dtype the data is detrended in (SciPy: 'dfDF', else f64).
pub(super) fn float_dtype(dt: DType) -> DType {
    match dt {
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128 => dt,
        DType::Float16 | DType::BFloat16 => DType::Float32,
        _ => DType::Float64,
    }
}

/// `x` (floating) with its trend along the last axis removed.
pub(super) fn detrend_last(x: &Array, kind: Detrend) -> Result<Array> {
    let nd = x.ndim();
    let n = x.shape()[nd - 1];
    match kind {
        Detrend::None => Ok(x.clone()),
        Detrend::Constant => subtract(x, x.mean_axes(-1, true)?),
        Detrend::Linear => {
            let centred = subtract(x, x.mean_axes(-1, true)?)?;
            if n < 2 {
                return Ok(centred);
            }
            let real = x.dtype().real_dtype();
            let t = with_device(x.device(), || arange(n as i64))?.astype(real)?;
            let t = subtract(&t, (n as f64 - 1.0) / 2.0)?;
            let sxx = (n as f64) * ((n * n) as f64 - 1.0) / 12.0;
            let slope = divide(multiply(x, &t)?.sum_axes(-1, true)?, sxx)?;
            subtract(&centred, multiply(&slope, &t)?)
        }
    }
}

/// `data` with its trend along `axis` removed (`scipy.signal.detrend`); a
/// linear trend is fitted separately on each piece between breakpoints
/// `bp` (sample indices, at most the axis length). Integers give float64.
pub fn detrend(data: &Array, axis: isize, kind: Detrend, bp: &[usize]) -> Result<Array> {
    let op = "detrend";
    data.device().check_available(op)?;
    if data.ndim() == 0 {
        return Err(Error::shape(op, "data must have at least one dimension"));
    }
    let ax = normalize_axis(op, axis, data.ndim())?;
    let n = data.shape()[ax];
    if let Some(&b) = bp.iter().find(|&&b| b > n) {
        return Err(Error::invalid(
            op,
            format!("breakpoint {b} is past the length of data along axis {ax} ({n})"),
        ));
    }
    let x = data
        .astype(float_dtype(data.dtype()))?
        .moveaxis(ax as isize, -1)?;
    let out = if kind == Detrend::Linear && bp.iter().any(|&b| b > 0 && b < n) {
        let mut edges: Vec<usize> = bp.iter().copied().chain([0, n]).collect();
        edges.sort_unstable();
        edges.dedup();
        let pieces = edges
            .windows(2)
            .map(|w| {
                let last = x.ndim() - 1;
                let piece = slice_axis(&x, last, Some(w[0] as isize), Some(w[1] as isize), 1)?;
                detrend_last(&piece, kind)
            })
            .collect::<Result<Vec<Array>>>()?;
        let refs: Vec<&Array> = pieces.iter().collect();
        concatenate(&refs, -1)?
    } else if n == 0 {
        x.copy()?
    } else {
        detrend_last(&x, kind)?
    };
    out.moveaxis(-1, ax as isize)?.copy()
}
