//! Random numbers (`cp::random`): `default_rng(seed)` generators and NumPy's legacy functions.
