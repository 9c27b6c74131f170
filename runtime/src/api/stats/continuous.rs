//! The continuous distributions without shape parameters, or with one that
//! only bends the standard normal (`lognorm`): closed forms throughout.

use std::f64::consts::{LN_2, PI};

use super::dist_trait::Continuous;
use super::{require_positive, require_scale};
use crate::api::elementwise::special::{expit, log_expit, log_ndtr, logit, ndtr, ndtri};
use crate::api::elementwise::{
    abs, add, arctan2, clip, divide, exp, expm1, greater, less, log, log1p, multiply, negative,
    square, subtract, tan,
};
use crate::api::random::Generator;
use crate::api::shape::index::where_;
use crate::core::array::Array;
use crate::core::error::Result;

/// `log(sqrt(2 pi))`.
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// Declares a location-scale struct with `new(loc, scale)` and its two
/// accessors.
macro_rules! loc_scale_struct {
    ($(#[$doc:meta])* $name:ident, $sci:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub struct $name {
            loc: f64,
            scale: f64,
        }
        impl $name {
            /// The distribution with this location and positive scale;
            /// an error for a non-finite `loc` or `scale <= 0`.
            pub fn new(loc: f64, scale: f64) -> Result<$name> {
                require_scale($sci, loc, scale)?;
                Ok($name { loc, scale })
            }
            /// The standard form (loc 0, scale 1).
            pub fn standard() -> $name {
                $name { loc: 0.0, scale: 1.0 }
            }
        }
    };
}

loc_scale_struct!(
    /// The normal distribution (`scipy.stats.norm(loc, scale)`).
    Norm, "stats.norm"
);
loc_scale_struct!(
    /// The exponential distribution on `x >= loc` (`scipy.stats.expon(loc, scale)`).
    Expon, "stats.expon"
);
loc_scale_struct!(
    /// The uniform distribution on `[loc, loc + scale]` (`scipy.stats.uniform(loc, scale)`).
    Uniform, "stats.uniform"
);
loc_scale_struct!(
    /// The Cauchy distribution (`scipy.stats.cauchy(loc, scale)`): no mean or variance.
    Cauchy, "stats.cauchy"
);
loc_scale_struct!(
    /// The Laplace (double exponential) distribution (`scipy.stats.laplace(loc, scale)`).
    Laplace, "stats.laplace"
);
loc_scale_struct!(
    /// The logistic distribution (`scipy.stats.logistic(loc, scale)`).
    Logistic, "stats.logistic"
);

impl Continuous for Norm {
    fn name(&self) -> &'static str {
        "stats.norm"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        subtract(multiply(square(z)?, -0.5)?, LN_SQRT_2PI)
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        ndtr(z)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        ndtr(negative(z)?)
    }
    fn std_logcdf(&self, z: &Array) -> Result<Array> {
        log_ndtr(z)
    }
    fn std_logsf(&self, z: &Array) -> Result<Array> {
        log_ndtr(negative(z)?)
    }
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        ndtri(q)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        negative(ndtri(q)?)
    }
    fn std_moments(&self) -> (f64, f64) {
        (0.0, 1.0)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        rng.standard_normal(shape)
    }
}

impl Continuous for Expon {
    fn name(&self) -> &'static str {
        "stats.expon"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        where_(less(z, 0.0)?, f64::NEG_INFINITY, negative(z)?)
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        let c = negative(expm1(negative(z)?)?)?;
        where_(less(z, 0.0)?, 0.0, &c)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        where_(less(z, 0.0)?, 1.0, exp(negative(z)?)?)
    }
    fn std_logsf(&self, z: &Array) -> Result<Array> {
        where_(less(z, 0.0)?, 0.0, negative(z)?)
    }
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        negative(log1p(negative(q)?)?)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        negative(log(q)?)
    }
    fn std_moments(&self) -> (f64, f64) {
        (1.0, 1.0)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        rng.exponential(1.0, shape)
    }
}

impl Continuous for Uniform {
    fn name(&self) -> &'static str {
        "stats.uniform"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        let outside = crate::api::elementwise::logical_or(
            less(z, 0.0)?,
            crate::api::elementwise::greater(z, 1.0)?,
        )?;
        // 0 * z keeps NaN where z is NaN.
        where_(&outside, f64::NEG_INFINITY, multiply(z, 0.0)?)
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        clip(z, 0.0, 1.0)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        subtract(1.0, clip(z, 0.0, 1.0)?)
    }
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        Ok(q.clone())
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        subtract(1.0, q)
    }
    fn std_moments(&self) -> (f64, f64) {
        (0.5, 1.0 / 12.0)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        rng.random(shape)
    }
}

