//! `#[cp::jit::reduction]`: reductions written as Rust parts, on every
//! device, checked against folds computed here and (on a GPU) against the
//! CPU backend on random inputs.

use cuprite as cp;
use cuprite::{Array, DType};

use crate::common::rand;

#[cp::jit::reduction]
mod sum_squares {
    const IDENTITY: T = T::from_f64(0.0);
    fn map<T: cp::jit::Float>(x: T) -> T {
        x * x
    }
    fn combine<T: cp::jit::Float>(a: T, b: T) -> T {
        a + b
    }
}

/// The L2 norm: the post-map takes the square root of the folded sum.
#[cp::jit::reduction]
mod l2_norm {
    const IDENTITY: T = T::from_f64(0.0);
    fn map<T: cp::jit::Float>(x: T) -> T {
        x * x
    }
    fn combine<T: cp::jit::Float>(a: T, b: T) -> T {
        a + b
    }
    fn post<T: cp::jit::Float>(a: T) -> T {
        a.sqrt()
    }
}

#[cp::jit::reduction]
mod max_abs {
    const IDENTITY: f32 = 0.0;
    fn map(x: f32) -> f32 {
        x.abs()
    }
    fn combine(a: f32, b: f32) -> f32 {
        a.max(b)
    }
}

/// A weighted mean over two inputs: the post-map divides by the count.
#[cp::jit::reduction]
mod weighted_mean {
    const IDENTITY: f64 = 0.0;
    fn map(x: f64, w: f64) -> f64 {
        x * w
    }
    fn combine(a: f64, b: f64) -> f64 {
        a + b
    }
    fn post(a: f64, n: usize) -> f64 {
        a / n as f64
    }
}

/// The index of the largest element of a row of small non-negative
/// integers, packed into one f64 (value * 2^20 + index) so the accumulator
/// stays a scalar: an argmax with ties to the largest index.
#[cp::jit::reduction]
mod packed_argmax {
    const IDENTITY: f64 = -1.0;
    fn map(packed: f64) -> f64 {
        packed
    }
    fn combine(a: f64, b: f64) -> f64 {
        a.max(b)
    }
    fn post(a: f64) -> i64 {
        (a % 1048576.0) as i64
    }
}

fn host_f64(a: &Array) -> Vec<f64> {
    a.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

fn close(got: &[f64], want: &[f64], rtol: f64) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            !g.is_nan() && (g - w).abs() <= rtol * w.abs().max(1.0),
            "element {k}: {g} != {w}"
        );
    }
}

on_every_device!(sum_squares_over_all_axes_and_one, |dev| {
    for dtype in [DType::Float32, DType::Float64] {
        let x = rand(&[6, 7, 50], dtype, 3);
        let v = host_f64(&x);
        let total = sum_squares.call(&x)?;
        assert_eq!(total.dtype(), dtype);
        assert_eq!(total.shape(), &[] as &[usize]);
        let want: f64 = v.iter().map(|a| a * a).sum();
        close(&host_f64(&total), &[want], 1e-5);
        // Axis 1, kept: rows (i, k) fold over j.
        let rows = sum_squares.call_axes(&x, &[1], true)?;
        assert_eq!(rows.shape(), &[6, 1, 50]);
        let mut want = vec![0.0; 300];
        for i in 0..6 {
            for j in 0..7 {
                for k in 0..50 {
                    want[i * 50 + k] += v[(i * 7 + j) * 50 + k].powi(2);
                }
            }
        }
        close(&host_f64(&rows), &want, 1e-5);
        let last = sum_squares.call_axis(&x, -1)?;
        assert_eq!(last.shape(), &[6, 7]);
        if dev == cp::Device::Cpu && dtype == DType::Float32 {
            // The CPU folds left to right: bit for bit the sequential sum.
            let xs = x.to_vec::<f32>()?;
            let want: Vec<f32> = xs
                .chunks(50)
                .map(|c| c.iter().fold(0.0f32, |a, v| a + v * v))
                .collect();
            assert_eq!(last.to_vec::<f32>()?, want);
        }
    }
});

on_every_device!(l2_norm_max_abs_and_a_two_input_mean, |_dev| {
    let x = cp::asarray(vec![3.0f64, 4.0, 0.0, 12.0])?.reshape([2, 2])?;
    assert_eq!(l2_norm.call_axis(&x, 1)?.to_vec::<f64>()?, vec![5.0, 12.0]);
    let y = cp::asarray(vec![-7.5f32, 2.0, 7.25, -0.5])?;
    assert_eq!(max_abs.call(&y)?.to_vec::<f32>()?, vec![7.5]);
    let w = cp::asarray(vec![1.0f64, 2.0])?;
    // w broadcasts along the rows; n is 2 per output.
    let m = weighted_mean.call_axis((&x, &w), 1)?;
    close(&host_f64(&m), &[(3.0 + 8.0) / 2.0, 24.0 / 2.0], 1e-12);
    // A scalar input.
    let m = weighted_mean.call((&x, 0.5f64))?;
    close(&host_f64(&m), &[19.0 * 0.5 / 4.0], 1e-12);
});

