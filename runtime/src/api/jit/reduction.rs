//! `cp::jit::Reduction`: what `#[cp::jit::reduction]` makes of a `mod`
//! holding `map`, `combine`, an optional `post` and `IDENTITY`. On a GPU it
//! is a [`ReductionKernel`] whose expressions call the translated device
//! functions (so its launch, axes, `keepdims` and split rows are reused);
//! on the CPU each output is folded natively, left to right from the
//! identity, in C order of the reduced elements.

use std::sync::OnceLock;

use super::elementwise::{check_inputs, Column};
use super::kernel::Param;
use crate::api::kernels::args::args_device;
use crate::api::kernels::{Arg, IntoArgs, ReductionKernel};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::Element;
use crate::core::error::{Error, Result};
use crate::cuda::runtime::compile::JIT_SUPPORT;

const OP: &str = "jit::Reduction::call";

/// The macro's description of a reduction.
pub struct ReductionInfo {
    /// The `mod`'s name.
    pub name: &'static str,
    /// The ReductionKernel's parameter lists, expressions and types.
    pub in_params: &'static str,
    pub out_param: &'static str,
    pub map_expr: &'static str,
    pub reduce_expr: &'static str,
    pub post_map_expr: &'static str,
    pub identity: &'static str,
    pub reduce_type: &'static str,
    /// The accumulator when the inputs are float16 / bfloat16: float32
    /// where the accumulator is the placeholder.
    pub half_reduce_type: &'static str,
    /// The type placeholder's name (`""` when the parts have none).
    pub placeholder: &'static str,
    /// The translated device functions of the parts (placed in the
    /// namespace `cp_jit_acc`, where the placeholder is the accumulator type).
    pub preamble: &'static str,
    /// The inputs (`map`'s parameters).
    pub params: &'static [Param],
    /// The CPU fold over a call's inputs.
    pub cpu: fn(&RedCall<'_>) -> Result<Array>,
}

/// A reduction written in Rust with `#[cp::jit::reduction]` on a `mod`:
/// `map` gives each element's value (from one or more inputs, broadcast
/// together), `combine` folds two partial results (it must be associative:
/// the GPU folds in a tree), `post` (optional) turns the folded value and
/// the count of reduced elements into the output, and `IDENTITY` starts the
/// fold. A type placeholder `T: cp::jit::Float` takes the inputs' dtype.
///
/// ```
/// use cuprite as cp;
///
/// #[cp::jit::reduction]
/// mod l2_norm {
///     const IDENTITY: T = T::from_f64(0.0);
///     fn map<T: cp::jit::Float>(x: T) -> T {
///         x * x
///     }
///     fn combine<T: cp::jit::Float>(a: T, b: T) -> T {
///         a + b
///     }
///     fn post<T: cp::jit::Float>(a: T) -> T {
///         a.sqrt()
///     }
/// }
///
/// let x = cp::asarray(vec![3.0f64, 4.0])?;
/// assert_eq!(l2_norm.call(&x)?.to_vec::<f64>()?, vec![5.0]);
/// # Ok::<(), cp::Error>(())
/// ```
pub struct Reduction {
    info: ReductionInfo,
    gpu: OnceLock<ReductionKernel>,
    /// The kernel for float16 / bfloat16 inputs (accumulating in f32).
    gpu_half: OnceLock<ReductionKernel>,
}

impl std::fmt::Debug for Reduction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "jit::Reduction({})", self.info.name)
    }
}

impl Reduction {
    #[doc(hidden)]
    pub const fn __new(info: ReductionInfo) -> Reduction {
        Reduction {
            info,
            gpu: OnceLock::new(),
            gpu_half: OnceLock::new(),
        }
    }

    /// The reduction's name (its `mod`'s).
    pub fn name(&self) -> &str {
        self.info.name
    }

    /// The translated CUDA device functions of the parts.
    pub fn source(&self) -> &str {
        self.info.preamble
    }

    /// The [`ReductionKernel`] that runs it on a GPU for float32 / float64
    /// (or concrete) inputs.
    pub fn kernel(&self) -> Result<&ReductionKernel> {
        self.kernel_for(false)
    }

    /// The kernel for inputs whose placeholder is `half` (float16 /
    /// bfloat16: the parts run in f32) or not.
    pub(crate) fn kernel_for(&self, half: bool) -> Result<&ReductionKernel> {
        let cell = if half { &self.gpu_half } else { &self.gpu };
        if let Some(k) = cell.get() {
            return Ok(k);
        }
        let i = &self.info;
        let k = ReductionKernel::new(
            i.in_params,
            i.out_param,
            i.map_expr,
            i.reduce_expr,
            i.post_map_expr,
            i.identity,
            i.name,
        )?
        .reduce_type(if half {
            i.half_reduce_type
        } else {
            i.reduce_type
        })
        .preamble(&self.preamble(half));
        Ok(cell.get_or_init(|| k))
    }

    /// The parts in the namespace `cp_jit_acc`, their placeholder typed as
    /// the accumulator: the call's own type, or float for half inputs.
    fn preamble(&self, half: bool) -> String {
        let i = &self.info;
        let typedef = match (i.placeholder, half) {
            ("", _) => String::new(),
            (p, true) => format!("typedef float {p};\n"),
            (p, false) => format!("typedef ::{p} {p};\n"),
        };
        format!(
            "{JIT_SUPPORT}namespace cp_jit_acc {{\n{typedef}{}}}\n",
            i.preamble
        )
    }

