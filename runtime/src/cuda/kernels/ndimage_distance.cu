@PRELUDE@
@COMMON@
// Cuprite ndimage distance transforms (see cuda/ndimage/distance.rs and
// cpu/ndimage/distance.rs). The exact Euclidean transform runs one pass
// per axis over squared distances: the lower envelope of the parabolas
// w (x - p)^2 + f[p] rooted at each line's finite samples (Felzenszwalb
// and Huttenlocher), the nearest zero element's coordinates carried from
// fin to fout (nd x total). Ties go to the lower position, as on the CPU,
// and every quantity is rounded as the CPU rounds it (edt_isect,
// edt_height), so both backends pick the same sites.
#define EDT_INF __longlong_as_double(0x7ff0000000000000LL)

// Where the parabola rooted at q (height fq) starts to lie below the one
// rooted at p < q (height fp): the CPU's expression operation by
// operation, with no fused multiply-add.
__device__ __forceinline__ double edt_isect(double fp, double fq, long long p, long long q, double w) {
  const double pf = (double)p, qf = (double)q;
  const double a = __dadd_rn(fq, __dmul_rn(__dmul_rn(w, qf), qf));
  const double b = __dadd_rn(fp, __dmul_rn(__dmul_rn(w, pf), pf));
  return __ddiv_rn(__dsub_rn(a, b), __dmul_rn(__dmul_rn(2.0, w), __dsub_rn(qf, pf)));
}

// The parabola rooted at p (height f) at q: w (q - p)^2 + f, rounded as on the CPU.
__device__ __forceinline__ double edt_height(double f, long long p, long long q, double w) {
  const double dq = __dsub_rn((double)q, (double)p);
  return __dadd_rn(__dmul_rn(__dmul_rn(w, dq), dq), f);
}

// The first pass (axis 0) sees only the mask, so each element's nearest
// zero along the axis is the nearest set bit of a column's zero bitmap.
// The axis is cut into bands of 32 rows; word (b, c) = b * inner + c holds
// band b of column c, so neighbouring threads read neighbouring bytes.
extern "C" __global__ void cuprite_nd_edt_bits(const unsigned char* __restrict__ m, unsigned* __restrict__ bits,
    long long n, long long inner, long long words)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (long long)gridDim.x * blockDim.x) {
    const long long b = i / inner, c = i - b * inner;
    const int cnt = (int)min(32LL, n - b * 32);
    const unsigned char* col = m + b * 32 * inner + c;
    unsigned word = 0;
    for (int k = 0; k < cnt; ++k) word |= (col[k * inner] == 0 ? 1u : 0u) << k;
    bits[i] = word;
  }
}

// Per column: up[b] is the last zero row before band b and dn[b] the first
// after it (-1: none). Words are loaded eight at a time so that the scan
// waits on memory once per eight bands, not once per band.
extern "C" __global__ void cuprite_nd_edt_carry(const unsigned* __restrict__ bits, long long* __restrict__ up,
    long long* __restrict__ dn, long long nbands, long long inner)
{
  for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < inner; c += (long long)gridDim.x * blockDim.x) {
    long long last = -1;
    for (long long b0 = 0; b0 < nbands; b0 += 8) {
      unsigned wv[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) wv[k] = b0 + k < nbands ? bits[(b0 + k) * inner + c] : 0u;
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        if (b0 + k >= nbands) break;
        up[(b0 + k) * inner + c] = last;
        if (wv[k]) last = (b0 + k) * 32 + 31 - __clz((int)wv[k]);
      }
    }
    long long next = -1;
    for (long long b0 = nbands - 1; b0 >= 0; b0 -= 8) {
      unsigned wv[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) wv[k] = b0 - k >= 0 ? bits[(b0 - k) * inner + c] : 0u;
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        if (b0 - k < 0) break;
        dn[(b0 - k) * inner + c] = next;
        if (wv[k]) next = (b0 - k) * 32 + __ffs((int)wv[k]) - 1;
      }
    }
  }
}

