"""CuPy's side of the cuprite-bench cases that shared/bench/cupy_bench.py lacks.

Same timing (cupyx.profiler.benchmark: CUDA events for the GPU time, host clock
for the CPU time, medians after warm-up) and the same JSON rows and case names as
cuprite-bench, so both can be joined by case. Run after cupy_bench.py in the same
GPU session:

    python3 cupy_extra.py [out.json] [--sections NAME,NAME...] [--cases NAME,NAME...] [--list]

All sections together take longer than one call on the GPU machine may run, so
a run can take some of them (`--list` names them); each section sets up its own
inputs and frees them at its end. --cases runs only the cases named (their
sections still set up their inputs), as cuprite-bench's --case does.
"""
import argparse
import inspect
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np
import cupy as cp
import cupyx.scipy.special as csp
from cupyx.profiler import benchmark

results = []
# The case names --cases keeps (None: every case).
only_cases = None


def case(name, fn, bytes_moved=None, n_repeat=20, n_warmup=3):
    if only_cases is not None and name not in only_cases:
        return
    try:
        r = benchmark(fn, (), n_repeat=n_repeat, n_warmup=n_warmup)
    except Exception as e:  # one case's failure must not cost the rest of the run
        row = {"case": name, "error": f"{type(e).__name__}: {e}".splitlines()[0]}
        results.append(row)
        print(json.dumps(row), flush=True)
        return
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


def section_kernels():
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


def section_special():
    # SciPy's special functions (issue 34's cases; cuprite-bench's x is uniform in [0, 1)).
    case("gammaln_f32_64M", lambda: csp.gammaln(x, out), bytes_moved=8 * N)
    case("erfinv_f32_64M", lambda: csp.erfinv(x, out), bytes_moved=8 * N)
    x64 = x.astype(cp.float64)
    out64 = cp.empty_like(x64)
    # CuPy has no stats.norm; ndtr is the standard normal CDF.
    case("norm_cdf_f64_64M", lambda: csp.ndtr(x64, out64), bytes_moved=16 * N)


def section_latency():
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


def section_d2h():
    # A device-to-host copy into a host array that already exists (cuprite-bench's
    # copy_to_slice beside cupy_bench.py's d2h_pageable_256MB).
    host_out = np.empty(N, dtype=np.float32)
    case("d2h_pageable_into_existing_256MB", lambda: cp.asnumpy(x, out=host_out), bytes_moved=4 * N, n_repeat=5)


def section_stats():
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


def section_manip():
    # Manipulation (issue 20): the setups of cuprite-bench's manip.rs.
    a8 = cp.random.random((8192, 8192), dtype=cp.float32)
    case("roll_2d_8192sq", lambda: cp.roll(a8, (100, 200), axis=(0, 1)), bytes_moved=8 * 8192 * 8192)
    sq4 = a8[:4096, :4096].copy()
    case("pad_reflect_4096sq", lambda: cp.pad(sq4, 64, mode="reflect"),
         bytes_moved=4 * (4096 * 4096 + 4224 * 4224))


def section_search():
    # Sorting and searching: the setups of cuprite-bench's search.rs.
    ints = cp.random.randint(0, 1 << 20, 1 << 24, dtype=cp.int32)
    case("unique_i32_16M", lambda: cp.unique(ints), bytes_moved=8 * (1 << 24))
    haystack = cp.sort(cp.random.random(1 << 24, dtype=cp.float32))
    needles = cp.random.random(1 << 20, dtype=cp.float32)
    case("searchsorted_f32_16M_into_1M", lambda: cp.searchsorted(haystack, needles), bytes_moved=12 * (1 << 20))
    # Counting and binning: the setups of cuprite-bench's binning.rs.
    xh = cp.random.random(N, dtype=cp.float32)
    case("histogram_f32_64M_256bins", lambda: cp.histogram(xh, 256), bytes_moved=4 * N)
    k = cp.random.randint(0, 1000, N, dtype=cp.int32)
    case("bincount_i32_64M", lambda: cp.bincount(k), bytes_moved=4 * N)


