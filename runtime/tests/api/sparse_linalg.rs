//! cp::sparse::linalg against SciPy 1.17 (fixtures written by
//! tests/data/scipy/generate_sparse_linalg.py: a 2-D Poisson matrix, a
//! nonsymmetric convection-diffusion matrix and a graph Laplacian), the GPU
//! against the CPU on random right-hand sides with no host round trip inside
//! the solvers, and bad input.

use crate::common;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use common::values_f64;
use cp::sparse::linalg::{
    bicgstab, cg, diagonal, eigsh, expm_multiply, gmres, jacobi, lsmr, lsqr, minres, norm, splu,
    spsolve, spsolve_triangular, svds, EigshOptions, LinearOperator, LsmrOptions, LsqrOptions,
    SolveOptions, SparseNorm, Trans, Which,
};
use cp::sparse::CsrMatrix;
use cp::{Array, DType, Device};
use cuprite as cp;

pub(crate) fn fixtures() -> &'static BTreeMap<String, Array> {
    static F: OnceLock<BTreeMap<String, Array>> = OnceLock::new();
    F.get_or_init(|| {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/scipy/sparse_linalg.npz"
        );
        let opts = cp::LoadOptions::default().device(Some(Device::Cpu));
        cp::load_npz_with(path, &opts).expect("sparse_linalg.npz (run generate_sparse_linalg.py)")
    })
}

pub(crate) fn fx(key: &str) -> &'static Array {
    fixtures()
        .get(key)
        .unwrap_or_else(|| panic!("fixture {key} missing"))
}

pub(crate) fn fx_f64(key: &str) -> Vec<f64> {
    values_f64(fx(key))
}

pub(crate) fn fx_usize(key: &str) -> usize {
    fx(key).astype(DType::Int64).unwrap().item::<i64>().unwrap() as usize
}

/// A fixture problem's matrix on the current device.
pub(crate) fn matrix(name: &str) -> CsrMatrix {
    let dev = cp::current_device();
    let shape = fx(&format!("{name}/shape")).to_vec::<i64>().unwrap();
    let on = |f: &str| fx(&format!("{name}/{f}")).to_device(&dev).unwrap();
    CsrMatrix::new(
        &on("data"),
        &on("indices"),
        &on("indptr"),
        (shape[0] as usize, shape[1] as usize),
    )
    .unwrap()
}

pub(crate) fn rhs(name: &str) -> Array {
    fx(&format!("{name}/b"))
        .to_device(&cp::current_device())
        .unwrap()
}

/// Every element within `tol` of the expected, relative to the largest expected magnitude.
#[track_caller]
pub(crate) fn assert_vec_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * scale,
            "{what}[{i}]: got {g}, want {w} (tol {tol} x {scale});\n got {got:?}\nwant {want:?}"
        );
    }
}

#[track_caller]
pub(crate) fn assert_near_count(what: &str, got: usize, want: usize) {
    assert!(
        got.abs_diff(want) <= 1,
        "{what}: {got} iterations, SciPy took {want}"
    );
}

on_every_device!(cg_poisson_matches_scipy, |dev| {
    let (a, b) = (matrix("poisson"), rhs("poisson"));
    let r = cg(&a, &b, SolveOptions::new().rtol(1e-10))?;
    assert!(r.converged && r.info == 0, "{r:?}");
    assert_vec_close("cg x", &values_f64(&r.x), &fx_f64("poisson/spsolve"), 1e-8);
    assert_vec_close(
        "cg x vs scipy",
        &values_f64(&r.x),
        &fx_f64("poisson/cg_x"),
        1e-9,
    );
    assert_near_count("cg", r.iterations, fx_usize("poisson/cg_iterations"));
    assert!(
        r.residual
            <= 1e-10
                * common::values_f64(&b)
                    .iter()
                    .map(|v| v * v)
                    .sum::<f64>()
                    .sqrt()
    );

    let m = jacobi(&a)?;
    let r = cg(&a, &b, SolveOptions::new().rtol(1e-10).m(&m))?;
    assert!(r.converged);
    assert_near_count(
        "cg+jacobi",
        r.iterations,
        fx_usize("poisson/cg_jacobi_iterations"),
    );

    // Not converging is a result, not an error (SciPy's info = maxiter).
    let mut calls = 0;
    let r = cg(
        &a,
        &b,
        SolveOptions::new()
            .rtol(1e-10)
            .maxiter(5)
            .callback(|_| calls += 1),
    )?;
    assert!(!r.converged);
    assert_eq!(
        (r.info, r.iterations),
        (fx_usize("poisson/cg_5_info") as i64, 5)
    );
    assert_vec_close(
        "cg 5 steps",
        &values_f64(&r.x),
        &fx_f64("poisson/cg_5_x"),
        1e-10,
    );
    assert_eq!(calls, 5);
    assert_eq!(r.x.device(), dev);
});

