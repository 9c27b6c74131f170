//! Generated elementwise kernels: N inputs and one output of any dtypes,
//! any shapes (broadcast) and strides, one expression per element.
//!
//! Axes that are contiguous together in every operand are merged first
//! (CuPy's `_reduce_dims`), so contiguous arrays of any rank run as 1-D with
//! plain pointer indexing; other layouts pass shape and strides by value.
//! Kernels are specialised on (expression, dtypes, merged rank, contiguity,
//! 32/64-bit indexing) and cached by the session's kernel cache.

use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::{session, DeviceSession};
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::DriverResultExt;
use crate::ops::c_types::{cast_expr, ctype};
pub(crate) use crate::ops::ufunc::Input as MapInput;
use crate::ops::ufunc::{no_loop, Binary, MapOp, Ufunc, Unary};

/// Largest merged rank a generated kernel handles (more axes are an error).
pub(crate) const MAX_DIMS: usize = 16;

/// What to compute: `out = expr(in0, in1, ...)`, where `in<k>` is input k
/// converted to `compute[k]` and the expression's value has dtype `result`.
/// Cloned per deferred operation with fusion on, so its text is shared
/// (`Arc`), not copied.
#[derive(Debug, Clone)]
pub(crate) struct MapKernel {
    /// Short name for messages and the kernel symbol (`add`, `astype`).
    pub name: std::sync::Arc<str>,
    /// The dtype each input is converted to before `expr` sees it.
    pub compute: std::sync::Arc<[DType]>,
    /// C expression over `in0`, `in1`, ...
    pub expr: std::sync::Arc<str>,
    /// The dtype of `expr`'s value.
    pub result: DType,
    /// Extra C definitions the expression needs (helper functions).
    pub support: std::sync::Arc<str>,
    /// Hash of all of the above (see [`MapKernel::new`]).
    pub(crate) id: u64,
}

impl MapKernel {
    /// A kernel description; its identity is hashed once here so launches
    /// only hash the layout-dependent parts.
    pub fn new(
        name: String,
        compute: Vec<DType>,
        expr: String,
        result: DType,
        support: String,
    ) -> MapKernel {
        let id = super::helpers::key((&name, &compute, &expr, result, &support));
        MapKernel {
            name: name.into(),
            compute: compute.into(),
            expr: expr.into(),
            result,
            support: support.into(),
            id,
        }
    }
}

/// A view of one operand for a launch: device pointer of element 0 plus layout.
struct Operand {
    ptr: u64,
    dtype: DType,
    layout: Layout,
}

fn operand(op: &str, a: View<'_>, ordinal: usize) -> Result<Operand> {
    match a.storage {
        Storage::Cuda(c) if c.buffer.session.info.ordinal == ordinal => Ok(Operand {
            ptr: c.buffer.ptr + (a.offset() * a.dtype().itemsize()) as u64,
            dtype: a.dtype(),
            layout: Layout::from_parts(a.shape().to_vec(), a.strides().to_vec(), 0),
        }),
        _ => Err(Error::DeviceMismatch {
            // Only on this error path is the name interned.
            op: leak(op),
            a: format!("cuda:{ordinal}"),
            b: a.device().to_string(),
        }),
    }
}

fn leak(s: &str) -> &'static str {
    // Operation names are a small fixed set; interning keeps `Error` cheap.
    use std::collections::HashSet;
    use std::sync::Mutex;
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut g = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let set = g.get_or_insert_with(HashSet::new);
    if let Some(n) = set.get(s) {
        return n;
    }
    let n: &'static str = Box::leak(s.to_string().into_boxed_str());
    set.insert(n);
    n
}

/// How a kernel reads one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Read {
    /// One element per output element.
    Each,
    /// A broadcast scalar in device memory, read once.
    Once,
    /// A scalar kernel parameter.
    Value,
}

/// Runs `k` over `inputs` (broadcast to `out`'s shape) writing `out`.
/// All arrays must be on the same CUDA device; `out` must not overlap the
/// inputs except by being exactly one of them.
pub(crate) fn run_map<'a, 'b, I: Copy + Into<View<'a>>>(
    k: &MapKernel,
    inputs: &[I],
    out: impl Into<View<'b>>,
) -> Result<()> {
    let inputs: smallvec::SmallVec<[MapInput; 4]> =
        inputs.iter().map(|&a| MapInput::Array(a.into())).collect();
    run_map_view(k, &inputs, out.into())
}

