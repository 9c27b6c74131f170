//! Statistics and NaN-aware reductions (`stats.rs`) against NumPy's values
//! on every device, GPU against CPU on random inputs, and no host fallback.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::{s, DType, Device, QuantileMethod as M};

const N: f64 = f64::NAN;

fn arr(rows: &[&[f64]]) -> Array {
    let v: Vec<Vec<f64>> = rows.iter().map(|r| r.to_vec()).collect();
    cp::asarray(v).unwrap()
}

use cuprite::Array;

/// NumPy: a = np.array([[1, nan, 3, 4], [nan] * 4, [2.5, -1, 0, 7]])
fn with_nans() -> Array {
    arr(&[&[1.0, N, 3.0, 4.0], &[N, N, N, N], &[2.5, -1.0, 0.0, 7.0]])
}

/// NumPy: b = np.array([[5., 1, 4, 2], [3, 9, 8, 0], [7, 6, 2, 2.5]])
fn plain() -> Array {
    arr(&[
        &[5.0, 1.0, 4.0, 2.0],
        &[3.0, 9.0, 8.0, 0.0],
        &[7.0, 6.0, 2.0, 2.5],
    ])
}

const F: DType = DType::Float64;

on_every_device!(nan_reductions_match_numpy, |dev| {
    let a = with_nans();
    // NumPy 2.4 gives: np.nansum(a) -> 16.5; axis 0 -> [3.5, -1, 3, 11]; axis 1 -> [8, 0, 8.5]
    assert_close(&cp::nansum(&a, None, false)?, &[], F, &[16.5], 1e-15);
    assert_close(
        &cp::nansum(&a, 0, false)?,
        &[4],
        F,
        &[3.5, -1.0, 3.0, 11.0],
        1e-15,
    );
    assert_close(
        &cp::nansum(&a, -1, true)?,
        &[3, 1],
        F,
        &[8.0, 0.0, 8.5],
        1e-15,
    );
    // np.nanprod(a, 1) -> [12, 1, -0]
    assert_close(
        &cp::nanprod(&a, 1, false)?,
        &[3],
        F,
        &[12.0, 1.0, 0.0],
        1e-15,
    );
    // np.nanmin(a, 1) -> [1, nan, -1]; np.nanmax(a, 0) -> [2.5, -1, 3, 7]; np.nanmax(a.T, 0) -> [4, nan, 7]
    assert_close(&cp::nanmin(&a, 1, false)?, &[3], F, &[1.0, N, -1.0], 0.0);
    assert_close(
        &cp::nanmax(&a, 0, false)?,
        &[4],
        F,
        &[2.5, -1.0, 3.0, 7.0],
        0.0,
    );
    assert_close(&cp::nanmax(&a.t(), 0, false)?, &[3], F, &[4.0, N, 7.0], 0.0);
    assert_close(&cp::nanmax(&a, None, false)?, &[], F, &[7.0], 0.0);
    // float32 and float16 keep their dtype.
    let a32 = a.astype(DType::Float32)?;
    assert_close(
        &cp::nansum(&a32, 1, false)?,
        &[3],
        DType::Float32,
        &[8.0, 0.0, 8.5],
        1e-7,
    );
    assert_close(
        &cp::nanmin(&a32, 1, false)?,
        &[3],
        DType::Float32,
        &[1.0, N, -1.0],
        0.0,
    );
    let a16 = a.astype(DType::Float16)?;
    assert_close(
        &cp::nanmax(&a16, 1, false)?,
        &[3],
        DType::Float16,
        &[4.0, N, 7.0],
        0.0,
    );
    assert_close(
        &cp::nansum(&a16, 0, false)?,
        &[4],
        DType::Float16,
        &[3.5, -1.0, 3.0, 11.0],
        1e-3,
    );
    // Integers: the plain reductions (sum of int32 is int64).
    let i = cp::asarray(vec![vec![3i32, -2], vec![7, 5]])?;
    assert_exact(&cp::nansum(&i, 0, false)?, &[2], &[10i64, 3]);
    assert_exact(&cp::nanmin(&i, 1, false)?, &[2], &[-2i32, 5]);
    assert_exact(&cp::nanprod(&i, None, false)?, &[], &[-210i64]);
    // Complex: NaN parts are skipped. np.nansum([1+2j, nan+1j, 3j]) -> 1+5j
    let z = cp::add(
        cp::asarray(vec![1.0, N, 0.0])?,
        cp::multiply(
            cp::asarray(vec![2.0, 1.0, 3.0])?,
            cp::num_complex::Complex64::new(0.0, 1.0),
        )?,
    )?;
    let zs = cvals(&cp::nansum(&z, None, false)?);
    assert_eq!(zs, vec![cp::num_complex::Complex64::new(1.0, 5.0)]);
    // Empty: the sum is 0, the minimum an error.
    let e = cp::zeros([0, 3], F)?;
    assert_close(&cp::nansum(&e, 0, false)?, &[3], F, &[0.0; 3], 0.0);
    assert!(matches!(
        cp::nanmin(&e, 0, false),
        Err(cp::Error::EmptyReduction { .. })
    ));
    assert!(matches!(
        cp::nanmax(&a, 2, false),
        Err(cp::Error::Axis { .. })
    ));
    let _ = dev;
});

