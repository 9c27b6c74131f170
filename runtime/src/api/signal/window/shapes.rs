//! The symmetric window of each family with `m >= 2` points (SciPy's
//! formulas; periodic windows are these one point longer, truncated).

use std::f64::consts::PI;

use num_complex::Complex64;

use crate::ops::special::Special;

/// `sum_k a_k cos(k x)` over `x` evenly spaced from -pi to pi.
pub(super) fn general_cosine(m: usize, coefs: &[f64]) -> Vec<f64> {
    (0..m)
        .map(|i| {
            let fac = -PI + 2.0 * PI * i as f64 / (m - 1) as f64;
            coefs
                .iter()
                .enumerate()
                .map(|(k, c)| c * (k as f64 * fac).cos())
                .sum()
        })
        .collect()
}

pub(super) fn bartlett(m: usize) -> Vec<f64> {
    let half = (m - 1) as f64 / 2.0;
    (0..m)
        .map(|n| {
            let r = 2.0 * n as f64 / (m - 1) as f64;
            if n as f64 <= half {
                r
            } else {
                2.0 - r
            }
        })
        .collect()
}

pub(super) fn kaiser(m: usize, beta: f64) -> Vec<f64> {
    let alpha = (m - 1) as f64 / 2.0;
    let den = <f64 as Special>::i0(beta);
    (0..m)
        .map(|n| {
            let r = (n as f64 - alpha) / alpha;
            <f64 as Special>::i0(beta * (1.0 - r * r).max(0.0).sqrt()) / den
        })
        .collect()
}

pub(super) fn tukey(m: usize, alpha: f64) -> Vec<f64> {
    if alpha <= 0.0 {
        return vec![1.0; m];
    }
    if alpha >= 1.0 {
        return general_cosine(m, &[0.5, 0.5]);
    }
    let last = (m - 1) as f64;
    let width = (alpha * last / 2.0).floor() as usize;
    (0..m)
        .map(|n| {
            let nf = n as f64;
            if n <= width {
                0.5 * (1.0 + (PI * (-1.0 + 2.0 * nf / alpha / last)).cos())
            } else if n < m - width - 1 {
                1.0
            } else {
                0.5 * (1.0 + (PI * (-2.0 / alpha + 1.0 + 2.0 * nf / alpha / last)).cos())
            }
        })
        .collect()
}

/// `exp(-|n / sig|^(2p) / 2)` about the centre (p = 1: the Gaussian).
pub(super) fn general_gaussian(m: usize, p: f64, sig: f64) -> Vec<f64> {
    let c = (m as f64 - 1.0) / 2.0;
    (0..m)
        .map(|i| (-0.5 * ((i as f64 - c) / sig).abs().powf(2.0 * p)).exp())
        .collect()
}

/// Dolph-Chebyshev: the DFT of the Chebyshev polynomial sampled on the
/// unit circle, normalized to a peak of 1.
pub(super) fn chebwin(m: usize, at: f64) -> Vec<f64> {
    let order = m as f64 - 1.0;
    let beta = ((10f64.powf(at.abs() / 20.0)).acosh() / order).cosh();
    let p: Vec<f64> = (0..m)
        .map(|k| {
            let x = beta * (PI * k as f64 / m as f64).cos();
            if x > 1.0 {
                (order * x.acosh()).cosh()
            } else if x < -1.0 {
                let sign = if m % 2 == 1 { 1.0 } else { -1.0 };
                sign * (order * (-x).acosh()).cosh()
            } else {
                (order * x.acos()).cos()
            }
        })
        .collect();
    let mut buf: Vec<Complex64> = if m % 2 == 1 {
        p.iter().map(|&v| Complex64::new(v, 0.0)).collect()
    } else {
        p.iter()
            .enumerate()
            .map(|(k, &v)| Complex64::from_polar(v, PI / m as f64 * k as f64))
            .collect()
    };
    rustfft::FftPlanner::<f64>::new()
        .plan_fft_forward(m)
        .process(&mut buf);
    let re: Vec<f64> = buf.iter().map(|c| c.re).collect();
    let w: Vec<f64> = if m % 2 == 1 {
        let n = m.div_ceil(2);
        re[1..n].iter().rev().chain(&re[..n]).copied().collect()
    } else {
        let n = m / 2 + 1;
        re[1..n].iter().rev().chain(&re[1..n]).copied().collect()
    };
    let peak = w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    w.iter().map(|v| v / peak).collect()
}

