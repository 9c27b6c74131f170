//! Gather and scatter on the CPU.

use super::CpuBackend;
use crate::ops::index::GatherScatter;

impl GatherScatter for CpuBackend {}
