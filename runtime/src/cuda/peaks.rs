//! Peak scans on the GPU (`peak_prominences`, `peak_widths`, and the
//! distance rule of `find_peaks`). Prominences and widths are one thread
//! per peak running SciPy's loop (each peak is independent, as in CuPy).
//! The distance rule is SciPy's greedy pass by decreasing height, which is
//! sequential as written; here it runs as rounds of a parallel maximal
//! independent set in one thread block (a peak is kept once it beats every
//! surviving neighbour within the distance), which keeps exactly the peaks
//! the greedy pass keeps, for the same total order of priorities: the
//! CPU's (`cpu::peaks::priority_order`, ties to the later peak). The
//! rounds only read neighbours' states that a round's writes cannot turn
//! between "removed" and "not removed", so the result does not depend on
//! the order of the threads.

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key, memset, ptr};
use crate::cuda::kernel_gen::template::render_owned;
use crate::cuda::runtime::compile::{Function, PRELUDE};
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, Buffer};
use crate::ops::signal::{LocalPeaks, PeakScan, PeakSet};

const THREADS: usize = 256;
/// Samples per thread in a tile of the local-maxima passes.
const ITEMS: usize = 8;
const TILE: usize = THREADS * ITEMS;
/// Longest plateau one thread walks: past it the walk would be one slow
/// thread, so `local_peaks` leaves the signal to the array path.
pub(crate) const MAX_WALK: usize = 1024;
const PEAKS: &str = include_str!("kernels/peaks.cu");

pub(crate) fn peaks_source() -> String {
    render_owned(
        PEAKS,
        &[
            ("PRELUDE", PRELUDE.to_string()),
            ("THREADS", THREADS.to_string()),
            ("ITEMS", ITEMS.to_string()),
            ("MAX_WALK", MAX_WALK.to_string()),
        ],
        &[],
    )
}

fn func(s: &DeviceSession, name: &str) -> Result<Function> {
    kernel(s, key(("peaks", name)), "peaks", name, peaks_source)
}

fn config(s: &DeviceSession, work: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (grid_1d(s, work, THREADS), 1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn contiguous(op: &'static str, v: View<'_>, dt: DType) -> Result<()> {
    if v.dtype() == dt && v.is_c_contiguous() {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("internal: peak scan input must be C-contiguous {dt}"),
        ))
    }
}

pub(crate) fn prominences(
    ordinal: usize,
    op: &'static str,
    p: &PeakScan<'_>,
    wlen: i64,
) -> Result<[Storage; 3]> {
    contiguous(op, p.x, DType::Float64)?;
    contiguous(op, p.peaks, DType::Int64)?;
    let np = p.peaks.size();
    let prom = Buffer::new(op, ordinal, DType::Float64, &[np])?;
    let lb = Buffer::new(op, ordinal, DType::Int64, &[np])?;
    let rb = Buffer::new(op, ordinal, DType::Int64, &[np])?;
    if np > 0 {
        let s = session_of(op, p.x)?;
        let f = func(s, "cuprite_peak_prominences")?;
        let mut a = KernelArgs::new();
        a.push(ptr(op, p.x)?).push(p.x.size() as i64);
        a.push(ptr(op, p.peaks)?).push(np as i64).push(wlen);
        a.push(prom.ptr(op)?).push(lb.ptr(op)?).push(rb.ptr(op)?);
        launch(
            s,
            "peak_prominences",
            f,
            config(s, np),
            &current_stream(),
            &mut a,
        )?;
    }
    Ok([prom.storage, lb.storage, rb.storage])
}

