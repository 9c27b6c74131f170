//! Benchmark cases for cp::interpolate (cupy_extra.py has CuPy's side with
//! cupyx.scipy.interpolate): a not-a-knot CubicSpline through 1M float64
//! knots evaluated at 16M float64 points, and linear interpolation of a
//! 512^3 float32 grid at 16M float64 points (float32 values: the grid is
//! 512 MB; CuPy's RegularGridInterpolator accepts them and returns float64,
//! as Cuprite does). Construction is outside the timed region: the cases
//! time evaluation, but for make_interp_spline_k3_1M_eval_16M, which times
//! building the cubic B-spline through the 1M knots too, and the
//! interpn_*_64cube cases, which time interpn whole (spline methods on a
//! 64^3 grid at 1M points). Bytes count the points read and the values written.

use super::{host_random, Bench};
use cp::interpolate::{
    interpn, make_interp_spline, CubicSpline, GridOptions, RegularGridInterpolator,
    RegularGridMethod, SplineEnds,
};
use cuprite as cp;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let knots = 1usize << 20;
    // Increasing knots with uneven steps in (0.5, 1.5].
    let mut x = Vec::with_capacity(knots);
    let mut acc = 0.0f64;
    for s in host_random(knots, 21) {
        acc += 0.5 + s as f64;
        x.push(acc);
    }
    let span = acc;
    let y: Vec<f64> = host_random(knots, 22).iter().map(|&v| v as f64).collect();
    let (x, y) = (cp::asarray(x)?, cp::asarray(y)?);
    let spline = CubicSpline::new(&x, &y)?;
    let points = 1usize << 24;
    let xi: Vec<f64> = host_random(points, 23)
        .iter()
        .map(|&u| 0.5 + u as f64 * (span - 0.5))
        .collect();
    let xi = cp::asarray(xi)?;
    b.case(
        "cubic_spline_1M_knots_16M_eval",
        Some(16.0 * points as f64),
        None,
        10,
        2,
        || spline.call(&xi),
    )?;
    // The cubic B-spline timed whole: its construction (one tridiagonal
    // solve on the GPU, cuSPARSE's gtsv2) and 16M evaluations.
    b.case(
        "make_interp_spline_k3_1M_eval_16M",
        Some(16.0 * points as f64),
        None,
        5,
        1,
        || make_interp_spline(&x, &y, 3, SplineEnds::NotAKnot)?.call(&xi),
    )?;
    drop(xi);

    let n = 512usize;
    let axis = cp::linspace(0.0, 1.0, n)?;
    let values = cp::from_shape_vec(vec![n, n, n], host_random(n * n * n, 24), cp::Order::C)?;
    let opts = GridOptions::default().bounds_error(false);
    let grid = RegularGridInterpolator::new(&[&axis, &axis, &axis], &values, opts)?;
    drop(values);
    let pts = cp::from_shape_vec(vec![points, 3], host_random(3 * points, 25), cp::Order::C)?
        .astype(cp::f64)?;
    b.case(
        "regular_grid_interp_512cube_16M_points",
        Some((24 + 8) as f64 * points as f64),
        None,
        10,
        2,
        || grid.call(&pts),
    )?;
    drop((grid, pts));

    // interpn timed whole (the spline's axis-by-axis solve, then 1M points)
    // on a 64^3 float64 grid: cubic, quintic and pchip.
    let n = 64usize;
    let axis = cp::linspace(0.0, 1.0, n)?;
    let values = cp::from_shape_vec(vec![n, n, n], host_random(n * n * n, 26), cp::Order::C)?
        .astype(cp::f64)?;
    let points = 1usize << 20;
    let pts = cp::from_shape_vec(vec![points, 3], host_random(3 * points, 27), cp::Order::C)?
        .astype(cp::f64)?;
    for (name, method) in [
        ("interpn_cubic_64cube_1M_points", RegularGridMethod::Cubic),
        (
            "interpn_quintic_64cube_1M_points",
            RegularGridMethod::Quintic,
        ),
        ("interpn_pchip_64cube_1M_points", RegularGridMethod::Pchip),
    ] {
        let opts = GridOptions::default().method(method);
        b.case(
            name,
            Some((24 + 8) as f64 * points as f64),
            None,
            5,
            1,
            || interpn(&[&axis, &axis, &axis], &values, &pts, opts),
        )?;
    }
    Ok(())
}
