//! `LinearOperator`: anything that can multiply a vector (`scipy.sparse.linalg.LinearOperator`).
//!
//! The solvers only ever ask an operator for `A @ x` (and `A^H @ x` for the
//! least-squares solvers), so a sparse matrix, a dense array and a user's
//! closure all become the same type: a shape, a dtype and one or two
//! functions from `&Array` to `Array`. The functions are reference-counted
//! so an operator clones cheaply into a solver.

use std::cell::OnceCell;
use std::rc::Rc;

use crate::api::sparse::{CscMatrix, CsrMatrix};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{fmt_shape, Error, Result};

type MatVec<'a> = Rc<dyn Fn(&Array) -> Result<Array> + 'a>;

/// A linear map of shape (rows, cols) given by its products with vectors.
#[derive(Clone)]
pub struct LinearOperator<'a> {
    shape: (usize, usize),
    dtype: DType,
    device: Option<Device>,
    matvec: MatVec<'a>,
    rmatvec: Option<MatVec<'a>>,
}

impl<'a> LinearOperator<'a> {
    /// An operator from `matvec(x) = A @ x` for 1-D `x` of length `shape.1`
    /// (`LinearOperator(shape, matvec, dtype=dtype)`).
    pub fn new(
        shape: (usize, usize),
        dtype: DType,
        matvec: impl Fn(&Array) -> Result<Array> + 'a,
    ) -> LinearOperator<'a> {
        LinearOperator {
            shape,
            dtype,
            device: None,
            matvec: Rc::new(matvec),
            rmatvec: None,
        }
    }

    /// The same operator that also knows `rmatvec(y) = A^H @ y` (needed by
    /// `lsqr`, `lsmr` and `svds`).
    pub fn with_rmatvec(mut self, rmatvec: impl Fn(&Array) -> Result<Array> + 'a) -> Self {
        self.rmatvec = Some(Rc::new(rmatvec));
        self
    }

    /// `A` as an operator; products go through [`CsrMatrix::dot`] (cuSPARSE
    /// SpMV on the GPU). `A^H` is built once, on first use.
    pub fn from_csr(a: &CsrMatrix) -> LinearOperator<'a> {
        let fwd = a.clone();
        let adjoint = a.clone();
        let transposed: Rc<OnceCell<CsrMatrix>> = Rc::new(OnceCell::new());
        LinearOperator {
            shape: a.shape(),
            dtype: a.dtype(),
            device: Some(a.device()),
            matvec: Rc::new(move |x| fwd.dot(x)),
            rmatvec: Some(Rc::new(move |y| {
                let at = match transposed.get() {
                    Some(t) => t,
                    None => {
                        // A^T in CSR form is the CSC form of A read as rows.
                        let t = adjoint.tocsc()?.transpose();
                        transposed.get_or_init(|| t)
                    }
                };
                conj_product(at, y)
            })),
        }
    }

    /// `A` as an operator (converted to CSR once, so products use SpMV).
    pub fn from_csc(a: &CscMatrix) -> Result<LinearOperator<'a>> {
        Ok(LinearOperator::from_csr(&a.tocsr()?))
    }

    /// A dense 2-D array as an operator (products through `matmul`).
    pub fn from_dense(a: &Array) -> Result<LinearOperator<'a>> {
        let [m, n] = a.shape() else {
            return Err(Error::shape(
                "aslinearoperator",
                format!(
                    "a dense operator must be 2-D, not of shape {}",
                    fmt_shape(a.shape())
                ),
            ));
        };
        let (fwd, adj) = (a.clone(), a.clone());
        Ok(LinearOperator {
            shape: (*m, *n),
            dtype: a.dtype(),
            device: Some(a.device()),
            matvec: Rc::new(move |x| crate::api::linalg::matmul::matmul(&fwd, x)),
            rmatvec: Some(Rc::new(move |y| {
                let ah = crate::api::linalg::matmul::conj(&adj.t())?;
                crate::api::linalg::matmul::matmul(&ah, y)
            })),
        })
    }

    /// The identity of size n (what a missing preconditioner is).
    pub fn identity(n: usize, dtype: DType) -> LinearOperator<'a> {
        LinearOperator::new((n, n), dtype, |x| Ok(x.clone())).with_rmatvec(|y| Ok(y.clone()))
    }

    /// The same operator, known to work on `device`'s arrays (so a solver
    /// can refuse a right-hand side on another device up front).
    pub(crate) fn with_device(mut self, device: Device) -> Self {
        self.device = Some(device);
        self
    }

    /// (rows, cols).
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }

    /// The dtype of its products.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The device of the matrix it wraps (`None` for a closure).
    pub fn device(&self) -> Option<Device> {
        self.device
    }

    /// Whether `rmatvec` is known.
    pub fn has_rmatvec(&self) -> bool {
        self.rmatvec.is_some()
    }

    /// `A @ x` for 1-D `x` of length cols; the result must have length rows.
    pub fn matvec(&self, x: &Array) -> Result<Array> {
        self.apply(
            "LinearOperator.matvec",
            &self.matvec,
            x,
            self.shape.1,
            self.shape.0,
        )
    }

    /// `A^H @ y` for 1-D `y` of length rows.
    pub fn rmatvec(&self, y: &Array) -> Result<Array> {
        let op = "LinearOperator.rmatvec";
        let Some(f) = &self.rmatvec else {
            return Err(Error::invalid(
                op,
                "this operator was made without an rmatvec (give one with with_rmatvec)",
            ));
        };
        self.apply(op, f, y, self.shape.0, self.shape.1)
    }

    fn apply(
        &self,
        op: &'static str,
        f: &MatVec<'a>,
        x: &Array,
        len_in: usize,
        len_out: usize,
    ) -> Result<Array> {
        if x.shape() != [len_in] {
            return Err(Error::shape(
                op,
                format!(
                    "an operator of shape ({}, {}) takes a vector of shape ({len_in},), not {}",
                    self.shape.0,
                    self.shape.1,
                    fmt_shape(x.shape())
                ),
            ));
        }
        let y = f(x)?;
        let y = if y.ndim() == 2 && y.shape()[1] == 1 {
            y.reshape(vec![y.shape()[0]])?
        } else {
            y
        };
        if y.shape() != [len_out] {
            return Err(Error::shape(
                op,
                format!(
                    "the operator's function returned shape {}, but an operator of shape ({}, {}) must return ({len_out},)",
                    fmt_shape(y.shape()),
                    self.shape.0,
                    self.shape.1
                ),
            ));
        }
        Ok(y)
    }
}

