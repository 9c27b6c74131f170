//! DLPack 1.0 (`DLManagedTensorVersioned`): tensors exchanged with PyTorch,
//! JAX, CuPy and other DLPack libraries without copying device memory.
//!
//! The C structs are declared here, `#[repr(C)]` after `dlpack.h` 1.0,
//! rather than taken from the `dlpark` crate: dlpark 0.10 needs Rust 1.88
//! and edition 2024 (the workspace supports 1.85), and the ABI is these
//! five small structs.

use std::ffi::c_void;
use std::ptr::NonNull;

use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::cuda::runtime::foreign::foreign_view;

/// `DLPackVersion`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLPackVersion {
    pub major: u32,
    pub minor: u32,
}

/// `DLDevice`: a device type (`kDLCPU` = 1, `kDLCUDA` = 2, ...) and number.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLDevice {
    pub device_type: i32,
    pub device_id: i32,
}

/// `DLDataType`: a type code (`kDLInt` 0, `kDLUInt` 1, `kDLFloat` 2,
/// `kDLBfloat` 4, `kDLComplex` 5, `kDLBool` 6), bits per lane and lanes.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DLDataType {
    pub code: u8,
    pub bits: u8,
    pub lanes: u16,
}

/// `DLTensor`: the address, device, shape, strides (in elements; null for
/// C order) and dtype of a tensor.
#[repr(C)]
#[derive(Debug)]
pub struct DLTensor {
    pub data: *mut c_void,
    pub device: DLDevice,
    pub ndim: i32,
    pub dtype: DLDataType,
    pub shape: *mut i64,
    pub strides: *mut i64,
    pub byte_offset: u64,
}

/// `DLManagedTensorVersioned`: a tensor with its owner's context and the
/// deleter that releases it.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    pub version: DLPackVersion,
    pub manager_ctx: *mut c_void,
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    pub flags: u64,
    pub dl_tensor: DLTensor,
}

/// `kDLCPU`.
pub const KDL_CPU: i32 = 1;
/// `kDLCUDA`.
pub const KDL_CUDA: i32 = 2;
/// `kDLCUDAHost`: pinned host memory.
pub const KDL_CUDA_HOST: i32 = 3;
/// `DLPACK_FLAG_BITMASK_READ_ONLY`.
pub const DLPACK_FLAG_READ_ONLY: u64 = 1;

/// An owned DLPack tensor: its deleter runs once, when this is dropped
/// (unless it was given away with [`ManagedTensor::into_raw`]).
///
/// ```
/// use cuprite as cp;
/// let t = cp::zeros([2, 3], cp::bf16)?.to_dlpack()?;
/// assert_eq!((t.shape(), t.as_raw().dl_tensor.dtype.code), (&[2i64, 3][..], 4));
/// // Handed to a C consumer and back (the consumer would call the deleter).
/// let raw = t.into_raw();
/// // SAFETY: the pointer just given away, taken back once.
/// let t = unsafe { cp::ManagedTensor::from_raw(raw) };
/// assert_eq!(t.strides(), Some(&[3i64, 1][..]));
/// # Ok::<(), cp::Error>(())
/// ```
#[derive(Debug)]
pub struct ManagedTensor(NonNull<DLManagedTensorVersioned>);

// SAFETY: DLPack lets the owner of a tensor move it between threads and
// call its deleter from any of them; the struct is only read through `&self`.
unsafe impl Send for ManagedTensor {}
unsafe impl Sync for ManagedTensor {}

impl ManagedTensor {
    /// Takes ownership of a tensor another library produced.
    ///
    /// # Safety
    /// `raw` must point to a valid `DLManagedTensorVersioned` that nothing
    /// else will delete; its deleter will be called once.
    pub unsafe fn from_raw(raw: NonNull<DLManagedTensorVersioned>) -> ManagedTensor {
        ManagedTensor(raw)
    }

    /// Gives the tensor away (to a consumer that will call its deleter).
    pub fn into_raw(self) -> NonNull<DLManagedTensorVersioned> {
        let raw = self.0;
        std::mem::forget(self);
        raw
    }

    /// The tensor's fields.
    pub fn as_raw(&self) -> &DLManagedTensorVersioned {
        // SAFETY: valid for as long as this owner lives (`from_raw`).
        unsafe { self.0.as_ref() }
    }

    /// The shape (`ndim` extents).
    pub fn shape(&self) -> &[i64] {
        let t = &self.as_raw().dl_tensor;
        // SAFETY: DLPack's shape holds `ndim` extents while the tensor lives.
        unsafe { raw_parts(t.shape, t.ndim) }
    }

    /// The strides in elements, or `None` when the producer left them null
    /// (C order).
    pub fn strides(&self) -> Option<&[i64]> {
        let t = &self.as_raw().dl_tensor;
        // SAFETY: as for the shape.
        (!t.strides.is_null()).then(|| unsafe { raw_parts(t.strides, t.ndim) })
    }
}

