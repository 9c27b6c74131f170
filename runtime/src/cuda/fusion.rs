//! Automatic fusion of deferred elementwise operations (`cp::fusion`).
//!
//! With fusion on, every contiguous elementwise operation on a GPU array
//! (ufuncs, operators, scalar arithmetic) is deferred into its stream's
//! pending batch (`cuda::batch`) whatever its size, and the batch runs as
//! one generated kernel instead of one launch per operation: each thread
//! takes element `i` through every operation in program order, an input
//! that an earlier operation of the batch computed for the same elements
//! is read from that operation's register instead of memory, and a result
//! no array holds any more when the batch runs (a temporary of an
//! expression) is never written. `tanh(sin(x) + x * 0.1)` then reads `x`
//! and writes the result, where four launches read and wrote three
//! temporaries.
//!
//! Kernels are cached by the batch's structure (each operation's kernel,
//! which inputs come from which earlier operation, which are scalars), not
//! by sizes or addresses, so a loop running the same statements compiles
//! once. A batch of small operations whose structure has no kernel yet runs
//! on the batch interpreter (no compile) the first time, and is compiled
//! when the structure comes again.
//!
//! Off by default until measured on the GPU machine: `CUPRITE_FUSION=1` or
//! [`set_enabled`] turns it on.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write;
use std::sync::atomic::Ordering;
use std::sync::{Mutex, Weak};

use cudarc::driver::sys;

use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::storage::GpuBuffer;
use crate::cuda::kernel_gen::elementwise::MapKernel;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::session::{existing_sessions, process, DeviceSession};
use crate::ops::c_types::ctype;

use super::batch::THREADS;

/// How many fused batches `explain` keeps per device.
const EXPLAINED: usize = 4;

/// An array input read through strides over its operation's merged
/// C-ordered shape (a broadcast operand, a sliced or transposed view),
/// where a contiguous input's element `i` is simply at `i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StridedRead {
    /// The operation's shape after merging axes (outermost first).
    pub dims: smallvec::SmallVec<[u32; 4]>,
    /// This input's stride per axis, in elements (0 where broadcast).
    pub strides: smallvec::SmallVec<[i64; 4]>,
}

impl StridedRead {
    /// Axes a strided read may have (merged); more launch by themselves.
    pub(crate) const MAX_RANK: usize = 4;

    /// The lowest and highest element offsets it reads.
    pub(crate) fn span(&self) -> (i64, i64) {
        self.dims
            .iter()
            .zip(&self.strides)
            .fold((0, 0), |(lo, hi), (&d, &s)| {
                let far = s * (d.max(1) as i64 - 1);
                (lo + far.min(0), hi + far.max(0))
            })
    }

    /// Geometry words its strides take in the kernel's parameter.
    pub(crate) fn words(&self) -> usize {
        self.strides.len()
    }
}

/// Appends one operation's strided geometry to `geo` as its fused kernel
/// reads it (the shape once, then each strided input's strides) and
/// returns its rank, 0 when no input is strided.
pub(crate) fn push_geometry(geo: &mut Vec<i64>, reads: &[Option<&StridedRead>; 2]) -> u8 {
    let Some(first) = reads.iter().flatten().next() else {
        return 0;
    };
    geo.extend(first.dims.iter().map(|&d| d as i64));
    for r in reads.iter().flatten() {
        geo.extend(r.strides.iter().copied());
    }
    first.dims.len() as u8
}

/// One deferred operation as fusion sees it (beside its descriptor).
#[derive(Debug, Clone)]
pub(crate) struct FusedOp {
    pub kernel: MapKernel,
    /// Per input: the earlier operation of the batch whose register holds
    /// it (same elements, same count, the dtype the kernel computes in).
    pub links: [Option<u8>; 2],
    /// Per input: whether it is a scalar travelling in the descriptor.
    pub scalars: [bool; 2],
    /// Per input: whether it is read through strides ([`StridedRead`]).
    pub strided: [bool; 2],
    /// The merged rank of the strided inputs' geometry (0 when none).
    pub rank: u8,
    /// The array the result goes to, to see at launch whether anything
    /// still holds it.
    pub out: Option<Weak<dyn GpuBuffer>>,
    /// Written even when nothing holds it: a later operation reads it from
    /// memory (another element count).
    pub keep: bool,
}

/// Per device: the structures seen, counters and the last batches run.
#[derive(Default)]
pub(crate) struct FusionState {
    /// Structure key to how many times it ran (compiled once it is in here
    /// with a kernel).
    seen: Mutex<HashMap<u64, u32>>,
    explained: Mutex<VecDeque<Explained>>,
    pub(crate) batches: std::sync::atomic::AtomicU64,
    pub(crate) reductions: std::sync::atomic::AtomicU64,
    pub(crate) compiled: std::sync::atomic::AtomicU64,
    pub(crate) cache_hits: std::sync::atomic::AtomicU64,
    pub(crate) operations: std::sync::atomic::AtomicU64,
    pub(crate) stores_skipped: std::sync::atomic::AtomicU64,
    pub(crate) bytes_not_written: std::sync::atomic::AtomicU64,
    /// Time spent building fused kernels (NVRTC, or the disk cache).
    pub(crate) compile_micros: std::sync::atomic::AtomicU64,
    pub(crate) slowest_compile_micros: std::sync::atomic::AtomicU64,
}

/// What fusion did on one device so far.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FusionStats {
    /// Batches run as one generated kernel.
    pub batches: u64,
    /// Reductions that read the pending operations computing their input
    /// (a trailing reduction fused with them) instead of memory.
    pub fused_reductions: u64,
    /// Operations those batches and reductions held.
    pub operations: u64,
    /// Generated kernels compiled (one per new structure).
    pub kernels_compiled: u64,
    /// Batches that found their kernel compiled already.
    pub cache_hits: u64,
    /// Results not written because no array held them any more.
    pub stores_skipped: u64,
    /// The bytes those results would have written.
    pub bytes_not_written: u64,
    /// Microseconds spent building fused kernels, in all and the longest
    /// one (NVRTC for a new structure; a kernel found in the disk cache
    /// only loads).
    pub compile_micros: u64,
    pub slowest_compile_micros: u64,
}

