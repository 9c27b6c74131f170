//! Sorting and searching (`search.rs`): `searchsorted`, `digitize`,
//! `unique`, `argwhere`, `partition`, `isin`, the set operations, `lexsort`
//! and `topk` against NumPy's values on every device, GPU against CPU on
//! random inputs, and no host fallback.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::{s, Array, DType, Device, Side, UniqueOptions};

const N: f64 = f64::NAN;

fn f64s(v: &[f64]) -> Array {
    cp::asarray(v.to_vec()).unwrap()
}

fn i64s(a: &Array) -> Vec<i64> {
    a.to_vec::<i64>().unwrap()
}

on_every_device!(searchsorted_matches_numpy, |dev| {
    // a = np.array([1., 2., 2., 3., nan]); v = np.array([[2, 2.5], [nan, -1]])
    let a = f64s(&[1.0, 2.0, 2.0, 3.0, N]);
    let v = cp::asarray(vec![vec![2.0, 2.5], vec![N, -1.0]])?;
    // np.searchsorted(a, v) -> [[1, 3], [4, 0]]; side='right' -> [[3, 3], [5, 0]]
    assert_exact(
        &cp::searchsorted(&a, &v, Side::Left, None)?,
        &[2, 2],
        &[1i64, 3, 4, 0],
    );
    assert_exact(
        &cp::searchsorted(&a, &v, Side::Right, None)?,
        &[2, 2],
        &[3i64, 3, 5, 0],
    );
    // A scalar needle gives a 0-d result.
    assert_exact(&cp::searchsorted(&a, 2.0, Side::Right, None)?, &[], &[3i64]);
    // Promotion: np.searchsorted(np.array([1, 3, 5], np.int32), [2.5, 3.0]) -> [1, 1]
    let ai = cp::asarray(vec![1i32, 3, 5])?;
    let vf = f64s(&[2.5, 3.0]);
    assert_exact(
        &cp::searchsorted(&ai, &vf, Side::Left, None)?,
        &[2],
        &[1i64, 1],
    );
    // sorter: np.searchsorted([3, 1, 2], [2, 0, 4], sorter=[1, 2, 0]) -> [1, 0, 3]; right -> [2, 0, 3]
    let a3 = cp::asarray(vec![3i64, 1, 2])?;
    let sorter = cp::asarray(vec![1i64, 2, 0])?;
    let v3 = cp::asarray(vec![2i64, 0, 4])?;
    assert_exact(
        &cp::searchsorted(&a3, &v3, Side::Left, Some(&sorter))?,
        &[3],
        &[1i64, 0, 3],
    );
    assert_exact(
        &cp::searchsorted(&a3, &v3, Side::Right, Some(&sorter))?,
        &[3],
        &[2i64, 0, 3],
    );
    // Empty haystack and empty needles.
    let empty = cp::zeros([0], DType::Float64)?;
    assert_exact(
        &cp::searchsorted(&empty, f64s(&[1.0, 2.0]), Side::Left, None)?,
        &[2],
        &[0i64, 0],
    );
    assert_exact(
        &cp::searchsorted(&a, &empty, Side::Left, None)?,
        &[0],
        &[] as &[i64],
    );
    // Strided views: a = np.arange(10.)[::2]; v = np.array([[0., 5, 9], [2, 8, -3]]).T
    // left -> [[0, 1], [3, 4], [5, 0]]; right -> [[1, 2], [3, 5], [5, 0]]
    let a = cp::arange(10)?.astype(DType::Float64)?.slice(s![..;2])?;
    let v = cp::asarray(vec![vec![0.0, 5.0, 9.0], vec![2.0, 8.0, -3.0]])?.t();
    assert_exact(
        &cp::searchsorted(&a, &v, Side::Left, None)?,
        &[3, 2],
        &[0i64, 1, 3, 4, 5, 0],
    );
    assert_exact(
        &cp::searchsorted(&a, &v, Side::Right, None)?,
        &[3, 2],
        &[1i64, 2, 3, 5, 5, 0],
    );
    // Complex in NumPy's order: z = [1+1j, 1+2j, 2, nanj, nan];
    // np.searchsorted(z, [1+1.5j, 2, 5+nanj, nan+1j]) -> [1, 2, 4, 5]
    let c = |re: f64, im: f64| cp::num_complex::Complex64::new(re, im);
    let z = cp::asarray(vec![
        c(1.0, 1.0),
        c(1.0, 2.0),
        c(2.0, 0.0),
        c(0.0, N),
        c(N, 0.0),
    ])?;
    let w = cp::asarray(vec![c(1.0, 1.5), c(2.0, 0.0), c(5.0, N), c(N, 1.0)])?;
    assert_exact(
        &cp::searchsorted(&z, &w, Side::Left, None)?,
        &[4],
        &[1i64, 2, 4, 5],
    );
    // np.searchsorted([False, False, True], [True, False]) -> [2, 0]
    let bools = cp::asarray(vec![false, false, true])?;
    let bv = cp::asarray(vec![true, false])?;
    assert_exact(
        &cp::searchsorted(&bools, &bv, Side::Left, None)?,
        &[2],
        &[2i64, 0],
    );
    // float16 keeps NaN last.
    let h = f64s(&[-1.0, 0.5, N]).astype(DType::Float16)?;
    let hv = f64s(&[0.5, N, 9.0]).astype(DType::Float16)?;
    assert_exact(
        &cp::searchsorted(&h, &hv, Side::Left, None)?,
        &[3],
        &[1i64, 2, 2],
    );
    // Errors: a 2-D haystack, a bad sorter.
    let two_d = cp::zeros([2, 2], DType::Float32)?;
    assert!(matches!(
        cp::searchsorted(&two_d, 1.0, Side::Left, None),
        Err(cp::Error::Shape { .. })
    ));
    let short = cp::asarray(vec![0i64, 1])?;
    assert!(cp::searchsorted(&a3, &v3, Side::Left, Some(&short)).is_err());
    let negative = cp::asarray(vec![0i64, -1, 1])?;
    assert!(cp::searchsorted(&a3, &v3, Side::Left, Some(&negative)).is_err());
    let too_big = cp::asarray(vec![0i64, 3, 1])?;
    assert!(cp::searchsorted(&a3, &v3, Side::Left, Some(&too_big)).is_err());
    let float_sorter = cp::asarray(vec![0.0, 2.0, 1.0])?;
    assert!(matches!(
        cp::searchsorted(&a3, &v3, Side::Left, Some(&float_sorter)),
        Err(cp::Error::DType { .. })
    ));
    assert!(dev == cp::current_device());
});

