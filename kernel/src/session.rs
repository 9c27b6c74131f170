//! The evcxr session: one per kernel, on its own thread (evcxr's context is
//! not `Send`), started in the background so `kernel_info` is answered at once.

use crate::errors::{self, JupyterError};
use crate::locks::Locked;
use crate::magics::{self, Plan};
use crate::shell::{self, Shell};
use crate::side_channel::{panic_text, CellEvents, SideChannel, Sink};
use cuprite_kernel_io::wire::format_seconds;
use evcxr::{CommandContext, EvalCallbacks};
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::process::Child;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;

/// How long a cell may keep running after an interrupt before its process is restarted.
fn interrupt_grace() -> Duration {
    std::env::var("CUPRITE_INTERRUPT_GRACE_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(3))
}

/// Asks the frontend for a line of input (`input_request` on stdin); None when not allowed.
pub type InputFn = Arc<dyn Fn(&str, bool) -> Option<String> + Send + Sync>;

/// A cell to run.
#[derive(Debug, Clone)]
pub struct ExecRequest {
    pub code: String,
    pub allow_stdin: bool,
}

/// What running a cell gave.
#[derive(Debug, Clone)]
pub struct ExecOutcome {
    /// The last expression's MIME bundle (None: nothing to show), or the error.
    pub result: Result<Option<Map<String, Value>>, JupyterError>,
    /// Text to publish on stdout after the cell's own output (the `%time` report).
    pub stdout_after: String,
    /// Stderr text to publish after the cell's own output (panics a cell caught itself).
    pub stderr_after: String,
    /// Reply payloads (the pager).
    pub payload: Vec<Value>,
}

impl Default for ExecOutcome {
    fn default() -> Self {
        ExecOutcome {
            result: Ok(None),
            stdout_after: String::new(),
            stderr_after: String::new(),
            payload: Vec::new(),
        }
    }
}

/// Completions for `complete_request`.
#[derive(Debug, Clone, Default)]
pub struct CompleteResult {
    pub matches: Vec<String>,
    /// (start, end) in characters.
    pub cursor: (usize, usize),
    pub types: Vec<Value>,
}

enum Job {
    Execute(ExecRequest, oneshot::Sender<ExecOutcome>),
    Complete(String, usize, oneshot::Sender<CompleteResult>),
    Inspect(String, usize, oneshot::Sender<Option<(String, String)>>),
    /// The variables with a summary of each value (the debugger's Variables panel).
    Variables(oneshot::Sender<Result<Vec<Value>, String>>),
    /// One variable's rich display bundle.
    RichVariable(String, oneshot::Sender<Result<Map<String, Value>, String>>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interrupt {
    /// SIGINT sent to the cell process.
    Signalled,
    /// A build was cancelled.
    Compile,
    /// The cell process was killed after the grace period.
    Killed,
}

#[derive(Default)]
struct CtlState {
    /// The cell running now.
    executing: Option<u64>,
    interrupt: Option<Interrupt>,
    child: Option<Arc<Mutex<Child>>>,
}

/// The handle the protocol side holds.
#[derive(Clone)]
pub struct Session {
    jobs: mpsc::Sender<Job>,
    ctl: Arc<Mutex<CtlState>>,
    /// Runs the cells that need no Rust (`!cmd`, `%cd`, `%%bash`, ...).
    shell: Arc<Shell>,
    /// For what the cell process reported outside a cell (its GPU pools).
    side: SideChannel,
}

impl Session {
    /// Starts the session thread; it seeds the build folder, then evcxr
    /// starts, in the background.
    pub fn start(
        side: SideChannel,
        sink: Arc<dyn Sink>,
        input: InputFn,
        seeder: crate::build_dir::Seeder,
    ) -> std::io::Result<Session> {
        let (tx, rx) = mpsc::channel();
        let shell = Arc::new(Shell::new(sink.clone(), side.clone()));
        let side2 = side.clone();
        let ctl = Arc::new(Mutex::new(CtlState::default()));
        let ctl2 = ctl.clone();
        std::thread::Builder::new()
            .name("evcxr-session".into())
            .stack_size(64 << 20)
            .spawn(move || {
                seeder.seed_if_new();
                let mut ev = Evaluator {
                    ctx: None,
                    init_error: None,
                    side,
                    sink,
                    input,
                    ctl: ctl2,
                    cell: 0,
                    after_interrupt: false,
                    last_saved: None,
                };
                ev.init();
                // The first warm-up cell (the `let` that loads the crates
                // into evcxr's type inference) runs even when a request
                // waits: the request would pay for it anyway. Later ones
                // give way to requests and run once the queue is empty.
                let mut warmup = WARMUP_CELLS.iter();
                let first = warmup.next();
                ev.warm_up(first.into_iter());
                loop {
                    let job = match rx.try_recv() {
                        Ok(job) => job,
                        Err(mpsc::TryRecvError::Disconnected) => break,
                        Err(mpsc::TryRecvError::Empty) => match warmup.next() {
                            Some(cell) => {
                                ev.warm_up(std::iter::once(cell));
                                continue;
                            }
                            None => match rx.recv() {
                                Ok(job) => job,
                                Err(_) => break,
                            },
                        },
                    };
                    // A panic inside evcxr (its rust-analyzer, on code a
                    // request sent) fails that one job: its reply channel
                    // is dropped, so its caller gets an error or an empty
                    // answer, and the session goes on with the next job.
                    let handled =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ev.handle(job)));
                    if handled.is_err() {
                        eprintln!("cuprite-kernel: a request panicked in the session thread; its reply is an error");
                        ev.ctl.locked().executing = None;
                    }
                }
            })
            ?;
        Ok(Session {
            jobs: tx,
            ctl,
            shell,
            side: side2,
        })
    }

    /// Runs a cell.
    pub async fn execute(&self, req: ExecRequest) -> ExecOutcome {
        match shell::plan(&req.code) {
            Some(Ok(steps)) => {
                let shell = self.shell.clone();
                return tokio::task::spawn_blocking(move || shell.run(steps))
                    .await
                    .unwrap_or_else(|_| ExecOutcome {
                        result: Err(JupyterError::simple(
                            "KernelError",
                            "the kernel's shell runner stopped",
                        )),
                        ..Default::default()
                    });
            }
            Some(Err(msg)) => {
                return ExecOutcome {
                    result: Err(JupyterError::simple("UsageError", msg)),
                    ..Default::default()
                }
            }
            None => {}
        }
        let (tx, rx) = oneshot::channel();
        if self.jobs.send(Job::Execute(req, tx)).is_err() {
            return ExecOutcome {
                result: Err(JupyterError::simple(
                    "KernelError",
                    "the session thread has stopped",
                )),
                ..Default::default()
            };
        }
        rx.await.unwrap_or_else(|_| ExecOutcome {
            result: Err(JupyterError::simple(
                "KernelError",
                "the session thread has stopped",
            )),
            ..Default::default()
        })
    }

    /// Completes at `cursor` (characters).
    pub async fn complete(&self, code: String, cursor: usize) -> CompleteResult {
        let (tx, rx) = oneshot::channel();
        if self.jobs.send(Job::Complete(code, cursor, tx)).is_err() {
            return CompleteResult::default();
        }
        rx.await.unwrap_or_default()
    }

    /// Documentation of the expression at `cursor` (characters): (plain, html).
    pub async fn inspect(&self, code: String, cursor: usize) -> Option<(String, String)> {
        let (tx, rx) = oneshot::channel();
        self.jobs.send(Job::Inspect(code, cursor, tx)).ok()?;
        rx.await.ok().flatten()
    }

    /// The session's variables: `{"name", "type", "value"}` each (the value a
    /// one-line summary, or empty). Waits for a running cell.
    pub async fn variables(&self) -> Result<Vec<Value>, String> {
        let (tx, rx) = oneshot::channel();
        self.jobs
            .send(Job::Variables(tx))
            .map_err(|_| "the session thread has stopped".to_string())?;
        rx.await
            .unwrap_or_else(|_| Err("the session thread has stopped".into()))
    }

    /// The display bundle of the variable `name` (as the cell `&name` shows it).
    pub async fn rich_variable(&self, name: String) -> Result<Map<String, Value>, String> {
        let (tx, rx) = oneshot::channel();
        self.jobs
            .send(Job::RichVariable(name, tx))
            .map_err(|_| "the session thread has stopped".to_string())?;
        rx.await
            .unwrap_or_else(|_| Err("the session thread has stopped".into()))
    }

    /// Interrupts the running cell: cancels a build, or sends SIGINT to the cell
    /// process and restarts it if the cell has not stopped after a grace period.
    pub fn interrupt(&self) {
        if self.shell.interrupt() {
            return;
        }
        let mut st = self.ctl.locked();
        let Some(cell) = st.executing else { return };
        let child_pid = st.child.as_ref().map(|c| c.locked().id());
        let builds = build_processes(child_pid);
        if !builds.is_empty() {
            st.interrupt = Some(Interrupt::Compile);
            for pid in builds {
                // SAFETY: signalling a process we started.
                unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            }
            return;
        }
        let Some(pid) = child_pid else { return };
        st.interrupt = Some(Interrupt::Signalled);
        // SAFETY: signalling our own cell process.
        unsafe { libc::kill(pid as i32, libc::SIGINT) };
        let ctl = self.ctl.clone();
        let grace = interrupt_grace();
        std::thread::spawn(move || {
            std::thread::sleep(grace);
            let mut st = ctl.locked();
            if st.executing != Some(cell) {
                return;
            }
            // Still compiling (the signal came during analysis): cancel the build.
            let builds = build_processes(Some(pid));
            if !builds.is_empty() {
                st.interrupt = Some(Interrupt::Compile);
                for b in builds {
                    // SAFETY: signalling a build we started.
                    unsafe { libc::kill(b as i32, libc::SIGKILL) };
                }
                return;
            }
            st.interrupt = Some(Interrupt::Killed);
            // SAFETY: killing our own cell process, which evcxr then restarts.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        });
    }

    /// The cell process's pid, when one runs.
    pub fn cell_pid(&self) -> Option<u32> {
        let st = self.ctl.locked();
        st.child.as_ref().map(|c| c.locked().id())
    }

    /// The GPU memory pools as the cell process reported them at the end of
    /// its last cell, and how long ago.
    pub fn gpu_pools(&self) -> Option<(Duration, Value)> {
        self.side.gpu_pools()
    }

    /// The comms (widget models) the cell process has open, id and target.
    pub fn comms(&self, target: Option<&str>) -> Vec<(String, String)> {
        self.side.comms(target)
    }

    /// Hands a front end's comm message to the cell process and waits (up to
    /// a minute) until its callbacks ran; false for a comm it does not have.
    pub fn comm(&self, comm_id: &str, method: &str, data: &Value) -> bool {
        self.side
            .comm(comm_id, method, data, Duration::from_secs(60))
    }

    /// Kills the cell process (at shutdown).
    pub fn kill(&self) {
        let st = self.ctl.locked();
        if let Some(c) = &st.child {
            if let Ok(mut c) = c.try_lock() {
                let _ = c.kill();
            } else {
                let pid = c.lock().map(|c| c.id()).unwrap_or(0);
                if pid > 0 {
                    // SAFETY: killing our own cell process.
                    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
                }
            }
        }
        for pid in build_processes(None) {
            // SAFETY: killing builds we started.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
    }
}

/// Build processes (cargo and what it runs) below this kernel, not the cell process.
fn build_processes(cell_pid: Option<u32>) -> Vec<u32> {
    let me = std::process::id();
    let mut procs: Vec<(u32, u32, String)> = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for e in entries.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = stat[open + 1..close].to_string();
        let ppid = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        procs.push((pid, ppid, comm));
    }
    let roots: Vec<u32> = procs
        .iter()
        .filter(|(pid, ppid, comm)| {
            *ppid == me
                && Some(*pid) != cell_pid
                && (comm.starts_with("cargo")
                    || comm.starts_with("mold")
                    || comm.starts_with("rustc"))
        })
        .map(|p| p.0)
        .collect();
    let mut out = roots.clone();
    let mut frontier = roots;
    while let Some(p) = frontier.pop() {
        for (pid, ppid, _) in &procs {
            if *ppid == p && !out.contains(pid) {
                out.push(*pid);
                frontier.push(*pid);
            }
        }
    }
    out
}

struct Evaluator {
    ctx: Option<CommandContext>,
    init_error: Option<JupyterError>,
    side: SideChannel,
    sink: Arc<dyn Sink>,
    input: InputFn,
    ctl: Arc<Mutex<CtlState>>,
    cell: u64,
    /// The last cell was interrupted: the next one makes sure the cell
    /// process has cleared its interrupt flag before it runs.
    after_interrupt: bool,
    /// The newest `%save_vars` file of this session and when it was written,
    /// named when the cell process crashes (`%load_vars` brings it back).
    last_saved: Option<(PathBuf, chrono::DateTime<chrono::Local>)>,
}

/// The hidden first cell: dependencies, the prelude and output capture. Its
/// `?` turns evcxr's question-mark mode on for the session (every cell then
/// runs in a closure returning `Result`); without it, the first cell using
/// `?` compiles twice, and a final `expr?` falls back to `Debug`, losing its
/// rich display.
///
/// Cells link one shared library, `cuprite-cells` (see `kernel/cells`), and
/// reach the crates through its re-exports.
///
/// `cp` is `cuprite_display::cp`: the runtime (`cuprite`) plus plots,
/// displays, progress bars and reports, so cells write `cp::arange(..)`,
/// `cp::plot::line(..)`, `cp::progress(..)`; the display prelude adds
/// `display`, `display_with_id`, `update_display`, `clear_output`, `progress`
/// and `EvcxrDisplay` (a cell ending in an array, figure or report shows
/// as HTML or an image).
fn init_code(src: &std::path::Path) -> String {
    let p = |name: &str| toml_string(&src.join(name).to_string_lossy());
    format!(
        ":opt 0\n\
         :dep cuprite-cells = {{ path = {} }}\n\
         use cuprite_cells::{{cuprite, cuprite_display, cuprite_kernel_io}};\n\
         use cuprite_kernel_io::cp;\n\
         use cuprite::prelude::*;\n\
         use cuprite_display::prelude::*;\n\
         use cuprite_kernel_io::EvcxrDebugDisplay as _;\n\
         \"0\".parse::<u8>()?;\n\
         cuprite_kernel_io::__init();",
        p("cuprite-cells")
    )
}

fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

const REINIT_CODE: &str = "cuprite_kernel_io::__init();";

/// Hidden cells run as soon as the session is up, so that the user's first
/// cell runs at warm speed: the first `let` of a runtime type (evcxr's type
/// inference loads the crates into rust-analyzer, seconds), an array's and a
/// plot's display. The second cell drops the variable, so evcxr forgets it.
/// Their values are not published, and they take no execution count.
const WARMUP_CELLS: &[&str] = &[
    "let __cuprite_warmup = cp::arange(6)?.reshape([2, 3])?.astype(cp::f32)?;\n\
     __cuprite_warmup.sum_axis(1)?",
    "drop(__cuprite_warmup);\ncp::plot::line(&cp::arange(6)?)?.title(\"warm-up\")",
];

impl Evaluator {
    fn init(&mut self) {
        self.init_error = None;
        let started = std::time::Instant::now();
        let src: PathBuf = match crate::sources::unpacked() {
            Ok(p) => p,
            Err(e) => {
                self.init_error = Some(JupyterError::simple("KernelStartError", format!("{e:#}")));
                return;
            }
        };
        if self.ctx.is_none() {
            add_rust_libs_to_loader_path();
            if let Some(root) = std::env::var_os("EVCXR_TMPDIR")
                .and_then(|ctx| PathBuf::from(ctx).parent().map(PathBuf::from))
            {
                let fixed = std::env::var_os("CUPRITE_KERNEL_SOURCES").is_none();
                crate::cell_build::install(&root, &src, fixed);
                crate::analyzer_graph::install(&root);
            }
            // How `#[cp::jit::kernel]` and its kin name the runtime in a cell
            // (see `cuprite-jit-macros`): cargo passes it on to the macros.
            std::env::set_var("CUPRITE_JIT_CELL_RUNTIME", "::cuprite_cells::cuprite");
            match CommandContext::new() {
                Ok((ctx, outputs)) => {
                    // evcxr's own channels: output of the cell process before capture
                    // starts (and anything evcxr does not recognise).
                    for (name, rx) in [("stdout", outputs.stdout), ("stderr", outputs.stderr)] {
                        let sink = self.sink.clone();
                        std::thread::spawn(move || {
                            for line in rx {
                                sink.publish(
                                    "stream",
                                    json!({"name": name, "text": format!("{line}\n")}),
                                );
                            }
                        });
                    }
                    self.ctl.locked().child = Some(ctx.process_handle());
                    self.ctx = Some(ctx);
                }
                Err(e) => {
                    self.init_error = Some(JupyterError::simple(
                        "KernelStartError",
                        format!("evcxr could not start (is cargo on PATH?): {e}"),
                    ));
                    return;
                }
            }
        }
        let code = init_code(&src);
        let Some(ctx) = self.ctx.as_mut() else {
            return; // started just above, or init_error says why not
        };
        let result = ctx.execute(&code);
        if let Err(e) = &result {
            let err = match e {
                evcxr::Error::CompilationErrors(errs) => errors::compilation(errs, &code),
                other => JupyterError::simple("KernelStartError", other.to_string()),
            };
            let mut err = err;
            err.traceback.insert(
                0,
                "The kernel could not build the crates every cell uses (cuprite, cuprite-display, cuprite-kernel-io, in the shared library cuprite-cells):".into(),
            );
            self.init_error = Some(err);
            return;
        }
        if !self.side.wait_connected(None, Duration::from_secs(10)) {
            eprintln!("cuprite-kernel: the cell process did not connect to the side channel; output is line-buffered");
        }
        let debug = std::env::var_os("CUPRITE_KERNEL_DEBUG").is_some();
        if debug {
            eprintln!("cuprite-kernel: session ready in {:.1?}", started.elapsed());
        }
        // The dependencies are compiled: later notebooks' build folders may start from this one.
        if let Some(ctx_dir) = std::env::var_os("EVCXR_TMPDIR") {
            if let Some(root) = std::path::Path::new(&ctx_dir).parent() {
                crate::build_dir::mark_warm(root);
            }
        }
        if debug {
            if let Ok(out) = &result {
                eprintln!("cuprite-kernel: first cell: {}", phases_text(out));
            }
        }
    }

    /// Runs some of [`WARMUP_CELLS`], publishing nothing (a failure only
    /// costs speed).
    fn warm_up<'c>(&mut self, cells: impl Iterator<Item = &'c &'static str>) {
        if std::env::var_os("CUPRITE_KERNEL_NO_WARMUP").is_some() || self.init_error.is_some() {
            return;
        }
        let started = std::time::Instant::now();
        let debug = std::env::var_os("CUPRITE_KERNEL_DEBUG").is_some();
        for code in cells {
            let Some(ctx) = self.ctx.as_mut() else {
                return;
            };
            self.side.begin_cell();
            let t = std::time::Instant::now();
            let result = ctx.execute(code);
            let events = self.side.finish_cell(Duration::from_secs(2));
            if debug {
                let phases = match &result {
                    Ok(out) => phases_text(out),
                    Err(e) => format!("error: {e}"),
                };
                eprintln!(
                    "cuprite-kernel: warm-up cell {:.0?} ({phases})",
                    t.elapsed()
                );
            }
            let failed = result.is_err() || events.panicked || events.user_error;
            if failed {
                eprintln!(
                    "cuprite-kernel: the warm-up cell failed (the first cells may be slower): {}",
                    match &result {
                        Err(e) => e.to_string(),
                        Ok(_) => events.stderr_tail.trim().to_string(),
                    }
                );
                return;
            }
        }
        if debug {
            eprintln!("cuprite-kernel: warm-up done in {:.1?}", started.elapsed());
        }
    }

    /// Sets the cell process up again after evcxr restarted it.
    fn reinit(&mut self, full: bool, old_pid: Option<u32>) {
        if full {
            self.init();
            return;
        }
        if let Some(ctx) = self.ctx.as_mut() {
            if ctx.execute(REINIT_CODE).is_ok() {
                self.side.wait_connected(old_pid, Duration::from_secs(10));
            }
        }
    }

    fn handle(&mut self, job: Job) {
        match job {
            Job::Execute(req, reply) => {
                let outcome = self.execute(req);
                let _ = reply.send(outcome);
            }
            Job::Complete(code, cursor, reply) => {
                let _ = reply.send(self.complete(&code, cursor));
            }
            Job::Inspect(code, cursor, reply) => {
                let _ = reply.send(self.inspect(&code, cursor));
            }
            Job::Variables(reply) => {
                let _ = reply.send(self.variables());
            }
            Job::RichVariable(name, reply) => {
                let _ = reply.send(self.rich_variable(&name));
            }
        }
    }

    fn execute(&mut self, req: ExecRequest) -> ExecOutcome {
        if self.ctx.is_none() || self.init_error.is_some() {
            self.init();
            if let Some(e) = &self.init_error {
                return ExecOutcome {
                    result: Err(e.clone()),
                    ..Default::default()
                };
            }
        }
        if req
            .code
            .lines()
            .any(|l| l.trim() == ":quit" || l.trim_start().starts_with(":quit "))
        {
            return ExecOutcome {
                result: Err(JupyterError::simple(
                    "UsageError",
                    ":quit would stop the kernel; use the notebook's Kernel menu to shut it down or restart it",
                )),
                ..Default::default()
            };
        }
        let plan = magics::plan(&req.code);
        let saving = match &plan {
            Plan::SaveVars { path, .. } => std::env::current_dir().ok().map(|d| d.join(path)),
            _ => None,
        };
        let (code, time_report) = match plan {
            Plan::Run { code, time_report } => (code, time_report),
            Plan::SaveVars { path, names } => {
                let code = self
                    .ctx
                    .as_ref()
                    .map(|ctx| magics::save_vars_code(&path, &names, ctx.variables_and_types()));
                match code {
                    Some(Ok(code)) => (code, false),
                    Some(Err(msg)) => return usage_error(msg),
                    None => return usage_error("the session is not running".into()),
                }
            }
            Plan::LoadVars { path, device } => match load_vars(&path, device.as_deref()) {
                Ok(code) => (code, false),
                Err(msg) => return usage_error(msg),
            },
            Plan::Whos => match self.ctx.as_ref() {
                Some(ctx) => (magics::whos_code(ctx.variables_and_types()), false),
                None => {
                    return ExecOutcome {
                        result: Err(JupyterError::simple(
                            "KernelError",
                            "the session is not running",
                        )),
                        ..Default::default()
                    }
                }
            },
            Plan::Page(expr) => return self.page(&expr),
            Plan::Error(msg) => {
                return ExecOutcome {
                    result: Err(JupyterError::simple("UsageError", msg)),
                    ..Default::default()
                }
            }
        };
        let clear = req.code.lines().any(|l| l.trim() == ":clear");

        self.cell += 1;
        {
            let mut st = self.ctl.locked();
            st.executing = Some(self.cell);
            st.interrupt = None;
        }
        let pid_before = self.child_pid();
        self.side.begin_cell();
        if std::mem::take(&mut self.after_interrupt) {
            // The flag is cleared by a command the cell process handles on its
            // own thread: wait until it has (a flush answers after it).
            self.side.flush(Duration::from_secs(2));
        }
        let input = self.input.clone();
        let allow_stdin = req.allow_stdin;
        let mut callbacks = EvalCallbacks {
            input_reader: &move |r| {
                if !allow_stdin {
                    // `cuprite_kernel_io::input` makes this an error the cell can see.
                    return cuprite_kernel_io::NO_STDIN.to_string();
                }
                input(&r.prompt, r.is_password).unwrap_or_default()
            },
        };
        let t0 = std::time::Instant::now();
        let result = match self.ctx.as_mut() {
            Some(ctx) => ctx.execute_with_callbacks(&code, &mut callbacks),
            // `execute` started evcxr above; this is its failure to, unreported.
            None => Err(evcxr::Error::Message("evcxr is not running".into())),
        };
        let t_eval = t0.elapsed();
        let events = self.side.finish_cell(Duration::from_secs(2));
        if std::env::var_os("CUPRITE_KERNEL_DEBUG").is_some() {
            let phases = match &result {
                Ok(out) => out
                    .phases
                    .iter()
                    .map(|p| format!("{} {:.0?}", p.name, p.duration))
                    .collect::<Vec<_>>()
                    .join(", "),
                Err(_) => "error".into(),
            };
            eprintln!(
                "cuprite-kernel: cell {}: evcxr {t_eval:.0?} ({phases}), flush {:.0?}",
                self.cell,
                t0.elapsed() - t_eval
            );
        }
        let interrupt = {
            let mut st = self.ctl.locked();
            st.executing = None;
            st.interrupt.take()
        };
        self.after_interrupt = interrupt.is_some();
        let pid_after = self.child_pid();
        let restarted = matches!(result, Err(evcxr::Error::SubprocessTerminated(_)))
            || (pid_before.is_some() && pid_before != pid_after);
        if clear || restarted {
            self.reinit(clear, pid_before);
        }

        if let (Some(path), Ok(_)) = (saving, &result) {
            if !events.panicked && !events.user_error {
                let at = chrono::Local::now();
                crate::lifeline::saved(&path, at);
                self.last_saved = Some((path, at));
            }
        }
        let mut outcome = ExecOutcome::default();
        if !events.panicked {
            for p in &events.panics {
                outcome.stderr_after.push_str(&panic_text(p));
            }
        }
        if time_report {
            outcome.stdout_after = time_report_text(&events);
        }
        outcome.result = match result {
            Ok(out) => {
                if events.panicked {
                    Err(panic_error(&events, interrupt))
                } else if events.user_error {
                    Err(user_error(&events, interrupt))
                } else if let Some((ename, evalue)) = events.value_error.clone() {
                    Err(JupyterError::simple(&ename, evalue))
                } else {
                    Ok(bundle(out.content_by_mime_type))
                }
            }
            Err(evcxr::Error::CompilationErrors(errs)) => {
                if interrupt == Some(Interrupt::Compile) {
                    Err(compile_cancelled())
                } else {
                    Err(errors::compilation(&errs, &req.code))
                }
            }
            Err(evcxr::Error::SubprocessTerminated(msg)) => Err(match interrupt {
                Some(Interrupt::Killed) => JupyterError::simple(
                    INTERRUPTED,
                    format!(
                        "The cell did not stop within {:.0?} of the interrupt, so its process was restarted: all variables were lost (definitions, `use` and :dep are kept). \
                         Cuprite operations stop at an interrupt and keep the variables; this cell was running code that never calls them (a loop in plain Rust, a sleep, a blocking call). \
                         Such a loop can check `cuprite_kernel_io::interrupted()` or iterate over `cp::progress(..)` to stop cleanly.",
                        interrupt_grace()
                    ),
                ),
                Some(_) => JupyterError::simple(
                    INTERRUPTED,
                    "The interrupt stopped the cell process, which was restarted: all variables were lost (definitions, `use` and :dep are kept).",
                ),
                None => {
                    let mut e = JupyterError::simple(
                        "SessionRestarted",
                        "The cell process crashed and was restarted: all variables were lost (definitions, `use` and :dep are kept).",
                    );
                    let detail = msg.trim();
                    if !detail.is_empty() {
                        e.traceback.push(String::new());
                        e.traceback.extend(detail.lines().map(str::to_string));
                    }
                    if let Some((path, at)) = &self.last_saved {
                        e.traceback.push(String::new());
                        e.traceback.push(format!(
                            "The newest %save_vars file of this session is {} (saved {}): %load_vars {} brings its variables back.",
                            path.display(),
                            at.format("%H:%M:%S"),
                            path.display()
                        ));
                    }
                    e
                }
            }),
            Err(evcxr::Error::TypeRedefinedVariablesLost(vars)) => Err(JupyterError::simple(
                "VariablesLost",
                format!("A type was redefined, so these variables were lost: {}", vars.join(", ")),
            )),
            Err(evcxr::Error::Message(m)) => {
                if interrupt == Some(Interrupt::Compile) {
                    Err(compile_cancelled())
                } else {
                    Err(JupyterError::simple("EvcxrError", m))
                }
            }
        };
        outcome.result = outcome.result.map_err(errors::with_stdin_hint);
        outcome
    }

    fn variables(&mut self) -> Result<Vec<Value>, String> {
        let Some(ctx) = self.ctx.as_ref() else {
            return Err("the session is not running".into());
        };
        let vars: Vec<(String, String)> = ctx
            .variables_and_types()
            .filter(|(name, _)| !name.starts_with("__"))
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        if vars.is_empty() {
            return Ok(Vec::new());
        }
        let code = magics::variables_code(vars.iter().map(|(n, t)| (n.as_str(), t.as_str())));
        let outcome = self.execute(ExecRequest {
            code,
            allow_stdin: false,
        });
        match outcome.result {
            Ok(Some(bundle)) => Ok(bundle
                .get("application/json")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()),
            Ok(None) => Ok(Vec::new()),
            // A value the slice cannot borrow: names and types only.
            Err(_) => Ok(vars
                .into_iter()
                .map(|(name, ty)| serde_json::json!({"name": name, "type": ty, "value": ""}))
                .collect()),
        }
    }

    fn rich_variable(&mut self, name: &str) -> Result<Map<String, Value>, String> {
        let known = self
            .ctx
            .as_ref()
            .is_some_and(|ctx| ctx.variables_and_types().any(|(n, _)| n == name));
        if !known {
            return Err(format!("{name:?} is not a variable of this session"));
        }
        let outcome = self.execute(ExecRequest {
            code: format!("&{name}"),
            allow_stdin: false,
        });
        match outcome.result {
            Ok(Some(bundle)) => Ok(bundle),
            Ok(None) => Err(format!("{name} has nothing to show")),
            Err(e) => Err(format!("{name} cannot be shown: {}", e.evalue)),
        }
    }

    fn child_pid(&self) -> Option<u32> {
        let st = self.ctl.locked();
        st.child.as_ref().map(|c| c.locked().id())
    }

    fn page(&mut self, expr: &str) -> ExecOutcome {
        let (plain, html) = self
            .ctx
            .as_mut()
            .and_then(|c| c.hover_at(expr, expr.len()).ok())
            .filter(|(p, _)| !p.trim().is_empty())
            .unwrap_or_else(|| {
                (
                    format!("No documentation found for `{expr}`."),
                    String::new(),
                )
            });
        let mut data = json!({"text/plain": plain});
        if !html.trim().is_empty() {
            data["text/html"] = json!(html);
        }
        ExecOutcome {
            result: Ok(None),
            payload: vec![json!({"source": "page", "data": data, "start": 0})],
            ..Default::default()
        }
    }

    fn complete(&mut self, code: &str, cursor: usize) -> CompleteResult {
        let byte = char_to_byte(code, cursor);
        // Magics at the start of a line.
        let line_start = code[..byte].rfind('\n').map(|i| i + 1).unwrap_or(0);
        let word = &code[line_start..byte];
        if word.starts_with('%') && !word.contains(char::is_whitespace) {
            let matches: Vec<String> = magics::LINE_MAGICS
                .iter()
                .chain(magics::CELL_MAGICS)
                .filter(|m| m.starts_with(word))
                .map(|m| m.to_string())
                .collect();
            let start = byte_to_char(code, line_start);
            return CompleteResult {
                matches,
                cursor: (start, cursor),
                types: Vec::new(),
            };
        }
        let ctx = match self.ctx.as_mut() {
            Some(ctx) if !too_hard_to_analyse(code) => ctx,
            _ => {
                return CompleteResult {
                    cursor: (cursor, cursor),
                    ..Default::default()
                }
            }
        };
        match ctx.completions(code, byte) {
            Ok(c) => {
                let start = byte_to_char(code, c.start_offset.min(code.len()));
                let end = byte_to_char(code, c.end_offset.min(code.len()));
                let mut matches = Vec::new();
                let mut types = Vec::new();
                for m in c.completions {
                    let text = insert_text(&m.code).to_string();
                    types.push(json!({
                        "start": start,
                        "end": end,
                        "text": text,
                        "type": m.kind,
                        "signature": m.code,
                    }));
                    if !matches.contains(&text) {
                        matches.push(text);
                    }
                }
                CompleteResult {
                    matches,
                    cursor: (start, end),
                    types,
                }
            }
            Err(_) => CompleteResult {
                cursor: (cursor, cursor),
                ..Default::default()
            },
        }
    }

    fn inspect(&mut self, code: &str, cursor: usize) -> Option<(String, String)> {
        if too_hard_to_analyse(code) {
            return None;
        }
        let mut byte = char_to_byte(code, cursor);
        // Extend to the end of the identifier under the cursor.
        while byte < code.len() {
            match code[byte..].chars().next() {
                Some(c) if c.is_alphanumeric() || c == '_' => byte += c.len_utf8(),
                _ => break,
            }
        }
        let (plain, html) = self.ctx.as_mut()?.hover_at(code, byte).ok()?;
        (!plain.trim().is_empty()).then_some((plain, html))
    }
}

/// The longest code (bytes) completions and hovers analyse.
const MAX_ANALYZED_CODE: usize = 1 << 20;
/// The deepest bracket nesting completions and hovers analyse.
const MAX_ANALYZED_DEPTH: usize = 128;

/// Whether rust-analyzer would take too long on `code` for an answer the
/// shell waits for (no other request is answered meanwhile): megabytes of
/// code, or brackets nested deeper than cells a person writes (its time
/// grows steeply with depth: 5,000 `[` took over a minute). Such requests
/// get no matches. Brackets in strings count too; that errs on the safe side.
fn too_hard_to_analyse(code: &str) -> bool {
    if code.len() > MAX_ANALYZED_CODE {
        return true;
    }
    let mut depth = 0usize;
    for b in code.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_ANALYZED_DEPTH {
                    return true;
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The error name of an interrupted cell, as Python's.
const INTERRUPTED: &str = "KeyboardInterrupt";

fn usage_error(msg: String) -> ExecOutcome {
    ExecOutcome {
        result: Err(JupyterError::simple("UsageError", msg)),
        ..Default::default()
    }
}

/// The cell that defines the variables `%save_vars` wrote to `path`.
fn load_vars(path: &str, device: Option<&str>) -> Result<String, String> {
    let host = cuprite::LoadOptions::default().device(Some(cuprite::Device::Cpu));
    let manifest = cuprite::load_npz_member(path, cuprite_kernel_io::vars::MANIFEST, &host)
        .and_then(|a| a.to_vec::<u8>())
        .map_err(|e| format!("%load_vars: {e}"))?;
    let manifest: Value = serde_json::from_slice(&manifest)
        .map_err(|e| format!("%load_vars: {path}: the manifest is not JSON: {e}"))?;
    magics::load_vars_code(path, &manifest, device)
}

fn phases_text(out: &evcxr::EvalOutputs) -> String {
    out.phases
        .iter()
        .map(|p| format!("{} {:.0?}", p.name, p.duration))
        .collect::<Vec<_>>()
        .join(", ")
}

fn compile_cancelled() -> JupyterError {
    JupyterError::simple(
        INTERRUPTED,
        "Compilation was cancelled; the session is unchanged (variables are kept).",
    )
}

fn panic_error(events: &CellEvents, interrupt: Option<Interrupt>) -> JupyterError {
    let p = events.panics.last().cloned().unwrap_or_default();
    if interrupt.is_some() || p.message.ends_with(": interrupted") {
        let mut e = JupyterError::simple(
            INTERRUPTED,
            format!(
                "{} (variables from earlier cells are kept; variables this cell defined are not)",
                if p.message.is_empty() {
                    "the cell was interrupted"
                } else {
                    &p.message
                }
            ),
        );
        e.traceback.push(panic_text(&p));
        return e;
    }
    let mut e = JupyterError::simple("Panic", p.message.clone());
    e.traceback = vec![format!(
        "\x1b[1;31mthread '{}' panicked\x1b[0m at {}:",
        if p.thread.is_empty() {
            "main"
        } else {
            &p.thread
        },
        p.location
    )];
    e.traceback.extend(p.message.lines().map(str::to_string));
    if !p.backtrace.is_empty() {
        e.traceback.extend(p.backtrace.lines().map(str::to_string));
    }
    e.traceback.push(
        "(variables from earlier cells are kept; variables this cell defined are not)".into(),
    );
    e
}

fn user_error(events: &CellEvents, interrupt: Option<Interrupt>) -> JupyterError {
    let msg = events
        .stderr_tail
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("the cell returned an error")
        .to_string();
    let interrupted = interrupt.is_some() || msg.ends_with(": interrupted");
    let ename = if interrupted { INTERRUPTED } else { "Error" };
    JupyterError::simple(ename, msg)
}

/// The last expression's outputs as a Jupyter MIME bundle (always with `text/plain`).
fn bundle(content: std::collections::HashMap<String, String>) -> Option<Map<String, Value>> {
    // Like IPython with None: a unit value shows nothing.
    if content.is_empty()
        || (content.len() == 1 && content.get("text/plain").map(String::as_str) == Some("()"))
    {
        return None;
    }
    let mut data = Map::new();
    for (mime, text) in content {
        let v = if mime.contains("json") {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        } else {
            Value::String(text)
        };
        data.insert(mime, v);
    }
    if !data.contains_key("text/plain") {
        let kinds: Vec<String> = data.keys().cloned().collect();
        data.insert(
            "text/plain".into(),
            Value::String(format!("<{}>", kinds.join(", "))),
        );
    }
    Some(data)
}

fn time_report_text(events: &CellEvents) -> String {
    let start = events.marks.first();
    let end = events.marks.get(1).or(events.complete.as_ref());
    match (start, end) {
        (Some(a), Some(b)) => {
            let d = |x: u128, y: u128| y.saturating_sub(x) as f64 / 1e9;
            let user = d(a.user_ns, b.user_ns);
            let sys = d(a.sys_ns, b.sys_ns);
            format!(
                "CPU times: user {}, sys {}, total {}\nWall time: {}\n",
                format_seconds(user),
                format_seconds(sys),
                format_seconds(user + sys),
                format_seconds(d(a.wall_ns, b.wall_ns))
            )
        }
        _ => "Wall time: not measured (the cell did not reach the timed code)\n".to_string(),
    }
}

/// What a completion inserts: rust-analyzer offers calls with their
/// parameters filled in (`linspace(start, stop, num)`); a frontend would
/// insert those names as code, so only the name is kept (`linspace`,
/// `println!`), as IPython completes function names.
fn insert_text(code: &str) -> &str {
    match code.find('(') {
        Some(i)
            if i > 0
                && code[..i]
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '!' || c == ':') =>
        {
            &code[..i]
        }
        _ => code,
    }
}

fn char_to_byte(s: &str, chars: usize) -> usize {
    s.char_indices()
        .nth(chars)
        .map(|(i, _)| i)
        .unwrap_or(s.len())
}

/// The characters before `byte` (an offset evcxr gave; one inside a
/// character counts that character as after it).
fn byte_to_char(s: &str, byte: usize) -> usize {
    let mut end = byte.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].chars().count()
}

/// Cells are dylibs linked against the toolchain's `libstd-*.so`; the cell
/// process finds it only when the toolchain's target library folder is on
/// the loader path (cargo sets this for processes it runs, a Jupyter server
/// does not). Prepends `$(rustc --print target-libdir)` once, before the cell
/// process starts.
fn add_rust_libs_to_loader_path() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let Ok(out) = std::process::Command::new(rustc)
            .args(["--print", "target-libdir"])
            .output()
        else {
            return;
        };
        if !out.status.success() {
            return;
        }
        let lib = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let mut paths = vec![lib];
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
            paths.extend(std::env::split_paths(&old));
        }
        if let Ok(joined) = std::env::join_paths(paths) {
            // The kernel sets this before any cell process or thread that reads
            // the environment concurrently is started by evcxr.
            std::env::set_var("LD_LIBRARY_PATH", joined);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::side_channel::Times;

    #[test]
    fn completions_insert_names_not_parameters() {
        assert_eq!(insert_text("linspace(start, stop, num)"), "linspace");
        assert_eq!(insert_text("println!(…)"), "println!");
        assert_eq!(insert_text("linspace"), "linspace");
        assert_eq!(insert_text("(a, b)"), "(a, b)");
        assert_eq!(insert_text("f32"), "f32");
    }

    #[test]
    fn offsets_convert() {
        let s = "é = 1; x";
        assert_eq!(char_to_byte(s, 1), 2);
        assert_eq!(byte_to_char(s, 2), 1);
        assert_eq!(char_to_byte(s, 100), s.len());
        // Inside `é`, and past the end.
        assert_eq!(byte_to_char(s, 1), 0);
        assert_eq!(byte_to_char(s, 1000), s.chars().count());
    }

    #[test]
    fn code_too_deep_or_long_is_not_analysed() {
        assert!(!too_hard_to_analyse("let v = cp::lins"));
        assert!(!too_hard_to_analyse(&"[".repeat(MAX_ANALYZED_DEPTH)));
        assert!(too_hard_to_analyse(&"[".repeat(MAX_ANALYZED_DEPTH + 1)));
        assert!(!too_hard_to_analyse(&"[]".repeat(100_000)));
        assert!(too_hard_to_analyse(&"x".repeat(MAX_ANALYZED_CODE + 1)));
    }

    #[test]
    fn bundles_always_have_text() {
        let mut m = std::collections::HashMap::new();
        m.insert("text/html".to_string(), "<b>x</b>".to_string());
        m.insert("application/json".to_string(), "{\"a\": 1}".to_string());
        let b = bundle(m).unwrap();
        assert_eq!(b["text/plain"], "<application/json, text/html>");
        assert_eq!(b["application/json"], json!({"a": 1}));
        assert!(bundle(Default::default()).is_none());
    }

    #[test]
    fn time_reports() {
        let mut e = CellEvents::default();
        e.marks.push(Times {
            wall_ns: 1_000_000_000,
            user_ns: 0,
            sys_ns: 0,
        });
        e.complete = Some(Times {
            wall_ns: 1_012_300_000,
            user_ns: 10_000_000,
            sys_ns: 0,
        });
        assert_eq!(
            time_report_text(&e),
            "CPU times: user 10.0 ms, sys 0.00 ns, total 10.0 ms\nWall time: 12.3 ms\n"
        );
    }

    #[test]
    fn init_code_quotes_paths() {
        let c = init_code(std::path::Path::new("/d/\"q\""));
        assert!(
            c.contains(":dep cuprite-cells = { path = \"/d/\\\"q\\\"/cuprite-cells\" }"),
            "{c}"
        );
        assert!(c.ends_with("\n\"0\".parse::<u8>()?;\ncuprite_kernel_io::__init();"));
    }
}
