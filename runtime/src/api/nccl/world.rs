//! The communicator of a launched job: launcher environment, then the GPU,
//! then the rendezvous, then NCCL; and the process-wide one, [`world`].

use std::sync::Mutex;

use super::launcher::Launch;
use super::liveness::Liveness;
use super::rendezvous::{parse_nodelist, Rendezvous};
use super::{host, Backend, Communicator, UniqueId};
use crate::backend::probe::with_device;
use crate::core::device::Device;
use crate::core::error::{Error, Result};

impl Communicator {
    /// The communicator of the job this process was launched in (Slurm,
    /// Open MPI, MPICH, torchrun; see the module doc for the variables),
    /// this process being one rank on the GPU its local rank picks. Without
    /// a launcher, a world of one rank (on the CPU when there is no GPU).
    /// Prefer [`world`], which makes it once per process.
    ///
    /// ```
    /// let comm = cuprite::nccl::Communicator::from_env()?; // no launcher: one rank
    /// assert_eq!(comm.world_size(), 1);
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    pub fn from_env() -> Result<Communicator> {
        Ok(bootstrap(0)?.comm)
    }

    /// This process's rank (its first, when one process drives several GPUs).
    ///
    /// ```
    /// use cuprite as cp;
    /// let comm = cp::nccl::Communicator::init_all(&[cp::Device::cpu()])?;
    /// assert_eq!(comm.rank(), 0);
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn rank(&self) -> usize {
        match &self.backend {
            Backend::Nccl { ranks, .. } => ranks.first().map_or(0, |r| r.rank),
            Backend::Single { .. } => 0,
            Backend::Host { star } => star.rank(),
        }
    }
}

struct World {
    launch: Launch,
    comm: Communicator,
}

/// The process-wide slot (one for every copy of the crate a notebook links):
/// the current world, or why it could not be made, and how many worlds were
/// made before. A replaced world is leaked, so references to it stay valid
/// (its calls then say it was aborted).
#[derive(Default)]
struct Slot {
    current: Option<Result<&'static World>>,
    made: u32,
}

fn slot() -> &'static Mutex<Slot> {
    crate::core::global::process_global("nccl_world_slot", || Mutex::new(Slot::default()))
}

fn current(make_new: bool) -> Result<&'static World> {
    let mut s = slot().lock().unwrap_or_else(|e| e.into_inner());
    match (&s.current, make_new) {
        (Some(made), false) => made.clone(),
        (old, _) => {
            if let Some(Ok(old)) = old {
                old.comm
                    .watch
                    .abort("replaced by cp::nccl::rebuild_world()");
            }
            let generation = s.made;
            s.made += 1;
            let made = bootstrap(generation).map(|w| &*Box::leak(Box::new(w)));
            s.current = Some(made.clone());
            made
        }
    }
}

/// The communicator of this process's job, made on first use by
/// [`Communicator::from_env`] and shared by every later call and thread. A
/// failure is returned again by each later call.
///
/// ```
/// use cuprite as cp;
/// let world = cp::nccl::world()?; // without a launcher: a world of one rank
/// assert_eq!((world.rank(), world.world_size()), (0, 1));
/// # Ok::<(), cp::Error>(())
/// ```
pub fn world() -> Result<&'static Communicator> {
    Ok(&current(false)?.comm)
}

/// Makes the job's world anew (every rank must call it, as many times): after
/// a failed start, or after a call aborted the world (a time-out, a lost
/// rank, an NCCL error). The old world's communicator is aborted and refuses
/// further calls.
pub fn rebuild_world() -> Result<&'static Communicator> {
    Ok(&current(true)?.comm)
}

/// How [`world`]'s job was launched: ranks, hosts, launcher, NCCL version
/// (makes the world first if needed). Its `Display` is a one-line report.
///
/// ```
/// use cuprite as cp;
/// let launch = cp::nccl::world_launch()?;
/// println!("{launch}"); // "world of 1 on <host>, no NCCL" without a launcher
/// assert_eq!(launch.world_size, 1);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn world_launch() -> Result<&'static Launch> {
    Ok(&current(false)?.launch)
}

