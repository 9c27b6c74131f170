//! cuSOLVER: factorizations and solvers.
