//! Counting and binning with NumPy's semantics: `histogram`,
//! `histogram2d`, `histogramdd`, `bincount` and `interp`.
//!
//! The counting runs on the array's device (one kernel on the GPU: see
//! `cuda/binning.rs`); only the range of the data (two reductions, read
//! back as scalars), the largest value of `bincount`'s input and the checks
//! of explicit edges come back to the host, never the data.
//!
//! Differences from NumPy: values and edges are compared as float64, so
//! int64 values beyond 2^53 may land one bin off; weighted histograms sum
//! the weights in float64 and then cast the sums to the weights' dtype (as
//! NumPy's equal-width path does, per block of 65536 values); string bin
//! rules (`bins="auto"`) and complex inputs are not supported.

use crate::api::creation::{alloc, linspace_values_rounded, upload};
use crate::api::shape::index::same_device;
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::{Element, Scalar};
use crate::core::error::{fmt_shape, Error, Result};
use crate::ops::binning::{BinAxis, Bincount, Histogram, Interp};

/// The most axes `histogramdd` bins along (NumPy's limit for its flat
/// bin index).
const MAX_AXES: usize = 32;

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

/// How values are binned: a number of equal-width bins over the range, or
/// explicit, monotonically increasing bin edges.
#[derive(Debug, Clone, Copy)]
pub enum Bins<'a> {
    /// This many equal-width bins (at least one).
    Count(i64),
    /// These edges (a 1-D array on the data's device): `n + 1` edges make
    /// `n` bins.
    Edges(&'a Array),
}

macro_rules! bins_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Bins<'_> {
            fn from(n: $t) -> Self {
                Bins::Count(i64::try_from(n).unwrap_or(i64::MAX))
            }
        }
    )*};
}
bins_from_int!(i32, i64, u32, usize);

impl<'a> From<&'a Array> for Bins<'a> {
    fn from(edges: &'a Array) -> Self {
        Bins::Edges(edges)
    }
}

/// The options of [`histogram_with`]: NumPy's `bins`, `range`, `density`
/// and `weights`.
#[derive(Debug, Clone, Copy)]
pub struct HistogramOptions<'a> {
    /// The bins (default: 10 equal-width bins).
    pub bins: Bins<'a>,
    /// The lower and upper edge of equal-width bins (default: the data's
    /// minimum and maximum); values outside are not counted.
    pub range: Option<(f64, f64)>,
    /// Return the probability density (integrating to one over the range)
    /// rather than counts, as float64.
    pub density: bool,
    /// A weight per value (same shape as the data): the counts become the
    /// sums of the weights, in the weights' dtype.
    pub weights: Option<&'a Array>,
}

impl Default for HistogramOptions<'_> {
    fn default() -> Self {
        HistogramOptions {
            bins: Bins::Count(10),
            range: None,
            density: false,
            weights: None,
        }
    }
}

impl<'a> HistogramOptions<'a> {
    /// NumPy's defaults: 10 bins over the data's range, counts, no weights.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the bins: a count or an edges array.
    pub fn bins(mut self, bins: impl Into<Bins<'a>>) -> Self {
        self.bins = bins.into();
        self
    }

    /// Sets the range of equal-width bins.
    pub fn range(mut self, lo: f64, hi: f64) -> Self {
        self.range = Some((lo, hi));
        self
    }
}

option_setters!(HistogramOptions<'a> {
    /// Sets whether the result is a density.
    density: bool,
    /// Sets the weights.
    weights: &'a Array,
});

/// The options of [`histogramdd_with`] and [`histogram2d_with`]: NumPy's
/// `bins`, `range`, `density` and `weights`, per axis where NumPy takes one
/// per axis.
#[derive(Debug, Clone, Default)]
pub struct HistogramddOptions<'a> {
    /// The bins of every axis (empty: 10 equal-width bins each; one entry:
    /// the same for every axis; else one per axis).
    pub bins: Vec<Bins<'a>>,
    /// The range of each axis' equal-width bins (empty: the data's range
    /// for every axis; else one per axis, `None` for the data's).
    pub ranges: Vec<Option<(f64, f64)>>,
    /// Return the probability density rather than counts.
    pub density: bool,
    /// A weight per sample.
    pub weights: Option<&'a Array>,
}

