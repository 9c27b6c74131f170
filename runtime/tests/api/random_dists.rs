//! The element-wise distributions of `cp::random::Generator` (gamma, beta,
//! chi-square, lognormal, Laplace, Poisson, binomial, geometric,
//! multivariate normal) on every backend: sample mean and variance within 6
//! standard errors of the theoretical values (fixed seeds, so a pass is
//! stable), supports, chi-square goodness of fit of the discrete ones
//! against their exact pmf, reproducibility, parameter errors, and on CUDA
//! the CPU's values without a host round trip.

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::random::{default_rng, Generator};
use cuprite::{Array, DType, Device, Error};

/// Samples per check: 10^6 on a GPU, 2 10^5 on the CPU.
fn samples() -> usize {
    if cp::current_device() == Device::Cpu {
        200_000
    } else {
        1_000_000
    }
}

/// Theoretical mean, variance and excess kurtosis of a distribution.
struct Moments {
    mean: f64,
    var: f64,
    excess_kurtosis: f64,
}

/// Asserts that the sample mean and variance of `v` are within 6 standard
/// errors of `m` (the variance's error from the kurtosis).
#[track_caller]
fn assert_moments(what: &str, v: &[f64], m: Moments) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    let se_mean = (m.var / n).sqrt();
    // The O(1/n^2) term keeps a bound where the O(1/n) one vanishes (Bernoulli(1/2)).
    let se_var = m.var * ((m.excess_kurtosis + 2.0) / n + 2.0 / (n * n)).sqrt();
    assert!(
        (mean - m.mean).abs() <= 6.0 * se_mean + 1e-12,
        "{what}: mean {mean}, expected {} (standard error {se_mean})",
        m.mean
    );
    assert!(
        (var - m.var).abs() <= 6.0 * se_var + 1e-12,
        "{what}: variance {var}, expected {} (standard error {se_var})",
        m.var
    );
}

fn gamma_moments(k: f64, scale: f64) -> Moments {
    Moments {
        mean: k * scale,
        var: k * scale * scale,
        excess_kurtosis: 6.0 / k,
    }
}

on_every_device!(continuous_moments_and_supports, |_dev| {
    let n = samples();
    let mut rng = default_rng(20261125);
    for (k, scale) in [
        (0.05, 1.0),
        (0.5, 2.0),
        (1.0, 1.0),
        (3.0, 0.5),
        (1000.0, 0.01),
    ] {
        let g = values_f64(&rng.gamma(k, scale, n)?);
        assert!(g.iter().all(|&x| x >= 0.0), "gamma({k}) is negative");
        assert_moments(&format!("gamma({k}, {scale})"), &g, gamma_moments(k, scale));
    }
    let g = values_f64(&rng.standard_gamma(2.5, n)?);
    assert_moments("standard_gamma(2.5)", &g, gamma_moments(2.5, 1.0));
    for df in [1.0, 4.0, 50.0] {
        let c = values_f64(&rng.chisquare(df, n)?);
        assert_moments(
            &format!("chisquare({df})"),
            &c,
            gamma_moments(df / 2.0, 2.0),
        );
    }
    for (a, b) in [
        (0.1, 0.2),
        (0.5, 0.5),
        (1.0, 1.0),
        (2.0, 5.0),
        (0.3, 4.0),
        (50.0, 20.0),
    ] {
        let x = values_f64(&rng.beta(a, b, n)?);
        assert!(
            x.iter().all(|v| (0.0..=1.0).contains(v)),
            "beta({a}, {b}) outside [0, 1]"
        );
        let s = a + b;
        let m = Moments {
            mean: a / s,
            var: a * b / (s * s * (s + 1.0)),
            excess_kurtosis: 6.0 * ((a - b).powi(2) * (s + 1.0) - a * b * (s + 2.0))
                / (a * b * (s + 2.0) * (s + 3.0)),
        };
        assert_moments(&format!("beta({a}, {b})"), &x, m);
    }
    for (mu, sigma) in [(0.0, 1.0), (1.5, 0.25)] {
        let x = values_f64(&rng.lognormal(mu, sigma, n)?);
        assert!(x.iter().all(|&v| v > 0.0));
        let s2: f64 = sigma * sigma;
        let m = Moments {
            mean: (mu + s2 / 2.0).exp(),
            var: (s2.exp() - 1.0) * (2.0 * mu + s2).exp(),
            excess_kurtosis: (4.0 * s2).exp() + 2.0 * (3.0 * s2).exp() + 3.0 * (2.0 * s2).exp()
                - 6.0,
        };
        assert_moments(&format!("lognormal({mu}, {sigma})"), &x, m);
    }
    for (loc, scale) in [(0.0, 1.0), (-3.0, 0.25)] {
        let x = values_f64(&rng.laplace(loc, scale, n)?);
        let m = Moments {
            mean: loc,
            var: 2.0 * scale * scale,
            excess_kurtosis: 3.0,
        };
        assert_moments(&format!("laplace({loc}, {scale})"), &x, m);
    }
    // float32 results are the float64 values rounded.
    let x = values_f64(&rng.gamma_as(2.0, 3.0, n, DType::Float32)?);
    assert_moments("gamma f32", &x, gamma_moments(2.0, 3.0));
});

