//! Matrix products (`matmul`, `dot`, `vdot`, `inner`, `outer`,
//! `tensordot`, `einsum`) on every backend.
//!
//! Random products are checked against a naive triple loop in float64 (or
//! complex128) written here; small exact cases against NumPy 2.4 (the
//! call is written above each). On CUDA these run cuBLAS `GemmEx` (2-D) and
//! `GemmStridedBatchedEx` (batches), with every transpose-flag combination
//! and the copy path for layouts cuBLAS cannot read.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::num_complex::Complex64;
use cuprite::{Array, DType, Error, Order};

/// NumPy's matmul semantics over (batch..., m, k) @ (batch..., k, n) by a
/// naive loop in complex128 (real inputs have zero imaginary parts).
fn naive_matmul(a: &Array, b: &Array) -> (Vec<usize>, Vec<Complex64>) {
    let (av, bv) = (cvals(a), cvals(b));
    let a_shape: Vec<usize> = if a.ndim() == 1 {
        vec![1, a.shape()[0]]
    } else {
        a.shape().to_vec()
    };
    let b_shape: Vec<usize> = if b.ndim() == 1 {
        vec![b.shape()[0], 1]
    } else {
        b.shape().to_vec()
    };
    let (m, k) = (a_shape[a_shape.len() - 2], a_shape[a_shape.len() - 1]);
    let n = b_shape[b_shape.len() - 1];
    let ab = &a_shape[..a_shape.len() - 2];
    let bb = &b_shape[..b_shape.len() - 2];
    let nd = ab.len().max(bb.len());
    let pad = |s: &[usize]| -> Vec<usize> {
        let mut v = vec![1; nd - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (pa, pb) = (pad(ab), pad(bb));
    let batch: Vec<usize> = pa.iter().zip(&pb).map(|(&x, &y)| x.max(y)).collect();
    let nbatch: usize = batch.iter().product();
    let mut out = Vec::new();
    for bi in 0..nbatch {
        // Unravel bi over `batch`, then broadcast into each operand.
        let mut rem = bi;
        let mut idx = vec![0; nd];
        for ax in (0..nd).rev() {
            idx[ax] = rem % batch[ax];
            rem /= batch[ax];
        }
        let flat = |p: &[usize]| -> usize {
            let mut f = 0;
            for ax in 0..nd {
                f = f * p[ax] + if p[ax] == 1 { 0 } else { idx[ax] };
            }
            f
        };
        let (oa, ob) = (flat(&pa) * m * k, flat(&pb) * k * n);
        for i in 0..m {
            for j in 0..n {
                let mut acc = Complex64::new(0.0, 0.0);
                for p in 0..k {
                    acc += av[oa + i * k + p] * bv[ob + p * n + j];
                }
                out.push(acc);
            }
        }
    }
    let mut shape = batch;
    if a.ndim() > 1 {
        shape.push(m);
    }
    if b.ndim() > 1 {
        shape.push(n);
    }
    (shape, out)
}

/// Held for reading by every product check and for writing while a test
/// changes the process-wide matmul precision (tests run in parallel).
static PRECISION: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// matmul(a, b) against the naive loop, relative to the largest magnitude.
#[track_caller]
fn check_matmul(a: &Array, b: &Array, rtol: f64) {
    let _g = PRECISION.read().unwrap_or_else(|e| e.into_inner());
    check_matmul_unlocked(a, b, rtol)
}

#[track_caller]
fn check_matmul_unlocked(a: &Array, b: &Array, rtol: f64) {
    let r = cp::matmul(a, b).unwrap();
    let (shape, want) = naive_matmul(a, b);
    assert_eq!(r.shape(), shape.as_slice(), "shape");
    assert_eq!(r.dtype(), cp::promote_types(a.dtype(), b.dtype()), "dtype");
    let got = cvals(&r);
    let scale = want.iter().map(|z| z.norm()).fold(1.0f64, f64::max);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            !g.re.is_nan() && !g.im.is_nan() && (g - w).norm() <= rtol * scale,
            "element {i}: got {g}, want {w} (rtol {rtol}, a {:?} strides {:?}, b {:?} strides {:?})",
            a.shape(),
            a.strides(),
            b.shape(),
            b.strides()
        );
    }
}

