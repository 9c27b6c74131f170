//! Distributions sampled element by element on the CPU: element `i` of a
//! draw reads its own Philox substream (block `offset + i`, counter word 2
//! numbering the block's successive words), so rejection samplers give every
//! element a fixed value whatever order elements are computed in.
//! `cuda/rand/dists.cu` runs the same algorithms operation by operation.

use crate::core::element::Element;
use crate::ops::random::{block_words, open_f64, unit_f64, wide, Dist, DistKind};

/// The substream of one element: 64-bit words from successive counters of
/// one Philox block.
pub(crate) struct Substream {
    key: [u32; 2],
    block: u64,
    counter: u32,
    words: [u32; 4],
    next: usize,
}

impl Substream {
    pub(crate) fn new(key: [u32; 2], block: u64) -> Substream {
        Substream {
            key,
            block,
            counter: 0,
            words: [0; 4],
            next: 2,
        }
    }

    fn bits(&mut self) -> u64 {
        if self.next == 2 {
            self.words = block_words(self.key, self.block, self.counter);
            self.counter = self.counter.wrapping_add(1);
            self.next = 0;
        }
        let w = &self.words;
        let x = wide(w[2 * self.next], w[2 * self.next + 1]);
        self.next += 1;
        x
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        unit_f64(self.bits())
    }

    /// Uniform in (0, 1] (safe to take the logarithm of).
    fn open(&mut self) -> f64 {
        open_f64(self.bits())
    }

    /// A standard normal (Box-Muller, the cosine half).
    fn normal(&mut self) -> f64 {
        let u1 = self.open();
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

/// Values `0..n` of `dist` as `T`, element `i` from block `offset + i`.
pub(super) fn fill<T: Element>(dist: Dist, n: usize, key: [u32; 2], offset: u64) -> Vec<T> {
    let int_out = !T::DTYPE.is_float();
    (0..n)
        .map(|i| {
            let mut s = Substream::new(key, offset.wrapping_add(i as u64));
            let x = sample(dist, &mut s);
            T::from_scalar(if int_out {
                crate::Scalar::Int(x as i64)
            } else {
                crate::Scalar::Float(x)
            })
        })
        .collect()
}

/// One value of `dist` from the substream `s` (integers as exact f64).
pub(crate) fn sample(dist: Dist, s: &mut Substream) -> f64 {
    let (a, b) = (dist.a, dist.b);
    match dist.kind {
        DistKind::Gamma => b * standard_gamma(s, a),
        DistKind::Beta => beta(s, a, b),
        DistKind::Poisson => poisson(s, a),
        DistKind::Binomial => binomial(s, a, b),
        DistKind::Geometric => {
            // P(X > k) = P(u < (1-p)^k); u = 1 would give 0, hence the floor of 1.
            let x = (s.open().ln() / (-a).ln_1p()).ceil();
            x.clamp(1.0, I64_MAX)
        }
        DistKind::Laplace => loop {
            let u = s.unit();
            if u >= 0.5 {
                break a - b * (2.0 - u - u).ln();
            }
            if u > 0.0 {
                break a + b * (u + u).ln();
            }
        },
        DistKind::Lognormal => (a + b * s.normal()).exp(),
    }
}

/// i64::MAX as the nearest f64 (2^63): casts saturate there.
const I64_MAX: f64 = 9.223_372_036_854_776e18;

/// Marsaglia and Tsang (2000), boosted by `u^(1/a)` below shape 1.
fn standard_gamma(s: &mut Substream, a: f64) -> f64 {
    if a <= 0.0 {
        return 0.0;
    }
    if a < 1.0 {
        let g = marsaglia_tsang(s, a + 1.0);
        return g * s.open().powf(1.0 / a);
    }
    marsaglia_tsang(s, a)
}

fn marsaglia_tsang(s: &mut Substream, a: f64) -> f64 {
    let d = a - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = s.normal();
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = s.open();
        let x2 = x * x;
        if u < 1.0 - 0.0331 * x2 * x2 || u.ln() < 0.5 * x2 + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

/// Johnk's algorithm when both shapes are at most 1 (a ratio of two gammas
/// would often be 0 / 0 there), else `X / (X + Y)` of two gammas.
fn beta(s: &mut Substream, a: f64, b: f64) -> f64 {
    if a <= 1.0 && b <= 1.0 {
        loop {
            let (u, v) = (s.open(), s.open());
            let x = u.powf(1.0 / a);
            let y = v.powf(1.0 / b);
            let sum = x + y;
            if sum <= 1.0 {
                if sum > 0.0 {
                    return x / sum;
                }
                // Both powers underflowed: the same ratio in logarithms.
                let (lx, ly) = (u.ln() / a, v.ln() / b);
                let m = lx.max(ly);
                let (lx, ly) = (lx - m, ly - m);
                return (lx - (lx.exp() + ly.exp()).ln()).exp();
            }
        }
    }
    let x = standard_gamma(s, a);
    let y = standard_gamma(s, b);
    x / (x + y)
}

/// ln(k!) for a whole k >= 0: exact products below 10, Stirling's series
/// (to x^-7, error below 1e-12) above.
pub(crate) fn log_factorial(k: f64) -> f64 {
    if k < 10.0 {
        let mut p = 1.0;
        let mut i = 2.0;
        while i <= k {
            p *= i;
            i += 1.0;
        }
        return p.ln();
    }
    let x = k + 1.0;
    let r = 1.0 / x;
    let r2 = r * r;
    let series = r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 / 1680.0)));
    (x - 0.5) * x.ln() - x + 0.918_938_533_204_672_8 + series
}

