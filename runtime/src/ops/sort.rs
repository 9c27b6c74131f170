//! Sorting and searching: sort and argsort along an axis, binary search in
//! a sorted vector, and the distinct values of an array.
//!
//! The backend trait of this op family (see `ops::backend`).

use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::core::view::View;

/// What `unique` computes besides the distinct values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct UniqueWant {
    /// The position of each distinct value's first occurrence.
    pub index: bool,
    /// For every element, the number of its distinct value.
    pub inverse: bool,
    /// How often each distinct value occurs.
    pub counts: bool,
    /// NaNs are one value (NumPy's `equal_nan=True`; complex: a NaN in
    /// either part).
    pub equal_nan: bool,
}

/// What `unique` returns: `count` sorted distinct values of the input's
/// dtype and, where asked, int64 buffers (`index` and `counts` of `count`
/// elements, `inverse` of one per input element, in C order).
pub(crate) struct UniqueParts {
    pub values: Storage,
    pub count: usize,
    pub index: Option<Storage>,
    pub inverse: Option<Storage>,
    pub counts: Option<Storage>,
}

/// What `searchsorted` computes: for every element of `v`, where it goes
/// in the 1-D `a` (sorted in NumPy's order; same dtype as `v`): the first
/// position that keeps the order (`right == false`) or the last, as int64
/// into `out` (C-contiguous, `v`'s shape).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SearchSorted<'a> {
    pub a: View<'a>,
    pub v: View<'a>,
    pub right: bool,
    pub out: View<'a>,
}

/// Sorting and searching.
pub(crate) trait Sort {
    /// `x` sorted along `axis` (`arg == false`, `x`'s dtype) or the int64
    /// indices that sort it stably (`arg == true`), in NumPy's order (NaNs
    /// last; complex by real part, then imaginary part): a new C-contiguous
    /// buffer of `x`'s shape. A new buffer rather than an output view,
    /// because the GPU's radix sort ends with the result in one of its own.
    fn sort(&self, op: &'static str, x: View<'_>, axis: usize, arg: bool) -> Result<Storage>;

    /// Binary searches of sorted data (see [`SearchSorted`]).
    fn searchsorted(&self, op: &'static str, s: SearchSorted<'_>) -> Result<()>;

    /// The sorted distinct values of the 1-D `x` and what `want` asks for
    /// besides. New buffers: their sizes depend on the data.
    fn unique(&self, op: &'static str, x: View<'_>, want: UniqueWant) -> Result<UniqueParts>;
}
