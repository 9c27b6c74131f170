//! cp::sparse against SciPy 1.17.1 values on every backend, and the
//! cuSPARSE paths (SpMV, SpMM, SpGEMM) against dense products of the CPU
//! backend on random matrices.

use crate::common;

use common::{assert_close, values_f64};
use cp::num_complex::Complex64;
use cp::sparse::{diags, eye, random, CooMatrix, CscMatrix, CsrMatrix};
use cp::{Array, DType, Device};
use cuprite as cp;

fn f64s(v: &[f64]) -> Array {
    cp::asarray(v.to_vec()).unwrap()
}
fn i32s(v: &[i32]) -> Array {
    cp::asarray(v.to_vec()).unwrap()
}

/// SciPy 1.17.1: A = csr_matrix(([1, 2, 3, 4, 5], [0, 2, 2, 0, 1], [0, 2, 3, 5]), shape=(3, 3))
fn a_csr() -> CsrMatrix {
    CsrMatrix::new(
        &f64s(&[1.0, 2.0, 3.0, 4.0, 5.0]),
        &i32s(&[0, 2, 2, 0, 1]),
        &i32s(&[0, 2, 3, 5]),
        (3, 3),
    )
    .unwrap()
}
const A_DENSE: &[f64] = &[1.0, 0.0, 2.0, 0.0, 0.0, 3.0, 4.0, 5.0, 0.0];

on_every_device!(construction_and_conversions_match_scipy, |dev| {
    let a = a_csr();
    assert_eq!(a.device(), dev);
    assert_eq!(
        (a.shape(), a.nnz(), a.dtype(), a.format()),
        ((3, 3), 5, DType::Float64, "csr")
    );
    assert_close(&a.to_dense()?, &[3, 3], DType::Float64, A_DENSE, 0.0);
    // A.tocsc(): data [1, 4, 5, 2, 3], indices [0, 2, 2, 0, 1], indptr [0, 2, 3, 5]
    let c = a.tocsc()?;
    assert_eq!(c.data().to_vec::<f64>()?, vec![1.0, 4.0, 5.0, 2.0, 3.0]);
    assert_eq!(c.indices().to_vec::<i32>()?, vec![0, 2, 2, 0, 1]);
    assert_eq!(c.indptr().to_vec::<i32>()?, vec![0, 2, 3, 5]);
    assert_close(&c.to_dense()?, &[3, 3], DType::Float64, A_DENSE, 0.0);
    assert_close(
        &c.tocsr()?.to_dense()?,
        &[3, 3],
        DType::Float64,
        A_DENSE,
        0.0,
    );
    assert_close(
        &a.tocoo()?.to_dense()?,
        &[3, 3],
        DType::Float64,
        A_DENSE,
        0.0,
    );
    assert_close(
        &c.tocoo()?.tocsc()?.to_dense()?,
        &[3, 3],
        DType::Float64,
        A_DENSE,
        0.0,
    );
    // Transposes share the arrays and swap the shape.
    let t = a.transpose();
    assert_eq!(t.shape(), (3, 3));
    assert_close(
        &t.to_dense()?,
        &[3, 3],
        DType::Float64,
        &[1.0, 0.0, 4.0, 0.0, 0.0, 5.0, 2.0, 3.0, 0.0],
        0.0,
    );
    assert_close(
        &a.tocoo()?.transpose().to_dense()?,
        &[3, 3],
        DType::Float64,
        &[1.0, 0.0, 4.0, 0.0, 0.0, 5.0, 2.0, 3.0, 0.0],
        0.0,
    );
    // From dense, through every format; a 1-D array is one row.
    let d = a.to_dense()?;
    for m in [
        CsrMatrix::from_dense(&d)?.to_dense()?,
        CscMatrix::from_dense(&d)?.to_dense()?,
        CooMatrix::from_dense(&d)?.to_dense()?,
    ] {
        assert_close(&m, &[3, 3], DType::Float64, A_DENSE, 0.0);
    }
    assert_eq!(CsrMatrix::from_dense(&d)?.nnz(), 5);
    assert_eq!(
        CsrMatrix::from_dense(&f64s(&[0.0, 2.0, 0.0]))?.shape(),
        (1, 3)
    );
    // float32 and integer data (integers become float64), int64 indices.
    let a32 = CsrMatrix::new(
        &f64s(&[1.0, 2.0]).astype(cp::f32)?,
        &cp::asarray(vec![1i64, 0])?,
        &cp::asarray(vec![0i64, 1, 2])?,
        (2, 2),
    )?;
    assert_eq!(a32.dtype(), DType::Float32);
    assert_eq!(a32.indices().dtype(), DType::Int32);
    let ai = CsrMatrix::from_dense(&cp::asarray(vec![vec![0i32, 3], vec![1, 0]])?)?;
    assert_eq!(ai.dtype(), DType::Float64);
    assert_eq!(a32.astype(cp::c64)?.dtype(), DType::Complex64);
});

