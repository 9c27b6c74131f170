//! Shared types of the random number generators: what to draw, the
//! Philox4x32-10 generator and the transformations of its words (the CPU
//! backend's draws and the front end's host draws; the CUDA kernels mirror
//! them), and the backend trait.

use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::storage::Storage;

/// What to draw; the parameters are already validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Draw {
    /// `low + span * u`, u uniform in [0, 1).
    Uniform { low: f64, span: f64 },
    /// `loc + scale * z`, z standard normal.
    Normal { loc: f64, scale: f64 },
    /// `scale * e`, e standard exponential.
    Exponential { scale: f64 },
    /// `low + k`, k uniform in `0..range` (range >= 1).
    Integers { low: i64, range: u64 },
    /// One value of `Dist` per Philox block: element `i` draws from its own
    /// substream (block `offset + i`, counter word 2 counting its draws), so
    /// rejection samplers need no coordination between elements.
    Sample(Dist),
}

/// A distribution sampled element by element (`cpu/random/dists.rs` and
/// `cuda/rand/dists.cu` implement the same algorithms), with its validated
/// parameters `a` and `b` (integer ones as f64, unused ones 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Dist {
    pub kind: DistKind,
    pub a: f64,
    pub b: f64,
}

/// Which distribution a [`Dist`] is, and what its parameters mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum DistKind {
    /// `b * G`, G standard gamma of shape `a >= 0` (Marsaglia-Tsang).
    Gamma,
    /// Beta(a, b), a, b > 0 (Johnk for a, b <= 1, else a ratio of gammas).
    Beta,
    /// Poisson(a), a >= 0 (multiplication below 10, PTRS above).
    Poisson,
    /// Binomial(n = a, p = b) (inversion for n min(p, 1-p) <= 30, BTRS above).
    Binomial,
    /// Trials to the first success, p = a in (0, 1] (inversion).
    Geometric,
    /// Laplace(loc = a, scale = b) (inversion).
    Laplace,
    /// `exp(a + b z)`, z standard normal.
    Lognormal,
}

impl Draw {
    /// Values made from one Philox block: 4 from 32-bit words, 2 from 64-bit.
    pub(crate) fn per_block(self, dtype: DType) -> usize {
        match self {
            Draw::Sample(_) => 1,
            Draw::Integers { range, .. } => {
                if range <= u32::MAX as u64 {
                    4
                } else {
                    2
                }
            }
            _ => {
                if dtype == DType::Float32 {
                    4
                } else {
                    2
                }
            }
        }
    }
}

/// Random draws into buffers (generated Philox kernels on CUDA).
/// The backend trait of this op family (see `ops::backend`).
pub(crate) trait Random {
    /// A new buffer of `len` values of `draw` in `dtype`, from Philox block
    /// `offset` of the stream keyed by `key` on (the same values on every
    /// backend). A new buffer, filled as it is made: the CPU builds its
    /// vector in place rather than zeroing one and writing it again.
    fn draw(&self, op: &'static str, job: DrawJob) -> Result<Storage>;
}

/// One draw: `len` values of `draw` as `dtype`, from Philox stream `key`
/// starting at block `offset`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DrawJob {
    pub draw: Draw,
    pub dtype: DType,
    pub len: usize,
    pub key: [u32; 2],
    pub offset: u64,
}

// ---------------------------------------------------------------------------
// Philox4x32-10
// ---------------------------------------------------------------------------

const PHILOX_M0: u32 = 0xD251_1F53;
const PHILOX_M1: u32 = 0xCD9E_8D57;
const PHILOX_W0: u32 = 0x9E37_79B9;
const PHILOX_W1: u32 = 0xBB67_AE85;