fn tol(d: DType) -> f64 {
    match d {
        DType::Float16 => 2e-2,
        DType::BFloat16 => 1e-1,
        DType::Float32 | DType::Complex64 => 1e-5,
        _ => 1e-12,
    }
}

on_every_device!(random_products_every_float_dtype, |dev| {
    for (s, &dt) in [
        DType::Float16,
        DType::BFloat16,
        DType::Float32,
        DType::Float64,
        DType::Complex64,
        DType::Complex128,
    ]
    .iter()
    .enumerate()
    {
        let a = rand(&[7, 13], dt, 1 + s as u64);
        let b = rand(&[13, 5], dt, 2 + s as u64);
        check_matmul(&a, &b, tol(dt));
        // Larger than one tile, odd sizes.
        let a = rand(&[67, 129], dt, 3 + s as u64);
        let b = rand(&[129, 33], dt, 4 + s as u64);
        check_matmul(&a, &b, tol(dt) * 4.0);
    }
});

on_every_device!(transposed_and_strided_operands, |dev| {
    for &dt in &[DType::Float32, DType::Float64, DType::Complex128] {
        let a = rand(&[6, 8], dt, 10);
        let b = rand(&[8, 6], dt, 11);
        // Transposes (F-contiguous: the other cuBLAS transpose flag).
        check_matmul(&a.t(), &b.t(), tol(dt));
        check_matmul(&a, &a.t(), tol(dt));
        check_matmul(&b.t(), &b, tol(dt));
        // F-order copies.
        let af = a.copy_order(Order::F)?;
        check_matmul(&af, &b, tol(dt));
        // Every other row: row-major with a larger leading dimension.
        let big = rand(&[12, 8], dt, 12);
        let rows = big.slice(cp::s![..;2, ..])?;
        check_matmul(&rows, &b, tol(dt));
        // Every other column: no unit stride (copied first).
        let cols = rand(&[8, 12], dt, 13).slice(cp::s![.., ..;2])?;
        check_matmul(&cols, &cols.t(), tol(dt));
        // Negative strides (copied first).
        let rev = a.slice(cp::s![..;-1, ..;-1])?;
        check_matmul(&rev, &b, tol(dt));
        // A column of a wider matrix as the right vector.
        let col = big.slice(cp::s![..8, 3])?;
        check_matmul(&a, &col, tol(dt));
    }
});

on_every_device!(batched_and_broadcast, |dev| {
    for &dt in &[DType::Float32, DType::Float64, DType::Complex64] {
        let t = tol(dt) * 2.0;
        check_matmul(&rand(&[3, 4, 5], dt, 20), &rand(&[3, 5, 2], dt, 21), t);
        check_matmul(&rand(&[3, 4, 5], dt, 22), &rand(&[5, 2], dt, 23), t);
        check_matmul(&rand(&[4, 5], dt, 24), &rand(&[3, 5, 2], dt, 25), t);
        check_matmul(&rand(&[1, 4, 5], dt, 26), &rand(&[3, 5, 2], dt, 27), t);
        // Broadcast on an outer batch axis only: a loop of strided calls.
        check_matmul(&rand(&[2, 1, 4, 5], dt, 28), &rand(&[3, 5, 6], dt, 29), t);
        check_matmul(
            &rand(&[2, 3, 4, 5], dt, 30),
            &rand(&[1, 3, 5, 6], dt, 31),
            t,
        );
        // Transposed matrices inside a batch.
        let a = rand(&[3, 5, 4], dt, 32).swapaxes(-1, -2)?;
        check_matmul(&a, &rand(&[3, 5, 2], dt, 33), t);
        // A reversed batch axis (negative batch stride).
        let a = rand(&[3, 4, 5], dt, 34).slice(cp::s![..;-1, .., ..])?;
        check_matmul(&a, &rand(&[3, 5, 2], dt, 35), t);
        // Batched vector on either side.
        check_matmul(&rand(&[5], dt, 36), &rand(&[3, 5, 2], dt, 37), t);
        check_matmul(&rand(&[3, 4, 5], dt, 38), &rand(&[5], dt, 39), t);
    }
});

