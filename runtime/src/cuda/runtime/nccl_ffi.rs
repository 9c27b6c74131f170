//! NCCL's C interface, resolved at run time from the library that
//! [`super::libs::load`] finds (`libnccl.so.2` in the CUDA folders, pip's
//! `nvidia/nccl/lib`, conda, `LD_LIBRARY_PATH` or the system folders).
//!
//! Every function is looked up once, when NCCL is first needed; a missing
//! library or function becomes `Error::MissingLibrary` instead of the panic
//! that a lazily resolving binding would give on its first call.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

use crate::core::error::{Error, Result};

/// `ncclComm_t`.
pub(crate) type RawComm = *mut c_void;
/// `ncclResult_t` (a C enum).
pub(crate) type NcclResult = c_int;
/// `cudaStream_t` (the same handle as the driver's `CUstream`).
pub(crate) type RawStream = cudarc::driver::sys::CUstream;

/// `ncclUniqueId`: 128 opaque bytes, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct RawUniqueId {
    pub internal: [u8; 128],
}

/// `ncclConfig_t` as NCCL 2.14 defined it (`blocking` and the fields before
/// `splitShare`). NCCL copies `size` bytes and gives every field newer than
/// `version` its default, so this older layout is valid for every later
/// NCCL.
#[repr(C)]
pub(crate) struct RawConfig {
    size: usize,
    magic: u32,
    version: u32,
    /// 0: calls return `ncclInProgress` instead of blocking; completion is
    /// polled with `ncclCommGetAsyncError`, so a lost peer cannot hang a
    /// call forever.
    pub blocking: c_int,
    cga_cluster_size: c_int,
    min_ctas: c_int,
    max_ctas: c_int,
    net_name: *const c_char,
}

impl RawConfig {
    /// `NCCL_CONFIG_INITIALIZER` of NCCL 2.14: every field left to NCCL.
    pub fn new() -> RawConfig {
        const UNDEF_INT: c_int = c_int::MIN;
        RawConfig {
            size: std::mem::size_of::<RawConfig>(),
            magic: 0xcafe_beef,
            version: 21400,
            blocking: UNDEF_INT,
            cga_cluster_size: UNDEF_INT,
            min_ctas: UNDEF_INT,
            max_ctas: UNDEF_INT,
            net_name: std::ptr::null(),
        }
    }
}

/// `ncclUnhandledCudaError`: a CUDA call around NCCL's failed.
pub(crate) const UNHANDLED_CUDA_ERROR: NcclResult = 1;

/// `ncclInProgress`: a non-blocking communicator's call is still under way.
pub(crate) const IN_PROGRESS: NcclResult = 7;

/// `ncclDataType_t` values (stable since NCCL 2.0; bfloat16 since 2.10).
pub(crate) mod dtype {
    pub const INT8: i32 = 0;
    pub const UINT8: i32 = 1;
    pub const INT32: i32 = 2;
    pub const UINT32: i32 = 3;
    pub const INT64: i32 = 4;
    pub const UINT64: i32 = 5;
    pub const FLOAT16: i32 = 6;
    pub const FLOAT32: i32 = 7;
    pub const FLOAT64: i32 = 8;
    pub const BFLOAT16: i32 = 9;
}

/// `ncclRedOp_t` values (`ncclAvg` since NCCL 2.10).
pub(crate) mod redop {
    pub const SUM: i32 = 0;
    pub const PROD: i32 = 1;
    pub const MAX: i32 = 2;
    pub const MIN: i32 = 3;
    pub const AVG: i32 = 4;
}

type FnGetVersion = unsafe extern "C" fn(*mut c_int) -> NcclResult;
type FnGetUniqueId = unsafe extern "C" fn(*mut RawUniqueId) -> NcclResult;
type FnCommInitAll = unsafe extern "C" fn(*mut RawComm, c_int, *const c_int) -> NcclResult;
type FnCommInitRank = unsafe extern "C" fn(*mut RawComm, c_int, RawUniqueId, c_int) -> NcclResult;
type FnCommInitRankConfig =
    unsafe extern "C" fn(*mut RawComm, c_int, RawUniqueId, c_int, *mut RawConfig) -> NcclResult;
type FnComm = unsafe extern "C" fn(RawComm) -> NcclResult;
type FnCommGetAsyncError = unsafe extern "C" fn(RawComm, *mut NcclResult) -> NcclResult;
type FnGetErrorString = unsafe extern "C" fn(NcclResult) -> *const c_char;
type FnGetLastError = unsafe extern "C" fn(RawComm) -> *const c_char;
type FnAllReduce = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    c_int,
    c_int,
    RawComm,
    RawStream,
) -> NcclResult;
type FnBroadcast = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    c_int,
    c_int,
    RawComm,
    RawStream,
) -> NcclResult;
type FnReduce = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    c_int,
    c_int,
    c_int,
    RawComm,
    RawStream,
) -> NcclResult;
type FnAllGather = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    c_int,
    RawComm,
    RawStream,
) -> NcclResult;
type FnReduceScatter = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    c_int,
    c_int,
    RawComm,
    RawStream,
) -> NcclResult;
type FnSend =
    unsafe extern "C" fn(*const c_void, usize, c_int, c_int, RawComm, RawStream) -> NcclResult;
