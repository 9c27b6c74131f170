//! Generated reduction kernels: any associative combine over any set of
//! axes, with a strategy per layout.
//!
//! The input is seen as (kept axes) x (reduced axes). When the reduced axes
//! merge into one contiguous run (full reductions, `axis=-1`), each output
//! row is reduced by one or more blocks with all threads reading
//! consecutive elements; when the kept axes merge into one contiguous run
//! (`axis=0` of a C array), threads of a warp read neighbouring columns so
//! every load is coalesced. Rows or columns too few to fill the device are
//! split across blocks and finished by a second, small pass. Other layouts
//! use the row kernel with strided addressing.

use std::fmt::Write;

use super::compile::PRELUDE;
use super::elementwise::{cast_expr, ctype, MAX_DIMS};
use super::launch::{launch, KernelArgs, LaunchConfig};
use super::session::{session, DeviceSession};
use super::stream::current_stream;
use super::transfer::alloc;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::ops::reduce::{Reduce, ReduceOp};
use crate::storage::Storage;
use crate::view::View;

/// What to compute: `out = post(fold(combine, identity, map(x)))`.
#[derive(Debug, Clone)]
pub(crate) struct ReduceSpec {
    /// Name for messages (`sum`, `max`).
    pub name: &'static str,
    /// The dtype each element is converted to before `map` sees it as `in0`.
    pub compute: DType,
    /// C expression over `in0` giving the accumulator value.
    pub map: String,
    /// The accumulator dtype.
    pub acc: DType,
    /// C expression of the identity accumulator.
    pub identity: String,
    /// C expression combining accumulators `a` and `b`.
    pub combine: String,
    /// C expression over `acc` and `count` (elements reduced) giving the result.
    pub post: String,
    /// The result dtype of `post`.
    pub result: DType,
    /// Helper definitions.
    pub support: String,
}

struct Plan {
    /// Kept axes merged: shape and input strides.
    kept: (Vec<usize>, Vec<isize>),
    /// Reduced axes merged: shape and input strides.
    red: (Vec<usize>, Vec<isize>),
}

fn merge_group(shape: &[usize], strides: &[isize]) -> (Vec<usize>, Vec<isize>) {
    let l = Layout::from_parts(shape.to_vec(), strides.to_vec(), 0);
    let (s, st) = Layout::merge_axes(&[&l]);
    (s, st.into_iter().next().unwrap_or_default())
}

/// Reduces `x` over `axes` (normalised, distinct) into `out`, a fresh
/// C-contiguous CUDA buffer holding one element per index of `x`'s kept
/// axes in order.
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
        return Ok(());
    }
    if plan.kept.0.len() > MAX_DIMS || plan.red.0.len() > MAX_DIMS {
        return Err(Error::Shape {
            op: spec.name,
            detail: format!("too many dimensions for a GPU reduction (at most {MAX_DIMS})"),
        });
    }
    let red_contig = plan.red.1.len() <= 1 && plan.red.1.first().is_none_or(|&st| st == 1);
    let kept_contig = plan.kept.1.len() == 1 && plan.kept.1[0] == 1 && plan.red.0.len() == 1;
    let ptr = super::helpers::ptr("reduce", x)?;
    if kept_contig && !red_contig {
        columns(s, spec, ptr, x.dtype(), rows, len, plan.red.1[0], out)
    } else {
        rows_pass(s, spec, ptr, x.dtype(), &plan, rows, len, out)
    }
}

/// The block-wide combine of `acc` into `sh[0]` (shared-memory tree).
fn block_reduce(s: &mut String, threads: usize) {
    let _ = writeln!(s, "  sh[tid] = acc; __syncthreads();");
    let mut step = threads / 2;
    while step >= 1 {
        let _ = writeln!(
            s,
            "  if (tid < {step}) {{ acc_t a = sh[tid], b = sh[tid + {step}]; sh[tid] = COMBINE; }} __syncthreads();"
        );
        step /= 2;
    }
}

