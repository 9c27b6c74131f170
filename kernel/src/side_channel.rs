//! The kernel's end of the side channel from the cell process: a Unix socket
//! that `cuprite-kernel-io` connects to (see `kernel/io`). It carries the cell's
//! stdout and stderr as they are written, display messages, panics and events;
//! the kernel uses it to flush the cell's output before it says idle.

use crate::locks::{Locked, Waits};
use cuprite_kernel_io::wire::{command, kind};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Where published outputs go (the kernel's iopub, with the current cell as parent).
pub trait Sink: Send + Sync {
    /// Publishes one iopub message.
    fn publish(&self, msg_type: &str, content: Value);

    /// Publishes one iopub message with the message's own `metadata` (a
    /// widget's comm_open carries the protocol version there).
    fn publish_with_metadata(&self, msg_type: &str, content: Value, metadata: Value) {
        let _ = metadata;
        self.publish(msg_type, content);
    }
}

/// A panic reported by the cell process.
#[derive(Debug, Clone, Default)]
pub struct PanicInfo {
    pub message: String,
    pub location: String,
    pub thread: String,
    pub backtrace: String,
}

/// Process times reported by the cell process (nanoseconds).
#[derive(Debug, Clone, Copy, Default)]
pub struct Times {
    pub wall_ns: u128,
    pub user_ns: u128,
    pub sys_ns: u128,
}

/// What happened in the cell process during one cell.
#[derive(Debug, Clone, Default)]
pub struct CellEvents {
    /// evcxr caught a panic of the cell's main thread.
    pub panicked: bool,
    /// A `?` returned an error.
    pub user_error: bool,
    /// Panics of the cell's main thread (background threads' go to stderr at once).
    pub panics: Vec<PanicInfo>,
    /// `%time` marks.
    pub marks: Vec<Times>,
    /// When the cell finished running.
    pub complete: Option<Times>,
    /// The end of the cell's stderr (for the message of a `?` error).
    pub stderr_tail: String,
    /// The cell's value was an error (`Err(e)` of a `cuprite::Result`): its
    /// name and message; the cell fails with it.
    pub value_error: Option<(String, String)>,
}

struct State {
    writer: Option<UnixStream>,
    conn: u64,
    child_pid: Option<u32>,
    synced: u64,
    next_seq: u64,
    cell: CellEvents,
    /// The GPU memory pools the cell process reported at the end of its last
    /// cell, and when.
    gpu_pools: Option<(Instant, Value)>,
    /// Comms the cell process opened (widget models): id to target name.
    comms: HashMap<String, String>,
    /// The last comm message sent to the cell process, and the last it handled.
    comm_sent: u64,
    comm_done: u64,
}

struct Shared {
    state: Mutex<State>,
    cond: Condvar,
    sink: Arc<dyn Sink>,
    token: String,
}

/// The listening side channel.
#[derive(Clone)]
pub struct SideChannel {
    shared: Arc<Shared>,
}

/// How long stream text is gathered before it is published.
const COALESCE: Duration = Duration::from_millis(20);
/// Stream text published at most in pieces this large.
const MAX_CHUNK: usize = 256 * 1024;

impl SideChannel {
    /// Listens at `path` (its directory must exist and be private); outputs go to `sink`.
    pub fn listen(path: &Path, token: String, sink: Arc<dyn Sink>) -> std::io::Result<SideChannel> {
        let _ = std::fs::remove_file(path);
        let listener = UnixListener::bind(path)?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                writer: None,
                conn: 0,
                child_pid: None,
                synced: 0,
                next_seq: 1,
                cell: CellEvents::default(),
                gpu_pools: None,
                comms: HashMap::new(),
                comm_sent: 0,
                comm_done: 0,
            }),
            cond: Condvar::new(),
            sink,
            token,
        });
        let sh = shared.clone();
        std::thread::Builder::new()
            .name("side-channel".into())
            .spawn(move || {
                for (n, stream) in listener.incoming().enumerate() {
                    let Ok(stream) = stream else { continue };
                    let sh = sh.clone();
                    let _ = std::thread::Builder::new()
                        .name(format!("side-channel-{n}"))
                        .spawn(move || Reader::new(sh, stream, n as u64 + 1).run());
                }
            })?;
        Ok(SideChannel { shared })
    }

    /// The connected cell process's pid.
    #[cfg(test)]
    pub fn child_pid(&self) -> Option<u32> {
        let st = self.shared.state.locked();
        st.writer.as_ref().and(st.child_pid)
    }

    /// Waits until a cell process (other than `not_pid`) is connected.
    pub fn wait_connected(&self, not_pid: Option<u32>, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.state.locked();
        loop {
            if st.writer.is_some() && (not_pid.is_none() || st.child_pid != not_pid) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            st = self.shared.cond.wait_on_for(st, deadline - now).0;
        }
    }

    /// A new cell starts: forget the last one's events and clear the interrupt flag.
    pub fn begin_cell(&self) {
        let mut st = self.shared.state.locked();
        st.cell = CellEvents::default();
        if let Some(w) = st.writer.as_mut() {
            let _ = w.write_all(&[command::CLEAR_INTERRUPT, b'\n']);
        }
    }

    /// The GPU memory pools as of the end of the last cell (device, used,
    /// reserved and total bytes) and how long ago that was.
    pub fn gpu_pools(&self) -> Option<(Duration, Value)> {
        let st = self.shared.state.locked();
        st.gpu_pools
            .as_ref()
            .map(|(at, v)| (at.elapsed(), v.clone()))
    }

    /// Sends one command line to the cell process and waits until it has
    /// handled it (the flush that follows is answered after it). False when
    /// no cell process is connected or none answers in time.
    pub fn command(&self, line: &[u8], timeout: Duration) -> bool {
        {
            let mut st = self.shared.state.locked();
            let Some(w) = st.writer.as_mut() else {
                return false;
            };
            let mut bytes = line.to_vec();
            bytes.push(b'\n');
            if w.write_all(&bytes).is_err() {
                return false;
            }
        }
        self.flush(timeout)
    }

    /// The comms the cell process has open, with their targets (only those of
    /// `target` when given).
    pub fn comms(&self, target: Option<&str>) -> Vec<(String, String)> {
        let st = self.shared.state.locked();
        let mut v: Vec<(String, String)> = st
            .comms
            .iter()
            .filter(|(_, t)| target.is_none_or(|want| want == t.as_str()))
            .map(|(id, t)| (id.clone(), t.clone()))
            .collect();
        v.sort();
        v
    }

    /// Hands a front end's comm message (`method` "msg" or "close") to the cell
    /// process and waits until its callbacks ran. False when the comm is not
    /// one of the cell process's, or nothing answers in time.
    pub fn comm(&self, comm_id: &str, method: &str, data: &Value, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.state.locked();
        if !st.comms.contains_key(comm_id) {
            return false;
        }
        if method == "close" {
            st.comms.remove(comm_id);
        }
        st.comm_sent += 1;
        let seq = st.comm_sent;
        let message = json!({"comm_id": comm_id, "method": method, "data": data});
        let line = format!(
            "{}{seq}:{}\n",
            command::COMM as char,
            cuprite_kernel_io::wire::to_hex(message.to_string().as_bytes())
        );
        let conn = st.conn;
        let sent = st
            .writer
            .as_mut()
            .is_some_and(|w| w.write_all(line.as_bytes()).is_ok());
        if !sent {
            return false;
        }
        loop {
            if st.comm_done >= seq {
                return true;
            }
            let now = Instant::now();
            if now >= deadline || st.conn != conn || st.writer.is_none() {
                return false;
            }
            st = self.shared.cond.wait_on_for(st, deadline - now).0;
        }
    }

    /// Flushes everything the cell process printed so far through to the sink,
    /// then returns the cell's events.
    pub fn finish_cell(&self, timeout: Duration) -> CellEvents {
        self.flush(timeout);
        std::mem::take(&mut self.shared.state.locked().cell)
    }

    /// Asks the cell process to flush its output and waits until all of it has
    /// been published. False when no cell process answers in time.
    pub fn flush(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = self.shared.state.locked();
        let conn = st.conn;
        let seq = st.next_seq;
        st.next_seq += 1;
        match st.writer.as_mut() {
            Some(w) => {
                if w.write_all(format!("{}{seq}\n", command::FLUSH as char).as_bytes())
                    .is_err()
                {
                    return false;
                }
            }
            None => return false,
        }
        loop {
            if st.synced >= seq {
                return true;
            }
            if st.conn != conn || st.writer.is_none() {
                return false;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            st = self.shared.cond.wait_on_for(st, deadline - now).0;
        }
    }
}

