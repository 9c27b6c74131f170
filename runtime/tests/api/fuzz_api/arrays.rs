//! Rows for `Array`'s methods and the shape, indexing and creation
//! functions.

use super::check::{run_table, Row};
use crate::rows;
use cuprite as cp;
use cuprite::{DType, Order, SliceElem};

/// `n` as a small count (negative draws become 0).
fn count(n: i64) -> usize {
    n.max(0) as usize
}

pub fn methods() -> Vec<Row> {
    rows![
        "astype" => |g| g.a.astype(g.b.dtype()),
        "astype_with" => |g| g.a.astype_with(g.b.dtype(), cp::Casting::SameKind),
        "copy" => |g| g.a.copy(),
        "copy_order" => |g| g.a.copy_order(if g.flag { Order::F } else { Order::C }),
        "ascontiguousarray" => |g| g.a.ascontiguousarray(),
        "to_device" => |g| g.a.to_device(&cp::Device::Cpu),
        "reshape" => |g| g.a.reshape(g.b.shape().to_vec()),
        "reshape_order" => |g| g.a.reshape_order(vec![g.n as isize, -1], Order::F),
        "ravel" => |g| g.a.ravel(),
        "flatten" => |g| g.a.flatten(),
        "t" => |g| Ok(g.a.t()),
        "transpose" => |g| Ok(g.a.transpose()),
        "permute_axes" => |g| g.a.permute_axes(&g.axes),
        "swapaxes" => |g| g.a.swapaxes(g.axis, g.n as isize),
        "moveaxis" => |g| g.a.moveaxis(g.axis, g.n as isize),
        "expand_dims" => |g| g.a.expand_dims(g.axis),
        "squeeze" => |g| Ok(g.a.squeeze()),
        "squeeze_axes" => |g| g.a.squeeze_axes(&g.axes),
        "broadcast_to" => |g| g.a.broadcast_to(g.b.shape()),
        "slice" => |g| g.a.slice(vec![SliceElem::Slice { start: Some(g.n as isize), end: None, inclusive: g.flag, step: g.axis }]),
        "get" => |g| g.a.get(&g.axes).map(|s| format!("{s:?}")),
        "at" => |g| g.a.at(g.axis),
        "take" => |g| g.a.take(&g.b, g.flag.then_some(g.axis)),
        "index_select" => |g| g.a.index_select(&g.b, g.axis),
        "mask" => |g| g.a.mask(&g.b),
        "nonzero" => |g| g.a.nonzero(),
        "set" => |g| { let mut a = g.a.copy()?; a.set(&g.axes, g.scalar).map(|()| a) },
        "sum" => |g| g.a.sum(),
        "sum_axis" => |g| g.a.sum_axis(g.axis),
        "sum_axes" => |g| g.a.sum_axes(g.axes.clone(), g.flag),
        "prod" => |g| g.a.prod(),
        "prod_axis" => |g| g.a.prod_axis(g.axis),
        "mean" => |g| g.a.mean(),
        "mean_axes" => |g| g.a.mean_axes(g.axes.clone(), g.flag),
        "min" => |g| g.a.min(),
        "max_axis" => |g| g.a.max_axis(g.axis),
        "all_axes" => |g| g.a.all_axes(g.axes.clone(), g.flag),
        "any" => |g| g.a.any(),
        "var" => |g| g.a.var(count(g.n)),
        "std_axis" => |g| g.a.std_axis(g.axis, count(g.n)),
        "argmin" => |g| g.a.argmin(),
        "argmax_axis" => |g| g.a.argmax_axis(g.axis, g.flag),
        "cumsum" => |g| g.a.cumsum(g.flag.then_some(g.axis)),
        "cumprod" => |g| g.a.cumprod(g.flag.then_some(g.axis)),
        "dot" => |g| g.a.dot(&g.b),
        "matmul" => |g| g.a.matmul(&g.b),
    ]
}

