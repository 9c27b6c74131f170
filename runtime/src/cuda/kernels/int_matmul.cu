struct Batch { long long n[8]; };
extern "C" __global__ void cuprite_int_matmul(const @T@* __restrict__ a, const @T@* __restrict__ b,
    @T@* __restrict__ out, long long m, long long n, long long k, long long a_r, long long a_c,
    long long b_r, long long b_c, int nb, Batch batch, Batch a_b, Batch b_b, long long total)
{
  for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < total; o += (long long)gridDim.x * blockDim.x) {
    const long long j = o % n, t = o / n, i = t % m;
    long long r = t / m, ao = i * a_r, bo = j * b_c;
    for (int d = nb - 1; d >= 0; --d) {
      const long long q = r / batch.n[d], c = r - q * batch.n[d];
      ao += c * a_b.n[d];
      bo += c * b_b.n[d];
      r = q;
    }
    @ACC@ acc = 0;
    for (long long p = 0; p < k; ++p) {
      const @ACC@ x = (@ACC@)a[ao + p * a_c], y = (@ACC@)b[bo + p * b_r];
      acc = @STEP@;
    }
    out[o] = (@T@)acc;
  }
}