fn header(spec: &ReduceSpec, in_dt: DType) -> String {
    let mut s = String::new();
    s.push_str(PRELUDE);
    s.push_str(&spec.support);
    let _ = writeln!(s, "\ntypedef {} acc_t;", ctype(spec.acc));
    let _ = writeln!(s, "typedef {} in_t;", ctype(in_dt));
    let _ = writeln!(s, "#define COMBINE ({})", spec.combine);
    let _ = writeln!(
        s,
        "__device__ __forceinline__ acc_t map_one(in_t raw) {{ const {} in0 = {}; return {}; }}",
        ctype(spec.compute),
        cast_expr(in_dt, spec.compute, "raw"),
        spec.map
    );
    let _ = writeln!(
        s,
        "__device__ __forceinline__ acc_t combine(acc_t a, acc_t b) {{ return COMBINE; }}"
    );
    s
}

const ROW_THREADS: usize = 256;

/// The stream's zeroed reduction counters (`n` of them are used; the last
/// block of each group sets its counter back to zero).
fn counters(s: &DeviceSession, n: usize) -> Result<u64> {
    debug_assert!(n <= super::session::REDUCE_COUNTERS);
    s.counters(&current_stream())
}

/// Row strategy: grid (row blocks, splits per row). With several splits per
/// row, each block writes a partial and the last block of the row to finish
/// folds the partials and writes the result (one launch).
#[allow(clippy::too_many_arguments)]
fn rows_pass(
    s: &DeviceSession,
    spec: &ReduceSpec,
    ptr: u64,
    in_dt: DType,
    plan: &Plan,
    rows: usize,
    len: usize,
    out: View<'_>,
) -> Result<()> {
    let contiguous_rows = plan.red.1.len() <= 1 && plan.red.1.first().is_none_or(|&st| st == 1);
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
    let (partial, count) = if splits > 1 {
        (
            Some(alloc(spec.name, s.info.ordinal, spec.acc, rows * splits)?),
            Some(counters(s, rows)?),
        )
    } else {
        (None, None)
    };
    let (kshape, kstrides) = &plan.kept;
    let (rshape, rstrides) = &plan.red;
    let kd = kshape.len().max(1);
    let rd = rshape.len().max(1);
    // 16-byte loads when every row starts on a 16-byte boundary.
    let item = in_dt.itemsize();
    let vec = if contiguous_rows && 16 % item == 0 && item < 16 {
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
    let key = super::helpers::key((
        (
            "rows",
            spec.name,
            &spec.map,
            &spec.combine,
            &spec.post,
            &spec.identity,
        ),
        (
            spec.compute,
            spec.acc,
            spec.result,
            in_dt,
            kshape.len(),
            rshape.len(),
        ),
        (contiguous_rows, vec, spec.support.len()),
    ));
    let f = s
        .kernels
        .specialized(s, key, spec.name, "cuprite_reduce_rows", || {
            rows_source(
                spec,
                in_dt,
                kshape.len(),
                rshape.len(),
                contiguous_rows,
                vec,
            )
        })?;
    let mut args = KernelArgs::new();
    args.push(ptr);
    args.push(super::helpers::ptr("reduce", out)?);
    args.push(partial.as_ref().map_or(0u64, |p| p.buffer.ptr));
    args.push(count.unwrap_or(0));
    let mut geo: Vec<i64> = Vec::new();
    let pad = |v: &mut Vec<i64>, xs: Vec<i64>, n: usize| {
        let mut xs = xs;
        xs.resize(n, 1);
        v.extend(xs);
    };
    pad(&mut geo, kshape.iter().map(|&d| d as i64).collect(), kd);
    pad(&mut geo, kstrides.iter().map(|&d| d as i64).collect(), kd);
    pad(&mut geo, rshape.iter().map(|&d| d as i64).collect(), rd);
    pad(&mut geo, rstrides.iter().map(|&d| d as i64).collect(), rd);
    let bytes: Vec<u8> = geo.iter().flat_map(|v| v.to_ne_bytes()).collect();
    args.push_bytes(&bytes, 8);
    args.push(rows as i64);
    args.push(len as i64);
    let cfg = LaunchConfig {
        grid: (rows.min(1 << 30) as u32, splits as u32, 1),
        block: (ROW_THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    launch(s, spec.name, f, cfg, &current_stream(), &mut args)
}

fn rows_source(
    spec: &ReduceSpec,
    in_dt: DType,
    kdims: usize,
    rdims: usize,
    contiguous_rows: bool,
    vec: usize,
) -> String {
    let kd = kdims.max(1);
    let rd = rdims.max(1);
    let t = ROW_THREADS;
    let mut src = header(spec, in_dt);
    let _ = writeln!(src, "struct Geo {{ long long kshape[{kd}]; long long kst[{kd}]; long long rshape[{rd}]; long long rst[{rd}]; }};");
    let _ = writeln!(src, "extern \"C\" __global__ void cuprite_reduce_rows(const in_t* __restrict__ x, {}* __restrict__ out, acc_t* partial, unsigned* counters, Geo g, long long rows, long long len) {{", ctype(spec.result));
    let _ = writeln!(src, "  __shared__ acc_t sh[{t}];");
    let _ = writeln!(src, "  __shared__ bool last;");
    let _ = writeln!(src, "  const int tid = threadIdx.x;");
    let _ = writeln!(src, "  const long long splits = gridDim.y;");
    // Chunks are whole vectors so every block's vector loads stay aligned.
    let _ = writeln!(
        src,
        "  const long long chunk = ((len + splits - 1) / splits + {vec} - 1) / {vec} * {vec};"
    );
    let _ = writeln!(src, "  const long long count = len;");
    let _ = writeln!(
        src,
        "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {{"
    );
    let _ = writeln!(src, "    long long base = 0, rem = row;");
    let _ = writeln!(src, "    for (int ax = {kdims} - 1; ax >= 0; --ax) {{ long long d = g.kshape[ax]; long long q = rem / d; base += (rem - q * d) * g.kst[ax]; rem = q; }}");
    let _ = writeln!(src, "    const long long lo = blockIdx.y * chunk;");
    let _ = writeln!(
        src,
        "    const long long hi = lo + chunk < len ? lo + chunk : len;"
    );
    let _ = writeln!(src, "    acc_t acc = {};", spec.identity);
    if contiguous_rows && vec > 1 {
        // 16-byte loads, two per step, into two accumulators.
        let _ = writeln!(src, "    struct __align__(16) vec_t {{ in_t v[{vec}]; }};");
        let _ = writeln!(src, "    const in_t* p = x + base;");
        let _ = writeln!(
            src,
            "    const vec_t* pv = reinterpret_cast<const vec_t*>(p + (lo < hi ? lo : 0));"
        );
        let _ = writeln!(
            src,
            "    const long long nv = hi > lo ? (hi - lo) / {vec} : 0;"
        );
        let _ = writeln!(src, "    acc_t a1 = acc;");
        let _ = writeln!(src, "    long long k = tid;");
        let _ = writeln!(src, "    acc_t a2 = acc, a3 = acc;");
        let _ = writeln!(src, "    for (; k + 3 * {t} < nv; k += 4 * {t}) {{");
        let _ = writeln!(
            src,
            "      vec_t w0 = pv[k], w1 = pv[k + {t}], w2 = pv[k + 2 * {t}], w3 = pv[k + 3 * {t}];"
        );
        let _ = writeln!(src, "      #pragma unroll");
        let _ = writeln!(src, "      for (int e = 0; e < {vec}; ++e) {{ a2 = combine(a2, map_one(w2.v[e])); a3 = combine(a3, map_one(w3.v[e])); }}");
        let _ = writeln!(src, "      #pragma unroll");
        let _ = writeln!(src, "      for (int e = 0; e < {vec}; ++e) {{ acc = combine(acc, map_one(w0.v[e])); a1 = combine(a1, map_one(w1.v[e])); }}");
        let _ = writeln!(src, "    }}");
        let _ = writeln!(src, "    for (; k < nv; k += {t}) {{ vec_t w0 = pv[k];");
        let _ = writeln!(src, "      #pragma unroll");
        let _ = writeln!(
            src,
            "      for (int e = 0; e < {vec}; ++e) acc = combine(acc, map_one(w0.v[e])); }}"
        );
        let _ = writeln!(src, "    for (long long j = lo + nv * {vec} + tid; j < hi; j += {t}) acc = combine(acc, map_one(p[j]));");
        let _ = writeln!(src, "    acc = combine(combine(acc, a1), combine(a2, a3));");
    } else if contiguous_rows {
        // Four independent accumulators keep several loads in flight.
        let _ = writeln!(src, "    const in_t* p = x + base;");
        let _ = writeln!(src, "    acc_t a1 = acc, a2 = acc, a3 = acc;");
        let _ = writeln!(src, "    long long j = lo + tid;");
        let _ = writeln!(src, "    for (; j + 3 * {t} < hi; j += 4 * {t}) {{");
        let _ = writeln!(
            src,
            "      in_t x0 = p[j], x1 = p[j + {t}], x2 = p[j + 2 * {t}], x3 = p[j + 3 * {t}];"
        );
        let _ = writeln!(src, "      acc = combine(acc, map_one(x0)); a1 = combine(a1, map_one(x1)); a2 = combine(a2, map_one(x2)); a3 = combine(a3, map_one(x3));");
        let _ = writeln!(src, "    }}");
        let _ = writeln!(
            src,
            "    for (; j < hi; j += {t}) acc = combine(acc, map_one(p[j]));"
        );
        let _ = writeln!(src, "    acc = combine(combine(acc, a1), combine(a2, a3));");
    } else {
        let _ = writeln!(src, "    for (long long j = lo + tid; j < hi; j += {t}) {{");
        let _ = writeln!(src, "      long long off = base, r2 = j;");
        let _ = writeln!(src, "      for (int ax = {rdims} - 1; ax >= 0; --ax) {{ long long d = g.rshape[ax]; long long q = r2 / d; off += (r2 - q * d) * g.rst[ax]; r2 = q; }}");
        let _ = writeln!(src, "      acc = combine(acc, map_one(x[off]));");
        let _ = writeln!(src, "    }}");
    }
    block_reduce(&mut src, t);
    let _ = writeln!(src, "    if (splits == 1) {{");
    let _ = writeln!(
        src,
        "      if (tid == 0) {{ acc_t acc = sh[0]; out[row] = {}; }}",
        spec.post
    );
    let _ = writeln!(src, "    }} else {{");
    let _ = writeln!(src, "      if (tid == 0) {{");
    let _ = writeln!(src, "        partial[row * splits + blockIdx.y] = sh[0];");
    let _ = writeln!(src, "        __threadfence();");
    let _ = writeln!(
        src,
        "        last = atomicAdd(&counters[row], 1u) == (unsigned)(splits - 1);"
    );
    let _ = writeln!(src, "      }}");
    let _ = writeln!(src, "      __syncthreads();");
    let _ = writeln!(src, "      if (last) {{");
    let _ = writeln!(src, "        if (tid == 0) counters[row] = 0;");
    let _ = writeln!(src, "        __threadfence();");
    let _ = writeln!(src, "        acc = {};", spec.identity);
    let _ = writeln!(src, "        for (long long j = tid; j < splits; j += {t}) acc = combine(acc, partial[row * splits + j]);");
    block_reduce(&mut src, t);
    let _ = writeln!(
        src,
        "        if (tid == 0) {{ acc_t acc = sh[0]; out[row] = {}; }}",
        spec.post
    );
    let _ = writeln!(src, "      }}");
    let _ = writeln!(src, "    }}");
    let _ = writeln!(src, "    __syncthreads();");
    let _ = writeln!(src, "  }}\n}}");
    src
}

/// Column strategy: `len` rows of `cols` contiguous columns, row stride
/// `row_stride`; blocks of 32 x 8 threads, each thread reading `vec`
/// neighbouring columns with one 16-byte load when alignment allows. Rows
/// are split across `gridDim.y` blocks; the last block of a column group to
/// finish folds the partials (one launch).
#[allow(clippy::too_many_arguments)]
fn columns(
    s: &DeviceSession,
    spec: &ReduceSpec,
    ptr: u64,
    in_dt: DType,
    cols: usize,
    len: usize,
    row_stride: isize,
    out: View<'_>,
) -> Result<()> {
    let item = in_dt.itemsize();
    let vec = if 16 % item == 0
        && item < 16
        && ptr % 16 == 0
        && cols % (16 / item) == 0
        && (row_stride as i64 * item as i64) % 16 == 0
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
    let (partial, count) = if splits > 1 {
        (
            Some(alloc(spec.name, s.info.ordinal, spec.acc, splits * cols)?),
            Some(counters(s, col_blocks)?),
        )
    } else {
        (None, None)
    };
    let key = super::helpers::key((
        (
            "cols",
            spec.name,
            &spec.map,
            &spec.combine,
            &spec.post,
            &spec.identity,
        ),
        (
            spec.compute,
            spec.acc,
            spec.result,
            in_dt,
            spec.support.len(),
            vec,
        ),
    ));
    let f = s
        .kernels
        .specialized(s, key, spec.name, "cuprite_reduce_cols", || {
            columns_source(spec, in_dt, vec)
        })?;
    let mut args = KernelArgs::new();
    args.push(ptr);
    args.push(super::helpers::ptr("reduce", out)?);
    args.push(partial.as_ref().map_or(0u64, |p| p.buffer.ptr));
    args.push(count.unwrap_or(0));
    args.push(cols as i64);
    args.push(len as i64);
    args.push(row_stride as i64);
    let cfg = LaunchConfig {
        grid: (col_blocks as u32, splits as u32, 1),
        block: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    launch(s, spec.name, f, cfg, &current_stream(), &mut args)
}

fn columns_source(spec: &ReduceSpec, in_dt: DType, vec: usize) -> String {
    let mut src = header(spec, in_dt);
    let w = 32 * vec;
    let _ = writeln!(
        src,
        "struct __align__({}) vec_t {{ in_t v[{vec}]; }};",
        vec * in_dt.itemsize()
    );
    let _ = writeln!(src, "extern \"C\" __global__ void cuprite_reduce_cols(const in_t* __restrict__ x, {}* __restrict__ out, acc_t* partial, unsigned* counters, long long cols, long long len, long long rs) {{", ctype(spec.result));
    let _ = writeln!(src, "  __shared__ acc_t sh[8][{}];", w + 1);
    let _ = writeln!(src, "  __shared__ bool last;");
    let _ = writeln!(src, "  const int tx = threadIdx.x, ty = threadIdx.y;");
    let _ = writeln!(
        src,
        "  const long long c0 = ((long long)blockIdx.x * 32 + tx) * {vec};"
    );
    let _ = writeln!(src, "  const bool live = c0 < cols;");
    let _ = writeln!(src, "  const long long splits = gridDim.y;");
    let _ = writeln!(src, "  const long long count = len;");
    let _ = writeln!(
        src,
        "  const long long chunk = (len + splits - 1) / splits;"
    );
    let _ = writeln!(src, "  const long long lo = blockIdx.y * chunk;");
    let _ = writeln!(
        src,
        "  const long long hi = lo + chunk < len ? lo + chunk : len;"
    );
    let _ = writeln!(src, "  acc_t acc[{vec}], a1[{vec}];");
    let _ = writeln!(src, "  #pragma unroll");
    let _ = writeln!(
        src,
        "  for (int e = 0; e < {vec}; ++e) {{ acc[e] = {}; a1[e] = acc[e]; }}",
        spec.identity
    );
    let _ = writeln!(src, "  if (live) {{");
    let _ = writeln!(src, "    long long r = lo + ty;");
    let _ = writeln!(src, "    for (; r + 8 < hi; r += 16) {{");
    let _ = writeln!(
        src,
        "      vec_t w0 = *reinterpret_cast<const vec_t*>(x + r * rs + c0);"
    );
    let _ = writeln!(
        src,
        "      vec_t w1 = *reinterpret_cast<const vec_t*>(x + (r + 8) * rs + c0);"
    );
    let _ = writeln!(src, "      #pragma unroll");
    let _ = writeln!(src, "      for (int e = 0; e < {vec}; ++e) {{ acc[e] = combine(acc[e], map_one(w0.v[e])); a1[e] = combine(a1[e], map_one(w1.v[e])); }}");
    let _ = writeln!(src, "    }}");
    let _ = writeln!(src, "    for (; r < hi; r += 8) {{");
    let _ = writeln!(
        src,
        "      vec_t w0 = *reinterpret_cast<const vec_t*>(x + r * rs + c0);"
    );
    let _ = writeln!(src, "      #pragma unroll");
    let _ = writeln!(
        src,
        "      for (int e = 0; e < {vec}; ++e) acc[e] = combine(acc[e], map_one(w0.v[e]));"
    );
    let _ = writeln!(src, "    }}");
    let _ = writeln!(src, "  }}");
    // Fold the 8 row lanes through shared memory.
    let _ = writeln!(src, "  #pragma unroll");
    let _ = writeln!(
        src,
        "  for (int e = 0; e < {vec}; ++e) sh[ty][tx * {vec} + e] = combine(acc[e], a1[e]);"
    );
    let _ = writeln!(src, "  __syncthreads();");
    let _ = writeln!(src, "  if (ty == 0) {{");
    let _ = writeln!(src, "    #pragma unroll");
    let _ = writeln!(src, "    for (int e = 0; e < {vec}; ++e) {{ acc[e] = sh[0][tx * {vec} + e]; for (int k = 1; k < 8; ++k) acc[e] = combine(acc[e], sh[k][tx * {vec} + e]); }}");
    let _ = writeln!(src, "  }}");
    let _ = writeln!(src, "  if (splits == 1) {{");
    let _ = writeln!(src, "    if (ty == 0 && live) {{ for (int e = 0; e < {vec}; ++e) {{ acc_t acc1 = acc[e]; {{ acc_t acc = acc1; out[c0 + e] = {}; }} }} }}", spec.post);
    let _ = writeln!(src, "    return;");
    let _ = writeln!(src, "  }}");
    let _ = writeln!(src, "  if (ty == 0 && live) {{ for (int e = 0; e < {vec}; ++e) partial[blockIdx.y * cols + c0 + e] = acc[e]; }}");
    let _ = writeln!(src, "  __threadfence();");
    let _ = writeln!(src, "  __syncthreads();");
    let _ = writeln!(src, "  if (tx == 0 && ty == 0) last = atomicAdd(&counters[blockIdx.x], 1u) == (unsigned)(splits - 1);");
    let _ = writeln!(src, "  __syncthreads();");
    let _ = writeln!(src, "  if (!last) return;");
    let _ = writeln!(src, "  if (tx == 0 && ty == 0) counters[blockIdx.x] = 0;");
    let _ = writeln!(src, "  __threadfence();");
    let _ = writeln!(src, "  #pragma unroll");
    let _ = writeln!(
        src,
        "  for (int e = 0; e < {vec}; ++e) acc[e] = {};",
        spec.identity
    );
    let _ = writeln!(
        src,
        "  if (live) for (long long j = ty; j < splits; j += 8) {{"
    );
    let _ = writeln!(src, "    #pragma unroll");
    let _ = writeln!(
        src,
        "    for (int e = 0; e < {vec}; ++e) acc[e] = combine(acc[e], partial[j * cols + c0 + e]);"
    );
    let _ = writeln!(src, "  }}");
    let _ = writeln!(src, "  __syncthreads();");
    let _ = writeln!(src, "  #pragma unroll");
    let _ = writeln!(
        src,
        "  for (int e = 0; e < {vec}; ++e) sh[ty][tx * {vec} + e] = acc[e];"
    );
    let _ = writeln!(src, "  __syncthreads();");
    let _ = writeln!(src, "  if (ty == 0 && live) {{");
    let _ = writeln!(src, "    for (int e = 0; e < {vec}; ++e) {{ acc_t acc1 = sh[0][tx * {vec} + e]; for (int k = 1; k < 8; ++k) acc1 = combine(acc1, sh[k][tx * {vec} + e]); {{ acc_t acc = acc1; out[c0 + e] = {}; }} }}", spec.post);
    let _ = writeln!(src, "  }}");
    let _ = writeln!(src, "}}");
    src
}

// The Reduce family of the backend interface (`ops::backend`): the
// generated kernels of `reduce_spec`, `var` and `std` in two passes
// (`variance.rs`), and the counted host fallback where a dtype has no
// kernel (min and max of complex numbers).
impl Reduce for super::CudaBackend {
    fn reduce(&self, op: ReduceOp, x: View<'_>, axes: &[usize], out: View<'_>) -> Result<()> {
        match op {
            ReduceOp::Var(ddof) => super::variance::var(x, axes, ddof, false, out),
            ReduceOp::Std(ddof) => super::variance::var(x, axes, ddof, true, out),
            _ => match super::reduce_spec::spec(op.name(), x.dtype()) {
                Some(spec) => run_reduce(&spec, x, axes, out),
                None => on_host(op.name(), x, out, |hx, hout| {
                    crate::cpu::CpuBackend.reduce(op, hx, axes, hout)
                }),
            },
        }
    }
}

/// Runs `f`, the CPU backend's form of `op`, on a host copy of `x` into a
/// host buffer shaped as `out`, then writes that buffer into `out`: the
/// counted host fallback (`fallback::on_host`) for views.
fn on_host(
    op: &'static str,
    x: View<'_>,
    out: View<'_>,
    f: impl FnOnce(View<'_>, View<'_>) -> Result<()>,
) -> Result<()> {
    use crate::ops::create::Create;
    let (Storage::Cuda(xc), Storage::Cuda(oc)) = (x.storage, out.storage) else {
        unreachable!("the CUDA backend runs on device buffers");
    };
    super::fallback::on_host(op, x.device(), || {
        let host_x = crate::with_dtype!(x.dtype(), T => {
            let data = <T as crate::element::Element>::into_data(super::transfer::download_all::<T>(xc));
            Storage::Cpu(crate::storage::CpuStorage::new(data))
        });
        let host_out = crate::cpu::CpuBackend.empty(op, out.dtype(), oc.len)?;
        f(
            View::new(&host_x, x.layout, x.dtype()),
            View::new(&host_out, out.layout, out.dtype()),
        )?;
        let Storage::Cpu(h) = &host_out else {
            unreachable!("the CPU backend allocates host buffers");
        };
        crate::with_dtype!(out.dtype(), T => super::transfer::upload_all::<T>(
            oc,
            <T as crate::element::Element>::slice(&h.read()).expect("the buffer holds the view's dtype"),
        ));
        Ok(super::fallback::Host(()))
    })
    .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum_f32() -> ReduceSpec {
        super::super::reduce_spec::spec("sum", DType::Float32).unwrap()
    }

    #[test]
    fn vector_loads_only_with_whole_vector_chunks() {
        let src = rows_source(&sum_f32(), DType::Float32, 0, 1, true, 4);
        // Every block's chunk starts on a vector boundary.
        assert!(src.contains("/ 4 * 4;"), "{src}");
        assert!(src.contains("struct __align__(16) vec_t { in_t v[4]; };"));
        let scalar = rows_source(&sum_f32(), DType::Float32, 0, 1, true, 1);
        assert!(!scalar.contains("vec_t"));
    }

    #[test]
    fn column_kernels_read_whole_vectors() {
        let src = columns_source(&sum_f32(), DType::Float32, 4);
        assert!(src.contains("struct __align__(16) vec_t { in_t v[4]; };"));
        assert!(src.contains("const long long c0 = ((long long)blockIdx.x * 32 + tx) * 4;"));
    }
}
