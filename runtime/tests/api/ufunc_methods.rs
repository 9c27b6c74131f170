//! The methods of binary ufuncs (`cp::ufuncs::add.reduce`, `.accumulate`,
//! `.outer`, `.at`) against NumPy's values on every backend, the GPU
//! against the CPU on random inputs, and no host fallback on the GPU.

use crate::common;

use cuprite as cp;
use cuprite::ufuncs;
use cuprite::{Array, DType, Device};

use common::*;

fn f64s(v: &[f64]) -> Array {
    cp::asarray(v.to_vec()).unwrap()
}

fn i64s(v: &[i64]) -> Array {
    cp::asarray(v.to_vec()).unwrap()
}

on_every_device!(outer_matches_numpy, |dev| {
    // np.multiply.outer(np.arange(3), np.arange(1, 3)) == [[0, 0], [1, 2], [2, 4]]
    let t = ufuncs::multiply.outer(&cp::arange(3)?, &cp::arange_step(1, 3, 1)?)?;
    assert_exact(&t, &[3, 2], &[0i64, 0, 1, 2, 2, 4]);
    // np.add.outer(np.ones((2, 3)), np.ones(4)).shape == (2, 3, 4)
    let t = ufuncs::add.outer(&cp::ones([2, 3], cp::f32)?, &cp::ones([4], cp::f32)?)?;
    assert_eq!(
        (t.shape(), t.dtype()),
        (&[2usize, 3, 4][..], DType::Float32)
    );
    // np.greater.outer([1, 2], [0, 2]) == [[True, False], [True, False]]
    let t = ufuncs::greater.outer(&i64s(&[1, 2]), &i64s(&[0, 2]))?;
    assert_exact(&t, &[2, 2], &[true, false, true, false]);
});

on_every_device!(reduce_matches_numpy, |dev| {
    let a = f64s(&[10.0, 2.0, 3.0]);
    // np.subtract.reduce([10., 2, 3]) == 5.0; np.divide.reduce == 10/2/3
    assert_eq!(ufuncs::subtract.reduce(&a, Some(0))?.item::<f64>()?, 5.0);
    assert_eq!(
        ufuncs::divide.reduce(&a, Some(0))?.item::<f64>()?,
        10.0 / 2.0 / 3.0
    );
    // np.add.reduce(int8 [100, 100, 3]) == 203 as int64
    let small = cp::asarray(vec![100i8, 100, 3])?;
    let s = ufuncs::add.reduce(&small, Some(0))?;
    assert_eq!((s.dtype(), s.item::<i64>()?), (DType::Int64, 203));
    // np.maximum.reduce(int8) keeps int8
    assert_eq!(ufuncs::maximum.reduce(&small, None)?.dtype(), DType::Int8);
    // np.add.reduce(np.arange(6).reshape(2, 3), axis=None) == 15; axis=-1 == [3, 12]
    let m = cp::arange(6)?.reshape([2, 3])?;
    assert_eq!(ufuncs::add.reduce(&m, None)?.item::<i64>()?, 15);
    assert_exact(&ufuncs::add.reduce(&m, Some(-1))?, &[2], &[3i64, 12]);
    // np.power.reduce([[2, 3, 2], [1, 5, 2]], axis=1) == [64, 1]
    let p = i64s(&[2, 3, 2, 1, 5, 2]).reshape([2, 3])?;
    assert_exact(&ufuncs::power.reduce(&p, Some(1))?, &[2], &[64i64, 1]);
    // np.bitwise_xor.reduce([[5, 3], [6, 1]], axis=0) == [3, 2]
    let x = i64s(&[5, 3, 6, 1]).reshape([2, 2])?;
    assert_exact(&ufuncs::bitwise_xor.reduce(&x, Some(0))?, &[2], &[3i64, 2]);
    // np.logical_and.reduce([1, 2, 0]) == False (bool)
    let l = ufuncs::logical_and.reduce(&i64s(&[1, 2, 0]), None)?;
    assert_eq!((l.dtype(), l.item::<bool>()?), (DType::Bool, false));
    // np.equal.reduce([True, False, False]) == True
    let e = ufuncs::equal.reduce(&cp::asarray(vec![true, false, false])?, None)?;
    assert!(e.item::<bool>()?);
    // np.fmax.reduce([nan, 1, nan]) == 1; np.maximum.reduce gives nan
    let n = f64s(&[f64::NAN, 1.0, f64::NAN]);
    assert_eq!(ufuncs::fmax.reduce(&n, None)?.item::<f64>()?, 1.0);
    assert!(ufuncs::maximum.reduce(&n, None)?.item::<f64>()?.is_nan());
    // Empty: the identity where there is one, else an error.
    let empty = cp::zeros([2, 0], cp::i64)?;
    assert_exact(
        &ufuncs::bitwise_or.reduce(&empty, Some(1))?,
        &[2],
        &[0i64, 0],
    );
    assert_exact(
        &ufuncs::bitwise_and.reduce(&empty, Some(1))?,
        &[2],
        &[-1i64, -1],
    );
    assert_exact(&ufuncs::add.reduce(&empty, Some(1))?, &[2], &[0i64, 0]);
    let err = ufuncs::subtract.reduce(&empty, Some(1)).unwrap_err();
    assert!(err.to_string().contains("no identity"), "{err}");
    assert!(err.to_string().starts_with("subtract.reduce:"), "{err}");
    // np.equal.reduce of integers: no loop with a result of the input's dtype.
    let err = ufuncs::equal.reduce(&i64s(&[1, 1]), None).unwrap_err();
    assert!(matches!(err, cp::Error::DType { .. }), "{err}");
    assert!(ufuncs::add.reduce(&m, Some(2)).is_err());
});

