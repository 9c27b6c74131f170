//! Benchmark cases of sorting and searching (`search.rs`), beside
//! `cupy_extra.py`'s: `unique` of 16M int32 values in [0, 1M), and
//! `searchsorted` of 1M uniform float32 needles in 16M sorted uniform
//! float32 values.

use super::{host_random, Bench};
use cuprite as cp;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let n: usize = 1 << 24;
    let ints: Vec<i32> = host_random(n, 31)
        .into_iter()
        .map(|u| ((u * (1 << 20) as f32) as i32).min((1 << 20) - 1))
        .collect();
    let x = cp::asarray(ints)?;
    // Read the input and write the sorted distinct values, as the sort case counts.
    b.bandwidth("unique_i32_16M", 8.0 * n as f64, || cp::unique(&x))?;
    drop(x);
    let haystack = cp::sort(&cp::asarray(host_random(n, 32))?, 0)?;
    let m: usize = 1 << 20;
    let needles = cp::asarray(host_random(m, 33))?;
    // Needles read, int64 positions written (the haystack is probed, not streamed).
    b.bandwidth("searchsorted_f32_16M_into_1M", 12.0 * m as f64, || {
        cp::searchsorted(&haystack, &needles, cp::Side::Left, None)
    })?;
    Ok(())
}
