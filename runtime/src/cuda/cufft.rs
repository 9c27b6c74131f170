//! cuFFT: plans and transforms.
