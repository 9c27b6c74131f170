//! Gaussian kernel density estimation (`scipy.stats.gaussian_kde`): the
//! bandwidth from Scott's or Silverman's rule (or a given factor), the data
//! whitened once by the Cholesky factor of the inverse kernel covariance,
//! and evaluation in tiles of points: for each tile the squared whitened
//! distances to every data point are a broadcast, and `exp` of them summed
//! along the data axis is one fused elementwise-plus-reduction kernel on
//! the GPU (the tile never needs to exist in memory there).

use std::f64::consts::PI;

use super::float_input;
use crate::api::creation::more::diagonal;
use crate::api::elementwise::{add, exp, log, multiply, square, subtract};
use crate::api::linalg::matmul::matmul;
use crate::api::linalg::{cholesky, inv};
use crate::api::reductions::stats::{cov, CovOptions};
use crate::api::shape::concatenate;
use crate::api::shape::index::slice_axis;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

/// Kernel-matrix elements per evaluation tile (points times data points).
const TILE_ELEMENTS: usize = 1 << 24;

/// How [`GaussianKde`] picks its bandwidth factor (SciPy's `bw_method=`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Bandwidth {
    /// Scott's rule, `n^(-1/(d+4))`.
    #[default]
    Scott,
    /// Silverman's rule, `(n (d + 2) / 4)^(-1/(d+4))`.
    Silverman,
    /// This factor.
    Factor(f64),
}

/// A Gaussian kernel density estimate of `d`-dimensional data
/// (`scipy.stats.gaussian_kde(dataset, bw_method)` without weights).
///
/// ```
/// use cuprite as cp;
/// let data = cp::asarray(vec![-1.0, 0.0, 0.5, 2.0])?;
/// let kde = cp::stats::GaussianKde::new(&data, cp::stats::Bandwidth::Scott)?;
/// let d = kde.evaluate(&cp::asarray(vec![0.0])?)?;
/// assert!(d.to_vec::<f64>()?[0] > 0.0);
/// # Ok::<(), cp::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct GaussianKde {
    /// The data whitened, `(d, n)`.
    whitened: Array,
    /// `W^T` with `W W^T` the inverse kernel covariance, `(d, d)`.
    whiten: Array,
    /// `log` of the normalization `1 / (n sqrt(det(2 pi covariance)))`, 0-d.
    log_norm: Array,
    /// The bandwidth factor.
    factor: f64,
    /// The kernel covariance, `(d, d)`.
    covariance: Array,
}

impl GaussianKde {
    /// The estimate of `dataset`, `(d, n)` or 1-D `(n,)` for one dimension;
    /// an error for fewer points than dimensions plus one or a singular
    /// covariance.
    pub fn new(dataset: &Array, bw: Bandwidth) -> Result<GaussianKde> {
        let op = "stats.gaussian_kde";
        let data = float_input(op, dataset)?;
        let data = match data.ndim() {
            1 => data.reshape([1, -1])?,
            2 => data,
            k => {
                return Err(Error::shape(
                    op,
                    format!("dataset must be 1-D or 2-D (d, n), got {k} dimensions"),
                ))
            }
        };
        let (d, n) = (data.shape()[0], data.shape()[1]);
        if d == 0 || n <= d {
            return Err(Error::invalid(
                op,
                format!("needs more points than dimensions, got {n} points of dimension {d}"),
            ));
        }
        let (nf, df) = (n as f64, d as f64);
        let factor = match bw {
            Bandwidth::Scott => nf.powf(-1.0 / (df + 4.0)),
            Bandwidth::Silverman => (nf * (df + 2.0) / 4.0).powf(-1.0 / (df + 4.0)),
            Bandwidth::Factor(f) if f > 0.0 && f.is_finite() => f,
            Bandwidth::Factor(f) => {
                return Err(Error::invalid(
                    op,
                    format!("the bandwidth factor must be positive and finite, got {f}"),
                ))
            }
        };
        let data_cov =
            cov(&data, None, CovOptions::default())?.reshape([d as isize, d as isize])?;
        let covariance = multiply(&data_cov, factor * factor)?;
        let chol = cholesky(&covariance)?;
        let log_det = multiply(log(diagonal(&chol, 0, 0, 1)?)?.sum_axes(0, false)?, 2.0)?;
        let log_norm = subtract(
            multiply(&log_det, -0.5)?,
            0.5 * df * (2.0 * PI).ln() + nf.ln(),
        )?;
        let whiten = cholesky(&inv(&covariance)?)?.t().copy()?;
        let whitened = matmul(&whiten, &data)?;
        Ok(GaussianKde {
            whitened,
            whiten,
            log_norm,
            factor,
            covariance,
        })
    }