pub(crate) fn widths(
    ordinal: usize,
    op: &'static str,
    p: &PeakScan<'_>,
    rel_height: f64,
    bases: [View<'_>; 3],
) -> Result<[Storage; 4]> {
    contiguous(op, p.x, DType::Float64)?;
    contiguous(op, p.peaks, DType::Int64)?;
    contiguous(op, bases[0], DType::Float64)?;
    contiguous(op, bases[1], DType::Int64)?;
    contiguous(op, bases[2], DType::Int64)?;
    let np = p.peaks.size();
    let out = [
        Buffer::new(op, ordinal, DType::Float64, &[np])?,
        Buffer::new(op, ordinal, DType::Float64, &[np])?,
        Buffer::new(op, ordinal, DType::Float64, &[np])?,
        Buffer::new(op, ordinal, DType::Float64, &[np])?,
    ];
    if np > 0 {
        let s = session_of(op, p.x)?;
        let f = func(s, "cuprite_peak_widths")?;
        let mut a = KernelArgs::new();
        a.push(ptr(op, p.x)?)
            .push(ptr(op, p.peaks)?)
            .push(np as i64)
            .push(rel_height);
        a.push(ptr(op, bases[0])?)
            .push(ptr(op, bases[1])?)
            .push(ptr(op, bases[2])?);
        for b in &out {
            a.push(b.ptr(op)?);
        }
        launch(
            s,
            "peak_widths",
            f,
            config(s, np),
            &current_stream(),
            &mut a,
        )?;
    }
    Ok(out.map(|b| b.storage))
}

pub(crate) fn by_distance(
    ordinal: usize,
    op: &'static str,
    peaks: View<'_>,
    priority: View<'_>,
    distance: i64,
) -> Result<Storage> {
    contiguous(op, peaks, DType::Int64)?;
    contiguous(op, priority, DType::Float64)?;
    let np = peaks.size();
    let keep = Buffer::new(op, ordinal, DType::Bool, &[np])?;
    if np > 0 {
        let state = Buffer::new(op, ordinal, DType::UInt8, &[np])?;
        let s = session_of(op, peaks)?;
        let f = func(s, "cuprite_peaks_by_distance")?;
        let mut a = KernelArgs::new();
        a.push(ptr(op, peaks)?)
            .push(ptr(op, priority)?)
            .push(np as i64)
            .push(distance);
        a.push(state.ptr(op)?).push(keep.ptr(op)?);
        let one_block = LaunchConfig {
            grid: (1, 1, 1),
            block: (1024, 1, 1),
            shared_mem_bytes: 0,
        };
        launch(
            s,
            "peaks_by_distance",
            f,
            one_block,
            &current_stream(),
            &mut a,
        )?;
    }
    Ok(keep.storage)
}

/// The kernels' `PeakConds`.
#[repr(C)]
#[derive(Clone, Copy)]
struct CondArgs {
    b: [f64; 6],
    mask: i64,
}

/// `Signal::local_peaks` on the GPU (see the module comment); `None` when
/// a plateau is longer than [`MAX_WALK`].
pub(crate) fn local_peaks(
    ordinal: usize,
    op: &'static str,
    p: &LocalPeaks<'_>,
) -> Result<Option<PeakSet>> {
    contiguous(op, p.x, DType::Float64)?;
    let n = p.x.size();
    let new = |dt, len: usize| Buffer::new(op, ordinal, dt, &[len]);
    if n < 3 {
        return Ok(Some(peak_set(p, 0, &new)?.1));
    }
    let (b, mask) = p.conds.packed();
    let conds = CondArgs {
        b,
        mask: i64::from(mask),
    };
    let s = session_of(op, p.x)?;
    let tiles = n.div_ceil(TILE);
    let grid = u32::try_from(tiles)
        .map_err(|_| Error::invalid(op, format!("a signal of {n} samples is too long")))?;
    let cfg = LaunchConfig {
        grid: (grid, 1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    let counts = new(DType::Int64, tiles)?;
    // The inclusive scan of the counts, then the too-long flag.
    let ends = new(DType::Int64, tiles + 1)?;
    let flag = ends.ptr(op)? + (tiles * 8) as u64;
    memset(s, op, flag, 0, 8)?;
    let xp = ptr(op, p.x)?;
    let f = func(s, "cuprite_local_peaks_count")?;
    let mut a = KernelArgs::new();
    a.push(xp).push(n as i64).push(conds);
    a.push(counts.ptr(op)?).push(flag);
    launch(s, "local_peaks", f, cfg, &current_stream(), &mut a)?;
    let ends_layout = Layout::contiguous(&[tiles]);
    super::scan::scan(
        counts.view(),
        false,
        None,
        View::new(&ends.storage, &ends_layout, DType::Int64),
    )?;
    let Storage::Cuda(c) = &ends.storage else {
        return Err(Error::invalid(op, "internal: a device buffer on the host"));
    };
    // The count and the flag in one read.
    let tail = crate::cuda::runtime::transfer::download_range::<i64>(c, tiles - 1, 2)?;
    if tail[1] != 0 {
        return Ok(None);
    }
    let count = usize::try_from(tail[0])
        .map_err(|_| Error::invalid(op, "internal: a negative peak count"))?;
    let (outs, set) = peak_set(p, count, &new)?;
    if count > 0 {
        let f = func(s, "cuprite_local_peaks_write")?;
        let mut a = KernelArgs::new();
        a.push(xp).push(n as i64).push(conds).push(ends.ptr(op)?);
        for o in outs {
            a.push(o);
        }
        launch(s, "local_peaks", f, cfg, &current_stream(), &mut a)?;
    }
    Ok(Some(set))
}

/// New buffers of `count` for the peaks and the properties `p` asks for,
/// and their addresses in the write kernel's order (0 for those not asked).
fn peak_set(
    p: &LocalPeaks<'_>,
    count: usize,
    new: &dyn Fn(DType, usize) -> Result<Buffer>,
) -> Result<([u64; 6], PeakSet)> {
    let op = "find_peaks";
    let two = |dt| -> Result<[Buffer; 2]> { Ok([new(dt, count)?, new(dt, count)?]) };
    let peaks = new(DType::Int64, count)?;
    let edges = p.edges.then(|| two(DType::Int64)).transpose()?;
    let heights = p.heights.then(|| new(DType::Float64, count)).transpose()?;
    let thresholds = p.thresholds.then(|| two(DType::Float64)).transpose()?;
    let addr = |b: Option<&Buffer>| b.map_or(Ok(0), |b| b.ptr(op));
    let ptrs = [
        peaks.ptr(op)?,
        addr(edges.as_ref().map(|e| &e[0]))?,
        addr(edges.as_ref().map(|e| &e[1]))?,
        addr(heights.as_ref())?,
        addr(thresholds.as_ref().map(|t| &t[0]))?,
        addr(thresholds.as_ref().map(|t| &t[1]))?,
    ];
    let set = PeakSet {
        count,
        peaks: peaks.storage,
        edges: edges.map(|e| e.map(|b| b.storage)),
        heights: heights.map(|b| b.storage),
        thresholds: thresholds.map(|t| t.map(|b| b.storage)),
    };
    Ok((ptrs, set))
}

#[cfg(test)]
mod tests {
    #[test]
    fn kernels_compile() {
        let src = super::peaks_source();
        assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
        crate::cuda::kernel_gen::helpers::dump_source("peaks", &src);
    }
}
