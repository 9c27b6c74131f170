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
    b.case(
        "rng_normal_f32_64M",
        Some(4.0 * n as f64),
        None,
        20,
        3,
        || rng.standard_normal_as(n, cp::f32).map(drop),
    )?;
    b.case(
        "rng_uniform_f32_64M",
        Some(4.0 * n as f64),
        None,
        20,
        3,
        || rng.random_as(n, cp::f32).map(drop),
    )?;

    // z = (random(1 << 24) + 1j * random(1 << 24)).astype(complex64)
    let m = 1usize << 24;
    let (re, im) = (host_random(m, 11), host_random(m, 12));
    let host: Vec<Complex32> = re
        .iter()
        .zip(&im)
        .map(|(&r, &i)| Complex32::new(r, i))
        .collect();
    let z = cp::asarray(host)?;
    b.case("fft_c64_16M", Some(16.0 * m as f64), None, 20, 3, || {
        cp::fft::fft(&z).map(drop)
    })?;
    // xs = x[:1 << 24] of a float32 array
    let xs = cp::asarray(host_random(m, 13))?;
    b.case("rfft_f32_16M", Some(12.0 * m as f64), None, 20, 3, || {
        cp::fft::rfft(&xs).map(drop)
    })?;
    let z2 = z.reshape([4096, 4096])?;
    b.case(
        "fft2_c64_4096sq",
        Some(16.0 * m as f64),
        None,
        20,
        3,
        || cp::fft::fft2(&z2).map(drop),
    )?;
    Ok(())
}
