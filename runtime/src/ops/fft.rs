//! Shared types of the discrete Fourier transforms.

use crate::core::device::Device;
use crate::core::error::Result;
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::core::view::View;

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

/// A transform's result: a new buffer, the layout that reads it (in the
/// caller's axis order, possibly with permuted strides), and the scale
/// factor the backend left for the front end to apply (`None`: applied or none).
pub(crate) type Transformed = (Storage, Layout, Option<f64>);

/// What a transform computes: `kind` over `axes` with logical lengths
/// `lens`, scaled by `scale`; `owned` says the input is a temporary the
/// transform may overwrite.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FftJob<'a> {
    pub owned: bool,
    pub axes: &'a [usize],
    pub lens: &'a [usize],
    pub kind: FftKind,
    pub scale: Option<f64>,
}

/// Fast Fourier transforms (cuFFT on CUDA).
/// The backend trait of this op family (see `ops::backend`).
pub(crate) trait Fft {
    /// The transform `job` of `a`, which is prepared: complex for C2C/C2R,
    /// real for R2C, cut or padded (for C2R the last axis holds `n/2 + 1` points).
    fn transform(&self, op: &'static str, a: View<'_>, job: FftJob<'_>) -> Result<Transformed>;
    /// What this device's plan cache holds.
    fn plan_cache(&self) -> Result<PlanCacheInfo>;
    /// Sets the plan-cache capacity (0 disables caching; excess plans go at once).
    fn set_plan_capacity(&self, capacity: usize) -> Result<()>;
    /// Drops every cached plan and zeroes the counters.
    fn clear_plan_cache(&self) -> Result<()>;
}
