//! Device memory from the driver's stream-ordered pool, with the counters
//! users see in `cp::memory_pool()`, and a pool of pinned host blocks for
//! staging transfers.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use cudarc::driver::sys;

use super::session::{session, DeviceSession};
use super::stream::Stream;
use crate::core::error::{fmt_bytes, Error, Result};
use crate::core::storage::{CudaStorage, GpuHandle};
use crate::cuda::{driver_error, DriverResultExt};

/// Live counters of one device's pool (shared by all copies of the crate).
#[derive(Debug, Default)]
pub(crate) struct PoolCounters {
    used: AtomicUsize,
    peak: AtomicUsize,
    live: AtomicUsize,
    total: AtomicUsize,
    /// 0 means no limit.
    limit: AtomicUsize,
}

/// A snapshot of a memory pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStats {
    /// Bytes held by live arrays.
    pub used_bytes: usize,
    /// Bytes the pool holds from the device (used plus cached for reuse).
    pub reserved_bytes: usize,
    /// Highest `used_bytes` seen.
    pub peak_bytes: usize,
    /// Live allocations.
    pub allocations: usize,
    /// Allocations made since the session started.
    pub total_allocations: usize,
    /// The limit set with `set_limit` (0: none).
    pub limit_bytes: usize,
    /// Bytes of freed blocks kept for reuse (part of `reserved_bytes`).
    pub cached_bytes: usize,
}

/// A device buffer; freed (stream-ordered) on the stream it was allocated on.
pub(crate) struct DeviceBuffer {
    pub ptr: sys::CUdeviceptr,
    pub bytes: usize,
    /// The size class the block was allocated with (see [`BlockCache`]).
    class: usize,
    pub session: &'static DeviceSession,
    pub stream: Stream,
    /// For memory Cuprite did not allocate (a cudarc slice, a DLPack
    /// tensor, an array interface's keep-alive object): what frees it when
    /// dropped. Such a buffer never enters the pool or its counters.
    foreign: Option<ForeignOwner>,
}

/// The owner of foreign device memory, dropped when the last array view
/// of the memory goes.
pub(crate) type ForeignOwner = std::panic::AssertUnwindSafe<Box<dyn std::any::Any + Send + Sync>>;

/// Blocks freed by arrays, kept for reuse by later allocations on the same
/// stream (as CuPy's pool does), so a warm allocate/free makes no driver
/// call. Stream order makes reuse on the same stream safe without waiting.
///
/// Across threads stream order is not enough: a block freed by one thread
/// may still be read by that thread's operations deferred in the stream's
/// small-op batch, and another thread that takes the block may queue work
/// on it (a library call whose stream it fetched, and so flushed, before
/// allocating) ahead of that batch. So each block remembers the thread that
/// freed it, and a block taken by another thread launches the batch first.
#[derive(Default)]
pub(crate) struct BlockCache {
    free: Mutex<std::collections::HashMap<(usize, usize), Vec<FreedBlock>>>,
    cached: AtomicUsize,
}

/// A cached block's address and the [`thread_tag`] of the thread that freed it.
type FreedBlock = (sys::CUdeviceptr, u64);

/// A number naming the calling thread (distinct for every thread of the process).
fn thread_tag() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    thread_local! {
        static TAG: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    TAG.with(|t| *t)
}

/// The bytes actually reserved for a request: powers of two up to 1 MiB,
/// then whole MiB, so blocks of similar sizes can be reused.
fn size_class(bytes: usize) -> usize {
    if bytes <= 1 << 20 {
        bytes.next_power_of_two().max(512)
    } else {
        bytes.div_ceil(1 << 20) << 20
    }
}

