//! Small elementwise operations deferred and launched together.
//!
//! A kernel launch costs the host one driver call of several microseconds,
//! which is most of the time an operation on a few thousand elements takes.
//! So a built-in ufunc over small contiguous arrays (at most
//! [`MAX_ELEMENTS`] elements, inputs already in the loop dtype) is not
//! launched by itself: it becomes a descriptor in its stream's pending
//! batch, and the batch runs as one launch of an interpreter kernel that
//! executes the descriptors in order.
//!
//! Why no barrier is needed between the operations of a batch: every one of
//! them maps element `i` to the same thread, so an operation that reads what
//! an earlier one wrote, at the same address and item size, reads it in that
//! thread's program order. Where two operations would touch overlapping
//! memory in any other way (a view at another offset, another item size),
//! the batch is launched before the second joins a new one.
//!
//! A stream's batch is launched before anything else is queued on that
//! stream or waits for it: such work gets the stream's handle through
//! `Stream::raw`, which launches the pending batch first. Memory a pending
//! operation uses and then frees goes back to the block cache of that
//! stream, so whatever reuses it is queued (and so launched) after the batch.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::atomic::Ordering;

use cudarc::driver::sys;

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::GpuBuffer;
use crate::cuda::fusion::{FusedOp, FusionState, StridedRead};
use crate::cuda::kernel_gen::elementwise::{ufunc_kernel, MapInput, MapKernel};
use crate::cuda::runtime::compile::{Function, PRELUDE};
use crate::cuda::runtime::session::{existing_sessions, process, DeviceSession};
use crate::cuda::runtime::stream::Stream;
use crate::ops::c_types::ctype;
use crate::ops::ufunc::Ufunc;

/// Operations one launch carries: their descriptors travel as the kernel's
/// parameter, which must stay under the 4 KiB every driver accepts.
pub(crate) const MAX_OPS: usize = 120;

/// Bytes a fused kernel's parameter may take (descriptors and strided
/// inputs' geometry): the 4 KiB every driver accepts.
const MAX_PARAM_BYTES: usize = 4096;

/// Largest operation (elements) that is deferred; larger ones launch their
/// own specialised kernel, whose launch cost is small next to their work.
pub(crate) const MAX_ELEMENTS: usize = 1 << 16;

pub(crate) const THREADS: u32 = 256;

/// Loop dtypes the interpreter runs the batchable ufuncs of the table in
/// (`ops/ufunc.rs`): the arithmetic and comparisons small loops are made of.
const DTYPES: &[DType] = &[DType::Float32, DType::Float64, DType::Int32, DType::Int64];

/// One deferred operation, as the interpreter reads it. Bit 0 (1) of
/// `code` says input 0 (1) is a scalar held in `a` (`b`) by value; the
/// rest is the operation's index in the interpreter's table.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct OpDesc {
    pub(crate) code: u32,
    pub(crate) n: u32,
    pub(crate) a: u64,
    pub(crate) b: u64,
    pub(crate) out: u64,
}

impl OpDesc {
    /// The descriptor as the GPU reads it (the kernels' 32-byte struct).
    pub(crate) fn to_le_bytes(self) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[0..4].copy_from_slice(&self.code.to_le_bytes());
        b[4..8].copy_from_slice(&self.n.to_le_bytes());
        b[8..16].copy_from_slice(&self.a.to_le_bytes());
        b[16..24].copy_from_slice(&self.b.to_le_bytes());
        b[24..32].copy_from_slice(&self.out.to_le_bytes());
        b
    }
}

/// The interpreter-table index of an operation that only a fused kernel
/// runs (not in the table, or larger than [`MAX_ELEMENTS`]).
const NOT_IN_TABLE: u32 = u32::MAX >> 2;

/// The interpreter kernel's parameter.
#[repr(C)]
#[derive(Clone, Copy)]
struct Params {
    count: u32,
    pad: u32,
    ops: [OpDesc; MAX_OPS],
}

/// Memory that operations of a pending batch touch: elements of `itemsize`
/// bytes from `first` (element 0's address) up to `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Region {
    pub first: u64,
    pub end: u64,
    pub itemsize: u32,
    pub written: bool,
    /// Read through strides (a broadcast or a strided view): element `i`
    /// is not at `first + i`, so it never shares a thread's elements.
    pub strided: bool,
}

impl Region {
    fn new(first: u64, n: usize, dtype: DType, written: bool) -> Region {
        let itemsize = dtype.itemsize() as u32;
        Region {
            first,
            end: first + n as u64 * itemsize as u64,
            itemsize,
            written,
            strided: false,
        }
    }

    /// The memory a strided read from element-0 address `first` touches.
    fn strided(first: u64, read: &StridedRead, dtype: DType) -> Region {
        let itemsize = dtype.itemsize() as i64;
        let (lo, hi) = read.span();
        Region {
            first: first.wrapping_add_signed(lo * itemsize),
            end: first.wrapping_add_signed((hi + 1) * itemsize),
            itemsize: itemsize as u32,
            written: false,
            strided: true,
        }
    }

