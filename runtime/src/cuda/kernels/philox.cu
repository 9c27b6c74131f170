// Philox4x32-10 (Random123's philox4x32_R(10, ctr, key)): four words from
// the 128-bit counter c, in place; the random kernels share it.

__device__ __forceinline__ void philox4x32_10(unsigned int c[4], unsigned int k0, unsigned int k1) {
  #pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    unsigned long long p0 = (unsigned long long)0xD2511F53u * c[0];
    unsigned long long p1 = (unsigned long long)0xCD9E8D57u * c[2];
    unsigned int hi0 = (unsigned int)(p0 >> 32), lo0 = (unsigned int)p0;
    unsigned int hi1 = (unsigned int)(p1 >> 32), lo1 = (unsigned int)p1;
    unsigned int n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
    c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
  }
}
