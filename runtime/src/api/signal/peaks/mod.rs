//! Peak finding (`scipy.signal.find_peaks`, `peak_prominences`,
//! `peak_widths`, `argrelextrema`), on the signal's device.
//!
//! `find_peaks` finds local maxima with SciPy's plateau rule and tests the
//! plateau-size, height and threshold conditions in one backend call
//! (`Signal::local_peaks`: SciPy's loop on the CPU, two passes over the
//! signal on the GPU). Where the GPU declines (a plateau too long for one
//! thread to walk) the same is done as array operations: the positions
//! where the signal changes (`flatnonzero` of `x[1:] != x[:-1]`) and
//! whether each change rises or falls (a change next to a NaN does
//! neither); a peak is a rise followed by a fall among those changes,
//! placed at the middle of the flat run between them, and the conditions
//! are masks compacted by `flatnonzero` and `take`. Prominences and widths are one GPU thread per peak, and the
//! distance rule is a parallel maximal independent set on the GPU
//! (`cuda::peaks` says why that equals SciPy's greedy pass).

mod extrema;
mod scans;

pub use extrema::{argrelextrema, argrelmax, argrelmin, Comparator, ExtremaMode};
pub use scans::{peak_prominences, peak_widths};

use crate::api::elementwise::{
    add, floor_divide, greater_equal, less, less_equal, logical_and, maximum, minimum, not_equal,
    subtract,
};
use crate::api::shape::index::{flatnonzero, slice_axis, take};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::ops::signal::{LocalPeaks, PeakConds, PeakSet};

use scans::{peak_indices, prominences_of, signal_f64, widths_of, wlen_samples};

/// An interval condition on a peak property: `min <= value <= max`, either
/// end optional. `3.0.into()` is a minimum, `(1.0, 5.0).into()` both ends.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bounds {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl From<f64> for Bounds {
    fn from(min: f64) -> Bounds {
        Bounds {
            min: Some(min),
            max: None,
        }
    }
}

impl From<(f64, f64)> for Bounds {
    fn from((min, max): (f64, f64)) -> Bounds {
        Bounds {
            min: Some(min),
            max: Some(max),
        }
    }
}

/// The conditions of [`find_peaks`] (SciPy's arguments; `None` tests
/// nothing). Per-peak arrays of bounds are not supported.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FindPeaksOptions {
    pub height: Option<Bounds>,
    pub threshold: Option<Bounds>,
    /// Minimal horizontal distance in samples between neighbouring peaks (at least 1).
    pub distance: Option<f64>,
    pub prominence: Option<Bounds>,
    pub width: Option<Bounds>,
    /// Window of the prominence search (default the whole signal).
    pub wlen: Option<f64>,
    /// Height of the width measurement relative to the prominence (default 0.5).
    pub rel_height: f64,
    pub plateau_size: Option<Bounds>,
}

impl Default for FindPeaksOptions {
    fn default() -> Self {
        FindPeaksOptions {
            height: None,
            threshold: None,
            distance: None,
            prominence: None,
            width: None,
            wlen: None,
            rel_height: 0.5,
            plateau_size: None,
        }
    }
}

/// The properties [`find_peaks`] computed while testing its conditions
/// (SciPy's `properties` dict), one value per returned peak.
#[derive(Debug, Clone, Default)]
pub struct PeakProperties {
    pub plateau_sizes: Option<Array>,
    pub left_edges: Option<Array>,
    pub right_edges: Option<Array>,
    pub peak_heights: Option<Array>,
    pub left_thresholds: Option<Array>,
    pub right_thresholds: Option<Array>,
    pub prominences: Option<Array>,
    pub left_bases: Option<Array>,
    pub right_bases: Option<Array>,
    pub widths: Option<Array>,
    pub width_heights: Option<Array>,
    pub left_ips: Option<Array>,
    pub right_ips: Option<Array>,
}

impl PeakProperties {
    fn fields(&mut self) -> [&mut Option<Array>; 13] {
        [
            &mut self.plateau_sizes,
            &mut self.left_edges,
            &mut self.right_edges,
            &mut self.peak_heights,
            &mut self.left_thresholds,
            &mut self.right_thresholds,
            &mut self.prominences,
            &mut self.left_bases,
            &mut self.right_bases,
            &mut self.widths,
            &mut self.width_heights,
            &mut self.left_ips,
            &mut self.right_ips,
        ]
    }
}

/// The last-axis slice `[start, end)` of a 1-D array (a view).
fn part(a: &Array, start: usize, end: usize) -> Result<Array> {
    slice_axis(a, 0, Some(start as isize), Some(end as isize), 1)
}

