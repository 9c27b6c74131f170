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
