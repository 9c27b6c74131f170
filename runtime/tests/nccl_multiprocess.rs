//! Worlds of 2 and 4 processes, one GPU each, joined by `cp::nccl::world()`
//! as `srun` would start them (`SLURM_PROCID/NTASKS/LOCALID`,
//! `MASTER_ADDR=127.0.0.1` and a free port), one world after another: every
//! collective on every dtype NCCL carries, views, point-to-point (a pair, a
//! ring, an exchange, a halo exchange of a 2-D slab), all_to_all, barrier
//! and a rebuilt world, each rank checking against values it computes
//! itself; once with NCCL's default transports and once with
//! `NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1` (the network path),
//! `NCCL_NVLS_ENABLE=0` always. Then the faults: a rank that never reaches
//! the rendezvous, a rank killed inside an all_reduce, ranks that disagree
//! on the world size. Every world has a time limit; a world that passes it
//! fails naming the ranks still running.
//!
//! Runs only with `CUPRITE_REQUIRE_GPU` set and at least 2 GPUs; otherwise
//! it prints why it is skipped and passes (one-GPU machines included).
//! `CUPRITE_TEST_WORLDS=2,4` picks the world sizes (default: 2 and, with 4
//! GPUs, 4).

mod nccl_common;

use std::time::{Duration, Instant};

use cp::nccl::{Communicator, ReduceOp};
use cp::num_complex::Complex64;
use cp::{s, Array, DType};
use cuprite as cp;
use nccl_common::{free_port, run_world_limited, slurm_tcp};

const N: usize = 1000;
/// Seconds each collective may wait in the healthy worlds.
const CALL_LIMIT: &str = "60";
/// The whole of one world, start to exit.
const WORLD_LIMIT: Duration = Duration::from_secs(150);

/// Does nothing in a normal run; in a child, is one rank of the job.
#[test]
fn child_rank() {
    let Some(role) = nccl_common::child_role() else {
        return;
    };
    let outcome = match role.as_str() {
        "gpu" => one_rank(),
        "exit-early" => exit_early(),
        "killed" => killed_in_all_reduce(),
        "world-size" => cp::nccl::world().map(|c| format!("joined a world of {}", c.world_size())),
        other => Err(failure(&format!("unknown role {other}"))),
    };
    nccl_common::report(&match outcome {
        Ok(done) => format!("OK {done}"),
        Err(e) => format!("ERR {e}"),
    });
}

/// The world sizes to run, or why none can run here.
fn worlds_or_skip() -> Vec<usize> {
    if std::env::var_os("CUPRITE_REQUIRE_GPU").is_none() {
        eprintln!("skipped: set CUPRITE_REQUIRE_GPU=1 on a machine with 2 or more GPUs to run the multi-process NCCL tests");
        return vec![];
    }
    let gpus = cp::device_count();
    if gpus < 2 {
        eprintln!(
            "skipped: processes with a GPU each need 2 CUDA devices, found {gpus} ({})",
            cp::device::cuda_status().reason
        );
        return vec![];
    }
    let wanted: Vec<usize> = match std::env::var("CUPRITE_TEST_WORLDS") {
        Ok(list) => list
            .split(',')
            .filter_map(|w| w.trim().parse().ok())
            .collect(),
        Err(_) => vec![2, 4],
    };
    wanted
        .into_iter()
        .filter(|&w| w >= 2 && w <= gpus)
        .collect()
}

fn envs(world: usize, limit: &str, extra: &[(&str, &str)]) -> Vec<Vec<(String, String)>> {
    let port = free_port();
    (0..world)
        .map(|r| {
            let mut e = slurm_tcp(r, world, port, limit);
            e.push(("NCCL_NVLS_ENABLE".into(), "0".into()));
            e.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
            e
        })
        .collect()
}

const NET: [(&str, &str); 2] = [("NCCL_P2P_DISABLE", "1"), ("NCCL_SHM_DISABLE", "1")];