/// Reads one connection.
struct Reader {
    sh: Arc<Shared>,
    stream: UnixStream,
    conn: u64,
    buf: Vec<u8>,
    /// Stream text waiting to be published: (name, text, since).
    pending: Option<(&'static str, String, Instant)>,
    /// Incomplete UTF-8 at the end of each stream's last chunk.
    partial: [Vec<u8>; 2],
}

impl Reader {
    fn new(sh: Arc<Shared>, stream: UnixStream, conn: u64) -> Reader {
        Reader {
            sh,
            stream,
            conn,
            buf: Vec::new(),
            pending: None,
            partial: [Vec::new(), Vec::new()],
        }
    }

    fn run(mut self) {
        let _ = self.stream.set_read_timeout(Some(COALESCE));
        let mut hello = false;
        let mut tmp = vec![0u8; 64 * 1024];
        loop {
            match self.stream.read(&mut tmp) {
                Ok(0) => break,
                Ok(n) => self.buf.extend_from_slice(&tmp[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => break,
            }
            while let Some((k, payload)) = take_frame(&mut self.buf) {
                if !hello {
                    if k != kind::HELLO || !self.accept_hello(&payload) {
                        eprintln!("cuprite-kernel: side channel: rejected a connection without the right token");
                        return;
                    }
                    hello = true;
                    continue;
                }
                self.handle(k, payload);
            }
            if self
                .pending
                .as_ref()
                .is_some_and(|(_, _, since)| since.elapsed() >= COALESCE)
            {
                self.publish_pending();
            }
        }
        self.publish_pending();
        let mut st = self.sh.state.locked();
        if st.conn == self.conn {
            st.writer = None;
        }
        self.sh.cond.notify_all();
    }

    fn accept_hello(&mut self, payload: &[u8]) -> bool {
        let text = String::from_utf8_lossy(payload);
        let mut parts = text.splitn(2, '\n');
        let token = parts.next().unwrap_or("");
        let pid = parts.next().and_then(|p| p.trim().parse().ok());
        if token != self.sh.token {
            return false;
        }
        let Ok(writer) = self.stream.try_clone() else {
            return false;
        };
        let mut st = self.sh.state.locked();
        st.writer = Some(writer);
        st.conn = self.conn;
        st.child_pid = pid;
        // A new cell process: the old one's widgets are gone.
        st.comms.clear();
        st.comm_done = st.comm_sent;
        self.sh.cond.notify_all();
        true
    }

    fn handle(&mut self, k: u8, payload: Vec<u8>) {
        match k {
            kind::STDOUT => self.text(0, &payload),
            kind::STDERR => {
                self.text(1, &payload);
                let mut st = self.sh.state.locked();
                let tail = &mut st.cell.stderr_tail;
                tail.push_str(&String::from_utf8_lossy(&payload));
                if tail.len() > 8192 {
                    let cut = tail.len() - 4096;
                    let cut = (cut..tail.len())
                        .find(|&i| tail.is_char_boundary(i))
                        .unwrap_or(0);
                    tail.drain(..cut);
                }
            }
            kind::MESSAGE => {
                self.publish_pending();
                self.message(&payload);
            }
            kind::PANIC => {
                self.publish_pending();
                let v: Value = serde_json::from_slice(&payload).unwrap_or(Value::Null);
                let info = PanicInfo {
                    message: v["message"].as_str().unwrap_or("").to_string(),
                    location: v["location"].as_str().unwrap_or("").to_string(),
                    thread: v["thread"].as_str().unwrap_or("").to_string(),
                    backtrace: v["backtrace"].as_str().unwrap_or("").to_string(),
                };
                if v["cell"].as_bool().unwrap_or(info.thread == "main") {
                    self.sh.state.locked().cell.panics.push(info);
                } else {
                    self.sh.sink.publish(
                        "stream",
                        json!({"name": "stderr", "text": panic_text(&info)}),
                    );
                }
            }
            kind::PANICKED => self.sh.state.locked().cell.panicked = true,
            kind::USER_ERROR => self.sh.state.locked().cell.user_error = true,
            kind::MARK => {
                let t = times(&payload);
                self.sh.state.locked().cell.marks.push(t);
            }
            kind::COMPLETE => {
                let t = times(&payload);
                let gpu = serde_json::from_slice::<Value>(&payload)
                    .ok()
                    .and_then(|v| v.get("gpu").cloned());
                let mut st = self.sh.state.locked();
                st.cell.complete = Some(t);
                if let Some(gpu) = gpu {
                    st.gpu_pools = Some((Instant::now(), gpu));
                }
            }
            kind::COMM_DONE => self.acknowledge(&payload, |st| &mut st.comm_done),
            kind::SYNCED => self.acknowledge(&payload, |st| &mut st.synced),
            _ => {}
        }
    }

    /// An answer to a numbered request (a flush, a comm message): everything
    /// printed before it is published, then the highest answered number rises.
    fn acknowledge(&mut self, payload: &[u8], answered: fn(&mut State) -> &mut u64) {
        self.publish_pending();
        let seq: u64 = String::from_utf8_lossy(payload).trim().parse().unwrap_or(0);
        let mut st = self.sh.state.locked();
        if st.conn == self.conn {
            let last = answered(&mut st);
            *last = (*last).max(seq);
        }
        self.sh.cond.notify_all();
    }

    /// Adds stream text, publishing when the stream changes or enough has gathered.
    fn text(&mut self, stream: usize, bytes: &[u8]) {
        let name = if stream == 0 { "stdout" } else { "stderr" };
        let mut all = std::mem::take(&mut self.partial[stream]);
        all.extend_from_slice(bytes);
        let valid = match std::str::from_utf8(&all) {
            Ok(_) => all.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => all.len(),
        };
        self.partial[stream] = all[valid..].to_vec();
        let text = String::from_utf8_lossy(&all[..valid]).to_string();
        if text.is_empty() {
            return;
        }
        if let Some((n, _, _)) = &self.pending {
            if *n != name {
                self.publish_pending();
            }
        }
        match &mut self.pending {
            Some((_, t, _)) => t.push_str(&text),
            None => self.pending = Some((name, text, Instant::now())),
        }
        if self
            .pending
            .as_ref()
            .is_some_and(|(_, t, _)| t.len() >= MAX_CHUNK)
        {
            self.publish_pending();
        }
    }

    fn publish_pending(&mut self) {
        if let Some((name, text, _)) = self.pending.take() {
            self.sh
                .sink
                .publish("stream", json!({"name": name, "text": text}));
        }
    }

    fn message(&mut self, payload: &[u8]) {
        let Ok(v) = serde_json::from_slice::<Value>(payload) else {
            eprintln!("cuprite-kernel: side channel: a display message is not valid JSON");
            return;
        };
        let msg_type = v["msg_type"].as_str().unwrap_or("").to_string();
        let mut content = v.get("content").cloned().unwrap_or(json!({}));
        match msg_type.as_str() {
            "display_data" | "update_display_data" => {
                let Some(obj) = content.as_object_mut() else {
                    return;
                };
                normalize_bundle(obj);
                if msg_type == "update_display_data"
                    && obj["transient"]["display_id"].as_str().is_none()
                {
                    eprintln!(
                        "cuprite-kernel: update_display_data without a display_id was dropped"
                    );
                    return;
                }
            }
            "clear_output" => {
                let wait = content["wait"].as_bool().unwrap_or(false);
                content = json!({"wait": wait});
            }
            "error" => {
                // The cell's value is an error: the cell fails with it (the
                // kernel publishes it with the reply, not here).
                let text = |k: &str| content[k].as_str().unwrap_or("").to_string();
                let (ename, evalue) = (text("ename"), text("evalue"));
                let ename = if ename.is_empty() {
                    "Error".into()
                } else {
                    ename
                };
                self.sh.state.locked().cell.value_error = Some((ename, evalue));
                return;
            }
            "comm_open" | "comm_msg" | "comm_close" => {
                let metadata = v.get("metadata").cloned().unwrap_or(json!({}));
                let Some(id) = content["comm_id"].as_str().map(str::to_string) else {
                    eprintln!("cuprite-kernel: side channel: a {msg_type} without a comm_id");
                    return;
                };
                let mut st = self.sh.state.locked();
                match msg_type.as_str() {
                    "comm_open" => {
                        let target = content["target_name"].as_str().unwrap_or("").to_string();
                        st.comms.insert(id, target);
                    }
                    "comm_close" => {
                        st.comms.remove(&id);
                    }
                    _ => {}
                }
                drop(st);
                self.sh
                    .sink
                    .publish_with_metadata(&msg_type, content, metadata);
                return;
            }
            _ => {
                eprintln!(
                    "cuprite-kernel: side channel: message type {msg_type:?} is not published"
                );
                return;
            }
        }
        self.sh.sink.publish(&msg_type, content);
    }
}

/// Makes a display bundle valid: `data` an object with `text/plain`,
/// `metadata` and `transient` objects.
pub fn normalize_bundle(obj: &mut Map<String, Value>) {
    if !obj.get("data").is_some_and(Value::is_object) {
        obj.insert("data".into(), json!({}));
    }
    for key in ["metadata", "transient"] {
        if !obj.get(key).is_some_and(Value::is_object) {
            obj.insert(key.into(), json!({}));
        }
    }
    let Some(data) = obj.get_mut("data").and_then(Value::as_object_mut) else {
        return; // made an object just above
    };
    // JSON MIME types (a widget's view, application/json) travel as text, as
    // in a cell's last value; the front end wants the object.
    for (mime, value) in data.iter_mut() {
        if mime.contains("json") {
            if let Some(parsed) = value.as_str().and_then(|t| serde_json::from_str(t).ok()) {
                *value = parsed;
            }
        }
    }
    if !data.contains_key("text/plain") {
        let kinds: Vec<&str> = data.keys().map(String::as_str).collect();
        let text = format!(
            "<{}>",
            if kinds.is_empty() {
                "display".to_string()
            } else {
                kinds.join(", ")
            }
        );
        data.insert("text/plain".into(), Value::String(text));
    }
}

/// How a panic reads on stderr.
pub fn panic_text(p: &PanicInfo) -> String {
    let mut s = format!(
        "thread '{}' panicked at {}:\n{}\n",
        p.thread, p.location, p.message
    );
    if !p.backtrace.is_empty() {
        s.push_str(&p.backtrace);
        if !s.ends_with('\n') {
            s.push('\n');
        }
    }
    s
}

fn times(payload: &[u8]) -> Times {
    let v: Value = serde_json::from_slice(payload).unwrap_or(Value::Null);
    let n = |k: &str| {
        v[k].as_u64()
            .map(u128::from)
            .or_else(|| v[k].as_f64().map(|f| f as u128))
            .unwrap_or(0)
    };
    Times {
        wall_ns: n("wall_ns"),
        user_ns: n("user_ns"),
        sys_ns: n("sys_ns"),
    }
}

fn take_frame(buf: &mut Vec<u8>) -> Option<(u8, Vec<u8>)> {
    if buf.len() < 5 {
        return None;
    }
    let len = u32::from_le_bytes([buf[1], buf[2], buf[3], buf[4]]) as usize;
    if buf.len() < 5 + len {
        return None;
    }
    let k = buf[0];
    let payload = buf[5..5 + len].to_vec();
    buf.drain(..5 + len);
    Some((k, payload))
}

/// A private directory and socket path for this kernel, short enough for a Unix socket.
pub fn socket_path() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let mut bases = vec![std::env::temp_dir()];
    bases.push(PathBuf::from("/tmp"));
    for base in bases {
        let dir = base.join(format!("cuprite-kernel-{uid}"));
        if std::fs::create_dir_all(&dir).is_err() {
            continue;
        }
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
        let path = dir.join(format!(
            "k{}-{}.sock",
            std::process::id(),
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        ));
        if path.as_os_str().len() < 100 {
            return Ok(path);
        }
    }
    Err(std::io::Error::other(
        "no directory for the side-channel socket",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuprite_kernel_io::wire;

    struct Collect(Mutex<Vec<(String, Value)>>);
    impl Sink for Collect {
        fn publish(&self, msg_type: &str, content: Value) {
            self.0.lock().unwrap().push((msg_type.to_string(), content));
        }
    }

    #[test]
    fn frames_from_a_fake_cell_process() {
        let sink = Arc::new(Collect(Mutex::new(Vec::new())));
        let path = socket_path().unwrap();
        let sc = SideChannel::listen(&path, "tok".into(), sink.clone()).unwrap();
        let mut c = UnixStream::connect(&path).unwrap();
        c.write_all(&wire::encode_frame(kind::HELLO, b"tok\n4242"))
            .unwrap();
        assert!(sc.wait_connected(None, Duration::from_secs(5)));
        assert_eq!(sc.child_pid(), Some(4242));
        sc.begin_cell();
        c.write_all(&wire::encode_frame(kind::STDOUT, b"a\xc3"))
            .unwrap();
        c.write_all(&wire::encode_frame(kind::STDOUT, b"\xa9\n"))
            .unwrap();
        c.write_all(&wire::encode_frame(
            kind::MESSAGE,
            br#"{"msg_type":"display_data","content":{"data":{"text/html":"<b>x</b>"}}}"#,
        ))
        .unwrap();
        c.write_all(&wire::encode_frame(kind::STDERR, b"oops\n"))
            .unwrap();
        c.write_all(&wire::encode_frame(kind::PANICKED, b""))
            .unwrap();
        // Answer the flush request the way the cell process does.
        let sc2 = sc.clone();
        let t = std::thread::spawn(move || sc2.finish_cell(Duration::from_secs(5)));
        let mut line = Vec::new();
        let mut b = [0u8; 1];
        while line.last() != Some(&b'\n') || line.first() != Some(&b'F') {
            if line.last() == Some(&b'\n') {
                line.clear();
            }
            c.read_exact(&mut b).unwrap();
            line.push(b[0]);
        }
        let seq = String::from_utf8_lossy(&line[1..line.len() - 1]).to_string();
        c.write_all(&wire::encode_frame(kind::SYNCED, seq.as_bytes()))
            .unwrap();
        let events = t.join().unwrap();
        assert!(events.panicked);
        assert_eq!(events.stderr_tail, "oops\n");
        let got = sink.0.lock().unwrap().clone();
        assert_eq!(
            got[0],
            ("stream".into(), json!({"name": "stdout", "text": "aé\n"}))
        );
        assert_eq!(got[1].0, "display_data");
        assert_eq!(got[1].1["data"]["text/plain"], "<text/html>");
        assert_eq!(got[1].1["transient"], json!({}));
        assert_eq!(
            got[2],
            ("stream".into(), json!({"name": "stderr", "text": "oops\n"}))
        );
        drop(c);
        let _ = std::fs::remove_file(&path);
    }

    /// The display crate writes the frames of this crate's wire format itself
    /// (it cannot depend on cuprite-kernel-io): they must parse here.
    #[test]
    fn display_crate_frames_parse_as_kernel_io_frames() {
        use cuprite_display::sink::{display_message, encode_frame, DisplayKind};
        let nonce = b"fedcba9876543210";
        assert_eq!(nonce.len(), wire::NONCE_LEN);
        let bundle = cuprite_display::MimeBundle::new("x").with("text/html", "<b>x</b>");
        let msg = display_message(&bundle, DisplayKind::Update, Some("id-1"));
        let mut stream = b"text before ".to_vec();
        stream.extend(encode_frame(nonce, msg.to_string().as_bytes()));
        stream.extend_from_slice(b"after\n");
        let pieces = wire::StdoutParser::new(nonce).feed(&stream, false);
        assert_eq!(pieces.len(), 3, "{pieces:?}");
        assert_eq!(pieces[0], wire::Piece::Text(b"text before ".to_vec()));
        let wire::Piece::Frame(k, payload) = &pieces[1] else {
            panic!("{pieces:?}")
        };
        assert_eq!(*k, kind::MESSAGE);
        let v: Value = serde_json::from_slice(payload).unwrap();
        assert_eq!(v["msg_type"], "update_display_data");
        assert_eq!(v["content"]["transient"]["display_id"], "id-1");
        assert_eq!(v["content"]["data"]["text/html"], "<b>x</b>");
        assert_eq!(pieces[2], wire::Piece::Text(b"after\n".to_vec()));
        assert_eq!(
            cuprite_display::sink::KERNEL_ENV,
            cuprite_kernel_io::ACTIVE_ENV
        );
    }

    #[test]
    fn wrong_token_is_rejected() {
        let sink = Arc::new(Collect(Mutex::new(Vec::new())));
        let path = socket_path().unwrap();
        let sc = SideChannel::listen(&path, "right".into(), sink).unwrap();
        let mut c = UnixStream::connect(&path).unwrap();
        c.write_all(&wire::encode_frame(kind::HELLO, b"wrong\n1"))
            .unwrap();
        assert!(!sc.wait_connected(None, Duration::from_millis(300)));
        let _ = std::fs::remove_file(&path);
    }
}
