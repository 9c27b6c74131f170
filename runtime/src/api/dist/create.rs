//! Making distributed arrays: from a global shape, from each rank's block,
//! from an array on one rank or on all; and bringing them back together.

use super::exchange::{agree, exchange};
use super::{block_range, block_shape, check_split, the_world, DistArray};
use crate::api::creation::IntoShape;
use crate::api::nccl::Communicator;
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::{Error, Result};

/// The description every rank must agree on: split, dtype, shape.
pub(crate) fn description(global: &[usize], split: Option<usize>, dtype: DType) -> Vec<i64> {
    let mut d = vec![split.map_or(-1, |s| s as i64), dtype_code(dtype)];
    d.extend(global.iter().map(|&n| n as i64));
    d
}

fn dtype_code(dtype: DType) -> i64 {
    DType::ALL
        .iter()
        .position(|&d| d == dtype)
        .map_or(-1, |i| i as i64)
}

/// This rank's device and the world, after checking that every rank
/// describes the same array.
fn start(
    op: &'static str,
    global: &[usize],
    split: Option<usize>,
    dtype: DType,
) -> Result<(&'static Communicator, Device)> {
    let comm = the_world(op)?;
    let device = comm.devices().first().copied().unwrap_or(Device::Cpu);
    agree(comm, op, &description(global, split, dtype), device)?;
    check_split(op, global, split, comm.world_size())?;
    Ok((comm, device))
}

fn rank_of(comm: &Communicator) -> usize {
    comm.ranks().first().copied().unwrap_or(0)
}

impl DistArray {
    /// A global array of `shape` filled by `fill` block by block: `fill`
    /// gets this rank's block shape and returns the block (on this rank's
    /// device).
    fn filled(
        op: &'static str,
        shape: impl IntoShape,
        dtype: DType,
        split: Option<usize>,
        fill: impl FnOnce(&[usize]) -> Result<Array>,
    ) -> Result<DistArray> {
        let global = shape.into_shape();
        let (comm, device) = start(op, &global, split, dtype)?;
        let mine = block_shape(&global, split, comm.world_size(), rank_of(comm));
        let local = with_device(device, || fill(&mine))?;
        Ok(DistArray::from_parts(local, global, split, comm))
    }

    /// Zeros of the global `shape` (`heat.zeros(shape, split=...)`).
    pub fn zeros(shape: impl IntoShape, dtype: DType, split: Option<usize>) -> Result<DistArray> {
        Self::filled("dist::zeros", shape, dtype, split, |s| {
            crate::zeros(s.to_vec(), dtype)
        })
    }

    /// Ones of the global `shape`.
    pub fn ones(shape: impl IntoShape, dtype: DType, split: Option<usize>) -> Result<DistArray> {
        Self::filled("dist::ones", shape, dtype, split, |s| {
            crate::ones(s.to_vec(), dtype)
        })
    }

    /// `value` everywhere in the global `shape`.
    pub fn full(
        shape: impl IntoShape,
        value: impl Into<Scalar>,
        dtype: DType,
        split: Option<usize>,
    ) -> Result<DistArray> {
        let value = value.into();
        Self::filled("dist::full", shape, dtype, split, |s| {
            crate::full(s.to_vec(), value, dtype)
        })
    }

    /// `0, 1, ..., n - 1` as int64 (`numpy.arange(n)`), split along axis 0
    /// or replicated.
    pub fn arange(n: usize, split: Option<usize>) -> Result<DistArray> {
        let op = "dist::arange";
        let global = vec![n];
        let (comm, device) = start(op, &global, split, DType::Int64)?;
        let (lo, len) = match split {
            Some(_) => block_range(n, comm.world_size(), rank_of(comm)),
            None => (0, n),
        };
        let local = with_device(device, || {
            crate::arange_step(lo as i64, (lo + len) as i64, 1)
        })?;
        Ok(DistArray::from_parts(local, global, split, comm))
    }

