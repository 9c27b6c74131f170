//! `cp::stats` against SciPy's values (fixtures written by
//! `tests/data/scipy/generate_stats.py`) on every device: each distribution's
//! densities, distribution functions, quantiles and moments on a grid with
//! the edges (NaN, infinities, outside the support, probabilities 0 and 1),
//! the descriptive statistics, ranks, correlations, tests and kernel density
//! estimates; random draws' moments; the GPU against the CPU on random
//! inputs with no host fallback; and bad parameters.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use cuprite as cp;
use cuprite::stats::{Continuous, Discrete};
use cuprite::Array;

use common::values_f64;

fn fixtures() -> BTreeMap<String, Array> {
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/scipy/stats.npz");
    cp::with_device(cp::Device::Cpu, || cp::load_npz(&built)).expect("stats.npz loads")
}

struct Fx(BTreeMap<String, Array>);

impl Fx {
    fn v(&self, key: &str) -> Vec<f64> {
        values_f64(self.0.get(key).unwrap_or_else(|| panic!("fixture {key}")))
    }
    /// The fixture as an array on the current device.
    fn a(&self, key: &str) -> Array {
        let host = self.0.get(key).unwrap_or_else(|| panic!("fixture {key}"));
        cp::asarray_on(values_f64(host), cp::current_device())
            .and_then(|x| x.reshape(host.shape().to_vec()))
            .expect("fixture to the device")
    }
}

/// `got` against `expected` elementwise: NaN only where NaN is expected,
/// infinities exactly, others within `atol + rtol |expected|`.
fn check(what: &str, got: &Array, expected: &[f64], rtol: f64, atol: f64) {
    let g = values_f64(got);
    assert_eq!(g.len(), expected.len(), "{what}: length");
    for (i, (&g, &e)) in g.iter().zip(expected).enumerate() {
        let ok = if e.is_nan() {
            g.is_nan()
        } else if e.is_infinite() {
            g == e
        } else {
            (g - e).abs() <= atol + rtol * e.abs()
        };
        if !ok {
            eprintln!("MISMATCH {what}[{i}]: got {g:e}, SciPy {e:e}");
            FAILURES.with(|f| f.set(f.get() + 1));
        }
    }
}

/// `check` of quantiles. Where SciPy's own root finders give up in the far
/// tails (NaN, inf, or a value its cdf contradicts), the generator wrote
/// the root of SciPy's cdf/sf instead, or ±inf where the true quantile is
/// beyond float64 (see `checked_quantiles` in generate_stats.py), so every
/// point is checked.
fn check_quantile(what: &str, got: &Array, expected: &[f64], rtol: f64) {
    check(what, got, expected, rtol, 1e-300);
}

