//! The fused classical Gram-Schmidt pass of a Krylov basis
//! (`Matmul::gram_schmidt_pass`): `h = V w`, `w2 = w - V^T h` and the two
//! squared norms in four launches (`kernels/gram_schmidt.cu`), where the
//! matmul path took about ten (two cuBLAS gemvs, a subtract, two vdots of
//! two kernels each, a concatenate and a cast).
//!
//! Traffic per pass over `len` rows of n elements: the projection reads
//! the rows once and `w` once per group of 8 rows, the subtraction reads
//! the rows and `w` once more and writes `w2`; the norms ride along. The
//! partial sums are per block and summed by a second small kernel in a
//! fixed order, so a pass is deterministic.

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{kernel, key, ptr, session_of};
use crate::cuda::runtime::compile::Function;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::Buffer;

const SOURCE: &str = include_str!("kernels/gram_schmidt.cu");
const OP: &str = "gram_schmidt_pass";
const THREADS: usize = 256;
/// Rows per block of the projection (`GS_ROWS` in the kernel).
const ROWS: usize = 8;
/// Resident blocks aimed at per SM: enough loads in flight to stream
/// memory, few enough that the partials stay a small second pass.
const BLOCKS_PER_SM: usize = 8;

fn func(s: &DeviceSession, name: &str) -> Result<Function> {
    kernel(s, key("gram_schmidt"), OP, name, || SOURCE.to_string())
}

fn one_d(grid: (u32, u32), shared: u32) -> LaunchConfig {
    LaunchConfig {
        grid: (grid.0, grid.1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: shared,
    }
}

/// Blocks along n for a grid-stride loop, `groups` grids side by side.
fn blocks_along(s: &DeviceSession, n: usize, groups: usize) -> usize {
    let target = (s.info.sm_count.max(1) * BLOCKS_PER_SM / groups).max(1);
    n.div_ceil(THREADS).clamp(1, target)
}

fn check(v: View<'_>, w: View<'_>, w_out: View<'_>, coeffs: View<'_>) -> Result<DType> {
    let dt = w.dtype();
    let n = w.size();
    let ok = matches!(dt, DType::Float32 | DType::Float64)
        && v.dtype() == dt
        && w_out.dtype() == dt
        && coeffs.dtype() == DType::Float64
        && v.ndim() == 2
        && v.shape()[1] == n
        && w_out.size() == n
        && coeffs.size() == v.shape()[0] + 2
        && [v, w, w_out, coeffs].iter().all(|x| x.is_c_contiguous());
    if ok {
        Ok(dt)
    } else {
        Err(Error::invalid(
            OP,
            "internal: the pass takes C-contiguous float32 or float64 rows (len, n), vectors (n,) and float64 coefficients (len + 2,)",
        ))
    }
}

/// See `Matmul::gram_schmidt_pass`.
pub(crate) fn pass(
    ordinal: usize,
    v: View<'_>,
    w: View<'_>,
    w_out: View<'_>,
    coeffs: View<'_>,
) -> Result<()> {
    let dt = check(v, w, w_out, coeffs)?;
    let (len, n) = (v.shape()[0], w.size());
    let len_i32 = i32::try_from(len).map_err(|_| Error::invalid(OP, "more than 2^31 rows"))?;
    let s = session_of(OP, w)?;
    let groups = len.div_ceil(ROWS).max(1);
    if groups > 65_535 {
        return Err(Error::invalid(OP, format!("{len} rows exceed the grid")));
    }
    let gx = blocks_along(s, n, groups);
    let gx2 = blocks_along(s, n, 1);
    // Partials: (len + 1) values of the projection, then one of ||w2||^2.
    let scratch = Buffer::new(OP, ordinal, DType::Float64, &[(len + 1) * gx + gx2])?;
    let part = scratch.ptr(OP)?;
    let part2 = part + ((len + 1) * gx * 8) as u64;
    let (vp, wp, op, cp) = (ptr(OP, v)?, ptr(OP, w)?, ptr(OP, w_out)?, ptr(OP, coeffs)?);
    let suffix = if dt == DType::Float32 { "f32" } else { "f64" };
    let stream = current_stream();

    let mut a = KernelArgs::new();
    a.push(vp).push(wp).push(n as i64).push(len_i32).push(part);
    let f = func(s, &format!("cuprite_gs_project_{suffix}"))?;
    launch(
        s,
        OP,
        f,
        one_d((gx as u32, groups as u32), 0),
        &stream,
        &mut a,
    )?;

    let reduce = func(s, "cuprite_gs_reduce")?;
    let mut a = KernelArgs::new();
    a.push(part).push(gx as i64).push(cp);
    launch(
        s,
        OP,
        reduce,
        one_d(((len + 1) as u32, 1), 0),
        &stream,
        &mut a,
    )?;

    let mut a = KernelArgs::new();
    a.push(vp).push(wp).push(op).push(n as i64).push(len_i32);
    a.push(cp).push(part2);
    let f = func(s, &format!("cuprite_gs_subtract_{suffix}"))?;
    launch(s, OP, f, one_d((gx2 as u32, 1), 0), &stream, &mut a)?;

    let mut a = KernelArgs::new();
    a.push(part2)
        .push(gx2 as i64)
        .push(cp + ((len + 1) * 8) as u64);
    launch(s, OP, reduce, one_d((1, 1), 0), &stream, &mut a)?;
    // The scratch buffer goes back to the stream-ordered pool after the
    // launches that use it are queued.
    drop(scratch);
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn kernels_compile() {
        crate::cuda::kernel_gen::helpers::dump_source("gram_schmidt", super::SOURCE);
    }
}
