//! `cp::jit::Kernel`: what `#[cp::jit::kernel]` makes of a function. On a
//! GPU it is a [`RawKernel`] over the translated source (NVRTC with the
//! session's cache, the same launch path); on the CPU the function's Rust
//! body runs the grid ([`super::grid`]).

use std::sync::OnceLock;

use super::grid::{self, Fault};
use super::memory::{JitElem, Slice};
use super::views::View;
use crate::api::kernels::args::{args_device, check_scalar, scalar_bytes};
use crate::api::kernels::elementwise::c_align;
use crate::api::kernels::{Arg, IntoArgs, IntoDim3, RawKernel};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::{Element, Scalar};
use crate::core::error::{Error, Result};
use crate::cuda::kernel_gen::helpers::ptr;
use crate::cuda::runtime::compile::{Function, JIT_SUPPORT, PRELUDE};
use crate::cuda::runtime::launch::KernelArgs;
use crate::cuda::Stream;
use crate::ops::Dim3;

const OP: &str = "jit::Kernel::launch";
/// CUDA's limits: threads per block, static shared memory per block, and
/// shared memory per block with the opt-in (sm_90).
const MAX_THREADS: u32 = 1024;
const MAX_STATIC_SHARED: u64 = 48 * 1024;
const MAX_SHARED: u64 = 227 * 1024;

/// What a parameter accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A scalar of this dtype.
    Scalar(DType),
    /// An array of this dtype (`&[T]`, or `&mut [T]` when `mutable`).
    Slice { dtype: DType, mutable: bool },
    /// A strided view of this dtype and rank (`View2<T>`, or `View2Mut<T>`
    /// when `mutable`).
    View {
        dtype: DType,
        rank: usize,
        mutable: bool,
    },
    /// A type placeholder (elementwise functions).
    Placeholder,
}

/// One parameter of a jit function.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// The Rust name.
    pub name: &'static str,
    /// What it accepts.
    pub kind: ParamKind,
}

impl Param {
    pub(crate) fn describe(&self) -> String {
        match self.kind {
            ParamKind::Scalar(d) => format!("{}: {d}", self.name),
            ParamKind::Slice { dtype, mutable } => {
                format!(
                    "{}: &{}[{dtype}]",
                    self.name,
                    if mutable { "mut " } else { "" }
                )
            }
            ParamKind::View {
                dtype,
                rank,
                mutable,
            } => format!(
                "{}: View{rank}{}<{dtype}>",
                self.name,
                if mutable { "Mut" } else { "" }
            ),
            ParamKind::Placeholder => format!("{}: T", self.name),
        }
    }
}

/// The macro's description of a kernel.
pub struct KernelInfo {
    /// The function's name (the CUDA kernel's too).
    pub name: &'static str,
    /// The translated CUDA C source.
    pub source: &'static str,
    /// The parameters, in order.
    pub params: &'static [Param],
    /// Whether the threads of a block must run concurrently on the CPU.
    pub needs_threads: bool,
    /// Bytes of `shared_array`s.
    pub static_shared_bytes: u64,
    /// The natively compiled body, run once per CPU thread.
    pub cpu: fn(&CpuArgs<'_>) -> std::result::Result<(), Fault>,
}

/// The arguments of a CPU launch as the body reads them.
pub struct CpuArgs<'a> {
    values: Vec<CpuValue>,
    params: &'a [Param],
}

enum CpuValue {
    Scalar(Scalar),
    Buffer {
        ptr: *mut u8,
        len: usize,
        shape: Vec<usize>,
    },
}

// SAFETY: the buffers are host memory owned by the launch for its whole
// run and reached only through atomics (`memory.rs`).
unsafe impl Sync for CpuArgs<'_> {}

