//! Matrix products on the CPU.

use super::CpuBackend;
use crate::ops::matmul::Matmul;

impl Matmul for CpuBackend {}