on_every_device!(nan_moments_and_arg_extremes_match_numpy, |dev| {
    let a = with_nans();
    // NumPy 2.4: np.nanmean(a, 1) -> [2.6666666666666665, nan, 2.125]; axis 0 -> [1.75, -1, 1.5, 5.5]
    assert_close(
        &cp::nanmean(&a, 1, false)?,
        &[3],
        F,
        &[2.6666666666666665, N, 2.125],
        1e-15,
    );
    assert_close(
        &cp::nanmean(&a, 0, true)?,
        &[1, 4],
        F,
        &[1.75, -1.0, 1.5, 5.5],
        1e-15,
    );
    // np.nanvar(a, 1) -> [1.5555555555555554, nan, 9.546875]; ddof=1 -> [2.333333333333333, nan, 12.729166666666666]
    assert_close(
        &cp::nanvar(&a, 1, 0, false)?,
        &[3],
        F,
        &[1.5555555555555554, N, 9.546875],
        1e-14,
    );
    assert_close(
        &cp::nanvar(&a, 1, 1, false)?,
        &[3],
        F,
        &[2.333333333333333, N, 12.729166666666666],
        1e-14,
    );
    // np.nanstd(a, 0) -> [0.75, 0, 1.5, 1.5]; ddof=1 -> [1.0606601717798212, nan, 2.1213203435596424, 2.1213203435596424]
    assert_close(
        &cp::nanstd(&a, 0, 0, false)?,
        &[4],
        F,
        &[0.75, 0.0, 1.5, 1.5],
        1e-14,
    );
    assert_close(
        &cp::nanstd(&a.t(), 1, 1, true)?,
        &[4, 1],
        F,
        &[
            1.0606601717798212,
            N,
            2.1213203435596424,
            2.1213203435596424,
        ],
        1e-14,
    );
    // float32 stays float32; integers give float64 as mean and var do.
    let a32 = a.astype(DType::Float32)?;
    assert_close(
        &cp::nanmean(&a32, 1, false)?,
        &[3],
        DType::Float32,
        &[2.6666667, N, 2.125],
        1e-6,
    );
    assert_close(
        &cp::nanvar(&a32, 1, 0, false)?,
        &[3],
        DType::Float32,
        &[1.5555556, N, 9.546875],
        1e-6,
    );
    let i = cp::asarray(vec![1i16, 2, 4])?;
    assert_close(&cp::nanmean(&i, None, false)?, &[], F, &[7.0 / 3.0], 1e-15);
    assert_close(
        &cp::nanstd(&i, None, 0, false)?,
        &[],
        F,
        &[1.247219128924647],
        1e-14,
    );
    // Complex: z = [1+1j, 2, nan, 3-2j]: np.nanvar(z) -> 2.2222222222222223 (float64);
    // np.nanmean(z) -> 2-0.3333333333333333j; np.nanstd(z, ddof=1) -> 1.8257418583505538
    let z = cp::add(
        cp::asarray(vec![1.0, 2.0, N, 3.0])?,
        cp::multiply(
            cp::asarray(vec![1.0, 0.0, 0.0, -2.0])?,
            cp::num_complex::Complex64::new(0.0, 1.0),
        )?,
    )?;
    assert_close(
        &cp::nanvar(&z, None, 0, false)?,
        &[],
        F,
        &[2.2222222222222223],
        1e-14,
    );
    assert_close(
        &cp::nanstd(&z, 0, 1, false)?,
        &[],
        F,
        &[1.8257418583505538],
        1e-14,
    );
    let zm = cvals(&cp::nanmean(&z, None, false)?)[0];
    assert!(
        (zm.re - 2.0).abs() < 1e-15 && (zm.im + 1.0 / 3.0).abs() < 1e-15,
        "{zm}"
    );
    // np.nanargmin(a, 1) -> [0, (all-NaN: -1 here, NumPy raises), 1]; nanargmax -> [3, -1, 3]
    assert_exact(&cp::nanargmin(&a, Some(1), false)?, &[3], &[0i64, -1, 1]);
    assert_exact(&cp::nanargmax(&a, Some(-1), true)?, &[3, 1], &[3i64, -1, 3]);
    // np.nanargmin(a) -> 9; np.nanargmax(a) -> 11
    assert_exact(&cp::nanargmin(&a, None, false)?, &[], &[9i64]);
    assert_exact(&cp::nanargmax(&a, None, false)?, &[], &[11i64]);
    assert_exact(&cp::nanargmax(&i, None, false)?, &[], &[2i64]);
    let _ = dev;
});

