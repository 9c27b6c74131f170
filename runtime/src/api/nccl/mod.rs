//! Several GPUs (`cp::nccl`): communicators and collectives through NCCL,
//! as `cupy.cuda.nccl` and `cupyx.distributed`.
//!
//! A [`Communicator`] joins *ranks*, one GPU each. In one process
//! [`Communicator::init_all`] (or [`Communicator::all_devices`]) makes a rank
//! of every GPU given, and each collective takes one array per rank, in rank
//! order, and runs on all of them at once (NCCL's grouped calls). Across
//! processes (Slurm, MPI, any launcher) every process calls
//! [`Communicator::from_rank`] with the same [`UniqueId`], shared as a file
//! or a string, and passes one array (its own rank's) to the same calls: the
//! API is the same.
//!
//! ```no_run
//! use cuprite as cp;
//! use cp::nccl::{Communicator, ReduceOp};
//! let comm = Communicator::all_devices()?;
//! let parts: Vec<cp::Array> = comm
//!     .devices()
//!     .iter()
//!     .map(|&d| cp::with_device(d, || cp::ones([1000], cp::f32)))
//!     .collect::<cp::Result<_>>()?;
//! let sums = comm.all_reduce(&parts, ReduceOp::Sum)?; // one result per GPU
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! What each collective does with rank `r`'s array `x[r]` (`W` ranks):
//!
//! | call | result on rank `r` |
//! | --- | --- |
//! | `all_reduce(x, op)` | `op(x[0], ..., x[W-1])`, same shape |
//! | `reduce(x, op, root)` | that result on `root` only |
//! | `broadcast(x, root)` | `x[root]` (in place) |
//! | `all_gather(x)` | `concatenate([x[0], ..., x[W-1]], axis 0)`; shape `(W*n0, ...)` (0-d inputs give `(W,)`) |
//! | `reduce_scatter(x, op)` | block `r` of `op(x[0], ..., x[W-1])` split along axis 0 into `W` equal blocks; shape `(n0/W, ...)` |
//! | `all_to_all(x)` | block `j` is rank `j`'s block `r` (axis 0 in `W` equal blocks); same shape |
//! | `barrier()` | returns once every rank called it |
//!
//! Sizes need not be divisible by the world size, except for
//! `reduce_scatter` and `all_to_all`, whose first axis must split into `W`
//! equal blocks (as in NCCL, where every rank receives the same count);
//! anything else is an `Error::Shape` saying so.
//!
//! Dtypes: int8, uint8, int32, uint32, int64, uint64, float16, bfloat16,
//! float32 and float64 for every operation; complex64 and complex128 for
//! moving data and for `Sum` and `Avg` (reduced as pairs of floats); bool,
//! int16 and uint16 for moving data only (NCCL has no such types to reduce).
//! `Avg` of integers truncates, as NCCL does.
//!
//! Inputs of any layout are accepted (non-contiguous ones are copied first);
//! outputs and in-place buffers must be C-contiguous. An output may be the
//! input itself (in place) for `all_reduce`, `reduce` and `broadcast`, and
//! must not overlap it otherwise.
//!
//! Work is queued on each GPU's current stream (or its default stream when
//! the current stream belongs to another GPU), and each call returns once
//! that work is done: a collective waits for the other ranks anyway, and
//! waiting here is what lets a call fail after its time limit
//! (`CUPRITE_NCCL_TIMEOUT`, [`Communicator::set_timeout`]) or when a rank's
//! process ends, instead of hanging the process. A failed call aborts the
//! communicator (see [`Communicator`]); [`rebuild_world`] makes a new world.
//!
//! As with NCCL itself, every rank must issue the same collectives in the
//! same order, and work of two communicators that share GPUs must be queued
//! in the same order on all of them (else each GPU waits for the other).
//! A communicator of several GPUs in one process lets each GPU access the
//! others' memory pools where the hardware allows (NCCL may read and write
//! peers' buffers directly).
//!
//! With one GPU or none the API still works for a world of one rank (the
//! collectives are then copies), and anything larger fails with an error
//! saying why. NCCL is loaded at run time (`libnccl.so.2` in the CUDA
//! folders, pip's `nvidia/nccl/lib`, conda, `LD_LIBRARY_PATH` or the system
//! folders); when it is missing, multi-GPU communicators fail with
//! `Error::MissingLibrary` naming the places tried.
//!
//! NVLink multicast (NVLS) is never requested by Cuprite; on shared machines
//! keep `NCCL_NVLS_ENABLE=0` in the environment, which NCCL reads.
//!
//! # Launched jobs: [`world`]
//!
//! A program started as several processes (`srun`, `mpirun`, `torchrun`)
//! calls [`world`] (or [`Communicator::from_env`]) and gets its rank of one
//! communicator; without a launcher it gets a world of one rank (on the CPU
//! when there is no GPU), so the same code runs in a notebook. [`world`]
//! makes the communicator once per process and returns it, or the same
//! error, on every call. The steps, each failing with an error that names
//! the variable or the missing ranks:
//!
//! 1. **Rank** ([`Launch`]): the first launcher whose rank variable is set,
//!    in this order: torchrun (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`), Open MPI
//!    (`OMPI_COMM_WORLD_RANK`, `_SIZE`, `_LOCAL_RANK`), MPICH/Hydra
//!    (`PMI_RANK`, `PMI_SIZE`, `MPI_LOCALRANKID`), Slurm (`SLURM_PROCID`,
//!    `SLURM_STEP_NUM_TASKS` or `SLURM_NTASKS`, `SLURM_LOCALID`), PMIx
//!    (`PMIX_RANK` with Open MPI's or Slurm's size). None: a world of 1.
//! 2. **GPU** ([`choose_device`]): with one visible GPU (after
//!    `CUDA_VISIBLE_DEVICES`; Slurm's `--gpus-per-task`) that one, else GPU
//!    `local rank % visible GPUs`.
//! 3. **Rendezvous** ([`Rendezvous`]): rank 0 makes the [`UniqueId`] and every
//!    rank receives it, waiting at most `CUPRITE_NCCL_TIMEOUT` seconds
//!    (default 120). With `CUPRITE_NCCL_ID_FILE` set, through that file on a
//!    shared filesystem: rank 0 writes it under a temporary name and renames
//!    it; the others take it once it carries their job's tag
//!    (`CUPRITE_NCCL_JOB`, else `SLURM_JOB_ID` and step, else
//!    `TORCHELASTIC_RUN_ID` or `PMIX_NAMESPACE`) or, with no tag, once it was
//!    written no longer than the time-out before they began waiting, so a
//!    file left by an earlier job is not taken. Otherwise over TCP: rank 0
//!    listens on every interface at the port, the others connect to
//!    `MASTER_ADDR` (else the first host of `SLURM_JOB_NODELIST`) at
//!    `MASTER_PORT` (else `20000 + SLURM_JOB_ID % 20000`, else 29500),
//!    retrying until the time-out, and all leave together once every rank
//!    has arrived. A peer of another world size, a rank that connects twice
//!    or a stranger is refused and told why; on a time-out rank 0 names the
//!    ranks that never came and the others name the address they tried.
//! 4. **NCCL**: [`Communicator::from_rank`] on the chosen GPU.
//!
//! [`world_launch`] reports the result (ranks, hosts, launcher, NCCL
//! version).
//!
//! **Ranks on the CPU.** With `CUPRITE_COMM=host` on every rank, [`world`]
//! makes a world of CPU processes instead (a login node, CI, a CPU
//! partition): the same rendezvous, then TCP links to rank 0 that carry
//! every collective (`host.rs`), with the same calls and results. Such a
//! world has no point-to-point [`Group`]s; the collectives, including
//! `all_to_all`, cover what distributed arrays need.

mod host;
mod launcher;
mod liveness;
mod rendezvous;
mod wait;
mod world;

pub(crate) use host::{array_of as host_array, bytes_of as host_bytes};
pub use launcher::{choose_device, Launch};
pub use rendezvous::{first_host, parse_nodelist, slurm_port, PeerWatch, Rendezvous, Shared};
pub use world::{rebuild_world, world, world_launch};

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use liveness::Liveness;

use crate::backend::probe::{current_device, device_count};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::cuda::runtime::nccl_ffi::{self, Api, RawComm, RawUniqueId};
use crate::cuda::Handle;

/// The reduction of a collective (`ncclRedOp_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Elementwise sum (`NCCL_SUM`).
    Sum,
    /// Elementwise product (`NCCL_PROD`).
    Prod,
    /// Elementwise maximum (`NCCL_MAX`).
    Max,
    /// Elementwise minimum (`NCCL_MIN`).
    Min,
    /// Elementwise mean over ranks (`NCCL_AVG`; integers truncate).
    Avg,
}

