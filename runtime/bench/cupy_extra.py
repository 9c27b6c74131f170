"""CuPy's side of the cuprite-bench cases that shared/bench/cupy_bench.py lacks.

Same timing (cupyx.profiler.benchmark: CUDA events for the GPU time, host clock
for the CPU time, medians after warm-up) and the same JSON rows and case names as
cuprite-bench, so both can be joined by case. Run after cupy_bench.py in the same
GPU session: python3 cupy_extra.py [out.json]
"""
import json
import sys

import numpy as np
import cupy as cp
import cupyx.scipy.special as csp
from cupyx.profiler import benchmark

results = []


def case(name, fn, bytes_moved=None, n_repeat=20, n_warmup=3):
    r = benchmark(fn, (), n_repeat=n_repeat, n_warmup=n_warmup)
    gpu_ms = float(np.median(r.gpu_times[0])) * 1e3
    row = {"case": name, "gpu_ms": round(gpu_ms, 4), "cpu_us": round(float(np.median(r.cpu_times)) * 1e6, 2)}
    if bytes_moved:
        row["GB_s"] = round(bytes_moved / (gpu_ms * 1e-3) / 1e9, 1)
    results.append(row)
    print(json.dumps(row), flush=True)


N = 1 << 26
x = cp.random.random(N, dtype=cp.float32)
y = cp.random.random(N, dtype=cp.float32)
out = cp.empty_like(x)
small = cp.arange(1000).astype(cp.float32)
small_out = cp.empty_like(small)

# Host cost of warm calls of user kernels on 1000 elements.
axpb = cp.ElementwiseKernel("float32 x, float32 a, float32 b", "float32 y", "y = a * x + b;", "axpb")
case("elementwise_kernel_warm_call_1K", lambda: axpb(small, cp.float32(2.0), cp.float32(1.0), small_out),
     n_repeat=200, n_warmup=10)


@cp.fuse(kernel_name="tanh_sin")
def fused(v):
    return cp.tanh(cp.sin(v) + 0.1 * v)