on_every_device!(medians_match_numpy, |dev| {
    let a = with_nans();
    let b = plain();
    // NumPy 2.4: np.median(b, 0) -> [5, 6, 4, 2]; axis 1 -> [3, 5.5, 4.25]; None -> 3.5
    assert_close(
        &cp::median(&b, 0, false)?,
        &[4],
        F,
        &[5.0, 6.0, 4.0, 2.0],
        0.0,
    );
    assert_close(
        &cp::median(&b, -1, true)?,
        &[3, 1],
        F,
        &[3.0, 5.5, 4.25],
        0.0,
    );
    assert_close(&cp::median(&b, None, false)?, &[], F, &[3.5], 0.0);
    // np.median(b.T, axis=(0, 1)) -> 3.5; np.median(a, 1) -> [nan, nan, 1.25]
    assert_close(&cp::median(&b.t(), [0, 1], false)?, &[], F, &[3.5], 0.0);
    assert_close(&cp::median(&a, 1, false)?, &[3], F, &[N, N, 1.25], 0.0);
    // np.nanmedian(a, 1) -> [3, nan, 1.25]; None -> 2.5; axis 0 -> [1.75, -1, 1.5, 5.5]
    assert_close(&cp::nanmedian(&a, 1, false)?, &[3], F, &[3.0, N, 1.25], 0.0);
    assert_close(&cp::nanmedian(&a, None, false)?, &[], F, &[2.5], 0.0);
    assert_close(
        &cp::nanmedian(&a.t(), 1, true)?,
        &[4, 1],
        F,
        &[1.75, -1.0, 1.5, 5.5],
        0.0,
    );
    // Integers give float64: np.median(np.array([3, 1, 4, 1], np.int32)) -> 2.0
    let i = cp::asarray(vec![3i32, 1, 4, 1])?;
    assert_close(&cp::median(&i, None, false)?, &[], F, &[2.0], 0.0);
    assert_close(&cp::nanmedian(&i, 0, false)?, &[], F, &[2.0], 0.0);
    // float32 stays float32; empty gives NaN.
    let b32 = b.astype(DType::Float32)?;
    assert_close(
        &cp::median(&b32, 1, false)?,
        &[3],
        DType::Float32,
        &[3.0, 5.5, 4.25],
        0.0,
    );
    let e = cp::zeros([0], F)?;
    assert_close(&cp::median(&e, None, false)?, &[], F, &[N], 0.0);
    assert!(cp::median(&b.astype(DType::Complex64)?, None, false).is_err());
    let _ = dev;
});

