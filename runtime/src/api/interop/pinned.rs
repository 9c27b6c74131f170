//! Asynchronous copies of GPU arrays into pinned host buffers.

use crate::core::array::Array;
use crate::core::element::Element;
use crate::core::error::Result;
use crate::cuda::runtime::stream::Stream;
use crate::cuda::{Pending, PinnedBuffer};

impl Array {
    /// Queues a copy of this C-contiguous GPU array into `dst` on `stream`
    /// and returns at once; `dst` stays borrowed until the copy is waited for.
    ///
    /// ```
    /// use cuprite as cp;
    /// if cp::device_count() > 0 {
    ///     let x = cp::arange(4)?.astype(cp::f32)?.to_device(&cp::Device::Cuda(0))?;
    ///     let stream = cp::with_device(cp::Device::Cuda(0), cp::cuda::Stream::new)?;
    ///     let mut buf = cp::with_device(cp::Device::Cuda(0), || cp::cuda::PinnedBuffer::<f32>::new(4))?;
    ///     x.copy_to_host_async(&mut buf, &stream)?.wait()?;
    ///     assert_eq!(buf.as_slice()?, &[0.0, 1.0, 2.0, 3.0]);
    /// }
    /// # Ok::<(), cp::Error>(())
    /// ```
    ///
    /// The copy starts after the work queued on the current stream (which
    /// produces the array). Fails for a CPU or non-contiguous array, a `T`
    /// other than the element type, a buffer of another length, or a
    /// stream of another device.
    pub fn copy_to_host_async<'b, T: Element>(
        &self,
        dst: &'b mut PinnedBuffer<T>,
        stream: &Stream,
    ) -> Result<Pending<'b>> {
        let op = "copy_to_host_async";
        self.require_cuda(op)?;
        self.check_element::<T>(op)?;
        self.require_c_contiguous(op)?;
        dst.queue_download(op, self, stream)
    }
}
