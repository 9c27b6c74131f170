//! Correlations, regression and t-tests with their p-values (from the t,
//! beta and normal distributions, elementwise on the data's device).

use super::float_input;
use super::rank::{rankdata, sorted_runs, RankMethod};
use crate::api::creation::full;
use crate::api::elementwise::special::{betainc, ndtr};
use crate::api::elementwise::{
    abs, add, clip, divide, less, multiply, negative, sign, sqrt, subtract,
};
use crate::api::shape::index::where_;
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;

/// Which alternative hypothesis a test's p-value is for (SciPy's `alternative=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Alternative {
    /// The statistic differs from the null value in either direction.
    #[default]
    TwoSided,
    /// It is less.
    Less,
    /// It is greater.
    Greater,
}

/// A test statistic and its p-value, SciPy's result objects' first two fields.
#[derive(Debug, Clone)]
pub struct TestResult {
    /// The statistic (t, r, rho, tau).
    pub statistic: Array,
    /// Its p-value under the null hypothesis.
    pub pvalue: Array,
}

/// The p-value of a t statistic with `df` degrees of freedom (of `t`'s
/// shape or broadcasting to it): `P(T <= t)`, `P(T >= t)` or `P(|T| >= |t|)`.
fn t_pvalue(t: &Array, df: &Array, alt: Alternative) -> Result<Array> {
    // P(|T| >= |t|) = I_{df / (df + t^2)}(df/2, 1/2).
    let x = divide(df, add(multiply(t, t)?, df)?)?;
    let two = betainc(multiply(df, 0.5)?, 0.5, &x)?;
    let half = multiply(&two, 0.5)?;
    match alt {
        Alternative::TwoSided => clip(&two, 0.0, 1.0),
        Alternative::Less => where_(less(t, 0.0)?, &half, subtract(1.0, &half)?),
        Alternative::Greater => where_(less(t, 0.0)?, subtract(1.0, &half)?, &half),
    }
}

/// `v` in an array of `like`'s shape on its device.
fn full_on(like: &Array, v: f64) -> Result<Array> {
    with_device(like.device(), || full(like.shape(), v, like.dtype()))
}

