//! What runs inside the cell process of `cuprite-kernel`.
//!
//! evcxr runs notebook cells in a child process whose stdout is also evcxr's
//! own protocol pipe, read line by line. This crate, compiled into the notebook
//! session like any dependency, takes that process's stdout and stderr over
//! (once per process, see [`__init`]) so that:
//!
//! - output reaches the kernel as it is written, partial lines included;
//! - cells can publish any number of `display_data` / `update_display_data` /
//!   `clear_output` messages ([`display`], [`update_display`], [`clear_output`]),
//!   in order with the text around them, through a Unix socket to the kernel
//!   (a side channel: evcxr never sees them);
//! - panics are reported with their message and location;
//! - the kernel's interrupt request sets a process-wide flag ([`interrupted`]).
//!
//! evcxr links every cell with its own copy of this crate, so nothing here may
//! rely on a `static` being shared between cells: process-wide state lives in
//! file descriptors and environment variables.
//!
//! Outside the kernel (no [`SOCKET_ENV`] in the environment) every function is
//! harmless: displays fall back to printing their `text/plain` part.
//!
//! Rich values (`cuprite-display`'s `display`, `update_display`, progress
//! bars) use the same in-band frames: that crate writes them itself when
//! [`ACTIVE_ENV`] is set (it cannot depend on this one), and the kernel's
//! tests check that its frames parse here.

#![warn(missing_docs)]

pub mod magic;
pub mod vars;
pub mod widgets;
pub mod wire;

mod sys;

use std::io::Write;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use wire::{json_string, Bundle};

/// What notebook cells call `cp`: the runtime, plots and displays
/// (`cuprite_display::cp`) plus what needs the kernel: [`input`],
/// [`input_password`] and the widgets.
pub mod cp {
    pub use crate::{input, input_password, widgets};
    pub use cuprite_display::cp::*;
}

/// Environment variable naming the kernel's Unix socket.
pub const SOCKET_ENV: &str = "CUPRITE_KERNEL_IO_SOCKET";
/// Environment variable holding the token the cell process presents on connecting.
pub const TOKEN_ENV: &str = "CUPRITE_KERNEL_IO_TOKEN";
/// Set (to the in-band frame nonce) in a cell process once output capture runs.
pub const ACTIVE_ENV: &str = "CUPRITE_KERNEL_IO_ACTIVE";
/// Address (hex) of the process-wide interrupt flag, an `AtomicU32` (non-zero: interrupted).
pub const INTERRUPT_FLAG_ENV: &str = "CUPRITE_INTERRUPT_FLAG";

/// Whether this process is a cell process of `cuprite-kernel` with output capture running.
pub fn in_kernel() -> bool {
    std::env::var_os(ACTIVE_ENV).is_some()
}

/// Whether the kernel asked to interrupt the running cell (process-wide, any cell's copy).
///
/// Long computations can poll this and stop early; the kernel clears it when a
/// cell starts.
pub fn interrupted() -> bool {
    interrupt_flag().is_some_and(|f| f.load(Ordering::Relaxed) != 0)
}

/// What the kernel answers an input request with when the front end takes
/// no input (`allow_stdin` false).
#[doc(hidden)]
pub const NO_STDIN: &str = "\u{1b}cuprite:no-stdin";

/// Environment variable naming the pipe that answers [`input`] (`pid:fd`),
/// set by the kernel's cell process.
pub const INPUT_FD_ENV: &str = "CUPRITE_INPUT_FD";

/// Asks for a line of text in the notebook, as Python's `input()`: the front
/// end shows `prompt` and a box to type in. An error when the front end takes
/// no input (nbclient, `cuprite-kernel run`: `allow_stdin` is false).
///
/// (A cell cannot read `std::io::stdin()` itself: in the kernel a read of
/// stdin fails at once, since the cell process's stdin carries evcxr's own
/// commands.)
pub fn input(prompt: &str) -> cuprite::Result<String> {
    request_input(prompt, false)
}

/// As [`input`], with the typed text hidden (a password, a token).
pub fn input_password(prompt: &str) -> cuprite::Result<String> {
    request_input(prompt, true)
}

