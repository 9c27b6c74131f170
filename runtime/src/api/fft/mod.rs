//! Discrete Fourier transforms, as `numpy.fft` / `cupy.fft`: cuFFT on the
//! GPU, `rustfft` on the CPU.
//!
//! ```
//! use cuprite as cp;
//! use cp::fft::{FftOptions, Norm};
//! let x = cp::asarray([1.0, 2.0, 3.0, 4.0])?;
//! let y = cp::fft::fft(&x)?; // complex128: [10, -2+2j, -2, -2-2j]
//! assert_eq!(y.shape(), &[4]);
//! // n (zero-pad or truncate), axis and norm through an options value:
//! let z = cp::fft::fft_with(&x, &FftOptions::new().n(8).norm(Norm::Ortho))?;
//! assert_eq!(z.shape(), &[8]);
//! let back = cp::fft::irfft_with(&cp::fft::rfft(&x)?, &FftOptions::new().n(4))?;
//! assert_eq!(back.shape(), &[4]);
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! Every transform has a short form taking only the array (NumPy's defaults:
//! last axis, `n` = the axis length, `norm="backward"`) and a `_with` form
//! taking [`FftOptions`] (one axis) or [`FftnOptions`] (several axes), both
//! buildable field by field or with their builder methods.
//!
//! # dtypes (as CuPy)
//! float16, bfloat16, float32 and complex64 inputs are transformed in single
//! precision (complex64 out, float32 out of `irfft*`); float64, complex128,
//! integers and bool in double precision (complex128 / float64 out).
//! `rfft*` of complex input is an [`Error::DType`] (NumPy 2 raises as well).
//!
//! # Differences from NumPy
//! - A repeated axis in `axes` is an error (NumPy transforms twice).
//! - Results on the GPU may be views with permuted strides (when the
//!   transformed axes are not the last ones and cuFFT needs them innermost);
//!   their values and shape are NumPy's.
//!
//! # Plans
//! Each device keeps an LRU cache of plans ([`plan_cache`],
//! [`set_capacity`]; 16 plans by default, as CuPy): cuFFT plans on a GPU
//! (keyed by type, sizes, layout and batch), `rustfft` plans on the CPU
//! (keyed by length, direction and precision). A cached cuFFT plan is put
//! on the current stream at each use; using one plan from two streams at
//! the same time shares its work area, as in CuPy.

mod extra;
pub use extra::{
    dct, dct_with, dst, dst_with, hfft, hfft_with, idct, idct_with, idst, idst_with, ihfft,
    ihfft_with, next_fast_len,
};

use crate::api::shape::index::SliceElem;
use crate::backend::probe::{current_device, with_device};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::{normalize_axes, normalize_axis};

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

/// How a transform is scaled (NumPy's `norm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Norm {
    /// Forward unscaled, inverse scaled by `1/n` (NumPy's default).
    #[default]
    Backward,
    /// Both directions scaled by `1/sqrt(n)`.
    Ortho,
    /// Forward scaled by `1/n`, inverse unscaled.
    Forward,
}

impl Norm {
    /// Parses NumPy's names: `"backward"`, `"ortho"`, `"forward"`.
    pub fn parse(text: &str) -> Result<Norm> {
        match text {
            "backward" => Ok(Norm::Backward),
            "ortho" => Ok(Norm::Ortho),
            "forward" => Ok(Norm::Forward),
            other => Err(Error::InvalidArgument {
                op: "fft norm",
                detail: format!(
                    "invalid norm {other:?}; use \"backward\", \"ortho\" or \"forward\""
                ),
            }),
        }
    }

    /// The name NumPy uses.
    pub fn name(self) -> &'static str {
        match self {
            Norm::Backward => "backward",
            Norm::Ortho => "ortho",
            Norm::Forward => "forward",
        }
    }

    /// The factor applied to a transform of `n` points in the given direction.
    fn factor(self, n: usize, forward: bool) -> Option<f64> {
        let n = n as f64;
        match (self, forward) {
            (Norm::Backward, true) | (Norm::Forward, false) => None,
            (Norm::Ortho, _) => Some(1.0 / n.sqrt()),
            (Norm::Backward, false) | (Norm::Forward, true) => Some(1.0 / n),
        }
    }
}

