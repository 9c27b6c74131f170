//! Data-moving indexing on the GPU: `where_`, `take` (a gather with bounds
//! checked on the device), boolean masks (a scan of the mask, then a
//! scatter), `mask_assign`, `put` and `nonzero`.
//!
//! Out-of-range indices in raise mode are found by a check kernel that
//! keeps the smallest offending position in one device word
//! (`atomicMin`); the word is read back once and the error names the same
//! index the CPU backend names (the first in C order).

use std::fmt::Write;

use super::compile::PRELUDE;
use super::elementwise::{
    cast_expr, ctype, new_array, run_map, run_map_inputs, MapInput, MapKernel, MAX_DIMS,
};
use super::helpers::{
    grid_1d, kernel, key, memset, merged, ptr, read_one, session_of, unravel, Dims, Geo,
};
use super::launch::{launch, KernelArgs, LaunchConfig};
use super::session::DeviceSession;
use super::stream::current_stream;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::IndexMode;

const THREADS: usize = 256;
/// Up to this many indices, `put` finds repeated targets by comparing each
/// index with the later ones; more sort their targets.
const PUT_PAIRWISE_MAX: usize = 4096;

fn cfg(s: &DeviceSession, n: usize) -> LaunchConfig {
    LaunchConfig {
        grid: (grid_1d(s, n, THREADS), 1, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn too_many_dims(op: &'static str, nd: usize) -> Result<()> {
    if nd > MAX_DIMS {
        return Err(Error::Shape {
            op,
            detail: format!(
                "the operands need {nd} dimensions after merging; GPU kernels support up to {MAX_DIMS}"
            ),
        });
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// where_
// ---------------------------------------------------------------------------

/// `cond ? x : y` broadcast to `shape` into a new array of `dtype` (`cond`
/// read as bool, `x` and `y` converted to `dtype`).
pub(crate) fn where_(
    cond: &Array,
    x: MapInput<'_>,
    y: MapInput<'_>,
    dtype: DType,
    shape: &[usize],
) -> Result<Array> {
    let s = session_of("where_", cond)?;
    let out = new_array("where_", s.info.ordinal, dtype, shape)?;
    run_map_inputs(&where_kernel(dtype), &[MapInput::Array(cond), x, y], &out)?;
    Ok(out)
}

fn where_kernel(dtype: DType) -> MapKernel {
    MapKernel::new(
        "where".into(),
        vec![DType::Bool, dtype, dtype],
        "(in0 ? in1 : in2)".into(),
        dtype,
        String::new(),
    )
}

// ---------------------------------------------------------------------------
// Index arithmetic shared by take and put
// ---------------------------------------------------------------------------

/// A C expression reading an index of dtype `dt` as `long long` (bool as
/// 0/1; uint64 beyond `i64::MAX` saturates, as on the CPU).
fn index_expr(dt: DType, raw: &str) -> String {
    match dt {
        DType::Bool => format!("((long long)(({raw}) ? 1 : 0))"),
        DType::UInt64 => format!(
            "(({raw}) > 9223372036854775807ULL ? 9223372036854775807LL : (long long)({raw}))"
        ),
        _ => format!("((long long)({raw}))"),
    }
}

/// The device function `resolve(v, n)` of a mode: the position `v` names
/// along an axis of extent `n > 0` (raise: may be out of range; checked
/// separately).
fn resolve_fn(mode: IndexMode) -> &'static str {
    match mode {
        IndexMode::Raise => "__device__ __forceinline__ long long resolve(long long v, long long n) { return v < 0 ? v + n : v; }\n",
        IndexMode::Wrap => "__device__ __forceinline__ long long resolve(long long v, long long n) { long long j = v % n; return j < 0 ? j + n : j; }\n",
        IndexMode::Clip => "__device__ __forceinline__ long long resolve(long long v, long long n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }\n",
    }
}

/// The value of index `at` (C order) of a contiguous index array, as the
/// CPU backend reports it.
fn index_value(idx: &Array, at: usize) -> Result<i64> {
    use crate::Element;
    if idx.dtype() == DType::UInt64 {
        let u = read_one::<u64>(idx, at)?;
        return Ok(i64::try_from(u).unwrap_or(i64::MAX));
    }
    crate::with_dtype!(idx.dtype(), T => Ok(read_one::<T>(idx, at)?.to_scalar().as_i64()))
}

/// Checks indices (a contiguous integer or bool array) against an axis of
/// extent `n` as `resolve_indices` does on the CPU: a non-empty index array
/// into an empty axis fails in every mode; in raise mode the first index
/// outside `-n..n` is an [`Error::IndexOutOfBounds`].
pub(crate) fn check_indices(
    op: &'static str,
    idx: &Array,
    axis: usize,
    n: usize,
    mode: IndexMode,
) -> Result<()> {
    let k = idx.size();
    if k == 0 {
        return Ok(());
    }
    if n == 0 {
        return Err(Error::IndexOutOfBounds {
            op,
            index: index_value(idx, 0)?,
            axis,
            size: 0,
        });
    }
    if mode != IndexMode::Raise {
        return Ok(());
    }
    let s = session_of(op, idx)?;
    let word = new_array(op, s.info.ordinal, DType::UInt64, &[1])?;
    memset(s, op, ptr(op, &word)?, 0xff, 8)?;
    let dt = idx.dtype();
    let f = kernel(
        s,
        key(("check_indices", dt)),
        op,
        "cuprite_check_indices",
        || check_source(dt),
    )?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, idx)?);
    args.push(k as i64);
    args.push(n as i64);
    args.push(ptr(op, &word)?);
    launch(s, op, f, cfg(s, k), &current_stream(), &mut args)?;
    let first = read_one::<u64>(&word, 0)?;
    if first == u64::MAX {
        return Ok(());
    }
    Err(Error::IndexOutOfBounds {
        op,
        index: index_value(idx, first as usize)?,
        axis,
        size: n,
    })
}

fn check_source(dt: DType) -> String {
    let mut s = String::from(PRELUDE);
    let _ = writeln!(s, "\ntypedef {} idx_t;", ctype(dt));
    let _ = writeln!(s, "extern \"C\" __global__ void cuprite_check_indices(const idx_t* __restrict__ idx, long long k_n, long long n, unsigned long long* first_bad) {{");
    let _ = writeln!(
        s,
        "  const long long stride = (long long)gridDim.x * blockDim.x;"
    );
    let _ = writeln!(s, "  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < k_n; k += stride) {{");
    let _ = writeln!(s, "    const long long v = {};", index_expr(dt, "idx[k]"));
    let _ = writeln!(s, "    const long long j = v < 0 ? v + n : v;");
    let _ = writeln!(
        s,
        "    if (j < 0 || j >= n) atomicMin(first_bad, (unsigned long long)k);"
    );
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "}}");
    s
}

// ---------------------------------------------------------------------------
// take
// ---------------------------------------------------------------------------

/// `out[o, k, i] = src[o, idx[k], i]` along `axis`, into a new array of
/// `out_shape`; indices are checked (raise) or resolved (wrap, clip) on the
/// device.
pub(crate) fn take(
    op: &'static str,
    src: &Array,
    axis: usize,
    idx: &Array,
    mode: IndexMode,
    out_shape: &[usize],
) -> Result<Array> {
    let s = session_of(op, src)?;
    let n = src.shape()[axis];
    let idx = idx.ascontiguousarray()?;
    check_indices(op, &idx, axis, n, mode)?;
    let out = new_array(op, s.info.ordinal, src.dtype(), out_shape)?;
    let total = out.size();
    if total == 0 {
        return Ok(out);
    }
    let (sh, st) = (src.shape(), src.strides());
    let outer = merged(&sh[..axis], &st[..axis]);
    let inner = merged(&sh[axis + 1..], &st[axis + 1..]);
    too_many_dims(op, outer.0.len().max(inner.0.len()))?;
    let mut geo = Geo::new();
    let spec = TakeSpec {
        dt: src.dtype(),
        idx_dt: idx.dtype(),
        mode,
        outer: geo.dims(&outer.0, &outer.1),
        inner: geo.dims(&inner.0, &inner.1),
        geo_len: 0,
    };
    let spec = TakeSpec {
        geo_len: geo.len(),
        ..spec
    };
    let f = kernel(s, key(("take", &spec)), op, "cuprite_take", || {
        take_source(&spec)
    })?;
    let m: usize = inner.0.iter().product();
    let mut args = KernelArgs::new();
    args.push(ptr(op, src)?);
    args.push(ptr(op, &out)?);
    args.push(ptr(op, &idx)?);
    args.push_bytes(&geo.bytes(), 8);
    args.push(total as i64);
    args.push(idx.size() as i64);
    args.push(m as i64);
    args.push(n as i64);
    args.push(st[axis] as i64);
    launch(s, op, f, cfg(s, total), &current_stream(), &mut args)?;
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct TakeSpec {
    dt: DType,
    idx_dt: DType,
    mode: IndexMode,
    outer: Dims,
    inner: Dims,
    geo_len: usize,
}

fn take_source(spec: &TakeSpec) -> String {
    let mut s = String::from(PRELUDE);
    let _ = writeln!(s, "\ntypedef {} T;", ctype(spec.dt));
    let _ = writeln!(s, "typedef {} idx_t;", ctype(spec.idx_dt));
    s.push_str(&Geo::decl(spec.geo_len));
    s.push_str(resolve_fn(spec.mode));
    let _ = writeln!(s, "extern \"C\" __global__ void cuprite_take(const T* __restrict__ src, T* __restrict__ out, const idx_t* __restrict__ idx, Geo g, long long total, long long k_n, long long m, long long n, long long step) {{");
    let _ = writeln!(
        s,
        "  const long long stride = (long long)gridDim.x * blockDim.x;"
    );
    let _ = writeln!(s, "  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += stride) {{");
    if spec.inner.nd == 0 {
        let _ = writeln!(s, "    const long long t = q;");
    } else {
        let _ = writeln!(s, "    const long long t = q / m, i = q - t * m;");
    }
    let _ = writeln!(s, "    const long long o = t / k_n, k = t - o * k_n;");
    let _ = writeln!(
        s,
        "    long long j = resolve({}, n);",
        index_expr(spec.idx_dt, "idx[k]")
    );
    // Checked before the launch in raise mode; kept in range regardless.
    let _ = writeln!(s, "    if (j < 0 || j >= n) j = 0;");
    let _ = writeln!(s, "    long long off = j * step;");
    s.push_str(&unravel("o", "off", spec.outer));
    s.push_str(&unravel("i", "off", spec.inner));
    let _ = writeln!(s, "    out[q] = src[off];");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "}}");
    s
}

// ---------------------------------------------------------------------------
// Boolean masks
// ---------------------------------------------------------------------------

/// Running counts of the true elements of `m` (C order, int64) and their total.
fn mask_counts(op: &'static str, m: &Array) -> Result<(Array, usize)> {
    let c = new_array(
        op,
        super::helpers::ordinal(op, m)?,
        DType::Int64,
        &[m.size()],
    )?;
    super::scan::scan(m.view(), false, None, c.view())?;
    let count = if m.size() > 0 {
        read_one::<i64>(&c, m.size() - 1)? as usize
    } else {
        0
    };
    Ok((c, count))
}

/// What determines the source of a mask kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct MaskSpec {
    dt: DType,
    /// The value dtype of `mask_assign` (`None`: the masked copy).
    value_dt: Option<DType>,
    lead: Dims,
    trail: Dims,
    vtrail: Dims,
    geo_len: usize,
}