impl Drop for ManagedTensor {
    fn drop(&mut self) {
        if let Some(deleter) = self.as_raw().deleter {
            // SAFETY: the owner calls the deleter once (`from_raw`).
            unsafe { deleter(self.0.as_ptr()) };
        }
    }
}

/// `ndim` values at `ptr` (none for a 0-d tensor, whose pointer may be null).
unsafe fn raw_parts<'a>(ptr: *const i64, ndim: i32) -> &'a [i64] {
    if ndim <= 0 || ptr.is_null() {
        &[]
    } else {
        // SAFETY: the caller's tensor holds `ndim` values there.
        unsafe { std::slice::from_raw_parts(ptr, ndim as usize) }
    }
}

/// The DLPack type of `dtype`.
///
/// ```
/// use cuprite as cp;
/// let t = cp::dlpack::dlpack_dtype(cp::DType::Complex64);
/// assert_eq!((t.code, t.bits, t.lanes), (5, 64, 1));
/// ```
pub fn dlpack_dtype(dtype: DType) -> DLDataType {
    let code = match dtype {
        DType::Bool => 6,
        DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => 0,
        DType::UInt8 | DType::UInt16 | DType::UInt32 | DType::UInt64 => 1,
        DType::Float16 | DType::Float32 | DType::Float64 => 2,
        DType::BFloat16 => 4,
        DType::Complex64 | DType::Complex128 => 5,
    };
    DLDataType {
        code,
        bits: (dtype.itemsize() * 8) as u8,
        lanes: 1,
    }
}

/// The Cuprite dtype of a DLPack type.
fn dtype_of(op: &'static str, t: DLDataType) -> Result<DType> {
    DType::ALL
        .iter()
        .copied()
        .find(|&d| dlpack_dtype(d) == t)
        .ok_or_else(|| Error::DType {
            op,
            detail: format!(
                "DLPack type code {} with {} bits and {} lanes has no Cuprite dtype",
                t.code, t.bits, t.lanes
            ),
        })
}

/// What an exported tensor's `manager_ctx`-less allocation holds: the
/// struct handed out first (so a pointer to it is a pointer to the whole),
/// then the array keeping the buffer alive and the shape and strides the
/// struct points into.
#[repr(C)]
struct Exported {
    managed: DLManagedTensorVersioned,
    array: Array,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

/// The deleter of tensors Cuprite exports.
unsafe extern "C" fn delete_exported(tensor: *mut DLManagedTensorVersioned) {
    // SAFETY: `to_dlpack` made this pointer from a `Box<Exported>` whose
    // first field is the tensor.
    drop(unsafe { Box::from_raw(tensor as *mut Exported) });
}

impl Array {
    /// This array as a DLPack 1.0 tensor sharing its memory (CPU arrays as
    /// `kDLCPU`, GPU arrays as `kDLCUDA` with their device number).
    ///
    /// ```
    /// use cuprite as cp;
    /// let x = cp::arange(6)?.reshape([2, 3])?.astype(cp::f32)?;
    /// let t = x.t().to_dlpack()?;
    /// assert_eq!((t.shape(), t.strides()), (&[3i64, 2][..], Some(&[1i64, 3][..])));
    /// let y = cp::from_dlpack(t)?;
    /// assert_eq!(y.to_vec::<f32>()?, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    ///
    /// A GPU array's stream is synchronised first, so the consumer may use
    /// the memory on any stream. The tensor keeps the buffer alive until
    /// its deleter runs; writes through it are seen by this array.
    pub fn to_dlpack(&self) -> Result<ManagedTensor> {
        let op = "to_dlpack";
        let item = self.itemsize() as u64;
        let (data, device) = match self.storage() {
            Storage::Cpu(s) => {
                let guard = s.read();
                let base = crate::with_dtype!(self.dtype(), T => {
                    <T as crate::Element>::slice(&guard).map_or(std::ptr::null(), |v| v.as_ptr() as *const c_void)
                });
                (
                    base as *mut c_void,
                    DLDevice {
                        device_type: KDL_CPU,
                        device_id: 0,
                    },
                )
            }
            Storage::Cuda(c) => {
                let ordinal = c.buffer.session.info.ordinal;
                crate::cuda::runtime::stream::stream_for(ordinal).synchronize_raw(op)?;
                let device = DLDevice {
                    device_type: KDL_CUDA,
                    device_id: ordinal as i32,
                };
                (c.buffer.ptr as *mut c_void, device)
            }
        };
        let mut exported = Box::new(Exported {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion { major: 1, minor: 0 },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_exported),
                flags: 0,
                dl_tensor: DLTensor {
                    data,
                    device,
                    ndim: self.ndim() as i32,
                    dtype: dlpack_dtype(self.dtype()),
                    shape: std::ptr::null_mut(),
                    strides: std::ptr::null_mut(),
                    byte_offset: self.layout().offset() as u64 * item,
                },
            },
            array: self.clone(),
            shape: self.shape().iter().map(|&n| n as i64).collect(),
            strides: self.strides().iter().map(|&s| s as i64).collect(),
        });
        exported.managed.dl_tensor.shape = exported.shape.as_mut_ptr();
        exported.managed.dl_tensor.strides = exported.strides.as_mut_ptr();
        let raw = NonNull::from(Box::leak(exported)).cast::<DLManagedTensorVersioned>();
        // SAFETY: a valid tensor whose deleter frees it once.
        Ok(unsafe { ManagedTensor::from_raw(raw) })
    }
}

