//! User kernels: [`ElementwiseKernel`], [`ReductionKernel`], [`RawKernel`]
//! and [`RawModule`], with CuPy's parameter syntax and launch conventions.
//!
//! Parameters are written as in CuPy: `"float32 x, raw T y, T z"` (a dtype
//! name or a one-letter type placeholder, optionally `raw`, then a name).
//! Arguments are passed as a tuple of arrays and Rust scalars,
//! `k.call((&x, 2.0f32, 1.0f32))`, or as a slice of [`Arg`]s.
//!
//! Parsing, type resolution and the generated CUDA source work on every
//! backend (and are tested on the CPU); running the kernels needs CUDA, and
//! the CPU backend answers [`Error::NeedsCuda`](crate::Error::NeedsCuda).

pub(crate) mod args;
pub(crate) mod elementwise;
pub(crate) mod params;
pub(crate) mod raw;
mod reduction;

pub use args::{Arg, DevicePtr, Dim3, IntoArg, IntoArgs, IntoDim3};
pub use elementwise::ElementwiseKernel;
pub use params::{parse_params, Param, ParamType};
pub use raw::{RawKernel, RawModule};
pub use reduction::ReductionKernel;

/// The one device of the array arguments (for `cp::fuse`).
pub(crate) fn args_device_pub(op: &'static str, args: &[Arg<'_>]) -> crate::Result<crate::Device> {
    args::args_device(op, args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::kernel_gen::helpers::dump_source;
    use crate::{DType, Device};

    fn cpu<T>(f: impl FnOnce() -> T) -> T {
        crate::with_device(Device::Cpu, f)
    }

    /// The sources of the workshop's kernels for several layouts; with
    /// `CUPRITE_DUMP_KERNELS=dir` they are written out for an NVRTC check.
    #[test]
    fn generated_sources_cover_the_workshop_examples() {
        cpu(|| {
            let x = crate::arange(8).unwrap().astype(DType::Float32).unwrap();
            let m = crate::arange(12)
                .unwrap()
                .astype(DType::Float32)
                .unwrap()
                .reshape([3, 4])
                .unwrap();
            let axpb = ElementwiseKernel::new(
                "float32 x, float32 a, float32 b",
                "float32 y",
                "y = a * x + b;",
                "axpb",
            )
            .unwrap();
            let src = axpb.source_for((&x, 2.0, 1.0)).unwrap();
            assert!(src.contains("const float _v0_x = _raw_x[_i];"));
            dump_source("axpb", &src);
            let leaky = ElementwiseKernel::new(
                "T x, T alpha",
                "T y",
                "y = x > 0 ? x : alpha * x;",
                "leaky_relu",
            )
            .unwrap();
            let src = leaky.source_for((&m.t(), 0.1f32)).unwrap();
            assert!(src.contains("typedef float T;"));
            assert!(src.contains("_cp_Geo"), "a transposed input is strided");
            dump_source("leaky_relu_strided", &src);
            let raw = ElementwiseKernel::new(
                "raw T x, int64 n",
                "T y",
                "y = x[n - 1 - i] + (T)_ind.size();",
                "reverse",
            )
            .unwrap();
            let out = crate::zeros([8], DType::Float64).unwrap();
            let src = raw
                .source_for((&x.astype(DType::Float64).unwrap(), 8i64, &out))
                .unwrap();
            assert!(src.contains("const CArray<double, 1, true>& x"));
            dump_source("reverse_raw", &src);
            let bcast = ElementwiseKernel::new("T x, T y", "T z", "z = x * y", "mul_b").unwrap();
            let col = crate::arange(3)
                .unwrap()
                .astype(DType::Float32)
                .unwrap()
                .reshape([3, 1])
                .unwrap();
            let src = bcast.source_for((&m, &col)).unwrap();
            dump_source("mul_broadcast", &src);
            let cplx = ElementwiseKernel::new(
                "complex64 z, float64 w",
                "complex128 r",
                "r = mk<double>(z.re * w, z.im);",
                "cplx_scale",
            )
            .unwrap();
            let zc = x.astype(DType::Complex64).unwrap();
            dump_source("cplx", &cplx.source_for((&zc, &x)).unwrap());

            // A max-reduction of magnitudes: a map, a non-additive reduce
            // and a post-map through the generator.
            let max_abs = ReductionKernel::new(
                "float32 x",
                "float32 y",
                "fabsf(x)",
                "fmaxf(a, b)",
                "y = a * 1.0f",
                "0",
                "max_abs",
            )
            .unwrap();
            dump_source("max_abs", &max_abs.source_for(&x, None, false).unwrap());
            let l2 =
                ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
                    .unwrap();
            let src = l2.source_for(&m.t(), Some(&[1]), true).unwrap();
            dump_source("l2norm_rows", &src);
            let dot = ReductionKernel::new(
                "T x, T y, T s",
                "T z",
                "x * y * s",
                "a + b",
                "z = a / _in_ind.size() * _out_ind.size()",
                "0",
                "scaled_mean_dot",
            )
            .unwrap()
            .reduce_type("float64");
            let src = dot.source_for((&m, &m, 2.0f32), Some(&[0]), false).unwrap();
            assert!(src.contains("typedef double _type_reduce;"));
            dump_source("scaled_mean_dot", &src);
            let mx = ReductionKernel::new("T x", "T y", "x", "max(a, b)", "y = a", "-1e30", "maxk")
                .unwrap();
            dump_source(
                "max_i32",
                &mx.source_for(
                    &crate::arange(10)
                        .unwrap()
                        .astype(DType::Int32)
                        .unwrap()
                        .reshape([2, 5])
                        .unwrap()
                        .t(),
                    Some(&[0, 1]),
                    false,
                )
                .unwrap(),
            );
        });
    }

    #[test]
    fn cpu_calls_are_checked_then_need_cuda() {
        cpu(|| {
            let x = crate::arange(8).unwrap().astype(DType::Float32).unwrap();
            let k =
                ElementwiseKernel::new("float32 x, float32 a", "float32 y", "y = a * x;", "scale")
                    .unwrap();
            let e = k.call((&x, 2.0f32)).unwrap_err();
            assert!(matches!(e, crate::Error::NeedsCuda { .. }), "{e}");
            assert!(e.to_string().contains("`scale`"), "{e}");
            // Bad arguments are reported before the device is considered.
            let e = k.call((&x,)).unwrap_err();
            assert!(e.to_string().contains("takes 2 inputs (x, a)"), "{e}");
        });
    }
}