    /// The bandwidth factor (SciPy's `kde.factor`).
    pub fn factor(&self) -> f64 {
        self.factor
    }

    /// The kernel covariance, the data's covariance times `factor^2` (SciPy's `kde.covariance`).
    pub fn covariance(&self) -> &Array {
        &self.covariance
    }

    /// The density at `points`, `(d, m)` (or `(m,)` in one dimension, or
    /// one point `(d,)`), as an `(m,)` array (`kde.evaluate(points)`).
    pub fn evaluate(&self, points: &Array) -> Result<Array> {
        let op = "stats.gaussian_kde.evaluate";
        let d = self.whitened.shape()[0];
        let p = float_input(op, points)?;
        let p = match (p.ndim(), d) {
            (1, 1) => p.reshape([1, -1])?,
            (1, _) if p.shape()[0] == d => p.reshape([d as isize, 1])?,
            (2, _) if p.shape()[0] == d => p,
            _ => {
                return Err(Error::shape(
                    op,
                    format!(
                        "points have shape {:?}, the data have dimension {d}: pass (d, m) points",
                        p.shape()
                    ),
                ))
            }
        };
        let m = p.shape()[1];
        let n = self.whitened.shape()[1];
        let wp = matmul(&self.whiten, &p.astype(self.whitened.dtype())?)?;
        let tile = (TILE_ELEMENTS / n.max(1)).max(1);
        let mut parts = Vec::new();
        let mut start = 0;
        while start < m {
            let stop = (start + tile).min(m);
            let t = (stop - start) as isize;
            // Squared whitened distances of the tile's points (rows) to every
            // data point (columns), then exp(-r^2/2) summed along the data.
            let mut sq: Option<Array> = None;
            for k in 0..d {
                let pk = slice_axis(&wp, 1, Some(start as isize), Some(stop as isize), 1)?;
                let pk = slice_axis(&pk, 0, Some(k as isize), Some(k as isize + 1), 1)?
                    .reshape([t, 1])?;
                let xk = slice_axis(&self.whitened, 0, Some(k as isize), Some(k as isize + 1), 1)?;
                let term = square(subtract(&pk, &xk)?)?;
                sq = Some(match sq {
                    None => term,
                    Some(s) => add(&s, &term)?,
                });
            }
            let sq = sq.ok_or_else(|| Error::invalid(op, "the data have no dimensions"))?;
            parts.push(exp(multiply(&sq, -0.5)?)?.sum_axes(1, false)?);
            start = stop;
        }
        if parts.is_empty() {
            return crate::backend::probe::with_device(self.whitened.device(), || {
                crate::api::creation::zeros([0usize], self.whitened.dtype())
            });
        }
        let refs: Vec<&Array> = parts.iter().collect();
        let sums = concatenate(&refs, 0)?;
        multiply(&sums, exp(&self.log_norm)?)
    }

    /// The same as [`GaussianKde::evaluate`] (SciPy's `kde.pdf`).
    pub fn pdf(&self, points: &Array) -> Result<Array> {
        self.evaluate(points)
    }
}
