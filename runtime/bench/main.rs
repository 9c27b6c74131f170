//! Cuprite's side of the performance comparison with CuPy.
//!
//! Runs the cases of `shared/bench/cupy_bench.py` that the runtime covers,
//! with the same case names and JSON fields (`case`, `gpu_ms`, `cpu_us`,
//! `GB_s` / `TFLOP_s`), timed like `cupyx.profiler.benchmark`: CUDA events
//! around each call for the GPU time, the host clock for the CPU time,
//! medians after warm-up.
//!
//! `cuprite-bench [--json OUT.json] [--case NAME]... [--nccl-only]`
//!
//! With two GPUs or more it also times all-reduce across them, in one
//! process (`nccl.rs`) and between two (`nccl_procs.rs`), compared with
//! `cupy_nccl.py`; `--nccl-only` runs just those cases.

mod binning;
mod fft_random;
mod fusion;
mod interpolate;
mod io;
mod jit;
mod kernels;
mod launch_floor;
mod linalg;
mod manip;
mod nccl;
mod nccl_procs;
mod ndimage;
mod scipy_stats;
mod search;
mod signal;
mod sparse_linalg;
mod spectra;
mod stats;

use std::time::Instant;

use cuprite as cp;
use cuprite::cuda::{Event, Stream};

struct Row {
    case: String,
    gpu_ms: f64,
    cpu_us: f64,
    gb_s: Option<f64>,
    tflop_s: Option<f64>,
    /// Bus bandwidth of a collective, as nccl-tests reports it.
    busbw_gb_s: Option<f64>,
}

impl Row {
    fn json(&self) -> String {
        // A host-time-only row (paired_host_time) has no GPU time: null.
        let gpu_ms = if self.gpu_ms.is_nan() {
            "null".to_string()
        } else {
            format!("{:.4}", self.gpu_ms)
        };
        let mut s = format!(
            "{{\"case\": \"{}\", \"gpu_ms\": {gpu_ms}, \"cpu_us\": {:.2}",
            self.case, self.cpu_us
        );
        if let Some(g) = self.gb_s {
            s.push_str(&format!(", \"GB_s\": {g:.1}"));
        }
        if let Some(t) = self.tflop_s {
            s.push_str(&format!(", \"TFLOP_s\": {t:.2}"));
        }
        if let Some(g) = self.busbw_gb_s {
            s.push_str(&format!(", \"busbw_GB_s\": {g:.1}"));
        }
        s.push('}');
        s
    }
}

/// The median of some times (NaN for none: a case always has repeats).
fn median(v: Vec<f64>) -> f64 {
    cp::profiler::Stats::of(&v).map_or(f64::NAN, |s| s.median)
}

pub struct Bench {
    rows: Vec<Row>,
    only: Vec<String>,
}

impl Bench {
    fn wanted(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| o == name)
    }

    /// A case measured in GB/s (`bytes` moved per call), timed as
    /// `cupy_bench.py`'s default: 20 runs after 3 warm-ups.
    pub fn bandwidth<T>(
        &mut self,
        name: &str,
        bytes: f64,
        f: impl FnMut() -> cp::Result<T>,
    ) -> cp::Result<()> {
        self.case(name, Some(bytes), None, 20, 3, f)
    }

    /// Times `f` as cupyx.profiler.benchmark does. What `f` returns is held
    /// until the end event is recorded: with automatic fusion on, a result
    /// no array holds when its batch runs is never computed, and a case that
    /// dropped its result at once would time nothing.
    pub fn case<T>(
        &mut self,
        name: &str,
        bytes: Option<f64>,
        flops: Option<f64>,
        n_repeat: usize,
        n_warmup: usize,
        mut f: impl FnMut() -> cp::Result<T>,
    ) -> cp::Result<()> {
        if !self.wanted(name) {
            return Ok(());
        }
        let stream = Stream::null();
        for _ in 0..n_warmup {
            f()?;
        }
        stream.synchronize()?;
        let (start, end) = (Event::new()?, Event::new()?);
        let mut gpu = Vec::with_capacity(n_repeat);
        let mut cpu = Vec::with_capacity(n_repeat);
        for _ in 0..n_repeat {
            start.record(&stream)?;
            let t = Instant::now();
            let result = f()?;
            // Deferred small operations are launched inside the host timing,
            // as CuPy's launches are.
            cp::cuda::launch_pending()?;
            cpu.push(t.elapsed().as_secs_f64() * 1e6);
            end.record(&stream)?;
            drop(result);
            gpu.push(Event::elapsed_ms(&start, &end)? as f64);
        }
        let gpu_ms = median(gpu);
        let row = Row {
            case: name.to_string(),
            gpu_ms,
            cpu_us: median(cpu),
            gb_s: bytes.map(|b| b / (gpu_ms * 1e-3) / 1e9),
            tflop_s: flops.map(|f| f / (gpu_ms * 1e-3) / 1e12),
            busbw_gb_s: None,
        };
        println!("{}", row.json());
        self.rows.push(row);
        Ok(())
    }
}

