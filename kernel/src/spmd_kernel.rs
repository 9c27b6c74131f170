//! Interactive SPMD: one notebook driving several ranks. The kernel that
//! Jupyter starts is rank 0; it starts ranks 1..N as `spmd-worker`
//! processes (directly, or through `srun`/`mpirun`), sends them every cell,
//! runs the cell itself, and shows rank 0's output as usual plus, tagged
//! `[rank k]`, any other rank's output that differs from rank 0's or is an
//! error. A cell fails when it fails on any rank. An interrupt reaches every
//! rank; a rank whose process ends is named, with the ranks left.
//!
//! Set up by the kernelspec's environment (`cuprite-kernel install
//! --spmd-ranks N [--launcher local|srun|mpirun]`): `CUPRITE_SPMD_RANKS`,
//! `CUPRITE_SPMD_LAUNCHER`. Every rank gets torchrun's variables (`RANK`,
//! `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`), which
//! `cp::nccl::world()` reads first, so cells that call it join one world.
//!
//! Wire: JSON lines over one TCP connection per worker. Worker → rank 0:
//! `{"hello": k}`, then `{"done": cell, "outputs": [[kind, text]...],
//! "error": [ename, evalue] | null}` per cell. Rank 0 → worker:
//! `{"run": cell, "code": ...}` and `{"interrupt": cell}`.

use crate::locks::{Locked, Waits};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::session::{ExecRequest, InputFn, Session};
use crate::side_channel::{SideChannel, Sink};

/// What one rank's cell showed, in a form two ranks can be compared by:
/// `(kind, text)` with kind `stdout`, `stderr`, `display` or `result`.
pub type Digest = Vec<(String, String)>;

/// One rank's report of a cell.
#[derive(Debug, Clone, Default)]
pub struct RankReport {
    pub outputs: Digest,
    pub error: Option<(String, String)>,
    /// Set when the rank's process ended instead of reporting.
    pub lost: Option<String>,
}

#[derive(Default)]
struct Board {
    /// `(cell, rank)` → its report.
    done: BTreeMap<(u64, usize), RankReport>,
    /// Ranks whose connection closed, with why.
    lost: BTreeMap<usize, String>,
}

/// Rank 0's links to the other ranks.
pub struct Ranks {
    world: usize,
    writers: Mutex<BTreeMap<usize, TcpStream>>,
    board: Arc<(Mutex<Board>, Condvar)>,
    children: Mutex<Vec<Child>>,
    /// The cell most recently sent, and the latest cell interrupted.
    current: AtomicU64,
    interrupted: AtomicU64,
}

/// The variables every rank's `cp::nccl::world()` reads.
fn world_vars(
    rank: usize,
    world: usize,
    local: usize,
    master: &str,
    port: u16,
) -> Vec<(String, String)> {
    vec![
        ("RANK".into(), rank.to_string()),
        ("WORLD_SIZE".into(), world.to_string()),
        ("LOCAL_RANK".into(), local.to_string()),
        ("MASTER_ADDR".into(), master.to_string()),
        ("MASTER_PORT".into(), port.to_string()),
    ]
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("0.0.0.0:0")?.local_addr()?.port())
}

