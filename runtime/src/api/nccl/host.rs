//! Collectives between processes on the CPU: the transport of worlds whose
//! ranks have no GPU (a login node, CI, a notebook's ranks on a CPU
//! partition), so code written for [`super::world`] runs and is tested there.
//!
//! NCCL only moves GPU memory, and no well-kept Rust crate offers MPI-style
//! collectives over plain TCP without an MPI installation, hence this small
//! transport. The ranks form a star around rank 0 (one TCP connection per
//! member), and every collective is one *route*: each rank hands one byte
//! frame per destination, rank 0 collects them all and sends each rank the
//! frames addressed to it. Reductions are then computed by every rank from
//! all ranks' inputs in rank order, so every rank gets the same bits. That
//! moves `world` times the data through rank 0, which is fine for what the
//! CPU path is for; GPUs use NCCL.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::ReduceOp;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::error::{Error, Result};
use crate::core::layout::Order;

/// The links of one rank: rank 0 holds a connection to every member (index
/// `r - 1` for rank `r`), a member holds its connection to rank 0.
pub(super) struct Star {
    rank: usize,
    world: usize,
    links: Mutex<Links>,
}

enum Links {
    Root(Vec<TcpStream>),
    Member(TcpStream),
}

/// What rank 0 shares through the rendezvous: where the members connect.
pub(super) fn address_payload(host: &str, port: u16) -> Vec<u8> {
    format!("cuprite-host-star {host} {port}").into_bytes()
}

/// Reads [`address_payload`]'s host and port.
pub(super) fn parse_address(op: &'static str, payload: &[u8]) -> Result<(String, u16)> {
    let text = String::from_utf8_lossy(payload);
    let mut parts = text.split_whitespace();
    match (parts.next(), parts.next(), parts.next().map(str::parse::<u16>)) {
        (Some("cuprite-host-star"), Some(host), Some(Ok(port))) => Ok((host.to_string(), port)),
        _ => Err(Error::Nccl {
            op,
            detail: format!(
                "rank 0 shared {text:?}, not the address of a CPU world: do all ranks run on the CPU \
                 (no GPU, or CUPRITE_COMM=host on every rank)?"
            ),
        }),
    }
}

impl Star {
    /// This process's rank.
    pub(super) fn rank(&self) -> usize {
        self.rank
    }

    /// Rank 0's listening socket, opened before the rendezvous so its port
    /// can be shared.
    pub(super) fn listen(op: &'static str) -> Result<TcpListener> {
        TcpListener::bind(("0.0.0.0", 0)).map_err(|e| Error::Nccl {
            op,
            detail: format!("rank 0 could not open a TCP port for the CPU world: {e}"),
        })
    }

