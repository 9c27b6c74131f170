//! Benchmark cases of the manipulation functions (issue 20), beside
//! `cupy_extra.py`'s: an 8192 x 8192 and a 4096 x 4096 float32 matrix.

use super::{host_random, Bench};
use cuprite as cp;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let n = 8192usize;
    let a = cp::asarray(host_random(n * n, 31))?.reshape([n, n])?;
    b.bandwidth("roll_2d_8192sq", 8.0 * (n * n) as f64, || {
        cp::roll_axes(&a, &[100, 200], &[0, 1])
    })?;
    let m = 4096usize;
    let sq = a.slice(cp::s![..m, ..m])?.copy()?;
    let padded = (m + 128) * (m + 128);
    b.bandwidth("pad_reflect_4096sq", 4.0 * (m * m + padded) as f64, || {
        cp::pad(&sq, 64, cp::PadMode::Reflect)
    })?;
    Ok(())
}