on_every_device!(digitize_matches_numpy, |dev| {
    let x = f64s(&[0.5, 1.0, 2.0, 2.5, 3.0, N]);
    let inc = f64s(&[1.0, 2.0, 3.0]);
    // np.digitize(x, [1, 2, 3]) -> [0, 1, 2, 2, 3, 3]; right=True -> [0, 0, 1, 2, 2, 3]
    assert_exact(
        &cp::digitize(&x, &inc, false)?,
        &[6],
        &[0i64, 1, 2, 2, 3, 3],
    );
    assert_exact(&cp::digitize(&x, &inc, true)?, &[6], &[0i64, 0, 1, 2, 2, 3]);
    // np.digitize(x, [3, 2, 1]) -> [3, 2, 1, 1, 0, 0]; right=True -> [3, 3, 2, 1, 1, 0]
    let dec = f64s(&[3.0, 2.0, 1.0]);
    assert_exact(
        &cp::digitize(&x, &dec, false)?,
        &[6],
        &[3i64, 2, 1, 1, 0, 0],
    );
    assert_exact(&cp::digitize(&x, &dec, true)?, &[6], &[3i64, 3, 2, 1, 1, 0]);
    // np.digitize([[1, 5], [7, -2]], [0, 5, 5, 10]) -> [[1, 3], [3, 0]]
    let xi = cp::asarray(vec![vec![1i64, 5], vec![7, -2]])?;
    let bi = cp::asarray(vec![0i64, 5, 5, 10])?;
    assert_exact(&cp::digitize(&xi, &bi, false)?, &[2, 2], &[1i64, 3, 3, 0]);
    // np.digitize([1, 2, 3], [2, 2, 2]) -> [0, 3, 3]; np.digitize([1, 2, 3], []) -> [0, 0, 0]
    let x3 = cp::asarray(vec![1i64, 2, 3])?;
    assert_exact(
        &cp::digitize(&x3, &cp::asarray(vec![2i64, 2, 2])?, false)?,
        &[3],
        &[0i64, 3, 3],
    );
    assert_exact(
        &cp::digitize(&x3, &cp::zeros([0], DType::Int64)?, false)?,
        &[3],
        &[0i64, 0, 0],
    );
    // Not monotonic; complex.
    assert!(cp::digitize(&x, &f64s(&[1.0, 3.0, 2.0]), false).is_err());
    let z = x.astype(DType::Complex64)?;
    assert!(matches!(
        cp::digitize(&z, &inc, false),
        Err(cp::Error::DType { .. })
    ));
    assert!(dev == cp::current_device());
});

