//! cuSPARSE's generic API on our device pointers: SpMV, SpMM and SpGEMM of
//! CSR matrices with int32 indices, on the current stream, work buffers from
//! the memory pool. One cuSPARSE handle per device, made on first use.
//!
//! Every status is checked and turned into `Error::Cuda` naming the call;
//! descriptors are destroyed by their guards on every path.

use std::ffi::c_void;

use cudarc::cusparse::sys as cs;

use super::Handle;
use crate::backend::fallback::on_views;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::runtime::session::session;
use crate::cuda::runtime::vendor::{float_data_type, ordinal, ptr, upload, with_handle, Buffer};
use crate::ops::create::Create;
use crate::ops::sparse::{
    CsrBuffers, CsrView as CsrRef, Incomplete, Sparse, SparseFactor, Triangle, TriangularSolver,
};
use std::rc::Rc;

/// The symbols this module calls (checked before the first cudarc call).
const SYMBOLS: &[&str] = &[
    "cusparseCreate",
    "cusparseSetStream",
    "cusparseGetErrorString",
    "cusparseCreateCsr",
    "cusparseCreateDnVec",
    "cusparseCreateDnMat",
    "cusparseDestroySpMat",
    "cusparseDestroyDnVec",
    "cusparseDestroyDnMat",
    "cusparseSpMV_bufferSize",
    "cusparseSpMV",
    "cusparseSpMM_bufferSize",
    "cusparseSpMM",
    "cusparseSpGEMM_createDescr",
    "cusparseSpGEMM_destroyDescr",
    "cusparseSpGEMM_workEstimation",
    "cusparseSpGEMM_compute",
    "cusparseSpGEMM_copy",
    "cusparseSpMatGetSize",
    "cusparseCsrSetPointers",
];

/// The cuSPARSE value type of a sparse dtype.
pub(crate) fn value_type(dt: DType) -> Option<cs::cudaDataType> {
    float_data_type!(cs, dt)
}

/// `1` and `0` of `dt` as host bytes (for alpha and beta).
pub(super) fn one_zero(dt: DType) -> ([u8; 16], [u8; 16]) {
    let mut one = [0u8; 16];
    match dt {
        DType::Float32 | DType::Complex64 => one[..4].copy_from_slice(&1.0f32.to_ne_bytes()),
        _ => one[..8].copy_from_slice(&1.0f64.to_ne_bytes()),
    }
    (one, [0u8; 16])
}

/// `Ok` for success, else `Error::Cuda` naming the operation and the call.
pub(crate) fn check(op: &str, call: &str, st: cs::cusparseStatus_t) -> Result<()> {
    if st == cs::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
        return Ok(());
    }
    // SAFETY: cusparseGetErrorString returns a static string (or null).
    let text = unsafe {
        let p = cs::cusparseGetErrorString(st);
        if p.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    Err(Error::Cuda {
        op: format!("{op} ({call})"),
        detail: format!("{st:?}: {text}"),
    })
}

/// A device's cuSPARSE handle, kept in its session (`DeviceSession::cusparse`).
pub(crate) type SparseHandle = Handle<cs::cusparseHandle_t>;

/// The handle of device `ordinal`, bound to the current stream.
pub(crate) fn handle(op: &'static str, ordinal: usize) -> Result<cs::cusparseHandle_t> {
    crate::cuda::runtime::libs::require("cusparse", SYMBOLS, op)?;
    let s = session(ordinal)?;
    let create = || {
        let mut h: cs::cusparseHandle_t = std::ptr::null_mut();
        // SAFETY: `h` is a valid out-pointer; the device's context is current.
        check(op, "cusparseCreate", unsafe { cs::cusparseCreate(&mut h) })?;
        Ok(h)
    };
    // SAFETY: a live handle and the current stream of this device's context.
    let bind = |h, stream| {
        check(op, "cusparseSetStream", unsafe {
            cs::cusparseSetStream(h, stream as cs::cudaStream_t)
        })
    };
    with_handle(s, &s.cusparse, create, bind, Ok)
}

pub(super) struct SpMat(pub(super) cs::cusparseSpMatDescr_t);
impl Drop for SpMat {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: made by cusparseCreateCsr and destroyed once.
            unsafe { cs::cusparseDestroySpMat(self.0) };
        }
    }
}
pub(super) struct DnVec(pub(super) cs::cusparseDnVecDescr_t);
impl Drop for DnVec {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: made by cusparseCreateDnVec and destroyed once.
            unsafe { cs::cusparseDestroyDnVec(self.0) };
        }
    }
}
struct DnMat(cs::cusparseDnMatDescr_t);
impl Drop for DnMat {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: made by cusparseCreateDnMat and destroyed once.
            unsafe { cs::cusparseDestroyDnMat(self.0) };
        }
    }
}
struct GemmDescr(cs::cusparseSpGEMMDescr_t);
impl Drop for GemmDescr {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: made by cusparseSpGEMM_createDescr and destroyed once.
            unsafe { cs::cusparseSpGEMM_destroyDescr(self.0) };
        }
    }
}

