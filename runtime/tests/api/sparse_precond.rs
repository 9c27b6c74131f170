//! Incomplete-factorization preconditioners (`ilu0`, `ic0`) and triangular
//! solves (`spsolve_triangular`, cuSPARSE SpSV on the GPU): the factors
//! against the zero-fill reference of tests/data/scipy/generate_sparse_linalg.py,
//! preconditioned solvers against SciPy's runs with the same preconditioner,
//! triangular solves against SciPy's `spsolve_triangular`, bad input, and the
//! GPU against the CPU on random matrices with no host round trip.

use crate::common;
use crate::sparse_linalg::{
    assert_near_count, assert_vec_close, fx, fx_f64, fx_usize, matrix, rhs,
};

use common::values_f64;
use cp::sparse::linalg::{bicgstab, cg, gmres, ic0, ilu0, spsolve_triangular, SolveOptions};
use cp::sparse::CsrMatrix;
use cp::{Array, DType, Device};
use cuprite as cp;

fn ones(n: usize, dev: Device) -> Array {
    cp::ones(n, DType::Float64)
        .unwrap()
        .to_device(&dev)
        .unwrap()
}

/// A CSR matrix from its arrays, on `dev` (explicit zeros kept).
fn csr(data: Vec<f64>, indices: Vec<i32>, indptr: Vec<i32>, n: usize, dev: Device) -> CsrMatrix {
    let on = |a: Array| a.to_device(&dev).unwrap();
    CsrMatrix::new(
        &on(cp::asarray(data).unwrap()),
        &on(cp::asarray(indices).unwrap()),
        &on(cp::asarray(indptr).unwrap()),
        (n, n),
    )
    .unwrap()
}

on_every_device!(ilu0_and_ic0_factors_match_reference, |_dev| {
    for name in ["poisson", "convdiff"] {
        let a = matrix(name);
        let f = ilu0(&a)?;
        assert_eq!(f.lu().shape(), a.shape());
        assert_eq!(
            f.lu().indices().to_vec::<i32>()?,
            a.indices().to_vec::<i32>()?,
            "{name}: ILU(0) keeps A's pattern"
        );
        assert_vec_close(
            &format!("{name} ilu0"),
            &values_f64(f.lu().data()),
            &fx_f64(&format!("{name}/ilu0_data")),
            1e-12,
        );
    }
    let l = ic0(&matrix("poisson"))?;
    assert_eq!(
        l.l().indptr().to_vec::<i32>()?,
        fx("poisson/ic0_indptr").to_vec::<i32>()?
    );
    assert_vec_close(
        "poisson ic0",
        &values_f64(l.l().data()),
        &fx_f64("poisson/ic0_data"),
        1e-12,
    );
    // float32 factors agree to single precision.
    let f = ilu0(&matrix("convdiff").astype(DType::Float32)?)?;
    assert_eq!(f.lu().dtype(), DType::Float32);
    assert_vec_close(
        "convdiff ilu0 f32",
        &values_f64(f.lu().data()),
        &fx_f64("convdiff/ilu0_data"),
        1e-5,
    );
});