on_every_device!(quantiles_match_numpy, |dev| {
    let b = plain();
    let qs = [0.0, 0.25, 0.5, 0.9, 1.0];
    // NumPy 2.4: np.quantile(b, [0, .25, .5, .9, 1], axis=0, method=m).ravel()
    let want: [(M, [f64; 20]); 5] = [
        (
            M::Linear,
            [
                3.0, 1.0, 2.0, 0.0, 4.0, 3.5, 3.0, 1.0, 5.0, 6.0, 4.0, 2.0, 6.6, 8.4, 7.2, 2.4,
                7.0, 9.0, 8.0, 2.5,
            ],
        ),
        (
            M::Lower,
            [
                3.0, 1.0, 2.0, 0.0, 3.0, 1.0, 2.0, 0.0, 5.0, 6.0, 4.0, 2.0, 5.0, 6.0, 4.0, 2.0,
                7.0, 9.0, 8.0, 2.5,
            ],
        ),
        (
            M::Higher,
            [
                3.0, 1.0, 2.0, 0.0, 5.0, 6.0, 4.0, 2.0, 5.0, 6.0, 4.0, 2.0, 7.0, 9.0, 8.0, 2.5,
                7.0, 9.0, 8.0, 2.5,
            ],
        ),
        (
            M::Nearest,
            [
                3.0, 1.0, 2.0, 0.0, 3.0, 1.0, 2.0, 0.0, 5.0, 6.0, 4.0, 2.0, 7.0, 9.0, 8.0, 2.5,
                7.0, 9.0, 8.0, 2.5,
            ],
        ),
        (
            M::Midpoint,
            [
                3.0, 1.0, 2.0, 0.0, 4.0, 3.5, 3.0, 1.0, 5.0, 6.0, 4.0, 2.0, 6.0, 7.5, 6.0, 2.25,
                7.0, 9.0, 8.0, 2.5,
            ],
        ),
    ];
    for (m, w) in want {
        let got = cp::quantile(&b, qs, 0, m, false)?;
        assert_close(&got, &[5, 4], F, &w, 1e-14);
    }
    // np.quantile(b, [0.2, 0.8], axis=1, keepdims=True) -> shape (2, 3, 1)
    assert_close(
        &cp::quantile(&b, [0.2, 0.8], 1, M::Linear, true)?,
        &[2, 3, 1],
        F,
        &[1.6, 1.8000000000000003, 2.3, 4.4, 8.4, 6.4],
        1e-14,
    );
    // np.median(np.arange(24.).reshape(2, 3, 4) % 7, axis=(0, 2)) -> [1.5, 4, 2]
    let c = cp::remainder(cp::arange(24)?.astype(F)?.reshape([2, 3, 4])?, 7.0)?;
    assert_close(
        &cp::median(&c, [0, 2], false)?,
        &[3],
        F,
        &[1.5, 4.0, 2.0],
        0.0,
    );
    // np.quantile(b, 0.4, axis=1) -> [2.4, 4.0, 3.2] (shape (3,)); via a transposed view too
    assert_close(
        &cp::quantile(&b, 0.4, 1, M::Linear, false)?,
        &[3],
        F,
        &[2.4, 4.0, 3.2],
        1e-14,
    );
    assert_close(
        &cp::quantile(&b.t(), 0.4, 0, M::Linear, true)?,
        &[1, 3],
        F,
        &[2.4, 4.0, 3.2],
        1e-14,
    );
    // x32 = np.array([0, 1, 2.8284271, 5.196152, 8, 11.18034, 14.6969385, 18.520262, 22.627417, 27], np.float32)
    // np.percentile(x32, 30) -> 4.48583459854126 (float32);
    // np.percentile(x32, [30, 77.7]) -> [4.485834670066833, 18.49349850177765] (float64)
    let x32 = cp::asarray(vec![
        0.0f32, 1.0, 2.828427, 5.196152, 8.0, 11.18034, 14.6969385, 18.520262, 22.627417, 27.0,
    ])?;
    assert_close(
        &cp::percentile(&x32, 30.0, None, M::Linear, false)?,
        &[],
        DType::Float32,
        &[4.48583459854126],
        0.0,
    );
    assert_close(
        &cp::percentile(&x32, vec![30.0, 77.7], None, M::Linear, false)?,
        &[2],
        F,
        &[4.485834670066833, 18.49349850177765],
        1e-15,
    );
    // Integers: np.percentile([3, 1, 4, 1, 5, 9, 2, 6], [10, 50, 95]) -> [1, 3.5, 7.95]; 'nearest' -> [1, 4, 9] (int)
    let i = cp::asarray(vec![3i64, 1, 4, 1, 5, 9, 2, 6])?;
    assert_close(
        &cp::percentile(&i, [10.0, 50.0, 95.0], 0, M::Linear, false)?,
        &[3],
        F,
        &[1.0, 3.5, 7.949999999999998],
        1e-14,
    );
    assert_exact(
        &cp::percentile(&i, [10.0, 50.0, 95.0], 0, M::Nearest, false)?,
        &[3],
        &[1i64, 4, 9],
    );
    // NaN propagates; q out of range is an error.
    let a = with_nans();
    assert_close(
        &cp::quantile(&a, 0.5, 1, M::Lower, false)?,
        &[3],
        F,
        &[N, N, 0.0],
        0.0,
    );
    assert!(matches!(
        cp::quantile(&b, 1.5, None, M::Linear, false),
        Err(cp::Error::InvalidArgument { .. })
    ));
    let _ = dev;
});

