//! Sparse matrices (`cupyx.scipy.sparse`): CSR, CSC and COO matrices of
//! float32, float64, complex64 or complex128 values with int32 indices.
//!
//! The three arrays of a matrix live on the device that was current when it
//! was made (as CuPy's do). Products with dense vectors and matrices and
//! sparse x sparse products of CSR matrices run on the GPU through cuSPARSE's
//! generic API (SpMV, SpMM, SpGEMM) on the current stream; the structural
//! operations (conversions, `sum_duplicates`, `+`, `transpose` of COO, ...)
//! run on the host and move their results back to the matrix's device.
//!
//! ```
//! use cuprite as cp;
//! use cp::sparse::CsrMatrix;
//! let a = CsrMatrix::from_dense(&cp::asarray(vec![vec![1.0f64, 0.0], vec![0.0, 2.0]])?)?;
//! let y = a.dot(&cp::asarray(vec![3.0f64, 4.0])?)?;
//! assert_eq!(y.to_vec::<f64>()?, vec![3.0, 8.0]);
//! # Ok::<(), cp::Error>(())
//! ```

pub mod linalg;

use std::fmt;

use num_complex::{Complex32, Complex64};
use num_traits::{NumAssign, Zero};

use crate::backend::probe::current_device;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{promote_types, DType};
use crate::core::element::{Element, Scalar};
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::ops::sparse::CsrView;

/// Element types of sparse matrices (f32, f64, Complex32, Complex64).
pub(crate) trait SpNum: Element + NumAssign + Zero + Copy {}
impl SpNum for f32 {}
impl SpNum for f64 {}
impl SpNum for Complex32 {}
impl SpNum for Complex64 {}

/// Runs `$body` with `$T` the sparse element type of `$dtype`.
macro_rules! with_sp {
    ($dtype:expr, $T:ident => $body:expr) => {{
        match $dtype {
            DType::Float32 => {
                type $T = f32;
                $body
            }
            DType::Float64 => {
                type $T = f64;
                $body
            }
            DType::Complex64 => {
                type $T = Complex32;
                $body
            }
            DType::Complex128 => {
                type $T = Complex64;
                $body
            }
            _ => unreachable!("sparse dtypes are checked on construction"),
        }
    }};
}

/// The sparse value dtype for data of `dt`: floats and complex keep their
/// type (float16 becomes float32), integers and bool become float64.
fn value_dtype(dt: DType) -> DType {
    match dt {
        d if d.is_inexact() => d.compute_dtype(),
        _ => DType::Float64,
    }
}

/// The value dtype that `dt` must be to be stored (an error for others).
fn check_value_dtype(op: &'static str, dt: DType) -> Result<DType> {
    match dt {
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128 => Ok(dt),
        _ => Err(Error::DType {
            op,
            detail: format!(
                "sparse matrices hold float32, float64, complex64 or complex128 values, not {dt}; convert with .astype(cp::f64) first"
            ),
        }),
    }
}

/// The elements of a 1-D array as `T` (copied to the host).
fn host_1d<T: Element>(op: &'static str, what: &str, a: &Array) -> Result<Vec<T>> {
    if a.ndim() != 1 {
        return Err(Error::shape(
            op,
            format!("{what} must be 1-D, but has shape {}", fmt_shape(a.shape())),
        ));
    }
    crate::backend::fallback::fetch(op, a.device(), || {
        if a.dtype() == T::DTYPE {
            a.to_vec::<T>()
        } else {
            a.astype(T::DTYPE)?.to_vec::<T>()
        }
    })
}

/// An integer index array as i32 values (any integer dtype; values must fit).
fn host_index(op: &'static str, what: &str, a: &Array) -> Result<Vec<i32>> {
    if !a.dtype().is_integer() {
        return Err(Error::DType {
            op,
            detail: format!("{what} must hold integers, not {}", a.dtype()),
        });
    }
    let v = host_1d::<i64>(op, what, a)?;
    v.iter()
        .map(|&x| {
            i32::try_from(x).map_err(|_| Error::InvalidArgument {
                op,
                detail: format!(
                    "{what} holds {x}, which does not fit the int32 indices of sparse matrices"
                ),
            })
        })
        .collect()
}

fn shape_fits(op: &'static str, shape: (usize, usize)) -> Result<()> {
    if shape.0 > i32::MAX as usize || shape.1 > i32::MAX as usize {
        return Err(Error::InvalidArgument {
            op,
            detail: format!(
                "shape ({}, {}) is too large for int32 indices",
                shape.0, shape.1
            ),
        });
    }
    Ok(())
}

/// Compressed rows on the host: the working form of every host algorithm
/// (a CSC matrix is the CSR form of its transpose).
#[derive(Debug, Clone)]
pub(crate) struct HostCsr<T> {
    pub nrows: usize,
    pub ncols: usize,
    pub indptr: Vec<i32>,
    pub indices: Vec<i32>,
    pub data: Vec<T>,
}

impl<T: SpNum> HostCsr<T> {
    /// Checks the compressed structure (the message names `op` and what is wrong).
    fn validate(&self, op: &'static str, major: &str, minor: &str) -> Result<bool> {
        let bad = |detail: String| Err(Error::InvalidArgument { op, detail });
        if self.indptr.len() != self.nrows + 1 {
            return bad(format!(
                "indptr has {} entries, but {} {major}s need {}",
                self.indptr.len(),
                self.nrows,
                self.nrows + 1
            ));
        }
        if self.indices.len() != self.data.len() {
            return bad(format!(
                "indices ({}) and data ({}) differ in length",
                self.indices.len(),
                self.data.len()
            ));
        }
        if self.indptr[0] != 0 {
            return bad(format!("indptr[0] is {}, it must be 0", self.indptr[0]));
        }
        for (i, w) in self.indptr.windows(2).enumerate() {
            if w[1] < w[0] {
                return bad(format!(
                    "indptr is not non-decreasing: indptr[{}] = {} > indptr[{}] = {}",
                    i,
                    w[0],
                    i + 1,
                    w[1]
                ));
            }
        }
        let last = self.indptr[self.nrows] as usize;
        if last != self.data.len() {
            return bad(format!(
                "indptr[-1] is {last}, but there are {} stored values (data and indices)",
                self.data.len()
            ));
        }
        let mut sorted = true;
        for r in 0..self.nrows {
            let (a, b) = (self.indptr[r] as usize, self.indptr[r + 1] as usize);
            for k in a..b {
                let c = self.indices[k];
                if c < 0 || c as usize >= self.ncols {
                    return bad(format!(
                        "{minor} index {c} (entry {k}, {major} {r}) is out of range for {} {minor}s",
                        self.ncols
                    ));
                }
                if k > a && self.indices[k - 1] >= c {
                    sorted = false;
                }
            }
        }
        Ok(sorted)
    }