on_every_device!(gmres_and_bicgstab_convdiff_match_scipy, |_dev| {
    let (a, b) = (matrix("convdiff"), rhs("convdiff"));
    let exact = fx_f64("convdiff/spsolve");
    let r = gmres(&a, &b, SolveOptions::new().rtol(1e-10).restart(10))?;
    assert!(r.converged, "{r:?}");
    assert_vec_close("gmres x", &values_f64(&r.x), &exact, 1e-8);
    assert_vec_close(
        "gmres vs scipy",
        &values_f64(&r.x),
        &fx_f64("convdiff/gmres_x"),
        1e-8,
    );
    let r = gmres(
        &a,
        &b,
        SolveOptions::new().rtol(1e-10).restart(10).maxiter(2),
    )?;
    assert!(!r.converged);
    assert_eq!(r.iterations, 20);
    assert_vec_close(
        "gmres 2 cycles",
        &values_f64(&r.x),
        &fx_f64("convdiff/gmres_2_x"),
        1e-8,
    );

    let r = bicgstab(&a, &b, SolveOptions::new().rtol(1e-10))?;
    assert!(r.converged, "{r:?}");
    assert_vec_close("bicgstab x", &values_f64(&r.x), &exact, 1e-8);
    assert_near_count(
        "bicgstab",
        r.iterations,
        fx_usize("convdiff/bicgstab_iterations"),
    );

    // A preconditioned gmres and a closure operator reach the same solution.
    let m = jacobi(&a)?;
    let r = gmres(&a, &b, SolveOptions::new().rtol(1e-10).m(&m))?;
    assert_vec_close("gmres+jacobi", &values_f64(&r.x), &exact, 1e-8);
    let op = LinearOperator::new(a.shape(), DType::Float64, |x| a.dot(x));
    let r = bicgstab(
        &op,
        &b,
        SolveOptions::new().rtol(1e-10).x0(&cp::ones_like(&b)?),
    )?;
    assert!(r.converged, "bicgstab closure: {r:?}");
    // The true residual: with cond(A) = 14, one at rtol says x is within
    // 1e-9 of the solution; a converged run (the recurrence's r small)
    // whose true residual is large updated x and r from different values.
    let true_residual = values_f64(&cp::subtract(&b, a.dot(&r.x)?)?)
        .iter()
        .map(|v| v * v)
        .sum::<f64>()
        .sqrt();
    let bnorm = values_f64(&b).iter().map(|v| v * v).sum::<f64>().sqrt();
    assert!(
        true_residual <= 1e-9 * bnorm,
        "bicgstab closure: ||b - A x|| = {true_residual:e} for ||b|| = {bnorm} after {} iterations (recurrence residual {:e})",
        r.iterations,
        r.residual
    );
    assert_vec_close("bicgstab closure", &values_f64(&r.x), &exact, 1e-8);
});

