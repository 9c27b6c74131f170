//! Jupyter widgets in a cell (`cp::widgets`): sliders, a dropdown, a
//! checkbox, a button, a text box, output areas and boxes that the front end
//! draws, with callbacks that run in the cell process, and [`interact`].
//!
//! ```no_run
//! use cuprite_kernel_io::cp;
//! use cp::widgets::{FloatSlider, Widget};
//! let freq = FloatSlider::new(0.5, 5.0)?.value(1.0).description("frequency");
//! freq.observe(|f| println!("now {f}"));
//! cp::show(&freq);
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! The widgets speak ipywidgets' protocol (version 2.1, the `jupyter.widget`
//! comm target), so JupyterLab, Notebook 7 and VS Code draw them with the
//! `ipywidgets` front end (`kernelspec/start-lab` installs it).
//!
//! How it works: making a widget opens a comm carrying the model's whole
//! state; showing it displays the model's view. When the user moves a
//! control the front end sends the kernel a `comm_msg`, which the kernel hands
//! to this process (command `W`); the process-wide hub's thread applies it to
//! the model, runs the observers, and answers `COMM_DONE`, so the kernel says
//! idle only after the callbacks have run. The kernel handles one request at a
//! time, so a callback never runs while a cell does.
//!
//! evcxr links every cell with its own copy of this crate. The hub is one per
//! process (`cuprite::process_global`), and what it keeps of a widget made in
//! some cell is that cell's plain `extern "C"` function and a pointer to the
//! model, called with the message as JSON text: no Rust type crosses from
//! one copy to another.

mod containers;
mod controls;
mod interact;

pub use containers::{HBox, Output, VBox};
pub use controls::{Button, Checkbox, Dropdown, FloatSlider, IntSlider, Text};
pub use interact::{interact, interact_with, Control, Interactive};

use crate::{send_inband, send_message, send_message_with_metadata, wire};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::{mpsc, Arc, Mutex, Once};

/// The comm target of ipywidgets' models.
const TARGET: &str = "jupyter.widget";
/// The widget protocol version this crate speaks.
const PROTOCOL_VERSION: &str = "2.1.0";
/// The MIME type of a widget's view in a display bundle.
pub const VIEW_MIME: &str = "application/vnd.jupyter.widget-view+json";
/// Module versions of ipywidgets 8's JavaScript models.
pub(crate) const CONTROLS: (&str, &str) = ("@jupyter-widgets/controls", "2.0.0");
pub(crate) const BASE: (&str, &str) = ("@jupyter-widgets/base", "2.0.0");
pub(crate) const OUTPUT: (&str, &str) = ("@jupyter-widgets/output", "1.0.0");

/// Something the front end draws: every widget of this module.
pub trait Widget {
    /// The widget's model.
    fn model(&self) -> &Arc<Model>;

    /// The model's id (the comm id), as the front end knows it.
    fn model_id(&self) -> &str {
        &self.model().id
    }
}

type Observer = Box<dyn FnMut(&str, &Value) + Send>;
type MessageHandler = Box<dyn FnMut(&Value) + Send>;

/// One widget model: its state as the front end sees it, and its callbacks.
pub struct Model {
    id: String,
    state: Mutex<Map<String, Value>>,
    observers: Mutex<Vec<Observer>>,
    messages: Mutex<Vec<MessageHandler>>,
}

impl Model {
    /// Opens a model of ipywidgets' `model` (module, version, name) drawn by
    /// `view`, with `state` beside the module keys.
    pub(crate) fn open(
        model: ((&str, &str), &str),
        view: Option<((&str, &str), &str)>,
        mut state: Map<String, Value>,
    ) -> Arc<Model> {
        let ((module, version), name) = model;
        state.insert("_model_module".into(), module.into());
        state.insert("_model_module_version".into(), version.into());
        state.insert("_model_name".into(), name.into());
        let ((view_module, view_version), view_name) = view.unwrap_or(((BASE.0, BASE.1), ""));
        state.insert("_view_module".into(), view_module.into());
        state.insert("_view_module_version".into(), view_version.into());
        state.insert(
            "_view_name".into(),
            if view_name.is_empty() {
                Value::Null
            } else {
                view_name.into()
            },
        );
        state.insert("_view_count".into(), Value::Null);
        let m = Arc::new(Model {
            id: new_id(),
            state: Mutex::new(state.clone()),
            observers: Mutex::new(Vec::new()),
            messages: Mutex::new(Vec::new()),
        });
        hub().register(&m);
        // The protocol version goes in the message's metadata, not its content.
        send_message_with_metadata(
            "comm_open",
            &json!({
                "comm_id": m.id,
                "target_name": TARGET,
                "data": {"state": state, "buffer_paths": []},
            })
            .to_string(),
            &json!({"version": PROTOCOL_VERSION}).to_string(),
        );
        m
    }

