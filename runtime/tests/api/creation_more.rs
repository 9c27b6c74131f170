//! The creation functions of `creation_more.rs` (`logspace`, `geomspace`,
//! `meshgrid`, `indices`, `from_fn`, `diag`, `diagflat`, `diagonal`, `tri`,
//! `tril`, `triu`, `*_like_as`) against NumPy's values on every backend, the
//! GPU against the CPU on random inputs, and no host fallback on the GPU.

use crate::common;

use cuprite as cp;
use cuprite::{Array, DType, Device, Indexing, MeshgridOptions};

use common::*;

fn i64s(a: &Array) -> Vec<i64> {
    a.astype(DType::Int64).unwrap().to_vec::<i64>().unwrap()
}

on_every_device!(logspace_matches_numpy, |dev| {
    // NumPy 2.x: np.logspace(0.5, 2.5, 5).
    let a = cp::logspace(0.5, 2.5, 5)?;
    assert_eq!(a.device(), dev);
    assert_close(
        &a,
        &[5],
        DType::Float64,
        &[
            3.1622776601683795,
            10.0,
            31.622776601683793,
            100.0,
            316.2277660168379,
        ],
        1e-15,
    );
    // np.logspace(-1, 2, 4, endpoint=False, base=3.0)
    let b = cp::logspace_with(-1.0, 2.0, 4, false, 3.0, DType::Float64)?;
    assert_close(
        &b,
        &[4],
        DType::Float64,
        &[
            0.3333333333333333,
            0.7598356856515925,
            1.7320508075688772,
            3.9482220388574776,
        ],
        1e-15,
    );
    let c = cp::logspace_with(1.0, 3.0, 3, true, 10.0, DType::Float32)?;
    assert_close(&c, &[3], DType::Float32, &[10.0, 100.0, 1000.0], 0.0);
    let d = cp::logspace_with(0.0, 2.0, 3, true, 10.0, DType::Int64)?;
    assert_exact(&d, &[3], &[1i64, 10, 100]);
    assert_eq!(cp::logspace(0.0, 1.0, 0)?.shape(), &[0]);
    assert_close(
        &cp::logspace(0.0, 1.0, 1)?,
        &[1],
        DType::Float64,
        &[1.0],
        0.0,
    );
    assert!(matches!(
        cp::logspace(f64::NAN, 1.0, 3),
        Err(cp::Error::InvalidArgument { op: "logspace", .. })
    ));
});

on_every_device!(geomspace_matches_numpy, |_dev| {
    // NumPy 2.x gives these (exact ends, NaN between ends of opposite signs).
    let a = cp::geomspace(1.0, 256.0, 9)?;
    assert_eq!(
        a.to_vec::<f64>()?,
        [
            1.0,
            2.0,
            4.0,
            7.999999999999999,
            16.0,
            32.00000000000001,
            63.999999999999986,
            127.99999999999999,
            256.0
        ]
    );
    assert_close(
        &cp::geomspace(3.0, 7.0, 5)?,
        &[5],
        DType::Float64,
        &[
            3.0,
            3.707792751067341,
            4.58257569495584,
            5.663746980991548,
            7.0,
        ],
        1e-15,
    );
    assert_close(
        &cp::geomspace(-2.0, -9.0, 4)?,
        &[4],
        DType::Float64,
        &[-2.0, -3.301927248894627, -5.451361778496419, -9.0],
        1e-15,
    );
    assert_close(
        &cp::geomspace_with(1.0, 10.0, 4, false, DType::Float64)?,
        &[4],
        DType::Float64,
        &[
            1.0,
            1.7782794100389228,
            3.1622776601683795,
            5.62341325190349,
        ],
        1e-15,
    );
    assert_close(
        &cp::geomspace(-1.0, 1000.0, 4)?,
        &[4],
        DType::Float64,
        &[-1.0, f64::NAN, f64::NAN, 1000.0],
        0.0,
    );
    assert_exact(
        &cp::geomspace_with(1.0, 5.0, 4, true, DType::Int64)?,
        &[4],
        &[1i64, 1, 2, 5],
    );
    assert_exact(
        &cp::geomspace_with(1.0, 1000.0, 4, true, DType::Float32)?,
        &[4],
        &[1.0f32, 10.0, 100.0, 1000.0],
    );
    assert_exact(&cp::geomspace(10.0, 1000.0, 1)?, &[1], &[10.0f64]);
    assert_eq!(cp::geomspace(1.0, 2.0, 0)?.shape(), &[0]);
    assert!(matches!(
        cp::geomspace(0.0, 2.0, 3),
        Err(cp::Error::InvalidArgument {
            op: "geomspace",
            ..
        })
    ));
});

