//! How the ranks of a job get rank 0's bytes (NCCL's 128-byte unique id)
//! before NCCL can connect them: over TCP to rank 0, or through a file on a
//! shared filesystem. Generic over the bytes, so it is tested without NCCL.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::launcher::{first_set, number, Launch};
use super::liveness::{Links, Liveness};
use crate::core::error::{Error, Result};

const OP: &str = "nccl::rendezvous";

/// Seconds every rank waits for the others unless `CUPRITE_NCCL_TIMEOUT` says.
pub const DEFAULT_TIMEOUT_S: f64 = 120.0;

/// rank 0's port when `MASTER_PORT` is unset and Slurm gives no job id (torchrun's default).
pub const DEFAULT_PORT: u16 = 29500;

/// How long a rank that reached rank 0 waits past its own time-out for rank
/// 0's verdict (rank 0 tells it why it gave up).
const VERDICT_GRACE: Duration = Duration::from_secs(5);

/// How long rank 0 gives one connection to introduce itself.
const HELLO_LIMIT: Duration = Duration::from_secs(5);

const MAGIC: &[u8; 4] = b"CPRV";
const VERSION: u16 = 1;
const FILE_HEADER: &str = "cuprite-nccl-rendezvous 1";

/// Where the ranks meet, read from the environment with
/// [`Rendezvous::from_lookup`].
#[derive(Debug, Clone, PartialEq)]
pub enum Rendezvous {
    /// A world of 1: nothing to share.
    Alone,
    /// Rank 0 listens on `port` (all interfaces); the others connect to
    /// `host:port`.
    Tcp {
        /// Rank 0's host, as the other ranks reach it.
        host: String,
        /// The port rank 0 listens on.
        port: u16,
        /// How long every rank waits.
        timeout: Duration,
    },
    /// Rank 0 writes the bytes to `path` (written to a temporary name, then
    /// renamed); the others wait for a file of their job.
    File {
        /// The file, on a filesystem every rank sees.
        path: PathBuf,
        /// The job's identity written in the file (empty when unknown).
        tag: String,
        /// How long the other ranks wait.
        timeout: Duration,
    },
}

/// What the rendezvous gives every rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shared {
    /// Rank 0's bytes.
    pub payload: Vec<u8>,
    /// Each rank's host name in rank order (TCP), or empty (file).
    pub hosts: Vec<String>,
}

impl Rendezvous {
    /// The rendezvous that this process's environment describes for `launch`.
    ///
    /// ```
    /// use cuprite as cp;
    /// let one = cp::nccl::Launch::from_lookup(|_| None)?;
    /// assert_eq!(cp::nccl::Rendezvous::from_env(&one)?, cp::nccl::Rendezvous::Alone);
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn from_env(launch: &Launch) -> Result<Rendezvous> {
        Rendezvous::from_lookup(launch, |name| std::env::var(name).ok())
    }

