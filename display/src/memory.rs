//! Memory-pool statistics and device information as tables, with a stacked
//! bar per pool (used | reserved but free | up to the limit).
//!
//! The runtime's pools ([`cuprite::cuda::memory_pool`]) and devices
//! ([`cuprite::Device`]) convert into these plain-data types, which this
//! module renders; [`memory_report`] and [`device_info`] gather them.

use std::fmt::Write as _;

use crate::bundle::{MimeBundle, RichDisplay, TEXT_HTML};
use crate::html::{self, human_bytes, Cell, Table};
use crate::plot::PALETTE;

/// One memory pool's counters (the device pool, the pinned host pool, ...).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PoolStats {
    /// Which pool: `device pool (cuda:0)`, `pinned host pool`.
    pub name: String,
    /// Bytes handed out to live arrays.
    pub used: u64,
    /// Bytes the pool holds from the driver (used + cached free blocks).
    pub reserved: u64,
    /// The largest `used` seen.
    pub peak: u64,
    /// The pool's limit (or the device's memory), if any.
    pub limit: Option<u64>,
    /// Live allocations.
    pub allocations: u64,
}

/// Several pools shown together (`cp::memory_pool()` and the pinned pool).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryReport {
    /// The pools, in order.
    pub pools: Vec<PoolStats>,
}

const BAR_TEXT_WIDTH: usize = 40;

impl PoolStats {
    /// The scale of the bar: the limit, else the reserved bytes.
    fn scale(&self) -> u64 {
        self.limit
            .unwrap_or(self.reserved)
            .max(self.reserved)
            .max(self.used)
            .max(1)
    }

    /// `[#####::::........]`: used `#`, reserved but free `:`, the rest `.`.
    pub fn text_bar(&self) -> String {
        let s = self.scale() as f64;
        let used = ((self.used as f64 / s) * BAR_TEXT_WIDTH as f64).round() as usize;
        let reserved =
            ((self.reserved.max(self.used) as f64 / s) * BAR_TEXT_WIDTH as f64).round() as usize;
        let used = used.min(BAR_TEXT_WIDTH);
        let reserved = reserved.clamp(used, BAR_TEXT_WIDTH);
        format!(
            "[{}{}{}]",
            "#".repeat(used),
            ":".repeat(reserved - used),
            ".".repeat(BAR_TEXT_WIDTH - reserved)
        )
    }

    /// A stacked bar as HTML (three coloured spans in a flex box).
    pub fn html_bar(&self) -> String {
        let s = self.scale() as f64;
        let pct = |b: u64| 100.0 * b as f64 / s;
        let used = pct(self.used);
        let free = pct(self.reserved.saturating_sub(self.used));
        let blue = PALETTE[0];
        let mut out = String::new();
        let _ = write!(
            out,
            "<div title=\"{}\" style=\"display:flex;width:360px;height:14px;\
             background:rgba(127,127,127,0.18);border-radius:2px;overflow:hidden\">\
             <div style=\"width:{used:.2}%;background:rgb({},{},{})\"></div>\
             <div style=\"width:{free:.2}%;background:rgba({},{},{},0.35)\"></div></div>",
            html::escape(&format!(
                "used {} · reserved {} · {}",
                human_bytes(self.used),
                human_bytes(self.reserved),
                self.limit
                    .map(|l| format!("limit {}", human_bytes(l)))
                    .unwrap_or_else(|| "no limit".into())
            )),
            blue.0,
            blue.1,
            blue.2,
            blue.0,
            blue.1,
            blue.2
        );
        out
    }
}

impl MemoryReport {
    /// The counters as a table.
    pub fn table(&self) -> Table {
        let mut t = Table::new().header(
            ["pool", "used", "reserved", "peak", "limit", "allocations"]
                .into_iter()
                .map(Cell::head)
                .collect(),
        );
        for p in &self.pools {
            t.push_row(vec![
                Cell::text(p.name.clone()),
                Cell::num(human_bytes(p.used)),
                Cell::num(human_bytes(p.reserved)),
                Cell::num(human_bytes(p.peak)),
                Cell::num(p.limit.map(human_bytes).unwrap_or_else(|| "—".into())),
                Cell::num(p.allocations.to_string()),
            ]);
        }
        t
    }

