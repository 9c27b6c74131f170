//! Rows for the reductions, statistics, sorting and searching functions.

use super::check::{run_table, Row};
use crate::rows;
use cuprite as cp;

fn count(n: i64) -> usize {
    n.max(0) as usize
}

pub fn reductions() -> Vec<Row> {
    rows![
        "sum" => |g| cp::sum(&g.a, g.axes.clone(), g.flag),
        "sum_out" => |g| { let mut d = g.b.copy()?; cp::sum_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "prod" => |g| cp::prod(&g.a, g.axes.clone(), g.flag),
        "prod_out" => |g| { let mut d = g.b.copy()?; cp::prod_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "mean" => |g| cp::mean(&g.a, g.axes.clone(), g.flag),
        "mean_out" => |g| { let mut d = g.b.copy()?; cp::mean_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "min" => |g| cp::min(&g.a, g.axes.clone(), g.flag),
        "min_out" => |g| { let mut d = g.b.copy()?; cp::min_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "max" => |g| cp::max(&g.a, g.axes.clone(), g.flag),
        "max_out" => |g| { let mut d = g.b.copy()?; cp::max_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "all" => |g| cp::all(&g.a, g.axes.clone(), g.flag),
        "all_out" => |g| { let mut d = g.b.copy()?; cp::all_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "any" => |g| cp::any(&g.a, g.axes.clone(), g.flag),
        "any_out" => |g| { let mut d = g.b.copy()?; cp::any_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "nansum" => |g| cp::nansum(&g.a, g.axes.clone(), g.flag),
        "nansum_out" => |g| { let mut d = g.b.copy()?; cp::nansum_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "nanprod" => |g| cp::nanprod(&g.a, g.axes.clone(), g.flag),
        "nanprod_out" => |g| { let mut d = g.b.copy()?; cp::nanprod_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "nanmin" => |g| cp::nanmin(&g.a, g.axes.clone(), g.flag),
        "nanmin_out" => |g| { let mut d = g.b.copy()?; cp::nanmin_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "nanmax" => |g| cp::nanmax(&g.a, g.axes.clone(), g.flag),
        "nanmax_out" => |g| { let mut d = g.b.copy()?; cp::nanmax_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "ptp" => |g| cp::ptp(&g.a, g.axes.clone(), g.flag),
        "ptp_out" => |g| { let mut d = g.b.copy()?; cp::ptp_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "nanptp" => |g| cp::nanptp(&g.a, g.axes.clone(), g.flag),
        "nanptp_out" => |g| { let mut d = g.b.copy()?; cp::nanptp_out(&g.a, g.axis, g.flag, &mut d).map(|()| d) },
        "var(fn)" => |g| cp::var(&g.a, g.axes.clone(), count(g.n), g.flag),
        "std(fn)" => |g| cp::std(&g.a, g.axis, count(g.n), g.flag),
        "argmin(fn)" => |g| cp::argmin(&g.a, g.flag.then_some(g.axis), g.flag),
        "argmax(fn)" => |g| cp::argmax(&g.a, Some(g.axis), g.flag),
        "cumsum(fn)" => |g| cp::cumsum(&g.a, g.flag.then_some(g.axis)),
        "cumprod(fn)" => |g| cp::cumprod(&g.a, Some(g.axis)),
        "nanmean" => |g| cp::nanmean(&g.a, g.axes.clone(), g.flag),
        "nanvar" => |g| cp::nanvar(&g.a, g.axis, count(g.n), g.flag),
        "nanstd" => |g| cp::nanstd(&g.a, g.axes.clone(), count(g.n), g.flag),
        "nanargmin" => |g| cp::nanargmin(&g.a, g.flag.then_some(g.axis), g.flag),
        "nanargmax" => |g| cp::nanargmax(&g.a, Some(g.axis), g.flag),
        "count_nonzero" => |g| cp::count_nonzero(&g.a, g.axes.clone(), g.flag),
        "median" => |g| cp::median(&g.a, g.axes.clone(), g.flag),
        "nanmedian" => |g| cp::nanmedian(&g.a, g.axis, g.flag),
        "quantile" => |g| cp::quantile(&g.a, g.scalar, g.axes.clone(), cp::QuantileMethod::Linear, g.flag),
        "percentile" => |g| cp::percentile(&g.a, g.scalar * 100.0, g.axis, cp::QuantileMethod::default(), g.flag),
        "average" => |g| cp::average(&g.a, g.axis, g.flag.then_some(&g.b)),
        "diff" => |g| cp::diff(&g.a, count(g.n), g.axis),
        "ediff1d" => |g| cp::ediff1d(&g.a, g.flag.then_some(&g.b), None),
        "gradient_axis" => |g| cp::gradient_axis(&g.a, g.axis, g.scalar),
        "gradient" => |g| cp::gradient(&g.a, g.scalar),
        "trapezoid" => |g| cp::trapezoid(&g.a, g.flag.then_some(&g.b), g.scalar, g.axis),
        "cumulative_sum" => |g| cp::cumulative_sum(&g.a, g.flag.then_some(g.axis), g.flag),
        "corrcoef" => |g| cp::corrcoef(&g.a, g.flag.then_some(&g.b), g.flag),
        "bincount" => |g| cp::bincount(&g.a, g.flag.then_some(&g.b), count(g.n)),
        "histogram" => |g| cp::histogram(&g.a, count(g.n)),
        "interp" => |g| cp::interp(&g.a, &g.b, &g.b),
    ]
}

pub fn sorting() -> Vec<Row> {
    rows![
        "sort" => |g| cp::sort(&g.a, g.axis),
        "argsort" => |g| cp::argsort(&g.a, g.axis),
        "searchsorted" => |g| cp::searchsorted(&g.a, &g.b, cp::Side::Left, None),
        "digitize" => |g| cp::digitize(&g.a, &g.b, g.flag),
        "unique" => |g| cp::unique(&g.a),
        "argwhere" => |g| cp::argwhere(&g.a),
        "partition" => |g| cp::partition(&g.a, g.n, g.axis),
        "argpartition" => |g| cp::argpartition(&g.a, g.n, g.axis),
        "isin" => |g| cp::isin(&g.a, &g.b, g.flag),
        "in1d" => |g| cp::in1d(&g.a, &g.b, g.flag),
        "intersect1d" => |g| cp::intersect1d(&g.a, &g.b),
        "union1d" => |g| cp::union1d(&g.a, &g.b),
        "setdiff1d" => |g| cp::setdiff1d(&g.a, &g.b),
        "lexsort" => |g| cp::lexsort(&[&g.a, &g.b]),
        "topk" => |g| cp::topk(&g.a, count(g.n), g.axis, g.flag),
        "isclose" => |g| cp::isclose(&g.a, &g.b),
        "allclose" => |g| cp::allclose(&g.a, &g.b),
        "array_equal" => |g| cp::array_equal(&g.a, &g.b),
        "array_equiv" => |g| cp::array_equiv(&g.a, &g.b),
        "isreal" => |g| cp::isreal(&g.a),
        "iscomplex" => |g| cp::iscomplex(&g.a),
        "iscomplexobj" => |g| Ok(cp::iscomplexobj(&g.a)),
        "isrealobj" => |g| Ok(cp::isrealobj(&g.a)),
        "isposinf" => |g| cp::isposinf(&g.a),
        "isneginf" => |g| cp::isneginf(&g.a),
        "clip" => |g| cp::clip(&g.a, g.scalar, &g.b),
    ]
}

#[test]
fn reduction_functions() {
    run_table("reductions", reductions());
}

#[test]
fn sorting_and_search_functions() {
    run_table("sorting", sorting());
}
