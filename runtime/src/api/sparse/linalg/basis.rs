//! An orthonormal Krylov basis kept as the rows of one device array, and
//! the Gram-Schmidt step that extends it (used by `gmres` and `eigsh`).
//!
//! A step orthogonalizes `w` against rows `0..len` and writes the result
//! straight into row `len`, the next row ([`Basis::push`] then scales it in
//! place and counts it). Each pass works with all earlier rows at once:
//! float32 and float64 bases take the backend's fused pass
//! (`Matmul::gram_schmidt_pass`: on the GPU four launches for `h = V w`,
//! `w - V^T h` and both norms), complex ones two `matmul`s (cuBLAS gemv), a
//! subtraction and two `vdot`s. Classical Gram-Schmidt loses orthogonality
//! when `w` is nearly in the span, so the step repeats the pass (in place)
//! when the norm drops below 0.7 of what it was (the
//! Daniel-Gragg-Kaufman-Stewart test); a Lanczos step (and a GMRES step of
//! a nearly symmetric operator) first removes the two rows its recurrence
//! couples to, after which that repeat is rare. The
//! coefficients and the norms of a step come back to the host in one small
//! transfer: they are what the small Hessenberg or tridiagonal problem on
//! the host needs.

use std::ops::Range;

use num_complex::Complex64;

use crate::api::shape::index::SliceElem;
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

const OP: &str = "gram_schmidt_pass";

/// Rows `0..len` are orthonormal vectors of length n; row `len` (when
/// there is room) holds the last orthogonalized vector until it is pushed.
pub(super) struct Basis {
    rows: Array,
    pub len: usize,
    complex: bool,
}

/// The coefficients and norms of orthogonalizing `w` against the basis
/// (the vector itself is in the basis's next row).
pub(super) struct Projected {
    /// The coefficients `V^H w` (one per basis row).
    pub h: Vec<Complex64>,
    /// `||w||` before and after the projection.
    pub before: f64,
    pub after: f64,
    /// Whether the DGKS test asked for a second pass over the basis.
    pub repeated: bool,
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

    /// Sets row `i` to `factor * v` (one pass, into the row) and makes the
    /// basis `i + 1` long.
    pub fn set_scaled(&mut self, i: usize, factor: f64, v: &Array) -> Result<()> {
        let mut row = self.row(i)?;
        crate::multiply_out(v, factor, &mut row)?;
        self.len = i + 1;
        Ok(())
    }

    /// Sets the first rows to the rows of `v` (k, n) and makes the basis k long.
    pub fn set_first(&mut self, v: &Array) -> Result<()> {
        let k = v.shape()[0];
        self.rows
            .slice_assign([SliceElem::from(0..k as isize)], v)?;
        self.len = k;
        Ok(())
    }

    /// Makes row `len` (what the last orthogonalization left there),
    /// scaled in place by `factor`, part of the basis.
    pub fn push(&mut self, factor: f64) -> Result<()> {
        if factor != 1.0 {
            let mut row = self.row(self.len)?;
            let src = row.clone();
            crate::multiply_out(&src, factor, &mut row)?;
        }
        self.len += 1;
        Ok(())
    }

    /// `coeffs @ rows[..coeffs.len()]` (a combination of the first rows).
    pub fn combine(&self, coeffs: &[Complex64]) -> Result<Array> {
        let y = upload(coeffs, self.complex, self.rows.dtype(), &self.rows)?;
        crate::api::linalg::matmul::matmul(&y, &self.first(coeffs.len())?)
    }

    /// `w` orthogonalized against the first `len` rows, into row `len`.
    pub fn orthogonalize(&mut self, w: &Array) -> Result<Projected> {
        let w = self.conform(w)?;
        let len = self.len;
        let v = self.first(len)?;
        let coeffs = self.coefficients(len + 2)?;
        self.pass(&v, &w, &coeffs)?;
        let vals = read_back(&coeffs)?;
        let (h, before, after) = (vals[..len].to_vec(), root(vals[len]), root(vals[len + 1]));
        self.repeat_if_cancelled(&v, h, before, before, after)
    }

    /// `w` orthogonalized against the first `len` rows, into row `len`,
    /// when in exact arithmetic only the rows `recent` are not orthogonal
    /// to it (a Lanczos step: `A v_j` couples to `v_{j-1}` and `v_j` alone),
    /// or mostly those (an Arnoldi step of a nearly symmetric operator).
    /// Those come off first, a pass over two rows; the pass over the whole
    /// basis that follows (in place) then removes only rounding, so the
    /// norm hardly drops and the DGKS repeat, a second pass over every row,
    /// is rarely taken: one pass over the basis per step instead of two.
    /// One read-back.
    pub fn orthogonalize_recurrence(
        &mut self,
        w: &Array,
        recent: Range<usize>,
    ) -> Result<Projected> {
        let w = self.conform(w)?;
        let (r, len) = (recent.len(), self.len);
        let local = self
            .rows
            .slice([SliceElem::from(recent.start as isize..recent.end as isize)])?;
        let v = self.first(len)?;
        let next = self.row(len)?;
        let coeffs = self.coefficients(r + 2 + len + 2)?;
        self.pass(&local, &w, &slice(&coeffs, 0..r + 2)?)?;
        self.pass(&v, &next, &slice(&coeffs, r + 2..r + 2 + len + 2)?)?;
        let vals = read_back(&coeffs)?;
        let (local_h, all) = vals.split_at(r + 2);
        let mut h = all[..len].to_vec();
        for (i, x) in local_h[..r].iter().enumerate() {
            h[recent.start + i] += x;
        }
        let (before, entering, after) = (root(local_h[r]), root(all[len]), root(all[len + 1]));
        self.repeat_if_cancelled(&v, h, before, entering, after)
    }

