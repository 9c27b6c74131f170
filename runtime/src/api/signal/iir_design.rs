//! IIR filter design as SciPy does it (`iirfilter`, `butter`, `cheby1`,
//! `cheby2`, `ellip`, `bessel`, `iirnotch`, `iirpeak`): an analog lowpass
//! prototype, a frequency transformation to the band wanted, and for
//! digital filters the bilinear transform with prewarped edges, all on
//! the host in float64.
//!
//! ```
//! use cuprite as cp;
//! use cp::signal::{butter, BandType, FilterForm, IirOptions};
//! let opts = IirOptions { btype: BandType::Highpass, output: FilterForm::Sos, ..Default::default() };
//! let sos = butter(4, &[0.25], opts)?.sos()?;
//! assert_eq!(sos.sections.len(), 2);
//! # Ok::<(), cp::Error>(())
//! ```

use std::f64::consts::PI;

use num_complex::Complex64;

use super::lti::{zpk2sos, zpk2tf, Ba, Filter, FilterForm, Zpk};
use super::prototypes::{besselap, buttap, cheb1ap, cheb2ap, ellipap, BesselNorm};
use crate::core::error::{Error, Result};

/// The kind of band a filter passes (SciPy's `btype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BandType {
    /// Passes frequencies below the cutoff (SciPy's default for the families).
    #[default]
    Lowpass,
    /// Passes frequencies above the cutoff.
    Highpass,
    /// Passes frequencies between two edges.
    Bandpass,
    /// Rejects frequencies between two edges.
    Bandstop,
}

impl BandType {
    /// SciPy's spellings: `low`/`lowpass`/`l`/`lp`, `high`/`highpass`/`h`/`hp`,
    /// `band`/`bandpass`/`pass`/`bp`, `bandstop`/`bands`/`stop`/`bs`.
    pub fn parse(s: &str) -> Result<BandType> {
        match s.to_ascii_lowercase().as_str() {
            "low" | "lowpass" | "l" | "lp" => Ok(BandType::Lowpass),
            "high" | "highpass" | "h" | "hp" => Ok(BandType::Highpass),
            "band" | "bandpass" | "pass" | "bp" => Ok(BandType::Bandpass),
            "bandstop" | "bands" | "stop" | "bs" => Ok(BandType::Bandstop),
            _ => Err(Error::invalid(
                "BandType::parse",
                format!("'{s}' is an invalid bandtype for filter"),
            )),
        }
    }
}

/// The family of an IIR design (SciPy's `ftype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IirType {
    /// Butterworth: maximally flat passband.
    Butter,
    /// Chebyshev type I: equiripple passband (needs `rp`).
    Cheby1,
    /// Chebyshev type II: equiripple stopband (needs `rs`).
    Cheby2,
    /// Elliptic (Cauer): both equiripple (needs `rp` and `rs`).
    Ellip,
    /// Bessel/Thomson: maximally flat group delay, with its normalisation.
    Bessel(BesselNorm),
}

/// Options shared by the IIR designs; `Default` is SciPy's (lowpass,
/// digital, `output='ba'`, frequencies as fractions of Nyquist).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct IirOptions {
    /// The band to pass (`btype`).
    pub btype: BandType,
    /// An analog filter (edges in rad/s) instead of a digital one.
    pub analog: bool,
    /// The form of the result (`output`).
    pub output: FilterForm,
    /// Sampling frequency: edges are then in the same units as `fs`
    /// (digital only); `None` means edges are fractions of Nyquist.
    pub fs: Option<f64>,
}

/// `k * wo^degree` for zeros scaled by `wo` (`scipy.signal.lp2lp_zpk`).
fn lp2lp(f: Zpk, wo: f64) -> Zpk {
    let degree = f.p.len() - f.z.len();
    Zpk {
        z: f.z.iter().map(|x| x * wo).collect(),
        p: f.p.iter().map(|x| x * wo).collect(),
        k: f.k * wo.powi(degree as i32),
    }
}

fn neg_product(v: &[Complex64]) -> Complex64 {
    v.iter().map(|x| -x).product()
}

