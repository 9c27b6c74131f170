//! `cp::jit`: kernels written in Rust, run on every device (the CPU backend
//! runs the natively compiled body; the GPU the translated CUDA C), with
//! results checked against values computed here on the host.

use cuprite as cp;
use cuprite::half::{bf16, f16};
use cuprite::{Array, DType};

/// The workshop's `cupyx.jit` saxpy.
#[cp::jit::kernel]
fn saxpy(a: f32, x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = (block_dim().x * block_idx().x + thread_idx().x) as usize;
    if i < x.len() {
        out[i] = a * x[i] + y[i];
    }
}

/// The workshop's grid-stride `elementwise_copy`.
#[cp::jit::kernel]
fn elementwise_copy(x: &[f32], y: &mut [f32], size: u32) {
    for i in grid_stride(size) {
        y[i] = x[i];
    }
}

/// A tiled transpose of a `rows x cols` matrix through shared memory
/// (16 x 16 tiles, one padding column against bank conflicts).
#[cp::jit::kernel]
fn transpose(x: &[f32], out: &mut [f32], rows: u32, cols: u32) {
    let tile = shared_array::<f32, 272>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let c = block_idx().x * 16 + tx;
    let r = block_idx().y * 16 + ty;
    if r < rows && c < cols {
        tile[(ty * 17 + tx) as usize] = x[(r * cols + c) as usize];
    }
    sync_threads();
    // The block's tile, read across: this thread writes out[c2][r2].
    let r2 = block_idx().x * 16 + ty;
    let c2 = block_idx().y * 16 + tx;
    if r2 < cols && c2 < rows {
        out[(r2 * rows + c2) as usize] = tile[(tx * 17 + ty) as usize];
    }
}

/// A sum: warp shuffles within each warp, shared memory across the warps
/// of a block, one atomic per block.
#[cp::jit::kernel]
fn block_sum(x: &[f32], out: &mut [f32]) {
    let partial = shared_array::<f32, 32>();
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mut v = if i < x.len() { x[i] } else { 0.0 };
    let mut offset = 16;
    while offset > 0 {
        v += shfl_down_sync(0xffffffff, v, offset);
        offset /= 2;
    }
    if lane_id() == 0 {
        partial[(thread_idx().x / 32) as usize] = v;
    }
    sync_threads();
    if thread_idx().x < 32 {
        let warps = block_dim().x / 32;
        let mut s = if thread_idx().x < warps {
            partial[thread_idx().x as usize]
        } else {
            0.0
        };
        let mut o = 16;
        while o > 0 {
            s += shfl_down_sync(0xffffffff, s, o);
            o /= 2;
        }
        if thread_idx().x == 0 {
            atomic_add(out, 0, s);
        }
    }
}

/// A histogram of values in `0..bins` with atomics.
#[cp::jit::kernel]
fn histogram(values: &[i32], counts: &mut [u32]) {
    for i in grid_stride(values.len()) {
        let v = values[i];
        if v >= 0 && (v as usize) < counts.len() {
            atomic_add(counts, v as usize, 1);
        }
    }
}

/// Reads one past the end on purpose.
#[cp::jit::kernel]
fn off_by_one(x: &[f32], out: &mut [f32]) {
    let i = thread_idx().x as usize;
    out[i] = x[i + 1];
}

/// Uses dynamic shared memory: reverses each block's slice.
#[cp::jit::kernel]
fn reverse_blocks(x: &[f32], out: &mut [f32]) {
    let buf = dynamic_shared::<f32>();
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    let base = block_idx().x as usize * n;
    buf[t] = x[base + t];
    sync_threads();
    out[base + t] = buf[n - 1 - t];
}

