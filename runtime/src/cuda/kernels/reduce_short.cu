// The short-row strategy of cuda/reduce.rs, after the header: one thread
// per output row, folding the row's few elements in order. For rows of a
// handful of elements (a distance over 3 coordinates, a sum over a short
// last axis) a block per row would spend nearly all its time in the
// block-wide combine and in launching millions of blocks.
struct Geo { long long kshape[@KD@]; long long kst[@KD@]; long long rshape[@RD@]; long long rst[@RD@]; };
extern "C" __global__ void cuprite_reduce_short(const in_t* __restrict__ x, @OUT_T@* __restrict__ out, acc_t* partial, unsigned* counters, Geo g, long long rows, long long len@CHAIN_PARAM@) {
  const long long count = len;
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x; row < rows; row += step) {
    long long base = 0, rem = row;
    for (int ax = @KDIMS@ - 1; ax >= 0; --ax) { long long d = g.kshape[ax]; long long q = rem / d; base += (rem - q * d) * g.kst[ax]; rem = q; }
    acc_t acc = @IDENTITY@;
    @IF_CONTIG@for (long long j = 0; j < len; ++j) acc = combine(acc, map_one(LOAD(base + j)));
    @IF_STRIDED@for (long long j = 0; j < len; ++j) {
    @IF_STRIDED@  long long off = base, r2 = j;
    @IF_STRIDED@  for (int ax = @RDIMS@ - 1; ax >= 0; --ax) { long long d = g.rshape[ax]; long long q = r2 / d; off += (r2 - q * d) * g.rst[ax]; r2 = q; }
    @IF_STRIDED@  acc = combine(acc, map_one(LOAD(off)));
    @IF_STRIDED@}
    out[row] = @POST@;
  }
}