type FnRecv =
    unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, RawComm, RawStream) -> NcclResult;
type FnGroup = unsafe extern "C" fn() -> NcclResult;

/// The NCCL functions Cuprite calls, with the library's version.
pub(crate) struct Api {
    /// Where the library was loaded from.
    pub path: String,
    /// `ncclGetVersion`'s code (e.g. 22703 for 2.27.3).
    pub code: i32,
    pub get_unique_id: FnGetUniqueId,
    pub comm_init_all: FnCommInitAll,
    pub comm_init_rank: FnCommInitRank,
    /// `ncclCommInitRankConfig` (NCCL 2.14 and newer): non-blocking
    /// communicators.
    pub comm_init_rank_config: Option<FnCommInitRankConfig>,
    pub comm_destroy: FnComm,
    pub comm_abort: FnComm,
    pub comm_get_async_error: FnCommGetAsyncError,
    pub get_error_string: FnGetErrorString,
    /// `ncclGetLastError` (NCCL 2.13 and newer).
    pub get_last_error: Option<FnGetLastError>,
    pub all_reduce: FnAllReduce,
    pub broadcast: FnBroadcast,
    pub reduce: FnReduce,
    pub all_gather: FnAllGather,
    pub reduce_scatter: FnReduceScatter,
    pub send: FnSend,
    pub recv: FnRecv,
    pub group_start: FnGroup,
    pub group_end: FnGroup,
}

// SAFETY: plain function pointers into a library kept loaded for the process.
unsafe impl Send for Api {}
unsafe impl Sync for Api {}

/// What users need to do when NCCL is not found.
pub(crate) const INSTALL_HINT: &str = "install NCCL (libnccl.so.2): your cluster's `nccl` module, the distribution's libnccl2 package, or `pip install nvidia-nccl-cu13` (or -cu12); or put the folder holding libnccl.so.2 on LD_LIBRARY_PATH";

/// NCCL's functions, loading the library on first use.
pub(crate) fn api(op: &'static str) -> Result<&'static Api> {
    static API: OnceLock<std::result::Result<Api, String>> = OnceLock::new();
    API.get_or_init(load)
        .as_ref()
        .map_err(|detail| Error::MissingLibrary {
            op,
            library: "nccl",
            detail: detail.clone(),
        })
}

fn load() -> std::result::Result<Api, String> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    let info = super::libs::load("nccl");
    let Some(path) = info.path.clone() else {
        return Err(format!("tried {}; {INSTALL_HINT}", info.tried.join("; ")));
    };
    // SAFETY: the library is already loaded by `libs::load`; this only takes
    // another reference, kept for the life of the process.
    let lib = unsafe { Library::open(Some(path.as_os_str()), RTLD_NOW | RTLD_GLOBAL) }
        .map_err(|e| format!("{}: {e}; {INSTALL_HINT}", path.display()))?;
    let mut missing: Vec<&str> = Vec::new();
    macro_rules! sym {
        ($name:literal, $ty:ty) => {{
            // SAFETY: `$ty` is the C signature of `$name` in nccl.h.
            match unsafe { lib.get::<$ty>(concat!($name, "\0").as_bytes()) } {
                Ok(f) => Some(*f),
                Err(_) => {
                    missing.push($name);
                    None
                }
            }
        }};
    }
    let get_version = sym!("ncclGetVersion", FnGetVersion);
    let get_unique_id = sym!("ncclGetUniqueId", FnGetUniqueId);
    let comm_init_all = sym!("ncclCommInitAll", FnCommInitAll);
    let comm_init_rank = sym!("ncclCommInitRank", FnCommInitRank);
    let comm_destroy = sym!("ncclCommDestroy", FnComm);
    let comm_abort = sym!("ncclCommAbort", FnComm);
    let comm_get_async_error = sym!("ncclCommGetAsyncError", FnCommGetAsyncError);
    let get_error_string = sym!("ncclGetErrorString", FnGetErrorString);
    let all_reduce = sym!("ncclAllReduce", FnAllReduce);
    let broadcast = sym!("ncclBroadcast", FnBroadcast);
    let reduce = sym!("ncclReduce", FnReduce);
    let all_gather = sym!("ncclAllGather", FnAllGather);
    let reduce_scatter = sym!("ncclReduceScatter", FnReduceScatter);
    let send = sym!("ncclSend", FnSend);
    let recv = sym!("ncclRecv", FnRecv);
    let group_start = sym!("ncclGroupStart", FnGroup);
    let group_end = sym!("ncclGroupEnd", FnGroup);
    let required = missing.clone();
    // Optional: only for better messages.
    let get_last_error = sym!("ncclGetLastError", FnGetLastError);
    let comm_init_rank_config = sym!("ncclCommInitRankConfig", FnCommInitRankConfig);
    // SAFETY: only the presence of the library handle is kept.
    std::mem::forget(lib);
    if !required.is_empty() {
        return Err(format!(
            "{} lacks {} (NCCL 2.7 or newer is needed); {INSTALL_HINT}",
            path.display(),
            required.join(", ")
        ));
    }
    let mut code = 0;
    if let Some(f) = get_version {
        // SAFETY: valid out pointer.
        unsafe { f(&mut code) };
    }
    // Every `Some` is checked by `required` being empty.
    let all = (|| {
        Some(Api {
            path: path.display().to_string(),
            code,
            get_unique_id: get_unique_id?,
            comm_init_all: comm_init_all?,
            comm_init_rank: comm_init_rank?,
            comm_init_rank_config,
            comm_destroy: comm_destroy?,
            comm_abort: comm_abort?,
            comm_get_async_error: comm_get_async_error?,
            get_error_string: get_error_string?,
            get_last_error,
            all_reduce: all_reduce?,
            broadcast: broadcast?,
            reduce: reduce?,
            all_gather: all_gather?,
            reduce_scatter: reduce_scatter?,
            send: send?,
            recv: recv?,
            group_start: group_start?,
            group_end: group_end?,
        })
    })();
    all.ok_or_else(|| format!("{} is incomplete", path.display()))
}