    /// The rendezvous described through `lookup` for `launch`:
    /// `CUPRITE_NCCL_ID_FILE` (a file), else TCP to `MASTER_ADDR` or the
    /// first host of `SLURM_JOB_NODELIST`, on `MASTER_PORT` or
    /// `20000 + SLURM_JOB_ID % 20000` or 29500; waiting
    /// `CUPRITE_NCCL_TIMEOUT` seconds (default 120).
    ///
    /// ```
    /// use cuprite as cp;
    /// use cp::nccl::{Launch, Rendezvous};
    /// let env = [
    ///     ("SLURM_PROCID", "0"), ("SLURM_NTASKS", "8"),
    ///     ("SLURM_JOB_NODELIST", "gpu[07-08]"), ("SLURM_JOB_ID", "123456"),
    /// ];
    /// let get = |k: &str| env.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string());
    /// let launch = Launch::from_lookup(get)?;
    /// match Rendezvous::from_lookup(&launch, get)? {
    ///     Rendezvous::Tcp { host, port, .. } => assert_eq!((host.as_str(), port), ("gpu07", 23456)),
    ///     other => panic!("{other:?}"),
    /// }
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn from_lookup(
        launch: &Launch,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Rendezvous> {
        if launch.world_size == 1 {
            return Ok(Rendezvous::Alone);
        }
        let timeout = timeout_from(&lookup)?;
        if let Some((_, path)) = first_set(&lookup, &["CUPRITE_NCCL_ID_FILE"]) {
            return Ok(Rendezvous::File {
                path: PathBuf::from(path),
                tag: job_tag(&lookup),
                timeout,
            });
        }
        let host = match first_set(&lookup, &["MASTER_ADDR"]) {
            Some((_, host)) => host,
            None => match first_set(&lookup, &["SLURM_JOB_NODELIST", "SLURM_NODELIST"]) {
                Some((var, list)) => first_host(&list)
                    .map_err(|e| bad(format!("{var}={list:?}: {e}")))?,
                None => {
                    return Err(bad(format!(
                        "rank {} of {} ({}) does not know where to meet rank 0: set MASTER_ADDR and MASTER_PORT (rank 0's host and a free port) or CUPRITE_NCCL_ID_FILE (a path every rank sees)",
                        launch.rank, launch.world_size, launch.launcher
                    )))
                }
            },
        };
        let port = match first_set(&lookup, &["MASTER_PORT"]) {
            Some((var, text)) => match number(var, &text)? {
                p @ 1..=65535 => p as u16,
                p => return Err(bad(format!("{var}={p} is not a TCP port (1 to 65535)"))),
            },
            None => match first_set(&lookup, &["SLURM_JOB_ID"]) {
                Some((var, id)) => slurm_port(number(var, &id)?),
                None => DEFAULT_PORT,
            },
        };
        Ok(Rendezvous::Tcp {
            host,
            port,
            timeout,
        })
    }

    /// Gives every rank rank 0's bytes: rank 0 calls `make` and shares what
    /// it returns; the others return what they received. Fails, never hangs,
    /// when a rank is missing after the time-out.
    ///
    /// ```
    /// use cuprite as cp;
    /// use cp::nccl::{Launch, Rendezvous};
    /// let one = Launch::from_lookup(|_| None)?; // a world of 1 keeps its own bytes
    /// let shared = Rendezvous::Alone.share(&one, || Ok(vec![1, 2, 3]))?;
    /// assert_eq!(shared.payload, [1, 2, 3]);
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn share(&self, launch: &Launch, make: impl FnOnce() -> Result<Vec<u8>>) -> Result<Shared> {
        Ok(self.share_linked(launch, make)?.0)
    }

    /// As [`Rendezvous::share`], then keeps watching which ranks' processes
    /// end, through the TCP connections of the meeting (a file rendezvous
    /// has none: its watch never reports a rank).
    ///
    /// ```
    /// use cuprite as cp;
    /// let one = cp::nccl::Launch::from_lookup(|_| None)?;
    /// let (shared, watch) = cp::nccl::Rendezvous::Alone.share_watched(&one, || Ok(vec![7]))?;
    /// assert_eq!((shared.payload, watch.lost_ranks()), (vec![7], vec![]));
    /// # Ok::<(), cp::Error>(())
    /// ```
    pub fn share_watched(
        &self,
        launch: &Launch,
        make: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<(Shared, PeerWatch)> {
        let (shared, links) = self.share_linked(launch, make)?;
        Ok((shared, PeerWatch(links.map(Liveness::watch))))
    }

    /// As [`Rendezvous::share`], also returning the TCP connections (kept
    /// open to learn when a rank's process ends; none for a file).
    pub(crate) fn share_linked(
        &self,
        launch: &Launch,
        make: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<(Shared, Option<Links>)> {
        match self {
            Rendezvous::Alone => Ok((
                Shared {
                    payload: make()?,
                    hosts: vec![launch.host().to_string()],
                },
                None,
            )),
            Rendezvous::Tcp {
                host,
                port,
                timeout,
            } => {
                let meeting = Meeting {
                    addr: format!("{host}:{port}"),
                    launch,
                    timeout: *timeout,
                    deadline: Instant::now() + *timeout,
                };
                if launch.rank == 0 {
                    let payload = make()?;
                    let (hosts, peers) = meeting.serve(*port, &payload)?;
                    Ok((Shared { payload, hosts }, Some(Links::Root(peers))))
                } else {
                    let (shared, stream) = meeting.join()?;
                    Ok((shared, Some(Links::Member(stream))))
                }
            }
            Rendezvous::File { path, tag, timeout } => {
                let payload = if launch.rank == 0 {
                    let payload = make()?;
                    write_id_file(path, tag, launch.world_size, &payload)?;
                    payload
                } else {
                    wait_for_id_file(path, tag, launch, *timeout)?
                };
                Ok((
                    Shared {
                        payload,
                        hosts: Vec::new(),
                    },
                    None,
                ))
            }
        }
    }
}

impl Rendezvous {
    /// The rendezvous of the `generation`-th world of this process (0 for
    /// the first; later ones come from `rebuild_world`): an id file of an
    /// earlier world of the same job is not taken for a later one.
    pub(crate) fn for_generation(self, generation: u32) -> Rendezvous {
        match self {
            Rendezvous::File { path, tag, timeout } if generation > 0 => Rendezvous::File {
                path,
                tag: format!("{tag}#world{generation}"),
                timeout,
            },
            other => other,
        }
    }
}

/// The ranks of a job whose processes ended since the rendezvous (see
/// [`Rendezvous::share_watched`]); communicators of launched jobs use the
/// same watch to fail a call that waits on a lost rank.
pub struct PeerWatch(Option<std::sync::Arc<Liveness>>);

impl PeerWatch {
    /// The ranks known to have ended, with how it was learnt, by rank.
    pub fn lost_ranks(&self) -> Vec<(usize, String)> {
        self.0
            .as_ref()
            .map(|l| l.lost().into_iter().map(|(r, _, how)| (r, how)).collect())
            .unwrap_or_default()
    }
}

/// rank 0's port for Slurm job `job_id` when `MASTER_PORT` is unset:
/// `20000 + job_id % 20000`, so concurrent jobs sharing a node rarely collide.
///
/// ```
/// assert_eq!(cuprite::nccl::slurm_port(123456), 23456);
/// ```
pub fn slurm_port(job_id: usize) -> u16 {
    (20000 + job_id % 20000) as u16
}

/// The wait from `CUPRITE_NCCL_TIMEOUT` (seconds, > 0), else 120 s.
fn timeout_from(lookup: &impl Fn(&str) -> Option<String>) -> Result<Duration> {
    let Some((var, text)) = first_set(lookup, &["CUPRITE_NCCL_TIMEOUT"]) else {
        return Ok(Duration::from_secs_f64(DEFAULT_TIMEOUT_S));
    };
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && s < 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => Err(bad(format!(
            "{var}={text:?} is not a positive number of seconds"
        ))),
    }
}

/// The job's identity, which the id file carries so that a file left by
/// an earlier job is not taken: `CUPRITE_NCCL_JOB`, else Slurm's job and
/// step, else torchrun's run id, else the PMIx namespace; empty when none.
fn job_tag(lookup: &impl Fn(&str) -> Option<String>) -> String {
    if let Some((_, tag)) = first_set(lookup, &["CUPRITE_NCCL_JOB"]) {
        return tag;
    }
    if let Some((_, job)) = first_set(lookup, &["SLURM_JOB_ID"]) {
        return match first_set(lookup, &["SLURM_STEP_ID", "SLURM_STEPID"]) {
            Some((_, step)) => format!("slurm-{job}.{step}"),
            None => format!("slurm-{job}"),
        };
    }
    first_set(lookup, &["TORCHELASTIC_RUN_ID", "PMIX_NAMESPACE"])
        .map(|(var, v)| format!("{var}={v}"))
        .unwrap_or_default()
}

fn bad(detail: String) -> Error {
    Error::InvalidArgument { op: OP, detail }
}

/// "120 s", "2.5 s".
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s:.1} s")
    }
}

