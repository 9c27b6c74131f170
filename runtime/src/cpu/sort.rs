//! Sorting and searching on the CPU.

use std::cmp::Ordering;

use super::reduce::{for_each_offset, Num};
use super::CpuBackend;
use crate::core::element::Element;
use crate::core::error::Result;
use crate::core::storage::{CpuStorage, Storage};
use crate::core::view::View;
use crate::ops::sort::{SearchSorted, Sort, UniqueParts, UniqueWant};

impl Sort for CpuBackend {
    fn sort(&self, _op: &'static str, x: View<'_>, axis: usize, arg: bool) -> Result<Storage> {
        let data = if arg {
            crate::with_dtype!(x.dtype(), T => sort_cpu::<T, true>(x, axis))
        } else {
            crate::with_dtype!(x.dtype(), T => sort_cpu::<T, false>(x, axis))
        };
        Ok(Storage::Cpu(CpuStorage::new(data)))
    }

    fn searchsorted(&self, _op: &'static str, s: SearchSorted<'_>) -> Result<()> {
        let found = crate::with_dtype!(s.a.dtype(), T => searchsorted_cpu::<T>(s.a, s.v, s.right));
        s.out.scatter::<i64>(&found);
        Ok(())
    }

    fn unique(&self, _op: &'static str, x: View<'_>, want: UniqueWant) -> Result<UniqueParts> {
        Ok(crate::with_dtype!(x.dtype(), T => unique_cpu::<T>(x, want)))
    }
}

/// Insertion points of `v`'s elements (C order) in the sorted `a`: the
/// first place that keeps NumPy's sort order, or the last (`right`).
fn searchsorted_cpu<T: Num>(a: View<'_>, v: View<'_>, right: bool) -> Vec<i64> {
    let a = a.gather::<T>();
    v.gather::<T>()
        .into_iter()
        .map(|x| {
            let at = if right {
                a.partition_point(|&y| y.sort_cmp(x) != Ordering::Greater)
            } else {
                a.partition_point(|&y| y.sort_cmp(x) == Ordering::Less)
            };
            at as i64
        })
        .collect()
}

/// Whether two neighbours of the sorted order are one distinct value:
/// equal, or both NaN when `equal_nan` (complex: a NaN in either part).
fn same_value<T: Num>(a: T, b: T, equal_nan: bool) -> bool {
    if a.is_nan() || b.is_nan() {
        return equal_nan && a.is_nan() && b.is_nan();
    }
    a.sort_cmp(b) == Ordering::Equal
}

/// The distinct values of `x` (C order) by a stable sort of (value,
/// position) pairs and one walk over the runs of equal values.
fn unique_cpu<T: Num>(x: View<'_>, want: UniqueWant) -> UniqueParts {
    let mut order: Vec<(T, usize)> = x.gather::<T>().into_iter().zip(0..).collect();
    order.sort_by(|a, b| a.0.sort_cmp(b.0));
    let mut values: Vec<T> = Vec::new();
    let mut index: Vec<i64> = Vec::new();
    let mut counts: Vec<i64> = Vec::new();
    let mut inverse = vec![0i64; if want.inverse { order.len() } else { 0 }];
    for (k, &(v, at)) in order.iter().enumerate() {
        if k == 0 || !same_value(order[k - 1].0, v, want.equal_nan) {
            values.push(v);
            index.push(at as i64);
            counts.push(0);
        }
        if let Some(c) = counts.last_mut() {
            *c += 1;
        }
        if want.inverse {
            inverse[at] = values.len() as i64 - 1;
        }
    }
    let host = |v: Vec<i64>| Storage::Cpu(CpuStorage::new(i64::into_data(v)));
    UniqueParts {
        count: values.len(),
        values: Storage::Cpu(CpuStorage::new(T::into_data(values))),
        index: want.index.then(|| host(index)),
        inverse: want.inverse.then(|| host(inverse)),
        counts: want.counts.then(|| host(counts)),
    }
}

/// Sorts every lane along `axis` into a new C-contiguous buffer: the values
/// (`ARG == false`, of `T`) or their indices (`ARG == true`, int64).
fn sort_cpu<T: Num, const ARG: bool>(x: View<'_>, axis: usize) -> crate::core::storage::CpuData {
    let shape = x.shape();
    let n = shape[axis];
    // Output stride of the sorted axis (C order).
    let m: usize = shape[axis + 1..].iter().product();
    let mut other_shape = shape.to_vec();
    let mut other_strides = x.strides().to_vec();
    other_shape.remove(axis);
    other_strides.remove(axis);
    let s = x.strides()[axis];
    let size = x.size();
    let mut vals: Vec<T> = if ARG {
        Vec::new()
    } else {
        vec![T::default(); size]
    };
    let mut idx: Vec<i64> = if ARG { vec![0; size] } else { Vec::new() };
    if size > 0 {
        let mut lane: Vec<T> = Vec::with_capacity(n);
        // Value-index pairs: sorting them (stably) keeps each value next to
        // its index, which is faster than sorting indices by lookup.
        let mut order: Vec<(T, usize)> = Vec::with_capacity(n);
        x.read_cpu::<T, _>(|data, layout| {
            let mut l = 0usize;
            for_each_offset(
                &other_shape,
                &other_strides,
                layout.offset() as isize,
                |base| {
                    // Lane `l` starts at output position (l / m) * n * m + l % m.
                    let out0 = (l / m) * n * m + l % m;
                    l += 1;
                    let at = |k: usize| data[(base + k as isize * s) as usize];
                    if ARG {
                        order.clear();
                        order.extend((0..n).map(|k| (at(k), k)));
                        order.sort_by(|a, b| a.0.sort_cmp(b.0));
                        for (k, &(_, o)) in order.iter().enumerate() {
                            idx[out0 + k * m] = o as i64;
                        }
                    } else {
                        lane.clear();
                        lane.extend((0..n).map(at));
                        lane.sort_by(|a, b| a.sort_cmp(*b));
                        for (k, &v) in lane.iter().enumerate() {
                            vals[out0 + k * m] = v;
                        }
                    }
                },
            );
        });
    }
    if ARG {
        i64::into_data(idx)
    } else {
        T::into_data(vals)
    }
}