on_every_device!(accumulate_matches_numpy, |dev| {
    // np.subtract.accumulate([10., 2, 3]) == [10, 8, 5]
    let s = ufuncs::subtract.accumulate(&f64s(&[10.0, 2.0, 3.0]), 0)?;
    assert_exact(&s, &[3], &[10.0, 8.0, 5.0]);
    // np.divide.accumulate([8, 2, 2]) == [8., 4., 2.] (float64)
    let d = ufuncs::divide.accumulate(&i64s(&[8, 2, 2]), 0)?;
    assert_exact(&d, &[3], &[8.0, 4.0, 2.0]);
    // np.power.accumulate([2, 3, 2]) == [2, 8, 64]
    assert_exact(
        &ufuncs::power.accumulate(&i64s(&[2, 3, 2]), 0)?,
        &[3],
        &[2i64, 8, 64],
    );
    // np.add.accumulate(np.arange(6).reshape(2, 3), axis=1) == [[0, 1, 3], [3, 7, 12]]
    let m = cp::arange(6)?.reshape([2, 3])?;
    let a = ufuncs::add.accumulate(&m, 1)?;
    assert_exact(&a, &[2, 3], &[0i64, 1, 3, 3, 7, 12]);
    // np.add.accumulate(int8) is int64
    let small = cp::asarray(vec![100i8, 100, 3])?;
    assert_eq!(ufuncs::add.accumulate(&small, 0)?.dtype(), DType::Int64);
    // np.maximum.accumulate([3, 1, 4, 1, 5, 9, 2, 6, 5]) and minimum along axis 0
    let v = i64s(&[3, 1, 4, 1, 5, 9, 2, 6, 5]);
    let mx = ufuncs::maximum.accumulate(&v, 0)?;
    assert_exact(&mx, &[9], &[3i64, 3, 4, 4, 5, 9, 9, 9, 9]);
    let cols = v.reshape([3, 3])?;
    let mn = ufuncs::minimum.accumulate(&cols, 0)?;
    assert_exact(&mn, &[3, 3], &[3i64, 1, 4, 1, 1, 4, 1, 1, 4]);
    // np.logical_xor.accumulate([True, True, False, True]) == [T, F, F, T]
    let x = ufuncs::logical_xor.accumulate(&cp::asarray(vec![true, true, false, true])?, 0)?;
    assert_exact(&x, &[4], &[true, false, false, true]);
    // A strided input: every other element.
    let strided = v.slice(cp::s![..;2])?;
    let mx = ufuncs::maximum.accumulate(&strided, -1)?;
    assert_exact(&mx, &[5], &[3i64, 4, 5, 5, 5]);
    assert!(ufuncs::add.accumulate(&cp::asarray(1.0)?, 0).is_err());
});