fn request_input(prompt: &str, password: bool) -> cuprite::Result<String> {
    let Some(fd) = input_fd() else {
        // Outside the kernel's cell process: the terminal's stdin.
        let line = if password {
            evcxr_input::get_password(prompt)
        } else {
            evcxr_input::get_string(prompt)
        };
        return answer(line);
    };
    let command = if password {
        evcxr_input::GET_CMD_PASSWORD
    } else {
        evcxr_input::GET_CMD
    };
    // One line on evcxr's protocol (the forwarder hands `EVCXR_` lines on);
    // the prompt cannot hold a newline there.
    println!("{command}:{}", prompt.replace(['\n', '\r'], " "));
    let _ = std::io::stdout().flush();
    let line = sys::read_line_fd(fd)
        .map_err(|e| cuprite::Error::invalid("input", format!("reading the answer failed: {e}")))?;
    answer(line.trim_end_matches(['\n', '\r']).to_string())
}

/// The answers pipe the kernel's cell process made for this process.
fn input_fd() -> Option<i32> {
    let text = std::env::var(INPUT_FD_ENV).ok()?;
    let (pid, fd) = text.split_once(':')?;
    (pid.parse::<u32>().ok()? == std::process::id()).then_some(())?;
    fd.parse().ok()
}

fn answer(line: String) -> cuprite::Result<String> {
    if line == NO_STDIN {
        return Err(cuprite::Error::invalid(
            "input",
            "this front end takes no input (allow_stdin is false, as in nbclient and `cuprite-kernel run`)",
        ));
    }
    Ok(line)
}

/// The process-wide interrupt flag published by [`__init`], if any.
pub fn interrupt_flag() -> Option<&'static AtomicU32> {
    let text = std::env::var(INTERRUPT_FLAG_ENV).ok()?;
    let (pid, addr) = text.split_once(':')?;
    if pid.parse::<u32>().ok()? != std::process::id() {
        return None;
    }
    let addr = usize::from_str_radix(addr.trim_start_matches("0x"), 16).ok()?;
    if addr == 0 || addr % std::mem::align_of::<AtomicU32>() != 0 {
        return None;
    }
    // SAFETY: the address was published by `__init` in this process and points
    // to a leaked `AtomicU32` that lives until the process exits.
    Some(unsafe { &*(addr as *const AtomicU32) })
}

/// Publishes a `display_data` message: `data` and `metadata` are JSON objects
/// (`{"text/plain": "...", "text/html": "..."}`), `display_id` names the output
/// so that [`update_display`] can replace it later.
///
/// Returns false (and does nothing) outside the kernel.
pub fn display(data_json: &str, metadata_json: &str, display_id: Option<&str>) -> bool {
    let transient = match display_id {
        Some(id) => format!("{{\"display_id\":{}}}", json_string(id)),
        None => "{}".to_string(),
    };
    send_message(
        "display_data",
        &format!(
            "{{\"data\":{data_json},\"metadata\":{},\"transient\":{transient}}}",
            nonempty_object(metadata_json)
        ),
    )
}

/// Replaces the output published earlier with the same `display_id`.
pub fn update_display(data_json: &str, metadata_json: &str, display_id: &str) -> bool {
    send_message(
        "update_display_data",
        &format!(
            "{{\"data\":{data_json},\"metadata\":{},\"transient\":{{\"display_id\":{}}}}}",
            nonempty_object(metadata_json),
            json_string(display_id)
        ),
    )
}

/// Clears the cell's output; with `wait`, only when the next output arrives (no flicker).
pub fn clear_output(wait: bool) -> bool {
    send_message("clear_output", &format!("{{\"wait\":{wait}}}"))
}

/// Publishes a [`Bundle`]; outside the kernel prints its `text/plain` part.
pub fn display_bundle(bundle: &Bundle) -> bool {
    if display(&bundle.data_json(), &bundle.metadata_json(), bundle.id()) {
        return true;
    }
    if let Some(text) = bundle.plain_text() {
        println!("{text}");
    }
    false
}