    /// Plain text: the table, then one bar per pool.
    pub fn to_text(&self) -> String {
        let mut out = self.table().to_text();
        for p in &self.pools {
            let _ = writeln!(out, "{:<24} {}", p.name, p.text_bar());
        }
        out.push_str("(# used, : reserved but free, . up to the limit)");
        out
    }

    /// HTML: the table and a labelled stacked bar per pool.
    pub fn to_html(&self) -> String {
        let mut body = String::from("<div class=\"cp-title\">Memory pools</div>\n");
        self.table().write_html(&mut body);
        body.push_str("<table>\n<tbody>\n");
        for p in &self.pools {
            let _ = writeln!(
                body,
                "<tr><td class=\"t\">{}</td><td class=\"t\">{}</td></tr>",
                html::escape(&p.name),
                p.html_bar()
            );
        }
        body.push_str("</tbody></table>\n");
        body.push_str(&html::note_line(
            "dark: used · light: reserved but free · grey: up to the limit",
        ));
        html::wrap("cp-memory", &body)
    }
}

impl RichDisplay for MemoryReport {
    fn bundle(&self) -> MimeBundle {
        MimeBundle::new(self.to_text()).with(TEXT_HTML, self.to_html())
    }
}

impl RichDisplay for PoolStats {
    fn bundle(&self) -> MimeBundle {
        MemoryReport {
            pools: vec![self.clone()],
        }
        .bundle()
    }
}

/// What `%gpu` and a `Device` show: name, compute capability, SMs, memory, versions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceInfo {
    /// `cuda:0` or `cpu`.
    pub device: String,
    /// The product name.
    pub name: String,
    /// `(major, minor)`, for CUDA devices.
    pub compute_capability: Option<(u32, u32)>,
    /// Streaming multiprocessors.
    pub multiprocessors: Option<u32>,
    /// Device memory in bytes.
    pub memory: Option<u64>,
    /// Further `(key, value)` lines: driver, CUDA runtime, library versions.
    pub extra: Vec<(String, String)>,
}

impl DeviceInfo {
    /// The key/value table.
    pub fn table(&self) -> Table {
        let mut t = Table::new();
        let mut row = |k: &str, v: String| t.push_row(vec![Cell::head(k), Cell::text(v)]);
        row("device", self.device.clone());
        row("name", self.name.clone());
        if let Some((a, b)) = self.compute_capability {
            row("compute capability", format!("{a}.{b}"));
        }
        if let Some(n) = self.multiprocessors {
            row("multiprocessors", n.to_string());
        }
        if let Some(m) = self.memory {
            row("memory", human_bytes(m));
        }
        for (k, v) in &self.extra {
            row(k, v.clone());
        }
        t
    }
}

impl RichDisplay for DeviceInfo {
    fn bundle(&self) -> MimeBundle {
        let t = self.table();
        let mut body = String::new();
        t.write_html(&mut body);
        MimeBundle::new(t.to_text().trim_end().to_string())
            .with(TEXT_HTML, html::wrap("cp-device", &body))
    }
}

impl PoolStats {
    /// The runtime's counters of one pool, under `name`.
    pub fn from_runtime(name: impl Into<String>, s: &cuprite::cuda::PoolStats) -> PoolStats {
        PoolStats {
            name: name.into(),
            used: s.used_bytes as u64,
            reserved: s.reserved_bytes as u64,
            peak: s.peak_bytes as u64,
            limit: (s.limit_bytes > 0).then_some(s.limit_bytes as u64),
            allocations: s.allocations as u64,
        }
    }
}

/// The device pool of every CUDA device and the pinned host pool, now
/// (empty on a machine without CUDA: see [`cuprite::device::cuda_status`]).
pub fn memory_report() -> MemoryReport {
    let mut pools = Vec::new();
    for n in 0..cuprite::device_count() {
        let stats = cuprite::with_device(cuprite::Device::Cuda(n), || {
            cuprite::cuda::memory_pool().and_then(|p| p.stats())
        });
        if let Ok(s) = stats {
            pools.push(PoolStats::from_runtime(
                format!("device pool (cuda:{n})"),
                &s,
            ));
        }
    }
    if cuprite::device_count() > 0 {
        let pinned = cuprite::with_device(cuprite::Device::Cuda(0), || {
            cuprite::cuda::pinned_memory_pool().map(|p| p.stats())
        });
        if let Ok(s) = pinned {
            pools.push(PoolStats::from_runtime("pinned host pool", &s));
        }
    }
    MemoryReport { pools }
}

