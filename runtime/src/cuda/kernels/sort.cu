
typedef @KEY_T@ key_t;
typedef @VAL_T@ val_t;
@GEO@
__device__ __forceinline__ key_t xform(key_t u) { @XFORM@ }
// The digit of pass (shift, lane_pass) of an element with key bits `k`
// and carried position `v`.
__device__ __forceinline__ unsigned digit(key_t k, val_t v, long long n, int shift, int lane_pass) {
  if (lane_pass) return (unsigned)((((unsigned long long)v) / (unsigned long long)n >> shift) & 0xffull);
  return (unsigned)((xform(k) >> shift) & 0xffu);
}

// Pack: lane-major keys (lane = o * m + i) and their positions.
extern "C" __global__ void cuprite_sort_pack(const key_t* __restrict__ x, key_t* __restrict__ keys, val_t* __restrict__ vals, Geo g, long long total, long long n, long long m, long long step) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < total; p += stride) {
    const long long lane = p / n, k = p - lane * n;
    const long long o = lane / m, i = lane - o * m;
    long long off = k * step;
@UNRAVEL_O@
@UNRAVEL_I@
    keys[p] = x[off];
@IF_CARRY@    vals[p] = (val_t)p;
  }
}

// Every digit histogram of the sort in one read of the keys: the key
// digits from the keys, the lane digits from the positions (a pass's
// histogram does not depend on the order the pass finds the elements
// in). Block counts are added to `hist[pass][digit]`, zeroed before.
extern "C" __global__ void __launch_bounds__(@HT@) cuprite_sort_hist_all(const key_t* __restrict__ keys, unsigned long long* __restrict__ hist, long long total, long long n, int lane_passes) {
  __shared__ unsigned cnt[@MAX_PASSES@][256];
  const int passes = @KP@ + lane_passes;
  for (int i = threadIdx.x; i < passes * 256; i += @HT@) cnt[i >> 8][i & 255] = 0u;
  __syncthreads();
  const long long stride = (long long)gridDim.x * @HT_HU@;
  for (long long base = (long long)blockIdx.x * @HT_HU@ + threadIdx.x; base < total; base += stride) {
    key_t k[@HU@];
    #pragma unroll
    for (int u = 0; u < @HU@; ++u) { const long long p = base + u * @HT@; k[u] = p < total ? keys[p] : (key_t)0; }
    #pragma unroll
    for (int u = 0; u < @HU@; ++u) {
      const long long p = base + u * @HT@;
      if (p >= total) break;
      const key_t x = xform(k[u]);
      #pragma unroll
      for (int b = 0; b < @KP@; ++b) atomicAdd(&cnt[b][(unsigned)(x >> (8 * b)) & 0xffu], 1u);
@IF_CARRY@      const unsigned long long lane_no = (unsigned long long)p / (unsigned long long)n;
@IF_CARRY@      for (int b = 0; b < lane_passes; ++b) atomicAdd(&cnt[@KP@ + b][(unsigned)(lane_no >> (8 * b)) & 0xffu], 1u);
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < passes * 256; i += @HT@) {
    const unsigned c = cnt[i >> 8][i & 255];
    if (c) atomicAdd(&hist[i], (unsigned long long)c);
  }
}

@ONESWEEP@
// Unpack: element p of the sorted lane-major order goes to its place in
// the C-ordered output (the keys, or the positions within the lane).
extern "C" __global__ void cuprite_sort_unpack(const key_t* __restrict__ keys, const val_t* __restrict__ vals, key_t* __restrict__ out, long long total, long long n, long long m) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < total; p += stride) {
    const long long lane = p / n, k = p - lane * n;
    const long long o = lane / m, i = lane - o * m;
    out[(o * n + k) * m + i] = keys[p];
  }
}
@IF_CARRY@extern "C" __global__ void cuprite_sort_unpack_arg(const key_t* __restrict__ keys, const val_t* __restrict__ vals, long long* __restrict__ out, long long total, long long n, long long m) {
@IF_CARRY@  const long long stride = (long long)gridDim.x * blockDim.x;
@IF_CARRY@  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < total; p += stride) {
@IF_CARRY@    const long long lane = p / n, k = p - lane * n;
@IF_CARRY@    const long long o = lane / m, i = lane - o * m;
@IF_CARRY@    out[(o * n + k) * m + i] = (long long)((unsigned long long)vals[p] % (unsigned long long)n);
@IF_CARRY@  }
@IF_CARRY@}
