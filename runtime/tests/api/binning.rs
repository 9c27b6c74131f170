//! Counting and binning (`binning.rs`: histogram, histogram2d, histogramdd,
//! bincount, interp) against NumPy's values on every device, GPU against
//! CPU on random inputs, and no host fallback.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::{Array, DType, Device, HistogramOptions as HO, HistogramddOptions as HDO};

const N: f64 = f64::NAN;
const F: DType = DType::Float64;

fn a64(v: &[f64]) -> Array {
    cp::asarray(v.to_vec()).unwrap()
}

fn ints(v: &[i64]) -> Array {
    cp::asarray(v.to_vec()).unwrap()
}

on_every_device!(histogram_matches_numpy, |dev| {
    // NumPy 2.4: np.histogram([0., .1, .2, .3, 1.], 3) -> [4, 0, 1], [0, 1/3, 2/3, 1]
    let (c, e) = cp::histogram(&a64(&[0.0, 0.1, 0.2, 0.3, 1.0]), 3)?;
    assert_exact::<i64>(&c, &[3], &[4, 0, 1]);
    assert_close(&e, &[4], F, &[0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0], 1e-15);
    // Explicit edges, the last bin closed; NaN and values outside ignored:
    // np.histogram([1., 2, 2, 3, 4, nan, 10, -1], [1, 2, 3, 4]) -> [1, 2, 2], [1, 2, 3, 4] (int64)
    let edges = ints(&[1, 2, 3, 4]);
    let x = a64(&[1.0, 2.0, 2.0, 3.0, 4.0, N, 10.0, -1.0]);
    let (c, e) = cp::histogram(&x, &edges)?;
    assert_exact::<i64>(&c, &[3], &[1, 2, 2]);
    assert_exact::<i64>(&e, &[4], &[1, 2, 3, 4]);
    // Integers bin in float64 edges: np.histogram(np.int32([1, 2, 2, 3, 4]), 4)
    //   -> [1, 2, 1, 1], [1, 1.75, 2.5, 3.25, 4]
    let xi = ints(&[1, 2, 2, 3, 4]).astype(DType::Int32)?;
    let (c, e) = cp::histogram(&xi, 4)?;
    assert_exact::<i64>(&c, &[4], &[1, 2, 1, 1]);
    assert_exact::<f64>(&e, &[5], &[1.0, 1.75, 2.5, 3.25, 4.0]);
    // float32 edges computed in float32, values on edges:
    // x = np.float32([.1, .2, .3, .7, .9, 1.]); np.histogram(x, 5)
    //   -> [2, 1, 0, 1, 2], float32 [0.1, 0.28, 0.45999998, 0.64, 0.82, 1.0]
    let x32 = a64(&[0.1, 0.2, 0.3, 0.7, 0.9, 1.0]).astype(DType::Float32)?;
    let (c, e) = cp::histogram(&x32, 5)?;
    assert_exact::<i64>(&c, &[5], &[2, 1, 0, 1, 2]);
    assert_exact::<f32>(&e, &[6], &[0.1, 0.28, 0.45999998, 0.64, 0.82, 1.0]);
    // np.histogram(x, 3, range=(0.0, 0.9)) -> [2, 1, 2], float32 [0, 0.3, 0.6, 0.9]
    let (c, e) = cp::histogram_with(&x32, HO::new().bins(3).range(0.0, 0.9))?;
    assert_exact::<i64>(&c, &[3], &[2, 1, 2]);
    assert_exact::<f32>(&e, &[4], &[0.0, 0.3, 0.6, 0.9]);
    // A single value widens the range: np.histogram([5., 5.], 2) -> [0, 2], [4.5, 5, 5.5]
    let (c, e) = cp::histogram(&a64(&[5.0, 5.0]), 2)?;
    assert_exact::<i64>(&c, &[2], &[0, 2]);
    assert_exact::<f64>(&e, &[3], &[4.5, 5.0, 5.5]);
    // Empty: np.histogram(np.float32([]), 3) -> [0, 0, 0], float32 [0, 1/3, 2/3, 1]
    let empty = a64(&[]).astype(DType::Float32)?;
    let (c, e) = cp::histogram(&empty, 3)?;
    assert_exact::<i64>(&c, &[3], &[0, 0, 0]);
    assert_close(
        &e,
        &[4],
        DType::Float32,
        &[0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0],
        1e-7,
    );
    // NaN with a given range is ignored: np.histogram([1., 2, 3, nan], 2, range=(1, 3)) -> [1, 2]
    let (c, _) = cp::histogram_with(&a64(&[1.0, 2.0, 3.0, N]), HO::new().bins(2).range(1.0, 3.0))?;
    assert_exact::<i64>(&c, &[2], &[1, 2]);
    // Non-contiguous input: h = np.arange(12.).reshape(3, 4); np.histogram(h[:, ::2], 3)
    //   -> [2, 2, 2], [0, 10/3, 20/3, 10]
    let h = cp::arange(12)?.astype(F)?.reshape([3, 4])?;
    let (c, e) = cp::histogram(&h.slice(cp::s![.., ..;2])?, 3)?;
    assert_exact::<i64>(&c, &[3], &[2, 2, 2]);
    assert_close(&e, &[4], F, &[0.0, 10.0 / 3.0, 20.0 / 3.0, 10.0], 1e-15);
    // One edge, no bins: np.histogram([1, 2, 3], bins=[2]) -> [], [2]
    let (c, _) = cp::histogram(&ints(&[1, 2, 3]), &ints(&[2]))?;
    assert_exact::<i64>(&c, &[0], &[]);
    assert_eq!(c.device(), dev);
});