    /// Same element `i` at the same address: handled by the same thread.
    fn same_elements(&self, other: &Region) -> bool {
        !self.strided
            && !other.strided
            && self.first == other.first
            && self.itemsize == other.itemsize
    }
}

/// Whether `r` may not join a batch that already touched `touched`: it
/// overlaps memory one of them writes, with a different element layout.
pub(crate) fn conflicts(touched: &[Region], r: &Region) -> bool {
    touched.iter().any(|t| {
        t.first < r.end && r.first < t.end && (t.written || r.written) && !t.same_elements(r)
    })
}

/// Adds `r` to `touched`, merged with a region of the same element layout.
pub(crate) fn record(touched: &mut Vec<Region>, r: Region) {
    match touched.iter_mut().find(|t| t.same_elements(&r)) {
        Some(t) => {
            t.end = t.end.max(r.end);
            t.written |= r.written;
        }
        None => touched.push(r),
    }
}

/// The operations deferred on one stream.
pub(crate) struct Pending {
    params: Box<Params>,
    touched: Vec<Region>,
    max_n: u32,
    /// With fusion on, each operation's kernel and links (one per
    /// descriptor); empty while it is off.
    fused: Vec<FusedOp>,
    /// An operation only a fused kernel runs is pending.
    needs_fused: bool,
    /// The strided inputs' geometry, in operation order (`cuda::fusion`).
    geo: Vec<i64>,
    /// Reductions deferred behind the operations computing their input,
    /// in order; each closes a segment of the batch (`cuda::fusion`).
    reductions: Vec<PendingReduce>,
    /// The first operation of the open segment (after the last deferred
    /// reduction; 0 without one): links are relative to it, and nothing
    /// links across segments.
    seg_start: usize,
    /// Where the open segment's geometry starts in `geo`.
    seg_geo: usize,
    /// Counts launches, so a reduction prepared outside the lock can see
    /// whether the batch it read ran meanwhile.
    generation: u64,
}

/// A reduction deferred behind the operations computing its input: the
/// batch's operations `start..tree` run first as a fused kernel of their
/// own, then the reduction's kernel computes `tree..end` per element (its
/// chain). Geometry ranges likewise.
pub(crate) struct PendingReduce {
    start: usize,
    tree: usize,
    end: usize,
    geo_start: usize,
    geo_tree: usize,
    geo_end: usize,
    prepared: crate::cuda::gen::reduce::Prepared,
    cached: bool,
}

/// The chain a reduction of the newest pending result can read through
/// ([`pending_chain`]): its operations (links relative to the first) and
/// where they sit in the batch.
pub(crate) struct ChainFound {
    pub ops: Vec<FusedOp>,
    pub geo_len: usize,
    stream: usize,
    generation: u64,
    tree: usize,
    end: usize,
    geo_tree: usize,
}

impl Pending {
    fn new() -> Pending {
        Pending {
            params: Box::new(Params {
                count: 0,
                pad: 0,
                ops: [OpDesc::default(); MAX_OPS],
            }),
            touched: Vec::new(),
            max_n: 0,
            fused: Vec::new(),
            needs_fused: false,
            geo: Vec::new(),
            reductions: Vec::new(),
            seg_start: 0,
            seg_geo: 0,
            generation: 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.params.count == 0
    }
}

/// The interpreter kernel of a device and the table from a ufunc kernel's
/// identity to its operation index.
pub(crate) struct Interpreter {
    func: Function,
    codes: HashMap<u64, u32>,
}

/// A device's deferred work: pending batches by stream handle, the
/// interpreter (compiled on first use) and counters.
#[derive(Default)]
pub(crate) struct BatchState {
    pending: std::sync::Mutex<HashMap<usize, Pending>>,
    interpreter: std::sync::OnceLock<std::result::Result<Interpreter, String>>,
    /// A batch that failed to launch, reported at the next synchronisation.
    failed: std::sync::Mutex<Option<Error>>,
    deferred: std::sync::atomic::AtomicU64,
    launches: std::sync::atomic::AtomicU64,
    /// What automatic fusion did on the device (`cuda::fusion`).
    pub(crate) fusion: FusionState,
}

/// How small operations ran on a device so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchStats {
    /// Operations deferred into batches.
    pub deferred: u64,
    /// Launches of batches (each ran one or more deferred operations).
    pub launches: u64,
    /// Whether deferring is switched on ([`set_small_op_batching`]).
    pub enabled: bool,
    /// Why the interpreter kernel could not be built, if it could not (small
    /// operations then launch one by one).
    pub unavailable: Option<String>,
}

/// Switches deferring small operations on or off for the process (on by
/// default; `CUPRITE_BATCH_SMALL_OPS=0` starts with it off). Switching off
/// launches what is pending.
pub fn set_small_op_batching(on: bool) -> Result<()> {
    if !on {
        flush_all()?;
    }
    process().batching.store(on, Ordering::SeqCst);
    Ok(())
}

