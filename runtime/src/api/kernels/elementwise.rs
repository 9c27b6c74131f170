//! `cp::ElementwiseKernel`: CuPy's user-defined elementwise kernels.

use super::args::{args_device, check_scalar, scalar_bytes, Arg, IntoArgs};
use super::params::{check_unique, is_identifier, parse_params, resolve_types, ArgType, Param};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::cuda::kernel_gen::codegen::{
    carray_bytes, elementwise_geo, elementwise_source, vector_lanes, GenParam, Pass,
};

const OP: &str = "ElementwiseKernel";

/// A user-defined elementwise kernel, as `cupy.ElementwiseKernel`:
///
/// ```
/// use cuprite as cp;
/// let axpb = cp::ElementwiseKernel::new(
///     "float32 x, float32 a, float32 b", "float32 y", "y = a * x + b;", "axpb")?;
/// // Every argument is parsed, typed and checked on any device; running
/// // needs CUDA (the CPU backend answers Error::NeedsCuda).
/// # let x = cp::arange(8)?.astype(cp::f32)?;
/// # if x.device().is_cuda() {
/// let y = axpb.call((&x, 2.0f32, 1.0f32))?;
/// # }
/// # Ok::<(), cp::Error>(())
/// ```
///
/// Array arguments broadcast together; scalars are passed by value; `raw`
/// parameters receive the whole array (`x[j]` with a flat C-order index,
/// `x.size()`); the code sees the loop index `i` and `_ind.size()`. Outputs
/// are allocated (C-contiguous) unless given after the inputs.
pub struct ElementwiseKernel {
    name: String,
    in_params: Vec<Param>,
    out_params: Vec<Param>,
    operation: String,
    preamble: String,
    options: Vec<String>,
    /// A hash of everything above, part of every specialisation key.
    ident: u64,
    cache: crate::cuda::kernel_gen::custom::FunctionCache,
}

impl std::fmt::Debug for ElementwiseKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ElementwiseKernel({}: in {:?}, out {:?})",
            self.name,
            self.in_params.iter().map(|p| &p.name).collect::<Vec<_>>(),
            self.out_params.iter().map(|p| &p.name).collect::<Vec<_>>()
        )
    }
}

/// The argument of one parameter in a planned call.
#[derive(Clone)]
pub(crate) enum Bound<'a> {
    Array(&'a Array),
    Scalar(Scalar),
    /// An output to allocate.
    Alloc,
}

/// Everything a call decided before touching the GPU.
pub(crate) struct Plan<'a> {
    pub device: Device,
    pub shape: Vec<usize>,
    pub n: usize,
    pub bound: Vec<Bound<'a>>,
    pub types: Vec<DType>,
    pub placeholders: Vec<(char, DType)>,
    pub gen_params: Vec<GenParam>,
    /// Merged shape and the strides of each Each/Once operand (in parameter order).
    pub mshape: Vec<usize>,
    pub mstrides: Vec<Vec<isize>>,
    pub contiguous: bool,
    pub small: bool,
    /// Elements per vector access (1: none); set at launch, once the
    /// arrays' alignment is known.
    pub lanes: usize,
}

/// The C alignment of a dtype's kernel type (complex types align as their parts).
pub(crate) fn c_align(d: DType) -> usize {
    if d.is_complex() {
        d.itemsize() / 2
    } else {
        d.itemsize()
    }
}

pub(crate) fn arg_type(a: &Arg<'_>) -> ArgType {
    match a {
        Arg::Array(x) => ArgType::Array(x.dtype()),
        Arg::Scalar(v, d) => ArgType::Scalar(*v, *d),
        Arg::Ptr(_) => ArgType::Missing,
    }
}

/// Whether every offset of the merged operands fits 32-bit indexing with room
/// for the unrolled loop's look-ahead.
pub(crate) fn fits_32(mshape: &[usize], mstrides: &[Vec<isize>], n: usize) -> bool {
    let span: i128 = mstrides
        .iter()
        .map(|st| {
            st.iter()
                .zip(mshape)
                .map(|(&s, &d)| (s.unsigned_abs() as i128) * (d as i128))
                .sum::<i128>()
        })
        .max()
        .unwrap_or(0)
        .max(n as i128);
    span < (1i128 << 30)
}

