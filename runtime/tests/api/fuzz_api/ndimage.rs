//! Rows for `cp::ndimage`: filters, rank filters, interpolation,
//! morphology, measurements and distance transforms, on the case's arrays
//! (any dtype and rank) with sizes, sigmas, orders, origins and modes drawn
//! from the case (zero, negative, NaN, absurd).

use super::check::{run_table, Row};
use super::derive::{count, floats, pick, real, size};
use crate::rows;
use cuprite as cp;
use cuprite::ndimage::{self as nd, BinaryOptions, FilterOptions, InterpOptions, Mode};
use cuprite::Array;

const MODES: [Mode; 8] = [
    Mode::Reflect,
    Mode::Constant,
    Mode::Nearest,
    Mode::Mirror,
    Mode::Wrap,
    Mode::GridMirror,
    Mode::GridConstant,
    Mode::GridWrap,
];

/// An origin from a drawn integer: small ones as they are (in and out of
/// a window's range), and the extremes an origin can hold.
fn origin(i: isize) -> isize {
    match i {
        -6 => isize::MIN,
        5 => isize::MAX,
        i => i / 2,
    }
}

fn filter_options(g: &super::strategies::Built) -> FilterOptions {
    let o = FilterOptions::default()
        .mode(pick(g.n, &MODES))
        .cval(g.scalar)
        .truncate(pick(g.axis as i64, &[4.0, 0.0, g.scalar, 1.0]));
    if g.flag {
        o.origins(&g.axes.iter().map(|&a| origin(a)).collect::<Vec<_>>())
    } else {
        o.origin(origin(g.axis))
    }
}

fn interp_options(g: &super::strategies::Built) -> InterpOptions {
    InterpOptions::default()
        .order(count(g.n))
        .mode(pick(g.axis as i64, &MODES))
        .cval(g.scalar)
        .prefilter(g.flag)
}

fn binary_options(g: &super::strategies::Built) -> BinaryOptions {
    let o = BinaryOptions::default()
        .iterations(pick(g.n, &[1, 0, 2, 3, 100]))
        .border_value(g.flag)
        .origin(origin(g.axis));
    if g.n % 2 == 0 {
        o.structure(&g.b)
    } else {
        o
    }
}

/// Sizes per axis from the case's axes: 0 up to 6, and absurd ones
/// (usize::MAX, 2^62) that must be refused rather than allocated.
/// Zoom factors from `b`'s values, kept where the output stays small (at
/// most 2^22 elements) or is absurd (2^45 elements and more, which every
/// backend must refuse): in between, the call is valid and the fuzz check
/// would make the CPU backend write its twin of the GPU's result, tens of
/// gigabytes of host memory (the H200 run grew by 1.8 GB/s in `zoom` and
/// was killed past 120 GB). Those factors are scaled down.
fn zoom_factors(a: &Array, b: &Array) -> Vec<f64> {
    let factors = floats(b);
    let shape = a.shape();
    let per_axis = |i: usize| factors.get(if factors.len() == 1 { 0 } else { i }).copied();
    let sizes: Option<Vec<f64>> = (0..shape.len())
        .map(|i| per_axis(i).map(|f| (shape[i] as f64 * f).round()))
        .collect();
    let elements: f64 = match sizes {
        Some(s) if factors.len() == 1 || factors.len() == shape.len() => s.iter().product(),
        // A count of factors the call refuses.
        _ => return factors,
    };
    let small = elements <= (1u64 << 22) as f64;
    let absurd = elements >= (1u64 << 45) as f64;
    if !elements.is_finite() || elements < 0.0 || small || absurd {
        factors
    } else {
        // Scaled down alike on every axis to about 2^20 elements.
        let r = ((1u64 << 20) as f64 / elements).powf(1.0 / shape.len() as f64);
        factors.iter().map(|f| f * r).collect()
    }
}

/// `find_objects`' `max_label` (0: the largest label in `labels`), kept
/// where the labels it spans are few (at most 2^22) or absurd (2^40 and
/// more, refused before anything is allocated); in between the call is valid
/// and both backends would build one bounding box per label, tens of
/// gigabytes for an int32 image holding `i32::MAX` (the H200 run grew by
/// 2 GB/s in this row). Those become 2^20 labels, given explicitly.
fn label_count(labels: &Array, max_label: usize) -> usize {
    let top = if max_label > 0 {
        Some(max_label as f64)
    } else {
        labels
            .astype(cp::DType::Float64)
            .and_then(|l| l.max())
            .and_then(|m| m.to_vec::<f64>())
            .ok()
            .and_then(|v| v.first().copied())
    };
    match top {
        Some(t) if t > (1u64 << 22) as f64 && t < (1u64 << 40) as f64 => 1 << 20,
        _ => max_label,
    }
}