    /// Rank 0: accepts the `world - 1` members (each says its rank first).
    pub(super) fn serve(
        op: &'static str,
        listener: TcpListener,
        world: usize,
        limit: Duration,
    ) -> Result<Star> {
        let deadline = Instant::now() + limit;
        listener
            .set_nonblocking(true)
            .map_err(|e| io_fail(op, "listening", e))?;
        let mut members: Vec<Option<TcpStream>> = (1..world).map(|_| None).collect();
        while members.iter().any(Option::is_none) {
            match listener.accept() {
                Ok((mut s, _)) => {
                    s.set_nonblocking(false)
                        .map_err(|e| io_fail(op, "accepting", e))?;
                    s.set_read_timeout(Some(limit)).ok();
                    // Frames are small and answered at once: without this,
                    // Nagle's algorithm holds each one for the peer's
                    // delayed acknowledgement (tens of milliseconds).
                    s.set_nodelay(true).ok();
                    let mut hello = [0u8; 8];
                    if s.read_exact(&mut hello).is_err() {
                        continue;
                    }
                    let r = u64::from_le_bytes(hello) as usize;
                    match members.get_mut(r.wrapping_sub(1)) {
                        Some(slot @ None) => *slot = Some(s),
                        _ => continue, // a stranger or a rank twice: not ours
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        let missing: Vec<String> = members
                            .iter()
                            .enumerate()
                            .filter(|(_, m)| m.is_none())
                            .map(|(i, _)| (i + 1).to_string())
                            .collect();
                        return Err(Error::Nccl {
                            op,
                            detail: format!(
                                "rank(s) {} of the CPU world never connected to rank 0 within {} s",
                                missing.join(", "),
                                limit.as_secs()
                            ),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => return Err(io_fail(op, "accepting members", e)),
            }
        }
        let links = members.into_iter().flatten().collect();
        Ok(Star {
            rank: 0,
            world,
            links: Mutex::new(Links::Root(links)),
        })
    }

    /// A member: connects to rank 0 at `host:port`, retrying until `limit`.
    pub(super) fn join(
        op: &'static str,
        host: &str,
        port: u16,
        rank: usize,
        world: usize,
        limit: Duration,
    ) -> Result<Star> {
        let deadline = Instant::now() + limit;
        let mut stream = loop {
            match TcpStream::connect((host, port))
                .and_then(super::rendezvous::refuse_self_connection)
            {
                Ok(s) => break s,
                Err(e) if Instant::now() > deadline => {
                    return Err(io_fail(
                        op,
                        &format!("rank {rank} connecting to rank 0 at {host}:{port}"),
                        e,
                    ))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        stream.set_nodelay(true).ok();
        stream
            .write_all(&(rank as u64).to_le_bytes())
            .map_err(|e| io_fail(op, "greeting rank 0", e))?;
        Ok(Star {
            rank,
            world,
            links: Mutex::new(Links::Member(stream)),
        })
    }

    /// Sends `outgoing[d]` to rank `d` (one frame per rank, this rank's own
    /// included) and returns the frames addressed to this rank, by source
    /// rank. Every rank must call it, as with any collective; a rank that
    /// does not answer within `limit` or whose connection closes fails the
    /// call on every rank that waits for it, naming it.
    pub(super) fn route(
        &self,
        op: &'static str,
        outgoing: Vec<Vec<u8>>,
        limit: Duration,
    ) -> Result<Vec<Vec<u8>>> {
        debug_assert_eq!(outgoing.len(), self.world);
        let mut links = self.links.lock().unwrap_or_else(|e| e.into_inner());
        match &mut *links {
            Links::Member(s) => {
                s.set_read_timeout(Some(limit)).ok();
                let sent = outgoing.iter().try_for_each(|f| write_frame(s, f));
                sent.map_err(|e| lost(op, 0, self.rank, "sending to", e))?;
                (0..self.world)
                    .map(|_| read_frame(s).map_err(|e| lost(op, 0, self.rank, "receiving from", e)))
                    .collect()
            }
            Links::Root(members) => {
                // frames[src][dst]
                let mut frames: Vec<Vec<Vec<u8>>> = Vec::with_capacity(self.world);
                frames.push(outgoing);
                for (i, s) in members.iter_mut().enumerate() {
                    s.set_read_timeout(Some(limit)).ok();
                    let from: Vec<Vec<u8>> = (0..self.world)
                        .map(|_| read_frame(s))
                        .collect::<std::io::Result<_>>()
                        .map_err(|e| lost(op, i + 1, 0, "receiving from", e))?;
                    frames.push(from);
                }
                for (i, s) in members.iter_mut().enumerate() {
                    let dst = i + 1;
                    let sent = frames
                        .iter()
                        .try_for_each(|from| write_frame(s, &from[dst]));
                    sent.map_err(|e| lost(op, dst, 0, "sending to", e))?;
                }
                Ok(frames
                    .into_iter()
                    .map(|mut from| std::mem::take(&mut from[0]))
                    .collect())
            }
        }
    }
}

/// One frame, length first, in one write (two small writes would each
/// wait on the network stack).
fn write_frame(s: &mut TcpStream, frame: &[u8]) -> std::io::Result<()> {
    let mut out = Vec::with_capacity(8 + frame.len());
    out.extend_from_slice(&(frame.len() as u64).to_le_bytes());
    out.extend_from_slice(frame);
    s.write_all(&out)
}

fn read_frame(s: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 8];
    s.read_exact(&mut len)?;
    let len = u64::from_le_bytes(len);
    // A frame larger than this process could hold is a corrupt stream.
    if len > isize::MAX as u64 / 2 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a frame of {len} bytes announced"),
        ));
    }
    let mut frame = vec![0u8; len as usize];
    s.read_exact(&mut frame)?;
    Ok(frame)
}

fn io_fail(op: &'static str, doing: &str, e: std::io::Error) -> Error {
    Error::Nccl {
        op,
        detail: format!("{doing}: {e}"),
    }
}

fn lost(op: &'static str, peer: usize, me: usize, doing: &str, e: std::io::Error) -> Error {
    let why = match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            "no answer within the time limit (CUPRITE_NCCL_TIMEOUT): did it call the same collective?".to_string()
        }
        std::io::ErrorKind::UnexpectedEof
        | std::io::ErrorKind::ConnectionReset
        | std::io::ErrorKind::BrokenPipe => "its connection closed: the rank's process ended".to_string(),
        _ => e.to_string(),
    };
    Error::Nccl {
        op,
        detail: format!("rank {me} {doing} rank {peer} of the CPU world failed: {why}"),
    }
}

/// The bytes of `x` (any layout) in C order.
pub(crate) fn bytes_of(op: &'static str, x: &Array) -> Result<Vec<u8>> {
    let x = x.ascontiguousarray()?;
    let mut out = Vec::with_capacity(x.nbytes());
    x.write_byte_chunks(op, &mut |piece| {
        out.extend_from_slice(piece);
        Ok(())
    })?;
    Ok(out)
}

/// An array of `dtype` and `shape` on the CPU, from C-order bytes (a frame
/// of another rank).
pub(crate) fn array_of(
    op: &'static str,
    bytes: &[u8],
    dtype: crate::core::dtype::DType,
    shape: &[usize],
) -> Result<Array> {
    let want = shape.iter().product::<usize>() * dtype.itemsize();
    if bytes.len() != want {
        return Err(Error::Nccl {
            op,
            detail: format!(
                "a rank sent {} bytes where {want} were expected (shape {shape:?}, {}): do all ranks pass the same shape and dtype?",
                bytes.len(),
                dtype
            ),
        });
    }
    let mut at = 0;
    Array::from_byte_chunks(op, dtype, shape, Order::C, Device::Cpu, &mut |piece| {
        piece.copy_from_slice(&bytes[at..at + piece.len()]);
        at += piece.len();
        Ok(())
    })
}

/// `op` over all ranks' arrays, in rank order.
pub(super) fn reduce_all(parts: &[Array], op: ReduceOp) -> Result<Array> {
    let mut acc = parts[0].copy()?;
    for p in &parts[1..] {
        acc = match op {
            ReduceOp::Sum | ReduceOp::Avg => crate::add(&acc, p)?,
            ReduceOp::Prod => crate::multiply(&acc, p)?,
            ReduceOp::Max => crate::maximum(&acc, p)?,
            ReduceOp::Min => crate::minimum(&acc, p)?,
        };
    }
    if op == ReduceOp::Avg {
        let n = parts.len() as f64;
        let mean = crate::divide(&acc, n)?;
        // NCCL's average of integers truncates toward zero.
        let mean = if acc.dtype().is_integer() {
            crate::trunc(&mean)?
        } else {
            mean
        };
        acc = mean.astype(parts[0].dtype())?;
    }
    Ok(acc)
}

use super::{Backend, Communicator};

impl Communicator {
    /// The CPU world's links, when this communicator is one.
    pub(super) fn star(&self) -> Option<&Star> {
        match &self.backend {
            Backend::Host { star } => Some(star),
            _ => None,
        }
    }