on_every_device!(minres_lsqr_expm_multiply_match_scipy, |_dev| {
    let (a, b) = (matrix("poisson"), rhs("poisson"));
    let r = minres(&a, &b, SolveOptions::new().rtol(1e-12))?;
    assert!(r.converged, "{r:?}");
    assert_vec_close(
        "minres",
        &values_f64(&r.x),
        &fx_f64("poisson/spsolve"),
        1e-8,
    );
    // Least squares with the first 30 columns of convdiff (a 49 x 30 matrix).
    let c = matrix("convdiff");
    let tall = CsrMatrix::from_dense(&c.to_dense()?.slice(cp::s![.., ..30])?)?;
    let r = lsqr(
        &tall,
        &rhs("convdiff"),
        LsqrOptions::new().tol(1e-12, 1e-12),
    )?;
    assert!(r.converged, "{r:?}");
    assert_vec_close("lsqr", &values_f64(&r.x), &fx_f64("tall/lsqr_x"), 1e-8);
    let y = expm_multiply(&c, &rhs("convdiff"), -0.1)?;
    assert_vec_close(
        "expm_multiply",
        &values_f64(&y),
        &fx_f64("convdiff/expm_multiply"),
        1e-12,
    );
});

on_every_device!(diagonal_and_norms_match_scipy, |_dev| {
    let a = matrix("convdiff");
    assert_vec_close(
        "diagonal",
        &values_f64(&diagonal(&a)?),
        &fx_f64("convdiff/diagonal"),
        0.0,
    );
    for name in ["poisson", "convdiff", "laplacian"] {
        let a = matrix(name);
        for (ord, key) in [
            (SparseNorm::Fro, "fro"),
            (SparseNorm::One, "1"),
            (SparseNorm::Inf, "inf"),
        ] {
            let want = fx_f64(&format!("{name}/norm_{key}"))[0];
            let got = norm(&a, ord)?;
            assert!(
                (got - want).abs() <= 1e-12 * want,
                "{name} norm {key}: {got} vs {want}"
            );
        }
    }
});

on_every_device!(direct_solvers_match_scipy, |_dev| {
    for name in ["poisson", "convdiff", "laplacian"] {
        let (a, b) = (matrix(name), rhs(name));
        if name == "laplacian" {
            // Singular (constant vectors are its null space); SciPy returns
            // 1e15-sized noise with a warning, here it is an error.
            let e = spsolve(&a, &b).unwrap_err();
            assert!(matches!(e, cp::Error::LinAlg { op: "spsolve", .. }), "{e}");
            // splu refuses it when factorizing or when solving.
            let e = splu(&a).and_then(|lu| lu.solve(&b)).unwrap_err();
            assert!(matches!(e, cp::Error::LinAlg { .. }), "{e}");
            assert!(e.to_string().contains("splu"), "{e}");
            continue;
        }
        let x = spsolve(&a, &b)?;
        assert_vec_close(
            name,
            &values_f64(&x),
            &fx_f64(&format!("{name}/spsolve")),
            1e-10,
        );
        let lu = splu(&a)?;
        assert_vec_close(
            "splu",
            &values_f64(&lu.solve(&b)?),
            &fx_f64(&format!("{name}/spsolve")),
            1e-10,
        );
        // Two right-hand sides at once: columns b and 2 b.
        let b2 = cp::stack(&[&b, &cp::multiply(&b, 2.0)?], 1)?;
        let x2 = spsolve(&a, &b2)?;
        assert_eq!(x2.shape(), &[b.size(), 2]);
        let col1 = x2.slice(cp::s![.., 1])?;
        assert_vec_close(
            "2nd column",
            &values_f64(&col1),
            &values_f64(&cp::multiply(&x, 2.0)?),
            1e-10,
        );
    }
    // Structurally singular (a zero row): an error on every backend.
    let dev = cp::current_device();
    let z = CsrMatrix::from_dense(
        &cp::asarray(vec![vec![1.0f64, 2.0], vec![0.0, 0.0]])?.to_device(&dev)?,
    )?;
    let e = spsolve(&z, &cp::ones(2, DType::Float64)?.to_device(&dev)?).unwrap_err();
    assert!(matches!(e, cp::Error::LinAlg { op: "spsolve", .. }), "{e}");
    // Triangular: [[2, 0], [1, 4]] x = [2, 9] -> [1, 2]; its upper triangle is diag(2, 4).
    let t = CsrMatrix::from_dense(
        &cp::asarray(vec![vec![2.0f64, 0.0], vec![1.0, 4.0]])?.to_device(&cp::current_device())?,
    )?;
    let b = cp::asarray(vec![2.0f64, 9.0])?.to_device(&cp::current_device())?;
    assert_eq!(
        values_f64(&spsolve_triangular(&t, &b, true, false)?),
        vec![1.0, 2.0]
    );
    assert_eq!(
        values_f64(&spsolve_triangular(&t, &b, false, false)?),
        vec![1.0, 2.25]
    );
    assert_eq!(
        values_f64(&spsolve_triangular(&t, &b, true, true)?),
        vec![2.0, 7.0]
    );
});