/// Whether small operations are deferred into batches.
pub fn small_op_batching() -> bool {
    process().batching.load(Ordering::Relaxed)
}

/// Launches the small operations deferred so far, on every stream and
/// device, now instead of at the next operation that queues work or waits:
/// to get the GPU going before a long host computation, or to count the
/// launch in a host-side timing.
pub fn launch_pending() -> Result<()> {
    flush_all()
}

/// Counters of deferred small operations on CUDA device `ordinal`.
pub fn batch_stats(ordinal: usize) -> Result<BatchStats> {
    let s = crate::cuda::runtime::session::session(ordinal)?;
    let b = &s.batch;
    Ok(BatchStats {
        deferred: b.deferred.load(Ordering::Relaxed),
        launches: b.launches.load(Ordering::Relaxed),
        enabled: small_op_batching(),
        unavailable: b.interpreter.get().and_then(|r| r.as_ref().err().cloned()),
    })
}

/// One line for `%gpu`: whether small operations are deferred, and how
/// many were on each device with a session.
pub(crate) fn report() -> String {
    let mut text = format!(
        "  small-op batching: {} (ufuncs over at most {MAX_ELEMENTS} contiguous elements, up to {MAX_OPS} per launch; CUPRITE_BATCH_SMALL_OPS=0 turns it off)",
        if small_op_batching() { "on" } else { "off" }
    );
    for s in existing_sessions() {
        let b = &s.batch;
        let _ = write!(
            text,
            "\n    cuda:{}: {} operations deferred, {} batch launches",
            s.info.ordinal,
            b.deferred.load(Ordering::Relaxed),
            b.launches.load(Ordering::Relaxed)
        );
        if let Some(Err(why)) = b.interpreter.get() {
            let _ = write!(text, " (not available: {why})");
        }
    }
    text
}

/// The operations the interpreter runs, in operation-index order.
fn table() -> Vec<std::sync::Arc<MapKernel>> {
    let mut out = Vec::new();
    for &dt in DTYPES {
        for op in Ufunc::all().filter(|op| op.batchable()) {
            if let Some(k) = ufunc_kernel(op, dt) {
                // Only loops that compute in their own dtype: the
                // interpreter reads inputs without converting them.
                if k.compute.iter().all(|&c| c == dt) {
                    out.push(k);
                }
            }
        }
    }
    out
}

/// The interpreter's kernel; `@CASES@` holds one `batch_case.cu` per operation.
const TEMPLATE: &str = include_str!("kernels/batch.cu");
/// One operation of the interpreter.
const CASE: &str = include_str!("kernels/batch_case.cu");

/// The interpreter's source: one `case` per operation of `kernels`.
pub(crate) fn source(kernels: &[std::sync::Arc<MapKernel>]) -> String {
    let support = joined_support(kernels.iter().map(|k| &**k));
    let mut cases = String::new();
    for (index, k) in kernels.iter().enumerate() {
        let (mut scalars, mut loads) = (String::new(), String::new());
        for (i, &c) in k.compute.iter().enumerate() {
            let (t, word) = (ctype(c), ["op.a", "op.b"][i]);
            let _ = writeln!(
                scalars,
                "      const bool s{i} = code & {bit}; const {t} v{i} = s{i} ? batch_value<{t}>({word}) : ({t})0;",
                bit = 1 << i
            );
            // Plain loads: a pointer may alias what an earlier operation of
            // this batch wrote, so neither `__restrict__` nor `__ldg`.
            let _ = writeln!(
                loads,
                "        const {t} in{i} = s{i} ? v{i} : ((const {t}*){word})[i];"
            );
        }
        cases.push_str(&crate::cuda::kernel_gen::template::render(
            CASE,
            &[
                ("INDEX", &index.to_string()),
                ("NAME", &k.name),
                ("DTYPE", k.compute[0].name()),
                ("SCALARS", scalars.trim_end_matches('\n')),
                ("LOADS", loads.trim_end_matches('\n')),
                ("OUT", ctype(k.result)),
                ("EXPR", &k.expr),
            ],
            &[],
        ));
    }
    crate::cuda::kernel_gen::template::render(
        TEMPLATE,
        &[
            ("PRELUDE", PRELUDE),
            ("SUPPORT", &support),
            ("MAX_OPS", &MAX_OPS.to_string()),
            ("THREADS", &THREADS.to_string()),
            ("CASES", cases.trim_end_matches('\n')),
        ],
        &[],
    )
}

/// The helper definitions `kernels` need, each once, in first-use order
/// (one generated source holds several kernels' expressions).
pub(crate) fn joined_support<'a>(kernels: impl Iterator<Item = &'a MapKernel>) -> String {
    let mut support = String::new();
    let mut seen: Vec<&str> = Vec::new();
    for k in kernels {
        if !k.support.is_empty() && !seen.contains(&&*k.support) {
            seen.push(&k.support);
            support.push_str(&k.support);
        }
    }
    support
}