impl std::fmt::Debug for LinearOperator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "<{}x{} LinearOperator with dtype={}>",
            self.shape.0, self.shape.1, self.dtype
        )
    }
}

/// `conj(At @ conj(y))`, which is `A^H y` for `At` = A^T.
fn conj_product(at: &CsrMatrix, y: &Array) -> Result<Array> {
    if at.dtype().is_complex() || y.dtype().is_complex() {
        crate::api::linalg::matmul::conj(&at.dot(&crate::api::linalg::matmul::conj(y)?)?)
    } else {
        at.dot(y)
    }
}

/// What a solver accepts as its matrix: a sparse matrix, a dense 2-D array
/// or a [`LinearOperator`] (`aslinearoperator`).
pub trait IntoOperator<'a> {
    /// The operator view of `self`.
    fn into_operator(self) -> Result<LinearOperator<'a>>;
}

impl<'a> IntoOperator<'a> for LinearOperator<'a> {
    fn into_operator(self) -> Result<LinearOperator<'a>> {
        Ok(self)
    }
}
impl<'a> IntoOperator<'a> for &LinearOperator<'a> {
    fn into_operator(self) -> Result<LinearOperator<'a>> {
        Ok(self.clone())
    }
}
impl<'a> IntoOperator<'a> for &CsrMatrix {
    fn into_operator(self) -> Result<LinearOperator<'a>> {
        Ok(LinearOperator::from_csr(self))
    }
}
impl<'a> IntoOperator<'a> for &CscMatrix {
    fn into_operator(self) -> Result<LinearOperator<'a>> {
        LinearOperator::from_csc(self)
    }
}
impl<'a> IntoOperator<'a> for &Array {
    fn into_operator(self) -> Result<LinearOperator<'a>> {
        LinearOperator::from_dense(self)
    }
}

/// `aslinearoperator(a)`.
pub fn aslinearoperator<'a>(a: impl IntoOperator<'a>) -> Result<LinearOperator<'a>> {
    a.into_operator()
}
