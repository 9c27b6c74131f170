//! SciPy's statistics (`scipy.stats`): probability distributions with their
//! densities, distribution functions, quantiles, moments and random draws,
//! and the descriptive statistics, ranks, correlations and tests scientists
//! reach for first.
//!
//! A distribution is a small struct of its parameters, as SciPy's frozen
//! distributions are (`cp::stats::Norm::new(loc, scale)?`); its methods take
//! an array and return one, built from elementwise ops and the special
//! functions' ufuncs, so a GPU array stays on the GPU. Parameters are Rust
//! scalars: an invalid one (negative degrees of freedom, `scale <= 0`, `p`
//! outside [0, 1]) is an error naming the distribution and the value, where
//! SciPy would return NaN everywhere. Arguments outside the support follow
//! SciPy: density 0, `cdf` 0 or 1, `ppf` of a probability outside [0, 1]
//! NaN. Float inputs keep their dtype; integers and bools compute in float64.
//!
//! ```
//! use cuprite as cp;
//! use cp::stats::Continuous;
//! let n = cp::stats::Norm::new(0.0, 1.0)?;
//! let c = n.cdf(&cp::asarray(vec![0.0, 1.96])?)?.to_vec::<f64>()?;
//! assert!((c[1] - 0.9750021048517795).abs() < 1e-15);
//! assert!(cp::stats::T::new(-1.0).is_err());
//! # Ok::<(), cp::Error>(())
//! ```

mod continuous;
mod describe;
mod discrete;
mod dist_trait;
mod hypothesis;
mod kde;
mod rank;
mod shapes;

pub use continuous::{Cauchy, Expon, Laplace, Logistic, Lognorm, Norm, Uniform};
pub use describe::{describe, entropy, iqr, kurtosis, mode, sem, skew, zscore, Describe, Mode};
pub use discrete::{Binom, Discrete, Geom, Nbinom, Poisson};
pub use dist_trait::Continuous;
pub use hypothesis::{
    kendalltau, linregress, pearsonr, spearmanr, ttest_1samp, ttest_ind, Alternative,
    LinregressResult, TestResult,
};
pub use kde::{Bandwidth, GaussianKde};
pub use rank::{rankdata, RankMethod};
pub use shapes::{Beta, Chi2, FDist, Gamma, T};

use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// `x` as a float array: floats keep their dtype, integers and bools become
/// float64, complex is refused.
pub(crate) fn float_input(op: &'static str, x: &Array) -> Result<Array> {
    let dt = x.dtype();
    if dt.is_complex() {
        return Err(Error::DType {
            op,
            detail: format!("complex input ({dt}) is not supported; pass real values"),
        });
    }
    if dt.is_float() {
        Ok(x.clone())
    } else {
        x.astype(DType::Float64)
    }
}

/// An error unless `ok`, naming the distribution and the bad parameter.
pub(crate) fn require(op: &'static str, ok: bool, what: &str, value: f64) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            op,
            detail: format!("{what}, got {value}"),
        })
    }
}

/// A positive finite scale, as every location-scale distribution needs.
pub(crate) fn require_scale(op: &'static str, loc: f64, scale: f64) -> Result<()> {
    require(op, loc.is_finite(), "loc must be finite", loc)?;
    require(
        op,
        scale > 0.0 && scale.is_finite(),
        "scale must be positive and finite",
        scale,
    )
}

/// A positive finite shape parameter.
pub(crate) fn require_positive(op: &'static str, name: &str, v: f64) -> Result<()> {
    require(
        op,
        v > 0.0 && v.is_finite(),
        &format!("{name} must be positive and finite"),
        v,
    )
}