/// "2, 3".
fn list_ranks(ranks: &[usize]) -> String {
    ranks
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

// ---- TCP ------------------------------------------------------------------

/// An open connection of rank 0 to another rank, and that rank.
type Peer = (TcpStream, usize);

struct Meeting<'a> {
    addr: String,
    launch: &'a Launch,
    timeout: Duration,
    deadline: Instant,
}

/// Rank 0's answer to one rank.
enum Verdict {
    Welcome {
        payload: Vec<u8>,
        hosts: Vec<String>,
    },
    Refused(String),
}

impl Meeting<'_> {
    /// Rank 0: waits for every other rank, then answers each with `payload`
    /// and the ranks' hosts; returns the hosts and the open connections.
    fn serve(&self, port: u16, payload: &[u8]) -> Result<(Vec<String>, Vec<Peer>)> {
        let world = self.launch.world_size;
        let listener = listen(&self.addr, port)?;
        let mut hosts: Vec<Option<String>> = vec![None; world];
        hosts[0] = Some(self.launch.host().to_string());
        let mut peers: Vec<Peer> = Vec::with_capacity(world - 1);
        let mut refused: Vec<String> = Vec::new();
        while peers.len() + 1 < world && Instant::now() < self.deadline {
            match listener.accept() {
                Ok((stream, from)) => match self.greet(stream, from, &hosts) {
                    Ok((stream, rank, host)) => {
                        hosts[rank] = Some(host);
                        peers.push((stream, rank));
                    }
                    Err(why) => refused.push(why),
                },
                Err(e)
                    if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted =>
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(bad(format!("rank 0 listening on {}: {e}", self.addr))),
            }
        }
        let missing: Vec<usize> = (1..world).filter(|&r| hosts[r].is_none()).collect();
        if !missing.is_empty() {
            let mut why = format!(
                "rank{} {} of {world} did not connect to {} within {}",
                if missing.len() == 1 { "" } else { "s" },
                list_ranks(&missing),
                self.addr,
                seconds(self.timeout)
            );
            if !refused.is_empty() {
                why.push_str(&format!("; refused: {}", refused.join("; ")));
            }
            for (mut stream, _) in peers {
                let _ = send(
                    &mut stream,
                    &Verdict::Refused(format!("rank 0 gave up: {why}")),
                );
            }
            return Err(bad(why));
        }
        let hosts: Vec<String> = hosts.into_iter().map(Option::unwrap_or_default).collect();
        let welcome = Verdict::Welcome {
            payload: payload.to_vec(),
            hosts: hosts.clone(),
        };
        for (stream, rank) in peers.iter_mut() {
            send(stream, &welcome).map_err(|e| {
                bad(format!(
                    "rank 0 answering rank {rank} on {}: {e}",
                    self.addr
                ))
            })?;
        }
        Ok((hosts, peers))
    }

    /// Reads one rank's hello; a stranger, a rank of another world size or
    /// a rank already present is refused (and told why).
    fn greet(
        &self,
        mut stream: TcpStream,
        from: SocketAddr,
        hosts: &[Option<String>],
    ) -> std::result::Result<(TcpStream, usize, String), String> {
        let world = self.launch.world_size;
        // A rank arriving just before the deadline still gets to say hello.
        let limit = (Instant::now() + HELLO_LIMIT).min(self.deadline + Duration::from_secs(1));
        let hello = stream
            .set_nonblocking(false)
            .and_then(|_| read_hello(&mut stream, limit));
        let refuse = |stream: &mut TcpStream, why: String| {
            let _ = send(
                stream,
                &Verdict::Refused(format!("rank 0 at {} refused: {why}", self.addr)),
            );
            close_gently(stream);
            why
        };
        match hello {
            Err(e) => Err(refuse(&mut stream, format!("a peer at {from} sent no valid hello ({e})"))),
            Ok(h) if h.world != world => Err(refuse(
                &mut stream,
                format!(
                    "rank {} on {} says the world has {} ranks, rank 0 says {world} (were the ranks started with different world sizes?)",
                    h.rank, h.host, h.world
                ),
            )),
            Ok(h) if h.rank == 0 || h.rank >= world => Err(refuse(
                &mut stream,
                format!("a peer on {} says it is rank {}, not a rank 1 to {} of this world", h.host, h.rank, world - 1),
            )),
            Ok(h) if hosts[h.rank].is_some() => Err(refuse(
                &mut stream,
                format!("rank {} connected twice (from {} and {})", h.rank, hosts[h.rank].as_deref().unwrap_or("?"), h.host),
            )),
            Ok(h) => Ok((stream, h.rank, h.host)),
        }
    }

    /// Any other rank: connects to rank 0 (retrying until the time-out),
    /// introduces itself and waits for the bytes.
    fn join(&self) -> Result<(Shared, TcpStream)> {
        let (rank, world) = (self.launch.rank, self.launch.world_size);
        let who = format!("rank {rank} of {world}");
        let mut last = String::from("no attempt");
        while Instant::now() < self.deadline {
            match self.connect() {
                Ok(mut stream) => {
                    let hello = hello_bytes(world, rank, self.launch.host());
                    if let Err(e) = stream.write_all(&hello) {
                        last = format!("sending to rank 0: {e}");
                    } else {
                        match read_verdict(&mut stream, self.deadline + VERDICT_GRACE) {
                            Ok(Verdict::Welcome { payload, hosts }) => {
                                return Ok((Shared { payload, hosts }, stream))
                            }
                            Ok(Verdict::Refused(why)) => return Err(bad(format!("{who}: {why}"))),
                            Err(e) if is_timeout(&e) => {
                                return Err(bad(format!(
                                    "{who} reached rank 0 at {} but it did not answer within {} (are all ranks started?)",
                                    self.addr,
                                    seconds(self.timeout)
                                )))
                            }
                            // A closed connection: a listener of something else, or rank 0 restarting.
                            Err(e) => last = format!("rank 0 closed the connection: {e}"),
                        }
                    }
                }
                Err(e) => last = e,
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(bad(format!(
            "{who} could not reach rank 0 at {} within {} (last error: {last})",
            self.addr,
            seconds(self.timeout)
        )))
    }

    fn connect(&self) -> std::result::Result<TcpStream, String> {
        let addrs: Vec<SocketAddr> = self
            .addr
            .to_socket_addrs()
            .map_err(|e| format!("resolving {}: {e}", self.addr))?
            .collect();
        let mut last = format!("{} resolves to no address", self.addr);
        for a in addrs {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let wait = left.clamp(Duration::from_millis(10), Duration::from_secs(2));
            match TcpStream::connect_timeout(&a, wait).and_then(refuse_self_connection) {
                Ok(s) => return Ok(s),
                Err(e) => last = format!("connecting to {a}: {e}"),
            }
        }
        Err(last)
    }
}

/// Turns a connection of a socket to itself into "refused". Connecting over
/// and over to a local port that nobody listens on yet (rank 0 still
/// starting) can be given that same port as the source port, and TCP then
/// connects the socket to itself; the rank would greet itself, and rank 0
/// could no longer listen on its port ("Address already in use").
pub(super) fn refuse_self_connection(stream: TcpStream) -> std::io::Result<TcpStream> {
    if stream.local_addr()? == stream.peer_addr()? {
        return Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "connected to itself (nobody listens on the port yet)",
        ));
    }
    Ok(stream)
}