/// Checks the arrays of `a` (dtypes, lengths, devices) before cuSPARSE sees them.
pub(super) fn check_csr(op: &'static str, a: &CsrRef, ordinal: usize) -> Result<cs::cudaDataType> {
    let vt = value_type(a.data.dtype()).ok_or_else(|| Error::DType {
        op,
        detail: format!(
            "cuSPARSE products take float32, float64, complex64 or complex128, not {}",
            a.data.dtype()
        ),
    })?;
    let ok = a.indptr.dtype() == DType::Int32
        && a.indices.dtype() == DType::Int32
        && a.indptr.size() == a.rows + 1
        && a.indices.size() == a.data.size()
        && a.indptr.is_c_contiguous()
        && a.indices.is_c_contiguous()
        && a.data.is_c_contiguous();
    if !ok {
        return Err(Error::InvalidArgument {
            op,
            detail: "internal: the CSR arrays do not match the matrix (int32 indices, contiguous)"
                .into(),
        });
    }
    for arr in [a.indptr, a.indices, a.data] {
        if crate::cuda::runtime::vendor::ordinal(op, arr)? != ordinal {
            return Err(Error::DeviceMismatch {
                op,
                a: format!("cuda:{ordinal}"),
                b: arr.device().to_string(),
            });
        }
    }
    Ok(vt)
}

/// A cuSPARSE CSR descriptor over `a`'s arrays.
pub(super) fn csr_descr(op: &'static str, a: &CsrRef, vt: cs::cudaDataType) -> Result<SpMat> {
    let mut d: cs::cusparseSpMatDescr_t = std::ptr::null_mut();
    // SAFETY: the pointers are live device arrays of the lengths given
    // (checked by check_csr); cuSPARSE only records them here.
    check(op, "cusparseCreateCsr", unsafe {
        cs::cusparseCreateCsr(
            &mut d,
            a.rows as i64,
            a.cols as i64,
            a.data.size() as i64,
            ptr(op, a.indptr)? as *mut c_void,
            ptr(op, a.indices)? as *mut c_void,
            ptr(op, a.data)? as *mut c_void,
            cs::cusparseIndexType_t::CUSPARSE_INDEX_32I,
            cs::cusparseIndexType_t::CUSPARSE_INDEX_32I,
            cs::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
            vt,
        )
    })?;
    Ok(SpMat(d))
}

/// A pool buffer of at least `bytes` bytes (one byte when none is needed).
pub(crate) fn work_buffer(op: &'static str, ordinal: usize, bytes: usize) -> Result<Buffer> {
    Buffer::new(op, ordinal, DType::UInt8, &[bytes.max(1)])
}

/// A new result of `shape`, and whether it is already complete: empty, or
/// all zeros (zeros written) because `a` stores nothing.
fn product_out(
    op: &'static str,
    ord: usize,
    a: &CsrRef,
    shape: &[usize],
) -> Result<(Buffer, bool)> {
    let out = Buffer::new(op, ord, a.data.dtype(), shape)?;
    if shape.contains(&0) {
        return Ok((out, true));
    }
    if a.data.size() == 0 || a.cols == 0 {
        let be = super::backend(ord).expect("a device in use has a backend");
        be.fill(op, out.view(), crate::Scalar::Int(0))?;
        return Ok((out, true));
    }
    Ok((out, false))
}