/// The `generation`-th world of this process (0 first): the rendezvous of
/// each rebuild is told apart from earlier ones by the generation.
fn bootstrap(generation: u32) -> Result<World> {
    const OP: &str = "nccl::world";
    let launch = Launch::from_env()?;
    // A CPU world only when asked: a GPU job that sees no GPU is an error
    // worth seeing, not a silent fall to the CPU.
    let device = if host_world_asked() {
        Device::Cpu
    } else {
        launch.device()?
    };
    let rendezvous = Rendezvous::from_env(&launch)?.for_generation(generation);
    if launch.world_size == 1 {
        let comm = Communicator::init_all(&[device])?;
        let version = nccl_version(&comm);
        return Ok(World {
            launch: launch.with_nccl_version(version),
            comm,
        });
    }
    if device == Device::Cpu || host_world_asked() {
        return bootstrap_host(launch, &rendezvous);
    }
    // Rank 0 makes the id on its own GPU: NCCL opens its listening socket then.
    let (shared, links) = with_device(device, || {
        rendezvous.share_linked(&launch, || Ok(UniqueId::new()?.as_bytes().to_vec()))
    })?;
    let liveness = links.map(Liveness::watch);
    let bytes: [u8; 128] =
        shared
            .payload
            .as_slice()
            .try_into()
            .map_err(|_| Error::InvalidArgument {
                op: OP,
                detail: format!(
                    "rank 0 sent {} bytes, not a 128-byte NCCL unique id",
                    shared.payload.len()
                ),
            })?;
    let id = UniqueId::from_bytes(bytes);
    let comm = with_device(device, || {
        Communicator::from_rank_watched(launch.world_size, launch.rank, &id, liveness)
    })?;
    let hosts = if shared.hosts.is_empty() {
        listed_hosts()
    } else {
        shared.hosts
    };
    let version = nccl_version(&comm);
    Ok(World {
        launch: launch.with_hosts(hosts).with_nccl_version(version),
        comm,
    })
}

/// `CUPRITE_COMM=host`: ranks on the CPU even where GPUs are (tests of the
/// CPU path on a GPU machine; every rank must set it).
fn host_world_asked() -> bool {
    std::env::var("CUPRITE_COMM").is_ok_and(|v| v.trim().eq_ignore_ascii_case("host"))
}

/// A world of processes on the CPU: rank 0 opens a port and shares it
/// through the rendezvous; the others connect to it (`host.rs`).
fn bootstrap_host(launch: Launch, rendezvous: &Rendezvous) -> Result<World> {
    const OP: &str = "nccl::world";
    let limit = super::wait::default_timeout();
    let listener = match launch.rank {
        0 => Some(host::Star::listen(OP)?),
        _ => None,
    };
    let port = match &listener {
        Some(l) => l.local_addr().map(|a| a.port()).map_err(|e| Error::Nccl {
            op: OP,
            detail: format!("rank 0's TCP port: {e}"),
        })?,
        None => 0,
    };
    let (shared, _rendezvous_links) =
        rendezvous.share_linked(&launch, || Ok(host::address_payload(launch.host(), port)))?;
    let star = match listener {
        Some(l) => host::Star::serve(OP, l, launch.world_size, limit)?,
        None => {
            let (named_host, port) = host::parse_address(OP, &shared.payload)?;
            // The address the members already reached rank 0 at, when TCP.
            let host = match rendezvous {
                Rendezvous::Tcp { host, .. } => host.clone(),
                _ => named_host,
            };
            host::Star::join(OP, &host, port, launch.rank, launch.world_size, limit)?
        }
    };
    let comm = Communicator::with_backend(Backend::Host { star }, launch.world_size, false, None);
    let hosts = if shared.hosts.is_empty() {
        listed_hosts()
    } else {
        shared.hosts
    };
    Ok(World {
        launch: launch.with_hosts(hosts),
        comm,
    })
}

fn nccl_version(comm: &Communicator) -> Option<(u32, u32, u32)> {
    match &comm.backend {
        Backend::Nccl { api, .. } => Some(api.version()),
        Backend::Single { .. } | Backend::Host { .. } => None,
    }
}

/// Slurm's node list, when the rendezvous could not collect the hosts.
fn listed_hosts() -> Vec<String> {
    ["SLURM_JOB_NODELIST", "SLURM_NODELIST"]
        .iter()
        .find_map(|v| parse_nodelist(&std::env::var(v).ok()?).ok())
        .unwrap_or_default()
}