on_every_device!(unique_matches_numpy, |dev| {
    let all = UniqueOptions::new().index(true).inverse(true).counts(true);
    // x = np.array([2., nan, 1., nan, 2., 5., 1.])
    let x = f64s(&[2.0, N, 1.0, N, 2.0, 5.0, 1.0]);
    // np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    let u = cp::unique_with(&x, all)?;
    assert_close(&u.values, &[4], DType::Float64, &[1.0, 2.0, 5.0, N], 0.0);
    assert_exact(u.index.as_ref().unwrap(), &[4], &[2i64, 0, 5, 1]);
    assert_exact(u.inverse.as_ref().unwrap(), &[7], &[1i64, 3, 0, 3, 1, 2, 0]);
    assert_exact(u.counts.as_ref().unwrap(), &[4], &[2i64, 2, 1, 2]);
    // ... equal_nan=False: every NaN its own value.
    let u = cp::unique_with(&x, all.equal_nan(false))?;
    assert_close(&u.values, &[5], DType::Float64, &[1.0, 2.0, 5.0, N, N], 0.0);
    assert_exact(u.index.as_ref().unwrap(), &[5], &[2i64, 0, 5, 1, 3]);
    assert_exact(u.inverse.as_ref().unwrap(), &[7], &[1i64, 3, 0, 4, 1, 2, 0]);
    assert_exact(u.counts.as_ref().unwrap(), &[5], &[2i64, 2, 1, 1, 1]);
    // Values alone.
    assert_close(
        &cp::unique(&x)?,
        &[4],
        DType::Float64,
        &[1.0, 2.0, 5.0, N],
        0.0,
    );
    // A non-contiguous 2-D input: a = np.array([[5, 3, 5], [1, 3, 3]], np.int16).T
    // values [1, 3, 5], index [1, 2, 0], inverse [[2, 0], [1, 1], [2, 1]] (shape (3, 2)), counts [1, 3, 2]
    let a = cp::asarray(vec![vec![5i16, 3, 5], vec![1, 3, 3]])?.t();
    let u = cp::unique_with(&a, all)?;
    assert_exact(&u.values, &[3], &[1i16, 3, 5]);
    assert_exact(u.index.as_ref().unwrap(), &[3], &[1i64, 2, 0]);
    assert_exact(u.inverse.as_ref().unwrap(), &[3, 2], &[2i64, 0, 1, 1, 2, 1]);
    assert_exact(u.counts.as_ref().unwrap(), &[3], &[1i64, 3, 2]);
    // Only some options.
    let u = cp::unique_with(&a, UniqueOptions::new().counts(true))?;
    assert!(u.index.is_none() && u.inverse.is_none());
    assert_exact(u.counts.as_ref().unwrap(), &[3], &[1i64, 3, 2]);
    // Complex: every value with a NaN part is one value.
    // np.unique([1+1j, nan, nanj, 1+1j, 2], return_index=True, return_counts=True)
    // -> [1+1j, 2, nanj], [0, 4, 2], [2, 1, 2]
    let c = |re: f64, im: f64| cp::num_complex::Complex64::new(re, im);
    let z = cp::asarray(vec![
        c(1.0, 1.0),
        c(N, 0.0),
        c(0.0, N),
        c(1.0, 1.0),
        c(2.0, 0.0),
    ])?;
    let u = cp::unique_with(&z, UniqueOptions::new().index(true).counts(true))?;
    let zv = cvals(&u.values);
    assert_eq!(zv.len(), 3);
    assert_eq!((zv[0], zv[1]), (c(1.0, 1.0), c(2.0, 0.0)));
    assert!(zv[2].re == 0.0 && zv[2].im.is_nan());
    assert_exact(u.index.as_ref().unwrap(), &[3], &[0i64, 4, 2]);
    assert_exact(u.counts.as_ref().unwrap(), &[3], &[2i64, 1, 2]);
    // np.unique([True, False, True], return_counts=True) -> [False, True], [1, 2]
    let b = cp::asarray(vec![true, false, true])?;
    let u = cp::unique_with(&b, UniqueOptions::new().counts(true))?;
    assert_exact(&u.values, &[2], &[false, true]);
    assert_exact(u.counts.as_ref().unwrap(), &[2], &[1i64, 2]);
    // float16: np.unique([1.5, -2, 1.5, nan, nan], return_inverse=True) -> [-2, 1.5, nan], [1, 0, 1, 2, 2]
    let h = f64s(&[1.5, -2.0, 1.5, N, N]).astype(DType::Float16)?;
    let u = cp::unique_with(&h, UniqueOptions::new().inverse(true))?;
    assert_close(&u.values, &[3], DType::Float16, &[-2.0, 1.5, N], 0.0);
    assert_exact(u.inverse.as_ref().unwrap(), &[5], &[1i64, 0, 1, 2, 2]);
    // Empty and 0-d: np.unique(np.array(7), return_index=True, return_inverse=True) -> [7], [0], 0 (0-d)
    let e = cp::zeros([0, 3], DType::Float32)?;
    let u = cp::unique_with(&e, all)?;
    assert_eq!(u.values.shape(), &[0]);
    assert_eq!(u.values.dtype(), DType::Float32);
    assert_eq!(u.inverse.as_ref().unwrap().shape(), &[0, 3]);
    assert_eq!(u.counts.as_ref().unwrap().shape(), &[0]);
    let s0 = cp::asarray(7i32)?;
    let u = cp::unique_with(&s0, all)?;
    assert_exact(&u.values, &[1], &[7i32]);
    assert_exact(u.index.as_ref().unwrap(), &[1], &[0i64]);
    assert_exact(u.inverse.as_ref().unwrap(), &[], &[0i64]);
    // Longer than a scan tile, with every run boundary kind.
    let n = 5000;
    let long: Vec<i64> = (0..n).map(|i| (i * 7919) % 613).collect();
    let u = cp::unique_with(&cp::asarray(long.clone())?, all)?;
    let mut distinct = long.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(u.values.to_vec::<i64>()?, distinct);
    let counts = i64s(u.counts.as_ref().unwrap());
    assert_eq!(counts.iter().sum::<i64>(), n);
    let rebuilt = u.values.take(u.inverse.as_ref().unwrap(), None)?;
    assert_eq!(rebuilt.to_vec::<i64>()?, long);
    for (k, &at) in i64s(u.index.as_ref().unwrap()).iter().enumerate() {
        assert_eq!(long[at as usize], distinct[k]);
        assert!(long[..at as usize].iter().all(|&v| v != distinct[k]));
    }
    assert!(dev == cp::current_device());
});