/// `y = A x` for a CSR matrix `a` and a contiguous vector `x` of the same
/// dtype, on the GPU: cusparseSpMV (CSR_ALG1, deterministic).
fn spmv(op: &'static str, a: &CsrRef, x: View<'_>) -> Result<Buffer> {
    let ord = ordinal(op, x)?;
    let dt = a.data.dtype();
    let (y, done) = product_out(op, ord, a, &[a.rows])?;
    if done {
        return Ok(y);
    }
    let vt = check_csr(op, a, ord)?;
    if x.dtype() != dt || !x.is_c_contiguous() || x.size() != a.cols {
        return Err(Error::InvalidArgument {
            op,
            detail: "internal: SpMV's vector must be contiguous with the matrix's dtype".into(),
        });
    }
    let h = handle(op, ord)?;
    let ma = csr_descr(op, a, vt)?;
    let mut dx: cs::cusparseDnVecDescr_t = std::ptr::null_mut();
    // SAFETY: x and y are live contiguous device vectors of the sizes given.
    check(op, "cusparseCreateDnVec", unsafe {
        cs::cusparseCreateDnVec(&mut dx, a.cols as i64, ptr(op, x)? as *mut c_void, vt)
    })?;
    let dx = DnVec(dx);
    let mut dy: cs::cusparseDnVecDescr_t = std::ptr::null_mut();
    check(op, "cusparseCreateDnVec", unsafe {
        cs::cusparseCreateDnVec(&mut dy, a.rows as i64, y.ptr(op)? as *mut c_void, vt)
    })?;
    let dy = DnVec(dy);
    let (one, zero) = one_zero(dt);
    let alg = cs::cusparseSpMVAlg_t::CUSPARSE_SPMV_CSR_ALG1;
    let opn = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
    let mut size = 0usize;
    // SAFETY: live descriptors and handle; alpha/beta point to host values of the compute type.
    check(op, "cusparseSpMV_bufferSize", unsafe {
        cs::cusparseSpMV_bufferSize(
            h,
            opn,
            one.as_ptr() as *const c_void,
            ma.0,
            dx.0,
            zero.as_ptr() as *const c_void,
            dy.0,
            vt,
            alg,
            &mut size,
        )
    })?;
    let buf = work_buffer(op, ord, size)?;
    // SAFETY: as above; `buf` holds at least `size` bytes and outlives the
    // call in stream order (the pool frees it on this stream).
    check(op, "cusparseSpMV", unsafe {
        cs::cusparseSpMV(
            h,
            opn,
            one.as_ptr() as *const c_void,
            ma.0,
            dx.0,
            zero.as_ptr() as *const c_void,
            dy.0,
            vt,
            alg,
            buf.ptr(op)? as *mut c_void,
        )
    })?;
    drop(buf);
    Ok(y)
}

/// `C = A B` for a CSR matrix `a` (m x k) and a C-contiguous dense `b`
/// (k x n) of the same dtype: cusparseSpMM with row-major dense matrices.
fn spmm(op: &'static str, a: &CsrRef, b: View<'_>) -> Result<Buffer> {
    let ord = ordinal(op, b)?;
    let dt = a.data.dtype();
    let n = b.shape().get(1).copied().unwrap_or(0);
    let (c, done) = product_out(op, ord, a, &[a.rows, n])?;
    if done {
        return Ok(c);
    }
    let vt = check_csr(op, a, ord)?;
    if b.dtype() != dt || !b.is_c_contiguous() || b.shape() != [a.cols, n] {
        return Err(Error::InvalidArgument {
            op,
            detail: "internal: SpMM's dense matrix must be C-contiguous with the matrix's dtype"
                .into(),
        });
    }
    let h = handle(op, ord)?;
    let ma = csr_descr(op, a, vt)?;
    let row = cs::cusparseOrder_t::CUSPARSE_ORDER_ROW;
    let mut db: cs::cusparseDnMatDescr_t = std::ptr::null_mut();
    // SAFETY: b and c are live C-contiguous device matrices of the shapes given.
    check(op, "cusparseCreateDnMat", unsafe {
        cs::cusparseCreateDnMat(
            &mut db,
            a.cols as i64,
            n as i64,
            n as i64,
            ptr(op, b)? as *mut c_void,
            vt,
            row,
        )
    })?;
    let db = DnMat(db);
    let mut dc: cs::cusparseDnMatDescr_t = std::ptr::null_mut();
    check(op, "cusparseCreateDnMat", unsafe {
        cs::cusparseCreateDnMat(
            &mut dc,
            a.rows as i64,
            n as i64,
            n as i64,
            c.ptr(op)? as *mut c_void,
            vt,
            row,
        )
    })?;
    let dc = DnMat(dc);
    let (one, zero) = one_zero(dt);
    let alg = cs::cusparseSpMMAlg_t::CUSPARSE_SPMM_ALG_DEFAULT;
    let opn = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
    let mut size = 0usize;
    // SAFETY: live descriptors and handle; alpha/beta are host values of the compute type.
    check(op, "cusparseSpMM_bufferSize", unsafe {
        cs::cusparseSpMM_bufferSize(
            h,
            opn,
            opn,
            one.as_ptr() as *const c_void,
            ma.0,
            db.0,
            zero.as_ptr() as *const c_void,
            dc.0,
            vt,
            alg,
            &mut size,
        )
    })?;
    let buf = work_buffer(op, ord, size)?;
    // SAFETY: as above, with a work buffer of `size` bytes.
    check(op, "cusparseSpMM", unsafe {
        cs::cusparseSpMM(
            h,
            opn,
            opn,
            one.as_ptr() as *const c_void,
            ma.0,
            db.0,
            zero.as_ptr() as *const c_void,
            dc.0,
            vt,
            alg,
            buf.ptr(op)? as *mut c_void,
        )
    })?;
    drop(buf);
    Ok(c)
}

