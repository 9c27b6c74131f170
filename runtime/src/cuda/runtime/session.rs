//! One session per CUDA device per process: context, memory pool, kernel
//! cache and counters, created lazily and shared by every array on that
//! device (and by every copy of this crate in the process).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use cudarc::driver::{result as cu, sys};

use super::compile::KernelCache;
use super::libs::{self, LibraryInfo};
use super::memory::{PinnedPool, PoolCounters};
use crate::core::error::{Error, Result};
use crate::core::global::process_global;
use crate::cuda::{DriverResultExt, Handle};

/// What the driver says about a device.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceInfo {
    /// Device number.
    pub ordinal: usize,
    /// Marketing name, e.g. "NVIDIA H200".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub sm_count: usize,
    /// Device memory in bytes.
    pub total_memory: usize,
    /// Largest dynamic shared memory a block may opt into, in bytes.
    pub max_shared_memory_per_block_optin: usize,
    /// Threads per block limit.
    pub max_threads_per_block: usize,
    /// L2 cache size in bytes.
    pub l2_cache_bytes: usize,
    /// Driver's CUDA version, e.g. 13000.
    pub driver_version: i32,
    /// NVRTC version (major, minor), when NVRTC was found.
    pub nvrtc_version: Option<(i32, i32)>,
}

/// Everything CUDA in this process: libraries, device count, sessions.
pub(crate) struct CudaProcess {
    /// The driver and NVRTC as found.
    pub libraries: Vec<LibraryInfo>,
    /// Number of devices, or why CUDA cannot be used.
    pub availability: std::result::Result<usize, String>,
    pub driver_version: i32,
    pub nvrtc_version: Option<(i32, i32)>,
    sessions: Mutex<Vec<Option<&'static DeviceSession>>>,
    /// Whether small operations are deferred into batches (`cuda::batch`).
    pub batching: AtomicBool,
    /// Streams with deferred operations not yet launched, over all devices:
    /// zero lets every enqueue skip looking.
    pub batches_pending: std::sync::atomic::AtomicUsize,
    /// Whether elementwise operations are fused (`cuda::fusion`).
    pub fusion: AtomicBool,
    /// GPU arrays taken through the host, per operation (`backend::fallback`).
    pub host_fallbacks: crate::backend::fallback::FallbackCounts,
}

/// The process-wide CUDA state, probing the libraries on first use.
pub(crate) fn process() -> &'static CudaProcess {
    // The process-wide lookup reads the environment; remember its answer in
    // this copy of the crate so hot paths never repeat it.
    static THIS_COPY: std::sync::OnceLock<&'static CudaProcess> = std::sync::OnceLock::new();
    THIS_COPY.get_or_init(|| process_global("cuda", probe))
}

fn probe() -> CudaProcess {
    let driver = libs::load("cuda");
    let nvrtc = libs::load("nvrtc");
    let mut availability: std::result::Result<usize, String>;
    let mut driver_version = 0;
    let mut nvrtc_version = None;
    if driver.path.is_none() {
        availability = Err(format!(
            "no CUDA driver library was found (tried {})",
            driver.tried.join("; ")
        ));
    } else {
        let missing = libs::missing_symbols(&driver, libs::DRIVER_SYMBOLS);
        if !missing.is_empty() {
            availability = Err(format!(
                "the CUDA driver at {} is too old: it lacks {} (a driver for CUDA 12 or newer is needed)",
                driver.describe(),
                missing.join(", ")
            ));
        } else if let Err(e) = cu::init() {
            availability = Err(format!("cuInit failed: {}", crate::cuda::describe(&e)));
        } else {
            let mut v = 0;
            // SAFETY: the symbol exists (checked above) and `v` is a valid out pointer.
            unsafe { sys::cuDriverGetVersion(&mut v) };
            driver_version = v;
            availability = cu::device::get_count()
                .map(|n| n.max(0) as usize)
                .map_err(|e| format!("cuDeviceGetCount failed: {}", crate::cuda::describe(&e)));
        }
    }
    if nvrtc.path.is_some() && libs::missing_symbols(&nvrtc, libs::NVRTC_SYMBOLS).is_empty() {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: the symbol exists (checked above).
        let rc = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
        if rc == cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
            nvrtc_version = Some((major, minor));
        }
    }
    if let Ok(0) = availability {
        availability = Err("the CUDA driver reports no devices".into());
    }
    if availability.is_ok() && nvrtc_version.is_none() {
        availability = Err(format!(
            "NVRTC (the runtime compiler for the GPU kernels) was not found or is incomplete (tried {}); install the CUDA toolkit or `pip install nvidia-cuda-nvrtc-cu12`, or set CUDA_HOME",
            nvrtc.tried.join("; ")
        ));
    }
    CudaProcess {
        libraries: vec![driver, nvrtc],
        availability,
        driver_version,
        nvrtc_version,
        sessions: Mutex::new(Vec::new()),
        batching: AtomicBool::new(std::env::var("CUPRITE_BATCH_SMALL_OPS").as_deref() != Ok("0")),
        batches_pending: Default::default(),
        fusion: AtomicBool::new(std::env::var("CUPRITE_FUSION").as_deref() == Ok("1")),
        host_fallbacks: Default::default(),
    }
}

