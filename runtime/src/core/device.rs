//! Devices: the CPU and CUDA GPUs, by name. Which exist, the default one
//! and the scoped current one are the probe's (`backend/probe.rs`).

use std::fmt;

use crate::core::error::{Error, Result};

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
}