on_every_device!(ranges_counts_and_averages_match_numpy, |dev| {
    let b = plain();
    // NumPy 2.4: np.ptp(b, 0) -> [4, 8, 6, 2.5]; np.ptp(b) -> 9; np.ptp(int8 [100, -100, 27]) -> -56 (int8)
    assert_close(&cp::ptp(&b, 0, false)?, &[4], F, &[4.0, 8.0, 6.0, 2.5], 0.0);
    assert_close(&cp::ptp(&b, None, false)?, &[], F, &[9.0], 0.0);
    assert_exact(
        &cp::ptp(&cp::asarray(vec![100i8, -100, 27])?, None, false)?,
        &[],
        &[-56i8],
    );
    // c = [[0, 1, 0, 3], [2, 0, 0, 0]]: count_nonzero axis 0 -> [1, 1, 0, 1]; axis 1 -> [2, 1]; all -> 3
    let c = cp::asarray(vec![vec![0i32, 1, 0, 3], vec![2, 0, 0, 0]])?;
    assert_exact(&cp::count_nonzero(&c, 0, false)?, &[4], &[1i64, 1, 0, 1]);
    assert_exact(&cp::count_nonzero(&c.t(), 0, true)?, &[1, 2], &[2i64, 1]);
    assert_exact(&cp::count_nonzero(&c, None, false)?, &[], &[3i64]);
    // np.count_nonzero([0, nan, -0.0, 2]) -> 2
    assert_exact(
        &cp::count_nonzero(&cp::asarray(vec![0.0, N, -0.0, 2.0])?, None, false)?,
        &[],
        &[2i64],
    );
    // w = [1, 2, 0, 3]: np.average(b, 1, weights=w) -> [2.1666666666666665, 3.5, 4.416666666666667], sum of weights 6
    let w = cp::asarray(vec![1.0, 2.0, 0.0, 3.0])?;
    let (avg, ws) = cp::average_returned(&b, 1, Some(&w))?;
    assert_close(
        &avg,
        &[3],
        F,
        &[2.1666666666666665, 3.5, 4.416666666666667],
        1e-15,
    );
    assert_close(&ws, &[3], F, &[6.0; 3], 0.0);
    // np.average(b, weights=np.arange(12.).reshape(3, 4)) -> 4.204545454545454; np.average(b, 0) -> column means
    let full_w = cp::arange(12)?.astype(F)?.reshape([3, 4])?;
    assert_close(
        &cp::average(&b, None, Some(&full_w))?,
        &[],
        F,
        &[4.204545454545454],
        1e-15,
    );
    let (avg, n) = cp::average_returned(&b, 0, None)?;
    assert_close(
        &avg,
        &[4],
        F,
        &[5.0, 5.333333333333333, 4.666666666666667, 1.5],
        1e-15,
    );
    assert_close(&n, &[4], F, &[3.0; 4], 0.0);
    // Integers with float32 weights give float64: [1.4, 0.2]
    let w32 = cp::asarray(vec![1.0f32, 2.0, 3.0, 4.0])?;
    assert_close(
        &cp::average(&c, 1, Some(&w32))?,
        &[2],
        F,
        &[1.4, 0.2],
        1e-15,
    );
    assert!(matches!(
        cp::average(&b, None, Some(&w)),
        Err(cp::Error::Shape { .. })
    ));
    let _ = dev;
});

on_every_device!(nanptp_is_nanmax_minus_nanmin, |dev| {
    let a = with_nans();
    // NumPy 2.4: np.nanmax(a, 1) - np.nanmin(a, 1) -> [3, nan, 8];
    // axis 0 -> [1.5, 0, 3, 3]; over everything -> 8.
    assert_close(&cp::nanptp(&a, 1, false)?, &[3], F, &[3.0, N, 8.0], 0.0);
    assert_close(
        &cp::nanptp(&a, 0, true)?,
        &[1, 4],
        F,
        &[1.5, 0.0, 3.0, 3.0],
        0.0,
    );
    assert_close(&cp::nanptp(&a, None, false)?, &[], F, &[8.0], 0.0);
    // Without NaNs it is ptp; integers wrap in their dtype as ptp's do.
    let b = plain();
    assert!(cp::array_equal(
        &cp::nanptp(&b, 0, false)?,
        &cp::ptp(&b, 0, false)?
    )?);
    assert_exact(
        &cp::nanptp(&cp::asarray(vec![100i8, -100, 27])?, None, false)?,
        &[],
        &[-56i8],
    );
    // float32 stays float32; the `_out` form casts into out's dtype.
    let f = a.astype(DType::Float32)?;
    assert_eq!(cp::nanptp(&f, 1, false)?.dtype(), DType::Float32);
    let mut out = cp::zeros([4usize], F)?;
    cp::nanptp_out(&a, 0, false, &mut out)?;
    assert_close(&out, &[4], F, &[1.5, 0.0, 3.0, 3.0], 0.0);
    // Errors: zero elements, bool input, an out of the wrong shape.
    let empty = cp::zeros([0usize, 3], F)?;
    assert!(cp::nanptp(&empty, 0, false).is_err());
    assert!(cp::nanptp(&cp::asarray(vec![true, false])?, None, false).is_err());
    assert!(cp::nanptp_out(&a, 0, false, &mut cp::zeros([3usize], F)?).is_err());
    let _ = dev;
});