impl Bench {
    /// The host time of two calls measured in turns: `a`, then `b`, then
    /// `b`, then `a`, ... (`n_pairs` of each, after `n_warmup` of each),
    /// so both see the same machine. A warm launch takes a few µs and
    /// measured apart the two cases' medians moved by ±20 % from run to
    /// run; in turns each sample has a neighbour of the other case. Rows
    /// `name_a` and `name_b` carry each median (GPU times are not taken).
    #[allow(clippy::too_many_arguments)]
    pub fn paired_host_time<A, B>(
        &mut self,
        name_a: &str,
        name_b: &str,
        n_pairs: usize,
        n_warmup: usize,
        mut a: impl FnMut() -> cp::Result<A>,
        mut b: impl FnMut() -> cp::Result<B>,
    ) -> cp::Result<()> {
        if !self.wanted(name_a) && !self.wanted(name_b) {
            return Ok(());
        }
        let stream = Stream::null();
        for _ in 0..n_warmup {
            a()?;
            b()?;
        }
        stream.synchronize()?;
        let (mut ta, mut tb) = (Vec::with_capacity(n_pairs), Vec::with_capacity(n_pairs));
        for k in 0..n_pairs {
            // Which goes first alternates, so neither always follows the other.
            for first in [k % 2 == 0, k % 2 != 0] {
                let t = Instant::now();
                if first {
                    let result = a()?;
                    cp::cuda::launch_pending()?;
                    ta.push(t.elapsed().as_secs_f64() * 1e6);
                    drop(result);
                } else {
                    let result = b()?;
                    cp::cuda::launch_pending()?;
                    tb.push(t.elapsed().as_secs_f64() * 1e6);
                    drop(result);
                }
            }
            // Launches queue behind each other; keep the queue short so a
            // full queue does not block one case's launch more than the other's.
            if k % 64 == 63 {
                stream.synchronize()?;
            }
        }
        stream.synchronize()?;
        for (name, times) in [(name_a, ta), (name_b, tb)] {
            let row = Row {
                case: name.to_string(),
                gpu_ms: f64::NAN,
                cpu_us: median(times),
                gb_s: None,
                tflop_s: None,
                busbw_gb_s: None,
            };
            println!("{}", row.json());
            self.rows.push(row);
        }
        Ok(())
    }
}

