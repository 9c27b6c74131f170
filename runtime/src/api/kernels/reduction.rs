//! `cp::ReductionKernel`: CuPy's user-defined reductions.

use super::args::{args_device, check_scalar, scalar_bytes, Arg, IntoArgs};
use super::elementwise::{arg_type, c_align};
use super::params::{check_unique, is_identifier, parse_params, resolve_types, ArgType, Param};
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::{fmt_shape, Error, Result};
use crate::core::layout::Layout;
use crate::cuda::kernel_gen::codegen::{c_type_size, GenParam, Pass};
use crate::cuda::kernel_gen::reduce::{
    c_reduce_type, user_source as reduction_source, RedGeo, RedSource, RED_THREADS,
};

const OP: &str = "ReductionKernel";

/// A user-defined reduction, as `cupy.ReductionKernel`: each element is
/// mapped by `map_expr` (over the input names), folded with `reduce_expr`
/// (over `a` and `b`) starting from `identity`, and the result written by
/// `post_map_expr` (over `a` and the output name, e.g. `y = a`).
///
/// ```
/// use cuprite as cp;
/// let sum_squares = cp::ReductionKernel::new(
///     "float32 x", "float32 y", "x * x", "a + b", "y = a", "0", "sum_squares")?;
/// # let x = cp::arange(10)?.astype(cp::f32)?;
/// # if x.device().is_cuda() {
/// let s = sum_squares.call(&x)?; // 285
/// # }
/// # Ok::<(), cp::Error>(())
/// ```
pub struct ReductionKernel {
    name: String,
    in_params: Vec<Param>,
    out_params: Vec<Param>,
    map_expr: String,
    reduce_expr: String,
    post_map_expr: String,
    identity: String,
    reduce_type: Option<String>,
    preamble: String,
    options: Vec<String>,
    ident: u64,
    cache: crate::cuda::kernel_gen::custom::FunctionCache,
}

impl std::fmt::Debug for ReductionKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReductionKernel({})", self.name)
    }
}

/// Everything a call decided before touching the GPU.
pub(crate) struct RedPlan<'a> {
    pub device: Device,
    pub bound: Vec<Option<Arg<'a>>>,
    pub types: Vec<DType>,
    pub placeholders: Vec<(char, DType)>,
    pub gen_params: Vec<GenParam>,
    pub out_shape: Vec<usize>,
    pub rows: usize,
    pub len: usize,
    pub geo: Vec<i64>,
    pub kd: usize,
    pub rd: usize,
    pub red_contiguous: bool,
    pub reduce_type: String,
    /// The broadcast shape of the inputs.
    pub in_shape: Vec<usize>,
    /// Axes reduced (normalised, ascending).
    pub axes: Vec<usize>,
}

