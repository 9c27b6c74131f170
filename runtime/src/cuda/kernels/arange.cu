extern "C" __global__ void cuprite_arange_i64(long long* out, long long start, long long step, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = (long long)((unsigned long long)start + (unsigned long long)i * (unsigned long long)step);
}
extern "C" __global__ void cuprite_arange_f64(double* out, double start, double delta, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = __dadd_rn(start, __dmul_rn((double)i, delta));
}
