//! Random-number kernels on the GPU: the Philox4x32-10 stream of the CPU
//! generator (`cp::random`), computed by a generated NVRTC kernel.
//!
//! Each thread turns one Philox block into 4 (32-bit draws) or 2 (64-bit
//! draws) consecutive values and stores them with one 16-byte (or smaller)
//! vector store when the output is aligned, so the kernel runs at memory
//! speed. The arithmetic mirrors `random::fill_cpu` operation by operation
//! (`__fadd_rn` / `__fmul_rn` keep the compiler from fusing into FMAs), so
//! integers and uniform values are bit-identical to the CPU backend.

use std::fmt::Write;

use super::compile::PRELUDE;
use super::elementwise::{ctype, new_array};
use super::helpers::{grid_1d, kernel, key, ptr};
use super::launch::{launch, KernelArgs, LaunchConfig};
use super::session::session;
use super::stream::current_stream;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::Draw;

/// Which transformation a kernel applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum KernelKind {
    Uniform,
    Normal,
    Exponential,
    Integers,
}

pub(crate) fn kind_of(d: Draw) -> KernelKind {
    match d {
        Draw::Uniform { .. } => KernelKind::Uniform,
        Draw::Normal { .. } => KernelKind::Normal,
        Draw::Exponential { .. } => KernelKind::Exponential,
        Draw::Integers { .. } => KernelKind::Integers,
    }
}

