//! Sorting along an axis: sorted copies and stable `argsort`, in NumPy's
//! order (NaNs last; complex numbers by real part, then imaginary part).

use crate::array::Array;
use crate::error::Result;
use crate::layout::normalize_axis;
use crate::reduce::{for_each_offset, Num};

impl Array {
    /// A copy sorted along `axis` (negative counts from the end), as
    /// `np.sort(x, axis)`: NaNs sort to the end, complex values sort by real
    /// part, then imaginary part.
    pub fn sort_axis(&self, axis: isize) -> Result<Array> {
        sort(self, axis)
    }

    /// The int64 indices that sort along `axis`, as `np.argsort(x, axis,
    /// stable=True)`: equal elements keep their order.
    pub fn argsort_axis(&self, axis: isize) -> Result<Array> {
        argsort(self, axis)
    }
}

/// A copy of `x` sorted along `axis`, as `np.sort(x, axis)` (NaNs last).
pub fn sort(x: &Array, axis: isize) -> Result<Array> {
    x.device().check_available("sort")?;
    let axis = normalize_axis("sort", axis, x.ndim())?;
    Ok(crate::with_dtype!(x.dtype(), T => sort_cpu::<T, false>(x, axis)))
}

/// The int64 indices that sort `x` along `axis`, stable for equal elements
/// (`np.argsort(x, axis, stable=True)`).
pub fn argsort(x: &Array, axis: isize) -> Result<Array> {
    x.device().check_available("argsort")?;
    let axis = normalize_axis("argsort", axis, x.ndim())?;
    Ok(crate::with_dtype!(x.dtype(), T => sort_cpu::<T, true>(x, axis)))
}

/// Sorts every lane along `axis` into a new C-contiguous array: the values
/// (`ARG == false`, an array of `T`) or their indices (`ARG == true`, int64).
fn sort_cpu<T: Num, const ARG: bool>(x: &Array, axis: usize) -> Array {
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
        let mut order: Vec<usize> = Vec::with_capacity(n);
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
                    lane.clear();
                    lane.extend((0..n).map(|k| data[(base + k as isize * s) as usize]));
                    if ARG {
                        order.clear();
                        order.extend(0..n);
                        order.sort_by(|&a, &b| lane[a].sort_cmp(lane[b]));
                        for (k, &o) in order.iter().enumerate() {
                            idx[out0 + k * m] = o as i64;
                        }
                    } else {
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
        Array::from_vec_shape(idx, shape)
    } else {
        Array::from_vec_shape(vals, shape)
    }
}
