//! All-reduce between 2 processes and, with 4 GPUs, 4 processes, one GPU
//! each, joined by `cp::nccl::world()` as `srun` would start them: this
//! binary runs itself again as every rank (Slurm's variables,
//! `MASTER_ADDR=127.0.0.1`, a free port). Float32 arrays of 8 MB to 1 GB per
//! rank, with NCCL's default transports (`..._2proc`, `..._4proc`) and with
//! `NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1` (`..._2proc_net`, `..._4proc_net`,
//! the network path). Reported as `nccl.rs` does (the slowest rank's events,
//! bus bandwidth); `cupy_nccl.py` measures the same with `cupy.cuda.nccl`.

use std::process::{Command, Stdio};
use std::time::Instant;

use super::{median, Bench, Row};
use cp::cuda::{Event, Stream};
use cp::nccl::ReduceOp;
use cuprite as cp;

/// Marks a rank started by the parent bench, naming its case suffix.
const CHILD: &str = "CUPRITE_BENCH_NCCL_PROCS";

/// Sizes of one rank's float32 array.
const SIZES: [(&str, usize); 4] = [
    ("8MB", 8 << 20),
    ("64MB", 64 << 20),
    ("256MB", 256 << 20),
    ("1GB", 1 << 30),
];

const TRANSPORTS: [(&str, &[(&str, &str)]); 2] = [
    ("", &[]),
    (
        "_net",
        &[("NCCL_P2P_DISABLE", "1"), ("NCCL_SHM_DISABLE", "1")],
    ),
];

/// In the parent: starts the ranks of each world size and transport and
/// records rank 0's rows. In a rank: measures and prints them.
pub fn run(b: &mut Bench) -> cp::Result<()> {
    if let Ok(suffix) = std::env::var(CHILD) {
        return rank_main(&suffix);
    }
    let gpus = cp::device_count();
    for nproc in [2usize, 4] {
        if nproc > 2 && nproc > gpus {
            continue;
        }
        for (transport, env) in TRANSPORTS {
            let suffix = format!("{nproc}proc{transport}");
            run_world(b, nproc, &suffix, env, gpus)?;
        }
    }
    Ok(())
}

