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
// component), and the links they read are ancestors or the root. The
// faces-only kernels below keep (1)-(4): their extra links (init's run
// links, the flatten's writes to a thread's own p[i]) point at ancestors.

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

// The faces-only structure (one tap per axis, -1 along it), which the
// default label uses. Flat indices are cut into aligned 32-element
// segments (one warp each; the grid-stride step is a multiple of 32). Runs
// along the last axis are linked without atomics: init points each masked
// element at the first element of its run inside its segment and row (a
// smaller index in its component, itself a root: chains of one), so the
// merge unions along the last axis only at a segment's first element.
// Every link ever stored is then a run start: init's, a CAS's (roots are
// run starts) and a halving write's (a copy of a link). I is unsigned int
// when the total fits 31 bits (cheaper division), else long long.
template <typename I>
__device__ __forceinline__ void faces_init(const unsigned char* __restrict__ m, long long* p, I total, I w) {
  const I step = (I)gridDim.x * blockDim.x;
  const unsigned lane = threadIdx.x & 31u;
  for (I base = (I)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < total; base += step) {
    const I i = base + lane;
    const bool on = i < total && m[i];
    const unsigned bits = __ballot_sync(0xffffffffu, on);
    if (i >= total) continue;
    if (!on) {
      p[i] = -1;
      continue;
    }
    // The lane after the last unmasked one below this lane (0 if none).
    const unsigned off = ~bits & ((1u << lane) - 1u);
    const I first = base + (off ? 32 - __clz(off) : 0);
    const I row = i - i % w;
    p[i] = (long long)(first > row ? first : row);
  }
}

extern "C" __global__ void cuprite_nd_label_faces_init(const unsigned char* __restrict__ m, long long* p,
    long long total, long long w) {
  if (total < (1ll << 31)) faces_init<unsigned>(m, p, (unsigned)total, (unsigned)w);
  else faces_init<long long>(m, p, total, w);
}

// A masked element i unions with i - 1 only at a segment's first element
// (init joined the rest of the run), and with j = i - strides[d] along an
// earlier axis d only when i - 1 and j - 1 are not both masked: otherwise
// i - 1 ~ j - 1 (that pair's own union, or by induction along the row),
// i ~ i - 1 and j ~ j - 1 already join i and j.
template <typename I>
__device__ __forceinline__ void faces_merge(const unsigned char* __restrict__ m, long long* p, int nd,
    const NdShape& strides, I total, I w) {
  for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (I)gridDim.x * blockDim.x) {
    if (!m[i]) continue;
    const bool left = i % w != 0 && m[i - 1];
    if (left && (i & 31) == 0) uf_union(p, (long long)i, (long long)(i - 1));
    for (int d = 0; d + 1 < nd; ++d) {
      const I s = (I)strides.n[d];
      // i's offset inside its block of axes d..; i's coordinate along d is
      // nonzero where it reaches one stride.
      const I pos = d == 0 ? i : i % (I)strides.n[d - 1];
      if (pos < s) continue;
      const I j = i - s;
      if (m[j] && !(left && m[j - 1])) uf_union(p, (long long)i, (long long)j);
    }
  }
}

extern "C" __global__ void cuprite_nd_label_faces_merge(const unsigned char* __restrict__ m, long long* p, int nd,
    NdShape strides, long long total, long long w) {
  if (total < (1ll << 31)) faces_merge<unsigned>(m, p, nd, strides, (unsigned)total, (unsigned)w);
  else faces_merge<long long>(m, p, nd, strides, total, w);
}

// Flatten in two passes. First the run starts find their roots; each
// thread writes only its own p[i], and only ancestors of i (the links it
// walks), so a start whose walk passes through another start's p may be
// carried ahead by that start's own progress. Roots never change here.
template <typename I>
__device__ __forceinline__ bool faces_start(const unsigned char* __restrict__ m, I i, I w) {
  return (i & 31) == 0 || i % w == 0 || !m[i - 1];
}

template <typename I>
__device__ __forceinline__ void faces_flatten_starts(const unsigned char* __restrict__ m, long long* p, I total, I w) {
  volatile long long* vp = p;
  for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (I)gridDim.x * blockDim.x) {
    if (!m[i] || !faces_start(m, i, w)) continue;
    long long q = vp[i];
    while (true) {
      const long long g = vp[q];
      if (g == q) break;
      vp[i] = g;
      q = g;
    }
  }
}

extern "C" __global__ void cuprite_nd_label_faces_flatten_starts(const unsigned char* __restrict__ m, long long* p,
    long long total, long long w) {
  if (total < (1ll << 31)) faces_flatten_starts<unsigned>(m, p, (unsigned)total, (unsigned)w);
  else faces_flatten_starts<long long>(m, p, total, w);
}

// Then every other masked element: its link is a run start (see above),
// which now points at its root.
template <typename I>
__device__ __forceinline__ void faces_flatten_rest(const unsigned char* __restrict__ m, long long* p, I total, I w) {
  for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (I)gridDim.x * blockDim.x) {
    if (!m[i] || faces_start(m, i, w)) continue;
    p[i] = p[p[i]];
  }
}

extern "C" __global__ void cuprite_nd_label_faces_flatten_rest(const unsigned char* __restrict__ m, long long* p,
    long long total, long long w) {
  if (total < (1ll << 31)) faces_flatten_rest<unsigned>(m, p, (unsigned)total, (unsigned)w);
  else faces_flatten_rest<long long>(m, p, total, w);
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
