//! FFTs (`cp::fft`): NumPy's fft module, cuFFT on the GPU and rustfft on the CPU.
