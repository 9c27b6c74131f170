//! Random numbers, as `cupy.random`: a [`Generator`] from [`default_rng`]
//! and the legacy functions ([`seed`], [`rand`], [`randn`], [`randint`])
//! over one process-wide generator.
//!
//! As in NumPy, floats default to float64 and integers to int64; each
//! method has an `_as` form taking the dtype (float32 or float64 for
//! floats, int8 to uint64 for integers): `rng.random_as(shape, cp::f32)`.
//!
//! ```
//! use cuprite as cp;
//! let mut rng = cp::random::default_rng(42);
//! let u = rng.random([1000])?;                 // float64, uniform in [0, 1)
//! let z = rng.normal(0.0, 2.0, [10, 10])?;     // float64, N(0, 2^2)
//! let k = rng.integers(0, 6, 100)?;            // int64, 0..=5
//! let h = rng.standard_normal_as(8, cp::f32)?; // every method has an `_as(.., dtype)` form
//! let p = rng.permutation(10)?;                // int64, a shuffle of 0..10
//! assert_eq!(u.shape(), &[1000]);
//! assert_eq!(h.dtype(), cp::f32);
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! # The generator
//! Every number comes from Philox4x32-10 (Salmon et al., "Parallel random
//! numbers: as easy as 1, 2, 3", SC 2011), a counter-based generator: block
//! `b` of the stream is `philox(counter = (b mod 2^32, b / 2^32, 0, 0), key
//! = seed)`, four 32-bit words. A [`Generator`] holds the key and the index
//! of the next unused block; each call uses blocks from there on and moves
//! the index past them, so results depend only on the seed and the calls
//! made before. Arrays are made on the current device: on the CPU by Rust
//! code, on a GPU by a generated CUDA kernel computing the same function.
//!
//! # Same numbers on every backend
//! Because both backends evaluate the same counter-based function, a seed
//! gives **the same stream on the CPU and on a GPU**: integers, uniform
//! floats, permutations and choices are bit-identical; normal and
//! exponential values agree to a few units in the last place (the GPU's
//! `log`, `sqrt` and `sincospi` round differently from Rust's). Streams are
//! *not* those of NumPy or CuPy (which use other generators and
//! transformations).
//!
//! # Transformations
//! - float32 uniform: the top 24 bits of one word, `k * 2^-24`; float64: the
//!   top 53 bits of two words, `k * 2^-53`. Both lie in [0, 1).
//! - normal: Box-Muller on two uniforms (`u1` in (0, 1]), both outputs used.
//! - exponential: `-log(u)` with `u` in (0, 1].
//! - integers: Lemire's multiply-and-reject (unbiased); ranges up to 2^32 - 1
//!   take one word per value, wider ranges two. A rejected draw is redrawn
//!   from counter word 2 = attempt number, so the result of every position
//!   is still a fixed function of (seed, position).
//! - permutation / shuffle / choice without replacement: Fisher-Yates on the
//!   host with bounded integers from the stream, moved to the device.
//! - gamma, beta, chi-square, lognormal, Laplace, Poisson, binomial and
//!   geometric (`rng.gamma(shape, scale, size)`, ...): element `i` draws
//!   from its own substream (block `position + i`, counter word 2 counting
//!   its words), so rejection samplers (Marsaglia-Tsang gamma, PTRS Poisson,
//!   BTRS binomial) run in one kernel without coordination. CPU and GPU use
//!   the same uniforms and algorithms: the values agree but for last-place
//!   rounding of `log`/`exp`/`pow`, which very rarely flips an acceptance
//!   test (then one element differs, equal in distribution). The
//!   multivariate normal is `mean + z Lᵀ` with `L = cholesky(cov)`.

mod dists;

use std::sync::{Mutex, OnceLock};

use crate::api::creation::IntoShape;
use crate::backend::probe::current_device;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
pub use crate::ops::random::philox4x32_10;
use crate::ops::random::Dist;
pub(crate) use crate::ops::random::{block_words, bounded64, wide};
pub(crate) use crate::ops::Draw;

// ---------------------------------------------------------------------------
// Generator
// ---------------------------------------------------------------------------

/// A seeded random generator (`cupy.random.Generator`): Philox4x32-10 keyed
/// by the seed, with the index of the next unused block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generator {
    key: [u32; 2],
    offset: u64,
}

/// A generator seeded with `seed` (`cupy.random.default_rng(seed)`).
pub fn default_rng(seed: u64) -> Generator {
    Generator::new(seed)
}

