//! The averaged and per-segment power estimates: `periodogram`, `welch`,
//! `csd`, `coherence`, `spectrogram`.

use num_complex::Complex64;

use crate::api::elementwise::{abs, add, conj, divide, imag, multiply, real, square};
use crate::api::reductions::stats::median;
use crate::api::shape::index::slice_axis;
use crate::core::array::Array;
use crate::core::dtype::promote_types;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::normalize_axis;

use super::segments::{
    check_fs, compute_dtype, frequencies, plan, segment_spectra, signal_rows, small, times, Plan,
};
use super::{Average, Scaling, SpectralOptions};
use crate::api::signal::window::Window;

/// The scaled (cross) power of every segment: (frequencies, plan, values
/// of shape (..., segments, frequencies) with the signal axis removed).
fn segment_power(
    op: &'static str,
    x: &Array,
    y: Option<&Array>,
    o: &SpectralOptions,
    window: Window,
    ovl_div: usize,
    keep: Option<usize>,
) -> Result<(Array, Plan, Array)> {
    x.device().check_available(op)?;
    check_fs(op, o.fs)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let mut dt = x.dtype();
    if let Some(y) = y {
        crate::api::shape::index::same_device(op, x, y)?;
        if y.shape() != x.shape() {
            return Err(Error::shape(
                op,
                format!(
                    "x and y must have the same shape, not {} and {}",
                    fmt_shape(x.shape()),
                    fmt_shape(y.shape())
                ),
            ));
        }
        dt = promote_types(dt, y.dtype());
    }
    let dt = compute_dtype(op, dt)?;
    let ax = normalize_axis(op, o.axis, x.ndim())?;
    let mut rows = signal_rows(x, ax as isize, dt)?;
    let mut n = rows.shape()[rows.ndim() - 1];
    if let Some(k) = keep.filter(|&k| k < n) {
        rows = slice_axis(&rows, rows.ndim() - 1, Some(0), Some(k as isize), 1)?;
        n = k;
    }
    let p = plan(
        op,
        window,
        o.nperseg,
        o.noverlap,
        o.nfft,
        ovl_div,
        o.return_onesided,
        n,
        dt,
    )?;
    let fx = segment_spectra(&rows, &p, o.detrend)?;
    let pxy = match y {
        Some(y) => {
            let ry = signal_rows(y, ax as isize, dt)?;
            let ry = if n < ry.shape()[ry.ndim() - 1] {
                slice_axis(&ry, ry.ndim() - 1, Some(0), Some(n as isize), 1)?
            } else {
                ry
            };
            let fy = segment_spectra(&ry, &p, o.detrend)?;
            multiply(conj(&fx)?, &fy)?
        }
        None => add(square(real(&fx)?)?, square(imag(&fx)?)?)?,
    };
    // Scaling, and the doubled one-sided bins (all but DC and Nyquist).
    let scale = match o.scaling {
        Scaling::Density => 1.0 / (o.fs * p.win.iter().map(|w| w * w).sum::<f64>()),
        Scaling::Spectrum => 1.0 / p.win.iter().sum::<f64>().powi(2),
    };
    let nfreq = p.nfreq();
    let fac: Vec<f64> = (0..nfreq)
        .map(|f| {
            let edge = f == 0 || (p.nfft % 2 == 0 && f + 1 == nfreq);
            if p.onesided && !edge {
                2.0 * scale
            } else {
                scale
            }
        })
        .collect();
    let pxy = multiply(&pxy, small(&fac, x.device(), dt.real_dtype())?)?;
    Ok((frequencies(&p, o.fs, x.device())?, p, pxy))
}

/// 1 + sum of alternating reciprocals: the median's bias for `n`
/// exponentially distributed values (SciPy's `_median_bias`).
fn median_bias(n: usize) -> f64 {
    1.0 + (1..=(n - 1) / 2)
        .map(|k| {
            let ii = 2.0 * k as f64;
            1.0 / (ii + 1.0) - 1.0 / ii
        })
        .sum::<f64>()
}

/// The average over segments (axis -2), frequency axis moved to `ax`.
fn average(pxy: &Array, how: Average, ax: usize) -> Result<Array> {
    let nseg = pxy.shape()[pxy.ndim() - 2];
    let avg = match how {
        Average::Median if nseg > 1 => {
            let bias = median_bias(nseg);
            let m = if pxy.dtype().is_complex() {
                let re = median(&real(pxy)?, -2, false)?;
                let im = median(&imag(pxy)?, -2, false)?;
                let i = Array::from_host_slice(&[Complex64::new(0.0, 1.0)], &[1], pxy.device())?
                    .astype(pxy.dtype())?;
                add(&re, multiply(&im, &i)?)?.astype(pxy.dtype())?
            } else {
                median(pxy, -2, false)?
            };
            divide(&m, bias)?
        }
        _ => pxy.mean_axes(-2, false)?,
    };
    avg.moveaxis(-1, ax as isize)?.copy()
}

