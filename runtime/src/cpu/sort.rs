//! Sorting on the CPU.

use super::CpuBackend;
use crate::element::Element;
use crate::error::Result;
use crate::ops::sort::Sort;
use crate::reduce::{for_each_offset, Num};
use crate::storage::{CpuStorage, Storage};
use crate::view::View;

impl Sort for CpuBackend {
    fn sort(&self, _op: &'static str, x: View<'_>, axis: usize, arg: bool) -> Result<Storage> {
        let data = if arg {
            crate::with_dtype!(x.dtype(), T => sort_cpu::<T, true>(x, axis))
        } else {
            crate::with_dtype!(x.dtype(), T => sort_cpu::<T, false>(x, axis))
        };
        Ok(Storage::Cpu(CpuStorage::new(data)))
    }
}

/// Sorts every lane along `axis` into a new C-contiguous buffer: the values
/// (`ARG == false`, of `T`) or their indices (`ARG == true`, int64).
fn sort_cpu<T: Num, const ARG: bool>(x: View<'_>, axis: usize) -> crate::storage::CpuData {
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