// The first pass's result: one thread per (band, column) word, squared
// distance w (q - p)^2 to the nearest zero p of the column (square-rooted
// when this is the last pass), infinite without one. When the zeros above
// and below are equally far, the CPU's breakpoint between them decides.
// Coordinate 0 of the nearest zero is p (the element's own row without
// one); the others are the column's own.
extern "C" __global__ void cuprite_nd_edt_first(const unsigned* __restrict__ bits, const long long* __restrict__ up,
    const long long* __restrict__ dn, double* __restrict__ d, long long* __restrict__ feat, int nd, NdShape shape,
    long long n, long long inner, long long words, long long total, double w, int root)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (long long)gridDim.x * blockDim.x) {
    const long long b = i / inner, c = i - b * inner, q0 = b * 32;
    const int cnt = (int)min(32LL, n - q0);
    const unsigned word = bits[i];
    const long long above = up[i], below = dn[i];
    for (int k = 0; k < cnt; ++k) {
      const long long q = q0 + k;
      long long p = q;
      if (!((word >> k) & 1u)) {
        const unsigned lo = word & ((1u << k) - 1u), hi = word >> k;
        const long long prev = lo ? q0 + 31 - __clz((int)lo) : above;
        const long long next = hi ? q + __ffs((int)hi) - 1 : below;
        if (prev < 0) p = next;
        else if (next < 0) p = prev;
        else {
          const long long a = q - prev, e = next - q;
          p = a < e ? prev : e < a ? next : (edt_isect(0.0, 0.0, prev, next, w) < (double)q ? next : prev);
        }
      }
      double v = p < 0 ? EDT_INF : edt_height(0.0, p, q, w);
      if (root) v = sqrt(v);
      d[q * inner + c] = v;
      if (feat) feat[q * inner + c] = p < 0 ? q : p;
    }
    if (feat) {
      long long r = c;
      for (int e = nd - 1; e >= 1; --e) {
        const long long x = r % shape.n[e];
        r /= shape.n[e];
        for (int k = 0; k < cnt; ++k) feat[e * total + (q0 + k) * inner + c] = x;
      }
    }
  }
}

// Merges the envelopes of band groups [g, g + h) and [g + h, g + 2h) of
// one line (t bands of b positions; band k's envelope is v[k * b + i],
// i in [a[k], e[k]), with z[k * b + i] where each starts, valid inside a
// band). The merged envelope is a prefix of the left one and a suffix of
// the right one: pop the left's last site while the right's first starts
// below it no later than it starts itself, pop the right's first while
// the left's last reaches past where the right's second starts, until
// neither moves (the bridge walk of two x-separated convex hulls).
// Equality pops, as on the CPU, so a site kept covers an interval.
__device__ void edt_merge(const double* f, const int* v, const double* z, int* a, int* e,
    int g, int h, int t, int b, double w)
{
  const int gend = min(g + 2 * h, t);
  int lb = g + h - 1, rb = g + h;
  while (lb >= g && a[lb] == e[lb]) --lb;
  while (rb < gend && a[rb] == e[rb]) ++rb;
  if (lb < g || rb >= gend) return;
  for (bool moved = true; moved;) {
    moved = false;
    while (true) {
      const int xi = e[lb] - 1, x = v[lb * b + xi], r = v[rb * b + a[rb]];
      int pb = lb;
      double zx;
      if (xi > a[lb]) zx = z[lb * b + xi];
      else {
        for (pb = lb - 1; pb >= g && a[pb] == e[pb]; --pb) {}
        if (pb < g) break;  // the first site of a line is never popped
        const int p = v[pb * b + e[pb] - 1];
        zx = edt_isect(f[p], f[x], p, x, w);
      }
      if (!(edt_isect(f[x], f[r], x, r, w) <= zx)) break;
      e[lb] = xi;
      moved = true;
      if (xi == a[lb]) lb = pb;
    }
    while (true) {
      const int ri = a[rb], r = v[rb * b + ri], x = v[lb * b + e[lb] - 1];
      int nb = rb;
      double zr;
      if (ri + 1 < e[rb]) zr = z[rb * b + ri + 1];
      else {
        for (nb = rb + 1; nb < gend && a[nb] == e[nb]; ++nb) {}
        if (nb >= gend) break;  // nor the last
        const int s = v[nb * b + a[nb]];
        zr = edt_isect(f[r], f[s], r, s, w);
      }
      if (!(zr <= edt_isect(f[x], f[r], x, r, w))) break;
      a[rb] = ri + 1;
      moved = true;
      if (ri + 1 == e[rb]) rb = nb;
    }
  }
}

