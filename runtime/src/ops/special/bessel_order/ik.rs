//! I_v(x) and K_v(x) together for v >= 0, x >= 0, scaled by `exp(-x)` and
//! `exp(x)` so that neither overflows before the caller unscales.

use super::common::{
    cf1, large_x_series, power_series, recur_down, series_suits, temme_gammas, EPS, MAX_ORDER,
    MAX_TERMS,
};
use std::f64::consts::PI;

/// (I_v(x) exp(-x), K_v(x) exp(x)) for v >= 0 and x >= 0 (x finite).
pub(super) fn ik_scaled(v: f64, x: f64) -> (f64, f64) {
    if x == 0.0 {
        return (if v == 0.0 { 1.0 } else { 0.0 }, f64::INFINITY);
    }
    if v > MAX_ORDER {
        return if x < 0.5 * v {
            (0.0, f64::INFINITY)
        } else {
            (f64::NAN, f64::NAN)
        };
    }
    if x > 1000.0 && v * v < 0.5 * x {
        let (k_sum, i_sum) = large_x_series(v, x, true);
        return (
            i_sum / (2.0 * PI * x).sqrt(),
            k_sum * (PI / (2.0 * x)).sqrt(),
        );
    }
    let n = (v + 0.5).floor();
    let mu = v - n;
    let n = n as u64;
    let xi = 1.0 / x;
    let (ratio, _) = cf1(v, x, true);
    let down = recur_down(v, x, n, ratio, 1.0, true);
    let f = down.deriv_mu / down.at_mu;
    let (k_mu, k_mu1) = if x < 2.0 {
        temme_k(mu, x)
    } else {
        steed_k(mu, x)
    };
    let kp_mu = mu * xi * k_mu - k_mu1;
    let i_mu = xi / (f * k_mu - kp_mu);
    let i = if series_suits(v, x) {
        power_series(v, x, true) * (-x).exp()
    } else {
        i_mu * (down.at_v / down.at_mu)
    };
    let two_over_x = 2.0 * xi;
    let (mut lo, mut hi) = (k_mu, k_mu1);
    for step in 1..=n {
        if !lo.is_finite() {
            break;
        }
        let next = (mu + step as f64) * two_over_x * hi + lo;
        lo = hi;
        hi = next;
    }
    (i, lo)
}

/// (K_mu, K_(mu+1)) times exp(x) for |mu| <= 1/2, x < 2 by Temme's series.
fn temme_k(mu: f64, x: f64) -> (f64, f64) {
    let half_x = 0.5 * x;
    let pi_mu = PI * mu;
    let f_pi = if pi_mu.abs() < EPS {
        1.0
    } else {
        pi_mu / pi_mu.sin()
    };
    let d = -half_x.ln();
    let e = mu * d;
    let f_sinh = if e.abs() < EPS { 1.0 } else { e.sinh() / e };
    let (g1, g2, rg_plus, rg_minus) = temme_gammas(mu);
    let mut ff = f_pi * (g1 * e.cosh() + g2 * f_sinh * d);
    let mut sum = ff;
    let e = e.exp();
    let mut p = 0.5 * e / rg_plus;
    let mut q = 0.5 / (e * rg_minus);
    let mut c = 1.0;
    let z = half_x * half_x;
    let mut sum1 = p;
    let mut i = 1.0;
    while i < MAX_TERMS as f64 {
        ff = (i * ff + p + q) / (i * i - mu * mu);
        c *= z / i;
        p /= i - mu;
        q /= i + mu;
        let del = c * ff;
        sum += del;
        sum1 += c * (p - i * ff);
        if del.abs() < sum.abs() * EPS {
            break;
        }
        i += 1.0;
    }
    let scale = x.exp();
    (sum * scale, sum1 * 2.0 / x * scale)
}

/// (K_mu, K_(mu+1)) times exp(x) for x >= 2 by Steed's continued fraction
/// CF2 with Temme's normalisation (its sum of the series' ratios).
fn steed_k(mu: f64, x: f64) -> (f64, f64) {
    let mut b = 2.0 * (1.0 + x);
    let mut d = 1.0 / b;
    let mut h = d;
    let mut del = d;
    let (mut q1, mut q2) = (0.0, 1.0);
    let a1 = 0.25 - mu * mu;
    let mut q = a1;
    let mut c = a1;
    let mut a = -a1;
    let mut s = 1.0 + q * del;
    let mut i = 2.0;
    while i < MAX_TERMS as f64 {
        a -= 2.0 * (i - 1.0);
        c = -a * c / i;
        let q_next = (q1 - b * q2) / a;
        q1 = q2;
        q2 = q_next;
        q += c * q_next;
        b += 2.0;
        d = 1.0 / (b + a * d);
        del *= b * d - 1.0;
        h += del;
        let ds = q * del;
        s += ds;
        if (ds / s).abs() < EPS {
            break;
        }
        i += 1.0;
    }
    let h = a1 * h;
    let k_mu = (PI / (2.0 * x)).sqrt() / s;
    (k_mu, k_mu * (mu + x + 0.5 - h) / x)
}
