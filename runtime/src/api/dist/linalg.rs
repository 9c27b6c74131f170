//! Products and transforms of distributed arrays: `matmul` of a row-split
//! matrix, `dot`/`vdot` of split vectors, FFTs along a local axis and the
//! slab-decomposed `fft2`/`fftn` (local transforms and one transpose).

use super::exchange::all_reduce;
use super::DistArray;
use crate::api::nccl::ReduceOp;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

impl DistArray {
    /// The matrix product `self @ other` of 2-D arrays:
    /// - row-split `self` (split 0) by a replicated or column-split `other`
    ///   (gathered to every rank first): the result is split by rows, no
    ///   other communication;
    /// - `self` split along the inner axis (1) by `other` split along its
    ///   rows (0): local partial products summed over the ranks (one
    ///   all-reduce), a replicated result;
    /// - replicated by replicated: local.
    pub fn matmul(&self, other: &DistArray) -> Result<DistArray> {
        let op = "dist::matmul";
        if self.ndim() != 2 || other.ndim() != 2 {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "takes 2-D arrays, got {}-D and {}-D",
                    self.ndim(),
                    other.ndim()
                ),
            });
        }
        if self.global[1] != other.global[0] {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "inner dimensions differ: {:?} @ {:?}",
                    self.global, other.global
                ),
            });
        }
        let global = vec![self.global[0], other.global[1]];
        match (self.split, other.split) {
            (Some(1), Some(0)) => {
                let part = crate::matmul(&self.local, &other.local)?;
                let whole = all_reduce(self.comm, &part, ReduceOp::Sum)?;
                Ok(DistArray::from_parts(whole, global, None, self.comm))
            }
            (Some(1), _) => self.resplit(Some(0))?.matmul(other),
            (Some(0), s) | (None, s) => {
                let right = match s {
                    None => other.local.clone(),
                    Some(_) => other.to_array()?,
                };
                let local = crate::matmul(&self.local, &right)?;
                Ok(DistArray::from_parts(local, global, self.split, self.comm))
            }
            (Some(_), _) => Err(Error::Shape {
                op,
                detail: "a 2-D array splits along axis 0 or 1".into(),
            }),
        }
    }

    /// The dot product of two 1-D arrays (`numpy.dot`), replicated 0-d:
    /// local products summed over the ranks.
    pub fn dot(&self, other: &DistArray) -> Result<DistArray> {
        self.inner("dist::dot", other, crate::dot)
    }

    /// `vdot`: the dot product with the first argument conjugated.
    pub fn vdot(&self, other: &DistArray) -> Result<DistArray> {
        self.inner("dist::vdot", other, crate::vdot)
    }

    fn inner(
        &self,
        op: &'static str,
        other: &DistArray,
        f: impl Fn(&Array, &Array) -> Result<Array>,
    ) -> Result<DistArray> {
        if self.ndim() != 1 || self.global != other.global {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "takes two 1-D arrays of one length, got {:?} and {:?}",
                    self.global, other.global
                ),
            });
        }
        let (a, b) = match (self.split, other.split) {
            (None, None) => {
                let v = f(&self.local, &other.local)?;
                return Ok(DistArray::from_parts(v, Vec::new(), None, self.comm));
            }
            (Some(_), Some(_)) => (self.clone(), other.clone()),
            (Some(_), None) => (self.clone(), other.resplit(Some(0))?),
            (None, Some(_)) => (self.resplit(Some(0))?, other.clone()),
        };
        let part = f(&a.local, &b.local)?;
        let whole = all_reduce(self.comm, &part, ReduceOp::Sum)?;
        Ok(DistArray::from_parts(whole, Vec::new(), None, self.comm))
    }

    /// The FFT along `axis` (complex result, `numpy.fft.fft`), which must
    /// not be the split axis: each rank transforms its block.
    pub fn fft(&self, axis: isize) -> Result<DistArray> {
        self.local_transform("dist::fft", axis, |b, ax| {
            crate::fft::fft_with(
                b,
                &crate::fft::FftOptions {
                    axis: ax,
                    ..Default::default()
                },
            )
        })
    }

    /// The inverse FFT along a non-split `axis`.
    pub fn ifft(&self, axis: isize) -> Result<DistArray> {
        self.local_transform("dist::ifft", axis, |b, ax| {
            crate::fft::ifft_with(
                b,
                &crate::fft::FftOptions {
                    axis: ax,
                    ..Default::default()
                },
            )
        })
    }

    /// The FFT of real input along a non-split `axis` (half spectrum).
    pub fn rfft(&self, axis: isize) -> Result<DistArray> {
        self.local_transform("dist::rfft", axis, |b, ax| {
            crate::fft::rfft_with(
                b,
                &crate::fft::FftOptions {
                    axis: ax,
                    ..Default::default()
                },
            )
        })
    }

    fn local_transform(
        &self,
        op: &'static str,
        axis: isize,
        f: impl Fn(&Array, isize) -> Result<Array>,
    ) -> Result<DistArray> {
        let ax = crate::core::layout::normalize_axis(op, axis, self.ndim())?;
        if self.split == Some(ax) {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "axis {ax} is the split axis: resplit first (d.resplit(Some(other))), or use fft2/fftn, which transpose once"
                ),
            });
        }
        let local = f(&self.local, ax as isize)?;
        let mut global = self.global.clone();
        global[ax] = local.shape()[ax];
        Ok(DistArray::from_parts(local, global, self.split, self.comm))
    }

    /// The 2-D FFT over the last two axes (`numpy.fft.fft2`): see
    /// [`DistArray::fftn`].
    pub fn fft2(&self) -> Result<DistArray> {
        let n = self.ndim();
        if n < 2 {
            return Err(Error::Shape {
                op: "dist::fft2",
                detail: format!("needs at least 2 dimensions, got {n}"),
            });
        }
        self.fftn(&[n - 2, n - 1])
    }

    /// The FFT over `axes` by the slab method: the axes this rank holds
    /// whole are transformed locally, the array is resplit once (one
    /// all-to-all) onto an axis already transformed, and the remaining axis
    /// (the old split axis) is transformed. The result is split along that
    /// other axis, as distributed FFT libraries return it.
    pub fn fftn(&self, axes: &[usize]) -> Result<DistArray> {
        let op = "dist::fftn";
        for &a in axes {
            if a >= self.ndim() {
                return Err(Error::Axis {
                    op,
                    axis: a as isize,
                    ndim: self.ndim(),
                });
            }
        }
        let Some(s) = self.split.filter(|s| axes.contains(s)) else {
            // The split axis is not transformed: every rank does all of it.
            let mut out = self.clone();
            for &a in axes {
                out = out.fft(a as isize)?;
            }
            return Ok(out);
        };
        let first: Vec<usize> = axes.iter().copied().filter(|&a| a != s).collect();
        let Some(&target) = first.first() else {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "transforming only the split axis {s}: resplit along another axis and call fft"
                ),
            });
        };
        let mut out = self.clone();
        for &a in &first {
            out = out.fft(a as isize)?;
        }
        out.resplit(Some(target))?.fft(s as isize)
    }
}
