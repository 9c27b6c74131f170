//! The GPU kernels of `put`, masked assignment and complex sort/argsort
//! against the CPU backend on fresh random inputs (NaNs, repeated and
//! negative indices, views). The seed is printed; set `CUPRITE_TEST_SEED`
//! to repeat a run. Skipped without a GPU (see `common::gpu_or_skip`).

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::num_complex::Complex64;
use cuprite::{s, Array, DType, Device, Error, PutMode};

/// A small xorshift generator.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in `lo..hi`.
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo) as u64) as i64
    }
    /// Mostly values from a small set (so duplicates, signed zeros,
    /// infinities and NaN are common), otherwise uniform in [-2, 2).
    fn float(&mut self) -> f64 {
        const SET: [f64; 8] = [
            -1.0,
            -0.0,
            0.0,
            0.5,
            1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        if self.next() % 3 == 0 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0
        } else {
            SET[(self.next() % SET.len() as u64) as usize]
        }
    }
}

/// The same data as a CPU and a GPU array.
fn twins(cpu: Array, gpu: Device) -> (Array, Array) {
    let g = cpu.to_device(&gpu).unwrap();
    (cpu, g)
}

/// Complex128 values of both arrays are equal, bit for bit except that
/// any NaN matches any NaN (a NaN never matches a number).
#[track_caller]
fn assert_same(cpu: &Array, gpu: &Array, what: &str) {
    assert_eq!(cpu.shape(), gpu.shape(), "{what}: shape");
    assert_eq!(cpu.dtype(), gpu.dtype(), "{what}: dtype");
    assert!(
        gpu.device().is_cuda(),
        "{what}: the GPU result is on {}",
        gpu.device()
    );
    let (c, g) = (cvals(cpu), cvals(&gpu.to_device(&Device::Cpu).unwrap()));
    let same = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits();
    for (i, (x, y)) in c.iter().zip(&g).enumerate() {
        assert!(
            same(x.re, y.re) && same(x.im, y.im),
            "{what}: element {i}: CPU {x}, GPU {y}"
        );
    }
}

fn complex_input(rng: &mut Rng, shape: &[usize], dtype: DType) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<Complex64> = (0..n)
        .map(|_| Complex64::new(rng.float(), rng.float()))
        .collect();
    cp::with_device(Device::Cpu, || {
        cp::asarray(v)?.reshape(shape.to_vec())?.astype(dtype)
    })
    .unwrap()
}

#[test]
fn complex_sort_and_argsort_match_the_cpu() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut rng = Rng::new(common::test_seed("complex_sort_and_argsort_match_the_cpu"));
    for dtype in [DType::Complex64, DType::Complex128] {
        for shape in [vec![1000], vec![7, 33, 5], vec![3, 1, 70_001], vec![1, 1]] {
            let (c, g) = twins(complex_input(&mut rng, &shape, dtype), dev);
            // Views too: reversed and strided along the last axis, transposed.
            let last = shape.len() - 1;
            let views: Vec<(&str, Array, Array)> = vec![
                ("whole", c.clone(), g.clone()),
                ("transposed", c.t(), g.t()),
                (
                    "reversed",
                    c.slice(s![.., ..;-2]).unwrap_or_else(|_| c.clone()),
                    g.slice(s![.., ..;-2]).unwrap_or_else(|_| g.clone()),
                ),
            ];
            for (what, cv, gv) in views {
                for axis in 0..=last as isize {
                    let name = format!("{dtype} {shape:?} {what} axis {axis}");
                    assert_same(
                        &cp::argsort(&cv, axis).unwrap(),
                        &cp::argsort(&gv, axis).unwrap(),
                        &format!("argsort {name}"),
                    );
                    assert_same(
                        &cp::sort(&cv, axis).unwrap(),
                        &cp::sort(&gv, axis).unwrap(),
                        &format!("sort {name}"),
                    );
                }
                assert_same(
                    &cp::sort(&cv, -1).unwrap(),
                    &cp::sort(&gv, -1).unwrap(),
                    &format!("sort {dtype} {shape:?} {what} axis -1"),
                );
            }
        }
    }
}

/// A random array of `dtype` (values from `Rng::float`, cast with NumPy's
/// rule) of `shape` on the CPU.
fn real_input(rng: &mut Rng, shape: &[usize], dtype: DType) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|_| {
            let x = rng.float();
            if dtype.is_integer() && !x.is_finite() {
                rng.int(-100, 100) as f64
            } else if dtype.is_integer() {
                (x * 50.0).round()
            } else {
                x
            }
        })
        .collect();
    cp::with_device(Device::Cpu, || {
        cp::asarray(v)?.reshape(shape.to_vec())?.astype(dtype)
    })
    .unwrap()
}

/// Values written into `dtype`: float64 (NaN included) for inexact
/// targets, int64 for the others (a NaN cast to an integer is undefined).
fn value_dtype(dtype: DType) -> DType {
    if dtype.is_inexact() {
        DType::Float64
    } else {
        DType::Int64
    }
}

fn indices(rng: &mut Rng, k: usize, lo: i64, hi: i64) -> Array {
    let v: Vec<i64> = (0..k).map(|_| rng.int(lo, hi)).collect();
    cp::asarray_on(v, Device::Cpu).unwrap()
}

