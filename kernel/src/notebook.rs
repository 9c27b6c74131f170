//! `cuprite-kernel run NOTEBOOK.ipynb`: executes a notebook headless through
//! the kernel's own evaluator (no Jupyter, no Python), writes the executed
//! notebook (nbformat 4, outputs and execution counts, the environment in
//! `metadata.cuprite.environment`) and optionally a self-contained HTML
//! report. `--param k=v` replaces `let k = ...;` in the cell tagged
//! `parameters` (papermill's convention). A cell that fails stops the run
//! with a non-zero exit code naming it, unless it is tagged `raises-exception`.

use crate::errors::strip_ansi;
use crate::locks::Locked;
use crate::session::{ExecRequest, InputFn, Session};
use crate::side_channel::{self, SideChannel, Sink};
use crate::spmd;
use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What `run NOTEBOOK` was asked to do.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunOptions {
    pub notebook: PathBuf,
    /// Where the executed notebook goes (default: `NAME.out.ipynb` beside the input).
    pub output: Option<PathBuf>,
    /// Where the HTML report goes, if wanted.
    pub html: Option<PathBuf>,
    /// `(name, Rust expression)` pairs for the `parameters` cell.
    pub params: Vec<(String, String)>,
    /// Run as one rank of an SPMD job (`srun`, `mpirun`): see `spmd.rs`.
    pub spmd: bool,
}

/// Parses `NOTEBOOK [--output OUT] [--html REPORT] [--param k=v]... [--spmd]`.
pub fn parse_args(args: &[String]) -> Result<RunOptions> {
    let mut o = RunOptions::default();
    let mut notebook = None;
    let mut i = 0;
    let value = |i: &mut usize, flag: &str| -> Result<String> {
        *i += 1;
        args.get(*i)
            .cloned()
            .with_context(|| format!("{flag} needs a value"))
    };
    while i < args.len() {
        let a = args[i].as_str();
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (a, None),
        };
        let get = |i: &mut usize| match &inline {
            Some(v) => Ok(v.clone()),
            None => value(i, flag),
        };
        match flag {
            "-o" | "--output" => o.output = Some(PathBuf::from(get(&mut i)?)),
            "--html" => o.html = Some(PathBuf::from(get(&mut i)?)),
            "--spmd" => o.spmd = true,
            "-p" | "--param" => {
                let kv = get(&mut i)?;
                let (k, v) = kv
                    .split_once('=')
                    .with_context(|| format!("--param {kv:?}: expected NAME=VALUE"))?;
                let k = k.trim();
                if k.is_empty() || !k.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    bail!("--param {kv:?}: {k:?} is not a Rust variable name");
                }
                o.params.push((k.to_string(), v.trim().to_string()));
            }
            other if !other.starts_with('-') && notebook.is_none() => {
                notebook = Some(PathBuf::from(other))
            }
            other => bail!("run: unknown argument {other:?}"),
        }
        i += 1;
    }
    o.notebook = notebook.context("run: no notebook given")?;
    Ok(o)
}

/// True when `run`'s arguments name a notebook rather than a connection file.
pub fn names_notebook(args: &[String]) -> bool {
    args.iter()
        .any(|a| !a.starts_with('-') && a.to_ascii_lowercase().ends_with(".ipynb"))
}

// ---------------------------------------------------------------- outputs

/// nbformat outputs of the cells, filled from iopub messages.
#[derive(Default)]
struct Collector {
    /// Outputs per cell index.
    cells: HashMap<usize, Vec<Value>>,
    current: usize,
    /// display_id -> (cell, output index) of every output shown under it.
    ids: HashMap<String, Vec<(usize, usize)>>,
    clear_pending: bool,
}

impl Collector {
    fn outputs(&mut self) -> &mut Vec<Value> {
        if self.clear_pending {
            self.clear_pending = false;
            self.clear_now();
        }
        self.cells.entry(self.current).or_default()
    }

    fn clear_now(&mut self) {
        let cell = self.current;
        self.cells.insert(cell, Vec::new());
        for v in self.ids.values_mut() {
            v.retain(|(c, _)| *c != cell);
        }
    }

    fn push(&mut self, output: Value) {
        let outs = self.outputs();
        // Consecutive text of one stream is one output, as Jupyter saves it.
        if output["output_type"] == "stream" {
            if let Some(last) = outs.last_mut() {
                if last["output_type"] == "stream" && last["name"] == output["name"] {
                    let text = format!(
                        "{}{}",
                        last["text"].as_str().unwrap_or(""),
                        output["text"].as_str().unwrap_or("")
                    );
                    last["text"] = Value::String(text);
                    return;
                }
            }
        }
        outs.push(output);
    }

