//! NumPy's `.npz` archives: a zip file of `.npy` members, one per named
//! array ([`savez`], [`savez_compressed`], [`load_npz`], and
//! [`load_npz_member`] for one array without reading the others). The container is
//! the `zip` crate's; the members go through the `.npy` reader and writer.

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;
use zip::CompressionMethod;

use super::npy::{read_data, read_header, write_npy};
use super::{format_error, io_error, open, shown, write_atomically, LoadOptions};
use crate::core::array::Array;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// A `zip` crate error on `path` as a Cuprite error.
fn zip_error(op: &'static str, path: &Path, e: zip::result::ZipError) -> Error {
    match e {
        zip::result::ZipError::Io(e) => io_error(op, path, e),
        other => format_error(op, path, format!("not a valid .npz (zip) archive: {other}")),
    }
}

/// The archive's file, which goes quiet after its first failure: the save
/// has failed then (that error is returned) and its temporary file is
/// removed, but `ZipWriter`'s drop would still try to finish the archive
/// and print its own failure on stderr, beside the user's error. After a
/// failure, writes and seeks only move a position, so that finishing
/// "succeeds" into nothing.
struct QuietAfterFailure<W> {
    inner: W,
    failed: bool,
    /// The position and length the archive has written, kept for the
    /// arithmetic of its seeks once the file is no longer touched.
    pos: u64,
    len: u64,
}

impl<W> QuietAfterFailure<W> {
    fn new(inner: W) -> Self {
        QuietAfterFailure {
            inner,
            failed: false,
            pos: 0,
            len: 0,
        }
    }

    fn advance(&mut self, n: usize) {
        self.set(self.pos + n as u64);
    }

    fn set(&mut self, p: u64) -> u64 {
        self.pos = p;
        self.len = self.len.max(p);
        p
    }
}

impl<W: std::io::Write> std::io::Write for QuietAfterFailure<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = if self.failed {
            buf.len()
        } else {
            self.inner.write(buf).inspect_err(|_| self.failed = true)?
        };
        self.advance(n);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.failed {
            return Ok(());
        }
        self.inner.flush().inspect_err(|_| self.failed = true)
    }
}

impl<W: std::io::Seek> std::io::Seek for QuietAfterFailure<W> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        use std::io::SeekFrom;
        if !self.failed {
            let p = self.inner.seek(to).inspect_err(|_| self.failed = true)?;
            return Ok(self.set(p));
        }
        let base = match to {
            SeekFrom::Start(p) => return Ok(self.set(p)),
            SeekFrom::Current(d) => (self.pos, d),
            SeekFrom::End(d) => (self.len, d),
        };
        Ok(self.set(base.0.saturating_add_signed(base.1)))
    }
}

/// The path of a member in messages: `archive.npz/name.npy`.
fn member_path(path: &Path, name: &str) -> PathBuf {
    PathBuf::from(format!("{}/{name}", shown(path)))
}

fn write_archive(
    op: &'static str,
    path: &Path,
    arrays: &[(&str, &Array)],
    method: CompressionMethod,
) -> Result<()> {
    let path = super::with_extension(path, "npz");
    for (k, (name, a)) in arrays.iter().enumerate() {
        if name.is_empty() {
            return Err(Error::invalid(op, format!("array {k} has an empty name")));
        }
        if arrays[..k].iter().any(|(other, _)| other == name) {
            return Err(Error::invalid(
                op,
                format!("the name {name:?} is given twice"),
            ));
        }
        if a.dtype() == DType::BFloat16 {
            return write_npy(op, &path, &mut std::io::sink(), a);
        }
    }
    write_atomically(op, &path, None, |w| {
        let mut zip = zip::ZipWriter::new(QuietAfterFailure::new(w));
        for (name, a) in arrays {
            // Members past 4 GiB need zip64 records (NumPy writes them too).
            let large = a.nbytes() as u64 >= u32::MAX as u64 - (1 << 20);
            let options = SimpleFileOptions::default()
                .compression_method(method)
                .large_file(large);
            zip.start_file(format!("{name}.npy"), options)
                .map_err(|e| zip_error(op, &path, e))?;
            write_npy(op, &path, &mut zip, a)?;
        }
        zip.finish().map_err(|e| zip_error(op, &path, e))?;
        Ok(())
    })
}

/// Saves named arrays in one uncompressed `.npz` archive (`np.savez`),
/// appending `.npz` to a path without it; each becomes `name.npy` inside.
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_savez.npz");
/// let (x, y) = (cp::arange(3)?, cp::ones([2, 2], cp::f32)?);
/// cp::savez(&path, &[("x", &x), ("y", &y)])?;
/// let loaded = cp::load_npz(&path)?;
/// assert_eq!(loaded["y"].shape(), &[2, 2]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn savez(path: impl AsRef<Path>, arrays: &[(&str, &Array)]) -> Result<()> {
    write_archive("savez", path.as_ref(), arrays, CompressionMethod::Stored)
}