on_every_device!(eigsh_and_svds_match_scipy, |_dev| {
    for name in ["poisson", "laplacian"] {
        let a = matrix(name);
        for (which, key) in [(Which::LA, "LA"), (Which::SA, "SA"), (Which::LM, "LM")] {
            let e = eigsh(&a, 4, EigshOptions::new().which(which))?;
            assert!(e.converged, "{name} {key}");
            let want = fx_f64(&format!("{name}/eigsh_{key}"));
            assert_vec_close(&format!("{name} {key}"), &e.values, &want, 1e-9);
            // A v = lambda v for each returned column.
            let v = e.vectors.unwrap();
            assert_eq!(v.shape(), &[a.shape().0, 4]);
            for (j, lam) in e.values.iter().enumerate() {
                let vj = v.slice(cp::s![.., j as isize])?.ascontiguousarray()?;
                let r = cp::subtract(a.dot(&vj)?, cp::multiply(&vj, *lam)?)?;
                let rn = values_f64(&r).iter().map(|x| x * x).sum::<f64>().sqrt();
                assert!(
                    rn < 1e-7 * want.iter().fold(1.0f64, |m, x| m.max(x.abs())),
                    "{name} {key} residual {rn}"
                );
            }
        }
    }
    // Few Lanczos vectors: many thick restarts, each making the kept Ritz
    // vectors the first rows of the basis.
    let e = eigsh(
        &matrix("poisson"),
        4,
        EigshOptions::new().which(Which::LA).ncv(9).maxiter(400),
    )?;
    assert!(e.converged && e.restarts > 1, "restarts {}", e.restarts);
    assert_vec_close(
        "poisson LA ncv 9",
        &e.values,
        &fx_f64("poisson/eigsh_LA"),
        1e-9,
    );
    let s = svds(&matrix("convdiff"), 3)?;
    assert_vec_close("svds", &s.s, &fx_f64("convdiff/svds"), 1e-9);
    assert_eq!(
        (s.u.shape(), s.vt.shape()),
        (&[49usize, 3][..], &[3usize, 49][..])
    );
});

// With the default tol (machine epsilon), the smallest eigenvalues of a path
// Laplacian (theta ~ 1e-4) converge: the test stops at rounding level, not at
// tol * |theta|, which no Ritz estimate reaches after a thick restart.
on_every_device!(eigsh_default_tol_converges_on_small_eigenvalues, |dev| {
    let n = 300usize;
    let mut main = vec![2.0f64; n];
    (main[0], main[n - 1]) = (1.0, 1.0);
    let off = cp::full(n - 1, -1.0, DType::Float64)?.to_device(&dev)?;
    let main = cp::asarray(main)?.to_device(&dev)?;
    let l = cp::sparse::diags(&[&off, &main, &off], &[-1, 0, 1], None, None)?;
    let e = eigsh(
        &l,
        6,
        EigshOptions::new()
            .which(Which::SA)
            .ncv(40)
            .maxiter(200)
            .values_only(),
    )?;
    assert!(e.converged, "restarts {}", e.restarts);
    assert!(e.restarts < 199, "restarts {}", e.restarts);
    // Eigenvalues of the path Laplacian: 2 - 2 cos(pi j / n).
    let want: Vec<f64> = (0..6)
        .map(|j| 2.0 - 2.0 * (std::f64::consts::PI * j as f64 / n as f64).cos())
        .collect();
    for (got, want) in e.values.iter().zip(&want) {
        assert!((got - want).abs() < 1e-12, "{:?} vs {want:?}", e.values);
    }
});