impl CpuArgs<'_> {
    /// Scalar argument `k` as `T` (checked at launch).
    pub fn scalar<T: Element>(&self, k: usize) -> std::result::Result<T, Fault> {
        match self.values.get(k) {
            Some(CpuValue::Scalar(v)) => Ok(T::from_scalar(*v)),
            _ => Err(Fault::Unsupported(format!("argument {k} is not a scalar"))),
        }
    }

    /// Array argument `k` as a checked slice of `T` (dtype checked at launch).
    pub fn slice<T: JitElem>(&self, k: usize) -> std::result::Result<Slice<T>, Fault> {
        match (self.values.get(k), self.params.get(k)) {
            (Some(CpuValue::Buffer { ptr, len, .. }), Some(p)) => {
                Ok(Slice::new(ptr.cast(), *len, p.name))
            }
            _ => Err(Fault::Unsupported(format!("argument {k} is not an array"))),
        }
    }

    /// Array argument `k` as an `N`-d view (dtype and rank checked at launch).
    pub fn view<T: JitElem, const N: usize>(
        &self,
        k: usize,
    ) -> std::result::Result<View<T, N>, Fault> {
        match (self.values.get(k), self.params.get(k)) {
            (Some(CpuValue::Buffer { ptr, len, shape }), Some(p)) => {
                let shape: [usize; N] = shape.as_slice().try_into().map_err(|_| {
                    Fault::Unsupported(format!("argument {k} is not a {N}-d array"))
                })?;
                Ok(View::new(
                    Slice::new(ptr.cast(), *len, p.name),
                    shape,
                    p.name,
                ))
            }
            _ => Err(Fault::Unsupported(format!("argument {k} is not an array"))),
        }
    }
}

/// A GPU kernel written in Rust with `#[cp::jit::kernel]`:
///
/// ```
/// use cuprite as cp;
///
/// #[cp::jit::kernel]
/// fn saxpy(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
///     let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
///     if i < x.len() {
///         out[i] = a * x[i] + y[i];
///     }
/// }
///
/// let x = cp::arange(1000)?.astype(cp::f32)?;
/// let y = cp::ones([1000], cp::f32)?;
/// let mut out = cp::empty([1000], cp::f32)?;
/// saxpy.launch((4,), (256,), (2.0f32, &x, &y, &mut out))?;
/// assert_eq!(out.to_vec::<f32>()?[3], 7.0);
/// # Ok::<(), cp::Error>(())
/// ```
pub struct Kernel {
    info: KernelInfo,
    raw: OnceLock<RawKernel>,
    /// The device and compiled function of the first GPU launch: a warm
    /// launch there skips the module's locked lookup by name.
    first_launch: OnceLock<(usize, Function)>,
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "jit::Kernel({})", self.info.name)
    }
}

impl Kernel {
    #[doc(hidden)]
    pub const fn __new(info: KernelInfo) -> Kernel {
        Kernel {
            info,
            raw: OnceLock::new(),
            first_launch: OnceLock::new(),
        }
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        self.info.name
    }

    /// The CUDA C source the function was translated into.
    pub fn source(&self) -> &str {
        self.info.source
    }

    /// What NVRTC compiles: the runtime's prelude (the half types) and the
    /// jit support code (their arithmetic, `cp_as`), then the translation.
    pub(crate) fn compiled_source(&self) -> String {
        format!("{PRELUDE}{JIT_SUPPORT}{}", self.info.source)
    }

    /// The parameters (`a: float32`, `x: &[float32]`).
    pub fn parameters(&self) -> Vec<String> {
        self.info.params.iter().map(Param::describe).collect()
    }