    fn row(&self, r: usize) -> std::ops::Range<usize> {
        self.indptr[r] as usize..self.indptr[r + 1] as usize
    }

    /// The CSR form of the transpose (indices come out sorted; duplicates kept).
    fn transposed(&self) -> HostCsr<T> {
        let mut count = vec![0i32; self.ncols + 1];
        for &c in &self.indices {
            count[c as usize + 1] += 1;
        }
        for i in 0..self.ncols {
            count[i + 1] += count[i];
        }
        let indptr = count.clone();
        let mut next = count;
        let mut indices = vec![0i32; self.indices.len()];
        let mut data = vec![T::zero(); self.data.len()];
        for r in 0..self.nrows {
            for k in self.row(r) {
                let c = self.indices[k] as usize;
                let at = next[c] as usize;
                next[c] += 1;
                indices[at] = r as i32;
                data[at] = self.data[k];
            }
        }
        HostCsr {
            nrows: self.ncols,
            ncols: self.nrows,
            indptr,
            indices,
            data,
        }
    }

    /// Sorted indices, duplicates summed; with `drop_zeros` explicit zeros removed.
    fn canonical(&self, drop_zeros: bool) -> HostCsr<T> {
        let mut indptr = Vec::with_capacity(self.nrows + 1);
        indptr.push(0i32);
        let mut indices = Vec::with_capacity(self.indices.len());
        let mut data = Vec::with_capacity(self.data.len());
        let mut row: Vec<(i32, T)> = Vec::new();
        for r in 0..self.nrows {
            row.clear();
            row.extend(self.row(r).map(|k| (self.indices[k], self.data[k])));
            row.sort_by_key(|e| e.0);
            let mut i = 0;
            while i < row.len() {
                let c = row[i].0;
                let mut v = row[i].1;
                i += 1;
                while i < row.len() && row[i].0 == c {
                    v += row[i].1;
                    i += 1;
                }
                if !(drop_zeros && v.is_zero()) {
                    indices.push(c);
                    data.push(v);
                }
            }
            indptr.push(indices.len() as i32);
        }
        HostCsr {
            nrows: self.nrows,
            ncols: self.ncols,
            indptr,
            indices,
            data,
        }
    }

    /// The same entries without explicit zeros (order kept).
    fn without_zeros(&self) -> HostCsr<T> {
        let mut indptr = vec![0i32];
        let mut indices = Vec::new();
        let mut data = Vec::new();
        for r in 0..self.nrows {
            for k in self.row(r) {
                if !self.data[k].is_zero() {
                    indices.push(self.indices[k]);
                    data.push(self.data[k]);
                }
            }
            indptr.push(indices.len() as i32);
        }
        HostCsr {
            nrows: self.nrows,
            ncols: self.ncols,
            indptr,
            indices,
            data,
        }
    }

    /// Compressed rows from coordinates (duplicates summed, indices sorted, as
    /// SciPy's `tocsr`). The coordinates must be in range.
    fn from_coo(nrows: usize, ncols: usize, row: &[i32], col: &[i32], val: &[T]) -> HostCsr<T> {
        let mut count = vec![0i32; nrows + 1];
        for &r in row {
            count[r as usize + 1] += 1;
        }
        for i in 0..nrows {
            count[i + 1] += count[i];
        }
        let mut next = count.clone();
        let mut indices = vec![0i32; row.len()];
        let mut data = vec![T::zero(); row.len()];
        for k in 0..row.len() {
            let r = row[k] as usize;
            let at = next[r] as usize;
            next[r] += 1;
            indices[at] = col[k];
            data[at] = val[k];
        }
        HostCsr {
            nrows,
            ncols,
            indptr: count,
            indices,
            data,
        }
        .canonical(false)
    }

    fn to_dense(&self) -> Vec<T> {
        let mut out = vec![T::zero(); self.nrows * self.ncols];
        for r in 0..self.nrows {
            for k in self.row(r) {
                out[r * self.ncols + self.indices[k] as usize] += self.data[k];
            }
        }
        out
    }

    fn from_dense(nrows: usize, ncols: usize, v: &[T]) -> HostCsr<T> {
        let mut indptr = vec![0i32];
        let mut indices = Vec::new();
        let mut data = Vec::new();
        for r in 0..nrows {
            for c in 0..ncols {
                let x = v[r * ncols + c];
                if !x.is_zero() {
                    indices.push(c as i32);
                    data.push(x);
                }
            }
            indptr.push(indices.len() as i32);
        }
        HostCsr {
            nrows,
            ncols,
            indptr,
            indices,
            data,
        }
    }

    /// `self + sign * other` of two canonical matrices of one shape, without zeros.
    fn add(&self, other: &HostCsr<T>, negate: bool) -> HostCsr<T> {
        let mut indptr = vec![0i32];
        let mut indices = Vec::new();
        let mut data = Vec::new();
        for r in 0..self.nrows {
            let (mut i, ie) = (self.indptr[r] as usize, self.indptr[r + 1] as usize);
            let (mut j, je) = (other.indptr[r] as usize, other.indptr[r + 1] as usize);
            while i < ie || j < je {
                let ci = if i < ie { self.indices[i] } else { i32::MAX };
                let cj = if j < je { other.indices[j] } else { i32::MAX };
                let (c, v) = if ci < cj {
                    i += 1;
                    (ci, self.data[i - 1])
                } else {
                    let mut b = other.data[j];
                    if negate {
                        b = T::zero() - b;
                    }
                    j += 1;
                    if ci == cj {
                        i += 1;
                        (ci, self.data[i - 1] + b)
                    } else {
                        (cj, b)
                    }
                };
                if !v.is_zero() {
                    indices.push(c);
                    data.push(v);
                }
            }
            indptr.push(indices.len() as i32);
        }
        HostCsr {
            nrows: self.nrows,
            ncols: self.ncols,
            indptr,
            indices,
            data,
        }
    }
}

/// The three arrays of a compressed matrix on a device.
#[derive(Clone)]
struct Compressed {
    data: Array,
    indices: Array,
    indptr: Array,
    /// Rows (CSR) or columns (CSC) and the other extent.
    major: usize,
    minor: usize,
    /// Indices sorted within each row (no duplicates).
    sorted: bool,
}

