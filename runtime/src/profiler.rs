//! Timing (`cp::profiler`): CUDA-event benchmarks and NVTX ranges.