impl Ranks {
    /// From the kernelspec's environment: `None` for an ordinary kernel.
    /// Must run before any thread starts (it sets this process's
    /// variables); starts the other ranks and waits for each to say hello.
    pub fn from_env() -> Result<Option<Arc<Ranks>>> {
        let Some(n) = std::env::var("CUPRITE_SPMD_RANKS")
            .ok()
            .filter(|v| !v.is_empty())
        else {
            return Ok(None);
        };
        let world: usize = n
            .trim()
            .parse()
            .ok()
            .filter(|&w| w >= 1)
            .with_context(|| format!("CUPRITE_SPMD_RANKS={n:?} is not a number of ranks"))?;
        if world == 1 {
            return Ok(None);
        }
        let launcher = std::env::var("CUPRITE_SPMD_LAUNCHER").unwrap_or_else(|_| "local".into());
        // One node: the loopback; across nodes: this host's name.
        let host = match launcher.as_str() {
            "local" => "127.0.0.1".to_string(),
            _ => crate::notebook::hostname(),
        };
        let nccl_port = free_port()?;
        let listener =
            TcpListener::bind("0.0.0.0:0").context("opening rank 0's port for the other ranks")?;
        let port = listener.local_addr()?.port();
        for (k, v) in world_vars(0, world, 0, &host, nccl_port) {
            std::env::set_var(k, v);
        }
        let exe = std::env::current_exe().context("the kernel's own path")?;
        let connect = format!("{host}:{port}");
        let master = format!("{host}:{nccl_port}");
        let mut children = Vec::new();
        match launcher.as_str() {
            "local" => {
                for rank in 1..world {
                    let mut cmd = Command::new(&exe);
                    cmd.args([
                        "spmd-worker",
                        "--connect",
                        &connect,
                        "--world",
                        &world.to_string(),
                        "--master",
                        &master,
                    ])
                    .envs(world_vars(rank, world, rank, &host, nccl_port))
                    .stdin(Stdio::null());
                    children.push(
                        cmd.spawn()
                            .with_context(|| format!("starting rank {rank}"))?,
                    );
                }
            }
            "srun" | "mpirun" => {
                let mut cmd = Command::new(&launcher);
                let count = (world - 1).to_string();
                match launcher.as_str() {
                    "srun" => cmd.args(["--ntasks", &count, "--kill-on-bad-exit=1"]),
                    _ => cmd.args(["-np", &count]),
                };
                cmd.arg(&exe)
                    .args([
                        "spmd-worker",
                        "--connect",
                        &connect,
                        "--world",
                        &world.to_string(),
                        "--master",
                        &master,
                        "--rank-offset",
                        "1",
                    ])
                    .stdin(Stdio::null());
                children.push(cmd.spawn().with_context(|| {
                    format!("starting ranks 1 to {} with {launcher}", world - 1)
                })?);
            }
            other => bail!("CUPRITE_SPMD_LAUNCHER={other:?}: use local, srun or mpirun"),
        }
        // After the other ranks started: they would take rank 0's device as
        // one the user chose.
        crate::spmd::default_device_for_rank(&cuprite::nccl::Launch::from_env()?)?;
        let ranks = Arc::new(Ranks {
            world,
            writers: Mutex::new(BTreeMap::new()),
            board: Arc::new((Mutex::new(Board::default()), Condvar::new())),
            children: Mutex::new(children),
            current: AtomicU64::new(0),
            interrupted: AtomicU64::new(0),
        });
        ranks.accept(&listener, Duration::from_secs(120))?;
        Ok(Some(ranks))
    }

