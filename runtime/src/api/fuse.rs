//! `cp::fuse`: an elementwise expression over symbolic inputs, compiled into
//! one GPU kernel (CuPy's `@cupy.fuse`).
//!
//! ```
//! use cuprite as cp;
//! let f = cp::fuse(|v: &cp::Expr| (v.sin() + 0.1 * v).tanh()).name("tanh_sin");
//! let x = cp::linspace(-1.0, 1.0, 5)?.astype(cp::f32)?;
//! let y = f.call(&x)?;              // one kernel launch on a GPU
//! assert_eq!(y.dtype(), cp::f32);
//! # Ok::<(), cp::Error>(())
//! ```
//!
//! The expression uses the built-in ufuncs' typing (NumPy's promotion, Rust
//! scalars weak) and their GPU expressions (the rows of the ufunc table,
//! `ops/ufunc.rs`); one kernel is generated per set of input dtypes and
//! reused. On the CPU the expression is evaluated with the ufuncs. Every
//! ufunc of the table has a method here; a row marked not fusable runs
//! unfused, one ufunc at a time.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};

use crate::api::kernels::{Arg, IntoArgs};
use crate::api::operand::Operand;
use crate::core::array::Array;
use crate::core::device::Device;
use crate::core::dtype::DType;
use crate::core::element::Scalar;
use crate::core::error::{Error, Result};
use crate::ops::ufunc::{for_each_binary, for_each_unary, Binary, Ufunc, Unary};

#[derive(Debug)]
enum Node {
    Input(usize),
    Const(Scalar),
    Unary(Unary, Expr),
    Binary(Binary, Expr, Expr),
}

/// A symbolic elementwise expression: an input of a fused function, a
/// constant, or a ufunc applied to expressions.
#[derive(Debug, Clone)]
pub struct Expr(Arc<Node>);

impl Expr {
    fn new(n: Node) -> Expr {
        Expr(Arc::new(n))
    }

    fn unary(&self, op: Unary) -> Expr {
        Expr::new(Node::Unary(op, self.clone()))
    }

    fn binary(&self, op: Binary, other: impl IntoExpr) -> Expr {
        Expr::new(Node::Binary(op, self.clone(), other.into_expr()))
    }

    /// A constant (a weak scalar, as a Rust literal in an array expression).
    pub fn constant(v: impl Into<Scalar>) -> Expr {
        Expr::new(Node::Const(v.into()))
    }
}

/// Expressions and Rust scalars usable as operands of an [`Expr`].
pub trait IntoExpr {
    /// The operand as an expression.
    fn into_expr(self) -> Expr;
}
impl IntoExpr for Expr {
    fn into_expr(self) -> Expr {
        self
    }
}
impl IntoExpr for &Expr {
    fn into_expr(self) -> Expr {
        self.clone()
    }
}
macro_rules! scalar_expr {
    ($($t:ty),*) => {$(
        impl IntoExpr for $t {
            fn into_expr(self) -> Expr {
                Expr::constant(self)
            }
        }
    )*};
}
scalar_expr!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

macro_rules! unary_methods {
    ($([$($module:ident)?] $name:ident $name_out:ident $Var:ident $doc:literal;)*) => {
        impl Expr {$(
            #[doc = concat!("`", stringify!($name), "` of this expression: ", $doc)]
            pub fn $name(&self) -> Expr {
                self.unary(Unary::$Var)
            }
        )*}
    };
}
for_each_unary!(unary_methods);

macro_rules! binary_methods {
    ($([$($module:ident)?] $name:ident $name_out:ident $Var:ident $doc:literal;)*) => {
        impl Expr {$(
            #[doc = concat!("`", stringify!($name), "(self, other)`: ", $doc)]
            pub fn $name(&self, other: impl IntoExpr) -> Expr {
                self.binary(Binary::$Var, other)
            }
        )*}
    };
}
for_each_binary!(binary_methods);