/// A non-blocking listener on every interface at `port`, of the address
/// family `addr` resolves to (binding the name itself can pick a loopback
/// address that other hosts cannot reach).
fn listen(addr: &str, port: u16) -> Result<TcpListener> {
    let v6_only = addr
        .to_socket_addrs()
        .map(|mut a| a.all(|a| a.is_ipv6()))
        .unwrap_or(false);
    let any = if v6_only { "[::]" } else { "0.0.0.0" };
    let listener = TcpListener::bind(format!("{any}:{port}")).map_err(|e| {
        bad(format!(
            "rank 0 cannot listen on port {port} (for {addr}): {e}; set MASTER_PORT to a free port"
        ))
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| bad(format!("rank 0 listening on {addr}: {e}")))?;
    Ok(listener)
}

struct Hello {
    world: usize,
    rank: usize,
    host: String,
}

fn hello_bytes(world: usize, rank: usize, host: &str) -> Vec<u8> {
    let mut m = Vec::with_capacity(20 + host.len());
    m.extend_from_slice(MAGIC);
    m.extend_from_slice(&VERSION.to_be_bytes());
    m.extend_from_slice(&(world as u32).to_be_bytes());
    m.extend_from_slice(&(rank as u32).to_be_bytes());
    put_text(&mut m, host);
    m
}

fn read_hello(stream: &mut TcpStream, deadline: Instant) -> std::io::Result<Hello> {
    let mut r = Reader { stream, deadline };
    r.header()?;
    let world = r.u32()? as usize;
    let rank = r.u32()? as usize;
    let host = r.text()?;
    Ok(Hello { world, rank, host })
}

fn send(stream: &mut TcpStream, verdict: &Verdict) -> std::io::Result<()> {
    let mut m = Vec::new();
    m.extend_from_slice(MAGIC);
    m.extend_from_slice(&VERSION.to_be_bytes());
    match verdict {
        Verdict::Welcome { payload, hosts } => {
            m.push(0);
            m.extend_from_slice(&(payload.len() as u32).to_be_bytes());
            m.extend_from_slice(payload);
            m.extend_from_slice(&(hosts.len() as u32).to_be_bytes());
            for h in hosts {
                put_text(&mut m, h);
            }
        }
        Verdict::Refused(why) => {
            m.push(1);
            put_text(&mut m, why);
        }
    }
    stream.set_nonblocking(false)?;
    stream.set_write_timeout(Some(HELLO_LIMIT))?;
    stream.write_all(&m)?;
    stream.flush()
}

/// Ends a connection whose peer may have sent more than was read: closing
/// with unread input would reset it and could destroy the answer in flight.
fn close_gently(stream: &mut TcpStream) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut sink = [0u8; 4096];
    for _ in 0..16 {
        match stream.read(&mut sink) {
            Ok(k) if k > 0 => {}
            _ => break,
        }
    }
}

