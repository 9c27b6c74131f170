//! `cp::RawKernel` and `cp::RawModule`: CUDA C++ written by the user,
//! compiled with NVRTC (through the kernel cache) and launched with an
//! explicit grid and block.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::args::{args_device, check_scalar, scalar_bytes, Arg, IntoArgs, IntoDim3};
use super::elementwise::c_align;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::cuda::runtime::compile::Function;
use crate::cuda::runtime::stream::Stream;
use crate::ops::Dim3;

const OP: &str = "RawKernel::launch";

/// The source and compile settings shared by a module and its kernels.
struct Source {
    code: String,
    /// The NVRTC program name (messages read `label.cu(LINE): error ...`).
    label: String,
    options: Vec<String>,
    name_expressions: Vec<String>,
    /// Compiled modules by device ordinal.
    compiled: Mutex<HashMap<usize, Arc<crate::cuda::runtime::compile::Module>>>,
}

impl Source {
    fn new(code: String, label: String) -> Source {
        Source {
            code,
            label,
            options: Vec::new(),
            name_expressions: Vec::new(),
            compiled: Mutex::new(HashMap::new()),
        }
    }

    fn module(&self, ordinal: usize) -> Result<Arc<crate::cuda::runtime::compile::Module>> {
        if let Some(m) = self
            .compiled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&ordinal)
        {
            return Ok(m.clone());
        }
        let s = crate::cuda::kernel_gen::custom::device_session(ordinal)?;
        let m = crate::cuda::kernel_gen::custom::module(
            s,
            &self.label,
            &self.code,
            &self.options,
            &self.name_expressions,
        )?;
        self.compiled
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(ordinal, m.clone());
        Ok(m)
    }
}

fn cuda_ordinal(what: &str) -> Result<usize> {
    match crate::backend::probe::current_device() {
        Device::Cuda(n) => {
            Device::Cuda(n).check_available("RawModule")?;
            Ok(n)
        }
        Device::Cpu => Err(Error::NeedsCuda {
            op: "RawModule",
            reason: format!("{what} compiles CUDA C++ for a GPU and the current device is the CPU"),
        }),
    }
}

/// CUDA C++ source with one or more kernels (`cupy.RawModule`). Kernels
/// need `extern "C"`, or for templates a name expression (`"f<float>"`).
#[derive(Clone)]
pub struct RawModule {
    src: Arc<Source>,
}

impl std::fmt::Debug for RawModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawModule({})", self.src.label)
    }
}

impl RawModule {
    /// A module from source text (compiled on first use on each device).
    pub fn new(code: &str) -> Result<RawModule> {
        Ok(RawModule {
            src: Arc::new(Source::new(code.to_string(), "module".into())),
        })
    }

    /// A module from a `.cu` file; compiler messages name the file.
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<RawModule> {
        let path = path.as_ref();
        let code = std::fs::read_to_string(path).map_err(|e| Error::InvalidArgument {
            op: "RawModule::from_file",
            detail: format!("cannot read {}: {e}", path.display()),
        })?;
        let shown = path
            .display()
            .to_string()
            .replace('\\', "/")
            .replace('"', "'");
        let label = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "module".into());
        Ok(RawModule {
            src: Arc::new(Source::new(format!("#line 1 \"{shown}\"\n{code}"), label)),
        })
    }

    fn edit(self, f: impl FnOnce(&mut Source)) -> RawModule {
        let mut s = Source::new(self.src.code.clone(), self.src.label.clone());
        s.options = self.src.options.clone();
        s.name_expressions = self.src.name_expressions.clone();
        f(&mut s);
        RawModule { src: Arc::new(s) }
    }

    /// NVRTC options (`"-std=c++17"`, `"-use_fast_math"`, `"-DN=4"`).
    pub fn options(self, options: &[&str]) -> RawModule {
        let o: Vec<String> = options.iter().map(|s| s.to_string()).collect();
        self.edit(|s| s.options = o)
    }

    /// C++ names to make callable, such as template instances
    /// (`"my_kernel<float, 4>"`); pass the same text to [`get_function`](Self::get_function).
    pub fn name_expressions(self, names: &[&str]) -> RawModule {
        let n: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        self.edit(|s| s.name_expressions = n)
    }

    /// The source text.
    pub fn code(&self) -> &str {
        &self.src.code
    }

    /// Compiles the module for the current CUDA device now (compile errors
    /// come back as [`Error::Compile`] with the user's line numbers).
    pub fn compile(&self) -> Result<()> {
        self.src
            .module(cuda_ordinal("RawModule::compile")?)
            .map(drop)
    }

    /// The kernel `name` (an `extern "C"` name or one of the name
    /// expressions). On a CUDA device the module is compiled and the name
    /// checked now; on the CPU the kernel is returned unchecked.
    pub fn get_function(&self, name: &str) -> Result<RawKernel> {
        let k = RawKernel {
            src: self.src.clone(),
            name: name.to_string(),
            signature: kernel_signature(&self.src.code, name),
        };
        if let Device::Cuda(n) = crate::backend::probe::current_device() {
            if n < crate::backend::probe::device_count() {
                self.src.module(n)?.function(name)?;
            }
        }
        Ok(k)
    }
}

