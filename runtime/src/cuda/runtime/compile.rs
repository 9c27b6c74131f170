//! Compiling CUDA C++ with NVRTC into cubin for the device's own
//! architecture, cached in memory and on disk.
//!
//! The disk cache key hashes the source, the options, the architecture, the
//! NVRTC version and this crate's version; files are written atomically
//! (temporary file, then rename) so concurrent kernels never read a torn file.

use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys;
use cudarc::nvrtc::sys as nv;

use super::session::{process, DeviceInfo, DeviceSession};
use crate::core::error::{Error, Result};
use crate::cuda::{DriverResultExt, Handle};

/// The definitions every generated kernel can use (no CUDA headers needed).
pub(crate) const PRELUDE: &str = include_str!("../kernels/prelude.cuh");

/// What kernels translated by `cp::jit` add after the prelude: arithmetic
/// and math for the half types, `cp_as` conversions.
pub(crate) const JIT_SUPPORT: &str = include_str!("../kernels/jit_support.cuh");

/// A loaded module and the functions looked up in it.
pub(crate) struct Module {
    handle: Handle<sys::CUmodule>,
    functions: Mutex<HashMap<String, Handle<sys::CUfunction>>>,
    /// C++ names (`name_expressions`) lowered by NVRTC to their mangled names.
    pub lowered: HashMap<String, String>,
}

/// A kernel ready to launch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Function {
    pub raw: Handle<sys::CUfunction>,
}

impl Module {
    /// The function `name` (a lowered name expression or an `extern "C"` name).
    pub fn function(&self, name: &str) -> Result<Function> {
        let symbol = self.lowered.get(name).map(String::as_str).unwrap_or(name);
        let mut fns = self.functions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = fns.get(symbol) {
            return Ok(Function { raw: *f });
        }
        let c = CString::new(symbol).map_err(|_| Error::InvalidArgument {
            op: "get_function",
            detail: format!("{name:?} contains a NUL byte"),
        })?;
        let mut f = std::ptr::null_mut();
        // SAFETY: valid module and C string.
        unsafe { sys::cuModuleGetFunction(&mut f, self.handle.0, c.as_ptr()) }
            .result()
            .map_err(|e| Error::InvalidArgument {
                op: "get_function",
                detail: format!(
                    "the module has no kernel named `{name}` ({}); kernels need `extern \"C\"` or a name expression",
                    crate::cuda::describe(&e)
                ),
            })?;
        fns.insert(symbol.to_string(), Handle(f));
        Ok(Function { raw: Handle(f) })
    }
}

/// Compiled modules of one device, by key.
pub(crate) struct KernelCache {
    modules: Mutex<HashMap<u64, Arc<Module>>>,
    /// Generated kernels by a compact key of their source, so a warm call
    /// neither builds nor hashes the source; under each key, the source's
    /// kernels by name (one source may define several).
    specialized: Mutex<HashMap<u64, SpecializedKernels>>,
    arch: String,
    dir: Option<PathBuf>,
}

/// The kernels looked up so far in one generated source, by name.
type SpecializedKernels = smallvec::SmallVec<[(Box<str>, Function); 1]>;

