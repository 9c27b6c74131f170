//! An orthonormal Krylov basis kept as the rows of one device array, and
//! the Gram-Schmidt step that extends it (used by `gmres` and `eigsh`).
//!
//! Projections go through `matmul` with all earlier rows at once (cuBLAS
//! gemv on the GPU) rather than one inner product per row. Classical
//! Gram-Schmidt loses orthogonality when `w` is nearly in the span, so the
//! step repeats the projection when the norm drops below 0.7 of what it was
//! (the Daniel-Gragg-Kaufman-Stewart test). The coefficients and the two
//! norms come back to the host in one small transfer: they are what the
//! small Hessenberg or tridiagonal problem on the host needs.

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
        let (w1, mut h, before, mut after) = self.project(&v, w, true)?;
        let mut w = w1;
        if after < 0.7 * before {
            let (w2, h2, _, a2) = self.project(&v, w, false)?;
            for (a, b) in h.iter_mut().zip(h2) {
                *a += b;
            }
            w = w2;
            after = a2;
        }
        Ok(Projected {
            w,
            h,
            before,
            after,
        })
    }

    /// One classical Gram-Schmidt pass; reads back `h` and the norms at once.
    fn project(
        &self,
        v: &Array,
        w: Array,
        with_before: bool,
    ) -> Result<(Array, Vec<Complex64>, f64, f64)> {
        let mm = crate::api::linalg::matmul::matmul;
        let vh = if self.complex {
            crate::api::linalg::matmul::conj(v)?
        } else {
            v.clone()
        };
        let h = mm(&vh, &w)?;
        let w2 = crate::subtract(&w, mm(&v.t(), &h)?)?;
        let sq = |x: &Array| -> Result<Array> {
            crate::api::linalg::matmul::vdot(x, x)?.reshape(vec![1])
        };
        let before = if with_before { sq(&w)? } else { sq(&w2)? };
        let packed = crate::concatenate(&[&h, &before, &sq(&w2)?], 0)?;
        let vals = packed.astype(DType::Complex128)?.to_vec::<Complex64>()?;
        let k = vals.len();
        let norm = |z: Complex64| z.re.max(0.0).sqrt();
        Ok((
            w2,
            vals[..k - 2].to_vec(),
            norm(vals[k - 2]),
            norm(vals[k - 1]),
        ))
    }
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
