//! `cp::jit`: kernels written in Rust, run on every device (the CPU backend
//! runs the natively compiled body; the GPU the translated CUDA C), with
//! results checked against values computed here on the host.

use cuprite as cp;
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
