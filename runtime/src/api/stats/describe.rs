//! Descriptive statistics along an axis: `describe`, `zscore`, `skew`,
//! `kurtosis`, `sem`, `iqr`, `entropy` and `mode`, from the runtime's
//! reductions (each a GPU kernel for a GPU array).

use super::float_input;
use super::rank::{sorted_runs, to_last_axis};
use crate::api::elementwise::special::{entr, rel_entr};
use crate::api::elementwise::{add, divide, equal, multiply, power, subtract};
use crate::api::reductions::stats::{quantile, QuantileMethod};
use crate::api::shape::index::where_;
use crate::api::sorting::search::take_along_last;
use crate::core::array::Array;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;

/// `x` (floats kept, integers as float64) and the axis it reduces, with
/// `None` meaning the flattened array (SciPy's `axis=None`).
fn along(op: &'static str, x: &Array, axis: Option<isize>) -> Result<(Array, isize)> {
    let x = float_input(op, x)?;
    match axis {
        None => Ok((x.reshape([-1])?, 0)),
        Some(a) => {
            if x.ndim() == 0 {
                return Err(Error::Axis {
                    op,
                    axis: a,
                    ndim: 0,
                });
            }
            Ok((x.clone(), normalize_axis(op, a, x.ndim())? as isize))
        }
    }
}

/// The central moment of order `k` along `axis`, kept as an extent-1 axis.
fn central_moment(x: &Array, axis: isize, mean: &Array, k: i32) -> Result<Array> {
    let d = subtract(x, mean)?;
    let p = if k == 2 {
        multiply(&d, &d)?
    } else {
        power(&d, k as f64)?
    };
    p.mean_axes(axis, true)
}

/// The sample skewness along `axis` (`scipy.stats.skew(a, axis, bias)`):
/// `m3 / m2^1.5`, with the adjustment `sqrt(n (n - 1)) / (n - 2)` when
/// `bias` is false; NaN where the data are constant.
pub fn skew(a: &Array, axis: Option<isize>, bias: bool) -> Result<Array> {
    let (x, ax) = along("stats.skew", a, axis)?;
    let n = x.shape()[ax as usize] as f64;
    let mean = x.mean_axes(ax, true)?;
    let m2 = central_moment(&x, ax, &mean, 2)?;
    let m3 = central_moment(&x, ax, &mean, 3)?;
    let mut g = divide(&m3, power(&m2, 1.5)?)?;
    if !bias && n > 2.0 {
        g = multiply(&g, (n * (n - 1.0)).sqrt() / (n - 2.0))?;
    }
    let g = where_(equal(&m2, 0.0)?, f64::NAN, &g)?;
    g.squeeze_axes(&[ax])
}

/// The sample kurtosis along `axis` (`scipy.stats.kurtosis(a, axis, fisher,
/// bias)`): `m4 / m2^2`, minus 3 when `fisher`; corrected for bias when
/// `bias` is false; NaN where the data are constant.
pub fn kurtosis(a: &Array, axis: Option<isize>, fisher: bool, bias: bool) -> Result<Array> {
    let (x, ax) = along("stats.kurtosis", a, axis)?;
    let n = x.shape()[ax as usize] as f64;
    let mean = x.mean_axes(ax, true)?;
    let m2 = central_moment(&x, ax, &mean, 2)?;
    let m4 = central_moment(&x, ax, &mean, 4)?;
    let mut g = divide(&m4, multiply(&m2, &m2)?)?;
    if !bias && n > 3.0 {
        // ((n + 1) (g - 3) + 6) (n - 1) / ((n - 2) (n - 3)) + 3
        let c = (n - 1.0) / ((n - 2.0) * (n - 3.0));
        g = add(
            multiply(add(multiply(subtract(&g, 3.0)?, n + 1.0)?, 6.0)?, c)?,
            3.0,
        )?;
    }
    if fisher {
        g = subtract(&g, 3.0)?;
    }
    let g = where_(equal(&m2, 0.0)?, f64::NAN, &g)?;
    g.squeeze_axes(&[ax])
}

/// `(a - mean) / std` along `axis` (`scipy.stats.zscore(a, axis, ddof)`).
pub fn zscore(a: &Array, axis: Option<isize>, ddof: usize) -> Result<Array> {
    let shape = a.shape().to_vec();
    let (x, ax) = along("stats.zscore", a, axis)?;
    let mean = x.mean_axes(ax, true)?;
    let sd = x.std_axes(ax, ddof, true)?;
    divide(subtract(&x, &mean)?, &sd)?.reshape(shape)
}

/// The standard error of the mean along `axis`, `std(ddof) / sqrt(n)`
/// (`scipy.stats.sem(a, axis, ddof)`; SciPy's default ddof is 1).
pub fn sem(a: &Array, axis: Option<isize>, ddof: usize) -> Result<Array> {
    let (x, ax) = along("stats.sem", a, axis)?;
    let n = x.shape()[ax as usize] as f64;
    divide(x.std_axes(ax, ddof, false)?, n.sqrt())
}

