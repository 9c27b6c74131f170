//! Order selection from a specification (`scipy.signal.buttord`,
//! `cheb1ord`, `cheb2ord`, `ellipord`) and `iirdesign`, which designs the
//! lowest-order filter meeting it.
//!
//! ```
//! use cuprite as cp;
//! use cp::signal::{buttord, iirdesign, IirOptions, IirType};
//! // Pass up to 0.2, stop from 0.3 (fractions of Nyquist): 3 dB / 40 dB.
//! let (n, wn) = buttord(&[0.2], &[0.3], 3.0, 40.0, false, None)?;
//! assert_eq!((n, wn.len()), (11, 1));
//! let f = iirdesign(&[0.2], &[0.3], 1.0, 40.0, IirType::Ellip, IirOptions::default())?;
//! assert_eq!(f.ba()?.a.len(), 5);
//! # Ok::<(), cp::Error>(())
//! ```

use std::f64::consts::PI;

use super::iir_design::{iirfilter, BandType, IirOptions, IirType};
use super::lti::Filter;
use super::prototypes::{ellipk, ellipk_of_complement};
use crate::core::error::{Error, Result};

/// The kind of band a (wp, ws) pair describes (SciPy's `filter_type` 1..4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Low,
    High,
    Stop,
    Pass,
}

/// The family measure of band_stop_obj / the order formulas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Measure {
    Butter,
    Cheby,
    Ellip,
}

/// A checked specification: edges (fractions of Nyquist or rad/s), its kind.
struct Spec {
    wp: Vec<f64>,
    ws: Vec<f64>,
    kind: Kind,
}