    /// `num` evenly spaced float64 values from `start` to `stop` inclusive
    /// (`numpy.linspace`), each rank computing only its block, with the same
    /// values one array would have.
    pub fn linspace(
        start_value: f64,
        stop: f64,
        num: usize,
        split: Option<usize>,
    ) -> Result<DistArray> {
        let op = "dist::linspace";
        if !start_value.is_finite() || !stop.is_finite() {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("bounds must be finite, got {start_value} and {stop}"),
            });
        }
        let global = vec![num];
        let (comm, device) = start(op, &global, split, DType::Float64)?;
        let (lo, len) = match split {
            Some(_) => block_range(num, comm.world_size(), rank_of(comm)),
            None => (0, num),
        };
        let values = crate::api::creation::linspace_values_part(
            start_value,
            stop,
            num,
            true,
            lo..lo + len,
            |v| v,
        );
        let local = crate::asarray_on(values, device)?;
        Ok(DistArray::from_parts(local, global, split, comm))
    }

    /// Uniform values in [0, 1) of `dtype` (float32 or float64) from the
    /// generator seeded with `seed`: the same global values as
    /// `cp::random::default_rng(seed).random_as(shape, dtype)` on one
    /// device, whatever the number of ranks (each rank draws its own part
    /// of the one Philox stream).
    pub fn random(
        shape: impl IntoShape,
        dtype: DType,
        seed: u64,
        split: Option<usize>,
    ) -> Result<DistArray> {
        let op = "dist::random";
        let global = shape.into_shape();
        if !matches!(dtype, DType::Float32 | DType::Float64) {
            return Err(Error::DType {
                op,
                detail: format!("dtype must be float32 or float64, got {dtype}"),
            });
        }
        let (comm, device) = start(op, &global, split, dtype)?;
        let rank = rank_of(comm);
        match split {
            None => {
                let local = with_device(device, || {
                    crate::random::default_rng(seed).random_as(global.clone(), dtype)
                })?;
                Ok(DistArray::from_parts(local, global, None, comm))
            }
            Some(0) => {
                let rows = block_range(global[0], comm.world_size(), rank);
                let row_len: usize = global[1..].iter().product();
                let (first, count) = (rows.0 * row_len, rows.1 * row_len);
                // Philox gives a fixed number of values per counter block:
                // start at the block holding `first` and drop the lead.
                let per_block = crate::random::Generator::values_per_block(dtype);
                let lead = first % per_block;
                let mut rng = crate::random::default_rng(seed);
                rng.set_position((first / per_block) as u64);
                let drawn = with_device(device, || rng.random_as(vec![lead + count], dtype))?;
                let mine = drawn
                    .slice_axis(0, lead, lead + count)
                    .ascontiguousarray()?;
                let local = mine.reshape(block_shape(&global, split, comm.world_size(), rank))?;
                Ok(DistArray::from_parts(local, global, split, comm))
            }
            Some(ax) => DistArray::random(global, dtype, seed, Some(0))?.resplit(Some(ax)),
        }
    }

    /// A DistArray from each rank's block (`heat.array(local, is_split=axis)`):
    /// the blocks must agree in dtype and in every axis but `split`; blocks
    /// of other lengths than the even cut are moved to it.
    pub fn from_local(local: Array, split: Option<usize>) -> Result<DistArray> {
        let op = "dist::from_local";
        let comm = the_world(op)?;
        let device = comm.devices().first().copied().unwrap_or(Device::Cpu);
        let Some(ax) = split else {
            let global = local.shape().to_vec();
            agree(comm, op, &description(&global, None, local.dtype()), device)?;
            return Ok(DistArray::from_parts(local, global, None, comm));
        };
        if ax >= local.ndim() {
            return Err(Error::Axis {
                op,
                axis: ax as isize,
                ndim: local.ndim(),
            });
        }
        // Every rank's block shape, with the split axis blanked for the check.
        let mut others = local.shape().to_vec();
        others[ax] = 0;
        agree(
            comm,
            op,
            &description(&others, split, local.dtype()),
            device,
        )?;
        let lengths = super::exchange::all_gather_stacked(
            comm,
            &crate::asarray_on(vec![local.shape()[ax] as i64], device)?,
        )?;
        let lengths: Vec<usize> = lengths
            .to_vec::<i64>()?
            .into_iter()
            .map(|n| n as usize)
            .collect();
        let mut global = local.shape().to_vec();
        global[ax] = lengths.iter().sum();
        check_split(op, &global, split, comm.world_size())?;
        let mut starts = Vec::with_capacity(lengths.len());
        let mut at = 0;
        for &n in &lengths {
            starts.push((at, n));
            at += n;
        }
        let local = super::reshape::rebalance(comm, op, &local, ax, &global, &starts)?;
        Ok(DistArray::from_parts(local, global, split, comm))
    }

    /// Each rank takes its block of `whole`, an array every rank holds in
    /// full (the same on all).
    pub fn from_array(whole: &Array, split: Option<usize>) -> Result<DistArray> {
        let op = "dist::from_array";
        let global = whole.shape().to_vec();
        let (comm, device) = start(op, &global, split, whole.dtype())?;
        let local = match split {
            Some(ax) => {
                let (lo, len) = block_range(global[ax], comm.world_size(), rank_of(comm));
                whole.slice_axis(ax, lo, lo + len).ascontiguousarray()?
            }
            None => whole.copy()?,
        };
        let local = if local.device() == device {
            local
        } else {
            local.to_device(&device)?
        };
        Ok(DistArray::from_parts(local, global, split, comm))
    }

    /// Rank `root`'s `whole` cut into blocks, one sent to each rank
    /// (`MPI_Scatterv`); the other ranks pass `None`.
    pub fn scatter(whole: Option<&Array>, root: usize, split: Option<usize>) -> Result<DistArray> {
        let op = "dist::scatter";
        let comm = the_world(op)?;
        let device = comm.devices().first().copied().unwrap_or(Device::Cpu);
        let me = rank_of(comm);
        let world = comm.world_size();
        if root >= world {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("root {root} is not a rank of a world of {world}"),
            });
        }
        // The root tells everyone what it holds (a description of fixed size).
        let desc = match (me == root, whole) {
            (true, Some(w)) => description(w.shape(), split, w.dtype()),
            (true, None) => vec![-2],
            _ => Vec::new(),
        };
        let desc = broadcast_description(comm, &desc, root, device)?;
        if desc == [-2] {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("rank {root}, the root, passed no array"),
            });
        }
        let (split_seen, dtype, global) = parse_description(op, &desc)?;
        if split_seen != split {
            return Err(Error::InvalidArgument {
                op,
                detail: format!("the ranks disagree on the split: rank {root} passed {split_seen:?}, rank {me} {split:?}"),
            });
        }
        check_split(op, &global, split, world)?;
        let mut sends: Vec<Option<Array>> = vec![None; world];
        if me == root {
            let w = whole.ok_or_else(|| Error::InvalidArgument {
                op,
                detail: "the root has no array".into(),
            })?;
            let w = if w.device() == device {
                w.clone()
            } else {
                w.to_device(&device)?
            };
            for (r, slot) in sends.iter_mut().enumerate() {
                *slot = Some(match split {
                    Some(ax) => {
                        let (lo, len) = block_range(global[ax], world, r);
                        w.slice_axis(ax, lo, lo + len).ascontiguousarray()?
                    }
                    None => w.ascontiguousarray()?,
                });
            }
        }
        let mut shapes: Vec<Option<Vec<usize>>> = vec![None; world];
        shapes[root] = Some(block_shape(&global, split, world, me));
        let mut got = exchange(comm, op, sends, shapes, dtype, device)?;
        let local = got[root].take().ok_or_else(|| Error::Nccl {
            op,
            detail: "nothing arrived from the root".into(),
        })?;
        Ok(DistArray::from_parts(local, global, split, comm))
    }

    /// The whole array on rank `root` (`Some` there, `None` elsewhere), or
    /// with `root = None` on every rank (`MPI_Allgatherv`).
    pub fn gather(&self, root: Option<usize>) -> Result<Option<Array>> {
        let op = "dist::gather";
        let world = self.world_size();
        let me = self.rank();
        if let Some(r) = root {
            if r >= world {
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!("root {r} is not a rank of a world of {world}"),
                });
            }
        }
        let Some(ax) = self.split else {
            return Ok(match root {
                Some(r) if r != me => None,
                _ => Some(self.local.clone()),
            });
        };
        let receives = root.is_none_or(|r| r == me);
        let sends: Vec<Option<Array>> = (0..world)
            .map(|d| match root {
                Some(r) if r != d => None,
                _ => Some(self.local.ascontiguousarray()),
            })
            .map(Option::transpose)
            .collect::<Result<_>>()?;
        let shapes = (0..world)
            .map(|s| receives.then(|| self.block_shape(s)))
            .collect();
        let got = exchange(self.comm, op, sends, shapes, self.dtype(), self.device())?;
        if !receives {
            return Ok(None);
        }
        let parts: Vec<Array> = got.into_iter().flatten().collect();
        let refs: Vec<&Array> = parts.iter().collect();
        Ok(Some(crate::concatenate(&refs, ax as isize)?))
    }

    /// The whole array on every rank ([`DistArray::gather`] to all).
    pub fn to_array(&self) -> Result<Array> {
        self.gather(None)?.ok_or_else(|| Error::Nccl {
            op: "dist::to_array",
            detail: "the gather returned nothing".into(),
        })
    }
}