on_every_device!(duplicates_and_zeros, |_dev| {
    // SciPy 1.17.1: coo_matrix(([1, 2, 3, 0], ([0, 0, 2, 1], [1, 1, 0, 2])), shape=(3, 4)).tocsr()
    //   data [3, 0, 3], indices [1, 2, 0], indptr [0, 1, 2, 3]
    let c = CooMatrix::new(
        &f64s(&[1.0, 2.0, 3.0, 0.0]),
        &i32s(&[0, 0, 2, 1]),
        &i32s(&[1, 1, 0, 2]),
        Some((3, 4)),
    )?;
    assert_eq!(c.nnz(), 4);
    let r = c.tocsr()?;
    assert_eq!(r.data().to_vec::<f64>()?, vec![3.0, 0.0, 3.0]);
    assert_eq!(r.indices().to_vec::<i32>()?, vec![1, 2, 0]);
    assert_eq!(r.indptr().to_vec::<i32>()?, vec![0, 1, 2, 3]);
    let mut r2 = r.clone();
    r2.eliminate_zeros()?;
    assert_eq!(r2.nnz(), 2);
    assert_eq!(r2.indptr().to_vec::<i32>()?, vec![0, 1, 1, 2]);
    let mut c2 = c.clone();
    c2.sum_duplicates()?;
    assert_eq!(c2.nnz(), 3);
    c2.eliminate_zeros()?;
    assert_eq!(c2.nnz(), 2);
    // Shape from the largest indices.
    assert_eq!(
        CooMatrix::new(&f64s(&[1.0]), &i32s(&[4]), &i32s(&[2]), None)?.shape(),
        (5, 3)
    );
    // Unsorted CSR with a duplicate: sum_duplicates sorts and sums.
    let mut u = CsrMatrix::new(
        &f64s(&[1.0, 2.0, 3.0]),
        &i32s(&[2, 0, 2]),
        &i32s(&[0, 3]),
        (1, 3),
    )?;
    assert!(!u.has_canonical_format());
    u.sum_duplicates()?;
    assert!(u.has_canonical_format());
    assert_eq!(u.indices().to_vec::<i32>()?, vec![0, 2]);
    assert_eq!(u.data().to_vec::<f64>()?, vec![2.0, 4.0]);
});

on_every_device!(arithmetic_matches_scipy, |_dev| {
    let a = a_csr();
    let b = CsrMatrix::from_dense(&cp::asarray(vec![
        vec![0.0f64, 1.0, 0.0],
        vec![2.0, 0.0, 0.0],
        vec![0.0, 0.0, -4.0],
    ])?)?;
    // SciPy 1.17.1: (A + B).toarray(), (A - B).toarray()
    assert_close(
        &a.add(&b)?.to_dense()?,
        &[3, 3],
        DType::Float64,
        &[1.0, 1.0, 2.0, 2.0, 0.0, 3.0, 4.0, 5.0, -4.0],
        0.0,
    );
    assert_close(
        &(&a - &b).to_dense()?,
        &[3, 3],
        DType::Float64,
        &[1.0, -1.0, 2.0, -2.0, 0.0, 3.0, 4.0, 5.0, 4.0],
        0.0,
    );
    // A - A has no stored values.
    assert_eq!(a.sub(&a)?.nnz(), 0);
    let twice: Vec<f64> = A_DENSE.iter().map(|v| v * 2.0).collect();
    assert_close(
        &(&a * 2.0).to_dense()?,
        &[3, 3],
        DType::Float64,
        &twice,
        0.0,
    );
    let half: Vec<f64> = A_DENSE.iter().map(|v| v / 4.0).collect();
    assert_close(
        &a.div_scalar(4)?.to_dense()?,
        &[3, 3],
        DType::Float64,
        &half,
        0.0,
    );
    // float32 times a Python-like float stays float32.
    let a32 = a.astype(cp::f32)?;
    assert_eq!(a32.mul_scalar(0.5)?.dtype(), DType::Float32);
    assert_close(
        &a.tocsc()?.add(&b.tocsc()?)?.to_dense()?,
        &[3, 3],
        DType::Float64,
        &[1.0, 1.0, 2.0, 2.0, 0.0, 3.0, 4.0, 5.0, -4.0],
        0.0,
    );
    assert_close(
        &a.tocoo()?.sub(&b.tocoo()?)?.to_dense()?,
        &[3, 3],
        DType::Float64,
        &[1.0, -1.0, 2.0, -2.0, 0.0, 3.0, 4.0, 5.0, 4.0],
        0.0,
    );
});

