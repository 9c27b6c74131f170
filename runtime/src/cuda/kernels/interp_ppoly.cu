// The kernel of cuda/interpolate.rs' ppoly_eval: a piecewise polynomial at
// each point, one thread per point. The search and the Horner sum run in
// double; the point is read once and its m values written once.
typedef @T@ value_t;

// ops::interpolate::interval_of: the piece i with b[i] <= x < b[i+1], the
// last piece closed, the end pieces outside; -1 for NaN, or outside when
// not extrapolating.
__device__ long long interval_of(double x, const value_t* __restrict__ b, long long n, int extrapolate) {
  if (x != x) return -1;
  if (!extrapolate && !(x >= (double)b[0] && x <= (double)b[n])) return -1;
  long long lo = 0, hi = n + 1;
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if ((double)__ldg(b + mid) <= x) lo = mid + 1; else hi = mid;
  }
  long long i = lo - 1;
  if (i < 0) i = 0;
  if (i > n - 1) i = n - 1;
  return i;
}

extern "C" __global__ void cuprite_ppoly_eval(const value_t* __restrict__ breaks, const value_t* __restrict__ coefs, const value_t* __restrict__ xi, long long points, long long n, long long m, int k, int nu, int extrapolate, value_t* __restrict__ out) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < points; p += step) {
    const double x = (double)xi[p];
    const long long i = interval_of(x, breaks, n, extrapolate);
    if (i < 0) {
      for (long long j = 0; j < m; ++j) out[p * m + j] = (value_t)(0.0 / 0.0);
      continue;
    }
    const double t = x - (double)__ldg(breaks + i);
    for (long long j = 0; j < m; ++j) {
      // ops::interpolate::poly_derivative_at.
      double acc = 0.0;
      for (int r = 0; r <= k - nu; ++r) {
        const int power = k - r;
        double factor = 1.0;
        for (int v = power - nu + 1; v <= power; ++v) factor *= (double)v;
        acc = acc * t + (double)__ldg(coefs + ((long long)r * n + i) * m + j) * factor;
      }
      out[p * m + j] = (value_t)acc;
    }
  }
}