    fn publish(&mut self, msg_type: &str, content: &Value) {
        match msg_type {
            "stream" => self.push(json!({
                "output_type": "stream",
                "name": content["name"],
                "text": content["text"],
            })),
            "display_data" => {
                let out = json!({
                    "output_type": "display_data",
                    "data": content["data"],
                    "metadata": content.get("metadata").cloned().unwrap_or(json!({})),
                });
                self.push(out);
                if let Some(id) = content["transient"]["display_id"].as_str() {
                    let cell = self.current;
                    let idx = self.cells[&cell].len() - 1;
                    self.ids
                        .entry(id.to_string())
                        .or_default()
                        .push((cell, idx));
                }
            }
            "update_display_data" => {
                let Some(id) = content["transient"]["display_id"].as_str() else {
                    return;
                };
                for (cell, idx) in self.ids.get(id).cloned().unwrap_or_default() {
                    if let Some(out) = self.cells.get_mut(&cell).and_then(|o| o.get_mut(idx)) {
                        out["data"] = content["data"].clone();
                        out["metadata"] = content.get("metadata").cloned().unwrap_or(json!({}));
                    }
                }
            }
            "clear_output" => {
                if content["wait"].as_bool().unwrap_or(false) {
                    self.clear_pending = true;
                } else {
                    self.clear_now();
                }
            }
            _ => {}
        }
    }
}

struct CollectSink(Mutex<Collector>);

impl Sink for CollectSink {
    fn publish(&self, msg_type: &str, content: Value) {
        self.0.locked().publish(msg_type, &content);
    }
}

// ---------------------------------------------------------------- notebook

