//! The core: arrays, layouts, dtypes, elements, buffers, devices, views,
//! errors, the process-wide objects and the interrupt flag. It imports
//! nothing above it (`tests/api/layers.rs` checks): no backend, no op table, no
//! front-end function.

pub(crate) mod array;
pub mod device;
pub mod dtype;
pub(crate) mod element;
pub(crate) mod error;
pub(crate) mod global;
pub mod interrupt;
pub mod layout;
pub(crate) mod lru;
pub(crate) mod storage;
pub(crate) mod view;