impl ReduceOp {
    /// Lower-case name: `sum`, `prod`, `max`, `min`, `avg`.
    pub fn name(&self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::Avg => "avg",
        }
    }

    fn code(&self) -> i32 {
        use nccl_ffi::redop;
        match self {
            ReduceOp::Sum => redop::SUM,
            ReduceOp::Prod => redop::PROD,
            ReduceOp::Max => redop::MAX,
            ReduceOp::Min => redop::MIN,
            ReduceOp::Avg => redop::AVG,
        }
    }
}

impl fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// NCCL's version as (major, minor, patch), loading the library if needed.
pub fn version() -> Result<(u32, u32, u32)> {
    Ok(nccl_ffi::api("nccl::version")?.version())
}

/// One line on what multi-GPU work can use here: NCCL's version and file
/// and the number of GPUs, or why NCCL or the GPUs are unavailable.
pub fn status() -> String {
    let gpus = device_count();
    let gpu_text = if gpus == 0 {
        format!(
            "no CUDA device ({})",
            crate::backend::probe::cuda_status().reason
        )
    } else {
        format!("{gpus} CUDA device(s)")
    };
    match nccl_ffi::api("nccl::status") {
        Ok(api) => {
            let (a, b, c) = api.version();
            format!("NCCL {a}.{b}.{c} ({}); {gpu_text}", api.path)
        }
        Err(e) => format!("NCCL unavailable: {e}; {gpu_text}"),
    }
}

/// The identifier that the ranks of one communicator share
/// (`ncclUniqueId`): made by one process with [`UniqueId::new`], passed to
/// the others as a string ([`UniqueId::to_hex`], `Display`, `FromStr`) or a
/// file ([`UniqueId::save`], [`UniqueId::load`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UniqueId {
    bytes: [u8; 128],
}

impl UniqueId {
    /// A new identifier from NCCL (`ncclGetUniqueId`; it also opens the
    /// listening socket that the other ranks connect to, so make it in the
    /// process that will be rank 0).
    pub fn new() -> Result<UniqueId> {
        const OP: &str = "nccl::UniqueId::new";
        let api = nccl_ffi::api(OP)?;
        let mut raw = RawUniqueId { internal: [0; 128] };
        // SAFETY: valid out pointer to a 128-byte ncclUniqueId.
        api.check(OP, unsafe { (api.get_unique_id)(&mut raw) })?;
        Ok(UniqueId {
            bytes: raw.internal,
        })
    }

    /// An identifier from its 128 bytes.
    pub fn from_bytes(bytes: [u8; 128]) -> UniqueId {
        UniqueId { bytes }
    }

    /// The 128 bytes.
    pub fn as_bytes(&self) -> &[u8; 128] {
        &self.bytes
    }

    /// The bytes as 256 lower-case hexadecimal digits.
    pub fn to_hex(&self) -> String {
        self.bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Reads 256 hexadecimal digits (surrounding white space is ignored).
    pub fn from_hex(text: &str) -> Result<UniqueId> {
        let t = text.trim();
        let err = |why: String| Error::InvalidArgument {
            op: "nccl::UniqueId::from_hex",
            detail: why,
        };
        if t.len() != 256 || !t.is_ascii() {
            return Err(err(format!(
                "expected 256 hexadecimal digits (128 bytes), got {} characters",
                t.chars().count()
            )));
        }
        let mut bytes = [0u8; 128];
        for (i, b) in bytes.iter_mut().enumerate() {
            let pair = &t[2 * i..2 * i + 2];
            *b = u8::from_str_radix(pair, 16)
                .map_err(|_| err(format!("{pair:?} at position {} is not hexadecimal", 2 * i)))?;
        }
        Ok(UniqueId { bytes })
    }

    /// Writes the identifier to `path` as one line of hexadecimal digits,
    /// through a temporary file renamed into place: a rank polling for the
    /// file never reads half of it.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        use std::io::Write;
        let op = "nccl::UniqueId::save";
        let path = path.as_ref();
        let line = format!("{}\n", self.to_hex());
        crate::api::io::write_atomically(op, path, Some(line.len() as u64), |w| {
            w.write_all(line.as_bytes())
                .map_err(|e| crate::api::io::io_error(op, path, e))
        })
    }

    /// Reads an identifier written by [`UniqueId::save`].
    pub fn load(path: impl AsRef<Path>) -> Result<UniqueId> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| Error::InvalidArgument {
            op: "nccl::UniqueId::load",
            detail: format!("reading {}: {e}", path.display()),
        })?;
        UniqueId::from_hex(&text)
    }
}

impl fmt::Display for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UniqueId({}...)", &self.to_hex()[..16])
    }
}

impl std::str::FromStr for UniqueId {
    type Err = Error;
    fn from_str(s: &str) -> Result<UniqueId> {
        UniqueId::from_hex(s)
    }
}

/// One rank of this process: its NCCL communicator and GPU.
struct Rank {
    comm: Handle<RawComm>,
    ordinal: usize,
    rank: usize,
}

enum Backend {
    /// NCCL communicators, one per rank of this process.
    Nccl {
        api: &'static Api,
        ranks: Vec<Rank>,
        /// Pairs of GPUs (owner, peer) whose pools the peer may access.
        peer_pools: Vec<(usize, usize)>,
    },
    /// A world of one rank without NCCL (the CPU, or a GPU when NCCL is
    /// missing): every collective is a copy.
    Single { device: Device, why: String },
    /// Ranks in processes on the CPU, joined by TCP (`host.rs`).
    Host { star: host::Star },
}

/// A group of ranks that run collectives together (`ncclComm_t`, CuPy's
/// `NcclCommunicator`). Safe to share between threads: calls on one
/// communicator run one at a time.
///
/// Calls queue their work and return, as every GPU operation does. Work
/// not done [`Communicator::timeout`] after its call (`CUPRITE_NCCL_TIMEOUT`
/// seconds, default 120), an asynchronous NCCL error, or a rank whose
/// process ended (launched jobs) make the next wait that meets it (reading
/// a result, a synchronize, the next call) abort the communicator
/// (`ncclCommAbort`) and fail with an error naming the operation, the
/// ranks, the transport and NCCL's message: never a hang. The communicator
/// then refuses every call, saying why, and [`rebuild_world`] makes a new
/// world.
pub struct Communicator {
    backend: Backend,
    world: usize,
    lock: Mutex<()>,
    /// The time limit, the work in flight, and whether it was aborted.
    watch: Arc<wait::Watched>,
}

/// CuPy's name for [`Communicator`].
pub type NcclCommunicator = Communicator;

/// Restores the calling thread's CUDA context when dropped (NCCL switches
/// devices internally; the runtime's sessions expect their own binding).
struct CtxGuard(cudarc::driver::sys::CUcontext);

impl CtxGuard {
    fn save() -> CtxGuard {
        let mut cur = std::ptr::null_mut();
        // SAFETY: valid out pointer.
        let _ = unsafe { cudarc::driver::sys::cuCtxGetCurrent(&mut cur) };
        CtxGuard(cur)
    }
}

impl Drop for CtxGuard {
    fn drop(&mut self) {
        // SAFETY: a context that was current before (or null); contexts of
        // the sessions are retained for the life of the process.
        let r = unsafe { cudarc::driver::sys::cuCtxSetCurrent(self.0) };
        if r == cudarc::driver::sys::CUresult::CUDA_SUCCESS {
            crate::cuda::runtime::session::note_current(self.0);
        } else {
            // Unknown now: the next bind switches for certain.
            crate::cuda::runtime::session::note_current(std::ptr::null_mut());
        }
    }
}

