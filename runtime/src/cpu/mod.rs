//! The CPU backend: strided loops over host buffers.

pub(crate) mod loops;
