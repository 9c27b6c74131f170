//! The Jupyter messaging protocol (5.3) over ZeroMQ: heartbeat, shell,
//! control, stdin and iopub (XPUB with `iopub_welcome`). Messages are signed
//! and verified with HMAC-SHA256 (`jupyter-zmq-client`); a message with a bad
//! signature is logged and dropped. Contents are handled as JSON so that
//! replies match the schemas exactly.

use crate::build_dir;
use crate::history::History;
use crate::is_complete::{self, Completeness};
use crate::locks::Locked;
use crate::paths;
use crate::session::{ExecRequest, InputFn, Session};
use crate::side_channel::{self, SideChannel, Sink};
use anyhow::{bail, Context, Result};
use bytes::Bytes;
use jupyter_protocol::{
    ConnectionInfo, Header, JupyterMessage, JupyterMessageContent, UnknownMessage,
};
use jupyter_zmq_client::{
    create_kernel_control_connection, create_kernel_heartbeat_connection,
    create_kernel_iopub_xpub_connection, create_kernel_shell_connection,
    create_kernel_stdin_connection, Connection, KernelIoPubXPubConnection, RawMessage,
    RuntimeError, SubscriptionEvent,
};
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, Notify};
use zeromq::{SocketRecv, SocketSend};

/// Runs the kernel for a connection file until it is shut down.
pub fn run(connection_file: &Path) -> Result<()> {
    let text = std::fs::read_to_string(connection_file)
        .with_context(|| format!("cannot read connection file {}", connection_file.display()))?;
    let mut info: ConnectionInfo = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a Jupyter connection file",
            connection_file.display()
        )
    })?;
    if !info.key.is_empty() && info.signature_scheme != "hmac-sha256" {
        bail!(
            "signature scheme {:?} is not supported (use hmac-sha256)",
            info.signature_scheme
        );
    }
    if info.ip == "*" {
        info.ip = "0.0.0.0".into();
    }

    // Everything the evcxr session and its cell process read from the
    // environment is set here, before any thread starts (the other ranks of
    // an SPMD kernel, which set this process's rank variables, first).
    let ranks = crate::spmd_kernel::Ranks::from_env().context("starting the SPMD ranks")?;
    let build = build_dir::acquire(
        &paths::cache_dir().join("builds"),
        &build_dir::notebook_key(),
    )?;
    let socket_path = side_channel::socket_path()?;
    let token = uuid::Uuid::new_v4().simple().to_string();
    std::env::set_var("EVCXR_TMPDIR", build.ctx());
    std::env::set_var(cuprite_kernel_io::SOCKET_ENV, &socket_path);
    std::env::set_var(cuprite_kernel_io::TOKEN_ENV, &token);
    std::env::remove_var(cuprite_kernel_io::ACTIVE_ENV);
    std::env::remove_var(cuprite_kernel_io::INTERRUPT_FLAG_ENV);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = rt.block_on(serve(info, &socket_path, token, build.seeder(), ranks));
    let _ = std::fs::remove_file(&socket_path);
    drop(build);
    rt.shutdown_timeout(Duration::from_millis(100));
    result
}

/// A received message: the envelope, and its content as JSON.
struct Msg {
    raw: JupyterMessage,
    content: Value,
}

impl Msg {
    fn msg_type(&self) -> &str {
        &self.raw.header.msg_type
    }
}

/// Builds a message as a child of `parent` with `content` exactly as given.
fn child(parent: Option<&JupyterMessage>, msg_type: &str, content: Value) -> JupyterMessage {
    let mut m = JupyterMessage::new(
        UnknownMessage {
            msg_type: msg_type.to_string(),
            content,
        },
        parent,
    );
    m.header.username = parent
        .map(|p| p.header.username.clone())
        .unwrap_or_else(|| "kernel".into());
    m
}

/// How long a message may wait for a client that reads nothing (zeromq's
/// queue to it full): then it is dropped, as libzmq's ROUTER drops, so that
/// one such client does not stop the channel for every other.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// Sends a message on a ROUTER channel; false (logged) when it could not go
/// (its client is gone, or reads nothing).
async fn send<S: SocketSend>(conn: &mut Connection<S>, channel: &str, m: JupyterMessage) -> bool {
    match tokio::time::timeout(SEND_TIMEOUT, conn.send(m)).await {
        Ok(Ok(())) => true,
        Ok(Err(e)) => {
            eprintln!("cuprite-kernel: {channel}: send failed: {e}");
            false
        }
        Err(_) => {
            eprintln!("cuprite-kernel: {channel}: dropped a message its client did not take within {SEND_TIMEOUT:?}");
            false
        }
    }
}