/// (peaks, left edges, right edges) of the local maxima of the 1-D float64 `x`.
fn local_maxima(x: &Array) -> Result<[Array; 3]> {
    let n = x.size();
    let empty = || -> Result<Array> {
        part(
            &crate::with_device(x.device(), || crate::api::creation::arange(1i64))?,
            0,
            0,
        )
    };
    if n < 3 {
        return Ok([empty()?, empty()?, empty()?]);
    }
    let (head, tail) = (part(x, 0, n - 1)?, part(x, 1, n)?);
    // Positions k where x[k + 1] differs from x[k], and whether it rises there.
    let changes = flatnonzero(&not_equal(&tail, &head)?)?;
    let m = changes.size();
    if m < 2 {
        return Ok([empty()?, empty()?, empty()?]);
    }
    let rises = take(
        &crate::api::elementwise::greater(&tail, &head)?,
        &changes,
        None,
    )?;
    // A change next to a NaN neither rises nor falls (SciPy's loop compares
    // with `<`, so a NaN on either side of a plateau makes no peak).
    let falls = take(&less(&tail, &head)?, &changes, None)?;
    let rise_then_fall = logical_and(part(&rises, 0, m - 1)?, part(&falls, 1, m)?)?;
    let at = flatnonzero(&rise_then_fall)?;
    let left = add(take(&changes, &at, None)?, 1i64)?;
    let right = take(&changes, add(&at, 1i64)?, None)?;
    let peaks = floor_divide(add(&left, &right)?, 2i64)?;
    Ok([peaks, left, right])
}

/// `lo <= v <= hi` for the bounds given.
fn within(v: &Array, b: Bounds) -> Result<Option<Array>> {
    let lo = b.min.map(|m| greater_equal(v, m)).transpose()?;
    let hi = b.max.map(|m| less_equal(v, m)).transpose()?;
    Ok(match (lo, hi) {
        (Some(a), Some(b)) => Some(logical_and(&a, &b)?),
        (a, b) => a.or(b),
    })
}

/// Keeps the peaks (and every property) where `keep` holds.
fn compact(peaks: &mut Array, props: &mut PeakProperties, keep: Option<Array>) -> Result<()> {
    let Some(keep) = keep else { return Ok(()) };
    let idx = flatnonzero(&keep)?;
    *peaks = take(peaks, &idx, None)?;
    for f in props.fields() {
        if let Some(a) = f.as_ref() {
            *f = Some(take(a, &idx, None)?);
        }
    }
    Ok(())
}

fn check_bounds(op: &'static str, what: &str, b: Option<Bounds>) -> Result<()> {
    if let Some(b) = b {
        for v in [b.min, b.max].into_iter().flatten() {
            if v.is_nan() {
                return Err(Error::invalid(op, format!("{what} bounds must not be NaN")));
            }
        }
    }
    Ok(())
}

fn ends(b: Option<Bounds>) -> [Option<f64>; 2] {
    b.map_or([None, None], |b| [b.min, b.max])
}

/// The peaks and properties of a `Signal::local_peaks` result.
fn from_set(set: PeakSet) -> Result<(Array, PeakProperties)> {
    let n = set.count;
    let wrap = |s: Storage, dt| Array::from_parts(s, Layout::contiguous(&[n]), dt);
    let mut props = PeakProperties::default();
    if let Some([l, r]) = set.edges {
        let (l, r) = (wrap(l, DType::Int64), wrap(r, DType::Int64));
        props.plateau_sizes = Some(add(subtract(&r, &l)?, 1i64)?);
        props.left_edges = Some(l);
        props.right_edges = Some(r);
    }
    props.peak_heights = set.heights.map(|h| wrap(h, DType::Float64));
    if let Some([l, r]) = set.thresholds {
        props.left_thresholds = Some(wrap(l, DType::Float64));
        props.right_thresholds = Some(wrap(r, DType::Float64));
    }
    Ok((wrap(set.peaks, DType::Int64), props))
}

