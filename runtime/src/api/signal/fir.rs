//! FIR design by the window method (`firwin`).

use crate::backend::probe::current_device;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

use super::window::{window_values, Window};

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
    let h = firwin_values("firwin", numtaps, cutoff, opts)?;
    Array::from_host_slice(&h, &[numtaps], current_device())
}

/// [`firwin`]'s taps on the host.
pub(super) fn firwin_values(
    op: &'static str,
    numtaps: usize,
    cutoff: &[f64],
    opts: FirwinOptions,
) -> Result<Vec<f64>> {
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
    let win = window_values(op, opts.window, numtaps, true)?;
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
    Ok(h)
}