    /// The DGKS test: when a pass took the vector from `entering` down to
    /// below 0.7 of it, rounding left parts of the basis in it, and a
    /// second pass (in place, in row `len`) removes them (its coefficients
    /// add to `h`).
    fn repeat_if_cancelled(
        &self,
        v: &Array,
        mut h: Vec<Complex64>,
        before: f64,
        entering: f64,
        after: f64,
    ) -> Result<Projected> {
        if after >= 0.7 * entering {
            return Ok(Projected {
                h,
                before,
                after,
                repeated: false,
            });
        }
        let len = self.len;
        let coeffs = self.coefficients(len + 2)?;
        self.pass(v, &self.row(len)?, &coeffs)?;
        let vals = read_back(&coeffs)?;
        for (a, b) in h.iter_mut().zip(&vals[..len]) {
            *a += b;
        }
        Ok(Projected {
            h,
            before,
            after: root(vals[len + 1]),
            repeated: true,
        })
    }

    /// `w` as the pass takes it: the basis's dtype, C-contiguous, on its device.
    fn conform(&self, w: &Array) -> Result<Array> {
        if w.device() != self.rows.device() {
            return Err(Error::DeviceMismatch {
                op: OP,
                a: self.rows.device().to_string(),
                b: w.device().to_string(),
            });
        }
        let n = self.rows.shape()[1];
        if w.shape() != [n] {
            return Err(Error::shape(
                OP,
                format!(
                    "a vector of shape ({n},) was expected, not {}",
                    crate::core::error::fmt_shape(w.shape())
                ),
            ));
        }
        if w.dtype() == self.rows.dtype() && w.is_c_contiguous() {
            Ok(w.clone())
        } else {
            w.astype(self.rows.dtype())
        }
    }

    /// A device vector for `k` coefficients: float64, or complex128 for a
    /// complex basis.
    fn coefficients(&self, k: usize) -> Result<Array> {
        let dt = if self.complex {
            DType::Complex128
        } else {
            DType::Float64
        };
        crate::with_device(self.rows.device(), || crate::empty(k, dt))
    }

    /// One classical Gram-Schmidt pass of `w` against the rows of `v`, on
    /// the device: `w - v^H (v w)` into row `len` (`w` may be that row),
    /// and `[v w, ||w||^2, ||w - ...||^2]` into `coeffs`.
    fn pass(&self, v: &Array, w: &Array, coeffs: &Array) -> Result<()> {
        let next = self.row(self.len)?;
        if !self.complex {
            let be = crate::backend::on(OP, self.rows.device())?;
            return be.gram_schmidt_pass(v.view(), w.view(), next.view(), coeffs.view());
        }
        let mm = crate::api::linalg::matmul::matmul;
        let h = mm(&crate::api::linalg::matmul::conj(v)?, w)?;
        let w2 = crate::subtract(w, mm(&v.t(), &h)?)?;
        let parts = crate::concatenate(&[&h, &squared_norm(w)?, &squared_norm(&w2)?], 0)?;
        let mut c = coeffs.clone();
        c.slice_assign([SliceElem::from(..)], &parts)?;
        let mut next = next;
        next.slice_assign([SliceElem::from(..)], &w2)
    }
}

/// Elements `r` of a 1-D array (a view).
fn slice(a: &Array, r: Range<usize>) -> Result<Array> {
    a.slice([SliceElem::from(r.start as isize..r.end as isize)])
}

/// `||x||^2` as a 1-element device array.
fn squared_norm(x: &Array) -> Result<Array> {
    crate::api::linalg::matmul::vdot(x, x)?.reshape(vec![1])
}