on_every_device!(argwhere_and_partition_match_numpy, |dev| {
    // np.argwhere([[0, 1, 0], [2, 0, 3]]) -> [[0, 1], [1, 0], [1, 2]]
    let a = cp::asarray(vec![vec![0i32, 1, 0], vec![2, 0, 3]])?;
    assert_exact(&cp::argwhere(&a)?, &[3, 2], &[0i64, 1, 1, 0, 1, 2]);
    // np.argwhere(np.arange(8).reshape(2, 2, 2) % 3)
    let a3 = cp::remainder(&cp::arange(8)?.reshape([2, 2, 2])?, 3)?;
    assert_exact(
        &cp::argwhere(&a3)?,
        &[5, 3],
        &[0i64, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1],
    );
    // Transposed view: np.argwhere(a.T) -> [[0, 1], [1, 0], [2, 1]]
    assert_exact(&cp::argwhere(&a.t())?, &[3, 2], &[0i64, 1, 1, 0, 2, 1]);
    // np.argwhere(np.zeros((2, 0))).shape -> (0, 2); 0-d: (1, 0) and (0, 0)
    assert_eq!(
        cp::argwhere(&cp::zeros([2, 0], DType::Float32)?)?.shape(),
        &[0, 2]
    );
    assert_eq!(cp::argwhere(&cp::asarray(3.0)?)?.shape(), &[1, 0]);
    assert_eq!(cp::argwhere(&cp::asarray(0.0)?)?.shape(), &[0, 0]);

    // partition: the kth element in place, no larger before, no smaller after.
    let x = cp::asarray(vec![
        vec![7.0, 1.0, N, 3.0, 5.0],
        vec![2.0, 9.0, 4.0, 4.0, 0.0],
    ])?;
    for (kth, axis) in [(2isize, -1isize), (-1, 1), (0, 0), (1, -2)] {
        let p = cp::partition(&x, kth, axis)?;
        let sorted = x.sort_axis(axis)?;
        let ax = if axis < 0 { axis + 2 } else { axis } as usize;
        let n = x.shape()[ax] as isize;
        let k = if kth < 0 { kth + n } else { kth };
        let pick = |a: &Array, i: isize| -> Vec<f64> {
            let idx = if ax == 0 {
                a.slice(s![i, ..])
            } else {
                a.slice(s![.., i])
            };
            values_f64(&idx.unwrap())
        };
        let at = pick(&p, k);
        let want = pick(&sorted, k);
        assert_eq!(
            format!("{at:?}"),
            format!("{want:?}"),
            "kth {kth} axis {axis}"
        );
        for i in 0..n {
            for (lane, (&v, &pivot)) in pick(&p, i).iter().zip(&at).enumerate() {
                // NaN sorts last (total_cmp: positive NaN above +inf; no -0.0 here).
                let ok = if i < k {
                    v.total_cmp(&pivot) != std::cmp::Ordering::Greater
                } else {
                    v.total_cmp(&pivot) != std::cmp::Ordering::Less
                };
                assert!(ok, "kth {kth} axis {axis}: element {i} of lane {lane}");
            }
        }
        // argpartition indexes the same arrangement.
        let idx = cp::argpartition(&x, kth, axis)?;
        let again = if ax == 1 {
            let rows: Vec<Array> = (0..2)
                .map(|r| {
                    x.slice(s![r, ..])
                        .unwrap()
                        .take(idx.slice(s![r, ..]).unwrap(), None)
                        .unwrap()
                })
                .collect();
            cp::stack(&[&rows[0], &rows[1]], 0)?
        } else {
            let cols: Vec<Array> = (0..5)
                .map(|c| {
                    x.slice(s![.., c])
                        .unwrap()
                        .take(idx.slice(s![.., c]).unwrap(), None)
                        .unwrap()
                })
                .collect();
            let refs: Vec<&Array> = cols.iter().collect();
            cp::stack(&refs, 1)?
        };
        assert_eq!(
            format!("{:?}", values_f64(&again)),
            format!("{:?}", values_f64(&p))
        );
    }
    let p = cp::partition(&x, [0, 4], -1)?;
    assert_eq!(p.shape(), &[2, 5]);
    // kth out of range: np.partition(x, 5) raises.
    assert!(cp::partition(&x, 5, -1).is_err());
    assert!(cp::argpartition(&x, -6, 1).is_err());
    assert!(cp::partition(&x, 0, 2).is_err());
    assert!(dev == cp::current_device());
});

