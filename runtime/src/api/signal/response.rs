//! Frequency responses of digital filters (`scipy.signal.freqz`,
//! `sosfreqz`, `group_delay`), evaluated on the host in complex128 (a
//! design has a handful of coefficients) and returned as arrays on the
//! current device.
//!
//! ```
//! use cuprite as cp;
//! use cp::signal::{butter, freqz, FreqzOptions, IirOptions};
//! let ba = butter(2, &[0.5], IirOptions::default())?.ba()?;
//! let (w, h) = freqz(&ba.b, &ba.a, FreqzOptions::default())?;
//! assert_eq!((w.shape(), h.shape()), (&[512usize][..], &[512usize][..]));
//! # Ok::<(), cp::Error>(())
//! ```

use std::f64::consts::PI;

use num_complex::Complex64;

use super::lti::SosCoefficients;
use crate::backend::probe::current_device;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

/// Where a response is evaluated (SciPy's `worN` / `w`).
#[derive(Debug, Clone, PartialEq)]
pub enum WorN {
    /// This many equally spaced frequencies (from 0, over half the circle
    /// or, with `whole`, all of it).
    Count(usize),
    /// These frequencies, in the units of `fs`.
    Freqs(Vec<f64>),
}

/// Options of [`freqz`], [`sosfreqz`] and [`group_delay`]; `Default` is
/// SciPy's (512 points, half circle, `fs = 2 pi`: radians per sample).
#[derive(Debug, Clone, PartialEq)]
pub struct FreqzOptions {
    /// The frequencies.
    pub wor_n: WorN,
    /// Evaluate over the whole circle (0 to fs) instead of 0 to fs/2.
    pub whole: bool,
    /// Sampling frequency: the unit of the frequencies returned and given.
    pub fs: f64,
    /// Include fs/2 as the last point of a half-circle count (`freqz` only).
    pub include_nyquist: bool,
}

impl Default for FreqzOptions {
    fn default() -> Self {
        FreqzOptions {
            wor_n: WorN::Count(512),
            whole: false,
            fs: 2.0 * PI,
            include_nyquist: false,
        }
    }
}

/// The frequencies in radians per sample.
fn radians(op: &'static str, o: &FreqzOptions, nyquist_endpoint: bool) -> Result<Vec<f64>> {
    if !(o.fs.is_finite() && o.fs > 0.0) {
        return Err(Error::invalid(
            op,
            format!("fs must be a positive finite number, not {}", o.fs),
        ));
    }
    Ok(match &o.wor_n {
        WorN::Count(n) => {
            // The frequencies (and the response) are host vectors of n points.
            let n = &crate::core::layout::checked_size(op, &[*n])?;
            crate::core::layout::check_host_room(op, *n, 16)?;
            let last = if o.whole { 2.0 * PI } else { PI };
            let endpoint = nyquist_endpoint && !o.whole;
            let steps = if endpoint { n.saturating_sub(1) } else { *n };
            (0..*n)
                .map(|i| {
                    if steps == 0 {
                        0.0
                    } else {
                        last * i as f64 / steps as f64
                    }
                })
                .collect()
        }
        WorN::Freqs(f) => f.iter().map(|x| 2.0 * PI * x / o.fs).collect(),
    })
}

/// `sum c[k] z^k`.
fn polyval_ascending(c: &[f64], z: Complex64) -> Complex64 {
    c.iter()
        .rev()
        .fold(Complex64::new(0.0, 0.0), |acc, &ck| acc * z + ck)
}

/// The response of `b / a` at `w` radians per sample.
fn response(b: &[f64], a: &[f64], w: f64) -> Complex64 {
    let zm1 = Complex64::new(0.0, -w).exp();
    polyval_ascending(b, zm1) / polyval_ascending(a, zm1)
}

fn check_coefficients(op: &'static str, b: &[f64], a: &[f64]) -> Result<()> {
    if b.is_empty() || a.is_empty() {
        return Err(Error::invalid(op, "b and a must not be empty"));
    }
    Ok(())
}

/// The frequencies (float64, units of `fs`) and the complex response.
fn arrays(w: &[f64], fs: f64, h: &[Complex64]) -> Result<(Array, Array)> {
    let dev = current_device();
    let wf: Vec<f64> = w.iter().map(|x| x * fs / (2.0 * PI)).collect();
    Ok((
        Array::from_host_slice(&wf, &[wf.len()], dev)?,
        Array::from_host_slice(h, &[h.len()], dev)?,
    ))
}

/// The frequency response of the digital filter `b / a`
/// (`scipy.signal.freqz`): frequencies (float64) and response (complex128).
pub fn freqz(b: &[f64], a: &[f64], opts: FreqzOptions) -> Result<(Array, Array)> {
    let op = "freqz";
    check_coefficients(op, b, a)?;
    let w = radians(op, &opts, opts.include_nyquist)?;
    let h: Vec<Complex64> = w.iter().map(|&x| response(b, a, x)).collect();
    arrays(&w, opts.fs, &h)
}

/// The frequency response of second-order sections (`scipy.signal.sosfreqz`):
/// the product of the sections' responses.
pub fn sosfreqz<S: SosCoefficients + ?Sized>(
    sos: &S,
    opts: FreqzOptions,
) -> Result<(Array, Array)> {
    let op = "sosfreqz";
    let sections = sos.sections(op)?;
    let w = radians(op, &opts, opts.include_nyquist)?;
    let h: Vec<Complex64> = w
        .iter()
        .map(|&x| {
            sections
                .iter()
                .map(|s| response(&s[..3], &s[3..], x))
                .product()
        })
        .collect();
    arrays(&w, opts.fs, &h)
}

/// The group delay of `b / a` in samples (`scipy.signal.group_delay`):
/// frequencies and delays (float64). Where the response is singular the
/// delay is 0, as SciPy sets it. `include_nyquist` is not used.
pub fn group_delay(b: &[f64], a: &[f64], opts: FreqzOptions) -> Result<(Array, Array)> {
    let op = "group_delay";
    check_coefficients(op, b, a)?;
    let w = radians(op, &opts, false)?;
    // c = b * reversed(a) (a real), and c scaled by its powers.
    let mut c = vec![0.0; b.len() + a.len() - 1];
    for (i, bi) in b.iter().enumerate() {
        for (j, aj) in a.iter().rev().enumerate() {
            c[i + j] += bi * aj;
        }
    }
    let cr: Vec<f64> = c.iter().enumerate().map(|(k, v)| v * k as f64).collect();
    let gd: Vec<f64> = w
        .iter()
        .map(|&x| {
            let z = Complex64::new(0.0, -x).exp();
            let g =
                (polyval_ascending(&cr, z) / polyval_ascending(&c, z)).re - a.len() as f64 + 1.0;
            if g.is_finite() {
                g
            } else {
                0.0
            }
        })
        .collect();
    let dev = current_device();
    let wf: Vec<f64> = w.iter().map(|x| x * opts.fs / (2.0 * PI)).collect();
    Ok((
        Array::from_host_slice(&wf, &[wf.len()], dev)?,
        Array::from_host_slice(&gd, &[gd.len()], dev)?,
    ))
}
