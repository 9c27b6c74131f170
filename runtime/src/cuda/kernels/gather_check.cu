
typedef @IDX_T@ idx_t;
// The smallest position k whose index is outside -n..n, kept in *first_bad
// (all ones when every index is in range).
extern "C" __global__ void cuprite_check_indices(const idx_t* __restrict__ idx, long long k_n, long long n, unsigned long long* first_bad) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < k_n; k += stride) {
    const long long v = @INDEX@;
    const long long j = v < 0 ? v + n : v;
    if (j < 0 || j >= n) atomicMin(first_bad, (unsigned long long)k);
  }
}
