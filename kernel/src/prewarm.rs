//! Prebuilt build caches: `cuprite-kernel prewarm [--shared DIR]` compiles
//! the crates every cell links (the runtime, the display crate, the cell-side
//! I/O crate and their dependencies) once, into a folder named after what
//! the compiled code depends on (kernel version, embedded crates, rustc,
//! profile, `CARGO_HOME`). A new notebook's build folder starts as a copy of
//! it, so its first cell compiles only the cell.
//!
//! Without `--shared` the folder is the user's own
//! (`<cache dir>/prebuilt/`); with it, a site or workshop folder that many
//! users' kernels read (never write): `install --shared-cache DIR` puts
//! `CUPRITE_KERNEL_SHARED_CACHE=DIR` into the kernelspec. The crates' sources
//! live inside the folder too, at a path that is the same for every user
//! (cargo's fingerprints hold source paths); registry crates are found under
//! `CARGO_HOME`, so users share the prebuilt folder when their `CARGO_HOME`
//! is the one it was built with (a container image, or a module that sets it).

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Environment variable naming the shared prebuilt cache (`install --shared-cache`).
pub const SHARED_ENV: &str = "CUPRITE_KERNEL_SHARED_CACHE";

/// Written into a prebuilt folder once it is complete (holds its key).
const COMPLETE: &str = ".complete";

/// `rustc -vV` of the toolchain cells compile with (asked once).
pub fn rustc_version() -> String {
    static V: OnceLock<String> = OnceLock::new();
    V.get_or_init(|| {
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        std::process::Command::new(rustc)
            .arg("-vV")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_else(|| "rustc: unknown".into())
    })
    .clone()
}

/// What a prebuilt folder's compiled code depends on.
fn key() -> String {
    crate::build_dir::warm_key()
}

/// The `CARGO_HOME` cargo uses: the variable, else `~/.cargo` (the real one
/// while rust-analyzer's overlay is on, see `analyzer_graph`).
pub fn cargo_home() -> PathBuf {
    crate::analyzer_graph::cargo_home_var()
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".cargo")))
        .unwrap_or_default()
}

/// The prebuilt folder's name: the kernel version and a hash of [`key`].
pub fn folder_name() -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key().bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{}-{h:016x}", env!("CARGO_PKG_VERSION"))
}

/// The user's own prebuilt caches.
fn personal_base() -> PathBuf {
    crate::paths::cache_dir().join("prebuilt")
}

fn complete(folder: &Path) -> bool {
    std::fs::read_to_string(folder.join(COMPLETE)).is_ok_and(|k| k == key())
}

/// The complete prebuilt folder for this kernel and toolchain, if any: the
/// shared cache first, then the user's own.
pub fn prebuilt_folder() -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let shared = std::env::var_os(SHARED_ENV)
                .filter(|d| !d.is_empty())
                .map(PathBuf::from);
            shared
                .into_iter()
                .chain([personal_base()])
                .map(|base| base.join(folder_name()))
                .find(|f| complete(f))
        })
        .clone()
}

/// The prebuilt build folder a new build folder may start from.
pub fn shared_build_dir() -> Option<PathBuf> {
    prebuilt_folder().map(|f| f.join("build"))
}

/// The crates' sources of the prebuilt folder (cells must build from these
/// paths for its compiled code to be reused).
pub fn prebuilt_sources() -> Option<PathBuf> {
    prebuilt_folder().map(|f| f.join("crates"))
}

/// `cuprite-kernel prewarm [--shared DIR]`: builds the prebuilt folder
/// (unless it is complete) and returns it.
pub fn prewarm(shared: Option<&Path>) -> Result<PathBuf> {
    let base = match shared {
        Some(d) => std::path::absolute(d)?,
        None => personal_base(),
    };
    let folder = base.join(folder_name());
    if complete(&folder) {
        println!("{} is already prewarmed", folder.display());
        return Ok(folder);
    }
    std::fs::create_dir_all(&folder)
        .with_context(|| format!("cannot create {}", folder.display()))?;
    let crates = folder.join("crates");
    if !crates.join(".complete").is_file() {
        crate::sources::write_to(&crates)?;
    }
    // The build happens at its final path: cargo's fingerprints hold paths.
    std::env::set_var("CUPRITE_KERNEL_SOURCES", &crates);
    std::env::set_var("CUPRITE_KERNEL_BUILD_DIR", folder.join("build"));
    std::env::remove_var(crate::build_dir::SEED_ENV);
    std::env::remove_var(SHARED_ENV);
    let tmp = std::env::temp_dir().join(format!("cuprite-prewarm-{}", std::process::id()));
    std::fs::create_dir_all(&tmp)?;
    let nb = tmp.join("prewarm.ipynb");
    std::fs::write(
        &nb,
        serde_json::to_string(&serde_json::json!({
            "nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{"cell_type": "code", "metadata": {}, "outputs": [],
                       "execution_count": null, "id": "prewarm",
                       "source": "let x = cp::arange(6)?.astype(cp::f32)?;\nx.sum()?"}],
        }))?,
    )?;
    let started = std::time::Instant::now();
    println!(
        "Compiling the crates cells link into {} (minutes on a cold machine)...",
        folder.display()
    );
    let code = crate::notebook::run(&crate::notebook::RunOptions {
        notebook: nb,
        output: Some(tmp.join("out.ipynb")),
        html: None,
        params: Vec::new(),
        spmd: false,
    });
    let _ = std::fs::remove_dir_all(&tmp);
    if code? != 0 {
        bail!(
            "prewarming failed (see above); {} is incomplete",
            folder.display()
        );
    }
    // Copies leave rustc's incremental caches out; so does the prebuilt folder.
    crate::build_dir::remove_incremental(&folder.join("build"), 5);
    std::fs::write(folder.join(COMPLETE), key())?;
    if shared.is_some() {
        // Readable by every user; written by nobody but its owner.
        let _ = std::process::Command::new("chmod")
            .args(["-R", "a+rX"])
            .arg(&folder)
            .status();
    }
    println!(
        "Prewarmed {} in {:.0?}; new notebooks' build folders start from it.",
        folder.display(),
        started.elapsed()
    );
    Ok(folder)
}
