//! The CUDA device runtime: sessions (one per device per process), memory
//! pools, streams and events, pinned host buffers, the CUDA libraries,
//! NVRTC compilation, kernel launches, copies between host and devices, and
//! NCCL's C interface. It knows no op: the op families and the generators
//! of `cuda/` build on it.

pub(crate) mod compile;
pub(crate) mod foreign;
pub(crate) mod host_buffer;
pub(crate) mod launch;
pub mod libs;
pub(crate) mod memory;
pub(crate) mod nccl_ffi;
pub(crate) mod peer;
pub(crate) mod session;
pub mod stream;
pub(crate) mod transfer;
pub(crate) mod vendor;
