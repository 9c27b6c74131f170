//! Cells the kernel runs itself, with no Rust to compile: `!cmd` lines,
//! `%cd`, `%pwd`, `%env`, and the cell magics `%%bash`, `%%sh` and
//! `%%writefile`. They run in the kernel process, so they answer while the
//! first build still compiles the dependencies, and they need no cell process.
//!
//! A cell comes here when its first line is `%%bash`, `%%sh` or
//! `%%writefile`, or when every line is a `!` command, `%cd`, `%pwd` or
//! `%env` (blank lines and `//` comments aside). As in evcxr, a line is a
//! command when its first column is `!` (an indented `!flag` is Rust's
//! negation). Cells that mix commands with Rust stay evcxr's, which runs the
//! commands before the Rust and shows their output at the end; `%cd`, `%pwd`
//! and `%env` mixed with Rust are refused with a message, since the Rust
//! would not compile with them.
//!
//! Commands run under `bash -c` (so that Lmod's exported `module` function
//! works) or `sh -c` where there is no bash, in a process group of their own
//! (an interrupt signals the whole pipeline, then kills it after a grace
//! period), with no stdin, and their output is published as it arrives. A
//! failing `!` command shows its exit status and the cell goes on, as in
//! IPython; a failing `%%bash` script fails the cell. `%cd` and `%env` change
//! the kernel process, which cell processes started later inherit, and are
//! sent to the cell process running now.

use crate::errors::JupyterError;
use crate::locks::Locked;
use crate::session::ExecOutcome;
use crate::side_channel::{SideChannel, Sink};
use cuprite_kernel_io::wire::{self, command};
use serde_json::{json, Map, Value};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One thing a kernel-side cell does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `!cmd`.
    Command(String),
    /// `%cd [DIR]` (no directory: the home directory).
    Cd(Option<String>),
    /// `%pwd`.
    Pwd,
    /// `%env`, `%env NAME`, `%env NAME=value`.
    Env(EnvStep),
    /// `%%bash` or `%%sh`: the rest of the cell is the script.
    Script { program: Program, body: String },
    /// `%%writefile [-a] PATH`: the rest of the cell is the file's text.
    WriteFile {
        path: String,
        append: bool,
        body: String,
    },
}

/// What `%env` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvStep {
    List,
    Get(String),
    Set(String, String),
}

/// The shell a script runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program {
    Bash,
    Sh,
}

/// The steps of a kernel-side cell; None for a cell of Rust (or of the
/// magics that become Rust); an error for bad arguments or a mixed cell.
pub fn plan(cell: &str) -> Option<Result<Vec<Step>, String>> {
    let lines: Vec<&str> = cell.lines().collect();
    let first = lines.iter().position(|l| !l.trim().is_empty())?;
    if let Some(magic) = lines[first].trim().strip_prefix("%%") {
        let (name, args) = magic.split_once(char::is_whitespace).unwrap_or((magic, ""));
        let body = lines[first + 1..].join("\n");
        return match name {
            "bash" | "sh" => Some(if args.trim().is_empty() {
                let program = if name == "bash" {
                    Program::Bash
                } else {
                    Program::Sh
                };
                Ok(vec![Step::Script { program, body }])
            } else {
                Err(format!(
                    "%%{name} takes no arguments: the lines below it are the script"
                ))
            }),
            "writefile" => Some(write_file_step(args, body)),
            _ => None,
        };
    }
    let mut steps = Vec::new();
    let mut rust = None;
    for line in &lines {
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") {
            continue;
        }
        match line_step(line) {
            Some(Ok(step)) => steps.push(step),
            Some(Err(e)) => return Some(Err(e)),
            None => {
                rust.get_or_insert(t);
            }
        }
    }
    match rust {
        _ if steps.is_empty() => None,
        None => Some(Ok(steps)),
        Some(_) if steps.iter().all(|s| matches!(s, Step::Command(_))) => None,
        Some(code) => Some(Err(format!(
            "this cell mixes Rust (`{code}`) with %cd, %pwd or %env, which the kernel runs itself: put those in a cell of their own"
        ))),
    }
}