/// An array over a DLPack tensor: a `kDLCUDA` tensor is used in place (the
/// tensor's deleter runs when the last view of the array goes); a
/// `kDLCPU`/`kDLCUDAHost` tensor is copied into a CPU array (Cuprite's
/// host buffers own their memory) and deleted at once.
///
/// ```
/// use cuprite as cp;
/// let x = cp::asarray(vec![true, false, true])?;
/// let y = cp::from_dlpack(x.to_dlpack()?)?;
/// assert_eq!(y.to_vec::<bool>()?, vec![true, false, true]);
/// # Ok::<(), cp::Error>(())
/// ```
///
/// Fails for DLPack versions other than 1.x, dtypes Cuprite lacks
/// (several lanes, float8, ...), other device types, and read-only device
/// tensors (Cuprite arrays are writable).
pub fn from_dlpack(tensor: ManagedTensor) -> Result<Array> {
    let op = "from_dlpack";
    let raw = tensor.as_raw();
    if raw.version.major != 1 {
        return Err(Error::InvalidArgument {
            op,
            detail: format!(
                "DLPack version {}.{} is not supported (1.x is)",
                raw.version.major, raw.version.minor
            ),
        });
    }
    let t = &raw.dl_tensor;
    let dtype = dtype_of(op, t.dtype)?;
    let shape: Vec<usize> = tensor
        .shape()
        .iter()
        .map(|&n| usize::try_from(n))
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::Shape {
            op,
            detail: format!("negative extent in shape {:?}", tensor.shape()),
        })?;
    crate::core::layout::checked_size(op, &shape)?;
    let strides: Vec<isize> = match tensor.strides() {
        Some(s) => s.iter().map(|&v| v as isize).collect(),
        None => crate::core::layout::c_strides(&shape),
    };
    let first = (t.data as u64).wrapping_add(t.byte_offset);
    match t.device.device_type {
        KDL_CPU | KDL_CUDA_HOST => Ok(copy_host_tensor(first, &shape, &strides, dtype)),
        KDL_CUDA => {
            if raw.flags & DLPACK_FLAG_READ_ONLY != 0 {
                return Err(Error::InvalidArgument {
                    op,
                    detail: "the tensor is read-only; Cuprite arrays are writable (copy it first)"
                        .into(),
                });
            }
            let ordinal = t.device.device_id.max(0) as usize;
            Device::Cuda(ordinal).check_available(op)?;
            let layout = Layout::from_parts(shape, strides, 0);
            // SAFETY: DLPack guarantees the tensor's memory until its
            // deleter runs, which dropping the owner (the tensor) does.
            unsafe { foreign_view(op, ordinal, first, layout, dtype, Box::new(tensor)) }.map(Array::from_owned)
        }
        other => Err(Error::InvalidArgument {
            op,
            detail: format!(
                "DLPack device type {other} (tensor of shape {}) is not supported: Cuprite takes kDLCPU (1), kDLCUDA (2) and kDLCUDAHost (3)",
                fmt_shape(&shape)
            ),
        }),
    }
}

/// The elements of a host tensor, copied in C order into a CPU array.
fn copy_host_tensor(first: u64, shape: &[usize], strides: &[isize], dtype: DType) -> Array {
    let seen = Layout::from_parts(shape.to_vec(), strides.to_vec(), 0);
    // Count positions from the lowest element reached, so none is negative.
    let lowest = if seen.size() == 0 {
        0
    } else {
        seen.offset_range().0
    };
    let layout = Layout::from_parts(shape.to_vec(), strides.to_vec(), lowest.unsigned_abs());
    crate::with_dtype!(dtype, T => {
        let base = (first as *const T).wrapping_offset(lowest);
        let values: Vec<T> = layout
            .positions()
            // SAFETY: DLPack guarantees every element the shape and strides
            // reach from the first one while the tensor lives.
            .map(|p| unsafe { base.add(p).read() })
            .collect();
        Array::from_vec_cpu(values, shape)
    })
}
