//! The error function family and the normal distribution: `erf` and `erfc`
//! from the `libm` crate (a port of musl's, within an ulp), the rest built
//! on them the way SciPy builds them (Cephes' `ndtri`, `ndtr`, xsf's
//! `log_ndtr`), with `erfcx` and `erfinv` refined so they stay accurate
//! where a direct formula cancels.

use super::poly::{p1evl, polevl};
use super::tables::{NDTRI_P0, NDTRI_P1, NDTRI_P2, NDTRI_Q0, NDTRI_Q1, NDTRI_Q2};

const SQRT_PI: f64 = 1.772_453_850_905_515_9;
const SQRT_2PI: f64 = 2.506_628_274_631_000_5;

pub(super) fn erf(x: f64) -> f64 {
    libm::erf(x)
}

pub(super) fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// `exp(x*x)`, with the rounding error of the square carried into the
/// result (the plain form loses `x*x` ulps of the square's error).
fn exp_square(x: f64) -> f64 {
    let hi = x * x;
    let lo = x.mul_add(x, -hi);
    let e = hi.exp();
    if e.is_infinite() {
        return e;
    }
    e + e * lo
}

/// The scaled complementary error function `exp(x*x) erfc(x)`.
pub(super) fn erfcx(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x == f64::NEG_INFINITY {
        return f64::INFINITY;
    }
    if x < 26.0 {
        // erfc is accurate to an ulp relative everywhere it has not
        // underflowed, so the product is too; below about -26.6 the true
        // value (about 2 exp(x*x)) overflows, as the product does.
        return exp_square(x) * erfc(x);
    }
    if x > 1e8 {
        return 1.0 / (x * SQRT_PI);
    }
    // The asymptotic series 1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k;
    // at x >= 26 its terms fall below 1e-17 by the eighth.
    let w = 1.0 / (2.0 * x * x);
    let (mut term, mut sum) = (1.0, 1.0);
    for k in 1..12 {
        term *= -((2 * k - 1) as f64) * w;
        sum += term;
    }
    sum / (x * SQRT_PI)
}

/// The standard normal CDF (Cephes' `ndtr`).
pub(super) fn ndtr(a: f64) -> f64 {
    if a.is_nan() {
        return a;
    }
    let x = a * std::f64::consts::FRAC_1_SQRT_2;
    let z = x.abs();
    if z < 1.0 {
        0.5 + 0.5 * erf(x)
    } else {
        let y = 0.5 * erfc(z);
        if x > 0.0 {
            1.0 - y
        } else {
            y
        }
    }
}

/// The log of the standard normal CDF (xsf's `log_ndtr`): through `erfcx`
/// in the lower tail, where the CDF itself underflows.
pub(super) fn log_ndtr(a: f64) -> f64 {
    let t = a * std::f64::consts::FRAC_1_SQRT_2;
    if a < -1.0 {
        (erfcx(-t) / 2.0).ln() - t * t
    } else {
        (-erfc(t) / 2.0).ln_1p()
    }
}

/// The inverse of the standard normal CDF (Cephes' `ndtri`, relative error
/// below 3e-16 over the whole range).
pub(super) fn ndtri(y0: f64) -> f64 {
    if y0 == 0.0 {
        return f64::NEG_INFINITY;
    }
    if y0 == 1.0 {
        return f64::INFINITY;
    }
    if !(0.0..=1.0).contains(&y0) {
        return f64::NAN;
    }
    const EXP_M2: f64 = 0.135_335_283_236_612_7;
    let (mut y, upper) = if y0 > 1.0 - EXP_M2 {
        (1.0 - y0, true)
    } else {
        (y0, false)
    };
    if y > EXP_M2 {
        y -= 0.5;
        let y2 = y * y;
        let x = y + y * (y2 * polevl(y2, &NDTRI_P0) / p1evl(y2, &NDTRI_Q0));
        return x * SQRT_2PI;
    }
    let x = (-2.0 * y.ln()).sqrt();
    let x0 = x - x.ln() / x;
    let z = 1.0 / x;
    let x1 = if x < 8.0 {
        z * polevl(z, &NDTRI_P1) / p1evl(z, &NDTRI_Q1)
    } else {
        z * polevl(z, &NDTRI_P2) / p1evl(z, &NDTRI_Q2)
    };
    let x = x0 - x1;
    if upper {
        x
    } else {
        -x
    }
}

/// The inverse complementary error function on [0, 2]: `-ndtri(y/2) /
/// sqrt(2)`, where halving is exact and `ndtri` keeps its relative accuracy.
pub(super) fn erfcinv(y: f64) -> f64 {
    if y.is_nan() || !(0.0..=2.0).contains(&y) {
        return f64::NAN;
    }
    if y == 0.0 {
        return f64::INFINITY;
    }
    if y == 2.0 {
        return f64::NEG_INFINITY;
    }
    -ndtri(0.5 * y) * std::f64::consts::FRAC_1_SQRT_2
}

/// The inverse error function on [-1, 1]. Near ±1 it is `erfcinv(1 - |y|)`
/// (that difference is exact); nearer 0, where `ndtri((1 + y)/2)` keeps only
/// an absolute accuracy, one Newton step on `erf` makes it relative.
pub(super) fn erfinv(y: f64) -> f64 {
    if y.is_nan() || !(-1.0..=1.0).contains(&y) {
        return f64::NAN;
    }
    if y.abs() > 0.5 {
        return erfcinv(1.0 - y.abs()).copysign(y);
    }
    if y == 0.0 {
        return y;
    }
    let x = ndtri(0.5 + 0.5 * y) * std::f64::consts::FRAC_1_SQRT_2;
    let slope = 2.0 / SQRT_PI * (-x * x).exp();
    x - (erf(x) - y) / slope
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverses_undo_the_functions() {
        // (Not much past 2: erf rounds to 1 and the inverse is ill-conditioned.)
        for &x in &[1e-300, 1e-9, 0.1, 0.4, 0.9, 2.0] {
            let y = erf(x);
            assert!((erfinv(y) - x).abs() <= 1e-14 * x, "erfinv {x:e}");
            // ndtr(-x) is 1/2 to the last bit below about 1e-16.
            if x >= 0.1 {
                assert!((ndtri(ndtr(-x)) + x).abs() <= 1e-13 * x, "ndtri {x:e}");
            }
        }
        assert!((erfcinv(erfc(20.0)) - 20.0).abs() < 1e-13);
        assert_eq!(erfinv(1.0), f64::INFINITY);
        assert!(erfinv(1.5).is_nan() && erfcinv(-0.5).is_nan());
    }

    #[test]
    fn erfcx_has_no_gap_between_its_branches() {
        // One ulp apart, on either side of the switch to the series.
        let below = erfcx(f64::from_bits(26f64.to_bits() - 1));
        let above = erfcx(26.0);
        assert!((below - above).abs() < 1e-14 * above, "{below:e} {above:e}");
        assert_eq!(erfcx(f64::INFINITY), 0.0);
        assert_eq!(erfcx(-30.0), f64::INFINITY);
    }
}
