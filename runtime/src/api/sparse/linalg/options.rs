//! What every iterative solver takes (`SolveOptions`) and returns
//! (`SolveResult`), and the checks they share on the problem they are given.

use crate::api::sparse::linalg::operator::{IntoOperator, LinearOperator};
use crate::api::sparse::linalg::vector::norm;
use crate::core::array::Array;
use crate::core::dtype::{promote_types, DType};
use crate::core::error::{fmt_shape, Error, Result};

/// A per-iteration callback, given the current solution.
type Callback<'a> = Box<dyn FnMut(&Array) + 'a>;

/// Options of the iterative solvers (SciPy's keyword arguments and defaults:
/// `rtol=1e-5`, `atol=0`, `maxiter` `None` for the solver's own default).
pub struct SolveOptions<'a> {
    /// The starting guess (zeros when `None`).
    pub x0: Option<&'a Array>,
    /// Relative tolerance: stop when `||r|| <= max(atol, rtol * ||b||)`.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// The most iterations (restart cycles for `gmres`).
    pub maxiter: Option<usize>,
    /// A preconditioner approximating `A^-1` (shape (n, n)).
    pub m: Option<&'a LinearOperator<'a>>,
    /// `gmres`: Krylov vectors per restart cycle (20 when `None`).
    pub restart: Option<usize>,
    callback: Option<Callback<'a>>,
}

impl Default for SolveOptions<'_> {
    fn default() -> Self {
        SolveOptions {
            x0: None,
            rtol: 1e-5,
            atol: 0.0,
            maxiter: None,
            m: None,
            restart: None,
            callback: None,
        }
    }
}

impl<'a> SolveOptions<'a> {
    /// SciPy's defaults.
    pub fn new() -> Self {
        Self::default()
    }
    /// The starting guess.
    pub fn x0(mut self, x0: &'a Array) -> Self {
        self.x0 = Some(x0);
        self
    }
    /// The relative tolerance.
    pub fn rtol(mut self, rtol: f64) -> Self {
        self.rtol = rtol;
        self
    }
    /// The absolute tolerance.
    pub fn atol(mut self, atol: f64) -> Self {
        self.atol = atol;
        self
    }
    /// The most iterations.
    pub fn maxiter(mut self, maxiter: usize) -> Self {
        self.maxiter = Some(maxiter);
        self
    }
    /// The preconditioner.
    pub fn m(mut self, m: &'a LinearOperator<'a>) -> Self {
        self.m = Some(m);
        self
    }
    /// `gmres`'s restart length.
    pub fn restart(mut self, restart: usize) -> Self {
        self.restart = Some(restart);
        self
    }
    /// Called with the current solution after every iteration (after every
    /// restart cycle for `gmres`, SciPy's `callback_type='x'`).
    pub fn callback(mut self, f: impl FnMut(&Array) + 'a) -> Self {
        self.callback = Some(Box::new(f));
        self
    }
    pub(super) fn notify(&mut self, x: &Array) {
        if let Some(f) = self.callback.as_mut() {
            f(x)
        }
    }
}

/// What an iterative solver found. Not converging is not an error: the
/// result says so (`converged`, and SciPy's `info`).
#[derive(Debug, Clone)]
pub struct SolveResult {
    /// The last iterate.
    pub x: Array,
    /// Iterations done (inner iterations for `gmres`).
    pub iterations: usize,
    /// The last residual norm the solver computed (`||b - A x||` or the
    /// solver's own estimate of it).
    pub residual: f64,
    /// Whether the tolerance was met.
    pub converged: bool,
    /// SciPy's `info`: 0 converged, > 0 the iteration limit that was hit,
    /// < 0 a breakdown.
    pub info: i64,
}

/// A checked problem `A x = b`: a square operator, `b` and `x0` of its
/// length in one inexact dtype on one device, and a preconditioner of its shape.
pub(super) struct Problem<'a> {
    pub a: LinearOperator<'a>,
    pub b: Array,
    pub x: Array,
    /// Whether `x` is a nonzero-able guess (so `r = b - A x` must be computed).
    pub x_given: bool,
    pub n: usize,
    pub dtype: DType,
}

