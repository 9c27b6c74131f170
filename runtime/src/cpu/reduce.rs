//! Reductions, scans and arg-reductions on the CPU.

use super::CpuBackend;
use crate::ops::reduce::{ArgReduce, Reduce, Scan};

impl Reduce for CpuBackend {}
impl Scan for CpuBackend {}
impl ArgReduce for CpuBackend {}
