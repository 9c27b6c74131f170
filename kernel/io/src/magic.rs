//! What the kernel's magics run inside the cell process.
//!
//! The kernel rewrites each magic into one call of a function here (see
//! `kernel/src/magics.rs`), so the cell compiles a line of code and the work
//! happens in this crate, built once per session with optimizations:
//!
//! - `%time` / `%%time`: [`__time_start`] and [`__time_end`] around the timed
//!   code print CPU, wall and (on a GPU) CUDA-event time, IPython style;
//! - `%timeit` / `%%timeit`: [`__timeit`] repeats the code and publishes a
//!   timing report (median ± std. dev. per loop, CPU and GPU time of every run,
//!   a histogram of the runs) rendered by `cuprite-display`;
//! - `%gpu`: [`__gpu`] shows the devices, driver, NVRTC and the CUDA libraries
//!   found, or says why there is no GPU;
//! - `%mem`: [`__mem`] shows the device and pinned memory pools and the cell
//!   process's memory.
//!
//! GPU time is measured with CUDA events recorded on the current stream of
//! the current device (`cp::cuda::stream::current_stream()`), so it counts
//! the device work queued by the timed code on that stream (and, for the
//! legacy default stream, on every blocking stream).

use std::cell::RefCell;
use std::fmt::Write as _;
use std::time::Instant;

use cuprite::cuda::{Event, Stream};
use cuprite_display::html::{self as dhtml, human_bytes, Cell, Table};
use cuprite_display::timing::Stats;
use cuprite_display::{MemoryReport, MimeBundle, PoolStats, Report, RichDisplay, Timings};

use crate::wire::format_seconds;

/// The CUDA libraries `%gpu` looks for (short names of `cuprite::cuda::libs`).
pub const LIBRARIES: &[&str] = &[
    "cuda", "cudart", "nvrtc", "cublas", "cublasLt", "cufft", "curand", "cusolver", "cusparse",
    "nccl",
];

/// A pair of CUDA events on the current stream, for timing a region.
struct GpuClock {
    stream: Stream,
    start: Event,
    end: Event,
    device: String,
}

impl GpuClock {
    /// Events on the current stream of the current device; `Err` says why
    /// there is no GPU clock (`Ok(None)`: no usable GPU at all).
    fn new() -> Result<Option<GpuClock>, String> {
        let status = cuprite::device::cuda_status();
        if !status.usable {
            return Ok(None);
        }
        let device = cuprite::current_device();
        if device.is_cpu() {
            return Err(format!(
                "the current device is the CPU: {}",
                cuprite::device::default_device_and_reason().1
            ));
        }
        let stream = cuprite::cuda::stream::current_stream();
        let start = Event::new().map_err(|e| e.to_string())?;
        let end = Event::new().map_err(|e| e.to_string())?;
        Ok(Some(GpuClock {
            stream,
            start,
            end,
            device: device.to_string(),
        }))
    }

    fn record_start(&self) -> Result<(), String> {
        self.start.record(&self.stream).map_err(|e| e.to_string())
    }

    fn record_end(&self) -> Result<(), String> {
        self.end.record(&self.stream).map_err(|e| e.to_string())
    }

    /// Seconds between the two recorded events (waits for the end event).
    fn elapsed(&self) -> Result<f64, String> {
        Event::elapsed_ms(&self.start, &self.end)
            .map(|ms| ms as f64 / 1e3)
            .map_err(|e| e.to_string())
    }

    /// `CUDA events on the default stream of cuda:0`.
    fn describe(&self) -> String {
        let stream = if self.stream.is_null() {
            "the default stream"
        } else {
            "the current stream"
        };
        format!("CUDA events on {stream} of {}", self.device)
    }
}

/// What a report says about GPU time.
#[derive(Debug, Clone, PartialEq)]
pub enum GpuTime {
    /// No usable GPU in this process: nothing is said.
    NoGpu,
    /// A GPU exists but the time was not measured, and why.
    NotMeasured(String),
    /// Seconds, and how they were measured.
    Measured(f64, String),
}

struct TimeStart {
    wall: Instant,
    cpu: (u128, u128),
    gpu: Result<Option<GpuClock>, String>,
}

thread_local! {
    static TIME_START: RefCell<Option<TimeStart>> = const { RefCell::new(None) };
}

