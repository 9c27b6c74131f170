//! Running a kernel's grid on the CPU, block by block.
//!
//! A kernel that never waits on other threads (no `sync_threads`, no warp
//! shuffle; the macro knows) runs its threads one after another. One that
//! does runs each of a block's threads as a coroutine (`corosensei`: a stack
//! of its own), all on the calling OS thread: a barrier suspends the thread,
//! and the scheduler resumes the waiting threads once every thread that
//! still runs in the block (or in the warp, for a shuffle) has arrived. A
//! thread that returns early leaves the barriers, as an exited CUDA thread
//! does. OS threads with a condition-variable barrier did the same, but cost
//! two context switches per thread and barrier: a 1M-element block sum took
//! seconds on 2 cores, where switching coroutines takes nanoseconds. The
//! built-ins read the running thread's indices from a thread-local. A fault
//! (an index out of bounds, a panic) in any thread ends the launch with an
//! error; the other threads are resumed with an abort, which their barriers
//! return as [`Fault::Aborted`], so they unwind normally.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

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
    /// The coroutine's yielder when the threads of a block run as
    /// coroutines; null when they run one after another.
    yielder: *const Yielder<bool, Wait>,
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

/// What a suspended thread of a block waits for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Wait {
    /// `sync_threads()`: every running thread of the block.
    Block,
    /// A warp shuffle's exchange: every running lane of its warp.
    Warp,
    /// The thread has finished the block (returned or ran to the end).
    BlockEnd,
}

/// A CUDA thread of a block run on the CPU: resumed with "abort?", it
/// suspends with what it waits for and returns how its blocks ended.
type Fiber = Coroutine<bool, Wait, Result<(), Fault>>;

/// Each coroutine's stack: as an OS thread's was, enough for a kernel body
/// compiled without optimisation (a notebook cell's).
const THREAD_STACK_BYTES: usize = 256 * 1024;

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
    size: u32,
}

/// What the threads of the running block share.
pub(crate) struct BlockCtx {
    shared: Mutex<HashMap<u32, RawBuf>>,
    dynamic: RawBuf,
    warps: Vec<Warp>,
}

impl BlockCtx {
    fn new(threads: u32, dynamic_bytes: usize) -> BlockCtx {
        let warps = (0..threads.div_ceil(32))
            .map(|w| Warp {
                slots: std::array::from_fn(|_| AtomicU64::new(0)),
                size: (threads - w * 32).min(32),
            })
            .collect();
        BlockCtx {
            shared: Mutex::new(HashMap::new()),
            dynamic: RawBuf::new(dynamic_bytes),
            warps,
        }
    }