/// Lanes 0..16 of each warp shuffle while the others wait at the block's
/// barrier: a deadlock on the GPU, an error on the CPU.
#[cp::jit::kernel]
fn mismatched_barriers(x: &mut [f32]) {
    let t = thread_idx().x;
    if lane_id() < 16 {
        x[t as usize] = shfl_down_sync(0xffffffff, x[t as usize], 1);
    } else {
        sync_threads();
    }
}

/// Threads past `n` return before the barrier; the others still pass it
/// (an exited thread leaves the barrier) and read a neighbour's value.
#[cp::jit::kernel]
fn rotate_left_within_block(x: &[f32], out: &mut [f32], n: u32) {
    let buf = shared_array::<f32, 256>();
    let t = thread_idx().x;
    if t >= n {
        return;
    }
    buf[t as usize] = x[t as usize];
    sync_threads();
    out[t as usize] = buf[((t + 1) % n) as usize];
}

#[cp::jit::elementwise]
fn axpb<T: cp::jit::Float>(x: T, a: T, b: T) -> T {
    a * x + b
}

#[cp::jit::elementwise]
fn soft_threshold(x: f64, t: f64) -> f64 {
    if x.abs() <= t {
        0.0
    } else {
        x - t.copysign(x)
    }
}

/// saxpy in half precision: each operation rounds to f16, as `half` does.
#[cp::jit::kernel]
fn saxpy_f16(a: f16, x: &[f16], y: &[f16], out: &mut [f16]) {
    let i = (block_dim().x * block_idx().x + thread_idx().x) as usize;
    if i < x.len() {
        out[i] = a * x[i] + y[i];
    }
}

/// Softplus in bfloat16, through f32 and back.
#[cp::jit::kernel]
fn softplus_bf16(x: &[bf16], out: &mut [bf16]) {
    for i in grid_stride(x.len()) {
        let v = x[i].to_f32();
        out[i] = bf16::from_f32((1.0 + v.exp()).ln());
    }
}

/// `out = x^T + b` on strided views: reads and writes go through the
/// arrays' own strides, so transposed or sliced arrays need no copy.
#[cp::jit::kernel]
fn transpose_add(x: cp::jit::View2<f32>, b: f32, out: cp::jit::View2Mut<f32>) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.rows() {
        for j in 0..x.cols() {
            out[(j, i)] = x[(i, j)] + b;
        }
    }
}

/// The sum over the last axis of a 3-d view into a 2-d one.
#[cp::jit::kernel]
fn sum_last(x: cp::jit::View3<f64>, out: cp::jit::View2Mut<f64>) {
    for t in grid_stride(out.len()) {
        let i = t / x.shape()[1];
        let j = t % x.shape()[1];
        let mut s = 0.0;
        for k in 0..x.shape()[2] {
            s += x[(i, j, k)];
        }
        out[(i, j)] = s;
    }
}

fn halves(v: &[f32]) -> Vec<f16> {
    v.iter().map(|&x| f16::from_f32(x)).collect()
}

fn f32s(a: &Array) -> Vec<f32> {
    a.to_vec::<f32>().unwrap()
}

fn assert_close(got: &[f32], want: &[f32], rtol: f32) {
    assert_eq!(got.len(), want.len());
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            !g.is_nan() && (g - w).abs() <= rtol * w.abs().max(1.0),
            "element {k}: {g} != {w}"
        );
    }
}

on_every_device!(saxpy_matches_the_host, |_dev| {
    let n = 10_000usize;
    let xs: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.25).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
    let x = cp::asarray(xs.clone())?;
    let y = cp::asarray(ys.clone())?;
    let mut out = cp::zeros([n], cp::f32)?;
    let threads = 256;
    saxpy.launch(
        (n.div_ceil(threads),),
        (threads,),
        (2.0f32, &x, &y, &mut out),
    )?;
    let want: Vec<f32> = xs.iter().zip(&ys).map(|(a, b)| 2.0 * a + b).collect();
    assert_close(&f32s(&out), &want, 1e-6);

    let mut copy = cp::zeros([n], cp::f32)?;
    elementwise_copy.launch((8,), (128,), (&x, &mut copy, n as u32))?;
    assert_eq!(f32s(&copy), xs);
});