fn read_verdict(stream: &mut TcpStream, deadline: Instant) -> std::io::Result<Verdict> {
    let mut r = Reader { stream, deadline };
    r.header()?;
    match r.bytes(1)?[0] {
        0 => {
            let n = r.u32()? as usize;
            let payload = r.bytes(n)?;
            let count = r.u32()? as usize;
            let hosts = (0..count)
                .map(|_| r.text())
                .collect::<std::io::Result<_>>()?;
            Ok(Verdict::Welcome { payload, hosts })
        }
        1 => Ok(Verdict::Refused(r.text()?)),
        k => Err(invalid(format!("unknown answer kind {k}"))),
    }
}

/// Text as a 16-bit length and UTF-8 bytes (cut at 4 KiB).
fn put_text(m: &mut Vec<u8>, text: &str) {
    let mut end = text.len().min(4096);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    m.extend_from_slice(&(end as u16).to_be_bytes());
    m.extend_from_slice(&text.as_bytes()[..end]);
}

/// Reads fields of a message, each read waiting at most until `deadline`.
struct Reader<'s> {
    stream: &'s mut TcpStream,
    deadline: Instant,
}

/// The most bytes one field may announce (a stray peer's garbage must not
/// make rank 0 allocate gigabytes).
const MAX_FIELD: usize = 1 << 20;

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> std::io::Result<Vec<u8>> {
        if n > MAX_FIELD {
            return Err(invalid(format!("a field of {n} bytes is too long")));
        }
        let mut buf = vec![0u8; n];
        let mut got = 0;
        while got < n {
            let left = self.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ErrorKind::TimedOut.into());
            }
            self.stream.set_read_timeout(Some(left))?;
            match self.stream.read(&mut buf[got..]) {
                Ok(0) => return Err(ErrorKind::UnexpectedEof.into()),
                Ok(k) => got += k,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(buf)
    }

    fn u32(&mut self) -> std::io::Result<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn text(&mut self) -> std::io::Result<String> {
        let b = self.bytes(2)?;
        let n = u16::from_be_bytes([b[0], b[1]]) as usize;
        String::from_utf8(self.bytes(n)?).map_err(|_| invalid("text is not UTF-8".into()))
    }

    /// The magic and a version this build speaks.
    fn header(&mut self) -> std::io::Result<()> {
        let b = self.bytes(6)?;
        if &b[..4] != MAGIC {
            return Err(invalid(
                "not a Cuprite rendezvous message (another program on that port?)".into(),
            ));
        }
        let version = u16::from_be_bytes([b[4], b[5]]);
        if version != VERSION {
            return Err(invalid(format!(
                "rendezvous protocol version {version}, this build speaks {VERSION} (mixed Cuprite versions?)"
            )));
        }
        Ok(())
    }
}