thread_local! {
    /// Mismatches seen by `check` in this test's thread.
    static FAILURES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Fails the test if `check` saw mismatches (all of them are printed).
fn finish() {
    let n = FAILURES.with(|f| f.replace(0));
    assert_eq!(n, 0, "{n} values differ from SciPy's (printed above)");
}

/// `a`'s indices `lo..hi` along `axis` (a gathered copy).
fn range_of(a: &Array, axis: isize, lo: i64, hi: i64) -> cp::Result<Array> {
    a.take(cp::asarray((lo..hi).collect::<Vec<i64>>())?, Some(axis))
}

fn close(what: &str, got: f64, expected: f64, rtol: f64) {
    let ok = (got.is_nan() && expected.is_nan())
        || got == expected
        || (got - expected).abs() <= rtol * expected.abs();
    assert!(ok, "{what}: got {got:e}, SciPy {expected:e}");
}

fn continuous(name: &str, p: &[f64]) -> cp::Result<Box<dyn Continuous>> {
    let (loc, scale) = (p[p.len() - 2], p[p.len() - 1]);
    use cp::stats::*;
    Ok(match name {
        "norm" => Box::new(Norm::new(loc, scale)?),
        "t" | "t_small_df" => Box::new(T::new(p[0])?.with_loc_scale(loc, scale)?),
        "chi2" | "chi2_small_df" => Box::new(Chi2::new(p[0])?.with_loc_scale(loc, scale)?),
        "f" => Box::new(FDist::new(p[0], p[1])?.with_loc_scale(loc, scale)?),
        "gamma" | "gamma_large" => Box::new(Gamma::new(p[0])?.with_loc_scale(loc, scale)?),
        "beta" | "beta_u" => Box::new(Beta::new(p[0], p[1])?.with_loc_scale(loc, scale)?),
        "expon" => Box::new(Expon::new(loc, scale)?),
        "uniform" => Box::new(Uniform::new(loc, scale)?),
        "lognorm" => Box::new(Lognorm::new(p[0], loc, scale)?),
        "cauchy" => Box::new(Cauchy::new(loc, scale)?),
        "laplace" => Box::new(Laplace::new(loc, scale)?),
        "logistic" => Box::new(Logistic::new(loc, scale)?),
        _ => panic!("no case {name}"),
    })
}

fn discrete(name: &str, p: &[f64]) -> cp::Result<Box<dyn Discrete>> {
    let loc = p[p.len() - 1];
    use cp::stats::*;
    Ok(match name {
        "poisson" | "poisson_small" => Box::new(Poisson::new(p[0])?.with_loc(loc)?),
        "binom" => Box::new(Binom::new(p[0], p[1])?.with_loc(loc)?),
        "nbinom" => Box::new(Nbinom::new(p[0], p[1])?.with_loc(loc)?),
        "geom" => Box::new(Geom::new(p[0])?.with_loc(loc)?),
        _ => panic!("no case {name}"),
    })
}

const CONTINUOUS: &[&str] = &[
    "norm",
    "t",
    "t_small_df",
    "chi2",
    "chi2_small_df",
    "f",
    "gamma",
    "gamma_large",
    "beta",
    "beta_u",
    "expon",
    "uniform",
    "lognorm",
    "cauchy",
    "laplace",
    "logistic",
];
const DISCRETE: &[&str] = &["poisson", "poisson_small", "binom", "nbinom", "geom"];

/// Densities and distribution functions: relative 1e-12 (the special
/// functions' own accuracy, a few ulps magnified by the standardization);
/// quantiles 1e-9 (the inverses' tolerance).
const RTOL: f64 = 1e-12;
const RTOL_QUANTILE: f64 = 1e-9;

on_every_device!(continuous_distributions_match_scipy, |dev| {
    let fx = Fx(fixtures());
    for &name in CONTINUOUS {
        let d = continuous(name, &fx.v(&format!("{name}.params")))?;
        let x = fx.a(&format!("{name}.x"));
        let q = fx.a(&format!("{name}.q"));
        let k = |m: &str| format!("{name}.{m}");
        check(&k("pdf"), &d.pdf(&x)?, &fx.v(&k("pdf")), RTOL, 1e-300);
        check(
            &k("logpdf"),
            &d.logpdf(&x)?,
            &fx.v(&k("logpdf")),
            RTOL,
            1e-14,
        );
        check(&k("cdf"), &d.cdf(&x)?, &fx.v(&k("cdf")), RTOL, 1e-300);
        check(
            &k("logcdf"),
            &d.logcdf(&x)?,
            &fx.v(&k("logcdf")),
            RTOL,
            1e-14,
        );
        check(&k("sf"), &d.sf(&x)?, &fx.v(&k("sf")), RTOL, 1e-300);
        check(&k("logsf"), &d.logsf(&x)?, &fx.v(&k("logsf")), RTOL, 1e-14);
        check_quantile(&k("ppf"), &d.ppf(&q)?, &fx.v(&k("ppf")), RTOL_QUANTILE);
        check_quantile(&k("isf"), &d.isf(&q)?, &fx.v(&k("isf")), RTOL_QUANTILE);
        let m = fx.v(&k("moments"));
        close(&k("mean"), d.mean(), m[0], 1e-13);
        close(&k("var"), d.var(), m[1], 1e-13);
    }
    common::assert_no_host_fallback("continuous distributions");
    finish();
});

on_every_device!(discrete_distributions_match_scipy, |dev| {
    let fx = Fx(fixtures());
    for &name in DISCRETE {
        let d = discrete(name, &fx.v(&format!("{name}.params")))?;
        let x = fx.a(&format!("{name}.x"));
        let q = fx.a(&format!("{name}.q"));
        let k = |m: &str| format!("{name}.{m}");
        check(&k("pmf"), &d.pmf(&x)?, &fx.v(&k("pmf")), RTOL, 1e-300);
        check(
            &k("logpmf"),
            &d.logpmf(&x)?,
            &fx.v(&k("logpmf")),
            RTOL,
            1e-14,
        );
        check(&k("cdf"), &d.cdf(&x)?, &fx.v(&k("cdf")), RTOL, 1e-300);
        check(
            &k("logcdf"),
            &d.logcdf(&x)?,
            &fx.v(&k("logcdf")),
            RTOL,
            1e-14,
        );
        check(&k("sf"), &d.sf(&x)?, &fx.v(&k("sf")), RTOL, 1e-300);
        check(&k("logsf"), &d.logsf(&x)?, &fx.v(&k("logsf")), RTOL, 1e-14);
        check_quantile(&k("ppf"), &d.ppf(&q)?, &fx.v(&k("ppf")), 0.0);
        check_quantile(&k("isf"), &d.isf(&q)?, &fx.v(&k("isf")), 0.0);
        let m = fx.v(&k("moments"));
        close(&k("mean"), d.mean(), m[0], 1e-13);
        close(&k("var"), d.var(), m[1], 1e-13);
    }
    common::assert_no_host_fallback("discrete distributions");
    finish();
});

on_every_device!(descriptive_statistics_match_scipy, |dev| {
    let fx = Fx(fixtures());
    let a = fx.a("data");
    let d = cp::stats::describe(&a, Some(1), 1, true)?;
    assert_eq!(d.nobs, 40);
    let mm = fx.v("describe.minmax");
    check("describe.min", &d.minmax.0, &mm[..5], 0.0, 0.0);
    check("describe.max", &d.minmax.1, &mm[5..], 0.0, 0.0);
    check(
        "describe.mean",
        &d.mean,
        &fx.v("describe.mean"),
        1e-13,
        1e-15,
    );
    check(
        "describe.variance",
        &d.variance,
        &fx.v("describe.variance"),
        1e-13,
        0.0,
    );
    check(
        "describe.skewness",
        &d.skewness,
        &fx.v("describe.skewness"),
        1e-12,
        1e-14,
    );
    check(
        "describe.kurtosis",
        &d.kurtosis,
        &fx.v("describe.kurtosis"),
        1e-12,
        1e-14,
    );
    let s = cp::stats::skew(&a, Some(1), false)?;
    check("skew", &s, &fx.v("skew.unbiased"), 1e-12, 1e-14);
    let k = cp::stats::kurtosis(&a, Some(1), false, false)?;
    check(
        "kurtosis",
        &k,
        &fx.v("kurtosis.pearson_unbiased"),
        1e-12,
        1e-14,
    );
    check(
        "zscore",
        &cp::stats::zscore(&a, Some(1), 1)?,
        &fx.v("zscore"),
        1e-12,
        1e-14,
    );
    check(
        "sem",
        &cp::stats::sem(&a, Some(1), 1)?,
        &fx.v("sem"),
        1e-13,
        0.0,
    );
    check(
        "iqr",
        &cp::stats::iqr(&a, Some(1))?,
        &fx.v("iqr"),
        1e-13,
        0.0,
    );
    check(
        "iqr.all",
        &cp::stats::iqr(&a, None)?,
        &fx.v("iqr.all"),
        1e-13,
        0.0,
    );
    let pk = fx.a("entropy.pk");
    check(
        "entropy",
        &cp::stats::entropy(&pk, None, None, 1)?,
        &fx.v("entropy"),
        1e-13,
        0.0,
    );
    let p = range_of(&pk, 1, 0, 5)?;
    let q = range_of(&pk, 1, 5, 10)?;
    let e = cp::stats::entropy(&p, Some(&q), Some(2.0), 1)?;
    check(
        "entropy.base2_qk",
        &e,
        &fx.v("entropy.base2_qk"),
        1e-12,
        1e-15,
    );
    common::assert_no_host_fallback("descriptive statistics");
    finish();
});

on_every_device!(ranks_and_mode_match_scipy, |dev| {
    use cp::stats::RankMethod::*;
    let fx = Fx(fixtures());
    let ties = fx.a("ties");
    for (m, name) in [
        (Average, "average"),
        (Min, "min"),
        (Max, "max"),
        (Dense, "dense"),
        (Ordinal, "ordinal"),
    ] {
        let r = cp::stats::rankdata(&ties, m, Some(1))?;
        check(
            &format!("rankdata.{name}"),
            &r,
            &fx.v(&format!("rankdata.{name}")),
            0.0,
            0.0,
        );
    }
    let two = range_of(&ties, 0, 0, 2)?;
    let r = cp::stats::rankdata(&two, Average, Some(0))?;
    check("rankdata.axis0", &r, &fx.v("rankdata.axis0"), 0.0, 0.0);
    let r = cp::stats::rankdata(&two, Average, None)?;
    check("rankdata.none", &r, &fx.v("rankdata.none"), 0.0, 0.0);
    let m = cp::stats::mode(&two, Some(1))?;
    check("mode.mode", &m.mode, &fx.v("mode.mode"), 0.0, 0.0);
    check("mode.count", &m.count, &fx.v("mode.count"), 0.0, 0.0);
    common::assert_no_host_fallback("rankdata");
    finish();
});

on_every_device!(correlations_and_tests_match_scipy, |dev| {
    use cp::stats::Alternative::*;
    let fx = Fx(fixtures());
    let (x, y, xt, yt) = (
        fx.a("pair.x"),
        fx.a("pair.y"),
        fx.a("pair.xt"),
        fx.a("pair.yt"),
    );
    let a = fx.a("data");
    let first = range_of(&a, 1, 0, 15)?;
    let second = cp::add(&range_of(&a, 1, 15, 40)?, 0.3)?;
    for (alt, name) in [
        (TwoSided, "two-sided"),
        (Less, "less"),
        (Greater, "greater"),
    ] {
        let pair = |r: cp::stats::TestResult, key: &str| -> cp::Result<()> {
            let e = fx.v(&format!("{key}.{name}"));
            close(
                &format!("{key}.{name} statistic"),
                r.statistic.item::<f64>()?,
                e[0],
                1e-12,
            );
            close(
                &format!("{key}.{name} pvalue"),
                r.pvalue.item::<f64>()?,
                e[1],
                1e-9,
            );
            Ok(())
        };
        pair(cp::stats::pearsonr(&x, &y, alt)?, "pearsonr")?;
        pair(cp::stats::spearmanr(&xt, &yt, alt)?, "spearmanr")?;
        pair(cp::stats::kendalltau(&xt, &yt, alt)?, "kendalltau")?;
        let rows = |r: cp::stats::TestResult, key: &str| {
            let e = fx.v(&format!("{key}.{name}"));
            check(
                &format!("{key}.{name} statistic"),
                &r.statistic,
                &e[..5],
                1e-12,
                1e-14,
            );
            check(
                &format!("{key}.{name} pvalue"),
                &r.pvalue,
                &e[5..],
                1e-9,
                1e-300,
            );
        };
        rows(cp::stats::ttest_1samp(&a, 0.2, 1, alt)?, "ttest_1samp");
        rows(
            cp::stats::ttest_ind(&first, &second, 1, true, alt)?,
            "ttest_ind",
        );
        rows(
            cp::stats::ttest_ind(&first, &second, 1, false, alt)?,
            "ttest_welch",
        );
    }
    let r = cp::stats::linregress(&x, &y)?;
    let e = fx.v("linregress");
    let got = [
        &r.slope,
        &r.intercept,
        &r.rvalue,
        &r.pvalue,
        &r.stderr,
        &r.intercept_stderr,
    ];
    for (i, g) in got.iter().enumerate() {
        close(&format!("linregress[{i}]"), g.item::<f64>()?, e[i], 1e-10);
    }
    common::assert_no_host_fallback("correlations and tests");
    finish();
});

on_every_device!(gaussian_kde_matches_scipy, |dev| {
    use cp::stats::{Bandwidth, GaussianKde};
    let fx = Fx(fixtures());
    let (d1, d2) = (fx.a("kde.data1"), fx.a("kde.data2"));
    let (p1, p2) = (fx.a("kde.points1"), fx.a("kde.points2"));
    let k = GaussianKde::new(&d1, Bandwidth::Scott)?;
    check(
        "kde.scott1",
        &k.evaluate(&p1)?,
        &fx.v("kde.scott1"),
        1e-12,
        1e-300,
    );
    let k = GaussianKde::new(&d1, Bandwidth::Silverman)?;
    check(
        "kde.silverman1",
        &k.evaluate(&p1)?,
        &fx.v("kde.silverman1"),
        1e-12,
        1e-300,
    );
    let k = GaussianKde::new(&d1, Bandwidth::Factor(0.3))?;
    check(
        "kde.factor1",
        &k.evaluate(&p1)?,
        &fx.v("kde.factor1"),
        1e-12,
        1e-300,
    );
    let k = GaussianKde::new(&d2, Bandwidth::Scott)?;
    check(
        "kde.scott2",
        &k.evaluate(&p2)?,
        &fx.v("kde.scott2"),
        1e-11,
        1e-300,
    );
    finish();
});

/// Draws of a distribution from a generator.
type Draw = Box<dyn Fn(&mut cp::random::Generator) -> cp::Result<Array>>;

on_every_device!(random_draws_have_the_distributions_moments, |dev| {
    use cp::stats::*;
    let mut rng = cp::random::default_rng(34);
    let n = 200_000usize;
    let cases: Vec<(&str, Draw, f64, f64)> = vec![
        (
            "norm",
            Box::new(move |r| Norm::new(1.0, 2.0)?.rvs(r, n)),
            1.0,
            4.0,
        ),
        (
            "t",
            Box::new(move |r| T::new(5.0)?.rvs(r, n)),
            0.0,
            5.0 / 3.0,
        ),
        (
            "gamma",
            Box::new(move |r| Gamma::new(2.5)?.rvs(r, n)),
            2.5,
            2.5,
        ),
        (
            "beta",
            Box::new(move |r| Beta::new(2.0, 3.0)?.rvs(r, n)),
            0.4,
            0.04,
        ),
        (
            "f",
            Box::new(move |r| FDist::new(5.0, 12.0)?.rvs(r, n)),
            1.2,
            2.0 * 144.0 * 15.0 / (5.0 * 100.0 * 8.0),
        ),
        (
            "poisson",
            Box::new(move |r| Poisson::new(3.0)?.rvs(r, n)),
            3.0,
            3.0,
        ),
        (
            "nbinom",
            Box::new(move |r| Nbinom::new(3.5, 0.4)?.rvs(r, n)),
            5.25,
            13.125,
        ),
        (
            "geom",
            Box::new(move |r| Geom::new(0.25)?.rvs(r, n)),
            4.0,
            12.0,
        ),
    ];
    for (name, draw, mean, var) in cases {
        let x = draw(&mut rng)?;
        assert_eq!(x.shape(), &[n]);
        let m = x.mean()?.item::<f64>()?;
        let v = x.var(0)?.item::<f64>()?;
        let se = (var / n as f64).sqrt();
        assert!(
            (m - mean).abs() < 6.0 * se,
            "{name}: mean {m}, expected {mean}"
        );
        assert!(
            (v - var).abs() < 0.05 * var,
            "{name}: variance {v}, expected {var}"
        );
    }
});

/// The GPU against the CPU on random inputs, with no host fallback.
#[test]
fn gpu_matches_cpu_on_random_inputs() {
    use cp::stats::*;
    let Some(gpu) = common::gpu_or_skip() else {
        return;
    };
    let seed = common::test_seed("scipy_stats_gpu");
    let xs = common::rnd(4096, seed);
    let qs: Vec<f64> = xs.iter().map(|v| (v + 4.0) / 8.0).collect();
    let run = |dev: cp::Device| -> cp::Result<Vec<Vec<f64>>> {
        cp::with_device(dev, || {
            let x = cp::multiply(&cp::asarray(xs.clone())?, 3.0)?;
            let q = cp::asarray(qs.clone())?;
            let t = T::new(3.5)?;
            let b = Beta::new(0.7, 2.5)?;
            let g = Gamma::new(1.7)?;
            let f = FDist::new(4.0, 9.0)?;
            let p = Poisson::new(6.0)?;
            let mut out = vec![];
            for r in [
                t.cdf(&x)?,
                t.ppf(&q)?,
                b.pdf(&q)?,
                b.ppf(&q)?,
                g.logpdf(&x)?,
                g.isf(&q)?,
                f.sf(&x)?,
                f.ppf(&q)?,
                p.pmf(&cp::floor(&x)?)?,
                p.ppf(&q)?,
                rankdata(&cp::round(&x)?, RankMethod::Average, None)?,
                rankdata(&x.reshape([64, 64])?, RankMethod::Dense, Some(1))?,
                GaussianKde::new(&x, Bandwidth::Scott)?.evaluate(&q)?,
                skew(&x.reshape([64, 64])?, Some(0), false)?,
            ] {
                out.push(values_f64(&r));
            }
            Ok(out)
        })
    };
    let cpu = run(cp::Device::Cpu).expect("cpu");
    let dev = run(gpu).expect("gpu");
    common::assert_no_host_fallback("cp::stats on the GPU");
    for (i, (c, g)) in cpu.iter().zip(&dev).enumerate() {
        for (j, (a, b)) in c.iter().zip(g).enumerate() {
            let ok =
                (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-9 * a.abs().max(1e-300);
            assert!(ok, "case {i}[{j}]: cpu {a:e}, gpu {b:e}");
        }
    }
}

#[test]
fn bad_parameters_are_errors_naming_the_distribution() {
    use cp::stats::*;
    let cases: Vec<(cp::Result<()>, &str, &str)> = vec![
        (T::new(-1.0).map(drop), "stats.t", "-1"),
        (Chi2::new(0.0).map(drop), "stats.chi2", "0"),
        (FDist::new(3.0, f64::NAN).map(drop), "stats.f", "NaN"),
        (
            Gamma::new(2.0)
                .and_then(|g| g.with_loc_scale(0.0, -2.0))
                .map(drop),
            "stats.gamma",
            "-2",
        ),
        (Beta::new(0.0, 1.0).map(drop), "stats.beta", "0"),
        (Norm::new(0.0, 0.0).map(drop), "stats.norm", "0"),
        (
            Lognorm::new(-0.5, 0.0, 1.0).map(drop),
            "stats.lognorm",
            "-0.5",
        ),
        (Binom::new(10.0, 1.5).map(drop), "stats.binom", "1.5"),
        (Binom::new(2.5, 0.5).map(drop), "stats.binom", "2.5"),
        (Nbinom::new(2.0, 0.0).map(drop), "stats.nbinom", "0"),
        (Geom::new(-0.1).map(drop), "stats.geom", "-0.1"),
        (Poisson::new(-3.0).map(drop), "stats.poisson", "-3"),
        (
            GaussianKde::new(&cp::asarray(vec![1.0]).unwrap(), Bandwidth::Scott).map(drop),
            "stats.gaussian_kde",
            "1",
        ),
        (
            GaussianKde::new(
                &cp::asarray(vec![1.0, 2.0, 3.0]).unwrap(),
                Bandwidth::Factor(-1.0),
            )
            .map(drop),
            "stats.gaussian_kde",
            "-1",
        ),
    ];
    for (r, op, value) in cases {
        let e = r.expect_err(op).to_string();
        assert!(e.contains(op) && e.contains(value), "{e}");
    }
    let x = cp::asarray(vec![1.0, 2.0, 3.0]).unwrap();
    let y = cp::asarray(vec![1.0, 2.0]).unwrap();
    assert!(pearsonr(&x, &y, Alternative::TwoSided).is_err());
    assert!(linregress(&x, &y).is_err());
    assert!(ttest_1samp(
        &cp::asarray(vec![1.0]).unwrap(),
        0.0,
        0,
        Alternative::TwoSided
    )
    .is_err());
    assert!(rankdata(&x, RankMethod::Average, Some(1)).is_err());
    assert!(skew(&x, Some(2), true).is_err());
    let c = cp::asarray(vec![cp::num_complex::Complex64::new(1.0, 0.0)]).unwrap();
    assert!(Norm::standard().cdf(&c).is_err());
    assert!(entropy(&x, None, Some(1.0), 0).is_err());
    // Values outside the support or probabilities outside [0, 1] are not
    // errors: NaN, as SciPy.
    let q = cp::asarray(vec![-0.5, 2.0]).unwrap();
    assert!(values_f64(&Norm::standard().ppf(&q).unwrap())
        .iter()
        .all(|v| v.is_nan()));
}
