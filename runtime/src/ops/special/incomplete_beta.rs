//! The regularized incomplete beta function `betainc(a, b, x)` as Cephes'
//! `incbet` computes it (xsf's `incbet.h`): a power series where `b x` is
//! small, else one of two continued fractions, after swapping `a` and `b`
//! (and `x` with `1 - x`) when `x` is past the mean.

use super::gamma_fn::{beta, betaln, MAXGAM, MAXLOG};

const MACHEP: f64 = 1.110_223_024_625_156_5e-16;
/// log(2^-1075): below it the result underflows to 0.
const MINLOG: f64 = -7.451_332_191_019_412e2;
const BIG: f64 = 4.503_599_627_370_496e15;
const BIGINV: f64 = 2.220_446_049_250_313e-16;

/// The power series, for `b x` small and `x` not near 1.
fn pseries(a: f64, b: f64, x: f64) -> f64 {
    let ai = 1.0 / a;
    let mut u = (1.0 - b) * x;
    let mut v = u / (a + 1.0);
    let t1 = v;
    let mut t = u;
    let mut n = 2.0;
    let mut s = 0.0;
    let z = MACHEP * ai;
    while v.abs() > z {
        u = (n - b) * x / n;
        t *= u;
        v = t / (a + n);
        s += v;
        n += 1.0;
    }
    s += t1;
    s += ai;
    let u = a * x.ln();
    if a + b < MAXGAM && u.abs() < MAXLOG {
        (s * (1.0 / beta(a, b))) * x.powf(a)
    } else {
        let t = -betaln(a, b) + u + s.ln();
        if t < MINLOG {
            0.0
        } else {
            t.exp()
        }
    }
}

/// The state of a continued fraction's convergents `p/q`, rescaled to stay
/// in range.
struct Convergents {
    pkm2: f64,
    pkm1: f64,
    qkm2: f64,
    qkm1: f64,
}

impl Convergents {
    /// Applies the partial numerator `xk` and returns the new `(p, q)`.
    fn step(&mut self, xk: f64) -> (f64, f64) {
        let pk = self.pkm1 + self.pkm2 * xk;
        let qk = self.qkm1 + self.qkm2 * xk;
        self.pkm2 = self.pkm1;
        self.pkm1 = pk;
        self.qkm2 = self.qkm1;
        self.qkm1 = qk;
        (pk, qk)
    }
    fn scale(&mut self, f: f64) {
        self.pkm2 *= f;
        self.pkm1 *= f;
        self.qkm2 *= f;
        self.qkm1 *= f;
    }
}

/// One of Cephes' two continued fractions (`incbcf` when `second` is false,
/// `incbd` otherwise): both evaluate pairs of partial numerators whose
/// coefficients move by fixed steps.
fn continued_fraction(a: f64, b: f64, x: f64, second: bool) -> f64 {
    // incbcf: k = (a, a+b, a, a+1, 1, b-1, a+1, a+2), k2 up, k6 down, in x.
    // incbd: k = (a, b-1, a, a+1, 1, a+b, a+1, a+2), k2 down, k6 up, in x/(1-x).
    let (z, mut k2, mut k6, d2, d6) = if second {
        (x / (1.0 - x), b - 1.0, a + b, -1.0, 1.0)
    } else {
        (x, a + b, b - 1.0, 1.0, -1.0)
    };
    let (mut k1, mut k3, mut k4, mut k5, mut k7, mut k8) = (a, a, a + 1.0, 1.0, a + 1.0, a + 2.0);
    let mut c = Convergents {
        pkm2: 0.0,
        pkm1: 1.0,
        qkm2: 1.0,
        qkm1: 1.0,
    };
    let (mut ans, mut r) = (1.0, 1.0);
    let thresh = 3.0 * MACHEP;
    for _ in 0..300 {
        c.step(-(z * k1 * k2) / (k3 * k4));
        let (pk, qk) = c.step((z * k5 * k6) / (k7 * k8));
        if qk != 0.0 {
            r = pk / qk;
        }
        let t = if r != 0.0 {
            let t = ((ans - r) / r).abs();
            ans = r;
            t
        } else {
            1.0
        };
        if t < thresh {
            break;
        }
        k1 += 1.0;
        k2 += d2;
        k3 += 2.0;
        k4 += 2.0;
        k5 += 1.0;
        k6 += d6;
        k7 += 2.0;
        k8 += 2.0;
        if qk.abs() + pk.abs() > BIG {
            c.scale(BIGINV);
        }
        if qk.abs() < BIGINV || pk.abs() < BIGINV {
            c.scale(BIG);
        }
    }
    ans
}

/// The values outside the interior (positive finite `a` and `b`, `0 < x <
/// 1`), as SciPy gives them (Boost's conventions): a point mass at 0 where
/// `a = 0` or `b = inf`, at 1 where `b = 0` or `a = inf`, NaN where both or
/// any argument is NaN, negative, or `x` outside [0, 1].
fn betainc_edges(a: f64, b: f64, x: f64) -> Option<f64> {
    let undefined = a.is_nan() || b.is_nan() || x.is_nan() || a < 0.0 || b < 0.0;
    let outside = !(0.0..=1.0).contains(&x);
    let both_masses = (a == 0.0 && b == 0.0) || (a.is_infinite() && b.is_infinite());
    if undefined || outside || both_masses {
        Some(f64::NAN)
    } else if x == 0.0 {
        Some(0.0)
    } else if x == 1.0 || a == 0.0 || b.is_infinite() {
        Some(1.0)
    } else if b == 0.0 || a.is_infinite() {
        Some(0.0)
    } else {
        None
    }
}

/// The regularized incomplete beta function `I_x(a, b)`.
pub(super) fn betainc(aa: f64, bb: f64, xx: f64) -> f64 {
    if let Some(v) = betainc_edges(aa, bb, xx) {
        return v;
    }
    if bb * xx <= 1.0 && xx <= 0.95 {
        return pseries(aa, bb, xx);
    }
    // Past the mean, compute the complement with a and b swapped.
    let swapped = xx > aa / (aa + bb);
    let (a, b, x, xc) = if swapped {
        (bb, aa, 1.0 - xx, xx)
    } else {
        (aa, bb, xx, 1.0 - xx)
    };
    let t = if swapped && b * x <= 1.0 && x <= 0.95 {
        pseries(a, b, x)
    } else {
        let w = if x * (a + b - 2.0) - (a - 1.0) < 0.0 {
            continued_fraction(a, b, x, false)
        } else {
            continued_fraction(a, b, x, true) / xc
        };
        // w x^a (1-x)^b / (a B(a, b)), in logarithms where the powers or
        // gamma functions leave the range.
        let y = a * x.ln();
        let t = b * xc.ln();
        if a + b < MAXGAM && y.abs() < MAXLOG && t.abs() < MAXLOG {
            xc.powf(b) * x.powf(a) / a * w * (1.0 / beta(a, b))
        } else {
            let y = y + (t - betaln(a, b));
            let y = y + (w / a).ln();
            if y < MINLOG {
                0.0
            } else {
                y.exp()
            }
        }
    };
    if !swapped {
        t
    } else if t <= MACHEP {
        1.0 - MACHEP
    } else {
        1.0 - t
    }
}
