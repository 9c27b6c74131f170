// Shared pieces of the ndimage kernels (see cuda/ndimage/): index
// extension under SciPy's boundary modes, and shapes passed by value.
// Mode codes: 0 reflect, 1 constant, 2 nearest, 3 mirror, 4 wrap,
// 5 grid-mirror, 6 grid-constant, 7 grid-wrap.
#define ND_MAX 8
struct NdShape { long long n[ND_MAX]; };

// Position i along an axis of n samples under a filter's mode; -1 when the
// constant is read instead.
__device__ __forceinline__ long long nd_extend(long long i, long long n, int mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case 1: case 6: return -1;
    case 2: return i < 0 ? 0 : n - 1;
    case 4: case 7: { long long m = i % n; return m < 0 ? m + n : m; }
    case 3: {
      if (n == 1) return 0;
      long long p = 2 * n - 2, m = i % p;
      if (m < 0) m += p;
      return m >= n ? p - m : m;
    }
    default: {
      long long p = 2 * n, m = i % p;
      if (m < 0) m += p;
      return m >= n ? p - 1 - m : m;
    }
  }
}
