//! Output capture in the cell process: stdout and stderr become pipes read by
//! a forwarder thread that sends text, frames and events to the kernel and
//! hands evcxr's protocol lines on to evcxr.

use crate::sys::{self, PollFd};
use crate::wire::{self, command, kind, Piece, StdoutParser};
use crate::{ACTIVE_ENV, INTERRUPT_FLAG_ENV, SOCKET_ENV, TOKEN_ENV};
use std::io::{self, Read, Write};
use std::os::raw::c_int;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::RawFd;
use std::os::unix::net::UnixStream;
use std::os::unix::prelude::AsRawFd;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// This copy's pointer to the process-wide interrupt flag (for the signal handler).
static FLAG: AtomicPtr<AtomicU32> = AtomicPtr::new(std::ptr::null_mut());

extern "C" fn on_sigint(_: c_int) {
    let p = FLAG.load(Ordering::Relaxed);
    if !p.is_null() {
        // SAFETY: `p` points to the leaked flag, valid for the life of the process.
        unsafe { (*p).store(1, Ordering::Relaxed) };
    }
}

/// How often partial lines buffered by std's stdout are pushed out.
const FLUSH_EVERY: Duration = Duration::from_millis(30);

pub(crate) fn start() -> io::Result<()> {
    let path = std::env::var_os(SOCKET_ENV)
        .ok_or_else(|| io::Error::other(format!("{SOCKET_ENV} is not set")))?;
    let token = std::env::var(TOKEN_ENV).unwrap_or_default();
    let mut sock = UnixStream::connect(&path)?;
    let hello = format!("{token}\n{}", std::process::id());
    sock.write_all(&wire::encode_frame(kind::HELLO, hello.as_bytes()))?;

    let nonce = make_nonce();
    sys::die_with_parent();

    // Interrupt flag, shared by every cell's copy through its published address.
    let flag: &'static AtomicU32 = Box::leak(Box::new(AtomicU32::new(0)));
    FLAG.store(
        flag as *const AtomicU32 as *mut AtomicU32,
        Ordering::Relaxed,
    );
    sys::on_sigint(on_sigint);

    // Take stdout and stderr over, keeping evcxr's stdout for its protocol.
    let _ = io::stdout().flush();
    let _ = io::stderr().flush();
    let evcxr_out = sys::dup_cloexec(1)?;
    let orig_err = sys::dup_cloexec(2)?;
    let (out_r, out_w) = sys::pipe_cloexec()?;
    let (err_r, err_w) = sys::pipe_cloexec()?;
    {
        // Hold the stdout lock so no cell thread writes while fd 1 changes.
        let _lock = io::stdout().lock();
        sys::dup2_fd(out_w, 1)?;
        sys::dup2_fd(err_w, 2)?;
    }
    sys::close_fd(out_w);
    sys::close_fd(err_w);
    sys::set_nonblocking(out_r)?;
    sys::set_nonblocking(err_r)?;

    // SAFETY (env): set once, before any cell code can read these, from the
    // thread that runs cells.
    std::env::set_var(
        INTERRUPT_FLAG_ENV,
        // The process id guards children, which inherit the environment.
        format!(
            "{}:{:x}",
            std::process::id(),
            flag as *const AtomicU32 as usize
        ),
    );
    std::env::set_var(ACTIVE_ENV, String::from_utf8_lossy(&nonce).as_ref());

    install_panic_hook();

    let (flush_tx, flush_rx) = mpsc::channel::<Vec<u8>>();
    std::thread::Builder::new()
        .name("cuprite-flush".into())
        .spawn(move || flusher(flush_rx))?;
    let fwd = Forwarder {
        sock,
        evcxr_out,
        orig_err,
        out_r,
        err_r,
        parser: StdoutParser::new(&nonce),
        flush_tx,
        flag,
        text: Vec::new(),
        cmd_buf: Vec::new(),
    };
    std::thread::Builder::new()
        .name("cuprite-forward".into())
        .spawn(move || fwd.run())?;
    Ok(())
}

fn make_nonce() -> Vec<u8> {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut h = RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    format!("{:016x}", h.finish()).into_bytes()
}