on_every_device!(differences_match_numpy, |dev| {
    // d = np.array([[1, 4, 9, 16], [2, 3, 5, 8]])
    let d = cp::asarray(vec![vec![1i64, 4, 9, 16], vec![2, 3, 5, 8]])?;
    // NumPy 2.4: np.diff(d) -> [[3, 5, 7], [1, 2, 3]]; axis 0 -> [[1, -1, -4, -8]]; n=2 -> [[2, 2], [1, 1]]; n=3 -> [[0], [0]]
    assert_exact(&cp::diff(&d, 1, -1)?, &[2, 3], &[3i64, 5, 7, 1, 2, 3]);
    assert_exact(&cp::diff(&d, 1, 0)?, &[1, 4], &[1i64, -1, -4, -8]);
    assert_exact(&cp::diff(&d, 2, 1)?, &[2, 2], &[2i64, 2, 1, 1]);
    assert_exact(&cp::diff(&d, 3, 1)?, &[2, 1], &[0i64, 0]);
    assert_exact(&cp::diff(&d, 0, 1)?, &[2, 4], &[1i64, 4, 9, 16, 2, 3, 5, 8]);
    // np.diff(d, prepend=0, append=[[20], [10]]) -> [[1, 3, 5, 7, 4], [2, 1, 2, 3, 2]]
    let zero = cp::asarray(0i64)?;
    let tail = cp::asarray(vec![vec![20i64], vec![10]])?;
    let ends = cp::DiffEnds {
        prepend: Some(&zero),
        append: Some(&tail),
    };
    assert_exact(
        &cp::diff_with(&d, 1, 1, ends)?,
        &[2, 5],
        &[1i64, 3, 5, 7, 4, 2, 1, 2, 3, 2],
    );
    // Reversed view: np.diff(d[:, ::-1]) -> [[-7, -5, -3], [-3, -2, -1]]
    assert_exact(
        &cp::diff(&d.slice(s![.., ..;-1])?, 1, -1)?,
        &[2, 3],
        &[-7i64, -5, -3, -3, -2, -1],
    );
    // uint8 wraps: np.diff(np.array([5, 3, 9], np.uint8)) -> [254, 6]; bools: [True, False, True]
    assert_exact(
        &cp::diff(&cp::asarray(vec![5u8, 3, 9])?, 1, 0)?,
        &[2],
        &[254u8, 6],
    );
    assert_exact(
        &cp::diff(&cp::asarray(vec![true, false, false, true])?, 1, 0)?,
        &[3],
        &[true, false, true],
    );
    assert!(cp::diff(&cp::asarray(1.0)?, 1, 0).is_err());
    // np.ediff1d(d) -> [3, 5, 7, -14, 1, 2, 3]; with to_begin [-1, -2], to_end [99]
    assert_exact(
        &cp::ediff1d(&d, None, None)?,
        &[7],
        &[3i64, 5, 7, -14, 1, 2, 3],
    );
    let begin = cp::asarray(vec![-1i64, -2])?;
    let end = cp::asarray(vec![99i64])?;
    assert_exact(
        &cp::ediff1d(&d, Some(&end), Some(&begin))?,
        &[10],
        &[-1i64, -2, 3, 5, 7, -14, 1, 2, 3, 99],
    );
    assert!(cp::ediff1d(&d, Some(&cp::asarray(vec![0.5])?), None).is_err());
    let _ = dev;
});

on_every_device!(gradients_and_integrals_match_numpy, |dev| {
    // g = [[1, 2, 4, 8, 16], [1, 3, 9, 27, 81], [0, 1, 0, 1, 0]]; np.gradient(g, 0.5)
    let g = arr(&[
        &[1.0, 2.0, 4.0, 8.0, 16.0],
        &[1.0, 3.0, 9.0, 27.0, 81.0],
        &[0.0, 1.0, 0.0, 1.0, 0.0],
    ]);
    let gr = cp::gradient(&g, 0.5)?;
    assert_eq!(gr.len(), 2);
    assert_close(
        &gr[0],
        &[3, 5],
        F,
        &[
            0.0, 2.0, 10.0, 38.0, 130.0, -1.0, -1.0, -4.0, -7.0, -16.0, -2.0, -4.0, -18.0, -52.0,
            -162.0,
        ],
        1e-15,
    );
    assert_close(
        &gr[1],
        &[3, 5],
        F,
        &[
            2.0, 3.0, 6.0, 12.0, 16.0, 4.0, 8.0, 24.0, 72.0, 108.0, 2.0, 0.0, 0.0, 0.0, -2.0,
        ],
        1e-15,
    );
    // np.gradient([1, 4, 9, 16]) -> [3, 4, 6, 7] (float64); np.gradient([3., 7], 2.0) -> [2, 2]
    assert_close(
        &cp::gradient_axis(&cp::asarray(vec![1i32, 4, 9, 16])?, 0, 1.0)?,
        &[4],
        F,
        &[3.0, 4.0, 6.0, 7.0],
        0.0,
    );
    assert_close(
        &cp::gradient_axis(&cp::asarray(vec![3.0, 7.0])?, -1, 2.0)?,
        &[2],
        F,
        &[2.0, 2.0],
        0.0,
    );
    let f32g = cp::gradient_axis(&cp::asarray(vec![1.0f32, 2.0, 4.0])?, 0, 1.0)?;
    assert_eq!(f32g.dtype(), DType::Float32);
    assert!(cp::gradient_axis(&cp::asarray(vec![1.0])?, 0, 1.0).is_err());
    // np.trapezoid(g) -> [22.5, 80, 2]; dx=0.5, axis=0 -> [0.75, 2.25, 5.5, 15.75, 44.5];
    // x=[0, 1, 3, 4, 10] -> [85.5, 356, 5]; np.trapezoid([1, 2, 3]) -> 4.0
    assert_close(
        &cp::trapezoid(&g, None, 1.0, -1)?,
        &[3],
        F,
        &[22.5, 80.0, 2.0],
        1e-15,
    );
    assert_close(
        &cp::trapezoid(&g, None, 0.5, 0)?,
        &[5],
        F,
        &[0.75, 2.25, 5.5, 15.75, 44.5],
        1e-15,
    );
    let x = cp::asarray(vec![0.0, 1.0, 3.0, 4.0, 10.0])?;
    assert_close(
        &cp::trapezoid(&g, Some(&x), 1.0, 1)?,
        &[3],
        F,
        &[85.5, 356.0, 5.0],
        1e-15,
    );
    assert_close(
        &cp::trapezoid(&g.t(), Some(&x), 1.0, 0)?,
        &[3],
        F,
        &[85.5, 356.0, 5.0],
        1e-15,
    );
    assert_close(
        &cp::trapezoid(&cp::asarray(vec![1i64, 2, 3])?, None, 1.0, 0)?,
        &[],
        F,
        &[4.0],
        0.0,
    );
    // np.cumulative_sum(d, axis=1, include_initial=True) -> [[0, 1, 5, 14, 30], [0, 2, 5, 10, 18]]
    let d = cp::asarray(vec![vec![1i64, 4, 9, 16], vec![2, 3, 5, 8]])?;
    assert_exact(
        &cp::cumulative_sum(&d, Some(1), true)?,
        &[2, 5],
        &[0i64, 1, 5, 14, 30, 0, 2, 5, 10, 18],
    );
    assert_exact(
        &cp::cumulative_sum(&d, Some(0), false)?,
        &[2, 4],
        &[1i64, 4, 9, 16, 3, 7, 14, 24],
    );
    assert_close(
        &cp::cumulative_sum(&cp::asarray(vec![1.5, 2.0])?, None, true)?,
        &[3],
        F,
        &[0.0, 1.5, 3.5],
        0.0,
    );
    assert!(cp::cumulative_sum(&d, None, false).is_err());
    let _ = dev;
});

