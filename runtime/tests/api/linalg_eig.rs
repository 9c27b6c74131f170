//! `eig` and `eigvals` (general square matrices) on every backend:
//! eigenvalues against NumPy's (compared as sets, since their order is not
//! defined), NumPy's real-or-complex result rule, the identity
//! A V = V diag(w) with unit-norm columns for every dtype and for batches,
//! empty and 1×1 matrices, errors, and on CUDA the CPU's eigenvalues on
//! fresh random inputs without a host round trip.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::linalg::{eig, eigvals};
use cuprite::num_complex::Complex64;
use cuprite::{Array, DType, Device, Error, Order};

const DTYPES: [DType; 4] = [
    DType::Float32,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

fn c(re: f64, im: f64) -> Complex64 {
    Complex64::new(re, im)
}

/// A matrix from rows of reals, on the current device.
fn real_matrix(rows: &[&[f64]]) -> Array {
    let flat: Vec<f64> = rows.iter().flat_map(|r| r.iter().copied()).collect();
    cp::from_shape_vec([rows.len(), rows[0].len()], flat, Order::C).unwrap()
}

/// A matrix from rows of complex values, on the current device.
fn complex_matrix(rows: &[&[Complex64]]) -> Array {
    let flat: Vec<Complex64> = rows.iter().flat_map(|r| r.iter().copied()).collect();
    cp::from_shape_vec([rows.len(), rows[0].len()], flat, Order::C).unwrap()
}

fn tol(dtype: DType) -> f64 {
    if matches!(dtype, DType::Float32 | DType::Complex64) {
        2e-4
    } else {
        1e-10
    }
}

/// Asserts that `got` and `want` hold the same values up to `tol` (relative
/// to the largest), in any order: each wanted value takes the nearest got
/// value not yet taken.
#[track_caller]
fn assert_same_values(got: &[Complex64], want: &[Complex64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: count; got {got:?}");
    let scale = want.iter().map(|v| v.norm()).fold(1.0, f64::max);
    let mut taken = vec![false; got.len()];
    for w in want {
        let best = (0..got.len())
            .filter(|&i| !taken[i])
            .min_by(|&p, &q| (got[p] - w).norm().total_cmp(&(got[q] - w).norm()))
            .expect("a value left");
        assert!(
            (got[best] - w).norm() <= tol * scale,
            "{what}: no value near {w}; got {got:?}"
        );
        taken[best] = true;
    }
}

/// max |A V - V diag(w)| relative to max(1, max |A|), over a whole stack.
fn residual(a: &Array, w: &Array, v: &Array) -> f64 {
    let av = cp::matmul(a, v).unwrap();
    let vw = cp::multiply(v, w.expand_dims(-2).unwrap()).unwrap();
    let r = cvals(&cp::subtract(&av, &vw).unwrap());
    let scale = cvals(a).iter().map(|x| x.norm()).fold(1.0, f64::max);
    r.iter().map(|x| x.norm()).fold(0.0, f64::max) / scale
}

/// The largest deviation of a column's 2-norm from 1, over a whole stack.
fn unit_norm_error(v: &Array) -> f64 {
    let n = v.shape()[v.ndim() - 1];
    let vals = cvals(v);
    let mut worst: f64 = 0.0;
    for m in vals.chunks(n * n) {
        for j in 0..n {
            let norm = (0..n).map(|i| m[i * n + j].norm_sqr()).sum::<f64>().sqrt();
            worst = worst.max((norm - 1.0).abs());
        }
    }
    worst
}

/// Checks `eig`'s identity and normalisation, and that `eigvals` gives the
/// same values, for `a` (any stack).
#[track_caller]
fn assert_decomposes(a: &Array, rtol: f64) {
    let (w, v) = eig(a).unwrap();
    assert_eq!(v.shape(), a.shape(), "v's shape");
    assert_eq!(w.shape(), &a.shape()[..a.ndim() - 1], "w's shape");
    assert_eq!(w.dtype(), v.dtype());
    let r = residual(a, &w, &v);
    assert!(r <= rtol * 10.0, "A V - V diag(w) is {r} for {}", a.dtype());
    let u = unit_norm_error(&v);
    assert!(u <= rtol, "column norms off by {u} for {}", a.dtype());
    let only = eigvals(a).unwrap();
    assert_eq!(only.dtype(), w.dtype());
    assert_same_values(&cvals(&only), &cvals(&w), rtol, "eigvals vs eig");
}

on_every_device!(eigenvalues_match_numpy, |_dev| {
    // Each expectation is np.linalg.eigvals of the same matrix (NumPy 2.4).
    let real3 = real_matrix(&[&[4.0, 1.0, 2.0], &[0.5, 3.0, 1.0], &[1.0, 0.0, 2.0]]);
    let w = eigvals(&real3)?;
    assert_eq!(w.dtype(), DType::Float64);
    let want = [1.3990441116606447, 2.5444105961768777, 5.056545292162477];
    let want: Vec<Complex64> = want.iter().map(|&x| c(x, 0.0)).collect();
    assert_same_values(&cvals(&w), &want, 1e-12, "real3");
    assert_decomposes(&real3, 1e-12);

    // One conjugate pair: ±i and 2.
    let pair3 = real_matrix(&[&[0.0, -1.0, 0.0], &[1.0, 0.0, 0.0], &[0.0, 0.0, 2.0]]);
    let w = eigvals(&pair3)?;
    assert_eq!(w.dtype(), DType::Complex128);
    let want = [c(0.0, -1.0), c(0.0, 1.0), c(2.0, 0.0)];
    assert_same_values(&cvals(&w), &want, 1e-12, "pair3");
    assert_decomposes(&pair3, 1e-12);

    // Two conjugate pairs.
    let pairs4 = real_matrix(&[
        &[1.0, 2.0, 0.0, 1.0],
        &[-3.0, 1.0, 1.0, 0.0],
        &[0.0, 1.0, 2.0, -4.0],
        &[1.0, 0.0, 3.0, 0.5],
    ]);
    let w = eigvals(&pairs4)?;
    assert_eq!(w.dtype(), DType::Complex128);
    let want = [
        c(0.22276654042717425, -2.8531527824355343),
        c(0.22276654042717425, 2.8531527824355343),
        c(2.027233459572831, -2.982250765986305),
        c(2.027233459572831, 2.982250765986305),
    ];
    assert_same_values(&cvals(&w), &want, 1e-12, "pairs4");
    assert_decomposes(&pairs4, 1e-12);

    // A Jordan block (defective): the double eigenvalue 1, real.
    let jordan = real_matrix(&[&[1.0, 1.0], &[0.0, 1.0]]);
    let w = eigvals(&jordan)?;
    assert_eq!(w.dtype(), DType::Float64);
    assert_same_values(&cvals(&w), &[c(1.0, 0.0), c(1.0, 0.0)], 1e-12, "jordan");
    let (_, v) = eig(&jordan)?;
    assert!(unit_norm_error(&v) < 1e-12);

    // A complex matrix.
    let cplx3 = complex_matrix(&[
        &[c(1.0, 1.0), c(2.0, 0.0), c(0.0, 0.0)],
        &[c(0.0, 0.5), c(3.0, -1.0), c(1.0, 0.0)],
        &[c(1.0, 0.0), c(0.0, -1.0), c(2.0, 0.0)],
    ]);
    let w = eigvals(&cplx3)?;
    assert_eq!(w.dtype(), DType::Complex128);
    let want = [
        c(1.1466855971815622, 1.2771682018882204),
        c(1.576146200930217, -0.4238537990697832),
        c(3.277168201888222, -0.8533144028184372),
    ];
    assert_same_values(&cvals(&w), &want, 1e-12, "cplx3");
    assert_decomposes(&cplx3, 1e-12);

    // np.linalg.eig of a stack [[[2, 1], [1, 2]], [[0, -2], [2, 0]]]: one
    // complex spectrum makes the whole stack complex.
    let stack = cp::stack(
        &[
            &real_matrix(&[&[2.0, 1.0], &[1.0, 2.0]]),
            &real_matrix(&[&[0.0, -2.0], &[2.0, 0.0]]),
        ],
        0,
    )?;
    let (w, v) = eig(&stack)?;
    assert_eq!(
        (w.dtype(), v.dtype()),
        (DType::Complex128, DType::Complex128)
    );
    assert_eq!(w.shape(), &[2, 2]);
    let wv = cvals(&w);
    assert_same_values(&wv[..2], &[c(3.0, 0.0), c(1.0, 0.0)], 1e-12, "stack 0");
    assert_same_values(&wv[2..], &[c(0.0, 2.0), c(0.0, -2.0)], 1e-12, "stack 1");
    assert_decomposes(&stack, 1e-12);
});

on_every_device!(result_dtypes_follow_numpy, |_dev| {
    // np.linalg.eig: float32 -> float32 (real spectrum) or complex64; ints ->
    // float64; complex input stays complex even with a real spectrum.
    let real_spectrum = real_matrix(&[&[2.0, 1.0], &[0.0, 3.0]]);
    let quarter_turn = real_matrix(&[&[0.0, -1.0], &[1.0, 0.0]]);
    let cases = [
        (real_spectrum.astype(DType::Float32)?, DType::Float32),
        (quarter_turn.astype(DType::Float32)?, DType::Complex64),
        (real_spectrum.astype(DType::Int64)?, DType::Float64),
        (real_spectrum.astype(DType::Bool)?, DType::Float64),
        (quarter_turn.astype(DType::Int32)?, DType::Complex128),
        (real_spectrum.astype(DType::Complex64)?, DType::Complex64),
        (real_spectrum.astype(DType::Complex128)?, DType::Complex128),
    ];
    for (a, want) in cases {
        let (w, v) = eig(&a)?;
        assert_eq!((w.dtype(), v.dtype()), (want, want), "eig of {}", a.dtype());
        assert_eq!(eigvals(&a)?.dtype(), want, "eigvals of {}", a.dtype());
    }
    // The eigenvalues of [[2, 1], [0, 3]] are 2 and 3; float16 computes in float32.
    let w = eigvals(&real_spectrum.astype(DType::Float16)?)?;
    assert_eq!(w.dtype(), DType::Float32);
    assert_same_values(&cvals(&w), &[c(2.0, 0.0), c(3.0, 0.0)], 1e-6, "float16");
});

on_every_device!(empty_and_one_by_one, |_dev| {
    // np.linalg.eig(np.zeros((0, 0))): float64 (0,) and (0, 0).
    let (w, v) = eig(&cp::zeros([0usize, 0], DType::Float64)?)?;
    assert_eq!((w.shape(), v.shape()), (&[0usize][..], &[0usize, 0][..]));
    assert_eq!((w.dtype(), v.dtype()), (DType::Float64, DType::Float64));
    let w = eigvals(&cp::zeros([0usize, 0], DType::Complex64)?)?;
    assert_eq!((w.shape(), w.dtype()), (&[0usize][..], DType::Complex64));
    // Empty stacks keep their batch axes.
    let (w, v) = eig(&cp::zeros([0usize, 3, 3], DType::Float64)?)?;
    assert_eq!(
        (w.shape(), v.shape()),
        (&[0usize, 3][..], &[0usize, 3, 3][..])
    );
    let (w, v) = eig(&cp::zeros([2usize, 0, 0], DType::Float32)?)?;
    assert_eq!(
        (w.shape(), v.shape()),
        (&[2usize, 0][..], &[2usize, 0, 0][..])
    );
    assert_eq!(w.dtype(), DType::Float32);
    // 1×1: w = [5], v = [[1]].
    let (w, v) = eig(&real_matrix(&[&[5.0]]))?;
    assert_close(&w, &[1], DType::Float64, &[5.0], 1e-14);
    assert_close(&v.abs()?, &[1, 1], DType::Float64, &[1.0], 1e-15);
});

on_every_device!(identity_holds_for_random_matrices_of_every_dtype, |_dev| {
    for (k, dtype) in DTYPES.into_iter().enumerate() {
        let seed = 40 + k as u64;
        assert_decomposes(&rand(&[6, 6], dtype, seed), tol(dtype));
        assert_decomposes(&rand(&[3, 5, 5], dtype, seed + 10), tol(dtype));
        // A non-contiguous view (a transpose) decomposes the same.
        let a = rand(&[4, 4], dtype, seed + 20);
        let t = a.t();
        let want = cvals(&eigvals(&t.copy()?)?);
        assert_same_values(&cvals(&eigvals(&t)?), &want, tol(dtype), "transpose");
    }
});

on_every_device!(bad_input_is_an_error, |_dev| {
    let e = eig(&cp::zeros([2usize, 3], DType::Float64)?).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "eig", .. }), "{e}");
    let e = eigvals(&cp::zeros([3usize], DType::Float64)?).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "eigvals", .. }), "{e}");
    let e = eigvals(&cp::zeros([2usize, 2, 3], DType::Float64)?).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "eigvals", .. }), "{e}");
    // np.linalg.eig raises LinAlgError "Array must not contain infs or NaNs".
    let nan = real_matrix(&[&[1.0, f64::NAN], &[0.0, 1.0]]);
    let e = eig(&nan).unwrap_err();
    assert!(matches!(e, Error::LinAlg { op: "eig", .. }), "{e}");
    assert!(e.to_string().contains("infs or NaNs"), "{e}");
    let inf = complex_matrix(&[
        &[c(1.0, f64::INFINITY), c(0.0, 0.0)],
        &[c(0.0, 0.0), c(1.0, 0.0)],
    ]);
    let e = eigvals(&inf).unwrap_err();
    assert!(matches!(e, Error::LinAlg { op: "eigvals", .. }), "{e}");
});