/// `x` as floats with `axis` checked, and the length along it.
fn sample(op: &'static str, x: &Array, axis: isize) -> Result<(Array, isize, f64)> {
    let x = float_input(op, x)?;
    if x.ndim() == 0 {
        return Err(Error::Axis { op, axis, ndim: 0 });
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
    let n = x.shape()[ax] as f64;
    Ok((x, ax as isize, n))
}

/// The one-sample t-test of `mean(a) == popmean` along `axis`
/// (`scipy.stats.ttest_1samp(a, popmean, axis, alternative=)`).
pub fn ttest_1samp(
    a: &Array,
    popmean: f64,
    axis: isize,
    alternative: Alternative,
) -> Result<TestResult> {
    let op = "stats.ttest_1samp";
    let (x, ax, n) = sample(op, a, axis)?;
    if n < 2.0 {
        return Err(Error::invalid(
            op,
            format!("needs at least 2 observations along axis {axis}, got {n}"),
        ));
    }
    let mean = x.mean_axes(ax, false)?;
    let se = divide(x.std_axes(ax, 1, false)?, n.sqrt())?;
    let t = divide(subtract(&mean, popmean)?, &se)?;
    let pvalue = t_pvalue(&t, &full_on(&t, n - 1.0)?, alternative)?;
    Ok(TestResult {
        statistic: t,
        pvalue,
    })
}

/// The two-sample t-test of equal means along `axis` (`scipy.stats.ttest_ind(a,
/// b, axis, equal_var, alternative=)`): pooled variance when `equal_var`,
/// else Welch's test with the Welch-Satterthwaite degrees of freedom.
pub fn ttest_ind(
    a: &Array,
    b: &Array,
    axis: isize,
    equal_var: bool,
    alternative: Alternative,
) -> Result<TestResult> {
    let op = "stats.ttest_ind";
    let (x, ax, n1) = sample(op, a, axis)?;
    let (y, ay, n2) = sample(op, b, axis)?;
    if n1 < 2.0 || n2 < 2.0 {
        return Err(Error::invalid(
            op,
            format!("needs at least 2 observations in each sample, got {n1} and {n2}"),
        ));
    }
    let (m1, m2) = (x.mean_axes(ax, false)?, y.mean_axes(ay, false)?);
    let (v1, v2) = (x.var_axes(ax, 1, false)?, y.var_axes(ay, 1, false)?);
    let diff = subtract(&m1, &m2)?;
    if equal_var {
        let df = n1 + n2 - 2.0;
        let pooled = divide(add(multiply(&v1, n1 - 1.0)?, multiply(&v2, n2 - 1.0)?)?, df)?;
        let se = sqrt(multiply(&pooled, 1.0 / n1 + 1.0 / n2)?)?;
        let t = divide(&diff, &se)?;
        let pvalue = t_pvalue(&t, &full_on(&t, df)?, alternative)?;
        return Ok(TestResult {
            statistic: t,
            pvalue,
        });
    }
    let (w1, w2) = (divide(&v1, n1)?, divide(&v2, n2)?);
    let sum = add(&w1, &w2)?;
    let df = divide(
        multiply(&sum, &sum)?,
        add(
            divide(multiply(&w1, &w1)?, n1 - 1.0)?,
            divide(multiply(&w2, &w2)?, n2 - 1.0)?,
        )?,
    )?;
    let t = divide(&diff, sqrt(&sum)?)?;
    let pvalue = t_pvalue(&t, &df, alternative)?;
    Ok(TestResult {
        statistic: t,
        pvalue,
    })
}

/// Two 1-D samples of one length (at least `min`), as floats.
fn paired(op: &'static str, x: &Array, y: &Array, min: usize) -> Result<(Array, Array, f64)> {
    if x.ndim() != 1 || y.ndim() != 1 || x.shape() != y.shape() {
        return Err(Error::shape(
            op,
            format!(
                "x and y must be 1-D of one length, got shapes {:?} and {:?}",
                x.shape(),
                y.shape()
            ),
        ));
    }
    if x.shape()[0] < min {
        return Err(Error::invalid(
            op,
            format!("needs at least {min} observations, got {}", x.shape()[0]),
        ));
    }
    Ok((
        float_input(op, x)?,
        float_input(op, y)?,
        x.shape()[0] as f64,
    ))
}

/// Pearson's r of centred samples, clipped to [-1, 1].
fn pearson_r(x: &Array, y: &Array) -> Result<Array> {
    let xm = subtract(x, x.mean_axes(0, false)?)?;
    let ym = subtract(y, y.mean_axes(0, false)?)?;
    let sxy = multiply(&xm, &ym)?.sum_axes(0, false)?;
    let sxx = multiply(&xm, &xm)?.sum_axes(0, false)?;
    let syy = multiply(&ym, &ym)?.sum_axes(0, false)?;
    clip(divide(&sxy, sqrt(multiply(&sxx, &syy)?)?)?, -1.0, 1.0)
}

/// Pearson's correlation coefficient of 1-D `x` and `y` and the p-value of
/// no correlation, exact for normal data (`scipy.stats.pearsonr(x, y,
/// alternative=)`): r follows a beta distribution on [-1, 1] with shapes
/// `n/2 - 1`.
pub fn pearsonr(x: &Array, y: &Array, alternative: Alternative) -> Result<TestResult> {
    let (x, y, n) = paired("stats.pearsonr", x, y, 2)?;
    let r = pearson_r(&x, &y)?;
    let ab = n / 2.0 - 1.0;
    let pvalue = if n == 2.0 {
        add(multiply(&r, 0.0)?, 1.0)?
    } else {
        // P(R >= r) = I_{(1 - r)/2}(ab, ab).
        let upper = |r: &Array| betainc(ab, ab, multiply(subtract(1.0, r)?, 0.5)?);
        match alternative {
            Alternative::TwoSided => clip(multiply(upper(&abs(&r)?)?, 2.0)?, 0.0, 1.0)?,
            Alternative::Greater => upper(&r)?,
            Alternative::Less => upper(&negative(&r)?)?,
        }
    };
    Ok(TestResult {
        statistic: r,
        pvalue,
    })
}

/// Spearman's rank correlation of 1-D `x` and `y` and its p-value from the
/// t distribution with `n - 2` degrees of freedom (`scipy.stats.spearmanr(x,
/// y, alternative=)`).
pub fn spearmanr(x: &Array, y: &Array, alternative: Alternative) -> Result<TestResult> {
    let (x, y, n) = paired("stats.spearmanr", x, y, 2)?;
    let rx = rankdata(&x, RankMethod::Average, None)?;
    let ry = rankdata(&y, RankMethod::Average, None)?;
    let rho = pearson_r(&rx, &ry)?;
    let df = n - 2.0;
    let t = multiply(
        &rho,
        sqrt(divide(
            df,
            multiply(add(&rho, 1.0)?, subtract(1.0, &rho)?)?,
        )?)?,
    )?;
    let pvalue = t_pvalue(&t, &full_on(&t, df)?, alternative)?;
    Ok(TestResult {
        statistic: rho,
        pvalue,
    })
}

/// The tie sums of `x`'s runs: `sum t(t-1)/2`, `sum t(t-1)(t-2)` and
/// `sum t(t-1)(2t+5)` over the lengths `t` of runs of equal values (each
/// run's term spread over its `t` positions, so a plain sum adds them).
fn tie_sums(x: &Array) -> Result<(Array, Array, Array)> {
    let runs = sorted_runs(x)?;
    let t = add(subtract(&runs.end, &runs.start)?, 1.0)?;
    let t1 = subtract(&t, 1.0)?;
    let pairs = multiply(&t1, 0.5)?.sum_axes(0, false)?;
    let v0 = multiply(&t1, subtract(&t, 2.0)?)?.sum_axes(0, false)?;
    let v1 = multiply(&t1, add(multiply(&t, 2.0)?, 5.0)?)?.sum_axes(0, false)?;
    Ok((pairs, v0, v1))
}

/// Kendall's tau-b of 1-D `x` and `y` and its asymptotic p-value with the
/// tie correction (`scipy.stats.kendalltau(x, y, method='asymptotic')`).
/// Compares all pairs at once: memory grows as `n^2` (8 n^2 bytes).
pub fn kendalltau(x: &Array, y: &Array, alternative: Alternative) -> Result<TestResult> {
    let op = "stats.kendalltau";
    let (x, y, n) = paired(op, x, y, 2)?;
    let n_i = n as isize;
    // sign(x_i - x_j) sign(y_i - y_j) over all ordered pairs counts each
    // unordered pair twice.
    let dx = sign(subtract(x.reshape([n_i, 1])?, x.reshape([1, n_i])?)?)?;
    let dy = sign(subtract(y.reshape([n_i, 1])?, y.reshape([1, n_i])?)?)?;
    let s = multiply(
        multiply(&dx, &dy)?.sum_axes(crate::api::reductions::Axes::All, false)?,
        0.5,
    )?;
    let (xtie, x0, x1) = tie_sums(&x)?;
    let (ytie, y0, y1) = tie_sums(&y)?;
    let tot = n * (n - 1.0) / 2.0;
    let tau = divide(
        &s,
        sqrt(multiply(subtract(tot, &xtie)?, subtract(tot, &ytie)?)?)?,
    )?;
    let tau = clip(&tau, -1.0, 1.0)?;
    let m = n * (n - 1.0);
    let var = add(
        add(
            divide(subtract(subtract(m * (2.0 * n + 5.0), &x1)?, &y1)?, 18.0)?,
            divide(multiply(multiply(&xtie, &ytie)?, 2.0)?, m)?,
        )?,
        divide(multiply(&x0, &y0)?, 9.0 * m * (n - 2.0))?,
    )?;
    let z = divide(&s, sqrt(&var)?)?;
    let pvalue = match alternative {
        Alternative::TwoSided => clip(multiply(ndtr(negative(abs(&z)?)?)?, 2.0)?, 0.0, 1.0)?,
        Alternative::Greater => ndtr(negative(&z)?)?,
        Alternative::Less => ndtr(&z)?,
    };
    Ok(TestResult {
        statistic: tau,
        pvalue,
    })
}

/// The result of [`linregress`] (SciPy's `LinregressResult`), 0-d arrays on
/// the data's device.
#[derive(Debug, Clone)]
pub struct LinregressResult {
    /// The slope of the least-squares line.
    pub slope: Array,
    /// Its intercept.
    pub intercept: Array,
    /// Pearson's r.
    pub rvalue: Array,
    /// The two-sided p-value of a zero slope (t test, `n - 2` degrees of freedom).
    pub pvalue: Array,
    /// The standard error of the slope.
    pub stderr: Array,
    /// The standard error of the intercept.
    pub intercept_stderr: Array,
}

/// The least-squares line through 1-D `x` and `y` with its correlation,
/// p-value and standard errors (`scipy.stats.linregress(x, y)`).
pub fn linregress(x: &Array, y: &Array) -> Result<LinregressResult> {
    let op = "stats.linregress";
    let (x, y, n) = paired(op, x, y, 2)?;
    let (xmean, ymean) = (x.mean_axes(0, false)?, y.mean_axes(0, false)?);
    let xm = subtract(&x, &xmean)?;
    let ym = subtract(&y, &ymean)?;
    let ssxm = multiply(&xm, &xm)?.mean_axes(0, false)?;
    let ssym = multiply(&ym, &ym)?.mean_axes(0, false)?;
    let ssxym = multiply(&xm, &ym)?.mean_axes(0, false)?;
    let r = clip(divide(&ssxym, sqrt(multiply(&ssxm, &ssym)?)?)?, -1.0, 1.0)?;
    let slope = divide(&ssxym, &ssxm)?;
    let intercept = subtract(&ymean, multiply(&slope, &xmean)?)?;
    let df = n - 2.0;
    let (pvalue, stderr) = if df <= 0.0 {
        (add(multiply(&r, 0.0)?, 1.0)?, multiply(&r, 0.0)?)
    } else {
        let one_minus_r2 = subtract(1.0, multiply(&r, &r)?)?;
        let t = multiply(&r, sqrt(divide(df, &one_minus_r2)?)?)?;
        let se = sqrt(divide(divide(multiply(&one_minus_r2, &ssym)?, &ssxm)?, df)?)?;
        (t_pvalue(&t, &full_on(&t, df)?, Alternative::TwoSided)?, se)
    };
    let intercept_stderr = multiply(&stderr, sqrt(add(&ssxm, multiply(&xmean, &xmean)?)?)?)?;
    Ok(LinregressResult {
        slope,
        intercept,
        rvalue: r,
        pvalue,
        stderr,
        intercept_stderr,
    })
}
