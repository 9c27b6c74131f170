extern "C" __global__ void @NAME@(@PARAMS@) {
  const _cp_Size _ind = {_n};
  const _cp_idx _stride = (_cp_idx)gridDim.x * blockDim.x;
  _cp_idx _i = (_cp_idx)blockIdx.x * blockDim.x + threadIdx.x;
@IF_ONCE@@ONCE@
@IF_VECTOR@  const _cp_idx _nv = (_cp_idx)(_n / @LANES@);
@IF_VECTOR@  _cp_idx _v = _i;
@IF_VECTOR@@VECTOR@
@IF_VECTOR@  for (_i = _nv * @LANES@ + (_cp_idx)blockIdx.x * blockDim.x + threadIdx.x; _i < (_cp_idx)_n; _i += _stride) {
@IF_UNROLL@  for (; _i + 3 * _stride < (_cp_idx)_n; _i += 4 * _stride) {
@IF_UNROLL@@UNROLLED@
@IF_UNROLL@  }
@IF_UNROLL@  for (; _i < (_cp_idx)_n; _i += _stride) {
@IF_STRIDED@  for (; _i < (_cp_idx)_n; _i += _stride) {
@IF_STRIDED@@OFFSETS@
@IF_STRIDED@    @UNRAVEL@
    @CALL@
  }
}
