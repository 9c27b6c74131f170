//! Dense linear algebra on the CPU.

use super::CpuBackend;
use crate::ops::linalg::Linalg;

impl Linalg for CpuBackend {}
