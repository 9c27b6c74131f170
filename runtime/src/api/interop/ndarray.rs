//! Borrowed `ndarray` views of CPU arrays, and owned `ndarray` arrays moved
//! in without a copy.
//!
//! A CPU array's buffer is shared by its views behind a lock, so a borrowed
//! view comes with a guard holding that lock: [`NdarrayRead::view`] and
//! [`NdarrayWrite::view_mut`] give the `ndarray` view for as long as the
//! guard lives. Cuprite's host buffers own their memory (a `Vec`), so an
//! `ndarray` view cannot be borrowed *into* an array; [`from_ndarray`] moves
//! an owned array's `Vec` in instead.

use std::marker::PhantomData;
use std::sync::{RwLockReadGuard, RwLockWriteGuard};

use ::ndarray::{ArrayD, ArrayViewD, ArrayViewMutD, Axis, IxDyn, ShapeBuilder};

use crate::core::array::Array;
use crate::core::element::Element;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::{CpuData, CpuStorage, Storage};

/// A CPU array's buffer locked for reading; [`NdarrayRead::view`] is its
/// `ndarray` view. Writers of the same buffer wait until the guard drops.
pub struct NdarrayRead<'a, T: Element> {
    guard: RwLockReadGuard<'a, CpuData>,
    layout: &'a Layout,
    element: PhantomData<T>,
}

/// A CPU array's buffer locked for writing; [`NdarrayWrite::view_mut`] is
/// its mutable `ndarray` view. Other readers and writers of the buffer wait
/// until the guard drops.
pub struct NdarrayWrite<'a, T: Element> {
    guard: RwLockWriteGuard<'a, CpuData>,
    layout: &'a Layout,
    element: PhantomData<T>,
}

impl<T: Element> NdarrayRead<'_, T> {
    /// The array's elements as an `ndarray` view with the same shape and
    /// strides (negative strides become inverted axes).
    pub fn view(&self) -> ArrayViewD<'_, T> {
        let data = T::slice(&self.guard).expect("the guard was checked to hold T");
        let (shape, strides, base) = lowest_first(self.layout);
        if base.is_none() {
            return ArrayViewD::from_shape(IxDyn(&shape), &[]).expect("an empty shape fits");
        }
        // SAFETY: `lowest_first` gives the lowest element reached and
        // non-negative strides; every element reached lies in `data` (the
        // layout was checked against the buffer when built), and the read
        // guard keeps writers out for the view's lifetime.
        let mut view = unsafe {
            ArrayViewD::from_shape_ptr(
                IxDyn(&shape).strides(IxDyn(&strides)),
                data.as_ptr().add(base.unwrap_or(0)),
            )
        };
        invert_negative_axes(self.layout, |axis| view.invert_axis(axis));
        view
    }
}

impl<T: Element> NdarrayWrite<'_, T> {
    /// The array's elements as a mutable `ndarray` view with the same shape
    /// and strides; writes are seen by every view of the buffer.
    pub fn view_mut(&mut self) -> ArrayViewMutD<'_, T> {
        let layout = self.layout;
        let data = T::slice_mut(&mut self.guard).expect("the guard was checked to hold T");
        let (shape, strides, base) = lowest_first(layout);
        if base.is_none() {
            return ArrayViewMutD::from_shape(IxDyn(&shape), &mut []).expect("an empty shape fits");
        }
        // SAFETY: as in `NdarrayRead::view`; the write guard is exclusive and
        // `as_ndarray_view_mut` refused layouts whose elements overlap.
        let mut view = unsafe {
            ArrayViewMutD::from_shape_ptr(
                IxDyn(&shape).strides(IxDyn(&strides)),
                data.as_mut_ptr().add(base.unwrap_or(0)),
            )
        };
        invert_negative_axes(layout, |axis| view.invert_axis(axis));
        view
    }
}

impl<T: Element> std::fmt::Debug for NdarrayRead<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NdarrayRead<{}>({:?})", T::DTYPE, self.layout)
    }
}

impl<T: Element> std::fmt::Debug for NdarrayWrite<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NdarrayWrite<{}>({:?})", T::DTYPE, self.layout)
    }
}

/// The shape, the absolute strides and the buffer position of the lowest
/// element reached (`None` for an empty layout).
fn lowest_first(layout: &Layout) -> (Vec<usize>, Vec<usize>, Option<usize>) {
    let shape = layout.shape().to_vec();
    let strides = layout.strides().iter().map(|s| s.unsigned_abs()).collect();
    let base = (layout.size() > 0).then(|| layout.offset_range().0 as usize);
    (shape, strides, base)
}

/// Calls `invert` for each axis walked backwards in memory.
fn invert_negative_axes(layout: &Layout, mut invert: impl FnMut(Axis)) {
    for (axis, &s) in layout.strides().iter().enumerate() {
        if s < 0 {
            invert(Axis(axis));
        }
    }
}