on_every_device!(tiled_transpose_with_shared_memory, |_dev| {
    let (rows, cols) = (37usize, 50usize);
    let vals: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
    let x = cp::asarray(vals.clone())?;
    let mut out = cp::zeros([rows * cols], cp::f32)?;
    transpose.launch(
        (cols.div_ceil(16), rows.div_ceil(16)),
        (16, 16),
        (&x, &mut out, rows as u32, cols as u32),
    )?;
    let want: Vec<f32> = (0..cols)
        .flat_map(|c| (0..rows).map(move |r| (r * cols + c) as f32))
        .collect();
    assert_eq!(f32s(&out), want);
});

on_every_device!(block_sum_with_barriers_and_shuffles, |_dev| {
    let n = 5_000usize;
    // Small integers: every order of summation gives the exact total.
    let vals: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let x = cp::asarray(vals.clone())?;
    let mut total = cp::zeros([1], cp::f32)?;
    block_sum.launch((n.div_ceil(256),), (256,), (&x, &mut total))?;
    assert_eq!(f32s(&total), vec![vals.iter().sum::<f32>()]);
    // A block of 96 threads: three warps, the last shuffles among its own lanes.
    let mut total = cp::zeros([1], cp::f32)?;
    block_sum.launch((n.div_ceil(96),), (96,), (&x, &mut total))?;
    assert_eq!(f32s(&total), vec![vals.iter().sum::<f32>()]);
});

on_every_device!(atomic_histogram, |_dev| {
    let vals: Vec<i32> = (0..20_000).map(|i: i32| (i * 7 + i / 3) % 19 - 1).collect();
    let x = cp::asarray(vals.clone())?;
    let mut counts = cp::zeros([16], cp::u32)?;
    histogram.launch((16,), (128,), (&x, &mut counts))?;
    let mut want = vec![0u32; 16];
    for v in vals {
        if (0..16).contains(&v) {
            want[v as usize] += 1;
        }
    }
    assert_eq!(counts.to_vec::<u32>()?, want);
});

on_every_device!(dynamic_shared_memory, |_dev| {
    let x = cp::asarray((0..64).map(|i| i as f32).collect::<Vec<_>>())?;
    let mut out = cp::zeros([64], cp::f32)?;
    reverse_blocks.launch_with((2,), (32,), (&x, &mut out), 32 * 4, None)?;
    let want: Vec<f32> = (0..2)
        .flat_map(|b| (0..32).rev().map(move |t| (b * 32 + t) as f32))
        .collect();
    assert_eq!(f32s(&out), want);
});

on_every_device!(generic_elementwise_in_f32_and_f64, |_dev| {
    let x32 = cp::arange(6)?.astype(cp::f32)?.reshape([2, 3])?;
    let y = axpb.call((&x32, 2.0f32, 1.0f32))?;
    assert_eq!(y.dtype(), DType::Float32);
    assert_eq!(y.shape(), &[2, 3]);
    assert_eq!(f32s(&y), vec![1.0, 3.0, 5.0, 7.0, 9.0, 11.0]);

    let x64 = cp::arange(3)?.astype(cp::f64)?;
    let col = cp::asarray(vec![10.0f64, 20.0])?.reshape([2, 1])?;
    let y = axpb.call((&x64, &col, 0.5f64))?;
    assert_eq!(y.dtype(), DType::Float64);
    assert_eq!(y.to_vec::<f64>()?, vec![0.5, 10.5, 20.5, 0.5, 20.5, 40.5]);

    let mut out = cp::zeros([3], cp::f64)?;
    axpb.call_out((&x64, 3.0f64, 1.0f64), &mut out)?;
    assert_eq!(out.to_vec::<f64>()?, vec![1.0, 4.0, 7.0]);

    let z = soft_threshold.call((&cp::asarray(vec![-3.0f64, 0.5, 2.0])?, 1.0f64))?;
    assert_eq!(z.to_vec::<f64>()?, vec![-2.0, 0.0, 1.0]);
});

