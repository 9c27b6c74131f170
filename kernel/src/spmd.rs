//! `cuprite-kernel run --spmd NOTEBOOK`: one kernel per rank (as `srun` or
//! `mpirun` start them) executes the notebook, and the ranks compare notes
//! after every code cell through a small TCP server that rank 0's kernel
//! runs. A cell that fails on any rank stops every rank: ranks still inside
//! the cell (typically waiting in a collective for the rank that failed) are
//! interrupted, and rank 0's notebook and report name the failed ranks and
//! their errors. Only rank 0 writes files.
//!
//! Rank 0's address: `CUPRITE_SPMD_ADDR` (`host:port`) when set, else the
//! NCCL rendezvous host (`MASTER_ADDR`, or the first host of
//! `SLURM_JOB_NODELIST`) with the rendezvous port plus one. Messages are
//! JSON lines: `hello` (rank, host, GPUs) once, `done` (cell, error) after
//! each cell, and from rank 0 `start` (the world), `abort` (cell) and
//! `verdict` (cell, failed ranks).

use crate::locks::{Locked, Waits};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use cuprite::nccl::Launch;
use serde_json::{json, Value};

/// Makes this rank's GPU (`Launch::device`: its local rank among the GPUs it
/// sees) the default device of its cells through `CUPRITE_DEVICE`, as
/// torchrun users call `torch.cuda.set_device(local_rank)`: without it every
/// rank of a node would compute on cuda:0. Left alone when the user chose a
/// device or asked for a world of CPU processes (`CUPRITE_COMM=host`), in a
/// world of one, and where no GPU is visible (cells then run on the CPU, and
/// `cp::nccl::world()` says what a GPU world lacks). Must run before the
/// cell process starts (it inherits it).
pub fn default_device_for_rank(launch: &Launch) -> Result<()> {
    let host_world =
        std::env::var("CUPRITE_COMM").is_ok_and(|v| v.trim().eq_ignore_ascii_case("host"));
    if launch.world_size < 2
        || host_world
        || std::env::var_os("CUPRITE_DEVICE").is_some()
        || cuprite::device_count() == 0
    {
        return Ok(());
    }
    let device = launch
        .device()
        .with_context(|| format!("rank {}: choosing its GPU", launch.rank))?;
    std::env::set_var("CUPRITE_DEVICE", device.to_string());
    Ok(())
}

/// One rank's place in the world, as its kernel reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct RankInfo {
    pub rank: usize,
    pub host: String,
    pub gpus: Vec<String>,
}

impl RankInfo {
    fn to_json(&self) -> Value {
        json!({"rank": self.rank, "host": self.host, "gpus": self.gpus})
    }

    fn from_json(v: &Value) -> Option<RankInfo> {
        Some(RankInfo {
            rank: v["rank"].as_u64()? as usize,
            host: v["host"].as_str()?.to_string(),
            gpus: v["gpus"]
                .as_array()?
                .iter()
                .filter_map(|g| g.as_str().map(str::to_string))
                .collect(),
        })
    }
}

/// What the ranks know about each cell, filled in by the reader threads.
#[derive(Default)]
struct Board {
    /// `(cell, rank)` → `None` for success, the error text otherwise.
    reports: HashMap<(usize, usize), Option<String>>,
    /// Cells that failed somewhere: the ranks still running them stop.
    aborted: HashSet<usize>,
    /// Rank 0's verdicts, on the other ranks.
    verdicts: HashMap<usize, Vec<(usize, String)>>,
    /// Ranks whose kernel went away (on rank 0), or rank 0 itself (elsewhere).
    lost: BTreeMap<usize, String>,
}

struct Shared {
    board: Mutex<Board>,
    changed: Condvar,
}

impl Shared {
    fn update(&self, f: impl FnOnce(&mut Board)) {
        f(&mut self.board.locked());
        self.changed.notify_all();
    }
}

