@PRELUDE@
@COMMON@
// Cuprite's tiled rank filter over @T@ (see cuda/ndimage/rank_tile.rs): a
// block's BX x BY outputs of one plane, their window's halo loaded once
// into shared memory as order keys, each thread's taps at fixed offsets
// and a generated selection network in registers.
typedef @T@ T;
typedef @K@ K;
#define BX @BX@
#define BY @BY@
#define TW (BX + @SPAN2@)
#define TH (BY + @SPAN1@)
#define TD (1 + @SPAN0@)
#define BINARY @BINARY@

// The order key of a value (integers compare as themselves, floats as
// total_cmp), and back.
__device__ __forceinline__ K nd_key(T v) { @TO_KEY@ }
__device__ __forceinline__ T nd_value(K k) { @FROM_KEY@ }

#define ND_CAS(a, b) do { const K lo_ = (b) < (a) ? (b) : (a); (b) = (b) < (a) ? (a) : (b); (a) = lo_; } while (0)

// The input is (n0, n1, n2), C-contiguous; blocks walk the tiles1 x tiles2
// tiles of each plane. BINARY: one erosion or dilation step of 0/1 bytes,
// where mask (when not null) is zero the input is kept, and *changed is set
// when an output differs from its input. A step whose previous step changed
// nothing (*prev == 0) is skipped: the buffers alternate, so its output
// buffer already equals its input, except on the second step, whose output
// buffer is still unwritten (copy_on_skip).
extern "C" __global__ void __launch_bounds__(BX * BY) cuprite_nd_rank_tile(
    const T* __restrict__ x, T* __restrict__ y, long long n0, long long n1, long long n2,
    long long tiles1, long long tiles2, int mode, double cval
#if BINARY
    , const unsigned char* __restrict__ mask, const int* __restrict__ prev,
    int* __restrict__ changed, int copy_on_skip
#endif
    )
{
  __shared__ K tile[TD * TH * TW];
#if BINARY
  if (*prev == 0) {
    if (copy_on_skip) {
      const long long total = n0 * n1 * n2;
      for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) y[i] = x[i];
    }
    return;
  }
  int any = 0;
#endif
  const K kc = nd_key((T)cval);
  const int lx = threadIdx.x % BX, ly = threadIdx.x / BX;
  const long long ntiles = n0 * tiles1 * tiles2;
  for (long long b = blockIdx.x; b < ntiles; b += gridDim.x) {
    const long long t2 = b % tiles2, rest = b / tiles2;
    const long long z = rest / tiles1, y0 = (rest % tiles1) * BY, x0 = t2 * BX;
    // The previous tile's reads are done before it is overwritten.
    __syncthreads();
    for (int k = threadIdx.x; k < TD * TH * TW; k += BX * BY) {
      const int kx = k % TW, ky = (k / TW) % TH, kz = k / (TW * TH);
      const long long gz = nd_extend(z + kz + (@LO0@), n0, mode);
      const long long gy = nd_extend(y0 + ky + (@LO1@), n1, mode);
      const long long gx = nd_extend(x0 + kx + (@LO2@), n2, mode);
      tile[k] = (gz < 0 || gy < 0 || gx < 0) ? kc : nd_key(x[(gz * n1 + gy) * n2 + gx]);
    }
    __syncthreads();
    const long long oy = y0 + ly, ox = x0 + lx;
    if (oy < n1 && ox < n2) {
      // Tap offsets below are from the window's lowest corner.
      const K* w = tile + ly * TW + lx;
@NETWORK@
      const long long at = (z * n1 + oy) * n2 + ox;
#if BINARY
      const T old = x[at];
      const T out = (mask && !mask[at]) ? old : nd_value(@RESULT@);
      any |= out != old;
      y[at] = out;
#else
      y[at] = nd_value(@RESULT@);
#endif
    }
  }
#if BINARY
  if (__syncthreads_or(any) && threadIdx.x == 0) *changed = 1;
#endif
}