/// One CUDA kernel written by the user (`cupy.RawKernel`), launched with
/// an explicit grid and block:
///
/// ```
/// use cuprite as cp;
/// let saxpy = cp::RawKernel::new(r#"
/// extern "C" __global__ void saxpy(const float* x, const float* y, float* z, float a, int n) {
///     int i = blockDim.x * blockIdx.x + threadIdx.x;
///     if (i < n) z[i] = a * x[i] + y[i];
/// }"#, "saxpy")?;
/// # let n = 1000usize;
/// # let x = cp::ones([n], cp::f32)?; let y = cp::ones([n], cp::f32)?; let z = cp::empty([n], cp::f32)?;
/// # if x.device().is_cuda() {
/// saxpy.launch(((n + 255) / 256,), (256,), (&x, &y, &z, 2.0f32, n as i32), 0, None)?;
/// # }
/// # Ok::<(), cp::Error>(())
/// ```
///
/// Arrays pass their device pointer (of element 0 of the view), scalars
/// pass by value, [`DevicePtr`](crate::DevicePtr) passes an address. When
/// the kernel's parameter list can be read from the source, the argument
/// count is checked and scalars are converted to the declared types (so
/// `2.0` reaches a `float` parameter as a float, not as the bytes of a double).
#[derive(Clone)]
pub struct RawKernel {
    src: Arc<Source>,
    name: String,
    signature: Option<Vec<(String, CParam)>>,
}

impl std::fmt::Debug for RawKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RawKernel({})", self.name)
    }
}

impl RawKernel {
    /// A kernel named `name` in `code` (compiled on first launch on each device).
    pub fn new(code: &str, name: &str) -> Result<RawKernel> {
        RawKernel::with_options(code, name, &[])
    }

    /// As [`new`](Self::new) with NVRTC options.
    pub fn with_options(code: &str, name: &str, options: &[&str]) -> Result<RawKernel> {
        if name.trim().is_empty() {
            return Err(Error::InvalidArgument {
                op: "RawKernel::new",
                detail: "the kernel name is empty".into(),
            });
        }
        let mut s = Source::new(code.to_string(), sanitize(name));
        s.options = options.iter().map(|o| o.to_string()).collect();
        Ok(RawKernel {
            src: Arc::new(s),
            name: name.to_string(),
            signature: kernel_signature(code, name),
        })
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The parameter declarations read from the source, when found.
    pub fn parameters(&self) -> Option<Vec<String>> {
        self.signature
            .as_ref()
            .map(|s| s.iter().map(|(d, _)| d.clone()).collect())
    }

    /// Compiles for the current CUDA device now and checks the kernel exists.
    pub fn compile(&self) -> Result<()> {
        let n = cuda_ordinal("RawKernel::compile")?;
        self.src.module(n)?.function(&self.name).map(drop)
    }

    /// `kernel(grid, block, args)` in CuPy: launches with no dynamic shared
    /// memory on the current stream.
    pub fn call<'a>(
        &self,
        grid: impl IntoDim3,
        block: impl IntoDim3,
        args: impl IntoArgs<'a>,
    ) -> Result<()> {
        self.launch(grid, block, args, 0, None)
    }

