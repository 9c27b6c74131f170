//! Timing (`cp::profiler`): [`benchmark`] runs a function repeatedly and
//! records host (CPU) and device (CUDA event) time per run, as
//! `cupyx.profiler.benchmark`; [`time_range`] marks a named NVTX range for
//! Nsight Systems.
//!
//! ```
//! use cuprite as cp;
//! let x = cp::ones([1 << 10], cp::f32)?;
//! let t = cp::profiler::benchmark(|| x.sum(), 20)?.bytes(4 << 10);
//! println!("{t}");   // sum: CPU: 12.3 us +/- 1.0 (min: ... / max: ...) us ...
//! assert_eq!(t.cpu_times.len(), 20);
//! # Ok::<(), cp::Error>(())
//! ```

use std::fmt;
use std::time::Instant;

use crate::backend::probe::current_device;

use crate::core::device::Device;
use crate::core::error::{Error, Result};

/// Per-run times of one benchmark and what each run moved or computed.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// What was timed.
    pub name: String,
    /// Host wall-clock time of each run (until the function returned), in seconds.
    pub cpu_times: Vec<f64>,
    /// Device time of each run between CUDA events, in seconds; empty on the CPU backend.
    pub gpu_times: Vec<f64>,
    /// Bytes read plus written once per run, when given.
    pub bytes: Option<f64>,
    /// Floating-point operations per run, when given.
    pub flops: Option<f64>,
    /// The device the runs were timed on.
    pub device: Device,
}

/// Mean, standard deviation (`ddof=0`), min, median and max of some times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Arithmetic mean.
    pub mean: f64,
    /// Population standard deviation.
    pub std: f64,
    /// Smallest value.
    pub min: f64,
    /// Median (mean of the middle two for an even count).
    pub median: f64,
    /// Largest value.
    pub max: f64,
}

impl Stats {
    /// The statistics of `v`; `None` when it is empty.
    pub fn of(v: &[f64]) -> Option<Stats> {
        if v.is_empty() {
            return None;
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let std = (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt();
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        let m = s.len() / 2;
        let median = if s.len() % 2 == 0 {
            (s[m - 1] + s[m]) / 2.0
        } else {
            s[m]
        };
        Some(Stats {
            mean,
            std,
            min: s[0],
            median,
            max: s[s.len() - 1],
        })
    }
}

impl Timing {
    /// Records that each run moves `n` bytes (read plus written once).
    pub fn bytes(mut self, n: impl Into<f64>) -> Timing {
        self.bytes = Some(n.into());
        self
    }

    /// Records that each run performs `n` floating-point operations.
    pub fn flops(mut self, n: impl Into<f64>) -> Timing {
        self.flops = Some(n.into());
        self
    }

    /// Renames the timing (shown in reports).
    pub fn named(mut self, name: &str) -> Timing {
        self.name = name.to_string();
        self
    }

    /// Statistics of the CPU times.
    pub fn cpu(&self) -> Option<Stats> {
        Stats::of(&self.cpu_times)
    }

    /// Statistics of the GPU times (`None` on the CPU backend).
    pub fn gpu(&self) -> Option<Stats> {
        Stats::of(&self.gpu_times)
    }

    /// The times rates are based on: GPU when measured, else CPU.
    fn reference(&self) -> Option<Stats> {
        self.gpu().or_else(|| self.cpu())
    }

    /// Mean time per run (GPU when measured, else CPU), in seconds.
    pub fn mean(&self) -> f64 {
        self.reference().map_or(0.0, |s| s.mean)
    }

    /// Standard deviation of the run times (GPU when measured, else CPU).
    pub fn std(&self) -> f64 {
        self.reference().map_or(0.0, |s| s.std)
    }

    /// Fastest run (GPU when measured, else CPU), in seconds.
    pub fn min(&self) -> f64 {
        self.reference().map_or(0.0, |s| s.min)
    }

    /// Median run (GPU when measured, else CPU), in seconds.
    pub fn median(&self) -> f64 {
        self.reference().map_or(0.0, |s| s.median)
    }

    /// Slowest run (GPU when measured, else CPU), in seconds.
    pub fn max(&self) -> f64 {
        self.reference().map_or(0.0, |s| s.max)
    }

    /// Achieved bandwidth from the median run, bytes per second.
    pub fn bytes_per_second(&self) -> Option<f64> {
        let m = self.median();
        self.bytes.filter(|_| m > 0.0).map(|b| b / m)
    }

    /// Achieved FLOP rate from the median run, per second.
    pub fn flops_per_second(&self) -> Option<f64> {
        let m = self.median();
        self.flops.filter(|_| m > 0.0).map(|f| f / m)
    }
}

/// A time in the unit that suits it: (value, unit).
fn scaled(seconds: f64) -> (f64, &'static str) {
    let s = seconds.abs();
    if s < 1e-3 {
        (seconds * 1e6, "us")
    } else if s < 1.0 {
        (seconds * 1e3, "ms")
    } else {
        (seconds, "s")
    }
}

fn rate(per_second: f64, unit: &str) -> String {
    for (p, scale) in [("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)] {
        if per_second >= scale {
            return format!("{:.3} {p}{unit}/s", per_second / scale);
        }
    }
    format!("{per_second:.3} {unit}/s")
}

/// CuPy's summary: `name:    CPU:   12.345 us   +/-  1.234 (min:   11.000 / max:   20.100) us     GPU-0: ...`.
impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.name)?;
        let clock = |f: &mut fmt::Formatter<'_>, label: &str, s: Stats| -> fmt::Result {
            let (mean, unit) = scaled(s.mean);
            let k = mean / s.mean.max(f64::MIN_POSITIVE);
            write!(
                f,
                "    {label}: {:>9.3} {unit} +/- {:>7.3} (min: {:>9.3} / max: {:>9.3}) {unit}",
                mean,
                s.std * k,
                s.min * k,
                s.max * k
            )
        };
        if let Some(s) = self.cpu() {
            clock(f, "CPU", s)?;
        }
        match (self.gpu(), self.device) {
            (Some(s), Device::Cuda(n)) => clock(f, &format!("GPU-{n}"), s)?,
            (Some(s), Device::Cpu) => clock(f, "GPU", s)?,
            (None, _) => write!(f, "    GPU: not measured (CPU backend)")?,
        }
        if let Some(b) = self.bytes_per_second() {
            write!(f, "    {}", rate(b, "B"))?;
        }
        if let Some(x) = self.flops_per_second() {
            write!(f, "    {}", rate(x, "FLOP"))?;
        }
        Ok(())
    }
}