on_every_device!(products_match_scipy, |_dev| {
    let a = a_csr();
    // SciPy 1.17.1: A @ [1, -2, 3] = [7, 9, -6]
    let x = f64s(&[1.0, -2.0, 3.0]);
    assert_close(&a.dot(&x)?, &[3], DType::Float64, &[7.0, 9.0, -6.0], 1e-15);
    assert_close(
        &a.tocsc()?.dot(&x)?,
        &[3],
        DType::Float64,
        &[7.0, 9.0, -6.0],
        1e-15,
    );
    assert_close(
        &a.tocoo()?.dot(&x)?,
        &[3],
        DType::Float64,
        &[7.0, 9.0, -6.0],
        1e-15,
    );
    // float32 matrix and vector: float32 result (SpMV in single precision).
    let y = a.astype(cp::f32)?.dot(&x.astype(cp::f32)?)?;
    assert_close(&y, &[3], DType::Float32, &[7.0, 9.0, -6.0], 1e-7);
    // A @ arange(6).reshape(3, 2) = [[8, 11], [12, 15], [10, 19]]
    let xm = cp::arange(6)?.astype(cp::f64)?.reshape([3, 2])?;
    let want = [8.0, 11.0, 12.0, 15.0, 10.0, 19.0];
    assert_close(&a.dot(&xm)?, &[3, 2], DType::Float64, &want, 1e-15);
    assert_close(&a.tocsc()?.dot(&xm)?, &[3, 2], DType::Float64, &want, 1e-15);
    // A non-contiguous dense operand.
    assert_close(
        &a.dot(&xm.t().copy()?.t())?,
        &[3, 2],
        DType::Float64,
        &want,
        1e-15,
    );
    // (A @ A).toarray() = [[9, 10, 2], [12, 15, 0], [4, 0, 23]], nnz 7
    let aa = a.matmul(&a)?;
    assert_close(
        &aa.to_dense()?,
        &[3, 3],
        DType::Float64,
        &[9.0, 10.0, 2.0, 12.0, 15.0, 0.0, 4.0, 0.0, 23.0],
        1e-15,
    );
    assert_eq!(aa.nnz(), 7);
    let cc = a.tocsc()?.matmul(&a.tocsc()?)?;
    assert_close(
        &cc.to_dense()?,
        &[3, 3],
        DType::Float64,
        &[9.0, 10.0, 2.0, 12.0, 15.0, 0.0, 4.0, 0.0, 23.0],
        1e-15,
    );
    // Complex: csr_matrix(([1+1j, 2], [1, 0], [0, 1, 2])) @ [1j, 2] = [2+2j, 2j]
    let z = CsrMatrix::new(
        &cp::asarray(vec![Complex64::new(1.0, 1.0), Complex64::new(2.0, 0.0)])?,
        &i32s(&[1, 0]),
        &i32s(&[0, 1, 2]),
        (2, 2),
    )?;
    let zy = z.dot(&cp::asarray(vec![
        Complex64::new(0.0, 1.0),
        Complex64::new(2.0, 0.0),
    ])?)?;
    assert_eq!(
        zy.to_vec::<Complex64>()?,
        vec![Complex64::new(2.0, 2.0), Complex64::new(0.0, 2.0)]
    );
    // Empty products.
    let e = CsrMatrix::new(&f64s(&[]), &i32s(&[]), &i32s(&[0, 0, 0]), (2, 3))?;
    assert_close(&e.dot(&x)?, &[2], DType::Float64, &[0.0, 0.0], 0.0);
    assert_eq!(e.matmul(&a)?.nnz(), 0);
});

