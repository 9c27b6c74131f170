//! Spline interpolation: the B-spline prefilter, `map_coordinates`,
//! `affine_transform` and the transforms built on it (`zoom`, `shift`,
//! `rotate`).

use super::{
    check_input, contiguous_as, float_dtype, host_values, norm_axis, per_axis, wrap, Mode,
};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::ops::ndimage::{Coords, Interp};

/// Spline order, boundary and prefiltering of the interpolating functions.
#[derive(Debug, Clone)]
pub struct InterpOptions {
    /// Spline order 0-5 (default 3).
    pub order: usize,
    /// How points outside the input are handled (default `Constant`).
    pub mode: Mode,
    /// The value outside for `Constant` and `GridConstant` (default 0).
    pub cval: f64,
    /// Whether the input is prefiltered with `spline_filter` first (default
    /// true; give false when it already holds spline coefficients).
    pub prefilter: bool,
}

impl Default for InterpOptions {
    fn default() -> Self {
        InterpOptions {
            order: 3,
            mode: Mode::Constant,
            cval: 0.0,
            prefilter: true,
        }
    }
}

impl InterpOptions {
    /// Sets the spline order.
    pub fn order(mut self, order: usize) -> Self {
        self.order = order;
        self
    }
    /// Sets the boundary mode.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }
    /// Sets the constant outside the input.
    pub fn cval(mut self, cval: f64) -> Self {
        self.cval = cval;
        self
    }
    /// Sets whether to prefilter.
    pub fn prefilter(mut self, prefilter: bool) -> Self {
        self.prefilter = prefilter;
        self
    }
}

fn check_order(op: &'static str, order: usize) -> Result<()> {
    if order > 5 {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("spline order {order}; it must be 0 to 5"),
        });
    }
    Ok(())
}

fn spline_pass(
    op: &'static str,
    x: &Array,
    axis: usize,
    order: usize,
    mode: Mode,
) -> Result<Array> {
    let be = crate::backend::on(op, x.device())?;
    let s = be.spline_filter1d(op, x.view(), axis, order, mode)?;
    Ok(wrap(s, x.shape(), DType::Float64))
}

/// B-spline coefficients of `order` (2-5) along `axis`; orders 0 and 1
/// return the input (`scipy.ndimage.spline_filter1d`, float64 result).
pub fn spline_filter1d(input: &Array, order: usize, axis: isize, mode: Mode) -> Result<Array> {
    let op = "ndimage.spline_filter1d";
    check_input(op, input)?;
    check_order(op, order)?;
    let x = contiguous_as(input, DType::Float64)?;
    if order < 2 || x.ndim() == 0 {
        return Ok(x);
    }
    let axis = norm_axis(op, axis, x.ndim())?;
    spline_pass(op, &x, axis, order, mode)
}

/// Multidimensional B-spline coefficients: `spline_filter1d` along every
/// axis (`scipy.ndimage.spline_filter`, float64 result).
pub fn spline_filter(input: &Array, order: usize, mode: Mode) -> Result<Array> {
    let op = "ndimage.spline_filter";
    check_input(op, input)?;
    check_order(op, order)?;
    let mut x = contiguous_as(input, DType::Float64)?;
    if order >= 2 {
        for axis in 0..x.ndim() {
            x = spline_pass(op, &x, axis, order, mode)?;
        }
    }
    Ok(x)
}

/// The coefficients an interpolation reads and the padding in front of
/// them: for `Nearest` and `GridConstant` the input is padded by 12
/// samples first (by its edge values or `cval`), as SciPy does, so that
/// the prefilter's edge condition does not reach the data.
fn coefficients(op: &'static str, input: &Array, o: &InterpOptions) -> Result<(Array, usize)> {
    check_input(op, input)?;
    check_order(op, o.order)?;
    if input.ndim() == 0 {
        return Err(Error::Shape {
            op,
            detail: "a 0-d input cannot be interpolated".into(),
        });
    }
    if !o.prefilter || o.order < 2 {
        // Read in place: float32 stays float32.
        return Ok((contiguous_as(input, float_dtype(input))?, 0));
    }
    let x = contiguous_as(input, DType::Float64)?;
    let (x, npad) = match o.mode {
        Mode::Nearest => (crate::pad(&x, 12usize, crate::PadMode::Edge)?, 12),
        Mode::GridConstant => (
            crate::pad(
                &x,
                12usize,
                crate::PadMode::Constant(crate::Scalar::Float(o.cval)),
            )?,
            12,
        ),
        _ => (x, 0),
    };
    let x = contiguous_as(&x, DType::Float64)?;
    let mut c = x;
    for axis in 0..c.ndim() {
        c = spline_pass(op, &c, axis, o.order, o.mode)?;
    }
    Ok((c, npad))
}