fn validate(
    op: &'static str,
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    fs: Option<f64>,
) -> Result<Spec> {
    if gpass.is_nan() || gpass <= 0.0 {
        return Err(Error::invalid(
            op,
            format!("gpass should be larger than 0.0, not {gpass}"),
        ));
    }
    if gstop.is_nan() || gstop <= 0.0 {
        return Err(Error::invalid(
            op,
            format!("gstop should be larger than 0.0, not {gstop}"),
        ));
    }
    if gpass > gstop {
        return Err(Error::invalid(
            op,
            format!("gpass ({gpass}) should be smaller than gstop ({gstop})"),
        ));
    }
    if wp.len() != ws.len() || !(1..=2).contains(&wp.len()) {
        return Err(Error::invalid(
            op,
            format!("wp and ws must have one or two elements each, and the same length, not {wp:?} and {ws:?}"),
        ));
    }
    if wp.iter().chain(ws).any(|x| x.is_nan() || *x <= 0.0) {
        return Err(Error::invalid(
            op,
            "values for wp, ws must be greater than 0",
        ));
    }
    let (mut wp, mut ws) = (wp.to_vec(), ws.to_vec());
    if let Some(fs) = fs {
        if analog {
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
        wp.iter_mut()
            .chain(ws.iter_mut())
            .for_each(|x| *x = 2.0 * *x / fs);
    }
    if !analog && wp.iter().chain(&ws).any(|x| *x >= 1.0) {
        return Err(Error::invalid(
            op,
            "values for wp, ws must be less than 1 (fs/2 when fs is given)",
        ));
    }
    if wp.len() == 2 && !((ws[0] < wp[0] && wp[1] < ws[1]) || (wp[0] < ws[0] && ws[1] < wp[1])) {
        return Err(Error::invalid(
            op,
            format!(
                "the passband {wp:?} must lie strictly inside the stopband {ws:?} or vice versa"
            ),
        ));
    }
    let kind = match (wp.len(), wp[0] >= ws[0]) {
        (1, false) => Kind::Low,
        (1, true) => Kind::High,
        (_, false) => Kind::Stop,
        (_, true) => Kind::Pass,
    };
    Ok(Spec { wp, ws, kind })
}

/// Prewarped edges (analog ones as they are).
fn prewarp(v: &[f64], analog: bool) -> Vec<f64> {
    if analog {
        v.to_vec()
    } else {
        v.iter().map(|x| (PI * x / 2.0).tan()).collect()
    }
}

/// The order a bandstop filter needs with one passband edge moved to `wp`
/// (`scipy.signal.band_stop_obj`).
fn band_stop_obj(
    wp: f64,
    ind: usize,
    passb: &[f64],
    stopb: &[f64],
    gpass: f64,
    gstop: f64,
    m: Measure,
) -> f64 {
    let mut pb = [passb[0], passb[1]];
    pb[ind] = wp;
    let nat = stopb
        .iter()
        .map(|s| (s * (pb[0] - pb[1]) / (s * s - pb[0] * pb[1])).abs())
        .fold(f64::INFINITY, f64::min);
    let gs = 10f64.powf(0.1 * gstop.abs());
    let gp = 10f64.powf(0.1 * gpass.abs());
    match m {
        Measure::Butter => ((gs - 1.0) / (gp - 1.0)).log10() / (2.0 * nat.log10()),
        Measure::Cheby => ((gs - 1.0) / (gp - 1.0)).sqrt().acosh() / nat.acosh(),
        Measure::Ellip => {
            let arg1 = ((gp - 1.0) / (gs - 1.0)).sqrt();
            let arg0 = 1.0 / nat;
            let (d00, d01) = (ellipk(arg0 * arg0), ellipk(1.0 - arg0 * arg0));
            let (d10, d11) = (ellipk(arg1 * arg1), ellipk(1.0 - arg1 * arg1));
            d00 * d11 / (d01 * d10)
        }
    }
}

/// Brent's bounded minimisation exactly as `scipy.optimize.fminbound`
/// (xtol 1e-5, 500 evaluations), so the band edges it picks are SciPy's.
fn fminbound(f: impl Fn(f64) -> f64, x1: f64, x2: f64) -> f64 {
    let (xatol, maxfun) = (1e-5, 500);
    let sqrt_eps = 2.2e-16f64.sqrt();
    let golden_mean = 0.5 * (3.0 - 5f64.sqrt());
    let (mut a, mut b) = (x1, x2);
    let mut fulc = a + golden_mean * (b - a);
    let (mut nfc, mut xf) = (fulc, fulc);
    let (mut rat, mut e) = (0.0f64, 0.0f64);
    let mut fx = f(xf);
    let mut num = 1;
    let (mut ffulc, mut fnfc) = (fx, fx);
    let mut xm = 0.5 * (a + b);
    let mut tol1 = sqrt_eps * xf.abs() + xatol / 3.0;
    let mut tol2 = 2.0 * tol1;
    let sign = |v: f64| {
        if v > 0.0 {
            1.0
        } else if v < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    while (xf - xm).abs() > tol2 - 0.5 * (b - a) {
        let mut golden = true;
        if e.abs() > tol1 {
            golden = false;
            let mut r = (xf - nfc) * (fx - ffulc);
            let mut q = (xf - fulc) * (fx - fnfc);
            let mut p = (xf - fulc) * q - (xf - nfc) * r;
            q = 2.0 * (q - r);
            if q > 0.0 {
                p = -p;
            }
            q = q.abs();
            r = e;
            e = rat;
            if p.abs() < (0.5 * q * r).abs() && p > q * (a - xf) && p < q * (b - xf) {
                rat = (p + 0.0) / q;
                let x = xf + rat;
                if (x - a) < tol2 || (b - x) < tol2 {
                    let si = sign(xm - xf) + if xm - xf == 0.0 { 1.0 } else { 0.0 };
                    rat = tol1 * si;
                }
            } else {
                golden = true;
            }
        }
        if golden {
            e = if xf >= xm { a - xf } else { b - xf };
            rat = golden_mean * e;
        }
        let si = sign(rat) + if rat == 0.0 { 1.0 } else { 0.0 };
        let x = xf + si * rat.abs().max(tol1);
        let fu = f(x);
        num += 1;
        if fu <= fx {
            if x >= xf {
                a = xf;
            } else {
                b = xf;
            }
            (fulc, ffulc) = (nfc, fnfc);
            (nfc, fnfc) = (xf, fx);
            (xf, fx) = (x, fu);
        } else {
            if x < xf {
                a = x;
            } else {
                b = x;
            }
            if fu <= fnfc || nfc == xf {
                (fulc, ffulc) = (nfc, fnfc);
                (nfc, fnfc) = (x, fu);
            } else if fu <= ffulc || fulc == xf || fulc == nfc {
                (fulc, ffulc) = (x, fu);
            }
        }
        xm = 0.5 * (a + b);
        tol1 = sqrt_eps * xf.abs() + xatol / 3.0;
        tol2 = 2.0 * tol1;
        if num >= maxfun {
            break;
        }
    }
    xf
}

/// The natural-frequency ratio of the specification and the passband
/// edges (moved for a bandstop) (`scipy.signal._find_nat_freq`).
fn nat_freq(
    s: &Spec,
    passb: Vec<f64>,
    stopb: &[f64],
    gpass: f64,
    gstop: f64,
    m: Measure,
) -> (f64, Vec<f64>) {
    let min_abs = |v: Vec<f64>| v.iter().map(|x| x.abs()).fold(f64::INFINITY, f64::min);
    match s.kind {
        Kind::Low => (stopb[0] / passb[0], passb),
        Kind::High => (passb[0] / stopb[0], passb),
        Kind::Stop => {
            let wp0 = fminbound(
                |w| band_stop_obj(w, 0, &passb, stopb, gpass, gstop, m),
                passb[0],
                stopb[0] - 1e-12,
            );
            let wp1 = fminbound(
                |w| band_stop_obj(w, 1, &passb, stopb, gpass, gstop, m),
                stopb[1] + 1e-12,
                passb[1],
            );
            let pb = vec![wp0, wp1];
            let nat = stopb
                .iter()
                .map(|x| x * (pb[0] - pb[1]) / (x * x - pb[0] * pb[1]))
                .collect();
            (min_abs(nat), pb)
        }
        Kind::Pass => {
            let nat = stopb
                .iter()
                .map(|x| (x * x - passb[0] * passb[1]) / (x * (passb[0] - passb[1])))
                .collect();
            (min_abs(nat), passb)
        }
    }
}

/// Natural frequencies back to the caller's units (`_postprocess_wn`).
fn postprocess(wn: &[f64], analog: bool, fs: Option<f64>) -> Vec<f64> {
    wn.iter()
        .map(|x| if analog { *x } else { x.atan() * 2.0 / PI })
        .map(|x| fs.map_or(x, |fs| x * fs / 2.0))
        .collect()
}

fn order_of(op: &'static str, v: f64) -> Result<usize> {
    let n = v.ceil();
    if !(n.is_finite() && n >= 0.0) {
        return Err(Error::invalid(
            op,
            format!("the specification gives no finite filter order ({v})"),
        ));
    }
    Ok(n as usize)
}

/// The lowest Butterworth order meeting the specification and its natural
/// frequencies (`scipy.signal.buttord`): at most `gpass` dB loss up to `wp`,
/// at least `gstop` dB attenuation from `ws`.
pub fn buttord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    fs: Option<f64>,
) -> Result<(usize, Vec<f64>)> {
    let op = "buttord";
    let s = validate(op, wp, ws, gpass, gstop, analog, fs)?;
    let (passb, stopb) = (prewarp(&s.wp, analog), prewarp(&s.ws, analog));
    let (nat, passb) = nat_freq(&s, passb, &stopb, gpass, gstop, Measure::Butter);
    let gs = 10f64.powf(0.1 * gstop.abs());
    let gp = 10f64.powf(0.1 * gpass.abs());
    let ord = order_of(op, ((gs - 1.0) / (gp - 1.0)).log10() / (2.0 * nat.log10()))?;
    let w0 = if ord == 0 {
        1.0
    } else {
        (gp - 1.0).powf(-1.0 / (2.0 * ord as f64))
    };
    let wn = match s.kind {
        Kind::Low => vec![w0 * passb[0]],
        Kind::High => vec![passb[0] / w0],
        Kind::Stop => {
            let d = passb[1] - passb[0];
            let discr = (d * d + 4.0 * w0 * w0 * passb[0] * passb[1]).sqrt();
            let mut v = [
                ((d + discr) / (2.0 * w0)).abs(),
                ((d - discr) / (2.0 * w0)).abs(),
            ];
            v.sort_by(f64::total_cmp);
            v.to_vec()
        }
        Kind::Pass => {
            let d = passb[1] - passb[0];
            let mut v: Vec<f64> = [-w0, w0]
                .iter()
                .map(|w| (-w * d / 2.0 + (w * w / 4.0 * d * d + passb[0] * passb[1]).sqrt()).abs())
                .collect();
            v.sort_by(f64::total_cmp);
            v
        }
    };
    Ok((ord, postprocess(&wn, analog, fs)))
}

/// The Chebyshev order for the specification (`v_pass_stop / acosh(nat)`).
fn cheby_order(op: &'static str, gpass: f64, gstop: f64, nat: f64) -> Result<(usize, f64)> {
    let gs = 10f64.powf(0.1 * gstop.abs());
    let gp = 10f64.powf(0.1 * gpass.abs());
    let v = ((gs - 1.0) / (gp - 1.0)).sqrt().acosh();
    Ok((order_of(op, v / nat.acosh())?, v))
}

/// The lowest Chebyshev type I order and natural frequencies (`scipy.signal.cheb1ord`).
pub fn cheb1ord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    fs: Option<f64>,
) -> Result<(usize, Vec<f64>)> {
    let op = "cheb1ord";
    let s = validate(op, wp, ws, gpass, gstop, analog, fs)?;
    let (passb, stopb) = (prewarp(&s.wp, analog), prewarp(&s.ws, analog));
    let (nat, passb) = nat_freq(&s, passb, &stopb, gpass, gstop, Measure::Cheby);
    let (ord, _) = cheby_order(op, gpass, gstop, nat)?;
    Ok((ord, postprocess(&passb, analog, fs)))
}

