//! Shared helpers of the filters that run along one axis: the axis moved
//! last, a short FIR applied as a sum of shifted slices (each tap one
//! fused multiply-add over the whole array, so the work stays on the
//! device without a kernel of its own).

use crate::api::elementwise::{add, multiply};
use crate::api::shape::index::slice_axis;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::Result;

/// `x` with `axis` moved last, C-contiguous in `dt`.
pub(super) fn rows_last(x: &Array, axis: usize, dt: DType) -> Result<Array> {
    let moved = x.moveaxis(axis as isize, -1)?;
    if moved.dtype() == dt && moved.is_c_contiguous() {
        Ok(moved)
    } else {
        moved.astype(dt)
    }
}

/// `y` (signal last) with its last axis moved back to `axis`, C-contiguous.
pub(super) fn restore(y: &Array, axis: usize) -> Result<Array> {
    if axis + 1 == y.ndim() {
        Ok(y.clone())
    } else {
        y.moveaxis(-1, axis as isize)?.copy()
    }
}

/// `sum_k taps[k] x[..., k*stride + j*step]` for `j < len`: a correlation of
/// the last axis taken every `step` samples with tap spacing `stride`.
pub(super) fn correlate_taps(
    x: &Array,
    taps: &[f64],
    stride: usize,
    step: usize,
    len: usize,
) -> Result<Array> {
    let last = x.ndim() - 1;
    let mut acc: Option<Array> = None;
    for (k, &t) in taps.iter().enumerate() {
        if t == 0.0 && acc.is_some() {
            continue;
        }
        let start = k * stride;
        let end = start + (len.max(1) - 1) * step + 1;
        let part = slice_axis(
            x,
            last,
            Some(start as isize),
            Some(end as isize),
            step as isize,
        )?;
        let term = multiply(&part, t)?;
        acc = Some(match acc {
            None => term,
            Some(a) => add(&a, &term)?,
        });
    }
    match acc {
        Some(a) => Ok(a),
        None => slice_axis(x, last, Some(0), Some(0), 1),
    }
}
