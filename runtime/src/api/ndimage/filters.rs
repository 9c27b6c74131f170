//! Weighted filters: correlation and convolution (1-D and N-D), Gaussian
//! and uniform filters, and the derivative filters built on them.

use super::{
    backend_window, center_of, check_extents, check_input, contiguous_as, float_dtype, host_values,
    mirrored_origin, norm_axis, per_axis, window_offsets, wrap, FilterOptions,
};
use crate::core::array::Array;
use crate::core::error::{Error, Result};
use crate::ops::ndimage::{LineFilter, LineOp, Window};

/// One line filter of `x` (already C-contiguous in its working dtype).
pub(crate) fn line_pass(
    op: &'static str,
    x: &Array,
    axis: usize,
    weights: &[f64],
    center: i64,
    how: LineOp,
    opts: &FilterOptions,
) -> Result<Array> {
    let be = crate::backend::on(op, x.device())?;
    let f = LineFilter {
        axis,
        weights,
        center,
        op: how,
        mode: opts.mode.for_filters(),
        cval: opts.cval,
    };
    let s = be.line_filter(op, x.view(), &f)?;
    Ok(wrap(s, x.shape(), x.dtype()))
}

fn correlate1d_impl(
    op: &'static str,
    input: &Array,
    weights: &[f64],
    axis: isize,
    origin: isize,
    opts: &FilterOptions,
) -> Result<Array> {
    check_input(op, input)?;
    if input.ndim() == 0 {
        return Err(Error::Shape {
            op,
            detail: "a 0-d input has no axis to filter along".into(),
        });
    }
    let axis = norm_axis(op, axis, input.ndim())?;
    if weights.is_empty() {
        return Err(Error::InvalidArgument {
            op,
            detail: "weights are empty; give at least one".into(),
        });
    }
    let center = center_of(op, weights.len(), origin)?;
    let x = contiguous_as(input, float_dtype(input))?;
    line_pass(op, &x, axis, weights, center, LineOp::Correlate, opts)
}

fn first_origin(op: &'static str, opts: &FilterOptions) -> Result<isize> {
    match opts.origin.as_slice() {
        [o] => Ok(*o),
        o => Err(Error::InvalidArgument {
            op,
            detail: format!("a 1-D filter takes one origin, got {o:?}"),
        }),
    }
}