impl Compressed {
    fn from_host<T: SpNum>(h: &HostCsr<T>, sorted: bool, device: Device) -> Result<Compressed> {
        Ok(Compressed {
            data: Array::from_host_slice(&h.data, &[h.data.len()], device)?,
            indices: Array::from_host_slice(&h.indices, &[h.indices.len()], device)?,
            indptr: Array::from_host_slice(&h.indptr, &[h.indptr.len()], device)?,
            major: h.nrows,
            minor: h.ncols,
            sorted,
        })
    }

    /// The host form; reading GPU data is a counted host fallback of `op`.
    fn host<T: SpNum>(&self, op: &str) -> Result<HostCsr<T>> {
        crate::backend::fallback::fetch(op, self.data.device(), || {
            Ok(HostCsr {
                nrows: self.major,
                ncols: self.minor,
                indptr: self.indptr.to_vec::<i32>()?,
                indices: self.indices.to_vec::<i32>()?,
                data: self.data.to_vec::<T>()?,
            })
        })
    }

    /// Validated arrays (copied to `device`, indices as int32, contiguous).
    fn new(
        op: &'static str,
        data: &Array,
        indices: &Array,
        indptr: &Array,
        major: usize,
        minor: usize,
        names: (&str, &str),
    ) -> Result<Compressed> {
        let dt = check_value_dtype(op, value_dtype(data.dtype()))?;
        let device = data.device();
        for a in [indices, indptr] {
            if a.device() != device {
                return Err(Error::DeviceMismatch {
                    op,
                    a: device.to_string(),
                    b: a.device().to_string(),
                });
            }
        }
        let h = with_sp!(dt, T => {
            let h = HostCsr::<T> {
                nrows: major,
                ncols: minor,
                indptr: host_index(op, "indptr", indptr)?,
                indices: host_index(op, "indices", indices)?,
                data: host_1d::<T>(op, "data", data)?,
            };
            let sorted = h.validate(op, names.0, names.1)?;
            Compressed::from_host(&h, sorted, device)?
        });
        Ok(h)
    }

    fn dtype(&self) -> DType {
        self.data.dtype()
    }

    /// What a backend sees of these arrays (`major` rows).
    fn view(&self) -> CsrView<'_> {
        CsrView {
            rows: self.major,
            cols: self.minor,
            indptr: self.indptr.view(),
            indices: self.indices.view(),
            data: self.data.view(),
        }
    }

    fn nnz(&self) -> usize {
        self.data.size()
    }

    fn map_host(&self, op: &str, sorted: bool, f: impl MapHost) -> Result<Compressed> {
        let device = self.data.device();
        with_sp!(self.dtype(), T => {
            let h = f.apply(self.host::<T>(op)?);
            Compressed::from_host(&h, sorted, device)
        })
    }

    fn with_data(&self, data: Array) -> Compressed {
        Compressed {
            data,
            ..self.clone()
        }
    }

    fn astype(&self, dtype: DType) -> Result<Compressed> {
        check_value_dtype("astype", dtype)?;
        Ok(self.with_data(self.data.astype(dtype)?))
    }

    fn to_device(&self, device: &Device) -> Result<Compressed> {
        Ok(Compressed {
            data: self.data.to_device(device)?,
            indices: self.indices.to_device(device)?,
            indptr: self.indptr.to_device(device)?,
            ..self.clone()
        })
    }
}

/// A host transformation of compressed rows, generic over the element type.
trait MapHost {
    fn apply<T: SpNum>(&self, h: HostCsr<T>) -> HostCsr<T>;
}
struct Canonical(bool);
impl MapHost for Canonical {
    fn apply<T: SpNum>(&self, h: HostCsr<T>) -> HostCsr<T> {
        h.canonical(self.0)
    }
}
struct DropZeros;
impl MapHost for DropZeros {
    fn apply<T: SpNum>(&self, h: HostCsr<T>) -> HostCsr<T> {
        h.without_zeros()
    }
}
struct Transposed;
impl MapHost for Transposed {
    fn apply<T: SpNum>(&self, h: HostCsr<T>) -> HostCsr<T> {
        h.transposed()
    }
}

/// `data * s` (or `/ s`), promoting the value dtype like NumPy with a weak scalar.
fn scale_data(op: &'static str, data: &Array, s: Scalar, divide: bool) -> Result<Array> {
    let out = if divide {
        crate::api::elementwise::true_divide(data, crate::api::operand::Operand::Scalar(s))?
    } else {
        crate::api::elementwise::multiply(data, crate::api::operand::Operand::Scalar(s))?
    };
    let dt = value_dtype(out.dtype());
    check_value_dtype(op, dt)?;
    if out.dtype() == dt {
        Ok(out)
    } else {
        out.astype(dt)
    }
}

/// Compressed sparse rows (`cupyx.scipy.sparse.csr_matrix`).
#[derive(Clone)]
pub struct CsrMatrix {
    c: Compressed,
}

/// Compressed sparse columns (`cupyx.scipy.sparse.csc_matrix`).
#[derive(Clone)]
pub struct CscMatrix {
    /// The CSR form of the transpose (columns are its rows).
    c: Compressed,
}

/// Coordinates (`cupyx.scipy.sparse.coo_matrix`); duplicates are allowed
/// and sum in every operation.
#[derive(Clone)]
pub struct CooMatrix {
    data: Array,
    row: Array,
    col: Array,
    shape: (usize, usize),
}

fn check_2d_dense(op: &'static str, a: &Array) -> Result<(usize, usize)> {
    match a.shape() {
        [m, n] => Ok((*m, *n)),
        [n] => Ok((1, *n)),
        s => Err(Error::Shape {
            op,
            detail: format!(
                "a sparse matrix is made from a 1-D or 2-D array, not one of shape {}",
                fmt_shape(s)
            ),
        }),
    }
}

/// Compressed rows of a dense 2-D array (as `csr_matrix(dense)`), on `a`'s device.
fn dense_to_compressed(op: &'static str, a: &Array, transpose: bool) -> Result<Compressed> {
    let (m, n) = check_2d_dense(op, a)?;
    shape_fits(op, (m, n))?;
    let dt = check_value_dtype(op, value_dtype(a.dtype()))?;
    let a2 = a.reshape(vec![m, n])?;
    let src = if transpose { a2.t() } else { a2 };
    let (r, c) = if transpose { (n, m) } else { (m, n) };
    with_sp!(dt, T => {
        let v = crate::backend::fallback::fetch(op, a.device(), || if src.dtype() == dt { src.to_vec::<T>() } else { src.astype(dt)?.to_vec::<T>() })?;
        Compressed::from_host(&HostCsr::from_dense(r, c, &v), true, a.device())
    })
}

