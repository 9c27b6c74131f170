//! NumPy's `.npy` format: [`load`], [`save`] and the memory-mapped
//! [`load_mmap`].
//!
//! The header (magic, version, the Python dict of `descr`, `fortran_order`
//! and `shape`) is parsed and written by the `npyz` crate. `npyz` reads and
//! writes data element by element through its `Serialize` traits, which
//! would cost a host copy and a conversion per element; the data bytes are
//! therefore moved here in bulk, straight between the file and the
//! array's buffer (or a GPU's pinned staging chunks). Before `npyz` sees a
//! header, the prelude is checked here, since `npyz` allocates whatever
//! header length a file states and computes the element count with
//! unchecked products (a panic under overflow checks).

use std::fs::File;
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use npyz::{Endianness, TypeChar, TypeStr, WriterBuilder};

use super::{format_error, io_error, open, shown, swap_bytes, write_atomically, LoadOptions};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Order;

/// The magic string every `.npy` file starts with.
const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// The start of a zip archive (an `.npz` file).
const ZIP_MAGIC: &[u8; 4] = b"PK\x03\x04";
/// The largest header read: a plain array's header is under 1 KiB, so a
/// larger one is corrupt or hostile.
const MAX_HEADER: usize = 1 << 20;

/// What a `.npy` header says about the data that follows it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Header {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub order: Order,
    /// The data's byte order is not the host's.
    pub swap: bool,
}

impl Header {
    /// Bytes of data the header promises.
    fn data_bytes(&self) -> usize {
        // checked_size (in `read_header`) bounds the count by isize::MAX elements.
        self.shape
            .iter()
            .product::<usize>()
            .saturating_mul(self.dtype.itemsize())
    }

    /// Fails unless `available` bytes hold the data the header promises
    /// (bytes past it are ignored, as NumPy does).
    fn check_data(&self, op: &'static str, path: &Path, available: u64) -> Result<()> {
        let need = self.data_bytes();
        if need as u64 > available {
            return Err(format_error(
                op,
                path,
                format!(
                    "truncated data: shape {} of {} needs {need} bytes after the header, but the file has {available}",
                    fmt_shape(&self.shape),
                    self.dtype
                ),
            ));
        }
        Ok(())
    }
}

/// NumPy's type string of a dtype in the host's byte order (`<f8`); `None`
/// for bfloat16, which NumPy has no dtype for.
pub(crate) fn descr(dtype: DType) -> Option<String> {
    let (code, size) = match dtype {
        DType::Bool => return Some("|b1".into()),
        DType::Int8 => return Some("|i1".into()),
        DType::UInt8 => return Some("|u1".into()),
        DType::BFloat16 => return None,
        DType::Int16 | DType::Int32 | DType::Int64 => ('i', dtype.itemsize()),
        DType::UInt16 | DType::UInt32 | DType::UInt64 => ('u', dtype.itemsize()),
        DType::Float16 | DType::Float32 | DType::Float64 => ('f', dtype.itemsize()),
        DType::Complex64 | DType::Complex128 => ('c', dtype.itemsize()),
    };
    let order = if cfg!(target_endian = "big") {
        '>'
    } else {
        '<'
    };
    Some(format!("{order}{code}{size}"))
}

