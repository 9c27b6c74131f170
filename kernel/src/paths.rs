//! Where things live: the kernel's own data and cache directories, and
//! Jupyter's data directories (for kernelspecs).

use std::path::PathBuf;

/// The kernel's data directory: `$CUPRITE_KERNEL_DATA_DIR`, else
/// `<user data dir>/cuprite-kernel` (`~/.local/share/cuprite-kernel` on Linux).
pub fn data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CUPRITE_KERNEL_DATA_DIR") {
        return PathBuf::from(d);
    }
    dirs::data_dir()
        .or_else(|| dirs::home_dir().map(|h| h.join(".local/share")))
        .unwrap_or_else(std::env::temp_dir)
        .join("cuprite-kernel")
}

/// The kernel's cache directory (build directories): `$CUPRITE_KERNEL_CACHE_DIR`,
/// else `<user cache dir>/cuprite-kernel` (`~/.cache/cuprite-kernel` on Linux).
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CUPRITE_KERNEL_CACHE_DIR") {
        return PathBuf::from(d);
    }
    dirs::cache_dir()
        .or_else(|| dirs::home_dir().map(|h| h.join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("cuprite-kernel")
}

/// Jupyter's per-user data directory: `$JUPYTER_DATA_DIR`, else the platform default.
pub fn jupyter_user_data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("JUPYTER_DATA_DIR") {
        return PathBuf::from(d);
    }
    let home = dirs::home_dir().unwrap_or_else(std::env::temp_dir);
    if cfg!(target_os = "macos") {
        home.join("Library/Jupyter")
    } else {
        std::env::var_os("XDG_DATA_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .unwrap_or_else(|| home.join(".local/share"))
            .join("jupyter")
    }
}

/// The entries of `$JUPYTER_PATH` (colon-separated), in order.
pub fn jupyter_path() -> Vec<PathBuf> {
    std::env::var_os("JUPYTER_PATH")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The environment prefix Jupyter would call `sys.prefix`: `$VIRTUAL_ENV`,
/// `$CONDA_PREFIX`, else what `python3` says.
pub fn sys_prefix() -> Option<PathBuf> {
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            return Some(PathBuf::from(v));
        }
    }
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.prefix)"])
        .output()
        .ok()?;
    let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !s.is_empty()).then(|| PathBuf::from(s))
}

/// Every directory Jupyter searches for kernelspecs, in its order of precedence.
pub fn jupyter_data_dirs() -> Vec<PathBuf> {
    let mut dirs = jupyter_path();
    dirs.push(jupyter_user_data_dir());
    if let Some(p) = sys_prefix() {
        dirs.push(p.join("share/jupyter"));
    }
    dirs.push(PathBuf::from("/usr/local/share/jupyter"));
    dirs.push(PathBuf::from("/usr/share/jupyter"));
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(d.clone()));
    dirs
}
