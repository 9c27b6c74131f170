typedef @T@ T;
// NumPy's sort order: whether `a` sorts strictly before `b` (NaNs last).
__device__ __forceinline__ bool before(T a, T b) { @BEFORE@ }
@IF_SEARCH@// out[q]: where v[q] goes in the sorted a[0], a[step], ..., a[(n - 1) * step]:
@IF_SEARCH@// the first position that keeps the order, or the last (`right`).
@IF_SEARCH@extern "C" __global__ void cuprite_searchsorted(const T* __restrict__ a, long long n, long long step, const T* __restrict__ v, long long* __restrict__ out, long long total, int right) {
@IF_SEARCH@  const long long stride = (long long)gridDim.x * blockDim.x;
@IF_SEARCH@  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += stride) {
@IF_SEARCH@    const T x = v[q];
@IF_SEARCH@    long long lo = 0, hi = n;
@IF_SEARCH@    while (lo < hi) {
@IF_SEARCH@      const long long mid = lo + ((hi - lo) >> 1);
@IF_SEARCH@      const T y = a[mid * step];
@IF_SEARCH@      // Left: past every element sorting before x; right: past every one not after it.
@IF_SEARCH@      if (right ? !before(x, y) : before(y, x)) lo = mid + 1; else hi = mid;
@IF_SEARCH@    }
@IF_SEARCH@    out[q] = lo;
@IF_SEARCH@  }
@IF_SEARCH@}
@IF_UNIQUE@// Whether neighbours of the sorted order are one distinct value.
@IF_UNIQUE@__device__ __forceinline__ bool same(T a, T b) { @SAME@ }
@IF_UNIQUE@// Element q of the sorted order: x itself, or x read through the sorting permutation.
@IF_UNIQUE@__device__ __forceinline__ T sorted_at(const T* x, const long long* perm, long long q) { return perm ? x[perm[q]] : x[q]; }
@IF_UNIQUE@// flags[q]: element q of the sorted order starts a run of one value.
@IF_UNIQUE@extern "C" __global__ void cuprite_unique_flags(const T* __restrict__ x, const long long* __restrict__ perm, bool* __restrict__ flags, long long n) {
@IF_UNIQUE@  const long long stride = (long long)gridDim.x * blockDim.x;
@IF_UNIQUE@  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n; q += stride)
@IF_UNIQUE@    flags[q] = q == 0 || !same(sorted_at(x, perm, q - 1), sorted_at(x, perm, q));
@IF_UNIQUE@}
@IF_UNIQUE@// runs[q]: the running count of flags, so element q belongs to run runs[q] - 1.
@IF_UNIQUE@// Each run's first element writes its value (and position); every element
@IF_UNIQUE@// its run number at its input position; each run's last element its end.
@IF_UNIQUE@extern "C" __global__ void cuprite_unique_scatter(const T* __restrict__ x, const long long* __restrict__ perm, const long long* __restrict__ runs, T* __restrict__ values, long long* __restrict__ index, long long* __restrict__ inverse, long long* __restrict__ ends, long long n) {
@IF_UNIQUE@  const long long stride = (long long)gridDim.x * blockDim.x;
@IF_UNIQUE@  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < n; q += stride) {
@IF_UNIQUE@    const long long r = runs[q];
@IF_UNIQUE@    if (q == 0 || runs[q - 1] != r) {
@IF_UNIQUE@      values[r - 1] = sorted_at(x, perm, q);
@IF_UNIQUE@      if (index) index[r - 1] = perm[q];
@IF_UNIQUE@    }
@IF_UNIQUE@    if (inverse) inverse[perm[q]] = r - 1;
@IF_UNIQUE@    if (ends && (q == n - 1 || runs[q + 1] != r)) ends[r - 1] = q + 1;
@IF_UNIQUE@  }
@IF_UNIQUE@}
@IF_UNIQUE@// counts[k]: the length of run k, from where the runs end.
@IF_UNIQUE@extern "C" __global__ void cuprite_unique_counts(const long long* __restrict__ ends, long long* __restrict__ counts, long long runs) {
@IF_UNIQUE@  const long long stride = (long long)gridDim.x * blockDim.x;
@IF_UNIQUE@  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < runs; k += stride)
@IF_UNIQUE@    counts[k] = ends[k] - (k > 0 ? ends[k - 1] : 0LL);
@IF_UNIQUE@}
