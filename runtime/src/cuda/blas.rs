//! cuBLAS: matrix products (`cublasGemmEx`, `cublasGemmStridedBatchedEx`)
//! batched inverses (`getrfBatched` + `getriBatched`) and triangular solves
//! (`trsm`) on our own device pointers, on the current stream.
//!
//! cuBLAS is column-major. A C-order (row-major) m×n matrix with row stride
//! `ld` is, read column-major, its n×m transpose with leading dimension `ld`;
//! so `C = A B` in row-major is computed as `Cᵀ = Bᵀ Aᵀ` column-major, and
//! each operand is passed with the transpose flag its layout needs (no
//! copies for C- or F-contiguous matrices, or any layout with one unit
//! stride and a large enough other stride).

use std::ffi::c_void;

use cudarc::cublas::sys as cb;

use super::Handle;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::view::View;
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::vendor::{
    check_status, float_data_type, ptr, session_of, with_handle as vendor_handle, Buffer,
};
use crate::ops::create::Create;
use crate::ops::linalg::{Trans, Triangular};
use crate::ops::matmul::Matmul;
use crate::ops::MatmulPrecision;

/// Every cuBLAS function this module calls (checked once before the first).
const SYMBOLS: &[&str] = &[
    "cublasCreate_v2",
    "cublasSetStream_v2",
    "cublasSetMathMode",
    "cublasGemmEx",
    "cublasGemmStridedBatchedEx",
    "cublasSgetrfBatched",
    "cublasDgetrfBatched",
    "cublasCgetrfBatched",
    "cublasZgetrfBatched",
    "cublasSgetriBatched",
    "cublasDgetriBatched",
    "cublasCgetriBatched",
    "cublasZgetriBatched",
    "cublasStrsm_v2",
    "cublasDtrsm_v2",
    "cublasCtrsm_v2",
    "cublasZtrsm_v2",
];

/// A device's cuBLAS handle, kept in its session (`DeviceSession::cublas`),
/// used under the session's lock, bound to the current stream per call.
pub(crate) type BlasHandle = Handle<cb::cublasHandle_t>;

/// `cublasStatus_t` to `Error::Cuda`.
pub(crate) fn check(op: &str, call: &str, st: cb::cublasStatus_t) -> Result<()> {
    check_status(op, call, st, cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS)
}

/// Loads cuBLAS once, checking every function this module calls.
pub(crate) fn require(op: &'static str) -> Result<()> {
    crate::cuda::runtime::libs::require("cublas", SYMBOLS, op)
}

/// Runs `f` with the device's cuBLAS handle, set to the current stream.
pub(crate) fn with_handle<R>(
    op: &'static str,
    s: &DeviceSession,
    f: impl FnOnce(cb::cublasHandle_t) -> Result<R>,
) -> Result<R> {
    require(op)?;
    let create = || {
        let mut h: cb::cublasHandle_t = std::ptr::null_mut();
        // SAFETY: out pointer valid; the device's context is current.
        check(op, "cublasCreate", unsafe { cb::cublasCreate_v2(&mut h) })?;
        Ok(h)
    };
    // SAFETY: valid handle; the stream belongs to this context (or is null).
    let bind = |h, stream| {
        check(op, "cublasSetStream", unsafe {
            cb::cublasSetStream_v2(h, stream as cb::cudaStream_t)
        })
    };
    vendor_handle(s, &s.cublas, create, bind, f)
}

/// How cuBLAS reads a strided rows×cols matrix: `row_major` (memory holds
/// its transpose column-major) or not, with leading dimension `ld`. `None`
/// when neither stride is a unit stride with room for the other axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MatView {
    pub row_major: bool,
    pub ld: i64,
}