/// A dense (rows x cols) array from compressed rows (transposed for CSC).
fn compressed_to_dense(c: &Compressed, transpose: bool) -> Result<Array> {
    let device = c.data.device();
    with_sp!(c.dtype(), T => {
        let h = c.host::<T>("to_dense")?;
        let h = if transpose { h.transposed() } else { h };
        let v = h.to_dense();
        Array::from_host_slice(&v, &[h.nrows, h.ncols], device)
    })
}

/// Checks that `x` is a dense operand of a product with a (rows x cols) matrix.
fn check_dense_operand(op: &'static str, shape: (usize, usize), x: &Array) -> Result<()> {
    let ok = match x.shape() {
        [n] => *n == shape.1,
        [n, _] => *n == shape.1,
        _ => false,
    };
    if !ok {
        return Err(Error::Shape {
            op,
            detail: format!(
                "a sparse matrix of shape ({}, {}) multiplies a 1-D array of length {} or a 2-D array with {} rows, not shape {}",
                shape.0,
                shape.1,
                shape.1,
                shape.1,
                fmt_shape(x.shape())
            ),
        });
    }
    Ok(())
}

/// `A @ x` for compressed rows `c` (rows x cols) and a dense vector or matrix.
fn csr_dot(op: &'static str, c: &Compressed, x: &Array) -> Result<Array> {
    let shape = (c.major, c.minor);
    check_dense_operand(op, shape, x)?;
    if x.device() != c.data.device() {
        return Err(Error::DeviceMismatch {
            op,
            a: c.data.device().to_string(),
            b: x.device().to_string(),
        });
    }
    let dt = check_value_dtype(op, value_dtype(promote_types(c.dtype(), x.dtype())))?;
    let k = if x.ndim() == 2 { x.shape()[1] } else { 1 };
    let out_shape: Vec<usize> = if x.ndim() == 2 {
        vec![shape.0, k]
    } else {
        vec![shape.0]
    };
    let be = crate::backend::on(op, x.device())?;
    let c = if c.dtype() == dt {
        c.clone()
    } else {
        c.astype(dt)?
    };
    let xx = if x.dtype() == dt {
        x.ascontiguousarray()?
    } else {
        x.astype(dt)?
    };
    let r = be.csr_dot(op, &c.view(), xx.view())?;
    Ok(Array::from_parts(r, Layout::contiguous(&out_shape), dt))
}

/// `A @ B` of compressed rows (A: m x k, B: k x n) as compressed rows.
fn csr_spgemm(op: &'static str, a: &Compressed, b: &Compressed) -> Result<Compressed> {
    if a.minor != b.major {
        return Err(Error::Shape {
            op,
            detail: format!(
                "matrices of shapes ({}, {}) and ({}, {}) do not multiply: {} != {}",
                a.major, a.minor, b.major, b.minor, a.minor, b.major
            ),
        });
    }
    if a.data.device() != b.data.device() {
        return Err(Error::DeviceMismatch {
            op,
            a: a.data.device().to_string(),
            b: b.data.device().to_string(),
        });
    }
    let dt = promote_types(a.dtype(), b.dtype());
    let a = if a.dtype() == dt {
        a.clone()
    } else {
        a.astype(dt)?
    };
    let b = if b.dtype() == dt {
        b.clone()
    } else {
        b.astype(dt)?
    };
    let be = crate::backend::on(op, a.data.device())?;
    // SpGEMM takes sorted column indices (cuSPARSE needs them).
    let sorted = |c: Compressed| -> Result<Compressed> {
        if c.sorted || a.nnz() == 0 || b.nnz() == 0 {
            Ok(c)
        } else {
            c.map_host(op, true, Canonical(false))
        }
    };
    let (a, b) = (sorted(a.clone())?, sorted(b.clone())?);
    let r = be.csr_spgemm(op, &a.view(), &b.view())?;
    let int32 = |s, n: usize| Array::from_parts(s, Layout::contiguous(&[n]), DType::Int32);
    Ok(Compressed {
        data: Array::from_parts(r.data, Layout::contiguous(&[r.nnz]), dt),
        indices: int32(r.indices, r.nnz),
        indptr: int32(r.indptr, a.major + 1),
        major: a.major,
        minor: b.minor,
        sorted: r.sorted,
    })
}

/// `a + b` or `a - b` of compressed forms of one shape (canonical result).
fn compressed_add(
    op: &'static str,
    a: &Compressed,
    b: &Compressed,
    negate: bool,
) -> Result<Compressed> {
    if (a.major, a.minor) != (b.major, b.minor) {
        return Err(Error::Shape {
            op,
            detail: format!(
                "sparse matrices of different shapes ({}, {}) and ({}, {}) cannot be added",
                a.major, a.minor, b.major, b.minor
            ),
        });
    }
    if a.data.device() != b.data.device() {
        return Err(Error::DeviceMismatch {
            op,
            a: a.data.device().to_string(),
            b: b.data.device().to_string(),
        });
    }
    let dt = promote_types(a.dtype(), b.dtype());
    let device = a.data.device();
    with_sp!(dt, T => {
        let ha = if a.dtype() == dt { a.host::<T>(op)? } else { a.astype(dt)?.host::<T>(op)? };
        let hb = if b.dtype() == dt { b.host::<T>(op)? } else { b.astype(dt)?.host::<T>(op)? };
        let h = ha.canonical(false).add(&hb.canonical(false), negate);
        Compressed::from_host(&h, true, device)
    })
}

