//! Sparse triangular solves on the GPU: cuSPARSE's generic SpSV on one
//! triangle of a CSR matrix (fill mode and diagonal type set as attributes
//! of its descriptor), analysed once by [`prepare`] and then solved as
//! often as asked: a preconditioner applies its triangles every iteration.
//!
//! SpSV's analysis is made for the vector descriptors it is given, so the
//! prepared triangle keeps its own right-hand-side and solution vectors:
//! each solve copies b in and the solution out (two device copies, small
//! next to the solve). Those vectors are used in stream order on the
//! current stream; a prepared triangle is not shared between threads (it
//! is not `Send`), and one thread's solves are queued one after another.
//! SpSV does not test the diagonal: the front end refuses a zero on it first.

use std::ffi::c_void;
use std::rc::Rc;

use cudarc::cusparse::sys as cs;

use super::cusparse::{check, check_csr, csr_descr, handle, one_zero, work_buffer, DnVec, SpMat};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::elementwise::copy_cast;
use crate::cuda::runtime::vendor::{ordinal, Buffer};
use crate::ops::sparse::{CsrView, Triangle, TriangularSolver};

/// The SpSV symbols (checked before the first call).
const SYMBOLS: &[&str] = &[
    "cusparseSpSV_createDescr",
    "cusparseSpSV_destroyDescr",
    "cusparseSpSV_bufferSize",
    "cusparseSpSV_analysis",
    "cusparseSpSV_solve",
    "cusparseSpMatSetAttribute",
    "cusparseCreateDnVec",
    "cusparseDestroyDnVec",
];

struct SpsvDescr(cs::cusparseSpSVDescr_t);
impl Drop for SpsvDescr {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: made by cusparseSpSV_createDescr and destroyed once.
            unsafe { cs::cusparseSpSV_destroyDescr(self.0) };
        }
    }
}

/// SpSV's analysis of the triangle, with the descriptors it was made for.
/// (Fields drop in order: descriptors before the buffer they use.)
struct Analysis {
    spsv: SpsvDescr,
    matrix: SpMat,
    rhs: DnVec,
    solution: DnVec,
    _work: Buffer,
}

/// A triangle of a CSR matrix on the GPU, analysed for repeated solves.
struct DeviceTriangle {
    /// `None` when there is nothing to solve (no rows, or a unit diagonal
    /// and no stored entries): the solution is b.
    analysis: Option<Analysis>,
    rhs: Buffer,
    solution: Buffer,
    /// The matrix's arrays, which the descriptor points into.
    _arrays: [Storage; 3],
    ordinal: usize,
    n: usize,
    dtype: DType,
    value_type: cs::cudaDataType,
    operation: cs::cusparseOperation_t,
}

const ALG: cs::cusparseSpSVAlg_t = cs::cusparseSpSVAlg_t::CUSPARSE_SPSV_ALG_DEFAULT;

/// A dense-vector descriptor over a buffer of `n` elements.
fn vector(op: &'static str, b: &Buffer, n: usize, vt: cs::cudaDataType) -> Result<DnVec> {
    let mut d: cs::cusparseDnVecDescr_t = std::ptr::null_mut();
    // SAFETY: `b` is a live contiguous device vector of `n` elements.
    check(op, "cusparseCreateDnVec", unsafe {
        cs::cusparseCreateDnVec(&mut d, n as i64, b.ptr(op)? as *mut c_void, vt)
    })?;
    Ok(DnVec(d))
}

/// Sets one attribute (fill mode or diagonal type) of a matrix descriptor.
fn set_attribute<V>(
    op: &'static str,
    m: &SpMat,
    attribute: cs::cusparseSpMatAttribute_t,
    mut value: V,
) -> Result<()> {
    // SAFETY: a live descriptor; `value` is the attribute's enum, read
    // during the call.
    check(op, "cusparseSpMatSetAttribute", unsafe {
        cs::cusparseSpMatSetAttribute(
            m.0,
            attribute,
            &mut value as *mut V as *mut c_void,
            std::mem::size_of::<V>(),
        )
    })
}

/// The triangle `triangle` of the square CSR matrix `a` (sorted indices),
/// analysed by SpSV on device `ordinal`.
pub(super) fn prepare(
    ordinal: usize,
    op: &'static str,
    a: &CsrView<'_>,
    triangle: Triangle,
) -> Result<Rc<dyn TriangularSolver>> {
    crate::cuda::runtime::libs::require_hinting(
        "cusparse",
        SYMBOLS,
        op,
        "a cuSPARSE older than the generic SpSV",
    )?;
    let dtype = a.data.dtype();
    let value_type = check_csr(op, a, ordinal)?;
    let n = a.rows;
    let operation = match (triangle.adjoint, dtype.is_complex()) {
        (false, _) => cs::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
        (true, false) => cs::cusparseOperation_t::CUSPARSE_OPERATION_TRANSPOSE,
        (true, true) => cs::cusparseOperation_t::CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE,
    };
    let rhs = Buffer::new(op, ordinal, dtype, &[n])?;
    let solution = Buffer::new(op, ordinal, dtype, &[n])?;
    let trivial = n == 0 || (a.data.size() == 0 && triangle.unit_diagonal);
    let analysis = if trivial {
        None
    } else {
        Some(analyse(
            op, ordinal, a, triangle, value_type, operation, &rhs, &solution,
        )?)
    };
    Ok(Rc::new(DeviceTriangle {
        analysis,
        rhs,
        solution,
        _arrays: [
            a.indptr.storage.clone(),
            a.indices.storage.clone(),
            a.data.storage.clone(),
        ],
        ordinal,
        n,
        dtype,
        value_type,
        operation,
    }))
}

