//! Delivering bundles to the notebook, or to a terminal.
//!
//! Two paths reach a notebook, both through the Cuprite kernel's output
//! capture (crate `cuprite-kernel-io`, which runs inside the cell process):
//!
//! * **The cell's final value.** evcxr compiles `(expr).evcxr_display();`
//!   first and falls back to `Debug` only when that fails. With
//!   `use cuprite_display::EvcxrDisplay;` in scope, every [`RichDisplay`]
//!   value has that method: it prints the bundle to stdout as
//!   `EVCXR_BEGIN_CONTENT <mime>` / content / `EVCXR_END_CONTENT` blocks,
//!   which evcxr turns into the cell's `execute_result`.
//! * **`display(&x)` anywhere in a cell** (and [`display_with_id`],
//!   [`update_display`], [`clear_output`], [`progress`](crate::progress())).
//!   evcxr keeps one bundle per MIME type per cell from stdout, so these go
//!   around it: when the kernel's output capture runs, the environment
//!   variable [`KERNEL_ENV`] holds the nonce of its in-band frames, and each
//!   display is written into stdout as one frame
//!
//!   ```text
//!   ESC GS <nonce: 16 bytes> 'M' <payload length: 8 hex digits> <payload>
//!   payload = {"msg_type":"display_data","content":{"data":{..},"metadata":{..},"transient":{..}}}
//!   ```
//!
//!   under the stdout lock, after flushing what was printed before. The
//!   kernel's forwarder takes frames out of the stream before evcxr sees it
//!   and publishes them on iopub in order with the text around them (the
//!   format is `cuprite_kernel_io::wire`'s; the kernel's tests check that
//!   the two agree). `msg_type` is `display_data`, `update_display_data` or
//!   `clear_output`; `transient` is `{}` when no display id was given.
//!
//! Outside the kernel (a program, a test, plain evcxr) a display prints its
//! `text/plain` on stdout, an update prints the new text, and progress bars
//! redraw one line on stderr.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Value};

use crate::bundle::{MimeBundle, RichDisplay};

/// Set by the kernel's output capture in the cell process: the nonce of its
/// in-band frames (16 characters).
pub const KERNEL_ENV: &str = "CUPRITE_KERNEL_IO_ACTIVE";

/// The first two bytes of an in-band frame.
pub const FRAME_ESC: &[u8; 2] = b"\x1b\x1d";
/// The length of the nonce that follows [`FRAME_ESC`].
pub const FRAME_NONCE_LEN: usize = 16;
/// The frame kind of an iopub message.
pub const FRAME_KIND_MESSAGE: u8 = b'M';

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

/// True inside a cell process of the Cuprite kernel with output capture
/// running (displays reach the notebook).
pub fn in_kernel() -> bool {
    kernel_nonce().is_some()
}

fn kernel_nonce() -> Option<String> {
    std::env::var(KERNEL_ENV)
        .ok()
        .filter(|n| n.len() == FRAME_NONCE_LEN)
}

/// The iopub message for one display: `{"msg_type": ..., "content": {"data",
/// "metadata", "transient"}}`.
pub fn display_message(bundle: &MimeBundle, kind: DisplayKind, display_id: Option<&str>) -> Value {
    let transient = match display_id {
        Some(id) => json!({ "display_id": id }),
        None => json!({}),
    };
    json!({
        "msg_type": kind.msg_type(),
        "content": {
            "data": bundle.data_json(),
            "metadata": bundle.metadata_json(),
            "transient": transient,
        },
    })
}

/// One in-band frame carrying an iopub message (`payload` is its JSON).
pub fn encode_frame(nonce: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(payload.len() + 27);
    f.extend_from_slice(FRAME_ESC);
    f.extend_from_slice(nonce);
    f.push(FRAME_KIND_MESSAGE);
    f.extend_from_slice(format!("{:08x}", payload.len() as u32).as_bytes());
    f.extend_from_slice(payload);
    f
}

/// Writes `message` as an in-band frame into stdout; false outside the kernel
/// or when stdout is closed.
fn send_to_kernel(message: &Value) -> bool {
    let Some(nonce) = kernel_nonce() else {
        return false;
    };
    let frame = encode_frame(nonce.as_bytes(), message.to_string().as_bytes());
    let stdout = std::io::stdout();
    // The lock keeps other threads' text out of the frame; flushing first puts
    // what was printed before the display ahead of it.
    let mut lock = stdout.lock();
    lock.flush().is_ok() && lock.write_all(&frame).is_ok() && lock.flush().is_ok()
}

/// Prints `value` as evcxr markers on stdout (what the final value of a cell
/// does). In the kernel, an error value (`Err(e)`) makes the cell fail with
/// that error instead: it is sent as an `error` frame, which the kernel turns
/// into the cell's error reply.
pub fn show(value: &(impl RichDisplay + ?Sized)) {
    if let Some((ename, evalue)) = value.error() {
        let message = json!({
            "msg_type": "error",
            "content": {"ename": ename, "evalue": evalue, "traceback": []},
        });
        if send_to_kernel(&message) {
            return;
        }
    }
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

/// Clears the cell's output (IPython's `clear_output`); with `wait`, only
/// when the next output arrives, so that redrawing does not flicker. Does
/// nothing outside the kernel.
pub fn clear_output(wait: bool) {
    send_to_kernel(&json!({"msg_type": "clear_output", "content": {"wait": wait}}));
}

fn deliver(bundle: &MimeBundle, kind: DisplayKind, id: Option<&str>) {
    if send_to_kernel(&display_message(bundle, kind, id)) {
        return;
    }
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    // A closed stdout has nowhere to report to; ignore.
    let _ = writeln!(lock, "{}", bundle.text_plain());
}

fn print_markers(bundle: &MimeBundle) {
    let text = bundle.to_evcxr();
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    // A closed stdout has nowhere to report to; ignore.
    let _ = lock.write_all(text.as_bytes());
    let _ = lock.flush();
}
