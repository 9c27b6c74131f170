//! Signal processing (`cupyx.scipy.signal`): convolution and correlation
//! (N-D, and 2-D with boundaries), FFT convolution, median filters, IIR/FIR
//! filtering, windows and spectral estimates, with SciPy's semantics and
//! defaults.
//!
//! GPU paths: `convolve2d` / `correlate2d`, and `convolve` / `correlate` /
//! `fftconvolve` / `oaconvolve` of 1-D and 2-D real float32/float64 arrays
//! run the tiled shared-memory kernel of `cuda::conv` (the FFT functions
//! compute the same result directly: cp::fft was not available to this
//! module); `medfilt` / `medfilt2d` of real 1-D and 2-D arrays with windows
//! of at most 49 elements run a sorting-network kernel. The other functions
//! (and complex inputs) compute on the host and return their result on the
//! input's device.
//!
//! ```
//! use cuprite as cp;
//! use cp::signal::{convolve, Method, Mode};
//! let x = cp::asarray(vec![1.0f64, 2.0, 3.0])?;
//! let h = cp::asarray(vec![0.0f64, 1.0, 0.5])?;
//! let y = convolve(&x, &h, Mode::Full, Method::Auto)?;
//! assert_eq!(y.to_vec::<f64>()?, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
//! # Ok::<(), cp::Error>(())
//! ```

use num_complex::Complex64;
use num_traits::Zero;

use crate::backend::probe::{current_device, with_device};
use crate::core::array::Array;
use crate::core::dtype::{promote_types, DType};
use crate::core::element::Scalar;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::ops::signal::{Conv, Lfilter};

/// Output size of a convolution or correlation (SciPy's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Every point where the inputs overlap (`s1 + s2 - 1`).
    Full,
    /// The size of the first input, centred on the full result.
    Same,
    /// Only points where one input covers the other completely.
    Valid,
}

impl Mode {
    /// `"full"`, `"same"` or `"valid"`.
    pub fn parse(s: &str) -> Result<Mode> {
        match s {
            "full" => Ok(Mode::Full),
            "same" => Ok(Mode::Same),
            "valid" => Ok(Mode::Valid),
            _ => Err(Error::InvalidArgument {
                op: "signal mode",
                detail: format!("acceptable mode flags are 'valid', 'same', or 'full', not {s:?}"),
            }),
        }
    }
}

pub use crate::ops::signal::Boundary;

impl Boundary {
    /// `"fill"`, `"wrap"`, `"symm"` (also `"circular"`, `"symmetric"`).
    pub fn parse(s: &str) -> Result<Boundary> {
        match s {
            "fill" | "pad" => Ok(Boundary::Fill),
            "wrap" | "circular" => Ok(Boundary::Wrap),
            "symm" | "symmetric" => Ok(Boundary::Symm),
            _ => Err(Error::InvalidArgument {
                op: "signal boundary",
                detail: format!(
                    "acceptable boundary flags are 'fill', 'wrap' and 'symm', not {s:?}"
                ),
            }),
        }
    }
}

/// How `convolve` / `correlate` compute (SciPy's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Direct or FFT by an estimate of their cost.
    Auto,
    /// The sum of products at every output point.
    Direct,
    /// Through FFTs (`fftconvolve`).
    Fft,
}

impl Method {
    /// `"auto"`, `"direct"` or `"fft"`.
    pub fn parse(s: &str) -> Result<Method> {
        match s {
            "auto" => Ok(Method::Auto),
            "direct" => Ok(Method::Direct),
            "fft" => Ok(Method::Fft),
            _ => Err(Error::InvalidArgument {
                op: "signal method",
                detail: format!(
                    "acceptable method flags are 'auto', 'direct', or 'fft', not {s:?}"
                ),
            }),
        }
    }
}

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
            .map(|(a, b)| a + b - 1)
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
        .map(|(a, b)| (a + b - 1) as f64)
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