fn empty_result(x: &Array, dt: crate::core::dtype::DType) -> Result<(Array, Array)> {
    let e = Array::from_host_slice::<f64>(&[], &[0], x.device())?;
    Ok((e, x.astype(dt)?))
}

fn is_empty_along(x: &Array, axis: isize) -> bool {
    x.ndim() > 0
        && normalize_axis("spectral", axis, x.ndim())
            .map(|a| x.shape()[a] == 0)
            .unwrap_or(false)
}

/// The cross power spectral density of `x` and `y` by Welch's method
/// (`scipy.signal.csd`): (frequencies, complex Pxy). `x` and `y` have the
/// same shape (SciPy also broadcasts and zero-pads; this does not).
pub fn csd(x: &Array, y: &Array, opts: SpectralOptions) -> Result<(Array, Array)> {
    let op = "csd";
    if is_empty_along(x, opts.axis) {
        let dt = compute_dtype(op, promote_types(x.dtype(), y.dtype()))?;
        return empty_result(x, promote_types(dt, crate::core::dtype::DType::Complex64));
    }
    let w = opts.window.unwrap_or(Window::Hann);
    let (f, _, pxy) = segment_power(op, x, Some(y), &opts, w, 2, None)?;
    let ax = normalize_axis(op, opts.axis, x.ndim())?;
    Ok((f, average(&pxy, opts.average, ax)?))
}

/// The power spectral density of `x` by Welch's method
/// (`scipy.signal.welch`): (frequencies, Pxx). Default Hann window of 256
/// points with half overlap.
pub fn welch(x: &Array, opts: SpectralOptions) -> Result<(Array, Array)> {
    let op = "welch";
    if is_empty_along(x, opts.axis) {
        return empty_result(x, compute_dtype(op, x.dtype())?);
    }
    let w = opts.window.unwrap_or(Window::Hann);
    let (f, _, pxx) = segment_power(op, x, None, &opts, w, 2, None)?;
    let ax = normalize_axis(op, opts.axis, x.ndim())?;
    Ok((f, average(&pxx, opts.average, ax)?))
}

/// The magnitude-squared coherence of `x` and `y`
/// (`scipy.signal.coherence`): |Pxy|^2 / (Pxx Pyy) from Welch estimates.
pub fn coherence(x: &Array, y: &Array, opts: SpectralOptions) -> Result<(Array, Array)> {
    let (f, pxx) = welch(x, opts)?;
    let (_, pyy) = welch(y, opts)?;
    let (_, pxy) = csd(x, y, opts)?;
    let num = square(abs(&pxy)?)?;
    Ok((f, divide(divide(&num, &pxx)?, &pyy)?))
}

/// The periodogram of `x` (`scipy.signal.periodogram`): (frequencies, Pxx),
/// one segment of the whole signal (or its first `nfft` samples). Default
/// window boxcar.
pub fn periodogram(x: &Array, opts: SpectralOptions) -> Result<(Array, Array)> {
    let op = "periodogram";
    if is_empty_along(x, opts.axis) {
        return empty_result(x, compute_dtype(op, x.dtype())?);
    }
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let ax = normalize_axis(op, opts.axis, x.ndim())?;
    let n = x.shape()[ax];
    let nperseg = opts.nfft.map_or(n, |f| f.min(n));
    let o = SpectralOptions {
        nperseg: Some(nperseg),
        noverlap: Some(0),
        ..opts
    };
    let w = opts.window.unwrap_or(Window::Boxcar);
    let (f, _, pxx) = segment_power(op, x, None, &o, w, 2, Some(nperseg))?;
    Ok((f, average(&pxx, crate::api::signal::Average::Mean, ax)?))
}

/// The spectrogram of `x` (`scipy.signal.spectrogram`, mode 'psd'):
/// (frequencies, segment times, Sxx with frequencies at the signal's axis
/// and segments last). Default window Tukey(0.25), overlap nperseg / 8.
pub fn spectrogram(x: &Array, opts: SpectralOptions) -> Result<(Array, Array, Array)> {
    let op = "spectrogram";
    let w = opts.window.unwrap_or(Window::Tukey(0.25));
    let (f, p, sxx) = segment_power(op, x, None, &opts, w, 8, None)?;
    let ax = normalize_axis(op, opts.axis, x.ndim())?;
    let n = x.shape()[ax];
    let t = times(&p, n, opts.fs, 0.0, x.device())?;
    Ok((f, t, sxx.moveaxis(-1, ax as isize)?.copy()?))
}
