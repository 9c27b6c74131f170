//! Interpolation (`cp::interpolate`): the backend trait of the family and
//! the element rules both halves follow, so the CPU and the GPU agree on
//! every interval edge.
//!
//! Every view here is C-contiguous and of one real float dtype (float32 or
//! float64): the front end casts before it calls.

pub(crate) mod banded;
pub(crate) mod pchip;

use crate::core::error::Result;
use crate::core::view::View;

/// A piecewise polynomial (SciPy's `PPoly`) evaluated at many points:
/// `out[p, j] = d^nu/dx^nu sum_m coefs[m, i, j] (x_p - breaks[i])^(k - m)`
/// for the interval `i` of `x_p` (see [`interval_of`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PPolyEval<'a> {
    /// `(n + 1,)` increasing breakpoints, `n >= 1`.
    pub breaks: View<'a>,
    /// `(k + 1, n, m)`: the highest power first, as SciPy stores them.
    pub coefs: View<'a>,
    /// `(p,)` points.
    pub xi: View<'a>,
    /// The derivative order, `0..=k` (higher orders are zero; the front
    /// end does not call for them).
    pub nu: usize,
    /// Outside `[breaks[0], breaks[n]]`: extend the end pieces (true) or NaN.
    pub extrapolate: bool,
    /// `(p, m)`, overwritten.
    pub out: View<'a>,
}

/// A tridiagonal system solved for many right-hand sides at once:
/// `lower[i] x[i-1] + diag[i] x[i] + upper[i] x[i+1] = rhs[i]` for each
/// column (`lower[0]` and `upper[n-1]` are ignored).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tridiagonal<'a> {
    /// `(n,)` each, `n >= 3` (the front end pads smaller systems).
    pub lower: View<'a>,
    pub diag: View<'a>,
    pub upper: View<'a>,
    /// `(m, n)`: one system per row (cuSPARSE's column-major `n x m`),
    /// overwritten with the solutions.
    pub rhs: View<'a>,
}

/// How a regular grid is read between its nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum GridMethod {
    /// Multilinear: the `2^d` corners of the cell, weighted.
    Linear,
    /// The nearest node along each axis (ties go down, as SciPy's `<= 0.5`).
    Nearest,
    /// The tensor-product B-spline of this degree (`<= banded::MAX_DEGREE`):
    /// `axes` holds each axis' knots and `lengths` their counts, `values`
    /// the coefficients (`lengths[a] - k - 1` along axis `a`).
    Spline(usize),
    /// PCHIP along each axis in turn, the last first (see [`pchip`]).
    Pchip,
}

/// Values on a rectilinear grid read at many points (SciPy's
/// `RegularGridInterpolator` with method linear or nearest). Unlike the
/// other ops, its views have their own dtypes: float64 axes, float32 or
/// float64 values and points, and the output of the wider of the two, so
/// float32 grids read at float64 points are not converted first.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GridEval<'a> {
    /// `d` increasing float64 axes, concatenated: `(sum n_k,)`.
    pub axes: View<'a>,
    /// The length of each axis, `n_k >= 1` (`>= 2` for linear).
    pub lengths: &'a [usize],
    /// `(n_0, ..., n_{d-1}, m)` values.
    pub values: View<'a>,
    /// `(p, d)` points.
    pub xi: View<'a>,
    pub method: GridMethod,
    /// `Some(v)`: `v` at points outside the grid; `None`: extrapolate.
    pub fill: Option<f64>,
    /// `(p, m)`, overwritten.
    pub out: View<'a>,
}

/// The interpolating spline's coefficients: the collocation system of
/// degree `k` on knots `t` at the points `x` (see
/// [`banded::collocation_band`]), solved for every column of `rhs`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Collocation<'a> {
    /// `(nt + k + 1,)` float64 knots.
    pub t: View<'a>,
    /// `(n,)` float64 points, strictly increasing; `nt = n + 2` when
    /// `order > 0`, else `nt = n`.
    pub x: View<'a>,
    /// The degree, `1..=banded::MAX_DEGREE`.
    pub k: usize,
    /// 0, or the derivative (1 or 2) set to the `rhs` value at each end.
    pub order: usize,
    /// `(nt, m)` float32 or float64: the values at the rows' points (the
    /// derivatives at the ends), overwritten with the coefficients.
    pub rhs: View<'a>,
}

