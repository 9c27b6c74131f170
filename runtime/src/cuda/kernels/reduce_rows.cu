// The row strategy of cuda/reduce.rs: a block (or `gridDim.y` blocks) per
// output row; after the header. Lines marked VEC read 16-byte vectors of a
// contiguous row, CONTIG read a contiguous row element by element, STRIDED
// unravel each reduced index. With several blocks per row, the last block
// to finish folds the partials.
struct Geo { long long kshape[@KD@]; long long kst[@KD@]; long long rshape[@RD@]; long long rst[@RD@]; };
extern "C" __global__ void cuprite_reduce_rows(const in_t* __restrict__ x, @OUT_T@* __restrict__ out, acc_t* partial, unsigned* counters, Geo g, long long rows, long long len@CHAIN_PARAM@) {
  __shared__ acc_t sh[@THREADS@];
  __shared__ bool last;
  const int tid = threadIdx.x;
  const long long splits = gridDim.y;
  // Chunks are whole vectors so every block's vector loads stay aligned.
  const long long chunk = ((len + splits - 1) / splits + @VEC@ - 1) / @VEC@ * @VEC@;
  const long long count = len;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    long long base = 0, rem = row;
    for (int ax = @KDIMS@ - 1; ax >= 0; --ax) { long long d = g.kshape[ax]; long long q = rem / d; base += (rem - q * d) * g.kst[ax]; rem = q; }
    const long long lo = blockIdx.y * chunk;
    const long long hi = lo + chunk < len ? lo + chunk : len;
    acc_t acc = @IDENTITY@;
    @IF_VEC@// 16-byte loads, four per step, into four accumulators.
    @IF_VEC@struct __align__(16) vec_t { in_t v[@VEC@]; };
    @IF_VEC@const in_t* p = x + base;
    @IF_VEC@const vec_t* pv = reinterpret_cast<const vec_t*>(p + (lo < hi ? lo : 0));
    @IF_VEC@const long long nv = hi > lo ? (hi - lo) / @VEC@ : 0;
    @IF_VEC@acc_t a1 = acc;
    @IF_VEC@long long k = tid;
    @IF_VEC@acc_t a2 = acc, a3 = acc;
    @IF_VEC@for (; k + 3 * @THREADS@ < nv; k += 4 * @THREADS@) {
    @IF_VEC@  vec_t w0 = pv[k], w1 = pv[k + @THREADS@], w2 = pv[k + 2 * @THREADS@], w3 = pv[k + 3 * @THREADS@];
    @IF_VEC@  #pragma unroll
    @IF_VEC@  for (int e = 0; e < @VEC@; ++e) { a2 = combine(a2, map_one(w2.v[e])); a3 = combine(a3, map_one(w3.v[e])); }
    @IF_VEC@  #pragma unroll
    @IF_VEC@  for (int e = 0; e < @VEC@; ++e) { acc = combine(acc, map_one(w0.v[e])); a1 = combine(a1, map_one(w1.v[e])); }
    @IF_VEC@}
    @IF_VEC@for (; k < nv; k += @THREADS@) { vec_t w0 = pv[k];
    @IF_VEC@  #pragma unroll
    @IF_VEC@  for (int e = 0; e < @VEC@; ++e) acc = combine(acc, map_one(w0.v[e])); }
    @IF_VEC@for (long long j = lo + nv * @VEC@ + tid; j < hi; j += @THREADS@) acc = combine(acc, map_one(p[j]));
    @IF_VEC@acc = combine(combine(acc, a1), combine(a2, a3));
    @IF_CONTIG@// Four independent accumulators keep several loads in flight.
    @IF_CONTIG@acc_t a1 = acc, a2 = acc, a3 = acc;
    @IF_CONTIG@long long j = lo + tid;
    @IF_CONTIG@for (; j + 3 * @THREADS@ < hi; j += 4 * @THREADS@) {
    @IF_CONTIG@  in_t x0 = LOAD(base + j), x1 = LOAD(base + j + @THREADS@), x2 = LOAD(base + j + 2 * @THREADS@), x3 = LOAD(base + j + 3 * @THREADS@);
    @IF_CONTIG@  acc = combine(acc, map_one(x0)); a1 = combine(a1, map_one(x1)); a2 = combine(a2, map_one(x2)); a3 = combine(a3, map_one(x3));
    @IF_CONTIG@}
    @IF_CONTIG@for (; j < hi; j += @THREADS@) acc = combine(acc, map_one(LOAD(base + j)));
    @IF_CONTIG@acc = combine(combine(acc, a1), combine(a2, a3));
    @IF_STRIDED@// Any layout: unravel each reduced index.
    @IF_STRIDED@for (long long j = lo + tid; j < hi; j += @THREADS@) {
    @IF_STRIDED@  long long off = base, r2 = j;
    @IF_STRIDED@  for (int ax = @RDIMS@ - 1; ax >= 0; --ax) { long long d = g.rshape[ax]; long long q = r2 / d; off += (r2 - q * d) * g.rst[ax]; r2 = q; }
    @IF_STRIDED@  acc = combine(acc, map_one(LOAD(off)));
    @IF_STRIDED@}
@BLOCK_REDUCE@
    if (splits == 1) {
      if (tid == 0) { acc_t acc = sh[0]; out[row] = @POST@; }
    } else {
      if (tid == 0) {
        partial[row * splits + blockIdx.y] = sh[0];
        __threadfence();
        last = atomicAdd(&counters[row], 1u) == (unsigned)(splits - 1);
      }
      __syncthreads();
      if (last) {
        if (tid == 0) counters[row] = 0;
        __threadfence();
        acc = @IDENTITY@;
        for (long long j = tid; j < splits; j += @THREADS@) acc = combine(acc, partial[row * splits + j]);
@BLOCK_REDUCE@
        if (tid == 0) { acc_t acc = sh[0]; out[row] = @POST@; }
      }
    }
    __syncthreads();
  }
}
