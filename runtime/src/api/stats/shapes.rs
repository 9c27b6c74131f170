//! The distributions of sampling theory, with shape parameters: Student's
//! `t`, `chi2`, `gamma`, `f` and `beta`, through the incomplete gamma and
//! beta functions and their inverses (`cp::special`). Each quantile is
//! solved on the tail that holds it, so `ppf(1e-300)` and `isf(1e-300)` keep
//! their relative accuracy.

use std::f64::consts::PI;

use super::dist_trait::Continuous;
use super::{require_positive, require_scale};
use crate::api::elementwise::special::{
    betainc, betaincinv, gammainc, gammaincc, gammainccinv, gammaincinv, xlog1py, xlogy,
};
use crate::api::elementwise::{
    add, divide, greater, less, less_equal, log1p, logical_or, multiply, negative, sqrt, square,
    subtract,
};
use crate::api::random::Generator;
use crate::api::shape::index::where_;
use crate::core::array::Array;
use crate::core::error::Result;

/// Adds `with_loc_scale` and the trait's two accessors' storage to a
/// shape-parameter struct (fields `loc` and `scale`).
macro_rules! with_loc_scale {
    ($name:ident, $sci:literal) => {
        impl $name {
            /// The same distribution shifted by `loc` and stretched by
            /// `scale > 0` (SciPy's `loc=`, `scale=`).
            pub fn with_loc_scale(self, loc: f64, scale: f64) -> Result<$name> {
                require_scale($sci, loc, scale)?;
                Ok($name { loc, scale, ..self })
            }
        }
    };
}

/// `v` where `z < 0` (below a support starting at 0), `x` elsewhere.
fn below_zero(z: &Array, v: f64, x: &Array) -> Result<Array> {
    where_(less(z, 0.0)?, v, x)
}

/// Student's t distribution with `df > 0` degrees of freedom (`scipy.stats.t(df)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct T {
    df: f64,
    loc: f64,
    scale: f64,
}

impl T {
    /// The distribution with `df > 0` (finite) degrees of freedom.
    pub fn new(df: f64) -> Result<T> {
        require_positive("stats.t", "df (degrees of freedom)", df)?;
        Ok(T {
            df,
            loc: 0.0,
            scale: 1.0,
        })
    }

    /// The probability of `|T| > |z|` halved: the tail beyond `z` on its side.
    fn tail(&self, z: &Array) -> Result<Array> {
        let (df, z2) = (self.df, square(z)?);
        // Far out, the tail is betainc(df/2, 1/2, df / (df + z^2)) / 2; near
        // the centre, 1/2 - betainc(1/2, df/2, z^2 / (df + z^2)) / 2 keeps
        // the digits that 1 minus the far form would lose.
        let denom = add(&z2, df)?;
        // df / (z^2 + df) as w^2 / (1 + w^2), w = sqrt(df) / |z|: z^2
        // overflows past 1.3e154, where the tail of a small df is not yet 0.
        let w2 = square(divide(df.sqrt(), crate::api::elementwise::abs(z)?)?)?;
        let far = multiply(betainc(df / 2.0, 0.5, divide(&w2, add(&w2, 1.0)?)?)?, 0.5)?;
        let near = subtract(
            0.5,
            multiply(betainc(0.5, df / 2.0, divide(&z2, &denom)?)?, 0.5)?,
        )?;
        where_(less(&z2, df)?, &near, &far)
    }

    /// The upper quantile `t` with tail probability `p <= 1/2` beyond it.
    fn upper_quantile(&self, p: &Array) -> Result<Array> {
        let df = self.df;
        let two_p = multiply(p, 2.0)?;
        // Small tails: x = betaincinv(df/2, 1/2, 2p), t^2 = df (1 - x) / x;
        // central ones through s = 1 - x from the other parameterization.
        let x = betaincinv(df / 2.0, 0.5, &two_p)?;
        let far = sqrt(divide(multiply(subtract(1.0, &x)?, df)?, &x)?)?;
        let s = betaincinv(0.5, df / 2.0, subtract(1.0, &two_p)?)?;
        let near = sqrt(divide(multiply(&s, df)?, subtract(1.0, &s)?)?)?;
        // Where x underflows, its power law I ~ x^a / (a B(a, 1/2)) gives
        // t = sqrt(df / x) = sqrt(df) (2p a B)^(-1/(2a)), a = df/2.
        let a = df / 2.0;
        let c = 0.5 * df.ln() - (a.ln() + betaln_f(a, 0.5)) / (2.0 * a);
        let tiny = crate::api::elementwise::exp(add(
            multiply(crate::api::elementwise::log(&two_p)?, -1.0 / (2.0 * a))?,
            c,
        )?)?;
        let far = where_(crate::api::elementwise::equal(&x, 0.0)?, &tiny, &far)?;
        where_(less(&two_p, 0.5)?, &far, &near)
    }
}
with_loc_scale!(T, "stats.t");

