//! Signal processing: convolution and correlation.
//!
//! The backend trait of this op family (see `ops::backend`).

/// Signal processing: convolution and correlation.
pub(crate) trait Signal {}
