//! The logic functions (`isclose`, `allclose`, `array_equal`,
//! `array_equiv`, `isreal`, `iscomplex`, `isposinf`, `isneginf`) against
//! NumPy's values on every backend, the GPU against the CPU on random
//! inputs, and no host fallback on the GPU.

use crate::common;

use cuprite as cp;
use cuprite::num_complex::Complex64 as C;
use cuprite::{Array, DType, Device, Tolerance};

use common::*;

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;

fn f64s(v: &[f64]) -> Array {
    cp::asarray(v.to_vec()).unwrap()
}

fn bools(a: &Array) -> Vec<bool> {
    assert_eq!(a.dtype(), DType::Bool);
    a.to_vec::<bool>().unwrap()
}

// The pairs of the real tables (NumPy 2.4.6 gives the results below).
const A: [f64; 12] = [
    1e10, 1e-7, 1.0, INF, -INF, INF, NAN, NAN, 0.0, 1e-8, 100.0, -0.0,
];
const B: [f64; 12] = [
    1.00001e10, 1e-8, 1.00001, INF, INF, 1e308, NAN, 1.0, 1e-8, 0.0, 100.001, 0.0,
];

on_every_device!(isclose_matches_numpy, |dev| {
    let (a, b) = (f64s(&A), f64s(&B));
    let t = true;
    let f = false;
    // NumPy 2.x gives these for np.isclose(a, b, ...).
    assert_eq!(
        bools(&cp::isclose(&a, &b)?),
        [t, f, t, t, f, f, f, f, t, t, t, t]
    );
    let nan_eq = Tolerance::new().equal_nan(true);
    assert_eq!(
        bools(&cp::isclose_with(&a, &b, nan_eq)?),
        [t, f, t, t, f, f, t, f, t, t, t, t]
    );
    let tight = Tolerance::new().rtol(1e-3).atol(0.0);
    assert_eq!(
        bools(&cp::isclose_with(&a, &b, tight)?),
        [t, f, t, t, f, f, f, f, f, f, t, t]
    );
    // Not symmetric: rtol scales |b|.
    assert_eq!(
        bools(&cp::isclose(&b, &a)?),
        [t, f, t, t, f, f, f, f, t, t, t, t]
    );
    // float32 computes in float32 (1e308 becomes inf).
    let (a32, b32) = (a.astype(DType::Float32)?, b.astype(DType::Float32)?);
    let r = cp::isclose(&a32, &b32)?;
    assert_eq!(bools(&r), [f, f, f, t, f, t, f, f, t, t, t, t]);
    assert_eq!(r.device(), dev);
});

