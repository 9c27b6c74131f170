//! `solve_triangular`, `lu_factor` and `lu_solve` (SciPy's signatures) on
//! every backend: identities (op(A) x = b, P L U = A), small exact cases,
//! batches, every dtype and `trans`, error cases, and on CUDA the CPU's
//! results on random inputs without a host round trip.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::linalg::{lu_factor, lu_solve, solve_triangular, Trans};
use cuprite::{Array, DType, Device, Error};

const TRANS: [Trans; 3] = [Trans::N, Trans::T, Trans::C];

/// A well-conditioned random (n, n) matrix of `dtype`: random entries plus
/// n on the diagonal.
fn well_conditioned(n: usize, dtype: DType, seed: u64) -> Array {
    let r = rand(&[n, n], dtype, seed);
    let eye = cp::eye(n, None, 0, dtype).unwrap();
    cp::add(&r, cp::multiply(&eye, n as f64).unwrap()).unwrap()
}

/// op(a) as an array (the conjugate transpose for C).
fn op_of(a: &Array, trans: Trans) -> Array {
    match trans {
        Trans::N => a.clone(),
        Trans::T => a.t(),
        Trans::C => cp::conj(a.t()).unwrap(),
    }
}

fn tol(dtype: DType) -> f64 {
    if matches!(dtype, DType::Float32 | DType::Complex64) {
        1e-4
    } else {
        1e-10
    }
}

#[track_caller]
fn assert_all_close(got: &Array, want: &Array, rtol: f64, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    let (g, w) = (cvals(got), cvals(want));
    let scale = w.iter().map(|v| v.norm()).fold(1.0, f64::max);
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!(
            (a - b).norm() <= rtol * scale,
            "{what}: element {i}: {a} vs {b}"
        );
    }
}

on_every_device!(solve_triangular_small_exact, |_dev| {
    // [[2, 0], [1, 4]] x = [2, 9] gives [1, 2]; its upper triangle [[2, 0],
    // [0, 4]] gives [1, 2.25]; unit diagonal lower gives [2, 7].
    let a = cp::asarray(vec![vec![2.0, 0.0], vec![1.0, 4.0]])?;
    let b = cp::asarray(vec![2.0, 9.0])?;
    assert_exact(
        &solve_triangular(&a, &b, true, Trans::N, false)?,
        &[2],
        &[1.0, 2.0],
    );
    assert_exact(
        &solve_triangular(&a, &b, false, Trans::N, false)?,
        &[2],
        &[1.0, 2.25],
    );
    assert_exact(
        &solve_triangular(&a, &b, true, Trans::N, true)?,
        &[2],
        &[2.0, 7.0],
    );
    // aᵀ = [[2, 1], [0, 4]]: x1 = 9/4, x0 = (2 - 9/4) / 2.
    assert_exact(
        &solve_triangular(&a, &b, true, Trans::T, false)?,
        &[2],
        &[-0.125, 2.25],
    );
    // Integer inputs compute in float64.
    let ai = cp::asarray(vec![vec![1i64, 0], vec![2, 1]])?;
    let x = solve_triangular(&ai, &cp::asarray(vec![1i64, 4])?, true, Trans::N, false)?;
    assert_exact(&x, &[2], &[1.0, 2.0]);
});

on_every_device!(solve_triangular_identities, |_dev| {
    for dtype in [
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ] {
        let n = 7;
        let full = well_conditioned(n, dtype, 3);
        let b = rand(&[n, 3], dtype, 4);
        for lower in [true, false] {
            let tri = if lower {
                cp::tril(&full, 0)?
            } else {
                cp::triu(&full, 0)?
            };
            for trans in TRANS {
                for unit in [false, true] {
                    // The other triangle holds garbage that must not be read.
                    let x = solve_triangular(&full, &b, lower, trans, unit)?;
                    assert_eq!(x.dtype(), dtype);
                    let mut m = tri.clone();
                    if unit {
                        let d = cp::diagonal(&tri, 0, -2, -1)?;
                        m = cp::subtract(&m, cp::multiply(&cp::eye(n, None, 0, dtype)?, d)?)?;
                        m = cp::add(&m, cp::eye(n, None, 0, dtype)?)?;
                    }
                    let back = cp::matmul(&op_of(&m, trans), &x)?;
                    let what = format!("{dtype} lower={lower} {trans:?} unit={unit}");
                    assert_all_close(&back, &b, tol(dtype), &what);
                }
            }
        }
    }
    // A batch of matrices against one right-hand side, and a strided a.
    let a = cp::tril(&rand(&[2, 3, 5, 5], DType::Float64, 8), 0)?;
    let a = cp::add(
        &a,
        cp::multiply(&cp::eye(5, None, 0, DType::Float64)?, 6.0)?,
    )?;
    let b = rand(&[5], DType::Float64, 9);
    let x = solve_triangular(&a, &b, true, Trans::N, false)?;
    assert_eq!(x.shape(), &[2, 3, 5]);
    let back = cp::matmul(&a, &x.expand_dims(3)?)?.squeeze_axes(&[3])?;
    assert_all_close(&back, &b.broadcast_to(&[2, 3, 5])?, 1e-10, "batch");
    let at = a.swapaxes(-1, -2)?;
    let y = solve_triangular(&at, &b, false, Trans::T, false)?;
    assert_all_close(&y, &x, 1e-10, "strided transpose");
});