/// `x[m]` for a bool mask `m` over the leading `m.ndim()` axes of `x`:
/// the selected elements in C order, shape `(count,) + x.shape[m.ndim():]`.
pub(crate) fn mask(op: &'static str, x: &Array, m: &Array) -> Result<Array> {
    let s = session_of(op, x)?;
    let lead = m.ndim();
    let (c, count) = mask_counts(op, m)?;
    let mut shape = vec![count];
    shape.extend_from_slice(&x.shape()[lead..]);
    crate::layout::checked_size(op, &shape)?;
    let out = new_array(op, s.info.ordinal, x.dtype(), &shape)?;
    let inner: usize = x.shape()[lead..].iter().product();
    if out.size() == 0 {
        return Ok(out);
    }
    let (sh, st) = (x.shape(), x.strides());
    let ld = merged(&sh[..lead], &st[..lead]);
    let tr = merged(&sh[lead..], &st[lead..]);
    too_many_dims(op, ld.0.len().max(tr.0.len()))?;
    let mut geo = Geo::new();
    let lead_d = geo.dims(&ld.0, &ld.1);
    let trail_d = geo.dims(&tr.0, &tr.1);
    let spec = MaskSpec {
        dt: x.dtype(),
        value_dt: None,
        lead: lead_d,
        trail: trail_d,
        vtrail: trail_d,
        geo_len: geo.len(),
    };
    let f = kernel(s, key(("mask", &spec)), op, "cuprite_mask", || {
        mask_source(&spec)
    })?;
    let total = m.size() * inner;
    let mut args = KernelArgs::new();
    args.push(ptr(op, x)?);
    args.push(ptr(op, &out)?);
    args.push(ptr(op, &c)?);
    args.push_bytes(&geo.bytes(), 8);
    args.push(total as i64);
    args.push(inner as i64);
    args.push(0i64);
    launch(s, op, f, cfg(s, total), &current_stream(), &mut args)?;
    Ok(out)
}

