//! Interpolation (`cp::interpolate`, SciPy's `scipy.interpolate`): 1-D
//! interpolants (`interp1d`, `CubicSpline`, `PchipInterpolator`,
//! `Akima1DInterpolator`), B-splines (`BSpline`, `make_interp_spline`), the piecewise polynomials they are (`PPoly`),
//! and n-D regular grids (`RegularGridInterpolator`, `interpn`).
//!
//! Everything runs on the device of its inputs: fitting is array
//! operations plus a tridiagonal solve (cuSPARSE's `gtsv2` on the GPU),
//! evaluation one kernel that searches each point's interval and writes its
//! values once. Values are float32 when `y` is float32 (or a half float),
//! float64 otherwise; complex values are refused.

mod bspline;
mod checks;
mod cubic;
mod grid;
mod hermite;
mod interp1d;
mod ppoly;
mod quadratic;
mod tridiagonal;

pub use bspline::{make_interp_spline, BSpline, SplineEnds};
pub use cubic::{BoundaryCondition, CubicSpline, CubicSplineOptions};
pub use grid::{interpn, GridOptions, RegularGridInterpolator, RegularGridMethod};
pub use hermite::{Akima1DInterpolator, AkimaMethod, PchipInterpolator};
pub use interp1d::{interp1d, FillValue, Interp1d, Interp1dKind, Interp1dOptions};
pub use ppoly::{Extrapolate, PPoly};
