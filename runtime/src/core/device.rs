//! Devices: the CPU and CUDA GPUs, the default device and the scoped current device.

use std::cell::RefCell;
use std::fmt;
use std::sync::OnceLock;

pub use crate::backend::probe::{
    cuda_status, default_device, default_device_and_reason, device_count, CudaStatus,
};
use crate::error::{Error, Result};

/// Where arrays live and operations run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Device {
    /// The host CPU (the reference backend and the fallback).
    Cpu,
    /// CUDA GPU number `n` (as counted under `CUDA_VISIBLE_DEVICES`).
    Cuda(usize),
}

impl Device {
    /// The CPU device.
    pub fn cpu() -> Device {
        Device::Cpu
    }

    /// CUDA device `n`. Using it fails with a clear error when it does not exist.
    pub fn cuda(n: usize) -> Device {
        Device::Cuda(n)
    }

    /// True for the CPU.
    pub fn is_cpu(&self) -> bool {
        matches!(self, Device::Cpu)
    }

    /// True for a CUDA device.
    pub fn is_cuda(&self) -> bool {
        matches!(self, Device::Cuda(_))
    }

    /// Parses `cpu`, `cuda`, `cuda:N` or `gpu:N`.
    pub fn parse(text: &str) -> Result<Device> {
        let t = text.trim().to_ascii_lowercase();
        if t == "cpu" {
            return Ok(Device::Cpu);
        }
        if t == "cuda" || t == "gpu" {
            return Ok(Device::Cuda(0));
        }
        for prefix in ["cuda:", "gpu:"] {
            if let Some(n) = t.strip_prefix(prefix) {
                if let Ok(n) = n.parse() {
                    return Ok(Device::Cuda(n));
                }
            }
        }
        Err(Error::InvalidArgument {
            op: "Device::parse",
            detail: format!("unknown device {text:?}; use \"cpu\" or \"cuda:N\""),
        })
    }

    /// Checks that the device can hold arrays in this process, or says why not.
    /// Every operation passes here, so it is also where a pending interrupt
    /// stops one (`Error::Interrupted`, see [`crate::interrupt`]).
    pub fn check_available(&self, op: &'static str) -> Result<()> {
        crate::interrupt::check(op)?;
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

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(n) => write!(f, "cuda:{n}"),
        }
    }
}

impl std::str::FromStr for Device {
    type Err = Error;
    fn from_str(s: &str) -> Result<Device> {
        Device::parse(s)
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
    fn parse_and_display() {
        assert_eq!(Device::parse("cpu").unwrap(), Device::Cpu);
        assert_eq!(Device::parse("cuda:1").unwrap(), Device::Cuda(1));
        assert_eq!(Device::parse("GPU:2").unwrap(), Device::Cuda(2));
        assert!(Device::parse("tpu").is_err());
        assert_eq!(Device::Cuda(3).to_string(), "cuda:3");
    }

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