/// `x[m] = value`: `value(count)` gives the value as an array on the device
/// (any dtype, cast with NumPy's unsafe rule) viewed with shape
/// `(count,) + x.shape[m.ndim():]`, or the error of a shape mismatch.
pub(crate) fn mask_assign(
    op: &'static str,
    x: &Array,
    m: &Array,
    value: impl FnOnce(usize) -> Result<Array>,
) -> Result<()> {
    let s = session_of(op, x)?;
    let lead = m.ndim();
    let (c, count) = mask_counts(op, m)?;
    let mut v = value(count)?;
    let inner: usize = x.shape()[lead..].iter().product();
    if count == 0 || inner == 0 {
        return Ok(());
    }
    if v.shares_memory(x) {
        v = v.copy()?;
    }
    let (sh, st) = (x.shape(), x.strides());
    let ld = merged(&sh[..lead], &st[..lead]);
    let tr = merged(&sh[lead..], &st[lead..]);
    let vtr = merged(&v.shape()[1..], &v.strides()[1..]);
    too_many_dims(op, ld.0.len().max(tr.0.len()).max(vtr.0.len()))?;
    let mut geo = Geo::new();
    let lead_d = geo.dims(&ld.0, &ld.1);
    let trail_d = geo.dims(&tr.0, &tr.1);
    let vtrail_d = geo.dims(&vtr.0, &vtr.1);
    let spec = MaskSpec {
        dt: x.dtype(),
        value_dt: Some(v.dtype()),
        lead: lead_d,
        trail: trail_d,
        vtrail: vtrail_d,
        geo_len: geo.len(),
    };
    let f = kernel(
        s,
        key(("mask_assign", &spec)),
        op,
        "cuprite_mask_assign",
        || mask_source(&spec),
    )?;
    let total = m.size() * inner;
    let mut args = KernelArgs::new();
    args.push(ptr(op, x)?);
    args.push(ptr(op, &v)?);
    args.push(ptr(op, &c)?);
    args.push_bytes(&geo.bytes(), 8);
    args.push(total as i64);
    args.push(inner as i64);
    args.push(v.strides()[0] as i64);
    launch(s, op, f, cfg(s, total), &current_stream(), &mut args)?;
    Ok(())
}

