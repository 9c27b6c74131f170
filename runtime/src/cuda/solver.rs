//! cuSOLVER dense factorizations on our own device pointers, on the
//! current stream: LU (`getrf`/`getrs`), Cholesky (`potrf`), QR (`geqrf` +
//! `orgqr`/`ungqr`), SVD (`gesvd`), the Hermitian eigensolver
//! (`syevd`/`heevd`), the routines CuPy uses, and the general eigensolver
//! (`Xgeev`, in `eig`).
//!
//! Every routine overwrites its input, so each works on a copy. A C-order
//! matrix read column-major (cuSOLVER's order) is its transpose; each
//! routine below says how that is accounted for. Every function takes one
//! 2-D matrix of float32/float64/complex64/complex128 (callers loop over
//! batches and promote dtypes), and reads the `info` word after the work:
//! a singular or not positive definite input is `Error::LinAlg`.

use std::ffi::c_void;

use cudarc::cusolver::sys as cs;

use num_complex::Complex64;

use super::Handle;
use crate::cuda::kernel_gen::helpers::{kernel, key};
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{
    check_status, float_data_type, ptr, session_of, with_handle, Buffer,
};
use crate::ops::c_types::ctype;

mod eig;
mod lu;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::view::View;
use crate::ops::create::Create;
use crate::ops::linalg::{Linalg, Owned, SvdParts, Trans, Triangular};

const SYMBOLS: &[&str] = &[
    "cusolverDnCreate",
    "cusolverDnSetStream",
    "cusolverDnCreateParams",
    "cusolverDnXgetrf_bufferSize",
    "cusolverDnXgetrf",
    "cusolverDnXgetrs",
    "cusolverDnXpotrf_bufferSize",
    "cusolverDnXpotrf",
    "cusolverDnXgeqrf_bufferSize",
    "cusolverDnXgeqrf",
    "cusolverDnSorgqr_bufferSize",
    "cusolverDnSorgqr",
    "cusolverDnDorgqr_bufferSize",
    "cusolverDnDorgqr",
    "cusolverDnCungqr_bufferSize",
    "cusolverDnCungqr",
    "cusolverDnZungqr_bufferSize",
    "cusolverDnZungqr",
    "cusolverDnXgesvd_bufferSize",
    "cusolverDnXgesvd",
    "cusolverDnXsyevd_bufferSize",
    "cusolverDnXsyevd",
];

/// A device's cuSOLVER handle and 64-bit API parameter object, kept in its
/// session (`DeviceSession::cusolver`), used under the session's lock and
/// set to the current stream before each use.
pub(crate) type SolverHandle = Handle<(cs::cusolverDnHandle_t, cs::cusolverDnParams_t)>;

fn check(op: &str, call: &str, st: cs::cusolverStatus_t) -> Result<()> {
    check_status(op, call, st, cs::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS)
}

/// Loads cuSOLVER, checking that it has the functions every routine here
/// calls, before any cudarc call reaches it.
fn require(op: &'static str) -> Result<()> {
    // cuSOLVER links against cuBLAS: load (and check) that first.
    super::blas::require(op)?;
    crate::cuda::runtime::libs::require("cusolver", SYMBOLS, op)
}

fn with_solver<R>(
    op: &'static str,
    s: &DeviceSession,
    f: impl FnOnce(cs::cusolverDnHandle_t, cs::cusolverDnParams_t) -> Result<R>,
) -> Result<R> {
    require(op)?;
    let create = || {
        let mut h: cs::cusolverDnHandle_t = std::ptr::null_mut();
        // SAFETY: out pointer valid; the device's context is current.
        check(op, "cusolverDnCreate", unsafe {
            cs::cusolverDnCreate(&mut h)
        })?;
        let mut p: cs::cusolverDnParams_t = std::ptr::null_mut();
        // SAFETY: out pointer valid.
        check(op, "cusolverDnCreateParams", unsafe {
            cs::cusolverDnCreateParams(&mut p)
        })?;
        Ok((h, p))
    };
    // SAFETY: valid handle; the stream belongs to this context (or is null).
    let bind = |(h, _), stream| {
        check(op, "cusolverDnSetStream", unsafe {
            cs::cusolverDnSetStream(h, stream as cs::cudaStream_t)
        })
    };
    with_handle(s, &s.cusolver, create, bind, |(h, p)| f(h, p))
}

