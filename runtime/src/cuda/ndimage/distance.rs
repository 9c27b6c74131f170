//! Distance transforms on the GPU (`kernels/ndimage_distance.cu`): one
//! pass per axis, ping-ponging between two buffers.

use super::{config, shape_arg, source};
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{kernel, key, ptr};
use crate::cuda::runtime::compile::Function;
use crate::cuda::runtime::launch::{launch, KernelArgs};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, Buffer};

const DISTANCE: &str = include_str!("../kernels/ndimage_distance.cu");

pub(crate) fn distance_source() -> String {
    source(DISTANCE, &[])
}

fn func(s: &DeviceSession, name: &str) -> Result<Function> {
    kernel(s, key("nd_distance"), "nd_distance", name, distance_source)
}

/// (outer, n, inner) around `axis`.
fn around(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    (
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    )
}

pub(super) fn edt(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    sampling: &[f64],
    indices: bool,
) -> Result<(Storage, Option<Storage>)> {
    let s = session_of(op, x)?;
    let shape = x.shape();
    let nd = shape.len();
    let total = x.layout.size();
    let d = [
        Buffer::new(op, ordinal, DType::Float64, shape)?,
        Buffer::new(op, ordinal, DType::Float64, shape)?,
    ];
    let mut fshape = vec![nd];
    fshape.extend_from_slice(shape);
    let feat = if indices {
        Some([
            Buffer::new(op, ordinal, DType::Int64, &fshape)?,
            Buffer::new(op, ordinal, DType::Int64, &fshape)?,
        ])
    } else {
        None
    };
    if total == 0 {
        let [d0, _] = d;
        return Ok((d0.storage, feat.map(|[f0, _]| f0.storage)));
    }
    let stream = current_stream();
    let fptr = |f: &Option<[Buffer; 2]>, k: usize| -> Result<u64> {
        match f {
            Some(b) => b[k].ptr(op),
            None => Ok(0),
        }
    };
    let mut a = KernelArgs::new();
    a.push(ptr(op, x)?)
        .push(d[0].ptr(op)?)
        .push(fptr(&feat, 0)?)
        .push(nd as i32);
    a.push(shape_arg(shape.iter().map(|&v| v as i64)))
        .push(total as i64);
    launch(
        s,
        "nd_edt_init",
        func(s, "cuprite_nd_edt_init")?,
        config(s, total),
        &stream,
        &mut a,
    )?;
    // Per pass, v holds n words and z n + 1 per line: total and total + lines.
    let most_lines = shape.iter().map(|&n| total / n.max(1)).max().unwrap_or(1);
    let v = Buffer::new(op, ordinal, DType::Int64, &[total])?;
    let z = Buffer::new(op, ordinal, DType::Float64, &[total + most_lines])?;
    let mut cur = 0;
    for (axis, step) in sampling.iter().enumerate().take(nd) {
        let (outer, n, inner) = around(shape, axis);
        let lines = outer * inner;
        let w = step * step;
        let mut a = KernelArgs::new();
        a.push(d[cur].ptr(op)?).push(d[1 - cur].ptr(op)?);
        a.push(fptr(&feat, cur)?).push(fptr(&feat, 1 - cur)?);
        a.push(v.ptr(op)?).push(z.ptr(op)?);
        a.push(nd as i32)
            .push(lines as i64)
            .push(n as i64)
            .push(inner as i64);
        a.push(total as i64).push(w);
        launch(
            s,
            "nd_edt_pass",
            func(s, "cuprite_nd_edt_pass")?,
            config(s, lines),
            &stream,
            &mut a,
        )?;
        cur = 1 - cur;
    }
    let mut a = KernelArgs::new();
    a.push(d[cur].ptr(op)?).push(total as i64);
    launch(
        s,
        "nd_sqrt",
        func(s, "cuprite_nd_sqrt")?,
        config(s, total),
        &stream,
        &mut a,
    )?;
    let [d0, d1] = d;
    let dist = if cur == 0 { d0 } else { d1 };
    let feat = feat.map(|[f0, f1]| if cur == 0 { f0 } else { f1 });
    Ok((dist.storage, feat.map(|f| f.storage)))
}

pub(super) fn cdt(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    chessboard: bool,
) -> Result<Storage> {
    let s = session_of(op, x)?;
    let shape = x.shape();
    let total = x.layout.size();
    let out = Buffer::new(op, ordinal, DType::Int32, shape)?;
    if total == 0 {
        return Ok(out.storage);
    }
    let d = [
        Buffer::new(op, ordinal, DType::Int64, shape)?,
        Buffer::new(op, ordinal, DType::Int64, shape)?,
    ];
    let stream = current_stream();
    let mut a = KernelArgs::new();
    a.push(ptr(op, x)?).push(d[0].ptr(op)?).push(total as i64);
    launch(
        s,
        "nd_cdt_init",
        func(s, "cuprite_nd_cdt_init")?,
        config(s, total),
        &stream,
        &mut a,
    )?;
    let mut cur = 0;
    for axis in 0..shape.len() {
        let (_, n, inner) = around(shape, axis);
        let mut a = KernelArgs::new();
        a.push(d[cur].ptr(op)?).push(d[1 - cur].ptr(op)?);
        a.push(n as i64)
            .push(inner as i64)
            .push(total as i64)
            .push(chessboard as i32);
        launch(
            s,
            "nd_cdt_pass",
            func(s, "cuprite_nd_cdt_pass")?,
            config(s, total),
            &stream,
            &mut a,
        )?;
        cur = 1 - cur;
    }
    let mut a = KernelArgs::new();
    a.push(d[cur].ptr(op)?)
        .push(out.ptr(op)?)
        .push(total as i64);
    launch(
        s,
        "nd_cdt_finish",
        func(s, "cuprite_nd_cdt_finish")?,
        config(s, total),
        &stream,
        &mut a,
    )?;
    Ok(out.storage)
}

#[cfg(test)]
mod tests {
    #[test]
    fn kernels_compile() {
        let src = super::distance_source();
        assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
        crate::cuda::kernel_gen::helpers::dump_source("nd_distance", &src);
    }
}
