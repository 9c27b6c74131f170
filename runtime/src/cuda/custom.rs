//! User kernels compiled with NVRTC (ElementwiseKernel, ReductionKernel, RawKernel).