impl Continuous for Cauchy {
    fn name(&self) -> &'static str {
        "stats.cauchy"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        negative(add(log1p(square(z)?)?, PI.ln())?)
    }
    // atan2(1, -z) / pi is the cdf without the cancellation of 1/2 + atan(z) / pi.
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        divide(arctan2(1.0, negative(z)?)?, PI)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        divide(arctan2(1.0, z)?, PI)
    }
    // tan(pi (q - 1/2)) loses the tails: q - 1/2 rounds q = 1e-300 away.
    // Below 1/4 it is -1 / tan(pi q), above 3/4 1 / tan(pi (1 - q)) (1 - q
    // exact there); between them q - 1/2 is exact.
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        let low = negative(divide(1.0, tan(multiply(q, PI)?)?)?)?;
        let high = divide(1.0, tan(multiply(subtract(1.0, q)?, PI)?)?)?;
        let middle = tan(multiply(subtract(q, 0.5)?, PI)?)?;
        let x = where_(less(q, 0.25)?, &low, &middle)?;
        where_(greater(q, 0.75)?, &high, &x)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        negative(self.std_ppf(q)?)
    }
    fn std_moments(&self) -> (f64, f64) {
        (f64::NAN, f64::NAN)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        let a = rng.standard_normal(shape.clone())?;
        let b = rng.standard_normal(shape)?;
        divide(&a, &b)
    }
}

impl Continuous for Laplace {
    fn name(&self) -> &'static str {
        "stats.laplace"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        subtract(negative(abs(z)?)?, LN_2)
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        // Half the exponential of the near side, one minus it beyond 0.
        let below = multiply(exp(z)?, 0.5)?;
        let above = subtract(1.0, multiply(exp(negative(z)?)?, 0.5)?)?;
        where_(less(z, 0.0)?, &below, &above)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        self.std_cdf(&negative(z)?)
    }
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        let low = log(multiply(q, 2.0)?)?;
        let high = negative(log(subtract(2.0, multiply(q, 2.0)?)?)?)?;
        where_(crate::api::elementwise::less_equal(q, 0.5)?, &low, &high)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        negative(self.std_ppf(q)?)
    }
    fn std_moments(&self) -> (f64, f64) {
        (0.0, 2.0)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        rng.laplace(0.0, 1.0, shape)
    }
}

impl Continuous for Logistic {
    fn name(&self) -> &'static str {
        "stats.logistic"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        add(log_expit(z)?, log_expit(negative(z)?)?)
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        expit(z)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        expit(negative(z)?)
    }
    fn std_logcdf(&self, z: &Array) -> Result<Array> {
        log_expit(z)
    }
    fn std_logsf(&self, z: &Array) -> Result<Array> {
        log_expit(negative(z)?)
    }
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        logit(q)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        negative(logit(q)?)
    }
    fn std_moments(&self) -> (f64, f64) {
        (0.0, PI * PI / 3.0)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        logit(rng.random(shape)?)
    }
}

/// The log-normal distribution: `exp` of a normal with standard deviation
/// `s`, then SciPy's `loc` and `scale` (`scipy.stats.lognorm(s, loc, scale)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lognorm {
    s: f64,
    loc: f64,
    scale: f64,
}

impl Lognorm {
    /// The distribution with shape `s > 0`; an error for `s <= 0` or `scale <= 0`.
    pub fn new(s: f64, loc: f64, scale: f64) -> Result<Lognorm> {
        require_positive("stats.lognorm", "s", s)?;
        require_scale("stats.lognorm", loc, scale)?;
        Ok(Lognorm { s, loc, scale })
    }

    /// `log(z) / s`, the standard normal argument (z <= 0 maps to -inf or NaN).
    fn normal_arg(&self, z: &Array) -> Result<Array> {
        let lz = log(where_(less(z, 0.0)?, 0.0, z)?)?;
        divide(&lz, self.s)
    }
}

impl Continuous for Lognorm {
    fn name(&self) -> &'static str {
        "stats.lognorm"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        let y = self.normal_arg(z)?;
        let lp = subtract(multiply(square(&y)?, -0.5)?, LN_SQRT_2PI + self.s.ln())?;
        let lp = subtract(&lp, log(z)?)?;
        where_(
            crate::api::elementwise::less_equal(z, 0.0)?,
            f64::NEG_INFINITY,
            &lp,
        )
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        ndtr(self.normal_arg(z)?)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        ndtr(negative(self.normal_arg(z)?)?)
    }
    fn std_logcdf(&self, z: &Array) -> Result<Array> {
        log_ndtr(self.normal_arg(z)?)
    }
    fn std_logsf(&self, z: &Array) -> Result<Array> {
        log_ndtr(negative(self.normal_arg(z)?)?)
    }
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        exp(multiply(ndtri(q)?, self.s)?)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        exp(multiply(ndtri(q)?, -self.s)?)
    }
    fn std_moments(&self) -> (f64, f64) {
        let s2 = self.s * self.s;
        ((s2 / 2.0).exp(), s2.exp_m1() * s2.exp())
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        exp(rng.normal(0.0, self.s, shape)?)
    }
}
