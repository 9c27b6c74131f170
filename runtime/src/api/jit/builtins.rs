//! The GPU built-ins as the CPU backend runs them. The macro turns a
//! kernel's `thread_idx()` into CUDA's `threadIdx` for the GPU and into a
//! call of these functions for the CPU; the fallible ones return a
//! [`Fault`] that the CPU body passes on with `?`.

use std::ops::Add;

use super::grid::{self, Fault};
use super::memory::{JitElem, JitIndex, Slice};
use crate::ops::Dim3;

const ZERO: Dim3 = Dim3 { x: 0, y: 0, z: 0 };
const ONE: Dim3 = Dim3 { x: 1, y: 1, z: 1 };

/// The running thread's index in its block (`threadIdx`).
pub fn thread_idx() -> Dim3 {
    grid::state().map_or(ZERO, |s| s.thread)
}

/// The running block's index in the grid (`blockIdx`).
pub fn block_idx() -> Dim3 {
    grid::state().map_or(ZERO, |s| s.block)
}

/// The block's extent in threads (`blockDim`).
pub fn block_dim() -> Dim3 {
    grid::state().map_or(ONE, |s| s.block_dim)
}

/// The grid's extent in blocks (`gridDim`).
pub fn grid_dim() -> Dim3 {
    grid::state().map_or(ONE, |s| s.grid_dim)
}

/// The running thread's lane in its warp of 32 (by linear thread index).
pub fn lane_id() -> u32 {
    grid::state().map_or(0, |s| s.linear % 32)
}

/// The indices `i < n` that the running thread handles in a grid-stride
/// loop: `for i in grid_stride(n)` starts at the global thread index and
/// steps by the number of threads in the grid.
pub fn grid_stride(n: impl JitIndex) -> std::iter::StepBy<std::ops::Range<usize>> {
    let (b, t, bd, gd) = (block_idx(), thread_idx(), block_dim(), grid_dim());
    let start = b.x as usize * bd.x as usize + t.x as usize;
    let step = (bd.x as usize * gd.x as usize).max(1);
    let end = usize::try_from(n.index().max(0)).unwrap_or(usize::MAX);
    (start..end.max(start)).step_by(step)
}

/// `__syncthreads()`.
pub fn sync_threads() -> Result<(), Fault> {
    grid::sync_threads()
}

/// `__shfl_down_sync(mask, v, delta)`: lane `l` gets lane `l + delta`'s
/// value (its own where that is past the warp). All lanes must take part.
pub fn shfl_down_sync<T: JitElem>(_mask: u32, v: T, delta: impl JitIndex) -> Result<T, Fault> {
    let d = delta.index().clamp(0, 64) as u32;
    grid::shuffle(v, |lane| lane + d)
}

/// `__shfl_xor_sync(mask, v, m)`: lane `l` gets lane `l ^ m`'s value.
pub fn shfl_xor_sync<T: JitElem>(_mask: u32, v: T, lane_mask: impl JitIndex) -> Result<T, Fault> {
    let m = lane_mask.index().clamp(0, 31) as u32;
    grid::shuffle(v, |lane| lane ^ m)
}

/// `atomicAdd(&a[i], v)`: returns the old value.
pub fn atomic_add<T: JitElem + Add<Output = T>>(
    a: Slice<T>,
    i: impl JitIndex,
    v: T,
) -> Result<T, Fault> {
    a.update(i, |old| old + v)
}

/// `atomicMax(&a[i], v)`: returns the old value.
pub fn atomic_max<T: JitElem + PartialOrd>(
    a: Slice<T>,
    i: impl JitIndex,
    v: T,
) -> Result<T, Fault> {
    a.update(i, |old| if v > old { v } else { old })
}

/// `atomicMin(&a[i], v)`: returns the old value.
pub fn atomic_min<T: JitElem + PartialOrd>(
    a: Slice<T>,
    i: impl JitIndex,
    v: T,
) -> Result<T, Fault> {
    a.update(i, |old| if v < old { v } else { old })
}

/// `atomicCAS(&a[i], compare, v)`: stores `v` where the element equals
/// `compare`; returns the old value.
pub fn atomic_cas<T: JitElem + PartialEq>(
    a: Slice<T>,
    i: impl JitIndex,
    compare: T,
    v: T,
) -> Result<T, Fault> {
    a.update(i, |old| if old == compare { v } else { old })
}

/// `__shared__ T name[N]`: one array per block (`id` is the call site).
pub fn shared_array<T: JitElem, const N: usize>(id: u32) -> Result<Slice<T>, Fault> {
    grid::shared_array::<T>(id, N)
}

/// `extern __shared__`: the launch's dynamic shared memory as `T`s.
pub fn dynamic_shared<T: JitElem>() -> Result<Slice<T>, Fault> {
    grid::dynamic_shared::<T>()
}