/// Switches fusion on or off for the process (`CUPRITE_FUSION=1` starts
/// with it on). Launches what is pending first, so no batch mixes both.
pub fn set_enabled(on: bool) -> Result<()> {
    crate::cuda::batch::flush_all()?;
    process().fusion.store(on, Ordering::SeqCst);
    Ok(())
}

/// Whether elementwise operations on GPU arrays are fused.
pub fn enabled() -> bool {
    process().fusion.load(Ordering::Relaxed)
}

/// Whether reductions are fused with the pending operations computing
/// their input when fusion is on (`CUPRITE_FUSE_REDUCTIONS=0` leaves them
/// out, to tell their effect from the elementwise batches').
pub fn reductions_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("CUPRITE_FUSE_REDUCTIONS").as_deref() != Ok("0"))
}

/// Counters of CUDA device `ordinal`.
pub fn stats(ordinal: usize) -> Result<FusionStats> {
    let s = crate::cuda::runtime::session::session(ordinal)?;
    Ok(snapshot(&s.batch.fusion))
}

fn snapshot(f: &FusionState) -> FusionStats {
    FusionStats {
        batches: f.batches.load(Ordering::Relaxed),
        fused_reductions: f.reductions.load(Ordering::Relaxed),
        operations: f.operations.load(Ordering::Relaxed),
        kernels_compiled: f.compiled.load(Ordering::Relaxed),
        cache_hits: f.cache_hits.load(Ordering::Relaxed),
        stores_skipped: f.stores_skipped.load(Ordering::Relaxed),
        bytes_not_written: f.bytes_not_written.load(Ordering::Relaxed),
        compile_micros: f.compile_micros.load(Ordering::Relaxed),
        slowest_compile_micros: f.slowest_compile_micros.load(Ordering::Relaxed),
    }
}

/// The last fused batches of every device: their operations, which
/// results were written, whether the kernel was compiled or found, and the
/// generated source; then the counters. What `%fusion` shows.
pub fn explain() -> String {
    let mut text = format!(
        "fusion: {} (CUPRITE_FUSION=1 or cp::fusion::set_enabled(true) turns it on)\n",
        if enabled() { "on" } else { "off" }
    );
    for s in existing_sessions() {
        let f = &s.batch.fusion;
        let st = snapshot(f);
        let _ = writeln!(
            text,
            "cuda:{}: {} fused batches and {} fused reductions of {} operations, {} kernels \
             compiled ({:.1} ms, slowest {:.1} ms), {} cache hits, {} results not written \
             ({} bytes)",
            s.info.ordinal,
            st.batches,
            st.fused_reductions,
            st.operations,
            st.kernels_compiled,
            st.compile_micros as f64 / 1e3,
            st.slowest_compile_micros as f64 / 1e3,
            st.cache_hits,
            st.stores_skipped,
            st.bytes_not_written
        );
        for e in f.explained.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            text.push_str(&e.render());
        }
    }
    text
}

/// One line for `%gpu`.
pub(crate) fn report() -> String {
    let mut text = format!(
        "  fusion: {}",
        if enabled() {
            "on"
        } else {
            "off (CUPRITE_FUSION=1 turns it on)"
        }
    );
    for s in existing_sessions() {
        let st = snapshot(&s.batch.fusion);
        if st.batches > 0 || st.fused_reductions > 0 {
            let _ = write!(
                text,
                "\n    cuda:{}: {} fused batches, {} fused reductions, {} kernels compiled, {} cache hits, {} bytes not written",
                s.info.ordinal, st.batches, st.fused_reductions, st.kernels_compiled, st.cache_hits, st.bytes_not_written
            );
        }
    }
    text
}

/// What of one operation its fused kernel's code depends on.
type OpShape = (u64, [Option<u8>; 2], [bool; 2], [bool; 2], u8);

/// The key a batch's kernel is cached under: the operations' kernels, the
/// links between them, which inputs are scalars and which strided (with
/// their rank).
pub(crate) fn structure_key(ops: &[FusedOp]) -> u64 {
    let parts: Vec<OpShape> = ops
        .iter()
        .map(|o| (o.kernel.id, o.links, o.scalars, o.strided, o.rank))
        .collect();
    crate::cuda::kernel_gen::helpers::key(("cuprite_fused", parts))
}

/// Whether a batch of `count` operations, all small and in the
/// interpreter's table, with structure `key` should run as a fused kernel:
/// when that structure ran before (so compiling it pays off) and it has
/// several operations.
pub(crate) fn worth_compiling(session: &DeviceSession, key: u64, count: usize) -> bool {
    if count < 2 {
        return false;
    }
    let mut seen = session
        .batch
        .fusion
        .seen
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let count = seen.entry(key).or_insert(0);
    *count += 1;
    *count >= 2
}

/// The per-element code of fused operations: the scalars' loads (once per
/// thread), the registers, the operations in order (reading element `i`)
/// and the words of geometry they read.
struct OpCode {
    support: String,
    scalars: String,
    decls: String,
    body: String,
    geo: usize,
}

/// How one input of a fused operation is read for element `i`.
enum Input {
    /// The register of an earlier operation's result.
    Link(usize),
    /// A scalar loaded once per thread (`s{k}_{j}`).
    Scalar(String),
    /// A load from memory (an expression of `i` and the `x{d}` indices).
    Load(String),
}

