//! Fast rebuilds of the cell crate.
//!
//! evcxr builds every cell with `cargo build`, and cargo spends about 100 ms
//! of each call (a third of a trivial cell on 2 cores) loading the manifests
//! and lock of the ~170 crates cells link to, although only the cell's own
//! source changed. evcxr offers no hook for that command, but it runs it as
//! `mold -run CARGO build ...` when a `mold` is on `PATH`; so the kernel puts
//! its own binary first on `PATH` under that name ([`install`]):
//!
//! - when the manifest, lock, cargo configuration, environment and toolchain
//!   are those of an earlier build, the cell crate's rustc command as cargo
//!   ran it then runs again on the new source, and cargo's artifact message is
//!   printed as cargo printed it ([`replay`]);
//! - anything else (another command, a changed input, a dependency whose
//!   sources may change, a replay that fails) goes to cargo, under the real
//!   `mold` when there is one, which records the cell crate's rustc command
//!   through `RUSTC_WRAPPER` for next time. A failed cell thus always gets
//!   cargo's own error messages.

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The name the kernel binary answers to as evcxr's build command.
pub const MOLD_NAME: &str = "mold";
/// The name it answers to as cargo's `RUSTC_WRAPPER` while recording.
pub const RECORDER_NAME: &str = "cuprite-record-rustc";
/// The folder of the two links (first on `PATH`).
const BIN_ENV: &str = "CUPRITE_CELL_BUILD_BIN";
/// The crates' folder, when its contents never change (path dependencies
/// inside it may be replayed).
const FIXED_SOURCES_ENV: &str = "CUPRITE_CELL_BUILD_FIXED_SOURCES";
/// Where the recorder writes the rustc command it saw.
const RECORD_TO_ENV: &str = "CUPRITE_CELL_BUILD_RECORD_TO";
/// evcxr's name for the cell crate.
const CELL_CRATE: &str = "ctx";

/// Cargo's environment for rustc that must not be replayed: the jobserver's
/// file descriptors exist only inside that cargo run.
const NOT_REPLAYED: &[&str] = &["CARGO_MAKEFLAGS", "MAKEFLAGS", "MFLAGS", RECORD_TO_ENV];

/// Variables cargo would rebuild cudarc (and every crate above it) for when
/// they change (its build script watches them), although Cuprite fixes the
/// CUDA version and loads CUDA at run time. Cell builds run without them, so
/// a build folder warmed under one module environment (an admin's
/// `prewarm --shared`, with `module load CUDA`) stays warm in another.
const NOT_FOR_BUILDS: &[&str] = &[
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_ROOT",
    "CUDA_TOOLKIT_ROOT_DIR",
    "CUDNN_LIB",
    "CUDARC_CUDA_VERSION",
];

/// One recorded build of the cell crate.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Record {
    /// rustc and its arguments, as cargo ran them.
    argv: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    cwd: PathBuf,
    /// cargo's `compiler-artifact` line for the cell crate.
    artifact: String,
}

/// Makes evcxr's cell builds go through this binary: links named `mold` and
/// [`RECORDER_NAME`] in `root/bin`, that folder first on `PATH`. `sources`
/// is the crates' folder, `fixed` whether its contents never change (the
/// unpacked, versioned copy; not `CUPRITE_KERNEL_SOURCES`). Call before evcxr
/// starts, while no other thread reads the environment. Failures only cost
/// speed.
pub fn install(root: &Path, sources: &Path, fixed: bool) {
    let bin = root.join("bin");
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    if std::fs::create_dir_all(&bin).is_err() {
        return;
    }
    for name in [MOLD_NAME, RECORDER_NAME] {
        let link = bin.join(name);
        let _ = std::fs::remove_file(&link);
        if std::os::unix::fs::symlink(&exe, &link).is_err() {
            return;
        }
    }
    let mut paths = vec![bin.clone()];
    if let Some(old) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&old).filter(|p| p != &bin));
    }
    let Ok(path) = std::env::join_paths(paths) else {
        return;
    };
    std::env::set_var("PATH", path);
    std::env::set_var(BIN_ENV, &bin);
    if fixed {
        std::env::set_var(FIXED_SOURCES_ENV, sources);
    } else {
        std::env::remove_var(FIXED_SOURCES_ENV);
    }
}

