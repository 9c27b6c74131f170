//! Page-locked host buffers for asynchronous copies between host and GPU,
//! and the handle ([`Pending`]) of a copy still in flight.

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys;

use super::memory::DeviceBuffer;
use super::session::session;
use super::stream::{stream_for, wait_until_complete, Event, Stream};
use crate::backend::probe::current_device;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::element::Element;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::cuda::DriverResultExt;

/// The last copy queued on a buffer: its completion event, and the GPU
/// array it reads or writes, kept alive until the copy is waited for.
type InFlight = Option<(Arc<Event>, Option<Array>)>;

/// A page-locked (pinned) host buffer of `len` elements of `T`, which the
/// GPU copies to and from asynchronously.
///
/// ```
/// use cuprite as cp;
/// if cp::device_count() > 0 {
///     let mut buf = cp::cuda::PinnedBuffer::<f32>::new(4)?;
///     buf.as_mut_slice()?.copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
///     assert_eq!(buf.as_slice()?[3], 4.0);
/// }
/// # Ok::<(), cp::Error>(())
/// ```
pub struct PinnedBuffer<T: Element> {
    ptr: NonNull<T>,
    len: usize,
    /// The device whose context allocated the memory (and frees it).
    ordinal: usize,
    in_flight: Mutex<InFlight>,
}

// SAFETY: the buffer owns its allocation; access goes through `&`/`&mut`
// after copies in flight have completed.
unsafe impl<T: Element> Send for PinnedBuffer<T> {}
unsafe impl<T: Element> Sync for PinnedBuffer<T> {}

impl<T: Element> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PinnedBuffer<{}>({} elements)", T::DTYPE, self.len)
    }
}

impl<T: Element> PinnedBuffer<T> {
    /// A zero-filled pinned buffer of `len` elements (the current device
    /// must be a CUDA device; the memory is usable from every device).
    pub fn new(len: usize) -> Result<PinnedBuffer<T>> {
        let op = "PinnedBuffer::new";
        let Device::Cuda(ordinal) = current_device() else {
            return Err(Error::NeedsCuda {
                op,
                reason: "the current device is the CPU".into(),
            });
        };
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::Overflow {
                op,
                detail: format!("{len} elements of {}", T::DTYPE),
            })?;
        let ptr = if bytes == 0 {
            NonNull::dangling()
        } else {
            session(ordinal)?.bind()?;
            let mut p = std::ptr::null_mut();
            // SAFETY: out pointer valid; PORTABLE makes it pinned for every context.
            unsafe { sys::cuMemHostAlloc(&mut p, bytes, sys::CU_MEMHOSTALLOC_PORTABLE) }
                .result()
                .op(op)?;
            // SAFETY: `bytes` fresh bytes; all-zero bytes are a valid value
            // of every element type.
            unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes) };
            NonNull::new(p as *mut T).ok_or_else(|| Error::Cuda {
                op: op.into(),
                detail: "cuMemHostAlloc returned a null pointer".into(),
            })?
        };
        Ok(PinnedBuffer {
            ptr,
            len,
            ordinal,
            in_flight: Mutex::new(None),
        })
    }

    /// A pinned buffer holding a copy of `values`.
    pub fn from_slice(values: &[T]) -> Result<PinnedBuffer<T>> {
        let mut buf = PinnedBuffer::new(values.len())?;
        buf.as_mut_slice()?.copy_from_slice(values);
        Ok(buf)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements, after any copy in flight into or out of the buffer
    /// has completed.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.settle("PinnedBuffer::as_slice")?;
        // SAFETY: `len` initialised elements that no copy is writing.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) })
    }

    /// The elements, writable, after any copy in flight has completed.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.settle("PinnedBuffer::as_mut_slice")?;
        // SAFETY: as above, and `&mut self` makes the access exclusive.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) })
    }

    /// Waits (without stopping for interrupts: the GPU may be using the
    /// memory) for the copy in flight, then forgets it.
    fn settle(&self, op: &'static str) -> Result<()> {
        let mut slot = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((event, _array)) = slot.as_ref() {
            wait_until_complete(op, None, || {
                event.done().map_err(|_| sys::CUresult::CUDA_ERROR_UNKNOWN)
            })?;
        }
        *slot = None;
        Ok(())
    }

    /// Records a copy just queued on `stream` of device `ordinal` (reading
    /// or writing `array`).
    fn track(
        &self,
        op: &'static str,
        ordinal: usize,
        stream: &Stream,
        array: Option<Array>,
    ) -> Result<Arc<Event>> {
        let event = Arc::new(on_device(ordinal, Event::new)?);
        event.record(stream)?;
        let mut slot = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        debug_assert!(
            slot.is_none(),
            "{op}: settle() ran before the copy was queued"
        );
        *slot = Some((event.clone(), array));
        Ok(event)
    }

    fn byte_len(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }
}

impl<T: Element> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        let _ = self.settle("PinnedBuffer::drop");
        // The buffer may be dropped on a thread with no context bound.
        if self.byte_len() > 0 && session(self.ordinal).and_then(|s| s.bind()).is_ok() {
            // SAFETY: allocated by cuMemHostAlloc; no copy uses it any more.
            unsafe { sys::cuMemFreeHost(self.ptr.as_ptr() as *mut std::ffi::c_void) };
        }
    }
}

/// A copy queued on a stream; the pinned buffer it uses stays borrowed
/// until this is waited for or dropped.
#[derive(Debug)]
#[must_use = "the copy may still be running: wait() for it or query is_done()"]
pub struct Pending<'a> {
    event: Arc<Event>,
    buffer: PhantomData<&'a ()>,
}

