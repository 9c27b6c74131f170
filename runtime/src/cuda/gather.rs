//! Data-moving indexing on the GPU: `where_`, `take` (a gather with bounds
//! checked on the device), boolean masks (a scan of the mask, then a
//! scatter), `mask_assign`, `put` and `nonzero`.
//!
//! Out-of-range indices in raise mode are found by a check kernel that
//! keeps the smallest offending position in one device word
//! (`atomicMin`); the word is read back once and the error names the same
//! index the CPU backend names (the first in C order).

use super::sort::contiguous;
use super::CudaBackend;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::{CudaStorage, Storage};
use crate::core::view::{OwnedView, View};
use crate::cuda::kernel_gen::elementwise::{
    run_map, run_map_inputs, MapInput, MapKernel, MAX_DIMS,
};
use crate::cuda::kernel_gen::helpers::{
    grid_1d, kernel, key, memset, merged, ptr, read_one, unravel, Dims, Geo,
};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::kernel_gen::ufunc_expr::expr;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::{session, DeviceSession};
use crate::cuda::runtime::stream::current_stream;
use crate::ops::c_types::{cast_expr, ctype};
use crate::ops::index::{GatherScatter, Indices, Put, Take, Where, WhereInput};
use crate::ops::ufunc::{Binary, Ufunc};
use crate::ops::IndexMode;

const THREADS: usize = 256;

