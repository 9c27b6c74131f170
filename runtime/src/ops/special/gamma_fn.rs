//! The gamma function family: `gamma` and `gammaln` from the `libm` crate
//! (musl's, within a few ulps), `digamma`, `beta` and `betaln` as Cephes
//! computes them for SciPy (`psi.h`, `beta.h` of xsf).

use super::poly::polevl;
use super::tables::{PSI_A, PSI_P, PSI_Q};

/// The largest x whose gamma function is finite.
pub(super) const MAXGAM: f64 = 171.624_376_956_302_7;
/// log(f64::MAX).
pub(super) const MAXLOG: f64 = 7.097_827_128_933_84e2;
const EULER: f64 = 0.577_215_664_901_532_9;

pub(super) fn gamma(x: f64) -> f64 {
    libm::tgamma(x)
}

/// `log|gamma(x)|`; `-inf` at `-inf`, as SciPy (Cephes returns non-finite
/// arguments as they are).
pub(super) fn gammaln(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return x;
    }
    libm::lgamma(x)
}

/// The real `log(gamma(x))`: NaN below 0, where gamma has no real
/// logarithm everywhere (SciPy's `loggamma` of a real number).
pub(super) fn loggamma(x: f64) -> f64 {
    if x < 0.0 {
        return f64::NAN;
    }
    gammaln(x)
}

/// The binomial coefficient `n choose k` for real n and k (xsf's `binom`):
/// exact products for small integer k, beta functions elsewhere, and
/// asymptotic forms where those would overflow or lose precision.
pub(super) fn binom(n: f64, k: f64) -> f64 {
    if n < 0.0 && n == n.floor() {
        return f64::NAN;
    }
    let mut kx = k.floor();
    if k == kx && (n.abs() > 1e-8 || n == 0.0) {
        // Integer k: the multiplication formula rounds least, and gives
        // integers exactly (not for tiny nonzero n, where it cancels).
        let nx = n.floor();
        if nx == n && kx > nx / 2.0 && nx > 0.0 {
            kx = nx - kx;
        }
        if (0.0..20.0).contains(&kx) {
            let (mut num, mut den) = (1.0, 1.0);
            for i in 1..=kx as i32 {
                num *= i as f64 + n - kx;
                den *= i as f64;
                if num.abs() > 1e50 {
                    num /= den;
                    den = 1.0;
                }
            }
            return num / den;
        }
    }
    if n >= 1e10 * k && k > 0.0 {
        return (-betaln(1.0 + n - k, 1.0 + k) - (n + 1.0).ln()).exp();
    }
    if k > 1e8 * n.abs() {
        let g = gamma(1.0 + n);
        let num = (g / k.abs() + g * n / (2.0 * k * k)) / (std::f64::consts::PI * k.abs().powf(n));
        let kx = k.floor();
        let whole = kx.abs() < 2_147_483_648.0 && kx == kx.trunc();
        if k > 0.0 {
            let (dk, sgn) = if whole {
                (k - kx, if (kx as i64) % 2 == 0 { 1.0 } else { -1.0 })
            } else {
                (k, 1.0)
            };
            return num * ((dk - n) * std::f64::consts::PI).sin() * sgn;
        }
        if whole {
            return 0.0;
        }
        return num * (k * std::f64::consts::PI).sin();
    }
    1.0 / (n + 1.0) / beta(1.0 + n - k, 1.0 + k)
}

/// `log|gamma(x)|` and the sign of `gamma(x)`.
pub(super) fn lgamma_sign(x: f64) -> (f64, f64) {
    let (v, s) = libm::lgamma_r(x);
    (v, if s < 0 { -1.0 } else { 1.0 })
}

/// `1 / gamma(x)`: 0 at the poles and where gamma overflows.
pub(super) fn rgamma(x: f64) -> f64 {
    if x <= 0.0 && x == x.floor() {
        return 0.0;
    }
    1.0 / gamma(x)
}

/// Digamma on [1, 2]: `(x - root) (Y + R(x - 1))` around the positive root,
/// Boost's rational approximation (Cephes' `digamma_imp_1_2`).
fn digamma_1_2(x: f64) -> f64 {
    const Y: f64 = 0.995_581_626_892_089_8; // 0.99558162689208984f as a float32
    const ROOT1: f64 = 1_569_415_565.0 / 1_073_741_824.0;
    const ROOT2: f64 = (381_566_830.0 / 1_073_741_824.0) / 1_073_741_824.0;
    const ROOT3: f64 = 0.901_631_209_325_869_6e-19;
    let g = x - ROOT1 - ROOT2 - ROOT3;
    let r = polevl(x - 1.0, &PSI_P) / polevl(x - 1.0, &PSI_Q);
    g * Y + g * r
}

/// The logarithmic derivative of gamma (Cephes' `psi`: reflection for
/// negative x, sums for small integers, the recurrence into [1, 2], and
/// the asymptotic series from 10 up; xsf's series around its negative zero).
pub(super) fn digamma(x: f64) -> f64 {
    // Around the negative zero nearest 0, where the reflection below
    // cancels, xsf sums the Taylor series at the zero instead.
    const NEGROOT: f64 = -0.504_083_008_264_455_4;
    const NEGROOT_VALUE: f64 = 7.289_763_902_976_895e-17;
    if (x - NEGROOT).abs() < 0.3 {
        let z = x - NEGROOT;
        let (mut res, mut coeff) = (NEGROOT_VALUE, -1.0);
        for n in 1..100 {
            coeff *= -z;
            let term = coeff * super::zeta::zeta((n + 1) as f64, NEGROOT);
            res += term;
            if term.abs() < f64::EPSILON * res.abs() {
                break;
            }
        }
        return res;
    }
    psi(x)
}