/// Pushes std's buffered stdout out regularly (partial lines appear live), and
/// answers flush requests with a `SYNCED` frame placed after everything printed so far.
fn flusher(rx: mpsc::Receiver<Vec<u8>>) {
    loop {
        match rx.recv_timeout(FLUSH_EVERY) {
            Ok(seq) => {
                let stdout = io::stdout();
                let mut lock = stdout.lock();
                let _ = lock.flush();
                let Ok(nonce) = std::env::var(ACTIVE_ENV) else {
                    continue;
                };
                let header = wire::inband_header(nonce.as_bytes(), kind::SYNCED, seq.len());
                let _ = sys::write_all_fd(1, &header);
                let _ = sys::write_all_fd(1, &seq);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = io::stdout().flush();
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Reports panics to the kernel. `__init` runs on the thread that runs cells,
/// so panics there are the cell's (evcxr catches them); others are background
/// threads'. (The cell thread has no name in the cells' std: it was started by
/// the kernel binary's own copy of std.)
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    let cell_thread = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "Box<dyn Any>".to_string()
        };
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        let current = std::thread::current();
        let is_cell = current.id() == cell_thread;
        let thread = match current.name() {
            Some(name) => name.to_string(),
            None if is_cell => "main".to_string(),
            None => "<unnamed>".to_string(),
        };
        let backtrace = if std::env::var_os("CUPRITE_BACKTRACE").is_some() {
            std::backtrace::Backtrace::force_capture().to_string()
        } else {
            String::new()
        };
        let payload = format!(
            "{{\"message\":{},\"location\":{},\"thread\":{},\"cell\":{is_cell},\"backtrace\":{}}}",
            wire::json_string(&message),
            wire::json_string(&location),
            wire::json_string(&thread),
            wire::json_string(&backtrace)
        );
        if !crate::send_inband(kind::PANIC, payload.as_bytes()) {
            previous(info);
        }
    }));
}

struct Forwarder {
    sock: UnixStream,
    evcxr_out: RawFd,
    orig_err: RawFd,
    out_r: RawFd,
    err_r: RawFd,
    parser: StdoutParser,
    flush_tx: mpsc::Sender<Vec<u8>>,
    flag: &'static AtomicU32,
    /// Stdout text not yet sent.
    text: Vec<u8>,
    cmd_buf: Vec<u8>,
}