    /// A DOM widget: a layout model (and a style model, when given) of its
    /// own, as ipywidgets makes them.
    pub(crate) fn open_dom(
        model: &str,
        style: Option<(&str, Map<String, Value>)>,
        mut state: Map<String, Value>,
    ) -> Arc<Model> {
        let layout = Model::open(
            ((BASE.0, BASE.1), "LayoutModel"),
            Some(((BASE.0, BASE.1), "LayoutView")),
            Map::new(),
        );
        state.insert("layout".into(), reference(&layout));
        if let Some((style_model, style_state)) = style {
            let style = Model::open(
                ((CONTROLS.0, CONTROLS.1), style_model),
                Some(((BASE.0, BASE.1), "StyleView")),
                style_state,
            );
            state.insert("style".into(), reference(&style));
        }
        let view = model.strip_suffix("Model").unwrap_or(model).to_string() + "View";
        let module = if model == "OutputModel" {
            OUTPUT
        } else {
            CONTROLS
        };
        Model::open(((module.0, module.1), model), Some((module, &view)), state)
    }

    /// The model's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The current value of one state key (Null when absent).
    pub fn get(&self, key: &str) -> Value {
        lock(&self.state).get(key).cloned().unwrap_or(Value::Null)
    }

    /// Sets state keys here and in the front end.
    pub fn set(&self, changes: Map<String, Value>) {
        lock(&self.state).extend(changes.clone());
        self.send(json!({"method": "update", "state": changes, "buffer_paths": []}));
    }

    /// Calls `f(key, value)` after each change the front end makes.
    pub fn observe_any(&self, f: impl FnMut(&str, &Value) + Send + 'static) {
        lock(&self.observers).push(Box::new(f));
    }

    /// Calls `f(content)` for each custom message from the front end (a button's click).
    pub(crate) fn on_message(&self, f: impl FnMut(&Value) + Send + 'static) {
        lock(&self.messages).push(Box::new(f));
    }

    fn send(&self, data: Value) {
        send_message(
            "comm_msg",
            &json!({"comm_id": self.id, "data": data}).to_string(),
        );
    }

    /// Handles one message from the front end.
    fn receive(&self, method: &str, data: &Value) {
        if method == "close" {
            return;
        }
        match data["method"].as_str() {
            Some("update") => {
                let Some(changes) = data["state"].as_object() else {
                    return;
                };
                lock(&self.state).extend(changes.clone());
                // Observers added by an observer join after this round.
                let mut observers = std::mem::take(&mut *lock(&self.observers));
                for (key, value) in changes {
                    for f in observers.iter_mut() {
                        f(key, value);
                    }
                }
                let mut current = lock(&self.observers);
                observers.append(&mut current);
                *current = observers;
            }
            Some("request_state") => {
                let state = lock(&self.state).clone();
                self.send(json!({"method": "update", "state": state, "buffer_paths": []}));
            }
            Some("custom") => {
                let mut handlers = std::mem::take(&mut *lock(&self.messages));
                for f in handlers.iter_mut() {
                    f(&data["content"]);
                }
                let mut current = lock(&self.messages);
                handlers.append(&mut current);
                *current = handlers;
            }
            _ => {}
        }
    }

    /// The display bundle of this model's view.
    pub(crate) fn view_bundle(&self, text: String) -> cuprite_display::MimeBundle {
        cuprite_display::MimeBundle::new(text).with(
            VIEW_MIME,
            json!({"version_major": 2, "version_minor": 1, "model_id": self.id}).to_string(),
        )
    }
}

