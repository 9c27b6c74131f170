//! Distributed arrays (`cp::dist`): one array whose global shape is split
//! along one axis over the ranks of [`world`](crate::nccl::world), each
//! rank holding its block as an ordinary [`Array`] on its own GPU (or on
//! the CPU, in a world of CPU processes). As Heat's split tensors, over
//! NCCL; every call is collective: every rank makes it, in the same order.
//!
//! ```no_run
//! use cuprite as cp;
//! use cp::dist::DistArray;
//! // Started as 4 processes (srun -n 4, mpirun -n 4, torchrun ...):
//! let x = DistArray::linspace(0.0, 1.0, 1_000_000, Some(0))?; // 250k values per rank
//! let y = x.map(|b| cp::sin(b))?.mul_scalar(2.0)?;
//! let total = y.sum()?;                 // replicated 0-d: the same on every rank
//! println!("{}", total.local().item::<f64>()?);
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! **Blocks.** An axis of length `n` over `W` ranks is cut as
//! `numpy.array_split` cuts it: the first `n % W` ranks hold `n / W + 1`
//! entries, the others `n / W`; rank `r`'s block starts at
//! [`DistArray::offset`]. Every rank must hold at least one entry, so a
//! split axis shorter than the world is an error. `split: None` means
//! replicated: every rank holds the whole array.
//!
//! **Communication.** Elementwise work on operands split alike, or against
//! replicated arrays and scalars, is local. Operands split differently are
//! redistributed first (set `CUPRITE_DIST_WARN=1` to be told, once per call
//! site). Reductions reduce locally, then combine across ranks with one
//! all-reduce; reducing the split axis away gives a replicated result.
//! [`DistArray::resplit`] moves the split axis (one exchange among all
//! ranks); [`DistArray::halo`] fetches neighbouring rows for stencils.
//!
//! Every creation checks that all ranks passed the same global shape,
//! dtype and split (one small all-gather), so a rank that disagrees fails
//! every rank with a message naming it instead of a hang.

mod create;
mod elementwise;
mod exchange;
mod index;
mod io;
mod linalg;
mod qr;
mod reduce;
mod reshape;

use std::fmt;

use crate::api::nccl::Communicator;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{fmt_shape, Error, Result};

/// An array spread over the ranks of a world (see the module doc).
#[derive(Clone)]
pub struct DistArray {
    local: Array,
    global: Vec<usize>,
    split: Option<usize>,
    comm: &'static Communicator,
}

/// Where rank `rank`'s block of an axis of length `n` over `world` ranks
/// starts, and its length (`numpy.array_split`'s cut).
pub fn block_range(n: usize, world: usize, rank: usize) -> (usize, usize) {
    let (base, extra) = (n / world.max(1), n % world.max(1));
    let len = base + usize::from(rank < extra);
    (rank * base + rank.min(extra), len)
}

impl DistArray {
    /// This rank's block, an ordinary array on this rank's device.
    pub fn local(&self) -> &Array {
        &self.local
    }

    /// This rank's block, to change in place (its shape must stay).
    pub fn local_mut(&mut self) -> &mut Array {
        &mut self.local
    }

    /// This rank's block, taken out.
    pub fn into_local(self) -> Array {
        self.local
    }

    /// The shape of the whole array.
    pub fn global_shape(&self) -> &[usize] {
        &self.global
    }

    /// The split axis, or `None` when every rank holds the whole array.
    pub fn split(&self) -> Option<usize> {
        self.split
    }

    /// Where this rank's block starts along the split axis (0 when replicated).
    pub fn offset(&self) -> usize {
        match self.split {
            Some(ax) => block_range(self.global[ax], self.world_size(), self.rank()).0,
            None => 0,
        }
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.local.dtype()
    }

    /// Number of dimensions of the global array.
    pub fn ndim(&self) -> usize {
        self.global.len()
    }

    /// Number of elements of the global array.
    pub fn size(&self) -> usize {
        self.global.iter().product()
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.comm.ranks().first().copied().unwrap_or(0)
    }

    /// The number of ranks the array spans.
    pub fn world_size(&self) -> usize {
        self.comm.world_size()
    }

