//! `cp::linalg` on every backend: small cases with values from NumPy 2.4
//! (the call is written above each), and properties on random inputs
//! (U S Vh = A, Q R = A with orthonormal Q, A x = b, L Lᴴ = A, A V = V
//! diag(w)) for float32/float64/complex64/complex128, transposed, strided,
//! batched and zero-size inputs, and every error path.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::linalg::{self as la, NormOrd, QrMode};
use cuprite::num_complex::Complex64;
use cuprite::{Array, DType, Error, Order};

/// Conjugate transpose of the last two axes.
fn h(a: &Array) -> Array {
    let t = a.swapaxes(-1, -2).unwrap();
    if a.dtype().is_complex() {
        let c: Vec<Complex64> = cvals(&t).iter().map(|z| z.conj()).collect();
        cp::from_shape_vec(t.shape(), c, Order::C)
            .unwrap()
            .astype(a.dtype())
            .unwrap()
    } else {
        t
    }
}

/// A random Hermitian positive definite matrix (or stack): X Xᴴ + n I.
fn hpd(shape: &[usize], dtype: DType, seed: u64) -> Array {
    let x = rand(shape, dtype, seed);
    let n = shape[shape.len() - 1];
    let xxh = cp::matmul(&x, &h(&x)).unwrap();
    let eye = cp::eye(n, None, 0, dtype).unwrap();
    cp::add(&xxh, cp::multiply(&eye, n as f64).unwrap()).unwrap()
}

/// Elementwise closeness relative to the largest magnitude of `want`.
#[track_caller]
fn close(got: &Array, want: &Array, rtol: f64) {
    assert_eq!(got.shape(), want.shape(), "shape");
    let (g, w) = (cvals(got), cvals(want));
    let scale = w.iter().map(|z| z.norm()).fold(1.0f64, f64::max);
    for (i, (x, y)) in g.iter().zip(&w).enumerate() {
        assert!(
            !x.re.is_nan() && !x.im.is_nan() && (x - y).norm() <= rtol * scale,
            "element {i}: got {x}, want {y} (rtol {rtol})"
        );
    }
}

fn tol(d: DType) -> f64 {
    if d.real_dtype() == DType::Float32 {
        2e-4
    } else {
        1e-10
    }
}

const FIELDS: [DType; 4] = [
    DType::Float32,
    DType::Float64,
    DType::Complex64,
    DType::Complex128,
];

/// NumPy 2.4: A = np.array([[4., 1, 2], [1, 5, 3], [2, 3, 6]])
fn a3() -> Array {
    cp::asarray([[4.0, 1.0, 2.0], [1.0, 5.0, 3.0], [2.0, 3.0, 6.0]]).unwrap()
}