/// Which role `argv[0]` asks for, if it is one of this module's.
pub fn role(argv0: &std::ffi::OsStr) -> Option<&'static str> {
    let name = Path::new(argv0).file_name()?;
    [MOLD_NAME, RECORDER_NAME].into_iter().find(|n| name == *n)
}

/// `mold ARGS`: evcxr's `mold -run CARGO ARGS...`.
pub fn mold_main(args: Vec<OsString>) -> i32 {
    let real_mold = find_real("mold");
    let [run, cargo, cargo_args @ ..] = &args[..] else {
        return exec_real_mold(real_mold, &args);
    };
    if run != "-run" {
        return exec_real_mold(real_mold, &args);
    }
    let started = std::time::Instant::now();
    let dir = std::env::current_dir().unwrap_or_default();
    if let Some(code) = replay_check(cargo_args, &dir) {
        count_replay(&dir);
        debug(
            &dir,
            format_args!(
                "checked the cell crate with rustc in {:.0?}",
                started.elapsed()
            ),
        );
        return code;
    }
    let key = replay_key(cargo_args, &dir);
    if let Some(key) = key {
        if let Some(record) = load(&dir, key) {
            if replay(&record, real_mold.as_deref()) {
                count_replay(&dir);
                debug(
                    &dir,
                    format_args!(
                        "replayed the cell crate's rustc in {:.0?}",
                        started.elapsed()
                    ),
                );
                return 0;
            }
        }
    }
    let code = run_cargo(cargo, cargo_args, real_mold.as_deref(), &dir, key);
    debug(
        &dir,
        format_args!(
            "cargo {} ({}) in {:.0?}",
            cargo_args
                .iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            if key.is_some() {
                "recording"
            } else {
                "not replayable"
            },
            started.elapsed()
        ),
    );
    code
}

/// `cuprite-record-rustc RUSTC ARGS...`: cargo's rustc wrapper while
/// recording. Writes down the cell crate's command, then runs rustc.
pub fn recorder_main(args: Vec<OsString>) -> i32 {
    let Some((rustc, rest)) = args.split_first() else {
        eprintln!("{RECORDER_NAME}: no rustc to run");
        return 101;
    };
    if let Some(to) = std::env::var_os(RECORD_TO_ENV) {
        if is_cell_crate(rest) {
            let record = Record {
                argv: args.clone(),
                env: std::env::vars_os()
                    .filter(|(k, _)| !NOT_REPLAYED.iter().any(|n| k == n))
                    .collect(),
                cwd: std::env::current_dir().unwrap_or_default(),
                artifact: String::new(),
            };
            if let Ok(text) = serde_json::to_vec(&record) {
                let _ = std::fs::write(to, text);
            }
        }
    }
    use std::os::unix::process::CommandExt;
    let err = Command::new(rustc).args(rest).exec();
    eprintln!(
        "{RECORDER_NAME}: cannot run {}: {err}",
        rustc.to_string_lossy()
    );
    101
}

fn is_cell_crate(rustc_args: &[OsString]) -> bool {
    rustc_args
        .windows(2)
        .any(|w| w[0] == "--crate-name" && w[1] == CELL_CRATE)
}

/// Where cargo's subcommand is in its arguments (the first that is not an
/// option: evcxr may put `--offline` before it; rust-analyzer puts none).
pub fn subcommand_at(cargo_args: &[OsString]) -> Option<usize> {
    cargo_args
        .iter()
        .position(|a| !a.to_string_lossy().starts_with('-'))
}

