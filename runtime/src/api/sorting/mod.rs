//! Sorting along an axis: sorted copies and stable `argsort`, in NumPy's
//! order (NaNs last; complex numbers by real part, then imaginary part).

pub(crate) mod search;

use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::layout::{normalize_axis, Layout};

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
    sort_op("sort", x, axis, false)
}

/// The int64 indices that sort `x` along `axis`, stable for equal elements
/// (`np.argsort(x, axis, stable=True)`).
pub fn argsort(x: &Array, axis: isize) -> Result<Array> {
    sort_op("argsort", x, axis, true)
}

fn sort_op(op: &'static str, x: &Array, axis: isize, arg: bool) -> Result<Array> {
    let b = crate::backend::on(op, x.device())?;
    let axis = normalize_axis(op, axis, x.ndim())?;
    let dtype = if arg { DType::Int64 } else { x.dtype() };
    let storage = b.sort(op, x.view(), axis, arg)?;
    Ok(Array::from_parts(
        storage,
        Layout::contiguous(x.shape()),
        dtype,
    ))
}

#[cfg(test)]
mod tests {
    use crate::api::reductions::tests::view;

    #[test]
    fn negative_strides_sort_like_numpy() {
        // NumPy 2.4: a = np.arange(24.).reshape(2, 3, 4); r = a[:, ::-1, ::-2]
        let a = crate::arange(24)
            .unwrap()
            .astype(crate::DType::Float64)
            .unwrap();
        let r = view(&a, &[2, 3, 2], &[12, -4, -2], 11);
        // np.sort(r, axis=1).ravel()
        assert_eq!(
            r.sort_axis(1).unwrap().to_vec::<f64>().unwrap(),
            [3.0, 1.0, 7.0, 5.0, 11.0, 9.0, 15.0, 13.0, 19.0, 17.0, 23.0, 21.0]
        );
        // np.argsort(r, axis=1, stable=True).ravel()
        assert_eq!(
            r.argsort_axis(1).unwrap().to_vec::<i64>().unwrap(),
            [2, 2, 1, 1, 0, 0, 2, 2, 1, 1, 0, 0]
        );
        // np.sort(r, axis=-1).ravel()
        assert_eq!(
            r.sort_axis(-1).unwrap().to_vec::<f64>().unwrap(),
            [9.0, 11.0, 5.0, 7.0, 1.0, 3.0, 21.0, 23.0, 17.0, 19.0, 13.0, 15.0]
        );
        // b = np.arange(10, dtype=np.int8)[::-1]: np.sort(b) -> 0..9; np.argsort(b, stable=True) -> [9, 8, ..., 0]
        let a = crate::arange(10)
            .unwrap()
            .astype(crate::DType::Int8)
            .unwrap();
        let b = view(&a, &[10], &[-1], 9);
        assert_eq!(
            b.sort_axis(0).unwrap().to_vec::<i8>().unwrap(),
            (0..10).collect::<Vec<i8>>()
        );
        assert_eq!(
            b.argsort_axis(0).unwrap().to_vec::<i64>().unwrap(),
            (0..10).rev().collect::<Vec<i64>>()
        );
    }
}