/// One fused operation's code for element `i`, in parts, so that a loop can
/// issue several elements' loads before any of their arithmetic.
struct OpParts {
    name: String,
    out_t: &'static str,
    /// Lines computing the element's index along each merged axis
    /// (`x{d}`), for strided reads.
    index: Vec<String>,
    /// Each input's C type and how it is read.
    inputs: Vec<(&'static str, Input)>,
    expr: String,
    /// The asm constraint of a float result (see `write_arithmetic`).
    fence: Option<&'static str>,
}

/// Writes operation `k`'s arithmetic for one element, each line after
/// `indent`: its inputs as `in{j}` (a load given by `load(j, expression)`),
/// its result into `v{k}{at}` (`at` is empty or an element's `[u]`), and
/// the store when its result is written.
fn write_arithmetic(
    body: &mut String,
    k: usize,
    o: &OpParts,
    at: &str,
    indent: &str,
    load: impl Fn(usize, &str) -> String,
) {
    for (j, (t, input)) in o.inputs.iter().enumerate() {
        let value = match input {
            Input::Link(m) => format!("v{m}{at}"),
            Input::Scalar(s) => s.clone(),
            Input::Load(e) => load(j, e),
        };
        let _ = writeln!(body, "{indent}const {t} in{j} = {value};");
    }
    let _ = writeln!(body, "{indent}v{k}{at} = ({});", o.expr);
    // An empty asm the value passes through: the compiler cannot contract
    // this operation's rounding into the next one's (a multiply then an
    // add into one fma), so a fused batch rounds as the operations do
    // launched one by one, bit for bit, wherever a batch happens to end.
    if let Some(c) = o.fence {
        let _ = writeln!(body, "{indent}asm(\"\" : \"{c}\"(v{k}{at}));");
    }
    let out_t = o.out_t;
    let _ = writeln!(
        body,
        "{indent}if (p.ops[{k}].out) (({out_t}*)p.ops[{k}].out)[i] = v{k}{at};"
    );
}

/// The operations' parts, the scalars' loads, the joined support code and
/// the geometry words they read.
fn op_parts(ops: &[FusedOp]) -> (Vec<OpParts>, String, String, usize) {
    let support = super::batch::joined_support(ops.iter().map(|o| &o.kernel));
    let mut scalars = String::new();
    let mut parts = Vec::with_capacity(ops.len());
    // Where the next operation's geometry starts in `p.geo`.
    let mut geo = 0usize;
    for (k, o) in ops.iter().enumerate() {
        let rank = o.rank as usize;
        let mut index = Vec::new();
        if rank > 0 {
            // The element's index along each merged axis (32-bit: n fits).
            index.push("unsigned int q = (unsigned int)i;".to_string());
            for d in (1..rank).rev() {
                index.push(format!(
                    "const unsigned int x{d} = q % (unsigned int)p.geo[{}]; q /= (unsigned int)p.geo[{}];",
                    geo + d,
                    geo + d
                ));
            }
            index.push("const unsigned int x0 = q;".to_string());
        }
        let mut strides_at = geo + rank;
        let mut inputs = Vec::with_capacity(2);
        for (j, &c) in o.kernel.compute.iter().enumerate() {
            let t = ctype(c);
            let word = ["a", "b"][j];
            let input = match (o.links[j], o.scalars[j]) {
                (Some(m), _) => Input::Link(m as usize),
                (None, false) if o.strided[j] => {
                    let offset: Vec<String> = (0..rank)
                        .map(|d| format!("(long long)x{d} * p.geo[{}]", strides_at + d))
                        .collect();
                    strides_at += rank;
                    Input::Load(format!(
                        "((const {t}*)p.ops[{k}].{word})[{}]",
                        offset.join(" + ")
                    ))
                }
                (None, true) => {
                    let _ = writeln!(
                        scalars,
                        "  const {t} s{k}_{j} = batch_value<{t}>(p.ops[{k}].{word});"
                    );
                    Input::Scalar(format!("s{k}_{j}"))
                }
                // Plain loads: an earlier operation may have written here.
                (None, false) => Input::Load(format!("((const {t}*)p.ops[{k}].{word})[i]")),
            };
            inputs.push((t, input));
        }
        let fence = match o.kernel.result {
            DType::Float32 => Some("+f"),
            DType::Float64 => Some("+d"),
            _ => None,
        };
        parts.push(OpParts {
            name: o.kernel.name.to_string(),
            out_t: ctype(o.kernel.result),
            index,
            inputs,
            expr: o.kernel.expr.to_string(),
            fence,
        });
        if rank > 0 {
            geo = strides_at;
        }
    }
    (parts, scalars, support, geo)
}

/// The operations' code for one element `i`, each operation in turn.
fn op_code(ops: &[FusedOp]) -> OpCode {
    let (parts, scalars, support, geo) = op_parts(ops);
    let mut decls = String::new();
    let mut body = String::new();
    for (k, o) in parts.iter().enumerate() {
        let out_t = o.out_t;
        let _ = writeln!(decls, "    {out_t} v{k};");
        let _ = writeln!(body, "    if (i < p.ops[{k}].n) {{ // {}", o.name);
        for line in &o.index {
            let _ = writeln!(body, "      {line}");
        }
        write_arithmetic(&mut body, k, o, "", "      ", |_, e| e.to_string());
        let _ = writeln!(body, "    }}");
    }
    OpCode {
        support,
        scalars,
        decls,
        body,
        geo,
    }
}

/// Elements a thread of a fused batch takes per turn of its loop, for a
/// batch of `count` operations: several elements' loads are in flight at
/// once (one load at a time leaves HBM waiting on latency), fewer for long
/// batches, whose registers grow with it.
fn elements_per_thread(count: usize) -> usize {
    match count {
        0..=8 => 4,
        9..=16 => 2,
        _ => 1,
    }
}

/// The operations' code for `lanes` elements of a thread (`base + u *
/// blockDim.x`, coalesced for each `u`): for each operation in turn, every
/// element's loads, then every element's arithmetic and store. An
/// operation's loads of element `u` still follow every earlier operation's
/// store of element `u` (a batch's elements never share memory otherwise:
/// a strided read overlapping a pending write launches the batch first).
fn unrolled_body(parts: &[OpParts], lanes: usize) -> (String, String) {
    let mut decls = String::new();
    let mut body = String::new();
    let element =
        "        const unsigned long long i = base + (unsigned long long)u * blockDim.x;\n";
    for (k, o) in parts.iter().enumerate() {
        let out_t = o.out_t;
        let _ = writeln!(decls, "    {out_t} v{k}[{lanes}];");
        let _ = writeln!(body, "    {{ // {}", o.name);
        let loads: Vec<(usize, &str, &str)> = o
            .inputs
            .iter()
            .enumerate()
            .filter_map(|(j, (t, input))| match input {
                Input::Load(e) => Some((j, *t, e.as_str())),
                _ => None,
            })
            .collect();
        if !loads.is_empty() {
            for (j, t, _) in &loads {
                let _ = writeln!(body, "      {t} l{j}[{lanes}];");
            }
            let _ = writeln!(
                body,
                "      #pragma unroll\n      for (int u = 0; u < {lanes}; ++u) {{\n{element}        if (i < p.ops[{k}].n) {{"
            );
            for line in &o.index {
                let _ = writeln!(body, "          {line}");
            }
            for (j, _, e) in &loads {
                let _ = writeln!(body, "          l{j}[u] = {e};");
            }
            let _ = writeln!(body, "        }}\n      }}");
        }
        let _ = writeln!(
            body,
            "      #pragma unroll\n      for (int u = 0; u < {lanes}; ++u) {{\n{element}        if (i < p.ops[{k}].n) {{"
        );
        write_arithmetic(&mut body, k, o, "[u]", "          ", |j, _| {
            format!("l{j}[u]")
        });
        let _ = writeln!(body, "        }}\n      }}\n    }}");
    }
    (decls, body)
}

/// The parameter structs of fused code over `count` operations and `geo`
/// words of geometry, and the reader of scalars in descriptor words.
fn param_structs(count: usize, geo: usize) -> String {
    let geo_field = if geo > 0 {
        format!(" long long geo[{geo}];")
    } else {
        String::new()
    };
    format!(
        "struct FusedOp {{ unsigned int code; unsigned int n; unsigned long long a; unsigned long long b; unsigned long long out; }};\n\
         struct FusedParams {{ unsigned long long max_n; FusedOp ops[{count}];{geo_field} }};\n\
         template <class T> __device__ __forceinline__ T batch_value(unsigned long long v) {{\n\
         \x20 union {{ unsigned long long u; T t; }} x; x.u = v; return x.t;\n}}\n"
    )
}

/// The generated kernel of a batch: one loop over elements, every
/// operation in program order inside it, several elements per turn
/// ([`elements_per_thread`]; the launch's grid, `grid_for`, assumes 4).
pub(crate) fn source(ops: &[FusedOp]) -> String {
    let (parts, scalars, support, geo) = op_parts(ops);
    let lanes = elements_per_thread(ops.len());
    let (decls, body) = unrolled_body(&parts, lanes);
    let structs = param_structs(ops.len(), geo);
    let mut src = String::new();
    let _ = write!(
        src,
        "{PRELUDE}\n{support}\n{structs}\
         extern \"C\" __global__ void __launch_bounds__({THREADS})\n\
         cuprite_fused(const __grid_constant__ FusedParams p) {{\n\
         {scalars}\
         \x20 const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x * {lanes};\n\
         \x20 for (unsigned long long base = (unsigned long long)blockIdx.x * blockDim.x * {lanes} + threadIdx.x; base < p.max_n; base += stride) {{\n\
         {decls}{body}  }}\n}}\n"
    );
    src
}

/// The chain a deferred reduction reads its input through (after the
/// reduction kernel's header, which has the prelude and `in_t`):
/// `chain_at(p, i)` runs the chain's operations in order for element `i`
/// of its last operation's result, writes the results an array still
/// holds, and returns the last one. All operations cover the same
/// elements (they are linked through registers).
pub(crate) fn chain_source(ops: &[FusedOp]) -> String {
    let OpCode {
        support,
        scalars,
        decls,
        body,
        geo,
    } = op_code(ops);
    let structs = param_structs(ops.len(), geo);
    let last = ops.len() - 1;
    format!(
        "{support}\n{structs}\
         // The fused operations the reduction reads through (cuda/fusion.rs).\n\
         __device__ __forceinline__ in_t chain_at(const FusedParams& p, long long at) {{\n\
         \x20 const unsigned long long i = (unsigned long long)at;\n\
         {scalars}{decls}{body}  return v{last};\n}}\n"
    )
}

/// Geometry words of `o`'s strided reads in the batch's `geo` (its merged
/// shape, then each strided input's strides).
pub(crate) fn geo_words(o: &FusedOp) -> usize {
    let rank = o.rank as usize;
    if rank == 0 {
        0
    } else {
        rank * (1 + o.strided.iter().filter(|&&s| s).count())
    }
}

/// The bytes of a `FusedParams` for `descs` (with `ops` beside them): the
/// output of a result no array holds is left null, so it is not written.
/// Also which results are written, and the count and bytes of those not.
fn param_bytes(
    descs: &[super::batch::OpDesc],
    ops: &[FusedOp],
    geo: &[i64],
    max_n: u32,
) -> (Vec<u8>, Vec<bool>, u64, u64) {
    let mut bytes: Vec<u8> = Vec::with_capacity(8 + descs.len() * 32 + geo.len() * 8);
    bytes.extend_from_slice(&(max_n as u64).to_le_bytes());
    let (mut skipped, mut saved) = (0u64, 0u64);
    let mut written = Vec::with_capacity(ops.len());
    for (d, o) in descs.iter().zip(ops) {
        let held = o.keep || o.out.as_ref().is_none_or(|w| w.strong_count() > 0);
        let mut d = *d;
        if !held {
            d.out = 0;
            skipped += 1;
            saved += d.n as u64 * o.kernel.result.itemsize() as u64;
        }
        written.push(held);
        bytes.extend_from_slice(&d.to_le_bytes());
    }
    for g in geo {
        bytes.extend_from_slice(&g.to_le_bytes());
    }
    (bytes, written, skipped, saved)
}

/// Launches the batch `descs` (with `ops` beside them) as its fused kernel
/// on `stream`, compiling it on first use; results nothing holds are not
/// written. The caller has the session's context current.
pub(crate) fn launch(
    session: &DeviceSession,
    stream: sys::CUstream,
    descs: &[super::batch::OpDesc],
    ops: Vec<FusedOp>,
    geo: &[i64],
    max_n: u32,
    key: u64,
) -> Result<()> {
    let f = &session.batch.fusion;
    let cached = session.kernels.has_specialized(key);
    let started = std::time::Instant::now();
    let func =
        session
            .kernels
            .specialized(session, key, "fused elementwise", "cuprite_fused", || {
                source(&ops)
            })?;
    if cached {
        f.cache_hits.fetch_add(1, Ordering::Relaxed);
    } else {
        f.compiled.fetch_add(1, Ordering::Relaxed);
        let micros = started.elapsed().as_micros() as u64;
        f.compile_micros.fetch_add(micros, Ordering::Relaxed);
        f.slowest_compile_micros
            .fetch_max(micros, Ordering::Relaxed);
    }
    let (mut bytes, written, skipped, saved) = param_bytes(descs, &ops, geo, max_n);
    f.batches.fetch_add(1, Ordering::Relaxed);
    f.operations.fetch_add(ops.len() as u64, Ordering::Relaxed);
    f.stores_skipped.fetch_add(skipped, Ordering::Relaxed);
    f.bytes_not_written.fetch_add(saved, Ordering::Relaxed);
    let names: Vec<&str> = ops.iter().map(|o| &*o.kernel.name).collect();
    let names = names.join(", ");
    if let Ok(mut last) = session.last_kernel.lock() {
        last.clear();
        let _ = write!(last, "cuprite_fused ({names})");
    }
    let cfg = crate::cuda::kernel_gen::elementwise::grid_for(session, max_n as usize);
    // One parameter whose bytes are the kernel's `FusedParams` (max_n then
    // `count` 32-byte descriptors).
    let param = bytes.as_mut_ptr() as *mut std::ffi::c_void;
    super::batch::launch_one_param(func, cfg.grid.0, stream, param).map_err(|e| {
        super::driver_error(
            format!("launching fused elementwise operations ({names})"),
            e,
        )
    })?;
    remember(
        session,
        Explained {
            ops,
            written,
            cached,
            reduction: None,
        },
    );
    Ok(())
}

/// Parameter bytes a reduction's chain may take: the reduction kernel's
/// other parameters (pointers, its geometry) share the 4 KiB every driver
/// accepts.
const MAX_CHAIN_PARAM: usize = 2048;

/// With fusion on, defers the reduction of `x` over `axes` into `out`
/// behind the pending operations that compute `x`, when `x` is the
/// C-contiguous result of the newest pending operation of the current
/// stream: its kernel reads the chain's inputs and computes the chain per
/// element instead of reading `x` (`x` and the chain's intermediates are
/// written only when an array still holds them when the batch runs).
/// Returns false when the reduction must run by itself.
pub(crate) fn defer_reduction(
    session: &DeviceSession,
    spec: &crate::cuda::kernel_gen::reduce::ReduceSpec,
    x: crate::core::view::View<'_>,
    axes: &[usize],
    out: crate::core::view::View<'_>,
) -> Result<bool> {
    use crate::cuda::kernel_gen::reduce::{prepare, Chain};
    let n = x.size();
    if !reductions_enabled() || n == 0 || n > u32::MAX as usize {
        return Ok(false);
    }
    let ptr = crate::cuda::kernel_gen::helpers::ptr("reduce", x)?;
    let item = x.dtype().itemsize() as i64;
    let (lo, hi) = x
        .shape()
        .iter()
        .zip(x.strides())
        .fold((0i64, 0i64), |(lo, hi), (&d, &st)| {
            let far = st as i64 * (d as i64 - 1);
            (lo + far.min(0), hi + far.max(0))
        });
    let input = super::batch::ReduceInput {
        ptr,
        n,
        dtype: x.dtype(),
        contiguous: x.is_c_contiguous(),
        span: (
            ptr.wrapping_add_signed(lo * item),
            ptr.wrapping_add_signed((hi + 1) * item),
        ),
    };
    let first = crate::cuda::kernel_gen::helpers::ptr("reduce", out)?;
    let end = first + (out.size() * out.dtype().itemsize()) as u64;
    let Some(found) = super::batch::pending_chain(session, &input, (first, end)) else {
        return Ok(false);
    };
    let chain = (!found.ops.is_empty()).then(|| Chain {
        source: chain_source(&found.ops),
        key: structure_key(&found.ops),
        param_len: 8 + 32 * found.ops.len() + 8 * found.geo_len,
    });
    match &chain {
        Some(c) => {
            if c.param_len > MAX_CHAIN_PARAM {
                return Ok(false);
            }
            // A small reduction is launch-bound: compiling a kernel for a
            // chain pays off only when the same structure comes again (as
            // for a batch of small operations, `worth_compiling`).
            let reduce_key = crate::cuda::kernel_gen::helpers::key((
                "chained reduce",
                c.key,
                spec.name,
                x.dtype(),
            ));
            if n <= super::batch::MAX_ELEMENTS && !worth_compiling(session, reduce_key, 2) {
                return Ok(false);
            }
        }
        // Reading memory, deferred only so the pending operations stay
        // pending behind it (their temporaries may still be dropped, their
        // results read through registers); a small one launches now.
        None if n <= super::batch::MAX_ELEMENTS => return Ok(false),
        None => {}
    }
    let started = std::time::Instant::now();
    let Some(prepared) = prepare(session, spec, x, axes, out, chain.as_ref())? else {
        return Ok(false);
    };
    let cached = prepared.cached;
    let f = &session.batch.fusion;
    if chain.is_none() {
        // Nothing generated for fusion: the reduction's own kernel.
    } else if cached {
        f.cache_hits.fetch_add(1, Ordering::Relaxed);
    } else {
        f.compiled.fetch_add(1, Ordering::Relaxed);
        let micros = started.elapsed().as_micros() as u64;
        f.compile_micros.fetch_add(micros, Ordering::Relaxed);
        f.slowest_compile_micros
            .fetch_max(micros, Ordering::Relaxed);
    }
    super::batch::close_with_reduction(session, found, prepared, cached)
}

/// Launches a deferred reduction (`prepared`) reading the chain `descs`
/// (with `ops` beside them) on `stream`; results of the chain nothing
/// holds are not written. The caller has the session's context current.
pub(crate) fn launch_reduction(
    session: &DeviceSession,
    stream: sys::CUstream,
    descs: &[super::batch::OpDesc],
    ops: Vec<FusedOp>,
    geo: &[i64],
    mut prepared: crate::cuda::kernel_gen::reduce::Prepared,
    cached: bool,
) -> Result<()> {
    if ops.is_empty() {
        // A reduction of memory, deferred behind other operations.
        return crate::cuda::runtime::launch::launch_on(
            session,
            prepared.name,
            prepared.func,
            prepared.cfg,
            stream,
            &mut prepared.args,
        );
    }
    let n = descs.iter().map(|d| d.n).max().unwrap_or(0);
    let (bytes, written, skipped, saved) = param_bytes(descs, &ops, geo, n);
    prepared.args.patch_last(&bytes);
    let f = &session.batch.fusion;
    f.reductions.fetch_add(1, Ordering::Relaxed);
    f.operations.fetch_add(ops.len() as u64, Ordering::Relaxed);
    f.stores_skipped.fetch_add(skipped, Ordering::Relaxed);
    f.bytes_not_written.fetch_add(saved, Ordering::Relaxed);
    let names: Vec<&str> = ops.iter().map(|o| &*o.kernel.name).collect();
    let label = format!("{} of fused ({})", prepared.name, names.join(", "));
    crate::cuda::runtime::launch::launch_on(
        session,
        &label,
        prepared.func,
        prepared.cfg,
        stream,
        &mut prepared.args,
    )?;
    drop(prepared.partial.take());
    remember(
        session,
        Explained {
            ops,
            written,
            cached,
            reduction: Some((prepared.name, prepared.strategy)),
        },
    );
    Ok(())
}

/// Whether a batch of `ops` is one operation over contiguous memory, which
/// [`launch_single`] runs.
pub(crate) fn is_single(ops: &[FusedOp]) -> bool {
    matches!(ops, [op] if !op.strided.contains(&true))
}

/// Runs a batch of one contiguous operation (`desc`, `op`) with the
/// operation's own specialised kernel, the one a direct launch uses:
/// nothing is fused, and that kernel (restricted pointers, 32-bit indices)
/// is faster than the generic fused loop. Its result is not computed when
/// nothing holds it. The caller has the session's context current.
pub(crate) fn launch_single(
    session: &DeviceSession,
    stream: sys::CUstream,
    desc: &super::batch::OpDesc,
    op: &FusedOp,
) -> Result<()> {
    use crate::cuda::kernel_gen::elementwise::{contiguous_kernel, grid_for, Read};
    if !op.keep && op.out.as_ref().is_some_and(|w| w.strong_count() == 0) {
        let f = &session.batch.fusion;
        f.stores_skipped.fetch_add(1, Ordering::Relaxed);
        f.bytes_not_written.fetch_add(
            desc.n as u64 * op.kernel.result.itemsize() as u64,
            Ordering::Relaxed,
        );
        return Ok(());
    }
    let k = &op.kernel;
    let mut kinds: smallvec::SmallVec<[(crate::DType, Read); 3]> = smallvec::SmallVec::new();
    let mut args = crate::cuda::runtime::launch::KernelArgs::new();
    for (j, (&dt, word)) in k.compute.iter().zip([desc.a, desc.b]).enumerate() {
        if op.scalars[j] {
            // The scalar's bytes are the low bytes of its descriptor word.
            kinds.push((dt, Read::Value));
            let size = dt.itemsize();
            args.push_bytes(&word.to_le_bytes()[..size], size);
        } else {
            kinds.push((dt, Read::Each));
            args.push(word);
        }
    }
    kinds.push((k.result, Read::Each));
    args.push(desc.out).push(desc.n as i64);
    let n = desc.n as usize;
    let func = contiguous_kernel(k, session, &kinds, n)?;
    crate::cuda::runtime::launch::launch_on(
        session,
        &k.name,
        func,
        grid_for(session, n),
        stream,
        &mut args,
    )
}

/// A batch as [`explain`] shows it, kept as it ran (rendered only when
/// asked, so a launch pays for no text).
pub(crate) struct Explained {
    ops: Vec<FusedOp>,
    written: Vec<bool>,
    cached: bool,
    /// A reduction that read the operations (its name and strategy).
    reduction: Option<(&'static str, &'static str)>,
}

impl Explained {
    fn render(&self) -> String {
        let cache = if self.cached {
            "kernel found in the cache"
        } else {
            "kernel compiled"
        };
        let mut text = match self.reduction {
            Some((name, strategy)) => format!(
                "  reduction `{name}` ({strategy}) reading {} fused operations, one kernel ({cache}):\n",
                self.ops.len()
            ),
            None => format!("  batch of {} operations ({cache}):\n", self.ops.len()),
        };
        for (k, (o, w)) in self.ops.iter().zip(&self.written).enumerate() {
            let inputs: Vec<String> = (0..o.kernel.compute.len())
                .map(|j| match (o.links[j], o.scalars[j]) {
                    (Some(m), _) => format!("#{m}"),
                    (None, true) => "scalar".into(),
                    (None, false) => "memory".into(),
                })
                .collect();
            let _ = writeln!(
                text,
                "    #{k} {}({}) -> {}{}",
                o.kernel.name,
                inputs.join(", "),
                o.kernel.result.name(),
                if *w {
                    ", written"
                } else {
                    ", not written (no array holds it)"
                }
            );
        }
        let src = match self.reduction {
            Some(_) => {
                text.push_str("  the chain its loads run (`chain_at`):\n");
                chain_source(&self.ops)
            }
            None => {
                text.push_str("  its kernel:\n");
                source(&self.ops)
            }
        };
        for line in src.lines().skip_while(|l| !l.starts_with("struct FusedOp")) {
            let _ = writeln!(text, "    {line}");
        }
        text
    }
}

/// Keeps the batch for [`explain`].
fn remember(session: &DeviceSession, e: Explained) {
    let mut kept = session
        .batch
        .fusion
        .explained
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if kept.len() == EXPLAINED {
        kept.pop_front();
    }
    kept.push_back(e);
}

/// Whether a fused kernel can take `k`: its inputs and result are dtypes
/// whose values travel in one 64-bit descriptor word and live in a plain C
/// register (no complex or half types, whose C types have constructors).
pub(crate) fn fusable(k: &MapKernel) -> bool {
    use crate::core::dtype::DType::*;
    k.compute.len() <= 2
        && k.compute.iter().chain(std::iter::once(&k.result)).all(|d| {
            matches!(
                d,
                Bool | Int8
                    | Int16
                    | Int32
                    | Int64
                    | UInt8
                    | UInt16
                    | UInt32
                    | UInt64
                    | Float32
                    | Float64
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::dtype::DType;
    use crate::cuda::kernel_gen::elementwise::ufunc_kernel;
    use crate::ops::ufunc::Ufunc;

    fn kernel(name: &str, dt: DType) -> MapKernel {
        let op = Ufunc::all()
            .find(|u| u.name() == name)
            .expect("a ufunc of that name");
        (*ufunc_kernel(op, dt).expect("a loop for the dtype")).clone()
    }

    fn op(name: &str, links: [Option<u8>; 2], scalars: [bool; 2]) -> FusedOp {
        FusedOp {
            kernel: kernel(name, DType::Float32),
            links,
            scalars,
            strided: [false; 2],
            rank: 0,
            out: None,
            keep: false,
        }
    }

    /// tanh(sin(x) + x * 0.1): sin(x), x * 0.1, #0 + #1, tanh(#2).
    fn tanh_sin() -> Vec<FusedOp> {
        vec![
            op("sin", [None, None], [false, false]),
            op("multiply", [None, None], [false, true]),
            op("add", [Some(0), Some(1)], [false, false]),
            op("tanh", [Some(2), None], [false, false]),
        ]
    }

    #[test]
    fn a_chain_reads_its_intermediates_from_registers_and_compiles() {
        let src = source(&tanh_sin());
        assert!(src.contains("const float in0 = v0[u];"), "{src}");
        assert!(src.contains("const float in1 = v1[u];"), "{src}");
        assert!(src.contains("const float in0 = v2[u];"), "{src}");
        // x is read from memory by the first two operations only, four
        // elements' loads before their arithmetic.
        assert_eq!(src.matches("(const float*)p.ops[").count(), 2, "{src}");
        assert!(src.contains("float l0[4];"), "{src}");
        let load = src
            .find("l0[u] = ((const float*)p.ops[0].a)[i];")
            .expect(&src);
        assert!(load < src.find("v0[u] = (").expect(&src), "{src}");
        // A reduction's chain reads one element at a time.
        let chain = chain_source(&tanh_sin());
        assert!(chain.contains("const float in0 = v2;"), "{chain}");
        assert!(src.contains("batch_value<float>(p.ops[1].b)"), "{src}");
        assert!(src.contains("FusedOp ops[4]"), "{src}");
        assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
        if let Err(log) = crate::cuda::runtime::compile::check_compiles("cuprite_fused", &src) {
            panic!("{log}\n{src}");
        }
    }

    #[test]
    fn long_batches_take_fewer_elements_per_thread_and_compile() {
        for count in [9usize, 17] {
            let mut ops = vec![op("sin", [None, None], [false, false])];
            for k in 1..count {
                ops.push(op("add", [Some(k as u8 - 1), None], [false, false]));
            }
            let src = source(&ops);
            let lanes = elements_per_thread(count);
            assert!(lanes < 4);
            assert!(src.contains(&format!("float v0[{lanes}];")), "{src}");
            if let Err(log) = crate::cuda::runtime::compile::check_compiles("cuprite_fused", &src) {
                panic!("{log}\n{src}");
            }
        }
    }

    /// The 5-point stencil's first two additions, on slices of one grid:
    /// `u[:-2, 1:-1] + u[2:, 1:-1]`, then `+ u[1:-1, :-2]` and a
    /// broadcast row `- m[None, :]`.
    #[test]
    fn strided_inputs_read_through_their_geometry_and_compile() {
        let mut ops = vec![
            op("add", [None, None], [false, false]),
            op("add", [Some(0), None], [false, false]),
            op("subtract", [Some(1), None], [false, false]),
        ];
        ops[0].strided = [true, true];
        ops[0].rank = 2;
        ops[1].strided = [false, true];
        ops[1].rank = 2;
        ops[2].strided = [false, true];
        ops[2].rank = 2;
        let read = |strides: [i64; 2]| StridedRead {
            dims: smallvec::smallvec![6, 6],
            strides: smallvec::SmallVec::from_slice(&strides),
        };
        let mut geo = Vec::new();
        let (a, b) = (read([8, 1]), read([8, 1]));
        assert_eq!(push_geometry(&mut geo, &[Some(&a), Some(&b)]), 2);
        assert_eq!(push_geometry(&mut geo, &[None, Some(&a)]), 2);
        let row = read([0, 1]);
        assert_eq!(push_geometry(&mut geo, &[None, Some(&row)]), 2);
        assert_eq!(geo.len(), 6 + 4 + 4);
        assert_eq!(&geo[..6], &[6, 6, 8, 1, 8, 1]);
        let src = source(&ops);
        assert!(src.contains("long long geo[14];"), "{src}");
        // Op 0's inputs use strides at 2..4 and 4..6, op 1's at 8..10.
        assert!(src.contains("(long long)x1 * p.geo[5]"), "{src}");
        assert!(src.contains("(long long)x0 * p.geo[8]"), "{src}");
        assert!(src.contains("q % (unsigned int)p.geo[11]"), "{src}");
        assert!(src.contains("(long long)x1 * p.geo[13]"), "{src}");
        if let Err(log) = crate::cuda::runtime::compile::check_compiles("cuprite_fused", &src) {
            panic!("{log}\n{src}");
        }
        // Strided and contiguous reads of the same operations differ.
        assert_ne!(structure_key(&ops), structure_key(&tanh_sin()));
        assert_eq!(row.span(), (0, 5));
        assert_eq!(read([-8, 1]).span(), (-40, 5));
    }

    #[test]
    fn mixed_dtypes_and_comparisons_compile() {
        let ops = vec![
            FusedOp {
                kernel: kernel("greater", DType::Float64),
                links: [None, None],
                scalars: [false, true],
                strided: [false; 2],
                rank: 0,
                out: None,
                keep: false,
            },
            FusedOp {
                kernel: kernel("logical_and", DType::Bool),
                links: [Some(0), None],
                scalars: [false, false],
                strided: [false; 2],
                rank: 0,
                out: None,
                keep: true,
            },
            FusedOp {
                kernel: kernel("add", DType::Int64),
                links: [None, None],
                scalars: [false, true],
                strided: [false; 2],
                rank: 0,
                out: None,
                keep: false,
            },
        ];
        let src = source(&ops);
        if let Err(log) = crate::cuda::runtime::compile::check_compiles("cuprite_fused", &src) {
            panic!("{log}\n{src}");
        }
    }

    #[test]
    fn complex_and_half_kernels_launch_by_themselves() {
        assert!(fusable(&kernel("add", DType::Float64)));
        assert!(fusable(&kernel("greater", DType::Int8)));
        let made = |dt: DType| {
            MapKernel::new(
                "add".into(),
                vec![dt, dt],
                "in0 + in1".into(),
                dt,
                String::new(),
            )
        };
        assert!(!fusable(&made(DType::Complex64)));
        assert!(!fusable(&made(DType::Float16)));
        assert!(fusable(&made(DType::UInt16)));
    }

    #[test]
    fn the_cache_key_is_the_structure() {
        let a = tanh_sin();
        let mut b = tanh_sin();
        assert_eq!(structure_key(&a), structure_key(&b));
        // The same operations with x * 0.1 read from memory instead.
        b[2].links[1] = None;
        assert_ne!(structure_key(&a), structure_key(&b));
        let mut c = tanh_sin();
        c[1].scalars[1] = false;
        assert_ne!(structure_key(&a), structure_key(&c));
        // Whether a result is kept is decided at launch, not compiled in.
        let mut d = tanh_sin();
        d[0].keep = true;
        assert_eq!(structure_key(&a), structure_key(&d));
    }

    /// A chain ending in `dt`'s `last` op over `x` (and a scalar): `sin`
    /// or `x * s`, then `last(#0, x)` for a binary `last`.
    fn chain_into(dt: DType, first: &str, last: &str) -> Vec<FusedOp> {
        vec![
            op_of(first, dt, [None, None], [false, true]),
            op_of(last, dt, [Some(0), None], [false, false]),
        ]
    }

    fn op_of(name: &str, dt: DType, links: [Option<u8>; 2], scalars: [bool; 2]) -> FusedOp {
        FusedOp {
            kernel: kernel(name, dt),
            ..op("add", links, scalars)
        }
    }

    /// Every reduction of the table over a fused chain, in every strategy,
    /// compiles with NVRTC: float, integer and bool chains, strided inputs,
    /// and a reduction whose own helpers sit beside the chain's.
    #[test]
    fn reductions_read_through_chains_and_compile() {
        use crate::cuda::kernel_gen::reduce::{every_strategy, table_spec, Chain};
        let mut cases: Vec<(&str, Vec<FusedOp>, DType)> = Vec::new();
        for name in ["sum", "prod", "mean", "max", "min", "nansum", "nanmax"] {
            cases.push((name, tanh_sin(), DType::Float32));
        }
        cases.push((
            "sum",
            chain_into(DType::Float64, "multiply", "subtract"),
            DType::Float64,
        ));
        cases.push((
            "nanmin",
            chain_into(DType::Float64, "multiply", "add"),
            DType::Float64,
        ));
        cases.push((
            "sum",
            chain_into(DType::Int32, "multiply", "add"),
            DType::Int32,
        ));
        cases.push((
            "max",
            chain_into(DType::Int64, "multiply", "subtract"),
            DType::Int64,
        ));
        cases.push((
            "prod",
            chain_into(DType::UInt8, "multiply", "add"),
            DType::UInt8,
        ));
        // x > s, then a logical and with another bool array: any, all, sum.
        let cmp = vec![
            op_of("greater", DType::Float32, [None, None], [false, true]),
            op_of("logical_and", DType::Bool, [Some(0), None], [false, false]),
        ];
        for name in ["any", "all", "sum"] {
            cases.push((name, cmp.clone(), DType::Bool));
        }
        // A broadcast subtract (strided, rank 3) then a square.
        let mut sq = vec![
            op("subtract", [None, None], [false, false]),
            op("square", [Some(0), None], [false, false]),
        ];
        sq[0].strided = [true, true];
        sq[0].rank = 3;
        cases.push(("sum", sq, DType::Float32));
        for (name, ops, dt) in cases {
            assert_eq!(ops.last().unwrap().kernel.result, dt, "{name}");
            let chain = Chain {
                source: chain_source(&ops),
                key: structure_key(&ops),
                param_len: 0,
            };
            assert!(chain.source.contains("chain_at"), "{}", chain.source);
            for (what, src) in every_strategy(&table_spec(name, dt), dt, Some(&chain)) {
                assert_eq!(
                    crate::cuda::kernel_gen::template::unfilled(&src),
                    None,
                    "{src}"
                );
                assert!(src.contains("chain_at(cp, (off))"), "{src}");
                assert!(
                    src.contains("const __grid_constant__ FusedParams cp"),
                    "{src}"
                );
                let label = format!("chained_{what}_{name}_{}", dt.name());
                if let Err(log) = crate::cuda::runtime::compile::check_compiles(&label, &src) {
                    panic!("{log}\n{src}");
                }
            }
        }
        // Plain kernels read memory through LOAD and take no chain.
        for (_, src) in every_strategy(&table_spec("sum", DType::Float32), DType::Float32, None) {
            assert!(src.contains("#define LOAD(off) (x[off])"), "{src}");
            assert!(!src.contains("FusedParams"), "{src}");
        }
    }

    #[test]
    fn chain_geometry_words_match_what_the_batch_pushes() {
        let read = StridedRead {
            dims: smallvec::smallvec![4, 5, 6],
            strides: smallvec::smallvec![0, 6, 1],
        };
        let mut geo = Vec::new();
        let rank = push_geometry(&mut geo, &[Some(&read), None]);
        let mut o = op("subtract", [None, None], [false, false]);
        o.strided = [true, false];
        o.rank = rank;
        assert_eq!(geo_words(&o), geo.len());
        let mut geo2 = Vec::new();
        o.strided = [true, true];
        push_geometry(&mut geo2, &[Some(&read), Some(&read)]);
        assert_eq!(geo_words(&o), geo2.len());
        assert_eq!(geo_words(&tanh_sin()[0]), 0);
    }

    #[test]
    fn descriptors_are_laid_out_as_the_kernel_reads_them() {
        let d = crate::cuda::batch::OpDesc {
            code: 0x0102_0304,
            n: 7,
            a: 0x1111_2222_3333_4444,
            b: 5,
            out: 0xdead_beef,
        };
        // SAFETY: OpDesc is repr(C) plain data of 32 bytes.
        let raw: [u8; 32] = unsafe { std::mem::transmute(d) };
        assert_eq!(d.to_le_bytes(), raw);
    }
}