on_every_device!(launch_errors_name_the_kernel_and_argument, |_dev| {
    let x = cp::zeros([8], cp::f32)?;
    let mut out = cp::zeros([8], cp::f32)?;
    let e = saxpy
        .launch((1,), (8,), (2.0f32, &x, &mut out))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`saxpy`") && e.contains("takes 4 arguments") && e.contains("but 3 were given"),
        "{e}"
    );
    let xi = cp::zeros([8], cp::i32)?;
    let e = saxpy
        .launch((1,), (8,), (2.0f32, &xi, &x, &mut out))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("argument 1 (`x: &[float32]`)") && e.contains("int32 array"),
        "{e}"
    );
    let e = saxpy
        .launch((1,), (8,), (&x, &x, &x, &mut out))
        .unwrap_err()
        .to_string();
    assert!(e.contains("argument 0 (`a: float32`)"), "{e}");
    let e = saxpy
        .launch((0,), (8,), (2.0f32, &x, &x, &mut out))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`saxpy`: bad grid"), "{e}");
    let e = saxpy
        .launch((1,), (2048,), (2.0f32, &x, &x, &mut out))
        .unwrap_err()
        .to_string();
    assert!(e.contains("at most 1024"), "{e}");
    let e = reverse_blocks
        .launch_with((1,), (8,), (&x, &mut out), 1 << 20, None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`reverse_blocks`: too much shared memory"),
        "{e}"
    );
    let e = axpb.call((&xi, 2.0f32, 1.0f32)).unwrap_err().to_string();
    assert!(e.contains("axpb"), "{e}");
});

#[test]
fn out_of_bounds_on_the_cpu_is_an_error_naming_index_and_length() {
    cp::with_device(cp::Device::Cpu, || {
        let x = cp::zeros([8], cp::f32).unwrap();
        let mut out = cp::zeros([8], cp::f32).unwrap();
        let e = off_by_one
            .launch((1,), (8,), (&x, &mut out))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`off_by_one`")
                && e.contains("index 8 is out of bounds for `x` of length 8"),
            "{e}"
        );
        assert!(e.contains("thread (7, 0, 0) of block (0, 0, 0)"), "{e}");
        // A fault inside a block whose threads wait on a barrier ends the launch too.
        let e = reverse_blocks
            .launch_with((1,), (16,), (&x, &mut out), 16 * 4, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("out of bounds for `x` of length 8"), "{e}");
    });
}

#[test]
fn the_translated_source_is_readable() {
    let s = saxpy.source();
    assert!(
        s.contains("extern \"C\" __global__ void saxpy(float a, const float* x"),
        "{s}"
    );
    assert_eq!(
        saxpy.parameters(),
        vec![
            "a: float32",
            "x: &[float32]",
            "y: &[float32]",
            "out: &mut [float32]"
        ]
    );
    assert!(axpb
        .source()
        .contains("__device__ __forceinline__ T cp_jit_axpb(T x, T a, T b)"));
}

