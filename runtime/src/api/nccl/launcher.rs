//! Which rank this process is, read from the launcher's environment
//! (Slurm's `srun`, Open MPI's `mpirun`, MPICH's Hydra, `torchrun`), and
//! which GPU it takes.

use std::fmt;

use crate::backend::probe::device_count;

use crate::core::device::Device;
use crate::core::error::{Error, Result};

/// The launcher variables of one kind of launcher: the first variable of
/// each list that is set gives the value.
struct Source {
    launcher: &'static str,
    rank: &'static [&'static str],
    size: &'static [&'static str],
    local_rank: &'static [&'static str],
}

/// Launchers in the order they are tried. A launcher started inside
/// another (torchrun or mpirun inside a Slurm allocation, whose batch step
/// already has `SLURM_PROCID=0`) sets its own variables, so the innermost
/// kinds come first.
const SOURCES: [Source; 5] = [
    Source {
        launcher: "torchrun",
        rank: &["RANK"],
        size: &["WORLD_SIZE"],
        local_rank: &["LOCAL_RANK"],
    },
    Source {
        launcher: "openmpi",
        rank: &["OMPI_COMM_WORLD_RANK"],
        size: &["OMPI_COMM_WORLD_SIZE"],
        local_rank: &["OMPI_COMM_WORLD_LOCAL_RANK"],
    },
    Source {
        launcher: "mpich",
        rank: &["PMI_RANK"],
        size: &["PMI_SIZE"],
        local_rank: &["MPI_LOCALRANKID"],
    },
    Source {
        launcher: "slurm",
        rank: &["SLURM_PROCID"],
        size: &["SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"],
        local_rank: &["SLURM_LOCALID"],
    },
    Source {
        launcher: "pmix",
        rank: &["PMIX_RANK"],
        size: &["OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"],
        local_rank: &["OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"],
    },
];

/// This process's place in a job started by a launcher: rank, world size,
/// rank on its node, the launcher's name, and once the ranks have met
/// ([`crate::nccl::world`]), every rank's host.
///
/// ```
/// use cuprite as cp;
/// let env = [("SLURM_PROCID", "1"), ("SLURM_NTASKS", "4"), ("SLURM_LOCALID", "1")];
/// let l = cp::nccl::Launch::from_lookup(|k| {
///     env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
/// })?;
/// assert_eq!((l.rank, l.world_size, l.local_rank, l.launcher), (1, 4, 1, "slurm"));
/// # Ok::<(), cp::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// This process's rank, `0..world_size`.
    pub rank: usize,
    /// Number of processes (ranks) in the job.
    pub world_size: usize,
    /// This process's rank among those on its node (picks its GPU).
    pub local_rank: usize,
    /// `slurm`, `openmpi`, `mpich`, `pmix`, `torchrun`, or `none` (a world of 1).
    pub launcher: &'static str,
    host: String,
    hosts: Vec<String>,
    nccl_version: Option<(u32, u32, u32)>,
}

impl Launch {
    /// The launch read from this process's environment.
    ///
    /// ```
    /// let launch = cuprite::nccl::Launch::from_env()?;
    /// assert!(launch.rank < launch.world_size);
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    pub fn from_env() -> Result<Launch> {
        Launch::from_lookup(|name| std::env::var(name).ok())
    }

    /// The launch read through `lookup` (a variable's name to its value),
    /// trying torchrun, Open MPI, MPICH/Hydra, Slurm and PMIx in that order;
    /// a world of 1 when none is set. Values that are not numbers, a world of
    /// 0, or a rank outside the world are errors naming the variable.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Launch> {
        let host = this_host();
        let Some((source, rank_var, rank_text)) = SOURCES.iter().find_map(|s| {
            let (var, value) = first_set(&lookup, s.rank)?;
            Some((s, var, value))
        }) else {
            return Ok(Launch::single(host));
        };
        let rank = number(rank_var, &rank_text)?;
        let Some((size_var, size_text)) = first_set(&lookup, source.size) else {
            return Err(bad(format!(
                "{rank_var}={rank_text} says {} started this process, but {} is not set, so the world size is unknown",
                source.launcher,
                source.size.join(" or ")
            )));
        };
        let world_size = number(size_var, &size_text)?;
        if world_size == 0 {
            return Err(bad(format!(
                "{size_var}=0: a world needs at least one rank"
            )));
        }
        if rank >= world_size {
            return Err(bad(format!(
                "{rank_var}={rank} is not a rank of a world of {size_var}={world_size} (ranks 0 to {})",
                world_size - 1
            )));
        }
        // Without a local rank, ranks are taken to fill nodes in order.
        let local_rank = match first_set(&lookup, source.local_rank) {
            Some((var, text)) => {
                let local = number(var, &text)?;
                if local >= world_size {
                    return Err(bad(format!(
                        "{var}={local} is not below the world size {size_var}={world_size}"
                    )));
                }
                local
            }
            None => rank,
        };
        Ok(Launch {
            rank,
            world_size,
            local_rank,
            launcher: source.launcher,
            hosts: vec![host.clone()],
            host,
            nccl_version: None,
        })
    }

    fn single(host: String) -> Launch {
        Launch {
            rank: 0,
            world_size: 1,
            local_rank: 0,
            launcher: "none",
            hosts: vec![host.clone()],
            host,
            nccl_version: None,
        }
    }

    /// The device this rank runs on, given the visible GPUs (CUDA applies
    /// `CUDA_VISIBLE_DEVICES` before counting them); see [`choose_device`].
    ///
    /// ```
    /// use cuprite as cp;
    /// let one = cp::nccl::Launch::from_lookup(|_| None)?; // no launcher
    /// let want = if cp::device_count() > 0 { cp::Device::cuda(0) } else { cp::Device::cpu() };
    /// assert_eq!(one.device()?, want);
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn device(&self) -> Result<Device> {
        choose_device(self.local_rank, self.world_size, device_count())
    }

    /// The host name of this process.
    ///
    /// ```
    /// let launch = cuprite::nccl::Launch::from_lookup(|_| None)?;
    /// assert_eq!(launch.hosts(), [launch.host()]); // a world of 1: this host
    /// assert_eq!((launch.launcher, launch.nccl_version()), ("none", None));
    /// # Ok::<(), cuprite::Error>(())
    /// ```
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The host of each rank, in rank order, once the ranks have met through
    /// the TCP rendezvous; otherwise the hosts the launcher lists (Slurm's
    /// node list) or just this host.
    pub fn hosts(&self) -> &[String] {
        &self.hosts
    }

    /// NCCL's version when the world uses NCCL (a world of 1 does not).
    pub fn nccl_version(&self) -> Option<(u32, u32, u32)> {
        self.nccl_version
    }

    pub(crate) fn with_hosts(mut self, hosts: Vec<String>) -> Launch {
        if !hosts.is_empty() {
            self.hosts = hosts;
        }
        self
    }

    pub(crate) fn with_nccl_version(mut self, version: Option<(u32, u32, u32)>) -> Launch {
        self.nccl_version = version;
        self
    }
}

