//! Bessel functions of real order: `jv`, `yv`, `iv`, `kv` and the
//! exponentially scaled `ive`, `kve`, for any real order v and real x.
//!
//! No well-kept crate computes these to f64 accuracy for non-integer and
//! negative orders (`libm` has integer orders only), so they are written
//! here from the published methods; `cuda/special_bessel.cuh` is the same
//! steps in C:
//! - order v >= 0, x > 0 ([`jy`], [`ik`]): the pair at an order mu = v - n
//!   near 0 by Temme's series (x < 2) or Steed's continued fraction CF2
//!   (x >= 2), the ratio F'_v / F_v by the continued fraction CF1, the
//!   Wronskian to normalise, and three-term recurrences: Y and K upward,
//!   J and I downward (each the stable direction);
//! - J and Y for x >= 25 by Hankel's expansion at orders mu and mu + 1
//!   (CF1 needs about x terms and loses about x ulps there), I and K for
//!   x > 1000 by their large-argument expansion;
//! - J and I by their power series where x^2 / 4 <= (v + 1) / 2 (the
//!   recurrence would underflow there and the series does not cancel);
//! - negative orders by the reflection formulas
//!   `J_-v = cos(pi v) J_v - sin(pi v) Y_v`, `Y_-v = sin(pi v) J_v + cos(pi v) Y_v`,
//!   `I_-v = I_v + (2 / pi) sin(pi v) K_v`, `K_-v = K_v`.
//!
//! The values agree with SciPy's (AMOS and Cephes) within 2e-13 relative
//! over v in [-20, 50], x in [0, 200], measured against the function's
//! envelope where it oscillates (near the zeros of J and Y an absolute
//! error is all any method gives).
//!
//! Edges: NaN in, or an infinite order, gives NaN; x < 0 gives NaN except
//! for integer orders of J and I (`J_n(-x) = (-1)^n J_n(x)`), as SciPy; at
//! x = 0 the limits (`J_0 = I_0 = 1`, 0 for v > 0, +-inf for negative
//! non-integer v with the sign of the reflection formula, `Y = -inf`,
//! `K = inf`); orders past 1e6 only where the result underflows (x < v/2:
//! 0, or -inf for Y and inf for K), NaN otherwise; at x = inf the limits (0, and inf for `iv`), where SciPy
//! 1.17 gives NaN for all but `kv`.

mod common;
mod ik;
mod jy;

use super::gamma_fn::MAXLOG;
use std::f64::consts::PI;

/// `sin(pi u)` for u >= 0, exactly 0 at the integers.
fn sin_pi(u: f64) -> f64 {
    let r = u % 2.0;
    let (r, sign) = if r >= 1.0 { (r - 1.0, -1.0) } else { (r, 1.0) };
    let r = if r > 0.5 { 1.0 - r } else { r };
    sign * (PI * r).sin()
}

/// `cos(pi u)` for u >= 0, exactly 0 at the half-integers.
fn cos_pi(u: f64) -> f64 {
    let r = u % 2.0;
    let r = if r > 1.0 { 2.0 - r } else { r };
    if r < 0.25 {
        (PI * r).cos()
    } else {
        (PI * (0.5 - r)).sin()
    }
}

/// `c * f`, 0 where c is 0 even if f is infinite: a reflection term whose
/// coefficient vanishes (integer and half-integer orders) contributes nothing.
fn times(c: f64, f: f64) -> f64 {
    if c == 0.0 {
        0.0
    } else {
        c * f
    }
}

/// `f * exp(a)`, with the exponential split in halves where it alone would
/// overflow or underflow but the product need not.
fn times_exp(f: f64, a: f64) -> f64 {
    if a.abs() > MAXLOG {
        let e = (0.5 * a).exp();
        e * f * e
    } else {
        f * a.exp()
    }
}

fn is_integer(v: f64) -> bool {
    v == v.floor()
}

/// `(-1)^v` for an integer v.
fn parity(v: f64) -> f64 {
    if is_integer(0.5 * v) {
        1.0
    } else {
        -1.0
    }
}

/// NaN for the arguments no function here has a value at.
fn undefined(v: f64, x: f64) -> bool {
    v.is_nan() || x.is_nan() || v.is_infinite()
}

/// The Bessel function of the first kind J_v(x).
pub(super) fn jv(v: f64, x: f64) -> f64 {
    if undefined(v, x) {
        return f64::NAN;
    }
    if x < 0.0 {
        return if is_integer(v) {
            parity(v) * jv(v, -x)
        } else {
            f64::NAN
        };
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let u = v.abs();
    let (j, y) = jy::jy(u, x);
    if v >= 0.0 {
        j
    } else {
        times(cos_pi(u), j) - times(sin_pi(u), y)
    }
}

/// The Bessel function of the second kind Y_v(x).
pub(super) fn yv(v: f64, x: f64) -> f64 {
    if undefined(v, x) || x < 0.0 {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let u = v.abs();
    let (j, y) = jy::jy(u, x);
    if v >= 0.0 {
        y
    } else {
        times(sin_pi(u), j) + times(cos_pi(u), y)
    }
}

/// `I_v(x) exp(-|x|)` from the scaled pair at |v|, with the reflection term
/// scaled by `exp(-2x)` (that is, `K_|v| exp(x)` times `exp(-2x)`).
fn ive_nonneg_x(v: f64, x: f64) -> f64 {
    let u = v.abs();
    let (ie, ke) = ik::ik_scaled(u, x);
    if v >= 0.0 {
        ie
    } else {
        ie + times(2.0 / PI * sin_pi(u), times_exp(ke, -2.0 * x))
    }
}

/// The modified Bessel function of the first kind I_v(x).
pub(super) fn iv(v: f64, x: f64) -> f64 {
    if undefined(v, x) {
        return f64::NAN;
    }
    if x < 0.0 {
        return if is_integer(v) {
            parity(v) * iv(v, -x)
        } else {
            f64::NAN
        };
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    let u = v.abs();
    let (ie, ke) = ik::ik_scaled(u, x);
    let i = times_exp(ie, x);
    if v >= 0.0 {
        i
    } else {
        i + times(2.0 / PI * sin_pi(u), times_exp(ke, -x))
    }
}

/// `iv(v, x) exp(-|x|)`.
pub(super) fn ive(v: f64, x: f64) -> f64 {
    if undefined(v, x) {
        return f64::NAN;
    }
    if x < 0.0 {
        return if is_integer(v) {
            parity(v) * ive(v, -x)
        } else {
            f64::NAN
        };
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    ive_nonneg_x(v, x)
}

/// The modified Bessel function of the second kind K_v(x).
pub(super) fn kv(v: f64, x: f64) -> f64 {
    if undefined(v, x) || x < 0.0 {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    times_exp(ik::ik_scaled(v.abs(), x).1, -x)
}

/// `kv(v, x) exp(x)`.
pub(super) fn kve(v: f64, x: f64) -> f64 {
    if undefined(v, x) || x < 0.0 {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    ik::ik_scaled(v.abs(), x).1
}
