//! Two processes, one GPU each, joined by `cp::nccl::world()` as `srun`
//! would start them (`SLURM_PROCID/NTASKS/LOCALID`, `MASTER_ADDR=127.0.0.1`
//! and a free port): every collective and a send/recv ring, each rank
//! checking its results against values it computes itself. Run twice: with
//! NCCL's default transports, and with `NCCL_P2P_DISABLE=1
//! NCCL_SHM_DISABLE=1` (the network path). `NCCL_NVLS_ENABLE=0` always.
//!
//! Runs only with `CUPRITE_REQUIRE_GPU` set and at least 2 GPUs; otherwise
//! it prints why it is skipped and passes (one-GPU machines included).

mod nccl_common;

use std::time::Duration;

use cp::nccl::{Communicator, ReduceOp};
use cp::{Array, DType};
use cuprite as cp;
use nccl_common::{free_port, run_ranks, slurm_tcp};

const WORLD: usize = 2;
const N: usize = 1000;

/// Does nothing in a normal run; in a child, is one rank of the job.
#[test]
fn child_rank() {
    let Some(_) = nccl_common::child_role() else {
        return;
    };
    nccl_common::report(&match one_rank() {
        Ok(done) => format!("OK {done}"),
        Err(e) => format!("ERR {e}"),
    });
}

fn both_transports_or_skip() -> bool {
    let gpus = cp::device_count();
    if std::env::var_os("CUPRITE_REQUIRE_GPU").is_none() {
        eprintln!("skipped: set CUPRITE_REQUIRE_GPU=1 on a machine with 2 GPUs to run the two-process NCCL test");
        return false;
    }
    if gpus < WORLD {
        eprintln!(
            "skipped: two processes with a GPU each need {WORLD} CUDA devices, found {gpus} ({})",
            cp::device::cuda_status().reason
        );
        return false;
    }
    true
}

fn run_world(extra: &[(&str, &str)]) {
    let port = free_port();
    let envs = (0..WORLD)
        .map(|r| {
            let mut e = slurm_tcp(r, WORLD, port, "120");
            e.push(("NCCL_NVLS_ENABLE".into(), "0".into()));
            e.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            e
        })
        .collect();
    let results = run_ranks("gpu", envs, Duration::from_secs(300));
    for (r, line) in results.iter().enumerate() {
        assert!(line.starts_with("OK "), "rank {r} ({extra:?}): {line}");
        println!("rank {r} ({extra:?}): {line}");
    }
}

#[test]
fn two_processes_default_transports() {
    if both_transports_or_skip() {
        run_world(&[]);
    }
}

#[test]
fn two_processes_network_transport() {
    if both_transports_or_skip() {
        run_world(&[("NCCL_P2P_DISABLE", "1"), ("NCCL_SHM_DISABLE", "1")]);
    }
}

// ---------------------------------------------------------------------------
// One rank
// ---------------------------------------------------------------------------

/// Rank `r`'s element `i`: small integers, exact in float32 and int32 and
/// never 0 (so products and minima say something).
fn value(r: usize, i: usize) -> f64 {
    ((i * 7 + r * 3) % 11 + 1) as f64
}

fn values(r: usize, n: usize) -> Vec<f64> {
    (0..n).map(|i| value(r, i)).collect()
}

fn on_gpu(comm: &Communicator, v: &[f64], dtype: DType) -> cp::Result<Array> {
    cp::with_device(comm.devices()[0], || {
        cp::from_shape_vec([v.len()], v.to_vec(), cp::Order::C)?.astype(dtype)
    })
}

fn host(a: &Array) -> cp::Result<Vec<f64>> {
    a.astype(DType::Float64)?.to_vec::<f64>()
}

fn check(what: &str, got: &Array, want: &[f64]) -> cp::Result<()> {
    let got = host(got)?;
    if got != want {
        let bad = got.iter().zip(want).position(|(a, b)| a != b);
        return Err(cp::Error::InvalidArgument {
            op: "nccl_multiprocess",
            detail: format!(
                "{what}: {} values, first difference at {bad:?} (got {:?}, want {:?})",
                got.len(),
                bad.map(|i| got[i]),
                bad.map(|i| want[i])
            ),
        });
    }
    Ok(())
}