/// Publishes HTML (with `text` as the plain-text fallback).
pub fn display_html(html: &str, text: &str) -> bool {
    display_bundle(&Bundle::new().text(text).html(html))
}

/// Publishes plain text as `display_data`.
pub fn display_text(text: &str) -> bool {
    display_bundle(&Bundle::new().text(text))
}

/// Publishes a message of any iopub type (`content` is its JSON content).
pub fn send_message(msg_type: &str, content_json: &str) -> bool {
    let payload = format!(
        "{{\"msg_type\":{},\"content\":{content_json}}}",
        json_string(msg_type)
    );
    send_inband(wire::kind::MESSAGE, payload.as_bytes())
}

/// Publishes a message of any iopub type with the message's own `metadata`
/// (both JSON objects).
pub fn send_message_with_metadata(msg_type: &str, content_json: &str, metadata_json: &str) -> bool {
    let payload = format!(
        "{{\"msg_type\":{},\"content\":{content_json},\"metadata\":{}}}",
        json_string(msg_type),
        nonempty_object(metadata_json)
    );
    send_inband(wire::kind::MESSAGE, payload.as_bytes())
}

fn nonempty_object(json: &str) -> &str {
    if json.trim().is_empty() {
        "{}"
    } else {
        json
    }
}

/// Writes one frame into this process's stdout stream, where the forwarder
/// started by [`__init`] takes it out again before evcxr sees it. Holding the
/// stdout lock orders it exactly with the text printed around it.
fn send_inband(kind: u8, payload: &[u8]) -> bool {
    let Ok(nonce) = std::env::var(ACTIVE_ENV) else {
        return false;
    };
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    let _ = lock.flush();
    let header = wire::inband_header(nonce.as_bytes(), kind, payload.len());
    sys::write_all_fd(1, &header).is_ok() && sys::write_all_fd(1, payload).is_ok()
}

/// Marks the start of a timed region (used by the kernel's `%time` magics).
#[doc(hidden)]
pub fn __mark() {
    let payload = times_json();
    send_inband(wire::kind::MARK, payload.as_bytes());
}

/// Runs `f` between two marks (the kernel's `%time` on an expression) and returns its value.
#[doc(hidden)]
pub fn __timed<R>(f: impl FnOnce() -> R) -> R {
    __mark();
    let r = f();
    __mark();
    r
}

/// Wall clock (ns since the epoch) and this process's user and system CPU time (ns), as JSON.
pub(crate) fn times_json() -> String {
    let wall = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let (user, sys) = sys::cpu_times_ns();
    format!("{{\"wall_ns\":{wall},\"user_ns\":{user},\"sys_ns\":{sys}}}")
}

/// The COMPLETE frame's payload: [`times_json`] plus the memory pools of the
/// GPUs this process has opened (`gpu`: device, used, reserved and total
/// bytes), which the kernel reports in its `usage_reply`.
pub(crate) fn complete_json() -> String {
    let times = times_json();
    let pools: Vec<String> = cuprite::cuda::open_device_pools()
        .into_iter()
        .map(|(device, s, total)| {
            format!(
                "{{\"device\":\"{device}\",\"used\":{},\"reserved\":{},\"total\":{total}}}",
                s.used_bytes, s.reserved_bytes
            )
        })
        .collect();
    format!(
        "{},\"gpu\":[{}]}}",
        &times[..times.len() - 1],
        pools.join(",")
    )
}