on_every_device!(bad_input_names_function_and_value, |dev| {
    let a = matrix("poisson");
    let n = a.shape().0;
    let b = rhs("poisson");
    let short = cp::zeros(n - 1, DType::Float64)?;
    let e = cg(&a, &short, SolveOptions::new()).unwrap_err();
    assert!(
        matches!(e, cp::Error::Shape { op: "cg", .. }) && e.to_string().contains("(63,)"),
        "{e}"
    );
    let rect = CsrMatrix::from_dense(&cp::ones([3, 4], DType::Float64)?.to_device(&dev)?)?;
    let e = gmres(
        &rect,
        &cp::ones(3, DType::Float64)?.to_device(&dev)?,
        SolveOptions::new(),
    )
    .unwrap_err();
    assert!(
        matches!(e, cp::Error::Shape { op: "gmres", .. }) && e.to_string().contains("(3, 4)"),
        "{e}"
    );
    let small = jacobi(&matrix("convdiff"))?;
    let e = bicgstab(&a, &b, SolveOptions::new().m(&small)).unwrap_err();
    assert!(
        matches!(e, cp::Error::Shape { op: "bicgstab", .. }) && e.to_string().contains("(49, 49)"),
        "{e}"
    );
    let e = cg(&a, &b, SolveOptions::new().rtol(-1.0)).unwrap_err();
    assert!(
        matches!(e, cp::Error::InvalidArgument { op: "cg", .. }),
        "{e}"
    );
    let e = eigsh(&a, n, EigshOptions::new()).unwrap_err();
    assert!(
        matches!(e, cp::Error::InvalidArgument { op: "eigsh", .. }) && e.to_string().contains("64"),
        "{e}"
    );
    let e = eigsh(&a, 0, EigshOptions::new()).unwrap_err();
    assert!(
        matches!(e, cp::Error::InvalidArgument { op: "eigsh", .. }),
        "{e}"
    );
    let e = spsolve(&rect, &cp::ones(3, DType::Float64)?.to_device(&dev)?).unwrap_err();
    assert!(matches!(e, cp::Error::Shape { op: "spsolve", .. }), "{e}");
    let e = spsolve(&a, &short).unwrap_err();
    assert!(matches!(e, cp::Error::Shape { op: "spsolve", .. }), "{e}");
    let zero_diag = CsrMatrix::from_dense(
        &cp::asarray(vec![vec![0.0f64, 1.0], vec![1.0, 1.0]])?.to_device(&dev)?,
    )?;
    let e = jacobi(&zero_diag).unwrap_err();
    assert!(
        matches!(e, cp::Error::LinAlg { op: "jacobi", .. }) && e.to_string().contains("row 0"),
        "{e}"
    );
    let e = spsolve_triangular(
        &zero_diag,
        &cp::ones(2, DType::Float64)?.to_device(&dev)?,
        true,
        false,
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            cp::Error::LinAlg {
                op: "spsolve_triangular",
                ..
            }
        ),
        "{e}"
    );
    let e = svds(&rect, 3).unwrap_err();
    assert!(
        matches!(e, cp::Error::InvalidArgument { op: "svds", .. }),
        "{e}"
    );
    // A zero right-hand side is solved by zero without iterating.
    let r = cg(
        &a,
        &cp::zeros(n, DType::Float64)?.to_device(&dev)?,
        SolveOptions::new(),
    )?;
    assert!(r.converged && r.iterations == 0);
});