on_every_device!(isclose_scalars_broadcast_and_dtypes, |_dev| {
    let t = true;
    let f = false;
    // NumPy 2.x: np.isclose(x, 1.0), np.isclose(x, nan, equal_nan=True), np.isclose(x, inf).
    let x = f64s(&[1.0, 1.00001, 0.99, NAN, INF]);
    assert_eq!(bools(&cp::isclose(&x, 1.0)?), [t, t, f, f, f]);
    assert_eq!(bools(&cp::isclose(1.0, &x)?), [t, t, f, f, f]);
    let y = f64s(&[1.0, NAN, INF]);
    let nan_eq = Tolerance::new().equal_nan(true);
    assert_eq!(bools(&cp::isclose_with(&y, NAN, nan_eq)?), [f, t, f]);
    assert_eq!(bools(&cp::isclose_with(NAN, &y, nan_eq)?), [f, t, f]);
    assert_eq!(bools(&cp::isclose(&y, INF)?), [f, f, t]);
    assert_eq!(bools(&cp::isclose(&y, NAN)?), [f, f, f]);
    // Integer scalars are floats: np.isclose([1e-9, 1.0], 0) and 0.0.
    let small = f64s(&[1e-9, 1.0]);
    assert_eq!(bools(&cp::isclose(&small, 0)?), [t, f]);
    assert_eq!(bools(&cp::isclose(f64s(&[1e-9, 2e-9]), 0.0)?), [t, t]);
    // Both scalars: a 0-d result.
    let r = cp::isclose(1.0, 1.000001)?;
    assert_eq!((r.shape(), r.item::<bool>()?), (&[][..], true));
    // Broadcasting (2, 1) against (3,).
    let col = cp::asarray([[1.0], [2.0]])?;
    let row = f64s(&[1.0, 2.0, 2.00000001]);
    let r = cp::isclose(&col, &row)?;
    assert_eq!(r.shape(), &[2, 3]);
    assert_eq!(bools(&r), [t, f, f, f, t, t]);
    assert!(matches!(
        cp::isclose(&col, cp::zeros([3, 2], DType::Float64)?),
        Err(cp::Error::Broadcast { op: "isclose", .. })
    ));
    // Integers: b is made float64 first, so int8 -128 and 127 do not wrap.
    let i8a = cp::asarray(vec![-128i8, 127, 5, 0])?;
    let i8b = cp::asarray(vec![127i8, -128, 5, 0])?;
    assert_eq!(bools(&cp::isclose(&i8a, &i8b)?), [f, f, t, t]);
    let ints = cp::asarray(vec![5i64, 6, 7])?;
    let atol1 = Tolerance::new().atol(1.0);
    assert_eq!(
        bools(&cp::isclose_with(
            &ints,
            cp::asarray(vec![6i64, 6, 8])?,
            atol1
        )?),
        [t, t, t]
    );
    let bs = cp::asarray(vec![true, false])?;
    assert_eq!(
        bools(&cp::isclose(&bs, cp::asarray(vec![true, true])?)?),
        [t, f]
    );
    assert_eq!(
        bools(&cp::isclose(cp::asarray(vec![10u8, 20])?, 10)?),
        [t, f]
    );
    // float16: NumPy gives [False, True] for [1, 2] against [1.001, 2].
    let h = cp::asarray(vec![1.0, 2.0])?.astype(DType::Float16)?;
    let h2 = cp::asarray(vec![1.001, 2.0])?.astype(DType::Float16)?;
    assert_eq!(bools(&cp::isclose(&h, &h2)?), [f, t]);
    // Empty and non-contiguous inputs.
    let e = cp::zeros([0, 3], DType::Float32)?;
    assert_eq!(cp::isclose(&e, &e)?.shape(), &[0, 3]);
    let m = cp::asarray([[1.0, 5.0], [3.0, 4.0]])?;
    let r = cp::isclose(m.t(), cp::asarray([[1.0, 3.0], [0.0, 4.0]])?)?;
    assert_eq!(bools(&r), [t, t, f, t]);
});

on_every_device!(isclose_complex, |_dev| {
    let c1 = cp::asarray(vec![
        C::new(1.0, 1.0),
        C::new(INF, 0.0),
        C::new(INF, INF),
        C::new(NAN, 0.0),
        C::new(1.0, 1e-9),
        C::new(0.0, INF),
    ])?;
    let c2 = cp::asarray(vec![
        C::new(1.0, 1.00001),
        C::new(INF, 0.0),
        C::new(INF, INF),
        C::new(NAN, 0.0),
        C::new(1.0, 0.0),
        C::new(0.0, INF),
    ])?;
    // NumPy 2.x gives these.
    let t = true;
    let f = false;
    assert_eq!(bools(&cp::isclose(&c1, &c2)?), [t, t, t, f, t, t]);
    let nan_eq = Tolerance::new().equal_nan(true);
    assert_eq!(bools(&cp::isclose_with(&c1, &c2, nan_eq)?), [t; 6]);
    let c64 = c1.astype(DType::Complex64)?;
    assert_eq!(
        bools(&cp::isclose(&c64, C::new(1.0, 1.0))?),
        [t, f, f, f, f, f]
    );
});

