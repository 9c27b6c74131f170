//! cp::random on every backend: reproducibility, moments and
//! Kolmogorov-Smirnov statistics of 10^5 - 10^6 samples, ranges, and
//! permutations / choices; on CUDA these run the generated Philox kernels
//! (uniform, normal, exponential, integers in 32- and 64-bit ranges) and
//! are compared with the CPU stream, which they must reproduce.

mod common;
use common::*;
use cuprite as cp;
use cuprite::random::{self, default_rng, Generator};
use cuprite::{Array, DType, Device, Error};

fn f64s(a: &Array) -> Vec<f64> {
    values_f64(a)
}

fn i128s(a: &Array) -> Vec<i128> {
    match a.dtype() {
        DType::UInt64 => a
            .to_vec::<u64>()
            .unwrap()
            .into_iter()
            .map(|v| v as i128)
            .collect(),
        _ => a
            .astype(DType::Int64)
            .unwrap()
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(|v| v as i128)
            .collect(),
    }
}

fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n;
    (m, var)
}

/// erfc with fractional error below 1.2e-7 (Numerical Recipes' `erfcc`).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.26551223
        + t * (1.00002368
            + t * (0.37409196
                + t * (0.09678418
                    + t * (-0.18628806
                        + t * (0.27886807
                            + t * (-1.13520398
                                + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    let ans = t * poly.exp();
    if x >= 0.0 {
        ans
    } else {
        2.0 - ans
    }
}

fn normal_cdf(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// The Kolmogorov-Smirnov statistic D of `v` against the CDF `f`.
fn ks(mut v: Vec<f64>, f: impl Fn(f64) -> f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len() as f64;
    let mut d: f64 = 0.0;
    for (i, &x) in v.iter().enumerate() {
        let fx = f(x);
        d = d.max((i as f64 + 1.0) / n - fx).max(fx - i as f64 / n);
    }
    d
}

/// The critical D at significance 0.001 (asymptotic: 1.949 / sqrt(n)).
fn ks_critical(n: usize) -> f64 {
    1.949 / (n as f64).sqrt()
}

on_every_device!(same_seed_same_numbers, |dev| {
    let draw = |g: &mut Generator| -> cp::Result<Vec<Array>> {
        Ok(vec![
            g.random_as(100, DType::Float32)?,
            g.random_as([3, 7], DType::Float64)?,
            g.uniform_as(-1.0, 3.0, 50, DType::Float64)?,
            g.standard_normal_as(33, DType::Float32)?,
            g.normal_as(5.0, 2.0, 21, DType::Float64)?,
            g.exponential_as(2.0, 17, DType::Float32)?,
            g.integers_as(-3, 9, 40, DType::Int32)?,
            g.integers_as(0, i64::MAX, 9, DType::Int64)?,
            g.permutation(25)?,
            g.choice(30, 10, false)?,
        ])
    };
    let a = draw(&mut default_rng(2024))?;
    let b = draw(&mut default_rng(2024))?;
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.device(), dev);
        assert_eq!(x.shape(), y.shape());
        assert_eq!(x.dtype(), y.dtype());
        assert_eq!(f64s(x), f64s(y), "same seed, same numbers");
    }
    let c = draw(&mut default_rng(2025))?;
    for (x, y) in a.iter().zip(&c) {
        assert_ne!(f64s(x), f64s(y), "different seeds differ");
    }
    // Successive calls continue the stream (no repeats).
    let mut g = default_rng(1);
    let first = f64s(&g.random_as(8, DType::Float64)?);
    let second = f64s(&g.random_as(8, DType::Float64)?);
    assert_ne!(first, second);
    // The position counts whole Philox blocks: 4 float32 or 2 float64 per block.
    let mut g = default_rng(1);
    g.random_as(10, DType::Float32)?;
    assert_eq!(g.position(), 3);
    g.random_as(3, DType::Float64)?;
    assert_eq!(g.position(), 5);
    g.integers_as(0, 10, 5, DType::Int64)?;
    assert_eq!(g.position(), 7);
    // Replaying from a saved position gives the same values.
    let mut h = default_rng(1);
    h.set_position(5);
    let again = f64s(&h.integers_as(0, 10, 5, DType::Int64)?);
    h.set_position(5);
    assert_eq!(again, f64s(&h.integers_as(0, 10, 5, DType::Int64)?));
    assert_eq!(h.seed(), 1);
});

on_every_device!(uniform_moments_and_ks, |_dev| {
    let n = 1_000_000;
    let mut g = default_rng(7);
    for dt in [DType::Float32, DType::Float64] {
        let x = g.random_as(n, dt)?;
        assert_eq!((x.shape(), x.dtype()), (&[n][..], dt));
        let v = f64s(&x);
        assert!(v.iter().all(|&u| (0.0..1.0).contains(&u)));
        let (m, var) = mean_var(&v);
        // Standard errors: sqrt(1/12 / n) for the mean, sqrt((1/80 - 1/144) / n) for the variance.
        assert!(
            (m - 0.5).abs() < 5.0 * (1.0 / 12.0 / n as f64).sqrt(),
            "{dt} mean {m}"
        );
        let se_var = ((1.0 / 80.0 - 1.0 / 144.0) / n as f64).sqrt();
        assert!((var - 1.0 / 12.0).abs() < 5.0 * se_var, "{dt} var {var}");
        let d = ks(v[..100_000].to_vec(), |u| u.clamp(0.0, 1.0));
        assert!(d < ks_critical(100_000), "{dt} KS D = {d}");
    }
    // uniform(low, high)
    let x = g.uniform_as(-2.0, 6.0, n, DType::Float64)?;
    let v = f64s(&x);
    assert!(v.iter().all(|&u| (-2.0..6.0).contains(&u)));
    let (m, var) = mean_var(&v);
    assert!(
        (m - 2.0).abs() < 5.0 * (64.0 / 12.0 / n as f64).sqrt(),
        "mean {m}"
    );
    assert!((var - 64.0 / 12.0).abs() < 0.02, "var {var}");
    let d = ks(v[..100_000].to_vec(), |u| ((u + 2.0) / 8.0).clamp(0.0, 1.0));
    assert!(d < ks_critical(100_000), "KS D = {d}");
});

on_every_device!(normal_and_exponential_moments_and_ks, |_dev| {
    let n = 1_000_000;
    let mut g = default_rng(99);
    for dt in [DType::Float32, DType::Float64] {
        let v = f64s(&g.standard_normal_as(n, dt)?);
        assert!(v.iter().all(|z| z.is_finite()));
        let (m, var) = mean_var(&v);
        assert!(m.abs() < 5.0 / (n as f64).sqrt(), "{dt} mean {m}");
        // The variance estimate's standard error is sqrt(2 / n).
        assert!(
            (var - 1.0).abs() < 5.0 * (2.0 / n as f64).sqrt(),
            "{dt} var {var}"
        );
        let d = ks(v[..100_000].to_vec(), normal_cdf);
        assert!(d < ks_critical(100_000), "{dt} KS D = {d}");
        // Both Box-Muller outputs are used: odd and even positions alike.
        let odd: Vec<f64> = v.iter().skip(1).step_by(2).take(50_000).copied().collect();
        let d = ks(odd, normal_cdf);
        assert!(d < ks_critical(50_000), "{dt} odd positions KS D = {d}");
    }
    let v = f64s(&g.normal_as(3.0, 0.5, n, DType::Float64)?);
    let (m, var) = mean_var(&v);
    assert!((m - 3.0).abs() < 5.0 * 0.5 / (n as f64).sqrt(), "mean {m}");
    assert!(
        (var - 0.25).abs() < 5.0 * 0.25 * (2.0 / n as f64).sqrt(),
        "var {var}"
    );
    for dt in [DType::Float32, DType::Float64] {
        let v = f64s(&g.exponential_as(2.0, n, dt)?);
        assert!(v.iter().all(|&e| e >= 0.0 && e.is_finite()));
        let (m, var) = mean_var(&v);
        // Mean 2 (SE 2 / sqrt(n)), variance 4 (SE sqrt(8 * 4^2 / n) from the 4th moment 24 * 2^4).
        assert!(
            (m - 2.0).abs() < 5.0 * 2.0 / (n as f64).sqrt(),
            "{dt} mean {m}"
        );
        assert!(
            (var - 4.0).abs() < 5.0 * (20.0 * 16.0 / n as f64).sqrt(),
            "{dt} var {var}"
        );
        let d = ks(v[..100_000].to_vec(), |x| 1.0 - (-x / 2.0).exp());
        assert!(d < ks_critical(100_000), "{dt} KS D = {d}");
    }
    // scale 0 gives the location exactly.
    assert!(f64s(&g.normal_as(1.5, 0.0, 10, DType::Float64)?)
        .iter()
        .all(|&x| x == 1.5));
});

on_every_device!(integers_in_range_and_covering, |_dev| {
    let mut g = default_rng(5);
    for dt in [
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::UInt8,
        DType::UInt32,
    ] {
        let x = g.integers_as(0, 10, 10_000, dt)?;
        assert_eq!(x.dtype(), dt);
        let v = i128s(&x);
        let mut counts = [0usize; 10];
        for &k in &v {
            assert!((0..10).contains(&k), "{dt}: {k}");
            counts[k as usize] += 1;
        }
        // Each value ~1000 times (binomial SD 30).
        assert!(
            counts.iter().all(|&c| (850..1150).contains(&c)),
            "{dt}: {counts:?}"
        );
    }
    // The full ranges of small dtypes.
    let v = i128s(&g.integers_as(-128, 128, 20_000, DType::Int8)?);
    assert!(v.iter().all(|&k| (-128..128).contains(&k)));
    assert!(v.contains(&-128) && v.contains(&127));
    let v = i128s(&g.integers_as(0, 256, 20_000, DType::UInt8)?);
    assert!(v.contains(&0) && v.contains(&255));
    // A 64-bit range (two words per value): mean and both halves hit.
    let v = i128s(&g.integers_as(i64::MIN, i64::MAX, 100_000, DType::Int64)?);
    let neg = v.iter().filter(|&&k| k < 0).count();
    assert!((48_000..52_000).contains(&neg), "{neg}");
    let v = i128s(&g.integers_as(0, 3_000_000_000_000, 100_000, DType::UInt64)?);
    assert!(v.iter().all(|&k| (0..3_000_000_000_000).contains(&k)));
    let m = v.iter().map(|&k| k as f64).sum::<f64>() / v.len() as f64;
    assert!((m / 1.5e12 - 1.0).abs() < 0.01, "{m}");
    // A range just above 2^31: rejection happens often (about half of the
    // words below the threshold), results stay uniform.
    let r: i64 = (1 << 31) + 1;
    let v = f64s(&g.integers_as(0, r, 200_000, DType::Int64)?);
    let d = ks(v, |x| ((x + 1.0) / r as f64).clamp(0.0, 1.0));
    assert!(d < ks_critical(200_000), "KS D = {d}");
    // A single value.
    assert_eq!(i128s(&g.integers_as(4, 5, 7, DType::Int16)?), vec![4; 7]);
});

on_every_device!(permutations_choices_shuffles, |dev| {
    let mut g = default_rng(11);
    for n in [0usize, 1, 2, 10, 1000] {
        let p = g.permutation(n)?;
        assert_eq!(
            (p.shape(), p.dtype(), p.device()),
            (&[n][..], DType::Int64, dev)
        );
        let mut v = p.to_vec::<i64>()?;
        v.sort();
        assert_eq!(
            v,
            (0..n as i64).collect::<Vec<_>>(),
            "a permutation of 0..{n}"
        );
    }
    // Every position receives every value (a shuffle, not a rotation).
    let mut first = std::collections::HashSet::new();
    for _ in 0..200 {
        first.insert(g.permutation(5)?.to_vec::<i64>()?[0]);
    }
    assert_eq!(first.len(), 5);
    // choice with replacement: in range, repeats allowed.
    let c = g.choice(5, [20, 10], true)?;
    assert_eq!(c.shape(), &[20, 10]);
    let v = c.to_vec::<i64>()?;
    assert!(v.iter().all(|&k| (0..5).contains(&k)));
    // without replacement: distinct.
    let c = g.choice(100, 60, false)?.to_vec::<i64>()?;
    let set: std::collections::HashSet<_> = c.iter().collect();
    assert_eq!(set.len(), 60);
    assert!(c.iter().all(|&k| (0..100).contains(&k)));
    let all = g.choice(7, 7, false)?.to_vec::<i64>()?;
    let mut s = all.clone();
    s.sort();
    assert_eq!(s, (0..7).collect::<Vec<i64>>());
    // choice from an array.
    let a = cp::asarray([10.0, 20.0, 30.0])?;
    let c = g.choice_from(&a, [2, 2], true)?;
    assert_eq!((c.shape(), c.dtype()), (&[2, 2][..], DType::Float64));
    assert!(f64s(&c).iter().all(|x| [10.0, 20.0, 30.0].contains(x)));
    let c = g.choice_from(&a, 3, false)?;
    let mut v = f64s(&c);
    v.sort_by(|a, b| a.total_cmp(b));
    assert_eq!(v, vec![10.0, 20.0, 30.0]);
    // shuffle: rows move together; the multiset of rows is unchanged.
    let mut m = cp::arange(20)?.reshape([10, 2])?;
    g.shuffle(&mut m)?;
    let v = m.to_vec::<i64>()?;
    let mut rows: Vec<(i64, i64)> = v.chunks(2).map(|r| (r[0], r[1])).collect();
    assert!(rows.iter().all(|&(a, b)| b == a + 1 && a % 2 == 0));
    rows.sort();
    assert_eq!(
        rows,
        (0..10).map(|i| (2 * i, 2 * i + 1)).collect::<Vec<_>>()
    );
    // permuted: a shuffled copy, the input untouched.
    let x = cp::arange(6)?;
    let y = g.permuted(&x)?;
    assert!(!y.shares_memory(&x));
    assert_eq!(x.to_vec::<i64>()?, (0..6).collect::<Vec<i64>>());
    // A non-contiguous view shuffles in place through the view.
    let base = cp::arange(12)?.reshape([4, 3])?;
    let mut col = base.slice(cuprite::s![.., 1])?;
    g.shuffle(&mut col)?;
    let mut v = col.to_vec::<i64>()?;
    v.sort();
    assert_eq!(v, vec![1, 4, 7, 10]);
    let b = base.to_vec::<i64>()?;
    assert_eq!(
        b.iter().step_by(3).copied().collect::<Vec<_>>(),
        vec![0, 3, 6, 9]
    );
});

on_every_device!(zero_size_and_shapes, |_dev| {
    let mut g = default_rng(3);
    let x = g.random_as([0, 5], DType::Float32)?;
    assert_eq!(x.shape(), &[0, 5]);
    assert_eq!(g.position(), 0, "no numbers drawn, no advance");
    let x = g.integers_as(0, 3, [2, 0], DType::Int32)?;
    assert_eq!(x.shape(), &[2, 0]);
    assert_eq!(g.choice(0, 0, false)?.shape(), &[0]);
    assert_eq!(g.choice(0, [0], true)?.shape(), &[0]);
    // A 0-d result (shape ()).
    let s = g.standard_normal_as((), DType::Float64)?;
    assert_eq!(s.shape(), &[] as &[usize]);
    assert!(s.item::<f64>()?.is_finite());
});

on_every_device!(errors_name_the_problem, |_dev| {
    let mut g = default_rng(0);
    // Wrong dtypes.
    let e = g.random_as(3, DType::Int32).unwrap_err();
    assert!(
        matches!(
            e,
            Error::DType {
                op: "Generator::random",
                ..
            }
        ),
        "{e}"
    );
    assert!(matches!(
        g.standard_normal_as(3, DType::Float16).unwrap_err(),
        Error::DType { .. }
    ));
    assert!(matches!(
        g.exponential_as(1.0, 3, DType::Complex64).unwrap_err(),
        Error::DType { .. }
    ));
    let e = g.integers_as(0, 3, 3, DType::Float32).unwrap_err();
    assert!(e.to_string().contains("integer"), "{e}");
    assert!(matches!(
        g.integers_as(0, 2, 3, DType::Bool).unwrap_err(),
        Error::DType { .. }
    ));
    // low >= high.
    let e = g.integers_as(5, 5, 3, DType::Int64).unwrap_err();
    assert!(e.to_string().contains("less than"), "{e}");
    assert!(g.uniform_as(1.0, 1.0, 3, DType::Float64).is_err());
    assert!(g.uniform_as(2.0, 1.0, 3, DType::Float64).is_err());
    assert!(g.uniform_as(0.0, f64::INFINITY, 3, DType::Float64).is_err());
    // Bounds outside the dtype.
    let e = g.integers_as(0, 300, 3, DType::UInt8).unwrap_err();
    assert!(e.to_string().contains("uint8"), "{e}");
    assert!(g.integers_as(-1, 3, 3, DType::UInt32).is_err());
    // Negative or non-finite scales.
    assert!(g.normal_as(0.0, -1.0, 3, DType::Float64).is_err());
    assert!(g.normal_as(f64::NAN, 1.0, 3, DType::Float64).is_err());
    assert!(g.exponential_as(-2.0, 3, DType::Float32).is_err());
    // Too many distinct samples; an empty population.
    let e = g.choice(3, 4, false).unwrap_err();
    assert!(e.to_string().contains("without replacement"), "{e}");
    assert!(g.choice(0, 1, true).is_err());
    // choice_from needs a 1-D array; shuffle needs an axis.
    let m = cp::zeros([2, 2], DType::Float64)?;
    assert!(matches!(
        g.choice_from(&m, 1, true).unwrap_err(),
        Error::Shape { .. }
    ));
    let mut s = cp::asarray(1.0)?;
    assert!(g.shuffle(&mut s).is_err());
    // Errors do not advance the stream.
    assert_eq!(g.position(), 0);
    // The widest range of a dtype is fine.
    assert!(g.integers_as(0, 256, 3, DType::UInt8).is_ok());
});

/// The legacy functions share one generator; one test owns it.
#[test]
fn legacy_functions_follow_seed() {
    let mut devices = vec![Device::Cpu];
    devices.extend(gpu_or_skip());
    for dev in devices {
        cp::with_device(dev, || -> cp::Result<()> {
            random::seed(42);
            let a = random::rand_as([4, 5], DType::Float64)?;
            let b = random::randn_as(7, DType::Float32)?;
            let c = random::randint_as(0, 10, 9, DType::Int64)?;
            random::seed(42);
            assert_eq!(f64s(&a), f64s(&random::rand_as([4, 5], DType::Float64)?));
            assert_eq!(f64s(&b), f64s(&random::randn_as(7, DType::Float32)?));
            assert_eq!(f64s(&c), f64s(&random::randint_as(0, 10, 9, DType::Int64)?));
            assert_eq!(a.shape(), &[4, 5]);
            assert_eq!(a.device(), dev);
            assert!(i128s(&c).iter().all(|&k| (0..10).contains(&k)));
            // The legacy stream is the Generator's stream for the same seed.
            let mut g = default_rng(42);
            assert_eq!(f64s(&a), f64s(&g.random_as([4, 5], DType::Float64)?));
            assert!(random::randint_as(3, 3, 1, DType::Int64).is_err());
            assert!(random::rand_as(1, DType::Int8).is_err());
            assert_eq!(random::rand(3)?.dtype(), DType::Float64);
            assert_eq!(random::random(3)?.dtype(), DType::Float64);
            assert_eq!(random::randn(2)?.dtype(), DType::Float64);
            assert_eq!(random::randint(0, 2, 2)?.dtype(), DType::Int64);
            Ok(())
        })
        .unwrap();
    }
}

type DrawFn = Box<dyn Fn(&mut Generator) -> cp::Result<Array>>;

/// CPU and GPU evaluate the same counter-based stream: integers, uniforms
/// and permutations agree exactly, normal and exponential values to rounding.
#[test]
fn cuda_reproduces_the_cpu_stream() {
    let Some(dev) = gpu_or_skip() else { return };
    let n = 1_000_003; // not a multiple of 4: a partial last block
    let draws: Vec<(&str, DrawFn, f64)> = vec![
        (
            "random f32",
            Box::new(move |g| g.random_as(n, DType::Float32)),
            0.0,
        ),
        (
            "random f64",
            Box::new(move |g| g.random_as(n, DType::Float64)),
            0.0,
        ),
        (
            "uniform f32",
            Box::new(move |g| g.uniform_as(-3.0, 7.5, n, DType::Float32)),
            0.0,
        ),
        (
            "uniform f64",
            Box::new(move |g| g.uniform_as(-3.0, 7.5, n, DType::Float64)),
            0.0,
        ),
        (
            "normal f32",
            Box::new(move |g| g.normal_as(1.0, 3.0, n, DType::Float32)),
            1e-5,
        ),
        (
            "normal f64",
            Box::new(move |g| g.standard_normal_as(n, DType::Float64)),
            1e-13,
        ),
        (
            "exponential f32",
            Box::new(move |g| g.exponential_as(2.0, n, DType::Float32)),
            1e-5,
        ),
        (
            "exponential f64",
            Box::new(move |g| g.exponential_as(2.0, n, DType::Float64)),
            1e-13,
        ),
        (
            "integers i32",
            Box::new(move |g| g.integers_as(-7, 100, n, DType::Int32)),
            0.0,
        ),
        (
            "integers i8",
            Box::new(move |g| g.integers_as(-128, 128, n, DType::Int8)),
            0.0,
        ),
        (
            "integers u16",
            Box::new(move |g| g.integers_as(0, 65536, n, DType::UInt16)),
            0.0,
        ),
        (
            "integers 2^31+1",
            Box::new(move |g| g.integers_as(0, (1 << 31) + 1, n, DType::Int64)),
            0.0,
        ),
        (
            "integers i64 wide",
            Box::new(move |g| g.integers_as(i64::MIN, i64::MAX, n, DType::Int64)),
            0.0,
        ),
        (
            "integers u64",
            Box::new(move |g| g.integers_as(5, i64::MAX, n, DType::UInt64)),
            0.0,
        ),
        ("permutation", Box::new(|g| g.permutation(1000)), 0.0),
        ("choice", Box::new(|g| g.choice(50, 20, false)), 0.0),
    ];
    let mut cpu_g = default_rng(777);
    let mut gpu_g = default_rng(777);
    for (name, f, tol) in &draws {
        let want = cp::with_device(Device::Cpu, || f(&mut cpu_g)).unwrap();
        let got = cp::with_device(dev, || f(&mut gpu_g)).unwrap();
        assert_eq!(got.device(), dev, "{name}");
        assert_eq!(
            (got.shape(), got.dtype()),
            (want.shape(), want.dtype()),
            "{name}"
        );
        assert_eq!(cpu_g.position(), gpu_g.position(), "{name}");
        if got.dtype().is_integer() {
            assert_eq!(i128s(&got), i128s(&want), "{name}");
            continue;
        }
        let (g, w) = (f64s(&got), f64s(&want));
        for (i, (a, b)) in g.iter().zip(&w).enumerate() {
            assert!(
                !a.is_nan() && (a - b).abs() <= tol * b.abs().max(1.0),
                "{name} value {i}: GPU {a} vs CPU {b}"
            );
        }
    }
}

// NumPy's defaults: float64 and int64; the `_as` forms give the same
// stream in the dtype asked for.
on_every_device!(defaults_are_float64_and_int64, |_dev| {
    // The API example of DESIGN.md.
    let a = cp::random::default_rng(123).normal(0.0, 1.0, [4, 4])?;
    assert_eq!((a.shape(), a.dtype()), (&[4, 4][..], DType::Float64));
    let mut g = default_rng(8);
    let mut h = default_rng(8);
    assert_eq!(f64s(&g.random(5)?), f64s(&h.random_as(5, DType::Float64)?));
    assert_eq!(
        f64s(&g.uniform(1.0, 2.0, 5)?),
        f64s(&h.uniform_as(1.0, 2.0, 5, DType::Float64)?)
    );
    assert_eq!(
        f64s(&g.standard_normal(5)?),
        f64s(&h.standard_normal_as(5, DType::Float64)?)
    );
    assert_eq!(
        f64s(&g.exponential(1.0, 5)?),
        f64s(&h.exponential_as(1.0, 5, DType::Float64)?)
    );
    let k = g.integers(0, 3, 5)?;
    assert_eq!(k.dtype(), DType::Int64);
    assert_eq!(f64s(&k), f64s(&h.integers_as(0, 3, 5, DType::Int64)?));
});
