// The one-sweep radix sort pass of cuda/sort.rs: a template whose names
// between at-signs sort.rs fills in (cuda/template.rs); lines marked
// IF_CARRY are kept only when positions are carried. Needs key_t, val_t and digit().
__device__ __forceinline__ unsigned long long load_status(const unsigned long long* p) {
#if __CUDA_ARCH__ >= 700
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
#else
  return *(volatile const unsigned long long*)p;
#endif
}
__device__ __forceinline__ void store_status(unsigned long long* p, unsigned long long v) {
#if __CUDA_ARCH__ >= 700
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory");
#else
  *(volatile unsigned long long*)p = v;
#endif
}
template <typename T> __device__ __forceinline__ T warp_incl_scan(T x, int lane) {
  #pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, x, o);
    if (lane >= o) x += y;
  }
  return x;
}
extern "C" __global__ void @BOUNDS@cuprite_sort_onesweep(const key_t* __restrict__ kin, key_t* __restrict__ kout, const val_t* __restrict__ vin, val_t* __restrict__ vout, const unsigned long long* __restrict__ dtotals, unsigned long long* status, unsigned* tile_counter, long long total, long long n, int shift, int lane_pass, unsigned long long epoch) {
  __shared__ unsigned long long gbase[256];
  __shared__ unsigned wcnt[@WARPS@][256];
  __shared__ unsigned long long wsum_g[@WARPS@];
  __shared__ unsigned wsum_l[@WARPS@];
  __shared__ long long tile_no;
  // The staged tile; while ranking, the warps' match masks.
  __shared__ __align__(16) unsigned char stage[@STAGE@];
  key_t* const skey = (key_t*)stage;
@IF_CARRY@  val_t* const sval = (val_t*)(stage + @SVAL_AT@);
  unsigned char* const sdig = stage + @SDIG_AT@;
  unsigned (* const wmask)[256] = (unsigned (*)[256])stage;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (tid == 0) tile_no = (long long)atomicAdd(tile_counter, 1u);
  #pragma unroll
  for (int v = 0; v < @WARPS@; ++v) { wcnt[v][tid] = 0u; wmask[v][tid] = 0u; }
  const unsigned long long dtotal = dtotals[tid];
  __syncthreads();
  const long long tile = tile_no, start = tile * @TILE@;
  const long long wstart = start + (long long)warp * @RUN@;
  // Elements of this warp's run that exist (all but in the last tile).
  const bool full = start + @TILE@ <= total;
  const int wleft = full ? @RUN@ : (int)max(0ll, min(total - wstart, (long long)@RUN@));
  key_t kr[@ROUNDS@];
  val_t vr[@ROUNDS@];
  if (full) {
    const key_t* const kw = kin + wstart + lane;
@IF_CARRY@    const val_t* const vw = vin + wstart + lane;
    #pragma unroll
    for (int r = 0; r < @ROUNDS@; ++r) {
      kr[r] = kw[r * 32];
@IF_CARRY@      vr[r] = vw[r * 32];
    }
  } else {
    #pragma unroll
    for (int r = 0; r < @ROUNDS@; ++r) {
      kr[r] = (key_t)0; vr[r] = (val_t)0;
      if (r * 32 + lane < wleft) {
        kr[r] = kin[wstart + r * 32 + lane];
@IF_CARRY@        vr[r] = vin[wstart + r * 32 + lane];
      }
    }
  }
  // Rank: digit | (its place among the warp's elements of that digit) << 8.
  // Missing elements of the last tile take digit 255 and so rank after
  // every element that exists.
  const unsigned bit = 1u << lane, below = bit - 1u;
  unsigned dr[@ROUNDS@];
  #pragma unroll
  for (int r = 0; r < @ROUNDS@; ++r) {
    unsigned d = digit(kr[r], @VR@, n, shift, lane_pass);
    if (r * 32 + lane >= wleft) d = 255u;
    const unsigned d0 = __shfl_sync(0xffffffffu, d, 0);
    unsigned peers = 0xffffffffu;
    if (!__all_sync(0xffffffffu, d == d0)) {
      atomicOr(&wmask[warp][d], bit);
      __syncwarp();
      peers = wmask[warp][d];
      __syncwarp();
    }
    const int leader = __ffs(peers) - 1;
    unsigned before = 0u;
    if (lane == leader) {
      before = wcnt[warp][d];
      wcnt[warp][d] = before + __popc(peers);
      wmask[warp][d] = 0u;
    }
    before = __shfl_sync(0xffffffffu, before, leader);
    dr[r] = d | ((before + __popc(peers & below)) << 8);
    __syncwarp();
  }
  __syncthreads();
  // Thread tid now works on digit tid: the tile's count of it (published
  // at once for the tiles after this one) and each warp's start in it.
  unsigned count = 0u;
  #pragma unroll
  for (int v = 0; v < @WARPS@; ++v) { const unsigned c = wcnt[v][tid]; wcnt[v][tid] = count; count += c; }
  unsigned long long* const mine = status + tile * 256 + tid;
  store_status(mine, (tile == 0 ? @PREFIX@ : @COUNT@) | epoch | count);
  // Where the digit starts in this tile and among all the pass's elements.
  unsigned lincl = warp_incl_scan(count, lane);
  unsigned long long gincl = warp_incl_scan(dtotal, lane);
  if (lane == 31) { wsum_l[warp] = lincl; wsum_g[warp] = gincl; }
  __syncthreads();
  for (int v = 0; v < warp; ++v) { lincl += wsum_l[v]; gincl += wsum_g[v]; }
  const unsigned lstart = lincl - count;
  #pragma unroll
  for (int v = 0; v < @WARPS@; ++v) wcnt[v][tid] += lstart;
  __syncthreads();
  // Stage the tile in digit order.
  #pragma unroll
  for (int r = 0; r < @ROUNDS@; ++r) {
    const unsigned d = dr[r] & 0xffu;
    const unsigned at = wcnt[warp][d] + (dr[r] >> 8);
    skey[at] = kr[r];
@IF_CARRY@    sval[at] = vr[r];
    sdig[at] = (unsigned char)d;
  }
  // Look back: add up the earlier tiles' counts of the digit, @LOOK@ words
  // at a time, until a tile that has published its running total.
  unsigned long long before_tile = 0ull;
  if (tile > 0) {
    long long j = tile - 1;
    for (bool done = false; !done;) {
      unsigned long long w[@LOOK@];
      #pragma unroll
      for (int u = 0; u < @LOOK@; ++u) w[u] = j - u >= 0 ? load_status(status + (j - u) * 256 + tid) : 0ull;
      int used = 0;
      #pragma unroll
      for (int u = 0; u < @LOOK@; ++u) {
        if (done || used < u || (w[u] & @EPOCH_MASK@) != epoch || (w[u] >> 62) == 0ull) continue;
        before_tile += w[u] & @VALUE_MASK@;
        done = (w[u] >> 62) == 2ull;
        used = u + 1;
      }
      j -= used;
    }
    store_status(mine, @PREFIX@ | epoch | (before_tile + count));
  }
  // Element j of the staged tile, of digit d, goes to
  // (d's start) + (d's count in earlier tiles) + j - (d's start in the tile).
  gbase[tid] = gincl - dtotal + before_tile - lstart;
  __syncthreads();
  const long long left = total - start;
  const int held = left < @TILE@ ? (int)left : @TILE@;
  #pragma unroll 4
  for (int j = tid; j < held; j += @THREADS@) {
    const unsigned long long pos = gbase[sdig[j]] + (unsigned long long)j;
    kout[pos] = skey[j];
@IF_CARRY@    vout[pos] = sval[j];
  }
}
