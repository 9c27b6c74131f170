//! Finding and loading the CUDA libraries without panicking.
//!
//! cudarc resolves each library by file name on first use and panics when it
//! is missing, and each function on first call. Before any cudarc call we
//! look for every library ourselves (CUDA_HOME, /usr/local/cuda, pip's
//! `nvidia/*/lib` folders, conda, LD_LIBRARY_PATH, the system folders),
//! load it from its full path with RTLD_GLOBAL so that cudarc's later lookup
//! by name finds the same loaded copy, and check that the functions the
//! session needs exist. CUDA 13 and CUDA 12 libraries are both accepted.

use std::path::{Path, PathBuf};

/// One library as found (or not) by the probe.
#[derive(Debug, Clone)]
pub struct LibraryInfo {
    /// Short name: `cuda`, `nvrtc`, `cublas`, ...
    pub name: &'static str,
    /// The file that was loaded.
    pub path: Option<PathBuf>,
    /// Every place that was tried, for the error message.
    pub tried: Vec<String>,
}

impl LibraryInfo {
    /// One line for reports: `nvrtc: /usr/local/cuda/lib64/libnvrtc.so.13`.
    pub fn describe(&self) -> String {
        match &self.path {
            Some(p) => format!("{}: {}", self.name, p.display()),
            None => format!("{}: not found", self.name),
        }
    }
}

/// File names tried for a library, newest CUDA major first.
fn candidates(name: &str) -> Vec<String> {
    match name {
        "cuda" => vec!["libcuda.so.1".into(), "libcuda.so".into()],
        "nccl" => vec!["libnccl.so.2".into(), "libnccl.so".into()],
        "cudart" => ["13", "12"]
            .iter()
            .map(|m| format!("libcudart.so.{m}"))
            .collect(),
        other => {
            let mut v: Vec<String> = ["13", "12", "11"]
                .iter()
                .map(|m| format!("lib{other}.so.{m}"))
                .collect();
            v.push(format!("lib{other}.so"));
            v
        }
    }
}

/// Folders to search, in order, before the dynamic loader's own search.
fn search_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for var in [
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_ROOT",
        "CUDA_TOOLKIT_ROOT_DIR",
    ] {
        if let Some(root) = std::env::var_os(var) {
            let root = PathBuf::from(root);
            dirs.push(root.join("lib64"));
            dirs.push(root.join("lib"));
            dirs.push(root.join("targets/x86_64-linux/lib"));
        }
    }
    dirs.push("/usr/local/cuda/lib64".into());
    dirs.push("/usr/local/cuda/targets/x86_64-linux/lib".into());
    // Python wheels: nvidia/<lib>/lib and nvidia/cu13/lib in site-packages.
    let mut prefixes: Vec<PathBuf> = Vec::new();
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = std::env::var_os(var) {
            prefixes.push(PathBuf::from(p));
        }
    }
    if let Some(home) = std::env::var_os("HOME") {
        prefixes.push(PathBuf::from(home).join(".local"));
    }
    prefixes.push("/usr/local".into());
    prefixes.push("/usr".into());
    for prefix in &prefixes {
        if let Some(conda_lib) = Some(prefix.join("lib"))
            .filter(|_| std::env::var_os("CONDA_PREFIX").is_some_and(|c| Path::new(&c) == prefix))
        {
            dirs.push(conda_lib);
        }
        for lib in ["lib", "lib64"] {
            let Ok(entries) = std::fs::read_dir(prefix.join(lib)) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name();
                if !name.to_string_lossy().starts_with("python3") {
                    continue;
                }
                for site in ["site-packages", "dist-packages"] {
                    let nv = e.path().join(site).join("nvidia");
                    if let Ok(libs) = std::fs::read_dir(&nv) {
                        for l in libs.flatten() {
                            dirs.push(l.path().join("lib"));
                        }
                    }
                }
            }
        }
    }
    if let Some(ld) = std::env::var_os("LD_LIBRARY_PATH") {
        dirs.extend(std::env::split_paths(&ld));
    }
    dirs.push("/usr/lib/x86_64-linux-gnu".into());
    dirs.push("/lib/x86_64-linux-gnu".into());
    dirs.push("/usr/lib64".into());
    dirs.push("/usr/lib/wsl/lib".into());
    dirs.retain(|d| d.is_dir());
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(d.clone()));
    dirs
}

