//! Shared types of the random number generators.

use crate::dtype::DType;

/// What to draw; the parameters are already validated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Draw {
    /// `low + span * u`, u uniform in [0, 1).
    Uniform { low: f64, span: f64 },
    /// `loc + scale * z`, z standard normal.
    Normal { loc: f64, scale: f64 },
    /// `scale * e`, e standard exponential.
    Exponential { scale: f64 },
    /// `low + k`, k uniform in `0..range` (range >= 1).
    Integers { low: i64, range: u64 },
}

impl Draw {
    /// Values made from one Philox block: 4 from 32-bit words, 2 from 64-bit.
    pub(crate) fn per_block(self, dtype: DType) -> usize {
        match self {
            Draw::Integers { range, .. } => {
                if range <= u32::MAX as u64 {
                    4
                } else {
                    2
                }
            }
            _ => {
                if dtype == DType::Float32 {
                    4
                } else {
                    2
                }
            }
        }
    }
}

/// Random draws into buffers (cuRAND and generated kernels on CUDA).
/// The backend trait of this op family (see `ops::backend`).
pub(crate) trait Random {}
