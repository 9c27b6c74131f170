@PRELUDE@
@COMMON@
// Cuprite ndimage spline prefilter and interpolation (see
// cuda/ndimage/interp.rs and cpu/ndimage/spline.rs, whose arithmetic this
// follows). Extensions of the prefilter: 0 mirror, 1 reflect, 2 periodic.

__device__ __forceinline__ long long nd_ext_index(long long i, long long n, int ext) {
  if (i >= 0 && i < n) return i;
  if (n <= 1) return 0;
  if (ext == 2) { long long m = i % n; return m < 0 ? m + n : m; }
  const long long p = ext == 0 ? 2 * n - 2 : 2 * n;
  long long m = i % p;
  if (m < 0) m += p;
  if (m >= n) return ext == 0 ? p - m : p - 1 - m;
  return m;
}

// One thread per line along an axis (extent n, stride inner): the line is
// copied from x to y, then filtered in place, one causal and one
// anti-causal pass per pole.
extern "C" __global__ void cuprite_nd_spline_lines(const double* __restrict__ x, double* __restrict__ y,
    long long lines, long long n, long long inner, int ext, int npoles, double z0, double z1, double gain)
{
  for (long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x; l < lines; l += (long long)gridDim.x * blockDim.x) {
    const long long o = l / inner, in = l - o * inner;
    double* c = y + o * n * inner + in;
    const double* src = x + o * n * inner + in;
#define C(k) c[(long long)(k) * inner]
    for (long long k = 0; k < n; ++k) C(k) = src[k * inner] * (n > 1 ? gain : 1.0);
    if (n < 2) continue;
    for (int pole = 0; pole < npoles; ++pole) {
      const double z = pole == 0 ? z0 : z1;
      if (ext == 0) {
        const double zn1 = pow(z, (double)(n - 1));
        double s = C(0) + zn1 * C(n - 1), zi = z;
        for (long long i = 1; i < n - 1; ++i) { s += zi * (C(i) + zn1 * C(n - 1 - i)); zi *= z; }
        C(0) = s / (1.0 - zn1 * zn1);
      } else if (ext == 1) {
        const double zn = pow(z, (double)n), c0 = C(0);
        double s = C(0) + zn * C(n - 1), zi = z;
        for (long long i = 1; i < n; ++i) { s += zi * (C(i) + zn * C(n - 1 - i)); zi *= z; }
        C(0) = s * z / (1.0 - zn * zn) + c0;
      } else {
        double zi = z;
        for (long long i = 1; i < n; ++i) { C(0) += zi * C(n - i); zi *= z; }
        C(0) /= 1.0 - zi;
      }
      for (long long i = 1; i < n; ++i) C(i) += z * C(i - 1);
      if (ext == 0) {
        C(n - 1) = (z * C(n - 2) + C(n - 1)) * z / (z * z - 1.0);
      } else if (ext == 1) {
        C(n - 1) *= z / (z - 1.0);
      } else {
        double zi = z;
        for (long long i = 0; i < n - 1; ++i) { C(n - 1) += zi * C(i); zi *= z; }
        C(n - 1) *= z / (zi - 1.0);
      }
      for (long long i = n - 2; i >= 0; --i) C(i) = z * (C(i + 1) - C(i));
    }
#undef C
  }
}

// The centred B-spline of degree ORDER at t (truncated-power form).
#define ORDER @ORDER@
#define ND @ND@
typedef @T@ T;  // coefficients
typedef @U@ U;  // output
__device__ __forceinline__ double nd_bspline(double t) {
  const double half = (ORDER + 1) * 0.5;
  if (fabs(t) >= half) return 0.0;
  double s = 0.0, binom = 1.0, fact = 1.0;
  for (int k = 1; k <= ORDER; ++k) fact *= k;
  for (int k = 0; k <= ORDER + 1; ++k) {
    const double u = t + half - k;
    if (u > 0.0) {
      double p = 1.0;
      for (int e = 0; e < ORDER; ++e) p *= u;
      s += (k % 2 == 0 ? 1.0 : -1.0) * binom * p;
    }
    binom = binom * (ORDER + 1 - k) / (k + 1);
  }
  return s / fact;
}

