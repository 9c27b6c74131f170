//! Changing the sampling rate: `upfirdn`, `resample_poly`, `decimate`
//! (polyphase FIR and zero-phase IIR) and `resample` (FFT), on the data's
//! device.
//!
//! `upfirdn` runs polyphase: the outputs `m = up a + r` of one residue `r`
//! use only the taps `h[phase + up q]` (phase `r down mod up`) against the
//! input itself, every `down`-th sample, so each residue is one strided
//! correlation of `len(h) / up` taps (no zeros inserted, no output thrown
//! away); the `up` residues are interleaved by one stack and reshape.

use crate::api::elementwise::multiply;
use crate::api::fft::{irfft_with, rfft_with, FftOptions};
use crate::api::shape::index::slice_axis;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;
use crate::core::layout::Layout;
use crate::ops::signal::Upfirdn;

use super::along::{restore, rows_last};
use super::fir::{firwin_values, FirwinOptions};
use super::window::Window;
use super::zero_phase::{sosfiltfilt, FiltfiltOptions};
use super::{cheby1, FilterForm, IirOptions};

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn float_dtype(op: &'static str, dt: DType) -> Result<DType> {
    match dt {
        DType::Float32 => Ok(DType::Float32),
        d if d.is_complex() => Err(Error::DType {
            op,
            detail: format!(
                "complex data ({d}) is not supported; resample the real and imaginary parts"
            ),
        }),
        DType::Bool => Err(Error::DType {
            op,
            detail: "bool data is not supported".into(),
        }),
        _ => Ok(DType::Float64),
    }
}

/// `len` outputs `y[m] = sum_k h[k] xu[t0 + m down - k]` of the rows
/// (signal last, C-contiguous float) with the float64 taps `h` (1-D,
/// contiguous, on the rows' device), `xu` the rows upsampled by `up` with
/// zeros (`Signal::upfirdn`, one kernel on the GPU): SciPy's upfirdn for
/// `t0 = 0`. Index arithmetic past i64 is an error.
fn upfirdn_rows(
    op: &'static str,
    rows: &Array,
    h: &Array,
    up: usize,
    down: usize,
    t0: usize,
    len: usize,
) -> Result<Array> {
    let last = rows.ndim() - 1;
    let n = rows.shape()[last];
    let too_long = || {
        Error::invalid(
            op,
            format!("up / down = {up} / {down} over {n} samples needs indices past i64"),
        )
    };
    let fits = |v: Option<usize>| v.filter(|&v| i64::try_from(v).is_ok()).ok_or_else(too_long);
    fits(
        len.saturating_sub(1)
            .checked_mul(down)
            .and_then(|t| t.checked_add(t0)),
    )?;
    fits(n.checked_mul(up))?;
    fits(h.size().checked_add(up))?;
    let lanes: usize = rows.shape()[..last].iter().product();
    let flat = rows.reshape(vec![lanes, n])?;
    let be = crate::backend::on(op, rows.device())?;
    let u = Upfirdn {
        x: flat.view(),
        taps: h.view(),
        up,
        down,
        t0,
        len,
    };
    let y = be.upfirdn(op, &u)?;
    let mut shape = rows.shape()[..last].to_vec();
    shape.push(len);
    Array::from_parts(y, Layout::contiguous(&[lanes, len]), rows.dtype()).reshape(shape)
}

/// Upsample by `up`, filter with the FIR `h`, downsample by `down`
/// (`scipy.signal.upfirdn`, zero padding), along `axis`.
pub fn upfirdn(h: &Array, x: &Array, up: usize, down: usize, axis: isize) -> Result<Array> {
    let op = "upfirdn";
    x.device().check_available(op)?;
    if h.ndim() != 1 || h.size() == 0 {
        return Err(Error::shape(op, "h must be a non-empty 1-D array"));
    }
    if up < 1 || down < 1 {
        return Err(Error::invalid(
            op,
            format!("up ({up}) and down ({down}) must be >= 1"),
        ));
    }
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let dt = float_dtype(op, crate::core::dtype::promote_types(x.dtype(), h.dtype()))?;
    let ax = normalize_axis(op, axis, x.ndim())?;
    if x.shape()[ax] == 0 {
        return Err(Error::invalid(op, "x must not be empty along the axis"));
    }
    // Taps given on another device follow the data (a short copy).
    let h = if h.device() == x.device() {
        h.clone()
    } else {
        h.to_device(&x.device())?
    };
    let taps = rows_last(&h, 0, DType::Float64)?;
    let rows = rows_last(x, ax, dt)?;
    let n = x.shape()[ax];
    let len = n
        .checked_sub(1)
        .and_then(|k| k.checked_mul(up))
        .and_then(|k| k.checked_add(h.size() - 1))
        .ok_or_else(|| Error::invalid(op, format!("up = {up} over {n} samples is too long")))?
        / down
        + 1;
    restore(&upfirdn_rows(op, &rows, &taps, up, down, 0, len)?, ax)
}

/// Resamples by `up / down` with a polyphase FIR (`scipy.signal.resample_poly`,
/// `padtype='constant'`): the default filter is `firwin(20 max + 1, 1 / max)`
/// with `window` (SciPy's default `Kaiser(5.0)`).
pub fn resample_poly(
    x: &Array,
    up: usize,
    down: usize,
    axis: isize,
    window: Window,
) -> Result<Array> {
    let op = "resample_poly";
    if up < 1 || down < 1 {
        return Err(Error::invalid(
            op,
            format!("up ({up}) and down ({down}) must be >= 1"),
        ));
    }
    let g = gcd(up, down);
    let (up, down) = (up / g, down / g);
    let max_rate = up.max(down);
    let half_len = max_rate.checked_mul(10).ok_or_else(|| {
        Error::invalid(
            op,
            format!("up / down = {up} / {down} needs a filter too long to hold"),
        )
    })?;
    let fo = FirwinOptions {
        window,
        ..Default::default()
    };
    let h = if up == 1 && down == 1 {
        vec![1.0]
    } else {
        firwin_values(
            op,
            half_len.saturating_mul(2).saturating_add(1),
            &[1.0 / max_rate as f64],
            fo,
        )?
    };
    resample_poly_taps(op, x, up, down, axis, h, half_len)
}

