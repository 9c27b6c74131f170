// The kernels of a user ReductionKernel (cuda/reduce.rs::user_source),
// after the user's map, reduce and post functions: @NAME@ folds each
// output row (or a chunk of it, `gridDim.y` chunks per row, writing
// partials), @NAME@_finish folds the partials and applies post_map_expr.
extern "C" __global__ void @NAME@(@MAIN_PARAMS@) {
  __shared__ __align__(16) char _sh_raw[@THREADS@ * sizeof(_type_reduce)];
  _type_reduce* _sh = reinterpret_cast<_type_reduce*>(_sh_raw);
  const int _tid = threadIdx.x;
  const _cp_Size _in_ind = {_rows * _len}, _out_ind = {_rows};
  const long long _splits = gridDim.y;
  const long long _chunk = (_len + _splits - 1) / _splits;
  const long long _lo = blockIdx.y * _chunk;
  const long long _hi = _lo + _chunk < _len ? _lo + _chunk : _len;
  for (long long _row = blockIdx.x; _row < _rows; _row += gridDim.x) {
@KEPT_OFFSETS@
    @KEPT_UNRAVEL@
    _type_reduce _s = @IDENTITY@;
    #pragma unroll 4
    for (long long _j = _lo + _tid; _j < _hi; _j += @THREADS@) {
@RED_OFFSETS@
      _s = _cp_reduce(_s, _cp_map(@MAP_ARGS@));
    }
    _sh[_tid] = _s; __syncthreads();
    for (int _w = @HALF_THREADS@; _w > 0; _w >>= 1) { if (_tid < _w) _sh[_tid] = _cp_reduce(_sh[_tid], _sh[_tid + _w]); __syncthreads(); }
    if (_tid == 0) {
      if (_splits == 1) { @POST@ }
      else _partial[_row * _splits + blockIdx.y] = _sh[0];
    }
    __syncthreads();
  }
}
extern "C" __global__ void @NAME@_finish(@FINISH_PARAMS@) {
  __shared__ __align__(16) char _sh_raw[@THREADS@ * sizeof(_type_reduce)];
  _type_reduce* _sh = reinterpret_cast<_type_reduce*>(_sh_raw);
  const int _tid = threadIdx.x;
  const _cp_Size _in_ind = {_rows * _len}, _out_ind = {_rows};
  for (long long _row = blockIdx.x; _row < _rows; _row += gridDim.x) {
    long long _k_@OUT@ = 0;
    @FINISH_UNRAVEL@
    _type_reduce _s = @IDENTITY@;
    for (long long _j = _tid; _j < _splits; _j += @THREADS@) _s = _cp_reduce(_s, _partial[_row * _splits + _j]);
    _sh[_tid] = _s; __syncthreads();
    for (int _w = @HALF_THREADS@; _w > 0; _w >>= 1) { if (_tid < _w) _sh[_tid] = _cp_reduce(_sh[_tid], _sh[_tid + _w]); __syncthreads(); }
    if (_tid == 0) { @POST@ }
    __syncthreads();
  }
}
