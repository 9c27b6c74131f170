//! The segments of a signal and their spectra: the shared core of every
//! estimate (SciPy's `_spectral_helper` and `_fft_helper`).

use crate::api::elementwise::multiply;
use crate::api::fft::{fft_with, fftfreq, rfft_with, rfftfreq, FftOptions};
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::{normalize_axis, Layout};

use super::super::detrend::{detrend_last, Detrend};
use super::super::window::{window_values, Window};

/// Segmenting of one estimate, resolved against the input.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    pub win: Vec<f64>,
    pub noverlap: usize,
    pub nfft: usize,
    pub onesided: bool,
    /// The data dtype of the computation (float32/64 or complex64/128).
    pub dt: DType,
}

impl Plan {
    pub fn nperseg(&self) -> usize {
        self.win.len()
    }
    pub fn step(&self) -> usize {
        self.win.len() - self.noverlap
    }
    pub fn nfreq(&self) -> usize {
        if self.onesided {
            self.nfft / 2 + 1
        } else {
            self.nfft
        }
    }
}

/// The dtype the estimate computes in: float32 / complex64 stay single,
/// everything else double.
pub(super) fn compute_dtype(op: &'static str, dt: DType) -> Result<DType> {
    Ok(match dt {
        DType::Float32 | DType::Float16 | DType::BFloat16 => DType::Float32,
        DType::Complex64 => DType::Complex64,
        DType::Complex128 => DType::Complex128,
        DType::Bool => {
            return Err(Error::DType {
                op,
                detail: "bool input is not supported; pass numbers".into(),
            })
        }
        _ => DType::Float64,
    })
}

/// Resolves window, nperseg, noverlap and nfft as SciPy's
/// `_triage_segments` and `_spectral_helper` do: nperseg defaults to 256
/// and is clipped to the input length `n`; noverlap to `nperseg / ovl_div`.
#[allow(clippy::too_many_arguments)]
pub(super) fn plan(
    op: &'static str,
    window: Window,
    nperseg: Option<usize>,
    noverlap: Option<usize>,
    nfft: Option<usize>,
    ovl_div: usize,
    onesided: bool,
    n: usize,
    dt: DType,
) -> Result<Plan> {
    if nperseg == Some(0) {
        return Err(Error::invalid(op, "nperseg must be a positive integer"));
    }
    let nperseg = nperseg.unwrap_or(256).min(n);
    if nperseg == 0 {
        return Err(Error::invalid(
            op,
            "the input must not be empty along the axis",
        ));
    }
    let noverlap = noverlap.unwrap_or(nperseg / ovl_div);
    if noverlap >= nperseg {
        return Err(Error::invalid(
            op,
            format!("noverlap ({noverlap}) must be less than nperseg ({nperseg})"),
        ));
    }
    let nfft = nfft.unwrap_or(nperseg);
    if nfft < nperseg {
        return Err(Error::invalid(
            op,
            format!("nfft ({nfft}) must be greater than or equal to nperseg ({nperseg})"),
        ));
    }
    Ok(Plan {
        win: window_values(op, window, nperseg, false)?,
        noverlap,
        nfft,
        onesided: onesided && !dt.is_complex(),
        dt,
    })
}

/// `x` with `axis` moved last, C-contiguous in `dt`.
pub(super) fn signal_rows(x: &Array, axis: isize, dt: DType) -> Result<Array> {
    let op = "spectral";
    let ax = normalize_axis(op, axis, x.ndim())?;
    let moved = x.moveaxis(ax as isize, -1)?;
    if moved.dtype() == dt && moved.is_c_contiguous() {
        Ok(moved)
    } else {
        moved.astype(dt)
    }
}

/// A small host vector as a 1-D array of `dt` on `device`.
pub(super) fn small(v: &[f64], device: Device, dt: DType) -> Result<Array> {
    Array::from_host_slice(v, &[v.len()], device)?.astype(dt)
}

/// The spectra of the segments of `rows` (C-contiguous, signal last,
/// at least nperseg long): shape (..., segments, frequencies), complex.
pub(super) fn segment_spectra(rows: &Array, p: &Plan, detrend: Detrend) -> Result<Array> {
    let nd = rows.ndim();
    let n = rows.shape()[nd - 1];
    let (nperseg, step) = (p.nperseg(), p.step());
    let nseg = (n - p.noverlap) / step;
    // Every segment at once: a view whose segment axis strides by `step`.
    let mut shape = rows.shape()[..nd - 1].to_vec();
    shape.extend([nseg, nperseg]);
    let mut strides = rows.strides()[..nd - 1].to_vec();
    strides.extend([step as isize, 1]);
    let frames = rows.with_layout(Layout::from_parts(shape, strides, rows.layout().offset()));
    let seg = detrend_last(&frames, detrend)?;
    let win = small(&p.win, rows.device(), p.dt.real_dtype())?;
    let seg = multiply(&seg, &win)?;
    let o = FftOptions::new().n(p.nfft);
    if p.onesided {
        rfft_with(&seg, &o)
    } else {
        fft_with(&seg, &o)
    }
}

/// The frequencies of the plan's spectra on `device`.
pub(super) fn frequencies(p: &Plan, fs: f64, device: Device) -> Result<Array> {
    with_device(device, || {
        if p.onesided {
            rfftfreq(p.nfft, 1.0 / fs)
        } else {
            fftfreq(p.nfft, 1.0 / fs)
        }
    })
}

/// The centre times of the segments of a signal of `n` samples.
pub(super) fn times(p: &Plan, n: usize, fs: f64, shift: f64, device: Device) -> Result<Array> {
    let half = p.nperseg() as f64 / 2.0;
    let nseg = (n - p.noverlap) / p.step();
    let t: Vec<f64> = (0..nseg)
        .map(|s| (half + (s * p.step()) as f64) / fs - shift)
        .collect();
    Array::from_host_slice(&t, &[nseg], device)
}

pub(super) fn check_fs(op: &'static str, fs: f64) -> Result<()> {
    if fs > 0.0 && fs.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("fs ({fs}) must be a positive finite number"),
        ))
    }
}
