
// Inverses of the incomplete gamma and beta functions in their last
// argument (ops/special/inverse.rs has the method and the reasons): a
// closed-form guess refined by Halley steps on the log of the tail, kept inside a bracket that every
// evaluation narrows, on the tail that decides the root.
#define SP_INV_STEPS 300
#define SP_INV_TOL 4e-16
__device__ __forceinline__ double sp_inv_keep_in_bracket(double proposed, double lo, double hi) {
  if (proposed > lo && proposed < hi) return proposed;
  if (isinf(hi)) return lo > 0.0 ? lo * 4.0 : 1.0;
  if (lo == 0.0) return hi * 1e-3;
  if (hi > 4.0 * lo) return sqrt(lo * hi);
  return 0.5 * (lo + hi);
}
__device__ __forceinline__ double sp_inv_halley(double u, double curvature) {
  double c = fmin(fmax(u * curvature, -1.0), 1.0);
  return u / (1.0 - 0.5 * c);
}
__device__ __forceinline__ double sp_gamma_guess(double a, double p, double q) {
  double small = exp((log(p) + sp_gammaln(a + 1.0)) / a);
  if (p <= 0.5 && small < 0.3 * (a + 1.0)) return small;
  double z = p < 0.5 ? sp_ndtri(p) : -sp_ndtri(q);
  double s = 1.0 - 1.0 / (9.0 * a) + z / (3.0 * sqrt(a));
  if (s > 0.0 && a > 0.5) return a * s * s * s;
  if (p < 0.5) return small;
  double t = -log(q) - sp_gammaln(a);
  return fmax(t + (a - 1.0) * log(fmax(t, 1.0)), 1e-3);
}
__device__ __noinline__ double sp_gamma_inverse(double a, double p, double q) {
  bool lower = p <= 0.5;
  double log_gamma_a = sp_gammaln(a), lo = 0.0, hi = SP_INF, x = sp_gamma_guess(a, p, q);
  if (x == 0.0) return 0.0;  // the root underflows
  double log_p = log(p), log_q = log(q);
  for (int i = 0; i < SP_INV_STEPS; i++) {
    // The residual in logs, increasing with x on either side.
    double tail = lower ? sp_gammainc(a, x) : sp_gammaincc(a, x);
    double f = lower ? log(tail) - log_p : log_q - log(tail);
    if (f == 0.0) return x;
    if (f > 0.0) hi = x; else lo = x;
    double slope = exp(-x + (a - 1.0) * log(x) - log_gamma_a) / tail;
    double curvature = (a - 1.0) / x - 1.0 + (lower ? -slope : slope);
    double proposed = (slope > 0.0 && !isinf(slope)) ? x - sp_inv_halley(f / slope, curvature) : SP_NAN;
    double next = sp_inv_keep_in_bracket(proposed, lo, hi);
    if (fabs(next - x) <= SP_INV_TOL * next || hi - lo <= SP_INV_TOL * lo) return next;
    x = next;
  }
  return x;
}
// SciPy's values outside a > 0 finite and 0 < p < 1; false when inside.
__device__ __forceinline__ bool sp_gamma_inverse_edges(double a, double p, bool lower, double *v) {
  if (a != a || p != p || a < 0.0 || p < 0.0 || p > 1.0) *v = SP_NAN;
  else if (p == 0.0) *v = lower ? 0.0 : SP_INF;
  else if (p == 1.0) *v = lower ? SP_INF : 0.0;
  else if (a == 0.0 || isinf(a)) *v = SP_NAN;
  else return false;
  return true;
}
__device__ __forceinline__ double sp_gammaincinv(double a, double p) {
  double v;
  if (sp_gamma_inverse_edges(a, p, true, &v)) return v;
  return sp_gamma_inverse(a, p, 1.0 - p);
}
__device__ __forceinline__ double sp_gammainccinv(double a, double q) {
  double v;
  if (sp_gamma_inverse_edges(a, q, false, &v)) return v;
  return sp_gamma_inverse(a, 1.0 - q, q);
}
__device__ __forceinline__ float sp_gammaincinv(float a, float p) { return (float)sp_gammaincinv((double)a, (double)p); }
__device__ __forceinline__ float sp_gammainccinv(float a, float q) { return (float)sp_gammainccinv((double)a, (double)q); }