fn data_type(op: &'static str, d: DType) -> Result<cs::cudaDataType> {
    float_data_type!(cs, d).ok_or_else(|| Error::DType {
        op,
        detail: format!("internal: cuSOLVER called with {d}"),
    })
}

/// Device and host workspaces of the sizes a `_bufferSize` call reported.
struct Work {
    dev: Buffer,
    host: Vec<u8>,
}

impl Work {
    fn new(op: &'static str, ordinal: usize, dev_bytes: usize, host_bytes: usize) -> Result<Work> {
        Ok(Work {
            dev: Buffer::new(op, ordinal, DType::UInt8, &[dev_bytes.max(1)])?,
            host: vec![0u8; host_bytes.max(1)],
        })
    }
    fn dptr(&self) -> *mut c_void {
        match self.dev.ptr("workspace") {
            Ok(p) => p as *mut c_void,
            Err(_) => std::ptr::null_mut(),
        }
    }
}

/// Reads an `info` word (this synchronises with the stream).
fn read_info(info: &Buffer) -> Result<i32> {
    Ok(info.to_host::<i32>()?.first().copied().unwrap_or(0))
}

/// Reads `routine`'s `info` word (this synchronises with the stream): a
/// negative one is a rejected argument, a positive one `Error::LinAlg`
/// with `failure(info)` as its detail.
fn check_info(
    op: &'static str,
    routine: &str,
    info: &Buffer,
    failure: impl FnOnce(i32) -> String,
) -> Result<()> {
    match read_info(info)? {
        i if i < 0 => Err(bad_argument(op, routine, i)),
        0 => Ok(()),
        i => Err(Error::LinAlg {
            op,
            detail: failure(i),
        }),
    }
}

fn bad_argument(op: &'static str, routine: &str, info: i32) -> Error {
    Error::Cuda {
        op: op.to_string(),
        detail: format!("{routine} rejected argument {} (info = {info})", -info),
    }
}

/// `src` copied into the C-contiguous `dst` (a buffer of the same device).
fn copy_into(op: &'static str, src: View<'_>, dst: View<'_>) -> Result<()> {
    let ord = crate::cuda::runtime::vendor::ordinal(op, dst)?;
    super::backend(ord)
        .expect("a device in use has a backend")
        .copy_cast(op, src, dst)
}

/// A C-contiguous copy of `a` on its device.
fn c_copy(op: &'static str, a: View<'_>) -> Result<Buffer> {
    let x = Buffer::new(
        op,
        crate::cuda::runtime::vendor::ordinal(op, a)?,
        a.dtype(),
        a.shape(),
    )?;
    copy_into(op, a, x.view())?;
    Ok(x)
}

/// A copy of the 2-D `a` whose memory is `a` in column-major order (a
/// C-contiguous buffer of the transposed shape), returned as that buffer.
fn f_copy(op: &'static str, a: View<'_>) -> Result<Buffer> {
    let t = a.layout.permuted(&[1, 0]);
    c_copy(op, View::new(a.storage, &t, a.dtype))
}

/// Zeroes, in place, the elements of the C-contiguous 2-D `x` above the
/// diagonal (`lower`) or below it (`!lower`).
pub(crate) fn zero_triangle(x: View<'_>, lower: bool) -> Result<()> {
    let op = if lower { "tril" } else { "triu" };
    let src = || triangle_source(x.dtype(), lower);
    in_place(
        op,
        x,
        ("zero_triangle", lower),
        "cuprite_zero_triangle",
        src,
    )
}

/// Conjugates, in place, the C-contiguous complex `x`.
fn conj_in_place(x: View<'_>) -> Result<()> {
    let src = || in_place_source(x.dtype(), "cuprite_conj", "true", "mk(x[i].re, -x[i].im)");
    in_place("conj", x, ("conj", false), "cuprite_conj", src)
}

