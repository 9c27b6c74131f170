//! Benchmark cases of the statistics functions (issue 20), beside
//! `cupy_extra.py`'s: 64M and 16M uniform float32 vectors, a 4096 x 4096
//! matrix, and 1024 variables of 65536 observations.

use super::{host_random, Bench};
use cuprite as cp;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let n: usize = 1 << 26;
    let mut host = host_random(n, 21);
    // Every 97th value a NaN, so the NaN branch is taken.
    for v in host.iter_mut().step_by(97) {
        *v = f32::NAN;
    }
    let x = cp::asarray(&host)?;
    b.bandwidth("nansum_f32_64M", 4.0 * n as f64, || {
        cp::nansum(&x, None, false)
    })?;
    let y = cp::asarray(host_random(n, 22))?;
    b.bandwidth("diff_f32_64M", 8.0 * n as f64, || cp::diff(&y, 1, -1))?;
    let m = 1usize << 24;
    let ys = y.slice(cp::s![..m])?;
    b.bandwidth("median_f32_16M", 8.0 * m as f64, || {
        cp::median(&ys, None, false)
    })?;
    let sq = ys.reshape([4096, 4096])?;
    b.bandwidth("percentile_axis0_4096sq", 8.0 * m as f64, || {
        cp::percentile(&sq, 90.0, 0, cp::QuantileMethod::Linear, false)
    })?;
    let vars = y.reshape([1024, 65536])?;
    let flops = 2.0 * 1024.0 * 1024.0 * 65536.0;
    b.case("cov_1024x65536", None, Some(flops), 5, 2, || {
        cp::cov(&vars, None, cp::CovOptions::default())
    })?;
    Ok(())
}