impl Continuous for T {
    fn name(&self) -> &'static str {
        "stats.t"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        let df = self.df;
        let c = gammaln_f((df + 1.0) / 2.0) - gammaln_f(df / 2.0) - 0.5 * (df * PI).ln();
        let body = multiply(log1p(divide(square(z)?, df)?)?, -(df + 1.0) / 2.0)?;
        add(&body, c)
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        let tail = self.tail(z)?;
        where_(less(z, 0.0)?, &tail, subtract(1.0, &tail)?)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        self.std_cdf(&negative(z)?)
    }
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        let lower = less(q, 0.5)?;
        let p = where_(&lower, q, subtract(1.0, q)?)?;
        let t = self.upper_quantile(&p)?;
        where_(&lower, negative(&t)?, &t)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        negative(self.std_ppf(q)?)
    }
    fn std_moments(&self) -> (f64, f64) {
        let df = self.df;
        // SciPy gives an infinite mean for df <= 1 (the integral diverges).
        let mean = if df > 1.0 { 0.0 } else { f64::INFINITY };
        let var = if df > 2.0 {
            df / (df - 2.0)
        } else if df > 1.0 {
            f64::INFINITY
        } else {
            f64::NAN
        };
        (mean, var)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        let z = rng.standard_normal(shape.clone())?;
        let c = rng.chisquare(self.df, shape)?;
        divide(&z, sqrt(divide(&c, self.df)?)?)
    }
}

/// `gammaln` of a Rust scalar, through the same element function.
fn gammaln_f(x: f64) -> f64 {
    crate::ops::special::gammaln_f64(x)
}

/// `betaln` of Rust scalars.
fn betaln_f(a: f64, b: f64) -> f64 {
    crate::ops::special::betaln_f64(a, b)
}

/// The gamma distribution with shape `a > 0` (`scipy.stats.gamma(a)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gamma {
    a: f64,
    loc: f64,
    scale: f64,
}

impl Gamma {
    /// The distribution with shape `a > 0` (finite).
    pub fn new(a: f64) -> Result<Gamma> {
        require_positive("stats.gamma", "a (shape)", a)?;
        Ok(Gamma {
            a,
            loc: 0.0,
            scale: 1.0,
        })
    }
}
with_loc_scale!(Gamma, "stats.gamma");

/// The standard gamma's log density, distribution and quantile functions
/// of shape `a`, shared with `chi2` (a gamma of shape `df / 2`, scale 2).
fn gamma_logpdf(a: f64, z: &Array) -> Result<Array> {
    let zc = where_(less(z, 0.0)?, 0.0, z)?;
    let lp = subtract(subtract(xlogy(a - 1.0, &zc)?, &zc)?, gammaln_f(a))?;
    below_zero(z, f64::NEG_INFINITY, &lp)
}
fn gamma_cdf(a: f64, z: &Array) -> Result<Array> {
    below_zero(z, 0.0, &gammainc(a, where_(less(z, 0.0)?, 0.0, z)?)?)
}
fn gamma_sf(a: f64, z: &Array) -> Result<Array> {
    below_zero(z, 1.0, &gammaincc(a, where_(less(z, 0.0)?, 0.0, z)?)?)
}

impl Continuous for Gamma {
    fn name(&self) -> &'static str {
        "stats.gamma"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        gamma_logpdf(self.a, z)
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        gamma_cdf(self.a, z)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        gamma_sf(self.a, z)
    }
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        gammaincinv(self.a, q)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        gammainccinv(self.a, q)
    }
    fn std_moments(&self) -> (f64, f64) {
        (self.a, self.a)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        rng.standard_gamma(self.a, shape)
    }
}

