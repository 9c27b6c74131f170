//! `kron`, `matrix_power`, `multi_dot` and `cond` against NumPy's values on
//! every backend, and the GPU against the CPU on random inputs without a
//! host fallback.

use crate::common;

use cuprite as cp;
use cuprite::linalg::{cond, kron, matrix_power, multi_dot, NormOrd};
use cuprite::{Array, DType, Device, Error};

use common::*;

/// Integer products go through the counted host path on a GPU (cuBLAS has
/// no exact integer GEMM); the test that asserts an empty count waits for them.
static HOST_COUNT: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn m(rows: Vec<Vec<f64>>) -> Array {
    cp::asarray(rows).unwrap()
}

on_every_device!(kron_matches_numpy, |_dev| {
    let a = cp::asarray(vec![vec![1i64, 2], vec![3, 4]])?;
    let b = cp::asarray(vec![vec![0i64, 1], vec![1, 0]])?;
    // np.kron([[1, 2], [3, 4]], [[0, 1], [1, 0]])
    assert_exact(
        &kron(&a, &b)?,
        &[4, 4],
        &[0i64, 1, 0, 2, 1, 0, 2, 0, 0, 3, 0, 4, 3, 0, 4, 0],
    );
    // Different ranks: np.kron([1, 2, 3], [[1], [10]]) has shape (2, 3).
    let v = cp::asarray(vec![1i64, 2, 3])?;
    let col = cp::asarray(vec![vec![1i64], vec![10]])?;
    assert_exact(&kron(&v, &col)?, &[2, 3], &[1i64, 2, 3, 10, 20, 30]);
    // The dtype of a * b: float64 with int32 is float64.
    let k = kron(
        &cp::asarray(vec![1.5f64, 2.0])?,
        &cp::asarray(vec![2i32, 3])?,
    )?;
    assert_eq!(k.dtype(), DType::Float64);
    assert_eq!(k.to_vec::<f64>()?, [3.0, 4.5, 4.0, 6.0]);
    // A non-contiguous operand.
    let t = kron(&a.t(), &cp::asarray(vec![1i64, -1])?)?;
    assert_exact(&t, &[2, 4], &[1i64, -1, 3, -3, 2, -2, 4, -4]);
});

on_every_device!(matrix_power_matches_numpy, |_dev| {
    let a = m(vec![vec![2.0, 1.0], vec![1.0, 3.0]]);
    // np.linalg.matrix_power(a, 5) and (a, -2)
    assert_close(
        &matrix_power(&a, 5)?,
        &[2, 2],
        DType::Float64,
        &[175.0, 275.0, 275.0, 450.0],
        1e-12,
    );
    assert_close(
        &matrix_power(&a, -2)?,
        &[2, 2],
        DType::Float64,
        &[0.4, -0.2, -0.2, 0.2],
        1e-12,
    );
    // Integers stay integers: Fibonacci numbers.
    let f = cp::asarray(vec![vec![1i64, 1], vec![1, 0]])?;
    {
        let _counting = HOST_COUNT.lock().unwrap_or_else(|e| e.into_inner());
        assert_exact(&matrix_power(&f, 10)?, &[2, 2], &[89i64, 55, 55, 34]);
    }
    // Power 0: identities of the dtype, for a stack too.
    let stack = cp::ones([3, 2, 2], cp::f32)?;
    let e = matrix_power(&stack, 0)?;
    assert_eq!(e.dtype(), DType::Float32);
    assert_exact(
        &e,
        &[3, 2, 2],
        &[1f32, 0., 0., 1., 1., 0., 0., 1., 1., 0., 0., 1.],
    );
    // Power 1 is a copy, not a view.
    let one = matrix_power(&a, 1)?;
    assert!(!one.shares_memory(&a));
    // Errors: integer inverse, non-square.
    let e = matrix_power(&f, -1).unwrap_err();
    assert!(
        matches!(
            e,
            Error::DType {
                op: "matrix_power",
                ..
            }
        ),
        "{e}"
    );
    let e = matrix_power(&cp::ones([2, 3], cp::f64)?, 2).unwrap_err();
    assert!(matches!(e, Error::Shape { .. }), "{e}");
});