/// Launches `func` on `stream` with `grid` blocks of [`THREADS`] threads and
/// its one parameter at `param` (a struct the driver copies at launch).
pub(crate) fn launch_one_param(
    func: Function,
    grid: u32,
    stream: sys::CUstream,
    mut param: *mut std::ffi::c_void,
) -> std::result::Result<(), cudarc::driver::DriverError> {
    // SAFETY: the kernel takes exactly one parameter, whose bytes start at
    // `param` and match its declared struct (the callers' contract).
    unsafe {
        sys::cuLaunchKernel(
            func.raw.0,
            grid,
            1,
            1,
            THREADS,
            1,
            1,
            0,
            stream,
            &mut param,
            std::ptr::null_mut(),
        )
    }
    .result()
}

fn build_interpreter(session: &DeviceSession) -> std::result::Result<Interpreter, String> {
    if session.info.compute_capability.0 < 7 {
        // `__grid_constant__` parameters need Volta or newer.
        return Err(format!(
            "the device is sm_{}{}; batching small operations needs sm_70 or newer",
            session.info.compute_capability.0, session.info.compute_capability.1
        ));
    }
    let kernels = table();
    let module = session
        .kernels
        .module(session, "cuprite_batch", &source(&kernels), &[], &[])
        .map_err(|e| e.to_string())?;
    let func = module
        .function("cuprite_batch")
        .map_err(|e| e.to_string())?;
    let codes = kernels
        .iter()
        .enumerate()
        .map(|(i, k)| (k.id, i as u32))
        .collect();
    Ok(Interpreter { func, codes })
}

/// Defers `k` over `inputs` into the current stream's batch when it is
/// small and the interpreter runs it, or whatever its size when fusion is
/// on (`cuda::fusion`); returns false when the caller must launch it by
/// itself. `ptrs` are the array inputs' element-0 pointers then the
/// output's, the output contiguous with `n` elements; `strided` has one
/// entry per array input: `None` for one read contiguously with the
/// output's elements, else its geometry (only a fused kernel reads those).
/// `out` is the output's buffer (fusion skips writing it when nothing holds
/// it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn defer(
    k: &MapKernel,
    session: &DeviceSession,
    inputs: &[MapInput],
    ptrs: &[u64],
    strided: &[Option<StridedRead>],
    out_dt: DType,
    n: usize,
    out: Option<std::sync::Weak<dyn GpuBuffer>>,
) -> Result<bool> {
    if inputs.len() > 2 || out_dt != k.result || n > u32::MAX as usize {
        return Ok(false);
    }
    let fusing = crate::cuda::fusion::enabled();
    let any_strided = strided.iter().any(Option::is_some);
    if any_strided && !fusing {
        return Ok(false);
    }
    // With fusion on every pending operation has its fused entry, so one a
    // fused kernel cannot take launches by itself (after the batch).
    if fusing && !crate::cuda::fusion::fusable(k) {
        return Ok(false);
    }
    if !fusing && (n > MAX_ELEMENTS || !small_op_batching()) {
        return Ok(false);
    }
    let interp = match session
        .batch
        .interpreter
        .get_or_init(|| build_interpreter(session))
    {
        Ok(i) => i,
        Err(_) => return Ok(false),
    };
    let index = match interp.codes.get(&k.id) {
        Some(&index) => index,
        None if fusing => NOT_IN_TABLE,
        None => return Ok(false),
    };
    let mut desc = OpDesc {
        code: index << 2,
        n: n as u32,
        ..OpDesc::default()
    };
    let mut regions: smallvec::SmallVec<[Region; 3]> = smallvec::SmallVec::new();
    let mut scalars = [false; 2];
    let mut reads: [Option<&StridedRead>; 2] = [None; 2];
    let mut next_ptr = ptrs.iter().copied();
    let mut next_strided = strided.iter();
    for (i, input) in inputs.iter().enumerate() {
        let word = match input {
            MapInput::Scalar(v, dt) => {
                if *dt != k.compute[i] {
                    return Ok(false);
                }
                desc.code |= 1 << i;
                scalars[i] = true;
                scalar_word(*v, *dt)
            }
            MapInput::Array(a) => {
                if a.dtype() != k.compute[i] {
                    return Ok(false);
                }
                let Some(p) = next_ptr.next() else {
                    return Ok(false);
                };
                match next_strided.next().and_then(Option::as_ref) {
                    Some(read) => {
                        reads[i] = Some(read);
                        regions.push(Region::strided(p, read, a.dtype()));
                    }
                    None => regions.push(Region::new(p, n, a.dtype(), false)),
                }
                p
            }
        };
        if i == 0 {
            desc.a = word;
        } else {
            desc.b = word;
        }
    }
    let Some(out_ptr) = next_ptr.next() else {
        return Ok(false);
    };
    desc.out = out_ptr;
    regions.push(Region::new(desc.out, n, out_dt, true));

    let stream = crate::cuda::runtime::stream::current_stream();
    let key = stream.handle() as usize;
    let mut pending = session
        .batch
        .pending
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let p = pending.entry(key).or_insert_with(Pending::new);
    let geo_words: usize = reads.iter().flatten().map(|r| r.words()).sum::<usize>()
        + reads.iter().flatten().next().map_or(0, |r| r.dims.len());
    let param_bytes = 8 + 32 * (p.params.count as usize + 1) + 8 * (p.geo.len() + geo_words);
    let full = p.params.count as usize == MAX_OPS || param_bytes > MAX_PARAM_BYTES;
    if full || regions.iter().any(|r| conflicts(&p.touched, r)) {
        launch_batch(session, stream.handle(), p, interp.func)?;
    }
    if p.is_empty() {
        process().batches_pending.fetch_add(1, Ordering::SeqCst);
    }
    if fusing {
        let links = link_inputs(p, k, &desc, &scalars, &reads);
        p.needs_fused |= index == NOT_IN_TABLE || n > MAX_ELEMENTS || any_strided;
        let rank = crate::cuda::fusion::push_geometry(&mut p.geo, &reads);
        p.fused.push(FusedOp {
            kernel: k.clone(),
            links,
            scalars,
            strided: reads.map(|r| r.is_some()),
            rank,
            out,
            keep: false,
        });
    }
    p.params.ops[p.params.count as usize] = desc;
    p.params.count += 1;
    p.max_n = p.max_n.max(n as u32);
    for r in regions {
        record(&mut p.touched, r);
    }
    session.batch.deferred.fetch_add(1, Ordering::Relaxed);
    Ok(true)
}

