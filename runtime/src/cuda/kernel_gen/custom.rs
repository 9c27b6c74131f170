//! Compiling and launching user kernels (ElementwiseKernel, ReductionKernel,
//! RawKernel): NVRTC through the session's kernel cache (memory + disk),
//! per-object caches of specialised functions, and launches with dynamic
//! shared memory above the default 48 KiB when asked.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys;

use crate::core::error::{Error, Result};
use crate::cuda::runtime::compile::{Function, Module};
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::{session, DeviceSession};
use crate::cuda::runtime::stream::Stream;
use crate::cuda::DriverResultExt;
use crate::ops::Dim3;

/// Specialised functions of one user kernel, by (device, specialisation key).
pub(crate) type FunctionCache = Mutex<HashMap<(usize, u64), Function>>;

/// The session of CUDA device `ordinal`.
pub(crate) fn device_session(ordinal: usize) -> Result<&'static DeviceSession> {
    session(ordinal)
}

/// The module for `source` on this device (compiled with `options` and
/// `name_expressions`, or found in the kernel cache).
pub(crate) fn module(
    s: &DeviceSession,
    name: &str,
    source: &str,
    options: &[String],
    name_expressions: &[String],
) -> Result<Arc<Module>> {
    s.kernels.module(s, name, source, options, name_expressions)
}

/// The function `fname` of the source identified by `key`, built by
/// `source` and compiled on first use on this device.
pub(crate) fn cached_function(
    cache: &FunctionCache,
    s: &DeviceSession,
    key: u64,
    name: &str,
    fname: &str,
    options: &[String],
    source: impl FnOnce() -> String,
) -> Result<Function> {
    let k = (s.info.ordinal, key);
    if let Some(f) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&k) {
        return Ok(*f);
    }
    let src = source();
    let m = module(s, name, &src, options, &[])?;
    let f = m.function(fname)?;
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(k, f);
    Ok(f)
}

/// Launches a user kernel: checks the block size, raises the function's
/// dynamic shared memory limit when more than 48 KiB is asked, and names the
/// kernel in errors (and as the session's last kernel).
#[allow(clippy::too_many_arguments)]
pub(crate) fn launch_user(
    s: &DeviceSession,
    name: &str,
    f: Function,
    grid: Dim3,
    block: Dim3,
    shared_mem_bytes: usize,
    stream: &Stream,
    args: &mut KernelArgs,
) -> Result<()> {
    let op = |detail: String| Error::InvalidArgument {
        op: "RawKernel::launch",
        detail: format!("kernel `{name}`: {detail}"),
    };
    let max_threads = s.info.max_threads_per_block.max(1) as u64;
    if block.count() > max_threads {
        return Err(op(format!(
            "a block of {} x {} x {} = {} threads exceeds the device's limit of {max_threads}",
            block.x,
            block.y,
            block.z,
            block.count()
        )));
    }
    if block.z > 64 || grid.y > 65535 || grid.z > 65535 || grid.x > i32::MAX as u32 {
        return Err(op(format!(
            "grid ({}, {}, {}) or block ({}, {}, {}) is outside CUDA's limits (grid.x < 2^31, grid.y and grid.z <= 65535, block.z <= 64)",
            grid.x, grid.y, grid.z, block.x, block.y, block.z
        )));
    }
    const DEFAULT_SHARED: usize = 48 * 1024;
    if shared_mem_bytes > DEFAULT_SHARED {
        let max = s.info.max_shared_memory_per_block_optin;
        if shared_mem_bytes > max {
            return Err(op(format!(
                "{shared_mem_bytes} bytes of dynamic shared memory exceed the device's per-block maximum of {max} bytes"
            )));
        }
        s.bind()?;
        // SAFETY: a valid function of the bound context; the value was checked above.
        unsafe {
            sys::cuFuncSetAttribute(
                f.raw.0,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared_mem_bytes as i32,
            )
        }
        .result()
        .op(&format!(
            "allowing {shared_mem_bytes} bytes of dynamic shared memory for kernel `{name}`"
        ))?;
    }
    let cfg = LaunchConfig {
        grid: (grid.x, grid.y, grid.z),
        block: (block.x, block.y, block.z),
        shared_mem_bytes: shared_mem_bytes as u32,
    };
    launch(s, name, f, cfg, stream, args)
}