/// The dtype of a NumPy type string and whether its bytes need swapping on
/// this host; `None` for types Cuprite has no dtype for.
fn dtype_of(ts: &TypeStr) -> Option<(DType, bool)> {
    let size = ts.size_field();
    let dtype = match (ts.type_char(), size) {
        (TypeChar::Bool, 1) => DType::Bool,
        (TypeChar::Int, 1) => DType::Int8,
        (TypeChar::Int, 2) => DType::Int16,
        (TypeChar::Int, 4) => DType::Int32,
        (TypeChar::Int, 8) => DType::Int64,
        (TypeChar::Uint, 1) => DType::UInt8,
        (TypeChar::Uint, 2) => DType::UInt16,
        (TypeChar::Uint, 4) => DType::UInt32,
        (TypeChar::Uint, 8) => DType::UInt64,
        (TypeChar::Float, 2) => DType::Float16,
        (TypeChar::Float, 4) => DType::Float32,
        (TypeChar::Float, 8) => DType::Float64,
        (TypeChar::Complex, 8) => DType::Complex64,
        (TypeChar::Complex, 16) => DType::Complex128,
        _ => return None,
    };
    let big = ts.endianness() == Endianness::Big;
    let little = ts.endianness() == Endianness::Little;
    let host_big = cfg!(target_endian = "big");
    Some((dtype, (big && !host_big) || (little && host_big)))
}

/// Bytes per byte-swapped unit: a complex number swaps its two parts.
fn swap_unit(dtype: DType) -> usize {
    match dtype {
        DType::Complex64 | DType::Complex128 => dtype.itemsize() / 2,
        _ => dtype.itemsize(),
    }
}

/// Reads a `.npy` header from `r`, which holds `available` bytes from the
/// start of the file on; returns it with its length in bytes.
pub(crate) fn read_header(
    op: &'static str,
    path: &Path,
    r: &mut dyn Read,
    available: u64,
) -> Result<(Header, u64)> {
    let bad = |detail: String| format_error(op, path, detail);
    let mut prelude = [0u8; 12];
    if available < 10 {
        return Err(bad(format!(
            "not a .npy file: {available} bytes, fewer than the 10 of the magic string and header length"
        )));
    }
    r.read_exact(&mut prelude[..10])
        .map_err(|e| io_error(op, path, e))?;
    if &prelude[..6] != MAGIC {
        let hint = if &prelude[..4] == ZIP_MAGIC {
            " (it is a zip archive: load .npz files with cp::load_npz)"
        } else {
            ""
        };
        return Err(bad(format!(
            "not a .npy file: it starts with {:?}, not the magic string \"\\x93NUMPY\"{hint}",
            String::from_utf8_lossy(&prelude[..6])
        )));
    }
    let (prelude_len, header_len) = match (prelude[6], prelude[7]) {
        (1, 0) => (10, u16::from_le_bytes([prelude[8], prelude[9]]) as usize),
        (2, 0) | (3, 0) => {
            if available < 12 {
                return Err(bad(
                    "truncated header: the file ends inside the header length".into(),
                ));
            }
            r.read_exact(&mut prelude[10..12])
                .map_err(|e| io_error(op, path, e))?;
            let len = u32::from_le_bytes([prelude[8], prelude[9], prelude[10], prelude[11]]);
            (12, len as usize)
        }
        (major, minor) => {
            return Err(bad(format!(
            "unsupported .npy format version {major}.{minor} (versions 1.0, 2.0 and 3.0 are read)"
        )))
        }
    };
    let total = (prelude_len + header_len) as u64;
    if total > available {
        return Err(bad(format!(
            "truncated header: it states {header_len} bytes but the file has {} after the header length",
            available - prelude_len as u64
        )));
    }
    if header_len > MAX_HEADER {
        return Err(bad(format!(
            "header of {header_len} bytes is larger than the {MAX_HEADER} bytes read (corrupt file?)"
        )));
    }
    let mut raw = prelude[..prelude_len].to_vec();
    raw.resize(prelude_len + header_len, 0);
    r.read_exact(&mut raw[prelude_len..])
        .map_err(|e| io_error(op, path, e))?;
    // npyz multiplies the shape's dimensions without checking for overflow,
    // which panics under overflow checks; a hostile shape is a format error.
    let parsed = std::panic::catch_unwind(|| npyz::NpyHeader::from_reader(&raw[..]))
        .map_err(|_| bad("header: the shape's element count overflows".into()))?
        .map_err(|e| bad(format!("corrupt header: {e}")))?;
    if parsed.uses_pickled_array() {
        return Err(bad(
            "the array holds Python objects (pickled), which Cuprite cannot load".into(),
        ));
    }
    let dtype_text = parsed.dtype().descr();
    let (dtype, swap) = match parsed.dtype() {
        npyz::DType::Plain(ts) => dtype_of(&ts),
        _ => None,
    }
    .ok_or_else(|| {
        bad(format!(
            "unsupported dtype {dtype_text}: Cuprite loads bool, int8 to int64, uint8 to uint64, float16, float32, float64, complex64 and complex128"
        ))
    })?;
    let shape = parsed
        .shape()
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| bad("header: a dimension does not fit in usize".into()))?;
    crate::core::layout::checked_size(op, &shape)
        .ok()
        .filter(|n| {
            n.checked_mul(dtype.itemsize())
                .is_some_and(|b| b <= isize::MAX as usize)
        })
        .ok_or_else(|| {
            bad(format!(
                "header: shape {} has more elements than memory can hold",
                fmt_shape(&shape)
            ))
        })?;
    let order = match parsed.order() {
        npyz::Order::C => Order::C,
        npyz::Order::Fortran => Order::F,
    };
    Ok((
        Header {
            dtype,
            shape,
            order,
            swap,
        },
        total,
    ))
}