on_every_device!(meshgrid_matches_numpy, |dev| {
    let x = cp::asarray(vec![1i64, 2, 3])?;
    let y = cp::asarray(vec![10i64, 20])?;
    let z = cp::asarray(vec![7i64, 8])?;
    // NumPy 2.x: np.meshgrid(x, y, z) and indexing="ij".
    let g = cp::meshgrid(&[&x, &y, &z])?;
    for a in &g {
        assert_eq!(a.shape(), &[2, 3, 2]);
        assert!(a.is_c_contiguous());
        assert_eq!(a.device(), dev);
    }
    assert_eq!(i64s(&g[0]), [1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3]);
    assert_eq!(
        i64s(&g[1]),
        [10, 10, 10, 10, 10, 10, 20, 20, 20, 20, 20, 20]
    );
    assert_eq!(i64s(&g[2]), [7, 8, 7, 8, 7, 8, 7, 8, 7, 8, 7, 8]);
    let ij = MeshgridOptions::new().indexing(Indexing::Ij);
    let g = cp::meshgrid_with(&[&x, &y, &z], ij)?;
    assert_eq!(g[0].shape(), &[3, 2, 2]);
    assert_eq!(i64s(&g[0]), [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    assert_eq!(
        i64s(&g[1]),
        [10, 10, 20, 20, 10, 10, 20, 20, 10, 10, 20, 20]
    );
    assert_eq!(i64s(&g[2]), [7, 8, 7, 8, 7, 8, 7, 8, 7, 8, 7, 8]);
    // Sparse shapes: xy (1,3,1) (2,1,1) (1,1,2); ij (3,1,1) (1,2,1) (1,1,2).
    let sp = cp::meshgrid_with(&[&x, &y, &z], MeshgridOptions::new().sparse(true))?;
    let shapes: Vec<&[usize]> = sp.iter().map(|a| a.shape()).collect();
    assert_eq!(shapes, [&[1, 3, 1][..], &[2, 1, 1], &[1, 1, 2]]);
    let sp = cp::meshgrid_with(&[&x, &y, &z], ij.sparse(true))?;
    let shapes: Vec<&[usize]> = sp.iter().map(|a| a.shape()).collect();
    assert_eq!(shapes, [&[3, 1, 1][..], &[1, 2, 1], &[1, 1, 2]]);
    // One input stays 1-D; inputs of any shape are flattened; none gives none.
    assert_eq!(cp::meshgrid(&[&x])?[0].shape(), &[3]);
    let sq = cp::zeros([2, 2], DType::Float32)?;
    let g = cp::meshgrid(&[&sq, &y])?;
    assert_eq!((g[0].shape(), g[1].shape()), (&[2, 4][..], &[2, 4][..]));
    assert_eq!((g[0].dtype(), g[1].dtype()), (DType::Float32, DType::Int64));
    assert!(cp::meshgrid(&[])?.is_empty());
    // copy=false: broadcast views of the inputs.
    let v = cp::meshgrid_with(&[&x, &y], MeshgridOptions::new().copy(false))?;
    assert!(v[0].shares_memory(&x) && v[1].shares_memory(&y));
    assert_eq!(i64s(&v[0]), [1, 2, 3, 1, 2, 3]);
    // Non-contiguous input.
    let r = x.slice(cp::s![..;-1])?;
    assert_eq!(i64s(&cp::meshgrid(&[&r, &y])?[0]), [3, 2, 1, 3, 2, 1]);
});

on_every_device!(indices_and_from_fn, |_dev| {
    // NumPy 2.x: np.indices((2, 3)), shapes of (2, 0, 3) and ().
    let g = cp::indices([2, 3], DType::Int64)?;
    assert_exact(&g, &[2, 2, 3], &[0i64, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2]);
    assert_eq!(cp::indices([2, 0, 3], DType::Int64)?.shape(), &[3, 2, 0, 3]);
    assert_eq!(cp::indices((), DType::Int64)?.shape(), &[0]);
    assert_exact(&cp::indices(3, DType::Float64)?, &[1, 3], &[0.0, 1.0, 2.0]);
    let s = cp::indices_sparse([2, 3, 4], DType::Int32)?;
    let shapes: Vec<&[usize]> = s.iter().map(|a| a.shape()).collect();
    assert_eq!(shapes, [&[2, 1, 1][..], &[1, 3, 1], &[1, 1, 4]]);
    assert_exact(&s[2], &[1, 1, 4], &[0i32, 1, 2, 3]);
    // np.fromfunction(lambda i, j: i * 10 + j, (2, 3)).
    let f = cp::from_fn([2, 3], DType::Float64, |i| {
        cp::add(cp::multiply(&i[0], 10)?, &i[1])
    })?;
    assert_exact(&f, &[2, 3], &[0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
    let f = cp::from_fn([3], DType::Int32, |i| {
        assert_eq!(i.len(), 1);
        cp::square(&i[0])
    })?;
    assert_exact(&f, &[3], &[0i32, 1, 4]);
});

on_every_device!(diagonal_views, |_dev| {
    let a = cp::arange(24)?.reshape([2, 3, 4])?;
    // NumPy 2.x: np.diagonal(a) (4, 2), offsets and axes below.
    let d = cp::diagonal(&a, 0, 0, 1)?;
    assert_eq!(d.shape(), &[4, 2]);
    assert_eq!(i64s(&d), [0, 16, 1, 17, 2, 18, 3, 19]);
    assert!(d.shares_memory(&a));
    assert_eq!(i64s(&cp::diagonal(&a, 1, 1, 2)?), [1, 6, 11, 13, 18, 23]);
    assert_eq!(i64s(&cp::diagonal(&a, -1, -1, 0)?), [1, 14, 5, 18, 9, 22]);
    assert_eq!(cp::diagonal(&a, 5, 0, 1)?.shape(), &[4, 0]);
    assert_eq!(i64s(&cp::diagonal(&a, 0, 2, 0)?), [0, 13, 4, 17, 8, 21]);
    // Writable view.
    let m = cp::zeros([3, 3], DType::Float32)?;
    cp::diagonal(&m, -1, 0, 1)?.slice_assign(cp::s![..], 2.0)?;
    assert_eq!(
        m.to_vec::<f32>()?,
        [0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0, 0.0]
    );
    assert!(matches!(
        cp::diagonal(&a, 0, 1, -2),
        Err(cp::Error::InvalidArgument { op: "diagonal", .. })
    ));
    assert!(matches!(
        cp::diagonal(&a, 0, 0, 3),
        Err(cp::Error::Axis { op: "diagonal", .. })
    ));
    assert!(matches!(
        cp::diagonal(&cp::arange(3)?, 0, 0, 1),
        Err(cp::Error::Shape { op: "diagonal", .. })
    ));
});

on_every_device!(diag_and_diagflat, |dev| {
    let b = cp::arange(12)?.reshape([3, 4])?;
    // NumPy 2.x: np.diag(b, k) for k = -2, 3, 4; of b.T and b[::-1, ::2].
    assert_eq!(i64s(&cp::diag(&b, -2)?), [8]);
    assert_eq!(i64s(&cp::diag(&b, 3)?), [3]);
    assert_eq!(cp::diag(&b, 4)?.shape(), &[0]);
    assert_eq!(i64s(&cp::diag(&b.t(), 1)?), [4, 9]);
    assert_eq!(i64s(&cp::diag(&b.slice(cp::s![..;-1, ..;2])?, 0)?), [8, 6]);
    let d = cp::diag(&b, 0)?;
    assert!(!d.shares_memory(&b));
    // From 1-D: np.diag([1.5, 2.5], -1).
    let m = cp::diag(&cp::asarray(vec![1.5, 2.5])?, -1)?;
    assert_eq!(m.device(), dev);
    assert_exact(&m, &[3, 3], &[0.0, 0.0, 0.0, 1.5, 0.0, 0.0, 0.0, 2.5, 0.0]);
    let e = cp::diag(&cp::zeros([0], DType::Float32)?, 0)?;
    assert_eq!((e.shape(), e.dtype()), (&[0, 0][..], DType::Float32));
    // A strided 1-D input.
    let s = cp::diag(&cp::arange(6)?.slice(cp::s![..;-2])?, 0)?;
    assert_exact(&s, &[3, 3], &[5i64, 0, 0, 0, 3, 0, 0, 0, 1]);
    // np.diagflat([[1, 2], [3, 4]], 1).
    let f = cp::diagflat(&cp::asarray([[1i32, 2], [3, 4]])?, 1)?;
    assert_eq!(f.shape(), &[5, 5]);
    assert_eq!(
        i64s(&f),
        [0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0]
    );
    assert!(matches!(
        cp::diag(&cp::zeros([2, 2, 2], DType::Float32)?, 0),
        Err(cp::Error::Shape { op: "diag", .. })
    ));
});

on_every_device!(tri_tril_triu, |_dev| {
    // NumPy 2.x: np.tri(2, 3, -1), np.tri(3, 2, 5, dtype=bool), np.tri(3, k=-3).
    assert_exact(
        &cp::tri(2, Some(3), -1, DType::Float64)?,
        &[2, 3],
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
    );
    assert_exact(&cp::tri(3, Some(2), 5, DType::Bool)?, &[3, 2], &[true; 6]);
    assert_exact(
        &cp::tri(3, None, -3, DType::Float32)?,
        &[3, 3],
        &[0.0f32; 9],
    );
    assert_exact(
        &cp::tri(3, Some(4), 1, DType::Int32)?,
        &[3, 4],
        &[1i32, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1],
    );
    assert_eq!(cp::tri(0, Some(2), 0, DType::Float64)?.shape(), &[0, 2]);
    // Offsets far past the edges.
    assert_exact(
        &cp::tri(2, None, isize::MIN, DType::Int8)?,
        &[2, 2],
        &[0i8; 4],
    );
    assert_exact(
        &cp::tri(2, None, isize::MAX, DType::Int8)?,
        &[2, 2],
        &[1i8; 4],
    );
    let sq = cp::arange(4)?.reshape([2, 2])?;
    assert_exact(&cp::tril(&sq, isize::MAX)?, &[2, 2], &[0i64, 1, 2, 3]);
    assert_exact(&cp::triu(&sq, isize::MIN)?, &[2, 2], &[0i64, 1, 2, 3]);
    assert_exact(&cp::triu(&sq, isize::MAX)?, &[2, 2], &[0i64; 4]);
    assert_eq!(cp::diagonal(&sq, isize::MIN, 0, 1)?.shape(), &[0]);
    assert_eq!(cp::diagonal(&sq, isize::MAX, 0, 1)?.shape(), &[0]);
    // A stack of two 3x4 matrices: np.tril(s, 0), np.triu(s, 1), np.tril(s, -1), np.triu(s, -1).
    let s = cp::add(cp::arange(24)?, 1)?.reshape([2, 3, 4])?;
    assert_exact(
        &cp::tril(&s, 0)?,
        &[2, 3, 4],
        &[
            1i64, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0, 13, 0, 0, 0, 17, 18, 0, 0, 21, 22, 23, 0,
        ],
    );
    assert_exact(
        &cp::triu(&s, 1)?,
        &[2, 3, 4],
        &[
            0i64, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12, 0, 14, 15, 16, 0, 0, 19, 20, 0, 0, 0, 24,
        ],
    );
    assert_exact(
        &cp::tril(&s, -1)?,
        &[2, 3, 4],
        &[
            0i64, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0, 0, 0, 0, 0, 17, 0, 0, 0, 21, 22, 0, 0,
        ],
    );
    assert_exact(
        &cp::triu(&s, -1)?,
        &[2, 3, 4],
        &[
            1i64, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 0, 22, 23, 24,
        ],
    );
    // 1-D input: np.tril([1, 2, 3]) and np.triu([1, 2, 3], 1).
    let v = cp::asarray(vec![1i64, 2, 3])?;
    assert_exact(&cp::tril(&v, 0)?, &[3, 3], &[1i64, 0, 0, 1, 2, 0, 1, 2, 3]);
    assert_exact(&cp::triu(&v, 1)?, &[3, 3], &[0i64, 2, 3, 0, 0, 3, 0, 0, 0]);
    // A transposed view: np.tril(t) and np.triu(t, 2) for t = arange(1, 13).reshape(3, 4).T.
    let t = cp::add(cp::arange(12)?, 1)?.reshape([3, 4])?.t();
    assert_exact(
        &cp::tril(&t, 0)?,
        &[4, 3],
        &[1i64, 0, 0, 2, 6, 0, 3, 7, 11, 4, 8, 12],
    );
    assert_exact(
        &cp::triu(&t, 2)?,
        &[4, 3],
        &[0i64, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    );
    // NaN and infinities stay where kept; bool keeps its dtype.
    let n = cp::asarray([[f64::NAN, f64::INFINITY], [f64::INFINITY, f64::NAN]])?;
    assert_close(
        &cp::tril(&n, 0)?,
        &[2, 2],
        DType::Float64,
        &[f64::NAN, 0.0, f64::INFINITY, f64::NAN],
        0.0,
    );
    let b = cp::ones([2, 2], DType::Bool)?;
    assert_exact(&cp::triu(&b, 0)?, &[2, 2], &[true, true, false, true]);
    let c = cp::ones([2, 2], DType::Complex64)?;
    assert_eq!(cp::tril(&c, 0)?.dtype(), DType::Complex64);
    assert_eq!(
        cp::tril(&cp::zeros([0, 3], DType::Float32)?, 0)?.shape(),
        &[0, 3]
    );
    assert!(matches!(
        cp::tril(&cp::asarray(1.0)?, 0),
        Err(cp::Error::Shape { op: "tril", .. })
    ));
});

on_every_device!(like_with_dtype, |dev| {
    let a = cp::ones([2, 3], DType::Float64)?.t();
    let z = cp::zeros_like_as(&a, DType::Int32)?;
    assert_exact(&z, &[3, 2], &[0i32; 6]);
    assert_eq!(z.device(), dev);
    assert_exact(&cp::ones_like_as(&a, DType::Bool)?, &[3, 2], &[true; 6]);
    let e = cp::empty_like_as(&a, DType::Complex64)?;
    assert_eq!((e.shape(), e.dtype()), (&[3, 2][..], DType::Complex64));
    assert_exact(
        &cp::full_like_as(&a, 2.5, DType::Float32)?,
        &[3, 2],
        &[2.5f32; 6],
    );
    assert_exact(&cp::full_like_as(&a, -1, DType::Int8)?, &[3, 2], &[-1i8; 6]);
});

/// `*_like` makes its array on `a`'s device, whatever the current device is:
/// a CPU array checked beside GPU work stays on the CPU. The current device
/// here is a GPU that need not exist; nothing may touch it.
#[test]
fn like_functions_follow_the_device_of_their_argument() {
    let a = cp::asarray_on(vec![1.0f64, 2.0, 3.0], Device::Cpu).unwrap();
    cp::with_device(Device::Cuda(7), || {
        let made = [
            cp::zeros_like(&a).unwrap(),
            cp::ones_like(&a).unwrap(),
            cp::empty_like(&a).unwrap(),
            cp::full_like(&a, 4.0).unwrap(),
            cp::zeros_like_as(&a, DType::Int32).unwrap(),
            cp::ones_like_as(&a, DType::Bool).unwrap(),
            cp::empty_like_as(&a, DType::Float32).unwrap(),
            cp::full_like_as(&a, 2, DType::Int8).unwrap(),
        ];
        for (k, m) in made.iter().enumerate() {
            assert_eq!(m.device(), Device::Cpu, "like function {k}");
            assert_eq!(m.shape(), &[3], "like function {k}");
        }
        // Using one with `a` in an `_out` operation works on the CPU.
        let mut z = cp::zeros_like(&a).unwrap();
        cp::multiply_out(&a, 3.0, &mut z).unwrap();
        assert_eq!(z.to_vec::<f64>().unwrap(), vec![3.0, 6.0, 9.0]);
    });
}

/// Every function of this file on the current device, on `x` (a random
/// float32 stack of matrices).
fn run_all(x: &Array) -> cp::Result<Vec<Array>> {
    let v = x.slice(cp::s![0, 0, ..])?;
    let mut out = vec![
        cp::logspace(-2.0, 3.0, 17)?,
        cp::logspace_with(0.0, 1.0, 9, false, 2.0, DType::Float32)?,
        cp::geomspace(3.0, 700.0, 13)?,
        cp::geomspace_with(-5.0, -0.1, 8, false, DType::Float32)?,
        cp::indices([3, 4], DType::Int32)?,
        cp::from_fn([5, 6], DType::Float32, |i| cp::multiply(&i[0], &i[1]))?,
        cp::diagonal(x, 1, -1, -2)?.copy()?,
        cp::diag(&v, -2)?,
        cp::diag(&x.at(1)?, 3)?,
        cp::diagflat(&x.slice(cp::s![0, ..2, ..3])?, 1)?,
        cp::tri(5, Some(7), 2, DType::Float32)?,
        cp::tril(x, 1)?,
        cp::triu(x, -2)?,
        cp::tril(&x.permute_axes(&[2, 0, 1])?, 0)?,
        cp::triu(&v, 0)?,
        cp::zeros_like_as(x, DType::Int16)?,
        cp::ones_like_as(x, DType::Float16)?,
        cp::full_like_as(x, 3, DType::Complex128)?,
    ];
    out.extend(cp::meshgrid(&[&v, &x.slice(cp::s![1, .., 0])?])?);
    out.extend(cp::meshgrid_with(
        &[&v, &v, &v],
        MeshgridOptions::new().indexing(Indexing::Ij).sparse(true),
    )?);
    out.extend(cp::indices_sparse([2, 5], DType::Float64)?);
    Ok(out)
}

#[test]
fn gpu_matches_cpu_without_host_fallbacks() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("creation_more gpu_matches_cpu_without_host_fallbacks");
    let x = cp::with_device(Device::Cpu, || {
        cp::random::default_rng(seed).standard_normal_as([3, 9, 11], DType::Float32)
    })
    .unwrap();
    let cpu = cp::with_device(Device::Cpu, || run_all(&x)).unwrap();
    cp::cuda::reset_host_fallbacks();
    let gpu = cp::with_device(dev, || {
        let r = run_all(&x.to_device(&dev)?)?;
        cp::cuda::launch_pending()?;
        Ok::<_, cp::Error>(r)
    })
    .unwrap();
    common::assert_no_host_fallback("creation functions");
    assert_eq!(cpu.len(), gpu.len());
    for (k, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
        assert_eq!(g.device(), dev, "result {k}");
        assert_eq!((c.shape(), c.dtype()), (g.shape(), g.dtype()), "result {k}");
        // Every result is exact: copies, ranges computed on the host, masks.
        assert_eq!(
            cvals(c),
            cvals(g),
            "seed {seed}: result {k} differs between CPU and GPU"
        );
    }
}

/// `arange` is filled on the device: bit for bit the CPU's values (the
/// float product and sum rounded separately) for random fractional and
/// negative steps, and integer ranges.
#[test]
fn gpu_arange_is_the_cpus_bit_for_bit() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("creation_more gpu_arange_is_the_cpus_bit_for_bit");
    let draws = cp::with_device(Device::Cpu, || {
        cp::random::default_rng(seed)
            .uniform(-1e3, 1e3, [8])?
            .to_vec::<f64>()
    })
    .unwrap();
    let both = |f: &dyn Fn() -> cp::Result<Array>| {
        let c = cp::with_device(Device::Cpu, f).unwrap();
        let g = cp::with_device(dev, f).unwrap();
        assert_eq!(g.device(), dev);
        assert_eq!((c.shape(), c.dtype()), (g.shape(), g.dtype()));
        (c, g)
    };
    for pair in draws.chunks(2) {
        let (start, step) = (pair[0], pair[1] / 977.0);
        let stop = start + step * 300_000.5;
        let (c, g) = both(&|| cp::arange_step(start, stop, step));
        let bits = |a: &Array| -> Vec<u64> {
            a.to_vec::<f64>()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect()
        };
        assert_eq!(
            bits(&c),
            bits(&g),
            "seed {seed}: arange({start}, {stop}, {step})"
        );
        let (lo, by) = (pair[0] as i64, (pair[1] as i64) | 1);
        let (c, g) = both(&|| cp::arange_step(lo, lo + by * 1000, by));
        assert_eq!(i64s(&c), i64s(&g), "seed {seed}: arange({lo}, .., {by})");
    }
}