/// The plateau, height and threshold conditions as array operations over
/// the local maxima: the path a backend leaves to the caller (the GPU's
/// for plateaus longer than one thread walks).
fn local_by_arrays(xs: &Array, opts: &FindPeaksOptions) -> Result<(Array, PeakProperties)> {
    let [mut peaks, left_edges, right_edges] = local_maxima(xs)?;
    let mut props = PeakProperties::default();
    if let Some(b) = opts.plateau_size {
        let sizes = add(subtract(&right_edges, &left_edges)?, 1i64)?;
        let keep = within(&sizes, b)?;
        props.plateau_sizes = Some(sizes);
        props.left_edges = Some(left_edges);
        props.right_edges = Some(right_edges);
        compact(&mut peaks, &mut props, keep)?;
    }
    if let Some(b) = opts.height {
        let h = take(xs, &peaks, None)?;
        let keep = within(&h, b)?;
        props.peak_heights = Some(h);
        compact(&mut peaks, &mut props, keep)?;
    }
    if let Some(b) = opts.threshold {
        let xp = take(xs, &peaks, None)?;
        let left = subtract(&xp, take(xs, subtract(&peaks, 1i64)?, None)?)?;
        let right = subtract(&xp, take(xs, add(&peaks, 1i64)?, None)?)?;
        let lo = b
            .min
            .map(|m| greater_equal(minimum(&left, &right)?, m))
            .transpose()?;
        let hi = b
            .max
            .map(|m| less_equal(maximum(&left, &right)?, m))
            .transpose()?;
        let keep = match (lo, hi) {
            (Some(a), Some(b)) => Some(logical_and(&a, &b)?),
            (a, b) => a.or(b),
        };
        props.left_thresholds = Some(left);
        props.right_thresholds = Some(right);
        compact(&mut peaks, &mut props, keep)?;
    }
    Ok((peaks, props))
}

/// The peaks of the 1-D signal `x` that meet the conditions of `opts`
/// (`scipy.signal.find_peaks`): (int64 indices, the properties computed).
pub fn find_peaks(x: &Array, opts: FindPeaksOptions) -> Result<(Array, PeakProperties)> {
    let op = "find_peaks";
    let xs = signal_f64(op, x)?;
    for (what, b) in [
        ("height", opts.height),
        ("threshold", opts.threshold),
        ("prominence", opts.prominence),
        ("width", opts.width),
        ("plateau_size", opts.plateau_size),
    ] {
        check_bounds(op, what, b)?;
    }
    if let Some(d) = opts.distance {
        if d.is_nan() || d < 1.0 {
            return Err(Error::invalid(
                op,
                format!("distance must be greater or equal to 1, was {d}"),
            ));
        }
    }
    let wlen = wlen_samples(op, opts.wlen)?;
    let be = crate::backend::on(op, xs.device())?;
    let local = LocalPeaks {
        x: xs.view(),
        conds: PeakConds {
            plateau: ends(opts.plateau_size),
            height: ends(opts.height),
            threshold: ends(opts.threshold),
        },
        edges: opts.plateau_size.is_some(),
        heights: opts.height.is_some(),
        thresholds: opts.threshold.is_some(),
    };
    let (mut peaks, mut props) = match be.local_peaks(op, &local)? {
        Some(set) => from_set(set)?,
        None => local_by_arrays(&xs, &opts)?,
    };
    if let Some(d) = opts.distance {
        let prio = take(&xs, &peaks, None)?;
        let be = crate::backend::on(op, xs.device())?;
        let keep = be.peaks_by_distance(op, peaks.view(), prio.view(), d.ceil() as i64)?;
        let keep = Array::from_parts(keep, Layout::contiguous(&[peaks.size()]), DType::Bool);
        compact(&mut peaks, &mut props, Some(keep))?;
    }
    if opts.prominence.is_some() || opts.width.is_some() {
        let [p, l, r] = prominences_of(op, &xs, &peaks, wlen)?;
        props.prominences = Some(p);
        props.left_bases = Some(l);
        props.right_bases = Some(r);
    }
    if let (Some(b), Some(p)) = (opts.prominence, props.prominences.clone()) {
        let keep = within(&p, b)?;
        compact(&mut peaks, &mut props, keep)?;
    }
    if let Some(b) = opts.width {
        let missing = || Error::invalid(op, "internal: prominences missing");
        let bases = [
            props.prominences.clone().ok_or_else(missing)?,
            props.left_bases.clone().ok_or_else(missing)?,
            props.right_bases.clone().ok_or_else(missing)?,
        ];
        let [w, h, l, r] = widths_of(
            op,
            &xs,
            &peaks,
            opts.rel_height,
            [&bases[0], &bases[1], &bases[2]],
        )?;
        let keep = within(&w, b)?;
        props.widths = Some(w);
        props.width_heights = Some(h);
        props.left_ips = Some(l);
        props.right_ips = Some(r);
        compact(&mut peaks, &mut props, keep)?;
    }
    let _ = peak_indices;
    Ok((peaks, props))
}
