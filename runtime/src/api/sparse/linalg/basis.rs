//! An orthonormal Krylov basis kept as the rows of one device array, and
//! the Gram-Schmidt step that extends it (used by `gmres` and `eigsh`).
//!
//! Projections go through `matmul` with all earlier rows at once (cuBLAS
//! gemv on the GPU) rather than one inner product per row. Classical
//! Gram-Schmidt loses orthogonality when `w` is nearly in the span, so the
//! step repeats the projection when the norm drops below 0.7 of what it was
//! (the Daniel-Gragg-Kaufman-Stewart test); a Lanczos step first removes
//! the two rows its recurrence couples to, after which that repeat is rare.
//! The coefficients and the norms come back to the host in one small
//! transfer: they are what the small Hessenberg or tridiagonal problem on
//! the host needs.

use std::ops::Range;

use num_complex::Complex64;

use crate::api::shape::index::SliceElem;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::Result;

/// Rows `0..len` are orthonormal vectors of length n.
pub(super) struct Basis {
    rows: Array,
    pub len: usize,
    complex: bool,
}

/// The result of orthogonalizing `w` against the basis.
pub(super) struct Projected {
    /// `w` minus its projection on the basis.
    pub w: Array,
    /// The coefficients `V^H w` (one per basis row).
    pub h: Vec<Complex64>,
    /// `||w||` before and after the projection.
    pub before: f64,
    pub after: f64,
}

impl Basis {
    /// Room for `capacity` vectors like `like` (1-D), on its device.
    pub fn new(capacity: usize, like: &Array) -> Result<Basis> {
        let n = like.size();
        let rows = crate::with_device(like.device(), || {
            crate::zeros(vec![capacity, n], like.dtype())
        })?;
        Ok(Basis {
            rows,
            len: 0,
            complex: like.dtype().is_complex(),
        })
    }

    /// Row `i` (a view).
    pub fn row(&self, i: usize) -> Result<Array> {
        self.rows.at(i as isize)
    }

    /// The first `k` rows as a (k, n) view.
    pub fn first(&self, k: usize) -> Result<Array> {
        self.rows.slice([SliceElem::from(0..k as isize)])
    }

    /// Sets row `i` to `v` and makes the basis `i + 1` long.
    pub fn set(&mut self, i: usize, v: &Array) -> Result<()> {
        self.rows.slice_assign([SliceElem::Index(i as isize)], v)?;
        self.len = i + 1;
        Ok(())
    }

    /// `coeffs @ rows[..coeffs.len()]` (a combination of the first rows).
    pub fn combine(&self, coeffs: &[Complex64]) -> Result<Array> {
        let y = upload(coeffs, self.complex, self.rows.dtype(), &self.rows)?;
        crate::api::linalg::matmul::matmul(&y, &self.first(coeffs.len())?)
    }

    /// `w` orthogonalized against the first `len` rows.
    pub fn orthogonalize(&self, w: Array) -> Result<Projected> {
        let v = self.first(self.len)?;
        let (w1, h1) = self.pass(&v, &w)?;
        let vals = read_back(&[&h1, &squared_norm(&w)?, &squared_norm(&w1)?])?;
        let len = self.len;
        let (h, before, after) = (vals[..len].to_vec(), root(vals[len]), root(vals[len + 1]));
        self.repeat_if_cancelled(&v, w1, h, before, before, after)
    }

    /// `w` orthogonalized against the first `len` rows when, in exact
    /// arithmetic, only the rows `recent` are not orthogonal to it (a
    /// Lanczos step: `A v_j` couples to `v_{j-1}` and `v_j` alone). Those
    /// come off first, a pass over two rows; the pass over the whole basis
    /// that follows then removes only rounding, so the norm hardly drops
    /// and the DGKS repeat, a second pass over every row, is rarely taken:
    /// one pass over the basis per step instead of two. One read-back.
    pub fn orthogonalize_recurrence(&self, w: Array, recent: Range<usize>) -> Result<Projected> {
        let local = self
            .rows
            .slice([SliceElem::from(recent.start as isize..recent.end as isize)])?;
        let (w1, h_local) = self.pass(&local, &w)?;
        let v = self.first(self.len)?;
        let (w2, h_all) = self.pass(&v, &w1)?;
        let vals = read_back(&[
            &h_local,
            &h_all,
            &squared_norm(&w)?,
            &squared_norm(&w1)?,
            &squared_norm(&w2)?,
        ])?;
        let (r, len) = (recent.len(), self.len);
        let mut h = vals[r..r + len].to_vec();
        for (i, x) in vals[..r].iter().enumerate() {
            h[recent.start + i] += x;
        }
        let norms = &vals[r + len..];
        let (before, entering, after) = (root(norms[0]), root(norms[1]), root(norms[2]));
        self.repeat_if_cancelled(&v, w2, h, before, entering, after)
    }

    /// The DGKS test: when a pass took `w` from `entering` down to below
    /// 0.7 of it, rounding left parts of the basis in it, and a second pass
    /// removes them (its coefficients add to `h`).
    fn repeat_if_cancelled(
        &self,
        v: &Array,
        w: Array,
        mut h: Vec<Complex64>,
        before: f64,
        entering: f64,
        after: f64,
    ) -> Result<Projected> {
        if after >= 0.7 * entering {
            return Ok(Projected {
                w,
                h,
                before,
                after,
            });
        }
        let (w2, h2) = self.pass(v, &w)?;
        let vals = read_back(&[&h2, &squared_norm(&w2)?])?;
        for (a, b) in h.iter_mut().zip(&vals) {
            *a += b;
        }
        Ok(Projected {
            w: w2,
            h,
            before,
            after: root(vals[vals.len() - 1]),
        })
    }

    /// One classical Gram-Schmidt pass of `w` against the rows of `v`:
    /// `(w - v^H (v w), v w)`, on the device.
    fn pass(&self, v: &Array, w: &Array) -> Result<(Array, Array)> {
        let mm = crate::api::linalg::matmul::matmul;
        let vh = if self.complex {
            crate::api::linalg::matmul::conj(v)?
        } else {
            v.clone()
        };
        let h = mm(&vh, w)?;
        let w2 = crate::subtract(w, mm(&v.t(), &h)?)?;
        Ok((w2, h))
    }
}

/// `||x||^2` as a 1-element device array.
fn squared_norm(x: &Array) -> Result<Array> {
    crate::api::linalg::matmul::vdot(x, x)?.reshape(vec![1])
}

/// The parts, concatenated on the device and read back in one transfer.
fn read_back(parts: &[&Array]) -> Result<Vec<Complex64>> {
    crate::concatenate(parts, 0)?
        .astype(DType::Complex128)?
        .to_vec::<Complex64>()
}

/// A norm from its square (its real part, clamped at 0).
fn root(z: Complex64) -> f64 {
    z.re.max(0.0).sqrt()
}

/// Host coefficients as a 1-D array of `dtype` on `like`'s device.
pub(super) fn upload(c: &[Complex64], complex: bool, dtype: DType, like: &Array) -> Result<Array> {
    let a = if complex {
        Array::from_host_slice(c, &[c.len()], like.device())?
    } else {
        let re: Vec<f64> = c.iter().map(|z| z.re).collect();
        Array::from_host_slice(&re, &[c.len()], like.device())?
    };
    a.astype(dtype)
}