def section_io():
    # File input and output: the setups of cuprite-bench's io.rs (files in the
    # page cache: written once, then timed; $CUPRITE_BENCH_TMP or the temp dir).

    io_dir = tempfile.mkdtemp(prefix="cupy-bench-io-", dir=os.environ.get("CUPRITE_BENCH_TMP"))
    xg = cp.random.random(1 << 28, dtype=cp.float32)
    load_path = os.path.join(io_dir, "load.npy")
    np.save(load_path, cp.asnumpy(xg))
    case("npy_load_1GB_to_device", lambda: cp.asarray(np.load(load_path)), bytes_moved=4 * (1 << 28),
         n_repeat=5, n_warmup=1)
    save_path = os.path.join(io_dir, "save.npy")
    case("npy_save_1GB_from_device", lambda: np.save(save_path, cp.asnumpy(xg)), bytes_moved=4 * (1 << 28),
         n_repeat=5, n_warmup=1)
    CSV_ROWS = 1_310_720
    csv_path = os.path.join(io_dir, "table.csv")
    table = (np.arange(10 * CSV_ROWS, dtype=np.int64) % 1_000_003).reshape(CSV_ROWS, 10) / 1000.0
    np.savetxt(csv_path, table, fmt="%.3f", delimiter=",")
    case("loadtxt_csv_100MB", lambda: cp.asarray(np.loadtxt(csv_path, delimiter=",")),
         bytes_moved=os.path.getsize(csv_path), n_repeat=3, n_warmup=1)
    shutil.rmtree(io_dir, ignore_errors=True)


def section_iir():
    # IIR filtering (bench/signal.rs): float32 sections over 64 channels, and a
    # float64 zero-phase filter over 16M samples.
    from cupyx.scipy import signal as csignal
    sos32 = csignal.butter(8, 0.1, output="sos").astype(cp.float32)
    chans = cp.random.random((64, 1 << 20), dtype=cp.float32)
    case("sosfilt_order8_64ch_1M", lambda: csignal.sosfilt(sos32, chans), n_repeat=5, n_warmup=2)
    b_iir, a_iir = csignal.butter(4, 0.1)
    long_x = cp.random.random(1 << 24, dtype=cp.float32).astype(cp.float64)
    case("filtfilt_order4_16M", lambda: csignal.filtfilt(b_iir, a_iir, long_x), n_repeat=5, n_warmup=2)


def section_interpolate():
    # Interpolation (bench/interpolate.rs): evaluation only, construction
    # outside the timed region. A not-a-knot CubicSpline through 1M float64
    # knots at 16M float64 points; linear RegularGridInterpolator of a 512^3
    # float32 grid at 16M float64 points (CuPy returns float64, as Cuprite).
    from cupyx.scipy import interpolate as cinterp
    knots = cp.cumsum(0.5 + cp.random.random(1 << 20, dtype=cp.float64))
    spline = cinterp.CubicSpline(knots, cp.random.random(1 << 20, dtype=cp.float64))
    span = float(knots[-1])
    xi_s = 0.5 + cp.random.random(1 << 24, dtype=cp.float64) * (span - 0.5)
    case("cubic_spline_1M_knots_16M_eval", lambda: spline(xi_s), bytes_moved=16 * (1 << 24),
         n_repeat=10, n_warmup=2)
    # The cubic B-spline timed whole: construction through the 1M knots plus
    # 16M evaluations.
    y_s = cp.random.random(1 << 20, dtype=cp.float64)
    case("make_interp_spline_k3_1M_eval_16M",
         lambda: cinterp.make_interp_spline(knots, y_s, k=3)(xi_s),
         bytes_moved=16 * (1 << 24), n_repeat=5, n_warmup=1)
    g512 = cp.linspace(0.0, 1.0, 512)
    grid = cinterp.RegularGridInterpolator((g512, g512, g512),
                                           cp.random.random((512, 512, 512), dtype=cp.float32),
                                           method="linear", bounds_error=False)
    pts = cp.random.random((1 << 24, 3), dtype=cp.float64)
    case("regular_grid_interp_512cube_16M_points", lambda: grid(pts), bytes_moved=32 * (1 << 24),
         n_repeat=10, n_warmup=2)
    # interpn timed whole on a 64^3 float64 grid at 1M points: cubic, quintic, pchip.
    g64 = cp.linspace(0.0, 1.0, 64)
    v64 = cp.random.random((64, 64, 64), dtype=cp.float64)
    pts = cp.random.random((1 << 20, 3), dtype=cp.float64)
    for method in ["cubic", "quintic", "pchip"]:
        case(f"interpn_{method}_64cube_1M_points",
             lambda m=method: cinterp.interpn((g64, g64, g64), v64, pts, method=m),
             bytes_moved=32 * (1 << 20), n_repeat=5, n_warmup=1)