macro_rules! compressed_common {
    ($Ty:ident, $major:literal, $minor:literal, $transposed:literal, $fmt:literal) => {
        impl $Ty {
            /// The stored values (1-D, length `nnz`).
            pub fn data(&self) -> &Array {
                &self.c.data
            }
            /// The int32 minor indices of the stored values.
            pub fn indices(&self) -> &Array {
                &self.c.indices
            }
            /// The int32 offsets where each compressed row / column starts (length major + 1).
            pub fn indptr(&self) -> &Array {
                &self.c.indptr
            }
            /// Number of stored values (explicit zeros and duplicates included).
            pub fn nnz(&self) -> usize {
                self.c.nnz()
            }
            /// The value dtype.
            pub fn dtype(&self) -> DType {
                self.c.dtype()
            }
            /// The device holding the arrays.
            pub fn device(&self) -> Device {
                self.c.data.device()
            }
            /// The format's name, as SciPy's `format` attribute.
            pub fn format(&self) -> &'static str {
                $fmt
            }
            /// Whether the indices are sorted within each row / column with no duplicates.
            pub fn has_canonical_format(&self) -> bool {
                self.c.sorted
            }
            /// Sums duplicate entries and sorts the indices (SciPy's in-place `sum_duplicates`).
            pub fn sum_duplicates(&mut self) -> Result<()> {
                if !self.c.sorted {
                    self.c = self.c.map_host("sum_duplicates", true, Canonical(false))?;
                }
                Ok(())
            }
            /// Sorts the indices within each row / column (duplicates are summed too).
            pub fn sort_indices(&mut self) -> Result<()> {
                self.sum_duplicates()
            }
            /// Removes stored zeros (SciPy's in-place `eliminate_zeros`).
            pub fn eliminate_zeros(&mut self) -> Result<()> {
                let sorted = self.c.sorted;
                self.c = self.c.map_host("eliminate_zeros", sorted, DropZeros)?;
                Ok(())
            }
            /// The matrix with values of `dtype` (float32, float64, complex64, complex128).
            pub fn astype(&self, dtype: DType) -> Result<$Ty> {
                Ok($Ty { c: self.c.astype(dtype)? })
            }
            /// The matrix on `device`.
            pub fn to_device(&self, device: &Device) -> Result<$Ty> {
                Ok($Ty { c: self.c.to_device(device)? })
            }
            /// Every value multiplied by `s` (`A * s`).
            pub fn mul_scalar(&self, s: impl Into<Scalar>) -> Result<$Ty> {
                let d = scale_data("multiply", &self.c.data, s.into(), false)?;
                Ok($Ty { c: self.c.with_data(d) })
            }
            /// Every value divided by `s` (`A / s`).
            pub fn div_scalar(&self, s: impl Into<Scalar>) -> Result<$Ty> {
                let d = scale_data("divide", &self.c.data, s.into(), true)?;
                Ok($Ty { c: self.c.with_data(d) })
            }
            /// `A + B` (canonical result, zeros dropped).
            pub fn add(&self, other: &$Ty) -> Result<$Ty> {
                Ok($Ty { c: compressed_add("add", &self.c, &other.c, false)? })
            }
            /// `A - B` (canonical result, zeros dropped).
            pub fn sub(&self, other: &$Ty) -> Result<$Ty> {
                Ok($Ty { c: compressed_add("subtract", &self.c, &other.c, true)? })
            }
            /// The dense array (`toarray()`), on the matrix's device.
            pub fn to_dense(&self) -> Result<Array> {
                compressed_to_dense(&self.c, $transposed)
            }
            /// Same as [`Self::to_dense`] (SciPy's name).
            pub fn toarray(&self) -> Result<Array> {
                self.to_dense()
            }
            /// The matrix in COO form.
            pub fn tocoo(&self) -> Result<CooMatrix> {
                let device = self.device();
                with_sp!(self.dtype(), T => {
                    let h = self.c.host::<T>("tocoo")?;
                    let mut major = Vec::with_capacity(h.data.len());
                    for r in 0..h.nrows {
                        for _ in h.row(r) {
                            major.push(r as i32);
                        }
                    }
                    let (row, col) = if $transposed { (h.indices, major) } else { (major, h.indices) };
                    let n = row.len();
                    Ok(CooMatrix {
                        data: Array::from_host_slice(&h.data, &[n], device)?,
                        row: Array::from_host_slice(&row, &[n], device)?,
                        col: Array::from_host_slice(&col, &[n], device)?,
                        shape: self.shape(),
                    })
                })
            }
        }

        impl fmt::Debug for $Ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let (m, n) = self.shape();
                write!(
                    f,
                    "<{m}x{n} sparse matrix of type {} with {} stored elements in {} format on {}>",
                    self.dtype(),
                    self.nnz(),
                    $fmt,
                    self.device()
                )
            }
        }

        impl std::ops::Add for &$Ty {
            type Output = $Ty;
            #[track_caller]
            fn add(self, rhs: &$Ty) -> $Ty {
                or_panic($Ty::add(self, rhs))
            }
        }
        impl std::ops::Sub for &$Ty {
            type Output = $Ty;
            #[track_caller]
            fn sub(self, rhs: &$Ty) -> $Ty {
                or_panic($Ty::sub(self, rhs))
            }
        }
        impl<S: Into<Scalar>> std::ops::Mul<S> for &$Ty {
            type Output = $Ty;
            #[track_caller]
            fn mul(self, rhs: S) -> $Ty {
                or_panic(self.mul_scalar(rhs))
            }
        }
        impl<S: Into<Scalar>> std::ops::Div<S> for &$Ty {
            type Output = $Ty;
            #[track_caller]
            fn div(self, rhs: S) -> $Ty {
                or_panic(self.div_scalar(rhs))
            }
        }
    };
}

#[track_caller]
fn or_panic<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

compressed_common!(CsrMatrix, "row", "column", false, "csr");
compressed_common!(CscMatrix, "column", "row", true, "csc");

impl CsrMatrix {
    /// A CSR matrix from `(data, indices, indptr)` and its shape
    /// (`csr_matrix((data, indices, indptr), shape)`), checking the structure.
    /// Integer data is converted to float64; indices may be any integer dtype.
    pub fn new(
        data: &Array,
        indices: &Array,
        indptr: &Array,
        shape: (usize, usize),
    ) -> Result<CsrMatrix> {
        shape_fits("csr_matrix", shape)?;
        Ok(CsrMatrix {
            c: Compressed::new(
                "csr_matrix",
                data,
                indices,
                indptr,
                shape.0,
                shape.1,
                ("row", "column"),
            )?,
        })
    }
    /// A CSR matrix from coordinates (`csr_matrix((data, (row, col)), shape)`);
    /// duplicates are summed. `shape` `None` takes the largest indices + 1.
    pub fn from_triplets(
        data: &Array,
        row: &Array,
        col: &Array,
        shape: Option<(usize, usize)>,
    ) -> Result<CsrMatrix> {
        CooMatrix::new(data, row, col, shape)?.tocsr()
    }
    /// The nonzero entries of a dense 1-D or 2-D array.
    pub fn from_dense(a: &Array) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: dense_to_compressed("csr_matrix", a, false)?,
        })
    }
    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        (self.c.major, self.c.minor)
    }
    /// The transpose, a CSC matrix sharing these arrays (as SciPy's).
    pub fn transpose(&self) -> CscMatrix {
        CscMatrix { c: self.c.clone() }
    }
    /// Same as [`Self::transpose`].
    pub fn t(&self) -> CscMatrix {
        self.transpose()
    }
    /// A copy (the arrays are shared until changed: they are never changed in place).
    pub fn tocsr(&self) -> Result<CsrMatrix> {
        Ok(self.clone())
    }
    /// The matrix in CSC form.
    pub fn tocsc(&self) -> Result<CscMatrix> {
        Ok(CscMatrix {
            c: self.c.map_host("convert", true, Transposed)?,
        })
    }
    /// `A @ x` for a dense vector (1-D, length columns) or matrix (2-D, columns
    /// rows); on the GPU through cuSPARSE SpMV / SpMM.
    pub fn dot(&self, x: &Array) -> Result<Array> {
        csr_dot("csr_matrix.dot", &self.c, x)
    }
    /// `A @ B` of sparse matrices; on the GPU through cuSPARSE SpGEMM.
    pub fn matmul(&self, other: &CsrMatrix) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: csr_spgemm("csr_matrix.matmul", &self.c, &other.c)?,
        })
    }
}

