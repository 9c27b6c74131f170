struct alignas(@PACK@) Pack { @T@ v[@PER@]; };
extern "C" __global__ void cuprite_rng(@T@* __restrict__ out, long long n, unsigned int k0, unsigned int k1, unsigned long long offset, double a, double b, long long ilow, unsigned long long range) {
  const long long blocks = (n + @PER@ - 1) / @PER@;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < blocks;
       i += (long long)gridDim.x * blockDim.x) {
    const unsigned long long blk = offset + (unsigned long long)i;
    unsigned int w[4] = {(unsigned int)blk, (unsigned int)(blk >> 32), 0u, 0u};
    philox4x32_10(w, k0, k1);
    @T@ v[@PER@];
@IF_UNIFORM_F32@    const float l = (float)a, sp = (float)b;
@IF_UNIFORM_F32@    #pragma unroll
@IF_UNIFORM_F32@    for (int q = 0; q < 4; ++q) {
@IF_UNIFORM_F32@      float u = (float)(w[q] >> 8) * 5.9604644775390625e-08f;
@IF_UNIFORM_F32@      v[q] = __fadd_rn(l, __fmul_rn(sp, u));
@IF_UNIFORM_F32@    }
@IF_UNIFORM_F64@    #pragma unroll
@IF_UNIFORM_F64@    for (int q = 0; q < 2; ++q) {
@IF_UNIFORM_F64@      unsigned long long x = ((unsigned long long)w[2 * q] << 32) | w[2 * q + 1];
@IF_UNIFORM_F64@      double u = (double)(x >> 11) * 1.1102230246251565404e-16;
@IF_UNIFORM_F64@      v[q] = __dadd_rn(a, __dmul_rn(b, u));
@IF_UNIFORM_F64@    }
    // Single-precision normals: sin/cos from the special-function units
    // (absolute error about 4e-7 on [-pi, pi], hence the angle centred
    // there and the signs flipped back): the precise sincospif made this
    // kernel compute bound, 26% slower than CuPy's. The logarithm stays
    // precise: the fast one loses relative accuracy near 1, where the
    // values near 0 come from.
@IF_NORMAL_F32@    const float l = (float)a, sc = (float)b;
@IF_NORMAL_F32@    #pragma unroll
@IF_NORMAL_F32@    for (int q = 0; q < 2; ++q) {
@IF_NORMAL_F32@      float u1 = (float)((w[2 * q] >> 8) + 1u) * 5.9604644775390625e-08f;
@IF_NORMAL_F32@      float u2 = (float)(w[2 * q + 1] >> 8) * 5.9604644775390625e-08f;
@IF_NORMAL_F32@      float r = sqrtf(-2.0f * logf(u1));
@IF_NORMAL_F32@      float sn, cs;
@IF_NORMAL_F32@      __sincosf(6.2831853071795865f * (u2 - 0.5f), &sn, &cs);
@IF_NORMAL_F32@      v[2 * q] = __fadd_rn(l, __fmul_rn(sc, __fmul_rn(r, -cs)));
@IF_NORMAL_F32@      v[2 * q + 1] = __fadd_rn(l, __fmul_rn(sc, __fmul_rn(r, -sn)));
@IF_NORMAL_F32@    }
@IF_NORMAL_F64@    {
@IF_NORMAL_F64@      unsigned long long x1 = ((unsigned long long)w[0] << 32) | w[1];
@IF_NORMAL_F64@      unsigned long long x2 = ((unsigned long long)w[2] << 32) | w[3];
@IF_NORMAL_F64@      double u1 = (double)((x1 >> 11) + 1ull) * 1.1102230246251565404e-16;
@IF_NORMAL_F64@      double u2 = (double)(x2 >> 11) * 1.1102230246251565404e-16;
@IF_NORMAL_F64@      double r = sqrt(-2.0 * log(u1));
@IF_NORMAL_F64@      double sn, cs;
@IF_NORMAL_F64@      sincospi(2.0 * u2, &sn, &cs);
@IF_NORMAL_F64@      v[0] = __dadd_rn(a, __dmul_rn(b, __dmul_rn(r, cs)));
@IF_NORMAL_F64@      v[1] = __dadd_rn(a, __dmul_rn(b, __dmul_rn(r, sn)));
@IF_NORMAL_F64@    }
@IF_EXPONENTIAL_F32@    const float sc = (float)a;
@IF_EXPONENTIAL_F32@    #pragma unroll
@IF_EXPONENTIAL_F32@    for (int q = 0; q < 4; ++q) {
@IF_EXPONENTIAL_F32@      float u = (float)((w[q] >> 8) + 1u) * 5.9604644775390625e-08f;
@IF_EXPONENTIAL_F32@      v[q] = __fmul_rn(sc, -logf(u));
@IF_EXPONENTIAL_F32@    }
@IF_EXPONENTIAL_F64@    #pragma unroll
@IF_EXPONENTIAL_F64@    for (int q = 0; q < 2; ++q) {
@IF_EXPONENTIAL_F64@      unsigned long long x = ((unsigned long long)w[2 * q] << 32) | w[2 * q + 1];
@IF_EXPONENTIAL_F64@      double u = (double)((x >> 11) + 1ull) * 1.1102230246251565404e-16;
@IF_EXPONENTIAL_F64@      v[q] = __dmul_rn(a, -log(u));
@IF_EXPONENTIAL_F64@    }
    // Integers: Lemire's multiply-and-reject; a rejected word is redrawn
    // from counter word 2 = attempt, same block and lane.
@IF_INTEGERS_F32@    const unsigned int r = (unsigned int)range;
@IF_INTEGERS_F32@    const unsigned int t = (0u - r) % r;
@IF_INTEGERS_F32@    for (int q = 0; q < 4; ++q) {
@IF_INTEGERS_F32@      unsigned int x = w[q];
@IF_INTEGERS_F32@      unsigned long long m = (unsigned long long)x * r;
@IF_INTEGERS_F32@      unsigned int att = 0u;
@IF_INTEGERS_F32@      while ((unsigned int)m < t) {
@IF_INTEGERS_F32@        ++att;
@IF_INTEGERS_F32@        unsigned int c2[4] = {(unsigned int)blk, (unsigned int)(blk >> 32), att, 0u};
@IF_INTEGERS_F32@        philox4x32_10(c2, k0, k1);
@IF_INTEGERS_F32@        x = c2[q];
@IF_INTEGERS_F32@        m = (unsigned long long)x * r;
@IF_INTEGERS_F32@      }
@IF_INTEGERS_F32@      v[q] = (@T@)((unsigned long long)ilow + (m >> 32));
@IF_INTEGERS_F32@    }
@IF_INTEGERS_F64@    const unsigned long long t = (0ull - range) % range;
@IF_INTEGERS_F64@    for (int q = 0; q < 2; ++q) {
@IF_INTEGERS_F64@      unsigned long long x = ((unsigned long long)w[2 * q] << 32) | w[2 * q + 1];
@IF_INTEGERS_F64@      unsigned int att = 0u;
@IF_INTEGERS_F64@      while (x * range < t) {
@IF_INTEGERS_F64@        ++att;
@IF_INTEGERS_F64@        unsigned int c2[4] = {(unsigned int)blk, (unsigned int)(blk >> 32), att, 0u};
@IF_INTEGERS_F64@        philox4x32_10(c2, k0, k1);
@IF_INTEGERS_F64@        x = ((unsigned long long)c2[2 * q] << 32) | c2[2 * q + 1];
@IF_INTEGERS_F64@      }
@IF_INTEGERS_F64@      v[q] = (@T@)((unsigned long long)ilow + __umul64hi(x, range));
@IF_INTEGERS_F64@    }
    const long long j = i * @PER@;
@IF_ALIGNED@    if (j + @PER@ <= n) {
@IF_ALIGNED@      Pack p;
@IF_ALIGNED@      #pragma unroll
@IF_ALIGNED@      for (int q = 0; q < @PER@; ++q) p.v[q] = v[q];
@IF_ALIGNED@      *reinterpret_cast<Pack*>(out + j) = p;
@IF_ALIGNED@      continue;
@IF_ALIGNED@    }
    for (int q = 0; q < @PER@; ++q) if (j + q < n) out[j + q] = v[q];
  }
}
