//! Transforms built on the FFT: `hfft`/`ihfft` (NumPy), the real-to-real
//! cosine and sine transforms of types 1–4 (`dct`, `idct`, `dst`, `idst`, as
//! `scipy.fft` / `cupyx.scipy.fft`) and `next_fast_len`.
//!
//! Each is a short chain of array operations around one complex FFT of an
//! extended or twiddled sequence (as the textbook reductions of the DCT to
//! the DFT go), so it runs on whichever device holds the input: cuFFT and
//! elementwise kernels on a GPU, never a trip through the host.

use super::{fft_with, ifft_with, irfft_with, rfft_with, FftOptions, Norm};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use num_complex::Complex64;
use std::f64::consts::PI;

/// The FFT of a signal with Hermitian symmetry, whose first half `x` holds
/// (`np.fft.hfft`): a real result of length `n` (default `2 * (m - 1)`).
///
/// ```
/// use cuprite as cp;
/// let spectrum = cp::fft::ihfft(&cp::asarray(vec![1.0f64, 2.0, 3.0, 2.0])?)?;
/// let back = cp::fft::hfft_with(&spectrum, &cp::fft::FftOptions::new().n(4))?;
/// assert_eq!(back.to_vec::<f64>()?, [1.0, 2.0, 3.0, 2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn hfft(x: &Array) -> Result<Array> {
    hfft_with(x, &FftOptions::default())
}

/// [`hfft`] with NumPy's `n`, `axis` and `norm`.
pub fn hfft_with(x: &Array, o: &FftOptions) -> Result<Array> {
    // hfft(x) = irfft(conj(x)) with the normalisation's direction swapped.
    let swapped = FftOptions {
        norm: swap_direction(o.norm),
        ..*o
    };
    irfft_with(&crate::conj(x)?, &swapped)
}

/// The inverse of [`hfft`] (`np.fft.ihfft`): the first half of the inverse
/// FFT of a real signal, as complex numbers.
pub fn ihfft(x: &Array) -> Result<Array> {
    ihfft_with(x, &FftOptions::default())
}

/// [`ihfft`] with NumPy's `n`, `axis` and `norm`.
pub fn ihfft_with(x: &Array, o: &FftOptions) -> Result<Array> {
    let swapped = FftOptions {
        norm: swap_direction(o.norm),
        ..*o
    };
    crate::conj(&rfft_with(x, &swapped)?)
}

fn swap_direction(norm: Norm) -> Norm {
    match norm {
        Norm::Backward => Norm::Forward,
        Norm::Forward => Norm::Backward,
        Norm::Ortho => Norm::Ortho,
    }
}

/// The smallest length at least `target` whose only prime factors are 2, 3,
/// 5 and 7, the sizes cuFFT transforms fastest (`cupyx.scipy.fft.next_fast_len`);
/// 0 for 0.
///
/// ```
/// assert_eq!(cuprite::fft::next_fast_len(1021), 1024);
/// assert_eq!(cuprite::fft::next_fast_len(1025), 1029); // 3 * 7^3
/// ```
pub fn next_fast_len(target: usize) -> usize {
    if target <= 1 {
        return target;
    }
    // Walk the 7-smooth numbers below 2 * target (a power of two is one).
    let limit = target.saturating_mul(2);
    let mut best = target.checked_next_power_of_two().unwrap_or(usize::MAX);
    let mut p7 = 1usize;
    while p7 < best {
        let mut p75 = p7;
        while p75 < best {
            let mut p753 = p75;
            while p753 < best {
                // The smallest power of two taking p753 to at least target.
                let mut n = p753;
                while n < target {
                    n = n.saturating_mul(2);
                }
                best = best.min(n);
                p753 = p753.saturating_mul(3);
            }
            p75 = p75.saturating_mul(5);
        }
        p7 = p7.saturating_mul(7);
        if p7 >= limit {
            break;
        }
    }
    best
}

/// Which real-to-real transform: cosine or sine, and its type (1–4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trig {
    Cos,
    Sin,
}

/// The discrete cosine transform of `type` 1–4 along the last axis
/// (`scipy.fft.dct(x, type)`, norm `"backward"`: unscaled). Real input gives
/// float32 (from float16/bfloat16/float32) or float64; complex input
/// transforms the real and imaginary parts.
///
/// ```
/// use cuprite as cp;
/// let y = cp::fft::dct(&cp::asarray(vec![1.0f64, 2.0, 3.0])?, 2)?;
/// let v = y.to_vec::<f64>()?; // scipy: [12, -3.4641016, 0]
/// assert!((v[0] - 12.0).abs() < 1e-12 && (v[1] + 3.4641016151377544).abs() < 1e-12);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn dct(x: &Array, kind: u8) -> Result<Array> {
    dct_with(x, kind, &FftOptions::default())
}

