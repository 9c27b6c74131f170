//! Where the device of an operation is matched: [`on`] gives the backend
//! of a device (every op family of `ops::backend`), and the `Array`
//! methods that move data between host and device or allocate on a device
//! live here. The probe says which devices exist. The core (array, layout,
//! dtype, element, storage, device, error) calls these and never imports
//! `cuda/`.

pub(crate) mod fallback;
pub(crate) mod probe;
pub(crate) mod transfer;

use crate::core::device::Device;
use crate::core::error::{Error, Result};
use crate::cpu::CpuBackend;
pub(crate) use crate::ops::backend::Backend;

/// The backend that runs `op` on `device`, after checking that the device
/// can be used and that no interrupt is pending (`Error::Interrupted`):
/// every operation that reaches a backend passes here.
pub(crate) fn on(op: &'static str, device: Device) -> Result<&'static dyn Backend> {
    device.check_available(op)?;
    match device {
        Device::Cpu => Ok(&CpuBackend),
        Device::Cuda(n) => match crate::cuda::backend(n) {
            Some(b) => Ok(b),
            None => Err(Error::NeedsCuda {
                op,
                reason: format!(
                    "cuda:{n} is past the {} devices one process can address",
                    crate::cuda::MAX_DEVICES
                ),
            }),
        },
    }
}
