@PRELUDE@
@COMMON@
// Cuprite ndimage connected components and reductions over labels (see
// cuda/ndimage/label.rs). Components are a union-find forest in p: every
// link points to a smaller index, so a root is its component's first
// element in C order, and links are made by compare-and-swap on roots.

// The root of x, halving the path on the way: a non-root's link only ever
// moves to an ancestor (a smaller index), so the writes race harmlessly
// with the compare-and-swap on roots.
__device__ __forceinline__ long long uf_find(volatile long long* p, long long x) {
  long long q = p[x];
  while (q != x) {
    const long long g = p[q];
    if (g != q) p[x] = g;
    x = q;
    q = p[x];
  }
  return x;
}

__device__ void uf_union(long long* p, long long a, long long b) {
  while (true) {
    a = uf_find(p, a);
    b = uf_find(p, b);
    if (a == b) return;
    if (a < b) { const long long t = a; a = b; b = t; }
    const unsigned long long old = atomicCAS((unsigned long long*)&p[a], (unsigned long long)a, (unsigned long long)b);
    if (old == (unsigned long long)a) return;
  }
}

extern "C" __global__ void cuprite_nd_label_init(const unsigned char* __restrict__ m, long long* p, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    p[i] = m[i] ? i : -1;
}

// Each masked element joins its masked neighbours at the offsets nb
// (ndim each: the structure's earlier half).
extern "C" __global__ void cuprite_nd_label_merge(const unsigned char* __restrict__ m, long long* p,
    const long long* __restrict__ nb, int ntaps, int nd, NdShape shape, NdShape strides, long long total)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    if (!m[i]) continue;
    long long c[ND_MAX];
    long long r = i;
    for (int d = nd - 1; d >= 0; --d) { const long long q = r / shape.n[d]; c[d] = r - q * shape.n[d]; r = q; }
    for (int t = 0; t < ntaps; ++t) {
      long long j = 0;
      bool inside = true;
      for (int d = 0; d < nd; ++d) {
        const long long q = c[d] + nb[t * nd + d];
        inside = inside && q >= 0 && q < shape.n[d];
        j += q * strides.n[d];
      }
      if (inside && m[j]) uf_union(p, i, j);
    }
  }
}

// Every element points straight at its root.
extern "C" __global__ void cuprite_nd_label_flatten(long long* p, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    if (p[i] >= 0) p[i] = uf_find(p, i);
}

__device__ __forceinline__ void atomic_min_f64(double* a, double v) {
  unsigned long long* p = (unsigned long long*)a;
  unsigned long long old = *p;
  while (v < __longlong_as_double((long long)old)) {
    const unsigned long long seen = atomicCAS(p, old, (unsigned long long)__double_as_longlong(v));
    if (seen == old) break;
    old = seen;
  }
}

__device__ __forceinline__ void atomic_max_f64(double* a, double v) {
  unsigned long long* p = (unsigned long long*)a;
  unsigned long long old = *p;
  while (v > __longlong_as_double((long long)old)) {
    const unsigned long long seen = atomicCAS(p, old, (unsigned long long)__double_as_longlong(v));
    if (seen == old) break;
    old = seen;
  }
}

extern "C" __global__ void cuprite_nd_fill_f64(double* out, double v, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = v;
}

// how: 0 sum, 1 min, 2 max.
extern "C" __global__ void cuprite_nd_label_reduce(const double* __restrict__ v, const long long* __restrict__ lab,
    double* out, long long bins, long long total, int how)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const long long l = lab[i];
    if (l < 0 || l >= bins) continue;
    if (how == 0) atomicAdd(&out[l], v[i]);
    else if (how == 1) atomic_min_f64(&out[l], v[i]);
    else atomic_max_f64(&out[l], v[i]);
  }
}

// The first index whose value equals its label's extreme (best).
extern "C" __global__ void cuprite_nd_label_argbest(const double* __restrict__ v, const long long* __restrict__ lab,
    const double* __restrict__ best, unsigned long long* at, long long bins, long long total)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const long long l = lab[i];
    if (l < 0 || l >= bins || !(v[i] == best[l])) continue;
    atomicMin(&at[l], (unsigned long long)i);
  }
}

extern "C" __global__ void cuprite_nd_label_argfinish(const unsigned long long* __restrict__ at, double* out, long long bins) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < bins; i += (long long)gridDim.x * blockDim.x)
    out[i] = at[i] == ~0ull ? -1.0 : (double)at[i];
}

extern "C" __global__ void cuprite_nd_fill_u64(unsigned long long* out, unsigned long long v, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = v;
}