/// The GPU's solvers against the CPU's on random right-hand sides, with no
/// host round trip anywhere inside them.
#[test]
fn gpu_matches_cpu_without_host_fallback() {
    let Some(gpu) = common::gpu_or_skip() else {
        return;
    };
    let seed = common::test_seed("gpu_matches_cpu_without_host_fallback");
    for dtype in [DType::Float64, DType::Float32] {
        let tol = if dtype == DType::Float64 { 1e-9 } else { 2e-3 };
        let solve = |dev: Device| -> cp::Result<Vec<Vec<f64>>> {
            cp::with_device(dev, || {
                let (p, c) = (
                    matrix("poisson").astype(dtype)?,
                    matrix("convdiff").astype(dtype)?,
                );
                let b = common::rand(&[p.shape().0], dtype, seed);
                let bc = common::rand(&[c.shape().0], dtype, seed + 1);
                if dev.is_cuda() {
                    cp::cuda::reset_host_fallbacks();
                }
                let rtol = if dtype == DType::Float64 { 1e-10 } else { 1e-5 };
                let m = jacobi(&p)?;
                let out = vec![
                    values_f64(&cg(&p, &b, SolveOptions::new().rtol(rtol))?.x),
                    values_f64(&cg(&p, &b, SolveOptions::new().rtol(rtol).m(&m))?.x),
                    values_f64(&gmres(&c, &bc, SolveOptions::new().rtol(rtol).restart(8))?.x),
                    values_f64(&bicgstab(&c, &bc, SolveOptions::new().rtol(rtol))?.x),
                    eigsh(&p, 3, EigshOptions::new().which(Which::SA).values_only())?.values,
                    // Largest magnitude with few Lanczos vectors: many thick
                    // restarts, each keeping the Ritz vectors as the first rows.
                    eigsh(
                        &p,
                        4,
                        EigshOptions::new()
                            .which(Which::LA)
                            .ncv(9)
                            .maxiter(400)
                            .values_only(),
                    )?
                    .values,
                    values_f64(&gmres(&c, &bc, SolveOptions::new().rtol(rtol).restart(30))?.x),
                    vec![norm(&c, SparseNorm::Fro)?, norm(&c, SparseNorm::One)?],
                    values_f64(&minres(&p, &b, SolveOptions::new().rtol(rtol))?.x),
                    values_f64(&expm_multiply(&c, &bc, -0.1)?),
                ];
                if dev.is_cuda() {
                    common::assert_no_host_fallback(
                        "cg, gmres, bicgstab, jacobi, eigsh, norm, minres, expm_multiply",
                    );
                    // The direct solve: cuSOLVER's sparse QR where the library has it.
                    let x = spsolve(&c, &bc)?;
                    let trips = cp::cuda::host_fallbacks_on_this_thread();
                    eprintln!(
                        "spsolve on the GPU: {}",
                        if trips.is_empty() {
                            "cuSOLVER csrlsvqr".to_string()
                        } else {
                            format!("host fallback {trips:?}")
                        }
                    );
                    let mut out = out;
                    out.push(values_f64(&x));
                    // svds's A^T products convert the CSR matrix to CSC, which
                    // has no GPU kernel yet (a counted host conversion): it is
                    // compared after the no-fallback check.
                    out.push(svds(&c, 3)?.s);
                    return Ok(out);
                }
                let mut out = out;
                out.push(values_f64(&spsolve(&c, &bc)?));
                out.push(svds(&c, 3)?.s);
                Ok(out)
            })
        };
        let (on_gpu, on_cpu) = (solve(gpu).unwrap(), solve(Device::Cpu).unwrap());
        for (i, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
            assert_vec_close(&format!("{dtype} result {i}"), g, c, tol);
        }
    }
    // Complex bases keep the matmul path of the Gram-Schmidt step.
    for dtype in [DType::Complex128, DType::Complex64] {
        let tol = if dtype == DType::Complex128 {
            1e-9
        } else {
            2e-3
        };
        let solve = |dev: Device| -> cp::Result<Vec<f64>> {
            cp::with_device(dev, || {
                let c = matrix("convdiff").astype(dtype)?;
                let b = common::rand(&[c.shape().0], dtype, seed + 2);
                let rtol = if dtype == DType::Complex128 {
                    1e-10
                } else {
                    1e-5
                };
                let x = gmres(&c, &b, SolveOptions::new().rtol(rtol).restart(8))?.x;
                Ok(common::cvals(&x)
                    .iter()
                    .flat_map(|z| [z.re, z.im])
                    .collect())
            })
        };
        let (g, c) = (solve(gpu).unwrap(), solve(Device::Cpu).unwrap());
        assert_vec_close(&format!("{dtype} gmres"), &g, &c, tol);
    }
}