/// Filters `x` along `axis` with the rational transfer function `b / a`
/// (direct form II transposed, `scipy.signal.lfilter`). With initial
/// conditions `zi` (length `max(len(a), len(b)) - 1` along `axis`) the
/// final conditions are returned too.
pub fn lfilter(
    b: &Array,
    a: &Array,
    x: &Array,
    axis: isize,
    zi: Option<&Array>,
) -> Result<(Array, Option<Array>)> {
    let op = "lfilter";
    x.device().check_available(op)?;
    if b.ndim() != 1 || a.ndim() != 1 || b.size() == 0 || a.size() == 0 {
        return Err(Error::Shape {
            op,
            detail: format!(
                "b and a must be non-empty 1-D arrays, not of shapes {} and {}",
                fmt_shape(b.shape()),
                fmt_shape(a.shape())
            ),
        });
    }
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    let ax = crate::core::layout::normalize_axis(op, axis, x.ndim())?;
    let mut dt = promote_types(promote_types(b.dtype(), a.dtype()), x.dtype());
    if let Some(z) = zi {
        dt = promote_types(dt, z.dtype());
    }
    let dt = match dt {
        d if d.is_complex() || d == DType::Float64 || d == DType::Float32 => d,
        _ => DType::Float64,
    };
    let sh = x.shape().to_vec();
    let m = a.size().max(b.size());
    let mut zsh = sh.clone();
    zsh[ax] = m - 1;
    if let Some(z) = zi {
        if z.shape() != zsh.as_slice() {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "zi must have shape {} (x's shape with max(len(a), len(b)) - 1 along axis), not {}",
                    fmt_shape(&zsh),
                    fmt_shape(z.shape())
                ),
            });
        }
    }
    let be = crate::backend::on(op, x.device())?;
    let f = Lfilter {
        b: b.view(),
        a: a.view(),
        x: x.view(),
        zi: zi.map(Array::view),
        axis: ax,
        dt,
    };
    let (y, zf) = be.lfilter(&f)?;
    let zf = zf.map(|z| Array::from_parts(z, Layout::contiguous(&zsh), dt));
    Ok((Array::from_parts(y, Layout::contiguous(&sh), dt), zf))
}

/// A window function for [`get_window`] and [`firwin`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Window {
    /// Rectangular (all ones).
    Boxcar,
    /// Hann (raised cosine).
    Hann,
    /// Hamming.
    Hamming,
    /// Blackman.
    Blackman,
    /// Tukey (tapered cosine) with the given taper fraction.
    Tukey(f64),
}

fn general_cosine(m: usize, coefs: &[f64], sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    let mm = if sym { m } else { m + 1 };
    let mut w: Vec<f64> = (0..mm)
        .map(|i| {
            let fac =
                -std::f64::consts::PI + 2.0 * std::f64::consts::PI * i as f64 / (mm - 1) as f64;
            coefs
                .iter()
                .enumerate()
                .map(|(k, c)| c * (k as f64 * fac).cos())
                .sum()
        })
        .collect();
    w.truncate(m);
    w
}

fn tukey(m: usize, alpha: f64, sym: bool) -> Vec<f64> {
    if m <= 1 {
        return vec![1.0; m];
    }
    if alpha <= 0.0 {
        return vec![1.0; m];
    }
    if alpha >= 1.0 {
        return general_cosine(m, &[0.5, 0.5], sym);
    }
    let mm = if sym { m } else { m + 1 };
    let width = (alpha * (mm - 1) as f64 / 2.0).floor() as usize;
    let pi = std::f64::consts::PI;
    let mut w: Vec<f64> = (0..mm)
        .map(|n| {
            let nf = n as f64;
            if n <= width {
                0.5 * (1.0 + (pi * (-1.0 + 2.0 * nf / alpha / (mm - 1) as f64)).cos())
            } else if n < mm - width - 1 {
                1.0
            } else {
                0.5 * (1.0 + (pi * (-2.0 / alpha + 1.0 + 2.0 * nf / alpha / (mm - 1) as f64)).cos())
            }
        })
        .collect();
    w.truncate(m);
    w
}

fn window_values(w: Window, m: usize, sym: bool) -> Vec<f64> {
    match w {
        Window::Boxcar => vec![1.0; m],
        Window::Hann => general_cosine(m, &[0.5, 0.5], sym),
        Window::Hamming => general_cosine(m, &[0.54, 0.46], sym),
        Window::Blackman => general_cosine(m, &[0.42, 0.50, 0.08], sym),
        Window::Tukey(a) => tukey(m, a, sym),
    }
}

/// A window of `nx` points (`scipy.signal.get_window`): periodic (for
/// spectral analysis) when `fftbins`, else symmetric. float64 on the current device.
pub fn get_window(window: Window, nx: usize, fftbins: bool) -> Result<Array> {
    Array::from_host_slice(
        &window_values(window, nx, !fftbins),
        &[nx],
        current_device(),
    )
}

