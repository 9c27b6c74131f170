//! The launcher bootstrap of `cp::nccl` (launcher variables, Slurm node
//! lists, the TCP and file rendezvous, `world()`), on the CPU: no NCCL, no GPU.
//!
//! The multi-process tests re-run this test binary as several children
//! (`child_rank`, selected by name, with `BOOTSTRAP_CHILD` set), each with the
//! environment a launcher (srun, mpirun, torchrun, Hydra) would give its
//! rank; each child meets the others through the rendezvous and prints what
//! rank 0 shared, and the parent checks that every rank got the same bytes.

mod nccl_common;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cp::nccl::{choose_device, first_host, parse_nodelist, slurm_port, Launch, Rendezvous};
use cuprite as cp;
use nccl_common::{free_port, result_of, slurm_tcp, vars, DELAY};

// ---------------------------------------------------------------------------
// The child side
// ---------------------------------------------------------------------------

/// Does nothing in a normal run; in a child, plays its rank (`share`: the
/// rendezvous; `world`: `cp::nccl::world()`) and reports the result.
#[test]
fn child_rank() {
    let Some(role) = nccl_common::child_role() else {
        return;
    };
    nccl_common::report(&match role.as_str() {
        "share" => share_as_child(),
        "watch" => watch_as_child(),
        "leave" => leave_after_sharing(),
        "world" => world_as_child(),
        other => format!("ERR unknown role {other}"),
    });
}