/// The chi-squared distribution with `df > 0` degrees of freedom (`scipy.stats.chi2(df)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chi2 {
    df: f64,
    loc: f64,
    scale: f64,
}

impl Chi2 {
    /// The distribution with `df > 0` (finite) degrees of freedom.
    pub fn new(df: f64) -> Result<Chi2> {
        require_positive("stats.chi2", "df (degrees of freedom)", df)?;
        Ok(Chi2 {
            df,
            loc: 0.0,
            scale: 1.0,
        })
    }
}
with_loc_scale!(Chi2, "stats.chi2");

impl Continuous for Chi2 {
    fn name(&self) -> &'static str {
        "stats.chi2"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    // A gamma of shape df/2 and scale 2.
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        subtract(
            gamma_logpdf(self.df / 2.0, &multiply(z, 0.5)?)?,
            std::f64::consts::LN_2,
        )
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        gamma_cdf(self.df / 2.0, &multiply(z, 0.5)?)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        gamma_sf(self.df / 2.0, &multiply(z, 0.5)?)
    }
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        multiply(gammaincinv(self.df / 2.0, q)?, 2.0)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        multiply(gammainccinv(self.df / 2.0, q)?, 2.0)
    }
    fn std_moments(&self) -> (f64, f64) {
        (self.df, 2.0 * self.df)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        rng.chisquare(self.df, shape)
    }
}

/// The beta distribution on [0, 1] with shapes `a, b > 0` (`scipy.stats.beta(a, b)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Beta {
    a: f64,
    b: f64,
    loc: f64,
    scale: f64,
}

impl Beta {
    /// The distribution with shapes `a > 0` and `b > 0` (finite).
    pub fn new(a: f64, b: f64) -> Result<Beta> {
        require_positive("stats.beta", "a", a)?;
        require_positive("stats.beta", "b", b)?;
        Ok(Beta {
            a,
            b,
            loc: 0.0,
            scale: 1.0,
        })
    }
}
with_loc_scale!(Beta, "stats.beta");

/// Where `z` is outside [0, 1].
fn outside_unit(z: &Array) -> Result<Array> {
    logical_or(less(z, 0.0)?, greater(z, 1.0)?)
}

impl Continuous for Beta {
    fn name(&self) -> &'static str {
        "stats.beta"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        let (a, b) = (self.a, self.b);
        let zc = crate::api::elementwise::clip(z, 0.0, 1.0)?;
        let lp = add(xlogy(a - 1.0, &zc)?, xlog1py(b - 1.0, negative(&zc)?)?)?;
        let lp = subtract(&lp, betaln_f(a, b))?;
        where_(outside_unit(z)?, f64::NEG_INFINITY, &lp)
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        betainc(self.a, self.b, crate::api::elementwise::clip(z, 0.0, 1.0)?)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        let zc = crate::api::elementwise::clip(z, 0.0, 1.0)?;
        betainc(self.b, self.a, subtract(1.0, &zc)?)
    }
    // Each quantile is solved on q's own tail and the root taken where it
    // is small (x from I_x(a, b) = q, or 1 - x from I_{1-x}(b, a) = q, with
    // 1 - q exact for q >= 1/2): isf(1 - 1e-10) of beta(1/2, 1/2) is
    // 2.5e-20, which 1 - betaincinv(b, a, q) rounds to 0.
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        let (a, b) = (self.a, self.b);
        let low = betaincinv(a, b, q)?;
        let high = subtract(1.0, betaincinv(b, a, subtract(1.0, q)?)?)?;
        where_(less_equal(q, 0.5)?, &low, &high)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        let (a, b) = (self.a, self.b);
        let high = subtract(1.0, betaincinv(b, a, q)?)?;
        let low = betaincinv(a, b, subtract(1.0, q)?)?;
        where_(less_equal(q, 0.5)?, &high, &low)
    }
    fn std_moments(&self) -> (f64, f64) {
        let (a, b) = (self.a, self.b);
        let s = a + b;
        (a / s, a * b / (s * s * (s + 1.0)))
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        rng.beta(self.a, self.b, shape)
    }
}

/// The F distribution with `dfn, dfd > 0` degrees of freedom
/// (`scipy.stats.f(dfn, dfd)`; `F` is the name Rust gives it here as `FDist`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FDist {
    dfn: f64,
    dfd: f64,
    loc: f64,
    scale: f64,
}

