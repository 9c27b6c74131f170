//! Streams and events: the order GPU work runs in, and how it is timed.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::sys;

use super::session::{check_interrupt, session, DeviceSession};
use crate::backend::probe::current_device;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use crate::cuda::{driver_error, DriverResultExt, Handle};

struct StreamInner {
    raw: Handle<sys::CUstream>,
    /// The device the stream belongs to (the null stream belongs to each).
    ordinal: Option<usize>,
    owned: bool,
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        if self.owned {
            // Blocks cached for this stream must not be reused by a later
            // stream that happens to get the same handle.
            for s in super::session::existing_sessions() {
                s.forget_stream(self.raw.0 as usize);
            }
            // Deferred operations are queued before the stream goes.
            let _ = crate::cuda::batch::flush_handle(self.raw.0);
            // SAFETY: created by cuStreamCreate and destroyed once; pending
            // work still completes (the driver defers destruction).
            let _ = unsafe { sys::cuStreamDestroy_v2(self.raw.0) };
        }
    }
}

/// A CUDA stream: work queued on one stream runs in order.
#[derive(Clone)]
pub struct Stream(Arc<StreamInner>);

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_null() {
            write!(f, "Stream(null)")
        } else {
            write!(
                f,
                "Stream({:p} on cuda:{})",
                self.0.raw.0,
                self.0.ordinal.unwrap_or(0)
            )
        }
    }
}

impl PartialEq for Stream {
    fn eq(&self, other: &Stream) -> bool {
        self.0.raw == other.0.raw
    }
}

impl Stream {
    /// The default (legacy null) stream, which synchronises with other blocking streams.
    pub fn null() -> Stream {
        thread_local! {
            static NULL: Stream = Stream(Arc::new(StreamInner {
                raw: Handle(std::ptr::null_mut()),
                ordinal: None,
                owned: false,
            }));
        }
        NULL.with(|s| s.clone())
    }

    /// A new non-blocking stream on the current CUDA device.
    pub fn new() -> Result<Stream> {
        let ordinal = match current_device() {
            Device::Cuda(n) => n,
            Device::Cpu => {
                return Err(Error::NeedsCuda {
                    op: "Stream::new",
                    reason: "the current device is the CPU".into(),
                })
            }
        };
        let s = session(ordinal)?;
        s.bind()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: out pointer valid; context bound.
        unsafe {
            sys::cuStreamCreate(&mut raw, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32)
        }
        .result()
        .op("Stream::new")?;
        Ok(Stream(Arc::new(StreamInner {
            raw: Handle(raw),
            ordinal: Some(ordinal),
            owned: true,
        })))
    }

    /// The raw handle, to queue work on the stream or wait for it (null for
    /// the default stream). Operations deferred on the stream are launched
    /// first, so they run before what the caller queues.
    pub(crate) fn raw(&self) -> sys::CUstream {
        crate::cuda::batch::flush_or_remember(self);
        self.0.raw.0
    }

    /// The raw handle as an identity (cache keys, allocation): queues
    /// nothing, so deferred operations stay deferred.
    pub(crate) fn handle(&self) -> sys::CUstream {
        self.0.raw.0
    }

    /// The device the stream was created on (`None` for the default stream,
    /// which each device has one of).
    pub fn device(&self) -> Option<Device> {
        self.0.ordinal.map(Device::Cuda)
    }

    /// True for the default stream.
    pub fn is_null(&self) -> bool {
        self.0.raw.0.is_null()
    }

    /// Waits until all work queued on the stream has finished. Returns early
    /// with `Error::Interrupted` when an interrupt is requested; reports an
    /// asynchronous error of earlier work as `Error::Cuda`.
    pub fn synchronize(&self) -> Result<()> {
        self.synchronize_raw("Stream::synchronize")
    }

    pub(crate) fn synchronize_raw(&self, op: &'static str) -> Result<()> {
        self.synchronize_with(op, true)
    }

    /// The stream that carries work on `owner`'s memory: this one if it
    /// is that device's or the default stream, else the default stream.
    pub(crate) fn for_session(&self, owner: &DeviceSession) -> Stream {
        match self.0.ordinal {
            Some(n) if n != owner.info.ordinal => Stream::null(),
            _ => self.clone(),
        }
    }

    /// Waits for the stream as work on `owner`'s memory: the default
    /// stream is `owner`'s device's, whatever device the thread is on (a
    /// copy of a cuda:1 array from a thread on cuda:0 must wait for
    /// cuda:1's queue, not cuda:0's). Not `interruptible`: for copies whose
    /// host staging memory the GPU may still be using.
    pub(crate) fn synchronize_for(
        &self,
        op: &'static str,
        owner: &'static DeviceSession,
        interruptible: bool,
    ) -> Result<()> {
        self.synchronize_owned(op, Some(owner), interruptible)
    }