fn check_float(op: &'static str, dtype: DType) -> Result<()> {
    if matches!(dtype, DType::Float32 | DType::Float64) {
        Ok(())
    } else {
        Err(Error::DType {
            op,
            detail: format!("dtype must be float32 or float64, got {dtype}"),
        })
    }
}

fn check_finite(op: &'static str, name: &str, v: f64) -> Result<()> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            op,
            detail: format!("{name} must be finite, got {v}"),
        })
    }
}

impl Generator {
    /// A generator seeded with `seed` (the key of the Philox stream).
    pub fn new(seed: u64) -> Generator {
        Generator {
            key: [seed as u32, (seed >> 32) as u32],
            offset: 0,
        }
    }

    /// The seed this generator was made with.
    pub fn seed(&self) -> u64 {
        wide(self.key[1], self.key[0])
    }

    /// The index of the next unused Philox block (how far the stream has advanced).
    pub fn position(&self) -> u64 {
        self.offset
    }

    /// Moves the stream to block `position` (for skipping ahead or replaying).
    pub fn set_position(&mut self, position: u64) {
        self.offset = position;
    }

    /// Draws `shape` values of `draw` on the current device and advances.
    fn draw(
        &mut self,
        op: &'static str,
        draw: Draw,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Array> {
        let n = crate::core::layout::checked_size(op, shape)?;
        let device = current_device();
        let offset = self.offset;
        let blocks = n.div_ceil(draw.per_block(dtype)) as u64;
        let job = crate::ops::random::DrawJob {
            draw,
            dtype,
            len: n,
            key: self.key,
            offset,
        };
        let storage = crate::backend::on(op, device)?.draw(op, job)?;
        self.offset = offset.wrapping_add(blocks);
        Ok(Array::from_parts(storage, Layout::contiguous(shape), dtype))
    }

    /// How many values of `dtype` (float32 or float64) [`Generator::random_as`]
    /// takes from one Philox block: drawing part of a stream (a distributed
    /// array's block) starts at the block that holds its first value.
    pub fn values_per_block(dtype: DType) -> usize {
        Draw::Uniform {
            low: 0.0,
            span: 1.0,
        }
        .per_block(dtype)
    }

    /// Uniform float64 values in [0, 1) (`rng.random(size)`).
    pub fn random(&mut self, shape: impl IntoShape) -> Result<Array> {
        self.random_as(shape, DType::Float64)
    }

    /// Uniform float64 values in [low, high) (`rng.uniform(low, high, size)`).
    pub fn uniform(&mut self, low: f64, high: f64, shape: impl IntoShape) -> Result<Array> {
        self.uniform_as(low, high, shape, DType::Float64)
    }

    /// Standard normal float64 values (`rng.standard_normal(size)`).
    pub fn standard_normal(&mut self, shape: impl IntoShape) -> Result<Array> {
        self.standard_normal_as(shape, DType::Float64)
    }

    /// Normal float64 values, mean `loc`, standard deviation `scale`
    /// (`rng.normal(loc, scale, size)`).
    pub fn normal(&mut self, loc: f64, scale: f64, shape: impl IntoShape) -> Result<Array> {
        self.normal_as(loc, scale, shape, DType::Float64)
    }

    /// Exponential float64 values with mean `scale` (`rng.exponential(scale, size)`).
    pub fn exponential(&mut self, scale: f64, shape: impl IntoShape) -> Result<Array> {
        self.exponential_as(scale, shape, DType::Float64)
    }

    /// int64 values in [low, high) (`rng.integers(low, high, size)`).
    pub fn integers(&mut self, low: i64, high: i64, shape: impl IntoShape) -> Result<Array> {
        self.integers_as(low, high, shape, DType::Int64)
    }

    /// Uniform values in [0, 1) (`rng.random(size, dtype)`); dtype float32 or float64.
    pub fn random_as(&mut self, shape: impl IntoShape, dtype: DType) -> Result<Array> {
        check_float("Generator::random", dtype)?;
        let d = Draw::Uniform {
            low: 0.0,
            span: 1.0,
        };
        self.draw("Generator::random", d, &shape.into_shape(), dtype)
    }

    /// Uniform values in [low, high) (`rng.uniform(low, high, size)`).
    pub fn uniform_as(
        &mut self,
        low: f64,
        high: f64,
        shape: impl IntoShape,
        dtype: DType,
    ) -> Result<Array> {
        let op = "Generator::uniform";
        check_float(op, dtype)?;
        check_finite(op, "low", low)?;
        check_finite(op, "high", high)?;
        if low >= high {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("low ({low}) must be less than high ({high})"),
            });
        }
        let d = Draw::Uniform {
            low,
            span: high - low,
        };
        self.draw(op, d, &shape.into_shape(), dtype)
    }

    /// Standard normal values (`rng.standard_normal(size, dtype)`).
    pub fn standard_normal_as(&mut self, shape: impl IntoShape, dtype: DType) -> Result<Array> {
        check_float("Generator::standard_normal", dtype)?;
        let d = Draw::Normal {
            loc: 0.0,
            scale: 1.0,
        };
        self.draw("Generator::standard_normal", d, &shape.into_shape(), dtype)
    }

    /// Normal values with mean `loc` and standard deviation `scale >= 0`
    /// (`rng.normal(loc, scale, size)`).
    pub fn normal_as(
        &mut self,
        loc: f64,
        scale: f64,
        shape: impl IntoShape,
        dtype: DType,
    ) -> Result<Array> {
        let op = "Generator::normal";
        check_float(op, dtype)?;
        check_finite(op, "loc", loc)?;
        check_finite(op, "scale", scale)?;
        if scale < 0.0 {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("scale must be non-negative, got {scale}"),
            });
        }
        self.draw(op, Draw::Normal { loc, scale }, &shape.into_shape(), dtype)
    }

    /// Exponential values with mean `scale >= 0` (`rng.exponential(scale, size)`).
    pub fn exponential_as(
        &mut self,
        scale: f64,
        shape: impl IntoShape,
        dtype: DType,
    ) -> Result<Array> {
        let op = "Generator::exponential";
        check_float(op, dtype)?;
        check_finite(op, "scale", scale)?;
        if scale < 0.0 {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("scale must be non-negative, got {scale}"),
            });
        }
        self.draw(op, Draw::Exponential { scale }, &shape.into_shape(), dtype)
    }

    /// Integers in [low, high) of an integer `dtype` (`rng.integers(low, high,
    /// size, dtype)`), without modulo bias. Both bounds must fit the dtype.
    pub fn integers_as(
        &mut self,
        low: i64,
        high: i64,
        shape: impl IntoShape,
        dtype: DType,
    ) -> Result<Array> {
        let op = "Generator::integers";
        let draw = int_draw(op, low, high, dtype)?;
        self.draw(op, draw, &shape.into_shape(), dtype)
    }

    /// `count` bounded integers, the `i`-th in `0..bounds(i)`, drawn on the host.
    fn bounded_host(&mut self, count: usize, bound: impl Fn(usize) -> u64) -> Vec<u64> {
        let key = self.key;
        let offset = self.offset;
        let out = (0..count)
            .map(|i| {
                let block = offset.wrapping_add((i / 2) as u64);
                let lane = i % 2;
                let w = block_words(key, block, 0);
                bounded64(
                    key,
                    block,
                    lane,
                    wide(w[2 * lane], w[2 * lane + 1]),
                    bound(i),
                )
            })
            .collect();
        self.offset = offset.wrapping_add(count.div_ceil(2) as u64);
        out
    }

    /// The first `k` entries of a random permutation of `0..n` (partial
    /// Fisher-Yates on the host).
    fn partial_permutation(&mut self, n: usize, k: usize) -> Vec<i64> {
        let mut p: Vec<i64> = (0..n as i64).collect();
        let draws = self.bounded_host(k.min(n.saturating_sub(1)), |i| (n - i) as u64);
        for (i, &d) in draws.iter().enumerate() {
            p.swap(i, i + d as usize);
        }
        p.truncate(k);
        p
    }

    /// A random permutation of `0..n` as int64 (`rng.permutation(n)`).
    pub fn permutation(&mut self, n: usize) -> Result<Array> {
        let op = "Generator::permutation";
        current_device().check_available(op)?;
        crate::core::layout::check_host_room(op, n, 8)?;
        let p = self.partial_permutation(n, n);
        Array::from_vec_shape(p, &[n])
    }

    /// A copy of `x` with its first axis shuffled (`rng.permutation(x)`).
    pub fn permuted(&mut self, x: &Array) -> Result<Array> {
        let op = "Generator::permuted";
        let n = first_axis(op, x)?;
        let p = crate::backend::probe::with_device(x.device(), || self.permutation(n))?;
        x.take(p, Some(0))
    }

    /// Shuffles `x` in place along its first axis (`rng.shuffle(x)`).
    pub fn shuffle(&mut self, x: &mut Array) -> Result<()> {
        let shuffled = self.permuted(x)?;
        x.assign(&shuffled)
    }

    /// Random indices into `0..n` as int64 (`rng.choice(n, size, replace)`):
    /// independent draws with replacement, distinct ones without.
    pub fn choice(&mut self, n: usize, shape: impl IntoShape, replace: bool) -> Result<Array> {
        let op = "Generator::choice";
        let shape = shape.into_shape();
        let k = crate::core::layout::checked_size(op, &shape)?;
        if n == 0 && k > 0 {
            return Err(Error::InvalidArgument {
                op,
                detail: "cannot choose from an empty population".into(),
            });
        }
        if replace {
            if k == 0 {
                return crate::zeros(shape.as_slice(), DType::Int64);
            }
            let high = i64::try_from(n).map_err(|_| Error::InvalidArgument {
                op,
                detail: format!("population {n} is too large"),
            })?;
            return self.integers_as(0, high, shape.as_slice(), DType::Int64);
        }
        if k > n {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "cannot take {k} distinct samples (shape {}) from a population of {n} without replacement",
                    fmt_shape(&shape)
                ),
            });
        }
        current_device().check_available(op)?;
        crate::core::layout::check_host_room(op, n, 8)?;
        let p = self.partial_permutation(n, k);
        Array::from_vec_shape(p, &shape)
    }

    /// Random elements of the 1-D array `a` (`rng.choice(a, size, replace)`),
    /// on `a`'s device.
    pub fn choice_from(
        &mut self,
        a: &Array,
        shape: impl IntoShape,
        replace: bool,
    ) -> Result<Array> {
        let op = "Generator::choice";
        if a.ndim() != 1 {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "a must be 1-dimensional, got shape {}",
                    fmt_shape(a.shape())
                ),
            });
        }
        let shape = shape.into_shape();
        let n = a.shape()[0];
        let idx = crate::backend::probe::with_device(a.device(), || {
            self.choice(n, shape.as_slice(), replace)
        })?;
        let flat = idx.reshape(vec![idx.size()])?;
        a.take(flat, Some(0))?.reshape(shape)
    }
}