impl FDist {
    /// The distribution with `dfn > 0` and `dfd > 0` (finite) degrees of freedom.
    pub fn new(dfn: f64, dfd: f64) -> Result<FDist> {
        require_positive("stats.f", "dfn (numerator degrees of freedom)", dfn)?;
        require_positive("stats.f", "dfd (denominator degrees of freedom)", dfd)?;
        Ok(FDist {
            dfn,
            dfd,
            loc: 0.0,
            scale: 1.0,
        })
    }

    /// The quantile with lower tail `p` and upper tail `r = 1 - p`, solved
    /// on the smaller one.
    fn quantile(&self, p: &Array, r: &Array) -> Result<Array> {
        let (m, n) = (self.dfn, self.dfd);
        // Lower: x = betaincinv(m/2, n/2, p), F = n x / (m (1 - x)); upper:
        // y = betaincinv(n/2, m/2, r), F = n (1 - y) / (m y).
        let x = betaincinv(m / 2.0, n / 2.0, p)?;
        let low = divide(multiply(&x, n)?, multiply(subtract(1.0, &x)?, m)?)?;
        let y = betaincinv(n / 2.0, m / 2.0, r)?;
        let high = divide(multiply(subtract(1.0, &y)?, n)?, multiply(&y, m)?)?;
        where_(less_equal(p, 0.5)?, &low, &high)
    }
}
with_loc_scale!(FDist, "stats.f");

impl Continuous for FDist {
    fn name(&self) -> &'static str {
        "stats.f"
    }
    fn loc_scale(&self) -> (f64, f64) {
        (self.loc, self.scale)
    }
    fn std_logpdf(&self, z: &Array) -> Result<Array> {
        let (m, n) = (self.dfn, self.dfd);
        let zc = where_(less(z, 0.0)?, 0.0, z)?;
        let c = m / 2.0 * m.ln() + n / 2.0 * n.ln() - betaln_f(m / 2.0, n / 2.0);
        let lp = subtract(
            xlogy(m / 2.0 - 1.0, &zc)?,
            multiply(
                crate::api::elementwise::log(add(multiply(&zc, m)?, n)?)?,
                (m + n) / 2.0,
            )?,
        )?;
        below_zero(z, f64::NEG_INFINITY, &add(&lp, c)?)
    }
    fn std_cdf(&self, z: &Array) -> Result<Array> {
        let (m, n) = (self.dfn, self.dfd);
        let zc = where_(less(z, 0.0)?, 0.0, z)?;
        // m z / (m z + n) as 1 / (1 + n / (m z)), which is 1 at z = inf
        // (inf / inf was NaN) and 0 at z = 0.
        let ratio = divide(n, multiply(&zc, m)?)?;
        betainc(m / 2.0, n / 2.0, divide(1.0, add(&ratio, 1.0)?)?)
    }
    fn std_sf(&self, z: &Array) -> Result<Array> {
        let (m, n) = (self.dfn, self.dfd);
        let zc = where_(less(z, 0.0)?, 0.0, z)?;
        betainc(n / 2.0, m / 2.0, divide(n, add(multiply(&zc, m)?, n)?)?)
    }
    fn std_ppf(&self, q: &Array) -> Result<Array> {
        self.quantile(q, &subtract(1.0, q)?)
    }
    fn std_isf(&self, q: &Array) -> Result<Array> {
        self.quantile(&subtract(1.0, q)?, q)
    }
    fn std_moments(&self) -> (f64, f64) {
        let (m, n) = (self.dfn, self.dfd);
        let mean = if n > 2.0 {
            n / (n - 2.0)
        } else {
            f64::INFINITY
        };
        let var = if n > 4.0 {
            2.0 * n * n * (m + n - 2.0) / (m * (n - 2.0) * (n - 2.0) * (n - 4.0))
        } else if n > 2.0 {
            f64::INFINITY
        } else {
            f64::NAN
        };
        (mean, var)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        let a = divide(rng.chisquare(self.dfn, shape.clone())?, self.dfn)?;
        let b = divide(rng.chisquare(self.dfd, shape)?, self.dfd)?;
        divide(&a, &b)
    }
}