    fn synchronize_with(&self, op: &'static str, interruptible: bool) -> Result<()> {
        self.synchronize_owned(op, None, interruptible)
    }

    fn synchronize_owned(
        &self,
        op: &'static str,
        null_owner: Option<&'static DeviceSession>,
        interruptible: bool,
    ) -> Result<()> {
        // The stream's device, or for the default stream the owner given or
        // else the current device: its session names the last kernel
        // launched if queued work failed.
        let owner = match (self.0.ordinal, null_owner) {
            (Some(n), _) => Some(session(n)?),
            (None, Some(s)) => Some(s),
            (None, None) => match current_device() {
                Device::Cuda(n) => session(n).ok(),
                Device::Cpu => None,
            },
        };
        if let Some(s) = owner {
            s.bind()?;
        }
        crate::cuda::batch::flush(self)?;
        wait_loop(op, owner, interruptible, || {
            // SAFETY: a valid (or null) stream of the bound context.
            match unsafe { sys::cuStreamQuery(self.raw()) } {
                sys::CUresult::CUDA_SUCCESS => Ok(true),
                sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
                e => Err(e),
            }
        })
    }

    /// Makes future work on this stream wait for `event`.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        // SAFETY: valid stream and event.
        unsafe { sys::cuStreamWaitEvent(self.raw(), event.raw.0, 0) }
            .result()
            .op("Stream::wait_event")
    }
}

/// Polls `ready` until it says done, checking for interrupts; spins briefly
/// first so short waits stay cheap.
pub(crate) fn wait_until(
    op: &'static str,
    session: Option<&DeviceSession>,
    ready: impl FnMut() -> std::result::Result<bool, sys::CUresult>,
) -> Result<()> {
    wait_loop(op, session, true, ready)
}

/// As [`wait_until`], never returning early for an interrupt (the GPU still
/// uses memory that the caller would release).
pub(crate) fn wait_until_complete(
    op: &'static str,
    session: Option<&DeviceSession>,
    ready: impl FnMut() -> std::result::Result<bool, sys::CUresult>,
) -> Result<()> {
    wait_loop(op, session, false, ready)
}

/// A check that waits on the GPU run between their polls, registered by a
/// layer above: NCCL's communicators use it to abort a collective stuck on
/// a lost rank or past its time limit, which frees the GPU's stream, so the
/// wait ends with that error instead of hanging.
pub(crate) type WaitCheck = fn() -> Result<()>;

fn wait_checks() -> &'static std::sync::RwLock<Vec<WaitCheck>> {
    crate::core::global::process_global("cuda_wait_checks", || std::sync::RwLock::new(Vec::new()))
}

/// Adds `check` to every later wait (once; a second registration of the
/// same function is ignored).
pub(crate) fn register_wait_check(check: WaitCheck) {
    let mut checks = wait_checks().write().unwrap_or_else(|e| e.into_inner());
    if !checks.iter().any(|c| std::ptr::fn_addr_eq(*c, check)) {
        checks.push(check);
    }
}

fn run_wait_checks() -> Result<()> {
    let checks = wait_checks().read().unwrap_or_else(|e| e.into_inner());
    checks.iter().try_for_each(|check| check())
}

fn wait_loop(
    op: &'static str,
    session: Option<&DeviceSession>,
    interruptible: bool,
    mut ready: impl FnMut() -> std::result::Result<bool, sys::CUresult>,
) -> Result<()> {
    if let Some(e) = session.and_then(crate::cuda::batch::take_failure) {
        return Err(e);
    }
    let start = Instant::now();
    // A check's error is returned once the work waited for is done (the
    // check freed it), so the caller never reads memory still in use.
    let mut checked: Option<Error> = None;
    loop {
        match ready() {
            Ok(true) => return checked.map_or(Ok(()), Err),
            Ok(false) => {}
            Err(code) => return Err(checked.unwrap_or_else(|| async_error(op, session, code))),
        }
        if checked.is_none() {
            checked = run_wait_checks().err();
        }
        if interruptible {
            check_interrupt(op)?;
        }
        let waited = start.elapsed();
        if waited < Duration::from_micros(200) {
            std::hint::spin_loop();
        } else if waited < Duration::from_millis(20) {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
}

fn async_error(op: &'static str, session: Option<&DeviceSession>, code: sys::CUresult) -> Error {
    let mut e = driver_error(op, cudarc::driver::DriverError(code));
    if let (Error::Cuda { detail, .. }, Some(s)) = (&mut e, session) {
        let last = s.last_kernel.lock().map(|k| k.clone()).unwrap_or_default();
        if !last.is_empty() {
            detail.push_str(&format!(
                " (raised by queued GPU work; the last kernel launched was `{last}`)"
            ));
        }
    }
    e
}

thread_local! {
    static STREAM_SCOPE: RefCell<Vec<Stream>> = const { RefCell::new(Vec::new()) };
}

/// The stream new GPU work goes to on this thread: the innermost
/// `with_stream` scope, else the default stream.
pub fn current_stream() -> Stream {
    STREAM_SCOPE
        .with(|s| s.borrow().last().cloned())
        .unwrap_or_else(Stream::null)
}

/// The stream that work on device `ordinal` goes to: the current stream when
/// it belongs to that device, else that device's default stream (a stream of
/// another device cannot carry this device's work).
pub(crate) fn stream_for(ordinal: usize) -> Stream {
    let s = current_stream();
    match s.0.ordinal {
        Some(n) if n != ordinal => Stream::null(),
        _ => s,
    }
}

/// Runs `f` with `stream` as the current stream (`with cp.cuda.Stream():`).
pub fn with_stream<R>(stream: &Stream, f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            STREAM_SCOPE.with(|s| {
                s.borrow_mut().pop();
            });
        }
    }
    STREAM_SCOPE.with(|s| s.borrow_mut().push(stream.clone()));
    let _restore = Restore;
    f()
}