fn run(
    op: &'static str,
    input: &Array,
    coeffs: &Array,
    npad: usize,
    coords: Coords<'_>,
    out_shape: &[usize],
    o: &InterpOptions,
) -> Result<Array> {
    if input.size() == 0 {
        // No sample to read: every point is outside, as SciPy gives it.
        crate::core::layout::checked_size(op, out_shape)?;
        let out = crate::full(out_shape.to_vec(), o.cval, float_dtype(input))?;
        return out.to_device(&coeffs.device());
    }
    let be = crate::backend::on(op, coeffs.device())?;
    let f = Interp {
        coeffs: coeffs.view(),
        coords,
        out_shape,
        order: o.order,
        mode: o.mode,
        cval: o.cval,
        npad,
        out_dt: float_dtype(input),
    };
    let s = be.interpolate(op, &f)?;
    Ok(wrap(s, out_shape, f.out_dt))
}

/// The input interpolated at `coordinates` (shape `(input.ndim, output...)`)
/// (`scipy.ndimage.map_coordinates`).
pub fn map_coordinates(input: &Array, coordinates: &Array, opts: &InterpOptions) -> Result<Array> {
    let op = "ndimage.map_coordinates";
    check_input(op, input)?;
    if coordinates.ndim() == 0 || coordinates.shape()[0] != input.ndim() {
        return Err(Error::Shape {
            op,
            detail: format!(
                "coordinates of shape {:?} for an input of rank {}; the first axis must have one row per input axis",
                coordinates.shape(),
                input.ndim()
            ),
        });
    }
    if coordinates.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: "complex coordinates".into(),
        });
    }
    if coordinates.device() != input.device() {
        return Err(Error::DeviceMismatch {
            op,
            a: input.device().to_string(),
            b: coordinates.device().to_string(),
        });
    }
    let (c, npad) = coefficients(op, input, opts)?;
    let coords = contiguous_as(coordinates, DType::Float64)?;
    let out_shape = coordinates.shape()[1..].to_vec();
    run(
        op,
        input,
        &c,
        npad,
        Coords::Array(coords.view()),
        &out_shape,
        opts,
    )
}

/// The input sampled at `matrix @ o + offset` for every output index `o`
/// (`scipy.ndimage.affine_transform`). `matrix` is `(ndim,)` (a
/// diagonal), `(ndim, ndim)`, `(ndim, ndim + 1)` or `(ndim + 1, ndim + 1)`
/// (homogeneous: its last column is the offset); `output_shape` defaults to
/// the input's.
pub fn affine_transform(
    input: &Array,
    matrix: &Array,
    offset: &[f64],
    output_shape: Option<&[usize]>,
    opts: &InterpOptions,
) -> Result<Array> {
    let op = "ndimage.affine_transform";
    check_input(op, input)?;
    let nd = input.ndim();
    let m = host_values(matrix)?;
    let shape = matrix.shape().to_vec();
    let (mat, mut off) = match shape.as_slice() {
        [n] if *n == nd => {
            let mut full = vec![0.0; nd * nd];
            for d in 0..nd {
                full[d * nd + d] = m[d];
            }
            (full, None)
        }
        [r, c] if *r == nd && *c == nd => (m, None),
        [r, c] if (*r == nd || *r == nd + 1) && *c == nd + 1 => {
            let mut full = vec![0.0; nd * nd];
            let mut o = vec![0.0; nd];
            for d in 0..nd {
                full[d * nd..(d + 1) * nd].copy_from_slice(&m[d * (nd + 1)..d * (nd + 1) + nd]);
                o[d] = m[d * (nd + 1) + nd];
            }
            (full, Some(o))
        }
        _ => {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "matrix of shape {shape:?} for an input of rank {nd}; give (ndim,), (ndim, ndim), (ndim, ndim + 1) or (ndim + 1, ndim + 1)"
                ),
            })
        }
    };
    if off.is_none() {
        off = Some(per_axis(
            op,
            "offset",
            if offset.is_empty() { &[0.0] } else { offset },
            nd,
        )?);
    }
    let off = off.unwrap_or_default();
    let out_shape = output_shape.map_or_else(|| input.shape().to_vec(), |s| s.to_vec());
    if out_shape.len() != nd {
        return Err(Error::Shape {
            op,
            detail: format!("output_shape {out_shape:?} for an input of rank {nd}"),
        });
    }
    affine(op, input, &mat, &off, &out_shape, opts)
}

/// The affine interpolation `in = mat (nd x nd) out + off` into `out_shape`.
fn affine(
    op: &'static str,
    input: &Array,
    mat: &[f64],
    off: &[f64],
    out_shape: &[usize],
    opts: &InterpOptions,
) -> Result<Array> {
    let (c, npad) = coefficients(op, input, opts)?;
    let coords = Coords::Affine {
        matrix: mat,
        offset: off,
    };
    run(op, input, &c, npad, coords, out_shape, opts)
}

fn diagonal(d: &[f64]) -> Vec<f64> {
    let n = d.len();
    let mut m = vec![0.0; n * n];
    for i in 0..n {
        m[i * n + i] = d[i];
    }
    m
}