on_every_device!(constructors_match_scipy, |_dev| {
    // SciPy 1.17.1: diags([[1, 2, 3], [4, 5, 6], [7]], [0, 1, -2], shape=(3, 4)).toarray()
    let d = diags(
        &[
            &f64s(&[1.0, 2.0, 3.0]),
            &f64s(&[4.0, 5.0, 6.0]),
            &f64s(&[7.0]),
        ],
        &[0, 1, -2],
        Some((3, 4)),
        None,
    )?;
    assert_close(
        &d.to_dense()?,
        &[3, 4],
        DType::Float64,
        &[1.0, 4.0, 0.0, 0.0, 0.0, 2.0, 5.0, 0.0, 7.0, 0.0, 3.0, 6.0],
        0.0,
    );
    // diags([[2]], [1], shape=(3, 3)): a broadcast diagonal
    let d = diags(&[&f64s(&[2.0])], &[1], Some((3, 3)), Some(cp::f32))?;
    assert_eq!(d.dtype(), DType::Float32);
    assert_close(
        &d.to_dense()?,
        &[3, 3],
        DType::Float32,
        &[0.0, 2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0],
        0.0,
    );
    // Default shape: square of side len + |offset|.
    assert_eq!(
        diags(&[&f64s(&[1.0, 2.0])], &[-1], None, None)?.shape(),
        (3, 3)
    );
    // eye(3, 4, k=1) and eye(4, 3, k=-2)
    assert_close(
        &eye(3, 4, 1, cp::f64)?.to_dense()?,
        &[3, 4],
        DType::Float64,
        &[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        0.0,
    );
    assert_close(
        &eye(4, 3, -2, cp::f64)?.to_dense()?,
        &[4, 3],
        DType::Float64,
        &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        0.0,
    );
    assert_eq!(eye(3, 3, 5, cp::f64)?.nnz(), 0);
    // random: round(density * m * n) distinct entries in [0, 1), reproducible by seed.
    let r = random(40, 30, 0.1, 7, cp::f32)?;
    assert_eq!(r.nnz(), 120);
    assert!(r.has_canonical_format());
    let v = values_f64(r.data());
    assert!(v.iter().all(|&x| (0.0..1.0).contains(&x)));
    assert_eq!(values_f64(random(40, 30, 0.1, 7, cp::f32)?.data()), v);
    assert_eq!(random(5, 5, 1.0, 1, cp::f64)?.nnz(), 25);
    assert!(random(5, 5, 1.5, 1, cp::f64).is_err());
});

on_every_device!(invalid_structure_is_an_error, |_dev| {
    let d = f64s(&[1.0, 2.0]);
    let msg = |r: cp::Result<CsrMatrix>| r.unwrap_err().to_string();
    let e = msg(CsrMatrix::new(
        &d,
        &i32s(&[0, 1]),
        &i32s(&[0, 2, 1]),
        (2, 2),
    ));
    assert!(e.contains("non-decreasing"), "{e}");
    let e = msg(CsrMatrix::new(
        &d,
        &i32s(&[0, 2]),
        &i32s(&[0, 1, 2]),
        (2, 2),
    ));
    assert!(e.contains("column index 2"), "{e}");
    let e = msg(CsrMatrix::new(
        &d,
        &i32s(&[0, -1]),
        &i32s(&[0, 1, 2]),
        (2, 2),
    ));
    assert!(e.contains("out of range"), "{e}");
    let e = msg(CsrMatrix::new(&d, &i32s(&[0]), &i32s(&[0, 1, 2]), (2, 2)));
    assert!(e.contains("differ in length"), "{e}");
    let e = msg(CsrMatrix::new(&d, &i32s(&[0, 1]), &i32s(&[0, 1]), (2, 2)));
    assert!(e.contains("indptr has 2 entries"), "{e}");
    let e = msg(CsrMatrix::new(
        &d,
        &i32s(&[0, 1]),
        &i32s(&[1, 1, 2]),
        (2, 2),
    ));
    assert!(e.contains("indptr[0]"), "{e}");
    let e = msg(CsrMatrix::new(
        &d,
        &i32s(&[0, 1]),
        &i32s(&[0, 1, 1]),
        (2, 2),
    ));
    assert!(e.contains("indptr[-1]"), "{e}");
    let e = msg(CsrMatrix::new(
        &d,
        &f64s(&[0.0, 1.0]),
        &i32s(&[0, 1, 2]),
        (2, 2),
    ));
    assert!(e.contains("integers"), "{e}");
    let e = CscMatrix::new(&d, &i32s(&[0, 3]), &i32s(&[0, 1, 2]), (3, 2))
        .unwrap_err()
        .to_string();
    assert!(e.contains("row index 3"), "{e}");
    assert!(CooMatrix::new(&d, &i32s(&[0]), &i32s(&[0, 1]), None).is_err());
    assert!(CooMatrix::new(&d, &i32s(&[0, 5]), &i32s(&[0, 1]), Some((2, 2))).is_err());
    assert!(CooMatrix::new(&d, &i32s(&[0, -1]), &i32s(&[0, 1]), None).is_err());
    // Bool data becomes float64; products check shapes.
    assert_eq!(
        CsrMatrix::from_dense(&cp::asarray(vec![true, false])?)?.dtype(),
        DType::Float64
    );
    let a = a_csr();
    assert!(a
        .dot(&f64s(&[1.0, 2.0]))
        .unwrap_err()
        .to_string()
        .contains("shape (3, 3)"));
    assert!(a.matmul(&eye(2, 2, 0, cp::f64)?).is_err());
    assert!(a.add(&eye(2, 2, 0, cp::f64)?).is_err());
    assert!(diags(&[&d], &[0, 1], None, None).is_err());
    assert!(diags(&[&d], &[5], Some((2, 2)), None).is_err());
    assert!(diags(&[&d], &[0], Some((3, 3)), None)
        .unwrap_err()
        .to_string()
        .contains("does not agree"));
    assert!(CsrMatrix::from_dense(&cp::zeros([2, 2, 2], cp::f64)?).is_err());
});

/// The dense product of host copies (reference for the GPU paths).
fn dense_matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            if x != 0.0 {
                for j in 0..n {
                    c[i * n + j] += x * b[p * n + j];
                }
            }
        }
    }
    c
}

