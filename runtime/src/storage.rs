//! Buffers that arrays view. A buffer is shared by every view of it.

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

use crate::device::Device;
use crate::dtype::DType;

/// Host memory of one dtype.
#[derive(Debug, Clone)]
pub enum CpuData {
    Bool(Vec<bool>),
    Int8(Vec<i8>),
    Int16(Vec<i16>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    UInt8(Vec<u8>),
    UInt16(Vec<u16>),
    UInt32(Vec<u32>),
    UInt64(Vec<u64>),
    Float16(Vec<f16>),
    BFloat16(Vec<bf16>),
    Float32(Vec<f32>),
    Float64(Vec<f64>),
    Complex64(Vec<Complex32>),
    Complex128(Vec<Complex64>),
}

impl CpuData {
    /// A buffer of `len` zeros of `dtype`.
    pub fn zeros(dtype: DType, len: usize) -> CpuData {
        crate::with_dtype!(dtype, T => <T as crate::Element>::into_data(vec![T::default(); len]))
    }

    /// The dtype of the elements.
    pub fn dtype(&self) -> DType {
        macro_rules! arm {
            ($($v:ident),*) => { match self { $(CpuData::$v(_) => DType::$v,)* } };
        }
        arm!(
            Bool, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Float16, BFloat16,
            Float32, Float64, Complex64, Complex128
        )
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        crate::with_dtype!(self.dtype(), T => <T as crate::Element>::slice(self).map_or(0, |s| s.len()))
    }

    /// True when the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A CPU buffer shared by views.
#[derive(Debug, Clone)]
pub struct CpuStorage(Arc<RwLock<CpuData>>);

impl CpuStorage {
    pub fn new(data: CpuData) -> Self {
        CpuStorage(Arc::new(RwLock::new(data)))
    }

    /// Read access. A poisoned lock (a panic while writing) still gives the data.
    pub fn read(&self) -> RwLockReadGuard<'_, CpuData> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Write access.
    pub fn write(&self) -> RwLockWriteGuard<'_, CpuData> {
        self.0.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether two handles refer to the same buffer.
    pub fn same_buffer(&self, other: &CpuStorage) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A device buffer shared by views, holding `len` elements.
#[derive(Debug, Clone)]
pub struct CudaStorage {
    pub buffer: Arc<crate::cuda::memory::DeviceBuffer>,
    pub len: usize,
}

/// Where an array's elements live.
#[derive(Debug, Clone)]
pub enum Storage {
    Cpu(CpuStorage),
    Cuda(CudaStorage),
}

impl Storage {
    /// The device holding the buffer.
    pub fn device(&self) -> Device {
        match self {
            Storage::Cpu(_) => Device::Cpu,
            Storage::Cuda(c) => Device::Cuda(c.buffer.session.info.ordinal),
        }
    }

    /// Whether two handles refer to the same buffer.
    pub fn same_buffer(&self, other: &Storage) -> bool {
        match (self, other) {
            (Storage::Cpu(a), Storage::Cpu(b)) => a.same_buffer(b),
            (Storage::Cuda(a), Storage::Cuda(b)) => Arc::ptr_eq(&a.buffer, &b.buffer),
            _ => false,
        }
    }
}