impl Communicator {
    /// One rank per device in `devices`, in that order, in this process
    /// (`ncclCommInitAll`, CuPy's `NcclCommunicator.initAll`). Each GPU may
    /// appear once. A list of one device (the CPU, or a GPU when NCCL is not
    /// installed) gives a world of one rank whose collectives are copies.
    pub fn init_all(devices: &[Device]) -> Result<Communicator> {
        const OP: &str = "nccl::Communicator::init_all";
        if devices.is_empty() {
            return Err(Error::InvalidArgument {
                op: OP,
                detail: "needs at least one device".into(),
            });
        }
        for (i, d) in devices.iter().enumerate() {
            if devices[..i].contains(d) {
                return Err(Error::InvalidArgument {
                    op: OP,
                    detail: format!(
                        "{d} appears twice in {}; each rank needs a GPU of its own",
                        list_devices(devices)
                    ),
                });
            }
        }
        if devices.contains(&Device::Cpu) {
            if devices.len() == 1 {
                return Ok(Communicator::single(
                    Device::Cpu,
                    "a world of one rank on the CPU (NCCL connects GPUs: several ranks need a GPU each)".into(),
                ));
            }
            return Err(Error::NeedsCuda {
                op: OP,
                reason: format!(
                    "{} includes the CPU; NCCL runs one rank per GPU, and {}",
                    list_devices(devices),
                    gpus_here()
                ),
            });
        }
        for d in devices {
            if let Device::Cuda(n) = d {
                if *n >= device_count() {
                    return Err(Error::NeedsCuda {
                        op: OP,
                        reason: format!(
                            "{d} (for a communicator over {}) is not available: {}",
                            list_devices(devices),
                            gpus_here()
                        ),
                    });
                }
            }
        }
        let ordinals: Vec<usize> = devices
            .iter()
            .filter_map(|d| match d {
                Device::Cuda(n) => Some(*n),
                Device::Cpu => None,
            })
            .collect();
        let api = match nccl_ffi::api(OP) {
            Ok(api) => api,
            Err(e) if ordinals.len() == 1 => {
                return Ok(Communicator::single(
                    devices[0],
                    format!("a world of one rank without NCCL ({e})"),
                ))
            }
            Err(e) => return Err(e),
        };
        for &n in &ordinals {
            crate::cuda::runtime::session::session(n)?.bind()?;
        }
        // NCCL may read and write buffers of peers in the same process.
        let peer_pools = crate::cuda::runtime::peer::open_pools_to_peers(OP, &ordinals, &ordinals)
            .unwrap_or_default();
        let mut comms: Vec<RawComm> = vec![std::ptr::null_mut(); ordinals.len()];
        let devlist: Vec<i32> = ordinals.iter().map(|&n| n as i32).collect();
        {
            let _ctx = CtxGuard::save();
            // SAFETY: `comms` has room for one communicator per device listed.
            let r = unsafe {
                (api.comm_init_all)(comms.as_mut_ptr(), devlist.len() as i32, devlist.as_ptr())
            };
            api.check(OP, r)?;
        }
        let ranks = ordinals
            .iter()
            .zip(comms)
            .enumerate()
            .map(|(rank, (&ordinal, comm))| Rank {
                comm: Handle(comm),
                ordinal,
                rank,
            })
            .collect();
        Ok(Communicator::with_backend(
            Backend::Nccl {
                api,
                ranks,
                peer_pools,
            },
            ordinals.len(),
            false,
            None,
        ))
    }

    fn with_backend(
        backend: Backend,
        world: usize,
        nonblocking: bool,
        liveness: Option<Arc<Liveness>>,
    ) -> Communicator {
        let watch = match &backend {
            Backend::Nccl { api, ranks, .. } => wait::Watched::new(
                api,
                ranks
                    .iter()
                    .map(|r| (r.rank, r.ordinal, r.comm.0))
                    .collect(),
                world,
                nonblocking,
                liveness,
            ),
            Backend::Single { .. } | Backend::Host { .. } => wait::Watched::unwatched(),
        };
        Communicator {
            backend,
            world,
            lock: Mutex::new(()),
            watch,
        }
    }

    /// How long a call's work may take before the communicator is aborted
    /// (from `CUPRITE_NCCL_TIMEOUT`, default 120 s).
    pub fn timeout(&self) -> Duration {
        self.watch.timeout()
    }

    /// Sets how long each call of this communicator waits for the other
    /// ranks (more than zero).
    pub fn set_timeout(&self, limit: Duration) -> Result<()> {
        if limit.is_zero() {
            return Err(Error::InvalidArgument {
                op: "nccl::Communicator::set_timeout",
                detail: "the time limit must be more than zero".into(),
            });
        }
        self.watch.set_timeout(limit);
        Ok(())
    }

    /// Why the communicator was aborted (a call timed out, a rank was
    /// lost, NCCL failed), or `None` while it is usable.
    pub fn aborted(&self) -> Option<String> {
        self.watch.aborted()
    }

    /// One rank per visible GPU, in this process. With no GPU, a world of
    /// one rank on the CPU (its description says why).
    pub fn all_devices() -> Result<Communicator> {
        let n = device_count();
        if n == 0 {
            return Ok(Communicator::single(
                Device::Cpu,
                format!(
                    "a world of one rank on the CPU: no CUDA device ({})",
                    crate::backend::probe::cuda_status().reason
                ),
            ));
        }
        let devices: Vec<Device> = (0..n).map(Device::Cuda).collect();
        Communicator::init_all(&devices)
    }

    /// This process's rank `rank` of a communicator of `world` ranks spread
    /// over processes (or threads), on the current device
    /// (`ncclCommInitRank`, CuPy's `NcclCommunicator(world, id, rank)`).
    /// Every rank passes the same `id`; the call returns once all ranks
    /// have joined.
    pub fn from_rank(world: usize, rank: usize, id: &UniqueId) -> Result<Communicator> {
        Communicator::from_rank_watched(world, rank, id, None)
    }

    /// As [`Communicator::from_rank`], learning lost ranks from `liveness`.
    fn from_rank_watched(
        world: usize,
        rank: usize,
        id: &UniqueId,
        liveness: Option<Arc<Liveness>>,
    ) -> Result<Communicator> {
        const OP: &str = "nccl::Communicator::from_rank";
        if world == 0 || rank >= world {
            return Err(Error::InvalidArgument {
                op: OP,
                detail: format!("rank {rank} is not a rank of a world of {world}"),
            });
        }
        let device = current_device();
        if world == 1 {
            return Communicator::init_all(&[device]);
        }
        let ordinal = match device {
            Device::Cuda(n) if n < device_count() => n,
            _ => {
                return Err(Error::NeedsCuda {
                    op: OP,
                    reason: format!(
                        "rank {rank} of {world} runs on the current device, {device}, which is not a usable GPU; {}",
                        gpus_here()
                    ),
                })
            }
        };
        let api = nccl_ffi::api(OP)?;
        if world > i32::MAX as usize {
            return Err(Error::InvalidArgument {
                op: OP,
                detail: format!("a world of {world} ranks is too large for NCCL"),
            });
        }
        let s = crate::cuda::runtime::session::session(ordinal)?;
        // Other ranks may be threads of this process, which NCCL lets read
        // and write this GPU's buffers directly.
        let all: Vec<usize> = (0..device_count()).collect();
        let peer_pools = crate::cuda::runtime::peer::open_pools_to_peers(OP, &[ordinal], &all)
            .unwrap_or_default();
        s.bind()?;
        let comm = wait::init_rank(OP, api, world, rank, id, liveness.as_deref())?;
        Ok(Communicator::with_backend(
            Backend::Nccl {
                api,
                ranks: vec![Rank {
                    comm: Handle(comm.raw),
                    ordinal,
                    rank,
                }],
                peer_pools,
            },
            world,
            comm.nonblocking,
            liveness,
        ))
    }

    fn single(device: Device, why: String) -> Communicator {
        Communicator::with_backend(Backend::Single { device, why }, 1, false, None)
    }

    /// Number of ranks in the whole communicator (all processes).
    pub fn world_size(&self) -> usize {
        self.world
    }

    /// The ranks of this process, in the order collectives take their arrays.
    pub fn ranks(&self) -> Vec<usize> {
        match &self.backend {
            Backend::Nccl { ranks, .. } => ranks.iter().map(|r| r.rank).collect(),
            Backend::Single { .. } => vec![0],
            Backend::Host { star } => vec![star.rank()],
        }
    }

    /// The device of each rank of this process, in rank order.
    pub fn devices(&self) -> Vec<Device> {
        match &self.backend {
            Backend::Nccl { ranks, .. } => ranks.iter().map(|r| Device::Cuda(r.ordinal)).collect(),
            Backend::Single { device, .. } => vec![*device],
            Backend::Host { .. } => vec![Device::Cpu],
        }
    }

    /// The rank of this process that runs on `device`.
    pub fn rank_of(&self, device: Device) -> Option<usize> {
        let i = self.devices().iter().position(|&d| d == device)?;
        self.ranks().get(i).copied()
    }

    /// Whether NCCL runs the collectives (false for a world of one rank
    /// without NCCL, whose collectives are copies).
    pub fn uses_nccl(&self) -> bool {
        matches!(self.backend, Backend::Nccl { .. })
    }

    /// Waits until every collective queued by this process has finished and
    /// reports an asynchronous NCCL error if one occurred.
    pub fn synchronize(&self) -> Result<()> {
        const OP: &str = "nccl::Communicator::synchronize";
        match &self.backend {
            Backend::Single { device, .. } => match device {
                Device::Cuda(n) => {
                    let s = crate::cuda::runtime::stream::stream_for(*n);
                    crate::backend::probe::with_device(*device, || s.synchronize())
                }
                Device::Cpu => Ok(()),
            },
            Backend::Host { .. } => Ok(()),
            Backend::Nccl { api, ranks, .. } => {
                self.watch.check_usable(OP)?;
                self.watch.wait_all(OP)?;
                for r in ranks {
                    let s = crate::cuda::runtime::stream::stream_for(r.ordinal);
                    crate::backend::probe::with_device(Device::Cuda(r.ordinal), || {
                        s.synchronize()
                    })?;
                    let mut state = 0;
                    // SAFETY: a live communicator and a valid out pointer.
                    api.check(OP, unsafe {
                        (api.comm_get_async_error)(r.comm.0, &mut state)
                    })?;
                    api.check(OP, state)?;
                }
                Ok(())
            }
        }
    }