__device__ __forceinline__ double sp_beta_guess(double a, double b, double y) {
  double small = exp((log(y) + log(a) + sp_betaln(a, b)) / a);
  if (small < 0.01) return small;
  if (a >= 1.0 && b >= 1.0) {
    double z = -sp_ndtri(y), l = (z * z - 3.0) / 6.0;
    double h = 2.0 / (1.0 / (2.0 * a - 1.0) + 1.0 / (2.0 * b - 1.0));
    double w = z * sqrt(h + l) / h - (1.0 / (2.0 * b - 1.0) - 1.0 / (2.0 * a - 1.0)) * (l + 5.0 / 6.0 - 2.0 / (3.0 * h));
    return a / (a + b * exp(2.0 * w));
  }
  double t = exp(a * log(a / (a + b))) / a, u = exp(b * log(b / (a + b))) / b, w = t + u;
  if (y < t / w) return pow(a * w * y, 1.0 / a);
  return 1.0 - pow(b * w * (1.0 - y), 1.0 / b);
}
__device__ __noinline__ double sp_beta_inverse(double a, double b, double y, double guess) {
  double log_beta = sp_betaln(a, b), lo = 0.0, hi = 1.0;
  if (guess == 0.0) return 0.0;  // the root underflows
  double x = (guess > 0.0 && guess < 1.0) ? guess : 0.5;
  double log_y = log(y);
  for (int i = 0; i < SP_INV_STEPS; i++) {
    double v = sp_betainc(a, b, x), f = log(v) - log_y;
    if (f == 0.0) return x;
    if (f > 0.0) hi = x; else lo = x;
    double slope = exp((a - 1.0) * log(x) + (b - 1.0) * log1p(-x) - log_beta) / v;
    double curvature = (a - 1.0) / x - (b - 1.0) / (1.0 - x) - slope;
    double proposed = (slope > 0.0 && !isinf(slope)) ? x - sp_inv_halley(f / slope, curvature) : SP_NAN;
    if (proposed == x) return x;  // the step is below half an ulp of x
    double next = sp_inv_keep_in_bracket(proposed, lo, hi);
    if (fabs(next - x) <= SP_INV_TOL * next || hi - lo <= SP_INV_TOL * lo) return next;
    x = next;
  }
  return x;
}
__device__ __forceinline__ double sp_beta_density(double a, double b, double x) {
  return exp((a - 1.0) * log(x) + (b - 1.0) * log1p(-x) - sp_betaln(a, b));
}
__device__ __forceinline__ double sp_betaincinv(double a, double b, double y) {
  if (a != a || b != b || y != y || a <= 0.0 || b <= 0.0) return SP_NAN;
  if (y < 0.0 || y > 1.0) return SP_NAN;
  if (y == 0.0 || y == 1.0) return y;
  if (isinf(a) && isinf(b)) return SP_NAN;
  if (isinf(b)) return 0.0;
  if (isinf(a)) return 1.0;
  double x = sp_beta_inverse(a, b, y, sp_beta_guess(a, b, y));
  // Past the middle, re-solved on the upper tail for 1 - x where the root is
  // past 1/2 or the density below y (see betaincinv in ops/special/inverse.rs).
  if (y > 0.5 && (x >= 0.5 || (x > 0.0 && sp_beta_density(a, b, x) < y))) {
    double start = x < 1.0 ? 1.0 - x : sp_beta_guess(b, a, 1.0 - y);
    return 1.0 - sp_beta_inverse(b, a, 1.0 - y, start);
  }
  return x;
}
__device__ __forceinline__ float sp_betaincinv(float a, float b, float y) {
  return (float)sp_betaincinv((double)a, (double)b, (double)y);
}
