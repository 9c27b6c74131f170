//! Distance transforms on the GPU (`kernels/ndimage_distance.cu`): one
//! pass per axis, ping-ponging between two buffers.

use super::{config, shape_arg, source};
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key, ptr};
use crate::cuda::runtime::compile::Function;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, Buffer};
use crate::cuda::DriverResultExt;
use cudarc::driver::sys;

const DISTANCE: &str = include_str!("../kernels/ndimage_distance.cu");

pub(crate) fn distance_source() -> String {
    source(DISTANCE, &[])
}

fn func(s: &DeviceSession, name: &str) -> Result<Function> {
    kernel(s, key("nd_distance"), "nd_distance", name, distance_source)
}

/// (outer, n, inner) around `axis`.
fn around(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

/// How `cuprite_nd_edt_lines` cuts the lines of one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LinesPlan {
    /// Threads (bands) per line, a power of two.
    threads: usize,
    /// Positions per band.
    band: usize,
    /// Lines per block.
    lines: usize,
    /// Dynamic shared memory per block, in bytes.
    shared: usize,
}

/// Bands of about 32 positions, up to 128 per line: a band's own envelope
/// is a short serial loop and the merges take log2(bands) rounds. Lines
/// are packed up to 256 threads and 48 KiB a block, or one line a block up
/// to the device's opt-in limit `optin`; None when one line needs more
/// (then the one-thread-per-line kernel runs).
fn lines_plan(n: usize, lines: usize, optin: usize) -> Option<LinesPlan> {
    let threads = n.div_ceil(32).next_power_of_two().clamp(1, 128);
    let band = n.div_ceil(threads).max(1);
    let cells = threads * band;
    // f, z (8 bytes) and v, s (4) per cell; ub (8) and a, e, nx (4) per band; base (8).
    let per_line = 24 * cells + 20 * threads + 8;
    const PACKED: usize = 48 * 1024;
    let fit = (PACKED / per_line).clamp(1, (256 / threads).max(1));
    let nl = fit.min(lines.max(1));
    let shared = nl * per_line;
    (shared <= PACKED.max(optin)).then_some(LinesPlan {
        threads,
        band,
        lines: nl,
        shared,
    })
}