impl<'a> HistogramddOptions<'a> {
    /// NumPy's defaults: 10 bins per axis over the data's range, counts.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same bins for every axis.
    pub fn bins(mut self, bins: impl Into<Bins<'a>>) -> Self {
        self.bins = vec![bins.into()];
        self
    }

    /// Bins per axis.
    pub fn bins_per_axis(mut self, bins: Vec<Bins<'a>>) -> Self {
        self.bins = bins;
        self
    }
}

option_setters!(HistogramddOptions<'a> {
    /// The range per axis (`None`: the data's).
    ranges: Vec<Option<(f64, f64)>>,
    /// Sets whether the result is a density.
    density: bool,
    /// Sets the weights.
    weights: &'a Array,
});

/// The options of [`interp_with`]: NumPy's `left`, `right` and `period`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct InterpOptions {
    /// The value below the first sample point (default: the first value).
    pub left: Option<f64>,
    /// The value above the last sample point (default: the last value).
    pub right: Option<f64>,
    /// The period of the x-coordinates (angles, say): points wrap around
    /// and `left`/`right` are ignored.
    pub period: Option<f64>,
}

impl InterpOptions {
    /// Sets the value below the first sample point.
    pub fn left(mut self, value: f64) -> Self {
        self.left = Some(value);
        self
    }

    /// Sets the value above the last sample point.
    pub fn right(mut self, value: f64) -> Self {
        self.right = Some(value);
        self
    }

    /// Sets the period of the x-coordinates.
    pub fn period(mut self, period: f64) -> Self {
        self.period = Some(period);
        self
    }
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// Fails unless `a` and `b` are 1-D of the same length; `names` are theirs
/// in NumPy's signature.
fn same_length_1d(op: &'static str, names: [&str; 2], a: &Array, b: &Array) -> Result<()> {
    if a.ndim() == 1 && b.ndim() == 1 && a.size() == b.size() {
        return Ok(());
    }
    let [na, nb] = names;
    let (sa, sb) = (fmt_shape(a.shape()), fmt_shape(b.shape()));
    let detail = format!("{na} and {nb} must be 1-D of the same length (got shapes {sa} and {sb})");
    Err(Error::shape(op, detail))
}

/// Fails for complex (or other non-real) dtypes, which these ops do not bin.
fn real(op: &'static str, what: &str, a: &Array) -> Result<()> {
    if a.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!(
                "{what} has dtype {}; only real dtypes are supported",
                a.dtype()
            ),
        });
    }
    Ok(())
}

/// The float dtype NumPy makes edges of `dt`'s values in: float64 for bool
/// and integers.
fn float_of(dt: DType) -> DType {
    if dt.is_float() {
        dt
    } else {
        DType::Float64
    }
}

/// `v` rounded to `dt` (a float dtype), back as f64.
fn round_to(dt: DType, v: f64) -> f64 {
    crate::with_dtype!(dt, T => T::from_scalar(Scalar::Float(v)).to_scalar().as_f64())
}

/// The value of a one-element array (or view), read back alone.
fn scalar(a: &Array) -> Result<Scalar> {
    crate::with_dtype!(a.dtype(), T => Ok(a.to_vec::<T>()?[0].to_scalar()))
}

/// The value of a one-element array (or view), as f64.
fn value(a: &Array) -> Result<f64> {
    Ok(scalar(a)?.as_f64())
}

/// `a` as C-contiguous float64 (no copy when it already is).
fn contiguous_f64(a: &Array) -> Result<Array> {
    if a.dtype() == DType::Float64 && a.is_c_contiguous() {
        Ok(a.clone())
    } else {
        a.astype(DType::Float64)
    }
}

/// `a` as `dtype`, without a copy when it already is.
fn cast(a: &Array, dtype: DType) -> Result<Array> {
    if a.dtype() == dtype {
        Ok(a.clone())
    } else {
        a.astype(dtype)
    }
}

