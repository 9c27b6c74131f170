// cp::jit's support code, after the prelude: what a kernel translated from
// Rust needs beyond plain C++. The prelude's `f16` and `bf16` are storage
// types with the bits of CUDA's __half and __nv_bfloat16 (so NVRTC needs no
// cuda_fp16.h / cuda_bf16.h, which pip's NVRTC does not ship); here they get
// the arithmetic the `half` crate gives them in Rust: every operation runs
// in float and rounds its result back (to nearest even), one operation at a
// time, so the GPU and the CPU backend agree bit for bit.
#ifndef CP_JIT_SUPPORT
#define CP_JIT_SUPPORT 1

// A double as a float rounded to odd: rounding that float to f16 or bf16
// (far fewer bits) then gives the single rounding of `f16::from_f64`.
__device__ __forceinline__ float cp_odd_float(double v) {
  float f = __double2float_rz(v);
  if ((double)f != v && f == f) f = __uint_as_float(__float_as_uint(f) | 1u);
  return f;
}

// `cp_as<To>(v)`: Rust's conversions (`T::from_f64`, `f16::from_f32`,
// `.to_f32()`), through float for the half types.
template <class To> struct cp_conv {
  template <class F> static __device__ __forceinline__ To from(F v) { return (To)v; }
  static __device__ __forceinline__ To from(f16 v) { return (To)to_float(v); }
  static __device__ __forceinline__ To from(bf16 v) { return (To)to_float(v); }
};
template <> struct cp_conv<f16> {
  template <class F> static __device__ __forceinline__ f16 from(F v) { return make_f16((float)v); }
  static __device__ __forceinline__ f16 from(double v) { return make_f16(cp_odd_float(v)); }
  static __device__ __forceinline__ f16 from(f16 v) { return v; }
  static __device__ __forceinline__ f16 from(bf16 v) { return make_f16(to_float(v)); }
};
template <> struct cp_conv<bf16> {
  template <class F> static __device__ __forceinline__ bf16 from(F v) { return make_bf16((float)v); }
  static __device__ __forceinline__ bf16 from(double v) { return make_bf16(cp_odd_float(v)); }
  static __device__ __forceinline__ bf16 from(f16 v) { return make_bf16(to_float(v)); }
  static __device__ __forceinline__ bf16 from(bf16 v) { return v; }
};
template <class To, class F> __device__ __forceinline__ To cp_as(F v) { return cp_conv<To>::from(v); }
// Stores a value into a reduction's output of any type.
template <class D, class S> __device__ __forceinline__ void cp_store(D& d, S v) { d = cp_as<D>(v); }
__device__ __forceinline__ f16 cp_f16_bits(unsigned short b) { f16 h; h.bits = b; return h; }
__device__ __forceinline__ bf16 cp_bf16_bits(unsigned short b) { bf16 h; h.bits = b; return h; }

#define CP_HALF_OPS(H, MK)                                                                        \
  __device__ __forceinline__ H operator+(H a, H b) { return MK(to_float(a) + to_float(b)); }      \
  __device__ __forceinline__ H operator-(H a, H b) { return MK(to_float(a) - to_float(b)); }      \
  __device__ __forceinline__ H operator*(H a, H b) { return MK(to_float(a) * to_float(b)); }      \
  __device__ __forceinline__ H operator/(H a, H b) { return MK(to_float(a) / to_float(b)); }      \
  __device__ __forceinline__ H operator%(H a, H b) { return MK(fmodf(to_float(a), to_float(b))); } \
  __device__ __forceinline__ H operator-(H a) { H r = a; r.bits ^= 0x8000u; return r; }           \
  __device__ __forceinline__ H& operator+=(H& a, H b) { a = a + b; return a; }                    \
  __device__ __forceinline__ H& operator-=(H& a, H b) { a = a - b; return a; }                    \
  __device__ __forceinline__ H& operator*=(H& a, H b) { a = a * b; return a; }                    \
  __device__ __forceinline__ H& operator/=(H& a, H b) { a = a / b; return a; }                    \
  __device__ __forceinline__ H& operator%=(H& a, H b) { a = a % b; return a; }                    \
  __device__ __forceinline__ bool operator==(H a, H b) { return to_float(a) == to_float(b); }     \
  __device__ __forceinline__ bool operator!=(H a, H b) { return to_float(a) != to_float(b); }     \
  __device__ __forceinline__ bool operator<(H a, H b) { return to_float(a) < to_float(b); }       \
  __device__ __forceinline__ bool operator<=(H a, H b) { return to_float(a) <= to_float(b); }     \
  __device__ __forceinline__ bool operator>(H a, H b) { return to_float(a) > to_float(b); }       \
  __device__ __forceinline__ bool operator>=(H a, H b) { return to_float(a) >= to_float(b); }     \
  __device__ __forceinline__ H __shfl_down_sync(unsigned m, H v, int d) {                         \
    H r; r.bits = (unsigned short)__shfl_down_sync(m, (unsigned)v.bits, d); return r; }           \
  __device__ __forceinline__ H __shfl_xor_sync(unsigned m, H v, int d) {                          \
    H r; r.bits = (unsigned short)__shfl_xor_sync(m, (unsigned)v.bits, d); return r; }