on_every_device!(known_values_from_numpy, |dev| {
    let a = a3();
    let f = DType::Float64;
    // np.linalg.det(A) -> 69.99999999999996; slogdet -> (1.0, 4.2484952420493585)
    assert_close(&la::det(&a)?, &[], f, &[70.0], 1e-13);
    let (s, l) = la::slogdet(&a)?;
    assert_close(&s, &[], f, &[1.0], 0.0);
    assert_close(&l, &[], f, &[4.2484952420493585], 1e-14);
    // np.linalg.inv(A)
    let want = cp::asarray([
        [0.3, 0.0, -0.1],
        [0.0, 0.2857142857142857, -0.14285714285714282],
        [-0.1, -0.14285714285714285, 0.2714285714285714],
    ])?;
    close(&la::inv(&a)?, &want, 1e-13);
    // np.linalg.solve(A, [1., 2, 3]) -> [~0, 0.14285714285714285, 0.4285714285714286]
    let x = la::solve(&a, &cp::asarray([1.0, 2.0, 3.0])?)?;
    assert_eq!(x.shape(), &[3]);
    let xv = values_f64(&x);
    assert!(xv[0].abs() < 1e-14);
    assert!(
        (xv[1] - 0.14285714285714285).abs() < 1e-14 && (xv[2] - 0.4285714285714286).abs() < 1e-14
    );
    // np.linalg.cholesky(A)
    assert_close(
        &la::cholesky(&a)?,
        &[3, 3],
        f,
        &[
            2.0,
            0.0,
            0.0,
            0.5,
            2.179449471770337,
            0.0,
            1.0,
            1.1470786693528088,
            1.9194297398747862,
        ],
        1e-13,
    );
    // np.linalg.eigvalsh(A); np.linalg.svd(A, compute_uv=False)
    assert_close(
        &la::eigvalsh(&a)?,
        &[3],
        f,
        &[2.1943971674224088, 3.3867701566075477, 9.418832675970037],
        1e-13,
    );
    assert_close(
        &la::svd(&a, true, false)?.s,
        &[3],
        f,
        &[9.418832675970041, 3.386770156607549, 2.1943971674224088],
        1e-13,
    );
    // B = np.array([[1., 2], [3, 4], [5, 6]]); np.linalg.svd(B, compute_uv=False)
    let b = cp::asarray([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])?;
    assert_close(
        &la::svd(&b, false, false)?.s,
        &[2],
        f,
        &[9.525518091565107, 0.514300580658644],
        1e-13,
    );
    // np.linalg.norm(B, ord) for None, 'nuc', 1, -1, 2, -2, inf, -inf
    let want = [
        (NormOrd::Default, 9.539392014169456),
        (NormOrd::Fro, 9.539392014169456),
        (NormOrd::Nuc, 10.03981867222375),
        (NormOrd::P(1.0), 12.0),
        (NormOrd::P(-1.0), 9.0),
        (NormOrd::P(2.0), 9.525518091565107),
        (NormOrd::P(-2.0), 0.514300580658644),
        (NormOrd::Inf, 11.0),
        (NormOrd::NegInf, 3.0),
    ];
    for (o, w) in want {
        assert_close(&la::norm(&b, o, None, false)?, &[], f, &[w], 1e-13);
    }
    // v = np.array([3., -4, 0, 1]); norm(v, ord) for None, 1, inf, -inf, 0, 3
    let v = cp::asarray([3.0, -4.0, 0.0, 1.0])?;
    let want = [
        (NormOrd::Default, 5.0990195135927845),
        (NormOrd::P(1.0), 8.0),
        (NormOrd::Inf, 4.0),
        (NormOrd::NegInf, 0.0),
        (NormOrd::P(0.0), 3.0),
        (NormOrd::P(3.0), 4.514357435474001),
    ];
    for (o, w) in want {
        assert_close(&la::norm(&v, o, None, false)?, &[], f, &[w], 1e-13);
    }
    // np.linalg.norm(B, axis=0); np.linalg.norm(B, axis=1, keepdims=True)
    assert_close(
        &la::norm(&b, NormOrd::Default, Some(&[0]), false)?,
        &[2],
        f,
        &[5.916079783099616, 7.483314773547883],
        1e-13,
    );
    assert_close(
        &la::norm(&b, NormOrd::Default, Some(&[1]), true)?,
        &[3, 1],
        f,
        &[2.23606797749979, 5.0, 7.810249675906654],
        1e-13,
    );
    // Matrix norm over explicit axes, transposed order.
    assert_close(
        &la::norm(&b, NormOrd::P(1.0), Some(&[1, 0]), false)?,
        &[],
        f,
        &[11.0],
        1e-13,
    );
    // x, res, rank, s = np.linalg.lstsq(B, [1., 2, 4], rcond=None)
    let r = la::lstsq(&b, &cp::asarray([1.0, 2.0, 4.0])?, None)?;
    assert_close(
        &r.x,
        &[2],
        f,
        &[0.6666666666666666, 0.08333333333333325],
        1e-12,
    );
    assert_close(&r.residuals, &[1], f, &[0.16666666666666677], 1e-10);
    assert_eq!(r.rank, 2);
    assert_close(
        &r.s,
        &[2],
        f,
        &[9.525518091565107, 0.5143005806586441],
        1e-13,
    );
    // np.linalg.pinv(B)
    assert_close(
        &la::pinv(&b, 1e-15)?,
        &[2, 3],
        f,
        &[
            -1.3333333333333337,
            -0.3333333333333329,
            0.6666666666666666,
            1.083333333333334,
            0.33333333333333304,
            -0.4166666666666667,
        ],
        1e-12,
    );
    // np.linalg.matrix_rank([[1., 2], [2, 4]]) -> 1; matrix_rank(np.eye(3)) -> 3
    assert_exact::<i64>(
        &la::matrix_rank(&cp::asarray([[1.0, 2.0], [2.0, 4.0]])?, None)?,
        &[],
        &[1],
    );
    assert_exact::<i64>(&la::matrix_rank(&cp::eye(3, None, 0, f)?, None)?, &[], &[3]);
    // np.trace(np.arange(9).reshape(3, 3)) -> 12; np.trace(np.arange(24).reshape(2, 3, 4))
    assert_exact::<i64>(&la::trace(&cp::arange(9)?.reshape([3, 3])?)?, &[], &[12]);
    assert_exact::<i64>(
        &la::trace(&cp::arange(24)?.reshape([2, 3, 4])?)?,
        &[4],
        &[16, 18, 20, 22],
    );
    // C = [[2, 1j], [-1j, 3]]: det 5, eigvalsh [1.381966011250105, 3.618033988749895]
    let c = cp::asarray([
        [Complex64::new(2.0, 0.0), Complex64::new(0.0, 1.0)],
        [Complex64::new(0.0, -1.0), Complex64::new(3.0, 0.0)],
    ])?;
    let d = la::det(&c)?;
    assert_eq!(d.dtype(), DType::Complex128);
    let dv = cvals(&d)[0];
    assert!((dv - Complex64::new(5.0, 0.0)).norm() < 1e-14);
    assert_close(
        &la::eigvalsh(&c)?,
        &[2],
        f,
        &[1.381966011250105, 3.618033988749895],
        1e-13,
    );
    // np.linalg.slogdet([[1j, 0], [0, 2]]) -> (1j, 0.6931471805599453)
    let z = cp::asarray([
        [Complex64::new(0.0, 1.0), Complex64::new(0.0, 0.0)],
        [Complex64::new(0.0, 0.0), Complex64::new(2.0, 0.0)],
    ])?;
    let (s, l) = la::slogdet(&z)?;
    assert!((cvals(&s)[0] - Complex64::new(0.0, 1.0)).norm() < 1e-15);
    assert_close(&l, &[], f, &[std::f64::consts::LN_2], 1e-14); // 0.6931471805599453
                                                                // np.linalg.det([[[1., 2], [3, 4]], [[2, 0], [0, 3]]]) -> [-2, 6]
    let st = cp::asarray([[[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]]])?;
    assert_close(&la::det(&st)?, &[2], f, &[-2.0, 6.0], 1e-14);
    // np.linalg.det([[1, 2], [2, 4]]) -> 0.0 (integers promote to float64; singular is 0)
    let sing = cp::asarray([[1i64, 2], [2, 4]])?;
    assert_close(&la::det(&sing)?, &[], f, &[0.0], 0.0);
    let (s, l) = la::slogdet(&sing)?;
    assert_close(&s, &[], f, &[0.0], 0.0);
    assert_close(&l, &[], f, &[f64::NEG_INFINITY], 0.0);
});

