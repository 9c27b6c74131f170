//! Random-number kernels on the GPU: the Philox4x32-10 stream of the CPU
//! generator (`cp::random`), computed by a generated NVRTC kernel.
//!
//! Each thread turns one Philox block into 4 (32-bit draws) or 2 (64-bit
//! draws) consecutive values and stores them with one 16-byte (or smaller)
//! vector store when the output is aligned, so the kernel runs at memory
//! speed. The arithmetic mirrors the CPU backend's `fill_cpu` (`cpu/random.rs`) operation by operation
//! (`__fadd_rn` / `__fmul_rn` keep the compiler from fusing into FMAs), so
//! integers and uniform values are bit-identical to the CPU backend.

mod dists;

use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::storage::Storage;
use crate::cuda::kernel_gen::helpers::{grid_1d, kernel, key};
use crate::cuda::kernel_gen::template::render;
use crate::cuda::runtime::compile::PRELUDE;
use crate::cuda::runtime::launch::{launch, KernelArgs, LaunchConfig};
use crate::cuda::runtime::session::session;
use crate::cuda::runtime::stream::current_stream;
use crate::ops::c_types::ctype;
use crate::ops::random::{Draw, DrawJob, Random};

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
        // Element-wise samples have their own kernel (`dists`); never asked.
        Draw::Normal { .. } | Draw::Sample(_) => KernelKind::Normal,
        Draw::Exponential { .. } => KernelKind::Exponential,
        Draw::Integers { .. } => KernelKind::Integers,
    }
}

/// The Philox function and the kernel, without the prelude (so the unit
/// tests can compile it as host C++): `rand.cu` with the transformation of
/// `kind` for 4 (32-bit words, `per == 4`) or 2 values a block, and the
/// vector store when the output is `aligned` to a whole pack.
pub(crate) fn body(kind: KernelKind, dtype: DType, per: usize, aligned: bool) -> String {
    let width = if per == 4 { "F32" } else { "F64" };
    let kind = match kind {
        KernelKind::Uniform => "UNIFORM",
        KernelKind::Normal => "NORMAL",
        KernelKind::Exponential => "EXPONENTIAL",
        KernelKind::Integers => "INTEGERS",
    };
    let transform = format!("{kind}_{width}");
    let mut on = vec![transform.as_str()];
    if aligned {
        on.push("ALIGNED");
    }
    let kernel = render(
        RAND,
        &[
            ("T", ctype(dtype)),
            ("PER", &per.to_string()),
            ("PACK", &(per * dtype.itemsize()).to_string()),
        ],
        &on,
    );
    format!("{PHILOX}{kernel}")
}

/// The kernel template (`cuda/kernel_gen/template.rs`).
const RAND: &str = include_str!("kernels/rand.cu");

/// The Philox4x32-10 device function every random kernel starts with.
const PHILOX: &str = include_str!("kernels/philox.cu");

// The Random family of the backend interface (`ops::backend`).
impl Random for super::CudaBackend {
    fn draw(&self, op: &'static str, job: DrawJob) -> Result<Storage> {
        let DrawJob {
            draw,
            dtype,
            len: n,
            key: k,
            offset,
        } = job;
        let s = session(self.ordinal)?;
        let out = crate::cuda::runtime::transfer::alloc(op, self.ordinal, dtype, n)?;
        if n == 0 {
            return Ok(Storage::Cuda(out));
        }
        let per = draw.per_block(dtype);
        let p = out.buffer.ptr;
        let mut args = KernelArgs::new();
        args.push(p)
            .push(n as i64)
            .push(k[0])
            .push(k[1])
            .push(offset);
        let f = if let Draw::Sample(dist) = draw {
            args.push(dist.a).push(dist.b);
            kernel(
                s,
                key(("cuprite_rng_dist", dist.kind, dtype)),
                "random",
                "cuprite_rng_dist",
                || format!("{PRELUDE}{}", dists::body(dist.kind, dtype)),
            )?
        } else {
            let aligned = p % (per * dtype.itemsize()) as u64 == 0;
            let kind = kind_of(draw);
            let (a, b, ilow, range) = kernel_params(draw);
            args.push(a).push(b).push(ilow).push(range);
            kernel(
                s,
                key(("cuprite_rng", kind, dtype, per, aligned)),
                "random",
                "cuprite_rng",
                || format!("{PRELUDE}{}", body(kind, dtype, per, aligned)),
            )?
        };
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

/// The `(a, b, ilow, range)` arguments of `cuprite_rng` for a block-wise draw.
fn kernel_params(draw: Draw) -> (f64, f64, i64, u64) {
    match draw {
        Draw::Uniform { low, span } => (low, span, 0, 1),
        Draw::Normal { loc, scale } => (loc, scale, 0, 1),
        Draw::Exponential { scale } => (scale, 0.0, 0, 1),
        Draw::Integers { low, range } => (0.0, 0.0, low, range),
        Draw::Sample(dist) => (dist.a, dist.b, 0, 1),
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
                crate::cuda::kernel_gen::helpers::dump_source(&format!("rng_{kind:?}_{dt}"), &src);
                assert_eq!(src.matches("__global__").count(), 1);
                assert_eq!(crate::cuda::kernel_gen::template::unfilled(&src), None);
            }
        }
    }

