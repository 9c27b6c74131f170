//! The interpolating cubic spline (SciPy's `CubicSpline`): C2 piecewise
//! cubic whose slopes at the points solve one tridiagonal system (cyclic
//! for periodic ends, by two solves of its tridiagonal part).

use std::ops::Deref;

use super::checks::{
    constants, ones_of, row, rows, sample_points, value_dtype, values_along, zeros_of,
};
use super::hermite::hermite_ppoly;
use super::ppoly::{Extrapolate, PPoly};
use super::tridiagonal::solve;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

/// The condition at one end of a cubic spline (SciPy's `bc_type`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum BoundaryCondition {
    /// The first and second pieces are one cubic (the default).
    #[default]
    NotAKnot,
    /// `y` is periodic (`y[0] == y[n-1]`), and so are its first two
    /// derivatives; must be given at both ends.
    Periodic,
    /// First derivative zero.
    Clamped,
    /// Second derivative zero.
    Natural,
    /// The derivative of `order` (1 or 2) at the end: one value for every
    /// column, or one per column of `y` (in C order of the other axes).
    Derivative { order: u8, values: Vec<f64> },
}

/// Options of [`CubicSpline::with`]; `Default` is SciPy's (`axis=0`,
/// not-a-knot ends, `extrapolate=None`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CubicSplineOptions {
    /// The axis of `y` along `x`.
    pub axis: isize,
    /// The condition at `x[0]`.
    pub bc_start: BoundaryCondition,
    /// The condition at `x[n-1]`.
    pub bc_end: BoundaryCondition,
    /// `None`: periodic for periodic ends, else true.
    pub extrapolate: Option<Extrapolate>,
}

option_setters!(CubicSplineOptions {
    /// The axis of `y` along `x`.
    axis: isize,
    /// The condition at `x[0]`.
    bc_start: BoundaryCondition,
    /// The condition at `x[n-1]`.
    bc_end: BoundaryCondition,
    /// What it gives outside `x`.
    extrapolate: Option<Extrapolate>,
});

impl CubicSplineOptions {
    /// The same condition at both ends.
    pub fn bc(self, bc: BoundaryCondition) -> Self {
        CubicSplineOptions {
            bc_start: bc.clone(),
            bc_end: bc,
            ..self
        }
    }
}

/// An end condition after SciPy's rewriting: not-a-knot, periodic, or a
/// derivative of order 1 or 2 with its `(1, m)` values.
enum End {
    NotAKnot,
    Periodic,
    Derivative(u8, Array),
}

/// An interpolating cubic spline: a [`PPoly`] (deref to call, differentiate
/// and integrate it).
#[derive(Debug, Clone)]
pub struct CubicSpline(PPoly);

impl Deref for CubicSpline {
    type Target = PPoly;
    fn deref(&self) -> &PPoly {
        &self.0
    }
}

impl CubicSpline {
    /// The not-a-knot spline through `(x, y)` along axis 0 of `y`.
    pub fn new(x: &Array, y: &Array) -> Result<CubicSpline> {
        CubicSpline::with(x, y, CubicSplineOptions::default())
    }