on_every_device!(
    preconditioned_solvers_match_scipy_and_converge_faster,
    |_dev| {
        // cg + IC(0) on Poisson.
        let (a, b) = (matrix("poisson"), rhs("poisson"));
        let m = ic0(&a)?;
        let r = cg(&a, &b, SolveOptions::new().rtol(1e-10).m(&m))?;
        assert!(r.converged, "{r:?}");
        assert_near_count(
            "cg+ic0",
            r.iterations,
            fx_usize("poisson/cg_ic0_iterations"),
        );
        assert!(
            r.iterations < fx_usize("poisson/cg_iterations"),
            "cg+ic0 took {} iterations, plain cg {}",
            r.iterations,
            fx_usize("poisson/cg_iterations")
        );
        assert_vec_close(
            "cg+ic0",
            &values_f64(&r.x),
            &fx_f64("poisson/spsolve"),
            1e-8,
        );
        assert_vec_close(
            "cg+ic0 vs scipy",
            &values_f64(&r.x),
            &fx_f64("poisson/cg_ic0_x"),
            1e-8,
        );
        // ILU(0) of a symmetric matrix is the same preconditioner.
        let ilu = ilu0(&a)?;
        let r2 = cg(&a, &b, SolveOptions::new().rtol(1e-10).m(&ilu))?;
        assert_near_count("cg+ilu0", r2.iterations, r.iterations);

        // bicgstab and gmres + ILU(0) on convection-diffusion.
        let (a, b) = (matrix("convdiff"), rhs("convdiff"));
        let exact = fx_f64("convdiff/spsolve");
        let m = ilu0(&a)?;
        let r = bicgstab(&a, &b, SolveOptions::new().rtol(1e-10).m(&m))?;
        assert!(r.converged, "{r:?}");
        assert_near_count(
            "bicgstab+ilu0",
            r.iterations,
            fx_usize("convdiff/bicgstab_ilu0_iterations"),
        );
        assert!(r.iterations < fx_usize("convdiff/bicgstab_iterations"));
        assert_vec_close("bicgstab+ilu0", &values_f64(&r.x), &exact, 1e-8);
        let plain = gmres(&a, &b, SolveOptions::new().rtol(1e-10).restart(10))?;
        let r = gmres(&a, &b, SolveOptions::new().rtol(1e-10).restart(10).m(&m))?;
        assert!(r.converged, "{r:?}");
        assert!(
            r.iterations < plain.iterations,
            "gmres+ilu0 {} iterations, plain {}",
            r.iterations,
            plain.iterations
        );
        assert_vec_close("gmres+ilu0", &values_f64(&r.x), &exact, 1e-8);
        assert_vec_close(
            "gmres+ilu0 vs scipy",
            &values_f64(&r.x),
            &fx_f64("convdiff/gmres_ilu0_x"),
            1e-8,
        );
        // The preconditioner's solve is (LU)^-1 b: applying A to it gives b
        // back exactly for a tridiagonal matrix (no fill to drop).
        let t = cp::sparse::diags(
            &[
                &cp::asarray(vec![-1.0f64; 5])?,
                &cp::asarray(vec![3.0f64; 6])?,
                &cp::asarray(vec![-2.0f64; 5])?,
            ],
            &[-1, 0, 1],
            Some((6, 6)),
            None,
        )?
        .to_device(&cp::current_device())?;
        let bt = cp::arange(6.0f64)?.to_device(&cp::current_device())?;
        let back = t.dot(&ilu0(&t)?.solve(&bt)?)?;
        assert_vec_close("A (LU)^-1 b", &values_f64(&back), &values_f64(&bt), 1e-13);
    }
);

on_every_device!(spsolve_triangular_matches_scipy, |dev| {
    let (t, b) = (matrix("tri"), rhs("tri"));
    for (lower, unit, key) in [
        (true, false, "lower"),
        (false, false, "upper"),
        (true, true, "lower_unit"),
        (false, true, "upper_unit"),
    ] {
        let x = spsolve_triangular(&t, &b, lower, unit)?;
        assert_eq!(x.device(), dev);
        assert_vec_close(key, &values_f64(&x), &fx_f64(&format!("tri/{key}")), 1e-12);
        // Two right-hand sides: b and 2 b.
        let b2 = cp::stack(&[&b, &cp::multiply(&b, 2.0)?], 1)?;
        let x2 = spsolve_triangular(&t, &b2, lower, unit)?;
        assert_eq!(x2.shape(), &[30, 2]);
        assert_vec_close(
            key,
            &values_f64(&x2.slice(cp::s![.., 1])?),
            &values_f64(&cp::multiply(&x, 2.0)?),
            1e-12,
        );
    }
    // A CSC matrix and an integer right-hand side are converted.
    let x = spsolve_triangular(
        &t.tocsc()?,
        &cp::ones(30, DType::Int64)?.to_device(&dev)?,
        true,
        false,
    )?;
    assert_eq!(x.dtype(), DType::Float64);
    // An empty system.
    let e = CsrMatrix::from_dense(&cp::zeros([0, 0], DType::Float64)?.to_device(&dev)?)?;
    let x = spsolve_triangular(
        &e,
        &cp::zeros(0, DType::Float64)?.to_device(&dev)?,
        true,
        false,
    )?;
    assert_eq!(x.shape(), &[0]);
});