on_every_device!(argmax_through_a_packed_accumulator, |_dev| {
    let vals = [3.0f64, 9.0, 1.0, 9.0, 0.0, 2.0, 5.0, 4.0];
    let packed: Vec<f64> = vals
        .iter()
        .enumerate()
        .map(|(i, v)| v * 1048576.0 + (i % 4) as f64)
        .collect();
    let x = cp::asarray(packed)?.reshape([2, 4])?;
    let idx = packed_argmax.call_axis(&x, 1)?;
    assert_eq!(idx.dtype(), DType::Int64);
    assert_eq!(idx.to_vec::<i64>()?, vec![3, 2]);
});

on_every_device!(gpu_agrees_with_the_cpu_on_random_inputs, |dev| {
    if dev == cp::Device::Cpu {
        return Ok(());
    }
    let cpu = cp::Device::Cpu;
    for dtype in [DType::Float32, DType::Float64] {
        let rtol = if dtype == DType::Float32 { 1e-4 } else { 1e-12 };
        let x = rand(&[33, 1000], dtype, 11);
        let xc = x.to_device(&cpu)?;
        for axes in [None, Some(0isize), Some(1)] {
            let (g, c) = match axes {
                None => (l2_norm.call(&x)?, l2_norm.call(&xc)?),
                Some(a) => (l2_norm.call_axis(&x, a)?, l2_norm.call_axis(&xc, a)?),
            };
            assert!(g.device().is_cuda());
            close(&host_f64(&g), &host_f64(&c), rtol);
            let (g, c) = (sum_squares.call(&x)?, sum_squares.call(&xc)?);
            close(&host_f64(&g), &host_f64(&c), rtol);
        }
    }
    let y = rand(&[1 << 20], DType::Float32, 5);
    let yc = y.to_device(&cpu)?;
    assert_eq!(
        max_abs.call(&y)?.to_vec::<f32>()?,
        max_abs.call(&yc)?.to_vec::<f32>()?,
        "a max is exact in every order"
    );
});

#[test]
fn misuse_is_an_error_naming_the_reduction() {
    let x = cp::asarray(vec![1i32, 2, 3]).unwrap();
    let e = sum_squares.call(&x).unwrap_err().to_string();
    assert!(e.contains("sum_squares") && e.contains("int32"), "{e}");
    let y = cp::asarray(vec![1.0f64]).unwrap();
    let e = weighted_mean.call(&y).unwrap_err().to_string();
    assert!(e.contains("weighted_mean") && e.contains("2 inputs"), "{e}");
    let e = weighted_mean
        .call((1.0f64, 2.0f64))
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be an array"), "{e}");
    let e = sum_squares.call_axis(&y, 3).unwrap_err().to_string();
    assert!(e.contains('3'), "{e}");
}

#[test]
fn the_parts_are_translated_to_device_functions() {
    let s = l2_norm.source();
    assert!(s.contains("T cp_jit_l2_norm_map(T x)"), "{s}");
    assert!(s.contains("T cp_jit_l2_norm_combine(T a, T b)"), "{s}");
    assert!(s.contains("T cp_jit_l2_norm_identity()"), "{s}");
    assert!(s.contains("sqrt(a)"), "{s}");
    assert_eq!(l2_norm.name(), "l2_norm");
}

on_every_device!(half_inputs_accumulate_in_f32, |dev| {
    // Squares of one: an f16 accumulator would stop at 2048, a bf16 one at
    // 256 (the counts are exact in the type).
    for (dtype, n) in [(DType::Float16, 5000), (DType::BFloat16, 1000)] {
        let x = cp::ones([n], dtype)?;
        let total = sum_squares.call(&x)?;
        assert_eq!(total.dtype(), dtype);
        assert_eq!(host_f64(&total), vec![n as f64], "{dtype}");
        let rows = l2_norm.call_axis(&x.reshape([n / 100, 100])?, 1)?;
        assert_eq!(rows.dtype(), dtype);
        assert_eq!(host_f64(&rows), vec![10.0; n / 100]);
    }
    if dev == cp::Device::Cpu {
        return Ok(());
    }
    let cpu = cp::Device::Cpu;
    for dtype in [DType::Float16, DType::BFloat16] {
        let x = rand(&[64, 300], DType::Float32, 17).astype(dtype)?;
        let xc = x.to_device(&cpu)?;
        for axes in [None, Some(1isize)] {
            let (g, c) = match axes {
                None => (sum_squares.call(&x)?, sum_squares.call(&xc)?),
                Some(a) => (
                    sum_squares.call_axis(&x, a)?,
                    sum_squares.call_axis(&xc, a)?,
                ),
            };
            // Both fold in f32 and round once to the half type.
            close(&host_f64(&g), &host_f64(&c), 1e-2);
        }
    }
});