/// Every healthy case, then every fault, for each world size, one world at
/// a time (two worlds at once would share GPUs and ports).
#[test]
fn worlds_of_processes() {
    for world in worlds_or_skip() {
        for (label, extra) in [("default transports", &[][..]), ("network only", &NET[..])] {
            let start = Instant::now();
            let results = run_world_limited("gpu", envs(world, CALL_LIMIT, extra), WORLD_LIMIT);
            for (r, res) in results.iter().enumerate() {
                println!("world of {world}, {label}, rank {r}: {res:?}");
            }
            for (r, res) in results.iter().enumerate() {
                match res {
                    Ok(line) if line.starts_with("OK ") => {}
                    Ok(line) => panic!("world of {world}, {label}: rank {r}: {line}"),
                    Err(why) => panic!("world of {world}, {label}: {why}"),
                }
            }
            println!(
                "world of {world}, {label}: {:.1} s",
                start.elapsed().as_secs_f64()
            );
        }
        faults(world);
    }
}

fn faults(world: usize) {
    let last = world - 1;
    // The last rank exits before the rendezvous: the others are told which
    // rank never came, within the rendezvous's limit.
    let e = envs(world, "8", &[]);
    let results = run_roles(e, |r| if r == last { "exit-early" } else { "gpu" });
    for (r, res) in results.iter().enumerate().take(last) {
        let line = res
            .as_ref()
            .unwrap_or_else(|why| panic!("exit-early: {why}"));
        assert!(
            line.starts_with("ERR ") && line.contains(&last.to_string()),
            "exit-early, rank {r} should name rank {last}: {line}"
        );
        println!("exit-early, rank {r}: {line}");
    }
    // The last rank is killed inside an all_reduce: the others fail within
    // their limit (30 s), naming it, and their communicator says it was aborted.
    for (label, extra) in [("default transports", &[][..]), ("network only", &NET[..])] {
        let start = Instant::now();
        let e = envs(world, "30", extra);
        let results = run_roles(e, |_| "killed");
        for (r, res) in results.iter().enumerate().take(last) {
            let line = res
                .as_ref()
                .unwrap_or_else(|why| panic!("killed ({label}): {why}"));
            assert!(
                line.starts_with("OK ") && line.contains(&format!("rank {last}")),
                "killed ({label}), rank {r} should have failed naming rank {last}: {line}"
            );
            println!("killed ({label}), rank {r}: {line}");
        }
        println!(
            "killed ({label}): every rank done in {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
    // Ranks that disagree on the world size are refused and told why.
    let port = free_port();
    let e: Vec<_> = (0..2)
        .map(|r| {
            let n = if r == 0 { world } else { world + 1 };
            let mut v = slurm_tcp(r, n, port, "8");
            v.push(("NCCL_NVLS_ENABLE".into(), "0".into()));
            v
        })
        .collect();
    let results = run_roles(e, |_| "world-size");
    for (r, res) in results.iter().enumerate() {
        let line = res
            .as_ref()
            .unwrap_or_else(|why| panic!("world-size: {why}"));
        assert!(
            line.starts_with("ERR ") && line.contains("world"),
            "world-size, rank {r}: {line}"
        );
        println!("world-size, rank {r}: {line}");
    }
}

/// Runs one world whose rank `r` plays `role(r)`.
fn run_roles(
    envs: Vec<Vec<(String, String)>>,
    role: impl Fn(usize) -> &'static str,
) -> Vec<Result<String, String>> {
    let roles: Vec<&str> = (0..envs.len()).map(&role).collect();
    nccl_common::run_roles_limited(&roles, envs, Duration::from_secs(90))
}

// ---------------------------------------------------------------------------
// One rank
// ---------------------------------------------------------------------------

/// Rank `r`'s element `i`: small integers, exact in every dtype and never 0.
fn value(r: usize, i: usize) -> f64 {
    ((i * 7 + r * 3) % 11 + 1) as f64
}

/// Factors for products: 1 or 2, so a product over 4 ranks stays exact in
/// 8-bit integers and half floats.
fn factor(r: usize, i: usize) -> f64 {
    ((i + r) % 2 + 1) as f64
}

fn on_gpu(comm: &Communicator, v: &[f64], dtype: DType) -> cp::Result<Array> {
    cp::with_device(comm.devices()[0], || {
        cp::from_shape_vec([v.len()], v.to_vec(), cp::Order::C)?.astype(dtype)
    })
}

/// The values of `a` as f64 (complex: the real parts, the imaginary parts
/// required to be 0).
fn host(a: &Array) -> cp::Result<Vec<f64>> {
    if a.dtype().is_complex() {
        let z = a.astype(DType::Complex128)?.to_vec::<Complex64>()?;
        return Ok(z
            .iter()
            .map(|c| if c.im == 0.0 { c.re } else { f64::NAN })
            .collect());
    }
    a.astype(DType::Float64)?.to_vec::<f64>()
}

/// `got` equals `want` exactly (NaN never equals).
fn check(what: &str, got: &Array, want: &[f64]) -> cp::Result<()> {
    let got = host(got)?;
    if got.len() != want.len() || got.iter().zip(want).any(|(a, b)| a != b) {
        let bad = got.iter().zip(want).position(|(a, b)| a != b);
        return Err(failure(&format!(
            "{what}: {} values (want {}), first difference at {bad:?} (got {:?}, want {:?})",
            got.len(),
            want.len(),
            bad.map(|i| got[i]),
            bad.map(|i| want[i])
        )));
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

fn input_of(op: ReduceOp) -> fn(usize, usize) -> f64 {
    if op == ReduceOp::Prod {
        factor
    } else {
        value
    }
}

/// `op` over every rank's inputs, as NCCL computes it (integer averages
/// truncate).
fn reduced(op: ReduceOp, world: usize, n: usize, integer: bool) -> Vec<f64> {
    let v = input_of(op);
    (0..n)
        .map(|i| {
            let acc = (1..world).fold(v(0, i), |acc, r| combine(op, acc, v(r, i)));
            match (op, integer) {
                (ReduceOp::Avg, true) => (acc / world as f64).trunc(),
                (ReduceOp::Avg, false) => acc / world as f64,
                _ => acc,
            }
        })
        .collect()
}

const ALL_OPS: [ReduceOp; 5] = [
    ReduceOp::Sum,
    ReduceOp::Prod,
    ReduceOp::Max,
    ReduceOp::Min,
    ReduceOp::Avg,
];

/// Every dtype with the reductions NCCL gives it.
fn dtypes() -> Vec<(DType, Vec<ReduceOp>)> {
    use DType::*;
    let mut v: Vec<(DType, Vec<ReduceOp>)> = [
        Int8, UInt8, Int32, UInt32, Int64, UInt64, Float16, BFloat16, Float32, Float64,
    ]
    .into_iter()
    .map(|d| (d, ALL_OPS.to_vec()))
    .collect();
    v.push((Complex64, vec![ReduceOp::Sum, ReduceOp::Avg]));
    v.push((Complex128, vec![ReduceOp::Sum, ReduceOp::Avg]));
    for d in [Bool, Int16, UInt16] {
        v.push((d, vec![]));
    }
    v
}

fn one_rank() -> cp::Result<String> {
    let comm = cp::nccl::world()?;
    let (me, world) = (comm.rank(), comm.world_size());
    if world < 2 || !comm.uses_nccl() {
        return Err(failure(&format!("expected an NCCL world, got {comm}")));
    }
    let mut done = Vec::new();
    collectives(comm, me, world)?;
    done.push("collectives on 15 dtypes");
    step("views");
    views(comm, me, world)?;
    done.push("views");
    step("point to point");
    point_to_point(comm, me, world)?;
    done.push("send/recv, ring, exchange, halo");
    step("all_to_all, barrier");
    let x = on_gpu(
        comm,
        &(0..world * 3)
            .map(|i| (me * 100 + i) as f64)
            .collect::<Vec<_>>(),
        DType::Int64,
    )?;
    let y = comm.all_to_all(std::slice::from_ref(&x))?;
    // Block j of rank r's output is block r of rank j's input.
    let want: Vec<f64> = (0..world)
        .flat_map(|j| (0..3).map(move |k| (j * 100 + me * 3 + k) as f64))
        .collect();
    check("all_to_all", &y[0], &want)?;
    comm.barrier()?;
    done.push("all_to_all, barrier");
    comm.synchronize()?;
    // A rebuilt world works, and the old one refuses calls.
    step("rebuild_world");
    let new = cp::nccl::rebuild_world()?;
    let one = on_gpu(new, &[1.0], DType::Float32)?;
    let sum = new.all_reduce(std::slice::from_ref(&one), ReduceOp::Sum)?;
    check("all_reduce after rebuild_world", &sum[0], &[world as f64])?;
    match comm.barrier() {
        Err(e) if e.to_string().contains("aborted") => {}
        other => {
            return Err(failure(&format!(
                "the replaced world still answered: {other:?}"
            )))
        }
    }
    done.push("rebuild_world");
    Ok(format!(
        "rank {me} of {world}: {}; {}",
        done.join(", "),
        cp::nccl::world_launch()?
    ))
}

/// A progress line on stderr: a world that hangs shows each rank's last one.
fn step(what: &str) {
    eprintln!("step: {what}");
}

fn collectives(comm: &Communicator, me: usize, world: usize) -> cp::Result<()> {
    for (dtype, ops) in dtypes() {
        step(&format!("collectives on {dtype}"));
        let integer = !dtype.is_float() && !dtype.is_complex();
        let mine: Vec<f64> = (0..N).map(|i| value(me, i)).collect();
        for op in &ops {
            let v = input_of(*op);
            let x = on_gpu(comm, &(0..N).map(|i| v(me, i)).collect::<Vec<_>>(), dtype)?;
            let y = comm.all_reduce(std::slice::from_ref(&x), *op)?;
            check(
                &format!("all_reduce {op} {dtype}"),
                &y[0],
                &reduced(*op, world, N, integer),
            )?;
        }
        let x = on_gpu(comm, &mine, dtype)?;
        if let Some(op) = ops.first() {
            let r = comm.reduce(std::slice::from_ref(&x), *op, world - 1)?;
            match r {
                Some(r) if me == world - 1 => check(
                    &format!("reduce {dtype}"),
                    &r,
                    &reduced(*op, world, N, integer),
                )?,
                None if me != world - 1 => {}
                _ => return Err(failure("reduce gave its result to the wrong rank")),
            }
            let long: Vec<f64> = (0..world * N).map(|i| value(me, i)).collect();
            let s = comm.reduce_scatter(&[on_gpu(comm, &long, dtype)?], *op)?;
            let all = reduced(*op, world, world * N, integer);
            check(
                &format!("reduce_scatter {dtype}"),
                &s[0],
                &all[me * N..(me + 1) * N],
            )?;
        }
        // Moving data: bool arrays hold true for every (nonzero) value.
        let moved = |v: f64| if dtype == DType::Bool { 1.0 } else { v };
        let mut b = [x.copy()?];
        comm.broadcast(&mut b, world - 1)?;
        check(
            &format!("broadcast {dtype}"),
            &b[0],
            &(0..N)
                .map(|i| moved(value(world - 1, i)))
                .collect::<Vec<_>>(),
        )?;
        let g = comm.all_gather(std::slice::from_ref(&x))?;
        let all: Vec<f64> = (0..world)
            .flat_map(|r| (0..N).map(move |i| value(r, i)))
            .map(moved)
            .collect();
        check(&format!("all_gather {dtype}"), &g[0], &all)?;
    }
    Ok(())
}

fn views(comm: &Communicator, me: usize, world: usize) -> cp::Result<()> {
    // A strided input (every other element) is made contiguous first.
    let wide: Vec<f64> = (0..2 * N).map(|i| value(me, i / 2)).collect();
    let x = on_gpu(comm, &wide, DType::Float32)?.slice(s![..;2])?;
    if x.is_c_contiguous() {
        return Err(failure("the test's view is contiguous"));
    }
    let y = comm.all_reduce(std::slice::from_ref(&x), ReduceOp::Sum)?;
    check(
        "all_reduce of a strided view",
        &y[0],
        &reduced(ReduceOp::Sum, world, N, false),
    )?;
    // A strided output is refused, naming the rule.
    let mut out = [on_gpu(comm, &wide, DType::Float32)?.slice(s![..;2])?];
    match comm.all_reduce_into(std::slice::from_ref(&x), &mut out, ReduceOp::Sum) {
        Err(e) if e.to_string().contains("C-contiguous") => Ok(()),
        other => Err(failure(&format!(
            "a strided output was not refused: {other:?}"
        ))),
    }
}

fn point_to_point(comm: &Communicator, me: usize, world: usize) -> cp::Result<()> {
    let mine: Vec<f64> = (0..N).map(|i| value(me, i)).collect();
    let x = on_gpu(comm, &mine, DType::Float32)?;
    // A pair: rank 0 sends to rank 1, into an array just made (its zeros may
    // still be pending on the GPU when NCCL receives).
    if me < 2 {
        let mut got = on_gpu(comm, &vec![0.0; N], DType::Float32)?;
        let mut g = comm.group();
        if me == 0 {
            g.send(&x, 1)?;
        } else {
            g.recv(&mut got, 0)?;
        }
        g.run()?;
        if me == 1 {
            check(
                "send/recv pair",
                &got,
                &(0..N).map(|i| value(0, i)).collect::<Vec<_>>(),
            )?;
        }
    }
    // A ring, small (batched on the GPU) and large.
    for n in [N, 1 << 20] {
        let (next, prev) = ((me + 1) % world, (me + world - 1) % world);
        let x = on_gpu(
            comm,
            &(0..n).map(|i| value(me, i)).collect::<Vec<_>>(),
            DType::Float32,
        )?;
        let mut got = on_gpu(comm, &vec![0.0; n], DType::Float32)?;
        let mut g = comm.group();
        g.send(&x, next)?;
        g.recv(&mut got, prev)?;
        g.run()?;
        check(
            &format!("ring of {n}"),
            &got,
            &(0..n).map(|i| value(prev, i)).collect::<Vec<_>>(),
        )?;
    }
    // An exchange with a partner (sendrecv).
    let partner = me ^ 1;
    if partner < world {
        let mut got = on_gpu(comm, &vec![0.0; N], DType::Float64)?;
        let x64 = x.astype(DType::Float64)?;
        let mut g = comm.group();
        g.send(&x64, partner)?;
        g.recv(&mut got, partner)?;
        g.run()?;
        check(
            "exchange",
            &got,
            &(0..N).map(|i| value(partner, i)).collect::<Vec<_>>(),
        )?;
    }
    halo(comm, me, world)
}

/// A 2-D slab of `ROWS` interior rows and one ghost row above and below:
/// each rank sends its first interior row up and its last down, and
/// receives its neighbours' into its ghost rows (not periodic).
fn halo(comm: &Communicator, me: usize, world: usize) -> cp::Result<()> {
    const ROWS: usize = 6;
    const COLS: usize = 300;
    let cell = |r: usize, i: usize, j: usize| (r * 1000 + i * 10 + j % 7) as f64;
    let mut init = vec![-1.0; (ROWS + 2) * COLS];
    for i in 0..ROWS {
        for j in 0..COLS {
            init[(i + 1) * COLS + j] = cell(me, i, j);
        }
    }
    let slab = cp::with_device(comm.devices()[0], || {
        cp::from_shape_vec([ROWS + 2, COLS], init.clone(), cp::Order::C)?.astype(DType::Float32)
    })?;
    let row = |k: usize| slab.slice(s![k as isize, ..]);
    let mut g = comm.group();
    let mut top = row(0)?;
    let mut bottom = row(ROWS + 1)?;
    if me > 0 {
        g.send(&row(1)?, me - 1)?;
        g.recv(&mut top, me - 1)?;
    }
    if me + 1 < world {
        g.send(&row(ROWS)?, me + 1)?;
        g.recv(&mut bottom, me + 1)?;
    }
    g.run()?;
    let want_top: Vec<f64> = (0..COLS)
        .map(|j| {
            if me > 0 {
                cell(me - 1, ROWS - 1, j)
            } else {
                -1.0
            }
        })
        .collect();
    let want_bottom: Vec<f64> = (0..COLS)
        .map(|j| {
            if me + 1 < world {
                cell(me + 1, 0, j)
            } else {
                -1.0
            }
        })
        .collect();
    check("halo from above", &row(0)?, &want_top)?;
    check("halo from below", &row(ROWS + 1)?, &want_bottom)?;
    let inside: Vec<f64> = (0..ROWS)
        .flat_map(|i| (0..COLS).map(move |j| cell(me, i, j)))
        .collect();
    check(
        "halo left the interior alone",
        &slab.slice(s![1..(ROWS + 1) as isize, ..])?.flatten()?,
        &inside,
    )
}

// ---------------------------------------------------------------------------
// Faults
// ---------------------------------------------------------------------------

fn exit_early() -> cp::Result<String> {
    std::process::exit(0);
}

/// The last rank joins, then is killed (SIGKILL) while it waits in a large
/// all_reduce that the others join a second later. Reading the others'
/// results must fail within their limit, naming it; `OK` reports that.
fn killed_in_all_reduce() -> cp::Result<String> {
    let comm = cp::nccl::world()?;
    let (me, world) = (comm.rank(), comm.world_size());
    let x = on_gpu(comm, &vec![1.0; 1 << 24], DType::Float32)?;
    comm.all_reduce(std::slice::from_ref(&x), ReduceOp::Sum)?;
    if me == world - 1 {
        std::thread::spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            // SAFETY: signals this process only.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
        });
        let _ = comm
            .all_reduce(std::slice::from_ref(&x), ReduceOp::Sum)
            .and_then(|_| comm.synchronize());
        std::thread::sleep(Duration::from_secs(5));
        return Err(failure("the killed rank lived on"));
    }
    std::thread::sleep(Duration::from_secs(1));
    let start = Instant::now();
    // The call queues and returns; the wait for its result fails. The killed
    // rank's kernel can outlive its process for a moment (seen once on four
    // H200s: one rank's all_reduce completed), so that rank's next call must
    // fail instead, in the same limit.
    let failed = match comm
        .all_reduce(std::slice::from_ref(&x), ReduceOp::Sum)
        .and_then(|y| y[0].to_vec::<f32>())
    {
        Ok(_) => match comm.barrier() {
            Ok(()) => {
                return Err(failure(
                    "an all_reduce and a barrier after a rank was killed both succeeded",
                ))
            }
            Err(e) => format!("(the all_reduce completed) the barrier after it: {e}"),
        },
        Err(e) => e.to_string(),
    };
    let after = match comm.barrier() {
        Err(e) if e.to_string().contains("aborted") => "refuses calls after",
        _ => return Err(failure("the aborted communicator still answered")),
    };
    Ok(format!(
        "failed in {:.1} s: {failed}; {after}",
        start.elapsed().as_secs_f64()
    ))
}

fn failure(what: &str) -> cp::Error {
    cp::Error::InvalidArgument {
        op: "nccl_multiprocess",
        detail: what.into(),
    }
}