fn mask_source(spec: &MaskSpec) -> String {
    let mut s = String::from(PRELUDE);
    let _ = writeln!(s, "\ntypedef {} T;", ctype(spec.dt));
    s.push_str(&Geo::decl(spec.geo_len));
    let head = |s: &mut String| {
        let _ = writeln!(
            s,
            "  const long long stride = (long long)gridDim.x * blockDim.x;"
        );
        let _ = writeln!(s, "  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += stride) {{");
        let _ = writeln!(s, "    const long long j = q / m, i = q - j * m;");
        let _ = writeln!(s, "    const long long cj = counts[j];");
        let _ = writeln!(s, "    if (cj == (j > 0 ? counts[j - 1] : 0LL)) continue;");
        let _ = writeln!(s, "    long long off = 0;");
        s.push_str(&unravel("j", "off", spec.lead));
        s.push_str(&unravel("i", "off", spec.trail));
    };
    match spec.value_dt {
        None => {
            let _ = writeln!(s, "extern \"C\" __global__ void cuprite_mask(const T* __restrict__ x, T* __restrict__ out, const long long* __restrict__ counts, Geo g, long long total, long long m, long long unused) {{");
            head(&mut s);
            let _ = writeln!(s, "    out[(cj - 1) * m + i] = x[off];");
        }
        Some(vdt) => {
            let _ = writeln!(s, "typedef {} V;", ctype(vdt));
            let _ = writeln!(s, "extern \"C\" __global__ void cuprite_mask_assign(T* x, const V* __restrict__ v, const long long* __restrict__ counts, Geo g, long long total, long long m, long long vst) {{");
            head(&mut s);
            let _ = writeln!(s, "    long long voff = (cj - 1) * vst;");
            s.push_str(&unravel("i", "voff", spec.vtrail));
            let _ = writeln!(s, "    x[off] = {};", cast_expr(vdt, spec.dt, "v[voff]"));
        }
    }
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "}}");
    s
}