/// Loads a library globally from the first folder that has it, falling back
/// to the loader's search by name. Never panics.
pub fn load(name: &'static str) -> LibraryInfo {
    let mut tried = Vec::new();
    let names = candidates(name);
    let dirs = search_dirs();
    for file in &names {
        for dir in &dirs {
            let path = dir.join(file);
            if !path.exists() {
                continue;
            }
            match open_global(path.as_os_str()) {
                Ok(()) => {
                    return LibraryInfo {
                        name,
                        path: Some(path),
                        tried,
                    }
                }
                Err(e) => tried.push(format!("{}: {e}", path.display())),
            }
        }
    }
    for file in &names {
        match open_global(std::ffi::OsStr::new(file)) {
            Ok(()) => {
                return LibraryInfo {
                    name,
                    path: Some(PathBuf::from(file)),
                    tried,
                }
            }
            Err(e) => tried.push(format!("{file}: {e}")),
        }
    }
    if tried.is_empty() {
        tried.push(format!("{} in {} folders", names.join(", "), dirs.len()));
    }
    LibraryInfo {
        name,
        path: None,
        tried,
    }
}

/// dlopen with RTLD_NOW | RTLD_GLOBAL, kept loaded for the process's life.
fn open_global(file: &std::ffi::OsStr) -> Result<(), String> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: loading a CUDA library runs only its own initialisers.
    let lib =
        unsafe { Library::open(Some(file), RTLD_NOW | RTLD_GLOBAL) }.map_err(|e| e.to_string())?;
    std::mem::forget(lib);
    Ok(())
}

/// The names in `symbols` that the loaded library `file` lacks.
pub fn missing_symbols(info: &LibraryInfo, symbols: &[&str]) -> Vec<String> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    let Some(path) = &info.path else {
        return symbols.iter().map(|s| s.to_string()).collect();
    };
    // SAFETY: the library is already loaded; this only takes another reference.
    let Ok(lib) = (unsafe { Library::open(Some(path.as_os_str()), RTLD_NOW | RTLD_GLOBAL) }) else {
        return symbols.iter().map(|s| s.to_string()).collect();
    };
    let missing = symbols
        .iter()
        .filter(|s| {
            let mut name = s.as_bytes().to_vec();
            name.push(0);
            // SAFETY: only the symbol's presence is checked; it is not called.
            unsafe { lib.get::<*const ()>(&name) }.is_err()
        })
        .map(|s| s.to_string())
        .collect();
    std::mem::forget(lib);
    missing
}

/// Driver functions the session calls (resolved by cudarc on first call,
/// which would panic if one were missing).
pub const DRIVER_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDriverGetVersion",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuCtxSetCurrent",
    "cuCtxGetCurrent",
    "cuCtxSynchronize",
    "cuDeviceGetDefaultMemPool",
    "cuMemPoolSetAttribute",
    "cuMemPoolGetAttribute",
    "cuMemPoolTrimTo",
    "cuMemAllocFromPoolAsync",
    "cuMemFreeAsync",
    "cuMemGetInfo_v2",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyDtoDAsync_v2",
    "cuMemsetD8Async",
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamWaitEvent",
    "cuStreamQuery",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventQuery",
    "cuEventDestroy_v2",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuFuncSetAttribute",
    "cuFuncGetAttribute",
    "cuLaunchKernel",
    "cuGetErrorName",
    "cuGetErrorString",
];

