@PRELUDE@
@COMMON@
// Cuprite ndimage spline interpolation (see cuda/ndimage/interp.rs and
// cpu/ndimage/spline.rs, whose arithmetic this follows), specialised for
// ND input axes and spline ORDER so that the per-axis weights and offsets
// stay in registers and the (ORDER + 1)^ND taps unroll. Indices are I
// (int when every index fits). Extensions of the taps (the prefilter's):
// 0 mirror, 1 reflect, 2 periodic.
#define ORDER @ORDER@
#define ND @ND@
typedef @T@ T;  // coefficients
typedef @U@ U;  // output
typedef @I@ I;  // indices

// An affine map by value: ND x OND matrix row-major, then ND offsets.
struct NdAffine { double v[ND_MAX * ND_MAX + ND_MAX]; };

__device__ __forceinline__ I nd_ext_index(I i, I n, int ext) {
  if (i >= 0 && i < n) return i;
  if (n <= 1) return 0;
  if (ext == 2) { I m = i % n; return m < 0 ? m + n : m; }
  const I p = ext == 0 ? 2 * n - 2 : 2 * n;
  I m = i % p;
  if (m < 0) m += p;
  if (m >= n) return ext == 0 ? p - m : p - 1 - m;
  return m;
}

// The ORDER + 1 weights of the centred B-spline at the taps start + k, for
// t = m - floor(m) (odd orders, t in [0, 1)) or m - floor(m + 1/2) (even
// orders, t in [-1/2, 1/2)): the B-spline's pieces written out, as SciPy
// does, rather than the CPU's truncated-power sum (they agree to ~1e-14;
// these are the more accurate).
__device__ __forceinline__ void nd_weights(double t, double (&w)[ORDER + 1]) {
#if ORDER == 0
  w[0] = 1.0;
#elif ORDER == 1
  w[0] = 1.0 - t;
  w[1] = t;
#elif ORDER == 2
  const double a = 0.5 - t, b = 0.5 + t;
  w[0] = 0.5 * a * a;
  w[1] = 0.75 - t * t;
  w[2] = 0.5 * b * b;
#elif ORDER == 3
  const double u = 1.0 - t;
  w[0] = u * u * u * (1.0 / 6.0);
  w[1] = 2.0 / 3.0 - t * t * (1.0 - 0.5 * t);
  w[2] = 2.0 / 3.0 - u * u * (1.0 - 0.5 * u);
  w[3] = t * t * t * (1.0 / 6.0);
#elif ORDER == 4
  // |x| in [1/2, 3/2): (55 + 20x - 120x^2 + 80x^3 - 16x^4) / 96.
#define ND_MID4(x) ((55.0 + (x) * (20.0 + (x) * (-120.0 + (x) * (80.0 - 16.0 * (x))))) * (1.0 / 96.0))
  const double a = 1.0 - 2.0 * t, b = 1.0 + 2.0 * t, t2 = t * t;
  w[0] = a * a * a * a * (1.0 / 384.0);
  w[1] = ND_MID4(1.0 + t);
  w[2] = 115.0 / 192.0 + t2 * (-0.625 + 0.25 * t2);
  w[3] = ND_MID4(1.0 - t);
  w[4] = b * b * b * b * (1.0 / 384.0);
#undef ND_MID4
#elif ORDER == 5
  // |x| < 1: 11/20 - x^2/2 + x^4/4 - |x|^5/12; |x| in [1, 2):
  // 17/40 + 5x/8 - 7x^2/4 + 5x^3/4 - 3x^4/8 + x^5/24.
#define ND_IN5(x) (0.55 + (x) * (x) * (-0.5 + (x) * (x) * (0.25 - (x) * (1.0 / 12.0))))
#define ND_MID5(x) (0.425 + (x) * (0.625 + (x) * (-1.75 + (x) * (1.25 + (x) * (-0.375 + (x) * (1.0 / 24.0))))))
  const double u = 1.0 - t, u2 = u * u, t2 = t * t;
  w[0] = u2 * u2 * u * (1.0 / 120.0);
  w[1] = ND_MID5(1.0 + t);
  w[2] = ND_IN5(t);
  w[3] = ND_IN5(u);
  w[4] = ND_MID5(2.0 - t);
  w[5] = t2 * t2 * t * (1.0 / 120.0);
#undef ND_IN5
#undef ND_MID5
#endif
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

// Sum over axes D.. of the taps: axis D's weights times the sum over the
// axes after it, the last axis innermost (the CPU's order). Every level
// unrolls up to 3 axes (216 taps at order 5); beyond, the outer levels loop.
template <int D> struct NdSum {
  static __device__ __forceinline__ double at(const T* __restrict__ coef, I at_, bool in,
      const I (&off)[ND][ORDER + 1], const double (&w)[ND][ORDER + 1], const bool (&ok)[ND][ORDER + 1],
      bool grid_constant, double cval) {
    double acc = 0.0;
    if constexpr (ND <= 3 || D + 2 >= ND) {
#pragma unroll
      for (int k = 0; k <= ORDER; ++k)
        acc += w[D][k] * NdSum<D + 1>::at(coef, at_ + off[D][k], in && ok[D][k], off, w, ok, grid_constant, cval);
    } else {
#pragma unroll 1
      for (int k = 0; k <= ORDER; ++k)
        acc += w[D][k] * NdSum<D + 1>::at(coef, at_ + off[D][k], in && ok[D][k], off, w, ok, grid_constant, cval);
    }
    return acc;
  }
};
template <> struct NdSum<ND> {
  static __device__ __forceinline__ double at(const T* __restrict__ coef, I at_, bool in,
      const I (&)[ND][ORDER + 1], const double (&)[ND][ORDER + 1], const bool (&)[ND][ORDER + 1],
      bool grid_constant, double cval) {
    // grid-constant: a tap outside the input reads cval.
    return grid_constant && !in ? cval : (double)coef[at_];
  }
};

// The interpolated value at input point pt (before the padding npad). The
// mode and the taps' offsets are resolved once per axis, not per tap.
__device__ __forceinline__ double nd_interp_point(const T* __restrict__ coef, const double (&pt)[ND],
    const NdShape& ishape, const NdShape& istrides, int mode, int ext, double cval, double npad) {
  I off[ND][ORDER + 1];
  double w[ND][ORDER + 1];
  bool ok[ND][ORDER + 1];
#pragma unroll
  for (int d = 0; d < ND; ++d) {
    double m = pt[d] + npad;
    const I n = (I)ishape.n[d];
    if (!nd_map_coordinate(m, (long long)n, mode)) return cval;
    // grid-constant far outside: every tap reads cval (and the index
    // arithmetic below stays in range).
    if (mode == 6 && !(m > -(double)(ORDER + 1) && m < (double)n + ORDER)) return cval;
    const double fl = (ORDER & 1) ? floor(m) : floor(m + 0.5);
    const I start = (I)fl - ORDER / 2;
    nd_weights(m - fl, w[d]);
    const I stride = (I)istrides.n[d];
#pragma unroll
    for (int k = 0; k <= ORDER; ++k) {
      const I i = start + k;
      ok[d][k] = i >= 0 && i < n;
      off[d][k] = (ok[d][k] ? i : nd_ext_index(i, n, ext)) * stride;
    }
  }
  return NdSum<0>::at(coef, 0, true, off, w, ok, mode == 6, cval);
}

// One output point per thread (grid-stride) at the coordinates coords
// (ND x total, C order).
extern "C" __global__ void cuprite_nd_interp_coords(const T* __restrict__ coef, U* __restrict__ y,
    const double* __restrict__ coords, I total, NdShape ishape, NdShape istrides, int mode, int ext,
    double cval, double npad)
{
  for (I q = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; q < total; q += (I)gridDim.x * (I)blockDim.x) {
    double pt[ND];
#pragma unroll
    for (int d = 0; d < ND; ++d) pt[d] = coords[(I)d * total + q];
    y[q] = (U)nd_interp_point(coef, pt, ishape, istrides, mode, ext, cval, npad);
  }
}

// The affine map from OND output axes: output rows (all axes but the
// last) over blockIdx.y, the last axis over x, so that a row's part of the
// map is computed once and no thread divides per point. The map is summed
// as the CPU does, offset first, without fused multiply-adds, so that
// points on the edges of the input land exactly where the CPU puts them.
#define OND @OND@
extern "C" __global__ void cuprite_nd_interp_affine(const T* __restrict__ coef, U* __restrict__ y, NdAffine a,
    NdShape oshape, I rows, NdShape ishape, NdShape istrides, int mode, int ext, double cval, double npad)
{
  const I last = (I)oshape.n[OND - 1];
  for (I row = (I)blockIdx.y; row < rows; row += (I)gridDim.y) {
    I oc[OND];
    if constexpr (OND >= 2) {
      I r = row;
#pragma unroll
      for (int j = OND - 2; j >= 1; --j) { const I nj = (I)oshape.n[j]; const I s = r / nj; oc[j] = r - s * nj; r = s; }
      oc[0] = r;
    }
    double base[ND];
#pragma unroll
    for (int d = 0; d < ND; ++d) {
      double acc = a.v[ND * OND + d];
#pragma unroll
      for (int j = 0; j < OND - 1; ++j) acc = __dadd_rn(acc, __dmul_rn(a.v[d * OND + j], (double)oc[j]));
      base[d] = acc;
    }
    for (I x = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; x < last; x += (I)gridDim.x * (I)blockDim.x) {
      double pt[ND];
#pragma unroll
      for (int d = 0; d < ND; ++d) pt[d] = __dadd_rn(base[d], __dmul_rn(a.v[d * OND + OND - 1], (double)x));
      y[row * last + x] = (U)nd_interp_point(coef, pt, ishape, istrides, mode, ext, cval, npad);
    }
  }
}