/// Reads the data a header describes from `r`, which holds `available`
/// bytes after the header, into a new array on `device`.
pub(crate) fn read_data(
    op: &'static str,
    path: &Path,
    r: &mut dyn Read,
    header: &Header,
    available: u64,
    device: Device,
) -> Result<Array> {
    header.check_data(op, path, available)?;
    let unit = swap_unit(header.dtype);
    Array::from_byte_chunks(
        op,
        header.dtype,
        &header.shape,
        header.order,
        device,
        &mut |piece| {
            r.read_exact(piece).map_err(|e| io_error(op, path, e))?;
            if header.swap {
                swap_bytes(piece, unit);
            }
            Ok(())
        },
    )
}

/// Loads a `.npy` file onto the current device (`cp.load`); Fortran-order
/// files give Fortran-ordered arrays, as NumPy's do.
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_load.npy");
/// let a = cp::arange(6)?.reshape([2, 3])?;
/// cp::save(&path, &a)?;
/// assert_eq!(cp::load(&path)?.to_vec::<i64>()?, vec![0, 1, 2, 3, 4, 5]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn load(path: impl AsRef<Path>) -> Result<Array> {
    load_with(path, &LoadOptions::default())
}

/// Loads a `.npy` file straight onto `device`: to a GPU through pinned
/// staging chunks, without a full-size host copy.
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_load_to.npy");
/// cp::save(&path, &cp::ones([3], cp::f32)?)?;
/// let a = cp::load_to(&path, &cp::Device::Cpu)?;
/// assert_eq!(a.to_vec::<f32>()?, vec![1.0; 3]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn load_to(path: impl AsRef<Path>, device: &Device) -> Result<Array> {
    load_with(path, &LoadOptions::default().device(Some(*device)))
}

/// Loads a `.npy` file with options (the device of the result).
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_load_with.npy");
/// cp::save(&path, &cp::zeros([2, 2], cp::f64)?)?;
/// let a = cp::load_with(&path, &cp::LoadOptions::default().device(Some(cp::Device::Cpu)))?;
/// assert_eq!(a.shape(), &[2, 2]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn load_with(path: impl AsRef<Path>, options: &LoadOptions) -> Result<Array> {
    let op = "load";
    let path = path.as_ref();
    let (mut file, len) = open(op, path)?;
    let (header, header_len) = read_header(op, path, &mut file, len)?;
    read_data(
        op,
        path,
        &mut file,
        &header,
        len - header_len,
        options.target(),
    )
}

