// The interpolating spline's collocation solve of cuda/interpolate.rs, in two
// launches. cuprite_colloc_factor (one thread) builds the band matrix of
// ops::interpolate::banded::collocation_band and factors it by Gaussian
// elimination with partial pivoting inside the band (LAPACK's gbtrf storage:
// row i, column j at i * W + j + K - i, W = 3K + 1; the multipliers stay
// where they eliminated). The system is O(n K^2) sequential work on data
// that stays in the device's cache; the many right-hand sides are the
// parallel part: cuprite_colloc_solve gives each column one thread, which
// replays the interchanges and eliminations and back-substitutes.
typedef @T@ value_t;
#define K @K@
#define W (3 * K + 1)

// The band entry of row i, column j.
#define AT(i, j) ((i) * W + (j) + K - (i))

// banded::basis_derivatives: B_{l-K..l} and their derivatives 0..nu at x in
// interval l (Piegl and Tiller's A2.3), derivative nu into out.
__device__ void basis_derivative(const double* __restrict__ t, long long l, double x, int nu, double* out) {
  double ndu[K + 1][K + 1], left[K + 1], right[K + 1], a[2][K + 1];
  ndu[0][0] = 1.0;
  for (int j = 1; j <= K; ++j) {
    left[j] = x - t[l + 1 - j];
    right[j] = t[l + j] - x;
    double saved = 0.0;
    for (int r = 0; r < j; ++r) {
      ndu[j][r] = right[r + 1] + left[j - r];
      const double temp = ndu[r][j - 1] / ndu[j][r];
      ndu[r][j] = saved + right[r + 1] * temp;
      saved = left[j - r] * temp;
    }
    ndu[j][j] = saved;
  }
  for (int r = 0; r <= K; ++r) {
    if (nu == 0) { out[r] = ndu[r][K]; continue; }
    int s1 = 0, s2 = 1;
    a[0][0] = 1.0;
    double d = 0.0;
    for (int q = 1; q <= nu; ++q) {
      d = 0.0;
      const int rk = r - q, pk = K - q;
      if (r >= q) {
        a[s2][0] = a[s1][0] / ndu[pk + 1][rk];
        d = a[s2][0] * ndu[rk][pk];
      }
      const int j1 = rk >= -1 ? 1 : -rk;
      const int j2 = (r - 1 <= pk) ? q - 1 : K - r;
      for (int j = j1; j <= j2; ++j) {
        a[s2][j] = (a[s1][j] - a[s1][j - 1]) / ndu[pk + 1][rk + j];
        d += a[s2][j] * ndu[rk + j][pk];
      }
      if (r <= pk) {
        a[s2][q] = -a[s1][q - 1] / ndu[pk + 1][r];
        d += a[s2][q] * ndu[r][pk];
      }
      const int tmp = s1; s1 = s2; s2 = tmp;
    }
    out[r] = d;
  }
  double scale = K;
  for (int q = 1; q <= nu; ++q) {
    if (q > 1) scale *= (double)(K - q + 1);
  }
  if (nu > 0) for (int r = 0; r <= K; ++r) out[r] *= scale;
}

// banded::interval: the knot interval of x among the nt coefficients.
__device__ long long knot_interval(const double* __restrict__ t, long long nt, double x) {
  long long lo = K + 1, hi = nt;
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (t[mid] <= x) lo = mid + 1; else hi = mid;
  }
  return K + (lo - (K + 1));
}

__device__ void put_row(const double* __restrict__ t, long long nt, double* band, long long row, double x, int nu) {
  const long long l = knot_interval(t, nt, x);
  double vals[K + 1];
  basis_derivative(t, l, x, nu, vals);
  for (int q = 0; q <= K; ++q) band[AT(row, l - K + q)] = vals[q];
}

// Row i of the band alone, one thread per row: the matrix that
// api/interpolate's tridiagonal path (not-a-knot cubics) reads.
extern "C" __global__ void cuprite_colloc_rows(const double* __restrict__ t, const double* __restrict__ x, long long n, long long nt, int order, double* __restrict__ band) {
  const long long step = (long long)gridDim.x * blockDim.x;
  const int extra = order > 0 ? 1 : 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nt; i += step) {
    for (int q = 0; q < W; ++q) band[i * W + q] = 0.0;
    if (extra && i == 0) put_row(t, nt, band, 0, x[0], order);
    else if (extra && i == nt - 1) put_row(t, nt, band, nt - 1, x[n - 1], order);
    else put_row(t, nt, band, i, x[i - extra], 0);
  }
}

extern "C" __global__ void cuprite_colloc_factor(const double* __restrict__ t, const double* __restrict__ x, long long n, long long nt, int order, double* __restrict__ band, int* __restrict__ piv) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (long long i = 0; i < nt * W; ++i) band[i] = 0.0;
  const int extra = order > 0 ? 1 : 0;
  if (extra) {
    put_row(t, nt, band, 0, x[0], order);
    put_row(t, nt, band, nt - 1, x[n - 1], order);
  }
  for (long long i = 0; i < n; ++i) put_row(t, nt, band, i + extra, x[i], 0);
  for (long long j = 0; j < nt; ++j) {
    const long long last = j + K < nt - 1 ? j + K : nt - 1;
    const long long right = j + 2 * K < nt - 1 ? j + 2 * K : nt - 1;
    long long p = j;
    for (long long r = j + 1; r <= last; ++r)
      if (fabs(band[AT(r, j)]) > fabs(band[AT(p, j)])) p = r;
    piv[j] = (int)p;
    if (p != j) {
      for (long long c = j; c <= right; ++c) {
        const double v = band[AT(j, c)];
        band[AT(j, c)] = band[AT(p, c)];
        band[AT(p, c)] = v;
      }
    }
    // A zero pivot (a singular system) divides by zero: the solution is not finite.
    const double pv = band[AT(j, j)];
    for (long long r = j + 1; r <= last; ++r) {
      const double f = band[AT(r, j)] / pv;
      band[AT(r, j)] = f;
      if (f == 0.0) continue;
      for (long long c = j + 1; c <= right; ++c) band[AT(r, c)] -= f * band[AT(j, c)];
    }
  }
}

extern "C" __global__ void cuprite_colloc_solve(const double* __restrict__ band, const int* __restrict__ piv, long long nt, long long m, value_t* __restrict__ rhs) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x; col < m; col += step) {
    value_t* b = rhs + col;
    for (long long j = 0; j < nt; ++j) {
      const long long p = piv[j];
      double bj = (double)b[j * m];
      if (p != j) {
        const double bp = (double)b[p * m];
        b[p * m] = (value_t)bj;
        bj = bp;
        b[j * m] = (value_t)bj;
      }
      const long long last = j + K < nt - 1 ? j + K : nt - 1;
      for (long long r = j + 1; r <= last; ++r) b[r * m] = (value_t)((double)b[r * m] - __ldg(band + AT(r, j)) * bj);
    }
    for (long long j = nt - 1; j >= 0; --j) {
      const long long right = j + 2 * K < nt - 1 ? j + 2 * K : nt - 1;
      double acc = (double)b[j * m];
      for (long long c = j + 1; c <= right; ++c) acc -= __ldg(band + AT(j, c)) * (double)b[c * m];
      b[j * m] = (value_t)(acc / __ldg(band + AT(j, j)));
    }
  }
}