fn first_axis(op: &'static str, x: &Array) -> Result<usize> {
    x.shape().first().copied().ok_or_else(|| Error::Shape {
        op,
        detail: "a 0-d array has no axis to shuffle".into(),
    })
}

/// Validates `integers(low, high, dtype)`.
fn int_draw(op: &'static str, low: i64, high: i64, dtype: DType) -> Result<Draw> {
    let Some((min, max)) = dtype.int_bounds() else {
        return Err(Error::DType {
            op,
            detail: format!(
                "dtype must be an integer type (int8 to int64, uint8 to uint64), got {dtype}"
            ),
        });
    };
    if low >= high {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("low ({low}) must be less than high ({high})"),
        });
    }
    if (low as i128) < min || (high as i128 - 1) > max {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("[{low}, {high}) is outside the range of {dtype} ({min} to {max})"),
        });
    }
    Ok(Draw::Integers {
        low,
        range: (high as i128 - low as i128) as u64,
    })
}

// ---------------------------------------------------------------------------
// Legacy API over a process-wide generator
// ---------------------------------------------------------------------------

fn global() -> &'static Mutex<Generator> {
    // One generator per process, shared by every copy of this crate (each
    // notebook cell links its own copy): `seed(0)` in one cell holds in the next.
    static THIS_COPY: OnceLock<&'static Mutex<Generator>> = OnceLock::new();
    THIS_COPY.get_or_init(|| {
        crate::core::global::process_global("legacy_rng", || {
            // Unseeded: from the clock and the process id, as CuPy seeds from entropy.
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
            Mutex::new(Generator::new(t ^ ((std::process::id() as u64) << 32)))
        })
    })
}