impl BlockCache {
    /// A cached block of `class` bytes on `stream`, and whether another
    /// thread freed it.
    fn take(&self, stream: &Stream, class: usize) -> Option<(sys::CUdeviceptr, bool)> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let (p, freed_by) = free.get_mut(&(stream.handle() as usize, class))?.pop()?;
        self.cached.fetch_sub(class, Ordering::Relaxed);
        Some((p, freed_by != thread_tag()))
    }

    fn put(&self, stream: &Stream, class: usize, ptr: sys::CUdeviceptr) {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        free.entry((stream.handle() as usize, class))
            .or_default()
            .push((ptr, thread_tag()));
        self.cached.fetch_add(class, Ordering::Relaxed);
    }

    /// Returns cached blocks to the driver's pool (all, or those of one stream).
    pub fn release(&self, only_stream: Option<usize>) {
        // Deferred operations may still use cached blocks: queue them before
        // the blocks go back to the driver, which may hand them out again.
        let _ = crate::cuda::batch::flush_all();
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        free.retain(|&(stream, class), ptrs| {
            if only_stream.is_some_and(|s| s != stream) {
                return true;
            }
            for &(p, _) in ptrs.iter() {
                // SAFETY: a cached block of this pool, freed once in the
                // order of the stream it was last used on.
                let _ = unsafe { sys::cuMemFreeAsync(p, stream as sys::CUstream) };
                self.cached.fetch_sub(class, Ordering::Relaxed);
            }
            false
        });
    }

    /// Bytes held in the cache.
    pub fn cached_bytes(&self) -> usize {
        self.cached.load(Ordering::Relaxed)
    }
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer({:#x}, {} bytes, cuda:{})",
            self.ptr, self.bytes, self.session.info.ordinal
        )
    }
}

impl crate::core::storage::GpuBuffer for DeviceBuffer {}

/// The CUDA buffer behind an array's storage: `c.buffer.ptr`,
/// `c.buffer.session`, `c.buffer.stream` read the `DeviceBuffer`.
impl std::ops::Deref for GpuHandle {
    type Target = DeviceBuffer;
    #[inline]
    fn deref(&self) -> &DeviceBuffer {
        self.downcast()
            .expect("a CUDA storage holds a CUDA device buffer")
    }
}

impl DeviceBuffer {
    /// The storage of `len` elements owning this buffer.
    pub fn into_storage(self, len: usize) -> CudaStorage {
        let ordinal = self.session.info.ordinal;
        CudaStorage {
            buffer: GpuHandle::new(self, ordinal),
            len,
        }
    }