/// Times `f` like IPython's `%timeit`: `loops` calls per run (0: chosen so a run
/// takes at least 0.2 s), `repeat` runs; publishes the report.
#[doc(hidden)]
pub fn __timeit<R>(loops: u64, repeat: u32, mut f: impl FnMut() -> R) {
    let repeat = repeat.max(1);
    let mut run = |n: u64| {
        let start = Instant::now();
        for _ in 0..n {
            std::hint::black_box(f());
        }
        start.elapsed()
    };
    let mut first = None;
    let loops = if loops > 0 {
        loops
    } else {
        let mut n = 1u64;
        loop {
            let t = run(n);
            if t >= Duration::from_millis(200) || n >= 10_000_000 {
                first = Some(t);
                break n;
            }
            n *= 10;
        }
    };
    // Keep the total under about 20 s when single runs are slow.
    let per_run = first.unwrap_or_default();
    let repeat = if per_run > Duration::from_secs(3) {
        (20.0 / per_run.as_secs_f64()).max(1.0) as u32
    } else {
        repeat
    }
    .min(repeat);
    let mut per_loop: Vec<f64> = Vec::with_capacity(repeat as usize);
    if let Some(t) = first {
        per_loop.push(t.as_secs_f64() / loops as f64);
    }
    while per_loop.len() < repeat as usize {
        if interrupted() {
            break;
        }
        per_loop.push(run(loops).as_secs_f64() / loops as f64);
    }
    let report = wire::TimeitReport::new(&per_loop, loops);
    let bundle = Bundle::new().text(&report.text()).html(&report.html());
    display_bundle(&bundle);
}

/// Starts output capture for this cell process: call once per process (the
/// kernel does, after every start of the cell process). Returns whether the
/// side channel to the kernel is up.
#[doc(hidden)]
pub fn __init() -> bool {
    if in_kernel() {
        return true;
    }
    match forward::start() {
        Ok(()) => true,
        Err(e) => {
            eprintln!("cuprite-kernel-io: output capture unavailable: {e}");
            false
        }
    }
}

mod forward;

/// Shows common std values (numbers, strings, collections of them) as the
/// last expression of a cell without evcxr's second, fallback compile: evcxr
/// first tries `value.evcxr_display()` and compiles again with `{:?}` when
/// that fails. Implemented only for std types, so that types with their own
/// (inherent) `evcxr_display` keep it. The kernel imports it in every cell.
#[doc(hidden)]
pub trait EvcxrDebugDisplay {
    /// Sends the value's `{:?}` as `text/plain` the way evcxr does.
    fn evcxr_display(&self);
}

fn send_debug_text(text: &str) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = out.write_all(b"EVCXR_BEGIN_CONTENT text/plain\n");
    let _ = out.write_all(text.as_bytes());
    let _ = out.write_all(b"\nEVCXR_END_CONTENT\n");
    let _ = out.flush();
}

macro_rules! debug_display {
    ($($t:ty),* $(,)?) => {
        $(impl EvcxrDebugDisplay for $t {
            fn evcxr_display(&self) {
                send_debug_text(&format!("{:?}", self));
            }
        })*
    };
}

debug_display!(
    (),
    bool,
    char,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64,
    str,
    String,
    std::time::Duration,
);

macro_rules! debug_display_generic {
    ($($t:ident<$($p:ident),*>),* $(,)?) => {
        $(impl<$($p: std::fmt::Debug),*> EvcxrDebugDisplay for $t<$($p),*> {
            fn evcxr_display(&self) {
                send_debug_text(&format!("{:?}", self));
            }
        })*
    };
}

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
// Not `Result` and `Box`: `cuprite_display::EvcxrDisplay` covers
// `Result<T, cuprite::Error>` and `Box<T>` of displayable values, and two
// applicable `evcxr_display` methods would be ambiguous. Other results fall
// back to evcxr's `Debug` compile.
debug_display_generic!(
    Vec<T>, Option<T>, VecDeque<T>, HashMap<K, V>, BTreeMap<K, V>, HashSet<T>, BTreeSet<T>,
);

impl<T: std::fmt::Debug, const N: usize> EvcxrDebugDisplay for [T; N] {
    fn evcxr_display(&self) {
        send_debug_text(&format!("{self:?}"));
    }
}

impl<T: std::fmt::Debug> EvcxrDebugDisplay for [T] {
    fn evcxr_display(&self) {
        send_debug_text(&format!("{self:?}"));
    }
}

macro_rules! debug_display_tuples {
    ($(($($p:ident),+)),* $(,)?) => {
        $(impl<$($p: std::fmt::Debug),+> EvcxrDebugDisplay for ($($p,)+) {
            fn evcxr_display(&self) {
                send_debug_text(&format!("{:?}", self));
            }
        })*
    };
}

debug_display_tuples!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F)
);
