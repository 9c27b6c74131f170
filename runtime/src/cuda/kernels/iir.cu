@PRELUDE@
// Cuprite IIR cascade of order @K@ over rows of @DT@ (see cuda/iir.rs).
// Rows (lanes) of n samples are cut into nb blocks of L samples. Every
// state is a K-vector of doubles; a section's coefficients sit in cf at
// sec * STRIDE: b[K+1], a[K+1] (a[0] == 1), M = A^L, P = A^(L*G), where A
// is the zero-input transition of direct form II transposed.
typedef @T@ T;
#define K @K@
#define STRIDE (2 * (K + 1) + 2 * K * K)

// s = X s + c for the K x K row-major matrix X.
__device__ __forceinline__ void affine(const double* X, double* s, const double* c) {
  double r[K];
#pragma unroll
  for (int i = 0; i < K; ++i) {
    double acc = c[i];
#pragma unroll
    for (int j = 0; j < K; ++j) acc = fma(X[i * K + j], s[j], acc);
    r[i] = acc;
  }
#pragma unroll
  for (int i = 0; i < K; ++i) s[i] = r[i];
}

// Phase 1, one thread per (lane, block): adds the previous section's
// correction (its zero-input response from the block's true incoming state
// s_in) to the block's samples, then, when `filter`, runs this section
// from the zero state over them, leaving its end state in carry. The
// thread of the last block also completes the previous section's final
// state: its zero-input response at the end plus its zero-state carry.
extern "C" __global__ void cuprite_iir_blocks(const T* in, T* out, double* carry,
    const double* __restrict__ s_in, const double* __restrict__ cf, T* zf,
    int sec, int prev, int filter, long long lanes, long long n, long long L, long long nb)
{
  const long long total = lanes * nb;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += (long long)gridDim.x * blockDim.x) {
    const long long lane = q / nb, blk = q - lane * nb;
    const long long t0 = blk * L;
    const long long t1 = t0 + L < n ? t0 + L : n;
    double b[K + 1], a[K + 1], ap[K + 1], z[K], c[K];
    const double* own = cf + (long long)sec * STRIDE;
    const double* pc = cf + (long long)(prev < 0 ? 0 : prev) * STRIDE;
#pragma unroll
    for (int j = 0; j <= K; ++j) { b[j] = own[j]; a[j] = own[K + 1 + j]; ap[j] = pc[K + 1 + j]; }
#pragma unroll
    for (int j = 0; j < K; ++j) { z[j] = 0.0; c[j] = prev >= 0 ? s_in[q * K + j] : 0.0; }
    const T* src = in + lane * n;
    T* dst = out + lane * n;
    for (long long t = t0; t < t1; ++t) {
      double v = (double)src[t];
      if (prev >= 0) {
        const double yc = c[0];
        v += yc;
#pragma unroll
        for (int j = 0; j < K; ++j) c[j] = (j + 1 < K ? c[j + 1] : 0.0) - ap[j + 1] * yc;
      }
      if (filter) {
        const double y = fma(b[0], v, z[0]);
#pragma unroll
        for (int j = 0; j < K; ++j) z[j] = (j + 1 < K ? z[j + 1] : 0.0) + b[j + 1] * v - a[j + 1] * y;
        v = y;
      }
      dst[t] = (T)v;
    }
    if (prev >= 0 && blk == nb - 1) {
#pragma unroll
      for (int j = 0; j < K; ++j) zf[((long long)prev * lanes + lane) * K + j] = (T)(c[j] + carry[q * K + j]);
    }
    if (filter) {
#pragma unroll
      for (int j = 0; j < K; ++j) carry[q * K + j] = z[j];
    }
  }
}

// Phase 2, one thread per (lane, group of G blocks): the group's end state
// from a zero incoming state, folding its blocks' carries through M.
extern "C" __global__ void cuprite_iir_group_carry(const double* __restrict__ carry, double* __restrict__ gcarry,
    const double* __restrict__ cf, int sec, long long lanes, long long nb, long long G, long long ng)
{
  double M[K * K];
  const double* own = cf + (long long)sec * STRIDE + 2 * (K + 1);
#pragma unroll
  for (int j = 0; j < K * K; ++j) M[j] = own[j];
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < lanes * ng; q += (long long)gridDim.x * blockDim.x) {
    const long long lane = q / ng, g = q - lane * ng;
    const long long b0 = g * G, b1 = b0 + G < nb ? b0 + G : nb;
    double s[K];
#pragma unroll
    for (int j = 0; j < K; ++j) s[j] = 0.0;
    for (long long blk = b0; blk < b1; ++blk) affine(M, s, carry + (lane * nb + blk) * K);
#pragma unroll
    for (int j = 0; j < K; ++j) gcarry[q * K + j] = s[j];
  }
}

// Phase 3, one thread per lane: the true incoming state of every group,
// from zi (or zero), through P = A^(L*G) per whole group.
extern "C" __global__ void cuprite_iir_group_scan(const double* __restrict__ gcarry, double* __restrict__ gin,
    const T* __restrict__ zi, const double* __restrict__ cf, int sec, long long lanes, long long ng)
{
  double P[K * K];
  const double* own = cf + (long long)sec * STRIDE + 2 * (K + 1) + K * K;
#pragma unroll
  for (int j = 0; j < K * K; ++j) P[j] = own[j];
  for (long long lane = (long long)blockIdx.x * blockDim.x + threadIdx.x; lane < lanes; lane += (long long)gridDim.x * blockDim.x) {
    double s[K];
#pragma unroll
    for (int j = 0; j < K; ++j) s[j] = zi ? (double)zi[((long long)sec * lanes + lane) * K + j] : 0.0;
    for (long long g = 0; g < ng; ++g) {
#pragma unroll
      for (int j = 0; j < K; ++j) gin[(lane * ng + g) * K + j] = s[j];
      affine(P, s, gcarry + (lane * ng + g) * K);
    }
  }
}

// Phase 4, one thread per (lane, group): the true incoming state of every
// block of the group, from the group's incoming state through M.
extern "C" __global__ void cuprite_iir_block_scan(const double* __restrict__ carry, double* __restrict__ s_in,
    const double* __restrict__ gin, const double* __restrict__ cf, int sec, long long lanes, long long nb,
    long long G, long long ng)
{
  double M[K * K];
  const double* own = cf + (long long)sec * STRIDE + 2 * (K + 1);
#pragma unroll
  for (int j = 0; j < K * K; ++j) M[j] = own[j];
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < lanes * ng; q += (long long)gridDim.x * blockDim.x) {
    const long long lane = q / ng, g = q - lane * ng;
    const long long b0 = g * G, b1 = b0 + G < nb ? b0 + G : nb;
    double s[K];
#pragma unroll
    for (int j = 0; j < K; ++j) s[j] = gin[q * K + j];
    for (long long blk = b0; blk < b1; ++blk) {
#pragma unroll
      for (int j = 0; j < K; ++j) s_in[(lane * nb + blk) * K + j] = s[j];
      affine(M, s, carry + (lane * nb + blk) * K);
    }
  }
}