/// Cephes' digamma.
fn psi(mut x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY.copysign(-x);
    }
    let mut y = 0.0;
    if x < 0.0 {
        // Reduce before tan(pi x), which loses the fraction for large x.
        let r = x - x.trunc();
        if r == 0.0 {
            return f64::NAN;
        }
        y = -std::f64::consts::PI / (std::f64::consts::PI * r).tan();
        x = 1.0 - x;
    }
    if x <= 10.0 && x == x.floor() {
        let n = x as i32;
        for i in 1..n {
            y += 1.0 / i as f64;
        }
        return y - EULER;
    }
    if x < 1.0 {
        y -= 1.0 / x;
        x += 1.0;
    } else if x < 10.0 {
        while x > 2.0 {
            x -= 1.0;
            y += 1.0 / x;
        }
    }
    if (1.0..=2.0).contains(&x) {
        return y + digamma_1_2(x);
    }
    let tail = if x < 1e17 {
        let z = 1.0 / (x * x);
        z * polevl(z, &PSI_A)
    } else {
        0.0
    };
    y + x.ln() - 0.5 / x - tail
}

/// Beyond this ratio of the arguments, `lgamma(a + b) - lgamma(a)` cancels
/// and the asymptotic expansion takes over.
const ASYMP_FACTOR: f64 = 1e6;

/// `log|B(a, b)|` and its sign for `a > ASYMP_FACTOR max(|b|, 1)`.
fn lbeta_asymp(a: f64, b: f64) -> (f64, f64) {
    let (mut r, sign) = lgamma_sign(b);
    r -= b * a.ln();
    r += b * (1.0 - b) / (2.0 * a);
    r += b * (1.0 - b) * (1.0 - 2.0 * b) / (12.0 * a * a);
    r += -b * b * (1.0 - b) * (1.0 - b) / (12.0 * a * a * a);
    (r, sign)
}

/// Whether `a` is a pole of gamma (0 or a negative integer), and whether it
/// is one that fits an `i32` (Cephes' special case for beta).
fn negative_integer(a: f64) -> Option<Option<i32>> {
    if a <= 0.0 && a == a.floor() {
        Some((a >= i32::MIN as f64).then_some(a as i32))
    } else {
        None
    }
}

/// `B(a, b)` or `log|B(a, b)|` (`log` true): Cephes' `beta` and `lbeta`.
fn beta_or_log(a: f64, b: f64, log: bool) -> f64 {
    for (p, q) in [(a, b), (b, a)] {
        match negative_integer(p) {
            // B(-n, b) for an integer b with 1 + n - b > 0 is finite:
            // (-1)^b B(1 + n - b, b).
            Some(Some(n)) => {
                if q == q.trunc() && q.abs() < 2e9 && 1.0 - n as f64 - q > 0.0 {
                    let v = beta_or_log(1.0 - n as f64 - q, q, log);
                    return if log || (q as i64) % 2 == 0 { v } else { -v };
                }
                return f64::INFINITY;
            }
            Some(None) => return f64::INFINITY,
            None => {}
        }
    }
    let (a, b) = if a.abs() < b.abs() { (b, a) } else { (a, b) };
    if a.abs() > ASYMP_FACTOR * b.abs() && a > ASYMP_FACTOR {
        let (y, sign) = lbeta_asymp(a, b);
        return if log { y } else { sign * y.exp() };
    }
    let s = a + b;
    if s.abs() > MAXGAM || a.abs() > MAXGAM || b.abs() > MAXGAM {
        let (ls, ss) = lgamma_sign(s);
        let (lb, sb) = lgamma_sign(b);
        let (la, sa) = lgamma_sign(a);
        let y = la + (lb - ls);
        let sign = ss * sb * sa;
        if log {
            return y;
        }
        return if y > MAXLOG {
            sign * f64::INFINITY
        } else {
            sign * y.exp()
        };
    }
    let r = rgamma(s);
    let (ga, gb) = (gamma(a), gamma(b));
    if r.is_infinite() {
        return f64::INFINITY;
    }
    // Multiply the pair nearer 1 first, to stay within range.
    let y = if ((ga * r).abs() - 1.0).abs() > ((gb * r).abs() - 1.0).abs() {
        gb * r * ga
    } else {
        ga * r * gb
    };
    if log {
        y.abs().ln()
    } else {
        y
    }
}

pub(super) fn beta(a: f64, b: f64) -> f64 {
    beta_or_log(a, b, false)
}

pub(super) fn betaln(a: f64, b: f64) -> f64 {
    beta_or_log(a, b, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digamma_at_integers_is_the_harmonic_sum() {
        assert!((digamma(1.0) + EULER).abs() < 1e-16);
        assert!((digamma(4.0) - (1.5 + 1.0 / 3.0 - EULER)).abs() < 1e-15);
        assert!(digamma(-2.0).is_nan());
        assert_eq!(digamma(-0.0), f64::INFINITY);
    }

    #[test]
    fn beta_of_small_integers() {
        assert!((beta(2.0, 3.0) - 1.0 / 12.0).abs() < 1e-16);
        assert!((betaln(2.0, 3.0) + 12f64.ln()).abs() < 1e-15);
        // B(-3, 2) = (-1)^2 B(2, 2) = 1/6.
        assert!((beta(-3.0, 2.0) - 1.0 / 6.0).abs() < 1e-16);
        assert_eq!(beta(-3.0, 0.5), f64::INFINITY);
    }
}