impl ElementwiseKernel {
    /// A kernel from CuPy's four strings: input parameters, output
    /// parameters, the C++ operation (statements over the parameter names,
    /// `i` and `_ind.size()`) and the kernel name (a C identifier).
    pub fn new(
        in_params: &str,
        out_params: &str,
        operation: &str,
        name: &str,
    ) -> Result<ElementwiseKernel> {
        let ins = parse_params("ElementwiseKernel::new", in_params)?;
        let outs = parse_params("ElementwiseKernel::new", out_params)?;
        check_unique("ElementwiseKernel::new", &ins, &outs)?;
        if outs.is_empty() {
            return Err(Error::InvalidArgument {
                op: "ElementwiseKernel::new",
                detail: "at least one output parameter is needed".into(),
            });
        }
        if !is_identifier(name) {
            return Err(Error::InvalidArgument {
                op: "ElementwiseKernel::new",
                detail: format!("kernel name {name:?} is not a C identifier"),
            });
        }
        let mut k = ElementwiseKernel {
            name: name.to_string(),
            in_params: ins,
            out_params: outs,
            operation: operation.to_string(),
            preamble: String::new(),
            options: Vec::new(),
            ident: 0,
            cache: Default::default(),
        };
        k.rehash();
        Ok(k)
    }

    fn rehash(&mut self) {
        self.ident = crate::cuda::kernel_gen::helpers::key((
            "elementwise",
            &self.name,
            &self.in_params,
            &self.out_params,
            &self.operation,
            &self.preamble,
            &self.options,
        ));
        self.cache = Default::default();
    }

    /// C++ code placed before the kernel (helper functions, constants).
    pub fn preamble(mut self, code: &str) -> ElementwiseKernel {
        self.preamble = code.to_string();
        self.rehash();
        self
    }

    /// Extra NVRTC options (`"-use_fast_math"`, `"-std=c++20"`).
    pub fn options(mut self, options: &[&str]) -> ElementwiseKernel {
        self.options = options.iter().map(|s| s.to_string()).collect();
        self.rehash();
        self
    }

    /// The kernel name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The input parameters.
    pub fn in_params(&self) -> &[Param] {
        &self.in_params
    }

    /// The output parameters.
    pub fn out_params(&self) -> &[Param] {
        &self.out_params
    }

