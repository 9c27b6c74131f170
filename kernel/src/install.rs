//! Kernelspec install, uninstall and list, from the files in `kernelspec/`.

use crate::paths;
use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const KERNEL_JSON: &str = include_str!("../../kernelspec/kernel.json");
const LOGO_32: &[u8] = include_bytes!("../../kernelspec/logo-32x32.png");
const LOGO_64: &[u8] = include_bytes!("../../kernelspec/logo-64x64.png");

/// The default kernelspec name.
pub const DEFAULT_NAME: &str = "cuprite";

/// Where a kernelspec goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// Not said: `$JUPYTER_PATH`'s first entry when set, else the active
    /// virtual/conda environment, else the user's data directory.
    Default,
    /// The user's Jupyter data directory (`$JUPYTER_DATA_DIR` or the platform default).
    User,
    /// The active environment's `share/jupyter`.
    SysPrefix,
    /// `DIR/share/jupyter`.
    Prefix(PathBuf),
}

impl Location {
    /// The Jupyter data directory (the one holding `kernels/`).
    pub fn data_dir(&self) -> Result<PathBuf> {
        Ok(match self {
            Location::User => paths::jupyter_user_data_dir(),
            Location::SysPrefix => paths::sys_prefix()
                .context("--sys-prefix: no active environment (VIRTUAL_ENV, CONDA_PREFIX) and no python3 to ask")?
                .join("share/jupyter"),
            Location::Prefix(p) => p.join("share/jupyter"),
            Location::Default => {
                if let Some(first) = paths::jupyter_path().into_iter().next() {
                    first
                } else if std::env::var_os("VIRTUAL_ENV").is_some()
                    || std::env::var_os("CONDA_PREFIX").is_some()
                {
                    Location::SysPrefix.data_dir()?
                } else {
                    paths::jupyter_user_data_dir()
                }
            }
        })
    }
}

/// What `install` writes.
#[derive(Debug, Clone)]
pub struct InstallOptions {
    pub location: Location,
    pub name: String,
    pub display_name: Option<String>,
    pub env: Vec<(String, String)>,
}

/// The kernel.json for this binary.
pub fn kernel_json(
    exe: &Path,
    display_name: Option<&str>,
    env: &[(String, String)],
) -> Result<Value> {
    let template = KERNEL_JSON
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"))
        .replace("@CUPRITE_KERNEL@", "CUPRITE_KERNEL_EXE_PLACEHOLDER");
    let mut spec: Value =
        serde_json::from_str(&template).context("kernelspec/kernel.json is not valid JSON")?;
    if let Some(argv) = spec["argv"].as_array_mut() {
        for a in argv.iter_mut() {
            if a == "CUPRITE_KERNEL_EXE_PLACEHOLDER" {
                *a = json!(exe.to_string_lossy());
            }
        }
    }
    if let Some(d) = display_name {
        spec["display_name"] = json!(d);
    }
    if !spec["env"].is_object() {
        spec["env"] = json!({});
    }
    for (k, v) in env {
        spec["env"][k] = json!(v);
    }
    Ok(spec)
}

/// Installs the kernelspec; returns its directory.
pub fn install(opts: &InstallOptions) -> Result<PathBuf> {
    validate_name(&opts.name)?;
    let exe = std::env::current_exe()
        .context("cannot find this program's path")?
        .canonicalize()
        .context("cannot resolve this program's path")?;
    let spec = kernel_json(&exe, opts.display_name.as_deref(), &opts.env)?;
    let dir = opts.location.data_dir()?.join("kernels").join(&opts.name);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let write = |name: &str, bytes: &[u8]| -> Result<()> {
        let p = dir.join(name);
        std::fs::write(&p, bytes).with_context(|| format!("cannot write {}", p.display()))
    };
    write(
        "kernel.json",
        serde_json::to_string_pretty(&spec)?.as_bytes(),
    )?;
    write("logo-32x32.png", LOGO_32)?;
    write("logo-64x64.png", LOGO_64)?;
    Ok(dir)
}

/// Removes kernelspecs named `name`: from `location` when given, else from
/// every directory Jupyter searches. Returns the directories removed.
pub fn uninstall(location: Option<&Location>, name: &str) -> Result<Vec<PathBuf>> {
    validate_name(name)?;
    let candidates: Vec<PathBuf> = match location {
        Some(l) => vec![l.data_dir()?],
        None => paths::jupyter_data_dirs(),
    };
    let mut removed = Vec::new();
    for data in candidates {
        let dir = data.join("kernels").join(name);
        if dir.join("kernel.json").is_file() {
            std::fs::remove_dir_all(&dir)
                .with_context(|| format!("cannot remove {}", dir.display()))?;
            removed.push(dir);
        }
    }
    Ok(removed)
}

/// One kernelspec found on the Jupyter path.
#[derive(Debug, Clone)]
pub struct Found {
    pub name: String,
    pub dir: PathBuf,
    pub display_name: String,
    pub is_cuprite: bool,
}

/// Every kernelspec Jupyter would see (the first of each name wins, as in Jupyter).
pub fn list() -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    for data in paths::jupyter_data_dirs() {
        let Ok(entries) = std::fs::read_dir(data.join("kernels")) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().to_string();
            let Ok(text) = std::fs::read_to_string(e.path().join("kernel.json")) else {
                continue;
            };
            if found.iter().any(|f| f.name == name) {
                continue;
            }
            let spec: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
            found.push(Found {
                name,
                dir: e.path(),
                display_name: spec["display_name"].as_str().unwrap_or("").to_string(),
                is_cuprite: !spec["metadata"]["cuprite"].is_null(),
            });
        }
    }
    found
}

fn validate_name(name: &str) -> Result<()> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        || name.starts_with('.')
    {
        bail!("kernel name {name:?} is not valid: use letters, digits, '-', '_' and '.'");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_json_is_filled_in() {
        let spec = kernel_json(
            Path::new("/opt/bin/cuprite-kernel"),
            Some("Rust GPU"),
            &[("CUPRITE_DEVICE".into(), "cpu".into())],
        )
        .unwrap();
        assert_eq!(spec["argv"][0], "/opt/bin/cuprite-kernel");
        assert_eq!(spec["argv"][3], "{connection_file}");
        assert_eq!(spec["display_name"], "Rust GPU");
        assert_eq!(spec["language"], "rust");
        assert_eq!(spec["interrupt_mode"], "message");
        assert_eq!(spec["env"]["CUPRITE_DEVICE"], "cpu");
        assert_eq!(
            spec["metadata"]["cuprite"]["kernel_version"],
            env!("CARGO_PKG_VERSION")
        );
    }

    #[test]
    fn names_are_checked() {
        assert!(validate_name("cuprite").is_ok());
        assert!(validate_name("cuprite-gpu_2.0").is_ok());
        assert!(validate_name("../x").is_err());
        assert!(validate_name("").is_err());
        assert!(validate_name("a b").is_err());
    }

    #[test]
    fn logos_are_pngs_of_the_right_size() {
        for (bytes, size) in [(LOGO_32, 32u32), (LOGO_64, 64)] {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
            let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
            let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
            assert_eq!((w, h), (size, size));
        }
    }
}
