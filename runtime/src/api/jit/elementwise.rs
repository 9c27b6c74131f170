//! `cp::jit::Elementwise`: what `#[cp::jit::elementwise]` makes of a
//! per-element function. On a GPU it is an [`ElementwiseKernel`] whose
//! operation calls the translated device function (so broadcasting, `_out`
//! forms, dtype checks and placeholder resolution are the kernel's); on the
//! CPU the function's Rust body runs over the broadcast inputs.

use std::sync::OnceLock;

use super::kernel::{Param, ParamKind};
use crate::api::kernels::args::args_device;
use crate::api::kernels::{Arg, ElementwiseKernel, IntoArgs};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::{can_cast, Casting, DType};
use crate::core::element::Element;
use crate::core::error::{Error, Result};
use crate::cuda::runtime::compile::JIT_SUPPORT;

const OP: &str = "jit::Elementwise::call";

/// The macro's description of an elementwise function.
pub struct ElementwiseInfo {
    /// The function's name.
    pub name: &'static str,
    /// The ElementwiseKernel parameter lists and operation.
    pub in_params: &'static str,
    pub out_param: &'static str,
    pub operation: &'static str,
    /// The translated device function.
    pub preamble: &'static str,
    /// The parameters and the result.
    pub params: &'static [Param],
    pub ret: ParamKind,
    /// The CPU body over a call's inputs.
    pub cpu: fn(&ElemCall<'_>) -> Result<Array>,
}

/// A per-element function written in Rust with `#[cp::jit::elementwise]`,
/// applied with broadcasting; a type placeholder `T: cp::jit::Float` takes
/// the dtype of the call's arrays (float32 or float64):
///
/// ```
/// use cuprite as cp;
///
/// #[cp::jit::elementwise]
/// fn axpb<T: cp::jit::Float>(x: T, a: T, b: T) -> T {
///     a * x + b
/// }
///
/// let x = cp::arange(4)?.astype(cp::f64)?;
/// let y = axpb.call((&x, 2.0f64, 1.0f64))?;
/// assert_eq!(y.to_vec::<f64>()?, vec![1.0, 3.0, 5.0, 7.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub struct Elementwise {
    info: ElementwiseInfo,
    gpu: OnceLock<ElementwiseKernel>,
}

impl std::fmt::Debug for Elementwise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "jit::Elementwise({})", self.info.name)
    }
}

impl Elementwise {
    #[doc(hidden)]
    pub const fn __new(info: ElementwiseInfo) -> Elementwise {
        Elementwise {
            info,
            gpu: OnceLock::new(),
        }
    }

    /// The function's name.
    pub fn name(&self) -> &str {
        self.info.name
    }

    /// The translated CUDA device function.
    pub fn source(&self) -> &str {
        self.info.preamble
    }

    /// The [`ElementwiseKernel`] that runs it on a GPU.
    pub fn kernel(&self) -> Result<&ElementwiseKernel> {
        if let Some(k) = self.gpu.get() {
            return Ok(k);
        }
        let k = ElementwiseKernel::new(
            self.info.in_params,
            self.info.out_param,
            self.info.operation,
            self.info.name,
        )?
        .preamble(&format!("{JIT_SUPPORT}{}", self.info.preamble));
        Ok(self.gpu.get_or_init(|| k))
    }

    /// Applies the function to arrays and scalars (broadcast together).
    pub fn call<'a>(&self, args: impl IntoArgs<'a>) -> Result<Array> {
        let args = args.into_args();
        match args_device(OP, &args)? {
            Device::Cuda(_) => {
                check_inputs(OP, self.info.name, self.info.params, &args)?;
                self.kernel()?.call(args)
            }
            Device::Cpu => self.run_cpu(&self.cpu_call(args, None)?),
        }
    }

    /// As [`call`](Self::call), writing into `out` (its shape is the
    /// broadcast shape; its dtype must hold the result).
    pub fn call_out<'a>(&self, args: impl IntoArgs<'a>, out: &mut Array) -> Result<()> {
        let args = args.into_args();
        let mut all = args.clone();
        all.push(Arg::Array(out));
        match args_device(OP, &all)? {
            Device::Cuda(_) => {
                check_inputs(OP, self.info.name, self.info.params, &args)?;
                self.kernel()?.call_out(args, out)
            }
            Device::Cpu => self
                .run_cpu(&self.cpu_call(args, Some(out.clone()))?)
                .map(drop),
        }
    }

    /// The Rust body over the call; a panic in it (an integer overflow)
    /// becomes an error naming the function.
    fn run_cpu(&self, call: &ElemCall<'_>) -> Result<Array> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (self.info.cpu)(call)))
            .unwrap_or_else(|_| {
                Err(self.err("the function panicked on the CPU (see the message above)".into()))
            })
    }

    fn err(&self, detail: String) -> Error {
        Error::InvalidArgument {
            op: OP,
            detail: format!("`{}`: {detail}", self.info.name),
        }
    }

    fn cpu_call<'a>(&self, args: Vec<Arg<'a>>, out: Option<Array>) -> Result<ElemCall<'a>> {
        let params = self.info.params;
        if args.len() != params.len() {
            let names: Vec<String> = params.iter().map(Param::describe).collect();
            return Err(self.err(format!(
                "it takes {} inputs ({}) but {} were given",
                params.len(),
                names.join(", "),
                args.len()
            )));
        }
        let (placeholder, shapes) = check_inputs(OP, self.info.name, params, &args)?;
        let shapes: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let shape = match &out {
            Some(o) => {
                let mut all = shapes.clone();
                all.push(o.shape());
                let b = crate::core::layout::broadcast_shapes(OP, &all)?;
                if b != o.shape() {
                    return Err(self.err(format!(
                        "the inputs broadcast to {} but `out` has shape {}",
                        crate::core::error::fmt_shape(&b),
                        crate::core::error::fmt_shape(o.shape())
                    )));
                }
                b
            }
            None => crate::core::layout::broadcast_shapes(OP, &shapes)?,
        };
        Ok(ElemCall {
            name: self.info.name,
            args,
            shape,
            placeholder,
            out,
        })
    }
}