    /// The communicator the array lives on.
    pub fn communicator(&self) -> &'static Communicator {
        self.comm
    }

    /// This rank's device.
    pub fn device(&self) -> Device {
        self.local.device()
    }

    /// `(offset, length)` of every rank's block along the split axis.
    pub fn blocks(&self) -> Vec<(usize, usize)> {
        let w = self.world_size();
        match self.split {
            Some(ax) => (0..w).map(|r| block_range(self.global[ax], w, r)).collect(),
            None => vec![(0, self.global.first().copied().unwrap_or(1)); w],
        }
    }

    /// The shape of rank `rank`'s block.
    pub fn block_shape(&self, rank: usize) -> Vec<usize> {
        block_shape(&self.global, self.split, self.world_size(), rank)
    }

    /// Each rank's host and device, in rank order (collective: one small
    /// all-gather). Hosts are known when the ranks met over TCP, else the
    /// launcher's node list or `"?"`.
    pub fn placement(&self) -> Result<Vec<(String, Device)>> {
        let code = match self.device() {
            Device::Cuda(n) => n as i64,
            Device::Cpu => -1,
        };
        let mine =
            crate::backend::probe::with_device(self.device(), || crate::asarray(vec![code]))?;
        let codes: Vec<i64> = exchange::all_gather_stacked(self.comm, &mine)?.to_vec()?;
        let hosts: Vec<String> = crate::api::nccl::world_launch()
            .map(|l| l.hosts().to_vec())
            .unwrap_or_default();
        Ok(codes
            .iter()
            .enumerate()
            .map(|(r, &c)| {
                let host = match hosts.len() {
                    n if n == codes.len() => hosts[r].clone(),
                    1 => hosts[0].clone(),
                    _ => "?".to_string(),
                };
                let device = if c < 0 {
                    Device::Cpu
                } else {
                    Device::Cuda(c as usize)
                };
                (host, device)
            })
            .collect())
    }

    /// A DistArray from parts known to be consistent (internal).
    pub(crate) fn from_parts(
        local: Array,
        global: Vec<usize>,
        split: Option<usize>,
        comm: &'static Communicator,
    ) -> DistArray {
        DistArray {
            local,
            global,
            split,
            comm,
        }
    }
}

/// The shape of rank `rank`'s block of `global` split along `split`.
pub(crate) fn block_shape(
    global: &[usize],
    split: Option<usize>,
    world: usize,
    rank: usize,
) -> Vec<usize> {
    let mut shape = global.to_vec();
    if let Some(ax) = split {
        shape[ax] = block_range(global[ax], world, rank).1;
    }
    shape
}

/// The world every DistArray call uses.
pub(crate) fn the_world(op: &'static str) -> Result<&'static Communicator> {
    crate::api::nccl::world().map_err(|e| Error::InvalidArgument {
        op,
        detail: format!("no world to spread the array over: {e}"),
    })
}

/// Checks `split` against `global` and the world size (the same on every
/// rank, so every rank fails alike).
pub(crate) fn check_split(
    op: &'static str,
    global: &[usize],
    split: Option<usize>,
    world: usize,
) -> Result<()> {
    let Some(ax) = split else {
        return Ok(());
    };
    if ax >= global.len() {
        return Err(Error::Axis {
            op,
            axis: ax as isize,
            ndim: global.len(),
        });
    }
    if global[ax] < world {
        return Err(Error::Shape {
            op,
            detail: format!(
                "axis {ax} of the global shape {} has {} entries, fewer than the {world} ranks: every rank must hold at least one (split along a longer axis, or replicate with split None)",
                fmt_shape(global),
                global[ax]
            ),
        });
    }
    Ok(())
}

impl fmt::Display for DistArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let split = match self.split {
            Some(ax) => format!("split along axis {ax}"),
            None => "replicated".to_string(),
        };
        writeln!(
            f,
            "DistArray {} {} {split} over {} rank(s)",
            fmt_shape(&self.global),
            self.dtype(),
            self.world_size()
        )?;
        for (r, (start, len)) in self.blocks().iter().enumerate() {
            let here = if r == self.rank() {
                format!("  (this rank, on {})", self.device())
            } else {
                String::new()
            };
            writeln!(f, "  rank {r}: [{start}, {}){here}", start + len)?;
        }
        Ok(())
    }
}

impl fmt::Debug for DistArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
