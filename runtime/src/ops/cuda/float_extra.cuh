
// NumPy's newer real float functions, the same algorithms as the CPU
// backend's (ops/scalar_math.rs).
template <class T> __device__ __forceinline__ T np_logaddexp(T x, T y) {
  if (x == y) return x + T(0.6931471805599453);
  T t = x - y;
  if (t > T(0)) return x + log1p(exp(-t));
  if (t <= T(0)) return y + log1p(exp(t));
  return t;
}
template <class T> __device__ __forceinline__ T np_logaddexp2(T x, T y) {
  if (x == y) return x + T(1);
  T t = x - y;
  if (t > T(0)) return x + log1p(exp2(-t)) * T(1.4426950408889634);
  if (t <= T(0)) return y + log1p(exp2(t)) * T(1.4426950408889634);
  return t;
}
template <class T> __device__ __forceinline__ T np_heaviside(T x, T h0) {
  if (x < T(0)) return T(0);
  if (x == T(0)) return h0;
  if (x > T(0)) return T(1);
  return x;
}
template <class T> __device__ __forceinline__ T np_sinc(T x) {
  T y = T(3.141592653589793) * x;
  return y == T(0) ? T(1) : sin(y) / y;
}
template <class T> __device__ __forceinline__ T np_nan_to_num(T x, T big) {
  if (x != x) return T(0);
  if (isinf(x)) return x > T(0) ? big : -big;
  return x;
}
// nextafter in the spacing of float16 / bfloat16: values arrive as floats
// converted exactly from the half type, and step by one of its bit patterns.
__device__ __forceinline__ f16 np_half_of(float x, f16) { return make_f16(x); }
__device__ __forceinline__ bf16 np_half_of(float x, bf16) { return make_bf16(x); }
template <class H> __device__ __forceinline__ float np_nextafter_half(float x, float y) {
  if (x != x || y != y) return x + y;
  if (x == y) return y;
  H h = np_half_of(x, H());
  if (x == 0.0f) h.bits = y > x ? (unsigned short)1 : (unsigned short)0x8001;
  else h.bits = ((x < y) == (x > 0.0f)) ? (unsigned short)(h.bits + 1) : (unsigned short)(h.bits - 1);
  return to_float(h);
}
