//! Sparse matrices on the CPU.

use super::CpuBackend;
use crate::ops::sparse::Sparse;

impl Sparse for CpuBackend {}