    /// Launches `grid` blocks of `block` threads on the arguments' device
    /// (no dynamic shared memory, the current stream).
    pub fn launch<'a>(
        &self,
        grid: impl IntoDim3,
        block: impl IntoDim3,
        args: impl IntoArgs<'a>,
    ) -> Result<()> {
        self.launch_with(grid, block, args, 0, None)
    }

    /// As [`launch`](Self::launch) with `shared_mem_bytes` of dynamic
    /// shared memory (`dynamic_shared::<T>()`) and a stream (GPU only; the
    /// CPU runs at once).
    pub fn launch_with<'a>(
        &self,
        grid: impl IntoDim3,
        block: impl IntoDim3,
        args: impl IntoArgs<'a>,
        shared_mem_bytes: usize,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let grid = grid
            .into_dim3()
            .map_err(|e| self.err(format!("bad grid: {e}")))?;
        let block = block
            .into_dim3()
            .map_err(|e| self.err(format!("bad block: {e}")))?;
        self.check_shape(block, shared_mem_bytes)?;
        let args = args.into_args();
        self.check_args(&args)?;
        match args_device(OP, &args)? {
            Device::Cpu => self.run_cpu(grid, block, &args, shared_mem_bytes),
            Device::Cuda(ordinal) => {
                let raw = self.raw()?;
                let mut kargs = self.pack(&args)?;
                Device::Cuda(ordinal).check_available(OP)?;
                let f = match self.first_launch.get() {
                    Some(&(o, f)) if o == ordinal => f,
                    _ => {
                        let f = raw.function(ordinal)?;
                        let _ = self.first_launch.set((ordinal, f));
                        f
                    }
                };
                raw.launch_packed(
                    ordinal,
                    f,
                    grid,
                    block,
                    &mut kargs,
                    shared_mem_bytes,
                    stream,
                )
            }
        }
    }

    /// The argument buffer of checked arguments (see `check_args`): a slice
    /// is its pointer and length, a view its pointer (at its offset), shape
    /// and strides in elements, a scalar its value in the parameter's type.
    /// Packed here rather than by `RawKernel::launch`, which would check
    /// every argument a second time against the parsed C signature.
    fn pack(&self, args: &[Arg<'_>]) -> Result<KernelArgs> {
        let mut k = KernelArgs::new();
        for (a, p) in args.iter().zip(self.info.params) {
            match (a, p.kind) {
                (Arg::Array(x), ParamKind::Slice { .. }) => {
                    k.push(ptr(OP, *x)?).push(x.size() as u64);
                }
                (Arg::Array(x), ParamKind::View { .. }) => {
                    k.push(ptr(OP, *x)?);
                    for &n in x.shape() {
                        k.push(n as u64);
                    }
                    for &st in x.strides() {
                        k.push(st as i64);
                    }
                }
                (Arg::Scalar(v, _), ParamKind::Scalar(d)) => {
                    k.push_bytes(&scalar_bytes(*v, d), c_align(d));
                }
                _ => return Err(self.err(format!("cannot pass {}", a.describe()))),
            }
        }
        Ok(k)
    }

    fn err(&self, detail: String) -> Error {
        Error::InvalidArgument {
            op: OP,
            detail: format!("kernel `{}`: {detail}", self.info.name),
        }
    }

    fn raw(&self) -> Result<&RawKernel> {
        if let Some(k) = self.raw.get() {
            return Ok(k);
        }
        let k = RawKernel::new(&self.compiled_source(), self.info.name)?;
        Ok(self.raw.get_or_init(|| k))
    }

    fn check_shape(&self, block: Dim3, dynamic: usize) -> Result<()> {
        let threads = u64::from(block.x) * u64::from(block.y) * u64::from(block.z);
        if threads > u64::from(MAX_THREADS) {
            return Err(self.err(format!(
                "a block of ({}, {}, {}) is {threads} threads; CUDA allows at most {MAX_THREADS}",
                block.x, block.y, block.z
            )));
        }
        let stat = self.info.static_shared_bytes;
        if stat > MAX_STATIC_SHARED {
            return Err(self.err(format!(
                "its shared arrays take {stat} bytes; static shared memory is limited to {MAX_STATIC_SHARED} bytes (use dynamic_shared and a launch size)"
            )));
        }
        if stat + dynamic as u64 > MAX_SHARED {
            return Err(self.err(format!(
                "too much shared memory: {dynamic} dynamic bytes plus {stat} static bytes exceed {MAX_SHARED} bytes per block"
            )));
        }
        Ok(())
    }

    fn check_args(&self, args: &[Arg<'_>]) -> Result<()> {
        let params = self.info.params;
        if args.len() != params.len() {
            return Err(self.err(format!(
                "it takes {} arguments ({}) but {} were given",
                params.len(),
                self.parameters().join(", "),
                args.len()
            )));
        }
        for (k, (a, p)) in args.iter().zip(params).enumerate() {
            let bad = |why: String| self.err(format!("argument {k} (`{}`): {why}", p.describe()));
            match (a, p.kind) {
                (Arg::Scalar(v, from), ParamKind::Scalar(to)) => {
                    check_scalar(OP, self.info.name, p.name, *v, *from, to)?;
                }
                (Arg::Array(x), ParamKind::Slice { dtype, .. }) => {
                    if x.dtype() != dtype {
                        return Err(bad(format!(
                            "got a {} array; convert it with .astype(cp::{})",
                            x.dtype(),
                            dtype
                        )));
                    }
                    if !x.is_c_contiguous() {
                        return Err(bad(format!(
                            "the array (shape {}, strides {:?}) is not C-contiguous and a slice is indexed flat; pass .copy(), or declare the parameter as a view (`View{}<{}>`) to use the strides",
                            crate::core::error::fmt_shape(x.shape()),
                            x.strides(),
                            x.ndim().clamp(1, 3),
                            rust_name(dtype)
                        )));
                    }
                }
                (Arg::Array(x), ParamKind::View { dtype, rank, .. }) => {
                    if x.dtype() != dtype {
                        return Err(bad(format!(
                            "got a {} array; convert it with .astype(cp::{})",
                            x.dtype(),
                            dtype
                        )));
                    }
                    if x.ndim() != rank {
                        return Err(bad(format!(
                            "got a {}-d array of shape {}; a View{rank} takes {rank}-d arrays (reshape it, or declare the parameter View{})",
                            x.ndim(),
                            crate::core::error::fmt_shape(x.shape()),
                            x.ndim()
                        )));
                    }
                }
                _ => return Err(bad(format!("got {}", a.describe()))),
            }
        }
        Ok(())
    }

    fn run_cpu(&self, grid: Dim3, block: Dim3, args: &[Arg<'_>], dynamic: usize) -> Result<()> {
        // Host copies of the arrays, written back to the `&mut` ones after.
        let mut owned: Vec<Box<dyn std::any::Any>> = Vec::new();
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            match a {
                Arg::Array(x) => {
                    let (ptr, len) = crate::with_dtype!(x.dtype(), T => {
                        let mut v: Vec<T> = x.to_vec::<T>()?;
                        let (p, n) = (v.as_mut_ptr().cast::<u8>(), v.len());
                        owned.push(Box::new(v));
                        (p, n)
                    });
                    values.push(CpuValue::Buffer {
                        ptr,
                        len,
                        shape: x.shape().to_vec(),
                    });
                }
                Arg::Scalar(v, _) => values.push(CpuValue::Scalar(*v)),
                Arg::Ptr(_) => {
                    return Err(self.err("device pointers cannot be read on the CPU".into()))
                }
            }
        }
        let cpu_args = CpuArgs {
            values,
            params: self.info.params,
        };
        let body = || (self.info.cpu)(&cpu_args);
        grid::run(&body, grid, block, dynamic, self.info.needs_threads)
            .map_err(|f| self.err(f.describe()))?;
        let mut next = owned.iter();
        for (a, p) in args.iter().zip(self.info.params) {
            let Arg::Array(x) = a else { continue };
            let Some(buf) = next.next() else { break };
            if let ParamKind::Slice { mutable: true, .. } | ParamKind::View { mutable: true, .. } =
                p.kind
            {
                write_back(x, buf.as_ref())?;
            }
        }
        Ok(())
    }
}

fn write_back(dst: &Array, buf: &dyn std::any::Any) -> Result<()> {
    crate::with_dtype!(dst.dtype(), T => {
        if let Some(v) = buf.downcast_ref::<Vec<T>>() {
            let tmp = crate::api::creation::from_shape_vec(dst.shape().to_vec(), v.clone(), crate::core::layout::Order::C)?;
            dst.clone().assign(&tmp)?;
        }
    });
    Ok(())
}

/// The Rust element type of a dtype, for messages (`f32`).
fn rust_name(d: DType) -> &'static str {
    match crate::api::kernels::params::short_name(d) {
        "bool_" => "bool",
        n => n,
    }
}