impl CscMatrix {
    /// A CSC matrix from `(data, indices, indptr)` and its shape
    /// (`csc_matrix((data, indices, indptr), shape)`), checking the structure.
    pub fn new(
        data: &Array,
        indices: &Array,
        indptr: &Array,
        shape: (usize, usize),
    ) -> Result<CscMatrix> {
        shape_fits("csc_matrix", shape)?;
        Ok(CscMatrix {
            c: Compressed::new(
                "csc_matrix",
                data,
                indices,
                indptr,
                shape.1,
                shape.0,
                ("column", "row"),
            )?,
        })
    }
    /// A CSC matrix from coordinates (duplicates summed).
    pub fn from_triplets(
        data: &Array,
        row: &Array,
        col: &Array,
        shape: Option<(usize, usize)>,
    ) -> Result<CscMatrix> {
        CooMatrix::new(data, row, col, shape)?.tocsc()
    }
    /// The nonzero entries of a dense 1-D or 2-D array.
    pub fn from_dense(a: &Array) -> Result<CscMatrix> {
        Ok(CscMatrix {
            c: dense_to_compressed("csc_matrix", a, true)?,
        })
    }
    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        (self.c.minor, self.c.major)
    }
    /// The transpose, a CSR matrix sharing these arrays.
    pub fn transpose(&self) -> CsrMatrix {
        CsrMatrix { c: self.c.clone() }
    }
    /// Same as [`Self::transpose`].
    pub fn t(&self) -> CsrMatrix {
        self.transpose()
    }
    /// The matrix in CSR form.
    pub fn tocsr(&self) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: self.c.map_host("convert", true, Transposed)?,
        })
    }
    /// A copy.
    pub fn tocsc(&self) -> Result<CscMatrix> {
        Ok(self.clone())
    }
    /// `A @ x` for a dense vector or matrix (the GPU path converts to CSR first).
    pub fn dot(&self, x: &Array) -> Result<Array> {
        if self.device().is_cuda() {
            return self.tocsr()?.dot(x);
        }
        check_dense_operand("csc_matrix.dot", self.shape(), x)?;
        let dt = check_value_dtype(
            "csc_matrix.dot",
            value_dtype(promote_types(self.dtype(), x.dtype())),
        )?;
        let k = if x.ndim() == 2 { x.shape()[1] } else { 1 };
        let out_shape: Vec<usize> = if x.ndim() == 2 {
            vec![self.shape().0, k]
        } else {
            vec![self.shape().0]
        };
        with_sp!(dt, T => {
            let h = if self.dtype() == dt { self.c.host::<T>("csc_matrix.dot")? } else { self.c.astype(dt)?.host::<T>("csc_matrix.dot")? };
            let xv = if x.dtype() == dt { x.to_vec::<T>()? } else { x.astype(dt)?.to_vec::<T>()? };
            // Column j of A adds x[j, :] * A[:, j] to the output rows.
            let mut out = vec![T::zero(); out_shape.iter().product()];
            for j in 0..h.nrows {
                for e in h.row(j) {
                    let r = h.indices[e] as usize;
                    let a = h.data[e];
                    for q in 0..k {
                        out[r * k + q] += a * xv[j * k + q];
                    }
                }
            }
            Ok(Array::from_vec_cpu(out, &out_shape))
        })
    }
    /// `A @ B` of sparse matrices (through CSR).
    pub fn matmul(&self, other: &CscMatrix) -> Result<CscMatrix> {
        // (A B)^T = B^T A^T, and the CSC arrays are the CSR arrays of the transposes.
        let c = csr_spgemm("csc_matrix.matmul", &other.c, &self.c)?;
        Ok(CscMatrix { c })
    }
}