    /// Reduces over all axes (a 0-d result).
    pub fn call<'a>(&self, args: impl IntoArgs<'a>) -> Result<Array> {
        self.run(args.into_args(), None, false)
    }

    /// Reduces over one axis (negative counts from the end).
    pub fn call_axis<'a>(&self, args: impl IntoArgs<'a>, axis: isize) -> Result<Array> {
        self.run(args.into_args(), Some(&[axis]), false)
    }

    /// Reduces over `axes`, keeping them as extent-1 axes when `keepdims`.
    pub fn call_axes<'a>(
        &self,
        args: impl IntoArgs<'a>,
        axes: &[isize],
        keepdims: bool,
    ) -> Result<Array> {
        self.run(args.into_args(), Some(axes), keepdims)
    }

    fn run(&self, args: Vec<Arg<'_>>, axes: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        match args_device(OP, &args)? {
            Device::Cuda(_) => {
                let (placeholder, _) = check_inputs(OP, self.info.name, self.info.params, &args)?;
                let half = matches!(placeholder, Some(DType::Float16 | DType::BFloat16));
                let k = self.kernel_for(half)?;
                match axes {
                    None => k.call(args),
                    Some(ax) => k.call_axes(args, ax, keepdims),
                }
            }
            Device::Cpu => {
                let call = self.cpu_call(args, axes, keepdims)?;
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (self.info.cpu)(&call)))
                    .unwrap_or_else(|_| {
                        Err(self.err("a part panicked on the CPU (see the message above)".into()))
                    })
            }
        }
    }

    fn err(&self, detail: String) -> Error {
        Error::InvalidArgument {
            op: OP,
            detail: format!("`{}`: {detail}", self.info.name),
        }
    }

    fn cpu_call<'a>(
        &self,
        args: Vec<Arg<'a>>,
        axes: Option<&[isize]>,
        keepdims: bool,
    ) -> Result<RedCall<'a>> {
        let params = self.info.params;
        if args.len() != params.len() {
            let names: Vec<String> = params.iter().map(Param::describe).collect();
            return Err(self.err(format!(
                "`map` takes {} inputs ({}) but {} were given",
                params.len(),
                names.join(", "),
                args.len()
            )));
        }
        let (placeholder, shapes) = check_inputs(OP, self.info.name, params, &args)?;
        if shapes.is_empty() {
            return Err(self.err("at least one input must be an array".into()));
        }
        let shapes: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let in_shape = crate::core::layout::broadcast_shapes(OP, &shapes)?;
        let nd = in_shape.len();
        let reduced: Vec<usize> = match axes {
            None => (0..nd).collect(),
            Some(ax) => {
                let mut v = crate::core::layout::normalize_axes(OP, ax, nd)?;
                v.sort_unstable();
                v
            }
        };
        let kept: Vec<usize> = (0..nd).filter(|a| !reduced.contains(a)).collect();
        let out_shape: Vec<usize> = if keepdims {
            (0..nd)
                .map(|a| if reduced.contains(&a) { 1 } else { in_shape[a] })
                .collect()
        } else {
            kept.iter().map(|&a| in_shape[a]).collect()
        };
        let rows = kept.iter().map(|&a| in_shape[a]).product();
        let len = reduced.iter().map(|&a| in_shape[a]).product();
        // Kept axes first, then the reduced ones: each output's elements
        // are then one run of `len` values.
        let perm: Vec<isize> = kept.iter().chain(&reduced).map(|&a| a as isize).collect();
        Ok(RedCall {
            name: self.info.name,
            args,
            in_shape,
            perm,
            out_shape,
            rows,
            len,
            placeholder,
        })
    }
}

/// One CPU call of a reduction, as the macro's body reads it.
pub struct RedCall<'a> {
    name: &'static str,
    args: Vec<Arg<'a>>,
    in_shape: Vec<usize>,
    perm: Vec<isize>,
    out_shape: Vec<usize>,
    rows: usize,
    len: usize,
    placeholder: Option<DType>,
}

impl RedCall<'_> {
    /// The dtype the type placeholder takes in this call.
    pub fn placeholder(&self) -> DType {
        self.placeholder.unwrap_or(DType::Float64)
    }

    /// The error for a placeholder dtype with no instance.
    pub fn unsupported(&self, d: DType) -> Error {
        Error::InvalidArgument {
            op: OP,
            detail: format!(
                "`{}`: its type placeholder is a float type (float16, bfloat16, float32, float64) but the arguments are {d}; convert them with .astype(cp::f32)",
                self.name
            ),
        }
    }

    /// Input `k` as `T`, broadcast, its values ordered output by output
    /// (element `row * len + j`).
    pub fn column<T: Element>(&self, k: usize) -> Result<Column<T>> {
        match self.args.get(k) {
            Some(Arg::Scalar(v, _)) => Ok(Column::Scalar(T::from_scalar(*v))),
            Some(Arg::Array(x)) => {
                let x = x
                    .astype(T::DTYPE)?
                    .broadcast_to(&self.in_shape)?
                    .permute_axes(&self.perm)?;
                Ok(Column::Values(x.to_vec::<T>()?))
            }
            _ => Err(Error::InvalidArgument {
                op: OP,
                detail: format!("`{}`: input {k} is missing", self.name),
            }),
        }
    }

    /// Each output: `post(fold of combine over map, count)`.
    pub fn fold<A: Copy, R: Element>(
        &self,
        identity: A,
        map: impl Fn(usize) -> A,
        combine: impl Fn(A, A) -> A,
        post: impl Fn(A, usize) -> R,
    ) -> Result<Array> {
        let values: Vec<R> = (0..self.rows)
            .map(|row| {
                let base = row * self.len;
                let acc = (base..base + self.len).fold(identity, |a, k| combine(a, map(k)));
                post(acc, self.len)
            })
            .collect();
        crate::api::creation::from_shape_vec(
            self.out_shape.clone(),
            values,
            crate::core::layout::Order::C,
        )
    }
}
