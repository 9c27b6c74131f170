//! Which devices this process can use: the CUDA probe, once per process,
//! and the default device.

use std::sync::OnceLock;

use crate::device::Device;

/// What the CUDA probe found.
#[derive(Debug, Clone)]
pub struct CudaStatus {
    /// Number of CUDA devices the driver reports (0 when unavailable).
    pub device_count: usize,
    /// Whether arrays can be placed on CUDA devices in this build.
    pub usable: bool,
    /// Why CUDA is not used, or what was found.
    pub reason: String,
}

/// Probes the CUDA driver once per process.
pub fn cuda_status() -> &'static CudaStatus {
    static STATUS: OnceLock<CudaStatus> = OnceLock::new();
    STATUS.get_or_init(probe_cuda)
}

fn probe_cuda() -> CudaStatus {
    let n = crate::cuda::session::usable_device_count();
    CudaStatus {
        device_count: n,
        usable: n > 0,
        reason: crate::cuda::session::availability_text(),
    }
}

/// Number of CUDA devices that arrays can use (0 on machines without CUDA).
pub fn device_count() -> usize {
    let s = cuda_status();
    if s.usable {
        s.device_count
    } else {
        0
    }
}

/// The device new arrays go to when no scope says otherwise: `CUPRITE_DEVICE`
/// (`cpu` or `cuda:N`) when set and valid, else `cuda:0` when usable, else the CPU.
pub fn default_device() -> Device {
    default_device_and_reason().0
}

/// The default device and the reason it was chosen, as text for users.
/// Decided once per process (`CUPRITE_DEVICE` is read at first use).
pub fn default_device_and_reason() -> (Device, String) {
    static CHOSEN: OnceLock<(Device, String)> = OnceLock::new();
    CHOSEN.get_or_init(choose_default_device).clone()
}

fn choose_default_device() -> (Device, String) {
    if let Ok(v) = std::env::var("CUPRITE_DEVICE") {
        match Device::parse(&v) {
            Ok(Device::Cpu) => return (Device::Cpu, "CUPRITE_DEVICE=cpu".into()),
            Ok(Device::Cuda(n)) if n < device_count() => {
                return (Device::Cuda(n), format!("CUPRITE_DEVICE={v}"))
            }
            Ok(d) => {
                return (
                    Device::Cpu,
                    format!(
                        "CUPRITE_DEVICE={v} asks for {d}, which is unavailable: {}",
                        cuda_status().reason
                    ),
                )
            }
            Err(_) => {
                return (
                    Device::Cpu,
                    format!("CUPRITE_DEVICE={v:?} is not \"cpu\" or \"cuda:N\"; using the CPU"),
                )
            }
        }
    }
    if device_count() > 0 {
        (Device::Cuda(0), "the first CUDA device".into())
    } else {
        (Device::Cpu, cuda_status().reason.clone())
    }
}
