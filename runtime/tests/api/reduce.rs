//! Reductions and scans, checked against NumPy 2.4.
//!
//! The table tests reduce one (2, 3, 4) input per dtype with every
//! reduction, over all axes, one axis, a negative axis and two axes, with
//! and without keepdims. Expected values were computed with NumPy 2.4 (the
//! call is written above each row) and pasted in; nothing runs Python here.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::half::{bf16, f16};
use cuprite::num_complex::{Complex32, Complex64};
use cuprite::{Array, Axes, DType, Error};
use Want::*;

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;

/// Expected values of a result, by element kind.
enum Want {
    I(&'static [i64]),
    U(&'static [u64]),
    F(&'static [f64]),
    C(&'static [(f64, f64)]),
    B(&'static [bool]),
}

/// (operation, axes (`None`: all), keepdims, result shape, result dtype, values).
type Case = (
    &'static str,
    Option<&'static [isize]>,
    bool,
    &'static [usize],
    &'static str,
    Want,
);

/// The table inputs: 24 values of `dtype` in shape (2, 3, 4), built as the
/// NumPy expressions in the tables build them.
fn input(dtype: &str) -> cp::Result<Array> {
    let idx: Vec<i64> = (0..24).collect();
    let a = match dtype {
        "int8" => cp::asarray(
            idx.iter()
                .map(|&i| ((i * 37) % 256 - 128) as i8)
                .collect::<Vec<_>>(),
        )?,
        "uint8" => cp::asarray(
            idx.iter()
                .map(|&i| ((i * 53) % 256) as u8)
                .collect::<Vec<_>>(),
        )?,
        "int32" => cp::asarray(
            idx.iter()
                .map(|&i| ((i - 12) * 150000001) as i32)
                .collect::<Vec<_>>(),
        )?,
        "float16" => cp::asarray(
            idx.iter()
                .map(|&i| f16::from_f64((i - 10) as f64 * 0.25))
                .collect::<Vec<_>>(),
        )?,
        "float32" => cp::asarray(
            idx.iter()
                .map(|&i| (i as f64 * 1.1 - 7.3) as f32)
                .collect::<Vec<_>>(),
        )?,
        "float64" => cp::asarray(
            idx.iter()
                .map(|&i| ((i * 7) % 24) as f64 * 0.37 - 3.1)
                .collect::<Vec<_>>(),
        )?,
        "complex64" => cp::asarray(
            idx.iter()
                .map(|&i| Complex32::new((i - 5) as f32 * 0.5, ((i * 5) % 7) as f32 - 2.5))
                .collect::<Vec<_>>(),
        )?,
        "bool" => cp::asarray(idx.iter().map(|&i| i % 3 == 0).collect::<Vec<_>>())?,
        _ => unreachable!("no input named {dtype}"),
    };
    a.reshape([2, 3, 4])
}

/// Runs reduction `op` over `axes` by its `*_axes` method.
fn apply(x: &Array, op: &str, axes: Option<&[isize]>, keepdims: bool) -> cp::Result<Array> {
    let axes: Axes = match axes {
        None => Axes::All,
        Some(a) => a.into(),
    };
    match op {
        "sum" => x.sum_axes(axes, keepdims),
        "prod" => x.prod_axes(axes, keepdims),
        "mean" => x.mean_axes(axes, keepdims),
        "var" => x.var_axes(axes, 0, keepdims),
        "std1" => x.std_axes(axes, 1, keepdims),
        "min" => x.min_axes(axes, keepdims),
        "max" => x.max_axes(axes, keepdims),
        "all" => x.all_axes(axes, keepdims),
        "any" => x.any_axes(axes, keepdims),
        _ => unreachable!("no operation named {op}"),
    }
}

/// Relative tolerance for float results computed from inputs of `dtype`
/// (summation order differs from NumPy's; float16 var rounds in NumPy).
fn rtol_for(dtype: DType) -> f64 {
    match dtype {
        DType::Float16 | DType::BFloat16 => 5e-3,
        DType::Float32 | DType::Complex64 => 2e-5,
        _ => 1e-12,
    }
}

/// Checks a result against expected values: integers and bools exactly,
/// floats within `rtol` of the largest expected magnitude (NaN only matches NaN).
#[track_caller]
fn check(got: &Array, shape: &[usize], dtype: &str, want: &Want, rtol: f64, what: &str) {
    assert_eq!(got.shape(), shape, "{what}: shape");
    assert_eq!(got.dtype().name(), dtype, "{what}: dtype");
    let close = |g: f64, e: f64, mag: f64| {
        if e.is_nan() {
            g.is_nan()
        } else if e.is_infinite() {
            g == e
        } else {
            (g - e).abs() <= rtol * mag.max(e.abs())
        }
    };
    match want {
        I(e) => assert_eq!(
            got.astype(DType::Int64).unwrap().to_vec::<i64>().unwrap(),
            *e,
            "{what}"
        ),
        U(e) => assert_eq!(
            got.astype(DType::UInt64).unwrap().to_vec::<u64>().unwrap(),
            *e,
            "{what}"
        ),
        B(e) => assert_eq!(got.to_vec::<bool>().unwrap(), *e, "{what}"),
        F(e) => {
            let g = values_f64(got);
            assert_eq!(g.len(), e.len(), "{what}: element count");
            let mag = e
                .iter()
                .filter(|v| v.is_finite())
                .fold(0.0f64, |m, v| m.max(v.abs()));
            for (k, (&g1, &e1)) in g.iter().zip(e.iter()).enumerate() {
                assert!(
                    close(g1, e1, mag),
                    "{what}: element {k}: got {g1}, expected {e1}; all {g:?}"
                );
            }
        }
        C(e) => {
            let g = got
                .astype(DType::Complex128)
                .unwrap()
                .to_vec::<Complex64>()
                .unwrap();
            assert_eq!(g.len(), e.len(), "{what}: element count");
            let mag = e
                .iter()
                .fold(0.0f64, |m, v| m.max(v.0.abs()).max(v.1.abs()));
            for (k, (g1, e1)) in g.iter().zip(e.iter()).enumerate() {
                assert!(
                    close(g1.re, e1.0, mag) && close(g1.im, e1.1, mag),
                    "{what}: element {k}: got {g1}, expected {e1:?}; all {g:?}"
                );
            }
        }
    }
}

/// Runs every row of a table on `x`.
#[track_caller]
fn run_table(x: &Array, cases: &[Case]) {
    let rtol = rtol_for(x.dtype());
    for (op, axes, keepdims, shape, dtype, want) in cases {
        let what = format!("{} {op} axes={axes:?} keepdims={keepdims}", x.dtype());
        let got = apply(x, op, *axes, *keepdims).unwrap_or_else(|e| panic!("{what}: {e}"));
        check(&got, shape, dtype, want, rtol, &what);
    }
}

/// (operation, axis (`None`: flattened), keepdims, result shape, int64 indices).
type ArgCase = (
    &'static str,
    Option<isize>,
    bool,
    &'static [usize],
    &'static [i64],
);

/// Runs every row of an argmin/argmax table, through the free functions
/// and the methods.
#[track_caller]
fn run_arg_table(x: &Array, cases: &[ArgCase]) {
    for (op, axis, keepdims, shape, want) in cases {
        let what = format!("{} {op} axis={axis:?} keepdims={keepdims}", x.dtype());
        let max = *op == "argmax";
        let f = if max { cp::argmax } else { cp::argmin };
        let got = f(x, *axis, *keepdims).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_exact(&got, shape, want);
        let method = match (axis, max) {
            (None, true) => x.argmax(),
            (None, false) => x.argmin(),
            (Some(a), true) => x.argmax_axis(*a, *keepdims),
            (Some(a), false) => x.argmin_axis(*a, *keepdims),
        }
        .unwrap();
        assert_eq!(method.to_vec::<i64>().unwrap(), *want, "{what} (method)");
    }
}

/// (operation, axis (`None`: flattened), result shape, result dtype, values).
type ScanCase = (
    &'static str,
    Option<isize>,
    &'static [usize],
    &'static str,
    Want,
);

/// Runs every row of a cumsum/cumprod table, through the methods and the
/// free functions.
#[track_caller]
fn run_scan_table(x: &Array, cases: &[ScanCase]) {
    let rtol = rtol_for(x.dtype());
    for (op, axis, shape, dtype, want) in cases {
        let what = format!("{} {op} axis={axis:?}", x.dtype());
        let (got, free) = if *op == "cumsum" {
            (x.cumsum(*axis), cp::cumsum(x, *axis))
        } else {
            (x.cumprod(*axis), cp::cumprod(x, *axis))
        };
        check(&got.unwrap(), shape, dtype, want, rtol, &what);
        check(&free.unwrap(), shape, dtype, want, rtol, &what);
    }
}

on_every_device!(table_int8, |_dev| {
    let x = input("int8")?;
    // NumPy 2.4 with a = ((np.arange(24)*37) % 256 - 128).astype(np.int8).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[Case] = &[
        // np.sum(a)
        ("sum", None, false, &[], "int64", I(&[-540])),
        // np.sum(a, keepdims=True)
        ("sum", None, true, &[1, 1, 1], "int64", I(&[-540])),
        // np.sum(a, axis=1)
        ("sum", Some(&[1]), false, &[2, 4], "int64", I(&[-196, -85, 26, -119, 112, -33, -178, -67])),
        // np.sum(a, axis=-1)
        ("sum", Some(&[-1]), false, &[2, 3], "int64", I(&[-290, 46, -130, -50, 30, -146])),
        // np.sum(a, axis=(0, 2))
        ("sum", Some(&[0, 2]), false, &[3], "int64", I(&[-340, 76, -276])),
        // np.sum(a, axis=(0, 2), keepdims=True)
        ("sum", Some(&[0, 2]), true, &[1, 3, 1], "int64", I(&[-340, 76, -276])),
        // np.prod(a)
        ("prod", None, false, &[], "int64", I(&[6779488852768718848])),
        // np.prod(a, keepdims=True)
        ("prod", None, true, &[1, 1, 1], "int64", I(&[6779488852768718848])),
        // np.prod(a, axis=1)
        ("prod", Some(&[1]), false, &[2, 4], "int64", I(&[225280, 264537, 71064, 48875, -288000, 126973, 260104, 240975])),
        // np.prod(a, axis=-1)
        ("prod", Some(&[-1]), false, &[2, 3], "int64", I(&[10692864, -13395000, -1445136, 60353400, 864864, -43911000])),
        // np.prod(a, axis=(0, 2))
        ("prod", Some(&[0, 2]), false, &[3], "int64", I(&[645350698137600, -11584853280000, 63457366896000])),
        // np.prod(a, axis=(0, 2), keepdims=True)
        ("prod", Some(&[0, 2]), true, &[1, 3, 1], "int64", I(&[645350698137600, -11584853280000, 63457366896000])),
        // np.mean(a)
        ("mean", None, false, &[], "float64", F(&[-22.5])),
        // np.mean(a, keepdims=True)
        ("mean", None, true, &[1, 1, 1], "float64", F(&[-22.5])),
        // np.mean(a, axis=1)
        ("mean", Some(&[1]), false, &[2, 4], "float64", F(&[-65.33333333333333, -28.333333333333332, 8.666666666666666, -39.666666666666664, 37.333333333333336, -11.0, -59.333333333333336, -22.333333333333332])),
        // np.mean(a, axis=-1)
        ("mean", Some(&[-1]), false, &[2, 3], "float64", F(&[-72.5, 11.5, -32.5, -12.5, 7.5, -36.5])),
        // np.mean(a, axis=(0, 2))
        ("mean", Some(&[0, 2]), false, &[3], "float64", F(&[-42.5, 9.5, -34.5])),
        // np.mean(a, axis=(0, 2), keepdims=True)
        ("mean", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[-42.5, 9.5, -34.5])),
        // np.var(a)
        ("var", None, false, &[], "float64", F(&[5416.583333333333])),
        // np.var(a, keepdims=True)
        ("var", None, true, &[1, 1, 1], "float64", F(&[5416.583333333333])),
        // np.var(a, axis=1)
        ("var", Some(&[1]), false, &[2, 4], "float64", F(&[3907.555555555555, 3907.555555555555, 3907.555555555555, 3907.555555555556, 3907.555555555556, 7776.0, 3907.555555555556, 3907.555555555555])),
        // np.var(a, axis=-1)
        ("var", Some(&[-1]), false, &[2, 3], "float64", F(&[1711.25, 6895.25, 1711.25, 8623.25, 1711.25, 6895.25])),
        // np.var(a, axis=(0, 2))
        ("var", Some(&[0, 2]), false, &[3], "float64", F(&[6067.25, 4307.25, 4307.25])),
        // np.var(a, axis=(0, 2), keepdims=True)
        ("var", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[6067.25, 4307.25, 4307.25])),
        // np.std(a, ddof=1)
        ("std1", None, false, &[], "float64", F(&[75.18036283845495])),
        // np.std(a, ddof=1, keepdims=True)
        ("std1", None, true, &[1, 1, 1], "float64", F(&[75.18036283845495])),
        // np.std(a, axis=1, ddof=1)
        ("std1", Some(&[1]), false, &[2, 4], "float64", F(&[76.55934517309649, 76.55934517309649, 76.55934517309649, 76.5593451730965, 76.5593451730965, 108.0, 76.5593451730965, 76.55934517309649])),
        // np.std(a, axis=-1, ddof=1)
        ("std1", Some(&[-1]), false, &[2, 3], "float64", F(&[47.76679460322481, 95.88361000018025, 47.76679460322481, 107.22717317297266, 47.76679460322481, 95.88361000018025])),
        // np.std(a, axis=(0, 2), ddof=1)
        ("std1", Some(&[0, 2]), false, &[3], "float64", F(&[83.2706430862642, 70.16103924951103, 70.16103924951103])),
        // np.std(a, axis=(0, 2), ddof=1, keepdims=True)
        ("std1", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[83.2706430862642, 70.16103924951103, 70.16103924951103])),
        // np.min(a)
        ("min", None, false, &[], "int8", I(&[-128])),
        // np.min(a, keepdims=True)
        ("min", None, true, &[1, 1, 1], "int8", I(&[-128])),
        // np.min(a, axis=1)
        ("min", Some(&[1]), false, &[2, 4], "int8", I(&[-128, -91, -54, -125, -48, -119, -122, -85])),
        // np.min(a, axis=-1)
        ("min", Some(&[-1]), false, &[2, 3], "int8", I(&[-128, -125, -88, -122, -48, -119])),
        // np.min(a, axis=(0, 2))
        ("min", Some(&[0, 2]), false, &[3], "int8", I(&[-128, -125, -119])),
        // np.min(a, axis=(0, 2), keepdims=True)
        ("min", Some(&[0, 2]), true, &[1, 3, 1], "int8", I(&[-128, -125, -119])),
        // np.max(a)
        ("max", None, false, &[], "int8", I(&[100])),
        // np.max(a, keepdims=True)
        ("max", None, true, &[1, 1, 1], "int8", I(&[100])),
        // np.max(a, axis=1)
        ("max", Some(&[1]), false, &[2, 4], "int8", I(&[20, 57, 94, 23, 100, 97, 26, 63])),
        // np.max(a, axis=-1)
        ("max", Some(&[-1]), false, &[2, 3], "int8", I(&[-17, 94, 23, 97, 63, 100])),
        // np.max(a, axis=(0, 2))
        ("max", Some(&[0, 2]), false, &[3], "int8", I(&[97, 94, 100])),
        // np.max(a, axis=(0, 2), keepdims=True)
        ("max", Some(&[0, 2]), true, &[1, 3, 1], "int8", I(&[97, 94, 100])),
        // np.all(a)
        ("all", None, false, &[], "bool", B(&[true])),
        // np.all(a, keepdims=True)
        ("all", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.all(a, axis=1)
        ("all", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.all(a, axis=-1)
        ("all", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.all(a, axis=(0, 2))
        ("all", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.all(a, axis=(0, 2), keepdims=True)
        ("all", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
        // np.any(a)
        ("any", None, false, &[], "bool", B(&[true])),
        // np.any(a, keepdims=True)
        ("any", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.any(a, axis=1)
        ("any", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.any(a, axis=-1)
        ("any", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.any(a, axis=(0, 2))
        ("any", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.any(a, axis=(0, 2), keepdims=True)
        ("any", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
    ];
    run_table(&x, cases);
});

on_every_device!(table_uint8, |_dev| {
    let x = input("uint8")?;
    // NumPy 2.4 with a = ((np.arange(24)*53) % 256).astype(np.uint8).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[Case] = &[
        // np.sum(a)
        ("sum", None, false, &[], "uint64", U(&[2852])),
        // np.sum(a, keepdims=True)
        ("sum", None, true, &[1, 1, 1], "uint64", U(&[2852])),
        // np.sum(a, axis=1)
        ("sum", Some(&[1]), false, &[2, 4], "uint64", U(&[380, 283, 186, 345, 240, 399, 558, 461])),
        // np.sum(a, axis=-1)
        ("sum", Some(&[-1]), false, &[2, 3], "uint64", U(&[318, 398, 478, 558, 638, 462])),
        // np.sum(a, axis=(0, 2))
        ("sum", Some(&[0, 2]), false, &[3], "uint64", U(&[876, 1036, 940])),
        // np.sum(a, axis=(0, 2), keepdims=True)
        ("sum", Some(&[0, 2]), true, &[1, 3, 1], "uint64", U(&[876, 1036, 940])),
        // np.prod(a)
        ("prod", None, false, &[], "uint64", U(&[0])),
        // np.prod(a, keepdims=True)
        ("prod", None, true, &[1, 1, 1], "uint64", U(&[0])),
        // np.prod(a, axis=1)
        ("prod", Some(&[1]), false, &[2, 4], "uint64", U(&[0, 105417, 118296, 1298235, 357120, 2095149, 6074760, 1258335])),
        // np.prod(a, axis=-1)
        ("prod", Some(&[-1]), false, &[2, 3], "uint64", U(&[0, 13604040, 47449584, 136297080, 472990560, 88718760])),
        // np.prod(a, axis=(0, 2))
        ("prod", Some(&[0, 2]), false, &[3], "uint64", U(&[0, 6434582497862400, 4209668254995840])),
        // np.prod(a, axis=(0, 2), keepdims=True)
        ("prod", Some(&[0, 2]), true, &[1, 3, 1], "uint64", U(&[0, 6434582497862400, 4209668254995840])),
        // np.mean(a)
        ("mean", None, false, &[], "float64", F(&[118.83333333333333])),
        // np.mean(a, keepdims=True)
        ("mean", None, true, &[1, 1, 1], "float64", F(&[118.83333333333333])),
        // np.mean(a, axis=1)
        ("mean", Some(&[1]), false, &[2, 4], "float64", F(&[126.66666666666667, 94.33333333333333, 62.0, 115.0, 80.0, 133.0, 186.0, 153.66666666666666])),
        // np.mean(a, axis=-1)
        ("mean", Some(&[-1]), false, &[2, 3], "float64", F(&[79.5, 99.5, 119.5, 139.5, 159.5, 115.5])),
        // np.mean(a, axis=(0, 2))
        ("mean", Some(&[0, 2]), false, &[3], "float64", F(&[109.5, 129.5, 117.5])),
        // np.mean(a, axis=(0, 2), keepdims=True)
        ("mean", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[109.5, 129.5, 117.5])),
        // np.var(a)
        ("var", None, false, &[], "float64", F(&[5353.472222222223])),
        // np.var(a, keepdims=True)
        ("var", None, true, &[1, 1, 1], "float64", F(&[5353.472222222223])),
        // np.var(a, axis=1)
        ("var", Some(&[1]), false, &[2, 4], "float64", F(&[8344.888888888889, 8344.888888888889, 1290.6666666666667, 1290.6666666666667, 1290.6666666666667, 1290.6666666666667, 1290.6666666666667, 8344.888888888889])),
        // np.var(a, axis=-1)
        ("var", Some(&[-1]), false, &[2, 3], "float64", F(&[3511.25, 5623.25, 6327.25, 5623.25, 3511.25, 3511.25])),
        // np.var(a, axis=(0, 2))
        ("var", Some(&[0, 2]), false, &[3], "float64", F(&[5467.25, 5467.25, 4923.25])),
        // np.var(a, axis=(0, 2), keepdims=True)
        ("var", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[5467.25, 5467.25, 4923.25])),
        // np.std(a, ddof=1)
        ("std1", None, false, &[], "float64", F(&[74.7410990289678])),
        // np.std(a, ddof=1, keepdims=True)
        ("std1", None, true, &[1, 1, 1], "float64", F(&[74.7410990289678])),
        // np.std(a, axis=1, ddof=1)
        ("std1", Some(&[1]), false, &[2, 4], "float64", F(&[111.88088904425695, 111.88088904425693, 44.0, 44.0, 44.0, 44.0, 44.0, 111.88088904425693])),
        // np.std(a, axis=-1, ddof=1)
        ("std1", Some(&[-1]), false, &[2, 3], "float64", F(&[68.4227057829977, 86.58906782421593, 91.84951460586677, 86.58906782421593, 68.4227057829977, 68.4227057829977])),
        // np.std(a, axis=(0, 2), ddof=1)
        ("std1", Some(&[0, 2]), false, &[3], "float64", F(&[79.04609866581471, 79.04609866581471, 75.01047545890793])),
        // np.std(a, axis=(0, 2), ddof=1, keepdims=True)
        ("std1", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[79.04609866581471, 79.04609866581471, 75.01047545890793])),
        // np.min(a)
        ("min", None, false, &[], "uint8", U(&[0])),
        // np.min(a, keepdims=True)
        ("min", None, true, &[1, 1, 1], "uint8", U(&[0])),
        // np.min(a, axis=1)
        ("min", Some(&[1]), false, &[2, 4], "uint8", U(&[0, 9, 18, 71, 36, 89, 142, 27])),
        // np.min(a, axis=-1)
        ("min", Some(&[-1]), false, &[2, 3], "uint8", U(&[0, 9, 18, 27, 80, 36])),
        // np.min(a, axis=(0, 2))
        ("min", Some(&[0, 2]), false, &[3], "uint8", U(&[0, 9, 18])),
        // np.min(a, axis=(0, 2), keepdims=True)
        ("min", Some(&[0, 2]), true, &[1, 3, 1], "uint8", U(&[0, 9, 18])),
        // np.max(a)
        ("max", None, false, &[], "uint8", U(&[239])),
        // np.max(a, keepdims=True)
        ("max", None, true, &[1, 1, 1], "uint8", U(&[239])),
        // np.max(a, axis=1)
        ("max", Some(&[1]), false, &[2, 4], "uint8", U(&[212, 221, 106, 159, 124, 177, 230, 239])),
        // np.max(a, axis=-1)
        ("max", Some(&[-1]), false, &[2, 3], "uint8", U(&[159, 212, 221, 230, 239, 195])),
        // np.max(a, axis=(0, 2))
        ("max", Some(&[0, 2]), false, &[3], "uint8", U(&[230, 239, 221])),
        // np.max(a, axis=(0, 2), keepdims=True)
        ("max", Some(&[0, 2]), true, &[1, 3, 1], "uint8", U(&[230, 239, 221])),
        // np.all(a)
        ("all", None, false, &[], "bool", B(&[false])),
        // np.all(a, keepdims=True)
        ("all", None, true, &[1, 1, 1], "bool", B(&[false])),
        // np.all(a, axis=1)
        ("all", Some(&[1]), false, &[2, 4], "bool", B(&[false, true, true, true, true, true, true, true])),
        // np.all(a, axis=-1)
        ("all", Some(&[-1]), false, &[2, 3], "bool", B(&[false, true, true, true, true, true])),
        // np.all(a, axis=(0, 2))
        ("all", Some(&[0, 2]), false, &[3], "bool", B(&[false, true, true])),
        // np.all(a, axis=(0, 2), keepdims=True)
        ("all", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[false, true, true])),
        // np.any(a)
        ("any", None, false, &[], "bool", B(&[true])),
        // np.any(a, keepdims=True)
        ("any", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.any(a, axis=1)
        ("any", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.any(a, axis=-1)
        ("any", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.any(a, axis=(0, 2))
        ("any", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.any(a, axis=(0, 2), keepdims=True)
        ("any", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
    ];
    run_table(&x, cases);
});

on_every_device!(table_int32, |_dev| {
    let x = input("int32")?;
    // NumPy 2.4 with a = ((np.arange(24)-12)*150000001).astype(np.int32).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[Case] = &[
        // np.sum(a)
        ("sum", None, false, &[], "int64", I(&[-1800000012])),
        // np.sum(a, keepdims=True)
        ("sum", None, true, &[1, 1, 1], "int64", I(&[-1800000012])),
        // np.sum(a, axis=1)
        ("sum", Some(&[1]), false, &[2, 4], "int64", I(&[-3600000024, -3150000021, -2700000018, -2250000015, 1800000012, 2250000015, 2700000018, 3150000021])),
        // np.sum(a, axis=-1)
        ("sum", Some(&[-1]), false, &[2, 3], "int64", I(&[-6300000042, -3900000026, -1500000010, 900000006, 3300000022, 5700000038])),
        // np.sum(a, axis=(0, 2))
        ("sum", Some(&[0, 2]), false, &[3], "int64", I(&[-5400000036, -600000004, 4200000028])),
        // np.sum(a, axis=(0, 2), keepdims=True)
        ("sum", Some(&[0, 2]), true, &[1, 3, 1], "int64", I(&[-5400000036, -600000004, 4200000028])),
        // np.prod(a)
        ("prod", None, false, &[], "int64", I(&[0])),
        // np.prod(a, keepdims=True)
        ("prod", None, true, &[1, 1, 1], "int64", I(&[0])),
        // np.prod(a, axis=1)
        ("prod", Some(&[1]), false, &[2, 4], "int64", I(&[-3360751654181716352, 4031135732217257881, -7967763919572868216, -7599597488267213485, 0, 7599597488267213485, 7967763919572868216, -4031135732217257881])),
        // np.prod(a, axis=-1)
        ("prod", Some(&[-1]), false, &[2, 3], "int64", I(&[3964183252224482920, -930054414732663152, 5784261645812535320, 0, -465027207366331576, 8791703526052839152])),
        // np.prod(a, axis=(0, 2))
        ("prod", Some(&[0, 2]), false, &[3], "int64", I(&[0, 6310970389820049536, -6905112721338866048])),
        // np.prod(a, axis=(0, 2), keepdims=True)
        ("prod", Some(&[0, 2]), true, &[1, 3, 1], "int64", I(&[0, 6310970389820049536, -6905112721338866048])),
        // np.mean(a)
        ("mean", None, false, &[], "float64", F(&[-75000000.5])),
        // np.mean(a, keepdims=True)
        ("mean", None, true, &[1, 1, 1], "float64", F(&[-75000000.5])),
        // np.mean(a, axis=1)
        ("mean", Some(&[1]), false, &[2, 4], "float64", F(&[-1200000008.0, -1050000007.0, -900000006.0, -750000005.0, 600000004.0, 750000005.0, 900000006.0, 1050000007.0])),
        // np.mean(a, axis=-1)
        ("mean", Some(&[-1]), false, &[2, 3], "float64", F(&[-1575000010.5, -975000006.5, -375000002.5, 225000001.5, 825000005.5, 1425000009.5])),
        // np.mean(a, axis=(0, 2))
        ("mean", Some(&[0, 2]), false, &[3], "float64", F(&[-675000004.5, -75000000.5, 525000003.5])),
        // np.mean(a, axis=(0, 2), keepdims=True)
        ("mean", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[-675000004.5, -75000000.5, 525000003.5])),
        // np.var(a)
        ("var", None, false, &[], "float64", F(&[1.078125014375e+18])),
        // np.var(a, keepdims=True)
        ("var", None, true, &[1, 1, 1], "float64", F(&[1.078125014375e+18])),
        // np.var(a, axis=1)
        ("var", Some(&[1]), false, &[2, 4], "float64", F(&[2.400000032e+17, 2.400000032e+17, 2.400000032e+17, 2.400000032e+17, 2.400000032e+17, 2.400000032e+17, 2.400000032e+17, 2.400000032e+17])),
        // np.var(a, axis=-1)
        ("var", Some(&[-1]), false, &[2, 3], "float64", F(&[2.8125000375e+16, 2.8125000375e+16, 2.8125000375e+16, 2.8125000375e+16, 2.8125000375e+16, 2.8125000375e+16])),
        // np.var(a, axis=(0, 2))
        ("var", Some(&[0, 2]), false, &[3], "float64", F(&[8.38125011175e+17, 8.38125011175e+17, 8.38125011175e+17])),
        // np.var(a, axis=(0, 2), keepdims=True)
        ("var", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[8.38125011175e+17, 8.38125011175e+17, 8.38125011175e+17])),
        // np.std(a, ddof=1)
        ("std1", None, false, &[], "float64", F(&[1060660178.8508891])),
        // np.std(a, ddof=1, keepdims=True)
        ("std1", None, true, &[1, 1, 1], "float64", F(&[1060660178.8508891])),
        // np.std(a, axis=1, ddof=1)
        ("std1", Some(&[1]), false, &[2, 4], "float64", F(&[600000004.0, 600000004.0, 600000004.0, 600000004.0, 600000004.0, 600000004.0, 600000004.0, 600000004.0])),
        // np.std(a, axis=-1, ddof=1)
        ("std1", Some(&[-1]), false, &[2, 3], "float64", F(&[193649168.6013653, 193649168.6013653, 193649168.6013653, 193649168.6013653, 193649168.6013653, 193649168.6013653])),
        // np.std(a, axis=(0, 2), ddof=1)
        ("std1", Some(&[0, 2]), false, &[3], "float64", F(&[978701770.5248988, 978701770.5248988, 978701770.5248988])),
        // np.std(a, axis=(0, 2), ddof=1, keepdims=True)
        ("std1", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[978701770.5248988, 978701770.5248988, 978701770.5248988])),
        // np.min(a)
        ("min", None, false, &[], "int32", I(&[-1800000012])),
        // np.min(a, keepdims=True)
        ("min", None, true, &[1, 1, 1], "int32", I(&[-1800000012])),
        // np.min(a, axis=1)
        ("min", Some(&[1]), false, &[2, 4], "int32", I(&[-1800000012, -1650000011, -1500000010, -1350000009, 0, 150000001, 300000002, 450000003])),
        // np.min(a, axis=-1)
        ("min", Some(&[-1]), false, &[2, 3], "int32", I(&[-1800000012, -1200000008, -600000004, 0, 600000004, 1200000008])),
        // np.min(a, axis=(0, 2))
        ("min", Some(&[0, 2]), false, &[3], "int32", I(&[-1800000012, -1200000008, -600000004])),
        // np.min(a, axis=(0, 2), keepdims=True)
        ("min", Some(&[0, 2]), true, &[1, 3, 1], "int32", I(&[-1800000012, -1200000008, -600000004])),
        // np.max(a)
        ("max", None, false, &[], "int32", I(&[1650000011])),
        // np.max(a, keepdims=True)
        ("max", None, true, &[1, 1, 1], "int32", I(&[1650000011])),
        // np.max(a, axis=1)
        ("max", Some(&[1]), false, &[2, 4], "int32", I(&[-600000004, -450000003, -300000002, -150000001, 1200000008, 1350000009, 1500000010, 1650000011])),
        // np.max(a, axis=-1)
        ("max", Some(&[-1]), false, &[2, 3], "int32", I(&[-1350000009, -750000005, -150000001, 450000003, 1050000007, 1650000011])),
        // np.max(a, axis=(0, 2))
        ("max", Some(&[0, 2]), false, &[3], "int32", I(&[450000003, 1050000007, 1650000011])),
        // np.max(a, axis=(0, 2), keepdims=True)
        ("max", Some(&[0, 2]), true, &[1, 3, 1], "int32", I(&[450000003, 1050000007, 1650000011])),
        // np.all(a)
        ("all", None, false, &[], "bool", B(&[false])),
        // np.all(a, keepdims=True)
        ("all", None, true, &[1, 1, 1], "bool", B(&[false])),
        // np.all(a, axis=1)
        ("all", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, false, true, true, true])),
        // np.all(a, axis=-1)
        ("all", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, false, true, true])),
        // np.all(a, axis=(0, 2))
        ("all", Some(&[0, 2]), false, &[3], "bool", B(&[false, true, true])),
        // np.all(a, axis=(0, 2), keepdims=True)
        ("all", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[false, true, true])),
        // np.any(a)
        ("any", None, false, &[], "bool", B(&[true])),
        // np.any(a, keepdims=True)
        ("any", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.any(a, axis=1)
        ("any", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.any(a, axis=-1)
        ("any", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.any(a, axis=(0, 2))
        ("any", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.any(a, axis=(0, 2), keepdims=True)
        ("any", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
    ];
    run_table(&x, cases);
});

on_every_device!(table_float16, |_dev| {
    let x = input("float16")?;
    // NumPy 2.4 with a = ((np.arange(24)-10)*0.25).astype(np.float16).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[Case] = &[
        // np.sum(a)
        ("sum", None, false, &[], "float16", F(&[9.0])),
        // np.sum(a, keepdims=True)
        ("sum", None, true, &[1, 1, 1], "float16", F(&[9.0])),
        // np.sum(a, axis=1)
        ("sum", Some(&[1]), false, &[2, 4], "float16", F(&[-4.5, -3.75, -3.0, -2.25, 4.5, 5.25, 6.0, 6.75])),
        // np.sum(a, axis=-1)
        ("sum", Some(&[-1]), false, &[2, 3], "float16", F(&[-8.5, -4.5, -0.5, 3.5, 7.5, 11.5])),
        // np.sum(a, axis=(0, 2))
        ("sum", Some(&[0, 2]), false, &[3], "float16", F(&[-5.0, 3.0, 11.0])),
        // np.sum(a, axis=(0, 2), keepdims=True)
        ("sum", Some(&[0, 2]), true, &[1, 3, 1], "float16", F(&[-5.0, 3.0, 11.0])),
        // np.prod(a)
        ("prod", None, false, &[], "float16", F(&[0.0])),
        // np.prod(a, keepdims=True)
        ("prod", None, true, &[1, 1, 1], "float16", F(&[0.0])),
        // np.prod(a, axis=1)
        ("prod", Some(&[1]), false, &[2, 4], "float16", F(&[-1.875, -0.703125, 0.0, 0.328125, 1.875, 3.609375, 6.0, 9.140625])),
        // np.prod(a, axis=-1)
        ("prod", Some(&[-1]), false, &[2, 3], "float16", F(&[19.6875, 1.40625, 0.0, 0.46875, 11.8125, 67.0])),
        // np.prod(a, axis=(0, 2))
        ("prod", Some(&[0, 2]), false, &[3], "float16", F(&[9.2265625, 16.609375, 0.0])),
        // np.prod(a, axis=(0, 2), keepdims=True)
        ("prod", Some(&[0, 2]), true, &[1, 3, 1], "float16", F(&[9.2265625, 16.609375, 0.0])),
        // np.mean(a)
        ("mean", None, false, &[], "float16", F(&[0.375])),
        // np.mean(a, keepdims=True)
        ("mean", None, true, &[1, 1, 1], "float16", F(&[0.375])),
        // np.mean(a, axis=1)
        ("mean", Some(&[1]), false, &[2, 4], "float16", F(&[-1.5, -1.25, -1.0, -0.75, 1.5, 1.75, 2.0, 2.25])),
        // np.mean(a, axis=-1)
        ("mean", Some(&[-1]), false, &[2, 3], "float16", F(&[-2.125, -1.125, -0.125, 0.875, 1.875, 2.875])),
        // np.mean(a, axis=(0, 2))
        ("mean", Some(&[0, 2]), false, &[3], "float16", F(&[-0.625, 0.375, 1.375])),
        // np.mean(a, axis=(0, 2), keepdims=True)
        ("mean", Some(&[0, 2]), true, &[1, 3, 1], "float16", F(&[-0.625, 0.375, 1.375])),
        // np.var(a)
        ("var", None, false, &[], "float16", F(&[2.994140625])),
        // np.var(a, keepdims=True)
        ("var", None, true, &[1, 1, 1], "float16", F(&[2.994140625])),
        // np.var(a, axis=1)
        ("var", Some(&[1]), false, &[2, 4], "float16", F(&[0.66650390625, 0.66650390625, 0.66650390625, 0.66650390625, 0.66650390625, 0.66650390625, 0.66650390625, 0.66650390625])),
        // np.var(a, axis=-1)
        ("var", Some(&[-1]), false, &[2, 3], "float16", F(&[0.078125, 0.078125, 0.078125, 0.078125, 0.078125, 0.078125])),
        // np.var(a, axis=(0, 2))
        ("var", Some(&[0, 2]), false, &[3], "float16", F(&[2.328125, 2.328125, 2.328125])),
        // np.var(a, axis=(0, 2), keepdims=True)
        ("var", Some(&[0, 2]), true, &[1, 3, 1], "float16", F(&[2.328125, 2.328125, 2.328125])),
        // np.std(a, ddof=1)
        ("std1", None, false, &[], "float16", F(&[1.767578125])),
        // np.std(a, ddof=1, keepdims=True)
        ("std1", None, true, &[1, 1, 1], "float16", F(&[1.767578125])),
        // np.std(a, axis=1, ddof=1)
        ("std1", Some(&[1]), false, &[2, 4], "float16", F(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0])),
        // np.std(a, axis=-1, ddof=1)
        ("std1", Some(&[-1]), false, &[2, 3], "float16", F(&[0.32275390625, 0.32275390625, 0.32275390625, 0.32275390625, 0.32275390625, 0.32275390625])),
        // np.std(a, axis=(0, 2), ddof=1)
        ("std1", Some(&[0, 2]), false, &[3], "float16", F(&[1.630859375, 1.630859375, 1.630859375])),
        // np.std(a, axis=(0, 2), ddof=1, keepdims=True)
        ("std1", Some(&[0, 2]), true, &[1, 3, 1], "float16", F(&[1.630859375, 1.630859375, 1.630859375])),
        // np.min(a)
        ("min", None, false, &[], "float16", F(&[-2.5])),
        // np.min(a, keepdims=True)
        ("min", None, true, &[1, 1, 1], "float16", F(&[-2.5])),
        // np.min(a, axis=1)
        ("min", Some(&[1]), false, &[2, 4], "float16", F(&[-2.5, -2.25, -2.0, -1.75, 0.5, 0.75, 1.0, 1.25])),
        // np.min(a, axis=-1)
        ("min", Some(&[-1]), false, &[2, 3], "float16", F(&[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])),
        // np.min(a, axis=(0, 2))
        ("min", Some(&[0, 2]), false, &[3], "float16", F(&[-2.5, -1.5, -0.5])),
        // np.min(a, axis=(0, 2), keepdims=True)
        ("min", Some(&[0, 2]), true, &[1, 3, 1], "float16", F(&[-2.5, -1.5, -0.5])),
        // np.max(a)
        ("max", None, false, &[], "float16", F(&[3.25])),
        // np.max(a, keepdims=True)
        ("max", None, true, &[1, 1, 1], "float16", F(&[3.25])),
        // np.max(a, axis=1)
        ("max", Some(&[1]), false, &[2, 4], "float16", F(&[-0.5, -0.25, 0.0, 0.25, 2.5, 2.75, 3.0, 3.25])),
        // np.max(a, axis=-1)
        ("max", Some(&[-1]), false, &[2, 3], "float16", F(&[-1.75, -0.75, 0.25, 1.25, 2.25, 3.25])),
        // np.max(a, axis=(0, 2))
        ("max", Some(&[0, 2]), false, &[3], "float16", F(&[1.25, 2.25, 3.25])),
        // np.max(a, axis=(0, 2), keepdims=True)
        ("max", Some(&[0, 2]), true, &[1, 3, 1], "float16", F(&[1.25, 2.25, 3.25])),
        // np.all(a)
        ("all", None, false, &[], "bool", B(&[false])),
        // np.all(a, keepdims=True)
        ("all", None, true, &[1, 1, 1], "bool", B(&[false])),
        // np.all(a, axis=1)
        ("all", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, false, true, true, true, true, true])),
        // np.all(a, axis=-1)
        ("all", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, false, true, true, true])),
        // np.all(a, axis=(0, 2))
        ("all", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, false])),
        // np.all(a, axis=(0, 2), keepdims=True)
        ("all", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, false])),
        // np.any(a)
        ("any", None, false, &[], "bool", B(&[true])),
        // np.any(a, keepdims=True)
        ("any", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.any(a, axis=1)
        ("any", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.any(a, axis=-1)
        ("any", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.any(a, axis=(0, 2))
        ("any", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.any(a, axis=(0, 2), keepdims=True)
        ("any", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
    ];
    run_table(&x, cases);
});

on_every_device!(table_float32, |_dev| {
    let x = input("float32")?;
    // NumPy 2.4 with a = (np.arange(24)*1.1 - 7.3).astype(np.float32).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[Case] = &[
        // np.sum(a)
        ("sum", None, false, &[], "float32", F(&[128.39999389648438])),
        // np.sum(a, keepdims=True)
        ("sum", None, true, &[1, 1, 1], "float32", F(&[128.39999389648438])),
        // np.sum(a, axis=1)
        ("sum", Some(&[1]), false, &[2, 4], "float32", F(&[-8.700000762939453, -5.400000095367432, -2.0999996662139893, 1.200000286102295, 30.900001525878906, 34.20000076293945, 37.5, 40.79999923706055])),
        // np.sum(a, axis=-1)
        ("sum", Some(&[-1]), false, &[2, 3], "float32", F(&[-22.600000381469727, -4.999999523162842, 12.600000381469727, 30.200000762939453, 47.80000305175781, 65.4000015258789])),
        // np.sum(a, axis=(0, 2))
        ("sum", Some(&[0, 2]), false, &[3], "float32", F(&[7.600000381469727, 42.80000305175781, 78.0])),
        // np.sum(a, axis=(0, 2), keepdims=True)
        ("sum", Some(&[0, 2]), true, &[1, 3, 1], "float32", F(&[7.600000381469727, 42.80000305175781, 78.0])),
        // np.prod(a)
        ("prod", None, false, &[], "float32", F(&[-4.05721749154431e+17])),
        // np.prod(a, keepdims=True)
        ("prod", None, true, &[1, 1, 1], "float32", F(&[-4.05721749154431e+17])),
        // np.prod(a, axis=1)
        ("prod", Some(&[1]), false, &[2, 4], "float32", F(&[31.755002975463867, 29.0159969329834, 13.208999633789062, -7.680000305175781, 893.3189697265625, 1260.8399658203125, 1711.1251220703125, 2252.16015625])),
        // np.prod(a, axis=-1)
        ("prod", Some(&[-1]), false, &[2, 3], "float32", F(&[923.303955078125, -1.4616000652313232, 69.26399993896484, 3077.676025390625, 19961.400390625, 70653.4921875])),
        // np.prod(a, axis=(0, 2))
        ("prod", Some(&[0, 2]), false, &[3], "float32", F(&[2841630.75, -29175.583984375, 4893743.0])),
        // np.prod(a, axis=(0, 2), keepdims=True)
        ("prod", Some(&[0, 2]), true, &[1, 3, 1], "float32", F(&[2841630.75, -29175.583984375, 4893743.0])),
        // np.mean(a)
        ("mean", None, false, &[], "float32", F(&[5.349999904632568])),
        // np.mean(a, keepdims=True)
        ("mean", None, true, &[1, 1, 1], "float32", F(&[5.349999904632568])),
        // np.mean(a, axis=1)
        ("mean", Some(&[1]), false, &[2, 4], "float32", F(&[-2.9000003337860107, -1.8000000715255737, -0.6999998688697815, 0.40000009536743164, 10.300000190734863, 11.40000057220459, 12.5, 13.59999942779541])),
        // np.mean(a, axis=-1)
        ("mean", Some(&[-1]), false, &[2, 3], "float32", F(&[-5.650000095367432, -1.2499998807907104, 3.1500000953674316, 7.550000190734863, 11.950000762939453, 16.350000381469727])),
        // np.mean(a, axis=(0, 2))
        ("mean", Some(&[0, 2]), false, &[3], "float32", F(&[0.9500000476837158, 5.350000381469727, 9.75])),
        // np.mean(a, axis=(0, 2), keepdims=True)
        ("mean", Some(&[0, 2]), true, &[1, 3, 1], "float32", F(&[0.9500000476837158, 5.350000381469727, 9.75])),
        // np.var(a)
        ("var", None, false, &[], "float32", F(&[57.97916793823242])),
        // np.var(a, keepdims=True)
        ("var", None, true, &[1, 1, 1], "float32", F(&[57.97916793823242])),
        // np.var(a, axis=1)
        ("var", Some(&[1]), false, &[2, 4], "float32", F(&[12.90666675567627, 12.906665802001953, 12.90666675567627, 12.90666675567627, 12.906665802001953, 12.90666675567627, 12.906664848327637, 12.90666675567627])),
        // np.var(a, axis=-1)
        ("var", Some(&[-1]), false, &[2, 3], "float32", F(&[1.5125001668930054, 1.5125000476837158, 1.512500286102295, 1.5124998092651367, 1.512500286102295, 1.5125000476837158])),
        // np.var(a, axis=(0, 2))
        ("var", Some(&[0, 2]), false, &[3], "float32", F(&[45.07250213623047, 45.0724983215332, 45.07250213623047])),
        // np.var(a, axis=(0, 2), keepdims=True)
        ("var", Some(&[0, 2]), true, &[1, 3, 1], "float32", F(&[45.07250213623047, 45.0724983215332, 45.07250213623047])),
        // np.std(a, ddof=1)
        ("std1", None, false, &[], "float32", F(&[7.77817440032959])),
        // np.std(a, ddof=1, keepdims=True)
        ("std1", None, true, &[1, 1, 1], "float32", F(&[7.77817440032959])),
        // np.std(a, axis=1, ddof=1)
        ("std1", Some(&[1]), false, &[2, 4], "float32", F(&[4.400000095367432, 4.399999618530273, 4.400000095367432, 4.400000095367432, 4.399999618530273, 4.400000095367432, 4.399999618530273, 4.400000095367432])),
        // np.std(a, axis=-1, ddof=1)
        ("std1", Some(&[-1]), false, &[2, 3], "float32", F(&[1.4200940132141113, 1.4200938940048218, 1.4200940132141113, 1.4200937747955322, 1.4200940132141113, 1.4200938940048218])),
        // np.std(a, axis=(0, 2), ddof=1)
        ("std1", Some(&[0, 2]), false, &[3], "float32", F(&[7.1771464347839355, 7.177145957946777, 7.1771464347839355])),
        // np.std(a, axis=(0, 2), ddof=1, keepdims=True)
        ("std1", Some(&[0, 2]), true, &[1, 3, 1], "float32", F(&[7.1771464347839355, 7.177145957946777, 7.1771464347839355])),
        // np.min(a)
        ("min", None, false, &[], "float32", F(&[-7.300000190734863])),
        // np.min(a, keepdims=True)
        ("min", None, true, &[1, 1, 1], "float32", F(&[-7.300000190734863])),
        // np.min(a, axis=1)
        ("min", Some(&[1]), false, &[2, 4], "float32", F(&[-7.300000190734863, -6.199999809265137, -5.099999904632568, -4.0, 5.900000095367432, 7.0, 8.100000381469727, 9.199999809265137])),
        // np.min(a, axis=-1)
        ("min", Some(&[-1]), false, &[2, 3], "float32", F(&[-7.300000190734863, -2.9000000953674316, 1.5, 5.900000095367432, 10.300000190734863, 14.699999809265137])),
        // np.min(a, axis=(0, 2))
        ("min", Some(&[0, 2]), false, &[3], "float32", F(&[-7.300000190734863, -2.9000000953674316, 1.5])),
        // np.min(a, axis=(0, 2), keepdims=True)
        ("min", Some(&[0, 2]), true, &[1, 3, 1], "float32", F(&[-7.300000190734863, -2.9000000953674316, 1.5])),
        // np.max(a)
        ("max", None, false, &[], "float32", F(&[18.0])),
        // np.max(a, keepdims=True)
        ("max", None, true, &[1, 1, 1], "float32", F(&[18.0])),
        // np.max(a, axis=1)
        ("max", Some(&[1]), false, &[2, 4], "float32", F(&[1.5, 2.5999999046325684, 3.700000047683716, 4.800000190734863, 14.699999809265137, 15.800000190734863, 16.899999618530273, 18.0])),
        // np.max(a, axis=-1)
        ("max", Some(&[-1]), false, &[2, 3], "float32", F(&[-4.0, 0.4000000059604645, 4.800000190734863, 9.199999809265137, 13.600000381469727, 18.0])),
        // np.max(a, axis=(0, 2))
        ("max", Some(&[0, 2]), false, &[3], "float32", F(&[9.199999809265137, 13.600000381469727, 18.0])),
        // np.max(a, axis=(0, 2), keepdims=True)
        ("max", Some(&[0, 2]), true, &[1, 3, 1], "float32", F(&[9.199999809265137, 13.600000381469727, 18.0])),
        // np.all(a)
        ("all", None, false, &[], "bool", B(&[true])),
        // np.all(a, keepdims=True)
        ("all", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.all(a, axis=1)
        ("all", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.all(a, axis=-1)
        ("all", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.all(a, axis=(0, 2))
        ("all", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.all(a, axis=(0, 2), keepdims=True)
        ("all", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
        // np.any(a)
        ("any", None, false, &[], "bool", B(&[true])),
        // np.any(a, keepdims=True)
        ("any", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.any(a, axis=1)
        ("any", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.any(a, axis=-1)
        ("any", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.any(a, axis=(0, 2))
        ("any", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.any(a, axis=(0, 2), keepdims=True)
        ("any", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
    ];
    run_table(&x, cases);
});

on_every_device!(table_float64, |_dev| {
    let x = input("float64")?;
    // NumPy 2.4 with a = ((np.arange(24)*7) % 24 * 0.37 - 3.1).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[Case] = &[
        // np.sum(a)
        ("sum", None, false, &[], "float64", F(&[27.72])),
        // np.sum(a, keepdims=True)
        ("sum", None, true, &[1, 1, 1], "float64", F(&[27.72])),
        // np.sum(a, axis=1)
        ("sum", Some(&[1]), false, &[2, 4], "float64", F(&[-4.860000000000001, 2.9099999999999997, 10.68, 0.69, 8.46, 7.35, -2.6400000000000006, 5.129999999999999])),
        // np.sum(a, axis=-1)
        ("sum", Some(&[-1]), false, &[2, 3], "float64", F(&[3.1399999999999992, 0.18000000000000016, 6.1000000000000005, 3.1399999999999992, 9.059999999999999, 6.1000000000000005])),
        // np.sum(a, axis=(0, 2))
        ("sum", Some(&[0, 2]), false, &[3], "float64", F(&[6.2799999999999985, 9.239999999999998, 12.200000000000001])),
        // np.sum(a, axis=(0, 2), keepdims=True)
        ("sum", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[6.2799999999999985, 9.239999999999998, 12.200000000000001])),
        // np.prod(a)
        ("prod", None, false, &[], "float64", F(&[-544718.2901094698])),
        // np.prod(a, keepdims=True)
        ("prod", None, true, &[1, 1, 1], "float64", F(&[-544718.2901094698])),
        // np.prod(a, axis=1)
        ("prod", Some(&[1]), false, &[2, 4], "float64", F(&[-0.7030800000000007, -1.2120150000000005, 37.320192, 15.936375, 16.248839999999994, -42.30998700000001, 1.2460800000000007, 1.2546269999999995])),
        // np.prod(a, axis=-1)
        ("prod", Some(&[-1]), false, &[2, 3], "float64", F(&[15.357201600000005, 15.272122320000003, 2.160900000000002, -2.858493359999999, -22.95752976, -16.378098000000005])),
        // np.prod(a, axis=(0, 2))
        ("prod", Some(&[0, 2]), false, &[3], "float64", F(&[-43.89845880178137, -350.6102026597603, -35.391431968200045])),
        // np.prod(a, axis=(0, 2), keepdims=True)
        ("prod", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[-43.89845880178137, -350.6102026597603, -35.391431968200045])),
        // np.mean(a)
        ("mean", None, false, &[], "float64", F(&[1.155])),
        // np.mean(a, keepdims=True)
        ("mean", None, true, &[1, 1, 1], "float64", F(&[1.155])),
        // np.mean(a, axis=1)
        ("mean", Some(&[1]), false, &[2, 4], "float64", F(&[-1.6200000000000003, 0.9699999999999999, 3.56, 0.22999999999999998, 2.8200000000000003, 2.4499999999999997, -0.8800000000000002, 1.7099999999999997])),
        // np.mean(a, axis=-1)
        ("mean", Some(&[-1]), false, &[2, 3], "float64", F(&[0.7849999999999998, 0.04500000000000004, 1.5250000000000001, 0.7849999999999998, 2.2649999999999997, 1.5250000000000001])),
        // np.mean(a, axis=(0, 2))
        ("mean", Some(&[0, 2]), false, &[3], "float64", F(&[0.7849999999999998, 1.1549999999999998, 1.5250000000000001])),
        // np.mean(a, axis=(0, 2), keepdims=True)
        ("mean", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[0.7849999999999998, 1.1549999999999998, 1.5250000000000001])),
        // np.var(a)
        ("var", None, false, &[], "float64", F(&[6.5597916666666665])),
        // np.var(a, keepdims=True)
        ("var", None, true, &[1, 1, 1], "float64", F(&[6.5597916666666665])),
        // np.var(a, axis=1)
        ("var", Some(&[1]), false, &[2, 4], "float64", F(&[1.4602666666666668, 1.4602666666666666, 1.4602666666666682, 10.221866666666665, 1.4602666666666682, 10.221866666666667, 1.4602666666666668, 1.4602666666666668])),
        // np.var(a, axis=-1)
        ("var", Some(&[-1]), false, &[2, 3], "float64", F(&[8.385125, 5.920925, 5.920925000000002, 5.099525000000001, 5.099525000000002, 5.920925000000001])),
        // np.var(a, axis=(0, 2))
        ("var", Some(&[0, 2]), false, &[3], "float64", F(&[6.742325000000001, 6.742325000000001, 5.920925000000002])),
        // np.var(a, axis=(0, 2), keepdims=True)
        ("var", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[6.742325000000001, 6.742325000000001, 5.920925000000002])),
        // np.std(a, ddof=1)
        ("std1", None, false, &[], "float64", F(&[2.616295090390226])),
        // np.std(a, ddof=1, keepdims=True)
        ("std1", None, true, &[1, 1, 1], "float64", F(&[2.616295090390226])),
        // np.std(a, axis=1, ddof=1)
        ("std1", Some(&[1]), false, &[2, 4], "float64", F(&[1.4800000000000002, 1.48, 1.4800000000000006, 3.915711940375594, 1.4800000000000006, 3.9157119403755942, 1.4800000000000002, 1.4800000000000002])),
        // np.std(a, axis=-1, ddof=1)
        ("std1", Some(&[-1]), false, &[2, 3], "float64", F(&[3.3436756222257364, 2.8097271516406477, 2.809727151640648, 2.607559523130137, 2.607559523130137, 2.809727151640648])),
        // np.std(a, axis=(0, 2), ddof=1)
        ("std1", Some(&[0, 2]), false, &[3], "float64", F(&[2.7758808125916152, 2.7758808125916152, 2.6013018718655916])),
        // np.std(a, axis=(0, 2), ddof=1, keepdims=True)
        ("std1", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[2.7758808125916152, 2.7758808125916152, 2.6013018718655916])),
        // np.min(a)
        ("min", None, false, &[], "float64", F(&[-3.1])),
        // np.min(a, keepdims=True)
        ("min", None, true, &[1, 1, 1], "float64", F(&[-3.1])),
        // np.min(a, axis=1)
        ("min", Some(&[1]), false, &[2, 4], "float64", F(&[-3.1, -0.5100000000000002, 2.0799999999999996, -2.73, 1.3399999999999994, -1.9900000000000002, -2.3600000000000003, 0.22999999999999998])),
        // np.min(a, axis=-1)
        ("min", Some(&[-1]), false, &[2, 3], "float64", F(&[-3.1, -2.73, -1.25, -2.3600000000000003, -0.8800000000000003, -1.9900000000000002])),
        // np.min(a, axis=(0, 2))
        ("min", Some(&[0, 2]), false, &[3], "float64", F(&[-3.1, -2.73, -1.9900000000000002])),
        // np.min(a, axis=(0, 2), keepdims=True)
        ("min", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[-3.1, -2.73, -1.9900000000000002])),
        // np.max(a)
        ("max", None, false, &[], "float64", F(&[5.41])),
        // np.max(a, keepdims=True)
        ("max", None, true, &[1, 1, 1], "float64", F(&[5.41])),
        // np.max(a, axis=1)
        ("max", Some(&[1]), false, &[2, 4], "float64", F(&[-0.14000000000000012, 2.4499999999999997, 5.040000000000001, 4.67, 4.300000000000001, 5.41, 0.6000000000000001, 3.19])),
        // np.max(a, axis=-1)
        ("max", Some(&[-1]), false, &[2, 3], "float64", F(&[4.67, 3.56, 5.040000000000001, 3.93, 5.41, 4.300000000000001])),
        // np.max(a, axis=(0, 2))
        ("max", Some(&[0, 2]), false, &[3], "float64", F(&[4.67, 5.41, 5.040000000000001])),
        // np.max(a, axis=(0, 2), keepdims=True)
        ("max", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[4.67, 5.41, 5.040000000000001])),
        // np.all(a)
        ("all", None, false, &[], "bool", B(&[true])),
        // np.all(a, keepdims=True)
        ("all", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.all(a, axis=1)
        ("all", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.all(a, axis=-1)
        ("all", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.all(a, axis=(0, 2))
        ("all", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.all(a, axis=(0, 2), keepdims=True)
        ("all", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
        // np.any(a)
        ("any", None, false, &[], "bool", B(&[true])),
        // np.any(a, keepdims=True)
        ("any", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.any(a, axis=1)
        ("any", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.any(a, axis=-1)
        ("any", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.any(a, axis=(0, 2))
        ("any", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.any(a, axis=(0, 2), keepdims=True)
        ("any", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
    ];
    run_table(&x, cases);
});

on_every_device!(table_complex64, |_dev| {
    let x = input("complex64")?;
    // NumPy 2.4 with a = ((np.arange(24)-5)*0.5 + 1j*((np.arange(24)*5) % 7 - 2.5)).astype(np.complex64).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[Case] = &[
        // np.sum(a)
        ("sum", None, false, &[], "complex64", C(&[(78.0, 11.0)])),
        // np.sum(a, keepdims=True)
        ("sum", None, true, &[1, 1, 1], "complex64", C(&[(78.0, 11.0)])),
        // np.sum(a, axis=1)
        ("sum", Some(&[1]), false, &[2, 4], "complex64", C(&[(-1.5, 3.5), (0.0, 4.5), (1.5, -1.5), (3.0, -0.5), (16.5, 1.5), (18.0, -4.5), (19.5, 3.5), (21.0, 4.5)])),
        // np.sum(a, axis=-1)
        ("sum", Some(&[-1]), false, &[2, 3], "complex64", C(&[(-7.0, -1.0), (1.0, 2.0), (9.0, 5.0), (17.0, 1.0), (25.0, 4.0), (33.0, 0.0)])),
        // np.sum(a, axis=(0, 2))
        ("sum", Some(&[0, 2]), false, &[3], "complex64", C(&[(10.0, 0.0), (26.0, 6.0), (42.0, 5.0)])),
        // np.sum(a, axis=(0, 2), keepdims=True)
        ("sum", Some(&[0, 2]), true, &[1, 3, 1], "complex64", C(&[(10.0, 0.0), (26.0, 6.0), (42.0, 5.0)])),
        // np.prod(a)
        ("prod", None, false, &[], "complex64", C(&[(-50358206332928.0, -92797449273344.0)])),
        // np.prod(a, keepdims=True)
        ("prod", None, true, &[1, 1, 1], "complex64", C(&[(-50358206332928.0, -92797449273344.0)])),
        // np.prod(a, axis=1)
        ("prod", Some(&[1]), false, &[2, 4], "complex64", C(&[(33.75, 13.75), (-6.0, -7.875), (0.25, 3.25), (-17.75, -13.625), (143.75, 65.75), (163.5, -130.125), (324.25, 90.75), (268.75, 240.625)])),
        // np.prod(a, axis=-1)
        ("prod", Some(&[-1]), false, &[2, 3], "complex64", C(&[(27.5, 16.875), (2.625, 9.75), (-2.125, 80.75), (429.375, 103.75), (1538.25, 944.625), (5029.5, -140.375)])),
        // np.prod(a, axis=(0, 2))
        ("prod", Some(&[0, 2]), false, &[3], "complex64", C(&[(10057.03125, 10098.828125), (-5172.1875, 17477.578125), (647.59375, 406430.4375)])),
        // np.prod(a, axis=(0, 2), keepdims=True)
        ("prod", Some(&[0, 2]), true, &[1, 3, 1], "complex64", C(&[(10057.03125, 10098.828125), (-5172.1875, 17477.578125), (647.59375, 406430.4375)])),
        // np.mean(a)
        ("mean", None, false, &[], "complex64", C(&[(3.25, 0.4583333432674408)])),
        // np.mean(a, keepdims=True)
        ("mean", None, true, &[1, 1, 1], "complex64", C(&[(3.25, 0.4583333432674408)])),
        // np.mean(a, axis=1)
        ("mean", Some(&[1]), false, &[2, 4], "complex64", C(&[(-0.5, 1.1666666269302368), (0.0, 1.5), (0.5, -0.5), (1.0, -0.1666666716337204), (5.5, 0.5), (6.0, -1.5), (6.5, 1.1666666269302368), (7.0, 1.5)])),
        // np.mean(a, axis=-1)
        ("mean", Some(&[-1]), false, &[2, 3], "complex64", C(&[(-1.75, -0.25), (0.25, 0.5), (2.25, 1.25), (4.25, 0.25), (6.25, 1.0), (8.25, 0.0)])),
        // np.mean(a, axis=(0, 2))
        ("mean", Some(&[0, 2]), false, &[3], "complex64", C(&[(1.25, 0.0), (3.25, 0.75), (5.25, 0.625)])),
        // np.mean(a, axis=(0, 2), keepdims=True)
        ("mean", Some(&[0, 2]), true, &[1, 3, 1], "complex64", C(&[(1.25, 0.0), (3.25, 0.75), (5.25, 0.625)])),
        // np.var(a)
        ("var", None, false, &[], "float32", F(&[16.01909828186035])),
        // np.var(a, keepdims=True)
        ("var", None, true, &[1, 1, 1], "float32", F(&[16.01909828186035])),
        // np.var(a, axis=1)
        ("var", Some(&[1]), false, &[2, 4], "float32", F(&[9.555554389953613, 3.3333332538604736, 3.3333332538604736, 9.55555534362793, 3.3333332538604736, 3.3333332538604736, 9.555554389953613, 3.3333332538604736])),
        // np.var(a, axis=-1)
        ("var", Some(&[-1]), false, &[2, 3], "float32", F(&[4.0, 5.3125, 4.0, 4.0, 3.5625, 3.5625])),
        // np.var(a, axis=(0, 2))
        ("var", Some(&[0, 2]), false, &[3], "float32", F(&[13.0625, 13.5, 13.171875])),
        // np.var(a, axis=(0, 2), keepdims=True)
        ("var", Some(&[0, 2]), true, &[1, 3, 1], "float32", F(&[13.0625, 13.5, 13.171875])),
        // np.std(a, ddof=1)
        ("std1", None, false, &[], "float32", F(&[4.0884690284729])),
        // np.std(a, ddof=1, keepdims=True)
        ("std1", None, true, &[1, 1, 1], "float32", F(&[4.0884690284729])),
        // np.std(a, axis=1, ddof=1)
        ("std1", Some(&[1]), false, &[2, 4], "float32", F(&[3.7859387397766113, 2.2360680103302, 2.2360680103302, 3.7859387397766113, 2.2360680103302, 2.2360680103302, 3.7859387397766113, 2.2360680103302])),
        // np.std(a, axis=-1, ddof=1)
        ("std1", Some(&[-1]), false, &[2, 3], "float32", F(&[2.309401035308838, 2.6614532470703125, 2.309401035308838, 2.309401035308838, 2.1794495582580566, 2.1794495582580566])),
        // np.std(a, axis=(0, 2), ddof=1)
        ("std1", Some(&[0, 2]), false, &[3], "float32", F(&[3.86375093460083, 3.927922010421753, 3.8798933029174805])),
        // np.std(a, axis=(0, 2), ddof=1, keepdims=True)
        ("std1", Some(&[0, 2]), true, &[1, 3, 1], "float32", F(&[3.86375093460083, 3.927922010421753, 3.8798933029174805])),
        // np.min(a)
        ("min", None, false, &[], "complex64", C(&[(-2.5, -2.5)])),
        // np.min(a, keepdims=True)
        ("min", None, true, &[1, 1, 1], "complex64", C(&[(-2.5, -2.5)])),
        // np.min(a, axis=1)
        ("min", Some(&[1]), false, &[2, 4], "complex64", C(&[(-2.5, -2.5), (-2.0, 2.5), (-1.5, 0.5), (-1.0, -1.5), (3.5, 1.5), (4.0, -0.5), (4.5, -2.5), (5.0, 2.5)])),
        // np.min(a, axis=-1)
        ("min", Some(&[-1]), false, &[2, 3], "complex64", C(&[(-2.5, -2.5), (-0.5, 3.5), (1.5, 2.5), (3.5, 1.5), (5.5, 0.5), (7.5, -0.5)])),
        // np.min(a, axis=(0, 2))
        ("min", Some(&[0, 2]), false, &[3], "complex64", C(&[(-2.5, -2.5), (-0.5, 3.5), (1.5, 2.5)])),
        // np.min(a, axis=(0, 2), keepdims=True)
        ("min", Some(&[0, 2]), true, &[1, 3, 1], "complex64", C(&[(-2.5, -2.5), (-0.5, 3.5), (1.5, 2.5)])),
        // np.max(a)
        ("max", None, false, &[], "complex64", C(&[(9.0, 0.5)])),
        // np.max(a, keepdims=True)
        ("max", None, true, &[1, 1, 1], "complex64", C(&[(9.0, 0.5)])),
        // np.max(a, axis=1)
        ("max", Some(&[1]), false, &[2, 4], "complex64", C(&[(1.5, 2.5), (2.0, 0.5), (2.5, -1.5), (3.0, 3.5), (7.5, -0.5), (8.0, -2.5), (8.5, 2.5), (9.0, 0.5)])),
        // np.max(a, axis=-1)
        ("max", Some(&[-1]), false, &[2, 3], "complex64", C(&[(-1.0, -1.5), (1.0, -2.5), (3.0, 3.5), (5.0, 2.5), (7.0, 1.5), (9.0, 0.5)])),
        // np.max(a, axis=(0, 2))
        ("max", Some(&[0, 2]), false, &[3], "complex64", C(&[(5.0, 2.5), (7.0, 1.5), (9.0, 0.5)])),
        // np.max(a, axis=(0, 2), keepdims=True)
        ("max", Some(&[0, 2]), true, &[1, 3, 1], "complex64", C(&[(5.0, 2.5), (7.0, 1.5), (9.0, 0.5)])),
        // np.all(a)
        ("all", None, false, &[], "bool", B(&[true])),
        // np.all(a, keepdims=True)
        ("all", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.all(a, axis=1)
        ("all", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.all(a, axis=-1)
        ("all", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.all(a, axis=(0, 2))
        ("all", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.all(a, axis=(0, 2), keepdims=True)
        ("all", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
        // np.any(a)
        ("any", None, false, &[], "bool", B(&[true])),
        // np.any(a, keepdims=True)
        ("any", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.any(a, axis=1)
        ("any", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.any(a, axis=-1)
        ("any", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.any(a, axis=(0, 2))
        ("any", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.any(a, axis=(0, 2), keepdims=True)
        ("any", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
    ];
    run_table(&x, cases);
});

on_every_device!(table_bool, |_dev| {
    let x = input("bool")?;
    // NumPy 2.4 with a = (np.arange(24) % 3 == 0).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[Case] = &[
        // np.sum(a)
        ("sum", None, false, &[], "int64", I(&[8])),
        // np.sum(a, keepdims=True)
        ("sum", None, true, &[1, 1, 1], "int64", I(&[8])),
        // np.sum(a, axis=1)
        ("sum", Some(&[1]), false, &[2, 4], "int64", I(&[1, 1, 1, 1, 1, 1, 1, 1])),
        // np.sum(a, axis=-1)
        ("sum", Some(&[-1]), false, &[2, 3], "int64", I(&[2, 1, 1, 2, 1, 1])),
        // np.sum(a, axis=(0, 2))
        ("sum", Some(&[0, 2]), false, &[3], "int64", I(&[4, 2, 2])),
        // np.sum(a, axis=(0, 2), keepdims=True)
        ("sum", Some(&[0, 2]), true, &[1, 3, 1], "int64", I(&[4, 2, 2])),
        // np.prod(a)
        ("prod", None, false, &[], "int64", I(&[0])),
        // np.prod(a, keepdims=True)
        ("prod", None, true, &[1, 1, 1], "int64", I(&[0])),
        // np.prod(a, axis=1)
        ("prod", Some(&[1]), false, &[2, 4], "int64", I(&[0, 0, 0, 0, 0, 0, 0, 0])),
        // np.prod(a, axis=-1)
        ("prod", Some(&[-1]), false, &[2, 3], "int64", I(&[0, 0, 0, 0, 0, 0])),
        // np.prod(a, axis=(0, 2))
        ("prod", Some(&[0, 2]), false, &[3], "int64", I(&[0, 0, 0])),
        // np.prod(a, axis=(0, 2), keepdims=True)
        ("prod", Some(&[0, 2]), true, &[1, 3, 1], "int64", I(&[0, 0, 0])),
        // np.mean(a)
        ("mean", None, false, &[], "float64", F(&[0.3333333333333333])),
        // np.mean(a, keepdims=True)
        ("mean", None, true, &[1, 1, 1], "float64", F(&[0.3333333333333333])),
        // np.mean(a, axis=1)
        ("mean", Some(&[1]), false, &[2, 4], "float64", F(&[0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333])),
        // np.mean(a, axis=-1)
        ("mean", Some(&[-1]), false, &[2, 3], "float64", F(&[0.5, 0.25, 0.25, 0.5, 0.25, 0.25])),
        // np.mean(a, axis=(0, 2))
        ("mean", Some(&[0, 2]), false, &[3], "float64", F(&[0.5, 0.25, 0.25])),
        // np.mean(a, axis=(0, 2), keepdims=True)
        ("mean", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[0.5, 0.25, 0.25])),
        // np.var(a)
        ("var", None, false, &[], "float64", F(&[0.22222222222222224])),
        // np.var(a, keepdims=True)
        ("var", None, true, &[1, 1, 1], "float64", F(&[0.22222222222222224])),
        // np.var(a, axis=1)
        ("var", Some(&[1]), false, &[2, 4], "float64", F(&[0.22222222222222224, 0.22222222222222224, 0.22222222222222224, 0.22222222222222224, 0.22222222222222224, 0.22222222222222224, 0.22222222222222224, 0.22222222222222224])),
        // np.var(a, axis=-1)
        ("var", Some(&[-1]), false, &[2, 3], "float64", F(&[0.25, 0.1875, 0.1875, 0.25, 0.1875, 0.1875])),
        // np.var(a, axis=(0, 2))
        ("var", Some(&[0, 2]), false, &[3], "float64", F(&[0.25, 0.1875, 0.1875])),
        // np.var(a, axis=(0, 2), keepdims=True)
        ("var", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[0.25, 0.1875, 0.1875])),
        // np.std(a, ddof=1)
        ("std1", None, false, &[], "float64", F(&[0.48154341234307685])),
        // np.std(a, ddof=1, keepdims=True)
        ("std1", None, true, &[1, 1, 1], "float64", F(&[0.48154341234307685])),
        // np.std(a, axis=1, ddof=1)
        ("std1", Some(&[1]), false, &[2, 4], "float64", F(&[0.5773502691896258, 0.5773502691896258, 0.5773502691896258, 0.5773502691896258, 0.5773502691896258, 0.5773502691896258, 0.5773502691896258, 0.5773502691896258])),
        // np.std(a, axis=-1, ddof=1)
        ("std1", Some(&[-1]), false, &[2, 3], "float64", F(&[0.5773502691896257, 0.5, 0.5, 0.5773502691896257, 0.5, 0.5])),
        // np.std(a, axis=(0, 2), ddof=1)
        ("std1", Some(&[0, 2]), false, &[3], "float64", F(&[0.5345224838248488, 0.4629100498862757, 0.4629100498862757])),
        // np.std(a, axis=(0, 2), ddof=1, keepdims=True)
        ("std1", Some(&[0, 2]), true, &[1, 3, 1], "float64", F(&[0.5345224838248488, 0.4629100498862757, 0.4629100498862757])),
        // np.min(a)
        ("min", None, false, &[], "bool", B(&[false])),
        // np.min(a, keepdims=True)
        ("min", None, true, &[1, 1, 1], "bool", B(&[false])),
        // np.min(a, axis=1)
        ("min", Some(&[1]), false, &[2, 4], "bool", B(&[false, false, false, false, false, false, false, false])),
        // np.min(a, axis=-1)
        ("min", Some(&[-1]), false, &[2, 3], "bool", B(&[false, false, false, false, false, false])),
        // np.min(a, axis=(0, 2))
        ("min", Some(&[0, 2]), false, &[3], "bool", B(&[false, false, false])),
        // np.min(a, axis=(0, 2), keepdims=True)
        ("min", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[false, false, false])),
        // np.max(a)
        ("max", None, false, &[], "bool", B(&[true])),
        // np.max(a, keepdims=True)
        ("max", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.max(a, axis=1)
        ("max", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.max(a, axis=-1)
        ("max", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.max(a, axis=(0, 2))
        ("max", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.max(a, axis=(0, 2), keepdims=True)
        ("max", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
        // np.all(a)
        ("all", None, false, &[], "bool", B(&[false])),
        // np.all(a, keepdims=True)
        ("all", None, true, &[1, 1, 1], "bool", B(&[false])),
        // np.all(a, axis=1)
        ("all", Some(&[1]), false, &[2, 4], "bool", B(&[false, false, false, false, false, false, false, false])),
        // np.all(a, axis=-1)
        ("all", Some(&[-1]), false, &[2, 3], "bool", B(&[false, false, false, false, false, false])),
        // np.all(a, axis=(0, 2))
        ("all", Some(&[0, 2]), false, &[3], "bool", B(&[false, false, false])),
        // np.all(a, axis=(0, 2), keepdims=True)
        ("all", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[false, false, false])),
        // np.any(a)
        ("any", None, false, &[], "bool", B(&[true])),
        // np.any(a, keepdims=True)
        ("any", None, true, &[1, 1, 1], "bool", B(&[true])),
        // np.any(a, axis=1)
        ("any", Some(&[1]), false, &[2, 4], "bool", B(&[true, true, true, true, true, true, true, true])),
        // np.any(a, axis=-1)
        ("any", Some(&[-1]), false, &[2, 3], "bool", B(&[true, true, true, true, true, true])),
        // np.any(a, axis=(0, 2))
        ("any", Some(&[0, 2]), false, &[3], "bool", B(&[true, true, true])),
        // np.any(a, axis=(0, 2), keepdims=True)
        ("any", Some(&[0, 2]), true, &[1, 3, 1], "bool", B(&[true, true, true])),
    ];
    run_table(&x, cases);
});

on_every_device!(args_int8, |_dev| {
    let x = input("int8")?;
    // NumPy 2.4 with a = ((np.arange(24)*37) % 256 - 128).astype(np.int8).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ArgCase] = &[
        // np.argmin(a)
        ("argmin", None, false, &[], &[0]),
        // np.argmin(a, keepdims=True)
        ("argmin", None, true, &[1, 1, 1], &[0]),
        // np.argmin(a, axis=0)
        ("argmin", Some(0), false, &[3, 4], &[0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1]),
        // np.argmin(a, axis=1, keepdims=True)
        ("argmin", Some(1), true, &[2, 1, 4], &[0, 0, 0, 1, 1, 2, 0, 0]),
        // np.argmin(a, axis=-1)
        ("argmin", Some(-1), false, &[2, 3], &[0, 3, 0, 2, 0, 1]),
        // np.argmax(a)
        ("argmax", None, false, &[], &[20]),
        // np.argmax(a, keepdims=True)
        ("argmax", None, true, &[1, 1, 1], &[20]),
        // np.argmax(a, axis=0)
        ("argmax", Some(0), false, &[3, 4], &[1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0]),
        // np.argmax(a, axis=1, keepdims=True)
        ("argmax", Some(1), true, &[2, 1, 4], &[1, 1, 1, 2, 2, 0, 1, 1]),
        // np.argmax(a, axis=-1)
        ("argmax", Some(-1), false, &[2, 3], &[3, 2, 3, 1, 3, 0]),
    ];
    run_arg_table(&x, cases);
});

on_every_device!(args_uint8, |_dev| {
    let x = input("uint8")?;
    // NumPy 2.4 with a = ((np.arange(24)*53) % 256).astype(np.uint8).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ArgCase] = &[
        // np.argmin(a)
        ("argmin", None, false, &[], &[0]),
        // np.argmin(a, keepdims=True)
        ("argmin", None, true, &[1, 1, 1], &[0]),
        // np.argmin(a, axis=0)
        ("argmin", Some(0), false, &[3, 4], &[0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0]),
        // np.argmin(a, axis=1, keepdims=True)
        ("argmin", Some(1), true, &[2, 1, 4], &[0, 1, 2, 2, 2, 2, 2, 0]),
        // np.argmin(a, axis=-1)
        ("argmin", Some(-1), false, &[2, 3], &[0, 1, 2, 3, 0, 0]),
        // np.argmax(a)
        ("argmax", None, false, &[], &[19]),
        // np.argmax(a, keepdims=True)
        ("argmax", None, true, &[1, 1, 1], &[19]),
        // np.argmax(a, axis=0)
        ("argmax", Some(0), false, &[3, 4], &[1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1]),
        // np.argmax(a, axis=1, keepdims=True)
        ("argmax", Some(1), true, &[2, 1, 4], &[1, 2, 0, 0, 0, 0, 0, 1]),
        // np.argmax(a, axis=-1)
        ("argmax", Some(-1), false, &[2, 3], &[3, 0, 1, 2, 3, 3]),
    ];
    run_arg_table(&x, cases);
});

on_every_device!(args_int32, |_dev| {
    let x = input("int32")?;
    // NumPy 2.4 with a = ((np.arange(24)-12)*150000001).astype(np.int32).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ArgCase] = &[
        // np.argmin(a)
        ("argmin", None, false, &[], &[0]),
        // np.argmin(a, keepdims=True)
        ("argmin", None, true, &[1, 1, 1], &[0]),
        // np.argmin(a, axis=0)
        ("argmin", Some(0), false, &[3, 4], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        // np.argmin(a, axis=1, keepdims=True)
        ("argmin", Some(1), true, &[2, 1, 4], &[0, 0, 0, 0, 0, 0, 0, 0]),
        // np.argmin(a, axis=-1)
        ("argmin", Some(-1), false, &[2, 3], &[0, 0, 0, 0, 0, 0]),
        // np.argmax(a)
        ("argmax", None, false, &[], &[23]),
        // np.argmax(a, keepdims=True)
        ("argmax", None, true, &[1, 1, 1], &[23]),
        // np.argmax(a, axis=0)
        ("argmax", Some(0), false, &[3, 4], &[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        // np.argmax(a, axis=1, keepdims=True)
        ("argmax", Some(1), true, &[2, 1, 4], &[2, 2, 2, 2, 2, 2, 2, 2]),
        // np.argmax(a, axis=-1)
        ("argmax", Some(-1), false, &[2, 3], &[3, 3, 3, 3, 3, 3]),
    ];
    run_arg_table(&x, cases);
});

on_every_device!(args_float16, |_dev| {
    let x = input("float16")?;
    // NumPy 2.4 with a = ((np.arange(24)-10)*0.25).astype(np.float16).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ArgCase] = &[
        // np.argmin(a)
        ("argmin", None, false, &[], &[0]),
        // np.argmin(a, keepdims=True)
        ("argmin", None, true, &[1, 1, 1], &[0]),
        // np.argmin(a, axis=0)
        ("argmin", Some(0), false, &[3, 4], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        // np.argmin(a, axis=1, keepdims=True)
        ("argmin", Some(1), true, &[2, 1, 4], &[0, 0, 0, 0, 0, 0, 0, 0]),
        // np.argmin(a, axis=-1)
        ("argmin", Some(-1), false, &[2, 3], &[0, 0, 0, 0, 0, 0]),
        // np.argmax(a)
        ("argmax", None, false, &[], &[23]),
        // np.argmax(a, keepdims=True)
        ("argmax", None, true, &[1, 1, 1], &[23]),
        // np.argmax(a, axis=0)
        ("argmax", Some(0), false, &[3, 4], &[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        // np.argmax(a, axis=1, keepdims=True)
        ("argmax", Some(1), true, &[2, 1, 4], &[2, 2, 2, 2, 2, 2, 2, 2]),
        // np.argmax(a, axis=-1)
        ("argmax", Some(-1), false, &[2, 3], &[3, 3, 3, 3, 3, 3]),
    ];
    run_arg_table(&x, cases);
});

on_every_device!(args_float32, |_dev| {
    let x = input("float32")?;
    // NumPy 2.4 with a = (np.arange(24)*1.1 - 7.3).astype(np.float32).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ArgCase] = &[
        // np.argmin(a)
        ("argmin", None, false, &[], &[0]),
        // np.argmin(a, keepdims=True)
        ("argmin", None, true, &[1, 1, 1], &[0]),
        // np.argmin(a, axis=0)
        ("argmin", Some(0), false, &[3, 4], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        // np.argmin(a, axis=1, keepdims=True)
        ("argmin", Some(1), true, &[2, 1, 4], &[0, 0, 0, 0, 0, 0, 0, 0]),
        // np.argmin(a, axis=-1)
        ("argmin", Some(-1), false, &[2, 3], &[0, 0, 0, 0, 0, 0]),
        // np.argmax(a)
        ("argmax", None, false, &[], &[23]),
        // np.argmax(a, keepdims=True)
        ("argmax", None, true, &[1, 1, 1], &[23]),
        // np.argmax(a, axis=0)
        ("argmax", Some(0), false, &[3, 4], &[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        // np.argmax(a, axis=1, keepdims=True)
        ("argmax", Some(1), true, &[2, 1, 4], &[2, 2, 2, 2, 2, 2, 2, 2]),
        // np.argmax(a, axis=-1)
        ("argmax", Some(-1), false, &[2, 3], &[3, 3, 3, 3, 3, 3]),
    ];
    run_arg_table(&x, cases);
});

on_every_device!(args_float64, |_dev| {
    let x = input("float64")?;
    // NumPy 2.4 with a = ((np.arange(24)*7) % 24 * 0.37 - 3.1).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ArgCase] = &[
        // np.argmin(a)
        ("argmin", None, false, &[], &[0]),
        // np.argmin(a, keepdims=True)
        ("argmin", None, true, &[1, 1, 1], &[0]),
        // np.argmin(a, axis=0)
        ("argmin", Some(0), false, &[3, 4], &[0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0]),
        // np.argmin(a, axis=1, keepdims=True)
        ("argmin", Some(1), true, &[2, 1, 4], &[0, 0, 0, 1, 0, 2, 0, 0]),
        // np.argmin(a, axis=-1)
        ("argmin", Some(-1), false, &[2, 3], &[0, 3, 3, 2, 2, 1]),
        // np.argmax(a)
        ("argmax", None, false, &[], &[17]),
        // np.argmax(a, keepdims=True)
        ("argmax", None, true, &[1, 1, 1], &[17]),
        // np.argmax(a, axis=0)
        ("argmax", Some(0), false, &[3, 4], &[1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1]),
        // np.argmax(a, axis=1, keepdims=True)
        ("argmax", Some(1), true, &[2, 1, 4], &[2, 2, 2, 0, 2, 1, 2, 2]),
        // np.argmax(a, axis=-1)
        ("argmax", Some(-1), false, &[2, 3], &[3, 2, 2, 1, 1, 0]),
    ];
    run_arg_table(&x, cases);
});

on_every_device!(args_complex64, |_dev| {
    let x = input("complex64")?;
    // NumPy 2.4 with a = ((np.arange(24)-5)*0.5 + 1j*((np.arange(24)*5) % 7 - 2.5)).astype(np.complex64).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ArgCase] = &[
        // np.argmin(a)
        ("argmin", None, false, &[], &[0]),
        // np.argmin(a, keepdims=True)
        ("argmin", None, true, &[1, 1, 1], &[0]),
        // np.argmin(a, axis=0)
        ("argmin", Some(0), false, &[3, 4], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        // np.argmin(a, axis=1, keepdims=True)
        ("argmin", Some(1), true, &[2, 1, 4], &[0, 0, 0, 0, 0, 0, 0, 0]),
        // np.argmin(a, axis=-1)
        ("argmin", Some(-1), false, &[2, 3], &[0, 0, 0, 0, 0, 0]),
        // np.argmax(a)
        ("argmax", None, false, &[], &[23]),
        // np.argmax(a, keepdims=True)
        ("argmax", None, true, &[1, 1, 1], &[23]),
        // np.argmax(a, axis=0)
        ("argmax", Some(0), false, &[3, 4], &[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        // np.argmax(a, axis=1, keepdims=True)
        ("argmax", Some(1), true, &[2, 1, 4], &[2, 2, 2, 2, 2, 2, 2, 2]),
        // np.argmax(a, axis=-1)
        ("argmax", Some(-1), false, &[2, 3], &[3, 3, 3, 3, 3, 3]),
    ];
    run_arg_table(&x, cases);
});

on_every_device!(args_bool, |_dev| {
    let x = input("bool")?;
    // NumPy 2.4 with a = (np.arange(24) % 3 == 0).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ArgCase] = &[
        // np.argmin(a)
        ("argmin", None, false, &[], &[1]),
        // np.argmin(a, keepdims=True)
        ("argmin", None, true, &[1, 1, 1], &[1]),
        // np.argmin(a, axis=0)
        ("argmin", Some(0), false, &[3, 4], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        // np.argmin(a, axis=1, keepdims=True)
        ("argmin", Some(1), true, &[2, 1, 4], &[1, 0, 0, 1, 1, 0, 0, 1]),
        // np.argmin(a, axis=-1)
        ("argmin", Some(-1), false, &[2, 3], &[1, 0, 0, 1, 0, 0]),
        // np.argmax(a)
        ("argmax", None, false, &[], &[0]),
        // np.argmax(a, keepdims=True)
        ("argmax", None, true, &[1, 1, 1], &[0]),
        // np.argmax(a, axis=0)
        ("argmax", Some(0), false, &[3, 4], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
        // np.argmax(a, axis=1, keepdims=True)
        ("argmax", Some(1), true, &[2, 1, 4], &[0, 2, 1, 0, 0, 2, 1, 0]),
        // np.argmax(a, axis=-1)
        ("argmax", Some(-1), false, &[2, 3], &[0, 2, 1, 0, 2, 1]),
    ];
    run_arg_table(&x, cases);
});

on_every_device!(scans_int8, |_dev| {
    let x = input("int8")?;
    // NumPy 2.4 with a = ((np.arange(24)*37) % 256 - 128).astype(np.int8).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ScanCase] = &[
        // np.cumsum(a)
        ("cumsum", None, &[24], "int64", I(&[-128, -219, -273, -290, -270, -213, -119, -244, -332, -383, -397, -374, -314, -217, -339, -424, -472, -483, -457, -394, -294, -413, -495, -540])),
        // np.cumsum(a, axis=0)
        ("cumsum", Some(0), &[2, 3, 4], "int64", I(&[-128, -91, -54, -17, 20, 57, 94, -125, -88, -51, -14, 23, -68, 6, -176, -102, -28, 46, 120, -62, 12, -170, -96, -22])),
        // np.cumsum(a, axis=1)
        ("cumsum", Some(1), &[2, 3, 4], "int64", I(&[-128, -91, -54, -17, -108, -34, 40, -142, -196, -85, 26, -119, 60, 97, -122, -85, 12, 86, -96, -22, 112, -33, -178, -67])),
        // np.cumsum(a, axis=-1)
        ("cumsum", Some(-1), &[2, 3, 4], "int64", I(&[-128, -219, -273, -290, 20, 77, 171, 46, -88, -139, -153, -130, 60, 157, 35, -50, -48, -59, -33, 30, 100, -19, -101, -146])),
        // np.cumprod(a)
        ("cumprod", None, &[24], "int64", I(&[-128, 11648, -628992, 10692864, 213857280, 12189864960, 1145847306240, -143230913280000, 12604320368640000, -642820338800640000, 8999484743208960000, 4073964283001012224, 4630184021836562432, 6405992349117317120, -6767815496511520768, 3415250918483165184, 2088652576194035712, -4528434264424841216, -7058826432788561920, -1984207496650162176, 4493435145788850176, 236795788703825920, -970510600004173824, 6779488852768718848])),
        // np.cumprod(a, axis=0)
        ("cumprod", Some(0), &[2, 3, 4], "int64", I(&[-128, -91, -54, -17, 20, 57, 94, -125, -88, -51, -14, 23, -7680, -8827, 6588, 1445, -960, -627, 2444, -7875, -8800, 6069, 1148, -1035])),
        // np.cumprod(a, axis=1)
        ("cumprod", Some(1), &[2, 3, 4], "int64", I(&[-128, -91, -54, -17, -2560, -5187, -5076, 2125, 225280, 264537, 71064, 48875, 60, 97, -122, -85, -2880, -1067, -3172, -5355, -288000, 126973, 260104, 240975])),
        // np.cumprod(a, axis=-1)
        ("cumprod", Some(-1), &[2, 3, 4], "int64", I(&[-128, 11648, -628992, 10692864, 20, 1140, 107160, -13395000, -88, 4488, -62832, -1445136, 60, 5820, -710040, 60353400, -48, 528, 13728, 864864, 100, -11900, 975800, -43911000])),
    ];
    run_scan_table(&x, cases);
});

on_every_device!(scans_uint8, |_dev| {
    let x = input("uint8")?;
    // NumPy 2.4 with a = ((np.arange(24)*53) % 256).astype(np.uint8).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ScanCase] = &[
        // np.cumsum(a)
        ("cumsum", None, &[24], "uint64", U(&[0, 53, 159, 318, 530, 539, 601, 716, 884, 1105, 1123, 1194, 1318, 1495, 1725, 1752, 1832, 1965, 2151, 2390, 2426, 2515, 2657, 2852])),
        // np.cumsum(a, axis=0)
        ("cumsum", Some(0), &[2, 3, 4], "uint64", U(&[0, 53, 106, 159, 212, 9, 62, 115, 168, 221, 18, 71, 124, 230, 336, 186, 292, 142, 248, 354, 204, 310, 160, 266])),
        // np.cumsum(a, axis=1)
        ("cumsum", Some(1), &[2, 3, 4], "uint64", U(&[0, 53, 106, 159, 212, 62, 168, 274, 380, 283, 186, 345, 124, 177, 230, 27, 204, 310, 416, 266, 240, 399, 558, 461])),
        // np.cumsum(a, axis=-1)
        ("cumsum", Some(-1), &[2, 3, 4], "uint64", U(&[0, 53, 159, 318, 212, 221, 283, 398, 168, 389, 407, 478, 124, 301, 531, 558, 80, 213, 399, 638, 36, 125, 267, 462])),
        // np.cumprod(a)
        ("cumprod", None, &[24], "uint64", U(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
        // np.cumprod(a, axis=0)
        ("cumprod", Some(0), &[2, 3, 4], "uint64", U(&[0, 53, 106, 159, 212, 9, 62, 115, 168, 221, 18, 71, 0, 9381, 24380, 4293, 16960, 1197, 11532, 27485, 6048, 19669, 2556, 13845])),
        // np.cumprod(a, axis=1)
        ("cumprod", Some(1), &[2, 3, 4], "uint64", U(&[0, 53, 106, 159, 0, 477, 6572, 18285, 0, 105417, 118296, 1298235, 124, 177, 230, 27, 9920, 23541, 42780, 6453, 357120, 2095149, 6074760, 1258335])),
        // np.cumprod(a, axis=-1)
        ("cumprod", Some(-1), &[2, 3, 4], "uint64", U(&[0, 0, 0, 0, 212, 1908, 118296, 13604040, 168, 37128, 668304, 47449584, 124, 21948, 5048040, 136297080, 80, 10640, 1979040, 472990560, 36, 3204, 454968, 88718760])),
    ];
    run_scan_table(&x, cases);
});

on_every_device!(scans_int32, |_dev| {
    let x = input("int32")?;
    // NumPy 2.4 with a = ((np.arange(24)-12)*150000001).astype(np.int32).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ScanCase] = &[
        // np.cumsum(a)
        ("cumsum", None, &[24], "int64", I(&[-1800000012, -3450000023, -4950000033, -6300000042, -7500000050, -8550000057, -9450000063, -10200000068, -10800000072, -11250000075, -11550000077, -11700000078, -11700000078, -11550000077, -11250000075, -10800000072, -10200000068, -9450000063, -8550000057, -7500000050, -6300000042, -4950000033, -3450000023, -1800000012])),
        // np.cumsum(a, axis=0)
        ("cumsum", Some(0), &[2, 3, 4], "int64", I(&[-1800000012, -1650000011, -1500000010, -1350000009, -1200000008, -1050000007, -900000006, -750000005, -600000004, -450000003, -300000002, -150000001, -1800000012, -1500000010, -1200000008, -900000006, -600000004, -300000002, 0, 300000002, 600000004, 900000006, 1200000008, 1500000010])),
        // np.cumsum(a, axis=1)
        ("cumsum", Some(1), &[2, 3, 4], "int64", I(&[-1800000012, -1650000011, -1500000010, -1350000009, -3000000020, -2700000018, -2400000016, -2100000014, -3600000024, -3150000021, -2700000018, -2250000015, 0, 150000001, 300000002, 450000003, 600000004, 900000006, 1200000008, 1500000010, 1800000012, 2250000015, 2700000018, 3150000021])),
        // np.cumsum(a, axis=-1)
        ("cumsum", Some(-1), &[2, 3, 4], "int64", I(&[-1800000012, -3450000023, -4950000033, -6300000042, -1200000008, -2250000015, -3150000021, -3900000026, -600000004, -1050000007, -1350000009, -1500000010, 0, 150000001, 450000003, 900000006, 600000004, 1350000009, 2250000015, 3300000022, 1200000008, 2550000017, 4050000027, 5700000038])),
        // np.cumprod(a)
        ("cumprod", None, &[24], "int64", I(&[-1800000012, 2970000039600000132, 4588317253246207704, 3964183252224482920, -6838883976849249088, 215093860963903168, -8863710660580485248, -5613816865908422016, 8779041528537863680, -2274773721981354496, 7672153643112793088, 4202181392224025600, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
        // np.cumprod(a, axis=0)
        ("cumprod", Some(0), &[2, 3, 4], "int64", I(&[-1800000012, -1650000011, -1500000010, -1350000009, -1200000008, -1050000007, -900000006, -750000005, -600000004, -450000003, -300000002, -150000001, 0, -247500003300000011, -450000006000000020, -607500008100000027, -720000009600000032, -787500010500000035, -810000010800000036, -787500010500000035, -720000009600000032, -607500008100000027, -450000006000000020, -247500003300000011])),
        // np.cumprod(a, axis=1)
        ("cumprod", Some(1), &[2, 3, 4], "int64", I(&[-1800000012, -1650000011, -1500000010, -1350000009, 2160000028800000096, 1732500023100000077, 1350000018000000060, 1012500013500000045, -3360751654181716352, 4031135732217257881, -7967763919572868216, -7599597488267213485, 0, 150000001, 300000002, 450000003, 0, 112500001500000005, 270000003600000012, 472500006300000021, 0, 7599597488267213485, 7967763919572868216, -4031135732217257881])),
        // np.cumprod(a, axis=-1)
        ("cumprod", Some(-1), &[2, 3, 4], "int64", I(&[-1800000012, 2970000039600000132, 4588317253246207704, 3964183252224482920, -1200000008, 1260000016800000056, -7552343715836389712, -930054414732663152, -600000004, 270000003600000012, 2095796030827336680, 5784261645812535320, 0, 0, 0, 0, 600000004, 450000006000000020, 7967763919572868216, -465027207366331576, 1200000008, 1620000021600000072, -7533648703691445552, 8791703526052839152])),
    ];
    run_scan_table(&x, cases);
});

on_every_device!(scans_float16, |_dev| {
    let x = input("float16")?;
    // NumPy 2.4 with a = ((np.arange(24)-10)*0.25).astype(np.float16).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ScanCase] = &[
        // np.cumsum(a)
        ("cumsum", None, &[24], "float16", F(&[-2.5, -4.75, -6.75, -8.5, -10.0, -11.25, -12.25, -13.0, -13.5, -13.75, -13.75, -13.5, -13.0, -12.25, -11.25, -10.0, -8.5, -6.75, -4.75, -2.5, 0.0, 2.75, 5.75, 9.0])),
        // np.cumsum(a, axis=0)
        ("cumsum", Some(0), &[2, 3, 4], "float16", F(&[-2.5, -2.25, -2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5])),
        // np.cumsum(a, axis=1)
        ("cumsum", Some(1), &[2, 3, 4], "float16", F(&[-2.5, -2.25, -2.0, -1.75, -4.0, -3.5, -3.0, -2.5, -4.5, -3.75, -3.0, -2.25, 0.5, 0.75, 1.0, 1.25, 2.0, 2.5, 3.0, 3.5, 4.5, 5.25, 6.0, 6.75])),
        // np.cumsum(a, axis=-1)
        ("cumsum", Some(-1), &[2, 3, 4], "float16", F(&[-2.5, -4.75, -6.75, -8.5, -1.5, -2.75, -3.75, -4.5, -0.5, -0.75, -0.75, -0.5, 0.5, 1.25, 2.25, 3.5, 1.5, 3.25, 5.25, 7.5, 2.5, 5.25, 8.25, 11.5])),
        // np.cumprod(a)
        ("cumprod", None, &[24], "float16", F(&[-2.5, 5.625, -11.25, 19.6875, -29.53125, 36.90625, -36.90625, 27.6875, -13.84375, 3.4609375, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])),
        // np.cumprod(a, axis=0)
        ("cumprod", Some(0), &[2, 3, 4], "float16", F(&[-2.5, -2.25, -2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, -1.25, -1.6875, -2.0, -2.1875, -2.25, -2.1875, -2.0, -1.6875, -1.25, -0.6875, 0.0, 0.8125])),
        // np.cumprod(a, axis=1)
        ("cumprod", Some(1), &[2, 3, 4], "float16", F(&[-2.5, -2.25, -2.0, -1.75, 3.75, 2.8125, 2.0, 1.3125, -1.875, -0.703125, 0.0, 0.328125, 0.5, 0.75, 1.0, 1.25, 0.75, 1.3125, 2.0, 2.8125, 1.875, 3.609375, 6.0, 9.140625])),
        // np.cumprod(a, axis=-1)
        ("cumprod", Some(-1), &[2, 3, 4], "float16", F(&[-2.5, 5.625, -11.25, 19.6875, -1.5, 1.875, -1.875, 1.40625, -0.5, 0.125, 0.0, 0.0, 0.5, 0.375, 0.375, 0.46875, 1.5, 2.625, 5.25, 11.8125, 2.5, 6.875, 20.625, 67.0])),
    ];
    run_scan_table(&x, cases);
});

on_every_device!(scans_float32, |_dev| {
    let x = input("float32")?;
    // NumPy 2.4 with a = (np.arange(24)*1.1 - 7.3).astype(np.float32).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ScanCase] = &[
        // np.cumsum(a)
        ("cumsum", None, &[24], "float32", F(&[-7.300000190734863, -13.5, -18.600000381469727, -22.600000381469727, -25.5, -27.299999237060547, -28.0, -27.600000381469727, -26.100000381469727, -23.5, -19.799999237060547, -14.999999046325684, -9.099998474121094, -2.0999984741210938, 6.000001907348633, 15.20000171661377, 25.500001907348633, 36.900001525878906, 49.400001525878906, 63.0, 77.69999694824219, 93.5, 110.4000015258789, 128.39999389648438])),
        // np.cumsum(a, axis=0)
        ("cumsum", Some(0), &[2, 3, 4], "float32", F(&[-7.300000190734863, -6.199999809265137, -5.099999904632568, -4.0, -2.9000000953674316, -1.7999999523162842, -0.699999988079071, 0.4000000059604645, 1.5, 2.5999999046325684, 3.700000047683716, 4.800000190734863, -1.4000000953674316, 0.8000001907348633, 3.000000476837158, 5.199999809265137, 7.400000095367432, 9.59999942779541, 11.800000190734863, 14.0, 16.200000762939453, 18.399999618530273, 20.600000381469727, 22.799999237060547])),
        // np.cumsum(a, axis=1)
        ("cumsum", Some(1), &[2, 3, 4], "float32", F(&[-7.300000190734863, -6.199999809265137, -5.099999904632568, -4.0, -10.200000762939453, -8.0, -5.799999713897705, -3.5999999046325684, -8.700000762939453, -5.400000095367432, -2.0999996662139893, 1.200000286102295, 5.900000095367432, 7.0, 8.100000381469727, 9.199999809265137, 16.200000762939453, 18.399999618530273, 20.600000381469727, 22.799999237060547, 30.900001525878906, 34.20000076293945, 37.5, 40.79999923706055])),
        // np.cumsum(a, axis=-1)
        ("cumsum", Some(-1), &[2, 3, 4], "float32", F(&[-7.300000190734863, -13.5, -18.600000381469727, -22.600000381469727, -2.9000000953674316, -4.699999809265137, -5.399999618530273, -4.999999523162842, 1.5, 4.099999904632568, 7.800000190734863, 12.600000381469727, 5.900000095367432, 12.899999618530273, 21.0, 30.200000762939453, 10.300000190734863, 21.700000762939453, 34.20000076293945, 47.80000305175781, 14.699999809265137, 30.5, 47.400001525878906, 65.4000015258789])),
        // np.cumprod(a)
        ("cumprod", None, &[24], "float32", F(&[-7.300000190734863, 45.2599983215332, -230.82598876953125, 923.303955078125, -2677.58154296875, 4819.646484375, -3373.75244140625, -1349.5009765625, -2024.25146484375, -5263.0537109375, -19473.298828125, -93471.8359375, -551483.8125, -3860386.75, -31269134.0, -287676032.0, -2963063296.0, -33778919424.0, -422236487680.0, -5742416363520.0, -84413522116608.0, -1333733642731520.0, -2.254009789107405e+16, -4.05721749154431e+17])),
        // np.cumprod(a, axis=0)
        ("cumprod", Some(0), &[2, 3, 4], "float32", F(&[-7.300000190734863, -6.199999809265137, -5.099999904632568, -4.0, -2.9000000953674316, -1.7999999523162842, -0.699999988079071, 0.4000000059604645, 1.5, 2.5999999046325684, 3.700000047683716, 4.800000190734863, -43.070003509521484, -43.39999771118164, -41.310001373291016, -36.79999923706055, -29.8700008392334, -20.51999855041504, -8.75, 5.440000057220459, 22.049999237060547, 41.07999801635742, 62.529998779296875, 86.4000015258789])),
        // np.cumprod(a, axis=1)
        ("cumprod", Some(1), &[2, 3, 4], "float32", F(&[-7.300000190734863, -6.199999809265137, -5.099999904632568, -4.0, 21.170001983642578, 11.159998893737793, 3.569999933242798, -1.600000023841858, 31.755002975463867, 29.0159969329834, 13.208999633789062, -7.680000305175781, 5.900000095367432, 7.0, 8.100000381469727, 9.199999809265137, 60.77000045776367, 79.79999542236328, 101.25000762939453, 125.12000274658203, 893.3189697265625, 1260.8399658203125, 1711.1251220703125, 2252.16015625])),
        // np.cumprod(a, axis=-1)
        ("cumprod", Some(-1), &[2, 3, 4], "float32", F(&[-7.300000190734863, 45.2599983215332, -230.82598876953125, 923.303955078125, -2.9000000953674316, 5.220000267028809, -3.6540000438690186, -1.4616000652313232, 1.5, 3.8999998569488525, 14.429999351501465, 69.26399993896484, 5.900000095367432, 41.29999923706055, 334.5299987792969, 3077.676025390625, 10.300000190734863, 117.41999816894531, 1467.75, 19961.400390625, 14.699999809265137, 232.25999450683594, 3925.19384765625, 70653.4921875])),
    ];
    run_scan_table(&x, cases);
});

on_every_device!(scans_float64, |_dev| {
    let x = input("float64")?;
    // NumPy 2.4 with a = ((np.arange(24)*7) % 24 * 0.37 - 3.1).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ScanCase] = &[
        // np.cumsum(a)
        ("cumsum", None, &[24], "float64", F(&[-3.1, -3.6100000000000003, -1.5300000000000007, 3.1399999999999992, 1.5199999999999991, 2.4899999999999993, 6.049999999999999, 3.319999999999999, 3.179999999999999, 5.629999999999999, 10.67, 9.42, 10.76, 14.69, 12.329999999999998, 12.559999999999999, 15.379999999999999, 20.79, 19.91, 21.62, 25.92, 23.93, 24.53, 27.720000000000002])),
        // np.cumsum(a, axis=0)
        ("cumsum", Some(0), &[2, 3, 4], "float64", F(&[-3.1, -0.5100000000000002, 2.0799999999999996, 4.67, -1.62, 0.9700000000000002, 3.56, -2.73, -0.14000000000000012, 2.4499999999999997, 5.040000000000001, -1.25, -1.7600000000000007, 3.42, -0.2800000000000007, 4.9, 1.1999999999999997, 6.380000000000001, 2.6799999999999997, -1.0200000000000005, 4.16, 0.4599999999999995, 5.640000000000001, 1.94])),
        // np.cumsum(a, axis=1)
        ("cumsum", Some(1), &[2, 3, 4], "float64", F(&[-3.1, -0.5100000000000002, 2.0799999999999996, 4.67, -4.720000000000001, 0.45999999999999996, 5.64, 1.94, -4.860000000000001, 2.9099999999999997, 10.68, 0.69, 1.3399999999999994, 3.93, -2.3600000000000003, 0.22999999999999998, 4.159999999999999, 9.34, -3.2400000000000007, 1.9399999999999995, 8.46, 7.35, -2.6400000000000006, 5.129999999999999])),
        // np.cumsum(a, axis=-1)
        ("cumsum", Some(-1), &[2, 3, 4], "float64", F(&[-3.1, -3.6100000000000003, -1.5300000000000007, 3.1399999999999992, -1.62, -0.6499999999999999, 2.91, 0.18000000000000016, -0.14000000000000012, 2.3099999999999996, 7.3500000000000005, 6.1000000000000005, 1.3399999999999994, 5.27, 2.9099999999999993, 3.1399999999999992, 2.82, 8.23, 7.35, 9.059999999999999, 4.300000000000001, 2.3100000000000005, 2.9100000000000006, 6.1000000000000005])),
        // np.cumprod(a)
        ("cumprod", None, &[24], "float64", F(&[-3.1, 1.5810000000000008, 3.288480000000001, 15.357201600000005, -24.87866659200001, -24.132306594240013, -85.91101147549445, 234.53706132809984, -32.835188585934006, -80.44621203553831, -405.44890865911316, 506.81113582389145, 679.1269220040142, 2668.968803475776, -6298.766376202832, -1448.7162665266512, -4085.379871605156, -22101.905105383896, 19449.676492737835, 33258.94680258169, 143013.4712511013, -284596.8077896916, -170758.084673815, -544718.2901094698])),
        // np.cumprod(a, axis=0)
        ("cumprod", Some(0), &[2, 3, 4], "float64", F(&[-3.1, -0.5100000000000002, 2.0799999999999996, 4.67, -1.62, 0.9700000000000002, 3.56, -2.73, -0.14000000000000012, 2.4499999999999997, 5.040000000000001, -1.25, -4.153999999999998, -2.004300000000001, -4.908799999999999, 1.0740999999999998, -4.5684000000000005, 5.247700000000001, -3.1328000000000014, -4.668299999999999, -0.6020000000000006, -4.8755, 3.024000000000001, -3.9875])),
        // np.cumprod(a, axis=1)
        ("cumprod", Some(1), &[2, 3, 4], "float64", F(&[-3.1, -0.5100000000000002, 2.0799999999999996, 4.67, 5.022, -0.4947000000000003, 7.404799999999999, -12.7491, -0.7030800000000007, -1.2120150000000005, 37.320192, 15.936375, 1.3399999999999994, 3.93, -2.3600000000000003, 0.22999999999999998, 3.778799999999998, 21.261300000000002, 2.076800000000001, 0.39329999999999987, 16.248839999999994, -42.30998700000001, 1.2460800000000007, 1.2546269999999995])),
        // np.cumprod(a, axis=-1)
        ("cumprod", Some(-1), &[2, 3, 4], "float64", F(&[-3.1, 1.5810000000000008, 3.288480000000001, 15.357201600000005, -1.62, -1.5714000000000004, -5.594184000000001, 15.272122320000003, -0.14000000000000012, -0.34300000000000025, -1.7287200000000016, 2.160900000000002, 1.3399999999999994, 5.266199999999998, -12.428231999999996, -2.858493359999999, 2.82, 15.2562, -13.425456000000004, -22.95752976, 4.300000000000001, -8.557000000000002, -5.134200000000002, -16.378098000000005])),
    ];
    run_scan_table(&x, cases);
});

on_every_device!(scans_complex64, |_dev| {
    let x = input("complex64")?;
    // NumPy 2.4 with a = ((np.arange(24)-5)*0.5 + 1j*((np.arange(24)*5) % 7 - 2.5)).astype(np.complex64).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ScanCase] = &[
        // np.cumsum(a)
        ("cumsum", None, &[24], "complex64", C(&[(-2.5, -2.5), (-4.5, 0.0), (-6.0, 0.5), (-7.0, -1.0), (-7.5, 2.5), (-7.5, 4.0), (-7.0, 3.5), (-6.0, 1.0), (-4.5, 3.5), (-2.5, 4.0), (0.0, 2.5), (3.0, 6.0), (6.5, 7.5), (10.5, 7.0), (15.0, 4.5), (20.0, 7.0), (25.5, 7.5), (31.5, 6.0), (38.0, 9.5), (45.0, 11.0), (52.5, 10.5), (60.5, 8.0), (69.0, 10.5), (78.0, 11.0)])),
        // np.cumsum(a, axis=0)
        ("cumsum", Some(0), &[2, 3, 4], "complex64", C(&[(-2.5, -2.5), (-2.0, 2.5), (-1.5, 0.5), (-1.0, -1.5), (-0.5, 3.5), (0.0, 1.5), (0.5, -0.5), (1.0, -2.5), (1.5, 2.5), (2.0, 0.5), (2.5, -1.5), (3.0, 3.5), (1.0, -1.0), (2.0, 2.0), (3.0, -2.0), (4.0, 1.0), (5.0, 4.0), (6.0, 0.0), (7.0, 3.0), (8.0, -1.0), (9.0, 2.0), (10.0, -2.0), (11.0, 1.0), (12.0, 4.0)])),
        // np.cumsum(a, axis=1)
        ("cumsum", Some(1), &[2, 3, 4], "complex64", C(&[(-2.5, -2.5), (-2.0, 2.5), (-1.5, 0.5), (-1.0, -1.5), (-3.0, 1.0), (-2.0, 4.0), (-1.0, 0.0), (0.0, -4.0), (-1.5, 3.5), (0.0, 4.5), (1.5, -1.5), (3.0, -0.5), (3.5, 1.5), (4.0, -0.5), (4.5, -2.5), (5.0, 2.5), (9.0, 2.0), (10.0, -2.0), (11.0, 1.0), (12.0, 4.0), (16.5, 1.5), (18.0, -4.5), (19.5, 3.5), (21.0, 4.5)])),
        // np.cumsum(a, axis=-1)
        ("cumsum", Some(-1), &[2, 3, 4], "complex64", C(&[(-2.5, -2.5), (-4.5, 0.0), (-6.0, 0.5), (-7.0, -1.0), (-0.5, 3.5), (-0.5, 5.0), (0.0, 4.5), (1.0, 2.0), (1.5, 2.5), (3.5, 3.0), (6.0, 1.5), (9.0, 5.0), (3.5, 1.5), (7.5, 1.0), (12.0, -1.5), (17.0, 1.0), (5.5, 0.5), (11.5, -1.0), (18.0, 2.5), (25.0, 4.0), (7.5, -0.5), (15.5, -3.0), (24.0, -0.5), (33.0, 0.0)])),
        // np.cumprod(a)
        ("cumprod", None, &[24], "complex64", C(&[(-2.5, -2.5), (11.25, -1.25), (-16.25, 7.5), (27.5, 16.875), (-72.8125, 87.8125), (-131.71875, -109.21875), (-120.46875, 11.25), (-92.34375, 312.421875), (-919.5703125, 237.7734375), (-1958.02734375, 15.76171875), (-4871.42578125, 2976.4453125), (-25031.8359375, -8120.654296875), (-75430.4375, -65970.046875), (-334706.78125, -226164.96875), (-2071593.0, -180975.4375), (-9905526.0, -6083859.5), (-51438464.0, -38413992.0), (-366251776.0, -153326256.0), (-1843994752.0, -2278501888.0), (-9490210816.0, -18715504640.0), (-80534339584.0, -135621181440.0), (-983327703040.0, -883633618944.0), (-6149200936960.0, -9969205248000.0), (-50358206332928.0, -92797449273344.0)])),
        // np.cumprod(a, axis=0)
        ("cumprod", Some(0), &[2, 3, 4], "complex64", C(&[(-2.5, -2.5), (-2.0, 2.5), (-1.5, 0.5), (-1.0, -1.5), (-0.5, 3.5), (0.0, 1.5), (0.5, -0.5), (1.0, -2.5), (1.5, 2.5), (2.0, 0.5), (2.5, -1.5), (3.0, 3.5), (-5.0, -12.5), (-6.75, 11.0), (-5.5, 6.0), (-1.25, -10.0), (-4.5, 19.0), (2.25, 9.0), (5.0, -1.5), (10.75, -16.0), (12.5, 18.0), (17.25, -1.0), (25.0, -6.5), (25.25, 33.0)])),
        // np.cumprod(a, axis=1)
        ("cumprod", Some(1), &[2, 3, 4], "complex64", C(&[(-2.5, -2.5), (-2.0, 2.5), (-1.5, 0.5), (-1.0, -1.5), (10.0, -7.5), (-3.75, -3.0), (-0.5, 1.0), (-4.75, 1.0), (33.75, 13.75), (-6.0, -7.875), (0.25, 3.25), (-17.75, -13.625), (3.5, 1.5), (4.0, -0.5), (4.5, -2.5), (5.0, 2.5), (18.5, 10.0), (23.25, -9.0), (38.0, -0.5), (31.25, 25.0), (143.75, 65.75), (163.5, -130.125), (324.25, 90.75), (268.75, 240.625)])),
        // np.cumprod(a, axis=-1)
        ("cumprod", Some(-1), &[2, 3, 4], "complex64", C(&[(-2.5, -2.5), (11.25, -1.25), (-16.25, 7.5), (27.5, 16.875), (-0.5, 3.5), (-5.25, -0.75), (-3.0, 2.25), (2.625, 9.75), (1.5, 2.5), (1.75, 5.75), (13.0, 11.75), (-2.125, 80.75), (3.5, 1.5), (14.75, 4.25), (77.0, -17.75), (429.375, 103.75), (5.5, 0.5), (33.75, -5.25), (237.75, 84.0), (1538.25, 944.625), (7.5, -0.5), (58.75, -22.75), (556.25, -46.5), (5029.5, -140.375)])),
    ];
    run_scan_table(&x, cases);
});

on_every_device!(scans_bool, |_dev| {
    let x = input("bool")?;
    // NumPy 2.4 with a = (np.arange(24) % 3 == 0).reshape(2, 3, 4):
    #[rustfmt::skip]
    let cases: &[ScanCase] = &[
        // np.cumsum(a)
        ("cumsum", None, &[24], "int64", I(&[1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8])),
        // np.cumsum(a, axis=0)
        ("cumsum", Some(0), &[2, 3, 4], "int64", I(&[1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0])),
        // np.cumsum(a, axis=1)
        ("cumsum", Some(1), &[2, 3, 4], "int64", I(&[1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1])),
        // np.cumsum(a, axis=-1)
        ("cumsum", Some(-1), &[2, 3, 4], "int64", I(&[1, 1, 1, 2, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 2, 0, 0, 1, 1, 0, 1, 1, 1])),
        // np.cumprod(a)
        ("cumprod", None, &[24], "int64", I(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
        // np.cumprod(a, axis=0)
        ("cumprod", Some(0), &[2, 3, 4], "int64", I(&[1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0])),
        // np.cumprod(a, axis=1)
        ("cumprod", Some(1), &[2, 3, 4], "int64", I(&[1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0])),
        // np.cumprod(a, axis=-1)
        ("cumprod", Some(-1), &[2, 3, 4], "int64", I(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
    ];
    run_scan_table(&x, cases);
});

// ---------------------------------------------------------------------------
// The method forms, free functions and axis arguments
// ---------------------------------------------------------------------------

on_every_device!(method_forms_and_axis_arguments, |_dev| {
    // NumPy 2.4: a = np.arange(6).reshape(2, 3).astype(np.float32)
    let x = cp::arange(6)?.reshape([2, 3])?.astype(cp::f32)?;
    // a.sum() -> 15.0 (0-d); a.sum(axis=1) -> [3., 12.]; a.sum(axis=-2) -> [3., 5., 7.]
    assert_exact(&x.sum()?, &[], &[15.0f32]);
    assert_exact(&x.sum_axis(1)?, &[2], &[3.0f32, 12.0]);
    assert_exact(&x.sum_axis(-2)?, &[3], &[3.0f32, 5.0, 7.0]);
    // Every form of the axes argument: np.sum(a, axis=(0, 1)) -> 15.0
    for got in [
        x.sum_axes([0, 1], false)?,
        x.sum_axes(vec![1, 0], false)?,
        x.sum_axes(&[0isize, 1][..], false)?,
        x.sum_axes(vec![0usize, 1], false)?,
        x.sum_axes([-1i32, -2], false)?,
        x.sum_axes(None, false)?,
        x.sum_axes(Axes::All, false)?,
        cp::sum(&x, Axes::All, false)?,
    ] {
        assert_exact(&got, &[], &[15.0f32]);
    }
    // np.sum(a, axis=1, keepdims=True) -> [[3.], [12.]]
    assert_exact(&x.sum_axes(1, true)?, &[2, 1], &[3.0f32, 12.0]);
    assert_exact(&x.sum_axes(1usize, true)?, &[2, 1], &[3.0f32, 12.0]);
    assert_exact(&x.sum_axes(Some(-1isize), true)?, &[2, 1], &[3.0f32, 12.0]);
    // np.sum(a, axis=(), keepdims=False) reduces nothing: a itself.
    assert_exact(
        &x.sum_axes(Vec::<isize>::new(), false)?,
        &[2, 3],
        &[0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0],
    );
    // np.sum(a, keepdims=True) -> [[15.]]
    assert_exact(&x.sum_axes(Axes::All, true)?, &[1, 1], &[15.0f32]);

    // The method families: np.prod(a, 1), np.mean(a, 0), np.min(a), np.max(a, 1),
    // np.all(a), np.any(a, 0), np.var(a), np.std(a, 0, ddof=1)
    assert_exact(&x.prod_axis(1)?, &[2], &[0.0f32, 60.0]);
    assert_exact(&x.prod()?, &[], &[0.0f32]);
    assert_exact(&x.mean_axis(0)?, &[3], &[1.5f32, 2.5, 3.5]);
    assert_exact(&x.mean()?, &[], &[2.5f32]);
    assert_exact(&x.min()?, &[], &[0.0f32]);
    assert_exact(&x.min_axis(0)?, &[3], &[0.0f32, 1.0, 2.0]);
    assert_exact(&x.max_axis(1)?, &[2], &[2.0f32, 5.0]);
    assert_exact(&x.max()?, &[], &[5.0f32]);
    assert_exact(&x.all()?, &[], &[false]);
    assert_exact(&x.all_axis(0)?, &[3], &[false, true, true]);
    assert_exact(&x.any()?, &[], &[true]);
    assert_exact(&x.any_axis(0)?, &[3], &[true, true, true]);
    // np.var(a) -> 2.9166667; np.var(a, axis=1) -> [0.6666667, 0.6666667]
    assert_close(&x.var(0)?, &[], cp::f32, &[2.9166667], 1e-6);
    assert_close(
        &x.var_axis(1, 0)?,
        &[2],
        cp::f32,
        &[0.6666667, 0.6666667],
        1e-6,
    );
    // np.std(a, ddof=1) -> 1.8708287; np.std(a, axis=0, ddof=1) -> [2.1213202] * 3
    assert_close(&x.std(1)?, &[], cp::f32, &[1.8708287], 1e-6);
    assert_close(&x.std_axis(0, 1)?, &[3], cp::f32, &[2.1213202; 3], 1e-6);
    assert_close(
        &x.std_axes(0, 1, true)?,
        &[1, 3],
        cp::f32,
        &[2.1213202; 3],
        1e-6,
    );

    // The free functions match the methods.
    assert_exact(&cp::prod(&x, 1, false)?, &[2], &[0.0f32, 60.0]);
    assert_exact(&cp::mean(&x, 0, true)?, &[1, 3], &[1.5f32, 2.5, 3.5]);
    assert_exact(&cp::min(&x, [0, 1], false)?, &[], &[0.0f32]);
    assert_exact(&cp::max(&x, -1, false)?, &[2], &[2.0f32, 5.0]);
    assert_exact(&cp::all(&x, 1, false)?, &[2], &[false, true]);
    assert_exact(&cp::any(&x, Axes::All, true)?, &[1, 1], &[true]);
    assert_close(
        &cp::var(&x, 1, 0, false)?,
        &[2],
        cp::f32,
        &[0.6666667; 2],
        1e-6,
    );
    assert_close(
        &cp::std(&x, Axes::All, 1, false)?,
        &[],
        cp::f32,
        &[1.8708287],
        1e-6,
    );
});

on_every_device!(zero_d_inputs, |_dev| {
    // NumPy 2.4: a = np.array(7, np.int8); a.sum() -> 7 (int64); a.max() -> 7 (int8)
    let x = cp::asarray(vec![7i8])?.reshape(Vec::<isize>::new())?;
    assert_exact(&x.sum()?, &[], &[7i64]);
    assert_exact(&x.max()?, &[], &[7i8]);
    assert_exact(&x.mean()?, &[], &[7.0f64]);
    // a.argmax() -> 0; np.cumsum(a) -> [7]
    assert_exact(&x.argmax()?, &[], &[0i64]);
    assert_exact(&x.cumsum(None)?, &[1], &[7i64]);
    // a.sum(axis=0) -> AxisError: axis 0 is out of bounds for array of dimension 0
    assert_eq!(
        x.sum_axis(0).unwrap_err(),
        Error::Axis {
            op: "sum",
            axis: 0,
            ndim: 0
        }
    );
});

// ---------------------------------------------------------------------------
// Non-contiguous inputs
// ---------------------------------------------------------------------------

/// a = np.array([[0.5, -1.25, 3.0, 2.0], [4.5, 0.25, -2.0, 1.0], [-0.75, 6.0, 1.5, -3.5]])
fn matrix() -> cp::Result<Array> {
    cp::asarray([
        [0.5, -1.25, 3.0, 2.0],
        [4.5, 0.25, -2.0, 1.0],
        [-0.75, 6.0, 1.5, -3.5],
    ])
}

on_every_device!(transposed_input, |_dev| {
    let t = matrix()?.t();
    assert!(!t.is_c_contiguous());
    // NumPy 2.4: a.T.sum(axis=0) -> [4.25, 3.75, 3.25]; a.T.sum(axis=1) -> [4.25, 5., 2.5, -0.5]
    assert_exact(&t.sum_axis(0)?, &[3], &[4.25, 3.75, 3.25]);
    assert_exact(&t.sum_axis(1)?, &[4], &[4.25, 5.0, 2.5, -0.5]);
    // a.T.sum() -> 11.25; a.T.sum(axis=(0, 1), keepdims=True).shape -> (1, 1)
    assert_exact(&t.sum()?, &[], &[11.25]);
    assert_exact(&t.sum_axes([0, 1], true)?, &[1, 1], &[11.25]);
    // a.T.mean(axis=1) -> [1.41666667, 1.66666667, 0.83333333, -0.16666667]
    assert_close(
        &t.mean_axis(1)?,
        &[4],
        cp::f64,
        &[
            1.4166666666666667,
            1.6666666666666667,
            0.8333333333333334,
            -0.16666666666666666,
        ],
        1e-14,
    );
    // a.T.var(axis=0) -> [2.57421875, 5.44921875, 12.10546875]
    assert_close(
        &t.var_axis(0, 0)?,
        &[3],
        cp::f64,
        &[2.57421875, 5.44921875, 12.10546875],
        1e-14,
    );
    // a.T.min(axis=1) -> [-0.75, -1.25, -2., -3.5]
    assert_exact(&t.min_axis(1)?, &[4], &[-0.75, -1.25, -2.0, -3.5]);
    // a.T.argmax(axis=0) -> [2, 0, 1]; a.T.argmax() -> 5; a.T.argmin(axis=1) -> [2, 0, 1, 2]
    assert_exact(&t.argmax_axis(0, false)?, &[3], &[2i64, 0, 1]);
    assert_exact(&t.argmax()?, &[], &[5i64]);
    assert_exact(&t.argmin_axis(1, true)?, &[4, 1], &[2i64, 0, 1, 2]);
    // a.T.cumsum(axis=0).ravel()
    assert_exact(
        &t.cumsum(Some(0))?,
        &[4, 3],
        &[
            0.5, 4.5, -0.75, -0.75, 4.75, 5.25, 2.25, 2.75, 6.75, 4.25, 3.75, 3.25,
        ],
    );
    // a.T.cumsum()
    assert_exact(
        &t.cumsum(None)?,
        &[12],
        &[
            0.5, 5.0, 4.25, 3.0, 3.25, 9.25, 12.25, 10.25, 11.75, 13.75, 14.75, 11.25,
        ],
    );
    // a.T.cumprod(axis=1).ravel()
    assert_exact(
        &t.cumprod(Some(1))?,
        &[4, 3],
        &[
            0.5, 2.25, -1.6875, -1.25, -0.3125, -1.875, 3.0, -6.0, -9.0, 2.0, 2.0, -7.0,
        ],
    );
});

on_every_device!(broadcast_input, |_dev| {
    // NumPy 2.4: b = np.broadcast_to(np.array([1.5, -2.0, 4.0, 0.25]), (3, 4))
    let b = cp::asarray([1.5, -2.0, 4.0, 0.25])?.broadcast_to(&[3, 4])?;
    // b.sum(axis=0) -> [4.5, -6., 12., 0.75]; b.sum(axis=1) -> [3.75] * 3
    assert_exact(&b.sum_axis(0)?, &[4], &[4.5, -6.0, 12.0, 0.75]);
    assert_exact(&b.sum_axis(1)?, &[3], &[3.75; 3]);
    // b.var(axis=0) -> [0.] * 4; b.max(axis=1) -> [4.] * 3; b.prod() -> -27.0
    assert_exact(&b.var_axis(0, 0)?, &[4], &[0.0; 4]);
    assert_exact(&b.max_axis(1)?, &[3], &[4.0; 3]);
    assert_exact(&b.prod()?, &[], &[-27.0]);
    // b.cumsum(axis=0).ravel(); b.argmin(axis=1) -> [1, 1, 1]
    assert_exact(
        &b.cumsum(Some(0))?,
        &[3, 4],
        &[
            1.5, -2.0, 4.0, 0.25, 3.0, -4.0, 8.0, 0.5, 4.5, -6.0, 12.0, 0.75,
        ],
    );
    assert_exact(&b.argmin_axis(1, false)?, &[3], &[1i64, 1, 1]);
    // c = np.broadcast_to(np.array([[1], [2], [3]], np.int32), (3, 5))
    // c.sum() -> 30; c.sum(axis=1) -> [5, 10, 15]; c.sum(axis=0) -> [6] * 5; c.mean(axis=1) -> [1., 2., 3.]
    let c = cp::asarray([[1i32], [2], [3]])?.broadcast_to(&[3, 5])?;
    assert_exact(&c.sum()?, &[], &[30i64]);
    assert_exact(&c.sum_axis(1)?, &[3], &[5i64, 10, 15]);
    assert_exact(&c.sum_axis(0)?, &[5], &[6i64; 5]);
    assert_exact(&c.mean_axis(1)?, &[3], &[1.0, 2.0, 3.0]);
});

on_every_device!(row_wise_reductions_over_leading_axes, |_dev| {
    // Reducing axis 0 of C-ordered rows of >= 8 elements takes the row-wise loop.
    // NumPy 2.4: x = ((np.arange(80) * 13) % 29 - 14).astype(np.int32).reshape(5, 16)
    let x = cp::asarray((0..80i32).map(|i| (i * 13) % 29 - 14).collect::<Vec<_>>())?
        .reshape([5, 16])?;
    // x.sum(axis=0)
    assert_exact(
        &x.sum_axis(0)?,
        &[16],
        &[
            -20i64, 16, -6, 1, 8, 15, -7, 0, 7, -15, -8, -1, 6, -16, 20, -2,
        ],
    );
    // x.min(axis=0)
    assert_exact(
        &x.min_axis(0)?,
        &[16],
        &[
            -14i32, -10, -12, -13, -10, -7, -13, -10, -11, -13, -14, -11, -12, -14, -6, -12,
        ],
    );
    // x.prod(axis=0)
    assert_exact(
        &x.prod_axis(0)?,
        &[16],
        &[
            -3024i64, 5040, -6048, 3432, 0, 4368, -20592, 0, 20592, -4368, 0, -3432, 6048, -5040,
            3024, -14112,
        ],
    );

    // y = (((np.arange(16000) * 7919) % 1000) * 0.001 - 0.3).astype(np.float32).reshape(1000, 16)
    let y = cp::asarray(
        (0..16000i64)
            .map(|i| (((i * 7919) % 1000) as f64 * 0.001 - 0.3) as f32)
            .collect::<Vec<_>>(),
    )?
    .reshape([1000, 16])?;
    // y.mean(axis=0)
    assert_close(
        &y.mean_axis(0)?,
        &[16],
        cp::f32,
        &[
            0.19600000977516174,
            0.2029999941587448,
            0.20200000703334808,
            0.20100000500679016,
            0.19999998807907104,
            0.19900000095367432,
            0.1979999989271164,
            0.19700001180171967,
            0.19599997997283936,
            0.2030000239610672,
            0.20200002193450928,
            0.20099999010562897,
            0.20000000298023224,
            0.19899998605251312,
            0.1979999989271164,
            0.19700001180171967,
        ],
        1e-6,
    );
    // y.var(axis=0) (the row-wise loop with a per-output mean)
    assert_close(
        &y.var_axis(0, 0)?,
        &[16],
        cp::f32,
        &[
            0.0833280086517334,
            0.08332803100347519,
            0.0833280086517334,
            0.0833280012011528,
            0.08332802355289459,
            0.083328016102314,
            0.08332803100347519,
            0.083328016102314,
            0.083328016102314,
            0.0833280086517334,
            0.0833280086517334,
            0.08332803845405579,
            0.08332802355289459,
            0.0833280086517334,
            0.083328016102314,
            0.08332798629999161,
        ],
        1e-5,
    );
    // y.std(axis=0, ddof=1)
    assert_close(
        &y.std_axes(0, 1, false)?,
        &[16],
        cp::f32,
        &[
            0.2888103723526001,
            0.2888104021549225,
            0.2888103723526001,
            0.2888103425502777,
            0.2888104021549225,
            0.2888103723526001,
            0.2888104021549225,
            0.2888103723526001,
            0.2888103723526001,
            0.2888103723526001,
            0.2888103723526001,
            0.2888104021549225,
            0.2888104021549225,
            0.2888103723526001,
            0.2888103723526001,
            0.2888103127479553,
        ],
        1e-5,
    );

    // z = (np.arange(120) * 0.5 - 20).reshape(3, 4, 10)
    let z = cp::asarray((0..120).map(|i| i as f64 * 0.5 - 20.0).collect::<Vec<_>>())?
        .reshape([3, 4, 10])?;
    // z.sum(axis=(0, 1)) -> 90, 96, ..., 144; z.max(axis=(0, 1)) -> 35, 35.5, ..., 39.5
    let sums: Vec<f64> = (0..10).map(|j| 90.0 + 6.0 * j as f64).collect();
    let maxs: Vec<f64> = (0..10).map(|j| 35.0 + 0.5 * j as f64).collect();
    assert_exact(&z.sum_axes([0, 1], false)?, &[10], &sums);
    assert_exact(&z.max_axes([1, 0], true)?, &[1, 1, 10], &maxs);
    // np.any(z, axis=(0, 1)) -> all True
    assert_exact(&z.any_axes([0, 1], false)?, &[10], &[true; 10]);

    // w = np.arange(32.).reshape(4, 8); w[2, 3] = np.nan
    let mut wv: Vec<f64> = (0..32).map(|i| i as f64).collect();
    wv[19] = f64::NAN;
    let w = cp::asarray(wv)?.reshape([4, 8])?;
    // w.max(axis=0) -> [24, 25, 26, nan, 28, ...]; w.min(axis=0) -> [0, 1, 2, nan, 4, ...]
    assert_close(
        &w.max_axis(0)?,
        &[8],
        cp::f64,
        &[24.0, 25.0, 26.0, NAN, 28.0, 29.0, 30.0, 31.0],
        0.0,
    );
    assert_close(
        &w.min_axis(0)?,
        &[8],
        cp::f64,
        &[0.0, 1.0, 2.0, NAN, 4.0, 5.0, 6.0, 7.0],
        0.0,
    );
    // w.sum(axis=0) -> [48, 52, 56, nan, 64, 68, 72, 76]
    assert_close(
        &w.sum_axis(0)?,
        &[8],
        cp::f64,
        &[48.0, 52.0, 56.0, NAN, 64.0, 68.0, 72.0, 76.0],
        0.0,
    );
    // w.argmax(axis=0) -> [3, 3, 3, 2, 3, 3, 3, 3]; w.argmin(axis=1) -> [0, 0, 3, 0]
    assert_exact(
        &w.argmax_axis(0, false)?,
        &[8],
        &[3i64, 3, 3, 2, 3, 3, 3, 3],
    );
    assert_exact(&w.argmin_axis(1, false)?, &[4], &[0i64, 0, 3, 0]);
});

// ---------------------------------------------------------------------------
// Zero-size inputs
// ---------------------------------------------------------------------------

on_every_device!(zero_size_inputs, |_dev| {
    let e = cp::zeros([0, 3], cp::f64)?;
    // NumPy 2.4: np.sum(np.zeros((0, 3))) -> 0.0; .sum(axis=0) -> [0., 0., 0.]; .prod(axis=0) -> [1., 1., 1.]
    assert_exact(&e.sum()?, &[], &[0.0]);
    assert_exact(&e.sum_axis(0)?, &[3], &[0.0; 3]);
    assert_exact(&e.sum_axis(1)?, &[0], &[] as &[f64]);
    assert_exact(&e.prod_axis(0)?, &[3], &[1.0; 3]);
    // .mean(axis=0) -> [nan] * 3; .var(axis=0) -> [nan] * 3; .std() -> nan
    assert_close(&e.mean_axis(0)?, &[3], cp::f64, &[NAN; 3], 0.0);
    assert_close(&e.var_axis(0, 0)?, &[3], cp::f64, &[NAN; 3], 0.0);
    assert_close(&e.std(0)?, &[], cp::f64, &[NAN], 0.0);
    // .all(axis=0) -> [True] * 3; .any(axis=0) -> [False] * 3
    assert_exact(&e.all_axis(0)?, &[3], &[true; 3]);
    assert_exact(&e.any_axis(0)?, &[3], &[false; 3]);
    // np.zeros((0, 3), np.float32).mean().dtype -> float32 (nan)
    assert_close(
        &cp::zeros([0, 3], cp::f32)?.mean()?,
        &[],
        cp::f32,
        &[NAN],
        0.0,
    );
    // np.sum(np.zeros((0, 3), np.int8)) -> 0 (int64); np.prod of it -> 1
    assert_exact(&cp::zeros([0, 3], cp::i8)?.sum()?, &[], &[0i64]);
    assert_exact(&cp::zeros([0, 3], cp::u8)?.prod()?, &[], &[1u64]);
    // np.zeros((2, 0, 3)).sum(axis=(0, 2)).shape -> (0,); .max(axis=(0, 2)) -> array([])
    let e3 = cp::zeros([2, 0, 3], cp::f32)?;
    assert_exact(&e3.sum_axes([0, 2], false)?, &[0], &[] as &[f32]);
    assert_exact(&e3.max_axes([0, 2], true)?, &[1, 0, 1], &[] as &[f32]);
    // np.zeros((0, 3)).max(axis=1) -> array([]) (nothing is reduced over zero elements)
    assert_exact(&e.max_axis(1)?, &[0], &[] as &[f64]);
    assert_exact(&e.argmax_axis(1, false)?, &[0], &[] as &[i64]);

    // Reductions without identity over zero elements: NumPy raises ValueError
    // "zero-size array to reduction operation maximum which has no identity".
    let empty = |op: &'static str| Error::EmptyReduction {
        op,
        shape: vec![0, 3],
    };
    assert_eq!(e.max().unwrap_err(), empty("max"));
    assert_eq!(e.min_axis(0).unwrap_err(), empty("min"));
    assert_eq!(cp::max(&e, [0, 1], true).unwrap_err(), empty("max"));
    // np.zeros((0, 0)).max(axis=0) raises too, though the result would be empty.
    assert!(matches!(
        cp::zeros([0, 0], cp::f64)?.max_axis(0),
        Err(Error::EmptyReduction { .. })
    ));
    // np.argmax(np.zeros((0, 3))) -> ValueError: attempt to get argmax of an empty sequence
    assert_eq!(e.argmax().unwrap_err(), empty("argmax"));
    assert_eq!(e.argmin_axis(0, false).unwrap_err(), empty("argmin"));
    assert_eq!(cp::argmax(&e, Some(0), true).unwrap_err(), empty("argmax"));

    // np.cumsum(np.zeros((0, 3))).shape -> (0,); np.cumsum(np.zeros((0, 3)), axis=1).shape -> (0, 3)
    assert_exact(&e.cumsum(None)?, &[0], &[] as &[f64]);
    assert_exact(&e.cumsum(Some(1))?, &[0, 3], &[] as &[f64]);
    assert_exact(
        &cp::zeros([3, 0], cp::i8)?.cumprod(Some(0))?,
        &[3, 0],
        &[] as &[i64],
    );
});

// ---------------------------------------------------------------------------
// NaN handling
// ---------------------------------------------------------------------------

on_every_device!(nan_handling, |_dev| {
    // NumPy 2.4: v = np.array([3.0, np.nan, -1.0, np.nan, 7.0])
    let v = cp::asarray([3.0, NAN, -1.0, NAN, 7.0])?;
    // np.min(v) -> nan; np.max(v) -> nan; np.argmin(v) -> 1; np.argmax(v) -> 1
    assert_close(&v.min()?, &[], cp::f64, &[NAN], 0.0);
    assert_close(&v.max()?, &[], cp::f64, &[NAN], 0.0);
    assert_exact(&v.argmin()?, &[], &[1i64]);
    assert_exact(&v.argmax()?, &[], &[1i64]);
    // np.sum(v) -> nan; np.mean(v) -> nan; np.cumsum(v) -> [3., nan, nan, nan, nan]
    assert_close(&v.sum()?, &[], cp::f64, &[NAN], 0.0);
    assert_close(&v.mean()?, &[], cp::f64, &[NAN], 0.0);
    assert_close(
        &v.cumsum(None)?,
        &[5],
        cp::f64,
        &[3.0, NAN, NAN, NAN, NAN],
        0.0,
    );
    // np.all(v) -> True (NaN is non-zero)
    assert_exact(&v.all()?, &[], &[true]);

    // f = np.array([[3., nan, 1.], [2., 5., 0.]])
    let f = cp::asarray([[3.0, NAN, 1.0], [2.0, 5.0, 0.0]])?;
    // np.argmax(f, axis=1) -> [1, 1]; np.argmin(f, axis=0) -> [1, 0, 1]
    assert_exact(&f.argmax_axis(1, false)?, &[2], &[1i64, 1]);
    assert_exact(&f.argmin_axis(0, false)?, &[3], &[1i64, 0, 1]);
    // np.max(f, axis=1) -> [nan, 5.]; np.min(f, axis=0) -> [2., nan, 0.]
    assert_close(&f.max_axis(1)?, &[2], cp::f64, &[NAN, 5.0], 0.0);
    assert_close(&f.min_axis(0)?, &[3], cp::f64, &[2.0, NAN, 0.0], 0.0);

    // h = np.array([1.5, nan, -2.0, nan], np.float16): h.max() -> nan; h.argmin() -> 1
    let h = cp::asarray([1.5, NAN, -2.0, NAN])?.astype(cp::f16)?;
    assert_close(&h.max()?, &[], cp::f16, &[NAN], 0.0);
    assert_close(&h.min()?, &[], cp::f16, &[NAN], 0.0);
    assert_exact(&h.argmin()?, &[], &[1i64]);
    assert_exact(&h.argmax()?, &[], &[1i64]);

    // cx = np.array([1+1j, complex(2, nan), 3-1j, complex(nan, 0)], np.complex64)
    let cx = cp::asarray(vec![
        Complex32::new(1.0, 1.0),
        Complex32::new(2.0, f32::NAN),
        Complex32::new(3.0, -1.0),
        Complex32::new(f32::NAN, 0.0),
    ])?;
    // cx.max() -> 2+nanj and cx.min() -> 2+nanj (the first NaN propagates); argmax/argmin -> 1
    for got in [cx.max()?, cx.min()?] {
        let g = got.item::<Complex32>()?;
        assert!(g.re == 2.0 && g.im.is_nan(), "{g}");
    }
    assert_exact(&cx.argmax()?, &[], &[1i64]);
    assert_exact(&cx.argmin()?, &[], &[1i64]);
    // cx.sum() -> nan+nanj
    let s = cx.sum()?.item::<Complex32>()?;
    assert!(s.re.is_nan() && s.im.is_nan());
});

// ---------------------------------------------------------------------------
// Integer overflow, bool and complex results
// ---------------------------------------------------------------------------

on_every_device!(integer_sums_wrap_and_widen, |_dev| {
    // NumPy 2.4: np.array([2**63 - 1, 1]).sum() -> -9223372036854775808 (wraps)
    assert_exact(&cp::asarray([i64::MAX, 1])?.sum()?, &[], &[i64::MIN]);
    // np.array([2**64 - 1, 2], np.uint64).sum() -> 1
    assert_exact(&cp::asarray([u64::MAX, 2])?.sum()?, &[], &[1u64]);
    // np.cumsum(np.array([2**63 - 1, 1, 1])) -> [9223372036854775807, -9223372036854775808, -9223372036854775807]
    assert_exact(
        &cp::asarray([i64::MAX, 1, 1])?.cumsum(None)?,
        &[3],
        &[i64::MAX, i64::MIN, i64::MIN + 1],
    );
    // np.prod(np.array([2**40, 2**30], np.int64)) -> 0 (2**70 wraps)
    assert_exact(&cp::asarray([1i64 << 40, 1 << 30])?.prod()?, &[], &[0i64]);
    // np.full(100, 127, np.int8).sum() -> 12700 (int64: no int8 overflow)
    assert_exact(&cp::full(100, 127, cp::i8)?.sum()?, &[], &[12700i64]);
    // np.full(300, 200, np.uint8).sum() -> 60000 (uint64)
    assert_exact(&cp::full(300, 200, cp::u8)?.sum()?, &[], &[60000u64]);
    // np.int16 and uint32 inputs: np.array([30000, 30000], np.int16).sum() -> 60000;
    // np.array([4e9, 4e9], np.uint32).cumsum() -> [4000000000, 8000000000]
    assert_exact(&cp::asarray([30000i16, 30000])?.sum()?, &[], &[60000i64]);
    assert_exact(
        &cp::asarray([4_000_000_000u32, 4_000_000_000])?.cumsum(None)?,
        &[2],
        &[4_000_000_000u64, 8_000_000_000],
    );
});

on_every_device!(bool_and_complex_results, |_dev| {
    // NumPy 2.4: b = np.array([True, False, True])
    let b = cp::asarray([true, false, true])?;
    // b.min() -> False; b.max() -> True; b.sum() -> 2 (int64); b.prod() -> 0
    assert_exact(&b.min()?, &[], &[false]);
    assert_exact(&b.max()?, &[], &[true]);
    assert_exact(&b.sum()?, &[], &[2i64]);
    assert_exact(&b.prod()?, &[], &[0i64]);
    // b.mean() -> 0.6666666666666666; b.var() -> 0.22222222222222224; b.cumsum() -> [1, 1, 2]
    assert_close(&b.mean()?, &[], cp::f64, &[0.6666666666666666], 1e-15);
    assert_close(&b.var(0)?, &[], cp::f64, &[0.22222222222222224], 1e-15);
    assert_exact(&b.cumsum(None)?, &[3], &[1i64, 1, 2]);
    // b.argmax() -> 0; b.argmin() -> 1
    assert_exact(&b.argmax()?, &[], &[0i64]);
    assert_exact(&b.argmin()?, &[], &[1i64]);

    // cy = np.array([1+1j, 3-1j, 3-2j, -1+5j], np.complex64)
    let cy = cp::asarray(vec![
        Complex32::new(1.0, 1.0),
        Complex32::new(3.0, -1.0),
        Complex32::new(3.0, -2.0),
        Complex32::new(-1.0, 5.0),
    ])?;
    // cy.max() -> 3-1j; cy.min() -> -1+5j (lexicographic); argmax -> 1; argmin -> 3
    assert_exact(&cy.max()?, &[], &[Complex32::new(3.0, -1.0)]);
    assert_exact(&cy.min()?, &[], &[Complex32::new(-1.0, 5.0)]);
    assert_exact(&cy.argmax()?, &[], &[1i64]);
    assert_exact(&cy.argmin()?, &[], &[3i64]);
    // cy.mean() -> 1.5+0.75j; cy.var() -> 9.9375 (float32); cy.std() -> 3.15238; cy.prod() -> -6+82j
    assert_exact(&cy.mean()?, &[], &[Complex32::new(1.5, 0.75)]);
    assert_close(&cy.var(0)?, &[], cp::f32, &[9.9375], 1e-6);
    assert_close(&cy.std(0)?, &[], cp::f32, &[3.15238], 1e-6);
    assert_exact(&cy.prod()?, &[], &[Complex32::new(-6.0, 82.0)]);
    // complex128 keeps its dtype: np.array([1+2j, 3-1j]).sum() -> 4+1j
    let cz = cp::asarray(vec![Complex64::new(1.0, 2.0), Complex64::new(3.0, -1.0)])?;
    assert_exact(&cz.sum()?, &[], &[Complex64::new(4.0, 1.0)]);
    // np.var([1+2j, 3-1j]) -> 3.25 (float64)
    assert_close(&cz.var(0)?, &[], cp::f64, &[3.25], 1e-15);

    // bfloat16 (not in NumPy; exact small values): sums accumulate in float32
    // and come back as bfloat16: [1.5, 2.5, -0.5].sum() -> 3.5, mean -> 1.1666..., max -> 2.5
    let bf = cp::asarray(vec![
        bf16::from_f32(1.5),
        bf16::from_f32(2.5),
        bf16::from_f32(-0.5),
    ])?;
    assert_exact(&bf.sum()?, &[], &[bf16::from_f32(3.5)]);
    assert_exact(&bf.mean()?, &[], &[bf16::from_f32(3.5 / 3.0)]);
    assert_exact(&bf.max()?, &[], &[bf16::from_f32(2.5)]);
    assert_exact(
        &bf.cumsum(None)?,
        &[3],
        &[
            bf16::from_f32(1.5),
            bf16::from_f32(4.0),
            bf16::from_f32(3.5),
        ],
    );
});

// ---------------------------------------------------------------------------
// ddof
// ---------------------------------------------------------------------------

on_every_device!(ddof_at_or_above_the_count, |_dev| {
    // NumPy 2.4 divides by max(n - ddof, 0) and returns inf or nan, not an error:
    // np.var([1., 2.], ddof=2) -> inf; np.var([1., 1.], ddof=2) -> nan; np.std([1., 2.], ddof=3) -> inf
    assert_close(&cp::asarray([1.0, 2.0])?.var(2)?, &[], cp::f64, &[INF], 0.0);
    assert_close(&cp::asarray([1.0, 1.0])?.var(2)?, &[], cp::f64, &[NAN], 0.0);
    assert_close(&cp::asarray([1.0, 2.0])?.std(3)?, &[], cp::f64, &[INF], 0.0);
    // np.var(np.array([1, 2, 3, 4], np.int8), ddof=1) -> 1.6666666666666667 (float64)
    assert_close(
        &cp::asarray([1i8, 2, 3, 4])?.var(1)?,
        &[],
        cp::f64,
        &[1.6666666666666667],
        1e-15,
    );
    // np.std(np.array([1, 2, 3, 4], np.int16), ddof=1) -> 1.2909944487358056
    assert_close(
        &cp::asarray([1i16, 2, 3, 4])?.std(1)?,
        &[],
        cp::f64,
        &[1.2909944487358056],
        1e-15,
    );
});

// ---------------------------------------------------------------------------
// Accuracy of long float32 reductions
// ---------------------------------------------------------------------------

on_every_device!(long_float32_sums_are_accurate, |_dev| {
    // NumPy 2.4: np.full(10**7, 0.1, np.float32).mean() -> 0.10000001;
    // the exact mean is float32(0.1) = 0.10000000149011612. A naive float32
    // loop would be off by several percent.
    let x = cp::full(10_000_000, 0.1, cp::f32)?;
    assert_close(&x.mean()?, &[], cp::f32, &[0.10000000149011612], 1e-6);
    // np.arange(10**6, dtype=np.float32).mean() -> 499999.5; .sum() -> 4.999995e+11
    let a = cp::arange(1_000_000)?.astype(cp::f32)?;
    assert_close(&a.mean()?, &[], cp::f32, &[499999.5], 1e-6);
    assert_close(&a.sum()?, &[], cp::f32, &[4.999995e11], 1e-6);
    // Row-wise loop: np.full((2**16, 16), 0.1, np.float32).sum(axis=0); the
    // exact value is 65536 * float32(0.1) = 6553.60009765625 (NumPy 2.4's
    // naive row loop gives 6557.6465 here; pairwise rows stay accurate).
    let r = cp::full([1 << 16, 16], 0.1, cp::f32)?;
    assert_close(
        &r.sum_axis(0)?,
        &[16],
        cp::f32,
        &[6553.60009765625; 16],
        1e-6,
    );
    // The same reduction over a transposed view walks strided lanes.
    assert_close(
        &r.t().sum_axis(1)?,
        &[16],
        cp::f32,
        &[6553.60009765625; 16],
        1e-6,
    );
    assert_close(
        &r.t().mean_axis(-1)?,
        &[16],
        cp::f32,
        &[0.10000000149011612; 16],
        1e-6,
    );
});

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

on_every_device!(bad_axes_are_errors, |_dev| {
    let x = cp::zeros([2, 3, 4], cp::f32)?;
    // NumPy 2.4: np.sum(x, axis=3) -> AxisError: axis 3 is out of bounds for array of dimension 3
    assert_eq!(
        x.sum_axis(3).unwrap_err(),
        Error::Axis {
            op: "sum",
            axis: 3,
            ndim: 3
        }
    );
    assert_eq!(
        x.mean_axes([0, -4], false).unwrap_err(),
        Error::Axis {
            op: "mean",
            axis: -4,
            ndim: 3
        }
    );
    assert_eq!(
        x.var_axis(5, 0).unwrap_err(),
        Error::Axis {
            op: "var",
            axis: 5,
            ndim: 3
        }
    );
    assert_eq!(
        x.std_axes([7], 1, true).unwrap_err(),
        Error::Axis {
            op: "std",
            axis: 7,
            ndim: 3
        }
    );
    assert_eq!(
        x.max_axis(-4).unwrap_err(),
        Error::Axis {
            op: "max",
            axis: -4,
            ndim: 3
        }
    );
    assert_eq!(
        cp::any(&x, 3, false).unwrap_err(),
        Error::Axis {
            op: "any",
            axis: 3,
            ndim: 3
        }
    );
    assert_eq!(
        x.argmax_axis(3, false).unwrap_err(),
        Error::Axis {
            op: "argmax",
            axis: 3,
            ndim: 3
        }
    );
    assert_eq!(
        x.argmin_axis(-4, true).unwrap_err(),
        Error::Axis {
            op: "argmin",
            axis: -4,
            ndim: 3
        }
    );
    assert_eq!(
        x.cumsum(Some(3)).unwrap_err(),
        Error::Axis {
            op: "cumsum",
            axis: 3,
            ndim: 3
        }
    );
    assert_eq!(
        x.cumprod(Some(-4)).unwrap_err(),
        Error::Axis {
            op: "cumprod",
            axis: -4,
            ndim: 3
        }
    );
    // np.sum(x, axis=(0, 0)) -> ValueError: duplicate value in 'axis'; (1, -2) is the same axis twice.
    for axes in [vec![0, 0], vec![1, -2]] {
        let e = x.sum_axes(axes, false).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument { op: "sum", .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("repeated"), "{e}");
    }
    // Messages name the operation and the valid range.
    assert_eq!(
        x.prod_axis(3).unwrap_err().to_string(),
        "prod: axis 3 is out of bounds for an array of dimension 3 (valid: -3 to 2)"
    );
    assert_eq!(
        cp::zeros([0], cp::f64)?.min().unwrap_err().to_string(),
        "min: zero-size reduction over an array of shape (0,) has no identity"
    );
});