on_every_device!(degenerate_parameters, |_dev| {
    let mut rng = default_rng(5);
    let all = |a: Array, v: f64| values_f64(&a).iter().all(|&x| x == v);
    assert!(all(rng.gamma(0.0, 2.0, 1000)?, 0.0));
    assert!(all(rng.gamma(3.0, 0.0, 1000)?, 0.0));
    assert!(all(rng.laplace(1.5, 0.0, 1000)?, 1.5));
    assert!(all(rng.lognormal(0.0, 0.0, 1000)?, 1.0));
    assert!(all(rng.poisson(0.0, 1000)?, 0.0));
    assert!(all(rng.binomial(0, 0.5, 1000)?, 0.0));
    assert!(all(rng.binomial(17, 0.0, 1000)?, 0.0));
    assert!(all(rng.binomial(17, 1.0, 1000)?, 17.0));
    assert!(all(rng.geometric(1.0, 1000)?, 1.0));
    // Empty and 0-d sizes.
    assert_eq!(rng.poisson(3.0, [0, 4])?.shape(), &[0, 4]);
    let s = rng.beta(2.0, 2.0, Vec::<usize>::new())?;
    assert_eq!(s.shape(), &[] as &[usize]);
});

/// ln(k!): summed logarithms below 30, Stirling's series above (relative
/// error below 1e-15 there).
fn ln_fact(k: u64) -> f64 {
    if k < 30 {
        return (2..=k).map(|i| (i as f64).ln()).sum();
    }
    let x = (k + 1) as f64;
    let r = 1.0 / x;
    let r2 = r * r;
    (x - 0.5) * x.ln() - x
        + 0.5 * (2.0 * std::f64::consts::PI).ln()
        + r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 / 1680.0)))
}

/// Wilson-Hilferty's chi-square quantile with upper tail 1e-6 (z = 4.753).
fn chi2_critical(df: usize) -> f64 {
    let d = df as f64;
    let h = 2.0 / (9.0 * d);
    d * (1.0 - h + 4.753 * h.sqrt()).powi(3)
}

/// Pearson's chi-square of the counts of `v` against `pmf` on the support
/// from `lo`: bins with at least 5 expected values, the tails merged into
/// the first and last; asserts it is below the 1e-6 critical value.
#[track_caller]
fn assert_fits(what: &str, v: &[f64], lo: u64, pmf: impl Fn(u64) -> f64) {
    let n = v.len() as f64;
    assert!(
        v.iter().all(|&x| x.fract() == 0.0 && x >= lo as f64),
        "{what}: outside the support"
    );
    // Bins [lo, first] (merged head), single values, [last, inf) (merged tail).
    let mut k = lo;
    let mut head = 0.0;
    while head * n < 5.0 {
        head += pmf(k);
        k += 1;
    }
    let mut edges = vec![k]; // values below edges[0] form the head bin
    let mut probs = vec![head];
    let mut covered = head;
    loop {
        let p = pmf(k);
        if p * n < 5.0 || (1.0 - covered - p) * n < 5.0 {
            break;
        }
        probs.push(p);
        covered += p;
        k += 1;
        edges.push(k);
    }
    probs.push(1.0 - covered);
    let mut counts = vec![0.0; probs.len()];
    for &x in v {
        let x = x as u64;
        let bin = edges.partition_point(|&e| e <= x);
        counts[bin] += 1.0;
    }
    let stat: f64 = counts
        .iter()
        .zip(&probs)
        .map(|(c, p)| (c - n * p).powi(2) / (n * p))
        .sum();
    let df = probs.len() - 1;
    assert!(df >= 1, "{what}: too few bins");
    assert!(
        stat <= chi2_critical(df),
        "{what}: chi-square {stat} over {df} degrees of freedom (critical {})",
        chi2_critical(df)
    );
}