on_every_device!(solve_triangular_errors, |_dev| {
    let a = cp::asarray(vec![vec![1.0, 0.0], vec![1.0, 0.0]])?;
    let b = cp::asarray(vec![1.0, 1.0])?;
    let e = solve_triangular(&a, &b, true, Trans::N, false).unwrap_err();
    assert_error!(e, LinAlg, "solve_triangular");
    // A unit diagonal is not read: no error.
    let x = solve_triangular(&a, &b, true, Trans::N, true)?;
    assert_exact(&x, &[2], &[1.0, 0.0]);
    let rect = cp::ones([2, 3], DType::Float64)?;
    let e = solve_triangular(&rect, &b, true, Trans::N, false).unwrap_err();
    assert_error!(e, Shape, "solve_triangular");
    let e = solve_triangular(
        &cp::eye(3, None, 0, DType::Float64)?,
        &b,
        true,
        Trans::N,
        false,
    )
    .unwrap_err();
    assert!(matches!(e, Error::Shape { .. }), "{e}");
    // Empty systems.
    let x = solve_triangular(
        &cp::ones([0, 0], DType::Float64)?,
        &cp::ones([0, 2], DType::Float64)?,
        true,
        Trans::N,
        false,
    )?;
    assert_eq!(x.shape(), &[0, 2]);
});

/// P L U from `lu_factor`'s packed factors and pivots (applied on the host).
fn reconstruct(lu: &Array, piv: &Array) -> Array {
    let n = lu.shape()[0];
    let l = cp::add(
        cp::tril(lu, -1).unwrap(),
        cp::eye(n, None, 0, lu.dtype()).unwrap(),
    )
    .unwrap();
    let u = cp::triu(lu, 0).unwrap();
    let prod = cp::matmul(&l, &u).unwrap().to_device(&Device::Cpu).unwrap();
    // Undo the swaps, last first: row i of P A came from swapping i and piv[i].
    let mut rows: Vec<Array> = (0..n).map(|i| prod.at(i as isize).unwrap()).collect();
    let p = piv
        .to_device(&Device::Cpu)
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    for i in (0..n).rev() {
        rows.swap(i, p[i] as usize);
    }
    let refs: Vec<&Array> = rows.iter().collect();
    cp::stack(&refs, 0).unwrap()
}

on_every_device!(lu_factor_and_solve, |dev| {
    // scipy.linalg.lu_factor([[1, 2], [3, 4]]) = ([[3, 4], [1/3, 2/3]], [1, 1]).
    let a = cp::asarray(vec![vec![1.0, 2.0], vec![3.0, 4.0]])?;
    let (lu, piv) = lu_factor(&a)?;
    assert_eq!(piv.dtype(), DType::Int32);
    assert_exact(&piv, &[2], &[1i32, 1]);
    assert_close(
        &lu,
        &[2, 2],
        DType::Float64,
        &[3.0, 4.0, 1.0 / 3.0, 2.0 / 3.0],
        1e-15,
    );
    for dtype in [
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ] {
        let n = 9;
        let a = rand(&[n, n], dtype, 21);
        let (lu, piv) = lu_factor(&a)?;
        assert_eq!(lu.device(), dev);
        assert_all_close(
            &reconstruct(&lu, &piv),
            &a.to_device(&Device::Cpu)?,
            tol(dtype),
            &format!("PLU {dtype}"),
        );
        let b = rand(&[n, 2], dtype, 22);
        for trans in TRANS {
            let x = lu_solve(&lu, &piv, &b, trans)?;
            let back = cp::matmul(&op_of(&a, trans), &x)?;
            assert_all_close(
                &back,
                &b,
                tol(dtype),
                &format!("lu_solve {dtype} {trans:?}"),
            );
        }
        let bv = rand(&[n], dtype, 23);
        let x = lu_solve(&lu, &piv, &bv, Trans::N)?;
        assert_eq!(x.shape(), &[n]);
    }
    // A stack of matrices; a singular one is factored without error.
    let (lu, piv) = lu_factor(&rand(&[3, 4, 4], DType::Float64, 5))?;
    assert_eq!(
        (lu.shape(), piv.shape()),
        (&[3usize, 4, 4][..], &[3usize, 4][..])
    );
    let (lu, piv) = lu_factor(&cp::ones([3, 3], DType::Float64)?)?;
    assert_eq!((lu.shape(), piv.shape()), (&[3usize, 3][..], &[3usize][..]));
    assert_eq!(values_f64(&lu)[..3], [1.0, 1.0, 1.0]);
    let (lu, piv) = lu_factor(&cp::ones([0, 0], DType::Float32)?)?;
    assert_eq!((lu.shape(), piv.shape()), (&[0usize, 0][..], &[0usize][..]));
});