/// Runs `f` with the process-wide generator of the legacy functions.
pub fn with_global<R>(f: impl FnOnce(&mut Generator) -> R) -> R {
    let mut g = global().lock().unwrap_or_else(|e| e.into_inner());
    f(&mut g)
}

/// Reseeds the process-wide generator (`cupy.random.seed(seed)`).
pub fn seed(seed: u64) {
    with_global(|g| *g = Generator::new(seed));
}

/// Uniform float64 values in [0, 1) from the process-wide generator
/// (`cupy.random.rand(*shape)`).
pub fn rand(shape: impl IntoShape) -> Result<Array> {
    with_global(|g| g.random(shape))
}

/// `rand` in float32 or float64 (`cupy.random.rand(*shape, dtype=...)`).
pub fn rand_as(shape: impl IntoShape, dtype: DType) -> Result<Array> {
    with_global(|g| g.random_as(shape, dtype))
}

/// Uniform float64 values in [0, 1) (`cupy.random.random(size)`, the same as [`rand`]).
pub fn random(shape: impl IntoShape) -> Result<Array> {
    rand(shape)
}

/// Standard normal float64 values from the process-wide generator
/// (`cupy.random.randn(*shape)`).
pub fn randn(shape: impl IntoShape) -> Result<Array> {
    with_global(|g| g.standard_normal(shape))
}