/// Starts a `%time` measurement (the kernel puts this before the timed code).
#[doc(hidden)]
pub fn __time_start() {
    // Events first: the first one may create the CUDA context, which is not
    // part of the timed code.
    let gpu = GpuClock::new().and_then(|g| {
        if let Some(c) = &g {
            c.record_start()?;
        }
        Ok(g)
    });
    let cpu = crate::sys::cpu_times_ns();
    let wall = Instant::now();
    TIME_START.with(|t| *t.borrow_mut() = Some(TimeStart { wall, cpu, gpu }));
}

/// Ends a `%time` measurement and prints the report (IPython's text, plus
/// the GPU time of the timed code when a GPU is in use).
#[doc(hidden)]
pub fn __time_end() {
    let Some(start) = TIME_START.with(|t| t.borrow_mut().take()) else {
        return;
    };
    let recorded = match &start.gpu {
        Ok(Some(c)) => c.record_end(),
        _ => Ok(()),
    };
    let wall = start.wall.elapsed().as_secs_f64();
    let cpu = crate::sys::cpu_times_ns();
    let d = |a: u128, b: u128| b.saturating_sub(a) as f64 / 1e9;
    let gpu = match start.gpu {
        Ok(None) => GpuTime::NoGpu,
        Err(why) => GpuTime::NotMeasured(why),
        Ok(Some(c)) => match recorded.and_then(|_| c.elapsed()) {
            Ok(s) => GpuTime::Measured(s, c.describe()),
            Err(e) => GpuTime::NotMeasured(e),
        },
    };
    print!(
        "{}",
        time_text(d(start.cpu.0, cpu.0), d(start.cpu.1, cpu.1), wall, &gpu)
    );
}

/// The `%time` report: CPU (user, sys), wall and GPU time.
pub fn time_text(user: f64, sys: f64, wall: f64, gpu: &GpuTime) -> String {
    let mut out = format!(
        "CPU times: user {}, sys {}, total {}\nWall time: {}\n",
        format_seconds(user),
        format_seconds(sys),
        format_seconds(user + sys),
        format_seconds(wall)
    );
    match gpu {
        GpuTime::NoGpu => {}
        GpuTime::NotMeasured(why) => {
            let _ = writeln!(out, "GPU time: not measured ({why})");
        }
        GpuTime::Measured(s, how) => {
            let _ = writeln!(out, "GPU time: {} ({how})", format_seconds(*s));
        }
    }
    out
}

/// The error type of the timed code (what `?` converts to in `%timeit` code).
pub type TimedError = Box<dyn std::error::Error>;

/// `%timeit`: `loops` calls of `f` per run (0: chosen so that a run takes at
/// least 0.2 s), `repeat` runs; host (CPU) time of every run, and GPU time
/// from CUDA events on the current stream when the current device is a GPU.
/// Publishes the report; `label` is the timed code, for its title. The first
/// error `f` returns (its `?`) stops the timing and is returned.
#[doc(hidden)]
pub fn __timeit<R>(
    loops: u64,
    repeat: u32,
    label: &str,
    mut f: impl FnMut() -> Result<R, TimedError>,
) -> Result<(), TimedError> {
    let mut failure = None;
    timeit_dyn(loops, repeat, label, &mut || match f() {
        Ok(v) => {
            std::hint::black_box(v);
            true
        }
        Err(e) => {
            failure = Some(e);
            false
        }
    });
    match failure {
        Some(e) => Err(format!("%timeit stopped: the timed code failed: {e}").into()),
        None => Ok(()),
    }
}

/// Least time of one run when the loop count is chosen automatically.
const AUTORANGE_SECONDS: f64 = 0.2;