on_every_device!(set_operations_match_numpy, |dev| {
    // np.isin([[1, nan], [2, 3]], [nan, 2, 3.0000001, 1]) -> [[True, False], [True, False]]
    let el = cp::asarray(vec![vec![1.0, N], vec![2.0, 3.0]])?;
    let test = f64s(&[N, 2.0, 3.0000001, 1.0]);
    assert_exact(
        &cp::isin(&el, &test, false)?,
        &[2, 2],
        &[true, false, true, false],
    );
    assert_exact(
        &cp::isin(&el, &test, true)?,
        &[2, 2],
        &[false, true, false, true],
    );
    // Promotion: np.isin([1, 2, 3], [2.0, 3.5], invert=True) -> [True, False, True]
    let ints = cp::asarray(vec![1i32, 2, 3])?;
    assert_exact(
        &cp::isin(&ints, &f64s(&[2.0, 3.5]), true)?,
        &[3],
        &[true, false, true],
    );
    // Empty test elements; a transposed element array.
    let none = cp::zeros([0], DType::Int32)?;
    assert_exact(&cp::isin(&ints, &none, false)?, &[3], &[false; 3]);
    assert_exact(&cp::isin(&ints, &none, true)?, &[3], &[true; 3]);
    // np.isin(np.array([[0, 1], [2, 3]]).T, [3, 0]) -> [[True, False], [False, True]]
    let m = cp::asarray(vec![vec![0i64, 1], vec![2, 3]])?;
    let t30 = cp::asarray(vec![3i64, 0])?;
    assert_exact(
        &cp::isin(&m.t(), &t30, false)?,
        &[2, 2],
        &[true, false, false, true],
    );
    // np.in1d(np.array([[0, 1], [2, 3]]), [3, 0]) -> [True, False, False, True]
    assert_exact(
        &cp::in1d(&m, &t30, false)?,
        &[4],
        &[true, false, false, true],
    );

    // np.intersect1d([1., nan, 2, 2, 4], [nan, 2., 4, 7]) -> [2., 4.]
    let a = f64s(&[1.0, N, 2.0, 2.0, 4.0]);
    let b = f64s(&[N, 2.0, 4.0, 7.0]);
    assert_close(
        &cp::intersect1d(&a, &b)?,
        &[2],
        DType::Float64,
        &[2.0, 4.0],
        0.0,
    );
    // np.intersect1d(np.array([1, 2, 3], np.int8), [2., 3.5]) -> [2.] (float64)
    let i8s = cp::asarray(vec![1i8, 2, 3])?;
    assert_close(
        &cp::intersect1d(&i8s, &f64s(&[2.0, 3.5]))?,
        &[1],
        DType::Float64,
        &[2.0],
        0.0,
    );
    // np.union1d([1, nan, 3], [[nan, 0], [3, -1]]) -> [-1, 0, 1, 3, nan]
    let u = cp::union1d(
        &f64s(&[1.0, N, 3.0]),
        &cp::asarray(vec![vec![N, 0.0], vec![3.0, -1.0]])?,
    )?;
    assert_close(&u, &[5], DType::Float64, &[-1.0, 0.0, 1.0, 3.0, N], 0.0);
    // np.setdiff1d([3, nan, 1, 1, nan, 5], [1, 7]) -> [3, 5, nan]
    let d = cp::setdiff1d(&f64s(&[3.0, N, 1.0, 1.0, N, 5.0]), &f64s(&[1.0, 7.0]))?;
    assert_close(&d, &[3], DType::Float64, &[3.0, 5.0, N], 0.0);
    // np.setdiff1d(np.array([3, 2, 1], np.uint8), []) -> [1, 2, 3] (uint8)
    let u8s = cp::asarray(vec![3u8, 2, 1])?;
    assert_exact(
        &cp::setdiff1d(&u8s, &cp::zeros([0], DType::Float64)?)?,
        &[3],
        &[1u8, 2, 3],
    );
    assert!(dev == cp::current_device());
});