macro_rules! operators {
    ($($tr:ident, $f:ident, $op:ident);*) => {$(
        impl<R: IntoExpr> std::ops::$tr<R> for Expr {
            type Output = Expr;
            fn $f(self, r: R) -> Expr { self.binary(Binary::$op, r) }
        }
        impl<R: IntoExpr> std::ops::$tr<R> for &Expr {
            type Output = Expr;
            fn $f(self, r: R) -> Expr { self.binary(Binary::$op, r) }
        }
        operators!(@scalars $tr, $f, $op; bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);
    )*};
    (@scalars $tr:ident, $f:ident, $op:ident; $($t:ty),*) => {$(
        impl std::ops::$tr<Expr> for $t {
            type Output = Expr;
            fn $f(self, r: Expr) -> Expr { Expr::constant(self).binary(Binary::$op, r) }
        }
        impl std::ops::$tr<&Expr> for $t {
            type Output = Expr;
            fn $f(self, r: &Expr) -> Expr { Expr::constant(self).binary(Binary::$op, r) }
        }
    )*};
}
operators!(Add, add, Add; Sub, sub, Subtract; Mul, mul, Multiply; Div, div, Divide;
    Rem, rem, Remainder; BitAnd, bitand, BitwiseAnd; BitOr, bitor, BitwiseOr;
    BitXor, bitxor, BitwiseXor);

impl std::ops::Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.unary(Unary::Negative)
    }
}
impl std::ops::Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.unary(Unary::Negative)
    }
}

/// Closures of 1 to 4 [`Expr`] inputs that build a fused expression
/// (annotate the parameters: `|x: &cp::Expr, y: &cp::Expr| ...`).
pub trait FuseFn<Marker> {
    /// Number of inputs.
    fn arity(&self) -> usize;
    /// The expression over `inputs`.
    fn build(&self, inputs: &[Expr]) -> Expr;
}
impl<F: Fn(&Expr) -> Expr> FuseFn<(Expr,)> for F {
    fn arity(&self) -> usize {
        1
    }
    fn build(&self, i: &[Expr]) -> Expr {
        self(&i[0])
    }
}
impl<F: Fn(&Expr, &Expr) -> Expr> FuseFn<(Expr, Expr)> for F {
    fn arity(&self) -> usize {
        2
    }
    fn build(&self, i: &[Expr]) -> Expr {
        self(&i[0], &i[1])
    }
}
impl<F: Fn(&Expr, &Expr, &Expr) -> Expr> FuseFn<(Expr, Expr, Expr)> for F {
    fn arity(&self) -> usize {
        3
    }
    fn build(&self, i: &[Expr]) -> Expr {
        self(&i[0], &i[1], &i[2])
    }
}
impl<F: Fn(&Expr, &Expr, &Expr, &Expr) -> Expr> FuseFn<(Expr, Expr, Expr, Expr)> for F {
    fn arity(&self) -> usize {
        4
    }
    fn build(&self, i: &[Expr]) -> Expr {
        self(&i[0], &i[1], &i[2], &i[3])
    }
}

/// A fused function: call it with arrays (`f.call(&x)`, `f.call((&x, &y))`).
pub struct Fused {
    name: String,
    arity: usize,
    root: Expr,
    /// Kernels by input dtypes (`None`: some operation has no GPU expression).
    kernels:
        Mutex<HashMap<Vec<DType>, Option<Arc<crate::cuda::kernel_gen::elementwise::MapKernel>>>>,
}

impl std::fmt::Debug for Fused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fused({}, {} inputs)", self.name, self.arity)
    }
}

/// Builds a fused elementwise function from a closure over symbolic inputs
/// (`@cupy.fuse`); see the [module documentation](self).
pub fn fuse<M>(f: impl FuseFn<M>) -> Fused {
    let arity = f.arity();
    let inputs: Vec<Expr> = (0..arity).map(|k| Expr::new(Node::Input(k))).collect();
    Fused {
        name: "fused".into(),
        arity,
        root: f.build(&inputs),
        kernels: Mutex::new(HashMap::new()),
    }
}

/// A value while evaluating with the ufuncs.
#[derive(Clone)]
enum Val {
    A(Array),
    S(Scalar),
}

impl Val {
    fn operand(&self) -> Operand<'static> {
        match self {
            Val::A(a) => Operand::Array(std::borrow::Cow::Owned(a.clone())),
            Val::S(s) => Operand::Scalar(*s),
        }
    }
}