/// Writes the header and data of `a` to `w` as a `.npy` file: C order,
/// or Fortran order for an array that is F- but not C-contiguous (as
/// `np.save`). GPU data is downloaded by chunks.
pub(crate) fn write_npy(op: &'static str, path: &Path, w: &mut dyn Write, a: &Array) -> Result<()> {
    let (header, src) = npy_header(op, path, a)?;
    w.write_all(&header).map_err(|e| io_error(op, path, e))?;
    write_npy_data(op, path, w, &src)
}

/// Writes the data of `src` (from [`npy_header`]) to `w`.
fn write_npy_data(op: &'static str, path: &Path, w: &mut dyn Write, src: &Array) -> Result<()> {
    src.write_byte_chunks(op, &mut |piece| {
        w.write_all(piece).map_err(|e| io_error(op, path, e))
    })
}

/// The `.npy` header of `a`, and the C- or F-contiguous array whose bytes
/// follow it (`a` itself unless neither).
fn npy_header(op: &'static str, path: &Path, a: &Array) -> Result<(Vec<u8>, Array)> {
    let descr = descr(a.dtype()).ok_or_else(|| Error::DType {
        op,
        detail: format!(
            "{}: bfloat16 has no NumPy dtype, so no .npy descr; convert with .astype(cp::f32) (exact) first, or write raw bytes with tofile",
            shown(path)
        ),
    })?;
    let (src, order) = if a.is_c_contiguous() {
        (a.clone(), npyz::Order::C)
    } else if a.is_f_contiguous() {
        (a.clone(), npyz::Order::Fortran)
    } else {
        (a.copy()?, npyz::Order::C)
    };
    let header = header_bytes(op, path, &descr, src.shape(), order)?;
    Ok((header, src))
}

/// The header of a C-order `.npy` file of `dtype` and `shape`, for writers
/// that write the data themselves (a distributed array, by ranks).
pub(crate) fn npy_header_for(
    op: &'static str,
    path: &Path,
    dtype: DType,
    shape: &[usize],
) -> Result<Vec<u8>> {
    let descr = descr(dtype).ok_or_else(|| Error::DType {
        op,
        detail: format!(
            "{}: {dtype} has no NumPy dtype, so no .npy descr",
            shown(path)
        ),
    })?;
    header_bytes(op, path, &descr, shape, npyz::Order::C)
}

fn header_bytes(
    op: &'static str,
    path: &Path,
    descr: &str,
    shape: &[usize],
    order: npyz::Order,
) -> Result<Vec<u8>> {
    let type_str: TypeStr = descr.parse().map_err(|e| Error::DType {
        op,
        detail: format!("{}: descr {descr:?}: {e}", shown(path)),
    })?;
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut header = Vec::new();
    npyz::WriteOptions::new_header_only()
        .dtype(npyz::DType::Plain(type_str))
        .shape(&shape)
        .order(order)
        .writer(&mut header)
        .write_header_only()
        .map_err(|e| io_error(op, path, e))?;
    Ok(header)
}

/// Saves an array as a `.npy` file (`np.save`), appending `.npy` to a path
/// without it. A GPU array is downloaded by chunks as it is written. The
/// file appears only once complete.
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_save");
/// cp::save(&path, &cp::arange(4)?)?;
/// assert_eq!(cp::load(path.with_extension("npy"))?.shape(), &[4]);
/// # std::fs::remove_file(path.with_extension("npy")).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn save(path: impl AsRef<Path>, a: &Array) -> Result<()> {
    let op = "save";
    let path = super::with_extension(path.as_ref(), "npy");
    // Made (or refused, for bfloat16) before a temporary file is.
    let (header, src) = npy_header(op, &path, a)?;
    let len = (header.len() + src.nbytes()) as u64;
    write_atomically(op, &path, Some(len), |w| {
        w.write_all(&header).map_err(|e| io_error(op, &path, e))?;
        write_npy_data(op, &path, w, &src)
    })
}