fn resample_poly_taps(
    op: &'static str,
    x: &Array,
    up: usize,
    down: usize,
    axis: isize,
    h: Vec<f64>,
    half_len: usize,
) -> Result<Array> {
    x.device().check_available(op)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let dt = float_dtype(op, x.dtype())?;
    let ax = normalize_axis(op, axis, x.ndim())?;
    let n_in = x.shape()[ax];
    if up == 1 && down == 1 {
        return x.astype(dt);
    }
    if n_in == 0 {
        return Err(Error::invalid(op, "x must not be empty along the axis"));
    }
    let n_out = n_in
        .checked_mul(up)
        .ok_or_else(|| {
            Error::invalid(
                op,
                format!("up = {up} over {n_in} samples is too long to resample"),
            )
        })?
        .div_ceil(down);
    // SciPy pads the filter in front to a multiple of `down`, pads it
    // behind until upfirdn's output is long enough, and drops the first
    // outputs: that centres the filter, output m being the filter at
    // `m down + half_len` of the upsampled signal, which the kernel
    // computes directly (the zero taps add nothing).
    let h: Vec<f64> = h.iter().map(|v| v * up as f64).collect();
    let taps = Array::from_host_slice(&h, &[h.len()], x.device())?;
    let rows = rows_last(x, ax, dt)?;
    restore(
        &upfirdn_rows(op, &rows, &taps, up, down, half_len, n_out)?,
        ax,
    )
}

/// The anti-aliasing filter of [`decimate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimateFilter {
    /// Chebyshev type I of order `n` (default 8), 0.05 dB ripple, cutoff 0.8 / q.
    Iir,
    /// Hamming-windowed FIR of `n + 1` taps (default 20 q + 1).
    Fir,
}

/// Downsamples by `q` after an anti-aliasing filter (`scipy.signal.decimate`,
/// `zero_phase=True`): the IIR runs forward and backward (`sosfiltfilt`),
/// the FIR through `resample_poly`.
pub fn decimate(
    x: &Array,
    q: usize,
    n: Option<usize>,
    ftype: DecimateFilter,
    axis: isize,
) -> Result<Array> {
    let op = "decimate";
    if q < 1 {
        return Err(Error::invalid(op, format!("q ({q}) must be >= 1")));
    }
    match ftype {
        DecimateFilter::Fir => {
            let n = n.unwrap_or(q.saturating_mul(20));
            // The taps are a host vector: refuse a count it cannot hold.
            let taps = crate::core::layout::checked_size(op, &[n.saturating_add(1)])?;
            crate::core::layout::check_host_room(op, taps, 8)?;
            let fo = FirwinOptions {
                window: Window::Hamming,
                ..Default::default()
            };
            let b = firwin_values(op, n.saturating_add(1), &[1.0 / q as f64], fo)?;
            resample_poly_taps(op, x, 1, q, axis, b, n / 2)
        }
        DecimateFilter::Iir => {
            let n = n.unwrap_or(8);
            let io = IirOptions {
                output: FilterForm::Sos,
                ..Default::default()
            };
            let sos = cheby1(n, 0.05, &[0.8 / q as f64], io)?.sos()?;
            let fo = FiltfiltOptions {
                axis,
                ..Default::default()
            };
            let y = sosfiltfilt(&sos, x, fo)?;
            let ax = normalize_axis(op, axis, x.ndim())?;
            // A step beyond isize::MAX takes the first sample, as any
            // step longer than the axis does.
            let step = isize::try_from(q).unwrap_or(isize::MAX);
            slice_axis(&y, ax, None, None, step)?.copy()
        }
    }
}

/// Resamples real `x` to `num` samples along `axis` with the FFT
/// (`scipy.signal.resample`, no window): the spectrum cut or zero-padded
/// (the unpaired Nyquist bin split or joined as SciPy 1.17 does).
pub fn resample(x: &Array, num: usize, axis: isize) -> Result<Array> {
    let op = "resample";
    x.device().check_available(op)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    if num == 0 {
        return Err(Error::invalid(op, "num must be positive"));
    }
    let dt = float_dtype(op, x.dtype())?;
    let ax = normalize_axis(op, axis, x.ndim())?;
    let n_x = x.shape()[ax];
    if n_x == 0 {
        return Err(Error::invalid(op, "x must not be empty along the axis"));
    }
    let s_fac = n_x as f64 / num as f64;
    let m = num.min(n_x);
    let m2 = m / 2 + 1;
    let rows = rows_last(x, ax, dt)?;
    let spec = rfft_with(&rows, &FftOptions::new())?;
    let last = spec.ndim() - 1;
    let spec = slice_axis(&spec, last, Some(0), Some(m2 as isize), 1)?;
    let mut fac = vec![1.0 / s_fac; m2];
    if m % 2 == 0 && num != n_x {
        fac[m / 2] *= if num < n_x { 2.0 } else { 0.5 };
    }
    let fac = Array::from_host_slice(&fac, &[m2], x.device())?.astype(dt)?;
    let y = irfft_with(&multiply(&spec, &fac)?, &FftOptions::new().n(num))?;
    restore(&y, ax)
}