/// Kernel templates (`cuda/kernel_gen/template.rs`): the index check, take, the mask
/// read and assignment, put, nonzero.
const CHECK: &str = include_str!("kernels/gather_check.cu");
const TAKE: &str = include_str!("kernels/gather_take.cu");
const MASK: &str = include_str!("kernels/gather_mask.cu");
const PUT: &str = include_str!("kernels/gather_put.cu");
const NONZERO: &str = include_str!("kernels/gather_nonzero.cu");
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
fn index_value(idx: View<'_>, at: usize) -> Result<i64> {
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
fn check_indices(op: &'static str, ord: usize, ix: Indices<'_>) -> Result<()> {
    let Indices { idx, axis, n, mode } = ix;
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
    let s = session(ord)?;
    let word = crate::cuda::runtime::transfer::alloc(op, ord, DType::UInt64, 1)?;
    memset(s, op, word.buffer.ptr, 0xff, 8)?;
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
    args.push(word.buffer.ptr);
    launch(s, op, f, cfg(s, k), &current_stream(), &mut args)?;
    let first = crate::cuda::runtime::transfer::download_range::<u64>(&word, 0, 1)?[0];
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
    let kernel = render(
        CHECK,
        &[("IDX_T", ctype(dt)), ("INDEX", &index_expr(dt, "idx[k]"))],
        &[],
    );
    format!("{PRELUDE}{kernel}")
}

// ---------------------------------------------------------------------------
// take
// ---------------------------------------------------------------------------

/// `out[o, k, i] = src[o, idx[k], i]` along `axis` into the C-contiguous
/// `out`; `idx` is contiguous and checked (raise) or resolved (wrap, clip)
/// on the device.
fn take(op: &'static str, s: &DeviceSession, t: Take<'_>) -> Result<()> {
    let Take {
        src,
        axis,
        idx,
        mode,
        out,
    } = t;
    let n = src.shape()[axis];
    let total = out.size();
    if total == 0 {
        return Ok(());
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
    args.push(ptr(op, out)?);
    args.push(ptr(op, idx)?);
    args.push_bytes(&geo.bytes(), 8);
    args.push(total as i64);
    args.push(idx.size() as i64);
    args.push(m as i64);
    args.push(n as i64);
    args.push(st[axis] as i64);
    launch(s, op, f, cfg(s, total), &current_stream(), &mut args)
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
    let kernel = render(
        TAKE,
        &[
            ("T", ctype(spec.dt)),
            ("IDX_T", ctype(spec.idx_dt)),
            ("GEO", &Geo::decl(spec.geo_len)),
            ("RESOLVE", resolve_fn(spec.mode)),
            ("INDEX", &index_expr(spec.idx_dt, "idx[k]")),
            ("UNRAVEL_O", &unravel("o", "off", spec.outer)),
            ("UNRAVEL_I", &unravel("i", "off", spec.inner)),
        ],
        &[if spec.inner.nd == 0 { "FLAT" } else { "INNER" }],
    );
    format!("{PRELUDE}{kernel}")
}

// ---------------------------------------------------------------------------
// Boolean masks
// ---------------------------------------------------------------------------

/// Running counts of the true elements of `m` (C order, int64) and their total.
fn mask_counts(op: &'static str, m: View<'_>) -> Result<(OwnedView, usize)> {
    let ordinal = crate::cuda::kernel_gen::helpers::ordinal(op, m)?;
    let c = OwnedView::contiguous(
        Storage::Cuda(crate::cuda::runtime::transfer::alloc(
            op,
            ordinal,
            DType::Int64,
            m.size(),
        )?),
        &[m.size()],
        DType::Int64,
    );
    super::scan::scan(m, false, None, c.view())?;
    let count = if m.size() > 0 {
        read_one::<i64>(c.view(), m.size() - 1)? as usize
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
fn mask(
    op: &'static str,
    s: &DeviceSession,
    x: View<'_>,
    m: View<'_>,
) -> Result<(CudaStorage, usize)> {
    let lead = m.ndim();
    let (c, count) = mask_counts(op, m)?;
    let mut shape = vec![count];
    shape.extend_from_slice(&x.shape()[lead..]);
    let size = crate::core::layout::checked_size(op, &shape)?;
    let out = crate::cuda::runtime::transfer::alloc(op, s.info.ordinal, x.dtype(), size)?;
    let inner: usize = x.shape()[lead..].iter().product();
    if size == 0 {
        return Ok((out, count));
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
    args.push(out.buffer.ptr);
    args.push(ptr(op, c.view())?);
    args.push_bytes(&geo.bytes(), 8);
    args.push(total as i64);
    args.push(inner as i64);
    args.push(0i64);
    launch(s, op, f, cfg(s, total), &current_stream(), &mut args)?;
    Ok((out, count))
}

/// `x[m] = value`: `value(count)` gives the value as an array on the device
/// (any dtype, cast with NumPy's unsafe rule) viewed with shape
/// `(count,) + x.shape[m.ndim():]`, or the error of a shape mismatch.
fn mask_assign(
    op: &'static str,
    b: &CudaBackend,
    x: View<'_>,
    m: View<'_>,
    value: &mut dyn FnMut(usize) -> Result<OwnedView>,
) -> Result<()> {
    let s = session(b.ordinal)?;
    let lead = m.ndim();
    let (c, count) = mask_counts(op, m)?;
    let mut v = value(count)?;
    let inner: usize = x.shape()[lead..].iter().product();
    if count == 0 || inner == 0 {
        return Ok(());
    }
    if v.view().shares_memory(&x) {
        v = super::sort::copy(op, b, v.view())?;
    }
    let v = v.view();
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
    args.push(ptr(op, v)?);
    args.push(ptr(op, c.view())?);
    args.push_bytes(&geo.bytes(), 8);
    args.push(total as i64);
    args.push(inner as i64);
    args.push(v.strides()[0] as i64);
    launch(s, op, f, cfg(s, total), &current_stream(), &mut args)?;
    Ok(())
}

fn mask_source(spec: &MaskSpec) -> String {
    let (v, store, flag) = match spec.value_dt {
        None => ("", String::new(), "READ"),
        Some(vdt) => (ctype(vdt), cast_expr(vdt, spec.dt, "v[voff]"), "ASSIGN"),
    };
    let kernel = render(
        MASK,
        &[
            ("T", ctype(spec.dt)),
            ("V", v),
            ("GEO", &Geo::decl(spec.geo_len)),
            ("UNRAVEL_LEAD", &unravel("j", "off", spec.lead)),
            ("UNRAVEL_TRAIL", &unravel("i", "off", spec.trail)),
            ("UNRAVEL_V", &unravel("i", "voff", spec.vtrail)),
            ("STORE", &store),
        ],
        &[flag],
    );
    format!("{PRELUDE}{kernel}")
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
    /// `ufunc.at`'s op, folding the values into their targets.
    combine: Option<Binary>,
}

/// `a.flat[idx[k]] = vals[k % len]` for every k (or folded into it by
/// `combine`, every value of a target in index order); `idx` is contiguous and
/// already checked, `vals` is a non-empty contiguous array of `a`'s dtype
/// that shares no memory with `a`. A target named several times keeps the
/// value of its last index: up to `PUT_PAIRWISE_MAX` indices each compares
/// its target with the later ones; more are resolved into targets and
/// stably argsorted by target, and the last of each run of equal targets
/// writes.
fn put(op: &'static str, b: &CudaBackend, p: Put<'_>) -> Result<()> {
    let Put {
        a,
        idx,
        vals,
        mode,
        combine,
    } = p;
    let s = session(b.ordinal)?;
    let k = idx.size();
    let n = a.size();
    if k == 0 || n == 0 {
        return Ok(());
    }
    let copied = if idx.shares_memory(&a) {
        Some(super::sort::copy(op, b, idx)?)
    } else {
        contiguous(op, b, idx)?
    };
    let idx = copied.as_ref().map_or(idx, OwnedView::view);
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
        combine,
    };
    let src = || put_source(&spec);
    if k <= PUT_PAIRWISE_MAX && combine.is_none() {
        let f = kernel(s, key(("put", &spec)), op, "cuprite_put", src)?;
        let mut args = KernelArgs::new();
        args.push(ptr(op, a)?);
        args.push(ptr(op, vals)?);
        args.push(ptr(op, idx)?);
        args.push_bytes(&geo.bytes(), 8);
        args.push(k as i64);
        args.push(vals.size() as i64);
        args.push(n as i64);
        return launch(s, op, f, cfg(s, k), &current_stream(), &mut args);
    }
    let targets = crate::cuda::runtime::transfer::alloc(op, s.info.ordinal, spec.tgt_dt, k)?;
    let f = kernel(
        s,
        key(("put-targets", &spec)),
        op,
        "cuprite_put_targets",
        src,
    )?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, idx)?);
    args.push(k as i64);
    args.push(n as i64);
    args.push(targets.buffer.ptr);
    launch(s, op, f, cfg(s, k), &current_stream(), &mut args)?;
    let targets = Storage::Cuda(targets);
    let tl = Layout::contiguous(&[k]);
    let targets = View::new(&targets, &tl, spec.tgt_dt);
    let order = super::sort::sort(op, s.info.ordinal, targets, 0, true)?;
    let name = match combine {
        None => "cuprite_put_sorted",
        Some(_) => "cuprite_put_fold",
    };
    let f = kernel(s, key(("put-sorted", &spec)), op, name, || {
        put_source(&spec)
    })?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, a)?);
    args.push(ptr(op, vals)?);
    args.push(order.buffer.ptr);
    args.push(ptr(op, targets)?);
    args.push_bytes(&geo.bytes(), 8);
    args.push(k as i64);
    args.push(vals.size() as i64);
    launch(s, op, f, cfg(s, k), &current_stream(), &mut args)
}