def section_ndimage():
    # ndimage (bench/ndimage.rs): float32 images of uniform random values,
    # thresholded for the binary cases; map_coordinates reads a float64 grid.
    from cupyx.scipy import ndimage as cnd
    big = cp.random.random((4096, 4096), dtype=cp.float32)
    mid = cp.random.random((2048, 2048), dtype=cp.float32)
    case("gaussian_filter_4096sq_sigma4", lambda: cnd.gaussian_filter(big, 4.0), bytes_moved=8 * 4096 * 4096)
    case("median_filter_2048sq_5x5", lambda: cnd.median_filter(mid, size=5))
    ax = cp.arange(4096, dtype=cp.float64) * 0.9995 + 0.25
    grid = cp.stack([cp.broadcast_to(ax[:, None], (4096, 4096)), cp.broadcast_to(ax[None, :], (4096, 4096))])
    case("map_coordinates_order3_4096sq", lambda: cnd.map_coordinates(big, grid, order=3), n_repeat=5, n_warmup=2)
    case("zoom_order1_2048sq_x2", lambda: cnd.zoom(mid, 2.0, order=1), bytes_moved=4 * 5 * 2048 * 2048)
    bw = big > 0.5
    case("label_4096sq", lambda: cnd.label(bw), n_repeat=5, n_warmup=2)
    dense = big > 0.05
    case("label_4096sq_dense", lambda: cnd.label(dense), n_repeat=5, n_warmup=2)
    sparse_zeros = mid > 0.001
    case("distance_transform_edt_2048sq", lambda: cnd.distance_transform_edt(sparse_zeros), n_repeat=5, n_warmup=2)
    one_zero = cp.ones((2048, 2048), dtype=bool)
    one_zero[1000, 1000] = False
    every_other = (cp.arange(2048 * 2048) % 2 == 1).reshape(2048, 2048)
    for name, m in [("one_zero", one_zero), ("all_zero", cp.zeros((2048, 2048), dtype=bool)), ("every_other", every_other)]:
        case("distance_transform_edt_2048sq_" + name, lambda m=m: cnd.distance_transform_edt(m), n_repeat=5, n_warmup=2)
    mostly = big > 0.2
    # CuPy implements iterations > 1 only as brute_force (each pass over the whole image).
    case("binary_erosion_4096sq_10iter", lambda: cnd.binary_erosion(mostly, iterations=10, brute_force=True), n_repeat=5, n_warmup=2)