/// As [`run_map`], with scalar inputs passed by value (no device copy).
pub(crate) fn run_map_inputs<'b>(
    k: &MapKernel,
    inputs: &[MapInput],
    out: impl Into<View<'b>>,
) -> Result<()> {
    run_map_view(k, inputs, out.into())
}

/// [`run_map_inputs`] on a view.
fn run_map_view(k: &MapKernel, inputs: &[MapInput], out: View<'_>) -> Result<()> {
    let ordinal = match out.device() {
        crate::Device::Cuda(n) => n,
        crate::Device::Cpu => unreachable!("run_map is only called for CUDA arrays"),
    };
    let session = session(ordinal)?;
    let n = out.size();
    if n == 0 {
        return Ok(());
    }
    if let Some(ptrs) = same_shape_contiguous(inputs, out, ordinal) {
        let held = match out.storage {
            Storage::Cuda(c) if crate::cuda::fusion::enabled() => Some(c.buffer.downgrade()),
            _ => None,
        };
        return run_map_contiguous(k, session, inputs, &ptrs, out.dtype(), n, held);
    }
    let shape = out.shape().to_vec();
    // Operands held in memory (array inputs, then the output), broadcast to `shape`.
    let mut ops = Vec::with_capacity(inputs.len() + 1);
    for input in inputs {
        if let MapInput::Array(a) = input {
            let mut o = operand(&k.name, *a, ordinal)?;
            o.layout = o
                .layout
                .broadcast_to(&shape)
                .map_err(|_| Error::Broadcast {
                    op: leak(&k.name),
                    shapes: vec![a.shape().to_vec(), shape.clone()],
                })?;
            ops.push(o);
        }
    }
    ops.push(operand(&k.name, out, ordinal)?);
    let layouts: Vec<&Layout> = ops.iter().map(|o| &o.layout).collect();
    let (mshape, mstrides) = Layout::merge_axes(&layouts);
    if mshape.len() > MAX_DIMS {
        return Err(Error::Shape {
            op: leak(&k.name),
            detail: format!(
                "the operands need {} dimensions after merging; GPU kernels support up to {MAX_DIMS}",
                mshape.len()
            ),
        });
    }
    if crate::cuda::fusion::enabled()
        && defer_strided(k, session, inputs, &ops, out, &mshape, &mstrides)?
    {
        return Ok(());
    }
    // Contiguous: every operand is unit-stride over the single merged axis,
    // or a broadcast scalar (stride 0).
    let contiguous = mshape.len() <= 1
        && mstrides
            .iter()
            .all(|s| s.first().is_none_or(|&st| st == 1 || st == 0));
    // 32-bit indexing when every element offset fits.
    let max_span: i128 = mstrides
        .iter()
        .map(|st| {
            st.iter()
                .zip(&mshape)
                .map(|(&s, &d)| (s.unsigned_abs() as i128) * (d as i128))
                .sum::<i128>()
        })
        .max()
        .unwrap_or(0)
        .max(n as i128);
    let small = max_span < i32::MAX as i128;
    // How each input is read; the output comes last.
    let mut kinds = Vec::with_capacity(inputs.len() + 1);
    let mut mem = ops.iter().zip(&mstrides);
    for input in inputs {
        match input {
            MapInput::Scalar(_, dt) => kinds.push((*dt, Read::Value)),
            MapInput::Array(_) => {
                let (o, st) = mem.next().expect("one operand per array input");
                let read = if st.iter().all(|&x| x == 0) {
                    Read::Once
                } else {
                    Read::Each
                };
                kinds.push((o.dtype, read));
            }
        }
    }
    kinds.push((out.dtype(), Read::Each));
    let key = super::helpers::key((k.id, &kinds[..], mshape.len(), contiguous, small));
    let func = session
        .kernels
        .specialized(session, key, &k.name, "cuprite_map", || {
            generate(k, &kinds, mshape.len(), contiguous, small)
        })?;

    let mut args = KernelArgs::new();
    push_map_args(&mut args, inputs, ops.iter().map(|o| o.ptr));
    if !contiguous {
        // Shape then each memory operand's strides, in the index width.
        let geo = super::codegen::elementwise_geo(&mshape, &mstrides);
        let (bytes, align) = super::codegen::geo_bytes(&geo, small);
        args.push_bytes(&bytes, align);
    }
    args.push(n as i64);
    let cfg = grid_for(session, n);
    launch(session, &k.name, func, cfg, &current_stream(), &mut args)
}