// ---------------------------------------------------------------------------
// Edges
// ---------------------------------------------------------------------------

/// The edges of one axis: as returned to the caller, as the float64 copy
/// the backend searches, and whether they are uniform.
struct Edges {
    returned: Array,
    search: Array,
    uniform: bool,
}

impl Edges {
    fn nbins(&self) -> usize {
        self.search.size().saturating_sub(1)
    }
}

/// Which function's rules equal-width edges follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// `histogram`: edges in the data's float dtype, "too many bins" checked.
    Histogram,
    /// `histogramdd`: edges in the dtype `linspace` computes them in.
    Histogramdd,
}

/// NumPy's `_get_outer_edges`: the range of equal-width bins over
/// `values`, widened by 0.5 each way when empty, and the dtype NumPy
/// computes the edges in (float64 for a given range).
fn outer_edges(
    op: &'static str,
    values: &Array,
    range: Option<(f64, f64)>,
) -> Result<(f64, f64, DType)> {
    let (lo, hi, dt) = match range {
        Some((lo, hi)) => {
            if lo > hi {
                return Err(Error::invalid(
                    op,
                    format!("max must be larger than min in range parameter (got ({lo}, {hi}))"),
                ));
            }
            if !lo.is_finite() || !hi.is_finite() {
                return Err(Error::invalid(
                    op,
                    format!("supplied range of [{lo}, {hi}] is not finite"),
                ));
            }
            (lo, hi, DType::Float64)
        }
        None if values.size() == 0 => (0.0, 1.0, DType::Float64),
        None => {
            // NaN propagates through min and max, so it fails here as in NumPy.
            let (lo, hi) = (value(&values.min()?)?, value(&values.max()?)?);
            if !lo.is_finite() || !hi.is_finite() {
                return Err(Error::invalid(
                    op,
                    format!("autodetected range of [{lo}, {hi}] is not finite"),
                ));
            }
            (lo, hi, float_of(values.dtype()))
        }
    };
    if lo == hi {
        return Ok((round_to(dt, lo - 0.5), round_to(dt, hi + 0.5), dt));
    }
    Ok((lo, hi, dt))
}

/// Host values as a 1-D array of `dtype` on `device`.
fn upload_on(op: &'static str, device: Device, v: Vec<f64>, dtype: DType) -> Result<Array> {
    with_device(device, || upload(op, v, dtype))
}

/// `n` equal-width bins over the range of `values` (or `range`), with the
/// edges NumPy computes (its `linspace` in its dtype).
fn equal_edges(
    op: &'static str,
    values: &Array,
    n: i64,
    range: Option<(f64, f64)>,
    rule: Rule,
) -> Result<Edges> {
    if n < 1 {
        return Err(Error::invalid(
            op,
            format!("`bins` must be positive, when an integer (got {n})"),
        ));
    }
    let n = n as usize;
    crate::core::layout::check_host_room(op, n.saturating_add(1), 8)?;
    let (lo, hi, dt) = outer_edges(op, values, range)?;
    let edge_dt = match rule {
        Rule::Histogram => float_of(values.dtype()),
        Rule::Histogramdd => dt,
    };
    let v: Vec<f64> = linspace_values_rounded(lo, hi, n + 1, true, |x| round_to(dt, x))
        .into_iter()
        .map(|x| round_to(edge_dt, x))
        .collect();
    let strictly_increasing = v.windows(2).all(|w| w[0] < w[1]);
    if rule == Rule::Histogram && !strictly_increasing {
        return Err(Error::invalid(
            op,
            format!("Too many bins for data range. Cannot create {n} finite-sized bins."),
        ));
    }
    let device = values.device();
    Ok(Edges {
        returned: upload_on(op, device, v.clone(), edge_dt)?,
        search: upload_on(op, device, v, DType::Float64)?,
        uniform: strictly_increasing,
    })
}

