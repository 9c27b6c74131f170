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
