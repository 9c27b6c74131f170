// Cuprite's fused classical Gram-Schmidt pass (see cuda/gram_schmidt.rs):
// h = V w, w2 = w - V^T h, ||w||^2 and ||w2||^2 for the rows of V (len x n,
// C-contiguous) in four launches. Every sum runs in double (float32 inputs
// too) and in a fixed order, block by block, so a pass gives the same bits
// every time: no float atomics.
//
//   project  (grid gx x groups): each block's partial sums of ROWS rows'
//            dot products with w (and, in group 0, of w . w)
//   reduce   (one block per value): the partials of a value summed, into
//            its slot of the coefficients
//   subtract (grid gx2): w2 = w - sum_r V[r] h[r], h kept in shared memory,
//            and each block's partial of ||w2||^2 (of w2 as stored)
//   reduce   again, for ||w2||^2
//
// `w_out` may be `w` itself (a repeat pass in place): `subtract` reads w[i]
// and writes w_out[i] in the same thread, so neither is `__restrict__`. The
// rows of V never overlap either.

#define GS_ROWS 8
#define GS_CHUNK 512

__device__ __forceinline__ double gs_warp_sum(double x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
  return x;
}

// Partials: value r (a row, or len for w . w) of block b at part[r * gridDim.x + b].
template <typename T>
__device__ void gs_project(const T* __restrict__ v, const T* __restrict__ w, long long n, int len,
                           double* __restrict__ part) {
  __shared__ double red[GS_ROWS + 1][32];
  const int r0 = blockIdx.y * GS_ROWS;
  const int rows = min(GS_ROWS, len - r0);
  const bool norm = blockIdx.y == 0;
  double acc[GS_ROWS];
#pragma unroll
  for (int k = 0; k < GS_ROWS; ++k) acc[k] = 0.0;
  double ww = 0.0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double wi = (double)w[i];
    if (norm) ww += wi * wi;
#pragma unroll
    for (int k = 0; k < GS_ROWS; ++k)
      if (k < rows) acc[k] += (double)v[(long long)(r0 + k) * n + i] * wi;
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
#pragma unroll
  for (int k = 0; k < GS_ROWS; ++k) {
    const double s = gs_warp_sum(acc[k]);
    if (lane == 0) red[k][warp] = s;
  }
  {
    const double s = gs_warp_sum(ww);
    if (lane == 0) red[GS_ROWS][warp] = s;
  }
  __syncthreads();
  // Warp k sums value k over the warps (the same order in every block).
  for (int k = warp; k <= GS_ROWS; k += warps) {
    double s = lane < warps ? red[k][lane] : 0.0;
    s = gs_warp_sum(s);
    if (lane == 0) {
      if (k < rows) part[(long long)(r0 + k) * gridDim.x + blockIdx.x] = s;
      else if (k == GS_ROWS && norm) part[(long long)len * gridDim.x + blockIdx.x] = s;
    }
  }
}

template <typename T>
__device__ void gs_subtract(const T* __restrict__ v, const T* w, T* w_out, long long n, int len,
                            const double* __restrict__ h, double* __restrict__ part) {
  __shared__ double hs[GS_CHUNK];
  __shared__ double red[32];
  double nn = 0.0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  if (len <= GS_CHUNK) {
    for (int r = threadIdx.x; r < len; r += blockDim.x) hs[r] = h[r];
    __syncthreads();
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
      double s = (double)w[i];
#pragma unroll 8
      for (int r = 0; r < len; ++r) s -= (double)v[(long long)r * n + i] * hs[r];
      const T o = (T)s;
      w_out[i] = o;
      nn += (double)o * (double)o;
    }
  } else {
    // More rows than fit: h in chunks. The loop bounds are the same for
    // every thread of the block, so the barriers are reached by all.
    for (long long base = (long long)blockIdx.x * blockDim.x; base < n; base += stride) {
      const long long i = base + threadIdx.x;
      const bool in = i < n;
      double s = in ? (double)w[i] : 0.0;
      for (int c = 0; c < len; c += GS_CHUNK) {
        const int m = min(GS_CHUNK, len - c);
        __syncthreads();
        for (int r = threadIdx.x; r < m; r += blockDim.x) hs[r] = h[c + r];
        __syncthreads();
        if (in)
          for (int r = 0; r < m; ++r) s -= (double)v[(long long)(c + r) * n + i] * hs[r];
      }
      if (in) {
        const T o = (T)s;
        w_out[i] = o;
        nn += (double)o * (double)o;
      }
    }
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  nn = gs_warp_sum(nn);
  if (lane == 0) red[warp] = nn;
  __syncthreads();
  if (warp == 0) {
    double s = lane < warps ? red[lane] : 0.0;
    s = gs_warp_sum(s);
    if (lane == 0) part[blockIdx.x] = s;
  }
}

extern "C" __global__ void cuprite_gs_project_f32(const float* __restrict__ v, const float* __restrict__ w,
                                                  long long n, int len, double* __restrict__ part) {
  gs_project<float>(v, w, n, len, part);
}
extern "C" __global__ void cuprite_gs_project_f64(const double* __restrict__ v, const double* __restrict__ w,
                                                  long long n, int len, double* __restrict__ part) {
  gs_project<double>(v, w, n, len, part);
}
extern "C" __global__ void cuprite_gs_subtract_f32(const float* __restrict__ v, const float* w, float* w_out,
                                                   long long n, int len, const double* __restrict__ h,
                                                   double* __restrict__ part) {
  gs_subtract<float>(v, w, w_out, n, len, h, part);
}
extern "C" __global__ void cuprite_gs_subtract_f64(const double* __restrict__ v, const double* w, double* w_out,
                                                   long long n, int len, const double* __restrict__ h,
                                                   double* __restrict__ part) {
  gs_subtract<double>(v, w, w_out, n, len, h, part);
}

// out[b] = the sum of part[b * m .. b * m + m) (one block per value).
extern "C" __global__ void cuprite_gs_reduce(const double* __restrict__ part, long long m,
                                             double* __restrict__ out) {
  __shared__ double red[32];
  const double* p = part + (long long)blockIdx.x * m;
  double s = 0.0;
  for (long long j = threadIdx.x; j < m; j += blockDim.x) s += p[j];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  s = gs_warp_sum(s);
  if (lane == 0) red[warp] = s;
  __syncthreads();
  if (warp == 0) {
    double t = lane < warps ? red[lane] : 0.0;
    t = gs_warp_sum(t);
    if (lane == 0) out[blockIdx.x] = t;
  }
}