on_every_device!(allclose_and_equality, |_dev| {
    // NumPy 2.x: allclose([1,2],[1,2.0000001]) True, allclose([],[]) True,
    // allclose([1,nan],[1,nan]) False, with equal_nan True.
    assert!(cp::allclose(f64s(&[1.0, 2.0]), f64s(&[1.0, 2.0000001]))?);
    assert!(cp::allclose(f64s(&[]), f64s(&[]))?);
    let n = f64s(&[1.0, NAN]);
    assert!(!cp::allclose(&n, &n)?);
    assert!(cp::allclose_with(&n, &n, Tolerance::new().equal_nan(true))?);
    assert!(cp::allclose(&n.slice(cp::s![..1])?, 1)?);
    // array_equal: True False False True True.
    let a = cp::asarray(vec![1i64, 2])?;
    assert!(cp::array_equal(&a, &a.copy()?)?);
    assert!(cp::array_equal(&a, f64s(&[1.0, 2.0]))?);
    assert!(!cp::array_equal(&a, cp::asarray([[1i64, 2]])?)?);
    assert!(!cp::array_equal(&n, &n)?);
    assert!(cp::array_equal_with(&n, &n.copy()?, true)?);
    assert!(!cp::array_equal_with(&n, f64s(&[NAN, 1.0]), true)?);
    // Integers cannot hold NaN: equal_nan changes nothing.
    assert!(!cp::array_equal_with(
        &a,
        cp::asarray(vec![1i64, 3])?,
        true
    )?);
    // A complex value is NaN if either part is.
    let z1 = cp::asarray(vec![C::new(1.0, NAN)])?;
    let z2 = cp::asarray(vec![C::new(NAN, 1.0)])?;
    assert!(cp::array_equal_with(&z1, &z2, true)?);
    // Views: a transposed matrix against its copy.
    let m = cp::arange(6)?.reshape([2, 3])?;
    assert!(cp::array_equal(m.t(), m.t().copy()?)?);
    assert!(!cp::array_equal(m.t(), &m)?);
    // 0-d against a scalar.
    assert!(cp::array_equal_with(cp::asarray(NAN)?, NAN, true)?);
    assert!(cp::array_equal(cp::asarray(3i32)?, 3)?);
    // array_equiv: True False False True.
    let rows = cp::asarray([[1i64, 2], [1, 2]])?;
    assert!(cp::array_equiv(&a, &rows)?);
    assert!(!cp::array_equiv(&a, cp::asarray([[1i64, 2], [1, 3]])?)?);
    assert!(!cp::array_equiv(&a, cp::asarray(vec![1i64, 2, 3])?)?);
    assert!(cp::array_equiv(
        cp::zeros([0, 3], DType::Float64)?,
        cp::zeros([3], DType::Float64)?
    )?);
    assert!(cp::array_equiv(&rows.slice(cp::s![.., 0])?, 1)?);
});

on_every_device!(element_tests, |_dev| {
    let t = true;
    let f = false;
    let z = cp::asarray(vec![
        C::new(1.0, 0.0),
        C::new(1.0, 1.0),
        C::new(0.0, -0.0),
        C::new(NAN, 0.0),
        C::new(0.0, NAN),
    ])?;
    // NumPy 2.x: isreal [T F T T F], iscomplex [F T F F T].
    assert_eq!(bools(&cp::isreal(&z)?), [t, f, t, t, f]);
    assert_eq!(bools(&cp::iscomplex(&z)?), [f, t, f, f, t]);
    let z64 = z.astype(DType::Complex64)?.slice(cp::s![..;-1])?;
    assert_eq!(bools(&cp::isreal(&z64)?), [f, t, t, f, t]);
    assert!(cp::iscomplexobj(&z) && !cp::isrealobj(&z));
    let r = cp::arange(4)?.reshape([2, 2])?;
    assert_eq!(bools(&cp::isreal(&r)?), [t; 4]);
    assert_eq!(cp::isreal(&r)?.shape(), &[2, 2]);
    assert_eq!(bools(&cp::iscomplex(&r)?), [f; 4]);
    assert!(cp::isrealobj(&r) && !cp::iscomplexobj(&r));
    // isposinf / isneginf: [T F F F F F] and [F T F F F F].
    let x = f64s(&[INF, -INF, NAN, 0.0, -0.0, 1e308]);
    assert_eq!(bools(&cp::isposinf(&x)?), [t, f, f, f, f, f]);
    assert_eq!(bools(&cp::isneginf(&x)?), [f, t, f, f, f, f]);
    for dt in [DType::Float16, DType::BFloat16, DType::Float32] {
        let xd = x.astype(dt)?.slice(cp::s![..;2])?;
        assert_eq!(bools(&cp::isposinf(&xd)?), [t, f, f], "{dt}");
        assert_eq!(bools(&cp::isneginf(&x.astype(dt)?)?), [f, t, f, f, f, f]);
    }
    let ints = cp::asarray(vec![1i32, -2])?;
    assert_eq!(bools(&cp::isposinf(&ints)?), [f, f]);
    assert_eq!(bools(&cp::isneginf(&cp::asarray(vec![true])?)?), [f]);
    assert!(matches!(
        cp::isposinf(&z),
        Err(cp::Error::DType { op: "isposinf", .. })
    ));
    let e = cp::zeros([0], DType::Float32)?;
    assert_eq!(cp::isneginf(&e)?.shape(), &[0]);
});