    /// Allocates `bytes` on `stream`'s device from the pool. On out-of-memory
    /// the pool's cached blocks are released and the request retried once.
    pub fn alloc(
        op: &'static str,
        session: &'static DeviceSession,
        bytes: usize,
        stream: &Stream,
    ) -> Result<DeviceBuffer> {
        let c = &session.memory;
        let limit = c.limit.load(Ordering::Relaxed);
        let oom = |why: String| Error::OutOfMemory {
            op,
            device: format!("cuda:{}", session.info.ordinal),
            requested: bytes,
            detail: why,
        };
        if limit != 0 && c.used.load(Ordering::Relaxed).saturating_add(bytes) > limit {
            return Err(oom(format!(
                "the pool's limit is {} and {} are in use",
                fmt_bytes(limit),
                fmt_bytes(c.used.load(Ordering::Relaxed))
            )));
        }
        let class = if bytes == 0 { 0 } else { size_class(bytes) };
        let cached = if bytes == 0 {
            None
        } else {
            session.blocks.take(stream, class)
        };
        let ptr = if bytes == 0 {
            0
        } else if let Some((p, from_another_thread)) = cached {
            if from_another_thread {
                // Its last users' deferred operations go first (see BlockCache).
                crate::cuda::batch::flush_or_remember(stream);
            }
            p
        } else {
            session.bind()?;
            match raw_alloc(session, class, stream) {
                Ok(p) => p,
                Err(e) if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                    // Give cached blocks back to the device and retry once.
                    session.blocks.release(None);
                    stream.synchronize_raw(op)?;
                    // SAFETY: synchronising the current context is always allowed.
                    unsafe { sys::cuCtxSynchronize() }.result().op(op)?;
                    // SAFETY: the pool belongs to this session's device.
                    unsafe { sys::cuMemPoolTrimTo(session.pool.0, 0) }
                        .result()
                        .op(op)?;
                    raw_alloc(session, class, stream).map_err(|e| {
                        if e.0 == sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                            let s = stats(session);
                            oom(format!(
                                "{} in use by arrays, {} reserved by the pool, {} on the device; free arrays or call cp::memory_pool().free_all_blocks()",
                                fmt_bytes(s.used_bytes),
                                fmt_bytes(s.reserved_bytes),
                                fmt_bytes(session.info.total_memory)
                            ))
                        } else {
                            driver_error(op, e)
                        }
                    })?
                }
                Err(e) => return Err(driver_error(op, e)),
            }
        };
        let used = c.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        c.peak.fetch_max(used, Ordering::Relaxed);
        c.live.fetch_add(1, Ordering::Relaxed);
        c.total.fetch_add(1, Ordering::Relaxed);
        Ok(DeviceBuffer {
            ptr,
            bytes,
            class,
            session,
            stream: stream.clone(),
            foreign: None,
        })
    }

    /// A buffer over `bytes` of device memory at `ptr` that `owner` keeps
    /// alive (and frees when dropped).
    ///
    /// # Safety
    /// `ptr..ptr + bytes` must be memory of `session`'s device, valid for
    /// reads and writes until `owner` is dropped.
    pub unsafe fn foreign(
        session: &'static DeviceSession,
        ptr: sys::CUdeviceptr,
        bytes: usize,
        stream: &Stream,
        owner: Box<dyn std::any::Any + Send + Sync>,
    ) -> DeviceBuffer {
        DeviceBuffer {
            ptr,
            bytes,
            class: 0,
            session,
            stream: stream.clone(),
            foreign: Some(std::panic::AssertUnwindSafe(owner)),
        }
    }
}

fn raw_alloc(
    session: &DeviceSession,
    bytes: usize,
    stream: &Stream,
) -> std::result::Result<sys::CUdeviceptr, cudarc::driver::DriverError> {
    let mut ptr: sys::CUdeviceptr = 0;
    // SAFETY: the pool and stream belong to this device; `ptr` is an out pointer.
    unsafe { sys::cuMemAllocFromPoolAsync(&mut ptr, bytes, session.pool.0, stream.handle()) }
        .result()?;
    Ok(ptr)
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if let Some(owner) = self.foreign.take() {
            // The owner frees the memory knowing nothing of Cuprite's
            // streams: launch deferred uses, then let every queued one finish.
            let _ = crate::cuda::batch::flush_all();
            if self.session.bind().is_ok() {
                // SAFETY: synchronising the bound context is always allowed.
                let _ = unsafe { sys::cuCtxSynchronize() };
            }
            drop(owner);
            return;
        }
        let c = &self.session.memory;
        c.used.fetch_sub(self.bytes, Ordering::Relaxed);
        c.live.fetch_sub(1, Ordering::Relaxed);
        if self.ptr != 0 {
            // Kept for the next allocation of this size on this stream.
            self.session.blocks.put(&self.stream, self.class, self.ptr);
        }
    }
}

fn stats(session: &DeviceSession) -> PoolStats {
    let c = &session.memory;
    let mut reserved: u64 = 0;
    // SAFETY: the attribute takes a u64 by pointer.
    let _ = unsafe {
        sys::cuMemPoolGetAttribute(
            session.pool.0,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
            &mut reserved as *mut u64 as *mut std::ffi::c_void,
        )
    };
    PoolStats {
        used_bytes: c.used.load(Ordering::Relaxed),
        reserved_bytes: reserved as usize,
        peak_bytes: c.peak.load(Ordering::Relaxed),
        allocations: c.live.load(Ordering::Relaxed),
        total_allocations: c.total.load(Ordering::Relaxed),
        limit_bytes: c.limit.load(Ordering::Relaxed),
        cached_bytes: session.blocks.cached_bytes(),
    }
}

