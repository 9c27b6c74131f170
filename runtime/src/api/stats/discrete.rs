//! The discrete distributions: `poisson`, `binom`, `nbinom` and `geom`,
//! through the incomplete gamma and beta functions. Their quantile is the
//! least integer `k` with `cdf(k) >= q`, found by bisection over a bracket
//! that the parameters bound (a fixed number of elementwise steps, so it
//! stays on the array's device).

use super::dist_trait::nan_outside_unit;
use super::{float_input, require};
use crate::api::elementwise::special::{betainc, gammainc, gammaincc, gammaln, xlog1py, xlogy};
use crate::api::elementwise::{
    add, equal, exp, expm1, floor, greater, greater_equal, isnan, less, log, logical_and,
    logical_or, multiply, negative, not_equal, subtract,
};
use crate::api::random::Generator;
use crate::api::shape::index::where_;
use crate::core::array::Array;
use crate::core::error::Result;
use crate::core::layout::IntoShape;

/// A discrete distribution on the integers, with SciPy's `loc` shift: the
/// provided methods take an array of values (or probabilities) and return
/// one of the same shape, computed elementwise on its device.
pub trait Discrete {
    /// SciPy's name of the distribution (`"poisson"`), for messages.
    fn name(&self) -> &'static str;
    /// The shift `loc`.
    fn loc(&self) -> f64;
    /// The least and greatest values of the support before the shift.
    fn support(&self) -> (f64, f64);
    /// The log probability at integers `k` inside the support.
    fn std_logpmf(&self, k: &Array) -> Result<Array>;
    /// `P(X <= k)` at integers `k` inside the support.
    fn std_cdf(&self, k: &Array) -> Result<Array>;
    /// `P(X > k)` at integers `k` inside the support.
    fn std_sf(&self, k: &Array) -> Result<Array>;
    /// A value past which the upper tail is below float64's resolution.
    fn upper_bracket(&self) -> f64;
    /// The mean and variance.
    fn moments(&self) -> (f64, f64);
    /// Draws before the shift, float64.
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array>;

