//! Bessel functions of real order (`cp::special::{jv, yv, iv, ive, kv,
//! kve}`): against SciPy's values on every backend (fixtures written by
//! `tests/data/scipy/generate_bessel_order.py`, v in [-20, 50], x in
//! [0, 200]), the edges, float32, and the GPU against the CPU on random
//! orders and arguments.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use cuprite as cp;
use cuprite::{Array, DType};

use common::values_f64;

type BinFn = fn(&Array, &Array) -> cp::Result<Array>;

const FUNCTIONS: &[(&str, BinFn)] = &[
    ("jv", |v, x| cp::special::jv(v, x)),
    ("yv", |v, x| cp::special::yv(v, x)),
    ("iv", |v, x| cp::special::iv(v, x)),
    ("ive", |v, x| cp::special::ive(v, x)),
    ("kv", |v, x| cp::special::kv(v, x)),
    ("kve", |v, x| cp::special::kve(v, x)),
];

/// Relative error allowed against the fixture's scale (|f|, or the
/// envelope where J and Y oscillate: see the generator).
const RTOL: f64 = 1e-12;

fn fixtures() -> BTreeMap<String, Array> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/scipy/bessel_order.npz");
    cp::with_device(cp::Device::Cpu, || cp::load_npz(&path)).expect("bessel_order.npz loads")
}

/// Whether `got` is within `rtol * scale` of `want`; NaN never passes,
/// infinities exactly, values below 1e-290 are equal (SciPy's `jv`, `iv`
/// flush to 0 from about 1e-300 up, where these are still normal numbers).
fn close(got: f64, want: f64, rtol: f64, scale: f64) -> bool {
    if want.is_infinite() {
        got == want
    } else if got.abs() < 1e-290 && want.abs() < 1e-290 {
        true
    } else {
        !got.is_nan() && (got - want).abs() <= rtol * scale.max(want.abs())
    }
}

on_every_device!(real_order_bessel_matches_scipy, |dev| {
    let fx = fixtures();
    let mut failures = Vec::new();
    let mut worst = Vec::new();
    for &(name, f) in FUNCTIONS {
        let key = |k: &str| fx[&format!("{name}.{k}")].clone();
        let (v, x) = (key("v"), key("x"));
        let got = values_f64(&f(&v.to_device(&dev)?, &x.to_device(&dev)?)?);
        let (vs, xs) = (values_f64(&v), values_f64(&x));
        let (want, scale) = (values_f64(&key("f64")), values_f64(&key("scale")));
        let mut max_err: f64 = 0.0;
        for i in 0..want.len() {
            if !close(got[i], want[i], RTOL, scale[i]) {
                failures.push(format!(
                    "{name}({:e}, {:e}) on {dev}: got {:e}, SciPy {:e} (scale {:e})",
                    vs[i], xs[i], got[i], want[i], scale[i]
                ));
            } else if want[i].is_finite() && scale[i] > 0.0 {
                max_err = max_err.max((got[i] - want[i]).abs() / scale[i].max(want[i].abs()));
            }
        }
        worst.push(format!("{name} {max_err:.1e}"));
    }
    eprintln!("largest scaled errors on {dev}: {}", worst.join(", "));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
});

// The values at the edges: NaN in, infinite orders, x < 0, x = 0, x = inf.
on_every_device!(real_order_bessel_edges, |dev| {
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let v = cp::asarray(vec![
        nan, 1.0, inf, 0.5, 2.0, 3.0, 0.0, 2.5, -0.5, -1.5, -2.0, 1.0,
    ])?
    .to_device(&dev)?;
    let x = cp::asarray(vec![
        1.0, nan, 1.0, -1.0, -1.5, -1.5, 0.0, 0.0, 0.0, 0.0, 0.0, inf,
    ])?
    .to_device(&dev)?;
    let j = values_f64(&cp::special::jv(&v, &x)?);
    let y = values_f64(&cp::special::yv(&v, &x)?);
    let i = values_f64(&cp::special::iv(&v, &x)?);
    let k = values_f64(&cp::special::kv(&v, &x)?);
    for (name, got) in [("jv", &j), ("yv", &y), ("iv", &i), ("kv", &k)] {
        assert!(
            got[..4].iter().all(|g| g.is_nan()),
            "{name} of NaN/inf order/x < 0: {got:?}"
        );
    }
    // J_n(-x) = (-1)^n J_n(x) for integer n, as SciPy.
    let j2 = libm_like_j2(1.5);
    assert!((j[4] - j2).abs() < 1e-15, "jv(2, -1.5) = {}", j[4]);
    assert!(
        j[5] < 0.0 && i[5] < 0.0,
        "odd order at x < 0 changes sign: {} {}",
        j[5],
        i[5]
    );
    assert_eq!(&j[6..11], &[1.0, 0.0, inf, -inf, 0.0]);
    assert_eq!(&y[6..8], &[-inf, -inf]);
    assert_eq!(&i[6..11], &[1.0, 0.0, inf, -inf, 0.0]);
    assert!(
        k[6..11].iter().all(|&g| g == inf),
        "kv at 0: {:?}",
        &k[6..11]
    );
    assert_eq!((j[11], y[11], i[11], k[11]), (0.0, 0.0, inf, 0.0));
});

