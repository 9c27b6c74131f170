//! Packing kernel arguments and launching kernels on a stream.

use std::ffi::c_void;

use cudarc::driver::sys;
use smallvec::SmallVec;

use super::compile::Function;
use super::session::DeviceSession;
use super::stream::Stream;
use crate::core::error::Result;

/// Kernel arguments laid out in one buffer; `cuLaunchKernel` receives a
/// pointer to each.
/// Held inline (no heap allocation) up to the sizes almost every launch
/// needs: launches are the hot path of small operations.
#[derive(Default)]
pub(crate) struct KernelArgs {
    bytes: SmallVec<[u8; 256]>,
    offsets: SmallVec<[usize; 16]>,
}

impl KernelArgs {
    pub fn new() -> KernelArgs {
        KernelArgs::default()
    }

    /// Appends a plain-data argument (a scalar, a pointer, or a `#[repr(C)]` struct).
    pub fn push<T: Copy>(&mut self, value: T) -> &mut Self {
        let align = std::mem::align_of::<T>().max(1);
        let start = self.bytes.len().div_ceil(align) * align;
        self.bytes.resize(start + std::mem::size_of::<T>(), 0);
        // SAFETY: the buffer has room for T at `start`; T is Copy (plain data).
        unsafe {
            std::ptr::copy_nonoverlapping(
                &value as *const T as *const u8,
                self.bytes.as_mut_ptr().add(start),
                std::mem::size_of::<T>(),
            )
        };
        self.offsets.push(start);
        self
    }

    /// Appends raw bytes with the given alignment (for dtypes known only at run time).
    pub fn push_bytes(&mut self, data: &[u8], align: usize) -> &mut Self {
        let align = align.max(1);
        let start = self.bytes.len().div_ceil(align) * align;
        self.bytes.resize(start + data.len(), 0);
        self.bytes[start..start + data.len()].copy_from_slice(data);
        self.offsets.push(start);
        self
    }

    /// Overwrites the bytes of the last argument, pushed with the same
    /// length (a deferred launch whose last argument is known only when it
    /// runs).
    pub fn patch_last(&mut self, data: &[u8]) {
        let start = *self.offsets.last().expect("an argument was pushed");
        debug_assert_eq!(self.bytes.len() - start, data.len());
        self.bytes[start..start + data.len()].copy_from_slice(data);
    }
}

/// Grid and block sizes plus dynamic shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

/// Launches `f` on `stream`; errors name the kernel.
pub(crate) fn launch(
    session: &DeviceSession,
    name: &str,
    f: Function,
    cfg: LaunchConfig,
    stream: &Stream,
    args: &mut KernelArgs,
) -> Result<()> {
    session.bind()?;
    // Deferred operations of the stream go first (`Stream::raw`).
    let raw = stream.raw();
    launch_on(session, name, f, cfg, raw, args)
}

/// [`launch`] on a stream known by its handle, with the session's context
/// already current and nothing deferred to launch first (the batch
/// launcher, which holds the pending batches).
pub(crate) fn launch_on(
    session: &DeviceSession,
    name: &str,
    f: Function,
    cfg: LaunchConfig,
    stream: sys::CUstream,
    args: &mut KernelArgs,
) -> Result<()> {
    let base = args.bytes.as_mut_ptr();
    let mut ptrs: SmallVec<[*mut c_void; 16]> = args
        .offsets
        .iter()
        // SAFETY: each offset lies inside `bytes`, which is not resized below.
        .map(|&o| unsafe { base.add(o) } as *mut c_void)
        .collect();
    if let Ok(mut last) = session.last_kernel.lock() {
        if last.as_str() != name {
            last.clear();
            last.push_str(name);
        }
    }
    // SAFETY: the argument pointers match the kernel's parameters (generated
    // together, or checked by the caller for user kernels) and stay valid for
    // the call; the driver copies argument values at launch.
    unsafe {
        sys::cuLaunchKernel(
            f.raw.0,
            cfg.grid.0,
            cfg.grid.1,
            cfg.grid.2,
            cfg.block.0,
            cfg.block.1,
            cfg.block.2,
            cfg.shared_mem_bytes,
            stream,
            ptrs.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .result()
    // The message is only formatted on failure: launches are the hot path.
    .map_err(|e| crate::cuda::driver_error(format!("launching kernel `{name}`"), e))
}