/// `randn` in float32 or float64.
pub fn randn_as(shape: impl IntoShape, dtype: DType) -> Result<Array> {
    with_global(|g| g.standard_normal_as(shape, dtype))
}

/// int64 values in [low, high) from the process-wide generator
/// (`cupy.random.randint(low, high, size)`).
pub fn randint(low: i64, high: i64, shape: impl IntoShape) -> Result<Array> {
    with_global(|g| g.integers(low, high, shape))
}

/// `randint` with an integer dtype (`cupy.random.randint(..., dtype=...)`).
pub fn randint_as(low: i64, high: i64, shape: impl IntoShape, dtype: DType) -> Result<Array> {
    with_global(|g| g.integers_as(low, high, shape, dtype))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::random::{bounded32, open_f32, open_f64, unit_f32, unit_f64, TWO_M24, TWO_M53};

    // Random123 1.14, tests/kat_vectors: "philox4x32 10 <ctr x4> <key x2> <out x4>".
    #[test]
    fn philox_known_answers() {
        assert_eq!(
            philox4x32_10([0; 4], [0; 2]),
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
        );
        assert_eq!(
            philox4x32_10([u32::MAX; 4], [u32::MAX; 2]),
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]
        );
        assert_eq!(
            philox4x32_10(
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0]
            ),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
    }

    #[test]
    fn unit_conversions_hit_the_ends() {
        assert_eq!(unit_f32(0), 0.0);
        assert_eq!(unit_f32(u32::MAX), 1.0 - TWO_M24);
        assert_eq!(open_f32(0), TWO_M24);
        assert_eq!(open_f32(u32::MAX), 1.0);
        assert_eq!(unit_f64(u64::MAX), 1.0 - TWO_M53);
        assert_eq!(open_f64(0), TWO_M53);
    }

    #[test]
    fn lemire_is_exact_for_small_ranges() {
        // With range 3, the 2^32 words split into three nearly equal parts.
        let key = [1, 2];
        // Threshold (2^32 - 3) % 3 = 1: word 0 (product 0) is the one
        // rejected word; word 1 (product 3) maps to 0.
        assert_eq!(bounded32(key, 0, 0, 1, 3), 0);
        let redrawn = bounded32(key, 0, 0, 0, 3);
        let w = block_words(key, 0, 1)[0];
        assert_eq!(redrawn, (w as u64 * 3) >> 32);
        assert_eq!(bounded32(key, 0, 0, u32::MAX, 3), 2);
        assert_eq!(bounded64(key, 0, 0, u64::MAX, 10), 9);
        // A rejected word (low product below the threshold) redraws.
        // range 2^31 + 1: threshold = (2^32 - r) % r = 2^31 - 1; word 1 gives
        // product low word 2^31 + 1 >= threshold, word 0 gives 0 < threshold.
        let r = (1u64 << 31) + 1;
        let v = bounded32(key, 5, 1, 0, r);
        assert!(v < r);
    }

    #[test]
    fn blocks_and_positions() {
        let mut g = Generator::new(7);
        assert_eq!(g.seed(), 7);
        let on_cpu = |dtype| {
            crate::backend::probe::with_device(crate::Device::Cpu, || {
                g.clone().random_as([10], dtype)
            })
            .unwrap()
        };
        let a = on_cpu(DType::Float32).to_vec::<f32>().unwrap();
        // Value j is word j % 4 of block j / 4.
        let w = block_words(g.key, 2, 0);
        assert_eq!(a[9], unit_f32(w[1]));
        let b = on_cpu(DType::Float64).to_vec::<f64>().unwrap();
        let w = block_words(g.key, 1, 0);
        assert_eq!(b[2], unit_f64(wide(w[0], w[1])));
        g.offset = 3;
        assert_eq!(g.position(), 3);
    }
}