    /// Launches the kernel: `grid` blocks of `block` threads, with
    /// `shared_mem_bytes` of dynamic shared memory (above 48 KiB the
    /// function's limit is raised), on `stream` (else the current stream).
    pub fn launch<'a>(
        &self,
        grid: impl IntoDim3,
        block: impl IntoDim3,
        args: impl IntoArgs<'a>,
        shared_mem_bytes: usize,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let grid = grid.into_dim3()?;
        let block = block.into_dim3()?;
        let args = args.into_args();
        let mut kargs = self.pack(&args)?;
        let ordinal = match args_device(OP, &args)? {
            Device::Cuda(n) => n,
            Device::Cpu => {
                return Err(Error::NeedsCuda {
                    op: OP,
                    reason: format!(
                    "`{}` is CUDA code and its arguments (or the current device) are on the CPU",
                    self.name
                ),
                })
            }
        };
        Device::Cuda(ordinal).check_available(OP)?;
        let f = self.function(ordinal)?;
        self.launch_packed(
            ordinal,
            f,
            grid,
            block,
            &mut kargs,
            shared_mem_bytes,
            stream,
        )
    }

    /// The compiled kernel on device `ordinal` (compiled there on first use).
    pub(crate) fn function(&self, ordinal: usize) -> Result<Function> {
        self.src.module(ordinal)?.function(&self.name)
    }

    /// Launches `f` (this kernel's [`function`](Self::function) on device
    /// `ordinal`, which the caller has checked is available) with an
    /// argument buffer its caller has packed and checked (a jit kernel knows
    /// its parameters' types).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_packed(
        &self,
        ordinal: usize,
        f: Function,
        grid: Dim3,
        block: Dim3,
        kargs: &mut crate::cuda::runtime::launch::KernelArgs,
        shared_mem_bytes: usize,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let s = crate::cuda::kernel_gen::custom::device_session(ordinal)?;
        let stream = stream
            .cloned()
            .unwrap_or_else(crate::cuda::runtime::stream::current_stream);
        crate::cuda::kernel_gen::custom::launch_user(
            s,
            &self.name,
            f,
            grid,
            block,
            shared_mem_bytes,
            &stream,
            kargs,
        )
    }

    /// The argument buffer, checked against the parameter list when known.
    pub(crate) fn pack(
        &self,
        args: &[Arg<'_>],
    ) -> Result<crate::cuda::runtime::launch::KernelArgs> {
        let bad = |detail: String| Error::InvalidArgument {
            op: OP,
            detail: format!("kernel `{}`: {detail}", self.name),
        };
        if let Some(sig) = &self.signature {
            if sig.len() != args.len() {
                let decls: Vec<&str> = sig.iter().map(|(d, _)| d.as_str()).collect();
                return Err(bad(format!(
                    "it takes {} parameters ({}) but {} arguments were given",
                    sig.len(),
                    decls.join(", "),
                    args.len()
                )));
            }
        }
        let mut k = crate::cuda::runtime::launch::KernelArgs::new();
        for (i, a) in args.iter().enumerate() {
            let param = self.signature.as_ref().and_then(|s| s.get(i));
            let decl = param.map(|(d, _)| d.as_str()).unwrap_or("?");
            let kind = param.map(|(_, c)| *c).unwrap_or(CParam::Unknown);
            match a {
                Arg::Array(x) => {
                    if let CParam::Scalar(_) = kind {
                        return Err(bad(format!(
                            "argument {i} is an array but parameter `{decl}` is not a pointer"
                        )));
                    }
                    let ptr = match x.storage() {
                        crate::core::storage::Storage::Cuda(_) => {
                            crate::cuda::kernel_gen::helpers::ptr(OP, x)?
                        }
                        crate::core::storage::Storage::Cpu(_) => {
                            return Err(Error::NeedsCuda {
                                op: OP,
                                reason: format!(
                                "argument {i} of `{}` is a CPU array; kernels read device memory",
                                self.name
                            ),
                            })
                        }
                    };
                    k.push(ptr);
                }
                Arg::Ptr(p) => {
                    if let CParam::Scalar(_) = kind {
                        return Err(bad(format!(
                            "argument {i} is a device pointer but parameter `{decl}` is not a pointer"
                        )));
                    }
                    k.push(*p);
                }
                Arg::Scalar(v, d) => {
                    let dt = match kind {
                        CParam::Pointer => {
                            return Err(bad(format!(
                            "argument {i} is {} but parameter `{decl}` is a pointer; pass an array",
                            a.describe()
                        )))
                        }
                        CParam::Scalar(t) => {
                            check_scalar(OP, &self.name, decl, *v, *d, t)?;
                            t
                        }
                        CParam::Unknown => *d,
                    };
                    k.push_bytes(&scalar_bytes(*v, dt), c_align(dt));
                }
            }
        }
        Ok(k)
    }
}

