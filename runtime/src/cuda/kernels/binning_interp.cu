// The kernel of cuda/binning.rs' interp: np.interp at each x.
typedef @V@ value_t;
#define AS_DOUBLE(P) (@VALUE_AS_DOUBLE@)

// ops::binning::interp_one: left below xp[0], right above xp[m - 1], fp[j]
// at xp[j], the line between neighbours elsewhere; NaN stays NaN.
__device__ double interp_one(double v, const double* __restrict__ xp, const double* __restrict__ fp, long long m, double left, double right) {
  if (m == 1) return v < xp[0] ? left : (v > xp[0] ? right : fp[0]);
  if (v != v) return v;
  if (v < xp[0]) return left;
  if (v > xp[m - 1]) return right;
  // j: the last point at or below v.
  long long a = 0, b = m;
  while (a < b) {
    const long long mid = (a + b) >> 1;
    if (__ldg(xp + mid) <= v) a = mid + 1; else b = mid;
  }
  // At least 0: an unsorted xp or a NaN in it (NumPy's garbage in, garbage
  // out) can leave no point at or below v, and xp[-1] is outside the array.
  const long long j = a > 0 ? a - 1 : 0;
  if (j == m - 1 || xp[j] == v) return fp[j];
  const double slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
  double r = slope * (v - xp[j]) + fp[j];
  // If one direction gives NaN (an infinite slope), try the other.
  if (r != r) {
    r = slope * (v - xp[j + 1]) + fp[j + 1];
    if (r != r && fp[j] == fp[j + 1]) r = fp[j];
  }
  return r;
}

extern "C" __global__ void cuprite_interp(const value_t* __restrict__ x, long long x_stride, long long n, const double* __restrict__ xp, const double* __restrict__ fp, long long m, double left, double right, double* __restrict__ out) {
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += step) {
    out[k] = interp_one(AS_DOUBLE(x[k * x_stride]), xp, fp, m, left, right);
  }
}
