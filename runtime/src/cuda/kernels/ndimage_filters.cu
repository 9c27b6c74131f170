@PRELUDE@
@COMMON@
// Cuprite ndimage filters over @DT@ (see cuda/ndimage/filters.rs).
typedef @T@ T;

// One output element per thread: the window of nw samples along one axis
// (extent n, stride inner), starting center samples before it, combined
// by @COMBINE@ from @INIT@.
extern "C" __global__ void cuprite_nd_line(const T* __restrict__ x, T* __restrict__ y,
    const double* __restrict__ w, int nw, long long center, long long n, long long inner,
    long long total, int mode, double cval)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const long long pos = (i / inner) % n;
    const long long base = i - pos * inner;
    const long long first = pos - center;
    double acc = @INIT@;
    if (first >= 0 && first + nw <= n) {
      const T* src = x + base + first * inner;
      for (int k = 0; k < nw; ++k) {
        const double v = (double)src[k * inner];
        const double wk = w[k];
        @COMBINE@;
      }
    } else {
      for (int k = 0; k < nw; ++k) {
        const long long p = nd_extend(first + k, n, mode);
        const double v = p < 0 ? cval : (double)x[base + p * inner];
        const double wk = w[k];
        @COMBINE@;
      }
    }
    y[i] = (T)acc;
  }
}

// The window of element i: the flat source of each tap, or -1 for the constant.
__device__ __forceinline__ long long nd_tap(const long long* c, const long long* __restrict__ off,
    int t, int nd, const NdShape& shape, const NdShape& strides, int mode)
{
  long long at = 0;
  for (int d = 0; d < nd; ++d) {
    const long long p = nd_extend(c[d] + off[t * nd + d], shape.n[d], mode);
    if (p < 0) return -1;
    at += p * strides.n[d];
  }
  return at;
}

__device__ __forceinline__ void nd_unravel(long long i, int nd, const NdShape& shape, long long* c) {
  for (int d = nd - 1; d >= 0; --d) { const long long q = i / shape.n[d]; c[d] = i - q * shape.n[d]; i = q; }
}

// A weighted sum over taps (N-D correlation).
extern "C" __global__ void cuprite_nd_correlate(const T* __restrict__ x, T* __restrict__ y,
    const long long* __restrict__ off, const double* __restrict__ w, int ntaps, int nd,
    NdShape shape, NdShape strides, long long total, int mode, double cval)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    long long c[ND_MAX];
    nd_unravel(i, nd, shape, c);
    double acc = 0.0;
    for (int t = 0; t < ntaps; ++t) {
      const long long at = nd_tap(c, off, t, nd, shape, strides, mode);
      acc += w[t] * (at < 0 ? cval : (double)x[at]);
    }
    y[i] = (T)acc;
  }
}

// Small windows are unrolled so that their values stay in registers.
#if @N@ <= 49
#define ND_UNROLL _Pragma("unroll")
#else
#define ND_UNROLL
#endif

// The rank-th smallest of each window of @N@ taps (plus add[t] when given).
extern "C" __global__ void cuprite_nd_rank(const T* __restrict__ x, T* __restrict__ y,
    const long long* __restrict__ off, const double* __restrict__ add, int nd,
    NdShape shape, NdShape strides, long long total, int mode, double cval, int rank)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    long long c[ND_MAX];
    nd_unravel(i, nd, shape, c);
    double v[@N@];
    ND_UNROLL
    for (int t = 0; t < @N@; ++t) {
      const long long at = nd_tap(c, off, t, nd, shape, strides, mode);
      v[t] = (at < 0 ? cval : (double)x[at]) + (add ? add[t] : 0.0);
    }
    double r;
    if (rank == 0) {
      r = v[0];
      ND_UNROLL
      for (int t = 1; t < @N@; ++t) r = v[t] < r ? v[t] : r;
    } else if (rank == @N@ - 1) {
      r = v[0];
      ND_UNROLL
      for (int t = 1; t < @N@; ++t) r = v[t] > r ? v[t] : r;
    } else {
#if @N@ <= 49
      // Small windows: the element with exactly `rank` smaller ones (ties
      // counted), by comparisons alone, so v stays in registers.
      r = v[0];
#pragma unroll
      for (int a = 0; a < @N@; ++a) {
        int below = 0, at_most = 0;
#pragma unroll
        for (int b = 0; b < @N@; ++b) { below += v[b] < v[a]; at_most += v[b] <= v[a]; }
        if (below <= rank && rank < at_most) r = v[a];
      }
#else
      // Hoare's selection in place.
      int lo = 0, hi = @N@ - 1;
      while (lo < hi) {
        const double pivot = v[(lo + hi) >> 1];
        int a = lo, b = hi;
        while (a <= b) {
          while (v[a] < pivot) ++a;
          while (v[b] > pivot) --b;
          if (a <= b) { const double s = v[a]; v[a] = v[b]; v[b] = s; ++a; --b; }
        }
        if (rank <= b) hi = b; else if (rank >= a) lo = a; else break;
      }
      r = v[rank];
#endif
    }
    y[i] = (T)r;
  }
}

// One binary erosion (dilate 0: all taps true) or dilation (any tap true)
// step of 0/1 bytes, taps outside the input reading border, for windows
// the tiled kernel (ndimage_rank_tile.cu) does not take; the first tap that
// decides ends the search. mask, prev, changed and copy_on_skip as there.
extern "C" __global__ void cuprite_nd_binary(const unsigned char* __restrict__ x,
    unsigned char* __restrict__ y, const long long* __restrict__ off, int ntaps, int nd,
    NdShape shape, NdShape strides, long long total, int border, int dilate,
    const unsigned char* __restrict__ mask, const int* __restrict__ prev,
    int* __restrict__ changed, int copy_on_skip)
{
  if (*prev == 0) {
    if (copy_on_skip) {
      for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) y[i] = x[i];
    }
    return;
  }
  int any = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const unsigned char old = x[i];
    unsigned char out = old;
    if (!mask || mask[i]) {
      long long c[ND_MAX];
      nd_unravel(i, nd, shape, c);
      out = dilate ? 0 : 1;
      for (int t = 0; t < ntaps; ++t) {
        const long long at = nd_tap(c, off, t, nd, shape, strides, 1);
        const int v = at < 0 ? border : x[at] != 0;
        if (v == dilate) { out = (unsigned char)dilate; break; }
      }
    }
    any |= out != old;
    y[i] = out;
  }
  if (__syncthreads_or(any) && threadIdx.x == 0) *changed = 1;
}