on_every_device!(lexsort_and_topk_match_numpy, |dev| {
    // np.lexsort(([1, 2, 1, 2, 1], [0, 0, 1, 1, 0])) -> [0, 4, 1, 2, 3]
    let k0 = cp::asarray(vec![1i32, 2, 1, 2, 1])?;
    let k1 = cp::asarray(vec![0i64, 0, 1, 1, 0])?;
    assert_exact(&cp::lexsort(&[&k0, &k1])?, &[5], &[0i64, 4, 1, 2, 3]);
    // np.lexsort(([3., nan, 1, 2], [1, 1, 1, 1], [2, 2, 1, 1])) -> [2, 3, 0, 1]
    let f = f64s(&[3.0, N, 1.0, 2.0]);
    let ones = cp::asarray(vec![1u8; 4])?;
    let last = cp::asarray(vec![2i16, 2, 1, 1])?;
    assert_exact(&cp::lexsort(&[&f, &ones, &last])?, &[4], &[2i64, 3, 0, 1]);
    // 2-D keys sort each row: np.lexsort((np.array([[1, 0, 1], [2, 2, 1]]),
    // np.array([[0, 0, 0], [1, 0, 1]]))) -> [[1, 0, 2], [1, 2, 0]]
    let a = cp::asarray(vec![vec![1i32, 0, 1], vec![2, 2, 1]])?;
    let b = cp::asarray(vec![vec![0i32, 0, 0], vec![1, 0, 1]])?;
    assert_exact(&cp::lexsort(&[&a, &b])?, &[2, 3], &[1i64, 0, 2, 1, 2, 0]);
    // A single key is a stable argsort; mismatched shapes and no keys fail.
    assert_exact(&cp::lexsort(&[&k0])?, &[5], &[0i64, 2, 4, 1, 3]);
    assert!(cp::lexsort(&[&k0, &f]).is_err());
    assert!(cp::lexsort(&[]).is_err());

    // topk along the last axis and a negative axis, with ties and NaN.
    let x = cp::asarray(vec![
        vec![4.0, 9.0, 1.0, 9.0, N],
        vec![0.0, -1.0, 3.0, 3.0, 2.0],
    ])?;
    // largest: NaN first, ties in index order.
    let (v, i) = cp::topk(&x, 3, -1, true)?;
    assert_close(
        &v,
        &[2, 3],
        DType::Float64,
        &[N, 9.0, 9.0, 3.0, 3.0, 2.0],
        0.0,
    );
    assert_exact(&i, &[2, 3], &[4i64, 1, 3, 2, 3, 4]);
    let (v, i) = cp::topk(&x, 2, 1, false)?;
    assert_close(&v, &[2, 2], DType::Float64, &[1.0, 4.0, -1.0, 0.0], 0.0);
    assert_exact(&i, &[2, 2], &[2i64, 0, 1, 0]);
    // Along axis 0 (-2) of the transposed view: columns of x.T are x's rows.
    let (v, i) = cp::topk(&x.t(), 1, -2, true)?;
    assert_close(&v, &[1, 2], DType::Float64, &[N, 3.0], 0.0);
    assert_exact(&i, &[1, 2], &[4i64, 2]);
    // Unsigned integers need no negation.
    let u = cp::asarray(vec![3u8, 250, 7, 250])?;
    let (v, i) = cp::topk(&u, 3, 0, true)?;
    assert_exact(&v, &[3], &[250u8, 250, 7]);
    assert_exact(&i, &[3], &[1i64, 3, 2]);
    let (v, i) = cp::topk(&u, 0, 0, true)?;
    assert_eq!((v.shape(), i.shape()), (&[0][..], &[0][..]));
    assert!(cp::topk(&u, 5, 0, true).is_err());
    assert!(cp::topk(&u, 1, 1, true).is_err());
    assert!(dev == cp::current_device());
});

