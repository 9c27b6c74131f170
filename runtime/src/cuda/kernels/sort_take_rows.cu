
typedef @SRC_T@ src_t;
typedef @OUT_T@ out_t;
// out[l, j] = what(src[l, idx[l, j]]) over C-contiguous (lanes, n) rows.
extern "C" __global__ void cuprite_sort_take_rows(const src_t* __restrict__ src, const long long* __restrict__ idx, out_t* __restrict__ out, long long total, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += stride) {
    const long long row = q / n;
    const src_t v = src[row * n + idx[q]];
    out[q] = @VALUE@;
  }
}
