//! Allocation, fills, copies and casts on the CPU.

use super::CpuBackend;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::create::Create;
use crate::storage::{CpuData, CpuStorage, Storage};

impl Create for CpuBackend {
    fn empty(&self, op: &'static str, dtype: DType, len: usize) -> Result<Storage> {
        crate::layout::check_host_room(op, len, dtype.itemsize())?;
        Ok(Storage::Cpu(CpuStorage::new(CpuData::zeros(dtype, len))))
    }
}
