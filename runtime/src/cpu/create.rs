//! Allocation, fills, copies and casts on the CPU.

use super::CpuBackend;
use crate::array::Array;
use crate::dtype::DType;
use crate::element::{Element, Scalar};
use crate::error::Result;
use crate::ops::create::Create;
use crate::storage::{CpuData, CpuStorage, Storage};
use crate::view::View;

impl Create for CpuBackend {
    fn empty(&self, op: &'static str, dtype: DType, len: usize) -> Result<Storage> {
        crate::layout::check_host_room(op, len, dtype.itemsize())?;
        Ok(Storage::Cpu(CpuStorage::new(CpuData::zeros(dtype, len))))
    }

    // TODO(seam-elementwise): strided loops on the views; these bridge
    // through arrays until then.
    fn copy_cast(&self, _op: &'static str, src: View<'_>, dst: View<'_>) -> Result<()> {
        let src = Array::from_parts(
            src.storage.clone(),
            src.layout.broadcast_to(dst.shape())?,
            src.dtype,
        );
        let dst = Array::from_parts(dst.storage.clone(), dst.layout.clone(), dst.dtype);
        crate::with_dtype!(dst.dtype(), T => dst.scatter::<T>(&src.gather_as::<T>()));
        Ok(())
    }

    fn fill(&self, _op: &'static str, dst: View<'_>, value: Scalar) -> Result<()> {
        let dst = Array::from_parts(dst.storage.clone(), dst.layout.clone(), dst.dtype);
        crate::with_dtype!(dst.dtype(), T => {
            let n = dst.size();
            dst.scatter::<T>(&vec![T::from_scalar(value); n]);
        });
        Ok(())
    }
}
