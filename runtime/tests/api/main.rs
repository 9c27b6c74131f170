//! The runtime's behaviour, one test binary: every module below was a test
//! file of its own, and each linked the whole runtime again. Tests that change
//! process-wide state (batching, print options, the global generator, the
//! profiler, CUDA sessions and faults, host-fallback counts) or start
//! processes stay separate files in `runtime/tests/`.
//!
//! Run one module with a filter: `cargo test -p cuprite --test api special::`.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
mod ndimage_common;
mod spectra_fixtures;

mod binning;
mod creation;
mod creation_more;
mod custom_kernels;
mod fft;
mod fft_extra;
mod fuzz_api;
mod gpu_scatter_sort;
mod heat_slabs;
mod index;
mod interop;
mod interpolate;
mod io;
mod jit;
mod jit_reduction;
mod layers;
mod layout_props;
mod linalg;
mod linalg_eig;
mod linalg_extra;
mod linalg_more;
mod logic;
mod long_inputs;
mod manip;
mod matmul;
mod ndimage;
mod ndimage_labels;
mod ndimage_morphology;
mod no_panic;
mod operators;
mod random_dists;
mod reduce;
mod reduce_out;
mod scipy_stats;
mod search;
mod shape;
mod signal;
mod signal_iir;
mod signal_iir_order;
mod signal_peaks;
mod signal_resample;
mod signal_spectra;
mod smoke;
mod sort;
mod sparse;
mod sparse_linalg;
mod sparse_precond;
mod special;
mod special_bessel_order;
mod stats;
mod ufunc;
mod ufunc_added;
mod ufunc_methods;
