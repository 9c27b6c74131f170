//! Weak and strong scaling of distributed arrays on 1, 2 and 4 GPUs: a
//! 5-point heat-equation step (one halo exchange and local arithmetic), a
//! global sum (local sum and one all-reduce) and a slab `fft2` (local FFTs
//! and one all-to-all transpose). Run without arguments: this program
//! starts itself again as the ranks of each world (Slurm's variables, a
//! free port on 127.0.0.1), one GPU each, and prints one JSON row per case
//! and world size with the slowest rank's median time and the efficiency
//! against one GPU (weak: t1 / tW; strong: t1 / (W tW)).
//!
//! `cargo run --release --example dist_scaling [-- --worlds 1,2,4]`

use std::process::{Command, Stdio};
use std::time::Instant;

use cp::dist::DistArray;
use cp::nccl::ReduceOp;
use cuprite as cp;

const CHILD: &str = "CUPRITE_DIST_SCALING_RANK";

fn main() -> cp::Result<()> {
    if std::env::var_os(CHILD).is_some() {
        return rank_main();
    }
    let mut worlds = vec![1usize, 2, 4];
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--worlds") {
        if let Some(list) = args.get(i + 1) {
            worlds = list
                .split(',')
                .filter_map(|w| w.trim().parse().ok())
                .collect();
        }
    }
    let gpus = cp::device_count();
    let mut base: std::collections::HashMap<String, f64> = Default::default();
    for w in worlds.into_iter().filter(|&w| w <= gpus.max(1)) {
        for line in run_world(w)? {
            let Some(rest) = line.strip_prefix("ROW ") else {
                continue;
            };
            let parts: Vec<&str> = rest.split_whitespace().collect();
            let (case, kind, ms) = (
                parts[0],
                parts[1],
                parts[2].parse::<f64>().unwrap_or(f64::NAN),
            );
            let t1 = *base.entry(case.to_string()).or_insert(ms);
            let eff = if kind == "weak" {
                t1 / ms
            } else {
                t1 / (w as f64 * ms)
            };
            println!(
                "{{\"case\": \"{case}\", \"scaling\": \"{kind}\", \"gpus\": {w}, \"ms\": {ms:.4}, \"efficiency\": {eff:.3}}}"
            );
        }
    }
    Ok(())
}

fn run_world(world: usize) -> cp::Result<Vec<String>> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(29500);
    let me = std::env::current_exe().map_err(|e| fail(format!("own path: {e}")))?;
    let children = (0..world)
        .map(|rank| {
            Command::new(&me)
                .env(CHILD, "1")
                .env("SLURM_PROCID", rank.to_string())
                .env("SLURM_NTASKS", world.to_string())
                .env("SLURM_LOCALID", rank.to_string())
                .env("MASTER_ADDR", "127.0.0.1")
                .env("MASTER_PORT", port.to_string())
                .env("NCCL_NVLS_ENABLE", "0")
                .stdout(if rank == 0 {
                    Stdio::piped()
                } else {
                    Stdio::null()
                })
                .spawn()
        })
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(|e| fail(format!("starting ranks: {e}")))?;
    let mut lines = Vec::new();
    for (rank, c) in children.into_iter().enumerate() {
        let out = c
            .wait_with_output()
            .map_err(|e| fail(format!("rank {rank}: {e}")))?;
        if !out.status.success() {
            return Err(fail(format!(
                "rank {rank} of {world} failed: {}",
                out.status
            )));
        }
        lines.extend(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string),
        );
    }
    Ok(lines)
}

fn fail(detail: String) -> cp::Error {
    cp::Error::InvalidArgument {
        op: "dist_scaling",
        detail,
    }
}

/// The slowest rank's median time (ms) of `f` over `repeats` runs.
fn time(repeats: usize, mut f: impl FnMut() -> cp::Result<()>) -> cp::Result<f64> {
    let comm = cp::nccl::world()?;
    for _ in 0..3 {
        f()?;
    }
    cp::cuda::stream::current_stream().synchronize()?;
    let mut ms = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        comm.barrier()?;
        let t = Instant::now();
        f()?;
        cp::cuda::stream::current_stream().synchronize()?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    let mine = cp::asarray(vec![ms[ms.len() / 2]])?;
    Ok(comm.all_reduce(&[mine], ReduceOp::Max)?[0].to_vec::<f64>()?[0])
}

/// One explicit step of the heat equation, periodic in both directions.
fn heat_step(u: &DistArray) -> cp::Result<DistArray> {
    let h = u.halo(1, true)?;
    let n = u.local().shape()[0] as isize;
    let up = h.slice(cp::s![0..n, ..])?;
    let down = h.slice(cp::s![2..n + 2, ..])?;
    let local = u.local();
    let left = cp::roll(local, 1, Some(1))?;
    let right = cp::roll(local, -1, Some(1))?;
    let lap = &(&(&up + &down) + &(&left + &right)) - &(local * 4.0);
    u.map(|b| cp::add(b, &(lap * 0.1f32)))
}

fn rank_main() -> cp::Result<()> {
    let comm = cp::nccl::world()?;
    let w = comm.world_size();
    let rank0 = comm.rank() == 0;
    cp::with_device(comm.devices()[0], || {
        let row = |case: &str, kind: &str, ms: f64| {
            if rank0 {
                println!("ROW {case} {kind} {ms}");
            }
        };
        // Heat step: weak 8192 x 8192 float32 per GPU, strong 16384 x 8192.
        for (case, kind, rows) in [
            ("heat_step_8192sq_per_gpu", "weak", 8192 * w),
            ("heat_step_16384x8192", "strong", 16384),
        ] {
            let mut u = DistArray::random([rows, 8192], cp::f32, 1, Some(0))?;
            let ms = time(10, || {
                u = heat_step(&u)?;
                Ok(())
            })?;
            row(case, kind, ms);
        }
        // Global sum: weak 256M float32 per GPU, strong 512M.
        for (case, kind, n) in [
            ("sum_256M_f32_per_gpu", "weak", (256usize << 20) * w),
            ("sum_512M_f32", "strong", 512 << 20),
        ] {
            let x = DistArray::ones([n], cp::f32, Some(0))?;
            let ms = time(20, || x.sum().map(|_| ()))?;
            row(case, kind, ms);
        }
        // fft2 of complex64: weak 4096 x 4096 per GPU, strong 8192 x 8192.
        for (case, kind, rows, cols) in [
            ("fft2_4096sq_c64_per_gpu", "weak", 4096 * w, 4096),
            ("fft2_8192sq_c64", "strong", 8192, 8192),
        ] {
            let x = DistArray::random([rows, cols], cp::f32, 2, Some(0))?.astype(cp::c64)?;
            let ms = time(10, || x.fft2().map(|_| ()))?;
            row(case, kind, ms);
        }
        Ok(())
    })
}
