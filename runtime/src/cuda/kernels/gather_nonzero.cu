@GEO@
struct Outs { long long* p[@ND@]; };
// The multi-index of element j of the flags goes to row counts[j] - 1 of
// the outputs when counts[j] (the running count of true flags) steps up.
extern "C" __global__ void cuprite_nonzero(const long long* __restrict__ counts, Outs outs, Geo g, long long total) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < total; j += stride) {
    const long long cj = counts[j];
    if (cj == (j > 0 ? counts[j - 1] : 0LL)) continue;
    long long r = j;
@PEEL@
    outs.p[0][cj - 1] = r;
  }
}
