//! What every continuous distribution offers, from its standard form (loc
//! 0, scale 1): SciPy's `loc` and `scale` shift and stretch it here once.

use super::float_input;
use crate::api::elementwise::{
    add, divide, exp, greater_equal, less, less_equal, log, log1p, logical_and, multiply, negative,
    subtract,
};
use crate::api::random::Generator;
use crate::api::shape::index::where_;
use crate::core::array::Array;
use crate::core::error::Result;
use crate::core::layout::IntoShape;

/// `x` where `q` is a probability, NaN where it is outside [0, 1] or NaN.
pub(crate) fn nan_outside_unit(q: &Array, x: &Array) -> Result<Array> {
    let inside = logical_and(greater_equal(q, 0.0)?, less_equal(q, 1.0)?)?;
    where_(&inside, x, f64::NAN)
}

/// A continuous distribution with SciPy's `loc` and `scale`: the provided
/// methods take an array of values (or probabilities) and return an array
/// of the same shape, computed elementwise on the array's device.
pub trait Continuous {
    /// SciPy's name of the distribution (`"norm"`), for messages.
    fn name(&self) -> &'static str;
    /// The location and scale.
    fn loc_scale(&self) -> (f64, f64);
    /// The log density of the standard form at `z` (a float array).
    fn std_logpdf(&self, z: &Array) -> Result<Array>;
    /// The distribution function of the standard form.
    fn std_cdf(&self, z: &Array) -> Result<Array>;
    /// The survival function `1 - cdf` of the standard form, accurate in the upper tail.
    fn std_sf(&self, z: &Array) -> Result<Array>;
    /// The quantile function of the standard form on [0, 1].
    fn std_ppf(&self, q: &Array) -> Result<Array>;
    /// The inverse survival function of the standard form on [0, 1].
    fn std_isf(&self, q: &Array) -> Result<Array>;
    /// The mean and variance of the standard form (NaN or inf where SciPy's are).
    fn std_moments(&self) -> (f64, f64);
    /// Draws of the standard form, float64.
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array>;

    /// The log of the standard form's distribution function: `log1p(-sf)`
    /// where the sf is below 1/2 (the log of a cdf near 1 keeps only the
    /// digits the cdf has of its small complement).
    fn std_logcdf(&self, z: &Array) -> Result<Array> {
        let sf = self.std_sf(z)?;
        let from_sf = log1p(negative(&sf)?)?;
        where_(less(&sf, 0.5)?, &from_sf, log(self.std_cdf(z)?)?)
    }
    /// The log of the standard form's survival function: `log1p(-cdf)`
    /// where the cdf is below 1/2 (as `std_logcdf`).
    fn std_logsf(&self, z: &Array) -> Result<Array> {
        let cdf = self.std_cdf(z)?;
        let from_cdf = log1p(negative(&cdf)?)?;
        where_(less(&cdf, 0.5)?, &from_cdf, log(self.std_sf(z)?)?)
    }

    /// `(x - loc) / scale` as a float array.
    fn standardize(&self, x: &Array) -> Result<Array> {
        let (loc, scale) = self.loc_scale();
        let x = float_input(self.name(), x)?;
        if loc == 0.0 && scale == 1.0 {
            return Ok(x);
        }
        divide(subtract(&x, loc)?, scale)
    }
    /// `loc + scale * z`.
    fn unstandardize(&self, z: &Array) -> Result<Array> {
        let (loc, scale) = self.loc_scale();
        if loc == 0.0 && scale == 1.0 {
            return Ok(z.clone());
        }
        add(multiply(z, scale)?, loc)
    }

    /// The probability density at `x` (`dist.pdf(x)`).
    fn pdf(&self, x: &Array) -> Result<Array> {
        exp(self.logpdf(x)?)
    }
    /// The log of the density (`dist.logpdf(x)`).
    fn logpdf(&self, x: &Array) -> Result<Array> {
        let (_, scale) = self.loc_scale();
        subtract(self.std_logpdf(&self.standardize(x)?)?, scale.ln())
    }
    /// The distribution function `P(X <= x)` (`dist.cdf(x)`).
    fn cdf(&self, x: &Array) -> Result<Array> {
        self.std_cdf(&self.standardize(x)?)
    }
    /// The log of the distribution function (`dist.logcdf(x)`).
    fn logcdf(&self, x: &Array) -> Result<Array> {
        self.std_logcdf(&self.standardize(x)?)
    }
    /// The survival function `P(X > x)` (`dist.sf(x)`).
    fn sf(&self, x: &Array) -> Result<Array> {
        self.std_sf(&self.standardize(x)?)
    }
    /// The log of the survival function (`dist.logsf(x)`).
    fn logsf(&self, x: &Array) -> Result<Array> {
        self.std_logsf(&self.standardize(x)?)
    }
    /// The quantile function, the inverse of `cdf` (`dist.ppf(q)`); NaN
    /// outside [0, 1].
    fn ppf(&self, q: &Array) -> Result<Array> {
        let q = float_input(self.name(), q)?;
        nan_outside_unit(&q, &self.unstandardize(&self.std_ppf(&q)?)?)
    }
    /// The inverse of `sf` (`dist.isf(q)`); NaN outside [0, 1].
    fn isf(&self, q: &Array) -> Result<Array> {
        let q = float_input(self.name(), q)?;
        nan_outside_unit(&q, &self.unstandardize(&self.std_isf(&q)?)?)
    }
    /// The mean (`dist.mean()`); NaN or inf where it does not exist.
    fn mean(&self) -> f64 {
        let (loc, scale) = self.loc_scale();
        loc + scale * self.std_moments().0
    }
    /// The variance (`dist.var()`).
    fn var(&self) -> f64 {
        let (_, scale) = self.loc_scale();
        scale * scale * self.std_moments().1
    }
    /// The standard deviation (`dist.std()`).
    fn std(&self) -> f64 {
        self.var().sqrt()
    }
    /// `size` random draws as float64 (`dist.rvs(size, random_state=rng)`),
    /// from `cp::random`'s generator on the current device.
    fn rvs(&self, rng: &mut Generator, size: impl IntoShape) -> Result<Array>
    where
        Self: Sized,
    {
        let z = self.std_rvs(rng, size.into_shape())?;
        self.unstandardize(&z)
    }
}
