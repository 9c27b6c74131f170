//! What a backend sees of an array: a buffer, the layout it is seen
//! through, and the dtype of its elements. Backends take views and never
//! an `Array`, so they know nothing of the front end's types.

use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::layout::Layout;
use crate::core::storage::Storage;

/// A borrowed buffer, layout and dtype (an array without its methods).
/// Writing through a view of an output buffer is how backends return
/// results: buffers are shared handles, as the arrays viewing them are.
#[derive(Debug, Clone, Copy)]
pub(crate) struct View<'a> {
    pub storage: &'a Storage,
    pub layout: &'a Layout,
    pub dtype: DType,
}

impl<'a> View<'a> {
    pub(crate) fn new(storage: &'a Storage, layout: &'a Layout, dtype: DType) -> View<'a> {
        View {
            storage,
            layout,
            dtype,
        }
    }
    pub(crate) fn shape(&self) -> &'a [usize] {
        self.layout.shape()
    }
    pub(crate) fn strides(&self) -> &'a [isize] {
        self.layout.strides()
    }
    pub(crate) fn offset(&self) -> usize {
        self.layout.offset()
    }
    pub(crate) fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    pub(crate) fn size(&self) -> usize {
        self.layout.size()
    }
    pub(crate) fn dtype(&self) -> DType {
        self.dtype
    }
    pub(crate) fn device(&self) -> Device {
        self.storage.device()
    }
    pub(crate) fn is_c_contiguous(&self) -> bool {
        self.layout.is_c_contiguous()
    }
    /// Whether both views see the same buffer.
    pub(crate) fn shares_memory(&self, other: &View<'_>) -> bool {
        self.storage.same_buffer(other.storage)
    }
}

impl Array {
    /// The buffer, layout and dtype of this array, for a backend.
    pub(crate) fn view(&self) -> View<'_> {
        View::new(self.storage(), self.layout(), self.dtype())
    }
}

// Conversions for the CUDA helpers, which take `impl Into<View>`, and the
// CPU backend's typed access to host buffers.
impl<'a> From<&'a Array> for View<'a> {
    fn from(a: &'a Array) -> View<'a> {
        a.view()
    }
}

impl<'a> From<&View<'a>> for View<'a> {
    fn from(v: &View<'a>) -> View<'a> {
        *v
    }
}

impl<'a> From<&&'a Array> for View<'a> {
    fn from(a: &&'a Array) -> View<'a> {
        a.view()
    }
}

impl View<'_> {
    /// Runs `f` on the host buffer (typed) and this view's layout. CPU
    /// backends only: a device buffer here is a bug.
    pub(crate) fn read_cpu<T: crate::core::element::Element, R>(
        &self,
        f: impl FnOnce(&[T], &Layout) -> R,
    ) -> R {
        match self.storage {
            Storage::Cpu(s) => {
                let guard = s.read();
                f(
                    T::slice(&guard).expect("dtype of the buffer matches the view's dtype"),
                    self.layout,
                )
            }
            Storage::Cuda(_) => unreachable!("the CPU backend was given a device buffer"),
        }
    }

    /// Runs `f` on the host buffer (typed, writable) and this view's layout.
    pub(crate) fn write_cpu<T: crate::core::element::Element, R>(
        &self,
        f: impl FnOnce(&mut [T], &Layout) -> R,
    ) -> R {
        match self.storage {
            Storage::Cpu(s) => {
                let mut guard = s.write();
                f(
                    T::slice_mut(&mut guard).expect("dtype of the buffer matches the view's dtype"),
                    self.layout,
                )
            }
            Storage::Cuda(_) => unreachable!("the CPU backend was given a device buffer"),
        }
    }

    /// The elements in C order; `T` must be this view's element type.
    pub(crate) fn gather<T: crate::core::element::Element>(&self) -> Vec<T> {
        debug_assert_eq!(T::DTYPE, self.dtype);
        self.read_cpu::<T, _>(gathered::<T>)
    }

    /// The elements in C order converted to `U` (NumPy's unsafe cast).
    pub(crate) fn gather_as<U: crate::core::element::Element>(&self) -> Vec<U> {
        if self.dtype == U::DTYPE {
            return self.gather::<U>();
        }
        crate::with_dtype!(self.dtype, T => self.read_cpu::<T, _>(converted::<T, U>))
    }

    /// Writes `values` (C order, one per element) into this view's elements.
    pub(crate) fn scatter<T: crate::core::element::Element>(&self, values: &[T]) {
        debug_assert_eq!(T::DTYPE, self.dtype);
        debug_assert_eq!(values.len(), self.size());
        self.write_cpu::<T, _>(|data, layout| {
            if layout.is_c_contiguous() {
                let start = layout.offset();
                data[start..start + values.len()].copy_from_slice(values);
            } else {
                for (p, &v) in layout.positions().zip(values) {
                    data[p] = v;
                }
            }
        })
    }
}

/// An owned buffer, layout and dtype: what a backend makes for itself
/// (scratch, a contiguous copy) or is handed to write from, without the
/// front end's `Array`.
#[derive(Debug, Clone)]
pub(crate) struct OwnedView {
    pub storage: Storage,
    pub layout: Layout,
    pub dtype: DType,
}

impl OwnedView {
    /// A C-contiguous buffer of `shape` (offset 0).
    pub(crate) fn contiguous(storage: Storage, shape: &[usize], dtype: DType) -> OwnedView {
        OwnedView {
            storage,
            layout: Layout::contiguous(shape),
            dtype,
        }
    }

    /// The view of this buffer.
    pub(crate) fn view(&self) -> View<'_> {
        View::new(&self.storage, &self.layout, self.dtype)
    }
}

/// The elements of `data` at `layout`'s positions, in C order (one slice
/// copy when the layout is C-contiguous).
pub(crate) fn gathered<T: crate::core::element::Element>(data: &[T], layout: &Layout) -> Vec<T> {
    if layout.is_c_contiguous() {
        let start = layout.offset();
        data[start..start + layout.size()].to_vec()
    } else {
        layout.positions().map(|p| data[p]).collect()
    }
}

/// The elements of `data` at `layout`'s positions (C order) converted to
/// `U` with NumPy's unsafe-cast semantics.
pub(crate) fn converted<T: crate::core::element::Element, U: crate::core::element::Element>(
    data: &[T],
    layout: &Layout,
) -> Vec<U> {
    layout
        .positions()
        .map(|p| U::from_scalar(data[p].to_scalar()))
        .collect()
}
