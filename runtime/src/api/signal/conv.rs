//! Convolution, correlation and median filters (`scipy.signal.convolve`,
//! `convolve2d`, `fftconvolve`, `medfilt`, ...).

use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::dtype::{promote_types, DType};
use crate::core::element::Scalar;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::ops::signal::Conv;

use super::{Boundary, Method, Mode};

/// Checks the ranks match and, for `Valid`, whether the inputs swap
/// (SciPy's `_inputs_swap_needed`).
fn swap_needed(op: &'static str, mode: Mode, s1: &[usize], s2: &[usize]) -> Result<bool> {
    if s1.len() != s2.len() {
        return Err(Error::Shape {
            op,
            detail: format!(
                "in1 and in2 should have the same dimensionality, not {} and {}",
                fmt_shape(s1),
                fmt_shape(s2)
            ),
        });
    }
    if mode != Mode::Valid {
        return Ok(false);
    }
    let ok1 = s1.iter().zip(s2).all(|(a, b)| a >= b);
    let ok2 = s1.iter().zip(s2).all(|(a, b)| b >= a);
    if !(ok1 || ok2) {
        return Err(Error::Shape {
            op,
            detail: format!(
                "for 'valid' mode, one must be at least as large as the other in every dimension; got {} and {}",
                fmt_shape(s1),
                fmt_shape(s2)
            ),
        });
    }
    Ok(!ok1)
}

/// Output shape and offsets of `mode` for image `s1` and kernel `s2`
/// (`same_even_shift`: correlate2d's centring for even kernels).
fn geometry(mode: Mode, s1: &[usize], s2: &[usize], corr2d: bool) -> (Vec<usize>, Vec<isize>) {
    match mode {
        Mode::Full => (
            s1.iter().zip(s2).map(|(a, b)| a + b - 1).collect(),
            vec![0; s1.len()],
        ),
        Mode::Same => (
            s1.to_vec(),
            s2.iter()
                .map(|&m| if corr2d { m / 2 } else { (m - 1) / 2 } as isize)
                .collect(),
        ),
        Mode::Valid => (
            s1.iter().zip(s2).map(|(a, b)| a + 1 - b).collect(),
            s2.iter().map(|&m| m as isize - 1).collect(),
        ),
    }
}

/// A copy of `k` reversed along every axis, conjugated when complex.
fn reverse_conj(k: &Array) -> Result<Array> {
    reversed(k, true)
}

/// A copy of `k` reversed along every axis (conjugated when `conj`), on its device.
fn reversed(k: &Array, conj: bool) -> Result<Array> {
    let st = k.strides().to_vec();
    let mut off = k.layout().offset() as isize;
    for (&n, &s) in k.shape().iter().zip(&st) {
        if n > 0 {
            off += (n as isize - 1) * s;
        }
    }
    let l = crate::core::layout::Layout::from_parts(
        k.shape().to_vec(),
        st.iter().map(|s| -s).collect(),
        off.max(0) as usize,
    );
    let r = if k.size() == 0 {
        k.clone()
    } else {
        k.with_layout(l)
    };
    if k.dtype().is_complex() && conj {
        // A new array on k's device (the GPU conjugates in place of the host).
        return crate::api::linalg::matmul::conj(&r);
    }
    r.copy()
}

/// Convolution with geometry `(out shape, offsets)` on the inputs' device,
/// direct or through FFTs.
#[allow(clippy::too_many_arguments)]
fn conv_on_device(
    op: &'static str,
    a: &Array,
    k: &Array,
    osh: &[usize],
    off: &[isize],
    bound: Boundary,
    fill: Scalar,
    out_dt: DType,
    fft: bool,
) -> Result<Array> {
    let be = crate::backend::on(op, a.device())?;
    let c = Conv {
        osh,
        off,
        bound,
        fill,
        out_dt,
        fft,
    };
    let r = be.convolve(op, a.view(), k.view(), &c)?;
    Ok(Array::from_parts(r, Layout::contiguous(osh), out_dt))
}

fn conv_out_dtype(a: &Array, b: &Array) -> DType {
    promote_types(a.dtype(), b.dtype()).compute_dtype()
}

fn check_devices(op: &'static str, a: &Array, b: &Array) -> Result<()> {
    a.device().check_available(op)?;
    crate::api::shape::index::same_device(op, a, b)
}

