//! Gather and scatter on the CPU.

use super::CpuBackend;
use crate::ops::index::GatherScatter;

impl GatherScatter for CpuBackend {}

/// Buffer offsets, relative to the first element, of every element of
/// (`shape`, `strides`) in C order.
fn rel_offsets(shape: &[usize], strides: &[isize]) -> Vec<isize> {
    let mut out = vec![0isize];
    for (&d, &s) in shape.iter().zip(strides) {
        let mut next = Vec::with_capacity(out.len() * d);
        for &o in &out {
            for i in 0..d {
                next.push(o + i as isize * s);
            }
        }
        out = next;
    }
    out
}

/// Buffer position of the `k`-th element (C order) of `layout`.
fn flat_position(layout: &Layout, mut k: usize) -> usize {
    let mut p = layout.offset() as isize;
    for (&d, &s) in layout.shape().iter().zip(layout.strides()).rev() {
        p += (k % d) as isize * s;
        k /= d;
    }
    p as usize
}

// ---------------------------------------------------------------------------
// Element loops (CPU); the CUDA kernels are in cuda/gather.rs
// ---------------------------------------------------------------------------

/// Buffer positions of the first element of every block of `a` split after
/// its leading `lead` axes (C order), produced lazily.
fn outer_positions(a: &Array, lead: usize) -> crate::layout::Positions {
    let l = a.layout();
    Layout::from_parts(
        l.shape()[..lead].to_vec(),
        l.strides()[..lead].to_vec(),
        l.offset(),
    )
    .positions()
}

/// `out[o, k, i] = a[o, idx[k], i]` over outer × indices × inner.
fn take_cpu<T: Element>(
    a: &Array,
    axis: usize,
    idx: &[usize],
    out_shape: &[usize],
) -> Result<Array> {
    let (shape, strides) = (a.shape(), a.strides());
    let inner = rel_offsets(&shape[axis + 1..], &strides[axis + 1..]);
    let step = strides[axis];
    let mut out = Vec::with_capacity(out_shape.iter().product());
    a.read_cpu::<T, _>(|data, _| {
        for o in outer_positions(a, axis) {
            for &k in idx {
                let p = o as isize + k as isize * step;
                out.extend(inner.iter().map(|&i| data[(p + i) as usize]));
            }
        }
    });
    Array::from_vec_shape(out, out_shape)
}

/// The elements of `a` under the mask `m` of its leading `lead` axes (C order).
fn mask_cpu<T: Element>(a: &Array, m: &[bool], lead: usize, out_shape: &[usize]) -> Result<Array> {
    let (shape, strides) = (a.shape(), a.strides());
    let inner = rel_offsets(&shape[lead..], &strides[lead..]);
    let mut out = Vec::with_capacity(out_shape.iter().product());
    a.read_cpu::<T, _>(|data, _| {
        for (o, _) in outer_positions(a, lead).zip(m).filter(|(_, &keep)| keep) {
            out.extend(inner.iter().map(|&i| data[(o as isize + i) as usize]));
        }
    });
    Array::from_vec_shape(out, out_shape)
}

/// Writes `values` (C order over the selection) into the masked elements of `a`.
fn mask_assign_cpu<T: Element>(a: &Array, m: &[bool], lead: usize, values: &[T]) {
    let (shape, strides) = (a.shape(), a.strides());
    let inner = rel_offsets(&shape[lead..], &strides[lead..]);
    a.write_cpu::<T, _>(|data, _| {
        let mut v = values.iter();
        for (o, _) in outer_positions(a, lead).zip(m).filter(|(_, &keep)| keep) {
            for (&i, &x) in inner.iter().zip(&mut v) {
                data[(o as isize + i) as usize] = x;
            }
        }
    });
}

/// Multi-indices of the non-zero elements of `a`, one vector per axis.
fn nonzero_cpu<T: Element>(a: &Array) -> Vec<Vec<i64>> {
    let values = a.gather::<T>();
    let shape = a.shape();
    let zero = T::default();
    let mut out = vec![Vec::new(); shape.len()];
    let mut index = vec![0usize; shape.len()];
    for v in values {
        if v != zero {
            for (o, &i) in out.iter_mut().zip(&index) {
                o.push(i as i64);
            }
        }
        for ax in (0..shape.len()).rev() {
            index[ax] += 1;
            if index[ax] < shape[ax] {
                break;
            }
            index[ax] = 0;
        }
    }
    out
}

/// `cond ? x : y` elementwise over C-order values of equal length.
fn where_cpu<T: Element>(cond: &[bool], x: &[T], y: &[T], shape: &[usize]) -> Result<Array> {
    let out: Vec<T> = cond
        .iter()
        .zip(x.iter().zip(y))
        .map(|(&c, (&a, &b))| if c { a } else { b })
        .collect();
    Array::from_vec_shape(out, shape)
}

/// `a.flat[idx[k]] = values[k % len]` for every k.
fn put_cpu<T: Element>(a: &Array, idx: &[usize], values: &[T]) {
    a.write_cpu::<T, _>(|data, layout| {
        let contiguous = layout.is_c_contiguous();
        for (&k, &v) in idx.iter().zip(values.iter().cycle()) {
            let p = if contiguous {
                layout.offset() + k
            } else {
                flat_position(layout, k)
            };
            data[p] = v;
        }
    });
}