/// The pool figures of every device this process has opened, with each
/// device's memory size; it opens none (a monitor asks from its own thread,
/// and must not make a context there).
pub fn open_device_pools() -> Vec<(crate::Device, PoolStats, usize)> {
    super::session::existing_sessions()
        .into_iter()
        .map(|s| {
            (
                crate::Device::Cuda(s.info.ordinal),
                stats(s),
                s.info.total_memory,
            )
        })
        .collect()
}

/// A device's memory pool, as returned by [`memory_pool`].
#[derive(Debug, Clone, Copy)]
pub struct MemoryPool {
    ordinal: usize,
}

/// The memory pool of the current CUDA device (`cp.get_default_memory_pool()`).
pub fn memory_pool() -> Result<MemoryPool> {
    let ordinal = match crate::backend::probe::current_device() {
        crate::Device::Cuda(n) => n,
        crate::Device::Cpu => 0,
    };
    session(ordinal)?;
    Ok(MemoryPool { ordinal })
}

impl MemoryPool {
    /// Device number.
    pub fn device(&self) -> crate::Device {
        crate::Device::Cuda(self.ordinal)
    }
    /// Current figures.
    pub fn stats(&self) -> Result<PoolStats> {
        Ok(stats(session(self.ordinal)?))
    }
    /// Bytes held by live arrays.
    pub fn used_bytes(&self) -> Result<usize> {
        Ok(self.stats()?.used_bytes)
    }
    /// Bytes reserved from the device.
    pub fn total_bytes(&self) -> Result<usize> {
        Ok(self.stats()?.reserved_bytes)
    }
    /// Returns every cached (unused) block to the device, after waiting for
    /// queued work.
    pub fn free_all_blocks(&self) -> Result<()> {
        let s = session(self.ordinal)?;
        s.bind()?;
        s.blocks.release(None);
        // SAFETY: synchronising the current context is always allowed.
        unsafe { sys::cuCtxSynchronize() }
            .result()
            .op("free_all_blocks")?;
        // SAFETY: the pool belongs to this device.
        unsafe { sys::cuMemPoolTrimTo(s.pool.0, 0) }
            .result()
            .op("free_all_blocks")
    }
    /// Caps the bytes arrays may hold (0 removes the cap); requests beyond it
    /// fail with `Error::OutOfMemory`.
    pub fn set_limit(&self, bytes: usize) -> Result<()> {
        session(self.ordinal)?
            .memory
            .limit
            .store(bytes, Ordering::Relaxed);
        Ok(())
    }
}

/// A pinned (page-locked, portable) host block.
pub(crate) struct PinnedBlock {
    pub ptr: *mut u8,
    pub capacity: usize,
}
unsafe impl Send for PinnedBlock {}

/// Reusable pinned blocks by capacity (powers of two), with counters.
#[derive(Default)]
pub(crate) struct PinnedPool {
    free: Mutex<BTreeMap<usize, Vec<PinnedBlock>>>,
    counters: PoolCounters,
    reserved: AtomicUsize,
}

