//! The distributions of `Generator` beyond uniform, normal, exponential and
//! integers: gamma, beta, chi-square, lognormal, Laplace, Poisson, binomial,
//! geometric and the multivariate normal, with NumPy's parameter checks.
//!
//! Each element is drawn from its own substream (Philox block `position +
//! i`; the generator advances by one block per element), so a rejection
//! sampler's loop for one element never shifts another's numbers and the
//! result does not depend on launch order. The CPU and the GPU run the same
//! algorithms on the same uniforms: integer draws (Poisson, binomial,
//! geometric) and the float draws agree value for value, except that the
//! GPU's `log`, `exp`, `pow` and `cospi` may round differently in the last
//! place; a float then differs by an ulp or so, and very rarely (when an
//! acceptance test or a `ceil`/`floor` lands within rounding of its bound) an
//! element takes another value from the same distribution. Streams are not
//! NumPy's.

use super::{check_finite, check_float, Dist, Draw, Generator};
use crate::api::creation::IntoShape;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{fmt_shape, Error, Result};
use crate::ops::random::DistKind;

/// Fails with `InvalidArgument` naming `op` unless `ok` (NaN parameters fail
/// the comparisons that compute `ok`, as NumPy rejects them).
fn require(op: &'static str, ok: bool, detail: impl FnOnce() -> String) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            op,
            detail: detail(),
        })
    }
}

/// NumPy's largest Poisson mean (`i64::MAX - 10 sqrt(i64::MAX)`): beyond it
/// draws would overflow int64.
const POISSON_LAM_MAX: f64 = 9.223_372_006_484_771e18;

/// Each float distribution's method (float64) and its `_as` form (float32
/// or float64, computed in float64): the parameters are checked finite,
/// then `nonneg` ones `>= 0` and `pos` ones `> 0`, as NumPy rejects them.
macro_rules! float_distributions {
    ($(
        $(#[$doc:meta])*
        $name:ident / $name_as:ident ($($p:ident),+) example ($ex:literal)
        nonneg [$($nn:ident),*] pos [$($pp:ident),*] => $kind:ident($a:expr, $b:expr);
    )*) => {
        impl Generator {$(
            $(#[$doc])*
            pub fn $name(&mut self, $($p: f64,)+ size: impl IntoShape) -> Result<Array> {
                self.$name_as($($p,)+ size, DType::Float64)
            }

            #[doc = concat!(
                "[`Generator::", stringify!($name), "`] in float32 or float64 (computed in float64).\n\n",
                "```\nlet x = cuprite::random::default_rng(1).", stringify!($name_as), "(", $ex,
                ", 10, cuprite::f32)?;\nassert_eq!(x.dtype(), cuprite::f32);\n",
                "# Ok::<(), cuprite::Error>(())\n```"
            )]
            pub fn $name_as(
                &mut self,
                $($p: f64,)+
                size: impl IntoShape,
                dtype: DType,
            ) -> Result<Array> {
                let op = concat!("Generator::", stringify!($name));
                check_float(op, dtype)?;
                $(check_finite(op, stringify!($p), $p)?;)+
                $(require(op, $nn >= 0.0, || {
                    format!("{} must be non-negative, got {}", stringify!($nn), $nn)
                })?;)*
                $(require(op, $pp > 0.0, || {
                    format!("{} must be positive, got {}", stringify!($pp), $pp)
                })?;)*
                let dist = Dist { kind: DistKind::$kind, a: $a, b: $b };
                self.draw(op, Draw::Sample(dist), &size.into_shape(), dtype)
            }
        )*}
    };
}

