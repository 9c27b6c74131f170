//! Basic indexing of distributed arrays in the global index space.

use super::reshape::rebalance;
use super::DistArray;
use crate::api::shape::index::SliceElem;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::element::Scalar;
use crate::core::error::{Error, Result};

impl DistArray {
    /// A basic slice in global indices (`d.slice(cp::s![10..90, ..])`): one
    /// entry per leading axis, each a position or a range with a step.
    /// Along non-split axes each rank slices its block; along the split axis
    /// each rank keeps the selected entries it holds, then the result is cut
    /// evenly again (or replicated when fewer entries than ranks remain, or
    /// when a single position removes the split axis).
    pub fn slice(&self, index: impl AsRef<[SliceElem]>) -> Result<DistArray> {
        let op = "dist::slice";
        let index = index.as_ref();
        if index.len() > self.ndim() {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("{} indices for a {}-D array", index.len(), self.ndim()),
            });
        }
        if let Some(e) = index
            .iter()
            .find(|e| matches!(e, SliceElem::NewAxis | SliceElem::Ellipsis))
        {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("{e:?} is not supported on a DistArray: index each axis with a position or a range"),
            });
        }
        let full = SliceElem::Slice {
            start: None,
            end: None,
            inclusive: false,
            step: 1,
        };
        let mut elems: Vec<SliceElem> = index.to_vec();
        elems.resize(self.ndim(), full);
        let Some(s) = self.split else {
            let local = self.local.slice(&elems)?;
            let global = local.shape().to_vec();
            return Ok(DistArray::from_parts(local, global, None, self.comm));
        };
        // The selected global positions along the split axis (host: one
        // integer per entry of the axis, no array data).
        let n = self.global[s];
        let positions = crate::asarray_on((0..n as i64).collect::<Vec<_>>(), Device::Cpu)?;
        let picked = positions.slice([elems[s]])?;
        let removes_axis = picked.ndim() == 0;
        let selected: Vec<i64> = picked.ravel()?.to_vec()?;
        let (lo, len) = (self.offset(), self.local.shape()[s]);
        let mine: Vec<(usize, i64)> = selected
            .iter()
            .enumerate()
            .filter(|&(_, &g)| (lo as i64..(lo + len) as i64).contains(&g))
            .map(|(k, &g)| (k, g - lo as i64))
            .collect();
        // This rank's part: the other axes sliced, the split axis taken.
        let mut others = elems.clone();
        others[s] = full;
        let rest = self.local.slice(&others)?;
        let s_after = s - elems[..s]
            .iter()
            .filter(|e| matches!(e, SliceElem::Index(_)))
            .count();
        let local_idx = crate::asarray_on(
            mine.iter().map(|&(_, l)| l).collect::<Vec<i64>>(),
            self.device(),
        )?;
        let part = rest.take(local_idx, Some(s_after as isize))?;
        let mut global = part.shape().to_vec();
        global[s_after] = selected.len();
        // Where each rank's part sits in the result (contiguous, in order of
        // the selection), known to all ranks without communication.
        let world = self.world_size();
        let current: Vec<(usize, usize)> = (0..world)
            .map(|r| {
                let (rlo, rlen) = super::block_range(n, world, r);
                let ks: Vec<usize> = selected
                    .iter()
                    .enumerate()
                    .filter(|&(_, &g)| (rlo as i64..(rlo + rlen) as i64).contains(&g))
                    .map(|(k, _)| k)
                    .collect();
                (ks.first().copied().unwrap_or(0), ks.len())
            })
            .collect();
        let _ = mine;
        if removes_axis || selected.len() < world {
            // Everyone gets every part: a replicated result.
            let whole = gather_parts(self, op, &part, s_after, &global, &current)?;
            let whole = if removes_axis {
                whole.squeeze_axes(&[s_after as isize])?
            } else {
                whole
            };
            let shape = whole.shape().to_vec();
            return Ok(DistArray::from_parts(whole, shape, None, self.comm));
        }
        let local = rebalance(self.comm, op, &part, s_after, &global, &current)?;
        Ok(DistArray::from_parts(
            local,
            global,
            Some(s_after),
            self.comm,
        ))
    }

    /// The element at a global position (one index per axis; negative count
    /// from the end), the same on every rank (`d[i, j]`).
    pub fn get(&self, index: &[isize]) -> Result<Scalar> {
        if index.len() != self.ndim() {
            return Err(Error::InvalidArgument {
                op: "dist::get",
                detail: format!("{} indices for a {}-D array", index.len(), self.ndim()),
            });
        }
        let elems: Vec<SliceElem> = index.iter().map(|&i| SliceElem::Index(i)).collect();
        self.slice(elems)?.local.scalar()
    }
}

/// Every rank's `part` (placed at `current[r]` along `axis`) concatenated
/// in global order, on every rank.
fn gather_parts(
    d: &DistArray,
    op: &'static str,
    part: &Array,
    axis: usize,
    global: &[usize],
    current: &[(usize, usize)],
) -> Result<Array> {
    let world = d.world_size();
    let sends = (0..world)
        .map(|_| {
            (part.shape()[axis] > 0)
                .then(|| part.ascontiguousarray())
                .transpose()
        })
        .collect::<Result<Vec<_>>>()?;
    let shapes = current
        .iter()
        .map(|&(_, len)| {
            (len > 0).then(|| {
                let mut sh = global.to_vec();
                sh[axis] = len;
                sh
            })
        })
        .collect();
    let received = super::exchange::exchange(d.comm, op, sends, shapes, d.dtype(), d.device())?;
    match super::reshape::in_global_order(received, current, axis)? {
        Some(whole) => Ok(whole),
        None => {
            let mut sh = global.to_vec();
            sh[axis] = 0;
            crate::zeros(sh, d.dtype())
        }
    }
}
