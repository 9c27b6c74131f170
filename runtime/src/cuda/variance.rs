//! `var` and `std` on the GPU in two passes, as the CPU backend computes
//! them: the mean of each output (a reduction in the mean's accumulator
//! type), then the sum of squared deviations `|x - mean|^2` (an elementwise
//! kernel into a temporary, reduced with the same axes), divided by
//! `max(n - ddof, 0)`. Complex input gives a real result; integers and
//! bool give float64; float16 and bfloat16 accumulate in float32.

use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::layout::Layout;
use crate::core::storage::Storage;
use crate::core::view::View;
use crate::cuda::kernel_gen::elementwise::{run_map, MapKernel};
use crate::cuda::kernel_gen::helpers::ordinal;
use crate::cuda::kernel_gen::reduce::{run_reduce, ReduceSpec};
use crate::cuda::runtime::transfer::alloc;
use crate::ops::c_types::{cast_expr, ctype};

/// The accumulator type of the mean (`Num::Mean` of the CPU backend).
pub(crate) fn mean_dtype(dt: DType) -> DType {
    if dt.is_inexact() {
        dt.compute_dtype()
    } else {
        DType::Float64
    }
}

/// The result dtype of `var` / `std` (the table's, `ops::reduce`).
fn var_dtype(dt: DType) -> DType {
    crate::ops::reduce::ReduceOp::Var(0).result(dt)
}

/// `count` converted as the CPU converts the element count (through f64).
fn count_as(real: DType, count: &str) -> String {
    format!("(({})(double)({count}))", ctype(real))
}

/// The reduction giving the mean of each output in its accumulator type.
pub(crate) fn mean_spec(name: &'static str, dt: DType) -> ReduceSpec {
    let acc = mean_dtype(dt);
    let real = acc.real_dtype();
    let n = count_as(real, "count");
    let post = if acc.is_complex() {
        format!("mk<{r}>(acc.re / {n}, acc.im / {n})", r = ctype(real))
    } else {
        format!("(acc / {n})")
    };
    ReduceSpec {
        name,
        compute: acc,
        map: "in0".into(),
        acc,
        identity: crate::ops::c_types::scalar_literal(crate::Scalar::Int(0), acc),
        combine: "a + b".into(),
        post,
        result: acc,
        support: String::new(),
    }
}

/// The elementwise kernel `|in0 - in1|^2` over the mean's accumulator type.
pub(crate) fn deviation_kernel(dt: DType) -> MapKernel {
    let acc = mean_dtype(dt);
    let real = acc.real_dtype();
    let (expr, support) = if acc.is_complex() {
        let r = ctype(real);
        (
            "cuprite_sqdev(in0, in1)".to_string(),
            format!(
                "__device__ __forceinline__ {r} cuprite_sqdev(cplx<{r}> a, cplx<{r}> b) {{ const {r} re = a.re - b.re, im = a.im - b.im; return re * re + im * im; }}\n"
            ),
        )
    } else {
        ("(in0 - in1) * (in0 - in1)".to_string(), String::new())
    };
    MapKernel::new("var_deviation".into(), vec![acc, acc], expr, real, support)
}

/// The reduction of squared deviations into the variance (or its square
/// root), divided by `max(count - ddof, 0)` and cast to the result dtype.
pub(crate) fn sum_spec(name: &'static str, dt: DType, ddof: usize, sqrt: bool) -> ReduceSpec {
    let real = mean_dtype(dt).real_dtype();
    let div = count_as(
        real,
        &format!("(count > {ddof}LL ? count - {ddof}LL : 0LL)"),
    );
    let v = format!("(acc / {div})");
    let v = if sqrt {
        let f = if real == DType::Float32 {
            "sqrtf"
        } else {
            "sqrt"
        };
        format!("{f}{v}")
    } else {
        v
    };
    ReduceSpec {
        name,
        compute: real,
        map: "in0".into(),
        acc: real,
        identity: crate::ops::c_types::scalar_literal(crate::Scalar::Int(0), real),
        combine: "a + b".into(),
        post: cast_expr(real, var_dtype(dt), &v),
        result: var_dtype(dt),
        support: String::new(),
    }
}

