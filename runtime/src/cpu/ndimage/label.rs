//! Connected components and reductions over labels on the CPU.

use super::filters::c_strides;
use crate::ops::ndimage::LabelReduce;

fn find(parent: &mut [i64], mut x: usize) -> usize {
    while parent[x] as usize != x {
        let p = parent[x] as usize;
        parent[x] = parent[p];
        x = p;
    }
    x
}

/// Each element's component root (its smallest flat index), -1 off the mask.
pub(super) fn label_roots(mask: &[u8], shape: &[usize], neighbors: &[i64]) -> Vec<i64> {
    let nd = shape.len();
    let strides = c_strides(shape);
    let mut parent: Vec<i64> = mask
        .iter()
        .enumerate()
        .map(|(i, &m)| if m != 0 { i as i64 } else { -1 })
        .collect();
    let taps = neighbors.len() / nd.max(1);
    let mut idx = vec![0i64; nd];
    for i in 0..mask.len() {
        if mask[i] == 0 {
            continue;
        }
        let mut r = i;
        for d in 0..nd {
            idx[d] = (r / strides[d]) as i64;
            r %= strides[d];
        }
        for t in 0..taps {
            let mut j = 0i64;
            let mut inside = true;
            for d in 0..nd {
                let p = idx[d] + neighbors[t * nd + d];
                inside &= (0..shape[d] as i64).contains(&p);
                j += p * strides[d] as i64;
            }
            if !inside || mask[j as usize] == 0 {
                continue;
            }
            let (a, b) = (find(&mut parent, i), find(&mut parent, j as usize));
            if a != b {
                let (lo, hi) = (a.min(b), a.max(b));
                parent[hi] = lo as i64;
            }
        }
    }
    for i in 0..parent.len() {
        if parent[i] >= 0 {
            parent[i] = find(&mut parent, i) as i64;
        }
    }
    parent
}

/// 1, 2, ... for the roots in C order and each element its root's number (0
/// off the mask), with their count. A root is its component's smallest
/// index, so its number is written before any other element of it is read.
pub(super) fn number_roots(roots: &[i64]) -> (Vec<i32>, usize) {
    let mut numbers = vec![0i32; roots.len()];
    let mut count = 0usize;
    for (i, &r) in roots.iter().enumerate() {
        if r < 0 {
            continue;
        }
        numbers[i] = if r as usize == i {
            count += 1;
            count as i32
        } else {
            numbers[r as usize]
        };
    }
    (numbers, count)
}

/// The smaller of `m` and `v`, skipping a NaN `v` and taking -0.0 below
/// 0.0, so the result does not depend on the order of the values (the
/// GPU's atomic minimum follows the same rule).
fn ordered_min(m: f64, v: f64) -> f64 {
    if v < m || (v == m && v.is_sign_negative()) {
        v
    } else {
        m
    }
}

/// The reduction `how` of `values` per label in `0..bins`.
pub(super) fn label_reduce(
    values: &[f64],
    labels: &[i64],
    bins: usize,
    how: LabelReduce,
) -> Vec<f64> {
    let init = match how {
        LabelReduce::Sum => 0.0,
        LabelReduce::Min => f64::INFINITY,
        LabelReduce::Max => f64::NEG_INFINITY,
        LabelReduce::ArgMin | LabelReduce::ArgMax => -1.0,
    };
    let mut out = vec![init; bins];
    let mut best = vec![f64::NAN; bins];
    for (i, (&v, &l)) in values.iter().zip(labels).enumerate() {
        if l < 0 || l as usize >= bins {
            continue;
        }
        let o = &mut out[l as usize];
        match how {
            LabelReduce::Sum => *o += v,
            LabelReduce::Min => *o = ordered_min(*o, v),
            LabelReduce::Max => *o = -ordered_min(-*o, -v),
            // The first position of the extreme in C order; NaN is skipped,
            // as by min and max (and the GPU's kernels).
            LabelReduce::ArgMin | LabelReduce::ArgMax => {
                let b = &mut best[l as usize];
                let better = if how == LabelReduce::ArgMin {
                    v < *b
                } else {
                    v > *b
                };
                if !v.is_nan() && (*o < 0.0 || better) {
                    *b = v;
                    *o = i as f64;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_do_not_depend_on_the_order_of_values() {
        let labels = [0i64, 0, 0, 1, 1, -1];
        let sign = |v: Vec<f64>| v.iter().map(|x| x.is_sign_negative()).collect::<Vec<_>>();
        for values in [
            [0.0, -0.0, 1.0, -0.0, 0.0, 9.0],
            [-0.0, 0.0, 1.0, 0.0, -0.0, 9.0],
        ] {
            let min = label_reduce(&values, &labels, 2, LabelReduce::Min);
            assert_eq!(sign(min), [true, true]);
            let max = label_reduce(&values, &labels, 2, LabelReduce::Max);
            assert_eq!(max[0], 1.0);
            assert_eq!(sign(max), [false, false]);
            // Positions: the first of the tied zeros, whatever its sign.
            let at = label_reduce(&values, &labels, 2, LabelReduce::ArgMin);
            assert_eq!(at, [0.0, 3.0]);
        }
        // NaN is never an extreme nor its position; all NaN gives -1.
        let values = [f64::NAN, 3.0, 1.0, f64::NAN, f64::NAN, 0.0];
        let at = label_reduce(&values, &labels, 2, LabelReduce::ArgMin);
        assert_eq!(at, [2.0, -1.0]);
        let at = label_reduce(&values, &labels, 2, LabelReduce::ArgMax);
        assert_eq!(at, [1.0, -1.0]);
        let min = label_reduce(&values, &labels, 2, LabelReduce::Min);
        assert_eq!(min, [1.0, f64::INFINITY]);
    }
}
