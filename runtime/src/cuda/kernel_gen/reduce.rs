//! Generated reduction kernels: any associative combine over any set of
//! axes, with a strategy per layout.
//!
//! The input is seen as (kept axes) x (reduced axes). When the reduced axes
//! merge into one contiguous run (full reductions, `axis=-1`), each output
//! row is reduced by one or more blocks with all threads reading
//! consecutive elements; when the kept axes merge into one contiguous run
//! (`axis=0` of a C array), threads of a warp read neighbouring columns so
//! every load is coalesced. Rows or columns too few to fill the device are
//! split across blocks and finished by a second, small pass. Rows of at
//! most [`SHORT_ROW`] elements (a sum over 3 coordinates) are folded by one
//! thread each. Other layouts use the row kernel with strided addressing.
//! With fusion on, any strategy may read its input through a chain of
//! pending elementwise operations ([`Chain`], `cuda/fusion.rs`).
//!
//! User reductions (`ReductionKernel`) are generated here too
//! ([`user_source`], template `reduce_user.cu`).

use super::codegen::{kernel_param, op_param, typedefs, unravel, GenParam, Pass, Src, SIZE_T};
use super::elementwise::MAX_DIMS;
use super::template::{render, render_owned};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::CudaStorage;
use crate::core::view::View;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::{session, DeviceSession};
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::transfer::alloc;
use crate::ops::c_types::{cast_expr, ctype};
use crate::ops::reduce::{Body, CudaHalf, Reduce, ReduceOp};

/// What to compute: `out = post(fold(combine, identity, map(x)))` (a row's
/// CUDA half, or a user `ReductionKernel`).
pub(crate) use crate::ops::reduce::CudaReduce as ReduceSpec;

impl ReduceSpec {
    /// The cache key of this reduction's kernel for `strategy`, input dtype
    /// `in_dt` and whatever else of the layout (`shape`) the source depends on.
    fn kernel_key(&self, strategy: &str, in_dt: DType, shape: impl std::hash::Hash) -> u64 {
        super::helpers::key((
            (strategy, self.name, &self.map, &self.combine, &self.post),
            (
                &self.identity,
                &self.support,
                self.compute,
                self.acc,
                self.result,
            ),
            (in_dt, shape),
        ))
    }
}

struct Plan {
    /// Kept axes merged: shape and input strides.
    kept: (Vec<usize>, Vec<isize>),
    /// Reduced axes merged: shape and input strides.
    red: (Vec<usize>, Vec<isize>),
}

impl Plan {
    /// Whether each row's reduced elements are adjacent in memory (one
    /// reduced axis of stride 1, or none).
    fn rows_contiguous(&self) -> bool {
        self.red.1.len() <= 1 && self.red.1.first().is_none_or(|&st| st == 1)
    }
}

fn merge_group(shape: &[usize], strides: &[isize]) -> (Vec<usize>, Vec<isize>) {
    let l = Layout::from_parts(shape.to_vec(), strides.to_vec(), 0);
    let (s, st) = Layout::merge_axes(&[&l]);
    (s, st.into_iter().next().unwrap_or_default())
}

/// A fused elementwise chain a reduction reads its input through instead
/// of memory (`cuda/fusion.rs`): the chain's operations run per element
/// inside the reduction's loads.
pub(crate) struct Chain {
    /// Defines `struct FusedParams` and `in_t chain_at(const FusedParams&,
    /// long long i)`, element `i` of the reduction's (C-contiguous) input.
    pub source: String,
    /// The chain's structure, part of the kernel's cache key.
    pub key: u64,
    /// Bytes of its parameter (its descriptors and geometry), filled in
    /// when the launch runs.
    pub param_len: usize,
}

/// A reduction launch made ready: its kernel, configuration and arguments
/// (a deferred one gets its chain's parameter patched in when it runs).
pub(crate) struct Prepared {
    pub name: &'static str,
    /// The strategy, for `cp::fusion::explain`.
    pub strategy: &'static str,
    pub func: crate::cuda::runtime::compile::Function,
    pub cfg: LaunchConfig,
    pub args: KernelArgs,
    /// The split rows' partials: must live until the launch.
    pub partial: Option<CudaStorage>,
    /// The kernel was built before (this launch compiled nothing).
    pub cached: bool,
}

/// Reduces `x` over `axes` (normalised, distinct) into `out`, a fresh
/// C-contiguous CUDA buffer holding one element per index of `x`'s kept
/// axes in order. With fusion on, when `x` is the result of the newest
/// pending elementwise operations of the stream, the reduction is deferred
/// behind them and reads them through its loads (`cuda::fusion`).
pub(crate) fn run_reduce(
    spec: &ReduceSpec,
    x: View<'_>,
    axes: &[usize],
    out: View<'_>,
) -> Result<()> {
    let ordinal = match x.device() {
        crate::Device::Cuda(n) => n,
        crate::Device::Cpu => unreachable!("run_reduce is only called for CUDA arrays"),
    };
    let s = session(ordinal)?;
    if crate::cuda::fusion::enabled()
        && crate::cuda::fusion::defer_reduction(s, spec, x, axes, out)?
    {
        return Ok(());
    }
    match prepare(s, spec, x, axes, out, None)? {
        Some(mut p) => launch(s, p.name, p.func, p.cfg, &current_stream(), &mut p.args),
        None => Ok(()),
    }
}

