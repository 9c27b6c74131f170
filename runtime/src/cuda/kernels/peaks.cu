@PRELUDE@
// Cuprite peak scans (see cuda/peaks.rs): SciPy's per-peak loops of
// peak_prominences and peak_widths, one thread per peak, and the distance
// rule of find_peaks as rounds of a maximal independent set in one block.

extern "C" __global__ void cuprite_peak_prominences(const double* __restrict__ x, long long n,
    const long long* __restrict__ peaks, long long np, long long wlen,
    double* prom, long long* left_bases, long long* right_bases)
{
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < np; p += (long long)gridDim.x * blockDim.x) {
    const long long peak = peaks[p];
    long long i_min = 0, i_max = n - 1;
    if (wlen >= 2) {
      i_min = peak - wlen / 2 > 0 ? peak - wlen / 2 : 0;
      i_max = peak + wlen / 2 < n - 1 ? peak + wlen / 2 : n - 1;
    }
    const double xp = x[peak];
    long long lb = peak, i = peak;
    double left_min = xp;
    while (i_min <= i && x[i] <= xp) {
      if (x[i] < left_min) { left_min = x[i]; lb = i; }
      --i;
    }
    long long rb = peak;
    double right_min = xp;
    i = peak;
    while (i <= i_max && x[i] <= xp) {
      if (x[i] < right_min) { right_min = x[i]; rb = i; }
      ++i;
    }
    prom[p] = xp - (left_min > right_min ? left_min : right_min);
    left_bases[p] = lb;
    right_bases[p] = rb;
  }
}

extern "C" __global__ void cuprite_peak_widths(const double* __restrict__ x,
    const long long* __restrict__ peaks, long long np, double rel_height,
    const double* __restrict__ prom, const long long* __restrict__ lb, const long long* __restrict__ rb,
    double* widths, double* heights, double* left_ips, double* right_ips)
{
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < np; p += (long long)gridDim.x * blockDim.x) {
    const long long peak = peaks[p], i_min = lb[p], i_max = rb[p];
    const double height = x[peak] - prom[p] * rel_height;
    long long i = peak;
    while (i_min < i && height < x[i]) --i;
    double left = (double)i;
    if (x[i] < height) left += (height - x[i]) / (x[i + 1] - x[i]);
    i = peak;
    while (i < i_max && height < x[i]) ++i;
    double right = (double)i;
    if (x[i] < height) right -= (height - x[i]) / (x[i - 1] - x[i]);
    widths[p] = right - left;
    heights[p] = height;
    left_ips[p] = left;
    right_ips[p] = right;
  }
}

// Whether peak k goes before peak i: higher priority, ties to the later
// one. Priorities compare as numbers (-0.0 ties with 0.0, as in NumPy's
// sort) and NaN ranks above everything (where NumPy sorts it), so this is
// a strict total order, the one of cpu/peaks.rs's priority_order.
__device__ __forceinline__ bool beats(const double* prio, long long k, long long i) {
  const double pk = prio[k], pi = prio[i];
  const bool nk = pk != pk, ni = pi != pi;
  if (nk || ni) return nk && (!ni || k > i);
  return pk > pi || (pk == pi && k > i);
}

// state: 0 undecided, 1 kept, 2 removed. Each round keeps every undecided
// peak that beats all not-removed peaks within `distance` (the greedy
// order would keep it too: everything before it nearby is already
// removed), then removes the undecided peaks near a kept one. The global
// best undecided peak is kept every round, so the rounds end.
extern "C" __global__ void cuprite_peaks_by_distance(const long long* __restrict__ peaks,
    const double* __restrict__ prio, long long np, long long distance,
    unsigned char* state, bool* keep)
{
  __shared__ int undecided;
  for (long long i = threadIdx.x; i < np; i += blockDim.x) state[i] = 0;
  __syncthreads();
  while (true) {
    if (threadIdx.x == 0) undecided = 0;
    __syncthreads();
    for (long long i = threadIdx.x; i < np; i += blockDim.x) {
      if (state[i] != 0) continue;
      bool top = true;
      for (long long k = i - 1; top && k >= 0 && peaks[i] - peaks[k] < distance; --k)
        if (state[k] != 2 && beats(prio, k, i)) top = false;
      for (long long k = i + 1; top && k < np && peaks[k] - peaks[i] < distance; ++k)
        if (state[k] != 2 && beats(prio, k, i)) top = false;
      if (top) state[i] = 1;
    }
    __syncthreads();
    for (long long i = threadIdx.x; i < np; i += blockDim.x) {
      if (state[i] != 0) continue;
      bool near = false;
      for (long long k = i - 1; !near && k >= 0 && peaks[i] - peaks[k] < distance; --k)
        near = state[k] == 1;
      for (long long k = i + 1; !near && k < np && peaks[k] - peaks[i] < distance; ++k)
        near = state[k] == 1;
      if (near) state[i] = 2; else undecided = 1;
    }
    __syncthreads();
    if (!undecided) break;
    __syncthreads();
  }
  for (long long i = threadIdx.x; i < np; i += blockDim.x) keep[i] = state[i] == 1;
}

// Local maxima of find_peaks (SciPy's _local_maxima_1d) with the plateau,
// height and threshold conditions, compacted in two passes over tiles of
// PK_THREADS * PK_ITEMS samples: the first counts each tile's peaks, the
// second (after a scan of the counts) makes the same decisions again and
// writes each peak at its rank. A peak is found by the thread of its
// plateau's left edge, so ranks in sample order are ranks in peak order.
#define PK_THREADS @THREADS@
#define PK_ITEMS @ITEMS@
#define PK_WARPS (PK_THREADS / 32)
#define PK_MAX_WALK @MAX_WALK@LL