/// For each array input of `desc`, the latest pending operation that wrote
/// the same address: its register holds the input when it covered the
/// same elements in the dtype `k` computes in; otherwise that operation's
/// result must be written even if nothing holds it (it is read from memory).
fn link_inputs(
    p: &mut Pending,
    k: &MapKernel,
    desc: &OpDesc,
    scalars: &[bool; 2],
    reads: &[Option<&StridedRead>; 2],
) -> [Option<u8>; 2] {
    let mut links = [None; 2];
    for (j, &word) in [desc.a, desc.b].iter().enumerate().take(k.compute.len()) {
        // A strided read joined the batch only if nothing pending writes
        // what it reads (`conflicts`), so it has no producer here.
        if scalars[j] || reads[j].is_some() {
            continue;
        }
        let count = p.params.count as usize;
        let Some(m) = (0..count).rev().find(|&m| p.params.ops[m].out == word) else {
            continue;
        };
        let same_elements = p.params.ops[m].n == desc.n;
        // A result of an earlier segment (before a deferred reduction) is
        // computed by another kernel: read from memory.
        let same_segment = m >= p.seg_start;
        let Some(producer) = p.fused.get_mut(m) else {
            continue;
        };
        if same_elements && same_segment && producer.kernel.result == k.compute[j] {
            links[j] = Some((m - p.seg_start) as u8);
        } else {
            producer.keep = true;
        }
    }
    links
}

/// A scalar's bytes in the low bytes of a 64-bit word (little-endian, as
/// the GPU reads it).
fn scalar_word(v: crate::Scalar, dt: DType) -> u64 {
    use crate::Element;
    let mut bytes = [0u8; 8];
    crate::with_dtype!(dt, T => {
        let t = T::from_scalar(v);
        let size = std::mem::size_of::<T>().min(8);
        // SAFETY: reads `size` bytes of a plain-data value.
        let src = unsafe { std::slice::from_raw_parts((&t as *const T).cast::<u8>(), size) };
        bytes[..size].copy_from_slice(src);
    });
    u64::from_le_bytes(bytes)
}