/// `C = A B` of two CSR matrices of one dtype with sorted indices and at
/// least one stored value each: cusparseSpGEMM (work estimation, compute,
/// then copy into arrays of C's size).
fn spgemm(op: &'static str, a: &CsrRef, b: &CsrRef) -> Result<CsrBuffers> {
    let ord = ordinal(op, a.data)?;
    let dt = a.data.dtype();
    let vt = check_csr(op, a, ord)?;
    check_csr(op, b, ord)?;
    if b.data.dtype() != dt || a.cols != b.rows {
        return Err(Error::InvalidArgument {
            op,
            detail: "internal: SpGEMM's operands must share a dtype and an inner extent".into(),
        });
    }
    let h = handle(op, ord)?;
    let ma = csr_descr(op, a, vt)?;
    let mb = csr_descr(op, b, vt)?;
    let indptr = Buffer::new(op, ord, DType::Int32, &[a.rows + 1])?;
    let mut c: cs::cusparseSpMatDescr_t = std::ptr::null_mut();
    // SAFETY: C's row offsets are a live array of rows + 1 int32; its
    // indices and values are set after the size is known.
    check(op, "cusparseCreateCsr", unsafe {
        cs::cusparseCreateCsr(
            &mut c,
            a.rows as i64,
            b.cols as i64,
            0,
            indptr.ptr(op)? as *mut c_void,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            cs::cusparseIndexType_t::CUSPARSE_INDEX_32I,
            cs::cusparseIndexType_t::CUSPARSE_INDEX_32I,
            cs::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
            vt,
        )
    })?;
    let mc = SpMat(c);
    let mut g: cs::cusparseSpGEMMDescr_t = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    check(op, "cusparseSpGEMM_createDescr", unsafe {
        cs::cusparseSpGEMM_createDescr(&mut g)
    })?;
    let g = GemmDescr(g);
    let (one, zero) = one_zero(dt);
    let alpha = one.as_ptr() as *const c_void;
    let beta = zero.as_ptr() as *const c_void;
    let opn = cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
    let alg = cs::cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_DEFAULT;
    let mut size1 = 0usize;
    // SAFETY (all calls below): live handle and descriptors; each buffer has
    // the size cuSPARSE asked for and lives until after the copy (stream order).
    check(op, "cusparseSpGEMM_workEstimation", unsafe {
        cs::cusparseSpGEMM_workEstimation(
            h,
            opn,
            opn,
            alpha,
            ma.0,
            mb.0,
            beta,
            mc.0,
            vt,
            alg,
            g.0,
            &mut size1,
            std::ptr::null_mut(),
        )
    })?;
    let buf1 = work_buffer(op, ord, size1)?;
    check(op, "cusparseSpGEMM_workEstimation", unsafe {
        cs::cusparseSpGEMM_workEstimation(
            h,
            opn,
            opn,
            alpha,
            ma.0,
            mb.0,
            beta,
            mc.0,
            vt,
            alg,
            g.0,
            &mut size1,
            buf1.ptr(op)? as *mut c_void,
        )
    })?;
    let mut size2 = 0usize;
    check(op, "cusparseSpGEMM_compute", unsafe {
        cs::cusparseSpGEMM_compute(
            h,
            opn,
            opn,
            alpha,
            ma.0,
            mb.0,
            beta,
            mc.0,
            vt,
            alg,
            g.0,
            &mut size2,
            std::ptr::null_mut(),
        )
    })?;
    let buf2 = work_buffer(op, ord, size2)?;
    check(op, "cusparseSpGEMM_compute", unsafe {
        cs::cusparseSpGEMM_compute(
            h,
            opn,
            opn,
            alpha,
            ma.0,
            mb.0,
            beta,
            mc.0,
            vt,
            alg,
            g.0,
            &mut size2,
            buf2.ptr(op)? as *mut c_void,
        )
    })?;
    let (mut rows, mut cols, mut nnz) = (0i64, 0i64, 0i64);
    check(op, "cusparseSpMatGetSize", unsafe {
        cs::cusparseSpMatGetSize(mc.0, &mut rows, &mut cols, &mut nnz)
    })?;
    if nnz < 0 || nnz > i32::MAX as i64 {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("the product has {nnz} stored values, more than int32 indices address"),
        });
    }
    let nnz = nnz as usize;
    let indices = Buffer::new(op, ord, DType::Int32, &[nnz])?;
    let data = Buffer::new(op, ord, dt, &[nnz])?;
    if nnz > 0 {
        check(op, "cusparseCsrSetPointers", unsafe {
            cs::cusparseCsrSetPointers(
                mc.0,
                indptr.ptr(op)? as *mut c_void,
                indices.ptr(op)? as *mut c_void,
                data.ptr(op)? as *mut c_void,
            )
        })?;
    }
    check(op, "cusparseSpGEMM_copy", unsafe {
        cs::cusparseSpGEMM_copy(h, opn, opn, alpha, ma.0, mb.0, beta, mc.0, vt, alg, g.0)
    })?;
    drop((buf1, buf2));
    Ok(CsrBuffers {
        data: data.storage,
        indices: indices.storage,
        indptr: indptr.storage,
        nnz,
        sorted: false,
    })
}