/// Lowpass to highpass at `wo` (`scipy.signal.lp2hp_zpk`).
fn lp2hp(f: Zpk, wo: f64) -> Zpk {
    let degree = f.p.len() - f.z.len();
    let mut z: Vec<Complex64> = f.z.iter().map(|x| wo / x).collect();
    z.extend(std::iter::repeat_n(Complex64::new(0.0, 0.0), degree));
    Zpk {
        z,
        p: f.p.iter().map(|x| wo / x).collect(),
        k: f.k * (neg_product(&f.z) / neg_product(&f.p)).re,
    }
}

/// Each root `r` becomes the two roots of `s^2 - 2 r s + wo^2` (`r` pre-scaled).
fn split_roots(v: &[Complex64], wo: f64) -> Vec<Complex64> {
    let plus = v.iter().map(|x| x + (x * x - wo * wo).sqrt());
    let minus = v.iter().map(|x| x - (x * x - wo * wo).sqrt());
    plus.chain(minus).collect()
}

/// Lowpass to bandpass centred on `wo` with width `bw` (`scipy.signal.lp2bp_zpk`).
fn lp2bp(f: Zpk, wo: f64, bw: f64) -> Zpk {
    let degree = f.p.len() - f.z.len();
    let zl: Vec<Complex64> = f.z.iter().map(|x| x * bw / 2.0).collect();
    let pl: Vec<Complex64> = f.p.iter().map(|x| x * bw / 2.0).collect();
    let mut z = split_roots(&zl, wo);
    z.extend(std::iter::repeat_n(Complex64::new(0.0, 0.0), degree));
    Zpk {
        z,
        p: split_roots(&pl, wo),
        k: f.k * bw.powi(degree as i32),
    }
}

/// Lowpass to bandstop centred on `wo` with width `bw` (`scipy.signal.lp2bs_zpk`).
fn lp2bs(f: Zpk, wo: f64, bw: f64) -> Zpk {
    let degree = f.p.len() - f.z.len();
    let zh: Vec<Complex64> = f.z.iter().map(|x| (bw / 2.0) / x).collect();
    let ph: Vec<Complex64> = f.p.iter().map(|x| (bw / 2.0) / x).collect();
    let mut z = split_roots(&zh, wo);
    z.extend(std::iter::repeat_n(Complex64::new(0.0, wo), degree));
    z.extend(std::iter::repeat_n(Complex64::new(0.0, -wo), degree));
    Zpk {
        z,
        p: split_roots(&ph, wo),
        k: f.k * (neg_product(&f.z) / neg_product(&f.p)).re,
    }
}

/// The bilinear transform at sampling rate `fs` (`scipy.signal.bilinear_zpk`):
/// zeros at infinity go to -1.
fn bilinear(f: Zpk, fs: f64) -> Zpk {
    let degree = f.p.len() - f.z.len();
    let fs2 = 2.0 * fs;
    let map = |x: &Complex64| (fs2 + x) / (fs2 - x);
    let mut z: Vec<Complex64> = f.z.iter().map(map).collect();
    z.extend(std::iter::repeat_n(Complex64::new(-1.0, 0.0), degree));
    let num: Complex64 = f.z.iter().map(|x| fs2 - x).product();
    let den: Complex64 = f.p.iter().map(|x| fs2 - x).product();
    Zpk {
        z,
        p: f.p.iter().map(map).collect(),
        k: f.k * (num / den).re,
    }
}

/// The design in the requested form.
fn finish(op: &'static str, f: Zpk, opts: &IirOptions) -> Result<Filter> {
    Ok(match opts.output {
        FilterForm::Zpk => Filter::Zpk(f),
        FilterForm::Ba => {
            let Ba { b, a } = zpk2tf(&f.z, &f.p, f.k).map_err(|e| rename(e, op))?;
            Filter::Ba(Ba { b, a })
        }
        FilterForm::Sos => {
            Filter::Sos(zpk2sos(&f.z, &f.p, f.k, None, opts.analog).map_err(|e| rename(e, op))?)
        }
    })
}

/// An error of a helper reported under the design's own name.
fn rename(e: Error, op: &'static str) -> Error {
    match e {
        Error::InvalidArgument { detail, .. } => Error::InvalidArgument { op, detail },
        Error::LinAlg { detail, .. } => Error::LinAlg { op, detail },
        other => other,
    }
}