/// A connection to rank 0 or, on rank 0, to every other rank.
pub struct Spmd {
    pub rank: usize,
    pub world: Vec<RankInfo>,
    shared: Arc<Shared>,
    /// Rank 0: a writer per other rank; elsewhere: the writer to rank 0.
    writers: Arc<Mutex<Vec<TcpStream>>>,
}

/// How long ranks wait for each other to connect.
fn connect_timeout() -> Duration {
    let secs = std::env::var("CUPRITE_NCCL_TIMEOUT")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(120);
    Duration::from_secs(secs)
}

/// Rank 0's control address (see the module doc).
pub fn control_address(lookup: &dyn Fn(&str) -> Option<String>) -> Result<String> {
    if let Some(addr) = lookup("CUPRITE_SPMD_ADDR") {
        return Ok(addr);
    }
    if let Some(host) = lookup("MASTER_ADDR") {
        let port: u16 = match lookup("MASTER_PORT") {
            Some(p) => p
                .trim()
                .parse()
                .with_context(|| format!("MASTER_PORT={p:?} is not a port number"))?,
            None => 29500,
        };
        return Ok(format!("{host}:{}", port.wrapping_add(1)));
    }
    if let (Some(list), Some(job)) = (lookup("SLURM_JOB_NODELIST"), lookup("SLURM_JOB_ID")) {
        let host = cuprite::nccl::first_host(&list)?;
        let job: usize = job
            .trim()
            .parse()
            .with_context(|| format!("SLURM_JOB_ID={job:?} is not a number"))?;
        return Ok(format!("{host}:{}", cuprite::nccl::slurm_port(job) + 1));
    }
    bail!(
        "--spmd with several ranks needs rank 0's address: set MASTER_ADDR (and MASTER_PORT), \
         or CUPRITE_SPMD_ADDR=host:port, or run under Slurm"
    )
}

fn send(stream: &mut TcpStream, msg: &Value) -> std::io::Result<()> {
    let mut line = msg.to_string();
    line.push('\n');
    stream.write_all(line.as_bytes())
}

/// Reads one JSON line, with a time-out.
fn read_message(reader: &mut BufReader<TcpStream>, within: Duration) -> Result<Value> {
    reader.get_ref().set_read_timeout(Some(within))?;
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        bail!("the connection closed");
    }
    reader.get_ref().set_read_timeout(None)?;
    Ok(serde_json::from_str(&line)?)
}

impl Spmd {
    /// Joins the world that `launch` describes; returns `None` for a world
    /// of one (nothing to coordinate).
    pub fn join(launch: &Launch, me: RankInfo) -> Result<Option<Spmd>> {
        if launch.world_size <= 1 {
            return Ok(None);
        }
        let lookup = |k: &str| std::env::var(k).ok();
        let addr = control_address(&lookup)?;
        let shared = Arc::new(Shared {
            board: Mutex::new(Board::default()),
            changed: Condvar::new(),
        });
        let spmd = if launch.rank == 0 {
            Self::lead(&addr, launch.world_size, me, shared)?
        } else {
            Self::follow(&addr, launch, me, shared)?
        };
        Ok(Some(spmd))
    }

