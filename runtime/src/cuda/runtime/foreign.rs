//! Device memory that Cuprite did not allocate (cudarc slices, DLPack
//! tensors, `__cuda_array_interface__` pointers) seen as an array buffer.

use cudarc::driver::sys;

use super::memory::DeviceBuffer;
use super::session::session;
use super::stream::stream_for;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::core::view::OwnedView;
use crate::cuda::DriverResultExt;

/// A buffer, layout and dtype over foreign memory of CUDA device `ordinal`
/// (what an array is made of) whose element at
/// index 0 is at `first`, seen through `layout` (its offset ignored; its
/// strides in elements, possibly negative). `owner` keeps the memory alive;
/// it is dropped after every queued use of the memory has finished.
///
/// # Safety
/// Every element the layout reaches from `first` must be device memory of
/// `ordinal`, readable and writable until `owner` is dropped.
pub(crate) unsafe fn foreign_view(
    op: &'static str,
    ordinal: usize,
    first: sys::CUdeviceptr,
    layout: Layout,
    dtype: DType,
    owner: Box<dyn std::any::Any + Send + Sync>,
) -> Result<OwnedView> {
    let item = dtype.itemsize();
    if first % item as u64 != 0 {
        return Err(Error::InvalidArgument {
            op,
            detail: format!(
                "the data pointer {first:#x} is not aligned to the {item}-byte {dtype} elements"
            ),
        });
    }
    crate::core::layout::checked_size(op, layout.shape())?;
    let (shape, strides) = (layout.shape().to_vec(), layout.strides().to_vec());
    let (lo, hi) = if layout.size() == 0 {
        (0, -1)
    } else {
        Layout::from_parts(shape.clone(), strides.clone(), 0).offset_range()
    };
    let len = (hi - lo + 1) as usize;
    let base = first.wrapping_add_signed(lo as i64 * item as i64);
    let s = session(ordinal)?;
    let stream = stream_for(ordinal);
    // SAFETY: the caller vouches for the reachable range, `base..base + len * item`.
    let buffer = unsafe { DeviceBuffer::foreign(s, base, len * item, &stream, owner) };
    let layout = Layout::from_parts(shape, strides, (-lo) as usize);
    Ok(OwnedView {
        storage: Storage::Cuda(buffer.into_storage(len)),
        layout,
        dtype,
    })
}

/// The CUDA device whose memory `ptr` points into; an error for host
/// memory or a pointer the driver does not know.
pub(crate) fn pointer_device(op: &'static str, ptr: sys::CUdeviceptr) -> Result<usize> {
    let mut ordinal: i32 = -1;
    let mut kind: u32 = 0;
    use sys::CUpointer_attribute as A;
    // SAFETY: the attributes are written as an i32 and a u32 through valid out pointers.
    let known = unsafe {
        sys::cuPointerGetAttribute(
            &mut kind as *mut u32 as *mut std::ffi::c_void,
            A::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            ptr,
        )
    };
    if known != sys::CUresult::CUDA_SUCCESS
        || kind != sys::CUmemorytype::CU_MEMORYTYPE_DEVICE as u32
    {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("{ptr:#x} is not CUDA device memory"),
        });
    }
    // SAFETY: as above.
    unsafe {
        sys::cuPointerGetAttribute(
            &mut ordinal as *mut i32 as *mut std::ffi::c_void,
            A::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
            ptr,
        )
    }
    .result()
    .op(op)?;
    Ok(ordinal.max(0) as usize)
}

/// Makes Cuprite's current stream on device `ordinal` wait for the work
/// queued so far on `theirs`, a stream of another library (no host wait).
pub(crate) fn order_after(op: &'static str, ordinal: usize, theirs: sys::CUstream) -> Result<()> {
    session(ordinal)?.bind()?;
    let mut event = std::ptr::null_mut();
    // SAFETY: out pointer valid; the device's context is bound.
    unsafe {
        sys::cuEventCreate(
            &mut event,
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32,
        )
    }
    .result()
    .op(op)?;
    let ours = stream_for(ordinal);
    // SAFETY: a new event, a stream of the caller's library and ours; the
    // event may be destroyed once the wait is queued.
    let queued = unsafe { sys::cuEventRecord(event, theirs) }
        .result()
        .and_then(|()| unsafe { sys::cuStreamWaitEvent(ours.raw(), event, 0) }.result());
    // SAFETY: created above, destroyed once.
    unsafe { sys::cuEventDestroy_v2(event) };
    queued.op(op)
}
