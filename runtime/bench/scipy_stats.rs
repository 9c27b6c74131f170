//! Benchmark cases of `cp::stats` (issue 34), beside `cupy_extra.py`'s:
//! ranks of 16M float32 values with ties, a normal CDF over 64M float64
//! values, and a 1-D Gaussian KDE of 1M points evaluated at 64K points.
//! CuPy has no rankdata or gaussian_kde; its side times SciPy on the CPU
//! there (rows marked `"baseline": "scipy-cpu"`).

use super::{host_random, Bench};
use cuprite as cp;
use cuprite::stats::Continuous;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let m = 1usize << 24;
    // Values in [0, 1) rounded to 1/4096, so that runs of ties are common.
    let host: Vec<f32> = host_random(m, 34)
        .into_iter()
        .map(|v| (v * 4096.0).floor() / 4096.0)
        .collect();
    let x = cp::asarray(&host)?;
    b.bandwidth("rankdata_f32_16M", 12.0 * m as f64, || {
        cp::stats::rankdata(&x, cp::stats::RankMethod::Average, None)
    })?;
    let n = 1usize << 26;
    let z = cp::asarray(host_random(n, 35))?.astype(cp::f64)?;
    let norm = cp::stats::Norm::new(0.5, 2.0)?;
    // The distribution's cdf with loc and scale (cp::special::ndtr is main.rs's norm_cdf_f64_64M).
    b.bandwidth("norm_dist_cdf_f64_64M", 16.0 * n as f64, || norm.cdf(&z))?;
    let points = cp::random::default_rng(36).standard_normal(1usize << 20)?;
    let eval = cp::linspace(-4.0, 4.0, 1usize << 16)?;
    let kde = cp::stats::GaussianKde::new(&points, cp::stats::Bandwidth::Scott)?;
    // Kernel evaluations, counted as 5 flops each (difference, square,
    // scale, exp as one, sum).
    let flops = 5.0 * (1u64 << 36) as f64;
    b.case(
        "gaussian_kde_1M_points_64K_eval",
        None,
        Some(flops),
        3,
        1,
        || kde.evaluate(&eval),
    )?;
    Ok(())
}
