//! The Lomb-Scargle periodogram of unevenly sampled data
//! (`scipy.signal.lombscargle`, SciPy 1.17's generalized form): every
//! (sample, frequency) phase at once as one outer product, and each sum of
//! the method a weighted reduction over the samples, on the data's device.

use crate::api::elementwise::{add, arctan2, cos, divide, maximum, multiply, sin, subtract};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// What `lombscargle` returns (SciPy's `normalize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LombNormalize {
    /// Power in SciPy's legacy units (`normalize=False`).
    #[default]
    Power,
    /// Power relative to the signal's (`normalize=True`), in [0, 1].
    Normalize,
    /// The complex amplitude and phase of the best fit (`'amplitude'`).
    Amplitude,
}

/// Options of [`lombscargle`] (SciPy's defaults).
#[derive(Debug, Clone, Copy, Default)]
pub struct LombscargleOptions<'a> {
    /// Subtract the mean of `y` first (deprecated in SciPy 1.17).
    pub precenter: bool,
    pub normalize: LombNormalize,
    /// Non-negative sample weights (default all equal).
    pub weights: Option<&'a Array>,
    /// Fit an offset at every frequency as well.
    pub floating_mean: bool,
}

/// Sum over the samples (axis 0) of `w * a`: a row of one value per frequency.
fn wsum(w: &Array, a: &Array) -> Result<Array> {
    multiply(w, a)?.sum_axes(0, true)
}

/// The Lomb-Scargle periodogram of samples `y` at times `x` for the
/// angular frequencies `freqs` (`scipy.signal.lombscargle`). float64
/// (complex128 for `Amplitude`).
pub fn lombscargle(
    x: &Array,
    y: &Array,
    freqs: &Array,
    opts: LombscargleOptions<'_>,
) -> Result<Array> {
    let op = "lombscargle";
    x.device().check_available(op)?;
    crate::api::shape::index::same_device(op, x, y)?;
    crate::api::shape::index::same_device(op, x, freqs)?;
    let n = x.size();
    if x.ndim() != 1 || n == 0 || y.shape() != x.shape() {
        return Err(Error::shape(
            op,
            "x and y must be 1-D arrays of equal non-zero length",
        ));
    }
    if freqs.ndim() != 1 || freqs.size() == 0 {
        return Err(Error::shape(
            op,
            "freqs must be a 1-D array of non-zero length",
        ));
    }
    for a in [x, y, freqs] {
        if a.dtype().is_complex() {
            return Err(Error::DType {
                op,
                detail: format!("inputs must be real, not {}", a.dtype()),
            });
        }
    }
    let f64_ = |a: &Array| a.astype(DType::Float64);
    let w = match opts.weights {
        Some(w) => {
            crate::api::shape::index::same_device(op, x, w)?;
            if w.shape() != x.shape() {
                return Err(Error::shape(op, "weights must have the shape of x"));
            }
            let w = f64_(w)?;
            let negative = crate::api::elementwise::less(&w, 0.0)?
                .any()?
                .item::<bool>()?;
            let total = w.sum()?.astype(DType::Float64)?.item::<f64>()?;
            if negative || total.is_nan() || total <= 0.0 {
                return Err(Error::invalid(
                    op,
                    "weights must be non-negative and sum to a positive value",
                ));
            }
            divide(&w, total)?
        }
        None => Array::from_host_slice(&vec![1.0 / n as f64; n], &[n], x.device())?,
    };
    let mut yv = f64_(y)?;
    if opts.precenter {
        yv = subtract(&yv, yv.mean()?)?;
    }
    let w = w.reshape([n, 1])?;
    let yc = yv.reshape([n, 1])?;
    let wy = multiply(&w, &yc)?;
    let ft = multiply(
        f64_(x)?.reshape([n, 1])?,
        f64_(freqs)?.reshape([1, freqs.size()])?,
    )?;
    let (c, s) = (cos(&ft)?, sin(&ft)?);
    let y_mean = wsum(&w, &yc)?;
    let mut cc = wsum(&w, &multiply(&c, &c)?)?;
    let mut ss = subtract(1.0, &cc)?;
    let mut cs = wsum(&w, &multiply(&c, &s)?)?;
    if opts.floating_mean {
        let (cm, sm) = (wsum(&w, &c)?, wsum(&w, &s)?);
        cc = subtract(&cc, multiply(&cm, &cm)?)?;
        ss = subtract(&ss, multiply(&sm, &sm)?)?;
        cs = subtract(&cs, multiply(&cm, &sm)?)?;
    }
    let tau = multiply(arctan2(multiply(&cs, 2.0)?, subtract(&cc, &ss)?)?, 0.5)?;
    let ftt = subtract(&ft, &tau)?;
    let (ct, st) = (cos(&ftt)?, sin(&ftt)?);
    let mut yc_ = wsum(&wy, &ct)?;
    let mut ys_ = wsum(&wy, &st)?;
    let mut cc = wsum(&w, &multiply(&ct, &ct)?)?;
    let mut ss = subtract(1.0, &cc)?;
    if opts.floating_mean {
        let (cm, sm) = (wsum(&w, &ct)?, wsum(&w, &st)?);
        yc_ = subtract(&yc_, multiply(&y_mean, &cm)?)?;
        ys_ = subtract(&ys_, multiply(&y_mean, &sm)?)?;
        cc = subtract(&cc, multiply(&cm, &cm)?)?;
        ss = subtract(&ss, multiply(&sm, &sm)?)?;
    }
    let epsneg = f64::EPSILON / 2.0;
    let cc = maximum(&cc, epsneg)?;
    let ss = maximum(&ss, epsneg)?;
    let a = divide(&yc_, &cc)?;
    let b = divide(&ys_, &ss)?;
    let nf = freqs.size();
    let out = match opts.normalize {
        LombNormalize::Power => {
            let p = multiply(add(multiply(&a, &yc_)?, multiply(&b, &ys_)?)?, 2.0)?;
            multiply(&p, n as f64 / 4.0)?
        }
        LombNormalize::Normalize => {
            let p = multiply(add(multiply(&a, &yc_)?, multiply(&b, &ys_)?)?, 2.0)?;
            let mut yy = wsum(&wy, &yc)?;
            if opts.floating_mean {
                yy = subtract(&yy, multiply(&y_mean, &y_mean)?)?;
            }
            divide(multiply(&p, 0.5)?, &yy)?
        }
        LombNormalize::Amplitude => {
            // (a + i b) e^{i tau} = (a cos tau - b sin tau) + i (a sin tau + b cos tau)
            let (ct, st) = (cos(&tau)?, sin(&tau)?);
            let re = subtract(multiply(&a, &ct)?, multiply(&b, &st)?)?;
            let im = add(multiply(&a, &st)?, multiply(&b, &ct)?)?;
            let i =
                Array::from_host_slice(&[num_complex::Complex64::new(0.0, 1.0)], &[1], x.device())?;
            add(&re, multiply(&im, &i)?)?
        }
    };
    out.reshape([nf])
}