/// J_2(x) from J_0 and J_1 (`2/x J_1 - J_0`), for the sign check above.
fn libm_like_j2(x: f64) -> f64 {
    let j = |n: f64| {
        cp::with_device(cp::Device::Cpu, || {
            cp::special::jv(&cp::asarray(vec![n])?, &cp::asarray(vec![x])?)
        })
        .map(|a| values_f64(&a)[0])
        .unwrap()
    };
    2.0 / x * j(1.0) - j(0.0)
}

// float32 inputs give float32 results, the float64 values at the float32
// inputs rounded once.
on_every_device!(real_order_bessel_float32, |dev| {
    let v = cp::asarray(vec![0.5f32, -2.25, 10.0, 33.3])?.to_device(&dev)?;
    let x = cp::asarray(vec![3.0f32, 7.5, 0.25, 40.0])?.to_device(&dev)?;
    for &(name, f) in FUNCTIONS {
        let got = f(&v, &x)?;
        assert_eq!(got.dtype(), DType::Float32, "{name}");
        let want = f(&v.astype(DType::Float64)?, &x.astype(DType::Float64)?)?;
        let want: Vec<f64> = values_f64(&want).iter().map(|&w| w as f32 as f64).collect();
        common::assert_close(&got, &[4], DType::Float32, &want, 1e-6);
    }
});

// Orders and arguments that do not broadcast are an error.
on_every_device!(real_order_bessel_rejects_bad_shapes, |dev| {
    let v = cp::asarray(vec![1.0, 2.0, 3.0])?.to_device(&dev)?;
    let x = cp::asarray(vec![1.0, 2.0])?.to_device(&dev)?;
    assert!(cp::special::jv(&v, &x).is_err());
});

/// The scale an error is measured against for the random sweep: |f| and,
/// for J and Y, the envelope at |v| (computed on the CPU).
fn sweep_scale(name: &str, v: &[f64], x: &[f64], cpu: &[f64]) -> Vec<f64> {
    let abs_v: Vec<f64> = v.iter().map(|a| a.abs()).collect();
    let on_cpu = |f: BinFn| {
        cp::with_device(cp::Device::Cpu, || {
            f(&cp::asarray(abs_v.clone())?, &cp::asarray(x.to_vec())?)
        })
        .map(|a| values_f64(&a))
        .unwrap()
    };
    let (first, second) = match name {
        "jv" | "yv" => (on_cpu(FUNCTIONS[0].1), on_cpu(FUNCTIONS[1].1)),
        "iv" => (on_cpu(FUNCTIONS[2].1), on_cpu(FUNCTIONS[4].1)),
        "ive" => (on_cpu(FUNCTIONS[3].1), on_cpu(FUNCTIONS[5].1)),
        _ => return cpu.iter().map(|c| c.abs()).collect(),
    };
    (0..cpu.len())
        .map(|i| cpu[i].abs().max(first[i].abs() + second[i].abs()))
        .collect()
}

#[test]
fn real_order_bessel_gpu_matches_cpu() {
    let Some(gpu) = common::gpu_or_skip() else {
        return;
    };
    let seed = common::test_seed("real_order_bessel_gpu_matches_cpu");
    cp::cuda::reset_host_fallbacks();
    let n = 4000;
    let v: Vec<f64> = common::rnd(n, seed)
        .iter()
        .map(|r| 15.0 + 35.0 * r)
        .collect();
    let x: Vec<f64> = common::rnd(n, seed + 1)
        .iter()
        .map(|r| 100.0 * (r + 1.0))
        .collect();
    let mut failures = Vec::new();
    for &(name, f) in FUNCTIONS {
        for dt in [DType::Float64, DType::Float32] {
            let (va, xa) = cp::with_device(cp::Device::Cpu, || {
                Ok::<_, cp::Error>((
                    cp::asarray(v.clone())?.astype(dt)?,
                    cp::asarray(x.clone())?.astype(dt)?,
                ))
            })
            .unwrap();
            let cpu = cp::with_device(cp::Device::Cpu, || f(&va, &xa)).unwrap();
            let got =
                cp::with_device(gpu, || f(&va.to_device(&gpu)?, &xa.to_device(&gpu)?)).unwrap();
            assert_eq!(got.device(), gpu, "{name}: the result left the GPU");
            let (cpu, got) = (values_f64(&cpu), values_f64(&got));
            let (vs, xs) = (values_f64(&va), values_f64(&xa));
            let scale = sweep_scale(name, &vs, &xs, &cpu);
            let rtol = if dt == DType::Float64 { 1e-11 } else { 1e-6 };
            for i in 0..n {
                if !close(got[i], cpu[i], rtol, scale[i]) {
                    failures.push(format!(
                        "{name} {dt}({:e}, {:e}): GPU {:e}, CPU {:e}",
                        vs[i], xs[i], got[i], cpu[i]
                    ));
                }
            }
        }
    }
    common::assert_no_host_fallback("the real-order Bessel functions");
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(40)].join("\n")
    );
}