/// Times `f` `n_repeat` times after 10 warm-up runs (CuPy's default); see
/// [`benchmark_with`].
pub fn benchmark<T>(f: impl FnMut() -> Result<T>, n_repeat: usize) -> Result<Timing> {
    benchmark_with("benchmark", f, n_repeat, 10)
}

/// Times `f`: `n_warmup` untimed runs, then `n_repeat` runs each between
/// two CUDA events on the current stream (GPU time) and measured on the host
/// clock until `f` returns (CPU time), as `cupyx.profiler.benchmark`. On the
/// CPU backend only CPU times are recorded. Errors of `f` stop the benchmark.
pub fn benchmark_with<T>(
    name: &str,
    mut f: impl FnMut() -> Result<T>,
    n_repeat: usize,
    n_warmup: usize,
) -> Result<Timing> {
    if n_repeat == 0 {
        return Err(Error::InvalidArgument {
            op: "profiler::benchmark",
            detail: "n_repeat must be at least 1".into(),
        });
    }
    let device = current_device();
    let mut cpu_times = Vec::with_capacity(n_repeat);
    let mut gpu_times = Vec::new();
    // `f` may not call the runtime at all: check for interrupts between runs.
    let check = || crate::core::interrupt::check("profiler::benchmark");
    for _ in 0..n_warmup {
        check()?;
        drop(f()?);
    }
    match device {
        Device::Cpu => {
            for _ in 0..n_repeat {
                check()?;
                let t = Instant::now();
                let r = f()?;
                cpu_times.push(t.elapsed().as_secs_f64());
                drop(r);
            }
        }
        Device::Cuda(_) => {
            use crate::cuda::runtime::stream::current_stream;
            use crate::cuda::Event;
            let stream = current_stream();
            stream.synchronize()?;
            let (start, end) = (Event::new()?, Event::new()?);
            gpu_times.reserve(n_repeat);
            for _ in 0..n_repeat {
                check()?;
                start.record(&stream)?;
                let t = Instant::now();
                let r = f()?;
                // Deferred small operations are launched inside the host time.
                crate::cuda::batch::flush(&stream)?;
                cpu_times.push(t.elapsed().as_secs_f64());
                end.record(&stream)?;
                gpu_times.push(Event::elapsed_ms(&start, &end)? as f64 * 1e-3);
                drop(r);
            }
        }
    }
    Ok(Timing {
        name: name.to_string(),
        cpu_times,
        gpu_times,
        bytes: None,
        flops: None,
        device,
    })
}