on_every_device!(svd_reconstructs, |dev| {
    for (i, &dt) in FIELDS.iter().enumerate() {
        for &(m, n) in &[(6usize, 4usize), (4, 6), (5, 5)] {
            let a = rand(&[m, n], dt, 100 + i as u64 * 10 + m as u64);
            for full in [false, true] {
                let f = la::svd(&a, full, true)?;
                let (u, vh) = (f.u.unwrap(), f.vh.unwrap());
                let k = m.min(n);
                assert_eq!(u.shape(), &[m, if full { m } else { k }]);
                assert_eq!(vh.shape(), &[if full { n } else { k }, n]);
                assert_eq!(f.s.dtype(), dt.real_dtype());
                let s = values_f64(&f.s);
                assert!(s.windows(2).all(|w| w[0] >= w[1]), "descending {s:?}");
                // U[:, :k] diag(s) Vh[:k, :] = A
                let uk = u.slice(cp::s![.., ..k])?;
                let vk = vh.slice(cp::s![..k, ..])?;
                let us = cp::multiply(&uk, &f.s.astype(dt)?)?;
                close(&cp::matmul(&us, &vk)?, &a, tol(dt));
                // Orthonormal columns of U and rows of Vh.
                let ie = cp::eye(u.shape()[1], None, 0, dt)?;
                close(&cp::matmul(&h(&u), &u)?, &ie, tol(dt));
                let ie = cp::eye(vh.shape()[0], None, 0, dt)?;
                close(&cp::matmul(&vh, &h(&vh))?, &ie, tol(dt));
            }
            // Values alone match the values of the full SVD.
            let s_only = la::svd(&a, false, false)?;
            close(&s_only.s, &la::svd(&a, false, true)?.s, tol(dt));
        }
    }
});

