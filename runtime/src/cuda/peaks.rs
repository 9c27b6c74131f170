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
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key, ptr};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::runtime::compile::{Function, PRELUDE};
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, Buffer};
use crate::ops::signal::PeakScan;

const THREADS: usize = 256;
const PEAKS: &str = include_str!("kernels/peaks.cu");

pub(crate) fn peaks_source() -> String {
    render(PEAKS, &[("PRELUDE", PRELUDE)], &[])
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

#[cfg(test)]
mod tests {
    #[test]
    fn kernels_compile() {
        let src = super::peaks_source();
        assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
        crate::cuda::kernel_gen::helpers::dump_source("peaks", &src);
    }
}