/// The Hann window of `m` points (`scipy.signal.windows.hann(m, sym)`).
pub fn hann(m: usize, sym: bool) -> Result<Array> {
    get_window(Window::Hann, m, !sym)
}

/// The symmetric Hann window of `m` points (`numpy.hanning(m)`).
pub fn hanning(m: usize) -> Result<Array> {
    hann(m, true)
}

/// Options of [`firwin`] beyond the taps and cutoffs (SciPy's defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FirwinOptions {
    /// The window (default Hamming).
    pub window: Window,
    /// Whether the gain at frequency 0 is 1 (lowpass / bandstop).
    pub pass_zero: bool,
    /// Scale so the gain at the centre of the first passband is 1.
    pub scale: bool,
    /// Sampling frequency (default 2, so cutoffs are fractions of Nyquist).
    pub fs: f64,
}

impl Default for FirwinOptions {
    fn default() -> Self {
        FirwinOptions {
            window: Window::Hamming,
            pass_zero: true,
            scale: true,
            fs: 2.0,
        }
    }
}

/// A linear-phase FIR filter of `numtaps` taps by the window method
/// (`scipy.signal.firwin(numtaps, cutoff, ...)`); float64 on the current device.
pub fn firwin(numtaps: usize, cutoff: &[f64], opts: FirwinOptions) -> Result<Array> {
    let op = "firwin";
    let nyq = 0.5 * opts.fs;
    if cutoff.is_empty() {
        return Err(Error::invalid(
            op,
            "at least one cutoff frequency must be given",
        ));
    }
    if numtaps == 0 {
        return Err(Error::invalid(op, "numtaps must be at least 1"));
    }
    let c: Vec<f64> = cutoff.iter().map(|x| x / nyq).collect();
    if c.iter().any(|&x| !(x > 0.0 && x < 1.0)) {
        return Err(Error::invalid(op, format!("invalid cutoff frequency {cutoff:?}: frequencies must be greater than 0 and less than fs/2 = {nyq}")));
    }
    if c.windows(2).any(|w| w[1] <= w[0]) {
        return Err(Error::invalid(
            op,
            "invalid cutoff frequencies: they must be strictly increasing",
        ));
    }
    let pass_nyquist = (c.len() % 2 == 1) ^ opts.pass_zero;
    if pass_nyquist && numtaps % 2 == 0 {
        return Err(Error::invalid(op, "a filter with an even number of coefficients must have zero response at the Nyquist frequency"));
    }
    let mut edges = Vec::new();
    if opts.pass_zero {
        edges.push(0.0);
    }
    edges.extend_from_slice(&c);
    if pass_nyquist {
        edges.push(1.0);
    }
    let alpha = 0.5 * (numtaps as f64 - 1.0);
    let m: Vec<f64> = (0..numtaps).map(|i| i as f64 - alpha).collect();
    let sinc = |x: f64| {
        if x == 0.0 {
            1.0
        } else {
            (std::f64::consts::PI * x).sin() / (std::f64::consts::PI * x)
        }
    };
    let mut h = vec![0.0f64; numtaps];
    for band in edges.chunks(2) {
        let (l, r) = (band[0], band[1]);
        for (hi, &mi) in h.iter_mut().zip(&m) {
            *hi += r * sinc(r * mi) - l * sinc(l * mi);
        }
    }
    let win = window_values(opts.window, numtaps, true);
    for (hi, w) in h.iter_mut().zip(&win) {
        *hi *= w;
    }
    if opts.scale {
        let (l, r) = (edges[0], edges[1]);
        let f = if l == 0.0 {
            0.0
        } else if r == 1.0 {
            1.0
        } else {
            0.5 * (l + r)
        };
        let s: f64 = h
            .iter()
            .zip(&m)
            .map(|(hi, mi)| hi * (std::f64::consts::PI * mi * f).cos())
            .sum();
        for hi in h.iter_mut() {
            *hi /= s;
        }
    }
    Array::from_host_slice(&h, &[numtaps], current_device())
}

/// Detrending of each segment before the FFT in spectral estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detrend {
    /// None.
    None,
    /// Subtract the mean.
    Constant,
    /// Subtract the least-squares line.
    Linear,
}

