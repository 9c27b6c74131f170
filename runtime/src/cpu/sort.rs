//! Sorting on the CPU.

use super::CpuBackend;
use crate::ops::sort::Sort;

impl Sort for CpuBackend {}
