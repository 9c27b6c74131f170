//! Order-statistic filters: minimum, maximum, median, percentile and rank
//! filters over a box (`size`) or a footprint.

use super::filters::line_pass;
use super::{
    backend_window, center_of, check_extents, check_input, contiguous_as, cval_of, host_values,
    norm_axis, per_axis, window_len, window_offsets, wrap, FilterOptions, Footprint,
};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::ops::ndimage::{LineOp, Window};

/// The dtype order filters run in: the input's, with bool as uint8 and
/// half floats as float32.
pub(crate) fn order_dtype(x: &Array) -> DType {
    match x.dtype() {
        DType::Bool => DType::UInt8,
        DType::Float16 | DType::BFloat16 => DType::Float32,
        d => d,
    }
}

/// `r` back in the input's dtype (bool and half floats were widened).
fn restore(r: Array, input: &Array) -> Result<Array> {
    if r.dtype() == input.dtype() {
        Ok(r)
    } else {
        r.astype(input.dtype())
    }
}

/// A window's tap offsets (and which mask elements they are) from a footprint.
pub(crate) fn footprint_taps(
    op: &'static str,
    fp: &Footprint,
    nd: usize,
    origins: &[isize],
) -> Result<(Vec<i64>, Vec<usize>, Vec<usize>)> {
    match fp {
        Footprint::Size(s) => {
            let sizes = per_axis(op, "size", s, nd)?;
            if sizes.contains(&0) {
                // SciPy refuses the empty window too.
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!("size {sizes:?} has a zero extent: the window is empty"),
                });
            }
            let n = window_len(op, &sizes)?;
            let (o, k) = window_offsets(op, &sizes, &vec![1.0; n], origins)?;
            Ok((o, k, sizes))
        }
        Footprint::Mask(m) => {
            if m.ndim() != nd {
                return Err(Error::Shape {
                    op,
                    detail: format!(
                        "footprint of shape {:?} for an input of rank {nd}; they need the same rank",
                        m.shape()
                    ),
                });
            }
            let mask = host_values(m)?;
            let (o, k) = window_offsets(op, m.shape(), &mask, origins)?;
            if k.is_empty() {
                return Err(Error::InvalidArgument {
                    op,
                    detail: "the footprint has no non-zero element".into(),
                });
            }
            Ok((o, k, m.shape().to_vec()))
        }
    }
}

/// A min or max over a box of `size` (one extent, or one per axis): one
/// line pass per axis. An axis of size 0 or 1 is left as it is, as SciPy
/// does, though its origin must still fit a window of one.
pub(crate) fn box_extremum(
    op: &'static str,
    input: &Array,
    size: &[usize],
    how: LineOp,
    opts: &FilterOptions,
) -> Result<Array> {
    check_input(op, input)?;
    let opts = &opts.clone().cval(cval_of(input.dtype(), opts.cval));
    let nd = input.ndim();
    let origins = opts.origins_for(op, nd)?;
    let sizes = per_axis(op, "size", size, nd)?;
    check_extents(op, &sizes)?;
    let centers = (0..nd)
        .map(|d| center_of(op, sizes[d].max(1), origins[d]))
        .collect::<Result<Vec<i64>>>()?;
    let mut out = contiguous_as(input, order_dtype(input))?;
    for axis in 0..nd {
        if sizes[axis] > 1 {
            let w = vec![0.0; sizes[axis]];
            out = line_pass(op, &out, axis, &w, centers[axis], how, opts)?;
        }
    }
    restore(out, input)
}

/// The `rank`-th smallest over the window (a min or max over a box as
/// separable passes), `rank` choosing it from the number of taps.
pub(crate) fn rank_impl(
    op: &'static str,
    input: &Array,
    fp: &Footprint,
    rank: impl FnOnce(usize) -> Result<usize>,
    add: Option<&[f64]>,
    opts: &FilterOptions,
) -> Result<Array> {
    check_input(op, input)?;
    let opts = &opts.clone().cval(cval_of(input.dtype(), opts.cval));
    let nd = input.ndim();
    let origins = opts.origins_for(op, nd)?;
    let (offsets, kept, _) = footprint_taps(op, fp, nd, &origins)?;
    // Counted by mask element: a 0-d window has one tap and no offsets.
    let taps = kept.len();
    let r = rank(taps)?;
    if let (Footprint::Size(size), None) = (fp, add) {
        if r == 0 || r + 1 == taps {
            let how = if r == 0 { LineOp::Min } else { LineOp::Max };
            return box_extremum(op, input, size, how, opts);
        }
    }
    let x = contiguous_as(input, order_dtype(input))?;
    let (line, offsets) = backend_window(&x, offsets, taps)?;
    let be = crate::backend::on(op, x.device())?;
    let win = Window {
        offsets: &offsets,
        mode: opts.mode.for_filters(),
        cval: opts.cval,
    };
    let s = be.rank_filter(op, line.view(), &win, r, add)?;
    restore(wrap(s, x.shape(), x.dtype()), input)
}