/// A symmetric matrix with well separated (so exactly real) eigenvalues.
fn real_spectrum(n: usize, seed: u64) -> Array {
    let r = rand(&[n, n], DType::Float64, seed);
    let sym = cp::add(&r, r.t()).unwrap();
    let diag: Vec<f64> = (0..n).map(|i| 10.0 * i as f64).collect();
    cp::add(&sym, cp::diag(&cp::asarray(diag).unwrap(), 0).unwrap()).unwrap()
}

/// The GPU's eigenvalues equal the CPU's on fresh random inputs, its
/// eigenvectors satisfy the identity, and nothing goes through the host.
#[test]
fn cuda_matches_cpu_without_host_fallback() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("linalg_eig");
    cp::cuda::reset_host_fallbacks();
    for (k, dtype) in DTYPES.into_iter().enumerate() {
        let shapes: [&[usize]; 3] = [&[1, 1], &[24, 24], &[3, 9, 9]];
        for (j, shape) in shapes.into_iter().enumerate() {
            let s = seed + 10 * k as u64 + j as u64;
            let a = cp::with_device(Device::Cpu, || rand(shape, dtype, s));
            let ga = a.to_device(&dev).unwrap();
            let cw = cp::with_device(Device::Cpu, || eigvals(&a)).unwrap();
            let (gw, gv) = cp::with_device(dev, || eig(&ga)).unwrap();
            assert_eq!((gw.device(), gv.device()), (dev, dev));
            assert_eq!(gw.dtype(), cw.dtype(), "{dtype} {shape:?} (seed {s})");
            let (gw, gv) = (
                gw.to_device(&Device::Cpu).unwrap(),
                gv.to_device(&Device::Cpu).unwrap(),
            );
            let (cw, gwv) = (cvals(&cw), cvals(&gw));
            let n = *shape.last().unwrap();
            for (m, (g, c)) in gwv.chunks(n).zip(cw.chunks(n)).enumerate() {
                let what = format!("{dtype} {shape:?} matrix {m} (seed {s})");
                assert_same_values(g, c, tol(dtype) * 10.0, &what);
            }
            let r = cp::with_device(Device::Cpu, || residual(&a, &gw, &gv));
            assert!(
                r <= tol(dtype) * 10.0,
                "GPU residual {r}, {dtype} {shape:?} (seed {s})"
            );
            assert!(
                unit_norm_error(&gv) <= tol(dtype),
                "GPU column norms, {dtype}"
            );
            let gw_only = cp::with_device(dev, || eigvals(&ga)).unwrap();
            assert_same_values(&cvals(&gw_only), &gwv, tol(dtype), "GPU eigvals vs eig");
        }
    }
    // A real spectrum gives real results on both devices.
    let a = cp::with_device(Device::Cpu, || real_spectrum(12, seed));
    let (cw, _) = cp::with_device(Device::Cpu, || eig(&a)).unwrap();
    let ga = a.to_device(&dev).unwrap();
    let (gw, gv) = cp::with_device(dev, || eig(&ga)).unwrap();
    assert_eq!((gw.dtype(), gv.dtype()), (DType::Float64, DType::Float64));
    assert_same_values(&cvals(&gw), &cvals(&cw), 1e-10, "real spectrum");
    cp::cuda::launch_pending().unwrap();
    assert_no_host_fallback("eig, eigvals");
}
