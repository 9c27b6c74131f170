//! User kernels: ElementwiseKernel, ReductionKernel, RawKernel and RawModule.