on_every_device!(discrete_moments_and_goodness_of_fit, |_dev| {
    let n = samples();
    let mut rng = default_rng(777);
    for lam in [0.01, 1.0, 5.5, 9.99, 10.0, 37.0, 1e3, 1e6] {
        let a = rng.poisson(lam, n)?;
        assert_eq!(a.dtype(), DType::Int64);
        let v = values_f64(&a);
        let m = Moments {
            mean: lam,
            var: lam,
            excess_kurtosis: 1.0 / lam,
        };
        assert_moments(&format!("poisson({lam})"), &v, m);
        let pmf = |k: u64| (k as f64 * lam.ln() - lam - ln_fact(k)).exp();
        assert_fits(&format!("poisson({lam})"), &v, 0, pmf);
    }
    for (trials, p) in [
        (1, 0.5),
        (10, 0.3),
        (100, 0.05),
        (60, 0.5),
        (1000, 0.4),
        (200, 0.97),
        (100_000, 0.001),
        (5000, 0.6),
    ] {
        let v = values_f64(&rng.binomial(trials, p, n)?);
        assert!(v.iter().all(|&x| x <= trials as f64));
        let q = 1.0 - p;
        let m = Moments {
            mean: trials as f64 * p,
            var: trials as f64 * p * q,
            excess_kurtosis: (1.0 - 6.0 * p * q) / (trials as f64 * p * q),
        };
        assert_moments(&format!("binomial({trials}, {p})"), &v, m);
        let pmf = |k: u64| {
            if k > trials as u64 {
                return 0.0;
            }
            let c = ln_fact(trials as u64) - ln_fact(k) - ln_fact(trials as u64 - k);
            (c + k as f64 * p.ln() + (trials as u64 - k) as f64 * q.ln()).exp()
        };
        assert_fits(&format!("binomial({trials}, {p})"), &v, 0, pmf);
    }
    for p in [0.9, 0.5, 0.1, 0.003] {
        let v = values_f64(&rng.geometric(p, n)?);
        let m = Moments {
            mean: 1.0 / p,
            var: (1.0 - p) / (p * p),
            excess_kurtosis: 6.0 + p * p / (1.0 - p),
        };
        assert_moments(&format!("geometric({p})"), &v, m);
        let pmf = |k: u64| (1.0 - p).powi(k as i32 - 1) * p;
        assert_fits(&format!("geometric({p})"), &v, 1, pmf);
    }
});

