//! The `usage_reply` to a `usage_request` (control channel), with the fields
//! ipykernel sends, which jupyter-resource-usage's kernel panel shows:
//! `hostname`, `pid`, `kernel_cpu` and `kernel_memory` (the kernel and every
//! process below it: the cell process, builds, shell commands), `cpu_count`,
//! `host_cpu_percent` and `host_virtual_memory`; and one of Cuprite's own,
//! `cuprite`, which splits the kernel's share from the cell process's and
//! holds the GPU memory pools (used, reserved and total bytes per device) as
//! the cell process reported them at the end of its last cell (a cell still
//! running has not reported yet: `as_of_seconds_ago` says how old they are).
//!
//! CPU use is measured as ipykernel's psutil measures it: over the time since
//! the previous request (0 on the first). Memory is each process's
//! proportional set size where Linux gives it (`smaps_rollup`), else its
//! resident set. Everything comes from `/proc`: no crate reads it for us
//! without pulling in far more than these few files.

use crate::locks::Locked;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What the previous request measured, for the CPU use since then.
#[derive(Default)]
pub struct Usage {
    last: Mutex<Samples>,
}

#[derive(Default)]
struct Samples {
    /// Per process: CPU ticks used, and when they were read.
    processes: HashMap<u32, (u64, Instant)>,
    /// The host's busy and total ticks.
    host: Option<(u64, u64)>,
}

/// One process's figures.
struct Figures {
    cpu_percent: f64,
    memory: u64,
}

impl Usage {
    /// The reply's content; `cell_pid` is the cell process, when one runs.
    pub fn reply(&self, cell_pid: Option<u32>, gpu: Option<(Duration, Value)>) -> Value {
        let me = std::process::id();
        let mut last = self.last.locked();
        let now = Instant::now();
        let mut seen = HashMap::new();
        let mut figures = HashMap::new();
        for pid in descendants(me) {
            let Some(ticks) = cpu_ticks(pid) else {
                continue;
            };
            let cpu_percent = match last.processes.get(&pid) {
                Some(&(before, at)) if ticks >= before => {
                    let seconds = now.duration_since(at).as_secs_f64();
                    let used = (ticks - before) as f64 / ticks_per_second();
                    if seconds > 0.0 {
                        100.0 * used / seconds
                    } else {
                        0.0
                    }
                }
                _ => 0.0,
            };
            seen.insert(pid, (ticks, now));
            let memory = memory_bytes(pid).unwrap_or(0);
            figures.insert(
                pid,
                Figures {
                    cpu_percent,
                    memory,
                },
            );
        }
        last.processes = seen;

        let mut content = json!({
            "status": "ok",
            "hostname": hostname(),
            "pid": me,
            "kernel_cpu": figures.values().map(|f| f.cpu_percent).sum::<f64>(),
            "kernel_memory": figures.values().map(|f| f.memory).sum::<u64>(),
            "cpu_count": cpu_count(),
            "host_virtual_memory": host_memory(),
            "cuprite": {
                "kernel": process_json(me, figures.get(&me)),
                "cell_process": cell_pid.map(|p| process_json(p, figures.get(&p))),
                "gpu_memory": gpu.map(|(age, devices)| json!({
                    "as_of_seconds_ago": age.as_secs_f64(),
                    "devices": devices,
                })),
            },
        });
        if let Some((busy, total)) = host_ticks() {
            if let Some((busy0, total0)) = last.host {
                if total > total0 && busy >= busy0 {
                    let percent = 100.0 * (busy - busy0) as f64 / (total - total0) as f64;
                    // ipykernel leaves out a figure psutil gives as 0.
                    if percent > 0.0 {
                        content["host_cpu_percent"] = json!(percent);
                    }
                }
            }
            last.host = Some((busy, total));
        }
        content
    }
}

fn process_json(pid: u32, f: Option<&Figures>) -> Value {
    json!({
        "pid": pid,
        "cpu_percent": f.map_or(0.0, |f| f.cpu_percent),
        "memory": f.map_or(0, |f| f.memory),
    })
}

/// `root` and every process below it.
fn descendants(root: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some(ppid) = stat_fields(pid).and_then(|f| f.get(1)?.parse().ok()) {
                children.entry(ppid).or_default().push(pid);
            }
        }
    }
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        if let Some(kids) = children.get(&out[i]) {
            out.extend(kids);
        }
        i += 1;
    }
    out
}