#[track_caller]
fn check_rel(got: &Array, want: &[f64], tol: f64) {
    let g = values_f64(got);
    let scale = want.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
    for (i, (x, y)) in g.iter().zip(want).enumerate() {
        assert!(
            !x.is_nan() && (x - y).abs() <= tol * scale,
            "element {i}: {x} vs {y}"
        );
    }
}

on_every_device!(random_products_match_dense, |dev| {
    for (dt, tol) in [(DType::Float32, 1e-5), (DType::Float64, 1e-13)] {
        let a = random(200, 150, 0.05, 1, dt)?;
        let b = random(150, 90, 0.08, 2, dt)?;
        assert_eq!(a.device(), dev);
        let ad = cp::with_device(Device::Cpu, || a.to_device(&Device::Cpu)?.to_dense())?;
        let bd = cp::with_device(Device::Cpu, || b.to_device(&Device::Cpu)?.to_dense())?;
        let (av, bv) = (values_f64(&ad), values_f64(&bd));
        // SpMV
        let x: Vec<f64> = (0..150).map(|i| ((i * 37 % 11) as f64) - 5.0).collect();
        let xa = cp::asarray(x.clone())?.astype(dt)?;
        check_rel(&a.dot(&xa)?, &dense_matmul(&av, &x, 200, 150, 1), tol);
        // SpMM
        let xm: Vec<f64> = (0..150 * 7)
            .map(|i| ((i * 13 % 17) as f64) / 8.0 - 1.0)
            .collect();
        let xma = cp::from_shape_vec(vec![150, 7], xm.clone(), cp::Order::C)?.astype(dt)?;
        let y = a.dot(&xma)?;
        assert_eq!(y.shape(), &[200, 7]);
        check_rel(&y, &dense_matmul(&av, &xm, 200, 150, 7), tol);
        // SpGEMM
        let c = a.matmul(&b)?;
        assert_eq!(c.shape(), (200, 90));
        let cd = c.to_dense()?;
        check_rel(&cd, &dense_matmul(&av, &bv, 200, 150, 90), tol);
        // Unsorted operands are sorted before cuSPARSE sees them.
        let mut t = a.tocsc()?.transpose().tocsc()?.transpose();
        t.sum_duplicates()?;
        check_rel(
            &t.matmul(&b)?.to_dense()?,
            &dense_matmul(&av, &bv, 200, 150, 90),
            tol,
        );
        // Mixed dtypes promote (float32 matrix, float64 vector).
        let y64 = a.dot(&cp::asarray(x.clone())?)?;
        assert_eq!(y64.dtype(), DType::Float64);
    }
    // Complex SpMV on the GPU path.
    let z = random(30, 20, 0.2, 3, cp::c128)?.mul_scalar(Complex64::new(0.0, 1.0))?;
    let zx = cp::ones([20], cp::c128)?;
    let got = z.dot(&zx)?.to_vec::<Complex64>()?;
    let zd = z.to_dense()?.to_vec::<Complex64>()?;
    for i in 0..30 {
        let want: Complex64 = zd[i * 20..(i + 1) * 20].iter().sum();
        assert!((got[i] - want).norm() < 1e-12);
    }
});