/// The Philox function and the kernel, without the prelude (so the unit
/// tests can compile it as host C++).
pub(crate) fn body(kind: KernelKind, dtype: DType, per: usize, aligned: bool) -> String {
    let t = ctype(dtype);
    let mut s = String::new();
    s.push_str(
        r#"
__device__ __forceinline__ void philox4x32_10(unsigned int c[4], unsigned int k0, unsigned int k1) {
  #pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    unsigned long long p0 = (unsigned long long)0xD2511F53u * c[0];
    unsigned long long p1 = (unsigned long long)0xCD9E8D57u * c[2];
    unsigned int hi0 = (unsigned int)(p0 >> 32), lo0 = (unsigned int)p0;
    unsigned int hi1 = (unsigned int)(p1 >> 32), lo1 = (unsigned int)p1;
    unsigned int n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
  }
}
"#,
    );
    let pack = per * dtype.itemsize();
    let _ = writeln!(
        s,
        "struct alignas({pack}) Pack {{ {t} v[{per}]; }};\n\
         extern \"C\" __global__ void cuprite_rng({t}* __restrict__ out, long long n, \
         unsigned int k0, unsigned int k1, unsigned long long offset, double a, double b, \
         long long ilow, unsigned long long range) {{"
    );
    let _ = writeln!(s, "  const long long blocks = (n + {per} - 1) / {per};");
    s.push_str(
        "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < blocks;\n       i += (long long)gridDim.x * blockDim.x) {\n",
    );
    s.push_str("    const unsigned long long blk = offset + (unsigned long long)i;\n");
    s.push_str("    unsigned int w[4] = {(unsigned int)blk, (unsigned int)(blk >> 32), 0u, 0u};\n");
    s.push_str("    philox4x32_10(w, k0, k1);\n");
    let _ = writeln!(s, "    {t} v[{per}];");
    let f32 = per == 4;
    match kind {
        KernelKind::Uniform if f32 => s.push_str(
            "    const float l = (float)a, sp = (float)b;\n\
             #pragma unroll\n\
             for (int q = 0; q < 4; ++q) {\n\
               float u = (float)(w[q] >> 8) * 5.9604644775390625e-08f;\n\
               v[q] = __fadd_rn(l, __fmul_rn(sp, u));\n\
             }\n",
        ),
        KernelKind::Uniform => s.push_str(
            "    #pragma unroll\n\
             for (int q = 0; q < 2; ++q) {\n\
               unsigned long long x = ((unsigned long long)w[2 * q] << 32) | w[2 * q + 1];\n\
               double u = (double)(x >> 11) * 1.1102230246251565404e-16;\n\
               v[q] = __dadd_rn(a, __dmul_rn(b, u));\n\
             }\n",
        ),
        // sin/cos from the special-function units (absolute error about
        // 4e-7 on [-pi, pi], hence the angle centred there and the signs
        // flipped back): the precise sincospif made this kernel compute
        // bound, 26% slower than CuPy's. The logarithm stays precise: the fast
        // one loses relative accuracy near 1, where the values near 0 come from.
        KernelKind::Normal if f32 => s.push_str(
            "    const float l = (float)a, sc = (float)b;\n\
             #pragma unroll\n\
             for (int q = 0; q < 2; ++q) {\n\
               float u1 = (float)((w[2 * q] >> 8) + 1u) * 5.9604644775390625e-08f;\n\
               float u2 = (float)(w[2 * q + 1] >> 8) * 5.9604644775390625e-08f;\n\
               float r = sqrtf(-2.0f * logf(u1));\n\
               float sn, cs;\n\
               __sincosf(6.2831853071795865f * (u2 - 0.5f), &sn, &cs);\n\
               v[2 * q] = __fadd_rn(l, __fmul_rn(sc, __fmul_rn(r, -cs)));\n\
               v[2 * q + 1] = __fadd_rn(l, __fmul_rn(sc, __fmul_rn(r, -sn)));\n\
             }\n",
        ),
        KernelKind::Normal => s.push_str(
            "    {\n\
               unsigned long long x1 = ((unsigned long long)w[0] << 32) | w[1];\n\
               unsigned long long x2 = ((unsigned long long)w[2] << 32) | w[3];\n\
               double u1 = (double)((x1 >> 11) + 1ull) * 1.1102230246251565404e-16;\n\
               double u2 = (double)(x2 >> 11) * 1.1102230246251565404e-16;\n\
               double r = sqrt(-2.0 * log(u1));\n\
               double sn, cs;\n\
               sincospi(2.0 * u2, &sn, &cs);\n\
               v[0] = __dadd_rn(a, __dmul_rn(b, __dmul_rn(r, cs)));\n\
               v[1] = __dadd_rn(a, __dmul_rn(b, __dmul_rn(r, sn)));\n\
             }\n",
        ),
        KernelKind::Exponential if f32 => s.push_str(
            "    const float sc = (float)a;\n\
             #pragma unroll\n\
             for (int q = 0; q < 4; ++q) {\n\
               float u = (float)((w[q] >> 8) + 1u) * 5.9604644775390625e-08f;\n\
               v[q] = __fmul_rn(sc, -logf(u));\n\
             }\n",
        ),
        KernelKind::Exponential => s.push_str(
            "    #pragma unroll\n\
             for (int q = 0; q < 2; ++q) {\n\
               unsigned long long x = ((unsigned long long)w[2 * q] << 32) | w[2 * q + 1];\n\
               double u = (double)((x >> 11) + 1ull) * 1.1102230246251565404e-16;\n\
               v[q] = __dmul_rn(a, -log(u));\n\
             }\n",
        ),
        KernelKind::Integers if f32 => {
            // Lemire with 32-bit words; a rejected word is redrawn from
            // counter word 2 = attempt, same block and lane.
            let _ = write!(
                s,
                "    const unsigned int r = (unsigned int)range;\n\
                 const unsigned int t = (0u - r) % r;\n\
                 for (int q = 0; q < 4; ++q) {{\n\
                   unsigned int x = w[q];\n\
                   unsigned long long m = (unsigned long long)x * r;\n\
                   unsigned int att = 0u;\n\
                   while ((unsigned int)m < t) {{\n\
                     ++att;\n\
                     unsigned int c2[4] = {{(unsigned int)blk, (unsigned int)(blk >> 32), att, 0u}};\n\
                     philox4x32_10(c2, k0, k1);\n\
                     x = c2[q];\n\
                     m = (unsigned long long)x * r;\n\
                   }}\n\
                   v[q] = ({t})((unsigned long long)ilow + (m >> 32));\n\
                 }}\n"
            );
        }
        KernelKind::Integers => {
            let _ = write!(
                s,
                "    const unsigned long long t = (0ull - range) % range;\n\
                 for (int q = 0; q < 2; ++q) {{\n\
                   unsigned long long x = ((unsigned long long)w[2 * q] << 32) | w[2 * q + 1];\n\
                   unsigned int att = 0u;\n\
                   while (x * range < t) {{\n\
                     ++att;\n\
                     unsigned int c2[4] = {{(unsigned int)blk, (unsigned int)(blk >> 32), att, 0u}};\n\
                     philox4x32_10(c2, k0, k1);\n\
                     x = ((unsigned long long)c2[2 * q] << 32) | c2[2 * q + 1];\n\
                   }}\n\
                   v[q] = ({t})((unsigned long long)ilow + __umul64hi(x, range));\n\
                 }}\n"
            );
        }
    }
    let _ = writeln!(s, "    const long long j = i * {per};");
    if aligned {
        let _ = writeln!(
            s,
            "    if (j + {per} <= n) {{\n      Pack p;\n      #pragma unroll\n      for (int q = 0; q < {per}; ++q) p.v[q] = v[q];\n      *reinterpret_cast<Pack*>(out + j) = p;\n      continue;\n    }}"
        );
    }
    let _ = writeln!(
        s,
        "    for (int q = 0; q < {per}; ++q) if (j + q < n) out[j + q] = v[q];"
    );
    s.push_str("  }\n}\n");
    s
}

