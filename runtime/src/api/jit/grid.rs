//! Running a kernel's grid on the CPU, block by block.
//!
//! A kernel that never waits on other threads (no `sync_threads`, no warp
//! shuffle; the macro knows) runs its threads one after another. One that
//! does runs each block's threads as OS threads (spawned once per launch,
//! each walking the blocks in order), so every barrier holds as on the GPU:
//! a thread that returns early leaves the barriers, as an exited CUDA
//! thread does. The built-ins read the running thread's indices from a
//! thread-local. A fault (an index out of bounds, a panic) in any thread
//! aborts every barrier, so the launch ends with an error instead of a hang.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

use super::memory::{JitElem, Slice};
use crate::ops::Dim3;

/// Why a kernel's CPU run stopped.
#[derive(Debug, Clone)]
pub enum Fault {
    /// An index outside an array; `at` names the thread and block.
    OutOfBounds {
        array: &'static str,
        index: i128,
        len: usize,
        at: String,
    },
    /// An index of an n-d view outside its shape (`axis` is the first
    /// offending one).
    OutOfBoundsNd {
        array: &'static str,
        index: Vec<i128>,
        shape: Vec<usize>,
        axis: usize,
        at: String,
    },
    /// A barrier was abandoned because another thread faulted.
    Aborted,
    /// The body panicked (an integer overflow, a division by zero...).
    Panic(String),
    /// A built-in used outside what the CPU run supports.
    Unsupported(String),
}

impl Fault {
    /// The message of the launch's error.
    pub(crate) fn describe(&self) -> String {
        match self {
            Fault::OutOfBounds {
                array,
                index,
                len,
                at,
            } => {
                format!("index {index} is out of bounds for `{array}` of length {len} ({at})")
            }
            Fault::OutOfBoundsNd {
                array,
                index,
                shape,
                axis,
                at,
            } => {
                let join = |v: Vec<String>| v.join(", ");
                format!(
                    "index ({}) is out of bounds for `{array}` of shape ({}) along axis {axis} ({at})",
                    join(index.iter().map(|i| i.to_string()).collect()),
                    join(shape.iter().map(|n| n.to_string()).collect()),
                )
            }
            Fault::Aborted => "a thread stopped at a barrier".into(),
            Fault::Panic(m) => format!("the kernel body panicked: {m}"),
            Fault::Unsupported(m) => m.clone(),
        }
    }
}

/// The built-in state of the running CUDA thread.
#[derive(Clone, Copy)]
pub(crate) struct ThreadState {
    pub thread: Dim3,
    pub block: Dim3,
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
    pub linear: u32,
    ctx: *const BlockCtx,
}

thread_local! {
    static STATE: Cell<Option<ThreadState>> = const { Cell::new(None) };
}

/// The running thread's state (`None` outside a CPU launch).
pub(crate) fn state() -> Option<ThreadState> {
    STATE.with(|s| s.get())
}

/// "thread (3, 0, 0) of block (7, 0, 0)" for fault messages.
pub(crate) fn fault_position() -> String {
    match state() {
        Some(s) => format!(
            "thread ({}, {}, {}) of block ({}, {}, {})",
            s.thread.x, s.thread.y, s.thread.z, s.block.x, s.block.y, s.block.z
        ),
        None => "outside a kernel".into(),
    }
}

/// A barrier whose participants can leave (exited threads) and that gives
/// up when the launch aborts.
struct Barrier {
    state: Mutex<(u32, u32, u64)>, // active, arrived, generation
    cv: Condvar,
}