def section_sparse():
    # Sparse linear algebra (bench/sparse_linalg.rs): the same float64 grid
    # matrices, tolerances of 0 so both sides do the same fixed work.

    import cupyx.scipy.sparse as csparse
    import cupyx.scipy.sparse.linalg as cslinalg

    def grid5(m, kind, c=0.0):
        """The 5-point operator of bench/sparse_linalg.rs on an m x m grid."""
        idx = np.arange(m * m).reshape(m, m)
        rows, cols, vals = [], [], []

        def link(src, dst, v):
            rows.append(src.ravel())
            cols.append(dst.ravel())
            vals.append(np.full(src.size, v))

        degree = np.zeros((m, m))
        degree[1:, :] += 1
        degree[:-1, :] += 1
        degree[:, 1:] += 1
        degree[:, :-1] += 1
        link(idx[1:, :], idx[:-1, :], -1.0)
        link(idx[:, 1:], idx[:, :-1], -1.0 - (c if kind == "convdiff" else 0.0))
        link(idx[:, :-1], idx[:, 1:], -1.0)
        link(idx[:-1, :], idx[1:, :], -1.0)
        rows.append(idx.ravel())
        cols.append(idx.ravel())
        vals.append(degree.ravel() if kind == "laplacian" else np.full(m * m, 4.0 + c))
        a = csparse.coo_matrix(
            (cp.asarray(np.concatenate(vals)), (cp.asarray(np.concatenate(rows)), cp.asarray(np.concatenate(cols)))),
            shape=(m * m, m * m),
        ).tocsr()
        a.sum_duplicates()
        return a

    def no_tolerance(fn):
        """tol=0 (rtol=0 in newer CuPy) and atol=0: the solver never stops early."""
        params = inspect.signature(fn).parameters
        kw = {"atol": 0.0}
        kw["rtol" if "rtol" in params else "tol"] = 0.0
        return kw

    a_sp = grid5(2048, "poisson")
    ones = cp.ones(a_sp.shape[0])
    case("cg_poisson2d_2048sq", lambda: cslinalg.cg(a_sp, ones, maxiter=100, **no_tolerance(cslinalg.cg)),
         n_repeat=5, n_warmup=1)
    a_sp = grid5(1024, "convdiff", c=0.05)
    ones = cp.ones(a_sp.shape[0])
    # CuPy's gmres counts maxiter in inner steps (SciPy's, and Cuprite's, in
    # restart cycles): 100 inner steps = 5 cycles of 20 on both sides.
    case("gmres_convdiff_1M",
         lambda: cslinalg.gmres(a_sp, ones, restart=20, maxiter=100, **no_tolerance(cslinalg.gmres)),
         n_repeat=5, n_warmup=1)
    a_sp = grid5(1024, "laplacian")
    # CuPy's eigsh counts maxiter in Lanczos steps (ncv at first, ncv - k per
    # restart; it stopped after the first 42 at maxiter=10), Cuprite's in
    # restarts: 330 steps = Cuprite's 10 restarts of 42 + 9 x 32 steps.
    case("eigsh_laplacian_1M_k10", lambda: cslinalg.eigsh(a_sp, k=10, which="LA", ncv=42, maxiter=330, tol=0),
         n_repeat=3, n_warmup=1)
    a_sp = grid5(512, "poisson")
    ones = cp.ones(a_sp.shape[0])
    case("spsolve_poisson2d_512sq", lambda: cslinalg.spsolve(a_sp, ones), n_repeat=3, n_warmup=1)
    # 100 LSMR iterations on gmres_convdiff_1M's matrix, tolerances 0.
    a_sp = grid5(1024, "convdiff", c=0.05)
    ones = cp.ones(a_sp.shape[0])
    case("lsmr_convdiff_1M", lambda: cslinalg.lsmr(a_sp, ones, atol=0.0, btol=0.0, maxiter=100),
         n_repeat=5, n_warmup=1)
    # cg_ic0_poisson2d_512sq: the factorization and 50 preconditioned CG
    # iterations, tolerances 0. CuPy has no IC(0) (and scipy's spilu is SuperLU's
    # threshold ILU, which cupyx runs on the CPU); spilu(A, fill_factor=1) is the
    # zero-fill ILU(0) it computes on the GPU with cuSPARSE csrilu02, solving on
    # the GPU. For this symmetric matrix ILU(0) is the same preconditioner as
    # Cuprite's IC(0) (L U = L D L^T = L_ic L_ic^T), so the work is comparable.
    a_sp = grid5(512, "poisson")
    ones = cp.ones(a_sp.shape[0])

    def cg_ilu0():
        lu = cslinalg.spilu(a_sp, fill_factor=1)
        m = cslinalg.LinearOperator(a_sp.shape, matvec=lu.solve, dtype=a_sp.dtype)
        return cslinalg.cg(a_sp, ones, maxiter=50, M=m, **no_tolerance(cslinalg.cg))

    case("cg_ic0_poisson2d_512sq", cg_ilu0, n_repeat=5, n_warmup=1)