pub(crate) fn mat_view(rows: usize, cols: usize, rs: isize, cs: isize) -> Option<MatView> {
    let fits = |ld: isize| ld > 0 && ld <= i32::MAX as isize;
    // Row-major: element (i, j) at i*ld + j.
    if cs == 1 || cols == 1 {
        let ld = if rows == 1 { cols.max(1) as isize } else { rs };
        if ld >= cols.max(1) as isize && fits(ld) {
            return Some(MatView {
                row_major: true,
                ld: ld as i64,
            });
        }
    }
    // Column-major: element (i, j) at i + j*ld.
    if rs == 1 || rows == 1 {
        let ld = if cols == 1 { rows.max(1) as isize } else { cs };
        if ld >= rows.max(1) as isize && fits(ld) {
            return Some(MatView {
                row_major: false,
                ld: ld as i64,
            });
        }
    }
    None
}

/// `a` (..., r, c) itself when cuBLAS can read its matrices in place, else
/// a C-contiguous copy (in `keep`, which holds its buffer).
fn blas_ready<'a>(op: &'static str, a: View<'a>, keep: &'a mut Option<Buffer>) -> Result<View<'a>> {
    let nd = a.ndim();
    let (r, c) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let (rs, cs) = (a.strides()[nd - 2], a.strides()[nd - 1]);
    if mat_view(r, c, rs, cs).is_some() {
        return Ok(a);
    }
    let ord = crate::cuda::runtime::vendor::ordinal(op, a)?;
    let copy = keep.insert(Buffer::new(op, ord, a.dtype(), a.shape())?);
    super::backend(ord)
        .expect("a device in use has a backend")
        .copy_cast(op, a, copy.view())?;
    Ok(copy.view())
}

/// How a batch of products is issued: `outer` offsets (elements, one per
/// call, for a, b, out) and, per call, `count` products `stride` apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BatchPlan {
    pub outer: Vec<[isize; 3]>,
    pub count: usize,
    pub stride: [isize; 3],
}

/// Groups the batch axes (same shape for a, b, out; strides per operand)
/// into as few strided-batched calls as the strides allow.
pub(crate) fn batch_plan(batch: &[usize], strides: [&[isize]; 3]) -> BatchPlan {
    use crate::core::layout::Layout;
    let ls: Vec<Layout> = strides
        .iter()
        .map(|s| Layout::from_parts(batch.to_vec(), s.to_vec(), 0))
        .collect();
    let (shape, st) = Layout::merge_axes(&[&ls[0], &ls[1], &ls[2]]);
    let (outer_shape, count, stride) = match shape.last() {
        Some(&c) if st.iter().all(|s| *s.last().expect("same rank") >= 0) => (
            shape[..shape.len() - 1].to_vec(),
            c,
            [
                st[0][shape.len() - 1],
                st[1][shape.len() - 1],
                st[2][shape.len() - 1],
            ],
        ),
        Some(_) => (shape.clone(), 1, [0, 0, 0]),
        None => (vec![], 1, [0, 0, 0]),
    };
    let nd = outer_shape.len();
    let outer_strides: Vec<&[isize]> = st.iter().map(|s| &s[..nd]).collect();
    let total: usize = outer_shape.iter().product();
    let mut outer = Vec::with_capacity(total);
    let mut idx = vec![0usize; nd];
    for _ in 0..total {
        let mut off = [0isize; 3];
        for (k, o) in off.iter_mut().enumerate() {
            *o = idx
                .iter()
                .zip(outer_strides[k])
                .map(|(&i, &s)| i as isize * s)
                .sum();
        }
        outer.push(off);
        for ax in (0..nd).rev() {
            idx[ax] += 1;
            if idx[ax] < outer_shape[ax] {
                break;
            }
            idx[ax] = 0;
        }
    }
    BatchPlan {
        outer,
        count,
        stride,
    }
}

fn data_type(op: &'static str, d: DType) -> Result<cb::cudaDataType> {
    match d {
        DType::Float16 => Ok(cb::cudaDataType::CUDA_R_16F),
        DType::BFloat16 => Ok(cb::cudaDataType::CUDA_R_16BF),
        other => float_data_type!(cb, other).ok_or_else(|| Error::DType {
            op,
            detail: format!("cuBLAS has no product for {other}"),
        }),
    }
}