// ---------------------------------------------------------------------------
// put
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct PutSpec {
    dt: DType,
    idx_dt: DType,
    mode: IndexMode,
    /// The dtype of resolved targets (uint32 or int64, by the array's size).
    tgt_dt: DType,
    dims: Dims,
    geo_len: usize,
}

/// `a.flat[idx[k]] = vals[k % len]` for every k; `idx` is contiguous and
/// already checked, `vals` is a non-empty contiguous array of `a`'s dtype
/// that shares no memory with `a`. A target named several times keeps the
/// value of its last index: up to `PUT_PAIRWISE_MAX` indices each compares
/// its target with the later ones; more are resolved into targets and
/// stably argsorted by target, and the last of each run of equal targets
/// writes.
pub(crate) fn put(
    op: &'static str,
    a: &Array,
    idx: &Array,
    vals: &Array,
    mode: IndexMode,
) -> Result<()> {
    let s = session_of(op, a)?;
    let k = idx.size();
    let n = a.size();
    if k == 0 || n == 0 {
        return Ok(());
    }
    let idx = if idx.shares_memory(a) {
        idx.copy()?
    } else {
        idx.clone()
    };
    let (sh, st) = merged(a.shape(), a.strides());
    too_many_dims(op, sh.len())?;
    let mut geo = Geo::new();
    let dims = geo.dims(&sh, &st);
    let spec = PutSpec {
        dt: a.dtype(),
        idx_dt: idx.dtype(),
        mode,
        tgt_dt: if n <= u32::MAX as usize {
            DType::UInt32
        } else {
            DType::Int64
        },
        dims,
        geo_len: geo.len(),
    };
    let src = || put_source(&spec);
    if k <= PUT_PAIRWISE_MAX {
        let f = kernel(s, key(("put", &spec)), op, "cuprite_put", src)?;
        let mut args = KernelArgs::new();
        args.push(ptr(op, a)?);
        args.push(ptr(op, vals)?);
        args.push(ptr(op, &idx)?);
        args.push_bytes(&geo.bytes(), 8);
        args.push(k as i64);
        args.push(vals.size() as i64);
        args.push(n as i64);
        return launch(s, op, f, cfg(s, k), &current_stream(), &mut args);
    }
    let targets = new_array(op, s.info.ordinal, spec.tgt_dt, &[k])?;
    let f = kernel(
        s,
        key(("put-targets", &spec)),
        op,
        "cuprite_put_targets",
        src,
    )?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, &idx)?);
    args.push(k as i64);
    args.push(n as i64);
    args.push(ptr(op, &targets)?);
    launch(s, op, f, cfg(s, k), &current_stream(), &mut args)?;
    let order = super::sort::sort(&targets, 0, true)?.ok_or_else(|| Error::Cuda {
        op: op.into(),
        detail: "the targets of put could not be sorted on the GPU".into(),
    })?;
    let f = kernel(
        s,
        key(("put-sorted", &spec)),
        op,
        "cuprite_put_sorted",
        || put_source(&spec),
    )?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, a)?);
    args.push(ptr(op, vals)?);
    args.push(ptr(op, &order)?);
    args.push(ptr(op, &targets)?);
    args.push_bytes(&geo.bytes(), 8);
    args.push(k as i64);
    args.push(vals.size() as i64);
    launch(s, op, f, cfg(s, k), &current_stream(), &mut args)
}

