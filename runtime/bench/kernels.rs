//! Benchmark cases for custom kernels (ElementwiseKernel, ReductionKernel, RawKernel) and cp::fuse.
//!
//! CuPy's cases (same names as `shared/bench/cupy_bench.py`):
//! `elementwise_kernel_axpb_64M` (compare its GB/s with `copy_f32_64M`) and
//! `tanh_sin_fused_16M`. Ours only: the host overhead of a warm call on a
//! small array (`*_warm_call_1K`: `cpu_us` is the time to launch), and a
//! RawKernel saxpy and a ReductionKernel sum of squares over 64 M floats.

use super::{host_random, Bench};
use cuprite as cp;

/// The RawKernel saxpy, `z = a * x + y` over `n` floats, as CUDA C (also
/// the RawKernel side of jit.rs's paired warm-call case).
pub const SAXPY_CUDA: &str = r#"extern "C" __global__ void saxpy(const float* x, const float* y, float* z, float a, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) z[i] = a * x[i] + y[i];
}"#;

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let n: usize = 1 << 26;
    let x = cp::asarray(host_random(n, 11))?;
    let out = cp::empty_like(&x)?;
    let axpb = cp::ElementwiseKernel::new(
        "float32 x, float32 a, float32 b",
        "float32 y",
        "y = a * x + b;",
        "axpb",
    )?;
    b.bandwidth("elementwise_kernel_axpb_64M", 8.0 * n as f64, || {
        axpb.call((&x, 2.0f32, 1.0f32, &out))
    })?;
    let xs = x.slice(cp::s![..1 << 24])?;
    let fused = cp::fuse(|v: &cp::Expr| (v.sin() + 0.1 * v).tanh()).name("tanh_sin");
    b.bandwidth("tanh_sin_fused_16M", 8.0 * (1 << 24) as f64, || {
        fused.call(&xs)
    })?;
    // Host overhead of warm calls (GPU work is negligible at 1000 elements).
    let small = cp::arange(1000)?.astype(cp::f32)?;
    let small_out = cp::empty_like(&small)?;
    b.case(
        "elementwise_kernel_warm_call_1K",
        None,
        None,
        200,
        10,
        || axpb.call((&small, 2.0f32, 1.0f32, &small_out)),
    )?;
    b.case("fused_warm_call_1K", None, None, 200, 10, || {
        fused.call(&small)
    })?;
    let saxpy = cp::RawKernel::new(SAXPY_CUDA, "saxpy")?;
    let y = cp::asarray(host_random(n, 12))?;
    b.bandwidth("raw_kernel_saxpy_64M", 12.0 * n as f64, || {
        saxpy.call((n.div_ceil(256),), (256,), (&x, &y, &out, 2.0f32, n as i32))
    })?;
    b.case("raw_kernel_warm_call_1K", None, None, 200, 10, || {
        saxpy.call((4,), (256,), (&small, &small, &small_out, 2.0f32, 1000i32))
    })?;
    let sum_squares = cp::ReductionKernel::new(
        "float32 x",
        "float32 y",
        "x * x",
        "a + b",
        "y = a",
        "0",
        "sum_squares",
    )?;
    b.bandwidth("reduction_kernel_sum_squares_64M", 4.0 * n as f64, || {
        sum_squares.call(&x)
    })?;
    Ok(())
}