/// The compute type of a product of `d` under `p`, and whether TF32 math is on.
pub(crate) fn compute_type(d: DType, p: MatmulPrecision) -> cb::cublasComputeType_t {
    use cb::cublasComputeType_t::*;
    match (d, p) {
        (DType::Float64 | DType::Complex128, _) => CUBLAS_COMPUTE_64F,
        (DType::Float32 | DType::Complex64, MatmulPrecision::TF32) => CUBLAS_COMPUTE_32F_FAST_TF32,
        (DType::Float32 | DType::Complex64, MatmulPrecision::FP16) => CUBLAS_COMPUTE_32F_FAST_16F,
        _ => CUBLAS_COMPUTE_32F,
    }
}

/// `out = a @ b` for a (batch..., m, k), b (batch..., k, n) of one
/// floating dtype (batch axes already broadcast; any strides, each matrix
/// readable per [`mat_view`]), out C-contiguous (batch..., m, n). m, n, k > 0.
fn gemm(a: View<'_>, b: View<'_>, out: View<'_>, precision: MatmulPrecision) -> Result<()> {
    let op = "matmul";
    let nd = a.ndim();
    let (m, k) = (a.shape()[nd - 2], a.shape()[nd - 1]);
    let n = b.shape()[nd - 1];
    let dtype = a.dtype();
    let dt = data_type(op, dtype)?;
    let too_big = |what: &str, v: usize| -> Result<i32> {
        i32::try_from(v).map_err(|_| Error::InvalidArgument {
            op,
            detail: format!("{what} = {v} exceeds cuBLAS's 32-bit limit"),
        })
    };
    let (mi, ni, ki) = (too_big("m", m)?, too_big("n", n)?, too_big("k", k)?);
    let av = mat_view(m, k, a.strides()[nd - 2], a.strides()[nd - 1]).ok_or_else(|| {
        Error::InvalidArgument {
            op,
            detail: "internal: operand layout not readable by cuBLAS".into(),
        }
    })?;
    let bv = mat_view(k, n, b.strides()[nd - 2], b.strides()[nd - 1]).ok_or_else(|| {
        Error::InvalidArgument {
            op,
            detail: "internal: operand layout not readable by cuBLAS".into(),
        }
    })?;
    // Cᵀ (n×m) = op(Bᵀ) op(Aᵀ): a row-major operand is already its transpose.
    let (ta, lda) = if bv.row_major {
        (cb::cublasOperation_t::CUBLAS_OP_N, bv.ld)
    } else {
        (cb::cublasOperation_t::CUBLAS_OP_T, bv.ld)
    };
    let (tb, ldb) = if av.row_major {
        (cb::cublasOperation_t::CUBLAS_OP_N, av.ld)
    } else {
        (cb::cublasOperation_t::CUBLAS_OP_T, av.ld)
    };
    let batch = &a.shape()[..nd - 2];
    let plan = batch_plan(
        batch,
        [
            &a.strides()[..nd - 2],
            &b.strides()[..nd - 2],
            &out.strides()[..nd - 2],
        ],
    );
    let count = too_big("the batch count", plan.count)?;
    let compute = compute_type(dtype, precision);
    let math = if precision == MatmulPrecision::TF32 {
        cb::cublasMath_t::CUBLAS_TF32_TENSOR_OP_MATH
    } else {
        cb::cublasMath_t::CUBLAS_DEFAULT_MATH
    };
    // Scalars in the compute type's precision (complex: re, im).
    let one64 = [1.0f64, 0.0];
    let zero64 = [0.0f64, 0.0];
    let one32 = [1.0f32, 0.0];
    let zero32 = [0.0f32, 0.0];
    let (alpha, beta): (*const c_void, *const c_void) = match dtype {
        DType::Float64 | DType::Complex128 => (one64.as_ptr().cast(), zero64.as_ptr().cast()),
        _ => (one32.as_ptr().cast(), zero32.as_ptr().cast()),
    };
    let item = dtype.itemsize() as isize;
    let (pa, pb, pc) = (
        ptr(op, a)? as isize,
        ptr(op, b)? as isize,
        ptr(op, out)? as isize,
    );
    let s = session_of(op, a)?;
    with_handle(op, s, |h| {
        // SAFETY: valid handle; the mode is a plain enum.
        check(op, "cublasSetMathMode", unsafe {
            cb::cublasSetMathMode(h, math)
        })?;
        for off in &plan.outer {
            let xa = (pa + off[0] * item) as *const c_void;
            let xb = (pb + off[1] * item) as *const c_void;
            let xc = (pc + off[2] * item) as *mut c_void;
            // SAFETY: pointers address matrices inside the arrays' buffers
            // with the leading dimensions checked by `mat_view`; the scalars
            // live on the host for the call (host pointer mode).
            let st = unsafe {
                if plan.count == 1 {
                    cb::cublasGemmEx(
                        h,
                        ta,
                        tb,
                        ni,
                        mi,
                        ki,
                        alpha,
                        xb,
                        dt,
                        lda as i32,
                        xa,
                        dt,
                        ldb as i32,
                        beta,
                        xc,
                        dt,
                        ni,
                        compute,
                        cb::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                    )
                } else {
                    cb::cublasGemmStridedBatchedEx(
                        h,
                        ta,
                        tb,
                        ni,
                        mi,
                        ki,
                        alpha,
                        xb,
                        dt,
                        lda as i32,
                        plan.stride[1] as i64,
                        xa,
                        dt,
                        ldb as i32,
                        plan.stride[0] as i64,
                        beta,
                        xc,
                        dt,
                        ni,
                        plan.stride[2] as i64,
                        count,
                        compute,
                        cb::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                    )
                }
            };
            check(
                op,
                if plan.count == 1 {
                    "cublasGemmEx"
                } else {
                    "cublasGemmStridedBatchedEx"
                },
                st,
            )?;
        }
        Ok(())
    })
}

