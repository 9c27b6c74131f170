// The spline kernels of cuda/interpolate.rs' grid_eval, one thread per
// point: the tensor-product B-spline of degree K (SPLINE: `axes` holds the
// knots, `values` the coefficients) or PCHIP folded axis by axis, the last
// first (otherwise). The arithmetic is ops::interpolate's banded and pchip
// rules in the same order.
typedef @V@ value_t;
typedef @X@ point_t;
typedef @O@ out_t;
#define D @D@
#define K @K@
@IF_SPLINE@#define SPLINE 1

struct GridShape { long long start[D]; long long len[D]; long long stride[D]; };

// The number of entries of g[lo..hi) at or below x (g increasing).
__device__ long long count_at_or_below(const double* __restrict__ g, long long lo, long long hi, double x) {
  const long long first = lo;
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (__ldg(g + mid) <= x) lo = mid + 1; else hi = mid;
  }
  return lo - first;
}

#ifdef SPLINE
// banded::interval and banded::basis_values: the knot interval l of x and the
// K + 1 basis functions B_{l-K..l} there.
__device__ long long spline_basis(const double* __restrict__ t, long long len, double x, double* out) {
  const long long nt = len - K - 1;
  const long long l = K + count_at_or_below(t, K + 1, nt, x);
  double left[K + 1], right[K + 1];
  out[0] = 1.0;
  for (int j = 1; j <= K; ++j) {
    left[j] = x - __ldg(t + l + 1 - j);
    right[j] = __ldg(t + l + j) - x;
    double saved = 0.0;
    for (int r = 0; r < j; ++r) {
      const double temp = out[r] / (right[r + 1] + left[j - r]);
      out[r] = saved + right[r + 1] * temp;
      saved = left[j - r] * temp;
    }
    out[j] = saved;
  }
  return l - K;
}
#else
__device__ double sign_of(double v) { return v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0); }

__device__ double edge_slope(double h0, double h1, double m0, double m1) {
  const double d = ((2.0 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
  if (sign_of(d) != sign_of(m0)) return 0.0;
  if (sign_of(m0) != sign_of(m1) && fabs(d) > 3.0 * fabs(m0)) return 3.0 * m0;
  return d;
}

__device__ double inner_slope(double h0, double h1, double m0, double m1) {
  if (sign_of(m1) != sign_of(m0) || m1 == 0.0 || m0 == 0.0) return 0.0;
  const double w1 = 2.0 * h1 + h0, w2 = h1 + 2.0 * h0;
  return 1.0 / ((w1 / m0 + w2 / m1) / (w1 + w2));
}

// pchip::pchip_at: the axis g of n nodes at x in cell i, from the values v
// at nodes s, s + 1, ...
__device__ double pchip_at(const double* __restrict__ g, long long n, long long s, const double* v, long long i, double x) {
#define H(q) (__ldg(g + (q) + 1) - __ldg(g + (q)))
#define M(q) ((v[(q) + 1 - s] - v[(q) - s]) / H(q))
  double d[2];
  for (int e = 0; e < 2; ++e) {
    const long long q = i + e;
    if (n == 2) d[e] = M(0);
    else if (q == 0) d[e] = edge_slope(H(0), H(1), M(0), M(1));
    else if (q == n - 1) d[e] = edge_slope(H(n - 2), H(n - 3), M(n - 2), M(n - 3));
    else d[e] = inner_slope(H(q - 1), H(q), M(q - 1), M(q));
  }
  const double dx = H(i), secant = M(i);
#undef H
#undef M
  const double t = (d[0] + d[1] - 2.0 * secant) / dx;
  const double c0 = t / dx;
  const double c1 = (secant - d[0]) / dx - t;
  const double u = x - __ldg(g + i);
  return ((c0 * u + c1) * u + d[0]) * u + v[i - s];
}
#endif

extern "C" __global__ void cuprite_grid_spline_eval(const double* __restrict__ axes, GridShape gs, const value_t* __restrict__ values, const point_t* __restrict__ xi, long long points, long long m, int has_fill, double fill, out_t* __restrict__ out) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < points; p += step) {
    double x[D];
    bool nan = false, outside = false;
    for (int a = 0; a < D; ++a) {
      x[a] = (double)xi[p * D + a];
      const double* g = axes + gs.start[a];
      nan = nan || (x[a] != x[a]);
      outside = outside || x[a] < __ldg(g) || x[a] > __ldg(g + gs.len[a] - 1);
    }
    if (nan || (outside && has_fill)) {
      const double v = nan ? 0.0 / 0.0 : fill;
      for (long long j = 0; j < m; ++j) out[p * m + j] = (out_t)v;
      continue;
    }
#ifdef SPLINE
    double basis[D][K + 1];
    long long first[D];
    for (int a = 0; a < D; ++a) first[a] = spline_basis(axes + gs.start[a], gs.len[a], x[a], basis[a]);
    long long taps = 1;
    for (int a = 0; a < D; ++a) taps *= K + 1;
    for (long long j = 0; j < m; ++j) {
      double acc = 0.0;
      for (long long combo = 0; combo < taps; ++combo) {
        long long rest = combo, at = j;
        double weight = 1.0;
        for (int a = D - 1; a >= 0; --a) {
          const int q = (int)(rest % (K + 1));
          rest /= K + 1;
          weight *= basis[a][q];
          at += (first[a] + q) * gs.stride[a];
        }
        acc += weight * (double)__ldg(values + at);
      }
      out[p * m + j] = (out_t)acc;
    }
#else
    // Each axis' cell and window; then a depth-first fold: level a gathers
    // the w[a] values the axes after it give, and PCHIP along a turns them
    // into one value of level a - 1 (the last axis reads the grid).
    long long cell[D], s[D], w[D], idx[D];
    for (int a = 0; a < D; ++a) {
      const double* g = axes + gs.start[a];
      const long long n = gs.len[a];
      long long i = count_at_or_below(g, 0, n, x[a]) - 1;
      if (i < 0) i = 0;
      if (i > n - 2) i = n - 2;
      cell[a] = i;
      w[a] = n < 4 ? n : 4;
      s[a] = i - 1 < 0 ? 0 : (i - 1 > n - w[a] ? n - w[a] : i - 1);
    }
    for (long long j = 0; j < m; ++j) {
      double buf[D][4];
      for (int a = 0; a < D; ++a) idx[a] = 0;
      double result = 0.0;
      for (;;) {
        long long at = j;
        for (int a = 0; a < D - 1; ++a) at += (s[a] + idx[a]) * gs.stride[a];
        const int last = D - 1;
        for (long long q = 0; q < w[last]; ++q) buf[last][q] = (double)__ldg(values + at + (s[last] + q) * gs.stride[last]);
        // Fold every level whose window is complete, from the last axis up.
        int a = last;
        double v = pchip_at(axes + gs.start[a], gs.len[a], s[a], buf[a], cell[a], x[a]);
        bool finished = true;
        while (a > 0) {
          --a;
          buf[a][idx[a]] = v;
          if (idx[a] + 1 < w[a]) { ++idx[a]; finished = false; break; }
          idx[a] = 0;
          v = pchip_at(axes + gs.start[a], gs.len[a], s[a], buf[a], cell[a], x[a]);
        }
        if (finished) { result = v; break; }
      }
      out[p * m + j] = (out_t)result;
    }
#endif
  }
}