impl std::str::FromStr for Norm {
    type Err = Error;
    fn from_str(s: &str) -> Result<Norm> {
        Norm::parse(s)
    }
}

/// Options of the one-axis transforms (`fft`, `ifft`, `rfft`, `irfft`):
/// NumPy's `n`, `axis` and `norm`.
///
/// `FftOptions::new().n(16).axis(0).norm(Norm::Ortho)`, or a struct literal
/// with `..Default::default()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FftOptions {
    /// Length of the transformed axis of the input: shorter inputs are
    /// zero-padded, longer ones truncated (for `irfft`: the output length).
    /// `None`: the axis length (for `irfft`: `2 * (m - 1)`).
    pub n: Option<usize>,
    /// The axis to transform (negative counts from the end); default -1.
    pub axis: isize,
    /// Scaling; default [`Norm::Backward`].
    pub norm: Norm,
}

impl Default for FftOptions {
    fn default() -> Self {
        FftOptions {
            n: None,
            axis: -1,
            norm: Norm::Backward,
        }
    }
}

impl FftOptions {
    /// NumPy's defaults: `n=None, axis=-1, norm="backward"`.
    pub fn new() -> FftOptions {
        FftOptions::default()
    }
    /// Sets `n`.
    pub fn n(mut self, n: usize) -> FftOptions {
        self.n = Some(n);
        self
    }
}

option_setters!(FftOptions {
    /// Sets the axis.
    axis: isize,
    /// Sets the normalisation.
    norm: Norm,
});

/// Options of the several-axes transforms (`fft2`, `fftn`, `rfftn`, ...):
/// NumPy's `s`, `axes` and `norm`.
///
/// As in NumPy: with `s` and no `axes`, the last `s.len()` axes are
/// transformed; with neither, every axis (`fftn`) or the last two (`fft2`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FftnOptions {
    /// Lengths of the transformed axes (zero-pad / truncate; for `irfftn`
    /// the output lengths). `None`: the input's lengths.
    pub s: Option<Vec<usize>>,
    /// The axes to transform (negative counts from the end).
    pub axes: Option<Vec<isize>>,
    /// Scaling; default [`Norm::Backward`].
    pub norm: Norm,
}

impl FftnOptions {
    /// NumPy's defaults.
    pub fn new() -> FftnOptions {
        FftnOptions::default()
    }
    /// Sets `s`.
    pub fn s(mut self, s: impl Into<Vec<usize>>) -> FftnOptions {
        self.s = Some(s.into());
        self
    }
    /// Sets the axes.
    pub fn axes(mut self, axes: impl Into<Vec<isize>>) -> FftnOptions {
        self.axes = Some(axes.into());
        self
    }
    /// Sets the normalisation.
    pub fn norm(mut self, norm: Norm) -> FftnOptions {
        self.norm = norm;
        self
    }
}

// ---------------------------------------------------------------------------
// Public transforms
// ---------------------------------------------------------------------------

