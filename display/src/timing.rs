//! Timing reports (`cp::profiler::benchmark`, `%timeit`): per-run CPU and
//! GPU times summarized in a table, a histogram of the runs, and achieved
//! throughput against the device's measured peak.
//!
//! The runtime's benchmark result (`cuprite::profiler::Timing`) converts
//! into [`Timings`] (plain data), which this module renders; `display(&timing)`
//! works on the runtime's value directly.

use cuprite::Result;

use crate::bundle::{MimeBundle, RichDisplay};
use crate::html::{Cell, Table};
use crate::plot::{Axes, Figure};
use crate::report::Report;

/// Per-run times of one benchmark and what each run moved or computed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timings {
    /// What was timed.
    pub name: String,
    /// Host wall-clock time of each run, in seconds.
    pub cpu_seconds: Vec<f64>,
    /// Device time of each run (CUDA events), in seconds; empty on the CPU backend.
    pub gpu_seconds: Vec<f64>,
    /// Bytes read plus written once per run, when the caller gives them.
    pub bytes: Option<f64>,
    /// Floating-point operations per run, when the caller gives them.
    pub flops: Option<f64>,
    /// The device's measured peak bandwidth, bytes per second.
    pub peak_bytes_per_second: Option<f64>,
    /// The device's measured peak rate, FLOP per second.
    pub peak_flops_per_second: Option<f64>,
}

/// The runtime's summary of a list of times (mean, std, min, median, max).
pub use cuprite::profiler::Stats;

/// A time unit chosen for a typical value: (name, seconds per unit).
fn time_unit(seconds: f64) -> (&'static str, f64) {
    let s = seconds.abs();
    if s < 1e-6 {
        ("ns", 1e-9)
    } else if s < 1e-3 {
        ("µs", 1e-6)
    } else if s < 1.0 {
        ("ms", 1e-3)
    } else {
        ("s", 1.0)
    }
}

/// A number with 4 significant digits, no exponent for ordinary sizes.
fn sig4(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.digits$}")
}

/// A rate with an SI prefix: `812.3 GB/s`, `1.234 TFLOP/s`.
pub fn si_rate(per_second: f64, unit: &str) -> String {
    const PREFIXES: [(&str, f64); 6] = [
        ("P", 1e15),
        ("T", 1e12),
        ("G", 1e9),
        ("M", 1e6),
        ("k", 1e3),
        ("", 1.0),
    ];
    for (p, scale) in PREFIXES {
        if per_second.abs() >= scale {
            return format!("{} {p}{unit}/s", sig4(per_second / scale));
        }
    }
    format!("{} {unit}/s", sig4(per_second))
}

impl Timings {
    /// Times of the runs that throughput is based on: GPU when measured, else CPU.
    fn reference(&self) -> (&'static str, &[f64]) {
        if self.gpu_seconds.is_empty() {
            ("CPU", &self.cpu_seconds)
        } else {
            ("GPU", &self.gpu_seconds)
        }
    }

    /// The statistics table (one row per clock, in one time unit).
    pub fn table(&self) -> Table {
        let (_, reference) = self.reference();
        let typical = Stats::of(reference).map_or(0.0, |s| s.median);
        let (unit, scale) = time_unit(typical);
        let mut t = Table::new().header(
            [
                "",
                &format!("mean ({unit})"),
                "std",
                "min",
                "median",
                "max",
                "runs",
            ]
            .into_iter()
            .map(Cell::head)
            .collect(),
        );
        for (clock, v) in [("CPU", &self.cpu_seconds), ("GPU", &self.gpu_seconds)] {
            if let Some(s) = Stats::of(v) {
                let f = |x: f64| Cell::num(sig4(x / scale));
                t.push_row(vec![
                    Cell::text(clock),
                    f(s.mean),
                    f(s.std),
                    f(s.min),
                    f(s.median),
                    f(s.max),
                    Cell::num(v.len().to_string()),
                ]);
            }
        }
        t
    }

    /// Achieved throughput from the median run, with the fraction of peak.
    pub fn throughput(&self) -> Vec<String> {
        let (clock, reference) = self.reference();
        let Some(s) = Stats::of(reference) else {
            return vec![];
        };
        if s.median <= 0.0 {
            return vec![];
        }
        let mut lines = Vec::new();
        let mut line = |amount: Option<f64>, peak: Option<f64>, unit: &str| {
            if let Some(a) = amount {
                let rate = a / s.median;
                let mut text = format!("achieved {} ({clock} median)", si_rate(rate, unit));
                if let Some(p) = peak.filter(|p| *p > 0.0) {
                    text.push_str(&format!(
                        ", {:.0}% of the measured peak {}",
                        100.0 * rate / p,
                        si_rate(p, unit)
                    ));
                }
                lines.push(text);
            }
        };
        line(self.bytes, self.peak_bytes_per_second, "B");
        line(self.flops, self.peak_flops_per_second, "FLOP");
        lines
    }

