//! The spline prefilter (`kernels/ndimage_spline.cu`) and interpolation
//! (`kernels/ndimage_interp.cu`) on the GPU.

use super::{config, shape_arg, source, strides_arg, THREADS};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::helpers::{kernel, key, ptr};
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::DeviceSession;
use crate::cuda::runtime::stream::current_stream;
use crate::cuda::runtime::vendor::{session_of, Buffer};
use crate::ops::c_types::ctype;
use crate::ops::ndimage::{poles, Coords, Extension, Interp, Mode, MAX_NDIM};

const INTERP: &str = include_str!("../kernels/ndimage_interp.cu");
const SPLINE: &str = include_str!("../kernels/ndimage_spline.cu");

/// Samples of a line one prefilter thread takes: long enough that the
/// warm-up before a chunk (at most 50 samples, order 5) costs little, short
/// enough that a few long lines still make many threads.
const CHUNK: usize = 128;

/// Whether indices up to `n` (plus a grid stride) fit the kernels' 32-bit
/// index type.
fn narrow(n: usize) -> bool {
    n <= (i32::MAX / 2) as usize
}

fn index_ctype(narrow: bool) -> &'static str {
    if narrow {
        "int"
    } else {
        "long long"
    }
}

/// Pushes an index argument as the kernel's `I`.
fn push_index(a: &mut KernelArgs, narrow: bool, v: usize) {
    if narrow {
        a.push(v as i32);
    } else {
        a.push(v as i64);
    }
}

/// The prefilter kernels with indices of 32 bits (`narrow`) or 64.
pub(crate) fn spline_source(narrow: bool) -> String {
    source(SPLINE, &[("I", index_ctype(narrow).to_string())])
}