/// Launches `p` on the stream with handle `stream` and empties it. Binds
/// the session's context for the launch and restores the thread's current
/// one after.
fn launch_batch(
    session: &DeviceSession,
    stream: sys::CUstream,
    p: &mut Pending,
    func: Function,
) -> Result<()> {
    if p.is_empty() {
        return Ok(());
    }
    let key = (!p.fused.is_empty()).then(|| crate::cuda::fusion::structure_key(&p.fused));
    let fused = key.is_some_and(|key| {
        p.needs_fused || crate::cuda::fusion::worth_compiling(session, key, p.fused.len())
    });
    let grid = p.max_n.div_ceil(THREADS).max(1);
    let mut current = std::ptr::null_mut();
    // SAFETY: out pointer valid.
    unsafe { sys::cuCtxGetCurrent(&mut current) }
        .result()
        .map_err(|e| super::driver_error("launching deferred small operations", e))?;
    let switch = current != session.ctx.0;
    if switch {
        // SAFETY: the session's context is retained for the process.
        unsafe { sys::cuCtxSetCurrent(session.ctx.0) }
            .result()
            .map_err(|e| super::driver_error("launching deferred small operations", e))?;
    }
    let mut launched = Err(Error::InvalidArgument {
        op: "batch",
        detail: "not launched".into(),
    });
    let segments = !p.reductions.is_empty();
    if segments {
        launched = launch_segments(session, stream, p);
    } else if fused && crate::cuda::fusion::is_single(&p.fused) {
        launched =
            crate::cuda::fusion::launch_single(session, stream, &p.params.ops[0], &p.fused[0]);
        p.fused.clear();
    } else if fused {
        let count = p.params.count as usize;
        let ops = std::mem::take(&mut p.fused);
        let key = key.unwrap_or_default();
        let geo = std::mem::take(&mut p.geo);
        launched = crate::cuda::fusion::launch(
            session,
            stream,
            &p.params.ops[..count],
            ops,
            &geo,
            p.max_n,
            key,
        );
    }
    // The interpreter runs the batch unless the fused kernel did; it also
    // takes over when the fused kernel could not be built and every
    // operation is one it runs.
    if !segments && (!fused || (launched.is_err() && !p.needs_fused)) {
        launched = {
            if let Ok(mut last) = session.last_kernel.lock() {
                last.clear();
                let _ = write!(last, "cuprite_batch ({} small operations)", p.params.count);
            }
            // One parameter, a `Params` matching the kernel's `BatchParams`.
            let param = &mut *p.params as *mut Params as *mut std::ffi::c_void;
            launch_one_param(func, grid, stream, param).map_err(|e| {
                super::driver_error(
                    "launching deferred small operations (kernel `cuprite_batch`)",
                    e,
                )
            })
        };
    }
    if switch {
        // SAFETY: restores the context that was current (possibly none).
        let _ = unsafe { sys::cuCtxSetCurrent(current) };
    }
    p.params.count = 0;
    p.max_n = 0;
    p.touched.clear();
    p.fused.clear();
    p.geo.clear();
    p.needs_fused = false;
    p.reductions.clear();
    p.seg_start = 0;
    p.seg_geo = 0;
    p.generation += 1;
    process().batches_pending.fetch_sub(1, Ordering::SeqCst);
    session.batch.launches.fetch_add(1, Ordering::Relaxed);
    launched
}

/// Launches a batch holding deferred reductions: each reduction's segment
/// (the operations before its chain as one fused kernel, then the
/// reduction reading its chain), in order, then the open segment.
fn launch_segments(session: &DeviceSession, stream: sys::CUstream, p: &mut Pending) -> Result<()> {
    let count = p.params.count as usize;
    for r in std::mem::take(&mut p.reductions) {
        launch_range(session, stream, p, r.start..r.tree, r.geo_start..r.geo_tree)?;
        crate::cuda::fusion::launch_reduction(
            session,
            stream,
            &p.params.ops[r.tree..r.end],
            p.fused[r.tree..r.end].to_vec(),
            &p.geo[r.geo_tree..r.geo_end],
            r.prepared,
            r.cached,
        )?;
    }
    let (seg, geo) = (p.seg_start..count, p.seg_geo..p.geo.len());
    launch_range(session, stream, p, seg, geo)
}

/// Launches the batch's operations `ops` (links relative to the first,
/// geometry `geo`) as one fused kernel, or by itself when it is one
/// contiguous operation.
fn launch_range(
    session: &DeviceSession,
    stream: sys::CUstream,
    p: &Pending,
    ops: std::ops::Range<usize>,
    geo: std::ops::Range<usize>,
) -> Result<()> {
    if ops.is_empty() {
        return Ok(());
    }
    let descs = &p.params.ops[ops.clone()];
    let fused = p.fused[ops].to_vec();
    if crate::cuda::fusion::is_single(&fused) {
        return crate::cuda::fusion::launch_single(session, stream, &descs[0], &fused[0]);
    }
    let max_n = descs.iter().map(|d| d.n).max().unwrap_or(0);
    let key = crate::cuda::fusion::structure_key(&fused);
    crate::cuda::fusion::launch(session, stream, descs, fused, &p.geo[geo], max_n, key)
}

