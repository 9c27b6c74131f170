//! `__cuda_array_interface__` (version 3): a raw description of a GPU
//! array's memory that CuPy, Numba, PyTorch and others read, and arrays
//! built over memory such a description names.

use std::any::Any;
use std::fmt::Write;

use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::cuda::runtime::foreign::foreign_view;

/// A GPU array's memory as `__cuda_array_interface__` version 3 describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArrayInterface {
    /// The device address of the element at index 0 (0 for an empty
    /// array), and whether the memory is read-only.
    pub data: (usize, bool),
    /// The extent of each axis.
    pub shape: Vec<usize>,
    /// Steps in bytes; `None` when the array is C-contiguous.
    pub strides: Option<Vec<isize>>,
    /// NumPy's type string: `<f4`, `|b1`, `<c8`, ... (`<V2` for bfloat16,
    /// which NumPy lacks; `descr` then names it).
    pub typestr: String,
    /// NumPy's `descr`: one unnamed field of `typestr`, or `bfloat16`.
    pub descr: Vec<(String, String)>,
    /// The stream whose queued work writes the data: `None` when none is
    /// pending, 1 for the legacy default stream, else a `CUstream` handle.
    pub stream: Option<usize>,
    /// The protocol version (3).
    pub version: u32,
}

/// The byte-order character NumPy writes for multi-byte types.
const ORDER: char = if cfg!(target_endian = "little") {
    '<'
} else {
    '>'
};

/// NumPy's type string of `dtype`.
pub(crate) fn typestr(dtype: DType) -> String {
    let (kind, order) = match dtype {
        DType::Bool => ('b', '|'),
        DType::Int8 => ('i', '|'),
        DType::UInt8 => ('u', '|'),
        DType::Int16 | DType::Int32 | DType::Int64 => ('i', ORDER),
        DType::UInt16 | DType::UInt32 | DType::UInt64 => ('u', ORDER),
        DType::Float16 | DType::Float32 | DType::Float64 => ('f', ORDER),
        DType::BFloat16 => ('V', ORDER),
        DType::Complex64 | DType::Complex128 => ('c', ORDER),
    };
    format!("{order}{kind}{}", dtype.itemsize())
}

/// The dtype a NumPy type string names (`descr` tells bfloat16 from other
/// two-byte void types).
fn dtype_of(op: &'static str, typestr: &str, descr: &[(String, String)]) -> Result<DType> {
    let bfloat = descr.first().is_some_and(|(name, _)| name == "bfloat16");
    let found = DType::ALL.iter().copied().find(|&d| {
        let own = self::typestr(d);
        // One-byte types may also be written with '<', '>' or '='.
        let matches = own == typestr
            || (own.starts_with('|') && typestr.len() == own.len() && typestr[1..] == own[1..])
            || (own.starts_with(ORDER) && typestr.starts_with('=') && typestr[1..] == own[1..]);
        matches && (d != DType::BFloat16 || bfloat)
    });
    found.ok_or_else(|| Error::DType {
        op,
        detail: format!(
            "type string {typestr:?} names no Cuprite dtype (native byte order only; bfloat16 is '<V2' with descr name \"bfloat16\")"
        ),
    })
}

impl ArrayInterface {
    /// The description as JSON, in the layout of Python's dict.
    ///
    /// ```
    /// use cuprite as cp;
    /// if cp::device_count() > 0 {
    ///     let x = cp::zeros([2, 3], cp::f32)?.to_device(&cp::Device::Cuda(0))?;
    ///     let json = x.cuda_array_interface()?.to_json();
    ///     assert!(json.contains("\"typestr\": \"<f4\""));
    /// }
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn to_json(&self) -> String {
        let list = |items: &mut dyn Iterator<Item = String>| items.collect::<Vec<_>>().join(", ");
        let mut out = String::from("{");
        let _ = write!(out, "\"data\": [{}, {}], ", self.data.0, self.data.1);
        let _ = write!(
            out,
            "\"shape\": [{}], ",
            list(&mut self.shape.iter().map(|n| n.to_string()))
        );
        match &self.strides {
            Some(s) => {
                let _ = write!(
                    out,
                    "\"strides\": [{}], ",
                    list(&mut s.iter().map(|n| n.to_string()))
                );
            }
            None => out.push_str("\"strides\": null, "),
        }
        let _ = write!(out, "\"typestr\": \"{}\", ", self.typestr);
        let _ = write!(
            out,
            "\"descr\": [{}], ",
            list(
                &mut self
                    .descr
                    .iter()
                    .map(|(n, t)| format!("[\"{n}\", \"{t}\"]"))
            )
        );
        match self.stream {
            Some(s) => {
                let _ = write!(out, "\"stream\": {s}, ");
            }
            None => out.push_str("\"stream\": null, "),
        }
        let _ = write!(out, "\"version\": {}}}", self.version);
        out
    }
}

