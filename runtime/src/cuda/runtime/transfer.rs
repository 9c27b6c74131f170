//! Moving array data between host and device.

use super::memory::{download, upload, DeviceBuffer};
use super::session::session;
use super::stream::current_stream;
use crate::core::dtype::DType;
use crate::core::element::Element;
use crate::core::error::Result;
use crate::core::storage::{CpuData, CudaStorage};

/// The bytes of a typed slice (every element type is plain data; `bool` is one byte 0/1).
pub(crate) fn as_bytes<T: Element>(v: &[T]) -> &[u8] {
    // SAFETY: Element types have no padding and every bit pattern of their
    // bytes is readable as u8.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// A new device buffer on cuda:`ordinal` holding `data`.
pub(crate) fn upload_new<T: Element>(
    op: &'static str,
    ordinal: usize,
    data: &[T],
) -> Result<CudaStorage> {
    let s = session(ordinal)?;
    let stream = current_stream();
    let buf = DeviceBuffer::alloc(op, s, std::mem::size_of_val(data), &stream)?;
    upload(&buf, 0, as_bytes(data), &stream)?;
    Ok(buf.into_storage(data.len()))
}

/// A new uninitialised device buffer of `len` elements of `dtype`.
pub(crate) fn alloc(
    op: &'static str,
    ordinal: usize,
    dtype: DType,
    len: usize,
) -> Result<CudaStorage> {
    let s = session(ordinal)?;
    let bytes = len
        .checked_mul(dtype.itemsize())
        .ok_or_else(|| crate::Error::Overflow {
            op,
            detail: format!("{len} elements of {dtype}"),
        })?;
    let buf = DeviceBuffer::alloc(op, s, bytes, &current_stream())?;
    Ok(buf.into_storage(len))
}

/// A new device buffer holding host data of any dtype.
pub(crate) fn upload_data(op: &'static str, ordinal: usize, data: &CpuData) -> Result<CudaStorage> {
    crate::with_dtype!(data.dtype(), T => upload_new::<T>(op, ordinal, T::slice(data).expect("dtype matches")))
}

/// Elements `start..start+len` of a device buffer, copied to the host.
pub(crate) fn download_range<T: Element>(
    c: &CudaStorage,
    start: usize,
    len: usize,
) -> Result<Vec<T>> {
    let item = std::mem::size_of::<T>();
    let mut host: Vec<T> = Vec::new();
    host.try_reserve_exact(len)
        .map_err(|_| crate::Error::OutOfMemory {
            op: "copying GPU data to the host",
            device: "cpu".into(),
            requested: len * item,
            detail: "the host has no room for the copy".into(),
        })?;
    // Large buffers ask for huge pages first (as NumPy does): far fewer page
    // faults while the copy fills them.
    let bytes_len = len * item;
    if bytes_len >= 4 << 20 {
        // madvise needs a page-aligned start (malloc's large blocks begin a
        // few bytes into a page): advise the whole pages inside the buffer.
        let (start, end) = page_aligned_inside(host.as_ptr() as usize, bytes_len, 4096);
        if end > start {
            // SAFETY: advisory only, on whole pages inside memory this Vec owns.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
            if bytes_len >= POPULATE_FROM {
                populate(start, end);
            }
        }
    }
    // SAFETY: the bytes are fully written by `download` before any element
    // is read; every element type is plain data (bool bytes are 0 or 1, as
    // written by this crate's kernels and uploads).
    let bytes = unsafe { std::slice::from_raw_parts_mut(host.as_mut_ptr() as *mut u8, len * item) };
    download(&c.buffer, start * item, bytes, &current_stream())?;
    // SAFETY: all `len` elements were initialised by the download.
    unsafe { host.set_len(len) };
    Ok(host)
}

/// From this size on, a fresh destination is populated before the copy.
const POPULATE_FROM: usize = 16 << 20;
/// Linux 5.14's `MADV_POPULATE_WRITE` (not in the libc crate yet).
const MADV_POPULATE_WRITE: libc::c_int = 23;

/// Faults in the pages of `start..end` (page-aligned, inside a buffer this
/// process owns), in 2 MiB pieces over the rayon pool. A fresh 256 MB `Vec`
/// took the H200 host's 16 cores 11.9 ms to fill by copying into it, and
/// 6.4 ms to populate this way and then fill: the kernel zeroes the pages
/// without a fault each, in parallel. On kernels without it the call fails
/// and the copy faults the pages in as before.
fn populate(start: usize, end: usize) {
    use rayon::prelude::*;
    const PIECE: usize = 2 << 20;
    (start..end)
        .step_by(PIECE)
        .collect::<Vec<_>>()
        .into_par_iter()
        .for_each(|at| {
            let len = PIECE.min(end - at);
            // SAFETY: advisory only, on whole pages inside memory the caller owns.
            unsafe { libc::madvise(at as *mut libc::c_void, len, MADV_POPULATE_WRITE) };
        });
}

/// Elements `start..start + out.len()` of a device buffer, copied into `out`.
pub(crate) fn download_into<T: Element>(
    c: &CudaStorage,
    start: usize,
    out: &mut [T],
) -> Result<()> {
    // SAFETY: every element type is plain data, so any bytes are a valid
    // value, except bool's, and the bytes of a bool array are 0 or 1 (as
    // written by this crate's kernels and uploads).
    let bytes = unsafe {
        std::slice::from_raw_parts_mut(out.as_mut_ptr() as *mut u8, std::mem::size_of_val(out))
    };
    download(
        &c.buffer,
        start * std::mem::size_of::<T>(),
        bytes,
        &current_stream(),
    )
}

/// The page-aligned range `[start, end)` inside `[addr, addr + len)`.
fn page_aligned_inside(addr: usize, len: usize, page: usize) -> (usize, usize) {
    let start = addr.div_ceil(page) * page;
    let end = (addr + len) / page * page;
    (start, end.max(start))
}

/// Fills the first `total_bytes` of a device buffer by chunks from `fill`
/// (see [`super::memory::upload_with`]).
pub(crate) fn upload_with(
    c: &CudaStorage,
    total_bytes: usize,
    fill: &mut dyn FnMut(&mut [u8]) -> Result<()>,
) -> Result<()> {
    super::memory::upload_with(&c.buffer, 0, total_bytes, &current_stream(), fill)
}

/// Hands elements `start..start+len` (of `itemsize` bytes) of a device
/// buffer to `sink` by chunks (see [`super::memory::download_with`]).
pub(crate) fn download_with(
    c: &CudaStorage,
    start: usize,
    len: usize,
    itemsize: usize,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    super::memory::download_with(
        &c.buffer,
        start * itemsize,
        len * itemsize,
        &current_stream(),
        sink,
    )
}

/// Host values written to elements `start..` of a device buffer.
pub(crate) fn upload_range<T: Element>(c: &CudaStorage, start: usize, values: &[T]) -> Result<()> {
    let item = std::mem::size_of::<T>();
    upload(&c.buffer, start * item, as_bytes(values), &current_stream())
}

/// The whole buffer on the host (the host round trip of `backend::fallback`).
pub(crate) fn download_all<T: Element>(c: &CudaStorage) -> Result<Vec<T>> {
    download_range::<T>(c, 0, c.len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_covers_whole_pages_inside_the_buffer() {
        assert_eq!(
            page_aligned_inside(4096 + 16, 3 * 4096, 4096),
            (8192, 4 * 4096)
        );
        assert_eq!(page_aligned_inside(8192, 8192, 4096), (8192, 16384));
        assert_eq!(page_aligned_inside(100, 200, 4096), (4096, 4096));
    }
}