/// [`dct`] with `n` (zero-pad or truncate the axis first), `axis` and
/// `norm` (`Backward`, `Forward` or `Ortho`, as SciPy).
pub fn dct_with(x: &Array, kind: u8, o: &FftOptions) -> Result<Array> {
    r2r("dct", x, Trig::Cos, kind, false, o)
}

/// The inverse of [`dct`] of the same `type` (`scipy.fft.idct`).
pub fn idct(x: &Array, kind: u8) -> Result<Array> {
    idct_with(x, kind, &FftOptions::default())
}

/// [`idct`] with `n`, `axis` and `norm`.
pub fn idct_with(x: &Array, kind: u8, o: &FftOptions) -> Result<Array> {
    r2r("idct", x, Trig::Cos, kind, true, o)
}

/// The discrete sine transform of `type` 1–4 along the last axis
/// (`scipy.fft.dst(x, type)`); dtypes as [`dct`].
///
/// ```
/// use cuprite as cp;
/// let y = cp::fft::dst(&cp::asarray(vec![1.0f64, 2.0, 3.0])?, 2)?;
/// let v = y.to_vec::<f64>()?; // scipy: [8, -3.4641016, 4]
/// assert!((v[0] - 8.0).abs() < 1e-12 && (v[2] - 4.0).abs() < 1e-12);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn dst(x: &Array, kind: u8) -> Result<Array> {
    dst_with(x, kind, &FftOptions::default())
}

/// [`dst`] with `n`, `axis` and `norm`.
pub fn dst_with(x: &Array, kind: u8, o: &FftOptions) -> Result<Array> {
    r2r("dst", x, Trig::Sin, kind, false, o)
}

/// The inverse of [`dst`] of the same `type` (`scipy.fft.idst`).
pub fn idst(x: &Array, kind: u8) -> Result<Array> {
    idst_with(x, kind, &FftOptions::default())
}

/// [`idst`] with `n`, `axis` and `norm`.
pub fn idst_with(x: &Array, kind: u8, o: &FftOptions) -> Result<Array> {
    r2r("idst", x, Trig::Sin, kind, true, o)
}

/// Validates, moves the axis last, handles complex input and `n`, and
/// applies the transform with SciPy's normalisation.
fn r2r(
    op: &'static str,
    x: &Array,
    trig: Trig,
    kind: u8,
    inverse: bool,
    o: &FftOptions,
) -> Result<Array> {
    if !(1..=4).contains(&kind) {
        return Err(Error::invalid(
            op,
            format!("type {kind} does not exist; the types are 1, 2, 3 and 4"),
        ));
    }
    if x.ndim() == 0 {
        return Err(Error::shape(op, "a 0-d array has no axis to transform"));
    }
    let axis = crate::core::layout::normalize_axis(op, o.axis, x.ndim())?;
    if x.dtype().is_complex() {
        let re = r2r(op, &crate::real(x)?, trig, kind, inverse, o)?;
        let im = r2r(op, &crate::imag(x)?, trig, kind, inverse, o)?;
        return crate::add(&re, &crate::multiply(&im, Complex64::new(0.0, 1.0))?);
    }
    let real = match x.dtype() {
        DType::Float32 | DType::Float64 => x.clone(),
        DType::Float16 | DType::BFloat16 => x.astype(DType::Float32)?,
        _ => x.astype(DType::Float64)?,
    };
    let last = real.moveaxis(axis as isize, -1)?;
    let n = o.n.unwrap_or(last.shape()[last.ndim() - 1]);
    let min = match (trig, kind) {
        (Trig::Cos, 1) => 2,
        _ => 1,
    };
    if n < min {
        return Err(Error::InvalidArgument {
            op,
            detail: format!(
                "the transformed axis has length {n}; type {kind} needs at least {min}"
            ),
        });
    }
    let rows = resized(&last, n)?;
    // The inverse of each type is (a scaled) type: 2 and 3 swap.
    let kind = if inverse {
        match kind {
            2 => 3,
            3 => 2,
            k => k,
        }
    } else {
        kind
    };
    let y = crate::with_device(x.device(), || {
        let t = Transform {
            trig,
            kind,
            n,
            real: rows.dtype(),
        };
        match o.norm {
            Norm::Ortho => t.orthonormal(&rows),
            norm => {
                let y = t.unscaled(&rows)?;
                // Backward scales the inverse, Forward the forward transform.
                if (norm == Norm::Backward) == inverse {
                    crate::multiply(&y, 1.0 / t.period())
                } else {
                    Ok(y)
                }
            }
        }
    })?;
    let mut shape = last.shape().to_vec();
    *shape
        .last_mut()
        .expect("moveaxis above checked the axis, so ndim > 0") = n;
    y.reshape(shape.as_slice())?.moveaxis(-1, axis as isize)
}