/// What identifies a build's inputs other than the cell's source, or `None`
/// when the build may not be replayed.
fn replay_key(cargo_args: &[OsString], dir: &Path) -> Option<u64> {
    if subcommand_at(cargo_args).is_none_or(|at| cargo_args[at] != "build") {
        return None;
    }
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let fixed = std::env::var_os(FIXED_SOURCES_ENV).map(PathBuf::from);
    if !dependencies_are_fixed(&manifest, fixed.as_deref()) {
        return None;
    }
    let mut h = std::hash::DefaultHasher::new();
    cargo_args.hash(&mut h);
    dir.hash(&mut h);
    manifest.hash(&mut h);
    for file in ["Cargo.lock", ".cargo/config.toml", "../.cargo/config.toml"] {
        std::fs::read(dir.join(file)).ok().hash(&mut h);
    }
    // evcxr sets EVCXR_EXECUTION_SO_PATH for builds only (its value follows
    // from `dir`), so that a check finds the build's record.
    let mut env: Vec<_> = std::env::vars_os()
        .filter(|(k, _)| k != "EVCXR_EXECUTION_SO_PATH")
        .collect();
    env.sort();
    env.hash(&mut h);
    // A toolchain updated in place keeps its paths: its rustc's size and time tell.
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    if let Ok(meta) = std::fs::metadata(&rustc) {
        meta.len().hash(&mut h);
        meta.modified().ok().hash(&mut h);
    }
    Some(h.finish())
}

/// Whether every dependency in `manifest` is one whose compiled form cannot
/// go stale without the manifest or lock changing: a registry version, or a
/// path inside `fixed` (the kernel's versioned crates). Git dependencies,
/// other paths and `[patch]` sections are not.
fn dependencies_are_fixed(manifest: &str, fixed: Option<&Path>) -> bool {
    let Ok(doc) = manifest.parse::<toml::Table>() else {
        return false;
    };
    if doc.contains_key("patch") || doc.contains_key("replace") || doc.contains_key("target") {
        return false;
    }
    ["dependencies", "build-dependencies", "dev-dependencies"]
        .iter()
        .filter_map(|section| doc.get(*section))
        .all(|deps| {
            let Some(deps) = deps.as_table() else {
                return false;
            };
            deps.values().all(|spec| match spec {
                toml::Value::String(_) => true,
                toml::Value::Table(t) => {
                    if t.contains_key("git") {
                        return false;
                    }
                    match t.get("path").map(|p| p.as_str()) {
                        None => true,
                        Some(Some(p)) => fixed.is_some_and(|f| Path::new(p).starts_with(f)),
                        Some(None) => false,
                    }
                }
                _ => false,
            })
        })
}

/// The records' folder in the cell crate's `target`.
pub const RECORDS_DIR: &str = "cuprite-cell-build";

fn record_dir(dir: &Path) -> PathBuf {
    dir.join("target").join(RECORDS_DIR)
}

/// The number of replayed builds in this folder, in `replays` beside the
/// record (read by the kernel tests and by anyone wondering).
fn count_replay(dir: &Path) {
    let file = record_dir(dir).join("replays");
    let n: u64 = std::fs::read_to_string(&file)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    let _ = std::fs::write(file, format!("{}\n", n + 1));
}

fn record_path(dir: &Path, key: u64) -> PathBuf {
    record_dir(dir).join(format!("{key:016x}.json"))
}