    /// The spline through `(x, y)` with the given options.
    pub fn with(x: &Array, y: &Array, opts: CubicSplineOptions) -> Result<CubicSpline> {
        let op = "CubicSpline";
        crate::api::shape::index::same_device(op, x, y)?;
        let dt = value_dtype(op, y.dtype())?;
        let x = sample_points(op, x, dt, 2)?;
        let n = x.size();
        let (y, rest, ax) = values_along(op, y, opts.axis, n, dt)?;
        let m = y.shape()[1];
        let periodic = [&opts.bc_start, &opts.bc_end].map(|b| *b == BoundaryCondition::Periodic);
        if periodic[0] != periodic[1] {
            return Err(Error::invalid(
                op,
                "a periodic boundary condition must be given at both ends",
            ));
        }
        let end = |bc: &BoundaryCondition| -> Result<End> {
            let derivative = |order: u8, values: &[f64]| -> Result<End> {
                if !(order == 1 || order == 2) {
                    return Err(Error::invalid(
                        op,
                        format!("a boundary derivative's order must be 1 or 2, got {order}"),
                    ));
                }
                if !(values.len() == 1 || values.len() == m) {
                    return Err(Error::shape(
                        op,
                        format!("a boundary condition needs 1 or {m} values (y's other axes {rest:?}), got {}", values.len()),
                    ));
                }
                let v = constants(values.to_vec(), dt, &y)?.reshape([1, -1])?;
                Ok(End::Derivative(order, v))
            };
            match bc {
                BoundaryCondition::NotAKnot => Ok(End::NotAKnot),
                BoundaryCondition::Periodic => Ok(End::Periodic),
                BoundaryCondition::Clamped => derivative(1, &[0.0]),
                BoundaryCondition::Natural => derivative(2, &[0.0]),
                BoundaryCondition::Derivative { order, values } => derivative(*order, values),
            }
        };
        let (mut start, mut end_c) = (end(&opts.bc_start)?, end(&opts.bc_end)?);
        if periodic[0] {
            check_periodic(op, &y, n)?;
        }
        let extrapolate = opts.extrapolate.unwrap_or(if periodic[0] {
            Extrapolate::Periodic
        } else {
            Extrapolate::Yes
        });
        let dx = crate::diff(&x, 1, 0)?;
        let dxr = dx.reshape([n as isize - 1, 1])?;
        let slope = crate::divide(crate::diff(&y, 1, 0)?, &dxr)?;
        if n == 2 {
            // Two points: the line, unless a derivative says otherwise.
            let line = || End::Derivative(1, rows(&slope, 0, 1));
            if matches!(start, End::NotAKnot | End::Periodic) {
                start = line();
            }
            if matches!(end_c, End::NotAKnot | End::Periodic) {
                end_c = line();
            }
        }
        let sys = System {
            x: &x,
            dx: &dx,
            dxr: &dxr,
            y: &y,
            slope: &slope,
            n,
        };
        let s = match (&start, &end_c) {
            (End::NotAKnot, End::NotAKnot) if n == 3 => sys.parabola()?,
            (End::Periodic, _) if n == 3 => sys.periodic_three()?,
            (End::Periodic, _) => sys.periodic()?,
            _ => sys.general(&start, &end_c)?,
        };
        Ok(CubicSpline(hermite_ppoly(
            &x,
            &y,
            &s,
            rest,
            ax,
            extrapolate,
        )?))
    }
}

/// `y[0]` and `y[n-1]` equal (to SciPy's tolerance), as periodic ends need.
fn check_periodic(op: &'static str, y: &Array, n: usize) -> Result<()> {
    let (first, last) = (row(y, 0), row(y, n - 1));
    let gap = crate::abs(crate::subtract(&first, &last)?)?;
    let tol = crate::add(crate::multiply(crate::abs(&last)?, 1e-15)?, 1e-15)?;
    if crate::greater(&gap, &tol)?.any()?.item::<bool>()? {
        let worst = crate::max(&gap, None, false)?.item::<f64>()?;
        return Err(Error::invalid(
            op,
            format!(
                "periodic boundary conditions need y[0] == y[-1], but they differ by up to {worst}"
            ),
        ));
    }
    Ok(())
}

/// The pieces the slope equations are made of.
struct System<'a> {
    x: &'a Array,
    /// `(n - 1,)` and its `(n - 1, 1)` column.
    dx: &'a Array,
    dxr: &'a Array,
    /// `(n, m)` values and `(n - 1, m)` secant slopes.
    y: &'a Array,
    slope: &'a Array,
    n: usize,
}