/// The launch of reducing `x` over `axes` into `out` (`run_reduce`), read
/// through `chain` when given; `None` when there is nothing to compute (no
/// output elements).
pub(crate) fn prepare(
    s: &DeviceSession,
    spec: &ReduceSpec,
    x: View<'_>,
    axes: &[usize],
    out: View<'_>,
    chain: Option<&Chain>,
) -> Result<Option<Prepared>> {
    let nd = x.ndim();
    let kept_axes: Vec<usize> = (0..nd).filter(|a| !axes.contains(a)).collect();
    let pick = |ax: &[usize]| -> (Vec<usize>, Vec<isize>) {
        let sh: Vec<usize> = ax.iter().map(|&a| x.shape()[a]).collect();
        let st: Vec<isize> = ax.iter().map(|&a| x.strides()[a]).collect();
        merge_group(&sh, &st)
    };
    let plan = Plan {
        kept: pick(&kept_axes),
        red: pick(axes),
    };
    let rows: usize = plan.kept.0.iter().product();
    let len: usize = plan.red.0.iter().product();
    if rows == 0 {
        return Ok(None);
    }
    if plan.kept.0.len() > MAX_DIMS || plan.red.0.len() > MAX_DIMS {
        return Err(Error::Shape {
            op: spec.name,
            detail: format!("too many dimensions for a GPU reduction (at most {MAX_DIMS})"),
        });
    }
    let kept_contig = plan.kept.1.len() == 1 && plan.kept.1[0] == 1 && plan.red.0.len() == 1;
    let ptr = super::helpers::ptr("reduce", x)?;
    let g = Target {
        s,
        spec,
        ptr,
        in_dt: x.dtype(),
        out,
        chain,
    };
    if kept_contig && !plan.rows_contiguous() {
        columns(&g, rows, len, plan.red.1[0]).map(Some)
    } else if len <= SHORT_ROW {
        short_rows(&g, &plan, rows, len).map(Some)
    } else {
        rows_pass(&g, &plan, rows, len).map(Some)
    }
}

/// What every strategy is given: the device, the reduction, the input
/// (element-0 pointer and dtype), the output and the chain read through.
struct Target<'a, 'b> {
    s: &'a DeviceSession,
    spec: &'a ReduceSpec,
    ptr: u64,
    in_dt: DType,
    out: View<'b>,
    chain: Option<&'a Chain>,
}

impl Target<'_, '_> {
    fn key(&self, strategy: &str, shape: impl std::hash::Hash) -> u64 {
        self.spec
            .kernel_key(strategy, self.in_dt, (shape, self.chain.map(|c| c.key)))
    }

    /// Appends the chain's parameter (zeros until the launch runs).
    fn push_chain(&self, args: &mut KernelArgs) {
        if let Some(c) = self.chain {
            args.push_bytes(&vec![0u8; c.param_len], 8);
        }
    }
}

/// Rows of at most this many elements are folded by one thread each
/// ([`short_rows`]).
pub(crate) const SHORT_ROW: usize = 32;

/// The block-wide combine of `acc` into `sh[0]` (a shared-memory tree,
/// unrolled for `threads`).
fn block_reduce(threads: usize) -> String {
    let mut s = String::from("  sh[tid] = acc; __syncthreads();\n");
    let mut step = threads / 2;
    while step >= 1 {
        s += &format!("  if (tid < {step}) {{ acc_t a = sh[tid], b = sh[tid + {step}]; sh[tid] = COMBINE; }} __syncthreads();\n");
        step /= 2;
    }
    s
}

const HEADER: &str = include_str!("../kernels/reduce_header.cu");
const ROWS: &str = include_str!("../kernels/reduce_rows.cu");
const COLUMNS: &str = include_str!("../kernels/reduce_cols.cu");
const SHORT: &str = include_str!("../kernels/reduce_short.cu");
// The kernels' names in those templates, as launches look them up.
const ROWS_KERNEL: &str = "cuprite_reduce_rows";
const COLS_KERNEL: &str = "cuprite_reduce_cols";
const SHORT_KERNEL: &str = "cuprite_reduce_short";

