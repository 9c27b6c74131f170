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
    /// A script (or program) that starts the kernel: copied into the
    /// kernelspec directory and run from `{resource_dir}` (clusters: load
    /// modules, or enter an Apptainer image).
    pub wrapper: Option<PathBuf>,
    /// Arguments for the wrapper, before the `--` that precedes the kernel command.
    pub wrapper_args: Vec<String>,
}

/// How kernel.json starts the kernel through a wrapper: the wrapper's file
/// name in the kernelspec directory and its own arguments.
#[derive(Debug, Clone, Copy)]
pub struct Wrapper<'a> {
    pub file_name: &'a str,
    pub args: &'a [String],
}

/// Files of the kernelspec directory that a wrapper must not replace.
const OWN_FILES: &[&str] = &["kernel.json", "logo-32x32.png", "logo-64x64.png"];

/// The kernel.json for this binary.
///
/// With a wrapper, `argv` is `[{resource_dir}/WRAPPER, ARGS..., "--", EXE,
/// "run", "--connection-file", "{connection_file}"]`: the wrapper does its
/// set-up, then runs the command after `--`.
pub fn kernel_json(
    exe: &Path,
    display_name: Option<&str>,
    env: &[(String, String)],
    wrapper: Option<Wrapper<'_>>,
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
    if let Some(w) = wrapper {
        let kernel = spec["argv"].as_array().cloned().unwrap_or_default();
        let mut argv = vec![json!(format!("{{resource_dir}}/{}", w.file_name))];
        argv.extend(w.args.iter().map(|a| json!(a)));
        argv.push(json!("--"));
        argv.extend(kernel);
        spec["argv"] = Value::Array(argv);
        spec["metadata"]["cuprite"]["wrapper"] = json!(w.file_name);
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
    let wrapper = match &opts.wrapper {
        Some(path) => Some(read_wrapper(path)?),
        None => {
            if !opts.wrapper_args.is_empty() {
                bail!("--wrapper-arg needs --wrapper SCRIPT");
            }
            None
        }
    };
    let spec = kernel_json(
        &exe,
        opts.display_name.as_deref(),
        &opts.env,
        wrapper.as_ref().map(|(file_name, _)| Wrapper {
            file_name,
            args: &opts.wrapper_args,
        }),
    )?;
    let dir = opts.location.data_dir()?.join("kernels").join(&opts.name);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let write = |name: &str, bytes: &[u8]| -> Result<()> {
        let p = dir.join(name);
        std::fs::write(&p, bytes).with_context(|| format!("cannot write {}", p.display()))
    };
    if let Some((file_name, bytes)) = &wrapper {
        write(file_name, bytes)?;
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(file_name);
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("cannot make {} executable", p.display()))?;
    }
    write(
        "kernel.json",
        serde_json::to_string_pretty(&spec)?.as_bytes(),
    )?;
    write("logo-32x32.png", LOGO_32)?;
    write("logo-64x64.png", LOGO_64)?;
    Ok(dir)
}

/// The wrapper's file name (checked) and contents.
fn read_wrapper(path: &Path) -> Result<(String, Vec<u8>)> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .with_context(|| format!("--wrapper {}: not a file", path.display()))?;
    if file_name.starts_with('.')
        || OWN_FILES.contains(&file_name.as_str())
        || !file_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        bail!(
            "--wrapper {}: the file name must use letters, digits, '-', '_' and '.', and not be one of {}",
            path.display(),
            OWN_FILES.join(", ")
        );
    }
    let bytes = std::fs::read(path)
        .with_context(|| format!("--wrapper {}: cannot read", path.display()))?;
    Ok((file_name, bytes))
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
            None,
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
    fn wrapped_kernel_json_runs_the_wrapper_from_resource_dir() {
        let args = vec!["--module".to_string(), "CUDA/12.4.0".to_string()];
        let spec = kernel_json(
            Path::new("/opt/bin/cuprite-kernel"),
            None,
            &[],
            Some(Wrapper {
                file_name: "cuprite-module-kernel",
                args: &args,
            }),
        )
        .unwrap();
        let argv: Vec<&str> = spec["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(
            argv,
            [
                "{resource_dir}/cuprite-module-kernel",
                "--module",
                "CUDA/12.4.0",
                "--",
                "/opt/bin/cuprite-kernel",
                "run",
                "--connection-file",
                "{connection_file}"
            ]
        );
        assert_eq!(
            spec["metadata"]["cuprite"]["wrapper"],
            "cuprite-module-kernel"
        );
        assert_eq!(spec["display_name"], "Rust (Cuprite)");
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cuprite-install-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn install_copies_the_wrapper_and_makes_it_executable() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = temp_dir("wrap");
        let script = tmp.join("my-wrapper.sh");
        std::fs::write(&script, "#!/bin/sh\nshift\nexec \"$@\"\n").unwrap();
        let opts = InstallOptions {
            location: Location::Prefix(tmp.join("prefix")),
            name: "cuprite-wrapped".into(),
            display_name: Some("Rust (Cuprite, wrapped)".into()),
            env: vec![],
            wrapper: Some(script.clone()),
            wrapper_args: vec!["--image=/x/cuprite.sif".into()],
        };
        let dir = install(&opts).unwrap();
        assert_eq!(
            dir,
            tmp.join("prefix/share/jupyter/kernels/cuprite-wrapped")
        );
        let copied = dir.join("my-wrapper.sh");
        assert_eq!(
            std::fs::read(&copied).unwrap(),
            std::fs::read(&script).unwrap()
        );
        let mode = std::fs::metadata(&copied).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o755);
        let spec: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("kernel.json")).unwrap())
                .unwrap();
        assert_eq!(spec["argv"][0], "{resource_dir}/my-wrapper.sh");
        assert_eq!(spec["argv"][1], "--image=/x/cuprite.sif");
        assert_eq!(spec["argv"][2], "--");
        assert_eq!(spec["argv"][4], "run");
        assert!(Path::new(spec["argv"][3].as_str().unwrap()).is_absolute());
        assert!(dir.join("logo-64x64.png").is_file());
        std::fs::remove_dir_all(&tmp).unwrap();
    }

    #[test]
    fn bad_wrappers_are_refused() {
        let tmp = temp_dir("bad");
        let base = InstallOptions {
            location: Location::Prefix(tmp.join("prefix")),
            name: "cuprite-bad".into(),
            display_name: None,
            env: vec![],
            wrapper: None,
            wrapper_args: vec!["--x".into()],
        };
        let e = install(&base).unwrap_err().to_string();
        assert!(e.contains("--wrapper-arg needs --wrapper"), "{e}");
        let missing = InstallOptions {
            wrapper: Some(tmp.join("nope.sh")),
            ..base.clone()
        };
        let e = format!("{:#}", install(&missing).unwrap_err());
        assert!(e.contains("nope.sh: cannot read"), "{e}");
        std::fs::write(tmp.join("kernel.json"), "{}").unwrap();
        let clash = InstallOptions {
            wrapper: Some(tmp.join("kernel.json")),
            ..base
        };
        let e = install(&clash).unwrap_err().to_string();
        assert!(e.contains("must use letters"), "{e}");
        assert!(!tmp
            .join("prefix/share/jupyter/kernels/cuprite-bad")
            .exists());
        std::fs::remove_dir_all(&tmp).unwrap();
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
