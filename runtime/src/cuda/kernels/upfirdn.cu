@PRELUDE@
// Cuprite polyphase upfirdn (see cuda/upfirdn.rs): one thread per output
// sample y[m] = sum_k h[k] xu[t0 + m down - k], xu the input upsampled by
// up with zeros. Only the taps of the phase t mod up meet samples, so the
// thread runs h[phase + up q] against x[t / up - q] (q from the last sample
// of the row down to the first, while taps remain), in double. No zeros
// are stored and no output is computed to be thrown away; neighbouring
// threads read neighbouring samples, so x comes from cache after its
// first read. IDX is 32-bit when every index fits (cheaper division).
typedef @IDX@ idx_t;

extern "C" __global__ void cuprite_upfirdn(const @T@* __restrict__ x, idx_t n,
    const double* __restrict__ h, idx_t taps, idx_t up, idx_t down, idx_t t0,
    idx_t len, idx_t total, @T@* __restrict__ y)
{
  const idx_t stride = (idx_t)gridDim.x * blockDim.x;
  for (idx_t j = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; j < total; j += stride) {
    const idx_t lane = j / len, m = j - lane * len;
    const idx_t t = t0 + m * down;
    const idx_t i0 = t / up, phase = t - i0 * up;
    const @T@* __restrict__ row = x + lane * n;
    // Taps h[phase + up q] for q < q_taps; samples x[i0 - q] for q in [q0, i0].
    const idx_t q_taps = phase < taps ? (taps - phase + up - 1) / up : 0;
    const idx_t q_end = q_taps < i0 + 1 ? q_taps : i0 + 1;
    idx_t q = i0 >= n ? i0 - n + 1 : 0;
    const double* __restrict__ hp = h + phase;
    double acc = 0.0;
    for (; q < q_end; ++q) acc += hp[up * q] * (double)row[i0 - q];
    y[j] = (@T@)acc;
  }
}
