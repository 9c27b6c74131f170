//! What the vendor-library modules (cuBLAS, cuSOLVER, cuSPARSE, cuFFT)
//! share: device pointers and sessions of views, new device buffers, status
//! checks, and a device's library handle bound to the current stream.

use std::fmt::Debug;

use super::session::{session, DeviceSession, LazyHandle};
use super::stream::current_stream;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::Handle;

/// The CUDA device number of a view of a GPU buffer.
pub(crate) fn ordinal(op: &'static str, v: View<'_>) -> Result<usize> {
    match v.storage {
        Storage::Cuda(c) => Ok(c.buffer.ordinal()),
        Storage::Cpu(_) => Err(Error::DeviceMismatch {
            op,
            a: "cuda".into(),
            b: "cpu".into(),
        }),
    }
}

/// The session of the device holding `v`.
pub(crate) fn session_of(op: &'static str, v: View<'_>) -> Result<&'static DeviceSession> {
    session(ordinal(op, v)?)
}

/// Device address of element 0 of the view `v`.
pub(crate) fn ptr(op: &'static str, v: View<'_>) -> Result<u64> {
    match v.storage {
        Storage::Cuda(c) => Ok(c.buffer.ptr + (v.offset() * v.dtype.itemsize()) as u64),
        Storage::Cpu(_) => Err(Error::DeviceMismatch {
            op,
            a: "cuda".into(),
            b: "cpu".into(),
        }),
    }
}

/// A new C-contiguous device buffer of `shape` and `dtype` (uninitialised),
/// with its layout: view it with [`Buffer::view`].
pub(crate) struct Buffer {
    pub storage: Storage,
    pub layout: Layout,
    pub dtype: DType,
}

impl Buffer {
    pub(crate) fn new(
        op: &'static str,
        ordinal: usize,
        dtype: DType,
        shape: &[usize],
    ) -> Result<Buffer> {
        let layout = Layout::contiguous(shape);
        let len = crate::core::layout::checked_size(op, shape)?;
        let storage = Storage::Cuda(super::transfer::alloc(op, ordinal, dtype, len)?);
        Ok(Buffer {
            storage,
            layout,
            dtype,
        })
    }

    /// A new device buffer holding `values` (1-D).
    pub(crate) fn from_host<T: crate::Element>(
        op: &'static str,
        ordinal: usize,
        values: &[T],
    ) -> Result<Buffer> {
        Ok(Buffer {
            storage: Storage::Cuda(super::transfer::upload_new(op, ordinal, values)?),
            layout: Layout::contiguous(&[values.len()]),
            dtype: T::DTYPE,
        })
    }

    pub(crate) fn view(&self) -> View<'_> {
        View::new(&self.storage, &self.layout, self.dtype)
    }

    /// The same buffer read through `layout`.
    pub(crate) fn with_layout(self, layout: Layout) -> Buffer {
        Buffer { layout, ..self }
    }

    /// The transpose of a 2-D buffer (no copy).
    pub(crate) fn t(self) -> Buffer {
        let l = self.layout.permuted(&[1, 0]);
        self.with_layout(l)
    }

    /// Its storage and layout, as a backend returns a result it allocated.
    pub(crate) fn into_owned(self) -> (Storage, Layout) {
        (self.storage, self.layout)
    }

    /// The device address of its first element.
    pub(crate) fn ptr(&self, op: &'static str) -> Result<u64> {
        ptr(op, self.view())
    }

    /// Its elements, read back to the host (this synchronises with the stream).
    pub(crate) fn to_host<T: crate::Element>(&self) -> Result<Vec<T>> {
        match &self.storage {
            Storage::Cuda(c) => super::transfer::download_all::<T>(c),
            Storage::Cpu(_) => unreachable!("a device buffer"),
        }
    }
}

/// `Ok` when a library call returned `success`, else `Error::Cuda` naming
/// the operation, the call and the status.
pub(crate) fn check_status<S: PartialEq + Debug>(
    op: &str,
    call: &str,
    status: S,
    success: S,
) -> Result<()> {
    if status == success {
        Ok(())
    } else {
        Err(Error::Cuda {
            op: op.to_string(),
            detail: format!("{call} returned {status:?}"),
        })
    }
}

/// Runs `f` with the device's library handle kept in `slot` (created by
/// `create` on first use), after binding the device's context and
/// `set_stream(handle, current stream)`: the set-up every vendor library
/// shares.
pub(crate) fn with_handle<H: Copy, R>(
    s: &DeviceSession,
    slot: &LazyHandle<Handle<H>>,
    create: impl FnOnce() -> Result<H>,
    set_stream: impl FnOnce(H, *mut std::ffi::c_void) -> Result<()>,
    f: impl FnOnce(H) -> Result<R>,
) -> Result<R> {
    s.bind()?;
    slot.with(
        || create().map(Handle),
        |h| {
            let h = h.0;
            set_stream(h, current_stream().raw() as *mut std::ffi::c_void)?;
            f(h)
        },
    )
}

/// The host buffer `host` (of `dtype`) copied to a new buffer on cuda:`ordinal`.
pub(crate) fn upload(
    op: &'static str,
    ordinal: usize,
    host: &Storage,
    dtype: DType,
) -> Result<Storage> {
    match host {
        Storage::Cpu(h) => {
            let data = h.read();
            debug_assert_eq!(data.dtype(), dtype);
            Ok(Storage::Cuda(super::transfer::upload_data(
                op, ordinal, &data,
            )?))
        }
        Storage::Cuda(_) => Ok(host.clone()),
    }
}

/// The `cudaDataType` (of the library bindings `$sys`) of a float32,
/// float64, complex64 or complex128 `$dtype`; `None` for other dtypes.
macro_rules! float_data_type {
    ($sys:ident, $dtype:expr) => {{
        use $sys::cudaDataType::*;
        match $dtype {
            DType::Float32 => Some(CUDA_R_32F),
            DType::Float64 => Some(CUDA_R_64F),
            DType::Complex64 => Some(CUDA_C_32F),
            DType::Complex128 => Some(CUDA_C_64F),
            _ => None,
        }
    }};
}
pub(crate) use float_data_type;
