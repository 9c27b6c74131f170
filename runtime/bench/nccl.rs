//! All-reduce across GPUs (`cp::nccl`), reported as nccl-tests does: the
//! algorithm bandwidth `GB_s` = bytes of one rank's array / time, and the bus
//! bandwidth `busbw_GB_s` = algbw * 2(n-1)/n, which is comparable across
//! world sizes. Time is the median over repeats of the slowest rank's CUDA
//! events around the grouped call. `cupy_nccl.py` beside this file runs the
//! same cases through `cupy.cuda.nccl`.

use std::time::Instant;

use super::{median, Bench, Row};
use cp::cuda::{Event, Stream};
use cp::nccl::{Communicator, ReduceOp};
use cuprite as cp;

/// Sizes of one rank's float32 array.
const SIZES: [(&str, usize); 4] = [
    ("8MB", 8 << 20),
    ("64MB", 64 << 20),
    ("256MB", 256 << 20),
    ("1GB", 1 << 30),
];

pub fn run(b: &mut Bench) -> cp::Result<()> {
    let world = cp::device_count();
    if world < 2 {
        eprintln!("nccl cases skipped: all-reduce across GPUs needs 2 CUDA devices, found {world}");
        return Ok(());
    }
    let names: Vec<String> = SIZES
        .iter()
        .map(|(label, _)| format!("allreduce_f32_{label}_{world}gpu"))
        .collect();
    if !names.iter().any(|n| b.wanted(n)) {
        return Ok(());
    }
    let devices: Vec<cp::Device> = (0..world).map(cp::Device::cuda).collect();
    let comm = Communicator::init_all(&devices)?;
    println!(
        "{{\"nccl\": \"{}\", \"world\": {world}}}",
        comm.to_string().replace('"', "'")
    );
    for ((_, bytes), name) in SIZES.iter().zip(&names) {
        if !b.wanted(name) {
            continue;
        }
        let n = bytes / 4;
        let xs: Vec<cp::Array> = devices
            .iter()
            .enumerate()
            .map(|(r, &d)| {
                cp::with_device(d, || {
                    cp::random::default_rng(17 + r as u64).random_as([n], cp::f32)
                })
            })
            .collect::<cp::Result<_>>()?;
        let mut outs = comm.all_reduce(&xs, ReduceOp::Sum)?;
        let repeats = if *bytes >= 1 << 30 { 10 } else { 20 };
        let row = time_all_reduce(&comm, &xs, &mut outs, name, *bytes, repeats, 5)?;
        println!("{}", row.json());
        b.rows.push(row);
    }
    Ok(())
}

fn time_all_reduce(
    comm: &Communicator,
    xs: &[cp::Array],
    outs: &mut [cp::Array],
    name: &str,
    bytes: usize,
    n_repeat: usize,
    n_warmup: usize,
) -> cp::Result<Row> {
    let devices = comm.devices();
    for _ in 0..n_warmup {
        comm.all_reduce_into(xs, outs, ReduceOp::Sum)?;
    }
    comm.synchronize()?;
    let events = || -> cp::Result<Vec<Event>> {
        devices
            .iter()
            .map(|&d| cp::with_device(d, Event::new))
            .collect()
    };
    let (starts, ends) = (events()?, events()?);
    let stream = Stream::null();
    let mut gpu = Vec::with_capacity(n_repeat);
    let mut cpu = Vec::with_capacity(n_repeat);
    for _ in 0..n_repeat {
        for e in &starts {
            e.record(&stream)?;
        }
        let t = Instant::now();
        comm.all_reduce_into(xs, outs, ReduceOp::Sum)?;
        cpu.push(t.elapsed().as_secs_f64() * 1e6);
        for e in &ends {
            e.record(&stream)?;
        }
        let mut slowest = 0f64;
        for (s, e) in starts.iter().zip(&ends) {
            slowest = slowest.max(Event::elapsed_ms(s, e)? as f64);
        }
        gpu.push(slowest);
    }
    let gpu_ms = median(gpu);
    let world = devices.len() as f64;
    let algbw = bytes as f64 / (gpu_ms * 1e-3) / 1e9;
    Ok(Row {
        case: name.to_string(),
        gpu_ms,
        cpu_us: median(cpu),
        gb_s: Some(algbw),
        tflop_s: None,
        busbw_gb_s: Some(algbw * 2.0 * (world - 1.0) / world),
    })
}