/// Sturm count: eigenvalues of the symmetric tridiagonal (d, e) below `x`.
fn eigen_count_below(d: &[f64], e: &[f64], x: f64) -> usize {
    let mut count = 0;
    let mut q = d[0] - x;
    if q < 0.0 {
        count += 1;
    }
    for i in 1..d.len() {
        let q_prev = if q == 0.0 { f64::EPSILON * 1e-3 } else { q };
        q = d[i] - x - e[i - 1] * e[i - 1] / q_prev;
        if q < 0.0 {
            count += 1;
        }
    }
    count
}

/// Solves `(T - shift I) y = b` for tridiagonal `T` (Gaussian elimination
/// with partial pivoting would be overkill: the shift sits just above the
/// top eigenvalue, so the system is definite up to that one direction).
fn shifted_solve(d: &[f64], e: &[f64], shift: f64, b: &[f64]) -> Vec<f64> {
    let n = d.len();
    let mut c = vec![0.0; n];
    let mut y = vec![0.0; n];
    let mut den = d[0] - shift;
    if den == 0.0 {
        den = 1e-300;
    }
    if n > 1 {
        c[0] = e[0] / den;
    }
    y[0] = b[0] / den;
    for i in 1..n {
        let mut den = d[i] - shift - e[i - 1] * c[i - 1];
        if den == 0.0 {
            den = 1e-300;
        }
        if i + 1 < n {
            c[i] = e[i] / den;
        }
        y[i] = (b[i] - e[i - 1] * y[i - 1]) / den;
    }
    for i in (0..n - 1).rev() {
        y[i] -= c[i] * y[i + 1];
    }
    y
}

/// The first Slepian taper: the eigenvector of the largest eigenvalue of
/// Percival and Walden's tridiagonal matrix (bisection on the Sturm count,
/// then inverse iteration), signed to a positive sum, peak-normalized, with
/// SciPy's `'approximate'` correction for even lengths.
pub(super) fn dpss(m: usize, nw: f64) -> Vec<f64> {
    let w = nw / m as f64;
    let mf = m as f64;
    let d: Vec<f64> = (0..m)
        .map(|i| ((mf - 1.0 - 2.0 * i as f64) / 2.0).powi(2) * (2.0 * PI * w).cos())
        .collect();
    let e: Vec<f64> = (1..m).map(|i| i as f64 * (mf - i as f64) / 2.0).collect();
    // Gershgorin bounds, then bisection for the top eigenvalue.
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for i in 0..m {
        let r = if i > 0 { e[i - 1].abs() } else { 0.0 } + if i + 1 < m { e[i].abs() } else { 0.0 };
        lo = lo.min(d[i] - r);
        hi = hi.max(d[i] + r);
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if eigen_count_below(&d, &e, mid) == m {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let lambda = 0.5 * (lo + hi);
    let shift = lambda + (hi - lo).max(lambda.abs() * 1e-14) * 2.0;
    let mut v = vec![1.0; m];
    for _ in 0..4 {
        v = shifted_solve(&d, &e, shift, &v);
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        v.iter_mut().for_each(|x| *x /= norm);
    }
    if v.iter().sum::<f64>() < 0.0 {
        v.iter_mut().for_each(|x| *x = -*x);
    }
    let peak = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let correction = if m % 2 == 0 {
        mf * mf / (mf * mf + nw)
    } else {
        1.0
    };
    v.iter().map(|x| x / peak * correction).collect()
}