fn check_ripple(op: &'static str, name: &str, v: Option<f64>, family: &str) -> Result<f64> {
    match v {
        None => Err(Error::invalid(
            op,
            format!("{name} must be provided to design a {family} filter"),
        )),
        Some(x) if !(x.is_finite() && x >= 0.0) => Err(Error::invalid(
            op,
            format!("{name} must be a non-negative finite number of dB, not {x}"),
        )),
        Some(x) => Ok(x),
    }
}

/// An IIR filter of order `n` and critical frequencies `wn` (one for
/// low/highpass, two for band filters) of any family
/// (`scipy.signal.iirfilter`; `rp` / `rs` in dB where the family needs
/// them). Note SciPy's `iirfilter` defaults `btype` to bandpass while
/// `IirOptions::default()` is lowpass: set it explicitly.
pub fn iirfilter(
    n: usize,
    wn: &[f64],
    rp: Option<f64>,
    rs: Option<f64>,
    ftype: IirType,
    opts: IirOptions,
) -> Result<Filter> {
    design("iirfilter", n, wn, rp, rs, ftype, opts)
}

/// The highest order designed: poles and zeros are host vectors of `n`
/// entries and the transfer function is their O(n^2) product, so a larger
/// order (a negative number cast to usize, say) is refused rather than left
/// to exhaust memory; far below it the coefficients are already noise.
const MAX_ORDER: usize = 1 << 14;

fn design(
    op: &'static str,
    n: usize,
    wn: &[f64],
    rp: Option<f64>,
    rs: Option<f64>,
    ftype: IirType,
    opts: IirOptions,
) -> Result<Filter> {
    if n == 0 {
        return Err(Error::invalid(op, "the filter order must be at least 1"));
    }
    if n > MAX_ORDER {
        return Err(Error::invalid(
            op,
            format!("the filter order {n} is above {MAX_ORDER}, the highest designed"),
        ));
    }
    let bands = matches!(opts.btype, BandType::Bandpass | BandType::Bandstop);
    let want = if bands { 2 } else { 1 };
    if wn.len() != want {
        return Err(Error::invalid(
            op,
            if bands {
                format!("Wn must specify start and stop frequencies for a bandpass or bandstop filter, not {wn:?}")
            } else {
                format!("Wn must be a single critical frequency for a lowpass or highpass filter, not {wn:?}")
            },
        ));
    }
    let mut w: Vec<f64> = wn.to_vec();
    if let Some(fs) = opts.fs {
        if opts.analog {
            return Err(Error::invalid(
                op,
                "fs cannot be specified for an analog filter",
            ));
        }
        if !(fs.is_finite() && fs > 0.0) {
            return Err(Error::invalid(
                op,
                format!("fs must be a positive finite number, not {fs}"),
            ));
        }
        w.iter_mut().for_each(|x| *x /= fs / 2.0);
    }
    if w.iter().any(|x| x.is_nan() || *x <= 0.0) {
        return Err(Error::invalid(
            op,
            format!("filter critical frequencies must be greater than 0, not {wn:?}"),
        ));
    }
    if bands && w[0] >= w[1] {
        return Err(Error::invalid(
            op,
            format!("Wn[0] must be less than Wn[1], not {wn:?}"),
        ));
    }
    let proto = match ftype {
        IirType::Butter => buttap(n),
        IirType::Cheby1 => cheb1ap(n, check_ripple(op, "rp", rp, "Chebyshev I")?),
        IirType::Cheby2 => cheb2ap(n, check_ripple(op, "rs", rs, "Chebyshev II")?),
        IirType::Ellip => {
            let rp = check_ripple(op, "rp", rp, "elliptic")?;
            let rs = check_ripple(op, "rs", rs, "elliptic")?;
            ellipap(op, n, rp, rs)?
        }
        IirType::Bessel(norm) => besselap(op, n, norm)?,
    };
    let warped: Vec<f64> = if opts.analog {
        w.clone()
    } else {
        if w.iter().any(|x| x.is_nan() || *x >= 1.0) {
            return Err(Error::invalid(
                op,
                match opts.fs {
                    Some(fs) => format!(
                        "digital filter critical frequencies must be 0 < Wn < fs/2 (fs={fs} -> fs/2={}), not {wn:?}",
                        fs / 2.0
                    ),
                    None => format!(
                        "digital filter critical frequencies must be 0 < Wn < 1, not {wn:?}"
                    ),
                },
            ));
        }
        // Prewarp for the bilinear transform at fs = 2.
        w.iter().map(|x| 4.0 * (PI * x / 2.0).tan()).collect()
    };
    let f = match opts.btype {
        BandType::Lowpass => lp2lp(proto, warped[0]),
        BandType::Highpass => lp2hp(proto, warped[0]),
        BandType::Bandpass | BandType::Bandstop => {
            let bw = warped[1] - warped[0];
            let wo = (warped[0] * warped[1]).sqrt();
            if opts.btype == BandType::Bandpass {
                lp2bp(proto, wo, bw)
            } else {
                lp2bs(proto, wo, bw)
            }
        }
    };
    let f = if opts.analog { f } else { bilinear(f, 2.0) };
    finish(op, f, &opts)
}