float_distributions! {
    /// Gamma values with shape `shape` and scale 1 as float64
    /// (`rng.standard_gamma(shape, size)`).
    ///
    /// ```
    /// let g = cuprite::random::default_rng(1).standard_gamma(2.0, 100)?;
    /// assert!(g.to_vec::<f64>()?.iter().all(|&x| x > 0.0));
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    standard_gamma / standard_gamma_as (shape) example ("0.5")
        nonneg [shape] pos [] => Gamma(shape, 1.0);

    /// Gamma values with shape `shape >= 0` and scale `scale >= 0` as
    /// float64 (`rng.gamma(shape, scale, size)`; mean `shape scale`),
    /// by Marsaglia and Tsang's method.
    ///
    /// ```
    /// let g = cuprite::random::default_rng(2).gamma(3.0, 2.0, [4, 5])?;
    /// assert_eq!(g.shape(), &[4, 5]);
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    gamma / gamma_as (shape, scale) example ("3.0, 2.0")
        nonneg [shape, scale] pos [] => Gamma(shape, scale);

    /// Chi-square values with `df > 0` degrees of freedom as float64
    /// (`rng.chisquare(df, size)`: twice a gamma of shape `df / 2`).
    ///
    /// ```
    /// let c = cuprite::random::default_rng(3).chisquare(4.0, 100)?;
    /// assert!(c.to_vec::<f64>()?.iter().all(|&x| x >= 0.0));
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    chisquare / chisquare_as (df) example ("4.0")
        nonneg [] pos [df] => Gamma(df / 2.0, 2.0);

    /// Beta(a, b) values in [0, 1] as float64, `a, b > 0` (`rng.beta(a, b, size)`).
    ///
    /// ```
    /// let x = cuprite::random::default_rng(4).beta(0.5, 0.5, 100)?;
    /// assert!(x.to_vec::<f64>()?.iter().all(|&v| (0.0..=1.0).contains(&v)));
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    beta / beta_as (a, b) example ("2.0, 3.0")
        nonneg [] pos [a, b] => Beta(a, b);

    /// Log-normal values `exp(mean + sigma z)` as float64, `sigma >= 0`
    /// (`rng.lognormal(mean, sigma, size)`).
    ///
    /// ```
    /// let x = cuprite::random::default_rng(5).lognormal(0.0, 1.0, 100)?;
    /// assert!(x.to_vec::<f64>()?.iter().all(|&v| v > 0.0));
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    lognormal / lognormal_as (mean, sigma) example ("0.0, 1.0")
        nonneg [sigma] pos [] => Lognormal(mean, sigma);

    /// Laplace (double exponential) values as float64, `scale >= 0`
    /// (`rng.laplace(loc, scale, size)`; variance `2 scale^2`).
    ///
    /// ```
    /// let x = cuprite::random::default_rng(6).laplace(1.0, 0.5, [2, 3])?;
    /// assert_eq!(x.shape(), &[2, 3]);
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    laplace / laplace_as (loc, scale) example ("1.0, 0.5")
        nonneg [scale] pos [] => Laplace(loc, scale);
}

impl Generator {
    /// Draws `size` int64 values of `kind` with parameters `a`, `b`.
    fn sample_int(
        &mut self,
        op: &'static str,
        kind: DistKind,
        a: f64,
        b: f64,
        size: impl IntoShape,
    ) -> Result<Array> {
        let dist = Dist { kind, a, b };
        self.draw(op, Draw::Sample(dist), &size.into_shape(), DType::Int64)
    }

    /// Poisson counts with mean `lam >= 0` as int64 (`rng.poisson(lam, size)`).
    ///
    /// ```
    /// let k = cuprite::random::default_rng(7).poisson(3.0, 100)?;
    /// assert_eq!(k.dtype(), cuprite::i64);
    /// assert!(k.to_vec::<i64>()?.iter().all(|&v| v >= 0));
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    pub fn poisson(&mut self, lam: f64, size: impl IntoShape) -> Result<Array> {
        let op = "Generator::poisson";
        require(op, lam >= 0.0, || {
            format!("lam must be non-negative, got {lam}")
        })?;
        require(op, lam <= POISSON_LAM_MAX, || {
            format!("lam value too large: {lam} (at most {POISSON_LAM_MAX})")
        })?;
        self.sample_int(op, DistKind::Poisson, lam, 0.0, size)
    }