/// Shares, then waits (at most 10 s) until the watch reports the rank named
/// by `WATCH_FOR`, and reports how it was told.
fn watch_as_child() -> String {
    let result = Launch::from_env().and_then(|launch| {
        let rdv = Rendezvous::from_env(&launch)?;
        let (_, watch) = rdv.share_watched(&launch, || Ok(fake_id()))?;
        let want: usize = std::env::var("WATCH_FOR")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(usize::MAX);
        let start = std::time::Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if let Some((_, how)) = watch.lost_ranks().into_iter().find(|(r, _)| *r == want) {
                return Ok(format!(
                    "rank {want} lost after {:.1} s: {how}",
                    start.elapsed().as_secs_f64()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(format!(
            "rank {want} never reported lost: {:?}",
            watch.lost_ranks()
        ))
    });
    match result {
        Ok(line) if line.contains(" lost after ") => format!("OK {line}"),
        Ok(line) => format!("ERR {line}"),
        Err(e) => format!("ERR {e}"),
    }
}

/// Shares, then exits at once: its connection closes as a killed process's would.
fn leave_after_sharing() -> String {
    let result = Launch::from_env()
        .and_then(|launch| Rendezvous::from_env(&launch)?.share_watched(&launch, || Ok(fake_id())));
    match result {
        Ok(_) => std::process::exit(0),
        Err(e) => format!("ERR {e}"),
    }
}

fn share_as_child() -> String {
    let result = Launch::from_env().and_then(|launch| {
        let rdv = Rendezvous::from_env(&launch)?;
        // Bytes only this process could make, so equal output means shared.
        let shared = rdv.share(&launch, || Ok(fake_id()))?;
        Ok((launch, shared))
    });
    match result {
        Ok((launch, shared)) => format!(
            "OK rank={} world={} launcher={} id={} hosts={}",
            launch.rank,
            launch.world_size,
            launch.launcher,
            hex(&shared.payload),
            shared.hosts.len()
        ),
        Err(e) => format!("ERR {e}"),
    }
}

fn world_as_child() -> String {
    let first = cp::nccl::world();
    let second = cp::nccl::world();
    match (first, second) {
        (Ok(a), Ok(b)) => {
            let launch = cp::nccl::world_launch().expect("world_launch after world");
            format!(
                "OK same={} rank={} world={} devices={:?} report={launch}",
                std::ptr::eq(a, b),
                a.rank(),
                a.world_size(),
                a.devices()
            )
        }
        (Err(a), Err(b)) => format!("ERR same_error={} {a}", a == b),
        (a, b) => format!("ERR inconsistent: {a:?} then {b:?}"),
    }
}

fn fake_id() -> Vec<u8> {
    let seed = (std::process::id() as u64) << 32
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos() as u64;
    let mut x = seed | 1;
    (0..128)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ---------------------------------------------------------------------------
// The parent side
// ---------------------------------------------------------------------------

/// No GPU visible to the children: the bootstrap alone, the same anywhere.
fn without_gpus(mut env: Vec<(String, String)>) -> Vec<(String, String)> {
    env.push(("CUDA_VISIBLE_DEVICES".into(), String::new()));
    env
}

fn spawn(role: &str, env: Vec<(String, String)>) -> std::process::Child {
    nccl_common::spawn(role, &without_gpus(env))
}

fn run_ranks(role: &str, envs: Vec<Vec<(String, String)>>, limit: Duration) -> Vec<String> {
    nccl_common::run_ranks(role, envs.into_iter().map(without_gpus).collect(), limit)
}

/// A loopback port nothing listens on now, within `range`.
fn free_port_in(range: std::ops::Range<u16>) -> u16 {
    let span = (range.end - range.start) as u32;
    let mut x = std::process::id().wrapping_mul(2654435761);
    for _ in 0..1000 {
        x = x.wrapping_mul(1103515245).wrapping_add(12345);
        let p = range.start + ((x >> 8) % span) as u16;
        if TcpListener::bind(("0.0.0.0", p)).is_ok() {
            return p;
        }
    }
    panic!("no free port in {range:?}");
}

/// The id every rank printed, checking that all succeeded and agree.
#[track_caller]
fn assert_all_share(results: &[String], world: usize, launcher: &str) -> String {
    assert_eq!(results.len(), world);
    let mut ids = Vec::new();
    for (r, line) in results.iter().enumerate() {
        assert!(line.starts_with("OK "), "rank {r}: {line}");
        assert!(
            line.contains(&format!("rank={r} world={world} launcher={launcher}")),
            "{line}"
        );
        let id = line.split("id=").nth(1).unwrap().split(' ').next().unwrap();
        assert_eq!(id.len(), 256, "{line}");
        ids.push(id.to_string());
    }
    assert!(
        ids.iter().all(|i| *i == ids[0]),
        "ranks got different ids: {ids:?}"
    );
    ids[0].clone()
}

const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn tcp_srun_like_four_ranks() {
    let port = free_port();
    let envs = (0..4)
        .map(|r| {
            let mut e = vars(&[
                ("SLURM_PROCID", r.to_string()),
                ("SLURM_NTASKS", "4".into()),
                ("SLURM_LOCALID", r.to_string()),
                ("MASTER_ADDR", "127.0.0.1".into()),
                ("MASTER_PORT", port.to_string()),
                ("CUPRITE_NCCL_TIMEOUT", "30".into()),
            ]);
            // Rank 0 starts last: the others must retry until it listens.
            if r == 0 {
                e.push((DELAY.into(), "700".into()));
            }
            e
        })
        .collect();
    let results = run_ranks("share", envs, LIMIT);
    assert_all_share(&results, 4, "slurm");
    assert!(
        results.iter().all(|l| l.ends_with("hosts=4")),
        "{results:?}"
    );
}

/// Four ranks meet; rank 2's process then ends (rank 0's too, in the second
/// run): every other rank learns it within seconds and names it, which is
/// what lets a collective waiting on it fail at once.
#[test]
fn a_rank_whose_process_ends_is_reported_lost_to_every_rank() {
    for gone in [2usize, 0] {
        let port = free_port();
        let roles: Vec<&str> = (0..4)
            .map(|r| if r == gone { "leave" } else { "watch" })
            .collect();
        let envs: Vec<_> = (0..4)
            .map(|r| {
                let mut e = slurm_tcp(r, 4, port, "30");
                e.push(("WATCH_FOR".into(), gone.to_string()));
                without_gpus(e)
            })
            .collect();
        let results = nccl_common::run_roles_limited(&roles, envs, LIMIT);
        for (r, res) in results.iter().enumerate() {
            if r == gone {
                continue;
            }
            let line = res.as_ref().unwrap_or_else(|e| panic!("rank {r}: {e}"));
            assert!(
                line.starts_with("OK ") && line.contains(&format!("rank {gone} lost")),
                "rank {r}: {line}"
            );
        }
    }
}

#[test]
fn tcp_mpirun_like_three_ranks() {
    let port = free_port();
    let envs = (0..3)
        .map(|r| {
            vars(&[
                ("OMPI_COMM_WORLD_RANK", r.to_string()),
                ("OMPI_COMM_WORLD_SIZE", "3".into()),
                ("OMPI_COMM_WORLD_LOCAL_RANK", r.to_string()),
                ("MASTER_ADDR", "localhost".into()),
                ("MASTER_PORT", port.to_string()),
            ])
        })
        .collect();
    assert_all_share(&run_ranks("share", envs, LIMIT), 3, "openmpi");
}

#[test]
fn tcp_torchrun_and_hydra_like_two_ranks() {
    let port = free_port();
    let envs = (0..2)
        .map(|r| {
            vars(&[
                ("RANK", r.to_string()),
                ("WORLD_SIZE", "2".into()),
                ("LOCAL_RANK", r.to_string()),
                ("MASTER_ADDR", "127.0.0.1".into()),
                ("MASTER_PORT", port.to_string()),
            ])
        })
        .collect();
    assert_all_share(&run_ranks("share", envs, LIMIT), 2, "torchrun");
    let port = free_port();
    let envs = (0..2)
        .map(|r| {
            vars(&[
                ("PMI_RANK", r.to_string()),
                ("PMI_SIZE", "2".into()),
                ("MPI_LOCALRANKID", r.to_string()),
                ("MASTER_ADDR", "127.0.0.1".into()),
                ("MASTER_PORT", port.to_string()),
            ])
        })
        .collect();
    assert_all_share(&run_ranks("share", envs, LIMIT), 2, "mpich");
}

/// Without `MASTER_ADDR`/`MASTER_PORT`: the first host of the node list, on
/// the port the Slurm job id gives.
#[test]
fn tcp_from_slurm_node_list_and_job_id() {
    let port = free_port_in(20000..40000);
    let job = 7_000_000 + (port as usize - 20000);
    assert_eq!(slurm_port(job), port);
    let envs = (0..2)
        .map(|r| {
            vars(&[
                ("SLURM_PROCID", r.to_string()),
                ("SLURM_NTASKS", "2".into()),
                ("SLURM_LOCALID", "0".into()),
                ("SLURM_JOB_NODELIST", "localhost,node[02-03]".into()),
                ("SLURM_JOB_ID", job.to_string()),
            ])
        })
        .collect();
    assert_all_share(&run_ranks("share", envs, LIMIT), 2, "slurm");
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuprite-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn file_envs(
    path: &Path,
    world: usize,
    job: &str,
    rank0_delay_ms: u64,
) -> Vec<Vec<(String, String)>> {
    (0..world)
        .map(|r| {
            let mut e = vars(&[
                ("SLURM_PROCID", r.to_string()),
                ("SLURM_NTASKS", world.to_string()),
                ("SLURM_LOCALID", r.to_string()),
                ("SLURM_JOB_ID", job.to_string()),
                ("CUPRITE_NCCL_ID_FILE", path.display().to_string()),
                ("CUPRITE_NCCL_TIMEOUT", "30".into()),
            ]);
            if r == 0 {
                e.push((DELAY.into(), rank0_delay_ms.to_string()));
            }
            e
        })
        .collect()
}

/// The file rendezvous, with a file of an earlier job already in place:
/// the others wait for rank 0's new file instead of taking the stale one.
#[test]
fn file_rendezvous_skips_a_stale_file() {
    let dir = temp_dir("idfile");
    let path = dir.join("nccl.id");
    let first = run_ranks("share", file_envs(&path, 3, "41", 0), LIMIT);
    let old = assert_all_share(&first, 3, "slurm");
    assert!(path.exists());
    // Job 42 finds job 41's file; its rank 0 comes late.
    let second = run_ranks("share", file_envs(&path, 3, "42", 1500), LIMIT);
    let new = assert_all_share(&second, 3, "slurm");
    assert_ne!(old, new, "job 42 took job 41's id");
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "temporary files left: {leftovers:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn file_rendezvous_times_out_naming_the_file() {
    let dir = temp_dir("idfile-missing");
    let path = dir.join("nccl.id");
    let mut env = file_envs(&path, 2, "43", 0).remove(1);
    env.push(("CUPRITE_NCCL_TIMEOUT".into(), "1".into()));
    let start = Instant::now();
    let r = run_ranks("share", vec![env], LIMIT).remove(0);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert!(r.starts_with("ERR "), "{r}");
    assert!(
        r.contains("rank 1 of 2 waited 1 s") && r.contains("nccl.id") && r.contains("no file"),
        "{r}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A world of 3 of which only 2 ranks start: both fail soon, rank 0 naming
/// the missing rank, rank 1 repeating rank 0's verdict.
#[test]
fn a_missing_rank_is_named_after_the_time_out() {
    let port = free_port();
    let start = Instant::now();
    let results = run_ranks(
        "share",
        vec![slurm_tcp(0, 3, port, "2"), slurm_tcp(1, 3, port, "2")],
        LIMIT,
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    let want = format!("rank 2 of 3 did not connect to 127.0.0.1:{port} within 2 s");
    assert!(
        results[0].starts_with("ERR ") && results[0].contains(&want),
        "{}",
        results[0]
    );
    assert!(
        results[1].starts_with("ERR ")
            && results[1].contains("rank 0 gave up")
            && results[1].contains(&want),
        "{}",
        results[1]
    );
}

#[test]
fn rank_0_missing_names_the_address() {
    let port = free_port();
    let r = run_ranks("share", vec![slurm_tcp(1, 2, port, "1")], LIMIT).remove(0);
    let want = format!("rank 1 of 2 could not reach rank 0 at 127.0.0.1:{port} within 1 s");
    assert!(r.starts_with("ERR ") && r.contains(&want), "{r}");
}

/// A rank started with another world size is refused at once, with why.
#[test]
fn a_mismatched_world_size_is_refused() {
    let port = free_port();
    let results = run_ranks(
        "share",
        vec![slurm_tcp(0, 2, port, "3"), slurm_tcp(1, 3, port, "3")],
        LIMIT,
    );
    assert!(results[1].starts_with("ERR "), "{}", results[1]);
    assert!(
        results[1].contains("says the world has 3 ranks, rank 0 says 2"),
        "{}",
        results[1]
    );
    assert!(
        results[0].contains("rank 1 of 2 did not connect") && results[0].contains("refused"),
        "{}",
        results[0]
    );
}

/// A stranger on rank 0's port (here, an HTTP request) is answered with a
/// refusal and does not disturb the real ranks.
#[test]
fn a_stranger_is_refused_and_the_ranks_still_meet() {
    let port = free_port();
    let rank0 = spawn("share", slurm_tcp(0, 2, port, "30"));
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut stream = loop {
        match TcpStream::connect(("127.0.0.1", port)) {
            Ok(s) => break s,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("rank 0 never listened: {e}"),
        }
    };
    stream.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    assert!(
        text.contains("not a Cuprite rendezvous message"),
        "{text:?}"
    );
    let rank1 = spawn("share", slurm_tcp(1, 2, port, "30"));
    let results = vec![result_of(rank0, LIMIT), result_of(rank1, LIMIT)];
    assert_all_share(&results, 2, "slurm");
}

/// `world()` without a launcher: one rank on the CPU (no GPU visible), the
/// same object each call; a bad launcher environment gives the same error
/// each call.
#[test]
fn world_of_one_and_world_errors() {
    let ok = run_ranks("world", vec![vec![]], LIMIT).remove(0);
    assert!(
        ok.starts_with("OK same=true rank=0 world=1 devices=[Cpu]"),
        "{ok}"
    );
    assert!(
        ok.contains("world of 1 on") && ok.contains("no NCCL"),
        "{ok}"
    );
    let bad = vars(&[("SLURM_PROCID", "5".into()), ("SLURM_NTASKS", "2".into())]);
    let err = run_ranks("world", vec![bad], LIMIT).remove(0);
    assert!(err.starts_with("ERR same_error=true"), "{err}");
    assert!(
        err.contains("SLURM_PROCID=5 is not a rank of a world of SLURM_NTASKS=2"),
        "{err}"
    );
    // Two ranks but no GPU: an error, not a CPU world.
    let two = vars(&[
        ("RANK", "0".into()),
        ("WORLD_SIZE", "2".into()),
        ("MASTER_ADDR", "127.0.0.1".into()),
    ]);
    let err = run_ranks("world", vec![two], LIMIT).remove(0);
    assert!(
        err.starts_with("ERR ") && err.contains("needs a GPU"),
        "{err}"
    );
}

// ---------------------------------------------------------------------------
// Parsing, in this process
// ---------------------------------------------------------------------------

/// Variables as (name, value) pairs.
type Env<'a> = &'a [(&'a str, &'a str)];

/// (rank, world size, local rank, launcher).
type Place = (usize, usize, usize, &'static str);

fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

fn launch(pairs: &[(&str, &str)]) -> cp::Result<Launch> {
    Launch::from_lookup(lookup(pairs))
}

#[test]
fn launchers_are_read_from_their_variables() {
    let l = launch(&[]).unwrap();
    assert_eq!(
        (l.rank, l.world_size, l.local_rank, l.launcher),
        (0, 1, 0, "none")
    );
    let cases: [(Env, Place); 6] = [
        (
            &[
                ("SLURM_PROCID", "5"),
                ("SLURM_NTASKS", "8"),
                ("SLURM_LOCALID", "1"),
            ],
            (5, 8, 1, "slurm"),
        ),
        (
            &[
                ("OMPI_COMM_WORLD_RANK", "2"),
                ("OMPI_COMM_WORLD_SIZE", "4"),
                ("OMPI_COMM_WORLD_LOCAL_RANK", "0"),
            ],
            (2, 4, 0, "openmpi"),
        ),
        (
            &[
                ("PMI_RANK", "3"),
                ("PMI_SIZE", "4"),
                ("MPI_LOCALRANKID", "3"),
            ],
            (3, 4, 3, "mpich"),
        ),
        (
            &[("RANK", "1"), ("WORLD_SIZE", "2"), ("LOCAL_RANK", "1")],
            (1, 2, 1, "torchrun"),
        ),
        (
            &[("PMIX_RANK", "6"), ("SLURM_NTASKS", "7")],
            (6, 7, 6, "pmix"),
        ),
        // srun sets the step's task count; the job's may be larger.
        (
            &[
                ("SLURM_PROCID", "1"),
                ("SLURM_NTASKS", "16"),
                ("SLURM_STEP_NUM_TASKS", "2"),
            ],
            (1, 2, 1, "slurm"),
        ),
    ];
    for (env, want) in cases {
        let l = launch(env).unwrap();
        assert_eq!(
            (l.rank, l.world_size, l.local_rank, l.launcher),
            want,
            "{env:?}"
        );
    }
    // mpirun inside a Slurm batch step (whose SLURM_PROCID is 0 for all):
    // Open MPI's variables win; torchrun inside srun: torchrun's win.
    let l = launch(&[
        ("SLURM_PROCID", "0"),
        ("SLURM_NTASKS", "1"),
        ("OMPI_COMM_WORLD_RANK", "3"),
        ("OMPI_COMM_WORLD_SIZE", "4"),
    ])
    .unwrap();
    assert_eq!((l.rank, l.world_size, l.launcher), (3, 4, "openmpi"));
    let l = launch(&[
        ("SLURM_PROCID", "1"),
        ("SLURM_NTASKS", "2"),
        ("RANK", "5"),
        ("WORLD_SIZE", "8"),
    ])
    .unwrap();
    assert_eq!((l.rank, l.world_size, l.launcher), (5, 8, "torchrun"));
}

#[test]
fn bad_launcher_values_name_the_variable() {
    let cases: [(Env, &str); 6] = [
        (
            &[("SLURM_PROCID", "x"), ("SLURM_NTASKS", "2")],
            "SLURM_PROCID=\"x\" is not a non-negative integer",
        ),
        (
            &[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "-2")],
            "SLURM_NTASKS=\"-2\"",
        ),
        (
            &[("RANK", "2"), ("WORLD_SIZE", "2")],
            "RANK=2 is not a rank of a world of WORLD_SIZE=2",
        ),
        (&[("RANK", "0"), ("WORLD_SIZE", "0")], "WORLD_SIZE=0"),
        (&[("PMI_RANK", "0")], "PMI_SIZE is not set"),
        (
            &[
                ("OMPI_COMM_WORLD_RANK", "0"),
                ("OMPI_COMM_WORLD_SIZE", "2"),
                ("OMPI_COMM_WORLD_LOCAL_RANK", "9"),
            ],
            "OMPI_COMM_WORLD_LOCAL_RANK=9",
        ),
    ];
    for (env, want) in cases {
        let e = launch(env).unwrap_err().to_string();
        assert!(
            e.contains(want) && e.contains("nccl::Launch"),
            "{env:?}: {e}"
        );
    }
}

#[test]
fn gpu_choice_from_the_local_rank() {
    use cp::Device;
    assert_eq!(choose_device(0, 1, 0).unwrap(), Device::Cpu);
    assert_eq!(choose_device(0, 1, 4).unwrap(), Device::Cuda(0));
    assert_eq!(choose_device(7, 16, 1).unwrap(), Device::Cuda(0));
    assert_eq!(choose_device(6, 16, 4).unwrap(), Device::Cuda(2));
    assert_eq!(choose_device(3, 8, 8).unwrap(), Device::Cuda(3));
    let e = choose_device(1, 2, 0).unwrap_err().to_string();
    assert!(
        e.contains("local rank 1 of a world of 2 needs a GPU"),
        "{e}"
    );
}

#[test]
fn slurm_node_lists_expand() {
    let cases: [(&str, &[&str]); 10] = [
        ("node01", &["node01"]),
        (
            "node[01-04,07],gpu3",
            &["node01", "node02", "node03", "node04", "node07", "gpu3"],
        ),
        ("a[1-2]b[3-4]", &["a1b3", "a1b4", "a2b3", "a2b4"]),
        ("rack1-node[001-002]", &["rack1-node001", "rack1-node002"]),
        ("n[8-11]", &["n8", "n9", "n10", "n11"]),
        ("n[098-101]", &["n098", "n099", "n100", "n101"]),
        ("gpu[3]", &["gpu3"]),
        ("x[1-2]-ib", &["x1-ib", "x2-ib"]),
        ("c1,c2,", &["c1", "c2"]),
        (
            "node[1,3-4],login[01-02]",
            &["node1", "node3", "node4", "login01", "login02"],
        ),
    ];
    for (list, want) in cases {
        assert_eq!(parse_nodelist(list).unwrap(), want, "{list}");
        assert_eq!(first_host(list).unwrap(), want[0], "{list}");
    }
    for bad in [
        "",
        "node[01-",
        "node]1",
        "node[4-2]",
        "node[a-b]",
        "n[[1]]",
        "n[1-]",
        ",",
    ] {
        let e = parse_nodelist(bad).unwrap_err().to_string();
        assert!(e.contains("node list"), "{bad}: {e}");
    }
}

fn rendezvous(pairs: &[(&str, &str)]) -> cp::Result<Rendezvous> {
    let launch = Launch::from_lookup(lookup(pairs))?;
    Rendezvous::from_lookup(&launch, lookup(pairs))
}

#[test]
fn rendezvous_settings() {
    let two = [("SLURM_PROCID", "1"), ("SLURM_NTASKS", "2")];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut v: Vec<(&str, &str)> = two.to_vec();
        v.extend_from_slice(extra);
        rendezvous(&v)
    };
    assert_eq!(rendezvous(&[]).unwrap(), Rendezvous::Alone);
    let tcp = |host: &str, port: u16, secs: u64| Rendezvous::Tcp {
        host: host.into(),
        port,
        timeout: Duration::from_secs(secs),
    };
    assert_eq!(
        with(&[("MASTER_ADDR", "10.0.0.1"), ("MASTER_PORT", "29501")]).unwrap(),
        tcp("10.0.0.1", 29501, 120)
    );
    // MASTER_ADDR wins over the node list; the port comes from the job id.
    assert_eq!(
        with(&[
            ("MASTER_ADDR", "head"),
            ("SLURM_JOB_NODELIST", "n[1-2]"),
            ("SLURM_JOB_ID", "45678")
        ])
        .unwrap(),
        tcp("head", 25678, 120)
    );
    assert_eq!(
        with(&[
            ("SLURM_JOB_NODELIST", "gpu[12-13]"),
            ("CUPRITE_NCCL_TIMEOUT", "5")
        ])
        .unwrap(),
        tcp("gpu12", 29500, 5)
    );
    assert_eq!(
        with(&[
            ("CUPRITE_NCCL_ID_FILE", "/shared/id"),
            ("SLURM_JOB_ID", "9"),
            ("SLURM_STEP_ID", "2"),
            ("MASTER_ADDR", "h")
        ])
        .unwrap(),
        Rendezvous::File {
            path: "/shared/id".into(),
            tag: "slurm-9.2".into(),
            timeout: Duration::from_secs(120)
        }
    );
    for (extra, want) in [
        (&[][..], "set MASTER_ADDR and MASTER_PORT"),
        (
            &[("MASTER_ADDR", "h"), ("MASTER_PORT", "70000")][..],
            "MASTER_PORT=70000 is not a TCP port",
        ),
        (
            &[("MASTER_ADDR", "h"), ("CUPRITE_NCCL_TIMEOUT", "soon")][..],
            "CUPRITE_NCCL_TIMEOUT=\"soon\"",
        ),
        (
            &[("MASTER_ADDR", "h"), ("CUPRITE_NCCL_TIMEOUT", "0")][..],
            "CUPRITE_NCCL_TIMEOUT=\"0\"",
        ),
        (&[("SLURM_JOB_NODELIST", "n[1-")][..], "SLURM_JOB_NODELIST"),
    ] {
        let e = with(extra).unwrap_err().to_string();
        assert!(e.contains(want), "{extra:?}: {e}");
    }
}
