@PRELUDE@
@COMMON@
// Cuprite ndimage connected components and reductions over labels (see
// cuda/ndimage/label.rs). Components are a union-find forest in p, with
// links made by compare-and-swap on roots.
//
// Why each component's final root is its smallest flat index, whatever
// the interleaving of threads:
// (1) p[x] <= x always, and p[x] is masked and in x's component. init sets
//     p[x] = x. A root a is linked only by uf_union's CAS p[a]: a -> b with
//     b < a, b the root of a neighbour's tree (same component). A halving
//     write p[x] = g (x not a root) stores g = p[q] with q = p[x]; by (1)
//     g <= q < x and g lies in x's component. Any link thus points to a
//     smaller index in the same component, so there are no cycles.
// (2) A node stops being a root only by a successful CAS, and only a CAS
//     that finds p[a] == a succeeds; a halving write touches a non-root,
//     which stays one, so the two never write the same word.
// (3) uf_union returns only after its two elements share a root (equal
//     finds, or its CAS linked one root under the other); a failed CAS
//     re-reads both roots. So when merge ends, every pair of neighbours
//     has one root: each component is one tree.
// (4) The component's smallest index m has p[m] <= m and p[m] in the
//     component, so p[m] = m: m is a root, hence the root of the one tree.
// flatten then points every element at m: each thread writes only its
// own p[i], and only the root it found; the finds there are read-only
// (a halving write racing a neighbour's final p[x] = m could store a
// non-root over it, which left some elements labelled as another
// component), and the links they read are ancestors or the root.

// The root of x, halving the path on the way (used while merging: a
// non-root's link only ever moves to an ancestor, (1) and (2) above).
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

// The root of x without writing (flatten: see the comment at the top).
__device__ __forceinline__ long long uf_root(const volatile long long* p, long long x) {
  long long q = p[x];
  while (q != x) {
    x = q;
    q = p[x];
  }
  return x;
}

// Every element points straight at its root.
extern "C" __global__ void cuprite_nd_label_flatten(long long* p, long long total) {
  volatile long long* vp = p;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    if (vp[i] >= 0) vp[i] = uf_root(vp, i);
}

// 1 where an element is its component's root (label numbering's scan input).
extern "C" __global__ void cuprite_nd_label_root_flags(const long long* __restrict__ p, unsigned char* flags, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    flags[i] = p[i] == i;
}

// Each element takes its root's running count (0 off the mask); the caller
// refuses counts past int32 before the result is seen.
extern "C" __global__ void cuprite_nd_label_number(const long long* __restrict__ p, const long long* __restrict__ counts,
    int* out, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const long long r = p[i];
    out[i] = r < 0 ? 0 : (int)counts[r];
  }
}

// v replaces m in a minimum: smaller, or -0.0 over 0.0 (so the result's
// sign does not depend on the order of the atomics; cpu ordered_min). A
// NaN v never replaces.
__device__ __forceinline__ bool below(double v, double m) {
  return v < m || (v == m && signbit(v) && !signbit(m));
}

__device__ __forceinline__ void atomic_min_f64(double* a, double v) {
  unsigned long long* p = (unsigned long long*)a;
  unsigned long long old = *p;
  while (below(v, __longlong_as_double((long long)old))) {
    const unsigned long long seen = atomicCAS(p, old, (unsigned long long)__double_as_longlong(v));
    if (seen == old) break;
    old = seen;
  }
}

__device__ __forceinline__ void atomic_max_f64(double* a, double v) {
  unsigned long long* p = (unsigned long long*)a;
  unsigned long long old = *p;
  while (below(-v, -__longlong_as_double((long long)old))) {
    const unsigned long long seen = atomicCAS(p, old, (unsigned long long)__double_as_longlong(v));
    if (seen == old) break;
    old = seen;
  }
}

extern "C" __global__ void cuprite_nd_fill_f64(double* out, double v, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    out[i] = v;
}

// how: 0 sum, 1 min, 2 max. The sums add in the order the atomics land,
// so they may differ between runs (and from the CPU's C-order sum) in the
// last bits; min and max are exact and order-free.
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

// The first index in C order whose value equals its label's extreme
// (best; -0.0 equals 0.0 here, and NaN, never an extreme, matches nothing):
// the CPU's rule, whatever the order of the atomics.
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
