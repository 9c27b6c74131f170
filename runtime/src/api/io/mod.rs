//! Arrays in and out of files: NumPy's `.npy` and `.npz` formats
//! ([`load`], [`save`], [`savez`], [`load_npz`], [`load_mmap`]), text tables
//! ([`loadtxt`], [`genfromtxt`], [`savetxt`]) and raw bytes ([`fromfile`],
//! [`frombuffer`], [`Array::tofile`]).
//!
//! Loads to a GPU stream the file through pinned staging chunks, and saves
//! from a GPU stream the device data back the same way: no full-size host
//! copy of the array is made. Saves write a temporary file beside the
//! target and rename it, so a failed save never leaves a partial file under
//! the final name (an existing file stays as it was).

pub(crate) mod npy;
mod npz;
mod raw;
mod table;
mod text;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::core::device::Device;
use crate::core::error::{Error, Result};

pub use npy::{load, load_mmap, load_to, load_with, save, MappedNpy};
pub use npz::{load_npz, load_npz_member, load_npz_with, savez, savez_compressed};
pub use raw::{frombuffer, fromfile, fromfile_with, RawOptions};
pub use text::{genfromtxt, loadtxt, savetxt, SaveTxtOptions, TextOptions};

/// Where loads put their arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadOptions {
    /// The device of the result; `None` (the default) is the current device.
    pub device: Option<Device>,
}

option_setters!(LoadOptions {
    /// The device of the result (`None`: the current device).
    device: Option<Device>,
});

impl LoadOptions {
    /// The device the result goes to.
    pub(crate) fn target(&self) -> Device {
        self.device
            .unwrap_or_else(crate::backend::probe::current_device)
    }
}

/// The path as messages show it.
pub(crate) fn shown(path: &Path) -> String {
    path.display().to_string()
}

/// An `Error::Io` for a failed system call on `path`.
pub(crate) fn io_error(op: &'static str, path: &Path, e: std::io::Error) -> Error {
    Error::Io {
        op,
        path: shown(path),
        detail: e.to_string(),
    }
}

/// An `Error::FileFormat` for content of `path` that is not valid.
pub(crate) fn format_error(op: &'static str, path: &Path, detail: impl Into<String>) -> Error {
    Error::FileFormat {
        op,
        path: shown(path),
        detail: detail.into(),
    }
}

/// Opens `path` for reading, with its length.
pub(crate) fn open(op: &'static str, path: &Path) -> Result<(File, u64)> {
    let file = File::open(path).map_err(|e| io_error(op, path, e))?;
    let len = file.metadata().map_err(|e| io_error(op, path, e))?.len();
    Ok((file, len))
}

/// `path` with `.ext` appended unless it already ends so (`np.save("x", a)`
/// writes `x.npy`).
pub(crate) fn with_extension(path: &Path, ext: &str) -> PathBuf {
    if path.extension().is_some_and(|e| e == ext) {
        path.to_path_buf()
    } else {
        let mut s = path.as_os_str().to_owned();
        s.push(".");
        s.push(ext);
        PathBuf::from(s)
    }
}

/// Writes `path` through `write`, which gets a buffered temporary file in
/// the same directory: renamed to `path` once `write` and the flush
/// succeed, removed otherwise. A failed save thus leaves no partial file
/// under the final name, and an existing file there stays as it was.
/// `len`, when known, is the exact length `write` writes: the file's
/// blocks are then allocated up front (see [`preallocate`]).
pub(crate) fn write_atomically(
    op: &'static str,
    path: &Path,
    len: Option<u64>,
    write: impl FnOnce(&mut std::io::BufWriter<File>) -> Result<()>,
) -> Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .ok_or_else(|| Error::invalid(op, format!("{} names no file", shown(path))))?
        .to_string_lossy()
        .into_owned();
    let tmp = path.with_file_name(format!(
        ".{name}.{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| io_error(op, path, e))?;
    if let Some(len) = len {
        preallocate(&file, len);
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let written = write(&mut out)
        .and_then(|()| out.flush().map_err(|e| io_error(op, path, e)))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| io_error(op, path, e)));
    if written.is_err() {
        drop(out);
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Allocates the blocks of a new file that will be written with exactly
/// `len` bytes, as NumPy's `tofile` does (`npy_fallocate`): buffered writes
/// into allocated blocks skip the filesystem's delayed allocation, which
/// halves the time of a 1 GB save on ext4. Advisory: where the filesystem
/// cannot, the writes allocate as they go.
fn preallocate(file: &File, len: u64) {
    #[cfg(target_os = "linux")]
    if len >= 1 << 20 {
        use std::os::fd::AsRawFd;
        if let Ok(len) = libc::off_t::try_from(len) {
            // SAFETY: a valid descriptor; mode 0 allocates `0..len` and sets
            // the size to `len`, which the caller's writes then fill.
            unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, len);
}

/// Reverses the bytes of each `unit`-byte group (a big-endian file read on
/// a little-endian host, or the reverse).
pub(crate) fn swap_bytes(bytes: &mut [u8], unit: usize) {
    if unit > 1 {
        bytes.chunks_exact_mut(unit).for_each(|c| c.reverse());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cuprite-io-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    fn leftovers(path: &Path) -> Vec<String> {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(&name) && *n != name)
            .collect()
    }

    #[test]
    fn a_failed_write_leaves_neither_the_target_nor_a_temporary() {
        let path = scratch("failed.bin");
        let _ = std::fs::remove_file(&path);
        let r = write_atomically("test", &path, None, |w| {
            w.write_all(&[1; 100_000]).unwrap();
            Err(Error::InvalidArgument {
                op: "test",
                detail: "stop half way".into(),
            })
        });
        assert!(r.is_err());
        assert!(!path.exists());
        assert_eq!(leftovers(&path), Vec::<String>::new());
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let path = scratch("kept.bin");
        std::fs::write(&path, b"old").unwrap();
        let r = write_atomically("test", &path, None, |w| {
            w.write_all(b"new, half").unwrap();
            Err(Error::InvalidArgument {
                op: "test",
                detail: "stop".into(),
            })
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        write_atomically("test", &path, None, |w| {
            w.write_all(b"new").map_err(|e| io_error("test", &path, e))
        })
        .unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(leftovers(&path), Vec::<String>::new());
    }

    #[test]
    fn extensions_are_appended_as_numpy_does() {
        assert_eq!(
            with_extension(Path::new("a/x"), "npy"),
            Path::new("a/x.npy")
        );
        assert_eq!(
            with_extension(Path::new("x.npy"), "npy"),
            Path::new("x.npy")
        );
        assert_eq!(
            with_extension(Path::new("x.txt"), "npy"),
            Path::new("x.txt.npy")
        );
    }
}