impl PinnedPool {
    /// A block of at least `bytes`, reused when one is cached.
    pub fn take(&self, session: &DeviceSession, bytes: usize) -> Result<PinnedLease<'_>> {
        let capacity = bytes.max(4096).next_power_of_two();
        let reused = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            free.get_mut(&capacity).and_then(|v| v.pop())
        };
        let block = match reused {
            Some(b) => b,
            None => {
                session.bind()?;
                let mut p = std::ptr::null_mut();
                // SAFETY: out pointer valid; PORTABLE makes it usable from every context.
                unsafe { sys::cuMemHostAlloc(&mut p, capacity, sys::CU_MEMHOSTALLOC_PORTABLE) }
                    .result()
                    .op("allocating pinned host memory")?;
                self.reserved.fetch_add(capacity, Ordering::Relaxed);
                PinnedBlock {
                    ptr: p as *mut u8,
                    capacity,
                }
            }
        };
        let c = &self.counters;
        let used = c.used.fetch_add(capacity, Ordering::Relaxed) + capacity;
        c.peak.fetch_max(used, Ordering::Relaxed);
        c.live.fetch_add(1, Ordering::Relaxed);
        c.total.fetch_add(1, Ordering::Relaxed);
        Ok(PinnedLease {
            pool: self,
            block: Some(block),
        })
    }

    fn give_back(&self, block: PinnedBlock) {
        let c = &self.counters;
        c.used.fetch_sub(block.capacity, Ordering::Relaxed);
        c.live.fetch_sub(1, Ordering::Relaxed);
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        free.entry(block.capacity).or_default().push(block);
    }

    /// Current figures.
    pub fn stats(&self) -> PoolStats {
        let c = &self.counters;
        PoolStats {
            used_bytes: c.used.load(Ordering::Relaxed),
            reserved_bytes: self.reserved.load(Ordering::Relaxed),
            peak_bytes: c.peak.load(Ordering::Relaxed),
            allocations: c.live.load(Ordering::Relaxed),
            total_allocations: c.total.load(Ordering::Relaxed),
            limit_bytes: 0,
            cached_bytes: 0,
        }
    }

    /// Frees every cached block.
    pub fn free_all_blocks(&self) {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        for (_, blocks) in std::mem::take(&mut *free) {
            for b in blocks {
                // SAFETY: allocated by cuMemHostAlloc and no longer leased.
                unsafe { sys::cuMemFreeHost(b.ptr as *mut std::ffi::c_void) };
                self.reserved.fetch_sub(b.capacity, Ordering::Relaxed);
            }
        }
    }
}

/// A pinned block on loan; returned to the pool on drop.
pub(crate) struct PinnedLease<'a> {
    pool: &'a PinnedPool,
    block: Option<PinnedBlock>,
}

impl PinnedLease<'_> {
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.block.as_ref().map_or(std::ptr::null_mut(), |b| b.ptr)
    }
}

impl Drop for PinnedLease<'_> {
    fn drop(&mut self) {
        if let Some(b) = self.block.take() {
            self.pool.give_back(b);
        }
    }
}

/// The pinned host pool used for staging on the current device.
pub fn pinned_memory_pool() -> Result<PinnedPoolHandle> {
    let ordinal = match crate::backend::probe::current_device() {
        crate::Device::Cuda(n) => n,
        crate::Device::Cpu => 0,
    };
    Ok(PinnedPoolHandle(session(ordinal)?))
}

/// A handle to a device session's pinned host pool.
#[derive(Clone, Copy)]
pub struct PinnedPoolHandle(&'static DeviceSession);

impl std::fmt::Debug for PinnedPoolHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PinnedPool({:?})", self.stats())
    }
}

impl PinnedPoolHandle {
    /// Current figures.
    pub fn stats(&self) -> PoolStats {
        self.0.pinned.stats()
    }
    /// Frees every cached pinned block.
    pub fn free_all_blocks(&self) {
        self.0.pinned.free_all_blocks()
    }
}

/// Bytes per staging chunk: large transfers go through two pinned chunks so
/// the host copy of one overlaps the DMA of the other.
const CHUNK: usize = 32 << 20;

/// Host copies into and out of a staging chunk larger than this are split
/// over the rayon pool: one core copies pageable memory at about 10 GB/s,
/// well below what the link carries from pinned memory (about 50 GB/s on an
/// H200), and a fresh destination's page faults cost as much again.
const PARALLEL_COPY: usize = 4 << 20;