/// One-dimensional DFT along the last axis (`np.fft.fft(x)`).
pub fn fft(x: &Array) -> Result<Array> {
    fft_with(x, &FftOptions::default())
}
/// One-dimensional DFT with `n`, `axis` and `norm` (`np.fft.fft(x, n, axis, norm)`).
pub fn fft_with(x: &Array, o: &FftOptions) -> Result<Array> {
    let (axes, s) = one_axis("fft", x, o, false)?;
    transform("fft", x, &axes, &s, Kind::C2C { forward: true }, o.norm)
}
/// One-dimensional inverse DFT along the last axis (`np.fft.ifft(x)`).
pub fn ifft(x: &Array) -> Result<Array> {
    ifft_with(x, &FftOptions::default())
}
/// One-dimensional inverse DFT with options (`np.fft.ifft(x, n, axis, norm)`).
pub fn ifft_with(x: &Array, o: &FftOptions) -> Result<Array> {
    let (axes, s) = one_axis("ifft", x, o, false)?;
    transform("ifft", x, &axes, &s, Kind::C2C { forward: false }, o.norm)
}
/// DFT of real input, the `n/2 + 1` non-negative frequencies (`np.fft.rfft(x)`).
pub fn rfft(x: &Array) -> Result<Array> {
    rfft_with(x, &FftOptions::default())
}
/// `rfft` with options (`np.fft.rfft(x, n, axis, norm)`).
pub fn rfft_with(x: &Array, o: &FftOptions) -> Result<Array> {
    let (axes, s) = one_axis("rfft", x, o, false)?;
    transform("rfft", x, &axes, &s, Kind::R2C, o.norm)
}
/// Inverse of `rfft`: real output of length `2 * (m - 1)` (`np.fft.irfft(x)`).
pub fn irfft(x: &Array) -> Result<Array> {
    irfft_with(x, &FftOptions::default())
}
/// `irfft` with options; `n` is the output length (`np.fft.irfft(x, n, axis, norm)`).
pub fn irfft_with(x: &Array, o: &FftOptions) -> Result<Array> {
    let (axes, s) = one_axis("irfft", x, o, true)?;
    transform("irfft", x, &axes, &s, Kind::C2R, o.norm)
}

/// Two-dimensional DFT over the last two axes (`np.fft.fft2(x)`).
pub fn fft2(x: &Array) -> Result<Array> {
    fft2_with(x, &FftnOptions::default())
}
/// `fft2` with options (axes default to the last two).
pub fn fft2_with(x: &Array, o: &FftnOptions) -> Result<Array> {
    let (axes, s) = n_axes("fft2", x, &two_d(o), false)?;
    transform("fft2", x, &axes, &s, Kind::C2C { forward: true }, o.norm)
}
/// Two-dimensional inverse DFT (`np.fft.ifft2(x)`).
pub fn ifft2(x: &Array) -> Result<Array> {
    ifft2_with(x, &FftnOptions::default())
}
/// `ifft2` with options.
pub fn ifft2_with(x: &Array, o: &FftnOptions) -> Result<Array> {
    let (axes, s) = n_axes("ifft2", x, &two_d(o), false)?;
    transform("ifft2", x, &axes, &s, Kind::C2C { forward: false }, o.norm)
}
/// Two-dimensional DFT of real input (`np.fft.rfft2(x)`).
pub fn rfft2(x: &Array) -> Result<Array> {
    rfft2_with(x, &FftnOptions::default())
}
/// `rfft2` with options.
pub fn rfft2_with(x: &Array, o: &FftnOptions) -> Result<Array> {
    let (axes, s) = n_axes("rfft2", x, &two_d(o), false)?;
    transform("rfft2", x, &axes, &s, Kind::R2C, o.norm)
}
/// Inverse of `rfft2` (`np.fft.irfft2(x)`).
pub fn irfft2(x: &Array) -> Result<Array> {
    irfft2_with(x, &FftnOptions::default())
}
/// `irfft2` with options (`s` gives the output lengths).
pub fn irfft2_with(x: &Array, o: &FftnOptions) -> Result<Array> {
    let (axes, s) = n_axes("irfft2", x, &two_d(o), true)?;
    transform("irfft2", x, &axes, &s, Kind::C2R, o.norm)
}