/// The chain a reduction of the C-contiguous array at `ptr` (`n` elements
/// of `dt`) can read through on the current stream: when that array is
/// the result of the newest pending operation, the operations it depends
/// on through registers, provided they are the open segment's last ones
/// (so every other pending operation runs before them in program order),
/// and none of the open segment's operations touches `out` (the bytes the
/// reduction writes, while its threads still read the chain's inputs).
pub(crate) fn pending_chain(
    session: &DeviceSession,
    ptr: u64,
    n: usize,
    dt: DType,
    out: (u64, u64),
) -> Option<ChainFound> {
    let stream = crate::cuda::runtime::stream::current_stream().handle() as usize;
    let pending = session
        .batch
        .pending
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let p = pending.get(&stream)?;
    let count = p.params.count as usize;
    if count == 0 || p.fused.len() != count || count <= p.seg_start {
        return None;
    }
    let (seg, last) = (p.seg_start, count - 1);
    let d = &p.params.ops[last];
    if d.out != ptr || d.n as usize != n || p.fused[last].kernel.result != dt {
        return None;
    }
    if p.touched.iter().any(|t| t.first < out.1 && out.0 < t.end) {
        return None;
    }
    let mut inside = vec![false; count - seg];
    inside[last - seg] = true;
    for k in (seg..=last).rev() {
        if inside[k - seg] {
            for &l in p.fused[k].links.iter().flatten() {
                inside[l as usize] = true;
            }
        }
    }
    let tree = seg + inside.iter().position(|&b| b)?;
    if !inside[tree - seg..].iter().all(|&b| b) {
        return None;
    }
    let geo_tree = p.seg_geo
        + p.fused[seg..tree]
            .iter()
            .map(crate::cuda::fusion::geo_words)
            .sum::<usize>();
    let shift = (tree - seg) as u8;
    let ops = p.fused[tree..count]
        .iter()
        .cloned()
        .map(|mut o| {
            for l in o.links.iter_mut().flatten() {
                *l -= shift;
            }
            o
        })
        .collect();
    Some(ChainFound {
        ops,
        geo_len: p.geo.len() - geo_tree,
        stream,
        generation: p.generation,
        tree,
        end: count,
        geo_tree,
    })
}

/// Defers the reduction `prepared` (reading `found`'s chain) into its
/// batch, closing the open segment; false when the batch ran since
/// `found` was taken (preparing may launch it), so the reduction must run
/// by itself.
pub(crate) fn close_with_reduction(
    session: &DeviceSession,
    found: ChainFound,
    prepared: crate::cuda::gen::reduce::Prepared,
    cached: bool,
) -> Result<bool> {
    let mut pending = session
        .batch
        .pending
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let Some(p) = pending.get_mut(&found.stream) else {
        return Ok(false);
    };
    if p.generation != found.generation || p.params.count as usize != found.end {
        return Ok(false);
    }
    let end = found.end;
    p.reductions.push(PendingReduce {
        start: p.seg_start,
        tree: found.tree,
        end,
        geo_start: p.seg_geo,
        geo_tree: found.geo_tree,
        geo_end: p.geo.len(),
        prepared,
        cached,
    });
    p.seg_start = end;
    p.seg_geo = p.geo.len();
    // What later operations touch runs in later kernels.
    p.touched.clear();
    p.max_n = 0;
    Ok(true)
}

/// Launches what is pending on `stream` (on every device). Cheap when
/// nothing is pending anywhere, which is checked first.
pub(crate) fn flush(stream: &Stream) -> Result<()> {
    flush_handle(stream.handle())
}

/// As [`flush`], for a stream known by its handle.
pub(crate) fn flush_handle(stream: sys::CUstream) -> Result<()> {
    if process().batches_pending.load(Ordering::SeqCst) == 0 {
        return Ok(());
    }
    flush_matching(|k| k == stream as usize)
}

/// Launches every pending batch of every stream and device.
pub(crate) fn flush_all() -> Result<()> {
    if process().batches_pending.load(Ordering::SeqCst) == 0 {
        return Ok(());
    }
    flush_matching(|_| true)
}

fn flush_matching(wanted: impl Fn(usize) -> bool) -> Result<()> {
    let mut first_error = None;
    for s in existing_sessions() {
        let Some(Ok(interp)) = s.batch.interpreter.get() else {
            continue;
        };
        let mut pending = s.batch.pending.lock().unwrap_or_else(|e| e.into_inner());
        for (&key, p) in pending.iter_mut() {
            if p.is_empty() || !wanted(key) {
                continue;
            }
            if let Err(e) = launch_batch(s, key as sys::CUstream, p, interp.func) {
                first_error.get_or_insert(e);
            }
        }
    }
    first_error.map_or(Ok(()), Err)
}

/// Launches what is pending on `stream`, remembering a failure for the next
/// synchronisation instead of returning it (for callers that only need the
/// stream's handle).
pub(crate) fn flush_or_remember(stream: &Stream) {
    if let Err(e) = flush(stream) {
        for s in existing_sessions() {
            let mut failed = s.batch.failed.lock().unwrap_or_else(|e| e.into_inner());
            failed.get_or_insert_with(|| e.clone());
        }
    }
}