/// Solves `op(A) X = B` in place in `x` (C-contiguous (n, k), holding B)
/// for the C-contiguous triangular `a` (n, n), read as `how` says: cuBLAS's
/// `trsm`. Read
/// column-major, `a` is Aᵀ (the other triangle) and `x` is Xᵀ, so this
/// solves `Xᵀ op(Aᵀ) = Bᵀ` from the right, with the same `op`.
pub(crate) fn trsm(op: &'static str, a: View<'_>, x: View<'_>, how: Triangular) -> Result<()> {
    let Triangular {
        lower,
        trans,
        unit_diagonal: unit,
    } = how;
    let s = session_of(op, a)?;
    let (n, k) = (x.shape()[0], x.shape()[1]);
    let fits = |v: usize| {
        i32::try_from(v).map_err(|_| Error::InvalidArgument {
            op,
            detail: format!("extent {v} exceeds cuBLAS's 32-bit limit"),
        })
    };
    let (ni, ki) = (fits(n)?, fits(k)?);
    let (pa, px) = (ptr(op, a)?, ptr(op, x)?);
    let side = cb::cublasSideMode_t::CUBLAS_SIDE_RIGHT;
    let uplo = if lower {
        cb::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER
    } else {
        cb::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER
    };
    let trans = match trans {
        Trans::N => cb::cublasOperation_t::CUBLAS_OP_N,
        Trans::T => cb::cublasOperation_t::CUBLAS_OP_T,
        Trans::C => cb::cublasOperation_t::CUBLAS_OP_C,
    };
    let diag = if unit {
        cb::cublasDiagType_t::CUBLAS_DIAG_UNIT
    } else {
        cb::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT
    };
    with_handle(op, s, |h| {
        macro_rules! run {
            ($f:ident, $t:ty, $one:expr) => {{
                let one: $t = $one;
                // SAFETY: a holds n×n elements (lda = n), x holds k×n
                // column-major (ldb = k); alpha is a host scalar.
                check(op, stringify!($f), unsafe {
                    cb::$f(
                        h,
                        side,
                        uplo,
                        trans,
                        diag,
                        ki,
                        ni,
                        &one,
                        pa as *const $t,
                        ni,
                        px as *mut $t,
                        ki,
                    )
                })
            }};
        }
        match a.dtype() {
            DType::Float32 => run!(cublasStrsm_v2, f32, 1.0),
            DType::Float64 => run!(cublasDtrsm_v2, f64, 1.0),
            DType::Complex64 => run!(
                cublasCtrsm_v2,
                cb::cuComplex,
                cb::cuComplex { x: 1.0, y: 0.0 }
            ),
            DType::Complex128 => run!(
                cublasZtrsm_v2,
                cb::cuDoubleComplex,
                cb::cuDoubleComplex { x: 1.0, y: 0.0 }
            ),
            other => Err(Error::DType {
                op,
                detail: format!("internal: triangular solve of {other}"),
            }),
        }
    })
}