impl<'a> Problem<'a> {
    pub fn new(
        op: &'static str,
        a: impl IntoOperator<'a>,
        b: &Array,
        opts: &SolveOptions<'_>,
        square: bool,
    ) -> Result<Problem<'a>> {
        let a = a.into_operator()?;
        let (rows, cols) = a.shape();
        if square {
            require_square(op, (rows, cols))?;
        }
        let b = match b.shape() {
            [n] if *n == rows => b.clone(),
            [n, 1] if *n == rows => b.reshape(vec![rows])?,
            s => {
                return Err(Error::shape(
                    op,
                    format!(
                        "the right-hand side b must have shape ({rows},) for a matrix of shape ({rows}, {cols}), not {}",
                        fmt_shape(s)
                    ),
                ))
            }
        };
        if let Some(d) = a.device() {
            if d != b.device() {
                return Err(Error::DeviceMismatch {
                    op,
                    a: d.to_string(),
                    b: b.device().to_string(),
                });
            }
        }
        let dtype = solve_dtype(op, promote_types(a.dtype(), b.dtype()))?;
        for (what, t) in [("rtol", opts.rtol), ("atol", opts.atol)] {
            if t.is_nan() || t < 0.0 {
                return Err(Error::invalid(op, format!("{what} must be >= 0, not {t}")));
            }
        }
        if let Some(m) = opts.m {
            if m.shape() != (rows, rows) {
                let (p, q) = m.shape();
                return Err(Error::shape(
                    op,
                    format!("the preconditioner M has shape ({p}, {q}), but the matrix of shape ({rows}, {cols}) needs ({rows}, {rows})"),
                ));
            }
        }
        if opts.restart == Some(0) {
            return Err(Error::invalid(op, "restart must be at least 1, not 0"));
        }
        let (x, x_given) = match opts.x0 {
            Some(x0) => {
                if x0.shape() != [cols] && x0.shape() != [cols, 1] {
                    return Err(Error::shape(
                        op,
                        format!(
                            "x0 must have shape ({cols},), not {}",
                            fmt_shape(x0.shape())
                        ),
                    ));
                }
                if x0.device() != b.device() {
                    return Err(Error::DeviceMismatch {
                        op,
                        a: b.device().to_string(),
                        b: x0.device().to_string(),
                    });
                }
                (x0.reshape(vec![cols])?.astype(dtype)?, true)
            }
            None => (
                crate::with_device(b.device(), || crate::zeros(cols, dtype))?,
                false,
            ),
        };
        Ok(Problem {
            a,
            b: b.astype(dtype)?,
            x,
            x_given,
            n: cols,
            dtype,
        })
    }

    /// `b - A x` (just `b` for the zero starting guess).
    pub fn residual(&self, x: &Array) -> Result<Array> {
        if self.x_given {
            crate::subtract(&self.b, self.a.matvec(x)?)
        } else {
            Ok(self.b.clone())
        }
    }
}

/// `n` for a square `(n, n)` shape; else the shape error every function of
/// square matrices gives, naming `op`.
pub(super) fn require_square(op: &'static str, (m, n): (usize, usize)) -> Result<usize> {
    if m != n {
        return Err(Error::shape(
            op,
            format!("the matrix must be square, not of shape ({m}, {n})"),
        ));
    }
    Ok(n)
}

/// The dtype a solver works in: float32/64 and complex64/128 stay, anything
/// else computes in float64; float16 and bool are refused.
pub(super) fn solve_dtype(op: &'static str, dt: DType) -> Result<DType> {
    match dt {
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128 => Ok(dt),
        d if d.is_inexact() || d == DType::Bool => Err(Error::DType {
            op,
            detail: format!("solvers work in float32, float64, complex64 or complex128, not {d}"),
        }),
        _ => Ok(DType::Float64),
    }
}

/// `max(atol, rtol * ||b||)` (SciPy's `_get_atol_rtol`).
pub(super) fn tolerance(opts: &SolveOptions<'_>, bnorm: f64) -> f64 {
    opts.atol.max(opts.rtol * bnorm)
}

/// The answer for `b = 0`: `x = 0`, converged without iterating.
pub(super) fn zero_rhs(p: &Problem<'_>) -> Result<SolveResult> {
    Ok(SolveResult {
        x: crate::zeros_like(&p.b)?,
        iterations: 0,
        residual: 0.0,
        converged: true,
        info: 0,
    })
}

/// `||b||`, read back once per solve.
pub(super) fn rhs_norm(p: &Problem<'_>) -> Result<f64> {
    norm(&p.b)
}

/// The preconditioner applied to `r` (the identity when there is none).
pub(super) fn psolve(m: Option<&LinearOperator<'_>>, r: &Array) -> Result<Array> {
    match m {
        Some(m) => m.matvec(r),
        None => Ok(r.clone()),
    }
}
