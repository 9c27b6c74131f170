
template <class T> __device__ __forceinline__ T py_fmod(T a, T b) {
  if (b == T(0)) return fmod(a, b);
  T m = fmod(a, b);
  if (m != T(0)) { if ((b < T(0)) != (m < T(0))) m += b; }
  else { m = copysign(T(0), b); }
  return m;
}
template <class T> __device__ __forceinline__ T py_ffloordiv(T a, T b) {
  if (b == T(0)) return a / b;
  T m = fmod(a, b);
  T div = (a - m) / b;
  if (m != T(0) && ((b < T(0)) != (m < T(0)))) div -= T(1);
  T fl;
  if (div != T(0)) { fl = floor(div); if (div - fl > T(0.5)) fl += T(1); }
  else { fl = copysign(T(0), a / b); }
  return fl;
}
template <class T> __device__ __forceinline__ T nan_max(T a, T b) { return (a != a || a >= b) ? a : b; }
template <class T> __device__ __forceinline__ T nan_min(T a, T b) { return (a != a || a <= b) ? a : b; }
template <class T> __device__ __forceinline__ T f_sign(T x) { return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x); }
