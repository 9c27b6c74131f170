//! The driver's own cost of a kernel launch, measured next to Cuprite's
//! small-op cases: 100 back-to-back `cuLaunchKernel` calls of an empty
//! kernel on the null stream, with nothing of Cuprite in between. The gap
//! between this and `latency_fill_x100` is Cuprite's per-op host overhead.

use std::ffi::{c_void, CString};

use cudarc::driver::sys;
use cuprite as cp;

use super::Bench;

fn cuda(op: &str, r: sys::CUresult) -> cp::Result<()> {
    match r {
        sys::CUresult::CUDA_SUCCESS => Ok(()),
        e => Err(cp::Error::Cuda {
            op: op.to_string(),
            detail: format!("{e:?}"),
        }),
    }
}

pub fn run(b: &mut Bench) -> cp::Result<()> {
    if !b.wanted("latency_driver_launch_x100") {
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
    let mut n: i32 = 1000;
    b.case("latency_driver_launch_x100", None, None, 20, 3, || {
        let mut params = [&mut n as *mut i32 as *mut c_void];
        for _ in 0..100 {
            // SAFETY: one int parameter, matching the kernel; null stream.
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
                    std::ptr::null_mut(),
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            })?;
        }
        Ok(())
    })?;
    // SAFETY: the module was loaded above and no launch is pending after the case's sync.
    unsafe { cuda("cuModuleUnload", sys::cuModuleUnload(module)) }
}