/// Explicit edges, checked: 1-D, real, on `device`, monotonically increasing.
fn given_edges(op: &'static str, values: &Array, edges: &Array, what: &str) -> Result<Edges> {
    same_device(op, values, edges)?;
    real(op, what, edges)?;
    if edges.ndim() != 1 {
        return Err(Error::invalid(
            op,
            format!(
                "`{what}` must be 1d, when an array (got shape {})",
                fmt_shape(edges.shape())
            ),
        ));
    }
    if edges.size() > 1 {
        let decreasing = crate::greater(
            &edges.slice(crate::s![..-1])?,
            &edges.slice(crate::s![1..])?,
        )?
        .any()?
        .item::<bool>()?;
        if decreasing {
            return Err(Error::invalid(
                op,
                format!("`{what}` must increase monotonically, when an array"),
            ));
        }
    }
    Ok(Edges {
        returned: edges.clone(),
        search: contiguous_f64(edges)?,
        uniform: false,
    })
}

fn edges_of(
    op: &'static str,
    values: &Array,
    bins: Bins<'_>,
    range: Option<(f64, f64)>,
    rule: Rule,
    what: &str,
) -> Result<Edges> {
    match bins {
        Bins::Count(n) => equal_edges(op, values, n, range, rule),
        Bins::Edges(e) => given_edges(op, values, e, what),
    }
}

/// The counts (int64) or float64 weight sums of the samples `columns`
/// (1-D, one dtype, one length) binned by `edges`, of shape `nbins` per axis.
fn count(
    op: &'static str,
    columns: &[Array],
    edges: &[Edges],
    weights: Option<&Array>,
) -> Result<Array> {
    let device = columns[0].device();
    let shape: Vec<usize> = edges.iter().map(Edges::nbins).collect();
    let dtype = if weights.is_some() {
        DType::Float64
    } else {
        DType::Int64
    };
    let out = alloc(op, device, &shape, dtype)?;
    let b = crate::backend::on(op, device)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let axes: Vec<BinAxis<'_>> = columns
        .iter()
        .zip(edges)
        .map(|(c, e)| BinAxis {
            values: c.view(),
            edges: e.search.view(),
            uniform: e.uniform,
        })
        .collect();
    b.histogram(
        op,
        Histogram {
            axes: &axes,
            weights: weights.map(Array::view),
            out: out.view(),
        },
    )?;
    Ok(out)
}

/// Checks weights against `n` samples of `like` (device, dtype) and gives
/// them 1-D; `shape` is the shape they must have.
fn weights_1d(
    op: &'static str,
    like: &Array,
    weights: Option<&Array>,
    shape: &[usize],
    mismatch: &str,
) -> Result<Option<Array>> {
    let Some(w) = weights else { return Ok(None) };
    same_device(op, like, w)?;
    real(op, "weights", w)?;
    if w.shape() != shape {
        let (got, want) = (fmt_shape(w.shape()), fmt_shape(shape));
        let detail = format!("{mismatch} (weights have shape {got}, expected {want})");
        return Err(Error::shape(op, detail));
    }
    w.ravel().map(Some)
}

// ---------------------------------------------------------------------------
// histogram
// ---------------------------------------------------------------------------

/// The histogram of the values of `a` (any shape) in `bins` (a count or an
/// edges array), as `np.histogram(a, bins)`: int64 counts and the edges.
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![1.0, 2.0, 2.0, 3.0, 4.0])?;
/// let (counts, edges) = cp::histogram(&a, 3)?;
/// assert_eq!(counts.to_vec::<i64>()?, vec![1, 2, 2]);
/// assert_eq!(edges.to_vec::<f64>()?, vec![1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn histogram<'a>(a: &Array, bins: impl Into<Bins<'a>>) -> Result<(Array, Array)> {
    histogram_with(a, HistogramOptions::new().bins(bins))
}

