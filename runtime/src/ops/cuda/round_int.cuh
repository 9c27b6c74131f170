
// An integer rounded to a multiple of 10^k, half to even, as the CPU
// backend does it (in 128 bits, so 10^19 and 10^20 are exact); 0 past 10^20.
template <class T> __device__ __forceinline__ T np_round_int(T x, int k) {
  if (k > 20) return (T)0;
  __int128 p = 1;
  for (int i = 0; i < k; ++i) p *= 10;
  __int128 v = (__int128)x;
  __int128 q = v / p, r = v % p;
  if (r < 0) { r += p; q -= 1; }
  if (2 * r > p || (2 * r == p && (q & 1) != 0)) q += 1;
  return (T)(q * p);
}