on_every_device!(qr_reconstructs, |dev| {
    for (i, &dt) in FIELDS.iter().enumerate() {
        for &(m, n) in &[(6usize, 4usize), (4, 6), (5, 5)] {
            let a = rand(&[m, n], dt, 200 + i as u64 * 10 + m as u64);
            let k = m.min(n);
            for mode in [QrMode::Reduced, QrMode::Complete] {
                let (q, r) = la::qr(&a, mode)?;
                let q = q.unwrap();
                let qc = if mode == QrMode::Complete { m } else { k };
                assert_eq!(q.shape(), &[m, qc]);
                assert_eq!(r.shape(), &[qc, n]);
                close(&cp::matmul(&q, &r)?, &a, tol(dt));
                close(
                    &cp::matmul(&h(&q), &q)?,
                    &cp::eye(qc, None, 0, dt)?,
                    tol(dt),
                );
                // R is upper triangular (exact zeros below the diagonal).
                let rv = cvals(&r);
                for ii in 0..qc {
                    for jj in 0..n.min(ii) {
                        assert_eq!(rv[ii * n + jj], Complex64::new(0.0, 0.0));
                    }
                }
            }
            let (none, r) = la::qr(&a, QrMode::R)?;
            assert!(none.is_none());
            assert_eq!(r.shape(), &[k, n]);
            // |R| matches the reduced R up to row signs: compare Rᴴ R = Aᴴ A.
            close(
                &cp::matmul(&h(&r), &r)?,
                &cp::matmul(&h(&a), &a)?,
                tol(dt) * 10.0,
            );
        }
    }
});

on_every_device!(solve_inv_and_batches, |dev| {
    for (i, &dt) in FIELDS.iter().enumerate() {
        let s = 300 + i as u64 * 10;
        let a = cp::add(
            rand(&[5, 5], dt, s),
            &cp::multiply(&cp::eye(5, None, 0, dt)?, 3.0)?,
        )?;
        let b = rand(&[5], dt, s + 1);
        let x = la::solve(&a, &b)?;
        assert_eq!(x.shape(), &[5]);
        close(&cp::matmul(&a, &x)?, &b, tol(dt));
        let bm = rand(&[5, 3], dt, s + 2);
        close(&cp::matmul(&a, &la::solve(&a, &bm)?)?, &bm, tol(dt));
        // Transposed a (F-order), strided b.
        let at = a.t();
        let bs = rand(&[10, 3], dt, s + 3).slice(cp::s![..;2, ..])?;
        close(&cp::matmul(&at, &la::solve(&at, &bs)?)?, &bs, tol(dt));
        // inv: A inv(A) = I, 2-D and batched (cuBLAS batched LU on CUDA).
        let ie = cp::eye(5, None, 0, dt)?;
        close(&cp::matmul(&a, &la::inv(&a)?)?, &ie, tol(dt));
        let stack = cp::add(
            rand(&[3, 4, 4], dt, s + 4),
            &cp::multiply(&cp::eye(4, None, 0, dt)?, 3.0)?,
        )?;
        let inv = la::inv(&stack)?;
        assert_eq!(inv.shape(), &[3, 4, 4]);
        let prod = cp::matmul(&stack, &inv)?;
        close(
            &prod,
            &cp::eye(4, None, 0, dt)?.broadcast_to(&[3, 4, 4])?,
            tol(dt),
        );
        // Batched solve with a broadcast right-hand side and a batched vector.
        let bb = rand(&[4, 2], dt, s + 5);
        let xb = la::solve(&stack, &bb)?;
        assert_eq!(xb.shape(), &[3, 4, 2]);
        close(
            &cp::matmul(&stack, &xb)?,
            &bb.broadcast_to(&[3, 4, 2])?,
            tol(dt),
        );
        let bv = rand(&[4], dt, s + 6);
        let xv = la::solve(&stack, &bv)?;
        assert_eq!(xv.shape(), &[3, 4]);
        // Batched det against the product of eigen... against per-matrix det.
        let d = la::det(&stack)?;
        for j in 0..3 {
            let dj = la::det(&stack.slice(cp::s![j, .., ..])?)?;
            close(&d.slice(cp::s![j])?, &dj, tol(dt));
        }
    }
    // Integer input promotes to float64.
    let ai = cp::asarray([[2i32, 1], [1, 3]])?;
    assert_eq!(la::inv(&ai)?.dtype(), DType::Float64);
    // float16 computes in float32.
    assert_eq!(
        la::inv(&ai.astype(DType::Float16)?)?.dtype(),
        DType::Float32
    );
});

