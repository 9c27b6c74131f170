//! Random-number kernels on the GPU: the Philox4x32-10 stream of the CPU
//! generator (`cp::random`), computed by a generated NVRTC kernel.
//!
//! Each thread turns one Philox block into 4 (32-bit draws) or 2 (64-bit
//! draws) consecutive values and stores them with one 16-byte (or smaller)
//! vector store when the output is aligned, so the kernel runs at memory
//! speed. The arithmetic mirrors the CPU backend's `fill_cpu` (`cpu/random.rs`) operation by operation
//! (`__fadd_rn` / `__fmul_rn` keep the compiler from fusing into FMAs), so
//! integers and uniform values are bit-identical to the CPU backend.

use std::fmt::Write;

use super::compile::PRELUDE;
use super::elementwise::ctype;
use super::helpers::{grid_1d, kernel, key};
use super::launch::{launch, KernelArgs, LaunchConfig};
use super::session::session;
use super::stream::current_stream;
use crate::dtype::DType;
use crate::error::Result;
use crate::ops::random::{Draw, Random};
use crate::storage::Storage;

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

// The Random family of the backend interface (`ops::backend`).
impl Random for super::CudaBackend {
    fn draw(
        &self,
        op: &'static str,
        draw: Draw,
        dtype: DType,
        n: usize,
        k: [u32; 2],
        offset: u64,
    ) -> Result<Storage> {
        let s = session(self.ordinal)?;
        let out = super::transfer::alloc(op, self.ordinal, dtype, n)?;
        if n == 0 {
            return Ok(Storage::Cuda(out));
        }
        let per = draw.per_block(dtype);
        let p = out.buffer.ptr;
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
        Ok(Storage::Cuda(out))
    }
}

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

    /// The CPU backend's values `0..n` of `draw` in `dtype`, as scalars.
    fn fill_cpu_for_tests(
        draw: Draw,
        dtype: DType,
        n: usize,
        key: [u32; 2],
        offset: u64,
    ) -> Vec<crate::Scalar> {
        use crate::element::Element;
        let s = crate::cpu::CpuBackend
            .draw("test", draw, dtype, n, key, offset)
            .unwrap();
        let layout = crate::layout::Layout::contiguous(&[n]);
        let v = crate::view::View::new(&s, &layout, dtype);
        crate::with_dtype!(dtype, T => v.gather::<T>().into_iter().map(|x| x.to_scalar()).collect())
    }

    /// Host C++ standing in for the CUDA built-ins the kernels use, so the
    /// generated body can run on the CPU (one thread walking every block).
    const HOST_SHIM: &str = r#"
