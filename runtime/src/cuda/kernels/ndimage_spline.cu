@PRELUDE@
@COMMON@
// Cuprite's B-spline prefilter along one axis (see cuda/ndimage/interp.rs
// and cpu/ndimage/spline.rs, whose arithmetic this follows). Extensions:
// 0 mirror, 1 reflect, 2 periodic.
//
// Each pole is a causal pass (c+[i] = C[i] + z c+[i-1]) then an anti-causal
// one (c[i] = z (c[i+1] - c+[i])), each a kernel that gives one thread a
// chunk of `len` samples of a line, so that a few long lines still fill
// the GPU. The state of either recursion decays as |z|^k: a chunk starts
// `h` samples early from zero (|z|^h <= 2^-60, below double rounding of
// the result), except near the line's start (causal) or end (anti-causal),
// where it starts from the boundary condition itself, whose sums stop after
// h terms for the same reason. A line of n <= h is filtered exactly as the
// CPU does. Threads take (line, chunk, across) with `across` (the position
// among the lines, stride 1 in memory) fastest, so their loads coalesce
// when the axis is not the last one.
typedef @I@ I;

// The first sample (base) and the chunk [s0, s1) of work item q.
__device__ __forceinline__ void nd_chunk(I q, I n, I inner, I nch, I len, I& base, I& s0, I& s1) {
  const I in = q % inner, r = q / inner;
  const I ch = r % nch, o = r / nch;
  base = o * n * inner + in;
  s0 = ch * len;
  s1 = s0 + len < n ? s0 + len : n;
}

// Causal pass of pole z over x (times gain) into y.
extern "C" __global__ void cuprite_nd_spline_causal(const double* __restrict__ x, double* __restrict__ y,
    I items, I n, I inner, I nch, I len, I h, int ext, double z, double gain)
{
  for (I q = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; q < items; q += (I)gridDim.x * (I)blockDim.x) {
    I base, s0, s1;
    nd_chunk(q, n, inner, nch, len, base, s0, s1);
    const double* src = x + base;
    double* dst = y + base;
    // A line of one sample is left as it is (no gain either).
    if (n < 2) { dst[0] = src[0]; continue; }
#define C(k) (gain * src[(I)(k) * inner])
    double st;
    I i;
    if (s0 <= h) {
      // c+[0] from the boundary condition, then on from sample 1.
      if (ext == 0) {
        const double zn1 = pow(z, (double)(n - 1));
        double s = C(0) + zn1 * C(n - 1), zi = z;
        for (I k = 1; k < n - 1 && k <= h; ++k) { s += zi * (C(k) + zn1 * C(n - 1 - k)); zi *= z; }
        st = s / (1.0 - zn1 * zn1);
      } else if (ext == 1) {
        const double zn = pow(z, (double)n), c0 = C(0);
        double s = C(0) + zn * C(n - 1), zi = z;
        for (I k = 1; k < n && k <= h; ++k) { s += zi * (C(k) + zn * C(n - 1 - k)); zi *= z; }
        st = s * z / (1.0 - zn * zn) + c0;
      } else {
        double s = C(0), zi = z;
        for (I k = 1; k < n && k <= h; ++k) { s += zi * C(n - k); zi *= z; }
        st = s / (1.0 - zi);
      }
      if (s0 == 0) dst[0] = st;
      i = 1;
    } else {
      st = 0.0;
      i = s0 - h;
    }
    for (; i < s0; ++i) st = C(i) + z * st;
    for (; i < s1; ++i) {
      st = C(i) + z * st;
      dst[i * inner] = st;
    }
#undef C
  }
}

// Anti-causal pass of pole z over the causal output t into y.
extern "C" __global__ void cuprite_nd_spline_anticausal(const double* __restrict__ t, double* __restrict__ y,
    I items, I n, I inner, I nch, I len, I h, int ext, double z)
{
  for (I q = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; q < items; q += (I)gridDim.x * (I)blockDim.x) {
    I base, s0, s1;
    nd_chunk(q, n, inner, nch, len, base, s0, s1);
    const double* src = t + base;
    double* dst = y + base;
    if (n < 2) { dst[0] = src[0]; continue; }
#define P(k) src[(I)(k) * inner]
    double st;
    I i;
    if (s1 - 1 + h >= n - 1) {
      // c[n-1] from the boundary condition, then down from sample n-2.
      if (ext == 0) {
        st = (z * P(n - 2) + P(n - 1)) * z / (z * z - 1.0);
      } else if (ext == 1) {
        st = P(n - 1) * (z / (z - 1.0));
      } else {
        double s = P(n - 1), zi = z;
        for (I k = 0; k < n - 1 && k < h; ++k) { s += zi * P(k); zi *= z; }
        st = s * (z / (zi - 1.0));
      }
      if (s1 == n) dst[(n - 1) * inner] = st;
      i = n - 2;
    } else {
      st = 0.0;
      i = s1 - 1 + h;
    }
    for (; i >= s1; --i) st = z * (st - P(i));
    for (; i >= s0; --i) {
      st = z * (st - P(i));
      dst[i * inner] = st;
    }
#undef P
  }
}
