//! Line and window filters on the GPU (`kernels/ndimage_filters.cu`).

use super::rank_tile::TiledRank;
use super::{config, shape_arg, source, strides_arg};
use crate::backend::fallback::on_views;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key, ptr};
use crate::cuda::runtime::compile::Function;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, upload, Buffer};
use crate::ops::c_types::ctype;
use crate::ops::ndimage::{BinarySteps, LineFilter, LineOp, Mode, Window};

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
    // Windows of up to 3 dimensions whose selection fits in registers (any
    // size for a minimum or maximum) take the tiled kernel.
    let tiled = match add {
        None if total > 0 => TiledRank::plan(x.shape(), w.offsets, taps, rank, dt, false),
        _ => None,
    };
    if let Some(plan) = tiled {
        let out = Buffer::new(op, ordinal, dt, x.shape())?;
        let ys = out.ptr(op)?;
        launch_tiled(s, &plan, ptr(op, x)?, ys, w.mode.code(), w.cval, None)?;
        return Ok(out.storage);
    }
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

/// The change flags and mask of a binary step (see `cuprite_nd_rank_tile`):
/// the mask's address (or 0), the previous step's flag, this step's flag,
/// and whether a skipped step copies its input.
#[derive(Clone, Copy)]
struct StepFlags {
    mask: u64,
    prev: u64,
    changed: u64,
    copy_on_skip: bool,
}

/// Launches the tiled rank kernel of `plan` from `xs` to `ys` (device
/// addresses of C-contiguous buffers of the plan's shape and dtype).
fn launch_tiled(
    s: &DeviceSession,
    plan: &TiledRank,
    xs: u64,
    ys: u64,
    mode: i32,
    cval: f64,
    flags: Option<StepFlags>,
) -> Result<()> {
    let func = kernel(
        s,
        plan.key(),
        "nd_rank_tile",
        "cuprite_nd_rank_tile",
        || plan.source(),
    )?;
    let t = &plan.tiling;
    let (b1, b2, blocks) = t.blocks();
    let threads = t.bx * t.by;
    let mut a = KernelArgs::new();
    a.push(xs).push(ys);
    a.push(t.dims[0] as i64)
        .push(t.dims[1] as i64)
        .push(t.dims[2] as i64);
    a.push(b1 as i64).push(b2 as i64).push(mode).push(cval);
    if let Some(f) = flags {
        a.push(f.mask).push(f.prev).push(f.changed);
        a.push(i32::from(f.copy_on_skip));
    }
    let cfg = LaunchConfig {
        grid: (grid_1d(s, blocks * threads, threads), 1, 1),
        block: (threads as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    launch(s, "nd_rank_tile", func, cfg, &current_stream(), &mut a)
}

/// The kernel of a binary step: the tiled one, or the general one with
/// the window's taps on the device (any rank, any window).
enum StepKernel {
    Tiled(TiledRank),
    General(Buffer, Function),
}

/// Steps launched between reads of the change flag when the count is open
/// (or larger): a step after convergence is a skipped launch, so the
/// stream runs this many with no wait on the host.
const STEP_CHUNK: usize = 32;

pub(super) fn binary_steps(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    f: &BinarySteps<'_>,
) -> Result<Storage> {
    let s = session_of(op, x)?;
    let w = &f.window;
    let taps = window_taps(op, w, x)?;
    let total = x.layout.size();
    let shape = x.shape();
    let bufs = [
        Buffer::new(op, ordinal, DType::UInt8, shape)?,
        Buffer::new(op, ordinal, DType::UInt8, shape)?,
    ];
    let [first, second] = bufs;
    if total == 0 {
        return Ok(first.storage);
    }
    let rank = if f.dilate { taps - 1 } else { 0 };
    let step_kernel = match TiledRank::plan(shape, w.offsets, taps, rank, DType::UInt8, true) {
        Some(p) => StepKernel::Tiled(p),
        None => StepKernel::General(
            Buffer::from_host(op, ordinal, w.offsets)?,
            kernel(
                s,
                key(("nd_filters", DType::UInt8, 1usize, LineOp::Correlate)),
                "nd_filters",
                "cuprite_nd_binary",
                || filters_source(DType::UInt8, 1, LineOp::Correlate),
            )?,
        ),
    };
    let mask = f.mask.map(|m| ptr(op, m)).transpose()?.unwrap_or(0);
    let border = w.cval != 0.0;
    let ptrs = [first.ptr(op)?, second.ptr(op)?];
    let input = ptr(op, x)?;
    let mut done = 0usize;
    loop {
        let n = match f.iterations {
            0 => STEP_CHUNK,
            it => STEP_CHUNK.min(it - done),
        };
        // flags[j] is set by the chunk's step j - 1 when it changes
        // something; flags[0] lets the chunk's first step run.
        let mut host_flags = vec![0i32; n + 1];
        host_flags[0] = 1;
        let flags = Buffer::from_host(op, ordinal, &host_flags)?;
        let fp = flags.ptr(op)?;
        for j in 0..n {
            let step = done + j;
            // Step k writes buffer k % 2 from the other one (the input first).
            let src = if step == 0 {
                input
            } else {
                ptrs[(step + 1) % 2]
            };
            let dst = ptrs[step % 2];
            let sf = StepFlags {
                mask,
                prev: fp + 4 * j as u64,
                changed: fp + 4 * (j as u64 + 1),
                copy_on_skip: step == 1,
            };
            match &step_kernel {
                StepKernel::Tiled(p) => {
                    let mode = Mode::Constant.code();
                    launch_tiled(s, p, src, dst, mode, w.cval, Some(sf))?;
                }
                StepKernel::General(offs, func) => {
                    let mut a = KernelArgs::new();
                    a.push(src).push(dst).push(offs.ptr(op)?);
                    a.push(taps as i32).push(x.ndim() as i32);
                    a.push(shape_arg(shape.iter().map(|&d| d as i64)))
                        .push(strides_arg(shape));
                    a.push(total as i64)
                        .push(i32::from(border))
                        .push(i32::from(f.dilate));
                    a.push(sf.mask).push(sf.prev).push(sf.changed);
                    a.push(i32::from(sf.copy_on_skip));
                    let cfg = config(s, total);
                    launch(s, "nd_binary", *func, cfg, &current_stream(), &mut a)?;
                }
            }
        }
        done += n;
        if f.iterations != 0 && done >= f.iterations {
            break;
        }
        // Waits for the chunk: the loop ends once a step changed nothing.
        if flags.to_host::<i32>()?[n] == 0 {
            break;
        }
    }
    Ok(if done % 2 == 1 { first } else { second }.storage)
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