fn apply_unary(op: Unary, a: Operand<'_>) -> Result<Array> {
    crate::api::elementwise::unary(op, a)
}

fn apply_binary(op: Binary, a: Operand<'_>, b: Operand<'_>) -> Result<Array> {
    crate::api::elementwise::binary(op, a, b)
}

/// Evaluates `e` with the ufuncs (one operation at a time).
fn eval(e: &Expr, inputs: &[Array]) -> Result<Val> {
    Ok(match &*e.0 {
        Node::Input(k) => Val::A(inputs[*k].clone()),
        Node::Const(s) => Val::S(*s),
        Node::Unary(op, a) => Val::A(apply_unary(*op, eval(a, inputs)?.operand())?),
        Node::Binary(op, a, b) => Val::A(apply_binary(
            *op,
            eval(a, inputs)?.operand(),
            eval(b, inputs)?.operand(),
        )?),
    })
}

/// Builds the body of the fused device function; returns the C name of the
/// node's value and its dtype, or `None` when an operation has no GPU form.
struct Gen {
    body: String,
    supports: Vec<&'static str>,
    next: usize,
}

impl Gen {
    /// The C value of `e` (a weak constant has no variable: its literal is
    /// made in the dtype of the operation that uses it).
    fn node(&mut self, e: &Expr, dtypes: &[DType]) -> Result<Option<(String, Val)>> {
        use crate::ops::c_types::{cast_expr, ctype, scalar_literal};
        let cpu = |dt: DType| -> Result<Val> {
            crate::with_device(Device::Cpu, || crate::zeros([0], dt)).map(Val::A)
        };
        Ok(Some(match &*e.0 {
            Node::Input(k) => (format!("_p{k}"), cpu(dtypes[*k])?),
            Node::Const(s) => (String::new(), Val::S(*s)),
            Node::Unary(op, a) => {
                let Some((av, aval)) = self.node(a, dtypes)? else {
                    return Ok(None);
                };
                let probe = crate::with_device(Device::Cpu, || apply_unary(*op, aval.operand()))?;
                let out = probe.dtype();
                let in_dt = match &aval {
                    Val::A(x) => x.dtype(),
                    Val::S(_) => return Ok(None),
                };
                let (loop_dt, _) = crate::api::elementwise::unary_types(*op, &aval.operand())?;
                if !op.fusable() {
                    return Ok(None);
                }
                let Some(x) = crate::cuda::kernel_gen::ufunc_expr::expr(Ufunc::Unary(*op), loop_dt)
                else {
                    return Ok(None);
                };
                let t = self.fresh();
                let _ = writeln!(
                    self.body,
                    "  {} {t}; {{ const {} in0 = {}; {t} = {}; }}",
                    ctype(out),
                    ctype(x.compute),
                    cast_expr(in_dt, x.compute, &av),
                    cast_expr(x.result, out, &format!("({})", x.expr))
                );
                self.support(x.support);
                (t, Val::A(probe))
            }
            Node::Binary(op, a, b) => {
                let Some((av, aval)) = self.node(a, dtypes)? else {
                    return Ok(None);
                };
                let Some((bv, bval)) = self.node(b, dtypes)? else {
                    return Ok(None);
                };
                let probe = crate::with_device(Device::Cpu, || {
                    apply_binary(*op, aval.operand(), bval.operand())
                })?;
                let out = probe.dtype();
                let (loop_dt, _) =
                    crate::api::elementwise::binary_types(*op, &aval.operand(), &bval.operand())?;
                if !op.fusable() {
                    return Ok(None);
                }
                let Some(x) =
                    crate::cuda::kernel_gen::ufunc_expr::expr(Ufunc::Binary(*op), loop_dt)
                else {
                    return Ok(None);
                };
                let val = |v: &str, val: &Val| -> String {
                    match val {
                        Val::A(arr) => cast_expr(arr.dtype(), x.compute, v),
                        Val::S(s) => cast_expr(loop_dt, x.compute, &scalar_literal(*s, loop_dt)),
                    }
                };
                let t = self.fresh();
                let _ = writeln!(
                    self.body,
                    "  {} {t}; {{ const {c} in0 = {}; const {c} in1 = {}; {t} = {}; }}",
                    ctype(out),
                    val(&av, &aval),
                    val(&bv, &bval),
                    cast_expr(x.result, out, &format!("({})", x.expr)),
                    c = ctype(x.compute),
                );
                self.support(x.support);
                (t, Val::A(probe))
            }
        }))
    }

    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("_t{}", self.next)
    }

    fn support(&mut self, s: &'static str) {
        if !s.is_empty() && !self.supports.contains(&s) {
            self.supports.push(s);
        }
    }
}

