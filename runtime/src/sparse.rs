//! Sparse matrices (`cp::sparse`): CSR, CSC and COO, cuSPARSE on the GPU.
