//! The two communication steps everything else is made of: every rank
//! sending a block of its own size to every other (an all-to-all with
//! variable sizes), and the check that all ranks agree on a description.

use crate::api::nccl::{Communicator, ReduceOp};
use crate::backend::probe::with_device;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};

/// Sends `sends[d]` to rank `d` and receives from each rank `s` an array of
/// shape `recv_shapes[s]` (`None`: nothing from `s`), all of `dtype`, on
/// `device`. Each rank's own entry is copied. Every rank must call it with
/// matching sends and shapes.
pub(crate) fn exchange(
    comm: &Communicator,
    op: &'static str,
    sends: Vec<Option<Array>>,
    recv_shapes: Vec<Option<Vec<usize>>>,
    dtype: DType,
    device: Device,
) -> Result<Vec<Option<Array>>> {
    let world = comm.world_size();
    let me = comm.ranks().first().copied().unwrap_or(0);
    debug_assert_eq!(sends.len(), world);
    debug_assert_eq!(recv_shapes.len(), world);
    let mut received: Vec<Option<Array>> = vec![None; world];
    if let (Some(Some(mine)), Some(Some(_))) = (sends.get(me), recv_shapes.get(me)) {
        received[me] = Some(mine.copy()?);
    }
    if world == 1 {
        return Ok(received);
    }
    if comm.uses_nccl() {
        let mut outs: Vec<Option<Array>> = vec![None; world];
        let mut group = comm.group();
        let mut any = false;
        for peer in (0..world).filter(|&p| p != me) {
            if let Some(x) = &sends[peer] {
                if x.size() > 0 {
                    group.send(x, peer)?;
                    any = true;
                }
            }
            if let Some(shape) = &recv_shapes[peer] {
                let mut out = with_device(device, || crate::empty(shape.clone(), dtype))?;
                if out.size() > 0 {
                    group.recv(&mut out, peer)?;
                    any = true;
                }
                outs[peer] = Some(out);
            }
        }
        if any {
            group.run()?;
        }
        for (peer, out) in outs.into_iter().enumerate() {
            if peer != me && out.is_some() {
                received[peer] = out;
            }
        }
        return Ok(received);
    }
    // A CPU world: bytes through the TCP links.
    let frames = sends
        .iter()
        .enumerate()
        .map(|(d, x)| match x {
            Some(x) if d != me => crate::api::nccl::host_bytes(op, x),
            _ => Ok(Vec::new()),
        })
        .collect::<Result<Vec<_>>>()?;
    let got = comm.host_exchange(op, frames)?;
    for (src, frame) in got.iter().enumerate() {
        if src == me {
            continue;
        }
        if let Some(shape) = &recv_shapes[src] {
            received[src] = Some(crate::api::nccl::host_array(op, frame, dtype, shape)?);
        }
    }
    Ok(received)
}

/// Slots of the fixed-size descriptions ranks exchange (a count, then the
/// split, the dtype and up to 21 dimensions).
pub(crate) const DESCRIPTION_LEN: usize = 24;

/// Fails on every rank, naming the first rank that differs, unless every
/// rank passed the same `what` (a short description: shape, dtype, split).
pub(crate) fn agree(
    comm: &Communicator,
    op: &'static str,
    what: &[i64],
    device: Device,
) -> Result<()> {
    let world = comm.world_size();
    if world == 1 {
        return Ok(());
    }
    // Fixed length, so the gather itself cannot disagree: the length first.
    const LEN: usize = DESCRIPTION_LEN;
    let mut desc = vec![i64::MIN; LEN];
    desc[0] = what.len() as i64;
    for (d, w) in desc[1..].iter_mut().zip(what) {
        *d = *w;
    }
    let mine = with_device(device, || crate::asarray(desc.clone()))?;
    let all = comm.all_gather(&[mine])?;
    let all: Vec<i64> = all[0].to_vec()?;
    for (r, theirs) in all.chunks(LEN).enumerate() {
        if theirs != desc.as_slice() {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "the ranks disagree: rank {r} passed {} where rank {} passed {} (shape, dtype and split must be the same on every rank)",
                    describe(theirs),
                    comm.ranks().first().copied().unwrap_or(0),
                    describe(&desc)
                ),
            });
        }
    }
    Ok(())
}

fn describe(desc: &[i64]) -> String {
    let n = desc[0].clamp(0, desc.len() as i64 - 1) as usize;
    format!("{:?}", &desc[1..1 + n])
}

/// The sum (or other `op`) of `x` over all ranks, on every rank.
pub(crate) fn all_reduce(comm: &Communicator, x: &Array, op: ReduceOp) -> Result<Array> {
    if comm.world_size() == 1 {
        return Ok(x.clone());
    }
    let mut out = comm.all_reduce(&[x.ascontiguousarray()?], op)?;
    Ok(out.remove(0))
}

/// Every rank's `x` (all of one shape), stacked along a new first axis.
pub(crate) fn all_gather_stacked(comm: &Communicator, x: &Array) -> Result<Array> {
    let w = comm.world_size();
    let mut shape = vec![w];
    shape.extend_from_slice(x.shape());
    if w == 1 {
        return x.reshape(shape);
    }
    let flat = x.ascontiguousarray()?.reshape(vec![x.size()])?;
    let mut out = comm.all_gather(&[flat])?;
    out.remove(0).reshape(shape)
}