/// Every function on random inputs of several dtypes and layouts; the
/// results in a fixed order so two devices can be compared.
fn sweep(seed: u64) -> cp::Result<Vec<Array>> {
    let mut out = Vec::new();
    // Floats with NaNs and repeats (values rounded to a coarse grid).
    let raw = rand(&[37, 41], DType::Float64, seed);
    let grid = cp::round(&cp::multiply(&raw, 20.0)?)?;
    let mask = cp::greater(rand(&[37, 41], DType::Float64, seed + 1), 0.8)?;
    let x = cp::where_(&mask, f64::NAN, &grid)?;
    let xt = x.t();
    for dt in [
        DType::Float32,
        DType::Float64,
        DType::Int32,
        DType::UInt8,
        DType::Float16,
    ] {
        let a = xt.astype(dt)?;
        let a = if dt.is_float() {
            a
        } else {
            cp::where_(&cp::isnan(&xt)?, 3, &a)?
        };
        let u = cp::unique_with(
            &a,
            UniqueOptions::new().index(true).inverse(true).counts(true),
        )?;
        out.push(u.values.clone());
        out.extend([u.index.unwrap(), u.inverse.unwrap(), u.counts.unwrap()]);
        out.push(cp::unique(&a)?);
        out.push(cp::unique_with(&a, UniqueOptions::new().equal_nan(false).counts(true))?.values);
        let sorted = cp::sort(&a.reshape([-1])?, 0)?;
        let needles = a.slice(s![..;3, 1..])?;
        out.push(cp::searchsorted(&sorted, &needles, Side::Left, None)?);
        out.push(cp::searchsorted(&sorted, &needles, Side::Right, None)?);
        let flat = a.reshape([-1])?;
        let order = cp::argsort(&flat, 0)?;
        out.push(cp::searchsorted(
            &flat,
            &needles,
            Side::Right,
            Some(&order),
        )?);
        out.push(cp::isin(&a, &needles, false)?);
        out.push(cp::setdiff1d(&a, &needles)?);
        out.push(cp::intersect1d(&a, &needles)?);
        out.push(cp::union1d(&needles, &a.slice(s![..5])?)?);
        out.push(cp::argwhere(&cp::greater(
            &a.astype(DType::Float64)?,
            5.0,
        )?)?);
        out.push(cp::partition(&a, 7, 0)?);
        out.push(cp::argpartition(&a, -3, -1)?);
        let (v, i) = cp::topk(&a, 5, 0, true)?;
        out.extend([v, i]);
        let (v, i) = cp::topk(&a, 4, -1, false)?;
        out.extend([v, i]);
    }
    let bins = cp::linspace(-20.0, 20.0, 17)?;
    out.push(cp::digitize(&x, &bins, false)?);
    out.push(cp::digitize(&x, &bins.slice(s![..;-1])?, true)?);
    let k1 = cp::remainder(
        &cp::multiply(rand(&[5, 300], DType::Float64, seed + 2), 4.0)?.astype(DType::Int32)?,
        3,
    )?;
    let k2 = cp::round_decimals(rand(&[5, 300], DType::Float32, seed + 3), 1)?;
    out.push(cp::lexsort(&[&k1, &k2])?);
    out.push(cp::lexsort(&[&k2.t(), &k1.t()])?);
    // Complex unique.
    let z = cp::add(
        &x.slice(s![..4])?,
        &cp::multiply(
            &x.slice(s![4..8])?,
            cp::num_complex::Complex64::new(0.0, 1.0),
        )?,
    )?;
    let u = cp::unique_with(&z, UniqueOptions::new().index(true).counts(true))?;
    out.extend([u.values, u.index.unwrap(), u.counts.unwrap()]);
    Ok(out)
}

