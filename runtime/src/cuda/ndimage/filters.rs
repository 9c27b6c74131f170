//! Line and window filters on the GPU (`kernels/ndimage_filters.cu`).

use super::{config, shape_arg, source, strides_arg};
use crate::backend::fallback::on_views;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{kernel, key, ptr};
use crate::cuda::runtime::launch::{launch, KernelArgs};
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, upload, Buffer};
use crate::ops::c_types::ctype;
use crate::ops::ndimage::{LineFilter, LineOp, Window};

const FILTERS: &str = include_str!("../kernels/ndimage_filters.cu");

/// Largest window the rank kernel takes (its values sit in per-thread memory).
pub(crate) const MAX_RANK_WINDOW: usize = 1024;

/// The filter kernels for `dt` data, windows of `n` taps (rank filters)
/// and the line combination `op`.
pub(crate) fn filters_source(dt: DType, n: usize, op: LineOp) -> String {
    let (init, combine) = match op {
        LineOp::Correlate => ("0.0", "acc = fma(wk, v, acc)"),
        LineOp::Min => (
            "__longlong_as_double(0x7ff0000000000000LL)",
            "acc = v < acc ? v : acc",
        ),
        LineOp::Max => (
            "-__longlong_as_double(0x7ff0000000000000LL)",
            "acc = v > acc ? v : acc",
        ),
    };
    source(
        FILTERS,
        &[
            ("DT", dt.to_string()),
            ("T", ctype(dt).to_string()),
            ("N", n.max(1).to_string()),
            ("INIT", init.to_string()),
            ("COMBINE", combine.to_string()),
        ],
    )
}

pub(super) fn line_filter(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    f: &LineFilter<'_>,
) -> Result<Storage> {
    let s = session_of(op, x)?;
    let dt = x.dtype();
    let out = Buffer::new(op, ordinal, dt, x.shape())?;
    let total = x.layout.size();
    if total == 0 {
        return Ok(out.storage);
    }
    let shape = x.shape();
    let n = shape[f.axis];
    let inner: usize = shape[f.axis + 1..].iter().product();
    let w = Buffer::from_host(op, ordinal, f.weights)?;
    let func = kernel(
        s,
        key(("nd_filters", dt, 1usize, f.op)),
        "nd_filters",
        "cuprite_nd_line",
        || filters_source(dt, 1, f.op),
    )?;
    let mut a = KernelArgs::new();
    a.push(ptr(op, x)?).push(out.ptr(op)?).push(w.ptr(op)?);
    a.push(f.weights.len() as i32)
        .push(f.center)
        .push(n as i64)
        .push(inner as i64);
    a.push(total as i64).push(f.mode.code()).push(f.cval);
    launch(
        s,
        "nd_line",
        func,
        config(s, total),
        &current_stream(),
        &mut a,
    )?;
    Ok(out.storage)
}

/// The number of `w`'s taps over `x`; none is refused, since a kernel would
/// leave its output unwritten (the api layer never asks for it).
fn window_taps(op: &'static str, w: &Window<'_>, x: View<'_>) -> Result<usize> {
    match w.taps(x.ndim()) {
        0 => Err(Error::InvalidArgument {
            op,
            detail: "a filter window without taps".into(),
        }),
        taps => Ok(taps),
    }
}

pub(super) fn correlate(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    w: &Window<'_>,
    weights: &[f64],
) -> Result<Storage> {
    let s = session_of(op, x)?;
    let dt = x.dtype();
    let taps = window_taps(op, w, x)?;
    let out = Buffer::new(op, ordinal, dt, x.shape())?;
    let total = x.layout.size();
    if total == 0 {
        return Ok(out.storage);
    }
    let offs = Buffer::from_host(op, ordinal, w.offsets)?;
    let wb = Buffer::from_host(op, ordinal, weights)?;
    let func = kernel(
        s,
        key(("nd_filters", dt, 1usize, LineOp::Correlate)),
        "nd_filters",
        "cuprite_nd_correlate",
        || filters_source(dt, 1, LineOp::Correlate),
    )?;
    let mut a = KernelArgs::new();
    a.push(ptr(op, x)?)
        .push(out.ptr(op)?)
        .push(offs.ptr(op)?)
        .push(wb.ptr(op)?);
    a.push(taps as i32).push(x.ndim() as i32);
    a.push(shape_arg(x.shape().iter().map(|&d| d as i64)))
        .push(strides_arg(x.shape()));
    a.push(total as i64).push(w.mode.code()).push(w.cval);
    launch(
        s,
        "nd_correlate",
        func,
        config(s, total),
        &current_stream(),
        &mut a,
    )?;
    Ok(out.storage)
}

pub(super) fn rank_filter(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    w: &Window<'_>,
    rank: usize,
    add: Option<&[f64]>,
) -> Result<Storage> {
    let s = session_of(op, x)?;
    let dt = x.dtype();
    let taps = window_taps(op, w, x)?;
    let total = x.layout.size();
    if taps > MAX_RANK_WINDOW && total > 0 {
        // The kernel sorts a window in per-thread registers; a larger one
        // takes the counted host path (`%gpu` lists it), as SciPy's result
        // does not depend on the window's size.
        let host = on_views(op, &[x], |cpu, h| {
            crate::ops::ndimage::Ndimage::rank_filter(cpu, op, h[0], w, rank, add)
        })?;
        return upload(op, ordinal, &host, dt);
    }
    let out = Buffer::new(op, ordinal, dt, x.shape())?;
    if total == 0 {
        return Ok(out.storage);
    }
    let offs = Buffer::from_host(op, ordinal, w.offsets)?;
    let addb = add.map(|v| Buffer::from_host(op, ordinal, v)).transpose()?;
    let func = kernel(
        s,
        key(("nd_filters", dt, taps, LineOp::Correlate)),
        "nd_filters",
        "cuprite_nd_rank",
        || filters_source(dt, taps, LineOp::Correlate),
    )?;
    let mut a = KernelArgs::new();
    a.push(ptr(op, x)?).push(out.ptr(op)?).push(offs.ptr(op)?);
    a.push(match &addb {
        Some(b) => b.ptr(op)?,
        None => 0u64,
    });
    a.push(x.ndim() as i32);
    a.push(shape_arg(x.shape().iter().map(|&d| d as i64)))
        .push(strides_arg(x.shape()));
    a.push(total as i64)
        .push(w.mode.code())
        .push(w.cval)
        .push(rank as i32);
    launch(
        s,
        "nd_rank",
        func,
        config(s, total),
        &current_stream(),
        &mut a,
    )?;
    Ok(out.storage)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_compile() {
        for dt in [DType::Float32, DType::Float64, DType::UInt8, DType::Int64] {
            for (n, lop) in [
                (1, LineOp::Correlate),
                (9, LineOp::Min),
                (25, LineOp::Max),
                (100, LineOp::Correlate),
            ] {
                let src = filters_source(dt, n, lop);
                assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
                crate::cuda::kernel_gen::helpers::dump_source(
                    &format!("nd_filters_{dt}_{n}"),
                    &src,
                );
            }
        }
    }
}