/// N-dimensional convolution of `in1` and `in2` (`scipy.signal.convolve`);
/// the result dtype is their common type.
pub fn convolve(in1: &Array, in2: &Array, mode: Mode, method: Method) -> Result<Array> {
    let op = "convolve";
    check_devices(op, in1, in2)?;
    let swap = swap_needed(op, mode, in1.shape(), in2.shape())?;
    if in1.ndim() == 0 {
        return crate::api::elementwise::multiply(in1, in2);
    }
    let out_dt = conv_out_dtype(in1, in2);
    if in1.size() == 0 || in2.size() == 0 {
        return with_device(in1.device(), || crate::zeros([0usize], out_dt));
    }
    let (a, k) = if swap { (in2, in1) } else { (in1, in2) };
    let method = match method {
        Method::Auto => choose_conv_method(a, k, mode),
        m => m,
    };
    if method == Method::Fft {
        return fft_conv(op, a, k, mode, out_dt, in1.shape());
    }
    let (osh, off) = geometry(mode, a.shape(), k.shape(), false);
    let osh = if mode == Mode::Same {
        in1.shape().to_vec()
    } else {
        osh
    };
    let zero = Scalar::Float(0.0);
    conv_on_device(op, a, k, &osh, &off, Boundary::Fill, zero, out_dt, false)
}

/// N-dimensional cross-correlation (`scipy.signal.correlate`):
/// `convolve(in1, reverse(conj(in2)))`.
pub fn correlate(in1: &Array, in2: &Array, mode: Mode, method: Method) -> Result<Array> {
    check_devices("correlate", in1, in2)?;
    if in1.ndim() != in2.ndim() {
        swap_needed("correlate", mode, in1.shape(), in2.shape())?;
    }
    convolve(in1, &reverse_conj(in2)?, mode, method)
}

/// Which of direct and FFT convolution is expected to be faster
/// (`scipy.signal.choose_conv_method`; integers always direct). On the GPU
/// 1-D and 2-D real inputs always take the direct kernel.
pub fn choose_conv_method(in1: &Array, in2: &Array, mode: Mode) -> Method {
    let dt = promote_types(in1.dtype(), in2.dtype());
    if !dt.is_inexact() || in1.ndim() != in2.ndim() {
        return Method::Direct;
    }
    // A cost model of the devices, not a dispatch: CUDA's tiled direct
    // kernel beats FFTs for 1-D and 2-D real inputs.
    if in1.device().is_cuda() && in1.ndim() <= 2 && !dt.is_complex() {
        return Method::Direct;
    }
    let s1: usize = in1.size();
    let s2: usize = in2.size();
    let out: usize = match mode {
        Mode::Full => in1
            .shape()
            .iter()
            .zip(in2.shape())
            .map(|(a, b)| (a + b).saturating_sub(1))
            .product(),
        Mode::Same => s1,
        Mode::Valid => in1
            .shape()
            .iter()
            .zip(in2.shape())
            .map(|(a, b)| a.max(b) - a.min(b) + 1)
            .product(),
    };
    let direct = (out as f64) * (s1.min(s2) as f64);
    let full: f64 = in1
        .shape()
        .iter()
        .zip(in2.shape())
        .map(|(a, b)| (a + b).saturating_sub(1) as f64)
        .product();
    let fft = 3.0 * full * full.max(2.0).log2();
    if direct > 4.0 * fft {
        Method::Fft
    } else {
        Method::Direct
    }
}

/// 2-D convolution with a boundary rule (`scipy.signal.convolve2d`):
/// positions outside `in1` are `fillvalue` (`Fill`), periodic (`Wrap`) or
/// mirrored (`Symm`).
pub fn convolve2d(
    in1: &Array,
    in2: &Array,
    mode: Mode,
    boundary: Boundary,
    fillvalue: impl Into<Scalar>,
) -> Result<Array> {
    conv2d_common(
        "convolve2d",
        in1,
        in2,
        mode,
        boundary,
        fillvalue.into(),
        false,
    )
}

/// 2-D cross-correlation with a boundary rule (`scipy.signal.correlate2d`).
pub fn correlate2d(
    in1: &Array,
    in2: &Array,
    mode: Mode,
    boundary: Boundary,
    fillvalue: impl Into<Scalar>,
) -> Result<Array> {
    conv2d_common(
        "correlate2d",
        in1,
        in2,
        mode,
        boundary,
        fillvalue.into(),
        true,
    )
}