/// A cell's source as one string (nbformat allows a string or a list of lines).
pub fn source_text(cell: &Value) -> String {
    match &cell["source"] {
        Value::String(s) => s.clone(),
        Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

fn tags(cell: &Value) -> Vec<String> {
    cell["metadata"]["tags"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Replaces `let NAME = ...;` (also `let mut NAME: T = ...;`) in `source` with
/// the given values; returns the new source and the names not found.
pub fn apply_params(source: &str, params: &[(String, String)]) -> (String, Vec<String>) {
    let mut found = vec![false; params.len()];
    let mut out = Vec::new();
    for line in source.split('\n') {
        let mut new_line = line.to_string();
        for (pi, (name, value)) in params.iter().enumerate() {
            if let Some(prefix) = let_prefix(line, name) {
                new_line = format!("{prefix}{value};");
                found[pi] = true;
            }
        }
        out.push(new_line);
    }
    let missing = params
        .iter()
        .zip(found)
        .filter(|(_, f)| !f)
        .map(|((n, _), _)| n.clone())
        .collect();
    (out.join("\n"), missing)
}

/// For `let [mut] NAME[: T] = value;` returns the text up to and including `= `.
fn let_prefix(line: &str, name: &str) -> Option<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let rest = line.trim_start().strip_prefix("let ")?.trim_start();
    let (mutable, rest) = match rest.strip_prefix("mut ") {
        Some(r) => (true, r.trim_start()),
        None => (false, rest),
    };
    let rest = rest.strip_prefix(name)?;
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let eq = rest.find('=')?;
    let ty = rest[..eq].trim();
    if !(ty.is_empty() || ty.starts_with(':')) || rest[eq + 1..].starts_with('=') {
        return None;
    }
    if !rest.trim_end().contains(';') {
        return None;
    }
    Some(format!(
        "{indent}let {}{name}{} = ",
        if mutable { "mut " } else { "" },
        if ty.is_empty() {
            String::new()
        } else {
            ty.to_string()
        }
    ))
}

/// The first lines of a source, for messages.
fn source_head(source: &str) -> String {
    let lines: Vec<&str> = source.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut head = lines
        .iter()
        .take(3)
        .copied()
        .collect::<Vec<_>>()
        .join("\n    ");
    if lines.len() > 3 {
        head.push_str("\n    ...");
    }
    head
}

/// Runs the notebook; returns the process exit code.
pub fn run(opts: &RunOptions) -> Result<i32> {
    let text = std::fs::read_to_string(&opts.notebook)
        .with_context(|| format!("cannot read {}", opts.notebook.display()))?;
    let mut nb: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a notebook (JSON)", opts.notebook.display()))?;
    if nb["nbformat"].as_u64() != Some(4) || !nb["cells"].is_array() {
        bail!(
            "{}: only nbformat 4 notebooks are supported",
            opts.notebook.display()
        );
    }
    let nb_path = std::fs::canonicalize(&opts.notebook)?;
    let out_path = opts.output.clone().unwrap_or_else(|| {
        let stem = nb_path.file_stem().unwrap_or_default().to_string_lossy();
        nb_path.with_file_name(format!("{stem}.out.ipynb"))
    });
    let out_path = absolute(&out_path)?;
    let html_path = opts.html.as_ref().map(|p| absolute(p)).transpose()?;

    // Parameters.
    if !opts.params.is_empty() {
        let Some(cells) = nb["cells"].as_array_mut() else {
            bail!("{}: the notebook has no cells", opts.notebook.display());
        };
        let Some(cell) = cells
            .iter_mut()
            .find(|c| tags(c).iter().any(|t| t == "parameters"))
        else {
            bail!("--param given, but no cell is tagged `parameters`");
        };
        let (source, missing) = apply_params(&source_text(cell), &opts.params);
        if !missing.is_empty() {
            bail!(
                "no `let NAME = ...;` line for {} in the `parameters` cell:\n    {}",
                missing.join(", "),
                source_head(&source_text(cell))
            );
        }
        cell["source"] = Value::String(source);
    }

    // Cells run in the notebook's folder, as in Jupyter.
    if let Some(dir) = nb_path.parent() {
        std::env::set_current_dir(dir)
            .with_context(|| format!("cannot enter {}", dir.display()))?;
    }
    let mut env = environment();
    let started = std::time::Instant::now();
    let launch = if opts.spmd {
        cuprite::nccl::Launch::from_env().context("--spmd: reading the launcher's environment")?
    } else {
        cuprite::nccl::Launch::from_lookup(|_| None)?
    };
    if opts.spmd {
        spmd::default_device_for_rank(&launch)?;
    }
    let rank = launch.rank;
    // One build folder per notebook, named after its path (not after a
    // JPY_SESSION_NAME inherited from a Jupyter session around us); one per
    // rank, since ranks of one host build at the same time.
    let mut build_key = nb_path.to_string_lossy().to_string();
    if opts.spmd {
        build_key.push_str(&format!("#rank{rank}"));
    }
    let build = crate::build_dir::acquire(&crate::paths::cache_dir().join("builds"), &build_key)?;
    let socket_path = side_channel::socket_path()?;
    let token = uuid::Uuid::new_v4().simple().to_string();
    std::env::set_var("EVCXR_TMPDIR", build.ctx());
    std::env::set_var(cuprite_kernel_io::SOCKET_ENV, &socket_path);
    std::env::set_var(cuprite_kernel_io::TOKEN_ENV, &token);
    std::env::remove_var(cuprite_kernel_io::ACTIVE_ENV);
    std::env::remove_var(cuprite_kernel_io::INTERRUPT_FLAG_ENV);

    let collector = Arc::new(CollectSink(Mutex::new(Collector::default())));
    let side = SideChannel::listen(&socket_path, token, collector.clone())
        .with_context(|| format!("cannot listen on {}", socket_path.display()))?;
    let input: InputFn = Arc::new(|_: &str, _: bool| None);
    let session = Session::start(side, collector.clone(), input, build.seeder())
        .context("cannot start the session thread")?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let me = spmd::RankInfo {
        rank,
        host: hostname(),
        gpus: gpu_names(),
    };
    // Ranks connect while their sessions warm up.
    let spmd = match spmd::Spmd::join(&launch, me.clone()) {
        Ok(s) => s,
        Err(e) => {
            session.kill();
            return Err(e.context(format!(
                "--spmd: rank {rank} could not join the other ranks"
            )));
        }
    };
    if opts.spmd {
        let world = spmd.as_ref().map_or_else(|| vec![me], |s| s.world.clone());
        env.insert("spmd".into(), spmd::world_metadata(&world));
    }

    let n_cells = nb["cells"].as_array().map_or(0, Vec::len);
    let mut count = 0u64;
    let mut failure: Option<String> = None;
    for i in 0..n_cells {
        let cell = &nb["cells"][i];
        if cell["cell_type"] != "code" {
            continue;
        }
        let source = source_text(cell);
        let cell_tags = tags(cell);
        if failure.is_some() {
            nb["cells"][i]["outputs"] = json!([]);
            nb["cells"][i]["execution_count"] = Value::Null;
            continue;
        }
        if source.trim().is_empty() {
            nb["cells"][i]["outputs"] = json!([]);
            nb["cells"][i]["execution_count"] = Value::Null;
            continue;
        }
        count += 1;
        collector.0.locked().current = i;
        eprintln!("cuprite-kernel run: cell {} (In [{count}])", i + 1);
        let req = ExecRequest {
            code: source.clone(),
            allow_stdin: false,
        };
        let (outcome, stopped) = rt.block_on(execute_rank(&session, req, spmd.as_ref(), i));
        let mut c = collector.0.locked();
        for (name, text) in [
            ("stderr", &outcome.stderr_after),
            ("stdout", &outcome.stdout_after),
        ] {
            if !text.is_empty() {
                c.publish("stream", &json!({"name": name, "text": text}));
            }
        }
        match &outcome.result {
            Ok(Some(data)) => c.push(json!({
                "output_type": "execute_result",
                "execution_count": count,
                "data": data,
                "metadata": {},
            })),
            Ok(None) => {}
            Err(e) => {
                c.push(json!({
                    "output_type": "error",
                    "ename": e.ename,
                    "evalue": e.evalue,
                    "traceback": e.traceback,
                }));
                if spmd.is_none() && !cell_tags.iter().any(|t| t == "raises-exception") {
                    let detail = strip_ansi(&e.traceback.join("\n"));
                    failure = Some(format!(
                        "cell {} of {n_cells} (index {i}, In [{count}]) failed: {}: {}\n  source:\n    {}\n  traceback:\n{}",
                        i + 1,
                        e.ename,
                        e.evalue.lines().next().unwrap_or(""),
                        source_head(&source),
                        detail
                            .lines()
                            .take(30)
                            .map(|l| format!("    {l}"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    ));
                }
            }
        }
        if c.clear_pending {
            // clear_output(wait) with nothing after it: Jupyter keeps the old outputs.
            c.clear_pending = false;
        }
        drop(c);
        if let Some(s) = &spmd {
            let expected = cell_tags.iter().any(|t| t == "raises-exception");
            let mine = match &outcome.result {
                Err(e) if stopped => Some(format!("{}: {}", spmd::STOPPED, e.ename)),
                Err(e) if !expected => Some(format!(
                    "{}: {}",
                    e.ename,
                    e.evalue.lines().next().unwrap_or("")
                )),
                _ => None,
            };
            let failed = s.cell_done(i, mine);
            if !failed.is_empty() {
                let lines: Vec<String> = failed
                    .iter()
                    .map(|(r, e)| format!("rank {r}: {e}"))
                    .collect();
                let ranks: Vec<String> = failed.iter().map(|(r, _)| r.to_string()).collect();
                let text = format!(
                    "cell {} failed on rank(s) {} of {}:\n{}\n",
                    i + 1,
                    ranks.join(", "),
                    s.world.len(),
                    lines.join("\n")
                );
                collector
                    .0
                    .locked()
                    .publish("stream", &json!({"name": "stderr", "text": text}));
                failure = Some(format!("{text}  source:\n    {}", source_head(&source)));
            }
        }
        nb["cells"][i]["execution_count"] = json!(count);
    }
    session.kill();
    let _ = std::fs::remove_file(&socket_path);
    drop(build);

    // Outputs into the notebook.
    let mut c = collector.0.locked();
    for i in 0..n_cells {
        if nb["cells"][i]["cell_type"] == "code" {
            let outs = c.cells.remove(&i).unwrap_or_default();
            nb["cells"][i]["outputs"] = Value::Array(outs);
            if !nb["cells"][i]["metadata"].is_object() {
                nb["cells"][i]["metadata"] = json!({});
            }
        }
    }
    drop(c);
    let elapsed = started.elapsed().as_secs_f64();
    if rank != 0 {
        // Rank 0 writes the notebook and the report; the others say how they ended.
        return Ok(match failure {
            Some(msg) => {
                eprintln!("cuprite-kernel run: rank {rank}: {msg}");
                1
            }
            None => 0,
        });
    }
    env.insert("run_seconds".into(), json!((elapsed * 10.0).round() / 10.0));
    let meta = nb["metadata"]
        .as_object_mut()
        .context("the notebook's metadata is not an object")?;
    let cuprite = meta.entry("cuprite").or_insert_with(|| json!({}));
    if !cuprite.is_object() {
        *cuprite = json!({});
    }
    cuprite["environment"] = Value::Object(env.clone());
    if !opts.params.is_empty() {
        cuprite["parameters"] = Value::Object(
            opts.params
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        );
    }
    cuprite["status"] = json!(if failure.is_some() { "failed" } else { "ok" });
    meta.entry("kernelspec").or_insert_with(|| {
        json!({"name": crate::install::DEFAULT_NAME, "display_name": "Rust (Cuprite)", "language": "rust"})
    });
    meta.entry("language_info").or_insert_with(
        || json!({"name": "rust", "file_extension": ".rs", "mimetype": "text/rust", "version": ""}),
    );

    let text = serde_json::to_string_pretty(&nb)? + "\n";
    std::fs::write(&out_path, text)
        .with_context(|| format!("cannot write {}", out_path.display()))?;
    eprintln!("cuprite-kernel run: wrote {}", out_path.display());
    if let Some(h) = &html_path {
        let title = nb_path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        std::fs::write(h, report_html(&nb, &title, &env))
            .with_context(|| format!("cannot write {}", h.display()))?;
        eprintln!("cuprite-kernel run: wrote {}", h.display());
    }
    match failure {
        Some(msg) => {
            eprintln!("cuprite-kernel run: {}: {msg}", opts.notebook.display());
            Ok(1)
        }
        None => {
            eprintln!(
                "cuprite-kernel run: {} ran {count} cells in {elapsed:.1} s",
                opts.notebook.display()
            );
            Ok(0)
        }
    }
}

/// Runs one cell; in an SPMD run, interrupts it once another rank failed the
/// same cell (again every few seconds, in case the first interrupt came
/// before the cell started). Returns the outcome and whether it was stopped.
async fn execute_rank(
    session: &Session,
    req: ExecRequest,
    spmd: Option<&spmd::Spmd>,
    cell: usize,
) -> (crate::session::ExecOutcome, bool) {
    let Some(spmd) = spmd else {
        return (session.execute(req).await, false);
    };
    let run = session.execute(req);
    tokio::pin!(run);
    let mut interrupted: Option<std::time::Instant> = None;
    loop {
        tokio::select! {
            outcome = &mut run => return (outcome, interrupted.is_some()),
            _ = tokio::time::sleep(std::time::Duration::from_millis(100)) => {
                let again = interrupted.is_none_or(|t| t.elapsed().as_secs() >= 5);
                if again && spmd.aborted(cell) {
                    session.interrupt();
                    interrupted = Some(std::time::Instant::now());
                }
            }
        }
    }
}

fn absolute(p: &Path) -> Result<PathBuf> {
    Ok(if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()?.join(p)
    })
}

// ---------------------------------------------------------------- environment

/// GPU, driver, CUDA, Cuprite/evcxr/rustc versions, date and host.
pub fn environment() -> Map<String, Value> {
    let mut m = Map::new();
    let gpus = gpu_names();
    m.insert(
        "gpus".into(),
        Value::Array(gpus.iter().map(|g| json!(g)).collect()),
    );
    m.insert("gpu".into(), gpus.first().map_or(Value::Null, |g| json!(g)));
    m.insert(
        "driver".into(),
        nvidia_driver_version().map_or(Value::Null, Value::String),
    );
    m.insert(
        "cuda".into(),
        crate::cli::cuda_driver_version().map_or(Value::Null, Value::String),
    );
    m.insert("cuprite".into(), json!(env!("CARGO_PKG_VERSION")));
    m.insert("evcxr".into(), json!(crate::sources::EVCXR_VERSION));
    m.insert(
        "rustc".into(),
        std::process::Command::new("rustc")
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map_or(Value::Null, |o| {
                json!(String::from_utf8_lossy(&o.stdout).trim())
            }),
    );
    m.insert(
        "date".into(),
        json!(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
    );
    m.insert("host".into(), json!(hostname()));
    m.insert(
        "device".into(),
        json!(
            std::env::var("CUPRITE_DEVICE").unwrap_or_else(|_| if gpus.is_empty() {
                "cpu".into()
            } else {
                "cuda:0".into()
            })
        ),
    );
    m
}

pub(crate) fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    if r != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).to_string()
}

/// The names of the CUDA devices the driver reports (no context is created).
fn gpu_names() -> Vec<String> {
    type Init = unsafe extern "C" fn(u32) -> i32;
    type Count = unsafe extern "C" fn(*mut i32) -> i32;
    type Get = unsafe extern "C" fn(*mut i32, i32) -> i32;
    type Name = unsafe extern "C" fn(*mut libc::c_char, i32, i32) -> i32;
    for lib in ["libcuda.so.1", "libcuda.so"] {
        // SAFETY: loading the driver runs only its own initialisers.
        let Ok(lib) = (unsafe { libloading::Library::new(lib) }) else {
            continue;
        };
        // SAFETY: the signatures match the CUDA driver API.
        let names = unsafe {
            let (Ok(init), Ok(count), Ok(get), Ok(name)) = (
                lib.get::<Init>(b"cuInit\0"),
                lib.get::<Count>(b"cuDeviceGetCount\0"),
                lib.get::<Get>(b"cuDeviceGet\0"),
                lib.get::<Name>(b"cuDeviceGetName\0"),
            ) else {
                return Vec::new();
            };
            if init(0) != 0 {
                return Vec::new();
            }
            let mut n = 0;
            if count(&mut n) != 0 {
                return Vec::new();
            }
            let mut out = Vec::new();
            for i in 0..n {
                let mut dev = 0;
                let mut buf = [0 as libc::c_char; 256];
                if get(&mut dev, i) == 0 && name(buf.as_mut_ptr(), 255, dev) == 0 {
                    out.push(
                        std::ffi::CStr::from_ptr(buf.as_ptr())
                            .to_string_lossy()
                            .to_string(),
                    );
                }
            }
            out
        };
        return names;
    }
    Vec::new()
}

/// The NVIDIA driver's version ("580.95.05"), through NVML when present.
fn nvidia_driver_version() -> Option<String> {
    type Init = unsafe extern "C" fn() -> i32;
    type Version = unsafe extern "C" fn(*mut libc::c_char, u32) -> i32;
    for lib in ["libnvidia-ml.so.1", "libnvidia-ml.so"] {
        // SAFETY: loading NVML runs only its own initialisers.
        let Ok(lib) = (unsafe { libloading::Library::new(lib) }) else {
            continue;
        };
        // SAFETY: the signatures match NVML's.
        return unsafe {
            let init = lib.get::<Init>(b"nvmlInit_v2\0").ok()?;
            let version = lib.get::<Version>(b"nvmlSystemGetDriverVersion\0").ok()?;
            if init() != 0 {
                return None;
            }
            let mut buf = [0 as libc::c_char; 96];
            if version(buf.as_mut_ptr(), 96) != 0 {
                return None;
            }
            if let Ok(shutdown) = lib.get::<Init>(b"nvmlShutdown\0") {
                shutdown();
            }
            Some(
                std::ffi::CStr::from_ptr(buf.as_ptr())
                    .to_string_lossy()
                    .to_string(),
            )
        };
    }
    None
}

// ---------------------------------------------------------------- HTML report

fn esc(s: &str) -> String {
    cuprite_display::html::escape(s)
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(lines) => lines.iter().filter_map(Value::as_str).collect(),
        other => other.to_string(),
    }
}

/// A little Markdown: headings, paragraphs, lists, code blocks, `code`, **bold**, *italic*.
fn markdown_html(src: &str) -> String {
    let mut out = String::new();
    let mut para: Vec<String> = Vec::new();
    let mut in_list = false;
    let mut in_code = false;
    let flush = |para: &mut Vec<String>, out: &mut String| {
        if !para.is_empty() {
            out.push_str(&format!("<p>{}</p>\n", inline_md(&para.join(" "))));
            para.clear();
        }
    };
    for line in src.lines() {
        if line.trim_start().starts_with("```") {
            flush(&mut para, &mut out);
            out.push_str(if in_code {
                "</code></pre>\n"
            } else {
                "<pre><code>"
            });
            in_code = !in_code;
            continue;
        }
        if in_code {
            out.push_str(&esc(line));
            out.push('\n');
            continue;
        }
        let t = line.trim();
        let item = t.strip_prefix("- ").or_else(|| t.strip_prefix("* "));
        if item.is_none() && in_list {
            out.push_str("</ul>\n");
            in_list = false;
        }
        if t.is_empty() {
            flush(&mut para, &mut out);
        } else if let Some(h) = t.strip_prefix('#') {
            flush(&mut para, &mut out);
            let level = 1 + h.chars().take_while(|&c| c == '#').count();
            let text = h.trim_start_matches('#').trim();
            out.push_str(&format!("<h{level}>{}</h{level}>\n", inline_md(text)));
        } else if let Some(item) = item {
            flush(&mut para, &mut out);
            if !in_list {
                out.push_str("<ul>\n");
                in_list = true;
            }
            out.push_str(&format!("<li>{}</li>\n", inline_md(item)));
        } else {
            para.push(t.to_string());
        }
    }
    flush(&mut para, &mut out);
    if in_list {
        out.push_str("</ul>\n");
    }
    if in_code {
        out.push_str("</code></pre>\n");
    }
    out
}

fn inline_md(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("<code>{}</code>", esc(part)));
        } else {
            let e = wrap_pairs(&esc(part), "**", "b");
            out.push_str(&wrap_pairs(&e, "*", "i"));
        }
    }
    out
}