/// The minimum or maximum over `footprint`: a box goes to [`box_extremum`].
fn extremum(
    op: &'static str,
    input: &Array,
    footprint: Footprint,
    how: LineOp,
    opts: &FilterOptions,
) -> Result<Array> {
    match footprint {
        Footprint::Size(size) => box_extremum(op, input, &size, how, opts),
        fp => {
            let max = how == LineOp::Max;
            let pick = |n: usize| Ok(if max { n.saturating_sub(1) } else { 0 });
            rank_impl(op, input, &fp, pick, None, opts)
        }
    }
}

/// Minimum over each window (`scipy.ndimage.minimum_filter`).
pub fn minimum_filter(
    input: &Array,
    footprint: impl Into<Footprint>,
    opts: &FilterOptions,
) -> Result<Array> {
    let op = "ndimage.minimum_filter";
    extremum(op, input, footprint.into(), LineOp::Min, opts)
}

/// Maximum over each window (`scipy.ndimage.maximum_filter`).
pub fn maximum_filter(
    input: &Array,
    footprint: impl Into<Footprint>,
    opts: &FilterOptions,
) -> Result<Array> {
    let op = "ndimage.maximum_filter";
    extremum(op, input, footprint.into(), LineOp::Max, opts)
}

/// Median over each window (`scipy.ndimage.median_filter`).
pub fn median_filter(
    input: &Array,
    footprint: impl Into<Footprint>,
    opts: &FilterOptions,
) -> Result<Array> {
    rank_impl(
        "ndimage.median_filter",
        input,
        &footprint.into(),
        |n| Ok(n / 2),
        None,
        opts,
    )
}

/// The `rank`-th smallest over each window; negative counts from the
/// largest (`scipy.ndimage.rank_filter`).
pub fn rank_filter(
    input: &Array,
    rank: isize,
    footprint: impl Into<Footprint>,
    opts: &FilterOptions,
) -> Result<Array> {
    let op = "ndimage.rank_filter";
    rank_impl(
        op,
        input,
        &footprint.into(),
        |n| {
            let r = if rank < 0 { rank + n as isize } else { rank };
            if r < 0 || r >= n as isize {
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!("rank {rank} is outside a window of {n} elements"),
                });
            }
            Ok(r as usize)
        },
        None,
        opts,
    )
}

/// The `percentile` (0-100; negative counts from 100) of each window (`scipy.ndimage.percentile_filter`).
pub fn percentile_filter(
    input: &Array,
    percentile: f64,
    footprint: impl Into<Footprint>,
    opts: &FilterOptions,
) -> Result<Array> {
    let op = "ndimage.percentile_filter";
    rank_impl(
        op,
        input,
        &footprint.into(),
        |n| {
            let p = if percentile < 0.0 {
                percentile + 100.0
            } else {
                percentile
            };
            if !(0.0..=100.0).contains(&p) {
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!("percentile {percentile} is outside [-100, 100]"),
                });
            }
            let r = (n as f64 * p / 100.0) as usize;
            Ok(if r == n { n - 1 } else { r })
        },
        None,
        opts,
    )
}

fn minmax1d(
    op: &'static str,
    input: &Array,
    size: usize,
    axis: isize,
    how: LineOp,
    opts: &FilterOptions,
) -> Result<Array> {
    check_input(op, input)?;
    let axis = norm_axis(op, axis, input.ndim())?;
    if size == 0 {
        return Err(Error::InvalidArgument {
            op,
            detail: "size 0; give at least 1".into(),
        });
    }
    let origin = match opts.origin.as_slice() {
        [o] => *o,
        o => {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("a 1-D filter takes one origin, got {o:?}"),
            })
        }
    };
    check_extents(op, &[size])?;
    let c = center_of(op, size, origin)?;
    let x = contiguous_as(input, order_dtype(input))?;
    restore(
        line_pass(op, &x, axis, &vec![0.0; size], c, how, opts)?,
        input,
    )
}

/// Minimum over `size` samples along `axis` (`scipy.ndimage.minimum_filter1d`).
pub fn minimum_filter1d(
    input: &Array,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array> {
    minmax1d(
        "ndimage.minimum_filter1d",
        input,
        size,
        axis,
        LineOp::Min,
        opts,
    )
}

/// Maximum over `size` samples along `axis` (`scipy.ndimage.maximum_filter1d`).
pub fn maximum_filter1d(
    input: &Array,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array> {
    minmax1d(
        "ndimage.maximum_filter1d",
        input,
        size,
        axis,
        LineOp::Max,
        opts,
    )
}