/// Runs the kernel `fname` of `source` (an [`in_place_source`]) over the
/// C-contiguous 2-D (or 1-D) `x`.
fn in_place(
    op: &'static str,
    x: View<'_>,
    what: (&str, bool),
    fname: &str,
    source: impl FnOnce() -> String,
) -> Result<()> {
    let n = x.size();
    if n == 0 {
        return Ok(());
    }
    let cols = x.shape().last().copied().unwrap_or(1);
    let s = session_of(op, x)?;
    let f = kernel(s, key((what, x.dtype())), op, fname, source)?;
    let mut args = KernelArgs::new();
    args.push(ptr(op, x)?);
    args.push(n as i64);
    args.push(cols as i64);
    let cfg = LaunchConfig {
        grid: (crate::cuda::kernel_gen::helpers::grid_1d(s, n, 256), 1, 1),
        block: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    launch(s, op, f, cfg, &current_stream(), &mut args)
}

/// The source of the triangle-zeroing kernel.
pub(crate) fn triangle_source(dtype: DType, lower: bool) -> String {
    let zero = match dtype {
        DType::Complex64 => "mk(0.0f, 0.0f)",
        DType::Complex128 => "mk(0.0, 0.0)",
        _ => "0",
    };
    let cond = if lower { "c > r" } else { "c < r" };
    in_place_source(dtype, "cuprite_zero_triangle", cond, zero)
}

/// A kernel `fname` that sets `x[i] = value` where `cond` holds, for every
/// element `i` (row `r`, column `c`) of a C-contiguous matrix.
fn in_place_source(dtype: DType, fname: &str, cond: &str, value: &str) -> String {
    crate::cuda::kernel_gen::template::render(
        include_str!("kernels/solver_in_place.cu"),
        &[
            ("PRELUDE", crate::cuda::runtime::compile::PRELUDE),
            ("T", ctype(dtype)),
            ("NAME", fname),
            ("COND", cond),
            ("VALUE", value),
        ],
        &[],
    )
}

/// LU factorization of a square matrix: `x` (a C-contiguous copy, which
/// read column-major is Aᵀ) is overwritten by the factors of Aᵀ, `ipiv`
/// (int64, 1-based) by its row swaps, `info` by getrf's info. The returned
/// workspaces must live until the info word has been read.
fn getrf(op: &'static str, x: View<'_>, ipiv: View<'_>, info: View<'_>) -> Result<Work> {
    let s = session_of(op, x)?;
    let n = x.shape()[0] as i64;
    let dt = data_type(op, x.dtype())?;
    let px = ptr(op, x)? as *mut c_void;
    with_solver(op, s, |h, p| {
        let (mut db, mut hb) = (0usize, 0usize);
        // SAFETY: valid handle/params; out pointers valid.
        check(op, "cusolverDnXgetrf_bufferSize", unsafe {
            cs::cusolverDnXgetrf_bufferSize(h, p, n, n, dt, px, n.max(1), dt, &mut db, &mut hb)
        })?;
        let mut w = Work::new(op, s.info.ordinal, db, hb)?;
        // SAFETY: x holds n×n elements (lda = n), ipiv n int64s, info one
        // int32; the workspaces have the sizes asked for.
        check(op, "cusolverDnXgetrf", unsafe {
            cs::cusolverDnXgetrf(
                h,
                p,
                n,
                n,
                dt,
                px,
                n.max(1),
                ptr(op, ipiv)? as *mut i64,
                dt,
                w.dptr(),
                db,
                w.host.as_mut_ptr().cast(),
                hb,
                ptr(op, info)? as *mut i32,
            )
        })?;
        Ok(w)
    })
}

/// `solve(a, b)` for a square (n, n) and b (n, nrhs): LU of Aᵀ (the C-order
/// copy) and `getrs` with the transpose flag. Returns x (n, nrhs).
fn solve(a: View<'_>, b: View<'_>) -> Result<Buffer> {
    let op = "solve";
    let s = session_of(op, a)?;
    let n = a.shape()[0];
    let x = c_copy(op, a)?;
    // b column-major: a C-order (nrhs, n) array.
    let bt = f_copy(op, b)?;
    let ipiv = Buffer::new(op, s.info.ordinal, DType::Int64, &[n.max(1)])?;
    // Both info words in one array: one read-back after both calls.
    let infos = Buffer::new(op, s.info.ordinal, DType::Int32, &[2])?;
    let info1 = Layout::from_parts(vec![1], vec![1], 0);
    let _work = getrf(
        op,
        x.view(),
        ipiv.view(),
        View::new(&infos.storage, &info1, DType::Int32),
    )?;
    let info2 = infos.ptr(op)? + 4;
    getrs(
        op,
        cs::cublasOperation_t::CUBLAS_OP_T,
        &x,
        ipiv.ptr(op)?,
        &bt,
        info2,
    )?;
    // One synchronisation after both calls; a singular input's result is discarded.
    let both = infos.to_host::<i32>()?;
    let (i1, i2) = (both[0], both[1]);
    if i1 < 0 {
        return Err(bad_argument(op, "getrf", i1));
    }
    if i1 > 0 {
        return Err(Error::LinAlg {
            op,
            detail: format!(
                "singular matrix (getrf info = {i1}: U[{0}, {0}] is exactly zero)",
                i1 - 1
            ),
        });
    }
    if i2 != 0 {
        return Err(bad_argument(op, "getrs", i2));
    }
    Ok(bt.t())
}

/// `getrs`: overwrites `rhs` (n×nrhs column-major: a C-contiguous
/// (nrhs, n) buffer) with the solution of `op(F) x = rhs`, `F` the getrf
/// factors in `factors` (n×n column-major) with 1-based int64 pivots at
/// device address `ipiv`, writing getrs's info at device address `info`.
fn getrs(
    op: &'static str,
    trans: cs::cublasOperation_t,
    factors: &Buffer,
    ipiv: u64,
    rhs: &Buffer,
    info: u64,
) -> Result<()> {
    let s = session_of(op, factors.view())?;
    let n = factors.layout.shape()[0] as i64;
    let nrhs = rhs.layout.shape()[0] as i64;
    let dt = data_type(op, factors.dtype)?;
    with_solver(op, s, |h, p| {
        // SAFETY: factors and pivots of getrf; rhs holds n×nrhs
        // column-major (ldb = n); info one int32.
        check(op, "cusolverDnXgetrs", unsafe {
            cs::cusolverDnXgetrs(
                h,
                p,
                trans,
                n,
                nrhs,
                dt,
                factors.ptr(op)? as *const c_void,
                n.max(1),
                ipiv as *const i64,
                dt,
                rhs.ptr(op)? as *mut c_void,
                n.max(1),
                info as *mut i32,
            )
        })
    })
}

/// LU factors for determinants: the diagonal of U (n values, as
/// complex128) and whether the row swaps are an odd permutation.
fn lu_diagonal(a: View<'_>) -> Result<(Vec<Complex64>, bool)> {
    let op = "det";
    let s = session_of(op, a)?;
    let n = a.shape()[0];
    let x = c_copy(op, a)?;
    let ipiv = Buffer::new(op, s.info.ordinal, DType::Int64, &[n.max(1)])?;
    let info = Buffer::new(op, s.info.ordinal, DType::Int32, &[1])?;
    let _work = getrf(op, x.view(), ipiv.view(), info.view())?;
    let i = read_info(&info)?;
    if i < 0 {
        return Err(bad_argument(op, "getrf", i));
    }
    // info > 0 only says that some U[i, i] is zero: the determinant is 0.
    let diag = Layout::from_parts(vec![n], vec![n as isize + 1], 0);
    let d = Buffer::new(op, s.info.ordinal, DType::Complex128, &[n])?;
    copy_into(op, View::new(&x.storage, &diag, x.dtype), d.view())?;
    let mut pv = ipiv.to_host::<i64>()?;
    pv.truncate(n);
    let odd = pv
        .iter()
        .enumerate()
        .filter(|&(ref i, &p)| p != *i as i64 + 1)
        .count()
        % 2
        == 1;
    Ok((d.to_host::<Complex64>()?, odd))
}

/// Lower Cholesky factor L (A = L Lᴴ) of a Hermitian positive definite
/// matrix, reading A's lower triangle as NumPy does.
fn cholesky(a: View<'_>) -> Result<Buffer> {
    let op = "cholesky";
    let s = session_of(op, a)?;
    let n = a.shape()[0] as i64;
    // Read column-major, the copy is Aᵀ = conj(A) with A's lower triangle
    // in its upper one: potrf(UPPER) gives U with Uᴴ U = conj(A), and the
    // C-order view of U is Uᵀ = L with L Lᴴ = A.
    let x = c_copy(op, a)?;
    let info = Buffer::new(op, s.info.ordinal, DType::Int32, &[1])?;
    let dt = data_type(op, a.dtype())?;
    let px = x.ptr(op)? as *mut c_void;
    let uplo = cs::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER;
    let _work = with_solver(op, s, |h, p| {
        let (mut db, mut hb) = (0usize, 0usize);
        // SAFETY: valid handle/params; out pointers valid.
        check(op, "cusolverDnXpotrf_bufferSize", unsafe {
            cs::cusolverDnXpotrf_bufferSize(h, p, uplo, n, dt, px, n.max(1), dt, &mut db, &mut hb)
        })?;
        let mut w = Work::new(op, s.info.ordinal, db, hb)?;
        // SAFETY: x holds n×n (lda = n); workspaces as sized; info one int32.
        check(op, "cusolverDnXpotrf", unsafe {
            cs::cusolverDnXpotrf(
                h,
                p,
                uplo,
                n,
                dt,
                px,
                n.max(1),
                dt,
                w.dptr(),
                db,
                w.host.as_mut_ptr().cast(),
                hb,
                info.ptr(op)? as *mut i32,
            )
        })?;
        Ok(w)
    })?;
    zero_triangle(x.view(), true)?;
    let i = read_info(&info)?;
    if i < 0 {
        return Err(bad_argument(op, "potrf", i));
    }
    if i > 0 {
        return Err(Error::LinAlg {
            op,
            detail: format!(
                "matrix is not positive definite (potrf info = {i}: the leading minor of order {i} is not positive)"
            ),
        });
    }
    Ok(x)
}

/// QR of an (m, n) matrix: `(Some(Q), R)`, or `(None, R)` when `want_q` is
/// false. `complete` gives Q (m, m) and R (m, n); otherwise Q (m, k) and R
/// (k, n), k = min(m, n). m and n are positive.
fn qr(a: View<'_>, complete: bool, want_q: bool) -> Result<(Option<Buffer>, Buffer)> {
    let op = "qr";
    let s = session_of(op, a)?;
    let ord = s.info.ordinal;
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let k = m.min(n);
    let dtype = a.dtype();
    let dt = data_type(op, dtype)?;
    // x: C-order (n, m), which read column-major is A (m×n, lda = m).
    let x = f_copy(op, a)?;
    let tau = Buffer::new(op, ord, dtype, &[k])?;
    let info = Buffer::new(op, ord, DType::Int32, &[1])?;
    let (mi, ni) = (m as i64, n as i64);
    let px = x.ptr(op)? as *mut c_void;
    let ptau = tau.ptr(op)? as *mut c_void;
    let _work = with_solver(op, s, |h, p| {
        let (mut db, mut hb) = (0usize, 0usize);
        // SAFETY: valid handle/params; out pointers valid.
        check(op, "cusolverDnXgeqrf_bufferSize", unsafe {
            cs::cusolverDnXgeqrf_bufferSize(
                h, p, mi, ni, dt, px, mi, dt, ptau, dt, &mut db, &mut hb,
            )
        })?;
        let mut w = Work::new(op, ord, db, hb)?;
        // SAFETY: x holds m×n column-major (lda = m), tau k elements.
        check(op, "cusolverDnXgeqrf", unsafe {
            cs::cusolverDnXgeqrf(
                h,
                p,
                mi,
                ni,
                dt,
                px,
                mi,
                dt,
                ptau,
                dt,
                w.dptr(),
                db,
                w.host.as_mut_ptr().cast(),
                hb,
                info.ptr(op)? as *mut i32,
            )
        })?;
        Ok(w)
    })?;
    // R: the upper triangle of A's storage, i.e. of the C-order view x.T,
    // copied out before Q overwrites x.
    let rows = if complete { m } else { k };
    let rview = Layout::from_parts(vec![rows, n], vec![1, m as isize], 0);
    let r = c_copy(op, View::new(&x.storage, &rview, dtype))?;
    zero_triangle(r.view(), false)?;
    let i = read_info(&info)?;
    if i != 0 {
        return Err(bad_argument(op, "geqrf", i));
    }
    if !want_q {
        return Ok((None, r));
    }
    let mc = if complete { m } else { k };
    // The buffer orgqr expands in place: x itself when it has mc columns
    // (column-major), else a (mc, m) C-order array holding x in its first n rows.
    let q = if mc <= n {
        x
    } else {
        let q = Buffer::new(op, ord, dtype, &[mc, m])?;
        let top = Layout::from_parts(vec![n, m], vec![m as isize, 1], 0);
        copy_into(op, x.view(), View::new(&q.storage, &top, dtype))?;
        q
    };
    let pq = q.ptr(op)?;
    let info2 = Buffer::new(op, ord, DType::Int32, &[1])?;
    let pinfo = info2.ptr(op)? as *mut i32;
    let mci = mc as i32;
    let (m32, k32) = (m as i32, k as i32);
    with_solver(op, s, |h, _| {
        macro_rules! orgqr {
            ($size:ident, $run:ident, $t:ty) => {{
                let mut lwork: i32 = 0;
                // SAFETY: q holds m×mc column-major (lda = m); tau k elements.
                check(op, stringify!($size), unsafe {
                    cs::$size(
                        h,
                        m32,
                        mci,
                        k32,
                        pq as *const $t,
                        m32,
                        ptau as *const $t,
                        &mut lwork,
                    )
                })?;
                let work = Buffer::new(op, ord, dtype, &[(lwork.max(1)) as usize])?;
                // SAFETY: as above; work holds lwork elements.
                check(op, stringify!($run), unsafe {
                    cs::$run(
                        h,
                        m32,
                        mci,
                        k32,
                        pq as *mut $t,
                        m32,
                        ptau as *const $t,
                        work.ptr(op)? as *mut $t,
                        lwork,
                        pinfo,
                    )
                })?;
                drop(work);
            }};
        }
        match dtype {
            DType::Float32 => orgqr!(cusolverDnSorgqr_bufferSize, cusolverDnSorgqr, f32),
            DType::Float64 => orgqr!(cusolverDnDorgqr_bufferSize, cusolverDnDorgqr, f64),
            DType::Complex64 => {
                orgqr!(cusolverDnCungqr_bufferSize, cusolverDnCungqr, cs::cuComplex)
            }
            _ => orgqr!(
                cusolverDnZungqr_bufferSize,
                cusolverDnZungqr,
                cs::cuDoubleComplex
            ),
        }
        Ok(())
    })?;
    let i = read_info(&info2)?;
    if i != 0 {
        return Err(bad_argument(op, "orgqr", i));
    }
    // Q (m×mc column-major) is the C-order view qᵀ restricted to mc columns.
    let qv = Layout::from_parts(vec![m, mc], vec![1, m as isize], 0);
    Ok((Some(q.with_layout(qv)), r))
}

/// SVD of an (m, n) matrix (m, n > 0) with `gesvd`, as CuPy: returns
/// `(U, S, Vh)` when `compute_uv` (full or reduced), else `(None, S, None)`.
#[allow(clippy::type_complexity)]
fn svd(
    a: View<'_>,
    full: bool,
    compute_uv: bool,
) -> Result<(Option<Buffer>, Buffer, Option<Buffer>)> {
    let op = "svd";
    let s = session_of(op, a)?;
    let ord = s.info.ordinal;
    let (m, n) = (a.shape()[0], a.shape()[1]);
    let dtype = a.dtype();
    let dt = data_type(op, dtype)?;
    let rdt = data_type(op, dtype.real_dtype())?;
    // gesvd needs rows >= cols. Wide or square A: factor Aᵀ (the C-order
    // copy read column-major); tall A: factor A (a transposed copy).
    let wide = n >= m;
    let x = if wide { c_copy(op, a)? } else { f_copy(op, a)? };
    let (mp, np) = if wide { (n, m) } else { (m, n) };
    let k = np;
    let sv = Buffer::new(op, ord, dtype.real_dtype(), &[k])?;
    let info = Buffer::new(op, ord, DType::Int32, &[1])?;
    // U' (mp×mp for 'A', else in x for 'O'), VT' (np×np).
    let (jobu, jobvt) = match (compute_uv, full) {
        (false, _) => (b'N', b'N'),
        (true, true) => (b'A', b'A'),
        (true, false) => (b'O', b'S'),
    };
    let ubuf = if jobu == b'A' {
        Some(Buffer::new(op, ord, dtype, &[mp, mp])?)
    } else {
        None
    };
    let vtbuf = if compute_uv {
        Some(Buffer::new(op, ord, dtype, &[np, np])?)
    } else {
        None
    };
    let null = std::ptr::null_mut::<c_void>();
    let pu = match &ubuf {
        Some(u) => u.ptr(op)? as *mut c_void,
        None => null,
    };
    let pvt = match &vtbuf {
        Some(v) => v.ptr(op)? as *mut c_void,
        None => null,
    };
    let px = x.ptr(op)? as *mut c_void;
    let psv = sv.ptr(op)? as *mut c_void;
    let (mi, ni) = (mp as i64, np as i64);
    let _work = with_solver(op, s, |h, p| {
        let (mut db, mut hb) = (0usize, 0usize);
        // SAFETY: valid handle/params; out pointers valid.
        check(op, "cusolverDnXgesvd_bufferSize", unsafe {
            cs::cusolverDnXgesvd_bufferSize(
                h,
                p,
                jobu as i8,
                jobvt as i8,
                mi,
                ni,
                dt,
                px,
                mi,
                rdt,
                psv,
                dt,
                pu,
                mi,
                dt,
                pvt,
                ni,
                dt,
                &mut db,
                &mut hb,
            )
        })?;
        let mut w = Work::new(op, ord, db, hb)?;
        // SAFETY: x holds mp×np column-major (lda = mp); S k reals; U mp×mp
        // (ldu = mp) when jobu = 'A'; VT np×np (ldvt = np) when wanted.
        check(op, "cusolverDnXgesvd", unsafe {
            cs::cusolverDnXgesvd(
                h,
                p,
                jobu as i8,
                jobvt as i8,
                mi,
                ni,
                dt,
                px,
                mi,
                rdt,
                psv,
                dt,
                pu,
                mi,
                dt,
                pvt,
                ni,
                dt,
                w.dptr(),
                db,
                w.host.as_mut_ptr().cast(),
                hb,
                info.ptr(op)? as *mut i32,
            )
        })?;
        Ok(w)
    })?;
    check_info(op, "gesvd", &info, |i| {
        format!("SVD did not converge (gesvd info = {i} superdiagonals did not converge)")
    })?;
    if !compute_uv {
        return Ok((None, sv, None));
    }
    // Column-major buffers read in C order are transposes. With M = Aᵀ
    // (wide) = U' S V'ᴴ: A = conj(V') S U'ᵀ, so U = (VT' read in C order)
    // and Vh = (U' read in C order). With M = A (tall): U = U', Vh = VT'.
    let u_store = match ubuf {
        Some(u) => u,
        None => x, // jobu = 'O': U' (mp×np) overwrote x, C-order shape (np, mp)
    };
    let vt_store = vtbuf.expect("computed with compute_uv");
    if wide {
        Ok((Some(vt_store), sv, Some(u_store)))
    } else {
        Ok((Some(u_store.t()), sv, Some(vt_store.t())))
    }
}

/// Eigenvalues (ascending, real) and, when `vectors`, eigenvectors (as
/// columns) of a Hermitian matrix, reading its lower triangle (NumPy's
/// UPLO='L'), with `syevd`/`heevd`.
fn eigh(a: View<'_>, vectors: bool) -> Result<(Buffer, Option<Buffer>)> {
    let op = if vectors { "eigh" } else { "eigvalsh" };
    let s = session_of(op, a)?;
    let ord = s.info.ordinal;
    let n = a.shape()[0];
    let dtype = a.dtype();
    let dt = data_type(op, dtype)?;
    let rdt = data_type(op, dtype.real_dtype())?;
    // Read column-major, the copy is conj(A) with A's lower triangle in its
    // upper one; its eigenvectors Z are conj(V).
    let x = c_copy(op, a)?;
    let w = Buffer::new(op, ord, dtype.real_dtype(), &[n])?;
    let info = Buffer::new(op, ord, DType::Int32, &[1])?;
    let jobz = if vectors {
        cs::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
    } else {
        cs::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
    };
    let uplo = cs::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER;
    let ni = n as i64;
    let px = x.ptr(op)? as *mut c_void;
    let pw = w.ptr(op)? as *mut c_void;
    let _work = with_solver(op, s, |h, p| {
        let (mut db, mut hb) = (0usize, 0usize);
        // SAFETY: valid handle/params; out pointers valid.
        check(op, "cusolverDnXsyevd_bufferSize", unsafe {
            cs::cusolverDnXsyevd_bufferSize(
                h, p, jobz, uplo, ni, dt, px, ni, rdt, pw, dt, &mut db, &mut hb,
            )
        })?;
        let mut wk = Work::new(op, ord, db, hb)?;
        // SAFETY: x holds n×n (lda = n), w n reals; workspaces as sized.
        check(op, "cusolverDnXsyevd", unsafe {
            cs::cusolverDnXsyevd(
                h,
                p,
                jobz,
                uplo,
                ni,
                dt,
                px,
                ni,
                rdt,
                pw,
                dt,
                wk.dptr(),
                db,
                wk.host.as_mut_ptr().cast(),
                hb,
                info.ptr(op)? as *mut i32,
            )
        })?;
        Ok(wk)
    })?;
    check_info(op, "syevd", &info, |i| {
        format!("eigenvalues did not converge (syevd info = {i})")
    })?;
    if !vectors {
        return Ok((w, None));
    }
    // Z column-major is the C-order view x.T; V = conj(Z).
    if dtype.is_complex() {
        conj_in_place(x.view())?;
    }
    Ok((w, Some(x.t())))
}

/// `b` as a result of the backend.
fn owned(b: Option<Buffer>) -> Option<Owned> {
    b.map(Buffer::into_owned)
}

// The Linalg family of the backend interface (`ops::backend`).
impl Linalg for super::CudaBackend {
    fn solve_triangular(&self, a: View<'_>, b: View<'_>, how: Triangular) -> Result<Owned> {
        lu::solve_triangular(a, b, how)
    }

    fn lu_factor(&self, a: View<'_>) -> Result<(Owned, Owned)> {
        lu::lu_factor(a)
    }

    fn lu_solve(&self, f: View<'_>, piv: View<'_>, b: View<'_>, trans: Trans) -> Result<Owned> {
        lu::lu_solve(f, piv, b, trans)
    }

    fn solve(&self, a: View<'_>, b: View<'_>) -> Result<Owned> {
        Ok(solve(a, b)?.into_owned())
    }

    fn inv(&self, a: View<'_>) -> Result<Owned> {
        let op = "inv";
        let out = Buffer::new(op, self.ordinal, a.dtype(), a.shape())?;
        if a.ndim() > 2 {
            super::blas::batched_inv(a, out.view())?;
            return Ok(out.into_owned());
        }
        // One matrix: cuSOLVER's getrf + getrs against the identity, as CuPy.
        let n = a.shape()[0];
        self.fill(op, out.view(), crate::Scalar::Int(0))?;
        let diag = Layout::from_parts(vec![n], vec![n as isize + 1], 0);
        self.fill(
            op,
            View::new(&out.storage, &diag, out.dtype),
            crate::Scalar::Int(1),
        )?;
        self.solve(a, out.view())
    }

    fn lu_diagonal(&self, a: View<'_>) -> Result<(Vec<Complex64>, bool)> {
        lu_diagonal(a)
    }

    fn cholesky(&self, a: View<'_>) -> Result<Owned> {
        Ok(cholesky(a)?.into_owned())
    }

    fn qr(&self, a: View<'_>, complete: bool, want_q: bool) -> Result<(Option<Owned>, Owned)> {
        let (q, r) = qr(a, complete, want_q)?;
        Ok((owned(q), r.into_owned()))
    }

    fn svd(&self, a: View<'_>, full: bool, compute_uv: bool) -> Result<SvdParts> {
        let (u, s, vh) = svd(a, full, compute_uv)?;
        Ok((owned(u), s.into_owned(), owned(vh)))
    }

    fn eig(&self, a: View<'_>, vectors: bool) -> Result<(Owned, Option<Owned>)> {
        eig::eig(a, vectors)
    }

    fn eigh(&self, a: View<'_>, vectors: bool) -> Result<(Owned, Option<Owned>)> {
        let (w, v) = eigh(a, vectors)?;
        Ok((w.into_owned(), owned(v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangle_kernel_source() {
        let s = triangle_source(DType::Float32, true);
        assert!(s.contains("cuprite_zero_triangle(float* x"));
        assert!(s.contains("if (c > r) x[i] = 0;"));
        let s = triangle_source(DType::Complex128, false);
        assert!(s.contains("if (c < r) x[i] = mk(0.0, 0.0);"));
        crate::cuda::kernel_gen::helpers::dump_source("zero_triangle_c128", &s);
        let s = in_place_source(
            DType::Complex64,
            "cuprite_conj",
            "true",
            "mk(x[i].re, -x[i].im)",
        );
        assert!(!s.contains('@'));
        crate::cuda::kernel_gen::helpers::dump_source("conj_c64", &s);
    }
}