/// The fields of `/proc/PID/stat` after the command name (state is the first).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The name is in parentheses and may hold spaces or parentheses itself.
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_string).collect())
}

/// User plus system CPU ticks of a process.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let f = stat_fields(pid)?;
    // utime and stime are the 14th and 15th fields of the whole line.
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf reads a constant of the system.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

fn cpu_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Proportional set size, else resident set size, in bytes.
fn memory_bytes(pid: u32) -> Option<u64> {
    if let Ok(rollup) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) {
        if let Some(kb) = field_kb(&rollup, "Pss:") {
            return Some(kb * 1024);
        }
    }
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf reads a constant of the system.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    Some(pages * page)
}

/// The number of kB on the line starting with `key` (`/proc/meminfo` style).
fn field_kb(text: &str, key: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

/// psutil's `virtual_memory()` on Linux, from `/proc/meminfo`.
fn host_memory() -> Value {
    let Ok(info) = std::fs::read_to_string("/proc/meminfo") else {
        return json!({});
    };
    let kb = |key: &str| field_kb(&info, key).unwrap_or(0) * 1024;
    let (total, free, buffers) = (kb("MemTotal:"), kb("MemFree:"), kb("Buffers:"));
    let cached = kb("Cached:") + kb("SReclaimable:");
    let available = field_kb(&info, "MemAvailable:").map_or(free + buffers + cached, |k| k * 1024);
    let used = total.saturating_sub(free + buffers + cached);
    let percent = if total > 0 {
        100.0 * total.saturating_sub(available) as f64 / total as f64
    } else {
        0.0
    };
    json!({
        "total": total,
        "available": available,
        "percent": (percent * 10.0).round() / 10.0,
        "used": used,
        "free": free,
        "active": kb("Active:"),
        "inactive": kb("Inactive:"),
        "buffers": buffers,
        "cached": cached,
        "shared": kb("Shmem:"),
        "slab": kb("Slab:"),
    })
}

/// The host's busy and total CPU ticks (`/proc/stat`'s first line).
fn host_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let ticks: Vec<u64> = stat
        .lines()
        .next()?
        .strip_prefix("cpu ")?
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user).
    let total: u64 = ticks.iter().take(8).sum();
    let idle = ticks.get(3)? + ticks.get(4).unwrap_or(&0);
    Some((total - idle, total))
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_this_process_and_its_children() {
        let usage = Usage::default();
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .unwrap();
        let first = usage.reply(Some(child.id()), None);
        // Burn some CPU so the second reply sees it.
        let t = Instant::now();
        let mut x = 0u64;
        while t.elapsed().as_millis() < 200 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let gpu = json!([{"device": "cuda:0", "used": 1, "reserved": 2, "total": 3}]);
        let second = usage.reply(Some(child.id()), Some((Duration::from_secs(2), gpu)));
        child.kill().unwrap();
        let _ = child.wait();
        assert_eq!(first["kernel_cpu"], 0.0);
        assert!(second["kernel_cpu"].as_f64().unwrap() > 10.0, "{second}");
        assert!(
            second["kernel_memory"].as_u64().unwrap() > 1 << 20,
            "{second}"
        );
        assert_eq!(second["pid"], std::process::id());
        assert_eq!(second["cuprite"]["cell_process"]["pid"], child.id());
        assert!(
            second["cuprite"]["cell_process"]["memory"]
                .as_u64()
                .unwrap()
                > 0
        );
        let mem = &second["host_virtual_memory"];
        let (total, available) = (
            mem["total"].as_u64().unwrap(),
            mem["available"].as_u64().unwrap(),
        );
        assert!(total > 0 && available <= total, "{mem}");
        assert!(second["cpu_count"].as_u64().unwrap() >= 1);
        assert_eq!(first["cuprite"]["gpu_memory"], Value::Null);
        let g = &second["cuprite"]["gpu_memory"];
        assert_eq!(g["as_of_seconds_ago"], 2.0);
        assert_eq!(g["devices"][0]["reserved"], 2);
    }

    #[test]
    fn stat_parsing_survives_odd_command_names() {
        // This process's own line parses; the name ends at the last ')'.
        let f = stat_fields(std::process::id()).unwrap();
        assert!(["R", "S", "D"].contains(&f[0].as_str()), "{f:?}");
        assert!(cpu_ticks(std::process::id()).is_some());
        assert_eq!(field_kb("MemTotal:  1024 kB\nPss: 3 kB", "Pss:"), Some(3));
    }
}