/// Scaling of spectral estimates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scaling {
    /// Power spectral density (V**2/Hz).
    Density,
    /// Power spectrum (V**2).
    Spectrum,
}

/// Options of [`periodogram`] and [`spectrogram`]; `None` fields take
/// SciPy's defaults (window: boxcar for periodogram, Tukey(0.25) for
/// spectrogram; nperseg 256 clipped to the input; noverlap nperseg / 8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpectralOptions {
    /// Sampling frequency (default 1).
    pub fs: f64,
    pub window: Option<Window>,
    pub nperseg: Option<usize>,
    pub noverlap: Option<usize>,
    pub nfft: Option<usize>,
    pub detrend: Detrend,
    pub scaling: Scaling,
}

impl Default for SpectralOptions {
    fn default() -> Self {
        SpectralOptions {
            fs: 1.0,
            window: None,
            nperseg: None,
            noverlap: None,
            nfft: None,
            detrend: Detrend::Constant,
            scaling: Scaling::Density,
        }
    }
}

fn detrend_in_place(seg: &mut [f64], d: Detrend) {
    let n = seg.len() as f64;
    match d {
        Detrend::None => {}
        Detrend::Constant => {
            let mean = seg.iter().sum::<f64>() / n;
            seg.iter_mut().for_each(|x| *x -= mean);
        }
        Detrend::Linear => {
            if seg.len() < 2 {
                seg.iter_mut().for_each(|x| *x = 0.0);
                return;
            }
            let tm = (n - 1.0) / 2.0;
            let ym = seg.iter().sum::<f64>() / n;
            let (mut sxy, mut sxx) = (0.0, 0.0);
            for (i, &y) in seg.iter().enumerate() {
                sxy += (i as f64 - tm) * (y - ym);
                sxx += (i as f64 - tm) * (i as f64 - tm);
            }
            let slope = sxy / sxx;
            for (i, y) in seg.iter_mut().enumerate() {
                *y -= ym + slope * (i as f64 - tm);
            }
        }
    }
}

/// One-sided power of each segment of each lane: (freqs, times, values of
/// shape lanes x nfreq x nseg), SciPy's `_spectral_helper` for real input.
#[allow(clippy::type_complexity)]
fn spectral(
    op: &'static str,
    x: &Array,
    win: &[f64],
    noverlap: usize,
    nfft: usize,
    n_use: usize,
    o: &SpectralOptions,
) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>, Vec<usize>, usize, usize)> {
    let nperseg = win.len();
    let sh = x.shape().to_vec();
    let len = *sh.last().unwrap_or(&0);
    let n = len.min(n_use);
    let lanes: usize = sh[..sh.len() - 1].iter().product();
    if noverlap >= nperseg {
        return Err(Error::invalid(
            op,
            format!("noverlap ({noverlap}) must be less than nperseg ({nperseg})"),
        ));
    }
    if nfft < nperseg {
        return Err(Error::invalid(
            op,
            format!("nfft ({nfft}) must be greater than or equal to nperseg ({nperseg})"),
        ));
    }
    let step = nperseg - noverlap;
    let nseg = if n >= nperseg {
        (n - noverlap) / step
    } else {
        0
    };
    let nfreq = nfft / 2 + 1;
    let scale = match o.scaling {
        Scaling::Density => 1.0 / (o.fs * win.iter().map(|w| w * w).sum::<f64>()),
        Scaling::Spectrum => 1.0 / win.iter().sum::<f64>().powi(2),
    };
    let vals = crate::backend::fallback::fetch(op, x.device(), || x.gather_as::<f64>())?;
    let mut planner = rustfft::FftPlanner::<f64>::new();
    let fft = planner.plan_fft_forward(nfft);
    let mut out = vec![0.0f64; lanes * nfreq * nseg];
    let mut seg = vec![0.0f64; nperseg];
    let mut buf = vec![Complex64::zero(); nfft];
    for l in 0..lanes {
        for s in 0..nseg {
            seg.copy_from_slice(&vals[l * len + s * step..l * len + s * step + nperseg]);
            detrend_in_place(&mut seg, o.detrend);
            buf.iter_mut().for_each(|b| *b = Complex64::zero());
            for i in 0..nperseg {
                buf[i] = Complex64::new(seg[i] * win[i], 0.0);
            }
            fft.process(&mut buf);
            for f in 0..nfreq {
                let mut p = buf[f].norm_sqr() * scale;
                let edge = f == 0 || (nfft % 2 == 0 && f == nfreq - 1);
                if !edge {
                    p *= 2.0;
                }
                out[(l * nfreq + f) * nseg + s] = p;
            }
        }
    }
    let freqs: Vec<f64> = (0..nfreq).map(|f| f as f64 * o.fs / nfft as f64).collect();
    let times: Vec<f64> = (0..nseg)
        .map(|s| (nperseg as f64 / 2.0 + (s * step) as f64) / o.fs)
        .collect();
    Ok((freqs, times, out, sh, nfreq, nseg))
}

