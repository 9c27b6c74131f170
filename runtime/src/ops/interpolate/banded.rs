//! The element rules of B-splines both halves follow: the knot interval of
//! a point, the basis (and its derivatives) there, and the banded
//! collocation system of an interpolating spline with its pivoted solve
//! (SciPy's `_coloc` and LAPACK's `gbsv`). The CUDA half
//! (`cuda/kernels/interp_colloc.cu`, `interp_grid_spline.cu`) is the same
//! arithmetic in the same order.

use crate::core::error::{Error, Result};

/// The knot interval `l` (`t[l] <= x < t[l+1]`, `k <= l < nt`) holding `x`;
/// the right end belongs to the last interval.
pub(crate) fn interval(t: &[f64], k: usize, nt: usize, x: f64) -> usize {
    // Interior knots t[k+1..nt] at or below x, counted by bisection.
    let inner = &t[k + 1..nt];
    k + inner.partition_point(|&v| v <= x)
}

/// The derivatives `0..=nu` of the `k + 1` basis functions `B_{l-k..=l}`
/// nonzero at `x` in interval `l`: `ders[d][j]` is `B_{l-k+j}^{(d)}(x)`
/// (the triangular recurrences of Piegl and Tiller's algorithm A2.3).
pub(crate) fn basis_derivatives(t: &[f64], k: usize, l: usize, x: f64, nu: usize) -> Vec<Vec<f64>> {
    let mut ndu = vec![vec![0.0; k + 1]; k + 1];
    let (mut left, mut right) = (vec![0.0; k + 1], vec![0.0; k + 1]);
    ndu[0][0] = 1.0;
    for j in 1..=k {
        left[j] = x - t[l + 1 - j];
        right[j] = t[l + j] - x;
        let mut saved = 0.0;
        for r in 0..j {
            ndu[j][r] = right[r + 1] + left[j - r];
            let temp = ndu[r][j - 1] / ndu[j][r];
            ndu[r][j] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        ndu[j][j] = saved;
    }
    let mut ders = vec![vec![0.0; k + 1]; nu + 1];
    for (j, d) in ders[0].iter_mut().enumerate() {
        *d = ndu[j][k];
    }
    let mut a = vec![vec![0.0; k + 1]; 2];
    for r in 0..=k {
        let (mut s1, mut s2) = (0, 1);
        a[0][0] = 1.0;
        for q in 1..=nu.min(k) {
            let mut d = 0.0;
            let rk = r as isize - q as isize;
            let pk = k - q;
            if r >= q {
                a[s2][0] = a[s1][0] / ndu[pk + 1][rk as usize];
                d = a[s2][0] * ndu[rk as usize][pk];
            }
            let j1 = if rk >= -1 { 1 } else { (-rk) as usize };
            let j2 = if r as isize - 1 <= pk as isize {
                q - 1
            } else {
                k - r
            };
            for j in j1..=j2 {
                let i = (rk + j as isize) as usize;
                a[s2][j] = (a[s1][j] - a[s1][j - 1]) / ndu[pk + 1][i];
                d += a[s2][j] * ndu[i][pk];
            }
            if r <= pk {
                a[s2][q] = -a[s1][q - 1] / ndu[pk + 1][r];
                d += a[s2][q] * ndu[r][pk];
            }
            ders[q][r] = d;
            std::mem::swap(&mut s1, &mut s2);
        }
    }
    let mut scale = k as f64;
    for (q, row) in ders.iter_mut().enumerate().skip(1) {
        for v in row.iter_mut() {
            *v *= scale;
        }
        scale *= (k as f64) - q as f64;
    }
    ders
}

/// The `k + 1` basis functions `B_{l-k..=l}` at `x` in interval `l`
/// (Cox-de Boor's triangle; `out[j]` is `B_{l-k+j}(x)`), without the
/// allocations of [`basis_derivatives`]: the evaluation loops call it per point.
pub(crate) fn basis_values(t: &[f64], k: usize, l: usize, x: f64, out: &mut [f64]) {
    let (mut left, mut right) = ([0.0f64; MAX_DEGREE + 1], [0.0f64; MAX_DEGREE + 1]);
    out[0] = 1.0;
    for j in 1..=k {
        left[j] = x - t[l + 1 - j];
        right[j] = t[l + j] - x;
        let mut saved = 0.0;
        for r in 0..j {
            let temp = out[r] / (right[r + 1] + left[j - r]);
            out[r] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        out[j] = saved;
    }
}

/// The highest spline degree the kernels hold in registers.
pub(crate) const MAX_DEGREE: usize = 5;

/// The collocation matrix of the spline of degree `k` on knots `t` through
/// the points `x` (`n` of them): row `i + extra` is the basis at `x[i]`;
/// with `order > 0` (one derivative condition per end, `extra = 1`) rows 0
/// and `nt - 1` are the `order`-th derivatives of the basis at the ends.
pub(crate) fn collocation_band(
    op: &'static str,
    t: &[f64],
    x: &[f64],
    k: usize,
    order: usize,
) -> Result<Band> {
    let nt = t.len() - k - 1;
    let extra = usize::from(order > 0);
    let mut band = Band::new(nt, k);
    let put = |band: &mut Band, row: usize, xv: f64, nu: usize| -> Result<()> {
        let l = interval(t, k, nt, xv);
        let d = basis_derivatives(t, k, l, xv, nu);
        band.set_row(op, row, l - k, &d[nu])
    };
    if extra == 1 {
        put(&mut band, 0, x[0], order)?;
        put(&mut band, nt - 1, x[x.len() - 1], order)?;
    }
    for (i, &xv) in x.iter().enumerate() {
        put(&mut band, i + extra, xv, 0)?;
    }
    Ok(band)
}

/// A square band matrix of `n` rows with `lower` subdiagonals and room for
/// `2 * lower` superdiagonals (partial pivoting widens the upper band by
/// the lower one, as LAPACK's `gbsv` storage does).
pub(crate) struct Band {
    n: usize,
    lower: usize,
    width: usize,
    a: Vec<f64>,
}

impl Band {
    pub(crate) fn new(n: usize, lower: usize) -> Band {
        let width = 3 * lower + 1;
        Band {
            n,
            lower,
            width,
            a: vec![0.0; n * width],
        }
    }

    /// The stored entries, `n` rows of `3 * lower + 1` (row `i`, column
    /// `j` at `i * width + j + lower - i`).
    pub(crate) fn into_values(self) -> Vec<f64> {
        self.a
    }

    fn at(&self, i: usize, j: usize) -> usize {
        i * self.width + (j + self.lower - i)
    }

    /// Sets row `i`'s entries from column `j0` on; they must lie in the band.
    pub(crate) fn set_row(
        &mut self,
        op: &'static str,
        i: usize,
        j0: usize,
        vals: &[f64],
    ) -> Result<()> {
        if j0 + self.lower < i || j0 + vals.len() > i + self.lower + 1 + self.lower {
            return Err(Error::invalid(
                op,
                format!(
                    "the collocation row {i} falls outside the band (columns {j0}..{})",
                    j0 + vals.len()
                ),
            ));
        }
        for (q, &v) in vals.iter().enumerate() {
            let p = self.at(i, j0 + q);
            self.a[p] = v;
        }
        Ok(())
    }

    /// Solves `A x = b` in place for `b` of `n` rows of `m` values
    /// (Gaussian elimination with partial pivoting inside the band).
    pub(crate) fn solve(mut self, op: &'static str, b: &mut [f64], m: usize) -> Result<()> {
        let (n, kl) = (self.n, self.lower);
        let ku = 2 * kl;
        for j in 0..n {
            let last = (j + kl).min(n - 1);
            let mut p = j;
            for r in j + 1..=last {
                if self.a[self.at(r, j)].abs() > self.a[self.at(p, j)].abs() {
                    p = r;
                }
            }
            let piv = self.a[self.at(p, j)];
            if piv == 0.0 || !piv.is_finite() {
                return Err(Error::invalid(op, "the collocation matrix is singular"));
            }
            let cols = j..=(j + ku).min(n - 1);
            if p != j {
                for c in cols.clone() {
                    let (x, y) = (self.at(j, c), self.at(p, c));
                    self.a.swap(x, y);
                }
                for q in 0..m {
                    b.swap(j * m + q, p * m + q);
                }
            }
            for r in j + 1..=last {
                let f = self.a[self.at(r, j)] / piv;
                if f == 0.0 {
                    continue;
                }
                for c in cols.clone() {
                    let v = self.a[self.at(j, c)];
                    let d = self.at(r, c);
                    self.a[d] -= f * v;
                }
                for q in 0..m {
                    b[r * m + q] -= f * b[j * m + q];
                }
            }
        }
        for j in (0..n).rev() {
            for c in j + 1..=(j + ku).min(n - 1) {
                let v = self.a[self.at(j, c)];
                for q in 0..m {
                    b[j * m + q] -= v * b[c * m + q];
                }
            }
            let d = self.a[self.at(j, j)];
            for q in 0..m {
                b[j * m + q] /= d;
            }
        }
        Ok(())
    }
}