    /// `op` over the arrays of all ranks, one result per rank of this
    /// process (`ncclAllReduce`).
    pub fn all_reduce(&self, inputs: &[Array], op: ReduceOp) -> Result<Vec<Array>> {
        const OP: &str = "nccl::all_reduce";
        let (shape, dtype) = self.common_input(OP, inputs)?;
        let mut outs = self.new_outputs(OP, &shape, dtype)?;
        self.all_reduce_into(inputs, &mut outs, op)?;
        Ok(outs)
    }

    /// As [`Communicator::all_reduce`], writing into `outputs` (one per rank
    /// of this process, the inputs' shape and dtype, C-contiguous; an output
    /// may be its input, for an in-place reduction).
    pub fn all_reduce_into(
        &self,
        inputs: &[Array],
        outputs: &mut [Array],
        op: ReduceOp,
    ) -> Result<()> {
        const OP: &str = "nccl::all_reduce";
        let (shape, dtype) = self.common_input(OP, inputs)?;
        let (ty, per) = self.wire(OP, dtype, Some(op))?;
        self.check_outputs(OP, outputs, &shape, dtype)?;
        if let Backend::Single { .. } = self.backend {
            return outputs[0].assign(&inputs[0]);
        }
        if let Some(star) = self.star() {
            return self.host_all_reduce(star, &inputs[0], &mut outputs[0], op);
        }
        let ins = self.contiguous_inputs(OP, inputs)?;
        for (i, (x, y)) in ins.iter().zip(outputs.iter()).enumerate() {
            check_in_place(OP, i, x, y, true)?;
        }
        let count = shape.iter().product::<usize>() * per;
        if count == 0 {
            return Ok(());
        }
        let send = ptrs(OP, &ins)?;
        let recv = ptrs(OP, outputs)?;
        self.grouped(OP, |api, i, comm, stream| {
            // SAFETY: both buffers hold `count` elements of `ty` on rank i's GPU.
            unsafe {
                (api.all_reduce)(
                    send[i] as _,
                    recv[i] as _,
                    count,
                    ty,
                    op.code(),
                    comm,
                    stream,
                )
            }
        })
    }

    /// Copies the array of rank `root` into the arrays of every other rank,
    /// in place (`ncclBroadcast`): one C-contiguous array per rank of this
    /// process, all of one shape and dtype.
    pub fn broadcast(&self, arrays: &mut [Array], root: usize) -> Result<()> {
        const OP: &str = "nccl::broadcast";
        let (_, dtype) = self.common_input(OP, arrays)?;
        self.check_root(OP, root)?;
        let (ty, per) = self.wire(OP, dtype, None)?;
        for (i, a) in arrays.iter().enumerate() {
            if !a.is_c_contiguous() {
                return Err(not_contiguous(OP, "array", i, a));
            }
        }
        if let Backend::Single { .. } = self.backend {
            return Ok(());
        }
        if let Some(star) = self.star() {
            return self.host_broadcast(star, &mut arrays[0], root);
        }
        let count = arrays[0].size() * per;
        if count == 0 {
            return Ok(());
        }
        let bufs = ptrs(OP, arrays)?;
        self.grouped(OP, |api, i, comm, stream| {
            // SAFETY: each buffer holds `count` elements of `ty` on rank i's GPU.
            unsafe {
                (api.broadcast)(
                    bufs[i] as _,
                    bufs[i] as _,
                    count,
                    ty,
                    root as i32,
                    comm,
                    stream,
                )
            }
        })
    }

    /// A copy of `source` on every rank of this process, in rank order
    /// (`ncclBroadcast` from the rank whose GPU holds `source`). In a
    /// communicator spanning processes, the others call
    /// [`Communicator::broadcast`] with that rank as the root.
    pub fn broadcast_from(&self, source: &Array) -> Result<Vec<Array>> {
        const OP: &str = "nccl::broadcast";
        let devices = self.devices();
        let Some(local_root) = devices.iter().position(|&d| d == source.device()) else {
            return Err(Error::InvalidArgument {
                op: OP,
                detail: format!(
                    "the source is on {}, which no rank of this process uses ({})",
                    source.device(),
                    list_devices(&devices)
                ),
            });
        };
        let (ty, per) = self.wire(OP, source.dtype(), None)?;
        let outs = self.new_outputs(OP, source.shape(), source.dtype())?;
        if let Backend::Single { .. } = self.backend {
            let mut outs = outs;
            outs[0].assign(source)?;
            return Ok(outs);
        }
        if let Some(star) = self.star() {
            let mut outs = outs;
            outs[0].assign(source)?;
            self.host_broadcast(star, &mut outs[0], star.rank())?;
            return Ok(outs);
        }
        let root = self.ranks()[local_root];
        let src = self.contiguous_on(OP, source, local_root)?;
        let count = source.size() * per;
        if count == 0 {
            return Ok(outs);
        }
        let src_ptr = ptr(OP, &src)?;
        let recv = ptrs(OP, &outs)?;
        self.grouped(OP, |api, i, comm, stream| {
            let send = if i == local_root { src_ptr } else { recv[i] };
            // SAFETY: buffers of `count` elements of `ty` on rank i's GPU.
            unsafe {
                (api.broadcast)(
                    send as _,
                    recv[i] as _,
                    count,
                    ty,
                    root as i32,
                    comm,
                    stream,
                )
            }
        })?;
        Ok(outs)
    }

    /// `op` over the arrays of all ranks, delivered to rank `root` only
    /// (`ncclReduce`): `Some(result)` on `root`'s GPU when `root` is a rank
    /// of this process, else `None` (this process still takes part).
    pub fn reduce(&self, inputs: &[Array], op: ReduceOp, root: usize) -> Result<Option<Array>> {
        const OP: &str = "nccl::reduce";
        let (shape, dtype) = self.common_input(OP, inputs)?;
        self.check_root(OP, root)?;
        let Some(local_root) = self.ranks().iter().position(|&r| r == root) else {
            self.reduce_impl(inputs, None, op, root)?;
            return Ok(None);
        };
        let mut out = self.new_output_on(OP, local_root, &shape, dtype)?;
        self.reduce_impl(inputs, Some(&mut out), op, root)?;
        Ok(Some(out))
    }

    /// As [`Communicator::reduce`], writing into `output` on `root`'s GPU
    /// (`root` must be a rank of this process; the output may be root's
    /// input, for an in-place reduction).
    pub fn reduce_into(
        &self,
        inputs: &[Array],
        output: &mut Array,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        const OP: &str = "nccl::reduce";
        self.check_root(OP, root)?;
        if !self.ranks().contains(&root) {
            return Err(Error::InvalidArgument {
                op: OP,
                detail: format!(
                    "root rank {root} is in another process; there, call reduce, which returns None here"
                ),
            });
        }
        self.reduce_impl(inputs, Some(output), op, root)
    }

    fn reduce_impl(
        &self,
        inputs: &[Array],
        output: Option<&mut Array>,
        op: ReduceOp,
        root: usize,
    ) -> Result<()> {
        const OP: &str = "nccl::reduce";
        let (shape, dtype) = self.common_input(OP, inputs)?;
        self.check_root(OP, root)?;
        let (ty, per) = self.wire(OP, dtype, Some(op))?;
        let local_root = self.ranks().iter().position(|&r| r == root);
        if let (Some(i), Some(out)) = (local_root, output.as_deref()) {
            self.check_output(OP, i, out, &shape, dtype)?;
        }
        if let Backend::Single { .. } = self.backend {
            if let Some(out) = output {
                out.assign(&inputs[0])?;
            }
            return Ok(());
        }
        if let Some(star) = self.star() {
            return self.host_reduce(star, &inputs[0], output, op, root);
        }
        let ins = self.contiguous_inputs(OP, inputs)?;
        let out_ptr = match (local_root, output.as_deref()) {
            (Some(i), Some(out)) => {
                check_in_place(OP, i, &ins[i], out, true)?;
                Some(ptr(OP, out)?)
            }
            _ => None,
        };
        let count = shape.iter().product::<usize>() * per;
        if count == 0 {
            return Ok(());
        }
        let send = ptrs(OP, &ins)?;
        self.grouped(OP, |api, i, comm, stream| {
            // Only the root receives; the others pass their input, unused.
            let recv = if Some(i) == local_root {
                out_ptr.unwrap_or(send[i])
            } else {
                send[i]
            };
            // SAFETY: buffers of `count` elements of `ty` on rank i's GPU.
            unsafe {
                (api.reduce)(
                    send[i] as _,
                    recv as _,
                    count,
                    ty,
                    op.code(),
                    root as i32,
                    comm,
                    stream,
                )
            }
        })
    }