/// The input moved by `shift` (one or per axis): `out[o] = in[o - shift]` (`scipy.ndimage.shift`).
pub fn shift(input: &Array, shift: &[f64], opts: &InterpOptions) -> Result<Array> {
    let op = "ndimage.shift";
    check_input(op, input)?;
    let nd = input.ndim();
    let s = per_axis(op, "shift", shift, nd)?;
    let off: Vec<f64> = s.iter().map(|v| -v).collect();
    affine(
        op,
        input,
        &diagonal(&vec![1.0; nd]),
        &off,
        input.shape(),
        opts,
    )
}

/// The input resized by `zoom` (one or per axis); output extent
/// `round(n * zoom)`, the corners aligned (`grid_mode=False`) or the
/// pixel edges aligned (`grid_mode=True`) (`scipy.ndimage.zoom`).
pub fn zoom(input: &Array, zoom: &[f64], grid_mode: bool, opts: &InterpOptions) -> Result<Array> {
    let op = "ndimage.zoom";
    check_input(op, input)?;
    let nd = input.ndim();
    let z = per_axis(op, "zoom", zoom, nd)?;
    if z.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("zoom {z:?} must be finite and positive"),
        });
    }
    let mut opts = opts.clone();
    if grid_mode && opts.mode == Mode::Constant {
        opts.mode = Mode::GridConstant;
    }
    let out_shape: Vec<usize> = input
        .shape()
        .iter()
        .zip(&z)
        .map(|(&n, &f)| (n as f64 * f).round_ties_even() as usize)
        .collect();
    let mut scale = vec![0.0; nd];
    let mut off = vec![0.0; nd];
    for d in 0..nd {
        let (n, m) = (input.shape()[d] as f64, out_shape[d] as f64);
        if grid_mode {
            scale[d] = if m > 0.0 { n / m } else { 1.0 };
            off[d] = 0.5 * scale[d] - 0.5;
        } else {
            scale[d] = if m > 1.0 { (n - 1.0) / (m - 1.0) } else { 1.0 };
        }
    }
    affine(op, input, &diagonal(&scale), &off, &out_shape, &opts)
}

/// The input rotated by `angle` degrees in the plane of `axes`; with
/// `reshape` the output grows to hold the whole rotated input (`scipy.ndimage.rotate`).
pub fn rotate(
    input: &Array,
    angle: f64,
    axes: (isize, isize),
    reshape: bool,
    opts: &InterpOptions,
) -> Result<Array> {
    let op = "ndimage.rotate";
    check_input(op, input)?;
    let nd = input.ndim();
    if nd < 2 {
        return Err(Error::Shape {
            op,
            detail: format!(
                "rotate needs at least 2 dimensions, got shape {:?}",
                input.shape()
            ),
        });
    }
    let (mut a0, mut a1) = (norm_axis(op, axes.0, nd)?, norm_axis(op, axes.1, nd)?);
    if a0 == a1 {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("axes {axes:?} name the same axis"),
        });
    }
    if a0 > a1 {
        std::mem::swap(&mut a0, &mut a1);
    }
    let rad = angle.to_radians();
    let (c, s) = (rad.cos(), rad.sin());
    // The rotation of the (a0, a1) plane, as SciPy writes it.
    let rot = [[c, s], [-s, c]];
    let ishape = input.shape();
    let (iy, ix) = (ishape[a0] as f64, ishape[a1] as f64);
    let (oy, ox) = if reshape {
        // Extent of the rotated corners.
        let corners = [[0.0, 0.0], [iy, 0.0], [0.0, ix], [iy, ix]];
        let mut lo = [f64::INFINITY; 2];
        let mut hi = [f64::NEG_INFINITY; 2];
        for p in corners {
            for (k, row) in rot.iter().enumerate() {
                let v = row[0] * p[0] + row[1] * p[1];
                lo[k] = lo[k].min(v);
                hi[k] = hi[k].max(v);
            }
        }
        ((hi[0] - lo[0] + 0.5).floor(), (hi[1] - lo[1] + 0.5).floor())
    } else {
        (iy, ix)
    };
    let in_center = [(iy - 1.0) / 2.0, (ix - 1.0) / 2.0];
    let out_center = [(oy - 1.0) / 2.0, (ox - 1.0) / 2.0];
    let mut mat = diagonal(&vec![1.0; nd]);
    let mut off = vec![0.0; nd];
    let ax = [a0, a1];
    for i in 0..2 {
        for j in 0..2 {
            mat[ax[i] * nd + ax[j]] = rot[i][j];
        }
        off[ax[i]] = in_center[i] - (rot[i][0] * out_center[0] + rot[i][1] * out_center[1]);
    }
    let mut out_shape = ishape.to_vec();
    out_shape[a0] = oy as usize;
    out_shape[a1] = ox as usize;
    affine(op, input, &mat, &off, &out_shape, opts)
}