/// Inverses of a stack of square matrices (batch..., n, n), float32/64 or
/// complex, into `out` (C-contiguous, same shape), by cuBLAS's batched LU
/// (`getrfBatched` + `getriBatched`, as CuPy). A singular matrix gives
/// `Error::LinAlg` naming it.
pub(crate) fn batched_inv(a: View<'_>, out: View<'_>) -> Result<()> {
    let op = "inv";
    let s = session_of(op, a)?;
    let ord = s.info.ordinal;
    let nd = a.ndim();
    let n = a.shape()[nd - 1];
    let count: usize = a.shape()[..nd - 2].iter().product();
    if count == 0 || n == 0 {
        return Ok(());
    }
    // A C-order matrix read column-major is its transpose, and inv(Aᵀ) =
    // inv(A)ᵀ, so the C-order result is inv(A) with no transposes.
    let x = Buffer::new(op, ord, a.dtype(), a.shape())?;
    super::backend(ord)
        .expect("a device in use has a backend")
        .copy_cast(op, a, x.view())?;
    let ni = i32::try_from(n).map_err(|_| Error::InvalidArgument {
        op,
        detail: format!("n = {n} exceeds cuBLAS's 32-bit limit"),
    })?;
    let ci = i32::try_from(count).map_err(|_| Error::InvalidArgument {
        op,
        detail: format!("{count} matrices exceed cuBLAS's 32-bit batch limit"),
    })?;
    let bytes = (n * n * a.dtype().itemsize()) as u64;
    let (px, po) = (x.ptr(op)?, ptr(op, out)?);
    // Both pointer arrays in one upload, both info arrays in one download.
    let ptrs: Vec<u64> = (0..count as u64)
        .map(|i| px + i * bytes)
        .chain((0..count as u64).map(|i| po + i * bytes))
        .collect();
    let ptr_arr = Buffer::from_host(op, ord, &ptrs)?;
    let piv = Buffer::new(op, ord, DType::Int32, &[count * n])?;
    let infos = Buffer::new(op, ord, DType::Int32, &[2 * count])?;
    let xpp = ptr_arr.ptr(op)?;
    let opp = xpp + 8 * count as u64;
    let pp = piv.ptr(op)? as *mut i32;
    let i1 = infos.ptr(op)? as *mut i32;
    let i2 = (infos.ptr(op)? + 4 * count as u64) as *mut i32;
    with_handle(op, s, |h| {
        macro_rules! run {
            ($getrf:ident, $getri:ident, $t:ty) => {{
                // SAFETY: pointer arrays of `count` device matrices of n×n
                // (lda = n) inside x and out; pivots and infos sized above.
                check(op, stringify!($getrf), unsafe {
                    cb::$getrf(h, ni, xpp as *const *mut $t, ni, pp, i1, ci)
                })?;
                // SAFETY: as above; x holds the factors, out receives the inverses.
                check(op, stringify!($getri), unsafe {
                    cb::$getri(
                        h,
                        ni,
                        xpp as *const *const $t,
                        ni,
                        pp,
                        opp as *const *mut $t,
                        ni,
                        i2,
                        ci,
                    )
                })?;
            }};
        }
        match a.dtype() {
            DType::Float32 => run!(cublasSgetrfBatched, cublasSgetriBatched, f32),
            DType::Float64 => run!(cublasDgetrfBatched, cublasDgetriBatched, f64),
            DType::Complex64 => run!(cublasCgetrfBatched, cublasCgetriBatched, cb::cuComplex),
            DType::Complex128 => run!(
                cublasZgetrfBatched,
                cublasZgetriBatched,
                cb::cuDoubleComplex
            ),
            other => {
                return Err(Error::DType {
                    op,
                    detail: format!("internal: batched inverse of {other}"),
                })
            }
        }
        Ok(())
    })?;
    // One synchronisation at the end: a singular input's (discarded)
    // result is inf/NaN, never read.
    let all = infos.to_host::<i32>()?;
    let (getrf_info, getri_info) = all.split_at(count);
    if let Some((i, &v)) = getrf_info.iter().enumerate().find(|&(_, &v)| v != 0) {
        return Err(singular_error(op, count, i, v, "getrfBatched"));
    }
    if let Some((i, &v)) = getri_info.iter().enumerate().find(|&(_, &v)| v != 0) {
        return Err(singular_error(op, count, i, v, "getriBatched"));
    }
    // The pointer array stays alive until the work using it is queued.
    drop(ptr_arr);
    Ok(())
}

