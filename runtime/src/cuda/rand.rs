//! Random-number kernels on the GPU.
