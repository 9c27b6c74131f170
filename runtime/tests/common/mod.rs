//! Shared helpers for the runtime's behaviour tests.
//!
//! Every test body is written once and run on each backend with
//! [`on_every_device!`]: always on the CPU, and on CUDA device 0 when one is
//! usable. Set `CUPRITE_REQUIRE_GPU=1` to turn a missing GPU into a failure
//! (the GPU machine does).

#![allow(dead_code)]

use cuprite::num_complex::Complex64;
use cuprite::{Array, DType, Element, Order};

/// Asserts that the error `$e` is `cuprite::Error::$kind` raised by the
/// operation `$op`, printing the error when it is not.
#[macro_export]
macro_rules! assert_error {
    ($e:expr, $kind:ident, $op:literal) => {{
        let e = &$e;
        assert!(matches!(e, cuprite::Error::$kind { op: $op, .. }), "{e}");
    }};
}

/// Defines a module `$name` with a `cpu` and a `cuda` test running `$body`
/// with `$dev` set and the current device scoped to it.
#[macro_export]
macro_rules! on_every_device {
    ($name:ident, |$dev:ident| $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            fn run($dev: cuprite::Device) -> cuprite::Result<()> {
                cuprite::with_device($dev, || -> cuprite::Result<()> {
                    $body
                    #[allow(unreachable_code)]
                    Ok(())
                })
            }
            #[test]
            fn cpu() {
                run(cuprite::Device::Cpu).unwrap();
            }
            #[test]
            fn cuda() {
                if let Some(dev) = $crate::common::gpu_or_skip() {
                    run(dev).unwrap();
                }
            }
        }
    };
}

/// CUDA device 0 when usable; otherwise prints why the test is skipped
/// (or panics when `CUPRITE_REQUIRE_GPU` is set).
pub fn gpu_or_skip() -> Option<cuprite::Device> {
    if cuprite::device_count() > 0 {
        return Some(cuprite::Device::Cuda(0));
    }
    let why = cuprite::device::cuda_status().reason.clone();
    if std::env::var_os("CUPRITE_REQUIRE_GPU").is_some() {
        panic!("CUPRITE_REQUIRE_GPU is set but no CUDA device is usable: {why}");
    }
    eprintln!("skipped on CUDA: {why}");
    None
}

/// Asserts that no op this thread called went through the counted host
/// fallback since `cp::cuda::reset_host_fallbacks()` (tests beside it run
/// on other threads); `what` names the ops in the message.
#[track_caller]
pub fn assert_no_host_fallback(what: &str) {
    assert_eq!(
        cuprite::cuda::host_fallbacks_on_this_thread(),
        Vec::<(String, u64)>::new(),
        "{what} went through the host"
    );
}

/// Values of any real dtype as f64, in C order.
pub fn values_f64(a: &Array) -> Vec<f64> {
    a.astype(DType::Float64).unwrap().to_vec::<f64>().unwrap()
}

/// Checks shape, dtype and values within a relative tolerance. An expected
/// NaN must be matched by NaN; an unexpected NaN never passes.
#[track_caller]
pub fn assert_close(a: &Array, shape: &[usize], dtype: DType, expected: &[f64], rtol: f64) {
    assert_eq!(a.shape(), shape, "shape");
    assert_eq!(a.dtype(), dtype, "dtype");
    let got = values_f64(a);
    assert_eq!(got.len(), expected.len(), "element count");
    for (i, (&g, &e)) in got.iter().zip(expected).enumerate() {
        let ok = if e.is_nan() {
            g.is_nan()
        } else if e.is_infinite() {
            g == e
        } else {
            !g.is_nan() && (g - e).abs() <= rtol * e.abs().max(1e-300) + rtol * 1e-30
        };
        assert!(
            ok,
            "element {i}: got {g}, expected {e} (rtol {rtol}); all: {got:?}"
        );
    }
}

/// Checks shape, dtype and exact values.
#[track_caller]
pub fn assert_exact<T: Element>(a: &Array, shape: &[usize], expected: &[T]) {
    assert_eq!(a.shape(), shape, "shape");
    assert_eq!(a.dtype(), T::DTYPE, "dtype");
    assert_eq!(a.to_vec::<T>().unwrap(), expected);
}

/// Deterministic values in [-1, 1).
pub fn rnd(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
        | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// A random array of `dtype` (complex: random imaginary parts too) on the current device.
pub fn rand(shape: &[usize], dtype: DType, seed: u64) -> Array {
    let n: usize = shape.iter().product();
    let re = cuprite::from_shape_vec(shape, rnd(n, seed), Order::C).unwrap();
    if dtype.is_complex() {
        let im = cuprite::from_shape_vec(shape, rnd(n, seed + 99), Order::C).unwrap();
        let i = cuprite::asarray(Complex64::new(0.0, 1.0))
            .unwrap()
            .to_device(&re.device())
            .unwrap();
        cuprite::add(&re, cuprite::multiply(&im, &i).unwrap())
            .unwrap()
            .astype(dtype)
            .unwrap()
    } else {
        re.astype(dtype).unwrap()
    }
}

/// Values as complex128 in C order.
pub fn cvals(a: &Array) -> Vec<Complex64> {
    a.astype(DType::Complex128)
        .unwrap()
        .to_vec::<Complex64>()
        .unwrap()
}

/// The seed of a randomised test run: `CUPRITE_TEST_SEED` when set, else
/// the clock's; printed with `test`'s name so a failure can be replayed.
pub fn test_seed(test: &str) -> u64 {
    let seed = std::env::var("CUPRITE_TEST_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    eprintln!("{test}: seed {seed} (CUPRITE_TEST_SEED={seed} replays it)");
    seed
}
