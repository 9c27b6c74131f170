//! cuBLAS: matrix products.