    /// `x - loc` as a float array.
    fn shifted(&self, x: &Array) -> Result<Array> {
        let x = float_input(self.name(), x)?;
        if self.loc() == 0.0 {
            Ok(x)
        } else {
            subtract(&x, self.loc())
        }
    }
    /// The probability mass at `x` (`dist.pmf(x)`): 0 off the integers of the support.
    fn pmf(&self, x: &Array) -> Result<Array> {
        exp(self.logpmf(x)?)
    }
    /// The log of the probability mass (`dist.logpmf(x)`).
    fn logpmf(&self, x: &Array) -> Result<Array> {
        let k = self.shifted(x)?;
        let (lo, hi) = self.support();
        let off = logical_or(
            logical_or(less(&k, lo)?, greater(&k, hi)?)?,
            not_equal(&k, floor(&k)?)?,
        )?;
        let inside = where_(&off, lo, &k)?;
        let lp = self.std_logpmf(&inside)?;
        let lp = where_(&off, f64::NEG_INFINITY, &lp)?;
        where_(isnan(&k)?, f64::NAN, &lp)
    }
    /// `P(X <= x)` (`dist.cdf(x)`).
    fn cdf(&self, x: &Array) -> Result<Array> {
        let k = floor(self.shifted(x)?)?;
        let (lo, hi) = self.support();
        let inside = self.std_cdf(&clamp(&k, lo, hi)?)?;
        where_(
            less(&k, lo)?,
            0.0,
            where_(greater_equal(&k, hi)?, 1.0, &inside)?,
        )
    }
    /// `P(X > x)` (`dist.sf(x)`).
    fn sf(&self, x: &Array) -> Result<Array> {
        let k = floor(self.shifted(x)?)?;
        let (lo, hi) = self.support();
        let inside = self.std_sf(&clamp(&k, lo, hi)?)?;
        where_(
            less(&k, lo)?,
            1.0,
            where_(greater_equal(&k, hi)?, 0.0, &inside)?,
        )
    }
    /// The log of `cdf` (`dist.logcdf(x)`).
    fn logcdf(&self, x: &Array) -> Result<Array> {
        log(self.cdf(x)?)
    }
    /// The log of `sf` (`dist.logsf(x)`).
    fn logsf(&self, x: &Array) -> Result<Array> {
        log(self.sf(x)?)
    }
    /// The least `x` with `cdf(x) >= q` (`dist.ppf(q)`): `lo - 1` at 0, the
    /// top of the support at 1, NaN outside [0, 1].
    fn ppf(&self, q: &Array) -> Result<Array> {
        let q = float_input(self.name(), q)?;
        let (lo, hi) = self.support();
        let k = self.bisect(&q, &|k| greater_equal(self.std_cdf(k)?, &q))?;
        let k = where_(equal(&q, 0.0)?, lo - 1.0, where_(equal(&q, 1.0)?, hi, &k)?)?;
        nan_outside_unit(&q, &add(&k, self.loc())?)
    }
    /// The least `x` with `sf(x) <= q` (`dist.isf(q)`).
    fn isf(&self, q: &Array) -> Result<Array> {
        let q = float_input(self.name(), q)?;
        let (lo, hi) = self.support();
        let k = self.bisect(&q, &|k| {
            crate::api::elementwise::less_equal(self.std_sf(k)?, &q)
        })?;
        let k = where_(equal(&q, 1.0)?, lo - 1.0, where_(equal(&q, 0.0)?, hi, &k)?)?;
        nan_outside_unit(&q, &add(&k, self.loc())?)
    }
    /// The least integer `k` of the support where `done(k)` holds (`done` is
    /// monotone), for each element of `like`: bisection between `lo - 1`
    /// and the upper bracket.
    fn bisect(&self, like: &Array, done: &dyn Fn(&Array) -> Result<Array>) -> Result<Array> {
        let (lo, hi) = self.support();
        let top = hi.min(self.upper_bracket().ceil()).max(lo);
        let mut below = add(multiply(like, 0.0)?, lo - 1.0)?;
        let mut above = add(multiply(like, 0.0)?, top)?;
        let steps = ((top - lo + 2.0).log2().ceil() as usize) + 1;
        for _ in 0..steps {
            let mid = floor(multiply(add(&below, &above)?, 0.5)?)?;
            let mid_in = where_(less(&mid, lo)?, lo, &mid)?;
            let ok = logical_and(done(&mid_in)?, greater_equal(&mid, lo)?)?;
            above = where_(&ok, &mid, &above)?;
            below = where_(&ok, &below, &mid)?;
        }
        Ok(above)
    }
    /// The mean (`dist.mean()`).
    fn mean(&self) -> f64 {
        self.moments().0 + self.loc()
    }
    /// The variance (`dist.var()`).
    fn var(&self) -> f64 {
        self.moments().1
    }
    /// The standard deviation (`dist.std()`).
    fn std(&self) -> f64 {
        self.var().sqrt()
    }
    /// `size` random draws as float64 (`dist.rvs(size, random_state=rng)`).
    fn rvs(&self, rng: &mut Generator, size: impl IntoShape) -> Result<Array>
    where
        Self: Sized,
    {
        let k = self.std_rvs(rng, size.into_shape())?;
        if self.loc() == 0.0 {
            Ok(k)
        } else {
            add(&k, self.loc())
        }
    }
}

/// `k` limited to `[lo, hi]` (NaN stays NaN).
fn clamp(k: &Array, lo: f64, hi: f64) -> Result<Array> {
    crate::api::elementwise::clip(k, lo, hi)
}

/// An integer-valued `loc` (SciPy's discrete `loc`).
fn require_loc(op: &'static str, loc: f64) -> Result<()> {
    require(
        op,
        loc.is_finite() && loc == loc.floor(),
        "loc must be a finite integer",
        loc,
    )
}

/// `size` draws as float64.
fn as_f64(x: Array) -> Result<Array> {
    x.astype(crate::core::dtype::DType::Float64)
}

/// The Poisson distribution with mean `mu >= 0` (`scipy.stats.poisson(mu)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Poisson {
    mu: f64,
    loc: f64,
}

