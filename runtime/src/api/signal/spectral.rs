//! Spectral estimates (`periodogram`, `spectrogram`).

use num_complex::Complex64;
use num_traits::Zero;

use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

use super::fir::{window_values, Window};

/// Detrending of each segment before the FFT in spectral estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detrend {
    /// None.
    None,
    /// Subtract the mean.
    Constant,
    /// Subtract the least-squares line.
    Linear,
}

/// Scaling of spectral estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scaling {
    /// Power spectral density (V**2/Hz).
    Density,
    /// Power spectrum (V**2).
    Spectrum,
}

/// Options of [`periodogram`] and [`spectrogram`]; `None` fields take
/// SciPy's defaults (window: boxcar for periodogram, Tukey(0.25) for
/// spectrogram; nperseg 256 clipped to the input; noverlap nperseg / 8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpectralOptions {
    /// Sampling frequency (default 1).
    pub fs: f64,
    pub window: Option<Window>,
    pub nperseg: Option<usize>,
    pub noverlap: Option<usize>,
    pub nfft: Option<usize>,
    pub detrend: Detrend,
    pub scaling: Scaling,
}

impl Default for SpectralOptions {
    fn default() -> Self {
        SpectralOptions {
            fs: 1.0,
            window: None,
            nperseg: None,
            noverlap: None,
            nfft: None,
            detrend: Detrend::Constant,
            scaling: Scaling::Density,
        }
    }
}

fn detrend_in_place(seg: &mut [f64], d: Detrend) {
    let n = seg.len() as f64;
    match d {
        Detrend::None => {}
        Detrend::Constant => {
            let mean = seg.iter().sum::<f64>() / n;
            seg.iter_mut().for_each(|x| *x -= mean);
        }
        Detrend::Linear => {
            if seg.len() < 2 {
                seg.iter_mut().for_each(|x| *x = 0.0);
                return;
            }
            let tm = (n - 1.0) / 2.0;
            let ym = seg.iter().sum::<f64>() / n;
            let (mut sxy, mut sxx) = (0.0, 0.0);
            for (i, &y) in seg.iter().enumerate() {
                sxy += (i as f64 - tm) * (y - ym);
                sxx += (i as f64 - tm) * (i as f64 - tm);
            }
            let slope = sxy / sxx;
            for (i, y) in seg.iter_mut().enumerate() {
                *y -= ym + slope * (i as f64 - tm);
            }
        }
    }
}

/// One-sided power of each segment of each lane: (freqs, times, values of
/// shape lanes x nfreq x nseg), SciPy's `_spectral_helper` for real input.
#[allow(clippy::type_complexity)]
fn spectral(
    op: &'static str,
    x: &Array,
    win: &[f64],
    noverlap: usize,
    nfft: usize,
    n_use: usize,
    o: &SpectralOptions,
) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>, Vec<usize>, usize, usize)> {
    let nperseg = win.len();
    let sh = x.shape().to_vec();
    let len = *sh.last().unwrap_or(&0);
    let n = len.min(n_use);
    let lanes: usize = sh[..sh.len() - 1].iter().product();
    if noverlap >= nperseg {
        return Err(Error::invalid(
            op,
            format!("noverlap ({noverlap}) must be less than nperseg ({nperseg})"),
        ));
    }
    if nfft < nperseg {
        return Err(Error::invalid(
            op,
            format!("nfft ({nfft}) must be greater than or equal to nperseg ({nperseg})"),
        ));
    }
    let step = nperseg - noverlap;
    let nseg = if n >= nperseg {
        (n - noverlap) / step
    } else {
        0
    };
    let nfreq = nfft / 2 + 1;
    let scale = match o.scaling {
        Scaling::Density => 1.0 / (o.fs * win.iter().map(|w| w * w).sum::<f64>()),
        Scaling::Spectrum => 1.0 / win.iter().sum::<f64>().powi(2),
    };
    let vals = crate::backend::fallback::fetch(op, x.device(), || x.gather_as::<f64>())?;
    let mut planner = rustfft::FftPlanner::<f64>::new();
    let fft = planner.plan_fft_forward(nfft);
    let mut out = vec![0.0f64; lanes * nfreq * nseg];
    let mut seg = vec![0.0f64; nperseg];
    let mut buf = vec![Complex64::zero(); nfft];
    for l in 0..lanes {
        for s in 0..nseg {
            seg.copy_from_slice(&vals[l * len + s * step..l * len + s * step + nperseg]);
            detrend_in_place(&mut seg, o.detrend);
            buf.iter_mut().for_each(|b| *b = Complex64::zero());
            for i in 0..nperseg {
                buf[i] = Complex64::new(seg[i] * win[i], 0.0);
            }
            fft.process(&mut buf);
            for f in 0..nfreq {
                let mut p = buf[f].norm_sqr() * scale;
                let edge = f == 0 || (nfft % 2 == 0 && f == nfreq - 1);
                if !edge {
                    p *= 2.0;
                }
                out[(l * nfreq + f) * nseg + s] = p;
            }
        }
    }
    let freqs: Vec<f64> = (0..nfreq).map(|f| f as f64 * o.fs / nfft as f64).collect();
    let times: Vec<f64> = (0..nseg)
        .map(|s| (nperseg as f64 / 2.0 + (s * step) as f64) / o.fs)
        .collect();
    Ok((freqs, times, out, sh, nfreq, nseg))
}

