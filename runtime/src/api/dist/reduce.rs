//! Reductions of distributed arrays: each rank reduces its block, then the
//! ranks combine the partial results (an all-reduce of sums; a gather of
//! the few partial extrema, reduced as NumPy does, so NaN propagates).
//! Reducing the split axis (or every axis) gives a replicated result.

use super::exchange::{all_gather_stacked, all_reduce};
use super::DistArray;
use crate::api::nccl::ReduceOp;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// How the partial results of the ranks combine.
#[derive(Clone, Copy, PartialEq)]
enum Combine {
    Sum,
    Min,
    Max,
    All,
    Any,
}

impl DistArray {
    fn replicated(&self, value: Array, global: Vec<usize>) -> DistArray {
        DistArray::from_parts(value, global, None, self.comm)
    }

    /// Combines every rank's partial result `part` (same shape on all).
    fn combine(&self, part: &Array, how: Combine) -> Result<Array> {
        if self.world_size() == 1 {
            return Ok(part.clone());
        }
        match how {
            Combine::Sum => all_reduce(self.comm, part, ReduceOp::Sum),
            Combine::All | Combine::Any => {
                let op = if how == Combine::All {
                    ReduceOp::Min
                } else {
                    ReduceOp::Max
                };
                all_reduce(self.comm, &part.astype(DType::UInt8)?, op)?.astype(DType::Bool)
            }
            // NCCL's min and max do not promise NumPy's NaN propagation:
            // gather the (small) partial results and reduce them here.
            Combine::Min => all_gather_stacked(self.comm, part)?.min_axis(0),
            Combine::Max => all_gather_stacked(self.comm, part)?.max_axis(0),
        }
    }

    /// A reduction over every axis or one: `local` reduces a block (all
    /// axes, or one axis given in the block's axes), `how` combines.
    fn reduce_with(
        &self,
        op: &'static str,
        axis: Option<isize>,
        how: Combine,
        local: impl Fn(&Array, Option<isize>) -> Result<Array>,
    ) -> Result<DistArray> {
        match axis {
            None => {
                let part = local(&self.local, None)?;
                let whole = match self.split {
                    Some(_) => self.combine(&part, how)?,
                    None => part,
                };
                Ok(self.replicated(whole, Vec::new()))
            }
            Some(a) => {
                let ax = crate::core::layout::normalize_axis(op, a, self.ndim())?;
                let part = local(&self.local, Some(ax as isize))?;
                let mut global = self.global.clone();
                global.remove(ax);
                match self.split {
                    Some(s) if s == ax => {
                        let whole = self.combine(&part, how)?;
                        Ok(self.replicated(whole, global))
                    }
                    Some(s) => {
                        let split = Some(if ax < s { s - 1 } else { s });
                        Ok(DistArray::from_parts(part, global, split, self.comm))
                    }
                    None => Ok(self.replicated(part, global)),
                }
            }
        }
    }

    /// The sum of all elements (replicated 0-d), NumPy's dtype rules.
    pub fn sum(&self) -> Result<DistArray> {
        self.reduce_with("dist::sum", None, Combine::Sum, sum_of)
    }

    /// The sums along `axis`.
    pub fn sum_axis(&self, axis: isize) -> Result<DistArray> {
        self.reduce_with("dist::sum", Some(axis), Combine::Sum, sum_of)
    }

    /// The smallest element (NaN propagates; replicated 0-d).
    pub fn min(&self) -> Result<DistArray> {
        self.reduce_with("dist::min", None, Combine::Min, |b, a| match a {
            Some(a) => b.min_axis(a),
            None => b.min(),
        })
    }

    /// The smallest elements along `axis`.
    pub fn min_axis(&self, axis: isize) -> Result<DistArray> {
        self.reduce_with("dist::min", Some(axis), Combine::Min, |b, a| match a {
            Some(a) => b.min_axis(a),
            None => b.min(),
        })
    }

    /// The largest element (NaN propagates; replicated 0-d).
    pub fn max(&self) -> Result<DistArray> {
        self.reduce_with("dist::max", None, Combine::Max, |b, a| match a {
            Some(a) => b.max_axis(a),
            None => b.max(),
        })
    }

    /// The largest elements along `axis`.
    pub fn max_axis(&self, axis: isize) -> Result<DistArray> {
        self.reduce_with("dist::max", Some(axis), Combine::Max, |b, a| match a {
            Some(a) => b.max_axis(a),
            None => b.max(),
        })
    }

    /// Whether every element is true (nonzero).
    pub fn all(&self) -> Result<DistArray> {
        self.reduce_with("dist::all", None, Combine::All, |b, a| match a {
            Some(a) => b.all_axis(a),
            None => b.all(),
        })
    }

    /// Whether any element is true (nonzero).
    pub fn any(&self) -> Result<DistArray> {
        self.reduce_with("dist::any", None, Combine::Any, |b, a| match a {
            Some(a) => b.any_axis(a),
            None => b.any(),
        })
    }

    /// Number of elements reduced by a reduction over `axis` (all when `None`).
    fn count(&self, op: &'static str, axis: Option<isize>) -> Result<usize> {
        Ok(match axis {
            None => self.size(),
            Some(a) => self.global[crate::core::layout::normalize_axis(op, a, self.ndim())?],
        })
    }

