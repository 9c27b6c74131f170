//! Running a test binary's own `child_rank` test as the ranks of a job:
//! each child gets the environment a launcher would give its rank and
//! prints one `BOOT ...` line, which the parent collects.

#![allow(dead_code)]

use std::io::Read;
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Marks a child process and names its role.
pub const CHILD: &str = "BOOTSTRAP_CHILD";
/// Milliseconds a child sleeps before starting (a rank arriving late).
pub const DELAY: &str = "BOOTSTRAP_DELAY_MS";

/// In a child: its role, after the delay asked for; `None` in a normal run.
pub fn child_role() -> Option<String> {
    let role = std::env::var(CHILD).ok()?;
    if let Some(ms) = std::env::var(DELAY).ok().and_then(|v| v.parse().ok()) {
        std::thread::sleep(Duration::from_millis(ms));
    }
    Some(role)
}

/// Prints a child's result where the parent looks for it.
pub fn report(line: &str) {
    println!("\nBOOT {line}");
}

/// Variables of launchers and of the bootstrap, removed from the children's
/// environment so that a test run inside a real job starts clean.
fn is_launcher_var(name: &str) -> bool {
    const PREFIXES: [&str; 8] = [
        "SLURM_",
        "OMPI_",
        "PMI_",
        "PMIX_",
        "MASTER_",
        "CUPRITE_NCCL_",
        "TORCHELASTIC_",
        "MPI_",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
        || ["RANK", "WORLD_SIZE", "LOCAL_RANK"].contains(&name)
}

/// This test binary run again as a child of role `role` with `env` added.
pub fn spawn(role: &str, env: &[(String, String)]) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["child_rank", "--exact", "--nocapture", "--test-threads=1"]);
    for (k, _) in std::env::vars() {
        if is_launcher_var(&k) {
            cmd.env_remove(k);
        }
    }
    cmd.env(CHILD, role)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd.spawn().expect("re-running the test binary")
}

/// The `BOOT` line of a child, waiting at most `limit` (then killing it).
pub fn result_of(mut child: Child, limit: Duration) -> String {
    let start = Instant::now();
    // Drain the pipes while waiting, so a chatty child cannot block on them.
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out_pipe.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err_pipe.read_to_string(&mut s);
        s
    });
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("a child did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    out.lines()
        .find_map(|l| l.strip_prefix("BOOT ").map(str::to_string))
        .unwrap_or_else(|| panic!("a child printed no result:\n{out}\n{err}"))
}

/// Runs one child per environment, all at once; their results in order.
pub fn run_ranks(role: &str, envs: Vec<Vec<(String, String)>>, limit: Duration) -> Vec<String> {
    let children: Vec<Child> = envs.iter().map(|e| spawn(role, e)).collect();
    children.into_iter().map(|c| result_of(c, limit)).collect()
}

/// Owned pairs from borrowed names.
pub fn vars(pairs: &[(&str, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// A loopback port nothing listens on now (the system picks it).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Slurm's variables for rank `rank` of `world` meeting at 127.0.0.1:`port`.
pub fn slurm_tcp(rank: usize, world: usize, port: u16, timeout: &str) -> Vec<(String, String)> {
    vars(&[
        ("SLURM_PROCID", rank.to_string()),
        ("SLURM_NTASKS", world.to_string()),
        ("SLURM_LOCALID", rank.to_string()),
        ("MASTER_ADDR", "127.0.0.1".into()),
        ("MASTER_PORT", port.to_string()),
        ("CUPRITE_NCCL_TIMEOUT", timeout.into()),
    ])
}

/// Runs one world whose rank `r` is a child of role `roles[r]`, all at once,
/// with one limit for the whole world: each rank's `BOOT` line, or why there
/// is none. Past the limit every rank still running is killed, and the
/// error names those ranks (with the end of what they printed), so a hang
/// is a failure that says who was waiting.
pub fn run_roles_limited(
    roles: &[&str],
    envs: Vec<Vec<(String, String)>>,
    limit: Duration,
) -> Vec<Result<String, String>> {
    let start = Instant::now();
    let mut children: Vec<Child> = roles.iter().zip(&envs).map(|(r, e)| spawn(r, e)).collect();
    let pipes: Vec<_> = children
        .iter_mut()
        .map(|c| {
            let mut out = c.stdout.take().unwrap();
            let mut err = c.stderr.take().unwrap();
            (
                std::thread::spawn(move || {
                    let mut s = String::new();
                    let _ = out.read_to_string(&mut s);
                    s
                }),
                std::thread::spawn(move || {
                    let mut s = String::new();
                    let _ = err.read_to_string(&mut s);
                    s
                }),
            )
        })
        .collect();
    let mut running: Vec<usize> = (0..children.len()).collect();
    while !running.is_empty() && start.elapsed() < limit {
        running.retain(|&r| matches!(children[r].try_wait(), Ok(None)));
        std::thread::sleep(Duration::from_millis(20));
    }
    let stuck = running.clone();
    for &r in &stuck {
        let _ = children[r].kill();
        let _ = children[r].wait();
    }
    let stuck_text = stuck
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    pipes
        .into_iter()
        .enumerate()
        .map(|(r, (out, err))| {
            let (out, err) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
            let tail: String = err.lines().rev().take(12).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
            if stuck.contains(&r) {
                return Err(format!(
                    "rank(s) {stuck_text} still running after {limit:?} (killed); rank {r}'s last output:\n{tail}"
                ));
            }
            out.lines()
                .find_map(|l| l.strip_prefix("BOOT ").map(str::to_string))
                .ok_or_else(|| format!("rank {r} printed no result ({}):\n{tail}", children_status(&err)))
        })
        .collect()
}

fn children_status(err: &str) -> &'static str {
    if err.contains("panicked") {
        "it panicked"
    } else {
        "it ended without reporting"
    }
}

/// [`run_roles_limited`] with every rank of role `role`.
pub fn run_world_limited(
    role: &str,
    envs: Vec<Vec<(String, String)>>,
    limit: Duration,
) -> Vec<Result<String, String>> {
    let roles = vec![role; envs.len()];
    run_roles_limited(&roles, envs, limit)
}