#[test]
fn the_random_sweep_runs_on_the_cpu() {
    // The sweep's own calls are valid everywhere (the GPU test compares them).
    let out = cp::with_device(Device::Cpu, || sweep(test_seed("search-cpu"))).unwrap();
    assert!(out.len() > 100);
}

#[test]
fn gpu_matches_cpu_on_random_inputs_without_host_fallback() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("search");
    let cpu = cp::with_device(Device::Cpu, || sweep(seed)).unwrap();
    cp::cuda::reset_host_fallbacks();
    let gpu = cp::with_device(dev, || sweep(seed)).unwrap();
    cp::cuda::launch_pending().unwrap();
    common::assert_no_host_fallback("sorting and searching");
    assert_eq!(cpu.len(), gpu.len());
    for (k, (c, g)) in cpu.iter().zip(&gpu).enumerate() {
        assert_eq!(g.device(), dev, "result {k} left the GPU");
        assert_eq!(g.shape(), c.shape(), "result {k}: shape (seed {seed})");
        assert_eq!(g.dtype(), c.dtype(), "result {k}: dtype (seed {seed})");
        let (gv, cv) = (cvals(&g.to_device(&Device::Cpu).unwrap()), cvals(c));
        for (i, (a, b)) in gv.iter().zip(&cv).enumerate() {
            let same = |p: f64, q: f64| p == q || (p.is_nan() && q.is_nan());
            assert!(
                same(a.re, b.re) && same(a.im, b.im),
                "result {k}, element {i}: GPU {a}, CPU {b} (seed {seed})"
            );
        }
    }
}

#[test]
fn a_large_unique_and_searchsorted_agree_with_the_cpu() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("search-large");
    // 3 M int32 values in [0, 100000): several scan tiles and sort tiles.
    let n = 3 << 20;
    let host = cp::with_device(Device::Cpu, || {
        cp::multiply(rand(&[n], DType::Float64, seed), 50000.0)
            .and_then(|x| cp::add(&x, 50000.0))
            .and_then(|x| x.astype(DType::Int32))
    })
    .unwrap();
    let opts = UniqueOptions::new().index(true).inverse(true).counts(true);
    let c = cp::with_device(Device::Cpu, || cp::unique_with(&host, opts)).unwrap();
    cp::cuda::reset_host_fallbacks();
    let gx = host.to_device(&dev).unwrap();
    let g = cp::with_device(dev, || cp::unique_with(&gx, opts)).unwrap();
    let back = |a: &Array| a.to_device(&Device::Cpu).unwrap();
    assert_eq!(
        back(&g.values).to_vec::<i32>().unwrap(),
        c.values.to_vec::<i32>().unwrap()
    );
    for (gp, cp_) in [
        (&g.index, &c.index),
        (&g.inverse, &c.inverse),
        (&g.counts, &c.counts),
    ] {
        assert_eq!(
            i64s(&back(gp.as_ref().unwrap())),
            i64s(cp_.as_ref().unwrap())
        );
    }
    let needles = host.slice(s![..100000]).unwrap();
    let want = cp::with_device(Device::Cpu, || {
        cp::searchsorted(&c.values, &needles, Side::Right, None)
    })
    .unwrap();
    let got = cp::with_device(dev, || {
        cp::searchsorted(&g.values, &needles.to_device(&dev)?, Side::Right, None)
    })
    .unwrap();
    assert_eq!(i64s(&back(&got)), i64s(&want));
    common::assert_no_host_fallback("unique and searchsorted");
}