    /// Every rank's `x`, in rank order (the CPU world's all-gather).
    fn host_parts(&self, op: &'static str, star: &Star, x: &Array) -> Result<Vec<Array>> {
        let bytes = bytes_of(op, x)?;
        let frames = star.route(op, vec![bytes; self.world], self.timeout())?;
        frames
            .iter()
            .map(|f| array_of(op, f, x.dtype(), x.shape()))
            .collect()
    }

    pub(super) fn host_all_reduce(
        &self,
        star: &Star,
        x: &Array,
        out: &mut Array,
        op: ReduceOp,
    ) -> Result<()> {
        let parts = self.host_parts("nccl::all_reduce", star, x)?;
        out.assign(&reduce_all(&parts, op)?)
    }

    pub(super) fn host_reduce(
        &self,
        star: &Star,
        x: &Array,
        out: Option<&mut Array>,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        const OP: &str = "nccl::reduce";
        let mine = bytes_of(OP, x)?;
        let outgoing = (0..self.world)
            .map(|d| if d == root { mine.clone() } else { Vec::new() })
            .collect();
        let frames = star.route(OP, outgoing, self.timeout())?;
        if star.rank == root {
            let parts = frames
                .iter()
                .map(|f| array_of(OP, f, x.dtype(), x.shape()))
                .collect::<Result<Vec<_>>>()?;
            let reduced = reduce_all(&parts, op)?;
            if let Some(out) = out {
                out.assign(&reduced)?;
            }
        }
        Ok(())
    }

