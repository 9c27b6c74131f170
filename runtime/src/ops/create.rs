//! Create, copy and cast: allocation of results, fills, copies between
//! layouts with dtype conversion.
//!
//! The backend trait of this op family (see `ops::backend`).

use crate::dtype::DType;
use crate::error::Result;
use crate::storage::Storage;

/// Create, copy and cast.
pub(crate) trait Create {
    /// A new buffer of `len` elements of `dtype` for the result of `op`.
    /// Its contents are unspecified until written (the CPU's are zeros).
    fn empty(&self, op: &'static str, dtype: DType, len: usize) -> Result<Storage>;
}
