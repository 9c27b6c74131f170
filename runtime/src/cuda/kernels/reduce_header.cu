// The part every kernel of cuda/reduce.rs starts with: the prelude, the
// spec's helper definitions, the types and the map and combine steps.
@PRELUDE@
@SUPPORT@
typedef @ACC_T@ acc_t;
typedef @IN_T@ in_t;
#define COMBINE (@COMBINE@)
__device__ __forceinline__ acc_t map_one(in_t raw) { const @COMPUTE_T@ in0 = @CAST_RAW@; return @MAP@; }
__device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return COMBINE; }
@CHAIN@
// The input element at offset `off` (the fused chain's value when the
// reduction reads one, `cuda/fusion.rs`).
#define LOAD(off) @LOAD@