/// `a` (axis last) as a 2-D (rows, n) array, truncated or zero-padded to `n`.
fn resized(a: &Array, n: usize) -> Result<Array> {
    let len = a.shape()[a.ndim() - 1];
    let rows = a.size() / len.max(1);
    let a2 = a.reshape([rows, len].as_slice())?;
    if n <= len {
        return a2.slice(crate::s![.., ..n]);
    }
    let zeros = crate::with_device(a.device(), || crate::zeros([rows, n - len], a.dtype()))?;
    crate::concatenate(&[&a2, &zeros], 1)
}

/// Factors for some positions of an axis: (index, factor) pairs.
type Weights = Vec<(usize, f64)>;

struct Transform {
    trig: Trig,
    kind: u8,
    n: usize,
    /// float32 or float64: the helper arrays take it, so nothing promotes.
    real: DType,
}

impl Transform {
    /// The scale that makes the unscaled transform of this type its own
    /// inverse's partner: 2(N-1) for DCT-I, 2(N+1) for DST-I, 2N otherwise.
    fn period(&self) -> f64 {
        let n = self.n as f64;
        match (self.trig, self.kind) {
            (Trig::Cos, 1) => 2.0 * (n - 1.0),
            (Trig::Sin, 1) => 2.0 * (n + 1.0),
            _ => 2.0 * n,
        }
    }

    /// SciPy's definitions with norm "backward" (rows of `x`, length n).
    fn unscaled(&self, x: &Array) -> Result<Array> {
        let n = self.n;
        match (self.trig, self.kind) {
            (Trig::Cos, 1) => {
                // real(FFT of [x, reversed interior of x]), first n terms.
                let inner = crate::flip(&x.slice(crate::s![.., 1..n - 1])?, -1isize)?;
                let ext = crate::concatenate(&[x, &inner], 1)?;
                first(&crate::real(&fft_rows(&ext, 2 * n - 2)?)?, n)
            }
            (Trig::Cos, 2) => {
                // real(e^{-iπk/2N} FFT([x, reversed x])_k).
                let ext = crate::concatenate(&[x, &crate::flip(x, -1isize)?], 1)?;
                let v = first(&fft_rows(&ext, 2 * n)?, n)?;
                crate::real(&crate::multiply(
                    &v,
                    &twiddle(n, -PI / (2.0 * n as f64), self.real)?,
                )?)
            }
            (Trig::Cos, 3) => {
                // 2N real(IFFT(2 x_n e^{iπn/2N}))_k, less the doubled x_0.
                let z = crate::multiply(
                    &crate::multiply(x, 2.0)?,
                    &twiddle(n, PI / (2.0 * n as f64), self.real)?,
                )?;
                let y = crate::real(&first(&ifft_rows(&z, 2 * n)?, n)?)?;
                crate::subtract(
                    &crate::multiply(&y, 2.0 * n as f64)?,
                    &x.slice(crate::s![.., 0..1])?,
                )
            }
            (Trig::Cos, _) => {
                // 2 real(e^{-iπ(2k+1)/4N} FFT_2N(x_n e^{-iπn/2N})_k).
                let tw = twiddle(n, -PI / (2.0 * n as f64), self.real)?;
                let v = first(&fft_rows(&crate::multiply(x, &tw)?, 2 * n)?, n)?;
                let post =
                    crate::multiply(&tw, Complex64::from_polar(1.0, -PI / (4.0 * n as f64)))?;
                crate::multiply(&crate::real(&crate::multiply(&v, &post)?)?, 2.0)
            }
            (Trig::Sin, 1) => {
                // -imag(FFT of [0, x, 0, -reversed x]), terms 1..=n.
                let z =
                    crate::with_device(x.device(), || crate::zeros([x.shape()[0], 1], x.dtype()))?;
                let neg = crate::negative(&crate::flip(x, -1isize)?)?;
                let ext = crate::concatenate(&[&z, x, &z, &neg], 1)?;
                let v = fft_rows(&ext, 2 * n + 2)?.slice(crate::s![.., 1..n + 1])?;
                crate::negative(&crate::imag(&v)?)
            }
            // DST-k from DCT-k: DST-II(x) = reversed DCT-II((-1)^n x);
            // DST-III and DST-IV(x) = (-1)^k DCT(reversed x).
            (Trig::Sin, 2) => {
                let cos = Transform {
                    trig: Trig::Cos,
                    ..*self
                };
                crate::flip(
                    &cos.unscaled(&crate::multiply(x, &alternating(n, self.real)?)?)?,
                    -1isize,
                )
            }
            (Trig::Sin, k) => {
                let cos = Transform {
                    trig: Trig::Cos,
                    kind: k,
                    ..*self
                };
                crate::multiply(
                    &cos.unscaled(&crate::flip(x, -1isize)?)?,
                    &alternating(n, self.real)?,
                )
            }
        }
    }