    fn mean_impl(&self, axis: Option<isize>) -> Result<DistArray> {
        let op = "dist::mean";
        let n = self.count(op, axis)?;
        if n == 0 {
            return Err(Error::EmptyReduction {
                op,
                shape: self.global.clone(),
            });
        }
        let s = self.reduce_with(op, axis, Combine::Sum, |b, a| {
            // Sum in the dtype mean works in (float64 for integers).
            let b = if b.dtype().is_float() || b.dtype().is_complex() {
                b.clone()
            } else {
                b.astype(DType::Float64)?
            };
            sum_of(&b, a)
        })?;
        s.div_scalar(n as f64)
    }

    /// The arithmetic mean of all elements (replicated 0-d).
    pub fn mean(&self) -> Result<DistArray> {
        self.mean_impl(None)
    }

    /// The means along `axis`.
    pub fn mean_axis(&self, axis: isize) -> Result<DistArray> {
        self.mean_impl(Some(axis))
    }

    fn var_impl(&self, axis: Option<isize>, ddof: usize) -> Result<DistArray> {
        let op = "dist::var";
        let n = self.count(op, axis)?;
        let mean = self.mean_impl(axis)?;
        // The mean, broadcast back over the reduced axis.
        let mean = match axis {
            None => mean,
            Some(a) => {
                let ax = crate::core::layout::normalize_axis(op, a, self.ndim())?;
                let local = mean.local.expand_dims(ax as isize)?;
                let mut global = mean.global.clone();
                global.insert(ax, 1);
                let split = mean.split.map(|s| if s >= ax { s + 1 } else { s });
                DistArray::from_parts(local, global, split, self.comm)
            }
        };
        let squared = self.zip(&mean, |x, m| {
            let x = if x.dtype().is_float() || x.dtype().is_complex() {
                x.clone()
            } else {
                x.astype(DType::Float64)?
            };
            crate::square(&crate::abs(&crate::subtract(&x, m)?)?)
        })?;
        let s = squared.reduce_with(op, axis, Combine::Sum, sum_of)?;
        s.div_scalar(n.saturating_sub(ddof) as f64)
    }

    /// The variance of all elements with `ddof` delta degrees of freedom.
    pub fn var(&self, ddof: usize) -> Result<DistArray> {
        self.var_impl(None, ddof)
    }

    /// The variances along `axis`.
    pub fn var_axis(&self, axis: isize, ddof: usize) -> Result<DistArray> {
        self.var_impl(Some(axis), ddof)
    }

    /// The standard deviation of all elements.
    pub fn std(&self, ddof: usize) -> Result<DistArray> {
        self.var_impl(None, ddof)?.sqrt()
    }

    /// The standard deviations along `axis`.
    pub fn std_axis(&self, axis: isize, ddof: usize) -> Result<DistArray> {
        self.var_impl(Some(axis), ddof)?.sqrt()
    }

    /// The 2-norm of all elements (Frobenius for matrices).
    pub fn norm(&self) -> Result<DistArray> {
        let sq = self.map(|b| crate::square(&crate::abs(b)?))?;
        sq.sum()?.sqrt()
    }

    /// The flat global index of the smallest element (the first one; the
    /// first NaN if any), replicated 0-d int64, as `numpy.argmin`.
    pub fn argmin(&self) -> Result<DistArray> {
        self.arg_extreme("dist::argmin", false)
    }

    /// The flat global index of the largest element (see [`DistArray::argmin`]).
    pub fn argmax(&self) -> Result<DistArray> {
        self.arg_extreme("dist::argmax", true)
    }

    fn arg_extreme(&self, op: &'static str, largest: bool) -> Result<DistArray> {
        if self.size() == 0 {
            return Err(Error::EmptyReduction {
                op,
                shape: self.global.clone(),
            });
        }
        let local_idx = if largest {
            self.local.argmax()?
        } else {
            self.local.argmin()?
        };
        let Some(ax) = self.split else {
            return Ok(self.replicated(local_idx, Vec::new()));
        };
        let value = self.local.ravel()?.take(local_idx.clone(), None)?;
        // The block's flat index as a global flat index: the offset along
        // the split axis times the stride of that axis in the global array.
        let block = self.local.shape().to_vec();
        let inner: i64 = self.global[ax + 1..].iter().product::<usize>() as i64;
        let outer_block = (block[ax] as i64) * inner;
        let outer_global = (self.global[ax] as i64) * inner;
        let offset = self.offset() as i64 * inner;
        // i = q * outer_block + r  ->  q * outer_global + offset + r
        let q = crate::floor_divide(&local_idx, outer_block)?;
        let r = crate::remainder(&local_idx, outer_block)?;
        let global_idx = crate::add(
            &crate::add(&crate::multiply(&q, outer_global)?, offset)?,
            &r,
        )?;
        let values = all_gather_stacked(self.comm, &value)?;
        let indices = all_gather_stacked(self.comm, &global_idx.astype(DType::Int64)?)?;
        let extreme = if largest {
            values.max()?
        } else {
            values.min()?
        };
        let hit = crate::logical_or(
            &crate::equal(&values, &extreme)?,
            &crate::logical_and(&crate::isnan(&values)?, &crate::isnan(&extreme)?)?,
        )?;
        let candidates = crate::where_(&hit, &indices, i64::MAX)?;
        Ok(self.replicated(candidates.min()?, Vec::new()))
    }
}

fn sum_of(b: &Array, axis: Option<isize>) -> Result<Array> {
    match axis {
        Some(a) => b.sum_axis(a),
        None => b.sum(),
    }
}
