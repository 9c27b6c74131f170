//! Fast Fourier transforms on the CPU.

use super::CpuBackend;
use crate::ops::fft::Fft;

impl Fft for CpuBackend {}
