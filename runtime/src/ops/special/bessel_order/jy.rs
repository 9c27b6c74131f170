//! J_v(x) and Y_v(x) together for v >= 0, x >= 0.

use super::common::{
    cf1, large_x_series, power_series, recur_down, series_suits, temme_gammas, EPS, MAX_ORDER,
    MAX_TERMS, TINY,
};
use std::f64::consts::PI;

/// From here on J and Y come from Hankel's expansion at orders near 0.
const HANKEL_FROM: f64 = 25.0;

/// (J_v(x), Y_v(x)) for v >= 0 and x >= 0 (x finite).
pub(super) fn jy(v: f64, x: f64) -> (f64, f64) {
    if x == 0.0 {
        return (if v == 0.0 { 1.0 } else { 0.0 }, f64::NEG_INFINITY);
    }
    if v > MAX_ORDER {
        return if x < 0.5 * v {
            (0.0, f64::NEG_INFINITY)
        } else {
            (f64::NAN, f64::NAN)
        };
    }
    if x >= HANKEL_FROM {
        return jy_large_x(v, x);
    }
    let (j, y) = jy_steed_temme(v, x);
    if series_suits(v, x) {
        (power_series(v, x, false), y)
    } else {
        (j, y)
    }
}

/// Carries (Y_mu, Y_(mu+1)) up n - 1 orders to (Y_(mu+n-1), Y_(mu+n)),
/// stopping at an overflow (Y is then -inf, correctly).
fn recur_up(mu: f64, x: f64, n: u64, mut lo: f64, mut hi: f64) -> (f64, f64) {
    let two_over_x = 2.0 / x;
    for i in 1..n {
        if !hi.is_finite() {
            break;
        }
        let next = (mu + i as f64) * two_over_x * hi - lo;
        lo = hi;
        hi = next;
    }
    (lo, hi)
}

/// (J_mu, Y_mu) by Hankel's expansion, the phase `x - (mu/2 + 1/4) pi`
/// taken apart so that x needs no reduction of its own.
fn hankel(mu: f64, x: f64) -> (f64, f64) {
    let (p, q) = large_x_series(mu, x, false);
    let c = (0.5 * mu + 0.25) * PI;
    let (sx, cx) = x.sin_cos();
    let (sc, cc) = c.sin_cos();
    let cos_chi = cx * cc + sx * sc;
    let sin_chi = sx * cc - cx * sc;
    let s = (2.0 / (PI * x)).sqrt();
    (
        s * (p * cos_chi - q * sin_chi),
        s * (p * sin_chi + q * cos_chi),
    )
}

/// x >= 25: Hankel at mu = v - round(v) and mu + 1; Y recurs up; J recurs
/// up while the order stays below x (where the recurrence is neutral), and
/// otherwise comes down from CF1 at v, fitted to both Hankel values.
fn jy_large_x(v: f64, x: f64) -> (f64, f64) {
    let n = (v + 0.5).floor();
    let mu = v - n;
    let n = n as u64;
    let (j0, y0) = hankel(mu, x);
    if n == 0 {
        return (j0, y0);
    }
    let (j1, y1) = hankel(mu + 1.0, x);
    let y = recur_up(mu, x, n, y0, y1).1;
    if v <= x {
        return (recur_up(mu, x, n, j0, j1).1, y);
    }
    let (ratio, negative) = cf1(v, x, false);
    let down = recur_down(v, x, n, ratio, if negative { -1.0 } else { 1.0 }, false);
    let g0 = down.at_mu;
    let g1 = mu / x * g0 - down.deriv_mu;
    let scale = (g0 * j0 + g1 * j1) / (g0 * g0 + g1 * g1);
    (down.at_v * scale, y)
}