    /// The arrays of all ranks concatenated along axis 0, on every rank of
    /// this process (`ncclAllGather`): inputs of shape `(n0, ...)` give
    /// `(world*n0, ...)`, 0-d inputs give `(world,)`.
    pub fn all_gather(&self, inputs: &[Array]) -> Result<Vec<Array>> {
        const OP: &str = "nccl::all_gather";
        let (shape, dtype) = self.common_input(OP, inputs)?;
        let mut outs = self.new_outputs(OP, &gathered_shape(&shape, self.world), dtype)?;
        self.all_gather_into(inputs, &mut outs)?;
        Ok(outs)
    }

    /// As [`Communicator::all_gather`], writing into `outputs` (shape
    /// `(world*n0, ...)`, the inputs' dtype, C-contiguous, not overlapping
    /// the inputs).
    pub fn all_gather_into(&self, inputs: &[Array], outputs: &mut [Array]) -> Result<()> {
        const OP: &str = "nccl::all_gather";
        let (shape, dtype) = self.common_input(OP, inputs)?;
        let (ty, per) = self.wire(OP, dtype, None)?;
        self.check_outputs(OP, outputs, &gathered_shape(&shape, self.world), dtype)?;
        if let Backend::Single { .. } = self.backend {
            let flat = inputs[0].reshape(outputs[0].shape().to_vec())?;
            return outputs[0].assign(&flat);
        }
        if let Some(star) = self.star() {
            return self.host_all_gather(star, &inputs[0], &mut outputs[0]);
        }
        let ins = self.contiguous_inputs(OP, inputs)?;
        for (i, (x, y)) in ins.iter().zip(outputs.iter()).enumerate() {
            check_in_place(OP, i, x, y, false)?;
        }
        let count = shape.iter().product::<usize>() * per;
        if count == 0 {
            return Ok(());
        }
        let send = ptrs(OP, &ins)?;
        let recv = ptrs(OP, outputs)?;
        self.grouped(OP, |api, i, comm, stream| {
            // SAFETY: the input holds `count` elements and the output
            // `world * count`, of `ty`, on rank i's GPU.
            unsafe { (api.all_gather)(send[i] as _, recv[i] as _, count, ty, comm, stream) }
        })
    }

    /// `op` over the arrays of all ranks, split along axis 0 into `world`
    /// equal blocks, block `r` going to rank `r` (`ncclReduceScatter`):
    /// inputs of shape `(n0, ...)` give `(n0/world, ...)`. `n0` must be a
    /// multiple of the world size.
    pub fn reduce_scatter(&self, inputs: &[Array], op: ReduceOp) -> Result<Vec<Array>> {
        const OP: &str = "nccl::reduce_scatter";
        let (shape, dtype) = self.common_input(OP, inputs)?;
        let out_shape = scattered_shape(OP, &shape, self.world)?;
        let mut outs = self.new_outputs(OP, &out_shape, dtype)?;
        self.reduce_scatter_into(inputs, &mut outs, op)?;
        Ok(outs)
    }

    /// As [`Communicator::reduce_scatter`], writing into `outputs` (shape
    /// `(n0/world, ...)`, the inputs' dtype, C-contiguous, not overlapping
    /// the inputs).
    pub fn reduce_scatter_into(
        &self,
        inputs: &[Array],
        outputs: &mut [Array],
        op: ReduceOp,
    ) -> Result<()> {
        const OP: &str = "nccl::reduce_scatter";
        let (shape, dtype) = self.common_input(OP, inputs)?;
        let (ty, per) = self.wire(OP, dtype, Some(op))?;
        let out_shape = scattered_shape(OP, &shape, self.world)?;
        self.check_outputs(OP, outputs, &out_shape, dtype)?;
        if let Backend::Single { .. } = self.backend {
            return outputs[0].assign(&inputs[0]);
        }
        if let Some(star) = self.star() {
            return self.host_reduce_scatter(star, &inputs[0], &mut outputs[0], op);
        }
        let ins = self.contiguous_inputs(OP, inputs)?;
        for (i, (x, y)) in ins.iter().zip(outputs.iter()).enumerate() {
            check_in_place(OP, i, x, y, false)?;
        }
        let count = out_shape.iter().product::<usize>() * per;
        if count == 0 {
            return Ok(());
        }
        let send = ptrs(OP, &ins)?;
        let recv = ptrs(OP, outputs)?;
        self.grouped(OP, |api, i, comm, stream| {
            // SAFETY: the input holds `world * count` elements and the
            // output `count`, of `ty`, on rank i's GPU.
            unsafe {
                (api.reduce_scatter)(
                    send[i] as _,
                    recv[i] as _,
                    count,
                    ty,
                    op.code(),
                    comm,
                    stream,
                )
            }
        })
    }

    /// Rank `r`'s block `j` goes to rank `j`, which keeps it as its block
    /// `r` (MPI's `Alltoall`, as grouped `ncclSend`/`ncclRecv`): blocks are
    /// the `world` equal parts of axis 0, so inputs of shape `(world*k, ...)`
    /// give outputs of the same shape. The transpose step of distributed
    /// FFTs and of changing a distributed array's split axis.
    pub fn all_to_all(&self, inputs: &[Array]) -> Result<Vec<Array>> {
        const OP: &str = "nccl::all_to_all";
        let (shape, dtype) = self.common_input(OP, inputs)?;
        let mut outs = self.new_outputs(OP, &shape, dtype)?;
        self.all_to_all_into(inputs, &mut outs)?;
        Ok(outs)
    }

    /// As [`Communicator::all_to_all`], writing into `outputs` (the inputs'
    /// shape and dtype, C-contiguous, not overlapping the inputs).
    pub fn all_to_all_into(&self, inputs: &[Array], outputs: &mut [Array]) -> Result<()> {
        const OP: &str = "nccl::all_to_all";
        let (shape, dtype) = self.common_input(OP, inputs)?;
        let (ty, per) = self.wire(OP, dtype, None)?;
        let block_shape = scattered_shape(OP, &shape, self.world)?;
        self.check_outputs(OP, outputs, &shape, dtype)?;
        if let Backend::Single { .. } = self.backend {
            return outputs[0].assign(&inputs[0]);
        }
        if let Some(star) = self.star() {
            return self.host_all_to_all(star, &inputs[0], &mut outputs[0]);
        }
        let ins = self.contiguous_inputs(OP, inputs)?;
        for (i, (x, y)) in ins.iter().zip(outputs.iter()).enumerate() {
            check_in_place(OP, i, x, y, false)?;
        }
        let block_len = block_shape.iter().product::<usize>();
        let count = block_len * per;
        if count == 0 {
            return Ok(());
        }
        let block_bytes = (block_len * dtype.itemsize()) as u64;
        let send = ptrs(OP, &ins)?;
        let recv = ptrs(OP, outputs)?;
        let world = self.world;
        self.grouped(OP, |api, i, comm, stream| {
            for peer in 0..world {
                let offset = peer as u64 * block_bytes;
                // SAFETY: block `peer` of both buffers holds `count`
                // elements of `ty` on rank i's GPU.
                let rc = unsafe {
                    let s = (api.send)(
                        (send[i] + offset) as _,
                        count,
                        ty,
                        peer as i32,
                        comm,
                        stream,
                    );
                    if s != 0 {
                        s
                    } else {
                        (api.recv)(
                            (recv[i] + offset) as _,
                            count,
                            ty,
                            peer as i32,
                            comm,
                            stream,
                        )
                    }
                };
                if rc != 0 {
                    return rc;
                }
            }
            0
        })
    }

    /// Returns once every rank has called `barrier` (NCCL has none: an
    /// all-reduce of one number, waited for here).
    pub fn barrier(&self) -> Result<()> {
        const OP: &str = "nccl::barrier";
        if let Backend::Single { .. } = self.backend {
            return Ok(());
        }
        if let Some(star) = self.star() {
            return self.host_barrier(star);
        }
        // The numbers' values do not matter: only that every rank sent one.
        let flags = self.new_outputs(OP, &[1], DType::Int32)?;
        let bufs = ptrs(OP, &flags)?;
        self.grouped(OP, |api, i, comm, stream| {
            // SAFETY: one int32 on rank i's GPU, reduced in place.
            unsafe {
                (api.all_reduce)(
                    bufs[i] as _,
                    bufs[i] as _,
                    1,
                    nccl_ffi::dtype::INT32,
                    ReduceOp::Max.code(),
                    comm,
                    stream,
                )
            }
        })?;
        self.watch.wait_all(OP)
    }