on_every_device!(vectors_and_zero_size, |dev| {
    let dt = DType::Float64;
    check_matmul(&rand(&[5], dt, 40), &rand(&[5, 3], dt, 41), 1e-12);
    check_matmul(&rand(&[3, 5], dt, 42), &rand(&[5], dt, 43), 1e-12);
    let r = cp::matmul(&rand(&[5], dt, 44), &rand(&[5], dt, 45))?;
    assert_eq!(r.shape(), &[] as &[usize]);
    check_matmul(&rand(&[5], dt, 44), &rand(&[5], dt, 45), 1e-12);
    // Zero-size: empty result, or zeros when the summed axis is empty.
    let r = cp::matmul(&cp::zeros([0, 3], dt)?, &cp::ones([3, 4], dt)?)?;
    assert_close(&r, &[0, 4], dt, &[], 0.0);
    let r = cp::matmul(&cp::ones([2, 0], dt)?, &cp::ones([0, 3], dt)?)?;
    assert_close(&r, &[2, 3], dt, &[0.0; 6], 0.0);
    let r = cp::matmul(
        &cp::ones([0, 2, 3], DType::Float32)?,
        &cp::ones([3, 4], DType::Float32)?,
    )?;
    assert_close(&r, &[0, 2, 4], DType::Float32, &[], 0.0);
    let r = cp::matmul(
        &cp::ones([2, 0], DType::Complex64)?,
        &cp::ones([0], DType::Complex64)?,
    )?;
    assert_eq!(r.shape(), &[2]);
    assert_eq!(cvals(&r), vec![Complex64::new(0.0, 0.0); 2]);
});

on_every_device!(integer_and_bool_products, |dev| {
    // NumPy 2.4: np.arange(6).reshape(2, 3) @ np.arange(12).reshape(3, 4)
    let a = cp::arange(6)?.reshape([2, 3])?;
    let b = cp::arange(12)?.reshape([3, 4])?;
    assert_exact::<i64>(
        &cp::matmul(&a, &b)?,
        &[2, 4],
        &[20, 23, 26, 29, 56, 68, 80, 92],
    );
    // NumPy 2.4: i8 = np.array([[100, 100], [1, 2]], np.int8); i8 @ i8 (wraps)
    let i8a = cp::asarray([[100i8, 100], [1, 2]])?;
    assert_exact::<i8>(&cp::matmul(&i8a, &i8a)?, &[2, 2], &[116, -40, 102, 104]);
    // NumPy 2.4: bb = np.array([[True, False], [False, False]]); bb @ bb.T
    let bb = cp::asarray([[true, false], [false, false]])?;
    assert_exact::<bool>(
        &cp::matmul(&bb, &bb.t())?,
        &[2, 2],
        &[true, false, false, false],
    );
    // Mixed int and float promote like NumPy: int64 @ float32 -> float64.
    let f = cp::ones([3, 4], DType::Float32)?;
    let r = cp::matmul(&a, &f)?;
    assert_close(
        &r,
        &[2, 4],
        DType::Float64,
        &[3.0, 3.0, 3.0, 3.0, 12.0, 12.0, 12.0, 12.0],
        0.0,
    );
});

on_every_device!(matmul_errors, |dev| {
    let a = cp::ones([2, 3], DType::Float32)?;
    let b = cp::ones([4, 2], DType::Float32)?;
    assert!(matches!(cp::matmul(&a, &b), Err(Error::Shape { .. })));
    assert!(matches!(
        a.matmul(&cp::ones([2], DType::Float32)?),
        Err(Error::Shape { .. })
    ));
    let s = cp::asarray(2.0f32)?;
    assert!(matches!(cp::matmul(&s, &a), Err(Error::Shape { .. })));
    // Batch axes that do not broadcast.
    let x = cp::ones([2, 2, 3], DType::Float32)?;
    let y = cp::ones([3, 3, 2], DType::Float32)?;
    assert!(matches!(cp::matmul(&x, &y), Err(Error::Broadcast { .. })));
    assert!(matches!(cp::dot(&a, &b), Err(Error::Shape { .. })));
    assert!(matches!(cp::vdot(&a, &b), Err(Error::Shape { .. })));
    assert!(matches!(
        cp::tensordot(&a, &b, 3usize),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        cp::tensordot(&a, &a, ([0], [1])),
        Err(Error::Shape { .. })
    ));
    // Mixing devices.
    if dev.is_cuda() {
        let h = cp::with_device(cp::Device::Cpu, || cp::ones([3, 2], DType::Float32))?;
        assert!(matches!(
            cp::matmul(&a, &h),
            Err(Error::DeviceMismatch { .. })
        ));
    }
});