/// The statement of `cuprite_put_fold` that folds `v` into `acc` (both
/// `T`) by `op` in its compute dtype, and the helpers it needs.
fn fold_statement(op: Option<Binary>, dt: DType) -> (String, &'static str) {
    let Some(e) = op.and_then(|op| expr(Ufunc::Binary(op), dt)) else {
        return ("acc = v;".into(), "");
    };
    let c = ctype(e.compute);
    let statement = format!(
        "{{ const {c} in0 = {}; const {c} in1 = {}; acc = {}; }}",
        cast_expr(dt, e.compute, "acc"),
        cast_expr(dt, e.compute, "v"),
        cast_expr(e.result, dt, &format!("({})", e.expr))
    );
    (statement, e.support)
}

fn put_source(spec: &PutSpec) -> String {
    let (fold, support) = fold_statement(spec.combine, spec.dt);
    let kernel = render(
        PUT,
        &[
            ("SUPPORT", support),
            ("FOLD", &fold),
            ("T", ctype(spec.dt)),
            ("IDX_T", ctype(spec.idx_dt)),
            ("TGT_T", ctype(spec.tgt_dt)),
            ("GEO", &Geo::decl(spec.geo_len)),
            ("RESOLVE", resolve_fn(spec.mode)),
            ("INDEX", &index_expr(spec.idx_dt, "idx[k]")),
            ("UNRAVEL", &unravel("j", "off", spec.dims)),
        ],
        &[],
    );
    format!("{PRELUDE}{kernel}")
}

// ---------------------------------------------------------------------------
// nonzero
// ---------------------------------------------------------------------------

