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
    prepared: crate::cuda::kernel_gen::reduce::Prepared,
    cached: bool,
}

/// How a reduction joins the batch ([`pending_chain`]): its chain
/// (links relative to the first operation) and the open segment's new
/// order.
pub(crate) struct ChainFound {
    /// The chain (empty when the reduction reads memory).
    pub ops: Vec<FusedOp>,
    pub geo_len: usize,
    stream: usize,
    generation: u64,
    /// The open segment's operations (batch indices), chain first.
    order: Vec<usize>,
    /// Per operation of the open segment: its index in its group (the
    /// chain or the rest) in the new order.
    pos: Vec<u8>,
    end: usize,
    /// The bytes the reduction's input spans.
    span: (u64, u64),
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

/// The memory operation `k` of `p` touches: its array inputs (through
/// their strides, from `geo_at` in `p.geo`) and its output.
fn op_regions(p: &Pending, k: usize, geo_at: usize) -> smallvec::SmallVec<[Region; 3]> {
    let (d, o) = (&p.params.ops[k], &p.fused[k]);
    let n = d.n as usize;
    let rank = o.rank as usize;
    let mut out = smallvec::SmallVec::new();
    let mut strides_at = geo_at + rank;
    for (j, &c) in o.kernel.compute.iter().enumerate() {
        if o.scalars[j] {
            continue;
        }
        let word = if j == 0 { d.a } else { d.b };
        if o.strided[j] {
            let read = StridedRead {
                dims: p.geo[geo_at..geo_at + rank]
                    .iter()
                    .map(|&v| v as u32)
                    .collect(),
                strides: p.geo[strides_at..strides_at + rank]
                    .iter()
                    .copied()
                    .collect(),
            };
            strides_at += rank;
            out.push(Region::strided(word, &read, c));
        } else {
            out.push(Region::new(word, n, c, false));
        }
    }
    out.push(Region::new(d.out, n, o.kernel.result, true));
    out
}

/// Whether `a` and `b` overlap and one of them is written.
fn hazard(a: &Region, b: &Region) -> bool {
    a.first < b.end && b.first < a.end && (a.written || b.written)
}

/// The input of a reduction about to be deferred ([`pending_chain`]).
pub(crate) struct ReduceInput {
    /// Element 0's address, the element count and dtype.
    pub ptr: u64,
    pub n: usize,
    pub dtype: DType,
    /// C-contiguous (so element `i` is the producing operation's `i`).
    pub contiguous: bool,
    /// The bytes it spans.
    pub span: (u64, u64),
}

/// How a reduction of `x` into the bytes `out` can join the current
/// stream's batch: its chain (the open segment's operations `x` depends on
/// through registers, when `x` is the C-contiguous result of the newest
/// one; none when the reduction reads `x` from memory) run inside the
/// reduction's kernel, and the open segment's other operations run after
/// it, which needs them independent of the chain: no register links into
/// it, no memory one side writes and the other touches, nothing written
/// where the reduction reads `x`, and no pending operation touching `out`.
/// `None` when there is no batch or they are not independent.
pub(crate) fn pending_chain(
    session: &DeviceSession,
    x: &ReduceInput,
    out: (u64, u64),
) -> Option<ChainFound> {
    let stream = crate::cuda::runtime::stream::current_stream().handle() as usize;
    let pending = session
        .batch
        .pending
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let mut found = plan(pending.get(&stream)?, x, out)?;
    found.stream = stream;
    Some(found)
}

/// [`pending_chain`] on the batch `p`.
fn plan(p: &Pending, x: &ReduceInput, out: (u64, u64)) -> Option<ChainFound> {
    let count = p.params.count as usize;
    if count == 0 || p.fused.len() != count {
        return None;
    }
    if p.touched.iter().any(|t| t.first < out.1 && out.0 < t.end) {
        return None;
    }
    let seg = p.seg_start;
    let mut geo_at = Vec::with_capacity(count - seg);
    let mut g = p.seg_geo;
    for o in &p.fused[seg..] {
        geo_at.push(g);
        g += crate::cuda::fusion::geo_words(o);
    }
    let mut inside = vec![false; count - seg];
    if count > seg {
        let last = count - 1;
        let d = &p.params.ops[last];
        if x.contiguous
            && d.out == x.ptr
            && d.n as usize == x.n
            && p.fused[last].kernel.result == x.dtype
        {
            inside[last - seg] = true;
            for k in (seg..=last).rev() {
                if inside[k - seg] {
                    for &l in p.fused[k].links.iter().flatten() {
                        inside[l as usize] = true;
                    }
                }
            }
        }
    }
    let regions: Vec<smallvec::SmallVec<[Region; 3]>> = (seg..count)
        .map(|k| op_regions(p, k, geo_at[k - seg]))
        .collect();
    let read = Region {
        first: x.span.0,
        end: x.span.1,
        itemsize: x.dtype.itemsize() as u32,
        written: false,
        strided: true,
    };
    for k in (seg..count).filter(|&k| !inside[k - seg]) {
        if p.fused[k]
            .links
            .iter()
            .flatten()
            .any(|&l| inside[l as usize])
        {
            return None;
        }
        for r in &regions[k - seg] {
            if hazard(r, &read) {
                return None;
            }
            let chain = (seg..count).filter(|&t| inside[t - seg]);
            if chain
                .flat_map(|t| regions[t - seg].iter())
                .any(|c| hazard(r, c))
            {
                return None;
            }
        }
    }
    let order: Vec<usize> = (seg..count)
        .filter(|&k| inside[k - seg])
        .chain((seg..count).filter(|&k| !inside[k - seg]))
        .collect();
    let chain_len = inside.iter().filter(|&&b| b).count();
    let mut pos = vec![0u8; count - seg];
    for (i, &k) in order.iter().enumerate() {
        pos[k - seg] = if i < chain_len { i } else { i - chain_len } as u8;
    }
    let ops: Vec<FusedOp> = order[..chain_len]
        .iter()
        .map(|&k| {
            let mut o = p.fused[k].clone();
            for l in o.links.iter_mut().flatten() {
                *l = pos[*l as usize];
            }
            o
        })
        .collect();
    let geo_len = ops.iter().map(crate::cuda::fusion::geo_words).sum();
    Some(ChainFound {
        ops,
        geo_len,
        stream: 0,
        generation: p.generation,
        order,
        pos,
        end: count,
        span: x.span,
    })
}

/// Defers the reduction `prepared` (reading `found`'s chain) into its
/// batch: the open segment's operations are put in `found`'s order (the
/// chain first), the chain closes a segment with the reduction, the rest
/// stays open. False when the batch ran since `found` was taken
/// (preparing may launch it), so the reduction must run by itself.
pub(crate) fn close_with_reduction(
    session: &DeviceSession,
    found: ChainFound,
    prepared: crate::cuda::kernel_gen::reduce::Prepared,
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
    keep_results_read(p, found.span);
    let (start, chain_end, geo_start, geo_end) = reorder(p, &found);
    p.reductions.push(PendingReduce {
        start,
        tree: start,
        end: chain_end,
        geo_start,
        geo_tree: geo_start,
        geo_end,
        prepared,
        cached,
    });
    reopen(p, chain_end, geo_end);
    Ok(true)
}

/// Marks the results of `p`'s closed segments that overlap `span` (what a
/// deferred reduction reads from memory) to be written even when no array
/// holds them when the batch runs, as `link_inputs` does for an operation
/// reading a result of an earlier segment.
fn keep_results_read(p: &mut Pending, span: (u64, u64)) {
    for k in 0..p.seg_start {
        let d = p.params.ops[k];
        let o = &mut p.fused[k];
        let end = d.out + d.n as u64 * o.kernel.result.itemsize() as u64;
        if d.out < span.1 && span.0 < end {
            o.keep = true;
        }
    }
}

/// Puts the open segment's operations of `p` in `found`'s order (the
/// chain first; links and geometry follow); returns where the chain
/// starts and ends, in operations and in geometry words.
fn reorder(p: &mut Pending, found: &ChainFound) -> (usize, usize, usize, usize) {
    let (seg, count) = (p.seg_start, found.end);
    let chain_len = found.ops.len();
    let mut geo_at = Vec::with_capacity(count - seg);
    let mut g = p.seg_geo;
    for o in &p.fused[seg..] {
        geo_at.push(g);
        g += crate::cuda::fusion::geo_words(o);
    }
    let descs: Vec<OpDesc> = found.order.iter().map(|&k| p.params.ops[k]).collect();
    let mut fused: Vec<FusedOp> = Vec::with_capacity(count - seg);
    let mut geo: Vec<i64> = Vec::new();
    for &k in &found.order {
        let mut o = p.fused[k].clone();
        for l in o.links.iter_mut().flatten() {
            *l = found.pos[*l as usize];
        }
        let at = geo_at[k - seg];
        geo.extend_from_slice(&p.geo[at..at + crate::cuda::fusion::geo_words(&o)]);
        fused.push(o);
    }
    p.params.ops[seg..count].copy_from_slice(&descs);
    p.fused.truncate(seg);
    p.fused.extend(fused);
    p.geo.truncate(p.seg_geo);
    p.geo.extend(geo);
    (seg, seg + chain_len, p.seg_geo, p.seg_geo + found.geo_len)
}

/// Opens the segment of `p` that starts at operation `start` (geometry
/// word `geo`): later operations link only within it, and it touches what
/// its operations so far touch.
fn reopen(p: &mut Pending, start: usize, geo: usize) {
    p.seg_start = start;
    p.seg_geo = geo;
    p.touched.clear();
    p.max_n = 0;
    let mut at = geo;
    for k in start..p.params.count as usize {
        for r in op_regions(p, k, at) {
            record(&mut p.touched, r);
        }
        at += crate::cuda::fusion::geo_words(&p.fused[k]);
        p.max_n = p.max_n.max(p.params.ops[k].n);
    }
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

    /// The float32 loop of ufunc `name`.
    fn ufunc(name: &str) -> MapKernel {
        let op = Ufunc::all().find(|u| u.name() == name).unwrap();
        (*ufunc_kernel(op, DType::Float32).unwrap()).clone()
    }

    /// Appends `name` over `n` elements to `p` as `defer` would: input
    /// `a` (read through `read` when given), `b` (a scalar when `None`),
    /// the output at `out`, the given links.
    fn push(
        p: &mut Pending,
        (name, n): (&str, u32),
        (a, b, out): (u64, Option<u64>, u64),
        links: [Option<u8>; 2],
        read: Option<StridedRead>,
    ) {
        let k = ufunc(name);
        let binary = k.compute.len() == 2;
        let rank = match &read {
            Some(r) => crate::cuda::fusion::push_geometry(&mut p.geo, &[Some(r), None]),
            None => 0,
        };
        let at = p.params.count as usize;
        p.params.ops[at] = OpDesc {
            code: 0,
            n,
            a,
            b: b.unwrap_or(0),
            out,
        };
        p.params.count += 1;
        p.fused.push(FusedOp {
            kernel: k,
            links,
            scalars: [false, binary && b.is_none()],
            strided: [read.is_some(), false],
            rank,
            out: None,
            keep: false,
        });
        let (seg, geo) = (p.seg_start, p.seg_geo);
        reopen(p, seg, geo);
    }

    fn grid(strides: [i64; 2]) -> StridedRead {
        StridedRead {
            dims: smallvec::smallvec![10, 100],
            strides: smallvec::SmallVec::from_slice(&strides),
        }
    }

    fn input(ptr: u64, n: usize, contiguous: bool) -> ReduceInput {
        ReduceInput {
            ptr,
            n,
            dtype: DType::Float32,
            contiguous,
            span: (ptr, ptr + 4 * n as u64),
        }
    }

    const MB: u64 = 1 << 20;
    const OUT: (u64, u64) = (90 * MB, 90 * MB + 400);

    /// `centred = m - mean[None, :]` pending, then `(e * 2 + g).sum()`:
    /// the chain is the last two operations, the subtract runs after the
    /// reduction, and links and geometry follow the new order.
    #[test]
    fn a_chain_closes_a_segment_and_independent_operations_stay_open() {
        let mut p = Pending::new();
        push(
            &mut p,
            ("subtract", 1000),
            (MB, Some(2 * MB), 3 * MB),
            [None; 2],
            Some(grid([100, 1])),
        );
        // Mark the subtract's geometry apart from the multiply's.
        let sub_geo = p.geo.clone();
        push(
            &mut p,
            ("multiply", 1000),
            (4 * MB, None, 5 * MB),
            [None; 2],
            Some(grid([1, 10])),
        );
        let mul_geo = p.geo[sub_geo.len()..].to_vec();
        push(
            &mut p,
            ("add", 1000),
            (5 * MB, Some(6 * MB), 7 * MB),
            [Some(1), None],
            None,
        );
        let found = plan(&p, &input(7 * MB, 1000, true), OUT).expect("a chain");
        assert_eq!(found.ops.len(), 2);
        assert_eq!(found.ops[0].kernel.name.as_ref(), "multiply");
        assert_eq!(found.ops[1].links, [Some(0), None]);
        assert_eq!(found.geo_len, mul_geo.len());
        assert_eq!(found.order, vec![1, 2, 0]);
        let (start, end, geo_start, geo_end) = reorder(&mut p, &found);
        reopen(&mut p, end, geo_end);
        assert_eq!((start, end, geo_start, geo_end), (0, 2, 0, mul_geo.len()));
        let names: Vec<&str> = p.fused.iter().map(|o| o.kernel.name.as_ref()).collect();
        assert_eq!(names, ["multiply", "add", "subtract"]);
        assert_eq!(p.fused[1].links, [Some(0), None]);
        assert_eq!(p.params.ops[2].out, 3 * MB);
        assert_eq!(p.geo[..geo_end], mul_geo[..]);
        assert_eq!(p.geo[geo_end..], sub_geo[..]);
        assert_eq!((p.seg_start, p.seg_geo, p.max_n), (2, geo_end, 1000));
        // The open segment touches what the subtract touches, nothing else.
        assert!(p.touched.iter().any(|t| t.first == 3 * MB && t.written));
        assert!(!p.touched.iter().any(|t| t.first == 7 * MB));
        // A later reduction of memory, with the subtract still open.
        let again = plan(&p, &input(20 * MB, 1000, false), OUT).expect("deferred");
        assert!(again.ops.is_empty());
        assert_eq!(again.order, vec![2]);
        // A reduction reading the multiply's result from memory has it
        // written (it is in a closed segment), and only it.
        let read = plan(&p, &input(5 * MB, 1000, true), OUT).expect("deferred");
        keep_results_read(&mut p, read.span);
        let kept: Vec<bool> = p.fused.iter().map(|o| o.keep).collect();
        assert_eq!(kept, [true, false, false]);
    }

    #[test]
    fn dependent_or_overlapping_operations_keep_the_reduction_out() {
        // An operation outside the chain reads a chain register.
        let mut p = Pending::new();
        push(
            &mut p,
            ("multiply", 1000),
            (MB, None, 2 * MB),
            [None; 2],
            None,
        );
        push(
            &mut p,
            ("add", 1000),
            (2 * MB, None, 3 * MB),
            [Some(0), None],
            None,
        );
        push(
            &mut p,
            ("sin", 1000),
            (2 * MB, None, 4 * MB),
            [Some(0), None],
            None,
        );
        assert!(plan(&p, &input(4 * MB, 1000, true), OUT).is_none());
        // One writes what the chain reads from memory (another count).
        let mut p = Pending::new();
        push(&mut p, ("add", 1000), (MB, None, 2 * MB), [None; 2], None);
        push(
            &mut p,
            ("sin", 500),
            (2 * MB, None, 3 * MB),
            [None; 2],
            None,
        );
        assert!(plan(&p, &input(3 * MB, 500, true), OUT).is_none());
        // One writes where a reduction of memory reads (a transposed view).
        let mut p = Pending::new();
        push(&mut p, ("add", 1000), (MB, None, 2 * MB), [None; 2], None);
        assert!(plan(&p, &input(2 * MB, 1000, false), OUT).is_none());
        let elsewhere = plan(&p, &input(8 * MB, 1000, false), OUT).expect("independent");
        assert!(elsewhere.ops.is_empty());
        // The reduction's output overlaps pending memory.
        assert!(plan(&p, &input(8 * MB, 1000, false), (MB + 40, MB + 80)).is_none());
        // Nothing pending: nothing to defer behind.
        assert!(plan(&Pending::new(), &input(MB, 10, true), OUT).is_none());
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