    /// A group of point-to-point transfers run together
    /// (`ncclGroupStart`, `ncclSend`/`ncclRecv`..., `ncclGroupEnd`):
    ///
    /// ```no_run
    /// # use cuprite as cp;
    /// # let comm = cp::nccl::Communicator::all_devices()?;
    /// # let (a0, mut b1) = (cp::ones([4], cp::f32)?, cp::zeros([4], cp::f32)?);
    /// let mut g = comm.group();
    /// g.send(&a0, 1)?;      // from the rank whose GPU holds a0, to rank 1
    /// g.recv(&mut b1, 0)?;  // into b1, on rank 1's GPU, from rank 0
    /// g.run()?;
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn group(&self) -> Group<'_> {
        Group {
            comm: self,
            ops: Vec::new(),
        }
    }

    // ---- validation -------------------------------------------------------

    /// Checks one array per rank of this process, each on its rank's device,
    /// all of one shape and dtype; returns them.
    fn common_input(&self, op: &'static str, arrays: &[Array]) -> Result<(Vec<usize>, DType)> {
        let devices = self.devices();
        if arrays.len() != devices.len() {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "got {} array(s) for {} rank(s) in this process ({}); pass one array per rank, in rank order",
                    arrays.len(),
                    devices.len(),
                    list_devices(&devices)
                ),
            });
        }
        for (i, a) in arrays.iter().enumerate() {
            self.check_device(op, "array", i, a)?;
        }
        let first = &arrays[0];
        for (i, a) in arrays.iter().enumerate().skip(1) {
            if a.shape() != first.shape() || a.dtype() != first.dtype() {
                return Err(Error::Shape {
                    op,
                    detail: format!(
                        "every rank needs the same shape and dtype: array 0 is {} {}, array {i} is {} {}",
                        fmt_shape(first.shape()),
                        first.dtype(),
                        fmt_shape(a.shape()),
                        a.dtype()
                    ),
                });
            }
        }
        Ok((first.shape().to_vec(), first.dtype()))
    }

    fn check_device(&self, op: &'static str, what: &str, i: usize, a: &Array) -> Result<()> {
        let want = self.devices()[i];
        if a.device() != want {
            let rank = self.ranks()[i];
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "{what} {i} is on {}, but rank {rank} runs on {want}; copy it with `.to_device(&{})` or pass the arrays in rank order",
                    a.device(),
                    device_expr(want)
                ),
            });
        }
        Ok(())
    }

    fn check_root(&self, op: &'static str, root: usize) -> Result<()> {
        if root >= self.world {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "root {root} is not a rank of a world of {} (ranks 0 to {})",
                    self.world,
                    self.world - 1
                ),
            });
        }
        Ok(())
    }

    fn check_outputs(
        &self,
        op: &'static str,
        outputs: &[Array],
        shape: &[usize],
        dtype: DType,
    ) -> Result<()> {
        if outputs.len() != self.devices().len() {
            return Err(Error::InvalidArgument {
                op,
                detail: format!(
                    "got {} output(s) for {} rank(s) in this process; pass one output per rank, in rank order",
                    outputs.len(),
                    self.devices().len()
                ),
            });
        }
        for (i, o) in outputs.iter().enumerate() {
            self.check_output(op, i, o, shape, dtype)?;
        }
        Ok(())
    }

    fn check_output(
        &self,
        op: &'static str,
        i: usize,
        out: &Array,
        shape: &[usize],
        dtype: DType,
    ) -> Result<()> {
        self.check_device(op, "output", i, out)?;
        if out.shape() != shape || out.dtype() != dtype {
            return Err(Error::Shape {
                op,
                detail: format!(
                    "output {i} must be {} {}, got {} {}",
                    fmt_shape(shape),
                    dtype,
                    fmt_shape(out.shape()),
                    out.dtype()
                ),
            });
        }
        if !out.is_c_contiguous() {
            return Err(not_contiguous(op, "output", i, out));
        }
        Ok(())
    }

    /// NCCL's type for `dtype` and how many of its elements make one of
    /// `dtype`, or an error naming the operation and dtype.
    fn wire(
        &self,
        op: &'static str,
        dtype: DType,
        reduce: Option<ReduceOp>,
    ) -> Result<(i32, usize)> {
        let (ty, per) = wire(op, dtype, reduce)?;
        if let Backend::Nccl { api, .. } = &self.backend {
            let needs_new = ty == nccl_ffi::dtype::BFLOAT16 || reduce == Some(ReduceOp::Avg);
            if needs_new && !api.has_bf16_and_avg() {
                let (a, b, c) = api.version();
                return Err(Error::DType {
                    op,
                    detail: format!(
                        "{} with {dtype} needs NCCL 2.10 or newer (bfloat16 and avg), this is NCCL {a}.{b}.{c}",
                        reduce.map_or("moving data".to_string(), |r| format!("reducing with {r}"))
                    ),
                });
            }
        }
        Ok((ty, per))
    }

    // ---- execution --------------------------------------------------------

    /// New C-contiguous arrays of `shape` and `dtype`, one per rank of this
    /// process, each on its GPU's stream.
    fn new_outputs(&self, op: &'static str, shape: &[usize], dtype: DType) -> Result<Vec<Array>> {
        (0..self.devices().len())
            .map(|i| self.new_output_on(op, i, shape, dtype))
            .collect()
    }

    fn new_output_on(
        &self,
        op: &'static str,
        i: usize,
        shape: &[usize],
        dtype: DType,
    ) -> Result<Array> {
        match self.devices()[i] {
            Device::Cuda(n) => {
                let len = crate::core::layout::checked_size(op, shape)?;
                let bytes = len
                    .checked_mul(dtype.itemsize())
                    .ok_or_else(|| Error::Overflow {
                        op,
                        detail: format!("{len} elements of {dtype}"),
                    })?;
                let stream = crate::cuda::runtime::stream::stream_for(n);
                let storage = crate::cuda::runtime::peer::alloc_on(op, n, bytes, len, &stream)?;
                Ok(Array::from_parts(
                    Storage::Cuda(storage),
                    Layout::contiguous(shape),
                    dtype,
                ))
            }
            Device::Cpu => {
                crate::backend::probe::with_device(Device::Cpu, || crate::zeros(shape, dtype))
            }
        }
    }

    /// Each input, or a C-contiguous copy of it on its own GPU.
    fn contiguous_inputs(&self, op: &'static str, inputs: &[Array]) -> Result<Vec<Array>> {
        inputs
            .iter()
            .enumerate()
            .map(|(i, a)| self.contiguous_on(op, a, i))
            .collect()
    }

    fn contiguous_on(&self, _op: &'static str, a: &Array, i: usize) -> Result<Array> {
        if a.is_c_contiguous() {
            return Ok(a.clone());
        }
        let device = self.devices()[i];
        match device {
            Device::Cuda(n) => {
                let stream = crate::cuda::runtime::stream::stream_for(n);
                crate::cuda::runtime::stream::with_stream(&stream, || {
                    crate::backend::probe::with_device(device, || a.copy())
                })
            }
            Device::Cpu => a.copy(),
        }
    }

    /// Runs `call(api, i, comm, stream)` for every rank `i` of this process
    /// inside one NCCL group, on each GPU's stream.
    fn grouped(
        &self,
        op: &'static str,
        mut call: impl FnMut(&Api, usize, RawComm, nccl_ffi::RawStream) -> nccl_ffi::NcclResult,
    ) -> Result<()> {
        let Backend::Nccl { api, ranks, .. } = &self.backend else {
            return Err(Error::InvalidArgument {
                op,
                detail: "this communicator has no NCCL ranks".into(),
            });
        };
        let streams: Vec<_> = ranks
            .iter()
            .map(|r| crate::cuda::runtime::stream::stream_for(r.ordinal))
            .collect();
        let everyone: Vec<usize> = (0..self.world).collect();
        self.group_calls(op, api, &everyone, |api| {
            for (i, r) in ranks.iter().enumerate() {
                // The null stream handle means the current context's stream.
                if bind(r.ordinal).is_err() {
                    return nccl_ffi::UNHANDLED_CUDA_ERROR;
                }
                let rc = call(api, i, r.comm.0, streams[i].raw());
                if rc != 0 {
                    return rc;
                }
            }
            0
        })
    }

    /// `body` between `ncclGroupStart` and `ncclGroupEnd`, one call at a
    /// time per communicator, restoring the thread's CUDA context after;
    /// then records the work as in flight (see [`wait`]). `peers` are the
    /// ranks the work waits for.
    fn group_calls(
        &self,
        op: &'static str,
        api: &Api,
        peers: &[usize],
        body: impl FnOnce(&Api) -> nccl_ffi::NcclResult,
    ) -> Result<()> {
        let _serial = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.watch.check_usable(op)?;
        crate::cuda::runtime::session::check_interrupt(op)?;
        let _ctx = CtxGuard::save();
        // The default stream's handle (null) means the current context's
        // stream, to NCCL as to CUDA: each rank's context is bound for its
        // calls (see `bind`), and this process's first one for the group's
        // launch, whatever device the calling thread was on. (Two processes
        // on two GPUs showed it: rank 1, called from a thread on cuda:0,
        // read a received array before NCCL had written it.)
        if let Backend::Nccl { ranks, .. } = &self.backend {
            if let Some(r) = ranks.first() {
                bind(r.ordinal)?;
            }
        }
        // SAFETY: group calls take no arguments.
        api.check(op, unsafe { (api.group_start)() })?;
        let rc = body(api);
        // SAFETY: closes the group opened above, also after a failed call.
        let end = unsafe { (api.group_end)() };
        // A call NCCL refused (bad arguments) queued nothing: the
        // communicator stays usable.
        if rc != 0 && rc != nccl_ffi::IN_PROGRESS {
            return api.check(op, rc);
        }
        if end != 0 && end != nccl_ffi::IN_PROGRESS {
            return Err(self.watch.fail(op, peers, wait::Failure::Nccl(end)));
        }
        self.watch.queued(op, peers)
    }

    fn describe(&self) -> String {
        match &self.backend {
            Backend::Single { device, why } => {
                format!("Communicator: world size 1, rank 0 on {device}; {why}")
            }
            Backend::Host { star } => format!(
                "Communicator: CPU world of {} processes over TCP (no GPU), rank {}",
                self.world,
                star.rank()
            ),
            Backend::Nccl {
                api,
                ranks,
                peer_pools,
            } => {
                let (a, b, c) = api.version();
                let here: Vec<String> = ranks
                    .iter()
                    .map(|r| format!("rank {} on cuda:{}", r.rank, r.ordinal))
                    .collect();
                let mut s = format!(
                    "Communicator: NCCL {a}.{b}.{c}, world size {}; this process: {}",
                    self.world,
                    here.join(", ")
                );
                if ranks.len() > 1 {
                    let ordinals: Vec<usize> = ranks.iter().map(|r| r.ordinal).collect();
                    let pairs = ordinals.len() * (ordinals.len() - 1);
                    let open = peer_pools
                        .iter()
                        .filter(|(o, p)| ordinals.contains(o) && ordinals.contains(p))
                        .count();
                    s.push_str(&format!(
                        "; peer access between GPUs: {open} of {pairs} directions"
                    ));
                }
                s
            }
        }
    }
}