/// The histogram of `a` with NumPy's options (`np.histogram(a, bins, range,
/// density, weights)`): the counts (int64; the weights' dtype with weights;
/// float64 with `density`) and the `n + 1` edges.
///
/// A value `v` is in bin `i` when `edges[i] <= v < edges[i + 1]`; the last
/// bin also holds the upper edge. Values outside the range are not counted;
/// NaN is never counted, and with the range taken from the data it is an
/// error (the range is not finite). Equal-width edges have the data's float
/// dtype (float64 for integers and bool).
///
/// ```
/// use cuprite as cp;
/// let a = cp::asarray(vec![0.5f32, 1.5, 1.5, 9.0])?;
/// let w = cp::asarray(vec![1.0f32, 2.0, 0.5, 4.0])?;
/// let opts = cp::HistogramOptions::new().bins(2).range(0.0, 2.0).weights(&w);
/// let (sums, edges) = cp::histogram_with(&a, opts)?;
/// assert_eq!(sums.to_vec::<f32>()?, vec![1.0, 2.5]);
/// assert_eq!(edges.to_vec::<f32>()?, vec![0.0, 1.0, 2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn histogram_with(a: &Array, opts: HistogramOptions<'_>) -> Result<(Array, Array)> {
    let op = "histogram";
    real(op, "a", a)?;
    let values = a.ravel()?;
    let weights = weights_1d(
        op,
        a,
        opts.weights,
        a.shape(),
        "weights should have the same shape as a",
    )?;
    let edges = edges_of(op, &values, opts.bins, opts.range, Rule::Histogram, "bins")?;
    let sums = count(
        op,
        &[values],
        std::slice::from_ref(&edges),
        weights.as_ref(),
    )?;
    // NumPy's counts have the weights' dtype.
    let counts = match opts.weights {
        Some(w) => cast(&sums, w.dtype())?,
        None => sums,
    };
    if !opts.density {
        return Ok((counts, edges.returned));
    }
    let n = counts.astype(DType::Float64)?;
    let widths = crate::diff(&edges.returned, 1, -1)?.astype(DType::Float64)?;
    let density = crate::divide(&crate::divide(&n, &widths)?, &n.sum()?)?;
    Ok((density, edges.returned))
}

// ---------------------------------------------------------------------------
// histogramdd and histogram2d
// ---------------------------------------------------------------------------

/// The n-D histogram of the columns (one per axis, 1-D, same length).
fn histogram_columns(
    op: &'static str,
    columns: &[Array],
    opts: HistogramddOptions<'_>,
) -> Result<(Array, Vec<Array>)> {
    let d = columns.len();
    if d == 0 || d > MAX_AXES {
        return Err(Error::invalid(
            op,
            format!("the sample has {d} dimensions; 1 to {MAX_AXES} are supported"),
        ));
    }
    let bins: Vec<Bins<'_>> = match opts.bins.len() {
        0 => vec![Bins::Count(10); d],
        1 => vec![opts.bins[0]; d],
        k if k == d => opts.bins.clone(),
        k => {
            return Err(Error::invalid(
                op,
                format!("The dimension of bins must be equal to the dimension of the sample x (got {k} bins for {d} dimensions)"),
            ))
        }
    };
    let ranges = match opts.ranges.len() {
        0 => vec![None; d],
        k if k == d => opts.ranges.clone(),
        k => {
            return Err(Error::invalid(
                op,
                format!(
                    "range argument must have one entry per dimension (got {k} for {d} dimensions)"
                ),
            ))
        }
    };
    let n = columns[0].size();
    let weights = weights_1d(
        op,
        &columns[0],
        opts.weights,
        &[n],
        "The weights and list don't have the same length.",
    )?;
    let edges: Vec<Edges> = (0..d)
        .map(|i| {
            let what = format!("bins[{i}]");
            edges_of(
                op,
                &columns[i],
                bins[i],
                ranges[i],
                Rule::Histogramdd,
                &what,
            )
        })
        .collect::<Result<_>>()?;
    let hist = count(op, columns, &edges, weights.as_ref())?.astype(DType::Float64)?;
    let edges: Vec<Array> = edges.into_iter().map(|e| e.returned).collect();
    if !opts.density {
        return Ok((hist, edges));
    }
    let total = hist.sum()?;
    let mut density = hist;
    for (i, e) in edges.iter().enumerate() {
        let mut shape = vec![1isize; d];
        shape[i] = -1;
        let widths = crate::diff(e, 1, -1)?.reshape(shape)?;
        density = crate::divide(&density, &widths)?;
    }
    Ok((crate::divide(&density, &total)?, edges))
}

