//! Benchmark cases for matmul and cp::linalg (issue: linear algebra), with
//! the names, sizes, dtypes and timed expressions of cupy_bench.py.

use super::{host_random, Bench};
use cuprite as cp;
use cuprite::linalg as la;
use cuprite::{DType, Order};

/// A random [0, 1) array of `shape` and `dtype` on the current device.
fn random(shape: &[usize], dtype: DType, seed: u64) -> cp::Result<cp::Array> {
    let n: usize = shape.iter().product();
    cp::from_shape_vec(shape, host_random(n, seed), Order::C)?.astype(dtype)
}

pub fn run(b: &mut Bench) -> cp::Result<()> {
    // for n, dt in ((4096, float32), (8192, float32), (4096, float64)): A @ B
    for (n, dt, name) in [
        (4096usize, DType::Float32, "matmul_float32_4096"),
        (8192, DType::Float32, "matmul_float32_8192"),
        (4096, DType::Float64, "matmul_float64_4096"),
    ] {
        if !b.wanted(name) {
            continue;
        }
        let a = random(&[n, n], dt, 11)?;
        let bb = random(&[n, n], dt, 12)?;
        let flops = 2.0 * (n as f64).powi(3);
        b.case(name, None, Some(flops), 10, 3, || cp::matmul(&a, &bb))?;
    }
    if b.wanted("matmul_float16_8192") {
        let a16 = random(&[8192, 8192], DType::Float16, 13)?;
        let flops = 2.0 * 8192f64.powi(3);
        b.case("matmul_float16_8192", None, Some(flops), 10, 3, || {
            cp::matmul(&a16, &a16)
        })?;
    }
    if b.wanted("batched_matmul_1000x64") || b.wanted("batched_inv_100x64") {
        let xb = random(&[1000, 64, 64], DType::Float32, 14)?;
        let flops = 2.0 * 1000.0 * 64f64.powi(3);
        b.case("batched_matmul_1000x64", None, Some(flops), 20, 3, || {
            cp::matmul(&xb, &xb)
        })?;
        let x100 = xb.slice(cp::s![..100, .., ..])?;
        b.case("batched_inv_100x64", None, None, 5, 3, || la::inv(&x100))?;
    }
    if b.wanted("svd_f32_2048") {
        let a = random(&[2048, 2048], DType::Float32, 15)?;
        b.case("svd_f32_2048", None, None, 3, 1, || {
            la::svd(&a, false, true)
        })?;
    }
    let want_4096 = [
        "solve_f32_4096",
        "eigh_f32_4096",
        "cholesky_f32_4096",
        "qr_f32_4096",
    ];
    if want_4096.iter().any(|c| b.wanted(c)) {
        let n = 4096usize;
        let a = random(&[n, n], DType::Float32, 16)?;
        let rhs = random(&[n], DType::Float32, 17)?;
        let flops = 2.0 / 3.0 * (n as f64).powi(3);
        b.case("solve_f32_4096", None, Some(flops), 5, 3, || {
            la::solve(&a, &rhs)
        })?;
        // S = A @ A.T
        let s = cp::matmul(&a, &a.t())?;
        b.case("eigh_f32_4096", None, None, 3, 1, || la::eigh(&s))?;
        // cholesky(S + 4096 * eye(4096, float32)), the shift inside the timing as in CuPy.
        b.case("cholesky_f32_4096", None, None, 5, 3, || {
            let eye = cp::eye(n, None, 0, DType::Float32)?;
            let shifted = cp::add(&s, &cp::multiply(&eye, 4096.0)?)?;
            la::cholesky(&shifted)
        })?;
        b.case("qr_f32_4096", None, None, 3, 3, || {
            la::qr(&a, la::QrMode::Reduced)
        })?;
    }
    Ok(())
}