impl Poisson {
    /// The distribution with mean `mu >= 0` (finite).
    pub fn new(mu: f64) -> Result<Poisson> {
        require(
            "stats.poisson",
            mu >= 0.0 && mu.is_finite(),
            "mu must be non-negative and finite",
            mu,
        )?;
        Ok(Poisson { mu, loc: 0.0 })
    }
    /// The same distribution shifted by the integer `loc`.
    pub fn with_loc(self, loc: f64) -> Result<Poisson> {
        require_loc("stats.poisson", loc)?;
        Ok(Poisson { loc, ..self })
    }
}

impl Discrete for Poisson {
    fn name(&self) -> &'static str {
        "stats.poisson"
    }
    fn loc(&self) -> f64 {
        self.loc
    }
    fn support(&self) -> (f64, f64) {
        (0.0, f64::INFINITY)
    }
    fn std_logpmf(&self, k: &Array) -> Result<Array> {
        subtract(
            subtract(xlogy(k, self.mu)?, gammaln(add(k, 1.0)?)?)?,
            self.mu,
        )
    }
    fn std_cdf(&self, k: &Array) -> Result<Array> {
        gammaincc(add(k, 1.0)?, self.mu)
    }
    fn std_sf(&self, k: &Array) -> Result<Array> {
        gammainc(add(k, 1.0)?, self.mu)
    }
    fn upper_bracket(&self) -> f64 {
        // Past the tail of 1e-320 (745 nats) for any mu.
        self.mu + 40.0 * self.mu.sqrt() + 300.0
    }
    fn moments(&self) -> (f64, f64) {
        (self.mu, self.mu)
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        as_f64(rng.poisson(self.mu, shape)?)
    }
}

/// The binomial distribution of `n` trials with success probability `p`
/// (`scipy.stats.binom(n, p)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Binom {
    n: f64,
    p: f64,
    loc: f64,
}

impl Binom {
    /// The distribution with `n >= 0` trials (an integer) and `p` in [0, 1].
    pub fn new(n: f64, p: f64) -> Result<Binom> {
        let op = "stats.binom";
        require(
            op,
            n >= 0.0 && n.is_finite() && n == n.floor(),
            "n must be a non-negative integer",
            n,
        )?;
        require(op, (0.0..=1.0).contains(&p), "p must be in [0, 1]", p)?;
        Ok(Binom { n, p, loc: 0.0 })
    }
    /// The same distribution shifted by the integer `loc`.
    pub fn with_loc(self, loc: f64) -> Result<Binom> {
        require_loc("stats.binom", loc)?;
        Ok(Binom { loc, ..self })
    }
}

impl Discrete for Binom {
    fn name(&self) -> &'static str {
        "stats.binom"
    }
    fn loc(&self) -> f64 {
        self.loc
    }
    fn support(&self) -> (f64, f64) {
        (0.0, self.n)
    }
    fn std_logpmf(&self, k: &Array) -> Result<Array> {
        let (n, p) = (self.n, self.p);
        let nk = subtract(n, k)?;
        let comb = subtract(
            crate::ops::special::gammaln_f64(n + 1.0),
            add(gammaln(add(k, 1.0)?)?, gammaln(add(&nk, 1.0)?)?)?,
        )?;
        add(&comb, add(xlogy(k, p)?, xlog1py(&nk, -p)?)?)
    }
    fn std_cdf(&self, k: &Array) -> Result<Array> {
        // I_{1-p}(n - k, k + 1) below n; 1 at n (betainc(0, ...) is 1 there).
        let c = betainc(subtract(self.n, k)?, add(k, 1.0)?, 1.0 - self.p)?;
        where_(greater_equal(k, self.n)?, 1.0, &c)
    }
    fn std_sf(&self, k: &Array) -> Result<Array> {
        let s = betainc(add(k, 1.0)?, subtract(self.n, k)?, self.p)?;
        where_(greater_equal(k, self.n)?, 0.0, &s)
    }
    fn upper_bracket(&self) -> f64 {
        self.n
    }
    fn moments(&self) -> (f64, f64) {
        (self.n * self.p, self.n * self.p * (1.0 - self.p))
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        as_f64(rng.binomial(self.n as i64, self.p, shape)?)
    }
}

/// The negative binomial distribution: failures before the `n`-th success
/// with success probability `p` (`scipy.stats.nbinom(n, p)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Nbinom {
    n: f64,
    p: f64,
    loc: f64,
}

