//! Which devices this process can use: the CUDA probe, once per process,
//! the default device, and the current device of a `with_device` scope.

use std::cell::RefCell;
use std::sync::OnceLock;

use crate::core::device::Device;
use crate::core::error::{Error, Result};

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
    let n = crate::cuda::runtime::session::usable_device_count();
    CudaStatus {
        device_count: n,
        usable: n > 0,
        reason: crate::cuda::runtime::session::availability_text(),
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

impl Device {
    /// Checks that the device can hold arrays in this process, or says why not.
    /// Every operation passes here, so it is also where a pending interrupt
    /// stops one (`Error::Interrupted`, see [`crate::interrupt`]).
    pub fn check_available(&self, op: &'static str) -> Result<()> {
        crate::core::interrupt::check(op)?;
        match self {
            Device::Cpu => Ok(()),
            Device::Cuda(n) if *n < device_count() => Ok(()),
            Device::Cuda(n) => Err(Error::NeedsCuda {
                op,
                reason: if device_count() == 0 {
                    cuda_status().reason.clone()
                } else {
                    format!(
                        "cuda:{n} does not exist; this machine has {} CUDA device(s)",
                        device_count()
                    )
                },
            }),
        }
    }
}

thread_local! {
    static DEVICE_SCOPE: RefCell<Vec<Device>> = const { RefCell::new(Vec::new()) };
}

/// The device that new arrays go to on this thread: the innermost
/// `with_device` scope, else the default device.
pub fn current_device() -> Device {
    DEVICE_SCOPE
        .with(|s| s.borrow().last().copied())
        .unwrap_or_else(|| {
            static DEFAULT: OnceLock<Device> = OnceLock::new();
            *DEFAULT.get_or_init(default_device)
        })
}

/// Runs `f` with `device` as the current device, restoring the previous one
/// afterwards (also when `f` panics).
pub fn with_device<R>(device: Device, f: impl FnOnce() -> R) -> R {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            DEVICE_SCOPE.with(|s| {
                s.borrow_mut().pop();
            });
        }
    }
    DEVICE_SCOPE.with(|s| s.borrow_mut().push(device));
    let _restore = Restore;
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_nest_and_restore() {
        let outer = current_device();
        with_device(Device::Cuda(7), || {
            assert_eq!(current_device(), Device::Cuda(7));
            with_device(Device::Cpu, || assert_eq!(current_device(), Device::Cpu));
            assert_eq!(current_device(), Device::Cuda(7));
        });
        assert_eq!(current_device(), outer);
        let r = std::panic::catch_unwind(|| with_device(Device::Cuda(5), || panic!("boom")));
        assert!(r.is_err());
        assert_eq!(current_device(), outer);
    }

    #[test]
    fn probe_never_panics_and_explains() {
        let s = cuda_status();
        assert!(!s.reason.is_empty());
        let (d, why) = default_device_and_reason();
        assert!(!why.is_empty());
        if device_count() == 0 {
            assert_eq!(d, Device::Cpu);
        }
    }
}