fn invalid(why: String) -> std::io::Error {
    std::io::Error::new(ErrorKind::InvalidData, why)
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::TimedOut | ErrorKind::WouldBlock)
}

// ---- file -------------------------------------------------------------------

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Rank 0: writes the file under a temporary name beside `path` and renames
/// it, so that no rank reads half a file.
fn write_id_file(path: &Path, tag: &str, world: usize, payload: &[u8]) -> Result<()> {
    let hex: String = payload.iter().map(|b| format!("{b:02x}")).collect();
    let text = format!(
        "{FILE_HEADER}\ntag {tag}\nworld {world}\nwritten {:.3}\npayload {hex}\n",
        unix_now()
    );
    let name = path
        .file_name()
        .map_or_else(|| "nccl-id".into(), |n| n.to_string_lossy().into_owned());
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let io = |what: &str, p: &Path, e: std::io::Error| Error::Io {
        op: OP,
        path: p.display().to_string(),
        detail: format!("rank 0 {what} the id file (CUPRITE_NCCL_ID_FILE): {e}"),
    };
    std::fs::write(&temp, text).map_err(|e| io("writing", &temp, e))?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        io("renaming", path, e)
    })
}

/// What an id file says.
struct IdFile {
    tag: String,
    world: usize,
    written: f64,
    payload: Vec<u8>,
}