    /// Binomial counts of `n >= 0` trials with success probability `p` in
    /// [0, 1] as int64 (`rng.binomial(n, p, size)`).
    ///
    /// ```
    /// let k = cuprite::random::default_rng(8).binomial(10, 0.5, 100)?;
    /// assert!(k.to_vec::<i64>()?.iter().all(|&v| (0..=10).contains(&v)));
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    pub fn binomial(&mut self, n: i64, p: f64, size: impl IntoShape) -> Result<Array> {
        let op = "Generator::binomial";
        require(op, n >= 0, || format!("n must be non-negative, got {n}"))?;
        require(op, (0.0..=1.0).contains(&p), || {
            format!("p must be in [0, 1], got {p}")
        })?;
        self.sample_int(op, DistKind::Binomial, n as f64, p, size)
    }

    /// The number of trials up to the first success, success probability `p`
    /// in (0, 1], as int64 (`rng.geometric(p, size)`; values from 1).
    ///
    /// ```
    /// let k = cuprite::random::default_rng(9).geometric(0.25, 100)?;
    /// assert!(k.to_vec::<i64>()?.iter().all(|&v| v >= 1));
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    pub fn geometric(&mut self, p: f64, size: impl IntoShape) -> Result<Array> {
        let op = "Generator::geometric";
        require(op, p > 0.0 && p <= 1.0, || {
            format!("p must be in (0, 1], got {p}")
        })?;
        self.sample_int(op, DistKind::Geometric, p, 0.0, size)
    }

    /// Multivariate normal vectors as float64 of shape `size + (k,)`
    /// (`rng.multivariate_normal(mean, cov, size, method='cholesky')`):
    /// `mean + z Lᵀ` with `z` standard normal and `L` the Cholesky factor of
    /// `cov`, on `mean`'s device. `cov` (k, k) must be symmetric positive
    /// definite: NumPy only warns for a matrix that is not positive
    /// semi-definite; here an asymmetric `cov` is `InvalidArgument` and one
    /// that is not positive definite (a singular covariance included) is
    /// `LinAlg`.
    ///
    /// ```
    /// use cuprite as cp;
    /// let mean = cp::asarray(vec![1.0, -1.0])?;
    /// let cov = cp::asarray(vec![vec![2.0, 0.5], vec![0.5, 1.0]])?;
    /// let x = cp::random::default_rng(10).multivariate_normal(&mean, &cov, 1000)?;
    /// assert_eq!(x.shape(), &[1000, 2]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn multivariate_normal(
        &mut self,
        mean: &Array,
        cov: &Array,
        size: impl IntoShape,
    ) -> Result<Array> {
        let op = "Generator::multivariate_normal";
        let device = crate::api::linalg::matmul::same_device(op, mean, cov)?;
        let k = match mean.shape() {
            [k] => *k,
            s => {
                return Err(Error::Shape {
                    op,
                    detail: format!("mean must be 1-dimensional, got shape {}", fmt_shape(s)),
                })
            }
        };
        if cov.shape() != [k, k] {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "cov must be 2-dimensional and square of the length of mean ({k}, {k}), got shape {}",
                    fmt_shape(cov.shape())
                ),
            });
        }
        let mean = mean.astype(DType::Float64)?;
        let cov = cov.astype(DType::Float64)?;
        let mut shape = size.into_shape();
        shape.push(k);
        crate::core::layout::checked_size(op, &shape)?;
        require(op, crate::allclose(&cov, cov.t())?, || {
            "cov must be symmetric".into()
        })?;
        let lower = crate::api::linalg::cholesky(&cov).map_err(|e| match e {
            Error::LinAlg { detail, .. } => Error::LinAlg {
                op,
                detail: format!("cov is not positive definite ({detail})"),
            },
            other => other,
        })?;
        let z =
            crate::backend::probe::with_device(device, || self.standard_normal(shape.as_slice()))?;
        crate::add(&crate::api::linalg::matmul::matmul(&z, &lower.t())?, &mean)
    }
}