fn singular_error(op: &'static str, count: usize, i: usize, info: i32, routine: &str) -> Error {
    if info < 0 {
        return Error::Cuda {
            op: op.to_string(),
            detail: format!("{routine} rejected argument {} (info = {info})", -info),
        };
    }
    let which = if count > 1 {
        format!("matrix {i} of the stack")
    } else {
        "the matrix".to_string()
    };
    Error::LinAlg {
        op,
        detail: format!(
            "{which} is singular ({routine} info = {info}: U[{0}, {0}] is exactly zero)",
            info - 1
        ),
    }
}

// The Matmul family of the backend interface (`ops::backend`).
impl Matmul for super::CudaBackend {
    fn matmul(&self, a: View<'_>, b: View<'_>, out: View<'_>, p: MatmulPrecision) -> Result<()> {
        let op = "matmul";
        if !out.dtype().is_inexact() {
            // Integer and bool products (cuBLAS has none): exact, by a kernel
            // of our own, into a buffer of its own when `out` is a strided
            // view or overlaps an operand.
            if out.is_c_contiguous() && !out.shares_memory(&a) && !out.shares_memory(&b) {
                return super::int_matmul::matmul(op, a, b, out);
            }
            let tmp = self.empty(op, out.dtype(), out.size())?;
            let l = Layout::contiguous(out.shape());
            super::int_matmul::matmul(op, a, b, View::new(&tmp, &l, out.dtype()))?;
            return self.copy_cast(op, View::new(&tmp, &l, out.dtype()), out);
        }
        let nd = out.ndim();
        let k = a.shape()[a.ndim() - 1];
        if k == 0 {
            return self.fill(op, out, crate::Scalar::Int(0));
        }
        // Operands cuBLAS cannot read in place are copied before the
        // batch axes broadcast (so a broadcast operand is copied once).
        let (mut ka, mut kb) = (None, None);
        let a = blas_ready(op, a, &mut ka)?;
        let b = blas_ready(op, b, &mut kb)?;
        let (batch, m, n) = (
            &out.shape()[..nd - 2],
            out.shape()[nd - 2],
            out.shape()[nd - 1],
        );
        let al = a.layout.broadcast_to(&[batch, &[m, k]].concat())?;
        let bl = b.layout.broadcast_to(&[batch, &[k, n]].concat())?;
        gemm(
            View::new(a.storage, &al, a.dtype),
            View::new(b.storage, &bl, b.dtype),
            out,
            p,
        )
    }