type PushFn = unsafe extern "C" fn(*const std::os::raw::c_char) -> i32;
type PopFn = unsafe extern "C" fn() -> i32;

struct Nvtx {
    push: PushFn,
    pop: PopFn,
    _lib: libloading::Library,
}

/// NVTX from libnvToolsExt (or libnvtx3interop) when installed.
fn nvtx() -> Option<&'static Nvtx> {
    static NVTX: std::sync::OnceLock<Option<Nvtx>> = std::sync::OnceLock::new();
    NVTX.get_or_init(|| {
        let mut names: Vec<String> = vec![
            "libnvToolsExt.so.1".into(),
            "libnvToolsExt.so".into(),
            "libnvtx3interop.so.1".into(),
            "libnvtx3interop.so".into(),
        ];
        for root in ["CUDA_HOME", "CUDA_PATH"]
            .iter()
            .filter_map(|v| std::env::var(v).ok())
            .chain(std::iter::once("/usr/local/cuda".to_string()))
        {
            names.push(format!("{root}/lib64/libnvToolsExt.so.1"));
            names.push(format!("{root}/lib64/libnvtx3interop.so.1"));
        }
        for n in names {
            // SAFETY: loading a shared library runs its initialisers; NVTX's are benign.
            let Ok(lib) = (unsafe { libloading::Library::new(&n) }) else {
                continue;
            };
            // SAFETY: NVTX's documented signatures.
            let syms = unsafe {
                (
                    lib.get::<PushFn>(b"nvtxRangePushA\0").map(|s| *s),
                    lib.get::<PopFn>(b"nvtxRangePop\0").map(|s| *s),
                )
            };
            if let (Ok(push), Ok(pop)) = syms {
                return Some(Nvtx {
                    push,
                    pop,
                    _lib: lib,
                });
            }
        }
        None
    })
    .as_ref()
}

/// An open NVTX range; the range ends when this guard is dropped.
#[must_use = "the range ends when the guard is dropped"]
pub struct RangeGuard {
    active: bool,
}

impl RangeGuard {
    /// Whether NVTX was found and the range is being recorded.
    pub fn is_recording(&self) -> bool {
        self.active
    }
}

impl Drop for RangeGuard {
    fn drop(&mut self) {
        if self.active {
            if let Some(n) = nvtx() {
                // SAFETY: pops the range this guard pushed.
                unsafe { (n.pop)() };
            }
        }
    }
}

/// Marks a named range in Nsight Systems timelines until the guard drops
/// (`cupyx.profiler.time_range`); a no-op when NVTX is not installed.
pub fn time_range(name: &str) -> RangeGuard {
    let active = match (nvtx(), std::ffi::CString::new(name)) {
        (Some(n), Ok(c)) => {
            // SAFETY: a valid C string; NVTX copies it.
            unsafe { (n.push)(c.as_ptr()) };
            true
        }
        _ => false,
    };
    RangeGuard { active }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_match_numpy() {
        // NumPy 2.4: x = [3., 1., 4., 1., 5.]; np.mean 2.8, np.std 1.6, np.median 3.
        let s = Stats::of(&[3.0, 1.0, 4.0, 1.0, 5.0]).unwrap();
        assert!((s.mean - 2.8).abs() < 1e-12 && (s.std - 1.6).abs() < 1e-12);
        assert_eq!((s.min, s.median, s.max), (1.0, 3.0, 5.0));
    }

    #[test]
    fn display_is_cupys_line() {
        let t = Timing {
            name: "f".into(),
            cpu_times: vec![10e-6, 12e-6],
            gpu_times: vec![],
            bytes: Some(1e6),
            flops: None,
            device: Device::Cpu,
        };
        let s = t.to_string();
        assert!(
            s.starts_with(
                "f:    CPU:    11.000 us +/-   1.000 (min:    10.000 / max:    12.000) us"
            ),
            "{s}"
        );
        assert!(s.contains("GPU: not measured (CPU backend)"), "{s}");
        assert!(s.contains("90.909 GB/s"), "{s}");
    }
}