/// `dst.copy_from_slice(src)`, on several cores when it is large.
fn copy_host(dst: &mut [u8], src: &[u8]) {
    use rayon::prelude::*;
    const PIECE: usize = 1 << 20;
    if src.len() < PARALLEL_COPY {
        dst.copy_from_slice(src);
        return;
    }
    dst.par_chunks_mut(PIECE)
        .zip(src.par_chunks(PIECE))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

/// Two events for the double-buffered staging loop.
struct ChunkEvents([sys::CUevent; 2]);

impl ChunkEvents {
    fn new(op: &'static str) -> Result<ChunkEvents> {
        let mut ev = [std::ptr::null_mut(); 2];
        for e in ev.iter_mut() {
            // SAFETY: out pointer valid; the context is bound by the caller.
            unsafe { sys::cuEventCreate(e, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32) }
                .result()
                .op(op)?;
        }
        Ok(ChunkEvents(ev))
    }
}

impl Drop for ChunkEvents {
    fn drop(&mut self) {
        for e in self.0 {
            // SAFETY: created above, destroyed once.
            unsafe { sys::cuEventDestroy_v2(e) };
        }
    }
}

/// Waits for a staging chunk's copy; never returns early for an interrupt,
/// since the GPU may still be reading or writing the pinned chunk.
fn wait_event(op: &'static str, session: &DeviceSession, e: sys::CUevent) -> Result<()> {
    super::stream::wait_until_complete(op, Some(session), || {
        // SAFETY: a valid, recorded event.
        match unsafe { sys::cuEventQuery(e) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            code => Err(code),
        }
    })
}

/// Copies host bytes to a device buffer, staged through pinned memory,
/// returning once the copy has completed.
pub(crate) fn upload(
    dst: &DeviceBuffer,
    offset_bytes: usize,
    src: &[u8],
    stream: &Stream,
) -> Result<()> {
    if src.is_empty() {
        return Ok(());
    }
    let mut rest = src;
    upload_with(dst, offset_bytes, src.len(), stream, &mut |piece| {
        let (head, tail) = rest.split_at(piece.len());
        copy_host(piece, head);
        rest = tail;
        Ok(())
    })
}

/// Fills `total` bytes of a device buffer from `offset_bytes` on, staged
/// through two pinned chunks: `fill` writes each chunk (consecutive ranges
/// of at most [`CHUNK`] bytes, a multiple of 16 except the last) while the
/// GPU copies the other. Returns once the copy has completed; an error of
/// `fill` is returned after the chunks in flight have landed.
pub(crate) fn upload_with(
    dst: &DeviceBuffer,
    offset_bytes: usize,
    total: usize,
    stream: &Stream,
    fill: &mut dyn FnMut(&mut [u8]) -> Result<()>,
) -> Result<()> {
    let op = "copying host data to the GPU";
    if total == 0 {
        return Ok(());
    }
    let s = dst.session;
    // The buffer's device's queue, whatever device the thread is on.
    let stream = &stream.for_session(s);
    // Wait for earlier work here, where an interrupt may stop the wait; once
    // staging starts, the copy runs to the end (pinned chunks in flight).
    stream.synchronize_for(op, s, true)?;
    s.bind()?;
    let dptr = dst.ptr + offset_bytes as u64;
    let chunk = CHUNK.min(total);
    let mut bufs = [s.pinned.take(s, chunk)?, s.pinned.take(s, chunk)?];
    let events = ChunkEvents::new(op)?;
    let mut recorded = [false; 2];
    for k in 0..total.div_ceil(CHUNK) {
        let b = k % 2;
        if recorded[b] {
            wait_event(op, s, events.0[b])?;
        }
        let len = CHUNK.min(total - k * CHUNK);
        // SAFETY: the pinned block holds at least `chunk` >= len bytes, its
        // previous DMA has completed (event above), and no other reference
        // to it exists while `fill` runs.
        let piece = unsafe { std::slice::from_raw_parts_mut(bufs[b].as_mut_ptr(), len) };
        if let Err(e) = fill(piece) {
            // The other chunk may still be in flight: let it land before
            // the pinned blocks go back to the pool.
            let _ = stream.synchronize_for(op, s, false);
            return Err(e);
        }
        // SAFETY: valid device range; the pinned source stays alive until the
        // final synchronisation below.
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                dptr + (k * CHUNK) as u64,
                bufs[b].as_mut_ptr() as *const std::ffi::c_void,
                len,
                stream.raw(),
            )
        }
        .result()
        .op(op)?;
        // SAFETY: valid event and stream.
        unsafe { sys::cuEventRecord(events.0[b], stream.raw()) }
            .result()
            .op(op)?;
        recorded[b] = true;
    }
    stream.synchronize_for(op, s, false)
}