/// 64-bit FNV-1a: stable across Rust versions and processes, for cache keys.
pub(crate) fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for p in parts {
        for &b in *p {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
        // Separate parts so ("ab","c") and ("a","bc") differ.
        h ^= 0xff;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// The kernel cache folder: `CUPRITE_CACHE_DIR`, else `$XDG_CACHE_HOME/cuprite/kernels`,
/// else `~/.cache/cuprite/kernels`.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("CUPRITE_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("cuprite").join("kernels"))
}

impl KernelCache {
    pub fn new(info: &DeviceInfo) -> KernelCache {
        KernelCache {
            modules: Mutex::new(HashMap::new()),
            specialized: Mutex::new(HashMap::new()),
            arch: format!(
                "sm_{}{}",
                info.compute_capability.0, info.compute_capability.1
            ),
            dir: cache_dir(),
        }
    }

    /// The module for `source` compiled with `options`, from memory, disk or NVRTC.
    /// `name_expressions` are C++ names (template instances) to make callable.
    pub fn module(
        &self,
        session: &DeviceSession,
        name: &str,
        source: &str,
        options: &[String],
        name_expressions: &[String],
    ) -> Result<Arc<Module>> {
        let nvrtc = process().nvrtc_version.unwrap_or((0, 0));
        let nvrtc_text = format!("{}.{}", nvrtc.0, nvrtc.1);
        let opts = options.join("\u{1}");
        let names = name_expressions.join("\u{1}");
        let key = fnv1a(&[
            source.as_bytes(),
            opts.as_bytes(),
            names.as_bytes(),
            self.arch.as_bytes(),
            nvrtc_text.as_bytes(),
            env!("CARGO_PKG_VERSION").as_bytes(),
        ]);
        if let Some(m) = self
            .modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return Ok(m.clone());
        }
        let file = self
            .dir
            .as_ref()
            .map(|d| d.join(format!("{key:016x}.cubin")));
        let names_file = file.as_ref().map(|f| f.with_extension("names"));
        let cached = file.as_ref().and_then(|f| std::fs::read(f).ok());
        let (image, lowered) = match cached {
            Some(image) if !image.is_empty() => {
                let lowered = names_file
                    .as_ref()
                    .and_then(|f| std::fs::read_to_string(f).ok())
                    .map(|t| parse_lowered(&t))
                    .unwrap_or_default();
                (image, lowered)
            }
            _ => {
                let (image, lowered) =
                    compile(name, source, &self.arch, options, name_expressions)?;
                if let (Some(f), Some(nf)) = (&file, &names_file) {
                    // The cache is an optimisation: failing to write it is not an error.
                    let _ = write_atomic(nf, format_lowered(&lowered).as_bytes());
                    let _ = write_atomic(f, &image);
                }
                (image, lowered)
            }
        };
        session.bind()?;
        let mut handle = std::ptr::null_mut();
        // SAFETY: `image` is a complete cubin produced by NVRTC for this architecture.
        unsafe { sys::cuModuleLoadData(&mut handle, image.as_ptr() as *const std::ffi::c_void) }
            .result()
            .op(&format!("loading the compiled kernel `{name}`"))?;
        let module = Arc::new(Module {
            handle: Handle(handle),
            functions: Mutex::new(HashMap::new()),
            lowered,
        });
        self.modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, module.clone());
        Ok(module)
    }

    /// Whether [`KernelCache::specialized`] has a kernel under `key`.
    pub fn has_specialized(&self, key: u64) -> bool {
        self.specialized
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(&key)
    }

    /// The kernel `fname` of a generated source identified by `key` (which
    /// must determine the source): from memory, or built by `source` and
    /// compiled (or loaded from disk) on first use. Kernels of one source
    /// share its key and are told apart by name.
    pub fn specialized(
        &self,
        session: &DeviceSession,
        key: u64,
        name: &str,
        fname: &str,
        source: impl FnOnce() -> String,
    ) -> Result<Function> {
        let found = self
            .specialized
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .and_then(|fns| fns.iter().find(|(n, _)| &**n == fname).map(|(_, f)| *f));
        if let Some(f) = found {
            return Ok(f);
        }
        let source = source();
        let module = self.module(session, name, &source, &[], &[])?;
        let f = module.function(fname).map_err(|e| {
            if defines_kernel(&source, fname) {
                e
            } else {
                Error::Compile {
                    name: name.to_string(),
                    log: format!(
                        "the generated source defines no kernel `{fname}`, the name its launch looks up ({e})\n--- source ---\n{source}"
                    ),
                }
            }
        })?;
        self.specialized
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key)
            .or_default()
            .push((fname.into(), f));
        Ok(f)
    }
}

/// Whether `source` defines the kernel `fname` (`__global__` in its
/// declaration, the name followed by its parameters): what a generated
/// source's launch looks up by name. The template tests, which compile
/// without a GPU, check each rendered source with it, so a template and its
/// launch that disagree on the name fail in CI, not at the first launch on a
/// GPU; [`KernelCache::specialized`] says so when the lookup fails.
pub(crate) fn defines_kernel(source: &str, fname: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    source.match_indices(fname).any(|(at, _)| {
        let before = &source[..at];
        let after = &source[at + fname.len()..];
        let whole = !before.ends_with(ident) && !after.starts_with(ident);
        let declaration = &before[before.rfind([';', '{', '}']).map_or(0, |i| i + 1)..];
        whole && after.trim_start().starts_with('(') && declaration.contains("__global__")
    })
}