/// Times `f` (false: it failed, stop) and publishes the report.
fn timeit_dyn(loops: u64, repeat: u32, label: &str, f: &mut dyn FnMut() -> bool) {
    let repeat = repeat.max(1) as usize;
    let (mut clock, mut gpu_note) = match GpuClock::new() {
        Ok(c) => (c, None),
        Err(why) => (None, Some(why)),
    };
    // One run: (host seconds, GPU seconds when measured); None when `f` failed.
    let mut run = |n: u64| -> Option<(f64, Option<f64>)> {
        if let Some(c) = &clock {
            if let Err(e) = c.record_start() {
                gpu_note = Some(e);
                clock = None;
            }
        }
        let t = Instant::now();
        for _ in 0..n {
            if !f() {
                return None;
            }
        }
        let cpu = t.elapsed().as_secs_f64();
        let gpu = match &clock {
            Some(c) => match c.record_end().and_then(|_| c.elapsed()) {
                Ok(s) => Some(s),
                Err(e) => {
                    gpu_note = Some(e);
                    clock = None;
                    None
                }
            },
            None => None,
        };
        Some((cpu, gpu))
    };
    let mut runs: Vec<(f64, Option<f64>)> = Vec::with_capacity(repeat);
    let loops = if loops > 0 {
        loops
    } else {
        let mut n = 1u64;
        loop {
            let Some(r) = run(n) else { return };
            if r.0.max(r.1.unwrap_or(0.0)) >= AUTORANGE_SECONDS || n >= 10_000_000 {
                runs.push(r);
                break n;
            }
            n *= 10;
        }
    };
    // Keep the total under about 20 s when single runs are slow.
    let repeat = match runs.first() {
        Some(r) if r.0.max(r.1.unwrap_or(0.0)) > 3.0 => {
            ((20.0 / r.0.max(r.1.unwrap_or(0.0))) as usize).clamp(1, repeat)
        }
        _ => repeat,
    };
    while runs.len() < repeat {
        if crate::interrupted() {
            break;
        }
        match run(loops) {
            Some(r) => runs.push(r),
            None => return,
        }
    }
    let per = |s: f64| s / loops as f64;
    let cpu: Vec<f64> = runs.iter().map(|r| per(r.0)).collect();
    let gpu: Vec<f64> = if runs.iter().all(|r| r.1.is_some()) {
        runs.iter().filter_map(|r| r.1).map(per).collect()
    } else {
        Vec::new()
    };
    let gpu_how = clock.as_ref().map(GpuClock::describe);
    let bundle = timeit_bundle(
        label,
        loops,
        &cpu,
        &gpu,
        gpu_how.as_deref(),
        gpu_note.as_deref(),
    );
    publish(&bundle);
}

/// One summary line: `12.3 µs ± 1.10 µs per loop (median ± std. dev. of 7 runs, 100 loops each)`.
pub fn timeit_line(per_loop: &[f64], loops: u64) -> String {
    let Some(s) = Stats::of(per_loop) else {
        return "not measured (no run finished)".into();
    };
    let runs = per_loop.len();
    format!(
        "{} ± {} per loop (median ± std. dev. of {runs} run{}, {loops} loop{} each)",
        format_seconds(s.median),
        format_seconds(s.std),
        if runs == 1 { "" } else { "s" },
        if loops == 1 { "" } else { "s" },
    )
}

/// The `%timeit` report: summary lines (CPU, GPU), the table of both clocks
/// and a histogram of the runs, as `text/plain` and `text/html`.
///
/// `cpu` and `gpu` are seconds per loop of each run (`gpu` empty when not
/// measured); `gpu_how` says how GPU time was measured, `gpu_note` why it was not.
pub fn timeit_bundle(
    label: &str,
    loops: u64,
    cpu: &[f64],
    gpu: &[f64],
    gpu_how: Option<&str>,
    gpu_note: Option<&str>,
) -> MimeBundle {
    let mut lines = vec![format!("CPU: {}", timeit_line(cpu, loops))];
    if !gpu.is_empty() {
        let mut l = format!("GPU: {}", timeit_line(gpu, loops));
        if let Some(how) = gpu_how {
            let _ = write!(l, "; {how}");
        }
        lines.push(l);
    } else if let Some(why) = gpu_note {
        lines.push(format!("GPU: not measured ({why})"));
    }
    let timings = Timings {
        name: label.to_string(),
        cpu_seconds: cpu.to_vec(),
        gpu_seconds: gpu.to_vec(),
        ..Timings::default()
    };
    let runs = cpu.len().max(gpu.len());
    let mut report = Report::new(format!(
        "%timeit {} — {runs} run{} of {loops} loop{}, times per loop",
        short(label, 60),
        if runs == 1 { "" } else { "s" },
        if loops == 1 { "" } else { "s" },
    ));
    for l in &lines {
        report = report.note(l.clone());
    }
    report = report.table(timings.table());
    if runs >= 2 {
        if let Ok(fig) = timings.histogram() {
            report = report.figure(fig);
        }
    }
    let mut b = report.bundle();
    let mut text = lines.join("\n");
    text.push('\n');
    text.push_str(timings.table().to_text().trim_end());
    b.insert(cuprite_display::TEXT_PLAIN, text);
    b
}

/// `%gpu`: devices, driver, NVRTC and CUDA libraries, or why there is no GPU.
#[doc(hidden)]
pub fn __gpu() {
    publish(&gpu_bundle());
}

/// `%fusion [on|off]`: switches automatic fusion, then prints what it did
/// (`cuprite::fusion::explain`).
#[doc(hidden)]
pub fn __fusion(on: Option<bool>) {
    if let Some(on) = on {
        if let Err(e) = cuprite::fusion::set_enabled(on) {
            eprintln!("%fusion: {e}");
            return;
        }
    }
    println!("{}", cuprite::fusion::explain());
}

