//! Several GPUs in one process: copies between devices, ordering work
//! across devices, and letting one device read another's memory pool.
//!
//! Arrays live in each device's stream-ordered pool. The driver copies
//! between pools of two devices with `cuMemcpyPeerAsync` whether or not the
//! devices may access each other's pools; once a pool has been opened to the
//! peer (NCCL communicators do that, so that NCCL may read and write user
//! buffers of peers in the same process), a plain device-to-device copy is
//! used instead, as TensorFlow and PyTorch do for their pools.

use std::sync::OnceLock;

use cudarc::driver::sys;

use super::memory::DeviceBuffer;
use super::session::{process, session, DeviceSession};
use super::stream::{stream_for, Stream};
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use crate::core::storage::{CudaStorage, Storage};
use crate::core::view::View;
use crate::cuda::DriverResultExt;

/// Driver functions used here beyond those the session probes at start.
const PEER_SYMBOLS: &[&str] = &[
    "cuDeviceCanAccessPeer",
    "cuMemPoolSetAccess",
    "cuMemPoolGetAccess",
    "cuMemcpyPeerAsync",
];

/// Checks once that the driver exports [`PEER_SYMBOLS`] (cudarc would panic
/// on the first call of a missing one).
fn require_peer_symbols(op: &'static str) -> Result<()> {
    static MISSING: OnceLock<Vec<String>> = OnceLock::new();
    let missing = MISSING.get_or_init(|| match process().libraries.first() {
        Some(driver) => super::libs::missing_symbols(driver, PEER_SYMBOLS),
        None => PEER_SYMBOLS.iter().map(|s| s.to_string()).collect(),
    });
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Error::CudaUnavailable {
            reason: format!(
                "{op}: the CUDA driver lacks {} (a driver for CUDA 12 or newer is needed)",
                missing.join(", ")
            ),
        })
    }
}

/// Whether device `device` can read and write memory of device `peer`
/// directly (NVLink or PCIe peer-to-peer), as `cudaDeviceCanAccessPeer`.
pub fn can_access_peer(device: usize, peer: usize) -> Result<bool> {
    let op = "can_access_peer";
    session(device)?;
    session(peer)?;
    if device == peer {
        return Ok(true);
    }
    require_peer_symbols(op)?;
    let mut can = 0;
    // SAFETY: valid out pointer; both ordinals are devices (sessions exist).
    unsafe { sys::cuDeviceCanAccessPeer(&mut can, device as i32, peer as i32) }
        .result()
        .op(op)?;
    Ok(can != 0)
}

/// Whether device `peer` may access allocations of `owner`'s pool.
fn pool_open_to(owner: &DeviceSession, peer: usize) -> bool {
    let mut flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_NONE;
    let mut location = sys::CUmemLocation {
        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        id: peer as i32,
    };
    // SAFETY: valid out pointer, pool of a live session, device location.
    let rc = unsafe { sys::cuMemPoolGetAccess(&mut flags, owner.pool.0, &mut location) };
    rc == sys::CUresult::CUDA_SUCCESS
        && flags == sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE
}

/// Opens the memory pool of each device in `owners` to every device in
/// `peers` that can access it directly. Pairs without peer access are left
/// alone (NCCL then moves their data through its own buffers). Returns the
/// pairs `(owner, peer)` now open.
pub(crate) fn open_pools_to_peers(
    op: &'static str,
    owners: &[usize],
    peers: &[usize],
) -> Result<Vec<(usize, usize)>> {
    require_peer_symbols(op)?;
    let mut open = Vec::new();
    for &owner in owners {
        let s = session(owner)?;
        for &peer in peers {
            if peer == owner || !can_access_peer(peer, owner)? {
                continue;
            }
            if !pool_open_to(s, peer) {
                let desc = sys::CUmemAccessDesc {
                    location: sys::CUmemLocation {
                        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                        id: peer as i32,
                    },
                    flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
                };
                s.bind()?;
                // SAFETY: one valid descriptor for a peer (never the owner).
                unsafe { sys::cuMemPoolSetAccess(s.pool.0, &desc, 1) }
                    .result()
                    .op(op)?;
            }
            open.push((owner, peer));
        }
    }
    Ok(open)
}

