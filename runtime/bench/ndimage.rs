//! Benchmark cases for cp::ndimage (cupy_extra.py has CuPy's side,
//! `cupyx.scipy.ndimage` on the same shapes and dtypes): float32 images
//! of uniform random values, thresholded for the binary cases.

use super::{host_random, Bench};
use cp::ndimage::{self as nd, BinaryOptions, FilterOptions, InterpOptions};
use cuprite as cp;

fn image(n: usize, seed: u64) -> cp::Result<cp::Array> {
    cp::from_shape_vec(vec![n, n], host_random(n * n, seed), cp::Order::C)
}

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let f = FilterOptions::default();
    let big = image(4096, 41)?;
    let px = (4096 * 4096) as f64;
    b.case(
        "gaussian_filter_4096sq_sigma4",
        Some(8.0 * px),
        None,
        10,
        2,
        || nd::gaussian_filter(&big, &[4.0], &[0], &f),
    )?;
    let mid = image(2048, 42)?;
    b.case("median_filter_2048sq_5x5", None, None, 10, 2, || {
        nd::median_filter(&mid, [5usize, 5], &f)
    })?;
    // Coordinates: a grid scaled by 0.9995 and shifted, float64 (2, 4096, 4096).
    let n = 4096usize;
    let axis = cp::add(
        cp::multiply(cp::arange(n as i64)?.astype(cp::f64)?, 0.9995)?,
        0.25,
    )?;
    let rows = cp::add(&axis.reshape([n, 1])?, cp::zeros([n, n], cp::f64)?)?;
    let cols = cp::add(&axis.reshape([1, n])?, cp::zeros([n, n], cp::f64)?)?;
    let coords = cp::stack(&[&rows, &cols], 0)?;
    drop((rows, cols));
    let o3 = InterpOptions::default().order(3);
    b.case("map_coordinates_order3_4096sq", None, None, 5, 2, || {
        nd::map_coordinates(&big, &coords, &o3)
    })?;
    drop(coords);
    let o1 = InterpOptions::default().order(1);
    b.case(
        "zoom_order1_2048sq_x2",
        Some(4.0 * 5.0 * (2048.0 * 2048.0)),
        None,
        10,
        2,
        || nd::zoom(&mid, &[2.0], false, &o1),
    )?;
    let bw = cp::greater(&big, 0.5)?;
    b.case("label_4096sq", None, None, 5, 2, || nd::label(&bw, None))?;
    drop(bw);
    // Mostly true: long runs and one huge component (deep union-find trees).
    let dense = cp::greater(&big, 0.05)?;
    b.case("label_4096sq_dense", None, None, 5, 2, || {
        nd::label(&dense, None)
    })?;
    drop(dense);
    let sparse_zeros = cp::greater(&mid, 0.001)?;
    b.case("distance_transform_edt_2048sq", None, None, 5, 2, || {
        nd::distance_transform_edt(&sparse_zeros, None, false)
    })?;
    // Inputs that stress the envelope passes: one zero (every row's sites
    // far away), all zeros (every site on every envelope), every other
    // element zero (stripes of background columns).
    let n2 = 2048usize;
    let pattern = |zero: &dyn Fn(usize) -> bool| {
        let v: Vec<f32> = (0..n2 * n2)
            .map(|i| if zero(i) { 0.0 } else { 1.0 })
            .collect();
        cp::greater(&cp::from_shape_vec(vec![n2, n2], v, cp::Order::C)?, 0.5)
    };
    for (name, m) in [
        (
            "distance_transform_edt_2048sq_one_zero",
            pattern(&|i| i == 1000 * n2 + 1000)?,
        ),
        (
            "distance_transform_edt_2048sq_all_zero",
            pattern(&|_| true)?,
        ),
        (
            "distance_transform_edt_2048sq_every_other",
            pattern(&|i| i % 2 == 0)?,
        ),
    ] {
        b.case(name, None, None, 5, 2, || {
            nd::distance_transform_edt(&m, None, false)
        })?;
    }
    let mostly = cp::greater(&big, 0.2)?;
    let ten = BinaryOptions::default().iterations(10);
    b.case("binary_erosion_4096sq_10iter", None, None, 5, 2, || {
        nd::binary_erosion(&mostly, &ten)
    })?;
    Ok(())
}
