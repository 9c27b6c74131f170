//! Arguments derived from one generated case for functions that take more
//! than arrays and axes: host floats, counts (small, zero or absurdly
//! large), names from a list, a 1-D float signal, and a chosen variant.
//!
//! Everything is a pure function of the case, so both devices see the same
//! arguments.

use super::strategies::Built;
use cuprite::num_complex::Complex64;
use cuprite::{Array, DType};

/// `n` as a small count (negative draws become 0).
pub fn count(n: i64) -> usize {
    n.max(0) as usize
}

/// A size that is sometimes absurd: the negative draws become sizes whose
/// byte count overflows (the call must refuse them, not allocate).
pub fn size(n: i64) -> usize {
    match n {
        -3 => usize::MAX,
        -2 => 1 << 62,
        -1 => 0,
        n => n as usize,
    }
}

/// The `i`-th entry of `list`, wrapping (any integer picks one).
pub fn pick<T: Clone>(i: i64, list: &[T]) -> T {
    list[i.rem_euclid(list.len() as i64) as usize].clone()
}

/// Up to 16 of an array's values as f64 (real parts; every dtype converts).
pub fn floats(a: &Array) -> Vec<f64> {
    complexes(a).into_iter().map(|c| c.re).collect()
}

/// Up to 16 of an array's values as complex numbers.
pub fn complexes(a: &Array) -> Vec<Complex64> {
    a.ravel()
        .and_then(|r| r.astype(DType::Complex128))
        .and_then(|c| c.to_vec::<Complex64>())
        .map(|v| v.into_iter().take(16).collect())
        .unwrap_or_default()
}

/// `a` as a 1-D float64 signal, so a call gets past dtype and rank checks
/// and reaches its numerics (NaN, ±inf and empty inputs included).
pub fn flat(a: &Array) -> Array {
    a.ravel()
        .and_then(|r| r.astype(DType::Float64))
        .unwrap_or_else(|_| a.clone())
}

/// `a` as float64 of its own shape.
pub fn real(a: &Array) -> Array {
    a.astype(DType::Float64).unwrap_or_else(|_| a.clone())
}

/// Two to six host coefficients from the case: `b` for a filter's
/// numerator, `a` for its denominator (sometimes starting with 0).
pub fn coefficients(g: &Built) -> (Vec<f64>, Vec<f64>) {
    let mut b = floats(&g.a);
    b.truncate(6);
    let mut a = floats(&g.b);
    a.truncate(4);
    if g.flag && !a.is_empty() {
        a[0] = 1.0;
    }
    (b, a)
}

/// Sections of six coefficients from the case's values (possibly none).
pub fn sections(g: &Built) -> Vec<[f64; 6]> {
    let v = floats(&g.a);
    v.chunks_exact(6)
        .map(|c| [c[0], c[1], c[2], 1.0, c[4], c[5]])
        .collect()
}

/// A band edge list: one or two frequencies from the case's scalar and n.
pub fn band(g: &Built) -> Vec<f64> {
    let lo = pick(g.n, &[0.1, 0.25, 0.0, 1.0, -0.5, g.scalar, 2.0]);
    if g.flag {
        vec![lo, pick(g.axis as i64, &[0.4, 0.6, lo, 0.05, g.scalar])]
    } else {
        vec![lo]
    }
}