impl Forwarder {
    fn run(mut self) {
        let sock_fd = self.sock.as_raw_fd();
        let _ = self.sock.set_nonblocking(true);
        let mut sock_open = true;
        loop {
            let mut fds = [
                PollFd {
                    fd: self.out_r,
                    events: sys::POLLIN,
                    revents: 0,
                },
                PollFd {
                    fd: self.err_r,
                    events: sys::POLLIN,
                    revents: 0,
                },
                PollFd {
                    fd: if sock_open { sock_fd } else { -1 },
                    events: sys::POLLIN,
                    revents: 0,
                },
            ];
            let timeout = if self.parser.has_pending() { 100 } else { -1 };
            match sys::poll_fds(&mut fds, timeout) {
                Ok(0) => {
                    // Held-back bytes did not complete: release them.
                    let pieces = self.parser.feed(&[], true);
                    self.handle(pieces);
                }
                Ok(_) => {}
                Err(e) => {
                    self.diag(&format!("poll failed: {e}"));
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            let ready =
                |i: usize| fds[i].revents & (sys::POLLIN | sys::POLLHUP | sys::POLLERR) != 0;
            if ready(0) {
                self.read_stdout();
            }
            if ready(1) {
                self.read_stderr();
            }
            self.send_text();
            if sock_open && ready(2) {
                sock_open = self.read_commands();
            }
        }
    }

    fn diag(&self, msg: &str) {
        let _ = sys::write_all_fd(
            self.orig_err,
            format!("cuprite-kernel-io: {msg}\n").as_bytes(),
        );
    }

    fn read_stdout(&mut self) {
        let mut buf = [0u8; 65536];
        loop {
            let n = match sys::borrow_fd(self.out_r).read(&mut buf) {
                Ok(0) => return,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return,
            };
            let pieces = self.parser.feed(&buf[..n], false);
            self.handle(pieces);
            if n < buf.len() {
                return;
            }
        }
    }

    /// Reads what stderr has now and sends it (after pending stdout text).
    fn read_stderr(&mut self) {
        let mut buf = [0u8; 65536];
        loop {
            let n = match sys::borrow_fd(self.err_r).read(&mut buf) {
                Ok(0) => return,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return,
            };
            self.send_text();
            self.send(kind::STDERR, &buf[..n]);
            if n < buf.len() {
                return;
            }
        }
    }

    fn handle(&mut self, pieces: Vec<Piece>) {
        for piece in pieces {
            match piece {
                Piece::Text(t) => self.text.extend_from_slice(&t),
                Piece::Frame(k, payload) => {
                    self.send_text();
                    if k == kind::SYNCED {
                        // Everything printed before the flush request is out; stderr
                        // is unbuffered, so what it had is in its pipe now.
                        self.read_stderr();
                    }
                    self.send(k, &payload);
                }
                Piece::Evcxr(line) => {
                    self.send_text();
                    if line.starts_with(b"EVCXR_EXECUTION_COMPLETE") {
                        self.read_stderr();
                        self.send(kind::COMPLETE, crate::complete_json().as_bytes());
                    } else if line.starts_with(b"EVCXR_PANIC_NOTIFICATION") {
                        self.read_stderr();
                        self.send(kind::PANICKED, b"");
                    } else if line.starts_with(b"EVCXR_ERROR_OCCURRED") {
                        self.read_stderr();
                        self.send(kind::USER_ERROR, b"");
                    }
                    if let Err(e) = sys::write_all_fd(self.evcxr_out, &line) {
                        self.diag(&format!("cannot write to evcxr: {e}"));
                    }
                }
            }
        }
    }

    fn send_text(&mut self) {
        if !self.text.is_empty() {
            let text = std::mem::take(&mut self.text);
            self.send(kind::STDOUT, &text);
        }
    }

    fn send(&mut self, k: u8, payload: &[u8]) {
        let frame = wire::encode_frame(k, payload);
        // The socket is non-blocking for reads; write it all, waiting when full.
        let mut rest = &frame[..];
        while !rest.is_empty() {
            match self.sock.write(rest) {
                Ok(0) => return,
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    let mut fds = [PollFd {
                        fd: self.sock.as_raw_fd(),
                        events: 0x4, // POLLOUT
                        revents: 0,
                    }];
                    let _ = sys::poll_fds(&mut fds, 100);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return, // the kernel is gone; keep draining the pipes
            }
        }
    }

    /// Handles commands from the kernel; returns false once the socket closed.
    fn read_commands(&mut self) -> bool {
        let mut buf = [0u8; 1024];
        loop {
            match self.sock.read(&mut buf) {
                Ok(0) => return false,
                Ok(n) => self.cmd_buf.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return false,
            }
        }
        while let Some(i) = self.cmd_buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.cmd_buf.drain(..=i).collect();
            let line = &line[..line.len() - 1];
            match line.first() {
                Some(&command::FLUSH) => {
                    let _ = self.flush_tx.send(line[1..].to_vec());
                }
                Some(&command::CLEAR_INTERRUPT) => self.flag.store(0, Ordering::Relaxed),
                // Between cells (the kernel sends these from `%cd` and `%env`,
                // which run while no cell does), so no other thread of the
                // cell's is reading the directory or the environment.
                Some(&command::CHDIR) => {
                    if let Some(dir) = wire::from_hex(&line[1..]) {
                        let _ = std::env::set_current_dir(std::ffi::OsStr::from_bytes(&dir));
                    }
                }
                Some(&command::SET_ENV) => {
                    let mut parts = line[1..].splitn(2, |&b| b == b'=');
                    let name = parts.next().and_then(wire::from_hex);
                    let value = parts.next().and_then(wire::from_hex);
                    if let (Some(name), Some(value)) = (name, value) {
                        std::env::set_var(
                            std::ffi::OsStr::from_bytes(&name),
                            std::ffi::OsStr::from_bytes(&value),
                        );
                    }
                }
                // Handed to the widgets' own thread: a callback must not hold
                // up this one, which carries the cell's output.
                Some(&command::COMM) => crate::widgets::deliver(&line[1..]),
                _ => {}
            }
        }
        true
    }
}