impl Array {
    /// This GPU array's `__cuda_array_interface__` (version 3): its address,
    /// shape, byte strides, type string and stream; no copy is made.
    ///
    /// ```
    /// use cuprite as cp;
    /// if cp::device_count() > 0 {
    ///     let x = cp::arange(6)?.reshape([2, 3])?.to_device(&cp::Device::Cuda(0))?;
    ///     let iface = x.t().cuda_array_interface()?;
    ///     assert_eq!((iface.typestr.as_str(), iface.strides), ("<i8", Some(vec![8, 24])));
    /// }
    /// # Ok::<(), cp::Error>(())
    /// ```
    ///
    /// Fails for a CPU array. The address stays valid while this array (or
    /// another view of its buffer) lives.
    pub fn cuda_array_interface(&self) -> Result<ArrayInterface> {
        let op = "cuda_array_interface";
        self.require_cuda(op)?;
        let Storage::Cuda(c) = self.storage() else {
            unreachable!("require_cuda checked the device")
        };
        let ordinal = c.buffer.session.info.ordinal;
        // `raw` queues deferred launches, so the stream holds every writer.
        let stream = crate::cuda::runtime::stream::stream_for(ordinal);
        let handle = stream.raw() as usize;
        let address = if self.size() == 0 {
            0
        } else {
            c.buffer.ptr as usize + self.layout().offset() * self.itemsize()
        };
        let typestr = typestr(self.dtype());
        let name = if self.dtype() == DType::BFloat16 {
            "bfloat16"
        } else {
            ""
        };
        Ok(ArrayInterface {
            data: (address, false),
            shape: self.shape().to_vec(),
            strides: (!self.is_c_contiguous()).then(|| self.strides_bytes()),
            descr: vec![(name.to_string(), typestr.clone())],
            typestr,
            stream: Some(if handle == 0 { 1 } else { handle }),
            version: 3,
        })
    }
}

/// A GPU array over the foreign device memory `interface` describes, no
/// copy made; `keep_alive` (the memory's owner) is dropped once the last
/// view of the array has gone and its queued work has finished.
///
/// ```
/// use cuprite as cp;
/// if cp::device_count() > 0 {
///     let x = cp::arange(4)?.to_device(&cp::Device::Cuda(0))?;
///     let iface = x.cuda_array_interface()?;
///     // SAFETY: `x`, moved into keep_alive, owns the memory.
///     let y = unsafe { cp::from_array_interface(&iface, Box::new(x))? };
///     assert_eq!(y.to_vec::<i64>()?, vec![0, 1, 2, 3]);
/// }
/// # Ok::<(), cp::Error>(())
/// ```
///
/// Cuprite's current stream waits for the interface's `stream`. Read-only
/// memory is refused (Cuprite arrays are writable), as are type strings of
/// another byte order and strides that are not whole elements.
///
/// # Safety
/// Every element the shape and strides reach from `data.0` must be device
/// memory, readable and writable until `keep_alive` is dropped.
pub unsafe fn from_array_interface(
    interface: &ArrayInterface,
    keep_alive: Box<dyn Any + Send + Sync>,
) -> Result<Array> {
    let op = "from_array_interface";
    if !(2..=3).contains(&interface.version) {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("version {} is not one of 2 and 3", interface.version),
        });
    }
    if interface.data.1 {
        return Err(Error::InvalidArgument {
            op,
            detail: "the memory is read-only; Cuprite arrays are writable (copy it first)".into(),
        });
    }
    let dtype = dtype_of(op, &interface.typestr, &interface.descr)?;
    let shape = interface.shape.clone();
    let strides = match &interface.strides {
        None => crate::core::layout::c_strides(&shape),
        Some(bytes) => element_strides(op, bytes, &shape, dtype)?,
    };
    let size = crate::core::layout::checked_size(op, &shape)?;
    let ptr = interface.data.0 as u64;
    let ordinal = if size == 0 {
        match crate::backend::probe::current_device() {
            crate::Device::Cuda(n) => n,
            crate::Device::Cpu => 0,
        }
    } else {
        crate::cuda::runtime::foreign::pointer_device(op, ptr)?
    };
    match interface.stream {
        None => {}
        Some(0) => {
            return Err(Error::InvalidArgument {
                op,
                detail:
                    "stream 0 is disallowed by the protocol (use 1 for the legacy default stream)"
                        .into(),
            })
        }
        // 1 and 2 are the driver's CU_STREAM_LEGACY and CU_STREAM_PER_THREAD handles.
        Some(s) => crate::cuda::runtime::foreign::order_after(op, ordinal, s as _)?,
    }
    let layout = Layout::from_parts(shape, strides, 0);
    // SAFETY: the caller vouches for the memory and its owner.
    unsafe { foreign_view(op, ordinal, ptr, layout, dtype, keep_alive) }.map(Array::from_owned)
}

/// Byte strides as element strides; each must be a whole number of elements.
pub(crate) fn element_strides(
    op: &'static str,
    bytes: &[isize],
    shape: &[usize],
    dtype: DType,
) -> Result<Vec<isize>> {
    let item = dtype.itemsize() as isize;
    if bytes.len() != shape.len() || bytes.iter().any(|b| b % item != 0) {
        return Err(Error::Shape {
            op,
            detail: format!(
                "strides {bytes:?} (bytes) do not fit shape {} of {item}-byte {dtype} elements",
                fmt_shape(shape)
            ),
        });
    }
    Ok(bytes.iter().map(|b| b / item).collect())
}
