// The kernels of cuda/scan.rs. TILES: blocks of tiles along lanes with
// unit inner extent; mode 0 writes the total of each tile to `totals`,
// mode 1 the scan of each tile, started from offsets[row, tile - 1].
// LANES: thread q handles chunk c = q / lanes of lane q % lanes, so
// neighbouring threads take neighbouring lanes.
@PRELUDE@
typedef @IN_T@ in_t;
typedef @ACC_T@ acc_t;
typedef @OUT_T@ out_t;
@GEO@
#define IDENT (@IDENT@)
__device__ __forceinline__ acc_t op(acc_t a, acc_t b) { return @OP@; }
__device__ __forceinline__ acc_t load(in_t raw) { return @LOAD@; }
__device__ __forceinline__ out_t store(acc_t v) { return @STORE@; }
@IF_TILES@extern "C" __global__ void cuprite_scan_tiles(const in_t* __restrict__ x, out_t* __restrict__ out, acc_t* __restrict__ totals, const acc_t* __restrict__ offsets, Geo g, long long rows, long long n, long long tiles, int mode) {
@IF_TILES@  __shared__ acc_t sh[@TILE@];
@IF_TILES@  __shared__ acc_t tsum[@THREADS@];
@IF_TILES@  const int tid = threadIdx.x;
@IF_TILES@  const long long tile = blockIdx.x;
@IF_TILES@  const long long k0 = tile * @TILE@;
@IF_TILES@  for (long long row = blockIdx.y; row < rows; row += gridDim.y) {
@IF_TILES@    long long base = 0;
@IF_TILES@@OUTER_ROW@
@IF_TILES@    // Coalesced loads into shared memory.
@IF_TILES@    #pragma unroll
@IF_TILES@    for (int e = 0; e < @ITEMS@; ++e) {
@IF_TILES@      const long long k = k0 + e * @THREADS@ + tid;
@IF_TILES@      acc_t v = IDENT;
@IF_TILES@      if (k < n) { long long off = base;
@IF_TILES@@K_OFF@
@IF_TILES@        v = load(x[off]); }
@IF_TILES@      sh[e * @THREADS@ + tid] = v;
@IF_TILES@    }
@IF_TILES@    __syncthreads();
@IF_TILES@    // Each thread folds its run of consecutive elements.
@IF_TILES@    acc_t run = IDENT;
@IF_TILES@    #pragma unroll
@IF_TILES@    for (int e = 0; e < @ITEMS@; ++e) run = op(run, sh[tid * @ITEMS@ + e]);
@IF_TILES@    // Inclusive block scan of the thread totals (Hillis-Steele).
@IF_TILES@    tsum[tid] = run;
@IF_TILES@    __syncthreads();
@IF_TILES@    for (int d = 1; d < @THREADS@; d <<= 1) {
@IF_TILES@      const acc_t prev = tid >= d ? tsum[tid - d] : IDENT;
@IF_TILES@      __syncthreads();
@IF_TILES@      if (tid >= d) tsum[tid] = op(prev, tsum[tid]);
@IF_TILES@      __syncthreads();
@IF_TILES@    }
@IF_TILES@    if (mode == 0) {
@IF_TILES@      if (tid == 0) totals[row * tiles + tile] = tsum[@LAST@];
@IF_TILES@      __syncthreads();
@IF_TILES@      continue;
@IF_TILES@    }
@IF_TILES@    acc_t prefix = tid > 0 ? tsum[tid - 1] : IDENT;
@IF_TILES@    if (offsets != 0 && tile > 0) prefix = op(offsets[row * tiles + tile - 1], prefix);
@IF_TILES@    run = prefix;
@IF_TILES@    #pragma unroll
@IF_TILES@    for (int e = 0; e < @ITEMS@; ++e) { run = op(run, sh[tid * @ITEMS@ + e]); sh[tid * @ITEMS@ + e] = run; }
@IF_TILES@    __syncthreads();
@IF_TILES@    #pragma unroll
@IF_TILES@    for (int e = 0; e < @ITEMS@; ++e) {
@IF_TILES@      const long long k = k0 + e * @THREADS@ + tid;
@IF_TILES@      if (k < n) out[row * n + k] = store(sh[e * @THREADS@ + tid]);
@IF_TILES@    }
@IF_TILES@    __syncthreads();
@IF_TILES@  }
@IF_TILES@}
@IF_LANES@extern "C" __global__ void cuprite_scan_lanes(const in_t* __restrict__ x, out_t* __restrict__ out, acc_t* __restrict__ totals, const acc_t* __restrict__ offsets, Geo g, long long rows, long long n, long long m, long long chunks, int mode) {
@IF_LANES@  const long long lanes = rows * m;
@IF_LANES@  const long long chunk = (n + chunks - 1) / chunks;
@IF_LANES@  const long long stride = (long long)gridDim.x * blockDim.x;
@IF_LANES@  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < lanes * chunks; q += stride) {
@IF_LANES@    const long long c = q / lanes, lane = q - c * lanes;
@IF_LANES@    const long long o = lane / m, i = lane - o * m;
@IF_LANES@    long long base = 0;
@IF_LANES@@OUTER_O@
@IF_LANES@@INNER_I@
@IF_LANES@    const long long lo = c * chunk;
@IF_LANES@    const long long hi = lo + chunk < n ? lo + chunk : n;
@IF_LANES@    acc_t run = IDENT;
@IF_LANES@    if (mode == 1 && offsets != 0 && c > 0) run = offsets[(o * chunks + c - 1) * m + i];
@IF_LANES@    for (long long k = lo; k < hi; ++k) {
@IF_LANES@      long long off = base;
@IF_LANES@@K_OFF@
@IF_LANES@      run = op(run, load(x[off]));
@IF_LANES@      if (mode == 1) out[(o * n + k) * m + i] = store(run);
@IF_LANES@    }
@IF_LANES@    if (mode == 0) totals[(o * chunks + c) * m + i] = run;
@IF_LANES@  }
@IF_LANES@}
