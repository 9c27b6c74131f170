//! Inverses of the incomplete gamma and beta functions in their last
//! argument: `gammaincinv(a, p)`, `gammainccinv(a, q)` and
//! `betaincinv(a, b, y)`.
//!
//! Each starts from a closed-form guess (the small-argument power law, the
//! Wilson-Hilferty cube for gamma, the normal approximation of Abramowitz
//! and Stegun 26.5.22 for beta) and refines it with Halley steps on the
//! log of the tail (so a guess decades off takes a few steps) kept inside
//! a bracket that every evaluation narrows, so a poor guess costs iterations,
//! never the answer. The tail that decides the root is solved on its own
//! side (`Q = q` when `p > 1/2`, the beta function's mirror `1 - I_{1-x}(b,
//! a)` when `y > 1/2` and the density at the root is below `y`), so neither
//! tail loses its relative accuracy. The
//! GPU halves in `cuda/special_inverse.cuh` are the same steps in C.

use super::error_fn::ndtri;
use super::gamma_fn::{betaln, gammaln};
use super::incomplete_beta::betainc;
use super::incomplete_gamma::{gammainc, gammaincc};

/// Halley steps before giving up (the bracket halves at worst every step).
const MAX_STEPS: usize = 300;
/// Relative step below which the root is taken as found.
const TOLERANCE: f64 = 4e-16;

/// The next point inside `(lo, hi)`: the proposed step if it lands there,
/// else a bisection (by decades from 0, geometric while the bracket spans more than 4x, quadrupling
/// while it is open above).
fn keep_in_bracket(proposed: f64, lo: f64, hi: f64) -> f64 {
    if proposed > lo && proposed < hi {
        proposed
    } else if hi.is_infinite() {
        if lo > 0.0 {
            lo * 4.0
        } else {
            1.0
        }
    } else if lo == 0.0 {
        hi * 1e-3
    } else if hi > 4.0 * lo {
        (lo * hi).sqrt()
    } else {
        0.5 * (lo + hi)
    }
}

/// The step of Halley's method given the Newton step `u = f / f'` and the
/// ratio `f'' / f'`, damped where the correction would dominate.
fn halley_step(u: f64, curvature: f64) -> f64 {
    let c = (u * curvature).clamp(-1.0, 1.0);
    u / (1.0 - 0.5 * c)
}

/// `gammaincinv(a, p)`: the `x` with `P(a, x) = p`.
pub(super) fn gammaincinv(a: f64, p: f64) -> f64 {
    match gamma_inverse_edges(a, p, true) {
        Some(v) => v,
        None => gamma_inverse(a, p, 1.0 - p),
    }
}

/// `gammainccinv(a, q)`: the `x` with `Q(a, x) = q`.
pub(super) fn gammainccinv(a: f64, q: f64) -> f64 {
    match gamma_inverse_edges(a, q, false) {
        Some(v) => v,
        None => gamma_inverse(a, 1.0 - q, q),
    }
}

/// SciPy's values outside `a > 0` finite and `0 < p < 1` (`p` is the lower
/// tail when `lower`, else the upper one).
fn gamma_inverse_edges(a: f64, p: f64, lower: bool) -> Option<f64> {
    let (at_zero, at_one) = if lower {
        (0.0, f64::INFINITY)
    } else {
        (f64::INFINITY, 0.0)
    };
    if a.is_nan() || p.is_nan() || a < 0.0 || !(0.0..=1.0).contains(&p) {
        Some(f64::NAN)
    } else if p == 0.0 {
        Some(at_zero)
    } else if p == 1.0 {
        Some(at_one)
    } else if a == 0.0 || a.is_infinite() {
        Some(f64::NAN)
    } else {
        None
    }
}

/// A first guess of the root of `P(a, x) = p` (`q = 1 - p`).
fn gamma_guess(a: f64, p: f64, q: f64) -> f64 {
    // P ~ x^a / gamma(a + 1) for x well below a + 1.
    let small = ((p.ln() + gammaln(a + 1.0)) / a).exp();
    if p <= 0.5 && small < 0.3 * (a + 1.0) {
        return small;
    }
    let z = if p < 0.5 { ndtri(p) } else { -ndtri(q) };
    let s = 1.0 - 1.0 / (9.0 * a) + z / (3.0 * a.sqrt());
    if s > 0.0 && a > 0.5 {
        return a * s * s * s;
    }
    if p < 0.5 {
        return small;
    }
    // Q ~ x^(a-1) e^-x / gamma(a) far in the upper tail.
    let t = -q.ln() - gammaln(a);
    (t + (a - 1.0) * t.max(1.0).ln()).max(1e-3)
}