on_every_device!(multi_dot_matches_numpy, |_dev| {
    let a = cp::arange(6)?.astype(cp::f64)?.reshape([2, 3])?;
    let b = cp::arange(12)?.astype(cp::f64)?.reshape([3, 4])?;
    let c = cp::arange(4)?.astype(cp::f64)?;
    // np.linalg.multi_dot([A, B, C]) with A = arange(6).reshape(2, 3), ...
    assert_close(
        &multi_dot(&[&a, &b, &c])?,
        &[2],
        DType::Float64,
        &[162.0, 504.0],
        1e-12,
    );
    // np.linalg.multi_dot([C, B.T, A.T])
    assert_close(
        &multi_dot(&[&c, &b.t(), &a.t()])?,
        &[2],
        DType::Float64,
        &[162.0, 504.0],
        1e-12,
    );
    // Vectors at both ends: a 0-d result.
    let r = multi_dot(&[&cp::arange(3)?.astype(cp::f64)?, &b, &c])?;
    assert_close(&r, &[], DType::Float64, &[162.0], 1e-12);
    // Four matrices: equal to left-to-right products whatever the order.
    let d = cp::arange(8)?.astype(cp::f64)?.reshape([4, 2])?;
    let e = cp::arange(10)?.astype(cp::f64)?.reshape([2, 5])?;
    let chained = multi_dot(&[&a, &b, &d, &e])?;
    let direct = cp::matmul(&cp::matmul(&cp::matmul(&a, &b)?, &d)?, &e)?;
    assert_close(
        &chained,
        &[2, 5],
        DType::Float64,
        &values_f64(&direct),
        1e-12,
    );
    // Errors: one array, a 3-D array, a broken chain.
    assert!(matches!(
        multi_dot(&[&a]).unwrap_err(),
        Error::InvalidArgument { .. }
    ));
    let cube = cp::ones([2, 2, 2], cp::f64)?;
    assert!(matches!(
        multi_dot(&[&a, &cube]).unwrap_err(),
        Error::Shape { .. }
    ));
    let e = multi_dot(&[&a, &a]).unwrap_err();
    assert!(e.to_string().contains("do not chain"), "{e}");
});

on_every_device!(cond_matches_numpy, |_dev| {
    let c = m(vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
    // np.linalg.cond(c, p) for each p
    let cases = [
        (NormOrd::Default, 14.933034373659265),
        (NormOrd::P(2.0), 14.933034373659265),
        (NormOrd::P(-2.0), 0.06696562634074718),
        (NormOrd::Fro, 15.0),
        (NormOrd::Nuc, 17.0),
        (NormOrd::Inf, 21.0),
        (NormOrd::NegInf, 6.0),
        (NormOrd::P(1.0), 21.0),
        (NormOrd::P(-1.0), 6.0),
    ];
    for (p, want) in cases {
        let got = cond(&c, p)?;
        assert_eq!(got.ndim(), 0, "{p:?}");
        assert_close(&got, &[], DType::Float64, &[want], 1e-10);
    }
    // A singular matrix: inf for an order that inverts (np.linalg.cond(s, 1)).
    let s = m(vec![vec![1.0, 2.0], vec![2.0, 4.0]]);
    assert_eq!(values_f64(&cond(&s, NormOrd::P(1.0))?), [f64::INFINITY]);
    // A stack gives one number per matrix; float32 stays float32.
    let stack = cp::stack(&[&c, &c.t()], 0)?.astype(cp::f32)?;
    let r = cond(&stack, NormOrd::Default)?;
    assert_close(&r, &[2], DType::Float32, &[14.933034, 14.933034], 1e-5);
    assert!(matches!(
        cond(&cp::ones([3], cp::f64)?, NormOrd::Default).unwrap_err(),
        Error::Shape { .. }
    ));
});

#[test]
fn gpu_matches_cpu_on_random_inputs_without_host_fallback() {
    let Some(dev) = gpu_or_skip() else { return };
    let _counting = HOST_COUNT.lock().unwrap_or_else(|e| e.into_inner());
    let seed = test_seed("linalg_extra");
    let run_all = |x: &Array, y: &Array, v: &Array| -> cp::Result<Vec<Array>> {
        Ok(vec![
            kron(x, y)?,
            matrix_power(x, 7)?,
            matrix_power(x, -3)?,
            multi_dot(&[v, x, y, x, v])?,
            cond(x, NormOrd::Default)?,
            cond(x, NormOrd::Fro)?,
        ])
    };
    for dtype in [DType::Float32, DType::Float64] {
        let (x, y, v) = cp::with_device(Device::Cpu, || {
            // Diagonally dominant, so the inverse powers are well conditioned.
            let twice_eye = cp::multiply(cp::eye(6, None, 0, dtype).unwrap(), 2.0).unwrap();
            let x = cp::add(rand(&[6, 6], dtype, seed), twice_eye).unwrap();
            (
                x,
                rand(&[6, 6], dtype, seed + 1),
                rand(&[6], dtype, seed + 2),
            )
        });
        cp::cuda::reset_host_fallbacks();
        let cpu = cp::with_device(Device::Cpu, || run_all(&x, &y, &v)).unwrap();
        let (gx, gy, gv) = (
            x.to_device(&dev).unwrap(),
            y.to_device(&dev).unwrap(),
            v.to_device(&dev).unwrap(),
        );
        let gpu = cp::with_device(dev, || run_all(&gx, &gy, &gv)).unwrap();
        let rtol = if dtype == DType::Float32 { 1e-3 } else { 1e-9 };
        for (k, (g, c)) in gpu.iter().zip(&cpu).enumerate() {
            assert_eq!(g.device(), dev, "result {k} left the GPU");
            assert_eq!((g.shape(), g.dtype()), (c.shape(), c.dtype()), "result {k}");
            for (i, (a, b)) in values_f64(g).iter().zip(values_f64(c)).enumerate() {
                assert!(
                    (a - b).abs() <= rtol * b.abs().max(1.0),
                    "{dtype} result {k}, element {i}: GPU {a}, CPU {b} (seed {seed})"
                );
            }
        }
        cp::cuda::launch_pending().unwrap();
        common::assert_no_host_fallback("kron, matrix_power, multi_dot, cond");
    }
}