// Bounds: plateau size, height, threshold, each min then max; bit i of
// mask says bound i is given.
struct PeakConds { double b[6]; long long mask; };

__device__ __forceinline__ bool pk_within(double v, const PeakConds& c, int at) {
  return (!(c.mask >> at & 1) || v >= c.b[at]) && (!(c.mask >> (at + 1) & 1) || v <= c.b[at + 1]);
}

// Whether i is the left edge of a peak that meets the conditions (its
// right edge in *right). A rise into i, equal samples, then a fall: a
// comparison with NaN is false, so a NaN next to a plateau makes no peak.
// A plateau walked past PK_MAX_WALK samples sets *too_long instead (the
// caller then takes its array path: one thread would walk it too slowly).
__device__ __forceinline__ bool pk_peak_at(const double* __restrict__ x, long long n, long long i,
    const PeakConds& c, long long* right, bool* too_long)
{
  if (i < 1 || i >= n - 1) return false;
  const double xi = x[i];
  if (!(x[i - 1] < xi)) return false;
  long long ahead = i + 1;
  while (ahead < n - 1 && x[ahead] == xi) {
    if (ahead - i >= PK_MAX_WALK) { *too_long = true; return false; }
    ++ahead;
  }
  if (!(x[ahead] < xi)) return false;
  const long long r = ahead - 1, mid = (i + r) / 2;
  *right = r;
  const double xm = x[mid], tl = xm - x[mid - 1], tr = xm - x[mid + 1];
  return pk_within((double)(r - i + 1), c, 0) && pk_within(xm, c, 2)
      && pk_within(tl, c, 4) && pk_within(tr, c, 4);
}

// counts[b]: the peaks whose left edge lies in tile b; *too_long (zeroed
// by the caller) becomes 1 when a plateau is too long to walk.
extern "C" __global__ void __launch_bounds__(PK_THREADS) cuprite_local_peaks_count(
    const double* __restrict__ x, long long n, PeakConds c, long long* counts, long long* too_long)
{
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  const long long base = (long long)blockIdx.x * (PK_THREADS * PK_ITEMS) + threadIdx.x;
  int count = 0;
  bool walked_off = false;
#pragma unroll
  for (int k = 0; k < PK_ITEMS; ++k) {
    long long r;
    count += pk_peak_at(x, n, base + k * PK_THREADS, c, &r, &walked_off) ? 1 : 0;
  }
  for (int o = 16; o > 0; o >>= 1) count += __shfl_down_sync(0xffffffffu, count, o);
  if ((threadIdx.x & 31) == 0 && count) atomicAdd(&total, count);
  if (walked_off) *too_long = 1;
  __syncthreads();
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

// The peaks of tile b at ranks from ends[b - 1] (ends: the inclusive scan
// of the counts), in sample order: k-major within the tile, then warps,
// then lanes. The property outputs are null when not asked for.
extern "C" __global__ void __launch_bounds__(PK_THREADS) cuprite_local_peaks_write(
    const double* __restrict__ x, long long n, PeakConds c, const long long* __restrict__ ends,
    long long* peaks, long long* lefts, long long* rights, double* heights,
    double* left_thr, double* right_thr)
{
  __shared__ int ranks[PK_ITEMS * PK_WARPS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const long long base = (long long)blockIdx.x * (PK_THREADS * PK_ITEMS) + threadIdx.x;
  unsigned ballots[PK_ITEMS];
  long long rs[PK_ITEMS];
  bool walked_off = false;
#pragma unroll
  for (int k = 0; k < PK_ITEMS; ++k) {
    rs[k] = 0;
    const bool f = pk_peak_at(x, n, base + k * PK_THREADS, c, &rs[k], &walked_off);
    ballots[k] = __ballot_sync(0xffffffffu, f);
    if (lane == 0) ranks[k * PK_WARPS + warp] = __popc(ballots[k]);
  }
  __syncthreads();
  // Exclusive scan of the per-(k, warp) counts in that order, by warp 0.
  if (warp == 0) {
    int carry = 0;
    for (int chunk = 0; chunk < PK_ITEMS * PK_WARPS; chunk += 32) {
      const int at = chunk + lane;
      const int v = at < PK_ITEMS * PK_WARPS ? ranks[at] : 0;
      int incl = v;
      for (int o = 1; o < 32; o <<= 1) {
        const int u = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += u;
      }
      if (at < PK_ITEMS * PK_WARPS) ranks[at] = carry + incl - v;
      carry += __shfl_sync(0xffffffffu, incl, 31);
    }
  }
  __syncthreads();
  const long long start = blockIdx.x > 0 ? ends[blockIdx.x - 1] : 0;
#pragma unroll
  for (int k = 0; k < PK_ITEMS; ++k) {
    if (!(ballots[k] >> lane & 1u)) continue;
    const long long at = start + ranks[k * PK_WARPS + warp] + __popc(ballots[k] & ((1u << lane) - 1u));
    const long long i = base + k * PK_THREADS, r = rs[k], mid = (i + r) / 2;
    peaks[at] = mid;
    if (lefts) { lefts[at] = i; rights[at] = r; }
    const double xm = x[mid];
    if (heights) heights[at] = xm;
    if (left_thr) { left_thr[at] = xm - x[mid - 1]; right_thr[at] = xm - x[mid + 1]; }
  }
}