on_every_device!(histogram_weights_and_density_match_numpy, |dev| {
    let x = a64(&[1.0, 2.0, 3.0, 4.0]);
    // np.histogram([1., 2, 3, 4], 2, density=True) -> [1/3, 1/3], [1, 2.5, 4]
    let (d, e) = cp::histogram_with(&x, HO::new().bins(2).density(true))?;
    assert_close(&d, &[2], F, &[1.0 / 3.0, 1.0 / 3.0], 1e-15);
    assert_exact::<f64>(&e, &[3], &[1.0, 2.5, 4.0]);
    // weights keep their dtype: np.histogram(x, 2, weights=np.float32([.5, 1, 2, 4])) -> float32 [1.5, 6]
    let w32 = a64(&[0.5, 1.0, 2.0, 4.0]).astype(DType::Float32)?;
    let (c, _) = cp::histogram_with(&x, HO::new().bins(2).weights(&w32))?;
    assert_exact::<f32>(&c, &[2], &[1.5, 6.0]);
    // np.histogram(x, 2, weights=np.int32([1, 2, 3, 4])) -> int32 [3, 7]
    let wi = ints(&[1, 2, 3, 4]).astype(DType::Int32)?;
    let (c, _) = cp::histogram_with(&x, HO::new().bins(2).weights(&wi))?;
    assert_exact::<i32>(&c, &[2], &[3, 7]);
    // Density over unequal edges: np.histogram(x, [0, 2, 5], density=True) -> [0.125, 0.25]
    let edges = ints(&[0, 2, 5]);
    let (d, _) = cp::histogram_with(&x, HO::new().bins(&edges).density(true))?;
    assert_close(&d, &[2], F, &[0.125, 0.25], 1e-15);
    // Weighted density: np.histogram(x, 2, density=True, weights=np.float32([.5, 1, 2, 4]))
    //   -> [0.13333333, 0.53333333]
    let (d, _) = cp::histogram_with(&x, HO::new().bins(2).density(true).weights(&w32))?;
    assert_close(&d, &[2], F, &[0.2 / 1.5, 0.8 / 1.5], 1e-12);
    assert_eq!(d.device(), dev);
});