/// Number of usable CUDA devices (0 when CUDA is unavailable).
pub(crate) fn usable_device_count() -> usize {
    process().availability.clone().unwrap_or(0)
}

/// Why CUDA is unavailable, or what was found.
pub(crate) fn availability_text() -> String {
    let p = process();
    match &p.availability {
        Ok(n) => format!(
            "{n} CUDA device(s); driver CUDA {}.{}; NVRTC {}",
            p.driver_version / 1000,
            (p.driver_version % 1000) / 10,
            p.nvrtc_version
                .map(|(a, b)| format!("{a}.{b}"))
                .unwrap_or_else(|| "missing".into())
        ),
        Err(why) => why.clone(),
    }
}

/// A multi-line report of the CUDA libraries and devices (for `%gpu`).
pub fn cuda_report() -> String {
    let p = process();
    let mut out = vec![format!("CUDA: {}", availability_text())];
    for l in &p.libraries {
        out.push(format!("  {}", l.describe()));
    }
    if let Ok(n) = p.availability {
        for i in 0..n {
            match session(i) {
                Ok(s) => {
                    let d = &s.info;
                    out.push(format!(
                        "  cuda:{i}: {} (sm_{}{}, {} SMs, {:.1} GiB)",
                        d.name,
                        d.compute_capability.0,
                        d.compute_capability.1,
                        d.sm_count,
                        d.total_memory as f64 / (1u64 << 30) as f64
                    ));
                }
                Err(e) => out.push(format!("  cuda:{i}: {e}")),
            }
        }
        out.push(crate::cuda::batch::report());
        out.push(crate::cuda::fusion::report());
        out.push(crate::backend::fallback::report());
    }
    out.join("\n")
}

/// What the driver says about CUDA device `ordinal` (its session is created
/// on first use); for `%gpu` and device reports.
pub fn device_info(ordinal: usize) -> Result<DeviceInfo> {
    Ok(session(ordinal)?.info.clone())
}

/// Free and total memory of CUDA device `ordinal` in bytes, as the driver
/// reports them now (`cudaMemGetInfo`).
pub fn mem_get_info(ordinal: usize) -> Result<(usize, usize)> {
    let s = session(ordinal)?;
    s.bind()?;
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: valid out pointers; the device's context is current.
    unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) }
        .result()
        .op("mem_get_info")?;
    Ok((free, total))
}

/// A device's context, memory pool, kernel cache and counters.
pub(crate) struct DeviceSession {
    pub info: DeviceInfo,
    pub ctx: Handle<sys::CUcontext>,
    pub pool: Handle<sys::CUmemoryPool>,
    pub memory: PoolCounters,
    pub blocks: super::memory::BlockCache,
    pub pinned: PinnedPool,
    pub kernels: KernelCache,
    /// Name of the last kernel launched, to name a kernel that faulted.
    pub last_kernel: Mutex<String>,
    /// Small operations deferred into batches (`cuda::batch`).
    pub batch: crate::cuda::batch::BatchState,
    /// Per stream: zeroed u32 counters for reductions whose last block
    /// finishes (each kernel leaves them zero again).
    pub counters: Mutex<std::collections::HashMap<usize, u64>>,
    /// The cuBLAS handle (`cuda::blas`).
    pub cublas: LazyHandle<crate::cuda::blas::BlasHandle>,
    /// The cuSOLVER handle and its 64-bit API parameters (`cuda::solver`).
    pub cusolver: LazyHandle<crate::cuda::solver::SolverHandle>,
    /// The cuSPARSE handle (`cuda::cusparse`).
    pub cusparse: LazyHandle<crate::cuda::cusparse::SparseHandle>,
    /// The cuSOLVER sparse handle (`cuda::cusolver_sp`).
    pub cusolver_sp: LazyHandle<crate::cuda::cusolver_sp::SolverSpHandle>,
    /// The cuFFT plan cache (`cuda::cufft`).
    pub cufft_plans: LazyHandle<crate::cuda::cufft::PlanCache>,
}

