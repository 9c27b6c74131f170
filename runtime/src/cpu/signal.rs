//! Convolution and correlation on the CPU.

use super::CpuBackend;
use crate::ops::signal::Signal;

impl Signal for CpuBackend {}