/// Philox4x32 with 10 rounds: four 32-bit words from a 128-bit counter and
/// a 64-bit key (Random123's `philox4x32_R(10, ctr, key)`).
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut c = counter;
    let mut k = key;
    for round in 0..10 {
        if round > 0 {
            k[0] = k[0].wrapping_add(PHILOX_W0);
            k[1] = k[1].wrapping_add(PHILOX_W1);
        }
        let p0 = (PHILOX_M0 as u64) * (c[0] as u64);
        let p1 = (PHILOX_M1 as u64) * (c[2] as u64);
        let (hi0, lo0) = ((p0 >> 32) as u32, p0 as u32);
        let (hi1, lo1) = ((p1 >> 32) as u32, p1 as u32);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// The four words of block `block`, attempt `attempt` (0 for first draws).
#[inline]
pub(crate) fn block_words(key: [u32; 2], block: u64, attempt: u32) -> [u32; 4] {
    philox4x32_10([block as u32, (block >> 32) as u32, attempt, 0], key)
}

// ---------------------------------------------------------------------------
// Distributions (shared with the CUDA kernels)
// ---------------------------------------------------------------------------

pub(crate) const TWO_M24: f32 = 1.0 / 16_777_216.0;
pub(crate) const TWO_M53: f64 = 1.0 / 9_007_199_254_740_992.0;

#[inline]
pub(crate) fn wide(hi: u32, lo: u32) -> u64 {
    ((hi as u64) << 32) | lo as u64
}

/// Uniform in [0, 1) from the top 24 bits of a word.
#[inline]
pub(crate) fn unit_f32(w: u32) -> f32 {
    (w >> 8) as f32 * TWO_M24
}
/// Uniform in (0, 1] from the top 24 bits of a word.
#[inline]
pub(crate) fn open_f32(w: u32) -> f32 {
    ((w >> 8) + 1) as f32 * TWO_M24
}
/// Uniform in [0, 1) from the top 53 bits of two words.
#[inline]
pub(crate) fn unit_f64(x: u64) -> f64 {
    (x >> 11) as f64 * TWO_M53
}
/// Uniform in (0, 1] from the top 53 bits of two words.
#[inline]
pub(crate) fn open_f64(x: u64) -> f64 {
    ((x >> 11) + 1) as f64 * TWO_M53
}

/// Lemire's bounded integer in `0..range` for 32-bit ranges, redrawing
/// rejected values from attempts 1, 2, ... of the same block and lane.
pub(crate) fn bounded32(key: [u32; 2], block: u64, lane: usize, first: u32, range: u64) -> u64 {
    let r = range as u32;
    let threshold = r.wrapping_neg() % r;
    let mut x = first;
    let mut attempt = 0u32;
    loop {
        let m = x as u64 * r as u64;
        if (m as u32) >= threshold {
            return m >> 32;
        }
        attempt += 1;
        x = block_words(key, block, attempt)[lane];
    }
}

/// Lemire's bounded integer in `0..range` for 64-bit ranges (lanes 0 and 1
/// are words (0, 1) and (2, 3)).
pub(crate) fn bounded64(key: [u32; 2], block: u64, lane: usize, first: u64, range: u64) -> u64 {
    let threshold = range.wrapping_neg() % range;
    let mut x = first;
    let mut attempt = 0u32;
    loop {
        let m = x as u128 * range as u128;
        if (m as u64) >= threshold {
            return (m >> 64) as u64;
        }
        attempt += 1;
        let w = block_words(key, block, attempt);
        x = wide(w[2 * lane], w[2 * lane + 1]);
    }
}

/// Two standard normals from two words (single precision).
pub(crate) fn box_muller_f32(w1: u32, w2: u32) -> (f32, f32) {
    let u1 = open_f32(w1) as f64;
    let u2 = unit_f32(w2) as f64;
    let r = (-2.0 * u1.ln()).sqrt();
    let (s, c) = (2.0 * std::f64::consts::PI * u2).sin_cos();
    ((r * c) as f32, (r * s) as f32)
}

/// Two standard normals from two 64-bit values (double precision).
pub(crate) fn box_muller_f64(x1: u64, x2: u64) -> (f64, f64) {
    let u1 = open_f64(x1);
    let u2 = unit_f64(x2);
    let r = (-2.0 * u1.ln()).sqrt();
    let (s, c) = (2.0 * std::f64::consts::PI * u2).sin_cos();
    (r * c, r * s)
}