/// A vendor-library handle (or plan cache) of one device session: created
/// on first use, kept for the session's life (the whole process: sessions
/// are never dropped, so neither are their handles), and used under its
/// lock, since a library handle must not be used by two threads at once.
///
/// Living in the session, one object serves every copy of this crate in the
/// process (each notebook cell links its own copy, and a `static` would be
/// a different handle in each); the session is found through the
/// process-wide registry in [`process`].
pub(crate) struct LazyHandle<T>(Mutex<Option<T>>);

impl<T> Default for LazyHandle<T> {
    fn default() -> Self {
        LazyHandle(Mutex::new(None))
    }
}

impl<T> LazyHandle<T> {
    /// Runs `use_it` on the value under the lock, creating it with `create`
    /// first when there is none (a failed creation leaves none, so the next
    /// use tries again).
    pub fn with<R>(
        &self,
        create: impl FnOnce() -> Result<T>,
        use_it: impl FnOnce(&mut T) -> Result<R>,
    ) -> Result<R> {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let value = match &mut *slot {
            Some(v) => v,
            empty => empty.insert(create()?),
        };
        use_it(value)
    }

    /// Takes the value out (the next use creates a new one); the caller
    /// drops it outside the lock, which destroys what it holds.
    pub fn take(&self) -> Option<T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The session of device `ordinal`, created on first use.
pub(crate) fn session(ordinal: usize) -> Result<&'static DeviceSession> {
    // Sessions live for the process: once found, this copy of the crate
    // keeps the address without taking the process-wide lock again.
    use std::sync::atomic::AtomicPtr;
    const KEPT: usize = 16;
    static FOUND: [AtomicPtr<DeviceSession>; KEPT] =
        [const { AtomicPtr::new(std::ptr::null_mut()) }; KEPT];
    if let Some(slot) = FOUND.get(ordinal) {
        let p = slot.load(Ordering::Acquire);
        if !p.is_null() {
            // SAFETY: stored below from a leaked `&'static DeviceSession`.
            return Ok(unsafe { &*p });
        }
    }
    let s = find_or_create_session(ordinal)?;
    if let Some(slot) = FOUND.get(ordinal) {
        slot.store(
            s as *const DeviceSession as *mut DeviceSession,
            Ordering::Release,
        );
    }
    Ok(s)
}

fn find_or_create_session(ordinal: usize) -> Result<&'static DeviceSession> {
    let p = process();
    let count = match &p.availability {
        Ok(n) => *n,
        Err(why) => {
            return Err(Error::CudaUnavailable {
                reason: why.clone(),
            })
        }
    };
    if ordinal >= count {
        return Err(Error::InvalidArgument {
            op: "Device::cuda",
            detail: format!(
                "cuda:{ordinal} does not exist; this machine has {count} CUDA device(s)"
            ),
        });
    }
    let mut slots = p.sessions.lock().unwrap_or_else(|e| e.into_inner());
    if slots.len() < count {
        slots.resize(count, None);
    }
    if let Some(s) = slots[ordinal] {
        return Ok(s);
    }
    let s: &'static DeviceSession = Box::leak(Box::new(create_session(ordinal, p)?));
    slots[ordinal] = Some(s);
    Ok(s)
}

fn create_session(ordinal: usize, p: &CudaProcess) -> Result<DeviceSession> {
    let op = "creating the CUDA session";
    let dev = cu::device::get(ordinal as i32).op(op)?;
    // SAFETY: `dev` is a valid device; the primary context is retained for
    // the life of the process (never released).
    let ctx = unsafe { cu::primary_ctx::retain(dev) }.op(op)?;
    unsafe { cu::ctx::set_current(ctx) }.op(op)?;
    note_current(ctx);
    let attr = |a: sys::CUdevice_attribute| -> Result<usize> {
        // SAFETY: valid device and attribute.
        Ok(unsafe { cu::device::get_attribute(dev, a) }.op(op)?.max(0) as usize)
    };
    use sys::CUdevice_attribute as A;
    let info = DeviceInfo {
        ordinal,
        name: cu::device::get_name(dev).op(op)?,
        compute_capability: (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? as i32,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)? as i32,
        ),
        sm_count: attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        // SAFETY: valid device.
        total_memory: unsafe { cu::device::total_mem(dev) }.op(op)?,
        max_shared_memory_per_block_optin: attr(
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )?,
        max_threads_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        l2_cache_bytes: attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
        driver_version: p.driver_version,
        nvrtc_version: p.nvrtc_version,
    };
    // The device's default stream-ordered pool, keeping freed memory cached
    // instead of releasing it at every synchronisation (~106 us -> ~3 us per
    // allocate/free cycle measured on an H200).
    let mut pool = std::ptr::null_mut();
    // SAFETY: valid device and out pointer.
    unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, dev) }
        .result()
        .op(op)?;
    let mut threshold: u64 = u64::MAX;
    // SAFETY: the attribute takes a u64 by pointer.
    unsafe {
        sys::cuMemPoolSetAttribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            &mut threshold as *mut u64 as *mut std::ffi::c_void,
        )
    }
    .result()
    .op(op)?;
    Ok(DeviceSession {
        kernels: KernelCache::new(&info),
        info,
        ctx: Handle(ctx),
        pool: Handle(pool),
        memory: PoolCounters::default(),
        blocks: Default::default(),
        pinned: PinnedPool::default(),
        last_kernel: Mutex::new(String::new()),
        batch: Default::default(),
        counters: Mutex::new(std::collections::HashMap::new()),
        cublas: Default::default(),
        cusolver: Default::default(),
        cusparse: Default::default(),
        cusolver_sp: Default::default(),
        cufft_plans: Default::default(),
    })
}