/// A `.npy` file mapped into memory ([`load_mmap`]): its header is read,
/// its data is read from the mapping when loaded, in whole or by rows.
pub struct MappedNpy {
    map: memmap2::Mmap,
    header: Header,
    data_start: usize,
    path: PathBuf,
}

impl std::fmt::Debug for MappedNpy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MappedNpy({}, shape={}, dtype={}, order={:?})",
            shown(&self.path),
            fmt_shape(&self.header.shape),
            self.header.dtype,
            self.header.order
        )
    }
}

/// Maps a `.npy` file into memory (`np.load(path, mmap_mode="r")`): the
/// header is checked now, the data is read when loaded, and
/// [`MappedNpy::load_rows`] reads just a range of rows of a large file.
/// The file must not be truncated or rewritten while mapped.
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_mmap.npy");
/// cp::save(&path, &cp::arange(12)?.reshape([4, 3])?)?;
/// let m = cp::load_mmap(&path)?;
/// assert_eq!(m.shape(), &[4, 3]);
/// let rows = m.load_rows(1..3, &cp::Device::Cpu)?;
/// assert_eq!(rows.to_vec::<i64>()?, vec![3, 4, 5, 6, 7, 8]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn load_mmap(path: impl AsRef<Path>) -> Result<MappedNpy> {
    let op = "load_mmap";
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| io_error(op, path, e))?;
    // SAFETY: the mapping is read-only and private to this value; as the
    // documentation says, the file must not be changed while it is mapped
    // (as with NumPy's memmap).
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| io_error(op, path, e))?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    let mut r: &[u8] = &map;
    let (header, header_len) = read_header(op, path, &mut r, map.len() as u64)?;
    header.check_data(op, path, map.len() as u64 - header_len)?;
    Ok(MappedNpy {
        map,
        header,
        data_start: header_len as usize,
        path: path.to_path_buf(),
    })
}

impl MappedNpy {
    /// The shape the header states.
    pub fn shape(&self) -> &[usize] {
        &self.header.shape
    }
    /// The dtype the header states.
    pub fn dtype(&self) -> DType {
        self.header.dtype
    }
    /// The memory order of the data.
    pub fn order(&self) -> Order {
        self.header.order
    }

    /// The whole array on the current device.
    pub fn load(&self) -> Result<Array> {
        self.load_to(&crate::backend::probe::current_device())
    }

    /// The whole array on `device`.
    pub fn load_to(&self, device: &Device) -> Result<Array> {
        let mut r = &self.map[self.data_start..];
        let available = r.len() as u64;
        read_data(
            "load_mmap",
            &self.path,
            &mut r,
            &self.header,
            available,
            *device,
        )
    }

    /// Rows `rows` (a range of the first axis) of a C-order file on
    /// `device`, read from the mapping alone (`np.load(..., mmap_mode="r")[a:b]`).
    pub fn load_rows(&self, rows: Range<usize>, device: &Device) -> Result<Array> {
        let op = "MappedNpy::load_rows";
        let Some(&len) = self.header.shape.first() else {
            return Err(Error::shape(op, "a 0-d array has no rows"));
        };
        if self.header.order == Order::F && self.header.shape.len() > 1 {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "{}: the rows of a Fortran-order file are not contiguous; load the whole array",
                    shown(&self.path)
                ),
            });
        }
        if rows.start > rows.end || rows.end > len {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "rows {}..{} are outside the {len} rows of shape {}",
                    rows.start,
                    rows.end,
                    fmt_shape(&self.header.shape)
                ),
            });
        }
        let row_bytes =
            self.header.shape[1..].iter().product::<usize>() * self.header.dtype.itemsize();
        let start = self.data_start + rows.start * row_bytes;
        let mut r = &self.map[start..start + rows.len() * row_bytes];
        let available = r.len() as u64;
        let mut header = self.header.clone();
        header.shape[0] = rows.len();
        read_data(op, &self.path, &mut r, &header, available, *device)
    }
}