/// Wraps text between pairs of `mark` in `<tag>`; an unpaired mark stays.
fn wrap_pairs(s: &str, mark: &str, tag: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(a) = rest.find(mark) {
        let after = &rest[a + mark.len()..];
        let Some(b) = after.find(mark) else { break };
        out.push_str(&rest[..a]);
        out.push_str(&format!("<{tag}>{}</{tag}>", &after[..b]));
        rest = &after[b + mark.len()..];
    }
    out.push_str(rest);
    out
}

fn output_html(out: &Value) -> String {
    match out["output_type"].as_str().unwrap_or("") {
        "stream" => format!(
            "<pre class=\"{}\">{}</pre>",
            if out["name"] == "stderr" {
                "stderr"
            } else {
                "stdout"
            },
            esc(&text_of(&out["text"]))
        ),
        "error" => format!(
            "<pre class=\"error\">{}</pre>",
            esc(&strip_ansi(
                &out["traceback"]
                    .as_array()
                    .map(|a| a.iter().map(text_of).collect::<Vec<_>>().join("\n"))
                    .unwrap_or_default()
            ))
        ),
        "execute_result" | "display_data" => {
            let d = &out["data"];
            if let Some(png) = d.get("image/png") {
                let size = &out["metadata"]["image/png"];
                let w = size["width"]
                    .as_u64()
                    .map(|w| format!(" width=\"{w}\""))
                    .unwrap_or_default();
                format!(
                    "<img{w} alt=\"{}\" src=\"data:image/png;base64,{}\">",
                    esc(&text_of(&d["text/plain"])),
                    text_of(png).replace('\n', "")
                )
            } else if let Some(svg) = d.get("image/svg+xml") {
                format!("<div class=\"svg\">{}</div>", text_of(svg))
            } else if let Some(html) = d.get("text/html") {
                format!("<div class=\"html\">{}</div>", text_of(html))
            } else if let Some(md) = d.get("text/markdown") {
                markdown_html(&text_of(md))
            } else {
                format!("<pre>{}</pre>", esc(&text_of(&d["text/plain"])))
            }
        }
        _ => String::new(),
    }
}

