//! Op definitions: one table per op family, each row the whole of an op
//! (name, doc, type rule, CPU body, CUDA expression), and the element math
//! the CPU halves call. Backends and the public functions are generated
//! from or dispatch on these tables; nothing here knows a backend.

pub(crate) mod scalar_math;
pub(crate) mod ufunc;