    /// Runs the kernel on the inputs (outputs allocated), or on the inputs
    /// followed by the outputs; returns the (single) output.
    pub fn call<'a>(&self, args: impl IntoArgs<'a>) -> Result<Array> {
        if self.out_params.len() != 1 {
            return Err(Error::InvalidArgument {
                op: OP,
                detail: format!(
                    "kernel `{}` has {} outputs; use call_multi",
                    self.name,
                    self.out_params.len()
                ),
            });
        }
        let mut v = self.run(&args.into_args(), None)?;
        Ok(v.remove(0))
    }

    /// As [`call`](Self::call), returning every output.
    pub fn call_multi<'a>(&self, args: impl IntoArgs<'a>) -> Result<Vec<Array>> {
        self.run(&args.into_args(), None)
    }

    /// Runs the kernel on the inputs, writing the single output into `out`
    /// (which must have the broadcast shape and the output's dtype).
    pub fn call_out<'a>(&self, args: impl IntoArgs<'a>, out: &mut Array) -> Result<()> {
        let mut a = args.into_args();
        if a.len() != self.in_params.len() || self.out_params.len() != 1 {
            return Err(self.count_error(a.len() + 1));
        }
        let out_ref: &Array = out;
        a.push(Arg::Array(out_ref));
        self.run(&a, None).map(drop)
    }

    /// Runs the kernel over `size` indices when no non-raw array fixes the
    /// loop size (CuPy's `size=`).
    pub fn call_size<'a>(&self, args: impl IntoArgs<'a>, size: usize) -> Result<Vec<Array>> {
        self.run(&args.into_args(), Some(size))
    }

    /// The CUDA source this call would compile (CuPy's `cached_code`); works
    /// on every device, so it can be read without a GPU. It is the scalar
    /// form: on the GPU, a contiguous call whose arrays turn out 16-byte
    /// aligned (and whose outputs are only assigned) compiles the same
    /// kernel with vector loads and stores added.
    pub fn source_for<'a>(&self, args: impl IntoArgs<'a>) -> Result<String> {
        let args = args.into_args();
        let plan = self.plan(&args, None)?;
        Ok(self.source(&plan))
    }

    fn source(&self, plan: &Plan<'_>) -> String {
        elementwise_source(
            &self.name,
            &self.operation,
            &self.preamble,
            &plan.placeholders,
            &plan.gen_params,
            plan.mshape.len(),
            plan.contiguous,
            plan.small,
            plan.lanes,
        )
    }

    fn count_error(&self, got: usize) -> Error {
        let names = |ps: &[Param]| {
            ps.iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        Error::InvalidArgument {
            op: OP,
            detail: format!(
                "kernel `{}` takes {} inputs ({}) optionally followed by {} outputs ({}); got {got} arguments",
                self.name,
                self.in_params.len(),
                names(&self.in_params),
                self.out_params.len(),
                names(&self.out_params)
            ),
        }
    }

    /// Checks and types the arguments and decides the layout of the call.
    pub(crate) fn plan<'a>(&self, args: &[Arg<'a>], size: Option<usize>) -> Result<Plan<'a>> {
        let nin = self.in_params.len();
        let nout = self.out_params.len();
        if args.len() != nin && args.len() != nin + nout {
            return Err(self.count_error(args.len()));
        }
        let params: Vec<&Param> = self.in_params.iter().chain(&self.out_params).collect();
        let kinds = self.arg_kinds(args, &params, nin)?;
        let device = args_device(OP, args)?;
        let (types, placeholders) = resolve_types(OP, &self.name, &params, &kinds, nin)?;
        let bound = self.bind(args, &params, &types)?;
        let shape = self.loop_shape(&params, &bound, nin, size)?;
        let n = crate::core::layout::checked_size(OP, &shape)?;
        let (layouts, mem_params) = memory_layouts(&params, &bound, &shape)?;
        let refs: Vec<&Layout> = layouts.iter().collect();
        let (mshape, mstrides) = if refs.is_empty() {
            (if n == 1 { vec![] } else { vec![n] }, vec![])
        } else {
            Layout::merge_axes(&refs)
        };
        if mshape.len() > crate::cuda::kernel_gen::elementwise::MAX_DIMS {
            return Err(Error::Shape {
                op: OP,
                detail: format!(
                    "kernel `{}`: the arrays need {} dimensions after merging; at most {} are supported",
                    self.name,
                    mshape.len(),
                    crate::cuda::kernel_gen::elementwise::MAX_DIMS
                ),
            });
        }
        let contiguous = mshape.len() <= 1
            && mstrides
                .iter()
                .all(|s| s.first().is_none_or(|&x| x == 0 || x == 1));
        let small = fits_32(&mshape, &mstrides, n);
        let gen_params = self.gen_params(&params, &bound, &types, &mem_params, &mstrides, nin)?;
        Ok(Plan {
            device,
            shape,
            n,
            bound,
            types,
            placeholders,
            gen_params,
            mshape,
            mstrides,
            contiguous,
            small,
            lanes: 1,
        })
    }

    /// An invalid-argument error naming this kernel.
    fn bad(&self, detail: String) -> Error {
        Error::InvalidArgument {
            op: OP,
            detail: format!("kernel `{}`: {detail}", self.name),
        }
    }

    /// The type of each argument (`Missing` past the given ones), refusing
    /// raw pointers and scalars where arrays are needed.
    fn arg_kinds(&self, args: &[Arg<'_>], params: &[&Param], nin: usize) -> Result<Vec<ArgType>> {
        let bad = |detail: String| self.bad(detail);
        let mut kinds = Vec::with_capacity(params.len());
        for (k, p) in params.iter().enumerate() {
            let a = args.get(k);
            match a {
                Some(Arg::Ptr(_)) => {
                    return Err(bad(format!(
                        "`{}` was given a raw device pointer; elementwise kernels take arrays and scalars",
                        p.name
                    )))
                }
                Some(Arg::Scalar(..)) if p.raw => {
                    return Err(bad(format!("the raw parameter `{}` needs an array, got {}", p.name, a.map(|x| x.describe()).unwrap_or_default())))
                }
                Some(Arg::Scalar(..)) if k >= nin => {
                    return Err(bad(format!("the output `{}` needs an array, got {}", p.name, a.map(|x| x.describe()).unwrap_or_default())))
                }
                _ => {}
            }
            kinds.push(a.map(arg_type).unwrap_or(ArgType::Missing));
        }
        Ok(kinds)
    }

    /// What each parameter is bound to (scalars checked against its type).
    fn bind<'a>(
        &self,
        args: &[Arg<'a>],
        params: &[&Param],
        types: &[DType],
    ) -> Result<Vec<Bound<'a>>> {
        let mut bound = Vec::with_capacity(params.len());
        for (k, p) in params.iter().enumerate() {
            bound.push(match args.get(k) {
                Some(Arg::Array(a)) => Bound::Array(a),
                Some(Arg::Scalar(v, d)) => {
                    check_scalar(OP, &self.name, &p.name, *v, *d, types[k])?;
                    Bound::Scalar(*v)
                }
                _ => Bound::Alloc,
            });
        }
        Ok(bound)
    }

    /// The loop shape: non-raw inputs broadcast together; outputs must
    /// match; `size` where no non-raw array fixes it.
    fn loop_shape(
        &self,
        params: &[&Param],
        bound: &[Bound<'_>],
        nin: usize,
        size: Option<usize>,
    ) -> Result<Vec<usize>> {
        let bad = |detail: String| self.bad(detail);
        // The loop shape: non-raw inputs broadcast together; outputs must match.
        let in_shapes: Vec<&[usize]> = (0..nin)
            .filter(|&k| !params[k].raw)
            .filter_map(|k| match &bound[k] {
                Bound::Array(a) => Some(a.shape()),
                _ => None,
            })
            .collect();
        let out_shapes: Vec<(usize, &[usize])> = (nin..params.len())
            .filter(|&k| !params[k].raw)
            .filter_map(|k| match &bound[k] {
                Bound::Array(a) => Some((k, a.shape())),
                _ => None,
            })
            .collect();
        let shape: Vec<usize> = if in_shapes.is_empty() && out_shapes.is_empty() {
            match size {
                Some(n) => vec![n],
                None => {
                    return Err(bad(
                        "the loop size cannot be determined: no non-raw array argument; pass one, or use call_size".into(),
                    ))
                }
            }
        } else {
            if size.is_some() {
                return Err(bad(
                    "call_size is only for kernels whose arguments are raw arrays and scalars; here the arrays fix the loop size".into(),
                ));
            }
            let mut all = in_shapes.clone();
            all.extend(out_shapes.iter().map(|(_, s)| *s));
            crate::core::layout::broadcast_shapes(OP, &all)?
        };
        for (k, s) in &out_shapes {
            if *s != shape.as_slice() {
                return Err(Error::Shape {
                    op: OP,
                    detail: format!(
                        "kernel `{}`: the output `{}` has shape {} but the arguments broadcast to {}",
                        self.name,
                        params[*k].name,
                        fmt_shape(s),
                        fmt_shape(&shape)
                    ),
                });
            }
        }
        Ok(shape)
    }

    /// How each parameter is passed to the generated kernel.
    fn gen_params(
        &self,
        params: &[&Param],
        bound: &[Bound<'_>],
        types: &[DType],
        mem_params: &[usize],
        mstrides: &[Vec<isize>],
        nin: usize,
    ) -> Result<Vec<GenParam>> {
        let bad = |detail: String| self.bad(detail);
        let mut gen_params = Vec::with_capacity(params.len());
        for (k, p) in params.iter().enumerate() {
            let out = k >= nin;
            let (pass, actual) = match &bound[k] {
                Bound::Scalar(..) => (Pass::Value, types[k]),
                Bound::Array(a) if p.raw => (
                    Pass::Raw {
                        ndim: a.ndim(),
                        contiguous: a.is_c_contiguous(),
                    },
                    a.dtype(),
                ),
                Bound::Alloc if p.raw => {
                    return Err(bad(format!(
                        "the raw output `{}` must be given (raw outputs cannot be allocated)",
                        p.name
                    )))
                }
                b => {
                    let st: &[isize] = mem_params
                        .iter()
                        .position(|&m| m == k)
                        .and_then(|slot| mstrides.get(slot))
                        .map(|v| v.as_slice())
                        .unwrap_or(&[]);
                    let once = !out && !st.is_empty() && st.iter().all(|&x| x == 0);
                    let actual = match b {
                        Bound::Array(a) => a.dtype(),
                        _ => types[k],
                    };
                    (if once { Pass::Once } else { Pass::Each }, actual)
                }
            };
            gen_params.push(GenParam {
                name: p.name.clone(),
                pass,
                actual,
                ty: types[k],
                out,
            });
        }
        Ok(gen_params)
    }

    fn run(&self, args: &[Arg<'_>], size: Option<usize>) -> Result<Vec<Array>> {
        let mut plan = self.plan(args, size)?;
        let ordinal = match plan.device {
            Device::Cuda(n) => n,
            Device::Cpu => {
                return Err(Error::NeedsCuda {
                    op: OP,
                    reason: format!(
                        "`{}` is user CUDA code and the arguments are on the CPU; move them with `.to_device(&cp::Device::cuda(0))` (arguments were checked: {} elements of {})",
                        self.name,
                        plan.n,
                        fmt_shape(&plan.shape)
                    ),
                })
            }
        };
        let nin = self.in_params.len();
        let backend = crate::backend::on(OP, plan.device)?;
        // Outputs: given or allocated.
        let mut outs: Vec<Array> = Vec::with_capacity(self.out_params.len());
        for (j, p) in self.out_params.iter().enumerate() {
            let k = nin + j;
            outs.push(match &plan.bound[k] {
                Bound::Array(a) => (*a).clone(),
                _ => crate::core::layout::checked_size(OP, &plan.shape)
                    .and_then(|n| backend.empty(OP, plan.types[k], n))
                    .map(|s| Array::from_parts(s, Layout::contiguous(&plan.shape), plan.types[k]))
                    .map_err(|e| match e {
                        Error::OutOfMemory { .. } => e,
                        other => Error::InvalidArgument {
                            op: OP,
                            detail: format!("allocating the output `{}`: {other}", p.name),
                        },
                    })?,
            });
        }
        if plan.n == 0 {
            return Ok(outs);
        }
        let s = crate::cuda::kernel_gen::custom::device_session(ordinal)?;
        if plan.contiguous {
            let lanes = vector_lanes(&self.operation, &plan.gen_params);
            let aligned = |k: usize| -> Result<bool> {
                let a = match &plan.bound[k] {
                    Bound::Array(a) => *a,
                    Bound::Alloc => &outs[k - nin],
                    Bound::Scalar(_) => return Ok(true),
                };
                Ok(crate::cuda::kernel_gen::helpers::ptr(OP, a)? % 16 == 0)
            };
            let mut all = true;
            for (k, g) in plan.gen_params.iter().enumerate() {
                if g.pass == Pass::Each && !aligned(k)? {
                    all = false;
                }
            }
            if lanes > 1 && all {
                plan.lanes = lanes;
            }
        }
        let key = crate::cuda::kernel_gen::helpers::key((
            self.ident,
            &plan.gen_params,
            &plan.placeholders,
            plan.mshape.len(),
            plan.contiguous,
            plan.small,
            plan.lanes,
        ));
        let f = crate::cuda::kernel_gen::custom::cached_function(
            &self.cache,
            s,
            key,
            &self.name,
            &self.name,
            &self.options,
            || self.source(&plan),
        )?;
        let mut kargs = crate::cuda::runtime::launch::KernelArgs::new();
        for (k, g) in plan.gen_params.iter().enumerate() {
            let arr: Option<&Array> = match &plan.bound[k] {
                Bound::Array(a) => Some(a),
                Bound::Alloc => Some(&outs[k - nin]),
                Bound::Scalar(v) => {
                    kargs.push_bytes(&scalar_bytes(*v, g.ty), c_align(g.ty));
                    None
                }
            };
            if let Some(a) = arr {
                let ptr = crate::cuda::kernel_gen::helpers::ptr(OP, a)?;
                match g.pass {
                    Pass::Raw { .. } => {
                        kargs.push_bytes(&carray_bytes(ptr, a.shape(), a.strides()), 8);
                    }
                    _ => {
                        kargs.push(ptr);
                    }
                }
            }
        }
        if !plan.contiguous {
            let geo = elementwise_geo(&plan.mshape, &plan.mstrides);
            let (bytes, align) = crate::cuda::kernel_gen::codegen::geo_bytes(&geo, plan.small);
            kargs.push_bytes(&bytes, align);
        }
        kargs.push(plan.n as i64);
        let cfg = crate::cuda::kernel_gen::elementwise::grid_for(s, plan.n);
        crate::cuda::runtime::launch::launch(
            s,
            &self.name,
            f,
            cfg,
            &crate::cuda::runtime::stream::current_stream(),
            &mut kargs,
        )?;
        Ok(outs)
    }
}
/// The layouts of the arrays indexed per element (non-raw arrays and
/// allocated outputs), broadcast to `shape`, and their parameter numbers.
fn memory_layouts(
    params: &[&Param],
    bound: &[Bound<'_>],
    shape: &[usize],
) -> Result<(Vec<Layout>, Vec<usize>)> {
    // Layouts of the arrays indexed per element.
    let mut layouts: Vec<Layout> = Vec::new();
    let mut mem_params: Vec<usize> = Vec::new();
    for (k, p) in params.iter().enumerate() {
        if p.raw {
            continue;
        }
        let l = match &bound[k] {
            Bound::Array(a) => Layout::from_parts(a.shape().to_vec(), a.strides().to_vec(), 0)
                .broadcast_to(shape)
                .map_err(|_| Error::Broadcast {
                    op: OP,
                    shapes: vec![a.shape().to_vec(), shape.to_vec()],
                })?,
            Bound::Alloc => Layout::contiguous(shape),
            Bound::Scalar(..) => continue,
        };
        layouts.push(l);
        mem_params.push(k);
    }
    Ok((layouts, mem_params))
}