/// With fusion on, defers a map whose output is C-contiguous and whose
/// array inputs are broadcast or strided views into the stream's pending
/// batch, each such input read through its merged strides; returns false
/// when it must launch by itself (an output view, too many merged axes).
fn defer_strided(
    k: &MapKernel,
    session: &DeviceSession,
    inputs: &[MapInput],
    ops: &[Operand],
    out: View<'_>,
    mshape: &[usize],
    mstrides: &[Vec<isize>],
) -> Result<bool> {
    use crate::cuda::fusion::StridedRead;
    let n = out.size();
    if mshape.len() > StridedRead::MAX_RANK || n > u32::MAX as usize {
        return Ok(false);
    }
    let mut dense = vec![1isize; mshape.len()];
    for d in (0..mshape.len().saturating_sub(1)).rev() {
        dense[d] = dense[d + 1] * mshape[d + 1] as isize;
    }
    let Some((out_strides, input_strides)) = mstrides.split_last() else {
        return Ok(false);
    };
    if *out_strides != dense {
        return Ok(false);
    }
    let strided: smallvec::SmallVec<[Option<StridedRead>; 2]> = input_strides
        .iter()
        .map(|st| {
            (*st != dense).then(|| StridedRead {
                dims: mshape.iter().map(|&d| d as u32).collect(),
                strides: st.iter().map(|&s| s as i64).collect(),
            })
        })
        .collect();
    let ptrs: smallvec::SmallVec<[u64; 4]> = ops.iter().map(|o| o.ptr).collect();
    let held = match out.storage {
        Storage::Cuda(c) => Some(c.buffer.downgrade()),
        _ => None,
    };
    crate::cuda::batch::defer(k, session, inputs, &ptrs, &strided, out.dtype(), n, held)
}

/// The device pointers of the array inputs, then of the output, when every
/// array input and the output are C-contiguous with the output's shape on
/// device `ordinal` and there are at least 2 elements: the case most calls
/// are, launched without the layout work (broadcasting, merging axes) that
/// costs a small operation a good part of its host time.
fn same_shape_contiguous(
    inputs: &[MapInput],
    out: View<'_>,
    ordinal: usize,
) -> Option<smallvec::SmallVec<[u64; 4]>> {
    let ptr = |a: View<'_>| match a.storage {
        Storage::Cuda(c) if c.buffer.session.info.ordinal == ordinal && a.is_c_contiguous() => {
            Some(c.buffer.ptr + (a.offset() * a.dtype().itemsize()) as u64)
        }
        _ => None,
    };
    if out.size() < 2 {
        return None;
    }
    let mut ptrs = smallvec::SmallVec::new();
    for input in inputs {
        if let MapInput::Array(a) = input {
            if a.shape() != out.shape() {
                return None;
            }
            ptrs.push(ptr(*a)?);
        }
    }
    ptrs.push(ptr(out)?);
    Some(ptrs)
}