impl CooMatrix {
    /// A COO matrix from `(data, (row, col))` (`coo_matrix((data, (row, col)), shape)`);
    /// `shape` `None` takes the largest indices + 1. Duplicates are kept.
    pub fn new(
        data: &Array,
        row: &Array,
        col: &Array,
        shape: Option<(usize, usize)>,
    ) -> Result<CooMatrix> {
        let op = "coo_matrix";
        let dt = check_value_dtype(op, value_dtype(data.dtype()))?;
        let device = data.device();
        let r = host_index(op, "row", row)?;
        let c = host_index(op, "col", col)?;
        let n = data.size();
        if data.ndim() != 1 || r.len() != n || c.len() != n {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "data {}, row ({},) and col ({},) must be 1-D of one length",
                    fmt_shape(data.shape()),
                    r.len(),
                    c.len()
                ),
            });
        }
        if let Some(k) = r.iter().chain(&c).position(|&v| v < 0) {
            let v = if k < n { r[k] } else { c[k - n] };
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "negative {} index {v}",
                    if k < n { "row" } else { "column" }
                ),
            });
        }
        let shape = match shape {
            Some(s) => s,
            None => (
                r.iter().max().map_or(0, |&m| m as usize + 1),
                c.iter().max().map_or(0, |&m| m as usize + 1),
            ),
        };
        shape_fits(op, shape)?;
        for (name, idx, ext) in [("row", &r, shape.0), ("column", &c, shape.1)] {
            if let Some(&v) = idx.iter().find(|&&v| v as usize >= ext) {
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!(
                        "{name} index {v} is out of range for shape ({}, {})",
                        shape.0, shape.1
                    ),
                });
            }
        }
        let data = with_sp!(dt, T => {
            let v = host_1d::<T>(op, "data", data)?;
            Array::from_host_slice(&v, &[n], device)?
        });
        Ok(CooMatrix {
            data,
            row: Array::from_host_slice(&r, &[n], device)?,
            col: Array::from_host_slice(&c, &[n], device)?,
            shape,
        })
    }
    /// The nonzero entries of a dense 1-D or 2-D array.
    pub fn from_dense(a: &Array) -> Result<CooMatrix> {
        CsrMatrix::from_dense(a)?.tocoo()
    }
    /// The stored values.
    pub fn data(&self) -> &Array {
        &self.data
    }
    /// The int32 row indices.
    pub fn row(&self) -> &Array {
        &self.row
    }
    /// The int32 column indices.
    pub fn col(&self) -> &Array {
        &self.col
    }
    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }
    /// Number of stored values (duplicates included).
    pub fn nnz(&self) -> usize {
        self.data.size()
    }
    /// The value dtype.
    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }
    /// The device holding the arrays.
    pub fn device(&self) -> Device {
        self.data.device()
    }
    /// `"coo"`.
    pub fn format(&self) -> &'static str {
        "coo"
    }
    /// The host triplets; reading GPU data is a counted host fallback of `op`.
    fn host<T: SpNum>(&self, op: &str) -> Result<(Vec<i32>, Vec<i32>, Vec<T>)> {
        crate::backend::fallback::fetch(op, self.device(), || {
            Ok((self.row.to_vec()?, self.col.to_vec()?, self.data.to_vec()?))
        })
    }
    fn to_compressed(&self, by_col: bool) -> Result<Compressed> {
        let device = self.device();
        with_sp!(self.dtype(), T => {
            let (r, c, v) = self.host::<T>("convert")?;
            let h = if by_col {
                HostCsr::from_coo(self.shape.1, self.shape.0, &c, &r, &v)
            } else {
                HostCsr::from_coo(self.shape.0, self.shape.1, &r, &c, &v)
            };
            Compressed::from_host(&h, true, device)
        })
    }
    /// CSR form, duplicates summed and indices sorted.
    pub fn tocsr(&self) -> Result<CsrMatrix> {
        Ok(CsrMatrix {
            c: self.to_compressed(false)?,
        })
    }
    /// CSC form, duplicates summed and indices sorted.
    pub fn tocsc(&self) -> Result<CscMatrix> {
        Ok(CscMatrix {
            c: self.to_compressed(true)?,
        })
    }
    /// A copy.
    pub fn tocoo(&self) -> Result<CooMatrix> {
        Ok(self.clone())
    }
    /// The dense array (duplicates summed).
    pub fn to_dense(&self) -> Result<Array> {
        self.tocsr()?.to_dense()
    }
    /// Same as [`Self::to_dense`].
    pub fn toarray(&self) -> Result<Array> {
        self.to_dense()
    }
    /// The transpose (row and column swapped).
    pub fn transpose(&self) -> CooMatrix {
        CooMatrix {
            data: self.data.clone(),
            row: self.col.clone(),
            col: self.row.clone(),
            shape: (self.shape.1, self.shape.0),
        }
    }
    /// Sums duplicates and sorts entries by row, then column (in place).
    pub fn sum_duplicates(&mut self) -> Result<()> {
        *self = self.tocsr()?.tocoo()?;
        Ok(())
    }
    /// Removes stored zeros (in place).
    pub fn eliminate_zeros(&mut self) -> Result<()> {
        let device = self.device();
        with_sp!(self.dtype(), T => {
            let (r, c, v) = self.host::<T>("eliminate_zeros")?;
            let keep: Vec<usize> = (0..v.len()).filter(|&k| !v[k].is_zero()).collect();
            let pick = |x: &[i32]| keep.iter().map(|&k| x[k]).collect::<Vec<i32>>();
            let (r, c) = (pick(&r), pick(&c));
            let v: Vec<T> = keep.iter().map(|&k| v[k]).collect();
            let n = v.len();
            self.data = Array::from_host_slice(&v, &[n], device)?;
            self.row = Array::from_host_slice(&r, &[n], device)?;
            self.col = Array::from_host_slice(&c, &[n], device)?;
        });
        Ok(())
    }
    /// Every value multiplied by `s`.
    pub fn mul_scalar(&self, s: impl Into<Scalar>) -> Result<CooMatrix> {
        Ok(CooMatrix {
            data: scale_data("multiply", &self.data, s.into(), false)?,
            ..self.clone()
        })
    }
    /// Every value divided by `s`.
    pub fn div_scalar(&self, s: impl Into<Scalar>) -> Result<CooMatrix> {
        Ok(CooMatrix {
            data: scale_data("divide", &self.data, s.into(), true)?,
            ..self.clone()
        })
    }
    /// `A + B` (as CSR, like SciPy).
    pub fn add(&self, other: &CooMatrix) -> Result<CsrMatrix> {
        self.tocsr()?.add(&other.tocsr()?)
    }
    /// `A - B` (as CSR, like SciPy).
    pub fn sub(&self, other: &CooMatrix) -> Result<CsrMatrix> {
        self.tocsr()?.sub(&other.tocsr()?)
    }
    /// `A @ x` for a dense vector or matrix (through CSR).
    pub fn dot(&self, x: &Array) -> Result<Array> {
        self.tocsr()?.dot(x)
    }
    /// `A @ B` of sparse matrices (as CSR).
    pub fn matmul(&self, other: &CooMatrix) -> Result<CsrMatrix> {
        self.tocsr()?.matmul(&other.tocsr()?)
    }
    /// The matrix with values of `dtype`.
    pub fn astype(&self, dtype: DType) -> Result<CooMatrix> {
        check_value_dtype("astype", dtype)?;
        Ok(CooMatrix {
            data: self.data.astype(dtype)?,
            ..self.clone()
        })
    }
    /// The matrix on `device`.
    pub fn to_device(&self, device: &Device) -> Result<CooMatrix> {
        Ok(CooMatrix {
            data: self.data.to_device(device)?,
            row: self.row.to_device(device)?,
            col: self.col.to_device(device)?,
            shape: self.shape,
        })
    }
}

impl fmt::Debug for CooMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "<{}x{} sparse matrix of type {} with {} stored elements in COOrdinate format on {}>",
            self.shape.0,
            self.shape.1,
            self.dtype(),
            self.nnz(),
            self.device()
        )
    }
}

/// Builds a CSR matrix on the current device from host coordinates.
fn csr_from_coords<T: SpNum>(
    shape: (usize, usize),
    r: &[i32],
    c: &[i32],
    v: &[T],
) -> Result<CsrMatrix> {
    let h = HostCsr::from_coo(shape.0, shape.1, r, c, v);
    Ok(CsrMatrix {
        c: Compressed::from_host(&h, true, current_device())?,
    })
}