impl Api {
    /// The version as (major, minor, patch).
    pub fn version(&self) -> (u32, u32, u32) {
        version_parts(self.code)
    }

    /// Whether NCCL knows bfloat16 and `ncclAvg` (2.10 and newer).
    pub fn has_bf16_and_avg(&self) -> bool {
        self.version() >= (2, 10, 0)
    }

    /// `Ok` for `ncclSuccess`, else `Error::Nccl` naming the result and
    /// NCCL's last message.
    pub fn check(&self, op: &'static str, r: NcclResult) -> Result<()> {
        if r == 0 {
            return Ok(());
        }
        Err(Error::Nccl {
            op,
            detail: self.describe(r),
        })
    }

    /// `ncclInvalidUsage (invalid usage): <last message>`.
    pub fn describe(&self, r: NcclResult) -> String {
        // SAFETY: NCCL returns a static string for any value.
        let text = unsafe { cstr((self.get_error_string)(r)) };
        let mut s = format!("{} ({text})", result_name(r));
        if let Some(f) = self.get_last_error {
            // SAFETY: a null communicator asks for the thread's last error.
            let last = unsafe { cstr(f(std::ptr::null_mut())) };
            if !last.is_empty() {
                s.push_str(": ");
                s.push_str(last.trim());
            }
        }
        if r == 1 || r == 3 {
            s.push_str("; run with NCCL_DEBUG=WARN (or INFO) for NCCL's own log");
        }
        s
    }
}

/// (major, minor, patch) of an `ncclGetVersion` code: X*10000+Y*100+Z since
/// 2.9, X*1000+Y*100+Z before.
pub(crate) fn version_parts(code: i32) -> (u32, u32, u32) {
    let c = code.max(0) as u32;
    if c >= 10000 {
        (c / 10000, (c / 100) % 100, c % 100)
    } else {
        (c / 1000, (c / 100) % 10, c % 100)
    }
}

/// The name of an `ncclResult_t` value.
pub(crate) fn result_name(r: NcclResult) -> &'static str {
    match r {
        0 => "ncclSuccess",
        1 => "ncclUnhandledCudaError",
        2 => "ncclSystemError",
        3 => "ncclInternalError",
        4 => "ncclInvalidArgument",
        5 => "ncclInvalidUsage",
        6 => "ncclRemoteError",
        7 => "ncclInProgress",
        8 => "ncclTimeout",
        _ => "unknown NCCL result",
    }
}

/// A C string as text ("" for null).
///
/// # Safety
/// `p` is null or a NUL-terminated string that outlives the call.
unsafe fn cstr(p: *const c_char) -> String {
    unsafe {
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_codes_of_both_schemes() {
        assert_eq!(version_parts(22703), (2, 27, 3));
        assert_eq!(version_parts(21003), (2, 10, 3));
        assert_eq!(version_parts(2804), (2, 8, 4));
        assert_eq!(result_name(5), "ncclInvalidUsage");
        assert_eq!(result_name(42), "unknown NCCL result");
    }

    #[test]
    fn loading_never_panics() {
        match api("test") {
            Ok(a) => assert!(a.version() >= (2, 7, 0), "{}", a.code),
            Err(e) => {
                let text = e.to_string();
                assert!(text.contains("nccl"), "{text}");
                assert!(text.contains("libnccl.so.2"), "{text}");
            }
        }
    }
}