/// The interquartile range along `axis`, the 75th minus the 25th
/// percentile with linear interpolation (`scipy.stats.iqr(x, axis)`).
pub fn iqr(x: &Array, axis: Option<isize>) -> Result<Array> {
    let (x, ax) = along("stats.iqr", x, axis)?;
    let q = quantile(&x, vec![0.25, 0.75], ax, QuantileMethod::Linear, false)?;
    let lo = q.take(crate::api::creation::asarray(vec![0i64])?, Some(0))?;
    let hi = q.take(crate::api::creation::asarray(vec![1i64])?, Some(0))?;
    subtract(&hi, &lo)?.squeeze_axes(&[0])
}

/// The Shannon entropy of the distribution `pk` along `axis`
/// (`scipy.stats.entropy(pk, qk, base, axis)`): `pk` is normalized to sum
/// to 1; with `qk`, the relative entropy (Kullback-Leibler divergence)
/// `sum pk log(pk / qk)`; in units of `log(base)` (nats without it).
pub fn entropy(pk: &Array, qk: Option<&Array>, base: Option<f64>, axis: isize) -> Result<Array> {
    let op = "stats.entropy";
    if let Some(b) = base {
        if !(b > 0.0 && b != 1.0) {
            return Err(Error::invalid(
                op,
                format!("base must be positive and not 1, got {b}"),
            ));
        }
    }
    let (p, ax) = along(op, pk, Some(axis))?;
    let p = divide(&p, p.sum_axes(ax, true)?)?;
    let s = match qk {
        None => entr(&p)?.sum_axes(ax, false)?,
        Some(q) => {
            let (q, _) = along(op, q, Some(axis))?;
            let q = divide(&q, q.sum_axes(ax, true)?)?;
            rel_entr(&p, &q)?.sum_axes(ax, false)?
        }
    };
    match base {
        Some(b) => divide(&s, b.ln()),
        None => Ok(s),
    }
}

/// The result of [`describe`], SciPy's `DescribeResult`.
#[derive(Debug, Clone)]
pub struct Describe {
    /// The number of observations along the axis.
    pub nobs: usize,
    /// The least and greatest values.
    pub minmax: (Array, Array),
    /// The mean.
    pub mean: Array,
    /// The variance with `ddof`.
    pub variance: Array,
    /// The skewness ([`skew`] with `bias`).
    pub skewness: Array,
    /// The excess kurtosis ([`kurtosis`] with Fisher's definition and `bias`).
    pub kurtosis: Array,
}

/// Size, range, mean, variance, skewness and kurtosis along `axis`
/// (`scipy.stats.describe(a, axis, ddof, bias)`; SciPy's default ddof is 1).
pub fn describe(a: &Array, axis: Option<isize>, ddof: usize, bias: bool) -> Result<Describe> {
    let op = "stats.describe";
    let (x, ax) = along(op, a, axis)?;
    let nobs = x.shape()[ax as usize];
    if nobs == 0 {
        return Err(Error::invalid(
            op,
            "the input must not be empty along the axis",
        ));
    }
    Ok(Describe {
        nobs,
        minmax: (x.min_axes(ax, false)?, x.max_axes(ax, false)?),
        mean: x.mean_axes(ax, false)?,
        variance: x.var_axes(ax, ddof, false)?,
        skewness: skew(&x, Some(ax), bias)?,
        kurtosis: kurtosis(&x, Some(ax), true, bias)?,
    })
}

/// The result of [`mode`]: the most common value and how often it occurs.
#[derive(Debug, Clone)]
pub struct Mode {
    /// The smallest of the most common values along the axis.
    pub mode: Array,
    /// Its number of occurrences (int64).
    pub count: Array,
}

/// The most common value along `axis`, the smallest where several tie
/// (`scipy.stats.mode(a, axis)`): sorted runs, their lengths, and the first
/// longest (on the array's device).
pub fn mode(a: &Array, axis: Option<isize>) -> Result<Mode> {
    let op = "stats.mode";
    let x = match axis {
        None => a.reshape([-1])?,
        Some(_) => a.clone(),
    };
    if x.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!("complex input ({}) is not supported", x.dtype()),
        });
    }
    let ax = axis.unwrap_or(0);
    let last = to_last_axis(op, &x, ax)?;
    if last.shape()[last.ndim() - 1] == 0 {
        return Err(Error::invalid(
            op,
            "the input must not be empty along the axis",
        ));
    }
    let runs = sorted_runs(&last)?;
    let length = add(subtract(&runs.end, &runs.start)?, 1.0)?;
    let best = length.argmax_axis(-1, false)?.expand_dims(-1)?;
    let mode = take_along_last(&runs.sorted, &best)?.squeeze_axes(&[-1])?;
    let count = take_along_last(&length, &best)?.squeeze_axes(&[-1])?;
    let count = count.astype(crate::core::dtype::DType::Int64)?;
    Ok(Mode { mode, count })
}