/// A new C-contiguous array of `shape` on cuda:`ordinal` holding values
/// `0..n` of `draw` from Philox block `offset` on.
pub(crate) fn generate(
    op: &'static str,
    ordinal: usize,
    draw: Draw,
    dtype: DType,
    shape: &[usize],
    k: [u32; 2],
    offset: u64,
) -> Result<Array> {
    let s = session(ordinal)?;
    let out = new_array(op, ordinal, dtype, shape)?;
    let n = out.size();
    if n == 0 {
        return Ok(out);
    }
    let per = draw.per_block(dtype);
    let p = ptr(op, &out)?;
    let aligned = p % (per * dtype.itemsize()) as u64 == 0;
    let kind = kind_of(draw);
    let f = kernel(
        s,
        key(("cuprite_rng", kind, dtype, per, aligned)),
        "random",
        "cuprite_rng",
        || format!("{PRELUDE}{}", body(kind, dtype, per, aligned)),
    )?;
    let (a, b, ilow, range) = match draw {
        Draw::Uniform { low, span } => (low, span, 0i64, 1u64),
        Draw::Normal { loc, scale } => (loc, scale, 0, 1),
        Draw::Exponential { scale } => (scale, 0.0, 0, 1),
        Draw::Integers { low, range } => (0.0, 0.0, low, range),
    };
    let mut args = KernelArgs::new();
    args.push(p)
        .push(n as i64)
        .push(k[0])
        .push(k[1])
        .push(offset)
        .push(a)
        .push(b)
        .push(ilow)
        .push(range);
    let blocks = n.div_ceil(per);
    let threads = 256;
    let cfg = LaunchConfig {
        grid: (grid_1d(s, blocks, threads), 1, 1),
        block: (threads as u32, 1, 1),
        shared_mem_bytes: 0,
    };
    launch(s, "random", f, cfg, &current_stream(), &mut args)?;
    Ok(out)
}

// The Random family of the backend interface (`ops::backend`).
impl crate::ops::random::Random for super::CudaBackend {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_have_one_kernel_per_specialisation() {
        let src = body(KernelKind::Uniform, DType::Float32, 4, true);
        assert!(src.contains("extern \"C\" __global__ void cuprite_rng(float* __restrict__ out"));
        assert!(src.contains("struct alignas(16) Pack { float v[4]; };"));
        assert!(src.contains("*reinterpret_cast<Pack*>(out + j) = p;"));
        let src = body(KernelKind::Integers, DType::Int8, 4, false);
        assert!(src.contains("struct alignas(4) Pack { int8_t v[4]; };"));
        assert!(!src.contains("reinterpret_cast"));
        assert!(src.contains("v[q] = (int8_t)((unsigned long long)ilow + (m >> 32));"));
        let src = body(KernelKind::Integers, DType::UInt64, 2, true);
        assert!(src.contains("__umul64hi(x, range)"));
        for kind in [
            KernelKind::Uniform,
            KernelKind::Normal,
            KernelKind::Exponential,
        ] {
            for (dt, per) in [(DType::Float32, 4), (DType::Float64, 2)] {
                let src = body(kind, dt, per, true);
                crate::cuda::helpers::dump_source(&format!("rng_{kind:?}_{dt}"), &src);
                assert_eq!(src.matches("__global__").count(), 1);
            }
        }
    }
}