on_every_device!(covariance_and_correlation_match_numpy, |dev| {
    // m = [[0, 1, 2, 5], [2, 1, 0, -1], [1, 3, 2, 7]]
    let m = arr(&[
        &[0.0, 1.0, 2.0, 5.0],
        &[2.0, 1.0, 0.0, -1.0],
        &[1.0, 3.0, 2.0, 7.0],
    ]);
    let opts = cp::CovOptions::default();
    // NumPy 2.4: np.cov(m)
    let c = [
        4.666666666666666,
        -2.6666666666666665,
        5.333333333333333,
        -2.6666666666666665,
        1.6666666666666665,
        -2.833333333333333,
        5.333333333333333,
        -2.833333333333333,
        6.916666666666666,
    ];
    assert_close(&cp::cov(&m, None, opts)?, &[3, 3], F, &c, 1e-14);
    // bias=True; np.cov(m.T, rowvar=False, ddof=2)
    let biased = cp::CovOptions { bias: true, ..opts };
    assert_close(
        &cp::cov(&m, None, biased)?,
        &[3, 3],
        F,
        &[3.5, -2.0, 4.0, -2.0, 1.25, -2.125, 4.0, -2.125, 5.1875],
        1e-14,
    );
    let cols = cp::CovOptions {
        rowvar: false,
        ddof: Some(2),
        ..opts
    };
    assert_close(
        &cp::cov(&m.t(), None, cols)?,
        &[3, 3],
        F,
        &[7.0, -4.0, 8.0, -4.0, 2.5, -4.25, 8.0, -4.25, 10.375],
        1e-14,
    );
    // np.cov(m[0], m[1]) -> 2x2; np.cov(m[0]) -> 4.666666666666666 (0-d)
    let (r0, r1) = (m.at(0)?, m.at(1)?);
    assert_close(
        &cp::cov(&r0, Some(&r1), opts)?,
        &[2, 2],
        F,
        &[
            4.666666666666666,
            -2.6666666666666665,
            -2.6666666666666665,
            1.6666666666666665,
        ],
        1e-14,
    );
    assert_close(
        &cp::cov(&r0, None, opts)?,
        &[],
        F,
        &[4.666666666666666],
        1e-14,
    );
    // float32 gives float64 (NumPy's result type with float64)
    assert_eq!(cp::cov(&m.astype(DType::Float32)?, None, opts)?.dtype(), F);
    // np.corrcoef(m); np.corrcoef(m[0], m[2])
    let r = [
        1.0,
        -0.9561828874675149,
        0.9387434381581722,
        -0.9561828874675149,
        1.0,
        -0.8344971792454872,
        0.9387434381581722,
        -0.834497179245487,
        1.0,
    ];
    assert_close(&cp::corrcoef(&m, None, true)?, &[3, 3], F, &r, 1e-14);
    assert_close(
        &cp::corrcoef(&r0, Some(&m.at(2)?), true)?,
        &[2, 2],
        F,
        &[1.0, 0.9387434381581722, 0.9387434381581722, 1.0],
        1e-14,
    );
    assert!(cp::cov(&cp::zeros([2, 2, 2], F)?, None, opts).is_err());
    let _ = dev;
});