on_every_device!(dot_vdot_inner_outer_tensordot, |dev| {
    // NumPy 2.4: np.dot(np.arange(24).reshape(2, 3, 4), np.arange(8).reshape(4, 2))
    let a = cp::arange(24)?.reshape([2, 3, 4])?;
    let r = cp::dot(&a, &cp::arange(8)?.reshape([4, 2])?)?;
    assert_exact::<i64>(
        &r,
        &[2, 3, 2],
        &[28, 34, 76, 98, 124, 162, 172, 226, 220, 290, 268, 354],
    );
    // NumPy 2.4: np.dot(np.arange(24).reshape(2,3,4), np.arange(24).reshape(3,4,2)).shape
    let r = a
        .astype(DType::Float64)?
        .dot(&cp::arange(24)?.reshape([3, 4, 2])?.astype(DType::Float64)?)?;
    assert_eq!(r.shape(), &[2, 3, 3, 2]);
    // Spot check one element against the definition: sum_k a[1,2,k] * b[2,k,1].
    let want: f64 = (0..4)
        .map(|k| ((12 + 8 + k) * (16 + 2 * k + 1)) as f64)
        .sum();
    // Element [1, 2, 2, 1] of shape (2, 3, 3, 2) is at C index 35.
    assert_eq!(values_f64(&r)[35], want);
    // dot of scalars and 1-D.
    let r = cp::dot(&cp::asarray(3.0)?, &cp::asarray([1.0, 2.0])?)?;
    assert_close(&r, &[2], DType::Float64, &[3.0, 6.0], 0.0);
    let r = cp::dot(
        &cp::asarray([1.0, 2.0, 3.0])?,
        &cp::asarray([4.0, 5.0, 6.0])?,
    )?;
    assert_close(&r, &[], DType::Float64, &[32.0], 0.0);
    // NumPy 2.4: np.vdot([1+2j, 3-1j], [2-1j, 1+1j]) -> (2-1j)
    let x = cp::asarray([Complex64::new(1.0, 2.0), Complex64::new(3.0, -1.0)])?;
    let y = cp::asarray([Complex64::new(2.0, -1.0), Complex64::new(1.0, 1.0)])?;
    let r = cp::vdot(&x, &y)?;
    assert_eq!(r.shape(), &[] as &[usize]);
    assert_eq!(cvals(&r), vec![Complex64::new(2.0, -1.0)]);
    // vdot flattens: (2, 2) with (4,).
    let r = cp::vdot(&cp::arange(4.0)?.reshape([2, 2])?, &cp::arange(4.0)?)?;
    assert_close(&r, &[], DType::Float64, &[14.0], 0.0);
    // NumPy 2.4: np.inner(np.arange(6).reshape(2, 3), np.arange(6).reshape(2, 3))
    let m = cp::arange(6)?.reshape([2, 3])?;
    assert_exact::<i64>(&cp::inner(&m, &m)?, &[2, 2], &[5, 14, 14, 50]);
    // NumPy 2.4: np.outer([1, 2, 3], [4, 5])
    let r = cp::outer(&cp::asarray([1i64, 2, 3])?, &cp::asarray([4i64, 5])?)?;
    assert_exact::<i64>(&r, &[3, 2], &[4, 5, 8, 10, 12, 15]);
    // NumPy 2.4: np.tensordot(np.arange(60.).reshape(3,4,5), np.arange(24.).reshape(4,3,2), axes=([1,0],[0,1]))
    let r = cp::tensordot(
        &cp::arange(60.0)?.reshape([3, 4, 5])?,
        &cp::arange(24.0)?.reshape([4, 3, 2])?,
        ([1, 0], [0, 1]),
    )?;
    assert_close(
        &r,
        &[5, 2],
        DType::Float64,
        &[
            4400.0, 4730.0, 4532.0, 4874.0, 4664.0, 5018.0, 4796.0, 5162.0, 4928.0, 5306.0,
        ],
        0.0,
    );
    // axes=0 is the outer product; axes=2 a full contraction.
    let r = cp::tensordot(&cp::arange(2.0)?, &cp::arange(3.0)?, 0usize)?;
    assert_close(
        &r,
        &[2, 3],
        DType::Float64,
        &[0.0, 0.0, 0.0, 0.0, 1.0, 2.0],
        0.0,
    );
    let r = cp::tensordot(&m, &m, 2usize)?;
    assert_exact::<i64>(&r, &[], &[55]);
});

