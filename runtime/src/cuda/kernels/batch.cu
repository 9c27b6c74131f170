@PRELUDE@
@SUPPORT@
struct BatchOp { unsigned int code; unsigned int n; unsigned long long a; unsigned long long b; unsigned long long out; };
struct BatchParams { unsigned int count; unsigned int pad; BatchOp ops[@MAX_OPS@]; };
// A scalar input travels in the low bytes of a 64-bit word.
template <class T> __device__ __forceinline__ T batch_value(unsigned long long v) {
  union { unsigned long long u; T t; } x; x.u = v; return x.t;
}
extern "C" __global__ void __launch_bounds__(@THREADS@)
cuprite_batch(const __grid_constant__ BatchParams batch) {
  const unsigned int stride = gridDim.x * blockDim.x;
  const unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned int k = 0; k < batch.count; ++k) {
    const BatchOp& op = batch.ops[k];
    const unsigned int code = op.code;
    const unsigned int n = op.n;
    if (first >= n) continue;
    switch (code >> 2) {
@CASES@
    default: __trap();
    }
  }
}