// Rust's float `%` (C's fmod); the half types have their `%` above.
__device__ __forceinline__ float cp_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double cp_fmod(double a, double b) { return fmod(a, b); }
template <class H> __device__ __forceinline__ H cp_fmod(H a, H b) { return a % b; }

// The math of f32 for a half type: computed in float, rounded once.
#define CP_HALF_MATH1(H, MK, NAME, F) \
  __device__ __forceinline__ H NAME(H a) { return MK(F(to_float(a))); }
#define CP_HALF_MATH2(H, MK, NAME, F) \
  __device__ __forceinline__ H NAME(H a, H b) { return MK(F(to_float(a), to_float(b))); }
#define CP_HALF_MATH(H, MK)                                                                        \
  CP_HALF_MATH1(H, MK, sin, sinf) CP_HALF_MATH1(H, MK, cos, cosf) CP_HALF_MATH1(H, MK, tan, tanf)   \
  CP_HALF_MATH1(H, MK, asin, asinf) CP_HALF_MATH1(H, MK, acos, acosf)                              \
  CP_HALF_MATH1(H, MK, atan, atanf) CP_HALF_MATH1(H, MK, sinh, sinhf)                              \
  CP_HALF_MATH1(H, MK, cosh, coshf) CP_HALF_MATH1(H, MK, tanh, tanhf)                              \
  CP_HALF_MATH1(H, MK, asinh, asinhf) CP_HALF_MATH1(H, MK, acosh, acoshf)                          \
  CP_HALF_MATH1(H, MK, atanh, atanhf) CP_HALF_MATH1(H, MK, exp, expf)                              \
  CP_HALF_MATH1(H, MK, exp2, exp2f) CP_HALF_MATH1(H, MK, expm1, expm1f)                            \
  CP_HALF_MATH1(H, MK, log, logf) CP_HALF_MATH1(H, MK, log2, log2f)                                \
  CP_HALF_MATH1(H, MK, log10, log10f) CP_HALF_MATH1(H, MK, log1p, log1pf)                          \
  CP_HALF_MATH1(H, MK, sqrt, sqrtf) CP_HALF_MATH1(H, MK, cbrt, cbrtf)                              \
  CP_HALF_MATH1(H, MK, floor, floorf) CP_HALF_MATH1(H, MK, ceil, ceilf)                            \
  CP_HALF_MATH1(H, MK, round, roundf) CP_HALF_MATH1(H, MK, trunc, truncf)                          \
  CP_HALF_MATH1(H, MK, fabs, fabsf) CP_HALF_MATH2(H, MK, pow, powf)                                \
  CP_HALF_MATH2(H, MK, atan2, atan2f) CP_HALF_MATH2(H, MK, hypot, hypotf)                          \
  CP_HALF_MATH2(H, MK, copysign, copysignf) CP_HALF_MATH2(H, MK, fmin, fminf)                      \
  CP_HALF_MATH2(H, MK, fmax, fmaxf)                                                                \
  __device__ __forceinline__ H fma(H a, H b, H c) {                                                \
    return MK(fmaf(to_float(a), to_float(b), to_float(c))); }

CP_HALF_OPS(f16, make_f16)
CP_HALF_OPS(bf16, make_bf16)
CP_HALF_MATH(f16, make_f16)
CP_HALF_MATH(bf16, make_bf16)

#endif