fn write_file_step(args: &str, body: String) -> Result<Vec<Step>, String> {
    let mut append = false;
    let mut path = None;
    for word in args.split_whitespace() {
        match word {
            "-a" | "--append" => append = true,
            w if w.starts_with('-') => return Err(format!("%%writefile: unknown option {w}")),
            w if path.is_none() => path = Some(w.to_string()),
            _ => {
                return Err(
                    "%%writefile takes one path (quote-free; no spaces): %%writefile [-a] PATH"
                        .into(),
                )
            }
        }
    }
    let path = path.ok_or("%%writefile needs a path: %%writefile [-a] PATH")?;
    Ok(vec![Step::WriteFile { path, append, body }])
}

/// The step of one line, None when the line is Rust.
fn line_step(line: &str) -> Option<Result<Step, String>> {
    if let Some(command) = line.strip_prefix('!') {
        return Some(match command.trim() {
            "" => Err("`!` needs a command after it".into()),
            c => Ok(Step::Command(c.to_string())),
        });
    }
    let magic = line.trim().strip_prefix('%')?;
    let (name, args) = magic.split_once(char::is_whitespace).unwrap_or((magic, ""));
    let args = args.trim();
    Some(match name {
        "cd" => Ok(Step::Cd(
            (!args.is_empty()).then(|| unquote(args).to_string()),
        )),
        "pwd" if args.is_empty() => Ok(Step::Pwd),
        "pwd" => Err("%pwd takes no arguments".into()),
        "env" => env_step(args).map(Step::Env),
        _ => return None,
    })
}

fn env_step(args: &str) -> Result<EnvStep, String> {
    if args.is_empty() {
        return Ok(EnvStep::List);
    }
    let (name, value) = match args.split_once('=') {
        Some((name, value)) => (name.trim(), Some(value.trim())),
        None => match args.split_once(char::is_whitespace) {
            Some((name, value)) => (name, Some(value.trim())),
            None => (args, None),
        },
    };
    if name.is_empty() || name.contains('\0') || value.is_some_and(|v| v.contains('\0')) {
        return Err(format!(
            "%env {args}: expected %env, %env NAME or %env NAME=value"
        ));
    }
    Ok(match value {
        Some(v) => EnvStep::Set(name.to_string(), unquote(v).to_string()),
        None => EnvStep::Get(name.to_string()),
    })
}

/// `"a b"` or `'a b'` without their quotes.
fn unquote(s: &str) -> &str {
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return &s[1..s.len() - 1];
        }
    }
    s
}

/// How long an interrupted command has to stop before its group is killed.
const GRACE: Duration = Duration::from_secs(2);
/// How long output may keep coming after a command ended (from what it left
/// running in the background) before the cell stops waiting for it.
const TRAILING_OUTPUT: Duration = Duration::from_millis(500);

/// The command running now, for [`Shell::interrupt`].
struct Running {
    pgid: i32,
    interrupted: bool,
}

/// Runs kernel-side cells; one per kernel.
pub struct Shell {
    sink: Arc<dyn Sink>,
    side: SideChannel,
    running: Arc<Mutex<Option<Running>>>,
}

impl Shell {
    pub fn new(sink: Arc<dyn Sink>, side: SideChannel) -> Shell {
        Shell {
            sink,
            side,
            running: Arc::new(Mutex::new(None)),
        }
    }

    /// Interrupts the command running now: SIGINT to its process group, and
    /// SIGKILL after the grace period. False when none runs.
    pub fn interrupt(&self) -> bool {
        let pgid = {
            let mut running = self.running.locked();
            let Some(r) = running.as_mut() else {
                return false;
            };
            r.interrupted = true;
            r.pgid
        };
        // SAFETY: signalling the process group of a command we started.
        unsafe { libc::kill(-pgid, libc::SIGINT) };
        let running = self.running.clone();
        std::thread::spawn(move || {
            std::thread::sleep(GRACE);
            if running.locked().as_ref().is_some_and(|r| r.pgid == pgid) {
                // SAFETY: killing the process group of a command we started, still running.
                unsafe { libc::kill(-pgid, libc::SIGKILL) };
            }
        });
        true
    }

