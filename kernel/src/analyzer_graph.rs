//! The crate graph evcxr's rust-analyzer sees.
//!
//! evcxr infers the type of every top-level `let` with rust-analyzer, which
//! loads the cell crate's dependency graph from `cargo metadata` and, on the
//! first inference, parses and resolves every crate in it: about 135 crates,
//! most of them private to the runtime (faer, rustfft, npyz, zip, ...). That
//! is about 3 s of a new session's first cell on 2 cores. A cell can only name
//! what the kernel's crates export, so rust-analyzer is shown the graph as a
//! cell sees it:
//!
//! - a kernel crate's dependencies are cut to those its public API uses,
//!   listed in its manifest as `[package.metadata.cuprite-kernel]
//!   cell-visible-dependencies` (a crate that also re-exports them);
//! - proc-macro crates are left out: evcxr runs rust-analyzer without a
//!   proc-macro server, so they expand to nothing anyway;
//! - a crate the user adds with `:dep` is a dependency of the cell crate and
//!   is kept whole. Only rust-analyzer's view changes; builds use the full
//!   graph.
//!
//! evcxr offers no hook for that `cargo metadata`: rust-analyzer runs
//! `$CARGO_HOME/bin/cargo`. So the kernel process, and it alone, gets a
//! `CARGO_HOME` overlay whose `bin/cargo` is this binary and whose other
//! entries link to the real ones ([`install`]); every process started from
//! the kernel gets the real `CARGO_HOME` back first thing ([`leave_overlay`]).

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The name the kernel binary answers to in the overlay's `bin`.
const CARGO_NAME: &str = "cargo";
/// The real `CARGO_HOME` (empty: it was unset), while the overlay is on.
const REAL_HOME_ENV: &str = "CUPRITE_KERNEL_REAL_CARGO_HOME";
/// The manifest key listing a kernel crate's public dependencies.
const VISIBLE_KEY: &str = "cell-visible-dependencies";
/// Where the last filtered graph is described, in the overlay.
const REPORT_FILE: &str = "analyzer-graph.txt";

/// Whether this process is rust-analyzer's `cargo` (the overlay's link).
pub fn is_cargo_role(argv0: &std::ffi::OsStr) -> bool {
    Path::new(argv0).file_name() == Some(CARGO_NAME.as_ref())
        && std::env::var_os(REAL_HOME_ENV).is_some()
}

/// Puts the real `CARGO_HOME` back: every process the kernel starts (cargo,
/// the cell process, this binary's other roles) calls it before anything
/// else, so only the kernel process itself sees the overlay.
pub fn leave_overlay() {
    let Some(real) = std::env::var_os(REAL_HOME_ENV) else {
        return;
    };
    if real.is_empty() {
        std::env::remove_var("CARGO_HOME");
    } else {
        std::env::set_var("CARGO_HOME", real);
    }
    std::env::remove_var(REAL_HOME_ENV);
}

/// `CARGO_HOME` as the processes the kernel starts see it (the real one,
/// also while the overlay is on).
pub fn cargo_home_var() -> Option<OsString> {
    match std::env::var_os(REAL_HOME_ENV) {
        Some(real) => Some(real).filter(|v| !v.is_empty()),
        None => std::env::var_os("CARGO_HOME"),
    }
}

/// Makes the kernel process's rust-analyzer run this binary as cargo:
/// builds the overlay in `root/analyzer-cargo-home` and points `CARGO_HOME`
/// at it. Call before evcxr starts, while no other thread reads the
/// environment. Failures only cost speed.
pub fn install(root: &Path) {
    if std::env::var_os(REAL_HOME_ENV).is_some() {
        return; // already on (a session started again)
    }
    let original = std::env::var_os("CARGO_HOME");
    let real = crate::prewarm::cargo_home();
    let overlay = root.join("analyzer-cargo-home");
    if build_overlay(&real, &overlay).is_err() {
        return;
    }
    std::env::set_var(REAL_HOME_ENV, original.unwrap_or_default());
    std::env::set_var("CARGO_HOME", &overlay);
}

fn build_overlay(real: &Path, overlay: &Path) -> std::io::Result<()> {
    let exe = std::env::current_exe()?;
    let bin = overlay.join("bin");
    std::fs::create_dir_all(&bin)?;
    link_entries(real, overlay, "bin")?;
    link_entries(&real.join("bin"), &bin, CARGO_NAME)?;
    link(&exe, &bin.join(CARGO_NAME))
}