// The Sparse family of the backend interface (`ops::backend`).
impl Sparse for super::CudaBackend {
    fn csr_dot(&self, op: &'static str, a: &CsrRef<'_>, x: View<'_>) -> Result<Storage> {
        let r = if x.ndim() == 2 {
            spmm(op, a, x)?
        } else {
            spmv(op, a, x)?
        };
        Ok(r.storage)
    }

    fn csr_spgemm(&self, op: &'static str, a: &CsrRef<'_>, b: &CsrRef<'_>) -> Result<CsrBuffers> {
        if a.data.size() > 0 && b.data.size() > 0 {
            return spgemm(op, a, b);
        }
        // A product with an empty operand: the host's, counted.
        let arrays = [a.indptr, a.indices, a.data, b.indptr, b.indices, b.data];
        let r = on_views(op, &arrays, |cpu, h| {
            let ha = CsrRef {
                indptr: h[0],
                indices: h[1],
                data: h[2],
                ..*a
            };
            let hb = CsrRef {
                indptr: h[3],
                indices: h[4],
                data: h[5],
                ..*b
            };
            cpu.csr_spgemm(op, &ha, &hb)
        })?;
        let n = self.ordinal;
        Ok(CsrBuffers {
            data: upload(op, n, &r.data, a.data.dtype())?,
            indices: upload(op, n, &r.indices, DType::Int32)?,
            indptr: upload(op, n, &r.indptr, DType::Int32)?,
            ..r
        })
    }

    fn csr_solve(
        &self,
        op: &'static str,
        a: &CsrRef<'_>,
        b: View<'_>,
        pivot_tol: f64,
    ) -> Result<Storage> {
        super::cusolver_sp::csr_solve(self.ordinal, op, a, b, pivot_tol)
    }

    fn csr_lu_factor(&self, op: &'static str, a: &CsrRef<'_>) -> Result<Rc<dyn SparseFactor>> {
        super::cusolver_sp::csr_lu_factor(self.ordinal, op, a)
    }

    fn csr_triangular(
        &self,
        op: &'static str,
        a: &CsrRef<'_>,
        triangle: Triangle,
    ) -> Result<Rc<dyn TriangularSolver>> {
        super::cusparse_spsv::prepare(self.ordinal, op, a, triangle)
    }

    fn csr_incomplete_factor(
        &self,
        op: &'static str,
        a: &CsrRef<'_>,
        kind: Incomplete,
    ) -> Result<Storage> {
        super::cusparse_ilu::factor(self.ordinal, op, a, kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_types_and_scalars() {
        assert_eq!(
            value_type(DType::Float32),
            Some(cs::cudaDataType::CUDA_R_32F)
        );
        assert_eq!(
            value_type(DType::Complex128),
            Some(cs::cudaDataType::CUDA_C_64F)
        );
        assert_eq!(value_type(DType::Int32), None);
        let (one, zero) = one_zero(DType::Float32);
        assert_eq!(f32::from_ne_bytes(one[..4].try_into().unwrap()), 1.0);
        assert_eq!(zero, [0u8; 16]);
        let (one, _) = one_zero(DType::Complex128);
        assert_eq!(f64::from_ne_bytes(one[..8].try_into().unwrap()), 1.0);
        assert_eq!(f64::from_ne_bytes(one[8..].try_into().unwrap()), 0.0);
    }
}