// The coordinate c along an axis of n samples mapped inside under the
// interpolation mode; false when the point takes cval.
__device__ __forceinline__ bool nd_map_coordinate(double& c, long long n, int mode) {
  const double last = (double)(n - 1);
  if (c >= 0.0 && c <= last) return true;
  if (!isfinite(c) || mode == 1) return false;
  if (mode == 6) return true;  // samples outside read cval instead
  if (n <= 1) { c = 0.0; return true; }
  if (mode == 2) { c = c < 0.0 ? 0.0 : last; return true; }
  const double nf = (double)n;
  if (mode == 3) {
    const double p = 2.0 * nf - 2.0;
    double m = fmod(c, p); if (m < 0.0) m += p;
    c = m > last ? p - m : m;
  } else if (mode == 4) {
    const double p = nf - 1.0;
    double m = fmod(c, p); if (m < 0.0) m += p;
    c = m;
  } else if (mode == 7) {
    double m = fmod(c, nf); if (m < 0.0) m += nf;
    c = m;
  } else {
    const double p = 2.0 * nf;
    double m = fmod(c + 0.5, p); if (m < 0.0) m += p;
    m -= 0.5;
    c = m > last ? p - 1.0 - m : (m < 0.0 ? -m - 1.0 : m);
  }
  return true;
}

// One output point per thread: its input coordinate from coords (nd x
// total) or from the affine map (mat: ND x ond row-major, then ND
// offsets), then the sum over the (ORDER + 1)^ND support.
extern "C" __global__ void cuprite_nd_interp(const T* __restrict__ coef, U* __restrict__ y,
    const double* __restrict__ coords, const double* __restrict__ mat, int ond, NdShape oshape,
    NdShape ishape, NdShape istrides, long long total, int mode, int ext, double cval, double npad)
{
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += (long long)gridDim.x * blockDim.x) {
    double pt[ND];
    if (coords) {
      for (int d = 0; d < ND; ++d) pt[d] = coords[d * total + q];
    } else {
      long long oc[ND_MAX];
      long long r = q;
      for (int j = ond - 1; j >= 0; --j) { const long long s = r / oshape.n[j]; oc[j] = r - s * oshape.n[j]; r = s; }
      for (int d = 0; d < ND; ++d) {
        double acc = mat[ND * ond + d];
        for (int j = 0; j < ond; ++j) acc += mat[d * ond + j] * (double)oc[j];
        pt[d] = acc;
      }
    }
    long long start[ND];
    double wt[ND][ORDER + 1];
    bool outside = false;
    for (int d = 0; d < ND; ++d) {
      double m = pt[d] + npad;
      if (!nd_map_coordinate(m, ishape.n[d], mode)) { outside = true; break; }
      start[d] = (ORDER & 1) ? (long long)floor(m) - ORDER / 2 : (long long)floor(m + 0.5) - ORDER / 2;
      for (int k = 0; k <= ORDER; ++k) wt[d][k] = ORDER == 0 ? 1.0 : nd_bspline(m - (double)(start[d] + k));
    }
    if (outside) { y[q] = (U)cval; continue; }
    long long support = 1;
    for (int d = 0; d < ND; ++d) support *= ORDER + 1;
    double t = 0.0;
    for (long long s = 0; s < support; ++s) {
      long long r = s, at = 0;
      double w = 1.0;
      bool out = false;
      for (int d = ND - 1; d >= 0; --d) {
        const int k = (int)(r % (ORDER + 1));
        r /= ORDER + 1;
        const long long i = start[d] + k;
        out = out || i < 0 || i >= ishape.n[d];
        at += nd_ext_index(i, ishape.n[d], ext) * istrides.n[d];
        w *= wt[d][k];
      }
      t += w * (out && mode == 6 ? cval : (double)coef[at]);
    }
    y[q] = (U)t;
  }
}