#[allow(clippy::too_many_arguments)]
fn analyse(
    op: &'static str,
    ordinal: usize,
    a: &CsrView<'_>,
    triangle: Triangle,
    vt: cs::cudaDataType,
    operation: cs::cusparseOperation_t,
    rhs: &Buffer,
    solution: &Buffer,
) -> Result<Analysis> {
    let n = a.rows;
    let h = handle(op, ordinal)?;
    let matrix = csr_descr(op, a, vt)?;
    let fill = if triangle.lower {
        cs::cusparseFillMode_t::CUSPARSE_FILL_MODE_LOWER
    } else {
        cs::cusparseFillMode_t::CUSPARSE_FILL_MODE_UPPER
    };
    let diag = if triangle.unit_diagonal {
        cs::cusparseDiagType_t::CUSPARSE_DIAG_TYPE_UNIT
    } else {
        cs::cusparseDiagType_t::CUSPARSE_DIAG_TYPE_NON_UNIT
    };
    set_attribute(
        op,
        &matrix,
        cs::cusparseSpMatAttribute_t::CUSPARSE_SPMAT_FILL_MODE,
        fill,
    )?;
    set_attribute(
        op,
        &matrix,
        cs::cusparseSpMatAttribute_t::CUSPARSE_SPMAT_DIAG_TYPE,
        diag,
    )?;
    let rhs_d = vector(op, rhs, n, vt)?;
    let solution_d = vector(op, solution, n, vt)?;
    let mut d: cs::cusparseSpSVDescr_t = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    check(op, "cusparseSpSV_createDescr", unsafe {
        cs::cusparseSpSV_createDescr(&mut d)
    })?;
    let spsv = SpsvDescr(d);
    let (one, _) = one_zero(a.data.dtype());
    let alpha = one.as_ptr() as *const c_void;
    let mut size = 0usize;
    // SAFETY: live handle and descriptors; alpha is a host value of the compute type.
    check(op, "cusparseSpSV_bufferSize", unsafe {
        cs::cusparseSpSV_bufferSize(
            h,
            operation,
            alpha,
            matrix.0,
            rhs_d.0,
            solution_d.0,
            vt,
            ALG,
            spsv.0,
            &mut size,
        )
    })?;
    let work = work_buffer(op, ordinal, size)?;
    // SAFETY: as above, with a work buffer of `size` bytes kept as long as
    // the analysis (SpSV's solves use it).
    check(op, "cusparseSpSV_analysis", unsafe {
        cs::cusparseSpSV_analysis(
            h,
            operation,
            alpha,
            matrix.0,
            rhs_d.0,
            solution_d.0,
            vt,
            ALG,
            spsv.0,
            work.ptr(op)? as *mut c_void,
        )
    })?;
    Ok(Analysis {
        spsv,
        matrix,
        rhs: rhs_d,
        solution: solution_d,
        _work: work,
    })
}

impl TriangularSolver for DeviceTriangle {
    fn solve(&self, op: &'static str, b: View<'_>) -> Result<Storage> {
        if ordinal(op, b)? != self.ordinal
            || b.dtype() != self.dtype
            || !b.is_c_contiguous()
            || b.shape() != [self.n]
        {
            return Err(Error::InvalidArgument {
                op,
                detail: "internal: a triangular solve takes a contiguous vector of the matrix's dtype, length and device".into(),
            });
        }
        let out = Buffer::new(op, self.ordinal, self.dtype, &[self.n])?;
        let Some(an) = &self.analysis else {
            if self.n > 0 {
                copy_cast(b, out.view())?;
            }
            return Ok(out.storage);
        };
        copy_cast(b, self.rhs.view())?;
        let h = handle(op, self.ordinal)?;
        let (one, _) = one_zero(self.dtype);
        // SAFETY: the analysis's live descriptors over this triangle's
        // vectors and the matrix's arrays (kept alive by `self`).
        check(op, "cusparseSpSV_solve", unsafe {
            cs::cusparseSpSV_solve(
                h,
                self.operation,
                one.as_ptr() as *const c_void,
                an.matrix.0,
                an.rhs.0,
                an.solution.0,
                self.value_type,
                ALG,
                an.spsv.0,
            )
        })?;
        copy_cast(self.solution.view(), out.view())?;
        Ok(out.storage)
    }
}