on_every_device!(cholesky_and_eigh, |dev| {
    for (i, &dt) in FIELDS.iter().enumerate() {
        let a = hpd(&[6, 6], dt, 400 + i as u64);
        let l = la::cholesky(&a)?;
        close(&cp::matmul(&l, &h(&l))?, &a, tol(dt));
        let lv = cvals(&l);
        for r in 0..6 {
            for c in r + 1..6 {
                assert_eq!(lv[r * 6 + c], Complex64::new(0.0, 0.0));
            }
        }
        // Only the lower triangle is read: garbage above changes nothing.
        let mut junk = a.copy()?;
        junk.slice_assign(cp::s![0, 1..], 99.0)?;
        close(&la::cholesky(&junk)?, &l, tol(dt));
        let (w, v) = la::eigh(&a)?;
        assert_eq!(w.dtype(), dt.real_dtype());
        let wv = values_f64(&w);
        assert!(wv.windows(2).all(|p| p[0] <= p[1]), "ascending {wv:?}");
        close(
            &cp::matmul(&a, &v)?,
            &cp::multiply(&v, &w.astype(dt)?)?,
            tol(dt) * 10.0,
        );
        close(&cp::matmul(&h(&v), &v)?, &cp::eye(6, None, 0, dt)?, tol(dt));
        close(&la::eigvalsh(&junk)?, &w, tol(dt) * 10.0);
        // Batched.
        let st = hpd(&[2, 4, 4], dt, 410 + i as u64);
        let lb = la::cholesky(&st)?;
        close(&cp::matmul(&lb, &h(&lb))?, &st, tol(dt));
        let (wb, vb) = la::eigh(&st)?;
        assert_eq!(wb.shape(), &[2, 4]);
        close(
            &cp::matmul(&st, &vb)?,
            &cp::multiply(&vb, &wb.expand_dims(1)?.astype(dt)?)?,
            tol(dt) * 10.0,
        );
    }
});