/// Uniform [0, 1) float32 values from a fixed-seed xorshift generator.
pub fn host_random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.max(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

fn main() -> cp::Result<()> {
    let mut json_out = None;
    let mut only = Vec::new();
    let mut nccl_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--json" => json_out = args.next(),
            "--case" => only.extend(args.next()),
            "--nccl-only" => nccl_only = true,
            "-h" | "--help" => {
                println!("usage: cuprite-bench [--json OUT.json] [--case NAME]... [--nccl-only]");
                return Ok(());
            }
            other => {
                eprintln!("unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    let dev = match cp::device_count() {
        0 => {
            eprintln!(
                "cuprite-bench needs a CUDA device: {}",
                cp::device::cuda_status().reason
            );
            std::process::exit(1);
        }
        _ => cp::Device::cuda(0),
    };
    let mut b = Bench {
        rows: Vec::new(),
        only,
    };
    cp::with_device(dev, || {
        if !nccl_only {
            run_cases(&mut b)?;
            launch_floor::run(&mut b)?;
            linalg::run(&mut b)?;
            fft_random::run(&mut b)?;
            kernels::run(&mut b)?;
            fusion::run(&mut b)?;
            jit::run(&mut b)?;
            signal::run(&mut b)?;
            ndimage::run(&mut b)?;
            sparse_linalg::run(&mut b)?;
            spectra::run(&mut b)?;
            stats::run(&mut b)?;
            scipy_stats::run(&mut b)?;
            manip::run(&mut b)?;
            search::run(&mut b)?;
            binning::run(&mut b)?;
            io::run(&mut b)?;
            interpolate::run(&mut b)?;
        }
        nccl::run(&mut b)?;
        nccl_procs::run(&mut b)
    })?;
    if let Some(path) = json_out {
        let body: Vec<String> = b.rows.iter().map(|r| format!(" {}", r.json())).collect();
        std::fs::write(&path, format!("[\n{}\n]\n", body.join(",\n")))
            .unwrap_or_else(|e| eprintln!("writing {path}: {e}"));
    }
    Ok(())
}

fn run_cases(b: &mut Bench) -> cp::Result<()> {
    println!(
        "{{\"device\": \"cuda:0\", \"cuprite\": \"{}\"}}",
        env!("CARGO_PKG_VERSION")
    );
    let n: usize = 1 << 26;
    let host = host_random(n, 1);
    let x = cp::asarray(&host)?;
    let mut out = cp::empty_like(&x)?;
    b.bandwidth("copy_f32_64M", 8.0 * n as f64, || out.assign(&x))?;
    b.case(
        "h2d_pageable_256MB",
        Some(4.0 * n as f64),
        None,
        5,
        3,
        || cp::asarray(&host),
    )?;
    let pinned = cp::cuda::PinnedBuffer::from_slice(&host)?;
    let stream = cp::cuda::Stream::new()?;
    b.case("h2d_pinned_256MB", Some(4.0 * n as f64), None, 5, 3, || {
        let (a, copy) = cp::cuda::copy_to_device_async(&pinned, [n], &stream)?;
        copy.wait()?;
        stream.synchronize()?;
        drop(a);
        Ok(())
    })?;
    let mut pinned_out = cp::cuda::PinnedBuffer::<f32>::new(n)?;
    b.case("d2h_pinned_256MB", Some(4.0 * n as f64), None, 5, 3, || {
        x.copy_to_host_async(&mut pinned_out, &stream)?.wait()
    })?;
    b.case(
        "d2h_pageable_256MB",
        Some(4.0 * n as f64),
        None,
        5,
        3,
        || x.to_vec::<f32>(),
    )?;
    // The same copy into host memory that already exists: the difference
    // from d2h_pageable_256MB is the first-touch cost of a fresh Vec.
    let mut host_out = vec![0f32; n];
    b.case(
        "d2h_pageable_into_existing_256MB",
        Some(4.0 * n as f64),
        None,
        5,
        3,
        || x.copy_to_slice(&mut host_out),
    )?;
    drop(host_out);
    let y = cp::asarray(host_random(n, 2))?;
    b.bandwidth("axpb_f32_64M", 16.0 * n as f64, || {
        cp::multiply_out(&x, 2.0, &mut out)?;
        let o2 = out.clone();
        cp::add_out(&o2, 1.0, &mut out)
    })?;
    b.bandwidth("add_f32_64M", 12.0 * n as f64, || {
        cp::add_out(&x, &y, &mut out)
    })?;
    // SciPy's special functions (issue 34's cases; x is uniform in [0, 1)).
    b.bandwidth("gammaln_f32_64M", 8.0 * n as f64, || {
        cp::special::gammaln_out(&x, &mut out)
    })?;
    b.bandwidth("erfinv_f32_64M", 8.0 * n as f64, || {
        cp::special::erfinv_out(&x, &mut out)
    })?;
    {
        let x64 = x.astype(cp::DType::Float64)?;
        let mut out64 = cp::empty_like(&x64)?;
        b.bandwidth("norm_cdf_f64_64M", 16.0 * n as f64, || {
            cp::special::ndtr_out(&x64, &mut out64)
        })?;
    }
    let xs = x.slice(cp::s![..1 << 24])?;
    b.case(
        "tanh_sin_expr_16M",
        Some(8.0 * (1 << 24) as f64),
        None,
        20,
        3,
        || cp::tanh(&(cp::sin(&xs)? + &(&xs * 0.1))),
    )?;
    b.bandwidth("sum_f32_64M", 4.0 * n as f64, || x.sum())?;
    b.bandwidth("max_f32_64M", 4.0 * n as f64, || x.max())?;
    b.bandwidth("argmax_f32_64M", 4.0 * n as f64, || x.argmax())?;
    let m = x.reshape([8192, 8192])?;
    b.bandwidth("sum_axis0_8192sq", 4.0 * n as f64, || m.sum_axis(0))?;
    b.bandwidth("sum_axis1_8192sq", 4.0 * n as f64, || m.sum_axis(1))?;
    b.case(
        "normalize_cols_8192sq",
        Some(8.0 * n as f64),
        None,
        20,
        3,
        || {
            let centred = cp::subtract(&m, &m.mean_axis(0)?)?;
            cp::divide(&centred, &m.std_axis(0, 0)?)
        },
    )?;
    b.bandwidth("cumsum_f32_16M", 8.0 * (1 << 24) as f64, || xs.cumsum(None))?;
    b.bandwidth("sort_f32_16M", 8.0 * (1 << 24) as f64, || xs.sort_axis(-1))?;
    let small = cp::arange(1000)?.astype(cp::f32)?;
    b.case("100_small_adds_latency", None, None, 20, 3, || {
        let mut a = small.clone();
        for _ in 0..100 {
            a = cp::add(&a, 1.0)?;
        }
        drop(a);
        Ok(())
    })?;
    // Where the host time of a small operation goes (not CuPy cases).
    let mut small_out = cp::empty_like(&small)?;
    b.case("latency_fill_x100", None, None, 20, 3, || {
        for _ in 0..100 {
            small_out.fill(1.0)?;
        }
        Ok(())
    })?;
    b.case("latency_add_out_x100", None, None, 20, 3, || {
        for _ in 0..100 {
            cp::add_out(&small, 1.0, &mut small_out)?;
        }
        Ok(())
    })?;
    b.case("latency_empty_x100", None, None, 20, 3, || {
        for _ in 0..100 {
            drop(cp::empty([1000], cp::f32)?);
        }
        Ok(())
    })?;
    // The pool's allocate + free + synchronize cycle (issue's figure, not a CuPy case).
    b.case("alloc_free_sync_4MB", None, None, 200, 10, || {
        drop(cp::empty([1 << 20], cp::f32)?);
        Stream::null().synchronize()
    })?;
    Ok(())
}