fn sizes(g: &super::strategies::Built) -> Vec<usize> {
    g.axes
        .iter()
        .map(|&a| if a < 0 { size(a as i64) } else { a as usize })
        .collect()
}

fn sigmas(g: &super::strategies::Built) -> Vec<f64> {
    let mut v = floats(&g.b);
    v.truncate(count(g.axis as i64).min(3));
    v
}

fn labels(g: &super::strategies::Built) -> Option<Array> {
    g.flag.then(|| g.b.clone())
}

fn index(g: &super::strategies::Built) -> Option<Vec<i64>> {
    (g.axis > 0).then(|| vec![g.n, 1, 0, -1][..count(g.axis as i64).min(4)].to_vec())
}

pub fn ndimage() -> Vec<Row> {
    rows![
        "correlate1d" => |g| nd::correlate1d(&g.a, &floats(&g.b), g.axis, &filter_options(g)),
        "convolve1d" => |g| nd::convolve1d(&g.a, &floats(&g.b), g.axis, &filter_options(g)),
        "correlate(nd)" => |g| nd::correlate(&g.a, &g.b, &filter_options(g)),
        "convolve(nd)" => |g| nd::convolve(&real(&g.a), &g.b, &filter_options(g)),
        "gaussian_filter1d" => |g| nd::gaussian_filter1d(&g.a, g.scalar, g.axis, count(g.n) % 4, &filter_options(g)),
        "gaussian_filter" => |g| nd::gaussian_filter(&g.a, &sigmas(g), &[count(g.n) % 3], &filter_options(g)),
        "uniform_filter1d" => |g| nd::uniform_filter1d(&g.a, size(g.n), g.axis, &filter_options(g)),
        "uniform_filter" => |g| nd::uniform_filter(&g.a, &sizes(g), &filter_options(g)),
        "sobel" => |g| nd::sobel(&g.a, g.axis, &filter_options(g)),
        "prewitt" => |g| nd::prewitt(&g.a, g.axis, &filter_options(g)),
        "laplace" => |g| nd::laplace(&g.a, &filter_options(g)),
        "gaussian_laplace" => |g| nd::gaussian_laplace(&g.a, &sigmas(g), &filter_options(g)),
        "gaussian_gradient_magnitude" => |g| nd::gaussian_gradient_magnitude(&real(&g.a), &sigmas(g), &filter_options(g)),
        "minimum_filter" => |g| nd::minimum_filter(&g.a, &sizes(g)[..], &filter_options(g)),
        "maximum_filter" => |g| nd::maximum_filter(&g.a, &g.b, &filter_options(g)),
        "median_filter" => |g| nd::median_filter(&g.a, size(g.n), &filter_options(g)),
        "rank_filter" => |g| nd::rank_filter(&g.a, g.axis, &sizes(g)[..], &filter_options(g)),
        "percentile_filter" => |g| nd::percentile_filter(&g.a, g.scalar, &g.b, &filter_options(g)),
        "minimum_filter1d" => |g| nd::minimum_filter1d(&g.a, size(g.n), g.axis, &filter_options(g)),
        "maximum_filter1d" => |g| nd::maximum_filter1d(&g.a, size(g.n), g.axis, &filter_options(g)),
        "spline_filter1d" => |g| nd::spline_filter1d(&g.a, count(g.n), g.axis, pick(g.axis as i64, &MODES)),
        "spline_filter" => |g| nd::spline_filter(&g.a, count(g.n), pick(g.axis as i64, &MODES)),
        "map_coordinates" => |g| nd::map_coordinates(&g.a, &g.b, &interp_options(g)),
        "affine_transform" => |g| nd::affine_transform(&g.a, &g.m, &floats(&g.b), g.flag.then_some(&sizes(g)[..]), &interp_options(g)),
        "shift" => |g| nd::shift(&g.a, &floats(&g.b), &interp_options(g)),
        "zoom" => |g| nd::zoom(&g.a, &zoom_factors(&g.a, &g.b), g.flag, &interp_options(g)),
        "rotate" => |g| nd::rotate(&g.a, g.scalar, (g.axis, g.n as isize), g.flag, &interp_options(g)),
        "generate_binary_structure" => |g| nd::generate_binary_structure(size(g.n), count(g.axis as i64)),
        "iterate_structure" => |g| nd::iterate_structure(&g.b, pick(g.n, &[0, 1, 2, 3, usize::MAX])),
        "binary_erosion" => |g| nd::binary_erosion(&g.a, &binary_options(g)),
        "binary_dilation" => |g| nd::binary_dilation(&g.a, &binary_options(g)),
        "binary_opening" => |g| nd::binary_opening(&g.a, &binary_options(g)),
        "binary_closing" => |g| nd::binary_closing(&g.a, &binary_options(g)),
        "binary_fill_holes" => |g| nd::binary_fill_holes(&g.a, g.flag.then_some(&g.b)),
        "grey_erosion" => |g| nd::grey_erosion(&g.a, &sizes(g)[..], g.flag.then_some(&g.b), &filter_options(g)),
        "grey_dilation" => |g| nd::grey_dilation(&g.a, &g.b, None, &filter_options(g)),
        "grey_opening" => |g| nd::grey_opening(&g.a, size(g.n), g.flag.then_some(&g.b), &filter_options(g)),
        "grey_closing" => |g| nd::grey_closing(&g.a, &sizes(g)[..], None, &filter_options(g)),
        "label" => |g| nd::label(&g.a, g.flag.then_some(&g.b)).map(|(l, n)| vec![l, cp::asarray(vec![n as i64]).unwrap()]),
        "sum_labels" => |g| nd::sum_labels(&g.a, labels(g).as_ref(), index(g).as_deref()),
        "variance(nd)" => |g| nd::variance(&g.a, labels(g).as_ref(), index(g).as_deref()),
        "standard_deviation" => |g| nd::standard_deviation(&g.a, labels(g).as_ref(), index(g).as_deref()),
        "minimum_position" => |g| nd::minimum_position(&g.a, labels(g).as_ref(), index(g).as_deref()),
        "maximum_position" => |g| nd::maximum_position(&g.a, labels(g).as_ref(), index(g).as_deref()),
        "extrema" => |g| nd::extrema(&g.a, labels(g).as_ref(), index(g).as_deref()).map(|(a, b, c, d)| vec![a, b, c, d]),
        "center_of_mass" => |g| nd::center_of_mass(&g.a, labels(g).as_ref(), index(g).as_deref()),
        "find_objects" => |g| nd::find_objects(&g.a, label_count(&g.a, count(g.n))).map(|v| format!("{v:?}")),
        "distance_transform_edt" => |g| nd::distance_transform_edt(&g.a, g.flag.then_some(&floats(&g.b)[..]), g.n % 2 == 0).map(|(d, i)| vec![Some(d), i].into_iter().flatten().collect::<Vec<_>>()),
        "distance_transform_cdt" => |g| nd::distance_transform_cdt(&g.a, pick(g.n, &["chessboard", "taxicab", "euclidean", ""])),
        "origin" => |g| nd::uniform_filter1d(&g.a, 3, g.axis, &FilterOptions::default().origin(pick(g.n, &[0, 1, -2, 5, isize::MAX, isize::MIN]))),
        "origins" => |g| nd::minimum_filter(&g.a, 2usize, &FilterOptions::default().origins(&g.axes)),
        "truncate" => |g| nd::gaussian_filter1d(&g.a, 1.0, g.axis, 0, &FilterOptions::default().truncate(g.scalar)),
        "cval" => |g| nd::shift(&g.a, &[g.n as f64], &InterpOptions::default().cval(g.scalar)),
        "order" => |g| nd::zoom(&g.a, &[2.0], false, &InterpOptions::default().order(size(g.n))),
        "prefilter" => |g| nd::rotate(&g.a, 30.0, (0, 1), g.flag, &InterpOptions::default().prefilter(g.flag)),
        "structure" => |g| nd::binary_dilation(&g.a, &BinaryOptions::default().structure(&g.b)),
        "iterations" => |g| nd::binary_erosion(&g.a, &BinaryOptions::default().iterations(pick(g.n, &[0, 1, 7, usize::MAX]))),
        "border_value" => |g| nd::binary_closing(&g.a, &BinaryOptions::default().border_value(g.flag)),
        "from_name(nd mode)" => |g| Mode::from_name("fuzz", pick(g.n, &["reflect", "grid-wrap", "constant", "bogus", ""])).map(|m| format!("{m:?}")),
    ]
}

#[test]
fn ndimage_functions() {
    run_table("ndimage", ndimage());
}
