//! Rows for the NumPy-level functions the first tables left out: the
//! `_with` forms of creation and comparison, rounding, softmax and
//! logsumexp, the special functions of three arguments, binning with
//! options, covariance, padding, insertion and deletion, assignment
//! through indices, masks and slices, and the `Operand` helpers.

use super::check::{run_table, Row};
use super::derive::{count, floats, pick, size};
use crate::rows;
use cuprite as cp;
use cuprite::{
    Axes, Bins, CovOptions, DiffEnds, HistogramOptions, HistogramddOptions, IndexMode,
    InterpOptions, IntoOperand, MeshgridOptions, Order, PadMode, SliceElem, Tolerance, Trim,
    UniqueOptions,
};

fn tol(g: &super::strategies::Built) -> Tolerance {
    Tolerance {
        rtol: g.scalar,
        atol: pick(g.n, &[0.0, 1e-8, g.scalar]),
        equal_nan: g.flag,
    }
}

fn index_mode(i: i64) -> IndexMode {
    pick(i, &[IndexMode::Raise, IndexMode::Wrap, IndexMode::Clip])
}

fn positions(g: &super::strategies::Built) -> Vec<isize> {
    g.axes.iter().map(|&a| a * (g.n as isize)).collect()
}

pub fn creation_and_elementwise() -> Vec<Row> {
    rows![
        "asarray" => |g| cp::asarray(floats(&g.a)),
        "asarray_on" => |g| cp::asarray_on(vec![g.n; count(g.axis as i64)], g.a.device()),
        "from_shape_vec" => |g| cp::from_shape_vec(g.b.shape().to_vec(), floats(&g.a), if g.flag { Order::F } else { Order::C }),
        "arange_step" => |g| cp::arange_step(g.scalar, g.n as f64, pick(g.axis as i64, &[1.0, 0.0, -0.5, g.scalar, 1e-300])),
        "arange_step(int)" => |g| cp::arange_step(g.n, i64::MAX, pick(g.axis as i64, &[1i64, 0, -1, i64::MIN])),
        "linspace_with" => |g| cp::linspace_with(g.scalar, 1.0, size(g.n), g.flag, g.a.dtype()),
        "logspace_with" => |g| cp::logspace_with(0.0, g.scalar, count(g.n), g.flag, pick(g.axis as i64, &[10.0, 0.0, -2.0, g.scalar]), g.a.dtype()),
        "geomspace_with" => |g| cp::geomspace_with(g.scalar, -1.0, size(g.n), g.flag, g.a.dtype()),
        "meshgrid_with" => |g| cp::meshgrid_with(&[&g.a, &g.b], MeshgridOptions { sparse: g.flag, copy: g.n % 2 == 0, ..MeshgridOptions::default() }),
        "indices_sparse" => |g| cp::indices_sparse(g.a.shape().to_vec(), g.b.dtype()),
        "from_fn" => |g| cp::from_fn(g.a.shape().to_vec(), g.b.dtype(), |i| if g.flag { Ok(i.first().cloned().unwrap_or_else(|| g.m.clone())) } else { Ok(g.m.clone()) }),
        "isclose_with" => |g| cp::isclose_with(&g.a, &g.b, tol(g)),
        "allclose_with" => |g| cp::allclose_with(&g.a, g.scalar, tol(g)),
        "array_equal_with" => |g| cp::array_equal_with(&g.a, &g.b, g.flag),
        "round" => |g| cp::round(&g.a),
        "round(method)" => |g| g.a.round(),
        "round_out" => |g| { let mut d = g.b.copy()?; cp::round_out(&g.a, &mut d).map(|()| d) },
        "around" => |g| cp::around(&g.a),
        "round_decimals" => |g| cp::round_decimals(&g.a, pick(g.n, &[0, 2, -1, i32::MAX, i32::MIN, 400])),
        "round_decimals_out" => |g| { let mut d = g.b.copy()?; cp::round_decimals_out(&g.a, g.n as i32, &mut d).map(|()| d) },
        "clip_out" => |g| { let mut d = g.b.copy()?; cp::clip_out(&g.a, g.scalar, &g.b, &mut d).map(|()| d) },
        "pow" => |g| g.a.pow(&g.b),
        "logsumexp" => |g| cp::special::logsumexp(&g.a, g.axes.clone(), g.flag),
        "softmax" => |g| cp::special::softmax(&g.a, g.axis),
        "log_softmax" => |g| cp::special::log_softmax(&g.a, g.axes.clone()),
        "betaincinv" => |g| cp::special::betaincinv(&g.a, g.scalar, &g.b),
        "betaincinv_out" => |g| { let mut d = g.a.copy()?; cp::special::betaincinv_out(&g.a, &g.b, g.scalar, &mut d).map(|()| d) },
        "gammaincinv" => |g| cp::special::gammaincinv(&g.a, &g.b),
        "gammaincinv_out" => |g| { let mut d = g.b.copy()?; cp::special::gammaincinv_out(&g.a, g.scalar, &mut d).map(|()| d) },
        "gammainccinv" => |g| cp::special::gammainccinv(g.scalar, &g.a),
        "gammainccinv_out" => |g| { let mut d = g.a.copy()?; cp::special::gammainccinv_out(&g.a, &g.b, &mut d).map(|()| d) },
        "type_operand" => |g| { let o = (&g.a).into_operand(); Ok(format!("{:?} {:?} {}", o.type_operand(), o.shape(), o.as_array().is_some())) },
        "shape(operand)" => |g| Ok(format!("{:?}", g.scalar.into_operand().shape())),
        "as_array" => |g| Ok(format!("{}", g.n.into_operand().as_array().is_none())),
        "to_array" => |g| g.n.into_operand().to_array("fuzz", g.a.dtype(), g.a.device()),
        "common_device" => |g| cp::common_device("fuzz", &[&(&g.a).into_operand(), &g.scalar.into_operand(), &(&g.b).into_operand()]).map(|d| format!("{d:?}")),
    ]
}

