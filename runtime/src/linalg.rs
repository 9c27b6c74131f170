//! Linear algebra (`cp::linalg`): NumPy's linalg module, cuSOLVER on the GPU and faer on the CPU.