/// Copies device bytes to host memory (waiting for queued work first),
/// staged through two pinned chunks.
pub(crate) fn download(
    src: &DeviceBuffer,
    offset_bytes: usize,
    dst: &mut [u8],
    stream: &Stream,
) -> Result<()> {
    if dst.is_empty() {
        return Ok(());
    }
    let mut rest = dst;
    download_with(src, offset_bytes, rest.len(), stream, &mut |piece| {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(piece.len());
        copy_host(head, piece);
        rest = tail;
        Ok(())
    })
}

/// Reads `total` bytes of a device buffer from `offset_bytes` on, staged
/// through two pinned chunks: `sink` gets each chunk in order (at most
/// [`CHUNK`] bytes, a multiple of 16 except the last) while the GPU copies
/// the next. An error of `sink` is returned after the chunks in flight
/// have landed.
pub(crate) fn download_with(
    src: &DeviceBuffer,
    offset_bytes: usize,
    total: usize,
    stream: &Stream,
    sink: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let op = "copying GPU data to the host";
    if total == 0 {
        return Ok(());
    }
    let s = src.session;
    // The buffer's device's queue, whatever device the thread is on.
    let stream = &stream.for_session(s);
    // Wait for the work that produces the data here, where an interrupt may
    // stop the wait; once staging starts, the copy runs to the end.
    stream.synchronize_for(op, s, true)?;
    s.bind()?;
    let sptr = src.ptr + offset_bytes as u64;
    let chunk = CHUNK.min(total);
    let mut bufs = [s.pinned.take(s, chunk)?, s.pinned.take(s, chunk)?];
    let events = ChunkEvents::new(op)?;
    let n = total.div_ceil(CHUNK);
    let issue = |k: usize, buf: *mut u8| -> Result<()> {
        let len = CHUNK.min(total - k * CHUNK);
        // SAFETY: valid device range and a pinned destination of `chunk` bytes.
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                buf as *mut std::ffi::c_void,
                sptr + (k * CHUNK) as u64,
                len,
                stream.raw(),
            )
        }
        .result()
        .op(op)?;
        // SAFETY: valid event and stream.
        unsafe { sys::cuEventRecord(events.0[k % 2], stream.raw()) }
            .result()
            .op(op)
    };
    for k in 0..n.min(2) {
        issue(k, bufs[k % 2].as_mut_ptr())?;
    }
    for k in 0..n {
        let b = k % 2;
        wait_event(op, s, events.0[b])?;
        let len = CHUNK.min(total - k * CHUNK);
        // SAFETY: the DMA into this pinned chunk completed (event above) and
        // no copy into it is queued until `sink` returns.
        let piece = unsafe { std::slice::from_raw_parts(bufs[b].as_mut_ptr(), len) };
        if let Err(e) = sink(piece) {
            // The next chunk may still be in flight: let it land before the
            // pinned blocks go back to the pool.
            let _ = stream.synchronize_for(op, s, false);
            return Err(e);
        }
        if k + 2 < n {
            issue(k + 2, bufs[b].as_mut_ptr())?;
        }
    }
    Ok(())
}