/// The multidimensional histogram of `sample` (N samples by D dimensions;
/// 1-D is one dimension) with `bins` per axis, as `np.histogramdd(sample,
/// bins)`: float64 counts of shape `(bins,) * D` and the edges of each axis.
///
/// ```
/// use cuprite as cp;
/// let s = cp::asarray(vec![vec![0.0, 0.0], vec![1.0, 1.0], vec![1.0, 0.0]])?;
/// let (h, edges) = cp::histogramdd(&s, 2)?;
/// assert_eq!(h.to_vec::<f64>()?, vec![1.0, 0.0, 1.0, 1.0]);
/// assert_eq!(edges[0].to_vec::<f64>()?, vec![0.0, 0.5, 1.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn histogramdd<'a>(sample: &Array, bins: impl Into<Bins<'a>>) -> Result<(Array, Vec<Array>)> {
    histogramdd_with(sample, HistogramddOptions::new().bins(bins))
}

/// [`histogramdd`] with NumPy's options (bins and range per axis, density,
/// weights). A sample is in a bin of an axis by the rule of
/// [`histogram_with`]; a sample outside any axis' range is not counted.
/// Equal-width edges have the data's float dtype when the range comes from
/// the data and float64 when it is given (NumPy's `linspace`).
///
/// ```
/// use cuprite as cp;
/// let s = cp::asarray(vec![vec![0.2, 5.0], vec![0.7, 6.0], vec![0.9, 9.0]])?;
/// let opts = cp::HistogramddOptions::new()
///     .bins_per_axis(vec![2.into(), 1.into()])
///     .ranges(vec![Some((0.0, 1.0)), None]);
/// let (h, _) = cp::histogramdd_with(&s, opts)?;
/// assert_eq!(h.shape(), &[2, 1]);
/// assert_eq!(h.to_vec::<f64>()?, vec![1.0, 2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn histogramdd_with(
    sample: &Array,
    opts: HistogramddOptions<'_>,
) -> Result<(Array, Vec<Array>)> {
    let op = "histogramdd";
    real(op, "sample", sample)?;
    let sample = match sample.ndim() {
        1 => sample.reshape([sample.size(), 1])?,
        2 => sample.clone(),
        _ => {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "sample must be (N, D) or 1-D, got shape {}",
                    fmt_shape(sample.shape())
                ),
            })
        }
    };
    let columns: Vec<Array> = (0..sample.shape()[1])
        .map(|i| sample.slice(crate::s![.., i]))
        .collect::<Result<_>>()?;
    histogram_columns(op, &columns, opts)
}

/// The 2-D histogram of the points `(x[i], y[i])`, as `np.histogram2d(x, y,
/// bins)`: float64 counts of shape `(bins, bins)` (x along the first axis)
/// and the x and y edges.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![0.0, 1.0, 1.0])?;
/// let y = cp::asarray(vec![0.0, 1.0, 0.0])?;
/// let (h, xe, ye) = cp::histogram2d(&x, &y, 2)?;
/// assert_eq!(h.to_vec::<f64>()?, vec![1.0, 0.0, 1.0, 1.0]);
/// assert_eq!(xe.to_vec::<f64>()?, vec![0.0, 0.5, 1.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn histogram2d<'a>(
    x: &Array,
    y: &Array,
    bins: impl Into<Bins<'a>>,
) -> Result<(Array, Array, Array)> {
    histogram2d_with(x, y, HistogramddOptions::new().bins(bins))
}

