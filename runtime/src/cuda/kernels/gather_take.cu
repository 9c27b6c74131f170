
typedef @T@ T;
typedef @IDX_T@ idx_t;
@GEO@
@RESOLVE@
// out[o, k, i] = src[o, idx[k], i] over outer x indices x inner.
extern "C" __global__ void cuprite_take(const T* __restrict__ src, T* __restrict__ out, const idx_t* __restrict__ idx, Geo g, long long total, long long k_n, long long m, long long n, long long step) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += stride) {
@IF_FLAT@    const long long t = q;
@IF_INNER@    const long long t = q / m, i = q - t * m;
    const long long o = t / k_n, k = t - o * k_n;
    long long j = resolve(@INDEX@, n);
    // Checked before the launch in raise mode; kept in range regardless.
    if (j < 0 || j >= n) j = 0;
    long long off = j * step;
@UNRAVEL_O@
@UNRAVEL_I@
    out[q] = src[off];
  }
}