/// `%gpu --watch`: one display of the GPUs' memory, updated in place every
/// `period_ms` until the cell is interrupted (which ends it normally, with
/// the last view kept).
#[doc(hidden)]
pub fn __gpu_watch(period_ms: u64) {
    let id = format!("cuprite-gpu-watch-{}", std::process::id());
    let started = Instant::now();
    let first = watch_bundle(started.elapsed());
    let shown = crate::display(
        &first.data_json().to_string(),
        &first.metadata_json().to_string(),
        Some(&id),
    );
    // Nothing would change while this cell runs: no GPU, or none opened yet.
    let watchable =
        cuprite::device::cuda_status().usable && !cuprite::cuda::open_device_pools().is_empty();
    if !shown || !watchable {
        if !shown {
            println!("{}", first.text_plain());
        }
        return;
    }
    while !crate::interrupted() {
        // Sleep in steps, so an interrupt ends the watch at once.
        let until = Instant::now() + std::time::Duration::from_millis(period_ms);
        while Instant::now() < until && !crate::interrupted() {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let b = watch_bundle(started.elapsed());
        crate::update_display(
            &b.data_json().to_string(),
            &b.metadata_json().to_string(),
            &id,
        );
    }
}

/// What `%gpu --watch` shows: for each device this session has opened, its
/// memory in use (all processes) and this session's pool.
pub fn watch_bundle(elapsed: std::time::Duration) -> MimeBundle {
    let status = cuprite::device::cuda_status();
    if !status.usable {
        return Report::new("GPU watch")
            .note(format!("No usable GPU: {}", status.reason))
            .bundle();
    }
    // Only the devices this session has opened: opening the others would
    // make a context (and take memory) on GPUs the notebook does not use.
    let pools = cuprite::cuda::open_device_pools();
    if pools.is_empty() {
        return Report::new("GPU watch")
            .note("This session has not used a GPU yet: run a cell that does, then watch again.")
            .bundle();
    }
    let mut table = Table::new().header(
        [
            "Device",
            "In use (all processes)",
            "Total",
            "Session pool: used",
            "reserved",
        ]
        .into_iter()
        .map(Cell::head)
        .collect(),
    );
    for (device, s, total) in &pools {
        let ordinal = match device {
            cuprite::Device::Cuda(n) => *n,
            cuprite::Device::Cpu => continue,
        };
        let in_use = match cuprite::cuda::mem_get_info(ordinal) {
            Ok((free, total)) => human_bytes(total.saturating_sub(free) as u64),
            Err(_) => "n/a".into(),
        };
        table.push_row(vec![
            Cell::text(device.to_string()),
            Cell::num(in_use),
            Cell::num(human_bytes(*total as u64)),
            Cell::num(human_bytes(s.used_bytes as u64)),
            Cell::num(human_bytes(s.reserved_bytes as u64)),
        ]);
    }
    Report::new("GPU watch")
        .table(table)
        .note(format!(
            "Updated {:.0} s after the start; interrupt the cell to stop watching.",
            elapsed.as_secs_f64()
        ))
        .bundle()
}

/// The `%gpu` report for this process.
pub fn gpu_bundle() -> MimeBundle {
    let status = cuprite::device::cuda_status();
    let (device, why) = cuprite::device::default_device_and_reason();
    let libs: Vec<cuprite::cuda::libs::LibraryInfo> = LIBRARIES
        .iter()
        .map(|n| cuprite::cuda::libs::load(n))
        .collect();
    let env = |k: &str| std::env::var(k).unwrap_or_else(|_| "(not set)".into());
    let mut report = if status.usable {
        let mut r = Report::new(format!(
            "GPU: {} CUDA device{}",
            status.device_count,
            if status.device_count == 1 { "" } else { "s" }
        ));
        for n in 0..status.device_count {
            match device_info(n) {
                Ok(d) => r = r.table(d.table()),
                Err(e) => r = r.note(format!("cuda:{n}: {e}")),
            }
        }
        r.note(format!("CUDA: {}", status.reason))
    } else {
        Report::new("No usable GPU: cells run on the CPU backend")
            .note(format!("Why: {}", status.reason))
    };
    report = report
        .note(format!("Default device: {device} ({why})"))
        .note(format!(
            "CUDA_VISIBLE_DEVICES={}, CUPRITE_DEVICE={}",
            env("CUDA_VISIBLE_DEVICES"),
            env("CUPRITE_DEVICE")
        ));
    let majors = cuda_majors(&libs);
    if !majors.is_empty() {
        report = report.note(format!("CUDA libraries found: {}", majors.join(", ")));
    }
    report.table(library_table(&libs)).bundle()
}

/// The display crate's device description of CUDA device `n`.
fn device_info(n: usize) -> cuprite::Result<cuprite_display::DeviceInfo> {
    let d = cuprite::cuda::device_info(n)?;
    let mut extra = Vec::new();
    if let Ok((free, _)) = cuprite::cuda::mem_get_info(n) {
        extra.push(("memory free".to_string(), human_bytes(free as u64)));
    }
    extra.push(("L2 cache".to_string(), human_bytes(d.l2_cache_bytes as u64)));
    extra.push((
        "driver".to_string(),
        format!(
            "supports CUDA {}.{}",
            d.driver_version / 1000,
            (d.driver_version % 1000) / 10
        ),
    ));
    extra.push((
        "NVRTC".to_string(),
        d.nvrtc_version
            .map(|(a, b)| format!("{a}.{b}"))
            .unwrap_or_else(|| "not found".into()),
    ));
    Ok(cuprite_display::DeviceInfo {
        device: format!("cuda:{n}"),
        name: d.name,
        compute_capability: Some((
            d.compute_capability.0.max(0) as u32,
            d.compute_capability.1.max(0) as u32,
        )),
        multiprocessors: Some(d.sm_count as u32),
        memory: Some(d.total_memory as u64),
        extra,
    })
}

/// The version a library's file name carries: `libcublas.so.13.0.0.19` -> `13.0.0.19`.
pub fn library_version(path: &std::path::Path) -> Option<String> {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let name = real.file_name()?.to_string_lossy().to_string();
    let (_, v) = name.split_once(".so.")?;
    Some(v.to_string())
}

/// `CUDA 13` / `CUDA 12` for the toolkit libraries found (not the driver or NCCL).
fn cuda_majors(libs: &[cuprite::cuda::libs::LibraryInfo]) -> Vec<String> {
    let mut majors: Vec<String> = libs
        .iter()
        .filter(|l| !matches!(l.name, "cuda" | "nccl"))
        .filter_map(|l| l.path.as_deref().and_then(library_version))
        .filter_map(|v| v.split('.').next().map(|m| format!("CUDA {m}")))
        .collect();
    majors.sort();
    majors.dedup();
    majors
}

fn library_table(libs: &[cuprite::cuda::libs::LibraryInfo]) -> Table {
    let mut t = Table::new().header(
        ["library", "version", "loaded from"]
            .into_iter()
            .map(Cell::head)
            .collect(),
    );
    for l in libs {
        let (version, path) = match &l.path {
            Some(p) => (
                library_version(p).unwrap_or_else(|| "?".into()),
                p.display().to_string(),
            ),
            None => ("—".to_string(), "not found".to_string()),
        };
        t.push_row(vec![
            Cell::text(l.name),
            Cell::text(version),
            Cell::text(path),
        ]);
    }
    t
}

/// `%mem`: device and pinned memory pools, and the cell process's memory.
#[doc(hidden)]
pub fn __mem() {
    publish(&mem_bundle());
}

/// The `%mem` report for this process.
pub fn mem_bundle() -> MimeBundle {
    let process = process_memory_line();
    let status = cuprite::device::cuda_status();
    if !status.usable {
        return Report::new("Memory")
            .note(process)
            .note(format!("No device memory pools: {}", status.reason))
            .bundle();
    }
    let pool = match cuprite::cuda::memory_pool() {
        Ok(p) => p,
        Err(e) => {
            return Report::new("Memory")
                .note(process)
                .note(format!("No device memory pools: {e}"))
                .bundle()
        }
    };
    let device = pool.device();
    let ordinal = match device {
        cuprite::Device::Cuda(n) => n,
        cuprite::Device::Cpu => 0,
    };
    let total = cuprite::cuda::device_info(ordinal)
        .map(|d| d.total_memory as u64)
        .ok();
    let mut notes = vec![process];
    let mut pools = Vec::new();
    match pool.stats() {
        Ok(s) => {
            pools.push(pool_stats(&format!("device pool ({device})"), &s, total));
            notes.push(format!(
                "device pool: {} cached for reuse; {} allocations since the session started; limit: {}",
                human_bytes(s.cached_bytes as u64),
                s.total_allocations,
                if s.limit_bytes > 0 {
                    human_bytes(s.limit_bytes as u64)
                } else {
                    "none set (the device's memory is shown)".into()
                }
            ));
        }
        Err(e) => notes.push(format!("device pool ({device}): {e}")),
    }
    if let Ok((free, total)) = cuprite::cuda::mem_get_info(ordinal) {
        notes.push(format!(
            "{device}: {} free of {} (all processes)",
            human_bytes(free as u64),
            human_bytes(total as u64)
        ));
    }
    if let Ok(p) = cuprite::cuda::pinned_memory_pool() {
        let s = p.stats();
        pools.push(pool_stats("pinned host pool", &s, None));
        notes.push(format!(
            "pinned host pool: {} cached for reuse",
            human_bytes(s.cached_bytes as u64)
        ));
    }
    memory_bundle(MemoryReport { pools }, &notes)
}

/// The display crate's pool figures from the runtime's.
pub fn pool_stats(
    name: &str,
    s: &cuprite::cuda::PoolStats,
    device_memory: Option<u64>,
) -> PoolStats {
    PoolStats {
        name: name.to_string(),
        used: s.used_bytes as u64,
        reserved: s.reserved_bytes as u64,
        peak: s.peak_bytes as u64,
        limit: if s.limit_bytes > 0 {
            Some(s.limit_bytes as u64)
        } else {
            device_memory
        },
        allocations: s.allocations as u64,
    }
}

/// A memory report with note lines under it (text and HTML).
pub fn memory_bundle(report: MemoryReport, notes: &[String]) -> MimeBundle {
    let mut b = report.bundle();
    let mut text = b.text_plain().to_string();
    let mut html = b.get(cuprite_display::TEXT_HTML).unwrap_or("").to_string();
    for n in notes {
        text.push('\n');
        text.push_str(n);
        html.push_str(&dhtml::note_line(n));
    }
    b.insert(cuprite_display::TEXT_PLAIN, text);
    b.insert(cuprite_display::TEXT_HTML, html);
    b
}

/// `Cell process memory: resident 1.2 GiB (peak 1.5 GiB), virtual 30 GiB`.
fn process_memory_line() -> String {
    let st = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let get = |k: &str| {
        st.lines()
            .find(|l| l.starts_with(k))
            .map(|l| l[k.len()..].trim().to_string())
            .unwrap_or_else(|| "n/a".into())
    };
    format!(
        "Cell process memory: resident {} (peak {}), virtual {}",
        get("VmRSS:"),
        get("VmHWM:"),
        get("VmSize:")
    )
}

fn short(s: &str, max: usize) -> String {
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if s.chars().count() <= max {
        s
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// `%whos`: the session's variables, given by the kernel as (name, type, value).
#[doc(hidden)]
pub fn __whos(vars: &[(&str, &str, &dyn std::any::Any)]) {
    publish(&whos_bundle(vars));
}

/// The variables as JSON for the debugger's Variables panel (the kernel asks
/// for it with the same borrowed slice as `%whos`): `[{"name", "type",
/// "value"}]`, an array's value its shape, dtype, device and bytes, a number's
/// or a string's its `Debug` text.
#[doc(hidden)]
pub fn __variables(vars: &[(&str, &str, &dyn std::any::Any)]) -> MimeBundle {
    let mut vars = vars.to_vec();
    vars.sort_by(|a, b| a.0.cmp(b.0));
    let rows: Vec<serde_json::Value> = vars
        .iter()
        .map(|(name, ty, value)| {
            serde_json::json!({"name": name, "type": ty, "value": value_summary(*value)})
        })
        .collect();
    MimeBundle::new(format!("{} variables", rows.len())).with(
        "application/json",
        serde_json::Value::Array(rows).to_string(),
    )
}

/// A one-line view of a value whose type is known here; empty otherwise.
fn value_summary(value: &dyn std::any::Any) -> String {
    if let Some(a) = value.downcast_ref::<cuprite::Array>() {
        return format!(
            "{} {} on {}, {}",
            dhtml::fmt_shape(a.shape()),
            a.dtype(),
            a.device(),
            human_bytes(a.nbytes() as u64)
        );
    }
    macro_rules! debug_of {
        ($($t:ty),*) => {$(
            if let Some(v) = value.downcast_ref::<$t>() {
                return short(&format!("{v:?}"), 200);
            }
        )*};
    }
    debug_of!(
        bool,
        char,
        i8,
        i16,
        i32,
        i64,
        isize,
        u8,
        u16,
        u32,
        u64,
        usize,
        f32,
        f64,
        String,
        &'static str,
        Vec<f64>,
        Vec<f32>,
        Vec<i64>,
        Vec<i32>,
        Vec<usize>,
        Vec<String>
    );
    String::new()
}

/// The `%whos` table: every variable's name and type, and for arrays their
/// shape, dtype, device and bytes; then the bytes arrays hold per device.
pub fn whos_bundle(vars: &[(&str, &str, &dyn std::any::Any)]) -> MimeBundle {
    let mut vars = vars.to_vec();
    vars.sort_by(|a, b| a.0.cmp(b.0));
    let mut table = Table::new().header(
        ["Variable", "Type", "Shape", "Dtype", "Device", "Bytes"]
            .into_iter()
            .map(Cell::head)
            .collect(),
    );
    let mut per_device: Vec<(String, u64)> = Vec::new();
    for (name, ty, value) in &vars {
        let mut row = vec![Cell::text(*name), Cell::text(short(ty, 60))];
        match value.downcast_ref::<cuprite::Array>() {
            Some(a) => {
                let (device, bytes) = (a.device().to_string(), a.nbytes() as u64);
                row.extend([
                    Cell::text(dhtml::fmt_shape(a.shape())),
                    Cell::text(a.dtype().to_string()),
                    Cell::text(device.clone()),
                    Cell::num(human_bytes(bytes)),
                ]);
                match per_device.iter_mut().find(|(d, _)| *d == device) {
                    Some((_, total)) => *total += bytes,
                    None => per_device.push((device, bytes)),
                }
            }
            None => row.extend((0..4).map(|_| Cell::text(""))),
        }
        table.push_row(row);
    }
    let title = match vars.len() {
        0 => "No variables".to_string(),
        1 => "1 variable".to_string(),
        n => format!("{n} variables"),
    };
    let mut report = Report::new(title);
    if !vars.is_empty() {
        report = report.table(table);
    }
    if !per_device.is_empty() {
        let held: Vec<String> = per_device
            .iter()
            .map(|(d, b)| format!("{} on {d}", human_bytes(*b)))
            .collect();
        report = report.note(format!(
            "Arrays hold {} (views count their whole size).",
            held.join(", ")
        ));
    }
    report.bundle()
}

/// Publishes a bundle as `display_data`; outside the kernel prints its text.
fn publish(bundle: &MimeBundle) {
    let data = bundle.data_json().to_string();
    let meta = bundle.metadata_json().to_string();
    if !crate::display(&data, &meta, None) {
        println!("{}", bundle.text_plain());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_payload_is_times_plus_gpu_pools() {
        let payload = crate::complete_json();
        assert!(payload.starts_with("{\"wall_ns\":"), "{payload}");
        // No device was opened here, and asking opens none.
        assert!(payload.ends_with(",\"gpu\":[]}"), "{payload}");
        assert!(cuprite::cuda::open_device_pools().is_empty());
    }

    #[test]
    fn watch_says_why_it_has_nothing_to_show() {
        let bundle = watch_bundle(std::time::Duration::ZERO);
        let text = bundle.text_plain();
        if cuprite::device::cuda_status().usable {
            assert!(
                text.contains("not used a GPU yet") || text.contains("cuda:"),
                "{text}"
            );
        } else {
            assert!(text.contains("No usable GPU"), "{text}");
        }
    }

    #[test]
    fn whos_lists_variables_and_array_figures() {
        let a = cuprite::zeros([3, 4], cuprite::f32).unwrap();
        let n = 5usize;
        let b = whos_bundle(&[("n", "usize", &n), ("a", "Array", &a)]);
        let text = b.text_plain();
        assert!(text.starts_with("2 variables\n"), "{text}");
        // Sorted by name: `a` before `n`; the array's shape, dtype, device and bytes.
        let (ia, in_) = (text.find("\na ").unwrap(), text.find("\nn ").unwrap());
        assert!(ia < in_, "{text}");
        assert!(
            text.contains("(3, 4)") && text.contains("float32") && text.contains("48 B"),
            "{text}"
        );
        assert!(text.contains("Arrays hold 48 B on cpu"), "{text}");
        assert!(whos_bundle(&[]).text_plain().starts_with("No variables"));
    }

    #[test]
    fn time_text_with_and_without_gpu() {
        let t = time_text(0.001, 0.0, 0.0025, &GpuTime::NoGpu);
        assert_eq!(
            t,
            "CPU times: user 1.00 ms, sys 0.00 ns, total 1.00 ms\nWall time: 2.50 ms\n"
        );
        let t = time_text(
            0.0,
            0.0,
            0.01,
            &GpuTime::Measured(0.0042, "CUDA events on the default stream of cuda:0".into()),
        );
        assert!(t.ends_with("GPU time: 4.20 ms (CUDA events on the default stream of cuda:0)\n"));
        let t = time_text(
            0.0,
            0.0,
            0.01,
            &GpuTime::NotMeasured("the current device is the CPU".into()),
        );
        assert!(t.ends_with("GPU time: not measured (the current device is the CPU)\n"));
    }

    #[test]
    fn timeit_lines_and_bundle() {
        // NumPy 2.4: np.median([3e-6, 1e-6, 2e-6]) = 2e-6; np.std(...) = 8.165e-7.
        let line = timeit_line(&[3e-6, 1e-6, 2e-6], 100);
        assert_eq!(
            line,
            "2.00 µs ± 816 ns per loop (median ± std. dev. of 3 runs, 100 loops each)"
        );
        assert_eq!(
            timeit_line(&[1.0], 1),
            "1.00 s ± 0.00 ns per loop (median ± std. dev. of 1 run, 1 loop each)"
        );
        let b = timeit_bundle("x.sum()", 100, &[3e-6, 1e-6, 2e-6], &[], None, None);
        let text = b.text_plain();
        assert!(text.starts_with("CPU: 2.00 µs ± 816 ns per loop"), "{text}");
        assert!(!text.contains("GPU"), "{text}");
        let html = b.get("text/html").unwrap();
        assert!(
            html.contains("%timeit x.sum() — 3 runs of 100 loops"),
            "{html}"
        );
        assert!(html.contains("data:image/png;base64,"), "histogram: {html}");

        let b = timeit_bundle(
            "k()",
            10,
            &[1e-3, 1e-3],
            &[2e-3, 4e-3],
            Some("CUDA events on the default stream of cuda:0"),
            None,
        );
        let text = b.text_plain();
        assert!(text.contains("\nGPU: 3.00 ms ± 1.00 ms per loop (median ± std. dev. of 2 runs, 10 loops each); CUDA events on the default stream of cuda:0"), "{text}");
        assert!(text.contains("GPU"), "{text}");
        let b = timeit_bundle("k()", 10, &[1e-3], &[], None, Some("no events"));
        assert!(b.text_plain().contains("GPU: not measured (no events)"));
        assert!(b.get("text/html").is_some());
    }

    #[test]
    fn library_versions_from_file_names() {
        let v = library_version(std::path::Path::new("/nonexistent/libcublas.so.13.0.0.19"));
        assert_eq!(v.as_deref(), Some("13.0.0.19"));
        assert_eq!(
            library_version(std::path::Path::new("libnvrtc.so.12")).as_deref(),
            Some("12")
        );
        assert_eq!(library_version(std::path::Path::new("libfoo.so")), None);
    }

    #[test]
    fn pools_and_notes() {
        let s = cuprite::cuda::PoolStats {
            used_bytes: 1 << 20,
            reserved_bytes: 4 << 20,
            peak_bytes: 2 << 20,
            allocations: 3,
            total_allocations: 9,
            limit_bytes: 0,
            cached_bytes: 3 << 20,
        };
        let p = pool_stats("device pool (cuda:0)", &s, Some(80 << 30));
        assert_eq!(p.limit, Some(80 << 30));
        assert_eq!(
            (p.used, p.reserved, p.peak, p.allocations),
            (1 << 20, 4 << 20, 2 << 20, 3)
        );
        let b = memory_bundle(MemoryReport { pools: vec![p] }, &["a note".to_string()]);
        assert!(b.text_plain().contains("device pool (cuda:0)"));
        assert!(b.text_plain().ends_with("\na note"));
        assert!(b.get("text/html").unwrap().contains("a note"));
    }

    #[test]
    fn reports_without_a_gpu() {
        // On machines without CUDA (CI) these describe why; with one, the devices.
        let g = gpu_bundle();
        assert!(g.get("text/html").is_some());
        let text = g.text_plain();
        assert!(text.contains("Default device:"), "{text}");
        assert!(text.contains("cudart"), "{text}");
        if !cuprite::device::cuda_status().usable {
            assert!(text.starts_with("No usable GPU"), "{text}");
        }
        let m = mem_bundle();
        assert!(m.text_plain().contains("Cell process memory: resident"));
        assert!(m.get("text/html").is_some());
    }

    #[test]
    fn short_labels() {
        assert_eq!(short("a\n   b", 10), "a b");
        assert_eq!(short("abcdefghijk", 5), "abcd…");
    }
}
