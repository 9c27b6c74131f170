//! Benchmark cases of the counting and binning functions, beside
//! `cupy_extra.py`'s: a histogram of 64M uniform float32 values in 256 bins
//! over the data's range, and bincount of 64M int32 values in [0, 1000).

use super::{host_random, Bench};
use cuprite as cp;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let n: usize = 1 << 26;
    let x = cp::asarray(host_random(n, 31))?;
    // The range from the data: a min and a max pass, then the counting pass.
    b.bandwidth("histogram_f32_64M_256bins", 4.0 * n as f64, || {
        cp::histogram(&x, 256)
    })?;
    let k: Vec<i32> = host_random(n, 32)
        .into_iter()
        .map(|v| ((v * 1000.0) as i32).min(999))
        .collect();
    let k = cp::asarray(k)?;
    b.bandwidth("bincount_i32_64M", 4.0 * n as f64, || {
        cp::bincount(&k, None, 0)
    })?;
    Ok(())
}