fn header(spec: &ReduceSpec, in_dt: DType, chain: Option<&Chain>) -> String {
    let (chain_src, load) = match chain {
        Some(c) => (c.source.as_str(), "chain_at(cp, (off))"),
        None => ("", "(x[off])"),
    };
    render(
        HEADER,
        &[
            ("PRELUDE", PRELUDE),
            ("SUPPORT", &spec.support),
            ("ACC_T", ctype(spec.acc)),
            ("IN_T", ctype(in_dt)),
            ("COMBINE", &spec.combine),
            ("COMPUTE_T", ctype(spec.compute)),
            ("CAST_RAW", &cast_expr(in_dt, spec.compute, "raw")),
            ("MAP", &spec.map),
            ("CHAIN", chain_src),
            ("LOAD", load),
        ],
        &[],
    )
}

/// The kernel parameter a chain's values travel in (after the others).
fn chain_param(chain: Option<&Chain>) -> &'static str {
    if chain.is_some() {
        ", const __grid_constant__ FusedParams cp"
    } else {
        ""
    }
}

const ROW_THREADS: usize = 256;

/// The stream's zeroed reduction counters (`n` of them are used; the last
/// block of each group sets its counter back to zero).
/// The arguments both strategies start with: the input pointer, the
/// output, and when rows are split over `splits > 1` blocks, a buffer of
/// `partials` accumulators and the finishing counters of `groups` groups
/// (else nulls). The buffer comes back too: it must live until the launch.
fn first_args(
    s: &DeviceSession,
    spec: &ReduceSpec,
    (input, out): (u64, View<'_>),
    splits: usize,
    partials: usize,
    groups: usize,
) -> Result<(KernelArgs, Option<CudaStorage>)> {
    let mut args = KernelArgs::new();
    args.push(input);
    args.push(super::helpers::ptr("reduce", out)?);
    if splits > 1 {
        let partial = alloc(spec.name, s.info.ordinal, spec.acc, partials)?;
        args.push(partial.buffer.ptr);
        args.push(counters(s, groups)?);
        Ok((args, Some(partial)))
    } else {
        args.push(0u64);
        args.push(0u64);
        Ok((args, None))
    }
}

fn counters(s: &DeviceSession, n: usize) -> Result<u64> {
    debug_assert!(n <= crate::cuda::runtime::session::REDUCE_COUNTERS);
    s.counters(&current_stream())
}

/// The rows' geometry as the row kernels read it (`struct Geo`): kept
/// extents and strides, reduced extents and strides, each padded to at
/// least one axis.
fn row_geometry(plan: &Plan) -> Vec<u8> {
    let mut geo: Vec<i64> = Vec::new();
    let pad = |v: &mut Vec<i64>, xs: Vec<i64>| {
        let n = xs.len().max(1);
        let mut xs = xs;
        xs.resize(n, 1);
        v.extend(xs);
    };
    let (kshape, kstrides) = &plan.kept;
    let (rshape, rstrides) = &plan.red;
    pad(&mut geo, kshape.iter().map(|&d| d as i64).collect());
    pad(&mut geo, kstrides.iter().map(|&d| d as i64).collect());
    pad(&mut geo, rshape.iter().map(|&d| d as i64).collect());
    pad(&mut geo, rstrides.iter().map(|&d| d as i64).collect());
    geo.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

/// Row strategy: grid (row blocks, splits per row). With several splits per
/// row, each block writes a partial and the last block of the row to finish
/// folds the partials and writes the result (one launch).
fn rows_pass(g: &Target<'_, '_>, plan: &Plan, rows: usize, len: usize) -> Result<Prepared> {
    let (s, spec, ptr, in_dt) = (g.s, g.spec, g.ptr, g.in_dt);
    let contiguous_rows = plan.rows_contiguous();
    // Split rows across blocks when there are too few rows to fill the GPU.
    let target_blocks = s.info.sm_count * 8;
    let per_block = ROW_THREADS * 16;
    let splits = if rows >= target_blocks {
        1
    } else {
        (target_blocks / rows)
            .clamp(1, len.div_ceil(per_block).max(1))
            .min(65535)
    };
    let (mut args, partial) = first_args(s, spec, (ptr, g.out), splits, rows * splits, rows)?;
    let (kshape, kstrides) = &plan.kept;
    let rshape = &plan.red.0;
    // 16-byte loads when every row starts on a 16-byte boundary (never
    // through a chain, which computes each element).
    let item = in_dt.itemsize();
    let vec = if contiguous_rows && 16 % item == 0 && item < 16 && g.chain.is_none() {
        let row_aligned = kstrides
            .iter()
            .zip(kshape)
            .all(|(&st, &d)| d == 1 || (st as i64 * item as i64) % 16 == 0);
        if ptr % 16 == 0 && row_aligned {
            16 / item
        } else {
            1
        }
    } else {
        1
    };
    let key = g.key("rows", (kshape.len(), rshape.len(), contiguous_rows, vec));
    let cached = s.kernels.has_specialized(key);
    let f = s.kernels.specialized(s, key, spec.name, ROWS_KERNEL, || {
        rows_source(
            spec,
            in_dt,
            (kshape.len(), rshape.len()),
            contiguous_rows,
            vec,
            g.chain,
        )
    })?;
    args.push_bytes(&row_geometry(plan), 8);
    args.push(rows as i64);
    args.push(len as i64);
    g.push_chain(&mut args);
    let cfg = LaunchConfig {
        grid: (rows.min(1 << 30) as u32, splits as u32, 1),
        block: (ROW_THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    Ok(Prepared {
        name: spec.name,
        strategy: "a block per row",
        func: f,
        cfg,
        args,
        partial,
        cached,
    })
}

fn rows_source(
    spec: &ReduceSpec,
    in_dt: DType,
    (kdims, rdims): (usize, usize),
    contiguous_rows: bool,
    vec: usize,
    chain: Option<&Chain>,
) -> String {
    let walk = match (contiguous_rows, vec > 1) {
        (true, true) => "VEC",
        (true, false) => "CONTIG",
        (false, _) => "STRIDED",
    };
    let mut fills = row_fills(spec, (kdims, rdims), chain);
    fills.extend([
        ("THREADS", ROW_THREADS.to_string()),
        ("VEC", vec.to_string()),
        ("BLOCK_REDUCE", block_reduce(ROW_THREADS)),
    ]);
    header(spec, in_dt, chain) + &render_owned(ROWS, &fills, &[walk])
}

/// The placeholders the row and short-row templates share: the geometry's
/// ranks, the result type, the reduction's identity and post-map, and the
/// chain's parameter.
fn row_fills(
    spec: &ReduceSpec,
    (kdims, rdims): (usize, usize),
    chain: Option<&Chain>,
) -> Vec<(&'static str, String)> {
    vec![
        ("KD", kdims.max(1).to_string()),
        ("RD", rdims.max(1).to_string()),
        ("KDIMS", kdims.to_string()),
        ("RDIMS", rdims.to_string()),
        ("OUT_T", ctype(spec.result).to_string()),
        ("IDENTITY", spec.identity.clone()),
        ("POST", spec.post.clone()),
        ("CHAIN_PARAM", chain_param(chain).to_string()),
    ]
}

/// Short-row strategy: one thread per output row, folding its `len <=`
/// [`SHORT_ROW`] elements in order (a block per row would spend its time
/// in the block-wide combine: 16M rows of 3 took 28 ms on an H200).
fn short_rows(g: &Target<'_, '_>, plan: &Plan, rows: usize, len: usize) -> Result<Prepared> {
    let (s, spec, in_dt) = (g.s, g.spec, g.in_dt);
    let contiguous_rows = plan.rows_contiguous();
    let (mut args, partial) = first_args(s, spec, (g.ptr, g.out), 1, 0, 0)?;
    let (kdims, rdims) = (plan.kept.0.len(), plan.red.0.len());
    let key = g.key("short", (kdims, rdims, contiguous_rows));
    let cached = s.kernels.has_specialized(key);
    let f = s.kernels.specialized(s, key, spec.name, SHORT_KERNEL, || {
        short_source(spec, in_dt, (kdims, rdims), contiguous_rows, g.chain)
    })?;
    args.push_bytes(&row_geometry(plan), 8);
    args.push(rows as i64);
    args.push(len as i64);
    g.push_chain(&mut args);
    let cfg = LaunchConfig {
        grid: (rows.div_ceil(ROW_THREADS).min(1 << 30) as u32, 1, 1),
        block: (ROW_THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    Ok(Prepared {
        name: spec.name,
        strategy: "a thread per short row",
        func: f,
        cfg,
        args,
        partial,
        cached,
    })
}

fn short_source(
    spec: &ReduceSpec,
    in_dt: DType,
    (kdims, rdims): (usize, usize),
    contiguous_rows: bool,
    chain: Option<&Chain>,
) -> String {
    let fills = row_fills(spec, (kdims, rdims), chain);
    let walk = if contiguous_rows { "CONTIG" } else { "STRIDED" };
    header(spec, in_dt, chain) + &render_owned(SHORT, &fills, &[walk])
}

/// Column strategy: `len` rows of `cols` contiguous columns, row stride
/// `row_stride`; blocks of 32 x 8 threads, each thread reading `vec`
/// neighbouring columns with one 16-byte load when alignment allows (one
/// element at a time through a chain). Rows are split across `gridDim.y`
/// blocks; the last block of a column group to finish folds the partials
/// (one launch).
fn columns(g: &Target<'_, '_>, cols: usize, len: usize, row_stride: isize) -> Result<Prepared> {
    let (s, spec, ptr, in_dt) = (g.s, g.spec, g.ptr, g.in_dt);
    let item = in_dt.itemsize();
    let vec = if 16 % item == 0
        && item < 16
        && ptr % 16 == 0
        && cols % (16 / item) == 0
        && (row_stride as i64 * item as i64) % 16 == 0
        && g.chain.is_none()
    {
        16 / item
    } else {
        1
    };
    let cols_per_block = 32 * vec;
    let col_blocks = cols.div_ceil(cols_per_block);
    let target_blocks = s.info.sm_count * 8;
    // At least 64 rows per lane keeps the sequential part short and the
    // partials few (accuracy), while filling the device.
    let splits = target_blocks
        .div_ceil(col_blocks)
        .clamp(1, len.div_ceil(8 * 64).max(1))
        .min(65535);
    let parts = splits * cols;
    let (mut args, partial) = first_args(s, spec, (ptr, g.out), splits, parts, col_blocks)?;
    let key = g.key("cols", vec);
    let cached = s.kernels.has_specialized(key);
    let f = s.kernels.specialized(s, key, spec.name, COLS_KERNEL, || {
        columns_source(spec, in_dt, vec, g.chain)
    })?;
    args.push(cols as i64);
    args.push(len as i64);
    args.push(row_stride as i64);
    g.push_chain(&mut args);
    let cfg = LaunchConfig {
        grid: (col_blocks as u32, splits as u32, 1),
        block: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    Ok(Prepared {
        name: spec.name,
        strategy: "columns",
        func: f,
        cfg,
        args,
        partial,
        cached,
    })
}

fn columns_source(spec: &ReduceSpec, in_dt: DType, vec: usize, chain: Option<&Chain>) -> String {
    let body = render(
        COLUMNS,
        &[
            ("VEC", &vec.to_string()),
            ("VEC_BYTES", &(vec * in_dt.itemsize()).to_string()),
            ("OUT_T", ctype(spec.result)),
            ("SH_COLS", &(32 * vec + 1).to_string()),
            ("IDENTITY", &spec.identity),
            ("POST", &spec.post),
            ("CHAIN_PARAM", chain_param(chain)),
        ],
        &[if chain.is_some() { "CHAINED" } else { "PLAIN" }],
    );
    header(spec, in_dt, chain) + &body
}

/// Where the parts of a user reduction's geometry start: kept extents,
/// kept strides per memory operand (inputs, then the output), reduced
/// extents, reduced strides per input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RedGeo {
    pub kd: usize,
    pub rd: usize,
    pub n_in: usize,
}

impl RedGeo {
    pub fn kshape(&self) -> usize {
        0
    }
    pub fn kst(&self, slot: usize) -> usize {
        self.kd + slot * self.kd
    }
    pub fn rshape(&self) -> usize {
        self.kd + (self.n_in + 1) * self.kd
    }
    pub fn rst(&self, slot: usize) -> usize {
        self.rshape() + self.rd + slot * self.rd
    }
    pub fn len(&self) -> usize {
        self.rst(self.n_in).max(1)
    }
}

/// What a user reduction computes (CuPy's ReductionKernel fields).
pub(crate) struct RedSource<'a> {
    pub name: &'a str,
    pub map_expr: &'a str,
    pub reduce_expr: &'a str,
    pub post_map_expr: &'a str,
    pub identity: &'a str,
    /// The C type of the accumulator.
    pub reduce_type: &'a str,
    pub preamble: &'a str,
    pub placeholders: &'a [(char, DType)],
    /// Inputs (Each or Value) then the one output (Each).
    pub params: &'a [GenParam],
    pub kd: usize,
    pub rd: usize,
    /// Every input is unit-stride (or stride 0) over one merged reduced axis.
    pub red_contiguous: bool,
}

/// Threads per block of the user reduction kernels.
pub(crate) const RED_THREADS: usize = 256;

const USER: &str = include_str!("../kernels/reduce_user.cu");

fn strip_semicolon(s: &str) -> &str {
    s.trim().trim_end_matches(';').trim_end()
}

/// The kernels of a user reduction (`ReductionKernel`): the user's map,
/// reduce and post steps as functions (numbered as the user wrote them in
/// compiler messages), then the template `reduce_user.cu`: `{name}` folds
/// each output row (or a chunk of it, `gridDim.y` chunks per row, writing
/// partials), `{name}_finish` folds the partials and applies `post_map_expr`.
pub(crate) fn user_source(r: &RedSource<'_>) -> String {
    let name = r.name;
    let (ins, out) = r.params.split_at(r.params.len() - 1);
    let out = &out[0];
    let mem: Vec<&GenParam> = ins.iter().filter(|p| p.pass == Pass::Each).collect();
    let values: Vec<&GenParam> = ins.iter().filter(|p| p.pass == Pass::Value).collect();
    let geo = RedGeo {
        kd: r.kd,
        rd: r.rd,
        n_in: mem.len(),
    };
    let mut src = Src::new(&format!("{name}.cu"));
    src.push(PRELUDE);
    src.push(&format!(
        "\n// ReductionKernel `{name}`, generated by cuprite\n"
    ));
    typedefs(&mut src, r.placeholders);
    if !r.preamble.trim().is_empty() {
        src.user("preamble", r.preamble);
    }
    src.push(SIZE_T);
    src.push(&format!("typedef {} _type_reduce;\n", r.reduce_type));
    let sizes = "const _cp_Size& _in_ind, const _cp_Size& _out_ind";
    // map: every input by value.
    let mp: Vec<String> = ins.iter().map(op_param).collect();
    src.push(&format!(
        "__device__ __forceinline__ _type_reduce _cp_map({}{}{sizes}) {{ return static_cast<_type_reduce>(",
        mp.join(", "),
        if mp.is_empty() { "" } else { ", " }
    ));
    src.user("map_expr", strip_semicolon(r.map_expr));
    src.push("); }\n");
    src.push("__device__ __forceinline__ _type_reduce _cp_reduce(const _type_reduce a, const _type_reduce b) { return (");
    src.user("reduce_expr", strip_semicolon(r.reduce_expr));
    src.push("); }\n");
    let mut pp = vec!["const _type_reduce a".to_string(), op_param(out)];
    pp.extend(values.iter().map(|p| op_param(p)));
    src.push(&format!(
        "__device__ __forceinline__ void _cp_post({}, {sizes}) {{",
        pp.join(", ")
    ));
    src.user(
        "post_map_expr",
        &format!("{};", strip_semicolon(r.post_map_expr)),
    );
    src.push("}\n");
    src.push(&format!(
        "struct _cp_Geo {{ long long v[{}]; }};\n",
        geo.len()
    ));
    let identity = if r.identity.trim().is_empty() {
        "_type_reduce()".to_string()
    } else {
        format!("_type_reduce({})", r.identity.trim())
    };
    // Offsets of the memory operands: kept (per row), then reduced (per element).
    let mut kept = Vec::new();
    let mut kt: Vec<(String, usize)> = Vec::new();
    for (slot, p) in mem.iter().chain([&out]).enumerate() {
        kept.push(format!("    long long _k_{} = 0;", p.name));
        kt.push((format!("_k_{}", p.name), geo.kst(slot)));
    }
    let mut red = Vec::new();
    let mut rt: Vec<(String, usize)> = Vec::new();
    for (slot, p) in mem.iter().enumerate() {
        red.push(format!("      long long _o_{0} = _k_{0};", p.name));
        rt.push((format!("_o_{}", p.name), geo.rst(slot)));
    }
    if !r.red_contiguous {
        red.push(format!("      {}", unravel("_j", r.rd, geo.rshape(), &rt)));
    } else if r.rd == 1 {
        // Unit or zero strides, read from the geometry (one multiply).
        red.extend(
            rt.iter()
                .map(|(v, st)| format!("      {v} += _j * _g.v[{st}];")),
        );
    }
    let mut margs: Vec<String> = ins
        .iter()
        .map(|p| match p.pass {
            Pass::Value => format!("_raw_{}", p.name),
            _ => cast_expr(p.actual, p.ty, &format!("_raw_{0}[_o_{0}]", p.name)),
        })
        .collect();
    margs.push("_in_ind".into());
    margs.push("_out_ind".into());
    let value_args: Vec<String> = values.iter().map(|p| format!("_raw_{}", p.name)).collect();
    let post = format!(
        "_cp_post(_sh[0], _raw_{}[_k_{}], {}_in_ind, _out_ind);",
        out.name,
        out.name,
        value_args
            .iter()
            .map(|a| format!("{a}, "))
            .collect::<String>()
    );
    let mut kp: Vec<String> = ins.iter().map(kernel_param).collect();
    kp.push(kernel_param(out));
    kp.extend(
        [
            "_type_reduce* _partial",
            "const _cp_Geo _g",
            "const long long _rows",
            "const long long _len",
        ]
        .map(String::from),
    );
    let mut fp = vec![
        "const _type_reduce* _partial".to_string(),
        kernel_param(out),
    ];
    fp.extend(values.iter().map(|p| kernel_param(p)));
    fp.extend(
        [
            "const _cp_Geo _g",
            "const long long _rows",
            "const long long _len",
            "const long long _splits",
        ]
        .map(String::from),
    );
    let finish_unravel = unravel(
        "_row",
        r.kd,
        geo.kshape(),
        &[(format!("_k_{}", out.name), geo.kst(mem.len()))],
    );
    src.push(&render(
        USER,
        &[
            ("NAME", name),
            ("OUT", &out.name),
            ("MAIN_PARAMS", &kp.join(", ")),
            ("FINISH_PARAMS", &fp.join(", ")),
            ("THREADS", &RED_THREADS.to_string()),
            ("HALF_THREADS", &(RED_THREADS / 2).to_string()),
            ("KEPT_OFFSETS", &kept.join("\n")),
            ("KEPT_UNRAVEL", &unravel("_row", r.kd, geo.kshape(), &kt)),
            ("RED_OFFSETS", &red.join("\n")),
            ("IDENTITY", &identity),
            ("MAP_ARGS", &margs.join(", ")),
            ("POST", &post),
            ("FINISH_UNRAVEL", &finish_unravel),
        ],
        &[],
    ));
    src.finish()
}

/// The C spelling of a `reduce_type` given by the user: a dtype name or a
/// placeholder becomes its C type; anything else is used as written.
pub(crate) fn c_reduce_type(t: &str) -> String {
    let t = t.trim();
    match DType::ALL.iter().find(|d| d.name() == t) {
        Some(d) => ctype(*d).to_string(),
        None => t.to_string(),
    }
}

// The Reduce family of the backend interface (`ops::backend`): each row's
// CUDA half (`ops/reduce.rs`): its generated kernel, `var` and `std` in two
// passes (`variance.rs`), or the counted host round trip the row declares
// (min and max of complex numbers).
impl Reduce for crate::cuda::CudaBackend {
    fn reduce(&self, op: ReduceOp, x: View<'_>, axes: &[usize], out: View<'_>) -> Result<()> {
        let cuda = match op.body() {
            Body::Pass { cuda, .. } => cuda,
            Body::Difference(..) => return Err(crate::ops::reduce::composite(op)),
        };
        match cuda(op, x.dtype()) {
            CudaHalf::Kernel(spec) => run_reduce(&spec, x, axes, out),
            CudaHalf::TwoPass { sqrt } => crate::cuda::variance::var(x, axes, op.ddof(), sqrt, out),
            CudaHalf::Host(_) => {
                crate::backend::fallback::into_view(op.name(), x, out, |cpu, hx, hout| {
                    cpu.reduce(op, hx, axes, hout)
                })
            }
        }
    }
}

/// Each strategy's source of `spec` over `in_dt` read through `chain`
/// (for the tests that compile them).
#[cfg(test)]
pub(crate) fn every_strategy(
    spec: &ReduceSpec,
    in_dt: DType,
    chain: Option<&Chain>,
) -> Vec<(&'static str, String)> {
    vec![
        ("rows", rows_source(spec, in_dt, (1, 1), true, 1, chain)),
        (
            "rows_full",
            rows_source(spec, in_dt, (0, 1), true, 1, chain),
        ),
        (
            "rows_strided",
            rows_source(spec, in_dt, (2, 2), false, 1, chain),
        ),
        ("short", short_source(spec, in_dt, (1, 1), true, chain)),
        (
            "short_strided",
            short_source(spec, in_dt, (2, 2), false, chain),
        ),
        ("cols", columns_source(spec, in_dt, 1, chain)),
    ]
}

/// The kernel of the table's row `name` for input `dt`.
#[cfg(test)]
pub(crate) fn table_spec(name: &str, dt: DType) -> ReduceSpec {
    let op = ReduceOp::ALL
        .iter()
        .find(|o| o.name() == name)
        .unwrap()
        .plain_for(dt);
    match op.body() {
        Body::Pass { cuda, .. } => match cuda(op, dt) {
            CudaHalf::Kernel(k) => k,
            _ => panic!("{name} of {dt} has no kernel"),
        },
        Body::Difference(..) => panic!("{name} is a difference of rows"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str, pass: Pass, actual: DType, ty: DType, out: bool) -> GenParam {
        GenParam {
            name: name.into(),
            pass,
            actual,
            ty,
            out,
        }
    }

    #[test]
    fn reduction_source_has_map_reduce_post_and_a_finishing_kernel() {
        let f = DType::Float32;
        let params = [
            param("x", Pass::Each, f, f, false),
            param("y", Pass::Each, f, f, true),
        ];
        let src = user_source(&RedSource {
            name: "sum_squares",
            map_expr: "x * x",
            reduce_expr: "a + b",
            post_map_expr: "y = a",
            identity: "0",
            reduce_type: "float",
            preamble: "",
            placeholders: &[],
            params: &params,
            kd: 0,
            rd: 1,
            red_contiguous: true,
        });
        assert!(src.contains("typedef float _type_reduce;"));
        assert!(src.contains("_type_reduce _cp_map(const float x, const _cp_Size& _in_ind, const _cp_Size& _out_ind) { return static_cast<_type_reduce>(\n#line 1 \"map_expr\"\nx * x\n"), "{src}");
        assert!(src.contains("#line 1 \"reduce_expr\"\na + b\n"));
        assert!(src.contains("#line 1 \"post_map_expr\"\ny = a;\n"));
        assert!(src.contains("extern \"C\" __global__ void sum_squares(const float* _raw_x, float* _raw_y, _type_reduce* _partial, const _cp_Geo _g, const long long _rows, const long long _len)"), "{src}");
        assert!(src.contains("extern \"C\" __global__ void sum_squares_finish("));
        assert!(src.contains("_type_reduce _s = _type_reduce(0);"));
        assert!(src.contains("_o_x += _j * _g.v[1];"), "{src}");
        assert!(src.contains("_cp_post(_sh[0], _raw_y[_k_y], _in_ind, _out_ind);"));
        assert_eq!(c_reduce_type("float64"), "double");
    }

    fn spec(name: &str, dt: DType) -> ReduceSpec {
        table_spec(name, dt)
    }

    fn sum_f32() -> ReduceSpec {
        spec("sum", DType::Float32)
    }

    #[test]
    fn vector_loads_only_with_whole_vector_chunks() {
        let src = rows_source(&sum_f32(), DType::Float32, (0, 1), true, 4, None);
        // Every block's chunk starts on a vector boundary.
        assert!(src.contains("/ 4 * 4;"), "{src}");
        assert!(src.contains("struct __align__(16) vec_t { in_t v[4]; };"));
        let scalar = rows_source(&sum_f32(), DType::Float32, (0, 1), true, 1, None);
        assert!(!scalar.contains("vec_t"));
    }

    #[test]
    fn column_kernels_read_whole_vectors() {
        let src = columns_source(&sum_f32(), DType::Float32, 4, None);
        assert!(src.contains("struct __align__(16) vec_t { in_t v[4]; };"));
        assert!(src.contains("const long long c0 = ((long long)blockIdx.x * 32 + tx) * 4;"));
    }

    /// Every strategy of the templates renders with no placeholder left
    /// and compiles with NVRTC: each dtype's sum, and every op of a half
    /// float and a small integer.
    #[test]
    fn templates_render_and_compile() {
        let mut cases = Vec::new();
        for dt in DType::ALL {
            cases.push(("sum", dt));
        }
        for name in ["prod", "mean", "max", "min", "all", "any"] {
            cases.push((name, DType::Float16));
            cases.push((name, DType::Int8));
        }
        for name in ["nansum", "nanprod", "nanmax", "nanmin"] {
            for dt in [
                DType::Float16,
                DType::BFloat16,
                DType::Float32,
                DType::Float64,
                DType::Int8,
            ] {
                cases.push((name, dt));
            }
        }
        cases.push(("nansum", DType::Complex64));
        cases.push(("nanprod", DType::Complex128));
        for (name, dt) in cases {
            let spec = spec(name, dt);
            let vec = if dt.itemsize() < 16 {
                16 / dt.itemsize()
            } else {
                1
            };
            for (what, src) in [
                ("rows_vec", rows_source(&spec, dt, (0, 1), true, vec, None)),
                ("rows", rows_source(&spec, dt, (1, 1), true, 1, None)),
                (
                    "rows_strided",
                    rows_source(&spec, dt, (2, 3), false, 1, None),
                ),
                ("cols", columns_source(&spec, dt, vec, None)),
                ("short", short_source(&spec, dt, (1, 1), true, None)),
                (
                    "short_strided",
                    short_source(&spec, dt, (2, 2), false, None),
                ),
                ("short_full", short_source(&spec, dt, (0, 1), true, None)),
            ] {
                assert_eq!(super::super::template::unfilled(&src), None, "{src}");
                // The name its launch looks up (a mismatch compiles, then
                // fails every launch of the strategy on the GPU).
                let kernel = match what.split('_').next() {
                    Some("rows") => ROWS_KERNEL,
                    Some("cols") => COLS_KERNEL,
                    _ => SHORT_KERNEL,
                };
                assert!(
                    crate::cuda::runtime::compile::defines_kernel(&src, kernel),
                    "{what}: no {kernel}"
                );
                let label = format!("reduce_{what}_{name}_{}", dt.name());
                crate::cuda::runtime::compile::check_compiles(&label, &src).unwrap();
            }
        }
    }

    /// The user reduction template renders with no placeholder left and
    /// compiles with NVRTC: contiguous and strided reductions, a scalar
    /// argument, a converted input.
    #[test]
    fn user_template_renders_and_compiles() {
        let (f, d) = (DType::Float32, DType::Float64);
        let p = |name: &str, pass: Pass, actual: DType, ty: DType, out: bool| GenParam {
            name: name.into(),
            pass,
            actual,
            ty,
            out,
        };
        let params = [
            p("x", Pass::Each, f, d, false),
            p("s", Pass::Value, d, d, false),
            p("y", Pass::Each, d, d, true),
        ];
        for (kd, rd, contiguous) in [(0, 1, true), (1, 1, true), (2, 3, false)] {
            let src = user_source(&RedSource {
                name: "scaled_sum",
                map_expr: "x * s",
                reduce_expr: "a + b",
                post_map_expr: "y = a",
                identity: "0",
                reduce_type: "double",
                preamble: "",
                placeholders: &[],
                params: &params,
                kd,
                rd,
                red_contiguous: contiguous,
            });
            assert_eq!(super::super::template::unfilled(&src), None, "{src}");
            let label = format!("reduce_user_{kd}_{rd}_{contiguous}");
            crate::cuda::runtime::compile::check_compiles(&label, &src).unwrap();
        }
    }
}