    /// SciPy's norm "ortho": weights on the end samples in and out, and a
    /// common factor, so the transform is orthonormal.
    fn orthonormal(&self, x: &Array) -> Result<Array> {
        let n = self.n;
        let s2 = std::f64::consts::SQRT_2;
        let last = n - 1;
        // (input weights, output weights) as (index, factor) pairs.
        let (inputs, outputs): (Weights, Weights) = match (self.trig, self.kind) {
            (Trig::Cos, 1) => (
                vec![(0, s2), (last, s2)],
                vec![(0, 1.0 / s2), (last, 1.0 / s2)],
            ),
            (Trig::Cos, 2) => (vec![], vec![(0, 1.0 / s2)]),
            (Trig::Cos, 3) => (vec![(0, s2)], vec![]),
            (Trig::Sin, 2) => (vec![], vec![(last, 1.0 / s2)]),
            (Trig::Sin, 3) => (vec![(last, s2)], vec![]),
            _ => (vec![], vec![]),
        };
        let weighted = |a: &Array, w: &[(usize, f64)]| -> Result<Array> {
            if w.is_empty() {
                return Ok(a.clone());
            }
            crate::multiply(a, &weights(n, w, self.real)?)
        };
        let y = self.unscaled(&weighted(x, &inputs)?)?;
        crate::multiply(&weighted(&y, &outputs)?, (1.0 / self.period()).sqrt())
    }
}

/// FFT of each row, zero-padded to `len`.
fn fft_rows(a: &Array, len: usize) -> Result<Array> {
    fft_with(a, &FftOptions::new().n(len).axis(-1))
}

/// Inverse FFT of each row, zero-padded to `len`.
fn ifft_rows(a: &Array, len: usize) -> Result<Array> {
    ifft_with(a, &FftOptions::new().n(len).axis(-1))
}

/// The first `n` columns.
fn first(a: &Array, n: usize) -> Result<Array> {
    a.slice(crate::s![.., ..n])
}

/// `e^{i step k}` for k in 0..n, computed on the current device in float64
/// and stored as the complex dtype of `real`.
fn twiddle(n: usize, step: f64, real: DType) -> Result<Array> {
    let k = crate::arange(n as i64)?.astype(DType::Float64)?;
    let complex = if real == DType::Float32 {
        DType::Complex64
    } else {
        DType::Complex128
    };
    crate::exp(&crate::multiply(&k, Complex64::new(0.0, step))?)?.astype(complex)
}

/// `(-1)^k` for k in 0..n, of dtype `real`, on the current device.
fn alternating(n: usize, real: DType) -> Result<Array> {
    let k = crate::arange(n as i64)?;
    let parity = crate::remainder(&k, 2i64)?.astype(real)?;
    crate::subtract(1.0, &crate::multiply(&parity, 2.0)?)
}

/// Ones of length `n` (dtype `real`) with the listed positions set to their factors.
fn weights(n: usize, w: &[(usize, f64)], real: DType) -> Result<Array> {
    let k = crate::arange(n as i64)?;
    let mut out = crate::ones([n], real)?;
    for &(i, f) in w {
        let at = crate::equal(&k, i as i64)?.astype(real)?;
        out = crate::add(&out, &crate::multiply(&at, f - 1.0)?)?;
    }
    Ok(out)
}