fn put_source(spec: &PutSpec) -> String {
    let mut s = String::from(PRELUDE);
    let _ = writeln!(s, "\ntypedef {} T;", ctype(spec.dt));
    let _ = writeln!(s, "typedef {} idx_t;", ctype(spec.idx_dt));
    let _ = writeln!(s, "typedef {} tgt_t;", ctype(spec.tgt_dt));
    s.push_str(&Geo::decl(spec.geo_len));
    s.push_str(resolve_fn(spec.mode));
    let _ = writeln!(
        s,
        "__device__ __forceinline__ long long target(const idx_t* idx, long long k, long long n) {{ long long j = resolve({}, n); return (j < 0 || j >= n) ? -1 : j; }}",
        index_expr(spec.idx_dt, "idx[k]")
    );
    let grid_loop = |s: &mut String, var: &str| {
        let _ = writeln!(
            s,
            "  const long long stride = (long long)gridDim.x * blockDim.x;"
        );
        let _ = writeln!(s, "  for (long long {var} = (long long)blockIdx.x * blockDim.x + threadIdx.x; {var} < k_n; {var} += stride) {{");
    };
    let store = |s: &mut String| {
        let _ = writeln!(s, "    long long off = 0;");
        s.push_str(&unravel("j", "off", spec.dims));
        let _ = writeln!(s, "    a[off] = vals[k % len];");
        let _ = writeln!(s, "  }}");
        let _ = writeln!(s, "}}");
    };
    // Few indices: each writes unless a later index names the same target.
    let _ = writeln!(s, "extern \"C\" __global__ void cuprite_put(T* a, const T* __restrict__ vals, const idx_t* __restrict__ idx, Geo g, long long k_n, long long len, long long n) {{");
    grid_loop(&mut s, "k");
    let _ = writeln!(s, "    const long long j = target(idx, k, n);");
    let _ = writeln!(s, "    if (j < 0) continue;");
    let _ = writeln!(s, "    bool later = false;");
    let _ = writeln!(
        s,
        "    for (long long k2 = k + 1; k2 < k_n && !later; ++k2) later = target(idx, k2, n) == j;"
    );
    let _ = writeln!(s, "    if (later) continue;");
    store(&mut s);
    // Many indices: resolved targets (in range after the checks), stably
    // argsorted by the caller; the last of each run of equal targets writes.
    let _ = writeln!(s, "extern \"C\" __global__ void cuprite_put_targets(const idx_t* __restrict__ idx, long long k_n, long long n, tgt_t* __restrict__ targets) {{");
    grid_loop(&mut s, "k");
    let _ = writeln!(s, "    const long long j = target(idx, k, n);");
    let _ = writeln!(s, "    targets[k] = (tgt_t)(j < 0 ? 0 : j);");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "}}");
    let _ = writeln!(s, "extern \"C\" __global__ void cuprite_put_sorted(T* a, const T* __restrict__ vals, const long long* __restrict__ order, const tgt_t* __restrict__ targets, Geo g, long long k_n, long long len) {{");
    grid_loop(&mut s, "q");
    let _ = writeln!(s, "    const long long k = order[q];");
    let _ = writeln!(s, "    const long long j = (long long)targets[k];");
    let _ = writeln!(
        s,
        "    if (q + 1 < k_n && (long long)targets[order[q + 1]] == j) continue;"
    );
    store(&mut s);
    s
}

// ---------------------------------------------------------------------------
// nonzero
// ---------------------------------------------------------------------------