/// Whether two different indices of `layout` can name one element (a
/// broadcast axis, or strides chosen with `as_strided` to overlap). The test
/// is sufficient, not necessary: layouts it cannot prove disjoint count as
/// overlapping.
fn may_overlap(layout: &Layout) -> bool {
    if layout.size() <= 1 {
        return false;
    }
    let mut axes: Vec<(usize, usize)> = layout
        .shape()
        .iter()
        .zip(layout.strides())
        .filter(|&(&n, _)| n > 1)
        .map(|(&n, &s)| (s.unsigned_abs(), n))
        .collect();
    axes.sort_unstable();
    let mut span = 0usize;
    for (stride, n) in axes {
        if stride <= span {
            return true;
        }
        span += stride * (n - 1);
    }
    false
}

impl Array {
    /// A borrowed `ndarray` view of this CPU array (no copy): the guard's
    /// `view()` has the array's shape and strides, negative ones included.
    ///
    /// ```
    /// use cuprite as cp;
    /// let x = cp::arange(6)?.reshape([2, 3])?.astype(cp::f32)?;
    /// let flipped = x.slice(cp::s![.., ..;-1])?;
    /// let guard = flipped.as_ndarray_view::<f32>()?;
    /// assert_eq!(guard.view()[[1, 0]], 5.0);
    /// # Ok::<(), cp::Error>(())
    /// ```
    ///
    /// Fails for a GPU array or when `T` is not the array's element type.
    /// While the guard lives, an operation writing into the same buffer on
    /// the same thread would wait for it forever: drop the guard first.
    pub fn as_ndarray_view<T: Element>(&self) -> Result<NdarrayRead<'_, T>> {
        let storage = self.ndarray_storage::<T>("as_ndarray_view")?;
        Ok(NdarrayRead {
            guard: storage.read(),
            layout: self.layout(),
            element: PhantomData,
        })
    }

    /// A mutable borrowed `ndarray` view of this CPU array (no copy); writes
    /// through it are seen by every view of the buffer.
    ///
    /// ```
    /// use cuprite as cp;
    /// let x = cp::zeros([2, 2], cp::f64)?;
    /// x.as_ndarray_view_mut::<f64>()?.view_mut()[[0, 1]] = 7.0;
    /// assert_eq!(x.to_vec::<f64>()?, vec![0.0, 7.0, 0.0, 0.0]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    ///
    /// Fails as [`Array::as_ndarray_view`] does, and for arrays whose
    /// elements overlap (broadcast views): `ndarray` forbids aliased
    /// mutable elements. No other access to the buffer may happen on this
    /// thread while the guard lives.
    pub fn as_ndarray_view_mut<T: Element>(&self) -> Result<NdarrayWrite<'_, T>> {
        let op = "as_ndarray_view_mut";
        let storage = self.ndarray_storage::<T>(op)?;
        if may_overlap(self.layout()) {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "strides {:?} make elements of shape {} overlap (a broadcast view?); copy the array first",
                    self.strides(),
                    crate::core::error::fmt_shape(self.shape())
                ),
            });
        }
        Ok(NdarrayWrite {
            guard: storage.write(),
            layout: self.layout(),
            element: PhantomData,
        })
    }

    /// The host buffer, after checking the device and the element type.
    fn ndarray_storage<T: Element>(&self, op: &'static str) -> Result<&CpuStorage> {
        self.require_cpu(op)?;
        self.check_element::<T>(op)?;
        match self.storage() {
            Storage::Cpu(s) => Ok(s),
            Storage::Cuda(_) => unreachable!("require_cpu checked the device"),
        }
    }
}

/// A CPU array taking over an owned `ndarray` array's buffer without
/// copying, whatever its strides (an `ndarray` view cannot be borrowed:
/// Cuprite's host buffers own their memory, so pass an owned array or
/// convert a view with `cp::asarray`, which copies).
///
/// ```
/// use cuprite as cp;
/// let a = ndarray::Array2::<f32>::from_shape_fn((2, 3), |(i, j)| (3 * i + j) as f32);
/// let x = cp::from_ndarray(a.reversed_axes());
/// assert_eq!(x.shape(), &[3, 2]);
/// assert_eq!(x.to_vec::<f32>()?, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn from_ndarray<T: Element, D: ::ndarray::Dimension>(array: ::ndarray::Array<T, D>) -> Array {
    let array: ArrayD<T> = array.into_dyn();
    let shape = array.shape().to_vec();
    let strides = array.strides().to_vec();
    let (data, offset) = array.into_raw_vec_and_offset();
    // `offset` is `None` only for an empty array; its layout reaches nothing.
    let layout = Layout::from_parts(shape, strides, offset.unwrap_or(0));
    let dtype = T::DTYPE;
    Array::from_parts(
        Storage::Cpu(CpuStorage::new(T::into_data(data))),
        layout,
        dtype,
    )
}