/// N-dimensional DFT over every axis (`np.fft.fftn(x)`).
pub fn fftn(x: &Array) -> Result<Array> {
    fftn_with(x, &FftnOptions::default())
}
/// `fftn` with `s`, `axes` and `norm`.
pub fn fftn_with(x: &Array, o: &FftnOptions) -> Result<Array> {
    let (axes, s) = n_axes("fftn", x, o, false)?;
    transform("fftn", x, &axes, &s, Kind::C2C { forward: true }, o.norm)
}
/// N-dimensional inverse DFT (`np.fft.ifftn(x)`).
pub fn ifftn(x: &Array) -> Result<Array> {
    ifftn_with(x, &FftnOptions::default())
}
/// `ifftn` with options.
pub fn ifftn_with(x: &Array, o: &FftnOptions) -> Result<Array> {
    let (axes, s) = n_axes("ifftn", x, o, false)?;
    transform("ifftn", x, &axes, &s, Kind::C2C { forward: false }, o.norm)
}
/// N-dimensional DFT of real input (`np.fft.rfftn(x)`); the last axis is halved.
pub fn rfftn(x: &Array) -> Result<Array> {
    rfftn_with(x, &FftnOptions::default())
}
/// `rfftn` with options.
pub fn rfftn_with(x: &Array, o: &FftnOptions) -> Result<Array> {
    let (axes, s) = n_axes("rfftn", x, o, false)?;
    transform("rfftn", x, &axes, &s, Kind::R2C, o.norm)
}
/// Inverse of `rfftn` (`np.fft.irfftn(x)`).
pub fn irfftn(x: &Array) -> Result<Array> {
    irfftn_with(x, &FftnOptions::default())
}
/// `irfftn` with options (`s` gives the output lengths).
pub fn irfftn_with(x: &Array, o: &FftnOptions) -> Result<Array> {
    let (axes, s) = n_axes("irfftn", x, o, true)?;
    transform("irfftn", x, &axes, &s, Kind::C2R, o.norm)
}

// ---------------------------------------------------------------------------
// Frequencies and shifts
// ---------------------------------------------------------------------------

/// Sample frequencies of an `n`-point DFT with sample spacing `d`
/// (`np.fft.fftfreq(n, d)`): `[0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (d n)`,
/// float64 on the current device.
pub fn fftfreq(n: usize, d: f64) -> Result<Array> {
    check_freq_args("fftfreq", n, d)?;
    let scale = 1.0 / (d * n as f64);
    let v: Vec<f64> = (0..n)
        .map(|i| {
            let k = if i < n.div_ceil(2) {
                i as f64
            } else {
                i as f64 - n as f64
            };
            k * scale
        })
        .collect();
    Array::from_vec_shape(v, &[n])
}

/// Sample frequencies of `rfft` (`np.fft.rfftfreq(n, d)`): `[0, 1, ..., n/2] / (d n)`.
pub fn rfftfreq(n: usize, d: f64) -> Result<Array> {
    check_freq_args("rfftfreq", n, d)?;
    let scale = 1.0 / (d * n as f64);
    let v: Vec<f64> = (0..n / 2 + 1).map(|i| i as f64 * scale).collect();
    let len = v.len();
    Array::from_vec_shape(v, &[len])
}

fn check_freq_args(op: &'static str, n: usize, d: f64) -> Result<()> {
    if n == 0 {
        return Err(Error::invalid(op, "n must be at least 1"));
    }
    if d == 0.0 || !d.is_finite() {
        return Err(Error::invalid(
            op,
            format!("the sample spacing d must be finite and non-zero, got {d}"),
        ));
    }
    Ok(())
}

/// The zero-frequency term moved to the centre (`np.fft.fftshift(x, axes)`);
/// `None` shifts every axis.
pub fn fftshift(x: &Array, axes: Option<&[isize]>) -> Result<Array> {
    shift("fftshift", x, axes, false)
}

/// The inverse of [`fftshift`] (`np.fft.ifftshift(x, axes)`).
pub fn ifftshift(x: &Array, axes: Option<&[isize]>) -> Result<Array> {
    shift("ifftshift", x, axes, true)
}

fn shift(op: &'static str, x: &Array, axes: Option<&[isize]>, inverse: bool) -> Result<Array> {
    let axes: Vec<usize> = match axes {
        Some(a) => normalize_axes(op, a, x.ndim())?,
        None => (0..x.ndim()).collect(),
    };
    let mut out = x.clone();
    for ax in axes {
        let n = out.shape()[ax];
        if n < 2 {
            continue;
        }
        // fftshift rolls by n/2: out = x[n - n/2 ..] ++ x[.. n - n/2].
        let split = if inverse { n / 2 } else { n - n / 2 };
        let head = out.slice(axis_slice(out.ndim(), ax, split, n))?;
        let tail = out.slice(axis_slice(out.ndim(), ax, 0, split))?;
        out = crate::concatenate(&[&head, &tail], ax as isize)?;
    }
    if out.shares_memory(x) {
        out = out.copy()?;
    }
    Ok(out)
}

