//! Metamorphic identities on generated inputs, on every device: reshape
//! round trips, transpose twice, sort idempotent, ifft(fft(x)) == x, and
//! a @ solve(a, b) == b for well-conditioned a.

use super::check::cases;
use super::strategies::{array_spec, ArraySpec};
use cuprite as cp;
use cuprite::num_complex::Complex64;
use cuprite::{Array, DType, Device};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn devices() -> Vec<Device> {
    let mut d = vec![Device::Cpu];
    if cp::device_count() > 0 {
        d.push(Device::Cuda(0));
    }
    d
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    })
}

fn values(a: &Array) -> Vec<Complex64> {
    a.astype(DType::Complex128).unwrap().to_vec().unwrap()
}

/// Same bits where exactness is expected (NaN equal to NaN).
fn identical(a: &Array, b: &Array) -> bool {
    a.shape() == b.shape()
        && a.dtype() == b.dtype()
        && values(a).iter().zip(values(b)).all(|(x, y)| {
            (x.re == y.re || x.re.is_nan() && y.re.is_nan())
                && (x.im == y.im || x.im.is_nan() && y.im.is_nan())
        })
}

fn check_all(spec: impl Strategy<Value = ArraySpec>, law: impl Fn(&Array) -> Result<(), String>) {
    for device in devices() {
        runner()
            .run(&spec, |s| {
                let a = s.build(device).unwrap();
                cp::with_device(device, || law(&a))
                    .map_err(|m| TestCaseError::fail(format!("{device:?}: {m}")))
            })
            .unwrap();
    }
}

#[test]
fn reshape_round_trips() {
    check_all(array_spec(), |a| {
        let flat = a.reshape([-1isize]).map_err(|e| e.to_string())?;
        let back = flat
            .reshape(a.shape().to_vec())
            .map_err(|e| e.to_string())?;
        identical(a, &back)
            .then_some(())
            .ok_or("reshape(-1) then back changed the array".into())
    });
}

#[test]
fn transpose_twice_is_identity() {
    check_all(array_spec(), |a| {
        let back = a.transpose().transpose();
        identical(a, &back).then_some(()).ok_or("a.T.T != a".into())
    });
}

#[test]
fn sort_is_idempotent() {
    check_all(array_spec(), |a| {
        if a.ndim() == 0 {
            return Ok(());
        }
        let once = match cp::sort(a, -1) {
            Ok(s) => s,
            Err(_) => return Ok(()),
        };
        let twice = cp::sort(&once, -1).map_err(|e| e.to_string())?;
        identical(&once, &twice)
            .then_some(())
            .ok_or("sort(sort(a)) != sort(a)".into())
    });
}

#[test]
fn ifft_inverts_fft() {
    let finite_float = super::strategies::spec_of(
        Just(DType::Float64),
        prop::collection::vec(1usize..=5, 1..=3),
    );
    check_all(finite_float, |a| {
        // The identity holds for finite values only.
        let a = cp::nan_to_num(a).map_err(|e| e.to_string())?;
        let a = cp::clip(&a, -1e3, 1e3).map_err(|e| e.to_string())?;
        let back = cp::fft::ifft(&cp::fft::fft(&a).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
        let (x, y) = (values(&a), values(&back));
        let ok = x
            .iter()
            .zip(&y)
            .all(|(p, q)| (p - q).norm() <= 1e-9 * (1.0 + p.norm()));
        ok.then_some(())
            .ok_or(format!("ifft(fft(a)) != a: {x:?} vs {y:?}"))
    });
}

#[test]
fn matmul_of_solve_gives_b() {
    let k = 1usize..=4;
    let spec = (k, any::<u64>());
    for device in devices() {
        runner()
            .run(&spec, |(k, seed)| {
                cp::with_device(device, || {
                    // a = I*k + small off-diagonal values: well conditioned.
                    let off: Vec<f64> = (0..k * k)
                        .map(|i| ((seed >> (i % 60)) & 7) as f64 / 16.0 - 0.2)
                        .collect();
                    let off = cp::from_shape_vec([k, k], off, cp::Order::C)
                        .unwrap()
                        .to_device(&device)
                        .unwrap();
                    let diag =
                        cp::multiply(cp::eye(k, None, 0, DType::Float64).unwrap(), k as f64 + 1.0)
                            .unwrap();
                    let a = cp::add(&off, &diag).unwrap();
                    let b = cp::arange(k as i64)
                        .unwrap()
                        .astype(DType::Float64)
                        .unwrap();
                    let x = cp::linalg::solve(&a, &b).unwrap();
                    let back = cp::matmul(&a, &x).unwrap();
                    let (p, q) = (values(&b), values(&back));
                    let ok = p
                        .iter()
                        .zip(&q)
                        .all(|(u, v)| (u - v).norm() <= 1e-10 * (1.0 + u.norm()));
                    prop_assert!(ok, "{device:?}: a @ solve(a, b) = {q:?}, b = {p:?}");
                    Ok(())
                })
            })
            .unwrap();
    }
}