fn check_spectral_input(op: &'static str, x: &Array) -> Result<DType> {
    x.device().check_available(op)?;
    if x.ndim() == 0 {
        return Err(Error::shape(op, "x must have at least one dimension"));
    }
    if x.dtype().is_complex() {
        return Err(Error::DType {
            op,
            detail: "complex input (two-sided spectra) is not supported; pass real data".into(),
        });
    }
    Ok(if x.dtype() == DType::Float32 {
        DType::Float32
    } else {
        DType::Float64
    })
}

/// The periodogram of real `x` along its last axis (`scipy.signal.periodogram`):
/// (frequencies, power spectral density). Default window boxcar.
pub fn periodogram(x: &Array, opts: SpectralOptions) -> Result<(Array, Array)> {
    let op = "periodogram";
    let dt = check_spectral_input(op, x)?;
    let n = *x.shape().last().unwrap_or(&0);
    let nperseg = match opts.nfft {
        Some(f) if f < n => f,
        _ => n,
    };
    let nfft = opts.nfft.unwrap_or(nperseg);
    let device = x.device();
    if nperseg == 0 {
        let empty = Array::from_host_slice::<f64>(&[], &[0], device)?;
        return Ok((empty.clone(), empty.astype(dt)?));
    }
    let win = window_values(opts.window.unwrap_or(Window::Boxcar), nperseg, false);
    let (freqs, _, vals, sh, nfreq, _) = spectral(op, x, &win, 0, nfft, nperseg, &opts)?;
    let mut oshape = sh[..sh.len() - 1].to_vec();
    oshape.push(nfreq);
    Ok((
        Array::from_host_slice(&freqs, &[nfreq], device)?,
        Array::from_vec_cpu(vals, &oshape)
            .astype(dt)?
            .to_device(&device)?,
    ))
}

/// The spectrogram of real `x` along its last axis (`scipy.signal.spectrogram`,
/// mode 'psd'): (frequencies, segment times, Sxx of shape (..., freqs, segments)).
pub fn spectrogram(x: &Array, opts: SpectralOptions) -> Result<(Array, Array, Array)> {
    let op = "spectrogram";
    let dt = check_spectral_input(op, x)?;
    let n = *x.shape().last().unwrap_or(&0);
    let nperseg = opts.nperseg.unwrap_or(256).min(n);
    if nperseg == 0 {
        return Err(Error::invalid(
            op,
            "nperseg must be a positive integer and x must not be empty",
        ));
    }
    let win = window_values(opts.window.unwrap_or(Window::Tukey(0.25)), nperseg, false);
    let noverlap = opts.noverlap.unwrap_or(nperseg / 8);
    let nfft = opts.nfft.unwrap_or(nperseg);
    let (freqs, times, vals, sh, nfreq, nseg) =
        spectral(op, x, &win, noverlap, nfft, usize::MAX, &opts)?;
    let mut oshape = sh[..sh.len() - 1].to_vec();
    oshape.push(nfreq);
    oshape.push(nseg);
    let device = x.device();
    Ok((
        Array::from_host_slice(&freqs, &[nfreq], device)?,
        Array::from_host_slice(&times, &[nseg], device)?,
        Array::from_vec_cpu(vals, &oshape)
            .astype(dt)?
            .to_device(&device)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hann_matches_numpy() {
        // NumPy 2.4: np.hanning(5) = [0, 0.5, 1, 0.5, 0]
        let w = window_values(Window::Hann, 5, true);
        for (a, b) in w.iter().zip([0.0, 0.5, 1.0, 0.5, 0.0]) {
            assert!((a - b).abs() < 1e-15);
        }
    }
}