fn conv2d_common(
    op: &'static str,
    in1: &Array,
    in2: &Array,
    mode: Mode,
    boundary: Boundary,
    fill: Scalar,
    corr: bool,
) -> Result<Array> {
    check_devices(op, in1, in2)?;
    if in1.ndim() != 2 || in2.ndim() != 2 {
        return Err(Error::Shape {
            op,
            detail: format!(
                "in1 and in2 should both be 2-D arrays, not of shapes {} and {}",
                fmt_shape(in1.shape()),
                fmt_shape(in2.shape())
            ),
        });
    }
    if in1.size() == 0 || in2.size() == 0 {
        return Err(Error::Shape {
            op,
            detail: format!(
                "in1 and in2 must not be empty (shapes {} and {})",
                fmt_shape(in1.shape()),
                fmt_shape(in2.shape())
            ),
        });
    }
    let fc = fill.as_c64();
    if fc.im != 0.0 && !promote_types(in1.dtype(), in2.dtype()).is_complex() {
        return Err(Error::invalid(
            op,
            "a complex fillvalue needs complex inputs",
        ));
    }
    let swap = swap_needed(op, mode, in1.shape(), in2.shape())?;
    let (a, k) = if swap { (in2, in1) } else { (in1, in2) };
    let out_dt = conv_out_dtype(in1, in2);
    let kk = if corr { reverse_conj(k)? } else { k.clone() };
    let (osh, off) = geometry(mode, a.shape(), k.shape(), corr);
    let r = conv_on_device(op, a, &kk, &osh, &off, boundary, fill, out_dt, false)?;
    if corr && swap {
        // SciPy reverses the swapped correlation.
        return reversed(&r, false);
    }
    Ok(r)
}

/// Convolution through FFTs (1-D and 2-D real on the GPU use the direct kernel).
fn fft_conv(
    op: &'static str,
    a: &Array,
    k: &Array,
    mode: Mode,
    out_dt: DType,
    s1: &[usize],
) -> Result<Array> {
    let (osh, off) = geometry(mode, a.shape(), k.shape(), false);
    let osh = if mode == Mode::Same { s1.to_vec() } else { osh };
    let zero = Scalar::Float(0.0);
    conv_on_device(op, a, k, &osh, &off, Boundary::Fill, zero, out_dt, true)
}

/// Convolution through FFTs (`scipy.signal.fftconvolve`, all axes); on the
/// GPU, 1-D and 2-D real inputs use the direct tiled kernel (same result to rounding).
pub fn fftconvolve(in1: &Array, in2: &Array, mode: Mode) -> Result<Array> {
    convolve(in1, in2, mode, Method::Fft)
}

/// Overlap-add convolution (`scipy.signal.oaconvolve`): the same result as
/// [`fftconvolve`], computed the same way.
pub fn oaconvolve(in1: &Array, in2: &Array, mode: Mode) -> Result<Array> {
    convolve(in1, in2, mode, Method::Fft)
}

/// The median of each window of `kernel_size` (odd sizes; default 3 along
/// every axis) with zero padding (`scipy.signal.medfilt`); same dtype.
pub fn medfilt(volume: &Array, kernel_size: Option<&[usize]>) -> Result<Array> {
    let op = "medfilt";
    let nd = volume.ndim();
    let ks: Vec<usize> = match kernel_size {
        None => vec![3; nd],
        Some([k]) => vec![*k; nd],
        Some(k) => k.to_vec(),
    };
    if ks.len() != nd {
        return Err(Error::Shape {
            op,
            detail: format!(
                "kernel_size has {} entries but the volume has {nd} dimensions",
                ks.len()
            ),
        });
    }
    if let Some(k) = ks.iter().find(|&&k| k % 2 == 0) {
        return Err(Error::invalid(
            op,
            format!("each element of kernel_size should be odd, got {k}"),
        ));
    }
    let dt = volume.dtype();
    if dt.is_complex() || dt == DType::Bool {
        return Err(Error::DType {
            op,
            detail: format!("the median filter takes real numbers, not {dt}"),
        });
    }
    let r = crate::backend::on(op, volume.device())?.medfilt(op, volume.view(), &ks)?;
    Ok(Array::from_parts(r, Layout::contiguous(volume.shape()), dt))
}

/// The median filter of a 2-D array (`scipy.signal.medfilt2d`, zero padding,
/// default window 3 x 3).
pub fn medfilt2d(input: &Array, kernel_size: Option<[usize; 2]>) -> Result<Array> {
    if input.ndim() != 2 {
        return Err(Error::Shape {
            op: "medfilt2d",
            detail: format!(
                "the input must be 2-D, not of shape {}",
                fmt_shape(input.shape())
            ),
        });
    }
    let ks = kernel_size.unwrap_or([3, 3]);
    medfilt(input, Some(&ks))
}
