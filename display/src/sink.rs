//! Delivering bundles: evcxr's stdout markers, or the kernel's side channel.
//!
//! Two paths reach the notebook:
//!
//! * **The cell's final value.** evcxr compiles `(expr).evcxr_display();`
//!   first and falls back to `Debug` only when that fails. With
//!   `use cuprite_display::EvcxrDisplay;` in scope, every [`RichDisplay`]
//!   value has that method: it prints the bundle to stdout as
//!   `EVCXR_BEGIN_CONTENT <mime>` / content / `EVCXR_END_CONTENT` blocks,
//!   which evcxr turns into the cell's `execute_result`.
//! * **`display(&x)` anywhere in a cell.** evcxr keeps one bundle per MIME
//!   type per cell from stdout, so several displays need a side channel. When
//!   the environment variable [`SOCKET_ENV`] (`CUPRITE_DISPLAY_SOCKET`) names
//!   a Unix socket, [`display`] connects to it and writes one JSON line:
//!
//!   ```text
//!   {"msg_type":"display_data","data":{...},"metadata":{...},"transient":{"display_id":"..."}}
//!   ```
//!
//!   `msg_type` is `display_data` or `update_display_data`; `transient` is
//!   `{}` when no display id was given. The client then shuts down its write
//!   half and waits (up to [`ACK_TIMEOUT`]) for the kernel to close the
//!   connection, so a kernel that closes only after publishing the message
//!   on iopub keeps displays in order with the cell's later output. Stdout is
//!   flushed before sending, so text printed before `display` is in the pipe
//!   first. Without the variable (or if the socket cannot be reached), the
//!   bundle is printed as evcxr markers instead.

use std::io::{Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{json, Value};

use crate::bundle::{MimeBundle, RichDisplay};

/// The environment variable naming the kernel's display socket.
pub const SOCKET_ENV: &str = "CUPRITE_DISPLAY_SOCKET";

/// How long `display` waits for the kernel to acknowledge one message.
pub const ACK_TIMEOUT: Duration = Duration::from_secs(10);

/// Which Jupyter message a display becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisplayKind {
    /// A new output (`display_data`).
    New,
    /// Replaces the output that has the same display id (`update_display_data`).
    Update,
}

impl DisplayKind {
    /// The Jupyter message type.
    pub fn msg_type(self) -> &'static str {
        match self {
            DisplayKind::New => "display_data",
            DisplayKind::Update => "update_display_data",
        }
    }
}

/// The JSON line sent to the kernel's display socket for one display.
pub fn display_message(bundle: &MimeBundle, kind: DisplayKind, display_id: Option<&str>) -> Value {
    let transient = match display_id {
        Some(id) => json!({ "display_id": id }),
        None => json!({}),
    };
    json!({
        "msg_type": kind.msg_type(),
        "data": bundle.data_json(),
        "metadata": bundle.metadata_json(),
        "transient": transient,
    })
}

/// Prints `value` as evcxr markers on stdout (what the final value of a cell does).
pub fn show(value: &(impl RichDisplay + ?Sized)) {
    print_markers(&value.bundle());
}

/// Gives every [`RichDisplay`] value the `evcxr_display` method that evcxr
/// calls on a cell's final value; bring it into scope with
/// `use cuprite_display::EvcxrDisplay;`.
pub trait EvcxrDisplay {
    /// Prints the value's bundle as evcxr markers on stdout.
    fn evcxr_display(&self);
}

impl<T: RichDisplay + ?Sized> EvcxrDisplay for T {
    fn evcxr_display(&self) {
        show(self)
    }
}

/// Shows `value` as a new output now (IPython's `display(x)`); may be called
/// several times per cell.
pub fn display(value: &(impl RichDisplay + ?Sized)) {
    deliver(&value.bundle(), DisplayKind::New, None);
}

/// Shows `value` as a new output tagged with `id`, so that
/// [`update_display`] can replace it in place later.
pub fn display_with_id(value: &(impl RichDisplay + ?Sized), id: &str) {
    deliver(&value.bundle(), DisplayKind::New, Some(id));
}

/// Replaces the output shown with [`display_with_id`] under `id`.
pub fn update_display(value: &(impl RichDisplay + ?Sized), id: &str) {
    deliver(&value.bundle(), DisplayKind::Update, Some(id));
}

/// A fresh display id, unique within this process and across processes.
pub fn new_display_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("cuprite-{}-{nanos:x}-{n}", std::process::id())
}

/// An output that can be updated in place (`display(x, display_id=True)` in IPython).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisplayHandle {
    id: String,
}

impl DisplayHandle {
    /// Shows `value` under a fresh display id and returns a handle to it.
    pub fn show(value: &(impl RichDisplay + ?Sized)) -> DisplayHandle {
        let handle = DisplayHandle {
            id: new_display_id(),
        };
        display_with_id(value, &handle.id);
        handle
    }

    /// Replaces the shown output with `value`.
    pub fn update(&self, value: &(impl RichDisplay + ?Sized)) {
        update_display(value, &self.id);
    }

    /// The display id.
    pub fn id(&self) -> &str {
        &self.id
    }
}

fn deliver(bundle: &MimeBundle, kind: DisplayKind, id: Option<&str>) {
    if let Some(path) = std::env::var_os(SOCKET_ENV).filter(|p| !p.is_empty()) {
        let line = display_message(bundle, kind, id).to_string();
        match send_line(std::path::Path::new(&path), &line) {
            Ok(()) => return,
            Err(e) => {
                eprintln!(
                    "cuprite-display: could not reach the display socket {}: {e}; printing instead",
                    std::path::Path::new(&path).display()
                );
            }
        }
    }
    print_markers(bundle);
}

fn print_markers(bundle: &MimeBundle) {
    let text = bundle.to_evcxr();
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    // A closed stdout has nowhere to report to; ignore.
    let _ = lock.write_all(text.as_bytes());
    let _ = lock.flush();
}

#[cfg(unix)]
fn send_line(path: &std::path::Path, line: &str) -> std::io::Result<()> {
    use std::os::unix::net::UnixStream;
    let _ = std::io::stdout().flush();
    let mut stream = UnixStream::connect(path)?;
    stream.set_write_timeout(Some(ACK_TIMEOUT))?;
    stream.write_all(line.as_bytes())?;
    stream.write_all(b"\n")?;
    stream.flush()?;
    stream.shutdown(std::net::Shutdown::Write)?;
    // Wait for the kernel to close its side (its acknowledgement); a timeout
    // only means it is slow, and the message was sent.
    stream.set_read_timeout(Some(ACK_TIMEOUT))?;
    let mut sink = Vec::new();
    let _ = stream.read_to_end(&mut sink);
    Ok(())
}

#[cfg(not(unix))]
fn send_line(_path: &std::path::Path, _line: &str) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "Unix sockets are not available on this platform",
    ))
}