fn check_spectral_input(op: &'static str, x: &Array) -> Result<DType> {
    x.device().check_available(op)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    if x.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: "complex input (two-sided spectra) is not supported; pass real data".into(),
        });
    }
    Ok(if x.dtype() == DType::Float32 {
        DType::Float32
    } else {
        DType::Float64
    })
}

/// The periodogram of real `x` along its last axis (`scipy.signal.periodogram`):
/// (frequencies, power spectral density). Default window boxcar.
pub fn periodogram(x: &Array, opts: SpectralOptions) -> Result<(Array, Array)> {
    let op = "periodogram";
    let dt = check_spectral_input(op, x)?;
    let n = *x.shape().last().unwrap_or(&0);
    let nperseg = match opts.nfft {
        Some(f) if f < n => f,
        _ => n,
    };
    let nfft = opts.nfft.unwrap_or(nperseg);
    let device = x.device();
    if nperseg == 0 {
        let empty = Array::from_host_slice::<f64>(&[], &[0], device)?;
        return Ok((empty.clone(), empty.astype(dt)?));
    }
    let win = window_values(opts.window.unwrap_or(Window::Boxcar), nperseg, false);
    let (freqs, _, vals, sh, nfreq, _) = spectral(op, x, &win, 0, nfft, nperseg, &opts)?;
    let mut oshape = sh[..sh.len() - 1].to_vec();
    oshape.push(nfreq);
    Ok((
        Array::from_host_slice(&freqs, &[nfreq], device)?,
        Array::from_vec_cpu(vals, &oshape)
            .astype(dt)?
            .to_device(&device)?,
    ))
}

/// The spectrogram of real `x` along its last axis (`scipy.signal.spectrogram`,
/// mode 'psd'): (frequencies, segment times, Sxx of shape (..., freqs, segments)).
pub fn spectrogram(x: &Array, opts: SpectralOptions) -> Result<(Array, Array, Array)> {
    let op = "spectrogram";
    let dt = check_spectral_input(op, x)?;
    let n = *x.shape().last().unwrap_or(&0);
    let nperseg = opts.nperseg.unwrap_or(256).min(n);
    if nperseg == 0 {
        return Err(Error::invalid(
            op,
            "nperseg must be a positive integer and x must not be empty",
        ));
    }
    let win = window_values(opts.window.unwrap_or(Window::Tukey(0.25)), nperseg, false);
    let noverlap = opts.noverlap.unwrap_or(nperseg / 8);
    let nfft = opts.nfft.unwrap_or(nperseg);
    let (freqs, times, vals, sh, nfreq, nseg) =
        spectral(op, x, &win, noverlap, nfft, usize::MAX, &opts)?;
    let mut oshape = sh[..sh.len() - 1].to_vec();
    oshape.push(nfreq);
    oshape.push(nseg);
    let device = x.device();
    Ok((
        Array::from_host_slice(&freqs, &[nfreq], device)?,
        Array::from_host_slice(&times, &[nseg], device)?,
        Array::from_vec_cpu(vals, &oshape)
            .astype(dt)?
            .to_device(&device)?,
    ))
}