/// The executed notebook as one HTML page: environment, cells and outputs
/// (images inlined as data URLs, no external resources).
pub fn report_html(nb: &Value, title: &str, env: &Map<String, Value>) -> String {
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    h.push_str(&format!("<title>{}</title>\n", esc(title)));
    h.push_str(
        "<style>\n\
         body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\n\
         .cell{margin:1em 0}\n\
         .code .src{background:#f6f8fa;border:1px solid #ddd;border-radius:4px;padding:.5em;overflow-x:auto}\n\
         .prompt{color:#307fc1;font-family:monospace;font-size:.85em}\n\
         .outputs{padding:.3em .5em;border-left:3px solid #e0e0e0;margin-top:.3em;overflow-x:auto}\n\
         pre{margin:.2em 0;white-space:pre-wrap}\n\
         pre.stderr{background:#fff5f5}\n\
         pre.error{background:#fdd;color:#900;padding:.4em}\n\
         table.env{border-collapse:collapse;font-size:.9em}\n\
         table.env td{border:1px solid #ddd;padding:2px 8px}\n\
         .outputs table{border-collapse:collapse}\n\
         .outputs td,.outputs th{padding:2px 6px}\n\
         </style></head><body>\n",
    );
    h.push_str(&format!("<h1 class=\"report-title\">{}</h1>\n", esc(title)));
    h.push_str("<table class=\"env\"><tbody>\n");
    for (k, v) in env {
        let text = match v {
            Value::String(s) => s.clone(),
            Value::Null => "—".into(),
            Value::Array(a) if a.is_empty() => "none".into(),
            Value::Array(a) => a.iter().map(text_of).collect::<Vec<_>>().join(", "),
            other => other.to_string(),
        };
        h.push_str(&format!(
            "<tr><td>{}</td><td>{}</td></tr>\n",
            esc(k),
            esc(&text)
        ));
    }
    h.push_str("</tbody></table>\n");
    if let Some(p) = nb["metadata"]["cuprite"]["parameters"].as_object() {
        h.push_str("<p>Parameters: ");
        let items: Vec<String> = p
            .iter()
            .map(|(k, v)| format!("<code>{} = {}</code>", esc(k), esc(&text_of(v))))
            .collect();
        h.push_str(&items.join(", "));
        h.push_str("</p>\n");
    }
    for cell in nb["cells"].as_array().into_iter().flatten() {
        let src = source_text(cell);
        match cell["cell_type"].as_str() {
            Some("markdown") => {
                h.push_str("<div class=\"cell markdown\">\n");
                h.push_str(&markdown_html(&src));
                h.push_str("</div>\n");
            }
            Some("code") => {
                let n = cell["execution_count"]
                    .as_u64()
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| " ".into());
                h.push_str("<div class=\"cell code\">\n");
                h.push_str(&format!(
                    "<div class=\"prompt\">In [{n}]:</div><pre class=\"src\"><code>{}</code></pre>\n",
                    esc(&src)
                ));
                let outs = cell["outputs"].as_array().cloned().unwrap_or_default();
                if !outs.is_empty() {
                    h.push_str("<div class=\"outputs\">\n");
                    for o in &outs {
                        h.push_str(&output_html(o));
                        h.push('\n');
                    }
                    h.push_str("</div>\n");
                }
                h.push_str("</div>\n");
            }
            _ => {
                h.push_str(&format!("<pre>{}</pre>\n", esc(&src)));
            }
        }
    }
    h.push_str("</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn arguments() {
        let o = parse_args(&strings(&[
            "a.ipynb",
            "--output",
            "b.ipynb",
            "--html=r.html",
            "--param",
            "n=5",
            "-p",
            "name=\"x=y\"",
        ]))
        .unwrap();
        assert_eq!(o.notebook, PathBuf::from("a.ipynb"));
        assert_eq!(o.output, Some(PathBuf::from("b.ipynb")));
        assert_eq!(o.html, Some(PathBuf::from("r.html")));
        assert_eq!(
            o.params,
            vec![("n".into(), "5".into()), ("name".into(), "\"x=y\"".into())]
        );
        assert!(!o.spmd);
        assert!(parse_args(&strings(&["--spmd", "a.ipynb"])).unwrap().spmd);
        assert!(parse_args(&strings(&["--param", "novalue", "a.ipynb"])).is_err());
        assert!(parse_args(&strings(&["--output", "b.ipynb"])).is_err());
        assert!(names_notebook(&strings(&["x/y.IPYNB"])));
        assert!(!names_notebook(&strings(&["--connection-file", "k.json"])));
    }

    #[test]
    fn parameters_replace_let_lines() {
        let src = "// defaults\nlet n = 10;\nlet mut scale: f64 = 1.5; // comment\nlet name = \"a\";\nlet nn = 3;";
        let (out, missing) = apply_params(
            src,
            &[
                ("n".into(), "20".into()),
                ("scale".into(), "2.0".into()),
                ("zzz".into(), "1".into()),
            ],
        );
        assert_eq!(
            out,
            "// defaults\nlet n = 20;\nlet mut scale: f64 = 2.0;\nlet name = \"a\";\nlet nn = 3;"
        );
        assert_eq!(missing, vec!["zzz".to_string()]);
    }

    #[test]
    fn outputs_collect_like_jupyter() {
        let mut c = Collector {
            current: 2,
            ..Collector::default()
        };
        c.publish("stream", &json!({"name": "stdout", "text": "a"}));
        c.publish("stream", &json!({"name": "stdout", "text": "b\n"}));
        c.publish(
            "display_data",
            &json!({"data": {"text/plain": "0%"}, "metadata": {}, "transient": {"display_id": "p"}}),
        );
        c.current = 3;
        c.publish(
            "update_display_data",
            &json!({"data": {"text/plain": "100%"}, "metadata": {}, "transient": {"display_id": "p"}}),
        );
        c.publish("stream", &json!({"name": "stdout", "text": "x"}));
        c.publish("clear_output", &json!({"wait": true}));
        c.publish("stream", &json!({"name": "stdout", "text": "y"}));
        assert_eq!(c.cells[&2].len(), 2);
        assert_eq!(c.cells[&2][0]["text"], "ab\n");
        assert_eq!(c.cells[&2][1]["data"]["text/plain"], "100%");
        assert_eq!(
            c.cells[&3],
            vec![json!({"output_type": "stream", "name": "stdout", "text": "y"})]
        );
    }

    #[test]
    fn report_has_outputs_and_images() {
        let nb = json!({
            "cells": [
                {"cell_type": "markdown", "source": ["# Title\n", "Some `code` and **bold**."], "metadata": {}},
                {"cell_type": "code", "source": "1 + 1", "execution_count": 1, "metadata": {},
                 "outputs": [
                    {"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": "2"}, "metadata": {}},
                    {"output_type": "display_data", "data": {"text/plain": "<img>", "image/png": "iVBORw0KGgo="}, "metadata": {"image/png": {"width": 10, "height": 5}}},
                    {"output_type": "stream", "name": "stderr", "text": "<warn>"}
                 ]}
            ],
            "metadata": {}
        });
        let mut env = Map::new();
        env.insert("gpu".into(), Value::Null);
        let h = report_html(&nb, "t.ipynb", &env);
        assert!(h.contains("<h1>Title</h1>"), "{h}");
        assert!(h.contains("<code>code</code> and <b>bold</b>."), "{h}");
        assert!(h.contains("In [1]:"));
        assert!(h.contains("<pre>2</pre>"));
        assert!(h.contains(
            "<img width=\"10\" alt=\"&lt;img&gt;\" src=\"data:image/png;base64,iVBORw0KGgo=\">"
        ));
        assert!(h.contains("&lt;warn&gt;"));
    }
}
