//! Shared types of the matrix products.

use crate::core::error::Result;
use crate::core::view::View;

/// How float32 (and complex64) matrix products may trade precision for
/// speed on the GPU (`cp.set_matmul_precision`); float64 is never affected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum MatmulPrecision {
    /// Full float32 arithmetic (CuPy's default).
    #[default]
    Highest,
    /// TensorFloat-32 tensor cores (10-bit mantissa inputs, float32 accumulation).
    TF32,
    /// Inputs rounded to float16 on tensor cores, float32 accumulation.
    FP16,
}

/// Matrix products (cuBLAS on CUDA).
/// The backend trait of this op family (see `ops::backend`).
pub(crate) trait Matmul {
    /// `out = a @ b` for `a` (..., m, k) and `b` (..., k, n) of `out`'s dtype,
    /// whose batch axes broadcast to those of `out` (C-contiguous
    /// (batch..., m, n)); integers wrap and bools give `any(a & b)`, as NumPy.
    fn matmul(&self, a: View<'_>, b: View<'_>, out: View<'_>, p: MatmulPrecision) -> Result<()>;

    /// One classical Gram-Schmidt pass of `w` against the rows of `v` (a
    /// Krylov basis step), fused: `h = v w`, `w_out = w - v^T h`, and
    /// `coeffs = [h_0 .. h_{len-1}, ||w||^2, ||w_out||^2]`, every sum in
    /// float64 (the squared norm of `w_out` as stored).
    ///
    /// `v` is (len, n) and C-contiguous (`len` may be 0), `w` and `w_out`
    /// are C-contiguous (n,), all three float32 or all float64; `w_out`
    /// is `w` itself (a pass in place) or overlaps neither `v` nor `w`;
    /// `coeffs` is C-contiguous float64 (len + 2,) apart from the others.
    fn gram_schmidt_pass(
        &self,
        v: View<'_>,
        w: View<'_>,
        w_out: View<'_>,
        coeffs: View<'_>,
    ) -> Result<()>;
}