/// Rank `root`'s description on every rank (fixed-size broadcast).
fn broadcast_description(
    comm: &Communicator,
    desc: &[i64],
    root: usize,
    device: Device,
) -> Result<Vec<i64>> {
    const LEN: usize = super::exchange::DESCRIPTION_LEN;
    if desc.len() >= LEN {
        return Err(Error::Shape {
            op: "dist::scatter",
            detail: format!(
                "{} dimensions are more than a distributed array takes",
                desc.len().saturating_sub(2)
            ),
        });
    }
    let mut fixed = vec![0i64; LEN];
    fixed[0] = desc.len() as i64;
    fixed[1..=desc.len()].copy_from_slice(desc);
    let mut buf = [with_device(device, || crate::asarray(fixed))?];
    if comm.world_size() > 1 {
        comm.broadcast(&mut buf, root)?;
    }
    let v: Vec<i64> = buf[0].to_vec()?;
    let n = (v[0].max(0) as usize).min(LEN - 1);
    Ok(v[1..=n].to_vec())
}

fn parse_description(op: &'static str, desc: &[i64]) -> Result<(Option<usize>, DType, Vec<usize>)> {
    if desc.len() < 2 {
        return Err(Error::InvalidArgument {
            op,
            detail: format!("a malformed description {desc:?}"),
        });
    }
    let split = (desc[0] >= 0).then_some(desc[0] as usize);
    let dtype = usize::try_from(desc[1])
        .ok()
        .and_then(|i| DType::ALL.get(i).copied())
        .ok_or_else(|| Error::InvalidArgument {
            op,
            detail: format!("unknown dtype code {}", desc[1]),
        })?;
    let global = desc[2..]
        .iter()
        .map(|&n| n.max(0) as usize)
        .collect::<Vec<_>>();
    Ok((split, dtype, global))
}
