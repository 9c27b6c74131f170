// The counting kernel of cuda/binning.rs. Each sample's bin is found
// (HISTOGRAM: along D axes, by their edges; BINCOUNT: the value itself) and
// one, or the sample's weight (WEIGHTED), is added to it. PRIVATE: each
// block first adds into its own copy of the bins in shared memory, then adds
// its non-zero bins to `out`, so global atomics are a few per bin and block
// rather than one per sample; otherwise (too many bins for shared memory)
// every sample adds to `out` directly.
typedef @V@ value_t;
typedef @ACC@ acc_t;
typedef @OUT@ out_t;
@IF_WEIGHTED@typedef @W@ weight_t;
#define D @D@
#define AS_DOUBLE(P) (@VALUE_AS_DOUBLE@)
#define AS_INDEX(P) (@VALUE_AS_INDEX@)
@IF_WEIGHTED@#define WEIGHT_AS_DOUBLE(P) (@WEIGHT_AS_DOUBLE@)
#define INC (@INC@)

// Where each axis' samples and edges are; passed by value.
struct Axes {
  const value_t* x[D];
  long long stride[D];
  const double* edges[D];
  long long nbins[D];
  long long uniform[D];
};

// The bin of v among the nb bins with edges e[0..nb], the last bin closed,
// or -1 (outside, or NaN): ops::binning::bin_of. With uniform edges the
// first guess is (v - lo) * scale, corrected against the edges themselves,
// so a guess off by rounding still lands where the edges say.
__device__ __forceinline__ long long bin_of(double v, const double* __restrict__ e, long long nb, bool uniform, double lo, double scale) {
  if (!(v >= lo && v <= __ldg(e + nb))) return -1;
  if (uniform) {
    long long i = (long long)((v - lo) * scale);
    i = i < nb - 1 ? i : nb - 1;
    while (i > 0 && v < __ldg(e + i)) --i;
    while (i < nb - 1 && v >= __ldg(e + i + 1)) ++i;
    return i;
  }
  // The number of edges at or below v, less one.
  long long a = 0, b = nb + 1;
  while (a < b) {
    const long long m = (a + b) >> 1;
    if (__ldg(e + m) <= v) a = m + 1; else b = m;
  }
  return a - 1 < nb - 1 ? a - 1 : nb - 1;
}

extern "C" __global__ void cuprite_binning(Axes ax, const void* __restrict__ w_raw, long long w_stride, long long n, long long total, out_t* __restrict__ out) {
@IF_WEIGHTED@  const weight_t* __restrict__ w = (const weight_t*)w_raw;
@IF_PRIVATE@  extern __shared__ __align__(8) unsigned char shared_raw[];
@IF_PRIVATE@  acc_t* bins = (acc_t*)shared_raw;
@IF_PRIVATE@  for (long long b = threadIdx.x; b < total; b += blockDim.x) bins[b] = 0;
@IF_PRIVATE@  __syncthreads();
@IF_HISTOGRAM@  double lo[D], scale[D];
@IF_HISTOGRAM@  #pragma unroll
@IF_HISTOGRAM@  for (int d = 0; d < D; ++d) {
@IF_HISTOGRAM@    lo[d] = __ldg(ax.edges[d]);
@IF_HISTOGRAM@    scale[d] = (double)ax.nbins[d] / (__ldg(ax.edges[d] + ax.nbins[d]) - lo[d]);
@IF_HISTOGRAM@  }
  const long long step = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += step) {
@IF_HISTOGRAM@    long long at = 0;
@IF_HISTOGRAM@    bool inside = true;
@IF_HISTOGRAM@    #pragma unroll
@IF_HISTOGRAM@    for (int d = 0; d < D; ++d) {
@IF_HISTOGRAM@      const long long b = bin_of(AS_DOUBLE(ax.x[d][k * ax.stride[d]]), ax.edges[d], ax.nbins[d], ax.uniform[d] != 0, lo[d], scale[d]);
@IF_HISTOGRAM@      if (b < 0) { inside = false; break; }
@IF_HISTOGRAM@      at = at * ax.nbins[d] + b;
@IF_HISTOGRAM@    }
@IF_HISTOGRAM@    if (!inside) continue;
@IF_BINCOUNT@    const long long at = AS_INDEX(ax.x[0][k * ax.stride[0]]);
@IF_PRIVATE@    atomicAdd(&bins[at], (acc_t)INC);
@IF_GLOBAL@    atomicAdd(&out[at], (out_t)INC);
  }
@IF_PRIVATE@  __syncthreads();
@IF_PRIVATE@  for (long long b = threadIdx.x; b < total; b += blockDim.x) {
@IF_PRIVATE@    const acc_t c = bins[b];
@IF_PRIVATE@    if (c != 0) atomicAdd(&out[b], (out_t)c);
@IF_PRIVATE@  }
}