/// Multi-indices of the non-zero elements of `a` (`ndim >= 1`, at most
/// `MAX_DIMS` axes), one int64 array per axis, in C order.
fn nonzero(op: &'static str, s: &DeviceSession, a: View<'_>) -> Result<(Vec<Storage>, usize)> {
    let nd = a.ndim();
    too_many_dims(op, nd)?;
    // Truth values in C order (non-zero, NaN included, is true).
    let owned;
    let flags = if a.dtype() == DType::Bool {
        a
    } else {
        owned = OwnedView::contiguous(
            Storage::Cuda(crate::cuda::runtime::transfer::alloc(
                op,
                s.info.ordinal,
                DType::Bool,
                a.size(),
            )?),
            a.shape(),
            DType::Bool,
        );
        let k = MapKernel::new(
            "nonzero".into(),
            vec![DType::Bool],
            "in0".into(),
            DType::Bool,
            String::new(),
        );
        run_map(&k, &[a], owned.view())?;
        owned.view()
    };
    let (c, count) = mask_counts(op, flags)?;
    let outs: Vec<CudaStorage> = (0..nd)
        .map(|_| crate::cuda::runtime::transfer::alloc(op, s.info.ordinal, DType::Int64, count))
        .collect::<Result<_>>()?;
    if count == 0 {
        return Ok((outs.into_iter().map(Storage::Cuda).collect(), count));
    }
    let mut geo = Geo::new();
    let shape_at = geo.add(a.shape().iter().map(|&d| d as i64));
    let f = kernel(s, key(("nonzero", nd)), op, "cuprite_nonzero", || {
        nonzero_source(nd, shape_at, geo.len())
    })?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, c.view())?);
    let ptrs: Vec<u8> = outs
        .iter()
        .flat_map(|o| o.buffer.ptr.to_ne_bytes())
        .collect();
    args.push_bytes(&ptrs, 8);
    args.push_bytes(&geo.bytes(), 8);
    args.push(a.size() as i64);
    launch(s, op, f, cfg(s, a.size()), &current_stream(), &mut args)?;
    Ok((outs.into_iter().map(Storage::Cuda).collect(), count))
}

fn nonzero_source(nd: usize, shape_at: usize, geo_len: usize) -> String {
    // Peels the axes from the last to the second; what is left is axis 0.
    let peel: Vec<String> = (1..nd)
        .rev()
        .map(|ax| {
            let sh = shape_at + ax;
            format!("    {{ const long long q = r / g.v[{sh}]; outs.p[{ax}][cj - 1] = r - q * g.v[{sh}]; r = q; }}")
        })
        .collect();
    let kernel = render(
        NONZERO,
        &[
            ("GEO", &Geo::decl(geo_len)),
            ("ND", &nd.to_string()),
            ("PEEL", &peel.join("\n")),
        ],
        &[],
    );
    format!("{PRELUDE}{kernel}")
}

// The GatherScatter family of the backend interface (`ops::backend`).
impl GatherScatter for CudaBackend {
    fn check_indices(&self, op: &'static str, ix: Indices<'_>) -> Result<()> {
        let copied = contiguous(op, self, ix.idx)?;
        let idx = copied.as_ref().map_or(ix.idx, OwnedView::view);
        check_indices(op, self.ordinal, Indices { idx, ..ix })
    }

    fn take(&self, op: &'static str, t: Take<'_>) -> Result<()> {
        let copied = contiguous(op, self, t.idx)?;
        let idx = copied.as_ref().map_or(t.idx, OwnedView::view);
        take(op, session(self.ordinal)?, Take { idx, ..t })
    }

    fn put(&self, op: &'static str, p: Put<'_>) -> Result<()> {
        put(op, self, p)
    }

    fn mask(&self, op: &'static str, x: View<'_>, m: View<'_>) -> Result<(Storage, usize)> {
        let (out, count) = mask(op, session(self.ordinal)?, x, m)?;
        Ok((Storage::Cuda(out), count))
    }

    fn mask_assign(
        &self,
        op: &'static str,
        x: View<'_>,
        m: View<'_>,
        value: &mut dyn FnMut(usize) -> Result<OwnedView>,
    ) -> Result<()> {
        mask_assign(op, self, x, m, value)
    }

    fn nonzero(&self, op: &'static str, a: View<'_>) -> Result<(Vec<Storage>, usize)> {
        if a.ndim() <= MAX_DIMS {
            return nonzero(op, session(self.ordinal)?, a);
        }
        // More axes than a kernel's geometry holds: the counted host trip.
        let (host, count) =
            crate::backend::fallback::on_views(op, &[a], |cpu, h| cpu.nonzero(op, h[0]))?;
        let outs = host
            .iter()
            .map(|h| match h {
                Storage::Cpu(c) => {
                    crate::cuda::runtime::transfer::upload_data(op, self.ordinal, &c.read())
                        .map(Storage::Cuda)
                }
                Storage::Cuda(_) => unreachable!("the CPU backend returns host buffers"),
            })
            .collect::<Result<_>>()?;
        Ok((outs, count))
    }

