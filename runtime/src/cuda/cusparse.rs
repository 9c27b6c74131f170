//! cuSPARSE: sparse products.
