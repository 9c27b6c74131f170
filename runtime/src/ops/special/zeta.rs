//! The Hurwitz zeta function (Cephes' `zeta`, as SciPy's `zeta(x, q)`) and
//! the polygamma functions built on it.

use super::gamma_fn::{digamma, gamma};

const MACHEP: f64 = 1.110_223_024_625_156_5e-16;

/// `(2k)! / B_2k`, the Euler-Maclaurin coefficients (B: Bernoulli numbers).
const EULER_MACLAURIN: [f64; 12] = [
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.892_437_580_318_379_2e9,
    7.472_424_96e10,
    -2.950_130_727_918_164e12,
    1.164_678_281_435_006_7e14,
    -4.597_978_722_407_473e15,
    1.815_210_540_194_354_7e17,
    -7.166_165_256_175_667e18,
];

/// `sum over k >= 0 of (k + q)^-x` for `x > 1`: infinite at `x = 1` and at
/// the poles `q = 0, -1, ...`; NaN for `x < 1` and for negative `q` with a
/// non-integer `x` (where `q^-x` is not real). NaN arguments give NaN,
/// except that a pole of `q` is infinite whatever `x` is (as in SciPy).
pub(super) fn zeta(x: f64, q: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    if x < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY;
        }
        if x != x.floor() {
            return f64::NAN;
        }
    }
    if q > 1e8 {
        // DLMF 25.11.43.
        return (1.0 / (x - 1.0) + 1.0 / (2.0 * q)) * q.powf(1.0 - x);
    }
    // Euler-Maclaurin summation: sum directly until the terms are past 9.
    let mut s = q.powf(-x);
    let mut a = q;
    let mut b = 0.0;
    let mut i = 0;
    while i < 9 || a <= 9.0 {
        i += 1;
        a += 1.0;
        b = a.powf(-x);
        s += b;
        if (b / s).abs() < MACHEP {
            return s;
        }
    }
    let w = a;
    s += b * w / (x - 1.0);
    s -= 0.5 * b;
    let (mut a, mut k) = (1.0, 0.0);
    for coeff in EULER_MACLAURIN {
        a *= x + k;
        b /= w;
        let t = a * b / coeff;
        s += t;
        if (t / s).abs() < MACHEP {
            break;
        }
        k += 1.0;
        a *= x + k;
        b /= w;
        k += 1.0;
    }
    s
}

/// The n-th derivative of digamma: `digamma(x)` for `n = 0`, else
/// `(-1)^(n+1) n! zeta(n + 1, x)`, SciPy's formula: NaN for a non-integer
/// `n` (the power of -1 is not real) and for a negative one (zeta's domain).
pub(super) fn polygamma(n: f64, x: f64) -> f64 {
    if n == 0.0 {
        return digamma(x);
    }
    (-1f64).powf(n + 1.0) * gamma(n + 1.0) * zeta(n + 1.0, x)
}