on_every_device!(multivariate_normal_moments_and_errors, |dev| {
    let n = samples();
    let mut rng = default_rng(99);
    let mean = cp::asarray(vec![1.0, -2.0, 0.5])?;
    let cov_rows = [[2.0, 0.6, -0.4], [0.6, 1.0, 0.2], [-0.4, 0.2, 0.5]];
    let cov = cp::asarray(cov_rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>())?;
    let x = rng.multivariate_normal(&mean, &cov, [n / 2, 2])?;
    assert_eq!(x.shape(), &[n / 2, 2, 3]);
    assert_eq!(x.dtype(), DType::Float64);
    assert_eq!(x.device(), dev);
    let v = values_f64(&x);
    let m = [1.0, -2.0, 0.5];
    for i in 0..3 {
        let xi: Vec<f64> = v.iter().skip(i).step_by(3).copied().collect();
        for j in 0..3 {
            // x_i x_j has mean m_i m_j + C_ij: check E[x_i x_j] (4th moments
            // of a normal bound its variance by (C_ii + m_i^2)(C_jj + m_j^2) * 3).
            let xj: Vec<f64> = v.iter().skip(j).step_by(3).copied().collect();
            let prod: Vec<f64> = xi.iter().zip(&xj).map(|(a, b)| a * b).collect();
            let got = prod.iter().sum::<f64>() / prod.len() as f64;
            let want = m[i] * m[j] + cov_rows[i][j];
            let bound = 3.0 * (cov_rows[i][i] + m[i] * m[i]) * (cov_rows[j][j] + m[j] * m[j]);
            let se = (bound / prod.len() as f64).sqrt();
            assert!(
                (got - want).abs() <= 6.0 * se,
                "E[x{i} x{j}] = {got}, expected {want}"
            );
        }
        let mi = xi.iter().sum::<f64>() / xi.len() as f64;
        let se = (cov_rows[i][i] / xi.len() as f64).sqrt();
        assert!((mi - m[i]).abs() <= 6.0 * se, "mean {i}: {mi}");
    }
    // An empty size gives one vector.
    assert_eq!(
        rng.multivariate_normal(&mean, &cov, Vec::<usize>::new())?
            .shape(),
        &[3]
    );
    let errs = [
        rng.multivariate_normal(&cov, &cov, 4).unwrap_err(),
        rng.multivariate_normal(&mean, &cp::ones([3, 2], DType::Float64)?, 4)
            .unwrap_err(),
        rng.multivariate_normal(&mean, &cp::ones([2, 2], DType::Float64)?, 4)
            .unwrap_err(),
    ];
    for e in errs {
        assert_error!(e, Shape, "Generator::multivariate_normal");
    }
    let asym = cp::asarray(vec![
        vec![1.0, 0.5, 0.0],
        vec![0.0, 1.0, 0.0],
        vec![0.0, 0.0, 1.0],
    ])?;
    let e = rng.multivariate_normal(&mean, &asym, 4).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    let singular = cp::ones([3, 3], DType::Float64)?;
    let e = rng.multivariate_normal(&mean, &singular, 4).unwrap_err();
    assert_error!(e, LinAlg, "Generator::multivariate_normal");
});

on_every_device!(same_seed_same_values_and_positions, |_dev| {
    type Draw = fn(&mut Generator) -> cp::Result<Array>;
    let draws: [Draw; 6] = [
        |g| g.gamma(0.7, 1.0, 1001),
        |g| g.beta(0.4, 0.6, 1001),
        |g| g.poisson(120.0, 1001),
        |g| g.binomial(500, 0.3, 1001),
        |g| g.geometric(0.2, 1001),
        |g| g.laplace(0.0, 1.0, 1001),
    ];
    for d in draws {
        let (mut a, mut b) = (default_rng(31), default_rng(31));
        let (x, y) = (d(&mut a)?, d(&mut b)?);
        assert_eq!(values_f64(&x), values_f64(&y));
        // One block per element: the next draw starts after them.
        assert_eq!(a.position(), 1001);
        let z = d(&mut a)?;
        assert_ne!(values_f64(&x), values_f64(&z));
    }
});

on_every_device!(parameter_errors_name_the_op_and_argument, |_dev| {
    let mut rng = default_rng(1);
    let cases: Vec<(cp::Result<Array>, &str, &str)> = vec![
        (rng.gamma(-1.0, 1.0, 3), "Generator::gamma", "shape"),
        (rng.gamma(1.0, -1.0, 3), "Generator::gamma", "scale"),
        (
            rng.standard_gamma(f64::NAN, 3),
            "Generator::standard_gamma",
            "shape",
        ),
        (rng.beta(0.0, 1.0, 3), "Generator::beta", "a"),
        (rng.beta(1.0, -2.0, 3), "Generator::beta", "b"),
        (rng.chisquare(0.0, 3), "Generator::chisquare", "df"),
        (rng.lognormal(0.0, -1.0, 3), "Generator::lognormal", "sigma"),
        (rng.laplace(0.0, -1.0, 3), "Generator::laplace", "scale"),
        (rng.poisson(-1.0, 3), "Generator::poisson", "lam"),
        (rng.poisson(f64::NAN, 3), "Generator::poisson", "lam"),
        (rng.poisson(1e19, 3), "Generator::poisson", "lam"),
        (rng.binomial(-1, 0.5, 3), "Generator::binomial", "n"),
        (rng.binomial(5, 1.5, 3), "Generator::binomial", "p"),
        (rng.binomial(5, f64::NAN, 3), "Generator::binomial", "p"),
        (rng.geometric(0.0, 3), "Generator::geometric", "p"),
        (rng.geometric(1.5, 3), "Generator::geometric", "p"),
    ];
    for (r, op, arg) in cases {
        match r {
            Err(Error::InvalidArgument { op: o, detail }) => {
                assert_eq!(o, op);
                assert!(detail.starts_with(arg), "{op}: {detail}");
            }
            other => panic!("{op} ({arg}): {other:?}"),
        }
    }
    let e = rng.gamma_as(1.0, 1.0, 3, DType::Int32).unwrap_err();
    assert_error!(e, DType, "Generator::gamma");
});

