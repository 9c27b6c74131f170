
template <class T> __device__ __forceinline__ T py_floordiv(T a, T b) {
  if (b == 0) return 0;
  if ((T)-1 < (T)0 && b == (T)-1) return (T)(0 - a);
  T q = a / b;
  return ((a % b != 0) && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <class T> __device__ __forceinline__ T py_mod(T a, T b) {
  if (b == 0) return 0;
  if ((T)-1 < (T)0 && b == (T)-1) return 0;
  T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
template <class T> __device__ __forceinline__ T int_pow(T b, T e) {
  if ((T)-1 < (T)0 && e < 0) return 0;
  T r = 1;
  unsigned long long k = (unsigned long long)e;
  while (k) { if (k & 1) r = (T)(r * b); b = (T)(b * b); k >>= 1; }
  return r;
}
template <class T> __device__ __forceinline__ T int_shl(T a, T b) {
  return ((unsigned long long)b < sizeof(T) * 8) ? (T)(a << b) : (T)0;
}
template <class T> __device__ __forceinline__ T int_shr(T a, T b) {
  if ((unsigned long long)b < sizeof(T) * 8) return (T)(a >> b);
  return ((T)-1 < (T)0 && a < 0) ? (T)-1 : (T)0;
}