/// `||A^T (b - A x) - damp^2 x|| / ||A^T b||`, on the host in f64.
fn damped_normal_equations_gap(a: &CsrMatrix, b: &Array, damp: f64, x: &Array) -> cp::Result<f64> {
    let (m, n) = a.shape();
    let (dense, b, x) = (values_f64(&a.to_dense()?), values_f64(b), values_f64(x));
    let ax = |v: &[f64]| -> Vec<f64> {
        (0..m)
            .map(|i| (0..n).map(|j| dense[i * n + j] * v[j]).sum())
            .collect()
    };
    let atr = |r: &[f64]| -> Vec<f64> {
        (0..n)
            .map(|j| (0..m).map(|i| dense[i * n + j] * r[i]).sum())
            .collect()
    };
    let r: Vec<f64> = b.iter().zip(ax(&x)).map(|(bi, axi)| bi - axi).collect();
    let gap: f64 = atr(&r)
        .iter()
        .zip(&x)
        .map(|(g, xi)| (g - damp * damp * xi).powi(2))
        .sum::<f64>()
        .sqrt();
    let scale = atr(&b).iter().map(|v| v * v).sum::<f64>().sqrt();
    Ok(gap / scale)
}

// LSMR against SciPy's on a tall problem (plain and damped) and the square
// Poisson problem: the solutions and SciPy's estimate of ||r||.
on_every_device!(lsmr_matches_scipy, |_dev| {
    let c = matrix("convdiff");
    let tall = CsrMatrix::from_dense(&c.to_dense()?.slice(cp::s![.., ..30])?)?;
    let b = rhs("convdiff");
    let inputs = (values_f64(&tall.to_dense()?), values_f64(&b));
    for (key, damp) in [("tall/lsmr", 0.0), ("tall/lsmr_damped", 0.5)] {
        let opts = LsmrOptions::new()
            .damp(damp)
            .tol(1e-12, 1e-12)
            .iter_lim(300);
        let r = lsmr(&tall, &b, opts)?;
        assert_eq!(
            r.info,
            fx_usize(&format!("{key}_istop")) as i64,
            "{key}: {r:?}"
        );
        // The solve leaves its inputs as they were.
        assert!(
            inputs == (values_f64(&tall.to_dense()?), values_f64(&b)),
            "{key}: lsmr changed A or b"
        );
        // SciPy stops after 32 iterations in both cases.
        assert_near_count(key, r.iterations, 32);
        // x solves the damped normal equations (A^T A + damp^2 I) x = A^T b
        // of the matrix and b this device holds (read before comparing with
        // SciPy's x, so that a failure says which side is wrong).
        let gap = damped_normal_equations_gap(&tall, &b, damp, &r.x)?;
        assert!(
            gap <= 1e-10,
            "{key}: ||A^T (b - A x) - damp^2 x|| / ||A^T b|| = {gap:e}, iterations {}",
            r.iterations
        );
        assert_vec_close(key, &values_f64(&r.x), &fx_f64(&format!("{key}_x")), 1e-8);
        let normr = fx_f64(&format!("{key}_normr"))[0];
        assert!(
            (r.residual - normr).abs() <= 1e-8 * normr,
            "{key}: normr {} vs SciPy {normr}",
            r.residual
        );
    }
    let opts = LsmrOptions::new().tol(1e-12, 1e-12).iter_lim(500);
    let r = lsmr(&matrix("poisson"), &rhs("poisson"), opts)?;
    assert_eq!(r.info, fx_usize("poisson/lsmr_istop") as i64, "{r:?}");
    assert_vec_close(
        "poisson lsmr",
        &values_f64(&r.x),
        &fx_f64("poisson/lsmr_x"),
        1e-8,
    );
    // x0: starting from the answer stops at once.
    let x0 = r.x.clone();
    let again = lsmr(&matrix("poisson"), &rhs("poisson"), opts.x0(&x0))?;
    assert!(again.iterations <= 1, "{again:?}");
});