/// A CUDA event: a point in a stream, for ordering and timing.
pub struct Event {
    raw: Handle<sys::CUevent>,
    session: &'static DeviceSession,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Event(cuda:{})", self.session.info.ordinal)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created by cuEventCreate, destroyed once.
        let _ = unsafe { sys::cuEventDestroy_v2(self.raw.0) };
    }
}

impl Event {
    /// A new event with timing enabled, on the current CUDA device.
    pub fn new() -> Result<Event> {
        let ordinal = match current_device() {
            Device::Cuda(n) => n,
            Device::Cpu => {
                return Err(Error::NeedsCuda {
                    op: "Event::new",
                    reason: "the current device is the CPU".into(),
                })
            }
        };
        Event::create(ordinal, sys::CUevent_flags::CU_EVENT_DEFAULT)
    }

    /// An event of GPU `ordinal` that only marks completion (no timing,
    /// which makes recording and querying it cheaper).
    pub(crate) fn for_completion(ordinal: usize) -> Result<Event> {
        Event::create(ordinal, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
    }

    fn create(ordinal: usize, flags: sys::CUevent_flags) -> Result<Event> {
        let session = session(ordinal)?;
        session.bind()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: out pointer valid; the session's context is current.
        unsafe { sys::cuEventCreate(&mut raw, flags as u32) }
            .result()
            .op("Event::new")?;
        Ok(Event {
            raw: Handle(raw),
            session,
        })
    }

    /// Records the event at the current end of `stream`.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        self.session.bind()?;
        crate::cuda::batch::flush(stream)?;
        // SAFETY: valid event and stream of this context.
        unsafe { sys::cuEventRecord(self.raw.0, stream.raw()) }
            .result()
            .op("Event::record")
    }

    /// Waits until the work before the recorded point has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.session.bind()?;
        wait_until("Event::synchronize", Some(self.session), || {
            // SAFETY: valid event.
            match unsafe { sys::cuEventQuery(self.raw.0) } {
                sys::CUresult::CUDA_SUCCESS => Ok(true),
                sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
                e => Err(e),
            }
        })
    }

    /// Whether the work before the recorded point has finished.
    pub fn done(&self) -> Result<bool> {
        // SAFETY: valid event.
        match unsafe { sys::cuEventQuery(self.raw.0) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => Err(async_error("Event::done", Some(self.session), e)),
        }
    }

    /// Milliseconds between two recorded events (waits for `end`).
    pub fn elapsed_ms(start: &Event, end: &Event) -> Result<f32> {
        end.synchronize()?;
        type Elapsed = unsafe extern "C" fn(*mut f32, sys::CUevent, sys::CUevent) -> sys::CUresult;
        static ELAPSED: std::sync::OnceLock<Option<Elapsed>> = std::sync::OnceLock::new();
        // CUDA 13 renamed the function; older drivers only have the first name.
        // SAFETY: both names have this signature.
        let f = ELAPSED
            .get_or_init(|| unsafe {
                super::libs::driver_symbol::<Elapsed>(&[
                    "cuEventElapsedTime_v2",
                    "cuEventElapsedTime",
                ])
            })
            .ok_or_else(|| Error::CudaUnavailable {
                reason: "the CUDA driver has no cuEventElapsedTime".into(),
            })?;
        let mut ms = 0f32;
        // SAFETY: both events are recorded and complete.
        unsafe { f(&mut ms, start.raw.0, end.raw.0) }
            .result()
            .op("Event::elapsed_ms")?;
        Ok(ms)
    }
}
