//! Benchmark cases of automatic fusion (issue 36), written plainly, beside
//! `cupy_extra.py`'s plain CuPy versions: row softmax, a 5-point heat step
//! written with slices, a column variance and a broadcast distance matrix.
//! The pack-gpu-tests run times them with fusion off and on.

use super::{host_random, Bench};
use cuprite as cp;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let side = 8192usize;
    let n = side * side;
    let m = cp::asarray(host_random(n, 36))?.reshape([side, side])?;
    b.case(
        "softmax_rows_8192sq",
        Some(8.0 * n as f64),
        None,
        20,
        3,
        || {
            let top = m.max_axis(1)?.reshape([side, 1])?;
            let e = cp::exp(&(&m - &top))?;
            let total = e.sum_axis(1)?.reshape([side, 1])?;
            (&e / &total).sum()
        },
    )?;
    let inner = |r0: isize, c0: isize| {
        cp::s![
            1 + r0..side as isize - 1 + r0,
            1 + c0..side as isize - 1 + c0
        ]
    };
    b.case(
        "heat_step_8192sq",
        Some(8.0 * n as f64),
        None,
        20,
        3,
        || {
            let centre = m.slice(inner(0, 0))?;
            let lap = &m.slice(inner(-1, 0))?
                + &m.slice(inner(1, 0))?
                + &m.slice(inner(0, -1))?
                + &m.slice(inner(0, 1))?
                - &centre * 4.0;
            let next = &centre + &lap * 0.1;
            next.sum()
        },
    )?;
    b.bandwidth("var_axis0_8192sq", 4.0 * n as f64, || m.var_axis(0, 0))?;
    let points = 4096usize;
    let a = cp::asarray(host_random(points * 3, 37))?.reshape([points, 1, 3])?;
    let c = cp::asarray(host_random(points * 3, 38))?.reshape([1, points, 3])?;
    b.case(
        "distance_matrix_4096x3",
        Some(4.0 * (points * points) as f64),
        None,
        20,
        3,
        || cp::sqrt(&(&a - &c).square()?.sum_axis(-1)?),
    )?;
    Ok(())
}
