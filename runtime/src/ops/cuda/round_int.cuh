
// An integer rounded to a multiple of 10^k, half to even, with the CPU
// backend's result (it computes in 128 bits and wraps into T): products
// wrap in 64 bits, which keeps the same low bits; 0 from 10^20 on.
template <class T> __device__ __forceinline__ T np_round_int(T x, int k) {
  if (k >= 20) return (T)0;
  unsigned long long p = 1;
  for (int i = 0; i < k; ++i) p *= 10ULL;
  if ((T)-1 > (T)0) {
    unsigned long long v = (unsigned long long)x, q = v / p, r = v % p;
    if (r > p - r || (r == p - r && (q & 1ULL))) q += 1;
    return (T)(q * p);
  }
  long long v = (long long)x;
  if (k == 19) {
    // 10^19 exceeds every signed value: the nearest multiples are -10^19, 0, 10^19.
    const long long half = 5000000000000000000LL;
    if (v > half) return (T)p;
    if (v < -half) return (T)(0ULL - p);
    return (T)0;
  }
  long long sp = (long long)p, q = v / sp, r = v % sp;
  if (r < 0) { r += sp; q -= 1; }
  if (r > sp - r || (r == sp - r && (q & 1))) q += 1;
  return (T)((unsigned long long)q * p);
}
