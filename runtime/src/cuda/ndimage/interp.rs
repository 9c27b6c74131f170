//! The spline prefilter and interpolation on the GPU
//! (`kernels/ndimage_interp.cu`).

use super::{config, shape_arg, source, strides_arg};
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{kernel, key, ptr};
use crate::cuda::runtime::launch::{launch, KernelArgs};
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, Buffer};
use crate::ops::c_types::ctype;
use crate::ops::ndimage::{poles, Coords, Extension, Interp, Mode};

const INTERP: &str = include_str!("../kernels/ndimage_interp.cu");

/// The interpolation kernels for `nd` input dimensions, spline `order`,
/// coefficients of `coef` and output of `out` (float32 or float64).
pub(crate) fn interp_source(nd: usize, order: usize, coef: DType, out: DType) -> String {
    source(
        INTERP,
        &[
            ("ND", nd.max(1).to_string()),
            ("ORDER", order.to_string()),
            ("T", ctype(coef).to_string()),
            ("U", ctype(out).to_string()),
        ],
    )
}

fn ext_code(mode: Mode) -> i32 {
    match Extension::of(mode) {
        Extension::Mirror => 0,
        Extension::Reflect => 1,
        Extension::Periodic => 2,
    }
}

pub(super) fn spline_filter1d(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    axis: usize,
    order: usize,
    mode: Mode,
) -> Result<Storage> {
    let s = session_of(op, x)?;
    let out = Buffer::new(op, ordinal, DType::Float64, x.shape())?;
    let total = x.layout.size();
    if total == 0 {
        return Ok(out.storage);
    }
    let shape = x.shape();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let lines = total / n;
    let zs = poles(order);
    let gain: f64 = zs.iter().map(|z| (1.0 - z) * (1.0 - 1.0 / z)).product();
    let func = kernel(
        s,
        key(("nd_interp", 1usize, 0usize, DType::Float64, DType::Float64)),
        "nd_interp",
        "cuprite_nd_spline_lines",
        || interp_source(1, 0, DType::Float64, DType::Float64),
    )?;
    let mut a = KernelArgs::new();
    a.push(ptr(op, x)?).push(out.ptr(op)?);
    a.push(lines as i64).push(n as i64).push(inner as i64);
    a.push(ext_code(mode)).push(zs.len() as i32);
    a.push(zs.first().copied().unwrap_or(0.0))
        .push(zs.get(1).copied().unwrap_or(0.0));
    a.push(gain);
    launch(
        s,
        "nd_spline_lines",
        func,
        config(s, lines),
        &current_stream(),
        &mut a,
    )?;
    Ok(out.storage)
}

pub(super) fn interpolate(op: &'static str, ordinal: usize, f: &Interp<'_>) -> Result<Storage> {
    let s = session_of(op, f.coeffs)?;
    let out = Buffer::new(op, ordinal, f.out_dt, f.out_shape)?;
    let total: usize = f.out_shape.iter().product();
    if total == 0 {
        return Ok(out.storage);
    }
    let nd = f.coeffs.ndim();
    let (cdt, odt) = (f.coeffs.dtype(), f.out_dt);
    let func = kernel(
        s,
        key(("nd_interp", nd, f.order, cdt, odt)),
        "nd_interp",
        "cuprite_nd_interp",
        || interp_source(nd, f.order, cdt, odt),
    )?;
    let (coords, mat) = match f.coords {
        Coords::Array(c) => (ptr(op, c)?, None),
        Coords::Affine { matrix, offset } => {
            let mut m = matrix.to_vec();
            m.extend_from_slice(offset);
            (0u64, Some(Buffer::from_host(op, ordinal, &m)?))
        }
    };
    let mut a = KernelArgs::new();
    a.push(ptr(op, f.coeffs)?).push(out.ptr(op)?).push(coords);
    a.push(match &mat {
        Some(b) => b.ptr(op)?,
        None => 0u64,
    });
    a.push(f.out_shape.len() as i32);
    a.push(shape_arg(f.out_shape.iter().map(|&d| d as i64)));
    a.push(shape_arg(f.coeffs.shape().iter().map(|&d| d as i64)));
    a.push(strides_arg(f.coeffs.shape()));
    a.push(total as i64)
        .push(f.mode.code())
        .push(ext_code(f.mode));
    a.push(f.cval).push(f.npad as f64);
    launch(
        s,
        "nd_interp",
        func,
        config(s, total),
        &current_stream(),
        &mut a,
    )?;
    Ok(out.storage)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_compile() {
        for nd in [1usize, 2, 3] {
            for order in 0..=5 {
                let src = interp_source(nd, order, DType::Float32, DType::Float64);
                assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
                crate::cuda::kernel_gen::helpers::dump_source(
                    &format!("nd_interp_{nd}_{order}"),
                    &src,
                );
            }
        }
    }
}
