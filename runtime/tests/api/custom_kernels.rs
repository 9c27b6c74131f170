//! User kernels (the workshop's kernel section): ElementwiseKernel,
//! ReductionKernel, RawKernel, RawModule and cp::fuse.
//!
//! Parsing, typing and validation run on the CPU (where running a kernel is
//! `Error::NeedsCuda`); the GPU tests skip with a notice when no CUDA device
//! is usable and fail when `CUPRITE_REQUIRE_GPU` is set. GPU results are
//! compared with values computed on the host (independently, in f64).

use crate::common;
use common::*;
use cuprite as cp;
use cuprite::{Array, DType, Device, Error};

/// Uniform [0, 1) values from a fixed-seed xorshift generator.
fn rand_vec(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.max(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

fn f32_array(v: &[f64], shape: &[usize]) -> Array {
    let v: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    cp::asarray(v).unwrap().reshape(shape.to_vec()).unwrap()
}

fn cpu<T>(f: impl FnOnce() -> T) -> T {
    cp::with_device(Device::Cpu, f)
}

// ---------------------------------------------------------------- CPU ----

#[test]
fn parameter_lists_parse_like_cupy() {
    let p = cp::parse_params("test", "float32 x, raw T y,int64   n").unwrap();
    assert_eq!(p.len(), 3);
    assert_eq!(p[0].ty, cp::ParamType::DType(DType::Float32));
    assert!(p[1].raw && p[1].ty == cp::ParamType::Placeholder('T'));
    assert_eq!(p[2].name, "n");
    assert!(cp::parse_params("test", "  ").unwrap().is_empty());
    // Errors: unknown type, duplicate name, missing name, bad keyword, reserved name.
    let err = |s: &str| cp::parse_params("test", s).unwrap_err().to_string();
    let e = err("float x");
    assert!(
        e.contains("unknown type \"float\"") && e.contains("float32"),
        "{e}"
    );
    assert!(err("float32 x, int32 x").contains("`x` is declared twice"));
    assert!(err("float32").contains("needs a type and a name"));
    assert!(err("const float32 x").contains("unknown keyword \"const\""));
    assert!(err("float32 i").contains("reserved"));
    assert!(err("float32 2x").contains("not a C identifier"));
    // Input and output with one name; bad kernel name.
    let e = cp::ElementwiseKernel::new("T x", "T x", "x = x;", "k").unwrap_err();
    assert!(e.to_string().contains("both an input and an output"), "{e}");
    assert!(cp::ElementwiseKernel::new("T x", "T y", "y = x;", "my kernel").is_err());
    assert!(cp::ReductionKernel::new("T x", "T y, T z", "x", "a + b", "y = a", "0", "r").is_err());
    assert!(cp::ReductionKernel::new("raw T x", "T y", "x", "a + b", "y = a", "0", "r").is_err());
}

#[test]
fn type_placeholders_resolve_or_explain() {
    cpu(|| {
        let k = cp::ElementwiseKernel::new("T x, T y", "T z", "z = x + y;", "add_t").unwrap();
        let f = cp::zeros([4], cp::f32).unwrap();
        let d = cp::zeros([4], cp::f64).unwrap();
        // T from the arrays; scalars convert to it.
        let src = k.source_for((&f, 2.0)).unwrap();
        assert!(src.contains("typedef float T;"), "{src}");
        // Two arrays disagree on T.
        let e = k.source_for((&f, &d)).unwrap_err().to_string();
        assert!(
            e.contains("type placeholder T is float32 (from `x`) but `y` is a float64 array"),
            "{e}"
        );
        // Only scalars: T from them; an output cannot be typed from nothing.
        let k2 = cp::ElementwiseKernel::new("T x", "U z", "z = x;", "cast_t").unwrap();
        let e = k2.source_for(&f).unwrap_err().to_string();
        assert!(
            e.contains("cannot determine the type placeholder U of `z`"),
            "{e}"
        );
        // A concrete output must get an array of its dtype.
        let k3 = cp::ElementwiseKernel::new("float32 x", "float32 y", "y = x;", "copy32").unwrap();
        let e = k3.source_for((&f, &d)).unwrap_err().to_string();
        assert!(
            e.contains("`y` is declared float32 (output) but the array given is float64"),
            "{e}"
        );
        // Shapes: broadcast inputs, outputs must match.
        let m = cp::zeros([3, 4], cp::f32).unwrap();
        let e = k
            .source_for((&m, &f, &cp::zeros([4], cp::f32).unwrap()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the output `z` has shape (4,) but the arguments broadcast to (3, 4)"),
            "{e}"
        );
        let e = k
            .source_for((&m, &cp::zeros([3], cp::f32).unwrap()))
            .unwrap_err();
        assert!(matches!(e, Error::Broadcast { .. }), "{e}");
        // Integer scalars must fit.
        let ki =
            cp::ElementwiseKernel::new("int8 x, int8 s", "int8 y", "y = x + s;", "add8").unwrap();
        let e = ki
            .source_for((&cp::zeros([2], cp::i8).unwrap(), 300))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`s`") && e.contains("out of range"), "{e}");
        // Wrong argument count names the parameters.
        let e = k.call((&f,)).unwrap_err().to_string();
        assert!(
            e.contains("takes 2 inputs (x, y) optionally followed by 1 outputs (z); got 1"),
            "{e}"
        );
    });
}

#[test]
fn cpu_backend_needs_cuda_for_every_kernel_kind() {
    cpu(|| {
        let x = cp::arange(8).unwrap().astype(cp::f32).unwrap();
        let ew = cp::ElementwiseKernel::new("float32 x", "float32 y", "y = x * x;", "square_f32")
            .unwrap();
        assert!(matches!(ew.call(&x).unwrap_err(), Error::NeedsCuda { .. }));
        let red = cp::ReductionKernel::new(
            "float32 x",
            "float32 y",
            "x * x",
            "a + b",
            "y = a",
            "0",
            "sum_squares",
        )
        .unwrap();
        let e = red.call(&x).unwrap_err();
        assert!(matches!(e, Error::NeedsCuda { .. }), "{e}");
        // Bad axes are still reported first.
        assert!(matches!(
            red.call_axis(&x, 3).unwrap_err(),
            Error::Axis { .. }
        ));
        let raw = cp::RawKernel::new("extern \"C\" __global__ void k(float* x) {}", "k").unwrap();
        assert!(matches!(
            raw.launch((1,), (1,), &x, 0, None).unwrap_err(),
            Error::NeedsCuda { .. }
        ));
        let m = cp::RawModule::new("extern \"C\" __global__ void k(float* x) {}").unwrap();
        assert!(matches!(m.compile().unwrap_err(), Error::NeedsCuda { .. }));
        // cp::fuse evaluates with the ufuncs on the CPU.
        let f = cp::fuse(|v: &cp::Expr| (v.sin() + 0.1 * v).tanh());
        let y = f.call(&x).unwrap();
        let want: Vec<f64> = (0..8)
            .map(|i| ((i as f32).sin() + 0.1f32 * i as f32).tanh() as f64)
            .collect();
        assert_close(&y, &[8], cp::f32, &want, 1e-6);
    });
}

#[test]
fn generated_axpb_source_is_the_contiguous_fast_path() {
    cpu(|| {
        let axpb = cp::ElementwiseKernel::new(
            "float32 x, float32 a, float32 b",
            "float32 y",
            "y = a * x + b;",
            "axpb",
        )
        .unwrap();
        let x = cp::zeros([1 << 10], cp::f32).unwrap();
        let src = axpb.source_for((&x, 2.0, 1.0)).unwrap();
        assert!(src.contains("for (; _i + 3 * _stride < (_cp_idx)_n; _i += 4 * _stride)"));
        assert!(src.contains("_raw_y[_i + 3 * _stride]"));
        assert!(!src.contains("_cp_Geo"));
        // A transposed view takes the strided path.
        let m = cp::zeros([32, 32], cp::f32).unwrap();
        let src = axpb.source_for((&m.t(), 2.0, 1.0)).unwrap();
        assert!(src.contains("_cp_Geo") && src.contains("_o_x +="), "{src}");
    });
}

// ---------------------------------------------------------------- GPU ----

/// Runs `f` on CUDA device 0, or skips.
fn on_gpu(f: impl FnOnce()) {
    if let Some(dev) = gpu_or_skip() {
        cp::with_device(dev, f);
    }
}

fn nan_f32(shape: &[usize]) -> Array {
    cp::full(shape.to_vec(), f64::NAN, cp::f32).unwrap()
}

/// The vector path (16-byte accesses when every array is aligned and the
/// output is only assigned) against the CPU backend: sizes around the
/// vector width, a misaligned view (scalar path), several dtypes, and an
/// output the operation reads (never vectorised).
#[test]
fn gpu_vector_accesses_cover_every_size_and_fall_back_when_they_must() {
    on_gpu(|| {
        let axpb = cp::ElementwiseKernel::new("T x, T a, T b", "T y", "y = a * x + b;", "axpb_vec")
            .unwrap();
        for dt in [cp::f32, cp::f64, cp::int8, cp::uint16] {
            for n in [1usize, 2, 3, 7, 8, 9, 33, 1023, 4096 + 5, 1_000_003] {
                let host = f32_array(&rand_vec(n + 1, n as u64 + 7), &[n + 1]);
                let host = (&host * 100.0).astype(dt).unwrap();
                // From the start of a buffer (aligned) and one element in (not).
                for view in [
                    host.slice(cp::s![..n]).unwrap(),
                    host.slice(cp::s![1..]).unwrap(),
                ] {
                    // The same arithmetic by the CPU backend's ufuncs (user
                    // kernels are CUDA code and run only on a GPU).
                    let want = cpu(|| {
                        let x = view.to_device(&Device::Cpu).unwrap();
                        if dt.is_integer() {
                            cp::add(cp::multiply(&x, 2).unwrap(), 1).unwrap()
                        } else {
                            cp::add(cp::multiply(&x, 2.0).unwrap(), 1.0).unwrap()
                        }
                    });
                    let got = axpb.call((&view, 2.0, 1.0)).unwrap();
                    assert_eq!(got.shape(), &[n]);
                    let as_f64 = |a: &Array| {
                        a.to_device(&Device::Cpu)
                            .and_then(|a| a.astype(cp::f64))
                            .and_then(|a| a.to_vec::<f64>())
                            .unwrap()
                    };
                    for (i, (g, w)) in as_f64(&got).iter().zip(as_f64(&want)).enumerate() {
                        // float16 and float32 may round a fused multiply-add once.
                        assert!(
                            (g - w).abs() <= 1e-3 * w.abs().max(1.0),
                            "{dt} n={n} element {i}: GPU {g} vs CPU {w}"
                        );
                    }
                }
            }
        }
        // An output the operation reads keeps its old values.
        let acc =
            cp::ElementwiseKernel::new("float32 x", "float32 y", "y += x;", "acc_vec").unwrap();
        let n = 1001;
        let x = f32_array(&rand_vec(n, 3), &[n]);
        let mut y = cp::full(vec![n], 1.0, cp::f32).unwrap();
        acc.call_out(&x, &mut y).unwrap();
        let xv = x.to_vec::<f32>().unwrap();
        let want: Vec<f32> = xv.iter().map(|v| 1.0 + v).collect();
        assert_eq!(y.to_vec::<f32>().unwrap(), want);
    });
}

#[test]
fn gpu_square_scale_bias_and_axpb_match_the_seeds() {
    on_gpu(|| {
        // Seed 001: square_f32 and scale_bias; seed 003: axpb on linspace.
        let square =
            cp::ElementwiseKernel::new("float32 x", "float32 y", "y = x * x;", "square_f32")
                .unwrap();
        let data = cp::arange(8).unwrap().astype(cp::f32).unwrap();
        assert_exact(
            &square.call(&data).unwrap(),
            &[8],
            &[0f32, 1., 4., 9., 16., 25., 36., 49.],
        );
        let scale_bias = cp::ElementwiseKernel::new(
            "float32 x, float32 s, float32 b",
            "float32 y",
            "y = s * x + b;",
            "scale_bias",
        )
        .unwrap();
        let r = scale_bias.call((&data, 0.5, 1.0)).unwrap();
        assert_exact(&r, &[8], &[1f32, 1.5, 2., 2.5, 3., 3.5, 4., 4.5]);
        let axpb = cp::ElementwiseKernel::new(
            "float32 x, float32 a, float32 b",
            "float32 y",
            "y = a * x + b;",
            "axpb",
        )
        .unwrap();
        let x = cp::linspace(0.0, 1.0, 8).unwrap().astype(cp::f32).unwrap();
        // CuPy 14 (seed 003): [1. 1.2857143 1.5714285 1.8571429 2.142857 2.4285715 2.7142859 3.]
        let y = axpb.call((&x, 2.0, 1.0)).unwrap();
        assert_close(
            &y,
            &[8],
            cp::f32,
            &[
                1.0, 1.2857143, 1.5714285, 1.8571429, 2.142857, 2.4285715, 2.7142859, 3.0,
            ],
            1e-6,
        );
        // Outputs given, large and random (poisoned first), then reused.
        let n = (1 << 20) + 3;
        let h = rand_vec(n, 7);
        let x = f32_array(&h, &[n]);
        let mut out = nan_f32(&[n]);
        axpb.call_out((&x, 2.0f32, 1.0f32), &mut out).unwrap();
        let want: Vec<f64> = h
            .iter()
            .map(|&v| (2.0f32 * v as f32 + 1.0f32) as f64)
            .collect();
        assert_close(&out, &[n], cp::f32, &want, 1e-7);
        let again = axpb.call((&x, 2.0, 1.0, &out)).unwrap();
        assert_close(&again, &[n], cp::f32, &want, 1e-7);
    });
}

#[test]
fn gpu_leaky_relu_on_strided_broadcast_and_several_dtypes() {
    on_gpu(|| {
        // Workshop exercise 2: leaky_relu(x, alpha=0.1).
        let leaky = cp::ElementwiseKernel::new(
            "T x, T alpha",
            "T y",
            "y = x > 0 ? x : alpha * x;",
            "leaky_relu",
        )
        .unwrap();
        let h: Vec<f64> = rand_vec(300, 3).iter().map(|v| v * 2.0 - 1.0).collect();
        for dt in [cp::f32, cp::f64] {
            let x = f32_array(&h, &[20, 15]).astype(dt).unwrap();
            let xt = x.t(); // (15, 20), strided
            let y = leaky.call((&xt, 0.1)).unwrap();
            let host = values_f64(&xt);
            let a = if dt == cp::f32 { 0.1f32 as f64 } else { 0.1 };
            let want: Vec<f64> = host
                .iter()
                .map(|&v| if v > 0.0 { v } else { a * v })
                .collect();
            assert_close(&y, &[15, 20], dt, &want, 1e-6);
        }
        // Broadcasting a column against a matrix, a negative-stride view, zero size.
        let k = cp::ElementwiseKernel::new("T x, T y", "T z", "z = x * y;", "mul_b").unwrap();
        let m = cp::arange(12)
            .unwrap()
            .astype(cp::f64)
            .unwrap()
            .reshape([3, 4])
            .unwrap();
        let col = cp::asarray(vec![1.0f64, 10.0, 100.0])
            .unwrap()
            .reshape([3, 1])
            .unwrap();
        let r = k.call((&m, &col)).unwrap();
        assert_close(
            &r,
            &[3, 4],
            cp::f64,
            &[0., 1., 2., 3., 40., 50., 60., 70., 800., 900., 1000., 1100.],
            0.0,
        );
        let rev = cp::arange(5)
            .unwrap()
            .astype(cp::f64)
            .unwrap()
            .slice(cp::s![..;-1])
            .unwrap();
        let r = k.call((&rev, 2.0)).unwrap();
        assert_close(&r, &[5], cp::f64, &[8., 6., 4., 2., 0.], 0.0);
        let empty = cp::zeros([0, 3], cp::f64).unwrap();
        assert_eq!(k.call((&empty, 1.0)).unwrap().shape(), &[0, 3]);
        // Raw parameters and the loop index: reverse with x[n - 1 - i].
        let rk = cp::ElementwiseKernel::new(
            "raw T x, int64 n",
            "T y",
            "y = x[n - 1 - i] + (T)(_ind.size() - n);",
            "reverse",
        )
        .unwrap();
        let x = cp::arange(6).unwrap().astype(cp::i32).unwrap();
        let out = cp::zeros([6], cp::i32).unwrap();
        let r = rk.call((&x, 6i64, &out)).unwrap();
        assert_exact(&r, &[6], &[5i32, 4, 3, 2, 1, 0]);
        // Only raw arrays and scalars: the loop size is given (CuPy's size=);
        // T is known from the raw array, so the output is allocated.
        let r = rk.call_size((&x, 6i64), 6).unwrap();
        assert_exact(&r[0], &[6], &[5i32, 4, 3, 2, 1, 0]);
    });
}

#[test]
fn gpu_reduction_kernels_sum_of_squares_and_row_norms() {
    on_gpu(|| {
        // Seed 003: sum of squares of arange(10) is 285.
        let sum_squares = cp::ReductionKernel::new(
            "float32 x",
            "float32 y",
            "x * x",
            "a + b",
            "y = a",
            "0",
            "sum_squares",
        )
        .unwrap();
        let r = sum_squares
            .call(&cp::arange(10).unwrap().astype(cp::f32).unwrap())
            .unwrap();
        assert_close(&r, &[], cp::f32, &[285.0], 0.0);
        // Workshop exercise 3: per-row L2 norms of a large matrix.
        let l2 =
            cp::ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
                .unwrap();
        let (rows, cols) = (257, 3001);
        let h = rand_vec(rows * cols, 11);
        let m = cp::asarray(h.clone())
            .unwrap()
            .reshape(vec![rows, cols])
            .unwrap();
        let norms = l2.call_axis(&m, 1).unwrap();
        let want: Vec<f64> = (0..rows)
            .map(|r| {
                h[r * cols..(r + 1) * cols]
                    .iter()
                    .map(|v| v * v)
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        assert_close(&norms, &[rows], cp::f64, &want, 1e-12);
        // Column norms (axis 0, strided reads) with keepdims into a poisoned output.
        let mut out = cp::full([1, cols], f64::NAN, cp::f64).unwrap();
        l2.call_out(&m, Some(&[0]), true, &mut out).unwrap();
        let want: Vec<f64> = (0..cols)
            .map(|c| {
                (0..rows)
                    .map(|r| h[r * cols + c] * h[r * cols + c])
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        assert_close(&out, &[1, cols], cp::f64, &want, 1e-12);
        // A full reduction long enough to be split across blocks (two launches).
        let n = 1 << 22;
        let h = rand_vec(n, 5);
        let x = cp::asarray(h.clone()).unwrap();
        let r = l2.call(&x).unwrap();
        assert_close(
            &r,
            &[],
            cp::f64,
            &[h.iter().map(|v| v * v).sum::<f64>().sqrt()],
            1e-12,
        );
        // Two inputs, a scalar, a mean through _in_ind/_out_ind, float64 accumulator.
        let dot = cp::ReductionKernel::new(
            "T x, T y, T s",
            "T z",
            "x * y * s",
            "a + b",
            "z = a / (_in_ind.size() / _out_ind.size())",
            "0",
            "scaled_mean_dot",
        )
        .unwrap()
        .reduce_type("float64");
        let a = cp::arange(6)
            .unwrap()
            .astype(cp::f32)
            .unwrap()
            .reshape([2, 3])
            .unwrap();
        let r = dot.call_axis((&a, &a, 2.0f32), 0).unwrap();
        // rows [0,1,2],[3,4,5]: mean over axis 0 of 2*x*x = [(0+18)/2, (2+32)/2, (8+50)/2]
        assert_close(&r, &[3], cp::f32, &[9.0, 17.0, 29.0], 0.0);
        // Zero-size reduced axis gives the identity through post_map.
        let e = cp::zeros([4, 0], cp::f64).unwrap();
        assert_close(&l2.call_axis(&e, 1).unwrap(), &[4], cp::f64, &[0.0; 4], 0.0);
    });
}

const SAXPY: &str = r#"
extern "C" __global__
void saxpy(const float* x, const float* y, float* z,
           float a, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) z[i] = a * x[i] + y[i];
}
"#;

#[test]
fn gpu_saxpy_raw_kernel() {
    on_gpu(|| {
        let saxpy = cp::RawKernel::new(SAXPY, "saxpy").unwrap();
        let n = 1 << 20;
        let (hx, hy) = (rand_vec(n, 1), rand_vec(n, 2));
        let (x, y) = (f32_array(&hx, &[n]), f32_array(&hy, &[n]));
        let z = nan_f32(&[n]);
        let blk = 256;
        let grd = n.div_ceil(blk);
        // 2.0 (an f64 literal) reaches `float a` as a float: the signature is read.
        saxpy.call((grd,), (blk,), (&x, &y, &z, 2.0, n)).unwrap();
        let want: Vec<f64> = hx
            .iter()
            .zip(&hy)
            .map(|(&a, &b)| (2.0f32 * a as f32 + b as f32) as f64)
            .collect();
        assert_close(&z, &[n], cp::f32, &want, 1e-7);
        // Seed 003's argument order with an explicit stream and f32 scalar.
        let src3 = r#"extern "C" __global__ void saxpy(const float a, const float* __restrict__ x,
           const float* __restrict__ y, float* __restrict__ out, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}"#;
        let k3 = cp::RawKernel::new(src3, "saxpy").unwrap();
        let out = nan_f32(&[n]);
        let s = cp::cuda::Stream::new().unwrap();
        k3.launch(
            (grd,),
            (blk,),
            (2.0f32, &x, &y, &out, n as i32),
            0,
            Some(&s),
        )
        .unwrap();
        s.synchronize().unwrap();
        assert_close(&out, &[n], cp::f32, &want, 1e-7);
        // Argument count and kinds are checked.
        let e = saxpy
            .call((grd,), (blk,), (&x, &y, &z, 2.0f32))
            .unwrap_err();
        assert!(e.to_string().contains("takes 5 parameters"), "{e}");
    });
}

const BLOCK_SUM: &str = r#"
extern "C" __global__
void block_sum(const float* x, float* out, int n) {
    extern __shared__ float sdata[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
"#;

#[test]
fn gpu_block_sum_with_dynamic_shared_memory() {
    on_gpu(|| {
        // Seed 001's block_sum (its `blockDim.x * blockDim.x` index typo fixed).
        let k = cp::RawKernel::new(BLOCK_SUM, "block_sum").unwrap();
        let (n, blk) = (100_000usize, 256usize);
        let grd = n.div_ceil(blk);
        let h = rand_vec(n, 9);
        let x = f32_array(&h, &[n]);
        let out = nan_f32(&[grd]);
        k.launch((grd,), (blk,), (&x, &out, n as i32), blk * 4, None)
            .unwrap();
        let want: Vec<f64> = h
            .chunks(blk)
            .map(|c| c.iter().map(|&v| v as f32 as f64).sum())
            .collect();
        assert_close(&out, &[grd], cp::f32, &want, 1e-5);
        // More than 48 KiB of dynamic shared memory raises the kernel's limit.
        let big = r#"extern "C" __global__ void big_shared(float* out) {
    extern __shared__ float s[];
    const int n = 16384;  // 64 KiB
    for (int j = threadIdx.x; j < n; j += blockDim.x) s[j] = (float)j;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s[n - 1];
}"#;
        let kb = cp::RawKernel::new(big, "big_shared").unwrap();
        let o = nan_f32(&[1]);
        kb.launch(1, 256, &o, 64 * 1024, None).unwrap();
        assert_close(&o, &[1], cp::f32, &[16383.0], 0.0);
        let e = kb.launch(1, 256, &o, 1 << 30, None).unwrap_err();
        assert!(
            e.to_string()
                .contains("exceed the device's per-block maximum"),
            "{e}"
        );
        let e = kb.launch(1, 2048, &o, 0, None).unwrap_err();
        assert!(e.to_string().contains("exceeds the device's limit"), "{e}");
    });
}

#[test]
fn gpu_raw_module_two_kernels_and_templates() {
    on_gpu(|| {
        let code = r#"
extern "C" __global__ void kernel_a(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}
extern "C" __global__ void kernel_b(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}"#;
        let module = cp::RawModule::new(code).unwrap();
        let ka = module.get_function("kernel_a").unwrap();
        let kb = module.get_function("kernel_b").unwrap();
        let x = cp::ones([1024], cp::f32).unwrap();
        ka.call((4,), (256,), (&x, 1024)).unwrap();
        kb.call((4,), (256,), (&x, 1024)).unwrap();
        assert_exact(
            &x.slice(cp::s![..5]).unwrap().copy().unwrap(),
            &[5],
            &[3f32; 5],
        );
        assert!(module.get_function("kernel_c").is_err());
        // Templates through name expressions, with C++17 and a define.
        let t = r#"
template <typename T> __global__ void scale(T* x, T a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (BIAS > 0) { if (i < n) x[i] = x[i] * a + (T)BIAS; }
    else { if (i < n) x[i] *= a; }
}"#;
        let m = cp::RawModule::new(t)
            .unwrap()
            .options(&["-std=c++17", "-DBIAS=1"])
            .name_expressions(&["scale<float>", "scale<double>"]);
        let f = m.get_function("scale<float>").unwrap();
        let d = m.get_function("scale<double>").unwrap();
        let xf = cp::ones([10], cp::f32).unwrap();
        let xd = cp::ones([10], cp::f64).unwrap();
        f.call(1, 32, (&xf, 3.0f32, 10i32)).unwrap();
        d.call(1, 32, (&xd, 5.0f64, 10i32)).unwrap();
        assert_exact(&xf, &[10], &[4f32; 10]);
        assert_exact(&xd, &[10], &[6f64; 10]);
        // Raw pointers as arguments.
        let p = cp::DevicePtr(raw_ptr(&xf));
        f.call(1, 32, (p, 0.5f32, 10i32)).unwrap();
        assert_exact(&xf, &[10], &[3f32; 10]);
        // From a file, with the file named in compiler messages.
        let dir = std::env::temp_dir().join(format!("cuprite_rawmod_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("broken.cu");
        std::fs::write(
            &path,
            "extern \"C\" __global__ void k(float* x) {\n  x[0] = 1.0f\n}\n",
        )
        .unwrap();
        let e = cp::RawModule::from_file(&path)
            .unwrap()
            .compile()
            .unwrap_err();
        match &e {
            Error::Compile { log, .. } => assert!(
                log.contains("broken.cu(3)") || log.contains("broken.cu(2)"),
                "{log}"
            ),
            other => panic!("expected a compile error, got {other}"),
        }
    });
}

/// The device address of an array through a one-thread kernel is not
/// needed: the runtime passes arrays as pointers, so recover it with a
/// RawKernel that writes its argument.
fn raw_ptr(a: &Array) -> u64 {
    let k = cp::RawKernel::new(
        "extern \"C\" __global__ void addr(const float* p, unsigned long long* out) { out[0] = (unsigned long long)p; }",
        "addr",
    )
    .unwrap();
    let out = cp::zeros([1], cp::u64).unwrap();
    k.call(1, 1, (a, &out)).unwrap();
    out.to_vec::<u64>().unwrap()[0]
}

#[test]
fn gpu_tiled_matmul_matches_a_host_matmul() {
    on_gpu(|| {
        // Workshop exercise 4: a 16x16 tiled matrix multiply.
        let code = r#"
#define TILE 16
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}"#;
        let k = cp::RawKernel::new(code, "matmul_tiled").unwrap();
        let (m, n, kk) = (67, 45, 130);
        let (ha, hb) = (rand_vec(m * kk, 21), rand_vec(kk * n, 22));
        let a = f32_array(&ha, &[m, kk]);
        let b = f32_array(&hb, &[kk, n]);
        let c = nan_f32(&[m, n]);
        k.call(
            (n.div_ceil(16), m.div_ceil(16)),
            (16, 16),
            (&a, &b, &c, m as i32, n as i32, kk as i32),
        )
        .unwrap();
        let mut want = vec![0.0f64; m * n];
        for i in 0..m {
            for j in 0..n {
                want[i * n + j] = (0..kk)
                    .map(|t| ha[i * kk + t] as f32 as f64 * hb[t * n + j] as f32 as f64)
                    .sum();
            }
        }
        assert_close(&c, &[m, n], cp::f32, &want, 1e-5);
    });
}

#[test]
fn gpu_compile_errors_carry_the_users_line_numbers() {
    on_gpu(|| {
        let k = cp::ElementwiseKernel::new(
            "float32 x",
            "float32 y",
            "y = x;\ny = undefined_name * 2;",
            "broken",
        )
        .unwrap();
        let x = cp::ones([4], cp::f32).unwrap();
        let e = k.call(&x).unwrap_err();
        match &e {
            Error::Compile { name, log } => {
                assert_eq!(name, "broken");
                assert!(
                    log.contains("operation(2)") && log.contains("undefined_name"),
                    "{log}"
                );
            }
            other => panic!("expected Error::Compile, got {other}"),
        }
        let r = cp::ReductionKernel::new(
            "float32 x",
            "float32 y",
            "x * x",
            "a +* b",
            "y = a",
            "0",
            "bad_red",
        )
        .unwrap();
        let log = r.call(&x).unwrap_err().to_string();
        assert!(log.contains("reduce_expr(1)"), "{log}");
        let raw = cp::RawKernel::new(
            "extern \"C\" __global__ void bad(float* x) {\n  int i = 0;\n  x[i] = y;\n}\n",
            "bad",
        )
        .unwrap();
        let log = raw.call(1, 1, &x).unwrap_err().to_string();
        assert!(log.contains("bad.cu(3)") && log.contains("\"y\""), "{log}");
    });
}

#[test]
fn gpu_fuse_tanh_sin_is_one_kernel_and_matches_the_cpu() {
    on_gpu(|| {
        let f = cp::fuse(|v: &cp::Expr| (v.sin() + 0.1 * v).tanh()).name("tanh_sin");
        let h = rand_vec(1 << 16, 4);
        let x = f32_array(&h, &[1 << 16]);
        let y = f.call(&x).unwrap();
        let want: Vec<f64> = h
            .iter()
            .map(|&v| {
                let v = v as f32;
                (v.sin() + 0.1f32 * v).tanh() as f64
            })
            .collect();
        assert_close(&y, &[1 << 16], cp::f32, &want, 1e-6);
        // Two inputs broadcast, a comparison, integer input promoted as the ufuncs do.
        let g = cp::fuse(|a: &cp::Expr, b: &cp::Expr| (a * b + 1).maximum(a.sqrt()));
        let a = cp::arange(6)
            .unwrap()
            .astype(cp::i32)
            .unwrap()
            .reshape([2, 3])
            .unwrap();
        let b = cp::asarray(vec![0.5f64, 1.0, 2.0]).unwrap();
        let r = g.call((&a, &b)).unwrap();
        let cpu_r = cpu(|| {
            g.call((
                &a.to_device(&Device::Cpu).unwrap(),
                &b.to_device(&Device::Cpu).unwrap(),
            ))
        })
        .unwrap();
        assert_close(&r, &[2, 3], cp::f64, &values_f64(&cpu_r), 1e-15);
        // Complex input has no GPU sin: evaluated op by op, still correct.
        let z = cp::asarray(vec![cp::num_complex::Complex64::new(0.5, 0.25)]).unwrap();
        let zr = f.call(&z).unwrap();
        assert_eq!(zr.dtype(), cp::c128);
    });
}