on_every_device!(half_kernels_round_each_operation_as_half_does, |_dev| {
    let n = 3000usize;
    let xs = halves(
        &(0..n)
            .map(|i| (i % 101) as f32 * 0.37 - 9.0)
            .collect::<Vec<_>>(),
    );
    let ys = halves(&(0..n).map(|i| (i % 7) as f32 * 1.5).collect::<Vec<_>>());
    let a = f16::from_f32(1.7);
    let (x, y) = (cp::asarray(xs.clone())?, cp::asarray(ys.clone())?);
    let mut out = cp::zeros([n], cp::f16)?;
    saxpy_f16.launch((n.div_ceil(128),), (128,), (a, &x, &y, &mut out))?;
    let want: Vec<f16> = xs.iter().zip(&ys).map(|(&x, &y)| a * x + y).collect();
    assert_eq!(out.to_vec::<f16>()?, want, "bit for bit, device and host");

    let xb: Vec<bf16> = xs.iter().map(|v| bf16::from_f32(v.to_f32())).collect();
    let mut outb = cp::zeros([n], cp::bf16)?;
    softplus_bf16.launch((4,), (64,), (&cp::asarray(xb.clone())?, &mut outb))?;
    let got = outb.to_vec::<bf16>()?;
    for (k, (g, v)) in got.iter().zip(&xb).enumerate() {
        let w = (1.0 + v.to_f32().exp()).ln();
        // One bf16 rounding of a float that may differ in its last bits.
        assert!(
            (g.to_f32() - w).abs() <= w.abs() / 128.0,
            "element {k}: {g} vs {w}"
        );
    }
});

on_every_device!(generic_elementwise_in_f16_and_bf16, |_dev| {
    let xs = halves(&[0.5, -1.25, 3.0, 100.0, 0.1, -7.0]);
    let x = cp::asarray(xs.clone())?.reshape([2, 3])?;
    let y = axpb.call((&x, f16::from_f32(2.5), f16::from_f32(-0.3)))?;
    assert_eq!(y.dtype(), DType::Float16);
    let want: Vec<f16> = xs
        .iter()
        .map(|&v| f16::from_f32(2.5) * v + f16::from_f32(-0.3))
        .collect();
    assert_eq!(y.to_vec::<f16>()?, want);

    let xb = x.astype(DType::BFloat16)?;
    let y = axpb.call((&xb, bf16::from_f32(2.5), bf16::from_f32(-0.3)))?;
    assert_eq!(y.dtype(), DType::BFloat16);
    let want: Vec<bf16> = xb
        .to_vec::<bf16>()?
        .iter()
        .map(|&v| bf16::from_f32(2.5) * v + bf16::from_f32(-0.3))
        .collect();
    assert_eq!(y.to_vec::<bf16>()?, want);
});

on_every_device!(
    views_follow_the_strides_of_transposed_and_sliced_arrays,
    |_dev| {
        // x: the transpose of a 5 x 4 array (4 x 5, F-ordered, not contiguous).
        let base = cp::arange(20)?.astype(cp::f32)?.reshape([5, 4])?;
        let x = base.t();
        assert!(!x.is_c_contiguous());
        // out: every other column of a 5 x 8 buffer, seen backwards: 5 x 4 with
        // a negative stride.
        let buf = cp::zeros([5, 8], cp::f32)?;
        let mut out = buf.slice(cp::s![.., ..;-2])?;
        transpose_add.launch((1,), (32,), (&x, 0.5f32, &mut out))?;
        let b = f32s(&base);
        let want_out: Vec<f32> = (0..5)
            .flat_map(|r| (0..4).map(move |c| (r, c)))
            .map(|(r, c)| b[r * 4 + c] + 0.5)
            .collect();
        assert_eq!(f32s(&out), want_out);
        // The columns the view skips are untouched.
        let skipped = buf.slice(cp::s![.., ..;2])?;
        assert_eq!(f32s(&skipped), vec![0.0; 20]);

        let cube = cp::arange(24)?.astype(cp::f64)?.reshape([2, 3, 4])?;
        let x3 = cube.slice(cp::s![.., .., 1..])?;
        let mut sums = cp::zeros([2, 3], cp::f64)?;
        sum_last.launch((2,), (32,), (&x3, &mut sums))?;
        let c: Vec<f64> = cube.to_vec::<f64>()?;
        let want: Vec<f64> = (0..6).map(|r| (1..4).map(|k| c[r * 4 + k]).sum()).collect();
        assert_eq!(sums.to_vec::<f64>()?, want);
    }
);

