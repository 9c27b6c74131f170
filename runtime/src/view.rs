//! What a backend sees of an array: a buffer, the layout it is seen
//! through, and the dtype of its elements. Backends take views and never
//! an `Array`, so they know nothing of the front end's types.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::layout::Layout;
use crate::storage::Storage;

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

// Reductions: the CUDA helpers (`cuda/helpers.rs`) take anything that is
// a view, so their callers may pass arrays until every family passes views.
impl<'a> From<&'a Array> for View<'a> {
    fn from(a: &'a Array) -> View<'a> {
        a.view()
    }
}
impl<'a> From<&&'a Array> for View<'a> {
    fn from(a: &&'a Array) -> View<'a> {
        a.view()
    }
}
