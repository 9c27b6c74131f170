//! Benchmark cases for kernels written in Rust (`cp::jit`), beside CuPy's
//! `cupyx.jit.rawkernel` versions of the same kernels (cupy_extra.py):
//! `jit_saxpy_64M` (compare with `raw_kernel_saxpy_64M`), `jit_block_sum_64M`
//! (grid-stride loads, warp shuffles, shared memory, one atomic per block),
//! `jit_sum_squares_64M` (a `#[cp::jit::reduction]`: compare with
//! `reduction_kernel_sum_squares_64M`, the same map and reduce as CUDA C
//! strings) and `jit_warm_call_1K`, the host time of a warm launch (compare
//! its `cpu_us` with `raw_kernel_warm_call_1K`); `jit_warm_call_paired_1K`
//! and `raw_kernel_warm_call_paired_1K` measure the two in turns.

use super::{host_random, Bench};
use cuprite as cp;

#[cp::jit::kernel]
fn saxpy(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = (block_dim().x * block_idx().x + thread_idx().x) as usize;
    if i < x.len() {
        out[i] = a * x[i] + y[i];
    }
}

#[cp::jit::kernel]
fn block_sum(x: &[f32], out: &mut [f32]) {
    let partial = shared_array::<f32, 32>();
    let mut v = 0.0f32;
    for i in grid_stride(x.len()) {
        v += x[i];
    }
    let mut offset = 16;
    while offset > 0 {
        v += shfl_down_sync(0xffffffff, v, offset);
        offset /= 2;
    }
    let t = thread_idx().x;
    if t % 32 == 0 {
        partial[(t / 32) as usize] = v;
    }
    sync_threads();
    if t < 32 {
        let mut s = 0.0f32;
        if t < block_dim().x / 32 {
            s = partial[t as usize];
        }
        let mut o = 16;
        while o > 0 {
            s += shfl_down_sync(0xffffffff, s, o);
            o /= 2;
        }
        if t == 0 {
            atomic_add(out, 0, s);
        }
    }
}

/// The sum of squares as Rust parts: on a GPU, the ReductionKernel of
/// `x * x`, `a + b`, identity 0.
#[cp::jit::reduction]
mod sum_squares {
    const IDENTITY: f32 = 0.0;
    fn map(x: f32) -> f32 {
        x * x
    }
    fn combine(a: f32, b: f32) -> f32 {
        a + b
    }
}

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let n: usize = 1 << 26;
    let x = cp::asarray(host_random(n, 11))?;
    let y = cp::asarray(host_random(n, 12))?;
    let out = cp::empty_like(&x)?;
    b.bandwidth("jit_saxpy_64M", 12.0 * n as f64, || {
        saxpy.launch((n.div_ceil(256),), (256,), (2.0f32, &x, &y, &out))
    })?;
    let total = cp::zeros([1], cp::f32)?;
    b.bandwidth("jit_block_sum_64M", 4.0 * n as f64, || {
        block_sum.launch((1024,), (256,), (&x, &total))
    })?;
    b.bandwidth("jit_sum_squares_64M", 4.0 * n as f64, || {
        sum_squares.call(&x)
    })?;
    let small = cp::arange(1000)?.astype(cp::f32)?;
    let small_out = cp::empty_like(&small)?;
    b.case("jit_warm_call_1K", None, None, 200, 10, || {
        saxpy.launch((4,), (256,), (2.0f32, &small, &small, &small_out))
    })?;
    // The same launch beside RawKernel's, measured in turns: the figure
    // for "a warm jit call costs no more host time than RawKernel's".
    let raw_saxpy = cp::RawKernel::new(super::kernels::SAXPY_CUDA, "saxpy")?;
    b.paired_host_time(
        "jit_warm_call_paired_1K",
        "raw_kernel_warm_call_paired_1K",
        5000,
        50,
        || saxpy.launch((4,), (256,), (2.0f32, &small, &small, &small_out)),
        || raw_saxpy.call((4,), (256,), (&small, &small, &small_out, 2.0f32, 1000i32)),
    )?;
    Ok(())
}
