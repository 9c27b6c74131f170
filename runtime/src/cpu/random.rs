//! Random draws on the CPU.

use super::CpuBackend;
use crate::ops::random::Random;

impl Random for CpuBackend {}