fn format_lowered(map: &HashMap<String, String>) -> String {
    map.iter().map(|(k, v)| format!("{k}\t{v}\n")).collect()
}

fn parse_lowered(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// Runs NVRTC: source → cubin, with the lowered names of `name_expressions`.
fn compile(
    name: &str,
    source: &str,
    arch: &str,
    options: &[String],
    name_expressions: &[String],
) -> Result<(Vec<u8>, HashMap<String, String>)> {
    let err = |log: String| Error::Compile {
        name: name.to_string(),
        log,
    };
    let src = CString::new(source).map_err(|_| err("the source contains a NUL byte".into()))?;
    let file = CString::new(format!("{name}.cu")).unwrap_or_default();
    let mut prog: nv::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: valid C strings; no headers are passed.
    let rc = unsafe {
        nv::nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            file.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    check(rc, "nvrtcCreateProgram").map_err(err)?;
    struct Destroy(nv::nvrtcProgram);
    impl Drop for Destroy {
        fn drop(&mut self) {
            // SAFETY: created above, destroyed once.
            unsafe { nv::nvrtcDestroyProgram(&mut self.0) };
        }
    }
    let _guard = Destroy(prog);
    let exprs: Vec<CString> = name_expressions
        .iter()
        .map(|e| CString::new(e.as_str()).unwrap_or_default())
        .collect();
    for e in &exprs {
        // SAFETY: valid program and C string.
        check(
            unsafe { nv::nvrtcAddNameExpression(prog, e.as_ptr()) },
            "nvrtcAddNameExpression",
        )
        .map_err(err)?;
    }
    let mut all_opts: Vec<String> = vec![format!("--gpu-architecture={arch}")];
    // C++17 unless the caller chose a standard (NVRTC rejects a repeated --std).
    if !options
        .iter()
        .any(|o| o.starts_with("-std") || o.starts_with("--std"))
    {
        all_opts.push("--std=c++17".into());
    }
    all_opts.extend(options.iter().cloned());
    let c_opts: Vec<CString> = all_opts
        .iter()
        .map(|o| CString::new(o.as_str()).unwrap_or_default())
        .collect();
    let ptrs: Vec<*const std::os::raw::c_char> = c_opts.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: valid program and option array.
    let rc = unsafe { nv::nvrtcCompileProgram(prog, ptrs.len() as i32, ptrs.as_ptr()) };
    if rc != nv::nvrtcResult::NVRTC_SUCCESS {
        return Err(err(program_log(prog)));
    }
    // A virtual architecture (`compute_90`) stops at PTX: there is no CUBIN.
    if arch.starts_with("compute_") {
        return Ok((Vec::new(), HashMap::new()));
    }
    let mut size = 0usize;
    // SAFETY: compiled program.
    check(
        unsafe { nv::nvrtcGetCUBINSize(prog, &mut size) },
        "nvrtcGetCUBINSize",
    )
    .map_err(err)?;
    let mut image = vec![0u8; size];
    // SAFETY: buffer of the reported size.
    check(
        unsafe { nv::nvrtcGetCUBIN(prog, image.as_mut_ptr() as *mut std::os::raw::c_char) },
        "nvrtcGetCUBIN",
    )
    .map_err(err)?;
    let mut lowered = HashMap::new();
    for (e, c) in name_expressions.iter().zip(&exprs) {
        let mut out: *const std::os::raw::c_char = std::ptr::null();
        // SAFETY: the expression was added before compiling; NVRTC owns the string.
        check(
            unsafe { nv::nvrtcGetLoweredName(prog, c.as_ptr(), &mut out) },
            "nvrtcGetLoweredName",
        )
        .map_err(err)?;
        // SAFETY: NVRTC returns a NUL-terminated string valid while `prog` lives.
        let s = unsafe { CStr::from_ptr(out) }
            .to_string_lossy()
            .into_owned();
        lowered.insert(e.clone(), s);
    }
    Ok((image, lowered))
}

fn check(rc: nv::nvrtcResult, what: &str) -> std::result::Result<(), String> {
    if rc == nv::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed: {rc:?}"))
    }
}

fn program_log(prog: nv::nvrtcProgram) -> String {
    let mut size = 0usize;
    // SAFETY: valid program.
    unsafe { nv::nvrtcGetProgramLogSize(prog, &mut size) };
    let mut log = vec![0u8; size.max(1)];
    // SAFETY: buffer of the reported size.
    unsafe { nv::nvrtcGetProgramLog(prog, log.as_mut_ptr() as *mut std::os::raw::c_char) };
    let text = String::from_utf8_lossy(&log);
    text.trim_end_matches('\0').trim_end().to_string()
}

/// For tests of generated sources: compiles `source` with NVRTC for sm_90
/// when NVRTC can be loaded (no GPU or driver is needed), returning the
/// error log of a failed compile. Without NVRTC it prints a notice and
/// returns `Ok`, unless `CUPRITE_REQUIRE_NVRTC=1` makes that a failure (CI
/// installs NVRTC from PyPI so every generated kernel is compiled there).
#[cfg(test)]
pub(crate) fn check_compiles(name: &str, source: &str) -> std::result::Result<(), String> {
    use std::sync::OnceLock;
    static NVRTC: OnceLock<bool> = OnceLock::new();
    let present = *NVRTC.get_or_init(|| {
        let info = super::libs::load("nvrtc");
        info.path.is_some()
            && super::libs::missing_symbols(&info, super::libs::NVRTC_SYMBOLS).is_empty()
    });
    if !present {
        if std::env::var("CUPRITE_REQUIRE_NVRTC").as_deref() == Ok("1") {
            return Err("NVRTC was not found and CUPRITE_REQUIRE_NVRTC=1".into());
        }
        eprintln!("note: NVRTC not found; `{name}` was not compiled");
        return Ok(());
    }
    // PTX for a virtual architecture: the C++ front end and NVVM find every
    // error a generated source can have, at half the cost of a CUBIN (no
    // ptxas), and CI compiles some thousand sources this way.
    compile(name, source, "compute_90", &[], &[])
        .map(|_| ())
        .map_err(|e| format!("{e}\n--- source ---\n{source}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defines_kernel_finds_declared_kernels_only() {
        let src = "__device__ float f(float x) { return x; }\n\
                   extern \"C\" __global__ void __launch_bounds__(256, 3)\n  k_sort(int* x) { f(1.0f); }\n\
                   extern \"C\" __global__ void k_map (int* x) { }\n";
        assert!(defines_kernel(src, "k_sort"));
        assert!(defines_kernel(src, "k_map"));
        // A device function, a prefix of a kernel's name, a name not there.
        assert!(!defines_kernel(src, "f"));
        assert!(!defines_kernel(src, "k_ma"));
        assert!(!defines_kernel(src, "k_small"));
    }

    #[test]
    fn keys_are_stable_and_separate_parts() {
        assert_eq!(fnv1a(&[b"abc"]), fnv1a(&[b"abc"]));
        assert_ne!(fnv1a(&[b"ab", b"c"]), fnv1a(&[b"a", b"bc"]));
        // Fixed values (computed independently in Python) guard the on-disk key format.
        assert_eq!(fnv1a(&[b""]), 0xaf64724c8602eb6e);
        assert_eq!(fnv1a(&[b"abc"]), 0xfc182483ee0806dc);
    }

    /// Two kernels of one source under one key are two functions: the
    /// cache once returned the first one looked up for both, so ndimage's
    /// label ran its init kernel with the merge kernel's arguments.
    #[test]
    fn kernels_of_one_source_are_found_by_name() {
        if crate::device_count() == 0 {
            return;
        }
        let s = crate::cuda::runtime::session::session(0).expect("a session on cuda:0");
        let src = || {
            "extern \"C\" __global__ void first_kernel(int* x) { x[0] = 1; }\n\
             extern \"C\" __global__ void second_kernel(int* x) { x[0] = 2; }\n"
                .to_string()
        };
        let key = 0x5eed_0f0e_5a11;
        let a = s
            .kernels
            .specialized(s, key, "two", "first_kernel", src)
            .unwrap();
        let b = s
            .kernels
            .specialized(s, key, "two", "second_kernel", src)
            .unwrap();
        let a_again = s
            .kernels
            .specialized(s, key, "two", "first_kernel", src)
            .unwrap();
        assert_ne!(a.raw.0, b.raw.0);
        assert_eq!(a.raw.0, a_again.raw.0);
    }
}