/// [`histogram2d`] with NumPy's options (as [`histogramdd_with`]'s, for two
/// axes). `x` and `y` are 1-D of one length; they are binned in their
/// common dtype.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![0.1, 0.6, 0.7])?;
/// let y = cp::asarray(vec![0.1, 0.2, 0.9])?;
/// let opts = cp::HistogramddOptions::new().bins(2).ranges(vec![Some((0.0, 1.0)); 2]).density(true);
/// let (h, _, _) = cp::histogram2d_with(&x, &y, opts)?;
/// let expected = [4.0 / 3.0, 0.0, 4.0 / 3.0, 4.0 / 3.0];
/// for (g, e) in h.to_vec::<f64>()?.iter().zip(expected) {
///     assert!((g - e).abs() < 1e-12);
/// }
/// # Ok::<(), cp::Error>(())
/// ```
pub fn histogram2d_with(
    x: &Array,
    y: &Array,
    opts: HistogramddOptions<'_>,
) -> Result<(Array, Array, Array)> {
    let op = "histogram2d";
    same_device(op, x, y)?;
    real(op, "x", x)?;
    real(op, "y", y)?;
    same_length_1d(op, ["x", "y"], x, y)?;
    let dt = crate::promote_types(x.dtype(), y.dtype());
    let columns = [cast(x, dt)?, cast(y, dt)?];
    let (hist, mut edges) = histogram_columns(op, &columns, opts)?;
    let ye = edges
        .pop()
        .expect("histogram_columns gives one edge array per column, two here");
    let xe = edges
        .pop()
        .expect("histogram_columns gives one edge array per column, two here");
    Ok((hist, xe, ye))
}

// ---------------------------------------------------------------------------
// bincount
// ---------------------------------------------------------------------------

/// The number of occurrences of each value in the non-negative integers
/// `x` (1-D), as `np.bincount(x, weights, minlength)`: int64 counts (float64
/// sums of `weights` with weights) of length `max(x.max() + 1, minlength)`.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![0i32, 1, 1, 3])?;
/// assert_eq!(cp::bincount(&x, None, 0)?.to_vec::<i64>()?, vec![1, 2, 0, 1]);
/// let w = cp::asarray(vec![0.5, 1.0, 2.0, 0.25])?;
/// let sums = cp::bincount(&x, Some(&w), 6)?;
/// assert_eq!(sums.to_vec::<f64>()?, vec![0.5, 3.0, 0.0, 0.25, 0.0, 0.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn bincount(x: &Array, weights: Option<&Array>, minlength: usize) -> Result<Array> {
    let op = "bincount";
    if x.ndim() != 1 {
        return Err(Error::shape(
            op,
            format!("x must be 1-D, got shape {}", fmt_shape(x.shape())),
        ));
    }
    let dt = x.dtype();
    if !(dt.is_integer() || dt.is_bool()) {
        return Err(Error::DType {
            op,
            detail: format!("cannot cast {dt} to int64 safely; bincount counts integers"),
        });
    }
    let weights = weights_1d(
        op,
        x,
        weights,
        x.shape(),
        "The weights and list don't have the same length.",
    )?;
    let mut len = minlength;
    if x.size() > 0 {
        if dt.is_signed_integer() {
            let lo = scalar(&x.min()?)?.as_i64();
            if lo < 0 {
                return Err(Error::invalid(
                    op,
                    format!("'list' argument must have no negative elements (found {lo})"),
                ));
            }
        }
        let hi = scalar(&x.max()?)?.as_u64();
        let needed = usize::try_from(hi)
            .ok()
            .and_then(|h| h.checked_add(1))
            .ok_or_else(|| Error::Overflow {
                op,
                detail: format!("{hi} + 1 bins"),
            })?;
        len = len.max(needed);
    }
    let dtype = if weights.is_some() {
        DType::Float64
    } else {
        DType::Int64
    };
    let out = alloc(op, x.device(), &[len], dtype)?;
    let count = Bincount {
        x: x.view(),
        weights: weights.as_ref().map(Array::view),
        out: out.view(),
    };
    crate::backend::on(op, x.device())?.bincount(op, count)?;
    Ok(out)
}

// ---------------------------------------------------------------------------
// interp
// ---------------------------------------------------------------------------

/// One-dimensional linear interpolation of the points `(xp, fp)` at `x`, as
/// `np.interp(x, xp, fp)`: float64 of `x`'s shape; below `xp[0]` it is
/// `fp[0]`, above the last point the last value. `xp` must be increasing
/// (not checked, as in NumPy).
///
/// ```
/// use cuprite as cp;
/// let xp = cp::asarray(vec![1.0, 2.0, 3.0])?;
/// let fp = cp::asarray(vec![3.0, 2.0, 0.0])?;
/// let x = cp::asarray(vec![0.0, 1.5, 2.5, 9.0])?;
/// assert_eq!(cp::interp(&x, &xp, &fp)?.to_vec::<f64>()?, vec![3.0, 2.5, 1.0, 0.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn interp(x: &Array, xp: &Array, fp: &Array) -> Result<Array> {
    interp_with(x, xp, fp, InterpOptions::default())
}