/// The memory pool of the current CUDA device (`cp.get_default_memory_pool()`):
/// the runtime's [`cuprite::cuda::memory_pool`], which shows as a report.
pub fn memory_pool() -> cuprite::Result<cuprite::cuda::MemoryPool> {
    cuprite::cuda::memory_pool()
}

/// A device pool shows its counters, with the pinned host pool below.
impl RichDisplay for cuprite::cuda::MemoryPool {
    fn bundle(&self) -> MimeBundle {
        let mut pools = Vec::new();
        let device = self.device();
        match self.stats() {
            Ok(s) => pools.push(PoolStats::from_runtime(
                format!("device pool ({device})"),
                &s,
            )),
            Err(e) => return MimeBundle::new(format!("Error: {e}")),
        }
        let pinned = cuprite::with_device(device, || {
            cuprite::cuda::pinned_memory_pool().map(|p| p.stats())
        });
        if let Ok(s) = pinned {
            pools.push(PoolStats::from_runtime("pinned host pool", &s));
        }
        MemoryReport { pools }.bundle()
    }
}

/// What is known about `device`: for CUDA devices the driver's figures, for
/// the CPU the processor and why CUDA is not used.
pub fn device_info(device: cuprite::Device) -> DeviceInfo {
    match device {
        cuprite::Device::Cuda(n) => match cuprite::cuda::device_info(n) {
            Ok(d) => {
                let v = d.driver_version;
                let mut extra = vec![(
                    "CUDA driver".to_string(),
                    format!("{}.{}", v / 1000, (v % 1000) / 10),
                )];
                if let Some((a, b)) = d.nvrtc_version {
                    extra.push(("NVRTC".into(), format!("{a}.{b}")));
                }
                extra.push(("L2 cache".into(), human_bytes(d.l2_cache_bytes as u64)));
                DeviceInfo {
                    device: device.to_string(),
                    name: d.name,
                    compute_capability: Some((
                        d.compute_capability.0.max(0) as u32,
                        d.compute_capability.1.max(0) as u32,
                    )),
                    multiprocessors: Some(d.sm_count as u32),
                    memory: Some(d.total_memory as u64),
                    extra,
                }
            }
            Err(e) => DeviceInfo {
                device: device.to_string(),
                name: "unavailable".into(),
                extra: vec![("error".into(), e.to_string())],
                ..DeviceInfo::default()
            },
        },
        cuprite::Device::Cpu => {
            let name = std::fs::read_to_string("/proc/cpuinfo")
                .ok()
                .and_then(|t| {
                    t.lines()
                        .find(|l| l.starts_with("model name"))
                        .and_then(|l| l.split_once(':'))
                        .map(|(_, v)| v.trim().to_string())
                })
                .unwrap_or_else(|| std::env::consts::ARCH.to_string());
            let cores = std::thread::available_parallelism()
                .map(|n| n.get().to_string())
                .unwrap_or_else(|_| "?".into());
            DeviceInfo {
                device: "cpu".into(),
                name,
                extra: vec![
                    ("logical cores".into(), cores),
                    ("CUDA".into(), cuprite::device::cuda_status().reason.clone()),
                ],
                ..DeviceInfo::default()
            }
        }
    }
}

/// A device shows its [`device_info`].
impl RichDisplay for cuprite::Device {
    fn bundle(&self) -> MimeBundle {
        device_info(*self).bundle()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars() {
        let p = PoolStats {
            name: "device pool (cuda:0)".into(),
            used: 1 << 30,
            reserved: 2 << 30,
            peak: 3 << 30,
            limit: Some(8 << 30),
            allocations: 12,
        };
        assert_eq!(
            p.text_bar(),
            format!("[{}{}{}]", "#".repeat(5), ":".repeat(5), ".".repeat(30))
        );
        let h = p.html_bar();
        assert!(h.contains("width:12.50%") && h.contains("width:12.50%;background:rgba"));
        assert!(h.contains("used 1.00 GiB · reserved 2.00 GiB · limit 8.00 GiB"));
        let none = PoolStats::default();
        assert_eq!(none.text_bar(), format!("[{}]", ".".repeat(40)));
    }
}