/// Makes `at` a link to `target`, replacing what is there in one step (links
/// left by an earlier kernel may point at another binary, and a kernel
/// sharing the folder may be reading them).
fn link(target: &Path, at: &Path) -> std::io::Result<()> {
    let name = at.file_name().unwrap_or_default().to_string_lossy();
    let temporary = at.with_file_name(format!(".{name}.{}", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    std::os::unix::fs::symlink(target, &temporary)?;
    std::fs::rename(&temporary, at)
}

/// Links every entry of `from` into `to`, except `skip`.
fn link_entries(from: &Path, to: &Path, skip: &str) -> std::io::Result<()> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(()); // no such folder: nothing to link
    };
    for entry in entries.flatten() {
        if entry.file_name() != skip {
            link(&entry.path(), &to.join(entry.file_name()))?;
        }
    }
    Ok(())
}

/// rust-analyzer's `cargo ARGS`. Call after [`leave_overlay`].
pub fn cargo_main(overlay_bin: PathBuf, args: Vec<OsString>) -> i32 {
    let Some(cargo) = real_cargo(&overlay_bin) else {
        eprintln!("cuprite-kernel: cannot find cargo for rust-analyzer");
        return 127;
    };
    let tmpdir = std::env::var_os("EVCXR_TMPDIR").map(PathBuf::from);
    let cell_manifest = tmpdir.map(|d| d.join("Cargo.toml"));
    if !cell_manifest.is_some_and(|m| is_cell_metadata(&args, &m)) {
        use std::os::unix::process::CommandExt;
        let err = Command::new(&cargo).args(&args).exec();
        eprintln!("cuprite-kernel: cannot run {}: {err}", cargo.display());
        return 127;
    }
    let output = match Command::new(&cargo)
        .args(&args)
        .stderr(Stdio::inherit())
        .output()
    {
        Ok(o) => o,
        Err(err) => {
            eprintln!("cuprite-kernel: cannot run {}: {err}", cargo.display());
            return 127;
        }
    };
    let code = output.status.code().unwrap_or(101);
    let shown = match serde_json::from_slice::<Value>(&output.stdout) {
        Ok(mut metadata) if code == 0 => match cell_view(&mut metadata) {
            Some(summary) => {
                if let Some(overlay) = overlay_bin.parent() {
                    let _ = std::fs::write(overlay.join(REPORT_FILE), summary);
                }
                serde_json::to_vec(&metadata).unwrap_or(output.stdout)
            }
            None => output.stdout,
        },
        _ => output.stdout,
    };
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if out.write_all(&shown).and_then(|_| out.flush()).is_err() {
        return 101;
    }
    code
}

/// The cargo rust-analyzer would have run: `$CARGO_HOME/bin/cargo`, else
/// `$CARGO`, else the first on `PATH` (its own order).
fn real_cargo(overlay_bin: &Path) -> Option<PathBuf> {
    let proxy = Some(crate::prewarm::cargo_home().join("bin").join(CARGO_NAME));
    let from_env = std::env::var_os("CARGO").map(PathBuf::from);
    let on_path = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .filter(|d| d != overlay_bin)
            .map(|d| d.join(CARGO_NAME))
            .find(|c| c.is_file())
    });
    [proxy, from_env, on_path]
        .into_iter()
        .flatten()
        .find(|c| c.is_file() && !c.starts_with(overlay_bin))
}

/// Whether `args` are `cargo metadata` for the cell crate's manifest.
fn is_cell_metadata(args: &[OsString], cell_manifest: &Path) -> bool {
    if crate::cell_build::subcommand_at(args).is_none_or(|at| args[at] != "metadata") {
        return false;
    }
    args.windows(2)
        .any(|w| w[0] == "--manifest-path" && Path::new(&w[1]) == cell_manifest)
}

