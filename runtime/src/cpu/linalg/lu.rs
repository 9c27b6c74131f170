//! Triangular solves and LAPACK-style LU factors on the CPU (faer), for
//! `solve_triangular`, `lu_factor` and `lu_solve`.

use faer::linalg::triangular_solve as tri;
use faer::{Conj, Mat, MatMut, MatRef, Par};

use super::{from_mat, host_matrix, owned};
use crate::core::view::View;
use crate::cpu::matmul::Field;
use crate::ops::linalg::{Owned, Trans, Triangular};

/// Solves `op(a) x = b` in place in `b`, reading `a`'s `lower` or upper
/// triangle (and not its diagonal when `unit`).
fn triangular_in_place<T: Field>(
    a: MatRef<'_, T>,
    b: MatMut<'_, T>,
    lower: bool,
    trans: Trans,
    unit: bool,
) {
    // op(a) is a's transpose (conjugated for C): the other triangle of aᵀ.
    let (m, lower) = match trans {
        Trans::N => (a, lower),
        Trans::T | Trans::C => (a.transpose(), !lower),
    };
    let conj = if trans == Trans::C {
        Conj::Yes
    } else {
        Conj::No
    };
    match (lower, unit) {
        (true, false) => tri::solve_lower_triangular_in_place_with_conj(m, conj, b, Par::Seq),
        (true, true) => tri::solve_unit_lower_triangular_in_place_with_conj(m, conj, b, Par::Seq),
        (false, false) => tri::solve_upper_triangular_in_place_with_conj(m, conj, b, Par::Seq),
        (false, true) => tri::solve_unit_upper_triangular_in_place_with_conj(m, conj, b, Par::Seq),
    }
}

/// A 2-D view as an owned faer matrix.
fn mat_of<T: Field>(a: View<'_>) -> Mat<T> {
    let (r, c) = (a.shape()[0], a.shape()[1]);
    let v = host_matrix::<T>(a);
    Mat::from_fn(r, c, |i, j| v[i * c + j])
}

pub(super) fn solve_triangular<T: Field>(a: View<'_>, b: View<'_>, how: Triangular) -> Owned {
    let a = mat_of::<T>(a);
    let mut x = mat_of::<T>(b);
    triangular_in_place(
        a.as_ref(),
        x.as_mut(),
        how.lower,
        how.trans,
        how.unit_diagonal,
    );
    from_mat(x.as_ref())
}

/// LAPACK's getrf: L and U in one matrix and 1-based row swaps (int64).
pub(super) fn lu_factor<T: Field>(a: View<'_>) -> (Owned, Owned) {
    let n = a.shape()[0];
    let m = mat_of::<T>(a);
    let lu = m.as_ref().partial_piv_lu();
    let (l, u) = (lu.L(), lu.U());
    let factors = Mat::from_fn(n, n, |i, j| if i > j { l[(i, j)] } else { u[(i, j)] });
    // faer's P A = L U with (P A) row i = A row fwd[i]; LAPACK's pivots are
    // the swaps that, applied in order, bring row fwd[i] to position i.
    let (fwd, _) = lu.P().arrays();
    let mut at: Vec<usize> = (0..n).collect(); // original row at each position
    let mut pos: Vec<usize> = (0..n).collect(); // position of each original row
    let mut piv = Vec::with_capacity(n);
    for (i, &row) in fwd.iter().enumerate() {
        let j = pos[row];
        piv.push(j as i64 + 1);
        let moved = at[i];
        at.swap(i, j);
        pos[moved] = j;
        pos[row] = i;
    }
    (from_mat(factors.as_ref()), owned(piv, &[n]))
}

/// LAPACK's getrs with `lu_factor`'s factors and 1-based pivots.
pub(super) fn lu_solve<T: Field>(lu: View<'_>, piv: View<'_>, b: View<'_>, trans: Trans) -> Owned {
    let f = mat_of::<T>(lu);
    let piv = host_matrix_i64(piv);
    let mut x = mat_of::<T>(b);
    let swap = |x: &mut Mat<T>, i: usize| {
        let j = piv[i] as usize - 1;
        if i != j {
            for c in 0..x.ncols() {
                let t = x[(i, c)];
                x[(i, c)] = x[(j, c)];
                x[(j, c)] = t;
            }
        }
    };
    // a = Pᵀ L U: a x = b is L U x = P b; aᵀ x = b is Uᵀ Lᵀ (P x) = b.
    if trans == Trans::N {
        (0..piv.len()).for_each(|i| swap(&mut x, i));
        triangular_in_place(f.as_ref(), x.as_mut(), true, trans, true);
        triangular_in_place(f.as_ref(), x.as_mut(), false, trans, false);
    } else {
        triangular_in_place(f.as_ref(), x.as_mut(), false, trans, false);
        triangular_in_place(f.as_ref(), x.as_mut(), true, trans, true);
        (0..piv.len()).rev().for_each(|i| swap(&mut x, i));
    }
    from_mat(x.as_ref())
}

/// A 1-D int64 view's values.
fn host_matrix_i64(v: View<'_>) -> Vec<i64> {
    v.gather::<i64>()
}