fn load(dir: &Path, key: u64) -> Option<Record> {
    let text = std::fs::read(record_path(dir, key)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// evcxr's `cargo check`, which it runs only to report the errors of a cell
/// whose variables it could not type (a closure in a `let`, say): in a build
/// folder that has never been checked, cargo would first check all ~170
/// dependencies (a minute on 2 cores). When a build of the same inputs was
/// recorded, its rustc command runs instead with `--emit=metadata` against
/// the built dependencies; rustc's JSON diagnostics are what evcxr reads
/// from cargo. `None`: not such a check, or no record; cargo runs.
fn replay_check(cargo_args: &[OsString], dir: &Path) -> Option<i32> {
    let position = subcommand_at(cargo_args)?;
    if cargo_args[position] != "check" {
        return None;
    }
    let mut as_build = cargo_args.to_vec();
    as_build[position] = "build".into();
    let record = load(dir, replay_key(&as_build, dir)?)?;
    let out_dir = record_dir(dir).join("check");
    std::fs::create_dir_all(&out_dir).ok()?;
    let (rustc, args) = record.argv.split_first()?;
    let args = check_args(args, &out_dir)?;
    let output = run_as_recorded(Command::new(rustc).args(args), &record).ok()?;
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(&output.stderr);
    Some(output.status.code().unwrap_or(101))
}

/// Runs `cmd` in the recorded environment and folder, keeping its stderr
/// (rustc's JSON messages).
fn run_as_recorded(cmd: &mut Command, record: &Record) -> std::io::Result<std::process::Output> {
    cmd.env_clear()
        .envs(record.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&record.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
}

/// A recorded build's rustc arguments made a check: metadata only, written
/// to `out_dir` (not over the build's files), without the build's
/// incremental folder. `None` if they are not the shape cargo writes.
fn check_args(build: &[OsString], out_dir: &Path) -> Option<Vec<OsString>> {
    let mut out = Vec::with_capacity(build.len());
    let mut emit_seen = false;
    let mut args = build.iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if text.starts_with("--emit=") {
            emit_seen = true;
            out.push("--emit=metadata".into());
        } else if text == "--out-dir" {
            args.next()?;
            out.push(arg.clone());
            out.push(out_dir.into());
        } else if text == "-C" {
            let value = args.next()?;
            if !value.to_string_lossy().starts_with("incremental=") {
                out.push(arg.clone());
                out.push(value.clone());
            }
        } else if !text.starts_with("-Cincremental=") {
            out.push(arg.clone());
        }
    }
    emit_seen.then_some(out)
}

/// Runs the recorded rustc on the current source; on success prints what
/// cargo printed and returns true. Anything else returns false, printing
/// nothing, so that cargo can run and speak for itself.
fn replay(record: &Record, real_mold: Option<&Path>) -> bool {
    let Some((rustc, args)) = record.argv.split_first() else {
        return false;
    };
    if record.artifact.is_empty() {
        return false;
    }
    let mut cmd = match real_mold {
        Some(mold) => {
            let mut c = Command::new(mold);
            c.arg("-run").arg(rustc);
            c
        }
        None => Command::new(rustc),
    };
    let Ok(output) = run_as_recorded(cmd.args(args), record) else {
        return false;
    };
    if !output.status.success() || !uplift(&record.artifact, &output.stderr) {
        return false;
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", record.artifact).is_ok()
        && writeln!(out, r#"{{"reason":"build-finished","success":true}}"#).is_ok()
        && out.flush().is_ok()
}

/// Puts what rustc wrote (`deps/libctx-HASH.so`, named in its `artifact`
/// messages) where cargo's artifact line says it is (`libctx.so`), as cargo
/// does after each build. Returns false when a file has no counterpart.
fn uplift(artifact_line: &str, rustc_stderr: &[u8]) -> bool {
    let emitted: Vec<PathBuf> = String::from_utf8_lossy(rustc_stderr)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["$message_type"] == "artifact" && m["emit"] == "link")
        .filter_map(|m| m["artifact"].as_str().map(PathBuf::from))
        .collect();
    let Ok(artifact) = serde_json::from_str::<serde_json::Value>(artifact_line) else {
        return false;
    };
    let Some(filenames) = artifact["filenames"].as_array() else {
        return false;
    };
    filenames.iter().all(|f| {
        let Some(dest) = f.as_str().map(Path::new) else {
            return false;
        };
        let Some(src) = emitted.iter().find(|e| e.extension() == dest.extension()) else {
            return false;
        };
        if src == dest {
            return true;
        }
        let _ = std::fs::remove_file(dest);
        std::fs::hard_link(src, dest).is_ok() || std::fs::copy(src, dest).is_ok()
    })
}

/// Runs cargo (under the real mold when there is one), passing its output
/// through; when `key` is some, records the cell crate's build.
fn run_cargo(
    cargo: &OsString,
    cargo_args: &[OsString],
    real_mold: Option<&Path>,
    dir: &Path,
    key: Option<u64>,
) -> i32 {
    let mut cmd = match real_mold {
        Some(mold) => {
            let mut c = Command::new(mold);
            c.arg("-run").arg(cargo);
            c
        }
        None => Command::new(cargo),
    };
    cmd.args(cargo_args).stdout(Stdio::piped());
    for var in NOT_FOR_BUILDS {
        cmd.env_remove(var);
    }
    let pending = key.and_then(|_| {
        let bin = std::env::var_os(BIN_ENV)?;
        std::fs::create_dir_all(record_dir(dir)).ok()?;
        let to = record_dir(dir).join(format!("pending-{}", std::process::id()));
        let _ = std::fs::remove_file(&to);
        cmd.env("RUSTC_WRAPPER", Path::new(&bin).join(RECORDER_NAME))
            .env(RECORD_TO_ENV, &to);
        Some(to)
    });
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cuprite-kernel: cannot run cargo: {e}");
            return 101;
        }
    };
    let mut artifact = None;
    if let Some(stdout) = child.stdout.take() {
        let mut out = std::io::stdout().lock();
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if is_cell_artifact(&line) {
                artifact = Some(line.clone());
            }
            let _ = writeln!(out, "{line}");
        }
        let _ = out.flush();
    }
    let code = match child.wait() {
        Ok(status) => status.code().unwrap_or(101),
        Err(_) => 101,
    };
    if let (Some(key), Some(to)) = (key, pending) {
        if code == 0 {
            if let Some(artifact) = artifact {
                save(dir, key, &to, artifact);
            }
        }
        let _ = std::fs::remove_file(&to);
    }
    code
}

