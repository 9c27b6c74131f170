// Element-wise distributions: element i draws from its own substream (Philox
// block offset + i, counter word 2 numbering that block's successive words),
// so rejection loops of different lengths never shift another element's
// numbers. Mirrors cpu/random/dists.rs operation by operation.
struct Substream {
  unsigned int k0, k1;
  unsigned long long blk;
  unsigned int counter;
  unsigned int w[4];
  int next;
};

__device__ __forceinline__ unsigned long long sub_bits(Substream& s) {
  if (s.next == 2) {
    s.w[0] = (unsigned int)s.blk; s.w[1] = (unsigned int)(s.blk >> 32);
    s.w[2] = s.counter++; s.w[3] = 0u;
    philox4x32_10(s.w, s.k0, s.k1);
    s.next = 0;
  }
  unsigned long long x = ((unsigned long long)s.w[2 * s.next] << 32) | s.w[2 * s.next + 1];
  ++s.next;
  return x;
}
// Uniform in [0, 1) and in (0, 1].
__device__ __forceinline__ double sub_unit(Substream& s) {
  return (double)(sub_bits(s) >> 11) * 1.1102230246251565404e-16;
}
__device__ __forceinline__ double sub_open(Substream& s) {
  return (double)((sub_bits(s) >> 11) + 1ull) * 1.1102230246251565404e-16;
}
__device__ __forceinline__ double sub_normal(Substream& s) {
  double u1 = sub_open(s);
  double u2 = sub_unit(s);
  return sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
}

__device__ double marsaglia_tsang(Substream& s, double a) {
  const double d = a - 1.0 / 3.0;
  const double c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double x = sub_normal(s);
    double v = 1.0 + c * x;
    if (v <= 0.0) continue;
    v = v * v * v;
    double u = sub_open(s);
    double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2 || log(u) < 0.5 * x2 + d * (1.0 - v + log(v))) return d * v;
  }
}

__device__ double standard_gamma(Substream& s, double a) {
  if (a <= 0.0) return 0.0;
  if (a < 1.0) {
    double g = marsaglia_tsang(s, a + 1.0);
    return g * pow(sub_open(s), 1.0 / a);
  }
  return marsaglia_tsang(s, a);
}

__device__ double sample_beta(Substream& s, double a, double b) {
  if (a <= 1.0 && b <= 1.0) {
    for (;;) {
      double u = sub_open(s), v = sub_open(s);
      double x = pow(u, 1.0 / a), y = pow(v, 1.0 / b);
      double sum = x + y;
      if (sum <= 1.0) {
        if (sum > 0.0) return x / sum;
        double lx = log(u) / a, ly = log(v) / b;
        double m = fmax(lx, ly);
        lx -= m; ly -= m;
        return exp(lx - log(exp(lx) + exp(ly)));
      }
    }
  }
  double x = standard_gamma(s, a);
  double y = standard_gamma(s, b);
  return x / (x + y);
}

__device__ double log_factorial(double k) {
  if (k < 10.0) {
    double p = 1.0;
    for (double i = 2.0; i <= k; i += 1.0) p *= i;
    return log(p);
  }
  double x = k + 1.0;
  double r = 1.0 / x, r2 = r * r;
  double series = r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 / 1680.0)));
  return (x - 0.5) * log(x) - x + 0.9189385332046728 + series;
}

__device__ double sample_poisson(Substream& s, double lam) {
  if (lam < 10.0) {
    const double limit = exp(-lam);
    double k = 0.0;
    double prod = sub_unit(s);
    while (prod > limit) { k += 1.0; prod *= sub_unit(s); }
    return k;
  }
  const double slam = sqrt(lam), loglam = log(lam);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2.0);
  for (;;) {
    double u = sub_unit(s) - 0.5;
    double v = sub_unit(s);
    double us = 0.5 - fabs(u);
    double k = floor((2.0 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0.0 || (us < 0.013 && v > us)) continue;
    if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <= -lam + k * loglam - log_factorial(k)) return k;
  }
}

__device__ double binomial_small(Substream& s, double n, double p) {
  const double q = 1.0 - p, np = n * p;
  const double q_n = exp(n * log(q));
  const double bound = fmin(n, np + 10.0 * sqrt(np * q + 1.0));
  for (;;) {
    double u = sub_unit(s);
    double k = 0.0, pk = q_n;
    bool restart = false;
    while (u > pk) {
      u -= pk;
      k += 1.0;
      if (k > bound) { restart = true; break; }
      pk *= (n - k + 1.0) * p / (k * q);
    }
    if (!restart) return k;
  }
}

__device__ double binomial_btrs(Substream& s, double n, double p) {
  const double q = 1.0 - p, np = n * p;
  const double spq = sqrt(np * q);
  const double b = 1.15 + 2.53 * spq;
  const double a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = np + 0.5;
  const double vr = 0.92 - 4.2 / b;
  const double alpha = (2.83 + 5.1 / b) * spq;
  const double lpq = log(p / q);
  const double m = floor((n + 1.0) * p);
  const double h = log_factorial(m) + log_factorial(n - m);
  for (;;) {
    double u = sub_unit(s) - 0.5;
    double v = sub_unit(s);
    double us = 0.5 - fabs(u);
    double k = floor((2.0 * a / us + b) * u + c);
    if (k < 0.0 || k > n) continue;
    if (us >= 0.07 && v <= vr) return k;
    v = log(v * alpha / (a / (us * us) + b));
    if (v <= h - log_factorial(k) - log_factorial(n - k) + (k - m) * lpq) return k;
  }
}

__device__ double sample_binomial(Substream& s, double n, double p) {
  if (n == 0.0 || p == 0.0) return 0.0;
  if (p == 1.0) return n;
  const bool flip = p > 0.5;
  const double pp = flip ? 1.0 - p : p;
  double k = n * pp <= 30.0 ? binomial_small(s, n, pp) : binomial_btrs(s, n, pp);
  return flip ? n - k : k;
}

__device__ double sample_geometric(Substream& s, double p) {
  double x = ceil(log(sub_open(s)) / log1p(-p));
  return fmin(fmax(x, 1.0), 9.223372036854775807e18);
}

__device__ double sample_laplace(Substream& s, double loc, double scale) {
  for (;;) {
    double u = sub_unit(s);
    if (u >= 0.5) return loc - scale * log(2.0 - u - u);
    if (u > 0.0) return loc + scale * log(u + u);
  }
}

extern "C" __global__ void cuprite_rng_dist(@T@* __restrict__ out, long long n, unsigned int k0, unsigned int k1, unsigned long long offset, double a, double b) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    Substream s;
    s.k0 = k0; s.k1 = k1; s.blk = offset + (unsigned long long)i; s.counter = 0u; s.next = 2;
    const double x = @SAMPLE@;
    out[i] = (@T@)x;
  }
}
