//! cudarc slices: a borrowed `CudaView` of a GPU array, and a `CudaSlice`
//! taken over as an array without a copy.

use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::sync::Arc;

use ::cudarc::driver::{CudaContext, CudaSlice, CudaStream, CudaView, DevicePtr, DevicePtrMut};

use crate::core::array::Array;
use crate::core::element::Element;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::cuda::runtime::foreign::foreign_view;
use crate::cuda::DriverResultExt;

/// A GPU array's memory lent to cudarc; [`CudaViewGuard::view`] is the
/// `CudaView`. The array stays borrowed while the guard lives.
pub struct CudaViewGuard<'a, T> {
    /// A cudarc slice over the array's buffer that never frees it (it is
    /// leaked back on drop).
    slice: ManuallyDrop<CudaSlice<T>>,
    first: usize,
    len: usize,
    array: PhantomData<&'a Array>,
}

impl<T> CudaViewGuard<'_, T> {
    /// The array's elements in C order as a cudarc view; work queued on its
    /// stream (the array's current stream) runs after Cuprite's.
    pub fn view(&self) -> CudaView<'_, T> {
        self.slice.slice(self.first..self.first + self.len)
    }

    /// The cudarc stream the view is ordered on (the array's current stream).
    pub fn stream(&self) -> &Arc<CudaStream> {
        self.slice.stream()
    }
}

impl<T> std::fmt::Debug for CudaViewGuard<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "CudaViewGuard({} elements from {})",
            self.len, self.first
        )
    }
}

impl<T> Drop for CudaViewGuard<'_, T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; `leak` hands the pointer back instead of
        // freeing memory the array owns (and orders the array's stream after
        // the view's recorded uses).
        let slice = unsafe { ManuallyDrop::take(&mut self.slice) };
        slice.leak();
    }
}

impl Array {
    /// A borrowed cudarc view of this C-contiguous GPU array (no copy).
    ///
    /// ```
    /// use cuprite as cp;
    /// if cp::device_count() > 0 {
    ///     let x = cp::arange(4)?.astype(cp::f32)?.to_device(&cp::Device::Cuda(0))?;
    ///     let guard = x.as_cuda_view::<f32>()?;
    ///     assert_eq!(guard.view().len(), 4);
    /// }
    /// # Ok::<(), cp::Error>(())
    /// ```
    ///
    /// Fails for a CPU array, a non-contiguous one (call
    /// `.ascontiguousarray()` first) or when `T` is not the element type.
    pub fn as_cuda_view<T: Element>(&self) -> Result<CudaViewGuard<'_, T>> {
        let op = "as_cuda_view";
        self.require_cuda(op)?;
        self.check_element::<T>(op)?;
        self.require_c_contiguous(op)?;
        let Storage::Cuda(c) = self.storage() else {
            unreachable!("require_cuda checked the device")
        };
        let ordinal = c.buffer.session.info.ordinal;
        let ctx = CudaContext::new(ordinal).op(op)?;
        // Queued Cuprite work (deferred launches included) goes first.
        let ours = crate::cuda::runtime::stream::stream_for(ordinal).raw();
        // SAFETY: the session's stream of this device's primary context
        // (cudarc's context is the same one) outlives the guard.
        let stream = unsafe { ctx.wrap_borrowed_stream(ours) };
        // SAFETY: the buffer holds `c.len` elements of T and outlives the
        // guard, which borrows the array; the slice is leaked, never freed.
        let mut slice = unsafe { stream.upgrade_device_ptr::<T>(c.buffer.ptr, c.len) };
        // Mark the memory as written on our stream, so cudarc users on other
        // streams wait for the work that produced it.
        drop(slice.device_ptr_mut(&stream));
        Ok(CudaViewGuard {
            slice: ManuallyDrop::new(slice),
            first: self.layout().offset(),
            len: self.size(),
            array: PhantomData,
        })
    }
}

/// A GPU array taking over a cudarc slice without copying; the slice is
/// freed when the last view of the array goes.
///
/// ```
/// use cuprite as cp;
/// if cp::device_count() > 0 {
///     let ctx = cudarc::driver::CudaContext::new(0).unwrap();
///     let slice = ctx.default_stream().clone_htod(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
///     let x = cp::from_cuda_slice(slice, [2, 2])?;
///     assert_eq!(x.to_vec::<f32>()?, vec![1.0, 2.0, 3.0, 4.0]);
/// }
/// # Ok::<(), cp::Error>(())
/// ```
///
/// `shape` must hold exactly the slice's elements. Cuprite's work on the
/// array waits for the work queued on the slice's stream.
pub fn from_cuda_slice<T: Element>(
    slice: CudaSlice<T>,
    shape: impl crate::IntoShape,
) -> Result<Array> {
    let op = "from_cuda_slice";
    let shape = shape.into_shape();
    let size = crate::core::layout::checked_size(op, &shape)?;
    if size != slice.len() {
        return Err(Error::Shape {
            op,
            detail: format!(
                "shape {} holds {size} elements but the slice has {}",
                fmt_shape(&shape),
                slice.len()
            ),
        });
    }
    let ordinal = slice.ordinal();
    let first = {
        let (ptr, _record) = slice.device_ptr(slice.stream());
        ptr
    };
    crate::cuda::runtime::foreign::order_after(op, ordinal, slice.stream().cu_stream())?;
    let layout = Layout::contiguous(&shape);
    // SAFETY: the slice owns `size` elements of T at `first` on `ordinal`,
    // alive until the owner (the slice itself) is dropped.
    unsafe { foreign_view(op, ordinal, first, layout, T::DTYPE, Box::new(slice)) }
        .map(Array::from_owned)
}
