//! The backend interface: one trait per op family, and `Backend`, which a
//! backend implements by implementing every family. Methods take views
//! (buffer, layout, dtype: `crate::core::view::View`) and plain values, never an
//! `Array`; results are written into output views the front end allocated
//! with `Create::empty`, or returned as a new buffer where the front end
//! cannot know the size in advance (say so in the method's doc).
//!
//! The front end validates arguments, resolves dtypes and shapes, and calls
//! `crate::backend::on(device)`, the one place where the device is matched.
//! A backend may assume what the front end checked (shapes broadcast, dtypes
//! supported by the op's table, indices in range where the front end
//! checks them) and reports only its own failures (CUDA errors, memory).

pub(crate) use super::binning::Binning;
pub(crate) use super::create::Create;
pub(crate) use super::fft::Fft;
pub(crate) use super::index::GatherScatter;
pub(crate) use super::interpolate::Interpolate;
pub(crate) use super::linalg::Linalg;
pub(crate) use super::matmul::Matmul;
pub(crate) use super::ndimage::Ndimage;
pub(crate) use super::random::Random;
pub(crate) use super::reduce::{ArgReduce, Reduce, Scan};
pub(crate) use super::signal::Signal;
pub(crate) use super::sort::Sort;
pub(crate) use super::sparse::Sparse;
pub(crate) use super::ufunc::Elementwise;

/// `Backend`, the sum of the family traits listed once, and its blanket
/// impl for every type that implements all of them.
macro_rules! backend_is_every_family {
    ($($family:ident)+) => {
        /// Everything a device must run: every op family.
        pub(crate) trait Backend: $($family +)+ Sync {}

        impl<B> Backend for B where B: $($family +)+ Sync {}
    };
}

backend_is_every_family!(
    Create Elementwise Reduce Scan ArgReduce GatherScatter Sort Matmul Linalg Fft Signal Sparse
    Random Binning Interpolate Ndimage
);