    /// Fresh shared memory for the next block.
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

/// Suspends the running thread until the scheduler releases `wait`.
fn suspend(s: &ThreadState, wait: Wait) -> Result<(), Fault> {
    if s.yielder.is_null() {
        return Err(Fault::Unsupported(
            "a barrier in a kernel whose threads run one after another (the jit macro saw no \
             sync_threads or shuffle in its body)"
                .into(),
        ));
    }
    // SAFETY: set only while this thread's coroutine runs, by the coroutine
    // itself; the yielder lives as long as the coroutine.
    let yielder = unsafe { &*s.yielder };
    let abort = yielder.suspend(wait);
    // Other threads ran meanwhile, each setting its own state.
    STATE.with(|c| c.set(Some(*s)));
    if abort {
        Err(Fault::Aborted)
    } else {
        Ok(())
    }
}

/// `sync_threads()` on the CPU.
pub(crate) fn sync_threads() -> Result<(), Fault> {
    with_ctx(|s, _| suspend(s, Wait::Block))
}

/// A warp shuffle: every lane publishes `v`, then reads lane `src(lane)`.
pub(crate) fn shuffle<T: JitElem>(v: T, src: impl Fn(u32) -> u32) -> Result<T, Fault> {
    with_ctx(|s, c| {
        let warp = &c.warps[(s.linear / 32) as usize];
        let lane = s.linear % 32;
        warp.slots[lane as usize].store(v.to_bits64(), Ordering::Relaxed);
        suspend(s, Wait::Warp)?;
        let from = src(lane);
        let r = if from < warp.size {
            T::from_bits64(warp.slots[from as usize].load(Ordering::Relaxed))
        } else {
            v
        };
        // No lane may overwrite its slot before every lane has read.
        suspend(s, Wait::Warp)?;
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
    let state = |t: u32, b: Dim3, yielder: *const Yielder<bool, Wait>| ThreadState {
        thread: thread_of(t, block),
        block: b,
        block_dim: block,
        grid_dim: grid,
        linear: t,
        ctx: &ctx,
        yielder,
    };
    if !concurrent {
        for b in blocks(grid) {
            for t in 0..threads {
                run_one(body, state(t, b, std::ptr::null()))?;
            }
            ctx.next_block();
        }
        return Ok(());
    }
    let mut fibers = Vec::with_capacity(threads as usize);
    for t in 0..threads {
        let stack = DefaultStack::new(THREAD_STACK_BYTES).map_err(|e| {
            Fault::Unsupported(format!(
                "cannot allocate the stacks of a block's {threads} CPU threads: {e}"
            ))
        })?;
        let state = &state;
        let thread = move |yielder: &Yielder<bool, Wait>, _: bool| -> Result<(), Fault> {
            for b in blocks(grid) {
                run_one(body, state(t, b, yielder))?;
                if yielder.suspend(Wait::BlockEnd) {
                    return Err(Fault::Aborted);
                }
            }
            Ok(())
        };
        // SAFETY: the coroutine borrows `body`, `state` and `ctx`, all of
        // which outlive `fibers`: every fiber is driven to its end or dropped
        // (unwound) before this function returns.
        fibers.push(unsafe { Coroutine::with_stack_unchecked(stack, thread) });
    }
    let result = schedule(&mut fibers, grid, &ctx);
    if result.is_err() {
        abort(&mut fibers);
    }
    result
}

/// Runs the grid's blocks in order, each until every thread has finished
/// it, releasing the barriers as they fill.
fn schedule(fibers: &mut [Fiber], grid: Dim3, ctx: &BlockCtx) -> Result<(), Fault> {
    let n = fibers.len();
    // `None`: runnable; `Some(w)`: suspended waiting for `w`.
    let mut waits: Vec<Option<Wait>> = vec![None; n];
    for b in blocks(grid) {
        loop {
            for (t, fiber) in fibers.iter_mut().enumerate() {
                if waits[t].is_some() {
                    continue;
                }
                match fiber.resume(false) {
                    CoroutineResult::Yield(w) => waits[t] = Some(w),
                    CoroutineResult::Return(Err(f)) => return Err(f),
                    CoroutineResult::Return(Ok(())) => {
                        return Err(Fault::Unsupported(
                            "internal: a CPU thread ended before the grid's last block".into(),
                        ))
                    }
                }
            }
            if waits.iter().all(|w| *w == Some(Wait::BlockEnd)) {
                break;
            }
            if !release(&mut waits) {
                return Err(Fault::Unsupported(format!(
                    "the threads of block ({}, {}, {}) wait at different barriers: a sync_threads \
                     that not every running thread reaches, or a shuffle that some lanes of a \
                     warp skip (a deadlock on the GPU)",
                    b.x, b.y, b.z
                )));
            }
        }
        ctx.next_block();
        waits.iter_mut().for_each(|w| *w = None);
    }
    // Past the last block every thread's loop ends.
    for fiber in fibers.iter_mut() {
        match fiber.resume(false) {
            CoroutineResult::Return(r) => r?,
            CoroutineResult::Yield(_) => {
                return Err(Fault::Unsupported(
                    "internal: a CPU thread waits after the grid's last block".into(),
                ))
            }
        }
    }
    Ok(())
}

/// Makes runnable the threads whose barrier every running thread it counts
/// has reached: each full warp exchange, else the block barrier. False when
/// none can go on.
fn release(waits: &mut [Option<Wait>]) -> bool {
    let mut released = false;
    for lanes in waits.chunks_mut(32) {
        released |= release_group(lanes, Wait::Warp);
    }
    released || release_group(waits, Wait::Block)
}

/// Makes runnable the threads of `group` waiting for `wait`, if every one
/// that has not finished the block waits for it.
fn release_group(group: &mut [Option<Wait>], wait: Wait) -> bool {
    let ready = group
        .iter()
        .all(|w| *w == Some(wait) || *w == Some(Wait::BlockEnd));
    if !ready || !group.contains(&Some(wait)) {
        return false;
    }
    for w in group.iter_mut().filter(|w| **w == Some(wait)) {
        *w = None;
    }
    true
}

/// Ends every suspended thread: its barrier returns [`Fault::Aborted`] and
/// the body unwinds by returning it. One that keeps waiting is dropped,
/// which unwinds its stack.
fn abort(fibers: &mut Vec<Fiber>) {
    for fiber in fibers.iter_mut() {
        for _ in 0..4 {
            if !fiber.started() || fiber.done() {
                break;
            }
            if let CoroutineResult::Return(_) = fiber.resume(true) {
                break;
            }
        }
    }
    fibers.clear();
}