/// The lowest Chebyshev type II order and natural frequencies (`scipy.signal.cheb2ord`).
pub fn cheb2ord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    fs: Option<f64>,
) -> Result<(usize, Vec<f64>)> {
    let op = "cheb2ord";
    let s = validate(op, wp, ws, gpass, gstop, analog, fs)?;
    let (passb, stopb) = (prewarp(&s.wp, analog), prewarp(&s.ws, analog));
    let (nat, passb) = nat_freq(&s, passb, &stopb, gpass, gstop, Measure::Cheby);
    let (ord, v) = cheby_order(op, gpass, gstop, nat)?;
    let new_freq = 1.0 / (v / ord.max(1) as f64).cosh();
    let (p0, p1) = (passb[0], *passb.get(1).unwrap_or(&passb[0]));
    let wn = match s.kind {
        Kind::Low => vec![p0 / new_freq],
        Kind::High => vec![p0 * new_freq],
        Kind::Stop => {
            let n0 = new_freq / 2.0 * (p0 - p1)
                + (new_freq * new_freq * (p1 - p0).powi(2) / 4.0 + p1 * p0).sqrt();
            vec![n0, p1 * p0 / n0]
        }
        Kind::Pass => {
            let n0 = 1.0 / (2.0 * new_freq) * (p0 - p1)
                + ((p1 - p0).powi(2) / (4.0 * new_freq * new_freq) + p1 * p0).sqrt();
            vec![n0, p0 * p1 / n0]
        }
    };
    Ok((ord, postprocess(&wn, analog, fs)))
}

