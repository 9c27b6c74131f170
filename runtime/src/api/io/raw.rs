//! Raw binary data with no header: [`fromfile`], [`frombuffer`] and
//! [`Array::tofile`], in the host's byte order (as NumPy's).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::{format_error, io_error, open, write_atomically};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::Order;

/// Options of [`fromfile_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RawOptions {
    /// Elements to read; `None` (the default) reads to the end of the file.
    pub count: Option<usize>,
    /// Bytes to skip at the start of the file.
    pub offset: u64,
    /// The device of the result; `None` is the current device.
    pub device: Option<Device>,
}

option_setters!(RawOptions {
    /// Elements to read (`None`: to the end of the file).
    count: Option<usize>,
    /// Bytes to skip at the start of the file.
    offset: u64,
    /// The device of the result (`None`: the current device).
    device: Option<Device>,
});

/// The number of elements of `itemsize` bytes in `bytes` bytes, or the
/// error saying why they do not divide (`what` names the source).
fn element_count(
    op: &'static str,
    path: &Path,
    what: &str,
    bytes: u64,
    dtype: DType,
    count: Option<usize>,
) -> Result<usize> {
    let item = dtype.itemsize() as u64;
    match count {
        None if bytes % item != 0 => Err(format_error(
            op,
            path,
            format!(
                "{what} holds {bytes} bytes, not a whole number of {item}-byte {dtype} elements"
            ),
        )),
        None => Ok((bytes / item) as usize),
        Some(c) if (c as u64).saturating_mul(item) > bytes => Err(format_error(
            op,
            path,
            format!(
                "count {c} needs {} bytes of {dtype}, but {what} holds {bytes}",
                c as u64 * item
            ),
        )),
        Some(c) => Ok(c),
    }
}

/// Reads a file of raw elements (`np.fromfile(path, dtype)`): the whole
/// file as a 1-D array on the current device.
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_fromfile.bin");
/// cp::arange(5)?.astype(cp::i32)?.tofile(&path)?;
/// assert_eq!(cp::fromfile(&path, cp::i32)?.to_vec::<i32>()?, vec![0, 1, 2, 3, 4]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn fromfile(path: impl AsRef<Path>, dtype: DType) -> Result<Array> {
    fromfile_with(path, dtype, &RawOptions::default())
}

/// As [`fromfile`], with a count, a byte offset and a device (GPU loads
/// stream through pinned staging chunks).
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_fromfile_with.bin");
/// cp::arange(5)?.astype(cp::i32)?.tofile(&path)?;
/// let a = cp::fromfile_with(&path, cp::i32, &cp::RawOptions::default().offset(4).count(Some(2)))?;
/// assert_eq!(a.to_vec::<i32>()?, vec![1, 2]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn fromfile_with(path: impl AsRef<Path>, dtype: DType, options: &RawOptions) -> Result<Array> {
    let op = "fromfile";
    let path = path.as_ref();
    let (mut file, len) = open(op, path)?;
    if options.offset > len {
        return Err(format_error(
            op,
            path,
            format!(
                "offset {} is past the end of the {len}-byte file",
                options.offset
            ),
        ));
    }
    let what = format!("the file after offset {}", options.offset);
    let n = element_count(op, path, &what, len - options.offset, dtype, options.count)?;
    file.seek(SeekFrom::Start(options.offset))
        .map_err(|e| io_error(op, path, e))?;
    let device = options
        .device
        .unwrap_or_else(crate::backend::probe::current_device);
    Array::from_byte_chunks(op, dtype, &[n], Order::C, device, &mut |piece| {
        file.read_exact(piece).map_err(|e| io_error(op, path, e))
    })
}

/// A 1-D array on the current device holding a copy of raw elements in the
/// host's byte order (`np.frombuffer(bytes, dtype)`); the length must be a
/// whole number of elements. Bool bytes other than 0 read as true.
///
/// ```
/// use cuprite as cp;
/// let bytes: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|v| v.to_ne_bytes()).collect();
/// assert_eq!(cp::frombuffer(&bytes, cp::f32)?.to_vec::<f32>()?, vec![1.5, -2.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn frombuffer(bytes: &[u8], dtype: DType) -> Result<Array> {
    let op = "frombuffer";
    let item = dtype.itemsize();
    if bytes.len() % item != 0 {
        return Err(Error::InvalidArgument {
            op,
            detail: format!(
                "buffer size {} is not a multiple of the {item}-byte {dtype} element size",
                bytes.len()
            ),
        });
    }
    let mut rest = bytes;
    let device = crate::backend::probe::current_device();
    Array::from_byte_chunks(
        op,
        dtype,
        &[bytes.len() / item],
        Order::C,
        device,
        &mut |piece| {
            let (head, tail) = rest.split_at(piece.len());
            piece.copy_from_slice(head);
            rest = tail;
            Ok(())
        },
    )
}

impl Array {
    /// Writes the elements in C order as raw bytes in the host's byte order,
    /// with no header (`a.tofile(path)`); read back with [`fromfile`]. A GPU
    /// array is downloaded by chunks as it is written.
    ///
    /// ```
    /// use cuprite as cp;
    /// let path = std::env::temp_dir().join("cuprite_doc_tofile.bin");
    /// cp::arange(3)?.astype(cp::u8)?.tofile(&path)?;
    /// assert_eq!(std::fs::read(&path).unwrap(), vec![0, 1, 2]);
    /// # std::fs::remove_file(&path).ok();
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn tofile(&self, path: impl AsRef<Path>) -> Result<()> {
        let op = "tofile";
        let path = path.as_ref();
        let src = self.ascontiguousarray()?;
        write_atomically(op, path, Some(src.nbytes() as u64), |w| {
            src.write_byte_chunks(op, &mut |piece| {
                std::io::Write::write_all(w, piece).map_err(|e| io_error(op, path, e))
            })
        })
    }
}
