//! NVRTC compile checks of translated kernels (no GPU needed; see
//! `cuda::runtime::compile::check_compiles`).

use crate as cp;
use crate::cuda::runtime::compile::check_compiles;

#[cp::jit::kernel]
fn every_builtin(x: &[f32], out: &mut [f32], bins: &mut [u32], flags: &mut [i32], n: u32) {
    let tile = shared_array::<f32, 64>();
    let dynamic = dynamic_shared::<f64>();
    let t = thread_idx().x as usize;
    let mut v = if t < x.len() { x[t] } else { 0.0 };
    tile[t % 64] = v;
    dynamic[t % dynamic.len()] = v as f64;
    sync_threads();
    v += shfl_down_sync(0xffffffff, v, 16);
    v += shfl_xor_sync(0xffffffff, v, 1);
    let lane = lane_id();
    for i in grid_stride(n) {
        atomic_add(bins, i % bins.len(), 1);
    }
    for k in (0..n).step_by(2) {
        if k == 7 {
            continue;
        }
        atomic_max(flags, 0, k as i32);
    }
    let old = atomic_cas(flags, 1, 0, 1);
    let mut w = v.sin().mul_add(2.0, v.sqrt()).max(f32::MIN) + std::f32::consts::PI;
    w = w.powf(0.5).abs().exp().ln().floor().min(1e30) + (lane as f32).powi(2);
    loop {
        w *= 0.5;
        if w < 1.0 {
            break;
        }
    }
    if t == 0 {
        return;
    }
    out[t] = if old > 0 {
        w
    } else {
        tile[0] + dynamic[0] as f32 + (block_idx().y + grid_dim().z + block_dim().y) as f32
    };
    atomic_add(out, 0, 1.0);
}

#[cp::jit::elementwise]
fn generic<T: cp::jit::Float>(x: T, y: T) -> T {
    let h = x.mul_add(y, T::from_f64(0.5));
    if h > y {
        h.sqrt()
    } else {
        h.exp().min(y)
    }
}

#[test]
fn translated_kernels_compile_with_nvrtc() {
    check_compiles("every_builtin", &every_builtin.compiled_source()).unwrap();
    crate::with_device(crate::Device::Cpu, || {
        for d in [crate::DType::Float32, crate::DType::Float64] {
            let x = crate::arange(4).unwrap().astype(d).unwrap();
            let src = generic.kernel().unwrap().source_for((&x, &x)).unwrap();
            check_compiles("generic", &src).unwrap();
        }
    });
}

#[cp::jit::kernel]
fn halves(a: cp::half::f16, x: &[cp::half::f16], y: &mut [cp::half::bf16], z: &mut [f32]) {
    let tile = shared_array::<cp::half::f16, 32>();
    let t = thread_idx().x as usize;
    let mut v = if t < x.len() {
        x[t] * a
    } else {
        cp::half::f16::ZERO
    };
    tile[t % 32] = v;
    sync_threads();
    v += shfl_down_sync(0xffffffff, v, 1);
    let w = v.sqrt().max(cp::half::f16::ONE).mul_add(a, tile[0]).powi(2);
    if t < y.len() {
        y[t] = cp::half::bf16::from_f32(w.to_f32()) + cp::half::bf16::EPSILON;
        if -w < cp::half::f16::MAX {
            z[t] = y[t].to_f32() + cp::half::f16::from_f64(0.1).to_f32();
        }
    }
}

#[cp::jit::kernel]
fn views(x: cp::jit::View2<f32>, out: cp::jit::View2Mut<f64>, c: cp::jit::View3<i32>) {
    let i = thread_idx().x as usize;
    if i < x.rows() {
        for j in 0..x.cols() {
            out[(j, i)] = x[(i, j)] as f64 + c[(0, 0, j % c.shape()[2])] as f64;
        }
    }
    out[(0, 0)] += x.len() as f64;
}

#[cp::jit::reduction]
mod mean_square {
    const IDENTITY: T = T::from_f64(0.0);
    fn map<T: cp::jit::Float>(x: T) -> T {
        x * x
    }
    fn combine<T: cp::jit::Float>(a: T, b: T) -> T {
        a + b
    }
    fn post<T: cp::jit::Float>(a: T, n: usize) -> T {
        a / T::from_f64(n as f64)
    }
}

#[test]
fn half_types_and_views_compile_with_nvrtc() {
    check_compiles("halves", &halves.compiled_source()).unwrap();
    check_compiles("views", &views.compiled_source()).unwrap();
    crate::with_device(crate::Device::Cpu, || {
        for d in [crate::DType::Float16, crate::DType::BFloat16] {
            let x = crate::arange(4).unwrap().astype(d).unwrap();
            let src = generic.kernel().unwrap().source_for((&x, &x)).unwrap();
            check_compiles("generic", &src).unwrap();
            for half in [true, false] {
                let k = mean_square.kernel_for(half).unwrap();
                let src = k.source_for(&x, None, false).unwrap();
                check_compiles("mean_square", &src).unwrap();
            }
        }
        let x = crate::arange(4)
            .unwrap()
            .astype(crate::DType::Float32)
            .unwrap();
        let src = mean_square
            .kernel()
            .unwrap()
            .source_for(&x, Some(&[0]), false)
            .unwrap();
        check_compiles("mean_square", &src).unwrap();
    });
}