pub fn shape_functions() -> Vec<Row> {
    rows![
        "atleast_1d" => |g| cp::atleast_1d(&g.a),
        "atleast_2d" => |g| cp::atleast_2d(&g.a),
        "atleast_3d" => |g| cp::atleast_3d(&g.a),
        "vstack" => |g| cp::vstack(&[&g.a, &g.b]),
        "hstack" => |g| cp::hstack(&[&g.a, &g.b]),
        "dstack" => |g| cp::dstack(&[&g.a, &g.b]),
        "column_stack" => |g| cp::column_stack(&[&g.a, &g.b]),
        "concatenate" => |g| cp::concatenate(&[&g.a, &g.b], g.axis),
        "stack" => |g| cp::stack(&[&g.a, &g.b], g.axis),
        "broadcast_arrays" => |g| cp::broadcast_arrays(&[&g.a, &g.b]),
        "append" => |g| cp::append(&g.a, &g.b, g.flag.then_some(g.axis)),
        "split" => |g| cp::split(&g.a, g.n, g.axis),
        "array_split" => |g| cp::array_split(&g.a, g.n, g.axis),
        "hsplit" => |g| cp::hsplit(&g.a, g.n),
        "vsplit" => |g| cp::vsplit(&g.a, g.n),
        "dsplit" => |g| cp::dsplit(&g.a, g.n),
        "tile" => |g| cp::tile(&g.a, g.axes.iter().map(|&x| x.unsigned_abs()).collect::<Vec<_>>()),
        "repeat" => |g| cp::repeat(&g.a, g.n, g.flag.then_some(g.axis)),
        "resize" => |g| cp::resize(&g.a, g.b.shape().to_vec()),
        "flip" => |g| cp::flip(&g.a, g.axes.clone()),
        "fliplr" => |g| cp::fliplr(&g.a),
        "flipud" => |g| cp::flipud(&g.a),
        "rot90" => |g| cp::rot90(&g.a, g.n, (g.axis, 1)),
        "roll" => |g| cp::roll(&g.a, g.n, g.flag.then_some(g.axis)),
        "roll_axes" => |g| cp::roll_axes(&g.a, &[g.n], &g.axes),
        "take(fn)" => |g| cp::take(&g.a, &g.b, g.flag.then_some(g.axis)),
        "nonzero(fn)" => |g| cp::nonzero(&g.a),
        "flatnonzero" => |g| cp::flatnonzero(&g.a),
        "where_" => |g| cp::where_(&g.a, &g.b, g.scalar),
        "diagonal" => |g| cp::diagonal(&g.a, g.n as isize, g.axis, 1),
        "diag" => |g| cp::diag(&g.a, g.n as isize),
        "diagflat" => |g| cp::diagflat(&g.a, g.n as isize),
        "tril" => |g| cp::tril(&g.a, g.n as isize),
        "triu" => |g| cp::triu(&g.a, g.n as isize),
    ]
}

pub fn creation() -> Vec<Row> {
    rows![
        "zeros" => |g| cp::zeros(g.a.shape().to_vec(), g.b.dtype()),
        "ones" => |g| cp::ones(g.a.shape().to_vec(), g.b.dtype()),
        "empty" => |g| cp::empty(g.a.shape().to_vec(), g.b.dtype()),
        "full" => |g| cp::full(g.a.shape().to_vec(), g.scalar, g.b.dtype()),
        "zeros_like" => |g| cp::zeros_like(&g.a),
        "ones_like" => |g| cp::ones_like(&g.a),
        "empty_like" => |g| cp::empty_like(&g.a),
        "full_like" => |g| cp::full_like(&g.a, g.scalar),
        "zeros_like_as" => |g| cp::zeros_like_as(&g.a, g.b.dtype()),
        "ones_like_as" => |g| cp::ones_like_as(&g.a, g.b.dtype()),
        "empty_like_as" => |g| cp::empty_like_as(&g.a, g.b.dtype()),
        "full_like_as" => |g| cp::full_like_as(&g.a, g.scalar, g.b.dtype()),
        "arange" => |g| cp::arange(g.n),
        "linspace" => |g| cp::linspace(g.scalar, 1.0, count(g.n)),
        "logspace" => |g| cp::logspace(g.scalar, 1.0, count(g.n)),
        "geomspace" => |g| cp::geomspace(g.scalar, 1.0, count(g.n)),
        "eye" => |g| cp::eye(count(g.n), None, g.axis, g.a.dtype()),
        "identity" => |g| cp::identity(count(g.n), g.a.dtype()),
        "tri" => |g| cp::tri(count(g.n), None, g.axis, g.a.dtype()),
        "indices" => |g| cp::indices(g.a.shape().to_vec(), DType::Int64),
        "meshgrid" => |g| cp::meshgrid(&[&g.a, &g.b]),
    ]
}

#[test]
fn array_methods() {
    run_table("Array methods", methods());
}

#[test]
fn shape_and_index_functions() {
    run_table("shape functions", shape_functions());
}

#[test]
fn creation_functions() {
    run_table("creation", creation());
}
