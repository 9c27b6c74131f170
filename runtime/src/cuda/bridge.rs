//! The one use of `Array` left in the CUDA backend, for the families whose
//! CUDA code still builds its results as arrays: delete this file when no
//! caller is left (new code allocates with `Create::empty` or
//! `transfer::alloc` and writes through views).

use crate::array::Array;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::Storage;

/// A new C-contiguous CUDA array of `dtype` and `shape` on cuda:`ordinal` (uninitialised).
pub(crate) fn new_array(
    op: &'static str,
    ordinal: usize,
    dtype: DType,
    shape: &[usize],
) -> Result<Array> {
    let n = crate::layout::checked_size(op, shape)?;
    let storage = super::transfer::alloc(op, ordinal, dtype, n)?;
    Ok(Array::from_parts(
        Storage::Cuda(storage),
        Layout::contiguous(shape),
        dtype,
    ))
}