/// An index selecting `start..end` along `axis` and everything elsewhere.
fn axis_slice(ndim: usize, axis: usize, start: usize, end: usize) -> Vec<SliceElem> {
    (0..ndim)
        .map(|i| SliceElem::Slice {
            start: (i == axis).then_some(start as isize),
            end: (i == axis).then_some(end as isize),
            inclusive: false,
            step: 1,
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Argument handling
// ---------------------------------------------------------------------------

use crate::ops::fft::FftJob;
use crate::ops::FftKind as Kind;

fn check_n(op: &'static str, n: usize) -> Result<()> {
    if n < 1 {
        return Err(Error::invalid(
            op,
            format!("invalid number of FFT data points ({n}); n must be at least 1"),
        ));
    }
    Ok(())
}

/// The axis and length of a one-axis transform.
fn one_axis(
    op: &'static str,
    x: &Array,
    o: &FftOptions,
    inverse_real: bool,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let axis = normalize_axis(op, o.axis, x.ndim())?;
    let m = x.shape()[axis];
    let n = match o.n {
        Some(n) => n,
        None if inverse_real => 2 * m.saturating_sub(1),
        None => m,
    };
    check_n(op, n)?;
    Ok((vec![axis], vec![n]))
}

/// `fft2`'s default axes: the last two.
fn two_d(o: &FftnOptions) -> FftnOptions {
    let mut o = o.clone();
    if o.axes.is_none() && o.s.is_none() {
        o.axes = Some(vec![-2, -1]);
    }
    o
}

/// NumPy's `_cook_nd_args`: the axes and their lengths.
fn n_axes(
    op: &'static str,
    x: &Array,
    o: &FftnOptions,
    inverse_real: bool,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let ndim = x.ndim();
    let axes: Vec<isize> = match (&o.axes, &o.s) {
        (Some(a), _) => a.clone(),
        (None, Some(s)) => (-(s.len() as isize)..0).collect(),
        (None, None) => (0..ndim as isize).collect(),
    };
    let axes = normalize_axes(op, &axes, ndim)?;
    let s: Vec<usize> = match &o.s {
        Some(s) => {
            let (lengths, transformed) = (s.len(), axes.len());
            if lengths != transformed {
                let detail = format!("s has {lengths} entries but {transformed} axes are transformed; give one length per axis");
                return Err(Error::invalid(op, detail));
            }
            s.clone()
        }
        None => {
            let mut s: Vec<usize> = axes.iter().map(|&a| x.shape()[a]).collect();
            if inverse_real {
                if let Some(last) = s.last_mut() {
                    *last = 2 * last.saturating_sub(1);
                }
            }
            s
        }
    };
    for &n in &s {
        check_n(op, n)?;
    }
    Ok((axes, s))
}

/// The dtype a transform works in: complex for C2C/C2R, real for R2C.
fn work_dtype(op: &'static str, dtype: DType, kind: Kind) -> Result<DType> {
    let single = matches!(
        dtype,
        DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Complex64
    );
    match kind {
        Kind::R2C => {
            if dtype.is_complex() {
                return Err(Error::DType {
                    op,
                    detail: format!(
                        "the input must be real, got {dtype}; use fft for complex input (or take .real first)"
                    ),
                });
            }
            Ok(if single {
                DType::Float32
            } else {
                DType::Float64
            })
        }
        _ => Ok(if single {
            DType::Complex64
        } else {
            DType::Complex128
        }),
    }
}

/// `x` converted to `dtype` with each axis in `axes` cut or zero-padded to
/// `lens`. The flag says whether the result is a new buffer (not shared).
fn prepare(x: &Array, dtype: DType, axes: &[usize], lens: &[usize]) -> Result<(Array, bool)> {
    let mut a = x.clone();
    let mut owned = false;
    // Truncate first (views), so a cast copies only what is kept.
    for (&ax, &n) in axes.iter().zip(lens) {
        if a.shape()[ax] > n {
            a = a.slice(axis_slice(a.ndim(), ax, 0, n))?;
        }
    }
    if a.dtype() != dtype {
        a = a.astype(dtype)?;
        owned = true;
    }
    let mut padded = a.shape().to_vec();
    for (&ax, &n) in axes.iter().zip(lens) {
        padded[ax] = padded[ax].max(n);
    }
    if padded != a.shape() {
        let mut z = with_device(a.device(), || crate::zeros(padded.as_slice(), dtype))?;
        let idx: Vec<SliceElem> = (0..a.ndim())
            .map(|i| SliceElem::Slice {
                start: Some(0),
                end: Some(a.shape()[i] as isize),
                inclusive: false,
                step: 1,
            })
            .collect();
        z.slice_assign(idx, &a)?;
        a = z;
        owned = true;
    }
    Ok((a, owned))
}

// ---------------------------------------------------------------------------
// Driver: dtypes, lengths, devices
// ---------------------------------------------------------------------------

/// Runs a transform over `axes` with logical lengths `lens`.
fn transform(
    op: &'static str,
    x: &Array,
    axes: &[usize],
    lens: &[usize],
    kind: Kind,
    norm: Norm,
) -> Result<Array> {
    let be = crate::backend::on(op, x.device())?;
    let dtype = work_dtype(op, x.dtype(), kind)?;
    if axes.is_empty() {
        if kind != (Kind::C2C { forward: true }) && kind != (Kind::C2C { forward: false }) {
            return Err(Error::invalid(op, "at least one axis must be transformed"));
        }
        return x.astype(dtype);
    }
    // Checked first: absurd lengths (`s = [2^62, 2^62]`) overflow the count.
    let total = lens
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .ok_or_else(|| {
            Error::invalid(
                op,
                format!("transform lengths {lens:?} overflow the element count"),
            )
        })?;
    // The input lengths: C2R reads n/2 + 1 points of the last axis.
    let mut in_lens = lens.to_vec();
    if kind == Kind::C2R {
        let last = in_lens.len() - 1;
        in_lens[last] = lens[last] / 2 + 1;
    }
    let (a, owned) = prepare(x, dtype, axes, &in_lens)?;
    let forward = matches!(kind, Kind::C2C { forward: true } | Kind::R2C);
    let scale = norm.factor(total, forward);
    let out_dtype = match kind {
        Kind::C2R => dtype.real_dtype(),
        Kind::R2C if dtype == DType::Float32 => DType::Complex64,
        Kind::R2C => DType::Complex128,
        Kind::C2C { .. } => dtype,
    };
    let job = FftJob {
        owned,
        axes,
        lens,
        kind,
        scale,
    };
    let (storage, layout, left) = be.transform(op, a.view(), job)?;
    let out = Array::from_parts(storage, layout, out_dtype);
    if let Some(f) = left {
        let mut o = out.clone();
        crate::multiply_out(&out, f, &mut o)?;
    }
    Ok(out)
}

pub use crate::ops::PlanCacheInfo;

/// The plan cache of the current device.
pub fn plan_cache() -> Result<PlanCacheInfo> {
    plan_cache_of(current_device())
}

/// The plan cache of `device`.
pub fn plan_cache_of(device: Device) -> Result<PlanCacheInfo> {
    crate::backend::on("fft::plan_cache", device)?.plan_cache()
}

/// Sets the plan-cache capacity of the current device (0 disables caching;
/// excess plans are released at once).
pub fn set_capacity(capacity: usize) -> Result<()> {
    set_capacity_of(current_device(), capacity)
}

/// Sets the plan-cache capacity of `device`.
pub fn set_capacity_of(device: Device, capacity: usize) -> Result<()> {
    crate::backend::on("fft::set_capacity", device)?.set_plan_capacity(capacity)
}

/// Drops every cached plan of the current device and zeroes its counters.
pub fn clear_plan_cache() -> Result<()> {
    crate::backend::on("fft::clear_plan_cache", current_device())?.clear_plan_cache()
}