impl Fused {
    /// Sets the kernel name (CuPy's `kernel_name`), shown in profiles and errors.
    pub fn name(mut self, name: &str) -> Fused {
        self.name = crate::api::kernels::raw::identifier_chars(name);
        self
    }

    /// Number of inputs.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The map kernel for these input dtypes (`None` when not fusable).
    pub(crate) fn kernel(
        &self,
        dtypes: &[DType],
    ) -> Result<Option<Arc<crate::cuda::kernel_gen::elementwise::MapKernel>>> {
        if let Some(k) = self
            .kernels
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(dtypes)
        {
            return Ok(k.clone());
        }
        let mut g = Gen {
            body: String::new(),
            supports: Vec::new(),
            next: 0,
        };
        let k = match g.node(&self.root, dtypes)? {
            Some((v, Val::A(probe))) => {
                let out = probe.dtype();
                let params: Vec<String> = dtypes
                    .iter()
                    .enumerate()
                    .map(|(k, d)| format!("const {} _p{k}", crate::ops::c_types::ctype(*d)))
                    .collect();
                let body = format!("{}  return {v};\n}}\n", g.body);
                let head = format!(
                    "__device__ __forceinline__ {} FN({}) {{\n",
                    crate::ops::c_types::ctype(out),
                    params.join(", ")
                );
                let hash =
                    crate::cuda::runtime::compile::fnv1a(&[head.as_bytes(), body.as_bytes()]);
                let fname = format!("_cp_fused_{hash:016x}");
                let mut support: String = g.supports.concat();
                support.push('\n');
                support.push_str(&head.replace("FN(", &format!("{fname}(")));
                support.push_str(&body);
                let args: Vec<String> = (0..dtypes.len()).map(|k| format!("in{k}")).collect();
                Some(Arc::new(
                    crate::cuda::kernel_gen::elementwise::MapKernel::new(
                        self.name.clone(),
                        dtypes.to_vec(),
                        format!("{fname}({})", args.join(", ")),
                        out,
                        support,
                    ),
                ))
            }
            _ => None,
        };
        self.kernels
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(dtypes.to_vec(), k.clone());
        Ok(k)
    }

    /// The generated device function and kernel expression for these input
    /// dtypes (readable without a GPU); `None` when not fusable.
    pub fn source_for(&self, dtypes: &[DType]) -> Result<Option<String>> {
        Ok(self
            .kernel(dtypes)?
            .map(|k| format!("{}\n// out = {}", k.support, k.expr)))
    }

