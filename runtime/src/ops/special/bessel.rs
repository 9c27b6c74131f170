//! Bessel functions of order 0 and 1: `j0`, `j1`, `y0`, `y1` from the
//! `libm` crate (musl's), the modified ones `i0`, `i1`, `k0`, `k1` and their
//! exponentially scaled forms by Cephes' Chebyshev series, as in SciPy.

use super::gamma_fn::MAXLOG;
use super::poly::chbevl;
use super::tables::{I0_A, I0_B, I1_A, I1_B, K0_A, K0_B, K1_A, K1_B};

pub(super) fn j0(x: f64) -> f64 {
    libm::j0(x)
}

pub(super) fn j1(x: f64) -> f64 {
    libm::j1(x)
}

/// Y0: NaN below 0, `-inf` at 0 (SciPy's values; musl agrees).
pub(super) fn y0(x: f64) -> f64 {
    libm::y0(x)
}

pub(super) fn y1(x: f64) -> f64 {
    libm::y1(x)
}

/// `exp(-|x|) I0(x)`.
pub(super) fn i0e(x: f64) -> f64 {
    let x = x.abs();
    if x <= 8.0 {
        chbevl(x / 2.0 - 2.0, &I0_A)
    } else {
        chbevl(32.0 / x - 2.0, &I0_B) / x.sqrt()
    }
}

/// `exp(x)` times `f`, with the exponential split in halves where it alone
/// would overflow but the product need not.
fn times_exp(x: f64, f: f64) -> f64 {
    if x > MAXLOG {
        let e = (x / 2.0).exp();
        e * f * e
    } else {
        x.exp() * f
    }
}

/// I0; infinite at infinity (SciPy 1.17 gives NaN there).
pub(super) fn i0(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::INFINITY;
    }
    times_exp(x.abs(), i0e(x))
}

/// `exp(-|x|) I1(x)`.
pub(super) fn i1e(x: f64) -> f64 {
    let z = x.abs();
    let v = if z <= 8.0 {
        chbevl(z / 2.0 - 2.0, &I1_A) * z
    } else {
        chbevl(32.0 / z - 2.0, &I1_B) / z.sqrt()
    };
    if x < 0.0 {
        -v
    } else {
        v
    }
}

/// I1; `±inf` at `±inf` (SciPy 1.17 gives NaN there).
pub(super) fn i1(x: f64) -> f64 {
    if x.is_infinite() {
        return x;
    }
    times_exp(x.abs(), i1e(x))
}

/// K0 for x <= 2, where it is a series in x and log(x/2) I0(x).
fn k0_small(x: f64) -> f64 {
    chbevl(x * x - 2.0, &K0_A) - (0.5 * x).ln() * i0(x)
}

/// K1 for x <= 2.
fn k1_small(x: f64) -> f64 {
    (0.5 * x).ln() * i1(x) + chbevl(x * x - 2.0, &K1_A) / x
}

/// The value at 0 (infinite) and below 0 (NaN) of K0, K1 and their scaled forms.
fn k_outside(x: f64) -> Option<f64> {
    if x == 0.0 {
        Some(f64::INFINITY)
    } else if x < 0.0 || x.is_nan() {
        Some(f64::NAN)
    } else {
        None
    }
}

pub(super) fn k0(x: f64) -> f64 {
    if let Some(v) = k_outside(x) {
        return v;
    }
    if x <= 2.0 {
        return k0_small(x);
    }
    (-x).exp() * chbevl(8.0 / x - 2.0, &K0_B) / x.sqrt()
}

/// `exp(x) K0(x)`.
pub(super) fn k0e(x: f64) -> f64 {
    if let Some(v) = k_outside(x) {
        return v;
    }
    if x <= 2.0 {
        return k0_small(x) * x.exp();
    }
    chbevl(8.0 / x - 2.0, &K0_B) / x.sqrt()
}

pub(super) fn k1(x: f64) -> f64 {
    if let Some(v) = k_outside(x) {
        return v;
    }
    if x <= 2.0 {
        return k1_small(x);
    }
    (-x).exp() * chbevl(8.0 / x - 2.0, &K1_B) / x.sqrt()
}

/// `exp(x) K1(x)`.
pub(super) fn k1e(x: f64) -> f64 {
    if let Some(v) = k_outside(x) {
        return v;
    }
    if x <= 2.0 {
        return k1_small(x) * x.exp();
    }
    chbevl(8.0 / x - 2.0, &K1_B) / x.sqrt()
}