on_every_device!(histogram_errors_follow_numpy, |_dev| {
    let x = a64(&[1.0, 2.0]);
    let invalid = |r: cp::Result<(Array, Array)>, needle: &str| match r {
        Err(cp::Error::InvalidArgument { op, detail }) => {
            assert_eq!(op, "histogram");
            assert!(detail.contains(needle), "{detail}");
        }
        other => panic!("expected an InvalidArgument error with {needle:?}, got {other:?}"),
    };
    // np.histogram([1., nan], 3) -> ValueError: autodetected range of [nan, nan] is not finite
    invalid(cp::histogram(&a64(&[1.0, N]), 3), "autodetected range");
    invalid(
        cp::histogram(&a64(&[1.0, f64::INFINITY]), 3),
        "autodetected range",
    );
    invalid(cp::histogram(&x, 0), "must be positive");
    invalid(cp::histogram(&x, -3), "must be positive");
    invalid(
        cp::histogram_with(&x, HO::new().range(2.0, 1.0)),
        "max must be larger",
    );
    invalid(
        cp::histogram_with(&x, HO::new().range(0.0, f64::INFINITY)),
        "not finite",
    );
    invalid(
        cp::histogram(&x, &ints(&[3, 2, 1])),
        "increase monotonically",
    );
    invalid(
        cp::histogram(&x, &ints(&[1, 2, 3, 4]).reshape([2, 2])?),
        "1d",
    );
    // np.histogram(np.float32([1, 1.0000001]), 100) -> ValueError: Too many bins for data range
    let tight = a64(&[1.0, 1.0000001]).astype(DType::Float32)?;
    invalid(cp::histogram(&tight, 100), "Too many bins");
    let w = a64(&[1.0]);
    assert!(matches!(
        cp::histogram_with(&x, HO::new().weights(&w)),
        Err(cp::Error::Shape { .. })
    ));
    let c = x.astype(DType::Complex128)?;
    assert!(matches!(cp::histogram(&c, 2), Err(cp::Error::DType { .. })));
});