/// A sparse matrix from diagonals (`scipy.sparse.diags(diagonals, offsets,
/// shape, dtype)`, CSR format): diagonal `j` goes on offset `offsets[j]`
/// (positive above the main diagonal); a diagonal of length 1 is repeated.
/// `shape` `None` is square of side `len(diagonals[0]) + |offsets[0]|`;
/// `dtype` `None` is the common float type of the diagonals.
pub fn diags(
    diagonals: &[&Array],
    offsets: &[isize],
    shape: Option<(usize, usize)>,
    dtype: Option<DType>,
) -> Result<CsrMatrix> {
    let op = "diags";
    let (n_diagonals, n_offsets) = (diagonals.len(), offsets.len());
    if n_diagonals != n_offsets {
        let detail =
            format!("different number of diagonals ({n_diagonals}) and offsets ({n_offsets})");
        return Err(Error::invalid(op, detail));
    }
    if diagonals.is_empty() {
        return Err(Error::invalid(op, "no diagonals given"));
    }
    for d in diagonals {
        if d.ndim() != 1 {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "each diagonal must be 1-D, not of shape {}",
                    fmt_shape(d.shape())
                ),
            });
        }
    }
    let (m, n) = shape.unwrap_or_else(|| {
        let s = diagonals[0].size() + offsets[0].unsigned_abs();
        (s, s)
    });
    shape_fits(op, (m, n))?;
    let dt = match dtype {
        Some(d) => check_value_dtype(op, d)?,
        None => {
            let mut d = value_dtype(diagonals[0].dtype());
            for x in diagonals {
                d = promote_types(d, value_dtype(x.dtype()));
            }
            d
        }
    };
    let k_min = m.min(n) as isize;
    let (mi, ni) = (m as isize, n as isize);
    with_sp!(dt, T => {
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::<T>::new());
        for (j, (d, &off)) in diagonals.iter().zip(offsets).enumerate() {
            let length = (mi + off).min(ni - off).min(k_min);
            if length < 0 {
                return Err(Error::invalid(op, format!("offset {off} (index {j}) is out of bounds for shape ({m}, {n})")));
            }
            let vals = host_1d::<T>(op, "diagonal", d)?;
            if vals.len() != 1 && (vals.len() as isize) < length {
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!(
                        "diagonal length (index {j}: {} at offset {off}) does not agree with matrix size ({m}, {n}); it needs {length} values",
                        vals.len()
                    ),
                });
            }
            let col0 = off.max(0);
            for t in 0..length {
                let col = col0 + t;
                r.push((col - off) as i32);
                c.push(col as i32);
                v.push(if vals.len() == 1 { vals[0] } else { vals[t as usize] });
            }
        }
        csr_from_coords((m, n), &r, &c, &v)
    })
}

/// Ones on diagonal `k` of an (m x n) CSR matrix (`scipy.sparse.eye(m, n, k)`).
pub fn eye(m: usize, n: usize, k: isize, dtype: DType) -> Result<CsrMatrix> {
    let op = "eye";
    shape_fits(op, (m, n))?;
    let dt = check_value_dtype(op, dtype)?;
    let (mi, ni) = (m as isize, n as isize);
    with_sp!(dt, T => {
        let (mut r, mut c) = (Vec::new(), Vec::new());
        for i in 0.max(-k)..mi.min(ni - k).max(0) {
            r.push(i as i32);
            c.push((i + k) as i32);
        }
        let v = vec![<T as num_traits::One>::one(); r.len()];
        csr_from_coords((m, n), &r, &c, &v)
    })
}

/// A random (m x n) CSR matrix with `round(density * m * n)` entries at
/// distinct uniformly chosen positions, values uniform in [0, 1)
/// (`scipy.sparse.random`; the generator is Cuprite's own, seeded by `seed`).
pub fn random(m: usize, n: usize, density: f64, seed: u64, dtype: DType) -> Result<CsrMatrix> {
    let op = "sparse.random";
    if !(0.0..=1.0).contains(&density) {
        return Err(Error::invalid(
            op,
            format!("density must be between 0 and 1, not {density}"),
        ));
    }
    shape_fits(op, (m, n))?;
    let dt = check_value_dtype(op, dtype)?;
    let total = (m as u128 * n as u128) as f64;
    let k = (density * total).round() as usize;
    // splitmix64
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mn = (m as u64) * (n as u64);
    // Floyd's algorithm: k distinct positions out of m*n.
    let mut chosen = std::collections::HashSet::with_capacity(k);
    let mut picks = Vec::with_capacity(k);
    for j in (mn - k as u64)..mn {
        let t = next() % (j + 1);
        let p = if chosen.insert(t) {
            t
        } else {
            chosen.insert(j);
            j
        };
        picks.push(p);
    }
    picks.sort_unstable();
    let r: Vec<i32> = picks.iter().map(|&p| (p / n as u64) as i32).collect();
    let c: Vec<i32> = picks.iter().map(|&p| (p % n as u64) as i32).collect();
    with_sp!(dt, T => {
        let v: Vec<T> = (0..k)
            .map(|_| T::from_scalar(Scalar::Float((next() >> 11) as f64 / (1u64 << 53) as f64)))
            .collect();
        csr_from_coords((m, n), &r, &c, &v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(
        nrows: usize,
        ncols: usize,
        indptr: Vec<i32>,
        indices: Vec<i32>,
        data: Vec<f64>,
    ) -> HostCsr<f64> {
        HostCsr {
            nrows,
            ncols,
            indptr,
            indices,
            data,
        }
    }

    #[test]
    fn canonical_sums_and_sorts() {
        let a = h(
            2,
            3,
            vec![0, 3, 4],
            vec![2, 0, 2, 1],
            vec![1.0, 2.0, 3.0, 0.0],
        );
        let c = a.canonical(false);
        assert_eq!(c.indptr, vec![0, 2, 3]);
        assert_eq!(c.indices, vec![0, 2, 1]);
        assert_eq!(c.data, vec![2.0, 4.0, 0.0]);
        let z = a.canonical(true);
        assert_eq!(z.indptr, vec![0, 2, 2]);
        let t = a.transposed();
        assert_eq!(t.indptr, vec![0, 1, 2, 4]);
        assert_eq!(t.indices, vec![0, 1, 0, 0]);
        assert_eq!(t.to_dense(), vec![2.0, 0.0, 0.0, 0.0, 4.0, 0.0]);
    }

    #[test]
    fn validation_messages() {
        let a = h(2, 3, vec![0, 2, 1], vec![0, 1], vec![1.0, 2.0]);
        let e = a
            .validate("csr_matrix", "row", "column")
            .unwrap_err()
            .to_string();
        assert!(e.contains("not non-decreasing"), "{e}");
        let a = h(2, 3, vec![0, 1, 2], vec![0, 3], vec![1.0, 2.0]);
        let e = a
            .validate("csr_matrix", "row", "column")
            .unwrap_err()
            .to_string();
        assert!(e.contains("column index 3"), "{e}");
    }
}