/// The variance (`sqrt`: standard deviation) of `x` over `axes`
/// (normalised, increasing) into `out` (C-contiguous, one element per
/// index of `x`'s kept axes in order, of dtype `var_dtype`).
pub(crate) fn var(
    x: View<'_>,
    axes: &[usize],
    ddof: usize,
    sqrt: bool,
    out: View<'_>,
) -> Result<()> {
    let name: &'static str = if sqrt { "std" } else { "var" };
    let ord = ordinal(name, x)?;
    let dt = x.dtype();
    let keep_shape: Vec<usize> = (0..x.ndim())
        .map(|a| if axes.contains(&a) { 1 } else { x.shape()[a] })
        .collect();
    let (mean_dt, dev_dt) = (mean_dtype(dt), mean_dtype(dt).real_dtype());
    let mean = Storage::Cuda(alloc(name, ord, mean_dt, out.size())?);
    let mean_layout = Layout::contiguous(&keep_shape);
    run_reduce(
        &mean_spec(name, dt),
        x,
        axes,
        View::new(&mean, &mean_layout, mean_dt),
    )?;
    let dev = Storage::Cuda(alloc(name, ord, dev_dt, x.size())?);
    let dev_layout = Layout::contiguous(x.shape());
    run_map(
        &deviation_kernel(dt),
        &[x, View::new(&mean, &mean_layout, mean_dt)],
        View::new(&dev, &dev_layout, dev_dt),
    )?;
    run_reduce(
        &sum_spec(name, dt, ddof, sqrt),
        View::new(&dev, &dev_layout, dev_dt),
        axes,
        out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes_follow_the_cpu_backend() {
        assert_eq!(mean_dtype(DType::Int8), DType::Float64);
        assert_eq!(mean_dtype(DType::Float16), DType::Float32);
        assert_eq!(var_dtype(DType::Float16), DType::Float16);
        assert_eq!(var_dtype(DType::Complex64), DType::Float32);
        assert_eq!(var_dtype(DType::Bool), DType::Float64);
        assert_eq!(
            sum_spec("var", DType::Complex128, 0, false).acc,
            DType::Float64
        );
    }

    #[test]
    fn expressions_divide_as_the_cpu_does() {
        let m = mean_spec("var", DType::Float16);
        assert_eq!(m.post, "(acc / ((float)(double)(count)))");
        assert_eq!(m.result, DType::Float32);
        let m = mean_spec("var", DType::Complex64);
        assert_eq!(
            m.post,
            "mk<float>(acc.re / ((float)(double)(count)), acc.im / ((float)(double)(count)))"
        );
        let v = sum_spec("std", DType::Float16, 1, true);
        assert_eq!(
            v.post,
            "make_f16((float)(sqrtf(acc / ((float)(double)((count > 1LL ? count - 1LL : 0LL))))))"
        );
        let v = sum_spec("var", DType::Int32, 0, false);
        assert_eq!(
            v.post,
            "(acc / ((double)(double)((count > 0LL ? count - 0LL : 0LL))))"
        );
        let k = deviation_kernel(DType::Complex128);
        assert_eq!(k.result, DType::Float64);
        assert!(k
            .support
            .contains("double cuprite_sqdev(cplx<double> a, cplx<double> b)"));
        assert_eq!(
            &*deviation_kernel(DType::UInt8).expr,
            "(in0 - in1) * (in0 - in1)"
        );
    }

    /// The expressions in the context the reduction and map kernels give
    /// them (`acc`, `count`, `in0`, `in1`), for an NVRTC compile check.
    #[test]
    fn expressions_compile_in_context() {
        for dt in DType::ALL {
            let m = mean_spec("var", dt);
            let v = sum_spec("std", dt, 1, true);
            let k = deviation_kernel(dt);
            let mut src = String::from(crate::cuda::runtime::compile::PRELUDE);
            src.push_str(&k.support);
            src.push_str(&format!(
                "extern \"C\" __global__ void f({m_acc}* mean, {r}* dev, {o}* out, const {m_acc}* x, long long count) {{\n",
                m_acc = ctype(m.acc),
                r = ctype(v.acc),
                o = ctype(v.result)
            ));
            src.push_str(&format!(
                "  {{ {a} a = x[0], b = x[1]; {a} acc = {}; mean[0] = {}; }}\n",
                m.combine,
                m.post,
                a = ctype(m.acc)
            ));
            src.push_str(&format!(
                "  {{ const {a} in0 = x[0], in1 = mean[0]; dev[0] = {}; }}\n",
                k.expr,
                a = ctype(m.acc)
            ));
            src.push_str(&format!(
                "  {{ {r} a = dev[0], b = dev[1]; {r} acc = {}; out[0] = {}; }}\n}}\n",
                v.combine,
                v.post,
                r = ctype(v.acc)
            ));
            crate::cuda::kernel_gen::helpers::dump_source(&format!("var_{}", dt.name()), &src);
        }
    }
}
