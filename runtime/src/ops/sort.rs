//! Sorting: sort and argsort along an axis.
//!
//! The backend trait of this op family (see `ops::backend`).

use crate::error::Result;
use crate::storage::Storage;
use crate::view::View;

/// Sorting: sort and argsort along an axis.
pub(crate) trait Sort {
    /// `x` sorted along `axis` (`arg == false`, `x`'s dtype) or the int64
    /// indices that sort it stably (`arg == true`), in NumPy's order (NaNs
    /// last; complex by real part, then imaginary part): a new C-contiguous
    /// buffer of `x`'s shape. A new buffer rather than an output view,
    /// because the GPU's radix sort ends with the result in one of its own.
    fn sort(&self, op: &'static str, x: View<'_>, axis: usize, arg: bool) -> Result<Storage>;
}