/// A launch failure of a batch not yet reported, taken.
pub(crate) fn take_failure(session: &DeviceSession) -> Option<Error> {
    session
        .batch
        .failed
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(first: u64, end: u64, itemsize: u32, written: bool) -> Region {
        Region {
            first,
            end,
            itemsize,
            written,
            strided: false,
        }
    }

    #[test]
    fn strided_reads_conflict_with_any_overlapping_write() {
        // A pending `y = f(x)` then a read of `y` shifted by a row: another
        // thread's element, so the batch must launch first.
        let t = vec![region(1000, 1400, 4, true)];
        let read = StridedRead {
            dims: smallvec::smallvec![10, 10],
            strides: smallvec::smallvec![10, 1],
        };
        let shifted = Region::strided(1040, &read, DType::Float32);
        assert!(conflicts(&t, &shifted));
        // Even at the same element-0 address: the elements differ.
        let transposed = StridedRead {
            dims: smallvec::smallvec![10, 10],
            strides: smallvec::smallvec![1, 10],
        };
        assert!(conflicts(
            &t,
            &Region::strided(1000, &transposed, DType::Float32)
        ));
        // Reads of memory nothing pending writes join the batch.
        assert!(!conflicts(
            &t,
            &Region::strided(5000, &read, DType::Float32)
        ));
        // A broadcast row spans one row; a reversed view spans back.
        let bcast = StridedRead {
            dims: smallvec::smallvec![1000, 10],
            strides: smallvec::smallvec![0, 1],
        };
        let r = Region::strided(2000, &bcast, DType::Float32);
        assert_eq!((r.first, r.end), (2000, 2040));
        let reversed = StridedRead {
            dims: smallvec::smallvec![10],
            strides: smallvec::smallvec![-1],
        };
        let r = Region::strided(2036, &reversed, DType::Float32);
        assert_eq!((r.first, r.end), (2000, 2040));
    }

    #[test]
    fn same_elements_never_conflict() {
        // a = a + 1 in place, and a freed buffer reused for the same dtype.
        let t = vec![region(0, 4000, 4, true)];
        assert!(!conflicts(&t, &region(0, 4000, 4, false)));
        assert!(!conflicts(&t, &region(0, 2000, 4, true)));
    }

    #[test]
    fn shifted_or_retyped_access_to_written_memory_conflicts() {
        let t = vec![region(0, 4000, 4, true)];
        // A view one element in: element i is another thread's element i+1.
        assert!(conflicts(&t, &region(4, 4004, 4, false)));
        // The block reused for float64: element i spans two float32 elements.
        assert!(conflicts(&t, &region(0, 8000, 8, false)));
        // Writing memory an earlier operation read at another offset.
        let r = vec![region(0, 4000, 4, false)];
        assert!(conflicts(&r, &region(400, 800, 4, true)));
    }

    #[test]
    fn reads_and_disjoint_memory_do_not_conflict() {
        let t = vec![region(0, 4000, 4, false), region(8000, 9000, 4, true)];
        assert!(!conflicts(&t, &region(4, 4004, 4, false)));
        assert!(!conflicts(&t, &region(4000, 8000, 8, true)));
        assert!(!conflicts(&t, &region(9000, 9100, 2, true)));
    }

    #[test]
    fn record_merges_same_elements() {
        let mut t = Vec::new();
        record(&mut t, region(0, 400, 4, false));
        record(&mut t, region(0, 800, 4, true));
        record(&mut t, region(0, 800, 8, false));
        assert_eq!(t, vec![region(0, 800, 4, true), region(0, 800, 8, false)]);
    }

    #[test]
    fn parameter_fits_every_driver() {
        assert!(std::mem::size_of::<Params>() <= 4096);
        assert_eq!(std::mem::size_of::<OpDesc>(), 32);
    }

    #[test]
    fn scalars_travel_in_low_bytes() {
        use crate::Scalar;
        assert_eq!(
            scalar_word(Scalar::Float(1.5), DType::Float32),
            1.5f32.to_bits() as u64
        );
        assert_eq!(
            scalar_word(Scalar::Float(-2.25), DType::Float64),
            (-2.25f64).to_bits()
        );
        assert_eq!(scalar_word(Scalar::Int(-1), DType::Int32), 0xffff_ffff);
        assert_eq!(scalar_word(Scalar::Int(-1), DType::Int64), u64::MAX);
    }

    #[test]
    fn interpreter_source_has_every_operation_and_compiles() {
        let kernels = table();
        // Every batchable ufunc has a float32 loop in the table.
        let batchable: Vec<&str> = Ufunc::all()
            .filter(|op| op.batchable())
            .map(|op| op.name())
            .collect();
        assert_eq!(batchable.len(), 22, "{batchable:?}");
        for name in batchable {
            assert!(
                kernels
                    .iter()
                    .any(|k| &*k.name == name && k.compute[0] == DType::Float32),
                "{name} missing"
            );
        }
        let src = source(&kernels);
        assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
        assert_eq!(src.matches("    case ").count(), kernels.len());
        assert!(
            !src.contains("__restrict__ p"),
            "interpreter loads must not assume no aliasing"
        );
        if let Err(log) = crate::cuda::runtime::compile::check_compiles("cuprite_batch", &src) {
            panic!("{log}");
        }
    }
}