    /// Applies the function to arrays (all on one device, broadcast together).
    pub fn call<'a>(&self, args: impl IntoArgs<'a>) -> Result<Array> {
        let args = args.into_args();
        if args.len() != self.arity {
            return Err(Error::InvalidArgument {
                op: "fuse",
                detail: format!(
                    "`{}` takes {} arrays, got {} arguments",
                    self.name,
                    self.arity,
                    args.len()
                ),
            });
        }
        let mut arrays: Vec<Array> = Vec::with_capacity(args.len());
        for a in &args {
            match a {
                Arg::Array(x) => arrays.push((*x).clone()),
                other => {
                    return Err(Error::InvalidArgument {
                        op: "fuse",
                        detail: format!(
                        "`{}` takes arrays; got {} (write constants inside the closure instead)",
                        self.name,
                        other.describe()
                    ),
                    })
                }
            }
        }
        let device = crate::api::kernels::args_device_pub("fuse", &args)?;
        // Only CUDA compiles the fused kernel; the CPU (and an expression
        // with no GPU form) runs the ufuncs one at a time.
        let result = if device.is_cuda() {
            let dtypes: Vec<DType> = arrays.iter().map(|a| a.dtype()).collect();
            match self.kernel(&dtypes)? {
                Some(k) => {
                    let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
                    let shape = crate::core::layout::broadcast_shapes("fuse", &shapes)?;
                    let n = crate::core::layout::checked_size("fuse", &shape)?;
                    let b = crate::backend::on("fuse", device)?;
                    let out = Array::from_parts(
                        b.empty("fuse", k.result, n)?,
                        crate::core::layout::Layout::contiguous(&shape),
                        k.result,
                    );
                    let inputs: Vec<crate::cuda::kernel_gen::elementwise::MapInput> = arrays
                        .iter()
                        .map(|a| crate::cuda::kernel_gen::elementwise::MapInput::Array(a.view()))
                        .collect();
                    crate::cuda::kernel_gen::elementwise::run_map_inputs(&k, &inputs, out.view())?;
                    return Ok(out);
                }
                None => eval(&self.root, &arrays)?,
            }
        } else {
            eval(&self.root, &arrays)?
        };
        match result {
            Val::A(a) => {
                // A bare input is returned as a copy, as a kernel would.
                if matches!(&*self.root.0, Node::Input(_)) {
                    a.copy()
                } else {
                    Ok(a)
                }
            }
            Val::S(_) => Err(Error::InvalidArgument {
                op: "fuse",
                detail: "the fused expression is a constant; it must use an input".into(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tanh_sin_becomes_one_device_function() {
        let f = fuse(|v: &Expr| (v.sin() + 0.1 * v).tanh()).name("tanh_sin");
        let src = f.source_for(&[DType::Float32]).unwrap().unwrap();
        assert!(
            src.contains("float _t1; { const float in0 = _p0; _t1 = (sin(in0)); }"),
            "{src}"
        );
        // The weak 0.1 takes the array's dtype, as in NumPy 2.
        assert!(
            src.contains("const float in0 = ((float)(1.0000000149011612e-1));"),
            "{src}"
        );
        dump(&f, &[DType::Float32], "fused_tanh_sin");
        assert!(src.contains("return _t4;"), "{src}");
        assert!(src.contains("// out = _cp_fused_"));
        let k = f.kernel(&[DType::Float32]).unwrap().unwrap();
        assert_eq!(k.result, DType::Float32);
        // Integers go to float64 as the ufuncs do.
        let k = f.kernel(&[DType::Int32]).unwrap().unwrap();
        assert_eq!(k.result, DType::Float64);
        // Complex sin has a GPU expression too (the table's complex arm).
        let k = f.kernel(&[DType::Complex64]).unwrap().unwrap();
        assert_eq!(k.result, DType::Complex64);
    }

    #[test]
    fn comparisons_and_supports_are_spelled_once() {
        let f = fuse(|x: &Expr, y: &Expr| (x % y).maximum(x.floor_divide(y)).greater(2));
        let src = f
            .source_for(&[DType::Float64, DType::Float64])
            .unwrap()
            .unwrap();
        assert_eq!(src.matches("py_fmod(T a, T b)").count(), 1, "{src}");
        assert!(src.contains("bool _t"), "{src}");
        dump(&f, &[DType::Float64, DType::Float64], "fused_mod_max");
        let g = fuse(|x: &Expr| (x * 3 + 1).square().abs() - x.isnan());
        dump(&g, &[DType::Int8], "fused_int8");
        dump(&g, &[DType::Float16], "fused_f16");
    }

    /// The device function in a small kernel, for the NVRTC check.
    fn dump(f: &Fused, dtypes: &[DType], name: &str) {
        use crate::ops::c_types::ctype;
        let k = f.kernel(dtypes).unwrap().unwrap();
        let params: Vec<String> = dtypes
            .iter()
            .enumerate()
            .map(|(i, d)| format!("const {} in{i}", ctype(*d)))
            .collect();
        let src = format!(
            "{}{}\nextern \"C\" __global__ void k({}, {}* out) {{ out[0] = {}; }}\n",
            crate::cuda::kernel_gen::codegen::PRELUDE,
            k.support,
            params.join(", "),
            ctype(k.result),
            k.expr
        );
        crate::cuda::kernel_gen::helpers::dump_source(name, &src);
    }
}
