// Cuprite's kernel prelude: the types and math every generated kernel uses,
// written so NVRTC needs no CUDA headers (half, bfloat16, complex).
#define CUPRITE_PRELUDE 1
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// IEEE binary16, converted with the hardware's cvt instructions.
struct f16 { unsigned short bits; };
__device__ __forceinline__ float to_float(f16 h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits)); return f;
}
__device__ __forceinline__ f16 make_f16(float f) {
  f16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f)); return h;
}
// bfloat16: the top half of a float, rounded to nearest even; NaN stays NaN.
struct bf16 { unsigned short bits; };
__device__ __forceinline__ float to_float(bf16 h) {
  return __uint_as_float(((unsigned)h.bits) << 16);
}
__device__ __forceinline__ bf16 make_bf16(float f) {
  unsigned u = __float_as_uint(f);
  bf16 r;
  if ((u & 0x7fffffffu) > 0x7f800000u) { r.bits = (unsigned short)((u >> 16) | 0x40u); return r; }
  u += 0x7fffu + ((u >> 16) & 1u);
  r.bits = (unsigned short)(u >> 16);
  return r;
}

template <class T> struct cplx {
  T re, im;
};
typedef cplx<float> c64;
typedef cplx<double> c128;
template <class T> __device__ __forceinline__ cplx<T> mk(T re, T im) { cplx<T> c; c.re = re; c.im = im; return c; }
template <class T> __device__ __forceinline__ cplx<T> operator+(cplx<T> a, cplx<T> b) { return mk(a.re + b.re, a.im + b.im); }
template <class T> __device__ __forceinline__ cplx<T> operator-(cplx<T> a, cplx<T> b) { return mk(a.re - b.re, a.im - b.im); }
template <class T> __device__ __forceinline__ cplx<T> operator-(cplx<T> a) { return mk(-a.re, -a.im); }
template <class T> __device__ __forceinline__ cplx<T> operator*(cplx<T> a, cplx<T> b) {
  return mk(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
template <class T> __device__ __forceinline__ cplx<T> operator/(cplx<T> a, cplx<T> b) {
  // Smith's algorithm: avoids overflow for large denominators.
  if (fabs(b.re) >= fabs(b.im)) {
    T r = b.im / b.re, d = b.re + b.im * r;
    return mk((a.re + a.im * r) / d, (a.im - a.re * r) / d);
  } else {
    T r = b.re / b.im, d = b.re * r + b.im;
    return mk((a.re * r + a.im) / d, (a.im * r - a.re) / d);
  }
}
template <class T> __device__ __forceinline__ bool operator==(cplx<T> a, cplx<T> b) { return a.re == b.re && a.im == b.im; }
template <class T> __device__ __forceinline__ bool operator!=(cplx<T> a, cplx<T> b) { return !(a == b); }
// NumPy orders complex numbers lexicographically.
template <class T> __device__ __forceinline__ bool operator<(cplx<T> a, cplx<T> b) { return a.re < b.re || (a.re == b.re && a.im < b.im); }
template <class T> __device__ __forceinline__ bool operator>(cplx<T> a, cplx<T> b) { return b < a; }
template <class T> __device__ __forceinline__ bool operator<=(cplx<T> a, cplx<T> b) { return !(b < a); }
template <class T> __device__ __forceinline__ bool operator>=(cplx<T> a, cplx<T> b) { return !(a < b); }
template <class T> __device__ __forceinline__ T cabs(cplx<T> a) { return hypot(a.re, a.im); }
template <class T> __device__ __forceinline__ cplx<T> cexp(cplx<T> a) { T e = exp(a.re); return mk(e * cos(a.im), e * sin(a.im)); }
template <class T> __device__ __forceinline__ cplx<T> clog(cplx<T> a) { return mk(log(cabs(a)), atan2(a.im, a.re)); }
template <class T> __device__ __forceinline__ cplx<T> csqrt(cplx<T> a) {
  T m = cabs(a);
  if (m == T(0)) return mk(T(0), a.im);
  T re = sqrt((m + fabs(a.re)) * T(0.5));
  T im = a.im / (T(2) * re);
  if (a.re >= T(0)) return mk(re, im);
  return mk(fabs(im), a.im < T(0) ? -re : re);
}
template <class T> __device__ __forceinline__ cplx<T> csin(cplx<T> a) { return mk(sin(a.re) * cosh(a.im), cos(a.re) * sinh(a.im)); }
template <class T> __device__ __forceinline__ cplx<T> ccos(cplx<T> a) { return mk(cos(a.re) * cosh(a.im), -sin(a.re) * sinh(a.im)); }
template <class T> __device__ __forceinline__ cplx<T> csinh(cplx<T> a) { return mk(sinh(a.re) * cos(a.im), cosh(a.re) * sin(a.im)); }
template <class T> __device__ __forceinline__ cplx<T> ccosh(cplx<T> a) { return mk(cosh(a.re) * cos(a.im), sinh(a.re) * sin(a.im)); }
template <class T> __device__ __forceinline__ cplx<T> ctan(cplx<T> a) { return csin(a) / ccos(a); }
template <class T> __device__ __forceinline__ cplx<T> ctanh(cplx<T> a) { return csinh(a) / ccosh(a); }
template <class T> __device__ __forceinline__ cplx<T> cpow(cplx<T> a, cplx<T> b) {
  if (a.re == T(0) && a.im == T(0)) return (b.re == T(0) && b.im == T(0)) ? mk(T(1), T(0)) : mk(T(0), T(0));
  return cexp(b * clog(a));
}