impl System<'_> {
    fn dx_at(&self, i: usize) -> Array {
        rows(self.dx, i, i + 1)
    }
    fn dxr_at(&self, i: usize) -> Array {
        rows(self.dxr, i, i + 1)
    }
    fn slope_at(&self, i: usize) -> Array {
        rows(self.slope, i, i + 1)
    }

    /// The interior equations, rows `1..n-1`: diagonals and right-hand side.
    fn interior(&self) -> Result<[Array; 4]> {
        let n = self.n;
        let (dx0, dx1) = (rows(self.dx, 0, n - 2), rows(self.dx, 1, n - 1));
        let diag = crate::multiply(crate::add(&dx0, &dx1)?, 2.0)?;
        let (r0, r1) = (rows(self.dxr, 0, n - 2), rows(self.dxr, 1, n - 1));
        let rhs = crate::multiply(
            crate::add(
                crate::multiply(&r1, rows(self.slope, 0, n - 2))?,
                crate::multiply(&r0, rows(self.slope, 1, n - 1))?,
            )?,
            3.0,
        )?;
        // Row i: lower dx[i], upper dx[i-1].
        Ok([dx1, diag, dx0, rhs])
    }

    /// Both ends not-a-knot with three points: the parabola through them.
    fn parabola(&self) -> Result<Array> {
        let (dx0, dx1) = (self.dx_at(0), self.dx_at(1));
        let one = ones_of(&dx0)?;
        let zero = zeros_of(&dx0)?;
        let two = crate::multiply(&one, 2.0)?;
        let diag = crate::concatenate(
            &[&one, &crate::multiply(crate::add(&dx0, &dx1)?, 2.0)?, &one],
            0,
        )?;
        let lower = crate::concatenate(&[&zero, &dx1, &one], 0)?;
        let upper = crate::concatenate(&[&one, &dx0, &zero], 0)?;
        let mid = crate::multiply(
            crate::add(
                crate::multiply(self.dxr_at(0), self.slope_at(1))?,
                crate::multiply(self.dxr_at(1), self.slope_at(0))?,
            )?,
            3.0,
        )?;
        let rhs = crate::concatenate(
            &[
                &crate::multiply(self.slope_at(0), &two.reshape([1, 1])?)?,
                &mid,
                &crate::multiply(self.slope_at(1), 2.0)?,
            ],
            0,
        )?;
        solve("CubicSpline", &lower, &diag, &upper, &rhs)
    }

    /// Periodic with three points: one slope for both ends and the middle.
    fn periodic_three(&self) -> Result<Array> {
        let num = crate::sum(&crate::divide(self.slope, self.dxr)?, 0, true)?;
        let den = crate::sum(&crate::reciprocal(self.dxr)?, 0, true)?;
        let t = crate::divide(num, den)?;
        let shape = [self.n, self.y.shape()[1]];
        t.broadcast_to(&shape)?.ascontiguousarray()
    }

    /// Any ends that are not periodic.
    fn general(&self, start: &End, end: &End) -> Result<Array> {
        let n = self.n;
        let (first_row, last_row) = (self.end_row(start, true)?, self.end_row(end, false)?);
        let (lower, diag, upper, rhs) = if n > 2 {
            let [lo, d, up, r] = self.interior()?;
            (
                crate::concatenate(&[&first_row[0], &lo, &last_row[0]], 0)?,
                crate::concatenate(&[&first_row[1], &d, &last_row[1]], 0)?,
                crate::concatenate(&[&first_row[2], &up, &last_row[2]], 0)?,
                crate::concatenate(&[&first_row[3], &r, &last_row[3]], 0)?,
            )
        } else {
            (
                crate::concatenate(&[&first_row[0], &last_row[0]], 0)?,
                crate::concatenate(&[&first_row[1], &last_row[1]], 0)?,
                crate::concatenate(&[&first_row[2], &last_row[2]], 0)?,
                crate::concatenate(&[&first_row[3], &last_row[3]], 0)?,
            )
        };
        solve("CubicSpline", &lower, &diag, &upper, &rhs)
    }

    /// The equation of one end row: `[lower, diag, upper]` (each `(1,)`)
    /// and its `(1, m)` right-hand side.
    fn end_row(&self, end: &End, at_start: bool) -> Result<[Array; 4]> {
        let n = self.n;
        let m = self.y.shape()[1];
        let zero = zeros_of(&self.dx_at(0))?;
        let one = ones_of(&zero)?;
        let cols = |a: Array| -> Result<Array> { a.broadcast_to(&[1, m])?.ascontiguousarray() };
        // Near: the end interval; far: its neighbour.
        // (`far` is read only by not-a-knot ends, which have n >= 3 here.)
        let (near, far) = if at_start {
            (0, 1)
        } else {
            (n - 2, n.saturating_sub(3))
        };
        match end {
            End::NotAKnot => {
                let d = if at_start {
                    crate::subtract(rows(self.x, 2, 3), rows(self.x, 0, 1))?
                } else {
                    crate::subtract(rows(self.x, n - 1, n), rows(self.x, n - 3, n - 2))?
                };
                let (h_near, h_far) = (self.dxr_at(near), self.dxr_at(far));
                let dr = d.reshape([1, 1])?;
                let two_d = crate::multiply(&dr, 2.0)?;
                let num = if at_start {
                    crate::add(
                        crate::multiply(
                            crate::multiply(crate::add(&h_near, &two_d)?, &h_far)?,
                            self.slope_at(near),
                        )?,
                        crate::multiply(crate::square(&h_near)?, self.slope_at(far))?,
                    )?
                } else {
                    crate::add(
                        crate::multiply(crate::square(&h_near)?, self.slope_at(far))?,
                        crate::multiply(
                            crate::multiply(crate::add(&two_d, &h_near)?, &h_far)?,
                            self.slope_at(near),
                        )?,
                    )?
                };
                let rhs = cols(crate::divide(num, &dr)?)?;
                // Start: diag dx[1], upper x[2]-x[0]; end: diag dx[-2], lower x[-1]-x[-3].
                let diag = self.dx_at(far);
                Ok(if at_start {
                    [zero, diag, d, rhs]
                } else {
                    [d, diag, zero, rhs]
                })
            }
            End::Derivative(1, v) => Ok([zero.clone(), one, zero, cols(v.clone())?]),
            End::Derivative(_, v) => {
                let h = self.dx_at(near);
                let hr = self.dxr_at(near);
                let dy = crate::subtract(
                    rows(self.y, near + 1, near + 2),
                    rows(self.y, near, near + 1),
                )?;
                let half = crate::multiply(crate::multiply(v, crate::square(&hr)?)?, 0.5)?;
                let three = crate::multiply(dy, 3.0)?;
                let rhs = if at_start {
                    crate::subtract(three, half)?
                } else {
                    crate::add(half, three)?
                };
                let diag = crate::multiply(&h, 2.0)?;
                Ok(if at_start {
                    [zero, diag, h, cols(rhs)?]
                } else {
                    [h, diag, zero, cols(rhs)?]
                })
            }
            End::Periodic => Err(Error::invalid(
                "CubicSpline",
                "a periodic boundary condition must be given at both ends",
            )),
        }
    }

    /// Periodic ends, `n >= 4`: the cyclic system of the first `n - 1`
    /// slopes, by two solves of its tridiagonal part (SciPy's method).
    fn periodic(&self) -> Result<Array> {
        let n = self.n;
        let dx = |i: usize| self.dx_at(i);
        let k = n - 1; // dx has n - 1 entries; dx[-1] = dx[k - 1]
                       // Rows 0..n-2 of the tridiagonal part (size n - 2).
        let [lo, d, up, r] = self.interior()?; // rows 1..n-1 of the full system
        let d0 = crate::multiply(crate::add(dx(k - 1), dx(0))?, 2.0)?;
        let diag = crate::concatenate(&[&d0, &rows(&d, 0, n - 3)], 0)?;
        let zero = zeros_of(&dx(0))?;
        let lower = crate::concatenate(&[&zero, &rows(&lo, 0, n - 3)], 0)?;
        let upper = crate::concatenate(&[&dx(k - 1), &rows(&up, 0, n - 3)], 0)?;
        let b0 = crate::multiply(
            crate::add(
                crate::multiply(self.dxr_at(0), self.slope_at(k - 1))?,
                crate::multiply(self.dxr_at(k - 1), self.slope_at(0))?,
            )?,
            3.0,
        )?;
        let b_last = rows(&r, n - 3, n - 2);
        let b1 = crate::concatenate(&[&b0, &rows(&r, 0, n - 3)], 0)?;
        // The corner terms of the cyclic rows: [-dx[0], 0, ..., 0, -dx[-3]].
        let gap = zeros_of(&rows(self.dx, 0, n - 4))?;
        let b2 = crate::concatenate(
            &[&crate::negative(dx(0))?, &gap, &crate::negative(dx(k - 3))?],
            0,
        )?;
        let b2 = b2.reshape([-1, 1])?;
        let s1 = solve("CubicSpline", &lower, &diag, &upper, &b1)?;
        let s2 = solve("CubicSpline", &lower, &diag, &upper, &b2)?;
        let (first1, last1) = (row(&s1, 0), row(&s1, n - 3));
        let (first2, last2) = (row(&s2, 0), row(&s2, n - 3));
        let a_m1_0 = self.dxr_at(k - 2);
        let a_m1_m2 = self.dxr_at(k - 1);
        let a_m1_m1 = crate::multiply(crate::add(self.dxr_at(k - 1), self.dxr_at(k - 2))?, 2.0)?;
        let s_m1 = crate::divide(
            crate::subtract(
                crate::subtract(&b_last, crate::multiply(&a_m1_0, &first1)?)?,
                crate::multiply(&a_m1_m2, &last1)?,
            )?,
            crate::add(
                crate::add(&a_m1_m1, crate::multiply(&a_m1_0, &first2)?)?,
                crate::multiply(&a_m1_m2, &last2)?,
            )?,
        )?;
        let head = crate::add(&s1, crate::multiply(&s2, &s_m1)?)?;
        let s0 = row(&head, 0);
        crate::concatenate(&[&head, &s_m1, &s0], 0)
    }
}