case("fused_warm_call_1K", lambda: fused(small), n_repeat=200, n_warmup=10)
saxpy = cp.RawKernel(r'''extern "C" __global__ void saxpy(const float* x, const float* y, float* z, float a, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) z[i] = a * x[i] + y[i];
}''', "saxpy")
case("raw_kernel_saxpy_64M", lambda: saxpy(((N + 255) // 256,), (256,), (x, y, out, cp.float32(2.0), np.int32(N))),
     bytes_moved=12 * N)
case("raw_kernel_warm_call_1K", lambda: saxpy((4,), (256,), (small, small, small_out, cp.float32(2.0), np.int32(1000))),
     n_repeat=200, n_warmup=10)
sum_squares = cp.ReductionKernel("float32 x", "float32 y", "x * x", "a + b", "y = a", "0", "sum_squares")
case("reduction_kernel_sum_squares_64M", lambda: sum_squares(x), bytes_moved=4 * N)


# SciPy's special functions (issue 34's cases; cuprite-bench's x is uniform in [0, 1)).
case("gammaln_f32_64M", lambda: csp.gammaln(x, out), bytes_moved=8 * N)
case("erfinv_f32_64M", lambda: csp.erfinv(x, out), bytes_moved=8 * N)
x64 = x.astype(cp.float64)
out64 = cp.empty_like(x64)
# CuPy has no stats.norm; ndtr is the standard normal CDF.
case("norm_cdf_f64_64M", lambda: csp.ndtr(x64, out64), bytes_moved=16 * N)
del x64, out64


# Where the host time of a small operation goes.
def fill_x100():
    for _ in range(100):
        small_out.fill(1.0)


def add_out_x100():
    for _ in range(100):
        cp.add(small, 1.0, out=small_out)


def empty_x100():
    for _ in range(100):
        cp.empty(1000, dtype=cp.float32)


case("latency_fill_x100", fill_x100)
case("latency_add_out_x100", add_out_x100)
case("latency_empty_x100", empty_x100)


def alloc_free_sync():
    a = cp.empty(1 << 20, dtype=cp.float32)
    del a
    cp.cuda.Stream.null.synchronize()


case("alloc_free_sync_4MB", alloc_free_sync, n_repeat=200, n_warmup=10)


# A device-to-host copy into a host array that already exists (cuprite-bench's
# copy_to_slice beside cupy_bench.py's d2h_pageable_256MB).
host_out = np.empty(N, dtype=np.float32)
case("d2h_pageable_into_existing_256MB", lambda: cp.asnumpy(x, out=host_out), bytes_moved=4 * N, n_repeat=5)
del host_out

# Statistics (issue 20): the setups of cuprite-bench's stats.rs.
xn = cp.random.random(N, dtype=cp.float32)
xn[::97] = cp.nan
case("nansum_f32_64M", lambda: cp.nansum(xn), bytes_moved=4 * N)
case("diff_f32_64M", lambda: cp.diff(y), bytes_moved=8 * N)
ys = y[: 1 << 24]
case("median_f32_16M", lambda: cp.median(ys), bytes_moved=8 * (1 << 24))
sq = ys.reshape(4096, 4096)
case("percentile_axis0_4096sq", lambda: cp.percentile(sq, 90.0, axis=0), bytes_moved=8 * (1 << 24))
variables = y.reshape(1024, 65536)
case("cov_1024x65536", lambda: cp.cov(variables), n_repeat=5, n_warmup=2)
del xn

# Manipulation (issue 20): the setups of cuprite-bench's manip.rs.
a8 = cp.random.random((8192, 8192), dtype=cp.float32)
case("roll_2d_8192sq", lambda: cp.roll(a8, (100, 200), axis=(0, 1)), bytes_moved=8 * 8192 * 8192)
sq4 = a8[:4096, :4096].copy()
case("pad_reflect_4096sq", lambda: cp.pad(sq4, 64, mode="reflect"),
     bytes_moved=4 * (4096 * 4096 + 4224 * 4224))
del a8, sq4

# Sorting and searching: the setups of cuprite-bench's search.rs.
ints = cp.random.randint(0, 1 << 20, 1 << 24, dtype=cp.int32)
case("unique_i32_16M", lambda: cp.unique(ints), bytes_moved=8 * (1 << 24))
del ints
haystack = cp.sort(cp.random.random(1 << 24, dtype=cp.float32))
needles = cp.random.random(1 << 20, dtype=cp.float32)
case("searchsorted_f32_16M_into_1M", lambda: cp.searchsorted(haystack, needles), bytes_moved=12 * (1 << 20))
del haystack, needles
# Counting and binning: the setups of cuprite-bench's binning.rs.
xh = cp.random.random(N, dtype=cp.float32)
case("histogram_f32_64M_256bins", lambda: cp.histogram(xh, 256), bytes_moved=4 * N)
k = cp.random.randint(0, 1000, N, dtype=cp.int32)
case("bincount_i32_64M", lambda: cp.bincount(k), bytes_moved=4 * N)
del xh, k
# File input and output: the setups of cuprite-bench's io.rs (files in the
# page cache: written once, then timed; $CUPRITE_BENCH_TMP or the temp dir).
import os
import shutil
import tempfile

io_dir = tempfile.mkdtemp(prefix="cupy-bench-io-", dir=os.environ.get("CUPRITE_BENCH_TMP"))
xg = cp.random.random(1 << 28, dtype=cp.float32)
load_path = os.path.join(io_dir, "load.npy")
np.save(load_path, cp.asnumpy(xg))
case("npy_load_1GB_to_device", lambda: cp.asarray(np.load(load_path)), bytes_moved=4 * (1 << 28),
     n_repeat=5, n_warmup=1)
save_path = os.path.join(io_dir, "save.npy")
case("npy_save_1GB_from_device", lambda: np.save(save_path, cp.asnumpy(xg)), bytes_moved=4 * (1 << 28),
     n_repeat=5, n_warmup=1)
del xg
CSV_ROWS = 1_310_720
csv_path = os.path.join(io_dir, "table.csv")
table = (np.arange(10 * CSV_ROWS, dtype=np.int64) % 1_000_003).reshape(CSV_ROWS, 10) / 1000.0
np.savetxt(csv_path, table, fmt="%.3f", delimiter=",")
del table
case("loadtxt_csv_100MB", lambda: cp.asarray(np.loadtxt(csv_path, delimiter=",")),
     bytes_moved=os.path.getsize(csv_path), n_repeat=3, n_warmup=1)
shutil.rmtree(io_dir, ignore_errors=True)

# IIR filtering (bench/signal.rs): float32 sections over 64 channels, and a
# float64 zero-phase filter over 16M samples.
from cupyx.scipy import signal as csignal
sos32 = csignal.butter(8, 0.1, output="sos").astype(cp.float32)
chans = cp.random.random((64, 1 << 20), dtype=cp.float32)
case("sosfilt_order8_64ch_1M", lambda: csignal.sosfilt(sos32, chans), n_repeat=5, n_warmup=2)
b_iir, a_iir = csignal.butter(4, 0.1)
long_x = cp.random.random(1 << 24, dtype=cp.float32).astype(cp.float64)
case("filtfilt_order4_16M", lambda: csignal.filtfilt(b_iir, a_iir, long_x), n_repeat=5, n_warmup=2)
del chans, long_x

# SciPy's statistics (bench/scipy_stats.rs, issue 34). CuPy has the normal
# CDF (cupyx.scipy.special.ndtr) but no rankdata or gaussian_kde: those rows
# time SciPy on the host's cores instead and say so.
import time

import scipy.stats as sst
from cupyx.scipy import special as cspecial


def case_scipy_cpu(name, fn, n_repeat=3, scale=1.0, note=None):
    fn()
    times = []
    for _ in range(n_repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    row = {"case": name, "gpu_ms": round(float(np.median(times)) * 1e3 * scale, 4),
           "baseline": "scipy-cpu", "cpu_cores": os.cpu_count()}
    if note:
        row["note"] = note
    results.append(row)
    print(json.dumps(row), flush=True)


ranks_host = np.floor(np.random.default_rng(34).random(1 << 24, dtype=np.float32) * 4096) / 4096
case_scipy_cpu("rankdata_f32_16M", lambda: sst.rankdata(ranks_host))
del ranks_host
zn = cp.random.random(N, dtype=cp.float32).astype(cp.float64)
case("norm_cdf_f64_64M", lambda: cspecial.ndtr((zn - 0.5) / 2.0), bytes_moved=16 * N)
del zn
kde_points = np.random.default_rng(36).standard_normal(1 << 20)
kde = sst.gaussian_kde(kde_points)
kde_eval = np.linspace(-4, 4, 1 << 16)
# The full 1M x 64K evaluation takes minutes in SciPy: 1K of the 64K points
# are timed and the time scaled by 64 (the work is linear in the points).
case_scipy_cpu("gaussian_kde_1M_points_64K_eval", lambda: kde(kde_eval[::64]), n_repeat=1,
               scale=64.0, note="SciPy timed on 1024 evaluation points, scaled by 64")
del kde_points, kde, kde_eval

if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        json.dump(results, f, indent=1)