on_every_device!(einsum_common_forms, |dev| {
    let dt = DType::Float64;
    let a = rand(&[4, 5], dt, 50);
    let b = rand(&[5, 3], dt, 51);
    let close = |x: &Array, y: &Array| {
        assert_eq!(x.shape(), y.shape());
        let (xv, yv) = (values_f64(x), values_f64(y));
        for (p, q) in xv.iter().zip(&yv) {
            assert!((p - q).abs() <= 1e-12 * (1.0 + q.abs()), "{p} vs {q}");
        }
    };
    close(&cp::einsum("ij,jk->ik", &[&a, &b])?, &cp::matmul(&a, &b)?);
    close(&cp::einsum("ij,jk", &[&a, &b])?, &cp::matmul(&a, &b)?);
    close(
        &cp::einsum("ij,jk->ki", &[&a, &b])?,
        &cp::matmul(&a, &b)?.t(),
    );
    let x = rand(&[3, 4, 5], dt, 52);
    let y = rand(&[3, 5, 2], dt, 53);
    close(
        &cp::einsum("bij,bjk->bik", &[&x, &y])?,
        &cp::matmul(&x, &y)?,
    );
    let v = rand(&[5], dt, 54);
    let w = rand(&[5], dt, 55);
    close(&cp::einsum("i,i->", &[&v, &w])?, &cp::dot(&v, &w)?);
    close(&cp::einsum("i,j->ij", &[&v, &w])?, &cp::outer(&v, &w)?);
    close(&cp::einsum("ij->ji", &[&a])?, &a.t());
    close(&cp::einsum("ij,ij->ij", &[&a, &a])?, &cp::multiply(&a, &a)?);
    close(
        &cp::einsum("ij,ij->", &[&a, &a])?,
        &cp::multiply(&a, &a)?.sum()?,
    );
    close(&cp::einsum("ij,j->i", &[&a, &v])?, &cp::matmul(&a, &v)?);
    // NumPy 2.4: np.einsum('ii->i', np.arange(9).reshape(3, 3)); np.einsum('ii', ...)
    let sq = cp::arange(9)?.reshape([3, 3])?;
    assert_exact::<i64>(&cp::einsum("ii->i", &[&sq])?, &[3], &[0, 4, 8]);
    assert_exact::<i64>(&cp::einsum("ii", &[&sq])?, &[], &[12]);
    // NumPy 2.4: np.einsum('ij->', np.arange(6).reshape(2, 3)); np.einsum('ij->j', ...)
    let m = cp::arange(6)?.reshape([2, 3])?;
    assert_exact::<i64>(&cp::einsum("ij->", &[&m])?, &[], &[15]);
    assert_exact::<i64>(&cp::einsum("ij->j", &[&m])?, &[3], &[3, 5, 7]);
    // NumPy 2.4: x = np.arange(4).reshape(2, 2); np.einsum('ij,jk,kl->il', x, x, x)
    let q = cp::arange(4)?.reshape([2, 2])?;
    assert_exact::<i64>(
        &cp::einsum("ij,jk,kl->il", &[&q, &q, &q])?,
        &[2, 2],
        &[6, 11, 22, 39],
    );
    // Errors: wrong operand count, mismatched extents, bad output label.
    assert!(matches!(
        cp::einsum("ij,jk->ik", &[&a]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        cp::einsum("ij,jk->ik", &[&a, &a]),
        Err(Error::Shape { .. })
    ));
    assert!(matches!(
        cp::einsum("ij->k", &[&a]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        cp::einsum("ijk->i", &[&a]),
        Err(Error::Shape { .. })
    ));
});

on_every_device!(precision_setting, |dev| {
    // TF32 / FP16 lose precision on the GPU only; results stay close.
    let a = rand(&[64, 64], DType::Float32, 60);
    let b = rand(&[64, 64], DType::Float32, 61);
    let _g = PRECISION.write().unwrap_or_else(|e| e.into_inner());
    for (p, t) in [
        (cp::MatmulPrecision::TF32, 5e-3),
        (cp::MatmulPrecision::FP16, 5e-3),
        (cp::MatmulPrecision::Highest, 1e-5),
    ] {
        cp::set_matmul_precision(p);
        assert_eq!(cp::matmul_precision(), p);
        check_matmul_unlocked(&a, &b, t);
    }
    cp::set_matmul_precision(cp::MatmulPrecision::Highest);
});

on_every_device!(gpu_matches_cpu_on_random_batches, |dev| {
    // The same random batch on this device and on the CPU, relative error in float64.
    let a = rand(&[10, 17, 9], DType::Float64, 70);
    let b = rand(&[10, 9, 11], DType::Float64, 71);
    let here = values_f64(&cp::matmul(&a, &b)?);
    let (ha, hb) = (
        a.to_device(&cp::Device::Cpu)?,
        b.to_device(&cp::Device::Cpu)?,
    );
    let there = cp::with_device(cp::Device::Cpu, || cp::matmul(&ha, &hb))?;
    let there = values_f64(&there);
    for (x, y) in here.iter().zip(&there) {
        assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()), "{x} vs {y}");
    }
});