/// `name` with every character that cannot be in a C identifier made `_`.
pub(crate) fn identifier_chars(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A name usable as an NVRTC program name.
fn sanitize(name: &str) -> String {
    identifier_chars(name)
        .trim_matches('_')
        .to_string()
        .chars()
        .take(64)
        .collect::<String>()
}

/// What a kernel parameter declaration accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CParam {
    /// A pointer or reference: arrays and device pointers.
    Pointer,
    /// A scalar of this dtype.
    Scalar(DType),
    /// A type we do not know (a struct, a template parameter).
    Unknown,
}

/// The source with comments replaced by spaces (string literals kept).
fn strip_comments(code: &str) -> String {
    let b = code.as_bytes();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'*' {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            out.push(' ');
        } else {
            let ch = code[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The dtype of a C scalar type name, when it is a common one.
fn c_scalar(t: &str) -> Option<DType> {
    Some(match t {
        "float" => DType::Float32,
        "double" => DType::Float64,
        "int" | "signed" | "signed int" | "int32_t" => DType::Int32,
        "unsigned" | "unsigned int" | "uint32_t" => DType::UInt32,
        "long long" | "long long int" | "signed long long" | "int64_t" | "ptrdiff_t" | "long"
        | "long int" => DType::Int64,
        "unsigned long long"
        | "unsigned long long int"
        | "uint64_t"
        | "size_t"
        | "unsigned long" => DType::UInt64,
        "short" | "short int" | "int16_t" => DType::Int16,
        "unsigned short" | "uint16_t" => DType::UInt16,
        "char" | "signed char" | "int8_t" => DType::Int8,
        "unsigned char" | "uint8_t" => DType::UInt8,
        "bool" => DType::Bool,
        "__half" | "half" => DType::Float16,
        "__nv_bfloat16" => DType::BFloat16,
        _ => return None,
    })
}

/// The parameter declarations of the `__global__` function `name` in
/// `code`, when they can be read (not for templates or macros).
pub(crate) fn kernel_signature(code: &str, name: &str) -> Option<Vec<(String, CParam)>> {
    if !super::params::is_identifier(name) {
        return None;
    }
    let code = strip_comments(code);
    let bytes = code.as_bytes();
    let mut found: Option<usize> = None;
    let mut from = 0;
    while let Some(pos) = code[from..].find(name) {
        let at = from + pos;
        from = at + name.len();
        let before_ok = at == 0 || {
            let c = bytes[at - 1] as char;
            !(c.is_ascii_alphanumeric() || c == '_')
        };
        let rest = code[from..].trim_start();
        if !before_ok || !rest.starts_with('(') {
            continue;
        }
        // The declaration this name belongs to starts after the last ; } or {.
        let start = code[..at].rfind([';', '}', '{']).map_or(0, |p| p + 1);
        let head = &code[start..at];
        if head.contains("__global__") && !head.contains("template") {
            if found.is_some() {
                return None; // overloads: cannot tell which one
            }
            found = Some(code.len() - rest.len());
        }
    }
    let open = found?;
    let mut depth = 0i32;
    let mut close = None;
    for (k, ch) in code[open..].char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + k);
                    break;
                }
            }
            _ => {}
        }
    }
    let inner = code[open + 1..close?].trim();
    if inner.contains('<') || inner.contains('#') {
        return None;
    }
    if inner.is_empty() || inner == "void" {
        return Some(vec![]);
    }
    let mut params = Vec::new();
    for decl in inner.split(',') {
        let decl = decl.split_whitespace().collect::<Vec<_>>().join(" ");
        if decl.contains('=') {
            return None;
        }
        let kind = if decl.contains('*') || decl.contains('&') || decl.contains('[') {
            CParam::Pointer
        } else {
            let toks: Vec<&str> = decl
                .split(' ')
                .filter(|t| {
                    !matches!(
                        *t,
                        "const" | "volatile" | "__restrict__" | "restrict" | "register"
                    )
                })
                .collect();
            if toks.len() < 2 {
                CParam::Unknown
            } else {
                let ty = toks[..toks.len() - 1].join(" ");
                c_scalar(&ty).map_or(CParam::Unknown, CParam::Scalar)
            }
        };
        params.push((decl, kind));
    }
    Some(params)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAXPY: &str = r#"