on_every_device!(bad_input_is_a_clear_error, |dev| {
    let rect = CsrMatrix::from_dense(&cp::ones([3, 4], DType::Float64)?.to_device(&dev)?)?;
    let e = ilu0(&rect).unwrap_err();
    assert!(
        matches!(e, cp::Error::Shape { op: "ilu0", .. }) && e.to_string().contains("(3, 4)"),
        "{e}"
    );
    let e = ic0(&rect).unwrap_err();
    assert!(matches!(e, cp::Error::Shape { op: "ic0", .. }), "{e}");
    let e = spsolve_triangular(&rect, &ones(3, dev), true, false).unwrap_err();
    assert!(
        matches!(
            e,
            cp::Error::Shape {
                op: "spsolve_triangular",
                ..
            }
        ),
        "{e}"
    );

    // Row 1 stores no diagonal entry: [[2, 1], [1, 0]] without the (1, 1) entry.
    let missing = csr(vec![2.0, 1.0, 1.0], vec![0, 1, 0], vec![0, 2, 3], 2, dev);
    for e in [ilu0(&missing).unwrap_err(), ic0(&missing).unwrap_err()] {
        assert!(matches!(e, cp::Error::LinAlg { .. }), "{e}");
        assert!(e.to_string().contains("row 1 stores no diagonal"), "{e}");
    }
    let e = spsolve_triangular(&missing, &ones(2, dev), true, false).unwrap_err();
    assert!(
        matches!(
            e,
            cp::Error::LinAlg {
                op: "spsolve_triangular",
                ..
            }
        ) && e.to_string().contains("zero at row 1"),
        "{e}"
    );
    // A stored zero pivot: [[0, 1], [1, 1]].
    let zero = csr(
        vec![0.0, 1.0, 1.0, 1.0],
        vec![0, 1, 0, 1],
        vec![0, 2, 4],
        2,
        dev,
    );
    let e = ilu0(&zero).unwrap_err();
    assert!(
        matches!(e, cp::Error::LinAlg { op: "ilu0", .. }) && e.to_string().contains("row 0"),
        "{e}"
    );
    let e = spsolve_triangular(&zero, &ones(2, dev), false, false).unwrap_err();
    assert!(e.to_string().contains("zero at row 0"), "{e}");
    // Not positive definite: [[1, 2], [2, 1]] has IC(0) pivot 1 - 4 < 0 at row 1.
    let indefinite = csr(
        vec![1.0, 2.0, 2.0, 1.0],
        vec![0, 1, 0, 1],
        vec![0, 2, 4],
        2,
        dev,
    );
    let e = ic0(&indefinite).unwrap_err();
    assert!(
        matches!(e, cp::Error::LinAlg { op: "ic0", .. }) && e.to_string().contains("row 1"),
        "{e}"
    );
    // Wrong dtypes: bool and float16 vectors through the preconditioner.
    let a = matrix("poisson");
    let m = ic0(&a)?;
    for dt in [DType::Bool, DType::Float16] {
        let e = m.matvec(&cp::ones(64, dt)?.to_device(&dev)?).unwrap_err();
        assert!(matches!(e, cp::Error::DType { op: "ic0", .. }), "{e}");
    }
    // A preconditioner of the wrong size, and a solve of the wrong length.
    let small = ilu0(&matrix("convdiff"))?;
    let e = cg(&a, &rhs("poisson"), SolveOptions::new().m(&small)).unwrap_err();
    assert!(
        matches!(e, cp::Error::Shape { op: "cg", .. }) && e.to_string().contains("(49, 49)"),
        "{e}"
    );
    let e = small.solve(&ones(3, dev)).unwrap_err();
    assert!(
        matches!(
            e,
            cp::Error::Shape {
                op: "ilu0.solve",
                ..
            }
        ),
        "{e}"
    );
    if dev.is_cuda() {
        // GPU factors and a host vector.
        let e = m
            .matvec(&cp::ones(64, DType::Float64)?.to_device(&Device::Cpu)?)
            .unwrap_err();
        assert!(
            matches!(e, cp::Error::DeviceMismatch { op: "ic0", .. }),
            "{e}"
        );
    }
});

/// Whether this machine's cuSPARSE still has the legacy incomplete
/// factorizations (CUDA 13 deprecates them): printed for whoever reads the log.
#[test]
fn gpu_reports_cusparse_incomplete_factorizations() {
    let Some(gpu) = common::gpu_or_skip() else {
        return;
    };
    let a = cp::with_device(gpu, || -> cp::Result<CsrMatrix> { Ok(matrix("poisson")) }).unwrap();
    for (name, r) in [
        ("csrilu02 (ilu0)", ilu0(&a).map(|_| ())),
        ("csric02 (ic0)", ic0(&a).map(|_| ())),
    ] {
        match r {
            Ok(()) => eprintln!("cuSPARSE {name}: available"),
            Err(e @ cp::Error::MissingLibrary { .. }) => {
                eprintln!("cuSPARSE {name}: MISSING from this CUDA: {e}")
            }
            Err(e) => panic!("{name}: {e}"),
        }
    }
}

