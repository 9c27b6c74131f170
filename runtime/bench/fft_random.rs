//! Benchmark cases for cp::fft and cp::random (names, sizes and dtypes of
//! `shared/bench/cupy_bench.py`; each times the same call, output
//! allocation included).

use super::{host_random, Bench};
use cuprite as cp;
use cuprite::num_complex::Complex32;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let n: usize = 1 << 26;
    // rng = cp.random.default_rng(123)
    let mut rng = cp::random::default_rng(123);
    b.bandwidth("rng_normal_f32_64M", 4.0 * n as f64, || {
        rng.standard_normal_as(n, cp::f32)
    })?;
    b.bandwidth("rng_uniform_f32_64M", 4.0 * n as f64, || {
        rng.random_as(n, cp::f32)
    })?;

    // z = (random(1 << 24) + 1j * random(1 << 24)).astype(complex64)
    let m = 1usize << 24;
    let (re, im) = (host_random(m, 11), host_random(m, 12));
    let host: Vec<Complex32> = re
        .iter()
        .zip(&im)
        .map(|(&r, &i)| Complex32::new(r, i))
        .collect();
    let z = cp::asarray(host)?;
    b.bandwidth("fft_c64_16M", 16.0 * m as f64, || cp::fft::fft(&z))?;
    // xs = x[:1 << 24] of a float32 array
    let xs = cp::asarray(host_random(m, 13))?;
    b.bandwidth("rfft_f32_16M", 12.0 * m as f64, || cp::fft::rfft(&xs))?;
    let z2 = z.reshape([4096, 4096])?;
    b.bandwidth("fft2_c64_4096sq", 16.0 * m as f64, || cp::fft::fft2(&z2))?;
    Ok(())
}