impl Nbinom {
    /// The distribution with `n > 0` and `p` in (0, 1].
    pub fn new(n: f64, p: f64) -> Result<Nbinom> {
        let op = "stats.nbinom";
        require(
            op,
            n > 0.0 && n.is_finite(),
            "n must be positive and finite",
            n,
        )?;
        require(op, p > 0.0 && p <= 1.0, "p must be in (0, 1]", p)?;
        Ok(Nbinom { n, p, loc: 0.0 })
    }
    /// The same distribution shifted by the integer `loc`.
    pub fn with_loc(self, loc: f64) -> Result<Nbinom> {
        require_loc("stats.nbinom", loc)?;
        Ok(Nbinom { loc, ..self })
    }
}

impl Discrete for Nbinom {
    fn name(&self) -> &'static str {
        "stats.nbinom"
    }
    fn loc(&self) -> f64 {
        self.loc
    }
    fn support(&self) -> (f64, f64) {
        (0.0, f64::INFINITY)
    }
    fn std_logpmf(&self, k: &Array) -> Result<Array> {
        let (n, p) = (self.n, self.p);
        let comb = subtract(gammaln(add(k, n)?)?, gammaln(add(k, 1.0)?)?)?;
        let comb = subtract(&comb, crate::ops::special::gammaln_f64(n))?;
        add(add(&comb, n * p.ln())?, xlog1py(k, -p)?)
    }
    fn std_cdf(&self, k: &Array) -> Result<Array> {
        betainc(self.n, add(k, 1.0)?, self.p)
    }
    fn std_sf(&self, k: &Array) -> Result<Array> {
        betainc(add(k, 1.0)?, self.n, 1.0 - self.p)
    }
    fn upper_bracket(&self) -> f64 {
        let (mean, var) = self.moments();
        // Past the tail of 1e-320: 745 nats at -log(1 - p) a step.
        mean + 40.0 * var.sqrt() + 750.0 / -(-self.p).ln_1p() + 50.0
    }
    fn moments(&self) -> (f64, f64) {
        let q = 1.0 - self.p;
        (self.n * q / self.p, self.n * q / (self.p * self.p))
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        // Inversion of uniform draws: the generator has no gamma-Poisson
        // mixture with per-element means.
        let u = rng.random(shape)?;
        let k = self.bisect(&u, &|k| greater_equal(self.std_cdf(k)?, &u))?;
        Ok(k)
    }
}

/// The geometric distribution: trials up to the first success, on 1, 2, ...
/// (`scipy.stats.geom(p)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geom {
    p: f64,
    loc: f64,
}

impl Geom {
    /// The distribution with success probability `p` in (0, 1].
    pub fn new(p: f64) -> Result<Geom> {
        require("stats.geom", p > 0.0 && p <= 1.0, "p must be in (0, 1]", p)?;
        Ok(Geom { p, loc: 0.0 })
    }
    /// The same distribution shifted by the integer `loc`.
    pub fn with_loc(self, loc: f64) -> Result<Geom> {
        require_loc("stats.geom", loc)?;
        Ok(Geom { loc, ..self })
    }
}

impl Discrete for Geom {
    fn name(&self) -> &'static str {
        "stats.geom"
    }
    fn loc(&self) -> f64 {
        self.loc
    }
    fn support(&self) -> (f64, f64) {
        (1.0, f64::INFINITY)
    }
    fn std_logpmf(&self, k: &Array) -> Result<Array> {
        add(xlog1py(subtract(k, 1.0)?, -self.p)?, self.p.ln())
    }
    fn std_cdf(&self, k: &Array) -> Result<Array> {
        negative(expm1(multiply(k, (-self.p).ln_1p())?)?)
    }
    fn std_sf(&self, k: &Array) -> Result<Array> {
        exp(multiply(k, (-self.p).ln_1p())?)
    }
    fn upper_bracket(&self) -> f64 {
        750.0 / -(-self.p).ln_1p() + 50.0
    }
    fn moments(&self) -> (f64, f64) {
        (1.0 / self.p, (1.0 - self.p) / (self.p * self.p))
    }
    fn std_rvs(&self, rng: &mut Generator, shape: Vec<usize>) -> Result<Array> {
        as_f64(rng.geometric(self.p, shape)?)
    }
}
