
// Complex functions with NumPy's results: C99 branch cuts and special
// values, the same algorithms as the CPU backend's (ops/scalar_math.rs).
template <class T> __device__ __forceinline__ bool c_isnan(cplx<T> a) { return a.re != a.re || a.im != a.im; }
// NumPy's lexicographic order (NaN compares false).
template <class T> __device__ __forceinline__ bool c_lt(cplx<T> a, cplx<T> b) { return a.re < b.re || (a.re == b.re && a.im < b.im); }
template <class T> __device__ __forceinline__ bool c_le(cplx<T> a, cplx<T> b) { return a.re < b.re || (a.re == b.re && a.im <= b.im); }
template <class T> __device__ __forceinline__ cplx<T> c_maximum(cplx<T> a, cplx<T> b) { return (c_isnan(a) || c_le(b, a)) ? a : b; }
template <class T> __device__ __forceinline__ cplx<T> c_minimum(cplx<T> a, cplx<T> b) { return (c_isnan(a) || c_le(a, b)) ? a : b; }
template <class T> __device__ __forceinline__ cplx<T> c_fmax(cplx<T> a, cplx<T> b) { return (c_isnan(b) || c_le(b, a)) ? a : b; }
template <class T> __device__ __forceinline__ cplx<T> c_fmin(cplx<T> a, cplx<T> b) { return (c_isnan(b) || c_le(a, b)) ? a : b; }
template <class T> __device__ __forceinline__ cplx<T> c_scale(cplx<T> a, T s) { return mk(a.re * s, a.im * s); }
template <class T> __device__ __forceinline__ cplx<T> c_conj(cplx<T> a) { return mk(a.re, -a.im); }
// Smith's division; a zero divisor gives NumPy's infinities or NaN.
template <class T> __device__ __forceinline__ cplx<T> c_div(cplx<T> a, cplx<T> b) {
  T br = fabs(b.re), bi = fabs(b.im);
  if (br >= bi) {
    if (br == T(0) && bi == T(0)) return mk(a.re / br, a.im / bi);
    T rat = b.im / b.re, scl = T(1) / (b.re + b.im * rat);
    return mk((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
  }
  T rat = b.re / b.im, scl = T(1) / (b.im + b.re * rat);
  return mk((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
template <class T> __device__ __forceinline__ cplx<T> c_recip(cplx<T> a) {
  if (fabs(a.im) <= fabs(a.re)) { T r = a.im / a.re, d = a.re + a.im * r; return mk(T(1) / d, -r / d); }
  T r = a.re / a.im, d = a.re * r + a.im;
  return mk(r / d, T(-1) / d);
}
template <class T> __device__ __forceinline__ cplx<T> c_exp(cplx<T> a) {
  T re = a.re, im = a.im;
  if (isinf(re)) {
    if (re < T(0)) { if (!isfinite(im)) return mk(T(0), T(0)); }
    else if (im == T(0) || !isfinite(im)) { if (isinf(im)) im = im - im; return mk(re, im); }
  } else if (re != re && im == T(0)) {
    return a;
  }
  T e = exp(re);
  return mk(e * cos(im), e * sin(im));
}
template <class T> __device__ __forceinline__ cplx<T> c_log(cplx<T> a) { return mk(log(hypot(a.re, a.im)), atan2(a.im, a.re)); }
template <class T> __device__ __forceinline__ cplx<T> c_exp2(cplx<T> a) { return c_exp(c_scale(a, T(0.6931471805599453))); }
template <class T> __device__ __forceinline__ cplx<T> c_log2(cplx<T> a) { return c_scale(c_log(a), T(1.4426950408889634)); }
template <class T> __device__ __forceinline__ cplx<T> c_log10(cplx<T> a) { return c_scale(c_log(a), T(0.4342944819032518)); }
template <class T> __device__ __forceinline__ cplx<T> c_log1p(cplx<T> a) { T x = a.re + T(1); return mk(log(hypot(x, a.im)), atan2(a.im, x)); }
template <class T> __device__ __forceinline__ cplx<T> c_expm1(cplx<T> a) {
  T h = sin(a.im / T(2));
  return mk(expm1(a.re) * cos(a.im) - T(2) * h * h, exp(a.re) * sin(a.im));
}
template <class T> __device__ __forceinline__ cplx<T> c_sin(cplx<T> a) { return mk(sin(a.re) * cosh(a.im), cos(a.re) * sinh(a.im)); }
template <class T> __device__ __forceinline__ cplx<T> c_cos(cplx<T> a) { return mk(cos(a.re) * cosh(a.im), -sin(a.re) * sinh(a.im)); }
template <class T> __device__ __forceinline__ cplx<T> c_sinh(cplx<T> a) { return mk(sinh(a.re) * cos(a.im), cosh(a.re) * sin(a.im)); }
template <class T> __device__ __forceinline__ cplx<T> c_cosh(cplx<T> a) { return mk(cosh(a.re) * cos(a.im), sinh(a.re) * sin(a.im)); }
// C99's square root: sqrt(-4 - 0i) is -2i; no intermediate overflow.
template <class T> __device__ __forceinline__ cplx<T> c_sqrt(cplx<T> z) {
  T x = z.re, y = z.im;
  if (isinf(y)) return mk(T(__longlong_as_double(0x7ff0000000000000LL)), y);
  if (x == T(0) && y == T(0)) return mk(T(0), y);
  T t = sqrt(fabs(x) / T(2) + hypot(x / T(2), y / T(2)));
  if (t != t) return mk(t, t);
  if (x >= T(0)) return mk(t, y / (T(2) * t));
  return mk(fabs(y) / (T(2) * t), copysign(t, y));
}
// Kahan's formulas for the inverse functions.
template <class T> __device__ __forceinline__ cplx<T> c_asin(cplx<T> z) {
  cplx<T> s1m = c_sqrt(mk(T(1) - z.re, -z.im)), s1p = c_sqrt(mk(T(1) + z.re, z.im));
  return mk(atan2(z.re, (s1m * s1p).re), asinh((c_conj(s1m) * s1p).im));
}
template <class T> __device__ __forceinline__ cplx<T> c_acos(cplx<T> z) {
  cplx<T> s1m = c_sqrt(mk(T(1) - z.re, -z.im)), s1p = c_sqrt(mk(T(1) + z.re, z.im));
  return mk(T(2) * atan2(s1m.re, s1p.re), asinh((c_conj(s1p) * s1m).im));
}
template <class T> __device__ __forceinline__ cplx<T> c_acosh(cplx<T> z) {
  cplx<T> sm = c_sqrt(mk(z.re - T(1), z.im)), sp = c_sqrt(mk(z.re + T(1), z.im));
  return mk(asinh((c_conj(sm) * sp).re), T(2) * atan2(sm.im, sp.re));
}
template <class T> __device__ __forceinline__ cplx<T> c_atanh(cplx<T> z) {
  T x = z.re, y = z.im, big = T(1e150);
  if (fabs(x) > big || fabs(y) > big) { cplx<T> r = c_recip(z); return mk(r.re, copysign(T(1.5707963267948966), y)); }
  T d = (T(1) - x) * (T(1) - x) + y * y;
  return mk(log1p(T(4) * x / d) / T(4), atan2(T(2) * y, (T(1) - x) * (T(1) + x) - y * y) / T(2));
}
template <class T> __device__ __forceinline__ cplx<T> c_tanh(cplx<T> z) {
  T x = z.re, y = z.im;
  if (fabs(x) >= T(22)) { T e = exp(T(-2) * fabs(x)); return mk(copysign(T(1), x), T(4) * sin(y) * cos(y) * e); }
  T d = cosh(x + x) + cos(y + y);
  return mk(sinh(x + x) / d, sin(y + y) / d);
}
// -i f(i z): circular functions from the hyperbolic ones.
template <class T> __device__ __forceinline__ cplx<T> c_tan(cplx<T> z) { cplx<T> w = c_tanh(mk(-z.im, z.re)); return mk(w.im, -w.re); }
template <class T> __device__ __forceinline__ cplx<T> c_atan(cplx<T> z) { cplx<T> w = c_atanh(mk(-z.im, z.re)); return mk(w.im, -w.re); }
template <class T> __device__ __forceinline__ cplx<T> c_asinh(cplx<T> z) { cplx<T> w = c_asin(mk(-z.im, z.re)); return mk(w.im, -w.re); }
template <class T> __device__ __forceinline__ T c_fsign(T x) { return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x); }
template <class T> __device__ __forceinline__ cplx<T> c_sign(cplx<T> a) {
  T abs = hypot(a.re, a.im);
  if (abs != abs) return mk(abs, abs);
  if (isinf(abs)) {
    if (isinf(a.re)) { if (isinf(a.im)) return mk(abs - abs, abs - abs); return mk(c_fsign(a.re), T(0)); }
    return mk(T(0), c_fsign(a.im));
  }
  if (abs == T(0)) return mk(T(0), T(0));
  return mk(a.re / abs, a.im / abs);
}
// Exact repeated products for small integer exponents, exp(b log a) otherwise.
template <class T> __device__ __forceinline__ cplx<T> c_pow(cplx<T> a, cplx<T> b) {
  cplx<T> one = mk(T(1), T(0));
  if (b.re == T(0) && b.im == T(0)) return one;
  if (a.re == T(0) && a.im == T(0)) {
    if (b.re > T(0) && b.im == T(0)) return mk(T(0), T(0));
    T nan = T(__longlong_as_double(0x7ff8000000000000LL));
    return mk(nan, nan);
  }
  if (b.im == T(0) && b.re == trunc(b.re) && fabs(b.re) < T(100)) {
    long long n = (long long)b.re;
    cplx<T> r;
    if (n == 1) r = a;
    else if (n == 2) r = a * a;
    else if (n == 3) r = a * a * a;
    else {
      unsigned long long e = n < 0 ? (unsigned long long)(-n) : (unsigned long long)n;
      cplx<T> acc = one, p = a;
      while (e > 0) { if (e & 1) acc = acc * p; e >>= 1; if (e > 0) p = p * p; }
      r = acc;
    }
    return n < 0 ? c_div(one, r) : r;
  }
  return c_exp(b * c_log(a));
}
template <class T> __device__ __forceinline__ cplx<T> c_sinc(cplx<T> z) {
  cplx<T> y = c_scale(z, T(3.141592653589793));
  if (y.re == T(0) && y.im == T(0)) return mk(T(1), T(0));
  return c_div(c_sin(y), y);
}
template <class T> __device__ __forceinline__ T c_nan_to_num_part(T x, T big) {
  if (x != x) return T(0);
  if (isinf(x)) return x > T(0) ? big : -big;
  return x;
}
template <class T> __device__ __forceinline__ cplx<T> c_nan_to_num(cplx<T> a, T big) {
  return mk(c_nan_to_num_part(a.re, big), c_nan_to_num_part(a.im, big));
}