    fn accept(&self, listener: &TcpListener, limit: Duration) -> Result<()> {
        let deadline = Instant::now() + limit;
        listener.set_nonblocking(true)?;
        while self.writers.locked().len() < self.world - 1 {
            match listener.accept() {
                Ok((s, _)) => {
                    s.set_nonblocking(false)?;
                    let mut reader = BufReader::new(s.try_clone()?);
                    let mut line = String::new();
                    reader.read_line(&mut line)?;
                    let hello: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
                    let Some(rank) = hello["hello"].as_u64().map(|r| r as usize) else {
                        continue;
                    };
                    if rank == 0 || rank >= self.world {
                        continue;
                    }
                    self.writers.locked().insert(rank, s);
                    let board = self.board.clone();
                    std::thread::Builder::new()
                        .name(format!("spmd-rank-{rank}"))
                        .spawn(move || read_reports(rank, reader, board))?;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() > deadline {
                        let here: Vec<usize> = self.writers.locked().keys().copied().collect();
                        let missing: Vec<String> = (1..self.world)
                            .filter(|r| !here.contains(r))
                            .map(|r| r.to_string())
                            .collect();
                        bail!(
                            "rank(s) {} never connected to rank 0 within {} s",
                            missing.join(", "),
                            limit.as_secs()
                        );
                    }
                    if let Some(exit) = self
                        .children
                        .locked()
                        .iter_mut()
                        .find_map(|c| c.try_wait().ok().flatten())
                    {
                        bail!("a rank's process ended before it connected ({exit})");
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// The number of ranks, this one included.
    pub fn world(&self) -> usize {
        self.world
    }

    /// Sends cell `cell` to the listed ranks (rank 0 is not sent anything).
    pub fn start_cell(&self, cell: u64, code: &str, targets: &[usize]) {
        self.current.store(cell, Ordering::SeqCst);
        let line = format!("{}\n", json!({"run": cell, "code": code}));
        let mut writers = self.writers.locked();
        for rank in targets.iter().filter(|&&r| r != 0) {
            if let Some(w) = writers.get_mut(rank) {
                if let Err(e) = w.write_all(line.as_bytes()) {
                    self.mark_lost(*rank, format!("sending the cell failed: {e}"));
                }
            }
        }
    }

    fn mark_lost(&self, rank: usize, why: String) {
        let (lock, cv) = &*self.board;
        lock.locked().lost.entry(rank).or_insert(why);
        cv.notify_all();
    }

    /// Waits until every listed rank but 0 reported cell `cell` or was lost.
    /// An interrupt of the cell is sent again every 2 s until the ranks
    /// answer (one sent before a rank started the cell would be lost).
    pub fn wait_cell(&self, cell: u64, targets: &[usize]) -> BTreeMap<usize, RankReport> {
        let (lock, cv) = &*self.board;
        let mut board = lock.locked();
        let mut resent = Instant::now();
        loop {
            if self.interrupted.load(Ordering::SeqCst) >= cell
                && resent.elapsed() > Duration::from_secs(2)
            {
                drop(board);
                self.send_interrupt(cell);
                resent = Instant::now();
                board = lock.locked();
            }
            let pending: Vec<usize> = targets
                .iter()
                .copied()
                .filter(|&r| {
                    r != 0 && !board.done.contains_key(&(cell, r)) && !board.lost.contains_key(&r)
                })
                .collect();
            if pending.is_empty() {
                break;
            }
            board = cv.wait_on_for(board, Duration::from_millis(200)).0;
        }
        targets
            .iter()
            .filter(|&&r| r != 0)
            .map(|&r| {
                let report = board.done.remove(&(cell, r)).unwrap_or_else(|| RankReport {
                    lost: board.lost.get(&r).cloned(),
                    ..Default::default()
                });
                (r, report)
            })
            .collect()
    }

    /// Interrupts the cell every other rank runs (or is about to run).
    pub fn interrupt(&self) {
        let cell = self.current.load(Ordering::SeqCst);
        self.interrupted.fetch_max(cell, Ordering::SeqCst);
        self.send_interrupt(cell);
    }

    fn send_interrupt(&self, cell: u64) {
        let line = format!("{}\n", json!({"interrupt": cell}));
        for w in self.writers.locked().values_mut() {
            let _ = w.write_all(line.as_bytes());
        }
    }

    /// The ranks still connected (0 included).
    pub fn alive(&self) -> Vec<usize> {
        let lost = self.board.0.locked().lost.clone();
        (0..self.world).filter(|r| !lost.contains_key(r)).collect()
    }

    /// Stops the other ranks (the kernel is shutting down).
    pub fn shutdown(&self) {
        self.writers.locked().clear();
        for c in self.children.locked().iter_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Ranks {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn read_reports(
    rank: usize,
    mut reader: BufReader<TcpStream>,
    board: Arc<(Mutex<Board>, Condvar)>,
) {
    let (lock, cv) = &*board;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => {
                lock.locked()
                    .lost
                    .entry(rank)
                    .or_insert_with(|| "its process ended".into());
                cv.notify_all();
                return;
            }
            Ok(_) => {}
        }
        let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        let Some(cell) = v["done"].as_u64() else {
            continue;
        };
        let outputs = v["outputs"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|p| Some((p[0].as_str()?.to_string(), p[1].as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        let error = v["error"].as_array().map(|e| {
            (
                e.first()
                    .and_then(Value::as_str)
                    .unwrap_or("Error")
                    .to_string(),
                e.get(1).and_then(Value::as_str).unwrap_or("").to_string(),
            )
        });
        lock.locked().done.insert(
            (cell, rank),
            RankReport {
                outputs,
                error,
                lost: None,
            },
        );
        cv.notify_all();
    }
}

/// `%%rank 0,2` (or `%%rank 1`) on a cell's first line: the ranks to run
/// it on and the code without that line; every rank otherwise.
pub fn targets(code: &str, world: usize) -> Result<(Vec<usize>, String), String> {
    let first = code.lines().next().unwrap_or("").trim();
    let Some(list) = first.strip_prefix("%%rank") else {
        return Ok(((0..world).collect(), code.to_string()));
    };
    let mut ranks = Vec::new();
    for part in list
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|p| !p.is_empty())
    {
        let r: usize = part
            .parse()
            .map_err(|_| format!("%%rank: {part:?} is not a rank number"))?;
        if r >= world {
            return Err(format!(
                "%%rank: rank {r} is not a rank of this world of {world}"
            ));
        }
        if !ranks.contains(&r) {
            ranks.push(r);
        }
    }
    if ranks.is_empty() {
        return Err(
            "%%rank needs the ranks to run the cell on, e.g. %%rank 0 or %%rank 1,3".into(),
        );
    }
    let rest = code.split_once('\n').map_or("", |(_, r)| r).to_string();
    Ok((ranks, rest))
}

/// A digest of what a sink captured during a cell.
pub fn digest(captured: &[(String, Value)]) -> Digest {
    let mut out: Digest = Vec::new();
    for (msg_type, content) in captured {
        let (kind, text) = match msg_type.as_str() {
            "stream" => (
                content["name"].as_str().unwrap_or("stdout").to_string(),
                content["text"].as_str().unwrap_or("").to_string(),
            ),
            "display_data" | "update_display_data" => (
                "display".to_string(),
                content["data"]["text/plain"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            ),
            "execute_result" => (
                "result".to_string(),
                content["data"]["text/plain"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            ),
            _ => continue,
        };
        // Consecutive pieces of one stream are one output.
        match out.last_mut() {
            Some((k, t)) if *k == kind && (kind == "stdout" || kind == "stderr") => {
                t.push_str(&text)
            }
            _ => out.push((kind, text)),
        }
    }
    out
}

/// What rank `rank`'s report adds to rank 0's output: the streams to
/// publish (name, text) with every line tagged.
pub fn tagged(rank: usize, report: &RankReport, mine: &Digest) -> Vec<(&'static str, String)> {
    let tag = |text: &str| {
        text.lines()
            .map(|l| format!("[rank {rank}] {l}\n"))
            .collect::<String>()
    };
    let mut out = Vec::new();
    if let Some(why) = &report.lost {
        out.push(("stderr", tag(&format!("lost: {why}"))));
        return out;
    }
    if report.outputs != *mine {
        for (kind, text) in &report.outputs {
            let name = if kind == "stderr" { "stderr" } else { "stdout" };
            out.push((name, tag(text)));
        }
    }
    if let Some((ename, evalue)) = &report.error {
        out.push(("stderr", tag(&format!("{ename}: {evalue}"))));
    }
    out
}

// ---------------------------------------------------------------- worker

/// A sink that keeps what a cell published (a worker's cells).
#[derive(Default)]
struct Capture(Mutex<Vec<(String, Value)>>);

impl Sink for Capture {
    fn publish(&self, msg_type: &str, content: Value) {
        self.0.locked().push((msg_type.to_string(), content));
    }
}

/// `cuprite-kernel spmd-worker --connect HOST:PORT --world N --master
/// HOST:PORT [--rank-offset K]`: one rank other than 0 of an interactive
/// SPMD kernel. Its rank is `RANK` when set (the local launcher), else the
/// launcher's rank (Slurm's, Open MPI's) plus the offset.
pub fn worker_main(args: &[String]) -> Result<i32> {
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let connect = arg("--connect").context("spmd-worker needs --connect HOST:PORT")?;
    let world: usize = arg("--world")
        .and_then(|w| w.parse().ok())
        .context("spmd-worker needs --world N")?;
    let master = arg("--master").context("spmd-worker needs --master HOST:PORT")?;
    let offset: usize = arg("--rank-offset")
        .and_then(|o| o.parse().ok())
        .unwrap_or(0);
    let (rank, local) = match std::env::var("RANK").ok().and_then(|r| r.parse().ok()) {
        Some(r) => (
            r,
            std::env::var("LOCAL_RANK")
                .ok()
                .and_then(|l| l.parse().ok())
                .unwrap_or(r),
        ),
        None => {
            let launch = cuprite::nccl::Launch::from_env()?;
            let (host0, _) = connect.rsplit_once(':').unwrap_or((&connect, ""));
            // Beside rank 0 on its node, the first GPU is rank 0's.
            let beside = host0 == crate::notebook::hostname() || host0 == "127.0.0.1";
            (
                launch.rank + offset,
                launch.local_rank + usize::from(beside) * offset,
            )
        }
    };
    let (mhost, mport) = master.rsplit_once(':').context("--master HOST:PORT")?;
    for (k, v) in world_vars(
        rank,
        world,
        local,
        mhost,
        mport.parse().context("--master port")?,
    ) {
        std::env::set_var(k, v);
    }
    crate::spmd::default_device_for_rank(&cuprite::nccl::Launch::from_env()?)?;
    // Each rank builds its cells in its own folder.
    if let Some(dir) = std::env::var_os("CUPRITE_KERNEL_BUILD_DIR") {
        let mut d = dir.clone();
        d.push(format!("-rank{rank}"));
        std::env::set_var("CUPRITE_KERNEL_BUILD_DIR", d);
    }
    let key = format!("{}#rank{rank}", crate::build_dir::notebook_key());
    let build = crate::build_dir::acquire(&crate::paths::cache_dir().join("builds"), &key)?;
    let socket_path = crate::side_channel::socket_path()?;
    let token = uuid::Uuid::new_v4().simple().to_string();
    std::env::set_var("EVCXR_TMPDIR", build.ctx());
    std::env::set_var(cuprite_kernel_io::SOCKET_ENV, &socket_path);
    std::env::set_var(cuprite_kernel_io::TOKEN_ENV, &token);

    let mut stream = TcpStream::connect(&connect)
        .with_context(|| format!("rank {rank} connecting to rank 0 at {connect}"))?;
    stream.set_nodelay(true).ok();
    stream.write_all(format!("{}\n", json!({"hello": rank})).as_bytes())?;
    let reader = BufReader::new(stream.try_clone()?);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let capture = Arc::new(Capture::default());
    let session = rt.block_on(async {
        let side = SideChannel::listen(&socket_path, token, capture.clone())
            .with_context(|| format!("cannot listen on {}", socket_path.display()))?;
        let no_input: InputFn = Arc::new(|_, _| None);
        Session::start(side, capture.clone(), no_input, build.seeder())
            .context("cannot start the session thread")
    })?;

    // Cells arrive in order; interrupts may arrive while one runs.
    let (cells_tx, cells_rx) = std::sync::mpsc::channel::<(u64, String)>();
    let interrupter = session.clone();
    let stop_upto = Arc::new(AtomicU64::new(0));
    let stop = stop_upto.clone();
    std::thread::spawn(move || {
        for line in reader.lines() {
            let Ok(line) = line else { break };
            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if let (Some(cell), Some(code)) = (v["run"].as_u64(), v["code"].as_str()) {
                if cells_tx.send((cell, code.to_string())).is_err() {
                    break;
                }
            } else if let Some(cell) = v["interrupt"].as_u64() {
                stop.fetch_max(cell, Ordering::SeqCst);
                interrupter.interrupt();
            }
        }
        // Rank 0 went away: so does this rank (dropping the sender ends the loop).
    });
    for (cell, code) in cells_rx {
        if stop_upto.load(Ordering::SeqCst) >= cell {
            // Interrupted before it started here.
            let line = json!({"done": cell, "outputs": [], "error": ["KeyboardInterrupt", "interrupted before it started on this rank"]});
            if stream.write_all(format!("{line}\n").as_bytes()).is_err() {
                break;
            }
            continue;
        }
        capture.0.locked().clear();
        let outcome = rt.block_on(session.execute(ExecRequest {
            code,
            allow_stdin: false,
        }));
        let mut captured = std::mem::take(&mut *capture.0.locked());
        if !outcome.stderr_after.is_empty() {
            captured.push((
                "stream".into(),
                json!({"name": "stderr", "text": outcome.stderr_after}),
            ));
        }
        if !outcome.stdout_after.is_empty() {
            captured.push((
                "stream".into(),
                json!({"name": "stdout", "text": outcome.stdout_after}),
            ));
        }
        let error = match &outcome.result {
            Ok(Some(data)) => {
                captured.push(("execute_result".into(), json!({"data": data})));
                Value::Null
            }
            Ok(None) => Value::Null,
            Err(e) => json!([e.ename, e.evalue]),
        };
        let outputs: Vec<Value> = digest(&captured)
            .into_iter()
            .map(|(k, t)| json!([k, t]))
            .collect();
        let line = format!(
            "{}\n",
            json!({"done": cell, "outputs": outputs, "error": error})
        );
        if stream.write_all(line.as_bytes()).is_err() {
            break;
        }
    }
    session.kill();
    drop(build);
    let _ = std::fs::remove_file(&socket_path);
    rt.shutdown_timeout(Duration::from_millis(100));
    Ok(0)
}