/// Reads the next verified message; None when the socket is gone.
async fn read_msg<S: SocketRecv>(conn: &mut Connection<S>, channel: &str) -> Option<Msg> {
    loop {
        let zmsg = match conn.socket.recv().await {
            Ok(m) => m,
            Err(zeromq::ZmqError::NoMessage) => return None,
            Err(e) => {
                eprintln!("cuprite-kernel: {channel}: receive failed: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let raw = match RawMessage::from_multipart(zmsg, &conn.mac) {
            Ok(r) => r,
            Err(
                RuntimeError::VerifyError(_)
                | RuntimeError::DecodeError(_)
                | RuntimeError::MissingHmac,
            ) => {
                eprintln!("cuprite-kernel: {channel}: dropped a message with a bad signature");
                continue;
            }
            Err(e) => {
                eprintln!("cuprite-kernel: {channel}: dropped a malformed message: {e}");
                continue;
            }
        };
        match parse(raw) {
            Ok(m) => return Some(m),
            Err(e) => eprintln!("cuprite-kernel: {channel}: dropped a message: {e}"),
        }
    }
}

fn parse(raw: RawMessage) -> Result<Msg> {
    let [header, parent_header, metadata, content, buffers @ ..] = &raw.jparts[..] else {
        bail!("{} of the 4 message frames", raw.jparts.len());
    };
    let header: Header = serde_json::from_slice(header).context("bad header")?;
    // A parent or metadata that is not a JSON object is taken as absent.
    let parent_header: Option<Header> = serde_json::from_slice(parent_header).ok();
    let metadata = match serde_json::from_slice::<Value>(metadata) {
        Ok(m @ Value::Object(_)) => m,
        _ => json!({}),
    };
    let content: Value = serde_json::from_slice(content).context("bad content")?;
    let content = if content.is_object() {
        content
    } else {
        json!({})
    };
    let raw = JupyterMessage {
        zmq_identities: raw.zmq_identities,
        content: JupyterMessageContent::UnknownMessage(UnknownMessage {
            msg_type: header.msg_type.clone(),
            content: content.clone(),
        }),
        header,
        parent_header,
        metadata,
        buffers: buffers.to_vec(),
        channel: None,
    };
    Ok(Msg { raw, content })
}

/// The iopub publisher shared by every part of the kernel.
pub struct Outputs {
    tx: mpsc::UnboundedSender<JupyterMessage>,
    /// The execute request outputs belong to (also for output after it finished).
    parent: Mutex<Option<JupyterMessage>>,
    topic: String,
    /// What a cell published, kept to compare with the other ranks' (SPMD).
    capture: Mutex<Option<Vec<(String, Value)>>>,
}

impl Outputs {
    fn send(&self, parent: Option<&JupyterMessage>, msg_type: &str, content: Value) {
        let mut m = child(parent, msg_type, content);
        m.zmq_identities = vec![Bytes::from(format!("{}.{msg_type}", self.topic))];
        let _ = self.tx.send(m);
    }

    fn status(&self, parent: &JupyterMessage, state: &str) {
        self.send(Some(parent), "status", json!({"execution_state": state}));
    }
}

impl Sink for Outputs {
    fn publish(&self, msg_type: &str, content: Value) {
        if let Some(kept) = self.capture.locked().as_mut() {
            kept.push((msg_type.to_string(), content.clone()));
        }
        let parent = self.parent.locked().clone();
        self.send(parent.as_ref(), msg_type, content);
    }

    fn publish_with_metadata(&self, msg_type: &str, content: Value, metadata: Value) {
        let parent = self.parent.locked().clone();
        let mut m = child(parent.as_ref(), msg_type, content);
        m.metadata = metadata;
        m.zmq_identities = vec![Bytes::from(format!("{}.{msg_type}", self.topic))];
        let _ = self.tx.send(m);
    }
}

struct StdinRequest {
    prompt: String,
    password: bool,
    parent: JupyterMessage,
    reply: std::sync::mpsc::Sender<String>,
}

struct Kernel {
    out: Arc<Outputs>,
    session: Session,
    history: Mutex<History>,
    count: AtomicU32,
    shutdown: Notify,
    usage: crate::usage::Usage,
    debugger: crate::debugger::Debugger,
    /// The other ranks of an SPMD kernel.
    ranks: Option<Arc<crate::spmd_kernel::Ranks>>,
    spmd_cells: std::sync::atomic::AtomicU64,
}

async fn serve(
    info: ConnectionInfo,
    socket_path: &Path,
    token: String,
    seeder: build_dir::Seeder,
    ranks: Option<Arc<crate::spmd_kernel::Ranks>>,
) -> Result<()> {
    let session_id = uuid::Uuid::new_v4().to_string();
    let mut shell = create_kernel_shell_connection(&info, &session_id)
        .await
        .context("cannot bind the shell socket")?;
    let control = create_kernel_control_connection(&info, &session_id)
        .await
        .context("cannot bind the control socket")?;
    let stdin = create_kernel_stdin_connection(&info, &session_id)
        .await
        .context("cannot bind the stdin socket")?;
    let iopub = create_kernel_iopub_xpub_connection(&info, &session_id)
        .await
        .context("cannot bind the iopub socket")?;
    let mut hb = create_kernel_heartbeat_connection(&info)
        .await
        .context("cannot bind the heartbeat socket")?;

    let (iopub_tx, iopub_rx) = mpsc::unbounded_channel();
    tokio::spawn(iopub_task(iopub, iopub_rx));
    tokio::spawn(async move {
        loop {
            match hb.socket.recv().await {
                Ok(m) => {
                    // A pinger that reads nothing must not stop the others' pongs.
                    let sent = tokio::time::timeout(SEND_TIMEOUT, hb.socket.send(m)).await;
                    if !matches!(sent, Ok(Ok(()))) {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
                Err(zeromq::ZmqError::NoMessage) => return,
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
    });

    let out = Arc::new(Outputs {
        tx: iopub_tx,
        parent: Mutex::new(None),
        topic: format!("kernel.{}", &session_id[..8]),
        capture: Mutex::new(None),
    });
    let side = SideChannel::listen(socket_path, token, out.clone())
        .with_context(|| format!("cannot listen on {}", socket_path.display()))?;

    let (stdin_tx, stdin_rx) = mpsc::unbounded_channel::<StdinRequest>();
    tokio::spawn(stdin_task(stdin, stdin_rx));
    let out2 = out.clone();
    let input: InputFn = Arc::new(move |prompt: &str, password: bool| {
        let parent = out2.parent.locked().clone()?;
        let (tx, rx) = std::sync::mpsc::channel();
        stdin_tx
            .send(StdinRequest {
                prompt: prompt.to_string(),
                password,
                parent,
                reply: tx,
            })
            .ok()?;
        rx.recv().ok()
    });
    let session = Session::start(side, out.clone(), input, seeder)
        .context("cannot start the session thread")?;

    let history_path = (std::env::var_os("CUPRITE_KERNEL_NO_HISTORY").is_none())
        .then(|| paths::data_dir().join("history.jsonl"));
    let kernel = Arc::new(Kernel {
        out,
        session,
        history: Mutex::new(History::load(history_path)),
        count: AtomicU32::new(0),
        shutdown: Notify::new(),
        usage: Default::default(),
        debugger: Default::default(),
        ranks,
        spmd_cells: Default::default(),
    });

    tokio::spawn(control_loop(kernel.clone(), control));
    let k = kernel.clone();
    tokio::spawn(async move {
        let mut backlog: VecDeque<Msg> = VecDeque::new();
        loop {
            let msg = match backlog.pop_front() {
                Some(m) => m,
                None => match read_msg(&mut shell, "shell").await {
                    Some(m) => m,
                    None => break,
                },
            };
            let (failed, replied_at) = k.handle_shell(&mut shell, &msg).await;
            if failed && msg.content["stop_on_error"].as_bool().unwrap_or(true) {
                // Abort the execute requests sent before the client could see the
                // error (as ipykernel does, by their dates); keep everything else.
                while let Ok(Some(next)) =
                    tokio::time::timeout(Duration::from_millis(50), read_msg(&mut shell, "shell"))
                        .await
                {
                    backlog.push_back(next);
                }
                let queued = std::mem::take(&mut backlog);
                for next in queued {
                    if next.msg_type() == "execute_request" && next.raw.header.date < replied_at {
                        k.abort(&mut shell, &next).await;
                    } else {
                        backlog.push_back(next);
                    }
                }
            }
        }
    });

    // Exit with the process that started us (as ipykernel does), so a kernel
    // whose Jupyter died does not live on.
    // SAFETY: getppid has no preconditions.
    let start_ppid = unsafe { libc::getppid() };
    let jpy_parent: Option<i32> = std::env::var("JPY_PARENT_PID")
        .ok()
        .and_then(|p| p.parse().ok())
        .filter(|&p| p > 1);
    let mut parent_check = tokio::time::interval(Duration::from_secs(2));
    let mut sigterm = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut sigint = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())?;
    crate::lifeline::start();
    // A shutdown request or SIGTERM ends the kernel cleanly; a vanished
    // parent leaves its record for the notebook's next kernel.
    let mut clean = true;
    loop {
        tokio::select! {
            _ = kernel.shutdown.notified() => break,
            _ = sigterm.recv() => break,
            // With interrupt_mode "signal" (or Ctrl-C in a terminal), SIGINT interrupts.
            _ = sigint.recv() => {
                kernel.session.interrupt();
                if let Some(r) = &kernel.ranks {
                    r.interrupt();
                }
            }
            _ = parent_check.tick() => {
                // SAFETY: getppid and kill(pid, 0) have no side effects.
                let orphaned = unsafe { libc::getppid() } != start_ppid
                    || jpy_parent.is_some_and(|p| unsafe { libc::kill(p, 0) } != 0
                        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH));
                if orphaned {
                    eprintln!("cuprite-kernel: the process that started the kernel is gone; shutting down");
                    clean = false;
                    break;
                }
            }
        }
    }
    if clean {
        crate::lifeline::finish();
    }
    kernel.session.kill();
    // Let the shutdown reply and the last status messages go out.
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(())
}

async fn iopub_task(
    mut iopub: KernelIoPubXPubConnection,
    mut rx: mpsc::UnboundedReceiver<JupyterMessage>,
) {
    loop {
        tokio::select! {
            m = rx.recv() => match m {
                Some(m) => {
                    if let Err(e) = iopub.send(m).await {
                        eprintln!("cuprite-kernel: iopub: send failed: {e}");
                    }
                }
                None => return,
            },
            s = iopub.recv_subscription() => {
                if let Ok(SubscriptionEvent::Subscribe(topic)) = s {
                    let mut welcome = child(None, "iopub_welcome", json!({"subscription": topic}));
                    if !topic.is_empty() {
                        welcome.zmq_identities = vec![Bytes::from(topic.clone())];
                    }
                    if let Err(e) = iopub.send(welcome).await {
                        eprintln!("cuprite-kernel: iopub: welcome failed: {e}");
                    }
                }
            }
        }
    }
}

async fn stdin_task(
    mut stdin: jupyter_zmq_client::KernelStdinConnection,
    mut rx: mpsc::UnboundedReceiver<StdinRequest>,
) {
    while let Some(req) = rx.recv().await {
        // What arrived while no input was asked for answers nothing (as
        // ipykernel, which empties the socket first): a stale or forged
        // input_reply would otherwise answer this request.
        while let Ok(Some(stale)) =
            tokio::time::timeout(Duration::from_millis(1), read_msg(&mut stdin, "stdin")).await
        {
            eprintln!(
                "cuprite-kernel: stdin: dropped a {} sent before input was asked for",
                stale.msg_type()
            );
        }
        let m = child(
            Some(&req.parent),
            "input_request",
            json!({"prompt": req.prompt, "password": req.password}),
        );
        if !send(&mut stdin, "stdin", m).await {
            let _ = req.reply.send(String::new());
            continue;
        }
        loop {
            match read_msg(&mut stdin, "stdin").await {
                Some(r) if r.msg_type() == "input_reply" => {
                    let _ = req
                        .reply
                        .send(r.content["value"].as_str().unwrap_or("").to_string());
                    break;
                }
                Some(_) => continue,
                None => return,
            }
        }
    }
}

async fn control_loop(k: Arc<Kernel>, mut control: jupyter_zmq_client::KernelControlConnection) {
    // Debug requests that read variables wait for the running cell; they are
    // answered from a task of their own, so that an interrupt_request behind
    // them still stops that cell. Their replies come back here to be sent.
    let (answered_tx, mut answered) = mpsc::unbounded_channel::<(JupyterMessage, JupyterMessage)>();
    loop {
        let msg = tokio::select! {
            msg = read_msg(&mut control, "control") => match msg {
                Some(msg) => msg,
                None => break,
            },
            Some((reply, parent)) = answered.recv() => {
                send(&mut control, "control", reply).await;
                k.out.status(&parent, "idle");
                continue;
            }
        };
        k.out.status(&msg.raw, "busy");
        if msg.msg_type() == "debug_request" {
            let (k, answered_tx) = (k.clone(), answered_tx.clone());
            tokio::spawn(async move {
                let answer = k.debugger.handle(&k.session, &msg.content).await;
                for event in answer.events {
                    k.out.send(Some(&msg.raw), "debug_event", event);
                }
                let reply = child(Some(&msg.raw), "debug_reply", answer.reply);
                let _ = answered_tx.send((reply, msg.raw));
            });
            continue;
        }
        let mut stop = false;
        let reply = match msg.msg_type() {
            "kernel_info_request" => {
                Some(child(Some(&msg.raw), "kernel_info_reply", kernel_info()))
            }
            "usage_request" => Some(child(
                Some(&msg.raw),
                "usage_reply",
                k.usage.reply(k.session.cell_pid(), k.session.gpu_pools()),
            )),
            "interrupt_request" => {
                k.session.interrupt();
                if let Some(r) = &k.ranks {
                    r.interrupt();
                }
                Some(child(
                    Some(&msg.raw),
                    "interrupt_reply",
                    json!({"status": "ok"}),
                ))
            }
            "shutdown_request" => {
                stop = true;
                let restart = msg.content["restart"].as_bool().unwrap_or(false);
                Some(child(
                    Some(&msg.raw),
                    "shutdown_reply",
                    json!({"status": "ok", "restart": restart}),
                ))
            }
            other => unknown_reply(&msg, other),
        };
        if let Some(r) = reply {
            send(&mut control, "control", r).await;
        }
        k.out.status(&msg.raw, "idle");
        if stop {
            k.shutdown.notify_one();
        }
    }
}

/// The code of a complete or inspect request and its cursor (characters),
/// within the code: a cursor that is absent, negative, fractional or past
/// the end is the end (as a front end that sends none means).
fn code_and_cursor(content: &Value) -> (String, usize) {
    let code = content["code"].as_str().unwrap_or("").to_string();
    let chars = code.chars().count();
    let cursor = content["cursor_pos"]
        .as_u64()
        .and_then(|c| usize::try_from(c).ok())
        .map_or(chars, |c| c.min(chars));
    (code, cursor)
}

/// An error reply for a request type the kernel does not handle; None for non-requests.
fn unknown_reply(msg: &Msg, msg_type: &str) -> Option<JupyterMessage> {
    let Some(stem) = msg_type.strip_suffix("_request") else {
        eprintln!("cuprite-kernel: ignored a {msg_type} message");
        return None;
    };
    Some(child(
        Some(&msg.raw),
        &format!("{stem}_reply"),
        json!({
            "status": "error",
            "ename": "UnknownMessageType",
            "evalue": format!("cuprite-kernel does not handle {msg_type}"),
            "traceback": [],
        }),
    ))
}

/// The `kernel_info_reply` content.
fn kernel_info() -> Value {
    let rustc = crate::sources::BUILD_RUSTC;
    let rust_version = rustc.split_whitespace().nth(1).unwrap_or("").to_string();
    json!({
        "status": "ok",
        "protocol_version": "5.5",
        // Optional features (JEP 92): the debugger's Variables panel (see debugger.rs).
        "supported_features": ["debugger"],
        "implementation": "cuprite-kernel",
        "implementation_version": env!("CARGO_PKG_VERSION"),
        "language_info": {
            "name": "rust",
            "version": rust_version,
            "mimetype": "text/rust",
            "file_extension": ".rs",
            "pygments_lexer": "rust",
            "codemirror_mode": "rust",
            // No `nbconvert_exporter`: nbconvert has no "rust" exporter, and
            // without the key `--to script` writes a `.rs` file.
        },
        "banner": format!(
            "Cuprite kernel {} (evcxr {}, {}): Rust cells with `use cuprite as cp; use cuprite::prelude::*;` in scope. %lsmagic lists the magics.",
            env!("CARGO_PKG_VERSION"),
            crate::sources::EVCXR_VERSION,
            rustc
        ),
        "help_links": [
            {"text": "Cuprite", "url": "https://github.com/cuprite-rs/cuprite"},
            {"text": "evcxr commands", "url": "https://github.com/evcxr/evcxr/blob/main/COMMON.md"},
            {"text": "Rust standard library", "url": "https://doc.rust-lang.org/std/"},
        ],
        "debugger": true,
    })
}

impl Kernel {
    /// Answers an execute request that is not run because an earlier cell failed.
    async fn abort(&self, shell: &mut jupyter_zmq_client::KernelShellConnection, msg: &Msg) {
        self.out.status(&msg.raw, "busy");
        let reply = child(
            Some(&msg.raw),
            "execute_reply",
            json!({
                "status": "aborted",
                "execution_count": self.count.load(Ordering::SeqCst),
                "ename": "ExecutionAborted",
                "evalue": "not run: an earlier cell failed",
                "traceback": [],
                "user_expressions": {},
                "payload": [],
            }),
        );
        send(shell, "shell", reply).await;
        self.out.status(&msg.raw, "idle");
    }

    /// Handles one shell request (busy, reply, idle); returns whether an execute
    /// failed and when the reply was sent.
    async fn handle_shell(
        &self,
        shell: &mut jupyter_zmq_client::KernelShellConnection,
        msg: &Msg,
    ) -> (bool, chrono::DateTime<chrono::Utc>) {
        self.out.status(&msg.raw, "busy");
        let mut failed = false;
        let reply = match msg.msg_type() {
            "kernel_info_request" => {
                Some(child(Some(&msg.raw), "kernel_info_reply", kernel_info()))
            }
            "execute_request" => {
                let (reply, ok) = self.execute(msg).await;
                failed = !ok;
                Some(reply)
            }
            "complete_request" => {
                let (code, cursor) = code_and_cursor(&msg.content);
                let r = self.session.complete(code, cursor).await;
                Some(child(
                    Some(&msg.raw),
                    "complete_reply",
                    json!({
                        "status": "ok",
                        "matches": r.matches,
                        "cursor_start": r.cursor.0,
                        "cursor_end": r.cursor.1,
                        "metadata": {"_jupyter_types_experimental": r.types},
                    }),
                ))
            }
            "inspect_request" => {
                let (code, cursor) = code_and_cursor(&msg.content);
                let found = self.session.inspect(code, cursor).await;
                let content = match found {
                    Some((plain, html)) => {
                        let mut data = json!({"text/plain": plain});
                        if !html.trim().is_empty() {
                            data["text/html"] = json!(html);
                        }
                        json!({"status": "ok", "found": true, "data": data, "metadata": {}})
                    }
                    None => json!({"status": "ok", "found": false, "data": {}, "metadata": {}}),
                };
                Some(child(Some(&msg.raw), "inspect_reply", content))
            }
            "is_complete_request" => {
                let code = msg.content["code"].as_str().unwrap_or("");
                let content = match is_complete::check(code) {
                    Completeness::Complete => json!({"status": "complete"}),
                    Completeness::Incomplete(indent) => {
                        json!({"status": "incomplete", "indent": indent})
                    }
                    Completeness::Invalid => json!({"status": "invalid"}),
                };
                Some(child(Some(&msg.raw), "is_complete_reply", content))
            }
            "history_request" => {
                let history = self.history.locked().query(&msg.content);
                Some(child(
                    Some(&msg.raw),
                    "history_reply",
                    json!({"status": "ok", "history": history}),
                ))
            }
            "comm_info_request" => {
                let target = msg.content["target_name"].as_str();
                let comms: serde_json::Map<String, Value> = self
                    .session
                    .comms(target)
                    .into_iter()
                    .map(|(id, target)| (id, json!({"target_name": target})))
                    .collect();
                Some(child(
                    Some(&msg.raw),
                    "comm_info_reply",
                    json!({"status": "ok", "comms": comms}),
                ))
            }
            "comm_open" => {
                // Widgets are opened by cells, not by the front end (the
                // `jupyter.widget.control` comm of a reloaded page falls back
                // to comm_info and `request_state` when closed): close it.
                let id = msg.content["comm_id"].clone();
                self.out.send(
                    Some(&msg.raw),
                    "comm_close",
                    json!({"comm_id": id, "data": {}}),
                );
                None
            }
            "comm_msg" | "comm_close" => {
                // Outputs of the callbacks (widget updates) are children of this message.
                *self.out.parent.locked() = Some(msg.raw.clone());
                let id = msg.content["comm_id"].as_str().unwrap_or("").to_string();
                let data = msg.content["data"].clone();
                let method = if msg.msg_type() == "comm_msg" {
                    "msg"
                } else {
                    "close"
                };
                let session = self.session.clone();
                let _ = tokio::task::spawn_blocking(move || session.comm(&id, method, &data)).await;
                None
            }
            "shutdown_request" => {
                let restart = msg.content["restart"].as_bool().unwrap_or(false);
                self.shutdown.notify_one();
                Some(child(
                    Some(&msg.raw),
                    "shutdown_reply",
                    json!({"status": "ok", "restart": restart}),
                ))
            }
            other => unknown_reply(msg, other),
        };
        let replied_at = chrono::Utc::now();
        if let Some(r) = reply {
            send(shell, "shell", r).await;
        }
        self.out.status(&msg.raw, "idle");
        (failed, replied_at)
    }

    /// Runs an execute request; returns the reply and whether it succeeded.
    async fn execute(&self, msg: &Msg) -> (JupyterMessage, bool) {
        let c = &msg.content;
        let code = c["code"].as_str().unwrap_or("").to_string();
        let silent = c["silent"].as_bool().unwrap_or(false);
        let store = c["store_history"].as_bool().unwrap_or(true) && !silent;
        let allow_stdin = c["allow_stdin"].as_bool().unwrap_or(false);
        let count = if store {
            self.count.fetch_add(1, Ordering::SeqCst) + 1
        } else {
            self.count.load(Ordering::SeqCst)
        };
        if !silent {
            self.out.send(
                Some(&msg.raw),
                "execute_input",
                json!({"code": code, "execution_count": count}),
            );
        }
        *self.out.parent.locked() = Some(msg.raw.clone());
        if let Some(note) = crate::lifeline::take_note() {
            self.out.send(
                Some(&msg.raw),
                "stream",
                json!({"name": "stderr", "text": note}),
            );
        }

        let outcome = match &self.ranks {
            None => {
                self.session
                    .execute(ExecRequest {
                        code: code.clone(),
                        allow_stdin,
                    })
                    .await
            }
            Some(ranks) => {
                self.execute_on_ranks(ranks.clone(), &code, allow_stdin)
                    .await
            }
        };

        if !outcome.stderr_after.is_empty() {
            self.out.send(
                Some(&msg.raw),
                "stream",
                json!({"name": "stderr", "text": outcome.stderr_after}),
            );
        }
        if !outcome.stdout_after.is_empty() {
            self.out.send(
                Some(&msg.raw),
                "stream",
                json!({"name": "stdout", "text": outcome.stdout_after}),
            );
        }
        let user_expressions = user_expressions(c);
        match outcome.result {
            Ok(data) => {
                let text = data
                    .as_ref()
                    .and_then(|d| d.get("text/plain"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                if let Some(data) = data {
                    if !silent {
                        self.out.send(
                            Some(&msg.raw),
                            "execute_result",
                            json!({"execution_count": count, "data": data, "metadata": {}, "transient": {}}),
                        );
                    }
                }
                if store {
                    self.history.locked().add(count, &code, text);
                }
                let reply = child(
                    Some(&msg.raw),
                    "execute_reply",
                    json!({
                        "status": "ok",
                        "execution_count": count,
                        "payload": outcome.payload,
                        "user_expressions": user_expressions,
                    }),
                );
                (reply, true)
            }
            Err(e) => {
                self.out.send(
                    Some(&msg.raw),
                    "error",
                    json!({"ename": e.ename, "evalue": e.evalue, "traceback": e.traceback}),
                );
                if store {
                    self.history.locked().add(count, &code, None);
                }
                let reply = child(
                    Some(&msg.raw),
                    "execute_reply",
                    json!({
                        "status": "error",
                        "execution_count": count,
                        "ename": e.ename,
                        "evalue": e.evalue,
                        "traceback": e.traceback,
                        "payload": [],
                        "user_expressions": user_expressions,
                    }),
                );
                (reply, false)
            }
        }
    }
}

impl Kernel {
    /// Runs a cell on every rank of an SPMD kernel (or those `%%rank`
    /// names): rank 0 here, publishing as usual; then the other ranks'
    /// output that differs from rank 0's, or is an error, tagged with the
    /// rank. The outcome is an error when any rank failed.
    async fn execute_on_ranks(
        &self,
        ranks: Arc<crate::spmd_kernel::Ranks>,
        code: &str,
        allow_stdin: bool,
    ) -> crate::session::ExecOutcome {
        use crate::spmd_kernel::{digest, tagged, targets};
        let (targets, code) = match targets(code, ranks.world()) {
            Ok(t) => t,
            Err(msg) => {
                return crate::session::ExecOutcome {
                    result: Err(crate::errors::JupyterError::simple("UsageError", msg)),
                    ..Default::default()
                }
            }
        };
        let cell = self.spmd_cells.fetch_add(1, Ordering::SeqCst) + 1;
        ranks.start_cell(cell, &code, &targets);
        *self.out.capture.locked() = Some(Vec::new());
        let mut outcome = if targets.contains(&0) {
            self.session
                .execute(ExecRequest { code, allow_stdin })
                .await
        } else {
            crate::session::ExecOutcome::default()
        };
        let mut mine = self.out.capture.locked().take().unwrap_or_default();
        for (name, text) in [
            ("stderr", &outcome.stderr_after),
            ("stdout", &outcome.stdout_after),
        ] {
            if !text.is_empty() {
                mine.push(("stream".into(), json!({"name": name, "text": text})));
            }
        }
        if let Ok(Some(data)) = &outcome.result {
            mine.push(("execute_result".into(), json!({"data": data})));
        }
        let mine = digest(&mine);
        let waiting = ranks.clone();
        let wanted = targets.clone();
        let reports = tokio::task::spawn_blocking(move || waiting.wait_cell(cell, &wanted))
            .await
            .unwrap_or_default();
        let mut failed = Vec::new();
        for (rank, report) in &reports {
            for (name, text) in tagged(*rank, report, &mine) {
                self.out
                    .publish("stream", json!({"name": name, "text": text}));
            }
            if let Some(why) = &report.lost {
                failed.push(format!("rank {rank} lost ({why})"));
            } else if let Some((ename, evalue)) = &report.error {
                failed.push(format!("rank {rank}: {ename}: {evalue}"));
            }
        }
        if !failed.is_empty() {
            let alive: Vec<String> = ranks.alive().iter().map(|r| r.to_string()).collect();
            let mut msg = format!("the cell failed on {}", failed.join("; "));
            if reports.values().any(|r| r.lost.is_some()) {
                msg.push_str(&format!(" (ranks left: {})", alive.join(", ")));
            }
            if outcome.result.is_ok() {
                outcome.result = Err(crate::errors::JupyterError::simple("RankError", msg));
            }
        }
        outcome
    }
}

/// `user_expressions` are not evaluated (each would be a compile): each gets an error entry.
fn user_expressions(content: &Value) -> Value {
    let mut out = serde_json::Map::new();
    if let Some(exprs) = content["user_expressions"].as_object() {
        for name in exprs.keys() {
            out.insert(
                name.clone(),
                json!({
                    "status": "error",
                    "ename": "NotSupported",
                    "evalue": "cuprite-kernel does not evaluate user_expressions",
                    "traceback": [],
                }),
            );
        }
    }
    Value::Object(out)
}