/// The entries of a JSON object (empty for anything else): model states
/// written as `json!` literals.
pub(crate) fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// `IPY_MODEL_<id>`: how one model's state names another.
pub(crate) fn reference(m: &Model) -> Value {
    Value::String(format!("IPY_MODEL_{}", m.id))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A random 128-bit id in hex (std's hasher keys are random per process and per call).
fn new_id() -> String {
    let part = || {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        h.finish()
    };
    format!("{:016x}{:016x}", part(), part())
}

// ---------------------------------------------------------------- the hub

/// What the hub keeps of one model: a pointer to it (one strong count of its
/// `Arc`, held until the front end closes it) and the function, compiled in
/// the model's own cell, that hands it a message.
#[derive(Clone, Copy)]
struct Entry {
    model: usize,
    receive: ReceiveFn,
    release: unsafe extern "C" fn(model: usize),
}

type ReceiveFn = unsafe extern "C" fn(
    model: usize,
    method: *const u8,
    method_len: usize,
    data: *const u8,
    data_len: usize,
);

/// One comm message from the front end, as the kernel sent it.
struct Job {
    seq: String,
    comm_id: String,
    method: String,
    data: String,
}

/// The process-wide table of open models and the thread that runs their callbacks.
struct Hub {
    models: Mutex<HashMap<String, Entry>>,
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    started: Once,
}

fn hub() -> &'static Hub {
    let hub: &'static Hub = cuprite::process_global("WIDGET_HUB", || Hub {
        models: Mutex::new(HashMap::new()),
        jobs: Mutex::new(None),
        started: Once::new(),
    });
    hub.started.call_once(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        *lock(&hub.jobs) = Some(tx);
        let spawned = std::thread::Builder::new()
            .name("cuprite-widgets".into())
            .spawn(move || {
                for job in rx {
                    hub.run(job);
                }
            });
        if let Err(e) = spawned {
            eprintln!("cuprite widgets: cannot start the callback thread: {e}");
        }
    });
    hub
}

impl Hub {
    fn register(&self, m: &Arc<Model>) {
        unsafe extern "C" fn receive(
            model: usize,
            method: *const u8,
            method_len: usize,
            data: *const u8,
            data_len: usize,
        ) {
            // SAFETY: the hub passes the pointer `register` stored (a live
            // `Arc<Model>` of this very copy of the crate) and two byte slices
            // it owns for the duration of the call.
            let (model, method, data) = unsafe {
                (
                    &*(model as *const Model),
                    std::slice::from_raw_parts(method, method_len),
                    std::slice::from_raw_parts(data, data_len),
                )
            };
            let data: Value = serde_json::from_slice(data).unwrap_or(Value::Null);
            // A panic must not unwind out of an `extern "C"` function (that
            // aborts the process): the panic hook has reported it; go on.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                model.receive(&String::from_utf8_lossy(method), &data)
            }));
        }
        unsafe extern "C" fn release(model: usize) {
            // SAFETY: `model` came from `Arc::into_raw` in this copy's `register`
            // and the hub releases it once, when it removes the entry.
            drop(unsafe { Arc::from_raw(model as *const Model) });
        }
        let entry = Entry {
            model: Arc::into_raw(m.clone()) as usize,
            receive,
            release,
        };
        lock(&self.models).insert(m.id.clone(), entry);
    }

    fn run(&self, job: Job) {
        let entry = if job.method == "close" {
            lock(&self.models).remove(&job.comm_id)
        } else {
            lock(&self.models).get(&job.comm_id).copied()
        };
        if let Some(e) = entry {
            let call = || {
                // SAFETY: `e` was made by `register` from a model that the
                // hub still holds (removed entries are released below only).
                unsafe {
                    (e.receive)(
                        e.model,
                        job.method.as_ptr(),
                        job.method.len(),
                        job.data.as_ptr(),
                        job.data.len(),
                    )
                }
            };
            call();
            if job.method == "close" {
                // SAFETY: the entry was just removed, so this is its only release.
                unsafe { (e.release)(e.model) };
            }
        }
        send_inband(wire::kind::COMM_DONE, job.seq.as_bytes());
    }
}

/// Hands a comm message from the kernel (`W<seq>:<hex json>`, without the
/// `W`) to the hub; answers at once when it cannot be read.
#[doc(hidden)]
pub fn deliver(line: &[u8]) {
    let text = String::from_utf8_lossy(line);
    let (seq, hex) = text.split_once(':').unwrap_or((&text, ""));
    let message: Value = wire::from_hex(hex.as_bytes())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(Value::Null);
    let job = Job {
        seq: seq.to_string(),
        comm_id: message["comm_id"].as_str().unwrap_or("").to_string(),
        method: message["method"].as_str().unwrap_or("msg").to_string(),
        data: message["data"].to_string(),
    };
    let sender = lock(&hub().jobs).clone();
    match sender {
        Some(tx) => {
            if let Err(mpsc::SendError(job)) = tx.send(job) {
                send_inband(wire::kind::COMM_DONE, job.seq.as_bytes());
            }
        }
        None => {
            send_inband(wire::kind::COMM_DONE, job.seq.as_bytes());
        }
    }
}