/// [`run_map_inputs`] for the case [`same_shape_contiguous`] found: one
/// merged unit-stride axis, so the kernel (and its cache key) is the one the
/// general path would pick.
fn run_map_contiguous(
    k: &MapKernel,
    session: &DeviceSession,
    inputs: &[MapInput],
    ptrs: &[u64],
    out_dt: DType,
    n: usize,
    out: Option<std::sync::Weak<dyn crate::core::storage::GpuBuffer>>,
) -> Result<()> {
    if crate::cuda::batch::defer(k, session, inputs, ptrs, &[], out_dt, n, out)? {
        return Ok(());
    }
    let mut kinds: smallvec::SmallVec<[(DType, Read); 4]> = inputs
        .iter()
        .map(|input| match input {
            MapInput::Scalar(_, dt) => (*dt, Read::Value),
            MapInput::Array(a) => (a.dtype(), Read::Each),
        })
        .collect();
    kinds.push((out_dt, Read::Each));
    let func = contiguous_kernel(k, session, &kinds, n)?;
    let mut args = KernelArgs::new();
    push_map_args(&mut args, inputs, ptrs.iter().copied());
    args.push(n as i64);
    let cfg = grid_for(session, n);
    launch(session, &k.name, func, cfg, &current_stream(), &mut args)
}

/// The specialised kernel of `k` over one contiguous axis of `n` elements
/// with operands read as `kinds` (inputs then the output): the kernel
/// direct launches use, and a fused batch of one operation too.
pub(crate) fn contiguous_kernel(
    k: &MapKernel,
    session: &DeviceSession,
    kinds: &[(DType, Read)],
    n: usize,
) -> Result<crate::cuda::runtime::compile::Function> {
    let small = n < i32::MAX as usize;
    let key = super::helpers::key((k.id, kinds, 1usize, true, small));
    session
        .kernels
        .specialized(session, key, &k.name, "cuprite_map", || {
            generate(k, kinds, 1, true, small)
        })
}

/// A map kernel's leading arguments: each input (scalars by value, arrays
/// by the next pointer of `ptrs`), then the output's pointer.
fn push_map_args(args: &mut KernelArgs, inputs: &[MapInput], mut ptrs: impl Iterator<Item = u64>) {
    for input in inputs {
        match input {
            MapInput::Scalar(v, dt) => {
                use crate::Element;
                crate::with_dtype!(*dt, T => {
                    args.push(T::from_scalar(*v));
                });
            }
            MapInput::Array(_) => {
                args.push(ptrs.next().expect("one pointer per array input"));
            }
        }
    }
    args.push(ptrs.next().expect("the output pointer"));
}