/// Interpolation: piecewise polynomials, tridiagonal solves, regular grids.
pub(crate) trait Interpolate {
    /// Evaluates a piecewise polynomial at every point (see [`PPolyEval`]).
    fn ppoly_eval(&self, op: &'static str, e: PPolyEval<'_>) -> Result<()>;
    /// Solves one tridiagonal system for every row of `t.rhs`, in place.
    fn solve_tridiagonal(&self, op: &'static str, t: Tridiagonal<'_>) -> Result<()>;
    /// Reads a regular grid at every point (see [`GridEval`]).
    fn grid_eval(&self, op: &'static str, g: GridEval<'_>) -> Result<()>;
    /// Solves an interpolating spline's collocation system, in place (see [`Collocation`]).
    fn solve_collocation(&self, op: &'static str, c: Collocation<'_>) -> Result<()>;
    /// Writes the collocation matrix of `c` (its `rhs` unused) into `band`,
    /// `(nt, 3k + 1)` float64 in [`banded::Band`]'s layout, one row per
    /// thread on the GPU.
    fn collocation_band(&self, op: &'static str, c: Collocation<'_>, band: View<'_>) -> Result<()>;
}

/// The piece of a point among `breaks` (length `n + 1`): `i` with
/// `breaks[i] <= x < breaks[i + 1]`, the last piece closed, the end
/// pieces below and above; `None` for NaN, or outside when not
/// extrapolating. The CUDA half's `interval_of` is the same function.
pub(crate) fn interval_of(x: f64, breaks: &[f64], extrapolate: bool) -> Option<usize> {
    let n = breaks.len() - 1;
    if x.is_nan() {
        return None;
    }
    let inside = x >= breaks[0] && x <= breaks[n];
    if !(extrapolate || inside) {
        return None;
    }
    // The number of breakpoints at or below x, less one, kept in 0..n.
    let at_or_below = breaks.partition_point(|&b| b <= x);
    Some(at_or_below.saturating_sub(1).min(n - 1))
}

/// `d^nu/dt^nu` of `sum_m c[m] t^(k - m)` (`c` highest power first), by
/// Horner's rule on the differentiated coefficients.
pub(crate) fn poly_derivative_at(c: impl Fn(usize) -> f64, k: usize, nu: usize, t: f64) -> f64 {
    let mut acc = 0.0;
    for m in 0..=k {
        let power = k - m;
        if power < nu {
            break;
        }
        // power! / (power - nu)!: the factor the derivative brings down.
        let factor: f64 = (power - nu + 1..=power).map(|v| v as f64).product();
        acc = acc * t + c(m) * factor;
    }
    acc
}

/// The cell of `x` along one grid axis and its position in it: `(i, w)`
/// with `i` in `0..n-1` (the edge cells beyond the axis) and
/// `w = (x - g[i]) / (g[i+1] - g[i])`. A one-node axis gives `(0, 0)`.
/// The CUDA half's `cell_of` is the same function.
pub(crate) fn cell_of(x: f64, g: &[f64]) -> (usize, f64) {
    let n = g.len();
    if n < 2 {
        return (0, 0.0);
    }
    let at_or_below = g.partition_point(|&v| v <= x);
    let i = at_or_below.saturating_sub(1).min(n - 2);
    (i, (x - g[i]) / (g[i + 1] - g[i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_follow_scipy() {
        let b = [0.0, 1.0, 2.0, 3.0];
        assert_eq!(interval_of(-1.0, &b, true), Some(0));
        assert_eq!(interval_of(-1.0, &b, false), None);
        assert_eq!(interval_of(1.0, &b, false), Some(1));
        assert_eq!(interval_of(3.0, &b, false), Some(2));
        assert_eq!(interval_of(4.0, &b, true), Some(2));
        assert_eq!(interval_of(f64::NAN, &b, true), None);
    }

    #[test]
    fn derivatives_of_a_cubic() {
        // 2 t^3 + 3 t^2 + 4 t + 5 at t = 2: 41, 6 t^2 + 6 t + 4 = 40, 12 t + 6 = 30, 12.
        let c = [2.0, 3.0, 4.0, 5.0];
        let got: Vec<f64> = (0..5)
            .map(|nu| poly_derivative_at(|m| c[m], 3, nu, 2.0))
            .collect();
        assert_eq!(got, vec![41.0, 40.0, 30.0, 12.0, 0.0]);
    }

    #[test]
    fn cells_clamp_to_the_edges() {
        let g = [0.0, 1.0, 3.0];
        assert_eq!(cell_of(2.0, &g), (1, 0.5));
        assert_eq!(cell_of(-1.0, &g), (0, -1.0));
        assert_eq!(cell_of(5.0, &g), (1, 2.0));
        assert_eq!(cell_of(0.5, &[7.0]), (0, 0.0));
    }
}
