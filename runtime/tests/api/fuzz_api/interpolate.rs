//! Rows for `cp::interpolate`: piecewise polynomials, B-splines, cubic,
//! PCHIP and Akima splines, `interp1d`, regular grids. Sample points are
//! either the case's array as it comes (unsorted, NaN, any rank) or
//! `0, 1, ..., n-1` for the values' leading axis, so both the checks and
//! the evaluation are reached; evaluation points are the case's values
//! (NaN, ±inf, far outside).

use super::check::{run_table, Row};
use super::derive::{count, flat, pick, real};
use super::strategies::Built;
use crate::rows;
use cuprite as cp;
use cuprite::interpolate::{
    self as ip, Akima1DInterpolator, AkimaMethod, BSpline, BoundaryCondition, CubicSpline,
    CubicSplineOptions, Extrapolate, FillValue, GridOptions, Interp1dKind, Interp1dOptions, PPoly,
    PchipInterpolator, RegularGridInterpolator, RegularGridMethod, SplineEnds,
};
use cuprite::{Array, DType};

/// `0, 1, ..., n-1` (float64) for the leading axis of `y`, or the case's
/// own array when the flag is off.
fn points(g: &Built, y: &Array) -> Array {
    if g.flag {
        let n = y.shape().first().copied().unwrap_or(0);
        cp::arange(n as i64)
            .and_then(|a| a.astype(DType::Float64))
            .unwrap_or_else(|_| g.a.clone())
    } else {
        flat(&g.a)
    }
}

fn extrapolate(i: i64) -> Extrapolate {
    pick(
        i,
        &[Extrapolate::Yes, Extrapolate::No, Extrapolate::Periodic],
    )
}

fn ppoly(g: &Built) -> cuprite::Result<PPoly> {
    let c = real(&g.b);
    let x = if g.flag {
        let n = c.shape().get(1).copied().unwrap_or(0) + 1;
        cp::arange(n as i64)?.astype(DType::Float64)?
    } else {
        flat(&g.a)
    };
    PPoly::new(&c, &x, extrapolate(g.n))
}

fn spline(g: &Built) -> cuprite::Result<BSpline> {
    ip::make_interp_spline(
        &points(g, &g.b),
        &g.b,
        count(g.n),
        pick(
            g.axis as i64,
            &[
                SplineEnds::NotAKnot,
                SplineEnds::Natural,
                SplineEnds::Clamped,
            ],
        ),
    )
}

fn bc(g: &Built) -> BoundaryCondition {
    pick(
        g.n,
        &[
            BoundaryCondition::NotAKnot,
            BoundaryCondition::Periodic,
            BoundaryCondition::Clamped,
            BoundaryCondition::Natural,
            BoundaryCondition::Derivative {
                order: pick(g.axis as i64, &[1, 2, 0, 3]),
                values: vec![g.scalar],
            },
        ],
    )
}

/// The grid of `values`: one axis of points per dimension.
fn grid(g: &Built) -> Vec<Array> {
    let values = &g.b;
    values
        .shape()
        .iter()
        .map(|&n| cp::linspace(0.0, pick(g.n, &[1.0, g.scalar, -1.0]), n))
        .collect::<cuprite::Result<Vec<_>>>()
        .unwrap_or_default()
}

fn grid_options(g: &Built) -> GridOptions {
    GridOptions {
        method: pick(
            g.n,
            &[
                RegularGridMethod::Linear,
                RegularGridMethod::Nearest,
                RegularGridMethod::SLinear,
            ],
        ),
        bounds_error: g.flag,
        fill_value: (g.axis > 0).then_some(g.scalar),
    }
}