    /// A histogram of the per-run times (GPU when measured).
    pub fn histogram(&self) -> Result<Figure> {
        let (clock, reference) = self.reference();
        let typical = Stats::of(reference).map_or(0.0, |s| s.median);
        let (unit, scale) = time_unit(typical);
        let scaled: Vec<f64> = reference.iter().map(|x| x / scale).collect();
        let bins = (reference.len() as f64).sqrt().ceil().clamp(1.0, 50.0) as usize;
        let a = cuprite::asarray(scaled)?;
        Ok(Figure::new().size(520, 260).panel(
            Axes::new()
                .hist(&a, bins)?
                .xlabel(format!("{clock} time per run ({unit})"))
                .ylabel("runs"),
        ))
    }

    /// The report: title, table, throughput lines and histogram.
    pub fn report(&self) -> Report {
        let runs = self.cpu_seconds.len().max(self.gpu_seconds.len());
        let mut r = Report::new(format!("{} — {runs} runs", self.name)).table(self.table());
        for line in self.throughput() {
            r = r.note(line);
        }
        if self.cpu_seconds.len().max(self.gpu_seconds.len()) >= 2 {
            if let Ok(f) = self.histogram() {
                r = r.figure(f);
            }
        }
        r
    }

    /// CuPy's one-line summary: `name: CPU: 12.3 µs +/- 1.1 (min: 11 / max: 20.1) µs  GPU: ...`.
    pub fn summary_line(&self) -> String {
        let mut out = format!("{}:", self.name);
        for (clock, v) in [("CPU", &self.cpu_seconds), ("GPU", &self.gpu_seconds)] {
            if let Some(s) = Stats::of(v) {
                let (unit, scale) = time_unit(s.mean);
                out.push_str(&format!(
                    "    {clock}: {} {unit} +/- {} (min: {} / max: {}) {unit}",
                    sig4(s.mean / scale),
                    sig4(s.std / scale),
                    sig4(s.min / scale),
                    sig4(s.max / scale)
                ));
            }
        }
        out
    }
}

impl RichDisplay for Timings {
    fn bundle(&self) -> MimeBundle {
        let r = self.report();
        let mut b = r.bundle();
        b.insert(
            crate::TEXT_PLAIN,
            format!("{}\n{}", self.summary_line(), r.to_text()),
        );
        b
    }
}

impl From<&cuprite::profiler::Timing> for Timings {
    fn from(t: &cuprite::profiler::Timing) -> Timings {
        Timings {
            name: t.name.clone(),
            cpu_seconds: t.cpu_times.clone(),
            gpu_seconds: t.gpu_times.clone(),
            bytes: t.bytes,
            flops: t.flops,
            peak_bytes_per_second: None,
            peak_flops_per_second: None,
        }
    }
}

impl RichDisplay for cuprite::profiler::Timing {
    fn bundle(&self) -> MimeBundle {
        Timings::from(self).bundle()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_match_numpy() {
        // NumPy 2.4: x = [3., 1., 4., 1., 5.]; np.mean(x)=2.8, np.std(x)=1.6, np.median(x)=3.
        let s = Stats::of(&[3.0, 1.0, 4.0, 1.0, 5.0]).unwrap();
        assert!((s.mean - 2.8).abs() < 1e-12);
        assert!((s.std - 1.6).abs() < 1e-12);
        assert_eq!((s.min, s.median, s.max), (1.0, 3.0, 5.0));
        assert_eq!(Stats::of(&[1.0, 2.0, 3.0, 4.0]).unwrap().median, 2.5);
        assert!(Stats::of(&[]).is_none());
    }

    #[test]
    fn runtime_timings_convert() {
        let t = cuprite::profiler::Timing {
            name: "axpb".into(),
            cpu_times: vec![1e-5, 2e-5],
            gpu_times: vec![],
            bytes: Some(8.0),
            flops: None,
            device: cuprite::Device::Cpu,
        };
        let d = Timings::from(&t);
        assert_eq!(d.cpu_seconds, vec![1e-5, 2e-5]);
        assert!(d.gpu_seconds.is_empty() && d.bytes == Some(8.0));
        assert!(t.bundle().get(crate::TEXT_PLAIN).is_some());
    }

    #[test]
    fn units_and_rates() {
        assert_eq!(time_unit(2e-5), ("µs", 1e-6));
        assert_eq!(sig4(12.3456), "12.35");
        assert_eq!(sig4(0.012345), "0.01235");
        assert_eq!(si_rate(8.123e11, "B"), "812.3 GB/s");
        assert_eq!(si_rate(1.5e12, "FLOP"), "1.500 TFLOP/s");
    }
}
