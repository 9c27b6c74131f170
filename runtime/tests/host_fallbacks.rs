//! Built-in operations never take a GPU array through the host: the
//! counter of `cp::cuda::host_fallbacks()` stays empty while they run on
//! CUDA. (One test, so nothing else in this binary counts meanwhile.)

mod common;
use common::*;
use cuprite as cp;
use cuprite::{s, DType, Device, PutMode};

/// Runs the operations this file covers on the current device.
fn run_ops() -> cp::Result<()> {
    // put: few indices (pairwise) and many (sorted by target), every mode.
    let mut a = rand(&[40, 30], DType::Float32, 1);
    let few: Vec<i64> = (0..50).map(|i| (i * 37) % 2400 - 1200).collect();
    let many: Vec<i64> = (0..6000).map(|i| (i * 7919) % 2400 - 1200).collect();
    for mode in [PutMode::Raise, PutMode::Wrap, PutMode::Clip] {
        a.put(few.clone(), rand(&[7], DType::Float64, 2), mode)?;
        a.put(many.clone(), 2.5, mode)?;
    }
    let mut v = a.slice(s![..;-1, 1..;3])?;
    v.put(
        vec![0i64, -1, 5],
        cp::asarray(vec![1i32, 2])?,
        PutMode::Raise,
    )?;
    // Masked assignment and reads, full and leading masks.
    let mut c = rand(&[6, 5, 4], DType::Complex64, 3);
    let full = cp::greater(rand(&[6, 5, 4], DType::Float64, 4), 0.0)?;
    let lead = cp::less(rand(&[6, 5], DType::Float64, 5), 0.2)?;
    c.mask_assign(&full, 1.5)?;
    c.mask_assign(&lead, rand(&[4], DType::Float64, 6))?;
    let _ = c.mask(&lead)?;
    let _ = a.take(vec![3i64, -4, 7], Some(1))?;
    // Complex sort and argsort, each axis, both widths, with NaNs.
    for dt in [DType::Complex64, DType::Complex128] {
        let mut x = rand(&[9, 8, 7], dt, 7);
        x.put(vec![0i64, 10, 100], cp::asarray(f64::NAN)?, PutMode::Raise)?;
        for axis in 0..3 {
            let _ = cp::sort(&x, axis)?;
            let _ = cp::argsort(&x, axis)?;
        }
        let _ = cp::sort(&x.t(), -1)?;
        // Sorting and searching (search.rs) over the same complex values.
        let all = cp::UniqueOptions::new()
            .index(true)
            .inverse(true)
            .counts(true);
        let u = cp::unique_with(&x, all)?;
        let _ = cp::searchsorted(&u.values, &x, cp::Side::Right, None)?;
        let _ = cp::isin(&x, &u.values.slice(s![..;2])?, true)?;
    }
    let f = rand(&[50, 20], DType::Float32, 8);
    let bins = cp::linspace(-1.0, 1.0, 9)?;
    let _ = cp::digitize(&f, &bins.slice(s![..;-1])?, false)?;
    let _ = cp::unique_with(&f.t(), cp::UniqueOptions::new().counts(true))?;
    let _ = cp::setdiff1d(&f, &f.slice(s![..3])?)?;
    let _ = cp::topk(&f, 4, 0, true)?;
    let _ = cp::lexsort(&[&f, &f.t().t()])?;
    let _ = cp::argwhere(&cp::greater(&f, 0.5)?)?;
    // Integer and bool products (cuda/int_matmul.rs), batched and broadcast.
    for dt in [DType::Int32, DType::Int64, DType::UInt8, DType::Bool] {
        let x = rand(&[3, 5, 4], dt, 9);
        let y = rand(&[4, 6], dt, 10);
        let _ = cp::matmul(&x, &y)?;
        let _ = cp::matmul(&x.slice(s![.., ..;2, ..])?, &y.t().t())?;
    }
    // Device-filled ranges (cuda/arange.rs).
    let _ = cp::arange_step(-3.5, 7.25, 0.5)?;
    let _ = cp::arange(1000)?;
    cp::cuda::launch_pending()?;
    Ok(())
}

#[test]
fn these_ops_never_fall_back_to_the_host() {
    // On the CPU nothing is a fallback either.
    cp::cuda::reset_host_fallbacks();
    cp::with_device(Device::Cpu, run_ops).unwrap();
    common::assert_no_host_fallback("CPU operations");
    let Some(dev) = gpu_or_skip() else { return };
    cp::with_device(dev, run_ops).unwrap();
    common::assert_no_host_fallback("GPU operations");
    assert!(cp::cuda::cuda_report().contains("host fallbacks: none"));
}
