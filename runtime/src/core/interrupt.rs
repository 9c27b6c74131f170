//! Stopping long work early: one process-wide interrupt flag that the
//! runtime's entry points check (a relaxed atomic load when nothing is
//! pending), on every backend, CUDA or not.
//!
//! Checked where operations start: resolving the device of their inputs
//! (ufuncs, reductions, indexing, creation, copies and casts, linear
//! algebra, FFT, signal, sort, random, user kernels), creating an array from
//! host data, each wait for the GPU, and each run of
//! [`crate::profiler::benchmark`]. An interrupted call returns
//! [`Error::Interrupted`] before it starts its work, so no result or `out`
//! array is ever half written; operators (`&a + &b`), which cannot return an
//! error, panic with it. GPU work queued before the interrupt stays queued
//! and completes on its stream (its arrays are valid once it has run); a wait
//! for it returns early, except inside a copy between host and GPU, which
//! always completes (its staging memory is still being read or written).
//!
//! Host programs set the flag: the notebook kernel publishes the address of
//! its own flag (`CUPRITE_INTERRUPT_FLAG`, `pid:hexaddress`) before any cell
//! runs, sets it on the user's interrupt and clears it when the next cell
//! starts; any other program calls [`request`] (from a Ctrl-C handler, say),
//! which stops the next check once.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use crate::core::error::{Error, Result};
use crate::core::global::process_global;

/// Environment variable in which a host program publishes its flag.
pub const HOST_FLAG_ENV: &str = "CUPRITE_INTERRUPT_FLAG";

struct Flag {
    value: &'static AtomicU32,
    /// The host program owns the flag and clears it itself.
    host: bool,
}

/// The flag, looked up once per copy of this crate (evcxr links a copy into
/// every cell; all of them find the same process-wide flag).
fn flag() -> &'static Flag {
    static THIS_COPY: OnceLock<Flag> = OnceLock::new();
    THIS_COPY.get_or_init(|| match host_flag() {
        Some(value) => Flag { value, host: true },
        None => Flag {
            value: process_global("interrupt", || AtomicU32::new(0)),
            host: false,
        },
    })
}

/// Returns [`Error::Interrupted`] naming `op` when an interrupt is pending.
#[inline]
pub fn check(op: &'static str) -> Result<()> {
    check_flag(flag(), op)
}

#[inline]
fn check_flag(f: &Flag, op: &'static str) -> Result<()> {
    if f.value.load(Ordering::Relaxed) == 0 {
        return Ok(());
    }
    interrupted(f, op)
}

#[cold]
fn interrupted(f: &Flag, op: &'static str) -> Result<()> {
    if !f.host {
        // Requested by `request`: stops one check, as a Ctrl-C would.
        f.value.store(0, Ordering::Relaxed);
    }
    Err(Error::Interrupted { op })
}

/// Whether an interrupt is pending (does not consume it).
pub fn is_requested() -> bool {
    flag().value.load(Ordering::Relaxed) != 0
}

/// Asks running work to stop at its next check.
pub fn request() {
    flag().value.store(1, Ordering::Relaxed);
}

/// Withdraws a pending interrupt.
pub fn clear() {
    flag().value.store(0, Ordering::Relaxed);
}

/// The flag of a host program such as the notebook kernel: this process's id
/// and the hex address of an `AtomicU32`, published by code running in this
/// process.
fn host_flag() -> Option<&'static AtomicU32> {
    parse_host_flag(&std::env::var(HOST_FLAG_ENV).ok()?)
}

fn parse_host_flag(text: &str) -> Option<&'static AtomicU32> {
    // SAFETY: the host publishes the address of a leaked AtomicU32 of this
    // process before any cell code runs, and never frees it.
    unsafe { crate::core::global::address_in_this_process::<AtomicU32>(text) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(host: bool) -> Flag {
        Flag {
            value: Box::leak(Box::new(AtomicU32::new(0))),
            host,
        }
    }

    #[test]
    fn a_request_stops_one_check_and_a_host_flag_every_check() {
        let own = local(false);
        assert!(check_flag(&own, "x").is_ok());
        own.value.store(1, Ordering::Relaxed);
        assert_eq!(
            check_flag(&own, "sum"),
            Err(Error::Interrupted { op: "sum" })
        );
        assert!(check_flag(&own, "sum").is_ok());
        let host = local(true);
        host.value.store(1, Ordering::Relaxed);
        assert!(check_flag(&host, "a").is_err());
        assert!(check_flag(&host, "b").is_err());
        host.value.store(0, Ordering::Relaxed);
        assert!(check_flag(&host, "c").is_ok());
    }

    #[test]
    fn host_flags_of_other_processes_are_ignored() {
        // A child inherits the variable; only the publishing process may use it.
        let other = format!("{}:0x1000", std::process::id().wrapping_add(1));
        assert!(parse_host_flag(&other).is_none());
        assert!(parse_host_flag("garbage").is_none());
        assert!(parse_host_flag(&format!("{}:0x0", std::process::id())).is_none());
    }
}