    /// The CPU backend's values `0..n` of `draw` in `dtype`, as scalars.
    pub(super) fn fill_cpu_for_tests(
        draw: Draw,
        dtype: DType,
        n: usize,
        key: [u32; 2],
        offset: u64,
    ) -> Vec<crate::Scalar> {
        use crate::core::element::Element;
        let s = crate::cpu::CpuBackend
            .draw(
                "test",
                DrawJob {
                    draw,
                    dtype,
                    len: n,
                    key,
                    offset,
                },
            )
            .unwrap();
        let layout = crate::core::layout::Layout::contiguous(&[n]);
        let v = crate::core::view::View::new(&s, &layout, dtype);
        crate::with_dtype!(dtype, T => v.gather::<T>().into_iter().map(|x| x.to_scalar()).collect())
    }

    /// Host C++ standing in for the CUDA built-ins the kernels use, so the
    /// generated body can run on the CPU (one thread walking every block).
    pub(super) const HOST_SHIM: &str = r#"
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

    /// The host C++ compiler and a scratch folder for running generated
    /// kernel bodies on the CPU (`None`, with a notice, when there is no `c++`).
    pub(super) struct HostCxx {
        cxx: String,
        dir: std::path::PathBuf,
    }

    impl HostCxx {
        pub(super) fn new(tag: &str) -> Option<HostCxx> {
            let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
            let found = std::process::Command::new(&cxx)
                .arg("--version")
                .output()
                .is_ok();
            if !found {
                eprintln!("skipped: no host C++ compiler ({cxx})");
                return None;
            }
            let dir = std::env::temp_dir().join(format!("cuprite_{tag}_{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            Some(HostCxx { cxx, dir })
        }

        /// Compiles `src` (without FMA contraction, as Rust computes) and
        /// returns the lines its program prints.
        pub(super) fn run(&self, name: &str, src: &str) -> Vec<String> {
            let cpp = self.dir.join(format!("{name}.cpp"));
            let exe = self.dir.join(name);
            std::fs::write(&cpp, src).unwrap();
            let st = std::process::Command::new(&self.cxx)
                .args(["-O1", "-ffp-contract=off", "-o"])
                .arg(&exe)
                .arg(&cpp)
                .output()
                .unwrap();
            assert!(
                st.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&st.stderr)
            );
            let run = std::process::Command::new(&exe).output().unwrap();
            String::from_utf8_lossy(&run.stdout)
                .lines()
                .map(str::to_string)
                .collect()
        }
    }

    impl Drop for HostCxx {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    /// Compiles the generated body with the host C++ compiler and compares
    /// its output bits with the Rust implementation (exact for uniforms and
    /// integers). Skipped when no `c++` is installed.
    #[test]
    fn generated_kernels_compute_the_cpu_stream() {
        let Some(host) = HostCxx::new("rng") else {
            return;
        };
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
            let (a, b, ilow, range) = kernel_params(draw);
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
            let got = host.run(&format!("case{ci}"), &src);
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
    }
}