/// Makes future work on `waiter` (a stream of device `waiter_dev`) wait for
/// the work queued so far on `signal` (a stream of device `signal_dev`).
pub(crate) fn order_after(
    op: &'static str,
    waiter: &Stream,
    waiter_dev: &DeviceSession,
    signal: &Stream,
    signal_dev: &DeviceSession,
) -> Result<()> {
    signal_dev.bind()?;
    let mut ev = std::ptr::null_mut();
    // SAFETY: out pointer valid; the signalling device's context is current.
    unsafe { sys::cuEventCreate(&mut ev, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32) }
        .result()
        .op(op)?;
    // SAFETY: event and stream belong to the current context.
    let recorded = unsafe { sys::cuEventRecord(ev, signal.raw()) }
        .result()
        .op(op);
    let waited = recorded.and_then(|()| {
        waiter_dev.bind()?;
        // SAFETY: a stream of the current context; events of other contexts
        // may be waited on.
        unsafe { sys::cuStreamWaitEvent(waiter.raw(), ev, 0) }
            .result()
            .op(op)
    });
    // SAFETY: created above; destruction is deferred until the event completes.
    let _ = unsafe { sys::cuEventDestroy_v2(ev) };
    waited
}

/// A new device buffer of `bytes` on cuda:`ordinal`, allocated on `stream`.
pub(crate) fn alloc_on(
    op: &'static str,
    ordinal: usize,
    bytes: usize,
    len: usize,
    stream: &Stream,
) -> Result<CudaStorage> {
    let buf = DeviceBuffer::alloc(op, session(ordinal)?, bytes, stream)?;
    Ok(buf.into_storage(len))
}

/// Runs `f` on cuda:`ordinal` and on the stream a copy from that device
/// is ordered after (the caller makes a strided view contiguous with it).
pub(crate) fn on_source_stream<R>(ordinal: usize, f: impl FnOnce() -> R) -> R {
    super::stream::with_stream(&stream_for(ordinal), || {
        crate::backend::probe::with_device(Device::Cuda(ordinal), f)
    })
}

/// A copy of the C- or F-contiguous GPU view `src` on another GPU,
/// `cuda:dst`, in the same memory order, moved by the copy engines (no host
/// staging). `force_peer_api`: `Some(true)` forces `cuMemcpyPeerAsync`,
/// `Some(false)` the plain device-to-device copy (an error unless the
/// source's pool is open to the destination), `None` picks.
pub(crate) fn copy_between(
    src: View<'_>,
    dst: usize,
    force_peer_api: Option<bool>,
) -> Result<Storage> {
    let op = "to_device";
    let from = crate::cuda::kernel_gen::helpers::ordinal(op, src)?;
    require_peer_symbols(op)?;
    let s_src = session(from)?;
    let s_dst = session(dst)?;
    let stream_src = stream_for(from);
    let stream_dst = stream_for(dst);
    debug_assert!(src.is_c_contiguous() || src.layout.is_f_contiguous());
    let Storage::Cuda(c_src) = src.storage else {
        return Err(Error::DeviceMismatch {
            op,
            a: "cuda".into(),
            b: "cpu".into(),
        });
    };
    let item = src.dtype().itemsize();
    let len = src.size();
    let bytes = len.checked_mul(item).ok_or_else(|| Error::Overflow {
        op,
        detail: format!("{len} elements of {}", src.dtype()),
    })?;
    let storage = alloc_on(op, dst, bytes, len, &stream_dst)?;
    if bytes > 0 {
        // The copy starts once the source's pending work is done...
        order_after(op, &stream_dst, s_dst, &stream_src, s_src)?;
        let from_ptr = c_src.buffer.ptr + (src.layout.offset() * item) as u64;
        let open = pool_open_to(s_src, dst);
        if force_peer_api == Some(false) && !open {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("the pool of cuda:{from} is not open to cuda:{dst}"),
            });
        }
        s_dst.bind()?;
        if force_peer_api.unwrap_or(!open) {
            // SAFETY: both ranges lie in live buffers of `bytes` bytes or
            // more; the driver moves data between the two contexts' memory.
            unsafe {
                sys::cuMemcpyPeerAsync(
                    storage.buffer.ptr,
                    s_dst.ctx.0,
                    from_ptr,
                    s_src.ctx.0,
                    bytes,
                    stream_dst.raw(),
                )
            }
            .result()
            .op(op)?;
        } else {
            // SAFETY: both ranges lie in live buffers of `bytes` bytes or
            // more, and the destination device may read the source's pool.
            unsafe {
                sys::cuMemcpyDtoDAsync_v2(storage.buffer.ptr, from_ptr, bytes, stream_dst.raw())
            }
            .result()
            .op(op)?;
        }
        // ...and the source's memory is not reused before the copy has read it.
        order_after(op, &c_src.buffer.stream, s_src, &stream_dst, s_dst)?;
        if c_src.buffer.stream != stream_src {
            order_after(op, &stream_src, s_src, &stream_dst, s_dst)?;
        }
    }
    Ok(Storage::Cuda(storage))
}