/// Lets `f` take `bytes` of dynamic shared memory (past the 48 KiB default).
fn allow_shared(op: &'static str, s: &DeviceSession, f: Function, bytes: usize) -> Result<()> {
    if bytes <= 48 * 1024 {
        return Ok(());
    }
    s.bind()?;
    // SAFETY: a function of the bound context; lines_plan kept `bytes`
    // within the device's opt-in limit.
    unsafe {
        sys::cuFuncSetAttribute(
            f.raw.0,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    }
    .result()
    .op(op)
}

/// Exact Euclidean distances: axis 0 from the mask's zero bitmaps
/// (`cuprite_nd_edt_bits`, `_carry`, `_first`), every later axis by
/// banded envelopes in shared memory (`cuprite_nd_edt_lines`) or, for
/// lines too long for it, one thread per line (`cuprite_nd_edt_pass`).
/// The last pass takes the square root.
pub(super) fn edt(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    sampling: &[f64],
    indices: bool,
) -> Result<(Storage, Option<Storage>)> {
    let s = session_of(op, x)?;
    let shape = x.shape();
    let nd = shape.len();
    let total = x.layout.size();
    let d = [
        Buffer::new(op, ordinal, DType::Float64, shape)?,
        Buffer::new(op, ordinal, DType::Float64, shape)?,
    ];
    let mut fshape = vec![nd];
    fshape.extend_from_slice(shape);
    let feat = if indices {
        Some([
            Buffer::new(op, ordinal, DType::Int64, &fshape)?,
            Buffer::new(op, ordinal, DType::Int64, &fshape)?,
        ])
    } else {
        None
    };
    if total == 0 {
        let [d0, _] = d;
        return Ok((d0.storage, feat.map(|[f0, _]| f0.storage)));
    }
    let stream = current_stream();
    let fptr = |f: &Option<[Buffer; 2]>, k: usize| -> Result<u64> {
        match f {
            Some(b) => b[k].ptr(op),
            None => Ok(0),
        }
    };
    // Axis 0: band b of 32 rows of column c is word b * inner + c.
    let (n0, inner0) = (shape[0], total / shape[0]);
    let words = n0.div_ceil(32) * inner0;
    let bits = Buffer::new(op, ordinal, DType::UInt32, &[words])?;
    let up = Buffer::new(op, ordinal, DType::Int64, &[words])?;
    let dn = Buffer::new(op, ordinal, DType::Int64, &[words])?;
    let mut a = KernelArgs::new();
    a.push(ptr(op, x)?)
        .push(bits.ptr(op)?)
        .push(n0 as i64)
        .push(inner0 as i64)
        .push(words as i64);
    let f = func(s, "cuprite_nd_edt_bits")?;
    launch(s, "nd_edt_bits", f, config(s, words), &stream, &mut a)?;
    let mut a = KernelArgs::new();
    a.push(bits.ptr(op)?)
        .push(up.ptr(op)?)
        .push(dn.ptr(op)?)
        .push(n0.div_ceil(32) as i64)
        .push(inner0 as i64);
    let f = func(s, "cuprite_nd_edt_carry")?;
    launch(s, "nd_edt_carry", f, config(s, inner0), &stream, &mut a)?;
    let mut a = KernelArgs::new();
    a.push(bits.ptr(op)?).push(up.ptr(op)?).push(dn.ptr(op)?);
    a.push(d[0].ptr(op)?).push(fptr(&feat, 0)?).push(nd as i32);
    a.push(shape_arg(shape.iter().map(|&v| v as i64)));
    a.push(n0 as i64)
        .push(inner0 as i64)
        .push(words as i64)
        .push(total as i64)
        .push(sampling[0] * sampling[0])
        .push((nd == 1) as i32);
    let f = func(s, "cuprite_nd_edt_first")?;
    launch(s, "nd_edt_first", f, config(s, words), &stream, &mut a)?;
    drop((bits, up, dn));
    let mut cur = 0;
    // Scratch of the one-thread-per-line kernel: v holds n words and z
    // n + 1 per line, at most total and total + lines; made when first needed.
    let mut scratch: Option<(Buffer, Buffer)> = None;
    let mut rooted = nd == 1;
    for (axis, step) in sampling.iter().enumerate().take(nd).skip(1) {
        let (outer, n, inner) = around(shape, axis);
        let lines = outer * inner;
        let w = step * step;
        let last = axis + 1 == nd;
        let mut a = KernelArgs::new();
        a.push(d[cur].ptr(op)?).push(d[1 - cur].ptr(op)?);
        a.push(fptr(&feat, cur)?).push(fptr(&feat, 1 - cur)?);
        match lines_plan(n, lines, s.info.max_shared_memory_per_block_optin) {
            Some(p) => {
                a.push(nd as i32)
                    .push(lines as i64)
                    .push(n as i32)
                    .push(inner as i64)
                    .push(total as i64)
                    .push(w)
                    .push(p.threads as i32)
                    .push(p.band as i32)
                    .push(p.lines as i32)
                    .push(last as i32);
                let f = func(s, "cuprite_nd_edt_lines")?;
                allow_shared(op, s, f, p.shared)?;
                let cfg = LaunchConfig {
                    grid: (grid_1d(s, lines.div_ceil(p.lines), 1), 1, 1),
                    block: ((p.threads * p.lines) as u32, 1, 1),
                    shared_mem_bytes: p.shared as u32,
                };
                launch(s, "nd_edt_lines", f, cfg, &stream, &mut a)?;
                rooted = last;
            }
            None => {
                if scratch.is_none() {
                    let most = shape.iter().map(|&n| total / n.max(1)).max().unwrap_or(1);
                    scratch = Some((
                        Buffer::new(op, ordinal, DType::Int64, &[total])?,
                        Buffer::new(op, ordinal, DType::Float64, &[total + most])?,
                    ));
                }
                let (v, z) = scratch.as_ref().expect("made above");
                a.push(v.ptr(op)?).push(z.ptr(op)?);
                a.push(nd as i32)
                    .push(lines as i64)
                    .push(n as i64)
                    .push(inner as i64);
                a.push(total as i64).push(w);
                let f = func(s, "cuprite_nd_edt_pass")?;
                launch(s, "nd_edt_pass", f, config(s, lines), &stream, &mut a)?;
                rooted = false;
            }
        }
        cur = 1 - cur;
    }
    if !rooted {
        let mut a = KernelArgs::new();
        a.push(d[cur].ptr(op)?).push(total as i64);
        launch(
            s,
            "nd_sqrt",
            func(s, "cuprite_nd_sqrt")?,
            config(s, total),
            &stream,
            &mut a,
        )?;
    }
    let [d0, d1] = d;
    let dist = if cur == 0 { d0 } else { d1 };
    let feat = feat.map(|[f0, f1]| if cur == 0 { f0 } else { f1 });
    Ok((dist.storage, feat.map(|f| f.storage)))
}

pub(super) fn cdt(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    chessboard: bool,
) -> Result<Storage> {
    let s = session_of(op, x)?;
    let shape = x.shape();
    let total = x.layout.size();
    let out = Buffer::new(op, ordinal, DType::Int32, shape)?;
    if total == 0 {
        return Ok(out.storage);
    }
    let d = [
        Buffer::new(op, ordinal, DType::Int64, shape)?,
        Buffer::new(op, ordinal, DType::Int64, shape)?,
    ];
    let stream = current_stream();
    let mut a = KernelArgs::new();
    a.push(ptr(op, x)?).push(d[0].ptr(op)?).push(total as i64);
    launch(
        s,
        "nd_cdt_init",
        func(s, "cuprite_nd_cdt_init")?,
        config(s, total),
        &stream,
        &mut a,
    )?;
    let mut cur = 0;
    for axis in 0..shape.len() {
        let (_, n, inner) = around(shape, axis);
        let mut a = KernelArgs::new();
        a.push(d[cur].ptr(op)?).push(d[1 - cur].ptr(op)?);
        a.push(n as i64)
            .push(inner as i64)
            .push(total as i64)
            .push(chessboard as i32);
        launch(
            s,
            "nd_cdt_pass",
            func(s, "cuprite_nd_cdt_pass")?,
            config(s, total),
            &stream,
            &mut a,
        )?;
        cur = 1 - cur;
    }
    let mut a = KernelArgs::new();
    a.push(d[cur].ptr(op)?)
        .push(out.ptr(op)?)
        .push(total as i64);
    launch(
        s,
        "nd_cdt_finish",
        func(s, "cuprite_nd_cdt_finish")?,
        config(s, total),
        &stream,
        &mut a,
    )?;
    Ok(out.storage)
}

#[cfg(test)]
mod tests {
    #[test]
    fn kernels_compile() {
        let src = super::distance_source();
        assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
        crate::cuda::kernel_gen::helpers::dump_source("nd_distance", &src);
    }

    #[test]
    fn lines_plan_cuts_bands_and_packs_lines() {
        use super::{lines_plan, LinesPlan};
        let optin = 227 * 1024;
        // The bench's rows: 64 bands of 32, one line over 48 KiB.
        let p = lines_plan(2048, 2048, optin).unwrap();
        assert_eq!((p.threads, p.band, p.lines), (64, 32, 1));
        assert_eq!(p.shared, 24 * 2048 + 20 * 64 + 8);
        // Short lines pack up to 48 KiB and 256 threads, and no more lines than there are.
        let p = lines_plan(150, 1000, optin).unwrap();
        assert_eq!((p.threads, p.band, p.lines), (8, 19, 12));
        assert_eq!(lines_plan(20, 1000, optin).unwrap().lines, 96);
        assert!(p.shared <= 48 * 1024);
        assert_eq!(lines_plan(17, 3, optin).unwrap().lines, 3);
        assert_eq!(
            lines_plan(1, 5, optin).unwrap(),
            LinesPlan {
                threads: 1,
                band: 1,
                lines: 5,
                shared: 5 * 52
            }
        );
        // Every position has a band (the last bands may be empty); lines
        // past the opt-in limit go elsewhere.
        for n in [1, 2, 31, 32, 33, 1000, 4097, 9000] {
            let p = lines_plan(n, 7, optin).unwrap();
            assert!(p.threads * p.band >= n && p.band <= 71, "{n}");
        }
        assert_eq!(lines_plan(20_000, 7, optin), None);
        assert!(lines_plan(4000, 7, 48 * 1024).is_none());
    }
}
