//! The array type: a dtype, a layout and a shared buffer on a device.

use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::{Element, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::{CpuData, CpuStorage, Storage};

/// An N-dimensional array with a dynamic dtype and rank.
///
/// Views (slices, transposes, reshapes that need no copy, `clone()`) share
/// the buffer of the array they come from, as in CuPy: writing through one
/// is seen through the others. Use [`Array::copy`] for independent data.
#[derive(Clone)]
pub struct Array {
    storage: Storage,
    layout: Layout,
    dtype: DType,
}

impl Array {
    /// An array over `storage` seen through `layout`.
    pub(crate) fn from_parts(storage: Storage, layout: Layout, dtype: DType) -> Array {
        Array {
            storage,
            layout,
            dtype,
        }
    }

    /// The array a backend's owned buffer, layout and dtype make.
    pub(crate) fn from_owned(v: crate::core::view::OwnedView) -> Array {
        Array::from_parts(v.storage, v.layout, v.dtype)
    }

    /// A new C-contiguous CPU array owning `data`; `shape` must match its length.
    pub(crate) fn from_cpu_data(data: CpuData, shape: &[usize]) -> Array {
        debug_assert_eq!(data.len(), shape.iter().product::<usize>());
        let dtype = data.dtype();
        Array {
            storage: Storage::Cpu(CpuStorage::new(data)),
            layout: Layout::contiguous(shape),
            dtype,
        }
    }

    /// A new C-contiguous CPU array owning `v` (for CPU implementations).
    pub(crate) fn from_vec_cpu<T: Element>(v: Vec<T>, shape: &[usize]) -> Array {
        Array::from_cpu_data(T::into_data(v), shape)
    }

    /// A view of the same buffer through another layout.
    pub(crate) fn with_layout(&self, layout: Layout) -> Array {
        Array {
            storage: self.storage.clone(),
            layout,
            dtype: self.dtype,
        }
    }

    pub(crate) fn storage(&self) -> &Storage {
        &self.storage
    }

    /// The extent of each axis.
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }
    /// Steps between neighbours along each axis, in elements (may be negative or 0).
    pub fn strides(&self) -> &[isize] {
        self.layout.strides()
    }
    /// Steps between neighbours along each axis, in bytes, as NumPy reports them.
    pub fn strides_bytes(&self) -> Vec<isize> {
        let item = self.dtype.itemsize() as isize;
        self.strides().iter().map(|s| s * item).collect()
    }
    /// Shape, strides and offset.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// Number of axes.
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    /// Number of elements.
    pub fn size(&self) -> usize {
        self.layout.size()
    }
    /// Extent of the first axis, as Python's `len(x)` (a 0-d array, which
    /// NumPy refuses, reports its single element as 1).
    pub fn len(&self) -> usize {
        self.shape().first().copied().unwrap_or(1)
    }
    /// True when the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.size() == 0
    }
    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    /// Bytes per element.
    pub fn itemsize(&self) -> usize {
        self.dtype.itemsize()
    }
    /// Bytes of the elements (not of the whole underlying buffer).
    pub fn nbytes(&self) -> usize {
        self.size() * self.itemsize()
    }
    /// The device that holds the data.
    pub fn device(&self) -> Device {
        self.storage.device()
    }
    /// True when elements are in C order with no gaps.
    pub fn is_c_contiguous(&self) -> bool {
        self.layout.is_c_contiguous()
    }
    /// True when elements are in F order with no gaps.
    pub fn is_f_contiguous(&self) -> bool {
        self.layout.is_f_contiguous()
    }
    /// Whether both arrays view the same buffer.
    pub fn shares_memory(&self, other: &Array) -> bool {
        self.storage.same_buffer(&other.storage)
    }

    /// Fails unless `T` is this array's element type.
    pub(crate) fn check_element<T: Element>(&self, op: &'static str) -> Result<()> {
        if T::DTYPE != self.dtype {
            return Err(Error::DType {
                op,
                detail: format!(
                    "the array holds {} but {} was requested; convert with .astype(cp::{}) first",
                    self.dtype,
                    T::DTYPE,
                    T::DTYPE
                ),
            });
        }
        Ok(())
    }
}

macro_rules! scalar_from {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for Scalar {
            fn from(x: $t) -> Scalar { Scalar::$v(x.into()) }
        }
    )*};
}
scalar_from!(bool => Bool, i8 => Int, i16 => Int, i32 => Int, i64 => Int,
    u8 => UInt, u16 => UInt, u32 => UInt, u64 => UInt, f32 => Float, f64 => Float,
    num_complex::Complex64 => Complex);

impl From<half::f16> for Scalar {
    fn from(x: half::f16) -> Scalar {
        Scalar::Float(x.to_f64())
    }
}
impl From<half::bf16> for Scalar {
    fn from(x: half::bf16) -> Scalar {
        Scalar::Float(x.to_f64())
    }
}
impl From<num_complex::Complex32> for Scalar {
    fn from(x: num_complex::Complex32) -> Scalar {
        Scalar::Complex(num_complex::Complex64::new(x.re as f64, x.im as f64))
    }
}
impl From<isize> for Scalar {
    fn from(x: isize) -> Scalar {
        Scalar::Int(x as i64)
    }
}
impl From<usize> for Scalar {
    fn from(x: usize) -> Scalar {
        Scalar::UInt(x as u64)
    }
}
