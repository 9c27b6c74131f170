//! `.npy` files of distributed arrays, written and read in parallel: each
//! rank writes and reads its own byte range of one file on a filesystem
//! every rank sees (Lustre, GPFS, NFS), as MPI-IO does.

use std::path::Path;

use super::create::description;
use super::exchange::{agree, all_gather_stacked};
use super::{block_range, the_world, DistArray};
use crate::api::io::io_error;
use crate::api::nccl::Communicator;
use crate::core::device::Device;
use crate::core::error::{Error, Result};

/// Succeeds on every rank only if `mine` succeeded on every rank; else every
/// rank fails, naming the ranks that failed (and this rank's own error).
fn all_ok(comm: &Communicator, op: &'static str, mine: Result<()>, device: Device) -> Result<()> {
    let flag = crate::asarray_on(vec![i32::from(mine.is_err())], device)?;
    let flags: Vec<i32> = all_gather_stacked(comm, &flag)?.to_vec()?;
    let failed: Vec<String> = flags
        .iter()
        .enumerate()
        .filter(|&(_, &f)| f != 0)
        .map(|(r, _)| r.to_string())
        .collect();
    match (mine, failed.is_empty()) {
        (Err(e), _) => Err(e),
        (Ok(()), true) => Ok(()),
        (Ok(()), false) => Err(Error::InvalidArgument {
            op,
            detail: format!(
                "rank(s) {} failed (their own errors say why)",
                failed.join(", ")
            ),
        }),
    }
}

impl DistArray {
    /// Saves the global array as one `.npy` file at `path` (`.npy` appended
    /// when missing), each rank writing its rows: the file is written under
    /// a temporary name and renamed once every rank has written, so a failed
    /// save leaves no partial file under the final name. Arrays split along
    /// another axis than 0 are resplit first (C order keeps rows together).
    pub fn save_npy(&self, path: impl AsRef<Path>) -> Result<()> {
        let op = "dist::save_npy";
        let path = crate::api::io::with_extension(path.as_ref(), "npy");
        let rows = match self.split {
            Some(0) => self.clone(),
            Some(_) => self.resplit(Some(0))?,
            None => {
                let mine = if self.rank() == 0 {
                    crate::save(&path, &self.local)
                } else {
                    Ok(())
                };
                return all_ok(self.comm, op, mine, self.device());
            }
        };
        let header = crate::api::io::npy::npy_header_for(op, &path, self.dtype(), &self.global)?;
        let tmp = path.with_extension("npy.partial");
        let total = header.len() as u64 + (self.size() * self.local.itemsize()) as u64;
        let made = if self.rank() == 0 {
            (|| {
                let f = std::fs::File::create(&tmp).map_err(|e| io_error(op, &tmp, e))?;
                f.set_len(total).map_err(|e| io_error(op, &tmp, e))?;
                std::os::unix::fs::FileExt::write_all_at(&f, &header, 0)
                    .map_err(|e| io_error(op, &tmp, e))
            })()
        } else {
            Ok(())
        };
        all_ok(self.comm, op, made, self.device())?;
        let row_bytes = (self.global[1..].iter().product::<usize>() * self.local.itemsize()) as u64;
        let start = header.len() as u64 + rows.offset() as u64 * row_bytes;
        let written = (|| {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(&tmp)
                .map_err(|e| io_error(op, &tmp, e))?;
            let mut at = start;
            let block = rows.local.ascontiguousarray()?;
            block.write_byte_chunks(op, &mut |piece| {
                std::os::unix::fs::FileExt::write_all_at(&f, piece, at)
                    .map_err(|e| io_error(op, &tmp, e))?;
                at += piece.len() as u64;
                Ok(())
            })?;
            f.sync_data().map_err(|e| io_error(op, &tmp, e))
        })();
        all_ok(self.comm, op, written, self.device())?;
        let renamed = if self.rank() == 0 {
            std::fs::rename(&tmp, &path).map_err(|e| io_error(op, &path, e))
        } else {
            Ok(())
        };
        let done = all_ok(self.comm, op, renamed, self.device());
        if done.is_err() && self.rank() == 0 {
            let _ = std::fs::remove_file(&tmp);
        }
        done
    }

    /// Loads a `.npy` file (C order) as a DistArray split along `split`:
    /// each rank reads only its rows (through a read-only mapping), then
    /// arrays split along another axis are resplit.
    pub fn load_npy(path: impl AsRef<Path>, split: Option<usize>) -> Result<DistArray> {
        let op = "dist::load_npy";
        let path = path.as_ref();
        let comm = the_world(op)?;
        let device = comm.devices().first().copied().unwrap_or(Device::Cpu);
        let opened = crate::load_mmap(path);
        let described = opened
            .as_ref()
            .map(|m| description(m.shape(), split, m.dtype()))
            .unwrap_or_else(|_| vec![-3]);
        // Every rank must see the same file (a shared filesystem).
        let seen = agree(comm, op, &described, device);
        let m = opened?;
        seen?;
        let global = m.shape().to_vec();
        super::check_split(op, &global, split, comm.world_size())?;
        let rank = comm.ranks().first().copied().unwrap_or(0);
        match split {
            None => {
                let local = m.load_to(&device)?;
                Ok(DistArray::from_parts(local, global, None, comm))
            }
            Some(0) => {
                let (lo, len) = block_range(global[0], comm.world_size(), rank);
                let local = m.load_rows(lo..lo + len, &device)?;
                Ok(DistArray::from_parts(local, global, split, comm))
            }
            Some(_) => DistArray::load_npy(path, Some(0))?.resplit(split),
        }
    }
}
