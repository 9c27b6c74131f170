//! A user kernel that faults: the error names the kernel. Alone in its own
//! test binary because the fault ends the process's CUDA context (sticky).

mod common;
use common::*;
use cuprite as cp;

#[test]
fn gpu_a_faulting_kernel_is_named_in_the_error() {
    let Some(dev) = gpu_or_skip() else { return };
    cp::with_device(dev, || {
        let k = cp::RawKernel::new(
            "extern \"C\" __global__ void crash_here(int* p) { p[threadIdx.x] = 1; }",
            "crash_here",
        )
        .unwrap();
        // An address no allocation has: an illegal-address fault.
        k.call(1, 32, (cp::DevicePtr(0x10),)).unwrap();
        let e = cp::cuda::Stream::null().synchronize().unwrap_err();
        let text = e.to_string();
        println!("{text}");
        assert!(text.contains("`crash_here`"), "{text}");
        assert!(text.contains("sticky"), "{text}");
    });
}