on_every_device!(lsmr_rejects_bad_input, |_dev| {
    let a = matrix("poisson");
    let short = cp::zeros(3, DType::Float64)?.to_device(&cp::current_device())?;
    let e = lsmr(&a, &short, LsmrOptions::new()).unwrap_err();
    assert!(e.to_string().contains("lsmr"), "{e}");
    let e = lsmr(&a, &rhs("poisson"), LsmrOptions::new().damp(-1.0)).unwrap_err();
    assert!(e.to_string().contains("damp"), "{e}");
    let n = a.shape().0;
    let no_adjoint = LinearOperator::new((n, n), DType::Float64, |x: &Array| Ok(x.clone()));
    assert!(lsmr(no_adjoint, &rhs("poisson"), LsmrOptions::new()).is_err());
});

/// LSMR on the GPU against the CPU, with A^T built before the iterations
/// so that they can be checked for host round trips.
#[test]
fn lsmr_gpu_matches_cpu_without_host_fallback() {
    let Some(gpu) = common::gpu_or_skip() else {
        return;
    };
    let seed = common::test_seed("lsmr_gpu_matches_cpu_without_host_fallback");
    let solve = |dev: Device| -> cp::Result<Vec<f64>> {
        cp::with_device(dev, || {
            let c = matrix("convdiff");
            let tall = CsrMatrix::from_dense(&c.to_dense()?.slice(cp::s![.., ..30])?)?;
            let t = tall.tocsc()?.transpose();
            let b = common::rand(&[tall.shape().0], DType::Float64, seed);
            let (fwd, shape) = (tall.clone(), tall.shape());
            let a = LinearOperator::new(shape, DType::Float64, move |x: &Array| fwd.dot(x))
                .with_rmatvec(move |y: &Array| t.dot(y));
            if dev.is_cuda() {
                cp::cuda::reset_host_fallbacks();
            }
            // iter_lim: SciPy's default, min(m, n) = 30, stops one or two
            // steps short of convergence (istop 7; SciPy needs 32), where
            // rounding-level differences (a reduction's order) move x by
            // 1e-7; converged (istop 2) they agree to 1e-14, as SciPy's
            // lsmr with 1e-16 noise in its products shows.
            let opts = LsmrOptions::new().damp(0.1).tol(1e-12, 1e-12).iter_lim(300);
            let r = lsmr(a, &b, opts)?;
            assert_eq!(r.info, 2, "lsmr did not converge: {r:?}");
            if dev.is_cuda() {
                common::assert_no_host_fallback("lsmr");
                assert_eq!(r.x.device(), dev, "lsmr's x left the GPU");
            }
            Ok(values_f64(&r.x))
        })
    };
    let (on_gpu, on_cpu) = (solve(gpu).unwrap(), solve(Device::Cpu).unwrap());
    assert_vec_close("lsmr GPU vs CPU", &on_gpu, &on_cpu, 1e-9);
}

// splu's solves with trans = N, T and H against SciPy's (H = T for a real matrix).
on_every_device!(splu_trans_matches_scipy, |_dev| {
    let (c, b) = (matrix("convdiff"), rhs("convdiff"));
    let lu = splu(&c)?;
    let want = fx_f64("convdiff/splu_T");
    for trans in [Trans::T, Trans::H] {
        let x = lu.solve_trans(&b, trans)?;
        assert_vec_close("splu.solve T", &values_f64(&x), &want, 1e-10);
    }
    let x = lu.solve_trans(&b, Trans::N)?;
    let again = lu.solve(&b)?;
    assert_eq!(values_f64(&x), values_f64(&again));
    assert_eq!(lu.nnz(), c.nnz());
    let short = cp::zeros(3, DType::Float64)?.to_device(&cp::current_device())?;
    assert!(lu.solve_trans(&short, Trans::T).is_err());
    // Two right-hand sides at once, through the one factorization.
    let two = cp::stack(&[&b, &b], 1)?;
    let x2 = values_f64(&lu.solve_trans(&two, Trans::T)?);
    let col0: Vec<f64> = x2.iter().step_by(2).copied().collect();
    assert_vec_close("splu.solve T, (n, 2)", &col0, &want, 1e-10);
    // A singular matrix is refused when it is factorized.
    let dense = cp::zeros(vec![3, 3], DType::Float64)?.to_device(&cp::current_device())?;
    let e = splu(&CsrMatrix::from_dense(&dense)?).unwrap_err();
    assert!(e.to_string().contains("splu"), "{e}");
});