/// Every function of this file on the current device.
fn run_all(x: &Array, y: &Array, z: &Array) -> cp::Result<Vec<Array>> {
    let tol = Tolerance::new().equal_nan(true).rtol(1e-3);
    let mut out = vec![
        cp::isclose(x, y)?,
        cp::isclose_with(x, y, tol)?,
        cp::isclose_with(x, 0.5, tol)?,
        cp::isclose(0.25, y)?,
        cp::isclose(x.t(), y.t())?,
        cp::isclose(z, cp::conj(z)?)?,
        cp::isreal(z)?,
        cp::iscomplex(z)?,
        cp::isposinf(x)?,
        cp::isneginf(x)?,
    ];
    let flags = [
        cp::allclose(x, y)?,
        cp::allclose_with(x, x, tol)?,
        cp::array_equal(x, y)?,
        cp::array_equal_with(x, x, true)?,
        cp::array_equiv(x, &x.slice(cp::s![..1, ..])?)?,
    ];
    out.push(cp::asarray(flags.to_vec())?);
    Ok(out)
}

#[test]
fn gpu_matches_cpu_without_host_fallbacks() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("logic gpu_matches_cpu_without_host_fallbacks");
    let (x, y, z) = cp::with_device(Device::Cpu, || {
        let mut rng = cp::random::default_rng(seed);
        let x = rng.standard_normal_as([64, 33], DType::Float32)?;
        // y: x nudged by a few ulps to a few percent, with infinities and NaN.
        let nudge = rng.standard_normal_as([64, 33], DType::Float32)?;
        let scale = cp::power(10.0, &(&rng.random_as([64, 33], DType::Float32)? * -8.0))?;
        let mut y = cp::add(&x, &(&nudge * &scale))?;
        y.put(
            vec![0i64, 7, 99],
            cp::asarray(vec![INF, NAN, -INF])?,
            cp::PutMode::Raise,
        )?;
        let mut x = x;
        x.put(
            vec![1i64, 7, 99],
            cp::asarray(vec![INF, NAN, -INF])?,
            cp::PutMode::Raise,
        )?;
        let zr = rng.standard_normal_as([50], DType::Float64)?;
        let zi = rng.standard_normal_as([50], DType::Float64)?;
        let zi = cp::where_(cp::less(&zi, 0.0)?, 0.0, &zi)?;
        let z = cp::add(&zr, &cp::multiply(&zi, C::new(0.0, 1.0))?)?;
        Ok::<_, cp::Error>((x, y, z))
    })
    .unwrap();
    let cpu = cp::with_device(Device::Cpu, || run_all(&x, &y, &z)).unwrap();
    cp::cuda::reset_host_fallbacks();
    let gpu = cp::with_device(dev, || {
        let (xg, yg, zg) = (x.to_device(&dev)?, y.to_device(&dev)?, z.to_device(&dev)?);
        let r = run_all(&xg, &yg, &zg)?;
        cp::cuda::launch_pending()?;
        Ok::<_, cp::Error>(r)
    })
    .unwrap();
    common::assert_no_host_fallback("logic functions");
    for (k, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
        assert_eq!(g.device(), dev, "result {k}");
        assert_eq!(c.shape(), g.shape(), "result {k}");
        assert_eq!(bools(c), bools(g), "seed {seed}: result {k}");
    }
}
