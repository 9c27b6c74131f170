//! Analytic signals (`scipy.signal.hilbert`, `hilbert2`): the FFT, the
//! negative frequencies zeroed and the positive ones doubled by one
//! broadcast multiply, and the inverse FFT, all on the input's device.

use crate::api::elementwise::multiply;
use crate::api::fft::{fft2_with, fft_with, ifft2_with, ifft_with, FftOptions, FftnOptions};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::normalize_axis;

/// The one-sided gain of an `n`-point spectrum: 1 at DC (and Nyquist), 2
/// for positive frequencies, 0 for negative ones.
fn gain(n: usize) -> Vec<f64> {
    let mut h = vec![0.0; n];
    if n == 0 {
        return h;
    }
    h[0] = 1.0;
    if n % 2 == 0 {
        h[n / 2] = 1.0;
        h[1..n / 2].iter_mut().for_each(|v| *v = 2.0);
    } else {
        h[1..n.div_ceil(2)].iter_mut().for_each(|v| *v = 2.0);
    }
    h
}

fn check_real(op: &'static str, x: &Array) -> Result<DType> {
    x.device().check_available(op)?;
    if x.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: format!("x must be real, not {}", x.dtype()),
        });
    }
    Ok(if x.dtype() == DType::Float32 {
        DType::Float32
    } else {
        DType::Float64
    })
}

/// `v` as an array of `dt` shaped to broadcast along `axis` of an `nd`-D array.
fn along(v: &[f64], axis: usize, nd: usize, x: &Array, dt: DType) -> Result<Array> {
    let mut shape = vec![1; nd];
    shape[axis] = v.len();
    Array::from_host_slice(v, &[v.len()], x.device())?
        .astype(dt)?
        .reshape(shape)
}

/// The analytic signal of real `x` along `axis` (`scipy.signal.hilbert`):
/// `x + i H(x)`, with the FFT length `n` (default the axis length).
pub fn hilbert(x: &Array, n: Option<usize>, axis: isize) -> Result<Array> {
    let op = "hilbert";
    let dt = check_real(op, x)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
    let n = n.unwrap_or(x.shape()[ax]);
    if n == 0 {
        return Err(Error::invalid(op, "N must be positive"));
    }
    let o = FftOptions::new().n(n).axis(ax as isize);
    let xf = fft_with(&x.astype(dt)?, &o)?;
    let h = along(&gain(n), ax, x.ndim(), x, dt)?;
    ifft_with(&multiply(&xf, &h)?, &FftOptions::new().axis(ax as isize))
}

/// SciPy 1.17's gain of `hilbert2` along one axis: 1 at DC, 2 below
/// `(n + 1) / 2`, 0 from there (the Nyquist bin of an even length included).
fn gain2(n: usize) -> Vec<f64> {
    let k = n.div_ceil(2);
    (0..n)
        .map(|i| match i {
            0 => 1.0,
            i if i < k => 2.0,
            _ => 0.0,
        })
        .collect()
}

/// The 2-D analytic signal of real `x` over `axes` (`scipy.signal.hilbert2`),
/// with FFT shape `n` (default the axes' lengths). `x` has at least 2 dimensions.
pub fn hilbert2(x: &Array, n: Option<[usize; 2]>, axes: [isize; 2]) -> Result<Array> {
    let op = "hilbert2";
    let dt = check_real(op, x)?;
    if x.ndim() < 2 {
        return Err(Error::shape(
            op,
            format!("x must have at least 2 dimensions, not {}", x.ndim()),
        ));
    }
    let a0 = normalize_axis(op, axes[0], x.ndim())?;
    let a1 = normalize_axis(op, axes[1], x.ndim())?;
    if a0 == a1 {
        return Err(Error::invalid(
            op,
            format!("axes must be two distinct axes, not {axes:?}"),
        ));
    }
    let n = n.unwrap_or([x.shape()[a0], x.shape()[a1]]);
    if n[0] == 0 || n[1] == 0 {
        return Err(Error::invalid(
            op,
            format!("N must hold two positive integers, not {n:?}"),
        ));
    }
    let ax = vec![a0 as isize, a1 as isize];
    let xf = fft2_with(
        &x.astype(dt)?,
        &FftnOptions::new().s(n.to_vec()).axes(ax.clone()),
    )?;
    let h0 = along(&gain2(n[0]), a0, x.ndim(), x, dt)?;
    let h1 = along(&gain2(n[1]), a1, x.ndim(), x, dt)?;
    let h = multiply(&h0, &h1)?;
    ifft2_with(&multiply(&xf, &h)?, &FftnOptions::new().axes(ax))
}