fn is_cell_artifact(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line)
        .is_ok_and(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == CELL_CRATE)
}

/// How many records a folder keeps: a session builds with two manifests
/// (evcxr's first, dependency-free cell, then the cells'), and `:dep` or
/// `:opt` add more.
const RECORDS_KEPT: usize = 4;

/// Keeps the recorder's command with cargo's artifact line, dropping the
/// oldest records beyond [`RECORDS_KEPT`].
fn save(dir: &Path, key: u64, pending: &Path, artifact: String) {
    let Some(mut record) = std::fs::read(pending)
        .ok()
        .and_then(|t| serde_json::from_slice::<Record>(&t).ok())
    else {
        return;
    };
    record.artifact = artifact;
    let Ok(text) = serde_json::to_vec(&record) else {
        return;
    };
    if let Ok(entries) = std::fs::read_dir(record_dir(dir)) {
        let mut old: Vec<_> = entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
            .collect();
        old.sort();
        let excess = (old.len() + 1).saturating_sub(RECORDS_KEPT);
        for (_, path) in old.into_iter().take(excess) {
            let _ = std::fs::remove_file(path);
        }
    }
    let tmp = record_dir(dir).join(format!("new-{}", std::process::id()));
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, record_path(dir, key));
    }
}

/// `name` on `PATH`, leaving out this module's folder.
fn find_real(name: &str) -> Option<PathBuf> {
    let ours = std::env::var_os(BIN_ENV).map(PathBuf::from);
    std::env::split_paths(&std::env::var_os("PATH")?)
        .filter(|dir| Some(dir) != ours.as_ref())
        .map(|dir| dir.join(name))
        .find(|p| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

fn exec_real_mold(real_mold: Option<PathBuf>, args: &[OsString]) -> i32 {
    let Some(mold) = real_mold else {
        eprintln!("cuprite-kernel: `mold` is not installed (called with {args:?})");
        return 127;
    };
    use std::os::unix::process::CommandExt;
    let err = Command::new(&mold).args(args).exec();
    eprintln!("cuprite-kernel: cannot run {}: {err}", mold.display());
    127
}

/// With `CUPRITE_KERNEL_DEBUG` set, appends a line to `debug.log` beside
/// the records (evcxr keeps cargo's stderr to itself).
fn debug(dir: &Path, what: std::fmt::Arguments) {
    if std::env::var_os("CUPRITE_KERNEL_DEBUG").is_some() {
        let _ = std::fs::create_dir_all(record_dir(dir));
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(record_dir(dir).join("debug.log"));
        if let Ok(mut log) = log {
            let _ = writeln!(log, "{what}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CELLS: &str = "/data/crates/0.1.0-abc/cuprite-cells";

    fn manifest(deps: &str) -> String {
        format!(
            "[package]\nname = \"ctx\"\nversion = \"1.0.0\"\n\n[lib]\npath = \"src/lib.rs\"\n\n[dependencies]\n{deps}"
        )
    }

    #[test]
    fn a_recorded_build_becomes_a_metadata_only_check() {
        let os = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        // What a check keeps as it is.
        let unchanged = [
            "--crate-name",
            "ctx",
            "--edition=2024",
            "src/lib.rs",
            "--error-format=json",
            "--crate-type",
            "cdylib",
        ];
        let build = os(&[
            &unchanged[..],
            &[
                "--emit=dep-info,link",
                "-C",
                "opt-level=0",
                "-C",
                "incremental=/b/ctx/target/debug/incremental",
                "--out-dir",
                "/b/ctx/target/debug/deps",
                "-L",
                "dependency=/b/ctx/target/debug/deps",
                "-Cincremental=/elsewhere",
            ],
        ]
        .concat());
        let check = check_args(&build, Path::new("/b/check")).unwrap();
        let want = [
            &unchanged[..],
            &[
                "--emit=metadata",
                "-C",
                "opt-level=0",
                "--out-dir",
                "/b/check",
                "-L",
                "dependency=/b/ctx/target/debug/deps",
            ],
        ]
        .concat();
        assert_eq!(check, os(&want));
        // Not what cargo writes: no check from it.
        assert_eq!(
            check_args(&os(&["src/lib.rs"]), Path::new("/b/check")),
            None
        );
        assert_eq!(
            check_args(&os(&["--emit=link", "--out-dir"]), Path::new("/b/check")),
            None
        );
    }

    #[test]
    fn only_fixed_dependencies_replay() {
        let fixed = Some(Path::new("/data/crates/0.1.0-abc"));
        let cells = format!("cuprite-cells = {{ path = \"{CELLS}\" }}\n");
        assert!(dependencies_are_fixed(&manifest(&cells), fixed));
        let with_registry = format!("{cells}rand = \"0.9\"\nserde = {{ version = \"1\" }}\n");
        assert!(dependencies_are_fixed(&manifest(&with_registry), fixed));
        // Development sources (not fixed), a user's path crate, git, patches.
        assert!(!dependencies_are_fixed(&manifest(&cells), None));
        let user_path = format!("{cells}mine = {{ path = \"/home/u/mine\" }}\n");
        assert!(!dependencies_are_fixed(&manifest(&user_path), fixed));
        let git = format!("{cells}g = {{ git = \"https://example.org/g\" }}\n");
        assert!(!dependencies_are_fixed(&manifest(&git), fixed));
        let patched = format!(
            "{}\n[patch.crates-io]\nrand = {{ path = \"/x\" }}\n",
            manifest(&cells)
        );
        assert!(!dependencies_are_fixed(&patched, fixed));
        assert!(!dependencies_are_fixed("not toml [", fixed));
    }

    #[test]
    fn the_cell_crate_is_recognised_by_its_rustc_arguments() {
        let args = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert!(is_cell_crate(&args(&["--crate-name", "ctx", "src/lib.rs"])));
        assert!(!is_cell_crate(&args(&[
            "--crate-name",
            "cuprite",
            "src/lib.rs"
        ])));
        assert!(!is_cell_crate(&args(&["-vV"])));
        assert!(is_cell_artifact(
            r#"{"reason":"compiler-artifact","target":{"name":"ctx"},"filenames":["/t/libctx.so"]}"#
        ));
        assert!(!is_cell_artifact(
            r#"{"reason":"compiler-artifact","target":{"name":"cuprite"}}"#
        ));
        assert!(!is_cell_artifact("   Compiling ctx v1.0.0"));
    }

    #[test]
    fn uplift_puts_rustc_outputs_where_cargo_said() {
        let dir =
            std::env::temp_dir().join(format!("cuprite-cell-build-up-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("deps")).unwrap();
        let emitted = dir.join("deps/libctx-0123.so");
        std::fs::write(&emitted, b"new").unwrap();
        let dest = dir.join("libctx.so");
        std::fs::write(&dest, b"old").unwrap();
        let artifact =
            serde_json::json!({"reason": "compiler-artifact", "filenames": [dest]}).to_string();
        let stderr = format!(
            "{}\nnot json\n",
            serde_json::json!({"$message_type": "artifact", "artifact": emitted, "emit": "link"})
        );
        assert!(uplift(&artifact, stderr.as_bytes()));
        assert_eq!(std::fs::read(&dest).unwrap(), b"new");
        // rustc named no file of that kind: no replay.
        assert!(!uplift(&artifact, b""));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A folder for records (named after the test), the path of a pending
    /// record in it and a record running `program` with this `PATH`.
    fn records_folder(test: &str, program: &str) -> (PathBuf, PathBuf, Record) {
        let dir =
            std::env::temp_dir().join(format!("cuprite-cell-build-{test}-{}", std::process::id()));
        std::fs::create_dir_all(record_dir(&dir)).unwrap();
        let record = Record {
            argv: vec![program.into()],
            env: vec![("PATH".into(), std::env::var_os("PATH").unwrap_or_default())],
            cwd: dir.clone(),
            artifact: String::new(),
        };
        (dir.clone(), record_dir(&dir).join("pending"), record)
    }

    #[test]
    fn a_folder_keeps_its_newest_records() {
        let (dir, pending, record) = records_folder("keep", "rustc");
        for key in 0..6 {
            std::fs::write(&pending, serde_json::to_vec(&record).unwrap()).unwrap();
            save(&dir, key, &pending, "{}".into());
            // Distinct modification times, oldest first.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let kept: Vec<u64> = (0..6).filter(|k| load(&dir, *k).is_some()).collect();
        assert_eq!(kept, vec![2, 3, 4, 5]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn roles_come_from_the_program_name() {
        assert_eq!(role("/x/bin/mold".as_ref()), Some(MOLD_NAME));
        assert_eq!(role("cuprite-record-rustc".as_ref()), Some(RECORDER_NAME));
        assert_eq!(role("/usr/bin/cuprite-kernel".as_ref()), None);
    }

    #[test]
    fn keys_change_with_the_manifest_and_not_otherwise() {
        let dir =
            std::env::temp_dir().join(format!("cuprite-cell-build-key-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let build: Vec<OsString> = vec!["build".into(), "--message-format=json".into()];
        std::fs::write(dir.join("Cargo.toml"), manifest("rand = \"0.9\"\n")).unwrap();
        let a = replay_key(&build, &dir).unwrap();
        assert_eq!(replay_key(&build, &dir), Some(a));
        std::fs::write(dir.join("Cargo.lock"), "# lock").unwrap();
        let b = replay_key(&build, &dir).unwrap();
        assert_ne!(a, b);
        std::fs::write(dir.join("Cargo.toml"), manifest("rand = \"0.8\"\n")).unwrap();
        assert_ne!(replay_key(&build, &dir), Some(b));
        // Only builds replay.
        assert_eq!(replay_key(&["check".into()], &dir), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_saved_record_loads_and_a_failed_or_empty_one_does_not_replay() {
        let (dir, pending, record) = records_folder("rec", "false");
        std::fs::write(&pending, serde_json::to_vec(&record).unwrap()).unwrap();
        save(
            &dir,
            7,
            &pending,
            "{\"reason\":\"compiler-artifact\"}".into(),
        );
        let loaded = load(&dir, 7).unwrap();
        assert_eq!(loaded.argv, record.argv);
        assert_eq!(loaded.artifact, "{\"reason\":\"compiler-artifact\"}");
        assert!(load(&dir, 8).is_none());
        // `false` fails: cargo must run instead.
        assert!(!replay(&loaded, None));
        // No artifact line recorded: nothing to print, no replay.
        assert!(!replay(&record, None));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