// Any later axis, for lines that fit in shared memory: a block takes nl
// lines (base[j] is where line j starts; positions step by inner), t
// threads per line, thread k of a line owning the band [k b, k b + b).
// Each band builds its own envelope (the CPU's loop over its positions),
// log2(t) rounds merge neighbouring groups (edt_merge), then each band
// finds the site of each of its positions (s) and the block writes the
// lines back, coalesced. A band's envelope is short unless the line is
// nearly all background, and the merges only touch where groups meet,
// so the line's work is spread over its t threads instead of walked by one.
// Shared memory per line: f, z (doubles) and v, s (ints) of t * b each,
// a, e, nx (ints) and ub (doubles) of t each, and one base (see distance.rs).
extern "C" __global__ void cuprite_nd_edt_lines(const double* __restrict__ din, double* __restrict__ dout,
    const long long* __restrict__ fin, long long* __restrict__ fout, int nd, long long lines, int n,
    long long inner, long long total, double w, int t, int b, int nl, int root)
{
  extern __shared__ __align__(16) unsigned char edt_smem[];
  const int nb = t * b;
  long long* base = (long long*)edt_smem;
  double* F = (double*)(base + nl);
  double* Z = F + nl * nb;
  double* UB = Z + nl * nb;
  int* V = (int*)(UB + nl * t);
  int* S = V + nl * nb;
  int* A = S + nl * nb;
  int* E = A + nl * t;
  int* NX = E + nl * t;
  const int tid = threadIdx.x, j = tid / t, k = tid - j * t;
  const int lo = min(k * b, n), hi = min(lo + b, n);
  double* f = F + j * nb;
  double* z = Z + j * nb;
  double* ub = UB + j * t;
  int* v = V + j * nb;
  int* s = S + j * nb;
  int* a = A + j * t;
  int* e = E + j * t;
  int* nx = NX + j * t;
  const int cells = nl * n;
  const long long blocks = (lines + nl - 1) / nl;
  for (long long blk = blockIdx.x; blk < blocks; blk += gridDim.x) {
    const long long l0 = blk * nl;
    const bool live = l0 + j < lines;
    if (tid < nl) {
      const long long l = l0 + tid, o = l / inner;
      base[tid] = o * n * inner + (l - o * inner);
    }
    __syncthreads();
    // Neighbouring threads take neighbouring addresses: along a line when
    // lines are contiguous, across lines when they are strided.
    for (int c = tid; c < cells; c += blockDim.x) {
      const int jj = inner == 1 ? c / n : c % nl, q = inner == 1 ? c - jj * n : c / nl;
      if (l0 + jj < lines) F[jj * nb + q] = din[base[jj] + (long long)q * inner];
    }
    __syncthreads();
    int cnt = 0;
    if (live) {
      int* vb = v + k * b;
      double* zb = z + k * b;
      for (int q = lo; q < hi; ++q) {
        const double fq = f[q];
        if (!isfinite(fq)) continue;
        if (cnt == 0) { vb[0] = q; zb[0] = -EDT_INF; cnt = 1; continue; }
        while (true) {
          const int p = vb[cnt - 1];
          const double sq = edt_isect(f[p], fq, p, q, w);
          if (sq <= zb[cnt - 1]) {
            if (cnt == 1) { vb[0] = q; break; }
            --cnt;
            continue;
          }
          vb[cnt] = q;
          zb[cnt] = sq;
          ++cnt;
          break;
        }
      }
    }
    a[k] = 0;
    e[k] = cnt;
    __syncthreads();
    for (int h = 1; h < t; h <<= 1) {
      if (live && (k & (2 * h - 1)) == 0 && k + h < t) edt_merge(f, v, z, a, e, k, h, t, b, w);
      __syncthreads();
    }
    // Where each band's last site stops (the next band's first starts).
    if (live) {
      if (a[k] < e[k]) {
        int m = k + 1;
        while (m < t && a[m] == e[m]) ++m;
        nx[k] = m;
        if (m < t) {
          const int p = v[k * b + e[k] - 1], r = v[m * b + a[m]];
          ub[k] = edt_isect(f[p], f[r], p, r, w);
        } else {
          ub[k] = EDT_INF;
        }
      } else {
        ub[k] = -EDT_INF;
      }
    }
    __syncthreads();
    // Position q takes the first site whose interval ends at or after q.
    if (live && lo < hi) {
      int cb = 0;
      while (cb < t && !(ub[cb] >= (double)lo)) ++cb;
      if (cb == t) {
        for (int q = lo; q < hi; ++q) s[q] = -1;
      } else {
        int i = a[cb];
        for (int q = lo; q < hi; ++q) {
          while (true) {
            const double end = i + 1 < e[cb] ? z[cb * b + i + 1] : ub[cb];
            if (!(end < (double)q)) break;
            if (i + 1 < e[cb]) ++i;
            else { cb = nx[cb]; i = a[cb]; }
          }
          s[q] = v[cb * b + i];
        }
      }
    }
    __syncthreads();
    for (int c = tid; c < cells; c += blockDim.x) {
      const int jj = inner == 1 ? c / n : c % nl, q = inner == 1 ? c - jj * n : c / nl;
      if (l0 + jj >= lines) continue;
      const int p = S[jj * nb + q];
      const long long o = base[jj] + (long long)q * inner;
      double dv = p < 0 ? F[jj * nb + q] : edt_height(F[jj * nb + p], p, q, w);
      if (root) dv = sqrt(dv);
      dout[o] = dv;
      if (fout) {
        const long long src = base[jj] + (long long)(p < 0 ? q : p) * inner;
        for (int x = 0; x < nd; ++x) fout[x * total + o] = fin[x * total + src];
      }
    }
    __syncthreads();
  }
}

