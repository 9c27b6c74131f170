//! Handing arrays to other Rust and C libraries and taking theirs in,
//! without copying where the memory can be shared: ndarray views, cudarc
//! slices, `__cuda_array_interface__` descriptors and DLPack tensors.

mod cudarc;
mod descriptor;
pub mod dlpack;
mod ndarray;
mod pinned;

pub use self::cudarc::{from_cuda_slice, CudaViewGuard};
pub use self::descriptor::{from_array_interface, ArrayInterface};
pub use self::dlpack::{from_dlpack, ManagedTensor};
pub use self::ndarray::{from_ndarray, NdarrayRead, NdarrayWrite};

use crate::core::array::Array;
use crate::core::error::{Error, Result};

impl Array {
    /// Fails unless the array lives on the CPU (`op` names the caller).
    fn require_cpu(&self, op: &'static str) -> Result<()> {
        if self.device().is_cpu() {
            return Ok(());
        }
        Err(Error::InvalidArgument {
            op,
            detail: format!(
                "the array is on {}; host views need a CPU array (copy it with .to_device(&cp::Device::Cpu))",
                self.device()
            ),
        })
    }

    /// Fails unless the array lives on a CUDA device.
    fn require_cuda(&self, op: &'static str) -> Result<()> {
        if self.device().is_cpu() {
            return Err(Error::InvalidArgument {
                op,
                detail: "the array is on the CPU; device memory needs a CUDA array (move it with .to_device(&cp::Device::Cuda(0)))".into(),
            });
        }
        Ok(())
    }

    /// Fails unless the elements are C-contiguous.
    fn require_c_contiguous(&self, op: &'static str) -> Result<()> {
        if self.is_c_contiguous() {
            return Ok(());
        }
        Err(Error::InvalidArgument {
            op,
            detail: format!(
                "the array (shape {}, strides {:?} elements) is not C-contiguous; call .ascontiguousarray() first",
                crate::core::error::fmt_shape(self.shape()),
                self.strides()
            ),
        })
    }
}
