
typedef @T@ T;
@IF_ASSIGN@typedef @V@ V;
@GEO@
// Element (j, i) of the mask's axes j and the trailing axes i is selected
// when counts[j] (the running count of true mask values) steps up; it is
// number counts[j] - 1 of the selection.
@IF_READ@extern "C" __global__ void cuprite_mask(const T* __restrict__ x, T* __restrict__ out, const long long* __restrict__ counts, Geo g, long long total, long long m, long long unused) {
@IF_ASSIGN@extern "C" __global__ void cuprite_mask_assign(T* x, const V* __restrict__ v, const long long* __restrict__ counts, Geo g, long long total, long long m, long long vst) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += stride) {
    const long long j = q / m, i = q - j * m;
    const long long cj = counts[j];
    if (cj == (j > 0 ? counts[j - 1] : 0LL)) continue;
    long long off = 0;
@UNRAVEL_LEAD@
@UNRAVEL_TRAIL@
@IF_READ@    out[(cj - 1) * m + i] = x[off];
@IF_ASSIGN@    long long voff = (cj - 1) * vst;
@IF_ASSIGN@@UNRAVEL_V@
@IF_ASSIGN@    x[off] = @STORE@;
  }
}