    fn where_(&self, _op: &'static str, w: Where<'_>) -> Result<()> {
        let Where { cond, x, y, out } = w;
        let dtype = out.dtype();
        fn input(i: WhereInput<'_>, dtype: DType) -> MapInput<'_> {
            match i {
                WhereInput::View(v) => MapInput::Array(v),
                WhereInput::Scalar(s) => MapInput::Scalar(s, dtype),
            }
        }
        let inputs = [MapInput::Array(cond), input(x, dtype), input(y, dtype)];
        run_map_inputs(&where_kernel(dtype), &inputs, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::kernel_gen::helpers::dump_source;

    #[test]
    fn index_reads_saturate_uint64_and_count_bools_as_one() {
        assert_eq!(
            index_expr(DType::UInt64, "x"),
            "((x) > 9223372036854775807ULL ? 9223372036854775807LL : (long long)(x))"
        );
        assert_eq!(index_expr(DType::Bool, "x"), "((long long)((x) ? 1 : 0))");
        assert_eq!(index_expr(DType::Int8, "x"), "((long long)(x))");
        let src = check_source(DType::UInt64);
        assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
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
            assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
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
            assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
            assert!(src.contains("if (cj == (j > 0 ? counts[j - 1] : 0LL)) continue;"));
            if vdt.is_none() {
                assert!(src.contains("out[(cj - 1) * m + i] = x[off];"));
            } else {
                assert!(src.contains("long long voff = (cj - 1) * vst;"));
            }
            dump_source(&format!("mask_{}_{vdt:?}", dt.name()), &src);
        }
    }

    fn put_spec(
        dt: DType,
        tgt_dt: DType,
        dims: Dims,
        geo_len: usize,
        op: Option<Binary>,
    ) -> PutSpec {
        PutSpec {
            dt,
            idx_dt: DType::Int32,
            mode: IndexMode::Wrap,
            tgt_dt,
            dims,
            geo_len,
            combine: op,
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
            let src = put_source(&put_spec(dt, tgt, d, g.len(), None));
            assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
            assert!(src.contains("later = target(idx, k2, n) == j;"));
            assert!(
                src.contains("if (q + 1 < k_n && (long long)targets[order[q + 1]] == j) continue;")
            );
            assert!(src.contains("a[off] = vals[k % len];"));
            dump_source(&format!("put_{}_{}", dt.name(), tgt.name()), &src);
        }
    }

    #[test]
    fn put_fold_sources_apply_the_ufunc_row() {
        let mut g = Geo::new();
        let d = g.dims(&[5], &[1]);
        use Binary::*;
        let ops = [Add, Add, Subtract, Maximum, Power, BitwiseXor, Logaddexp];
        use DType::*;
        let dts = [Float16, Int8, Complex128, Float32, Int64, Bool, BFloat16];
        for (op, dt) in ops.into_iter().zip(dts) {
            let src = put_source(&put_spec(dt, UInt32, d, g.len(), Some(op)));
            assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
            assert!(src.contains("const T v = vals[order[r] % len];"));
            assert!(!src.contains("acc = v;"), "{src}");
            dump_source(&format!("put_fold_{}_{}", op.name(), dt.name()), &src);
        }
        let (statement, _) = fold_statement(Some(Binary::Add), DType::Int8);
        assert_eq!(
            statement,
            "{ const int8_t in0 = acc; const int8_t in1 = v; acc = ((int8_t)(in0 + in1)); }"
        );
    }

    #[test]
    fn nonzero_and_where_sources() {
        let src = nonzero_source(3, 0, 3);
        assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
        assert!(src.contains("struct Outs { long long* p[3]; };"));
        assert!(src.contains("outs.p[2][cj - 1] = r - q * g.v[2];"));
        assert!(src.contains("outs.p[0][cj - 1] = r;"));
        dump_source("nonzero3", &src);
        let one = nonzero_source(1, 0, 1);
        assert!(!one.contains("q = r /"));
        dump_source("nonzero1", &one);
        let k = where_kernel(DType::Int16);
        assert_eq!(&k.compute[..], &[DType::Bool, DType::Int16, DType::Int16]);
        assert_eq!(&*k.expr, "(in0 ? in1 : in2)");
    }
}