#include <cmath>
#include <cstdio>
#include <cstdint>
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__
struct Dim3 { unsigned int x, y, z; };
static Dim3 blockIdx = {0, 0, 0}, threadIdx = {0, 0, 0}, gridDim = {1, 1, 1}, blockDim = {1, 1, 1};
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline void host_sincosf(float x, float* s, float* c) { *s = std::sin(x); *c = std::cos(x); }
#define __sincosf host_sincosf
static inline void sincospi(double x, double* s, double* c) { *s = std::sin(M_PI * x); *c = std::cos(M_PI * x); }
"#;

    /// Compiles the generated body with the host C++ compiler and compares
    /// its output bits with the Rust implementation (exact for uniforms and
    /// integers). Skipped when no `c++` is installed.
    #[test]
    fn generated_kernels_compute_the_cpu_stream() {
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        if std::process::Command::new(&cxx)
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("skipped: no host C++ compiler ({cxx})");
            return;
        }
        let dir = std::env::temp_dir().join(format!("cuprite_rng_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = 23usize; // not a multiple of 4: exercises the tail
        let key = [0x1234_5678u32, 0x9abc_def0];
        let offset = 0xffff_fffeu64; // crosses into the high counter word
        let cases: Vec<(Draw, DType)> = vec![
            (
                Draw::Uniform {
                    low: 0.0,
                    span: 1.0,
                },
                DType::Float32,
            ),
            (
                Draw::Uniform {
                    low: -2.0,
                    span: 5.0,
                },
                DType::Float64,
            ),
            (
                Draw::Normal {
                    loc: 1.0,
                    scale: 2.0,
                },
                DType::Float32,
            ),
            (
                Draw::Normal {
                    loc: 0.0,
                    scale: 1.0,
                },
                DType::Float64,
            ),
            (Draw::Exponential { scale: 3.0 }, DType::Float32),
            (Draw::Exponential { scale: 0.5 }, DType::Float64),
            (Draw::Integers { low: -5, range: 11 }, DType::Int32),
            (
                Draw::Integers {
                    low: 0,
                    range: (1 << 31) + 1,
                },
                DType::Int64,
            ),
            (
                Draw::Integers {
                    low: -100,
                    range: 200,
                },
                DType::Int8,
            ),
            (
                Draw::Integers {
                    low: 7,
                    range: u64::MAX / 3,
                },
                DType::UInt64,
            ),
            (
                Draw::Integers {
                    low: i64::MIN,
                    range: u64::MAX,
                },
                DType::Int64,
            ),
        ];
        for (ci, (draw, dtype)) in cases.into_iter().enumerate() {
            let per = draw.per_block(dtype);
            let t = ctype(dtype);
            let (a, b, ilow, range) = match draw {
                Draw::Uniform { low, span } => (low, span, 0i64, 1u64),
                Draw::Normal { loc, scale } => (loc, scale, 0, 1),
                Draw::Exponential { scale } => (scale, 0.0, 0, 1),
                Draw::Integers { low, range } => (0.0, 0.0, low, range),
            };
            let print = if dtype.is_float() {
                "printf(\"%.17g\\n\", (double)out[i]);"
            } else if dtype.is_signed_integer() {
                "printf(\"%lld\\n\", (long long)out[i]);"
            } else {
                "printf(\"%llu\\n\", (unsigned long long)out[i]);"
            };
            let src = format!(
                "{HOST_SHIM}{}\nint main() {{ alignas(16) static {t} out[64]; cuprite_rng(out, {n}, {}u, {}u, {offset}ull, {a:?}, {b:?}, {ilow}ll, {range}ull);\n for (int i = 0; i < {n}; ++i) {{ {print} }} return 0; }}\n",
                body(kind_of(draw), dtype, per, ci % 2 == 0),
                key[0],
                key[1],
            )
            .replace("-9223372036854775808ll", "(-9223372036854775807ll - 1)");
            let cpp = dir.join(format!("case{ci}.cpp"));
            let exe = dir.join(format!("case{ci}"));
            std::fs::write(&cpp, &src).unwrap();
            let st = std::process::Command::new(&cxx)
                .args(["-O1", "-ffp-contract=off", "-o"])
                .arg(&exe)
                .arg(&cpp)
                .output()
                .unwrap();
            assert!(
                st.status.success(),
                "case {ci}: {}",
                String::from_utf8_lossy(&st.stderr)
            );
            let run = std::process::Command::new(&exe).output().unwrap();
            let text = String::from_utf8_lossy(&run.stdout);
            let got: Vec<&str> = text.lines().collect();
            assert_eq!(got.len(), n, "case {ci}");
            let want = fill_cpu_for_tests(draw, dtype, n, key, offset);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                if dtype.is_float() {
                    let (g, w): (f64, f64) = (g.parse().unwrap(), w.as_f64());
                    let exact = matches!(draw, Draw::Uniform { .. });
                    let tol = if exact {
                        0.0
                    } else if dtype == DType::Float32 {
                        1e-6 * w.abs().max(1.0)
                    } else {
                        1e-14 * w.abs().max(1.0)
                    };
                    assert!(
                        (g - w).abs() <= tol,
                        "case {ci} ({draw:?} {dtype}) value {i}: C++ {g} vs Rust {w}"
                    );
                } else {
                    let g: i128 = g.parse().unwrap();
                    let w: i128 = match w {
                        crate::Scalar::UInt(u) => *u as i128,
                        other => other.as_i64() as i128,
                    };
                    assert_eq!(g, w, "case {ci} ({draw:?} {dtype}) value {i}");
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
