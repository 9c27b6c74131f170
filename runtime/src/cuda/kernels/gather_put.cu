
typedef @T@ T;
typedef @IDX_T@ idx_t;
typedef @TGT_T@ tgt_t;
@SUPPORT@
@GEO@
@RESOLVE@
__device__ __forceinline__ long long target(const idx_t* idx, long long k, long long n) { long long j = resolve(@INDEX@, n); return (j < 0 || j >= n) ? -1 : j; }
// Few indices: each writes unless a later index names the same target.
extern "C" __global__ void cuprite_put(T* a, const T* __restrict__ vals, const idx_t* __restrict__ idx, Geo g, long long k_n, long long len, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < k_n; k += stride) {
    const long long j = target(idx, k, n);
    if (j < 0) continue;
    bool later = false;
    for (long long k2 = k + 1; k2 < k_n && !later; ++k2) later = target(idx, k2, n) == j;
    if (later) continue;
    long long off = 0;
@UNRAVEL@
    a[off] = vals[k % len];
  }
}
// Many indices: resolved targets (in range after the checks), stably
// argsorted by the caller; the last of each run of equal targets writes.
extern "C" __global__ void cuprite_put_targets(const idx_t* __restrict__ idx, long long k_n, long long n, tgt_t* __restrict__ targets) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < k_n; k += stride) {
    const long long j = target(idx, k, n);
    targets[k] = (tgt_t)(j < 0 ? 0 : j);
  }
}
extern "C" __global__ void cuprite_put_sorted(T* a, const T* __restrict__ vals, const long long* __restrict__ order, const tgt_t* __restrict__ targets, Geo g, long long k_n, long long len) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < k_n; q += stride) {
    const long long k = order[q];
    const long long j = (long long)targets[k];
    if (q + 1 < k_n && (long long)targets[order[q + 1]] == j) continue;
    long long off = 0;
@UNRAVEL@
    a[off] = vals[k % len];
  }
}
// ufunc.at: the first of each run of equal targets folds the run's values
// into its target in index order (the sort is stable), as NumPy does.
extern "C" __global__ void cuprite_put_fold(T* a, const T* __restrict__ vals, const long long* __restrict__ order, const tgt_t* __restrict__ targets, Geo g, long long k_n, long long len) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < k_n; q += stride) {
    const long long j = (long long)targets[order[q]];
    if (q > 0 && (long long)targets[order[q - 1]] == j) continue;
    long long off = 0;
@UNRAVEL@
    T acc = a[off];
    for (long long r = q; r < k_n && (long long)targets[order[r]] == j; ++r) {
      const T v = vals[order[r] % len];
      @FOLD@
    }
    a[off] = acc;
  }
}