    fn gram_schmidt_pass(
        &self,
        v: View<'_>,
        w: View<'_>,
        w_out: View<'_>,
        coeffs: View<'_>,
    ) -> Result<()> {
        super::gram_schmidt::pass(self.ordinal, v, w, w_out, coeffs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_of_strided_matrices() {
        // C-contiguous 3×4: row-major, ld 4.
        assert_eq!(
            mat_view(3, 4, 4, 1),
            Some(MatView {
                row_major: true,
                ld: 4
            })
        );
        // Its transpose (4×3, strides (1, 4)): column-major, ld 4.
        assert_eq!(
            mat_view(4, 3, 1, 4),
            Some(MatView {
                row_major: false,
                ld: 4
            })
        );
        // Every other row of a 6×4 array: row-major, ld 8.
        assert_eq!(
            mat_view(3, 4, 8, 1),
            Some(MatView {
                row_major: true,
                ld: 8
            })
        );
        // Every other column: no unit stride -> copy.
        assert_eq!(mat_view(3, 2, 4, 2), None);
        // Reversed rows: negative stride -> copy.
        assert_eq!(mat_view(3, 4, -4, 1), None);
        // Broadcast rows (stride 0) -> copy.
        assert_eq!(mat_view(3, 4, 0, 1), None);
        // A row vector whose row stride is meaningless (reshape gives 0).
        assert_eq!(
            mat_view(1, 5, 0, 1),
            Some(MatView {
                row_major: true,
                ld: 5
            })
        );
        // A column vector with stride 3 (a column of a 3-wide matrix).
        assert_eq!(
            mat_view(5, 1, 3, 0),
            Some(MatView {
                row_major: true,
                ld: 3
            })
        );
        // A single element.
        assert!(mat_view(1, 1, 0, 0).is_some());
    }

    #[test]
    fn batches_merge_into_strided_calls() {
        // Contiguous (4, 5) batch of 2×3 · 3×2 -> 2×2: one call of 20.
        let p = batch_plan(&[4, 5], [&[30, 6], &[30, 6], &[20, 4]]);
        assert_eq!(p.outer, vec![[0, 0, 0]]);
        assert_eq!(p.count, 20);
        assert_eq!(p.stride, [6, 6, 4]);
        // b broadcast along the batch (stride 0): still one call.
        let p = batch_plan(&[7], [&[6], &[0], &[4]]);
        assert_eq!((p.outer.len(), p.count, p.stride), (1, 7, [6, 0, 4]));
        // Broadcast on the outer axis only: a loop of 3 calls of 5.
        let p = batch_plan(&[3, 5], [&[30, 6], &[0, 6], &[20, 4]]);
        assert_eq!(p.outer, vec![[0, 0, 0], [30, 0, 20], [60, 0, 40]]);
        assert_eq!((p.count, p.stride), (5, [6, 6, 4]));
        // No batch axes: one product.
        let p = batch_plan(&[], [&[], &[], &[]]);
        assert_eq!((p.outer, p.count), (vec![[0, 0, 0]], 1));
        // A negative batch stride: one call per product.
        let p = batch_plan(&[3], [&[-6], &[6], &[4]]);
        assert_eq!(p.outer, vec![[0, 0, 0], [-6, 6, 4], [-12, 12, 8]]);
        assert_eq!(p.count, 1);
    }

    #[test]
    fn compute_types_follow_the_precision_setting() {
        use cb::cublasComputeType_t::*;
        assert_eq!(
            compute_type(DType::Float32, MatmulPrecision::Highest),
            CUBLAS_COMPUTE_32F
        );
        assert_eq!(
            compute_type(DType::Float32, MatmulPrecision::TF32),
            CUBLAS_COMPUTE_32F_FAST_TF32
        );
        assert_eq!(
            compute_type(DType::Float64, MatmulPrecision::TF32),
            CUBLAS_COMPUTE_64F
        );
        assert_eq!(
            compute_type(DType::Float16, MatmulPrecision::Highest),
            CUBLAS_COMPUTE_32F
        );
        assert_eq!(
            compute_type(DType::Complex64, MatmulPrecision::FP16),
            CUBLAS_COMPUTE_32F_FAST_16F
        );
    }
}
