//! Windows and FIR design by the window method (`get_window`, `firwin`).

use crate::backend::probe::current_device;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

/// A window function for [`get_window`] and [`firwin`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Window {
    /// Rectangular (all ones).
    Boxcar,
    /// Hann (raised cosine).
    Hann,
    /// Hamming.
    Hamming,
    /// Blackman.
    Blackman,
    /// Tukey (tapered cosine) with the given taper fraction.
    Tukey(f64),
}

fn general_cosine(m: usize, coefs: &[f64], sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let mm = if sym { m } else { m + 1 };
    let mut w: Vec<f64> = (0..mm)
        .map(|i| {
            let fac =
                -std::f64::consts::PI + 2.0 * std::f64::consts::PI * i as f64 / (mm - 1) as f64;
            coefs
                .iter()
                .enumerate()
                .map(|(k, c)| c * (k as f64 * fac).cos())
                .sum()
        })
        .collect();
    w.truncate(m);
    w
}

fn tukey(m: usize, alpha: f64, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    if alpha <= 0.0 {
        return vec![1.0; m];
    }
    if alpha >= 1.0 {
        return general_cosine(m, &[0.5, 0.5], sym);
    }
    let mm = if sym { m } else { m + 1 };
    let width = (alpha * (mm - 1) as f64 / 2.0).floor() as usize;
    let pi = std::f64::consts::PI;
    let mut w: Vec<f64> = (0..mm)
        .map(|n| {
            let nf = n as f64;
            if n <= width {
                0.5 * (1.0 + (pi * (-1.0 + 2.0 * nf / alpha / (mm - 1) as f64)).cos())
            } else if n < mm - width - 1 {
                1.0
            } else {
                0.5 * (1.0 + (pi * (-2.0 / alpha + 1.0 + 2.0 * nf / alpha / (mm - 1) as f64)).cos())
            }
        })
        .collect();
    w.truncate(m);
    w
}

pub(super) fn window_values(w: Window, m: usize, sym: bool) -> Vec<f64> {
    match w {
        Window::Boxcar => vec![1.0; m],
        Window::Hann => general_cosine(m, &[0.5, 0.5], sym),
        Window::Hamming => general_cosine(m, &[0.54, 0.46], sym),
        Window::Blackman => general_cosine(m, &[0.42, 0.50, 0.08], sym),
        Window::Tukey(a) => tukey(m, a, sym),
    }
}

/// A window of `nx` points (`scipy.signal.get_window`): periodic (for
/// spectral analysis) when `fftbins`, else symmetric. float64 on the current device.
pub fn get_window(window: Window, nx: usize, fftbins: bool) -> Result<Array> {
    Array::from_host_slice(
        &window_values(window, nx, !fftbins),
        &[nx],
        current_device(),
    )
}

/// The Hann window of `m` points (`scipy.signal.windows.hann(m, sym)`).
pub fn hann(m: usize, sym: bool) -> Result<Array> {
    get_window(Window::Hann, m, !sym)
}

/// The symmetric Hann window of `m` points (`numpy.hanning(m)`).
pub fn hanning(m: usize) -> Result<Array> {
    hann(m, true)
}

/// Options of [`firwin`] beyond the taps and cutoffs (SciPy's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FirwinOptions {
    /// The window (default Hamming).
    pub window: Window,
    /// Whether the gain at frequency 0 is 1 (lowpass / bandstop).
    pub pass_zero: bool,
    /// Scale so the gain at the centre of the first passband is 1.
    pub scale: bool,
    /// Sampling frequency (default 2, so cutoffs are fractions of Nyquist).
    pub fs: f64,
}

impl Default for FirwinOptions {
    fn default() -> Self {
        FirwinOptions {
            window: Window::Hamming,
            pass_zero: true,
            scale: true,
            fs: 2.0,
        }
    }
}

/// A linear-phase FIR filter of `numtaps` taps by the window method
/// (`scipy.signal.firwin(numtaps, cutoff, ...)`); float64 on the current device.
pub fn firwin(numtaps: usize, cutoff: &[f64], opts: FirwinOptions) -> Result<Array> {
    let op = "firwin";
    let nyq = 0.5 * opts.fs;
    if cutoff.is_empty() {
        return Err(Error::invalid(
            op,
            "at least one cutoff frequency must be given",
        ));
    }
    if numtaps == 0 {
        return Err(Error::invalid(op, "numtaps must be at least 1"));
    }
    let c: Vec<f64> = cutoff.iter().map(|x| x / nyq).collect();
    if c.iter().any(|&x| !(x > 0.0 && x < 1.0)) {
        return Err(Error::invalid(op, format!("invalid cutoff frequency {cutoff:?}: frequencies must be greater than 0 and less than fs/2 = {nyq}")));
    }
    if c.windows(2).any(|w| w[1] <= w[0]) {
        return Err(Error::invalid(
            op,
            "invalid cutoff frequencies: they must be strictly increasing",
        ));
    }
    let pass_nyquist = (c.len() % 2 == 1) ^ opts.pass_zero;
    if pass_nyquist && numtaps % 2 == 0 {
        return Err(Error::invalid(op, "a filter with an even number of coefficients must have zero response at the Nyquist frequency"));
    }
    let mut edges = Vec::new();
    if opts.pass_zero {
        edges.push(0.0);
    }
    edges.extend_from_slice(&c);
    if pass_nyquist {
        edges.push(1.0);
    }
    let alpha = 0.5 * (numtaps as f64 - 1.0);
    let m: Vec<f64> = (0..numtaps).map(|i| i as f64 - alpha).collect();
    let sinc = |x: f64| {
        if x == 0.0 {
            1.0
        } else {
            (std::f64::consts::PI * x).sin() / (std::f64::consts::PI * x)
        }
    };
    let mut h = vec![0.0f64; numtaps];
    for band in edges.chunks(2) {
        let (l, r) = (band[0], band[1]);
        for (hi, &mi) in h.iter_mut().zip(&m) {
            *hi += r * sinc(r * mi) - l * sinc(l * mi);
        }
    }
    let win = window_values(opts.window, numtaps, true);
    for (hi, w) in h.iter_mut().zip(&win) {
        *hi *= w;
    }
    if opts.scale {
        let (l, r) = (edges[0], edges[1]);
        let f = if l == 0.0 {
            0.0
        } else if r == 1.0 {
            1.0
        } else {
            0.5 * (l + r)
        };
        let s: f64 = h
            .iter()
            .zip(&m)
            .map(|(hi, mi)| hi * (std::f64::consts::PI * mi * f).cos())
            .sum();
        for hi in h.iter_mut() {
            *hi /= s;
        }
    }
    Array::from_host_slice(&h, &[numtaps], current_device())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hann_matches_numpy() {
        // NumPy 2.4: np.hanning(5) = [0, 0.5, 1, 0.5, 0]
        let w = window_values(Window::Hann, 5, true);
        for (a, b) in w.iter().zip([0.0, 0.5, 1.0, 0.5, 0.0]) {
            assert!((a - b).abs() < 1e-15);
        }
    }
}