/// One-dimensional correlation along `axis`: `out[i] = sum_k w[k] x[i + k - center]`,
/// `center = len(w) / 2 + origin` (`scipy.ndimage.correlate1d`).
pub fn correlate1d(
    input: &Array,
    weights: &[f64],
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array> {
    let op = "ndimage.correlate1d";
    correlate1d_impl(op, input, weights, axis, first_origin(op, opts)?, opts)
}

/// One-dimensional convolution along `axis` (`scipy.ndimage.convolve1d`).
pub fn convolve1d(
    input: &Array,
    weights: &[f64],
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array> {
    let op = "ndimage.convolve1d";
    let mut w = weights.to_vec();
    w.reverse();
    let origin = mirrored_origin(op, first_origin(op, opts)?, w.len())?;
    correlate1d_impl(op, input, &w, axis, origin, opts)
}

fn correlate_impl(
    op: &'static str,
    input: &Array,
    weights: &Array,
    convolution: bool,
    opts: &FilterOptions,
) -> Result<Array> {
    check_input(op, input)?;
    if weights.ndim() != input.ndim() {
        return Err(Error::Shape {
            op,
            detail: format!(
                "weights of shape {:?} for an input of shape {:?}; they need the same rank",
                weights.shape(),
                input.shape()
            ),
        });
    }
    if weights.size() == 0 {
        return Err(Error::InvalidArgument {
            op,
            detail: "weights are empty".into(),
        });
    }
    let nd = input.ndim();
    let mut w = host_values(weights)?;
    let mut origins = opts.origins_for(op, nd)?;
    if convolution {
        w.reverse();
        for (o, &s) in origins.iter_mut().zip(weights.shape()) {
            *o = mirrored_origin(op, *o, s)?;
        }
    }
    // Zero taps are left out, as SciPy does.
    let mask: Vec<f64> = w
        .iter()
        .map(|v| if v.abs() > f64::EPSILON { 1.0 } else { 0.0 })
        .collect();
    let (offsets, kept) = window_offsets(op, weights.shape(), &mask, &origins)?;
    let taps: Vec<f64> = kept.iter().map(|&k| w[k]).collect();
    let x = contiguous_as(input, float_dtype(input))?;
    if taps.is_empty() {
        // Weights that are all zero: a sum of nothing, 0 everywhere (the
        // backends are not asked for a window without taps).
        return crate::zeros_like(&x);
    }
    let (line, offsets) = backend_window(&x, offsets, taps.len())?;
    let be = crate::backend::on(op, x.device())?;
    let win = Window {
        offsets: &offsets,
        mode: opts.mode.for_filters(),
        cval: opts.cval,
    };
    let s = be.correlate(op, line.view(), &win, &taps)?;
    Ok(wrap(s, x.shape(), x.dtype()))
}

/// N-dimensional correlation with `weights` of the input's rank (`scipy.ndimage.correlate`).
pub fn correlate(input: &Array, weights: &Array, opts: &FilterOptions) -> Result<Array> {
    correlate_impl("ndimage.correlate", input, weights, false, opts)
}

/// N-dimensional convolution with `weights` of the input's rank (`scipy.ndimage.convolve`).
pub fn convolve(input: &Array, weights: &Array, opts: &FilterOptions) -> Result<Array> {
    correlate_impl("ndimage.convolve", input, weights, true, opts)
}

/// The sampled Gaussian of `sigma` (normalised) or its `order`-th
/// derivative, over `-radius..=radius`, as SciPy builds it.
pub(crate) fn gaussian_kernel(sigma: f64, order: usize, radius: usize) -> Vec<f64> {
    let s2 = sigma * sigma;
    let r = radius as i64;
    let xs: Vec<f64> = (-r..=r).map(|x| x as f64).collect();
    let mut phi: Vec<f64> = xs.iter().map(|x| (-0.5 / s2 * x * x).exp()).collect();
    let total: f64 = phi.iter().sum();
    phi.iter_mut().for_each(|p| *p /= total);
    if order == 0 {
        return phi;
    }
    // q(x) phi(x) is the derivative; q' = D q + P q with D the derivative
    // of the polynomial and P the multiplication by -x / sigma^2.
    let mut q = vec![0.0; order + 1];
    q[0] = 1.0;
    for _ in 0..order {
        let mut next = vec![0.0; order + 1];
        for (i, &c) in q.iter().enumerate() {
            if i > 0 {
                next[i - 1] += i as f64 * c;
            }
            if i < order {
                next[i + 1] -= c / s2;
            }
        }
        q = next;
    }
    xs.iter()
        .zip(&phi)
        .map(|(&x, &p)| {
            let poly: f64 = q
                .iter()
                .enumerate()
                .map(|(i, c)| c * x.powi(i as i32))
                .sum();
            poly * p
        })
        .collect()
}

fn check_sigma(op: &'static str, sigma: f64, truncate: f64) -> Result<usize> {
    if !(sigma.is_finite() && sigma >= 0.0 && truncate.is_finite() && truncate >= 0.0) {
        return Err(Error::InvalidArgument {
            op,
            detail: format!(
                "sigma {sigma} and truncate {truncate} must be finite and non-negative"
            ),
        });
    }
    let radius = (truncate * sigma + 0.5) as usize;
    // The kernel has 2 radius + 1 taps: refuse one that cannot be held.
    if radius > super::MAX_WINDOW / 2 {
        return Err(Error::InvalidArgument {
            op,
            detail: format!(
                "sigma {sigma} with truncate {truncate} gives a kernel above {} taps, the longest supported",
                super::MAX_WINDOW
            ),
        });
    }
    Ok(radius)
}

fn gaussian_pass(
    op: &'static str,
    x: &Array,
    sigma: f64,
    axis: usize,
    order: usize,
    opts: &FilterOptions,
) -> Result<Array> {
    let radius = check_sigma(op, sigma, opts.truncate)?;
    let mut w = gaussian_kernel(sigma, order, radius);
    w.reverse();
    line_pass(op, x, axis, &w, radius as i64, LineOp::Correlate, opts)
}

/// One-dimensional Gaussian filter (or its derivative of `order`) along
/// `axis` (`scipy.ndimage.gaussian_filter1d`); the kernel reaches
/// `opts.truncate` standard deviations.
pub fn gaussian_filter1d(
    input: &Array,
    sigma: f64,
    axis: isize,
    order: usize,
    opts: &FilterOptions,
) -> Result<Array> {
    let op = "ndimage.gaussian_filter1d";
    check_input(op, input)?;
    let axis = norm_axis(op, axis, input.ndim())?;
    let x = contiguous_as(input, float_dtype(input))?;
    gaussian_pass(op, &x, sigma, axis, order, opts)
}

fn gaussian_impl(
    op: &'static str,
    input: &Array,
    sigma: &[f64],
    order: &[usize],
    opts: &FilterOptions,
) -> Result<Array> {
    check_input(op, input)?;
    let nd = input.ndim();
    let sigmas = per_axis(op, "sigma", sigma, nd)?;
    let orders = per_axis(op, "order", order, nd)?;
    let mut x = contiguous_as(input, float_dtype(input))?;
    for axis in 0..nd {
        check_sigma(op, sigmas[axis], opts.truncate)?;
        if sigmas[axis] > 1e-15 {
            x = gaussian_pass(op, &x, sigmas[axis], axis, orders[axis], opts)?;
        }
    }
    Ok(x)
}

/// Multidimensional Gaussian filter: one 1-D pass per axis with `sigma`
/// and derivative `order` (one value for every axis or one per axis)
/// (`scipy.ndimage.gaussian_filter`).
pub fn gaussian_filter(
    input: &Array,
    sigma: &[f64],
    order: &[usize],
    opts: &FilterOptions,
) -> Result<Array> {
    gaussian_impl("ndimage.gaussian_filter", input, sigma, order, opts)
}

/// One-dimensional moving average of `size` samples along `axis` (`scipy.ndimage.uniform_filter1d`).
pub fn uniform_filter1d(
    input: &Array,
    size: usize,
    axis: isize,
    opts: &FilterOptions,
) -> Result<Array> {
    let op = "ndimage.uniform_filter1d";
    check_input(op, input)?;
    let axis = norm_axis(op, axis, input.ndim())?;
    if size == 0 {
        return Err(Error::InvalidArgument {
            op,
            detail: "size 0; give at least 1".into(),
        });
    }
    check_extents(op, &[size])?;
    let center = center_of(op, size, first_origin(op, opts)?)?;
    let x = contiguous_as(input, float_dtype(input))?;
    line_pass(
        op,
        &x,
        axis,
        &vec![1.0 / size as f64; size],
        center,
        LineOp::Correlate,
        opts,
    )
}

/// Multidimensional moving average over a box of `size` (one or per axis) (`scipy.ndimage.uniform_filter`).
pub fn uniform_filter(input: &Array, size: &[usize], opts: &FilterOptions) -> Result<Array> {
    let op = "ndimage.uniform_filter";
    check_input(op, input)?;
    let nd = input.ndim();
    let sizes = per_axis(op, "size", size, nd)?;
    let origins = opts.origins_for(op, nd)?;
    check_extents(op, &sizes)?;
    let mut x = contiguous_as(input, float_dtype(input))?;
    for axis in 0..nd {
        let n = sizes[axis];
        // An axis of size 0 or 1 is left as it is, as SciPy does; its
        // origin must still fit a window of one.
        center_of(op, n.max(1), origins[axis])?;
        if n > 1 {
            let center = center_of(op, n, origins[axis])?;
            x = line_pass(
                op,
                &x,
                axis,
                &vec![1.0 / n as f64; n],
                center,
                LineOp::Correlate,
                opts,
            )?;
        }
    }
    Ok(x)
}

/// A derivative along `axis` and smoothing along every other axis.
fn derivative(
    op: &'static str,
    input: &Array,
    axis: isize,
    diff: &[f64],
    smooth: &[f64],
    opts: &FilterOptions,
) -> Result<Array> {
    check_input(op, input)?;
    let nd = input.ndim();
    let axis = norm_axis(op, axis, nd)?;
    let x = contiguous_as(input, float_dtype(input))?;
    let mut out = line_pass(op, &x, axis, diff, 1, LineOp::Correlate, opts)?;
    for other in (0..nd).filter(|&d| d != axis) {
        out = line_pass(op, &out, other, smooth, 1, LineOp::Correlate, opts)?;
    }
    Ok(out)
}

/// Sobel derivative along `axis` (`scipy.ndimage.sobel`).
pub fn sobel(input: &Array, axis: isize, opts: &FilterOptions) -> Result<Array> {
    derivative(
        "ndimage.sobel",
        input,
        axis,
        &[-1.0, 0.0, 1.0],
        &[1.0, 2.0, 1.0],
        opts,
    )
}

/// Prewitt derivative along `axis` (`scipy.ndimage.prewitt`).
pub fn prewitt(input: &Array, axis: isize, opts: &FilterOptions) -> Result<Array> {
    derivative(
        "ndimage.prewitt",
        input,
        axis,
        &[-1.0, 0.0, 1.0],
        &[1.0, 1.0, 1.0],
        opts,
    )
}

/// Sum over axes of `f(axis)`.
fn sum_over_axes(nd: usize, mut f: impl FnMut(usize) -> Result<Array>) -> Result<Array> {
    let mut acc = f(0)?;
    for axis in 1..nd {
        acc = crate::add(&acc, &f(axis)?)?;
    }
    Ok(acc)
}

/// Discrete Laplacian, the sum of second differences `[1, -2, 1]` along every axis (`scipy.ndimage.laplace`).
pub fn laplace(input: &Array, opts: &FilterOptions) -> Result<Array> {
    let op = "ndimage.laplace";
    check_input(op, input)?;
    let x = contiguous_as(input, float_dtype(input))?;
    if x.ndim() == 0 {
        return Ok(x);
    }
    sum_over_axes(x.ndim(), |axis| {
        line_pass(op, &x, axis, &[1.0, -2.0, 1.0], 1, LineOp::Correlate, opts)
    })
}

/// Laplacian of Gaussian: the sum over axes of second Gaussian derivatives (`scipy.ndimage.gaussian_laplace`).
pub fn gaussian_laplace(input: &Array, sigma: &[f64], opts: &FilterOptions) -> Result<Array> {
    let op = "ndimage.gaussian_laplace";
    check_input(op, input)?;
    let nd = input.ndim();
    if nd == 0 {
        return contiguous_as(input, float_dtype(input));
    }
    sum_over_axes(nd, |axis| {
        let mut order = vec![0usize; nd];
        order[axis] = 2;
        gaussian_impl(op, input, sigma, &order, opts)
    })
}

/// Gradient magnitude from first Gaussian derivatives along every axis
/// (`scipy.ndimage.gaussian_gradient_magnitude`).
pub fn gaussian_gradient_magnitude(
    input: &Array,
    sigma: &[f64],
    opts: &FilterOptions,
) -> Result<Array> {
    let op = "ndimage.gaussian_gradient_magnitude";
    check_input(op, input)?;
    let nd = input.ndim();
    if nd == 0 {
        return contiguous_as(input, float_dtype(input));
    }
    let sq = sum_over_axes(nd, |axis| {
        let mut order = vec![0usize; nd];
        order[axis] = 1;
        let g = gaussian_impl(op, input, sigma, &order, opts)?;
        crate::multiply(&g, &g)
    })?;
    crate::sqrt(&sq)
}