/// The root of `P(a, x) = p` for `a > 0` and `0 < p < 1` with `q = 1 - p`,
/// solved on the smaller tail.
fn gamma_inverse(a: f64, p: f64, q: f64) -> f64 {
    let lower = p <= 0.5;
    let log_gamma_a = gammaln(a);
    let (mut lo, mut hi) = (0.0, f64::INFINITY);
    let mut x = gamma_guess(a, p, q);
    if x == 0.0 {
        // The root underflows (p below x^a / gamma(a + 1) at the least x).
        return 0.0;
    }
    let (log_p, log_q) = (p.ln(), q.ln());
    for _ in 0..MAX_STEPS {
        // The residual in logs (so that Newton crosses decades of a tail in
        // a few steps), increasing with x on either side.
        let (f, tail) = if lower {
            let v = gammainc(a, x);
            (v.ln() - log_p, v)
        } else {
            let v = gammaincc(a, x);
            (log_q - v.ln(), v)
        };
        if f == 0.0 {
            return x;
        }
        if f > 0.0 {
            hi = x;
        } else {
            lo = x;
        }
        let slope = (-x + (a - 1.0) * x.ln() - log_gamma_a).exp() / tail;
        let curvature = (a - 1.0) / x - 1.0 + if lower { -slope } else { slope };
        let proposed = if slope > 0.0 && slope.is_finite() {
            x - halley_step(f / slope, curvature)
        } else {
            f64::NAN
        };
        let next = keep_in_bracket(proposed, lo, hi);
        if (next - x).abs() <= TOLERANCE * next || hi - lo <= TOLERANCE * lo {
            return next;
        }
        x = next;
    }
    x
}

/// `betaincinv(a, b, y)`: the `x` in [0, 1] with `I_x(a, b) = y`.
pub(super) fn betaincinv(a: f64, b: f64, y: f64) -> f64 {
    if a.is_nan() || b.is_nan() || y.is_nan() || a <= 0.0 || b <= 0.0 {
        return f64::NAN;
    }
    if !(0.0..=1.0).contains(&y) {
        return f64::NAN;
    }
    if y == 0.0 || y == 1.0 {
        return y;
    }
    if a.is_infinite() && b.is_infinite() {
        return f64::NAN;
    }
    if b.is_infinite() {
        return 0.0;
    }
    if a.is_infinite() {
        return 1.0;
    }
    let x = beta_inverse(a, b, y, beta_guess(a, b, y));
    // Past the middle, the lower tail's residual knows I_x only to 1e-16
    // absolutely, so the root only to 1e-16 / density; the upper tail's
    // (`I_{1-x}(b, a) = 1 - y`, solved for 1 - x) to about 1e-16
    // absolutely, rounding 1 - x. It is re-solved there, from the first
    // root, where the root is past 1/2 (1 - x is then the small number, and
    // the lower solve cannot reach 1) or the density is below y
    // (betaincinv(0.01, 1e3, 1 - 1e-10) was 3e-9 off); not where the root
    // is tiny (a small `a`), whose density is large and which 1 - (1 - x)
    // would round away.
    if y > 0.5 && (x >= 0.5 || (x > 0.0 && beta_density(a, b, x) < y)) {
        let start = if x < 1.0 {
            1.0 - x
        } else {
            beta_guess(b, a, 1.0 - y)
        };
        1.0 - beta_inverse(b, a, 1.0 - y, start)
    } else {
        x
    }
}

/// The beta density at `x` in (0, 1).
fn beta_density(a: f64, b: f64, x: f64) -> f64 {
    ((a - 1.0) * x.ln() + (b - 1.0) * (-x).ln_1p() - betaln(a, b)).exp()
}

