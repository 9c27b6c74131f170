//! Matrix products: matmul, dot, vdot, inner, outer, tensordot, einsum.
