//! QR of a tall-skinny matrix split by rows (TSQR): each rank factors its
//! block, the small triangular factors of all ranks are gathered and
//! factored once more, and each rank turns its part of that second Q into
//! its rows of the global Q. One all-gather of `world` n x n matrices is the
//! only communication, where a column-by-column Householder QR over ranks
//! would need a reduction per column.

use super::DistArray;
use crate::api::linalg::QrMode;
use crate::backend::probe::with_device;
use crate::core::error::{Error, Result};

impl DistArray {
    /// The reduced QR factorization of a 2-D matrix split by rows
    /// (`split == Some(0)`), `m x n` with at least `n` rows in all: `(Q, R)`,
    /// Q split by rows as `self` (`m x n`, orthonormal columns) and R
    /// replicated (`n x n`, upper triangular). As with `cp::linalg::qr`,
    /// the signs of R's rows (and Q's columns) may differ from NumPy's.
    /// A block may hold fewer rows than `n`.
    pub fn qr(&self) -> Result<(DistArray, DistArray)> {
        let op = "dist::qr";
        if self.ndim() != 2 || self.split != Some(0) {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "takes a 2-D array split by rows (split Some(0)), got shape {:?} split {:?}",
                    self.global, self.split
                ),
            });
        }
        let (m, n) = (self.global[0], self.global[1]);
        if m < n {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "factors tall-skinny matrices (rows >= columns), got {m} x {n}; \
                     gather a wide matrix with to_array() and use cp::linalg::qr"
                ),
            });
        }
        let dev = self.device();
        // Step 1: this rank's block, R padded to n x n (a block of k < n rows
        // gives k rows of R; the zero rows below change nothing).
        let rows = self.local.shape()[0];
        let k = rows.min(n);
        let (q1, r1) = if rows == 0 {
            (
                None,
                with_device(dev, || crate::zeros([n, n], self.dtype_of_factors()))?,
            )
        } else {
            let (q, r) = crate::api::linalg::qr(&self.local, QrMode::Reduced)?;
            let q = q.ok_or_else(|| Error::LinAlg {
                op,
                detail: "qr in reduced mode returned no Q".into(),
            })?;
            let padded = if k < n {
                let mut p = with_device(dev, || crate::zeros([n, n], r.dtype()))?;
                p.slice_assign(crate::s![0..k, ..], &r)?;
                p
            } else {
                r
            };
            (Some(q), padded)
        };
        // Step 2: every rank gathers the stacked R factors (world*n x n) and
        // factors them the same way, so R2 (and Q2) agree on every rank.
        let stacked = self.comm.all_gather(std::slice::from_ref(&r1))?.remove(0);
        let (q2, r2) = crate::api::linalg::qr(&stacked, QrMode::Reduced)?;
        let q2 = q2.ok_or_else(|| Error::LinAlg {
            op,
            detail: "qr in reduced mode returned no Q".into(),
        })?;
        // Step 3: this rank's rows of Q are Q1 times its n rows of Q2 (only
        // the first k of them meet Q1's k columns).
        let me = self.rank();
        let q_local = match q1 {
            None => with_device(dev, || crate::zeros([0, n], q2.dtype()))?,
            Some(q1) => {
                let start = me * n;
                let mine = q2.slice(crate::s![start..start + k, ..])?;
                crate::matmul(&q1, &mine)?
            }
        };
        Ok((
            DistArray::from_parts(q_local, vec![m, n], Some(0), self.comm),
            DistArray::from_parts(r2, vec![n, n], None, self.comm),
        ))
    }

    /// The dtype `cp::linalg::qr` returns for this array's dtype (integers
    /// and bools factor in float64).
    fn dtype_of_factors(&self) -> crate::core::dtype::DType {
        match self.dtype() {
            d if d.is_inexact() => d.compute_dtype(),
            _ => crate::core::dtype::DType::Float64,
        }
    }
}
