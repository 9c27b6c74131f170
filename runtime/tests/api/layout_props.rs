//! Property tests for layouts: contiguity, merged iteration, no-copy
//! reshapes, broadcasting and permutation, each checked against a naive
//! enumeration of multi-indices.

use cuprite::layout::{broadcast_shapes, Layout, Order};
use proptest::prelude::*;

/// Every multi-index of `shape` in C order.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    (0..n)
        .map(|mut k| {
            let mut idx = vec![0; shape.len()];
            for ax in (0..shape.len()).rev() {
                idx[ax] = k % shape[ax];
                k /= shape[ax];
            }
            idx
        })
        .collect()
}

/// Buffer positions by the definition offset + sum(index * stride).
fn naive_positions(l: &Layout) -> Vec<usize> {
    indices(l.shape())
        .iter()
        .map(|idx| {
            let p: isize = l.offset() as isize
                + idx
                    .iter()
                    .zip(l.strides())
                    .map(|(&i, &s)| i as isize * s)
                    .sum::<isize>();
            p as usize
        })
        .collect()
}

/// A random strided view of a buffer: a shape, then per axis a step (possibly
/// negative) and whether the axis is reversed, then a random permutation.
fn strided_layout() -> impl Strategy<Value = Layout> {
    prop::collection::vec((0usize..5, 1isize..3, any::<bool>()), 0..5)
        .prop_flat_map(|axes| {
            let n = axes.len();
            (Just(axes), Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        })
        .prop_map(|(axes, perm)| {
            // Base: a C-contiguous buffer big enough for the stepped extents.
            let base_shape: Vec<usize> = axes
                .iter()
                .map(|&(d, s, _)| (d * s as usize).max(1))
                .collect();
            let base_strides = cuprite::layout::c_strides(&base_shape);
            let buffer_len: usize = base_shape.iter().product();
            let mut offset = 0isize;
            let mut shape = Vec::new();
            let mut strides = Vec::new();
            for (ax, &(d, step, reversed)) in axes.iter().enumerate() {
                let st = base_strides[ax] * step;
                if reversed && d > 0 {
                    offset += (d as isize - 1) * st;
                    strides.push(-st);
                } else {
                    strides.push(st);
                }
                shape.push(d);
            }
            let l = Layout::new(shape, strides, offset as usize, buffer_len).unwrap();
            l.permuted(&perm)
        })
}

proptest! {
    #[test]
    fn positions_match_the_definition(l in strided_layout()) {
        prop_assert_eq!(l.positions().collect::<Vec<_>>(), naive_positions(&l));
    }

    #[test]
    fn contiguity_flags_match_positions(l in strided_layout()) {
        let pos = naive_positions(&l);
        let consecutive = pos.windows(2).all(|w| w[1] == w[0] + 1);
        if l.size() > 0 {
            prop_assert_eq!(l.is_c_contiguous(), consecutive);
        }
        // F contiguity is C contiguity of the reversed axes.
        let rev: Vec<usize> = (0..l.ndim()).rev().collect();
        prop_assert_eq!(l.is_f_contiguous(), l.permuted(&rev).is_c_contiguous());
    }

    #[test]
    fn merged_axes_visit_the_same_positions(l in strided_layout()) {
        let (shape, strides) = Layout::merge_axes(&[&l]);
        prop_assert!(shape.len() <= l.ndim());
        let m = Layout::new(shape, strides[0].clone(), l.offset(), usize::MAX / 2).unwrap();
        prop_assert_eq!(naive_positions(&m), naive_positions(&l));
    }

    #[test]
    fn no_copy_reshape_keeps_element_order(l in strided_layout(), split in 0usize..4) {
        // Try reshaping to the flat shape and to a 2-way split of it.
        let n = l.size();
        let mut targets = vec![vec![n]];
        if split > 0 && n % (split + 1) == 0 {
            targets.push(vec![split + 1, n / (split + 1)]);
        }
        for t in targets {
            if let Some(r) = l.reshaped(&t, Order::C) {
                prop_assert_eq!(r.shape(), &t[..]);
                prop_assert_eq!(naive_positions(&r), naive_positions(&l));
            }
        }
        // A C-contiguous layout always reshapes without a copy.
        if l.is_c_contiguous() {
            prop_assert!(l.reshaped(&[n], Order::C).is_some());
        }
    }

    #[test]
    fn f_order_reshape_is_c_reshape_of_reversed_axes(l in strided_layout()) {
        let n = l.size();
        let rev: Vec<usize> = (0..l.ndim()).rev().collect();
        let f = l.reshaped(&[n], Order::F).map(|r| naive_positions(&r));
        let c = l.permuted(&rev).reshaped(&[n], Order::C).map(|r| naive_positions(&r));
        prop_assert_eq!(f, c);
    }

    #[test]
    fn broadcasting_follows_numpy_rules(
        a in prop::collection::vec(1usize..4, 0..4),
        b in prop::collection::vec(1usize..4, 0..4),
    ) {
        let naive = {
            let n = a.len().max(b.len());
            let pad = |s: &Vec<usize>| {
                let mut v = vec![1; n - s.len()];
                v.extend(s);
                v
            };
            let (pa, pb) = (pad(&a), pad(&b));
            let mut out = Vec::new();
            let mut ok = true;
            for (x, y) in pa.iter().zip(&pb) {
                if x == y || *y == 1 { out.push(*x) } else if *x == 1 { out.push(*y) } else { ok = false }
            }
            ok.then_some(out)
        };
        let got = broadcast_shapes("test", &[&a, &b]).ok();
        prop_assert_eq!(&got, &naive);
        prop_assert_eq!(broadcast_shapes("test", &[&b, &a]).ok(), naive.clone());
        if let Some(shape) = got {
            // Each broadcast view reads element idx of the source at idx mod extent.
            let la = Layout::contiguous(&a).broadcast_to(&shape).unwrap();
            let src = Layout::contiguous(&a);
            let pad = shape.len() - a.len();
            let expect: Vec<usize> = indices(&shape)
                .iter()
                .map(|idx| {
                    let sidx: Vec<usize> = (0..a.len()).map(|k| idx[pad + k] % a[k]).collect();
                    src.position(&sidx)
                })
                .collect();
            prop_assert_eq!(naive_positions(&la), expect);
        }
    }

    #[test]
    fn permuting_back_restores_the_layout(l in strided_layout()) {
        let n = l.ndim();
        let perm: Vec<usize> = (0..n).rev().collect();
        let mut inverse = vec![0; n];
        for (i, &p) in perm.iter().enumerate() {
            inverse[p] = i;
        }
        prop_assert_eq!(l.permuted(&perm).permuted(&inverse), l);
    }
}

#[test]
fn layout_new_rejects_positions_outside_the_buffer() {
    assert!(Layout::new(vec![3], vec![2], 0, 5).is_ok());
    assert!(Layout::new(vec![3], vec![2], 0, 4).is_err());
    assert!(Layout::new(vec![3], vec![-1], 1, 5).is_err());
    assert!(Layout::new(vec![3], vec![-1], 2, 5).is_ok());
    assert!(Layout::new(vec![2, 3], vec![1], 0, 6).is_err());
    assert!(Layout::new(vec![0, 3], vec![100, 100], 0, 0).is_ok());
}