impl fmt::Display for Launch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.world_size == 1 && self.nccl_version.is_none() {
            return write!(f, "world of 1 on {}, no NCCL", self.host);
        }
        let mut distinct: Vec<&str> = Vec::new();
        for h in &self.hosts {
            if !distinct.contains(&h.as_str()) {
                distinct.push(h);
            }
        }
        write!(
            f,
            "world of {} rank{} ({}) on {} host(s): {}; this process: rank {} (local rank {}) on {}",
            self.world_size,
            if self.world_size == 1 { "" } else { "s" },
            self.launcher,
            distinct.len(),
            distinct.join(", "),
            self.rank,
            self.local_rank,
            self.host
        )?;
        match self.nccl_version {
            Some((a, b, c)) => write!(f, "; NCCL {a}.{b}.{c}"),
            None => f.write_str("; no NCCL"),
        }
    }
}

/// The GPU of the rank with local rank `local_rank` in a world of
/// `world_size` when `visible` GPUs are visible: the only one when there is
/// one (Slurm's `--gpus-per-task` gives each rank its own), else
/// `local_rank % visible`; the CPU for a world of 1 without a GPU; an error
/// for a larger world without one.
///
/// ```
/// use cuprite as cp;
/// use cp::nccl::choose_device;
/// assert_eq!(choose_device(3, 8, 1)?, cp::Device::cuda(0));
/// assert_eq!(choose_device(5, 8, 4)?, cp::Device::cuda(1));
/// assert_eq!(choose_device(0, 1, 0)?, cp::Device::cpu());
/// assert!(choose_device(1, 2, 0).is_err());
/// # Ok::<(), cp::Error>(())
/// ```
pub fn choose_device(local_rank: usize, world_size: usize, visible: usize) -> Result<Device> {
    match visible {
        0 if world_size == 1 => Ok(Device::Cpu),
        0 => Err(Error::NeedsCuda {
            op: "nccl::Launch::device",
            reason: format!(
                "local rank {local_rank} of a world of {world_size} needs a GPU, and this process sees none ({}); for a world of CPU processes set CUPRITE_COMM=host on every rank",
                crate::backend::probe::cuda_status().reason
            ),
        }),
        1 => Ok(Device::Cuda(0)),
        n => Ok(Device::Cuda(local_rank % n)),
    }
}

/// The first variable of `names` that is set, and its value.
pub(crate) fn first_set(
    lookup: &impl Fn(&str) -> Option<String>,
    names: &[&'static str],
) -> Option<(&'static str, String)> {
    names
        .iter()
        .find_map(|&n| lookup(n).map(|v| (n, v.trim().to_string())))
}

/// `text`, the value of `var`, as a non-negative integer.
pub(crate) fn number(var: &str, text: &str) -> Result<usize> {
    text.trim()
        .parse::<usize>()
        .map_err(|_| bad(format!("{var}={text:?} is not a non-negative integer")))
}

fn bad(detail: String) -> Error {
    Error::InvalidArgument {
        op: "nccl::Launch",
        detail,
    }
}

/// This machine's host name (`gethostname`), or `localhost`.
pub(crate) fn this_host() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: a writable buffer of the length passed.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    match std::str::from_utf8(&buf[..end]) {
        Ok(name) if rc == 0 && !name.is_empty() => name.to_string(),
        _ => "localhost".to_string(),
    }
}
