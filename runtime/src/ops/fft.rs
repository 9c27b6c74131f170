//! Shared types of the discrete Fourier transforms.

use crate::device::Device;

/// What a transform computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum FftKind {
    /// Complex to complex.
    C2C { forward: bool },
    /// Real to half-spectrum (forward); the last axis is halved.
    R2C,
    /// Half-spectrum to real (inverse); the last axis is the output length.
    C2R,
}

/// What a device's plan cache holds (`cupy.fft.config.get_plan_cache()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanCacheInfo {
    /// The device whose cache this is.
    pub device: Device,
    /// Plans held now.
    pub size: usize,
    /// Most plans held (least recently used plans are dropped beyond it; 0
    /// disables caching).
    pub capacity: usize,
    /// Lookups that found a plan.
    pub hits: u64,
    /// Lookups that had to create one.
    pub misses: u64,
    /// One line per plan, least recently used first.
    pub entries: Vec<String>,
}

/// Fast Fourier transforms (cuFFT on CUDA).
/// The backend trait of this op family (see `ops::backend`).
pub(crate) trait Fft {}