    /// Runs the steps in order (blocking); the first failing one ends the cell.
    pub fn run(&self, steps: Vec<Step>) -> ExecOutcome {
        let last = steps.len().saturating_sub(1);
        let mut value = None;
        for (i, step) in steps.into_iter().enumerate() {
            let result = match step {
                Step::Command(cmd) => self.command(&cmd),
                Step::Script { program, body } => self.script(program, &body),
                Step::Cd(dir) => self.cd(dir.as_deref()),
                Step::Pwd => match std::env::current_dir() {
                    Ok(dir) if i == last => {
                        value = Some(text_bundle(format!("{:?}", dir.display().to_string())));
                        Ok(())
                    }
                    Ok(dir) => {
                        self.print("stdout", format!("{}\n", dir.display()));
                        Ok(())
                    }
                    Err(e) => Err(os_error("%pwd", e)),
                },
                Step::Env(env) => self.env(env),
                Step::WriteFile { path, append, body } => self.write_file(&path, append, &body),
            };
            if let Err(e) = result {
                return ExecOutcome {
                    result: Err(e),
                    ..Default::default()
                };
            }
        }
        ExecOutcome {
            result: Ok(value),
            ..Default::default()
        }
    }

    fn print(&self, stream: &str, text: String) {
        self.sink
            .publish("stream", json!({"name": stream, "text": text}));
    }

    fn command(&self, cmd: &str) -> Result<(), JupyterError> {
        let status = self.spawn_and_stream(shell_program(Program::Bash), cmd)?;
        if !status.success() {
            self.print("stderr", format!("`{cmd}` {}\n", describe(status)));
        }
        Ok(())
    }

    fn script(&self, program: Program, body: &str) -> Result<(), JupyterError> {
        let shell = shell_program(program);
        let status = self.spawn_and_stream(shell, body)?;
        if status.success() {
            return Ok(());
        }
        Err(JupyterError::simple(
            "CalledProcessError",
            format!("the {shell} script {}", describe(status)),
        ))
    }

