//! Reductions over axes (sum, prod, mean, var, min/max, any/all), cumulative scans and arg-reductions.
//!
//! The backend traits of the reduction families (see `ops::backend`).

/// Reductions over axes.
pub(crate) trait Reduce {}

/// Cumulative sums and products along an axis.
pub(crate) trait Scan {}

/// Positions of the extreme values (argmin, argmax).
pub(crate) trait ArgReduce {}