/// A random diagonally dominant n x n matrix (symmetric when asked), built
/// on the CPU.
fn random_matrix(n: usize, seed: u64, dtype: DType, symmetric: bool) -> CsrMatrix {
    let r = cp::sparse::random(n, n, 0.08, seed, dtype).unwrap();
    let r = if symmetric {
        r.add(&r.transpose().tocsr().unwrap()).unwrap()
    } else {
        r
    };
    let d = cp::sparse::eye(n, n, 0, dtype)
        .unwrap()
        .mul_scalar(12.0)
        .unwrap();
    r.add(&d).unwrap()
}

/// The GPU against the CPU on random matrices: triangular solves, the
/// factors, and preconditioned solves, with no host round trip on the GPU.
#[test]
fn gpu_matches_cpu_without_host_fallback() {
    let Some(gpu) = common::gpu_or_skip() else {
        return;
    };
    let seed = common::test_seed("sparse_precond::gpu_matches_cpu_without_host_fallback");
    for dtype in [DType::Float64, DType::Float32, DType::Complex128] {
        // Solutions at rtol 1e-10 (1e-5 in float32) of diagonally dominant
        // systems (condition number about 2): the two devices agree to
        // about the tolerance times the condition number.
        let tol = if dtype == DType::Float32 { 2e-3 } else { 1e-8 };
        let n = 80;
        let general = random_matrix(n, seed, dtype, false);
        let symmetric = random_matrix(n, seed + 1, dtype, true);
        let b_host = cp::with_device(Device::Cpu, || -> cp::Result<Array> {
            Ok(common::rand(&[n], dtype, seed + 2))
        })
        .unwrap();
        let run = |dev: Device| -> cp::Result<Vec<Vec<f64>>> {
            let (g, s, b) = (
                general.to_device(&dev)?,
                symmetric.to_device(&dev)?,
                b_host.to_device(&dev)?,
            );
            cp::with_device(dev, || {
                if dev.is_cuda() {
                    cp::cuda::reset_host_fallbacks();
                }
                let parts = |a: &Array| -> cp::Result<Vec<f64>> {
                    let mut v = values_f64(&cp::real(a)?);
                    if a.dtype().is_complex() {
                        v.extend(values_f64(&cp::imag(a)?));
                    }
                    Ok(v)
                };
                let mut out = Vec::new();
                for (lower, unit) in [(true, false), (false, false), (true, true), (false, true)] {
                    out.push(parts(&spsolve_triangular(&g, &b, lower, unit)?)?);
                }
                let lu = ilu0(&g)?;
                out.push(parts(lu.lu().data())?);
                out.push(parts(&lu.solve(&b)?)?);
                let rtol = if dtype == DType::Float32 { 1e-5 } else { 1e-10 };
                let r = bicgstab(&g, &b, SolveOptions::new().rtol(rtol).m(&lu))?;
                assert!(r.converged, "bicgstab+ilu0 {dtype} on {dev}: {r:?}");
                out.push(parts(&r.x)?);
                let r = gmres(&g, &b, SolveOptions::new().rtol(rtol).m(&lu))?;
                assert!(r.converged, "gmres+ilu0 {dtype} on {dev}: {r:?}");
                out.push(parts(&r.x)?);
                if !dtype.is_complex() {
                    let ic = ic0(&s)?;
                    out.push(parts(ic.l().data())?);
                    let r = cg(&s, &b, SolveOptions::new().rtol(rtol).m(&ic))?;
                    assert!(r.converged, "cg+ic0 {dtype} on {dev}: {r:?}");
                    out.push(parts(&r.x)?);
                }
                if dev.is_cuda() {
                    common::assert_no_host_fallback(
                        "spsolve_triangular, ilu0, ic0 and the solvers they precondition",
                    );
                }
                Ok(out)
            })
        };
        let (on_gpu, on_cpu) = (run(gpu).unwrap(), run(Device::Cpu).unwrap());
        assert_eq!(on_gpu.len(), on_cpu.len());
        for (i, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
            assert_vec_close(&format!("{dtype} result {i}"), g, c, tol);
        }
    }
}