/// Butterworth filter of order `n` (`scipy.signal.butter`).
pub fn butter(n: usize, wn: &[f64], opts: IirOptions) -> Result<Filter> {
    design("butter", n, wn, None, None, IirType::Butter, opts)
}

/// Chebyshev type I filter with `rp` dB of passband ripple (`scipy.signal.cheby1`).
pub fn cheby1(n: usize, rp: f64, wn: &[f64], opts: IirOptions) -> Result<Filter> {
    design("cheby1", n, wn, Some(rp), None, IirType::Cheby1, opts)
}

/// Chebyshev type II filter with `rs` dB of stopband attenuation (`scipy.signal.cheby2`).
pub fn cheby2(n: usize, rs: f64, wn: &[f64], opts: IirOptions) -> Result<Filter> {
    design("cheby2", n, wn, None, Some(rs), IirType::Cheby2, opts)
}

/// Elliptic (Cauer) filter with `rp` dB ripple and `rs` dB attenuation (`scipy.signal.ellip`).
pub fn ellip(n: usize, rp: f64, rs: f64, wn: &[f64], opts: IirOptions) -> Result<Filter> {
    design("ellip", n, wn, Some(rp), Some(rs), IirType::Ellip, opts)
}

/// Bessel/Thomson filter normalised by `norm` (`scipy.signal.bessel`).
pub fn bessel(n: usize, wn: &[f64], norm: BesselNorm, opts: IirOptions) -> Result<Filter> {
    design("bessel", n, wn, None, None, IirType::Bessel(norm), opts)
}

fn notch_peak(op: &'static str, w0: f64, q: f64, fs: f64, notch: bool) -> Result<Ba> {
    if !(fs.is_finite() && fs > 0.0) {
        return Err(Error::invalid(
            op,
            format!("fs must be a positive finite number, not {fs}"),
        ));
    }
    let w = 2.0 * w0 / fs;
    if !(0.0..=1.0).contains(&w) {
        return Err(Error::invalid(
            op,
            format!(
                "w0 should be such that 0 < w0 < fs/2 (fs/2 = {}), not {w0}",
                fs / 2.0
            ),
        ));
    }
    if !(q.is_finite() && q > 0.0) {
        return Err(Error::invalid(op, format!("Q must be positive, not {q}")));
    }
    let bw = w / q * PI;
    let w = w * PI;
    let gain = 1.0 / (1.0 + (bw / 2.0).tan());
    let b = if notch {
        vec![gain, -2.0 * w.cos() * gain, gain]
    } else {
        vec![1.0 - gain, 0.0, -(1.0 - gain)]
    };
    Ok(Ba {
        b,
        a: vec![1.0, -2.0 * gain * w.cos(), 2.0 * gain - 1.0],
    })
}

/// Second-order notch filter removing `w0` with quality factor `q`
/// (`scipy.signal.iirnotch`; `fs` default 2, so `w0` is a fraction of Nyquist).
pub fn iirnotch(w0: f64, q: f64, fs: f64) -> Result<Ba> {
    notch_peak("iirnotch", w0, q, fs, true)
}

/// Second-order peak (resonator) filter at `w0` with quality factor `q`
/// (`scipy.signal.iirpeak`; `fs` default 2).
pub fn iirpeak(w0: f64, q: f64, fs: f64) -> Result<Ba> {
    notch_peak("iirpeak", w0, q, fs, false)
}