    /// Runs `shell -c code` in its own process group, publishing its output
    /// as it comes; an interrupt is the cell's error.
    fn spawn_and_stream(&self, shell: &str, code: &str) -> Result<ExitStatus, JupyterError> {
        let mut child = Command::new(shell)
            .arg("-c")
            .arg(code)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| os_error(&format!("cannot start {shell}"), e))?;
        *self.running.locked() = Some(Running {
            pgid: child.id() as i32,
            interrupted: false,
        });
        let done = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = [
            child
                .stdout
                .take()
                .map(|p| (Box::new(p) as Box<dyn Read + Send>, "stdout")),
            child
                .stderr
                .take()
                .map(|p| (Box::new(p) as Box<dyn Read + Send>, "stderr")),
        ]
        .into_iter()
        .flatten()
        .map(|(pipe, name)| {
            let (sink, done) = (self.sink.clone(), done.clone());
            std::thread::spawn(move || forward(pipe, name, &*sink, &done))
        })
        .collect();
        let status = child.wait();
        let interrupted = self.running.locked().take().is_some_and(|r| r.interrupted);
        // What the command left running may hold the pipes open: wait for
        // their end a little, then stop publishing what they write.
        let until = Instant::now() + TRAILING_OUTPUT;
        while readers.iter().any(|r| !r.is_finished()) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        done.store(true, Ordering::SeqCst);
        let status = status.map_err(|e| os_error(&format!("waiting for {shell}"), e))?;
        if interrupted {
            return Err(JupyterError::simple(
                "KeyboardInterrupt",
                format!("the command was interrupted ({})", describe(status)),
            ));
        }
        Ok(status)
    }

    fn cd(&self, dir: Option<&str>) -> Result<(), JupyterError> {
        let target = match dir {
            None => dirs::home_dir()
                .ok_or_else(|| JupyterError::simple("UsageError", "%cd: no home directory"))?,
            Some(d) => expand_home(d),
        };
        std::env::set_current_dir(&target)
            .map_err(|e| os_error(&format!("%cd {}", target.display()), e))?;
        let now = std::env::current_dir().unwrap_or(target);
        let line = [
            &[command::CHDIR][..],
            wire::to_hex(now.as_os_str().as_bytes()).as_bytes(),
        ]
        .concat();
        self.side.command(&line, Duration::from_secs(2));
        self.print("stdout", format!("{}\n", now.display()));
        Ok(())
    }

    fn env(&self, step: EnvStep) -> Result<(), JupyterError> {
        match step {
            EnvStep::List => {
                let mut vars: Vec<_> = std::env::vars_os()
                    .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
                    .collect();
                vars.sort();
                self.print("stdout", vars.join("\n") + "\n");
            }
            EnvStep::Get(name) => match std::env::var_os(&name) {
                Some(v) => self.print("stdout", format!("{}\n", v.to_string_lossy())),
                None => {
                    return Err(JupyterError::simple(
                        "UsageError",
                        format!("%env: no environment variable {name}"),
                    ))
                }
            },
            EnvStep::Set(name, value) => {
                // The kernel's other threads read no variables they could race with
                // here (Rust's own accesses take std's lock); cell processes started
                // later inherit the change.
                std::env::set_var(&name, &value);
                let line = format!(
                    "{}{}={}",
                    command::SET_ENV as char,
                    wire::to_hex(name.as_bytes()),
                    wire::to_hex(value.as_bytes())
                );
                self.side.command(line.as_bytes(), Duration::from_secs(2));
                self.print("stdout", format!("env: {name}={value}\n"));
            }
        }
        Ok(())
    }

    fn write_file(&self, path: &str, append: bool, body: &str) -> Result<(), JupyterError> {
        let target = expand_home(path);
        let existed = target.exists();
        let mut text = body.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(&target)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| os_error(&format!("%%writefile {path}"), e))?;
        let verb = match (append, existed) {
            (true, _) => "Appending to",
            (false, true) => "Overwriting",
            (false, false) => "Writing",
        };
        self.print("stdout", format!("{verb} {path}\n"));
        Ok(())
    }
}

/// Copies a pipe to the sink as text, as it arrives, until it ends or `done`.
fn forward(mut pipe: Box<dyn Read + Send>, name: &str, sink: &dyn Sink, done: &AtomicBool) {
    let mut buf = [0u8; 16 * 1024];
    let mut partial: Vec<u8> = Vec::new();
    loop {
        let n = match pipe.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if done.load(Ordering::SeqCst) {
            return;
        }
        partial.extend_from_slice(&buf[..n]);
        // Publish whole UTF-8 characters; keep a character cut at the end for the next read.
        let cut = match std::str::from_utf8(&partial) {
            Ok(_) => partial.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => partial.len(),
        };
        let text = String::from_utf8_lossy(&partial[..cut]).into_owned();
        partial.drain(..cut);
        if !text.is_empty() {
            sink.publish("stream", json!({"name": name, "text": text}));
        }
    }
    if !partial.is_empty() && !done.load(Ordering::SeqCst) {
        let text = String::from_utf8_lossy(&partial).into_owned();
        sink.publish("stream", json!({"name": name, "text": text}));
    }
}

/// bash where there is one (exported shell functions such as Lmod's `module`
/// work there), else sh.
fn shell_program(program: Program) -> &'static str {
    match program {
        Program::Bash if Path::new("/bin/bash").exists() => "/bin/bash",
        Program::Bash => "/bin/sh",
        Program::Sh => "/bin/sh",
    }
}

fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(sig)) => format!("was stopped by signal {sig}"),
        (None, None) => "ended".into(),
    }
}

/// `~` and `~/...` under the home directory.
fn expand_home(path: &str) -> PathBuf {
    match (path.strip_prefix('~'), dirs::home_dir()) {
        (Some(""), Some(h)) => h,
        (Some(rest), Some(h)) if rest.starts_with('/') => h.join(&rest[1..]),
        _ => PathBuf::from(path),
    }
}

fn os_error(what: &str, e: std::io::Error) -> JupyterError {
    JupyterError::simple("OSError", format!("{what}: {e}"))
}

fn text_bundle(text: String) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("text/plain".into(), Value::String(text));
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(cell: &str) -> Vec<Step> {
        match plan(cell) {
            Some(Ok(s)) => s,
            other => panic!("{cell:?}: {other:?}"),
        }
    }

    fn refused(cell: &str) -> String {
        match plan(cell) {
            Some(Err(e)) => e,
            other => panic!("{cell:?}: {other:?}"),
        }
    }

    #[test]
    fn commands_and_negations() {
        assert_eq!(steps("!ls -la"), vec![Step::Command("ls -la".into())]);
        assert_eq!(steps("! echo hi"), vec![Step::Command("echo hi".into())]);
        assert_eq!(
            steps("!./run.sh\n!module list"),
            vec![
                Step::Command("./run.sh".into()),
                Step::Command("module list".into())
            ]
        );
        assert!(refused("!").contains("needs a command"));
        // An indented `!` is Rust's negation; so is the rest of such a cell.
        for rust in ["  !mask_value", "let x = 1;", "x\n  !done"] {
            assert_eq!(plan(rust), None, "{rust}");
        }
        // Commands mixed with Rust stay evcxr's.
        assert_eq!(plan("!nvidia-smi\nlet x = 1;"), None);
    }

    #[test]
    fn line_magics() {
        assert_eq!(steps("%cd /tmp"), vec![Step::Cd(Some("/tmp".into()))]);
        assert_eq!(steps("%cd \"a b\""), vec![Step::Cd(Some("a b".into()))]);
        assert_eq!(steps("%cd"), vec![Step::Cd(None)]);
        assert_eq!(steps("%pwd"), vec![Step::Pwd]);
        assert_eq!(steps("%env"), vec![Step::Env(EnvStep::List)]);
        assert_eq!(
            steps("%env HOME"),
            vec![Step::Env(EnvStep::Get("HOME".into()))]
        );
        let set = Step::Env(EnvStep::Set("OMP_NUM_THREADS".into(), "4".into()));
        assert_eq!(steps("%env OMP_NUM_THREADS=4"), vec![set.clone()]);
        assert_eq!(steps("%env OMP_NUM_THREADS 4"), vec![set]);
        assert!(refused("%pwd now").contains("no arguments"));
        assert!(refused("%env =3").contains("expected"));
        // Several lines, comments and blank lines between them.
        assert_eq!(
            steps("// where am I\n%cd /tmp\n\n!ls\n%pwd"),
            vec![
                Step::Cd(Some("/tmp".into())),
                Step::Command("ls".into()),
                Step::Pwd
            ]
        );
        // Magics that become Rust are not ours.
        assert_eq!(plan("%time 1 + 1"), None);
        assert_eq!(plan("%%time\nlet a = 1;"), None);
    }

    #[test]
    fn cell_magics() {
        assert_eq!(
            steps("%%bash\necho $((1 + 2))\nls"),
            vec![Step::Script {
                program: Program::Bash,
                body: "echo $((1 + 2))\nls".into()
            }]
        );
        assert_eq!(
            steps("\n%%writefile -a notes.txt\nline"),
            vec![Step::WriteFile {
                path: "notes.txt".into(),
                append: true,
                body: "line".into()
            }]
        );
        assert!(refused("%%writefile\nx").contains("needs a path"));
        assert!(refused("%%writefile -x f\nx").contains("unknown option"));
        assert!(refused("%%sh -e\nx").contains("no arguments"));
    }

    #[test]
    fn line_magics_mixed_with_rust_are_refused_with_the_rust_line() {
        let e = refused("let a = 1;\n%cd /tmp");
        assert!(
            e.contains("`let a = 1;`") && e.contains("cell of their own"),
            "{e}"
        );
        let e = refused("%env A=1\n!ls\nprintln!(\"x\");");
        assert!(e.contains("println"), "{e}");
    }

    struct Collect(Mutex<Vec<(String, String)>>);
    impl Sink for Collect {
        fn publish(&self, msg_type: &str, content: Value) {
            assert_eq!(msg_type, "stream");
            let name = content["name"].as_str().unwrap().to_string();
            let text = content["text"].as_str().unwrap().to_string();
            self.0.lock().unwrap().push((name, text));
        }
    }

    fn shell() -> (Shell, Arc<Collect>) {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let sink = Arc::new(Collect(Mutex::new(Vec::new())));
        let dir = std::env::temp_dir().join(format!("cuprite-shell-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let side = SideChannel::listen(&dir.join("sock"), "t".into(), sink.clone()).unwrap();
        (Shell::new(sink.clone(), side), sink)
    }

    fn text(sink: &Collect, name: &str) -> String {
        let out = sink.0.lock().unwrap();
        out.iter()
            .filter(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
            .collect()
    }

    #[test]
    fn commands_stream_their_output_and_failures_show_their_status() {
        let (sh, sink) = shell();
        let out = sh.run(steps("!printf 'a\\nb\\n'; echo err >&2\n!sh -c 'exit 3'"));
        assert!(out.result.is_ok());
        assert_eq!(text(&sink, "stdout"), "a\nb\n");
        let err = text(&sink, "stderr");
        assert!(
            err.starts_with("err\n") && err.contains("exited with status 3"),
            "{err}"
        );
        // A failing script fails the cell.
        let out = sh.run(steps("%%sh\necho before\nexit 2"));
        let e = out.result.unwrap_err();
        assert_eq!(e.ename, "CalledProcessError");
        assert!(e.evalue.contains("status 2"), "{}", e.evalue);
    }

    #[test]
    fn an_interrupt_stops_the_whole_pipeline() {
        let (sh, _) = shell();
        let sh = Arc::new(sh);
        let sh2 = sh.clone();
        let t = std::thread::spawn(move || {
            while !sh2.interrupt() {
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let start = Instant::now();
        // The pipeline ignores SIGINT, so only the kill after the grace period stops it.
        let out = sh.run(steps("%%bash\ntrap '' INT\nsleep 30 | cat"));
        t.join().unwrap();
        assert_eq!(out.result.unwrap_err().ename, "KeyboardInterrupt");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn writefile_writes_and_appends() {
        let (sh, sink) = shell();
        let dir = std::env::temp_dir().join(format!("cuprite-writefile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("kernel.cu");
        let _ = std::fs::remove_file(&f);
        let p = f.display();
        assert!(sh
            .run(steps(&format!("%%writefile {p}\n__global__ void k() {{}}")))
            .result
            .is_ok());
        assert!(sh
            .run(steps(&format!("%%writefile -a {p}\n// more")))
            .result
            .is_ok());
        assert!(sh
            .run(steps(&format!("%%writefile {p}\nnew")))
            .result
            .is_ok());
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new\n");
        let said = text(&sink, "stdout");
        assert!(
            said.contains("Writing")
                && said.contains("Appending to")
                && said.contains("Overwriting"),
            "{said}"
        );
        let e = sh.run(steps(&format!(
            "%%writefile {}/no/such/dir/f\nx",
            dir.display()
        )));
        assert_eq!(e.result.unwrap_err().ename, "OSError");
    }
}