/// The interpolation kernels for `nd` input and `ond` output dimensions
/// (the affine map's), spline `order`, coefficients of `coef`, output of
/// `out` (float32 or float64) and 32- or 64-bit indices.
pub(crate) fn interp_source(
    nd: usize,
    ond: usize,
    order: usize,
    coef: DType,
    out: DType,
    narrow: bool,
) -> String {
    source(
        INTERP,
        &[
            ("ND", nd.max(1).to_string()),
            ("OND", ond.max(1).to_string()),
            ("ORDER", order.to_string()),
            ("T", ctype(coef).to_string()),
            ("U", ctype(out).to_string()),
            ("I", index_ctype(narrow).to_string()),
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

/// Samples after which a recursion of pole `z` has decayed below 2^-60
/// (the prefilter's warm-up and its boundary sums' length).
fn horizon(z: f64) -> usize {
    let k = (-60.0 * std::f64::consts::LN_2 / z.abs().ln()).ceil();
    // |z| < 1 for every order's poles; the bound only guards the cast.
    (k.clamp(1.0, 1e6) as usize) + 1
}

pub(super) fn spline_filter1d(
    op: &'static str,
    ordinal: usize,
    x: View<'_>,
    axis: usize,
    order: usize,
    mode: Mode,
) -> Result<Storage> {
    let zs = poles(order);
    if zs.is_empty() {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("spline prefilter of order {order}; it takes orders 2 to 5"),
        });
    }
    let s = session_of(op, x)?;
    let out = Buffer::new(op, ordinal, DType::Float64, x.shape())?;
    let total = x.layout.size();
    if total == 0 {
        return Ok(out.storage);
    }
    // Each pole's causal pass writes `tmp`, its anti-causal pass `out`.
    let tmp = Buffer::new(op, ordinal, DType::Float64, x.shape())?;
    let shape = x.shape();
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let nch = n.div_ceil(CHUNK);
    let items = total / n * nch;
    let nw = narrow(total + CHUNK);
    let gain: f64 = zs.iter().map(|z| (1.0 - z) * (1.0 - 1.0 / z)).product();
    let k = key(("nd_spline", nw));
    let src = || spline_source(nw);
    let causal = kernel(s, k, "nd_spline", "cuprite_nd_spline_causal", src)?;
    let anti = kernel(s, k, "nd_spline", "cuprite_nd_spline_anticausal", src)?;
    let geometry = |a: &mut KernelArgs, h: usize| {
        for v in [items, n, inner, nch, CHUNK, h] {
            push_index(a, nw, v);
        }
        a.push(ext_code(mode));
    };
    let mut input = ptr(op, x)?;
    for (p, &z) in zs.iter().enumerate() {
        let h = horizon(z);
        let mut a = KernelArgs::new();
        a.push(input).push(tmp.ptr(op)?);
        geometry(&mut a, h);
        a.push(z).push(if p == 0 { gain } else { 1.0 });
        let cfg = config(s, items);
        launch(
            s,
            "nd_spline_causal",
            causal,
            cfg,
            &current_stream(),
            &mut a,
        )?;
        let mut a = KernelArgs::new();
        a.push(tmp.ptr(op)?).push(out.ptr(op)?);
        geometry(&mut a, h);
        a.push(z);
        launch(
            s,
            "nd_spline_anticausal",
            anti,
            cfg,
            &current_stream(),
            &mut a,
        )?;
        input = out.ptr(op)?;
    }
    Ok(out.storage)
}

/// The affine kernel's launch: the last output axis over x, the rows over
/// y, about as many blocks in all as a 1-D grid-stride launch takes.
fn affine_config(s: &DeviceSession, last: usize, rows: usize) -> LaunchConfig {
    let cap = s.info.sm_count.max(1) * 32;
    let gx = last.div_ceil(THREADS).clamp(1, cap);
    let gy = rows.clamp(1, (cap / gx).clamp(1, 65535));
    LaunchConfig {
        grid: (gx as u32, gy as u32, 1),
        block: (THREADS as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

pub(super) fn interpolate(op: &'static str, ordinal: usize, f: &Interp<'_>) -> Result<Storage> {
    let s = session_of(op, f.coeffs)?;
    let out = Buffer::new(op, ordinal, f.out_dt, f.out_shape)?;
    let total: usize = f.out_shape.iter().product();
    if total == 0 {
        return Ok(out.storage);
    }
    let nd = f.coeffs.ndim().max(1);
    let (cdt, odt) = (f.coeffs.dtype(), f.out_dt);
    let ond = f.out_shape.len();
    let ishape = shape_arg(f.coeffs.shape().iter().map(|&d| d as i64));
    let istrides = strides_arg(f.coeffs.shape());
    let tail = |a: &mut KernelArgs| {
        a.push(ishape).push(istrides);
        a.push(f.mode.code()).push(ext_code(f.mode));
        a.push(f.cval).push(f.npad as f64);
    };
    match f.coords {
        Coords::Array(c) => {
            let nw = narrow(f.coeffs.layout.size().max(total * nd));
            let func = kernel(
                s,
                key(("nd_interp", nd, 1usize, f.order, cdt, odt, nw)),
                "nd_interp",
                "cuprite_nd_interp_coords",
                || interp_source(nd, 1, f.order, cdt, odt, nw),
            )?;
            let mut a = KernelArgs::new();
            a.push(ptr(op, f.coeffs)?)
                .push(out.ptr(op)?)
                .push(ptr(op, c)?);
            push_index(&mut a, nw, total);
            tail(&mut a);
            launch(
                s,
                "nd_interp_coords",
                func,
                config(s, total),
                &current_stream(),
                &mut a,
            )?;
        }
        Coords::Affine { matrix, offset } => {
            if ond == 0 || matrix.len() != nd * ond || offset.len() != nd {
                return Err(Error::Shape {
                    op,
                    detail: format!(
                        "an affine map of {} entries and {} offsets from {ond} to {nd} axes",
                        matrix.len(),
                        offset.len()
                    ),
                });
            }
            // Passed by value: no upload before the launch.
            let mut map = [0.0f64; MAX_NDIM * MAX_NDIM + MAX_NDIM];
            map[..matrix.len()].copy_from_slice(matrix);
            map[nd * ond..nd * ond + nd].copy_from_slice(offset);
            let nw = narrow(f.coeffs.layout.size().max(total));
            let func = kernel(
                s,
                key(("nd_interp", nd, ond, f.order, cdt, odt, nw)),
                "nd_interp",
                "cuprite_nd_interp_affine",
                || interp_source(nd, ond, f.order, cdt, odt, nw),
            )?;
            let last = f.out_shape[ond - 1];
            let rows = total / last;
            let mut a = KernelArgs::new();
            a.push(ptr(op, f.coeffs)?).push(out.ptr(op)?).push(map);
            a.push(shape_arg(f.out_shape.iter().map(|&d| d as i64)));
            push_index(&mut a, nw, rows);
            tail(&mut a);
            launch(
                s,
                "nd_interp_affine",
                func,
                affine_config(s, last, rows),
                &current_stream(),
                &mut a,
            )?;
        }
    }
    Ok(out.storage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::kernel_gen::helpers::dump_source;
    use crate::cuda::kernel_gen::template::unfilled;

    #[test]
    fn kernels_compile() {
        for nw in [true, false] {
            let src = spline_source(nw);
            assert_eq!(unfilled(&src), None);
            dump_source(&format!("nd_spline_{nw}"), &src);
        }
        for nd in [1usize, 2, 3, 4] {
            for order in 0..=5 {
                let nw = order % 2 == 0;
                let src = interp_source(nd, nd, order, DType::Float32, DType::Float64, nw);
                assert_eq!(unfilled(&src), None);
                dump_source(&format!("nd_interp_{nd}_{order}"), &src);
            }
        }
        let src = interp_source(2, 3, 3, DType::Float64, DType::Float32, false);
        dump_source("nd_interp_2_from_3", &src);
    }

    #[test]
    fn horizons_cover_double_rounding() {
        for order in 2..=5 {
            for z in poles(order) {
                let h = horizon(z);
                assert!(z.abs().powi(h as i32) <= 2f64.powi(-60), "{order} {z} {h}");
                assert!(h <= 60, "{order} {z} {h}");
            }
        }
    }
}