/// The coefficients, read back in one transfer.
fn read_back(coeffs: &Array) -> Result<Vec<Complex64>> {
    if coeffs.dtype() == DType::Complex128 {
        return coeffs.to_vec::<Complex64>();
    }
    Ok(coeffs
        .to_vec::<f64>()?
        .into_iter()
        .map(|x| Complex64::new(x, 0.0))
        .collect())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Device;

    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
            })
            .collect()
    }

    /// The backend's pass over `len` rows of n random values (`in_place`:
    /// `w_out` is `w`): `(w_out, coeffs)` read back as f64.
    fn run_pass(
        dev: Device,
        dt: DType,
        len: usize,
        n: usize,
        in_place: bool,
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        let on = |v: Vec<f64>, shape: &[usize]| -> Result<Array> {
            Array::from_host_slice(&v, shape, dev)?.astype(dt)
        };
        // The rows sit in a larger array, as a basis's do, with w after them.
        let all = on(values((len + 2) * n, 7 + len as u64), &[len + 2, n])?;
        let v = all.slice([SliceElem::from(0..len as isize)])?;
        let w = all.at(len as isize)?;
        let out = if in_place {
            w.clone()
        } else {
            all.at(len as isize + 1)?
        };
        let coeffs = crate::with_device(dev, || crate::empty(len + 2, DType::Float64))?;
        crate::backend::on(OP, dev)?.gram_schmidt_pass(
            v.view(),
            w.view(),
            out.view(),
            coeffs.view(),
        )?;
        Ok((
            out.astype(DType::Float64)?.to_vec::<f64>()?,
            coeffs.to_vec::<f64>()?,
        ))
    }

    /// The pass against a plain f64 computation on the host, and on a GPU
    /// (when there is one) against the CPU backend: row counts on both sides
    /// of the kernel's groups of 8 and of its 512-row chunks of `h`, lengths
    /// that leave threads idle or take several grid-stride rounds, in place
    /// and not, float32 and float64.
    #[test]
    fn fused_pass_matches_the_definition_on_every_device() {
        let gpu = (crate::backend::probe::device_count() > 0).then_some(Device::Cuda(0));
        let cases: &[(usize, usize)] = &[
            (0, 5),
            (1, 1),
            (2, 300),
            (7, 1000),
            (8, 33),
            (9, 4097),
            (21, 2000),
            (3, 300_000),
            (600, 700),
        ];
        for dt in [DType::Float64, DType::Float32] {
            // The rounding of one element of w2 (f32: its final rounding).
            let tol = if dt == DType::Float64 { 1e-12 } else { 1e-6 };
            for &(len, n) in cases {
                // The inputs as stored.
                let all: Vec<f64> = values((len + 2) * n, 7 + len as u64)
                    .into_iter()
                    .map(|a| {
                        if dt == DType::Float32 {
                            a as f32 as f64
                        } else {
                            a
                        }
                    })
                    .collect();
                let row = |r: usize| &all[r * n..(r + 1) * n];
                let w = row(len);
                let h: Vec<f64> = (0..len)
                    .map(|r| row(r).iter().zip(w).map(|(a, b)| a * b).sum())
                    .collect();
                // Each element of w2 and the size of what was summed into it.
                let want: Vec<(f64, f64)> = (0..n)
                    .map(|i| {
                        let terms = (0..len).map(|r| row(r)[i] * h[r]);
                        let size = w[i].abs() + terms.clone().map(f64::abs).sum::<f64>();
                        (w[i] - terms.sum::<f64>(), size)
                    })
                    .collect();
                // A sum of n products of values below 0.5 in size.
                let dot_tol = 1e-15 * n as f64 * (n as f64 * 0.25 + 1.0);
                // A sum of n squares, relative to itself.
                let norm_tol = |e: f64| 1e-15 * n as f64 * (1.0 + e);
                for in_place in [false, true] {
                    let what = format!("{dt} len {len} n {n} in place {in_place}");
                    let (w2, c) = run_pass(Device::Cpu, dt, len, n, in_place).unwrap();
                    for (i, (g, (e, size))) in w2.iter().zip(&want).enumerate() {
                        assert!(
                            (g - e).abs() <= tol * (1.0 + size),
                            "{what}: w2[{i}] {g} vs {e}"
                        );
                    }
                    let sq = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>();
                    let mut want_c = h.clone();
                    want_c.extend([sq(w), sq(&w2)]);
                    assert_eq!(c.len(), len + 2, "{what}");
                    for (i, (g, e)) in c.iter().zip(&want_c).enumerate() {
                        let t = if i < len { dot_tol } else { norm_tol(*e) };
                        assert!((g - e).abs() <= t, "{what}: coeffs[{i}] {g} vs {e}");
                    }
                    let Some(gpu) = gpu else { continue };
                    let (gw2, gc) = run_pass(gpu, dt, len, n, in_place).unwrap();
                    assert_eq!((gw2.len(), gc.len()), (n, len + 2), "{what}");
                    for (i, (g, (e, size))) in gw2.iter().zip(&want).enumerate() {
                        assert!(
                            (g - e).abs() <= tol * (1.0 + size),
                            "{what}: GPU w2[{i}] {g} vs {e}"
                        );
                    }
                    for (i, (g, e)) in gc[..len + 1].iter().zip(&c).enumerate() {
                        let t = if i < len { dot_tol } else { norm_tol(*e) };
                        assert!((g - e).abs() <= t, "{what}: GPU coeffs[{i}] {g} vs {e}");
                    }
                    // ||w2||^2 of the GPU's own w2 (its rounding may differ).
                    let (g, e) = (gc[len + 1], sq(&gw2));
                    assert!(
                        (g - e).abs() <= norm_tol(e),
                        "{what}: GPU ||w2||^2 {g} vs {e}"
                    );
                }
            }
        }
    }
}