    fn lead(addr: &str, world: usize, me: RankInfo, shared: Arc<Shared>) -> Result<Spmd> {
        let port = addr.rsplit_once(':').map_or(addr, |(_, p)| p);
        let listener = TcpListener::bind(format!("0.0.0.0:{port}"))
            .with_context(|| format!("rank 0 cannot listen on port {port} for the other ranks"))?;
        listener.set_nonblocking(true)?;
        let deadline = Instant::now() + connect_timeout();
        let mut peers: BTreeMap<usize, (RankInfo, TcpStream)> = BTreeMap::new();
        while peers.len() + 1 < world {
            match listener.accept() {
                Ok((stream, _)) => {
                    stream.set_nonblocking(false)?;
                    let mut reader = BufReader::new(stream.try_clone()?);
                    let hello = read_message(&mut reader, Duration::from_secs(10))?;
                    let info = (hello["kind"] == "hello")
                        .then(|| RankInfo::from_json(&hello))
                        .flatten()
                        .context("a peer sent no valid hello")?;
                    if hello["world"].as_u64() != Some(world as u64) {
                        bail!(
                            "rank {} thinks the world has {} ranks, rank 0 has {world}",
                            info.rank,
                            hello["world"]
                        );
                    }
                    if info.rank == 0 || info.rank >= world || peers.contains_key(&info.rank) {
                        bail!("rank {} connected twice or is out of range", info.rank);
                    }
                    peers.insert(info.rank, (info, stream));
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        let missing: Vec<String> = (1..world)
                            .filter(|r| !peers.contains_key(r))
                            .map(|r| r.to_string())
                            .collect();
                        bail!(
                            "ranks {} of {world} did not connect to rank 0 at {addr} within {} s",
                            missing.join(", "),
                            connect_timeout().as_secs()
                        );
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(e.into()),
            }
        }
        let mut infos = vec![me];
        infos.extend(peers.values().map(|(i, _)| i.clone()));
        let start = json!({"kind": "start", "world": infos.iter().map(RankInfo::to_json).collect::<Vec<_>>()});
        let mut writers = Vec::new();
        for (rank, (_, stream)) in peers {
            let mut w = stream.try_clone()?;
            send(&mut w, &start)?;
            writers.push(w);
            let shared = shared.clone();
            let reader = BufReader::new(stream);
            std::thread::spawn(move || lead_reader(rank, reader, shared));
        }
        let writers = Arc::new(Mutex::new(writers));
        // The readers send aborts through the same writers.
        let spmd = Spmd {
            rank: 0,
            world: infos,
            shared,
            writers,
        };
        spmd.start_abort_relay();
        Ok(spmd)
    }

    fn follow(addr: &str, launch: &Launch, me: RankInfo, shared: Arc<Shared>) -> Result<Spmd> {
        let rank = launch.rank;
        let deadline = Instant::now() + connect_timeout();
        let target = addr
            .to_socket_addrs()
            .with_context(|| format!("cannot resolve rank 0's address {addr}"))?
            .next()
            .with_context(|| format!("{addr} resolves to no address"))?;
        let stream = loop {
            match TcpStream::connect_timeout(&target, Duration::from_secs(2)) {
                Ok(s) => break s,
                Err(e) if Instant::now() > deadline => bail!(
                    "rank {rank} could not reach rank 0 at {addr} within {} s: {e}",
                    connect_timeout().as_secs()
                ),
                Err(_) => std::thread::sleep(Duration::from_millis(200)),
            }
        };
        let mut writer = stream.try_clone()?;
        let mut hello = me.to_json();
        hello["kind"] = json!("hello");
        hello["world"] = json!(launch.world_size);
        send(&mut writer, &hello)?;
        let mut reader = BufReader::new(stream);
        let start =
            read_message(&mut reader, connect_timeout()).context("rank 0 did not start the run")?;
        let world: Vec<RankInfo> = start["world"]
            .as_array()
            .context("rank 0 sent no world")?
            .iter()
            .filter_map(RankInfo::from_json)
            .collect();
        let reader_shared = shared.clone();
        std::thread::spawn(move || follow_reader(reader, reader_shared));
        Ok(Spmd {
            rank,
            world,
            shared,
            writers: Arc::new(Mutex::new(vec![writer])),
        })
    }

    /// On rank 0: tells every other rank to stop a cell as soon as a report
    /// of its failure arrives.
    fn start_abort_relay(&self) {
        let shared = self.shared.clone();
        let writers = self.writers.clone();
        std::thread::spawn(move || {
            let mut sent = HashSet::new();
            let mut board = shared.board.locked();
            loop {
                let new: Vec<usize> = board.aborted.difference(&sent).copied().collect();
                if !new.is_empty() {
                    let mut ws = writers.locked();
                    for cell in new {
                        for w in ws.iter_mut() {
                            let _ = send(w, &json!({"kind": "abort", "cell": cell}));
                        }
                        sent.insert(cell);
                    }
                }
                board = shared.changed.wait_on(board);
            }
        });
    }

    /// True once any rank failed `cell` (or a rank's kernel went away):
    /// this rank should stop it. On rank 0 this also tells the other ranks.
    pub fn aborted(&self, cell: usize) -> bool {
        let stop = {
            let b = self.shared.board.locked();
            b.aborted.contains(&cell) || !b.lost.is_empty()
        };
        if stop && self.rank == 0 {
            self.shared.update(|b| {
                b.aborted.insert(cell);
            });
        }
        stop
    }

    /// Reports this rank's outcome of `cell` and waits for every rank's:
    /// returns the failed ranks with their errors (empty: all ran).
    pub fn cell_done(&self, cell: usize, error: Option<String>) -> Vec<(usize, String)> {
        if self.rank == 0 {
            self.shared.update(|b| {
                if error.is_some() {
                    b.aborted.insert(cell);
                }
                b.reports.insert((cell, 0), error);
            });
            let world = self.world.len();
            let mut b = self.shared.board.locked();
            let failed = loop {
                let all_in = (0..world)
                    .all(|r| b.reports.contains_key(&(cell, r)) || b.lost.contains_key(&r));
                if all_in {
                    break failures(&b, cell, world);
                }
                b = self.shared.changed.wait_on(b);
            };
            drop(b);
            let verdict = json!({"kind": "verdict", "cell": cell, "failed": failed});
            for w in self.writers.locked().iter_mut() {
                let _ = send(w, &verdict);
            }
            failed
        } else {
            let msg = json!({"kind": "done", "cell": cell, "rank": self.rank, "error": error});
            let sent = self.writers.locked().first_mut().map(|w| send(w, &msg));
            if let Some(Err(e)) = sent {
                return vec![(0, format!("rank 0 is unreachable: {e}"))];
            }
            let mut b = self.shared.board.locked();
            loop {
                if let Some(v) = b.verdicts.get(&cell) {
                    return v.clone();
                }
                if let Some((r, why)) = b.lost.iter().next() {
                    return vec![(*r, why.clone())];
                }
                b = self.shared.changed.wait_on(b);
            }
        }
    }
}

/// How the error of a rank that was stopped because another rank failed
/// begins; such ranks are listed after the ones that failed on their own.
pub const STOPPED: &str = "stopped after another rank failed";

/// The failed ranks of `cell`, ranks that failed on their own first.
fn failures(b: &Board, cell: usize, world: usize) -> Vec<(usize, String)> {
    let mut failed: Vec<(usize, String)> = (0..world)
        .filter_map(|r| match (b.reports.get(&(cell, r)), b.lost.get(&r)) {
            (Some(Some(e)), _) => Some((r, e.clone())),
            (None, Some(why)) => Some((r, why.clone())),
            _ => None,
        })
        .collect();
    failed.sort_by_key(|(r, e)| (e.starts_with(STOPPED), *r));
    failed
}

fn lead_reader(rank: usize, mut reader: BufReader<TcpStream>, shared: Arc<Shared>) {
    loop {
        let mut line = String::new();
        let gone = match reader.read_line(&mut line) {
            Ok(0) => Some("its kernel exited".to_string()),
            Err(e) => Some(format!("its connection failed: {e}")),
            Ok(_) => None,
        };
        if let Some(why) = gone {
            shared.update(|b| {
                b.lost.insert(rank, format!("rank {rank}: {why}"));
            });
            return;
        }
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if msg["kind"] == "done" {
            let Some(cell) = msg["cell"].as_u64() else {
                continue;
            };
            let error = msg["error"].as_str().map(str::to_string);
            shared.update(|b| {
                if error.is_some() {
                    b.aborted.insert(cell as usize);
                }
                b.reports.insert((cell as usize, rank), error);
            });
        }
    }
}

fn follow_reader(mut reader: BufReader<TcpStream>, shared: Arc<Shared>) {
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => {
                shared.update(|b| {
                    b.lost
                        .insert(0, "rank 0's kernel exited or its connection failed".into());
                });
                return;
            }
            Ok(_) => {}
        }
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(cell) = msg["cell"].as_u64().map(|c| c as usize) else {
            continue;
        };
        match msg["kind"].as_str() {
            Some("abort") => shared.update(|b| {
                b.aborted.insert(cell);
            }),
            Some("verdict") => {
                let failed = msg["failed"]
                    .as_array()
                    .map(|v| {
                        v.iter()
                            .filter_map(|f| {
                                Some((f[0].as_u64()? as usize, f[1].as_str()?.to_string()))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                shared.update(|b| {
                    b.verdicts.insert(cell, failed);
                });
            }
            _ => {}
        }
    }
}

/// The world as the report records it: ranks, hosts, GPUs per host, the
/// NCCL version and the transport settings NCCL reads.
pub fn world_metadata(world: &[RankInfo]) -> Value {
    let mut hosts: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for r in world {
        hosts.entry(r.host.as_str()).or_default().push(r.rank);
    }
    let nccl = cuprite::nccl::version()
        .map(|(a, b, c)| format!("{a}.{b}.{c}"))
        .unwrap_or_else(|e| format!("not loaded ({e})"));
    let setting = |k: &str| std::env::var(k).ok();
    let transport = if hosts.len() > 1 {
        "network between hosts (InfiniBand or sockets, as NCCL picks)".to_string()
    } else if setting("NCCL_P2P_DISABLE").as_deref() == Some("1")
        && setting("NCCL_SHM_DISABLE").as_deref() == Some("1")
    {
        "sockets (NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1)".to_string()
    } else {
        "within one host (NVLink/PCIe peer access or shared memory)".to_string()
    };
    json!({
        "ranks": world.len(),
        "hosts": hosts.iter().map(|(h, ranks)| json!({"host": h, "ranks": ranks})).collect::<Vec<_>>(),
        "gpus": world.iter().map(RankInfo::to_json).collect::<Vec<_>>(),
        "nccl_version": nccl,
        "transport": transport,
        "NCCL_NVLS_ENABLE": setting("NCCL_NVLS_ENABLE"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn control_address_rules() {
        let a = control_address(&env(&[
            ("MASTER_ADDR", "10.0.0.1"),
            ("MASTER_PORT", "29500"),
        ]));
        assert_eq!(a.unwrap(), "10.0.0.1:29501");
        let a = control_address(&env(&[("CUPRITE_SPMD_ADDR", "h:7"), ("MASTER_ADDR", "x")]));
        assert_eq!(a.unwrap(), "h:7");
        let a = control_address(&env(&[
            ("SLURM_JOB_NODELIST", "gpu[03-04]"),
            ("SLURM_JOB_ID", "12345"),
        ]))
        .unwrap();
        assert_eq!(a, format!("gpu03:{}", cuprite::nccl::slurm_port(12345) + 1));
        let e = control_address(&env(&[("MASTER_ADDR", "h"), ("MASTER_PORT", "x")]));
        assert!(e.unwrap_err().to_string().contains("MASTER_PORT"));
        assert!(control_address(&env(&[])).is_err());
    }

    #[test]
    fn failures_list_failed_and_lost_ranks() {
        let mut b = Board::default();
        b.reports
            .insert((3, 0), Some(format!("{STOPPED}: Interrupted")));
        b.reports.insert((3, 1), Some("boom".into()));
        b.reports.insert((3, 3), None);
        b.lost.insert(2, "rank 2: its kernel exited".into());
        assert_eq!(
            failures(&b, 3, 4),
            vec![
                (1, "boom".to_string()),
                (2, "rank 2: its kernel exited".to_string()),
                (0, format!("{STOPPED}: Interrupted")),
            ]
        );
    }

    #[test]
    fn world_metadata_groups_hosts() {
        let w = vec![
            RankInfo {
                rank: 0,
                host: "a".into(),
                gpus: vec!["H200".into()],
            },
            RankInfo {
                rank: 1,
                host: "a".into(),
                gpus: vec!["H200".into()],
            },
        ];
        let m = world_metadata(&w);
        assert_eq!(m["ranks"], 2);
        assert_eq!(m["hosts"][0]["ranks"], json!([0, 1]));
    }
}
