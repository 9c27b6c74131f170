//! The logistic function and its relatives, and the entropy terms, with
//! SciPy's formulas (xsf's `log_exp.h`, `convex_analysis.h`) and its
//! values at the edges (`xlogy(0, y)` is 0, `entr` of a negative number is
//! `-inf`).

pub(super) fn expit(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// `log(p / (1 - p))`; around 1/2, where that ratio cancels, as
/// `log1p(2 (p - 1/2)) - log1p(-2 (p - 1/2))`.
pub(super) fn logit(p: f64) -> f64 {
    if (0.3..=0.65).contains(&p) {
        let s = 2.0 * (p - 0.5);
        s.ln_1p() - (-s).ln_1p()
    } else {
        (p / (1.0 - p)).ln()
    }
}

/// `log(expit(x))` without underflow for large negative x.
pub(super) fn log_expit(x: f64) -> f64 {
    if x < 0.0 {
        x - x.exp().ln_1p()
    } else {
        -(-x).exp().ln_1p()
    }
}

/// `x log(y)`, 0 where `x` is 0 and `y` is not NaN.
pub(super) fn xlogy(x: f64, y: f64) -> f64 {
    if x == 0.0 && !y.is_nan() {
        0.0
    } else {
        x * y.ln()
    }
}

/// `x log1p(y)`, 0 where `x` is 0 and `y` is not NaN.
pub(super) fn xlog1py(x: f64, y: f64) -> f64 {
    if x == 0.0 && !y.is_nan() {
        0.0
    } else {
        x * y.ln_1p()
    }
}

/// `-x log(x)`: 0 at 0, `-inf` below.
pub(super) fn entr(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x > 0.0 {
        -x * x.ln()
    } else if x == 0.0 {
        0.0
    } else {
        f64::NEG_INFINITY
    }
}

/// `x log(x / y)`: 0 for `x == 0, y >= 0`, infinite elsewhere outside the
/// positive quadrant; accurate where `x` and `y` are close.
pub(super) fn rel_entr(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x <= 0.0 || y <= 0.0 {
        return if x == 0.0 && y >= 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let ratio = x / y;
    if 0.5 < ratio && ratio < 2.0 {
        x * ((x - y) / y).ln_1p()
    } else if f64::MIN_POSITIVE < ratio && ratio < f64::INFINITY {
        x * ratio.ln()
    } else {
        // The ratio underflowed or overflowed: take the logarithms first.
        x * (x.ln() - y.ln())
    }
}

/// `x log(x / y) - x + y`: `y` for `x == 0, y >= 0`, infinite elsewhere
/// outside the positive quadrant.
pub(super) fn kl_div(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x > 0.0 && y > 0.0 {
        x * (x / y).ln() - x + y
    } else if x == 0.0 && y >= 0.0 {
        y
    } else {
        f64::INFINITY
    }
}

/// The Huber loss of a residual `r` with threshold `delta`: quadratic
/// within `delta`, linear beyond; infinite for a negative `delta`.
pub(super) fn huber(delta: f64, r: f64) -> f64 {
    if delta < 0.0 {
        f64::INFINITY
    } else if r.abs() <= delta {
        0.5 * r * r
    } else {
        delta * (r.abs() - 0.5 * delta)
    }
}

/// The pseudo-Huber loss `delta^2 (sqrt(1 + (r/delta)^2) - 1)`, by `expm1`
/// and `log1p` so small ratios keep their precision.
pub(super) fn pseudo_huber(delta: f64, r: f64) -> f64 {
    if delta < 0.0 {
        f64::INFINITY
    } else if delta == 0.0 || r == 0.0 {
        0.0
    } else {
        let v = r / delta;
        delta * delta * (0.5 * (v * v).ln_1p()).exp_m1()
    }
}
