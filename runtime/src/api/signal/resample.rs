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
use crate::api::shape::manip::{pad, PadMode};
use crate::api::shape::stack;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;

use super::along::{correlate_taps, restore, rows_last};
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

/// SciPy's output length of `upfirdn`.
fn output_len(len_h: usize, n: usize, up: usize, down: usize) -> usize {
    ((n - 1) * up + len_h - 1) / down + 1
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

/// The polyphase upfirdn of `rows` (signal last, float) with host taps `h`.
fn upfirdn_rows(rows: &Array, h: &[f64], up: usize, down: usize) -> Result<Array> {
    let last = rows.ndim() - 1;
    let n = rows.shape()[last];
    let l = h.len();
    let out = output_len(l, n, up, down);
    let per_residue = out.div_ceil(up);
    let qpad = l.div_ceil(up);
    let right = ((per_residue + 1) * down + up + qpad + 1).saturating_sub(n);
    let mut w = vec![(0usize, 0usize); rows.ndim()];
    w[last] = (qpad, right);
    let xpad = pad(rows, w, PadMode::Constant(0.into()))?;
    let mut phases = Vec::with_capacity(up);
    for r in 0..up {
        let phase = (r * down) % up;
        let c = (r * down) / up;
        let mut taps: Vec<f64> = (phase..l).step_by(up).map(|k| h[k]).collect();
        if taps.is_empty() {
            taps.push(0.0);
        }
        let q = taps.len();
        taps.reverse();
        // y_r[a] = sum_q g_q x[a down + c - q], x shifted by qpad zeros.
        let start = c + qpad + 1 - q;
        let src = slice_axis(&xpad, last, Some(start as isize), None, 1)?;
        phases.push(correlate_taps(&src, &taps, 1, down, per_residue)?);
    }
    let refs: Vec<&Array> = phases.iter().collect();
    let mut shape = rows.shape()[..last].to_vec();
    shape.push(per_residue * up);
    let y = stack(&refs, -1)?.reshape(shape)?;
    slice_axis(&y, last, Some(0), Some(out as isize), 1)
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
    let taps = h.astype(DType::Float64)?.to_vec::<f64>()?;
    let rows = rows_last(x, ax, dt)?;
    restore(&upfirdn_rows(&rows, &taps, up, down)?, ax)
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
    // The filter is padded to a multiple of `down`: an absurd rate (a
    // decimation by 2^62) would need a padding no host can hold.
    let too_long = || {
        Error::invalid(
            op,
            format!(
                "up / down = {up} / {down} with {} taps needs a padded filter too long to hold",
                h.len()
            ),
        )
    };
    let n_out = n_in.checked_mul(up).ok_or_else(too_long)?.div_ceil(down);
    let n_pre_pad = down - half_len % down;
    let n_pre_remove = half_len.checked_add(n_pre_pad).ok_or_else(too_long)? / down;
    let padded_len = h.len().checked_add(n_pre_pad).ok_or_else(too_long)?;
    crate::core::layout::check_host_room(op, padded_len, 8)?;
    let mut h: Vec<f64> = h.iter().map(|v| v * up as f64).collect();
    let mut n_post_pad = 0;
    while output_len(padded_len + n_post_pad, n_in, up, down) < n_out + n_pre_remove {
        n_post_pad += 1;
    }
    let mut padded = vec![0.0; n_pre_pad];
    padded.append(&mut h);
    padded.resize(padded.len() + n_post_pad, 0.0);
    let rows = rows_last(x, ax, dt)?;
    let y = upfirdn_rows(&rows, &padded, up, down)?;
    let last = y.ndim() - 1;
    let y = slice_axis(
        &y,
        last,
        Some(n_pre_remove as isize),
        Some((n_pre_remove + n_out) as isize),
        1,
    )?;
    restore(&y.copy()?, ax)
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
