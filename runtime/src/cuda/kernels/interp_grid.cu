// The kernel of cuda/interpolate.rs' grid_eval: a rectilinear grid of D axes
// read at each point (multilinear or nearest), one thread per point. The
// D cells are found by binary search on the concatenated axes; the 2^D
// corners (linear) or the one node (nearest) are read for each of the m
// trailing values.
typedef @V@ value_t;
typedef @X@ point_t;
typedef @O@ out_t;
#define D @D@
@IF_LINEAR@#define LINEAR 1

// ops::interpolate::cell_of: the cell i in 0..n-1 of x and its position w.
__device__ void cell_of(double x, const double* __restrict__ g, long long n, long long* i_out, double* w_out) {
  if (n < 2) { *i_out = 0; *w_out = 0.0; return; }
  long long lo = 0, hi = n;
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if ((double)__ldg(g + mid) <= x) lo = mid + 1; else hi = mid;
  }
  long long i = lo - 1;
  if (i < 0) i = 0;
  if (i > n - 2) i = n - 2;
  const double g0 = __ldg(g + i);
  *i_out = i;
  *w_out = (x - g0) / ((double)__ldg(g + i + 1) - g0);
}

struct GridShape { long long start[D]; long long len[D]; long long stride[D]; };

extern "C" __global__ void cuprite_grid_eval(const double* __restrict__ axes, GridShape gs, const value_t* __restrict__ values, const point_t* __restrict__ xi, long long points, long long m, int has_fill, double fill, out_t* __restrict__ out) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < points; p += step) {
    long long cell[D];
    double w[D];
    bool nan = false, outside = false;
    for (int a = 0; a < D; ++a) {
      const double x = (double)xi[p * D + a];
      const double* g = axes + gs.start[a];
      const long long n = gs.len[a];
      nan = nan || (x != x);
      outside = outside || x < (double)__ldg(g) || x > (double)__ldg(g + n - 1);
      cell_of(x, g, n, &cell[a], &w[a]);
    }
    if (nan || (outside && has_fill)) {
      const double v = nan ? 0.0 / 0.0 : fill;
      for (long long j = 0; j < m; ++j) out[p * m + j] = (out_t)v;
      continue;
    }
#ifdef LINEAR
    for (long long j = 0; j < m; ++j) {
      double acc = 0.0;
      for (int corner = 0; corner < (1 << D); ++corner) {
        double weight = 1.0;
        long long at = j;
        for (int a = 0; a < D; ++a) {
          const int up = (corner >> (D - 1 - a)) & 1;
          weight *= up ? w[a] : 1.0 - w[a];
          at += (cell[a] + up) * gs.stride[a];
        }
        acc += weight * (double)__ldg(values + at);
      }
      out[p * m + j] = (out_t)acc;
    }
#else
    long long base = 0;
    for (int a = 0; a < D; ++a) {
      const int up = gs.len[a] > 1 && w[a] > 0.5;
      base += (cell[a] + up) * gs.stride[a];
    }
    for (long long j = 0; j < m; ++j) out[p * m + j] = (out_t)values[base + j];
#endif
  }
}