/// Threads per block and a grid that fills the device several times over
/// (each thread loops over the elements with a grid stride).
pub(crate) fn grid_for(session: &DeviceSession, n: usize) -> LaunchConfig {
    let threads = 256u32;
    let needed = n.div_ceil(threads as usize * 4).max(1);
    let cap = session.info.sm_count.max(1) * 32;
    LaunchConfig {
        grid: (needed.min(cap) as u32, 1, 1),
        block: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The kernel source for one specialisation, from the one elementwise
/// generator (`codegen::generate`): input `k` is `in<k>` converted to
/// `k.compute[k]` (scalars passed by value as `v<k>` and converted in the
/// operation), and the output `_y` receives the expression cast to its dtype.
pub(crate) fn generate(
    k: &MapKernel,
    kinds: &[(DType, Read)],
    ndim: usize,
    contiguous: bool,
    small: bool,
) -> String {
    use super::codegen::{GenParam, Pass};
    let n_in = kinds.len() - 1;
    let out_dt = kinds[n_in].0;
    let mut params = Vec::with_capacity(kinds.len());
    let mut operation = String::new();
    let param = |name: String, pass: Pass, actual: DType, ty: DType, out: bool| GenParam {
        name,
        pass,
        actual,
        ty,
        out,
    };
    for (i, &(d, read)) in kinds.iter().enumerate().take(n_in) {
        let c = k.compute[i];
        match read {
            Read::Value => {
                params.push(param(format!("v{i}"), Pass::Value, d, d, false));
                let v = cast_expr(d, c, &format!("v{i}"));
                operation.push_str(&format!("const {} in{i} = {v}; ", ctype(c)));
            }
            Read::Once => params.push(param(format!("in{i}"), Pass::Once, d, c, false)),
            Read::Each => params.push(param(format!("in{i}"), Pass::Each, d, c, false)),
        }
    }
    params.push(param("_y".into(), Pass::Each, out_dt, out_dt, true));
    let value = cast_expr(k.result, out_dt, &format!("({})", k.expr));
    operation.push_str(&format!("_y = {value};"));
    super::codegen::generate(&super::codegen::Elementwise {
        name: "cuprite_map",
        title: &format!("`{}`, generated by cuprite", k.name),
        operation: &operation,
        preamble: "",
        support: &k.support,
        placeholders: &[],
        params: &params,
        ndim,
        contiguous,
        small,
        lanes: 1,
        restrict: true,
    })
}

/// `out[...] = cast(src)` with broadcasting (copies, casts, `assign`).
pub(crate) fn copy_cast<'a, 'b>(src: impl Into<View<'a>>, out: impl Into<View<'b>>) -> Result<()> {
    let (src, out) = (src.into(), out.into());
    // Same dtype and both contiguous: the driver's device-to-device copy.
    if src.dtype() == out.dtype()
        && src.shape() == out.shape()
        && src.is_c_contiguous()
        && out.is_c_contiguous()
        && src.device() == out.device()
        && !src.shares_memory(&out)
    {
        if let (Storage::Cuda(a), Storage::Cuda(b)) = (src.storage, out.storage) {
            let item = src.dtype().itemsize() as u64;
            let bytes = src.size() * src.dtype().itemsize();
            if bytes == 0 {
                return Ok(());
            }
            a.buffer.session.bind()?;
            // SAFETY: both ranges lie inside their buffers (checked layouts)
            // and do not overlap (different buffers).
            return unsafe {
                cudarc::driver::sys::cuMemcpyDtoDAsync_v2(
                    b.buffer.ptr + out.offset() as u64 * item,
                    a.buffer.ptr + src.offset() as u64 * item,
                    bytes,
                    current_stream().raw(),
                )
            }
            .result()
            .op("copy");
        }
    }

    let k = MapKernel::new(
        "copy".into(),
        vec![src.dtype()],
        "in0".into(),
        src.dtype(),
        String::new(),
    );
    run_map_view(&k, &[MapInput::Array(src)], out)
}

/// Every element of `out` set to `value` (cast to out's dtype), passed to
/// the kernel as a parameter so one compiled kernel per dtype serves every
/// value.
pub(crate) fn fill<'a>(out: impl Into<View<'a>>, value: crate::Scalar) -> Result<()> {
    let out = out.into();
    let dt = out.dtype();
    let k = memoized(("fill", dt), || {
        Some(MapKernel::new(
            "fill".into(),
            vec![dt],
            "in0".into(),
            dt,
            String::new(),
        ))
    })
    .expect("fill has a kernel for every dtype");
    run_map_view(&k, &[MapInput::Scalar(value, dt)], out)
}

/// The kernel description stored under `key` (None: no GPU kernel), built
/// once per copy of the crate (descriptions are few: one per op and dtype).
pub(crate) fn memoized(
    key: (&'static str, DType),
    build: impl FnOnce() -> Option<MapKernel>,
) -> Option<std::sync::Arc<MapKernel>> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex};
    type Table = HashMap<(&'static str, DType), Option<Arc<MapKernel>>>;
    static KERNELS: Mutex<Option<Table>> = Mutex::new(None);
    let mut g = KERNELS.lock().unwrap_or_else(|e| e.into_inner());
    let map = g.get_or_insert_with(HashMap::new);
    if let Some(k) = map.get(&key) {
        return k.clone();
    }
    let k = build().map(Arc::new);
    map.insert(key, k.clone());
    k
}

/// The kernel of built-in ufunc `op` with loop dtype `dt` (one per
/// process); `None` where the op has no loop for `dt`.
pub(crate) fn ufunc_kernel(
    op: crate::ops::ufunc::Ufunc,
    dt: DType,
) -> Option<std::sync::Arc<MapKernel>> {
    memoized((op.name(), dt), || {
        let e = super::ufunc_expr::expr(op, dt)?;
        // A half-precision loop computes in float32 and rounds once to its
        // own dtype, as NumPy's float16 loop gives it, whatever `out` is.
        let (expr, result) = match (dt, e.result) {
            (DType::Float16 | DType::BFloat16, DType::Float32) => {
                (cast_expr(DType::Float32, dt, &format!("({})", e.expr)), dt)
            }
            _ => (e.expr, e.result),
        };
        Some(MapKernel::new(
            op.name().into(),
            vec![e.compute; op.arity()],
            expr,
            result,
            e.support.into(),
        ))
    })
}

/// The kernel of built-in ufunc `op` for loop dtype `dt`, or the error for
/// a loop the table lacks.
fn ufunc_kernel_or_err(op: Ufunc, dt: DType) -> Result<std::sync::Arc<MapKernel>> {
    ufunc_kernel(op, dt).ok_or_else(|| no_loop(op.name(), dt))
}

/// Device functions of integer rounding to tens, hundreds, ...
const ROUND_INT: &str = include_str!("../../ops/cuda/round_int.cuh");

/// A GPU kernel and the scalar parameter it takes after its array input.
pub(crate) type KernelWithParam = (std::sync::Arc<MapKernel>, Option<(crate::Scalar, DType)>);

/// `round` on the GPU: rint, or a scaled rint with the power of ten passed
/// by value (computed here exactly as the CPU does), or integer rounding.
pub(crate) fn round_kernel(dt: DType, decimals: i32) -> Result<KernelWithParam> {
    use crate::Scalar;
    let c = crate::ops::ufunc::gpu_compute_dtype(dt);
    // Integer rounding past 10^20 gives 0 on both halves; capping keeps
    // `-i32::MIN` from wrapping to a negative count.
    let k = decimals.unsigned_abs().min(20) as i32;
    if dt.is_inexact() && decimals == 0 {
        return Ok((ufunc_kernel_or_err(Ufunc::Unary(Unary::Rint), dt)?, None));
    }
    if !dt.is_inexact() && decimals >= 0 {
        return Ok((
            ufunc_kernel_or_err(Ufunc::Unary(Unary::Positive), dt)?,
            None,
        ));
    }
    let (key, expr, param, support): (&'static str, &str, (Scalar, DType), &str) =
        if dt.is_inexact() {
            let factor = Scalar::Float(crate::ops::scalar_math::round_factor(decimals));
            let real = c.real_dtype();
            match (dt.is_complex(), decimals > 0) {
                (false, true) => ("round+", "rint(in0 * in1) / in1", (factor, real), ""),
                (false, false) => ("round-", "rint(in0 / in1) * in1", (factor, real), ""),
                (true, true) => (
                    "round+",
                    "mk(rint(in0.re * in1) / in1, rint(in0.im * in1) / in1)",
                    (factor, real),
                    "",
                ),
                (true, false) => (
                    "round-",
                    "mk(rint(in0.re / in1) * in1, rint(in0.im / in1) * in1)",
                    (factor, real),
                    "",
                ),
            }
        } else {
            (
                "round-int",
                "np_round_int(in0, in1)",
                (Scalar::Int(k as i64), DType::Int32),
                ROUND_INT,
            )
        };
    let kernel = memoized((key, dt), || {
        Some(MapKernel::new(
            "round".into(),
            vec![c, param.1],
            expr.into(),
            c,
            support.into(),
        ))
    })
    .ok_or_else(|| no_loop("round", dt))?;
    Ok((kernel, Some(param)))
}

/// The GPU kernel of `clip`: the table's `minimum` applied to its `maximum`,
/// so NaN and complex order follow those rows exactly.
pub(crate) fn clip_kernel(dt: DType) -> Result<std::sync::Arc<MapKernel>> {
    use super::ufunc_expr::expr;
    let max = expr(Ufunc::Binary(Binary::Maximum), dt).ok_or_else(|| no_loop("clip", dt))?;
    let min = expr(Ufunc::Binary(Binary::Minimum), dt).ok_or_else(|| no_loop("clip", dt))?;
    let text = min
        .expr
        .replace("in1", "in2")
        .replace("in0", &format!("({})", max.expr));
    let support = if max.support == min.support {
        max.support.to_string()
    } else {
        format!("{}{}", max.support, min.support)
    };
    memoized(("clip", dt), || {
        Some(MapKernel::new(
            "clip".into(),
            vec![max.compute; 3],
            text,
            max.result,
            support,
        ))
    })
    .ok_or_else(|| no_loop("clip", dt))
}

/// Runs elementwise `op` with loop dtype `loop_dt` over `inputs` into `out`
/// (which the caller made safe to write while the inputs are read).
fn run_op(op: MapOp, loop_dt: DType, inputs: &[MapInput], out: View<'_>) -> Result<()> {
    match op {
        MapOp::Ufunc(u) => run_map_view(&*ufunc_kernel_or_err(u, loop_dt)?, inputs, out),
        MapOp::Clip => run_map_view(&*clip_kernel(loop_dt)?, inputs, out),
        MapOp::Round(decimals) => {
            let (k, param) = round_kernel(loop_dt, decimals)?;
            match param {
                Some((v, pdt)) => {
                    let mut with: smallvec::SmallVec<[MapInput; 4]> =
                        inputs.iter().copied().collect();
                    with.push(MapInput::Scalar(v, pdt));
                    run_map_view(&k, &with, out)
                }
                None => run_map_view(&k, inputs, out),
            }
        }
    }
}

// The Elementwise family of the backend interface (`ops::backend`).
impl crate::ops::ufunc::Elementwise for crate::cuda::CudaBackend {
    fn map_new(
        &self,
        op: MapOp,
        loop_dt: DType,
        out_dt: DType,
        inputs: &[MapInput<'_>],
        layout: &Layout,
    ) -> Result<Storage> {
        let n = crate::core::layout::checked_size(op.name(), layout.shape())?;
        let storage = Storage::Cuda(crate::cuda::runtime::transfer::alloc(
            op.name(),
            self.ordinal,
            out_dt,
            n,
        )?);
        run_op(op, loop_dt, inputs, View::new(&storage, layout, out_dt))?;
        Ok(storage)
    }

    fn map_into(
        &self,
        op: MapOp,
        loop_dt: DType,
        inputs: &[MapInput<'_>],
        out: View<'_>,
    ) -> Result<()> {
        // `out` may be written while the inputs are read when it is one of
        // them exactly or shares no memory with them; else the result goes
        // through a new array.
        let safe = inputs.iter().all(|i| match i {
            MapInput::Array(a) => !a.shares_memory(&out) || a.layout == out.layout,
            MapInput::Scalar(..) => true,
        });
        if safe {
            return run_op(op, loop_dt, inputs, out);
        }
        let out_dt = match op {
            MapOp::Ufunc(u) => u.types(loop_dt).map_or(loop_dt, |t| t.1),
            MapOp::Round(_) | MapOp::Clip => loop_dt,
        };
        let layout = Layout::contiguous(out.shape());
        let tmp = self.map_new(op, loop_dt, out_dt, inputs, &layout)?;
        copy_cast(View::new(&tmp, &layout, out_dt), out)
    }
}

impl crate::ops::create::Create for crate::cuda::CudaBackend {
    fn empty(&self, op: &'static str, dtype: DType, len: usize) -> Result<Storage> {
        Ok(Storage::Cuda(crate::cuda::runtime::transfer::alloc(
            op,
            self.ordinal,
            dtype,
            len,
        )?))
    }

    fn full(
        &self,
        op: &'static str,
        dtype: DType,
        len: usize,
        value: crate::Scalar,
    ) -> Result<Storage> {
        let storage = self.empty(op, dtype, len)?;
        let layout = Layout::contiguous(&[len]);
        fill(View::new(&storage, &layout, dtype), value)?;
        Ok(storage)
    }

    fn arange(
        &self,
        op: &'static str,
        dtype: DType,
        len: usize,
        start: crate::Scalar,
        step: crate::Scalar,
    ) -> Result<Storage> {
        crate::cuda::arange::arange(op, self.ordinal, dtype, len, start, step)
    }

    fn copy_cast(&self, _op: &'static str, src: View<'_>, dst: View<'_>) -> Result<()> {
        copy_cast(src, dst)
    }

    fn fill(&self, _op: &'static str, dst: View<'_>, value: crate::Scalar) -> Result<()> {
        fill(dst, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_are_spelled_for_every_pair() {
        for from in DType::ALL {
            for to in DType::ALL {
                let e = cast_expr(from, to, "x");
                assert!(!e.is_empty());
                if from == to {
                    assert_eq!(e, "x");
                }
            }
        }
        assert_eq!(
            cast_expr(DType::Float16, DType::Int32, "x"),
            "(int32_t)(long long)(to_float(x))"
        );
        assert_eq!(
            cast_expr(DType::Complex64, DType::UInt8, "x"),
            "(uint8_t)(long long)(x.re)"
        );
        assert_eq!(
            cast_expr(DType::Complex128, DType::Bool, "x"),
            "(x.re != 0 || x.im != 0)"
        );
        assert_eq!(
            cast_expr(DType::Float64, DType::BFloat16, "x"),
            "make_bf16((float)(x))"
        );
    }

    /// The GPU kernels of `round` and `clip` for every dtype, compiled by
    /// NVRTC where it is present (the ufunc rows have their own check).
    #[test]
    fn round_and_clip_kernels_compile() {
        for dt in DType::ALL {
            // `round` of bools runs in float16, as in NumPy.
            let rdt = if dt.is_bool() { DType::Float16 } else { dt };
            for decimals in [0, 2, -1] {
                let (k, param) = round_kernel(rdt, decimals).unwrap();
                let mut reads = vec![(rdt, Read::Each)];
                if let Some((_, pdt)) = param {
                    reads.push((pdt, Read::Value));
                }
                reads.push((rdt, Read::Each));
                let name = format!("round_{dt}_{decimals}");
                super::super::helpers::dump_source(&name, &generate(&k, &reads, 1, true, true));
            }
            let k = clip_kernel(dt).unwrap();
            let reads = [
                (dt, Read::Each),
                (dt, Read::Value),
                (dt, Read::Each),
                (dt, Read::Each),
            ];
            super::super::helpers::dump_source(
                &format!("clip_{dt}"),
                &generate(&k, &reads, 1, true, true),
            );
        }
    }

    #[test]
    fn generated_source_has_one_kernel_with_the_expression() {
        let k = MapKernel::new(
            "add".into(),
            vec![DType::Float32, DType::Float32],
            "in0 + in1".into(),
            DType::Float32,
            String::new(),
        );
        let f = DType::Float32;
        let src = generate(
            &k,
            &[(f, Read::Each), (f, Read::Once), (f, Read::Each)],
            1,
            true,
            true,
        );
        assert!(src.contains("extern \"C\" __global__ void cuprite_map(const float* __restrict__ _raw_in0, const float* __restrict__ _raw_in1, float* __restrict__ _raw__y, const long long _n)"), "{src}");
        assert!(
            src.contains("const float _once_in1 = _raw_in1[0];"),
            "{src}"
        );
        assert!(src.contains("_y = (in0 + in1);"), "{src}");
        assert!(
            src.contains("_cp_op(_i, _ind, _raw_in0[_i], _once_in1, _raw__y[_i]);"),
            "{src}"
        );
        let src = generate(
            &k,
            &[(f, Read::Each), (DType::Int8, Read::Value), (f, Read::Each)],
            1,
            true,
            true,
        );
        assert!(src.contains("const int8_t _raw_v1"), "{src}");
        assert!(src.contains("const float in1 = (float)(v1);"), "{src}");
        let h = DType::Float16;
        let src = generate(
            &k,
            &[(f, Read::Each), (f, Read::Each), (h, Read::Each)],
            3,
            false,
            false,
        );
        assert!(src.contains("typedef long long _cp_idx;"), "{src}");
        assert!(
            src.contains("struct _cp_Geo { long long v[12]; };"),
            "{src}"
        );
        assert!(src.contains("make_f16((float)((in0 + in1)))"), "{src}");
        // A value parameter has no stride slot: the output uses slot 1, and
        // small kernels compute offsets in 32 bits.
        let src = generate(
            &k,
            &[(f, Read::Each), (f, Read::Value), (f, Read::Each)],
            2,
            false,
            true,
        );
        assert!(src.contains("struct _cp_Geo { _cp_idx v[6]; };"), "{src}");
        assert!(src.contains("_o__y += _d * _g.v[5];"), "{src}");
        assert!(src.contains("{ _cp_idx _r = (_i), _q, _d; "), "{src}");
        super::super::helpers::dump_source("map_strided_value", &src);
    }
}