/// The lowest elliptic order and natural frequencies (`scipy.signal.ellipord`).
pub fn ellipord(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    analog: bool,
    fs: Option<f64>,
) -> Result<(usize, Vec<f64>)> {
    let op = "ellipord";
    let s = validate(op, wp, ws, gpass, gstop, analog, fs)?;
    let (passb, stopb) = (prewarp(&s.wp, analog), prewarp(&s.ws, analog));
    let (nat, passb) = nat_freq(&s, passb, &stopb, gpass, gstop, Measure::Ellip);
    let pow10m1 = |x: f64| (std::f64::consts::LN_10 * x).exp_m1();
    let arg1_sq = pow10m1(0.1 * gpass) / pow10m1(0.1 * gstop);
    let arg0 = 1.0 / nat;
    let (d00, d01) = (ellipk(arg0 * arg0), ellipk_of_complement(arg0 * arg0));
    let (d10, d11) = (ellipk(arg1_sq), ellipk_of_complement(arg1_sq));
    let ord = order_of(op, d00 * d11 / (d01 * d10))?;
    Ok((ord, postprocess(&passb, analog, fs)))
}

/// The lowest-order filter of `ftype` with at most `gpass` dB loss in the
/// passband `wp` and at least `gstop` dB attenuation in the stopband `ws`
/// (`scipy.signal.iirdesign`; SciPy's default `ftype` is elliptic). The
/// band type follows from `wp` and `ws`, so `opts.btype` is not used.
pub fn iirdesign(
    wp: &[f64],
    ws: &[f64],
    gpass: f64,
    gstop: f64,
    ftype: IirType,
    opts: IirOptions,
) -> Result<Filter> {
    let op = "iirdesign";
    let s = validate(op, wp, ws, gpass, gstop, opts.analog, opts.fs)?;
    let ord = match ftype {
        IirType::Butter => buttord,
        IirType::Cheby1 => cheb1ord,
        IirType::Cheby2 => cheb2ord,
        IirType::Ellip => ellipord,
        IirType::Bessel(_) => {
            return Err(Error::invalid(
                op,
                "bessel does not have order selection; use iirfilter",
            ))
        }
    };
    let (n, wn) = ord(wp, ws, gpass, gstop, opts.analog, opts.fs)?;
    let btype = match s.kind {
        Kind::Low => BandType::Lowpass,
        Kind::High => BandType::Highpass,
        Kind::Stop => BandType::Bandstop,
        Kind::Pass => BandType::Bandpass,
    };
    iirfilter(
        n,
        &wn,
        Some(gpass),
        Some(gstop),
        ftype,
        IirOptions { btype, ..opts },
    )
}