/// Draws every distribution with a fresh seed on the CPU and the GPU: the
/// same values, except (rarely) where the GPU's rounding of log/exp/pow flips
/// an acceptance test or a floor; at most 1 in 10^4 elements may differ.
#[test]
fn cuda_draws_the_cpu_values_without_host_fallback() {
    let Some(dev) = gpu_or_skip() else { return };
    let seed = test_seed("random_dists");
    let n = 1_000_003;
    type Draw = Box<dyn Fn(&mut Generator) -> cp::Result<Array>>;
    let draws: Vec<(&str, Draw)> = vec![
        ("gamma small", Box::new(move |g| g.gamma(0.2, 2.0, n))),
        ("gamma", Box::new(move |g| g.gamma(4.5, 1.0, n))),
        (
            "gamma f32",
            Box::new(move |g| g.gamma_as(1.5, 1.0, n, DType::Float32)),
        ),
        ("chisquare", Box::new(move |g| g.chisquare(3.0, n))),
        ("beta johnk", Box::new(move |g| g.beta(0.3, 0.9, n))),
        ("beta", Box::new(move |g| g.beta(3.0, 2.0, n))),
        ("lognormal", Box::new(move |g| g.lognormal(0.1, 0.7, n))),
        ("laplace", Box::new(move |g| g.laplace(2.0, 3.0, n))),
        ("poisson small", Box::new(move |g| g.poisson(4.0, n))),
        ("poisson ptrs", Box::new(move |g| g.poisson(500.0, n))),
        (
            "binomial inversion",
            Box::new(move |g| g.binomial(40, 0.25, n)),
        ),
        (
            "binomial btrs",
            Box::new(move |g| g.binomial(10_000, 0.7, n)),
        ),
        ("geometric", Box::new(move |g| g.geometric(0.05, n))),
    ];
    cp::cuda::reset_host_fallbacks();
    for (name, draw) in &draws {
        let mut on_cpu = default_rng(seed);
        let mut on_gpu = on_cpu.clone();
        let c = cp::with_device(Device::Cpu, || draw(&mut on_cpu)).unwrap();
        let g = cp::with_device(dev, || draw(&mut on_gpu)).unwrap();
        assert_eq!(g.device(), dev, "{name}");
        assert_eq!(g.dtype(), c.dtype(), "{name}");
        assert_eq!(on_gpu.position(), on_cpu.position(), "{name}");
        let (gv, cv) = (values_f64(&g), values_f64(&c));
        let differ = gv
            .iter()
            .zip(&cv)
            .filter(|(a, b)| (*a - *b).abs() > 1e-9 * b.abs().max(1.0))
            .count();
        assert!(
            differ * 10_000 <= n,
            "{name}: {differ} of {n} values differ (seed {seed})"
        );
    }
    let mean = cp::asarray(vec![0.0, 1.0])
        .unwrap()
        .to_device(&dev)
        .unwrap();
    let cov = cp::asarray(vec![vec![1.0, 0.3], vec![0.3, 2.0]])
        .unwrap()
        .to_device(&dev)
        .unwrap();
    let x = cp::with_device(dev, || {
        default_rng(seed).multivariate_normal(&mean, &cov, 1000)
    })
    .unwrap();
    assert_eq!(x.device(), dev);
    cp::cuda::launch_pending().unwrap();
    assert_no_host_fallback("random distributions");
}
