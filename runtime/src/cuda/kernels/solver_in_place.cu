@PRELUDE@
// x[i] = @VALUE@ where @COND@, for every element i (row r, column c) of a
// C-contiguous matrix of n elements with `cols` columns.
extern "C" __global__ void @NAME@(@T@* x, long long n, long long cols) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    long long r = i / cols, c = i - r * cols;
    (void)r;
    (void)c;
    if (@COND@) x[i] = @VALUE@;
  }
}
