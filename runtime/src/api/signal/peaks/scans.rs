//! `peak_prominences` and `peak_widths`: per-peak scans of the signal on
//! its device (`Signal::peak_prominences` / `peak_widths`).

use crate::api::elementwise::{greater_equal, less};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::ops::signal::PeakScan;

/// `x` checked 1-D and real, as C-contiguous float64.
pub(super) fn signal_f64(op: &'static str, x: &Array) -> Result<Array> {
    x.device().check_available(op)?;
    if x.ndim() != 1 {
        return Err(Error::shape(
            op,
            format!("x must be a 1-D array, not {}-D", x.ndim()),
        ));
    }
    if x.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!("x must be real, not {}", x.dtype()),
        });
    }
    if x.dtype() == DType::Float64 && x.is_c_contiguous() {
        Ok(x.clone())
    } else {
        x.astype(DType::Float64)
    }
}

/// `peaks` checked 1-D integer indices into `n` samples, as int64.
pub(super) fn peak_indices(op: &'static str, x: &Array, peaks: &Array) -> Result<Array> {
    crate::api::shape::index::same_device(op, x, peaks)?;
    if peaks.ndim() != 1 || !(peaks.dtype().is_integer() || peaks.size() == 0) {
        return Err(Error::invalid(
            op,
            format!(
                "peaks must be a 1-D array of integer indices, not {}-D {}",
                peaks.ndim(),
                peaks.dtype()
            ),
        ));
    }
    let p = peaks.astype(DType::Int64)?;
    if p.size() > 0 {
        let n = x.size() as i64;
        let bad = crate::api::elementwise::logical_or(less(&p, 0)?, greater_equal(&p, n)?)?;
        if bad.any()?.item::<bool>()? {
            return Err(Error::invalid(
                op,
                format!("a peak is not a valid index for x of length {n}"),
            ));
        }
    }
    Ok(p)
}

fn wrap(s: crate::core::storage::Storage, n: usize, dt: DType) -> Array {
    Array::from_parts(s, Layout::contiguous(&[n]), dt)
}

/// Prominences with validated inputs (x float64, peaks int64).
pub(super) fn prominences_of(
    op: &'static str,
    x: &Array,
    p: &Array,
    wlen: i64,
) -> Result<[Array; 3]> {
    let be = crate::backend::on(op, x.device())?;
    let scan = PeakScan {
        x: x.view(),
        peaks: p.view(),
    };
    let [a, b, c] = be.peak_prominences(op, &scan, wlen)?;
    let n = p.size();
    Ok([
        wrap(a, n, DType::Float64),
        wrap(b, n, DType::Int64),
        wrap(c, n, DType::Int64),
    ])
}

/// Widths with validated inputs.
pub(super) fn widths_of(
    op: &'static str,
    x: &Array,
    p: &Array,
    rel_height: f64,
    bases: [&Array; 3],
) -> Result<[Array; 4]> {
    if rel_height.is_nan() || rel_height < 0.0 {
        return Err(Error::invalid(
            op,
            format!("rel_height ({rel_height}) must be greater or equal to 0.0"),
        ));
    }
    let be = crate::backend::on(op, x.device())?;
    let scan = PeakScan {
        x: x.view(),
        peaks: p.view(),
    };
    let b = [bases[0].view(), bases[1].view(), bases[2].view()];
    let out = be.peak_widths(op, &scan, rel_height, b)?;
    let n = p.size();
    Ok(out.map(|s| wrap(s, n, DType::Float64)))
}

/// SciPy's `wlen`: `None` (the whole signal) or a window of more than 1 sample, rounded up.
pub(super) fn wlen_samples(op: &'static str, wlen: Option<f64>) -> Result<i64> {
    match wlen {
        None => Ok(-1),
        Some(w) if w > 1.0 => Ok(w.ceil() as i64),
        Some(w) => Err(Error::invalid(
            op,
            format!("wlen must be larger than 1, was {w}"),
        )),
    }
}

/// The prominence of each peak (`scipy.signal.peak_prominences`):
/// (prominences, left_bases, right_bases), searching within `wlen` samples
/// around each peak (default the whole signal).
pub fn peak_prominences(
    x: &Array,
    peaks: &Array,
    wlen: Option<f64>,
) -> Result<(Array, Array, Array)> {
    let op = "peak_prominences";
    let xs = signal_f64(op, x)?;
    let p = peak_indices(op, &xs, peaks)?;
    let w = wlen_samples(op, wlen)?;
    let [a, b, c] = prominences_of(op, &xs, &p, w)?;
    Ok((a, b, c))
}

/// The width of each peak at `rel_height` of its prominence
/// (`scipy.signal.peak_widths`): (widths, width_heights, left_ips,
/// right_ips). The prominence data is computed when not given.
pub fn peak_widths(
    x: &Array,
    peaks: &Array,
    rel_height: f64,
    prominence_data: Option<(&Array, &Array, &Array)>,
    wlen: Option<f64>,
) -> Result<(Array, Array, Array, Array)> {
    let op = "peak_widths";
    let xs = signal_f64(op, x)?;
    let p = peak_indices(op, &xs, peaks)?;
    let owned;
    let bases: [Array; 3] = match prominence_data {
        Some((a, b, c)) => {
            if a.shape() != p.shape() || b.shape() != p.shape() || c.shape() != p.shape() {
                return Err(Error::shape(
                    op,
                    "the prominence data must have one value per peak",
                ));
            }
            let lb = b.astype(DType::Int64)?;
            let rb = c.astype(DType::Int64)?;
            // Every base must bracket its peak inside the signal.
            let n = xs.size() as i64;
            let bad = crate::api::elementwise::logical_or(
                crate::api::elementwise::logical_or(
                    less(&lb, 0)?,
                    crate::api::elementwise::greater(&lb, &p)?,
                )?,
                crate::api::elementwise::logical_or(less(&rb, &p)?, greater_equal(&rb, n)?)?,
            )?;
            if p.size() > 0 && bad.any()?.item::<bool>()? {
                return Err(Error::invalid(
                    op,
                    "the prominence data is invalid for a peak",
                ));
            }
            [a.astype(DType::Float64)?, lb, rb]
        }
        None => {
            owned = prominences_of(op, &xs, &p, wlen_samples(op, wlen)?)?;
            owned.clone()
        }
    };
    let [w, h, l, r] = widths_of(op, &xs, &p, rel_height, [&bases[0], &bases[1], &bases[2]])?;
    Ok((w, h, l, r))
}