/// Multi-indices of the non-zero elements of `a` (`ndim >= 1`, at most
/// `MAX_DIMS` axes), one int64 array per axis, in C order.
pub(crate) fn nonzero(op: &'static str, a: &Array) -> Result<Vec<Array>> {
    let s = session_of(op, a)?;
    let nd = a.ndim();
    too_many_dims(op, nd)?;
    // Truth values in C order (non-zero, NaN included, is true).
    let flags = if a.dtype() == DType::Bool {
        a.clone()
    } else {
        let t = new_array(op, s.info.ordinal, DType::Bool, a.shape())?;
        let k = MapKernel::new(
            "nonzero".into(),
            vec![DType::Bool],
            "in0".into(),
            DType::Bool,
            String::new(),
        );
        run_map(&k, &[a], &t)?;
        t
    };
    let (c, count) = mask_counts(op, &flags)?;
    let outs: Vec<Array> = (0..nd)
        .map(|_| new_array(op, s.info.ordinal, DType::Int64, &[count]))
        .collect::<Result<_>>()?;
    if count == 0 {
        return Ok(outs);
    }
    let mut geo = Geo::new();
    let shape_at = geo.add(a.shape().iter().map(|&d| d as i64));
    let f = kernel(s, key(("nonzero", nd)), op, "cuprite_nonzero", || {
        nonzero_source(nd, shape_at, geo.len())
    })?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, &c)?);
    let ptrs: Vec<u8> = outs
        .iter()
        .map(|o| ptr(op, o))
        .collect::<Result<Vec<u64>>>()?
        .into_iter()
        .flat_map(|p| p.to_ne_bytes())
        .collect();
    args.push_bytes(&ptrs, 8);
    args.push_bytes(&geo.bytes(), 8);
    args.push(a.size() as i64);
    launch(s, op, f, cfg(s, a.size()), &current_stream(), &mut args)?;
    Ok(outs)
}

fn nonzero_source(nd: usize, shape_at: usize, geo_len: usize) -> String {
    let mut s = String::from(PRELUDE);
    s.push_str(&Geo::decl(geo_len));
    let _ = writeln!(s, "struct Outs {{ long long* p[{nd}]; }};");
    let _ = writeln!(s, "extern \"C\" __global__ void cuprite_nonzero(const long long* __restrict__ counts, Outs outs, Geo g, long long total) {{");
    let _ = writeln!(
        s,
        "  const long long stride = (long long)gridDim.x * blockDim.x;"
    );
    let _ = writeln!(s, "  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < total; j += stride) {{");
    let _ = writeln!(s, "    const long long cj = counts[j];");
    let _ = writeln!(s, "    if (cj == (j > 0 ? counts[j - 1] : 0LL)) continue;");
    let _ = writeln!(s, "    long long r = j;");
    for ax in (1..nd).rev() {
        let _ = writeln!(
            s,
            "    {{ const long long q = r / g.v[{sh}]; outs.p[{ax}][cj - 1] = r - q * g.v[{sh}]; r = q; }}",
            sh = shape_at + ax
        );
    }
    let _ = writeln!(s, "    outs.p[0][cj - 1] = r;");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "}}");
    s
}

// The GatherScatter family of the backend interface (`ops::backend`).
impl crate::ops::index::GatherScatter for super::CudaBackend {}

#[cfg(test)]
mod tests {
    use super::super::helpers::dump_source;
    use super::*;

    #[test]
    fn index_reads_saturate_uint64_and_count_bools_as_one() {
        assert_eq!(
            index_expr(DType::UInt64, "x"),
            "((x) > 9223372036854775807ULL ? 9223372036854775807LL : (long long)(x))"
        );
        assert_eq!(index_expr(DType::Bool, "x"), "((long long)((x) ? 1 : 0))");
        assert_eq!(index_expr(DType::Int8, "x"), "((long long)(x))");
        let src = check_source(DType::UInt64);
        assert!(src.contains("atomicMin(first_bad, (unsigned long long)k);"));
        dump_source("check_u64", &src);
    }

