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
use super::elementwise::{cast_expr, ctype, new_array, MAX_DIMS};
use super::launch::{launch, KernelArgs, LaunchConfig};
use super::session::{session, DeviceSession};
use super::stream::current_stream;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;

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

fn device_ptr(a: &Array) -> Result<u64> {
    match a.storage() {
        Storage::Cuda(c) => Ok(c.buffer.ptr + (a.layout().offset() * a.dtype().itemsize()) as u64),
        Storage::Cpu(_) => Err(Error::DeviceMismatch {
            op: "reduce",
            a: "cuda".into(),
            b: "cpu".into(),
        }),
    }
}

/// Reduces `x` over `axes` (normalised, distinct) into `out`, a fresh
/// C-contiguous CUDA array whose shape is `x`'s kept axes in order.
pub(crate) fn run_reduce(spec: &ReduceSpec, x: &Array, axes: &[usize], out: &Array) -> Result<()> {
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
    let ptr = device_ptr(x)?;
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

/// Row strategy: grid (row blocks, splits per row).
#[allow(clippy::too_many_arguments)]
fn rows_pass(
    s: &DeviceSession,
    spec: &ReduceSpec,
    ptr: u64,
    in_dt: DType,
    plan: &Plan,
    rows: usize,
    len: usize,
    out: &Array,
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
    let final_pass = splits == 1;
    let partial = if final_pass {
        None
    } else {
        Some(new_array(
            spec.name,
            s.info.ordinal,
            spec.acc,
            &[rows, splits],
        )?)
    };
    let dst = partial.as_ref().unwrap_or(out);
    let (kshape, kstrides) = &plan.kept;
    let (rshape, rstrides) = &plan.red;
    let kd = kshape.len().max(1);
    let rd = rshape.len().max(1);
    let mut src = header(spec, in_dt);
    let _ = writeln!(src, "struct Geo {{ long long kshape[{kd}]; long long kst[{kd}]; long long rshape[{rd}]; long long rst[{rd}]; }};");
    let out_t = if final_pass {
        ctype(spec.result)
    } else {
        "acc_t"
    };
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void cuprite_reduce_rows(const in_t* __restrict__ x, {out_t}* __restrict__ out, Geo g, long long rows, long long len, long long count) {{"
    );
    let _ = writeln!(src, "  __shared__ acc_t sh[{ROW_THREADS}];");
    let _ = writeln!(src, "  const int tid = threadIdx.x;");
    let _ = writeln!(src, "  const long long splits = gridDim.y;");
    let _ = writeln!(
        src,
        "  const long long chunk = (len + splits - 1) / splits;"
    );
    let _ = writeln!(
        src,
        "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {{"
    );
    // Base offset of this row from the kept-axis decomposition.
    let _ = writeln!(src, "    long long base = 0, rem = row;");
    let _ = writeln!(src, "    for (int ax = {} - 1; ax >= 0; --ax) {{ long long d = g.kshape[ax]; long long q = rem / d; base += (rem - q * d) * g.kst[ax]; rem = q; }}", kshape.len());
    let _ = writeln!(src, "    const long long lo = blockIdx.y * chunk;");
    let _ = writeln!(
        src,
        "    const long long hi = lo + chunk < len ? lo + chunk : len;"
    );
    let _ = writeln!(src, "    acc_t acc = {};", spec.identity);
    if contiguous_rows {
        // Four independent accumulators keep several loads in flight.
        let _ = writeln!(src, "    const in_t* p = x + base;");
        let _ = writeln!(src, "    acc_t a1 = acc, a2 = acc, a3 = acc;");
        let _ = writeln!(src, "    long long j = lo + tid;");
        let _ = writeln!(
            src,
            "    for (; j + 3 * {ROW_THREADS} < hi; j += 4 * {ROW_THREADS}) {{"
        );
        let _ = writeln!(src, "      acc_t v0 = map_one(p[j]), v1 = map_one(p[j + {ROW_THREADS}]), v2 = map_one(p[j + 2 * {ROW_THREADS}]), v3 = map_one(p[j + 3 * {ROW_THREADS}]);");
        let _ = writeln!(src, "      acc = combine(acc, v0); a1 = combine(a1, v1); a2 = combine(a2, v2); a3 = combine(a3, v3);");
        let _ = writeln!(src, "    }}");
        let _ = writeln!(
            src,
            "    for (; j < hi; j += {ROW_THREADS}) acc = combine(acc, map_one(p[j]));"
        );
        let _ = writeln!(src, "    acc = combine(combine(acc, a1), combine(a2, a3));");
    } else {
        let _ = writeln!(
            src,
            "    for (long long j = lo + tid; j < hi; j += {ROW_THREADS}) {{"
        );
        let _ = writeln!(src, "      long long off = base, r2 = j;");
        let _ = writeln!(src, "      for (int ax = {} - 1; ax >= 0; --ax) {{ long long d = g.rshape[ax]; long long q = r2 / d; off += (r2 - q * d) * g.rst[ax]; r2 = q; }}", rshape.len());
        let _ = writeln!(src, "      acc = combine(acc, map_one(x[off]));");
        let _ = writeln!(src, "    }}");
    }
    block_reduce(&mut src, ROW_THREADS);
    if final_pass {
        let _ = writeln!(
            src,
            "    if (tid == 0) {{ acc_t acc = sh[0]; out[row] = {}; }}",
            cast_expr(spec.result, spec.result, &format!("({})", spec.post))
        );
    } else {
        let _ = writeln!(
            src,
            "    if (tid == 0) out[row * splits + blockIdx.y] = sh[0];"
        );
    }
    let _ = writeln!(src, "    __syncthreads();");
    let _ = writeln!(src, "  }}\n}}");

    let module = s.kernels.module(s, spec.name, &src, &[], &[])?;
    let f = module.function("cuprite_reduce_rows")?;
    let mut args = KernelArgs::new();
    args.push(ptr);
    args.push(device_ptr(dst)?);
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
    args.push(len as i64);
    let cfg = LaunchConfig {
        grid: (rows.min(65535 * 16) as u32, splits as u32, 1),
        block: (ROW_THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    launch(s, spec.name, f, cfg, &current_stream(), &mut args)?;
    if let Some(p) = partial {
        // Second pass: reduce each row's partials (contiguous, acc dtype).
        let finish = ReduceSpec {
            compute: spec.acc,
            map: "in0".into(),
            ..spec.clone()
        };
        let fplan = Plan {
            kept: (vec![rows], vec![splits as isize]),
            red: (vec![splits], vec![1]),
        };
        rows_final(s, &finish, &p, &fplan, rows, splits, len, out)?;
    }
    Ok(())
}

/// The second pass of the row strategy: one block per row, `count` is the
/// number of original elements.
#[allow(clippy::too_many_arguments)]
fn rows_final(
    s: &DeviceSession,
    spec: &ReduceSpec,
    partial: &Array,
    plan: &Plan,
    rows: usize,
    len: usize,
    count: usize,
    out: &Array,
) -> Result<()> {
    let mut src = header(spec, spec.acc);
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void cuprite_reduce_finish(const in_t* __restrict__ x, {}* __restrict__ out, long long rows, long long len, long long count) {{",
        ctype(spec.result)
    );
    let _ = writeln!(src, "  __shared__ acc_t sh[{ROW_THREADS}];");
    let _ = writeln!(src, "  const int tid = threadIdx.x;");
    let _ = writeln!(
        src,
        "  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {{"
    );
    let _ = writeln!(src, "    acc_t acc = {};", spec.identity);
    let _ = writeln!(src, "    for (long long j = tid; j < len; j += {ROW_THREADS}) acc = combine(acc, map_one(x[row * len + j]));");
    block_reduce(&mut src, ROW_THREADS);
    let _ = writeln!(
        src,
        "    if (tid == 0) {{ acc_t acc = sh[0]; out[row] = {}; }}",
        spec.post
    );
    let _ = writeln!(src, "    __syncthreads();");
    let _ = writeln!(src, "  }}\n}}");
    let _ = plan;
    let module = s.kernels.module(s, spec.name, &src, &[], &[])?;
    let f = module.function("cuprite_reduce_finish")?;
    let mut args = KernelArgs::new();
    args.push(device_ptr(partial)?);
    args.push(device_ptr(out)?);
    args.push(rows as i64);
    args.push(len as i64);
    args.push(count as i64);
    let cfg = LaunchConfig {
        grid: (rows.min(65535 * 16) as u32, 1, 1),
        block: (ROW_THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    launch(s, spec.name, f, cfg, &current_stream(), &mut args)
}

/// Column strategy: `len` rows of `cols` contiguous columns, row stride
/// `row_stride`; blocks of 32 columns x 8 row lanes, rows split across
/// `gridDim.y` blocks and finished by a second pass.
#[allow(clippy::too_many_arguments)]
fn columns(
    s: &DeviceSession,
    spec: &ReduceSpec,
    ptr: u64,
    in_dt: DType,
    cols: usize,
    len: usize,
    row_stride: isize,
    out: &Array,
) -> Result<()> {
    let col_blocks = cols.div_ceil(32);
    let target_blocks = s.info.sm_count * 8;
    let splits = (target_blocks.div_ceil(col_blocks))
        .clamp(1, len.div_ceil(64).max(1))
        .min(65535);
    let final_pass = splits == 1;
    let partial = if final_pass {
        None
    } else {
        Some(new_array(
            spec.name,
            s.info.ordinal,
            spec.acc,
            &[splits, cols],
        )?)
    };
    let dst = partial.as_ref().unwrap_or(out);
    let mut src = header(spec, in_dt);
    let out_t = if final_pass {
        ctype(spec.result)
    } else {
        "acc_t"
    };
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void cuprite_reduce_cols(const in_t* __restrict__ x, {out_t}* __restrict__ out, long long cols, long long len, long long rs, long long count) {{"
    );
    let _ = writeln!(src, "  __shared__ acc_t sh[8][33];");
    let _ = writeln!(src, "  const int tx = threadIdx.x, ty = threadIdx.y;");
    let _ = writeln!(
        src,
        "  const long long c = (long long)blockIdx.x * 32 + tx;"
    );
    let _ = writeln!(
        src,
        "  const long long chunk = (len + gridDim.y - 1) / gridDim.y;"
    );
    let _ = writeln!(src, "  const long long lo = blockIdx.y * chunk;");
    let _ = writeln!(
        src,
        "  const long long hi = lo + chunk < len ? lo + chunk : len;"
    );
    let _ = writeln!(src, "  acc_t acc = {}, a1 = acc;", spec.identity);
    let _ = writeln!(src, "  if (c < cols) {{");
    let _ = writeln!(src, "    long long r = lo + ty;");
    let _ = writeln!(src, "    for (; r + 8 < hi; r += 16) {{ acc = combine(acc, map_one(x[r * rs + c])); a1 = combine(a1, map_one(x[(r + 8) * rs + c])); }}");
    let _ = writeln!(
        src,
        "    for (; r < hi; r += 8) acc = combine(acc, map_one(x[r * rs + c]));"
    );
    let _ = writeln!(src, "  }}");
    let _ = writeln!(src, "  acc = combine(acc, a1);");
    let _ = writeln!(src, "  sh[ty][tx] = acc; __syncthreads();");
    let _ = writeln!(src, "  if (ty == 0 && c < cols) {{");
    let _ = writeln!(
        src,
        "    for (int k = 1; k < 8; ++k) {{ acc_t a = acc, b = sh[k][tx]; acc = COMBINE; }}"
    );
    if final_pass {
        let _ = writeln!(src, "    out[c] = {};", spec.post);
    } else {
        let _ = writeln!(src, "    out[blockIdx.y * cols + c] = acc;");
    }
    let _ = writeln!(src, "  }}\n}}");
    let module = s.kernels.module(s, spec.name, &src, &[], &[])?;
    let f = module.function("cuprite_reduce_cols")?;
    let mut args = KernelArgs::new();
    args.push(ptr);
    args.push(device_ptr(dst)?);
    args.push(cols as i64);
    args.push(len as i64);
    args.push(row_stride as i64);
    args.push(len as i64);
    let cfg = LaunchConfig {
        grid: (col_blocks as u32, splits as u32, 1),
        block: (32, 8, 1),
        shared_mem_bytes: 0,
    };
    launch(s, spec.name, f, cfg, &current_stream(), &mut args)?;
    if let Some(p) = partial {
        let finish = ReduceSpec {
            compute: spec.acc,
            map: "in0".into(),
            ..spec.clone()
        };
        // Partials are `splits` rows of `cols` columns: a small column pass.
        let ptr = device_ptr(&p)?;
        let mut src = header(&finish, spec.acc);
        let _ = writeln!(
            src,
            "extern \"C\" __global__ void cuprite_reduce_cols_finish(const in_t* __restrict__ x, {}* __restrict__ out, long long cols, long long len, long long count) {{",
            ctype(spec.result)
        );
        let _ = writeln!(
            src,
            "  long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;"
        );
        let _ = writeln!(src, "  if (c >= cols) return;");
        let _ = writeln!(src, "  acc_t acc = {};", finish.identity);
        let _ = writeln!(
            src,
            "  for (long long r = 0; r < len; ++r) acc = combine(acc, x[r * cols + c]);"
        );
        let _ = writeln!(src, "  out[c] = {};", finish.post);
        let _ = writeln!(src, "}}");
        let module = s.kernels.module(s, spec.name, &src, &[], &[])?;
        let f = module.function("cuprite_reduce_cols_finish")?;
        let mut args = KernelArgs::new();
        args.push(ptr);
        args.push(device_ptr(out)?);
        args.push(cols as i64);
        args.push(splits as i64);
        args.push(len as i64);
        let cfg = LaunchConfig {
            grid: (cols.div_ceil(256) as u32, 1, 1),
            block: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        launch(s, spec.name, f, cfg, &current_stream(), &mut args)?;
    }
    Ok(())
}