on_every_device!(at_matches_numpy, |dev| {
    // a = np.zeros(4); np.add.at(a, [0, 0, 1], [1, 2, 3]) -> [3, 3, 0, 0]
    let mut a = cp::zeros([4], cp::f64)?;
    ufuncs::add.at(&mut a, i64s(&[0, 0, 1]), f64s(&[1.0, 2.0, 3.0]))?;
    assert_exact(&a, &[4], &[3.0, 3.0, 0.0, 0.0]);
    // a = np.ones(4, int32); np.multiply.at(a, [0, 0, 3], 2) -> [4, 1, 1, 2]
    let mut a = cp::ones([4], cp::i32)?;
    ufuncs::multiply.at(&mut a, i64s(&[0, 0, 3]), 2)?;
    assert_exact(&a, &[4], &[4i32, 1, 1, 2]);
    // Order matters for subtract: a = [10.]; np.subtract.at(a, [0, 0], [1, 2]) -> [7.]
    let mut a = f64s(&[10.0]);
    ufuncs::subtract.at(&mut a, i64s(&[0, -1]), f64s(&[1.0, 2.0]))?;
    assert_exact(&a, &[1], &[7.0]);
    // Rows of a 2-D array: np.add.at(np.zeros((3, 2)), [2, 0, 2], [[1, 2]]) -> [[1, 2], [0, 0], [2, 4]]
    let mut a = cp::zeros([3, 2], cp::f32)?;
    ufuncs::add.at(&mut a, i64s(&[2, 0, 2]), &cp::asarray([[1.0f32, 2.0]])?)?;
    assert_exact(&a, &[3, 2], &[1.0f32, 2.0, 0.0, 0.0, 2.0, 4.0]);
    // Many indices (beyond put's pairwise path), one target.
    let mut a = cp::zeros([3], cp::i64)?;
    ufuncs::add.at(&mut a, cp::zeros([5000], cp::i64)?, 1)?;
    assert_exact(&a, &[3], &[5000i64, 0, 0]);
    // np.maximum.at([1, 5], [0, 0, 1], [4, 2, 3]) -> [4, 5]
    let mut a = i64s(&[1, 5]);
    ufuncs::maximum.at(&mut a, i64s(&[0, 0, 1]), i64s(&[4, 2, 3]))?;
    assert_exact(&a, &[2], &[4i64, 5]);
    // Out of range: an error, nothing written.
    let mut a = cp::zeros([2], cp::f64)?;
    let err = ufuncs::add.at(&mut a, i64s(&[0, 2]), 1.0).unwrap_err();
    assert!(matches!(err, cp::Error::IndexOutOfBounds { .. }), "{err}");
    assert_exact(&a, &[2], &[0.0, 0.0]);
    // divide on an integer array has no int64 -> int64 loop.
    let mut a = i64s(&[4]);
    assert!(matches!(
        ufuncs::divide.at(&mut a, i64s(&[0]), 2).unwrap_err(),
        cp::Error::DType { .. }
    ));
    // Values that do not broadcast to indices.shape + a.shape[1..].
    let mut a = cp::zeros([3, 2], cp::f32)?;
    assert!(matches!(
        ufuncs::add
            .at(&mut a, i64s(&[0, 1]), &cp::ones([3], cp::f32)?)
            .unwrap_err(),
        cp::Error::Shape { .. }
    ));
});

/// Every method on the CPU and the GPU, from the same random inputs.
fn run_all(x: &Array, idx: &Array, vals: &Array) -> cp::Result<Vec<Array>> {
    let mut out = Vec::new();
    for op in [
        ufuncs::subtract,
        ufuncs::maximum,
        ufuncs::fmin,
        ufuncs::hypot,
        ufuncs::logaddexp,
    ] {
        out.push(op.reduce(x, Some(1))?);
        out.push(op.accumulate(x, 0)?);
        out.push(op.outer(&x.slice(cp::s![0, ..])?, &vals.slice(cp::s![..5])?)?);
        let mut target = x.copy()?;
        op.at(&mut target, idx, vals.reshape([-1, 1])?)?;
        out.push(target);
    }
    let ints = cp::multiply(x, 100.0)?.astype(DType::Int32)?;
    out.push(ufuncs::bitwise_xor.accumulate(&ints, 1)?);
    out.push(ufuncs::bitwise_or.reduce(&ints, Some(0))?);
    let mut target = ints.copy()?;
    ufuncs::bitwise_xor.at(&mut target, idx, 7)?;
    out.push(target);
    Ok(out)
}

#[test]
fn gpu_matches_cpu_without_host_fallbacks() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("ufunc_methods gpu_matches_cpu_without_host_fallbacks");
    let (x, idx, vals) = cp::with_device(Device::Cpu, || {
        let mut rng = cp::random::default_rng(seed);
        let x = rng.standard_normal_as([40, 9], DType::Float64)?;
        let idx = rng.integers(-40, 40, [3000])?;
        let vals = rng.standard_normal_as([3000], DType::Float64)?;
        Ok::<_, cp::Error>((x, idx, vals))
    })
    .unwrap();
    let cpu = cp::with_device(Device::Cpu, || run_all(&x, &idx, &vals)).unwrap();
    cp::cuda::reset_host_fallbacks();
    let gpu = cp::with_device(dev, || {
        let r = run_all(
            &x.to_device(&dev)?,
            &idx.to_device(&dev)?,
            &vals.to_device(&dev)?,
        )?;
        r.iter()
            .map(|a| a.to_device(&Device::Cpu))
            .collect::<cp::Result<Vec<_>>>()
    })
    .unwrap();
    assert_no_host_fallback("ufunc methods");
    for (k, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
        assert_eq!((c.shape(), c.dtype()), (g.shape(), g.dtype()), "result {k}");
        let (cv, gv) = (values_f64(c), values_f64(g));
        for (i, (a, b)) in cv.iter().zip(&gv).enumerate() {
            // hypot/logaddexp use libm on the CPU and CUDA's on the GPU.
            let tol = 1e-12 * a.abs().max(1.0);
            assert!(
                (a - b).abs() <= tol && !a.is_nan() && !b.is_nan(),
                "result {k} element {i}: cpu {a} gpu {b}"
            );
        }
    }
}