impl Barrier {
    fn new(active: u32) -> Barrier {
        Barrier {
            state: Mutex::new((active, 0, 0)),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (u32, u32, u64)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait(&self, abort: &AtomicBool) -> Result<(), Fault> {
        let mut s = self.lock();
        if abort.load(Ordering::Acquire) {
            return Err(Fault::Aborted);
        }
        s.1 += 1;
        if s.1 >= s.0 {
            s.1 = 0;
            s.2 += 1;
            self.cv.notify_all();
            return Ok(());
        }
        let generation = s.2;
        while s.2 == generation {
            if abort.load(Ordering::Acquire) {
                return Err(Fault::Aborted);
            }
            s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        Ok(())
    }

    fn leave(&self) {
        let mut s = self.lock();
        s.0 = s.0.saturating_sub(1);
        if s.0 > 0 && s.1 >= s.0 {
            s.1 = 0;
            s.2 += 1;
            self.cv.notify_all();
        }
    }

    fn reset(&self, active: u32) {
        let mut s = self.lock();
        s.0 = active;
        s.1 = 0;
    }

    fn wake(&self) {
        let _s = self.lock();
        self.cv.notify_all();
    }
}

/// Zeroed 8-byte-aligned memory handed to kernels as raw pointers.
struct RawBuf(Box<[AtomicU64]>);

impl RawBuf {
    fn new(bytes: usize) -> RawBuf {
        RawBuf((0..bytes.div_ceil(8)).map(|_| AtomicU64::new(0)).collect())
    }
    fn ptr(&self) -> *mut u8 {
        self.0.as_ptr() as *mut u8
    }
    fn bytes(&self) -> usize {
        self.0.len() * 8
    }
    fn zero(&self) {
        for w in self.0.iter() {
            w.store(0, Ordering::Relaxed);
        }
    }
}

/// One warp's shuffle exchange.
struct Warp {
    slots: [AtomicU64; 32],
    barrier: Barrier,
    size: u32,
}

/// What the threads of the running block share.
pub(crate) struct BlockCtx {
    shared: Mutex<HashMap<u32, RawBuf>>,
    dynamic: RawBuf,
    barrier: Barrier,
    warps: Vec<Warp>,
    threads: u32,
    abort: AtomicBool,
    fault: Mutex<Option<Fault>>,
}

impl BlockCtx {
    fn new(threads: u32, dynamic_bytes: usize) -> BlockCtx {
        let warps = (0..threads.div_ceil(32))
            .map(|w| {
                let size = (threads - w * 32).min(32);
                Warp {
                    slots: std::array::from_fn(|_| AtomicU64::new(0)),
                    barrier: Barrier::new(size),
                    size,
                }
            })
            .collect();
        BlockCtx {
            shared: Mutex::new(HashMap::new()),
            dynamic: RawBuf::new(dynamic_bytes),
            barrier: Barrier::new(threads),
            warps,
            threads,
            abort: AtomicBool::new(false),
            fault: Mutex::new(None),
        }
    }

    /// Fresh shared memory and full barriers for the next block.
    fn next_block(&self) {
        for b in self
            .shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
        {
            b.zero();
        }
        self.dynamic.zero();
        self.barrier.reset(self.threads);
        for w in &self.warps {
            w.barrier.reset(w.size);
        }
    }

    fn fail(&self, f: Fault) {
        let mut slot = self.fault.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some(f);
        }
        drop(slot);
        self.abort.store(true, Ordering::Release);
        self.barrier.wake();
        for w in &self.warps {
            w.barrier.wake();
        }
    }
}

fn with_ctx<R>(f: impl FnOnce(&ThreadState, &BlockCtx) -> Result<R, Fault>) -> Result<R, Fault> {
    let Some(s) = state() else {
        return Err(Fault::Unsupported(
            "this built-in is only available inside a jit kernel".into(),
        ));
    };
    // SAFETY: the pointer is set only while the launch that owns the
    // context runs this thread's body (cleared before the context drops).
    let ctx = unsafe { &*s.ctx };
    f(&s, ctx)
}

/// `sync_threads()` on the CPU.
pub(crate) fn sync_threads() -> Result<(), Fault> {
    with_ctx(|_, c| c.barrier.wait(&c.abort))
}

/// A warp shuffle: every lane publishes `v`, then reads lane `src(lane)`.
pub(crate) fn shuffle<T: JitElem>(v: T, src: impl Fn(u32) -> u32) -> Result<T, Fault> {
    with_ctx(|s, c| {
        let warp = &c.warps[(s.linear / 32) as usize];
        let lane = s.linear % 32;
        warp.slots[lane as usize].store(v.to_bits64(), Ordering::Relaxed);
        warp.barrier.wait(&c.abort)?;
        let from = src(lane);
        let r = if from < warp.size {
            T::from_bits64(warp.slots[from as usize].load(Ordering::Relaxed))
        } else {
            v
        };
        // No lane may overwrite its slot before every lane has read.
        warp.barrier.wait(&c.abort)?;
        Ok(r)
    })
}

/// `shared_array::<T, N>()`: call site `id`'s array of the running block.
pub(crate) fn shared_array<T: JitElem>(id: u32, len: usize) -> Result<Slice<T>, Fault> {
    with_ctx(|_, c| {
        let mut map = c.shared.lock().unwrap_or_else(|e| e.into_inner());
        let buf = map
            .entry(id)
            .or_insert_with(|| RawBuf::new(len * std::mem::size_of::<T>()));
        Ok(Slice::new(buf.ptr().cast(), len, "shared array"))
    })
}

/// `dynamic_shared::<T>()`: the launch's dynamic shared memory.
pub(crate) fn dynamic_shared<T: JitElem>() -> Result<Slice<T>, Fault> {
    with_ctx(|_, c| {
        let len = c.dynamic.bytes() / std::mem::size_of::<T>().max(1);
        Ok(Slice::new(
            c.dynamic.ptr().cast(),
            len,
            "dynamic shared memory",
        ))
    })
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into())
}

/// The thread with linear index `t` of a block of shape `b`.
fn thread_of(t: u32, b: Dim3) -> Dim3 {
    Dim3 {
        x: t % b.x,
        y: (t / b.x) % b.y,
        z: t / (b.x * b.y),
    }
}

fn blocks(grid: Dim3) -> impl Iterator<Item = Dim3> {
    (0..grid.z).flat_map(move |z| {
        (0..grid.y).flat_map(move |y| (0..grid.x).map(move |x| Dim3 { x, y, z }))
    })
}

/// Runs one thread's body with its state set, catching panics.
fn run_one(body: &(dyn Fn() -> Result<(), Fault> + Sync), st: ThreadState) -> Result<(), Fault> {
    STATE.with(|s| s.set(Some(st)));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body))
        .unwrap_or_else(|p| Err(Fault::Panic(panic_message(p))));
    STATE.with(|s| s.set(None));
    r
}

