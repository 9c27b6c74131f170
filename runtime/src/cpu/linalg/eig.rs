//! The general (non-Hermitian) eigendecomposition on the CPU (faer), for
//! `eig` and `eigvals`, with LAPACK's normalisation of the eigenvectors.

use num_complex::{Complex32, Complex64};

use super::{host_matrix, owned};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::view::View;
use crate::cpu::matmul::Field;
use crate::ops::linalg::Owned;

/// Eigenvalues (n,) and, when `vectors`, right eigenvectors (n, n) of the
/// square `a`, both of the complex dtype of `T`'s precision.
pub(super) fn eig<T: Field>(a: View<'_>, vectors: bool) -> Result<(Owned, Option<Owned>)> {
    let op = if vectors { "eig" } else { "eigvals" };
    let n = a.shape()[0];
    let values = host_matrix::<T>(a);
    let m = faer::MatRef::from_row_major_slice(&values, n, n);
    let no_convergence = |e: faer::linalg::evd::EvdError| Error::LinAlg {
        op,
        detail: format!("eigenvalues did not converge ({e:?})"),
    };
    let wide = |z: &num_complex::Complex<<T as faer::traits::ComplexField>::Real>| {
        Complex64::new(T::real_f64(&z.re), T::real_f64(&z.im))
    };
    if !vectors {
        let w: Vec<Complex64> = m
            .eigenvalues()
            .map_err(no_convergence)?
            .iter()
            .map(wide)
            .collect();
        return Ok((complex_owned::<T>(w, &[n]), None));
    }
    let f = m.eigen().map_err(no_convergence)?;
    let s = f.S().column_vector();
    let w: Vec<Complex64> = (0..n).map(|i| wide(&s[i])).collect();
    let u = f.U();
    let mut v: Vec<Complex64> = (0..n * n).map(|k| wide(&u[(k / n, k % n)])).collect();
    normalize_columns(&mut v, n);
    Ok((
        complex_owned::<T>(w, &[n]),
        Some(complex_owned::<T>(v, &[n, n])),
    ))
}

/// Complex values (computed as complex128) as a host result of the complex
/// dtype of `T`'s precision.
fn complex_owned<T: Field>(v: Vec<Complex64>, shape: &[usize]) -> Owned {
    match T::DTYPE.real_dtype() {
        DType::Float32 => {
            let narrow = v.iter().map(|z| Complex32::new(z.re as f32, z.im as f32));
            owned(narrow.collect::<Vec<_>>(), shape)
        }
        _ => owned(v, shape),
    }
}

/// LAPACK geev's normalisation of the columns of the C-order (n, n) `v`:
/// unit 2-norm and, for a column that is not real, its largest component
/// real and positive. (faer leaves its eigenvectors unscaled.)
fn normalize_columns(v: &mut [Complex64], n: usize) {
    for j in 0..n {
        let at = |i: usize| i * n + j;
        let Some(largest) = (0..n).max_by(|&p, &q| v[at(p)].norm().total_cmp(&v[at(q)].norm()))
        else {
            continue;
        };
        let top = v[at(largest)].norm();
        if top == 0.0 {
            continue;
        }
        // The norm of v / top, which neither overflows nor underflows.
        let norm = (0..n)
            .map(|i| (v[at(i)] / top).norm_sqr())
            .sum::<f64>()
            .sqrt()
            * top;
        let real = (0..n).all(|i| v[at(i)].im == 0.0);
        let turn = if real {
            Complex64::new(1.0, 0.0)
        } else {
            v[at(largest)].conj() / top
        };
        let scale = turn / norm;
        for i in 0..n {
            v[at(i)] *= scale;
        }
        if !real {
            v[at(largest)].im = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_get_unit_norm_and_a_real_largest_component() {
        // Column 0 real (kept real, sign kept); column 1 complex.
        let mut v = vec![
            Complex64::new(3.0, 0.0),
            Complex64::new(0.0, 2.0),
            Complex64::new(-4.0, 0.0),
            Complex64::new(1.0, 1.0),
        ];
        normalize_columns(&mut v, 2);
        assert!((v[0] - Complex64::new(0.6, 0.0)).norm() < 1e-15);
        assert!((v[2] - Complex64::new(-0.8, 0.0)).norm() < 1e-15);
        // Column 1 is (2i, 1 + i): norm sqrt(6); 2i turns to real 2/sqrt(6).
        let r6 = 6f64.sqrt();
        assert!((v[1] - Complex64::new(2.0 / r6, 0.0)).norm() < 1e-15);
        assert_eq!(v[1].im, 0.0);
        assert!((v[3] - Complex64::new(1.0, -1.0) / r6).norm() < 1e-15);
    }
}