/// Counters available to one reduction launch.
pub(crate) const REDUCE_COUNTERS: usize = 1 << 16;

impl DeviceSession {
    /// The zeroed reduction counters of `stream`, made on first use.
    pub fn counters(&self, stream: &super::stream::Stream) -> Result<u64> {
        let mut map = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&p) = map.get(&(stream.handle() as usize)) {
            return Ok(p);
        }
        self.bind()?;
        let bytes = REDUCE_COUNTERS * 4;
        let mut p: sys::CUdeviceptr = 0;
        // SAFETY: out pointer valid; pool and stream belong to this device.
        unsafe { sys::cuMemAllocFromPoolAsync(&mut p, bytes, self.pool.0, stream.raw()) }
            .result()
            .op("allocating reduction counters")?;
        // SAFETY: the block holds `bytes` bytes.
        unsafe { sys::cuMemsetD8Async(p, 0, bytes, stream.raw()) }
            .result()
            .op("allocating reduction counters")?;
        map.insert(stream.handle() as usize, p);
        Ok(p)
    }

    /// Frees the counters of a stream that is being destroyed.
    pub fn forget_stream(&self, stream: usize) {
        if let Some(p) = self
            .counters
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&stream)
        {
            // SAFETY: allocated by `counters` on that stream, freed once.
            let _ = unsafe { sys::cuMemFreeAsync(p, stream as sys::CUstream) };
        }
        self.blocks.release(Some(stream));
    }

    /// Makes this session's context current on the calling thread.
    pub fn bind(&self) -> Result<()> {
        let want = self.ctx.0 as usize;
        if BOUND.with(|b| b.get()) == want {
            return Ok(());
        }
        let mut cur = std::ptr::null_mut();
        // SAFETY: out pointer is valid.
        unsafe { sys::cuCtxGetCurrent(&mut cur) }
            .result()
            .op("binding the CUDA context")?;
        if cur != self.ctx.0 {
            // SAFETY: the context is retained for the process's life.
            unsafe { cu::ctx::set_current(self.ctx.0) }.op("binding the CUDA context")?;
        }
        BOUND.with(|b| b.set(want));
        Ok(())
    }
}

thread_local! {
    // The context this thread last made current through a session (or that
    // `note_current` was told of), so `bind` skips the driver call. Code
    // outside Cuprite that switches contexts makes our launches fail with an
    // invalid-handle error rather than run in the wrong place.
    static BOUND: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Records a context switch made without `bind` (a new session, a saved
/// context put back after NCCL): a stale record would make `bind` skip a
/// switch it needs, and work would go to the wrong GPU (two ranks of a job
/// both on the last GPU whose session was made, seen on four GPUs).
pub(crate) fn note_current(ctx: sys::CUcontext) {
    BOUND.with(|b| b.set(ctx as usize));
}

/// Every session created so far (for purging a destroyed stream's cached blocks).
pub(crate) fn existing_sessions() -> Vec<&'static DeviceSession> {
    process()
        .sessions
        .lock()
        .map(|v| v.iter().flatten().copied().collect())
        .unwrap_or_default()
}

/// Returns `Error::Interrupted` when an interrupt is pending (see `crate::interrupt`).
pub(crate) fn check_interrupt(op: &'static str) -> Result<()> {
    crate::core::interrupt::check(op)
}

/// Requests that running GPU work stop at the next check (see `crate::interrupt::request`).
pub fn request_interrupt() {
    crate::core::interrupt::request();
}