pub fn reductions_and_indexing() -> Vec<Row> {
    rows![
        "var_axes" => |g| g.a.var_axes(g.axes.clone(), count(g.n), g.flag),
        "std_axes" => |g| g.a.std_axes(g.axis, count(g.n), g.flag),
        "argmin_axis" => |g| g.a.argmin_axis(g.axis, g.flag),
        "nanvar_axis" => |g| g.a.nanvar_axis(g.axis, count(g.n)),
        "nanstd_axis" => |g| g.a.nanstd_axis(g.axis, size(g.n)),
        "resolve" => |g| Axes::Many(g.axes.clone()).resolve("fuzz", g.a.ndim()),
        "average_returned" => |g| cp::average_returned(&g.a, g.axes.clone(), g.flag.then_some(&g.b)),
        "diff_with" => |g| cp::diff_with(&g.a, count(g.n), g.axis, DiffEnds { prepend: g.flag.then_some(&g.b), append: (g.n % 2 == 0).then_some(&g.m) }),
        "cov" => |g| cp::cov(&g.a, g.flag.then_some(&g.b), CovOptions { rowvar: g.n % 2 == 0, bias: g.axis > 0, ddof: (g.n > 4).then_some(size(g.n)) }),
        "histogram_with" => |g| cp::histogram_with(&g.a, HistogramOptions::new().bins(if g.flag { Bins::Edges(&g.b) } else { Bins::Count(g.n) }).range(g.scalar, 1.0)),
        "bins" => |g| cp::histogram_with(&g.a, HistogramOptions::new().bins(g.n)),
        "range" => |g| cp::histogram_with(&g.a, HistogramOptions::new().range(pick(g.n, &[0.0, g.scalar, f64::NAN]), g.scalar)),
        "histogramdd" => |g| cp::histogramdd(&g.a, g.n).map(|(h, e)| { let mut v = vec![h]; v.extend(e); v }),
        "histogramdd_with" => |g| cp::histogramdd_with(&g.a, HistogramddOptions::new().bins(&g.b)).map(|(h, e)| { let mut v = vec![h]; v.extend(e); v }),
        "bins_per_axis" => |g| cp::histogramdd_with(&g.a, HistogramddOptions::new().bins_per_axis(g.axes.iter().map(|&a| Bins::Count(a as i64)).collect())).map(|(h, e)| { let mut v = vec![h]; v.extend(e); v }),
        "histogram2d" => |g| cp::histogram2d(&g.a, &g.b, g.n),
        "histogram2d_with" => |g| cp::histogram2d_with(&g.a, &g.b, HistogramddOptions::new().bins(Bins::Edges(&g.m))),
        "interp_with" => |g| cp::interp_with(&g.a, &g.b, &g.b, InterpOptions::default().left(g.scalar).right(-g.scalar).period(pick(g.n, &[1.0, 0.0, g.scalar]))),
        "left" => |g| cp::interp_with(&g.a, &g.a, &g.b, InterpOptions::default().left(g.scalar)),
        "right" => |g| cp::interp_with(&g.b, &g.a, &g.a, InterpOptions::default().right(g.scalar)),
        "period" => |g| cp::interp_with(&g.a, &g.b, &g.a, InterpOptions::default().period(g.scalar)),
        "sort_axis" => |g| g.a.sort_axis(g.axis),
        "argsort_axis" => |g| g.a.argsort_axis(g.axis),
        "unique_with" => |g| cp::unique_with(&g.a, UniqueOptions { index: g.flag, inverse: g.n % 2 == 0, counts: g.axis > 0, ..UniqueOptions::default() }).map(|u| { let mut v = vec![u.values]; v.extend([u.index, u.inverse, u.counts].into_iter().flatten()); v }),
        "take_mode" => |g| cp::take_mode(&g.a, &g.b, g.flag.then_some(g.axis), index_mode(g.n)),
        "take_mode(method)" => |g| g.a.take_mode(positions(g).iter().map(|&p| p as i64).collect::<Vec<_>>(), Some(g.axis), index_mode(g.n)),
        "put" => |g| { let mut a = g.a.copy()?; cp::put(&mut a, &g.b, g.scalar, index_mode(g.n)).map(|()| a) },
        "put(method)" => |g| { let mut a = g.a.copy()?; a.put(positions(g).iter().map(|&p| p as i64).collect::<Vec<_>>(), &g.b, index_mode(g.axis as i64)).map(|()| a) },
        "mask_assign" => |g| { let mut a = g.a.copy()?; a.mask_assign(&g.b, if g.flag { (&g.m).into_operand() } else { g.scalar.into_operand() }).map(|()| a) },
        "slice_assign" => |g| { let mut a = g.a.copy()?; a.slice_assign([SliceElem::stepped(g.n as isize.., g.axis)], &g.b).map(|()| a) },
        "stepped" => |g| g.a.slice([SliceElem::stepped(..g.n as isize, pick(g.axis as i64, &[1isize, -1, 2, 0, isize::MIN]))]),
        "pad" => |g| cp::pad(&g.a, pick(g.n, &[0i64, 1, 2, -1, i64::MAX]), pick(g.axis as i64, &[PadMode::Edge, PadMode::Constant(g.scalar.into())])),
        "insert" => |g| cp::insert(&g.a, positions(g), &g.b, g.flag.then_some(g.axis)),
        "delete" => |g| cp::delete(&g.a, positions(g), g.flag.then_some(g.axis)),
        "trim_zeros" => |g| cp::trim_zeros(&g.a, pick(g.n, &[Trim::Front, Trim::Back, Trim::Both]), g.axes.clone()),
    ]
}

#[test]
fn creation_and_elementwise_extras() {
    run_table(
        "extras: creation and elementwise",
        creation_and_elementwise(),
    );
}

#[test]
fn reduction_and_indexing_extras() {
    run_table("extras: reductions and indexing", reductions_and_indexing());
}