#[test]
fn put_matches_the_cpu() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut rng = Rng::new(common::test_seed("put_matches_the_cpu"));
    for dtype in [
        DType::Float32,
        DType::Int16,
        DType::Complex128,
        DType::Bool,
        DType::Float64,
    ] {
        // Few indices (each compares with the later ones) and many (sorted
        // by target), with repeated and negative indices.
        for (k, shape) in [(40usize, [6usize, 10]), (9000, [50, 12]), (5000, [3, 3])] {
            for mode in [PutMode::Raise, PutMode::Wrap, PutMode::Clip] {
                for view in ["whole", "transposed", "strided"] {
                    let base = real_input(&mut rng, &shape, dtype);
                    let (mut cb, mut gb) = twins(base, dev);
                    let pick = |a: &Array| match view {
                        "whole" => a.clone(),
                        "transposed" => a.t(),
                        _ => a.slice(s![..;-1, 1..;2]).unwrap(),
                    };
                    let (mut cv, mut gv) = (pick(&cb), pick(&gb));
                    let n = cv.size() as i64;
                    let idx = match mode {
                        PutMode::Raise => indices(&mut rng, k, -n, n),
                        _ => indices(&mut rng, k, -3 * n, 3 * n),
                    };
                    // Values shorter than the indices (they cycle), float64
                    // with NaN, cast to the target's dtype.
                    let len = rng.int(1, 30) as usize;
                    let vals = real_input(&mut rng, &[len], value_dtype(dtype));
                    let (ci, gi) = twins(idx, dev);
                    let (cvals_, gvals) = twins(vals, dev);
                    cp::put(&mut cv, &ci, &cvals_, mode).unwrap();
                    cp::put(&mut gv, &gi, &gvals, mode).unwrap();
                    let what = format!("put {dtype} k={k} {shape:?} {mode:?} {view}");
                    assert_same(&cb, &gb, &what);
                    // A scalar value too.
                    cp::put(&mut cb, ci.slice(s![..5]).unwrap(), 3, PutMode::Wrap).unwrap();
                    cp::put(&mut gb, gi.slice(s![..5]).unwrap(), 3, PutMode::Wrap).unwrap();
                    assert_same(&cb, &gb, &format!("{what} scalar"));
                }
            }
        }
    }
}

#[test]
fn put_out_of_range_raises_and_writes_nothing_on_the_gpu() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut rng = Rng::new(common::test_seed(
        "put_out_of_range_raises_and_writes_nothing_on_the_gpu",
    ));
    let (c, g) = twins(real_input(&mut rng, &[4, 5], DType::Float32), dev);
    let before = c.copy().unwrap();
    let idx = vec![1i64, -3, 20, 7, -21];
    let (mut cv, mut gv) = (c.clone(), g.clone());
    let ce = cp::put(&mut cv, idx.clone(), 1.0, PutMode::Raise).unwrap_err();
    let ge = cp::put(
        &mut gv,
        cp::asarray_on(idx, dev).unwrap(),
        1.0,
        PutMode::Raise,
    )
    .unwrap_err();
    match (&ce, &ge) {
        (Error::IndexOutOfBounds { index: a, .. }, Error::IndexOutOfBounds { index: b, .. }) => {
            assert_eq!((a, b), (&20, &20))
        }
        _ => panic!("expected IndexOutOfBounds on both: CPU {ce:?}, GPU {ge:?}"),
    }
    assert_same(&before, &g, "nothing written");
}

#[test]
fn mask_assign_matches_the_cpu() {
    let Some(dev) = gpu_or_skip() else { return };
    let mut rng = Rng::new(common::test_seed("mask_assign_matches_the_cpu"));
    for dtype in [
        DType::Float32,
        DType::Int8,
        DType::Complex64,
        DType::Float64,
    ] {
        for shape in [vec![37usize], vec![9, 11, 4], vec![1000, 3]] {
            for view in ["whole", "reversed"] {
                for lead in 1..=shape.len() {
                    let base = real_input(&mut rng, &shape, dtype);
                    let (cb, gb) = twins(base, dev);
                    let pick = |a: &Array| match view {
                        "whole" => a.clone(),
                        _ => a.slice(s![..;-1]).unwrap(),
                    };
                    let (mut cv, mut gv) = (pick(&cb), pick(&gb));
                    let mshape = &shape[..lead];
                    let m: Vec<bool> = (0..mshape.iter().product::<usize>())
                        .map(|_| rng.next() % 3 == 0)
                        .collect();
                    let count = m.iter().filter(|&&b| b).count();
                    let mask =
                        cp::with_device(Device::Cpu, || cp::asarray(m)?.reshape(mshape.to_vec()))
                            .unwrap();
                    let (cm, gm) = twins(mask, dev);
                    let what = format!("mask_assign {dtype} {shape:?} lead {lead} {view}");
                    // A scalar, then values of the selection's shape (NaN included).
                    cv.mask_assign(&cm, -7).unwrap();
                    gv.mask_assign(&gm, -7).unwrap();
                    assert_same(&cb, &gb, &format!("{what} scalar"));
                    let mut vshape = vec![count];
                    vshape.extend_from_slice(&shape[lead..]);
                    let (cx, gx) = twins(real_input(&mut rng, &vshape, value_dtype(dtype)), dev);
                    cv.mask_assign(&cm, &cx).unwrap();
                    gv.mask_assign(&gm, &gx).unwrap();
                    assert_same(&cb, &gb, &format!("{what} values"));
                    // Trailing values broadcast over the selected rows.
                    if lead < shape.len() {
                        let (ct, gt) = twins(
                            real_input(&mut rng, &shape[lead..], value_dtype(dtype)),
                            dev,
                        );
                        cv.mask_assign(&cm, &ct).unwrap();
                        gv.mask_assign(&gm, &gt).unwrap();
                        assert_same(&cb, &gb, &format!("{what} broadcast"));
                    }
                    // And the masked read agrees.
                    assert_same(
                        &cv.mask(&cm).unwrap(),
                        &gv.mask(&gm).unwrap(),
                        &format!("{what} read"),
                    );
                }
            }
        }
    }
}
