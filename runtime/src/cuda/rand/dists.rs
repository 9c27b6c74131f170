//! The kernel of element-wise distributions (`dists.cu`): one thread per
//! element, each reading its own Philox substream, as the CPU backend's
//! `cpu/random/dists.rs` does.

use super::PHILOX;
use crate::core::dtype::DType;
use crate::cuda::kernel_gen::template::render;
use crate::ops::c_types::ctype;
use crate::ops::random::DistKind;

const DISTS: &str = include_str!("../kernels/rand_dists.cu");

/// The expression of `dists.cu` that draws one value of `kind` from
/// substream `s` with parameters `a`, `b` (`Dist`'s).
pub(super) fn sample_expr(kind: DistKind) -> &'static str {
    match kind {
        DistKind::Gamma => "b * standard_gamma(s, a)",
        DistKind::Beta => "sample_beta(s, a, b)",
        DistKind::Poisson => "sample_poisson(s, a)",
        DistKind::Binomial => "sample_binomial(s, a, b)",
        DistKind::Geometric => "sample_geometric(s, a)",
        DistKind::Laplace => "sample_laplace(s, a, b)",
        DistKind::Lognormal => "exp(a + b * sub_normal(s))",
    }
}

/// The kernel `cuprite_rng_dist` drawing `kind` into an array of `dtype`
/// (without the prelude).
pub(super) fn body(kind: DistKind, dtype: DType) -> String {
    let kernel = render(
        DISTS,
        &[("T", ctype(dtype)), ("SAMPLE", sample_expr(kind))],
        &[],
    );
    format!("{PHILOX}{kernel}")
}

#[cfg(test)]
mod tests {
    use super::super::tests::{fill_cpu_for_tests, HostCxx, HOST_SHIM};
    use super::*;
    use crate::ops::random::{Dist, Draw};

    /// Every distribution with parameters reaching each of its branches.
    fn cases() -> Vec<(Dist, DType)> {
        use DistKind::*;
        let (f, i) = (DType::Float64, DType::Int64);
        let cases = [
            (Gamma, 2.5, 3.0, f),
            (Gamma, 0.3, 1.0, DType::Float32),
            (Gamma, 0.0, 1.0, f),
            (Beta, 0.5, 0.7, f),
            (Beta, 2.0, 5.0, f),
            (Poisson, 3.5, 0.0, i),
            (Poisson, 250.0, 0.0, i),
            (Binomial, 20.0, 0.3, i),
            (Binomial, 1000.0, 0.7, i),
            (Geometric, 0.2, 0.0, i),
            (Laplace, 1.0, 2.0, f),
            (Lognormal, 0.5, 0.25, f),
        ];
        cases
            .into_iter()
            .map(|(kind, a, b, dtype)| (Dist { kind, a, b }, dtype))
            .collect()
    }

    #[test]
    fn kernels_compile_for_every_distribution() {
        for (dist, dtype) in cases() {
            let src = body(dist.kind, dtype);
            assert_eq!(src.matches("__global__").count(), 1);
            assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
            let name = format!("rng_dist_{dist:?}_{dtype}")
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_");
            let full = format!("{}{src}", crate::cuda::runtime::compile::PRELUDE);
            crate::cuda::kernel_gen::helpers::dump_source(&name, &full);
        }
    }

    /// The kernel body, compiled as host C++ (the CUDA math functions are
    /// the C library's there), computes the CPU backend's values.
    #[test]
    fn kernels_compute_the_cpu_samples() {
        let Some(host) = HostCxx::new("rng_dist") else {
            return;
        };
        let shim = format!(
            "{HOST_SHIM}static inline double cospi(double x) {{ return std::cos(M_PI * x); }}\n"
        );
        let n = 300usize;
        let key = [0x0bad_cafeu32, 0x1234_5678];
        let offset = 0xffff_ff00u64; // crosses into the high counter word
        for (ci, (dist, dtype)) in cases().into_iter().enumerate() {
            let (a, b) = (dist.a, dist.b);
            let t = ctype(dtype);
            let src = format!(
                "{shim}{}\nint main() {{ static {t} out[{n}]; cuprite_rng_dist(out, {n}, {}u, {}u, {offset}ull, {a:?}, {b:?});\n for (int i = 0; i < {n}; ++i) printf(\"%.17g\\n\", (double)out[i]); return 0; }}\n",
                body(dist.kind, dtype),
                key[0],
                key[1],
            );
            let got = host.run(&format!("dist{ci}"), &src);
            assert_eq!(got.len(), n, "case {ci}");
            let want = fill_cpu_for_tests(Draw::Sample(dist), dtype, n, key, offset);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                let (g, w): (f64, f64) = (g.parse().unwrap(), w.as_f64());
                assert!(
                    (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                    "case {ci} ({dist:?} {dtype}) value {i}: C++ {g} vs Rust {w}"
                );
            }
        }
    }
}