/// Poisson by multiplying uniforms below lam = 10, else Hormann's PTRS
/// (transformed rejection with squeeze, 1993).
fn poisson(s: &mut Substream, lam: f64) -> f64 {
    if lam < 10.0 {
        let limit = (-lam).exp();
        let mut k = 0.0;
        let mut prod = s.unit();
        while prod > limit {
            k += 1.0;
            prod *= s.unit();
        }
        return k;
    }
    let slam = lam.sqrt();
    let loglam = lam.ln();
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    loop {
        let u = s.unit() - 0.5;
        let v = s.unit();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
        if us >= 0.07 && v <= vr {
            return k;
        }
        if k < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        if v.ln() + inv_alpha.ln() - (a / (us * us) + b).ln()
            <= -lam + k * loglam - log_factorial(k)
        {
            return k;
        }
    }
}

/// Binomial by inversion (the pmf walked from 0) when n min(p, q) <= 30, else
/// Hormann's BTRS (1993); p > 1/2 samples n - Binomial(n, 1 - p).
fn binomial(s: &mut Substream, n: f64, p: f64) -> f64 {
    if n == 0.0 || p == 0.0 {
        return 0.0;
    }
    if p == 1.0 {
        return n;
    }
    if p > 0.5 {
        return n - binomial(s, n, 1.0 - p);
    }
    let q = 1.0 - p;
    let np = n * p;
    if np <= 30.0 {
        let q_n = (n * q.ln()).exp();
        // Restart past a bound far in the tail (where the pmf sums lose precision).
        let bound = n.min(np + 10.0 * (np * q + 1.0).sqrt());
        'restart: loop {
            let mut u = s.unit();
            let mut k = 0.0;
            let mut pk = q_n;
            while u > pk {
                u -= pk;
                k += 1.0;
                if k > bound {
                    continue 'restart;
                }
                pk *= (n - k + 1.0) * p / (k * q);
            }
            return k;
        }
    }
    let spq = (np * q).sqrt();
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = np + 0.5;
    let vr = 0.92 - 4.2 / b;
    let alpha = (2.83 + 5.1 / b) * spq;
    let lpq = (p / q).ln();
    let m = ((n + 1.0) * p).floor();
    let h = log_factorial(m) + log_factorial(n - m);
    loop {
        let u = s.unit() - 0.5;
        let v = s.unit();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + c).floor();
        if k < 0.0 || k > n {
            continue;
        }
        if us >= 0.07 && v <= vr {
            return k;
        }
        let v = (v * alpha / (a / (us * us) + b)).ln();
        if v <= h - log_factorial(k) - log_factorial(n - k) + (k - m) * lpq {
            return k;
        }
    }
}
