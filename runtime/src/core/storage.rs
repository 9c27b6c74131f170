//! Buffers that arrays view. A buffer is shared by every view of it.

use std::any::{Any, TypeId};
use std::fmt;
use std::panic::{RefUnwindSafe, UnwindSafe};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use half::{bf16, f16};
use num_complex::{Complex32, Complex64};

use crate::core::device::Device;
use crate::core::dtype::DType;

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

/// Memory allocated by a GPU backend (the CUDA backend's `DeviceBuffer`, in
/// `cuda/runtime/memory.rs`). The core keeps it without knowing its type; the
/// backend gets its own type back with [`GpuHandle::downcast`]. Arrays
/// stay `Send`, `Sync` and unwind-safe, as they were.
pub(crate) trait GpuBuffer:
    Any + Send + Sync + RefUnwindSafe + UnwindSafe + fmt::Debug
{
}

/// A shared handle to a GPU backend's buffer and the device it is on.
/// Cloning it shares the buffer; the buffer is freed with the last handle.
#[derive(Clone)]
pub(crate) struct GpuHandle {
    buffer: Arc<dyn GpuBuffer>,
    /// The concrete type of `buffer`, so that [`GpuHandle::downcast`] is a
    /// comparison rather than a call through the vtable.
    type_id: TypeId,
    ordinal: usize,
}

impl GpuHandle {
    /// A handle owning `buffer`, which lives on GPU `ordinal`.
    pub(crate) fn new<B: GpuBuffer>(buffer: B, ordinal: usize) -> GpuHandle {
        GpuHandle {
            buffer: Arc::new(buffer),
            type_id: TypeId::of::<B>(),
            ordinal,
        }
    }

    /// The number of the GPU holding the buffer.
    pub(crate) fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The buffer as the backend's type `B`, or `None` when it is another type.
    pub(crate) fn downcast<B: GpuBuffer>(&self) -> Option<&B> {
        if self.type_id == TypeId::of::<B>() {
            // SAFETY: `type_id` is the type the buffer was created with
            // (`new`), so the data pointer addresses a live `B`.
            Some(unsafe { &*(Arc::as_ptr(&self.buffer) as *const B) })
        } else {
            None
        }
    }

    /// A reference that does not keep the buffer alive: whether anything
    /// still holds the buffer, asked later (`cuda::fusion`).
    pub(crate) fn downgrade(&self) -> std::sync::Weak<dyn GpuBuffer> {
        Arc::downgrade(&self.buffer)
    }

    /// Whether both handles share one buffer.
    pub(crate) fn same_buffer(&self, other: &GpuHandle) -> bool {
        Arc::ptr_eq(&self.buffer, &other.buffer)
    }
}

impl fmt::Debug for GpuHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.buffer.fmt(f)
    }
}

/// A device buffer shared by views, holding `len` elements.
#[derive(Debug, Clone)]
pub struct CudaStorage {
    pub buffer: GpuHandle,
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
            Storage::Cuda(c) => Device::Cuda(c.buffer.ordinal()),
        }
    }

    /// Whether two handles refer to the same buffer.
    pub fn same_buffer(&self, other: &Storage) -> bool {
        match (self, other) {
            (Storage::Cpu(a), Storage::Cpu(b)) => a.same_buffer(b),
            (Storage::Cuda(a), Storage::Cuda(b)) => a.buffer.same_buffer(&b.buffer),
            _ => false,
        }
    }
}

// Arrays cross threads and `catch_unwind` (tests, notebook cells): the
// storage stays `Send + Sync` and unwind-safe whatever a backend holds.
const _: fn() = || {
    fn check<T: Send + Sync + UnwindSafe + RefUnwindSafe>() {}
    check::<Storage>();
};