on_every_device!(view_and_slice_arguments_are_checked_by_name, |_dev| {
    let x = cp::zeros([4, 5], cp::f32)?;
    let mut out = cp::zeros([5, 4], cp::f32)?;
    let e = transpose_add
        .launch((1,), (8,), (&cp::zeros([20], cp::f32)?, 0.5f32, &mut out))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`transpose_add`")
            && e.contains("argument 0 (`x: View2<float32>`)")
            && e.contains("1-d array"),
        "{e}"
    );
    let e = transpose_add
        .launch((1,), (8,), (&x.astype(cp::f64)?, 0.5f32, &mut out))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("argument 0 (`x: View2<float32>`)") && e.contains("float64 array"),
        "{e}"
    );
    let e = transpose_add
        .launch((1,), (8,), (&x, 0.5f32, &mut out.astype(cp::i32)?))
        .unwrap_err()
        .to_string();
    assert!(e.contains("argument 2 (`out: View2Mut<float32>`)"), "{e}");
    // A slice parameter takes contiguous arrays only, and says what to do.
    let strided = cp::zeros([16], cp::f32)?.slice(cp::s![..;2])?;
    let e = saxpy
        .launch((1,), (8,), (2.0f32, &strided, &strided, &mut out))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("argument 1 (`x: &[float32]`)")
            && e.contains("not C-contiguous")
            && e.contains("View1<f32>"),
        "{e}"
    );
});

#[test]
fn view_index_out_of_bounds_on_the_cpu_names_index_and_shape() {
    cp::with_device(cp::Device::Cpu, || {
        let x = cp::zeros([3, 2], cp::f32).unwrap();
        // out is 2 x 2: row 2 of x's transpose is past it.
        let mut out = cp::zeros([2, 2], cp::f32).unwrap();
        let e = transpose_add
            .launch((1,), (4,), (&x, 1.0f32, &mut out))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("index (0, 2) is out of bounds for `out` of shape (2, 2) along axis 1"),
            "{e}"
        );
    });
}

#[test]
fn barriers_on_the_cpu_count_running_threads_and_report_mismatches() {
    cp::with_device(cp::Device::Cpu, || {
        let x = cp::arange(256).unwrap().astype(cp::f32).unwrap();
        let mut out = cp::zeros([256], cp::f32).unwrap();
        rotate_left_within_block
            .launch((1,), (256,), (&x, &mut out, 100u32))
            .unwrap();
        let got = out.to_vec::<f32>().unwrap();
        for (t, got) in got.iter().enumerate() {
            let want = if t < 100 { ((t + 1) % 100) as f32 } else { 0.0 };
            assert_eq!(*got, want, "thread {t}");
        }
        let mut y = cp::ones([64], cp::f32).unwrap();
        let e = mismatched_barriers
            .launch((2,), (64,), (&mut y,))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`mismatched_barriers`") && e.contains("wait at different barriers"),
            "{e}"
        );
        // The launch after a failed one runs as usual.
        block_sum_on_the_cpu_of(1 << 16, 1024);
    });
}

/// A block sum of `n` ones with `threads` per block, on the CPU backend.
fn block_sum_on_the_cpu_of(n: usize, threads: u32) {
    let x = cp::ones([n], cp::f32).unwrap();
    let mut out = cp::zeros([1], cp::f32).unwrap();
    let blocks = (n as u32).div_ceil(threads);
    block_sum
        .launch((blocks,), (threads,), (&x, &mut out))
        .unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), vec![n as f32]);
}

#[test]
fn a_large_block_sum_runs_on_the_cpu() {
    // 4,096 blocks of 256 threads, each meeting at ten barriers: seconds with
    // an OS thread per CUDA thread, well under one with coroutines.
    cp::with_device(cp::Device::Cpu, || block_sum_on_the_cpu_of(1 << 20, 256));
}
