// The argmax / argmin kernels of cuda/argreduce.rs. Partials are
// (value, index) pairs; an index below zero marks an empty partial.
// ROWS: a block per row, split over gridDim.y blocks (VEC: 16-byte loads
// along a contiguous row). COLS: a thread per row, the reduced axis split
// over gridDim.y. FINISH combines the partials of split rows.
@PRELUDE@
typedef @IN_T@ in_t;
typedef @VAL_T@ val_t;
@GEO@
__device__ __forceinline__ val_t load(in_t raw) { return @LOAD@; }
__device__ __forceinline__ bool is_nan(val_t v) { return @NAN_TEST@; }
// Folds (bv, bi) into (av, ai): NaN first, then the @EXTREME@ value, then the smaller index.
__device__ __forceinline__ void fold(val_t& av, long long& ai, val_t bv, long long bi) {
  if (bi < 0) return;
  bool pick;
  if (ai < 0) pick = true;
  else {
    const bool an = is_nan(av), bn = is_nan(bv);
    if (an || bn) pick = bn && (!an || bi < ai);
    else pick = (@BETTER@) || (!(@WORSE@) && bi < ai);
  }
  if (pick) { av = bv; ai = bi; }
}
// The same when `bi` is known to be larger than every index folded so far.
__device__ __forceinline__ void fold_next(val_t& av, long long& ai, val_t bv, long long bi) {
  if (ai < 0 || (!is_nan(av) && (is_nan(bv) || @BETTER@))) { av = bv; ai = bi; }
}
@IF_VEC@struct __align__(16) vec_t { in_t v[@VEC@]; };
// The shared-memory tree of one block (spelled out for 256 threads).
__device__ __forceinline__ void block_fold(val_t* sv, long long* si, int tid) {
  __syncthreads();
  if (tid < 128) fold(sv[tid], si[tid], sv[tid + 128], si[tid + 128]); __syncthreads();
  if (tid < 64) fold(sv[tid], si[tid], sv[tid + 64], si[tid + 64]); __syncthreads();
  if (tid < 32) fold(sv[tid], si[tid], sv[tid + 32], si[tid + 32]); __syncthreads();
  if (tid < 16) fold(sv[tid], si[tid], sv[tid + 16], si[tid + 16]); __syncthreads();
  if (tid < 8) fold(sv[tid], si[tid], sv[tid + 8], si[tid + 8]); __syncthreads();
  if (tid < 4) fold(sv[tid], si[tid], sv[tid + 4], si[tid + 4]); __syncthreads();
  if (tid < 2) fold(sv[tid], si[tid], sv[tid + 2], si[tid + 2]); __syncthreads();
  if (tid < 1) fold(sv[tid], si[tid], sv[tid + 1], si[tid + 1]); __syncthreads();
}
@IF_ROWS@extern "C" __global__ void cuprite_arg_rows(const in_t* __restrict__ x, long long* __restrict__ out, val_t* pval, long long* pidx, Geo g, long long rows, long long len) {
@IF_ROWS@  __shared__ val_t sv[@THREADS@];
@IF_ROWS@  __shared__ long long si[@THREADS@];
@IF_ROWS@  const int tid = threadIdx.x;
@IF_ROWS@  const long long splits = gridDim.y;
@IF_ROWS@  // Chunks are whole vectors, so each block's part of a row starts aligned when the row does.
@IF_ROWS@  const long long chunk = ((len + splits - 1) / splits + @VEC@ - 1) / @VEC@ * @VEC@;
@IF_ROWS@  const long long lo = blockIdx.y * chunk;
@IF_ROWS@  const long long hi = lo + chunk < len ? lo + chunk : len;
@IF_ROWS@  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
@IF_ROWS@    long long base = 0;
@IF_ROWS@@ROW_BASE@
@IF_ROWS@    val_t av = val_t(); long long ai = -1;
@IF_VEC@    // A thread visits its indices in increasing order (its vectors, then the tail), as fold_next assumes.
@IF_VEC@    long long tail = lo;
@IF_VEC@    if (hi > lo && (((unsigned long long)(x + base + lo)) & 15ull) == 0ull) {
@IF_VEC@      const long long nv = (hi - lo) / @VEC@;
@IF_VEC@      const vec_t* xv = (const vec_t*)(x + base + lo);
@IF_VEC@      for (long long q = tid; q < nv; q += @THREADS@) {
@IF_VEC@        const vec_t w = xv[q];
@IF_VEC@        const long long j = lo + q * @VEC@;
@IF_VEC@        #pragma unroll
@IF_VEC@        for (int e = 0; e < @VEC@; ++e) fold_next(av, ai, load(w.v[e]), j + e);
@IF_VEC@      }
@IF_VEC@      tail = lo + nv * @VEC@;
@IF_VEC@    }
@IF_VEC@    for (long long j = tail + tid; j < hi; j += @THREADS@) fold_next(av, ai, load(x[base + j]), j);
@IF_SCALAR@    for (long long j = lo + tid; j < hi; j += @THREADS@) {
@IF_SCALAR@      long long off = base;
@IF_SCALAR@@RED_OFF@
@IF_SCALAR@      fold(av, ai, load(x[off]), j);
@IF_SCALAR@    }
@IF_ROWS@    sv[tid] = av; si[tid] = ai;
@IF_ROWS@    block_fold(sv, si, tid);
@IF_ROWS@    if (tid == 0) {
@IF_ROWS@      if (splits == 1) out[row] = si[0];
@IF_ROWS@      else { pval[row * splits + blockIdx.y] = sv[0]; pidx[row * splits + blockIdx.y] = si[0]; }
@IF_ROWS@    }
@IF_ROWS@    __syncthreads();
@IF_ROWS@  }
@IF_ROWS@}
@IF_COLS@extern "C" __global__ void cuprite_arg_cols(const in_t* __restrict__ x, long long* __restrict__ out, val_t* pval, long long* pidx, Geo g, long long rows, long long len) {
@IF_COLS@  const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
@IF_COLS@  if (row >= rows) return;
@IF_COLS@  const long long splits = gridDim.y;
@IF_COLS@  const long long chunk = (len + splits - 1) / splits;
@IF_COLS@  const long long lo = blockIdx.y * chunk;
@IF_COLS@  const long long hi = lo + chunk < len ? lo + chunk : len;
@IF_COLS@  long long base = 0;
@IF_COLS@@ROW_BASE@
@IF_COLS@  const long long st = g.v[@RED_STRIDE_AT@];
@IF_COLS@  val_t av = val_t(); long long ai = -1;
@IF_COLS@  for (long long j = lo; j < hi; ++j) fold(av, ai, load(x[base + j * st]), j);
@IF_COLS@  if (splits == 1) out[row] = ai;
@IF_COLS@  else { pval[row * splits + blockIdx.y] = av; pidx[row * splits + blockIdx.y] = ai; }
@IF_COLS@}
extern "C" __global__ void cuprite_arg_finish(const val_t* __restrict__ pval, const long long* __restrict__ pidx, long long* __restrict__ out, long long rows, long long splits) {
  __shared__ val_t sv[@THREADS@];
  __shared__ long long si[@THREADS@];
  const int tid = threadIdx.x;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    val_t av = val_t(); long long ai = -1;
    for (long long j = tid; j < splits; j += @THREADS@) fold(av, ai, pval[row * splits + j], pidx[row * splits + j]);
    sv[tid] = av; si[tid] = ai;
    block_fold(sv, si, tid);
    if (tid == 0) out[row] = si[0];
    __syncthreads();
  }
}