/// 0 < x < 25: Temme's series (x < 2) or Steed's CF2 at mu, CF1 at v.
fn jy_steed_temme(v: f64, x: f64) -> (f64, f64) {
    let n = if x < 2.0 {
        (v + 0.5).floor()
    } else {
        (v - x + 1.5).floor().max(0.0)
    };
    let mu = v - n;
    let n = n as u64;
    let xi = 1.0 / x;
    let wronskian = 2.0 * xi / PI;
    let (ratio, negative) = cf1(v, x, false);
    let down = recur_down(v, x, n, ratio, if negative { -1.0 } else { 1.0 }, false);
    let at_mu = if down.at_mu == 0.0 { EPS } else { down.at_mu };
    let f = down.deriv_mu / at_mu;
    let (j_mu, y_mu, y_mu1) = if x < 2.0 {
        let (y_mu, y_mu1) = temme_y(mu, x);
        let yp_mu = mu * xi * y_mu - y_mu1;
        (wronskian / (yp_mu - f * y_mu), y_mu, y_mu1)
    } else {
        let (p, q) = steed_cf2(mu, x);
        let gam = (p - f) / q;
        let j_mu = (wronskian / ((p - f) * gam + q)).sqrt().copysign(at_mu);
        let y_mu = j_mu * gam;
        let yp_mu = y_mu * (p + q / gam);
        (j_mu, y_mu, mu * xi * y_mu - yp_mu)
    };
    let j = down.at_v * (j_mu / at_mu);
    let y = if n == 0 {
        y_mu
    } else {
        recur_up(mu, x, n, y_mu, y_mu1).1
    };
    (j, y)
}

/// (Y_mu, Y_(mu+1)) for |mu| <= 1/2, x < 2 by Temme's series.
fn temme_y(mu: f64, x: f64) -> (f64, f64) {
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
    let mut ff = 2.0 / PI * f_pi * (g1 * e.cosh() + g2 * f_sinh * d);
    let e = e.exp();
    let mut p = e / (rg_plus * PI);
    let mut q = 1.0 / (e * PI * rg_minus);
    let half_pi_mu = 0.5 * pi_mu;
    let f_sin = if half_pi_mu.abs() < EPS {
        1.0
    } else {
        half_pi_mu.sin() / half_pi_mu
    };
    let r = PI * half_pi_mu * f_sin * f_sin;
    let mut c = 1.0;
    let z = -half_x * half_x;
    let mut sum = ff + r * q;
    let mut sum1 = p;
    let mut i = 1.0;
    while i < MAX_TERMS as f64 {
        ff = (i * ff + p + q) / (i * i - mu * mu);
        c *= z / i;
        p /= i - mu;
        q /= i + mu;
        let del = c * (ff + r * q);
        sum += del;
        sum1 += c * p - i * del;
        if del.abs() < (1.0 + sum.abs()) * EPS {
            break;
        }
        i += 1.0;
    }
    (-sum, -sum1 * 2.0 / x)
}

/// Steed's complex continued fraction CF2: `p + i q = (J'_mu + i Y'_mu) /
/// (J_mu + i Y_mu)`, for x >= 2.
fn steed_cf2(mu: f64, x: f64) -> (f64, f64) {
    let xi = 1.0 / x;
    let mut a = 0.25 - mu * mu;
    let (mut p, mut q) = (-0.5 * xi, 1.0);
    let br = 2.0 * x;
    let mut bi = 2.0;
    let fact = a * xi / (p * p + q * q);
    let (mut cr, mut ci) = (br + q * fact, bi + p * fact);
    let den = br * br + bi * bi;
    let (mut dr, mut di) = (br / den, -bi / den);
    let (mut dlr, mut dli) = (cr * dr - ci * di, cr * di + ci * dr);
    let t = p * dlr - q * dli;
    q = p * dli + q * dlr;
    p = t;
    let mut i = 2.0;
    while i < MAX_TERMS as f64 {
        a += 2.0 * (i - 1.0);
        bi += 2.0;
        dr = a * dr + br;
        di = a * di + bi;
        if dr.abs() + di.abs() < TINY {
            dr = TINY;
        }
        let fact = a / (cr * cr + ci * ci);
        cr = br + cr * fact;
        ci = bi - ci * fact;
        if cr.abs() + ci.abs() < TINY {
            cr = TINY;
        }
        let den = dr * dr + di * di;
        dr /= den;
        di = -di / den;
        dlr = cr * dr - ci * di;
        dli = cr * di + ci * dr;
        let t = p * dlr - q * dli;
        q = p * dli + q * dlr;
        p = t;
        if (dlr - 1.0).abs() + dli.abs() < EPS {
            break;
        }
        i += 1.0;
    }
    (p, q)
}