fn run_world(
    b: &mut Bench,
    nproc: usize,
    suffix: &str,
    env: &[(&str, &str)],
    gpus: usize,
) -> cp::Result<()> {
    {
        let names: Vec<String> = SIZES
            .iter()
            .map(|(label, _)| format!("allreduce_f32_{label}_{suffix}"))
            .collect();
        if !names.iter().any(|n| b.wanted(n)) {
            return Ok(());
        }
        if gpus < nproc {
            eprintln!("{suffix} cases skipped: {nproc} processes with a GPU each need {nproc} CUDA devices, found {gpus}");
            return Ok(());
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or(29500);
        let children: Vec<_> = (0..nproc)
            .map(|rank| {
                let mut cmd = Command::new(std::env::current_exe().expect("the bench's own path"));
                // The in-process cases are not wanted in the ranks.
                cmd.args(["--nccl-only", "--case", "none"])
                    .env(CHILD, suffix)
                    .env("SLURM_PROCID", rank.to_string())
                    .env("SLURM_NTASKS", nproc.to_string())
                    .env("SLURM_LOCALID", rank.to_string())
                    .env("MASTER_ADDR", "127.0.0.1")
                    .env("MASTER_PORT", port.to_string())
                    .env("NCCL_NVLS_ENABLE", "0")
                    .envs(env.iter().copied())
                    .env("CUPRITE_NCCL_TIMEOUT", "300")
                    .stdout(if rank == 0 {
                        Stdio::piped()
                    } else {
                        Stdio::null()
                    });
                for var in [
                    "RANK",
                    "WORLD_SIZE",
                    "OMPI_COMM_WORLD_RANK",
                    "PMI_RANK",
                    "SLURM_STEP_NUM_TASKS",
                ] {
                    cmd.env_remove(var);
                }
                cmd.spawn()
            })
            .collect::<std::io::Result<_>>()
            .map_err(|e| failed(format!("starting the ranks: {e}")))?;
        let mut outputs = Vec::new();
        for child in children {
            outputs.push(
                child
                    .wait_with_output()
                    .map_err(|e| failed(format!("waiting for a rank: {e}")))?,
            );
        }
        if let Some(bad) = outputs.iter().find(|o| !o.status.success()) {
            return Err(failed(format!("a rank failed ({})", bad.status)));
        }
        for line in String::from_utf8_lossy(&outputs[0].stdout).lines() {
            if let Some(row) = line.strip_prefix("ROW ").and_then(parse_row) {
                if b.wanted(&row.case) {
                    println!("{}", row.json());
                    b.rows.push(row);
                }
            } else if line.starts_with("{\"nccl") {
                println!("{line}");
            }
        }
    }
    Ok(())
}

/// One rank: every size, rows printed by rank 0.
fn rank_main(suffix: &str) -> cp::Result<()> {
    let comm = cp::nccl::world()?;
    let device = comm.devices()[0];
    if comm.rank() == 0 {
        println!(
            "{{\"nccl\": \"{}\", \"launch\": \"{}\"}}",
            comm.to_string().replace('"', "'"),
            cp::nccl::world_launch()?
        );
    }
    cp::with_device(device, || {
        for (label, bytes) in SIZES {
            let n = bytes / 4;
            let x = cp::random::default_rng(17 + comm.rank() as u64).random_as([n], cp::f32)?;
            let mut out = comm.all_reduce(std::slice::from_ref(&x), ReduceOp::Sum)?;
            let repeats = if bytes >= 1 << 30 { 10 } else { 20 };
            let (gpu, cpu) = time_rank(comm, &x, &mut out, repeats, 5)?;
            // The slowest rank's time of each repeat.
            let gpu = cp::asarray(gpu)?;
            let slowest = comm.all_reduce(&[gpu], ReduceOp::Max)?[0].to_vec::<f64>()?;
            if comm.rank() == 0 {
                let gpu_ms = median(slowest);
                let algbw = bytes as f64 / (gpu_ms * 1e-3) / 1e9;
                let world = comm.world_size() as f64;
                println!(
                    "ROW allreduce_f32_{label}_{suffix} {gpu_ms} {} {algbw} {}",
                    median(cpu),
                    algbw * 2.0 * (world - 1.0) / world
                );
            }
        }
        Ok(())
    })
}

/// This rank's GPU times (ms) and host times (us) of `n_repeat` all-reduces.
fn time_rank(
    comm: &cp::nccl::Communicator,
    x: &cp::Array,
    out: &mut [cp::Array],
    n_repeat: usize,
    n_warmup: usize,
) -> cp::Result<(Vec<f64>, Vec<f64>)> {
    let xs = std::slice::from_ref(x);
    for _ in 0..n_warmup {
        comm.all_reduce_into(xs, out, ReduceOp::Sum)?;
    }
    comm.synchronize()?;
    let (start, end) = (Event::new()?, Event::new()?);
    let stream = Stream::null();
    let mut gpu = Vec::with_capacity(n_repeat);
    let mut cpu = Vec::with_capacity(n_repeat);
    for _ in 0..n_repeat {
        start.record(&stream)?;
        let t = Instant::now();
        comm.all_reduce_into(xs, out, ReduceOp::Sum)?;
        cpu.push(t.elapsed().as_secs_f64() * 1e6);
        end.record(&stream)?;
        gpu.push(Event::elapsed_ms(&start, &end)? as f64);
    }
    Ok((gpu, cpu))
}

fn parse_row(text: &str) -> Option<Row> {
    let mut f = text.split(' ');
    let case = f.next()?.to_string();
    let mut num = || f.next()?.parse::<f64>().ok();
    Some(Row {
        case,
        gpu_ms: num()?,
        cpu_us: num()?,
        gb_s: Some(num()?),
        tflop_s: None,
        busbw_gb_s: Some(num()?),
    })
}

fn failed(detail: String) -> cp::Error {
    cp::Error::InvalidArgument {
        op: "cuprite-bench nccl_procs",
        detail,
    }
}