fn combine(op: ReduceOp, a: f64, b: f64) -> f64 {
    match op {
        ReduceOp::Sum | ReduceOp::Avg => a + b,
        ReduceOp::Prod => a * b,
        ReduceOp::Max => a.max(b),
        ReduceOp::Min => a.min(b),
    }
}

/// `op` over every rank's `values(r, n)`, as NCCL computes it (integer
/// averages truncate).
fn reduced(op: ReduceOp, n: usize, integer: bool) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let acc = (1..WORLD).fold(value(0, i), |acc, r| combine(op, acc, value(r, i)));
            match (op, integer) {
                (ReduceOp::Avg, true) => (acc / WORLD as f64).trunc(),
                (ReduceOp::Avg, false) => acc / WORLD as f64,
                _ => acc,
            }
        })
        .collect()
}

fn one_rank() -> cp::Result<String> {
    let comm = cp::nccl::world()?;
    let (me, world) = (comm.rank(), comm.world_size());
    if world != WORLD || !comm.uses_nccl() {
        return Err(cp::Error::InvalidArgument {
            op: "nccl_multiprocess",
            detail: format!("expected an NCCL world of {WORLD}, got {comm}"),
        });
    }
    let mine = values(me, N);
    for dtype in [DType::Float32, DType::Int32] {
        let x = on_gpu(comm, &mine, dtype)?;
        let integer = dtype == DType::Int32;
        for op in [
            ReduceOp::Sum,
            ReduceOp::Prod,
            ReduceOp::Max,
            ReduceOp::Min,
            ReduceOp::Avg,
        ] {
            let y = comm.all_reduce(std::slice::from_ref(&x), op)?;
            check(
                &format!("all_reduce {op} {dtype}"),
                &y[0],
                &reduced(op, N, integer),
            )?;
        }
    }
    let x = on_gpu(comm, &mine, DType::Float32)?;
    // broadcast from the last rank, in place
    let mut b = [x.copy()?];
    comm.broadcast(&mut b, WORLD - 1)?;
    check("broadcast", &b[0], &values(WORLD - 1, N))?;
    // reduce to rank 0
    let r = comm.reduce(std::slice::from_ref(&x), ReduceOp::Sum, 0)?;
    match (me, r) {
        (0, Some(r)) => check("reduce", &r, &reduced(ReduceOp::Sum, N, false))?,
        (0, None) => return Err(failure("reduce gave rank 0 nothing")),
        (_, Some(_)) => return Err(failure("reduce gave a non-root rank a result")),
        (_, None) => {}
    }
    // all_gather: every rank's block in rank order
    let g = comm.all_gather(std::slice::from_ref(&x))?;
    let all: Vec<f64> = (0..WORLD).flat_map(|r| values(r, N)).collect();
    check("all_gather", &g[0], &all)?;
    // reduce_scatter: block `me` of the sum of every rank's (WORLD*N,) array
    let long: Vec<f64> = (0..WORLD * N).map(|i| value(me, i)).collect();
    let s = comm.reduce_scatter(&[on_gpu(comm, &long, DType::Float32)?], ReduceOp::Sum)?;
    let sum_all = reduced(ReduceOp::Sum, WORLD * N, false);
    check("reduce_scatter", &s[0], &sum_all[me * N..(me + 1) * N])?;
    // a ring: send to the next rank, receive from the previous one
    let (next, prev) = ((me + 1) % WORLD, (me + WORLD - 1) % WORLD);
    let mut got = on_gpu(comm, &vec![0.0; N], DType::Float32)?;
    let mut g = comm.group();
    g.send(&x, next)?;
    g.recv(&mut got, prev)?;
    g.run()?;
    check("send/recv ring", &got, &values(prev, N))?;
    comm.synchronize()?;
    Ok(format!(
        "rank {me} of {world}: all_reduce (5 ops x float32, int32), broadcast, reduce, all_gather, reduce_scatter, send/recv; {}",
        cp::nccl::world_launch()?
    ))
}

fn failure(what: &str) -> cp::Error {
    cp::Error::InvalidArgument {
        op: "nccl_multiprocess",
        detail: what.into(),
    }
}