/// Every function of this file once, on the current device.
fn run_all(x: &Array) -> cp::Result<Vec<Array>> {
    let w = cp::abs(x.at(0)?)?;
    let mut out = vec![
        cp::nansum(x, None, false)?,
        cp::nansum(x, 0, false)?,
        cp::nansum(x, 1, false)?,
        cp::nanprod(x, 1, false)?,
        cp::nanmin(x, 0, false)?,
        cp::nanmax(x, 1, false)?,
        cp::nanmean(x, 0, false)?,
        cp::nanvar(x, 1, 1, false)?,
        cp::nanstd(x, None, 0, false)?,
        cp::nanargmin(x, Some(0), false)?,
        cp::nanargmax(x, None, false)?,
        cp::median(x, 1, false)?,
        cp::nanmedian(x, 0, false)?,
        cp::quantile(x, [0.1, 0.5], 0, M::Linear, false)?,
        cp::quantile(x, 0.3, None, M::Nearest, false)?,
        cp::percentile(x, 75.0, 1, M::Midpoint, false)?,
        cp::ptp(x, 0, false)?,
        cp::nanptp(x, 1, false)?,
        cp::nanptp(x, None, false)?,
        cp::count_nonzero(x, 1, false)?,
        cp::average(x, 1, Some(&w))?,
        cp::diff(x, 2, 0)?,
        cp::ediff1d(x, None, None)?,
        cp::gradient_axis(x, 1, 0.5)?,
        cp::trapezoid(x, None, 0.1, 0)?,
        cp::cumulative_sum(x, Some(1), true)?,
        cp::cov(x, None, cp::CovOptions::default())?,
        cp::corrcoef(x, None, false)?,
    ];
    out.extend(cp::gradient(x, 1.0)?);
    Ok(out)
}

/// Random float32 data with NaNs at fixed places.
fn random_with_nans(seed: u64) -> Array {
    let mut v = rnd(40 * 33, seed);
    for i in (0..v.len()).step_by(17) {
        v[i] = f64::NAN;
    }
    cp::from_shape_vec([40, 33], v, cp::Order::C)
        .unwrap()
        .astype(DType::Float32)
        .unwrap()
}

#[test]
fn gpu_matches_cpu_on_random_inputs_without_host_fallback() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("stats");
    let host = cp::with_device(Device::Cpu, || random_with_nans(seed));
    // A NaN-free copy too, for the functions NaN makes all-NaN.
    let clean = cp::with_device(Device::Cpu, || {
        cp::where_(cp::isnan(&host).unwrap(), 0.25, &host).unwrap()
    });
    cp::cuda::reset_host_fallbacks();
    for x in [&host, &clean] {
        let cpu = cp::with_device(Device::Cpu, || run_all(x)).unwrap();
        let gx = x.to_device(&dev).unwrap();
        let gpu = cp::with_device(dev, || run_all(&gx)).unwrap();
        for (k, (g, c)) in gpu.iter().zip(&cpu).enumerate() {
            assert_eq!(g.device(), dev, "result {k} left the GPU");
            assert_eq!(g.shape(), c.shape(), "result {k}: shape");
            assert_eq!(g.dtype(), c.dtype(), "result {k}: dtype");
            let (gv, cv) = (values_f64(g), values_f64(c));
            for (i, (a, b)) in gv.iter().zip(&cv).enumerate() {
                let ok = (a.is_nan() && b.is_nan())
                    || a == b
                    || (a - b).abs() <= 1e-4 * b.abs().max(1.0);
                assert!(
                    ok,
                    "result {k}, element {i}: GPU {a}, CPU {b} (seed {seed})"
                );
            }
        }
    }
    cp::cuda::launch_pending().unwrap();
    common::assert_no_host_fallback("statistics");
}

#[test]
fn nansum_of_a_long_float32_array_is_accurate() {
    // 2^20 values of 0.1 with every 8th a NaN: 917504 * 0.1 (pairwise sums stay close).
    let n = 1 << 20;
    let v: Vec<f32> = (0..n)
        .map(|i| if i % 8 == 3 { f32::NAN } else { 0.1 })
        .collect();
    let x = cp::asarray(v).unwrap();
    let s = cp::nansum(&x, None, false)
        .unwrap()
        .to_vec::<f32>()
        .unwrap()[0];
    assert!((s as f64 - 91750.4).abs() < 0.5, "{s}");
}
