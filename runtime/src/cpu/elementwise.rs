//! Elementwise ufuncs on the CPU.

use super::CpuBackend;
use crate::ops::ufunc::Elementwise;

impl Elementwise for CpuBackend {}
