//! Sorting: sort and argsort along an axis.
//!
//! The backend trait of this op family (see `ops::backend`).

/// Sorting: sort and argsort along an axis.
pub(crate) trait Sort {}