def section_spectra():
    from cupyx.scipy import signal as csignal

    # Spectra, peaks and resampling (bench/spectra.rs): Welch over 64M float32
    # samples (Hann, 4096-sample segments, half overlap), find_peaks with a
    # height condition over 16M float64 samples, resample_poly by 3/2 of 16M
    # float32 samples.
    x_w = cp.random.random(1 << 26, dtype=cp.float32)
    case("welch_64M_nperseg4096", lambda: csignal.welch(x_w, nperseg=4096), n_repeat=5, n_warmup=2)
    x_p = cp.random.random(1 << 24, dtype=cp.float32).astype(cp.float64)
    case("find_peaks_16M", lambda: csignal.find_peaks(x_p, height=0.5), n_repeat=5, n_warmup=2)
    x_r = cp.random.random(1 << 24, dtype=cp.float32)
    case("resample_poly_16M_up3_down2", lambda: csignal.resample_poly(x_r, 3, 2), n_repeat=5, n_warmup=2)


def section_jit():
    # Kernels written in Python with cupyx.jit (bench/jit.rs writes the same
    # kernels in Rust with #[cp::jit::kernel]).
    from cupyx import jit

    sum_squares = cp.ReductionKernel("float32 x", "float32 y", "x * x", "a + b", "y = a", "0", "sum_squares")

    @jit.rawkernel()
    def saxpy_jit(a, x, y, out):
        i = jit.blockDim.x * jit.blockIdx.x + jit.threadIdx.x
        if i < x.size:
            out[i] = a * x[i] + y[i]

    @jit.rawkernel()
    def block_sum_jit(x, out):
        partial = jit.shared_memory(cp.float32, 32)
        tid = jit.blockIdx.x * jit.blockDim.x + jit.threadIdx.x
        ntid = jit.gridDim.x * jit.blockDim.x
        v = cp.float32(0)
        for i in range(tid, x.size, ntid):
            v += x[i]
        offset = 16
        while offset > 0:
            v += jit.shfl_down_sync(0xffffffff, v, cp.uint32(offset))
            offset //= 2
        t = jit.threadIdx.x
        if t % 32 == 0:
            partial[t // 32] = v
        jit.syncthreads()
        if t < 32:
            s = cp.float32(0)
            if t < jit.blockDim.x // 32:
                s = partial[t]
            o = 16
            while o > 0:
                s += jit.shfl_down_sync(0xffffffff, s, cp.uint32(o))
                o //= 2
            if t == 0:
                jit.atomic_add(out, 0, s)

    x = cp.random.random(N, dtype=cp.float32)
    y = cp.random.random(N, dtype=cp.float32)
    out = cp.empty_like(x)
    case("jit_saxpy_64M", lambda: saxpy_jit[((N + 255) // 256,), (256,)](cp.float32(2.0), x, y, out),
         bytes_moved=12 * N)
    total = cp.zeros(1, dtype=cp.float32)
    case("jit_block_sum_64M", lambda: block_sum_jit[(1024,), (256,)](x, total), bytes_moved=4 * N)
    # cupyx.jit has no reduction decorator (only rawkernel), so the closest
    # equivalent of a #[cp::jit::reduction] is a ReductionKernel with the same map
    # (x * x), reduce (a + b) and identity (0): `sum_squares`, as in section_kernels.
    case("jit_sum_squares_64M", lambda: sum_squares(x), bytes_moved=4 * N)
    small = cp.arange(1000).astype(cp.float32)
    small_out = cp.empty_like(small)
    case("jit_warm_call_1K", lambda: saxpy_jit[(4,), (256,)](cp.float32(2.0), small, small, small_out),
         n_repeat=200, n_warmup=10)


def section_scipy_stats():
    # SciPy's statistics (bench/scipy_stats.rs, issue 34). CuPy has the normal
    # CDF (cupyx.scipy.special.ndtr) but no rankdata or gaussian_kde: those rows
    # time SciPy on the host's cores instead and say so.
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
    zn = cp.random.random(N, dtype=cp.float32).astype(cp.float64)
    case("norm_dist_cdf_f64_64M", lambda: cspecial.ndtr((zn - 0.5) / 2.0), bytes_moved=16 * N)
    kde_points = np.random.default_rng(36).standard_normal(1 << 20)
    kde = sst.gaussian_kde(kde_points)
    kde_eval = np.linspace(-4, 4, 1 << 16)
    # The full 1M x 64K evaluation takes minutes in SciPy: 1K of the 64K points
    # are timed and the time scaled by 64 (the work is linear in the points).
    case_scipy_cpu("gaussian_kde_1M_points_64K_eval", lambda: kde(kde_eval[::64]), n_repeat=1,
                   scale=64.0, note="SciPy timed on 1024 evaluation points, scaled by 64")


def section_fusion():
    # Automatic fusion (issue 36): the plain CuPy versions of runtime/bench/fusion.rs.
    side = 8192
    M = cp.random.random((side, side), dtype=cp.float32)
    def softmax_rows():
        e = cp.exp(M - M.max(axis=1)[:, None])
        return (e / e.sum(axis=1)[:, None]).sum()
    case("softmax_rows_8192sq", softmax_rows, bytes_moved=8 * side * side)
    def heat_step():
        c = M[1:-1, 1:-1]
        lap = M[:-2, 1:-1] + M[2:, 1:-1] + M[1:-1, :-2] + M[1:-1, 2:] - 4.0 * c
        return (c + 0.1 * lap).sum()
    case("heat_step_8192sq", heat_step, bytes_moved=8 * side * side)
    case("var_axis0_8192sq", lambda: M.var(axis=0), bytes_moved=4 * side * side)
    P = cp.random.random((4096, 3), dtype=cp.float32)
    Q = cp.random.random((4096, 3), dtype=cp.float32)
    case("distance_matrix_4096x3", lambda: cp.sqrt(((P[:, None, :] - Q[None, :, :]) ** 2).sum(-1)),
         bytes_moved=4 * 4096 * 4096)


SECTIONS = {name[len("section_"):]: fn for name, fn in list(globals().items()) if name.startswith("section_")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", help="write the rows as one JSON list to this file")
    parser.add_argument("--sections", help="comma-separated sections to run (default: all)")
    parser.add_argument("--cases", help="comma-separated case names to run (default: every case of the sections)")
    parser.add_argument("--list", action="store_true", help="name the sections and exit")
    args = parser.parse_args()
    global only_cases
    if args.cases:
        only_cases = set(args.cases.split(","))
    if args.list:
        print(" ".join(SECTIONS))
        return
    chosen = args.sections.split(",") if args.sections else list(SECTIONS)
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        sys.exit(f"unknown sections {unknown}; known: {' '.join(SECTIONS)}")
    try:
        for name in chosen:
            SECTIONS[name]()
            cp.get_default_memory_pool().free_all_blocks()
    finally:
        if args.out:
            with open(args.out, "w") as f:
                json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
