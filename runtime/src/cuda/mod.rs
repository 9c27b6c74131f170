//! The CUDA backend: per-device sessions, memory pools, streams and events,
//! NVRTC-compiled kernels with a cache, and the generated kernels of the
//! built-in operations.

pub(crate) mod arange;
pub(crate) mod argreduce;
pub(crate) mod batch;
pub(crate) mod binning;
pub(crate) mod blas;
pub(crate) mod conv;
pub(crate) mod cufft;
pub(crate) mod cusolver_sp;
pub(crate) mod cusparse;
mod cusparse_ilu;
mod cusparse_spsv;
pub(crate) mod fusion;
pub(crate) mod gather;
pub(crate) mod gram_schmidt;
pub(crate) mod iir;
pub(crate) mod int_matmul;
pub(crate) mod interpolate;
pub(crate) mod kernel_gen;
pub(crate) mod ndimage;
pub(crate) mod peaks;
pub(crate) mod rand;
pub(crate) mod runtime;
pub(crate) mod scan;
pub(crate) mod search;
pub(crate) mod solver;
pub(crate) mod sort;
pub(crate) mod upfirdn;
pub(crate) mod variance;

pub use crate::backend::fallback::{
    host_fallbacks, host_fallbacks_on_this_thread, reset_host_fallbacks,
};
#[doc(hidden)]
pub use crate::backend::transfer::copy_between_gpus_for_tests;
pub use batch::{
    batch_stats, launch_pending, set_small_op_batching, small_op_batching, BatchStats,
};
pub use runtime::host_buffer::{copy_to_device_async, Pending, PinnedBuffer};
pub use runtime::memory::{
    memory_pool, open_device_pools, pinned_memory_pool, MemoryPool, PoolStats,
};
pub use runtime::peer::can_access_peer;
pub use runtime::session::{cuda_report, device_info, mem_get_info, request_interrupt, DeviceInfo};
pub use runtime::stream::{with_stream, Event, Stream};

pub use runtime::{libs, stream};

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::CUresult;

use crate::core::error::Error;

/// The CUDA backend of device `ordinal`: implements every op family of
/// `ops::backend`, each in the module of that family.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CudaBackend {
    pub(crate) ordinal: usize,
}

/// The most CUDA devices one process addresses.
pub(crate) const MAX_DEVICES: usize = 64;

static BACKENDS: [CudaBackend; MAX_DEVICES] = {
    let mut all = [CudaBackend { ordinal: 0 }; MAX_DEVICES];
    let mut i = 0;
    while i < MAX_DEVICES {
        all[i].ordinal = i;
        i += 1;
    }
    all
};

/// The backend of device `ordinal` (`None` past [`MAX_DEVICES`]).
pub(crate) fn backend(ordinal: usize) -> Option<&'static CudaBackend> {
    BACKENDS.get(ordinal)
}

/// Raw CUDA handles are plain pointers; the driver allows their use from any thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Handle<T>(pub T);
unsafe impl<T> Send for Handle<T> {}
unsafe impl<T> Sync for Handle<T> {}

/// Errors after which the CUDA context cannot be used again.
pub(crate) fn is_sticky(code: CUresult) -> bool {
    matches!(
        code,
        CUresult::CUDA_ERROR_ILLEGAL_ADDRESS
            | CUresult::CUDA_ERROR_LAUNCH_FAILED
            | CUresult::CUDA_ERROR_MISALIGNED_ADDRESS
            | CUresult::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUresult::CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUresult::CUDA_ERROR_INVALID_PC
            | CUresult::CUDA_ERROR_ASSERT
            | CUresult::CUDA_ERROR_INVALID_ADDRESS_SPACE
    )
}

/// `CUDA_ERROR_X (description)` for a driver error.
pub(crate) fn describe(e: &DriverError) -> String {
    let name = e
        .error_name()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    let text = e
        .error_string()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    if text.is_empty() {
        name
    } else {
        format!("{name} ({text})")
    }
}

/// A CUDA driver error as a `cuprite::Error` naming the operation.
pub(crate) fn driver_error(op: impl Into<String>, e: DriverError) -> Error {
    let mut detail = describe(&e);
    if is_sticky(e.0) {
        detail.push_str(
            "; this error is sticky: the GPU context can no longer be used, restart the kernel (or process) to continue",
        );
    }
    Error::Cuda {
        op: op.into(),
        detail,
    }
}

/// Adds the operation name to a driver result.
pub(crate) trait DriverResultExt<T> {
    fn op(self, op: &str) -> Result<T, Error>;
}

impl<T> DriverResultExt<T> for Result<T, DriverError> {
    fn op(self, op: &str) -> Result<T, Error> {
        self.map_err(|e| driver_error(op.to_string(), e))
    }
}

/// Address of device `ordinal`'s session, for the test that checks copies of
/// the crate share it.
#[doc(hidden)]
pub fn session_address_for_tests(ordinal: usize) -> Option<usize> {
    runtime::session::session(ordinal)
        .ok()
        .map(|s| s as *const runtime::session::DeviceSession as usize)
}