impl fmt::Display for Communicator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl fmt::Debug for Communicator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        self.watch.release();
    }
}

/// Point-to-point transfers collected by [`Communicator::group`] and run
/// together by [`Group::run`].
pub struct Group<'c> {
    comm: &'c Communicator,
    ops: Vec<P2p>,
}

struct P2p {
    /// Index of the sending or receiving rank among this process's ranks.
    local: usize,
    peer: usize,
    send: bool,
    array: Array,
}

impl Group<'_> {
    /// Sends `x` to rank `peer`, from the rank of this process whose GPU holds `x`.
    pub fn send(&mut self, x: &Array, peer: usize) -> Result<&mut Self> {
        const OP: &str = "nccl::send";
        let local = self.local_rank_of(OP, x, peer)?;
        self.comm.wire(OP, x.dtype(), None)?;
        let x = self.comm.contiguous_on(OP, x, local)?;
        self.ops.push(P2p {
            local,
            peer,
            send: true,
            array: x,
        });
        Ok(self)
    }

    /// Receives into `out` (C-contiguous, on the GPU of one of this
    /// process's ranks) from rank `peer`.
    pub fn recv(&mut self, out: &mut Array, peer: usize) -> Result<&mut Self> {
        const OP: &str = "nccl::recv";
        let local = self.local_rank_of(OP, out, peer)?;
        self.comm.wire(OP, out.dtype(), None)?;
        if !out.is_c_contiguous() {
            return Err(not_contiguous(OP, "output", local, out));
        }
        self.ops.push(P2p {
            local,
            peer,
            send: false,
            array: out.clone(),
        });
        Ok(self)
    }

    fn local_rank_of(&self, op: &'static str, a: &Array, peer: usize) -> Result<usize> {
        self.comm.check_root(op, peer)?;
        let devices = self.comm.devices();
        devices
            .iter()
            .position(|&d| d == a.device())
            .ok_or_else(|| Error::InvalidArgument {
                op,
                detail: format!(
                    "the array is on {}, which no rank of this process uses ({})",
                    a.device(),
                    list_devices(&devices)
                ),
            })
    }

    /// Runs every transfer of the group. When every rank is in this
    /// process, each send must have a matching receive (same peer pair, size
    /// and dtype, in the same order), else NCCL would wait forever.
    pub fn run(self) -> Result<()> {
        const OP: &str = "nccl::Group::run";
        let comm = self.comm;
        let ranks = comm.ranks();
        if ranks.len() == comm.world {
            self.check_pairs(OP, &ranks)?;
        }
        if let Backend::Host { .. } = comm.backend {
            return Err(Error::InvalidArgument {
                op: OP,
                detail: "point-to-point transfers between CPU processes are not supported: use a collective (all_to_all, all_gather, broadcast)".into(),
            });
        }
        if let Backend::Single { .. } = comm.backend {
            let sends: Vec<&P2p> = self.ops.iter().filter(|p| p.send).collect();
            let recvs = self.ops.iter().filter(|p| !p.send);
            for (s, r) in sends.iter().zip(recvs) {
                let mut out = r.array.clone();
                out.assign(&s.array)?;
            }
            return Ok(());
        }
        let Backend::Nccl {
            api, ranks: nranks, ..
        } = &comm.backend
        else {
            return Ok(());
        };
        let mut calls = Vec::with_capacity(self.ops.len());
        for p in &self.ops {
            let (ty, per) = comm.wire(OP, p.array.dtype(), None)?;
            calls.push((p, ptr(OP, &p.array)?, p.array.size() * per, ty));
        }
        let streams: Vec<_> = nranks
            .iter()
            .map(|r| crate::cuda::runtime::stream::stream_for(r.ordinal))
            .collect();
        let mut peers: Vec<usize> = self.ops.iter().map(|p| p.peer).collect();
        peers.extend(comm.ranks());
        peers.sort_unstable();
        peers.dedup();
        comm.group_calls(OP, api, &peers, |api| {
            for &(p, ptr, count, ty) in &calls {
                if count == 0 {
                    continue;
                }
                let r = &nranks[p.local];
                // The null stream handle means the current context's stream.
                if bind(r.ordinal).is_err() {
                    return nccl_ffi::UNHANDLED_CUDA_ERROR;
                }
                let stream = streams[p.local].raw();
                // SAFETY: a buffer of `count` elements of `ty` on rank
                // `p.local`'s GPU; the peer is a rank of the world.
                let rc = unsafe {
                    if p.send {
                        (api.send)(ptr as _, count, ty, p.peer as i32, r.comm.0, stream)
                    } else {
                        (api.recv)(ptr as _, count, ty, p.peer as i32, r.comm.0, stream)
                    }
                };
                if rc != 0 {
                    return rc;
                }
            }
            0
        })
    }

    /// Every send between two ranks of this process has its receive.
    fn check_pairs(&self, op: &'static str, ranks: &[usize]) -> Result<()> {
        use std::collections::BTreeMap;
        type Key = (usize, usize);
        let mut sends: BTreeMap<Key, Vec<(usize, DType)>> = BTreeMap::new();
        let mut recvs: BTreeMap<Key, Vec<(usize, DType)>> = BTreeMap::new();
        for p in &self.ops {
            let me = ranks[p.local];
            let entry = (p.array.size(), p.array.dtype());
            if p.send {
                sends.entry((me, p.peer)).or_default().push(entry);
            } else {
                recvs.entry((p.peer, me)).or_default().push(entry);
            }
        }
        let keys: std::collections::BTreeSet<Key> =
            sends.keys().chain(recvs.keys()).copied().collect();
        for (from, to) in keys {
            let s = sends.get(&(from, to)).map(Vec::as_slice).unwrap_or(&[]);
            let r = recvs.get(&(from, to)).map(Vec::as_slice).unwrap_or(&[]);
            if s.len() != r.len() {
                return Err(Error::InvalidArgument {
                    op,
                    detail: format!(
                        "rank {from} sends {} array(s) to rank {to}, which receives {} from rank {from}; in one process every send needs its receive in the same group",
                        s.len(),
                        r.len()
                    ),
                });
            }
            for (k, (a, b)) in s.iter().zip(r).enumerate() {
                if a != b {
                    return Err(Error::Shape {
                        op,
                        detail: format!(
                            "transfer {k} from rank {from} to rank {to} sends {} elements of {} but receives {} elements of {}",
                            a.0, a.1, b.0, b.1
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

/// NCCL's type for `dtype` and the number of its elements per element of
/// `dtype`; `reduce` is the reduction, or `None` for moving data.
fn wire(op: &'static str, dtype: DType, reduce: Option<ReduceOp>) -> Result<(i32, usize)> {
    use nccl_ffi::dtype as t;
    let native = match dtype {
        DType::Int8 => Some(t::INT8),
        DType::UInt8 => Some(t::UINT8),
        DType::Int32 => Some(t::INT32),
        DType::UInt32 => Some(t::UINT32),
        DType::Int64 => Some(t::INT64),
        DType::UInt64 => Some(t::UINT64),
        DType::Float16 => Some(t::FLOAT16),
        DType::BFloat16 => Some(t::BFLOAT16),
        DType::Float32 => Some(t::FLOAT32),
        DType::Float64 => Some(t::FLOAT64),
        _ => None,
    };
    if let Some(ty) = native {
        return Ok((ty, 1));
    }
    match (dtype, reduce) {
        (DType::Complex64, None | Some(ReduceOp::Sum | ReduceOp::Avg)) => Ok((t::FLOAT32, 2)),
        (DType::Complex128, None | Some(ReduceOp::Sum | ReduceOp::Avg)) => Ok((t::FLOAT64, 2)),
        (DType::Complex64 | DType::Complex128, Some(r)) => Err(Error::DType {
            op,
            detail: format!(
                "{dtype} arrays cannot be reduced with {r}: complex numbers have no order, and NCCL reduces them as pairs of floats, which is right for sum and avg only"
            ),
        }),
        (_, None) => Ok((t::UINT8, dtype.itemsize())),
        (DType::Bool, Some(r)) => Err(Error::DType {
            op,
            detail: format!(
                "bool arrays cannot be reduced with {r}: NCCL has no boolean type; cast with `.astype(cp::u8)` first (max is then logical or, min logical and)"
            ),
        }),
        (_, Some(r)) => Err(Error::DType {
            op,
            detail: format!(
                "{dtype} arrays cannot be reduced with {r}: NCCL has no 16-bit integer type; cast to int32 first"
            ),
        }),
    }
}

/// The shape of `all_gather`'s result.
fn gathered_shape(shape: &[usize], world: usize) -> Vec<usize> {
    match shape.split_first() {
        None => vec![world],
        Some((&n0, rest)) => {
            let mut s = vec![n0 * world];
            s.extend_from_slice(rest);
            s
        }
    }
}

/// The shape of `reduce_scatter`'s result, or why there is none.
fn scattered_shape(op: &'static str, shape: &[usize], world: usize) -> Result<Vec<usize>> {
    match shape.split_first() {
        None => Err(Error::Shape {
            op,
            detail: format!(
                "{op} splits axis 0 into {world} blocks, one per rank; a 0-d array has no axis 0"
            ),
        }),
        Some((&n0, rest)) if n0 % world == 0 => {
            let mut s = vec![n0 / world];
            s.extend_from_slice(rest);
            Ok(s)
        }
        Some((&n0, _)) => Err(Error::Shape {
            op,
            detail: format!(
                "{op} splits axis 0 into {world} equal blocks, one per rank (as NCCL does), but the inputs have shape {} and {n0} is not a multiple of {world}; pad axis 0",
                fmt_shape(shape)
            ),
        }),
    }
}

/// Makes GPU `ordinal`'s context the calling thread's.
fn bind(ordinal: usize) -> Result<()> {
    crate::cuda::runtime::session::session(ordinal)?.bind()
}

/// Device address of element 0 of a GPU array.
fn ptr(op: &'static str, a: &Array) -> Result<u64> {
    crate::cuda::kernel_gen::helpers::ptr(op, a)
}

fn ptrs(op: &'static str, arrays: &[Array]) -> Result<Vec<u64>> {
    arrays.iter().map(|a| ptr(op, a)).collect()
}

/// Byte range of a GPU array's elements.
fn byte_range(a: &Array) -> Option<(u64, u64)> {
    match a.storage() {
        Storage::Cuda(c) => {
            let start = c.buffer.ptr + (a.layout().offset() * a.itemsize()) as u64;
            Some((start, start + a.nbytes() as u64))
        }
        Storage::Cpu(_) => None,
    }
}

/// An output may be exactly its input (in place) where `in_place_ok`, and
/// must not overlap it otherwise.
fn check_in_place(
    op: &'static str,
    i: usize,
    input: &Array,
    output: &Array,
    in_place_ok: bool,
) -> Result<()> {
    let (Some((a0, a1)), Some((b0, b1))) = (byte_range(input), byte_range(output)) else {
        return Ok(());
    };
    if a0 >= b1 || b0 >= a1 || a0 == a1 || b0 == b1 {
        return Ok(());
    }
    if in_place_ok && a0 == b0 && a1 == b1 {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        op,
        detail: if in_place_ok {
            format!("output {i} overlaps input {i} without being the same elements; use the input itself (in place) or a separate array")
        } else {
            format!("output {i} overlaps input {i}; use a separate array")
        },
    })
}

fn not_contiguous(op: &'static str, what: &str, i: usize, a: &Array) -> Error {
    Error::InvalidArgument {
        op,
        detail: format!(
            "{what} {i} (shape {}, strides {:?}) is not C-contiguous; NCCL writes whole buffers: use a contiguous array (`.ascontiguousarray()`)",
            fmt_shape(a.shape()),
            a.strides()
        ),
    }
}

fn list_devices(devices: &[Device]) -> String {
    let v: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
    format!("[{}]", v.join(", "))
}

fn device_expr(d: Device) -> String {
    match d {
        Device::Cpu => "cp::Device::cpu()".into(),
        Device::Cuda(n) => format!("cp::Device::cuda({n})"),
    }
}

fn gpus_here() -> String {
    match device_count() {
        0 => format!(
            "this machine has no usable CUDA device ({})",
            crate::backend::probe::cuda_status().reason
        ),
        n => format!("this machine has {n} CUDA device(s)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_of_gather_and_scatter() {
        assert_eq!(gathered_shape(&[], 3), vec![3]);
        assert_eq!(gathered_shape(&[5, 2], 2), vec![10, 2]);
        assert_eq!(scattered_shape("t", &[6, 4], 3).unwrap(), vec![2, 4]);
        let e = scattered_shape("t", &[1000003], 2).unwrap_err().to_string();
        assert!(e.contains("1000003 is not a multiple of 2"), "{e}");
        assert!(scattered_shape("t", &[], 2).is_err());
    }

    #[test]
    fn wire_types() {
        use nccl_ffi::dtype as t;
        assert_eq!(
            wire("t", DType::Float32, Some(ReduceOp::Sum)).unwrap(),
            (t::FLOAT32, 1)
        );
        assert_eq!(
            wire("t", DType::BFloat16, Some(ReduceOp::Max)).unwrap(),
            (t::BFLOAT16, 1)
        );
        assert_eq!(
            wire("t", DType::Complex128, Some(ReduceOp::Avg)).unwrap(),
            (t::FLOAT64, 2)
        );
        assert_eq!(wire("t", DType::Complex64, None).unwrap(), (t::FLOAT32, 2));
        assert_eq!(wire("t", DType::Bool, None).unwrap(), (t::UINT8, 1));
        assert_eq!(wire("t", DType::Int16, None).unwrap(), (t::UINT8, 2));
        let e = wire("nccl::all_reduce", DType::Bool, Some(ReduceOp::Sum)).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("nccl::all_reduce") && text.contains("bool"),
            "{text}"
        );
        let e = wire("nccl::reduce", DType::Complex64, Some(ReduceOp::Max)).unwrap_err();
        assert!(e.to_string().contains("complex64"), "{e}");
        assert!(wire("t", DType::UInt16, Some(ReduceOp::Min)).is_err());
    }

    #[test]
    fn unique_id_text_round_trip() {
        let mut bytes = [0u8; 128];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = (i * 37 % 256) as u8;
        }
        let id = UniqueId::from_bytes(bytes);
        let text = id.to_string();
        assert_eq!(text.len(), 256);
        assert_eq!(text.parse::<UniqueId>().unwrap(), id);
        assert_eq!(UniqueId::from_hex(&format!("  {text}\n")).unwrap(), id);
        assert!(UniqueId::from_hex(&text[..254]).is_err());
        let mut bad = text.clone();
        bad.replace_range(10..12, "zz");
        let e = UniqueId::from_hex(&bad).unwrap_err().to_string();
        assert!(e.contains("\"zz\""), "{e}");
        assert!(UniqueId::from_hex(&"é".repeat(128)).is_err());
    }
}
