//! Create, copy and cast: allocation of results, fills, copies between
//! layouts with dtype conversion.
//!
//! The backend trait of this op family (see `ops::backend`).

use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;

/// Create, copy and cast.
pub(crate) trait Create {
    /// A new buffer of `len` elements of `dtype` for the result of `op`.
    /// Its contents are unspecified until written (the CPU's are zeros).
    fn empty(&self, op: &'static str, dtype: DType, len: usize) -> Result<Storage>;
    /// Writes `src`, broadcast to `dst`'s shape and converted to its dtype
    /// (NumPy's unsafe cast), into `dst`. `src` must not overlap `dst`
    /// unless it is `dst` itself.
    fn copy_cast(&self, op: &'static str, src: View<'_>, dst: View<'_>) -> Result<()>;
    /// Writes `value`, converted to `dst`'s dtype, into every element of `dst`.
    fn fill(&self, op: &'static str, dst: View<'_>, value: Scalar) -> Result<()>;
    /// A new buffer of `len` elements of `dtype`, each `value` converted to it.
    fn full(&self, op: &'static str, dtype: DType, len: usize, value: Scalar) -> Result<Storage>;
    /// A new buffer of `len` values `start + i * step`: int64 (wrapping) or
    /// float64 (`step` is NumPy's rounded delta; each value the product
    /// rounded, then the sum).
    fn arange(
        &self,
        op: &'static str,
        dtype: DType,
        len: usize,
        start: Scalar,
        step: Scalar,
    ) -> Result<Storage>;
}
