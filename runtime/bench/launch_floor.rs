//! The driver's own cost of a kernel launch, measured next to Cuprite's
//! small-op cases: 100 back-to-back `cuLaunchKernel` calls of an empty
//! kernel on the null stream (and on two other streams), with nothing of
//! Cuprite in between. The gap
//! between this and `latency_fill_x100` is Cuprite's per-op host overhead.

use std::ffi::{c_void, CString};

use cudarc::driver::sys;
use cuprite as cp;

use super::Bench;

/// A driver status as this crate's error, naming the call.
fn cuda(op: &str, r: sys::CUresult) -> cp::Result<()> {
    r.result().map_err(|e| cp::Error::Cuda {
        op: op.to_string(),
        detail: format!("{e:?}"),
    })
}

pub fn run(b: &mut Bench) -> cp::Result<()> {
    const CASES: [&str; 3] = [
        "latency_driver_launch_x100",
        "latency_driver_launch_per_thread_x100",
        "latency_driver_launch_own_stream_x100",
    ];
    if !CASES.iter().any(|c| b.wanted(c)) {
        return Ok(());
    }
    let src = "extern \"C\" __global__ void cuprite_bench_nop(int n) { if (n < 0) __trap(); }";
    let ptx = cudarc::nvrtc::compile_ptx(src).map_err(|e| cp::Error::Compile {
        name: "cuprite_bench_nop".into(),
        log: e.to_string(),
    })?;
    let image = CString::new(ptx.to_src()).expect("PTX has no interior NUL");
    let name = CString::new("cuprite_bench_nop").expect("no NUL");
    // Earlier cases made the device's primary context current on this thread.
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut func: sys::CUfunction = std::ptr::null_mut();
    // SAFETY: out pointers are valid; the image is a NUL-terminated PTX string.
    unsafe {
        cuda(
            "cuModuleLoadData",
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()),
        )?;
        cuda(
            "cuModuleGetFunction",
            sys::cuModuleGetFunction(&mut func, module, name.as_ptr()),
        )?;
    }
    // The legacy null stream (where Cuprite and CuPy launch by default), the
    // per-thread default stream and a created non-blocking stream: the
    // driver's cost may differ between them.
    let mut created: sys::CUstream = std::ptr::null_mut();
    // SAFETY: out pointer is valid.
    cuda("cuStreamCreate", unsafe {
        sys::cuStreamCreate(
            &mut created,
            sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32,
        )
    })?;
    // Only `cpu_us` compares here: the case's events are on the null stream.
    let streams: [sys::CUstream; 3] = [std::ptr::null_mut(), 0x2 as sys::CUstream, created];
    for (case, stream) in CASES.into_iter().zip(streams) {
        let mut n: i32 = 1000;
        b.case(case, None, None, 20, 3, || {
            let mut params = [&mut n as *mut i32 as *mut c_void];
            for _ in 0..100 {
                // SAFETY: one int parameter, matching the kernel.
                cuda("cuLaunchKernel", unsafe {
                    sys::cuLaunchKernel(
                        func,
                        4,
                        1,
                        1,
                        256,
                        1,
                        1,
                        0,
                        stream,
                        params.as_mut_ptr(),
                        std::ptr::null_mut(),
                    )
                })?;
            }
            Ok(())
        })?;
        // SAFETY: a valid stream handle.
        cuda("cuStreamSynchronize", unsafe {
            sys::cuStreamSynchronize(stream)
        })?;
    }
    // SAFETY: created above; its work has finished.
    cuda("cuStreamDestroy", unsafe {
        sys::cuStreamDestroy_v2(created)
    })?;
    // SAFETY: the module was loaded above and no launch is pending after the case's sync.
    unsafe { cuda("cuModuleUnload", sys::cuModuleUnload(module)) }
}
