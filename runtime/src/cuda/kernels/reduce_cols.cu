// The column strategy of cuda/reduce.rs, after the header: `len` rows of
// `cols` contiguous columns (row stride `rs`); blocks of 32 x 8 threads,
// each thread reading VEC neighbouring columns with one load. Rows are
// split across `gridDim.y` blocks; the last block of a column group to
// finish folds the partials.
struct __align__(@VEC_BYTES@) vec_t { in_t v[@VEC@]; };
// Declares `w` holding the VEC elements from offset `off`: one vector load,
// or each element through LOAD (a fused chain, where VEC is 1).
@IF_PLAIN@#define LOAD_VEC(w, off) vec_t w = *reinterpret_cast<const vec_t*>(x + (off))
@IF_CHAINED@#define LOAD_VEC(w, off) vec_t w; w.v[0] = LOAD(off)
extern "C" __global__ void cuprite_reduce_cols(const in_t* __restrict__ x, @OUT_T@* __restrict__ out, acc_t* partial, unsigned* counters, long long cols, long long len, long long rs@CHAIN_PARAM@) {
  __shared__ acc_t sh[8][@SH_COLS@];
  __shared__ bool last;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const long long c0 = ((long long)blockIdx.x * 32 + tx) * @VEC@;
  const bool live = c0 < cols;
  const long long splits = gridDim.y;
  const long long count = len;
  const long long chunk = (len + splits - 1) / splits;
  const long long lo = blockIdx.y * chunk;
  const long long hi = lo + chunk < len ? lo + chunk : len;
  acc_t acc[@VEC@], a1[@VEC@];
  #pragma unroll
  for (int e = 0; e < @VEC@; ++e) { acc[e] = @IDENTITY@; a1[e] = acc[e]; }
  if (live) {
    long long r = lo + ty;
    for (; r + 8 < hi; r += 16) {
      LOAD_VEC(w0, r * rs + c0);
      LOAD_VEC(w1, (r + 8) * rs + c0);
      #pragma unroll
      for (int e = 0; e < @VEC@; ++e) { acc[e] = combine(acc[e], map_one(w0.v[e])); a1[e] = combine(a1[e], map_one(w1.v[e])); }
    }
    for (; r < hi; r += 8) {
      LOAD_VEC(w0, r * rs + c0);
      #pragma unroll
      for (int e = 0; e < @VEC@; ++e) acc[e] = combine(acc[e], map_one(w0.v[e]));
    }
  }
  // Fold the 8 row lanes through shared memory.
  #pragma unroll
  for (int e = 0; e < @VEC@; ++e) sh[ty][tx * @VEC@ + e] = combine(acc[e], a1[e]);
  __syncthreads();
  if (ty == 0) {
    #pragma unroll
    for (int e = 0; e < @VEC@; ++e) { acc[e] = sh[0][tx * @VEC@ + e]; for (int k = 1; k < 8; ++k) acc[e] = combine(acc[e], sh[k][tx * @VEC@ + e]); }
  }
  if (splits == 1) {
    if (ty == 0 && live) { for (int e = 0; e < @VEC@; ++e) { acc_t acc1 = acc[e]; { acc_t acc = acc1; out[c0 + e] = @POST@; } } }
    return;
  }
  if (ty == 0 && live) { for (int e = 0; e < @VEC@; ++e) partial[blockIdx.y * cols + c0 + e] = acc[e]; }
  __threadfence();
  __syncthreads();
  if (tx == 0 && ty == 0) last = atomicAdd(&counters[blockIdx.x], 1u) == (unsigned)(splits - 1);
  __syncthreads();
  if (!last) return;
  if (tx == 0 && ty == 0) counters[blockIdx.x] = 0;
  __threadfence();
  #pragma unroll
  for (int e = 0; e < @VEC@; ++e) acc[e] = @IDENTITY@;
  if (live) for (long long j = ty; j < splits; j += 8) {
    #pragma unroll
    for (int e = 0; e < @VEC@; ++e) acc[e] = combine(acc[e], partial[j * cols + c0 + e]);
  }
  __syncthreads();
  #pragma unroll
  for (int e = 0; e < @VEC@; ++e) sh[ty][tx * @VEC@ + e] = acc[e];
  __syncthreads();
  if (ty == 0 && live) {
    for (int e = 0; e < @VEC@; ++e) { acc_t acc1 = sh[0][tx * @VEC@ + e]; for (int k = 1; k < 8; ++k) acc1 = combine(acc1, sh[k][tx * @VEC@ + e]); { acc_t acc = acc1; out[c0 + e] = @POST@; } }
  }
}