    pub(super) fn host_broadcast(&self, star: &Star, x: &mut Array, root: usize) -> Result<()> {
        const OP: &str = "nccl::broadcast";
        let outgoing = if star.rank == root {
            vec![bytes_of(OP, x)?; self.world]
        } else {
            vec![Vec::new(); self.world]
        };
        let frames = star.route(OP, outgoing, self.timeout())?;
        if star.rank != root {
            let got = array_of(OP, &frames[root], x.dtype(), x.shape())?;
            x.assign(&got)?;
        }
        Ok(())
    }

    pub(super) fn host_all_gather(&self, star: &Star, x: &Array, out: &mut Array) -> Result<()> {
        const OP: &str = "nccl::all_gather";
        let bytes = bytes_of(OP, x)?;
        let frames = star.route(OP, vec![bytes; self.world], self.timeout())?;
        out.assign(&array_of(OP, &frames.concat(), x.dtype(), out.shape())?)
    }

    pub(super) fn host_reduce_scatter(
        &self,
        star: &Star,
        x: &Array,
        out: &mut Array,
        op: ReduceOp,
    ) -> Result<()> {
        const OP: &str = "nccl::reduce_scatter";
        let parts = self.host_parts(OP, star, x)?;
        let reduced = reduce_all(&parts, op)?;
        let block = out.shape().first().copied().unwrap_or(1);
        let flat = reduced.reshape(vec![
            self.world * block,
            reduced.size() / (self.world * block).max(1),
        ])?;
        let mine = flat.slice_axis(0, star.rank * block, (star.rank + 1) * block);
        out.assign(&mine.reshape(out.shape().to_vec())?)
    }

    pub(super) fn host_all_to_all(&self, star: &Star, x: &Array, out: &mut Array) -> Result<()> {
        const OP: &str = "nccl::all_to_all";
        let bytes = bytes_of(OP, x)?;
        let block = bytes.len() / self.world;
        let outgoing = bytes
            .chunks(block.max(1))
            .map(<[u8]>::to_vec)
            .collect::<Vec<_>>();
        let outgoing = if block == 0 {
            vec![Vec::new(); self.world]
        } else {
            outgoing
        };
        let frames = star.route(OP, outgoing, self.timeout())?;
        out.assign(&array_of(OP, &frames.concat(), x.dtype(), out.shape())?)
    }

    pub(super) fn host_barrier(&self, star: &Star) -> Result<()> {
        star.route(
            "nccl::barrier",
            vec![Vec::new(); self.world],
            self.timeout(),
        )?;
        Ok(())
    }

    /// Rank `r` sends `outgoing[d]` to every rank `d` and gets back what each
    /// rank sent it, by source rank: the CPU world's variable-size exchange.
    pub(crate) fn host_exchange(
        &self,
        op: &'static str,
        outgoing: Vec<Vec<u8>>,
    ) -> Result<Vec<Vec<u8>>> {
        let star = self.star().ok_or_else(|| Error::InvalidArgument {
            op,
            detail: "not a CPU world".into(),
        })?;
        star.route(op, outgoing, self.timeout())
    }
}