/// A first guess of the root of `I_x(a, b) = y`.
fn beta_guess(a: f64, b: f64, y: f64) -> f64 {
    // I ~ x^a / (a B(a, b)) for small x.
    let small = ((y.ln() + a.ln() + betaln(a, b)) / a).exp();
    if small < 0.01 {
        return small;
    }
    if a >= 1.0 && b >= 1.0 {
        // The normal approximation (A&S 26.5.22) through its quantile.
        let z = -ndtri(y);
        let l = (z * z - 3.0) / 6.0;
        let h = 2.0 / (1.0 / (2.0 * a - 1.0) + 1.0 / (2.0 * b - 1.0));
        let w = z * (h + l).sqrt() / h
            - (1.0 / (2.0 * b - 1.0) - 1.0 / (2.0 * a - 1.0)) * (l + 5.0 / 6.0 - 2.0 / (3.0 * h));
        return a / (a + b * (2.0 * w).exp());
    }
    // Power laws at both ends, weighted by the mass each holds.
    let t = (a * (a / (a + b)).ln()).exp() / a;
    let u = (b * (b / (a + b)).ln()).exp() / b;
    let w = t + u;
    if y < t / w {
        (a * w * y).powf(1.0 / a)
    } else {
        1.0 - (b * w * (1.0 - y)).powf(1.0 / b)
    }
}

/// The root of `I_x(a, b) = y` for positive finite shapes and `0 < y < 1`.
fn beta_inverse(a: f64, b: f64, y: f64, guess: f64) -> f64 {
    let log_beta = betaln(a, b);
    let (mut lo, mut hi) = (0.0, 1.0);
    if guess == 0.0 {
        // The root underflows.
        return 0.0;
    }
    let mut x = if guess > 0.0 && guess < 1.0 {
        guess
    } else {
        0.5
    };
    let log_y = y.ln();
    for _ in 0..MAX_STEPS {
        // The residual in logs, as for gamma.
        let v = betainc(a, b, x);
        let f = v.ln() - log_y;
        if f == 0.0 {
            return x;
        }
        if f > 0.0 {
            hi = x;
        } else {
            lo = x;
        }
        let slope = ((a - 1.0) * x.ln() + (b - 1.0) * (-x).ln_1p() - log_beta).exp() / v;
        let curvature = (a - 1.0) / x - (b - 1.0) / (1.0 - x) - slope;
        let proposed = if slope > 0.0 && slope.is_finite() {
            x - halley_step(f / slope, curvature)
        } else {
            f64::NAN
        };
        if proposed == x {
            // The step is below half an ulp of x.
            return x;
        }
        let next = keep_in_bracket(proposed, lo, hi);
        if (next - x).abs() <= TOLERANCE * next || hi - lo <= TOLERANCE * lo {
            return next;
        }
        x = next;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverses_round_trip() {
        for &a in &[1e-3, 0.1, 0.5, 1.0, 2.5, 30.0, 150.0, 1e4] {
            for &p in &[1e-300, 1e-20, 1e-5, 0.1, 0.5, 0.9, 1.0 - 1e-10] {
                let x = gammaincinv(a, p);
                let back = gammainc(a, x);
                assert!(
                    x == 0.0 || (back - p).abs() <= 1e-10 * p.max(1e-300) + 1e-300,
                    "{a} {p} {x} {back}"
                );
                let xc = gammainccinv(a, p);
                let backc = gammaincc(a, xc);
                assert!(
                    xc == 0.0 || (backc - p).abs() <= 1e-10 * p,
                    "Q {a} {p} {xc} {backc}"
                );
            }
        }
        for &(a, b) in &[(0.5, 0.5), (2.0, 3.0), (0.01, 1.0), (50.0, 0.2), (1e3, 1e3)] {
            for &y in &[1e-300, 1e-8, 0.2, 0.5, 0.9, 1.0 - 1e-12] {
                let x = betaincinv(a, b, y);
                // Checked on the smaller tail, where the relative error means something.
                let (back, target) = if y > 0.5 {
                    (betainc(b, a, 1.0 - x), 1.0 - y)
                } else {
                    (betainc(a, b, x), y)
                };
                let close = (back - target).abs() <= 1e-10 * target;
                assert!(x == 0.0 || x == 1.0 || close, "{a} {b} {y} {x} {back}");
            }
        }
        assert!(gammaincinv(0.0, 0.5).is_nan());
        assert_eq!(gammaincinv(0.0, 0.0), 0.0);
        assert_eq!(gammainccinv(1.0, 0.0), f64::INFINITY);
        assert_eq!(betaincinv(f64::INFINITY, 1.0, 0.5), 1.0);
    }
}
