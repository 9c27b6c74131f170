@PRELUDE@// Cuprite direct 2-D convolution: @SPEC@
typedef @T@ T;
typedef @VT@ VT;
#define BX @BX@
#define BY @BY@
#define RX @RX@
#define RY @RY@
#define NT @NT@
#define TH @TH@
#define TW @TW@
#define KH @KH@
#define KW @KW@
#define KWP @KWP@
#define SH @SH@
#define SW @SW@
#define SEGV @SEGV@
#define VW @VW@
@IF_WRAP@__device__ __forceinline__ long long remap(long long x, long long n) {
@IF_WRAP@  long long m = x % n;
@IF_WRAP@  return m < 0 ? m + n : m;
@IF_WRAP@}
@IF_SYMM@__device__ __forceinline__ long long remap(long long x, long long n) {
@IF_SYMM@  long long n2 = 2 * n;
@IF_SYMM@  long long m = x % n2;
@IF_SYMM@  if (m < 0) m += n2;
@IF_SYMM@  return m < n ? m : n2 - 1 - m;
@IF_SYMM@}

extern "C" __global__ void __launch_bounds__(NT) cuprite_conv2d(
    const T* __restrict__ in, T* __restrict__ out, const T* __restrict__ filt,
    long long H, long long W, long long OH, long long OW,
    long long r0, long long c0, long long fstride, T fill)
{
  __shared__ __align__(16) T tile[SH * SW];
  __shared__ __align__(16) T fs[KH * KWP];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const long long tr0 = (long long)blockIdx.y * TH, tc0 = (long long)blockIdx.x * TW;
  for (int i = tid; i < KH * KWP; i += NT) {
    const int p = i / KWP, q = i - p * KWP;
    fs[i] = q < KW ? filt[p * fstride + q] : (T)0;
  }
  for (int i = tid; i < SH * SW; i += NT) {
    const int r = i / SW, c = i - r * SW;
    const long long gr = tr0 + r + r0, gc = tc0 + c + c0;
    T v;
    if (gr >= 0 && gr < H && gc >= 0 && gc < W) v = in[gr * W + gc];
@IF_FILL@    else { v = fill; }
@IF_REMAP@    else { v = in[remap(gr, H) * W + remap(gc, W)]; }
    tile[i] = v;
  }
  __syncthreads();
  T acc[RY][RX];
#pragma unroll
  for (int y = 0; y < RY; ++y)
#pragma unroll
    for (int x = 0; x < RX; ++x) acc[y][x] = (T)0;
  T seg[SEGV * VW];
#pragma unroll 1
  for (int t = 0; t < RY + KH - 1; ++t) {
    const VT* srow = reinterpret_cast<const VT*>(tile + (ty * RY + t) * SW + tx * RX);
    // Segment loads, then for each output row y whose filter row p = t - y
    // is in range, the segment times filter row p (unrolled).
@LOADS@
@BODY@
  }
#pragma unroll
  for (int y = 0; y < RY; ++y) {
    const long long orow = tr0 + ty * RY + y;
    if (orow >= OH) continue;
#pragma unroll
    for (int x = 0; x < RX; ++x) {
      const long long ocol = tc0 + tx * RX + x;
      if (ocol < OW) {
        const long long o = orow * OW + ocol;
@IF_ACCUMULATE@        out[o] = out[o] + acc[y][x];
@IF_ASSIGN@        out[o] = acc[y][x];
      }
    }
  }
}