impl ReductionKernel {
    /// A reduction from CuPy's seven strings (see the type's documentation).
    pub fn new(
        in_params: &str,
        out_params: &str,
        map_expr: &str,
        reduce_expr: &str,
        post_map_expr: &str,
        identity: &str,
        name: &str,
    ) -> Result<ReductionKernel> {
        let op = "ReductionKernel::new";
        let ins = parse_params(op, in_params)?;
        let outs = parse_params(op, out_params)?;
        check_unique(op, &ins, &outs)?;
        let bad = |detail: String| Error::InvalidArgument { op, detail };
        if outs.len() != 1 {
            return Err(bad(format!(
                "a reduction has exactly one output parameter, {} were given",
                outs.len()
            )));
        }
        if let Some(p) = ins.iter().chain(&outs).find(|p| p.raw) {
            return Err(bad(format!(
                "`{}`: raw parameters are not supported in reductions",
                p.name
            )));
        }
        if let Some(p) = ins
            .iter()
            .chain(&outs)
            .find(|p| p.name == "a" || p.name == "b")
        {
            return Err(bad(format!(
                "parameter `{}` would hide the accumulator names `a` and `b` of reduce_expr/post_map_expr; rename it",
                p.name
            )));
        }
        if !is_identifier(name) {
            return Err(bad(format!("kernel name {name:?} is not a C identifier")));
        }
        let mut k = ReductionKernel {
            name: name.to_string(),
            in_params: ins,
            out_params: outs,
            map_expr: map_expr.to_string(),
            reduce_expr: reduce_expr.to_string(),
            post_map_expr: post_map_expr.to_string(),
            identity: identity.to_string(),
            reduce_type: None,
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
            (
                "reduction",
                &self.name,
                &self.in_params,
                &self.out_params,
                &self.map_expr,
                &self.reduce_expr,
            ),
            (
                &self.post_map_expr,
                &self.identity,
                &self.reduce_type,
                &self.preamble,
                &self.options,
            ),
        ));
        self.cache = Default::default();
    }

    /// The accumulator type (`a`, `b`): a dtype name, a placeholder or a C
    /// type; by default the output's type.
    pub fn reduce_type(mut self, t: &str) -> ReductionKernel {
        self.reduce_type = Some(t.to_string());
        self.rehash();
        self
    }

    /// C++ code placed before the kernel.
    pub fn preamble(mut self, code: &str) -> ReductionKernel {
        self.preamble = code.to_string();
        self.rehash();
        self
    }

    /// Extra NVRTC options.
    pub fn options(mut self, options: &[&str]) -> ReductionKernel {
        self.options = options.iter().map(|s| s.to_string()).collect();
        self.rehash();
        self
    }

    /// The kernel name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reduces over every axis.
    pub fn call<'a>(&self, args: impl IntoArgs<'a>) -> Result<Array> {
        self.run(&args.into_args(), None, false)
    }

    /// Reduces over one axis (negative counts from the end).
    pub fn call_axis<'a>(&self, args: impl IntoArgs<'a>, axis: isize) -> Result<Array> {
        self.run(&args.into_args(), Some(&[axis]), false)
    }

    /// Reduces over `axes`, keeping them as extent-1 axes when `keepdims`.
    pub fn call_axes<'a>(
        &self,
        args: impl IntoArgs<'a>,
        axes: &[isize],
        keepdims: bool,
    ) -> Result<Array> {
        self.run(&args.into_args(), Some(axes), keepdims)
    }

    /// Reduces into `out` (`axes` `None` = all axes).
    pub fn call_out<'a>(
        &self,
        args: impl IntoArgs<'a>,
        axes: Option<&[isize]>,
        keepdims: bool,
        out: &mut Array,
    ) -> Result<()> {
        let mut a = args.into_args();
        if a.len() != self.in_params.len() {
            return Err(self.count_error(a.len() + 1));
        }
        let o: &Array = out;
        a.push(Arg::Array(o));
        self.run(&a, axes, keepdims).map(drop)
    }

    /// The CUDA source this call would compile (readable without a GPU).
    pub fn source_for<'a>(
        &self,
        args: impl IntoArgs<'a>,
        axes: Option<&[isize]>,
        keepdims: bool,
    ) -> Result<String> {
        let args = args.into_args();
        let plan = self.plan(&args, axes, keepdims)?;
        Ok(self.source(&plan))
    }

    fn source(&self, plan: &RedPlan<'_>) -> String {
        reduction_source(&RedSource {
            name: &self.name,
            map_expr: &self.map_expr,
            reduce_expr: &self.reduce_expr,
            post_map_expr: &self.post_map_expr,
            identity: &self.identity,
            reduce_type: &plan.reduce_type,
            preamble: &self.preamble,
            placeholders: &plan.placeholders,
            params: &plan.gen_params,
            kd: plan.kd,
            rd: plan.rd,
            red_contiguous: plan.red_contiguous,
        })
    }

    fn count_error(&self, got: usize) -> Error {
        let names: Vec<&str> = self.in_params.iter().map(|p| p.name.as_str()).collect();
        Error::InvalidArgument {
            op: OP,
            detail: format!(
                "kernel `{}` takes {} inputs ({}) optionally followed by the output `{}`; got {got} arguments",
                self.name,
                self.in_params.len(),
                names.join(", "),
                self.out_params[0].name
            ),
        }
    }

    pub(crate) fn plan<'a>(
        &self,
        args: &[Arg<'a>],
        axes: Option<&[isize]>,
        keepdims: bool,
    ) -> Result<RedPlan<'a>> {
        let nin = self.in_params.len();
        if args.len() != nin && args.len() != nin + 1 {
            return Err(self.count_error(args.len()));
        }
        let params: Vec<&Param> = self.in_params.iter().chain(&self.out_params).collect();
        let bad = |detail: String| Error::InvalidArgument {
            op: OP,
            detail: format!("kernel `{}`: {detail}", self.name),
        };
        let kinds = self.arg_kinds(args, &params, nin)?;
        let device = args_device(OP, args)?;
        let (types, placeholders) = resolve_types(OP, &self.name, &params, &kinds, nin)?;
        for (k, p) in params.iter().enumerate() {
            if let Some(Arg::Scalar(v, d)) = args.get(k) {
                check_scalar(OP, &self.name, &p.name, *v, *d, types[k])?;
            }
        }
        let shapes: Vec<&[usize]> = args[..nin]
            .iter()
            .filter_map(|a| match a {
                Arg::Array(x) => Some(x.shape()),
                _ => None,
            })
            .collect();
        if shapes.is_empty() {
            return Err(bad("at least one input must be an array".into()));
        }
        let in_shape = crate::core::layout::broadcast_shapes(OP, &shapes)?;
        let nd = in_shape.len();
        let axes: Vec<usize> = match axes {
            None => (0..nd).collect(),
            Some(ax) => {
                let mut v = crate::core::layout::normalize_axes(OP, ax, nd)?;
                v.sort_unstable();
                v
            }
        };
        let kept: Vec<usize> = (0..nd).filter(|a| !axes.contains(a)).collect();
        let out_shape: Vec<usize> = if keepdims {
            (0..nd)
                .map(|a| if axes.contains(&a) { 1 } else { in_shape[a] })
                .collect()
        } else {
            kept.iter().map(|&a| in_shape[a]).collect()
        };
        let kshape: Vec<usize> = kept.iter().map(|&a| in_shape[a]).collect();
        let rshape: Vec<usize> = axes.iter().map(|&a| in_shape[a]).collect();
        let rows: usize = kshape.iter().product();
        let len: usize = rshape.iter().product();
        if len == 0 && rows > 0 && self.identity.trim().is_empty() {
            return Err(Error::EmptyReduction {
                op: OP,
                shape: in_shape.clone(),
            });
        }
        let out_layout = self.output_layout(args.get(nin), &out_shape)?;
        let kept_axes = KeptAxes {
            kept: &kept,
            kshape: &kshape,
            axes: &axes,
            keepdims,
        };
        let (geo, kd, rd, red_contiguous) =
            self.geometry(&args[..nin], &in_shape, &kept_axes, &out_layout)?;
        let (gen_params, bound) = gen_params(&params, args, &types, nin);
        let reduce_type = match &self.reduce_type {
            Some(t) => c_reduce_type(t),
            None => crate::ops::c_types::ctype(types[nin]).to_string(),
        };
        Ok(RedPlan {
            device,
            bound,
            types,
            placeholders,
            gen_params,
            out_shape,
            rows,
            len,
            geo,
            kd,
            rd,
            red_contiguous,
            reduce_type,
            in_shape,
            axes,
        })
    }

    /// The type of each argument (`Missing` past the given ones), refusing
    /// raw pointers and scalar outputs.
    fn arg_kinds(&self, args: &[Arg<'_>], params: &[&Param], nin: usize) -> Result<Vec<ArgType>> {
        let bad = |detail: String| Error::InvalidArgument {
            op: OP,
            detail: format!("kernel `{}`: {detail}", self.name),
        };
        let mut kinds = Vec::new();
        for (k, p) in params.iter().enumerate() {
            let a = args.get(k);
            match a {
                Some(Arg::Ptr(_)) => {
                    return Err(bad(format!(
                        "`{}` was given a raw device pointer; reductions take arrays and scalars",
                        p.name
                    )))
                }
                Some(Arg::Scalar(..)) if k >= nin => {
                    return Err(bad(format!("the output `{}` needs an array", p.name)))
                }
                _ => {}
            }
            kinds.push(a.map(arg_type).unwrap_or(ArgType::Missing));
        }
        Ok(kinds)
    }

    /// The output's layout: the given array's (its shape checked) or a
    /// C-contiguous one of `out_shape`.
    fn output_layout(&self, given: Option<&Arg<'_>>, out_shape: &[usize]) -> Result<Layout> {
        Ok(match given {
            Some(Arg::Array(o)) => {
                if o.shape() != out_shape {
                    return Err(Error::Shape {
                        op: OP,
                        detail: format!(
                            "kernel `{}`: the output has shape {} but the reduction gives {}",
                            self.name,
                            fmt_shape(o.shape()),
                            fmt_shape(out_shape)
                        ),
                    });
                }
                Layout::from_parts(o.shape().to_vec(), o.strides().to_vec(), 0)
            }
            _ => Layout::contiguous(out_shape),
        })
    }

    /// The kernel's geometry: the kept and reduced axes of every input and
    /// of the output, merged where contiguous together, packed as `RedGeo`
    /// lays them out; with the merged ranks and whether the reduced part is
    /// contiguous.
    fn geometry(
        &self,
        inputs: &[Arg<'_>],
        in_shape: &[usize],
        k: &KeptAxes<'_>,
        out_layout: &Layout,
    ) -> Result<(Vec<i64>, usize, usize, bool)> {
        let (kept, kshape, axes, keepdims) = (k.kept, k.kshape, k.axes, k.keepdims);
        let out_kept_strides: Vec<isize> = if keepdims {
            kept.iter().map(|&a| out_layout.strides()[a]).collect()
        } else {
            out_layout.strides().to_vec()
        };
        // Per input array: strides over the broadcast shape.
        let mut in_layouts: Vec<(usize, Layout)> = Vec::new();
        for (k, a) in inputs.iter().enumerate() {
            if let Arg::Array(x) = a {
                let l = Layout::from_parts(x.shape().to_vec(), x.strides().to_vec(), 0)
                    .broadcast_to(in_shape)?;
                in_layouts.push((k, l));
            }
        }
        let pick = |l: &Layout, ax: &[usize]| -> Layout {
            Layout::from_parts(
                ax.iter().map(|&a| l.shape()[a]).collect(),
                ax.iter().map(|&a| l.strides()[a]).collect(),
                0,
            )
        };
        let mut klayouts: Vec<Layout> = in_layouts.iter().map(|(_, l)| pick(l, kept)).collect();
        klayouts.push(Layout::from_parts(kshape.to_vec(), out_kept_strides, 0));
        let rlayouts: Vec<Layout> = in_layouts.iter().map(|(_, l)| pick(l, axes)).collect();
        let (km, kst) = Layout::merge_axes(&klayouts.iter().collect::<Vec<_>>());
        let (rm, rst) = Layout::merge_axes(&rlayouts.iter().collect::<Vec<_>>());
        let (kd, rd) = (km.len(), rm.len());
        let max = crate::cuda::kernel_gen::elementwise::MAX_DIMS;
        if kd > max || rd > max {
            return Err(Error::Shape {
                op: OP,
                detail: format!(
                    "kernel `{}`: too many dimensions after merging (at most {max})",
                    self.name
                ),
            });
        }
        let red_contiguous = rd <= 1
            && rst
                .iter()
                .all(|s| s.first().is_none_or(|&x| x == 0 || x == 1));
        let g = RedGeo {
            kd,
            rd,
            n_in: in_layouts.len(),
        };
        let mut geo = vec![0i64; g.len()];
        for (a, &d) in km.iter().enumerate() {
            geo[g.kshape() + a] = d as i64;
        }
        for (slot, st) in kst.iter().enumerate() {
            for (a, &s) in st.iter().enumerate() {
                geo[g.kst(slot) + a] = s as i64;
            }
        }
        for (a, &d) in rm.iter().enumerate() {
            geo[g.rshape() + a] = d as i64;
        }
        for (slot, st) in rst.iter().enumerate() {
            for (a, &s) in st.iter().enumerate() {
                geo[g.rst(slot) + a] = s as i64;
            }
        }
        Ok((geo, kd, rd, red_contiguous))
    }

    fn run(&self, args: &[Arg<'_>], axes: Option<&[isize]>, keepdims: bool) -> Result<Array> {
        let plan = self.plan(args, axes, keepdims)?;
        let nin = self.in_params.len();
        let ordinal = match plan.device {
            Device::Cuda(n) => n,
            Device::Cpu => {
                return Err(Error::NeedsCuda {
                    op: OP,
                    reason: format!(
                        "`{}` is user CUDA code and the arguments are on the CPU (arguments were checked: reducing {} over axes {:?})",
                        self.name,
                        fmt_shape(&plan.in_shape),
                        plan.axes
                    ),
                })
            }
        };
        let backend = crate::backend::on(OP, plan.device)?;
        let new_array = |dtype: DType, shape: &[usize]| -> Result<Array> {
            let n = crate::core::layout::checked_size(OP, shape)?;
            let storage = backend.empty(OP, dtype, n)?;
            Ok(Array::from_parts(storage, Layout::contiguous(shape), dtype))
        };
        let out = match plan.bound.get(nin).copied().flatten() {
            Some(Arg::Array(o)) => o.clone(),
            _ => new_array(plan.types[nin], &plan.out_shape)?,
        };
        if plan.rows == 0 {
            return Ok(out);
        }
        let s = crate::cuda::kernel_gen::custom::device_session(ordinal)?;
        // Rows too few to fill the device are split across blocks.
        let target = s.info.sm_count.max(1) * 8;
        let acc_size = c_type_size(&plan.reduce_type, &plan.placeholders);
        let splits = match acc_size {
            Some(_) if plan.rows < target && plan.len > RED_THREADS * 4 => (target / plan.rows)
                .max(1)
                .min(plan.len.div_ceil(RED_THREADS * 4))
                .min(65535),
            _ => 1,
        };
        let key = crate::cuda::kernel_gen::helpers::key((
            self.ident,
            &plan.gen_params,
            &plan.placeholders,
            &plan.reduce_type,
            plan.kd,
            plan.rd,
            plan.red_contiguous,
        ));
        let main = crate::cuda::kernel_gen::custom::cached_function(
            &self.cache,
            s,
            key,
            &self.name,
            &self.name,
            &self.options,
            || self.source(&plan),
        )?;
        let partial = if splits > 1 {
            let bytes = plan.rows * splits * acc_size.unwrap_or(8);
            Some(new_array(DType::Float64, &[bytes.div_ceil(8)])?)
        } else {
            None
        };
        let partial_ptr = match &partial {
            Some(p) => crate::cuda::kernel_gen::helpers::ptr(OP, p)?,
            None => 0u64,
        };
        let out_ptr = crate::cuda::kernel_gen::helpers::ptr(OP, &out)?;
        let geo_bytes: Vec<u8> = plan.geo.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let push_scalar =
            |k: &mut crate::cuda::runtime::launch::KernelArgs, v: Scalar, t: DType| {
                k.push_bytes(&scalar_bytes(v, t), c_align(t));
            };
        let mut kargs = crate::cuda::runtime::launch::KernelArgs::new();
        for (k, g) in plan.gen_params[..nin].iter().enumerate() {
            match plan.bound[k] {
                Some(Arg::Array(x)) => {
                    kargs.push(crate::cuda::kernel_gen::helpers::ptr(OP, x)?);
                }
                Some(Arg::Scalar(v, _)) => push_scalar(&mut kargs, v, g.ty),
                _ => {}
            }
        }
        kargs.push(out_ptr);
        kargs.push(partial_ptr);
        kargs.push_bytes(&geo_bytes, 8);
        kargs.push(plan.rows as i64);
        kargs.push(plan.len as i64);
        let stream = crate::cuda::runtime::stream::current_stream();
        let blocks = plan.rows.min(s.info.sm_count.max(1) * 64).max(1) as u32;
        let dim = |x: u32, y: u32| super::args::Dim3 { x, y, z: 1 };
        crate::cuda::kernel_gen::custom::launch_user(
            s,
            &self.name,
            main,
            dim(blocks, splits as u32),
            dim(RED_THREADS as u32, 1),
            0,
            &stream,
            &mut kargs,
        )?;
        if splits > 1 {
            let finish_name = format!("{}_finish", self.name);
            let fin = crate::cuda::kernel_gen::custom::cached_function(
                &self.cache,
                s,
                key ^ 0x5eed_f1a1,
                &self.name,
                &finish_name,
                &self.options,
                || self.source(&plan),
            )?;
            let mut fargs = crate::cuda::runtime::launch::KernelArgs::new();
            fargs.push(partial_ptr);
            fargs.push(out_ptr);
            for (k, g) in plan.gen_params[..nin].iter().enumerate() {
                if let Some(Arg::Scalar(v, _)) = plan.bound[k] {
                    push_scalar(&mut fargs, v, g.ty);
                }
            }
            fargs.push_bytes(&geo_bytes, 8);
            fargs.push(plan.rows as i64);
            fargs.push(plan.len as i64);
            fargs.push(splits as i64);
            crate::cuda::kernel_gen::custom::launch_user(
                s,
                &finish_name,
                fin,
                dim(blocks, 1),
                dim(RED_THREADS as u32, 1),
                0,
                &stream,
                &mut fargs,
            )?;
        }
        // The partial buffer is freed in stream order after the kernels.
        drop(partial);
        Ok(out)
    }
}
/// The kept axes, their extents and the reduced axes of a reduction.
struct KeptAxes<'k> {
    kept: &'k [usize],
    kshape: &'k [usize],
    axes: &'k [usize],
    keepdims: bool,
}

/// The generator's view of each parameter (how it is passed, its actual and
/// declared dtype) and the argument bound to it.
fn gen_params<'a>(
    params: &[&Param],
    args: &[Arg<'a>],
    types: &[DType],
    nin: usize,
) -> (Vec<GenParam>, Vec<Option<Arg<'a>>>) {
    let mut gen_params = Vec::new();
    let mut bound = Vec::new();
    for (k, p) in params.iter().enumerate() {
        let a = args.get(k).copied();
        let (pass, actual) = match a {
            Some(Arg::Scalar(..)) => (Pass::Value, types[k]),
            Some(Arg::Array(x)) => (Pass::Each, x.dtype()),
            _ => (Pass::Each, types[k]),
        };
        gen_params.push(GenParam {
            name: p.name.clone(),
            pass,
            actual,
            ty: types[k],
            out: k >= nin,
        });
        bound.push(a);
    }
    (gen_params, bound)
}
