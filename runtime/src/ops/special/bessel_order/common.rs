//! The pieces the ordinary and the modified Bessel functions share: Temme's
//! gamma combinations, the continued fraction CF1, the downward recurrence,
//! the power series and the asymptotic series' terms.

/// Relative size at which a series or continued fraction has converged.
pub(super) const EPS: f64 = 1e-16;
/// Stands in for 0 in the modified Lentz algorithm (a denominator never 0).
pub(super) const TINY: f64 = 1e-300;
/// The most terms a continued fraction takes: CF1 needs about x terms.
pub(super) const MAX_TERMS: u32 = 1_000_000;
/// The largest order computed: past it the recurrences would take too long,
/// and only the underflowing limits (x < v / 2) are given; NaN otherwise.
pub(super) const MAX_ORDER: f64 = 1e6;
/// A downward recurrence rescales its values when they pass this.
const RESCALE_ABOVE: f64 = 1e200;
const RESCALE_BY: f64 = 1e-200;

/// Taylor coefficients of `1 / gamma(1 + z)` at 0 (computed with mpmath,
/// rounded to f64); enough for |z| <= 1/2 to an ulp.
const RGAMMA_1P: [f64; 26] = [
    1.0,
    0.5772156649015329,
    -0.6558780715202539,
    -0.04200263503409524,
    0.16653861138229148,
    -0.04219773455554433,
    -0.009621971527876973,
    0.0072189432466631,
    -0.0011651675918590652,
    -0.00021524167411495098,
    0.0001280502823881162,
    -2.013485478078824e-05,
    -1.2504934821426706e-06,
    1.133027231981696e-06,
    -2.056338416977607e-07,
    6.116095104481416e-09,
    5.002007644469223e-09,
    -1.18127457048702e-09,
    1.0434267116911005e-10,
    7.782263439905071e-12,
    -3.696805618642206e-12,
    5.100370287454476e-13,
    -2.0583260535665066e-14,
    -5.348122539423018e-15,
    1.2267786282382608e-15,
    -1.1812593016974588e-16,
];

/// Temme's gamma combinations at |mu| <= 1/2: `g1 = (1/G(1-mu) - 1/G(1+mu))
/// / (2 mu)`, `g2 = (1/G(1-mu) + 1/G(1+mu)) / 2`, `1/G(1+mu)`, `1/G(1-mu)`,
/// from the odd and even halves of the Taylor series (no cancellation at 0).
pub(super) fn temme_gammas(mu: f64) -> (f64, f64, f64, f64) {
    let m2 = mu * mu;
    let mut odd = 0.0;
    let mut even = 0.0;
    for (k, &c) in RGAMMA_1P.iter().enumerate().rev() {
        if k % 2 == 1 {
            odd = odd * m2 + c;
        } else {
            even = even * m2 + c;
        }
    }
    let g1 = -odd;
    let g2 = even;
    (g1, g2, g2 - mu * g1, g2 + mu * g1)
}

/// The ratio `F'_v(x) / F_v(x)` by the continued fraction CF1 (modified
/// Lentz), F = J or, `modified`, I; and whether F_v is negative when its
/// tail F_(v+k), k large, is positive (J's sign, for the recurrence's start).
pub(super) fn cf1(v: f64, x: f64, modified: bool) -> (f64, bool) {
    let xi = 1.0 / x;
    let mut h = (v * xi).max(TINY);
    let mut b = 2.0 * v * xi;
    let mut d = 0.0;
    let mut c = h;
    let mut negative = false;
    for _ in 0..MAX_TERMS {
        b += 2.0 * xi;
        if modified {
            d += b;
            c = b + 1.0 / c;
        } else {
            d = b - d;
            c = b - 1.0 / c;
        }
        if d.abs() < TINY {
            d = TINY;
        }
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let step = c * d;
        h *= step;
        if d < 0.0 {
            negative = !negative;
        }
        if (step - 1.0).abs() < EPS {
            break;
        }
    }
    (h, negative)
}

/// A solution of the recurrence carried down n orders from v: its value and
/// derivative at v - n, and its value at v on the same (rescaled) scale.
pub(super) struct Down {
    pub at_mu: f64,
    pub deriv_mu: f64,
    pub at_v: f64,
}

/// Carries (F, F') = (start, ratio * start) from order v down n orders,
/// for F = J or (`modified`) I, rescaling all three values together before
/// they overflow.
pub(super) fn recur_down(v: f64, x: f64, n: u64, ratio: f64, start: f64, modified: bool) -> Down {
    let xi = 1.0 / x;
    let (mut f, mut fp, mut at_v) = (start, ratio * start, start);
    let mut k_over_x = v * xi;
    for _ in 0..n {
        let lower = k_over_x * f + fp;
        k_over_x -= xi;
        fp = if modified {
            k_over_x * lower + f
        } else {
            k_over_x * lower - f
        };
        f = lower;
        if f.abs() > RESCALE_ABOVE {
            f *= RESCALE_BY;
            fp *= RESCALE_BY;
            at_v *= RESCALE_BY;
        }
    }
    Down {
        at_mu: f,
        deriv_mu: fp,
        at_v,
    }
}

/// Whether the power series of J_v or I_v is the better way: x^2/4 at most
/// (v + 1) / 2, where its terms fall from the first by half at least.
pub(super) fn series_suits(v: f64, x: f64) -> bool {
    0.25 * x * x <= 0.5 * (v + 1.0)
}

/// `(x/2)^v / gamma(v + 1) * sum_k (s x^2/4)^k / (k! (v+1)_k)`, s = -1 for
/// J and +1 for I (v >= 0, x >= 0).
pub(super) fn power_series(v: f64, x: f64, modified: bool) -> f64 {
    let z = if modified {
        0.25 * x * x
    } else {
        -0.25 * x * x
    };
    let (mut term, mut sum) = (1.0, 1.0);
    let mut k = 1.0;
    while k < 500.0 {
        term *= z / (k * (v + k));
        sum += term;
        if term.abs() <= EPS * sum.abs() {
            break;
        }
        k += 1.0;
    }
    if v < 169.0 {
        sum * (0.5 * x).powf(v) / libm::tgamma(v + 1.0)
    } else {
        sum * (v * (0.5 * x).ln() - libm::lgamma(v + 1.0)).exp()
    }
}

/// Hankel's large-argument series `P ~ sum (-1)^k a_2k / x^2k` and
/// `Q ~ sum (-1)^k a_(2k+1) / x^(2k+1)` of order v (`a_k` the products
/// `(4v^2 - 1)(4v^2 - 9)...(4v^2 - (2k-1)^2) / (k! 8^k)`), summed while the
/// terms fall; and, `modified`, the pair `sum a_k / x^k`, `sum (-1)^k a_k / x^k`
/// of I and K instead.
pub(super) fn large_x_series(v: f64, x: f64, modified: bool) -> (f64, f64) {
    let mu = 4.0 * v * v;
    let (mut a, mut b) = if modified { (1.0, 1.0) } else { (1.0, 0.0) };
    let mut term = 1.0;
    let mut last = f64::INFINITY;
    for k in 1..200u32 {
        let odd = (2 * k - 1) as f64;
        term *= (mu - odd * odd) / (k as f64 * 8.0 * x);
        if term.abs() > last {
            break;
        }
        last = term.abs();
        if modified {
            a += term;
            b += if k % 2 == 1 { -term } else { term };
        } else {
            match k % 4 {
                1 => b += term,
                2 => a -= term,
                3 => b -= term,
                _ => a += term,
            }
        }
        if term.abs() < 1e-2 * EPS {
            break;
        }
    }
    (a, b)
}