on_every_device!(lu_errors, |_dev| {
    let a = rand(&[3, 3], DType::Float64, 1);
    let (lu, piv) = lu_factor(&a)?;
    let b = rand(&[3], DType::Float64, 2);
    let e = lu_factor(&cp::ones([2, 3], DType::Float64)?).unwrap_err();
    assert_error!(e, Shape, "lu_factor");
    let e = lu_solve(&lu, &piv, &rand(&[4], DType::Float64, 3), Trans::N).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "lu_solve", .. }), "{e}");
    let e = lu_solve(&lu, &cp::zeros([2], DType::Int32)?, &b, Trans::N).unwrap_err();
    assert!(matches!(e, Error::Shape { op: "lu_solve", .. }), "{e}");
    let e = lu_solve(&lu, &cp::zeros([3], DType::Float64)?, &b, Trans::N).unwrap_err();
    assert!(matches!(e, Error::DType { op: "lu_solve", .. }), "{e}");
    let bad = cp::asarray(vec![0i32, 3, 2])?;
    let e = lu_solve(&lu, &bad, &b, Trans::N).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { op: "lu_solve", .. }),
        "{e}"
    );
});

/// The GPU's results equal the CPU's on fresh random inputs, with no host
/// round trip.
#[test]
fn cuda_matches_cpu_without_host_fallback() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("linalg_more");
    cp::cuda::reset_host_fallbacks();
    for dtype in [
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ] {
        let (a, b) = cp::with_device(Device::Cpu, || {
            (
                well_conditioned(33, dtype, seed),
                rand(&[2, 33, 5], dtype, seed + 1),
            )
        });
        let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
        for trans in TRANS {
            for (lower, unit) in [(true, false), (false, true)] {
                let c =
                    cp::with_device(Device::Cpu, || solve_triangular(&a, &b, lower, trans, unit))
                        .unwrap();
                let g = cp::with_device(dev, || solve_triangular(&ga, &gb, lower, trans, unit))
                    .unwrap();
                assert_eq!(g.device(), dev);
                assert_all_close(
                    &g.to_device(&Device::Cpu).unwrap(),
                    &c,
                    tol(dtype),
                    "solve_triangular",
                );
            }
            let (clu, cpiv) = cp::with_device(Device::Cpu, || lu_factor(&a)).unwrap();
            let (glu, gpiv) = cp::with_device(dev, || lu_factor(&ga)).unwrap();
            assert_eq!(values_f64(&gpiv), values_f64(&cpiv), "pivots (seed {seed})");
            assert_all_close(
                &glu.to_device(&Device::Cpu).unwrap(),
                &clu,
                tol(dtype),
                "lu",
            );
            let c = cp::with_device(Device::Cpu, || {
                lu_solve(&clu, &cpiv, &b.at(0).unwrap(), trans)
            })
            .unwrap();
            let g =
                cp::with_device(dev, || lu_solve(&glu, &gpiv, &gb.at(0).unwrap(), trans)).unwrap();
            assert_all_close(
                &g.to_device(&Device::Cpu).unwrap(),
                &c,
                tol(dtype),
                "lu_solve",
            );
        }
    }
    cp::cuda::launch_pending().unwrap();
    assert_no_host_fallback("solve_triangular, lu_factor, lu_solve");
}