// a comment with saxpy(int) in it
extern "C" __global__
void saxpy(const float a, const float* __restrict__ x,
           const float* __restrict__ y, float* __restrict__ out, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
"#;

    #[test]
    fn signatures_are_read_from_the_source() {
        let sig = kernel_signature(SAXPY, "saxpy").unwrap();
        let kinds: Vec<CParam> = sig.iter().map(|(_, k)| *k).collect();
        assert_eq!(
            kinds,
            vec![
                CParam::Scalar(DType::Float32),
                CParam::Pointer,
                CParam::Pointer,
                CParam::Pointer,
                CParam::Scalar(DType::Int32)
            ]
        );
        assert_eq!(sig[0].0, "const float a");
        assert!(kernel_signature(SAXPY, "axpy").is_none());
        let t = "template <class T> __global__ void f(T* x, int n) {}";
        assert!(kernel_signature(t, "f").is_none());
        let two = r#"extern "C" __global__ void kernel_a(float* x, int n) {}
extern "C" __global__ void kernel_b(float* x, unsigned long long n, my_t s) {}"#;
        let b = kernel_signature(two, "kernel_b").unwrap();
        assert_eq!(b[1].1, CParam::Scalar(DType::UInt64));
        assert_eq!(b[2].1, CParam::Unknown);
        assert_eq!(
            kernel_signature("extern \"C\" __global__ void k() {}", "k"),
            Some(vec![])
        );
    }

    #[test]
    fn arguments_are_checked_and_converted_on_the_cpu() {
        let k = RawKernel::new(SAXPY, "saxpy").unwrap();
        let e = k
            .pack(&[Arg::Scalar(crate::Scalar::Float(2.0), DType::Float64)])
            .err()
            .unwrap();
        assert!(e.to_string().contains("takes 5 parameters"), "{e}");
        // A scalar where a pointer is declared.
        let s = |v: f64| Arg::Scalar(crate::Scalar::Float(v), DType::Float64);
        let e = k
            .pack(&[s(2.0), s(1.0), Arg::Ptr(0), Arg::Ptr(0), s(1.0)])
            .err()
            .unwrap();
        assert!(e.to_string().contains("is a pointer"), "{e}");
        // 2.0 (f64) reaches `const float a` as a float; 10 reaches `int n`.
        let packed = k.pack(&[
            s(2.0),
            Arg::Ptr(8),
            Arg::Ptr(16),
            Arg::Ptr(24),
            Arg::Scalar(crate::Scalar::UInt(10), DType::UInt64),
        ]);
        assert!(packed.is_ok());
    }

    #[test]
    fn launching_on_the_cpu_needs_cuda() {
        let k = RawKernel::new(SAXPY, "saxpy").unwrap();
        let x = crate::with_device(Device::Cpu, || crate::zeros([4], DType::Float32)).unwrap();
        let e = crate::with_device(Device::Cpu, || {
            k.launch((1,), (4,), (2.0f32, &x, &x, &x, 4i32), 0, None)
        })
        .unwrap_err();
        assert!(matches!(e, Error::NeedsCuda { .. }), "{e}");
    }
}