/// Runs `body` for every thread of the grid.
pub(crate) fn run(
    body: &(dyn Fn() -> Result<(), Fault> + Sync),
    grid: Dim3,
    block: Dim3,
    dynamic_bytes: usize,
    concurrent: bool,
) -> Result<(), Fault> {
    let threads = block.x * block.y * block.z;
    let ctx = BlockCtx::new(threads, dynamic_bytes);
    let state = |t: u32, b: Dim3| ThreadState {
        thread: thread_of(t, block),
        block: b,
        block_dim: block,
        grid_dim: grid,
        linear: t,
        ctx: &ctx,
    };
    if !concurrent {
        for b in blocks(grid) {
            for t in 0..threads {
                run_one(body, state(t, b))?;
            }
            ctx.next_block();
        }
        return Ok(());
    }
    let end = Barrier::new(threads);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (ctx, end, state) = (&ctx, &end, &state);
            let worker = move || {
                for b in blocks(grid) {
                    match run_one(body, state(t, b)) {
                        Ok(()) => {}
                        Err(Fault::Aborted) => return,
                        Err(f) => {
                            ctx.fail(f);
                            end.wake();
                            return;
                        }
                    }
                    // This thread has exited the block: barriers stop counting it.
                    ctx.barrier.leave();
                    ctx.warps[(t / 32) as usize].barrier.leave();
                    if end.wait(&ctx.abort).is_err() {
                        return;
                    }
                    if t == 0 {
                        ctx.next_block();
                    }
                    if end.wait(&ctx.abort).is_err() {
                        return;
                    }
                }
            };
            let spawned = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn_scoped(scope, worker);
            if let Err(e) = spawned {
                ctx.fail(Fault::Unsupported(format!(
                    "cannot start the CPU threads of a block: {e}"
                )));
                end.wake();
                break;
            }
        }
    });
    match ctx.fault.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(f) => Err(f),
        None => Ok(()),
    }
}