    #[test]
    fn modes_resolve_as_numpy() {
        assert!(
            resolve_fn(IndexMode::Wrap).contains("long long j = v % n; return j < 0 ? j + n : j;")
        );
        assert!(resolve_fn(IndexMode::Clip).contains("return v < 0 ? 0 : (v >= n ? n - 1 : v);"));
        assert!(resolve_fn(IndexMode::Raise).contains("return v < 0 ? v + n : v;"));
    }

    #[test]
    fn take_sources() {
        for (dt, idx_dt, mode, outer, inner) in [
            (DType::Float32, DType::Int64, IndexMode::Raise, 0, 0),
            (DType::Complex128, DType::UInt8, IndexMode::Wrap, 2, 1),
            (DType::Bool, DType::Bool, IndexMode::Clip, 1, 3),
        ] {
            let mut g = Geo::new();
            let o = g.dims(&vec![3; outer], &vec![2; outer]);
            let i = g.dims(&vec![3; inner], &vec![2; inner]);
            let spec = TakeSpec {
                dt,
                idx_dt,
                mode,
                outer: o,
                inner: i,
                geo_len: g.len(),
            };
            let src = take_source(&spec);
            assert!(src.contains("out[q] = src[off];"));
            if inner == 0 {
                assert!(src.contains("const long long t = q;"));
            }
            dump_source(
                &format!("take_{}_{}_{mode:?}", dt.name(), idx_dt.name()),
                &src,
            );
        }
    }

    #[test]
    fn mask_sources() {
        for (dt, vdt) in [
            (DType::Float64, None),
            (DType::Int8, Some(DType::Float64)),
            (DType::Float16, Some(DType::Complex64)),
        ] {
            let mut g = Geo::new();
            let l = g.dims(&[2, 3], &[30, 10]);
            let t = g.dims(&[10], &[1]);
            let v = g.dims(&[], &[]);
            let spec = MaskSpec {
                dt,
                value_dt: vdt,
                lead: l,
                trail: t,
                vtrail: v,
                geo_len: g.len(),
            };
            let src = mask_source(&spec);
            assert!(src.contains("if (cj == (j > 0 ? counts[j - 1] : 0LL)) continue;"));
            if vdt.is_none() {
                assert!(src.contains("out[(cj - 1) * m + i] = x[off];"));
            } else {
                assert!(src.contains("long long voff = (cj - 1) * vst;"));
            }
            dump_source(&format!("mask_{}_{vdt:?}", dt.name()), &src);
        }
    }

    #[test]
    fn put_sources_keep_the_last_value() {
        let mut g = Geo::new();
        let d = g.dims(&[3, 4], &[1, 3]);
        for (dt, tgt) in [
            (DType::BFloat16, DType::UInt32),
            (DType::Complex128, DType::Int64),
        ] {
            let spec = PutSpec {
                dt,
                idx_dt: DType::Int32,
                mode: IndexMode::Wrap,
                tgt_dt: tgt,
                dims: d,
                geo_len: g.len(),
            };
            let src = put_source(&spec);
            assert!(src.contains("later = target(idx, k2, n) == j;"));
            assert!(
                src.contains("if (q + 1 < k_n && (long long)targets[order[q + 1]] == j) continue;")
            );
            assert!(src.contains("a[off] = vals[k % len];"));
            dump_source(&format!("put_{}_{}", dt.name(), tgt.name()), &src);
        }
    }

    #[test]
    fn nonzero_and_where_sources() {
        let src = nonzero_source(3, 0, 3);
        assert!(src.contains("struct Outs { long long* p[3]; };"));
        assert!(src.contains("outs.p[2][cj - 1] = r - q * g.v[2];"));
        assert!(src.contains("outs.p[0][cj - 1] = r;"));
        dump_source("nonzero3", &src);
        let one = nonzero_source(1, 0, 1);
        assert!(!one.contains("q = r /"));
        dump_source("nonzero1", &one);
        let k = where_kernel(DType::Int16);
        assert_eq!(k.compute, vec![DType::Bool, DType::Int16, DType::Int16]);
        assert_eq!(k.expr, "(in0 ? in1 : in2)");
    }
}
