@PRELUDE@
@COMMON@
// Cuprite ndimage distance transforms (see cuda/ndimage/distance.rs and
// cpu/ndimage/distance.rs). The exact Euclidean transform runs one pass
// per axis, one thread per line: the lower envelope of the parabolas
// rooted at the line's samples (Felzenszwalb and Huttenlocher), with the
// squared distances read from din and written to dout, and the nearest
// zero element's coordinates carried from fin to fout (nd x total).
// Scratch v (int64) and z (double) are laid out [position][line] so that
// neighbouring threads touch neighbouring words.

extern "C" __global__ void cuprite_nd_edt_init(const unsigned char* __restrict__ m, double* d,
    long long* feat, int nd, NdShape shape, long long total)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    d[i] = m[i] ? __longlong_as_double(0x7ff0000000000000LL) : 0.0;
    if (feat) {
      long long r = i;
      for (int k = nd - 1; k >= 0; --k) { const long long q = r / shape.n[k]; feat[k * total + i] = r - q * shape.n[k]; r = q; }
    }
  }
}

extern "C" __global__ void cuprite_nd_edt_pass(const double* __restrict__ din, double* __restrict__ dout,
    const long long* __restrict__ fin, long long* __restrict__ fout, long long* __restrict__ v,
    double* __restrict__ z, int nd, long long lines, long long n, long long inner, long long total, double w)
{
  for (long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x; l < lines; l += (long long)gridDim.x * blockDim.x) {
    const long long o = l / inner, in = l - o * inner;
    const long long base = o * n * inner + in;
#define F(k) din[base + (long long)(k) * inner]
#define V(k) v[(long long)(k) * lines + l]
#define Z(k) z[(long long)(k) * lines + l]
    long long q0 = 0;
    while (q0 < n && isinf(F(q0))) ++q0;
    if (q0 == n) {
      for (long long q = 0; q < n; ++q) {
        dout[base + q * inner] = F(q);
        if (fin) for (int e = 0; e < nd; ++e) fout[e * total + base + q * inner] = fin[e * total + base + q * inner];
      }
      continue;
    }
    long long k = 0;
    V(0) = q0; Z(0) = -__longlong_as_double(0x7ff0000000000000LL); Z(1) = __longlong_as_double(0x7ff0000000000000LL);
    for (long long q = q0 + 1; q < n; ++q) {
      const double fq = F(q);
      if (isinf(fq)) continue;
      const double qf = (double)q;
      while (true) {
        const long long vk = V(k);
        const double p = (double)vk;
        const double s = ((fq + w * qf * qf) - (F(vk) + w * p * p)) / (2.0 * w * (qf - p));
        if (s <= Z(k)) {
          if (k == 0) { V(0) = q; Z(1) = __longlong_as_double(0x7ff0000000000000LL); break; }
          --k;
          continue;
        }
        ++k;
        V(k) = q; Z(k) = s; Z(k + 1) = __longlong_as_double(0x7ff0000000000000LL);
        break;
      }
    }
    k = 0;
    for (long long q = 0; q < n; ++q) {
      while (Z(k + 1) < (double)q) ++k;
      const long long vk = V(k);
      const double dq = (double)(q - vk);
      dout[base + q * inner] = w * dq * dq + F(vk);
      if (fin) for (int e = 0; e < nd; ++e) fout[e * total + base + q * inner] = fin[e * total + base + vk * inner];
    }
#undef F
#undef V
#undef Z
  }
}

extern "C" __global__ void cuprite_nd_sqrt(double* d, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    d[i] = sqrt(d[i]);
}

#define CDT_FAR (0x7fffffffffffffffLL / 4)
extern "C" __global__ void cuprite_nd_cdt_init(const unsigned char* __restrict__ m, long long* d, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    d[i] = m[i] ? CDT_FAR : 0;
}

// One element per thread: min over its line of max(|k - j|, f[j])
// (chessboard) or |k - j| + f[j] (taxicab), searching outwards while the
// distance alone can still win.
extern "C" __global__ void cuprite_nd_cdt_pass(const long long* __restrict__ din, long long* __restrict__ dout,
    long long n, long long inner, long long total, int chessboard)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const long long k = (i / inner) % n;
    const long long base = i - k * inner;
    long long best = din[i];
    for (long long r = 1; r < best && (r <= k || k + r < n); ++r) {
      if (r <= k) {
        const long long f = din[base + (k - r) * inner];
        const long long c = chessboard ? (f > r ? f : r) : f + r;
        best = c < best ? c : best;
      }
      if (k + r < n) {
        const long long f = din[base + (k + r) * inner];
        const long long c = chessboard ? (f > r ? f : r) : f + r;
        best = c < best ? c : best;
      }
    }
    dout[i] = best;
  }
}

extern "C" __global__ void cuprite_nd_cdt_finish(const long long* __restrict__ d, int* out, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    out[i] = d[i] >= CDT_FAR ? -1 : (int)d[i];
}
