//! Polynomial and Chebyshev series evaluation in Cephes' conventions (the
//! tables in `tables.rs` are written for them).

/// `c[0] x^n + c[1] x^(n-1) + ... + c[n]` (Cephes' `polevl`).
#[inline]
pub(super) fn polevl(x: f64, c: &[f64]) -> f64 {
    c.iter().fold(0.0, |acc, &k| acc * x + k)
}

/// [`polevl`] with an implied leading coefficient 1: `x^n + c[0] x^(n-1) +
/// ... + c[n-1]` (Cephes' `p1evl`).
#[inline]
pub(super) fn p1evl(x: f64, c: &[f64]) -> f64 {
    c.iter().fold(1.0, |acc, &k| acc * x + k)
}

/// The Chebyshev series `sum c[i] T_{n-1-i}(x/2)` with the last term halved,
/// by Clenshaw's recurrence (Cephes' `chbevl`: coefficients highest order first).
#[inline]
pub(super) fn chbevl(x: f64, c: &[f64]) -> f64 {
    let (mut b0, mut b1, mut b2) = (c[0], 0.0, 0.0);
    for &k in &c[1..] {
        b2 = b1;
        b1 = b0;
        b0 = x * b1 - b2 + k;
    }
    0.5 * (b0 - b2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomials_evaluate_highest_order_first() {
        assert_eq!(polevl(2.0, &[1.0, 0.0, -1.0]), 3.0);
        assert_eq!(p1evl(2.0, &[0.0, -1.0]), 3.0);
        // At x = 1: the T0 term halved (2 / 2) plus 3 T1(1/2) = 1.5.
        assert_eq!(chbevl(1.0, &[3.0, 2.0]), 2.5);
    }
}