/// Integer and bool products run on the GPU (a kernel of Cuprite's own, as
/// cuBLAS has none) and equal the CPU's element for element, wrapping
/// included: random values over the whole range of each dtype, transposed
/// and sliced operands, broadcast batch axes, an empty inner axis; and no
/// host fallback.
#[test]
fn gpu_integer_products_equal_the_cpus() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("matmul gpu_integer_products_equal_the_cpus");
    let cpu = cp::Device::Cpu;
    let draw = |shape: &[usize], dt: DType, k: u64| -> Array {
        cp::with_device(cpu, || {
            let v = cp::random::default_rng(seed.wrapping_add(k)).integers(
                -300,
                300,
                shape.to_vec(),
            )?;
            if dt == DType::Bool {
                cp::greater(&v, 0)
            } else {
                v.astype(dt)
            }
        })
        .unwrap()
    };
    let pairs: Vec<(Vec<usize>, Vec<usize>, bool)> = vec![
        (vec![7, 13], vec![13, 5], false),
        (vec![3, 1, 6, 9], vec![4, 9, 2], false),
        (vec![9, 6], vec![5, 6], true),
        (vec![1, 0], vec![0, 4], false),
    ];
    cp::cuda::reset_host_fallbacks();
    for dt in [
        DType::Int8,
        DType::UInt8,
        DType::Int16,
        DType::UInt32,
        DType::Int64,
        DType::UInt64,
        DType::Bool,
    ] {
        for (k, (sa, sb, transpose_b)) in pairs.iter().enumerate() {
            let a = draw(sa, dt, 2 * k as u64);
            let b = draw(sb, dt, 2 * k as u64 + 1);
            let b = if *transpose_b { b.t() } else { b };
            let want = cp::with_device(cpu, || cp::matmul(&a, &b)).unwrap();
            let got = cp::with_device(dev, || cp::matmul(&a.to_device(&dev)?, &b.to_device(&dev)?))
                .unwrap();
            assert_eq!(got.device(), dev);
            assert_eq!((got.shape(), got.dtype()), (want.shape(), want.dtype()));
            assert_eq!(
                cvals(&got.to_device(&cpu).unwrap()),
                cvals(&want),
                "seed {seed}: {dt} {sa:?} @ {sb:?} (b transposed: {transpose_b})"
            );
        }
        // A sliced operand (every other row).
        let a = draw(&[10, 6], dt, 90);
        let b = draw(&[6, 4], dt, 91);
        let want = cp::with_device(cpu, || cp::matmul(&a.slice(cp::s![..;2, ..])?, &b)).unwrap();
        let got = cp::with_device(dev, || {
            cp::matmul(
                &a.to_device(&dev)?.slice(cp::s![..;2, ..])?,
                &b.to_device(&dev)?,
            )
        })
        .unwrap();
        assert_eq!(
            cvals(&got.to_device(&cpu).unwrap()),
            cvals(&want),
            "seed {seed}: {dt}, sliced rows"
        );
    }
    common::assert_no_host_fallback("integer and bool matmul");
}