/// The dtype a type placeholder takes in a call (that of its first array,
/// else of its first scalar) and the shapes of the array inputs, each
/// input's dtype checked against its parameter.
pub(super) fn check_inputs(
    op: &'static str,
    name: &str,
    params: &[Param],
    args: &[Arg<'_>],
) -> Result<(Option<DType>, Vec<Vec<usize>>)> {
    // The placeholder takes the dtype of its first array, else of its first scalar.
    let mut placeholder = None;
    for (a, p) in args.iter().zip(params) {
        if p.kind == ParamKind::Placeholder {
            if let Arg::Array(x) = a {
                placeholder = Some(x.dtype());
                break;
            }
        }
    }
    if placeholder.is_none() {
        placeholder = args
            .iter()
            .zip(params)
            .find_map(|(a, p)| match (a, p.kind) {
                (Arg::Scalar(_, d), ParamKind::Placeholder) => Some(*d),
                _ => None,
            });
    }
    // Checked here so both devices refuse alike: the CPU has no instance
    // for another dtype, and the GPU would compile one the bound excludes.
    if let Some(d) = placeholder.filter(|d| !PLACEHOLDER_DTYPES.contains(d)) {
        return Err(Error::InvalidArgument {
            op,
            detail: placeholder_mismatch(name, d),
        });
    }
    let mut shapes: Vec<Vec<usize>> = Vec::new();
    for (k, (a, p)) in args.iter().zip(params).enumerate() {
        let want = match p.kind {
            ParamKind::Scalar(d) => d,
            _ => placeholder.unwrap_or(DType::Float64),
        };
        let bad = |why: String| Error::InvalidArgument {
            op,
            detail: format!("`{name}`: input {k} (`{}`): {why}", p.describe()),
        };
        match a {
            Arg::Array(x) => {
                let same = p.kind == ParamKind::Placeholder && x.dtype() != want;
                if same || !can_cast(x.dtype(), want, Casting::SameKind) {
                    return Err(bad(format!(
                        "got a {} array but {want} is needed",
                        x.dtype()
                    )));
                }
                shapes.push(x.shape().to_vec());
            }
            Arg::Scalar(_, d) if d.is_complex() && !want.is_complex() => {
                return Err(bad(format!("got a complex scalar but {want} is needed")))
            }
            Arg::Scalar(..) => {}
            Arg::Ptr(_) => return Err(bad("device pointers are for raw kernels".into())),
        }
    }
    Ok((placeholder, shapes))
}

/// The dtypes a `T: cp::jit::Float` placeholder is instantiated for.
const PLACEHOLDER_DTYPES: &[DType] = &[
    DType::Float16,
    DType::BFloat16,
    DType::Float32,
    DType::Float64,
];

fn placeholder_mismatch(name: &str, d: DType) -> String {
    format!(
        "`{name}`: its type placeholder is a float type (float16, bfloat16, float32, float64) but the arguments are {d}; convert them with .astype(cp::f32)"
    )
}

/// One CPU call of an elementwise function, as the macro's body reads it.
pub struct ElemCall<'a> {
    name: &'static str,
    args: Vec<Arg<'a>>,
    shape: Vec<usize>,
    placeholder: Option<DType>,
    out: Option<Array>,
}

/// One input of a CPU call, broadcast to the call's size.
pub enum Column<T> {
    /// A scalar argument.
    Scalar(T),
    /// An array argument, C-ordered and broadcast.
    Values(Vec<T>),
}

impl<T: Copy> Column<T> {
    /// Element `k`.
    pub fn at(&self, k: usize) -> T {
        match self {
            Column::Scalar(v) => *v,
            Column::Values(v) => v[k],
        }
    }
}

impl ElemCall<'_> {
    /// The dtype the type placeholder takes in this call.
    pub fn placeholder(&self) -> DType {
        self.placeholder.unwrap_or(DType::Float64)
    }

    /// The error for a placeholder dtype with no instance.
    pub fn unsupported(&self, d: DType) -> Error {
        Error::InvalidArgument {
            op: OP,
            detail: placeholder_mismatch(self.name, d),
        }
    }

    /// Input `k` as `T`, broadcast to the call's shape.
    pub fn column<T: Element>(&self, k: usize) -> Result<Column<T>> {
        match self.args.get(k) {
            Some(Arg::Scalar(v, _)) => Ok(Column::Scalar(T::from_scalar(*v))),
            Some(Arg::Array(x)) => {
                let x = x.astype(T::DTYPE)?.broadcast_to(&self.shape)?;
                Ok(Column::Values(x.to_vec::<T>()?))
            }
            _ => Err(Error::InvalidArgument {
                op: OP,
                detail: format!("`{}`: input {k} is missing", self.name),
            }),
        }
    }

    /// The result of `f` at every element, as a new array or in `out`.
    pub fn finish<R: Element>(&self, f: impl Fn(usize) -> R) -> Result<Array> {
        let n: usize = self.shape.iter().product();
        let values: Vec<R> = (0..n).map(f).collect();
        let result = crate::api::creation::from_shape_vec(
            self.shape.clone(),
            values,
            crate::core::layout::Order::C,
        )?;
        match &self.out {
            Some(o) => {
                o.clone().assign(&result)?;
                Ok(o.clone())
            }
            None => Ok(result),
        }
    }
}