on_every_device!(histogram2d_and_dd_match_numpy, |_dev| {
    let x = a64(&[0.0, 1.0, 1.0, 0.5]);
    let y = a64(&[0.0, 1.0, 0.0, 0.5]);
    // np.histogram2d(x, y, 2) -> [[1, 0], [1, 2]], [0, .5, 1], [0, .5, 1]
    let (h, xe, ye) = cp::histogram2d(&x, &y, 2)?;
    assert_exact::<f64>(&h, &[2, 2], &[1.0, 0.0, 1.0, 2.0]);
    assert_exact::<f64>(&xe, &[3], &[0.0, 0.5, 1.0]);
    assert_exact::<f64>(&ye, &[3], &[0.0, 0.5, 1.0]);
    // np.histogram2d(x, y, [2, 3], range=[[0, 1], [0, 3]]) -> [[1, 0, 0], [2, 1, 0]], y edges [0, 1, 2, 3]
    let opts = HDO::new()
        .bins_per_axis(vec![2.into(), 3.into()])
        .ranges(vec![Some((0.0, 1.0)), Some((0.0, 3.0))]);
    let (h, _, ye) = cp::histogram2d_with(&x, &y, opts)?;
    assert_exact::<f64>(&h, &[2, 3], &[1.0, 0.0, 0.0, 2.0, 1.0, 0.0]);
    assert_exact::<f64>(&ye, &[4], &[0.0, 1.0, 2.0, 3.0]);
    // np.histogram2d(x, y, 2, density=True, weights=[1, 2, 3, 4.]) -> [[0.4, 0], [1.2, 2.4]]
    let w = a64(&[1.0, 2.0, 3.0, 4.0]);
    let opts = HDO::new().bins(2).density(true).weights(&w);
    let (h, _, _) = cp::histogram2d_with(&x, &y, opts)?;
    assert_close(&h, &[2, 2], F, &[0.4, 0.0, 1.2, 2.4], 1e-14);
    // np.histogramdd([[0, 0, 0], [1, 1, 1], [1, 0, 1], [.5, .5, .2]], 2)
    //   -> [[[1, 0], [0, 0]], [[0, 1], [1, 1]]], edges [0, .5, 1] each
    let s = cp::asarray(vec![
        vec![0.0, 0.0, 0.0],
        vec![1.0, 1.0, 1.0],
        vec![1.0, 0.0, 1.0],
        vec![0.5, 0.5, 0.2],
    ])?;
    let (h, edges) = cp::histogramdd(&s, 2)?;
    assert_exact::<f64>(&h, &[2, 2, 2], &[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    assert_eq!(edges.len(), 3);
    assert_exact::<f64>(&edges[2], &[3], &[0.0, 0.5, 1.0]);
    // The transposed sample (a non-contiguous view) gives the same.
    let st = s.t().copy()?.t();
    let (h2, _) = cp::histogramdd(&st, 2)?;
    assert_eq!(h2.to_vec::<f64>()?, h.to_vec::<f64>()?);
    // Errors: mismatched bins, lengths.
    let bad = HDO::new().bins_per_axis(vec![2.into(), 2.into()]);
    assert!(matches!(
        cp::histogramdd_with(&s, bad),
        Err(cp::Error::InvalidArgument { .. })
    ));
    assert!(cp::histogram2d(&x, &a64(&[1.0]), 2).is_err());
});

on_every_device!(bincount_matches_numpy, |dev| {
    // np.bincount([0, 1, 1, 3, 2, 1, 7]) -> [1, 3, 1, 1, 0, 0, 0, 1]
    let c = cp::bincount(&ints(&[0, 1, 1, 3, 2, 1, 7]), None, 0)?;
    assert_exact::<i64>(&c, &[8], &[1, 3, 1, 1, 0, 0, 0, 1]);
    // np.bincount([0, 1, 1, 3], minlength=6) -> [1, 2, 0, 1, 0, 0]
    let x = ints(&[0, 1, 1, 3]);
    assert_exact::<i64>(&cp::bincount(&x, None, 6)?, &[6], &[1, 2, 0, 1, 0, 0]);
    // np.bincount([0, 1, 1, 3], weights=[.5, 1, -1, 2]) -> [0.5, 0, 0, 2]
    let w = a64(&[0.5, 1.0, -1.0, 2.0]);
    assert_exact::<f64>(&cp::bincount(&x, Some(&w), 0)?, &[4], &[0.5, 0.0, 0.0, 2.0]);
    // np.bincount([True, False, True]) -> [1, 2]; np.bincount(np.uint8([3, 1])) -> [0, 1, 0, 1]
    let b = cp::asarray(vec![true, false, true])?;
    assert_exact::<i64>(&cp::bincount(&b, None, 0)?, &[2], &[1, 2]);
    let u = ints(&[3, 1]).astype(DType::UInt8)?;
    assert_exact::<i64>(&cp::bincount(&u, None, 0)?, &[4], &[0, 1, 0, 1]);
    // Empty: np.bincount(np.int64([]), minlength=3) -> [0, 0, 0]
    let e = ints(&[]);
    assert_exact::<i64>(&cp::bincount(&e, None, 3)?, &[3], &[0, 0, 0]);
    assert_exact::<i64>(&cp::bincount(&e, None, 0)?, &[0], &[]);
    // Non-contiguous: every other of [0, 9, 1, 9, 1, 9] -> [1, 2]
    let s = ints(&[0, 9, 1, 9, 1, 9]).slice(cp::s![..;2])?;
    assert_exact::<i64>(&cp::bincount(&s, None, 0)?, &[2], &[1, 2]);
    // Errors: negative values, floats, 2-D, mismatched weights.
    match cp::bincount(&ints(&[-1, 2]), None, 0) {
        Err(cp::Error::InvalidArgument { op, detail }) => {
            assert_eq!(op, "bincount");
            assert!(detail.contains("negative"), "{detail}");
        }
        other => panic!("expected an error, got {other:?}"),
    }
    assert!(matches!(
        cp::bincount(&a64(&[1.0]), None, 0),
        Err(cp::Error::DType { .. })
    ));
    assert!(matches!(
        cp::bincount(&ints(&[1, 2]).reshape([1, 2])?, None, 0),
        Err(cp::Error::Shape { .. })
    ));
    assert!(cp::bincount(&x, Some(&a64(&[1.0])), 0).is_err());
    assert_eq!(c.device(), dev);
});

on_every_device!(interp_matches_numpy, |dev| {
    let xp = a64(&[0.0, 1.0, 2.0]);
    let fp = a64(&[1.0, 3.0, 2.0]);
    // np.interp([-1, 0, .5, 1, 1.5, 2, 2.5, 3, nan], [0, 1, 2], [1, 3, 2])
    //   -> [1, 1, 2, 3, 2.5, 2, 2, 2, nan]
    let x = a64(&[-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, N]);
    assert_close(
        &cp::interp(&x, &xp, &fp)?,
        &[9],
        F,
        &[1.0, 1.0, 2.0, 3.0, 2.5, 2.0, 2.0, 2.0, N],
        0.0,
    );
    // np.interp([-1, .5, 3], [0, 1, 2], [1, 3, 2], left=-9, right=9) -> [-9, 2, 9]
    let opts = cp::InterpOptions::default().left(-9.0).right(9.0);
    let r = cp::interp_with(&a64(&[-1.0, 0.5, 3.0]), &xp, &fp, opts)?;
    assert_exact::<f64>(&r, &[3], &[-9.0, 2.0, 9.0]);
    // np.interp([-180, -170, -185, 185, -10, -5, 0, 365], [190, -190, 350, -350], [5, 10, 3, 4], period=360)
    //   -> [7.5, 5, 8.75, 6.25, 3, 3.25, 3.5, 3.75]
    let x = a64(&[-180.0, -170.0, -185.0, 185.0, -10.0, -5.0, 0.0, 365.0]);
    let xp_p = a64(&[190.0, -190.0, 350.0, -350.0]);
    let fp_p = a64(&[5.0, 10.0, 3.0, 4.0]);
    let opts = cp::InterpOptions::default().period(360.0);
    assert_close(
        &cp::interp_with(&x, &xp_p, &fp_p, opts)?,
        &[8],
        F,
        &[7.5, 5.0, 8.75, 6.25, 3.0, 3.25, 3.5, 3.75],
        1e-14,
    );
    // Shape kept, any dtype in, non-contiguous x: np.interp([[.25, .75]], [0, 1], [0, 4]) -> [[1, 3]]
    let x2 = a64(&[0.25, 9.0, 0.75, 9.0])
        .astype(DType::Float32)?
        .slice(cp::s![..;2])?
        .reshape([1, 2])?;
    let r = cp::interp(&x2, &a64(&[0.0, 1.0]), &a64(&[0.0, 4.0]))?;
    assert_exact::<f64>(&r, &[1, 2], &[1.0, 3.0]);
    // A single point: np.interp([0, 1, 2, nan], [1.], [5.]) -> [5, 5, 5, 5]
    let r = cp::interp(&a64(&[0.0, 1.0, 2.0, N]), &a64(&[1.0]), &a64(&[5.0]))?;
    assert_exact::<f64>(&r, &[4], &[5.0, 5.0, 5.0, 5.0]);
    // Errors: empty or mismatched points, zero period.
    assert!(cp::interp(&x, &a64(&[]), &a64(&[])).is_err());
    assert!(cp::interp(&x, &xp, &a64(&[1.0])).is_err());
    let zero = cp::InterpOptions::default().period(0.0);
    assert!(cp::interp_with(&x, &xp, &fp, zero).is_err());
    assert_eq!(r.device(), dev);
});

/// The binning functions of `x` (float values in [-1, 1)), `k` (small
/// non-negative integers) and `w` (weights): every result, for comparison.
fn run_all(x: &Array, k: &Array, w: &Array) -> cp::Result<Vec<Array>> {
    let x32 = x.astype(DType::Float32)?;
    let mut out = Vec::new();
    let (c, e) = cp::histogram(x, 256)?;
    out.extend([c, e]);
    let (c, e) = cp::histogram(&x32, 37)?;
    out.extend([c, e]);
    let (c, _) = cp::histogram_with(&x32, HO::new().bins(5000).range(-0.5, 0.5))?;
    out.push(c);
    let edges = cp::asarray(vec![-1.0, -0.5, -0.1, 0.0, 0.3, 0.31, 0.9])?.to_device(&x.device())?;
    let (c, _) = cp::histogram_with(x, HO::new().bins(&edges).weights(w))?;
    out.push(c);
    let (d, _) = cp::histogram_with(&x32, HO::new().bins(16).density(true))?;
    out.push(d);
    let xy = x.reshape([-1, 2])?;
    let (h, _) = cp::histogramdd(&xy, 30)?;
    out.push(h);
    let (h, _) = cp::histogramdd(&x.reshape([-1, 3])?, 100)?;
    out.push(h);
    let (h, _, _) = cp::histogram2d_with(
        &xy.slice(cp::s![.., 0])?,
        &xy.slice(cp::s![.., 1])?,
        HDO::new()
            .bins_per_axis(vec![7.into(), (&edges).into()])
            .weights(&w.slice(cp::s![..;2])?),
    )?;
    out.push(h);
    out.push(cp::bincount(k, None, 0)?);
    out.push(cp::bincount(k, Some(w), 20000)?);
    let xp = cp::linspace(-1.0, 1.0, 33)?.to_device(&x.device())?;
    let fp = cp::sin(&cp::multiply(&xp, 3.0)?)?;
    out.push(cp::interp(&x32, &xp, &fp)?);
    Ok(out)
}

#[test]
fn gpu_matches_cpu_on_random_inputs_without_host_fallback() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("binning");
    let n = 6 * 40_000;
    let (x, k, w) = cp::with_device(Device::Cpu, || -> cp::Result<(Array, Array, Array)> {
        let x = rand(&[n], F, seed);
        // Integers 0..15000: beyond a block's shared memory with weights.
        let k = cp::floor(&cp::multiply(&cp::add(&x, 1.0)?, 7500.0)?)?.astype(DType::Int32)?;
        let w = rand(&[n], DType::Float32, seed + 1);
        Ok((x, k, w))
    })
    .unwrap();
    cp::cuda::reset_host_fallbacks();
    let cpu = cp::with_device(Device::Cpu, || run_all(&x, &k, &w)).unwrap();
    let (gx, gk, gw) = (
        x.to_device(&dev).unwrap(),
        k.to_device(&dev).unwrap(),
        w.to_device(&dev).unwrap(),
    );
    let gpu = cp::with_device(dev, || run_all(&gx, &gk, &gw)).unwrap();
    assert_eq!(gpu.len(), cpu.len());
    for (i, (g, c)) in gpu.iter().zip(&cpu).enumerate() {
        assert_eq!(g.device(), dev, "result {i} left the GPU");
        assert_eq!(g.dtype(), c.dtype(), "result {i}");
        assert_eq!(g.shape(), c.shape(), "result {i}");
        let (gv, cv) = (values_f64(g), values_f64(c));
        for (j, (a, b)) in gv.iter().zip(&cv).enumerate() {
            // Counts are exact; float sums differ only in the order of addition
            // (float32 sums by at most a rounding).
            assert!(
                (a - b).abs() <= 1e-6 * b.abs().max(1.0),
                "result {i}, element {j}: GPU {a}, CPU {b}"
            );
        }
    }
    common::assert_no_host_fallback("binning");
}