fn parse_id_file(text: &str) -> Option<IdFile> {
    let mut lines = text.lines();
    if lines.next()? != FILE_HEADER {
        return None;
    }
    let mut field = |key: &str| -> Option<String> {
        let line = lines.next()?;
        let rest = line.strip_prefix(key)?;
        Some(rest.strip_prefix(' ').unwrap_or(rest).to_string())
    };
    let tag = field("tag")?;
    let world = field("world")?.parse().ok()?;
    let written = field("written")?.parse().ok()?;
    let hex = field("payload")?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let payload = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some(IdFile {
        tag,
        world,
        written,
        payload,
    })
}

/// Any other rank: polls `path` until rank 0's file of this job appears.
/// A file is this job's when its tag is `tag`; with no tag known, when it
/// was written no more than `timeout` before this rank began waiting.
fn wait_for_id_file(path: &Path, tag: &str, launch: &Launch, timeout: Duration) -> Result<Vec<u8>> {
    let who = format!("rank {} of {}", launch.rank, launch.world_size);
    let start = Instant::now();
    let oldest = unix_now() - timeout.as_secs_f64();
    let mut seen = String::from("no file there");
    while start.elapsed() < timeout {
        if let Ok(text) = std::fs::read_to_string(path) {
            match parse_id_file(&text) {
                None => seen = "a file that is not a Cuprite id file".into(),
                Some(f) if !tag.is_empty() && f.tag != tag => {
                    seen = format!("only a stale file of job {:?} (this job is {tag:?})", f.tag)
                }
                Some(f) if tag.is_empty() && f.written < oldest => {
                    seen = format!(
                        "only a file written {:.0} s before this rank began waiting (stale; set CUPRITE_NCCL_JOB to the same string on every rank to match files exactly)",
                        oldest + timeout.as_secs_f64() - f.written
                    )
                }
                Some(f) if f.world != launch.world_size => {
                    return Err(bad(format!(
                        "{who}: rank 0 wrote {} for a world of {} ranks, this rank's world has {} (were the ranks started with different world sizes?)",
                        path.display(),
                        f.world,
                        launch.world_size
                    )))
                }
                Some(f) => return Ok(f.payload),
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(bad(format!(
        "{who} waited {} for rank 0 to write {} (CUPRITE_NCCL_ID_FILE) and found {seen}",
        seconds(timeout),
        path.display()
    )))
}

// ---- Slurm node lists ---------------------------------------------------------

/// The most hosts a node list may expand to.
const MAX_HOSTS: usize = 1 << 20;

/// The hosts of a Slurm node list in its compressed form, in order:
/// `node[01-03,07],gpu3` gives `node01 node02 node03 node07 gpu3`
/// (zero padding follows the range's first bound; several bracket groups in
/// one name expand as a product, `a[1-2]b[3-4]` giving `a1b3 a1b4 a2b3 a2b4`).
///
/// ```
/// use cuprite as cp;
/// let hosts = cp::nccl::parse_nodelist("node[01-02,07],gpu3")?;
/// assert_eq!(hosts, ["node01", "node02", "node07", "gpu3"]);
/// # Ok::<(), cp::Error>(())
/// ```
pub fn parse_nodelist(list: &str) -> Result<Vec<String>> {
    let err = |why: String| bad(format!("node list {list:?}: {why}"));
    let mut hosts = Vec::new();
    for item in split_top_level(list).map_err(err)? {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let mut names = vec![String::new()];
        let mut rest = item;
        while !rest.is_empty() {
            let (literal, group, after) = match rest.find('[') {
                None => (rest, None, ""),
                Some(open) => {
                    let close = rest[open..]
                        .find(']')
                        .ok_or_else(|| err(format!("{item:?} has a '[' without ']'")))?
                        + open;
                    (
                        &rest[..open],
                        Some(&rest[open + 1..close]),
                        &rest[close + 1..],
                    )
                }
            };
            if literal.contains(']') {
                return Err(err(format!("{item:?} has a ']' without '['")));
            }
            for n in &mut names {
                n.push_str(literal);
            }
            if let Some(group) = group {
                let values =
                    expand_group(group).map_err(|why| err(format!("in {item:?}: {why}")))?;
                if names.len().saturating_mul(values.len()) + hosts.len() > MAX_HOSTS {
                    return Err(err(format!("expands to more than {MAX_HOSTS} hosts")));
                }
                names = names
                    .iter()
                    .flat_map(|n| values.iter().map(move |v| format!("{n}{v}")))
                    .collect();
            }
            rest = after;
        }
        hosts.extend(names);
    }
    if hosts.is_empty() {
        return Err(err("names no host".into()));
    }
    Ok(hosts)
}

/// The first host of a Slurm node list (see [`parse_nodelist`]).
///
/// ```
/// assert_eq!(cuprite::nccl::first_host("node[01-04,07],gpu3")?, "node01");
/// # Ok::<(), cuprite::Error>(())
/// ```
pub fn first_host(list: &str) -> Result<String> {
    Ok(parse_nodelist(list)?.swap_remove(0))
}

/// The items of a node list: split at commas outside brackets.
fn split_top_level(list: &str) -> std::result::Result<Vec<&str>, String> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in list.char_indices() {
        match c {
            '[' if depth > 0 => return Err("brackets cannot nest".into()),
            '[' => depth = 1,
            ']' if depth == 0 => return Err("a ']' without '['".into()),
            ']' => depth = 0,
            ',' if depth == 0 => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("a '[' without ']'".into());
    }
    items.push(&list[start..]);
    Ok(items)
}

/// `01-03,07` as `01 02 03 07`.
fn expand_group(group: &str) -> std::result::Result<Vec<String>, String> {
    let mut out = Vec::new();
    for part in group.split(',') {
        let part = part.trim();
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(lo) || !digits(hi) {
            return Err(format!("{part:?} is not a number or a range a-b"));
        }
        let (a, b) = match (lo.parse::<u64>(), hi.parse::<u64>()) {
            (Ok(a), Ok(b)) if a <= b => (a, b),
            _ => return Err(format!("{part:?} is not an increasing range")),
        };
        if (b - a) as usize >= MAX_HOSTS {
            return Err(format!("{part:?} has more than {MAX_HOSTS} hosts"));
        }
        let width = lo.len();
        out.extend((a..=b).map(|v| format!("{v:0width$}")));
    }
    Ok(out)
}
