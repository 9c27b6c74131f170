//! The CUDA halves of the ufunc table's rows (`ops/ufunc.rs`) as C
//! expressions for one loop dtype, ready for the elementwise generator,
//! `fuse` and the small-op batch interpreter.

use crate::core::dtype::DType;
use crate::ops::c_types::ctype;
use crate::ops::ufunc::{gpu_compute_dtype, GpuResult, Ufunc};

/// The expression of one ufunc for one loop dtype.
pub(crate) struct Expr {
    /// The dtype inputs are converted to before the expression sees them.
    pub compute: DType,
    /// C expression over `in0` (and `in1`).
    pub expr: String,
    /// The dtype of the expression's value.
    pub result: DType,
    /// Helper definitions the expression needs.
    pub support: &'static str,
}

/// `op` over `in0` (and `in1`) with loop dtype `dt`; `None` where the op has
/// no loop for `dt` (type resolution refuses those dtypes first).
pub(crate) fn expr(op: Ufunc, dt: DType) -> Option<Expr> {
    let g = op.gpu(dt)?;
    let compute = gpu_compute_dtype(dt);
    let mut text = g.expr.to_string();
    if text.contains("@MAX@") {
        text = text.replace("@MAX@", &largest_finite(dt));
    }
    if g.wrap {
        text = wrap(compute, &text);
    }
    let result = match g.result {
        GpuResult::Same => compute,
        GpuResult::Bool => DType::Bool,
        GpuResult::Real => compute.real_dtype(),
    };
    Some(Expr {
        compute,
        expr: text,
        result,
        support: g.support,
    })
}

/// Small integer arithmetic promotes to int in C; convert back so it wraps.
fn wrap(c: DType, e: &str) -> String {
    match c {
        DType::Int8 | DType::Int16 | DType::UInt8 | DType::UInt16 | DType::Bool => {
            format!("({})({e})", ctype(c))
        }
        _ => e.to_string(),
    }
}

/// The largest finite value of a float dtype (of the parts, for complex) as a C literal.
fn largest_finite(dt: DType) -> String {
    let v = match dt.real_dtype() {
        DType::Float16 => half::f16::MAX.to_f64(),
        DType::BFloat16 => half::bf16::MAX.to_f64(),
        DType::Float32 => f32::MAX as f64,
        _ => f64::MAX,
    };
    format!("{v:e}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::ufunc::{Binary, Unary};

    #[test]
    fn rows_become_the_expressions_kernels_use() {
        let e = expr(Ufunc::Binary(Binary::Add), DType::Int8).unwrap();
        assert_eq!(e.expr, "(int8_t)(in0 + in1)");
        assert_eq!((e.compute, e.result), (DType::Int8, DType::Int8));
        let e = expr(Ufunc::Unary(Unary::Sqrt), DType::Float16).unwrap();
        assert_eq!((e.expr.as_str(), e.compute), ("sqrt(in0)", DType::Float32));
        let e = expr(Ufunc::Unary(Unary::Absolute), DType::Complex64).unwrap();
        assert_eq!(e.result, DType::Float32);
        let e = expr(Ufunc::Unary(Unary::NanToNum), DType::Float16).unwrap();
        assert!(e.expr.contains("6.5504e4"), "{}", e.expr);
        assert!(expr(Ufunc::Unary(Unary::Cbrt), DType::Complex64).is_none());
    }

    /// Every row's expression for every loop dtype it covers, in one kernel,
    /// compiled by NVRTC where it is present (CI installs it).
    #[test]
    fn every_row_compiles_for_every_loop_dtype() {
        let mut supports: Vec<&str> = Vec::new();
        let mut body = String::new();
        let mut n = 0;
        for op in Ufunc::all() {
            for dt in DType::ALL {
                let Some(e) = expr(op, dt) else { continue };
                if !e.support.is_empty() && !supports.contains(&e.support) {
                    supports.push(e.support);
                }
                let args: Vec<String> = (0..op.arity())
                    .map(|k| format!("const {} in{k}", ctype(e.compute)))
                    .collect();
                body.push_str(&format!(
                    "__device__ {} k{n}({}) {{ return {}; }} // {} {dt}\n",
                    ctype(e.result),
                    args.join(", "),
                    e.expr,
                    op.name()
                ));
                n += 1;
            }
        }
        let src = format!(
            "{}{}\n{body}",
            crate::cuda::runtime::compile::PRELUDE,
            supports.concat()
        );
        crate::cuda::kernel_gen::helpers::dump_source("ufunc_table_rows", &src);
    }
}
