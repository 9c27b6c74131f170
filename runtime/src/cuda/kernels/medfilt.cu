@PRELUDE@
// Cuprite median filter @KH@x@KW@ of @DT@
typedef @T@ T;
extern "C" __global__ void cuprite_medfilt(const T* __restrict__ in, T* __restrict__ out, long long H, long long W)
{
  const long long n = H * W;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const long long r = i / W, c = i - r * W;
    T v[@N@];
#pragma unroll
    for (int p = 0; p < @KH@; ++p) {
      const long long rr = r + p - @HH@;
#pragma unroll
      for (int q = 0; q < @KW@; ++q) {
        const long long cc = c + q - @HW@;
        v[p * @KW@ + q] = (rr >= 0 && rr < H && cc >= 0 && cc < W) ? in[rr * W + cc] : (T)0;
      }
    }
    // Odd-even transposition sort: n rounds of compare-exchange.
@IF_NET@@NET@
    out[i] = v[@MID@];
  }
}