impl Pending<'_> {
    /// Waits until the copy has finished (returns early, with
    /// `Error::Interrupted`, on an interrupt; the buffer then waits itself
    /// before its memory is touched again).
    pub fn wait(self) -> Result<()> {
        self.event.synchronize()
    }

    /// Whether the copy has finished.
    pub fn is_done(&self) -> Result<bool> {
        self.event.done()
    }
}

/// `make` run with CUDA device `ordinal` current (events belong to a device).
fn on_device<R>(ordinal: usize, make: impl FnOnce() -> R) -> R {
    crate::backend::probe::with_device(Device::Cuda(ordinal), make)
}

/// The device of `stream`, or the current CUDA device for the default stream.
fn stream_device(op: &'static str, stream: &Stream) -> Result<usize> {
    match stream.device().unwrap_or_else(current_device) {
        Device::Cuda(n) => Ok(n),
        Device::Cpu => Err(Error::NeedsCuda {
            op,
            reason: "the default stream was given while the current device is the CPU".into(),
        }),
    }
}

/// Fails unless `buffer` holds exactly `n` elements.
fn check_len(op: &'static str, have: usize, n: usize, shape: &[usize]) -> Result<()> {
    if have == n {
        return Ok(());
    }
    Err(Error::Shape {
        op,
        detail: format!(
            "the pinned buffer holds {have} elements but shape {} has {n}",
            fmt_shape(shape)
        ),
    })
}

impl<T: Element> PinnedBuffer<T> {
    /// Queues a copy of `array`'s elements (C-contiguous, on CUDA, of `T`
    /// and of this buffer's length: the caller checked) into this buffer
    /// on `stream`, after the work queued on the array's current stream.
    pub(crate) fn queue_download(
        &mut self,
        op: &'static str,
        array: &Array,
        stream: &Stream,
    ) -> Result<Pending<'_>> {
        let Storage::Cuda(c) = array.storage() else {
            unreachable!("the caller checked the device")
        };
        check_len(op, self.len(), array.size(), array.shape())?;
        let ordinal = c.buffer.session.info.ordinal;
        let on_stream = stream_device(op, stream)?;
        if on_stream != ordinal {
            return Err(Error::DeviceMismatch {
                op,
                a: format!("cuda:{ordinal}"),
                b: format!("a stream of cuda:{on_stream}"),
            });
        }
        self.settle(op)?;
        let producer = stream_for(ordinal);
        if producer != *stream {
            let ready = on_device(ordinal, Event::new)?;
            ready.record(&producer)?;
            stream.wait_event(&ready)?;
        }
        if self.byte_len() > 0 {
            let src = c.buffer.ptr + (array.layout().offset() * array.itemsize()) as u64;
            // SAFETY: the buffer holds exactly the array's bytes and is
            // neither read nor freed before the event recorded below
            // completes (`settle`); the source stays alive through `track`.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(
                    self.ptr.as_ptr() as *mut std::ffi::c_void,
                    src,
                    self.byte_len(),
                    stream.raw(),
                )
            }
            .result()
            .op(op)?;
        }
        let event = self.track(op, ordinal, stream, Some(array.clone()))?;
        Ok(Pending {
            event,
            buffer: PhantomData,
        })
    }
}

/// Queues a copy of `src` into a new GPU array of `shape` on `stream` (on
/// the stream's device) and returns at once, with the copy's [`Pending`]
/// handle; `src` stays borrowed until the copy is waited for.
///
/// ```
/// use cuprite as cp;
/// if cp::device_count() > 0 {
///     cp::with_device(cp::Device::Cuda(0), || {
///         let buf = cp::cuda::PinnedBuffer::from_slice(&[1i32, 2, 3, 4, 5, 6])?;
///         let stream = cp::cuda::Stream::new()?;
///         let (x, pending) = cp::cuda::copy_to_device_async(&buf, [2, 3], &stream)?;
///         pending.wait()?;
///         assert_eq!(x.to_vec::<i32>()?, vec![1, 2, 3, 4, 5, 6]);
///         Ok::<(), cp::Error>(())
///     })?;
/// }
/// # Ok::<(), cp::Error>(())
/// ```
///
/// The array's memory is allocated in `stream`'s order: use it on that
/// stream (`cp::cuda::with_stream`) or wait for the copy before using it
/// on another.
pub fn copy_to_device_async<'a, T: Element>(
    src: &'a PinnedBuffer<T>,
    shape: impl crate::core::layout::IntoShape,
    stream: &Stream,
) -> Result<(Array, Pending<'a>)> {
    let op = "copy_to_device_async";
    let shape = shape.into_shape();
    let n = crate::core::layout::checked_size(op, &shape)?;
    check_len(op, src.len(), n, &shape)?;
    let ordinal = stream_device(op, stream)?;
    Device::Cuda(ordinal).check_available(op)?;
    src.settle(op)?;
    let s = session(ordinal)?;
    let buffer = DeviceBuffer::alloc(op, s, src.byte_len(), stream)?;
    if src.byte_len() > 0 {
        // SAFETY: a fresh device buffer of the source's size; the pinned
        // source is not written or freed before the event recorded below
        // completes (`settle`).
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                buffer.ptr,
                src.ptr.as_ptr() as *const std::ffi::c_void,
                src.byte_len(),
                stream.raw(),
            )
        }
        .result()
        .op(op)?;
    }
    let array = Array::from_parts(
        Storage::Cuda(buffer.into_storage(n)),
        Layout::contiguous(&shape),
        T::DTYPE,
    );
    let event = src.track(op, ordinal, stream, None)?;
    Ok((
        array,
        Pending {
            event,
            buffer: PhantomData,
        },
    ))
}
