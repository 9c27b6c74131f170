//! Moving blocks between ranks: to the even cut ([`rebalance`]), to another
//! split axis ([`DistArray::resplit`]), and ghost rows for stencils
//! ([`DistArray::halo`]).

use super::exchange::exchange;
use super::{block_range, block_shape, check_split, DistArray};
use crate::api::nccl::Communicator;
use crate::core::array::Array;
use crate::core::error::{Error, Result};

/// The overlap of two ranges `(start, len)`, relative to the first's start.
fn overlap(a: (usize, usize), b: (usize, usize)) -> Option<(usize, usize)> {
    let lo = a.0.max(b.0);
    let hi = (a.0 + a.1).min(b.0 + b.1);
    (hi > lo).then(|| (lo - a.0, hi - lo))
}

/// This rank's block of the even cut of `global` along `ax`, from blocks
/// that now cover `current[r]` (start, length) on rank `r`.
pub(crate) fn rebalance(
    comm: &Communicator,
    op: &'static str,
    local: &Array,
    ax: usize,
    global: &[usize],
    current: &[(usize, usize)],
) -> Result<Array> {
    let world = comm.world_size();
    let me = comm.ranks().first().copied().unwrap_or(0);
    let target: Vec<(usize, usize)> = (0..world)
        .map(|r| block_range(global[ax], world, r))
        .collect();
    if target == current {
        return Ok(local.clone());
    }
    let sends = (0..world)
        .map(|d| match overlap(current[me], target[d]) {
            Some((at, n)) => local
                .slice_axis(ax, at, at + n)
                .ascontiguousarray()
                .map(Some),
            None => Ok(None),
        })
        .collect::<Result<Vec<_>>>()?;
    let shapes = (0..world)
        .map(|s| {
            overlap(current[s], target[me]).map(|(_, n)| {
                let mut shape = global.to_vec();
                shape[ax] = n;
                shape
            })
        })
        .collect();
    let received = exchange(comm, op, sends, shapes, local.dtype(), local.device())?;
    in_global_order(received, current, ax)?.ok_or_else(|| Error::Nccl {
        op,
        detail: "no rank sent this rank any part of its block".into(),
    })
}

/// The parts received from each rank (rank `r`'s starting at `current[r].0`
/// along `axis`) joined in global order, which is rank order unless the
/// blocks were reversed; `None` when nothing was received.
pub(crate) fn in_global_order(
    received: Vec<Option<Array>>,
    current: &[(usize, usize)],
    axis: usize,
) -> Result<Option<Array>> {
    let mut parts: Vec<(usize, Array)> = received
        .into_iter()
        .enumerate()
        .filter_map(|(r, a)| a.map(|a| (current[r].0, a)))
        .collect();
    if parts.is_empty() {
        return Ok(None);
    }
    parts.sort_by_key(|(start, _)| *start);
    let refs: Vec<&Array> = parts.iter().map(|(_, a)| a).collect();
    crate::concatenate(&refs, axis as isize).map(Some)
}

impl DistArray {
    /// The same global array split along `axis` instead (`None`:
    /// replicated on every rank), by one exchange among all ranks
    /// (`heat`'s `resplit`).
    pub fn resplit(&self, axis: Option<usize>) -> Result<DistArray> {
        let op = "dist::resplit";
        let world = self.world_size();
        check_split(op, &self.global, axis, world)?;
        let global = self.global.clone();
        match (self.split, axis) {
            (a, b) if a == b => Ok(self.clone()),
            (Some(_), None) => {
                let whole = self.to_array()?;
                Ok(DistArray::from_parts(whole, global, None, self.comm))
            }
            (None, Some(b)) => {
                let (lo, len) = block_range(global[b], world, self.rank());
                let local = self.local.slice_axis(b, lo, lo + len).ascontiguousarray()?;
                Ok(DistArray::from_parts(local, global, axis, self.comm))
            }
            (Some(a), Some(b)) => {
                let me = self.rank();
                let sends = (0..world)
                    .map(|d| {
                        let (lo, len) = block_range(global[b], world, d);
                        self.local
                            .slice_axis(b, lo, lo + len)
                            .ascontiguousarray()
                            .map(Some)
                    })
                    .collect::<Result<Vec<_>>>()?;
                let shapes = (0..world)
                    .map(|s| {
                        let mut shape = block_shape(&global, Some(b), world, me);
                        shape[a] = block_range(global[a], world, s).1;
                        Some(shape)
                    })
                    .collect();
                let parts: Vec<Array> =
                    exchange(self.comm, op, sends, shapes, self.dtype(), self.device())?
                        .into_iter()
                        .flatten()
                        .collect();
                let refs: Vec<&Array> = parts.iter().collect();
                let local = crate::concatenate(&refs, a as isize)?;
                Ok(DistArray::from_parts(local, global, axis, self.comm))
            }
            (None, None) => Ok(self.clone()),
        }
    }

    /// This rank's block with `width` ghost entries along the split axis
    /// from each neighbour: the last `width` of the previous rank's block
    /// before it and the first `width` of the next rank's after it. At the
    /// ends of the axis the ghosts wrap around with `periodic`, and are
    /// left out without (so the first and last ranks' blocks grow by
    /// `width` only). For finite differences across blocks.
    pub fn halo(&self, width: usize, periodic: bool) -> Result<Array> {
        let op = "dist::halo";
        let Some(ax) = self.split else {
            return Err(Error::InvalidArgument {
                op,
                detail: "a replicated array has no neighbours: every rank holds all of it".into(),
            });
        };
        let world = self.world_size();
        let smallest = self.global[ax] / world;
        if width > smallest {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "a halo of {width} is wider than the smallest block ({smallest} entries along axis {ax} over {world} ranks)"
                ),
            });
        }
        if width == 0 {
            return Ok(self.local.clone());
        }
        let me = self.rank();
        let n = self.local.shape()[ax];
        let prev = (me > 0 || periodic).then(|| (me + world - 1) % world);
        let next = (me + 1 < world || periodic).then(|| (me + 1) % world);
        let edge_shape = |_: usize| {
            let mut s = self.local.shape().to_vec();
            s[ax] = width;
            s
        };
        // Two rounds, each a permutation: a rank can be both neighbours.
        let tail = self
            .local
            .slice_axis(ax, n - width, n)
            .ascontiguousarray()?;
        let head = self.local.slice_axis(ax, 0, width).ascontiguousarray()?;
        let mut sends = vec![None; world];
        let mut shapes = vec![None; world];
        if let Some(nx) = next {
            sends[nx] = Some(tail);
        }
        if let Some(pv) = prev {
            shapes[pv] = Some(edge_shape(pv));
        }
        let from_prev = match prev {
            Some(pv) => {
                exchange(self.comm, op, sends, shapes, self.dtype(), self.device())?[pv].take()
            }
            None => {
                exchange(self.comm, op, sends, shapes, self.dtype(), self.device())?;
                None
            }
        };
        let mut sends = vec![None; world];
        let mut shapes = vec![None; world];
        if let Some(pv) = prev {
            sends[pv] = Some(head);
        }
        if let Some(nx) = next {
            shapes[nx] = Some(edge_shape(nx));
        }
        let got = exchange(self.comm, op, sends, shapes, self.dtype(), self.device())?;
        let from_next = next.and_then(|nx| got.into_iter().nth(nx).flatten());
        let mut parts: Vec<&Array> = Vec::with_capacity(3);
        if let Some(p) = &from_prev {
            parts.push(p);
        }
        parts.push(&self.local);
        if let Some(nx) = &from_next {
            parts.push(nx);
        }
        crate::concatenate(&parts, ax as isize)
    }
}