/// Cuts `metadata` to the graph a cell sees (see the module's text) and
/// says what it kept; `None` (and `metadata` unchanged) when it is not the
/// shape cargo writes.
fn cell_view(metadata: &mut Value) -> Option<String> {
    let packages = metadata.get("packages")?.as_array()?;
    let mut name_of = HashMap::new();
    let mut visible: HashMap<&str, HashSet<&str>> = HashMap::new();
    let mut proc_macros = HashSet::new();
    for p in packages {
        let id = p.get("id")?.as_str()?;
        name_of.insert(id, p.get("name")?.as_str()?);
        if let Some(list) = p
            .pointer(&format!("/metadata/cuprite-kernel/{VISIBLE_KEY}"))
            .and_then(Value::as_array)
        {
            visible.insert(id, list.iter().filter_map(Value::as_str).collect());
        }
        let kinds = p.get("targets")?.as_array()?.iter();
        if kinds
            .filter_map(|t| t.get("kind")?.as_array())
            .flatten()
            .any(|k| k == "proc-macro")
        {
            proc_macros.insert(id);
        }
    }
    let resolve = metadata.get("resolve")?;
    let root = resolve.get("root")?.as_str()?;
    let mut normal_deps: HashMap<&str, Vec<&str>> = HashMap::new();
    for node in resolve.get("nodes")?.as_array()? {
        let deps = node.get("deps")?.as_array()?.iter().filter(|d| {
            let kinds = d.get("dep_kinds").and_then(Value::as_array);
            kinds.is_some_and(|ks| ks.iter().any(|k| k.get("kind").is_some_and(Value::is_null)))
        });
        normal_deps.insert(
            node.get("id")?.as_str()?,
            deps.filter_map(|d| d.get("pkg")?.as_str()).collect(),
        );
    }
    let mut kept: HashSet<&str> = HashSet::new();
    let mut todo = vec![root];
    while let Some(id) = todo.pop() {
        if !kept.insert(id) {
            continue;
        }
        for &dep in normal_deps.get(id).into_iter().flatten() {
            let allowed = visible
                .get(id)
                .is_none_or(|names| name_of.get(dep).is_some_and(|n| names.contains(n)));
            if allowed && !proc_macros.contains(dep) {
                todo.push(dep);
            }
        }
    }
    let total = packages.len();
    let kept: HashSet<String> = kept.into_iter().map(str::to_owned).collect();
    let mut names: Vec<&str> = kept
        .iter()
        .filter_map(|id| name_of.get(id.as_str()).copied())
        .collect();
    names.sort_unstable();
    let summary = format!("{} of {total} packages: {}\n", kept.len(), names.join(" "));
    let is_kept = |v: &Value| v.as_str().is_some_and(|id| kept.contains(id));
    metadata
        .get_mut("packages")?
        .as_array_mut()?
        .retain(|p| p.get("id").is_some_and(is_kept));
    let nodes = metadata.pointer_mut("/resolve/nodes")?.as_array_mut()?;
    nodes.retain(|n| n.get("id").is_some_and(is_kept));
    for node in nodes {
        if let Some(deps) = node.get_mut("deps").and_then(Value::as_array_mut) {
            deps.retain(|d| d.get("pkg").is_some_and(is_kept));
        }
        if let Some(deps) = node.get_mut("dependencies").and_then(Value::as_array_mut) {
            deps.retain(is_kept);
        }
    }
    Some(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn package(id: &str, kind: &str, visible: Option<&[&str]>) -> Value {
        let mut p = json!({"id": id, "name": id, "targets": [{"kind": [kind]}], "metadata": null});
        if let Some(v) = visible {
            p["metadata"] = json!({"cuprite-kernel": {VISIBLE_KEY: v}});
        }
        p
    }

    fn dep(pkg: &str, kind: Option<&str>) -> Value {
        json!({"name": pkg, "pkg": pkg, "dep_kinds": [{"kind": kind, "target": null}]})
    }

    fn node(id: &str, deps: &[Value]) -> Value {
        let ids: Vec<&str> = deps.iter().map(|d| d["pkg"].as_str().unwrap()).collect();
        json!({"id": id, "deps": deps, "dependencies": ids, "features": []})
    }

    /// ctx → cells (shows `api` only) → api, private; api → derive (a proc
    /// macro), lib; ctx → user (a `:dep`) → user_dep, and a build dependency.
    fn graph() -> Value {
        json!({
            "packages": [
                package("ctx", "lib", None),
                package("cells", "dylib", Some(&["api"])),
                package("api", "lib", None),
                package("private", "lib", None),
                package("derive", "proc-macro", None),
                package("lib", "lib", None),
                package("user", "lib", None),
                package("user_dep", "lib", None),
                package("builder", "lib", None),
            ],
            "resolve": {
                "root": "ctx",
                "nodes": [
                    node("ctx", &[dep("cells", None), dep("user", None)]),
                    node("cells", &[dep("api", None), dep("private", None)]),
                    node("api", &[dep("derive", None), dep("lib", None), dep("builder", Some("build"))]),
                    node("private", &[dep("lib", None)]),
                    node("derive", &[]),
                    node("lib", &[]),
                    node("user", &[dep("user_dep", None)]),
                    node("user_dep", &[]),
                    node("builder", &[]),
                ],
            },
            "workspace_members": ["ctx"],
        })
    }

    fn ids(v: &Value, pointer: &str) -> Vec<String> {
        let mut out: Vec<String> = v
            .pointer(pointer)
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_owned())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn the_cell_view_keeps_public_dependencies_and_user_crates() {
        let mut m = graph();
        let summary = cell_view(&mut m).unwrap();
        let want = ["api", "cells", "ctx", "lib", "user", "user_dep"];
        assert_eq!(ids(&m, "/packages"), want);
        assert_eq!(ids(&m, "/resolve/nodes"), want);
        assert_eq!(
            summary,
            "6 of 9 packages: api cells ctx lib user user_dep\n"
        );
        // Edges to what was left out are gone too.
        let nodes = m.pointer("/resolve/nodes").unwrap().as_array().unwrap();
        let api = nodes.iter().find(|n| n["id"] == "api").unwrap();
        assert_eq!(api["dependencies"], json!(["lib"]));
        assert_eq!(api["deps"].as_array().unwrap().len(), 1);
        let cells = nodes.iter().find(|n| n["id"] == "cells").unwrap();
        assert_eq!(cells["dependencies"], json!(["api"]));
    }

    #[test]
    fn a_graph_without_declarations_loses_only_proc_macros_and_build_tools() {
        let mut m = graph();
        m["packages"][1]["metadata"] = Value::Null;
        cell_view(&mut m).unwrap();
        assert_eq!(
            ids(&m, "/packages"),
            ["api", "cells", "ctx", "lib", "private", "user", "user_dep"]
        );
    }

    #[test]
    fn what_is_not_cargo_metadata_is_left_alone() {
        for mut odd in [
            json!({}),
            json!({"packages": []}),
            json!({"packages": [], "resolve": null}),
        ] {
            let before = odd.clone();
            assert!(cell_view(&mut odd).is_none());
            assert_eq!(odd, before);
        }
    }

    #[test]
    fn the_overlay_replaces_cargo_and_links_the_rest() {
        let base =
            std::env::temp_dir().join(format!("cuprite-overlay-test-{}", std::process::id()));
        let (real, overlay) = (base.join("real"), base.join("overlay"));
        std::fs::create_dir_all(real.join("bin")).unwrap();
        std::fs::create_dir_all(real.join("registry")).unwrap();
        for tool in ["cargo", "rustc"] {
            std::fs::write(real.join("bin").join(tool), "").unwrap();
        }
        // Twice: a kernel starting again in the same folder.
        for _ in 0..2 {
            build_overlay(&real, &overlay).unwrap();
        }
        let target = |p: &str| std::fs::read_link(overlay.join(p)).unwrap();
        assert_eq!(target("bin/cargo"), std::env::current_exe().unwrap());
        assert_eq!(target("bin/rustc"), real.join("bin/rustc"));
        assert_eq!(target("registry"), real.join("registry"));
        let mut names: Vec<_> = std::fs::read_dir(overlay.join("bin"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["cargo", "rustc"]);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn only_the_cell_crates_metadata_is_filtered() {
        let m = Path::new("/b/ctx/Cargo.toml");
        let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        assert!(is_cell_metadata(
            &args(&[
                "metadata",
                "--format-version",
                "1",
                "--manifest-path",
                "/b/ctx/Cargo.toml"
            ]),
            m
        ));
        assert!(!is_cell_metadata(
            &args(&["metadata", "--manifest-path", "/sysroot/library/Cargo.toml"]),
            m
        ));
        assert!(!is_cell_metadata(
            &args(&["build", "--manifest-path", "/b/ctx/Cargo.toml"]),
            m
        ));
        assert!(!is_cell_metadata(&args(&["metadata"]), m));
    }
}