on_every_device!(error_paths, |dev| {
    let f = DType::Float64;
    let rect = cp::ones([2, 3], f)?;
    let vec1 = cp::ones([3], f)?;
    for r in [
        la::inv(&rect),
        la::det(&rect),
        la::cholesky(&rect),
        la::eigvalsh(&rect),
    ] {
        assert!(matches!(r, Err(Error::Shape { .. })), "{r:?}");
    }
    assert!(matches!(la::inv(&vec1), Err(Error::Shape { .. })));
    assert!(matches!(
        la::svd(&vec1, true, true),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        la::qr(&vec1, QrMode::Reduced),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        la::solve(&a3(), &cp::ones([4], f)?),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        la::lstsq(&rect, &cp::ones([3], f)?, None),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(la::trace(&vec1), Err(Error::Shape { .. })));
    // Singular: inv and solve raise, naming the LU info.
    let sing = cp::asarray([[1.0, 2.0], [2.0, 4.0]])?;
    for r in [la::inv(&sing), la::solve(&sing, &cp::ones([2], f)?)] {
        match r {
            Err(Error::LinAlg { detail, .. }) => assert!(detail.contains("singular"), "{detail}"),
            other => panic!("expected LinAlg, got {other:?}"),
        }
    }
    let stack = cp::stack(&[&cp::eye(2, None, 0, f)?, &sing], 0)?;
    assert!(matches!(la::inv(&stack), Err(Error::LinAlg { .. })));
    // Not positive definite.
    let npd = cp::asarray([[1.0, 2.0], [2.0, 1.0]])?;
    match la::cholesky(&npd) {
        Err(Error::LinAlg { detail, .. }) => {
            assert!(detail.contains("positive definite"), "{detail}")
        }
        other => panic!("expected LinAlg, got {other:?}"),
    }
    // Invalid norm orders and axes.
    assert!(matches!(
        la::norm(&rect, NormOrd::P(3.0), None, false),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        la::norm(&vec1, NormOrd::Nuc, Some(&[0]), false),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        la::norm(&rect, NormOrd::Default, Some(&[2]), false),
        Err(Error::Axis { .. })
    ));
    if dev.is_cuda() {
        let h = cp::with_device(cp::Device::Cpu, || cp::ones([3], f))?;
        assert!(matches!(
            la::solve(&a3(), &h),
            Err(Error::DeviceMismatch { .. })
        ));
    }
});

on_every_device!(zero_size_inputs, |dev| {
    let f = DType::Float64;
    let e = cp::zeros([0, 0], f)?;
    assert_eq!(la::inv(&e)?.shape(), &[0, 0]);
    assert_close(&la::det(&e)?, &[], f, &[1.0], 0.0);
    assert_eq!(la::cholesky(&e)?.shape(), &[0, 0]);
    let (w, v) = la::eigh(&e)?;
    assert_eq!((w.shape(), v.shape()), (&[0usize][..], &[0usize, 0][..]));
    let t = cp::zeros([3, 0], f)?;
    let sv = la::svd(&t, true, true)?;
    assert_eq!(sv.u.unwrap().shape(), &[3, 3]);
    assert_eq!(sv.s.shape(), &[0]);
    assert_eq!(sv.vh.unwrap().shape(), &[0, 0]);
    let (q, r) = la::qr(&t, QrMode::Complete)?;
    assert_close(
        &q.unwrap(),
        &[3, 3],
        f,
        &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        0.0,
    );
    assert_eq!(r.shape(), &[3, 0]);
    // An empty batch keeps its shape.
    let b = cp::zeros([0, 3, 3], f)?;
    assert_eq!(la::inv(&b)?.shape(), &[0, 3, 3]);
    assert_eq!(la::det(&b)?.shape(), &[0]);
    assert_eq!(la::svd(&b, false, true)?.s.shape(), &[0, 3]);
    assert_eq!(la::solve(&b, &cp::zeros([3], f)?)?.shape(), &[0, 3]);
    assert_eq!(la::pinv(&cp::zeros([2, 0], f)?, 1e-15)?.shape(), &[0, 2]);
});

on_every_device!(gpu_matches_cpu_factorizations, |dev| {
    // The same random input here and on the CPU; relative error in float64.
    let a = rand(&[8, 8], DType::Float64, 500);
    let spd = hpd(&[8, 8], DType::Float64, 501);
    let b = rand(&[8, 2], DType::Float64, 502);
    let cpu = |x: &Array| x.to_device(&cp::Device::Cpu).unwrap();
    let on_cpu = |f: &dyn Fn() -> cp::Result<Array>| cp::with_device(cp::Device::Cpu, f);
    let (ac, sc, bc) = (cpu(&a), cpu(&spd), cpu(&b));
    close(
        &cpu(&la::solve(&a, &b)?),
        &on_cpu(&|| la::solve(&ac, &bc))?,
        1e-10,
    );
    close(&cpu(&la::inv(&a)?), &on_cpu(&|| la::inv(&ac))?, 1e-10);
    close(&cpu(&la::det(&a)?), &on_cpu(&|| la::det(&ac))?, 1e-10);
    close(
        &cpu(&la::cholesky(&spd)?),
        &on_cpu(&|| la::cholesky(&sc))?,
        1e-10,
    );
    close(
        &cpu(&la::eigvalsh(&spd)?),
        &on_cpu(&|| la::eigvalsh(&sc))?,
        1e-10,
    );
    close(
        &cpu(&la::svd(&a, false, false)?.s),
        &on_cpu(&|| Ok(la::svd(&ac, false, false)?.s))?,
        1e-10,
    );
    close(
        &cpu(&la::pinv(&a, 1e-15)?),
        &on_cpu(&|| la::pinv(&ac, 1e-15))?,
        1e-8,
    );
});