// Lines too long for shared memory: one thread per line, the CPU's loop,
// with scratch v (int64) and z (double) laid out [position][line] so that
// neighbouring threads touch neighbouring words.
extern "C" __global__ void cuprite_nd_edt_pass(const double* __restrict__ din, double* __restrict__ dout,
    const long long* __restrict__ fin, long long* __restrict__ fout, long long* __restrict__ v,
    double* __restrict__ z, int nd, long long lines, long long n, long long inner, long long total, double w)
{
  for (long long l = (long long)blockIdx.x * blockDim.x + threadIdx.x; l < lines; l += (long long)gridDim.x * blockDim.x) {
    const long long o = l / inner, in = l - o * inner;
    const long long base = o * n * inner + in;
#define F(k) din[base + (long long)(k) * inner]
#define V(k) v[(long long)(k) * lines + l]
#define Z(k) z[(long long)(k) * lines + l]
    long long q0 = 0;
    while (q0 < n && !isfinite(F(q0))) ++q0;
    if (q0 == n) {
      for (long long q = 0; q < n; ++q) {
        dout[base + q * inner] = F(q);
        if (fin) for (int e = 0; e < nd; ++e) fout[e * total + base + q * inner] = fin[e * total + base + q * inner];
      }
      continue;
    }
    long long k = 0;
    V(0) = q0; Z(0) = -EDT_INF; Z(1) = EDT_INF;
    for (long long q = q0 + 1; q < n; ++q) {
      const double fq = F(q);
      if (!isfinite(fq)) continue;
      while (true) {
        const long long vk = V(k);
        const double s = edt_isect(F(vk), fq, vk, q, w);
        if (s <= Z(k)) {
          if (k == 0) { V(0) = q; Z(1) = EDT_INF; break; }
          --k;
          continue;
        }
        ++k;
        V(k) = q; Z(k) = s; Z(k + 1) = EDT_INF;
        break;
      }
    }
    k = 0;
    for (long long q = 0; q < n; ++q) {
      while (Z(k + 1) < (double)q) ++k;
      const long long vk = V(k);
      dout[base + q * inner] = edt_height(F(vk), vk, q, w);
      if (fin) for (int e = 0; e < nd; ++e) fout[e * total + base + q * inner] = fin[e * total + base + vk * inner];
    }
#undef F
#undef V
#undef Z
  }
}

extern "C" __global__ void cuprite_nd_sqrt(double* d, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    d[i] = sqrt(d[i]);
}

#define CDT_FAR (0x7fffffffffffffffLL / 4)
extern "C" __global__ void cuprite_nd_cdt_init(const unsigned char* __restrict__ m, long long* d, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    d[i] = m[i] ? CDT_FAR : 0;
}

// One element per thread: min over its line of max(|k - j|, f[j])
// (chessboard) or |k - j| + f[j] (taxicab), searching outwards while the
// distance alone can still win.
extern "C" __global__ void cuprite_nd_cdt_pass(const long long* __restrict__ din, long long* __restrict__ dout,
    long long n, long long inner, long long total, int chessboard)
{
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const long long k = (i / inner) % n;
    const long long base = i - k * inner;
    long long best = din[i];
    for (long long r = 1; r < best && (r <= k || k + r < n); ++r) {
      if (r <= k) {
        const long long f = din[base + (k - r) * inner];
        const long long c = chessboard ? (f > r ? f : r) : f + r;
        best = c < best ? c : best;
      }
      if (k + r < n) {
        const long long f = din[base + (k + r) * inner];
        const long long c = chessboard ? (f > r ? f : r) : f + r;
        best = c < best ? c : best;
      }
    }
    dout[i] = best;
  }
}

extern "C" __global__ void cuprite_nd_cdt_finish(const long long* __restrict__ d, int* out, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x)
    out[i] = d[i] >= CDT_FAR ? -1 : (int)d[i];
}