pub fn interpolate() -> Vec<Row> {
    rows![
        "new(ppoly)" => |g| ppoly(g)?.call(&g.a),
        "x" => |g| Ok(ppoly(g)?.x().clone()),
        "c" => |g| ppoly(g)?.c(),
        "degree" => |g| { let p = ppoly(g)?; Ok(format!("{} {:?}", p.degree(), p.extrapolate())) },
        "extrapolate" => |g| { let s = spline(g)?; Ok(format!("{} {:?}", s.k(), s.extrapolate())) },
        "call_with" => |g| ppoly(g)?.call_with(&g.a, g.axis, g.flag.then(|| extrapolate(g.n))),
        "derivative" => |g| ppoly(g)?.derivative(count(g.n))?.call(&g.a),
        "antiderivative" => |g| ppoly(g)?.antiderivative(count(g.n))?.call(&g.a),
        "integrate" => |g| ppoly(g)?.integrate(g.scalar, g.n as f64, g.flag.then(|| extrapolate(g.axis as i64))),
        "make_interp_spline" => |g| spline(g)?.call(&g.a),
        "k" => |g| { let s = spline(g)?; Ok(vec![s.t().clone(), s.c()?]) },
        "call_with(bspline)" => |g| spline(g)?.call_with(&g.a, extrapolate(g.axis as i64)),
        "derivative(bspline)" => |g| spline(g)?.derivative(count(g.axis as i64))?.call(&g.a),
        "antiderivative(bspline)" => |g| spline(g)?.antiderivative(count(g.axis as i64))?.call(&g.a),
        "integrate(bspline)" => |g| spline(g)?.integrate(g.scalar, -1.0),
        "new(bspline)" => |g| BSpline::new(&flat(&g.a), &g.b, count(g.n), extrapolate(g.axis as i64))?.call(&g.m),
        "new(cubic)" => |g| CubicSpline::new(&points(g, &g.b), &g.b)?.call(&g.a),
        "with" => |g| CubicSpline::with(&points(g, &g.b), &g.b, CubicSplineOptions { axis: if g.flag { 0 } else { g.axis }, extrapolate: g.flag.then(|| extrapolate(g.n)), ..CubicSplineOptions::default() }.bc(bc(g)))?.call(&g.a),
        "bc" => |g| CubicSpline::with(&points(g, &g.b), &g.b, CubicSplineOptions::default().bc(bc(g)))?.call(&g.a),
        "new(pchip)" => |g| PchipInterpolator::new(&points(g, &g.b), &g.b, 0, g.flag.then_some(g.n > 3))?.call(&g.a),
        "new(akima)" => |g| Akima1DInterpolator::new(&points(g, &g.b), &g.b, 0, if g.flag { AkimaMethod::Makima } else { AkimaMethod::Akima }, Some(g.n > 3))?.call(&g.a),
        "interp1d" => |g| ip::interp1d(&points(g, &g.b), &g.b, Interp1dOptions {
            kind: pick(g.n, &[Interp1dKind::Linear, Interp1dKind::Nearest, Interp1dKind::NearestUp, Interp1dKind::Previous, Interp1dKind::Next, Interp1dKind::Zero, Interp1dKind::SLinear, Interp1dKind::Quadratic, Interp1dKind::Cubic]),
            axis: if g.flag { 0 } else { g.axis },
            bounds_error: (g.axis % 2 == 0).then_some(g.axis > 0),
            fill_value: pick(g.axis as i64, &[FillValue::Value(g.scalar), FillValue::BelowAbove(g.scalar, 1.0), FillValue::Extrapolate]),
            assume_sorted: g.n > 5,
        })?.call(&g.a),
        "new(grid)" => |g| { let pts = grid(g); let refs: Vec<&Array> = pts.iter().collect(); RegularGridInterpolator::new(&refs, &g.b, grid_options(g))?.call(&g.a) },
        "call_with(grid)" => |g| { let pts = grid(g); let refs: Vec<&Array> = pts.iter().collect(); RegularGridInterpolator::new(&refs, &g.b, grid_options(g))?.call_with(&g.m, RegularGridMethod::Nearest) },
        "interpn" => |g| { let pts = grid(g); let refs: Vec<&Array> = pts.iter().take(count(g.axis as i64 + 3)).collect(); ip::interpn(&refs, &g.b, &g.a, grid_options(g)) },
    ]
}

#[test]
fn interpolate_functions() {
    run_table("interpolate", interpolate());
}