/// NVRTC functions the kernel compiler calls.
pub const NVRTC_SYMBOLS: &[&str] = &[
    "nvrtcVersion",
    "nvrtcCreateProgram",
    "nvrtcCompileProgram",
    "nvrtcDestroyProgram",
    "nvrtcGetProgramLogSize",
    "nvrtcGetProgramLog",
    "nvrtcGetCUBINSize",
    "nvrtcGetCUBIN",
    "nvrtcAddNameExpression",
    "nvrtcGetLoweredName",
];

/// The first of `names` the loaded driver exports, as a function pointer of
/// type `F` (for functions whose versioned name differs between CUDA 12 and 13).
///
/// # Safety
/// `F` must be the C signature of every name given.
pub(crate) unsafe fn driver_symbol<F: Copy>(names: &[&str]) -> Option<F> {
    unsafe {
        use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
        let lib = Library::open(Some("libcuda.so.1"), RTLD_NOW | RTLD_GLOBAL).ok()?;
        let mut found = None;
        for n in names {
            let mut name = n.as_bytes().to_vec();
            name.push(0);
            if let Ok(sym) = lib.get::<F>(&name) {
                found = Some(*sym);
                break;
            }
        }
        // The driver stays loaded for the process's life.
        std::mem::forget(lib);
        found
    }
}

/// Loads the CUDA library `name` (`cublas`, `cusolver`, `cufft`, `curand`,
/// `cusparse`, `nccl`, ...) once per process, checking that it exports
/// `symbols`, before any cudarc call reaches it (cudarc panics on a missing
/// library). The error names the operation and every place that was tried.
pub(crate) fn require(
    name: &'static str,
    symbols: &'static [&'static str],
    op: &'static str,
) -> Result<(), crate::Error> {
    require_hinting(name, symbols, op, "too old?")
}

/// As [`require`], with `hint` saying what the absence of `symbols` likely
/// means. Each list of symbols gets its own answer (looked up once): a
/// library that has one list may lack another, as a CUDA that dropped the
/// legacy `csrilu02` still has the rest of cuSPARSE.
pub(crate) fn require_hinting(
    name: &'static str,
    symbols: &'static [&'static str],
    op: &'static str,
    hint: &str,
) -> Result<(), crate::Error> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    // A 'static list's address names it (no other list can take it), and
    // needs no hashing on this path, which every library call takes.
    type Key = (&'static str, usize, usize);
    static LOADED: OnceLock<Mutex<HashMap<Key, Result<(), String>>>> = OnceLock::new();
    let mut loaded = LOADED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let key = (name, symbols.as_ptr() as usize, symbols.len());
    let outcome = loaded.entry(key).or_insert_with(|| {
        let info = load(name);
        if info.path.is_none() {
            return Err(format!("tried {}", info.tried.join("; ")));
        }
        let missing = missing_symbols(&info, symbols);
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} lacks {} ({hint})",
                info.describe(),
                missing.join(", ")
            ))
        }
    });
    outcome
        .clone()
        .map_err(|detail| crate::Error::MissingLibrary {
            op,
            library: name,
            detail,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A second list of symbols of a library already required is looked up
    /// for itself, not answered by the first list's lookup.
    #[test]
    fn each_symbol_list_gets_its_own_answer() {
        if load("nvrtc").path.is_none() {
            assert!(
                std::env::var_os("CUPRITE_REQUIRE_NVRTC").is_none(),
                "NVRTC was not found and CUPRITE_REQUIRE_NVRTC=1"
            );
            return;
        }
        static PRESENT: &[&str] = &["nvrtcVersion"];
        static ABSENT: &[&str] = &["nvrtcVersion", "cupriteNoSuchFunction"];
        require("nvrtc", PRESENT, "test").unwrap();
        let e = require_hinting("nvrtc", ABSENT, "test", "a made-up name").unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("cupriteNoSuchFunction") && text.contains("a made-up name"),
            "{text}"
        );
        // Answers are kept: the first list is still fine.
        require("nvrtc", PRESENT, "test").unwrap();
    }
}