/// [`interp`] with NumPy's `left`, `right` and `period`.
///
/// ```
/// use cuprite as cp;
/// let xp = cp::asarray(vec![0.0, 1.0])?;
/// let fp = cp::asarray(vec![0.0, 10.0])?;
/// let x = cp::asarray(vec![-1.0, 0.5, 2.0])?;
/// let opts = cp::InterpOptions::default().left(-5.0).right(99.0);
/// assert_eq!(cp::interp_with(&x, &xp, &fp, opts)?.to_vec::<f64>()?, vec![-5.0, 5.0, 99.0]);
/// // With a period of 2, x = 1.5 lies between xp = 1 and xp = 0 + 2.
/// let opts = cp::InterpOptions::default().period(2.0);
/// let x = cp::asarray(vec![1.5])?;
/// assert_eq!(cp::interp_with(&x, &xp, &fp, opts)?.to_vec::<f64>()?, vec![5.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn interp_with(x: &Array, xp: &Array, fp: &Array, opts: InterpOptions) -> Result<Array> {
    let op = "interp";
    same_device(op, x, xp)?;
    same_device(op, x, fp)?;
    for (what, a) in [("x", x), ("xp", xp), ("fp", fp)] {
        real(op, what, a)?;
    }
    same_length_1d(op, ["xp", "fp"], xp, fp)?;
    if xp.size() == 0 {
        return Err(Error::invalid(op, "array of sample points is empty"));
    }
    let (mut left, mut right) = (opts.left, opts.right);
    let (x, xp, fp) = match opts.period {
        None => (x.clone(), contiguous_f64(xp)?, contiguous_f64(fp)?),
        Some(p) => {
            if p == 0.0 || !p.is_finite() {
                return Err(Error::invalid(
                    op,
                    format!("period must be a finite non-zero value (got {p})"),
                ));
            }
            (left, right) = (None, None);
            periodic(&x.astype(DType::Float64)?, xp, fp, p.abs())?
        }
    };
    // NumPy's defaults: the first and last values, read on the device.
    let left = match left {
        Some(v) => v,
        None => value(&fp.slice(crate::s![0])?)?,
    };
    let right = match right {
        Some(v) => v,
        None => value(&fp.slice(crate::s![-1])?)?,
    };
    let flat = x.ravel()?;
    let out = alloc(op, x.device(), x.shape(), DType::Float64)?;
    crate::backend::on(op, x.device())?.interp(
        op,
        Interp {
            x: flat.view(),
            xp: xp.view(),
            fp: fp.view(),
            left,
            right,
            out: out.view(),
        },
    )?;
    Ok(out)
}

/// NumPy's periodic preparation: `x` and `xp` reduced modulo `period`,
/// the points sorted, and one point wrapped onto each end.
fn periodic(x: &Array, xp: &Array, fp: &Array, period: f64) -> Result<(Array, Array, Array)> {
    let x = crate::remainder(x, period)?;
    let xp = crate::remainder(&xp.astype(DType::Float64)?, period)?;
    let order = crate::argsort(&xp, -1)?;
    let xp = xp.take(&order, None)?;
    let fp = fp.astype(DType::Float64)?.take(&order, None)?;
    let (xp_last, xp_first) = (xp.slice(crate::s![-1..])?, xp.slice(crate::s![..1])?);
    let xp = crate::concatenate(
        &[
            &crate::subtract(&xp_last, period)?,
            &xp,
            &crate::add(&xp_first, period)?,
        ],
        0,
    )?;
    let fp = crate::concatenate(
        &[&fp.slice(crate::s![-1..])?, &fp, &fp.slice(crate::s![..1])?],
        0,
    )?;
    Ok((x, xp, fp))
}