/// Saves named arrays in one deflate-compressed `.npz` archive
/// (`np.savez_compressed`).
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_savez_compressed.npz");
/// cp::savez_compressed(&path, &[("zeros", &cp::zeros([1000], cp::f64)?)])?;
/// assert!(std::fs::metadata(&path).unwrap().len() < 1000);
/// assert_eq!(cp::load_npz(&path)?["zeros"].size(), 1000);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn savez_compressed(path: impl AsRef<Path>, arrays: &[(&str, &Array)]) -> Result<()> {
    write_archive(
        "savez_compressed",
        path.as_ref(),
        arrays,
        CompressionMethod::Deflated,
    )
}

/// Loads every array of an `.npz` archive onto the current device, by name
/// (the member name without `.npy`; members that are not `.npy` files are
/// skipped).
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_load_npz.npz");
/// cp::savez(&path, &[("a", &cp::arange(4)?)])?;
/// let arrays = cp::load_npz(&path)?;
/// assert_eq!(arrays.keys().collect::<Vec<_>>(), ["a"]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn load_npz(path: impl AsRef<Path>) -> Result<BTreeMap<String, Array>> {
    load_npz_with(path, &LoadOptions::default())
}

/// As [`load_npz`], with options (the device of the arrays: GPU loads
/// stream each member through pinned staging chunks).
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_load_npz_with.npz");
/// cp::savez_compressed(&path, &[("a", &cp::arange(4)?)])?;
/// let opts = cp::LoadOptions::default().device(Some(cp::Device::Cpu));
/// assert_eq!(cp::load_npz_with(&path, &opts)?["a"].device(), cp::Device::Cpu);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn load_npz_with(
    path: impl AsRef<Path>,
    options: &LoadOptions,
) -> Result<BTreeMap<String, Array>> {
    let op = "load_npz";
    let path = path.as_ref();
    let (file, _) = open(op, path)?;
    let mut archive =
        zip::ZipArchive::new(BufReader::new(file)).map_err(|e| zip_error(op, path, e))?;
    let device = options.target();
    let mut out = BTreeMap::new();
    for k in 0..archive.len() {
        let mut member = archive.by_index(k).map_err(|e| zip_error(op, path, e))?;
        let name = member.name().to_string();
        let Some(key) = name.strip_suffix(".npy") else {
            continue;
        };
        let at = member_path(path, &name);
        let size = member.size();
        let (header, header_len) = read_header(op, &at, &mut member, size)?;
        let a = read_data(op, &at, &mut member, &header, size - header_len, device)?;
        out.insert(key.to_string(), a);
    }
    Ok(out)
}

/// Loads one array of an `.npz` archive (`np.load(path)[name]`, which NumPy
/// reads lazily too), without reading the other members.
///
/// ```
/// use cuprite as cp;
/// let path = std::env::temp_dir().join("cuprite_doc_load_npz_member.npz");
/// cp::savez(&path, &[("a", &cp::arange(4)?), ("b", &cp::ones([2], cp::f32)?)])?;
/// let opts = cp::LoadOptions::default();
/// assert_eq!(cp::load_npz_member(&path, "b", &opts)?.shape(), &[2]);
/// assert!(cp::load_npz_member(&path, "c", &opts).unwrap_err().to_string().contains("a, b"));
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), cp::Error>(())
/// ```
pub fn load_npz_member(path: impl AsRef<Path>, name: &str, options: &LoadOptions) -> Result<Array> {
    let op = "load_npz_member";
    let path = path.as_ref();
    let (file, _) = open(op, path)?;
    let mut archive =
        zip::ZipArchive::new(BufReader::new(file)).map_err(|e| zip_error(op, path, e))?;
    let member_name = format!("{name}.npy");
    if archive.index_for_name(&member_name).is_none() {
        let names: Vec<&str> = archive
            .file_names()
            .filter_map(|n| n.strip_suffix(".npy"))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        return Err(Error::invalid(
            op,
            format!(
                "no array named {name:?} in {} (it has: {})",
                shown(path),
                names.join(", ")
            ),
        ));
    }
    let mut member = archive
        .by_name(&member_name)
        .map_err(|e| zip_error(op, path, e))?;
    let at = member_path(path, &member_name);
    let size = member.size();
    let (header, header_len) = read_header(op, &at, &mut member, size)?;
    read_data(
        op,
        &at,
        &mut member,
        &header,
        size - header_len,
        options.target(),
    )
}
